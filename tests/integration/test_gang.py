"""Gang scheduling (PreemptMode=GANG): jobs that share cores through
OverSubscribe=FORCE:2 take turns, one at a time on each core, the others
SUSPENDED with their cores held, every SchedulerTimeSlice seconds; jobs on
cores of their own are never stopped; the turns go on through a controller
restart."""

import os
import time

import pytest

from conftest import file_lines as lines, module_cluster_with

GANG = """
PreemptMode=GANG
SchedulerTimeSlice=5
PartitionName=gang Nodes=node01 OverSubscribe=FORCE:2
"""


def _rewrite(path):
    with open(path, "a") as f:
        f.write(GANG)


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(_rewrite)


def counters(cluster, n, cpus):
    """n jobs of the gang partition, cpus CPUs each, writing a line every
    0.2 s; their ids and output files."""
    jobs = []
    for i in range(n):
        out = os.path.join(str(cluster.work), f"count{i}.out")
        j = cluster.sbatch("-p", "gang", "-n", str(cpus), "-o", out, "--wrap",
                           "for i in $(seq 3000); do echo $i; sleep 0.2; done")
        jobs.append((j, out))
    return jobs


def states(cluster, jobs):
    return [cluster.job_state(j) for j, _ in jobs]


def one_runs(cluster, jobs):
    s = states(cluster, jobs)
    return sorted(s) == ["RUNNING", "SUSPENDED"] and s


def test_jobs_sharing_cores_take_turns(cluster):
    t0 = time.monotonic()
    jobs = counters(cluster, 2, 8)
    first = cluster.wait_for(lambda: one_runs(cluster, jobs), timeout=20,
                             what="one job running, the other suspended")
    # the suspended one still holds its cores: a third cannot share them
    third = cluster.sbatch("-p", "gang", "-n8", "-o", "/dev/null", "--wrap", "true")
    cluster.wait_for(lambda: cluster.job_field(third, "Reason") == "Resources" or None,
                     what="a third job waiting")
    run = first.index("RUNNING")
    stopped = jobs[1 - run]
    assert cluster.run(["squeue", "-h", "-j", str(stopped[0]), "-o", "%t"],
                       check=True).stdout.strip() == "S"
    # the suspended one writes nothing while the other goes on
    time.sleep(0.5)
    n_stopped, n_run = lines(stopped[1]), lines(jobs[run][1])
    time.sleep(1.5)
    if states(cluster, jobs) == first:
        assert lines(stopped[1]) == n_stopped, "a suspended job went on writing"
        assert lines(jobs[run][1]) > n_run
    # within a slice (5 s) and a tick they change places, and back again
    swapped = cluster.wait_for(
        lambda: (s := one_runs(cluster, jobs)) and s != first and s, timeout=12,
        what="the turns changing")
    assert swapped[1 - run] == "RUNNING"
    n_now = lines(stopped[1])
    cluster.wait_for(lambda: lines(stopped[1]) > n_now + 3,
                     what="the job whose turn it is going on")
    cluster.wait_for(lambda: one_runs(cluster, jobs) == first or None, timeout=12,
                     what="the turns changing back")
    # each one's clock counts only its turns: together no more than the wall
    secs = []
    for j, _ in jobs:
        h, m, s = (int(x) for x in cluster.job_field(j, "RunTime").split(":"))
        secs.append(h * 3600 + m * 60 + s)
    assert all(s > 0 for s in secs), secs
    # (both run the first seconds, until the younger has settled)
    wall = time.monotonic() - t0
    assert sum(secs) <= wall + 5 < 2 * wall, (secs, wall)
    assert cluster.job_state(third) == "PENDING"
    cluster.cancel_all()


def test_jobs_on_cores_of_their_own_are_not_stopped(cluster):
    jobs = counters(cluster, 2, 4)
    for j, _ in jobs:
        cluster.wait_running(j)
    deadline = time.monotonic() + 7  # longer than a slice
    while time.monotonic() < deadline:
        assert states(cluster, jobs) == ["RUNNING", "RUNNING"]
        time.sleep(0.5)
    cluster.cancel_all()


def test_turns_go_on_after_a_restart(cluster):
    jobs = counters(cluster, 2, 8)
    first = cluster.wait_for(lambda: one_runs(cluster, jobs), timeout=20,
                             what="one job running, the other suspended")
    cluster.compact_journal()
    cluster.kill_daemon("rotactld")
    cluster.up()
    # the suspended one is still suspended, its cores still held
    s = states(cluster, jobs)
    assert s == first or sorted(s) == ["RUNNING", "SUSPENDED"], s
    cluster.wait_for(lambda: (s := one_runs(cluster, jobs)) and s != first and s,
                     timeout=15, what="the turns changing after the restart")
    cluster.cancel_all()


def test_heterogeneous_jobs_are_left_out(cluster):
    """Slurm's gang scheduler leaves heterogeneous jobs out: on the cores a
    job shares with one, neither is ever stopped.  (Its components never
    share a node: the second runs elsewhere.)"""
    het = cluster.sbatch("-p", "gang", "-n4", "-o", "/dev/null", ":", "-p", "debug",
                         "-n1", "--wrap", "sleep 300")
    other = counters(cluster, 1, 8)[0][0]
    for j in (het, het + 1, other):
        cluster.wait_running(j)
    deadline = time.monotonic() + 7  # longer than a slice
    while time.monotonic() < deadline:
        assert [cluster.job_state(j) for j in (het, het + 1, other)] == ["RUNNING"] * 3
        time.sleep(0.5)
    cluster.cancel_all()
