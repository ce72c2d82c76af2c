"""scontrol suspend|resume (operators): the job's processes stop and its CPUs
go to others, then it continues; SUSPENDED in squeue and scontrol, its
suspended time not counted in RunTime, Slurm's words for what cannot be
done, a suspended job cancelled at once, and the state kept through a
compaction and a controller restart."""

import os
import time

from conftest import file_lines as lines
from unixusers import as_user


def counter_job(cluster, out):
    """A job on node01, alone there, writing a line every 0.2 s."""
    j = cluster.sbatch("-w", "node01", "--exclusive", "-o", out, "--wrap",
                       "for i in $(seq 1000); do echo $i; sleep 0.2; done")
    cluster.wait_running(j)
    cluster.wait_for(lambda: lines(out) >= 3, what="the job's first lines")
    return j


def test_suspend_stops_the_job_and_frees_its_cpus(cluster):
    out = os.path.join(str(cluster.work), "count.out")
    j = counter_job(cluster, out)
    p = cluster.run(["scontrol", "suspend", str(j)])
    assert p.returncode == 0 and p.stdout == "" and p.stderr == "", p.stderr
    assert cluster.job_state(j) == "SUSPENDED"
    assert cluster.run(["squeue", "-h", "-j", str(j), "-o", "%t"],
                       check=True).stdout.strip() == "S"
    assert cluster.job_field(j, "SuspendTime") != "None"
    pre = int(cluster.job_field(j, "SecsPreSuspend"))
    time.sleep(0.5)  # what was on its way is written
    n = lines(out)
    time.sleep(2)
    assert lines(out) == n, "a suspended job went on writing"
    # its CPUs are free: a job needing all of node01 runs now
    k = cluster.sbatch("-w", "node01", "-n", "8", "-o", "/dev/null", "--wrap", "true")
    cluster.wait_job(k)
    assert cluster.job_state(k) == "COMPLETED"
    # its clock stood still
    run = cluster.job_field(j, "RunTime")
    h, m, s = (int(x) for x in run.split(":"))
    assert h * 3600 + m * 60 + s <= pre + 1
    p = cluster.run(["scontrol", "resume", f"jobid={j}"])
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert cluster.job_state(j) == "RUNNING"
    cluster.wait_for(lambda: lines(out) > n + 3, what="the job going on")
    assert cluster.run(["squeue", "-h", "-j", str(j), "-o", "%t"],
                       check=True).stdout.strip() == "R"


def test_suspend_stops_what_a_steps_tasks_started(cluster):
    """A step's task's own children stop with it (a suspend freezes the whole
    step, whatever reaches only the tasks of other signals)."""
    out = os.path.join(str(cluster.work), "child.out")
    j = cluster.sbatch("-w", "node01", "--exclusive", "-o", out, "--wrap",
                       "srun bash -c 'for i in $(seq 1000); do echo $i; sleep 0.2; "
                       "done & wait'")
    cluster.wait_running(j)
    cluster.wait_for(lambda: lines(out) >= 3, what="the child's first lines")
    assert cluster.run(["scontrol", "suspend", str(j)]).returncode == 0
    time.sleep(0.5)
    n = lines(out)
    time.sleep(2)
    assert lines(out) == n, "a suspended step's child went on writing"
    assert cluster.run(["scontrol", "resume", str(j)]).returncode == 0
    cluster.wait_for(lambda: lines(out) > n + 3, what="the child going on")
    cluster.run(["scancel", str(j)])


def test_what_cannot_be_suspended_is_refused_in_slurms_words(ucluster, users):
    cluster = ucluster
    out = os.path.join(str(cluster.work), "count.out")
    j = counter_job(cluster, out)
    pend = cluster.sbatch("-H", "-o", "/dev/null", "--wrap", "true")

    def fails(args, err):
        p = cluster.run(["scontrol", *args])
        assert p.returncode == 1 and p.stderr == err, (p.returncode, p.stderr)

    fails(["resume", str(j)], f"Job is not suspended for job {j}\n")
    fails(["suspend", str(pend)], f"Job is pending execution for job {pend}\n")
    fails(["suspend", "999999"], "Invalid job id specified for job 999999\n")
    fails(["suspend", "abc"], "Invalid job id specified for job abc\n")
    p = as_user(cluster, users["a"], f"scontrol suspend {j}")
    assert p.returncode == 1
    assert p.stderr == f"Access/permission denied for job {j}\n"
    assert cluster.job_state(j) == "RUNNING"
    cluster.run(["scontrol", "suspend", str(j)], check=True)
    fails(["suspend", str(j)],
          f"Job is current suspended, requested operation disabled for job {j}\n")


def test_a_suspended_job_is_cancelled_at_once(cluster):
    out = os.path.join(str(cluster.work), "count.out")
    j = counter_job(cluster, out)
    cluster.run(["scontrol", "suspend", str(j)], check=True)
    t0 = time.monotonic()
    cluster.run(["scancel", str(j)], check=True)
    cluster.wait_job(j, timeout=20)
    assert cluster.job_state(j) == "CANCELLED"
    cluster.wait_nodes_idle(timeout=20)
    assert time.monotonic() - t0 < 15  # not KillWait after a SIGTERM unseen


def test_suspended_stays_suspended_through_compaction_and_restart(cluster):
    out = os.path.join(str(cluster.work), "count.out")
    j = counter_job(cluster, out)
    cluster.run(["scontrol", "suspend", str(j)], check=True)
    time.sleep(1.2)
    cluster.run(["scontrol", "resume", str(j)], check=True)
    time.sleep(1)
    cluster.run(["scontrol", "suspend", str(j)], check=True)
    before = (cluster.job_field(j, "SuspendTime"), cluster.job_field(j, "SecsPreSuspend"))
    cluster.compact_journal()
    cluster.kill_daemon("rotactld")
    cluster.up()
    assert cluster.job_state(j) == "SUSPENDED"
    assert (cluster.job_field(j, "SuspendTime"),
            cluster.job_field(j, "SecsPreSuspend")) == before
    # its CPUs are still others'
    k = cluster.sbatch("-w", "node01", "-n", "8", "-o", "/dev/null", "--wrap", "true")
    cluster.wait_job(k)
    cluster.run(["scontrol", "resume", str(j)], check=True)
    n = lines(out)
    cluster.wait_for(lambda: lines(out) > n + 2, what="the job going on")
