"""A partition's DefMemPerCPU/DefMemPerNode, MaxMemPerCPU/MaxMemPerNode,
MaxCPUsPerNode, ExclusiveUser and LLN applied to its jobs, as Slurm 22.05
applies them.  The module's cluster (4 nodes of 8 CPUs, 64 GB) has
EnforcePartLimits=ALL, so a job over a memory limit is refused at
submission; with NO it waits (MaxMemPerLimit), tested on a cluster of its
own."""

import re

import pytest

from conftest import module_cluster_with
from unixusers import needs_root, sbatch_as

PARTS = (
    "PartitionName=memcpu Nodes=node[01-02] DefMemPerCPU=1000 MaxMemPerNode=20000\n"
    "PartitionName=memnode Nodes=node[03-04] DefMemPerNode=3000 MaxMemPerCPU=2000\n"
    "PartitionName=cap Nodes=node[01-02] MaxCPUsPerNode=4\n"
    "PartitionName=exu Nodes=node[03-04] ExclusiveUser=YES\n"
    "PartitionName=lln Nodes=node[01-04] LLN=YES\n"
    "PartitionName=strict Nodes=node[03-04] OverTimeLimit=0\n"
)
SUBMIT_ERR = "sbatch: error: Batch job submission failed: "
MEM_ERR = SUBMIT_ERR + "Memory required by task is not available\n"
CONFIG_ERR = SUBMIT_ERR + "Requested node configuration is not available\n"


def _conf(path):
    with open(path, "a") as f:
        f.write("EnforcePartLimits=ALL\nOverTimeLimit=1\n" + PARTS)


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(rewrite_conf=_conf)


def mb(text):
    """'1000M' or '1000' as 1000; None stays None."""
    m = re.match(r"(\d+)", text or "")
    return int(m.group(1)) if m else None


def env_of(c, *args):
    """Run a job printing its memory variables; return them as a dict."""
    out = c.work / "env.out"
    j = c.sbatch("-o", str(out), *args, "--wrap",
                 "echo cpu=$SLURM_MEM_PER_CPU node=$SLURM_MEM_PER_NODE", cwd=c.work)
    assert c.wait_job(j) == "COMPLETED"
    return j, dict(kv.split("=", 1) for kv in out.read_text().split())


def running(c, *args, user=None):
    """Submit a sleeping job and wait until it runs; return (id, NodeList)."""
    if user:
        j = sbatch_as(c, user, " ".join(("-o", "/dev/null") + args + ("--wrap", "'sleep 300'")))
    else:
        j = c.sbatch("-o", "/dev/null", *args, "--wrap", "sleep 300", cwd=c.work)
    c.wait_for(lambda: c.job_field(j, "JobState") == "RUNNING", what=f"job {j} running")
    return j, c.job_field(j, "NodeList")


def test_default_mem_per_cpu_of_the_partition(cluster):
    c = cluster
    j, env = env_of(c, "-p", "memcpu", "-n2")
    assert mb(c.job_field(j, "MinMemoryCPU")) == 1000
    assert env["cpu"] == "1000"
    # asked memory is kept
    j, env = env_of(c, "-p", "memcpu", "--mem=500")
    assert mb(c.job_field(j, "MinMemoryNode")) == 500
    assert c.job_field(j, "MinMemoryCPU") is None
    # another partition: no default
    j, env = env_of(c, "-n1")
    assert env["cpu"] == "" and env["node"] == ""


def test_default_mem_per_node_of_the_partition(cluster):
    c = cluster
    j, env = env_of(c, "-p", "memnode")
    assert mb(c.job_field(j, "MinMemoryNode")) == 3000
    assert env["node"] == "3000"


def test_max_mem_per_node_refused(cluster):
    c = cluster
    p = c.run(["sbatch", "-p", "memcpu", "--mem=30000", "--wrap", "true"], cwd=c.work)
    assert (p.returncode, p.stderr) == (1, MEM_ERR)
    # 8 tasks on one node at 3000 MB a CPU (Slurm counts the tasks a node
    # from -n and -N's most)
    p = c.run(["sbatch", "-p", "memcpu", "--mem-per-cpu=3000", "-N1", "-n8", "--wrap", "true"],
              cwd=c.work)
    assert (p.returncode, p.stderr) == (1, MEM_ERR)
    j, env = env_of(c, "-p", "memcpu", "--mem=20000")
    assert env["node"] == "20000"


def test_max_mem_per_cpu_raises_cpus_per_task(cluster):
    """As Slurm's _valid_pn_min_mem: 5000 MB a CPU over MaxMemPerCPU=2000 is
    3 CPUs a task of 1667 MB each."""
    c = cluster
    j, env = env_of(c, "-p", "memnode", "--mem-per-cpu=5000")
    assert c.job_field(j, "CPUs/Task") == "3"
    assert mb(c.job_field(j, "MinMemoryCPU")) == 1667
    assert c.job_field(j, "NumCPUs") == "3"


