"""The tutorial's cluster as separate hosts (`rota up --netns`): control, node01
and node02 each in a network namespace of their own with their own address
and host name, one munged per host sharing one key, the tutorial's slurm.conf,
and the tutorial's commands run from the control host.  `rota down` removes
every namespace, veth, the bridge and the /etc/netns entries it made."""

import glob
import os
import re
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import MUNGED, ROTA, _clean_env, _tail, munged_with_new_key

IP = shutil.which("ip") or "/usr/sbin/ip"


def _skip_reason():
    if os.geteuid() != 0:
        return "needs root (network namespaces, a bridge, mounts)"
    if not os.path.exists(MUNGED):
        return "needs munged (Debian package munge)"
    try:
        p = subprocess.run([IP, "netns", "list"], capture_output=True, timeout=10)
    except OSError as e:
        return f"ip netns unavailable: {e}"
    if p.returncode != 0:
        return "ip netns unavailable: " + p.stderr.decode(errors="replace")
    return None


pytestmark = pytest.mark.skipif(_skip_reason() is not None,
                                reason=_skip_reason() or "")

DEMO = """#!/bin/bash
#SBATCH --job-name=multi-node-demo
#SBATCH --partition=debug
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --cpus-per-task=1
#SBATCH --time=00:05:00
#SBATCH --output=slurm-%j.out
echo "job id: $SLURM_JOB_ID"
echo "allocated nodes: $SLURM_JOB_NODELIST"
srun --label bash -c 'echo "task=$SLURM_PROCID host=$(hostname)"'
"""


class NetnsCluster:
    def __init__(self, d):
        self.dir = d
        self.env = _clean_env()
        rec = open(os.path.join(d, "netns.conf")).read()
        self.id = re.search(r"^id=(\w+)$", rec, re.M).group(1)
        self.addr = dict(re.findall(r"^host=(\S+) (\S+)$", rec, re.M))

    def ns(self, host):
        return f"rota-{self.id}-{host}"

    def on(self, host, cmd, timeout=60, cwd=None):
        """cmd (a shell line) on host, the way an admin logged in there would."""
        return subprocess.run(
            [str(ROTA), "exec", "--dir", self.dir, "--host", host, "--",
             "bash", "-c", cmd], capture_output=True, text=True,
            timeout=timeout, env=self.env, cwd=cwd or self.dir)

    def logs(self):
        return "\n".join(f"==> {p} <==\n{_tail(p)}"
                         for p in sorted(glob.glob(self.dir + "/log/*")))

    def down(self):
        return subprocess.run([str(ROTA), "down", "--dir", self.dir],
                              capture_output=True, text=True, timeout=120,
                              env=self.env)


@pytest.fixture(scope="module")
def netns_cluster():
    d = tempfile.mkdtemp(prefix="rota-netns-")
    os.chmod(d, 0o755)
    # the tutorial's CPU job asks for 8 CPUs and 16G on one node
    p = subprocess.run([str(ROTA), "up", "--netns", "--nodes", "2", "--cpus",
                        "8", "--mem", "65536", "--dir", d],
                       capture_output=True, text=True, timeout=120,
                       env=_clean_env())
    c = None
    try:
        assert p.returncode == 0, p.stdout + p.stderr
        c = NetnsCluster(d)
        yield c
    finally:
        # torn down even when up or a test failed half way
        subprocess.run([str(ROTA), "down", "--dir", d], capture_output=True,
                       timeout=120, env=_clean_env())
        shutil.rmtree(d, ignore_errors=True)


def test_slurm_conf_is_the_tutorials(netns_cluster):
    c = netns_cluster
    conf = open(os.path.join(c.dir, "slurm.conf")).read()
    assert re.search(r"^SlurmctldHost=control$", conf, re.M), conf
    assert re.search(r"^AuthType=auth/munge$", conf, re.M), conf
    assert re.search(r"^NodeName=node\[01-02\] NodeAddr=%s,%s " % (
        re.escape(c.addr["node01"]), re.escape(c.addr["node02"])), conf, re.M)
    assert re.search(r"^PartitionName=debug Nodes=node\[01-02\] Default=YES",
                     conf, re.M), conf
    assert all(a.startswith("10.250.") for a in c.addr.values()), c.addr


