"""rotarestd: Slurm's REST API (slurmrestd's v0.0.38 paths and documents) on the
cluster `rota up` starts.  On its unix socket the peer's uid is the user; on TCP
a JWT from `scontrol token` (AuthAltTypes=auth/jwt) is.  Every request reaches
the controller on a connection that acts for that user (MSG_ACT_AS), so a user
can do over REST what the CLI lets them do and no more."""

import http.client
import json
import os
import socket
import time

from unixusers import as_user, needs_root, sbatch_as
from wire import frame, mp, read_frame, unix_connect, unpack

V38 = "/slurm/v0.0.38"
DB38 = "/slurmdb/v0.0.38"
MSG_RC = 1
MSG_ACT_AS = 114
ESLURM_ACCESS_DENIED = 2002


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=30):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def urls(c):
    with open(os.path.join(c.dir, "run", "rotarestd.url")) as f:
        return f.read().split()


def tcp_url(c):
    return next(u for u in urls(c) if u.startswith("http://"))


def request(conn, method, path, headers=None, body=None):
    """(status, parsed JSON) of one request."""
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    body = r.read()
    assert r.getheader("Content-Type") == "application/json", body
    return r.status, json.loads(body)


def over_unix(c, method, path, body=None):
    if body is not None and not isinstance(body, (str, bytes)):
        body = json.dumps(body)
    return request(UnixHTTPConnection(os.path.join(c.dir, "run", "rotarestd.sock")),
                   method, path, body=body)


def over_tcp(c, method, path, token=None, user=None, body=None):
    host, port = tcp_url(c)[len("http://"):].rsplit(":", 1)
    headers = {}
    if token is not None:
        headers["X-SLURM-USER-TOKEN"] = token
    if user is not None:
        headers["X-SLURM-USER-NAME"] = user
    if body is not None:
        body = json.dumps(body)
    return request(http.client.HTTPConnection(host, int(port), timeout=30), method,
                   path, headers, body)


def unix_as(c, user, method, path, body=None):
    """(status, body text) of one request (body: JSON) on the unix socket
    from a process of user's own (its uid is who asks)."""
    script = (
        "import http.client, os, socket, sys\n"
        "c = http.client.HTTPConnection('localhost')\n"
        "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); c.sock = s\n"
        "c.request(sys.argv[2], sys.argv[3], body=os.environ.get('B'))\n"
        "r = c.getresponse(); print(r.status); print(r.read().decode())\n")
    sock = os.path.join(c.dir, "run", "rotarestd.sock")
    env = {"S": script}
    if body is not None:
        env["B"] = json.dumps(body)
    p = as_user(c, user, f'/usr/bin/python3 -c "$S" {sock} {method} "{path}"', env=env)
    assert p.returncode == 0, p.stderr
    status, _, body = p.stdout.partition("\n")
    return int(status), body


def token(c, *args):
    p = c.run(["scontrol", "token", *args], check=True)
    assert p.stdout.startswith("SLURM_JWT="), p.stdout
    return p.stdout.strip()[len("SLURM_JWT="):]


def test_documents_over_the_unix_socket(cluster):
    """ping, jobs, job/{id}, nodes, node/{name}, partitions in Slurm's shapes,
    the same facts squeue and sinfo print."""
    st, doc = over_unix(cluster, "GET", V38 + "/ping")
    assert st == 200 and doc["errors"] == []
    assert doc["meta"]["plugin"]["type"] == "openapi/v0.0.38"
    assert doc["meta"]["Slurm"]["release"] == "22.05.8"
    assert doc["pings"][0]["ping"] == "UP"

    held = cluster.sbatch("-H", "-J", "rest-held", "--wrap", "true")
    st, doc = over_unix(cluster, "GET", V38 + "/jobs/")
    assert st == 200
    job = next(j for j in doc["jobs"] if j["job_id"] == held)
    assert job["job_state"] == "PENDING" and job["name"] == "rest-held"
    assert job["user_name"] == "root" and job["user_id"] == 0
    assert job["state_reason"] == "JobHeldUser" and job["priority"] == 0
    assert job["partition"] == "debug" and job["batch_flag"] is True
    st, doc = over_unix(cluster, "GET", f"{V38}/job/{held}")
    assert st == 200 and [j["job_id"] for j in doc["jobs"]] == [held]

    sinfo = cluster.run(["sinfo", "-h", "-N", "-o", "%N %t %c"], check=True).stdout
    want = {ln.split()[0]: (ln.split()[1], int(ln.split()[2])) for ln in sinfo.splitlines()}
    st, doc = over_unix(cluster, "GET", V38 + "/nodes")
    assert st == 200
    assert {n["name"]: (n["state"], n["cpus"]) for n in doc["nodes"]} == \
        {k: ("idle" if v[0] == "idle" else v[0], v[1]) for k, v in want.items()}
    st, doc = over_unix(cluster, "GET", V38 + "/node/node02")
    assert st == 200 and [n["name"] for n in doc["nodes"]] == ["node02"]
    assert doc["nodes"][0]["partitions"] == ["debug"]
    st, doc = over_unix(cluster, "GET", V38 + "/partitions")
    assert st == 200
    part = doc["partitions"][0]
    assert part["name"] == "debug" and part["nodes"] == "node[01-04]"
    assert part["total_nodes"] == 4 and "default" in part["flags"]
    cluster.run(["scancel", str(held)], check=True)


