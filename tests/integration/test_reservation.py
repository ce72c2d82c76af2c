"""Advanced reservations (scontrol create|update|delete|show reservation,
sinfo -T, --reservation): Slurm 22.05's words and layouts, nodes shown
maint/resv, jobs outside kept off reserved nodes (reason ReqNodeNotAvail,
Reserved for maintenance) and planned after them, jobs inside confined to
them and ended with them, repeats and ends, and the table kept through a
compaction and a restart."""

import os
import time
from datetime import datetime

import pytest

from test_rest import over_unix
from unixusers import as_user

V44 = "/slurm/v0.0.44"


@pytest.fixture(autouse=True)
def no_resvs(cluster):
    """Each test starts and ends without reservations."""
    yield
    cluster.cancel_all()  # a reservation in use is not deleted
    for name in resv_names(cluster):
        cluster.run(["scontrol", "delete", f"ReservationName={name}"])


def resv_names(cluster):
    out = cluster.run(["scontrol", "-o", "show", "reservation"], check=True).stdout
    return [ln.split()[0].split("=", 1)[1] for ln in out.splitlines()
            if ln.startswith("ReservationName=")]


def show_resv(cluster, name):
    """Its scontrol -o show fields, a dict."""
    out = cluster.run(["scontrol", "-o", "show", "reservation", name],
                      check=True).stdout
    assert out.startswith("ReservationName="), out
    return dict(w.split("=", 1) for w in out.split())


def create(cluster, *args):
    p = cluster.run(["scontrol", "create", "reservation", *args])
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("Reservation created: "), p.stdout
    return p.stdout.split(": ", 1)[1].strip()


def refused(cluster, args, err, rc=1):
    p = cluster.run(["scontrol", *args])
    assert p.returncode == rc and p.stderr == err, (p.returncode, p.stderr)
    assert p.stdout == ""


def node_states(cluster):
    out = cluster.run(["sinfo", "-h", "-N", "-o", "%N %t"], check=True).stdout
    return dict(ln.split() for ln in out.splitlines())


def iso(t):
    return datetime.fromtimestamp(t).strftime("%Y-%m-%dT%H:%M:%S")


def test_create_show_delete_in_slurms_layout(cluster):
    assert cluster.run(["scontrol", "show", "res"], check=True).stdout == \
        "No reservations in the system\n"
    assert cluster.run(["sinfo", "-T"], check=True).stdout == \
        "No reservations in the system\n"
    name = create(cluster, "ReservationName=maint_a", "StartTime=now+1hour",
                  "Duration=2:00:00", "Nodes=node[01-02]", "Users=root",
                  "Flags=MAINT,IGNORE_JOBS")
    assert name == "maint_a"
    f = show_resv(cluster, name)
    start = datetime.strptime(f["StartTime"], "%Y-%m-%dT%H:%M:%S").timestamp()
    assert abs(start - (time.time() + 3600)) < 30
    assert f["EndTime"] == iso(start + 7200)
    out = cluster.run(["scontrol", "show", "reservation", name], check=True).stdout
    assert out == (
        f"ReservationName=maint_a StartTime={f['StartTime']} EndTime={f['EndTime']} "
        "Duration=02:00:00\n"
        "   Nodes=node[01-02] NodeCnt=2 CoreCnt=16 Features=(null) "
        "PartitionName=(null) Flags=MAINT,IGNORE_JOBS,SPEC_NODES\n"
        "   TRES=cpu=16\n"
        "   Users=root Groups=(null) Accounts=(null) Licenses=(null) State=INACTIVE "
        "BurstBuffer=(null) Watts=n/a\n"
        "   MaxStartDelay=(null)\n\n")
    assert cluster.run(["sinfo", "-T"], check=True).stdout == (
        "RESV_NAME     STATE           START_TIME             END_TIME     DURATION  NODELIST\n"
        f"maint_a    INACTIVE  {f['StartTime']}  {f['EndTime']}     02:00:00  node[01-02]\n")
    # a name is made when none is given: the first user's, numbered
    assert create(cluster, "StartTime=now+3hours", "Duration=10", "NodeCnt=1",
                  "Users=root,nobody") == "root_1"
    assert show_resv(cluster, "root_1")["PartitionName"] == "debug"
    assert show_resv(cluster, "root_1")["Nodes"] == "node01"
    p = cluster.run(["scontrol", "show", "res", "nothere"])  # an error (Slurm's)
    assert (p.returncode, p.stdout) == (1, "Reservation nothere not found\n")
    p = cluster.run(["scontrol", "delete", "ReservationName=maint_a"])
    assert p.returncode == 0 and p.stdout == "" and p.stderr == ""
    p = cluster.run(["scontrol", "delete", "reservation", "root_1"])
    assert p.returncode == 0, p.stderr
    assert resv_names(cluster) == []
    refused(cluster, ["delete", "ReservationName=maint_a"],
            "delete_reservation ReservationName=maint_a: "
            "Requested reservation is invalid\n")


