"""Heterogeneous jobs: sbatch components (`#SBATCH hetjob`, `:` on the
command line) with their own requests, ids N+0, N+1 in squeue, HetJobId in
scontrol, one start for all components (or none), the batch script's
SLURM_*_HET_GROUP_n and SLURM_HET_SIZE, `srun --het-group=n`, one end and
one cancel for all; journaled like any job."""

import re
import subprocess

from conftest import write_script

SCRIPT = """#!/bin/bash
#SBATCH -N1 -n1 -J het
#SBATCH hetjob
#SBATCH -N2 --ntasks-per-node=2
echo size=$SLURM_HET_SIZE id=$SLURM_JOB_ID
echo g0=$SLURM_JOB_ID_HET_GROUP_0 g1=$SLURM_JOB_ID_HET_GROUP_1
echo nodes1=$SLURM_JOB_NUM_NODES_HET_GROUP_1 tasks1=$SLURM_NTASKS_HET_GROUP_1 \\
     tpn1=$SLURM_TASKS_PER_NODE_HET_GROUP_1 \\
     npn1=$SLURM_NTASKS_PER_NODE_HET_GROUP_1 npn0=${SLURM_NTASKS_PER_NODE_HET_GROUP_0-unset}
srun bash -c 'echo step0 $SLURM_JOB_ID $SLURM_STEP_NUM_TASKS'
srun --het-group=1 bash -c 'echo step1 $SLURM_JOB_ID $SLURM_STEP_NUM_TASKS $SLURMD_NODENAME'
"""


def _rows(c):
    p = c.run(["squeue", "-h", "-o", "%i %A %T %r %D"], check=True)
    return sorted(line.split() for line in p.stdout.splitlines())


def test_components_start_together_and_run_steps(cluster):
    c = cluster
    out = c.work / "het.out"
    script = write_script(c.work / "het.sh", SCRIPT)
    jid = c.sbatch("-o", str(out), str(script))
    c.wait_job(jid)
    text = out.read_text()
    assert f"size=2 id={jid}\n" in text, text
    assert f"g0={jid} g1={jid + 1}\n" in text, text
    assert "nodes1=2 tasks1=4 tpn1=2(x2) npn1=2 npn0=unset\n" in text, text
    assert re.findall(r"^step0 (\d+) (\d+)$", text, re.M) == [(str(jid), "1")], text
    step1 = re.findall(r"^step1 (\d+) (\d+) (\S+)$", text, re.M)
    # the leader's id, as Slurm (SLURM_JOB_ID_HET_GROUP_1 is the component's)
    assert len(step1) == 4 and {s[:2] for s in step1} == {(str(jid), "4")}, text
    assert len({s[2] for s in step1}) == 2, text
    assert c.job_state(jid + 1) == "COMPLETED"
    # accounting keeps the components under N+K
    c.wait_for(lambda: c.run(["sacct", "-X", "-n", "-P", "-j", f"{jid},{jid + 1}",
                              "-o", "jobid,state"]).stdout.split() ==
               [f"{jid}+0|COMPLETED", f"{jid}+1|COMPLETED"] or None,
               what="the components in sacct")


def test_squeue_and_scontrol_show_the_components(cluster):
    c = cluster
    jid = c.sbatch("-H", "-n1", ":", "-n2", "--wrap", "true")
    rows = _rows(c)
    assert [r[:2] for r in rows] == [[f"{jid}+0", str(jid)], [f"{jid}+1", str(jid + 1)]]
    p = c.run(["scontrol", "show", "job", str(jid)], check=True)
    assert f"JobId={jid} HetJobId={jid} HetJobOffset=0 JobName=wrap\n" in p.stdout
    assert f"   HetJobIdSet={jid}-{jid + 1}\n" in p.stdout, p.stdout
    p = c.run(["scontrol", "show", "job", str(jid + 1)], check=True)
    assert f"JobId={jid + 1} HetJobId={jid} HetJobOffset=1 JobName=wrap\n" in p.stdout
    # a pending component alone cannot be cancelled (Slurm); the leader's
    # id cancels every component
    p = c.run(["scancel", f"{jid}+1"])
    assert p.returncode == 1 and ("Operation not permitted on individual "
                                  "component of heterogeneous job") in p.stderr, p.stderr
    assert c.job_state(jid + 1) == "PENDING"
    assert c.run(["scancel", str(jid)]).returncode == 0
    c.wait_for(lambda: c.job_state(jid) == "CANCELLED" or None, what="the leader")
    assert c.job_state(jid + 1) == "CANCELLED"


