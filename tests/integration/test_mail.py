"""--mail-type / --mail-user: the controller runs MailProg with Slurm's
subjects for the events a job asked about.  The module's MailProg is a script
that writes its arguments and SLURM_JOB_* variables to a log, one line per
mail; MailDomain is set."""

import os
import re
import tempfile

import pytest

from conftest import module_cluster_with, write_script

LOG_DIR = tempfile.mkdtemp(prefix="rota-mail-")
os.chmod(LOG_DIR, 0o777)
LOG = os.path.join(LOG_DIR, "mail.log")
PROG = os.path.join(LOG_DIR, "mailprog")


def _conf(path):
    write_script(PROG, "#!/bin/sh\n"
                       f'echo "$1|$2|$3|$SLURM_JOB_ID|$SLURM_JOB_STATE|'
                       f'$SLURM_JOB_MAIL_TYPE" >> {LOG}\n')
    with open(path, "a") as f:
        f.write(f"MailProg={PROG}\nMailDomain=example.org\n")


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(_conf)


def mails(cluster, jobid, count, timeout=30):
    def enough():
        if not os.path.exists(LOG):
            return None
        rows = [r.split("|") for r in open(LOG).read().splitlines()]
        rows = [r for r in rows if r[3] == str(jobid)]
        return rows if len(rows) >= count else None
    return cluster.wait_for(enough, timeout=timeout, what=f"{count} mail(s) of {jobid}")


def test_begin_and_end(cluster):
    """BEGIN and END (ALL covers both): "Began, Queued time", then "Ended,
    Run time ..., COMPLETED, ExitCode 0", to the job's user @MailDomain;
    scontrol shows MailUser and MailType."""
    jobid = cluster.sbatch("--mail-type=BEGIN,END", "-J", "mj", "--wrap", "sleep 1")
    assert cluster.wait_job(jobid) == "COMPLETED"
    rows = mails(cluster, jobid, 2)
    assert rows[0][0] == "-s" and rows[1][0] == "-s"
    assert re.fullmatch(rf"Slurm Job_id={jobid} Name=mj Began, Queued time "
                        r"\d\d:\d\d:\d\d", rows[0][1]), rows
    assert re.fullmatch(rf"Slurm Job_id={jobid} Name=mj Ended, Run time "
                        r"\d\d:\d\d:\d\d, COMPLETED, ExitCode 0", rows[1][1]), rows
    assert rows[0][2] == rows[1][2] == "root@example.org"
    assert rows[1][4:] == ["COMPLETED", "Ended"]
    p = cluster.run(["scontrol", "show", "job", str(jobid)], check=True)
    # the address mails go to, MailDomain included, as Slurm shows it
    assert "MailUser=root@example.org MailType=BEGIN,END" in p.stdout


def test_fail_and_user(cluster):
    """FAIL for a failed job (not END's words), to --mail-user as given; a
    job without --mail-type sends nothing."""
    jobid = cluster.sbatch("--mail-type=FAIL", "--mail-user=ops@site.example",
                           "-J", "bad", "--wrap", "exit 3")
    quiet = cluster.sbatch("--wrap", "exit 3")
    assert cluster.wait_job(jobid) == "FAILED"
    assert cluster.wait_job(quiet) == "FAILED"
    rows = mails(cluster, jobid, 1)
    assert re.fullmatch(rf"Slurm Job_id={jobid} Name=bad Failed, Run time "
                        r"\d\d:\d\d:\d\d, FAILED, ExitCode 3", rows[0][1]), rows
    assert rows[0][2] == "ops@site.example"
    ok = cluster.sbatch("--mail-type=FAIL", "--wrap", "true")
    assert cluster.wait_job(ok) == "COMPLETED"
    assert not [r for r in open(LOG).read().splitlines()
                if r.split("|")[3] in (str(quiet), str(ok))]


def test_time_limit_marks(cluster):
    """TIME_LIMIT_50: once half the limit has run; TIME_LIMIT when the limit
    ends the job, before its Failed mail (Slurm's test1.48)."""
    jobid = cluster.sbatch("--mail-type=TIME_LIMIT_50,TIME_LIMIT,FAIL", "-t", "1",
                           "-J", "tl", "--wrap", "sleep 120")
    rows = mails(cluster, jobid, 1, timeout=60)
    assert re.fullmatch(rf"Slurm Job_id={jobid} Name=tl Reached 50% of time limit, "
                        r"Run time 00:00:3\d", rows[0][1]), rows
    rows = mails(cluster, jobid, 3, timeout=90)
    # the two are sent one after the other; MailProg's runs may log either first
    last = sorted(rows[1:], key=lambda r: r[5])
    assert re.fullmatch(rf"Slurm Job_id={jobid} Name=tl Failed, Run time 00:01:0\d, "
                        r"TIMEOUT, ExitCode 0", last[0][1]), rows
    assert re.fullmatch(rf"Slurm Job_id={jobid} Name=tl Reached time limit, "
                        r"Run time 00:01:0\d", last[1][1]), rows
    assert last[1][5] == "Reached time limit", rows


