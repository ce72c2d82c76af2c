"""Power saving: idle nodes handed to SuspendProgram and powered down, jobs
that need them resume them through ResumeProgram (the cluster grows when work
arrives and shrinks when idle), ResumeTimeout, SuspendExcNodes, and
`scontrol power down|up`.

The programs are shell scripts written here: they log their argument (a
hostlist) and stop a node's rotad by its pid file, or start it again with the
command line `rota up` uses.  node03 is in SuspendExcNodes.
"""
import os
import time

import pytest

from conftest import BIN, module_cluster_with, write_script

RESUME_TIMEOUT = 8

SUSPEND = """#!/bin/sh
D={dir}
echo "$1" >> $D/suspend.log
for n in $({bin}/scontrol show hostnames "$1"); do
    kill "$(cat $D/run/rotad-$n.pid)" 2>/dev/null
done
exit 3
"""

RESUME = """#!/bin/sh
D={dir}
echo "$1" >> $D/resume.log
[ -e $D/resume.broken ] && exit 0
sleep 2  # booting
[ -e $D/resume.slow ] && sleep 4
cd $D || exit 1
for n in $({bin}/scontrol show hostnames "$1"); do
    setsid {bin}/rotad -f $D/slurm.conf -N $n </dev/null >>$D/log/rotad-$n.out 2>&1 &
    echo $! > $D/run/rotad-$n.pid
done
"""


def _rewrite(path):
    d = os.path.dirname(path)
    write_script(os.path.join(d, "suspend.sh"), SUSPEND.format(dir=d, bin=BIN))
    write_script(os.path.join(d, "resume.sh"), RESUME.format(dir=d, bin=BIN))
    with open(path, "a") as f:
        f.write(f"SuspendProgram={d}/suspend.sh\n"
                f"ResumeProgram={d}/resume.sh\n"
                "SuspendTime=3\nSuspendTimeout=2\n"
                f"ResumeTimeout={RESUME_TIMEOUT}\n"
                "SuspendExcNodes=node03\n")


@pytest.fixture(scope="module")
def pcluster():
    yield from module_cluster_with(_rewrite, ("--nodes", "3", "--cpus", "2",
                                              "--mem", "4096"))


def logged(c, name):
    """The nodes the program was given, each call's hostlist expanded."""
    path = os.path.join(c.dir, name)
    if not os.path.exists(path):
        return []
    out = []
    for line in open(path).read().split():
        p = c.run(["scontrol", "show", "hostnames", line], check=True)
        out += p.stdout.split()
    return out


def show_node(c, name):
    return c.run(["scontrol", "show", "node", name], check=True).stdout


def test_idle_nodes_power_down(pcluster):
    c = pcluster
    c.wait_node_states({"node01": "idle~", "node02": "idle~"})
    assert c.node_states()["node03"] == "idle", "SuspendExcNodes kept node03 up"
    assert sorted(logged(c, "suspend.log")) == ["node01", "node02"]
    assert "State=IDLE+POWERED_DOWN" in show_node(c, "node01")
    assert "node03" not in logged(c, "suspend.log")
    # the program stopped the daemons: nothing answers for node01 now
    c.wait_for(lambda: not os.path.exists(f"/proc/{c.pid('rotad-node01')}"),
               10, "node01's rotad stopped")


def test_job_resumes_nodes_and_cluster_shrinks(pcluster):
    c = pcluster
    c.wait_node_states({"node01": "idle~"})
    jobid = c.sbatch("-w", "node01", "-c", "2", "-o", "/dev/null",
                     "--wrap", "sleep 2")
    c.wait_for(lambda: "node01" in logged(c, "resume.log"), 15,
               "ResumeProgram run for node01")
    seen = set()

    def booting():
        p = c.run(["squeue", "-h", "-j", str(jobid), "-o", "%t"])
        seen.add((p.stdout.strip(), c.node_states().get("node01")))
        return ("CF", "alloc#") in seen
    try:
        c.wait_for(booting, 15, "job CF on a node alloc#")
    except AssertionError:
        raise AssertionError(f"seen {seen}\n{c.logs()}")
    assert "POWERING_UP" in show_node(c, "node01")
    assert c.wait_job(jobid, timeout=40) == "COMPLETED"
    # idle again: powered down again
    c.wait_node_states({"node01": "idle~"}, timeout=30)
    assert logged(c, "suspend.log").count("node01") == 2


