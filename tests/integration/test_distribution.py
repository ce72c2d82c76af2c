"""srun -m/--distribution: which task ids each node runs (Slurm's block,
cyclic, plane=N and arbitrary from SLURM_HOSTFILE or -w), seen by the tasks
(SLURM_PROCID, SLURM_GTIDS, SLURM_DISTRIBUTION), by srun -l and -v, by
sattach --layout, and passed by sbatch and salloc to their steps; bad
specifications are refused."""

import re

import pytest

from conftest import write_script

TASK_SH = "#!/bin/sh\necho \"$SLURMD_NODENAME $SLURM_PROCID $SLURM_GTIDS " \
          "${SLURM_DISTRIBUTION:-none} ${SLURM_DIST_PLANESIZE:-none}\"\n"


def _tasks(cluster, *args):
    prog = write_script(cluster.work / "task.sh", TASK_SH)
    p = cluster.run(["srun", *args, str(prog)], timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = [line.split() for line in p.stdout.splitlines()]
    by_node = {}
    for node, procid, gtids, dist, plane in rows:
        by_node.setdefault(node, set()).add(int(procid))
        assert gtids == ",".join(str(t) for t in sorted(
            int(r[1]) for r in rows if r[0] == node)), rows
    return [sorted(v) for _, v in sorted(by_node.items())], rows, p.stderr


def test_cyclic_deals_ids_to_the_nodes_in_turn(cluster):
    nodes, rows, err = _tasks(cluster, "-N2", "--ntasks-per-node=2", "-m", "cyclic",
                              "-v")
    assert nodes == [[0, 2], [1, 3]], rows
    assert {r[3] for r in rows} == {"cyclic"}
    nodes, rows, _ = _tasks(cluster, "-N2", "--ntasks-per-node=2", "-m", "block:cyclic")
    assert {r[3] for r in rows} == {"block:cyclic"}, rows  # as given
    launched = re.findall(r"^srun: launching StepId=\d+\.0 on host (\S+), 2 tasks: "
                          r"(\S+)$", err, re.M)
    assert sorted(t for _, t in launched) == ["0,2", "1,3"], err


def test_block_is_the_default(cluster):
    nodes, rows, _ = _tasks(cluster, "-N2", "--ntasks-per-node=2")
    assert nodes == [[0, 1], [2, 3]], rows
    assert {r[3] for r in rows} == {"none"}
    nodes, rows, _ = _tasks(cluster, "-N2", "--ntasks-per-node=2", "-m", "nopack")
    assert nodes == [[0, 1], [2, 3]], rows


def test_plane_deals_blocks_of_n(cluster):
    """plane=2, 6 tasks over 2 nodes: blocks 0-1, 2-3, 4-5 dealt in turn
    (node one runs 4 of them); plane=4: 4 then 2."""
    nodes, rows, _ = _tasks(cluster, "-N2", "-n6", "--ntasks-per-node=4",
                            "--distribution=plane=2")
    assert nodes == [[0, 1, 4, 5], [2, 3]], rows
    assert {(r[3], r[4]) for r in rows} == {("plane", "2")}
    nodes, rows, _ = _tasks(cluster, "-N2", "-n6", "--ntasks-per-node=4", "-m",
                            "plane=4")
    assert nodes == [[0, 1, 2, 3], [4, 5]], rows
    # one task on each node first, as Slurm: never a node without one
    nodes, rows, _ = _tasks(cluster, "-N2", "-n2", "-m", "plane=2")
    assert nodes == [[0], [1]], rows
    nodes, rows, _ = _tasks(cluster, "-N3", "-n5", "-m", "plane=4")
    assert nodes == [[0, 1, 2], [3], [4]], rows


def test_labels_follow_the_ids(cluster):
    p = cluster.run(["srun", "-N2", "--ntasks-per-node=2", "-m", "cyclic", "-l",
                     "sh", "-c", "echo $SLURMD_NODENAME"], timeout=60)
    assert p.returncode == 0, p.stderr
    lines = sorted(p.stdout.splitlines())
    hosts = [line.split(": ")[1] for line in lines]
    assert hosts[0] == hosts[2] and hosts[1] == hosts[3] and hosts[0] != hosts[1], lines


def test_batch_job_passes_its_distribution_to_its_steps(cluster):
    out = cluster.work / "dist.out"
    prog = write_script(cluster.work / "task.sh", TASK_SH)
    jid = cluster.sbatch("-N2", "--ntasks-per-node=2", "-m", "cyclic", "-o", str(out),
                         "--wrap", f"echo batch $SLURM_DISTRIBUTION; srun {prog}")
    assert cluster.wait_job(jid) == "COMPLETED", out.read_text()
    text = out.read_text()
    assert "batch cyclic" in text, text
    rows = [line.split() for line in text.splitlines() if not line.startswith("batch")]
    by_node = {}
    for r in rows:
        by_node.setdefault(r[0], []).append(int(r[1]))
    assert sorted(sorted(v) for v in by_node.values()) == [[0, 2], [1, 3]], text


def test_sattach_layout_shows_the_ids(cluster):
    p = cluster.run("srun -N2 --ntasks-per-node=2 -m cyclic sleep 30 & "
                    "for i in $(seq 50); do j=$(squeue -h -s -o %i | grep '\\.0$' "
                    "| head -1); [ -n \"$j\" ] && break; sleep 0.2; done; "
                    "sattach --layout $j; scancel ${j%.0}; wait", timeout=90)
    assert re.search(r"Node 0 \(\S+\), 2 task\(s\): 0 2 \n", p.stdout), p.stdout
    assert re.search(r"Node 1 \(\S+\), 2 task\(s\): 1 3 \n", p.stdout), p.stdout


def test_bad_specifications_are_refused(cluster):
    for spec, msg in (("round", "Invalid --distribution specification"),
                      ("plane", "Invalid plane size or size not specified"),
                      ("cyclic:dealt", "Invalid --distribution specification"),
                      ("plane=2:block", "Invalid --distribution specification")):
        p = cluster.run(["srun", "-m", spec, "true"])
        assert (p.returncode, p.stderr) == (1, f"srun: error: {msg}\n"), spec
        p = cluster.run(["sbatch", "-m", spec, "--wrap", "true"])
        assert p.returncode == 1 and msg in p.stderr, (spec, p.stderr)
    p = cluster.run(["srun", "-m", "plane", "true"], env={"SLURM_DIST_PLANESIZE": "3"})
    assert p.returncode == 0, p.stderr


def _by_task(rows):
    return [r[0] for r in sorted(rows, key=lambda r: int(r[1]))]


def test_arbitrary_puts_each_task_on_its_listed_node(cluster):
    """SLURM_HOSTFILE names task n's node on line n (repeats, comments,
    name*N); -n takes the first n; without -m a hostfile alone means
    arbitrary, as in Slurm."""
    hf = cluster.work / "hosts"
    hf.write_text("node02\n# a comment\nnode01,node02  # two\nnode03*2\n")
    env = {"SLURM_HOSTFILE": str(hf)}
    prog = write_script(cluster.work / "task.sh", TASK_SH)
    p = cluster.run(["srun", "-m", "arbitrary", "-l", "-v", str(prog)], env=env,
                    timeout=60)
    assert p.returncode == 0, p.stderr
    rows = [line.split(": ", 1)[1].split() for line in p.stdout.splitlines()]
    assert _by_task(rows) == ["node02", "node01", "node02", "node03", "node03"], rows
    assert {r[3] for r in rows} == {"arbitrary"}, rows
    gtids = {r[0]: r[2] for r in rows}
    assert gtids == {"node01": "1", "node02": "0,2", "node03": "3,4"}, rows
    for line in p.stdout.splitlines():  # -l labels are the task ids
        label, rest = line.split(": ", 1)
        assert rest.split()[1] == label.strip(), line
    launched = dict(re.findall(r"^srun: launching StepId=\d+\.0 on host (\S+), "
                               r"\d+ tasks: (\S+)$", p.stderr, re.M))
    assert launched == {"node01": "1", "node02": "0,2", "node03": "3-4"}, p.stderr
    p = cluster.run(["srun", "-n2", str(prog)], env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines()]
    assert _by_task(rows) == ["node02", "node01"], rows


def test_arbitrary_follows_the_node_list_given(cluster):
    prog = write_script(cluster.work / "task.sh", TASK_SH)
    p = cluster.run(["srun", "-m", "arbitrary", "-w", "node03,node01,node03",
                     str(prog)], timeout=60)
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines()]
    assert _by_task(rows) == ["node03", "node01", "node03"], rows
    # -F/--nodefile and a -w with a '/' read the list from a file; a job
    # not laid out by it gets each node once
    nf = cluster.work / "nodes"
    nf.write_text("node04\nnode02,node04\n")
    for opt in (["-F", str(nf)], ["--nodefile", str(nf)], ["-w", f"./{nf.name}"]):
        jid = cluster.sbatch("-H", *opt, "--wrap", "true")
        assert cluster.job_field(jid, "ReqNodeList") == "node[02,04]", opt
        cluster.run(["scancel", str(jid)])
    p = cluster.run(["srun", "-m", "arbitrary", "-F", str(nf), str(prog)], timeout=60)
    rows = [line.split() for line in p.stdout.splitlines()]
    assert _by_task(rows) == ["node04", "node02", "node04"], p.stderr
    p = cluster.run(["sbatch", "-F", str(cluster.work / "none"), "--wrap", "true"])
    assert p.returncode == 1 and "Invalid --nodefile node file" in p.stderr, p.stderr


