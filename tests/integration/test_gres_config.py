"""GRES configuration and the node side: gres.conf (ranges, NodeName= lines,
count-only GRES), what rotad registers, the drain of a node that has fewer
devices than its slurm.conf Gres=, scontrol show node / sinfo %G, and
`rota up --gpus N`.  Jobs are not given GPUs yet: only configuration,
registration and display are checked."""

import os
import re
import stat

import pytest

from conftest import BUILD, module_cluster_with

SMALL = ("--nodes", "2", "--cpus", "2", "--mem", "1024")
LOW = "gres/gpu count reported lower than configured ({} < {})"


def node_field(c, node, field, details=False):
    cmd = ["scontrol", "-o"] + (["-d"] if details else []) + ["show", "node", node]
    p = c.run(cmd)
    assert p.returncode == 0, p.stderr
    m = re.search(rf"(?:^| ){field}=(.*?)(?= [A-Z][A-Za-z]*=|$)", p.stdout.strip())
    assert m, f"no {field} in: {p.stdout}"
    return m.group(1)


def sinfo_nodes(c, fmt):
    p = c.run(["sinfo", "-h", "-N", "-o", fmt])
    assert p.returncode == 0, p.stderr
    return sorted(set(p.stdout.splitlines()))


def wait_registered(c, nodes=("node01", "node02")):
    c.wait_for(lambda: all("NOT_RESPONDING" not in node_field(c, n, "State")
                           and "UNKNOWN" not in node_field(c, n, "State")
                           for n in nodes), timeout=30, what="nodes registered")


@pytest.fixture(scope="module")
def gpus_cluster():
    """rota up --gpus 4 on two nodes."""
    yield from module_cluster_with(up_args=SMALL + ("--gpus", "4"))


def test_rota_up_gpus_writes_the_configuration(gpus_cluster):
    c = gpus_cluster
    conf = open(c.conf_path).read()
    assert re.search(r"^GresTypes=gpu$", conf, re.M), conf
    assert re.search(r"^NodeName=node\[01-02\] .* Gres=gpu:4 ", conf, re.M), conf
    assert re.search(r"^PartitionName=gpu Nodes=node\[01-02\] ", conf, re.M), conf
    gres = open(os.path.join(c.dir, "gres.conf")).read()
    for node in ("node01", "node02"):
        assert (f"NodeName={node} Name=gpu File={c.dir}/dev/{node}/nvidia[0-3]\n"
                in gres), gres
        for k in range(4):
            st = os.stat(f"{c.dir}/dev/{node}/nvidia{k}")
            # character devices 195:K like /dev/nvidiaK (root may mknod)
            if os.geteuid() == 0:
                assert stat.S_ISCHR(st.st_mode)
                assert (os.major(st.st_rdev), os.minor(st.st_rdev)) == (195, k)


