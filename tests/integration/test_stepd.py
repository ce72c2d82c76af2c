"""rotastepd on its own: this test plays rotad (a socketpair on the stepd's fd 3)
and srun (a TCP listener for the step's I/O), so the job environment, output
files, I/O streaming, signals and the restart hand-over are checked without a
controller or the CLIs."""

import os
import signal
import socket
import struct
import subprocess
import time

import pytest

from conftest import BIN
from rotacred import sign_launch
from wire import frame, read_frame, unpack

STEPD = BIN / "rotastepd"
IS_ROOT = os.geteuid() == 0


def can_unshare_uts():
    """Root in a container may still lack CAP_SYS_ADMIN."""
    try:
        return IS_ROOT and subprocess.run(["unshare", "--uts", "true"],
                                          capture_output=True).returncode == 0
    except OSError:
        return False

MSG_LAUNCH_REQ, MSG_SIGNAL_REQ, MSG_STEP_COMPLETE = 34, 35, 36
MSG_IO_HELLO, MSG_IO_DATA, MSG_TASK_EXIT = 40, 41, 42
NO_VAL, NO_VAL64, STEP_BATCH = 0xFFFFFFFE, 0xFFFFFFFFFFFFFFFE, 0xFFFFFFFB
SIGNAL_F_TERMINATE, STEP_DONE_LAUNCH_FAILED = 1, 1

# launch_req fields that are not u32 (see src/proto/messages.h)
U64_FIELDS = {"mem_per_node", "mem_per_cpu"}
I64_FIELDS = {"start_time"}
U32V_FIELDS = {"job_cpus_per_node", "step_tasks_per_node", "tasks"}


# ---- a msgpack encoder with the fixed-width forms only ----
def pack(value, key=None):
    if isinstance(value, dict):
        out = b"\xdf" + struct.pack("!I", len(value))
        for k, v in value.items():
            out += pack(k) + pack(v, k)
        return out
    if isinstance(value, (list, tuple)):
        return b"\xdd" + struct.pack("!I", len(value)) + b"".join(pack(v) for v in value)
    if isinstance(value, bytes):
        return b"\xc6" + struct.pack("!I", len(value)) + value
    if isinstance(value, str):
        raw = value.encode()
        return b"\xdb" + struct.pack("!I", len(raw)) + raw
    if isinstance(value, int):
        if key in I64_FIELDS:
            return b"\xd3" + struct.pack("!q", value)
        return b"\xcf" + struct.pack("!Q", value)
    raise TypeError(value)


class Body(dict):
    """A decoded body: a number that is 0 (or a string that is absent) is not
    sent, so a missing key reads as 0 (compare strings with .get())."""
    def __missing__(self, key):
        return 0


def read_msg(s, timeout=20):
    """(type, decoded body), or None at EOF; a frame cut short raises."""
    msg = read_frame(s, timeout, strict=True)
    return msg and (msg[0], Body(unpack(msg[1])))


