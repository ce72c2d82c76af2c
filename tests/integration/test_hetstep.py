"""Steps over several components of a heterogeneous job: `srun a : b` and
`srun --het-group=0,1` in a heterogeneous allocation (sbatch's or salloc's),
and `srun a : b` outside one (a heterogeneous allocation of its own).  As
Slurm 22.05: one step id in every component, tasks numbered across the
components (one MPI_COMM_WORLD), SLURM_NTASKS the total, SLURM_JOB_ID the
leader's, SLURM_NODELIST every component's nodes; a component without a
command takes the next one's; a het-group beyond the job is refused in
Slurm's words."""

import re

from conftest import write_script
from test_mpi_pmi import HELLO_C, _compile, check_hello, needs_mpich

SCRIPT = r"""#!/bin/bash
#SBATCH -N1 -n1
#SBATCH hetjob
#SBATCH -N2 --ntasks-per-node=2
srun -l --het-group=0,1 bash -c 'echo "$SLURM_PROCID $SLURM_NTASKS $SLURM_NPROCS $SLURM_JOB_ID $SLURM_STEP_ID $SLURM_JOB_NODELIST $SLURM_NODELIST $SLURMD_NODENAME"'
srun --het-group=1 true
srun -l -n1 echo first : -n2 -N2 echo second
srun -l -n1 : -n1 printenv SLURM_STEP_ID
srun hostname : date : id
echo "third=$?"
srun -l -o het-%j.out -n1 echo one : -n2 echo two
"""

LINE_RE = re.compile(r"^(\d+): (\d+) (\d+) (\d+) (\d+) (\d+) (\S+) (\S+) (\S+)$", re.M)


def _nodes(c, jid):
    return c.job_field(jid, "NodeList")


def test_step_over_components_in_batch(cluster):
    c = cluster
    out = c.work / "hs.out"
    script = write_script(c.work / "hs.sh", SCRIPT)
    jid = c.sbatch("-o", str(out), str(script))
    assert c.wait_job(jid) == "COMPLETED", out.read_text()
    text = out.read_text()
    rows = LINE_RE.findall(text)
    # component 0's task is 0, component 1's are 1-4: one numbering
    assert sorted(int(r[0]) for r in rows) == list(range(5)), text
    for r in rows:
        assert r[0] == r[1], text                      # the label is the rank
        assert r[2:6] == ("5", "5", str(jid), "0"), text
    n0 = {r[8] for r in rows if r[0] == "0"}
    n1 = {r[8] for r in rows if r[0] != "0"}
    assert len(n0) == 1 and len(n1) == 2, text
    # the job's nodes are every component's
    assert len({r[6] for r in rows}) == 1 and len({r[7] for r in rows}) == 1, text
    # the next command's: component 0 runs the second command too
    assert sorted(re.findall(r"^(\d+): (first|second)$", text, re.M)) == [
        ("0", "first"), ("1", "second"), ("2", "second")], text
    # --het-group=1 took step 1 in component 1 only: the next step over
    # both is 3 in both (2 was the one before), the ids kept in step
    ids = re.findall(r"^(\d+): (\d+)$", text, re.M)
    assert sorted(ids) == [("0", "3"), ("1", "3")], text
    assert ("srun: error: Attempt to run a job step with het group value of 2, "
            "but the job allocation has maximum value of 1\n") in text, text
    assert "third=1\n" in text, text
    # one file for every task: srun writes it, labels and all (as Slurm)
    work = c.job_field(jid, "WorkDir")
    lines = open(f"{work}/het-{jid}.out").read().splitlines()
    assert sorted(lines) == ["0: one", "1: two", "2: two"], lines


