"""rotarestd's slurm v0.0.44 paths (Slurm 25.11's REST API) beside the
v0.0.38 ones: the same requests to the controller as the asking user,
answered with v0.0.44's documents (meta, errors and warnings; numbers as
{"set", "infinite", "number"}; states and flags as lists)."""

import re

from test_rest import over_tcp, over_unix, token
from unixusers import needs_root, sbatch_as

V44 = "/slurm/v0.0.44"
V38 = "/slurm/v0.0.38"
ESLURM_ACCESS_DENIED = 2002

# v0.0.44_job_info's fields by kind (names from Slurm 25.11's REST reference)
JOB_FIELDS = {
    str: """account admin_comment allocating_node array_task_string batch_features
        batch_host burst_buffer burst_buffer_state cluster cluster_features command
        comment container container_id cpus_per_tres cron dependency excluded_nodes
        extra failed_node features federation_origin federation_siblings_active
        federation_siblings_viable group_name het_job_id_set licenses
        licenses_allocated mail_user mcs_label memory_per_tres name network nodes
        partition prefer qos required_nodes resv_name scheduled_nodes selinux_context
        state_description state_reason standard_input standard_output standard_error
        stdin_expanded stdout_expanded stderr_expanded submit_line system_comment
        tres_bind tres_freq tres_per_job tres_per_node tres_per_socket tres_per_task
        tres_req_str tres_alloc_str user_name wckey current_working_directory""",
    "no_val": """accrue_time array_job_id array_task_id array_max_tasks
        cores_per_socket billable_tres cpus_per_task cpu_frequency_minimum
        cpu_frequency_maximum cpu_frequency_governor deadline delay_boot eligible_time
        end_time het_job_id het_job_offset last_sched_evaluation max_cpus max_nodes
        tasks_per_core tasks_per_tres tasks_per_node tasks_per_socket tasks_per_board
        cpus node_count tasks memory_per_cpu memory_per_node minimum_cpus_per_node
        minimum_tmp_disk_per_node preempt_time preemptable_time pre_sus_time priority
        resize_time sockets_per_node start_time submit_time suspend_time time_limit
        time_minimum threads_per_core""",
    int: """association_id core_spec thread_spec group_id job_id nice
        required_switches restart_cnt segment_size sockets_per_board user_id
        maximum_switch_wait_time""",
    bool: "batch_flag contiguous hold reboot requeue",
    list: """flags gres_detail job_size_str job_state mail_type priority_by_partition
        profile shared""",
    dict: "derived_exit_code exit_code job_resources power step_id",
}
NODE_FIELDS = {
    str: """architecture burstbuffer_network_address cluster_name specialized_cpus
        extra gpu_spec gres gres_drained gres_used instance_id instance_type mcs_label
        name address hostname operating_system owner comment reason
        reason_set_by_user reservation tres_used topology tres version""",
    int: """boards cores specialized_cores cpu_binding cpu_load cpus effective_cpus
        specialized_memory port real_memory res_cores_per_gpu alloc_memory alloc_cpus
        alloc_idle_cpus sockets threads temporary_disk weight""",
    "no_val": """boot_time tls_cert_last_renewal free_mem last_busy reason_changed_at
        resume_after slurmd_start_time""",
    list: "cert_flags features active_features next_state_after_reboot state partitions",
    dict: "energy external_sensors power",
    float: "tres_weighted",
}
PARTITION_FIELDS = {
    dict: """nodes accounts groups qos tres cpus defaults maximums minimums priority
        timeouts partition""",
    str: "alternate cluster name node_sets topology",
    list: "select_type",
    int: "grace_time",
    "no_val": "suspend_time",
}
STATS_NO_VAL = "req_time req_time_start job_states_ts bf_when_last_cycle".split()
STATS_LISTS = "rpcs_by_message_type rpcs_by_user pending_rpcs pending_rpcs_by_hostlist".split()


def is_no_val(v):
    return (isinstance(v, dict) and set(v) == {"set", "infinite", "number"}
            and isinstance(v["set"], bool) and isinstance(v["infinite"], bool)
            and isinstance(v["number"], (int, float)))


