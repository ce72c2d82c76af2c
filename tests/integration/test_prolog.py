"""slurm.conf Prolog and Epilog: run as root once per job on each node where it
runs; a failing prolog drains the node and requeues the job."""

import os
import time

import pytest

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="prolog/epilog run as root")

SCRIPT = """#!/bin/sh
echo "$SLURM_SCRIPT_CONTEXT $SLURM_JOB_ID $SLURMD_NODENAME $SLURM_JOB_USER" >> {log}
{extra}
exit 0
"""


def configure(cluster, tmp_path, prolog_extra=""):
    log = tmp_path / "scripts.log"
    for name, extra in (("prolog", prolog_extra), ("epilog", "")):
        p = tmp_path / f"{name}.sh"
        p.write_text(SCRIPT.format(log=log, extra=extra))
        p.chmod(0o755)
    cluster.down()
    with open(cluster.conf_path, "a") as f:
        f.write(f"Prolog={tmp_path}/prolog.sh\nEpilog={tmp_path}/epilog.sh\n")
    cluster.up()
    return log


def env_script(tmp_path):
    """A Prolog/Epilog writing its environment to OUT.<context>: (script, OUT)."""
    out = tmp_path / "env"
    script = tmp_path / "script.sh"
    script.write_text(f"#!/bin/sh\nenv > {out}.$SLURM_SCRIPT_CONTEXT\n")
    script.chmod(0o755)
    return script, out


def script_envs(c, out):
    """(context, environment) of the Prolog's and the Epilog's run."""
    for ctx in ("prolog_slurmd", "epilog_slurmd"):
        path = f"{out}.{ctx}"
        c.wait_for(lambda: os.path.exists(path), what=f"{path} written")
        time.sleep(0.2)
        with open(path) as f:
            yield ctx, dict(ln.split("=", 1) for ln in f.read().splitlines() if "=" in ln)


def lines(log):
    return sorted(log.read_text().splitlines()) if log.exists() else []


def configuring(c, tmp_path, *sbatch_args):
    """A Prolog that waits until the returned flag file exists, and a batch job
    (sbatch_args) held CONFIGURING by it: (job id, flag, scripts log)."""
    flag = tmp_path / "go"
    log = configure(c, tmp_path, prolog_extra=(
        f"for i in $(seq 600); do [ -e {flag} ] && break; sleep 0.1; done"))
    jobid = c.sbatch(*sbatch_args)
    c.wait_for(lambda: c.job_state(jobid) == "CONFIGURING", timeout=20,
               what="CONFIGURING")
    return jobid, flag, log


def wait_rotad_says(c, text, what):
    """Until node01's rotad has logged text."""
    path = os.path.join(c.dir, "log", "rotad-node01.log")

    def said():
        with open(path) as f:
            return text in f.read() or None
    c.wait_for(said, what=what)


def test_prolog_and_epilog_run_once_per_node(fresh_cluster, tmp_path):
    c = fresh_cluster
    log = configure(c, tmp_path)
    jobid = c.sbatch("-N", "2", "-o", "/dev/null", "--wrap", "srun true; srun true")
    assert c.wait_job(jobid) == "COMPLETED"
    user = c.user
    want = sorted([f"prolog_slurmd {jobid} node01 {user}",
                   f"prolog_slurmd {jobid} node02 {user}",
                   f"epilog_slurmd {jobid} node01 {user}",
                   f"epilog_slurmd {jobid} node02 {user}"])
    c.wait_for(lambda: lines(log) == want, timeout=15, what=f"{want} in {lines(log)}")


def test_a_job_across_a_reconfigure_gets_one_prolog_and_its_epilog(fresh_cluster,
                                                                   tmp_path):
    """rotad started again by scontrol reconfigure (slurm.conf changed) while
    a job runs: the job's next step gets no second Prolog, and its end still
    runs the Epilog (the spool keeps the jobs that ran here)."""
    c = fresh_cluster
    log = configure(c, tmp_path)
    go = tmp_path / "go"
    jobid = c.sbatch("-N1", "-w", "node01", "-o", "/dev/null", "--wrap",
                     f"srun true; while [ ! -e {go} ]; do sleep 0.2; done; srun true")
    c.wait_for(lambda: lines(log) == [f"prolog_slurmd {jobid} node01 {c.user}"],
               what="the Prolog")
    with open(c.conf_path, "a") as f:
        f.write("# changed\n")
    c.run(["scontrol", "reconfigure"], check=True)
    wait_rotad_says(c, "rotad starts again", "rotad started again")
    time.sleep(1)
    go.write_text("")
    assert c.wait_job(jobid, timeout=60) == "COMPLETED"
    want = sorted([f"prolog_slurmd {jobid} node01 {c.user}",
                   f"epilog_slurmd {jobid} node01 {c.user}"])
    c.wait_for(lambda: lines(log) == want, timeout=15, what=f"{want} in {lines(log)}")
    assert not [f for f in os.listdir(os.path.join(c.dir, "spool", "node01"))
                if f.endswith(".here")]


