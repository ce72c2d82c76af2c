"""sreport: rotadbd sums the CPU time job runs held inside a window, and
sreport prints Slurm 22.05's reports from it (cluster Utilization, cluster
AccountUtilizationByUser, user TopUsage, job SizesByAccount).  Two jobs of
known size run in accounts theory (under physics) and physics; every report
is checked against what sacct recorded of them."""
import datetime
import time

import pytest


CPUS = 4 * 8  # the module cluster: 4 nodes of 8 CPUs
DASHES = "-" * 80


def run(c, *args, check=True):
    p = c.run(["sreport", *args])
    if check:
        assert p.returncode == 0, f"sreport {args}: {p.stdout}{p.stderr}"
    return p


def prows(c, *args):
    """sreport -n -P ARGS, as lists of fields."""
    return [line.split("|") for line in run(c, "-n", "-P", *args).stdout.splitlines()]


def epoch(text):
    return int(datetime.datetime.fromisoformat(text).timestamp())


def iso(t):
    return datetime.datetime.fromtimestamp(t).strftime("%Y-%m-%dT%H:%M:%S")


@pytest.fixture(scope="module")
def ran(module_cluster):
    """Jobs A (8 CPUs, 4 s, account theory) and B (2 CPUs, 2 s, physics):
    the window around them and each one's CPU-seconds as sacct has them."""
    c = module_cluster
    for args in (("account", "physics"), ("account", "theory", "parent=physics"),
                 ("user", c.user, "account=physics,theory", "DefaultAccount=physics")):
        p = c.run(["sacctmgr", "-i", "add", *args])
        assert p.returncode == 0, p.stderr
    start = int(time.time()) - 1
    a = c.sbatch("-A", "theory", "-n", "8", "--wrap", "sleep 4")
    b = c.sbatch("-A", "physics", "-n", "2", "--wrap", "sleep 2")
    for j in (a, b):
        assert c.wait_job(j, timeout=60) == "COMPLETED"
    used = {}
    deadline = time.monotonic() + 30
    while len(used) < 2:
        assert time.monotonic() < deadline, "rotadbd never had both jobs"
        p = c.run(["sacct", "-nP", "-X", "-j", f"{a},{b}", "-o", "JobID,AllocCPUS,Start,End"])
        used = {}
        for line in p.stdout.splitlines():
            jid, cpus, s, e = line.split("|")
            if e not in ("Unknown", ""):
                used[int(jid)] = int(cpus) * (epoch(e) - epoch(s))
        time.sleep(0.2)
    end = int(time.time()) + 1
    time.sleep(end + 0.2 - time.time())  # sreport's end is never past now
    return {"start": start, "end": end, "A": used[a], "B": used[b], "c": c}


def window(r):
    return f"start={r['start']}", f"end={r['end']}"


def test_jobs_ran_as_asked(ran):
    # the sums below are checked against these, and these against the jobs
    assert abs(ran["A"] - 8 * 4) <= 8 * 2, ran
    assert abs(ran["B"] - 2 * 2) <= 2 * 2, ran


def test_cluster_utilization_numbers(ran):
    c, total = ran["c"], ran["A"] + ran["B"]
    secs = ran["end"] - ran["start"]
    (row,) = prows(c, "-t", "seconds", "cluster", "utilization", *window(ran))
    cluster, alloc, down, pdown, idle, planned, reported = row
    assert cluster == c.conf_value("ClusterName")
    assert int(alloc) == total
    assert (down, pdown) == ("0", "0")  # not recorded yet (doc/accounting.md)
    assert int(reported) == CPUS * secs
    assert int(alloc) + int(idle) + int(planned) == int(reported)
    assert int(planned) <= 8 * 2  # the jobs started at once