def test_errors_in_slurms_shape(cluster):
    st, doc = over_unix(cluster, "GET", V38 + "/job/999999")
    assert st == 404 and doc["errors"][0]["error_number"] == 2017
    st, doc = over_unix(cluster, "GET", V38 + "/node/nosuchnode")
    assert st == 404 and doc["errors"][0]["error_number"] == 2018
    st, doc = over_unix(cluster, "GET", V38 + "/partition/nosuch")
    assert st == 404 and doc["errors"][0]["error_number"] == 2000
    st, doc = over_unix(cluster, "GET", V38 + "/no/such/path")
    assert st == 404 and doc["errors"][0]["error"]
    st, doc = over_unix(cluster, "GET", "/slurm/v0.0.99/ping")
    assert st == 404
    st, doc = over_unix(cluster, "DELETE", V38 + "/job/1?signal=NOSUCHSIG")
    assert st == 400 and doc["errors"][0]["error"] == "Invalid signal"
    st, doc = over_unix(cluster, "DELETE", V38 + "/jobs")
    assert st == 404


def test_delete_cancels_and_signals(cluster):
    job = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(job, "JobState") == "RUNNING", what="running")
    st, doc = over_unix(cluster, "DELETE", f"{V38}/job/{job}?signal=SIGCONT")
    assert st == 200 and doc["errors"] == []
    assert cluster.job_field(job, "JobState") == "RUNNING"
    st, doc = over_unix(cluster, "DELETE", f"{V38}/job/{job}")
    assert st == 200 and doc["errors"] == []
    cluster.wait_for(lambda: cluster.job_field(job, "JobState") == "CANCELLED", what="cancelled")


def test_tokens_over_tcp(cluster):
    """No token, a forged one, an expired one: 401 with the reason; a good one
    is its user."""
    st, doc = over_tcp(cluster, "GET", V38 + "/ping")
    assert st == 401 and "X-SLURM-USER-TOKEN" in doc["errors"][0]["error"]
    t = token(cluster)
    st, doc = over_tcp(cluster, "GET", V38 + "/ping", t)
    assert st == 200 and doc["pings"][0]["ping"] == "UP"
    head, claims, sig = t.split(".")
    st, doc = over_tcp(cluster, "GET", V38 + "/ping", f"{head}.{claims}.{sig[:-2]}AA")
    assert st == 401 and "signature" in doc["errors"][0]["error"]
    none_alg = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0"  # {"alg":"none","typ":"JWT"}
    st, doc = over_tcp(cluster, "GET", V38 + "/ping", f"{none_alg}.{claims}.")
    assert st == 401
    short = token(cluster, "lifespan=1")
    time.sleep(2.2)
    st, doc = over_tcp(cluster, "GET", V38 + "/ping", short)
    assert st == 401 and "expired" in doc["errors"][0]["error"]
    p = cluster.run(["scontrol", "token", "lifespan=-5"])
    assert p.returncode == 1 and "Invalid lifespan" in p.stderr
    p = cluster.run(["scontrol", "token", "username=no_such_user_here"])
    assert p.returncode == 1 and "Unable to fetch JWT token" in p.stderr


@needs_root
def test_users_can_do_over_rest_what_the_cli_lets_them(cluster, users):
    """a's job: b cannot cancel it, over the unix socket (its uid) or with its
    token; a can.  b's token does not let b act as a; root's does."""
    from unixusers import user_work
    a, b = users["a"], users["b"]
    cluster.work = user_work()
    job = sbatch_as(cluster, a, "-o /dev/null --wrap 'sleep 300'")
    tb = token(cluster, f"username={b.name}")
    st, doc = over_tcp(cluster, "DELETE", f"{V38}/job/{job}", tb)
    assert st == 403 and doc["errors"][0]["error_number"] == ESLURM_ACCESS_DENIED
    st, doc = over_tcp(cluster, "DELETE", f"{V38}/job/{job}", tb, user=a.name)
    assert st == 401
    # b over the unix socket, as b's own process
    st, _ = unix_as(cluster, b, "DELETE", f"{V38}/job/{job}")
    assert st == 403
    assert cluster.job_field(job, "JobState") in ("PENDING", "RUNNING")
    # a user cannot get a token for another
    p = as_user(cluster, b, f"scontrol token username={a.name}")
    assert p.returncode == 1 and "Unable to fetch JWT token" in p.stderr
    # a, with a token of a's own
    p = as_user(cluster, a, "scontrol token")
    assert p.returncode == 0, p.stderr
    ta = p.stdout.strip()[len("SLURM_JWT="):]
    st, doc = over_tcp(cluster, "GET", f"{V38}/job/{job}", ta)
    assert st == 200 and doc["jobs"][0]["user_name"] == a.name
    # root's token may name the user it acts for
    st, doc = over_tcp(cluster, "DELETE", f"{V38}/job/{job}", token(cluster), user=a.name)
    assert st == 200, doc
    cluster.wait_for(lambda: cluster.job_field(job, "JobState") == "CANCELLED", what="cancelled")