def test_bad_requests_are_refused_in_slurms_words(ucluster, users):
    cluster = ucluster
    msg = "No reservation created."
    refused(cluster, ["create", "res", "Duration=10", "Nodes=node01", "Users=root"],
            f"scontrol: error: A start time must be given.  {msg}\n")
    refused(cluster, ["create", "res", "StartTime=now", "Nodes=node01", "Users=root"],
            f"scontrol: error: An end time or duration must be given.  {msg}\n")
    refused(cluster, ["create", "res", "StartTime=now", "Duration=10", "Nodes=node01"],
            "scontrol: error: Either Users/Groups and/or Accounts must be "
            f"specified.  {msg}\n")
    refused(cluster, ["create", "res", "StartTime=now", "Duration=10", "Users=root"],
            "scontrol: error: CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or "
            f"Watts must be specified.  {msg}\n")
    refused(cluster, ["create", "res", "StartTime=now", "Duration=10", "Users=root",
                      "Nodes=node01", "Flags=MAINT,BOGUS"],
            f"scontrol: error: Error parsing flags MAINT,BOGUS.  {msg}\n")
    refused(cluster, ["create", "res", "StartTime=now", "Duration=10", "Users=root",
                      "Nodes=node01", "Colour=blue"],
            f"scontrol: error: Unknown parameter Colour=blue.  {msg}\n")
    refused(cluster, ["create", "res", "StartTime=now", "Duration=10", "Users=root",
                      "Nodes=node99"],
            "Error creating the reservation: Invalid node name specified\n")
    refused(cluster, ["create", "res", "StartTime=now", "Duration=10",
                      "Users=no_such_user_x", "Nodes=node01"],
            "Error creating the reservation: Invalid user id\n")
    refused(cluster, ["create", "res", "StartTime=now", "Duration=10", "Users=root",
                      "NodeCnt=9"],
            "Error creating the reservation: Node count specification invalid\n")
    # an operator's command: a plain user is refused, nothing made
    p = as_user(cluster, users["a"], "scontrol create res StartTime=now Duration=10 "
                "Nodes=node01 Users=root")
    assert p.returncode == 1
    assert p.stderr == "Error creating the reservation: Access/permission denied\n"
    assert resv_names(cluster) == []
    # a name taken; nodes of another reservation (without OVERLAP)
    create(cluster, "ReservationName=r1", "StartTime=now", "Duration=30",
           "Nodes=node01", "Users=root")
    refused(cluster, ["create", "res", "ReservationName=r1", "StartTime=now+2hours",
                      "Duration=10", "Nodes=node02", "Users=root"],
            "Error creating the reservation: Duplicate reservation name\n")
    refused(cluster, ["create", "res", "StartTime=now+10minutes", "Duration=60",
                      "Nodes=node[01-02]", "Users=root"],
            "Error creating the reservation: Requested reservation overlaps with "
            "another reservation\n")
    create(cluster, "ReservationName=r2", "StartTime=now+10minutes", "Duration=60",
           "Nodes=node[01-02]", "Users=root", "Flags=OVERLAP")
    assert sorted(resv_names(cluster)) == ["r1", "r2"]


def test_busy_nodes_need_ignore_jobs(cluster):
    j = cluster.sbatch("-w", "node03", "-t", "30", "-o", "/dev/null", "--wrap",
                       "sleep 300")
    cluster.wait_running(j)
    p = cluster.run(["scontrol", "create", "res", "StartTime=now", "Duration=60",
                     "Nodes=node03", "Users=root"])
    assert p.returncode == 1
    assert p.stderr == "Error creating the reservation: Requested nodes are busy\n"
    # after the job's limit it is free; and IGNORE_JOBS takes it now
    create(cluster, "ReservationName=later", "StartTime=now+31minutes", "Duration=5",
           "Nodes=node03", "Users=root")
    create(cluster, "ReservationName=now", "StartTime=now", "Duration=5",
           "Nodes=node03", "Users=root", "Flags=IGNORE_JOBS,OVERLAP")
    # a node count skips the busy node
    assert show_resv(cluster, create(cluster, "StartTime=now", "Duration=5",
                                     "NodeCnt=3", "Users=root",
                                     "Flags=OVERLAP"))["Nodes"] == "node[01-02,04]"


def test_maintenance_keeps_jobs_off_and_shows_on_nodes(cluster):
    create(cluster, "ReservationName=m", "StartTime=now", "Duration=60",
           "Nodes=ALL", "Users=root", "Flags=MAINT")
    assert set(node_states(cluster).values()) == {"maint"}
    state = cluster.run(["scontrol", "show", "node", "node01"], check=True).stdout
    assert " State=IDLE+MAINTENANCE+RESERVED " in state
    j = cluster.sbatch("-o", "/dev/null", "--wrap", "true")
    cluster.wait_for(lambda: cluster.run(["squeue", "-h", "-j", str(j), "-o", "%r"],
                                         check=True).stdout.strip()
                     == "ReqNodeNotAvail, Reserved for maintenance",
                     what="the maintenance reason")
    assert cluster.job_state(j) == "PENDING"
    out = cluster.run(["squeue", "-j", str(j)], check=True).stdout
    assert "(ReqNodeNotAvail, Reserved for maintenance)" in out
    cluster.run(["scontrol", "delete", "res=m"], check=True)
    cluster.wait_job(j)
    assert cluster.job_state(j) == "COMPLETED"
    assert set(node_states(cluster).values()) == {"idle"}


