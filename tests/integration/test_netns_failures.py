"""Failures that only exist on a network (issue 14, point 2), on a cluster of
its own made by `rota up --netns` (control, node01, node02 as network
namespaces on a bridge) with short timeouts:

- node02's veth taken down, no process killed: the controller hears nothing
  more from node02 (its TCP connection stays open: nothing breaks it), marks
  it not responding (`idle*`, State=...+NOT_RESPONDING), then DOWN after
  SlurmdTimeout with Reason=Not responding; its batch job with --requeue is
  requeued, the one with --no-requeue ends NODE_FAIL, as the security issue
  specifies; node01 runs a job submitted meanwhile; with the link up again
  node02 registers, its stale jobs are killed and it is idle again
  (ReturnToService=2, what `rota up --netns` writes); with ReturnToService=0
  it stays DOWN until `scontrol update state=resume`;
- a partition between control and node02 only (a blackhole route in node02's
  namespace; there is no nft or iptables here) does the same to node02 and
  nothing to node01, whose clients and jobs go on;
- srun's I/O crosses the namespaces intact: stdin from control to two tasks on
  two hosts, and 5 MB of output from each;
- OpenMPI's mpirun in `sbatch -N2` (as test_mpi.py runs it) starts ranks on
  node01 and node02 that join one MPI_COMM_WORLD over the bridge.
"""

import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import ROTA, _clean_env, wait_until
from test_mpi import HAVE_MPI, compile_hello, parse_hello
from test_netns import IP, NetnsCluster, _skip_reason

pytestmark = pytest.mark.skipif(_skip_reason() is not None,
                                reason=_skip_reason() or "")

# node02 is not responding after two missed pings (SlurmdTimeout/3 apart) and
# a second, DOWN after SlurmdTimeout
SLURMD_TIMEOUT = 9


def _set_conf(path, **keys):
    with open(path) as f:
        lines = [l for l in f.read().splitlines()
                 if l.partition("=")[0] not in keys]
    at = next(i for i, l in enumerate(lines) if l.startswith("NodeName="))
    lines[at:at] = [f"{k}={v}" for k, v in keys.items()]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def _rota(*args, timeout=120):
    return subprocess.run([str(ROTA), *args], capture_output=True, text=True,
                          timeout=timeout, env=_clean_env())


@pytest.fixture(scope="module")
def net():
    d = tempfile.mkdtemp(prefix="rota-netfail-")
    os.chmod(d, 0o755)
    try:
        p = _rota("up", "--netns", "--nodes", "2", "--cpus", "4", "--mem",
                  "4096", "--dir", d)
        assert p.returncode == 0, p.stdout + p.stderr
        # the same hosts again, with short timeouts (slurm.conf is written on
        # the first up and reused after)
        p = _rota("down", "--dir", d)
        assert p.returncode == 0, p.stderr
        _set_conf(os.path.join(d, "slurm.conf"), SlurmdTimeout=SLURMD_TIMEOUT)
        p = _rota("up", "--dir", d)
        assert p.returncode == 0, p.stdout + p.stderr
        yield NetnsCluster(d)
    finally:
        _rota("down", "--dir", d)
        shutil.rmtree(d, ignore_errors=True)


def _ok(c, host, cmd, timeout=60):
    p = c.on(host, cmd, timeout=timeout)
    assert p.returncode == 0, f"{cmd}: {p.stdout}{p.stderr}\n{c.logs()}"
    return p.stdout


def _node(c, name):
    """{State, Reason} of `scontrol show node` on control."""
    out = _ok(c, "control", f"scontrol show node {name}")
    state = re.search(r"State=(\S+)", out).group(1)
    reason = re.search(r"Reason=(.*?)(?: \[|$)", out, re.M)
    return state, reason.group(1) if reason else ""


def _wait(what, fn, timeout, c):
    return wait_until(fn, timeout, what, interval=0.3, detail=c.logs)


def _job(c, job, field):
    out = _ok(c, "control", f"scontrol show job {job}")
    m = re.search(rf"\b{field}=(\S+)", out)
    return m.group(1) if m else ""


def _sbatch(c, opts, cmd):
    out = _ok(c, "control", f"sbatch {opts} --wrap '{cmd}'")
    return re.match(r"Submitted batch job (\d+)", out).group(1)


def _sinfo(c, host="control"):
    out = _ok(c, host, "sinfo -h -N -o '%N %t'")
    return dict(l.split() for l in out.splitlines())