def test_cluster_utilization_banner_and_columns(ran):
    c = ran["c"]
    out = run(c, "cluster", "Utilization", *window(ran)).stdout.splitlines()
    assert out[0] == DASHES
    assert out[1] == f"Cluster Utilization {iso(ran['start'])} - {iso(ran['end'] - 1)}"
    assert out[2] == "Usage reported in CPU Minutes"
    assert out[3] == DASHES
    # usage columns are 8 wide for numbers of seconds under 10^8: titles cut
    assert out[4] == "  Cluster Allocate     Down PLND Dow     Idle  Planned Reported "
    assert out[5] == "--------- " + "-------- " * 6
    minutes = round(CPUS * (ran["end"] - ran["start"]) / 60)
    assert out[6].split()[-1] == str(minutes)
    assert len(out) == 7


def test_time_formats(ran):
    c, total = ran["c"], ran["A"] + ran["B"]
    reported = CPUS * (ran["end"] - ran["start"])
    (row,) = prows(c, "-t", "percent", "cluster", "utilization", *window(ran))
    assert row[1] == f"{100 * total / reported:.2f}%"
    assert row[6] == "100.00%"
    # a window two hours longer: whole hours
    early = ran["start"] - 7200
    (row,) = prows(c, "-t", "hours", "cluster", "utilization", f"start={early}",
                   f"end={ran['end']}")
    assert row[6] == str(round(CPUS * (ran["end"] - early) / 3600))
    (row,) = prows(c, "-t", "minper", "cluster", "utilization", *window(ran))
    assert row[1] == f"{round(total / 60)}({100 * total / reported:.2f}%)"
    out = run(c, "-t", "percent", "cluster", "utilization", *window(ran)).stdout
    assert out.splitlines()[2] == "Usage reported in Percentage of Total"


def test_parsable_forms(ran):
    c = ran["c"]
    lines = run(c, "-p", "cluster", "utilization", *window(ran)).stdout.splitlines()
    assert lines[0] == DASHES and lines[3] == DASHES
    assert lines[4] == "Cluster|Allocated|Down|PLND Down|Idle|Planned|Reported|"
    assert lines[5].endswith("|") and len(lines) == 6
    lines = run(c, "-P", "cluster", "utilization", *window(ran)).stdout.splitlines()
    assert lines[4] == "Cluster|Allocated|Down|PLND Down|Idle|Planned|Reported"
    assert not lines[5].endswith("|")
    lines = run(c, "-P", "-n", "cluster", "utilization", "format=Cluster,Allocated",
                *window(ran)).stdout.splitlines()
    assert len(lines) == 1 and lines[0].split("|")[0] == c.conf_value("ClusterName")


def test_account_utilization_by_user(ran):
    c, a, b, user = ran["c"], ran["A"], ran["B"], ran["c"].user
    cl = c.conf_value("ClusterName")
    out = run(c, "-P", "-t", "seconds", "cluster", "AccountUtilizationByUser",
              *window(ran)).stdout.splitlines()
    assert out[1] == (f"Cluster/Account/User Utilization {iso(ran['start'])} - "
                      f"{iso(ran['end'] - 1)} ({ran['end'] - ran['start']} secs)")
    assert out[2] == "Usage reported in CPU Seconds"
    assert out[4] == "Cluster|Account|Login|Proper Name|Used|Energy"
    rows = [line.split("|") for line in out[5:]]
    # root first; an account's users, then its sub-accounts
    lines = [(r[1], r[2], int(r[4])) for r in rows]
    assert lines[0] == ("root", "", a + b)
    i = lines.index(("physics", "", a + b))
    assert lines[i + 1] == ("physics", user, b)
    assert lines[i + 2] == ("theory", "", a)
    assert lines[i + 3] == ("theory", user, a)
    assert all(r[0] == cl and r[5] == "0" for r in rows)
    # a percentage is of the cluster's whole time
    reported = CPUS * (ran["end"] - ran["start"])
    pct = prows(c, "-t", "percent", "cluster", "AccountUtilizationByUser", *window(ran))
    assert pct[0][4] == f"{100 * (a + b) / reported:.2f}%"
    # Accounts= keeps those accounts and the ones under them
    sub = prows(c, "-t", "seconds", "cluster", "AccountUtilizationByUser",
                "accounts=theory", *window(ran))
    assert [(r[1], r[2], int(r[4])) for r in sub] == [("theory", "", a), ("theory", user, a)]