def test_jobs_in_a_reservation_run_on_its_nodes_and_end_with_it(ucluster, users):
    cluster = ucluster
    create(cluster, "ReservationName=team", "StartTime=now", "Duration=20",
           "Nodes=node04", "Users=root," + users["a"].name)
    assert node_states(cluster)["node04"] == "resv"
    assert node_states(cluster)["node01"] == "idle"
    out = os.path.join(str(cluster.work), "env.out")
    j = cluster.sbatch("--reservation=team", "-t", "60", "-o", out, "--wrap",
                       "echo resv=$SLURM_JOB_RESERVATION; sleep 300")
    cluster.wait_running(j)
    cluster.wait_for(lambda: os.path.exists(out) and open(out).read(),
                     what="the job's output")
    assert open(out).read() == "resv=team\n"
    assert cluster.job_field(j, "NodeList") == "node04"
    assert cluster.job_field(j, "Reservation") == "team"
    # its limit ends with the reservation's 20 minutes
    assert cluster.job_field(j, "TimeLimit") == "00:20:00"
    rows = cluster.run(["squeue", "-h", "-o", "%i %v"], check=True).stdout.split()
    assert rows == [str(j), "team"]
    # REST: the listing and the one by name, as scontrol shows them
    st, doc = over_unix(cluster, "GET", V44 + "/reservations")
    assert st == 200 and doc["errors"] == [], doc
    (r,) = doc["reservations"]
    f = show_resv(cluster, "team")
    assert (r["name"], r["node_list"], r["node_count"], r["users"]) == \
        ("team", "node04", 1, f["Users"])
    assert r["flags"] == ["SPEC_NODES"] and r["core_count"] == 8
    assert iso(r["start_time"]["number"]) == f["StartTime"]
    assert iso(r["end_time"]["number"]) == f["EndTime"]
    st, doc = over_unix(cluster, "GET", V44 + "/reservation/team")
    assert st == 200 and [x["name"] for x in doc["reservations"]] == ["team"]
    st, doc = over_unix(cluster, "GET", V44 + "/reservation/nothere")
    assert st == 404 and doc["errors"][0]["error"] == "Requested reservation is invalid"
    assert doc["errors"][0]["error_number"] == 2053
    # accounting keeps it (sacct Reservation)
    cluster.wait_for(lambda: cluster.run(
        ["sacct", "-n", "-X", "-P", "-j", str(j), "-o", "Reservation"]).stdout.strip()
        == "team", what="sacct's Reservation")
    # the same as the user it names; SBATCH_RESERVATION too
    p = as_user(cluster, users["a"], "sbatch --parsable -o /dev/null --wrap true",
                env={"SBATCH_RESERVATION": "team"})
    assert p.returncode == 0, p.stderr
    ja = int(p.stdout)
    cluster.wait_job(ja)
    assert cluster.job_field(ja, "NodeList") == "node04"
    # not for others, not one that is not there
    p = as_user(cluster, users["b"], "sbatch --reservation=team --wrap true")
    assert p.returncode == 1
    assert "Access denied to requested reservation" in p.stderr
    p = cluster.run(["sbatch", "--reservation=nothere", "--wrap", "true"])
    assert p.returncode == 1
    assert "Requested reservation is invalid" in p.stderr
    # a job outside it may not use node04 even when asked for
    k = cluster.sbatch("-w", "node04", "-o", "/dev/null", "--wrap", "true")
    cluster.wait_for(lambda: "ReqNodeNotAvail" in cluster.job_field(k, "Reason"),
                     what="the outside job waiting")
    assert cluster.job_state(k) == "PENDING"
    # in use: not deleted
    refused(cluster, ["delete", "ReservationName=team"],
            "delete_reservation ReservationName=team: "
            "Requested reservation is in use\n")


def test_a_future_reservation_is_planned_around(cluster):
    create(cluster, "ReservationName=soon", "StartTime=now+10minutes", "Duration=60",
           "Nodes=ALL", "Users=root", "Flags=MAINT")
    short = cluster.sbatch("-t", "5", "-o", "/dev/null", "--wrap", "sleep 300")
    # with --time-min it runs now too, its limit cut to end before it
    shrunk = cluster.sbatch("-t", "30", "--time-min=5", "-o", "/dev/null", "--wrap",
                            "sleep 300")
    long = cluster.sbatch("-t", "30", "-o", "/dev/null", "--wrap", "true")
    inside = cluster.sbatch("--reservation=soon", "-o", "/dev/null", "--wrap", "true")
    # the short job ends before it: it runs now; the long one would not
    cluster.wait_running(short)
    cluster.wait_running(shrunk)
    assert cluster.job_field(shrunk, "TimeLimit") in ("00:09:00", "00:10:00")
    cluster.wait_for(lambda: cluster.job_field(long, "Reason")
                     == "ReqNodeNotAvail,_Reserved_for_maintenance",
                     what="the long job's reason")
    cluster.wait_for(lambda: cluster.job_field(inside, "Reason") == "Reservation",
                     what="the inside job waiting for its reservation")
    assert cluster.run(["squeue", "--start", "-h", "-j", str(inside), "-o", "%S"],
                       check=True).stdout.strip() == show_resv(cluster, "soon")["StartTime"]
    # backfill plans the long job after the reservation's end
    end = datetime.strptime(show_resv(cluster, "soon")["EndTime"],
                            "%Y-%m-%dT%H:%M:%S").timestamp()

    def planned():
        out = cluster.run(["squeue", "--start", "-h", "-j", str(long), "-o", "%S"],
                          check=True).stdout.strip()
        return out not in ("", "N/A") and out
    # a backfill pass runs every bf_interval (30 s): the plan may take that
    start = cluster.wait_for(planned, timeout=75, what="an expected start")
    assert datetime.strptime(start, "%Y-%m-%dT%H:%M:%S").timestamp() >= end - 1