def _node01_undisturbed(c):
    """node01 idle, and a job submitted on it now runs and completes."""
    assert _sinfo(c)["node01"] == "idle"
    work = os.path.join(c.dir, "work")
    os.makedirs(work, exist_ok=True)
    job = _sbatch(c, f"-w node01 -o {work}/n01-%j.out",
                  "echo ran on $(hostname)")
    _wait("node01's job", lambda: _job(c, job, "JobState") in
          ("COMPLETED", "FAILED", "NODE_FAIL", "CANCELLED"), 30, c)
    assert _job(c, job, "JobState") == "COMPLETED", c.logs()
    with open(f"{work}/n01-{job}.out") as f:
        assert f.read() == "ran on node01\n"
    assert _ok(c, "control", "srun -w node01 hostname") == "node01\n"


def _not_responding_then_down(c, t0):
    """node02 is seen not responding, then DOWN with a reason."""
    state = _wait("node02 not responding",
                  lambda: (lambda s: s if "NOT_RESPONDING" in s else None)(
                      _node(c, "node02")[0]), SLURMD_TIMEOUT + 10, c)
    # the window before DOWN is about 2 s: a loaded machine may poll past it
    if not state.startswith("DOWN"):
        assert state.startswith(("IDLE", "MIXED", "ALLOCATED")), state
    assert _sinfo(c)["node02"].endswith("*")
    _wait("node02 DOWN", lambda: _node(c, "node02")[0].startswith("DOWN"),
          SLURMD_TIMEOUT + 10, c)
    # SlurmdTimeout after node02's last ping, which came at most a ping
    # interval before the link went
    assert time.time() - t0 >= SLURMD_TIMEOUT - SLURMD_TIMEOUT // 3 - 1
    state, reason = _node(c, "node02")
    assert state == "DOWN+NOT_RESPONDING", state
    assert reason.startswith("Not responding"), reason
    assert _sinfo(c)["node02"] == "down*"


def _returns_idle(c):
    _wait("node02 idle again", lambda: _node(c, "node02")[0] == "IDLE", 40, c)
    assert _node(c, "node02")[1] == ""
    assert _ok(c, "control", "srun -N2 -l hostname | sort").splitlines() == \
        ["0: node01", "1: node02"]


def _stale_jobs_gone(c):
    """No process of the cluster's jobs (sleep 300) is left on node02."""
    p = subprocess.run([IP, "netns", "pids", c.ns("node02")],
                       capture_output=True, text=True)
    left = []
    for pid in p.stdout.split():
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if cmd.startswith(b"sleep\x00300"):
            left.append(pid)
    return not left


def test_link_down_node_not_responding_then_down_and_back(net):
    c = net
    veth = f"rv{c.id}-2"
    assert _sinfo(c) == {"node01": "idle", "node02": "idle"}
    work = os.path.join(c.dir, "work")
    os.makedirs(work, exist_ok=True)
    keep = _sbatch(c, f"-w node02 --requeue -o {work}/keep-%j.out", "sleep 300")
    lost = _sbatch(c, f"-w node02 --no-requeue -o {work}/lost-%j.out",
                   "sleep 300")
    for j in (keep, lost):
        _wait(f"job {j} running", lambda j=j: _job(c, j, "JobState") ==
              "RUNNING", 30, c)
    subprocess.run([IP, "link", "set", veth, "down"], check=True)
    t0 = time.time()
    try:
        _not_responding_then_down(c, t0)
        # the jobs as for a node that fails
        _wait("requeue", lambda: _job(c, keep, "Restarts") == "1", 10, c)
        assert _job(c, keep, "JobState") in ("PENDING", "REQUEUED")
        assert _job(c, lost, "JobState") == "NODE_FAIL"
        # rotad and the jobs' processes on node02 live on, cut off
        assert not _stale_jobs_gone(c)
        _node01_undisturbed(c)
        _ok(c, "control", f"scancel {keep}")
    finally:
        subprocess.run([IP, "link", "set", veth, "up"], check=True)
    # ReturnToService=2: back as soon as it registers, its old jobs killed
    assert re.search(r"^ReturnToService=2$",
                     open(os.path.join(c.dir, "slurm.conf")).read(), re.M)
    _returns_idle(c)
    _wait("node02's stale jobs killed", lambda: _stale_jobs_gone(c), 20, c)


