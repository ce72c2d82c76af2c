"""Daemons authenticated by a real munged (AuthType=auth/munge): the cluster comes
up, runs work across nodes, and a peer with a forged credential is refused."""

import os
import shutil
import socket
import struct
import subprocess

import pytest

from conftest import DEFAULT_UP_ARGS, MUNGED, munged_with_new_key

MUNGE = shutil.which("munge") or "/usr/bin/munge"
pytestmark = pytest.mark.skipif(
    not (os.path.exists(MUNGED) and os.geteuid() == 0),
    reason="needs munged (Debian package munge) and root")


@pytest.fixture
def munge_socket():
    with munged_with_new_key("rota-munge-", "munge.sock") as (_, sock):
        yield sock


def msgpack_str(s):
    b = s.encode()
    assert len(b) < 256
    return (b"\xd9" + bytes([len(b)]) + b) if len(b) >= 32 else bytes([0xa0 | len(b)]) + b


def test_munge_cluster_runs_jobs(make_cluster, munge_socket):
    c = make_cluster(*DEFAULT_UP_ARGS, "--munge-socket", munge_socket)
    assert c.conf_value("AuthType") == "auth/munge"
    p = c.run("sinfo -h -o '%D %t'")
    assert p.stdout.split() == ["4", "idle"], p.stdout + p.stderr
    p = c.run("srun -N2 -l hostname | sort", timeout=60)
    assert p.returncode == 0, p.stderr
    assert [l.split(":")[0] for l in p.stdout.splitlines()] == ["0", "1"]
    jobid = c.sbatch("-N", "2", "--wrap", "srun true")
    assert c.wait_job(jobid) == "COMPLETED"


def test_forged_munge_credential_refused(make_cluster, munge_socket):
    c = make_cluster(*DEFAULT_UP_ARGS, "--munge-socket", munge_socket)
    port = int(c.conf_value("SlurmctldPort"))
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    hdr = s.recv(12)
    assert hdr[:4] == b"ROTA"
    n = struct.unpack("!I", hdr[8:])[0]
    while n:
        n -= len(s.recv(n))
    # a real credential, but for a payload that is not our challenge
    cred = subprocess.run([MUNGE, "-S", munge_socket, "-s", "not the nonce"],
                          capture_output=True, text=True, check=True).stdout.strip()
    body = (b"\x83" + msgpack_str("node_name") + msgpack_str("node01") +
            msgpack_str("mac") + b"\xc4\x00" + msgpack_str("cred") +
            b"\xda" + struct.pack("!H", len(cred)) + cred.encode())
    s.sendall(b"ROTA" + struct.pack("!HHI", 1, 31, len(body)) + body)
    s.settimeout(10)
    assert s.recv(100) == b"", "the controller must hang up on a forged credential"
    log = open(os.path.join(c.dir, "log", "rotactld.log")).read()
    assert "munge payload does not match the challenge" in log
    assert c.run("scontrol ping").returncode == 0
