"""squeue -P/--priority and --array-unique, as Slurm 22.05's squeue has them.

-P ranks the sort keys p and Q by the partition's PriorityTier before the
job's priority (and lists a pending job once per partition it was submitted
to: tests/integration/test_multi_partition.py and tests/unit/test_joblist.c
cover that part).  Without -r or --array-unique, the pending tasks split off an
array (scontrol hold or update of one task) are shown in the row of the
array's pending tasks; --array-unique lists them apart.  A format wider than
the controller prints (over 8192 bytes a line) is listed by squeue itself
from the job records: both ways must agree."""

import re

import pytest

from conftest import module_cluster_with

HI_TIER = 10
# a line over the controller's 8192 bytes: squeue lists it from the records
WIDE = "%4000j %4000u %300a"


def _add_hi(path):
    """A second partition over the same nodes, of a higher PriorityTier."""
    with open(path) as f:
        debug = next(line for line in f if line.startswith("PartitionName=debug"))
    nodes = re.search(r"Nodes=(\S+)", debug).group(1)
    with open(path, "a") as f:
        f.write(f"PartitionName=hi Nodes={nodes} PriorityTier={HI_TIER} "
                "MaxTime=01:00:00 State=UP\n")


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(rewrite_conf=_add_hi)


def squeue(c, *args, env=None):
    p = c.run(["squeue", "-h", *args], env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def first_words(rows, n=2):
    return [" ".join(r.split()[:n]) for r in rows]


def later(c, part, prio):
    """A job that stays pending (it may begin in an hour), in part, at prio."""
    return c.sbatch("-p", part, f"--priority={prio}", "--begin=now+3600",
                    "-o", "/dev/null", "--wrap", "true")


def test_priority_ranks_by_partition_tier(cluster):
    a = later(cluster, "debug", 100)
    b = later(cluster, "hi", 50)
    c = later(cluster, "debug", 70)
    fmt = ["-t", "PD", "-o", "%i %P"]
    # by priority alone
    assert squeue(cluster, "--sort=-p,i", *fmt) == [
        f"{a} debug", f"{c} debug", f"{b} hi"]
    # -P: the higher tier first, then priority within a tier
    tiered = [f"{b} hi", f"{a} debug", f"{c} debug"]
    assert squeue(cluster, "-P", "--sort=-p,i", *fmt) == tiered
    assert squeue(cluster, "--priority", "--sort=-Q", *fmt) == tiered
    assert squeue(cluster, "-P", "--sort=p", *fmt) == [
        f"{c} debug", f"{a} debug", f"{b} hi"]
    assert squeue(cluster, "--sort=-p,i", *fmt,
                  env={"SQUEUE_PRIORITY": "1"}) == tiered
    # the same when squeue lists a wide format itself
    assert first_words(squeue(cluster, "-P", "--sort=-p,i", "-t", "PD", "-o",
                              f"%i %P {WIDE}")) == tiered
    assert first_words(squeue(cluster, "--sort=-p,i", "-t", "PD", "-o",
                              f"%i %P {WIDE}")) == [
        f"{a} debug", f"{c} debug", f"{b} hi"]


def test_priority_running_job_once_ranked_by_its_partition(cluster):
    """A running job is one row, in the partition it runs in, and ranks by
    that partition's tier too."""
    run = cluster.sbatch("-p", "hi", "--priority=1", "-o", "/dev/null",
                         "--wrap", "sleep 300")
    assert cluster.wait_running(run) == "RUNNING"
    pend = later(cluster, "debug", 100)
    fmt = ["--sort=-p", "-o", "%i %P %t"]
    assert squeue(cluster, *fmt) == [f"{pend} debug PD", f"{run} hi R"]
    assert squeue(cluster, "-P", *fmt) == [f"{run} hi R", f"{pend} debug PD"]
    assert squeue(cluster, "-P", "-p", "hi", "-o", "%i %P") == [f"{run} hi"]
    assert squeue(cluster, "-P", "-p", "debug", "-o", "%i %P") == [f"{pend} debug"]


def pending_rows(c, *args, env=None):
    return sorted(squeue(c, "-t", "PD", "-o", "%i %R", *args, env=env))


def wide_pending_rows(c, *args):
    rows = squeue(c, "-t", "PD", "-o", f"%i %R {WIDE}", *args)
    return sorted(first_words(rows))


def test_split_tasks_shown_in_their_array_row(cluster):
    a = cluster.sbatch("--array=1-6%1", "-o", "/dev/null", "--wrap", "sleep 300")
    limit = "(JobArrayTaskLimit)"
    cluster.wait_for(lambda: pending_rows(cluster) == [f"{a}_[2-6%1] {limit}"],
                     timeout=30, what="task 1 running, the others throttled")
    assert squeue(cluster, "-t", "R", "-o", "%i") == [f"{a}_1"]
    # task 4 held, task 5 updated: each split off into a record of its own
    assert cluster.run(["scontrol", "hold", f"{a}_4"]).returncode == 0
    assert cluster.run(["scontrol", "update", f"JobId={a}_5",
                        "TimeLimit=5"]).returncode == 0
    apart = pending_rows(cluster, "--array-unique")
    held = dict(r.split() for r in apart)[f"{a}_4"]
    assert held.startswith("(JobHeld"), apart
    assert apart == sorted([f"{a}_[2-3,6%1] {limit}", f"{a}_4 {held}",
                            f"{a}_5 {limit}"])
    assert pending_rows(cluster, env={"SQUEUE_ARRAY_UNIQUE": "1"}) == apart
    # Slurm's default: one row, the reasons of both, no %N
    folded = [f"{a}_[2-6] (JobArrayTaskLimit,{held[1:]}"]
    assert pending_rows(cluster) == folded
    assert wide_pending_rows(cluster) == folded
    assert wide_pending_rows(cluster, "--array-unique") == apart
    # -r: a line per task, whichever record holds it
    assert pending_rows(cluster, "-r") == sorted(
        [f"{a}_{t} {limit}" for t in (2, 3, 5, 6)] + [f"{a}_4 {held}"])
    # the array's id lists the folded row; a task's own job id that task
    assert sorted(squeue(cluster, "-j", str(a), "-o", "%i")) == [
        f"{a}_1", f"{a}_[2-6]"]
    own = dict(r.split() for r in squeue(cluster, "--array-unique", "-o", "%i %A"))
    assert squeue(cluster, "-j", own[f"{a}_4"], "-o", "%i") == [f"{a}_4"]
    # a task renamed is no longer one of the row's
    assert cluster.run(["scontrol", "update", f"JobId={a}_5",
                        "JobName=other"]).returncode == 0
    assert pending_rows(cluster) == sorted(
        [f"{a}_[2-4,6] (JobArrayTaskLimit,{held[1:]}", f"{a}_5 {limit}"])