def test_srun_components_without_allocation(cluster):
    """srun A : B outside an allocation: a heterogeneous allocation of two
    jobs, one step over both, and both end with srun."""
    c = cluster
    p = c.run(["srun", "-l", "-N1", "-n1", ":", "-N1", "-n2", "bash", "-c",
               "echo $SLURM_PROCID/$SLURM_NTASKS $SLURM_JOB_ID "
               "$SLURM_HET_SIZE $SLURM_JOB_ID_HET_GROUP_1"], timeout=60)
    assert p.returncode == 0, p.stderr
    rows = sorted(re.findall(r"^(\d+): (\d+)/(\d+) (\d+) (\d+) (\d+)$", p.stdout,
                             re.M))
    assert [r[:3] for r in rows] == [("0", "0", "3"), ("1", "1", "3"),
                                     ("2", "2", "3")], p.stdout
    jid = int(rows[0][3])
    assert {r[3:] for r in rows} == {(str(jid), "2", str(jid + 1))}, p.stdout
    for j in (jid, jid + 1):
        c.wait_for(lambda j=j: c.job_state(j) == "COMPLETED" or None,
                   what=f"JobId={j} completed")


def test_refused_forms(cluster):
    c = cluster
    p = c.run(["srun", "--het-group=0,1", "true"])
    assert (p.returncode, p.stderr) == (1, "srun: error: --het-group: not inside a "
                                           "heterogeneous job\n"), p.stderr
    p = c.run(["srun", "--het-group=1-x", "true"])
    assert (p.returncode, p.stderr) == (1, "srun: error: Invalid --het-group value: "
                                           "1-x\n"), p.stderr
    # a plain job's allocation has no components to name
    jid = c.sbatch("-n2", "-o", "/dev/null", "--wrap", "sleep 60")
    c.wait_running(jid)
    p = c.run(["srun", "--jobid", str(jid), "--het-group=0", "true", ":", "-n1",
               "true"])
    assert (p.returncode, p.stderr) == (1, "srun: error: --het-group: not inside a "
                                           "heterogeneous job\n"), p.stderr
    assert c.run(["scancel", str(jid)]).returncode == 0


PARTS = r"""#!/bin/bash
srun -l -N1 -n2 bash -c 'echo "$SLURM_PROCID $SLURM_NTASKS $SLURM_JOB_ID $SLURM_STEP_ID $SLURMD_NODENAME"' : -N2 -n2 bash -c 'echo "$SLURM_PROCID $SLURM_NTASKS $SLURM_JOB_ID $SLURM_STEP_ID $SLURMD_NODENAME"'
srun -N2 true : -N2 true
echo "four=$?"
n=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -1)
srun -w $n true : -w $n true
echo "same=$?"
srun -l -n1 hostname : -n1 hostname
"""


def test_parts_of_one_job(cluster):
    """Slurm's heterogeneous steps (20.11): in a job that is not
    heterogeneous, `srun A : B` runs each part with its own layout on nodes
    of its own, the tasks numbered across both."""
    c = cluster
    out = c.work / "parts.out"
    script = write_script(c.work / "parts.sh", PARTS)
    jid = c.sbatch("-N3", "--ntasks-per-node=2", "-o", str(out), str(script))
    assert c.wait_job(jid) == "COMPLETED", out.read_text()
    text = out.read_text()
    rows = re.findall(r"^(\d): (\d) (\d) (\d+) (\d+) (\S+)$", text, re.M)
    assert sorted(r[:3] for r in rows) == [("0", "0", "4"), ("1", "1", "4"),
                                           ("2", "2", "4"), ("3", "3", "4")], text
    assert {r[3] for r in rows} == {str(jid)} and len({r[4] for r in rows}) == 1, text
    first = {r[5] for r in rows if r[0] in "01"}
    second = {r[5] for r in rows if r[0] in "23"}
    assert len(first) == 1 and len(second) == 2 and not first & second, text
    # four nodes on three, one node twice: refused, not waiting, in
    # Slurm's words (its test38.19 reads them)
    assert ("srun: error: Allocation failure of 2 nodes: job size of 3, already "
            "allocated 2 nodes to previous components.\n") in text, text
    assert "four=1\n" in text, text
    assert re.search(r"^srun: error: Requested nodelist (\S+) overlaps with "
                     r"excluded \1\.\nsrun: error: Job not submitted\.\n"
                     r"same=1$", text, re.M), text
    # counts from the allocation's environment give way to each part's
    hosts = re.findall(r"^([01]): (\S+)$", text, re.M)
    assert sorted(h[0] for h in hosts) == ["0", "1"], text
    assert hosts[0][1] != hosts[1][1], text


