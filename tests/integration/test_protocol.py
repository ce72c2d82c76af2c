"""Hostile peers on the controller's TCP port and unix socket: garbage, oversized
or truncated frames, unauthenticated requests, many idle connections.  The
controller must stay up and keep serving others."""

import os
import socket
import struct
import time

import pytest

MAGIC = b"ROTA"
MSG_RC, MSG_PING_REQ, MSG_PING_RESP = 1, 2, 3
MSG_NODE_REGISTER = 32


def frame(msg_type, body=b"\x80", version=1, length=None):
    n = len(body) if length is None else length
    return MAGIC + struct.pack("!HHI", version, msg_type, n) + body


def read_frame(s, timeout=5):
    s.settimeout(timeout)
    hdr = b""
    while len(hdr) < 12:
        chunk = s.recv(12 - len(hdr))
        if not chunk:
            return None
        hdr += chunk
    assert hdr[:4] == MAGIC
    _, msg_type, n = struct.unpack("!HHI", hdr[4:])
    body = b""
    while len(body) < n:
        chunk = s.recv(n - len(body))
        if not chunk:
            return None
        body += chunk
    return msg_type, body


def closed_by_peer(s, timeout=10):
    """True if the peer closes (EOF or reset) within timeout."""
    s.settimeout(timeout)
    try:
        while True:
            if not s.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


@pytest.fixture
def ctld(cluster):
    port = int(cluster.conf_value("SlurmctldPort"))

    def connect():
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        return s
    connect.port = port
    yield connect
    alive(cluster)


def alive(cluster):
    p = cluster.run("scontrol ping", timeout=20)
    assert p.returncode == 0 and p.stdout.rstrip().endswith("is UP"), p.stdout + p.stderr
    pid = cluster.pid("rotactld")
    assert os.path.exists(f"/proc/{pid}")


def unix_connect(cluster):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.path.join(cluster.dir, "state", "rotactld.sock"))
    return s


def test_tcp_speaks_first_with_challenge(ctld):
    s = ctld()
    msg = read_frame(s)
    assert msg is not None and msg[0] == 30  # MSG_AUTH_CHALLENGE
    s.close()


def test_unix_socket_ping_works(cluster):
    # positive control for the hand-made frames below
    s = unix_connect(cluster)
    s.sendall(frame(MSG_PING_REQ))
    msg = read_frame(s)
    assert msg is not None and msg[0] == MSG_PING_RESP
    s.close()


def test_garbage(cluster, ctld):
    for seed in range(20):
        s = ctld()
        s.sendall(os.urandom(4096 + seed * 97))
        assert closed_by_peer(s)
        s.close()
    s = unix_connect(cluster)
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 10)
    assert closed_by_peer(s)
    s.close()


def test_oversized_header(cluster, ctld):
    s = ctld()
    s.sendall(frame(MSG_PING_REQ, b"", length=0xFFFFFFFF))
    assert closed_by_peer(s)
    s.close()
    s = unix_connect(cluster)
    s.sendall(frame(MSG_PING_REQ, b"", length=(64 << 20) + 1))
    assert closed_by_peer(s)
    s.close()


def test_bad_version(cluster):
    s = unix_connect(cluster)
    s.sendall(frame(MSG_PING_REQ, version=999))
    assert closed_by_peer(s)
    s.close()


def test_truncated_frames(cluster, ctld):
    for cut in (1, 5, 11, 12, 20):
        s = ctld()
        s.sendall(frame(MSG_PING_REQ, b"\x80" * 100)[:cut])
        s.close()
    s = unix_connect(cluster)
    s.sendall(frame(MSG_PING_REQ, b"\x81\xa5flags")[:15])
    s.close()


def test_bad_msgpack_body(cluster):
    for body in (b"\xc1\xc1\xc1", b"\x81\xa9min_nodes\xa3abc", b"\xdd\xff\xff\xff\xff",
                 b"\x91\x00", b""):
        s = unix_connect(cluster)
        s.sendall(frame(4, body))  # MSG_SUBMIT_REQ
        msg = read_frame(s)
        assert msg is None or msg[0] == MSG_RC
        s.close()


def test_unknown_type(cluster):
    s = unix_connect(cluster)
    s.sendall(frame(999))
    msg = read_frame(s)
    assert msg is None or msg[0] == MSG_RC
    s.close()


