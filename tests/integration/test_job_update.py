"""scontrol update of jobs: arrays addressed whole ("123") or by task ("123_5",
"123_[3-4]"), Dependency=, StartTime=, Partition=, NumNodes=, NumTasks=,
Name=, Comment=, MailUser=, MailType=, node lists, Features=, MinMemoryNode=,
and Nice= by an
unprivileged user; what survives a controller restart."""
from conftest import write_script
from unixusers import as_user, needs_root

SLEEPER = "#!/bin/bash\nsleep 300\n"


def squeue(c, *args):
    p = c.run(["squeue", "-h", *args])
    assert p.returncode == 0, p.stderr
    return p.stdout.split("\n")[:-1]


def update(c, jobid, *kv):
    return c.run(["scontrol", "update", f"JobId={jobid}", *kv])


def ok(p):
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return p


def refused(p, message):
    assert p.returncode == 1
    assert p.stderr == f"slurm_update error: {message}\n"


def held(c, *args):
    return c.sbatch("--hold", "-o", "/dev/null", *args, "--wrap", "true")


# ---- arrays ----

def test_array_hold_release_whole_and_tasks(cluster):
    write_script(cluster.work / "s.sh", SLEEPER)
    a = cluster.sbatch("--array=0-7%2", "-o", "/dev/null", "s.sh", cwd=cluster.work)
    cluster.wait_for(lambda: len(squeue(cluster, "-t", "R", "-o", "%i")) == 2,
                     timeout=20, what="2 tasks running")

    # one task: split off the remainder and held alone
    ok(cluster.run(["scontrol", "hold", f"{a}_5"]))
    assert squeue(cluster, "-r", "-t", "PD", "-o", "%i %r") == [
        f"{a}_2 JobArrayTaskLimit", f"{a}_3 JobArrayTaskLimit",
        f"{a}_4 JobArrayTaskLimit", f"{a}_6 JobArrayTaskLimit",
        f"{a}_7 JobArrayTaskLimit", f"{a}_5 JobHeldAdmin"]
    # a range
    ok(cluster.run(["scontrol", "hold", f"{a}_[3-4]"]))
    rows = dict(r.split() for r in squeue(cluster, "-r", "-t", "PD", "-o", "%i %r"))
    assert [t for t in range(8) if rows.get(f"{a}_{t}") == "JobHeldAdmin"] == [3, 4, 5]

    # the whole array: every pending task, split off or not; running ones stay
    ok(cluster.run(["scontrol", "release", str(a)]))
    rows = dict(r.split() for r in squeue(cluster, "-r", "-t", "PD", "-o", "%i %r"))
    assert len(rows) == 6 and "JobHeldAdmin" not in rows.values()
    ok(cluster.run(["scontrol", "hold", str(a)]))
    rows = dict(r.split() for r in squeue(cluster, "-r", "-t", "PD", "-o", "%i %r"))
    assert len(rows) == 6 and set(rows.values()) == {"JobHeldAdmin"}
    assert len(squeue(cluster, "-t", "R", "-o", "%i")) == 2
    ok(cluster.run(["scontrol", "uhold", str(a)]))
    rows = dict(r.split() for r in squeue(cluster, "-r", "-t", "PD", "-o", "%i %r"))
    assert set(rows.values()) == {"JobHeldUser"}

    # update of the whole array reaches running, split and pending tasks
    ok(update(cluster, a, "TimeLimit=7"))
    limits = squeue(cluster, "-r", "-o", "%i %l")
    assert len(limits) == 8 and all(r.endswith(" 7:00") for r in limits), limits
    # one task only
    ok(update(cluster, f"{a}_6", "TimeLimit=3"))
    limits = dict(r.split() for r in squeue(cluster, "-r", "-o", "%i %l"))
    assert limits[f"{a}_6"] == "3:00"
    assert limits[f"{a}_7"] == "7:00" and limits[f"{a}_0"] == "7:00"
    ok(update(cluster, a, "Priority=1234"))
    prios = squeue(cluster, "-r", "-t", "PD", "-o", "%Q")
    assert prios == ["1234"] * 6
    ok(update(cluster, a, "Comment=whole"))
    assert squeue(cluster, "-r", "-o", "%k") == ["whole"] * 8

    # unknown tasks and jobs
    p = cluster.run(["scontrol", "hold", f"{a}_99"])
    assert p.returncode == 1
    assert p.stderr == f"Invalid job id specified for job {a}_99\n"
    p = cluster.run(["scontrol", "hold", "12x"])
    assert p.returncode == 1
    assert p.stderr == "Invalid job id specified for job 12x\n"


