"""Preemption by QOS (PreemptType=preempt/qos): a waiting job whose QOS
lists others in its Preempt= takes the resources of running jobs of those
QOS, youngest first; jobs of QOS it does not list are left alone; the QOS's
PreemptMode and GraceTime apply."""

import pytest

from conftest import module_cluster_with


def _rewrite(path):
    with open(path, "a") as f:
        f.write("PreemptType=preempt/qos\nPreemptMode=CANCEL\n")


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(_rewrite)


def mgr(c, *args):
    return c.run(["sacctmgr", "-i", *args], check=True)


def test_qos_preempts_only_what_it_lists(cluster):
    mgr(cluster, "add", "qos", "lowq", "Priority=1")
    mgr(cluster, "add", "qos", "requeueq", "Priority=1", "PreemptMode=requeue")
    mgr(cluster, "add", "qos", "highq", "Priority=100", "Preempt=lowq,requeueq")
    got = cluster.run(["sacctmgr", "-n", "-P", "list", "qos", "highq",
                       "format=name,preempt"], check=True).stdout.split()
    assert got == ["highq|lowq,requeueq"], got

    def run(qos):
        j = cluster.sbatch(f"--qos={qos}", "-N1", "-n8", "-o", "/dev/null", "--wrap",
                           "sleep 300")
        cluster.wait_running(j)
        return j

    normal = run("normal")
    low_old = run("lowq")
    rq = run("requeueq")
    low_young = run("lowq")
    hi = cluster.sbatch("--qos=highq", "-N1", "-n8", "-o", "/dev/null", "--wrap",
                        "sleep 300")
    cluster.wait_running(hi, timeout=30)
    # the youngest of the lowest priority goes
    assert cluster.job_state(low_young) == "PREEMPTED"
    assert [cluster.job_state(j) for j in (normal, low_old, rq)] == ["RUNNING"] * 3
    hi2 = cluster.sbatch("--qos=highq", "-N1", "-n8", "-o", "/dev/null", "--wrap",
                         "sleep 300")
    cluster.wait_running(hi2, timeout=30)
    # requeueq and lowq have the same priority: the younger (requeueq) goes,
    # requeued as its QOS says
    assert cluster.job_state(rq) in ("PENDING", "REQUEUED")
    assert cluster.job_field(rq, "Restarts") == "1"
    assert cluster.job_state(low_old) == "RUNNING"
    # normal is not in highq's list: a third highq job waits
    hi3 = cluster.sbatch("--qos=highq", "-N2", "-n16", "-o", "/dev/null", "--wrap",
                         "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(hi3, "Reason") == "Resources",
                     what="waiting")
    assert cluster.job_state(normal) == "RUNNING"
