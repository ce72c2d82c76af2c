"""scrontab: crontabs of recurring batch jobs kept by the controller
(ScronParameters=enable), with Slurm 22.05's command, outputs and messages.

An entry is a batch job that waits for its begin time (BeginTime) and is
requeued under the same id after each run; the shortest period cron has is
a minute, so the test that sees an entry recur waits for one minute
boundary.
"""

import os
import pwd
import re
import subprocess
import time

import pytest

from conftest import IS_ROOT, module_cluster_with


def _enable(path):
    with open(path, "a") as f:
        f.write("ScronParameters=enable\n")


@pytest.fixture(scope="module")
def scluster():
    yield from module_cluster_with(_enable)


@pytest.fixture
def sc(scluster, tmp_path):
    scluster.work = tmp_path
    yield scluster
    scluster.run(["scrontab", "-r"])
    scluster.cancel_all()


def _set(c, text, *args):
    return c.run(["scrontab", *args, "-"], input=text)


def _show(c, jobid):
    p = c.run(["scontrol", "show", "job", str(jobid)], check=True)
    return p.stdout


def _field(text, name):
    m = re.search(rf"\b{name}=(\S*)", text)
    assert m, (name, text)
    return m.group(1)


def _queued(c):
    p = c.run(["squeue", "-h", "-o", "%i %j %T %r"], check=True)
    return [line.split() for line in p.stdout.splitlines()]


def test_entries_become_jobs_that_wait_for_their_time(sc):
    """Each entry is one pending job: its #SCRON options, its command as
    Command= with the crontab's variables expanded, BeginTime until the next
    matching minute, CronJob=Yes with the spec as Slurm prints it; -l gives
    the crontab back as it was written."""
    c = sc
    text = ("# nightly work\n"
            "OUT=/tmp/nowhere\n"
            "#SCRON -t 5\n"
            "#SCRON -J nightly --comment=\"from cron\"\n"
            "30 2 * * mon-fri echo $OUT $OUTX\n"
            "\n"
            "*/15 8-17 * * * /bin/true\n")
    p = _set(c, text)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    p = c.run(["scrontab", "-l"])
    assert (p.returncode, p.stdout) == (0, text)
    q = _queued(c)
    assert [(r[1], r[2], r[3]) for r in q] == [("nightly", "PENDING", "BeginTime"),
                                              ("/bin/true", "PENDING", "BeginTime")], q
    first = _show(c, q[0][0])
    assert "CronJob=Yes CrontabSpec=\"30 2 * * 1-5\"" in first, first
    assert _field(first, "TimeLimit") == "00:05:00"
    assert "Comment=from cron" in first
    assert "Command=echo /tmp/nowhere $OUTX" in first, first
    assert _field(first, "WorkDir") == pwd.getpwuid(0).pw_dir
    eligible = time.mktime(time.strptime(_field(first, "EligibleTime"),
                                         "%Y-%m-%dT%H:%M:%S"))
    lt = time.localtime(eligible)
    assert (lt.tm_hour, lt.tm_min, lt.tm_wday < 5) == (2, 30, True), lt
    second = _show(c, q[1][0])
    assert "CrontabSpec=\"0,15,30,45 8-17 * * *\"" in second, second
    lt = time.localtime(time.mktime(time.strptime(_field(second, "EligibleTime"),
                                                  "%Y-%m-%dT%H:%M:%S")))
    assert lt.tm_min % 15 == 0 and 8 <= lt.tm_hour <= 17, lt