# ---- the fixture: a node spool and a config ----
class Node:
    def __init__(self, tmp):
        self.dir = tmp
        self.spool = tmp / "spool" / "node01"
        self.work = tmp / "work"
        self.work.mkdir()
        self.conf = tmp / "slurm.conf"
        self.conf.write_text(
            "ClusterName=tc\nSlurmctldHost=localhost\n"
            f"SlurmdSpoolDir={tmp}/spool/%n\nStateSaveLocation={tmp}/state\n"
            "KillWait=1\nNodeName=node[01-02] CPUs=2 RealMemory=100\n"
            "PartitionName=p Nodes=node[01-02] Default=YES\n"
            "AuthType=auth/slurm\n")
        # rotastepd checks the controller's signature on each launch
        self.key = os.urandom(64)
        (tmp / "slurm.key").write_bytes(self.key)
        os.chmod(tmp / "slurm.key", 0o600)
        self.procs = []

    def request(self, **kw):
        req = {
            "job_id": 42, "step_id": STEP_BATCH, "uid": os.geteuid(),
            "gid": os.getegid(), "job_name": "tjob", "partition": "p",
            "node_name": "node01", "work_dir": str(self.work),
            "env": ["PATH=/usr/bin:/bin", "SLURM_STEP_ID=7", "KEEP=me"],
            "job_nodes": "node[01-02]", "job_cpus_per_node": [2, 2],
            "job_num_tasks": 3, "job_ntasks_per_node": NO_VAL,
            "cpus_per_task": NO_VAL, "mem_per_node": 100, "mem_per_cpu": NO_VAL64,
            "submit_dir": str(self.dir), "submit_host": "login1",
        }
        req.update(kw)
        return req

    def launch(self, req, sign=True):
        """Start rotastepd with req (signed as the controller would, unless
        sign is False) on fd 3; returns (process, our socket)."""
        if sign:
            req = sign_launch(req, self.key)
        ours, theirs = socket.socketpair()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               "SLURM_CONF": str(self.conf)}
        p = subprocess.Popen(
            ["bash", "-c", f'exec "$0" -v 3<&{theirs.fileno()}', str(STEPD)],
            pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL,
            stderr=open(self.dir / "stepd.log", "ab"))
        theirs.close()
        self.procs.append(p)
        ours.sendall(frame(MSG_LAUNCH_REQ, pack(req)))
        return p, ours

    def complete(self, sock, proc, timeout=20):
        msg = read_msg(sock, timeout)
        assert msg and msg[0] == MSG_STEP_COMPLETE, (msg, self.log())
        proc.wait(timeout=10)
        return msg[1]

    def log(self):
        p = self.dir / "stepd.log"
        return p.read_text() if p.exists() else ""


