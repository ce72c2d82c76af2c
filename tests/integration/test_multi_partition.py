"""A job submitted to several partitions (-p a,b), as Slurm 22.05 takes it:
every name must be a partition, the list is shown as given while the job
waits (squeue -P: a row per partition), and the job starts in whichever
partition gives it resources first, which is its partition from then on
(squeue, scontrol show job, SLURM_JOB_PARTITION, sacct).  The list survives
a controller restart and comes back when the job is requeued."""

import re
import time

import pytest

from conftest import module_cluster_with


def _add_parts(path):
    """pa: node[01-02]; pb: node[03-04] (disjoint); ov: node[02-03], a
    higher PriorityTier, overlapping both."""
    with open(path) as f:
        text = f.read()
    assert "node[01-04]" in text, text
    with open(path, "a") as f:
        f.write("PartitionName=pa Nodes=node[01-02] PriorityTier=1 State=UP\n")
        f.write("PartitionName=pb Nodes=node[03-04] PriorityTier=1 "
                "DefaultTime=00:07:00 MaxTime=01:00:00 State=UP\n")
        f.write("PartitionName=ov Nodes=node[02-03] PriorityTier=5 State=UP\n")
        f.write("SchedulerParameters=bf_interval=1,bf_resolution=1\n")


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(rewrite_conf=_add_parts)


@pytest.fixture(autouse=True)
def _clean(cluster):
    yield
    cluster.cancel_all()


def later(c, *args):
    """A job that stays pending for an hour (--begin)."""
    return c.sbatch(*args, "--begin=now+3600", "-o", "/dev/null", "--wrap", "true")


def fill(c, part, n=2, *args):
    """n whole-node jobs in part (8 CPUs a node), running."""
    ids = [c.sbatch("-p", part, "-c", "8", *args, "-o", "/dev/null", "--wrap",
                    "sleep 300")
           for _ in range(n)]
    for j in ids:
        assert c.wait_running(j) == "RUNNING"
    return ids


def run_in_other(c, full, other, cpus="8"):
    """Fill partition full, then a job of "full,other": it runs, in other."""
    fill(c, full)
    j = c.sbatch("-p", f"{full},{other}", "-c", cpus, "-o", "/dev/null", "--wrap", "sleep 300")
    assert c.wait_running(j) == "RUNNING"
    assert c.job_field(j, "Partition") == other
    return j


def squeue(c, *args):
    p = c.run(["squeue", "-h", *args])
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def test_list_accepted_and_shown_as_given(cluster):
    j = later(cluster, "-p", "pb,pa,pb")
    # duplicates dropped, the order given kept (not sorted)
    assert cluster.job_field(j, "Partition") == "pb,pa"
    assert squeue(cluster, "-j", str(j), "-o", "%P") == ["pb,pa"]
    # -P: one row per partition, each its own
    rows = squeue(cluster, "-P", "-j", str(j), "-o", "%i %P")
    assert sorted(rows) == sorted([f"{j} pb", f"{j} pa"])
    # squeue -p of either partition finds it
    assert squeue(cluster, "-p", "pa", "-o", "%i") == [str(j)]


def test_unknown_partition_in_list_refused(cluster):
    before = squeue(cluster, "-t", "all", "-o", "%i")
    p = cluster.run(["sbatch", "-p", "pa,nosuch", "--wrap", "true"])
    assert p.returncode != 0
    assert "Invalid partition name specified" in p.stderr, p.stderr
    p = cluster.run(["sbatch", "-p", "pa,,pb", "--wrap", "true"])
    assert p.returncode != 0
    assert squeue(cluster, "-t", "all", "-o", "%i") == before


def test_starts_in_the_partition_with_free_nodes(cluster):
    fill(cluster, "pa")
    out = cluster.work / "mp.out"
    j = cluster.sbatch("-p", "pa,pb", "-c", "8", "-o", str(out), "--wrap",
                       "echo part=$SLURM_JOB_PARTITION")
    assert cluster.wait_job(j) == "COMPLETED"
    assert "part=pb" in out.read_text()
    assert cluster.job_field(j, "Partition") == "pb"
    # its partition's DefaultTime, not pa's (none: unlimited)
    assert cluster.job_field(j, "TimeLimit") == "00:07:00"
    assert squeue(cluster, "-t", "all", "-j", str(j), "-o", "%P") == ["pb"]

    def acct():
        p = cluster.run(["sacct", "-n", "-X", "-P", "-j", str(j), "-o",
                         "Partition,State"])
        return p.stdout.strip() if p.returncode == 0 else ""
    cluster.wait_for(lambda: acct() == "pb|COMPLETED", timeout=20,
                     what=f"sacct to show pb: {acct()!r}")


