"""GPUs scheduled, bound and shown: jobs get GPUs as consumable devices on
`rota up --gpus 4` nodes (the tutorial's GPU script as written, the seed's
"2 servers x 4 GPUs" job), see exactly theirs in CUDA_VISIBLE_DEVICES and
SLURM_JOB_GPUS, keep them across a controller restart, are planned by
backfill around them, and are refused at submit in Slurm's words when no
node could ever give what they ask."""

import os
import re
import time

import pytest

from conftest import module_cluster_with

UP = ("--nodes", "3", "--cpus", "8", "--mem", "65536", "--gpus", "4")

TUTORIAL_GPU = """#!/bin/bash
#SBATCH --job-name=gpu-demo
#SBATCH --partition=gpu
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=8
#SBATCH --mem=32G
#SBATCH --gres=gpu:1
#SBATCH --time=01:00:00
#SBATCH --output=slurm-%j.out
srun nvidia-smi
srun python train.py
"""

ENV_REPORT = ('echo "host=$SLURMD_NODENAME job=$SLURM_JOB_GPUS '
              'cvd=$CUDA_VISIBLE_DEVICES step=$SLURM_STEP_GPUS '
              'on=$SLURM_GPUS_ON_NODE"')
STEP_REPORT = f"srun bash -c '{ENV_REPORT}'"  # each task's own environment


@pytest.fixture(scope="module")
def module_cluster():
    """This module's cluster (conftest's `cluster` gives each test a work
    directory and cancels its jobs after it)."""
    yield from module_cluster_with(up_args=UP)


def report(c, path):
    """{host: (job gpus, cuda visible devices, step gpus, on node)} of the
    lines a job's tasks wrote."""
    c.wait_for(lambda: os.path.exists(path) and open(path).read().strip(),
               what=f"output in {path}")
    out = {}
    for line in open(path).read().splitlines():
        m = re.search(r"host=(\S*) job=(\S*) cvd=(\S*) step=(\S*) on=(\S*)", line)
        if m:
            out[m.group(1)] = m.group(2, 3, 4, 5)
    return out


def gpus(s):
    return [int(x) for x in s.split(",")] if s else []


def test_tutorial_gpu_script_as_written(cluster):
    """The tutorial's script: partition gpu, 8 CPUs, 32G, --gres=gpu:1, srun
    nvidia-smi and srun python train.py; both steps see the one GPU."""
    c = cluster
    bindir = c.work / "fakebin"
    bindir.mkdir(exist_ok=True)
    for name, body in (("nvidia-smi", 'echo "GPU $CUDA_VISIBLE_DEVICES"\n'),
                       ("python", 'exec python3 "$@"\n')):
        p = bindir / name
        p.write_text("#!/bin/sh\n" + body)
        p.chmod(0o755)
    (c.work / "train.py").write_text(
        "import os\nprint('train', os.environ['SLURM_JOB_GPUS'], "
        "os.environ['CUDA_VISIBLE_DEVICES'], os.environ['SLURM_STEP_GPUS'])\n")
    (c.work / "gpu-demo.sh").write_text(TUTORIAL_GPU)
    env = {"PATH": f"{bindir}:{c.env['PATH']}"}
    j = c.sbatch("gpu-demo.sh", env=env)
    assert c.wait_job(j) == "COMPLETED"
    out = (c.work / f"slurm-{j}.out").read_text().split("\n")
    assert out[0] == "GPU 0", out  # its one GPU, numbered 0 (ConstrainDevices)
    m = re.fullmatch(r"train (\d) 0 (\d)", out[1])
    assert m and m.group(1) == m.group(2), out
    assert c.job_field(j, "TresPerNode") == "gres:gpu:1"
    assert "gres/gpu=1" in c.job_field(j, "TRES")