def check_kinds(obj, fields):
    """Every field of the model is there with its kind, and no other."""
    names = set()
    for kind, words in fields.items():
        for name in words.split():
            names.add(name)
            assert name in obj, name
            v = obj[name]
            if kind == "no_val":
                assert is_no_val(v), (name, v)
            elif kind is int:
                assert isinstance(v, int) and not isinstance(v, bool), (name, v)
            elif kind is float:
                assert isinstance(v, (int, float)) and not isinstance(v, bool), (name, v)
            else:
                assert isinstance(v, kind), (name, v)
    assert set(obj) == names, set(obj) ^ names


def head_ok(doc, cluster, user="root"):
    meta = doc["meta"]
    assert meta["plugin"]["type"] == "openapi/slurmctld"
    assert meta["plugin"]["name"] == "Slurm OpenAPI slurmctld"
    assert meta["plugin"]["data_parser"] == "data_parser/v0.0.44"
    assert meta["client"]["user"] == user and meta["client"]["source"]
    v = meta["slurm"]["version"]
    assert meta["slurm"]["release"] == f"{v['major']}.{v['minor']}.{v['micro']}"
    assert all(isinstance(x, str) for x in v.values())
    assert meta["slurm"]["cluster"] == cluster.conf_value("ClusterName")
    assert meta["command"] == [] and doc["warnings"] == []


def no_val(n):
    return {"set": True, "infinite": False, "number": n}


def job44(cluster, job):
    st, doc = over_unix(cluster, "GET", f"{V44}/job/{job}")
    assert st == 200 and doc["errors"] == [], doc
    (j,) = doc["jobs"]
    return j


def test_documents_and_a_held_job(cluster):
    """jobs and job/{id}: every field of v0.0.44_job_info with its kind; a
    held job as scontrol and the v0.0.38 document show it."""
    held = cluster.sbatch("-H", "-J", "rest44-held", "-t", "30", "--wrap", "true")
    st, doc = over_unix(cluster, "GET", V44 + "/jobs/")
    assert st == 200 and doc["errors"] == [], doc
    head_ok(doc, cluster)
    assert is_no_val(doc["last_backfill"]) and is_no_val(doc["last_update"])
    assert doc["last_update"]["set"] and doc["last_update"]["number"] > 0
    j = next(j for j in doc["jobs"] if j["job_id"] == held)
    check_kinds(j, JOB_FIELDS)
    assert j == job44(cluster, held)

    _, d38 = over_unix(cluster, "GET", f"{V38}/job/{held}")
    (o,) = d38["jobs"]
    assert j["job_state"] == ["PENDING"] == [o["job_state"]]
    assert j["state_reason"] == "JobHeldUser" == o["state_reason"]
    assert (j["name"], j["user_name"], j["user_id"], j["partition"]) == \
        ("rest44-held", "root", 0, "debug") == \
        (o["name"], o["user_name"], o["user_id"], o["partition"])
    assert j["time_limit"] == no_val(30) and o["time_limit"] == 30
    assert j["hold"] is True and j["priority"] == no_val(0)
    assert j["exit_code"]["status"] == ["PENDING"] and not j["exit_code"]["return_code"]["set"]
    assert j["job_resources"] == {} and j["nodes"] == ""
    assert j["cluster"] == cluster.conf_value("ClusterName")
    assert j["submit_time"]["set"] and j["submit_time"]["number"] == o["submit_time"]
    assert j["array_task_id"] == {"set": False, "infinite": False, "number": 0}
    assert j["step_id"]["job_id"] == no_val(held)
    assert cluster.job_field(held, "JobName") == "rest44-held"
    assert cluster.job_field(held, "TimeLimit") == "00:30:00"
    assert cluster.job_field(held, "Partition") == j["partition"]
    assert cluster.job_field(held, "Reason") == "JobHeldUser"
    cluster.run(["scancel", str(held)], check=True)