@needs_root
def test_only_a_trusted_daemon_may_act_for_a_user(cluster, users):
    """MSG_ACT_AS from an ordinary user is refused; once a root connection acts
    for a user, it is that user for good (no second switch back to root)."""
    a = users["a"]
    script = (
        "import socket, struct, sys\n"
        "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\n"
        "body = bytes([0x82, 0xa3]) + b'uid' + bytes([0]) + bytes([0xa3]) + b'gid'"
        " + bytes([0])\n"
        "s.sendall(b'ROTA' + struct.pack('!HHI', 1, 114, len(body)) + body)\n"
        "h = s.recv(12); n = struct.unpack('!I', h[8:])[0]\n"
        "print(h[6:8].hex(), s.recv(n).hex())\n")
    sock = os.path.join(cluster.dir, "state", "rotactld.sock")
    p = as_user(cluster, a, f"/usr/bin/python3 -c \"$S\" {sock}", env={"S": script})
    rtype, body = p.stdout.split()
    assert int(rtype, 16) == MSG_RC, p.stdout + p.stderr
    assert unpack(bytes.fromhex(body))["rc"] == ESLURM_ACCESS_DENIED

    s = unix_connect(cluster)
    s.sendall(frame(MSG_ACT_AS, mp({"uid": a.uid, "gid": a.gid})))
    t, body = read_frame(s)
    assert t == MSG_RC and unpack(body).get("rc", 0) == 0
    s.sendall(frame(MSG_ACT_AS, mp({"uid": 0, "gid": 0})))
    t, body = read_frame(s)
    assert t == MSG_RC and unpack(body)["rc"] == ESLURM_ACCESS_DENIED
    s.close()


def test_cli_json_is_the_rest_document(cluster):
    """squeue --json, sinfo --json and scontrol --json show job|node|partition
    print the documents rotarestd answers (one encoder); --yaml prints them
    as YAML."""
    held = cluster.sbatch("-H", "-J", "json-held", "--wrap", "true")
    volatile = ("cpu_load", "free_memory")

    def steady(nodes):
        return [{k: v for k, v in n.items() if k not in volatile} for n in nodes]

    def cli(*args):
        return json.loads(cluster.run(list(args), check=True).stdout)

    q = cli("squeue", "--json")
    st, r = over_unix(cluster, "GET", V38 + "/jobs")
    assert st == 200 and q == r and any(j["job_id"] == held for j in q["jobs"])
    q = cli("scontrol", "--json", "show", "job", str(held))
    st, r = over_unix(cluster, "GET", f"{V38}/job/{held}")
    assert q == r and q["jobs"][0]["name"] == "json-held"
    q = cli("sinfo", "--json")
    _, rn = over_unix(cluster, "GET", V38 + "/nodes")
    _, rp = over_unix(cluster, "GET", V38 + "/partitions")
    assert q["meta"] == rn["meta"] and q["errors"] == []
    assert steady(q["nodes"]) == steady(rn["nodes"]) and q["partitions"] == rp["partitions"]
    q = cli("scontrol", "--json", "show", "node", "node03")
    _, r = over_unix(cluster, "GET", V38 + "/node/node03")
    assert steady(q["nodes"]) == steady(r["nodes"]) and len(q["nodes"]) == 1
    q = cli("scontrol", "--json", "show", "partition")
    assert q["partitions"] == rp["partitions"]
    p = cluster.run(["scontrol", "--json", "show", "config"])
    assert p.returncode == 1 and "--json" in p.stderr
    # --yaml: the same documents, as YAML
    import yaml
    for args in (["squeue"], ["scontrol", "show", "job", str(held)], ["sinfo"],
                 ["scontrol", "show", "partition"], ["sacct", "-j", str(held)]):
        out = cluster.run([args[0], "--yaml", *args[1:]], check=True).stdout
        assert out.startswith("---\n"), out[:80]
        y = yaml.safe_load(out)
        j = cli(args[0], "--json", *args[1:])
        if "nodes" in j:
            y["nodes"], j["nodes"] = steady(y["nodes"]), steady(j["nodes"])
        assert y == j, args
    cluster.run(["scancel", str(held)], check=True)


