"""Job arrays: --array specs, throttles, squeue forms, scancel of tasks and of
whole arrays, the SLURM_ARRAY_* environment, restarts, very large arrays."""
import time

from conftest import write_script

SLEEPER = "#!/bin/bash\nsleep 300\n"


def squeue(cluster, *args):
    p = cluster.run(["squeue", "-h", *args])
    assert p.returncode == 0, p.stderr
    return p.stdout.split("\n")[:-1]


def test_invalid_spec_rejected(cluster):
    write_script(cluster.work / "s.sh", SLEEPER)
    for spec in ("0-1001", "5-2", "x"):
        p = cluster.run(["sbatch", f"--array={spec}", "s.sh"], cwd=cluster.work)
        assert p.returncode == 1
        assert p.stderr == ("sbatch: error: Batch job submission failed: "
                            "Invalid job array specification\n")


def test_throttle_formats_and_cancel(cluster):
    write_script(cluster.work / "s.sh", SLEEPER)
    jobid = cluster.sbatch("--array=0-9%3", "s.sh", cwd=cluster.work)

    def three_running():
        return len(squeue(cluster, "-t", "R", "-o", "%i")) == 3
    cluster.wait_for(three_running, timeout=20, what="3 tasks running")
    seen_max = 0
    for _ in range(10):
        seen_max = max(seen_max, len(squeue(cluster, "-t", "R", "-o", "%i")))
        time.sleep(0.1)
    assert seen_max == 3
    running = sorted(squeue(cluster, "-t", "R", "-o", "%i"))
    assert running == [f"{jobid}_{i}" for i in range(3)]
    assert squeue(cluster, "-t", "PD", "-o", "%i %r") == [
        f"{jobid}_[3-9%3] JobArrayTaskLimit"]
    assert squeue(cluster, "-t", "PD", "-o", "%F %K") == [f"{jobid} 3-9%3"]
    rows = sorted(squeue(cluster, "-t", "R", "-o", "%F %K"))
    assert rows == [f"{jobid} {i}" for i in range(3)]
    assert squeue(cluster, "-r", "-t", "PD", "-o", "%i") == [
        f"{jobid}_{i}" for i in range(3, 10)]
    show = cluster.run(["scontrol", "show", "job", str(jobid)]).stdout
    assert f"ArrayJobId={jobid} ArrayTaskId=3-9%3" in show
    assert f"ArrayJobId={jobid} ArrayTaskId=1 " in show

    # a pending task leaves the remainder; a running one ends
    assert cluster.run(["scancel", f"{jobid}_5"]).returncode == 0
    assert squeue(cluster, "-t", "PD", "-o", "%i") == [f"{jobid}_[3-4,6-9%3]"]
    assert cluster.run(["scancel", f"{jobid}_1"]).returncode == 0

    def replaced():
        r = sorted(squeue(cluster, "-t", "R", "-o", "%K"))
        return r == ["0", "2", "3"]
    cluster.wait_for(replaced, timeout=20, what="task 3 to replace task 1")

    # throttle update
    assert cluster.run(["scontrol", "update", f"JobId={jobid}",
                        "ArrayTaskThrottle=5"]).returncode == 0
    cluster.wait_for(lambda: len(squeue(cluster, "-t", "R", "-o", "%i")) == 5,
                     timeout=20, what="5 tasks running")

    # the whole array
    assert cluster.run(["scancel", str(jobid)]).returncode == 0
    cluster.wait_for(lambda: not squeue(cluster, "-o", "%i"), timeout=30,
                     what="the array to be gone")
    states = squeue(cluster, "-t", "all", "-o", "%i %T")
    assert f"{jobid}_5 CANCELLED" in states
    assert all(s.endswith("CANCELLED") for s in states if s.startswith(f"{jobid}_"))


def test_environment_and_output(cluster):
    script = ("#!/bin/bash\n"
              "echo $SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT "
              "$SLURM_ARRAY_TASK_MIN $SLURM_ARRAY_TASK_MAX $SLURM_ARRAY_TASK_STEP\n")
    write_script(cluster.work / "e.sh", script)
    jobid = cluster.sbatch("--array=1-7:2", "e.sh", cwd=cluster.work)
    cluster.wait_for(lambda: not squeue(cluster, "-r", "-o", "%i"), timeout=30,
                     what="tasks to finish")
    for t in (1, 3, 5, 7):
        out = (cluster.work / f"slurm-{jobid}_{t}.out").read_text()
        assert out == f"{jobid} {t} 4 1 7 2\n"
    jobid = cluster.sbatch("--array=2,4", "-o", "o-%A-%a.txt", "e.sh",
                           cwd=cluster.work)
    cluster.wait_for(lambda: not squeue(cluster, "-r", "-o", "%i"), timeout=30,
                     what="tasks to finish")
    assert (cluster.work / f"o-{jobid}-4.txt").read_text() == f"{jobid} 4 2 2 4 2\n"