def test_a_running_job(cluster):
    job = cluster.sbatch("-o", "/dev/null", "-t", "10", "--wrap", "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(job, "JobState") == "RUNNING", what="running")
    j = job44(cluster, job)
    check_kinds(j, JOB_FIELDS)
    assert j["job_state"] == ["RUNNING"] and j["nodes"] == cluster.job_field(job, "NodeList")
    assert j["time_limit"] == no_val(10)
    res = j["job_resources"]
    assert res["nodes"]["list"] == j["nodes"] and res["nodes"]["count"] == 1
    assert [a["name"] for a in res["nodes"]["allocation"]] == [j["nodes"]]
    assert res["cpus"] == j["cpus"]["number"] == int(cluster.job_field(job, "NumCPUs"))
    assert j["start_time"]["set"] and j["start_time"]["number"] > 0
    cluster.run(["scancel", str(job)], check=True)
    cluster.wait_for(lambda: job44(cluster, job)["job_state"][0] == "CANCELLED",
                     what="cancelled")


def test_errors_in_v44_shape(cluster):
    for path, errnum in (("job/999999", 2017), ("node/nosuchnode", 2018),
                         ("partition/nosuch", 2000)):
        st, doc = over_unix(cluster, "GET", f"{V44}/{path}")
        assert st == 404, doc
        (e,) = doc["errors"]
        assert e["error_number"] == errnum and e["error"] and e["description"], e
        assert set(e) == {"description", "error_number", "error", "source"}
        head_ok(doc, cluster)
    st, doc = over_unix(cluster, "GET", V44 + "/no/such/path")
    assert st == 404 and doc["errors"][0]["description"]
    st, doc = over_unix(cluster, "DELETE", V44 + "/job/1?signal=NOSUCHSIG")
    assert st == 400 and doc["errors"][0]["description"] == "Invalid signal"
    st, doc = over_tcp(cluster, "GET", V44 + "/ping")
    assert st == 401 and "X-SLURM-USER-TOKEN" in doc["errors"][0]["description"]
    assert doc["meta"]["plugin"]["data_parser"] == "data_parser/v0.0.44"


def test_submit(cluster):
    """POST job/submit: a v0.0.44 job_desc_msg, its environment a list of
    "K=V"; what Rota does not take is refused by name."""
    out = cluster.work / "rest44.out"
    job = {"name": "from-rest44", "current_working_directory": str(cluster.work),
           "standard_output": str(out),
           "environment": ["PATH=/bin:/usr/bin", "GREETING=hello", "EQ=a=b"],
           "tasks": 1, "nodes": "1", "cpus_per_task": 1,
           "time_limit": {"set": True, "infinite": False, "number": 5},
           "memory_per_cpu": {"set": False, "infinite": False, "number": 0}}
    st, doc = over_unix(cluster, "POST", V44 + "/job/submit",
                        {"script": "#!/bin/sh\necho $GREETING $EQ $SLURM_JOB_NAME\n",
                         "job": job})
    assert st == 200 and doc["errors"] == [], doc
    head_ok(doc, cluster)
    jid = doc["job_id"]
    assert isinstance(jid, int) and doc["step_id"] == "batch"
    assert isinstance(doc["job_submit_user_msg"], str)
    assert cluster.wait_job(jid) == "COMPLETED"
    assert out.read_text() == "hello a=b from-rest44\n"
    assert cluster.job_field(jid, "TimeLimit") == "00:05:00"

    # the script inside "job", a number for time_limit
    out2 = cluster.work / "rest44b.out"
    st, doc = over_unix(cluster, "POST", V44 + "/job/submit", {"job": dict(
        job, script="#!/bin/sh\necho inside\n", standard_output=str(out2), time_limit=7,
        hold=True)})
    assert st == 200, doc
    assert cluster.job_field(doc["job_id"], "TimeLimit") == "00:07:00"
    assert cluster.job_field(doc["job_id"], "Reason") == "JobHeldUser"
    cluster.run(["scancel", str(doc["job_id"])], check=True)

    def refused(body, words):
        st, doc = over_unix(cluster, "POST", V44 + "/job/submit", body)
        assert st == 400 and words in doc["errors"][0]["description"], doc
        return doc

    script = "#!/bin/sh\ntrue\n"
    doc = refused({"script": script, "job": dict(job, burst_buffer="x")},
                  "burst_buffer is not supported")
    assert doc["errors"][0]["error_number"] == 2071
    refused({"script": script, "job": dict(job, environment=["NOEQUALS"])}, "environment")
    refused({"script": script, "job": dict(job, tasks="many")}, "tasks: invalid value")
    refused({"script": script, "job": dict(job, time_limit={"set": "yes"})}, "time_limit")
    refused({"script": script, "job": {"name": "x"}}, "environment")


def test_update_time_limit_hold_and_release(cluster):
    """POST job/{id}: v0.0.44's names and no_val structs become scontrol
    update's keys."""
    job = cluster.sbatch("-o", "/dev/null", "-t", "30", "--begin", "now+1hour",
                         "--wrap", "true")
    st, doc = over_unix(cluster, "POST", f"{V44}/job/{job}",
                        {"time_limit": no_val(20), "name": "renamed44"})
    assert st == 200 and doc["errors"] == [] and doc["results"] == [], doc
    head_ok(doc, cluster)
    assert cluster.job_field(job, "TimeLimit") == "00:20:00"
    assert cluster.job_field(job, "JobName") == "renamed44"
    st, doc = over_unix(cluster, "POST", f"{V44}/job/{job}", {"time_limit": 15})
    assert st == 200 and cluster.job_field(job, "TimeLimit") == "00:15:00"
    assert job44(cluster, job)["time_limit"] == no_val(15)
    st, doc = over_unix(cluster, "POST", f"{V44}/job/{job}",
                        {"time_limit": {"set": False, "infinite": True, "number": 0}})
    assert st == 200 and cluster.job_field(job, "TimeLimit") == "UNLIMITED"
    assert job44(cluster, job)["time_limit"]["infinite"] is True

    assert cluster.job_field(job, "Reason") == "BeginTime"
    st, doc = over_unix(cluster, "POST", f"{V44}/job/{job}", {"hold": True})
    assert st == 200 and cluster.job_field(job, "Reason") == "JobHeldAdmin"  # by root
    assert job44(cluster, job)["hold"] is True
    st, doc = over_unix(cluster, "POST", f"{V44}/job/{job}", {"hold": False})
    assert st == 200 and cluster.job_field(job, "Reason") == "BeginTime"
    assert job44(cluster, job)["hold"] is False

    st, doc = over_unix(cluster, "POST", f"{V44}/job/{job}", {"script": "x"})
    assert st == 400 and "script cannot be updated" in doc["errors"][0]["description"]
    st, doc = over_unix(cluster, "POST", f"{V44}/job/{job}", {"priority": {"infinite": True}})
    assert st == 400
    cluster.run(["scancel", str(job)], check=True)


def test_delete_signals_and_cancels(cluster):
    job = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(job, "JobState") == "RUNNING", what="running")
    st, doc = over_unix(cluster, "DELETE", f"{V44}/job/{job}?signal=SIGCONT&flags=BATCH_JOB")
    assert st == 200 and doc["errors"] == [] and doc["status"] == [], doc
    assert cluster.job_field(job, "JobState") == "RUNNING"
    st, doc = over_unix(cluster, "DELETE", f"{V44}/job/{job}")
    assert st == 200 and doc["errors"] == [], doc
    cluster.wait_for(lambda: cluster.job_field(job, "JobState") == "CANCELLED",
                     what="cancelled")