def test_hosts_have_their_names_and_addresses(netns_cluster):
    c = netns_cluster
    for host in ("control", "node01", "node02"):
        p = c.on(host, "hostname; ip -4 -o addr show dev eth0; "
                       "getent hosts control node01 node02")
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        assert lines[0] == host
        assert f" {c.addr[host]}/24 " in lines[1], lines[1]
        assert lines[2:] == [f"{c.addr[h]:<15} {h}"
                             for h in ("control", "node01", "node02")], lines
    # each daemon in its own host's network namespace
    p = subprocess.run([IP, "netns", "pids", c.ns("node01")],
                       capture_output=True, text=True)
    comms = {open(f"/proc/{pid}/comm").read().strip()
             for pid in p.stdout.split() if os.path.exists(f"/proc/{pid}")}
    assert {"rotad", "munged"} <= comms and "rotactld" not in comms, comms
    p = subprocess.run([IP, "netns", "pids", c.ns("control")],
                       capture_output=True, text=True)
    comms = {open(f"/proc/{pid}/comm").read().strip()
             for pid in p.stdout.split() if os.path.exists(f"/proc/{pid}")}
    assert {"rotactld", "munged"} <= comms and "rotad" not in comms, comms


def test_sinfo_from_control(netns_cluster):
    p = netns_cluster.on("control", "sinfo")
    assert p.returncode == 0, p.stderr
    rows = [l.split() for l in p.stdout.splitlines()]
    assert rows[0][:2] == ["PARTITION", "AVAIL"]
    assert ["debug*", "up", "1:00:00", "2", "idle", "node[01-02]"] in rows, \
        p.stdout


def test_srun_label_hostname(netns_cluster):
    c = netns_cluster
    p = c.on("control", "srun --nodes=2 --ntasks-per-node=1 --label hostname")
    assert p.returncode == 0, p.stderr + c.logs()
    assert sorted(p.stdout.splitlines()) == ["0: node01", "1: node02"], p.stdout


def test_scontrol_show_node_addr(netns_cluster):
    c = netns_cluster
    p = c.on("control", "scontrol show node node01")
    assert p.returncode == 0, p.stderr
    assert f"NodeAddr={c.addr['node01']} " in p.stdout, p.stdout
    assert "NodeHostName=node01" in p.stdout


def test_client_on_a_node_goes_over_the_network_with_munge(netns_cluster):
    """On node01 the controller's state directory (and its local socket) is
    not there: sinfo and srun reach control:6817, authenticated by node01's
    munged."""
    c = netns_cluster
    p = c.on("node01", f"ls -A {c.dir}/state | wc -l; sinfo -h -o '%D %t'; "
                       "srun -N2 -l hostname | sort")
    assert p.returncode == 0, p.stderr + c.logs()
    assert p.stdout.splitlines() == ["0", "2 idle", "0: node01", "1: node02"], \
        p.stdout
    # one munged per host, each with its own socket, all with the one key
    socks = sorted(glob.glob(c.dir + "/hosts/*/munge/munge.socket.2"))
    assert [s.split("/")[-3] for s in socks] == ["control", "node01", "node02"]


def test_a_munged_with_another_key_is_refused(netns_cluster):
    """The same client on node01, but through a munged with a key of its own:
    the controller refuses it, so the hosts above really did authenticate
    with the one key."""
    c = netns_cluster
    with munged_with_new_key("rota-netns-rogue-") as (d, _):
        p = c.on("node01", f"mount --bind {d} /run/munge && sinfo -h",
                 timeout=60)
        assert p.returncode != 0, p.stdout
        ok = c.on("node01", "sinfo -h -o %D")
        assert ok.stdout.strip() == "2", ok.stdout + ok.stderr
    log = open(os.path.join(c.dir, "log", "rotactld.log")).read()
    assert re.search(r"authentication failed from %s:\d+: munge_decode: "
                     r"Invalid credential" % re.escape(c.addr["node01"]),
                     log), _tail(os.path.join(c.dir, "log", "rotactld.log"))


