"""ConstrainDevices: a job's tasks open only the GPU device files it was
given.  `rota up --gpus 4` writes cgroup.conf with ConstrainDevices=yes and
makes each node's GPUs character devices 195:K, mode 0666 (no driver: an
open that gets through fails with ENXIO; one the device cgroup stops, with
EPERM).  CUDA_VISIBLE_DEVICES then numbers the job's GPUs 0..n-1 as Slurm
does under a device cgroup; SLURM_JOB_GPUS keeps the node's indexes.  With
ConstrainDevices=no nothing is denied."""

import os
import re
import shutil
import stat

import pytest

from conftest import module_cluster_with
from unixusers import needs_root, sbatch_as, user_work

UP = ("--nodes", "1", "--cpus", "4", "--mem", "4096", "--gpus", "4")

PROBE = r"""import errno, os
node = os.environ["SLURMD_NODENAME"]
res = []
for k in range(4):
    try:
        os.close(os.open(f"{DIR}/dev/{node}/nvidia{k}", os.O_RDONLY))
        res.append("OK")
    except OSError as e:
        res.append(errno.errorcode[e.errno])
print("open=" + ",".join(res), "job=" + os.environ.get("SLURM_JOB_GPUS", ""),
      "cvd=" + os.environ.get("CUDA_VISIBLE_DEVICES", ""),
      "ord=" + os.environ.get("GPU_DEVICE_ORDINAL", ""),
      "rocr=" + os.environ.get("ROCR_VISIBLE_DEVICES", ""), flush=True)
"""

pytestmark = pytest.mark.skipif(os.geteuid() != 0,
                                reason="device files and cgroups need root")


@pytest.fixture(scope="module")
def module_cluster():
    """This module's cluster (conftest's `cluster` gives each test a work
    directory and cancels its jobs after it)."""
    yield from module_cluster_with(up_args=UP)


def probe_file(c, where):
    path = os.path.join(where, "probe.py")
    with open(path, "w") as f:
        f.write(PROBE.replace("{DIR}", c.dir))
    os.chmod(path, 0o644)
    return path


def result(c, out):
    """(open errno names by GPU index, SLURM_JOB_GPUS, CUDA_VISIBLE_DEVICES,
    GPU_DEVICE_ORDINAL, ROCR_VISIBLE_DEVICES) of a probe's output file."""
    c.wait_for(lambda: os.path.exists(out) and "open=" in open(out).read(),
               what=f"probe output in {out}")
    text = open(out).read()
    m = re.search(r"open=(\S+) job=(\S*) cvd=(\S*) ord=(\S*) rocr=(\S*)", text)
    assert m, text
    return (m.group(1).split(","),) + m.group(2, 3, 4, 5)


def run_probe(c, *args, where=None):
    where = where or c.dir
    probe = probe_file(c, where)
    out = os.path.join(where, f"probe-{len(os.listdir(where))}.out")
    job = c.sbatch(*args, f"--output={out}", "--wrap", f"python3 {probe}")
    assert c.wait_job(job) == "COMPLETED", c.logs()
    return result(c, out)


def gpus(s):
    return [int(x) for x in s.split(",")] if s else []


def allowed(opens):
    """The GPU indexes the device cgroup let through (any error but EPERM)."""
    return [k for k, r in enumerate(opens) if r != "EPERM"]


def test_rota_up_writes_cgroup_conf_and_open_devices(cluster):
    text = open(os.path.join(cluster.dir, "cgroup.conf")).read()
    assert re.search(r"^ConstrainDevices=yes$", text, re.M), text
    for k in range(4):
        st = os.stat(f"{cluster.dir}/dev/node01/nvidia{k}")
        assert stat.S_ISCHR(st.st_mode)
        # every user may open it: what stops a job is the cgroup
        assert stat.S_IMODE(st.st_mode) == 0o666


def test_job_opens_only_its_gpu(cluster):
    opens, job, cvd, ordinal, rocr = run_probe(cluster, "--gres=gpu:1")
    assert len(gpus(job)) == 1
    assert allowed(opens) == gpus(job), opens
    assert opens[gpus(job)[0]] == "ENXIO"  # no driver answers: not denied
    assert opens.count("EPERM") == 3
    # the one GPU the job sees is its device 0
    assert (cvd, ordinal, rocr) == ("0", "0", "0")


def test_indexes_after_another_jobs_gpu(cluster):
    """With GPU 0 held by a running job, a two-GPU job gets 1 and 2: it opens
    those, CUDA numbers them 0,1, SLURM_JOB_GPUS says 1,2."""
    holder = cluster.sbatch("--gres=gpu:1", f"--output={cluster.dir}/holder.out", "--wrap",
                       "sleep 60")
    cluster.wait_job(holder, states=("RUNNING",))
    opens, job, cvd, ordinal, rocr = run_probe(cluster, "--gres=gpu:2")
    assert gpus(job) == [1, 2]
    assert allowed(opens) == [1, 2], opens
    assert opens[0] == opens[3] == "EPERM"
    assert cvd == ordinal == rocr == "0,1"


