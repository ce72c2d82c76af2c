"""Time and signals: --begin, --signal, scancel --signal/--batch/--full, requeue,
time limits, and Slurm's "*** JOB N ON node CANCELLED AT ... ***" notices."""

import re
import subprocess
import time

from conftest import write_script

STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def out(cluster, name):
    p = cluster.work / name
    return p.read_text() if p.exists() else ""


def test_begin_time_waits(cluster):
    jobid = cluster.sbatch("--begin=now+3", "--wrap", "true")
    p = cluster.run(["squeue", "-h", "-j", str(jobid), "-o", "%t %R"])
    assert p.stdout.split() == ["PD", "(BeginTime)"]
    assert cluster.wait_job(jobid, timeout=30) == "COMPLETED"
    start = cluster.job_field(jobid, "StartTime")
    submit = cluster.job_field(jobid, "SubmitTime")
    assert start > submit  # ISO times compare as strings


def test_signal_before_time_limit_to_batch_shell(cluster):
    script = ('trap "echo got USR1; exit 0" USR1\n'
              'for i in $(seq 600); do sleep 0.1; done\necho no signal')
    jobid = cluster.sbatch("-t", "1", "--signal=B:USR1@58", "-o", "sig.out",
                           "--wrap", script)
    assert cluster.wait_job(jobid, timeout=40) == "COMPLETED"
    assert "got USR1" in out(cluster, "sig.out")
    assert "no signal" not in out(cluster, "sig.out")


def test_signal_b_reaches_the_shell_not_its_children(cluster):
    """--signal=B:SIG: the batch shell alone; a child of the shell that traps
    the signal too must not see it."""
    script = ('sh -c \'trap "echo child got USR1" USR1; '
              'for i in $(seq 600); do sleep 0.1; done\' &\n'
              'trap "echo shell got USR1; sleep 1; kill $!; exit 0" USR1\n'
              'for i in $(seq 600); do sleep 0.1; done\necho no signal')
    jobid = cluster.sbatch("-t", "1", "--signal=B:USR1@58", "-o", "sigb.out",
                           "--wrap", script)
    assert cluster.wait_job(jobid, timeout=40) == "COMPLETED"
    text = out(cluster, "sigb.out")
    assert "shell got USR1" in text, text
    assert "child got USR1" not in text, text
    assert "no signal" not in text, text


def test_signal_without_b_reaches_steps_not_the_shell(cluster):
    script = ('trap "echo shell got USR1" USR1\n'
              'srun sh -c \'trap "echo step got USR1; exit 0" USR1; '
              'for i in $(seq 600); do sleep 0.1; done\'\n'
              'echo shell done')
    jobid = cluster.sbatch("-t", "1", "--signal=USR1@58", "-o", "sigs.out",
                           "--wrap", script)
    assert cluster.wait_job(jobid, timeout=40) == "COMPLETED"
    text = out(cluster, "sigs.out")
    assert "step got USR1" in text, text
    assert "shell got USR1" not in text, text
    assert "shell done" in text, text


def test_cancel_notices_in_batch_output(cluster):
    """scancel: the batch stepd writes Slurm's JOB line to the output file, the
    step's stepd the STEP line (through srun), and srun says it is aborted."""
    # the step ignores SIGTERM: srun forwards the SIGTERM it gets from the batch
    # shell's end, and must not end the step before the controller's cancel
    # reaches its stepd (then the notice, then SIGKILL after KillWait)
    jobid = cluster.sbatch("-w", "node02", "-o", "cn.out", "--wrap",
                           "srun bash -c 'trap \"\" TERM; sleep 60 & wait; sleep 60'")
    cluster.wait_running(jobid)
    cluster.wait_for(lambda: cluster.run(["squeue", "-h", "-s", "-j", str(jobid)])
                     .stdout.count(f"{jobid}.0"), timeout=20, what="step 0")
    assert cluster.run(["scancel", str(jobid)]).returncode == 0
    assert cluster.wait_job(jobid, timeout=30) == "CANCELLED"
    cluster.wait_for(lambda: "*** STEP" in out(cluster, "cn.out"), timeout=10,
                     what="the step notice")
    text = out(cluster, "cn.out")
    assert re.search(rf"^slurmstepd: error: \*\*\* JOB {jobid} ON node02 "
                     rf"CANCELLED AT {STAMP} \*\*\*$", text, re.M), text
    assert re.search(rf"^slurmstepd: error: \*\*\* STEP {jobid}\.0 ON node02 "
                     rf"CANCELLED AT {STAMP} \*\*\*$", text, re.M), text
    assert "DUE TO TIME LIMIT" not in text