def test_array_requeue_whole(cluster):
    a = cluster.sbatch("--array=0-2", "-o", "/dev/null", "--wrap", "true")
    cluster.wait_for(
        lambda: squeue(cluster, "-r", "-j", str(a), "-t", "all", "-o", "%T")
        == ["COMPLETED"] * 3, timeout=30, what="the array to complete")
    ok(cluster.run(["scontrol", "requeue", str(a)]))

    def restarted():
        p = cluster.run(["scontrol", "show", "job", str(a)])
        return p.stdout.count("Restarts=1 ") == 3
    cluster.wait_for(restarted, what="3 tasks requeued")
    cluster.wait_for(
        lambda: squeue(cluster, "-r", "-j", str(a), "-t", "all", "-o", "%T")
        == ["COMPLETED"] * 3, timeout=90, what="the requeued array to complete again")


# ---- Dependency ----

def test_dependency_update(cluster):
    a = held(cluster)
    b = held(cluster)
    ok(update(cluster, b, f"Dependency=afterok:{a}"))
    assert cluster.job_field(b, "Dependency") == f"afterok:{a}(unfulfilled)"
    ok(cluster.run(["scontrol", "release", str(b)]))
    cluster.wait_for(lambda: cluster.job_field(b, "Reason") == "Dependency",
                     what="b waiting on its dependency")
    # refused like at submit; the old one stays
    refused(update(cluster, b, "Dependency=afterok:999999"), "Job dependency problem")
    refused(update(cluster, b, "Dependency=bogus:1"), "Job dependency problem")
    refused(update(cluster, b, f"Dependency=afterok:{b}"), "Job dependency problem")
    assert cluster.job_field(b, "Dependency") == f"afterok:{a}(unfulfilled)"
    # cleared: b runs
    ok(update(cluster, b, "Dependency="))
    assert cluster.job_field(b, "Dependency") == "(null)"
    assert cluster.wait_job(b) == "COMPLETED"


def test_dependency_of_running_job_refused(cluster):
    write_script(cluster.work / "s.sh", SLEEPER)
    r = cluster.sbatch("-o", "/dev/null", "s.sh", cwd=cluster.work)
    a = held(cluster)
    cluster.wait_running(r)
    refused(update(cluster, r, f"Dependency=afterok:{a}"),
            "Job is no longer pending execution")


def test_dependency_survives_restart(fresh_cluster):
    c = fresh_cluster
    a = held(c)
    b = held(c, "-J", "before")
    ok(update(c, b, f"Dependency=afterany:{a}", "Name=after", "Comment=kept",
              "NumNodes=2", "StartTime=now"))
    c.down()
    c.up()
    assert c.job_field(b, "Dependency") == f"afterany:{a}(unfulfilled)"
    assert c.job_field(b, "JobName") == "after"
    assert c.job_field(b, "Comment") == "kept"
    assert c.job_field(b, "NumNodes") == "2"
    ok(c.run(["scontrol", "release", str(b)]))
    c.wait_for(lambda: c.job_field(b, "Reason") == "Dependency",
               what="b waiting on a after the restart")
    ok(c.run(["scancel", str(a)]))
    assert c.wait_job(b) == "COMPLETED"


# ---- StartTime, Partition, sizes, names, node lists ----

def test_start_time(cluster):
    j = cluster.sbatch("--begin=now+1hour", "-o", "/dev/null", "--wrap", "true")
    assert cluster.job_field(j, "Reason") == "BeginTime"
    ok(update(cluster, j, "StartTime=2030-01-02T03:04:05"))
    assert cluster.job_field(j, "EligibleTime") == "2030-01-02T03:04:05"
    p = update(cluster, j, "StartTime=bogus")
    assert p.returncode == 1
    assert p.stderr == "Invalid input: StartTime=bogus\nRequest aborted\n"
    ok(update(cluster, j, "StartTime=now"))
    assert cluster.wait_job(j) == "COMPLETED"
    k = held(cluster)
    ok(update(cluster, k, "StartTime=now+2hours"))
    ok(cluster.run(["scontrol", "release", str(k)]))
    cluster.wait_for(lambda: cluster.job_field(k, "Reason") == "BeginTime",
                     what="k waiting for its start time")