def test_failing_prolog_drains_and_requeues(fresh_cluster, tmp_path):
    """SchedulerParameters=nohold_on_prolog_fail: the job goes back to the
    queue and runs elsewhere."""
    c = fresh_cluster
    with open(c.conf_path, "a") as f:
        f.write("SchedulerParameters=nohold_on_prolog_fail\n")
    configure(c, tmp_path, prolog_extra='[ "$SLURMD_NODENAME" = node01 ] && exit 1')
    jobid = c.sbatch("-o", "out-%j.txt", "--wrap", "hostname")
    assert c.wait_job(jobid, timeout=60) == "COMPLETED"
    assert c.job_field(jobid, "Restarts") == "1"
    assert c.job_field(jobid, "BatchHost") != "node01"
    p = c.run(["sinfo", "-h", "-N", "-n", "node01", "-o", "%t %E"])
    assert p.stdout.strip().split(None, 1) == ["drain", "Prolog error"], p.stdout


def test_failing_prolog_requeues_the_job_held(fresh_cluster, tmp_path):
    """As Slurm by default: the job is requeued and held by a user's hold,
    its reason "launch failed requeued held" (scontrol writes it as one
    word); released, it runs on another node."""
    c = fresh_cluster
    configure(c, tmp_path, prolog_extra='[ "$SLURMD_NODENAME" = node01 ] && exit 1')
    jobid = c.sbatch("-w", "node01", "-o", "/dev/null", "--wrap", "hostname")
    c.wait_for(lambda: c.job_field(jobid, "Reason") == "launch_failed_requeued_held",
               timeout=30, what="the job held after its Prolog failed")
    assert c.job_state(jobid) == "PENDING"
    assert c.job_field(jobid, "Priority") == "0"
    p = c.run(["squeue", "-h", "-j", str(jobid), "-o", "%T|%r"])
    assert p.stdout.strip() == "PENDING|launch failed requeued held", p.stdout
    p = c.run(["sinfo", "-h", "-N", "-n", "node01", "-o", "%T|%E"])
    assert p.stdout.strip() == "drained|Prolog error", p.stdout
    c.run(["scontrol", "update", f"jobid={jobid}", "nodelist="], check=True)
    c.run(["scontrol", "release", str(jobid)], check=True)
    assert c.wait_job(jobid, timeout=60) == "COMPLETED"
    assert c.job_field(jobid, "BatchHost") == "node02"


def test_reconfigure_gives_the_nodes_a_new_prolog(fresh_cluster, tmp_path):
    """scontrol reconfigure makes the node daemons read slurm.conf again, as
    slurmd: a Prolog added to it runs for the next job, with the job's
    environment (Slurm's prolog/epilog variables)."""
    c = fresh_cluster
    script, out = env_script(tmp_path)
    jobid = c.sbatch("-o", "/dev/null", "--wrap", "true")
    assert c.wait_job(jobid) == "COMPLETED"
    with open(c.conf_path, "a") as f:
        f.write(f"Prolog={script}\nEpilog={script}\n")
    c.run(["scontrol", "reconfigure"], check=True)
    time.sleep(1)  # the node daemons start again with the new files
    jobid = c.sbatch("-N1", "-w", "node01", "--comment=foo bar",
                     "-o", "/dev/null", "--wrap", "true")
    assert c.wait_job(jobid) == "COMPLETED"
    for ctx, env in script_envs(c, out):
        assert env["SLURM_SCRIPT_CONTEXT"] == ctx
        assert env["SLURM_JOB_ID"] == str(jobid)
        assert env["SLURM_JOB_COMMENT"] == "foo bar"
        assert env["SLURM_JOB_NUM_NODES"] == "1"
        assert env["SLURM_JOB_NODELIST"] == "node01"
        assert env["SLURM_JOB_STDOUT"] == "/dev/null"
        assert env["SLURM_JOB_CPUS_PER_NODE"] == "1"


def test_task_prolog_sets_environment(fresh_cluster, tmp_path):
    c = fresh_cluster
    tp = tmp_path / "taskprolog.sh"
    tp.write_text("#!/bin/sh\necho export FROM_TASK_PROLOG=yes-$SLURM_PROCID\n"
                  "echo unset DROP_ME\necho print hello from the task prolog\n")
    tp.chmod(0o755)
    c.down()
    with open(c.conf_path, "a") as f:
        f.write(f"TaskProlog={tp}\n")
    c.up()
    p = c.run("DROP_ME=1 srun -n2 -l sh -c 'echo v=$FROM_TASK_PROLOG d=${DROP_ME:-gone}' | sort")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "0: hello from the task prolog", "0: v=yes-0 d=gone",
        "1: hello from the task prolog", "1: v=yes-1 d=gone"], p.stdout


