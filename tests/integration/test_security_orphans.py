"""Attacks on containment (issue 8, points 6 and 7): no process outlives its
job, and a node that fails has its batch jobs requeued as Slurm does.

- kill -9 of a batch job's rotastepd: rotad kills everything left in the
  step's and then the job's cgroups before it reports them gone, removes the
  cgroup directories, and the job is lost as with a node failure, as Slurm
  does for a batch job missing from its node: requeued, or with --no-requeue
  NODE_FAIL;
- kill -9 of rotad while a job runs, the node marked DOWN (NODE_FAIL), rotad
  restarted: it re-attaches to the job's rotastepd, registers, is told the
  job is no longer its and kills it; the node stays out of scheduling
  (COMPLETING) until it confirms, so it is never idle with the old job's
  processes alive;
- a batch job on a node that fails is requeued (JobRequeue=1, --requeue):
  REQUEUED/PENDING with Reason=BeginTime, Restarts=1, then runs again
  elsewhere with SLURM_RESTART_COUNT=1; --no-requeue, JobRequeue=0 and
  interactive allocations end NODE_FAIL.
"""

import os
import re
import signal
import subprocess
import time

import pytest

from test_cgroup import cgroup_dirs, job_processes, needs_cgroups

SLURMD_TIMEOUT = 3


def set_conf(c, **keys):
    """Rewrite slurm.conf keys (the cluster must be down)."""
    with open(c.conf_path) as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        k = line.partition("=")[0]
        if k in keys:
            continue
        out.append(line)
    # global keys go before the node and partition lines
    at = next(i for i, line in enumerate(out) if line.startswith("NodeName="))
    out[at:at] = [f"{k}={v}" for k, v in keys.items()]
    with open(c.conf_path, "w") as f:
        f.write("\n".join(out) + "\n")


def quick_fail_cluster(make_cluster, **keys):
    c = make_cluster()
    c.down()
    set_conf(c, SlurmdTimeout=SLURMD_TIMEOUT, **keys)
    c.up()
    return c


def node_states(c):
    p = c.run("sinfo -h -N -o '%N %t'")
    return dict(line.split() for line in p.stdout.splitlines())


def show_job(c, jobid):
    return c.run(["scontrol", "show", "job", str(jobid)]).stdout


def show_field(c, jobid, key):
    m = re.search(rf"(?:^|\s){key}=(\S*)", show_job(c, jobid))
    return m.group(1) if m else None


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


# A batch script that leaves a child in its process group and a daemonised
# grandchild (its own session), and says who its parent (rotastepd) is.
HOG = """#!/bin/sh
sleep 3000 &
setsid sleep 3001 < /dev/null > /dev/null 2>&1 &
cat /proc/self/cgroup > cg.txt
echo $PPID > stepd.pid
wait
"""


def start_hog(c, *args):
    (c.work / "hog.sh").write_text(HOG)
    jobid = c.sbatch(*args, "-o", "/dev/null", str(c.work / "hog.sh"))
    assert c.wait_running(jobid) == "RUNNING"
    c.wait_for(lambda: len(job_processes(c, jobid, "sleep 300")) == 2, 20,
               "the job's two sleeps")
    c.wait_for(lambda: (c.work / "stepd.pid").exists()
               and (c.work / "stepd.pid").read_text().strip(), 10, "stepd.pid")
    dirs = cgroup_dirs((c.work / "cg.txt").read_text())
    assert dirs, (c.work / "cg.txt").read_text()
    return jobid, int((c.work / "stepd.pid").read_text()), dirs


def job_dirs(dirs):
    """The job_N directories above the step directories."""
    return sorted({os.path.dirname(d) for d in dirs})


