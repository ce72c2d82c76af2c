"""Running the controller as an admin does: `scontrol shutdown` (everything,
or `slurmctld`/`controller` only) and SIGUSR2 (reopen the log file after
logrotate moved it)."""
import os
import signal
import time

from conftest import _proc_state
from unixusers import as_user, needs_root


def alive(pid):
    return _proc_state(pid) not in ("", "Z", "z", "X")


def wait_gone(pid, timeout=15):
    deadline = time.monotonic() + timeout
    while alive(pid):
        assert time.monotonic() < deadline, f"{pid} still running"
        time.sleep(0.05)


def test_sigusr2_reopens_the_log(make_cluster):
    c = make_cluster()
    log = os.path.join(c.dir, "log", "rotactld.log")
    os.rename(log, log + ".1")  # what logrotate does
    os.kill(c.pid("rotactld"), signal.SIGUSR2)
    c.wait_for(lambda: os.path.exists(log), what="a new rotactld.log")
    jid = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_for(lambda: f"JobId={jid} submitted" in open(log).read(),
               what="the submission logged in the new file")
    assert f"JobId={jid}" not in open(log + ".1").read()


@needs_root
def test_shutdown_is_for_admins(ucluster, users):
    c = ucluster
    p = as_user(c, users["a"], "scontrol shutdown")
    assert p.returncode == 1
    assert "slurm_shutdown error: Access/permission denied" in p.stderr
    assert alive(c.pid("rotactld"))
    assert c.run(["sinfo"]).returncode == 0


def test_shutdown_controller_only(make_cluster):
    c = make_cluster()
    jid = c.sbatch("-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_running(jid)
    ctld, node = c.pid("rotactld"), c.pid("rotad-node01")
    p = c.run(["scontrol", "shutdown", "slurmctld"])
    assert p.returncode == 0, p.stderr
    assert p.stdout == "" and p.stderr == ""
    wait_gone(ctld)
    # the node daemons stay, and so do the job's processes
    assert alive(node)
    assert any("sleep 300" in cmd for _, cmd in c.processes())
    assert "shutdown requested by uid 0 (controller only)" in \
        open(os.path.join(c.dir, "log", "rotactld.log")).read()
    # started again, it has the job, still running
    c.up()
    assert c.job_state(jid) == "RUNNING"
    c.run(["scancel", str(jid)])
    c.wait_job(jid)


def test_shutdown_everything(make_cluster):
    c = make_cluster()
    jid = c.sbatch("-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_running(jid)
    daemons = [c.pid("rotactld")] + [c.pid(f"rotad-node0{i}") for i in range(1, 5)]
    p = c.run(["scontrol", "shutdown"])
    assert p.returncode == 0, p.stderr
    for pid in daemons:
        wait_gone(pid)
    log = open(os.path.join(c.dir, "log", "rotad-node01.log")).read()
    assert "shutdown requested by the controller" in log
    # running jobs keep running, as with Slurm's slurmstepd
    assert any("sleep 300" in cmd for _, cmd in c.processes())
    c.up()
    assert c.job_state(jid) == "RUNNING"
    c.run(["scancel", str(jid)])
    c.wait_job(jid)
