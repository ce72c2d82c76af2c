"""sacct --json: the records rotadbd holds, in Slurm 22.05's shape
({"meta", "errors", "jobs"}, data_parser v0.0.38: slurmrestd's dbv0.0.38_job)."""
import json
import time

import pytest



def sacct_json(c, *args):
    p = c.run(["sacct", "--json", *args])
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def wait_final(c, jobs, *args):
    """sacct --json -j JOBS until every job has ended; the document."""
    deadline = time.monotonic() + 30
    while True:
        d = sacct_json(c, "-j", ",".join(map(str, jobs)), *args)
        if len(d["jobs"]) == len(jobs) and all(j["time"]["end"] for j in d["jobs"]):
            return d
        assert time.monotonic() < deadline, d
        time.sleep(0.2)


def test_document_shape(cluster):
    c = cluster
    ok = c.sbatch("-n", "2", "-J", "fine", "--wrap", "true")
    bad = c.sbatch("-J", "broken", "--wrap", "exit 3")
    c.wait_job(ok)
    c.wait_job(bad)
    d = wait_final(c, [ok, bad])
    assert d["errors"] == []
    assert d["meta"]["plugin"]["type"] == "openapi/dbv0.0.38"
    assert d["meta"]["Slurm"]["version"]["major"] == 22
    assert d["meta"]["Slurm"]["release"].startswith("22.05.")
    jobs = {j["job_id"]: j for j in d["jobs"]}
    assert set(jobs) == {ok, bad}

    j = jobs[ok]
    assert j["name"] == "fine"
    assert j["state"] == {"current": "COMPLETED", "reason": "None"}
    assert j["exit_code"] == {"status": "SUCCESS", "return_code": 0}
    assert j["user"] == c.user and j["association"]["user"] == c.user
    assert j["cluster"] == c.conf_value("ClusterName") == j["association"]["cluster"]
    assert j["partition"] == j["association"]["partition"] == "debug"
    assert j["account"] == j["association"]["account"]
    assert j["allocation_nodes"] == 1 and j["nodes"].startswith("node")
    assert j["required"]["CPUs"] == 2
    t = j["time"]
    assert t["submission"] <= t["eligible"] <= t["start"] <= t["end"]
    assert t["elapsed"] == t["end"] - t["start"]
    assert {x["type"]: x["count"] for x in j["tres"]["allocated"]}["cpu"] == 2
    steps = {s["step"]["id"]: s for s in j["steps"]}
    assert set(steps) == {f"{ok}.batch", f"{ok}.extern"}
    assert steps[f"{ok}.batch"]["step"]["name"] == "batch"
    assert steps[f"{ok}.batch"]["step"]["job_id"] == ok
    assert steps[f"{ok}.batch"]["state"] == "COMPLETED"
    assert steps[f"{ok}.batch"]["nodes"]["count"] == 1

    j = jobs[bad]
    assert j["state"]["current"] == "FAILED"
    assert j["exit_code"] == {"status": "FAILED", "return_code": 3}
    batch = [s for s in j["steps"] if s["step"]["id"] == f"{bad}.batch"][0]
    assert batch["state"] == "FAILED"
    assert batch["exit_code"]["return_code"] == 3


def test_signal_cancel_and_steps(cluster):
    c = cluster
    killed = c.sbatch("--wrap", "kill -KILL $$")
    c.wait_job(killed)
    held = c.sbatch("-H", "--wrap", "true")
    c.run(["scancel", str(held)], check=True)
    run = c.run(["srun", "-n", "2", "true"])
    assert run.returncode == 0, run.stderr
    d = sacct_json(c, "-j", f"{killed},{held}")
    jobs = {j["job_id"]: j for j in d["jobs"]}
    assert jobs[held]["state"]["current"] == "CANCELLED"
    assert jobs[held]["kill_request_user"] == c.user
    assert jobs[held]["time"]["start"] == 0 and jobs[held]["steps"] == []
    batch = [s for s in jobs[killed]["steps"] if s["step"]["id"].endswith(".batch")][0]
    assert batch["exit_code"]["status"] == "SIGNALED"
    assert batch["exit_code"]["signal"] == {"signal_id": 9, "name": "SIGKILL"}
    # -X: the jobs without their steps
    d = sacct_json(c, "-X", "-j", str(killed))
    assert [j["steps"] for j in d["jobs"]] == [[]]


def test_json_agrees_with_columns(cluster):
    c = cluster
    jid = c.sbatch("-n", "3", "--wrap", "srun -n 3 true")
    c.wait_job(jid)
    d = wait_final(c, [jid])
    rows = c.run(["sacct", "-nP", "-j", str(jid), "-o", "JobIDRaw,State,ExitCode,NCPUS"])
    want = [line.split("|") for line in rows.stdout.splitlines()]
    (j,) = d["jobs"]
    got = [[str(j["job_id"]), j["state"]["current"],
            f'{j["exit_code"]["return_code"]}:0',
            str({x["type"]: x["count"] for x in j["tres"]["allocated"]}["cpu"])]]
    for s in j["steps"]:
        cpus = {x["type"]: x["count"] for x in s["tres"]["allocated"]}["cpu"]
        got.append([s["step"]["id"], s["state"], f'{s["exit_code"]["return_code"]}:0',
                    str(cpus)])
    assert got == want
