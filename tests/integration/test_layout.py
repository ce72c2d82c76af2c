"""Sockets, cores and threads of a request: -B S[:C[:T]], --sockets-per-node,
--cores-per-socket and --threads-per-core keep a job off nodes with fewer,
--threads-per-core, --ntasks-per-core and --hint=nomultithread give a task
whole cores on a node of two threads a core, --ntasks-per-socket caps the
tasks of a node by its sockets; scontrol shows them as Slurm does
(ReqB:S:C:T=, Socks/Node=, NtasksPerN:B:S:C=), squeue's %z, the job's
environment SLURM_NTASKS_PER_CORE and the like; bad values are refused in
Slurm's words.

Three nodes of 8 CPUs: node01 and node02 of 2 sockets x 4 cores x 1
thread, node03 of 2 sockets x 2 cores x 2 threads."""

import re

import pytest

from conftest import module_cluster_with

UP = ("--nodes", "3", "--cpus", "8", "--mem", "4096")
NOT_AVAILABLE = "Requested node configuration is not available"


def per_node_layout(conf_path):
    with open(conf_path) as f:
        conf = f.read()
    m = re.search(r"^NodeName=node\[01-03\] (.*)Port=\[(\d+)-(\d+)\] "
                  r"CPUs=8 (.*)$", conf, re.M)
    assert m, conf
    head, first, rest = m.group(1), int(m.group(2)), m.group(4)
    layout = ["Sockets=2 CoresPerSocket=4 ThreadsPerCore=1"] * 2 + \
        ["Sockets=2 CoresPerSocket=2 ThreadsPerCore=2"]
    lines = [f"NodeName=node0{k + 1} {head}Port={first + k} CPUs=8 "
             f"{layout[k]} {rest}" for k in range(3)]
    with open(conf_path, "w") as f:
        f.write(conf.replace(m.group(0), "\n".join(lines)))


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(rewrite_conf=per_node_layout, up_args=UP)


def field(c, job, key):
    v = c.job_field(job, key)
    assert v is not None, c.run(["scontrol", "show", "job", str(job)]).stdout
    return v


def run_one(c, *args, env=None):
    """Submit a sleeping job, wait for it to run, return its id."""
    j = c.sbatch("-o", "out.%j", *args, "--wrap", "sleep 60", env=env)
    assert c.wait_running(j) == "RUNNING"
    return j


def refused(c, *args, env=None):
    p = c.run(["sbatch", *args, "--wrap", "true"], env=env)
    assert p.returncode == 1, (p.stdout, p.stderr)
    return p.stderr


# ---- nodes with fewer sockets, cores, threads are not used ----

def test_threads_per_core_picks_nodes_with_threads(cluster):
    c = cluster
    j = run_one(c, "-n1", "--threads-per-core=2")
    assert field(c, j, "NodeList") == "node03"
    assert "ReqB:S:C:T=0:0:*:2" in c.run(["scontrol", "show", "job", str(j)]).stdout
    assert NOT_AVAILABLE in refused(c, "--threads-per-core=4")


def test_cores_per_socket_and_extra_node_info(cluster):
    c = cluster
    j = run_one(c, "-n1", "-w", "node03")  # nothing asked: %z *:*:*
    k = run_one(c, "-n1", "--cores-per-socket=4")
    assert field(c, k, "NodeList") == "node01"
    b = run_one(c, "-n1", "-B", "2:2:2")
    assert field(c, b, "NodeList") == "node03"
    show = c.run(["scontrol", "show", "job", str(b)]).stdout
    assert "ReqB:S:C:T=0:2:2:2" in show and "Socks/Node=2" in show, show
    out = c.run(["squeue", "-h", "-o", "%z", "-j", f"{j},{b}"]).stdout.split()
    assert sorted(out) == ["*:*:*", "2:2:2"], out
    assert NOT_AVAILABLE in refused(c, "-B", "1:8")
    assert NOT_AVAILABLE in refused(c, "--sockets-per-node=4")


def test_extra_node_info_ranges_and_stars(cluster):
    c = cluster
    j = run_one(c, "-n1", "-B", "*:2-4:2")
    assert field(c, j, "NodeList") == "node03"
    for bad in ("x", "2:", "2:2:2:2", "0", "3-1"):
        err = refused(c, "-B", bad)
        assert "Invalid --extra-node-info argument" in err, (bad, err)


# ---- a task's cores ----

def test_hint_nomultithread_gives_whole_cores(cluster):
    c = cluster
    plain = run_one(c, "-w", "node03", "-n2")
    assert field(c, plain, "NumCPUs") == "2"
    c.run(["scancel", str(plain)], check=True)
    c.wait_job(plain)
    j = c.sbatch("-w", "node03", "-n2", "--hint=nomultithread", "-o", "out.%j",
                 "--wrap", "echo $SLURM_CPUS_ON_NODE")
    assert c.wait_job(j) == "COMPLETED"
    assert field(c, j, "NumCPUs") == "4"
    show = c.run(["scontrol", "show", "job", str(j)]).stdout
    assert "ReqB:S:C:T=0:0:*:1" in show, show
    assert (c.work / f"out.{j}").read_text().split() == ["4"]
    # the same with the options themselves, and their environment
    k = c.sbatch("-w", "node03", "-n2", "--threads-per-core=1",
                 "--ntasks-per-core=1", "--ntasks-per-socket=1", "-o", "out.%j",
                 "--wrap", "echo $SLURM_CPUS_ON_NODE $SLURM_NTASKS_PER_CORE "
                 "$SLURM_NTASKS_PER_SOCKET $SLURM_THREADS_PER_CORE")
    assert c.wait_job(k) == "COMPLETED"
    show = c.run(["scontrol", "show", "job", str(k)]).stdout
    assert "NtasksPerN:B:S:C=0:0:1:1" in show, show
    assert (c.work / f"out.{k}").read_text().split() == ["4", "1", "1", "1"]