def test_running_job_shows_its_partition(cluster):
    j = run_in_other(cluster, "pb", "pa")
    assert squeue(cluster, "-j", str(j), "-o", "%P %T") == ["pa RUNNING"]
    # a running job is one row under -P, in the partition it runs in
    assert squeue(cluster, "-P", "-j", str(j), "-o", "%P") == ["pa"]
    nodes = cluster.job_field(j, "NodeList")
    assert nodes in ("node01", "node02"), nodes


def test_waits_while_every_partition_is_full(cluster):
    fill(cluster, "pa")
    fill(cluster, "pb")
    j = cluster.sbatch("-p", "pa,pb", "-c", "8", "-o", "/dev/null", "--wrap", "true")
    time.sleep(2)
    assert cluster.job_state(j) == "PENDING"
    assert cluster.job_field(j, "Partition") == "pa,pb"
    assert cluster.job_field(j, "Reason") in ("Resources", "Priority")


def test_planned_start_is_its_earliest_partition(cluster):
    """Backfill plans the job in each of its partitions and shows the
    earliest: pb's jobs end within 7 minutes (its DefaultTime), pa's in 30;
    listed pb first, pa's later plan must not replace pb's."""
    t0 = time.time()
    fill(cluster, "pa", 2, "-t", "30")
    fill(cluster, "pb")
    j = cluster.sbatch("-p", "pb,pa", "-c", "8", "-t", "5", "-o", "/dev/null",
                       "--wrap", "true")

    def start():
        s = cluster.job_field(j, "StartTime")
        return s if s not in (None, "Unknown") else None
    s = cluster.wait_for(start, timeout=20, what="a planned start")
    at = time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))
    assert t0 + 5 * 60 <= at <= t0 + 9 * 60, s
    assert cluster.job_field(j, "SchedNodeList") in ("node03", "node04")
    rows = squeue(cluster, "--start", "-j", str(j), "-o", "%i %S %P")
    assert rows == [f"{j} {s} pb,pa"]


def test_update_partition_list_and_env(cluster):
    j = later(cluster, "-p", "pa")
    p = cluster.run(["scontrol", "update", f"JobId={j}", "Partition=pb,pa"])
    assert p.returncode == 0, p.stderr
    assert cluster.job_field(j, "Partition") == "pb,pa"
    p = cluster.run(["scontrol", "update", f"JobId={j}", "Partition=pb,bogus"])
    assert p.returncode != 0
    assert "Invalid partition name specified" in p.stderr, p.stderr
    assert cluster.job_field(j, "Partition") == "pb,pa"
    k = cluster.sbatch("--begin=now+3600", "-o", "/dev/null", "--wrap", "true",
                       env={"SBATCH_PARTITION": "pa,pb"})
    assert cluster.job_field(k, "Partition") == "pa,pb"


def test_list_survives_restart_then_runs(cluster):
    fill(cluster, "pa")
    j = later(cluster, "-p", "pa,pb", "-c", "4")
    # running ones of a list too: their partition is the one they run in,
    # one from the snapshot (compacted), one from the journal after it
    r = cluster.sbatch("-p", "pa,pb", "-c", "8", "-o", "/dev/null", "--wrap",
                       "sleep 300")
    assert cluster.wait_running(r) == "RUNNING"
    cluster.compact_journal()
    r2 = cluster.sbatch("-p", "pa,pb", "-c", "4", "-o", "/dev/null", "--wrap",
                        "sleep 300")
    assert cluster.wait_running(r2) == "RUNNING"
    assert [cluster.job_field(x, "Partition") for x in (r, r2)] == ["pb", "pb"]
    cluster.kill_daemon("rotactld")
    cluster.up()
    assert cluster.job_field(j, "Partition") == "pa,pb"
    assert [cluster.job_field(x, "Partition") for x in (r, r2)] == ["pb", "pb"]
    assert sorted(squeue(cluster, "-P", "-j", str(j), "-o", "%P")) == ["pa", "pb"]
    # and it still starts where there is room (the CPUs r2 left in pb)
    p = cluster.run(["scontrol", "update", f"JobId={j}", "StartTime=now"])
    assert p.returncode == 0, p.stderr
    assert cluster.wait_job(j) == "COMPLETED"  # it runs `true`
    assert cluster.job_field(j, "Partition") == "pb"
    assert cluster.job_field(j, "NodeList") == cluster.job_field(r2, "NodeList")


