"""Time and signals: --begin, --signal, scancel --signal/--batch/--full, requeue,
time limits."""

import time


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


def test_scancel_batch_signals_the_shell(cluster):
    script = 'trap "echo shell got USR1; exit 0" USR1\nfor i in $(seq 300); do sleep 0.1; done'
    jobid = cluster.sbatch("-o", "b.out", "--wrap", script)
    cluster.wait_running(jobid)
    time.sleep(0.5)
    assert cluster.run(["scancel", "-b", "-s", "USR1", str(jobid)]).returncode == 0
    assert cluster.wait_job(jobid, timeout=30) == "COMPLETED"
    assert "shell got USR1" in out(cluster, "b.out")


def test_requeue_runs_again(cluster):
    jobid = cluster.sbatch("-o", "rq-%j.out", "--open-mode=append", "--wrap",
                           "echo run; sleep 30")
    cluster.wait_running(jobid)
    cluster.wait_for(lambda: out(cluster, f"rq-{jobid}.out").count("run") == 1,
                     timeout=20, what="the first run")
    assert cluster.run(["scontrol", "requeue", str(jobid)]).returncode == 0
    # REQUEUED while its old run is being ended, then PENDING again
    p = cluster.run(["squeue", "-h", "-j", str(jobid), "-o", "%t %T %R"])
    assert p.stdout.split() == ["RQ", "REQUEUED", "(BeginTime)"]
    assert cluster.job_field(jobid, "JobState") == "REQUEUED"
    assert cluster.job_field(jobid, "Restarts") == "1"
    cluster.wait_for(lambda: out(cluster, f"rq-{jobid}.out").count("run") == 2,
                     timeout=40, what="the second run")
    cluster.run(["scancel", str(jobid)])


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
    jobid = cluster.sbatch("-t", "1", "-o", "to.out", "--wrap",
                           'trap "echo term; exit 1" TERM; sleep 100 & wait')
    assert cluster.wait_job(jobid, timeout=75) == "TIMEOUT"
    assert "term" in out(cluster, "to.out")


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
