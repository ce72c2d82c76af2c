"""Steps divide their job's allocation as in Slurm 21.08+: a step holds all CPUs
of its nodes, or with --exact (or -c) only ntasks x cpus-per-task; a step that
does not fit beside the running ones waits ("step creation temporarily
disabled") and one that never can fails; --overlap shares everything; -r and -w
pick the step's nodes; the step's CPUs are its cpuset (nproc); --cpu-bind=cores
binds each task to its own share."""

import os
import re

import pytest


def _script(cluster, tmp_path, text, *args):
    """Submit text as a batch script run in tmp_path; returns the job id."""
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\n" + text)
    return cluster.sbatch("-D", str(tmp_path), "-o", str(tmp_path / "out"),
                          "-e", str(tmp_path / "err"), *args, str(script))


# a task that says it started (file $1) and holds on until the file "go"
HOLD = "sh -c 'touch $0; while [ ! -e go ]; do sleep 0.1; done'"


def test_exact_steps_share_and_third_waits(cluster, tmp_path):
    jobid = _script(cluster, tmp_path, f"""
srun --exact -n1 -c4 {HOLD} A &
srun --exact -n1 -c4 {HOLD} B &
while [ ! -e A ] || [ ! -e B ]; do sleep 0.1; done
srun --exact -n1 -c4 touch C 2> c.err &
wait
""", "-N1", "-n8")
    cluster.wait_for(lambda: (tmp_path / "A").exists() and (tmp_path / "B").exists(),
                     timeout=30, what="two --exact -c4 steps at once in 8 CPUs")
    cluster.wait_for(lambda: (tmp_path / "c.err").exists() and "temporarily disabled"
                     in (tmp_path / "c.err").read_text(), timeout=30,
                     what="the third step waiting")
    err = (tmp_path / "c.err").read_text()
    assert err.startswith(f"srun: Job {jobid} step creation temporarily disabled, "
                          "retrying (Requested nodes are busy)\n")
    assert not (tmp_path / "C").exists()
    (tmp_path / "go").touch()
    assert cluster.wait_job(jobid, timeout=60) == "COMPLETED"
    assert (tmp_path / "C").exists()
    err = (tmp_path / "c.err").read_text()
    assert f"srun: Step created for StepId={jobid}.2\n" in err


def test_whole_node_steps_wait_without_exact(cluster, tmp_path):
    jobid = _script(cluster, tmp_path, f"""
srun -n1 {HOLD} A &
while [ ! -e A ]; do sleep 0.1; done
srun -n1 touch B 2> b.err &
wait
""", "-N1", "-n8")
    cluster.wait_for(lambda: (tmp_path / "b.err").exists() and "temporarily disabled"
                     in (tmp_path / "b.err").read_text(), timeout=30,
                     what="the second step waiting for the whole node")
    assert not (tmp_path / "B").exists()
    (tmp_path / "go").touch()
    assert cluster.wait_job(jobid, timeout=60) == "COMPLETED"
    assert (tmp_path / "B").exists()


def test_overlap_steps_run_beyond_the_cpus(cluster, tmp_path):
    jobid = _script(cluster, tmp_path, f"""
srun -n1 {HOLD} A &
while [ ! -e A ]; do sleep 0.1; done
srun --overlap -n1 {HOLD} B &
srun --overlap --exact -n1 -c8 {HOLD} C &
wait
""", "-N1", "-n8")
    try:
        cluster.wait_for(lambda: all((tmp_path / f).exists() for f in "ABC"),
                         timeout=30, what="overlapping steps running together")
    finally:
        (tmp_path / "go").touch()
    assert cluster.wait_job(jobid, timeout=60) == "COMPLETED"
    assert "temporarily disabled" not in (tmp_path / "err").read_text()


def test_relative_runs_on_the_nth_node(cluster, tmp_path):
    jobid = _script(cluster, tmp_path, """
scontrol show hostnames "$SLURM_JOB_NODELIST"
srun -r 1 -N1 -n1 printenv SLURMD_NODENAME
srun -r 0 -N1 -n1 printenv SLURMD_NODENAME
srun -r 2 -N1 -n1 true || echo "r2 rc=$?"
""", "-N2")
    assert cluster.wait_job(jobid, timeout=60) == "COMPLETED"
    lines = (tmp_path / "out").read_text().splitlines()
    first, second = lines[0], lines[1]
    assert lines[2:] == [second, first, "r2 rc=1"]
    err = (tmp_path / "err").read_text()
    assert ("srun: error: --relative and --nodes option incompatible with count of "
            "allocated nodes (2+1>2)") in err, err


def test_relative_outside_an_allocation_is_fatal(cluster):
    p = cluster.run(["srun", "-r", "1", "true"])
    assert p.returncode == 1
    assert "srun: fatal: --relative option invalid for job allocation request" in p.stderr