@needs_root
def test_another_user_cannot_cancel(cluster, users):
    from unixusers import user_work
    a, b = users["a"], users["b"]
    cluster.work = user_work()
    job = sbatch_as(cluster, a, "-o /dev/null --wrap 'sleep 300'")
    tb = token(cluster, f"username={b.name}")
    st, doc = over_tcp(cluster, "DELETE", f"{V44}/job/{job}", tb)
    assert st == 403 and doc["errors"][0]["error_number"] == ESLURM_ACCESS_DENIED, doc
    assert doc["meta"]["client"]["user"] == b.name
    st, doc = over_tcp(cluster, "POST", f"{V44}/job/{job}", tb, body={"time_limit": 1})
    assert st == 403, doc
    assert cluster.job_field(job, "JobState") in ("PENDING", "RUNNING")
    st, doc = over_tcp(cluster, "DELETE", f"{V44}/job/{job}",
                       token(cluster, f"username={a.name}"))
    assert st == 200, doc
    cluster.wait_for(lambda: cluster.job_field(job, "JobState") == "CANCELLED",
                     what="cancelled")


def test_nodes_and_partitions_match_sinfo(cluster):
    def sinfo_rows():
        return [ln.split() for ln in cluster.run(
            ["sinfo", "-h", "-N", "-o", "%N %T %c %m"], check=True).stdout.splitlines()]

    cluster.wait_for(lambda: all(r[1] == "idle" for r in sinfo_rows()), what="idle nodes")
    rows = sinfo_rows()
    st, doc = over_unix(cluster, "GET", V44 + "/nodes")
    assert st == 200 and doc["errors"] == []
    head_ok(doc, cluster)
    assert doc["last_update"]["set"]
    for n in doc["nodes"]:
        check_kinds(n, NODE_FIELDS)
    assert {n["name"]: (n["state"][0].lower(), n["cpus"], n["real_memory"])
            for n in doc["nodes"]} == {r[0]: (r[1], int(r[2]), int(r[3])) for r in rows}
    st, doc = over_unix(cluster, "GET", V44 + "/node/node02")
    assert st == 200 and [n["name"] for n in doc["nodes"]] == ["node02"]
    assert doc["nodes"][0]["partitions"] == ["debug"]

    (part,) = [ln.split() for ln in cluster.run(
        ["sinfo", "-h", "-o", "%R %D %N %C"], check=True).stdout.splitlines()]
    st, doc = over_unix(cluster, "GET", V44 + "/partitions")
    assert st == 200
    (p,) = doc["partitions"]
    check_kinds(p, PARTITION_FIELDS)
    assert (p["name"], p["nodes"]["total"], p["nodes"]["configured"]) == \
        (part[0].rstrip("*"), int(part[1]), part[2])
    assert p["cpus"]["total"] == int(part[3].split("/")[3])
    assert p["partition"]["state"] == ["UP"]
    st, doc = over_unix(cluster, "GET", V44 + "/partition/debug")
    assert st == 200 and [x["name"] for x in doc["partitions"]] == ["debug"]

    st, doc = over_unix(cluster, "POST", V44 + "/node/node04",
                        {"state": ["DRAIN"], "reason": "rest44 test"})
    assert st == 200 and doc["errors"] == [], doc
    _, doc = over_unix(cluster, "GET", V44 + "/node/node04")
    assert "DRAIN" in doc["nodes"][0]["state"] and doc["nodes"][0]["reason"] == "rest44 test"
    st, doc = over_unix(cluster, "POST", V44 + "/node/node04", {"state": ["RESUME"]})
    assert st == 200
    cluster.wait_for(lambda: "DRAIN" not in cluster.run(
        ["scontrol", "show", "node", "node04"]).stdout, what="resumed")