def test_submit(cluster):
    """POST job/submit runs the script as the user, where it says, with the
    environment it gives; what Rota cannot honour is refused by name."""
    out = cluster.work / "rest.out"
    job = {"name": "from-rest", "current_working_directory": str(cluster.work),
           "standard_output": str(out), "environment": {"PATH": "/bin:/usr/bin",
                                                         "GREETING": "hello"},
           "tasks": 1, "time_limit": 5}
    st, doc = over_unix(cluster, "POST", V38 + "/job/submit",
                        {"script": "#!/bin/sh\necho $GREETING $SLURM_JOB_NAME $(id -un)\n",
                         "job": job})
    assert st == 200 and doc["errors"] == [], doc
    jid = doc["job_id"]
    assert isinstance(jid, int) and doc["step_id"] == "BATCH"
    assert cluster.wait_job(jid) == "COMPLETED"
    assert out.read_text() == "hello from-rest root\n"
    assert cluster.job_field(jid, "TimeLimit") == "00:05:00"

    def refused(body, code, errnum, words):
        st, doc = over_unix(cluster, "POST", V38 + "/job/submit", body)
        assert st == code and doc["errors"][0]["error_number"] == errnum, doc
        assert words in doc["errors"][0]["error"], doc

    script = "#!/bin/sh\ntrue\n"
    refused({"script": script, "job": {"name": "x"}}, 400, 2127, "environment")
    refused({"script": "echo no shebang", "job": job}, 400, 2071, "#!")
    refused({"script": script, "job": dict(job, burst_buffer="x")}, 400, 2071,
            "burst_buffer is not supported")
    refused({"script": script, "job": dict(job, tasks="many")}, 400, 2071,
            "tasks: invalid value")
    refused({"job": job}, 400, 2009, "script")
    refused("{not json", 400, 2071, "not a JSON object")
    st, doc = over_unix(cluster, "POST", V38 + "/job/submit",
                        {"script": script, "job": dict(job, partition="nosuch")})
    assert st >= 400 and doc["errors"][0]["error_number"] == 2000, doc
    st, doc = over_unix(cluster, "GET", V38 + "/job/submit")
    assert st == 405


@needs_root
def test_submit_as_the_tokens_user(cluster, users):
    from unixusers import user_work
    a = users["a"]
    work = user_work()
    st, doc = over_tcp(cluster, "POST", V38 + "/job/submit", token(cluster, f"username={a.name}"),
                       body={"script": "#!/bin/sh\nid -un > who\n",
                             "job": {"current_working_directory": work,
                                     "environment": {"PATH": "/bin:/usr/bin"}}})
    assert st == 200, doc
    assert cluster.wait_job(doc["job_id"]) == "COMPLETED"
    who = os.path.join(work, "who")
    assert open(who).read() == a.name + "\n"
    assert os.stat(who).st_uid == a.uid


def scrape(conn, headers=None):
    conn.request("GET", "/metrics", headers=headers or {})
    r = conn.getresponse()
    text = r.read().decode()
    assert r.status == 200, text
    assert r.getheader("Content-Type").startswith("text/plain"), r.getheader("Content-Type")
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, v = line.rsplit(" ", 1)
            values[key] = float(v)
    return values


def test_metrics_match_squeue_and_sinfo(cluster):
    """/metrics in the Slurm exporter's names: the same counts as squeue and
    sinfo on the same cluster, over the unix socket and with a bearer token."""
    held = [cluster.sbatch("-H", "--wrap", "true") for _ in range(3)]
    run = cluster.sbatch("-o", "/dev/null", "-c", "2", "--wrap", "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(run, "JobState") == "RUNNING",
                     what="running")
    m = scrape(UnixHTTPConnection(os.path.join(cluster.dir, "run", "rotarestd.sock")))

    def count(*args):
        return len(cluster.run(["squeue", "-h", *args], check=True).stdout.splitlines())

    assert m["slurm_queue_pending"] == count("-t", "PD") == 3
    assert m["slurm_queue_running"] == count("-t", "R") == 1
    assert m['rota_jobs_pending_reason{reason="JobHeldUser"}'] == 3
    assert m['slurm_user_jobs_pending{user="root"}'] == 3
    assert m['slurm_user_cpus_running{user="root"}'] == 2
    assert m['slurm_partition_jobs_pending{partition="debug"}'] == 3
    rows = [ln.split() for ln in cluster.run(["sinfo", "-h", "-N", "-o", "%N %t %C"],
                                                check=True).stdout.splitlines()]
    # %C: allocated/idle/other/total
    a, i, o, t = (sum(int(r[2].split("/")[k]) for r in rows) for k in range(4))
    assert (m["slurm_cpus_alloc"], m["slurm_cpus_idle"], m["slurm_cpus_other"],
            m["slurm_cpus_total"]) == (a, i, o, t) == (2, t - 2, 0, t)
    assert m["slurm_nodes_mix"] == sum(r[1] == "mix" for r in rows) == 1
    assert m["slurm_nodes_idle"] == sum(r[1] == "idle" for r in rows)
    assert m['slurm_partition_cpus_total{partition="debug"}'] == t
    node = next(r[0] for r in rows if r[1] == "mix")
    assert m[f'slurm_node_cpu_alloc{{node="{node}",status="mixed"}}'] == 2
    assert m['rota_rpc_total{type="REQUEST_JOB_INFO"}'] >= 1
    assert m["rota_journal_syncs_total"] >= 1
    ping = cluster.run(["scontrol", "ping"], check=True).stdout
    host_up = next(k for k in m if k.startswith("rota_controller_info{"))
    assert 'mode="primary"' in host_up and m[host_up] == 1 and "UP" in ping
    assert m["rota_controller_standby"] == 0 and m["rota_controller_takeovers"] >= 0
    host, port = tcp_url(cluster)[len("http://"):].rsplit(":", 1)
    m2 = scrape(http.client.HTTPConnection(host, int(port), timeout=30),
                {"Authorization": "Bearer " + token(cluster)})
    assert m2["slurm_queue_pending"] == 3
    st, doc = over_tcp(cluster, "GET", "/metrics")
    assert st == 401
    cluster.run(["scancel", *map(str, held), str(run)], check=True)


