"""sbatch/srun --test-only: the job is checked as a submission would be and
the earliest start is printed ("sbatch: Job N to start at T using C
processors on nodes H in partition P"), from the running jobs' time limits;
nothing is submitted, journaled or given an id."""
import os
import re
import time

from conftest import write_script
from test_backfill import blocker, iso

LINE = re.compile(r"^(sbatch|srun): Job (\d+) to start at (\S+) using (\d+) processors "
                  r"on nodes (\S+) in partition (\S+)$")


def will_run(c, cmd, *args, env=None):
    """Run cmd --test-only ARGS: (job id, start, cpus, nodes, partition)."""
    p = c.run([cmd, "--test-only", *args], env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "", p.stdout
    m = LINE.match(p.stderr.strip())
    assert m and m.group(1) == cmd, p.stderr
    return (int(m.group(2)), iso(m.group(3)), int(m.group(4)), m.group(5),
            m.group(6))


def job_ids(c):
    out = c.run(["squeue", "-h", "-t", "all", "-o", "%i"], check=True).stdout
    return sorted(int(x) for x in out.split())


def journal_size(c):
    return os.path.getsize(os.path.join(c.dir, "state", "journal"))


def test_start_after_the_running_jobs_limits(cluster):
    c = cluster
    b = blocker(c)  # node[01-03] for up to 10 minutes
    t0 = time.time()
    before, size = job_ids(c), journal_size(c)

    jid, start, cpus, nodes, part = will_run(c, "sbatch", "-N4", "-t", "5",
                                             "--wrap", "true")
    assert t0 + 9 * 60 <= start <= t0 + 11 * 60, start
    assert nodes == "node[01-04]" and cpus >= 4 and part == "debug"
    assert jid > b

    # one node: now, on the free one
    jid1, start, cpus, nodes, _ = will_run(c, "sbatch", "-N1", "--wrap", "true")
    assert jid1 == jid
    assert abs(start - time.time()) <= 5, start
    assert (nodes, cpus) == ("node04", 1)
    # --begin: not before it
    _, start, _, _, _ = will_run(c, "sbatch", "-N1", "--begin", "now+1hour",
                                 "--wrap", "true")
    assert start >= t0 + 3600 - 5, start

    # nothing submitted or journaled, no id taken
    assert job_ids(c) == before
    assert journal_size(c) == size
    assert c.sbatch("-o", "/dev/null", "--wrap", "true") == jid


def test_srun_runs_nothing(cluster):
    c = cluster
    b = blocker(c)
    before = job_ids(c)
    write_script(c.work / "mark.sh", "#!/bin/sh\ntouch ran\n")
    jid, start, cpus, nodes, _ = will_run(c, "srun", "-N2", "./mark.sh")
    assert time.time() + 8 * 60 <= start, start
    assert nodes in ("node[01-02]", "node[01,04]", "node[02,04]", "node[03-04]",
                     "node[01,03]", "node[02-03]"), nodes
    # no command needed; inside an allocation it asks about a new job
    _, start, _, nodes, _ = will_run(c, "srun", "-N1")
    assert nodes == "node04" and abs(start - time.time()) <= 5
    _, _, _, nodes, _ = will_run(c, "srun", "-N1", "hostname",
                                 env={"SLURM_JOB_ID": str(b)})
    assert nodes == "node04"
    assert not (c.work / "ran").exists()
    assert job_ids(c) == before
    assert c.sbatch("-o", "/dev/null", "--wrap", "true") == jid


def test_refusals_are_the_submissions(cluster):
    c = cluster
    before = job_ids(c)
    for args in (["-p", "nosuch"], ["-N", "5"], ["-C", "nosuch"], ["-t", "junk"]):
        test = c.run(["sbatch", "--test-only", *args, "--wrap", "true"])
        real = c.run(["sbatch", *args, "--wrap", "true"])
        assert test.returncode == 1 and real.returncode != 0, (args, test.stderr)
        why = real.stderr.strip().split("Batch job submission failed: ")[-1]
        assert why and why in test.stderr, (args, test.stderr, real.stderr)
    p = c.run(["sbatch", "--test-only", "-p", "nosuch", "--wrap", "true"])
    assert p.stderr.strip() == ("sbatch: error: invalid partition specified: nosuch\n"
                                "sbatch: error: allocation failure: "
                                "Invalid partition name specified"), p.stderr
    p = c.run(["srun", "--test-only", "-p", "nosuch", "true"])
    assert p.returncode == 1
    assert "srun: error: allocation failure: Invalid partition name" in p.stderr
    assert job_ids(c) == before


def test_components(cluster):
    c = cluster
    blocker(c)
    p = c.run(["sbatch", "--test-only", "-N1", ":", "-N2", "--wrap", "true"])
    assert p.returncode == 0, p.stderr
    m = re.match(r"^sbatch: Job \d+ to start at (\S+) using 3 processors on (\S+)$",
                 p.stderr.strip())
    assert m, p.stderr
    assert iso(m.group(1)) >= time.time() + 8 * 60