@needs_cgroups
def test_killed_stepd_leaves_no_process_nor_cgroup(fresh_cluster):
    c = fresh_cluster
    jobid, stepd, dirs = start_hog(c, "-w", "node01", "-n1", "--no-requeue")
    with open(f"/proc/{stepd}/cmdline", "rb") as f:
        assert b"rotastepd" in f.read()
    # the node is busy with the old job until nothing of it is left: a job
    # that wants all of node01 must not start beside the survivors
    os.kill(stepd, signal.SIGKILL)
    assert c.wait_job(jobid, timeout=30) == "NODE_FAIL"
    other = c.sbatch("-w", "node01", "-n8", "--wrap", "sleep 1")
    assert c.wait_running(other, timeout=30) in ("RUNNING", "COMPLETED")
    left = job_processes(c, jobid, "sleep 300")
    assert not left, f"processes of job {jobid} outlived its rotastepd: {left}"
    assert not [d for d in dirs + job_dirs(dirs) if os.path.exists(d)], dirs
    assert c.wait_job(other, timeout=30) == "COMPLETED"


@needs_cgroups
@pytest.mark.parametrize("stepd_too", [False, True], ids=["stepd-alive", "stepd-dead"])
def test_restarted_node_kills_jobs_no_longer_its(make_cluster, stepd_too):
    """stepd-dead: the node lost its rotastepd too (nothing to re-attach to):
    rotad still finds the job by its cgroup."""
    c = quick_fail_cluster(make_cluster)
    jobid, stepd, dirs = start_hog(c, "-w", "node01", "-n2", "--no-requeue")
    c.kill_daemon("rotad-node01", signal.SIGKILL)
    if stepd_too:
        os.kill(stepd, signal.SIGKILL)
    assert c.wait_job(jobid, timeout=30) == "NODE_FAIL"
    assert node_states(c)["node01"].startswith("down")
    # the situation to clean up: the job is over, its processes are not
    assert alive(stepd) != stepd_too and len(job_processes(c, jobid, "sleep 300")) == 2
    c.up()
    # from the moment the node is idle again, nothing of the old job is left
    deadline = time.monotonic() + 30
    while node_states(c)["node01"] != "idle":
        assert time.monotonic() < deadline, node_states(c)
        time.sleep(0.05)
    left = job_processes(c, jobid, "sleep 300")
    assert not left and not alive(stepd), \
        f"node01 idle while job {jobid} still runs there: {left}"
    assert not [d for d in dirs + job_dirs(dirs) if os.path.exists(d)], dirs
    assert "Registered JobId=%d on node node01, but it's not running there" % jobid \
        in open(os.path.join(c.dir, "log", "rotactld.log")).read()
    # a new job gets the node's CPUs alone
    other = c.sbatch("-w", "node01", "-n8", "-o", str(c.work / "o.out"), "--wrap",
                     "nproc")
    assert c.wait_job(other, timeout=30) == "COMPLETED"


# Runs until the node it started on fails; then, rerun, says where and how often.
RERUN = """#!/bin/sh
echo "$SLURMD_NODENAME ${SLURM_RESTART_COUNT:-0}" >> runs.txt
if [ "${SLURM_RESTART_COUNT:-0}" = 0 ]; then exec sleep 3000; fi
"""


def fail_node(c, node):
    c.kill_daemon(f"rotad-{node}", signal.SIGKILL)


def wait_requeued(c, jobid):
    """The job went back to the queue (REQUEUED, then PENDING)."""
    c.wait_for(lambda: show_field(c, jobid, "Restarts") == "1", 30,
               f"job {jobid} requeued")
    state = show_field(c, jobid, "JobState")
    assert state in ("REQUEUED", "PENDING", "RUNNING", "COMPLETED"), show_job(c, jobid)


def job_node(c, jobid):
    return c.run(["squeue", "-h", "-j", str(jobid), "-o", "%N"]).stdout.strip()


def test_node_failure_requeues_batch_job(make_cluster):
    c = quick_fail_cluster(make_cluster)
    (c.work / "rerun.sh").write_text(RERUN)
    jobid = c.sbatch("-o", "/dev/null", str(c.work / "rerun.sh"))
    c.wait_for(lambda: (c.work / "runs.txt").exists(), 30, "first run")
    node = job_node(c, jobid)
    assert (c.work / "runs.txt").read_text() == f"{node} 0\n"
    assert show_field(c, jobid, "Requeue") == "1"
    fail_node(c, node)
    wait_requeued(c, jobid)
    text = show_job(c, jobid)
    if "JobState=RUNNING" not in text and "JobState=COMPLETED" not in text:
        assert "Reason=BeginTime" in text, text
    assert c.wait_job(jobid, timeout=60) == "COMPLETED"
    runs = (c.work / "runs.txt").read_text().splitlines()
    assert runs[0] == f"{node} 0" and len(runs) == 2, runs
    again, count = runs[1].split()
    assert again != node and count == "1", runs
    assert show_field(c, jobid, "Restarts") == "1"
    assert show_field(c, jobid, "Requeue") == "1"
    c.up()  # the node back: it kills the first run


