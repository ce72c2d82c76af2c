"""Partition limits at submit: with EnforcePartLimits=ALL a job over MaxTime or
MaxNodes (or under MinNodes) is refused with Slurm's message; with the default
(NO) it is accepted and waits with PartitionTimeLimit / PartitionNodeLimit."""

SHORT = "PartitionName=short Nodes=node[01-04] MaxTime=10 MaxNodes=2 State=UP\n"
TIME = ("sbatch: error: Batch job submission failed: Requested time limit is "
        "invalid (missing or exceeds some limit)\n")
COUNT = "sbatch: error: Batch job submission failed: Node count specification invalid\n"


def cluster_with(make_cluster, extra):
    c = make_cluster()
    c.down()
    with open(c.conf_path, "a") as f:
        f.write(extra)
    c.up()
    return c


def test_enforced_limits_refuse_at_submit(make_cluster):
    c = cluster_with(make_cluster, "EnforcePartLimits=ALL\n" + SHORT)
    p = c.run(["sbatch", "-p", "short", "-t", "20", "--wrap", "true"], cwd=c.work)
    assert (p.returncode, p.stderr) == (1, TIME)
    p = c.run(["sbatch", "-p", "short", "-N3", "--wrap", "true"], cwd=c.work)
    assert (p.returncode, p.stderr) == (1, COUNT)
    p = c.run(["squeue", "-h", "-o", "%i"])
    assert p.stdout.strip() == ""  # nothing was queued
    ok = c.sbatch("-p", "short", "-t", "5", "-N2", "-o", "/dev/null", "--wrap", "true",
                  cwd=c.work)
    assert c.wait_job(ok) == "COMPLETED"


def test_default_limits_make_jobs_wait(make_cluster):
    c = cluster_with(make_cluster, SHORT)
    assert c.conf_value("EnforcePartLimits") in (None, "NO")
    long = c.sbatch("-p", "short", "-t", "20", "--wrap", "true", cwd=c.work)
    wide = c.sbatch("-p", "short", "-N3", "--wrap", "true", cwd=c.work)
    c.wait_for(lambda: c.job_field(long, "Reason") == "PartitionTimeLimit",
               what="PartitionTimeLimit")
    c.wait_for(lambda: c.job_field(wide, "Reason") == "PartitionNodeLimit",
               what="PartitionNodeLimit")