@needs_mpich
def test_mpi_comm_world_spans_components(cluster):
    """MPICH over PMI-2: ranks of both components in one MPI_COMM_WORLD, an
    MPI_Allreduce over all of them."""
    c = cluster
    _compile(c.work, "hello", HELLO_C, "mpicc.mpich")
    write_script(c.work / "mpi.sh", "#!/bin/bash\n#SBATCH -N1 -n1 --exclusive\n"
                 "#SBATCH hetjob\n#SBATCH -N2 -n2 --exclusive\n"
                 "srun --mpi=pmi2 ./hello : ./hello\n")
    jid = c.sbatch("-o", "mpi-%j.out", "mpi.sh", cwd=c.work)
    state = c.wait_job(jid, timeout=120)
    text = (c.work / f"mpi-{jid}.out").read_text()
    assert state == "COMPLETED", text
    check_hello(text, 3, 3)


def test_signal_reaches_every_component(cluster):
    """srun forwards SIGTERM to its step in each component: every task ends,
    and srun with them."""
    c = cluster
    out = c.work / "sig.out"
    script = write_script(c.work / "sig.sh", "#!/bin/bash\n#SBATCH -n1\n"
                          "#SBATCH hetjob\n#SBATCH -N2 -n2\n"
                          "srun -l --het-group=0,1 bash -c 'echo up; exec sleep 300' &\n"
                          "pid=$!\n"
                          "for i in $(seq 300); do\n"
                          "  [ \"$(grep -c up " + str(out) + ")\" = 3 ] && break\n"
                          "  sleep 0.1\ndone\n"
                          "kill -TERM $pid\nwait $pid\necho srun=$?\n")
    jid = c.sbatch("-o", str(out), "-t", "2", str(script))
    assert c.wait_job(jid, timeout=100) == "COMPLETED", out.read_text()
    text = out.read_text()
    assert sorted(re.findall(r"^(\d): up$", text, re.M)) == ["0", "1", "2"], text
    # killed by the signal, not by the time limit
    assert re.search(r"^srun=\d+$", text, re.M), text
    assert c.job_state(jid + 1) == "COMPLETED"


def test_het_group_lists_in_parts(cluster):
    """Slurm's test38.17: a part may name several components, parts out of
    order; the tasks are numbered in the components' order."""
    c = cluster
    out = c.work / "l.out"
    script = write_script(c.work / "l.sh", "#!/bin/bash\n#SBATCH -n1\n#SBATCH hetjob\n"
                          "#SBATCH -n1\n#SBATCH hetjob\n#SBATCH -n1\n"
                          "srun -l --het-group=0,2 echo A : --het-group=1 echo B\n"
                          "srun -l --het-group=1 echo C : --het-group=1 echo D\n"
                          "echo twice=$?\n")
    jid = c.sbatch("-o", str(out), str(script))
    assert c.wait_job(jid) == "COMPLETED", out.read_text()
    text = out.read_text()
    assert sorted(re.findall(r"^(\d): ([ABCD])$", text, re.M)) == [
        ("0", "A"), ("1", "B"), ("2", "A")], text
    assert ("srun: fatal: Duplicate het groups in single srun not supported\n"
            in text and "twice=1" in text), text


