"""Containment: --mem / --mem-per-cpu enforced by the kernel (OUT_OF_MEMORY and
Slurm's oom_kill notice), tasks bound to their cores (nproc), nothing of a job
left alive after scancel or the end of its script (daemonised grandchildren
included), and the job's cgroup directories removed when it ends."""

import os
import re
import signal
import time

import pytest

IS_ROOT = os.geteuid() == 0


def cgroup_mounts():
    """{"v2": mount point or None, "memory": v1 mount or None, ...}"""
    found = {"v2": None}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            mnt = left.split()[4].replace("\\040", " ")
            fstype, _, opts = right.split()[:3]
            if fstype == "cgroup2" and not found["v2"]:
                found["v2"] = mnt
            elif fstype == "cgroup":
                for ctl in opts.split(","):
                    found.setdefault(ctl, mnt)
    return found


def memory_controller():
    m = cgroup_mounts()
    if m.get("memory"):
        return True
    try:
        with open(os.path.join(m["v2"], "cgroup.controllers")) as f:
            return "memory" in f.read().split()
    except (OSError, TypeError):
        return False


needs_cgroups = pytest.mark.skipif(
    not IS_ROOT or not memory_controller(),
    reason="needs root and a cgroup memory controller")
needs_two_cpus = pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2, reason="needs at least 2 CPUs")

# Touches every page (bytearray(n) alone may stay unbacked).
ALLOC = "python3 -c 'b = b\"x\" * ({mb} * 1024 * 1024); import time; time.sleep(1)'"


def oom_line(jobid, step):
    return (f"slurmstepd: error: Detected 1 oom_kill event in StepId={jobid}.{step}. "
            "Some of the step tasks have been OOM Killed.")


def short_state(cluster, jobid):
    p = cluster.run(["squeue", "-h", "-j", str(jobid), "-t", "all", "-o", "%t"])
    return p.stdout.strip()


def job_processes(cluster, jobid, needle):
    """Live processes of the cluster's job jobid (by their environment) whose
    command line contains needle."""
    marks = (f"SLURM_JOB_ID={jobid}".encode(), f"SLURM_CONF={cluster.conf_path}".encode())
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            if stat[stat.rfind(b")") + 2:][:1] in (b"Z", b"X"):
                continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if all(m in env for m in marks) and needle in cmd:
            found.append((int(entry), cmd))
    return found


def cgroup_dirs(cgroup_text):
    """Directories (on this host) of the cgroups listed in a /proc/PID/cgroup
    text that belong to Rota."""
    mounts = cgroup_mounts()
    dirs = []
    for line in cgroup_text.splitlines():
        _, ctls, path = line.split(":", 2)
        if "/rota/" not in path:
            continue
        mnt = mounts["v2"] if ctls == "" else mounts.get(ctls.split(",")[0])
        if mnt:
            dirs.append(mnt + path)
    return dirs


@needs_cgroups
def test_mem_exceeded_ends_out_of_memory(cluster):
    jobid = cluster.sbatch("--mem=50M", "--wrap", ALLOC.format(mb=200))
    assert cluster.wait_job(jobid, timeout=60) == "OUT_OF_MEMORY"
    assert short_state(cluster, jobid) == "OOM"
    out = (cluster.work / f"slurm-{jobid}.out").read_text()
    assert oom_line(jobid, "batch") in out, out


@needs_cgroups
def test_mem_within_limit_completes(cluster):
    jobid = cluster.sbatch("--mem=300M", "--wrap", ALLOC.format(mb=100) + "; echo ok")
    assert cluster.wait_job(jobid, timeout=60) == "COMPLETED"
    out = (cluster.work / f"slurm-{jobid}.out").read_text()
    assert out == "ok\n", out


@needs_cgroups
def test_mem_per_cpu_counts_the_cpus(cluster):
    # 2 CPUs x 80M = 160M: 100M fits, 200M does not
    ok = cluster.sbatch("-c", "2", "--mem-per-cpu=80M", "--wrap", ALLOC.format(mb=100))
    big = cluster.sbatch("-c", "2", "--mem-per-cpu=80M", "--wrap", ALLOC.format(mb=200))
    assert cluster.wait_job(ok, timeout=60) == "COMPLETED"
    assert cluster.wait_job(big, timeout=60) == "OUT_OF_MEMORY"


