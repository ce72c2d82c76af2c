"""GPU usage: the step daemon of a step that holds GPUs samples them through
NVML (here the unit tests' fake libnvidia-ml, named by ROTA_NVML_LIB, which
reports what the file $FAKE_NVML_USE_FILE says the GPUs run), and sstat and
sacct show the memory the step's processes hold and their SM utilization as
gres/gpumem and gres/gpuutil in TRESUsageIn*, as Slurm 22.05 does with
AccountingStorageTRES=gres/gpumem,gres/gpuutil.  A step without GPUs shows
none."""
import json
import os
import re
import time

import pytest

from conftest import BUILD, module_cluster_with, write_script

UP = ("--nodes", "1", "--cpus", "4", "--mem", "4096", "--gpus", "4")
FAKE = BUILD / "tests" / "libfake_nvml.so"

# The job's two GPUs (node indexes, which are the fake's NVML indexes: the
# files nvidia0-3 name minor numbers 0-3, and the fake's fourth GPU, minor
# 5, is found by its index): the script's process holds 2G on the first and
# 1G on the second, 30 % and 25 % busy; process 1 (not the step's) and a
# GPU the job does not hold must not count.  Then 1G and 90 % on the first.
GPU_JOB = """#!/bin/bash
g=(${{SLURM_JOB_GPUS//,/ }})
a=${{g[0]}}; b=${{g[1]}}
for o in 0 1 2 3; do [ $o != $a ] && [ $o != $b ] && break; done
echo "putil$a=$$:30 putil$b=$$:25 proc$a=$$:2147483648 proc$b=$$:1073741824" \\
     "proc$a=1:999 putil$a=1:50 putil$o=$$:77 proc$o=$$:5" > {use}
echo ready > {dir}/ready1
while [ ! -e {dir}/stop1 ]; do sleep 0.2; done
echo "putil$a=$$:90 proc$a=$$:1073741824" > {use}
echo ready > {dir}/ready2
while [ ! -e {dir}/stop2 ]; do sleep 0.2; done
"""

# No GPUs, though the fake says its process uses some.
PLAIN_JOB = """#!/bin/bash
echo "putil0=$$:40 proc0=$$:4096 util0=40 mem0=4096" > {use}
echo ready > {dir}/ready1
while [ ! -e {dir}/stop1 ]; do sleep 0.2; done
"""

pytestmark = pytest.mark.skipif(os.geteuid() != 0,
                                reason="rota up --gpus device files need root")


@pytest.fixture(scope="module")
def module_cluster():
    """This module's cluster (conftest's `cluster` gives each test a work
    directory and cancels its jobs after it)."""
    assert FAKE.exists(), f"{FAKE} not built (make builds it with the unit tests)"
    gen = module_cluster_with(up_args=UP)
    c = next(gen)
    try:
        c.use = os.path.join(c.dir, "nvml-use")
        open(c.use, "w").close()
        os.chmod(c.use, 0o666)
        c.down()
        c.up(env={"ROTA_NVML_LIB": str(FAKE), "FAKE_NVML_USE_FILE": c.use})
        yield c
    finally:
        gen.close()


UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def tres(text):
    """"cpu=00:00:01,...,gres/gpumem=3G,..." -> {key: value}."""
    return dict(kv.split("=", 1) for kv in text.split(",") if "=" in kv)


def size_bytes(text):
    m = re.fullmatch(r"([0-9.]+)([KMGT]?)", text)
    assert m, f"not a size: {text!r}"
    return float(m.group(1)) * UNITS[m.group(2)]


def sstat_tres(c, step, field):
    p = c.run(["sstat", "-n", "-P", "-j", step, "-o", field])
    assert p.returncode == 0, p.stderr
    return tres(p.stdout.strip())


def sacct_tres(c, step, field, timeout=30):
    """The ended step's field, once sacct has the step's end."""
    deadline = time.monotonic() + timeout
    while True:
        p = c.run(["sacct", "-n", "-P", "-j", step.split(".")[0], "-o",
                   f"JobID,State,{field}"])
        for line in p.stdout.splitlines():
            jobid, state, value = line.split("|")
            if jobid == step and state == "COMPLETED" and value:
                return tres(value)
        assert time.monotonic() < deadline, f"sacct: no ended {step}:\n{p.stdout}"
        time.sleep(0.3)


def start(c, text, *args):
    d = str(c.work)
    script = write_script(os.path.join(d, "job.sh"), text.format(use=c.use, dir=d))
    job = c.sbatch("--acctg-freq=1", f"--output={d}/out", *args, str(script))
    c.wait_for(lambda: os.path.exists(os.path.join(d, "ready1")), 30,
               f"job {job} ready\n{c.logs()}")
    return job, d


