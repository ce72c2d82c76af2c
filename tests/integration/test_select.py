"""Node selection: Features and --constraint, node Weight, partition
OverSubscribe and -s, PriorityTier, MinNodes, --mincpus.

One cluster for the module: 4 nodes x 8 CPUs, each with its own line so that
it has its own features and weight, and extra partitions over the same nodes.
"""
import os
import re

import pytest

from conftest import module_cluster_with, wait_until, write_script

# node: (features, weight)
NODES = {
    "node01": ("gpu,rack1", 10),
    "node02": ("gpu,rack2", 10),
    "node03": ("rack1", 1),
    "node04": ("rack2,bigmem", 5),
}
PARTS = """
PartitionName=high Nodes=node[01-04] MaxTime=01:00:00 State=UP PriorityTier=2
PartitionName=force Nodes=node[01-04] MaxTime=01:00:00 State=UP OverSubscribe=FORCE:2
PartitionName=yes Nodes=node[01-04] MaxTime=01:00:00 State=UP OverSubscribe=YES:2
PartitionName=excl Nodes=node[01-04] MaxTime=01:00:00 State=UP OverSubscribe=EXCLUSIVE
PartitionName=big Nodes=node[01-04] MaxTime=01:00:00 State=UP MinNodes=2
"""
REJECTED = "sbatch: error: Batch job submission failed: Invalid feature specification\n"
# runs until the file named by its first argument exists
GATED = "#!/bin/bash\nwhile [ ! -e \"$1\" ]; do sleep 0.1; done\n"


def rewrite_conf(path):
    """One NodeName line per node with its Features and Weight; more
    partitions."""
    with open(path) as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        m = re.match(r"NodeName=node\[01-04\] (.*)Port=\[(\d+)-(\d+)\](.*)$", line)
        if not m:
            out.append(line)
            continue
        port = int(m.group(2))
        for i, (name, (feat, weight)) in enumerate(sorted(NODES.items())):
            out.append(f"NodeName={name} {m.group(1)}Port={port + i}{m.group(4)} "
                       f"Features={feat} Weight={weight}")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n" + PARTS)


@pytest.fixture(scope="module")
def sel_cluster():
    yield from module_cluster_with(rewrite_conf)


