"""scontrol reboot and cancel_reboot: who may ask, the states a node shows on
the way (sinfo's boot, @ and ^, scontrol's REBOOT_REQUESTED/REBOOT_ISSUED),
ASAP's drain, nextstate=, cancel_reboot, ResumeTimeout, and a controller
restart in the middle.

RebootProgram is a script written here: it logs how it was run (its argument
count, its uid, SLURMD_NODENAME) and prints a line (which goes to rotad's
log), then stops its node's rotad by the pid file and starts it again two
seconds later, as a host's reboot would.  With reboot.broken present it only
logs: the node never comes back.
"""
import os
import re
import time

import pytest

from conftest import BIN, module_cluster_with, write_script
from unixusers import as_user, needs_root

RESUME_TIMEOUT = 10
NODES = ("node01", "node02", "node03")

REBOOT = """#!/bin/sh
D={dir}
n=$SLURMD_NODENAME
echo "$n args=$# uid=$(id -u)" >> $D/reboot.log
echo "rebooting $n"
[ -e $D/reboot.broken ] && exit 0
old=$(cat $D/run/rotad-$n.pid)
kill $old
for i in $(seq 50); do kill -0 $old 2>/dev/null || break; sleep 0.1; done
sleep 2  # booting
cd $D || exit 1
setsid {bin}/rotad -f $D/slurm.conf -N $n </dev/null >>$D/log/rotad-$n.out 2>&1 &
echo $! > $D/run/rotad-$n.pid
"""


def _rewrite(path):
    d = os.path.dirname(path)
    write_script(os.path.join(d, "reboot.sh"), REBOOT.format(dir=d, bin=BIN))
    with open(path, "a") as f:
        f.write(f"RebootProgram={d}/reboot.sh\nResumeTimeout={RESUME_TIMEOUT}\n")


@pytest.fixture(scope="module")
def rcluster():
    yield from module_cluster_with(_rewrite, ("--nodes", "3", "--cpus", "2",
                                              "--mem", "4096"))