def test_gpu_step_usage_in_sstat_and_sacct(cluster):
    job, d = start(cluster, GPU_JOB, "--gres=gpu:2")
    step = f"{job}.batch"
    now = sstat_tres(cluster, step, "TRESUsageInTot")
    assert (now["gres/gpumem"], now["gres/gpuutil"]) == ("3G", "55"), now
    peak = sstat_tres(cluster, step, "TRESUsageInMax")
    assert (peak["gres/gpumem"], peak["gres/gpuutil"]) == ("3G", "55"), peak
    # Slurm's order: by name
    assert list(peak) == ["cpu", "energy", "fs/disk", "gres/gpumem", "gres/gpuutil",
                          "mem", "pages", "vmem"], peak
    where = sstat_tres(cluster, step, "TRESUsageInMaxNode")
    assert where["gres/gpumem"] == "node01", where

    open(os.path.join(d, "stop1"), "w").close()
    cluster.wait_for(lambda: os.path.exists(os.path.join(d, "ready2")), 30, "phase 2")
    cluster.wait_for(lambda: sstat_tres(cluster, step, "TRESUsageInTot")["gres/gpuutil"] == "90",
                15, "the new figures sampled")
    now = sstat_tres(cluster, step, "TRESUsageInTot")
    assert now["gres/gpumem"] == "1G", now
    # the high-water mark holds for memory; utilization rose
    peak = sstat_tres(cluster, step, "TRESUsageInMax")
    assert (peak["gres/gpumem"], peak["gres/gpuutil"]) == ("3G", "90"), peak
    time.sleep(1.5)  # a periodic sample or two at 1 G and 90 %

    open(os.path.join(d, "stop2"), "w").close()
    assert cluster.wait_job(job) == "COMPLETED", cluster.logs()
    peak = sacct_tres(cluster, step, "TRESUsageInMax")
    assert (peak["gres/gpumem"], peak["gres/gpuutil"]) == ("3G", "90"), peak
    ave = sacct_tres(cluster, step, "TRESUsageInAve")
    # over the samples: those before the script wrote its figures (0), at
    # 3G/55 % and at 1G/90 %
    assert 0 < size_bytes(ave["gres/gpumem"]) < 3 << 30, ave
    assert 0 < int(ave["gres/gpuutil"]) < 90, ave
    assert list(ave)[3:5] == ["gres/gpumem", "gres/gpuutil"], ave
    # sacct --json: in the step's tres.requested.max, type gres
    p = cluster.run(["sacct", "--json", "-j", str(job)])
    assert p.returncode == 0, p.stderr
    steps = json.loads(p.stdout)["jobs"][0]["steps"]
    batch = next(s for s in steps if s["step"]["id"] == step)
    got = {(t["type"], t.get("name")): t["count"]
           for t in batch["tres"]["requested"]["max"]}
    assert got[("gres", "gpumem")] == 3 << 30 and got[("gres", "gpuutil")] == 90, got


def test_step_without_gpus_has_no_gpu_figures(cluster):
    job, d = start(cluster, PLAIN_JOB)
    step = f"{job}.batch"
    for field in ("TRESUsageInMax", "TRESUsageInAve", "TRESUsageInTot"):
        got = sstat_tres(cluster, step, field)
        assert "mem" in got and not any(k.startswith("gres/") for k in got), got
    open(os.path.join(d, "stop1"), "w").close()
    assert cluster.wait_job(job) == "COMPLETED", cluster.logs()
    for field in ("TRESUsageInMax", "TRESUsageInAve"):
        got = sacct_tres(cluster, step, field)
        assert "mem" in got and not any(k.startswith("gres/") for k in got), got


# An srun step with one of the job's two GPUs: its task holds 512M there.
STEP_JOB = """#!/bin/bash
srun --gres=gpu:1 bash -c 'g=$SLURM_STEP_GPUS
echo "putil$g=$$:61 proc$g=$$:536870912" > {use}
echo ready > {dir}/ready1
while [ ! -e {dir}/stop1 ]; do sleep 0.2; done'
"""


def test_srun_step_counts_its_own_gpu_and_processes(cluster):
    job, d = start(cluster, STEP_JOB, "--gres=gpu:2")
    peak = sstat_tres(cluster, f"{job}.0", "TRESUsageInMax")
    assert (peak["gres/gpumem"], peak["gres/gpuutil"]) == ("512M", "61"), peak
    # the batch step holds both GPUs, but its processes nothing on them
    batch = sstat_tres(cluster, f"{job}.batch", "TRESUsageInMax")
    assert (batch["gres/gpumem"], batch["gres/gpuutil"]) == ("0", "0"), batch
    open(os.path.join(d, "stop1"), "w").close()
    assert cluster.wait_job(job) == "COMPLETED", cluster.logs()
    peak = sacct_tres(cluster, f"{job}.0", "TRESUsageInMax")
    assert (peak["gres/gpumem"], peak["gres/gpuutil"]) == ("512M", "61"), peak


GPU_COLUMNS = ("gpus", "max_gpu_mem", "ave_gpu_mem", "max_gpu_util", "ave_gpu_util")


def test_store_made_before_gets_the_gpu_columns(make_cluster, tmp_path):
    """rotadbd adds the usage table's GPU columns to a store made without them."""
    import sqlite3
    c = make_cluster(*UP)
    c.down()
    db = os.path.join(c.conf_value("StateSaveLocation"), "rota_acct.db")
    with sqlite3.connect(db) as con:
        for col in GPU_COLUMNS:
            con.execute(f"ALTER TABLE usage DROP COLUMN {col}")
    use = os.path.join(c.dir, "nvml-use")
    with open(use, "w") as f:
        f.write("putil0=1:5")
    os.chmod(use, 0o666)
    c.up(env={"ROTA_NVML_LIB": str(FAKE), "FAKE_NVML_USE_FILE": use})
    c.use = use
    c.work = tmp_path
    os.chmod(tmp_path, 0o777)
    job, d = start(c, GPU_JOB, "--gres=gpu:2")
    assert sstat_tres(c, f"{job}.batch", "TRESUsageInMax")["gres/gpumem"] == "3G"
    open(os.path.join(d, "stop1"), "w").close()
    open(os.path.join(d, "stop2"), "w").close()
    assert c.wait_job(job) == "COMPLETED", c.logs()
    peak = sacct_tres(c, f"{job}.batch", "TRESUsageInMax")
    assert peak["gres/gpumem"] == "3G", peak
    with sqlite3.connect(db) as con:
        cols = [r[1] for r in con.execute("PRAGMA table_info(usage)")]
    assert set(GPU_COLUMNS) <= set(cols), cols