def test_restart_keeps_remainder(fresh_cluster):
    c = fresh_cluster
    write_script(c.work / "s.sh", SLEEPER)
    jobid = c.sbatch("--array=0-20%2", "s.sh", cwd=c.work)
    c.wait_for(lambda: len(squeue(c, "-t", "R", "-o", "%i")) == 2, timeout=20,
               what="2 tasks running")
    c.run(["scancel", f"{jobid}_7"])
    before = sorted(squeue(c, "-o", "%i %A %T"))
    assert f"{jobid}_[2-6,8-20%2] {jobid} PENDING" in before
    c.kill_daemon("rotactld")
    c.up()
    after = sorted(squeue(c, "-o", "%i %A %T"))
    assert after == before
    assert squeue(c, "-t", "all", "-o", "%i %T", "-j", str(jobid)).count(
        f"{jobid}_7 CANCELLED") == 1
    # and it goes on: cancelling a running task lets the next one start
    running = squeue(c, "-t", "R", "-o", "%K")
    c.run(["scancel", f"{jobid}_{running[0]}"])
    c.wait_for(lambda: "2" in squeue(c, "-t", "R", "-o", "%K"), timeout=20,
               what="task 2 to start")
    c.run(["scancel", str(jobid)])


def test_large_array_is_one_record(fresh_cluster):
    c = fresh_cluster
    with open(c.conf_path, "a") as f:
        f.write("MaxArraySize=200001\n")
    c.kill_daemon("rotactld")  # MaxArraySize is read at start-up
    c.up()
    write_script(c.work / "s.sh", SLEEPER)
    t0 = time.monotonic()
    jobid = c.sbatch("--array=0-99999", "--hold", "s.sh", cwd=c.work)
    assert time.monotonic() - t0 < 5
    lines = squeue(c, "-o", "%i %T")
    assert lines == [f"{jobid}_[0-99999] PENDING"]
    p = c.run(["sbatch", "--array=200001", "s.sh"], cwd=c.work)
    assert p.returncode == 1
    c.run(["scancel", str(jobid)])


def test_split_task_keeps_throttle(cluster):
    """A task split off by `scontrol hold N_T` still counts against %N once
    released: at most 2 run."""
    write_script(cluster.work / "s.sh", SLEEPER)
    jobid = cluster.sbatch("--array=0-5%2", "-o", "/dev/null", "s.sh", cwd=cluster.work)
    cluster.wait_for(lambda: len(squeue(cluster, "-t", "R", "-o", "%i")) == 2,
                     timeout=20, what="2 tasks running")
    for t in (3, 4):
        assert cluster.run(["scontrol", "hold", f"{jobid}_{t}"]).returncode == 0
    assert cluster.run(["scontrol", "release", f"{jobid}_[3-4]"]).returncode == 0
    # a later job starting shows that a scheduling pass has run since
    other = cluster.sbatch("-o", "/dev/null", "--wrap", "true")
    assert cluster.wait_job(other) == "COMPLETED"
    assert sorted(squeue(cluster, "-t", "R", "-o", "%i")) == [f"{jobid}_0", f"{jobid}_1"]
    rows = dict(r.split() for r in squeue(cluster, "-r", "-t", "PD", "-o", "%i %r"))
    assert rows[f"{jobid}_3"] == rows[f"{jobid}_4"] == "JobArrayTaskLimit"


def test_show_job_of_one_task(cluster):
    """scontrol show job ARRAYID_TASK: the task's own record once it has one,
    the pending remainder while that still holds the task, shown as that task
    (ArrayTaskId=T, as Slurm's scontrol shows it)."""
    write_script(cluster.work / "s.sh", SLEEPER)
    jobid = cluster.sbatch("--array=0-5%2", "s.sh", cwd=cluster.work)
    cluster.wait_for(lambda: len(squeue(cluster, "-t", "R", "-o", "%i")) == 2,
                     timeout=30, what="two tasks running")

    def show(spec):
        p = cluster.run(["scontrol", "show", "job", spec])
        return p.returncode, p.stdout, p.stderr

    def records(out):
        return sum(line.startswith("JobId=") for line in out.splitlines())

    rc, out, _ = show(f"{jobid}_1")
    assert rc == 0 and records(out) == 1, out
    assert f"ArrayJobId={jobid} ArrayTaskId=1 " in out
    assert "JobState=RUNNING" in out
    rc, out, _ = show(f"{jobid}_4")
    assert rc == 0 and records(out) == 1, out
    assert f"JobId={jobid} ArrayJobId={jobid} ArrayTaskId=4 ArrayTaskThrottle=2 " in out
    assert "JobState=PENDING" in out
    for bad in (f"{jobid}_9", f"{jobid}_", f"{jobid}_x", "_1"):
        rc, out, err = show(bad)
        assert rc == 1 and out == "", (bad, out)
        assert err == "slurm_load_jobs error: Invalid job id specified\n", (bad, err)
    cluster.run(["scancel", str(jobid)])


