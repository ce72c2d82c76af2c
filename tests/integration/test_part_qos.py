"""A partition's QOS (slurm.conf `PartitionName=... QOS=name`, `scontrol
update PartitionName=X QOS=name`), as Slurm 22.05's partition QOS: its limits
hold every job of the partition, counted over the jobs using it (as their own
or their partition's QOS), and win over the job QOS's own limit unless the
job's QOS has Flags=OverPartQOS.  A QOS that does not exist is refused."""
import re
import time

import pytest

from conftest import module_cluster_with

REASON_JOBS_PU = ["PENDING", "QOSMaxJobsPerUserLimit"]
SUBMIT_ERR = "sbatch: error: Batch job submission failed: "


def _conf(path):
    with open(path, "a") as f:
        f.write("AccountingStorageEnforce=associations,limits,qos\n"
                "PartitionName=pq Nodes=node[01-02] QOS=pqlim State=UP\n"
                "PartitionName=free Nodes=node[03-04] State=UP\n")


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(rewrite_conf=_conf)


def mgr(c, *args, check=True):
    p = c.run(["sacctmgr", "-i", *args])
    if check:
        assert p.returncode == 0, f"sacctmgr {args}: {p.stdout}{p.stderr}"
    return p


def reason(c, j):
    return c.run(["squeue", "-h", "-j", str(j), "-o", "%T %r"], check=True).stdout.split()


def sleeper(c, *args):
    return c.sbatch("-t", "5", "-o", "/dev/null", *args, "--wrap", "sleep 60")


def used_jobs(c, qos):
    """The jobs `scontrol show assoc_mgr` counts in qos (GrpJobs=L(used))."""
    out = c.run(["scontrol", "-o", "show", "assoc_mgr", f"qos={qos}", "flags=qos"],
                check=True).stdout
    line = [x for x in out.splitlines() if x.startswith(f"QOS={qos}(")]
    assert len(line) == 1, out
    return int(re.search(r" GrpJobs=\S+?\((\d+)\)", line[0]).group(1))


@pytest.fixture
def qos(cluster):
    """pqlim (the pq partition's QOS, MaxJobsPerUser=1, MaxSubmitJobsPerUser=4)
    and roomy (MaxJobsPerUser=3), which root's association may use."""
    c = cluster
    mgr(c, "add", "qos", "pqlim", "MaxJobsPerUser=1", "MaxSubmitJobsPerUser=4")
    mgr(c, "add", "qos", "roomy", "MaxJobsPerUser=3")
    mgr(c, "add", "qos", "grpq", "GrpJobs=1")
    mgr(c, "modify", "user", "root", "set", "qos=normal,roomy,pqlim,grpq")
    yield c
    c.cancel_all()
    mgr(c, "modify", "user", "root", "set", "qos=normal", check=False)
    c.run(["scontrol", "update", "PartitionName=pq", "QOS=pqlim"])
    mgr(c, "delete", "qos", "pqlim,roomy,grpq", check=False)


def test_partition_qos_limit_wins_over_the_jobs_qos(qos):
    c = qos
    # roomy allows 3 running jobs a user; the partition's pqlim 1, and wins
    j1 = sleeper(c, "-p", "pq", "--qos=roomy")
    c.wait_running(j1)
    j2 = sleeper(c, "-p", "pq", "--qos=roomy")
    c.wait_for(lambda: reason(c, j2) == REASON_JOBS_PU, what="QOSMaxJobsPerUserLimit")
    # the limit is the partition's: the same QOS elsewhere runs
    j3 = sleeper(c, "-p", "free", "--qos=roomy")
    c.wait_running(j3)
    assert reason(c, j2) == REASON_JOBS_PU
    # pqlim counts the jobs of its partition, though none has it as its QOS
    assert used_jobs(c, "pqlim") == 1
    # -p pq,free: held in pq, it runs in free
    j4 = sleeper(c, "-p", "pq,free")
    c.wait_running(j4)
    assert c.job_field(j4, "Partition") == "free"
    # MaxSubmitJobsPerUser=4 of pqlim: j1 and j2 use it (j4 runs in free);
    # two more are taken, the next refused
    sleeper(c, "-p", "pq", "--hold")
    sleeper(c, "-p", "pq", "--hold")
    p = c.run(["sbatch", "-p", "pq", "--hold", "--wrap", "true"])
    assert p.returncode == 1
    assert p.stderr == SUBMIT_ERR + "Job violates accounting/QOS policy (job " \
                                    "submit limit, user's size and/or time limits)\n"


