"""Job dependencies (sbatch -d): after, afterany, afterok, afternotok, '?',
singleton, +minutes, invalid specs, kill_invalid_depend."""
import time

from conftest import write_script

# waits for ./gate to exist, then exits with $1 (default 0)
GATED = "#!/bin/bash\nwhile [ ! -e gate ]; do sleep 0.1; done\nexit ${1:-0}\n"
REJECTED = "sbatch: error: Batch job submission failed: Job dependency problem\n"


def reason(cluster, jobid):
    p = cluster.run(["squeue", "-h", "-j", str(jobid), "-o", "%T %r"])
    return p.stdout.strip()


def gated(cluster, *args, status=0):
    write_script(cluster.work / "g.sh", GATED)
    return cluster.sbatch(*args, "-o", "/dev/null", "g.sh", str(status),
                          cwd=cluster.work)


def open_gate(cluster):
    (cluster.work / "gate").write_text("")


def wait_reason(cluster, jobid, want):
    cluster.wait_for(lambda: reason(cluster, jobid) == want, timeout=15,
                     what=f"job {jobid} to be {want!r} (is {reason(cluster, jobid)!r})")


def test_afterok_waits_then_runs(cluster):
    first = gated(cluster)
    cluster.wait_running(first)
    dep = cluster.sbatch("-d", f"afterok:{first}", "-o", "/dev/null", "--wrap", "true")
    wait_reason(cluster, dep, "PENDING Dependency")
    time.sleep(1.5)  # several passes: still waiting while the first runs
    assert reason(cluster, dep) == "PENDING Dependency"
    assert cluster.job_field(dep, "Dependency") == f"afterok:{first}(unfulfilled)"
    p = cluster.run(["squeue", "-h", "-j", str(dep), "-o", "%E"])
    assert p.stdout.strip() == f"afterok:{first}(unfulfilled)"
    open_gate(cluster)
    assert cluster.wait_job(first) == "COMPLETED"
    assert cluster.wait_job(dep) == "COMPLETED"
    assert cluster.job_field(dep, "Dependency") == "(null)"


def test_afterok_of_failed_job_never_satisfied(cluster):
    open_gate(cluster)
    first = cluster.sbatch("-o", "/dev/null", "--wrap", "exit 3")
    assert cluster.wait_job(first) == "FAILED"
    dep = cluster.sbatch("-d", f"afterok:{first}", "-o", "/dev/null", "--wrap", "true")
    wait_reason(cluster, dep, "PENDING DependencyNeverSatisfied")
    assert cluster.job_field(dep, "Dependency") == f"afterok:{first}(failed)"
    time.sleep(1.5)
    assert reason(cluster, dep) == "PENDING DependencyNeverSatisfied"


def test_kill_on_invalid_dep_option(cluster):
    """sbatch --kill-on-invalid-dep=yes cancels the job whose dependency can
    never be satisfied (without kill_invalid_depend); a bad value is
    refused."""
    first = cluster.sbatch("-o", "/dev/null", "--wrap", "exit 3")
    assert cluster.wait_job(first) == "FAILED"
    dep = cluster.sbatch("-d", f"afterok:{first}", "--kill-on-invalid-dep=yes", "-o",
                         "/dev/null", "--wrap", "true")
    assert cluster.wait_job(dep) == "CANCELLED"
    assert cluster.job_field(dep, "Reason") == "DependencyNeverSatisfied"
    p = cluster.run(["sbatch", "--kill-on-invalid-dep=maybe", "--wrap", "true"])
    assert p.returncode != 0
    assert "Invalid --kill-on-invalid-dep specification" in p.stderr


def test_afternotok_and_afterany(cluster):
    first = gated(cluster, status=1)
    notok = cluster.sbatch("-d", f"afternotok:{first}", "-o", "/dev/null",
                           "--wrap", "true")
    ok = cluster.sbatch("-d", f"afterok:{first}", "-o", "/dev/null", "--wrap", "true")
    anyj = cluster.sbatch("-d", f"afterany:{first}", "-o", "/dev/null",
                          "--wrap", "true")
    for j in (notok, ok, anyj):
        wait_reason(cluster, j, "PENDING Dependency")
    open_gate(cluster)
    assert cluster.wait_job(first) == "FAILED"
    assert cluster.wait_job(notok) == "COMPLETED"
    assert cluster.wait_job(anyj) == "COMPLETED"
    wait_reason(cluster, ok, "PENDING DependencyNeverSatisfied")