def test_squeue_by_ids_of_tasks_arrays_and_jobs(cluster):
    """squeue -j with ids: an array's id lists every task, a task's own job id
    that task, a plain job itself; an id given twice is one row; an unknown
    id among known ones lists the known ones."""
    write_script(cluster.work / "s.sh", SLEEPER)
    arr = cluster.sbatch("--array=0-3%2", "s.sh", cwd=cluster.work)
    plain = cluster.sbatch("--hold", "--wrap", "true")
    cluster.wait_for(lambda: len(squeue(cluster, "-t", "R", "-o", "%i")) == 2,
                     timeout=30, what="two tasks running")
    rows = squeue(cluster, "-o", "%A %i")
    task_ids = sorted(int(a) for a, i in (r.split() for r in rows)
                      if i.startswith(f"{arr}_") and int(a) != arr)
    assert task_ids, rows
    every = sorted(squeue(cluster, "-j", str(arr), "-o", "%i"))
    assert every == sorted([f"{arr}_0", f"{arr}_1", f"{arr}_[2-3%2]"]), every
    task = task_ids[0]
    assert squeue(cluster, "-j", str(task), "-o", "%A") == [str(task)]
    assert squeue(cluster, "-j", f"{plain},{plain}", "-o", "%i") == [str(plain)]
    both = squeue(cluster, "-j", f"{task},{plain}", "-o", "%A")
    assert sorted(both) == sorted([str(task), str(plain)]), both
    assert squeue(cluster, "-j", f"{plain},999999", "-o", "%i") == [str(plain)]
    p = cluster.run(["squeue", "-h", "-j", "999999"])
    assert p.returncode == 1 and "Invalid job id specified" in p.stderr, p
    cluster.run(["scancel", str(arr), str(plain)])


def test_suspend_and_resume_of_arrays_and_tasks(cluster):
    """scontrol suspend|resume ARRAYID: every running task of the array
    (Slurm's job_suspend2), not only the record with the array's id;
    ARRAYID_T and ARRAYID_[list]: those tasks."""
    write_script(cluster.work / "s.sh", SLEEPER)
    jobid = cluster.sbatch("--array=0-2", "s.sh", cwd=cluster.work)
    tasks = [f"{jobid}_{i}" for i in range(3)]
    cluster.wait_for(lambda: all(cluster.job_state(t) == "RUNNING" for t in tasks),
                     timeout=30, what="three tasks running")

    def states():
        return [cluster.job_state(t) for t in tasks]
    p = cluster.run(["scontrol", "suspend", str(jobid)])
    assert (p.returncode, p.stderr) == (0, ""), p.stderr
    assert states() == ["SUSPENDED"] * 3
    p = cluster.run(["scontrol", "resume", f"{jobid}_1"])
    assert (p.returncode, p.stderr) == (0, ""), p.stderr
    assert states() == ["SUSPENDED", "RUNNING", "SUSPENDED"]
    p = cluster.run(["scontrol", "resume", f"{jobid}_[0,2]"])
    assert (p.returncode, p.stderr) == (0, ""), p.stderr
    assert states() == ["RUNNING"] * 3
    p = cluster.run(["scontrol", "resume", f"{jobid}_1"])
    assert p.returncode == 1
    assert p.stderr == f"Job is not suspended for job {jobid}_1\n"
    cluster.run(["scancel", str(jobid)])


def test_requeue_incomplete_of_an_array(cluster):
    """scontrol requeue incomplete ARRAYID: each running task goes back to the
    queue, the one that had ended stays as it is (Slurm passes over what is
    not running); the requeued ones are PENDING once their nodes confirm the
    old run gone, well before they may start again."""
    write_script(cluster.work / "rq.sh",
                 "#!/bin/bash\n[ $SLURM_ARRAY_TASK_ID == 2 ] && exit 0\n"
                 "sleep 300\n")
    jobid = cluster.sbatch("--array=1-4", "--requeue", "-o", "/dev/null",
                           "rq.sh", cwd=cluster.work)
    assert cluster.wait_job(f"{jobid}_2") == "COMPLETED"
    others = [f"{jobid}_{i}" for i in (1, 3, 4)]
    cluster.wait_for(lambda: all(cluster.job_state(t) == "RUNNING" for t in others),
                     timeout=30, what="the other tasks running")
    p = cluster.run(["scontrol", "requeue", "incomplete", str(jobid)])
    assert (p.returncode, p.stderr) == (0, ""), p.stderr
    assert cluster.job_state(f"{jobid}_2") == "COMPLETED"
    want = sorted(f"{jobid}_{i} {'CD' if i == 2 else 'PD'}" for i in (1, 2, 3, 4))
    cluster.wait_for(
        lambda: sorted(squeue(cluster, "-t", "all", "-j", str(jobid),
                              "-o", "%i %t")) == want,
        timeout=5, what="the running tasks PENDING again")
    for t in others:
        assert cluster.job_field(t, "Restarts") == "1"
        assert cluster.job_field(t, "Reason") == "BeginTime"
    assert cluster.job_field(f"{jobid}_2", "Restarts") == "0"
    cluster.run(["scancel", str(jobid)])