def test_srun_and_salloc(cluster):
    fill(cluster, "pa")
    p = cluster.run(["srun", "-p", "pa,pb", "-c", "8", "printenv",
                     "SLURM_JOB_PARTITION"], timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "pb"
    p = cluster.run(["salloc", "-p", "pa,pb", "-c", "8", "printenv",
                     "SLURM_JOB_PARTITION"], timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "pb"
    p = cluster.run(["srun", "-p", "pa,nosuch", "true"], timeout=60)
    assert p.returncode != 0
    assert "Invalid partition name specified" in p.stderr, p.stderr


def test_requeue_brings_the_list_back(cluster):
    j = run_in_other(cluster, "pa", "pb")
    p = cluster.run(["scontrol", "requeuehold", str(j)])
    assert p.returncode == 0, p.stderr
    cluster.wait_for(
        lambda: cluster.job_field(j, "JobState") in ("PENDING", "REQUEUED"),
        timeout=30, what="requeued job pending")
    assert cluster.job_field(j, "Partition") == "pa,pb"
    assert squeue(cluster, "-j", str(j), "-o", "%P") == ["pa,pb"]
    # released, it starts again where there is room
    p = cluster.run(["scontrol", "release", str(j)])
    assert p.returncode == 0, p.stderr
    assert cluster.wait_running(j) == "RUNNING"
    assert cluster.job_field(j, "Partition") == "pb"


def test_higher_tier_partition_tried_first(cluster):
    """ov (PriorityTier 5) is tried before pa (1): with both free, a job of
    pa,ov starts in ov, as Slurm orders its queue records by tier."""
    j = cluster.sbatch("-p", "pa,ov", "-o", "/dev/null", "--wrap", "sleep 300")
    assert cluster.wait_running(j) == "RUNNING"
    assert cluster.job_field(j, "Partition") == "ov"
    assert re.fullmatch(r"node0[23]", cluster.job_field(j, "NodeList"))


def test_partition_whose_limits_it_breaks_is_left_out(cluster):
    """EnforcePartLimits=NO (the default): accepted; pb's MaxTime (1 hour)
    keeps a 2-hour job out of pb, so it starts in pa though pb is first."""
    j = cluster.sbatch("-p", "pb,pa", "-t", "120", "-o", "/dev/null", "--wrap",
                       "sleep 300")
    assert cluster.wait_running(j) == "RUNNING"
    assert cluster.job_field(j, "Partition") == "pa"
    k = cluster.sbatch("-p", "pb", "-t", "120", "-o", "/dev/null", "--wrap", "true")
    cluster.wait_for(lambda: cluster.job_field(k, "Reason") == "PartitionTimeLimit",
                     what="PartitionTimeLimit")


TIME_ERR = ("sbatch: error: Batch job submission failed: Requested time limit is "
            "invalid (missing or exceeds some limit)\n")


def test_enforce_part_limits_all_and_any(make_cluster):
    c = make_cluster()
    short = "PartitionName=short Nodes=node[01-02] MaxTime=10 State=UP\n"
    for mode in ("ALL", "ANY"):
        c.down()
        with open(c.conf_path) as f:
            lines = [ln for ln in f if not ln.startswith(("EnforcePartLimits",
                                                           "PartitionName=short"))]
        with open(c.conf_path, "w") as f:
            f.writelines(lines)
            f.write(f"EnforcePartLimits={mode}\n" + short)
        c.up()
        assert c.conf_value("EnforcePartLimits") == mode
        # over short's MaxTime everywhere it is named alone: refused
        p = c.run(["sbatch", "-p", "short", "-t", "20", "--wrap", "true"], cwd=c.work)
        assert (p.returncode, p.stderr) == (1, TIME_ERR)
        # short and debug (no MaxTime): ALL wants both, ANY one
        p = c.run(["sbatch", "-p", "short,debug", "-t", "20", "-o", "/dev/null",
                   "--wrap", "true"], cwd=c.work)
        if mode == "ALL":
            assert (p.returncode, p.stderr) == (1, TIME_ERR)
        else:
            assert p.returncode == 0, p.stderr
            j = int(p.stdout.split()[-1])
            assert c.wait_job(j) == "COMPLETED"
            assert c.job_field(j, "Partition") == "debug"



def test_test_only_takes_the_earliest_partition(cluster):
    """--test-only plans the job in each of its partitions and says the
    earliest, as the scheduler would start it."""
    c = cluster
    fill(c, "pa")
    for parts in ("pa,pb", "pb,pa"):
        p = c.run(["sbatch", "--test-only", "-p", parts, "-c", "8", "--wrap", "true"])
        assert p.returncode == 0, p.stderr
        assert re.search(r"to start at \S+ using 8 processors on nodes node0[34] in "
                         r"partition pb$", p.stderr.strip()), p.stderr