def test_rota_up_gpus_shows_four_gpus_per_node(gpus_cluster):
    c = gpus_cluster
    wait_registered(c)
    for node in ("node01", "node02"):
        assert node_field(c, node, "Gres") == "gpu:4"
        assert node_field(c, node, "GresUsed", details=True) == "gpu:0(IDX:N/A)"
        assert "DRAIN" not in node_field(c, node, "State")
    # GresUsed is a detail, as in Slurm
    p = c.run(["scontrol", "show", "node", "node01"])
    assert "GresUsed=" not in p.stdout
    p = c.run(["sinfo", "-h", "-o", "%P %G %D %N"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["debug* gpu:4 2 node[01-02]",
                                     "gpu gpu:4 2 node[01-02]"]
    assert sinfo_nodes(c, "%N %G") == ["node01 gpu:4", "node02 gpu:4"]
    p = c.run(["sinfo", "-h", "-N", "-O", "NodeList:8,Gres:10,GresUsed:20"])
    assert sorted(set(p.stdout.splitlines())) == [
        "node01  gpu:4     gpu:0(IDX:N/A)      ",
        "node02  gpu:4     gpu:0(IDX:N/A)      "], p.stdout


def test_rota_up_gpus_node_missing_a_device_is_drained(gpus_cluster):
    """Runs last on this cluster: it takes a GPU away from node02."""
    c = gpus_cluster
    c.down()
    os.unlink(f"{c.dir}/dev/node02/nvidia3")
    c.up()
    wait_registered(c)
    assert node_field(c, "node02", "Reason").startswith(LOW.format(3, 4) + " [")
    assert "DRAIN" in node_field(c, "node02", "State")
    assert "DRAIN" not in node_field(c, "node01", "State")
    p = c.run(["sinfo", "-h", "-R", "-o", "%70E %N"])
    assert p.stdout.split() == LOW.format(3, 4).split() + ["node02"], p.stdout


def write_gres(c, node_gres, gres_conf, types="gpu,nic"):
    """Stop c, give both nodes Gres=node_gres and write gres.conf."""
    c.down()
    conf = open(c.conf_path).read()
    conf = re.sub(r"^(NodeName=node\[01-02\] .*) State=UNKNOWN$",
                  rf"\1 Gres={node_gres} State=UNKNOWN", conf, flags=re.M)
    conf = f"GresTypes={types}\n" + conf
    with open(c.conf_path, "w") as f:
        f.write(conf)
    with open(os.path.join(c.dir, "gres.conf"), "w") as f:
        f.write(gres_conf)


def touch(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").close()


def test_gres_conf_ranges_and_node_lines(make_cluster):
    c = make_cluster(*SMALL)
    dev = os.path.join(c.dir, "dev")
    for f in ("a/nvidia0", "a/nvidia1", "b/nvidia0"):  # b/nvidia1 is missing
        touch(os.path.join(dev, f))
    write_gres(c, "gpu:h100:2(S:0),nic:2",
               "# two GPUs a node, each from its own files\n"
               f"NodeName=node01 Name=gpu Type=h100 File={dev}/a/nvidia[0-1] "
               "Cores=0-1 Links=-1,0\n"
               f"NodeName=node02 Name=gpu Type=h100 File={dev}/b/nvidia[0-1]\n"
               "Name=nic Count=2   # counted only\n")
    c.up()
    wait_registered(c)
    for node in ("node01", "node02"):
        assert node_field(c, node, "Gres") == "gpu:h100:2(S:0),nic:2"
        assert (node_field(c, node, "GresUsed", details=True)
                == "gpu:h100:0(IDX:N/A),nic:0")
    assert sinfo_nodes(c, "%N %G") == ["node01 gpu:h100:2(S:0),nic:2",
                                       "node02 gpu:h100:2(S:0),nic:2"]
    # the NodeName= line of node02 names a file that does not exist
    assert "DRAIN" not in node_field(c, "node01", "State")
    assert "DRAIN" in node_field(c, "node02", "State")
    assert node_field(c, "node02", "Reason").startswith(LOW.format(1, 2))
    log = open(os.path.join(c.dir, "log", "rotad-node01.log")).read()
    assert "gres: gpu:h100:2,nic:2" in log
    log = open(os.path.join(c.dir, "log", "rotad-node02.log")).read()
    assert "gres: gpu:h100:1,nic:2" in log


def test_count_only_gres_lower_than_configured(make_cluster):
    c = make_cluster(*SMALL)
    write_gres(c, "nic:4", "NodeName=node01 Name=nic Count=4\n"
                           "NodeName=node02 Name=nic Count=3\n", types="nic")
    c.up()
    wait_registered(c)
    assert "DRAIN" not in node_field(c, "node01", "State")
    assert node_field(c, "node02", "Reason").startswith(
        "gres/nic count reported lower than configured (3 < 4)")
    # no files: no device indexes
    assert node_field(c, "node01", "GresUsed", details=True) == "nic:0"


def test_autodetect_nvml_with_a_fake_nvml(make_cluster):
    """AutoDetect=nvml: rotad loads the NVML named by ROTA_NVML_LIB (the unit
    tests' fake: four "NVIDIA H100 80GB HBM3"); the configured type h100 is a
    part of the device name, so the GPUs are gpu:h100."""
    fake = {"ROTA_NVML_LIB": str(BUILD / "tests" / "libfake_nvml.so")}
    assert os.path.exists(fake["ROTA_NVML_LIB"])
    c = make_cluster(*SMALL)
    write_gres(c, "gpu:h100:4", "AutoDetect=nvml\n", types="gpu")
    c.up(env=fake)
    wait_registered(c)
    for node in ("node01", "node02"):
        assert "DRAIN" not in node_field(c, node, "State")
        assert (node_field(c, node, "GresUsed", details=True)
                == "gpu:h100:0(IDX:N/A)")
    log = open(os.path.join(c.dir, "log", "rotad-node01.log")).read()
    assert "gres: NVML found 4 GPUs" in log and "gres: gpu:h100:4" in log, log
    # more configured than NVML finds: drained
    c.down()
    conf = open(c.conf_path).read().replace("Gres=gpu:h100:4", "Gres=gpu:h100:8")
    with open(c.conf_path, "w") as f:
        f.write(conf)
    c.up(env=fake)
    wait_registered(c)
    assert node_field(c, "node01", "Reason").startswith(LOW.format(4, 8))


def test_bad_gres_conf_line_is_refused_with_file_and_line(make_cluster):
    c = make_cluster(*SMALL)
    write_gres(c, "gpu:1", "Name=gpu Count=1\n\nName=gpu Wibble=1\n", types="gpu")
    p = c.up(check=False)
    assert p.returncode != 0, p.stdout
    path = os.path.join(c.dir, "gres.conf")
    log = open(os.path.join(c.dir, "log", "rotad-node01.log")).read()
    want = f"{path}:3: unknown key 'Wibble'"
    assert want in log or want in p.stderr, (p.stderr, log)
