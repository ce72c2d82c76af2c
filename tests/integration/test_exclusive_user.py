"""--exclusive=user: a job's nodes are shared with jobs of its own user
alone (Slurm's OverSubscribe=USER), both ways: it does not start where
another user's job holds resources, and no other user's job starts where it
runs."""

import pytest

from conftest import IS_ROOT
from unixusers import as_user

pytestmark = pytest.mark.skipif(not IS_ROOT, reason="needs root to create test users")


def submit(c, user, args):
    p = as_user(c, user, f"sbatch --parsable -o /dev/null {args} --wrap 'sleep 300'")
    assert p.returncode == 0, p.stderr
    return int(p.stdout)


def considered(c, job):
    """The job's reason once a scheduling pass has looked at it on its own
    (not None, not Priority: a higher-priority job waiting in the partition
    keeps the ones after it for backfill, whose pass may be 30 s away)."""
    return c.wait_for(lambda: (lambda r: r if r not in ("None", "Priority") else None)(
        c.job_field(job, "Reason")), timeout=30, what=f"job {job} considered")


def test_nodes_are_shared_with_the_users_own_jobs_alone(ucluster, users):
    c = ucluster
    a, b = users["a"], users["b"]
    a1 = submit(c, a, "-w node01 -n1")
    c.wait_running(a1)
    # a's own --exclusive=user job may join a's job on node01
    a2 = submit(c, a, "-w node01 -n1 --exclusive=user")
    c.wait_running(a2)
    assert c.job_field(a2, "OverSubscribe") == "USER"
    assert c.job_field(a1, "OverSubscribe") == "OK"
    rows = c.run(["squeue", "-h", "-o", "%i %h", "-j", f"{a1},{a2}"],
                 check=True).stdout.split("\n")
    assert sorted(rows[:2]) == sorted([f"{a1} OK", f"{a2} USER"])
    b3 = submit(c, b, "-w node02 -n1 --exclusive=user")
    c.wait_running(b3)
    # b's --exclusive=user job may not join a's jobs on node01 ...
    b1 = submit(c, b, "-w node01 -n1 --exclusive=user")
    considered(c, b1)
    assert c.job_state(b1) == "PENDING"
    c.run(["scancel", str(b1)], check=True)
    # ... nor any job of b's where a's --exclusive=user job runs
    b2 = submit(c, b, "-w node01 -n1")
    considered(c, b2)
    assert c.job_state(b2) == "PENDING"
    # a's jobs gone: b's start there, together (both b's)
    c.run(["scancel", str(a1), str(a2)], check=True)
    c.wait_running(b2)
    b1 = submit(c, b, "-w node01 -n1 --exclusive=user")
    c.wait_running(b1)
    assert c.job_field(b1, "NodeList") == c.job_field(b2, "NodeList") == "node01"
    c.run(["scancel", str(b1), str(b2), str(b3)], check=True)


def test_a_restart_keeps_whose_node_it_is(ucluster, users):
    """A compacted journal replays the start of a job that has ended after
    that of one still running (in id order): the node stays the running
    job's user's."""
    c = ucluster
    a, b = users["a"], users["b"]
    # a's job has the lower id but starts after b's has come and gone
    ja = submit(c, a, "-w node03 -n1 --exclusive=user --begin=now+4")
    p = as_user(c, b, "sbatch --parsable -o /dev/null -w node03 -n1 "
                      "--exclusive=user --wrap true")
    jb = int(p.stdout)
    c.wait_job(jb)
    c.wait_running(ja, timeout=60)
    c.compact_journal()
    c.kill_daemon("rotactld")
    c.up()
    mine = submit(c, a, "-w node03 -n1")
    c.wait_running(mine)
    theirs = submit(c, b, "-w node03 -n1")
    considered(c, theirs)
    assert c.job_state(theirs) == "PENDING"


def test_the_flag_follows_the_last_of_exclusive_and_oversubscribe(ucluster, users):
    c = ucluster
    j = submit(c, users["a"], "-H --exclusive=user --exclusive")
    assert c.job_field(j, "OverSubscribe") == "NO"
    j = submit(c, users["a"], "-H --exclusive -s --exclusive=user")
    assert c.job_field(j, "OverSubscribe") == "USER"
    j = submit(c, users["a"], "-H --exclusive=user -s")
    assert c.job_field(j, "OverSubscribe") == "YES"