def test_nodes_in_the_clusters_order(cluster):
    """As Slurm orders a heterogeneous step's nodes (for MPI): by the
    cluster's order, whatever the components' order; the ranks stay the
    components'."""
    c = cluster
    out = c.work / "o.out"
    script = write_script(c.work / "o.sh", "#!/bin/bash\n#SBATCH -w node03 -n1\n"
                          "#SBATCH hetjob\n#SBATCH -w node01 -n1\n"
                          "srun -l --het-group=0,1 bash -c "
                          "'echo $SLURM_NODEID $SLURMD_NODENAME $SLURM_NODELIST'\n")
    jid = c.sbatch("-o", str(out), str(script))
    assert c.wait_job(jid) == "COMPLETED", out.read_text()
    text = out.read_text()
    assert sorted(re.findall(r"^(\d): (\d) (\S+) (\S+)$", text, re.M)) == [
        ("0", "1", "node03", "node[01,03]"), ("1", "0", "node01", "node[01,03]")], text


def test_srun_output_files(cluster):
    """The file srun writes (one for every task, as Slurm): -o and -e naming
    the same file share it; a file that cannot be opened ends the step with
    Slurm's words; a part's own -o in a heterogeneous step is its own."""
    c = cluster
    w = c.work
    p = c.run(["srun", "-n2", "-o", str(w / "same.txt"), "-e", str(w / "same.txt"),
               "bash", "-c", "echo out; sleep 0.2; echo err >&2"], timeout=60)
    assert p.returncode == 0, p.stderr
    assert sorted((w / "same.txt").read_text().splitlines()) == [
        "err", "err", "out", "out"]
    p = c.run(["srun", "-o", str(w / "no/such/dir/f"), "true"], timeout=60)
    assert p.returncode == 1 and ("srun: error: Could not open stdout file "
                                  f"{w}/no/such/dir/f: No such file or directory"
                                  ) in p.stderr, p.stderr
    script = write_script(w / "own.sh", "#!/bin/bash\n#SBATCH -n1\n#SBATCH hetjob\n"
                          "#SBATCH -n1\n"
                          f"srun -o {w}/a.txt echo A : -o {w}/b.txt echo B\n")
    jid = c.sbatch("-o", "/dev/null", str(script))
    assert c.wait_job(jid) == "COMPLETED"
    assert (w / "a.txt").read_text() == "A\n"
    assert (w / "b.txt").read_text() == "B\n"


def test_jobid_names_components_from_outside(cluster):
    """srun --jobid=N --het-group=K and --jobid=N+K from outside N's
    allocation: Slurm's srun looks the job up."""
    c = cluster
    jid = c.sbatch("-w", "node01", "-n1", "-o", "/dev/null", ":", "-w", "node02",
                   "-n1", "--wrap", "sleep 120")
    c.wait_running(jid)
    c.wait_for(lambda: c.job_state(jid + 1) == "RUNNING" or None, what="component 1")
    p = c.run(["srun", f"--jobid={jid}+1", "printenv", "SLURMD_NODENAME"], timeout=60)
    assert (p.returncode, p.stdout) == (0, "node02\n"), p.stderr
    p = c.run(["srun", "--jobid", str(jid), "--het-group=0,1", "-l", "printenv",
               "SLURMD_NODENAME"], timeout=60)
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.splitlines()) == ["0: node01", "1: node02"], p.stdout
    assert c.run(["scancel", str(jid)]).returncode == 0


def test_het_group_outside_an_allocation(cluster):
    """Outside an allocation, `srun --het-group=N cmd` is a job of its own
    (Slurm's srun leaves the group unused); test38.11 makes its directories
    so.  Several groups stay refused."""
    c = cluster
    for g in ("0", "1"):
        p = c.run(["srun", "-N1", "-n1", f"--het-group={g}", "printenv",
                   "SLURM_JOB_ID"], timeout=60)
        assert p.returncode == 0 and p.stdout.strip().isdigit(), p.stderr
        assert "HET" not in p.stderr, p.stderr