def test_step_nodelist_outside_the_allocation(cluster, tmp_path):
    jobid = _script(cluster, tmp_path, """
srun -w node02 true; echo "rc=$?"
srun -w node01 printenv SLURMD_NODENAME
""", "-N1", "-w", "node01")
    assert cluster.wait_job(jobid, timeout=60) == "COMPLETED"
    assert (tmp_path / "out").read_text() == "rc=1\nnode01\n"
    err = (tmp_path / "err").read_text()
    assert err == (f"srun: error: Unable to create step for job {jobid}: Requested node "
                   "configuration is not available\n")


def test_impossible_step_fails(cluster, tmp_path):
    jobid = _script(cluster, tmp_path, """
srun --exact -n1 -c16 true; echo "rc=$?"
srun -n9 true; echo "rc=$?"
srun -O -n9 true; echo "rc=$?"
""", "-N1", "-n8")
    assert cluster.wait_job(jobid, timeout=60) == "COMPLETED"
    assert (tmp_path / "out").read_text() == "rc=1\nrc=1\nrc=0\n"
    msg = (f"srun: error: Unable to create step for job {jobid}: More processors "
           "requested than permitted\n")
    assert (tmp_path / "err").read_text() == msg + msg


def test_exact_step_cpuset_is_its_own(cluster, tmp_path):
    jobid = _script(cluster, tmp_path, "srun --exact -n1 -c1 nproc\n", "-N1", "-c4")
    assert cluster.wait_job(jobid, timeout=60) == "COMPLETED"
    assert (tmp_path / "out").read_text() == "1\n"


def test_steps_show_their_cpus(cluster, tmp_path):
    jobid = _script(cluster, tmp_path, f"""
srun --exact -n1 -c3 {HOLD} A &
wait
""", "-N1", "-n8")
    try:
        cluster.wait_for(lambda: (tmp_path / "A").exists(), timeout=30, what="step")
        p = cluster.run(["scontrol", "show", "step", f"{jobid}.0"])
        assert " CPUs=3 Tasks=1 " in p.stdout, p.stdout
    finally:
        (tmp_path / "go").touch()
    assert cluster.wait_job(jobid, timeout=60) == "COMPLETED"


def test_step_memory(cluster, tmp_path):
    jobid = _script(cluster, tmp_path, f"""
srun --exact -n1 --mem=600 {HOLD} A &
while [ ! -e A ]; do sleep 0.1; done
srun --exact -n1 --mem=600 touch B 2> b.err &
srun --exact -n1 --mem=2000 true; echo "rc=$?"
while ! grep -q disabled b.err 2>/dev/null; do sleep 0.1; done
test -e B || echo "B waits"
touch go
wait
""", "-N1", "-n2", "--mem=1000")
    assert cluster.wait_job(jobid, timeout=60) == "COMPLETED"
    assert (tmp_path / "out").read_text() == "rc=1\nB waits\n"
    assert (tmp_path / "err").read_text() == (
        f"srun: error: Unable to create step for job {jobid}: Memory required by task "
        "is not available\n")
    assert (tmp_path / "B").exists()
    assert f"srun: Step created for StepId={jobid}.1\n" in (tmp_path / "b.err").read_text()


def _allowed(out):
    """task -> set of CPUs, from labelled Cpus_allowed_list lines."""
    cpus = {}
    for line in out.splitlines():
        task, _, rest = line.partition(": ")
        ids = set()
        for part in rest.split(":", 1)[1].strip().split(","):
            lo, _, hi = part.partition("-")
            ids.update(range(int(lo), int(hi or lo) + 1))
        cpus[int(task)] = ids
    return cpus


def test_cpu_bind_cores_gives_each_task_its_own(cluster):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two CPUs")
    cmd = ["srun", "-N1", "-n2", "-l", "--cpu-bind=cores", "grep", "Cpus_allowed_list",
           "/proc/self/status"]
    p = cluster.run(cmd, check=True)
    cpus = _allowed(p.stdout)
    assert sorted(cpus) == [0, 1]
    assert cpus[0] and cpus[1] and not cpus[0] & cpus[1], p.stdout
    # without binding both tasks share the step's CPUs
    p = cluster.run(cmd[:4] + ["--cpu-bind=none"] + cmd[5:], check=True)
    cpus = _allowed(p.stdout)
    assert cpus[0] == cpus[1] and len(cpus[0]) == 2, p.stdout