def test_resume_timeout_sets_node_down_and_requeues(pcluster):
    c = pcluster
    c.wait_node_states({"node02": "idle~"})
    open(os.path.join(c.dir, "resume.broken"), "w").close()
    try:
        jobid = c.sbatch("-w", "node02", "-c", "2", "-o", "/dev/null",
                         "--wrap", "sleep 1")
        c.wait_for(lambda: "node02" in logged(c, "resume.log"), 15,
                   "ResumeProgram run for node02")
        t0 = time.monotonic()
        c.wait_for(lambda: c.node_states().get("node02", "").startswith("down"),
                   RESUME_TIMEOUT + 15, "node02 DOWN after ResumeTimeout")
        assert time.monotonic() - t0 >= RESUME_TIMEOUT - 2
        assert "Reason=ResumeTimeout reached" in show_node(c, "node02")
        c.wait_for(lambda: c.job_state(jobid) == "PENDING", 10, "job requeued")
        assert c.job_field(jobid, "Restarts") == "1"
    finally:
        os.unlink(os.path.join(c.dir, "resume.broken"))
    c.cancel_all()
    c.run(["scontrol", "update", "nodename=node02", "state=resume"], check=True)
    c.wait_node_states({"node02": "idle~"})


def test_scontrol_power_down_and_up(pcluster):
    c = pcluster
    assert c.node_states()["node03"] == "idle"
    c.run(["scontrol", "power", "down", "node03"], check=True)
    c.wait_node_states({"node03": "idle~"}, timeout=20)
    assert "node03" in logged(c, "suspend.log")
    c.run(["scontrol", "power", "up", "node03"], check=True)
    c.wait_for(lambda: "node03" in logged(c, "resume.log"), 10,
               "ResumeProgram run for node03")
    c.wait_node_states({"node03": "idle"}, timeout=30)
    # the update spelling
    c.run(["scontrol", "update", "nodename=node03", "state=power_down"], check=True)
    c.wait_node_states({"node03": "idle~"}, timeout=20)