def test_arbitrary_in_a_batch_job_and_its_steps(cluster):
    """sbatch -m arbitrary: the job gets the hostfile's nodes, and its srun
    lays the tasks out as the file says."""
    hf = cluster.work / "hosts"
    hf.write_text("node04\nnode02\nnode04\n")
    out = cluster.work / "arb.out"
    prog = write_script(cluster.work / "task.sh", TASK_SH)
    jid = cluster.sbatch("-m", "arbitrary", "-o", str(out), "--wrap",
                         f"echo batch $SLURM_JOB_NODELIST $SLURM_NTASKS; srun {prog}",
                         env={"SLURM_HOSTFILE": str(hf)})
    assert cluster.wait_job(jid) == "COMPLETED", out.read_text()
    text = out.read_text()
    assert "batch node[02,04] 3\n" in text, text
    rows = [line.split() for line in text.splitlines() if not line.startswith("batch")]
    assert _by_task(rows) == ["node04", "node02", "node04"], text


def test_arbitrary_with_too_short_a_list_is_refused(cluster):
    hf = cluster.work / "hosts"
    hf.write_text("node01\nnode02\n")
    for cmd in (["srun", "-n3", "-m", "arbitrary", "true"],
                ["sbatch", "-n3", "-m", "arbitrary", "--wrap", "true"]):
        p = cluster.run(cmd, env={"SLURM_HOSTFILE": str(hf)})
        assert p.returncode == 1, p.stderr
        assert f"{cmd[0]}: error: Failure getting NodeNames from hostfile" in p.stderr, \
            p.stderr
    hf.write_text("-bad\n")
    p = cluster.run(["srun", "-m", "arbitrary", "true"], env={"SLURM_HOSTFILE": str(hf)})
    assert p.returncode == 1 and "Invalid hostfile" in p.stderr, p.stderr


