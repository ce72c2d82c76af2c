"""Attacks on who may give a node daemon orders (issue 8, point 1): an impostor
controller on the controller's port while rotactld is down, and genuine launch
credentials replayed to another node, to the same node, after they expired, or
tampered with.  Real daemons; the test plays the attacker with raw frames."""

import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time

import pytest

from conftest import BIN, IS_ROOT
from test_munge import MUNGE, MUNGED, munge_socket  # noqa: F401 (a fixture)
from wire import frame, header, mp
from wire import read_frame as _read_frame

MSG_RC, MSG_AUTH_CHALLENGE, MSG_AUTH_RESPONSE = 1, 30, 31
MSG_NODE_ACK = 49  # the controller took a registration (or heard a ping)
MSG_NODE_REGISTER, MSG_LAUNCH_REQ, MSG_AUTH_PROOF = 32, 34, 38
STEP_BATCH = 0xFFFFFFFB
NO_VAL = 0xFFFFFFFE
NO_VAL64 = 0xFFFFFFFFFFFFFFFE
SMALL = ("--cpus", "2", "--mem", "2048")
SETPRIV = shutil.which("setpriv")


def read_frame(s):
    """(type, whole frame bytes), or None at EOF; s keeps its own timeout."""
    return _read_frame(s, timeout=None, raw=True)


def bin_field(frame_bytes, name):
    """The value of a msgpack bin field (bin8/bin16) called name in a frame
    (b"" when there is none)."""
    key = bytes([0xA0 | len(name)]) + name.encode()
    if key not in frame_bytes:
        return b""
    i = frame_bytes.index(key) + len(key)
    if frame_bytes[i] == 0xC4:
        return frame_bytes[i + 2:i + 2 + frame_bytes[i + 1]]
    n = struct.unpack("!H", frame_bytes[i + 1:i + 3])[0]
    return frame_bytes[i + 3:i + 3 + n]


def launch_body(job_id, uid, gid, user, node, marker):
    now = int(time.time())
    return mp({
        "job_id": job_id, "step_id": STEP_BATCH, "uid": uid, "gid": gid,
        "user": user, "job_name": "pwn", "partition": "debug", "account": None,
        "cluster_name": "rota", "node_name": node, "work_dir": "/tmp",
        "script": f"#!/bin/sh\ntouch {marker}\n", "argv": [],
        "env": ["PATH=/usr/bin:/bin"], "std_out": "/dev/null",
        "std_err": "/dev/null", "std_in": "/dev/null", "job_nodes": node,
        "job_cpus_per_node": [1], "job_num_tasks": 1,
        "job_ntasks_per_node": NO_VAL, "cpus_per_task": NO_VAL,
        "mem_per_node": NO_VAL64, "mem_per_cpu": NO_VAL64, "time_limit": 10,
        "step_nodes": node, "step_tasks_per_node": [1], "node_index": 0,
        "step_num_tasks": 1, "io_host": None, "io_port": 0, "io_key": b"",
        "flags": 0, "submit_dir": "/tmp", "submit_host": "localhost",
        "umask": 0o22, "start_time": now, "ctld_host": "localhost", "cores": [0],
        "node_flags": 0,
    })


def log_text(c, node):
    try:
        with open(os.path.join(c.dir, "log", f"rotad-{node}.log")) as f:
            return f.read()
    except OSError:
        return ""


def wait_log(c, node, pattern, since=0, timeout=15):
    """Wait for pattern (a regex) in node's rotad log after offset since."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log_text(c, node)[since:]
        m = re.search(pattern, text)
        if m:
            return m
        time.sleep(0.1)
    raise AssertionError(f"no {pattern!r} in rotad-{node}.log:\n"
                         f"{log_text(c, node)[since:][-3000:]}")


# ---- (a) an impostor on the controller's port ----

def impostor_listen(port, timeout):
    """Listen on the (dead) controller's port, as an impostor would."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(8)
    srv.settimeout(timeout)
    return srv


def impostor_orders(s, mode, response, markers):
    """After rotad's answer: a proof (per mode), a registration ack, launches."""
    if mode == "forged_proof":
        s.sendall(frame(MSG_AUTH_PROOF, mp({"mac": os.urandom(32), "cred": None})))
    elif mode == "reflected_proof":
        # the node's own answer, handed back as our proof
        s.sendall(frame(MSG_AUTH_PROOF,
                        mp({"mac": bin_field(response, "mac"), "cred": None})))
    s.sendall(frame(MSG_NODE_ACK, mp({"term": 99, "lineage": 0})))
    s.sendall(frame(MSG_LAUNCH_REQ,
                    launch_body(990001, 0, 0, "root", "node01", markers[0])))
    s.sendall(frame(MSG_LAUNCH_REQ, launch_body(990002, 65534, 65534, "nobody",
                                                "node01", markers[1])))