def test_updates_as_scontrol_update(cluster):
    """POST job/{id} changes what scontrol update changes, under the same
    rules; POST node/{name} drains and resumes a node (admins)."""
    job = cluster.sbatch("-H", "-t", "30", "--wrap", "true")
    st, doc = over_unix(cluster, "POST", f"{V38}/job/{job}",
                        {"name": "renamed", "time_limit": 20, "comment": "via rest"})
    assert st == 200 and doc["errors"] == [], doc
    assert cluster.job_field(job, "JobName") == "renamed"
    assert cluster.job_field(job, "TimeLimit") == "00:20:00"
    st, doc = over_unix(cluster, "POST", f"{V38}/job/{job}", {"hold": False})
    assert st == 200
    cluster.wait_job(job)
    st, doc = over_unix(cluster, "POST", f"{V38}/job/{job}", {"script": "x"})
    assert st == 400 and "script cannot be updated" in doc["errors"][0]["error"]
    st, doc = over_unix(cluster, "POST", f"{V38}/job/{job}", {})
    assert st == 400
    st, doc = over_unix(cluster, "POST", V38 + "/node/node04",
                        {"state": "DRAIN", "reason": "rest test"})
    assert st == 200, doc
    assert "DRAIN" in cluster.run(["scontrol", "show", "node", "node04"]).stdout
    st, doc = over_unix(cluster, "GET", V38 + "/node/node04")
    assert doc["nodes"][0]["state_flags"] == ["DRAIN"]
    assert doc["nodes"][0]["reason"] == "rest test"
    st, doc = over_unix(cluster, "POST", V38 + "/node/node04", {"state": "RESUME"})
    assert st == 200
    cluster.wait_for(lambda: "DRAIN" not in cluster.run(
        ["scontrol", "show", "node", "node04"]).stdout, what="resumed")
    st, doc = over_unix(cluster, "POST", V38 + "/node/node04", {"state": 3})
    assert st == 400


@needs_root
def test_user_updates_are_the_users(cluster, users):
    """b cannot change a's job; a may shorten its time limit, not lengthen it;
    a user cannot drain a node."""
    from unixusers import user_work
    a, b = users["a"], users["b"]
    cluster.work = user_work()
    job = sbatch_as(cluster, a, "-H -t 30 --wrap true")
    ta, tb = token(cluster, f"username={a.name}"), token(cluster, f"username={b.name}")
    st, doc = over_tcp(cluster, "POST", f"{V38}/job/{job}", tb, body={"time_limit": 10})
    assert st == 403, doc
    st, doc = over_tcp(cluster, "POST", f"{V38}/job/{job}", ta, body={"time_limit": 60})
    assert st == 403, doc
    st, doc = over_tcp(cluster, "POST", f"{V38}/job/{job}", ta, body={"time_limit": 10})
    assert st == 200, doc
    assert cluster.job_field(job, "TimeLimit") == "00:10:00"
    st, doc = over_tcp(cluster, "POST", V38 + "/node/node03", ta, body={"state": "DRAIN"})
    assert st == 403, doc
    assert "DRAIN" not in cluster.run(["scontrol", "show", "node", "node03"]).stdout
    cluster.run(["scancel", str(job)], check=True)