def test_none_starts_until_all_fit(cluster):
    """The leader would fit beside a blocker, the second component would
    not: both wait (Resources) and both start once the blocker ends."""
    c = cluster
    gate = c.work / "gate"
    blocker = c.sbatch("-N3", "--exclusive", "-o", "/dev/null", "--wrap",
                       f"while [ ! -e {gate} ]; do sleep 0.1; done")
    c.wait_running(blocker)
    jid = c.sbatch("-N1", "-n1", "-o", "/dev/null", ":", "-N2", "--exclusive",
                   "--wrap", "sleep 1")
    c.wait_for(lambda: all(r[3] == "Resources" for r in _rows(c)
                           if r[0].startswith(f"{jid}+")) or None,
               what="both components waiting for resources")
    rows = {r[0]: r for r in _rows(c)}
    assert rows[f"{jid}+0"][2] == rows[f"{jid}+1"][2] == "PENDING", rows
    gate.write_text("")
    assert c.wait_job(jid) == "COMPLETED"
    assert c.job_state(jid + 1) == "COMPLETED"


def test_survives_a_restart(cluster):
    c = cluster
    jid = c.sbatch("-H", "-n1", ":", "-n1", "--wrap", "true")
    c.compact_journal()
    c.kill_daemon("rotactld")
    c.up()
    assert [r[0] for r in _rows(c)] == [f"{jid}+0", f"{jid}+1"]
    assert c.run(["scontrol", "release", str(jid)]).returncode == 0
    assert c.wait_job(jid) == "COMPLETED"


def test_refused_forms(cluster):
    c = cluster
    p = c.run(["salloc", "-n1", ":", "-p", "nosuch", "true"])
    assert (p.returncode, p.stderr) == (1, "salloc: error: Job submit/allocate "
                                           "failed: Invalid partition name "
                                           "specified\n"), p.stderr
    # a heterogeneous job is no job array, in Slurm's words (its test38.13
    # reads them), on the command line or with #SBATCH hetjob
    refused = (1, "sbatch: error: Batch job submission failed: Invalid job "
                  "array specification\n")
    p = c.run(["sbatch", "-a", "1-2", "-n1", ":", "-n1", "--wrap", "true"])
    assert (p.returncode, p.stderr) == refused, p.stderr
    script = write_script(c.work / "array.sh", "#!/bin/bash\n#SBATCH -a 0-1 -N1\n"
                          "#SBATCH hetjob\n#SBATCH -N1\ntrue\n")
    p = c.run(["sbatch", "-o", "/dev/null", str(script)])
    assert (p.returncode, p.stderr) == refused, p.stderr
    p = c.run(["sbatch", "-n1", ":", "-p", "nosuch", "--wrap", "true"])
    assert p.returncode == 1 and "Invalid partition name" in p.stderr, p.stderr
    assert _rows(c) == []


def test_requeue_is_the_whole_jobs(cluster):
    """scontrol requeue of the leader takes every component back; a
    component alone is refused, as Slurm does."""
    c = cluster
    jid = c.sbatch("--requeue", "-n1", "-o", "/dev/null", ":", "-n1",
                   "--wrap", "sleep 300")
    c.wait_running(jid)
    c.wait_for(lambda: c.job_state(jid + 1) == "RUNNING" or None, what="component 1")
    p = c.run(["scontrol", "requeue", str(jid + 1)])
    assert p.returncode != 0 and "Job not heterogeneous job leader" in p.stderr, \
        p.stderr
    assert c.run(["scontrol", "requeue", str(jid)]).returncode == 0
    for j in (jid, jid + 1):
        c.wait_for(lambda j=j: c.job_field(j, "Restarts") == "1" or None,
                   what=f"JobId={j} requeued")
    c.wait_for(lambda: c.job_state(jid) == "RUNNING" and
               c.job_state(jid + 1) == "RUNNING" or None, timeout=90,
               what="both running again")
    assert c.run(["scancel", str(jid)]).returncode == 0


