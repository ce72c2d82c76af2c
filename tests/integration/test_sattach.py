"""sattach: attach to a running step's output (Slurm 22.05's command).

A batch job runs `srun` with three tasks on two nodes that print a numbered
line a second; sattach, started meanwhile, gets the lines from then on (the
stepds connect to it as to srun), labelled with -l, one task's with
--output-filter, and ends with the step.  --layout prints the step's layout.
"""

import re
import signal
import subprocess
import threading
import time

import pytest

from conftest import IS_ROOT

TICKS = 'for i in $(seq 1 {n}); do echo "tick $SLURM_PROCID $i"; sleep 1; done'


def _step(cluster, n=8):
    """A running job whose step 0 prints n ticks per task: the job id."""
    jobid = cluster.sbatch("-N2", "-n3", "-o", "/dev/null", "--wrap",
                           f"srun bash -c '{TICKS.format(n=n)}'")

    def step_running():
        p = cluster.run(["squeue", "-h", "-s", "-j", str(jobid), "-o", "%i"])
        return f"{jobid}.0" in p.stdout.split() or None
    cluster.wait_for(step_running, timeout=30, what="step 0 to run")
    return jobid


def test_layout(cluster):
    jobid = _step(cluster)
    p = cluster.run(["sattach", "--layout", f"{jobid}.0"], check=True)
    nodes = cluster.run(["squeue", "-h", "-s", "-j", str(jobid), "-o", "%i %N"]).stdout
    nodelist = [line.split()[1] for line in nodes.splitlines()
                if line.startswith(f"{jobid}.0 ")][0]
    hosts = cluster.run(["scontrol", "show", "hostnames", nodelist]).stdout.split()
    assert p.stdout.startswith(f"Job step layout:\n\t3 tasks, 2 nodes ({nodelist})\n\n")
    rows = re.findall(r"\tNode (\d) \((\S+)\), (\d) task\(s\): ((?:\d+ )+)\n", p.stdout)
    assert [r[1] for r in rows] == hosts, p.stdout
    tasks = [int(t) for r in rows for t in r[3].split()]
    assert tasks == [0, 1, 2] and sum(int(r[2]) for r in rows) == 3, p.stdout


def test_output_labelled_until_the_step_ends(cluster):
    """Every task's later lines arrive, labelled; sattach exits 0 with the
    step."""
    jobid = _step(cluster, n=6)
    p = cluster.run(["sattach", "-l", f"{jobid}.0"], timeout=60)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines, p.stderr
    for line in lines:
        m = re.fullmatch(r"(\d): tick (\d) (\d)", line)
        assert m and m.group(1) == m.group(2), p.stdout
    # the last tick of every task, seen live
    assert {f"{t}: tick {t} 6" for t in range(3)} <= set(lines), p.stdout


def test_output_filter_and_detach(cluster):
    """--output-filter=1 prints task 1's lines only; a signal detaches
    sattach and the step goes on."""
    jobid = _step(cluster, n=30)
    proc = subprocess.Popen(["sattach", "--output-filter=1", f"{jobid}.0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=cluster.env)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert out and all(line.startswith("tick 1 ") for line in out.splitlines()), out
    p = cluster.run(["squeue", "-h", "-s", "-j", str(jobid), "-o", "%i"])
    assert f"{jobid}.0" in p.stdout.split()


def test_debugger_test_prints_the_tasks(cluster):
    """--debugger-test (hidden, as in Slurm): once attached, one line a task
    with its node, the pid of the task's process and its program."""
    jobid = _step(cluster, n=10)
    proc = subprocess.Popen(["sattach", "--debugger-test", f"{jobid}.0"],
                            env=cluster.env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rows = []
    stuck = threading.Timer(30, proc.kill)
    stuck.start()
    try:
        while len(rows) < 3:
            line = proc.stderr.readline()
            if not line:
                break
            m = re.fullmatch(r"sattach: task:(\d+), host:(\S+), pid:(\d+), "
                             r"executable:(\S+)\n", line)
            if m:
                rows.append(m.groups())
        for task, _, pid, _ in rows:  # the task's own process
            with open(f"/proc/{pid}/environ", "rb") as f:
                assert f"SLURM_PROCID={task}".encode() in f.read().split(b"\0")
    finally:
        stuck.cancel()
        proc.send_signal(signal.SIGINT)  # sattach leaves, the step goes on
        proc.communicate(timeout=30)
    assert [int(r[0]) for r in rows] == [0, 1, 2], rows
    assert {r[3] for r in rows} == {"bash"}, rows
    assert rows[0][1] == rows[1][1] != rows[2][1], rows  # -N2 -n3: block


def test_errors(cluster):
    p = cluster.run(["sattach", "999999.0"])
    assert p.returncode == 1
    assert p.stderr == ("sattach: error: Could not get job step info: Invalid job id "
                        "specified\n")
    p = cluster.run(["sattach", "12"])
    assert p.returncode == 1
    assert p.stderr == ("sattach: error: Failed to parse stepid from command line "
                        "options\n")
    p = cluster.run(["sattach", "-v", "-Q", "1.0"])
    assert p.returncode == 1
    assert "don't specify both --verbose (-v) and --quiet (-Q)" in p.stderr
    jobid = _step(cluster)
    p = cluster.run(["sattach", f"{jobid}.5"])
    assert p.returncode == 1 and "Invalid job id specified" in p.stderr


@pytest.mark.skipif(not IS_ROOT, reason="needs root to create test users")
def test_only_the_jobs_user(ucluster, users):
    from unixusers import as_user

    c = ucluster
    a, b = users["a"], users["b"]
    p = as_user(c, a, "sbatch --parsable -N1 -o /dev/null --wrap "
                      "'srun sleep 60'", cwd=c.work)
    jobid = int(p.stdout.strip())
    c.wait_for(lambda: f"{jobid}.0" in c.run(
        ["squeue", "-h", "-s", "-j", str(jobid), "-o", "%i"]).stdout.split() or None,
        what="the step")
    p = as_user(c, b, f"sattach --layout {jobid}.0", cwd=c.work)
    assert (p.returncode, p.stderr) == (1, "sattach: error: Could not get job step "
                                           "info: Access/permission denied\n")
    p = as_user(c, a, f"sattach --layout {jobid}.0", cwd=c.work)
    assert p.returncode == 0 and "1 tasks, 1 nodes" in p.stdout, p.stderr
