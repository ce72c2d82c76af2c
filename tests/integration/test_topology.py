"""Switch-aware placement: TopologyPlugin=topology/tree with topology.conf
beside slurm.conf (8 nodes, two leaf switches of 4 under one spine)."""
import os
import signal

import pytest

from conftest import module_cluster_with

TOPOLOGY = ("# two leaves under one spine\n"
            "SwitchName=s1 Nodes=node[01-04]\n"
            "SwitchName=s2 Nodes=node[05-08]\n"
            "SwitchName=top Switches=s[1-2]\n")
GATED = "#!/bin/bash\nwhile [ ! -e \"$1\" ]; do sleep 0.1; done\n"


def topo_path(c):
    return os.path.join(os.path.dirname(c.conf_path), "topology.conf")


def rewrite_conf(path):
    with open(path, "a") as f:
        f.write("TopologyPlugin=topology/tree\n"
                "SchedulerParameters=max_switch_wait=8,bf_interval=1\n")
    with open(os.path.join(os.path.dirname(path), "topology.conf"), "w") as f:
        f.write(TOPOLOGY)


@pytest.fixture(scope="module")
def topo_cluster():
    yield from module_cluster_with(
        rewrite_conf, up_args=("--nodes", "8", "--cpus", "2", "--mem", "2048"))


@pytest.fixture
def c(topo_cluster, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(work, 0o777)
    topo_cluster.work = work
    (work / "g.sh").write_text(GATED)
    os.chmod(work / "g.sh", 0o755)
    yield topo_cluster
    (work / "gate").write_text("")
    topo_cluster.cancel_all()
    topo_cluster.wait_nodes_idle()


def running_on(c, *args):
    jid = c.sbatch("-o", "/dev/null", *args, "g.sh", "gate", cwd=c.work)
    assert c.wait_running(jid) == "RUNNING"
    return jid, c.job_field(jid, "NodeList")


def test_multi_node_job_stays_under_one_leaf(c):
    running_on(c, "-w", "node01", "--exclusive")
    # by index it would get node[02-05]; by switch the free leaf s2
    _, nodes = running_on(c, "-N4", "--exclusive")
    assert nodes == "node[05-08]"


def test_best_fit_leaf_for_a_small_job(c):
    running_on(c, "-w", "node05", "--exclusive")
    running_on(c, "-w", "node06", "--exclusive")
    # s1 has 4 free nodes, s2 two: the two fit s2 exactly
    _, nodes = running_on(c, "-N2", "--exclusive")
    assert nodes == "node[07-08]"
    # a single-node job is placed as without a topology
    _, nodes = running_on(c, "-N1", "--exclusive")
    assert nodes == "node01"


def test_bad_topology_conf_refused_with_file_and_line(c):
    path = topo_path(c)
    good = open(path).read()
    try:
        with open(path, "w") as f:
            f.write(good + "SwitchName=s3 Switches=nowhere\n")
        log = os.path.join(c.dir, "log", "rotactld.log")
        os.kill(c.pid("rotactld"), signal.SIGHUP)
        want = f"{path}:5: switch s3: unknown switch nowhere"
        c.wait_for(lambda: want in open(log).read(), what="the refusal logged")
        p = c.run(["scontrol", "reconfigure"])
        assert p.returncode == 1 and want in p.stderr, p.stderr
    finally:
        with open(path, "w") as f:
            f.write(good)
    # still placing by the topology it had
    running_on(c, "-w", "node01", "--exclusive")
    _, nodes = running_on(c, "-N4", "--exclusive")
    assert nodes == "node[05-08]"


def test_scontrol_show_topology(c):
    p = c.run(["scontrol", "show", "topology"], check=True)
    assert p.stdout == (
        "SwitchName=s1 Level=0 LinkSpeed=1 Nodes=node[01-04]\n"
        "SwitchName=s2 Level=0 LinkSpeed=1 Nodes=node[05-08]\n"
        "SwitchName=top Level=1 LinkSpeed=1 Nodes=node[01-08] Switches=s[1-2]\n")
    p = c.run(["scontrol", "show", "topology", "s2"], check=True)
    assert p.stdout == "SwitchName=s2 Level=0 LinkSpeed=1 Nodes=node[05-08]\n"
    p = c.run(["scontrol", "show", "topology", "s9"])
    assert p.returncode == 1 and "Switch s9 not found" in p.stderr


def test_switches_waits_then_spreads(c):
    running_on(c, "-w", "node01", "--exclusive")
    running_on(c, "-w", "node05", "--exclusive")
    # no leaf has 4 free nodes: --switches=1 waits (up to max_switch_wait=8 s,
    # below the 1 minute asked), then takes what it can
    jid = c.sbatch("-o", "/dev/null", "-N4", "--exclusive", "--switches=1@1",
                   "g.sh", "gate", cwd=c.work)
    c.wait_for(lambda: c.job_field(jid, "Reason") == "Resources", what="waits")
    assert c.job_field(jid, "Switches") == "1@00:00:08"
    assert c.job_state(jid) == "PENDING"
    assert c.wait_running(jid, timeout=40) == "RUNNING"
    assert c.job_field(jid, "NodeList") == "node[02-04,06]"


def test_switches_met_starts_at_once(c):
    running_on(c, "-w", "node01", "--exclusive")
    jid, nodes = running_on(c, "-N4", "--exclusive", "--switches=1")
    assert nodes == "node[05-08]"
    assert c.job_field(jid, "Switches") == "1@00:00:08"


def test_bad_topology_conf_stops_the_start(make_cluster):
    c = make_cluster("--nodes", "2")
    c.down()
    with open(c.conf_path, "a") as f:
        f.write("TopologyPlugin=topology/tree\n")
    with open(topo_path(c), "w") as f:
        f.write("SwitchName=s1 Nodes=node[01-02]\nSwitchName=s1 Nodes=node03\n")
    p = c.up(check=False)
    assert p.returncode != 0
    log = open(os.path.join(c.dir, "log", "rotactld.log")).read()
    assert f"{topo_path(c)}:2: s1 defined twice" in log + p.stderr
    with open(topo_path(c), "w") as f:
        f.write("SwitchName=s1 Nodes=node[01-02]\n")
    c.up()
    p = c.run(["scontrol", "show", "topology"], check=True)
    assert p.stdout == "SwitchName=s1 Level=0 LinkSpeed=1 Nodes=node[01-02]\n"