def test_partition_from_control_leaves_node01_alone(net):
    c = net
    ctl = c.addr["control"]
    rule = ["ip", "netns", "exec", c.ns("node02"), IP, "route", "add",
            "blackhole", f"{ctl}/32"]
    assert _sinfo(c) == {"node01": "idle", "node02": "idle"}
    subprocess.run(rule, check=True)
    t0 = time.time()
    try:
        _not_responding_then_down(c, t0)
        # node01 never noticed: still idle, its clients still reach control
        assert _sinfo(c, "node01") == {"node01": "idle", "node02": "down*"}
        _node01_undisturbed(c)
        # node02's own clients are cut off from control
        p = c.on("node02", "sinfo -h", timeout=60)
        assert p.returncode != 0, p.stdout
    finally:
        rule[6] = "del"
        subprocess.run(rule, check=True)
    _returns_idle(c)


def _return_to_service(c, value):
    _set_conf(os.path.join(c.dir, "slurm.conf"), ReturnToService=value)
    _ok(c, "control", "scontrol reconfigure")
    out = _ok(c, "control", "scontrol show config")
    assert re.search(rf"^ReturnToService\s*=\s*{value}$", out, re.M), out


def test_return_to_service_0_keeps_node02_down_until_resumed(net):
    c = net
    veth = f"rv{c.id}-2"
    _return_to_service(c, 0)
    try:
        subprocess.run([IP, "link", "set", veth, "down"], check=True)
        t0 = time.time()
        try:
            _not_responding_then_down(c, t0)
        finally:
            subprocess.run([IP, "link", "set", veth, "up"], check=True)
        # node02 registers again (it responds: no `*`) but stays DOWN
        _wait("node02 registered", lambda: _node(c, "node02")[0] == "DOWN",
              40, c)
        time.sleep(SLURMD_TIMEOUT // 3 + 1)
        state, reason = _node(c, "node02")
        assert (state, _sinfo(c)["node02"]) == ("DOWN", "down"), state
        assert reason.startswith("Not responding"), reason
        _node01_undisturbed(c)
        _ok(c, "control", "scontrol update nodename=node02 state=resume")
        _returns_idle(c)
    finally:
        _return_to_service(c, 2)


def test_srun_stdin_and_large_output_cross_namespaces(net):
    c = net
    lines = [f"line {i} {'x' * (i % 50)}" for i in range(20000)]
    path = os.path.join(c.dir, "stdin.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    out = _ok(c, "control", f"srun -N2 -n2 --input=all --label cat < {path}")
    got = {"0": [], "1": []}
    for l in out.splitlines():
        task, _, text = l.partition(": ")
        got[task].append(text)
    assert got["0"] == lines and got["1"] == lines, len(out)
    # 5 MB from each task, made on its host, checked on control
    gen = ("import hashlib,os,sys;r=os.environ['SLURM_PROCID'];"
           "w=sys.stdout.write;"
           "[w(hashlib.sha256(f'{r}-{i}'.encode()).hexdigest()+'\\n')"
           " for i in range(78125)]")
    p = c.on("control", f"srun -N2 -n2 --label python3 -c \"{gen}\" | "
                        "sort -s -t: -k1,1 | sha256sum", timeout=120)
    assert p.returncode == 0, p.stderr
    want = hashlib.sha256()
    for r in ("0", "1"):
        for i in range(78125):
            want.update(f"{r}: {hashlib.sha256(f'{r}-{i}'.encode()).hexdigest()}"
                        "\n".encode())
    assert p.stdout.split()[0] == want.hexdigest()


@pytest.mark.skipif(not HAVE_MPI, reason="OpenMPI (mpicc, mpirun) not installed")
def test_openmpi_job_across_node01_and_node02(net):
    c = net
    work = pathlib.Path(c.dir) / "mpi"
    work.mkdir(exist_ok=True)
    exe = compile_hello(work)
    script = work / "mpi.sh"
    script.write_text(
        "#!/bin/bash\n#SBATCH -N2 --ntasks-per-node=2\n"
        "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1\n"
        f"mpirun {exe}\n")
    out = _ok(c, "control", f"cd {work} && sbatch -o mpi-%j.out mpi.sh")
    job = re.match(r"Submitted batch job (\d+)", out).group(1)
    _wait("the MPI job", lambda: _job(c, job, "JobState") in
          ("COMPLETED", "FAILED", "NODE_FAIL", "CANCELLED", "TIMEOUT"), 120, c)
    text = (work / f"mpi-{job}.out").read_text()
    assert _job(c, job, "JobState") == "COMPLETED", text + c.logs()
    ranks = parse_hello(text)
    assert sorted(ranks) == [0, 1, 2, 3], text
    assert {r: v[1] for r, v in ranks.items()} == {
        0: "node01", 1: "node01", 2: "node02", 3: "node02"}, text
    assert all(v[0] == 4 and v[2] == 6 for v in ranks.values()), text
