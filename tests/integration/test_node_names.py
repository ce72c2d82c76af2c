"""Node names resolve for the programs a job runs, as on a real cluster.

The local cluster's virtual nodes (`rota up`: NodeName=node01.. with
NodeAddr=127.0.0.1) have names no resolver knows.  Running as root, each step
daemon gives its tasks a mount namespace of their own whose /etc/hosts is the
host's plus one line per configured node (stepd/names.c), so `getent hosts
node02` answers on every node while the host's /etc/hosts stays as it was.

MPICH's mpiexec.hydra needs exactly that: with `-launcher slurm` it resolves
every name of SLURM_NODELIST and starts a hydra_pmi_proxy on each node through
srun, which connects back to the batch node by name.  Without the names it
stops with "unable to get host address for node01".
"""

import collections
import re
import shutil
import subprocess

import pytest

from conftest import IS_ROOT, write_script


def can_unshare_mount():
    """Root in a container may still lack CAP_SYS_ADMIN."""
    try:
        return IS_ROOT and subprocess.run(["unshare", "--mount", "true"],
                                          capture_output=True).returncode == 0
    except OSError:
        return False


needs_ns = pytest.mark.skipif(not can_unshare_mount(),
                              reason="needs root and a mount namespace")
HYDRA = shutil.which("mpiexec.hydra")
needs_hydra = pytest.mark.skipif(not HYDRA, reason="MPICH's mpiexec.hydra not "
                                                   "installed: apt-get install mpich")


def host_view():
    """What the host sees of /etc/hosts: its text and the mounts over it."""
    with open("/etc/hosts") as f:
        text = f.read()
    with open("/proc/self/mountinfo") as f:
        mounts = [line for line in f if " /etc/hosts " in line]
    return text, mounts


def job_nodes(cluster, jobid):
    p = cluster.run(["scontrol", "show", "hostnames",
                     cluster.job_field(jobid, "NodeList")], check=True)
    return p.stdout.split()


@needs_ns
def test_tasks_resolve_node_names(cluster):
    before = host_view()
    p = cluster.run(["srun", "-N2", "--ntasks-per-node=1", "--label", "getent",
                     "hosts", "node01", "node02"], timeout=60)
    assert p.returncode == 0, f"getent failed: {p.stdout!r} {p.stderr!r}"
    seen = collections.defaultdict(set)
    for line in p.stdout.splitlines():
        m = re.fullmatch(r"(\d+): (\S+)\s+(.*)", line)
        assert m, f"unexpected line {line!r}"
        assert m.group(2) == "127.0.0.1", line
        seen[m.group(1)].update(m.group(3).split())
    assert set(seen) == {"0", "1"}, p.stdout
    for names in seen.values():
        assert {"node01", "node02"} <= names, p.stdout
    assert host_view() == before


@needs_ns
def test_user_tasks_resolve_node_names(ucluster, users):
    """The file is readable by the job's user, not only by root."""
    from unixusers import as_user
    p = as_user(ucluster, users["a"], "srun -N2 --ntasks-per-node=1 sh -c "
                "'id -un; getent hosts node01 node02'", timeout=60)
    assert p.returncode == 0, f"{p.stdout!r} {p.stderr!r}"
    assert p.stdout.split().count(users["a"].name) == 2, p.stdout
    assert len(re.findall(r"^127\.0\.0\.1\s+node0[12]\b", p.stdout, re.M)) == 4, \
        p.stdout


@needs_ns
def test_host_etc_hosts_untouched(cluster):
    """While a job's tasks see the node names, the host sees neither a
    changed /etc/hosts nor a mount over it."""
    before = host_view()
    assert not re.search(r"\bnode0[1-4]\b", before[0]), \
        "this host's /etc/hosts already names node01..: the test proves nothing"
    mark = cluster.work / "resolved"
    jobid = cluster.sbatch("-N2", "-o", str(cluster.work / "out"), "--wrap",
                           f"getent hosts node02 > {mark}; sleep 30")
    cluster.wait_for(lambda: mark.exists() and mark.stat().st_size, timeout=30,
                     what="the job resolved node02")
    assert mark.read_text().split()[:2] == ["127.0.0.1", "node02"]
    assert host_view() == before
    cluster.run(["scancel", str(jobid)], check=True)
    cluster.wait_job(jobid)
    assert host_view() == before


@needs_ns
@needs_hydra
def test_mpich_hydra_over_two_nodes(cluster):
    write_script(cluster.work / "hydra.sh",
                 # without the names hydra waits for proxies that never connect
                 f"#!/bin/sh\nexec timeout 45 {HYDRA} -launcher slurm -n 4 hostname\n")
    jobid = cluster.sbatch("-N2", "--ntasks-per-node=2", "-o",
                           str(cluster.work / "out"), str(cluster.work / "hydra.sh"))
    state = cluster.wait_job(jobid, timeout=60)
    out = (cluster.work / "out").read_text()
    assert state == "COMPLETED", f"{state}: {out}"
    nodes = job_nodes(cluster, jobid)
    assert len(nodes) == 2
    assert sorted(out.split()) == sorted(nodes * 2), out