def test_step_cancel_notice_and_job_goes_on(cluster):
    """scancel J.0: only the step is cancelled (its STEP line, srun aborted);
    the script carries on."""
    jobid = cluster.sbatch("-w", "node01", "-o", "sc.out", "--wrap",
                           "srun sleep 60; echo after $?")
    cluster.wait_running(jobid)
    cluster.wait_for(lambda: cluster.run(["squeue", "-h", "-s", "-j", str(jobid)])
                     .stdout.count(f"{jobid}.0"), timeout=20, what="step 0")
    assert cluster.run(["scancel", f"{jobid}.0"]).returncode == 0
    assert cluster.wait_job(jobid, timeout=30) == "COMPLETED"
    text = out(cluster, "sc.out")
    assert re.search(rf"^slurmstepd: error: \*\*\* STEP {jobid}\.0 ON node01 "
                     rf"CANCELLED AT {STAMP} \*\*\*$", text, re.M), text
    assert "srun: Job step aborted: Waiting up to" in text, text
    assert f"*** JOB {jobid}" not in text, text
    assert re.search(r"^after [1-9]\d*$", text, re.M), text


def test_srun_cancelled_says_step_aborted(cluster):
    env = dict(cluster.env)
    p = subprocess.Popen(["srun", "-J", "abortme", "-w", "node04", "sleep", "60"],
                         cwd=str(cluster.work), env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         stdin=subprocess.DEVNULL)
    try:
        def running_id():
            q = cluster.run(["squeue", "-h", "-n", "abortme", "-t", "R", "-o", "%i"])
            return q.stdout.strip()
        cluster.wait_for(running_id, timeout=20, what="srun's job")
        jobid = running_id()
        cluster.wait_for(lambda: cluster.run(["squeue", "-h", "-s", "-j", jobid])
                         .stdout.count(f"{jobid}.0"), timeout=20, what="step 0")
        assert cluster.run(["scancel", jobid]).returncode == 0
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode != 0
    kill_wait = int(cluster.conf_value("KillWait") or 30)
    assert (f"srun: Job step aborted: Waiting up to {kill_wait + 2} seconds for "
            "job step to finish.\n") in err, err
    assert re.search(rf"^slurmstepd: error: \*\*\* STEP {jobid}\.0 ON node04 "
                     rf"CANCELLED AT {STAMP} \*\*\*$", err, re.M), err
    assert "revoked" not in err, err
    assert cluster.wait_job(int(jobid), timeout=30) == "CANCELLED"


def test_scancel_signal_goes_to_steps_not_shell(cluster):
    script = ('trap "echo shell got USR2" USR2\n'
              'srun sh -c \'trap "echo step got USR2; exit 0" USR2; '
              'sleep 30 & wait\'\necho shell done')
    jobid = cluster.sbatch("-o", "s.out", "--wrap", script)
    cluster.wait_running(jobid)
    time.sleep(1.5)  # let srun start its step
    assert cluster.run(["scancel", "-s", "USR2", str(jobid)]).returncode == 0
    assert cluster.wait_job(jobid, timeout=30) == "COMPLETED"
    text = out(cluster, "s.out")
    assert "step got USR2" in text
    assert "shell got USR2" not in text
    assert "shell done" in text


