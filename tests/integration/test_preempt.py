"""Preemption by partition priority (PreemptType=preempt/partition_prio): a
job of a higher-tier partition that cannot start takes the resources of the
fewest, youngest running jobs of lower tiers it needs; PreemptMode (the
partition's, else the global one) says whether they end PREEMPTED or are
requeued, or suspended and resumed once the preemptor is done; GraceTime
gives them SIGTERM that many seconds before the end; PreemptMode=OFF
partitions are left alone."""

import pytest

from conftest import module_cluster_with

PREEMPT = """
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
PartitionName=low Nodes=ALL PriorityTier=1
PartitionName=lowrq Nodes=ALL PriorityTier=1 PreemptMode=REQUEUE
PartitionName=grace Nodes=ALL PriorityTier=1 GraceTime=4
PartitionName=off Nodes=ALL PriorityTier=1 PreemptMode=OFF
PartitionName=lowsus Nodes=ALL PriorityTier=1 PreemptMode=SUSPEND
PartitionName=high Nodes=ALL PriorityTier=10
"""


def _rewrite(path):
    with open(path, "a") as f:
        f.write(PREEMPT)


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(_rewrite)


def fill(cluster, part, *extra):
    """One 8-CPU job on each of the 4 nodes, running, oldest first."""
    jobs = []
    for _ in range(4):
        j = cluster.sbatch("-p", part, "-N1", "-n8", "-o", "/dev/null", *extra,
                           "--wrap", "sleep 300")
        cluster.wait_running(j)
        jobs.append(j)
    return jobs


def states(cluster, jobs):
    return [cluster.job_state(j) for j in jobs]


def test_cancel_takes_the_youngest_it_needs(cluster):
    low = fill(cluster, "low")
    hi = cluster.sbatch("-p", "high", "-N1", "-n8", "-o", "/dev/null", "--wrap",
                        "sleep 300")
    cluster.wait_running(hi, timeout=30)
    assert states(cluster, low) == ["RUNNING", "RUNNING", "RUNNING", "PREEMPTED"]
    assert cluster.job_field(low[3], "ExitCode") == "0:15"
    assert cluster.job_field(hi, "NodeList") == cluster.job_field(low[3], "NodeList")
    # a second one takes the next youngest
    hi2 = cluster.sbatch("-p", "high", "-N1", "-n8", "-o", "/dev/null", "--wrap",
                         "sleep 300")
    cluster.wait_running(hi2, timeout=30)
    assert states(cluster, low) == ["RUNNING", "RUNNING", "PREEMPTED", "PREEMPTED"]


def test_requeue_puts_the_job_back(cluster):
    jobs = fill(cluster, "lowrq")
    hi = cluster.sbatch("-p", "high", "-N2", "-n16", "-o", "/dev/null", "--wrap",
                        "sleep 300")
    cluster.wait_running(hi, timeout=30)
    assert states(cluster, jobs[:2]) == ["RUNNING", "RUNNING"]
    for j in jobs[2:]:
        assert cluster.job_state(j) in ("PENDING", "REQUEUED")
        assert cluster.job_field(j, "Restarts") == "1"
    # the requeued ones run again when the preemptor is gone
    cluster.run(["scancel", str(hi)], check=True)
    for j in jobs[2:]:
        cluster.wait_running(j, timeout=60)


def test_grace_time_sends_sigterm_first(cluster):
    script = cluster.work / "trap.sh"
    script.write_text("#!/bin/bash\n"
                      f"trap 'echo term > {cluster.work}/got_term_$SLURM_JOB_ID' TERM\n"
                      f"touch {cluster.work}/ready_$SLURM_JOB_ID\n"
                      "sleep 300 & wait; sleep 300 & wait\n")
    jobs = []
    for _ in range(4):
        j = cluster.sbatch("-p", "grace", "-N1", "-n8", "-o", "/dev/null", str(script))
        cluster.wait_running(j)
        jobs.append(j)
    # its trap set (a SIGTERM before it would end the script at once)
    cluster.wait_for(lambda: (cluster.work / f"ready_{jobs[3]}").exists(),
                     what="the youngest job's trap")
    hi = cluster.sbatch("-p", "high", "-N1", "-n8", "-o", "/dev/null", "--wrap",
                        "sleep 300")
    cluster.wait_for(lambda: (cluster.work / f"got_term_{jobs[3]}").exists(),
                     timeout=20, what="SIGTERM to the preempted job")
    # still running within its grace time, and the preemptor waits
    assert cluster.job_state(jobs[3]) == "RUNNING"
    assert cluster.job_state(hi) == "PENDING"
    cluster.wait_running(hi, timeout=30)
    assert cluster.job_state(jobs[3]) == "PREEMPTED"
    assert states(cluster, jobs[:3]) == ["RUNNING"] * 3


def test_preempt_mode_off_is_left_alone(cluster):
    jobs = fill(cluster, "off")
    hi = cluster.sbatch("-p", "high", "-N1", "-n8", "-o", "/dev/null", "--wrap",
                        "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(hi, "Reason") == "Resources",
                     what="the high job waiting")
    cluster.sbatch("-o", "/dev/null", "--wrap", "true")  # another pass
    assert states(cluster, jobs) == ["RUNNING"] * 4
    assert cluster.job_state(hi) == "PENDING"


def test_same_tier_is_not_preempted(cluster):
    low = fill(cluster, "low")
    other = cluster.sbatch("-p", "lowrq", "-N1", "-n8", "-o", "/dev/null", "--wrap",
                           "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(other, "Reason") == "Resources",
                     what="waiting")
    assert states(cluster, low) == ["RUNNING"] * 4


def test_partitions_show_their_preempt_mode_and_grace_time(cluster):
    def show(part):
        out = cluster.run(["scontrol", "-o", "show", "partition", part], check=True).stdout
        return dict(w.split("=", 1) for w in out.split() if "=" in w)

    assert show("low")["PreemptMode"] == "CANCEL"
    assert show("lowrq")["PreemptMode"] == "REQUEUE"
    assert show("off")["PreemptMode"] == "OFF"
    assert show("grace")["GraceTime"] == "4" and show("low")["GraceTime"] == "0"
    out = cluster.run(["sinfo", "-h", "-p", "lowrq", "-o", "%M"], check=True).stdout
    assert out.split() == ["REQUEUE"]


def test_suspend_stops_the_youngest_and_resumes_it_after(cluster):
    low = fill(cluster, "lowsus")
    hi = cluster.sbatch("-p", "high", "-N1", "-n8", "-o", "/dev/null", "--wrap",
                        "sleep 300")
    cluster.wait_running(hi, timeout=30)
    assert states(cluster, low) == ["RUNNING", "RUNNING", "RUNNING", "SUSPENDED"]
    assert cluster.job_field(hi, "NodeList") == cluster.job_field(low[3], "NodeList")
    out = cluster.run(["scontrol", "show", "partition", "lowsus"], check=True).stdout
    assert "PreemptMode=SUSPEND" in out
    # the preemptor done, the suspended job goes on where it was
    cluster.run(["scancel", str(hi)], check=True)
    cluster.wait_for(lambda: cluster.job_state(low[3]) == "RUNNING", timeout=30,
                     what="the suspended job resumed")
    assert states(cluster, low) == ["RUNNING"] * 4