def test_update_changes_what_was_asked(cluster):
    create(cluster, "ReservationName=u", "StartTime=now+1hour", "Duration=60",
           "Nodes=node01", "Users=root", "Flags=DAILY")
    p = cluster.run(["scontrol", "update", "ReservationName=u", "Duration=90",
                     "Users+=nobody", "Flags-=DAILY", "Flags+=WEEKLY,MAINT",
                     "Nodes=node[01-02]"])
    assert p.returncode == 0 and p.stdout == "Reservation updated.\n", p.stderr
    f = show_resv(cluster, "u")
    assert f["Duration"] == "01:30:00"
    assert f["Users"] == "root,nobody"
    assert f["Flags"] == "MAINT,WEEKLY,SPEC_NODES"
    assert f["Nodes"] == "node[01-02]" and f["NodeCnt"] == "2"
    cluster.run(["scontrol", "update", "res=u", "Users-=root"], check=True)
    assert show_resv(cluster, "u")["Users"] == "nobody"
    refused(cluster, ["update", "ReservationName=nothere", "Duration=5"],
            "Error updating the reservation: Requested reservation is invalid\n")
    refused(cluster, ["update", "ReservationName=u", "Nodes+=node03"],
            "scontrol: error: The +=/-= notation is not supported when updating "
            "Nodes.  No reservation update.\n")


def test_an_ended_reservation_goes_and_a_daily_one_moves_on(cluster):
    create(cluster, "ReservationName=once", "StartTime=now", "EndTime=now+3",
           "Nodes=node01", "Users=root")
    create(cluster, "ReservationName=daily", "StartTime=now", "EndTime=now+3",
           "Nodes=node02", "Users=root", "Flags=DAILY")
    first = show_resv(cluster, "daily")
    t0 = datetime.strptime(first["StartTime"], "%Y-%m-%dT%H:%M:%S")
    cluster.wait_for(lambda: "once" not in resv_names(cluster), timeout=15,
                     what="the ended reservation deleted")
    cluster.wait_for(lambda: show_resv(cluster, "daily")["StartTime"]
                     != first["StartTime"], timeout=15, what="the daily one moved")
    f = show_resv(cluster, "daily")
    t1 = datetime.strptime(f["StartTime"], "%Y-%m-%dT%H:%M:%S")
    assert (t1 - t0).total_seconds() in (86400, 82800, 90000)  # a day (DST)
    # "now" of StartTime is the controller's and that of EndTime=now+3 the
    # command's: a second may pass between them, so the length is the first's
    assert first["Duration"] in ("00:00:02", "00:00:03")
    assert f["State"] == "INACTIVE" and f["Duration"] == first["Duration"]
    assert node_states(cluster)["node02"] == "idle"


def test_reservations_survive_compaction_and_restart(cluster):
    create(cluster, "ReservationName=keep", "StartTime=now+1hour", "Duration=60",
           "Nodes=node[02-03]", "Accounts=root", "Flags=MAINT,PURGE_COMP=5:00")
    create(cluster, "ReservationName=gone", "StartTime=now+2hour", "Duration=60",
           "Nodes=node01", "Users=root")
    cluster.run(["scontrol", "delete", "ReservationName=gone"], check=True)
    before = cluster.run(["scontrol", "-o", "show", "res"], check=True).stdout
    assert "PURGE_COMP=00:05:00" in before and "Accounts=root" in before
    cluster.compact_journal()
    cluster.kill_daemon("rotactld")
    cluster.up()
    assert cluster.run(["scontrol", "-o", "show", "res"], check=True).stdout == before
    cluster.down()
    cluster.up()
    assert cluster.run(["scontrol", "-o", "show", "res"], check=True).stdout == before