TREE_SH = ("#!/bin/bash\n"
           "trap \"echo $1 got USR1; exit 0\" USR1\n"
           "bash -c 'trap \"echo $0_child got USR1; exit 0\" USR1; "
           "for i in $(seq 100); do sleep 0.1; done' $1 &\n"
           "for i in $(seq 100); do sleep 0.1; done\n")


def test_scancel_signal_reaches_the_tasks_not_their_children(cluster):
    """ProctrackType=proctrack/cgroup (the default): scancel -s reaches a
    step's tasks, not what they started; --full the batch script's every
    process, and the step through its srun, once (Slurm's test6.15)."""
    tree = write_script(cluster.work / "tree.sh", TREE_SH)
    for full in (False, True):
        outf = f"tree{int(full)}.out"
        jobid = cluster.sbatch("-o", outf, "-t", "2", "--wrap",
                               "trap 'echo script got USR1' USR1\n"
                               f"{tree} shell &\nsrun {tree} task &\nwait\nwait\n")
        cluster.wait_running(jobid)
        cluster.wait_for(lambda: cluster.run(["squeue", "-h", "-s", "-j", str(jobid)])
                         .stdout.count(f"{jobid}.0"), what="step 0")
        time.sleep(1)
        args = ["--full"] if full else []
        assert cluster.run(["scancel", *args, "-s", "USR1", str(jobid)]).returncode == 0
        cluster.wait_job(jobid, timeout=60)
        got = sorted(line for line in out(cluster, outf).splitlines()
                     if line.endswith("got USR1"))
        want = ["task got USR1"]
        if full:
            want = sorted(want + ["script got USR1", "shell got USR1",
                                  "shell_child got USR1"])
        assert got == want, got


def test_scancel_batch_signals_the_shell(cluster):
    script = 'trap "echo shell got USR1; exit 0" USR1\nfor i in $(seq 300); do sleep 0.1; done'
    jobid = cluster.sbatch("-o", "b.out", "--wrap", script)
    cluster.wait_running(jobid)
    time.sleep(0.5)
    assert cluster.run(["scancel", "-b", "-s", "USR1", str(jobid)]).returncode == 0
    assert cluster.wait_job(jobid, timeout=30) == "COMPLETED"
    assert "shell got USR1" in out(cluster, "b.out")
    p = cluster.run(["scancel", "-b", "-s", "USR1", "-v", str(jobid)])
    # Slurm's verbose words; the job has ended: not an error by default
    assert p.returncode == 0
    assert f"scancel: Signal 10 to batch job {jobid}\n" in p.stderr, p.stderr


def test_scancel_interactive(cluster):
    """-i asks "Cancel job_id=..." (step_id= for a step) until y or n; an id
    of no active job is Slurm's "Kill job error", exit 1."""
    jobid = cluster.sbatch("-J", "ask", "-o", "/dev/null", "--wrap", "srun sleep 60")
    cluster.wait_running(jobid)
    cluster.wait_for(lambda: cluster.run(["squeue", "-h", "-s", "-j", str(jobid)])
                     .stdout.count(f"{jobid}.0"), timeout=20, what="step 0")
    p = cluster.run(["scancel", "-i", f"{jobid}.0"], input="maybe\nn\n")
    assert p.returncode == 0, p.stderr
    ask = f"Cancel step_id={jobid}.0 name=ask partition=debug [y/n]? "
    assert p.stdout == ask * 2, p.stdout
    assert cluster.job_field(jobid, "JobState") == "RUNNING"
    p = cluster.run(["scancel", "-i", str(jobid)], input="y\n")
    assert p.stdout == f"Cancel job_id={jobid} name=ask partition=debug [y/n]? "
    assert p.returncode == 0, p.stderr
    assert cluster.wait_job(jobid, timeout=30) == "CANCELLED"
    p = cluster.run(["scancel", "-i", str(jobid)], input="y\n")
    assert p.returncode == 1
    assert p.stdout == ""
    assert p.stderr == (f"scancel: error: Kill job error on job id {jobid}: "
                        "Invalid job id specified\n")
    assert cluster.run(["scancel", "-Q", "-i", str(jobid)]).stderr == ""
    # a plain id of a finished job: silent, exit 0 (COMPAT.md)
    p = cluster.run(["scancel", str(jobid)])
    assert (p.returncode, p.stderr) == (0, "")