def test_openapi_document_is_what_is_served(cluster):
    """/openapi/v3: every path in it is served (nothing it lacks is), and its
    schemas hold exactly the fields of the documents served."""
    st, api = over_unix(cluster, "GET", "/openapi/v3")
    assert st == 200 and api["openapi"].startswith("3.") and api["info"]["version"] == "0.0.38"
    held = cluster.sbatch("-H", "--wrap", "true")
    subst = {"{job_id}": str(held), "{node_name}": "node01", "{partition_name}": "debug",
             "{account_name}": "root", "{user_name}": "root", "{qos_name}": "normal",
             "{cluster_name}": cluster.conf_value("ClusterName"),
             "{name}": "root", "{qos}": "normal"}
    # rotadbd follows the controller: the held job's record comes soon after
    cluster.wait_for(lambda: over_unix(cluster, "GET", f"{DB38}/job/{held}")[0] == 200,
                     what="the held job's record")
    for path, ops in api["paths"].items():
        real = path
        for k, v in subst.items():
            real = real.replace(k, v)
        for method in ops:
            if method == "get":
                if path == "/metrics":
                    continue
                st, doc = over_unix(cluster, "GET", real)
                # no reservation exists to name
                assert st == (404 if "{reservation_name}" in path else 200), (path, doc)
            elif path.startswith("/slurmdb/") and method == "delete":
                continue  # would delete root's records: test_slurmdb_changes
            else:  # an empty body: refused for what it is, not as unknown
                st, doc = over_unix(cluster, method.upper(), real,
                                    body="[]" if method == "post" else None)
                assert st != 404 or method == "delete", (method, path, doc)
    schemas = api["components"]["schemas"]
    _, doc = over_unix(cluster, "GET", f"{V38}/job/{held}")
    assert set(doc["jobs"][0]) == set(schemas["v0.0.38_job_response_properties"]["properties"])
    _, doc = over_unix(cluster, "GET", V38 + "/nodes")
    assert set(doc["nodes"][0]) == set(schemas["v0.0.38_node"]["properties"])
    assert schemas["v0.0.38_node"]["properties"]["cpus"]["type"] == "integer"
    _, doc = over_unix(cluster, "GET", V38 + "/partitions")
    assert set(doc["partitions"][0]) == set(schemas["v0.0.38_partition"]["properties"])
    assert set(doc) == set(schemas["v0.0.38_partitions_response"]["properties"])
    for path, key, schema in ((f"{DB38}/job/{held}", "jobs", "dbv0.0.38_job"),
                              (f"{DB38}/accounts", "accounts", "dbv0.0.38_account"),
                              (f"{DB38}/users", "users", "dbv0.0.38_user"),
                              (f"{DB38}/associations", "associations",
                               "dbv0.0.38_association"),
                              (f"{DB38}/qos", "qos", "dbv0.0.38_qos"),
                              (f"{DB38}/clusters", "clusters", "dbv0.0.38_cluster")):
        _, doc = over_unix(cluster, "GET", path)
        assert set(doc[key][0]) == set(schemas[schema]["properties"]), path
    st, _ = over_unix(cluster, "GET", V38 + "/licenses")
    assert st == 404 and "/slurm/v0.0.38/licenses" not in api["paths"]
    # diag: sdiag's figures
    import re
    _, doc = over_unix(cluster, "GET", V38 + "/diag")
    stats = doc["statistics"]
    assert set(stats) == set(schemas["v0.0.38_diag"]["properties"]["statistics"]["properties"])
    sdiag = cluster.run(["sdiag"], check=True).stdout
    submitted = int(re.search(r"Jobs submitted:\s*(\d+)", sdiag).group(1))
    assert stats["jobs_submitted"] == submitted >= 1


@needs_root
def test_output_is_for_its_owner(cluster, users):
    """/rota/v1/job/{id}/output: the end of a batch job's output to its owner
    (read as that user) and to root; another user gets 403, with a token or
    on the unix socket."""
    from unixusers import user_work
    a, b = users["a"], users["b"]
    cluster.work = user_work()
    job = sbatch_as(cluster, a, "-o out-%j.txt --wrap 'seq 1 5000; echo secret-of-a'")
    assert cluster.wait_job(job) == "COMPLETED"
    ta, tb = token(cluster, f"username={a.name}"), token(cluster, f"username={b.name}")
    st, doc = over_tcp(cluster, "GET", f"/rota/v1/job/{job}/output?tail=20", ta)
    assert st == 200, doc
    assert doc["output"] == "4999\n5000\nsecret-of-a\n"[-20:]
    assert doc["path"] == os.path.join(str(cluster.work), f"out-{job}.txt")
    st, doc = over_unix(cluster, "GET", f"/rota/v1/job/{job}/output")
    assert st == 200 and doc["output"].endswith("5000\nsecret-of-a\n")
    assert len(doc["output"].encode()) == 16384
    st, doc = over_tcp(cluster, "GET", f"/rota/v1/job/{job}/output", tb)
    assert st == 403 and "secret" not in json.dumps(doc), doc
    st, body = unix_as(cluster, b, "GET", f"/rota/v1/job/{job}/output")
    assert st == 403 and "secret" not in body, body
    # a's own file made unreadable: a is refused too (read as a, not as root)
    os.chmod(os.path.join(str(cluster.work), f"out-{job}.txt"), 0)
    st, doc = over_tcp(cluster, "GET", f"/rota/v1/job/{job}/output", ta)
    assert st == 403, doc
    st, doc = over_tcp(cluster, "GET", f"/rota/v1/job/{job}/output?tail=0", ta)
    assert st == 400
    st, doc = over_tcp(cluster, "GET", "/rota/v1/job/999999/output", ta)
    assert st == 404


def test_names_that_are_not_utf8(cluster):
    """A job name with bytes that are not UTF-8 is still listed (those bytes
    as '?'), by rotarestd and squeue --json alike, and rotarestd goes on."""
    p = cluster.run([b"sbatch", b"-H", b"-J", b"bad\xffname\xc3", b"--wrap", b"true"])
    assert p.returncode == 0, p.stderr
    job = int(p.stdout.split()[-1])
    st, doc = over_unix(cluster, "GET", V38 + "/jobs")
    assert st == 200
    assert next(j for j in doc["jobs"] if j["job_id"] == job)["name"] == "bad?name?"
    st, doc = over_unix(cluster, "GET", f"{V38}/job/{job}")
    assert st == 200 and doc["jobs"][0]["name"] == "bad?name?"
    q = json.loads(cluster.run(["squeue", "--json"], check=True).stdout)
    assert next(j for j in q["jobs"] if j["job_id"] == job)["name"] == "bad?name?"
    st, _ = over_unix(cluster, "GET", V38 + "/ping")
    assert st == 200
    cluster.run(["scancel", str(job)], check=True)


