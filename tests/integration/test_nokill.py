"""-k/--no-kill and nodes going DOWN under running jobs: `scontrol update
State=DOWN` ends the jobs there as a failure does (a batch job requeued, or
NODE_FAIL with --no-requeue); a --no-kill job goes on without the node (its
steps there killed, the node out of its allocation, through a restart) unless
the node is its batch script's."""

import pytest

from conftest import write_script

GATED = """#!/bin/bash
while [ ! -e gate ]; do sleep 0.1; done
srun -l hostname | sort
echo nodes=$(scontrol show job $SLURM_JOB_ID | grep -o ' NodeList=[^ ]*')
"""


@pytest.fixture
def downs(cluster):
    """Nodes set DOWN by the test, back up after it."""
    names = []

    def down(name):
        names.append(name)
        cluster.run(["scontrol", "update", f"NodeName={name}", "State=DOWN",
                     "Reason=test"], check=True)

    yield down
    for name in names:
        cluster.run(["scontrol", "update", f"NodeName={name}", "State=RESUME"])
    for name in names:
        cluster.wait_for(lambda n=name: cluster.run(
            ["sinfo", "-h", "-n", n, "-o", "%t"]).stdout.strip() == "idle" or None,
            timeout=30, what=f"{name} back")


def gated(c, *args):
    write_script(c.work / "g.sh", GATED)
    jid = c.sbatch("-N3", "-o", "out", *args, "g.sh", cwd=c.work)
    c.wait_running(jid)
    return jid


def test_no_kill_job_goes_on_without_the_node(cluster, downs):
    c = cluster
    jid = gated(c, "--no-kill")
    assert c.job_field(jid, "NodeList") == "node[01-03]"
    downs("node02")
    c.wait_for(lambda: c.job_field(jid, "NodeList") == "node[01,03]" or None,
               what="the node out of the allocation")
    assert c.job_state(jid) == "RUNNING"
    assert c.job_field(jid, "NumNodes") == "2"
    # back up, the node stays out of the job; the allocation survives a
    # controller restart as it is now: from the journal, then from a
    # snapshot of it
    c.run(["scontrol", "update", "NodeName=node02", "State=RESUME"], check=True)
    c.wait_for(lambda: c.run(["sinfo", "-h", "-n", "node02", "-o", "%t"]
                             ).stdout.strip() == "idle" or None, what="node02 idle")
    for compact in (False, True):
        if compact:
            c.compact_journal()
        c.kill_daemon("rotactld")
        c.up()
        assert c.job_field(jid, "NodeList") == "node[01,03]"
        assert c.job_state(jid) == "RUNNING"
    (c.work / "gate").write_text("")
    c.wait_job(jid)
    assert c.job_state(jid) == "COMPLETED"
    text = (c.work / "out").read_text()
    assert "0: node01\n1: node03\n" in text, text
    # SLURM_NNODES says 3: srun takes the job's 2, as Slurm's says
    assert ("srun: error: SLURM_JOB_NUM_NODES environment variable conflicts with "
            "allocated node count (3 != 2).\n") in text, text
    assert "nodes= NodeList=node[01,03]" in text, text
    # accounting keeps what the job held at the end
    c.wait_for(lambda: c.run(["sacct", "-n", "-P", "-X", "-j", str(jid), "-o",
                              "NodeList,AllocNodes"]).stdout.strip()
               == "node[01,03]|2" or None, what="the smaller record in sacct")


def test_no_kill_kills_the_steps_on_the_node(cluster, downs):
    c = cluster
    write_script(c.work / "s.sh", """#!/bin/bash
srun -N3 sleep 300
echo step=$?
srun -N2 hostname | sort
""")
    jid = c.sbatch("-N3", "-k", "-o", "out", "s.sh", cwd=c.work)
    c.wait_for(lambda: c.run(["squeue", "-h", "-s", "-j", str(jid), "-o", "%i"]
                             ).stdout.split().count(f"{jid}.0") == 1 or None,
               what="the step running")
    downs("node03")
    c.wait_job(jid)
    assert c.job_state(jid) == "COMPLETED"
    text = (c.work / "out").read_text()
    assert "step=0" not in text, text
    assert text.rstrip().endswith("node01\nnode02"), text


def test_down_ends_the_jobs_on_the_node(cluster, downs):
    """Without --no-kill, and with it where the node is the batch script's."""
    c = cluster
    plain = gated(c, "--no-requeue")
    downs("node01")
    c.wait_job(plain)
    assert c.job_state(plain) == "NODE_FAIL"
    kept = gated(c, "--no-requeue", "--no-kill", "-x", "node01")
    head = c.job_field(kept, "BatchHost")
    downs(head)
    c.wait_job(kept)
    assert c.job_state(kept) == "NODE_FAIL"


def test_down_requeues_a_batch_job(cluster, downs):
    c = cluster
    jid = gated(c, "--requeue", "-w", "node01,node02,node03")
    downs("node02")
    c.wait_for(lambda: c.job_state(jid) == "PENDING" or None, what="a requeue")
    assert c.job_field(jid, "Restarts") == "1"
    c.run(["scancel", str(jid)], check=True)  # not again on node02 once back


def test_no_kill_values(cluster):
    c = cluster
    for good in ("--no-kill", "--no-kill=set", "--no-kill=off", "-k"):
        assert c.run(["sbatch", "-H", good, "--wrap", "true"]).returncode == 0, good
    p = c.run(["sbatch", "--no-kill=maybe", "--wrap", "true"])
    assert p.returncode != 0 and "Invalid --no-kill specification" in p.stderr, p.stderr
    p = c.run(["sbatch", "--wrap", "true"], env={"SBATCH_NO_KILL": "bogus"})
    assert p.returncode != 0 and "Invalid --no-kill specification" in p.stderr, p.stderr