def test_hetjob_word_only_as_a_separator(cluster):
    """Only "#SBATCH hetjob" alone on its line separates components: a job
    named hetjob is one job."""
    c = cluster
    script = write_script(c.work / "one.sh", "#!/bin/sh\n#SBATCH -J hetjob\n"
                          "#SBATCH --comment packjob\ntrue\n")
    jid = c.sbatch("-H", str(script))
    assert _rows(c)[0][:2] == [str(jid), str(jid)], _rows(c)
    assert c.job_field(jid, "JobName") == "hetjob"
    # N+K names a component of N: not the job after a plain job N
    after = c.sbatch("-H", "--wrap", "true")
    assert after == jid + 1
    p = c.run(["scancel", "-v", f"{jid}+1"])
    assert "Invalid job id specified" in p.stderr, p.stderr
    assert c.job_state(after) == "PENDING"
    assert c.run(["scancel", str(jid), str(after)]).returncode == 0


SALLOC_CMD = r"""
echo id=$SLURM_JOB_ID size=$SLURM_HET_SIZE g0=$SLURM_JOB_ID_HET_GROUP_0 \
     g1=$SLURM_JOB_ID_HET_GROUP_1 nodelist=${SLURM_JOB_NODELIST-unset} \
     nodes1=$SLURM_JOB_NUM_NODES_HET_GROUP_1 tpn1=$SLURM_TASKS_PER_NODE_HET_GROUP_1 \
     ntasks=$SLURM_NTASKS
srun bash -c 'echo step0 $SLURM_JOB_ID $SLURM_STEP_NUM_TASKS'
srun --het-group=1 bash -c 'echo step1 $SLURM_JOB_ID $SLURM_STEP_NUM_TASKS $SLURMD_NODENAME'
squeue -h -o '%i %T %l' | sort
"""


def test_salloc_with_components(cluster):
    """salloc A : B cmd: one allocation of two jobs that start together; the
    command gets Slurm's variables (the leader's SLURM_JOB_ID, SLURM_HET_SIZE,
    each component's with _HET_GROUP_n, no unsuffixed node list), srun runs
    in component 0 unless --het-group says, and both end with the command."""
    c = cluster
    p = c.run(["salloc", "-t", "9", "-N1", "-n1", ":", "-N2", "--ntasks-per-node=2",
               "bash", "-c", SALLOC_CMD], timeout=60)
    assert p.returncode == 0, p.stderr
    m = re.search(r"^salloc: Granted job allocation (\d+)$", p.stderr, re.M)
    assert m, p.stderr
    jid = int(m.group(1))
    assert f"Relinquishing job allocation {jid}" in p.stderr, p.stderr
    # components wait for a scheduling pass, never granted at submission:
    # Slurm's salloc says it in these lines (its test suite reads them)
    assert (f"salloc: Pending job allocation {jid}\n"
            f"salloc: job {jid} queued and waiting for resources\n"
            f"salloc: job {jid} has been allocated resources\n"
            f"salloc: Granted job allocation {jid}\n") in p.stderr, p.stderr
    text = p.stdout
    assert (f"id={jid} size=2 g0={jid} g1={jid + 1} nodelist=unset nodes1=2 "
            f"tpn1=2(x2) ntasks=5\n") in text, text
    assert re.findall(r"^step0 (\d+) (\d+)$", text, re.M) == [(str(jid), "1")], text
    step1 = re.findall(r"^step1 (\d+) (\d+) (\S+)$", text, re.M)
    # the leader's id, as Slurm (SLURM_JOB_ID_HET_GROUP_1 is the component's)
    assert len(step1) == 4 and {s[:2] for s in step1} == {(str(jid), "4")}, text
    assert len({s[2] for s in step1}) == 2, text
    # the time limit carried over to the second component, as Slurm's
    assert f"{jid}+0 RUNNING 9:00\n{jid}+1 RUNNING 9:00\n" in text, text
    for j in (jid, jid + 1):
        c.wait_for(lambda j=j: c.job_state(j) == "COMPLETED" or None,
                   what=f"JobId={j} completed")


