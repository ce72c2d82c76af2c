"""rotarestd's slurmdb v0.0.44 paths (Slurm 25.11's slurmdb plugin) beside the
v0.0.38 ones: job records from rotadbd, accounts, users, associations and QOS
from the controller, and their changes as sacctmgr's requests made as the
asking user, in v0.0.44's shapes; and rotadbd's statistics (diag) for both
versions."""

import json

from test_rest import over_unix, unix_as

DB44 = "/slurmdb/v0.0.44"
DB38 = "/slurmdb/v0.0.38"


def no_val(n):
    return {"set": True, "infinite": False, "number": n}


def get(cluster, path):
    st, doc = over_unix(cluster, "GET", f"{DB44}/{path}")
    assert st == 200 and doc["errors"] == [], (path, doc)
    assert doc["meta"]["plugin"]["type"] == "openapi/slurmdbd"
    assert doc["meta"]["plugin"]["data_parser"] == "data_parser/v0.0.44"
    assert doc["meta"]["client"]["user"] == "root" and doc["warnings"] == []
    return doc


def sacct_list(cluster, *w):
    return cluster.run(["sacctmgr", "-n", "-P", "list", *w], check=True).stdout


def test_job_records(cluster):
    """A finished job's record in v0.0.44's shape: what sacct says of it."""
    ok = cluster.sbatch("-J", "db44ok", "-o", "/dev/null", "--wrap", "true")
    bad = cluster.sbatch("-J", "db44bad", "-o", "/dev/null", "--wrap", "sleep 1; exit 3")
    for j in (ok, bad):
        cluster.wait_job(j)
    cluster.wait_for(lambda: [j["state"]["current"] for j in
                              get(cluster, f"job/{bad}")["jobs"]] == [["FAILED"]],
                     what="the failed job's record")
    (j,) = get(cluster, f"job/{bad}")["jobs"]
    sacct = cluster.run(["sacct", "-n", "-P", "-X", "-j", str(bad),
                         "-o", "JobName,User,ElapsedRaw,Start,End,Account"],
                        check=True).stdout.strip().split("|")
    assert j["job_id"] == bad and j["name"] == "db44bad" == sacct[0]
    assert j["user"] == sacct[1] == "root" and j["account"] == sacct[5]
    assert j["exit_code"]["status"] == ["ERROR"]
    assert j["exit_code"]["return_code"] == no_val(3)
    assert j["time"]["elapsed"] == int(sacct[2]) >= 1
    assert j["time"]["end"] - j["time"]["start"] == j["time"]["elapsed"]
    assert j["time"]["limit"]["set"] or j["time"]["limit"]["infinite"]
    assert j["association"]["cluster"] == cluster.conf_value("ClusterName")
    assert {"type": "node", "name": "", "id": 4, "count": 1} in j["tres"]["allocated"]
    steps = {s["step"]["id"]: s for s in j["steps"]}
    assert f"{bad}.batch" in steps, steps.keys()
    batch = steps[f"{bad}.batch"]
    assert batch["state"] == ["FAILED"] and batch["exit_code"]["return_code"] == no_val(3)
    assert batch["nodes"]["count"] == 1 and batch["nodes"]["list"] == [batch["nodes"]["range"]]
    assert batch["time"]["start"]["set"] and batch["time"]["elapsed"] >= 1
    for key in ("derived_exit_code", "het", "array", "required", "wckey", "reservation",
                "comment", "mcs"):
        assert isinstance(j[key], dict), key
    (good,) = get(cluster, f"job/{ok}")["jobs"]
    assert good["state"]["current"] == ["COMPLETED"]
    assert good["exit_code"]["status"] == ["SUCCESS"]
    assert good["exit_code"]["return_code"] == no_val(0)
    # the query's filters, with v0.0.44's names
    ids = lambda q: {x["job_id"] for x in get(cluster, f"jobs{q}")["jobs"]}
    assert bad in ids("?state=FAILED") and ok not in ids("?state=FAILED")
    assert ids("?job_name=db44ok") == {ok}
    assert ids(f"?step={ok}&show_duplicates=true") == {ok}
    group = cluster.run(["id", "-gn"], check=True).stdout.strip()
    assert ok in ids(f"?groups={group}") and not ids("?groups=nosuchgroup")
    doc = get(cluster, f"jobs?step={ok}&skip_steps=true")
    assert doc["jobs"][0]["steps"] == []
    st, doc = over_unix(cluster, "GET", f"{DB44}/job/99999")
    assert st == 404 and doc["errors"][0]["error_number"] == 2017
    assert doc["errors"][0]["description"] == "Invalid job id specified"
    assert doc["meta"]["plugin"]["type"] == "openapi/slurmdbd"
    st, doc = over_unix(cluster, "GET", f"{DB44}/jobs?state=SLEEPY")
    assert st == 400 and "SLEEPY" in doc["errors"][0]["description"]