def test_sbatch_on_two_nodes_completes(netns_cluster):
    c = netns_cluster
    work = os.path.join(c.dir, "work")
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "multi-node-demo.sh"), "w") as f:
        f.write(DEMO)
    p = c.on("control", "sbatch multi-node-demo.sh", cwd=work)
    assert p.returncode == 0, p.stderr
    m = re.match(r"^Submitted batch job (\d+)$", p.stdout.strip())
    assert m, p.stdout
    job = m.group(1)
    state = ""
    deadline = time.time() + 60
    while time.time() < deadline:
        q = c.on("control", f"scontrol show job {job}")
        state = re.search(r"JobState=(\S+)", q.stdout)
        state = state.group(1) if state else ""
        if state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT",
                     "NODE_FAIL"):
            break
        time.sleep(0.2)
    assert state == "COMPLETED", q.stdout + c.logs()
    out = open(os.path.join(work, f"slurm-{job}.out")).read().splitlines()
    assert out[:2] == [f"job id: {job}", "allocated nodes: node[01-02]"], out
    assert sorted(out[2:]) == ["0: task=0 host=node01", "1: task=1 host=node01",
                               "2: task=2 host=node02",
                               "3: task=3 host=node02"], out


CPU_DEMO = """#!/bin/bash
#SBATCH --job-name=cpu-demo
#SBATCH --partition=debug
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=8
#SBATCH --mem=16G
#SBATCH --time=00:30:00
#SBATCH --output=slurm-%j.out
export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
srun ./my-cpu-program
"""

ARRAY_DEMO = """#!/bin/bash
#SBATCH --job-name=array-demo
#SBATCH --array=0-9%3
#SBATCH --cpus-per-task=1
#SBATCH --mem=2G
#SBATCH --time=00:10:00
#SBATCH --output=logs/%A_%a.out
echo "input-${SLURM_ARRAY_TASK_ID}.json on $(hostname)"
"""


def _submit_and_wait(c, work, name, text, extra=""):
    with open(os.path.join(work, name), "w") as f:
        f.write(text)
    p = c.on("control", f"sbatch {name}", cwd=work)
    assert p.returncode == 0, p.stderr
    job = p.stdout.split()[-1]
    deadline = time.time() + 90
    while time.time() < deadline:
        q = c.on("control", f"squeue -h -t PD,R,CG -j {job} -o %i",
                 cwd=work)
        if q.returncode == 0 and not q.stdout.strip():
            break
        time.sleep(0.3)
    q = c.on("control", f"scontrol show job {job}")
    return job, q.stdout


def test_tutorial_cpu_and_array_scripts(netns_cluster):
    c = netns_cluster
    work = os.path.join(c.dir, "work2")
    os.makedirs(os.path.join(work, "logs"), exist_ok=True)
    prog = os.path.join(work, "my-cpu-program")
    with open(prog, "w") as f:
        f.write("#!/bin/bash\necho \"threads=$OMP_NUM_THREADS "
                "cpus=$(nproc) host=$(hostname)\"\n")
    os.chmod(prog, 0o755)
    job, info = _submit_and_wait(c, work, "cpu.sh", CPU_DEMO)
    assert "JobState=COMPLETED" in info, info + c.logs()
    out = open(os.path.join(work, f"slurm-{job}.out")).read()
    assert re.fullmatch(r"threads=8 cpus=\d+ host=node0[12]\n", out), out
    job, info = _submit_and_wait(c, work, "array.sh", ARRAY_DEMO)
    outs = sorted(glob.glob(os.path.join(work, "logs", f"{job}_*.out")))
    assert len(outs) == 10, outs
    for i in range(10):
        text = open(os.path.join(work, "logs", f"{job}_{i}.out")).read()
        assert re.fullmatch(rf"input-{i}.json on node0[12]\n", text), text


def test_down_removes_every_namespace_link_and_file(netns_cluster):
    """Last: takes the module's cluster down (the fixture's down then finds
    nothing)."""
    c = netns_cluster
    p = c.down()
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr, p.stderr
    ns = subprocess.run([IP, "netns", "list"], capture_output=True,
                        text=True).stdout
    assert f"rota-{c.id}-" not in ns, ns
    links = subprocess.run([IP, "-o", "link"], capture_output=True,
                           text=True).stdout
    assert f"rb-{c.id}" not in links and f"rv{c.id}-" not in links, links
    assert not glob.glob(f"/etc/netns/rota-{c.id}-*")
    addrs = subprocess.run([IP, "-4", "-o", "addr"], capture_output=True,
                           text=True).stdout
    assert c.addr["control"].rsplit(".", 1)[0] + "." not in addrs, addrs
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if c.dir.encode() in cmd:
            left.append(cmd)
    assert not left, left
