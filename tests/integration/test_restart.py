"""The controller's state survives a crash (SIGKILL) and a full down/up."""

import os
import signal


def held_ids(c):
    p = c.run("squeue -h -o '%i %t %r'")
    assert p.returncode == 0, p.stderr
    return {int(line.split()[0]): line.split()[1:] for line in p.stdout.splitlines()}


def test_controller_crash_keeps_jobs(fresh_cluster):
    c = fresh_cluster
    ids = [c.sbatch("--hold", "-J", f"keep{i}", "--wrap", "true") for i in range(3)]
    before = held_ids(c)
    assert sorted(before) == ids
    old_pid = c.pid("rotactld")

    c.kill_daemon("rotactld", signal.SIGKILL)
    p = c.run("scontrol ping")
    assert p.returncode != 0 or "DOWN" in p.stdout

    p = c.up()  # starts only what is missing
    assert c.pid("rotactld") != old_pid
    assert "rotactld" in p.stderr
    after = held_ids(c)
    assert after == {i: ["PD", "JobHeldUser"] for i in ids}
    for i, jobid in enumerate(ids):
        assert c.job_field(jobid, "JobName") == f"keep{i}"
    new = c.sbatch("--hold", "--wrap", "true")
    assert new > max(ids)
    # nodes came back and jobs run again
    c.run(f"scontrol release {ids[0]}")
    assert c.wait_job(ids[0]) == "COMPLETED"


def test_restart_gives_each_job_its_environment_and_script(fresh_cluster, tmp_path):
    """The journal writes an environment or a script once and the jobs that
    share it refer to it (ctld/jtext.h): after a crash every job still runs
    with its own.  The node daemons, which outlived the controller, are told
    by `rota up` to reconnect at once."""
    c = fresh_cluster
    jobs = []
    for i in range(4):
        out = tmp_path / f"env{i}.out"
        env = {"KEEP_ENV": f"value{i % 2}"}
        jobs.append((c.sbatch("--hold", "-o", str(out), "--wrap",
                              f"echo $KEEP_ENV script{i % 3}", env=env), out, i))
    c.kill_daemon("rotactld", signal.SIGKILL)
    c.up()
    log = os.path.join(c.dir, "log", "rotad-node01.log")
    with open(log) as f:
        assert "SIGHUP: reconnecting to the controller" in f.read()
    for jobid, out, i in jobs:
        c.run(f"scontrol release {jobid}")
        assert c.wait_job(jobid) == "COMPLETED"
        assert out.read_text() == f"value{i % 2} script{i % 3}\n"


def test_full_restart_keeps_jobs_and_ids(fresh_cluster):
    c = fresh_cluster
    done = c.sbatch("--wrap", "true")
    assert c.wait_job(done) == "COMPLETED"
    held = c.sbatch("--hold", "-J", "survivor", "--wrap", "true")
    p = c.down()
    assert p.returncode == 0
    assert not c.processes()
    c.up()
    assert held_ids(c) == {held: ["PD", "JobHeldUser"]}
    # finished jobs stay visible for MinJobAge (300 s) across the restart too
    assert c.job_state(done) == "COMPLETED"
    new = c.sbatch("--wrap", "true")
    assert new > held
    assert c.wait_job(new) == "COMPLETED"


def test_node_daemon_restart(fresh_cluster):
    c = fresh_cluster
    c.kill_daemon("rotad-node03", signal.SIGKILL)

    def node03_not_responding():
        p = c.run("sinfo -h -N -o '%N %t'")
        state = dict(line.split() for line in p.stdout.splitlines()).get("node03", "")
        return state.endswith("*")
    c.wait_for(node03_not_responding, 20, "node03 to be marked not responding")
    c.up()
    p = c.run("sinfo -h -N -o '%N %t'")
    assert dict(line.split() for line in p.stdout.splitlines())["node03"] == "idle"
    jobid = c.sbatch("-w", "node03", "--wrap", "true")
    assert c.wait_job(jobid) == "COMPLETED"