@needs_cgroups
def test_srun_step_oom_reported(cluster):
    """srun alone: the OOM-killed task is "Out Of Memory" (Slurm's SIG_OOM: exit
    253, ExitCode 0:125) and the job ends OUT_OF_MEMORY."""
    p = cluster.run(["srun", "-w", "node02", "--mem=50M", "sh", "-c",
                     ALLOC.format(mb=200)], timeout=60)
    assert p.returncode == 253, p.stderr
    m = re.search(r"StepId=(\d+)\.0\. ", p.stderr)
    assert m and oom_line(m.group(1), "0") in p.stderr, p.stderr
    assert "srun: error: node02: task 0: Out Of Memory\n" in p.stderr, p.stderr
    assert "task 0: Killed" not in p.stderr, p.stderr
    jobid = int(m.group(1))
    assert cluster.wait_job(jobid, timeout=30) == "OUT_OF_MEMORY"
    assert short_state(cluster, jobid) == "OOM"
    assert cluster.job_field(jobid, "ExitCode") == "0:125"


@needs_cgroups
def test_srun_step_oom_inside_a_batch_job(cluster):
    jobid = cluster.sbatch("--mem=100M", "-o", "soom.out", "--wrap",
                           "srun --mem=50M " + ALLOC.format(mb=200) + "; echo rc=$?")
    cluster.wait_job(jobid, timeout=60)
    text = (cluster.work / "soom.out").read_text()
    assert re.search(r"srun: error: node\d+: task 0: Out Of Memory", text), text
    assert "rc=253" in text, text


@needs_two_cpus
def test_srun_nproc_follows_cpus_per_task(cluster):
    p = cluster.run(["srun", "-c", "2", "nproc"], check=True)
    assert p.stdout == "2\n"
    p = cluster.run(["srun", "-c", "1", "nproc"], check=True)
    assert p.stdout == "1\n"


@needs_two_cpus
def test_sbatch_nproc_follows_cpus_per_task(cluster):
    two = cluster.sbatch("-c", "2", "--wrap", "nproc")
    one = cluster.sbatch("-c", "1", "--wrap", "nproc; srun nproc")
    assert cluster.wait_job(two) == "COMPLETED"
    assert cluster.wait_job(one) == "COMPLETED"
    assert (cluster.work / f"slurm-{two}.out").read_text() == "2\n"
    assert (cluster.work / f"slurm-{one}.out").read_text() == "1\n1\n"