def test_user_top(ran):
    c, a, b, user = ran["c"], ran["A"], ran["B"], ran["c"].user
    out = run(c, "-P", "-t", "seconds", "user", "top", *window(ran)).stdout.splitlines()
    assert out[1].startswith(f"Top 10 Users {iso(ran['start'])} - ")
    assert out[4] == "Cluster|Login|Proper Name|Account|Used|Energy"
    rows = [line.split("|") for line in out[5:]]
    # a line per user and account, the most used first
    assert [(r[1], r[3], int(r[4])) for r in rows] == [(user, "theory", a), (user, "physics", b)]
    rows = prows(c, "-t", "seconds", "user", "topusage", "group", *window(ran))
    assert [(r[1], r[3], int(r[4])) for r in rows] == [(user, "physics, theory", a + b)]
    rows = prows(c, "user", "top", "topcount=1", *window(ran))
    assert len(rows) == 1 and rows[0][3] == "theory"


def test_job_sizes_by_account(ran):
    c, a, b = ran["c"], ran["A"], ran["B"]
    out = run(c, "-P", "-t", "seconds", "job", "sizesbyaccount", "grouping=4,8",
              *window(ran)).stdout.splitlines()
    assert out[1].startswith(f"Job Sizes {iso(ran['start'])} - ")
    assert out[2] == "Time reported in Seconds"
    assert out[4] == "Cluster|Account|0-3 CPUs|4-7 CPUs|>= 8 CPUs|% of cluster"
    rows = {r[1]: r[2:] for r in (line.split("|") for line in out[5:])}
    # theory's job counts in physics, the account under root it is in
    assert rows["physics"] == [str(b), "0", str(a), "100.00%"]
    assert "theory" not in rows
    rows = {r[1]: r[2:] for r in prows(c, "-t", "seconds", "job", "sizes", "grouping=4,8",
                                         "FlatView", *window(ran))}
    assert rows["physics"] == [str(b), "0", "0", f"{100 * b / (a + b):.2f}%"]
    assert rows["theory"] == ["0", "0", str(a), f"{100 * a / (a + b):.2f}%"]
    rows = {r[1]: r[2:] for r in prows(c, "job", "sizes", "printjobcount", *window(ran))}
    assert rows["physics"] == ["2", "0", "0", "0", "0", "100.00%"]
    out = run(c, "job", "sizes", *window(ran)).stdout.splitlines()
    titles = ("0-49 CPUs", "50-249 CPUs", "250-499 CPUs", "500-999 CPUs", ">= 1000 CPUs")
    assert out[4] == ("  Cluster   Account " + "".join(f"{t:>13} " for t in titles)
                      + "% of cluster ")
    assert out[5] == "--------- --------- " + "------------- " * 5 + "------------ "


def test_bad_input_is_refused(ran):
    c = ran["c"]
    for args, words in [
        (("cluster", "utilization", "bogus=1"), "Unknown condition: bogus=1"),
        (("-t", "fortnights", "cluster", "utilization"), "unknown time format"),
        (("cluster", "nosuch"), "Not valid report nosuch"),
        (("nosuch",), "invalid keyword: nosuch"),
        (("job", "sizes", "grouping=8,4"), "Invalid grouping"),
        (("job", "sizes", "grouping=" + ",".join(str(i) for i in range(1, 70))),
         "Invalid grouping"),
        (("cluster", "utilization", "start=yesterday-ish"), "Invalid time specification"),
        (("-T", "gres/gpu", "cluster", "utilization"), "only cpu"),
        (("cluster", "utilization", "format=Cluster,Bogus"), "Unknown field 'Bogus'"),
        (("user", "top", "topcount=many"), "Invalid value for TopCount"),
    ]:
        p = run(c, *args, check=False)
        assert p.returncode != 0, (args, p.stdout)
        assert words in p.stderr, (args, p.stderr)