def test_up_refuses_running_cluster(fresh_cluster):
    c = fresh_cluster
    p = c.up(check=False)
    assert p.returncode == 1
    assert p.stderr == f"rota: error: a cluster is already running in {c.dir}\n"
    assert p.stdout == ""


def test_down_stops_running_jobs(fresh_cluster):
    c = fresh_cluster
    jobid = c.sbatch("-N", "2", "--wrap", "srun sleep 300")
    c.wait_running(jobid)
    c.wait_for(lambda: any("sleep" in cmd for _, cmd in c.processes()), 15,
               "the job's sleep processes")
    p = c.down()
    assert p.returncode == 0
    assert not c.processes()
    for name in os.listdir(os.path.join(c.dir, "run")):
        assert not name.endswith(".pid")
    # and down again is fine
    assert c.down().returncode == 0


def _ended_on_node(c, node, jobid, step="4294967291"):
    path = os.path.join(c.dir, "log", f"rotad-{node}.log")
    try:
        with open(path) as f:
            return f"JobId={jobid} StepId={step} ended" in f.read()
    except OSError:
        return False


def test_completion_while_controller_down_is_delivered(fresh_cluster):
    """A batch script that ends while the controller is dead: rotad keeps the
    completion and sends it once it has registered with the restarted
    controller; the job ends FAILED with the script's exit code."""
    c = fresh_cluster
    flag = os.path.join(c.dir, "go-crash")
    jobid = c.sbatch("-w", "node01", "-o", "/dev/null", "--wrap",
                     f"for i in $(seq 600); do [ -e {flag} ] && exit 3; sleep 0.1; done")
    c.wait_running(jobid)
    c.kill_daemon("rotactld", signal.SIGKILL)
    open(flag, "w").close()
    c.wait_for(lambda: _ended_on_node(c, "node01", jobid), timeout=20,
               what="the script's end on node01")
    c.up()
    assert c.wait_job(jobid, timeout=30) == "FAILED"
    assert c.job_field(jobid, "ExitCode") == "3:0"
    # the node is free again and takes the next job
    assert c.wait_job(c.sbatch("-w", "node01", "--wrap", "true")) == "COMPLETED"


def test_completion_while_controller_stopped_is_delivered(fresh_cluster):
    """Same with a controller that is frozen (SIGSTOP), steps included: the
    srun step's and the script's completions both arrive after SIGCONT."""
    c = fresh_cluster
    flag = os.path.join(c.dir, "go-stop")
    script = (f"srun -N1 sh -c 'for i in $(seq 600); do [ -e {flag} ] && exit 0; "
              "sleep 0.1; done'; exit 4")
    jobid = c.sbatch("-w", "node02", "-o", "/dev/null", "--wrap", script)
    c.wait_running(jobid)
    c.wait_for(lambda: c.run(["squeue", "-h", "-s", "-j", str(jobid)])
               .stdout.count(f"{jobid}.0"), timeout=20, what="step 0")
    pid = c.pid("rotactld")
    os.kill(pid, signal.SIGSTOP)
    try:
        open(flag, "w").close()
        c.wait_for(lambda: _ended_on_node(c, "node02", jobid), timeout=20,
                   what="the script's end on node02")
    finally:
        os.kill(pid, signal.SIGCONT)
    assert c.wait_job(jobid, timeout=30) == "FAILED"
    assert c.job_field(jobid, "ExitCode") == "4:0"


