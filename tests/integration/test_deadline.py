"""--deadline and --time-min, as Slurm 22.05 has them: a submission whose
--time-min cannot end before the deadline, or whose deadline is past, is
refused in Slurm's words; one whose time limit cannot is taken and ends
DEADLINE, as does a pending job that can no longer make it (reason
DeadLine, exit code 0:1), when the scheduler next looks at it; scontrol show
job prints TimeMin and Deadline."""

import re


SUBMIT_ERR = "sbatch: error: Batch job submission failed: "


def refused(cluster, *args):
    before = cluster.run(["squeue", "-h", "-t", "all", "-o", "%i"], check=True).stdout
    p = cluster.run(["sbatch", *args, "--wrap", "true"])
    assert p.returncode == 1, p
    assert cluster.run(["squeue", "-h", "-t", "all", "-o", "%i"],
                       check=True).stdout == before
    return p.stderr.strip()


def test_submissions_that_cannot_make_it_are_refused(cluster):
    assert refused(cluster, "--deadline=now+120", "--time-min=5", "-t", "10") == \
        SUBMIT_ERR + "Invalid time-min specification (exceeds job's time or other limits)"
    assert refused(cluster, "--time-min=20", "-t", "10") == \
        SUBMIT_ERR + "Invalid time-min specification (exceeds job's time or other limits)"
    assert refused(cluster, "--deadline=2001-01-01T00:00:00") == \
        SUBMIT_ERR + "Requested time limit is invalid (missing or exceeds some limit)"
    p = cluster.run(["sbatch", "--deadline=someday", "--wrap", "true"])
    assert p.returncode != 0 and "Invalid --deadline specification" in p.stderr


def test_show_job_prints_time_min_and_deadline(cluster):
    job = cluster.sbatch("-H", "--deadline=now+1hour", "--time-min=5", "-t", "30",
                         "--wrap", "true")
    out = cluster.run(["scontrol", "show", "job", str(job)], check=True).stdout
    assert re.search(r"TimeLimit=00:30:00 TimeMin=00:05:00\n", out), out
    assert re.search(r"Deadline=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n", out), out
    plain = cluster.sbatch("-H", "--wrap", "true")
    out = cluster.run(["scontrol", "show", "job", str(plain)], check=True).stdout
    assert "TimeMin=N/A" in out and "Deadline=N/A" in out


def test_a_limit_past_the_deadline_is_taken_and_ends_deadline(cluster):
    """Slurm's controller refuses a time limit past the deadline only for a
    --time-min of 0 (its test15.31: salloc --deadline now+1hour -t120 is
    taken): the scheduler ends such a job DEADLINE instead of starting it."""
    for cmd in (["sbatch", "-o", "/dev/null", "--wrap", "true"],
                ["salloc", "true"]):
        p = cluster.run([cmd[0], "--deadline=now+60", "-t", "5", *cmd[1:]])
        if cmd[0] == "sbatch":
            assert p.returncode == 0, p.stderr
            job = int(p.stdout.split()[-1])
            cluster.wait_for(lambda: cluster.job_state(job) == "DEADLINE" or None,
                             timeout=30, what="the job ended DEADLINE")
            assert cluster.job_field(job, "Reason") == "DeadLine"
        else:
            assert p.returncode == 1
            assert "Requested time limit is invalid" not in p.stderr, p.stderr
            assert re.search(r"Job allocation \d+ has been revoked", p.stderr), \
                p.stderr


def test_a_waiting_job_past_its_deadline_ends_deadline(cluster):
    first = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_running(first)
    # it may start for a minute now, not after the 62 s are nearly gone
    late = cluster.sbatch("-d", f"afterok:{first}", "--deadline=now+62", "--time-min=1",
                          "-t", "10", "--wrap", "true")
    on_time = cluster.sbatch("-d", f"afterok:{first}", "--deadline=now+1hour",
                             "-t", "10", "--wrap", "true")

    def nudge_and_state():
        cluster.sbatch("-o", "/dev/null", "--wrap", "true")  # a scheduling pass
        return cluster.job_state(late)

    cluster.wait_for(lambda: nudge_and_state() == "DEADLINE", timeout=30,
                     what="the late job ended DEADLINE")
    assert cluster.job_field(late, "Reason") == "DeadLine"
    assert cluster.job_field(late, "ExitCode") == "0:1"
    assert cluster.job_state(on_time) == "PENDING"
    assert cluster.job_field(on_time, "Reason") == "Dependency"


def test_a_job_starts_with_its_limit_cut_to_the_deadline(cluster):
    """Slurm's test1.103 and 1.107: a limit longer than the time to the
    deadline is cut to it (the seconds rounded down) when the job starts."""
    max_time = cluster.run(["sinfo", "-h", "-o", "%l"], check=True).stdout.split()[0]
    cut = cluster.sbatch("-o", "/dev/null", "--deadline=now+30minutes", "-t", "50",
                         "--time-min=20", "--wrap", "sleep 300")
    short = cluster.sbatch("-o", "/dev/null", "--deadline=now+1hour", "-t", "10",
                           "--wrap", "sleep 300")
    for j in (cut, short):
        cluster.wait_running(j)
    assert cluster.job_field(cut, "TimeLimit") in ("00:29:00", "00:30:00")
    assert cluster.job_field(cut, "TimeMin") == "00:20:00"
    assert cluster.job_field(short, "TimeLimit") == "00:10:00"
    if max_time == "infinite":
        none = cluster.sbatch("-o", "/dev/null", "--deadline=now+1hour", "--wrap",
                              "sleep 300")
        cluster.wait_running(none)
        assert cluster.job_field(none, "TimeLimit") in ("00:59:00", "01:00:00")
        assert cluster.job_field(none, "TimeMin") == "00:01:00"
    # the cut limit is the job's: it survives the controller's restart
    cluster.kill_daemon("rotactld")
    cluster.up()
    assert cluster.job_field(cut, "TimeLimit") in ("00:29:00", "00:30:00")


def test_srun_with_a_deadline(cluster):
    p = cluster.run(["srun", "--deadline", "2015-03-27T04:30:00", "-t1", "true"])
    assert p.returncode == 1
    assert "Requested time limit is invalid (missing or exceeds some limit)" in p.stderr
    p = cluster.run(["srun", "-N1", "--deadline", "now+1hour", "--time-min", "120", "true"])
    assert p.returncode == 1 and "Invalid time-min specification" in p.stderr
    p = cluster.run(["srun", "-N1", "--deadline", "now+30minutes", "-t50", "--time-min=1",
                     "true"])
    assert p.returncode == 0, p.stderr


def test_begin_after_deadline_is_refused(cluster):
    """Slurm's test1.108: --begin later than --deadline, refused by the
    command itself."""
    for cmd in (["sbatch", "--wrap", "true"], ["srun", "true"]):
        p = cluster.run([cmd[0], "-N1", "--begin", "now+2hour", "--deadline", "now+1hour",
                         *cmd[1:]])
        assert p.returncode == 1
        assert p.stderr.strip() == \
            f"{cmd[0]}: error: Incompatible begin and deadline time specification"