def test_ping_and_diag(cluster):
    st, doc = over_unix(cluster, "GET", V44 + "/ping")
    assert st == 200 and doc["errors"] == []
    head_ok(doc, cluster)
    (p,) = doc["pings"]
    assert set(p) == {"hostname", "pinged", "responding", "latency", "mode", "primary"}
    assert p["pinged"] == "UP" and p["responding"] is True and p["primary"] is True
    assert p["mode"] == "primary" and p["hostname"]
    assert isinstance(p["latency"], int) and 0 <= p["latency"] < 60_000_000

    cluster.sbatch("-H", "--wrap", "true")
    st, doc = over_unix(cluster, "GET", V44 + "/diag")
    assert st == 200
    s = doc["statistics"]
    for k in STATS_NO_VAL:
        assert is_no_val(s[k]), k
    for k in STATS_LISTS:
        assert isinstance(s[k], list), k
    assert set(s["schedule_exit"]) >= {"end_job_queue", "max_sched_time"}
    sdiag = cluster.run(["sdiag"], check=True).stdout
    submitted = int(re.search(r"Jobs submitted:\s*(\d+)", sdiag).group(1))
    assert s["jobs_submitted"] == submitted >= 1
    assert any(r["message_type"] == "REQUEST_JOB_INFO" and r["count"] >= 1
               for r in s["rpcs_by_message_type"]), s["rpcs_by_message_type"]