def test_hint_on_one_thread_a_core_changes_nothing(cluster):
    c = cluster
    j = run_one(c, "-w", "node01", "-n2", "--hint=nomultithread")
    assert field(c, j, "NumCPUs") == "2"


def test_ntasks_per_core(cluster):
    c = cluster
    j = run_one(c, "-N1", "-n4", "--ntasks-per-core=1", "--threads-per-core=2")
    assert field(c, j, "NodeList") == "node03"
    assert field(c, j, "NumCPUs") == "8"
    assert NOT_AVAILABLE in refused(c, "-N1", "-n5", "--ntasks-per-core=1",
                                    "--threads-per-core=2")
    c.run(["scancel", str(j)], check=True)
    c.wait_job(j)
    # two tasks a core: the node's 8 threads hold 8 tasks
    k = c.sbatch("-N1", "-n8", "--ntasks-per-core=2", "--threads-per-core=2",
                 "--wrap", "true")
    assert c.wait_job(k) == "COMPLETED"
    # more tasks a core than it has threads: no limit
    m = c.sbatch("-N1", "-n8", "--ntasks-per-core=4", "--threads-per-core=2",
                 "--wrap", "true")
    assert c.wait_job(m) == "COMPLETED"


def test_ntasks_per_socket(cluster):
    c = cluster
    assert NOT_AVAILABLE in refused(c, "-N1", "-n3", "--ntasks-per-socket=1")
    j = run_one(c, "-n4", "--ntasks-per-socket=1")
    assert field(c, j, "NumNodes") == "2"
    show = c.run(["scontrol", "show", "job", str(j)]).stdout
    assert "NtasksPerN:B:S:C=0:0:1:*" in show, show


# ---- --hint's words and its company ----

def test_hint_values(cluster):
    c = cluster
    err = refused(c, "--hint=fast")
    assert 'unrecognized --hint argument "fast", see --hint=help' in err, err
    p = c.run(["sbatch", "--hint=help"])
    assert p.returncode == 0
    for w in ("compute_bound", "memory_bound", "multithread", "help"):
        assert w in p.stdout, p.stdout
    # beside --ntasks-per-core the hint is ignored (-v says so)
    j = run_one(c, "-v", "-w", "node03", "-n2", "--hint=nomultithread",
                "--ntasks-per-core=2")
    assert field(c, j, "NumCPUs") == "2"
    p = c.run(["sbatch", "-v", "--hint=nomultithread", "--ntasks-per-core=2",
               "-H", "--wrap", "true"])
    # Slurm's words to the letter (its "then" too): test1.118 matches them
    assert ("Following options are mutually exclusive with --hint: --ntasks-per-core, "
            "--threads-per-core, -B and --cpu-bind (other then --cpu-bind=verbose). "
            "Ignoring --hint.") in p.stderr, p.stderr
    # ... and so is the environment's beside the command line's options
    k = run_one(c, "-w", "node03", "-n2", "--ntasks-per-core=2",
                env={"SLURM_HINT": "nomultithread"})
    assert field(c, k, "NumCPUs") == "2"
    # quietly: the environment's hint gives way, nothing is said (test1.118)
    p = c.run(["sbatch", "-v", "-H", "--threads-per-core=1", "--ntasks-per-core=1",
               "--wrap", "true"], env={"SLURM_HINT": "nomultithread"})
    assert p.returncode == 0 and "mutually exclusive" not in p.stderr, p.stderr
    c.run(["scancel", p.stdout.split()[-1]], check=True)
    c.run(["scancel", str(j), str(k)], check=True)
    c.wait_job(j)
    c.wait_job(k)
    m = run_one(c, "-w", "node03", "-n2", env={"SBATCH_HINT": "nomultithread"})
    assert field(c, m, "NumCPUs") == "4"
    # a command line hint over the environment's options
    n = run_one(c, "-w", "node03", "-n2", "--hint=nomultithread",
                env={"SBATCH_THREADS_PER_CORE": "2"})
    assert field(c, n, "NumCPUs") == "4"


def test_counts_checked(cluster):
    c = cluster
    for opt in ("--ntasks-per-core=0", "--ntasks-per-socket=x",
                "--threads-per-core=-1", "--cores-per-socket="):
        err = refused(c, opt)
        assert "Invalid numeric value" in err, (opt, err)


def test_hint_on_the_command_line_over_the_environments_binding(cluster):
    """SLURM_CPU_BIND from the environment binds the task, unless --hint on
    the command line says otherwise (the hint wins, as in Slurm)."""
    c = cluster
    cmd = ["srun", "-w", "node03", "-n1", "-c4", "grep", "Cpus_allowed_list",
           "/proc/self/status"]
    env = {"SLURM_CPU_BIND": "map_cpu:3"}
    p = c.run(cmd, env=env, timeout=60)  # one CPU: the map's
    assert p.returncode == 0 and p.stdout.split()[-1].isdigit(), p.stdout + p.stderr
    p = c.run(cmd[:5] + ["--hint=nomultithread"] + cmd[5:], env=env, timeout=60)
    assert p.returncode == 0 and not p.stdout.split()[-1].isdigit(), \
        p.stdout + p.stderr  # the step's CPUs, not one