def test_over_part_qos_lets_the_jobs_qos_limit_win(qos):
    c = qos
    mgr(c, "modify", "qos", "roomy", "set", "Flags=OverPartQOS")
    jobs = [sleeper(c, "-p", "pq", "--qos=roomy") for _ in range(4)]
    for j in jobs[:3]:
        c.wait_running(j)
    # roomy's MaxJobsPerUser=3 now holds the fourth
    c.wait_for(lambda: reason(c, jobs[3]) == REASON_JOBS_PU,
               what="QOSMaxJobsPerUserLimit of the job's QOS")
    # without the flag the partition's limit (1) is back: with one of the
    # three gone the fourth still waits (roomy's 3 would let it start)
    mgr(c, "modify", "qos", "roomy", "set", "Flags=-1")
    c.run(["scancel", str(jobs[0])], check=True)
    time.sleep(4)
    assert reason(c, jobs[3]) == REASON_JOBS_PU
    mgr(c, "modify", "qos", "roomy", "set", "Flags=OverPartQOS")
    c.wait_running(jobs[3])


def test_update_sets_the_partitions_qos(qos):
    c = qos
    c.run(["scontrol", "create", "PartitionName=pq2", "Nodes=node[03-04]"], check=True)
    try:
        p = c.run(["scontrol", "update", "PartitionName=pq2", "QOS=nosuch"])
        assert p.returncode == 1
        assert p.stderr == "slurm_update error: Invalid qos specification\n"
        j1 = sleeper(c, "-p", "pq2")
        j2 = sleeper(c, "-p", "pq2")
        c.wait_running(j1)
        c.wait_running(j2)
        p = c.run(["scontrol", "update", "PartitionName=pq2", "QOS=grpq"])
        assert p.returncode == 0, p.stderr
        j3 = sleeper(c, "-p", "pq2")
        c.wait_for(lambda: reason(c, j3) == ["PENDING", "QOSGrpJobsLimit"],
                   what="QOSGrpJobsLimit")
        assert used_jobs(c, "grpq") == 2
        c.run(["scancel", str(j1), str(j2)], check=True)
        c.wait_running(j3)
        j4 = sleeper(c, "-p", "pq2", "--qos=grpq")
        c.wait_for(lambda: reason(c, j4) == ["PENDING", "QOSGrpJobsLimit"],
                   what="QOSGrpJobsLimit with the job's own QOS")
        # the job's own QOS that is its partition's too counts it once
        c.run(["scancel", str(j3)], check=True)
        c.wait_running(j4)
        assert used_jobs(c, "grpq") == 1
    finally:
        c.cancel_all()
        c.run(["scontrol", "delete", "PartitionName=pq2"])


def test_qos_group_and_per_account_submit_limits(qos):
    """A QOS's GrpSubmitJobs counts every pending and running job using it,
    MaxSubmitJobsPerAccount those of the job's account; past either the
    submission is refused as Slurm refuses it."""
    c = qos
    refused = SUBMIT_ERR + "Job violates accounting/QOS policy (job submit limit, " \
                           "user's size and/or time limits)\n"
    mgr(c, "modify", "qos", "roomy", "set", "GrpSubmitJobs=2")
    sleeper(c, "-p", "free", "--qos=roomy", "--hold")
    sleeper(c, "-p", "free", "--qos=roomy", "--hold")
    p = c.run(["sbatch", "-p", "free", "--qos=roomy", "--hold", "--wrap", "true"])
    assert (p.returncode, p.stderr) == (1, refused)
    assert c.run(["sbatch", "-p", "free", "--hold", "--wrap", "true"]).returncode == 0
    c.cancel_all()
    mgr(c, "modify", "qos", "roomy", "set", "GrpSubmitJobs=-1",
        "MaxSubmitJobsPerAccount=1")
    sleeper(c, "-p", "free", "--qos=roomy", "--hold")
    p = c.run(["sbatch", "-p", "free", "--qos=roomy", "--hold", "--wrap", "true"])
    assert (p.returncode, p.stderr) == (1, refused)
    mgr(c, "modify", "qos", "roomy", "set", "MaxSubmitJobsPerAccount=-1")
    assert c.run(["sbatch", "-p", "free", "--qos=roomy", "--hold",
                  "--wrap", "true"]).returncode == 0


