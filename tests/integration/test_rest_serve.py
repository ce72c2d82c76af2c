"""How rotarestd serves besides its own listeners: inetd mode (one client on
stdin and stdout, as slurmrestd's: a pipe, a file, a connected socket), a
listening socket on stdin or from systemd (LISTEN_FDS), and its limits: at
most -c clients at a time, and none may take longer than -T seconds to send
a request (a client trickling its headers is cut off); HTTPS with
TLSParameters' certificate, told apart from plain HTTP by the first byte."""

import base64
import json
import os
import socket
import subprocess
import time

from unixusers import as_user, needs_root, sbatch_as

V38 = "/slurm/v0.0.38"


def restd(c):
    return os.path.join(c.bin, "rotarestd")


def responses(raw):
    """[(status, parsed JSON body)] of HTTP/1.1 answers one after another."""
    out = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        length = next(int(v) for k, _, v in (ln.partition(b": ") for ln in lines[1:])
                      if k.lower() == b"content-length")
        out.append((status, json.loads(rest[:length])))
        raw = rest[length:]
    return out


def get(path):
    return f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()


def inetd(c, data, **kw):
    p = subprocess.run([restd(c), "-f", c.conf_path], input=data, capture_output=True,
                       timeout=30, **kw)
    assert p.returncode == 0, p.stderr
    return responses(p.stdout)


def test_inetd_mode_on_a_pipe_answers_and_exits(cluster):
    """Requests piped in are answered in order, as the user running it, and
    it exits when its input has ended and the answers are out."""
    job = cluster.sbatch("-H", "--wrap", "true", "-J", "piped")
    got = inetd(cluster, get(f"{V38}/ping") + get(f"{V38}/job/{job}") +
                get(f"{V38}/job/999999"))
    assert [s for s, _ in got] == [200, 200, 404]
    assert got[0][1]["pings"][0]["ping"] == "UP"
    assert got[1][1]["jobs"][0]["name"] == "piped"
    assert got[2][1]["errors"][0]["error"] == "Invalid job id specified"
    cluster.run(["scancel", str(job)], check=True)


def test_inetd_mode_on_a_file_and_a_socket(cluster, tmp_path):
    """stdin a file (epoll takes none: read at once), stdout a file; stdin a
    connected unix socket: its peer is who asks."""
    req = tmp_path / "req"
    req.write_bytes(get(f"{V38}/ping"))
    out = tmp_path / "out"
    with open(req, "rb") as i, open(out, "wb") as o:
        p = subprocess.run([restd(cluster), "-f", cluster.conf_path], stdin=i, stdout=o,
                           stderr=subprocess.PIPE, timeout=30)
    assert p.returncode == 0, p.stderr
    assert responses(out.read_bytes())[0][0] == 200
    a, b = socket.socketpair()
    p = subprocess.Popen([restd(cluster), "-f", cluster.conf_path], stdin=b, stdout=b,
                         stderr=b)
    b.close()
    a.sendall(get(f"{V38}/jobs"))
    a.settimeout(30)
    raw = b""
    while b"\r\n\r\n" not in raw or len(responses_or_none(raw)) < 1:
        chunk = a.recv(65536)
        assert chunk, raw
        raw += chunk
    st, doc = responses(raw)[0]
    assert st == 200 and doc["errors"] == [], doc
    a.close()  # the client goes: so does rotarestd
    assert p.wait(timeout=30) == 0


def responses_or_none(raw):
    try:
        return responses(raw)
    except (ValueError, IndexError, StopIteration, json.JSONDecodeError):
        return []


@needs_root
def test_inetd_mode_as_a_user_is_that_user(cluster, users):
    """A user's own rotarestd (it cannot read the JWT key) serves that user
    alone: b cannot cancel a's job through it, a can."""
    from unixusers import user_work
    a, b = users["a"], users["b"]
    cluster.work = user_work()
    job = sbatch_as(cluster, a, "-H -o /dev/null --wrap true")
    req = f"DELETE {V38}/job/{job} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
    # base64: the answer's CRLFs through a text pipe
    cmd = f"printf '{req}' | {restd(cluster)} -f {cluster.conf_path} | base64 -w0"
    p = as_user(cluster, b, cmd)
    assert p.returncode == 0, p.stderr
    st, doc = responses(base64.b64decode(p.stdout))[0]
    assert st == 403 and doc["errors"][0]["error"] == "Access/permission denied"
    assert cluster.job_field(job, "JobState") == "PENDING"
    p = as_user(cluster, a, cmd)
    assert p.returncode == 0, p.stderr
    assert responses(base64.b64decode(p.stdout))[0][0] == 200
    cluster.wait_for(lambda: cluster.job_field(job, "JobState") == "CANCELLED",
                     what="cancelled")