def test_core_reservations_hold_cpus_not_nodes(cluster):
    create(cluster, "ReservationName=cores", "StartTime=now", "Duration=30",
           "CoreCnt=6", "PartitionName=debug", "Users=root")
    f = show_resv(cluster, "cores")
    assert (f["Nodes"], f["NodeCnt"], f["CoreCnt"], f["TRES"]) == \
        ("node01", "1", "6", "cpu=6")
    # a list: so many on each node named
    create(cluster, "ReservationName=pair", "StartTime=now", "Duration=30",
           "CoreCnt=2,4", "Nodes=node[03-04]", "Users=root")
    assert show_resv(cluster, "pair")["CoreCnt"] == "6"
    # the node is not reserved whole: the others may use its two free CPUs
    assert node_states(cluster)["node01"] == "idle"
    two = cluster.sbatch("-w", "node01", "-N1", "-n", "2", "-o", "/dev/null",
                         "--wrap", "sleep 300")
    cluster.wait_running(two)
    out = cluster.sbatch("-w", "node01", "-N1", "-n", "1", "-o", "/dev/null",
                         "--wrap", "sleep 300")
    inside = cluster.sbatch("--reservation=cores", "-n", "6", "-o", "/dev/null",
                            "--wrap", "sleep 300")
    more = cluster.sbatch("--reservation=cores", "-n", "1", "-o", "/dev/null",
                          "--wrap", "sleep 300")
    cluster.wait_running(two)
    cluster.wait_running(inside)
    assert cluster.job_field(inside, "NodeList") == "node01"
    cluster.wait_for(lambda: cluster.job_field(more, "Reason") == "Resources",
                     what="the reservation full")
    assert cluster.job_state(out) == "PENDING"
    assert cluster.job_state(more) == "PENDING"
    refused(cluster, ["update", "ReservationName=cores", "CoreCnt=4"],
            "Error updating the reservation: Core-based reservation can not be "
            "updated\n")
    refused(cluster, ["create", "res", "StartTime=now", "Duration=5", "CoreCnt=9",
                      "Nodes=node02", "Users=root"],
            "Error creating the reservation: CPU count specification invalid\n")


def test_a_pending_job_is_moved_into_a_reservation(ucluster, users):
    cluster = ucluster
    create(cluster, "ReservationName=later", "StartTime=now+1hour", "Duration=30",
           "Nodes=node02", "Users=root")
    j = cluster.sbatch("-H", "-o", "/dev/null", "--wrap", "true")
    p = cluster.run(["scontrol", "update", f"JobId={j}", "Reservation=later"])
    assert p.returncode == 0, p.stderr
    assert cluster.job_field(j, "Reservation") == "later"
    cluster.run(["scontrol", "release", str(j)], check=True)
    cluster.wait_for(lambda: cluster.job_field(j, "Reason") == "Reservation",
                     what="the job waiting for its reservation")
    p = cluster.run(["scontrol", "update", f"JobId={j}", "Reservation=nothere"])
    assert p.returncode == 1 and "Requested reservation is invalid" in p.stderr
    # out of it again: it runs
    cluster.run(["scontrol", "update", f"JobId={j}", "Reservation="], check=True)
    cluster.wait_job(j)
    assert cluster.job_state(j) == "COMPLETED"
    # a user the reservation does not name cannot join it
    ja = int(as_user(cluster, users["a"], "sbatch --parsable -H -o /dev/null "
                     "--wrap true").stdout)
    p = as_user(cluster, users["a"], f"scontrol update JobId={ja} Reservation=later")
    assert p.returncode == 1 and "Access denied to requested reservation" in p.stderr


def test_pending_jobs_of_a_deleted_reservation_are_held_unless_no_hold(ucluster, users):
    cluster = ucluster
    create(cluster, "ReservationName=gone", "StartTime=now+1hour", "Duration=30",
           "Nodes=node01", "Users=root," + users["a"].name)
    create(cluster, "ReservationName=free", "StartTime=now+1hour", "Duration=30",
           "Nodes=node02", "Users=root", "Flags=NO_HOLD_JOBS_AFTER_END")
    held = int(as_user(cluster, users["a"], "sbatch --parsable --reservation=gone "
                       "-o /dev/null --wrap true").stdout)
    free = cluster.sbatch("--reservation=free", "-o", "/dev/null", "--wrap", "true")
    for j in (held, free):
        cluster.wait_for(lambda: cluster.job_field(j, "Reason") == "Reservation",
                         what="the job waiting for its reservation")
    cluster.run(["scontrol", "delete", "ReservationName=gone"], check=True)
    cluster.run(["scontrol", "delete", "ReservationName=free"], check=True)
    # NO_HOLD_JOBS_AFTER_END: it asks for no reservation any more and runs
    cluster.wait_job(free)
    assert cluster.job_state(free) == "COMPLETED"
    assert cluster.job_field(free, "Reservation") is None  # not shown
    # otherwise held, as Slurm: priority 0, reason ReservationDeleted
    assert cluster.job_state(held) == "PENDING"
    assert cluster.job_field(held, "Reason") == "ReservationDeleted"
    assert cluster.job_field(held, "Priority") == "0"
    assert cluster.job_field(held, "Reservation") is None
    row = cluster.run(["squeue", "-h", "-j", str(held), "-o", "%T %r"],
                      check=True).stdout
    assert row == "PENDING ReservationDeleted\n"
    # the deletion's journal record holds it again after a restart
    cluster.kill_daemon("rotactld")
    cluster.up()
    assert cluster.job_field(held, "Reason") == "ReservationDeleted"
    assert cluster.job_field(held, "Priority") == "0"
    assert cluster.job_state(held) == "PENDING"
    # its owner may release it: it runs anywhere
    p = as_user(cluster, users["a"], f"scontrol release {held}")
    assert p.returncode == 0, p.stderr
    cluster.wait_job(held)
    assert cluster.job_state(held) == "COMPLETED"