def test_changes_and_listings(cluster, users):
    """POST accounts, users, associations, qos in v0.0.44's shapes (as
    sacctmgr's requests, as the user); GET lists them; a plain user is
    refused; DELETE removes."""
    a = users["a"]

    def post(path, body):
        return over_unix(cluster, "POST", f"{DB44}/{path}", body=body)

    st, doc = post("accounts", {"accounts": [{"name": "bio", "description": "biology",
                                              "organization": "uni"}]})
    assert st == 200 and doc["errors"] == [], doc
    assert doc["meta"]["plugin"]["type"] == "openapi/slurmdbd"
    assert sacct_list(cluster, "account", "bio", "format=account,descr,org").splitlines() \
        == ["bio|biology|uni"]
    st, doc = post("users", {"users": [{"name": a.name, "default": {"account": "bio"},
                                        "administrator_level": ["None"]}]})
    assert st == 200, doc
    assert sacct_list(cluster, "user", a.name, "format=user,defaultaccount,admin") \
        .splitlines() == [f"{a.name}|bio|None"]
    st, doc = post("associations", {"associations": [{
        "account": "bio", "user": a.name, "partition": "", "cluster": "",
        "max": {"jobs": {"per": {"wall_clock": no_val(45)},
                         "active": no_val(3)},
                "tres": {"total": [{"type": "cpu", "name": "", "count": 8}]}}}]})
    assert st == 200, doc
    assert sacct_list(cluster, "assoc", "where", "account=bio", f"user={a.name}",
                      "format=account,user,maxwall,grptres,maxjobs").splitlines() == [
        f"bio|{a.name}|00:45:00|cpu=8|3"]
    st, doc = post("qos", {"qos": [{"name": "slow", "description": "patient",
                                    "priority": {"set": True, "number": 5},
                                    "limits": {"max": {"wall_clock": {"per": {
                                        "job": no_val(120)}}}}}]})
    assert st == 200, doc
    assert "slow|5|patient|02:00:00" in sacct_list(
        cluster, "qos", "format=name,priority,descr,maxwall").splitlines()
    # GET in v0.0.44's shapes
    (acct,) = get(cluster, "account/bio")["accounts"]
    assert acct["description"] == "biology" and acct["organization"] == "uni"
    assert ("bio", a.name, 0) in {(x["account"], x["user"], x["id"])
                                  for x in acct["associations"]}
    (user,) = get(cluster, f"user/{a.name}")["users"]
    assert user["default"]["account"] == "bio"
    assert user["administrator_level"] == ["None"]
    (assoc,) = get(cluster, f"associations?account=bio&user={a.name}")["associations"]
    assert assoc["max"]["jobs"]["per"]["wall_clock"] == no_val(45)
    assert assoc["max"]["jobs"]["active"] == no_val(3)
    assert assoc["max"]["tres"]["total"] == [{"type": "cpu", "name": "", "id": 1, "count": 8}]
    assert assoc["is_default"] is True and assoc["priority"]["set"] is False
    (q,) = get(cluster, "qos/slow")["qos"]
    assert q["priority"] == no_val(5) and q["description"] == "patient"
    assert q["limits"]["max"]["wall_clock"]["per"]["job"] == no_val(120)
    assert isinstance(q["id"], int)
    doc = get(cluster, "config")
    assert {x["name"] for x in doc["accounts"]} >= {"root", "bio"}
    assert doc["clusters"][0]["name"] == cluster.conf_value("ClusterName")
    assert doc["tres"][0]["type"] == "cpu" and doc["instances"] == []
    assert get(cluster, "tres")["TRES"][0]["type"] == "cpu"
    (c,) = get(cluster, "clusters")["clusters"]
    assert c["rpc_version"] == 44 << 8 and c["associations"]["root"]["account"] == "root"
    assert get(cluster, "wckeys")["wckeys"] == []
    # a plain user's POST is refused, in v0.0.44's shape
    status, text = unix_as(cluster, a, "POST", f"{DB44}/accounts",
                           {"accounts": [{"name": "theirs"}]})
    assert status == 403, text
    refused = json.loads(text)
    assert refused["errors"][0]["error_number"] == 2002
    assert refused["meta"]["client"]["user"] == a.name
    assert "theirs" not in sacct_list(cluster, "account", "format=account").split()
    st, doc = post("users", {"users": [{"name": a.name,
                                        "administrator_level": ["None", "Operator"]}]})
    assert st == 400
    # DELETE
    st, doc = over_unix(cluster, "DELETE", f"{DB44}/association?account=bio&user={a.name}")
    assert st == 200, doc
    assert a.name not in sacct_list(cluster, "assoc", "where", "account=bio",
                                    "format=user").split()
    st, doc = over_unix(cluster, "DELETE", f"{DB44}/qos/slow")
    assert st == 200 and "slow" not in sacct_list(cluster, "qos", "format=name").split()
    st, doc = over_unix(cluster, "DELETE", f"{DB44}/account/bio")
    assert st == 200 and "bio" not in sacct_list(cluster, "account",
                                                 "format=account").split()
    st, doc = over_unix(cluster, "DELETE", f"{DB44}/account/bio")
    assert st == 400 and doc["errors"][0]["description"] == "Nothing deleted"
    st, doc = over_unix(cluster, "GET", f"{DB44}/account/bio")
    assert st == 404 and doc["errors"][0]["error_number"] == 2045