def test_partition_and_node_count(make_cluster):
    c = make_cluster()
    c.down()
    with open(c.conf_path, "a") as f:
        f.write("PartitionName=small Nodes=node[01-02] MaxTime=30\n")
    c.up()
    j = held(c, "-N", "3")
    refused(update(c, j, "Partition=small"), "Node count specification invalid")
    refused(update(c, j, "Partition=nope"), "Invalid partition name specified")
    assert c.job_field(j, "Partition") == "debug"
    ok(update(c, j, "NumNodes=2", "Partition=small"))
    assert c.job_field(j, "Partition") == "small"
    assert c.job_field(j, "NumNodes") == "2"
    # its time limit (the default partition's) is over small's MaxTime
    ok(c.run(["scontrol", "release", str(j)]))
    c.wait_for(lambda: c.job_field(j, "Reason") == "PartitionTimeLimit",
               what="the job to wait for a shorter time limit")
    ok(c.run(["scontrol", "hold", str(j)]))
    ok(update(c, j, "TimeLimit=20"))
    refused(update(c, j, "NumNodes=3"), "Node count specification invalid")
    refused(update(c, j, "NumNodes=0"), "Node count specification invalid")
    ok(update(c, j, "NumNodes=1", "NumTasks=4"))
    assert c.job_field(j, "NumTasks") == "4"
    ok(c.run(["scontrol", "release", str(j)]))
    assert c.wait_job(j) == "COMPLETED"
    assert c.job_field(j, "NodeList") in ("node01", "node02")

    # a running job keeps its partition; it may shrink (test_resize.py), not
    # grow (Slurm 22.05: "Change of size ... not supported")
    write_script(c.work / "s.sh", SLEEPER)
    r = c.sbatch("-o", "/dev/null", "s.sh", cwd=c.work)
    c.wait_running(r)
    refused(update(c, r, "Partition=small"), "Job is no longer pending execution")
    refused(update(c, r, "NumNodes=2"), "Requested operation not supported on this system")
    refused(update(c, r, "StartTime=now"), "Job is no longer pending execution")


def test_names_nodes_memory(cluster):
    j = held(cluster)
    ok(update(cluster, j, "Name=renamed", "Comment=some words"))
    assert squeue(cluster, "-j", str(j), "-o", "%j|%k") == ["renamed|some words"]
    refused(update(cluster, j, "ReqNodeList=nodeX"), "Invalid node name specified")
    refused(update(cluster, j, "ExcNodeList=nodeX"), "Invalid node name specified")
    # no node has the feature: refused as at submit
    refused(update(cluster, j, "Features=fast"), "Invalid feature specification")
    ok(update(cluster, j, "ReqNodeList=node03", "ExcNodeList=node01",
              "MinMemoryNode=1000"))
    assert cluster.job_field(j, "ReqNodeList") == "node03"
    assert cluster.job_field(j, "ExcNodeList") == "node01"
    assert cluster.job_field(j, "MinMemoryNode") == "1000M"
    refused(update(cluster, j, "MinMemoryNode=999999"),
            "Requested node configuration is not available")
    ok(update(cluster, j, "Features="))
    assert cluster.job_field(j, "Features") == "(null)"
    ok(cluster.run(["scontrol", "release", str(j)]))
    assert cluster.wait_job(j) == "COMPLETED"
    assert cluster.job_field(j, "NodeList") == "node03"

    # a running job may be renamed, not moved (its node list may only keep
    # some of its nodes: test_resize.py)
    write_script(cluster.work / "s.sh", SLEEPER)
    r = cluster.sbatch("-o", "/dev/null", "s.sh", cwd=cluster.work)
    cluster.wait_running(r)
    ok(update(cluster, r, "Name=running-renamed"))
    assert cluster.job_field(r, "JobName") == "running-renamed"
    mine = cluster.job_field(r, "NodeList")
    other = "node02" if mine != "node02" else "node01"
    refused(update(cluster, r, f"ReqNodeList={other}"),
            "Invalid node name specified")
    ok(update(cluster, r, f"ReqNodeList={mine}"))
    assert cluster.job_field(r, "NodeList") == mine
    refused(update(cluster, r, "Bogus=1"),
            "Requested operation not supported on this system")


# ---- who may ----

