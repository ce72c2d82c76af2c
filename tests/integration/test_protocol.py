"""Hostile peers on the controller's TCP port and unix socket: garbage, oversized
or truncated frames, unauthenticated requests, many idle connections.  The
controller must stay up and keep serving others."""

import os
import socket
import time

import pytest

from wire import closed_by_peer, frame, mp, read_frame, unix_connect, unpack

MSG_RC, MSG_PING_REQ, MSG_PING_RESP = 1, 2, 3
MSG_NODE_REGISTER = 32


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


MSG_JOB_LIST_REQ, MSG_JOB_LIST_RESP = 50, 51


def job_list(cluster, **req):
    """One MSG_JOB_LIST_REQ on the unix socket: (rc or None, the text)."""
    s = unix_connect(cluster)
    s.sendall(frame(MSG_JOB_LIST_REQ, mp(req)))
    text = b""
    while True:
        msg = read_frame(s)
        assert msg is not None
        body = unpack(msg[1])
        if msg[0] == MSG_RC:
            s.close()
            return body.get("rc", 0), text
        assert msg[0] == MSG_JOB_LIST_RESP
        text += body.get("text", b"")
        if not body.get("more"):
            s.close()
            return None, text


def test_job_list_requests_are_bounded(cluster):
    """The controller prints squeue's listing: what it is asked to print, and
    how many filters it tests each job against, have limits; bad requests get an
    error and change nothing."""
    job = cluster.sbatch("--hold", "-J", "listed", "--wrap", "true")
    rc, text = job_list(cluster, format="%i %j", job_ids=[job])
    assert rc is None and text == f"{job} listed\n".encode()
    # a line wider than 8 KB of padding: squeue prints those itself
    rc, _ = job_list(cluster, format="%.4000i%.4000i%.4000i")
    assert rc not in (None, 0)
    rc, _ = job_list(cluster, format="%i", sort="P,x")
    assert rc not in (None, 0)
    rc, _ = job_list(cluster, format="%i", states=[0] * 65)
    assert rc not in (None, 0)
    rc, _ = job_list(cluster, format="%i", job_ids=[999999])
    assert rc == 2017  # ESLURM_INVALID_JOB_ID
    # a long -w list is looked up, not walked, for every job
    rc, text = job_list(cluster, format="%i", nodes=[f"n{i}" for i in range(20000)],
                        states=[0, 1])
    assert rc is None and text == b""
    # an absent format is the default one
    rc, text = job_list(cluster, job_ids=[job])
    assert rc is None and text.decode().split()[0] == str(job)
    assert cluster.run(f"scancel {job}").returncode == 0
    alive(cluster)