def wait_gone(cluster, jobid, needle, timeout=10):
    """Wait for the job's processes to go; returns (and kills) those left."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = job_processes(cluster, jobid, needle)
        if not left:
            return []
        time.sleep(0.2)
    for pid, _ in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


@needs_cgroups
def test_scancel_kills_daemonised_grandchildren(cluster):
    jobid = cluster.sbatch(
        "--wrap", "setsid sh -c 'sleep 300 & sleep 301 &' ; sleep 302")
    assert cluster.wait_running(jobid) == "RUNNING"
    cluster.wait_for(lambda: len(job_processes(cluster, jobid, "sleep 30")) == 3, 15,
                     "the job's three sleeps")
    cluster.run(["scancel", str(jobid)], check=True)
    assert cluster.wait_job(jobid) == "CANCELLED"
    left = wait_gone(cluster, jobid, "sleep 30")
    assert not left, f"left alive after scancel: {left}"


@needs_cgroups
def test_end_of_script_kills_leftovers(cluster):
    jobid = cluster.sbatch(
        "--wrap", "setsid sh -c 'sleep 300 &' ; sleep 1; echo started")
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / f"slurm-{jobid}.out").read_text() == "started\n"
    left = wait_gone(cluster, jobid, "sleep 300")
    assert not left, f"left alive after the script ended: {left}"


@needs_cgroups
def test_end_of_step_kills_leftovers(cluster):
    p = cluster.run(["srun", "sh", "-c",
                     "setsid sh -c 'sleep 300 &'; echo $SLURM_JOB_ID"], check=True)
    jobid = int(p.stdout.strip())
    left = wait_gone(cluster, jobid, "sleep 300")
    assert not left, f"left alive after the step ended: {left}"


@needs_cgroups
def test_cgroups_created_and_removed(cluster):
    jobid = cluster.sbatch("--mem=64M", "-c", "2", "--wrap",
                           "cat /proc/self/cgroup > cg.txt; sleep 3")
    assert cluster.wait_running(jobid) == "RUNNING"
    cgfile = cluster.work / "cg.txt"
    cluster.wait_for(lambda: cgfile.exists() and cgfile.read_text(), 10, "cg.txt")
    dirs = cgroup_dirs(cgfile.read_text())
    assert dirs, cgfile.read_text()
    for d in dirs:
        assert re.search(rf"/rota/node01_[0-9a-f]{{8}}/job_{jobid}/step_batch$", d), d
        assert os.path.isdir(d), d
    limits = []
    for d in dirs:
        for name in ("memory.limit_in_bytes", "memory.max"):
            path = os.path.join(os.path.dirname(d), name)
            if os.path.exists(path):
                limits.append(open(path).read().strip())
    assert limits == [str(64 << 20)], limits
    assert cluster.wait_job(jobid) == "COMPLETED"
    deadline = time.monotonic() + 5
    while any(os.path.exists(os.path.dirname(d)) for d in dirs):
        assert time.monotonic() < deadline, f"cgroups left: {dirs}"
        time.sleep(0.1)


@needs_cgroups
def test_job_cpusets_do_not_rebuild_sched_domains(cluster):
    """A v1 cpuset that balances the load makes the kernel rebuild its
    scheduling domains, walking every task, when its CPUs are set and when it
    is removed.  Under a top cpuset that balances over all CPUs a job's and a
    step's cpusets stop asking for it (no effect on scheduling), and still get
    the job's CPUs."""
    top = cgroup_mounts().get("cpuset")
    if not top:
        pytest.skip("no v1 cpuset hierarchy")
    with open(os.path.join(top, "cpuset.sched_load_balance")) as f:
        if f.read().strip() != "1":
            pytest.skip("the top cpuset does not balance")
    jobid = cluster.sbatch("-c", "1", "--wrap", "cat /proc/self/cgroup > cgb.txt; sleep 3")
    assert cluster.wait_running(jobid) == "RUNNING"
    cgfile = cluster.work / "cgb.txt"
    cluster.wait_for(lambda: cgfile.exists() and cgfile.read_text(), 10, "cgb.txt")
    step = [d for d in cgroup_dirs(cgfile.read_text()) if d.startswith(top + "/")]
    assert len(step) == 1, cgfile.read_text()
    for d in (step[0], os.path.dirname(step[0])):
        with open(os.path.join(d, "cpuset.sched_load_balance")) as f:
            assert f.read().strip() == "0", d
        with open(os.path.join(d, "cpuset.cpus")) as f:
            assert f.read().strip(), d
    cluster.run(f"scancel {jobid}")


def _job_task(c, argv):
    """(pid, its step daemon's pid) of the process of cluster c whose argv is
    argv (bytes, NULs between): a job's task, with SLURM_CONF in its
    environment, the batch shell its parent, the step daemon above that."""
    conf = b"SLURM_CONF=" + c.conf_path.encode()
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if not entry.isdigit() or f.read().rstrip(b"\0") != argv:
                    continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                if conf not in f.read().split(b"\0"):
                    continue
            shell = _ppid(int(entry))
            return int(entry), _ppid(shell)
        except (OSError, ValueError):
            pass
    return None, None


def _ppid(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


@needs_cgroups
def test_down_stops_a_job_left_without_its_daemons(make_cluster):
    """rota down finds a job's processes by their cgroup too: with its rotad
    and its step daemon killed, the job's script descends from nothing of the
    cluster's and carries no mark of it, and still goes."""
    c = make_cluster()
    jobid = c.sbatch("-w", "node02", "-o", "/dev/null", "--wrap", "sleep 313; true")
    c.wait_running(jobid)
    found = {}
    c.wait_for(lambda: found.update(zip(("task", "stepd"), _job_task(c, b"sleep\x00313")))
               or found["task"], timeout=10, what="the job's task")
    with open(f"/proc/{found['stepd']}/cmdline", "rb") as f:
        assert f.read().rstrip(b"\0") == f"rotastepd: [{jobid}.batch]".encode()
    c.kill_daemon("rotad-node02")
    os.kill(found["stepd"], signal.SIGKILL)
    time.sleep(0.5)
    assert _job_task(c, b"sleep\x00313")[0] == found["task"], "the task went with its daemons"
    p = c.down()
    assert p.returncode == 0, p.stderr
    assert _job_task(c, b"sleep\x00313")[0] is None, "rota down left the job's task running"
