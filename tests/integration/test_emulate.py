"""`rotad --emulate`: one process serves many nodes of slurm.conf to a real
controller (bench/emulate.sh drives 10,000 of them); jobs run as timers."""

import os
import re
import shutil
import signal
import subprocess
import time

from conftest import BIN, Cluster, _mkdtemp, cluster_processes

NODES = 300


def _wait(pred, timeout, what):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _start_emulated(d):
    c = Cluster(os.path.join(d, "cluster"), ("--nodes", "1"))
    c.up()
    assert c.down().returncode == 0
    with open(c.conf_path) as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        if line.startswith("NodeName="):
            line = f"NodeName=emu[001-{NODES:03d}] CPUs=8 RealMemory=16000 State=UNKNOWN"
        elif line.startswith("PartitionName="):
            line = "PartitionName=batch Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP"
        out.append(line)
    with open(c.conf_path, "w") as f:
        f.write("\n".join(out) + "\n")
    shutil.rmtree(os.path.join(c.dir, "state"), ignore_errors=True)
    procs = [subprocess.Popen([str(BIN / "rotactld"), "-f", c.conf_path],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)]
    _wait(lambda: c.run(["sinfo", "-h"]).returncode == 0, 20, "the controller")
    procs.append(subprocess.Popen(
        [str(BIN / "rotad"), "-f", c.conf_path, "--emulate", f"emu[001-{NODES:03d}]",
         "-L", os.path.join(c.dir, "log", "emulate.log")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return c, procs


def _stop(c, procs):
    for p in reversed(procs):
        p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _idle(c):
    return c.run(["sinfo", "-h", "-t", "idle", "-o", "%D"]).stdout.strip()


def test_emulated_nodes_run_jobs_as_timers():
    d = _mkdtemp()
    os.chmod(d, 0o755)
    c, procs = _start_emulated(d)
    try:
        _wait(lambda: _idle(c) == str(NODES), 30, f"{NODES} idle nodes")
        p = c.run(["sinfo", "-h", "-N", "-o", "%N %c %m", "-n", "emu150"])
        assert p.stdout.split() == ["emu150", "8", "16000"]

        # a batch job "runs" for the seconds of its sleep, on the nodes given
        t0 = time.monotonic()
        job = c.sbatch("-N", "3", "-o", "/dev/null", "--wrap", "sleep 2")
        assert c.wait_job(job, timeout=30) == "COMPLETED"
        assert time.monotonic() - t0 >= 2
        assert c.job_field(job, "ExitCode") == "0:0"
        nodes = c.run(["scontrol", "show", "hostnames", c.job_field(job, "NodeList")])
        assert len(nodes.stdout.split()) == 3
        assert all(re.fullmatch(r"emu\d{3}", n) for n in nodes.stdout.split())

        # an array of whole-node tasks fills many nodes and completes
        arr = c.sbatch("--array=1-200", "-c", "8", "-o", "/dev/null", "--wrap", "sleep 1")
        def states():
            return c.run(["squeue", "-h", "-t", "all", "-j", str(arr), "-o", "%T"]).stdout

        _wait(lambda: len(states().split()) == 200 and
              not set(states().split()) & {"PENDING", "RUNNING", "COMPLETING"}, 60,
              "the array to finish")
        assert states().split() == ["COMPLETED"] * 200

        # a cancelled job's emulated steps end, its node is released
        long = c.sbatch("-o", "/dev/null", "--wrap", "sleep 600")
        c.wait_running(long)
        assert c.run(["scancel", str(long)]).returncode == 0
        assert c.wait_job(long, timeout=30) == "CANCELLED"
        _wait(lambda: _idle(c) == str(NODES), 30, "the cancelled job's node")

        # an emulated node list must name nodes of slurm.conf
        log = os.path.join(c.dir, "log", "bad-emulate.log")
        p = subprocess.run([str(BIN / "rotad"), "-f", c.conf_path, "--emulate",
                            "nope[1-2]", "-L", log], capture_output=True, text=True,
                           timeout=20)
        assert p.returncode != 0
        with open(log) as f:
            assert "node nope1 is not in slurm.conf" in f.read()
    finally:
        _stop(c, procs)
        assert not cluster_processes(c.dir)
        shutil.rmtree(d, ignore_errors=True)