def set_over_run(cluster, value):
    """ResvOverRun=value in slurm.conf (None: removed), then reconfigure."""
    with open(cluster.conf_path) as f:
        lines = [ln for ln in f.read().splitlines() if not ln.startswith("ResvOverRun=")]
    if value is not None:
        at = next(i for i, ln in enumerate(lines) if ln.startswith("NodeName="))
        lines.insert(at, f"ResvOverRun={value}")
    with open(cluster.conf_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    cluster.run(["scontrol", "reconfigure"], check=True)


def test_resv_over_run_lets_its_jobs_go_on_past_the_end(cluster):
    def limit_in_reservation():
        j = cluster.sbatch("--reservation=over", "-t", "60", "-o", "/dev/null",
                           "--wrap", "sleep 300")
        cluster.wait_running(j)
        limit = cluster.job_field(j, "TimeLimit")
        cluster.run(["scancel", str(j)], check=True)
        cluster.wait_job(j)
        return limit

    def shown():
        out = cluster.run(["scontrol", "show", "config"], check=True).stdout
        return [ln for ln in out.splitlines() if ln.startswith("ResvOverRun ")]

    create(cluster, "ReservationName=over", "StartTime=now", "Duration=20",
           "Nodes=node03", "Users=root")
    assert shown() == ["ResvOverRun             = 0 min"]
    # the minutes left of the reservation's 20 (one less if it took long)
    assert limit_in_reservation() in ("00:20:00", "00:19:00")
    try:
        set_over_run(cluster, 5)
        assert shown() == ["ResvOverRun             = 5 min"]
        assert limit_in_reservation() in ("00:25:00", "00:24:00")
        set_over_run(cluster, "UNLIMITED")
        assert shown() == ["ResvOverRun             = UNLIMITED"]
        assert limit_in_reservation() == "01:00:00"
    finally:
        set_over_run(cluster, None)


def test_update_clears_partition_and_nodes_as_slurm(cluster):
    """test3.11: PartitionName= lets the partition go, Nodes= the named
    nodes (with NodeCnt= it takes that many anew); an update's Flags= adds."""
    create(cluster, "ReservationName=c", "StartTime=now+1hour", "Duration=60",
           "NodeCnt=1", "Users=root", "PartitionName=debug")
    cluster.run(["scontrol", "update", "ReservationName=c", "PartitionName="],
                check=True)
    assert show_resv(cluster, "c")["PartitionName"] == "(null)"
    cluster.run(["scontrol", "update", "ReservationName=c", "Nodes=node[02-03]"],
                check=True)
    assert show_resv(cluster, "c")["Flags"] == "SPEC_NODES"
    p = cluster.run(["scontrol", "update", "ReservationName=c",
                     "EndTime=now+90minutes", "Flags=Maint", "NodeCnt=1", "Nodes="])
    assert p.returncode == 0 and p.stdout == "Reservation updated.\n", p.stderr
    f = show_resv(cluster, "c")
    assert (f["Flags"], f["NodeCnt"]) == ("MAINT", "1"), f
    cluster.run(["scontrol", "update", "ReservationName=c", "Flags=DAILY"], check=True)
    assert show_resv(cluster, "c")["Flags"] == "MAINT,DAILY"


def test_node_flags_spec_part_all_nodes_as_slurm(cluster):
    """test3.11.11: a partition alone or with Nodes=ALL is all of it
    (SPEC_NODES,PART_NODES), Nodes=ALL alone the cluster's (ALL_NODES);
    PART_NODES asks for a partition and Nodes=ALL."""
    def flags(name):
        return show_resv(cluster, name)["Flags"]
    start = ["StartTime=now+1hour", "Duration=1", "Users=root"]
    create(cluster, "ReservationName=p", *start, "Partition=debug")
    assert flags("p") == "SPEC_NODES,PART_NODES"
    assert show_resv(cluster, "p")["Nodes"] == "node[01-04]"
    cluster.run(["scontrol", "delete", "ReservationName=p"], check=True)
    create(cluster, "ReservationName=a", *start, "Nodes=ALL")
    assert flags("a") == "SPEC_NODES,ALL_NODES"
    cluster.run(["scontrol", "delete", "ReservationName=a"], check=True)
    create(cluster, "ReservationName=n", *start, "Nodes=node01")
    for args in (["Flags=part_nodes"], ["Flags=part_nodes", "Nodes=ALL"]):
        p = cluster.run(["scontrol", "update", "ReservationName=n", *args])
        assert p.returncode == 1, args
    cluster.run(["scontrol", "update", "ReservationName=n", "Flags=part_nodes",
                 "Partition=debug", "Nodes=ALL"], check=True)
    f = show_resv(cluster, "n")
    assert (f["Flags"], f["Nodes"]) == ("SPEC_NODES,PART_NODES", "node[01-04]")
    cluster.run(["scontrol", "update", "ReservationName=n", "Nodes=node01"],
                check=True)
    f = show_resv(cluster, "n")
    assert (f["Flags"], f["PartitionName"]) == ("SPEC_NODES", "debug")
    refused(cluster, ["create", "res", "ReservationName=x", *start,
                      "Flags=part_nodes", "Nodes=node01", "Partition=debug"],
            "scontrol: error: PART_NODES flag requires specifying a Partition and "
            "ALL nodes.  No reservation created.\n")


def test_core_reservation_counts_cpus_free_at_its_start(cluster):
    """test3.11.8: CPUs a running job holds are free after its limit."""
    j = cluster.sbatch("-w", "node02", "-n4", "-t", "10", "-o", "/dev/null", "--wrap",
                       "sleep 300")
    cluster.wait_running(j)
    args = ["Duration=60", "Nodes=node02", "CoreCnt=5", "Users=root"]
    p = cluster.run(["scontrol", "create", "res", "StartTime=now", *args])
    assert p.returncode == 1, p.stdout
    p = cluster.run(["scontrol", "create", "res", "StartTime=now+300", *args])
    assert p.returncode == 1, p.stdout
    create(cluster, "StartTime=now+3600", *args)


def test_a_daily_reservation_conflicts_days_ahead(cluster):
    """test3.11.10: a repeating reservation holds its nodes on the days it
    comes back."""
    create(cluster, "ReservationName=d", "StartTime=now+60minutes", "Duration=60",
           "Nodes=ALL", "Users=root", "Flags=DAILY")
    for start in ("now", "now+6days"):
        p = cluster.run(["scontrol", "create", "res", f"StartTime={start}",
                         "Duration=180", "NodeCnt=1", "Users=root"])
        assert p.returncode == 1, (start, p.stdout)
    create(cluster, "StartTime=now+3hours", "Duration=60", "NodeCnt=1", "Users=root")


def test_replace_keeps_its_nodes_idle_and_survives_a_restart(cluster):
    """test3.14: REPLACE swaps the nodes its jobs take, and drained ones,
    for idle ones; the flag and the nodes are journaled."""
    create(cluster, "ReservationName=r", "StartTime=now", "Duration=10",
           "NodeCnt=2", "Flags=replace", "Partition=debug", "Users=root")
    f = show_resv(cluster, "r")
    assert (f["Flags"], f["Nodes"]) == ("REPLACE", "node[01-02]"), f
    cluster.run(["srun", "-t1", "-n1", "--reservation=r", "true"], check=True)
    assert show_resv(cluster, "r")["Nodes"] == "node[02-03]"
    try:
        cluster.run(["scontrol", "update", "NodeName=node02", "State=DRAIN",
                     "Reason=t"], check=True)
        # by an idle one (node01 once the job's end is through)
        cluster.wait_for(lambda: show_resv(cluster, "r")["Nodes"]
                         in ("node[01,03]", "node[03-04]"),
                         what="the drained node replaced")
    finally:
        cluster.run(["scontrol", "update", "NodeName=node02", "State=RESUME"])
    refused(cluster, ["update", "ReservationName=r", "Nodes=node04"],
            "Error updating the reservation: Requested operation not supported on "
            "this system\n")
    refused(cluster, ["create", "res", "StartTime=now", "Duration=5", "Nodes=node04",
                      "Flags=REPLACE_DOWN", "Users=root"],
            "Error creating the reservation: Invalid node name specified\n")
    before = cluster.run(["scontrol", "-o", "show", "res"], check=True).stdout
    cluster.kill_daemon("rotactld")
    cluster.up()
    assert cluster.run(["scontrol", "-o", "show", "res"], check=True).stdout == before


def test_an_hourly_reservation_moves_on_an_hour(cluster):
    create(cluster, "ReservationName=h", "StartTime=now", "EndTime=now+3",
           "Nodes=node02", "Users=root", "Flags=HOURLY")
    first = show_resv(cluster, "h")["StartTime"]
    cluster.wait_for(lambda: show_resv(cluster, "h")["StartTime"] != first,
                     timeout=15, what="the hourly one moved")
    t0 = datetime.strptime(first, "%Y-%m-%dT%H:%M:%S")
    t1 = datetime.strptime(show_resv(cluster, "h")["StartTime"], "%Y-%m-%dT%H:%M:%S")
    assert (t1 - t0).total_seconds() == 3600
    assert cluster.run(["scontrol", "ping"]).returncode == 0


def test_flex_jobs_may_begin_before_and_run_past_their_reservation(cluster):
    create(cluster, "ReservationName=flex", "StartTime=now+10minutes", "Duration=20",
           "Nodes=node03", "Users=root", "Flags=FLEX")
    create(cluster, "ReservationName=rigid", "StartTime=now+10minutes",
           "Duration=20", "Nodes=node04", "Users=root")
    # FLEX: it starts before the reservation and keeps its own limit
    j = cluster.sbatch("--reservation=flex", "-t", "60", "-o", "/dev/null",
                       "--wrap", "sleep 300")
    cluster.wait_running(j)
    assert cluster.job_field(j, "TimeLimit") == "01:00:00"
    # without: it waits for the reservation to begin
    k = cluster.sbatch("--reservation=rigid", "-t", "60", "-o", "/dev/null",
                       "--wrap", "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(k, "Reason") == "Reservation",
                     what="the job waiting for its reservation")
    assert cluster.job_state(k) == "PENDING"
    # an active one of fewer nodes than asked: refused, but with FLEX
    create(cluster, "ReservationName=small", "StartTime=now", "Duration=20",
           "Nodes=node01", "Users=root", "Flags=IGNORE_JOBS")
    p = cluster.run(["sbatch", "-N2", "--reservation=small", "--wrap", "true"])
    assert p.returncode == 1, p.stdout
    assert "Requested node configuration is not available" in p.stderr, p.stderr
    cluster.run(["scontrol", "update", "ReservationName=small", "Flags=FLEX"],
                check=True)
    cluster.sbatch("-N2", "--reservation=small", "-o", "/dev/null", "--wrap", "true")


def set_ctld_params(cluster, value):
    """SlurmctldParameters=value in slurm.conf (None: removed), reconfigure."""
    with open(cluster.conf_path) as f:
        lines = [ln for ln in f.read().splitlines()
                 if not ln.startswith("SlurmctldParameters=")]
    if value is not None:
        at = next(i for i, ln in enumerate(lines) if ln.startswith("NodeName="))
        lines.insert(at, f"SlurmctldParameters={value}")
    with open(cluster.conf_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    cluster.run(["scontrol", "reconfigure"], check=True)


def test_user_resv_delete_lets_its_users_delete_it(ucluster, users):
    cluster = ucluster
    a, b = users["a"], users["b"]
    create(cluster, "ReservationName=mine", "StartTime=now", "Duration=20",
           "Nodes=node02", "Users=" + a.name)
    denied = "delete_reservation ReservationName=mine: Invalid user id\n"
    # without user_resv_delete: admins only
    p = as_user(cluster, a, "scontrol delete ReservationName=mine")
    assert (p.returncode, p.stderr) == (1, denied)
    try:
        set_ctld_params(cluster, "user_resv_delete")
        # a user it does not admit: still not
        p = as_user(cluster, b, "scontrol delete ReservationName=mine")
        assert (p.returncode, p.stderr) == (1, denied)
        assert resv_names(cluster) == ["mine"]
        # nor creating or updating one
        p = as_user(cluster, a, "scontrol update ReservationName=mine Duration=30")
        assert p.returncode == 1 and "Access/permission denied" in p.stderr, p.stderr
        # one of its users: deleted
        p = as_user(cluster, a, "scontrol delete ReservationName=mine")
        assert (p.returncode, p.stderr) == (0, ""), p.stderr
        assert resv_names(cluster) == []
        p = cluster.run(["scontrol", "show", "reservationname=mine"])
        assert (p.returncode, p.stdout) == (1, "Reservation mine not found\n")
    finally:
        set_ctld_params(cluster, None)


def test_a_job_may_name_several_reservations(cluster):
    for name, node in (("ra", "node01"), ("rb", "node02"), ("rc", "node03")):
        create(cluster, f"ReservationName={name}", "StartTime=now", "Duration=20",
               f"Nodes={node}", "Users=root")
    # ra busy: a job of ra,rb runs in rb, the first that can run it
    busy = cluster.sbatch("--reservation=ra", "--exclusive", "-o", "/dev/null",
                          "--wrap", "sleep 300")
    cluster.wait_running(busy)
    out = os.path.join(str(cluster.work), "multi.out")
    j = cluster.sbatch("--reservation=ra,rb", "-o", out, "--wrap",
                       "echo resv=$SLURM_JOB_RESERVATION; sleep 300")
    cluster.wait_running(j)
    assert cluster.job_field(j, "NodeList") == "node02"
    # shown as asked (Slurm's); the job's environment names the one it got
    assert cluster.job_field(j, "Reservation") == "ra,rb"
    # a name too long to be one, or too many names: the whole list refused
    # (not only its first names checked)
    for bad in (f"ra,{'x' * 65},rb", ",".join(["ra"] * 33)):
        p = cluster.run(["sbatch", f"--reservation={bad}", "--wrap", "true"])
        assert p.returncode == 1 and "Requested reservation is invalid" in p.stderr, \
            p.stderr
    cluster.wait_for(lambda: os.path.exists(out) and open(out).read(),
                     what="the job's output")
    assert open(out).read() == "resv=rb\n"
    # the order is kept as given; the first that can: ra is busy, rb taken
    k = cluster.sbatch("--reservation=rc,ra", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_running(k)
    assert cluster.job_field(k, "NodeList") == "node03"
    assert cluster.job_field(k, "Reservation") == "rc,ra"
    # ended, scontrol -d still shows what it held (the expect tests read Nodes=)
    cluster.run(["scancel", str(k)], check=True)
    cluster.wait_job(k)
    out = cluster.run(["scontrol", "-d", "-o", "show", "job", str(k)], check=True).stdout
    assert " Nodes=node03 CPU_IDs=" in out, out
    # the one it runs in is busy, the others not
    refused(cluster, ["delete", "ReservationName=rb"],
            "delete_reservation ReservationName=rb: "
            "Requested reservation is in use\n")
    # every one must exist
    p = cluster.run(["sbatch", "--reservation=ra,nothere", "--wrap", "true"])
    assert p.returncode == 1
    assert "Requested reservation is invalid" in p.stderr
    # kept through a restart: still shown as asked, still in use
    cluster.restart_ctld()
    assert cluster.job_field(j, "Reservation") == "ra,rb"
    refused(cluster, ["delete", "ReservationName=rb"],
            "delete_reservation ReservationName=rb: "
            "Requested reservation is in use\n")