def running_on(c, node):
    p = c.run(["squeue", "-h", "-t", "R", "-o", "%i %N"])
    return [int(i) for i, n in (line.split() for line in p.stdout.splitlines())
            if n == node]


def test_no_requeue_and_interactive_end_node_fail(make_cluster):
    c = quick_fail_cluster(make_cluster)
    nr = c.sbatch("-w", "node03", "--no-requeue", "-o", "/dev/null", "--wrap",
                  "sleep 3000")
    assert show_field(c, nr, "Requeue") == "0"
    assert c.wait_running(nr) == "RUNNING"
    srun = subprocess.Popen(["srun", "-w", "node03", "-n1", "sleep", "3000"],
                            env=c.env, cwd=str(c.work), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        c.wait_for(lambda: len(running_on(c, "node03")) == 2, 30,
                   "the srun job running")
        inter = [i for i in running_on(c, "node03") if i != nr][0]
        fail_node(c, "node03")
        assert c.wait_job(nr, timeout=30) == "NODE_FAIL"
        assert c.wait_job(inter, timeout=30) == "NODE_FAIL"
        assert show_field(c, nr, "Restarts") == "0"
        assert show_field(c, inter, "Restarts") == "0"
    finally:
        srun.kill()
        srun.wait()
    c.up()


def test_job_requeue_0_ends_node_fail_unless_requeue(make_cluster):
    c = quick_fail_cluster(make_cluster, JobRequeue=0)
    (c.work / "rerun.sh").write_text(RERUN)
    asked = c.sbatch("--requeue", "-o", "/dev/null", str(c.work / "rerun.sh"))
    c.wait_for(lambda: (c.work / "runs.txt").exists(), 30, "first run")
    node = job_node(c, asked)
    plain = c.sbatch("-w", node, "-o", "/dev/null", "--wrap", "sleep 3000")
    assert show_field(c, plain, "Requeue") == "0"
    assert show_field(c, asked, "Requeue") == "1"
    assert c.wait_running(plain) == "RUNNING"
    fail_node(c, node)
    assert c.wait_job(plain, timeout=30) == "NODE_FAIL"
    assert show_field(c, plain, "Restarts") == "0"
    wait_requeued(c, asked)
    assert c.wait_job(asked, timeout=60) == "COMPLETED"
    runs = (c.work / "runs.txt").read_text().splitlines()
    assert len(runs) == 2 and runs[1].endswith(" 1") and node not in runs[1], runs
    c.up()


def test_killed_batch_stepd_requeues_job(fresh_cluster):
    c = fresh_cluster
    (c.work / "rerun.sh").write_text(RERUN.replace(
        "then exec sleep", "then echo $PPID > stepd.pid; exec sleep"))
    jobid = c.sbatch("-o", "/dev/null", str(c.work / "rerun.sh"))
    c.wait_for(lambda: (c.work / "stepd.pid").exists()
               and (c.work / "stepd.pid").read_text().strip(), 30, "stepd.pid")
    node = job_node(c, jobid)
    os.kill(int((c.work / "stepd.pid").read_text()), signal.SIGKILL)
    # a job that wants the whole node runs only once the old run is gone
    other = c.sbatch("-w", node, "-n8", "-o", "/dev/null", "--wrap", "sleep 1")
    wait_requeued(c, jobid)
    assert c.wait_running(other, timeout=30) in ("RUNNING", "COMPLETED")
    assert not job_processes(c, jobid, "sleep 3000")
    assert c.wait_job(jobid, timeout=60) == "COMPLETED"
    runs = (c.work / "runs.txt").read_text().splitlines()
    assert len(runs) == 2 and runs[1].endswith(" 1"), runs
    assert c.wait_job(other, timeout=30) == "COMPLETED"