def start(c, *args, **kw):
    p = subprocess.Popen([restd(c), "-f", c.conf_path, *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, **kw)
    return p


def ask(path, sock_path, timeout=30):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(timeout)
    s.connect(sock_path)
    s.sendall(get(path))
    raw = b""
    while not responses_or_none(raw):
        chunk = s.recv(65536)
        assert chunk, raw
        raw += chunk
    s.close()
    return responses(raw)[0]


def test_listening_socket_on_stdin_and_from_systemd(cluster, tmp_path):
    """A listening socket on stdin (inetd 'wait', StandardInput=socket) is
    served like a LISTEN argument; so are systemd's LISTEN_FDS."""
    path = str(tmp_path / "in.sock")
    ls = socket.socket(socket.AF_UNIX)
    ls.bind(path)
    ls.listen(8)
    p = start(cluster, stdin=ls)
    try:
        for _ in range(3):
            assert ask(f"{V38}/ping", path)[0] == 200
    finally:
        p.terminate()
        assert p.wait(timeout=30) == 0
    # systemd: fds from 3, LISTEN_PID is the daemon's own pid (set by a
    # shell that execs it)
    path2 = str(tmp_path / "sd.sock")
    ls2 = socket.socket(socket.AF_UNIX)
    ls2.bind(path2)
    ls2.listen(8)
    os.set_inheritable(ls2.fileno(), True)
    cmd = (f"exec 3<&{ls2.fileno()}; LISTEN_PID=$$ LISTEN_FDS=1 "
           f"exec {restd(cluster)} -f {cluster.conf_path} -U {tmp_path}/url")
    p = subprocess.Popen(["bash", "-c", cmd], pass_fds=(ls2.fileno(),),
                         stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert ask(f"{V38}/ping", path2)[0] == 200
        assert (tmp_path / "url").read_text().split() == [f"unix:{path2}"]
    finally:
        p.terminate()
        assert p.wait(timeout=30) == 0


def test_slow_clients_cannot_hold_it(cluster, tmp_path):
    """With -c 2 -T 2: two clients that trickle half a request fill it; they
    are cut off after 2 s, and a third client, waiting meanwhile in the
    backlog, is answered."""
    path = str(tmp_path / "slow.sock")
    p = start(cluster, "-c", "2", "-T", "2", f"unix:{path}")
    try:
        for _ in range(100):
            if os.path.exists(path):
                break
            time.sleep(0.05)
        slow = []
        for _ in range(2):
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            s.sendall(b"GET /slurm/v0.0.38/ping HTTP/1.1\r\nHo")
            slow.append(s)
        began = time.monotonic()
        st, doc = ask(f"{V38}/ping", path, timeout=60)
        assert st == 200 and doc["pings"][0]["ping"] == "UP"
        for s in slow:
            # one more byte now and then does not keep it alive
            s.settimeout(30)
            try:
                s.sendall(b"s")
                assert s.recv(1024) == b""
            except (BrokenPipeError, ConnectionResetError):
                pass
            s.close()
        # the slow ones were cut, not answered: at least -T passed
        assert time.monotonic() - began >= 1.0
    finally:
        p.terminate()
        assert p.wait(timeout=30) == 0
    assert b"not accepting more" in p.stderr.read()


def test_bad_limits_are_refused(cluster):
    for args in (["-c", "0"], ["-T", "x"], ["-c", "99999999"]):
        p = subprocess.run([restd(cluster), "-f", cluster.conf_path, *args, "unix:/x"],
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 1 and "expected 1 to 65536" in p.stderr, p.stderr


def make_cert(tmp_path, conf_path):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                    "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem"),
                    "-days", "2", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    conf = tmp_path / "slurm.conf"
    with open(conf_path) as f:
        text = f.read()
    conf.write_text(text + f"TLSParameters=restd_cert_file={tmp_path}/cert.pem,"
                           f"restd_cert_key_file={tmp_path}/key.pem\n")
    return str(conf)


def token(c):
    p = c.run(["scontrol", "token"], check=True)
    return p.stdout.strip()[len("SLURM_JWT="):]


def test_https(cluster, tmp_path):
    """With TLSParameters' certificate: a connection that opens with a TLS
    handshake is encrypted on any listener (TCP or unix), plain HTTP is
    still served where it was asked for, and an https:// listener closes a
    plain one unanswered."""
    import http.client
    import ssl
    conf = make_cert(tmp_path, cluster.conf_path)
    sock = str(tmp_path / "tls.sock")
    p = subprocess.Popen([restd(cluster), "-f", conf, "-U", str(tmp_path / "urls"),
                          "127.0.0.1:0", "https://127.0.0.1:0", f"unix:{sock}"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(100):
            if (tmp_path / "urls").exists():
                break
            time.sleep(0.05)
        mixed, strict, unix = (tmp_path / "urls").read_text().split()
        assert mixed.startswith("http://") and strict.startswith("https://")
        ctx = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
        hdr = {"X-SLURM-USER-TOKEN": token(cluster)}
        for url in (mixed, strict):
            port = int(url.rsplit(":", 1)[1])
            conn = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=30)
            for path in (f"{V38}/ping", "/openapi/v3", f"{V38}/jobs"):  # one connection
                conn.request("GET", path, headers=hdr)
                r = conn.getresponse()
                doc = json.loads(r.read())
                assert r.status == 200, doc
                assert "openapi" in doc or doc["errors"] == [], doc
            assert conn.sock.version() in ("TLSv1.2", "TLSv1.3")
            conn.close()
        # plain HTTP where it is allowed, not on the https:// listener
        port = int(mixed.rsplit(":", 1)[1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", f"{V38}/ping", headers=hdr)
        assert conn.getresponse().status == 200
        port = int(strict.rsplit(":", 1)[1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("GET", f"{V38}/ping", headers=hdr)
            conn.getresponse()
            raise AssertionError("plain HTTP answered on an https:// listener")
        except (http.client.RemoteDisconnected, ConnectionResetError):
            pass
        # TLS on the unix socket: the peer's uid still says who asks
        raw = socket.socket(socket.AF_UNIX)
        raw.connect(sock)
        s = ctx.wrap_socket(raw, server_hostname="localhost")
        s.sendall(get(f"{V38}/jobs"))
        data = b""
        while not responses_or_none(data):
            chunk = s.recv(65536)
            assert chunk, data
            data += chunk
        st, doc = responses(data)[0]
        assert st == 200 and doc["errors"] == []
        s.close()
        # a TLS client that does not trust the certificate gets nothing
        bad = ssl.create_default_context()
        port = int(mixed.rsplit(":", 1)[1])
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=bad, timeout=30)
        try:
            conn.request("GET", f"{V38}/ping")
            raise AssertionError("an untrusted certificate was accepted")
        except ssl.SSLError:
            pass
    finally:
        p.terminate()
        assert p.wait(timeout=30) == 0, p.stderr.read()


def test_https_needs_a_certificate(cluster, tmp_path):
    p = subprocess.run([restd(cluster), "-f", cluster.conf_path, "https://127.0.0.1:0"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "https:// needs a certificate" in p.stderr, p.stderr
    conf = tmp_path / "slurm.conf"
    with open(cluster.conf_path) as f:
        conf.write_text(f.read() + f"TLSParameters=restd_cert_file={conf}\n")
    p = subprocess.run([restd(cluster), "-f", str(conf), "127.0.0.1:0"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "TLS certificate" in p.stderr, p.stderr


def b64url(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def rs256(key, claims, kid="k1"):
    head = b64url(json.dumps({"alg": "RS256", "typ": "JWT", "kid": kid}).encode())
    body = b64url(json.dumps(claims).encode())
    sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key],
                         input=f"{head}.{body}".encode(), capture_output=True,
                         check=True).stdout
    return f"{head}.{body}.{b64url(sig)}"


def test_rs256_tokens_from_a_jwks(cluster, tmp_path):
    """AuthAltParameters jwks=PATH: RS256 tokens signed by a key of the set
    name their user in userclaimfield; a forged, expired or unknown-key
    token is refused; the cluster's HS256 tokens still work (jwt_key is
    named)."""
    import http.client
    key = str(tmp_path / "idp.pem")
    subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True,
                   capture_output=True)
    mod = subprocess.run(["openssl", "rsa", "-in", key, "-noout", "-modulus"],
                         capture_output=True, text=True, check=True).stdout
    n = bytes.fromhex(mod.strip().split("=", 1)[1])
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [
        {"kty": "EC", "kid": "ec", "crv": "P-256", "x": "AA", "y": "AA"},
        {"kty": "RSA", "kid": "k1", "alg": "RS256", "use": "sig",
         "n": b64url(n), "e": "AQAB"}]}))
    with open(cluster.conf_path) as f:
        lines = f.read().splitlines()
    jwt_key = next(ln for ln in lines if ln.startswith("AuthAltParameters="))
    conf = tmp_path / "slurm.conf"
    conf.write_text("\n".join(ln for ln in lines if ln != jwt_key) + "\n" +
                    f"{jwt_key},jwks={jwks},userclaimfield=preferred_username\n")
    p = subprocess.Popen([restd(cluster), "-f", str(conf), "-U", str(tmp_path / "urls"),
                          "127.0.0.1:0"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    try:
        for _ in range(100):
            if (tmp_path / "urls").exists():
                break
            time.sleep(0.05)
        port = int((tmp_path / "urls").read_text().split()[0].rsplit(":", 1)[1])

        def ask_with(tok):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", f"{V38}/jobs", headers={"X-SLURM-USER-TOKEN": tok})
            r = conn.getresponse()
            return r.status, json.loads(r.read())

        now = int(time.time())
        good = {"exp": now + 300, "iat": now, "preferred_username": "root"}
        st, doc = ask_with(rs256(key, good))
        assert st == 200 and doc["errors"] == [], doc
        forged = rs256(key, good).split(".")
        forged[1] = b64url(json.dumps(dict(good, preferred_username="nobody")).encode())
        for tok, why in ((".".join(forged), "signature invalid"),
                         (rs256(key, dict(good, exp=now - 10)), "token expired"),
                         (rs256(key, good, kid="other"), "signature invalid"),
                         (rs256(key, {"exp": now + 300, "sun": "root"}),
                          "names no user (preferred_username)")):
            st, doc = ask_with(tok)
            assert st == 401 and why in doc["errors"][0]["error"], (why, doc)
        # HS256 from scontrol token: its user is in sun, not the claim field
        st, doc = ask_with(token(cluster))
        assert st == 401 and "preferred_username" in doc["errors"][0]["error"]
    finally:
        p.terminate()
        assert p.wait(timeout=30) == 0, p.stderr.read()


def test_history_keeps_the_clusters_use(cluster, tmp_path):
    """-S 1: a sample a second of CPUs in use, nodes and jobs; a job that
    ran shows in them, and CPUs are sinfo's."""
    sock = str(tmp_path / "h.sock")
    p = start(cluster, "-S", "1", f"unix:{sock}")
    try:
        job = cluster.sbatch("-n", "2", "-o", "/dev/null", "--wrap", "sleep 4")
        cluster.wait_running(job)
        time.sleep(2.5)
        cluster.wait_job(job)

        def history():
            st, doc = ask("/rota/v1/history", sock)
            assert st == 200 and doc["interval"] == 1
            return doc["samples"]

        cluster.wait_for(lambda: len(history()) >= 4, what="samples")
        got = history()
        times = [s["time"] for s in got]
        assert times == sorted(times)
        busy = [s for s in got if s["cpus_alloc"] >= 2 and s["jobs_running"] >= 1]
        assert busy, got
        total = sum(int(ln.split("/")[3]) for ln in cluster.run(
            ["sinfo", "-h", "-N", "-o", "%C"], check=True).stdout.split())
        assert all(s["cpus"] == total for s in got), (total, got)
        assert all(s["nodes"] == 4 and s["nodes_down"] == 0 for s in got)
    finally:
        p.terminate()
        assert p.wait(timeout=30) == 0


def test_clients_that_close_get_their_answers(cluster):
    """'Connection: close', HTTP/1.0, a method it does not serve, a body
    over the limit and garbage: each is answered or refused, and the
    daemon stays (once, a closing client crashed it)."""
    sock = os.path.join(cluster.dir, "run", "rotarestd.sock")

    def raw(data):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(30)
        s.connect(sock)
        got = b""
        try:
            s.sendall(data)
            while not responses_or_none(got):
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before it was all sent
        s.close()
        return got

    for req in (f"GET {V38}/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                f"GET {V38}/ping HTTP/1.0\r\n\r\n"):
        st, doc = responses(raw(req.encode()))[0]
        assert st == 200 and doc["pings"][0]["ping"] == "UP"
    st, doc = responses(raw(f"PUT {V38}/ping HTTP/1.1\r\nHost: x\r\n"
                            "Content-Length: 0\r\n\r\n".encode()))[0]
    assert st in (404, 405) and doc["errors"]
    raw(b"POST " + V38.encode() + b"/job/submit HTTP/1.1\r\nHost: x\r\n"
        b"Content-Length: 2000000\r\n\r\n" + b"a" * 2000000)
    raw(b"GARBAGE\r\n\r\n")
    assert ask(f"{V38}/ping", sock)[0] == 200