@pytest.mark.parametrize("spec,env", [
    ("*", "block"), ("*:*", "block:cyclic"), ("*:*:*", "block:cyclic:cyclic"),
    ("*:block:*", "block:block:block"), ("*,pack", "block,pack"),
    ("block:block:block,nopack", "block:block:block,nopack"), ("nopack", "nopack")])
def test_distribution_env_spells_out_defaults(cluster, spec, env):
    """SLURM_DISTRIBUTION names each level's default where -m gave "*"
    (Slurm's test1.120)."""
    p = cluster.run(["srun", "-n1", "-m", spec, "printenv", "SLURM_DISTRIBUTION"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == env


def test_exclude_and_relative_inside_an_allocation(cluster):
    """In an allocation, srun -x keeps the step off those of the job's nodes
    (Slurm's test1.86); -r N needs the nodes asked (-N, else the allocation's
    count) to fit from the N-th on, in Slurm's words (test1.87)."""
    script = ("srun -l -N1 -n1 -x node01 printenv SLURMD_NODENAME; "
              "srun -N1 -n1 -w node01 -x node01 true || echo refused; "
              "srun -N2 -n2 -O -r 3 true || echo refused; "
              "srun -l -r 3 true || echo refused; "
              "srun -l -N1 -r 3 printenv SLURMD_NODENAME")
    p = cluster.run(["salloc", "-N4", "-w", "node[01-04]", "bash", "-c", script])
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["0: node02", "refused", "refused", "refused",
                                     "0: node04"], p.stdout
    assert "Requested node configuration is not available" in p.stderr
    assert ("srun: error: --relative and --nodes option incompatible with count of "
            "allocated nodes (3+2>4)\n") in p.stderr, p.stderr
    assert ("srun: error: --relative and SLURM_JOB_NUM_NODES option incompatible with "
            "count of allocated nodes (3+4>4)\n") in p.stderr, p.stderr
    assert "conflicts with allocated node count" not in p.stderr, p.stderr


def test_nodelist_inside_an_allocation_takes_the_node_count_asked(cluster):
    """srun -w in an allocation runs on those nodes and, when -N (or the
    allocation's SLURM_JOB_NUM_NODES) asks more, on the job's first others, in
    node order (Slurm's test1.59); -N more than -x leaves is refused."""
    script = ("srun -l -w node03 -O printenv SLURMD_NODENAME | sort; "
              "srun -l -N2 -w node03 printenv SLURMD_NODENAME | sort; "
              "srun -l -N1 -w node03 printenv SLURMD_NODENAME; "
              "srun -N3 -w node03 -x node01 true || echo refused")
    p = cluster.run(["salloc", "-N3", "-w", "node[01-03]", "bash", "-c", script])
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "0: node01", "1: node02", "2: node03",
        "0: node01", "1: node03",
        "0: node03",
        "refused"], p.stdout
    assert "Requested node configuration is not available" in p.stderr, p.stderr
    assert "conflicts with allocated node count" not in p.stderr, p.stderr