def test_max_cpus_per_node_spreads_and_caps(cluster):
    c = cluster
    j, nodes = running(c, "-p", "cap", "-n6")
    assert nodes == "node[01-02]"
    assert c.job_field(j, "NumCPUs") == "6"
    c.run(["scancel", str(j)])
    c.wait_job(j)
    # 6 on one node can never be had
    p = c.run(["sbatch", "-p", "cap", "-N1", "-n6", "--wrap", "true"], cwd=c.work)
    assert (p.returncode, p.stderr) == (1, CONFIG_ERR)
    # the cap is the partition's: 4 of node01 taken, its next job goes to
    # node02, and a third waits while node01 still has 4 CPUs free
    a, na = running(c, "-p", "cap", "-n4")
    b, nb = running(c, "-p", "cap", "-n4")
    assert {na, nb} == {"node01", "node02"}
    w = c.sbatch("-o", "/dev/null", "-p", "cap", "-n1", "--wrap", "sleep 300", cwd=c.work)
    c.wait_for(lambda: c.job_field(w, "Reason") == "Resources", what="Resources")
    assert c.job_field(w, "JobState") == "PENDING"
    # another partition's job still gets node01's free CPUs (once the
    # waiting one no longer keeps the main pass off its nodes)
    c.run(["scancel", str(w)])
    o, no = running(c, "-w", "node01", "-n4")
    assert no == "node01"


@needs_root
def test_exclusive_user_keeps_other_users_off(ucluster, users):
    c, a, b = ucluster, users["a"], users["b"]
    ja, na = running(c, "-p", "exu", "-n1", user=a)
    jb, nb = running(c, "-p", "exu", "-n1", user=b)
    assert na != nb  # node03 had 7 CPUs free, but a's
    ja2, na2 = running(c, "-p", "exu", "-n1", user=a)
    assert na2 == na  # a's own job shares it
    # both nodes held by others: b's next job waits
    jb2 = sbatch_as(c, b, "-o /dev/null -p exu -n1 -w " + na + " --wrap 'sleep 300'")
    c.wait_for(lambda: c.job_field(jb2, "Reason") not in (None, "None"), what="a reason")
    assert c.job_field(jb2, "JobState") == "PENDING"


def test_lln_least_loaded_node_first(cluster):
    c = cluster
    _, n1 = running(c, "-p", "lln", "-n4")
    assert n1 == "node01"
    _, n2 = running(c, "-p", "lln", "-n1")
    assert n2 == "node02"  # not node01, which has 4 CPUs free
    _, n3 = running(c, "-p", "lln", "-n1")
    assert n3 == "node03"
    # without LLN the default partition packs from node01
    _, n4 = running(c, "-n1")
    assert n4 == "node01"


def test_max_mem_waits_without_enforcement(make_cluster):
    c = make_cluster()
    c.down()
    with open(c.conf_path, "a") as f:
        f.write(PARTS)
    c.up()
    j = c.sbatch("-o", "/dev/null", "-p", "memcpu", "--mem=30000", "--wrap", "true",
                 cwd=c.work)
    c.wait_for(lambda: c.job_field(j, "Reason") == "MaxMemPerLimit", what="MaxMemPerLimit")
    assert c.job_field(j, "JobState") == "PENDING"


def test_over_time_limit(cluster):
    """OverTimeLimit: minutes a job runs past its time limit, the partition's
    own (strict: 0) or else the cluster's (1); shown, updated, written."""
    config = cluster.run(["scontrol", "show", "config"], check=True).stdout
    assert re.search(r"^OverTimeLimit\s+= 1 min$", config, re.M), config
    def part_otl(name):
        text = cluster.run(["scontrol", "show", "partition", name], check=True).stdout
        return re.search(r"OverTimeLimit=(\S+)", text).group(1)
    assert (part_otl("strict"), part_otl("memcpu")) == ("0", "NONE")
    lenient = cluster.sbatch("-p", "memcpu", "-t1", "--wrap", "sleep 600")
    strict = cluster.sbatch("-p", "strict", "-t1", "--wrap", "sleep 600")
    assert cluster.wait_job(strict, timeout=150) == "TIMEOUT"
    assert cluster.job_state(lenient) == "RUNNING"  # a minute more to go
    cluster.run(["scancel", str(lenient)], check=True)
    cluster.run(["scontrol", "update", "PartitionName=strict",
                 "OverTimeLimit=UNLIMITED"], check=True)
    assert part_otl("strict") == "UNLIMITED"
    p = cluster.run(["scontrol", "write", "config", str(cluster.work / "otl.conf")],
                    check=True)
    saved = p.stdout.split()[-1]
    text = open(saved).read()
    assert "OverTimeLimit=1\n" in text
    assert re.search(r"^PartitionName=strict .*OverTimeLimit=UNLIMITED", text, re.M)