def test_concurrent_jobs_get_disjoint_gpus(cluster):
    """Four one-GPU jobs on a 4-GPU node hold four different GPUs; a fifth
    waits for Resources until one ends, then takes the GPU it freed."""
    c = cluster
    jobs = [c.sbatch("-w", "node01", "--gres=gpu:1", "-o", f"one-{i}.out",
                     "--wrap", ENV_REPORT + "; sleep 30") for i in range(4)]
    for j in jobs:
        assert c.wait_running(j) == "RUNNING"
    held = [report(c, str(c.work / f"one-{i}.out"))["node01"] for i in range(4)]
    assert sorted(int(h[0]) for h in held) == [0, 1, 2, 3]
    # rota up's cgroup.conf has ConstrainDevices=yes: as in Slurm, the one GPU
    # a job's device cgroup leaves it is CUDA's device 0 (doc/gpus.md)
    assert all(h[1] == "0" and h[3] == "1" for h in held), held
    used = c.run(["scontrol", "-d", "show", "node", "node01"]).stdout
    assert "GresUsed=gpu:4(IDX:0-3)" in used, used
    fifth = c.sbatch("-w", "node01", "--gres=gpu:1", "-o", "one-4.out", "--wrap",
                     ENV_REPORT)
    time.sleep(1)
    assert c.job_state(fifth) == "PENDING"
    # the node has free CPUs: it is the GPUs it waits for
    assert int(c.job_field(jobs[0], "NumCPUs")) == 1
    c.run(["scancel", str(jobs[2])], check=True)
    assert c.wait_job(fifth) == "COMPLETED"
    assert report(c, str(c.work / "one-4.out"))["node01"][0] == held[2][0]


def test_two_servers_four_gpus_each(cluster):
    """The seed's training job, 2 nodes x 4 GPUs, starts only when two nodes
    have all their GPUs free at once."""
    c = cluster
    busy = [c.sbatch("-w", n, "--gres=gpu:1", "--wrap", "sleep 60")
            for n in ("node01", "node02")]
    for j in busy:
        c.wait_running(j)
    big = c.sbatch("-N2", "--gpus-per-node=4", "-o", "big.out", "--wrap",
                   STEP_REPORT)
    time.sleep(2)
    assert c.job_state(big) == "PENDING"
    assert c.job_field(big, "Reason") in ("Resources", "Priority")
    c.run(["scancel", str(busy[0])], check=True)
    assert c.wait_job(big) == "COMPLETED"
    rep = report(c, str(c.work / "big.out"))
    assert sorted(rep) == ["node01", "node03"], rep
    for host, (job, cvd, step, on) in rep.items():
        assert gpus(job) == [0, 1, 2, 3] and cvd == step == job and on == "4"


def test_updated_request_scheduled_anew(cluster):
    """A waiting GPU job's request is parsed once and kept, until it changes:
    after `scontrol update NumNodes=2` the job asks for 2 nodes of 4 GPUs,
    not the 3 it was submitted with."""
    c = cluster
    busy = c.sbatch("-w", "node01", "--gres=gpu:1", "--wrap", "sleep 60")
    c.wait_running(busy)
    wide = c.sbatch("-N3", "--gpus-per-node=4", "--wrap", "sleep 30")
    time.sleep(2)  # scheduled (and its request kept) at least once
    assert c.job_state(wide) == "PENDING"
    assert c.job_field(wide, "Reason") in ("Resources", "Priority")
    c.run(["scontrol", "update", f"JobId={wide}", "NumNodes=2"], check=True)
    c.wait_running(wide)
    assert c.job_field(wide, "NodeList") == "node[02-03]"
    assert c.job_field(wide, "NumNodes") == "2"


def test_gpus_per_job_and_per_task(cluster):
    """--gpus=6 over two nodes gives 6 in all; --gpus-per-task=1 with
    --cpus-per-gpu=2 gives each task a GPU and two CPUs."""
    c = cluster
    j = c.sbatch("-N2", "--gpus=6", "-o", "six.out", "--wrap", STEP_REPORT)
    assert c.wait_job(j) == "COMPLETED"
    rep = report(c, str(c.work / "six.out"))
    assert sum(len(gpus(r[0])) for r in rep.values()) == 6, rep
    assert c.job_field(j, "TresPerJob") == "gres:gpu:6"
    assert "gres/gpu=6" in c.job_field(j, "TRES")
    j = c.sbatch("-n3", "--gpus-per-task=1", "--cpus-per-gpu=2", "-o", "pt.out",
                 "--wrap", STEP_REPORT)
    assert c.wait_job(j) == "COMPLETED"
    assert c.job_field(j, "NumCPUs") == "6"
    assert c.job_field(j, "TresPerTask") == "gres:gpu:1"
    assert c.job_field(j, "CpusPerTres") == "gres:gpu:2"
    total = sum(len(gpus(r[0])) for r in report(c, str(c.work / "pt.out")).values())
    assert total == 3