def test_job_configuring_while_prolog_runs(fresh_cluster, tmp_path):
    """A batch job is CONFIGURING (CF) from its start until its node has run
    the Prolog, then RUNNING; the transition survives a controller restart."""
    c = fresh_cluster
    jobid, flag, _ = configuring(c, tmp_path, "-o", "/dev/null", "--wrap", "sleep 60")
    p = c.run(["squeue", "-h", "-j", str(jobid), "-o", "%t"])
    assert p.stdout.strip() == "CF"
    p = c.run(["squeue", "-h", "-t", "CF", "-o", "%i"])
    assert p.stdout.split() == [str(jobid)]
    time.sleep(1)  # still waiting for the prolog
    assert c.job_state(jobid) == "CONFIGURING"
    flag.touch()
    c.wait_running(jobid)
    p = c.run(["squeue", "-h", "-j", str(jobid), "-o", "%t"])
    assert p.stdout.strip() == "R"
    # journaled: a restarted controller still has it RUNNING, not CONFIGURING
    c.kill_daemon("rotactld")
    c.up()
    assert c.job_state(jobid) == "RUNNING"
    c.run(["scancel", str(jobid)])


def test_srun_job_not_configuring(fresh_cluster, tmp_path):
    c = fresh_cluster
    configure(c, tmp_path)
    p = c.run(["srun", "sh", "-c", "squeue -h -j $SLURM_JOB_ID -o %t"], timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "R"


def test_a_job_cancelled_during_its_prolog_never_starts(fresh_cluster, tmp_path):
    """scancel while the node runs the Prolog: the step daemon hears it before
    the tasks start and starts none (they used to start, to be killed at once,
    and a step daemon killed meanwhile left them running unwatched)."""
    c = fresh_cluster
    ran = tmp_path / "ran"
    # a started task truncates its output file before anything can stop it;
    # the cancel's notice is appended to it
    ran.write_text("before\n")
    jobid, flag, log = configuring(c, tmp_path, "-o", str(ran), "--wrap",
                                   "echo started; sleep 60")
    assert c.run(["scancel", str(jobid)]).returncode == 0
    wait_rotad_says(c, f"JobId={jobid} terminate sent to 1 stepd(s)",
                    "the cancel at the step daemon")
    flag.touch()
    c.wait_for(lambda: f"epilog_slurmd {jobid} node01 {c.user}" in lines(log) or None,
               timeout=30, what="the epilog")
    c.wait_nodes_idle()
    assert c.job_state(jobid) == "CANCELLED"
    assert ran.read_text().startswith("before\nslurmstepd: error: *** JOB "), \
        "the job's script started after its cancel"


def test_a_signal_sent_during_the_prolog_reaches_the_tasks(fresh_cluster, tmp_path):
    """scancel --full -s STOP while the Prolog runs: the step daemon keeps the
    signal for the tasks and they get it once started (a terminate, unlike
    it, keeps them from starting)."""
    c = fresh_cluster
    jobid, flag, _ = configuring(c, tmp_path, "-o", "/dev/null", "--wrap", "sleep 317")
    p = c.run(["scancel", "--full", "-s", "STOP", str(jobid)])
    assert p.returncode == 0, p.stderr
    wait_rotad_says(c, f"JobId={jobid} signal 19 sent to 1 stepd(s)",
                    "the signal at the step daemon")
    flag.touch()
    c.wait_running(jobid)

    def stopped_shell():
        # the batch shell, or the child it started for sleep (a shell that
        # vforks waits, not stopped, while its child is)
        for pid, argv in c.processes():
            if (argv.startswith("/bin/sh ") and f"job{int(jobid):05d}" in argv) \
                    or argv.strip() == "sleep 317":
                with open(f"/proc/{pid}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "T":
                        return True
        return None
    c.wait_for(stopped_shell, what="the batch shell stopped")
    c.run(["scancel", str(jobid)])


def test_prolog_and_epilog_see_the_jobs_gpus(make_cluster, tmp_path):
    """As Slurm's GRES environment in its node scripts: the indexes of the
    job's GPUs on the node in SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES (and
    GPU_DEVICE_ORDINAL, ROCR_VISIBLE_DEVICES)."""
    c = make_cluster("--nodes", "1", "--cpus", "2", "--gpus", "2")
    script, out = env_script(tmp_path)
    c.down()
    with open(c.conf_path, "a") as f:
        f.write(f"Prolog={script}\nEpilog={script}\n")
    c.up()
    jobid = c.sbatch("--gres=gpu:1", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_job(jobid) == "COMPLETED"
    for ctx, env in script_envs(c, out):
        for name in ("SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
                     "ROCR_VISIBLE_DEVICES"):
            assert env.get(name) == "0", (ctx, name, env.get(name))