def test_cpu_bind_map_and_mask(cluster):
    """map_cpu gives task i the i-th listed CPU, mask_cpu the i-th mask (the
    node's CPU ids); verbose says so on each task's stderr in Slurm's words."""
    host = sorted(os.sched_getaffinity(0))
    if len(host) < 2:
        pytest.skip("needs two CPUs")
    base = ["srun", "-N1", "-n2", "-l", "--exclusive", "-w", "node02"]
    show = ["grep", "Cpus_allowed_list", "/proc/self/status"]
    p = cluster.run(base + ["--cpu-bind=verbose,map_cpu:1,0"] + show, check=True)
    assert _allowed(p.stdout) == {0: {host[1]}, 1: {host[0]}}, p.stdout
    err = sorted(p.stderr.splitlines())
    assert len(err) == 2, p.stderr
    for task, line in enumerate(err):
        assert re.fullmatch(
            rf"{task}: cpu-bind=MAP  - node02, task  {task}  {task} \[\d+\]: "
            rf"mask 0x{1 << host[1 - task]:x} set", line), p.stderr
    p = cluster.run(base + ["--cpu-bind=mask_cpu:0x3,0x1"] + show, check=True)
    assert _allowed(p.stdout) == {0: {host[0], host[1]}, 1: {host[0]}}, p.stdout
    assert p.stderr == ""


def test_cpu_bind_quiet_abbreviation(cluster):
    # snakemake's srun -n1 --cpu-bind=q; and Slurm's other spellings
    for arg in ("q", "quiet", "v", "verbose,cores", "rank", "none", "map_ldom:0"):
        p = cluster.run(["srun", "-n1", f"--cpu-bind={arg}", "echo", "ok"])
        assert (p.returncode, p.stdout) == (0, "ok\n"), (arg, p.stderr)
    p = cluster.run(["srun", "--cpu-bind=help"])
    assert p.returncode == 0 and "map_cpu:<list>" in p.stdout


def test_cpu_bind_invalid_is_refused(cluster):
    before = cluster.run(["squeue", "-h", "-o", "%i"]).stdout
    for arg in ("bogus", "map_cpu:", "mask_cpu:0xZ"):
        p = cluster.run(["srun", f"--cpu-bind={arg}", "true"])
        assert (p.returncode, p.stderr) == (
            1, f"srun: error: Invalid --cpu-bind argument: {arg}\n")
    assert cluster.run(["squeue", "-h", "-o", "%i"]).stdout == before


def _policy(line):
    """The memory policy numa_maps gives the first mapping: "default",
    "local", "bind:0", "prefer:0"..."""
    return line.split()[1] if len(line.split()) > 1 else ""


def test_mem_bind_sets_each_tasks_memory_policy(cluster):
    """--mem-bind=local|map_mem|mask_mem|rank|prefer: each task's policy
    (local: bound to the NUMA nodes of its CPUs),
    as the kernel shows it (numa_maps); verbose says it in Slurm's words;
    none leaves the default; sbatch passes it to its steps; a bad one is
    refused."""
    c = cluster
    show = ["sh", "-c", "head -1 /proc/self/numa_maps"]
    for spec, want in (("local", "bind:0"), ("map_mem:0", "bind:0"),
                       ("mask_mem:0x1", "bind:0"), ("rank", "bind:0"),
                       ("prefer,map_mem:0", "prefer:0"), ("none", "default")):
        p = c.run(["srun", f"--mem-bind={spec}", *show], timeout=60)
        assert p.returncode == 0, (spec, p.stderr)
        assert _policy(p.stdout) == want, (spec, p.stdout)
    p = c.run(["srun", "--mem-bind=verbose,map_mem:0", *show], timeout=60)
    assert re.search(r"^mem-bind=MAP - \S+, task  0  0 \[\d+\]: mask 0x1 set$",
                     p.stderr, re.M), p.stderr
    p = c.run(["srun", "--mem-bind=map_mem:0,p,v", *show], timeout=60)
    assert re.search(r"^mem-bind PREFER MAP - \S+, task  0  0 \[\d+\]: mask 0x1 set$",
                     p.stderr, re.M), p.stderr
    assert _policy(p.stdout) == "prefer:0", p.stdout
    # a NUMA node the machine has not: the task does not start (Slurm's)
    p = c.run(["srun", "--mem-bind=map_mem:63", "true"], timeout=60)
    assert p.returncode != 0 and "NUMA node 63 does not exist" in p.stderr, p.stderr
    out = c.work / "mb.out"
    jid = c.sbatch("--mem-bind=local", "-o", str(out), "--wrap",
                   "srun sh -c 'head -1 /proc/self/numa_maps'")
    assert c.wait_job(jid) == "COMPLETED"
    assert _policy(out.read_text()) == "bind:0", out.read_text()
    p = c.run(["salloc", "--mem-bind=map_mem:0", "srun", *show], timeout=60)
    assert p.returncode == 0 and _policy(p.stdout) == "bind:0", p.stdout + p.stderr
    p = c.run(["srun", "--mem-bind=sideways", "true"])
    assert (p.returncode, p.stderr) == (1, "srun: error: Invalid --mem-bind "
                                           "specification\n"), p.stderr
    p = c.run(["srun", "--mem-bind=help"])
    assert p.returncode == 0 and "map_mem:<list>" in p.stdout
