"""slurm.conf Prolog and Epilog: run as root once per job on each node where it
runs; a failing prolog drains the node and requeues the job."""

import os
import time

import pytest

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="prolog/epilog run as root")

SCRIPT = """#!/bin/sh
echo "$SLURM_SCRIPT_CONTEXT $SLURM_JOB_ID $SLURMD_NODENAME $SLURM_JOB_USER" >> {log}
{extra}
exit 0
"""


def configure(cluster, tmp_path, prolog_extra=""):
    log = tmp_path / "scripts.log"
    for name, extra in (("prolog", prolog_extra), ("epilog", "")):
        p = tmp_path / f"{name}.sh"
        p.write_text(SCRIPT.format(log=log, extra=extra))
        p.chmod(0o755)
    cluster.down()
    with open(cluster.conf_path, "a") as f:
        f.write(f"Prolog={tmp_path}/prolog.sh\nEpilog={tmp_path}/epilog.sh\n")
    cluster.up()
    return log


def lines(log):
    return sorted(log.read_text().splitlines()) if log.exists() else []


def test_prolog_and_epilog_run_once_per_node(fresh_cluster, tmp_path):
    c = fresh_cluster
    log = configure(c, tmp_path)
    jobid = c.sbatch("-N", "2", "-o", "/dev/null", "--wrap", "srun true; srun true")
    assert c.wait_job(jobid) == "COMPLETED"
    user = c.user
    want = sorted([f"prolog_slurmd {jobid} node01 {user}",
                   f"prolog_slurmd {jobid} node02 {user}",
                   f"epilog_slurmd {jobid} node01 {user}",
                   f"epilog_slurmd {jobid} node02 {user}"])
    c.wait_for(lambda: lines(log) == want, timeout=15, what=f"{want} in {lines(log)}")


def test_failing_prolog_drains_and_requeues(fresh_cluster, tmp_path):
    c = fresh_cluster
    configure(c, tmp_path, prolog_extra='[ "$SLURMD_NODENAME" = node01 ] && exit 1')
    jobid = c.sbatch("-o", "out-%j.txt", "--wrap", "hostname")
    assert c.wait_job(jobid, timeout=60) == "COMPLETED"
    assert c.job_field(jobid, "Restarts") == "1"
    assert c.job_field(jobid, "BatchHost") != "node01"
    p = c.run(["sinfo", "-h", "-N", "-n", "node01", "-o", "%t %E"])
    assert p.stdout.strip().split(None, 1) == ["drain", "Prolog error"], p.stdout


def test_task_prolog_sets_environment(fresh_cluster, tmp_path):
    c = fresh_cluster
    tp = tmp_path / "taskprolog.sh"
    tp.write_text("#!/bin/sh\necho export FROM_TASK_PROLOG=yes-$SLURM_PROCID\n"
                  "echo unset DROP_ME\necho print hello from the task prolog\n")
    tp.chmod(0o755)
    c.down()
    with open(c.conf_path, "a") as f:
        f.write(f"TaskProlog={tp}\n")
    c.up()
    p = c.run("DROP_ME=1 srun -n2 -l sh -c 'echo v=$FROM_TASK_PROLOG d=${DROP_ME:-gone}' | sort")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "0: hello from the task prolog", "0: v=yes-0 d=gone",
        "1: hello from the task prolog", "1: v=yes-1 d=gone"], p.stdout


def test_job_configuring_while_prolog_runs(fresh_cluster, tmp_path):
    """A batch job is CONFIGURING (CF) from its start until its node has run
    the Prolog, then RUNNING; the transition survives a controller restart."""
    c = fresh_cluster
    flag = tmp_path / "go"
    configure(c, tmp_path, prolog_extra=(
        f"for i in $(seq 600); do [ -e {flag} ] && break; sleep 0.1; done"))
    jobid = c.sbatch("-o", "/dev/null", "--wrap", "sleep 60")
    c.wait_for(lambda: c.job_state(jobid) == "CONFIGURING", timeout=20,
               what="CONFIGURING")
    p = c.run(["squeue", "-h", "-j", str(jobid), "-o", "%t"])
    assert p.stdout.strip() == "CF"
    p = c.run(["squeue", "-h", "-t", "CF", "-o", "%i"])
    assert p.stdout.split() == [str(jobid)]
    time.sleep(1)  # still waiting for the prolog
    assert c.job_state(jobid) == "CONFIGURING"
    flag.touch()
    c.wait_running(jobid)
    p = c.run(["squeue", "-h", "-j", str(jobid), "-o", "%t"])
    assert p.stdout.strip() == "R"
    # journaled: a restarted controller still has it RUNNING, not CONFIGURING
    c.kill_daemon("rotactld")
    c.up()
    assert c.job_state(jobid) == "RUNNING"
    c.run(["scancel", str(jobid)])


def test_srun_job_not_configuring(fresh_cluster, tmp_path):
    c = fresh_cluster
    configure(c, tmp_path)
    p = c.run(["srun", "sh", "-c", "squeue -h -j $SLURM_JOB_ID -o %t"], timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "R"