@needs_root
def test_mail_user_and_type(cluster):
    """MailUser=, MailType= (Slurm's test2.27), with the "job N Tag Value"
    form scontrol also takes."""
    import getpass
    me = getpass.getuser()

    def mail():
        text = cluster.run(["scontrol", "show", "job", str(j)]).stdout
        line = [x.strip() for x in text.splitlines() if "MailUser=" in x]
        return line[0] if line else None

    j = held(cluster)
    assert mail() is None
    ok(cluster.run(["scontrol", "update", "job", str(j), "mailuser=blah",
                    "mailtype=begin"]))
    assert mail() == "MailUser=blah MailType=BEGIN"
    ok(update(cluster, j, "mailuser=", "mailtype=begin,end"))
    assert mail() == f"MailUser={me} MailType=BEGIN,END"
    ok(update(cluster, j, "MailUser=blah", "MailType=NONE"))
    assert mail() is None  # no mails: no line
    ok(cluster.run(["scontrol", "update", "JobId", str(j), "MailType", "END"]))
    assert mail() == "MailUser=blah MailType=END"
    p = update(cluster, j, "MailType=bogus")
    assert p.returncode == 1 and p.stderr == "Invalid MailType: bogus\n"
    assert mail() == "MailUser=blah MailType=END"
    cluster.run(["scancel", str(j)])


def test_unprivileged_nice_and_owner(ucluster, users):
    c, a, b = ucluster, users["a"], users["b"]
    p = as_user(c, a, "sbatch --nice=-10 -o /dev/null --wrap true")
    assert p.returncode == 1
    assert p.stderr == ("sbatch: error: Batch job submission failed: "
                        "Access/permission denied\n")
    p = as_user(c, a, "sbatch --parsable -H --nice=10 -o /dev/null --wrap true")
    assert p.returncode == 0, p.stderr
    j = int(p.stdout.strip())
    assert c.job_field(j, "Nice") == "10"

    p = as_user(c, a, f"scontrol update JobId={j} Nice=-10")
    assert p.returncode == 1
    assert p.stderr == "slurm_update error: Access/permission denied\n"
    assert c.job_field(j, "Nice") == "10"
    p = as_user(c, a, f"scontrol update JobId={j} Nice=20 Comment=mine")
    assert p.returncode == 0, p.stderr
    assert c.job_field(j, "Nice") == "20"
    ok(update(c, j, "Nice=-5"))  # an operator may
    assert c.job_field(j, "Nice") == "-5"

    # only the owner (or an operator) changes a job's dependency
    other = held(c)
    p = as_user(c, b, f"scontrol update JobId={j} Dependency=afterok:{other}")
    assert p.returncode == 1
    assert p.stderr == "slurm_update error: Access/permission denied\n"
    p = as_user(c, a, f"scontrol update JobId={j} Dependency=afterok:{other}")
    assert p.returncode == 0, p.stderr
    assert c.job_field(j, "Dependency") == f"afterok:{other}(unfulfilled)"


def test_update_by_job_name_and_user(cluster):
    """Without JobId=, JobName= picks the jobs of that name (of UserID= only,
    when given) and is kept as their name; none found is an error in Slurm's
    words (its test3.13)."""
    c = cluster
    a = c.sbatch("-H", "-J", "ju_named", "--wrap", "true")
    b = c.sbatch("-H", "-J", "ju_named", "--wrap", "true")
    other = c.sbatch("-H", "-J", "ju_other", "--wrap", "true")
    try:
        p = c.run(["scontrol", "update", "JobName=ju_named", "UserID=1",
                   "TimeLimit=7"])
        assert p.returncode == 1
        assert p.stderr == ("scontrol: error: No jobs with user ID 1 and name "
                            "'ju_named'\n")
        p = c.run(["scontrol", "update", "JobName=ju_nosuch", "TimeLimit=7"])
        assert p.returncode == 1
        assert p.stderr == "scontrol: error: No jobs with name 'ju_nosuch'\n"
        ok(c.run(["scontrol", "update", "JobName=ju_named", "UserID=root",
                  "TimeLimit=7"]))
        limits = {j: c.job_field(j, "TimeLimit") for j in (a, b, other)}
        assert limits == {a: "00:07:00", b: "00:07:00",
                          other: c.job_field(other, "TimeLimit")}
        assert limits[other] != "00:07:00"
        p = c.run(["scontrol", "update", "UserID=root", "TimeLimit=7"])
        assert p.returncode == 1 and "No valid entity" in p.stderr
    finally:
        c.run(["scancel", str(a), str(b), str(other)])
