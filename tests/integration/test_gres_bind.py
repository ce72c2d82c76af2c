"""GPUs bound to CPUs and tasks: a node's CfgTRES/AllocTRES count its GPUs,
--gres-flags=enforce-binding gives a job only CPUs near its GPUs (gres.conf
Cores=) or keeps it waiting, disable-binding takes the lowest free GPU
whatever CPUs are near, --gpu-bind and --gpus-per-task give each task its
own CUDA_VISIBLE_DEVICES, and --gpus-per-socket counts per socket.

Two `rota up --gpus 4` nodes of 8 CPUs on 2 sockets: node01's GPU k is near
CPUs 2k and 2k+1, every GPU of node02 near CPUs 0-3."""

import os
import re

import pytest

from conftest import module_cluster_with

UP = ("--nodes", "2", "--cpus", "8", "--mem", "8192", "--gpus", "4")
UP_TYPED = ("--nodes", "1", "--cpus", "2", "--mem", "2048", "--gpus", "2")


def add_cores(conf_path):
    with open(conf_path) as f:
        conf = f.read()
    with open(conf_path, "w") as f:  # two sockets of 4 cores
        f.write(conf.replace(" CPUs=8 ", " CPUs=8 Sockets=2 CoresPerSocket=4 "
                             "ThreadsPerCore=1 "))
    d = os.path.dirname(conf_path)
    lines = [f"NodeName=node01 Name=gpu File={d}/dev/node01/nvidia{k} "
             f"Cores={2 * k}-{2 * k + 1}" for k in range(4)]
    lines += [f"NodeName=node02 Name=gpu File={d}/dev/node02/nvidia{k} Cores=0-3"
              for k in range(4)]
    with open(os.path.join(d, "gres.conf"), "w") as f:
        f.write("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def module_cluster():
    """This module's cluster (conftest's `cluster` gives each test a work
    directory and cancels its jobs after it)."""
    yield from module_cluster_with(rewrite_conf=add_cores, up_args=UP)


def show_node(c, name):
    return c.run(["scontrol", "show", "node", name], check=True).stdout


def show_job(c, job):
    return c.run(["scontrol", "-d", "show", "job", str(job)], check=True).stdout


# ---- CfgTRES / AllocTRES ----

def test_node_tres_counts_gpus(cluster):
    c = cluster
    out = show_node(c, "node01")
    assert re.search(r"CfgTRES=cpu=8,mem=8G,billing=8,gres/gpu=4\s", out), out
    assert re.search(r"AllocTRES=\s", out), out
    j = c.sbatch("-w", "node01", "-c2", "--mem=1G", "--gres=gpu:3", "--wrap",
                 "sleep 60")
    c.wait_running(j)
    out = show_node(c, "node01")
    assert re.search(r"AllocTRES=cpu=2,mem=1G,gres/gpu=3\s", out), out
    assert re.search(r"\bTRES=cpu=2,mem=1G,node=1,billing=2,gres/gpu=3\s",
                     show_job(c, j))
    # the other node holds none
    assert re.search(r"AllocTRES=\s", show_node(c, "node02"))


def make_typed(conf_path):
    """node01's 2 GPUs are h100s."""
    with open(conf_path) as f:
        conf = f.read()
    with open(conf_path, "w") as f:
        f.write(conf.replace("Gres=gpu:2", "Gres=gpu:h100:2"))
    gres = os.path.join(os.path.dirname(conf_path), "gres.conf")
    with open(gres) as f:
        text = f.read()
    with open(gres, "w") as f:
        f.write(text.replace("Name=gpu ", "Name=gpu Type=h100 "))


@pytest.fixture(scope="module")
def typed():
    yield from module_cluster_with(rewrite_conf=make_typed, up_args=UP_TYPED)


def test_typed_gres_in_tres_when_tracked(typed):
    """Typed GPUs count in TRES only where AccountingStorageTRES names them."""
    c = typed
    tracked = os.path.join(c.dir, "tracked.conf")
    with open(c.conf_path) as f, open(tracked, "w") as t:
        t.write(f.read() + "AccountingStorageTRES=gres/gpu,gres/gpu:h100\n")
    j = c.sbatch("--gres=gpu:h100:1", "--wrap", "sleep 60")
    c.wait_running(j)
    try:
        node = show_node(c, "node01")
        assert re.search(r"CfgTRES=cpu=2,mem=2G,billing=2,gres/gpu=2\s", node), node
        assert re.search(r"AllocTRES=cpu=1,gres/gpu=1\s", node), node
        assert re.search(r"\bTRES=cpu=1,node=1,billing=1,gres/gpu=1\s",
                         show_job(c, j))
        env = {"SLURM_CONF": tracked}
        node = c.run(["scontrol", "show", "node", "node01"], env=env).stdout
        assert re.search(r"CfgTRES=\S+,gres/gpu=2,gres/gpu:h100=2\s", node), node
        assert re.search(r"AllocTRES=\S+,gres/gpu=1,gres/gpu:h100=1\s", node), node
        out = c.run(["scontrol", "show", "job", str(j)], env=env).stdout
        assert re.search(r"\bTRES=\S+,gres/gpu=1,gres/gpu:h100=1\s", out), out
    finally:
        c.cancel_all()


# ---- --gres-flags ----

def test_enforce_binding_takes_cpus_near_the_gpu(cluster):
    c = cluster
    cpu_job = c.sbatch("-w", "node01", "-c3", "--wrap", "sleep 60")  # CPUs 0-2
    c.wait_running(cpu_job)
    assert "CPU_IDs=0-2" in show_job(c, cpu_job)
    j = c.sbatch("-w", "node01", "-c2", "--gres=gpu:1",
                 "--gres-flags=enforce-binding", "--wrap", "sleep 60")
    c.wait_running(j)
    out = show_job(c, j)
    # GPU 1 (CPUs 2-3) has one near CPU left; GPU 2 or 3 has both free
    m = re.search(r"Nodes=node01 CPU_IDs=(\S+) Mem=\d+ GRES=gpu:1\(IDX:(\d)\)", out)
    assert m, out
    idx = int(m.group(2))
    assert idx in (2, 3) and m.group(1) == f"{2 * idx}-{2 * idx + 1}", out


def test_enforce_binding_looks_elsewhere(cluster):
    """Three CPUs near one GPU: none on node01 (2 each), node02 has 4."""
    c = cluster
    j = c.sbatch("-c3", "--gres=gpu:1", "--gres-flags=enforce-binding",
                 "--wrap", "sleep 60")
    c.wait_running(j)
    out = show_job(c, j)
    assert re.search(r"Nodes=node02 CPU_IDs=0-2 ", out), out


def test_enforce_binding_waits(cluster):
    """Five CPUs near one GPU: no node can; without the flag it runs."""
    c = cluster
    j = c.sbatch("-c5", "--gres=gpu:1", "--gres-flags=enforce-binding",
                 "--wrap", "sleep 60")
    free = c.sbatch("-c5", "--gres=gpu:1", "--wrap", "sleep 60")
    # started by backfill (bf_interval, 30 s by default): up to a pass late
    c.wait_running(free, timeout=75)
    c.wait_for(lambda: c.job_field(j, "Reason") == "Resources",
               what="enforce-binding job waiting for Resources")
    assert c.job_state(j) == "PENDING"
    # and it still waits once the other ends
    c.run(["scancel", str(free)])
    c.wait_job(free)
    c.wait_nodes_idle()
    assert c.job_state(j) == "PENDING"


def test_enforce_binding_planned_by_backfill(cluster):
    """Waiting for CPUs near a GPU that are busy now, the job still gets a
    planned start (backfill plans as if the node were free at its end)."""
    c = cluster
    busy = c.sbatch("-w", "node01", "-c8", "-t", "5", "--wrap", "sleep 120")
    c.wait_running(busy)
    j = c.sbatch("-w", "node01", "-c2", "--gres=gpu:1", "-t", "5",
                 "--gres-flags=enforce-binding", "--wrap", "sleep 60")
    c.wait_for(lambda: c.job_field(j, "StartTime") not in (None, "Unknown"),
               timeout=40, what="a planned start")
    assert c.job_state(j) == "PENDING"


def test_disable_binding_takes_the_lowest_gpu(cluster):
    c = cluster
    cpu_job = c.sbatch("-w", "node01", "-c2", "--wrap", "sleep 60")  # GPU 0's CPUs
    c.wait_running(cpu_job)
    near = c.sbatch("-w", "node01", "-c2", "--gres=gpu:1", "--wrap", "sleep 60")
    c.wait_running(near)
    assert re.search(r"CPU_IDs=2-3 Mem=\d+ GRES=gpu:1\(IDX:1\)", show_job(c, near))
    far = c.sbatch("-w", "node01", "-c2", "--gres=gpu:1",
                   "--gres-flags=disable-binding", "--wrap", "sleep 60")
    c.wait_running(far)
    out = show_job(c, far)
    # the lowest free GPU (0, whose CPUs are taken), the lowest free CPUs
    assert re.search(r"CPU_IDs=4-5 Mem=\d+ GRES=gpu:1\(IDX:0\)", out), out


# ---- --gpu-bind, --gpus-per-task ----

TASK_REPORT = ("srun {opts} bash -c 'echo task=$SLURM_LOCALID "
               "cvd=$CUDA_VISIBLE_DEVICES ord=$GPU_DEVICE_ORDINAL "
               "rocr=$ROCR_VISIBLE_DEVICES job=$SLURM_JOB_GPUS'")


def task_gpus(c, *sbatch_args, opts=""):
    """{local task id: its CUDA_VISIBLE_DEVICES} of one srun in a job on
    node01 (ConstrainDevices: the step's GPUs count from 0), and the job's
    output."""
    out = os.path.join(c.dir, f"bind-{len(os.listdir(c.dir))}.out")
    j = c.sbatch("-w", "node01", "-o", out, *sbatch_args, "--wrap",
                 TASK_REPORT.format(opts=opts))
    assert c.wait_job(j) == "COMPLETED", open(out).read()
    text = open(out).read()
    got = {}
    for m in re.finditer(r"task=(\d+) cvd=(\S*) ord=(\S*) rocr=(\S*) job=(\S*)", text):
        assert m.group(2) == m.group(3) == m.group(4), text
        got[int(m.group(1))] = m.group(2)
    return got, text


def test_gpu_bind_map_gpu(cluster):
    got, text = task_gpus(cluster, "-n2", "--gres=gpu:2", opts="--gpu-bind=map_gpu:1,0")
    assert got == {0: "1", 1: "0"}, text
    # without it every task sees both
    got, text = task_gpus(cluster, "-n2", "--gres=gpu:2")
    assert got == {0: "0,1", 1: "0,1"}, text


def test_gpu_bind_from_sbatch_and_verbose(cluster):
    got, text = task_gpus(cluster, "-n3", "--gres=gpu:2",
                          "--gpu-bind=verbose,mask_gpu:0x2,0x3,0x1")
    assert got == {0: "1", 1: "0,1", 2: "0"}, text
    assert re.search(r"gpu-bind: usable_gres=0x2; bit_alloc=0x3; local_inx=0;", text), text


def test_gpus_per_task_binds_each_task(cluster):
    got, text = task_gpus(cluster, "-n2", "--gpus-per-task=2")
    assert got == {0: "0,1", 1: "2,3"}, text
    # --gpu-bind=none undoes it
    got, text = task_gpus(cluster, "-n2", "--gpus-per-task=1", opts="--gpu-bind=none")
    assert got == {0: "0,1", 1: "0,1"}, text


def test_gpu_bind_closest(cluster):
    """Each task's CPUs (its share: 0-1, 2-3) are near one GPU of node01."""
    got, text = task_gpus(cluster, "-n2", "-c2", "--gres=gpu:2",
                          opts="--cpu-bind=cores --gpu-bind=closest")
    assert got == {0: "0", 1: "1"}, text


def test_gpu_bind_refused_when_invalid(cluster):
    p = cluster.run(["sbatch", "--gpu-bind=nearest", "--wrap", "true"])
    assert p.returncode != 0 and "Invalid --gpu-bind" in p.stderr, p.stderr


# ---- --gpus-per-socket ----

def test_gpus_per_socket_needs_sockets_per_node(cluster):
    p = cluster.run(["sbatch", "--gpus-per-socket=1", "--wrap", "true"])
    assert p.returncode != 0, p.stdout
    assert "--gpus-per-socket option requires --sockets-per-node" in p.stderr, p.stderr


def test_gpus_per_socket_times_sockets(cluster):
    c = cluster
    assert re.search(r"Sockets=2 ", show_node(c, "node01"))
    j = c.sbatch("-w", "node01", "--sockets-per-node=2", "--gpus-per-socket=2",
                 "--wrap", "sleep 60")
    c.wait_running(j)
    out = show_job(c, j)
    assert re.search(r"Nodes=node01 CPU_IDs=\S+ Mem=\d+ GRES=gpu:4\(IDX:0-3\)", out), out
    c.run(["scancel", str(j)])
    j = c.sbatch("-w", "node01", "-B", "1", "--gpus-per-socket=3", "--wrap", "sleep 60")
    c.wait_running(j)
    assert re.search(r"GRES=gpu:3\(IDX:0-2\)", show_job(c, j))


@pytest.mark.parametrize("args", [("--sockets-per-node=3", "--gpus-per-socket=1"),
                                  ("--sockets-per-node=2", "--gpus-per-socket=3")])
def test_gpus_per_socket_beyond_the_nodes_refused(cluster, args):
    p = cluster.run(["sbatch", *args, "--wrap", "true"])
    assert p.returncode != 0, p.stdout
    assert "Requested node configuration is not available" in p.stderr, p.stderr