def db_jobs(c, query=""):
    st, doc = over_unix(c, "GET", f"{DB38}/jobs{query}")
    assert st == 200 and doc["errors"] == [], doc
    return doc


def test_slurmdb_jobs_are_sacct_json(cluster):
    """slurmdb/v0.0.38/jobs and job/{id}: sacct --json's document (one
    encoder), filtered by the query as sacct filters."""
    ok = cluster.sbatch("-J", "dbok", "-o", "/dev/null", "--wrap", "true")
    bad = cluster.sbatch("-J", "dbbad", "-n", "2", "-o", "/dev/null", "--wrap", "exit 3")
    for j in (ok, bad):
        cluster.wait_job(j)
    cluster.wait_for(lambda: len([j for j in db_jobs(cluster)["jobs"]
                                  if j["job_id"] in (ok, bad)
                                  and j["state"]["current"] != "RUNNING"]) == 2,
                     what="both records ended")
    st, doc = over_unix(cluster, "GET", f"{DB38}/job/{bad}")
    assert st == 200 and doc["meta"]["plugin"]["type"] == "openapi/dbv0.0.38"
    sacct = json.loads(cluster.run(["sacct", "--json", "-j", str(bad)], check=True).stdout)
    assert doc == sacct
    assert doc["jobs"][0]["exit_code"]["return_code"] == 3 and doc["jobs"][0]["steps"]
    # filters
    ids = {j["job_id"] for j in db_jobs(cluster, "?exit_code=3")["jobs"]}
    assert bad in ids and ok not in ids
    ids = {j["job_id"] for j in db_jobs(cluster, "?state=FAILED")["jobs"]}
    assert bad in ids and ok not in ids
    ids = {j["job_id"] for j in db_jobs(cluster, "?job_name=dbok,nothere")["jobs"]}
    assert ids == {ok}
    ids = {j["job_id"] for j in db_jobs(cluster, "?cpus_min=2")["jobs"]}
    assert bad in ids and ok not in ids
    doc = db_jobs(cluster, f"?step={ok}&skip_steps=true")
    assert [j["job_id"] for j in doc["jobs"]] == [ok] and doc["jobs"][0]["steps"] == []
    assert db_jobs(cluster, "?users=root&start_time=now%2B1hour")["jobs"] == []
    assert db_jobs(cluster, "?cluster=elsewhere")["jobs"] == []
    # errors in Slurm's shape
    st, doc = over_unix(cluster, "GET", f"{DB38}/job/99999")
    assert st == 404 and doc["errors"][0]["error"] == "Invalid job id specified"
    st, doc = over_unix(cluster, "GET", f"{DB38}/jobs?state=SLEEPY")
    assert st == 400 and "Invalid state: SLEEPY" in doc["errors"][0]["error"]
    st, doc = over_unix(cluster, "GET", f"{DB38}/jobs?start_time=yesteryear")
    assert st == 400
    st, doc = over_unix(cluster, "GET", f"{DB38}/jobs?users=nosuchuser1")
    assert st == 400 and "Invalid user" in doc["errors"][0]["error"]