def test_after_starts_when_first_starts(cluster):
    first = gated(cluster)
    cluster.wait_running(first)
    dep = cluster.sbatch("-d", f"after:{first}", "-o", "/dev/null", "--wrap", "true")
    assert cluster.wait_job(dep) == "COMPLETED"
    assert cluster.job_state(first) == "RUNNING"
    # +1 minute after the start: still waiting now
    later = cluster.sbatch("-d", f"after:{first}+1", "-o", "/dev/null",
                           "--wrap", "true")
    wait_reason(cluster, later, "PENDING Dependency")
    assert cluster.job_field(later, "Dependency") == f"after:{first}+1(unfulfilled)"
    open_gate(cluster)


def test_any_of(cluster):
    a = gated(cluster)
    b = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "true")
    both = cluster.sbatch("-d", f"afterok:{a},afterok:{b}", "-o", "/dev/null",
                          "--wrap", "true")
    either = cluster.sbatch("-d", f"afterok:{a}?afterok:{b}", "-o", "/dev/null",
                            "--wrap", "true")
    wait_reason(cluster, either, "PENDING Dependency")
    assert cluster.job_field(either, "Dependency") == (
        f"afterok:{a}(unfulfilled)?afterok:{b}(unfulfilled)")
    open_gate(cluster)
    assert cluster.wait_job(either) == "COMPLETED"
    # the ',' form still waits for b (held); only b is left to show
    wait_reason(cluster, both, "PENDING Dependency")
    assert cluster.job_field(both, "Dependency") == f"afterok:{b}(unfulfilled)"
    cluster.run(["scontrol", "release", str(b)], check=True)
    assert cluster.wait_job(both) == "COMPLETED"


def test_singleton(cluster):
    first = gated(cluster, "-J", "solo")
    cluster.wait_running(first)
    second = cluster.sbatch("-J", "solo", "-d", "singleton", "-o", "/dev/null",
                            "--wrap", "true")
    other = cluster.sbatch("-J", "other", "-d", "singleton", "-o", "/dev/null",
                           "--wrap", "true")
    assert cluster.wait_job(other) == "COMPLETED"
    wait_reason(cluster, second, "PENDING Dependency")
    assert cluster.job_field(second, "Dependency") == "singleton(unfulfilled)"
    open_gate(cluster)
    assert cluster.wait_job(first) == "COMPLETED"
    assert cluster.wait_job(second) == "COMPLETED"


def test_invalid_rejected(cluster):
    held = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "true")
    for spec in ("afterok:999999", f"afterok:{held}:999999", "bogus:1",
                 f"afterok:{held},afterok:{held}?afterok:{held}", "afterok:",
                 f"afterburstbuffer:{held}", f"afterok:{held}+x"):
        p = cluster.run(["sbatch", "-d", spec, "--wrap", "true"])
        assert p.returncode == 1, spec
        assert p.stderr == REJECTED, (spec, p.stderr)
    assert cluster.run(["squeue", "-h", "-o", "%i"]).stdout.split() == [str(held)]


def test_kill_invalid_depend(fresh_cluster):
    c = fresh_cluster
    with open(c.conf_path, "a") as f:
        f.write("SchedulerParameters=kill_invalid_depend\n")
    c.kill_daemon("rotactld")
    c.up()
    first = c.sbatch("-o", "/dev/null", "--wrap", "exit 1")
    assert c.wait_job(first) == "FAILED"
    dep = c.sbatch("-d", f"afterok:{first}", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_job(dep) == "CANCELLED"
    assert c.job_field(dep, "Reason") == "DependencyNeverSatisfied"
    # --kill-on-invalid-dep=no keeps this one waiting despite the setting
    kept = c.sbatch("-d", f"afterok:{first}", "--kill-on-invalid-dep=no", "-o",
                    "/dev/null", "--wrap", "true")
    wait_reason(c, kept, "PENDING DependencyNeverSatisfied")
    time.sleep(1.5)
    assert reason(c, kept) == "PENDING DependencyNeverSatisfied"