def test_help_in_slurms_layout(module_cluster):
    for opt in ("-h", "--help", "--usage"):
        p = module_cluster.run(["sreport", opt])
        assert p.returncode == 0 and p.stderr == "", (opt, p.stderr)
        out = p.stdout.splitlines()
        assert out[0] == "sreport [<OPTION>] [<COMMAND>]", out
        assert "    Valid <OPTION> values are:" in out
        assert "    Valid <COMMAND> values are:" in out
        for words in ("cluster <REPORT>", "AccountUtilizationByUser", "TopUsage",
                      "SizesByAccount", "PrintJobCount", "--parsable2"):
            assert words in p.stdout, words
    # no command: the same text, to stderr, and a failure
    p = module_cluster.run(["sreport"])
    assert p.returncode == 1 and p.stderr.startswith("sreport [<OPTION>] [<COMMAND>]\n")


def test_default_window_is_yesterday(ran):
    c = ran["c"]
    out = run(c, "cluster", "utilization").stdout.splitlines()
    today = datetime.datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
    yesterday = today - datetime.timedelta(days=1)
    last = today - datetime.timedelta(seconds=1)
    assert out[1] == (f"Cluster Utilization {yesterday.strftime('%Y-%m-%dT%H:%M:%S')} - "
                      f"{last.strftime('%Y-%m-%dT%H:%M:%S')}")


def test_window_without_jobs(ran):
    c = ran["c"]
    when = ("start=2001-01-01T00:00:00", "end=2001-01-02T00:00:00")
    (row,) = prows(c, "-t", "seconds", "cluster", "utilization", *when)
    assert row[1:] == ["0", "0", "0", str(CPUS * 86400), "0", str(CPUS * 86400)]
    assert prows(c, "job", "sizes", "FlatView", *when) == []
    assert prows(c, "user", "top", *when) == []
    rows = prows(c, "-t", "seconds", "cluster", "AccountUtilizationByUser", *when)
    assert rows[0][1:5] == ["root", "", "", "0"]
    assert all(r[4] == "0" for r in rows)


def test_start_today_without_end_runs_to_now(ran):
    c = ran["c"]
    out = run(c, "cluster", "utilization", f"start={ran['start']}").stdout.splitlines()
    # the window ends at now, so the jobs are in it
    now = int(time.time())
    frm, to = out[1].split("Cluster Utilization ")[1].split(" - ")
    assert frm == iso(ran["start"]) and abs(epoch(to) - now) <= 3
    (row,) = prows(c, "-t", "seconds", "cluster", "utilization", f"start={ran['start']}")
    assert int(row[1]) == ran["A"] + ran["B"]


def test_a_job_after_a_report_counts_in_the_next(ran):
    """rotadbd keeps a copy of the recent runs for sreport; a job stored after
    a report must be in the next one."""
    c = ran["c"]
    since = f"start={ran['start']}"
    (before,) = prows(c, "-t", "seconds", "cluster", "utilization", since)
    jid = c.sbatch("-A", "physics", "-n", "3", "--wrap", "sleep 1")
    assert c.wait_job(jid, timeout=60) == "COMPLETED"
    deadline = time.monotonic() + 30
    while True:
        p = c.run(["sacct", "-nP", "-X", "-j", str(jid), "-o", "AllocCPUS,Start,End"])
        cpus, s, e = p.stdout.strip().split("|")
        if e not in ("Unknown", ""):
            break
        assert time.monotonic() < deadline, p.stdout
        time.sleep(0.2)
    used = int(cpus) * (epoch(e) - epoch(s))
    (after,) = prows(c, "-t", "seconds", "cluster", "utilization", since)
    assert int(after[1]) == int(before[1]) + used
    rows = {r[1]: r[2:] for r in prows(c, "-t", "seconds", "job", "sizes", "FlatView",
                                       "grouping=4,8", since)}
    assert int(rows["physics"][0]) == ran["B"] + used