@pytest.fixture
def c(rcluster, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(work, 0o777)
    rcluster.work = work
    yield rcluster
    broken = os.path.join(rcluster.dir, "reboot.broken")
    if os.path.exists(broken):
        os.unlink(broken)
    rcluster.cancel_all()
    # whatever a test left: no reboot to come, every node up
    rcluster.run(["scontrol", "update", "nodename=node[01-03]", "state=resume"])
    rcluster.wait_node_states({n: "idle" for n in NODES}, timeout=40)


def show_node(c, name):
    return c.run(["scontrol", "show", "node", name], check=True).stdout


def node_field(c, name, key):
    m = re.search(r"(?:^|\s)" + key + r"=(.*?)(?=\s+\w+=|\s*$)", show_node(c, name),
                  re.M)
    return m.group(1) if m else None


def reboots(c, name=None):
    """The program's runs, as it logged them (of one node when name)."""
    path = os.path.join(c.dir, "reboot.log")
    lines = open(path).read().splitlines() if os.path.exists(path) else []
    return [ln for ln in lines if not name or ln.split()[0] == name]


def busy_job(c, node):
    """A job holding one of node's two CPUs until its go file appears."""
    go = c.work / f"go-{node}"
    jobid = c.sbatch("-w", node, "-c", "1", "-o", "/dev/null", "--wrap",
                     f"while [ ! -e {go} ]; do sleep 0.2; done")
    assert c.wait_running(jobid) == "RUNNING"
    return jobid, go


def scontrol(c, *args):
    return c.run(["scontrol", *args])


@needs_root
def test_refused_for_non_admin(c, users):
    p = as_user(c, users["a"], "scontrol reboot node01", cwd="/tmp")
    assert (p.returncode, p.stdout, p.stderr) == (
        1, "", "scontrol_reboot_nodes error: Permission denied\n")
    p = as_user(c, users["a"], "scontrol cancel_reboot node01", cwd="/tmp")
    assert p.returncode == 1 and p.stderr.startswith("slurm_update error: "), p.stderr
    time.sleep(1)
    assert c.node_states()["node01"] == "idle"
    assert "REBOOT" not in show_node(c, "node01")
    assert reboots(c, "node01") == []


def test_refused_without_reboot_program(c, tmp_path):
    conf = tmp_path / "slurm.conf"
    conf.write_text("".join(line for line in open(c.conf_path)
                            if not line.startswith("RebootProgram=")))
    env = {"SLURM_CONF": str(conf)}
    p = c.run(["scontrol", "reboot", "node01"], env=env)
    assert (p.returncode, p.stdout, p.stderr) == (
        1, "", "scontrol: error: RebootProgram isn't defined\n"
        "scontrol_reboot_nodes error: Unspecified error\n")
    p = c.run(["scontrol", "-Q", "reboot", "ALL"], env=env)
    assert (p.returncode, p.stderr) == (
        1, "scontrol: error: RebootProgram isn't defined\n")
    time.sleep(1)
    assert set(c.node_states().values()) == {"idle"}
    assert reboots(c) == []


def test_argument_errors(c):
    for args, err in [
        ((), "Missing node list. Specify ALL|<NodeList>\n"),
        (("ASAP",), "Missing node list. Specify ALL|<NodeList>\n"),
        (("nextstate=up", "node01"), "Invalid state: up\nValid states: DOWN, RESUME\n"),
        (("reason=", "node01"), "missing reason\n"),
        (("nextstate=", "node01"), "missing state\n"),
        (("node01", "node02"), "too many arguments for keyword:reboot\n"),
        (("node99",), "scontrol_reboot_nodes error: Invalid node name specified\n"),
    ]:
        p = scontrol(c, "reboot", *args)
        assert (p.returncode, p.stdout, p.stderr) == (1, "", err), args
    p = scontrol(c, "cancel_reboot")
    assert (p.returncode, p.stderr) == (1, "missing argument for keyword:cancel_reboot\n")
    p = scontrol(c, "cancel_reboot", "node01")
    assert (p.returncode, p.stderr) == (
        1, "slurm_update error: Invalid node state specified\n")
    assert set(c.node_states().values()) == {"idle"}
    assert reboots(c) == []


def test_idle_node_reboots_at_once(c):
    """The program runs with no argument, as rotad's user; the node shows the
    reboot under way until a new rotad registers, then is idle again."""
    before = reboots(c, "node01")
    old_pid = c.pid("rotad-node01")
    started = node_field(c, "node01", "SlurmdStartTime")
    p = scontrol(c, "reb", "node01")  # Slurm's shortest spelling
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    seen, shown = set(), []

    def watch():
        st = c.node_states()["node01"]
        seen.add(st)
        if st == "boot^" and not shown:
            shown.append(show_node(c, "node01"))
        return st == "idle" and len(reboots(c, "node01")) > len(before)
    c.wait_for(watch, 30, "node01 rebooted and idle")
    assert "boot^" in seen, seen
    assert re.search(r"State=DOWN\+REBOOT_ISSUED\b", shown[0]), shown[0]
    assert "Reason=reboot requested : reboot issued [" in shown[0]
    assert reboots(c, "node01")[len(before):] == [f"node01 args=0 uid={os.geteuid()}"]
    assert c.pid("rotad-node01") != old_pid
    text = show_node(c, "node01")
    assert re.search(r"State=IDLE ", text) and "Reason=" not in text, text
    assert node_field(c, "node01", "SlurmdStartTime") > started
    log = open(os.path.join(c.dir, "log", "rotad-node01.log")).read()
    assert "RebootProgram: rebooting node01" in log
    assert "reboot request queued for nodes node01" in open(
        os.path.join(c.dir, "log", "rotactld.log")).read()


def test_asap_drains_busy_node_and_reboots_after_its_job(c):
    jobid, go = busy_job(c, "node02")
    before = reboots(c, "node02")
    p = scontrol(c, "reboot", "ASAP", "node02")
    assert (p.returncode, p.stderr) == (0, "")
    assert c.node_states()["node02"] == "drng@"
    assert c.node_states("%T")["node02"] == "draining@"
    text = show_node(c, "node02")
    assert "State=MIXED+DRAIN+REBOOT_REQUESTED " in text, text
    assert re.search(r"^\s*NextState=RESUME$", text, re.M), text
    assert "Reason=Reboot ASAP [" in text
    p = c.run(["sinfo", "-h", "-N", "-t", "reboot_requested", "-o", "%N"], check=True)
    assert p.stdout.split() == ["node02"]
    # no new job starts there; the running one goes on, the node untouched
    waiting = c.sbatch("-w", "node02", "-c", "1", "-o", "/dev/null", "--wrap", "true")
    time.sleep(2)
    assert c.job_state(waiting) == "PENDING"
    assert c.job_state(jobid) == "RUNNING"
    assert reboots(c, "node02") == before
    go.touch()
    assert c.wait_job(jobid) == "COMPLETED"
    c.wait_for(lambda: len(reboots(c, "node02")) > len(before), 15,
               "RebootProgram run for node02")
    # the drain goes with the reboot: the waiting job runs
    assert c.wait_job(waiting, timeout=40) == "COMPLETED"
    c.wait_node_states({"node02": "idle"})
    assert "Reason=" not in show_node(c, "node02")


def test_nextstate_down_leaves_node_down(c):
    before = reboots(c, "node03")
    p = scontrol(c, "reboot", "nextstate=DOWN", "reason=new firmware", "node03")
    assert (p.returncode, p.stderr) == (0, "")
    c.wait_for(lambda: len(reboots(c, "node03")) > len(before), 15,
               "RebootProgram run for node03")
    c.wait_node_states({"node03": "down"}, timeout=30)
    text = show_node(c, "node03")
    assert re.search(r"State=DOWN ", text), text
    assert "Reason=new firmware : reboot issued : reboot complete [" in text
    # it registered: only an admin brings it back
    time.sleep(2)
    assert c.node_states()["node03"] == "down"
    scontrol(c, "update", "nodename=node03", "state=resume")
    c.wait_node_states({"node03": "idle"})


def test_cancel_reboot_before_it_is_issued(c):
    jobid, go = busy_job(c, "node01")
    before = reboots(c, "node01")
    assert scontrol(c, "reboot", "asap", "reason=later", "node01").returncode == 0
    assert c.node_states()["node01"] == "drng@"
    p = scontrol(c, "cancel_reboot", "node01")
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    assert c.node_states()["node01"] == "mix"
    text = show_node(c, "node01")
    assert "REBOOT" not in text and "NextState" not in text and "Reason=" not in text
    p = scontrol(c, "cancel_reboot", "node01")
    assert (p.returncode, p.stderr) == (
        1, "slurm_update error: Invalid node state specified\n")
    go.touch()
    assert c.wait_job(jobid) == "COMPLETED"
    c.wait_node_states({"node01": "idle"})
    time.sleep(2)
    assert reboots(c, "node01") == before
    assert c.node_states()["node01"] == "idle"


def test_requested_reboot_survives_controller_restart(c):
    jobid, go = busy_job(c, "node02")
    before = reboots(c, "node02")
    assert scontrol(c, "reboot", "ASAP", "reason=kernel", "node02").returncode == 0
    c.restart_ctld()
    # from the journal, before node02's rotad is back
    text = show_node(c, "node02")
    assert "+DRAIN+REBOOT_REQUESTED" in node_field(c, "node02", "State"), text
    assert "Reason=kernel [" in text
    assert re.search(r"^\s*NextState=RESUME$", text, re.M), text
    c.wait_node_states({"node02": "drng@"})
    assert "State=MIXED+DRAIN+REBOOT_REQUESTED " in show_node(c, "node02")
    go.touch()
    assert c.wait_job(jobid) == "COMPLETED"
    c.wait_for(lambda: len(reboots(c, "node02")) > len(before), 15,
               "RebootProgram run for node02")
    c.wait_node_states({"node02": "idle"}, timeout=30)


def test_issued_reboot_survives_restart_and_times_out(c):
    """A node told to reboot whose rotad is still the one that was told: a
    restarted controller keeps waiting for it (the old daemon's registration
    does not count), and sets it DOWN once ResumeTimeout has passed since the
    order."""
    open(os.path.join(c.dir, "reboot.broken"), "w").close()
    before = reboots(c, "node03")
    assert scontrol(c, "reboot", "node03").returncode == 0
    t0 = time.monotonic()
    c.wait_for(lambda: len(reboots(c, "node03")) > len(before), 15,
               "RebootProgram run for node03")
    assert c.node_states()["node03"] == "boot^"
    c.restart_ctld()
    log = os.path.join(c.dir, "log", "rotactld.log")
    c.wait_for(lambda: "node03: still waiting for its reboot" in open(log).read(), 15,
               "node03's old rotad registered with the new controller")
    assert c.node_states()["node03"] == "boot^"
    assert "State=DOWN+REBOOT_ISSUED " in show_node(c, "node03")
    c.wait_node_states({"node03": "down"}, timeout=RESUME_TIMEOUT + 15)
    assert time.monotonic() - t0 >= RESUME_TIMEOUT - 1
    text = show_node(c, "node03")
    assert "Reason=reboot requested : reboot issued : reboot timed out [" in text, text
    assert "REBOOT" not in node_field(c, "node03", "State")
    assert reboots(c, "node03") == before + [f"node03 args=0 uid={os.geteuid()}"]


def test_job_reboot_runs_the_program_first(c, users):
    """sbatch --reboot (admins): the job is CONFIGURING while its nodes run
    RebootProgram and a new rotad registers, has them to itself, then runs;
    scontrol shows Reboot=1.  A user's --reboot is refused (Slurm's
    access denied)."""
    before = reboots(c, "node02")
    old_pid = c.pid("rotad-node02")
    out = c.work / "rb.out"
    j = c.sbatch("--reboot", "-w", "node02", "-o", str(out), "--wrap",
                 "echo ran on $SLURMD_NODENAME")
    assert re.search(r" Reboot=1 ", c.run(["scontrol", "show", "job", str(j)]).stdout)
    seen = set()

    def watch():
        seen.add(c.job_state(j))
        return c.job_state(j) == "COMPLETED"
    c.wait_for(watch, 40, "the job done after its node rebooted")
    assert "CONFIGURING" in seen, seen
    assert reboots(c, "node02")[len(before):] == [f"node02 args=0 uid={os.geteuid()}"]
    assert c.pid("rotad-node02") != old_pid
    assert out.read_text() == "ran on node02\n"
    assert c.job_field(j, "OverSubscribe") == "NO"
    if os.geteuid() == 0:
        p = as_user(c, users["a"], "sbatch --reboot -o /dev/null --wrap true",
                    cwd="/tmp")
        assert (p.returncode, p.stderr) == (
            1, "sbatch: error: Batch job submission failed: Access/permission denied\n")