def test_an_entry_runs_and_recurs_under_its_id(sc):
    """`* * * * *` runs at the next minute, then goes back to pending under
    the same id with the minute after as its begin time; each run is kept
    in accounting."""
    c = sc
    out = c.work / "ran"
    p = _set(c, f"* * * * * date +%s >> {out}\n")
    assert p.returncode == 0, p.stderr
    (jobid, _, state, reason), = _queued(c)
    assert (state, reason) == ("PENDING", "BeginTime")
    c.wait_for(lambda: out.exists() and out.read_text().strip() or None, timeout=100,
               what="the entry's first run")
    ran_at = int(out.read_text().split()[0])
    assert ran_at % 60 < 30, ran_at  # at the minute's start, not later

    def requeued():
        s = _show(c, jobid)
        return s if "Restarts=1" in s and "JobState=PENDING" in s else None
    s = c.wait_for(requeued, timeout=30, what="the entry requeued")
    assert "CronJob=Yes" in s and "Reason=BeginTime" in s, s
    eligible = time.mktime(time.strptime(_field(s, "EligibleTime"),
                                         "%Y-%m-%dT%H:%M:%S"))
    assert eligible == (ran_at // 60 + 1) * 60, (eligible, ran_at)
    c.wait_for(lambda: "REQUEUED" in c.run(
        ["sacct", "-j", jobid, "-D", "-X", "-n", "-P", "-o", "jobid,state"]).stdout
        or None, what="the first run in accounting")


def test_scancel_disables_the_entry(sc):
    """A cancelled entry's job ends CANCELLED and does not come back; its
    lines are shown with #DISABLED: by -l; the other entries go on."""
    c = sc
    text = "#SCRON -J a\n0 3 * * * /bin/true\n0 4 * * * /bin/false\n"
    assert _set(c, text).returncode == 0
    (ja, *_), (jb, *_) = _queued(c)
    assert c.run(["scancel", ja]).returncode == 0
    c.wait_for(lambda: "#DISABLED" in c.run(["scrontab", "-l"]).stdout or None,
               what="the entry disabled")
    p = c.run(["scrontab", "-l"])
    assert p.stdout == ("#DISABLED: #SCRON -J a\n#DISABLED: 0 3 * * * /bin/true\n"
                        "0 4 * * * /bin/false\n"), p.stdout
    time.sleep(2)
    assert [r[0] for r in _queued(c)] == [jb]
    s = _show(c, ja)
    assert "JobState=CANCELLED" in s and "CronJob=Yes" not in s, s
    assert "CrontabSpec=\"0 3 * * *\"" in s
    assert "CronJob=Yes" in _show(c, jb)


def test_replacing_and_removing(sc):
    """A new crontab cancels the old entries that wait; -r removes it all
    ("no crontab for root" and exit 1 after)."""
    c = sc
    assert _set(c, "0 5 * * * /bin/true\n").returncode == 0
    (old, *_), = _queued(c)
    assert _set(c, "0 6 * * * /bin/true\n0 7 * * * /bin/true\n").returncode == 0
    q = _queued(c)
    assert len(q) == 2 and old not in [r[0] for r in q], q
    assert "JobState=CANCELLED" in _show(c, old)
    p = c.run(["scrontab", "-r"])
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    p = c.run(["scrontab", "-l"])
    assert (p.returncode, p.stdout) == (1, "no crontab for root\n")
    assert _queued(c) == []


def test_errors_change_nothing(sc):
    """A line that is no entry: "There are errors in your crontab." and exit
    1; an entry the controller refuses: its lines and Slurm's words; neither
    replaces the crontab there was.  scontrol cannot change an entry's job."""
    c = sc
    assert _set(c, "0 1 * * * /bin/true\n").returncode == 0
    (jid, *_), = _queued(c)
    for bad in ("* * * 13 * x\n", "61 * * * * x\n", "* * 31 2 * x\n",
                "@often x\n", "* * * * *\n"):
        p = _set(c, "0 2 * * * /bin/true\n" + bad)
        assert (p.returncode, p.stdout) == (1, "There are errors in your crontab.\n"), \
            (bad, p.stdout, p.stderr)
    p = _set(c, "0 2 * * * /bin/true\n#SCRON -p nosuchpart\n0 3 * * * /bin/true\n")
    assert p.returncode == 1
    assert p.stdout == ("There was an issue with the job submission on lines 2-3\n"
                        "The error code return was: Invalid partition name specified\n"
                        "The error message was: Invalid partition name specified\n")
    assert c.run(["scrontab", "-l"]).stdout == "0 1 * * * /bin/true\n"
    assert [r[0] for r in _queued(c)] == [jid]
    p = c.run(["scontrol", "update", f"jobid={jid}", "TimeLimit=5"])
    assert p.returncode != 0
    assert "Cannot modify scrontab jobs through scontrol" in p.stderr, p.stderr
    p = c.run(["scontrol", "hold", jid])
    assert "Cannot modify scrontab jobs through scontrol" in p.stderr, p.stderr
    p = c.run(["scrontab", "-u", "no-such-user-x", "-l"])
    assert (p.returncode, p.stderr) == (1, "scrontab: fatal: Could not find user "
                                           "no-such-user-x\n")


def test_survives_a_compaction_and_a_restart(sc):
    c = sc
    text = "0 1 * * * /bin/true\n0 2 * * * /bin/true\n"
    assert _set(c, text).returncode == 0
    (ja, *_), (jb, *_) = _queued(c)
    assert c.run(["scancel", jb]).returncode == 0
    c.wait_for(lambda: "#DISABLED" in c.run(["scrontab", "-l"]).stdout or None,
               what="the entry disabled")
    c.compact_journal()
    c.kill_daemon("rotactld")
    c.up()
    p = c.run(["scrontab", "-l"])
    assert p.stdout == "0 1 * * * /bin/true\n#DISABLED: 0 2 * * * /bin/true\n"
    assert "CronJob=Yes" in _show(c, ja)
    assert [r[0] for r in _queued(c)] == [ja]


def test_disabled_without_scron_parameters(cluster):
    p = cluster.run(["scrontab", "-l"])
    assert (p.returncode, p.stderr) == (1, "scrontab: fatal: scrontab is disabled on "
                                           "this cluster\n")


@pytest.mark.skipif(not IS_ROOT, reason="needs root to create test users")
def test_users_and_their_crontabs(sc, users):
    """A user keeps a crontab of their own, whose jobs are theirs; another
    user can neither list nor replace it; root can do both (-u)."""
    from unixusers import as_user

    c = sc
    a, b = users["a"], users["b"]
    p = as_user(c, a, "scrontab -", input="0 4 * * * /bin/true\n")
    assert p.returncode == 0, p.stderr
    try:
        (jid, *_), = _queued(c)
        s = _show(c, jid)
        assert f"UserId={a.name}({a.uid})" in s and f"WorkDir={a.home}" in s, s
        p = as_user(c, b, f"scrontab -u {a.name} -l")
        assert (p.returncode, p.stderr) == (1, "scrontab: fatal: slurm_request_crontab "
                                               "failed: Access/permission denied\n")
        p = as_user(c, b, f"scrontab -u {a.name} -", input="0 5 * * * /bin/true\n")
        assert p.returncode == 1 and "Access/permission denied" in p.stderr, p.stderr
        p = c.run(["scrontab", "-u", a.name, "-l"])
        assert p.stdout == "0 4 * * * /bin/true\n"
        # root writes another user's crontab: the entries are that user's
        p = c.run(["scrontab", "-u", a.name, "-"], input="0 6 * * * /bin/true\n")
        assert p.returncode == 0, p.stderr
        (jid, *_), = _queued(c)
        assert f"UserId={a.name}({a.uid})" in _show(c, jid)
        p = as_user(c, b, "scrontab -l")
        assert (p.returncode, p.stdout) == (1, f"no crontab for {b.name}\n")
    finally:
        c.run(["scrontab", "-u", a.name, "-r"])
    assert _queued(c) == []


def test_options_an_entry_cannot_take(sc):
    for opt, name in (("-H", "--hold"), ("--array=1-3", "--array"),
                      ("--begin=now+1hour", "--begin"), ("--wrap=true", "--wrap")):
        p = _set(sc, f"#SCRON {opt}\n0 1 * * * /bin/true\n")
        assert (p.returncode, p.stderr) == (1, f"scrontab: fatal: {name} cannot be "
                                               "used in a crontab\n"), (opt, p.stderr)
    p = _set(sc, "#SCRON --help\n0 1 * * * /bin/true\n")
    assert p.returncode == 1 and "Invalid directive found in crontab: --help" in \
        p.stderr, p.stderr
    assert sc.run(["scrontab", "-l"]).returncode == 1  # nothing was set


def test_edit_comes_back_with_a_bad_option_marked(sc):
    """scrontab -e: an #SCRON line with an option an entry cannot have is
    shown again in the editor marked #BAD: (the edit is not lost), and the
    corrected crontab is set."""
    c = sc
    seen = c.work / "seen"
    editor = c.work / "editor.sh"
    editor.write_text(
        "#!/bin/sh\n"
        f"if [ -e {seen} ]; then\n"
        f"  cp \"$1\" {seen}.2\n"
        "  printf '#SCRON -J fixed\\n0 1 * * * /bin/true\\n' > \"$1\"\n"
        "else\n"
        f"  cp \"$1\" {seen}\n"
        "  printf '#SCRON --hold\\n0 1 * * * /bin/true\\n' > \"$1\"\n"
        "fi\n")
    editor.chmod(0o755)
    master, slave = os.openpty()
    try:
        os.write(master, b"y\n")  # retry the edit
        p = subprocess.run(["scrontab", "-e"], stdin=slave, capture_output=True,
                           cwd=str(c.work),
                           text=True, timeout=60, env={**c.env, "EDITOR": str(editor),
                                                       "VISUAL": ""})
    finally:
        os.close(slave)
        os.close(master)
    assert p.returncode == 0, (p.stdout, p.stderr)
    assert "scrontab: fatal: --hold cannot be used in a crontab" in p.stderr
    assert "There are errors in your crontab." in p.stdout
    assert (c.work / "seen.2").read_text() == \
        "#BAD: #SCRON --hold\n0 1 * * * /bin/true\n"
    assert c.run(["scrontab", "-l"]).stdout == "#SCRON -J fixed\n0 1 * * * /bin/true\n"
    (jid, name, *_), = _queued(c)
    assert name == "fixed"


def test_requeue_waits_for_the_next_start(sc):
    """scontrol requeue of an entry's job: it comes back at its next start,
    not at once."""
    c = sc
    out = c.work / "ran"
    assert _set(c, f"* * * * * sleep 300; date >> {out}\n").returncode == 0
    (jid, *_), = _queued(c)
    c.wait_for(lambda: c.job_state(jid) == "RUNNING" or None, timeout=100,
               what="the entry running")
    assert c.run(["scontrol", "requeue", jid]).returncode == 0
    s = _show(c, jid)
    eligible = time.mktime(time.strptime(_field(s, "EligibleTime"), "%Y-%m-%dT%H:%M:%S"))
    assert eligible % 60 == 0 and eligible > time.time(), s
    assert "CronJob=Yes" in s and "Restarts=1" in s, s


def test_max_job_count_counts_every_entry(make_cluster):
    c = make_cluster()
    c.down()
    with open(c.conf_path, "a") as f:
        f.write("ScronParameters=enable\nMaxJobCount=3\n")
    c.up()
    p = _set(c, "".join(f"{m} 1 * * * /bin/true\n" for m in range(5)))
    assert p.returncode == 1, p.stdout
    assert p.stdout.startswith("There was an issue with the job submission on lines "
                               "4-4\n"), p.stdout
    assert _queued(c) == []