def test_scancel_filters_that_match_nothing(cluster):
    p = cluster.run(["scancel", "--name=NOSUCH", "--qos=NOSUCH", "--verbose"])
    assert p.returncode == 0
    assert p.stderr == ("scancel: error: No active jobs match ALL job filters, "
                        "including: job_name=NOSUCH qos=NOSUCH \n")
    p = cluster.run(["scancel", "--name=NOSUCH"])
    assert (p.returncode, p.stderr) == (0, "")



def test_requeue_runs_again(cluster):
    """A requeued job runs again, with Restarts=1 and SLURM_RESTART_COUNT=1
    (which the first run does not have)."""
    jobid = cluster.sbatch("-o", "rq-%j.out", "--open-mode=append", "--wrap",
                           "echo run ${SLURM_RESTART_COUNT-unset}; sleep 30")
    cluster.wait_running(jobid)
    cluster.wait_for(lambda: out(cluster, f"rq-{jobid}.out").count("run") == 1,
                     timeout=20, what="the first run")
    assert cluster.run(["scontrol", "requeue", str(jobid)]).returncode == 0
    # REQUEUED while its old run is being ended (until its node confirms
    # it gone: it may be already), then PENDING again
    p = cluster.run(["squeue", "-h", "-j", str(jobid), "-o", "%t %T %R"])
    assert p.stdout.split() in (["RQ", "REQUEUED", "(BeginTime)"],
                                ["PD", "PENDING", "(BeginTime)"])
    assert cluster.job_field(jobid, "JobState") in ("REQUEUED", "PENDING")
    assert cluster.job_field(jobid, "Restarts") == "1"
    cluster.wait_for(lambda: out(cluster, f"rq-{jobid}.out").count("run") == 2,
                     timeout=40, what="the second run")
    assert out(cluster, f"rq-{jobid}.out") == "run unset\nrun 1\n"
    cluster.run(["scancel", str(jobid)])


def test_requeue_of_an_ended_job_is_pending_at_once(cluster):
    """An ended job has no run left to end: requeued, it is PENDING (Slurm),
    not REQUEUED; requeuehold holds it as its user's hold (JobHeldUser, whoever
    asked), State=SpecialExit shows it SPECIAL_EXIT until released."""
    c = cluster
    done = []
    for _ in range(3):
        done.append(c.sbatch("-o", "/dev/null", "--wrap", "true"))
    for j in done:
        assert c.wait_job(j) == "COMPLETED"
    plain, held, special = done
    assert c.run(["scontrol", "requeue", str(plain)]).returncode == 0
    assert c.job_field(plain, "JobState") == "PENDING"
    assert c.job_field(plain, "Reason") == "BeginTime"
    assert c.job_field(plain, "Restarts") == "1"

    p = c.run(["scontrol", "requeuehold", str(held)])
    assert p.returncode == 0, p.stderr
    assert c.job_field(held, "JobState") == "PENDING"
    assert c.job_field(held, "Priority") == "0"
    assert c.job_field(held, "Reason") == "JobHeldUser"

    p = c.run(["scontrol", "requeuehold", "State=SpecialExit", str(special)])
    assert p.returncode == 0, p.stderr
    assert c.job_field(special, "JobState") == "SPECIAL_EXIT"
    assert c.job_field(special, "Priority") == "0"
    p = c.run(["squeue", "-h", "-j", str(special), "-o", "%t %T %r"])
    assert p.stdout.split() == ["SE", "SPECIAL_EXIT", "JobHeldUser"]
    p = c.run(["squeue", "-h", "-t", "SE", "-o", "%i"])
    assert p.stdout.split() == [str(special)]
    for j in (held, special):
        assert c.run(["scontrol", "release", str(j)]).returncode == 0
        assert c.job_field(j, "JobState") == "PENDING"
        assert c.job_field(j, "Priority") != "0"
    # State= other than SpecialExit is not a flag: taken as a job id
    p = c.run(["scontrol", "requeuehold", "State=bogus", "999999"])
    assert p.returncode == 1
    assert "Invalid job id specified for job State=bogus" in p.stderr
    c.run(["scancel"] + [str(j) for j in done])