def test_powered_down_node_survives_controller_restart(pcluster):
    """The journal keeps "powered down": a restarted controller shows node01
    idle~ (its rotad is stopped), not a node that stopped answering."""
    c = pcluster
    c.wait_node_states({"node01": "idle~", "node03": "idle~"}, timeout=30)
    c.run(["scontrol", "power", "up", "node03"], check=True)
    c.wait_node_states({"node03": "idle"}, timeout=30)
    c.restart_ctld()
    c.wait_node_states({"node01": "idle~", "node02": "idle~", "node03": "idle"},
                timeout=20)
    assert "POWERED_DOWN" in show_node(c, "node01")
    # and it still resumes for work
    jobid = c.sbatch("-w", "node01", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_job(jobid, timeout=40) == "COMPLETED"


def test_job_configuring_survives_controller_restart(pcluster, tmp_path):
    """A controller restarted while a job waits CONFIGURING for its node to
    boot: the job still waits, and runs once when the node registers."""
    c = pcluster
    c.wait_node_states({"node01": "idle~"}, timeout=30)
    slow = os.path.join(c.dir, "resume.slow")
    open(slow, "w").close()
    out = tmp_path / "out"
    try:
        jobid = c.sbatch("-w", "node01", "-o", str(out), "--wrap", "echo ran")
        c.wait_for(lambda: c.run(["squeue", "-h", "-j", str(jobid), "-o", "%t"]
                                 ).stdout.strip() == "CF", 15, "job CF")
        c.restart_ctld()
        p = c.run(["squeue", "-h", "-j", str(jobid), "-o", "%t"])
        assert p.stdout.strip() == "CF", p.stdout + c.logs()
        assert "POWERING_UP" in show_node(c, "node01")
        assert c.wait_job(jobid, timeout=40) == "COMPLETED", c.logs()
    finally:
        os.unlink(slow)
    assert out.read_text() == "ran\n"
    assert c.job_field(jobid, "Restarts") == "0"


NODES_DOWN = ("Nodes required for job are DOWN, DRAINED or reserved for jobs in "
              "higher priority partitions")


def test_job_waits_in_slurms_words_while_a_node_powers_down(pcluster):
    """A job needing every node while one is powering down (SuspendTimeout)
    waits with Slurm's reason; once the node is powered down it is resumed
    for the job, which runs."""
    c = pcluster
    c.wait_node_states({"node03": "idle"}, timeout=30)
    c.run(["scontrol", "power", "down", "node03"], check=True)
    jobid = c.sbatch("-N3", "-o", "/dev/null", "--wrap", "true")
    reasons = set()

    def waits():
        reasons.add(c.run(["squeue", "-h", "-j", str(jobid), "-o", "%r"]).stdout.strip())
        return NODES_DOWN in reasons
    c.wait_for(waits, 15, "the reason while node03 powers down")
    out = c.run(["scontrol", "show", "job", str(jobid)], check=True).stdout
    assert "Reason=" + NODES_DOWN.replace(" ", "_") + " " in out, out
    assert c.wait_job(jobid, timeout=60) == "COMPLETED", c.logs()
    c.run(["scontrol", "power", "up", "node03"], check=True)
    c.wait_node_states({"node03": "idle"}, timeout=30)


def test_reconfigure_keeps_power_state(pcluster):
    c = pcluster
    c.wait_node_states({"node01": "idle~", "node03": "idle"}, timeout=30)
    c.run(["scontrol", "reconfigure"], check=True)
    time.sleep(1)
    s = c.node_states()
    assert s["node01"] == "idle~" and s["node03"] == "idle", s


def test_srun_waits_for_its_node_to_boot(pcluster):
    c = pcluster
    c.wait_node_states({"node02": "idle~"}, timeout=30)
    p = c.run(["srun", "-w", "node02", "-N1", "printenv", "SLURMD_NODENAME"],
              timeout=60)
    assert p.returncode == 0, p.stderr + c.logs()
    assert p.stdout.strip() == "node02"
    assert logged(c, "resume.log").count("node02") >= 2


# ---- SuspendRate and SuspendExcParts: a cluster of their own ----

def _rewrite_rates(path):
    d = os.path.dirname(path)
    write_script(os.path.join(d, "suspend.sh"), SUSPEND.format(dir=d, bin=BIN))
    write_script(os.path.join(d, "resume.sh"), RESUME.format(dir=d, bin=BIN))
    with open(path, "a") as f:
        f.write(f"SuspendProgram={d}/suspend.sh\n"
                f"ResumeProgram={d}/resume.sh\n"
                "SuspendTime=2\nSuspendTimeout=2\nSuspendRate=1\n"
                "SuspendExcParts=keeper,keep\n"  # a name that begins with it first

                "PartitionName=keep Nodes=node01 State=UP\n")


@pytest.fixture(scope="module")
def rcluster():
    yield from module_cluster_with(_rewrite_rates, ("--nodes", "3", "--cpus", "2",
                                                    "--mem", "4096"))


def test_suspend_rate_and_excluded_partition(rcluster):
    """SuspendRate=1: one node a minute is powered down, however many are
    idle; node01, in a partition of SuspendExcParts, never is (it would be
    the first taken)."""
    c = rcluster
    c.wait_for(lambda: len(logged(c, "suspend.log")) == 1, 20, "one node suspended")
    time.sleep(6)  # three SuspendTimes more: the rate, not the time, holds
    s = c.node_states()
    assert sorted(s.values()) == ["idle", "idle", "idle~"], s
    assert s["node01"] == "idle", s
    assert len(logged(c, "suspend.log")) == 1