def test_job_without_gpus_opens_none(cluster):
    opens, job, cvd, _, _ = run_probe(cluster)
    assert opens == ["EPERM"] * 4
    assert job == cvd == ""


def test_srun_tasks_constrained(cluster):
    """srun's tasks (a step, not the batch script) are held to the GPUs too."""
    probe = probe_file(cluster, cluster.dir)
    p = cluster.run(["srun", "-n2", "--gres=gpu:2", "python3", probe], timeout=60)
    assert p.returncode == 0, p.stderr + cluster.logs()
    lines = re.findall(r"open=(\S+) job=(\S*) cvd=(\S*)", p.stdout)
    assert len(lines) == 2, p.stdout
    for opens, job, cvd in lines:
        opens = opens.split(",")
        assert len(gpus(job)) == 2
        assert allowed(opens) == gpus(job), opens
        assert cvd == "0,1"


@needs_root
def test_other_users_job_measures_the_cgroup(cluster, users):
    """A test user's job: its GPU gets ENXIO (not EACCES: the files are 0666),
    the others EPERM."""
    a = users["a"]
    work = user_work()
    probe = probe_file(cluster, work)
    out = os.path.join(work, "user.out")
    job = sbatch_as(cluster, a, f"--gres=gpu:1 --output={out} --wrap 'python3 {probe}'",
                    cwd=work)
    assert cluster.wait_job(job) == "COMPLETED", cluster.logs()
    opens, jobgpus, cvd, _, _ = result(cluster, out)
    assert allowed(opens) == gpus(jobgpus), opens
    assert opens[gpus(jobgpus)[0]] == "ENXIO"
    assert "EACCES" not in opens
    assert cvd == "0"


def test_constrain_devices_no(cluster):
    """ConstrainDevices=no (rotad restarted): nothing is denied, and
    CUDA_VISIBLE_DEVICES carries the node's indexes.  Slurm's other keys are
    taken quietly, an unknown one with a warning."""
    path = os.path.join(cluster.dir, "cgroup.conf")
    before = open(path).read()
    try:
        cluster.down()
        with open(path, "w") as f:
            f.write("CgroupPlugin=autodetect\nConstrainCores=yes\n"
                    "ConstrainDevices=no\nNoSuchKey=1\n")
        cluster.up()
        # an unknown key is a warning, not a node that will not start
        log = os.path.join(cluster.dir, "log", "rotad-node01.log")
        cluster.wait_for(lambda: "cgroup.conf:4: unknown key 'NoSuchKey' ignored"
                    in open(log).read(), what="the warning in rotad's log")
        holder = cluster.sbatch("--gres=gpu:1", f"--output={cluster.dir}/holder2.out",
                           "--wrap", "sleep 60")
        cluster.wait_job(holder, states=("RUNNING",))
        opens, job, cvd, ordinal, _ = run_probe(cluster, "--gres=gpu:1")
        assert "EPERM" not in opens, opens
        assert gpus(job) == [1]
        assert cvd == ordinal == "1"
        opens, _, _, _, _ = run_probe(cluster)
        assert opens == ["ENXIO"] * 4
    finally:
        cluster.cancel_all()
        cluster.down()
        with open(path, "w") as f:
            f.write(before)
        cluster.up()


@pytest.mark.skipif(not shutil.which("busybox") or os.geteuid() != 0,
                    reason="needs busybox-static and root (containers)")
def test_container_sees_only_its_gpus(cluster, tmp_path):
    """A containerized step gets its GPUs (and only those) as /dev/nvidiaK
    inside, opening them is allowed by the device cgroup and the others
    are not there at all."""
    from test_container import make_rootfs, tar_bytes
    root = make_rootfs(tmp_path / "rootfs")
    image = tmp_path / "img.tar.gz"
    image.write_bytes(tar_bytes(root))
    for p in (tmp_path, image):
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    busy = cluster.sbatch("--gres=gpu:1", "--wrap", "sleep 60")  # holds GPU 0
    cluster.wait_running(busy)
    p = cluster.run(["srun", "--gres=gpu:2", f"--container-image={image}", "sh", "-c",
                "ls /dev | grep nvidia; echo job=$SLURM_JOB_GPUS; "
                "for d in /dev/nvidia*; do cat $d >/dev/null 2>&1; echo $d=$?; done"],
               timeout=120)
    assert p.returncode == 0, p.stderr + cluster.logs()
    devs = re.findall(r"^(nvidia\d+)$", p.stdout, re.M)
    job = re.search(r"job=(\S+)", p.stdout).group(1)
    assert devs == [f"nvidia{k}" for k in gpus(job)], p.stdout
    assert gpus(job) == [1, 2], p.stdout