def test_requeue_mail_has_the_run_time(cluster):
    """REQUEUE: "Requeued, Run time T" of the run the requeue ended."""
    jobid = cluster.sbatch("--mail-type=REQUEUE", "--requeue", "-J", "rq",
                           "--wrap", "sleep 300")
    cluster.wait_running(jobid)
    cluster.run(["scontrol", "requeue", str(jobid)], check=True)
    rows = mails(cluster, jobid, 1)
    assert re.fullmatch(rf"Slurm Job_id={jobid} Name=rq Requeued, Run time 00:00:\d\d",
                        rows[0][1]), rows
    cluster.run(["scancel", str(jobid)])


def test_invalid_mail_type_refused(cluster):
    p = cluster.run(["sbatch", "--mail-type=SOMETIMES", "--wrap", "true"])
    assert p.returncode != 0
    assert "--mail-type=SOMETIMES invalid" in p.stderr
    # never an option of MailProg
    p = cluster.run(["sbatch", "--mail-type=END", "--mail-user=-Sx", "--wrap", "true"])
    assert p.returncode != 0
    assert "--mail-user=-Sx invalid" in p.stderr


def test_an_array_mails_once_unless_array_tasks(cluster):
    """An array mails as one job (Slurm's summary): Began when its first
    task starts, Ended when its last ends, the tasks' exit codes as a range
    (Mixed: some 0, some not); ARRAY_TASKS mails each task."""
    arr = cluster.sbatch("--array=0-3", "--mail-type=BEGIN,END", "-J", "am",
                         "--wrap", 'exit $((SLURM_ARRAY_TASK_ID == 2))')
    rows = mails(cluster, arr, 2, timeout=60)
    for t in range(4):
        cluster.wait_job(f"{arr}_{t}")
    ours = [r for r in open(LOG).read().splitlines()
            if f"Job_id={arr}_" in r.split("|")[1]]
    assert len(ours) == 2, ours
    assert rows[0][1] == f"Slurm Array Summary Job_id={arr}_* ({arr}) Name=am Began"
    assert rows[1][1] == (f"Slurm Array Summary Job_id={arr}_* ({arr}) Name=am "
                          "Ended, Mixed, ExitCode [0-1]"), rows
    assert rows[1][5] == "Ended"
    # FAIL asked too: a task's non-zero exit makes it Failed
    bad = cluster.sbatch("--array=0-1", "--mail-type=END,FAIL", "-J", "af",
                         "--wrap", "exit 3")
    rows = mails(cluster, bad, 1, timeout=60)
    assert rows[0][1] == (f"Slurm Array Summary Job_id={bad}_* ({bad}) Name=af "
                          "Failed, FAILED, ExitCode [3-3]"), rows
    # each task's own mails with ARRAY_TASKS
    each = cluster.sbatch("--array=0-1", "--mail-type=END,ARRAY_TASKS", "-J", "ae",
                          "--wrap", "true")
    for t in range(2):
        assert cluster.wait_job(f"{each}_{t}") == "COMPLETED"
    subjects = cluster.wait_for(
        lambda: (lambda s: s if len(s) >= 2 else None)(
            [r.split("|")[1] for r in open(LOG).read().splitlines()
             if f"Job_id={each}_" in r.split("|")[1]]),
        timeout=30, what="two task mails")
    assert sorted(re.sub(r" \(\d+\).*", "", x) for x in subjects) == [
        f"Slurm Array Task Job_id={each}_0", f"Slurm Array Task Job_id={each}_1"]


def test_an_array_summary_counts_cancelled_and_requeued_tasks(cluster):
    """A cancelled task counts as killed by signal 9 (Slurm's MaxSignal); a
    requeued task makes one Requeued summary at the end and ', with requeued
    tasks' in the End's words, and the array begins once."""
    arr = cluster.sbatch("--array=0-1", "--mail-type=END", "-J", "ac",
                         "--wrap", "sleep 300")
    for t in range(2):
        cluster.wait_running(f"{arr}_{t}")
    cluster.run(["scancel", str(arr)], check=True)
    rows = mails(cluster, arr, 1, timeout=60)
    assert rows[0][1] == (f"Slurm Array Summary Job_id={arr}_* ({arr}) Name=ac "
                          "Ended, Mixed, MaxSignal [9]"), rows
    rq = cluster.sbatch("--array=0-1", "--mail-type=BEGIN,END,REQUEUE", "-J", "ar",
                        "--wrap", "sleep 3")
    cluster.wait_running(f"{rq}_0")
    cluster.run(["scontrol", "requeue", f"{rq}_0"], check=True)
    rows = mails(cluster, rq, 3, timeout=120)
    head = f"Slurm Array Summary Job_id={rq}_* ({rq}) Name=ar "
    # the two end summaries go out together: their MailProg runs race
    assert rows[0][1] == head + "Began", rows
    assert sorted(r[1] for r in rows[1:]) == sorted([
        head + "Requeued",
        head + "Ended, COMPLETED, ExitCode [0-0], with requeued tasks"]), rows