def test_openapi_lists_v44(cluster):
    """/openapi/v3 names the v0.0.44 paths; every GET in it answers 200; the
    schemas hold the fields served."""
    st, api = over_unix(cluster, "GET", "/openapi/v3")
    assert st == 200
    paths = api["paths"]
    for p, methods in (("/ping", {"get"}), ("/diag", {"get"}), ("/jobs", {"get"}),
                       ("/job/{job_id}", {"get", "post", "delete"}),
                       ("/job/submit", {"post"}), ("/nodes", {"get", "post"}),
                       ("/node/{node_name}", {"get", "post"}), ("/partitions", {"get"}),
                       ("/partition/{partition_name}", {"get"}),
                       ("/jobs/state", {"get"}), ("/shares", {"get"}),
                       ("/reconfigure", {"get"}), ("/licenses", {"get"}),
                       ("/reservations", {"get"}),
                       ("/reservation/{reservation_name}", {"get"})):
        assert set(paths[V44 + p]) == methods, p
    held = cluster.sbatch("-H", "--wrap", "true")
    subst = {"{job_id}": str(held), "{node_name}": "node01",
             "{partition_name}": "debug", "{account_name}": "root",
             "{user_name}": "root", "{qos_name}": "normal",
             "{cluster_name}": cluster.conf_value("ClusterName"),
             "{name}": "root", "{qos}": "normal"}
    cluster.wait_for(lambda: over_unix(cluster, "GET", f"/slurmdb/v0.0.38/job/{held}")[0]
                     == 200, what="the held job's record")
    for path, ops in paths.items():
        if "get" not in ops or path == "/metrics" or "{reservation_name}" in path:
            continue
        real = path
        for k, v in subst.items():
            real = real.replace(k, v)
        st, doc = over_unix(cluster, "GET", real)
        assert st == 200, (path, doc)
    schemas = api["components"]["schemas"]
    served = job44(cluster, held)
    assert set(schemas["v0.0.44_job_info"]["properties"]) == set(served)
    assert set(served) == {n for w in JOB_FIELDS.values() for n in w.split()}
    _, doc = over_unix(cluster, "GET", V44 + "/nodes")
    assert set(schemas["v0.0.44_node"]["properties"]) == set(doc["nodes"][0])
    assert set(schemas["v0.0.44_openapi_nodes_resp"]["properties"]) == set(doc)
    _, doc = over_unix(cluster, "GET", V44 + "/jobs")
    assert set(schemas["v0.0.44_openapi_job_info_resp"]["properties"]) == set(doc)
    assert schemas["v0.0.44_job_info"]["properties"]["time_limit"]["properties"]["set"] \
        == {"type": "boolean"}
    cluster.run(["scancel", str(held)], check=True)


def test_jobs_state(cluster):
    """jobs/state: each job's id (an array's pending tasks as 12_[0-3]) and
    state, as squeue shows them; job_id= narrows it to some."""
    held = cluster.sbatch("-H", "--wrap", "true")
    arr = cluster.sbatch("-H", "--array=0-3", "--wrap", "true")
    st, doc = over_unix(cluster, "GET", V44 + "/jobs/state")
    assert st == 200 and doc["errors"] == [], doc
    head_ok(doc, cluster)
    states = {j["job_id"]: j["state"] for j in doc["jobs"]}
    assert states[str(held)] == ["PENDING"] and states[f"{arr}_[0-3]"] == ["PENDING"]
    squeue = cluster.run(["squeue", "-h", "-t", "all", "-o", "%i %T"], check=True).stdout.split("\n")
    assert {ln.split()[0]: [ln.split()[1]] for ln in squeue if ln} == states
    st, doc = over_unix(cluster, "GET", f"{V44}/jobs/state?job_id={arr}")
    assert st == 200 and doc["jobs"] == [{"job_id": f"{arr}_[0-3]", "state": ["PENDING"]}]
    cluster.run(["scontrol", "release", f"{arr}_2"], check=True)
    cluster.wait_for(lambda: cluster.job_field(f"{arr}_2", "JobState") == "COMPLETED",
                     what="task 2 completed")
    st, doc = over_unix(cluster, "GET", f"{V44}/jobs/state?job_id={held},{arr}")
    assert st == 200
    got = {j["job_id"]: j["state"] for j in doc["jobs"]}
    assert got[str(held)] == ["PENDING"] and got[f"{arr}_2"] == ["COMPLETED"]
    assert f"{arr}_[0-1,3]" in got, got
    for q, code, errnum in (("job_id=abc", 400, 2071), ("job_id=999999", 404, 2017)):
        st, doc = over_unix(cluster, "GET", f"{V44}/jobs/state?{q}")
        assert st == code and doc["errors"][0]["error_number"] == errnum, (q, doc)
    cluster.run(["scancel", str(held), str(arr)], check=True)


