"""Job priority: priority/multifactor weights, --nice, PriorityFavorSmall,
admin-set priorities, scontrol top, and sprio."""
import pytest

from conftest import IS_ROOT, write_script

GATED = "#!/bin/bash\nwhile [ ! -e gate ]; do sleep 0.1; done\n"
HEADER = ("          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE"
          "    JOBSIZE  PARTITION        QOS")
MULTIFACTOR = """
PriorityType=priority/multifactor
PriorityWeightAge=0
PriorityWeightJobSize=1000
PriorityWeightPartition=0
PriorityWeightQOS=0
PriorityWeightFairshare=0
PriorityFavorSmall=YES
"""


def multifactor(make_cluster, extra=""):
    c = make_cluster()
    c.down()
    with open(c.conf_path, "a") as f:
        f.write(MULTIFACTOR + extra)
    c.up()
    return c


def blocker(c):
    """A job on every CPU of the cluster (4 nodes x 8 CPUs) until ./gate."""
    write_script(c.work / "g.sh", GATED)
    jid = c.sbatch("-N4", "--exclusive", "-o", "/dev/null", "g.sh", cwd=c.work)
    c.wait_running(jid)
    return jid


def prio(c, jobid):
    return int(c.job_field(jobid, "Priority"))


def pending(c, jobid):
    return c.job_state(jobid) == "PENDING"


def test_favor_small_starts_small_job_first(make_cluster):
    c = multifactor(make_cluster)
    b = blocker(c)
    big = c.sbatch("-n", "32", "-o", "/dev/null", "--wrap", "sleep 30")
    small = c.sbatch("-n", "1", "-o", "/dev/null", "--wrap", "sleep 30")
    # 1000 x (1 - 1/32) and 1000 x (1 - 32/32), clamped to 1
    c.wait_for(lambda: prio(c, small) == 968 and prio(c, big) == 1,
               what=f"multifactor priorities ({prio(c, small)}, {prio(c, big)})")
    (c.work / "gate").write_text("")
    c.wait_job(b)
    c.wait_running(small)
    assert pending(c, big), "the large job should wait behind the small one"


def test_nice_lowers_priority(make_cluster):
    c = multifactor(make_cluster)
    blocker(c)
    plain = c.sbatch("-n", "1", "-o", "/dev/null", "--wrap", "true")
    nice = c.sbatch("-n", "1", "--nice=100", "-o", "/dev/null", "--wrap", "true")
    # both are recomputed by the same periodic pass, which may run between
    # the two submissions: wait for the pair, then compare
    c.wait_for(lambda: prio(c, plain) == 968 and prio(c, nice) != 0xffff0000 - int(nice),
               what="multifactor priorities")
    assert prio(c, nice) == 868
    assert c.job_field(nice, "Nice") == "100"


def test_admin_priority_sticks_and_top(make_cluster):
    c = multifactor(make_cluster)
    blocker(c)
    a = c.sbatch("-n", "1", "-o", "/dev/null", "--wrap", "true")
    b = c.sbatch("-n", "2", "-o", "/dev/null", "--wrap", "true")
    c.wait_for(lambda: prio(c, a) == 968 and prio(c, b) == 937,
               what="multifactor priorities")
    c.run(["scontrol", "update", f"JobId={a}", "Priority=5"], check=True)
    assert prio(c, a) == 5
    # a later submission runs another scheduling pass; the admin value stays
    later = c.sbatch("-n", "1", "-o", "/dev/null", "--wrap", "true")
    c.wait_for(lambda: prio(c, later) == 968, what="a scheduling pass")
    assert prio(c, a) == 5
    # scontrol top: above every other pending job of the same user
    c.run(["scontrol", "top", str(a)], check=True)
    assert prio(c, a) == 969
    assert prio(c, b) == 937
    # a list: its first job ends highest, then the next (Slurm's test2.26)
    c.run(["scontrol", "top", f"{b},{later}"], check=True)
    assert prio(c, b) > prio(c, later) > prio(c, a)


@pytest.mark.skipif(not IS_ROOT, reason="needs root to create test users")
def test_priority_at_submission(make_cluster, users):
    """--priority=N (operators): the job keeps it through the scheduler's
    recomputations; TOP is Slurm's highest; a user's is ignored, as is 0,
    and N must be a number."""
    from unixusers import as_user

    c = multifactor(make_cluster)
    blocker(c)
    a = c.sbatch("-n", "1", "--priority=7", "-o", "/dev/null", "--wrap", "true")
    top = c.sbatch("-n", "1", "--priority=TOP", "-o", "/dev/null", "--wrap", "true")
    later = c.sbatch("-n", "1", "-o", "/dev/null", "--wrap", "true")
    c.wait_for(lambda: prio(c, later) == 968, what="a scheduling pass")
    assert (prio(c, a), prio(c, top)) == (7, 0xfffffffe)
    p = c.run(["sbatch", "--priority=high", "--wrap", "true"])
    assert (p.returncode, p.stderr) == (1, "sbatch: error: Invalid --priority "
                                           "specification\n")
    zero = c.sbatch("-n", "1", "--priority=0", "-o", "/dev/null", "--wrap", "true")
    u = users["a"]
    p = as_user(c, u, "sbatch --parsable --priority=100 -o /dev/null --wrap true",
                cwd="/tmp")
    assert p.returncode == 0, p.stderr
    mine = int(p.stdout.strip())
    c.wait_for(lambda: prio(c, mine) == 968 and prio(c, zero) == 968 or None,
               what="the scheduler's priorities for both")
    assert c.job_field(zero, "JobState") == "PENDING"
    assert c.job_field(zero, "Reason") != "JobHeldUser"


def test_sprio(make_cluster):
    c = make_cluster()
    p = c.run(["sprio"])
    assert p.returncode == 1 and "priority/basic" in p.stderr
    c.down()
    with open(c.conf_path, "a") as f:
        f.write(MULTIFACTOR.replace("PriorityWeightPartition=0",
                                    "PriorityWeightPartition=500"))
    c.up()
    blocker(c)
    j = c.sbatch("-n", "8", "-o", "/dev/null", "--wrap", "true")
    c.wait_for(lambda: prio(c, j) == 1250, what=f"priority 1250 ({prio(c, j)})")
    out = c.run(["sprio"], check=True).stdout.splitlines()
    assert out[0] == HEADER
    assert out[1:] == [f"{j:>15} debug     " + "".join(
        f"{v:>10} " for v in (1250, 0, 0, 0, 750, 500))[:-1] + "          0"]
    w = c.run(["sprio", "-w"], check=True).stdout.splitlines()
    assert w == [HEADER, "        Weights                               1          0"
                 "          0       1000        500          0"]
    n = c.run(["sprio", "-n", "-h", "-j", str(j)], check=True).stdout.split()
    assert n[0] == str(j) and n[4:8] == ["0.0000000", "0.0000000", "0.7500000",
                                         "1.0000000"]
    long = c.run(["sprio", "-l"], check=True).stdout.splitlines()
    assert long[0].split() == ["JOBID", "PARTITION", "USER", "PRIORITY", "SITE",
                               "AGE", "FAIRSHARE", "JOBSIZE", "PARTITION", "QOS",
                               "NICE"]
    assert long[1].split()[2] == c.user[:8]
    assert c.run(["sprio", "-h", "-u", "nosuchuser"], check=True).stdout == ""