@pytest.fixture
def node(tmp_path):
    if not STEPD.exists():
        pytest.fail(f"{STEPD} not built")
    n = Node(tmp_path)
    yield n
    for p in n.procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def env_of(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_batch_environment_and_default_output(node):
    script = "#!/bin/sh\necho args=$*\nenv\necho to-stderr >&2\nexit 3\n"
    proc, s = node.launch(node.request(script=script, argv=["a", "b c"]))
    done = node.complete(s, proc)
    assert done["status"] == 3 << 8 and done["flags"] == 0
    assert done["job_id"] == 42 and done["step_id"] == STEP_BATCH
    out = (node.work / "slurm-42.out").read_text()
    assert "args=a b c" in out and "to-stderr" in out
    env = env_of(out)
    assert "SLURM_STEP_ID" not in env and "SLURM_STEPID" not in env
    assert env["KEEP"] == "me"
    expect = {
        "SLURM_JOB_ID": "42", "SLURM_JOBID": "42", "SLURM_JOB_NAME": "tjob",
        "SLURM_JOB_NODELIST": "node[01-02]", "SLURM_NODELIST": "node[01-02]",
        "SLURM_JOB_NUM_NODES": "2", "SLURM_NNODES": "2",
        "SLURM_JOB_CPUS_PER_NODE": "2(x2)", "SLURM_TASKS_PER_NODE": "2,1",
        "SLURM_NTASKS": "3", "SLURM_NPROCS": "3", "SLURM_CPUS_ON_NODE": "2",
        "SLURM_NODEID": "0", "SLURM_PROCID": "0", "SLURM_LOCALID": "0",
        "SLURM_GTIDS": "0", "SLURMD_NODENAME": "node01", "SLURM_CLUSTER_NAME": "tc",
        "SLURM_JOB_PARTITION": "p", "SLURM_SUBMIT_HOST": "login1",
        "SLURM_SUBMIT_DIR": str(node.dir), "SLURM_MEM_PER_NODE": "100",
        "SLURM_CONF": str(node.conf), "ENVIRONMENT": "BATCH",
        "SLURM_JOB_UID": str(os.geteuid()),
    }
    assert {k: env.get(k) for k in expect} == expect
    assert "SLURM_MEM_PER_CPU" not in env and "SLURM_CPUS_PER_TASK" not in env
    # the script and its directory are gone once the job is done
    assert not (node.spool / "job00042").exists()


@pytest.mark.skipif(not can_unshare_uts(), reason="needs root and a UTS namespace")
def test_batch_sees_virtual_hostname(node):
    proc, s = node.launch(node.request(script="#!/bin/sh\nhostname\n"))
    node.complete(s, proc)
    assert (node.work / "slurm-42.out").read_text() == "node01\n"


def test_launch_without_valid_credential_refused(node):
    """rotastepd runs as root and forks what the launch says: it checks the
    controller's signature itself.  A launch that is unsigned, changed after
    signing, or expired runs nothing and is reported as a failed launch."""
    marker = node.work / "ran"
    req = node.request(script=f"#!/bin/sh\ntouch {marker}\n")
    signed = sign_launch(req, node.key)
    cases = {"unsigned": (req, "missing"),
             "tampered": (dict(signed, script=f"#!/bin/sh\ntouch {marker}.x\n"),
                          "bad signature"),
             "other key": (sign_launch(req, os.urandom(64)), "bad signature"),
             "expired": (sign_launch(req, node.key, now=time.time() - 600),
                         "expired")}
    for what, (r, why) in cases.items():
        proc, s = node.launch(r, sign=False)
        done = node.complete(s, proc)
        assert done["flags"] & STEP_DONE_LAUNCH_FAILED, what
        assert done["msg"] == "Invalid job credential", what
        assert f"launch refused: credential {why}" in node.log(), (what, node.log())
    assert not list(node.work.iterdir()), "a refused launch ran something"
    proc, s = node.launch(req)  # the same, signed
    assert node.complete(s, proc)["status"] == 0
    assert marker.exists()


def test_batch_output_patterns(node):
    req = node.request(script="#!/bin/sh\necho out; echo err >&2\n",
                       std_out="%x-%j-%N.o", std_err=str(node.work / "e-%5j_%%"))
    proc, s = node.launch(req)
    assert node.complete(s, proc)["status"] == 0
    assert (node.work / "tjob-42-node01.o").read_text() == "out\n"
    assert (node.work / "e-00042_%").read_text() == "err\n"


def test_batch_unwritable_output_fails_launch(node):
    req = node.request(script="#!/bin/sh\ntrue\n", std_out="/nonexistent/dir/x.out")
    proc, s = node.launch(req)
    done = node.complete(s, proc)
    assert done["flags"] & STEP_DONE_LAUNCH_FAILED
    assert done["status"] == 1 << 8
    assert "Could not open stdout file /nonexistent/dir/x.out" in done["msg"]


def test_batch_missing_work_dir_goes_to_tmp(node):
    req = node.request(script="#!/bin/sh\npwd\n", work_dir="/nonexistent-wd",
                       std_out=str(node.work / "o.txt"))
    proc, s = node.launch(req)
    assert node.complete(s, proc)["status"] == 0
    assert (node.work / "o.txt").read_text() == (
        "slurmstepd: error: couldn't chdir to `/nonexistent-wd': No such file or "
        "directory: going to /tmp instead\n/tmp\n")


class Srun:
    """Plays srun's side of a step's I/O."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.key = os.urandom(32)

    def step(self, node, index=0, tasks=(2, 1), argv=("sh", "-c", "true"), **kw):
        return node.request(step_id=3, argv=list(argv), step_nodes="node[01-02]",
                            step_tasks_per_node=list(tasks), node_index=index,
                            step_num_tasks=sum(tasks), io_host="127.0.0.1",
                            io_port=self.port, io_key=self.key, **kw)

    def serve(self, stdin=None):
        """Accept one stepd; return (hello, {(task, stream): bytes}, eofs, exits)."""
        self.listener.settimeout(20)
        conn, _ = self.listener.accept()
        kind, hello = read_msg(conn)
        assert kind == MSG_IO_HELLO
        if stdin is not None:
            conn.sendall(frame(MSG_IO_DATA, pack({"task": 0, "stream": 0, "data": stdin})))
            conn.sendall(frame(MSG_IO_DATA, pack({"task": 0, "stream": 0, "data": b""})))
        data, eofs, exits = {}, [], {}
        while True:
            msg = read_msg(conn)
            if msg is None:
                break
            kind, body = msg
            if kind == MSG_IO_DATA:
                key = (body["task"], body["stream"])
                assert key not in eofs, f"data after EOF on {key}"
                if body["data"]:
                    data[key] = data.get(key, b"") + body["data"]
                else:
                    eofs.append(key)
            elif kind == MSG_TASK_EXIT:
                for t in body["tasks"]:
                    assert (t, 1) in eofs and (t, 2) in eofs, "exit before EOF"
                    exits[t] = body["status"]
        conn.close()
        return hello, data, eofs, exits


def test_step_streams_output_and_exit_codes(node):
    srun = Srun()
    cmd = ('echo "rank=$SLURM_PROCID local=$SLURM_LOCALID node=$SLURM_NODEID '
           'gtids=$SLURM_GTIDS n=$SLURM_NTASKS tpn=$SLURM_TASKS_PER_NODE '
           'step=$SLURM_STEP_ID steptpn=$SLURM_STEP_TASKS_PER_NODE '
           'comm=$SLURM_SRUN_COMM_HOST"; echo e$SLURM_PROCID >&2; exit $SLURM_PROCID')
    proc, s = node.launch(srun.step(node, argv=("sh", "-c", cmd)))
    hello, data, eofs, exits = srun.serve()
    assert hello["key"] == srun.key and hello["job_id"] == 42
    assert hello["step_id"] == 3 and hello["node_name"] == "node01"
    for t in (0, 1):
        assert data[(t, 1)].decode() == (
            f"rank={t} local={t} node=0 gtids=0,1 n=3 tpn=2,1 step=3 steptpn=2,1 "
            "comm=127.0.0.1\n")
        assert data[(t, 2)] == f"e{t}\n".encode()
    assert sorted(eofs) == [(0, 1), (0, 2), (1, 1), (1, 2)]
    assert exits == {0: 0, 1: 1 << 8}
    done = node.complete(s, proc)
    assert done["status"] == 1 << 8 and done["step_id"] == 3


def test_step_on_second_node_numbers_tasks_globally(node):
    srun = Srun()
    cmd = 'echo $SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID $SLURM_GTIDS $SLURMD_NODENAME'
    req = srun.step(node, index=1, argv=("sh", "-c", cmd), node_name="node02")
    proc, s = node.launch(req)
    hello, data, _, exits = srun.serve()
    assert hello["node_index"] == 1
    assert data == {(2, 1): b"2 0 1 2 node02\n"}
    assert exits == {2: 0}
    node.complete(s, proc)


def test_step_stdin_goes_to_task_zero(node):
    srun = Srun()
    proc, s = node.launch(srun.step(node, argv=("sh", "-c", 'read x; echo "[$x]"')))
    _, data, _, _ = srun.serve(stdin=b"hello\n")
    assert data == {(0, 1): b"[hello]\n", (1, 1): b"[]\n"}
    node.complete(s, proc)


def test_step_missing_command_exits_like_slurm(node):
    srun = Srun()
    proc, s = node.launch(srun.step(node, tasks=(1,), argv=("no-such-command-x",)))
    _, data, _, exits = srun.serve()
    assert b"execve(): no-such-command-x: No such file or directory" in data[(0, 2)]
    assert exits == {0: 2 << 8}  # exit code = errno, as Slurm
    node.complete(s, proc)


def test_terminate_sends_term_then_kill(node):
    script = "#!/bin/bash\ntrap 'echo trapped; exit 7' TERM\nsleep 30 & wait\n"
    proc, s = node.launch(node.request(script=script))
    time.sleep(0.5)
    s.sendall(frame(MSG_SIGNAL_REQ, pack({"job_id": 42, "step_id": NO_VAL, "signal": 9,
                                          "flags": SIGNAL_F_TERMINATE})))
    assert node.complete(s, proc)["status"] == 7 << 8
    assert "trapped" in (node.work / "slurm-42.out").read_text()
    # a script that ignores SIGTERM is killed KillWait (1 s) later
    proc, s = node.launch(node.request(script="#!/bin/bash\ntrap '' TERM\nsleep 30\n"))
    time.sleep(0.5)
    t0 = time.monotonic()
    s.sendall(frame(MSG_SIGNAL_REQ, pack({"job_id": 42, "step_id": STEP_BATCH, "signal": 0,
                                          "flags": SIGNAL_F_TERMINATE})))
    assert node.complete(s, proc)["status"] == 9
    assert 0.8 < time.monotonic() - t0 < 5


def test_plain_signal_reaches_the_script(node):
    # The signal goes to every process of the step: it is sent once the background child
    # is sleep, not a copy of the shell that still has the trap and would echo too.
    script = ("#!/bin/bash\ntrap 'echo usr1; exit 0' USR1\nsleep 30 & p=$!\n"
              "until [ \"$(cat /proc/$p/comm)\" = sleep ]; do :; done\ntouch ready\nwait\n")
    proc, s = node.launch(node.request(script=script))
    deadline = time.monotonic() + 10
    while not (node.work / "ready").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    s.sendall(frame(MSG_SIGNAL_REQ, pack({"job_id": 99, "step_id": NO_VAL, "signal": 10,
                                          "flags": 0})))  # another job: ignored
    s.sendall(frame(MSG_SIGNAL_REQ, pack({"job_id": 42, "step_id": NO_VAL, "signal": 10,
                                          "flags": 0})))
    assert node.complete(s, proc)["status"] == 0
    # bash may report its sleep's death by the same signal before the trap
    # runs ("...: User defined signal 1"): a race of the shell, not ours
    out = [ln for ln in (node.work / "slurm-42.out").read_text().splitlines()
           if "User defined signal 1" not in ln]
    assert out == ["usr1"], out


def test_plain_signal_reaches_each_process_once(node):
    # A process of the task's group and one that left it (setsid) each get the signal
    # once: through the group, or through the step's cgroup, never both.  A real-time
    # signal, blocked and waited for, is queued once per kill, so a second shows.
    script = """#!/usr/bin/python3
import os, signal
sig = signal.SIGRTMIN + 6
signal.pthread_sigmask(signal.SIG_BLOCK, {sig})
who = "child" if os.fork() == 0 else "parent"
if who == "child":
    os.setsid()
open(who + "-ready", "w").close()
got = 0
while signal.sigtimedwait({sig}, 0.5 if got else 10):
    got += 1
open(who + "-got", "w").write(str(got))
if who == "parent":
    os.wait()
"""
    proc, s = node.launch(node.request(script=script))
    deadline = time.monotonic() + 10
    while not all((node.work / f"{w}-ready").exists() for w in ("parent", "child")):
        assert time.monotonic() < deadline, node.log()
        time.sleep(0.02)
    s.sendall(frame(MSG_SIGNAL_REQ, pack({"job_id": 42, "step_id": NO_VAL,
                                          "signal": signal.SIGRTMIN + 6, "flags": 0})))
    assert node.complete(s, proc)["status"] == 0, (node.work / "slurm-42.out").read_text()
    assert (node.work / "parent-got").read_text() == "1"
    assert (node.work / "child-got").read_text() == "1"


def test_stepd_outlives_rotad_and_reattaches(node):
    proc, s = node.launch(node.request(script="#!/bin/sh\nsleep 1.5\nexit 4\n"))
    sock = node.spool / f"node01_42.{STEP_BATCH}"
    deadline = time.monotonic() + 10
    while not sock.exists():
        assert time.monotonic() < deadline, node.log()
        time.sleep(0.05)
    s.close()  # rotad goes away; the job keeps running
    time.sleep(0.3)
    assert proc.poll() is None
    again = socket.socket(socket.AF_UNIX)
    again.connect(str(sock))
    assert node.complete(again, proc)["status"] == 4 << 8
    assert not sock.exists()


def test_completion_left_in_spool_when_no_rotad(node):
    proc, s = node.launch(node.request(script="#!/bin/sh\nsleep 0.5\nexit 5\n"))
    time.sleep(0.2)
    s.close()
    proc.wait(timeout=20)
    done = node.spool / f"node01_42.{STEP_BATCH}.done"
    raw = done.read_bytes()
    assert raw[:4] == b"ROTA"
    _, kind, n = struct.unpack("!HHI", raw[4:12])
    body = Body(unpack(raw[12:12 + n]))
    assert kind == MSG_STEP_COMPLETE and body["status"] == 5 << 8
    assert body["node_name"] == "node01"