def test_slurmdb_accounts_users_associations_qos(cluster):
    """What sacctmgr made, in dbv0.0.38's shapes."""
    run = lambda *a: cluster.run(["sacctmgr", "-i", *a], check=True)
    run("add", "account", "physics", "Description=particles", "Organization=uni")
    run("add", "user", "root", "Account=physics")
    run("add", "coordinator", "account=physics", "names=root")
    run("modify", "user", "where", "name=root", "account=physics", "set",
        "GrpTRES=cpu=4,mem=2G", "MaxWall=60")
    st, doc = over_unix(cluster, "GET", f"{DB38}/account/physics")
    assert st == 200, doc
    (acct,) = doc["accounts"]
    assert acct["description"] == "particles" and acct["organization"] == "uni"
    assert acct["coordinators"] == [{"name": "root", "direct": 1}]
    assert {(a["account"], a["user"]) for a in acct["associations"]} == {
        ("physics", ""), ("physics", "root")}
    _, doc = over_unix(cluster, "GET", f"{DB38}/user/root")
    (user,) = doc["users"]
    assert {"name": "physics", "direct": 1} in user["coordinators"]
    assert ("physics", "root") in {(a["account"], a["user"]) for a in user["associations"]}
    _, doc = over_unix(cluster, "GET", f"{DB38}/associations?account=physics&user=root")
    (assoc,) = doc["associations"]
    assert assoc["max"]["tres"]["total"] == [
        {"type": "cpu", "name": "", "id": 1, "count": 4},
        {"type": "mem", "name": "", "id": 2, "count": 2048}]
    assert assoc["max"]["jobs"]["per"]["wall_clock"] == 60
    assert assoc["cluster"] == cluster.conf_value("ClusterName")
    _, doc = over_unix(cluster, "GET", f"{DB38}/associations?account=physics")
    assert len(doc["associations"]) == 2
    _, doc = over_unix(cluster, "GET", f"{DB38}/qos/normal")
    assert doc["qos"][0]["name"] == "normal" and doc["qos"][0]["id"] == "1"
    _, doc = over_unix(cluster, "GET", f"{DB38}/clusters")
    (c,) = doc["clusters"]
    sinfo = cluster.run(["sinfo", "-h", "-o", "%N %C"], check=True).stdout.split()
    assert c["name"] == cluster.conf_value("ClusterName") and c["nodes"] == sinfo[0]
    assert {"type": "cpu", "name": "", "id": 1, "count": int(sinfo[1].split("/")[3])} \
        in c["tres"]
    _, doc = over_unix(cluster, "GET", f"{DB38}/config")
    assert {a["name"] for a in doc["accounts"]} >= {"root", "physics"}
    assert doc["wckeys"] == [] and doc["tres"][0]["type"] == "cpu"
    assert len(doc["associations"]) == len(over_unix(
        cluster, "GET", f"{DB38}/associations")[1]["associations"])
    for path, errno in (("account/nothere", 2045), ("user/nothere", 2010),
                        ("qos/nothere", 2066), ("cluster/nothere", 2071)):
        st, doc = over_unix(cluster, "GET", f"{DB38}/{path}")
        assert st == 404 and doc["errors"][0]["error_number"] == errno, doc
    st, doc = over_unix(cluster, "PUT", f"{DB38}/accounts", body="{}")
    assert st in (405, 501)
    run("delete", "user", "root", "where", "account=physics")
    run("delete", "account", "physics")


def test_slurmdb_changes(cluster, users):
    """POST accounts, users, associations, qos add or update (sacctmgr's
    requests, as the user: a plain user is refused); DELETE removes; what
    sacctmgr then lists is what was asked."""
    a = users["a"]
    acc = lambda *w: cluster.run(["sacctmgr", "-n", "-P", "list", *w], check=True).stdout

    def post(path, body):
        return over_unix(cluster, "POST", f"{DB38}/{path}", body=body)

    st, doc = post("accounts", {"accounts": [{"name": "chem", "description": "chemistry",
                                              "organization": "uni"}]})
    assert st == 200 and doc["errors"] == [], doc
    st, doc = post("accounts", {"accounts": [{"name": "chem",
                                              "description": "chemistry dept"}]})
    assert st == 200, doc  # there already: updated
    assert acc("account", "chem", "format=account,descr,org").splitlines() == [
        "chem|chemistry dept|uni"]
    st, doc = post("users", {"users": [{"name": a.name, "default": {"account": "chem"}}]})
    assert st == 200, doc
    st, doc = post("associations", {"associations": [{
        "account": "chem", "user": a.name,
        "max": {"jobs": {"per": {"wall_clock": 30}},
                "tres": {"total": [{"type": "cpu", "name": "", "count": 4},
                                   {"type": "mem", "name": "", "count": 2048}]}}}]})
    assert st == 200, doc
    assert acc("assoc", "where", "account=chem", f"user={a.name}",
               "format=account,user,maxwall,grptres").splitlines() == [
        f"chem|{a.name}|00:30:00|cpu=4,mem=2G"]
    st, doc = post("qos", {"qos": [{"name": "fast", "description": "quick",
                                    "priority": 10}]})
    assert st == 200, doc
    assert "fast|10|quick" in acc("qos", "format=name,priority,descr").splitlines()
    # as a's own: not an operator, so refused, and nothing changes
    st, text = unix_as(cluster, a, "POST", f"{DB38}/accounts",
                       {"accounts": [{"name": "mine"}]})
    assert st == 403, text
    assert "mine" not in acc("account", "format=account").split()
    # errors in Slurm's shape
    st, doc = post("accounts", {"nope": []})
    assert st == 400 and doc["errors"][0]["error_number"] == 2071
    st, doc = post("associations", {"associations": [{"account": "nosuch", "user": a.name}]})
    assert st == 400 and "doesn't exist" in doc["errors"][0]["error"], doc
    # DELETE
    st, doc = over_unix(cluster, "DELETE",
                        f"{DB38}/association?account=chem&user={a.name}")
    assert st == 200, doc
    assert a.name not in acc("assoc", "where", "account=chem", "format=user")
    st, doc = over_unix(cluster, "DELETE", f"{DB38}/qos/fast")
    assert st == 200 and "fast" not in acc("qos", "format=name").split()
    st, doc = over_unix(cluster, "DELETE", f"{DB38}/account/chem")
    assert st == 200 and "chem" not in acc("account", "format=account").split()
    st, doc = over_unix(cluster, "DELETE", f"{DB38}/account/chem")
    assert st == 400 and doc["errors"][0]["error"] == "Nothing deleted"