def test_shares_match_sshare(cluster):
    st, doc = over_unix(cluster, "GET", V44 + "/shares")
    assert st == 200 and doc["errors"] == [], doc
    head_ok(doc, cluster)
    rows = [ln.split("|") for ln in cluster.run(
        ["sshare", "-a", "-P", "-n", "-o", "Account,User,RawShares,FairShare"],
        check=True).stdout.splitlines()]
    shares = doc["shares"]["shares"]
    assert len(shares) == len(rows) and rows
    for (acct, user, raw, fs), s in zip(rows, shares):
        assert s["name"] == (user or acct) and s["cluster"] == cluster.conf_value("ClusterName")
        assert s["type"] == (["USER"] if user else ["ASSOCIATION"])
        assert s["shares"]["set"] == (raw != "") and (not raw or s["shares"]["number"] == int(raw))
        if user:
            assert s["parent"] == acct
            assert abs(s["fairshare"]["factor"]["number"] - float(fs)) < 1e-6
    st, doc = over_unix(cluster, "GET", V44 + "/shares?users=nosuchuser")
    assert st == 200 and doc["shares"]["shares"] == []


def test_licenses_reservations_and_reconfigure(cluster):
    for p, key in (("licenses", "licenses"), ("reservations", "reservations")):
        st, doc = over_unix(cluster, "GET", f"{V44}/{p}")
        assert st == 200 and doc[key] == [] and doc["last_update"]["set"], doc
    st, doc = over_unix(cluster, "GET", V44 + "/reservation/nosuch")
    assert st == 404 and doc["errors"][0]["error"] == "Requested reservation is invalid"
    st, doc = over_unix(cluster, "GET", V44 + "/reconfigure")
    assert st == 200 and doc["errors"] == [], doc
    assert cluster.run(["scontrol", "ping"], check=True).returncode == 0


def test_post_nodes_updates_several(cluster):
    """POST nodes: v0.0.44_update_node_msg for the nodes in name (a list or a
    hostlist), as scontrol update does it."""
    def states():
        return dict(ln.split(None, 1) for ln in cluster.run(
            ["sinfo", "-h", "-N", "-o", "%N %T"], check=True).stdout.splitlines())

    st, doc = over_unix(cluster, "POST", V44 + "/nodes",
                        body={"name": ["node01", "node02"], "state": ["DRAIN"],
                              "reason": "rest44 maintenance"})
    assert st == 200 and doc["errors"] == [], doc
    s = states()
    assert s["node01"] == s["node02"] == "drained" and s["node03"] == "idle", s
    assert cluster.run(["sinfo", "-h", "-n", "node01", "-o", "%E"],
                       check=True).stdout.strip() == "rest44 maintenance"
    st, doc = over_unix(cluster, "POST", V44 + "/nodes",
                        body={"name": "node[01-02]", "state": ["RESUME"]})
    assert st == 200, doc
    cluster.wait_for(lambda: states()["node01"] == states()["node02"] == "idle",
                     what="resumed")
    st, doc = over_unix(cluster, "POST", V44 + "/nodes", body={"state": ["DRAIN"]})
    assert st == 400 and "name" in doc["errors"][0]["description"]
    st, doc = over_unix(cluster, "POST", V44 + "/nodes",
                        body={"name": ["nosuch"], "state": ["DRAIN"], "reason": "x"})
    assert st == 404 and doc["errors"][0]["error_number"] == 2018
    assert set(states().values()) == {"idle"}


@needs_root
def test_plain_user_cannot_reconfigure_or_drain(cluster, users):
    tb = token(cluster, f"username={users['b'].name}")
    st, doc = over_tcp(cluster, "GET", V44 + "/reconfigure", tb)
    assert st == 403 and doc["errors"][0]["error_number"] == ESLURM_ACCESS_DENIED, doc
    st, doc = over_tcp(cluster, "POST", V44 + "/nodes", tb,
                       body={"name": ["node01"], "state": ["DRAIN"], "reason": "x"})
    assert st == 403, doc
    assert "drain" not in cluster.run(["sinfo", "-h", "-n", "node01", "-o", "%T"],
                                      check=True).stdout
    st, doc = over_tcp(cluster, "GET", V44 + "/shares", tb)
    assert st == 200 and doc["shares"]["shares"], doc