def unpack(data):
    """A minimal msgpack decoder (maps, arrays, strings, bins, ints, nil)."""
    def one(i):
        b = data[i]
        if b <= 0x7f:
            return b, i + 1
        if b >= 0xe0:
            return b - 0x100, i + 1
        if 0x80 <= b <= 0x8f or b in (0xde, 0xdf):
            n, i = ((b & 0x0f, i + 1) if b <= 0x8f else
                    (int.from_bytes(data[i + 1:i + (3 if b == 0xde else 5)], "big"),
                     i + (3 if b == 0xde else 5)))
            out = {}
            for _ in range(n):
                k, i = one(i)
                v, i = one(i)
                out[k] = v
            return out, i
        if 0x90 <= b <= 0x9f or b in (0xdc, 0xdd):
            n, i = ((b & 0x0f, i + 1) if b <= 0x9f else
                    (int.from_bytes(data[i + 1:i + (3 if b == 0xdc else 5)], "big"),
                     i + (3 if b == 0xdc else 5)))
            out = []
            for _ in range(n):
                v, i = one(i)
                out.append(v)
            return out, i
        if 0xa0 <= b <= 0xbf:
            n = b & 0x1f
            return data[i + 1:i + 1 + n].decode(), i + 1 + n
        sizes = {0xd9: 1, 0xda: 2, 0xdb: 4, 0xc4: 1, 0xc5: 2, 0xc6: 4}
        if b in sizes:
            w = sizes[b]
            n = int.from_bytes(data[i + 1:i + 1 + w], "big")
            raw = data[i + 1 + w:i + 1 + w + n]
            return (raw.decode() if b >= 0xd9 else raw), i + 1 + w + n
        ints = {0xcc: (1, False), 0xcd: (2, False), 0xce: (4, False), 0xcf: (8, False),
                0xd0: (1, True), 0xd1: (2, True), 0xd2: (4, True), 0xd3: (8, True)}
        if b in ints:
            w, signed = ints[b]
            return int.from_bytes(data[i + 1:i + 1 + w], "big", signed=signed), i + 1 + w
        if b == 0xc0:
            return None, i + 1
        if b in (0xc2, 0xc3):
            return b == 0xc3, i + 1
        raise ValueError(f"msgpack byte {b:#x} not handled")
    return one(0)[0]


def refused(msg):
    """The peer closed, or answered MSG_RC with an error."""
    return msg is None or (msg[0] == MSG_RC and unpack(msg[1]).get("rc", 0) != 0)


def test_unauthenticated_tcp_request_refused(cluster, ctld):
    s = ctld()
    assert read_frame(s)[0] == 30
    # skip the challenge: ask straight away
    s.sendall(frame(MSG_PING_REQ))
    assert refused(read_frame(s))
    s.close()
    # a wrong MAC for node01, then a registration
    s = ctld()
    assert read_frame(s)[0] == 30
    body = (b"\x83\xa9node_name\xa6node01\xa3mac\xc4\x20" + b"\0" * 32 +
            b"\xa4cred\xa0")
    s.sendall(frame(31, body))
    try:
        s.sendall(frame(MSG_NODE_REGISTER, b"\x82\xa4name\xa6node01\xa4cpus\x01"))
        msg = read_frame(s)
    except (ConnectionResetError, BrokenPipeError):
        msg = None
    assert refused(msg)
    s.close()
    p = cluster.run("scontrol show node node01")
    assert "CPUTot=8" in p.stdout


def test_unix_ping_response_decodes(cluster):
    s = unix_connect(cluster)
    s.sendall(frame(MSG_PING_REQ))
    msg_type, body = read_frame(s)
    assert msg_type == MSG_PING_RESP
    assert isinstance(unpack(body).get("host"), str)
    s.close()


def test_stalled_peers_do_not_block(cluster, ctld):
    stalled = []
    for _ in range(50):
        s = ctld()
        s.sendall(frame(MSG_PING_REQ, b"\x80" * 64)[:20])
        stalled.append(s)
    for _ in range(50):
        s = unix_connect(cluster)
        s.sendall(b"ROTA")
        stalled.append(s)
    t0 = time.monotonic()
    alive(cluster)
    assert time.monotonic() - t0 < 5
    jobid = cluster.sbatch("--wrap", "true")
    assert cluster.wait_job(jobid) == "COMPLETED"
    for s in stalled:
        s.close()