def test_requeue_refused_for_pending_and_no_requeue(cluster):
    held = cluster.sbatch("--hold", "--wrap", "true")
    p = cluster.run(["scontrol", "requeue", str(held)])
    assert p.returncode != 0
    nr = cluster.sbatch("--no-requeue", "--wrap", "sleep 30")
    cluster.wait_running(nr)
    p = cluster.run(["scontrol", "requeue", str(nr)])
    assert p.returncode != 0
    assert cluster.job_state(nr) == "RUNNING"
    cluster.run(["scancel", str(held), str(nr)])


def test_time_limit_ends_job_timeout(cluster):
    """One minute (the shortest limit) for three things at once: a batch job
    gets SIGTERM and ends TIMEOUT with Slurm's notice in its output; an srun
    job's step notice reaches srun, which says the step is aborted."""
    jobid = cluster.sbatch("-t", "1", "-o", "to.out", "--wrap",
                           'trap "echo term; exit 1" TERM; sleep 100 & wait')
    quiet = cluster.sbatch("-t", "1", "-w", "node03", "-o", "tl.out", "--wrap",
                           "sleep 100")
    p = cluster.run(["srun", "-t", "1", "-w", "node01", "sleep", "100"], timeout=100)
    assert p.returncode != 0
    m = re.search(rf"^slurmstepd: error: \*\*\* STEP (\d+)\.0 ON node01 "
                  rf"CANCELLED AT {STAMP} DUE TO TIME LIMIT \*\*\*$", p.stderr, re.M)
    assert m, p.stderr
    assert "srun: Job step aborted: Waiting up to" in p.stderr, p.stderr
    assert cluster.wait_job(int(m.group(1)), timeout=30) == "TIMEOUT"

    assert cluster.wait_job(jobid, timeout=75) == "TIMEOUT"
    assert "term" in out(cluster, "to.out")
    assert cluster.wait_job(quiet, timeout=75) == "TIMEOUT"
    text = out(cluster, "tl.out")
    assert re.search(rf"^slurmstepd: error: \*\*\* JOB {quiet} ON node03 "
                     rf"CANCELLED AT {STAMP} DUE TO TIME LIMIT \*\*\*$", text,
                     re.M), text


def test_cancel_goes_through_completing(cluster):
    """A job whose processes ignore SIGTERM stays COMPLETING (CG) and keeps its
    node until KillWait's SIGKILL; then it is CANCELLED and the node is free."""
    jobid = cluster.sbatch("-w", "node03", "--exclusive", "-o", "/dev/null", "--wrap",
                           'trap "" TERM; sleep 100 & wait; sleep 100')
    cluster.wait_running(jobid)
    time.sleep(0.5)
    assert cluster.run(["scancel", str(jobid)]).returncode == 0
    p = cluster.run(["squeue", "-h", "-j", str(jobid), "-t", "all", "-o", "%t"])
    assert p.stdout.strip() == "CG"
    p = cluster.run(["sinfo", "-h", "-N", "-n", "node03", "-o", "%t"])
    assert p.stdout.strip() == "comp"
    # the node is still taken: a job that needs all of it must wait
    waiter = cluster.sbatch("-w", "node03", "--exclusive", "--wrap", "true")
    time.sleep(1)
    assert cluster.job_state(waiter) == "PENDING"
    assert cluster.wait_job(jobid, timeout=30) == "CANCELLED"
    assert cluster.wait_job(waiter, timeout=30) == "COMPLETED"