def test_completion_unread_by_a_dead_controller_is_resent(fresh_cluster):
    """rotad sent the completion, but the controller (frozen, then killed)
    never read it: rotad sends it again after registering with the new
    controller.  A job that had already ended, re-reported too, stays as it
    was."""
    c = fresh_cluster
    done = c.sbatch("-w", "node03", "-o", "/dev/null", "--wrap", "exit 2")
    assert c.wait_job(done) == "FAILED"
    flag = os.path.join(c.dir, "go-unread")
    jobid = c.sbatch("-w", "node03", "-o", "/dev/null", "--wrap",
                     f"for i in $(seq 600); do [ -e {flag} ] && exit 5; sleep 0.1; done")
    c.wait_running(jobid)
    pid = c.pid("rotactld")
    os.kill(pid, signal.SIGSTOP)
    try:
        open(flag, "w").close()
        c.wait_for(lambda: _ended_on_node(c, "node03", jobid), timeout=20,
                   what="the script's end on node03")
    finally:
        c.kill_daemon("rotactld", signal.SIGKILL)
    c.up()
    assert c.wait_job(jobid, timeout=30) == "FAILED"
    assert c.job_field(jobid, "ExitCode") == "5:0"
    assert c.job_state(done) == "FAILED"
    assert c.job_field(done, "ExitCode") == "2:0"
    assert c.wait_job(c.sbatch("-w", "node03", "--wrap", "true")) == "COMPLETED"


def test_steps_survive_a_controller_crash(fresh_cluster, tmp_path):
    """Steps are journaled: after a crash of the controller a running step
    still holds its CPUs (a new step waits for them) and step ids go on from
    where they were instead of starting again at 0."""
    c = fresh_cluster
    hold = "sh -c 'touch A; while [ ! -e go ]; do sleep 0.1; done'"
    script = tmp_path / "job.sh"
    script.write_text(f"""#!/bin/sh
srun --exact -n1 -c8 {hold} &
while [ ! -e next ]; do sleep 0.1; done
srun --exact -n1 -c8 sh -c 'echo $SLURM_STEP_ID > B' 2> b.err &
wait
""")
    jobid = c.sbatch("-D", str(tmp_path), "-o", str(tmp_path / "out"), "-w", "node01",
                     "-N1", "-n8", str(script))
    c.wait_for(lambda: (tmp_path / "A").exists(), timeout=30, what="step 0 running")
    for _ in range(2):  # the second start replays what the first compacted
        c.kill_daemon("rotactld", signal.SIGKILL)
        c.up()
        steps = c.run(["squeue", "-h", "-s", "-j", str(jobid), "-o", "%i"])
        assert f"{jobid}.0" in steps.stdout.split(), steps.stdout
    (tmp_path / "next").touch()
    c.wait_for(lambda: (tmp_path / "b.err").exists() and "temporarily disabled"
               in (tmp_path / "b.err").read_text(), timeout=30,
               what="the new step waiting for step 0's CPUs")
    assert not (tmp_path / "B").exists()
    (tmp_path / "go").touch()
    assert c.wait_job(jobid, timeout=30) == "COMPLETED"
    assert (tmp_path / "B").read_text() == "1\n"


def test_step_lost_with_its_node_daemons_frees_its_cpus(fresh_cluster, tmp_path):
    """A node whose rotad and step daemon died (as in a reboot) registers again
    without the step: the controller takes the step as over there, so its CPUs
    go back to the job and the next step runs."""
    c = fresh_cluster
    script = tmp_path / "job.sh"
    script.write_text("""#!/bin/sh
srun --exact -n1 -c8 sh -c 'echo $PPID $$ > pids; while [ ! -e go ]; do sleep 0.1; done'
srun --exact -n1 -c8 sh -c 'echo $SLURM_STEP_ID > B'
""")
    jobid = c.sbatch("-D", str(tmp_path), "-o", str(tmp_path / "out"), "-w", "node01",
                     "-N1", "-n8", str(script))
    c.wait_for(lambda: (tmp_path / "pids").exists()
               and len((tmp_path / "pids").read_text().split()) == 2,
               timeout=30, what="step 0 running")
    stepd, task = map(int, (tmp_path / "pids").read_text().split())
    c.kill_daemon("rotad-node01", signal.SIGKILL)
    os.kill(stepd, signal.SIGKILL)
    os.kill(task, signal.SIGKILL)
    c.up()
    assert c.wait_job(jobid, timeout=30) == "COMPLETED"
    assert (tmp_path / "B").read_text() == "1\n"