def test_diag_both_versions(cluster):
    """rotadbd's statistics: when it started, and the requests it answered
    by type and by user (rollups: none kept, zeros)."""
    cluster.run(["sacct", "-n", "-X"], check=True)
    doc = get(cluster, "diag")
    s = doc["statistics"]
    assert set(s) == {"time_start", "rollups", "RPCs", "users"}
    assert 0 < s["time_start"] <= int(__import__("time").time())
    assert set(s["rollups"]) == {"hourly", "daily", "monthly"}
    assert s["rollups"]["daily"] == {"count": 0, "last_run": 0,
                                     "duration": {"last": 0, "max": 0, "time": 0}}
    rpcs = {r["rpc"]: r for r in s["RPCs"]}
    assert rpcs["DBD_GET_JOBS_COND"]["count"] >= 1
    assert set(rpcs["DBD_GET_JOBS_COND"]["time"]) == {"average", "total"}
    assert "root" in {u["user"] for u in s["users"]}
    before = rpcs["DBD_GET_JOBS_COND"]["count"]
    cluster.run(["sacct", "-n", "-X"], check=True)
    st, old = over_unix(cluster, "GET", f"{DB38}/diag")
    assert st == 200 and old["meta"]["plugin"]["type"] == "openapi/dbv0.0.38"
    s38 = old["statistics"]
    assert s38["time_start"] == s["time_start"]
    assert [r["type"] for r in s38["rollups"]] == ["hourly", "daily", "monthly"]
    rpcs = {r["rpc"]: r for r in s38["RPCs"]}
    assert rpcs["DBD_GET_JOBS_COND"]["count"] == before + 1
    assert rpcs["DBD_GET_STATS"]["count"] >= 1


def test_openapi_lists_db44(cluster):
    """/openapi/v3 names the slurmdb v0.0.44 paths; its schemas hold the
    fields served."""
    st, api = over_unix(cluster, "GET", "/openapi/v3")
    assert st == 200
    paths, schemas = api["paths"], api["components"]["schemas"]
    for p, methods in (("/jobs", {"get"}), ("/job/{job_id}", {"get"}),
                       ("/accounts", {"get", "post"}),
                       ("/account/{account_name}", {"get", "delete"}),
                       ("/users", {"get", "post"}), ("/user/{name}", {"get", "delete"}),
                       ("/associations", {"get", "post"}),
                       ("/association", {"get", "delete"}), ("/qos", {"get", "post"}),
                       ("/qos/{qos}", {"get", "delete"}), ("/tres", {"get"}),
                       ("/clusters", {"get"}), ("/cluster/{cluster_name}", {"get"}),
                       ("/wckeys", {"get"}), ("/config", {"get"}), ("/diag", {"get"})):
        assert set(paths[DB44 + p]) == methods, p
    assert set(paths[DB38 + "/diag"]) == {"get"}
    job = cluster.sbatch("-o", "/dev/null", "--wrap", "true")
    cluster.wait_job(job)
    cluster.wait_for(lambda: over_unix(cluster, "GET", f"{DB44}/job/{job}")[0] == 200,
                     what="the job's record")
    for path, key, schema, resp in (
            (f"job/{job}", "jobs", "v0.0.44_job", "v0.0.44_openapi_slurmdbd_jobs_resp"),
            ("accounts", "accounts", "v0.0.44_account", "v0.0.44_openapi_accounts_resp"),
            ("users", "users", "v0.0.44_user", "v0.0.44_openapi_users_resp"),
            ("associations", "associations", "v0.0.44_assoc",
             "v0.0.44_openapi_assocs_resp"),
            ("qos", "qos", "v0.0.44_qos", "v0.0.44_openapi_slurmdbd_qos_resp"),
            ("clusters", "clusters", "v0.0.44_cluster_rec", "v0.0.44_openapi_clusters_resp"),
            ("tres", "TRES", "v0.0.44_tres", "v0.0.44_openapi_tres_resp")):
        doc = get(cluster, path)
        assert set(doc[key][0]) == set(schemas[schema]["properties"]), path
        assert set(doc) == set(schemas[resp]["properties"]), path
    doc = get(cluster, f"job/{job}")
    step = doc["jobs"][0]["steps"][0]
    assert set(step) == set(schemas["v0.0.44_job"]["properties"]["steps"]["items"]
                            ["properties"])
    doc = get(cluster, "diag")
    assert set(doc["statistics"]) == set(schemas["v0.0.44_stats_rec"]["properties"])
    assert set(doc) == set(schemas["v0.0.44_openapi_slurmdbd_stats_resp"]["properties"])
    doc = get(cluster, "config")
    assert set(doc) == set(schemas["v0.0.44_openapi_slurmdbd_config_resp"]["properties"])
    st, old = over_unix(cluster, "GET", f"{DB38}/diag")
    assert set(old["statistics"]) == set(
        schemas["dbv0.0.38_diag"]["properties"]["statistics"]["properties"])