@pytest.mark.parametrize("mode", ["no_proof", "forged_proof", "reflected_proof"])
def test_impostor_controller_runs_nothing(make_cluster, mode):
    """rotactld is down; a local process binds its port and, after accepting
    whatever answer rotad gives to its challenge, orders launches as root and
    as another uid.  Nothing may run, no rotastepd may start, and rotad must
    say (once, not per retry) that the peer failed to prove it is the
    controller.  Then the real controller comes back and the node works."""
    c = make_cluster("--nodes", "1", *SMALL)
    c.wait_nodes_idle()
    port = int(c.conf_value("SlurmctldPort"))
    markers = [f"/tmp/rota-pwned-{os.getpid()}-{mode}-{u}" for u in ("root", "nobody")]
    for m in markers:
        if os.path.exists(m):
            os.unlink(m)
    log_start = len(log_text(c, "node01"))
    c.kill_daemon("rotactld", signal.SIGKILL)

    srv = impostor_listen(port, timeout=1)
    connections = 0
    deadline = time.monotonic() + 6
    try:
        while time.monotonic() < deadline:
            try:
                s, _ = srv.accept()
            except socket.timeout:
                continue
            connections += 1
            with s:
                s.settimeout(3)
                nonce = os.urandom(32)
                s.sendall(frame(MSG_AUTH_CHALLENGE,
                                mp({"nonce": nonce, "method": "auth/slurm"})))
                got = read_frame(s)
                if got is None or got[0] != MSG_AUTH_RESPONSE:
                    continue
                try:
                    impostor_orders(s, mode, got[1], markers)
                    while read_frame(s):  # until rotad hangs up
                        pass
                except (socket.timeout, ConnectionError):
                    pass
        time.sleep(2)  # a launch that got through would have run by now
        ran = [m for m in markers if os.path.exists(m)]
        log = log_text(c, "node01")[log_start:]
    finally:
        srv.close()
        for m in markers:
            if os.path.exists(m):
                os.unlink(m)
    assert connections >= 2, f"rotad connected {connections} time(s)\n{log}"
    assert not ran, f"the impostor's launches ran: {ran}\n{log}"
    assert "rotastepd started" not in log, log
    assert log.count("failed to prove it is the controller") == 1, log

    # the real controller again: the node registers and runs a job
    c.up()
    jid = c.sbatch("-w", "node01", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_job(jid) == "COMPLETED"


@pytest.mark.skipif(not (os.path.exists(MUNGED) and IS_ROOT and SETPRIV),
                    reason="needs munged, setpriv and root")
def test_impostor_with_user_munge_credential_refused(make_cluster, munge_socket):
    """With auth/munge any local user can make a credential whose payload is the
    exact proof rotad expects; one made by a uid that is not root (nor
    SlurmUser) must not pass for the controller."""
    c = make_cluster("--nodes", "1", *SMALL, "--munge-socket", munge_socket)
    c.wait_nodes_idle()
    port = int(c.conf_value("SlurmctldPort"))
    marker = f"/tmp/rota-pwned-{os.getpid()}-munge"
    log_start = len(log_text(c, "node01"))
    c.kill_daemon("rotactld", signal.SIGKILL)
    srv = impostor_listen(port, timeout=10)
    try:
        s, _ = srv.accept()
        with s:
            s.settimeout(5)
            nonce = os.urandom(32)
            s.sendall(frame(MSG_AUTH_CHALLENGE,
                            mp({"nonce": nonce, "method": "auth/munge"})))
            got = read_frame(s)
            assert got and got[0] == MSG_AUTH_RESPONSE
            payload = (b"rota controller proof v1\n" + bin_field(got[1], "nonce") +
                       nonce + b"node01")
            cred = subprocess.run(
                [SETPRIV, "--reuid=65534", "--regid=65534", "--clear-groups",
                 MUNGE, "-S", munge_socket], input=payload, capture_output=True,
                check=True, timeout=10).stdout.decode().strip()
            try:
                s.sendall(frame(MSG_AUTH_PROOF, mp({"mac": b"", "cred": cred})))
                s.sendall(frame(MSG_NODE_ACK, mp({"term": 99, "lineage": 0})))
                s.sendall(frame(MSG_LAUNCH_REQ, launch_body(
                    990003, 0, 0, "root", "node01", marker)))
                while read_frame(s):
                    pass
            except (socket.timeout, ConnectionError):
                pass
        time.sleep(2)
        ran = os.path.exists(marker)
    finally:
        srv.close()
        if os.path.exists(marker):
            os.unlink(marker)
    log = log_text(c, "node01")[log_start:]
    assert not ran, log
    assert "rotastepd started" not in log, log
    assert ("failed to prove it is the controller: signed by uid 65534, not root "
            "or SlurmUser") in log, log


# ---- (b) genuine credentials replayed or tampered with ----

class Proxy:
    """Forwards one rotad's link to the controller and back, keeping a copy of
    every MSG_LAUNCH_REQ frame the controller sends; inject() puts a frame into
    the controller -> rotad stream of the live link (between two frames).
    With hold set, launches are kept back instead of forwarded; before_rc, when
    set, is sent on the next connection just before the controller's
    MSG_NODE_ACK (the answer to the registration); drop() cuts the live
    link."""

    def __init__(self, ctld_port):
        self.ctld_port = ctld_port
        self.lsock = socket.socket()
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(4)
        self.port = self.lsock.getsockname()[1]
        self.launches = []
        self.lock = threading.Lock()
        self.down = None
        self.connections = 0
        self.hold = False
        self.before_rc = None
        self.socks = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                node, _ = self.lsock.accept()
                up = socket.create_connection(("127.0.0.1", self.ctld_port))
            except OSError:
                return
            self.socks += [node, up]
            with self.lock:
                self.down = node
                self.connections += 1
            threading.Thread(target=self._up, args=(node, up), daemon=True).start()
            threading.Thread(target=self._down, args=(up, node), daemon=True).start()

    @staticmethod
    def _up(node, up):
        try:
            while True:
                data = node.recv(65536)
                if not data:
                    break
                up.sendall(data)
        except OSError:
            pass
        for s in (node, up):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _down(self, up, node):
        try:
            while True:
                got = read_frame(up)
                if got is None:
                    break
                if got[0] == MSG_LAUNCH_REQ:
                    self.launches.append(got[1])
                    if self.hold:
                        continue
                with self.lock:
                    if got[0] == MSG_NODE_ACK and self.before_rc:
                        node.sendall(self.before_rc)
                        self.before_rc = None
                    node.sendall(got[1])
        except OSError:
            pass
        for s in (node, up):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def inject(self, data):
        with self.lock:
            self.down.sendall(data)

    def drop(self):
        for s in self.socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.lsock.close()
        for s in self.socks:
            try:
                s.close()
            except OSError:
                pass


def proxied_rotad(c, node, proxy):
    """A rotad for node whose link goes through proxy (the one `rota up`
    started must be gone)."""
    with open(c.conf_path) as f:
        text = f.read()
    conf = os.path.join(c.dir, f"proxy-{node}.conf")  # beside slurm.key
    with open(conf, "w") as f:
        f.write(re.sub(r"(?mi)^SlurmctldPort=\d+", f"SlurmctldPort={proxy.port}",
                       text))
    env = {k: v for k, v in c.env.items() if k != "SLURM_CONF"}
    out = open(os.path.join(c.dir, "log", f"proxied-{node}.out"), "ab")
    return subprocess.Popen([str(BIN / "rotad"), "-f", conf, "-N", node],
                            stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                            env=env, start_new_session=True)


CRED_EXPIRE = 15


def test_replayed_or_tampered_launch_refused(make_cluster):
    """A genuine launch credential, captured on node01's link, is refused when
    injected into node02's authenticated link, into node01's again (replay,
    also after node01's rotad restarted), with one byte of its command or uid
    changed, and after it expired; nothing runs again and the nodes keep
    working."""
    c = make_cluster("--nodes", "2", *SMALL)
    c.down()
    with open(c.conf_path, "a") as f:
        f.write(f"AuthInfo=cred_expire={CRED_EXPIRE}\n")
    c.up()
    ctld_port = int(c.conf_value("SlurmctldPort"))
    proxies = {n: Proxy(ctld_port) for n in ("node01", "node02")}
    procs = []
    try:
        for n, p in proxies.items():
            c.kill_daemon(f"rotad-{n}", signal.SIGTERM)
            procs.append(proxied_rotad(c, n, p))
        c.wait_for(lambda: all(p.down for p in proxies.values()), 15,
                   "rotads connecting through the proxies")
        c.wait_nodes_idle()

        mark = os.path.join(c.dir, "ran.txt")
        jid = c.sbatch("-w", "node01", "-o", "/dev/null", "--wrap",
                       f"echo ran >> {mark}")
        captured = time.time()
        assert c.wait_job(jid) == "COMPLETED"
        assert open(mark).read() == "ran\n"
        assert len(proxies["node01"].launches) == 1
        genuine = proxies["node01"].launches[0]
        assert b"echo ran" in genuine

        def refused(node, data, why):
            since = len(log_text(c, node))
            proxies[node].inject(data)
            wait_log(c, node, rf"JobId={jid} StepId=\d+ launch refused: "
                              rf"credential {why}", since)

        # another node
        refused("node02", genuine, "for node node01")
        # the same node again, within the credential's lifetime
        refused("node01", genuine, "replayed")
        # ... also after rotad restarted (its cred_state in the spool)
        links = proxies["node01"].connections
        regs = log_text(c, "node01").count("as node01 (term")
        procs[0].send_signal(signal.SIGTERM)
        procs[0].wait(timeout=10)
        procs[0] = proxied_rotad(c, "node01", proxies["node01"])
        c.wait_for(lambda: proxies["node01"].connections > links, 15,
                   "the restarted rotad connecting")
        c.wait_for(lambda: log_text(c, "node01").count(
            "as node01 (term") > regs, 15,
            "the restarted rotad registering")
        refused("node01", genuine, "replayed")
        # tampered: the command, then the step id (uid 0 is not sent at all: a
        # number that is 0 is left out)
        refused("node01", genuine.replace(b"echo ran", b"echo RAN"), "bad signature")
        i = genuine.index(b"\xa7step_id") + 8
        assert genuine[i] == 0xCE  # uint 32: the batch step's id
        i += 4
        refused("node01", genuine[:i] + bytes([genuine[i] ^ 1]) + genuine[i + 1:],
                "bad signature")
        assert time.time() < captured + CRED_EXPIRE, "too slow to test the replay"
        # after it expired (the replay cache has forgotten it by then)
        time.sleep(max(0.0, captured + CRED_EXPIRE + 1.5 - time.time()))
        refused("node01", genuine, "expired")

        time.sleep(1)
        assert open(mark).read() == "ran\n"
        for n in proxies:  # one stepd, for the genuine launch
            want = 1 if n == "node01" else 0
            assert log_text(c, n).count("rotastepd started") == want, log_text(c, n)
        assert c.job_state(jid) == "COMPLETED"
        # both nodes still take genuine work
        for n in proxies:
            j = c.sbatch("-w", n, "-o", "/dev/null", "--wrap", "true")
            assert c.wait_job(j) == "COMPLETED"
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        for p in proxies.values():
            p.close()


def test_launch_before_registration_ignored(make_cluster):
    """A genuine, unused, unexpired launch for this node that arrives after
    authentication but before the controller has answered the registration is
    ignored: rotad takes orders only on a link whose registration was
    accepted."""
    c = make_cluster("--nodes", "1", *SMALL)
    proxy = Proxy(int(c.conf_value("SlurmctldPort")))
    c.kill_daemon("rotad-node01", signal.SIGTERM)
    proc = proxied_rotad(c, "node01", proxy)
    try:
        c.wait_for(lambda: proxy.down, 15, "rotad connecting through the proxy")
        c.wait_nodes_idle()
        proxy.hold = True  # launches are kept back from now on
        mark = os.path.join(c.dir, "ran.txt")
        c.sbatch("-w", "node01", "-o", "/dev/null", "--wrap", f"echo ran >> {mark}")
        c.wait_for(lambda: proxy.launches, 15, "the launch")
        since = len(log_text(c, "node01"))
        regs = log_text(c, "node01").count("registered with the controller")
        proxy.before_rc = proxy.launches[0]
        proxy.drop()
        c.wait_for(lambda: log_text(c, "node01").count(
            "registered with the controller") > regs, 15, "rotad registering again")
        wait_log(c, "node01", "ignoring MSG_LAUNCH_REQ from the controller before "
                              "registration", since)
        time.sleep(1)
        assert not os.path.exists(mark)
        assert "rotastepd started" not in log_text(c, "node01")[since:]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        proxy.close()


def vm_hwm(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmHWM for {pid}")


def test_impostor_cannot_make_rotad_buffer_a_large_frame(make_cluster):
    """rotactld is down; a local process on its port answers rotad's connection
    with a 48 MiB "challenge".  rotad reads no more than an unauthenticated
    peer may send (FRAME_MAX_UNAUTH) before the controller has proved itself:
    it hangs up after the header, and its memory does not grow by the frame."""
    c = make_cluster("--nodes", "1", *SMALL)
    c.wait_nodes_idle()
    port = int(c.conf_value("SlurmctldPort"))
    rotad = c.pid("rotad-node01")
    c.kill_daemon("rotactld", signal.SIGKILL)
    before = vm_hwm(rotad)
    size = 48 << 20
    srv = impostor_listen(port, timeout=10)
    try:
        s, _ = srv.accept()
        with s:
            s.settimeout(10)
            s.sendall(header(MSG_AUTH_CHALLENGE, size))
            chunk = b"\x00" * (1 << 20)
            try:
                for _ in range(size // len(chunk)):
                    s.sendall(chunk)
            except (ConnectionError, socket.timeout):
                pass
            time.sleep(1)
    finally:
        srv.close()
    grown = vm_hwm(rotad) - before
    assert grown < 16 * 1024, f"rotad's peak memory grew {grown // 1024} MiB"
    c.up()
    jid = c.sbatch("-w", "node01", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_job(jid) == "COMPLETED"