def test_salloc_components_wait_and_are_revoked_together(cluster):
    """A component that cannot fit now keeps the whole allocation pending
    (salloc says so); cancelling the job revokes salloc's allocation and
    ends every component."""
    c = cluster
    gate = c.work / "salloc-gate"
    blocker = c.sbatch("-N2", "--exclusive", "-o", "/dev/null", "--wrap",
                       f"while [ ! -e {gate} ]; do sleep 0.1; done")
    c.wait_running(blocker)
    errf = c.work / "salloc-het.err"
    with open(errf, "w") as err:
        proc = subprocess.Popen(["salloc", "-N1", ":", "-N3", "sleep", "300"],
                                env=dict(c.env), cwd=str(c.work),
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
    jid = c.wait_for(lambda: next((int(r[1]) for r in _rows(c)
                                   if r[0].endswith("+0")), None),
                     what="the allocation queued")
    c.wait_for(lambda: f"salloc: job {jid} queued and waiting for resources\n"
               in errf.read_text() or None, what="salloc saying it waits")
    assert all(r[2] == "PENDING" for r in _rows(c) if r[0].startswith(f"{jid}+"))
    gate.touch()
    c.wait_for(lambda: c.job_state(jid + 1) == "RUNNING" or None,
               what="component 1 running")
    assert c.job_state(jid) == "RUNNING"
    assert c.run(["scancel", str(jid)]).returncode == 0
    assert proc.wait(timeout=30) != 0
    err = errf.read_text()
    assert f"salloc: Pending job allocation {jid}\n" in err, err
    assert f"salloc: Job allocation {jid} has been revoked.\n" in err, err
    for j in (jid, jid + 1):
        c.wait_for(lambda j=j: c.job_state(j) == "CANCELLED" or None,
                   what=f"JobId={j} cancelled")


def test_leader_id_names_every_component(cluster):
    """As Slurm: the leader's id stands for every component in squeue -j,
    scontrol show job, scontrol update and sacct -j; N+K names one."""
    c = cluster
    jid = c.sbatch("-H", "-t", "5", "-n1", ":", "-n1", ":", "-n1", "--wrap", "true")
    p = c.run(["squeue", "-h", "-j", str(jid), "-o", "%i"], check=True)
    assert sorted(p.stdout.split()) == [f"{jid}+0", f"{jid}+1", f"{jid}+2"], p.stdout
    # -O JobID is each record's own id, JobArrayID %i's; Slurm's het fields
    p = c.run(["squeue", "-h", "-j", str(jid), "-O",
               "JobID:6,HetJobOffset:4,HetJobID:6,HetJobIDSet:12,JobArrayID:8"],
              check=True)
    assert sorted(line.split() for line in p.stdout.splitlines()) == [
        [str(jid + k), str(k), str(jid), f"{jid}-{jid + 2}", f"{jid}+{k}"]
        for k in range(3)], p.stdout
    p = c.run(["scontrol", "show", "job", str(jid)], check=True)
    assert re.findall(r"^JobId=(\d+) ", p.stdout, re.M) == [
        str(jid), str(jid + 1), str(jid + 2)], p.stdout
    p = c.run(["scontrol", "show", "job", f"{jid}+1"], check=True)
    assert re.findall(r"^JobId=(\d+) ", p.stdout, re.M) == [str(jid + 1)], p.stdout
    # options carry over to the next component (but for the counts, the
    # layout, the partition...: Slurm's reset_each_pass), as Slurm's
    assert [c.job_field(j, "TimeLimit") for j in (jid, jid + 1, jid + 2)] == [
        "00:05:00"] * 3
    # "job=" is JobId=, as Slurm takes it from three letters
    assert c.run(["scontrol", "update", f"job={jid}", "TimeLimit=9"]).returncode == 0
    assert c.run(["scontrol", "update", f"JobId={jid}+2", "TimeLimit=7"]).returncode == 0
    assert [c.job_field(j, "TimeLimit") for j in (jid, jid + 1, jid + 2)] == [
        "00:09:00", "00:09:00", "00:07:00"]
    p = c.run(["scontrol", "update", f"JobId={jid}+5", "TimeLimit=7"])
    assert p.returncode == 1 and "Invalid job id specified" in p.stderr, p.stderr
    assert c.run(["scontrol", "release", str(jid)]).returncode == 0
    assert c.wait_job(jid) == "COMPLETED"

    def rows(spec):
        return c.run(["sacct", "-X", "-n", "-P", "-j", spec, "-o", "jobid"]).stdout.split()
    c.wait_for(lambda: rows(str(jid)) == [f"{jid}+0", f"{jid}+1", f"{jid}+2"] or None,
               what="every component in sacct -j N")
    assert rows(f"{jid}+1") == [f"{jid}+1"]


def test_running_component_cancelled_alone(cluster):
    """Slurm: scancel N+K of a running job ends that component only (with
    SchedulerParameters=whole_hetjob, all of them); the leader's id ends
    every component."""
    c = cluster
    jid = c.sbatch("-n1", "-o", "/dev/null", ":", "-n1", "--wrap", "sleep 300")
    c.wait_running(jid)
    c.wait_for(lambda: c.job_state(jid + 1) == "RUNNING" or None, what="component 1")
    assert c.run(["scancel", f"{jid}+1"]).returncode == 0
    c.wait_for(lambda: c.job_state(jid + 1) == "CANCELLED" or None, what="component 1")
    assert c.job_state(jid) == "RUNNING"
    assert c.run(["scancel", str(jid)]).returncode == 0
    c.wait_for(lambda: c.job_state(jid) == "CANCELLED" or None, what="the leader")


def _comp_nodes(c, jid, n):
    p = c.run(["squeue", "-h", "-j", str(jid), "-o", "%i %N"], check=True)
    rows = dict(line.split() for line in p.stdout.splitlines())
    return [rows.get(f"{jid}+{k}") for k in range(n)]


def test_components_never_share_a_node(cluster):
    """Slurm starts each component on nodes that the ones before it do not
    use (its test38.16 counts two nodes for `salloc -N1 : -N1`), though
    each would fit beside the other."""
    c = cluster
    jid = c.sbatch("-n1", "-o", "/dev/null", ":", "-n1", ":", "-n1", "--wrap",
                   "sleep 60")
    c.wait_running(jid)
    nodes = _comp_nodes(c, jid, 3)
    assert None not in nodes and len(set(nodes)) == 3, nodes
    assert c.run(["scancel", str(jid)]).returncode == 0
    # more single-node components than nodes: never started
    jid = c.sbatch("-n1", "-o", "/dev/null", ":", "-n1", ":", "-n1", ":", "-n1",
                   ":", "-n1", "--wrap", "true")
    c.wait_for(lambda: _rows(c) and all(r[2] == "PENDING" for r in _rows(c))
               or None, what="five components pending")
    assert c.run(["scancel", str(jid)]).returncode == 0
    c.wait_for(lambda: _rows(c) == [] or None, what="queue empty")


def test_required_nodes_are_kept_from_the_other_components(cluster):
    """A node one component requires (-w) is excluded from the others, as
    Slurm does: the job starts, the other components elsewhere; two requiring
    the same node are refused."""
    c = cluster
    jid = c.sbatch("-n1", "-o", "/dev/null", ":", "-n1", "-w", "node01", "--wrap",
                   "sleep 60")
    c.wait_running(jid)
    nodes = _comp_nodes(c, jid, 2)
    assert nodes[1] == "node01" and nodes[0] not in (None, "node01"), nodes
    assert c.run(["scancel", str(jid)]).returncode == 0
    p = c.run(["sbatch", "-w", "node02", "--wrap", "true", ":", "-w", "node02"])
    assert p.returncode == 1
    assert p.stderr == ("sbatch: error: Batch job submission failed: Invalid node "
                        "name specified\n"), p.stderr
    c.wait_for(lambda: _rows(c) == [] or None, what="queue empty")


def test_backfilled_components_never_share_a_node(cluster):
    """The same when backfill starts them: two nodes free beside a blocker,
    a waiting job ahead of them; the short heterogeneous job runs there,
    one component on each."""
    c = cluster
    gate = c.work / "gate2"
    blocker = c.sbatch("-N2", "--exclusive", "-t", "30", "-o", "/dev/null",
                       "--wrap", f"while [ ! -e {gate} ]; do sleep 0.1; done")
    c.wait_running(blocker)
    big = c.sbatch("-N4", "-t", "30", "-o", "/dev/null", "--wrap", "true")
    jid = c.sbatch("-t", "1", "-n1", "-o", "/dev/null", ":", "-n1", "--wrap",
                   "sleep 60")
    c.wait_running(jid, timeout=60)
    nodes = _comp_nodes(c, jid, 2)
    assert None not in nodes and len(set(nodes)) == 2, nodes
    for j in (jid, big, blocker):
        assert c.run(["scancel", str(j)]).returncode == 0
    gate.write_text("")
