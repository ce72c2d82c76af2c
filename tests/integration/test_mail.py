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
    assert "MailUser=root MailType=BEGIN,END" in p.stdout


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
    """TIME_LIMIT_50: once half the limit has run."""
    jobid = cluster.sbatch("--mail-type=TIME_LIMIT_50", "-t", "1", "-J", "tl",
                           "--wrap", "sleep 120")
    rows = mails(cluster, jobid, 1, timeout=60)
    assert re.fullmatch(rf"Slurm Job_id={jobid} Name=tl Reached 50% of time limit, "
                        r"Run time 00:00:3\d", rows[0][1]), rows
    cluster.run(["scancel", str(jobid)])


def test_invalid_mail_type_refused(cluster):
    p = cluster.run(["sbatch", "--mail-type=SOMETIMES", "--wrap", "true"])
    assert p.returncode != 0
    assert "--mail-type=SOMETIMES invalid" in p.stderr
    # never an option of MailProg
    p = cluster.run(["sbatch", "--mail-type=END", "--mail-user=-Sx", "--wrap", "true"])
    assert p.returncode != 0
    assert "--mail-user=-Sx invalid" in p.stderr