@pytest.fixture
def c(sel_cluster, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(work, 0o777)
    sel_cluster.work = work
    write_script(work / "g.sh", GATED)
    yield sel_cluster
    sel_cluster.cancel_all()
    sel_cluster.wait_nodes_idle()


def gated(c, *args, gate="gate"):
    """Submit g.sh (runs until ./GATE exists) with args; return the job id."""
    return c.sbatch("-o", "/dev/null", *args, "g.sh", gate, cwd=c.work)


def running_on(c, *args, gate="gate"):
    jid = gated(c, *args, gate=gate)
    assert c.wait_running(jid) == "RUNNING"
    return jid, c.job_field(jid, "NodeList")


def wait_reason(c, jid, reason):
    c.wait_for(lambda: c.job_field(jid, "Reason") == reason, what=f"Reason={reason}")
    assert c.job_state(jid) == "PENDING"


def open_gate(c, gate="gate"):
    (c.work / gate).touch()


# ---- Features and --constraint ----

def test_constraint_selects_nodes(c):
    _, nodes = running_on(c, "-C", "gpu", "-N2")
    assert nodes == "node[01-02]"
    _, nodes = running_on(c, "-C", "rack2&bigmem")
    assert nodes == "node04"
    _, nodes = running_on(c, "--constraint=rack1,gpu")  # ',' is AND
    assert nodes == "node01"


def test_constraint_update_moves_the_job(c):
    """scontrol update Features= of a pending job: the new constraint decides
    (not the one parsed at submit)."""
    jid = gated(c, "-H", "-C", "gpu")
    r = c.run(["scontrol", "update", f"JobId={jid}", "Features=bigmem"])
    assert r.returncode == 0, r.stderr
    r = c.run(["scontrol", "update", f"JobId={jid}", "Features=nosuch"])
    assert "Invalid feature specification" in r.stderr
    c.run(["scontrol", "release", str(jid)], check=True)
    assert c.wait_running(jid) == "RUNNING"
    assert c.job_field(jid, "NodeList") == "node04"
    assert c.job_field(jid, "Features") == "bigmem"


def test_constraint_or_and_parentheses(c):
    jid, nodes = running_on(c, "-C", "bigmem|gpu", "-N3", "--exclusive")
    assert nodes == "node[01-02,04]"
    assert c.job_field(jid, "Features") == "bigmem|gpu"
    # (rack1&(bigmem|gpu))|rack2 matches node01, node02, node04, all busy; the
    # idle node03 has rack1 alone
    jid = gated(c, "-C", "rack1&(bigmem|gpu)|rack2")
    wait_reason(c, jid, "Resources")
    assert c.job_field(jid, "Features") == "rack1&(bigmem|gpu)|rack2"
    c.run(["scancel", str(jid)], check=True)  # it would block the partition
    _, nodes = running_on(c, "-C", "rack1&(bigmem|rack1)")
    assert nodes == "node03"


def test_matching_or_keeps_one_alternative(c):
    # idle: rack1 (node01, node03) is the first alternative
    _, nodes = running_on(c, "-C", "[rack1|rack2]", "-N2")
    assert nodes == "node[01,03]"
    c.cancel_all()
    c.wait_nodes_idle()
    # node03 busy: rack1 has one free node, so both come from rack2, never
    # node01 with a rack2 node
    running_on(c, "-w", "node03", "--exclusive")
    _, nodes = running_on(c, "-C", "[rack1|rack2]", "-N2")
    assert nodes == "node[02,04]"
    # plain OR mixes them
    c.cancel_all()
    c.wait_nodes_idle()
    running_on(c, "-w", "node03", "--exclusive")
    running_on(c, "-w", "node02", "--exclusive")
    _, nodes = running_on(c, "-C", "rack1|rack2", "-N2")
    assert nodes == "node[01,04]"


def test_prefer_is_tried_first_then_the_constraint(c):
    """--prefer's features first, in place of -C's (as Slurm); when no node
    with them is free the job starts on what -C allows rather than wait."""
    jid, nodes = running_on(c, "--prefer=bigmem")
    assert nodes == "node04"  # not node03, the lightest
    assert c.job_field(jid, "Prefer") == "bigmem"
    p = c.run(["scontrol", "show", "job", str(jid)], check=True)
    assert "\n   Features=(null) DelayBoot=00:00:00\n   Prefer=bigmem\n" in p.stdout
    # node04 is taken (exclusive): the next starts at once on node03
    _, nodes = running_on(c, "--prefer=bigmem", "--exclusive", gate="g2")
    assert nodes == "node03", nodes
    # in place of -C, as Slurm's: rack2's lightest node, without a gpu
    _, nodes = running_on(c, "-C", "gpu", "--prefer=rack2")
    assert nodes == "node04", nodes
    p = c.run(["sbatch", "--prefer=nosuch", "--wrap", "true"])
    assert (p.returncode, p.stderr) == (1, REJECTED), p.stderr
    p = c.run(["srun", "--prefer=rack2", "printenv", "SLURMD_NODENAME"], timeout=60)
    assert p.stdout.strip() in ("node02", "node04"), p.stdout + p.stderr


def test_constraint_busy_pends_with_resources(c):
    blocker, _ = running_on(c, "-N2", "-w", "node[01-02]", "--exclusive", gate="g1")
    jid = gated(c, "-C", "gpu")
    wait_reason(c, jid, "Resources")
    assert c.job_field(jid, "Features") == "gpu"
    open_gate(c, "g1")
    c.wait_job(blocker)
    assert c.wait_running(jid) == "RUNNING"
    assert c.job_field(jid, "NodeList") in ("node01", "node02")


NODES_DOWN = ("Nodes_required_for_job_are_DOWN,_DRAINED_or_reserved_for_jobs_in_"
              "higher_priority_partitions")


def test_drained_nodes_pend_in_slurms_words(c):
    """Too few nodes up for the job, enough were they all up: Slurm's
    "Nodes required for job are DOWN, DRAINED or reserved ..." (squeue with
    spaces, scontrol with underscores), not Resources; nodes the job could
    not use anyway (features) do not count."""
    c.run(["scontrol", "update", "nodename=node[01-02]", "state=drain",
           "reason=maint"], check=True)
    try:
        # each in a partition of its own: a job waiting blocks the ones
        # after it in its partition (Priority)
        gpu = gated(c, "-p", "force", "-C", "gpu")
        four = gated(c, "-p", "big", "-N4")
        wait_reason(c, gpu, NODES_DOWN)
        wait_reason(c, four, NODES_DOWN)
        p = c.run(["squeue", "-h", "-j", str(gpu), "-o", "%R"], check=True)
        assert p.stdout.strip() == "(" + NODES_DOWN.replace("_", " ") + ")"
        # a job the nodes up can hold runs; one of rack2 waiting behind a
        # busy node04 waits for Resources (node02, drained, is rack2 too,
        # but node04 alone would do)
        jid, nodes = running_on(c, "-C", "bigmem", "--exclusive", gate="g2")
        assert nodes == "node04"
        big = gated(c, "-p", "yes", "-C", "bigmem")
        wait_reason(c, big, "Resources")
        c.run(["scancel", str(four), str(big)], check=True)
        open_gate(c, "g2")
    finally:
        c.run(["scontrol", "update", "nodename=node[01-02]", "state=resume"],
              check=True)
    assert c.wait_running(gpu) == "RUNNING"


@pytest.mark.parametrize("spec", [
    "nosuch", "gpu&nosuch", "gpu|nosuch", "gpu&", "(gpu", "gpu)", "[gpu&rack1]",
    "gpu rack1", "x" * 2000,
    # node counts: only ANDed, outside parentheses, each of [..&..] with one,
    # none in a matching OR, 1 to 100000
    "gpu*0", "gpu*", "gpu*100001", "gpu*2|rack1", "rack1|gpu*2", "(gpu*2)",
    "[gpu*1&rack1]", "[gpu*1|rack1*1]", "[gpu|rack1]*2", "nosuch*1",
])
def test_constraint_invalid_refused(c, spec):
    p = c.run(["sbatch", "-C", spec, "--wrap", "true"])
    assert p.returncode == 1
    assert p.stderr == REJECTED
    p = c.run(["squeue", "-h", "-o", "%i"])
    assert p.stdout.strip() == ""


NOT_AVAILABLE = ("sbatch: error: Batch job submission failed: Requested node "
                 "configuration is not available\n")


def test_constraint_node_counts(c):
    """FEATURE*N: at least N of the job's nodes have it, the others need not
    (Slurm's test17.12): -N3 gpu*2 takes both gpu nodes and the lightest
    other, not the three lightest."""
    jid, nodes = running_on(c, "-N3", "-C", "gpu*2", "--exclusive")
    assert nodes == "node[01-03]"
    assert c.job_field(jid, "Features") == "gpu*2"
    c.cancel_all()
    c.wait_nodes_idle()
    # without -N the job gets as many nodes as its count
    _, nodes = running_on(c, "-C", "gpu*2", "--exclusive")
    assert nodes == "node[01-02]"
    c.cancel_all()
    c.wait_nodes_idle()
    # ANDed with the rest: every node has rack1, one at least gpu
    _, nodes = running_on(c, "-N2", "-C", "rack1&gpu*1", "--exclusive")
    assert nodes == "node[01,03]"
    # more nodes with gpu than there are, or than -N allows: never
    for args in (["-N3", "-C", "gpu*3"], ["-N1", "-C", "gpu*2"],
                 ["-N2", "-C", "bigmem&gpu*1"]):
        p = c.run(["sbatch", *args, "--wrap", "true"])
        assert (p.returncode, p.stderr) == (1, NOT_AVAILABLE), args


def test_constraint_counts_on_nodes_of_their_own(c):
    """[A*N&B*M]: N nodes with A and M other nodes with B."""
    _, nodes = running_on(c, "-N3", "-C", "[(gpu&rack2)*1&rack1*2]",
                          "--exclusive")
    assert nodes == "node[01-03]"
    c.cancel_all()
    c.wait_nodes_idle()
    # node01 has gpu and rack1 but serves one count only
    _, nodes = running_on(c, "-N2", "-C", "[gpu*1&rack1*1]", "--exclusive")
    assert nodes in ("node[01,03]", "node[02-03]", "node[01-02]")
    p = c.run(["sbatch", "-N3", "-C", "[(gpu&rack2)*2&rack1*1]", "--wrap", "true"])
    assert (p.returncode, p.stderr) == (1, NOT_AVAILABLE)
    p = c.run(["sbatch", "-N4", "-C", "[gpu*2&rack1*2]", "--wrap", "true"])
    assert (p.returncode, p.stderr) == (1, NOT_AVAILABLE)


def test_constraint_count_waits_for_its_nodes(c):
    """A gpu node busy: -N2 gpu*2 waits for it (Resources) though two other
    nodes are free, and starts on both gpu nodes once it is freed."""
    blocker, _ = running_on(c, "-w", "node01", "--exclusive", gate="g1")
    jid = gated(c, "-N2", "-C", "gpu*2", "--exclusive")
    wait_reason(c, jid, "Resources")
    open_gate(c, "g1")
    c.wait_job(blocker)
    assert c.wait_running(jid) == "RUNNING"
    assert c.job_field(jid, "NodeList") == "node[01-02]"


def test_constraint_not_in_partition_never_fits(c):
    # all features exist, but no node has both: not a feature error
    p = c.run(["sbatch", "-C", "bigmem&gpu", "--wrap", "true"])
    assert p.returncode == 1
    assert p.stderr == ("sbatch: error: Batch job submission failed: Requested "
                        "node configuration is not available\n")


# ---- sbatch --batch: the features of the node the script runs on ----

# where the script runs, then waits as g.sh
PROBE = ("#!/bin/bash\necho \"$(hostname) $SLURMD_NODENAME $SLURM_NODEID\"\n"
         "while [ ! -e \"$1\" ]; do sleep 0.1; done\n")
BATCH_REFUSED = ("sbatch: error: Batch job submission failed: Job --batch option "
                 "is invalid or not a subset of --constraints\n")


def batch_host_is(c, jid, node, out):
    """Its script runs on node (hostname, SLURMD_NODENAME), SLURM_NODEID 0
    wherever it runs (as Slurm's batch script), and scontrol shows it."""
    assert c.job_field(jid, "BatchHost") == node
    c.wait_for(lambda: out.exists() and out.read_text().strip(), what="its output")
    assert out.read_text() == f"{node} {node} 0\n"


def test_batch_runs_the_script_on_a_node_with_its_features(c):
    """-N2 -C "rack1|bigmem": the two lightest, node03 (rack1) and node04
    (bigmem); --batch=bigmem runs the script on node04, the second, as
    Slurm's test17.12 asks (BatchHost, where it ran, SLURM_NODEID), kept over
    controller restarts (from the journal and from a snapshot) and a
    shrink."""
    write_script(c.work / "p.sh", PROBE)
    out = c.work / "p.out"
    jid = c.sbatch("-N2", "-C", "rack1|bigmem", "--batch=bigmem", "-o", str(out),
                   "p.sh", "gate", cwd=c.work)
    assert c.wait_running(jid) == "RUNNING"
    assert c.job_field(jid, "NodeList") == "node[03-04]"
    show = c.run(["scontrol", "show", "job", str(jid)], check=True).stdout
    assert "\n   BatchFeatures=bigmem BatchHost=node04\n" in show, show
    batch_host_is(c, jid, "node04", out)
    # the batch step is on node04: sstat asks it there
    p = c.run(["sstat", "-n", "-a", "-P", "-j", str(jid), "-o", "JobID,Nodelist"])
    assert f"{jid}.batch|node04" in p.stdout, p.stdout + p.stderr
    c.restart_ctld()
    assert c.job_field(jid, "BatchHost") == "node04"
    c.compact_journal()
    c.restart_ctld()
    assert c.job_field(jid, "BatchHost") == "node04"
    assert c.job_field(jid, "BatchFeatures") == "bigmem"
    # a shrink keeps the batch host, though it is the last node
    c.run(["scontrol", "update", f"JobId={jid}", "NumNodes=1"], check=True)
    assert c.job_field(jid, "NodeList") == "node04"
    assert c.job_field(jid, "BatchHost") == "node04"
    open_gate(c)
    assert c.wait_job(jid) == "COMPLETED"


def test_batch_allocation_holds_a_node_with_its_features(c):
    """-C "rack1|rack2|gpu" would take node03 and node04, the lightest; with
    --batch=gpu one of its nodes has gpu, the script runs there, and while
    both gpu nodes are busy it waits (Resources) though two nodes are free.
    SBATCH_BATCH is --batch."""
    blocker, _ = running_on(c, "-N2", "-w", "node[01-02]", "--exclusive", gate="g1")
    write_script(c.work / "p.sh", PROBE)
    out = c.work / "p.out"
    env = {"SBATCH_BATCH": "gpu"}
    jid = c.sbatch("-N2", "-C", "rack1|rack2|gpu", "--exclusive", "-o", str(out),
                   "p.sh", "gate", cwd=c.work, env=env)
    wait_reason(c, jid, "Resources")
    assert c.job_field(jid, "BatchFeatures") == "gpu"
    open_gate(c, "g1")
    c.wait_job(blocker)
    assert c.wait_running(jid) == "RUNNING"
    assert c.job_field(jid, "NodeList") == "node[01,03]"
    batch_host_is(c, jid, "node01", out)
    open_gate(c)
    assert c.wait_job(jid) == "COMPLETED"


@pytest.mark.parametrize("args", [
    ["--batch=gpu"],                          # no -C: nothing to be a subset of
    ["-C", "rack1", "--batch=gpu"],           # not one of -C's
    ["-C", "gpu|rack1", "--batch=gpu,rack1"],  # '&' and '|' only
    ["-C", "gpu|rack1", "--batch=(gpu)"],
    ["-C", "gpu|bigmem", "--batch=gpu&bigmem"],  # no node has both
])
def test_batch_invalid_refused(c, args):
    p = c.run(["sbatch", *args, "--wrap", "true"])
    assert (p.returncode, p.stderr) == (1, BATCH_REFUSED), args
    assert c.run(["squeue", "-h", "-o", "%i"]).stdout.strip() == ""


def test_srun_constraint(c):
    p = c.run(["srun", "-C", "bigmem", "printenv", "SLURMD_NODENAME"], timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "node04"
    p = c.run(["srun", "-C", "nosuch", "true"])
    assert p.returncode != 0
    assert "Invalid feature specification" in p.stderr


# ---- Weight ----

def test_weight_orders_nodes(c):
    _, nodes = running_on(c, "-n1")
    assert nodes == "node03"  # weight 1
    c.cancel_all()
    c.wait_nodes_idle()
    _, nodes = running_on(c, "-N2")
    assert nodes == "node[03-04]"  # weights 1 and 5
    c.cancel_all()
    c.wait_nodes_idle()
    _, nodes = running_on(c, "-N3")
    assert nodes == "node[01,03-04]"  # then node01 before node02 (equal weights)
    # tasks fill the lightest node first
    c.cancel_all()
    c.wait_nodes_idle()
    jid, nodes = running_on(c, "-n12")
    assert nodes == "node[03-04]"
    _, nodes = running_on(c, "-n4")
    assert nodes == "node04"


# ---- OverSubscribe ----

def test_oversubscribe_force(c):
    a, _ = running_on(c, "-p", "force", "-n8", "-w", "node01")
    running_on(c, "-p", "force", "-n8", "-w", "node01")
    assert c.job_field(a, "NumCPUs") == "8"
    p = c.run(["sinfo", "-h", "-N", "-n", "node01", "-o", "%C"])
    assert p.stdout.split()[0] == "8/0/0/8"
    # --exclusive in a FORCE partition still wants an idle node
    jid, nodes = running_on(c, "-p", "force", "-N1", "--exclusive")
    assert nodes != "node01"
    assert c.job_field(jid, "NumCPUs") == "8"
    # (-w on busy nodes: the reason is ReqNodeNotAvail)
    plain = gated(c, "-n1", "-w", "node01")  # debug (NO) does not share
    wait_reason(c, plain, "ReqNodeNotAvail")
    third = gated(c, "-p", "force", "-n8", "-w", "node01")
    wait_reason(c, third, "ReqNodeNotAvail")  # FORCE:2: two jobs per core at most


def test_oversubscribe_yes_needs_request(c):
    running_on(c, "-p", "yes", "-n8", "-w", "node02", "-s")
    jid = gated(c, "-p", "yes", "-n8", "-w", "node02")
    wait_reason(c, jid, "ReqNodeNotAvail")  # did not ask to share
    c.run(["scancel", str(jid)], check=True)  # it would block the partition
    jid, _ = running_on(c, "-p", "yes", "-n8", "-w", "node02", "--oversubscribe")
    assert c.job_field(jid, "OverSubscribe") == "YES"
    # the later of -s and --exclusive wins
    jid = gated(c, "-p", "yes", "-n1", "-w", "node02", "-s", "--exclusive")
    wait_reason(c, jid, "ReqNodeNotAvail")
    assert c.job_field(jid, "OverSubscribe") == "NO"


def test_oversubscribe_exclusive_partition(c):
    jid, nodes = running_on(c, "-p", "excl", "-n1")
    assert c.job_field(jid, "NumCPUs") == "8"
    jid2, nodes2 = running_on(c, "-p", "excl", "-n1")
    assert nodes2 != nodes


def test_partition_shows_oversubscribe(c):
    for part, want in [("force", "FORCE:2"), ("yes", "YES:2"),
                       ("excl", "EXCLUSIVE"), ("debug", "NO")]:
        p = c.run(["scontrol", "show", "partition", part])
        assert f"OverSubscribe={want}" in p.stdout, p.stdout
        p = c.run(["sinfo", "-h", "-p", part, "-o", "%h"])
        assert p.stdout.strip() == want


# ---- PriorityTier ----

def test_priority_tier_first(c):
    blocker, _ = running_on(c, "-N4", "--exclusive", gate="g1")
    low = gated(c, "-N4", "--exclusive", gate="g2")  # debug, tier 1, older
    high = gated(c, "-p", "high", "-N4", "--exclusive", gate="g2")
    wait_reason(c, high, "Resources")
    # the high partition's job keeps every node from the jobs after it
    c.wait_for(lambda: c.job_field(low, "Reason") in ("Resources", "Priority", NODES_DOWN),
               what="low pending")
    open_gate(c, "g1")
    c.wait_job(blocker)
    assert c.wait_running(high) == "RUNNING"
    assert c.job_state(low) == "PENDING"


# ---- MinNodes ----

def test_min_nodes_pends(c):
    jid = gated(c, "-p", "big", "-N1")
    wait_reason(c, jid, "PartitionNodeLimit")
    jid2, nodes = running_on(c, "-p", "big", "-N2")
    assert c.job_state(jid) == "PENDING"


# ---- --mincpus ----

def test_mincpus(c):
    running_on(c, "-n4", "-w", "node03")  # node03 (lightest) keeps 4 free CPUs
    jid, nodes = running_on(c, "--mincpus=6", "-n1")
    assert nodes == "node04"
    assert c.job_field(jid, "NumCPUs") == "6"
    assert c.job_field(jid, "MinCPUsNode") == "6"
    _, nodes = running_on(c, "-n1")
    assert nodes == "node03"
    p = c.run(["sbatch", "--mincpus=9", "--wrap", "true"])
    assert p.returncode == 1
    assert "Requested node configuration is not available" in p.stderr
    p = c.run(["sbatch", "--mincpus=x", "--wrap", "true"])
    assert p.returncode != 0


def test_tmp_needs_a_node_with_that_much_tmpdisk(make_cluster):
    """--tmp: only nodes whose TmpDisk is at least that much (units as
    --mem); more than any node has cannot be run.  A node line without
    TmpDisk has the size of its TmpFS file system, as slurmd reports it."""
    import re
    c = make_cluster("--nodes", "2", "--cpus", "2", "--mem", "2048")
    assert c.down().returncode == 0
    tmp_fs = os.path.dirname(c.conf_path)
    st = os.statvfs(tmp_fs)
    size = st.f_blocks * st.f_frsize // (1024 * 1024)
    with open(c.conf_path) as f:
        text = f.read()
    # node[01-02] ... Port=[a-b]: one line each, node02 with TmpDisk
    m = re.search(r"^NodeName=node\[01-02\] (.*)Port=\[(\d+)-(\d+)\] (.*)$", text, re.M)
    assert m, text
    lines = (f"NodeName=node01 {m[1]}Port={m[2]} {m[4]}\n"
             f"NodeName=node02 {m[1]}Port={m[3]} TmpDisk={size + 2048} {m[4]}")
    text = f"TmpFS={tmp_fs}\n" + text.replace(m[0], lines)
    with open(c.conf_path, "w") as f:
        f.write(text)
    c.up()

    def tmp_disk(node):
        out = c.run(["scontrol", "show", "node", node]).stdout
        return re.search(r" TmpDisk=(\d+)", out)[1]

    wait_until(lambda: tmp_disk("node01") == str(size),
               what="node01 registering its TmpFS size")
    assert tmp_disk("node02") == str(size + 2048)
    for _ in range(3):
        job = c.sbatch(f"--tmp={size + 1024}M", "-o", "/dev/null", "--wrap", "true")
        assert c.wait_job(job) == "COMPLETED"
        assert c.job_field(job, "NodeList") == "node02"
    job = c.sbatch(f"--tmp={size}", "-w", "node01", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_job(job) == "COMPLETED"
    p = c.run(["sbatch", f"--tmp={size + 3072}", "--wrap", "true"])
    assert p.returncode == 1 and "Requested node configuration is not available" in p.stderr


def test_spread_job(c):
    """--spread-job: the tasks over as many nodes as they can fill, one
    each here; without it they pack on the lightest node."""
    jid, nodes = running_on(c, "-n4", "--spread-job")
    assert nodes == "node[01-04]"
    assert c.job_field(jid, "NumNodes") == "4"
    _, nodes = running_on(c, "-n4", gate="gate2")
    assert nodes == "node03"
    open_gate(c)
    open_gate(c, "gate2")


def test_contiguous(c):
    """--contiguous: nodes of consecutive names, not the lightest ones."""
    _, nodes = running_on(c, "-N2")
    assert nodes == "node[03-04]"
    open_gate(c)
    c.wait_nodes_idle()
    jid, nodes = running_on(c, "-N2", "--contiguous", gate="gate2")
    assert nodes == "node[01-02]"
    assert c.job_field(jid, "Contiguous") == "1"
    open_gate(c, "gate2")
    c.wait_nodes_idle()
    running_on(c, "-n8", "-w", "node01", gate="gate3")  # node01 full
    _, nodes = running_on(c, "-N2", "--contiguous", gate="gate4")
    assert nodes == "node[02-03]"
    open_gate(c, "gate3")
    open_gate(c, "gate4")


def test_a_job_waiting_for_its_named_node_lets_the_others_start(make_cluster):
    """A pending job that names all the nodes it needs (-w) keeps only those
    from the jobs after it, as Slurm's main scheduler does: a later job of its
    partition starts elsewhere at once, not behind it (sched/builtin: no
    backfill run to start it), and none takes the named node first."""
    c = make_cluster()
    c.down()
    with open(c.conf_path, "a") as f:
        f.write("SchedulerType=sched/builtin\n")
    c.up()
    busy = c.sbatch("-w", "node01", "-c", "1", "-o", "/dev/null", "--wrap", "sleep 300")
    assert c.wait_running(busy) == "RUNNING"
    cpus = int(c.run(["sinfo", "-h", "-n", "node01", "-o", "%c"]).stdout)
    named = c.sbatch("-w", "node01", "-c", str(cpus), "-o", "/dev/null", "--wrap", "true")
    later = c.sbatch("-n", "1", "-o", "/dev/null", "--wrap", "sleep 300")
    assert c.wait_running(later) == "RUNNING"
    assert c.job_field(later, "NodeList") != "node01"
    small = c.sbatch("-w", "node01", "-c", "1", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_for(lambda: c.job_field(small, "Reason") not in ("None", None),
               what="a pass over the last job")
    assert c.job_state(named) == "PENDING"
    assert c.job_state(small) == "PENDING", "a later job took the named node first"
    c.cancel_all()


# ---- node ranges ----

def test_node_range_takes_as_many_as_are_free(c):
    """-N min-max: as many nodes of the range as can be had now, as Slurm's
    scheduler asks for (--use-min-nodes: the fewest); never more nodes than
    tasks."""
    j, nodes = running_on(c, "-N", "2-3", gate="g1")
    assert c.job_field(j, "NumNodes") == "3", nodes
    k, _ = running_on(c, "-N", "1-4", "--use-min-nodes", gate="g2")
    assert c.job_field(k, "NumNodes") == "1"
    m, _ = running_on(c, "-N", "1-4", "-n", "2", gate="g3")
    assert c.job_field(m, "NumNodes") == "2"
    for g in ("g1", "g2", "g3"):
        open_gate(c, g)
    for jid in (j, k, m):
        c.wait_job(jid)
    # two nodes held: a range of 2-4 starts at once on the two left
    busy = [running_on(c, "-w", f"node0{i}", "--exclusive", gate="g4")[0]
            for i in (1, 2)]
    r, nodes = running_on(c, "-N", "2-4", gate="g5")
    assert c.job_field(r, "NumNodes") == "2" and nodes == "node[03-04]", nodes
    open_gate(c, "g4")
    open_gate(c, "g5")
    for jid in busy + [r]:
        c.wait_job(jid)


def test_nodelist_without_a_node_count_takes_every_node_named(c):
    """-w without -N: the job gets each node named (their count is its least,
    as Slurm's controller makes it); more names than -N's most is refused,
    and srun drops the last ones in Slurm's words."""
    j, nodes = running_on(c, "-w", "node[01-03]", gate="g1")
    assert nodes == "node[01-03]" and c.job_field(j, "NumNodes") == "3", nodes
    open_gate(c, "g1")
    c.wait_job(j)
    p = c.run(["srun", "-l", "-w", "node[02-03]", "printenv", "SLURMD_NODENAME"])
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.splitlines()) == ["0: node02", "1: node03"], p.stdout
    p = c.run(["sbatch", "-N1", "-w", "node[01-03]", "--wrap", "true"])
    assert p.returncode == 1
    assert p.stderr == ("sbatch: error: Batch job submission failed: Node count "
                        "specification invalid\n")
    p = c.run(["srun", "-N1-2", "-w", "node[01-03]", "printenv", "SLURMD_NODENAME"])
    assert p.returncode == 0, p.stderr
    assert p.stderr == ("srun: error: Required nodelist includes more nodes than "
                        "permitted by max-node count (3 > 2). Eliminating nodes from "
                        "the nodelist.\n")
    assert sorted(p.stdout.split()) in (["node01"], ["node01", "node02"]), p.stdout
    # a node both required and excluded: refused
    p = c.run(["sbatch", "-w", "node01", "-x", "node01", "--wrap", "true"])
    assert p.returncode == 1
    assert p.stderr == ("sbatch: error: Batch job submission failed: Invalid node "
                        "name specified\n")