def test_ntasks_per_gpu(cluster):
    """--ntasks-per-gpu: -n gives the GPUs (a multiple), GPUs give the tasks;
    each task is bound to one GPU (gpu-bind single:n), the steps see
    SLURM_NTASKS_PER_GPU; refused beside --gpus-per-task or
    --ntasks-per-node in Slurm's words."""
    c = cluster
    j = c.sbatch("-n4", "--ntasks-per-gpu=2", "-o", "ng.out", "--wrap",
                 f"echo n=$SLURM_NTASKS_PER_GPU; {STEP_REPORT}")
    assert c.wait_job(j) == "COMPLETED"
    assert c.job_field(j, "TresPerJob") == "gres:gpu:2"
    assert "n=2\n" in open(c.work / "ng.out").read()
    j = c.sbatch("--gpus=2", "--ntasks-per-gpu=2", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_job(j) == "COMPLETED"
    assert c.job_field(j, "NumTasks") == "4"
    p = c.run(["srun", "--gpus=2", "--ntasks-per-gpu=2", "-l", "bash", "-c",
               "echo $CUDA_VISIBLE_DEVICES"], timeout=60)
    assert p.returncode == 0, p.stderr
    seen = sorted(line.split(": ")[1] for line in p.stdout.splitlines())
    assert len(seen) == 4 and len(set(seen)) == 2 and all("," not in v for v in seen), \
        p.stdout
    for args, err in ((["--gpus-per-task=1"], "--gpus-per-task is mutually exclusive "
                       "with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU"),
                      (["--ntasks-per-node=2"], "--ntasks-per-node is mutually "
                       "exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU"),
                      (["--ntasks-per-gpu=2", "-n3"], "-n/--ntasks has to be a "
                       "multiple of --ntasks-per-gpu")):
        p = c.run(["sbatch", "-n2", "--ntasks-per-gpu=1", *args, "--wrap", "true"])
        assert p.returncode != 0 and err in p.stderr, p.stderr


@pytest.mark.parametrize("args,error", [
    (["--gres=gpu:5"], "Requested node configuration is not available"),
    (["-N2", "--gpus=9"], "Requested node configuration is not available"),
    (["--gres=tpu:1"], "Invalid generic resource (gres) specification"),
    # a type no node has, of a GRES that exists: no node suits it
    (["--gpus=h100:1"], "Requested node configuration is not available"),
    (["--gpus=abc"], "Invalid --gpus specification"),
    (["--gpus-per-task=0"], "Invalid --gpus-per-task specification"),
    (["--gres-flags=sometimes"], "Invalid --gres-flags specification"),
])
def test_unsatisfiable_refused(cluster, args, error):
    c = cluster
    before = c.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout
    p = c.run(["sbatch", *args, "--wrap", "true"])
    assert p.returncode != 0 and error in p.stderr, p.stderr
    assert c.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout == before


def test_gpus_kept_across_restart_and_planned(cluster):
    """A running job's GPUs are still its own after the controller restarts
    (from its journal and state image); a job wanting them all is planned at
    its end by backfill, and a one-GPU job backfills beside it."""
    c = cluster
    long = c.sbatch("-w", "node02", "--gres=gpu:3", "-t", "5", "-o", "long.out",
                    "--wrap", ENV_REPORT + "; sleep 120")
    c.wait_running(long)
    held = report(c, str(c.work / "long.out"))["node02"][0]
    c.kill_daemon("rotactld")
    c.up()
    c.wait_for(lambda: c.job_state(long) == "RUNNING", what="job back")
    assert gpus(held) == [0, 1, 2]  # the lowest free first
    used = c.run(["scontrol", "-d", "show", "node", "node02"]).stdout
    assert "GresUsed=gpu:3(IDX:0-2)" in used, used
    want_all = c.sbatch("-w", "node02", "--gres=gpu:4", "-t", "5", "--wrap", "true")
    small = c.sbatch("-w", "node02", "--gres=gpu:1", "-t", "1", "-o", "small.out",
                     "--wrap", ENV_REPORT)
    assert c.wait_job(small, timeout=60) == "COMPLETED"
    free = set(range(4)) - set(gpus(held))
    assert gpus(report(c, str(c.work / "small.out"))["node02"][0]) == sorted(free)
    assert c.job_state(want_all) == "PENDING"
    c.wait_for(lambda: c.job_field(want_all, "StartTime") not in (None, "Unknown"),
               timeout=40, what="a planned start")


STEPS = r"""#!/bin/bash
R='echo "step=$SLURM_STEP_ID mine=$SLURM_STEP_GPUS cvd=$CUDA_VISIBLE_DEVICES"'
srun -n1 --exact --gpus=1 bash -c "$R; sleep 3" &
srun -n1 --exact --gpus=2 bash -c "$R; sleep 3" &
sleep 1
srun -n1 --exact --gpus=1 bash -c "$R" &
wait
srun -n1 --gpus=5 true
echo "too many rc=$?"
srun -n1 bash -c "$R"
srun -n1 --gpus-per-task=1 bash -c "$R"
"""


def test_steps_take_gpus_out_of_the_job(cluster):
    """Steps hold GPUs of the job's allocation as they hold CPUs: concurrent
    steps get disjoint ones, a step asking more than the job has fails in
    Slurm's words, a step asking nothing gets all of the job's."""
    c = cluster
    (c.work / "steps.sh").write_text(STEPS)
    j = c.sbatch("-w", "node01", "--gres=gpu:4", "-n3", "-o", "steps.out", "steps.sh")
    assert c.wait_job(j, timeout=60) == "COMPLETED"
    out = (c.work / "steps.out").read_text()
    steps = {}
    for m in re.finditer(r"step=(\d+) mine=(\S*) cvd=(\S*)", out):
        # ConstrainDevices (rota up --gpus): CUDA counts the step's from 0
        assert gpus(m.group(3)) == list(range(len(gpus(m.group(2))))), out
        steps[int(m.group(1))] = gpus(m.group(2))
    concurrent = [steps[0], steps[1], steps[2]]
    assert sorted(len(s) for s in concurrent) == [1, 1, 2], out
    assert sorted(sum(concurrent, [])) == [0, 1, 2, 3], out
    assert "Invalid generic resource (gres) specification" in out
    assert "too many rc=1" in out
    # the refused step took no id
    assert steps[3] == [0, 1, 2, 3], out  # nothing asked: all of the job's
    assert len(steps[4]) == 1, out


def test_sacct_shows_the_gpus(cluster):
    """Accounting keeps what a job held: sacct AllocTRES has gres/gpu (and
    --json its tres.allocated), in Slurm's order."""
    import json
    c = cluster
    j = c.sbatch("-N2", "--gpus-per-node=2", "--wrap", "true")
    assert c.wait_job(j) == "COMPLETED"

    def alloc():
        p = c.run(["sacct", "-j", str(j), "-X", "-n", "-P", "-o", "AllocTRES"])
        return p.stdout.strip() if "gres/gpu" in p.stdout else None
    tres = c.wait_for(alloc, timeout=30, what="sacct AllocTRES")
    assert re.fullmatch(r"billing=2,cpu=2,gres/gpu=4(,mem=\S+)?,node=2", tres), tres
    p = c.run(["sacct", "-j", str(j), "--json"])
    got = json.loads(p.stdout)["jobs"][0]["tres"]["allocated"]
    assert {"type": "gres", "name": "gpu", "id": 1001, "count": 4} in got, got


def add_cores(conf_path):
    """gres.conf: GPU k of node01 is near CPUs 2k and 2k+1."""
    d = os.path.dirname(conf_path)
    lines = [f"NodeName=node01 Name=gpu File={d}/dev/node01/nvidia{k} "
             f"Cores={2 * k}-{2 * k + 1}" for k in range(4)]
    with open(os.path.join(d, "gres.conf"), "w") as f:
        f.write("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def near():
    yield from module_cluster_with(
        rewrite_conf=add_cores,
        up_args=("--nodes", "1", "--cpus", "8", "--mem", "8192", "--gpus", "4"))


def test_gpus_near_the_jobs_cpus(near):
    """With gres.conf Cores=, a job gets the GPU whose CPUs are free and the
    CPUs next to it (scontrol -d show job: CPU_IDs, GRES)."""
    c = near
    cpu_job = c.sbatch("-c2", "--wrap", "sleep 60")  # CPUs 0-1, GPU 0's
    c.wait_running(cpu_job)
    gpu_job = c.sbatch("-c2", "--gres=gpu:1", "--wrap", "sleep 60")
    c.wait_running(gpu_job)
    show = c.run(["scontrol", "-d", "show", "job", str(gpu_job)]).stdout
    assert re.search(r"JOB_GRES=gpu:1\b", show), show
    assert re.search(r"Nodes=node01 CPU_IDs=2-3 Mem=\d+ GRES=gpu:1\(IDX:1\)", show), show
    show = c.run(["scontrol", "-d", "show", "job", str(cpu_job)]).stdout
    assert "CPU_IDs=0-1" in show, show
    c.cancel_all()