def test_deny_on_limit_refuses_what_would_wait(qos):
    """A job past its QOS's MaxWall or MaxTRESPerJob waits (the QOS's reason);
    with Flags=DenyOnLimit it is refused at submission instead."""
    c = qos
    refused = SUBMIT_ERR + "Job violates accounting/QOS policy (job submit limit, " \
                           "user's size and/or time limits)\n"
    mgr(c, "modify", "qos", "roomy", "set", "MaxWall=10", "MaxTRESPerJob=cpu=2")
    j = c.sbatch("-p", "free", "--qos=roomy", "-t", "20", "--wrap", "true")
    c.wait_for(lambda: reason(c, j) == ["PENDING", "QOSMaxWallDurationPerJobLimit"],
               what="QOSMaxWallDurationPerJobLimit")
    mgr(c, "modify", "qos", "roomy", "set", "Flags=DenyOnLimit")
    for args in (["-t", "20"], ["-t", "5", "-n", "3"]):
        p = c.run(["sbatch", "-p", "free", "--qos=roomy", *args, "--wrap", "true"])
        assert (p.returncode, p.stderr) == (1, refused), args
    assert c.run(["sbatch", "-p", "free", "--qos=roomy", "-t", "5", "-n", "2", "-H",
                  "--wrap", "true"]).returncode == 0
    mgr(c, "modify", "qos", "roomy", "set", "Flags=-1", "MaxWall=-1",
        "MaxTRESPerJob=cpu=-1")


def test_per_node_and_minimum_limits(qos):
    """A QOS's MaxTRESPerNode (cpu, mem) and MinTRES (cpu, node), an
    association's MaxTRESPerNode: a job past them waits with Slurm's reason
    (QOSMaxCpuPerNode, QOSMaxMemoryPerNode, QOSMinCpuNotSatisfied, QOSMinNode,
    AssocMaxCpuPerNode); one within them runs; DenyOnLimit refuses at
    submission."""
    c = qos
    refused = SUBMIT_ERR + "Job violates accounting/QOS policy (job submit limit, " \
                           "user's size and/or time limits)\n"
    mgr(c, "modify", "qos", "roomy", "set", "MaxTRESPerNode=cpu=2,mem=1024")
    run = lambda *a: sleeper(c, "-p", "free", "--qos=roomy", *a)  # noqa: E731
    waits = {
        run("-N1", "-n3"): "QOSMaxCpuPerNode",
        run("-N1", "-n1", "--mem=2G"): "QOSMaxMemoryPerNode",
    }
    ok = run("-N2", "-n4", "--mem=512")  # 2 CPUs a node
    for j, why in waits.items():
        c.wait_for(lambda: reason(c, j) == ["PENDING", why], what=why)
    c.wait_running(ok)
    c.cancel_all()
    mgr(c, "modify", "qos", "roomy", "set", "MaxTRESPerNode=cpu=-1,mem=-1",
        "MinTRES=cpu=2,node=2")
    waits = {run("-N2", "-n1"): "QOSMinCpuNotSatisfied",
             run("-N1", "-n2"): "QOSMinNode"}
    ok = run("-N2", "-n2")
    for j, why in waits.items():
        c.wait_for(lambda: reason(c, j) == ["PENDING", why], what=why)
    c.wait_running(ok)
    c.cancel_all()
    mgr(c, "modify", "qos", "roomy", "set", "Flags=DenyOnLimit")
    p = c.run(["sbatch", "-p", "free", "--qos=roomy", "-N1", "-n1", "--wrap", "true"])
    assert (p.returncode, p.stderr) == (1, refused)
    mgr(c, "modify", "qos", "roomy", "set", "Flags=-1", "MinTRES=cpu=-1,node=-1")
    mgr(c, "modify", "user", "root", "set", "MaxTRESPerNode=cpu=1")
    try:
        j = sleeper(c, "-p", "free", "-N1", "-n2")
        c.wait_for(lambda: reason(c, j) == ["PENDING", "AssocMaxCpuPerNode"],
                   what="AssocMaxCpuPerNode")
        ok = sleeper(c, "-p", "free", "-N2", "-n2")
        c.wait_running(ok)
    finally:
        mgr(c, "modify", "user", "root", "set", "MaxTRESPerNode=cpu=-1")
