"""scontrol create|update|delete partition, as Slurm 22.05's (its tests
test2.16 to test2.19 among them): what is shown, which jobs are refused or
wait, admins only, all or nothing, a partition in use kept, the changes kept
over a controller's restart and dropped by scontrol reconfigure.

The module's cluster has EnforcePartLimits=ALL, so a job its partition does
not allow is refused at submission (with NO it would wait, as one does when
its partition changes under it: that is tested too)."""

import re
import socket
import time

import pytest

from conftest import module_cluster_with
from unixusers import as_user, needs_root

UPDATE_ERR = "slurm_update error: "
CREATE_ERR = "Error creating the partition: "
SUBMIT_ERR = "sbatch: error: Batch job submission failed: "


def _enforce(path):
    with open(path, "a") as f:
        f.write("EnforcePartLimits=ALL\n")


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(rewrite_conf=_enforce)


def scontrol(c, *args, check=True):
    p = c.run(["scontrol", *args])
    if check:
        assert p.returncode == 0, f"scontrol {args}: {p.stderr}"
        assert p.stderr == "", p.stderr
    return p


def show(c, name, *opts):
    """`scontrol show partition NAME` as a dict of its Key=Value fields, or
    None when not found."""
    p = c.run(["scontrol", *opts, "-o", "show", "partition", name])
    if p.returncode != 0 or not p.stdout.startswith("PartitionName="):
        return None
    return dict(kv.split("=", 1) for kv in p.stdout.split())


def names(c, *opts):
    p = c.run(["scontrol", *opts, "-o", "show", "partition"])
    return re.findall(r"^PartitionName=(\S+)", p.stdout, re.M)


def sbatch(c, *args):
    return c.run(["sbatch", "--parsable", "-o", "/dev/null", *args])


def submitted(c, *args):
    p = sbatch(c, *args)
    assert p.returncode == 0, f"sbatch {args}: {p.stderr}"
    return int(p.stdout.strip().split(";")[0])


def reason(c, jobid):
    p = c.run(["squeue", "-h", "-j", str(jobid), "-o", "%T %r"])
    return p.stdout.strip()


@pytest.fixture
def part(cluster):
    """A name for a partition of this test's own, deleted after it."""
    made = []

    def name(tag):
        made.append(f"tp_{tag}")
        return made[-1]
    yield name
    cluster.cancel_all()
    for n in made:
        # a job still completing there keeps it a moment
        cluster.wait_for(
            lambda: cluster.run(["scontrol", "delete", f"partition={n}"]).stderr
            in ("", f"delete_partition partition={n}: Invalid partition name "
                    "specified\n") or None,
            what=f"partition {n} deleted")


def test_create_show_delete(cluster, part):
    c, n = cluster, part("csd")
    p = scontrol(c, "create", f"partition={n}", "nodes=node01")
    assert p.stdout == ""
    f = show(c, n)
    assert f["Nodes"] == "node01" and f["TotalNodes"] == "1" and f["TotalCPUs"] == "8"
    assert f["State"] == "UP" and f["Default"] == "NO"
    assert f["AllowAccounts"] == "ALL" and f["AllowQos"] == "ALL"
    assert f["MaxTime"] == "UNLIMITED" and f["Hidden"] == "NO"
    # PartitionName= works as partition= does; the same name twice does not
    p = c.run(["scontrol", "create", f"PartitionName={n}", "Nodes=node02"])
    assert p.returncode == 1
    assert p.stderr == CREATE_ERR + "Invalid partition name specified\n"
    assert show(c, n)["Nodes"] == "node01"
    p = c.run(["scontrol", "create", "PartitionName=DEFAULT"])
    assert p.returncode == 1
    assert p.stderr == 'scontrol: error: PartitionName cannot be "DEFAULT".\n'
    scontrol(c, "delete", f"partition={n}")
    assert show(c, n) is None
    assert n not in names(c)
    p = c.run(["scontrol", "delete", f"PartitionName={n}"])
    assert p.returncode == 1
    assert p.stderr == (f"delete_partition PartitionName={n}: "
                        "Invalid partition name specified\n")
    p = c.run(["scontrol", "update", f"PartitionName={n}", "State=DOWN"])
    assert p.returncode == 1
    assert p.stderr == UPDATE_ERR + "Invalid partition name specified\n"
    # test2.16's: a partition of no nodes, its name alone
    e = part("empty")
    scontrol(c, "create", f"partition={e}")
    f = show(c, e)
    assert f["Nodes"] == "(null)" and f["TotalNodes"] == "0"


def test_allow_and_deny_accounts(cluster, part):
    """test2.16 and test2.18: what scontrol show says, and who is let in."""
    c, n = cluster, part("acct")
    scontrol(c, "create", f"partition={n}", "nodes=node02")
    scontrol(c, "update", f"partitionname={n}", "allowaccount=tp_good")
    assert show(c, n)["AllowAccounts"] == "tp_good"
    submitted(c, "-p", n, "-A", "tp_good", "--wrap", "true")
    p = sbatch(c, "-p", n, "-A", "tp_bad", "--wrap", "true")
    assert p.returncode == 1
    assert p.stderr == SUBMIT_ERR + ("Invalid account or account/partition "
                                     "combination specified\n")
    p = c.run(["srun", "-I5", "-A", "tp_bad", "-p", n, "true"])
    assert p.returncode != 0 and "Invalid account" in p.stderr

    scontrol(c, "update", f"partitionname={n}", "allowaccount=ALL")
    assert show(c, n)["AllowAccounts"] == "ALL"
    submitted(c, "-p", n, "-A", "tp_bad", "--wrap", "true")
    scontrol(c, "update", f"partitionname={n}", "denyaccount=tp_bad")
    f = show(c, n)
    assert f["DenyAccounts"] == "tp_bad" and "AllowAccounts" not in f
    assert sbatch(c, "-p", n, "-A", "tp_bad", "--wrap", "true").returncode == 1
    submitted(c, "-p", n, "-A", "tp_good", "--wrap", "true")
    scontrol(c, "update", f"partitionname={n}", "denyaccount=none")
    assert show(c, n)["DenyAccounts"] == "none"
    submitted(c, "-p", n, "-A", "tp_bad", "--wrap", "true")


def test_allow_and_deny_qos(cluster, part):
    """test2.17 and test2.19."""
    c, n = cluster, part("qos")
    p = c.run("sacctmgr -i add qos tp_qgood,tp_qbad")
    assert p.returncode == 0, p.stderr
    try:
        scontrol(c, "create", f"partition={n}", "nodes=node02")
        scontrol(c, "update", f"partitionname={n}", "AllowQos=tp_qgood")
        assert show(c, n)["AllowQos"] == "tp_qgood"
        submitted(c, "-p", n, "--qos", "tp_qgood", "--wrap", "true")
        p = sbatch(c, "-p", n, "--qos", "tp_qbad", "--wrap", "true")
        assert p.returncode == 1
        assert p.stderr == SUBMIT_ERR + "Invalid qos specification\n"
        scontrol(c, "update", f"partitionname={n}", "AllowQos=ALL")
        assert show(c, n)["AllowQos"] == "ALL"
        scontrol(c, "update", f"partitionname={n}", "DenyQos=tp_qbad")
        assert show(c, n)["DenyQos"] == "tp_qbad"
        assert sbatch(c, "-p", n, "--qos", "tp_qbad", "--wrap", "true").returncode == 1
        submitted(c, "-p", n, "--qos", "tp_qgood", "--wrap", "true")
        scontrol(c, "update", f"partitionname={n}", "DenyQos=none")
        assert show(c, n)["DenyQos"] == "none"
    finally:
        c.cancel_all()
        c.run("sacctmgr -i delete qos tp_qgood,tp_qbad")


def test_pending_job_waits_when_its_account_is_no_longer_allowed(cluster, part):
    c, n = cluster, part("later")
    scontrol(c, "create", f"partition={n}", "nodes=node03", "State=DOWN")
    jid = submitted(c, "-p", n, "-A", "tp_late", "--wrap", "true")
    c.wait_for(lambda: reason(c, jid) == "PENDING PartitionDown" or None,
               what="the job waiting on its DOWN partition")
    scontrol(c, "update", f"partitionname={n}", "AllowAccounts=tp_other", "State=UP")
    c.wait_for(lambda: reason(c, jid) == "PENDING AccountNotAllowed" or None,
               what="the job waiting on its account")
    scontrol(c, "update", f"partitionname={n}", "AllowAccounts=ALL")
    assert c.wait_job(jid) == "COMPLETED"


def test_down_drain_inactive(cluster, part):
    c, n = cluster, part("state")
    scontrol(c, "create", f"partition={n}", "nodes=node03")
    running = submitted(c, "-p", n, "--wrap", "sleep 300")
    c.wait_running(running)
    scontrol(c, "update", f"partitionname={n}", "State=DOWN")
    assert show(c, n)["State"] == "DOWN"
    # DOWN: submissions taken, nothing started; what runs goes on
    waiting = submitted(c, "-p", n, "--wrap", "true")
    c.wait_for(lambda: reason(c, waiting) == "PENDING PartitionDown" or None,
               what="PartitionDown")
    time.sleep(2)
    assert reason(c, waiting) == "PENDING PartitionDown"
    assert c.job_state(running) == "RUNNING"
    # DRAIN: no new submissions; those queued run
    scontrol(c, "update", f"partitionname={n}", "State=DRAIN")
    p = sbatch(c, "-p", n, "--wrap", "true")
    assert p.returncode == 1
    assert p.stderr == SUBMIT_ERR + ("Required partition not available "
                                     "(inactive or drain)\n")
    c.run(["scancel", str(running)])
    assert c.wait_job(waiting) == "COMPLETED"
    # INACTIVE: neither
    scontrol(c, "update", f"partitionname={n}", "State=UP")
    queued = submitted(c, "-p", n, "--hold", "--wrap", "true")
    scontrol(c, "update", f"partitionname={n}", "State=INACTIVE")
    assert sbatch(c, "-p", n, "--wrap", "true").returncode == 1
    c.run(["scontrol", "release", str(queued)])
    c.wait_for(lambda: reason(c, queued) == "PENDING PartitionInactive" or None,
               what="PartitionInactive")
    # its Alternate takes what it does not
    scontrol(c, "update", f"partitionname={n}", "Alternate=debug")
    assert show(c, n)["Alternate"] == "debug"
    jid = submitted(c, "-p", n, "--wrap", "true")
    assert c.job_field(jid, "Partition") == "debug"
    scontrol(c, "update", f"partitionname={n}", "State=UP")
    assert c.wait_job(queued) == "COMPLETED"


def test_nodes_change(cluster, part):
    c, n = cluster, part("nodes")
    scontrol(c, "create", f"partition={n}", "nodes=node01")
    jid = submitted(c, "-p", n, "--wrap", "true")
    assert c.wait_job(jid) == "COMPLETED"
    assert c.job_field(jid, "NodeList") == "node01"
    scontrol(c, "update", f"partitionname={n}", "nodes=node04")
    f = show(c, n)
    assert f["Nodes"] == "node04" and f["TotalNodes"] == "1"
    jid = submitted(c, "-p", n, "--wrap", "true")
    assert c.wait_job(jid) == "COMPLETED"
    assert c.job_field(jid, "NodeList") == "node04"
    assert "node04" in c.job_field(jid, "NodeList")
    p = c.run(["scontrol", "show", "node", "node04"])
    assert re.search(rf"Partitions=\S*{n}", p.stdout), p.stdout
    scontrol(c, "update", f"partitionname={n}", "nodes=node[02-03]")
    jid = submitted(c, "-p", n, "-N2", "--wrap", "true")
    assert c.wait_job(jid) == "COMPLETED"
    assert c.job_field(jid, "NodeList") == "node[02-03]"


def test_max_time(cluster, part):
    c, n = cluster, part("time")
    scontrol(c, "create", f"partition={n}", "nodes=node02", "MaxTime=10")
    assert show(c, n)["MaxTime"] == "00:10:00"
    p = sbatch(c, "-p", n, "-t", "20", "--wrap", "true")
    assert p.returncode == 1
    assert p.stderr == SUBMIT_ERR + ("Requested time limit is invalid (missing or "
                                     "exceeds some limit)\n")
    submitted(c, "-p", n, "-t", "5", "--wrap", "true")
    scontrol(c, "update", f"partitionname={n}", "MaxTime=30")
    assert show(c, n)["MaxTime"] == "00:30:00"
    submitted(c, "-p", n, "-t", "20", "--wrap", "true")


def test_bad_key_or_value_changes_nothing(cluster):
    c = cluster
    before = c.run(["scontrol", "show", "partition", "debug"]).stdout
    p = c.run(["scontrol", "update", "PartitionName=debug", "State=DOWN",
               "Flavour=sweet"])
    assert p.returncode == 1
    assert p.stderr == ("scontrol: error: Update of this parameter is not "
                        "supported: Flavour=sweet\n\nscontrol: error: Request "
                        "aborted\n")
    p = c.run(["scontrol", "update", "PartitionName=debug", "State=DOWN",
               "MaxTime=forever"])
    assert p.returncode == 1
    assert p.stderr == "scontrol: error: Invalid input MaxTime=forever\n"
    p = c.run(["scontrol", "update", "PartitionName=debug", "State=sideways"])
    assert p.returncode == 1
    assert p.stderr == ("scontrol: error: Invalid input: State=sideways\n"
                        "scontrol: error: Acceptable State values are UP, DOWN, "
                        "DRAIN and INACTIVE\n")
    p = c.run(["scontrol", "update", "PartitionName=debug"])
    assert p.returncode == 1
    assert p.stderr == "scontrol: error: No changes specified\n"
    # the controller's checks: a node that is none, all the same
    p = c.run(["scontrol", "update", "PartitionName=debug", "State=DOWN",
               "Nodes=node[01-09]"])
    assert p.returncode == 1
    assert p.stderr == UPDATE_ERR + "Invalid node name specified\n"
    p = c.run(["scontrol", "update", "PartitionName=debug", "State=DOWN",
               "TRESBillingWeights=CPU=lots"])
    assert p.returncode == 1
    assert p.stderr == UPDATE_ERR + "Invalid TRESBillingWeights specification\n"
    assert c.run(["scontrol", "show", "partition", "debug"]).stdout == before


@needs_root
def test_admins_only(ucluster, users):
    c, a = ucluster, users["a"]
    before = c.run(["scontrol", "show", "partition", "debug"]).stdout
    p = as_user(c, a, "scontrol update PartitionName=debug State=DOWN")
    assert p.returncode == 1
    assert p.stderr == UPDATE_ERR + "Invalid user id\n"
    p = as_user(c, a, "scontrol create partition=tp_mine")
    assert p.returncode == 1
    assert p.stderr == CREATE_ERR + "Invalid user id\n"
    p = as_user(c, a, "scontrol delete partition=debug")
    assert p.returncode == 1
    assert p.stderr == "delete_partition partition=debug: Invalid user id\n"
    assert c.run(["scontrol", "show", "partition", "debug"]).stdout == before
    assert "tp_mine" not in names(c)


def test_delete_refused_while_in_use(cluster, part):
    c, n = cluster, part("del")
    scontrol(c, "create", f"partition={n}", "nodes=node04")
    jid = submitted(c, "-p", n, "--wrap", "sleep 300")
    c.wait_running(jid)
    p = c.run(["scontrol", "delete", f"partition={n}"])
    assert p.returncode == 1
    assert p.stderr == f"delete_partition partition={n}: Partition is in use\n"
    c.run(["scancel", str(jid)])
    c.wait_job(jid)
    held = submitted(c, "-p", n, "--hold", "--wrap", "true")
    p = c.run(["scontrol", "delete", "partition", n])  # the two-word form
    assert p.returncode == 1
    assert p.stderr == "delete_partition partition: Partition is in use\n"
    c.run(["scancel", str(held)])
    c.wait_job(held)
    scontrol(c, "delete", f"partition={n}")
    assert show(c, n) is None


def test_default_and_hidden(cluster, part):
    c, n = cluster, part("def")
    scontrol(c, "create", f"partition={n}", "nodes=node01", "Default=YES", "Hidden=YES")
    try:
        assert show(c, "debug")["Default"] == "NO"
        assert n not in names(c)  # hidden: shown with -a alone
        assert show(c, n) is None
        assert show(c, n, "-a")["Default"] == "YES"
        assert n not in c.run(["sinfo", "-h", "-o", "%P"]).stdout
        assert n in c.run(["sinfo", "-a", "-h", "-o", "%P"]).stdout
        jid = submitted(c, "--wrap", "true")
        assert c.job_field(jid, "Partition") == n
        assert c.wait_job(jid) == "COMPLETED"
        c.wait_for(lambda: c.run(["scontrol", "delete", f"partition={n}"]).returncode
                   == 0 or None, what="the partition deleted once its job is gone")
        # as Slurm: no default partition now
        p = sbatch(c, "--wrap", "true")
        assert p.returncode == 1
        assert p.stderr == SUBMIT_ERR + ("No partition specified or system default "
                                         "partition\n")
    finally:
        c.run(["scontrol", "update", "PartitionName=debug", "Default=YES"])
    assert show(c, "debug")["Default"] == "YES"


def test_kept_over_restart_dropped_by_reconfigure(fresh_cluster):
    c = fresh_cluster
    scontrol(c, "create", "PartitionName=tp_made", "Nodes=node[02-03]", "MaxTime=45",
             "AllowAccounts=physics")
    scontrol(c, "update", "PartitionName=debug", "State=DOWN", "Nodes=node[01-02]")
    scontrol(c, "create", "PartitionName=tp_gone", "Nodes=node04")
    scontrol(c, "delete", "PartitionName=tp_gone")
    want = {n: show(c, n) for n in ("debug", "tp_made")}
    assert want["debug"]["State"] == "DOWN"
    c.kill_daemon("rotactld")
    c.up()
    assert {n: show(c, n) for n in ("debug", "tp_made")} == want
    assert names(c, "-a") == ["debug", "tp_made"]
    # and from the compacted journal (its snapshot)
    c.compact_journal()
    c.kill_daemon("rotactld")
    c.up()
    assert {n: show(c, n) for n in ("debug", "tp_made")} == want
    jid = submitted(c, "--wrap", "true")
    c.wait_for(lambda: reason(c, jid) == "PENDING PartitionDown" or None,
               what="PartitionDown after the restart")
    # scontrol reconfigure reads slurm.conf again: the changes are gone, and
    # stay gone after a restart
    c.run(["scancel", str(jid)])
    c.wait_job(jid)
    scontrol(c, "reconfigure")
    assert names(c, "-a") == ["debug"]
    f = show(c, "debug")
    assert f["State"] == "UP" and f["Nodes"] == "node[01-04]"
    c.kill_daemon("rotactld")
    c.up()
    assert names(c, "-a") == ["debug"]
    assert show(c, "debug")["State"] == "UP"


def test_reconfig_flags_keep(fresh_cluster):
    """ReconfigFlags=KeepPartInfo keeps every change over a reconfigure;
    KeepPartState only each partition's State."""
    c = fresh_cluster
    with open(c.conf_path, "a") as f:
        f.write("ReconfigFlags=KeepPartInfo\n")
    scontrol(c, "reconfigure")
    scontrol(c, "create", "PartitionName=tp_kept", "Nodes=node04")
    scontrol(c, "update", "PartitionName=debug", "State=DOWN", "MaxTime=20")
    scontrol(c, "reconfigure")
    assert names(c) == ["debug", "tp_kept"]
    f = show(c, "debug")
    assert f["State"] == "DOWN" and f["MaxTime"] == "00:20:00"
    c.kill_daemon("rotactld")
    c.up()
    assert names(c) == ["debug", "tp_kept"]
    assert show(c, "debug")["MaxTime"] == "00:20:00"

    text = open(c.conf_path).read().replace("KeepPartInfo", "KeepPartState")
    with open(c.conf_path, "w") as f:
        f.write(text)
    scontrol(c, "reconfigure")
    assert names(c) == ["debug"]
    f = show(c, "debug")
    assert f["State"] == "DOWN" and f["MaxTime"] == "01:00:00"
    c.kill_daemon("rotactld")
    c.up()
    assert names(c) == ["debug"]
    f = show(c, "debug")
    assert f["State"] == "DOWN" and f["MaxTime"] == "01:00:00"


@needs_root
def test_root_only_in_a_list_or_by_update(ucluster, users, part):
    """Every partition of -p a,b must let the job in, and so must one an
    update moves a pending job to: RootOnly here."""
    c, a, n = ucluster, users["a"], part("root")
    scontrol(c, "create", f"partition={n}", "nodes=node04", "RootOnly=YES")
    for parts in (n, f"debug,{n}", f"{n},debug"):
        p = as_user(c, a, f"sbatch -p {parts} --wrap true", cwd=c.work)
        assert p.returncode == 1, (parts, p.stdout)
        assert "Access/permission denied" in p.stderr, p.stderr
    p = as_user(c, a, "sbatch --parsable -H -o /dev/null -p debug --wrap true",
                cwd=c.work)
    assert p.returncode == 0, p.stderr
    jid = int(p.stdout.strip())
    for parts in (n, f"debug,{n}"):
        p = as_user(c, a, f"scontrol update JobId={jid} Partition={parts}")
        assert p.returncode == 1 and "Access/permission denied" in p.stderr, p.stderr
    assert c.job_field(jid, "Partition") == "debug"
    c.run(["scancel", str(jid)], check=True)


def test_srun_and_salloc_say_at_once_why_they_wait(cluster, part):
    """A request that cannot start for a reason of its own (its partition
    DOWN, a hold) is told so at once, before "queued and waiting", in
    Slurm's words: scripts and Slurm's test3.2 wait for them."""
    c, n = cluster, part("why")
    scontrol(c, "create", f"partition={n}", "nodes=node03", "State=DOWN")
    p = c.run(["timeout", "-s", "INT", "4", "srun", "-p", n, "-N1", "true"])
    lines = p.stderr.splitlines()
    assert lines[0] == "srun: Partition in DOWN state", p.stderr
    assert re.fullmatch(r"srun: job \d+ queued and waiting for resources", lines[1]), \
        p.stderr
    scontrol(c, "update", f"partitionname={n}", "State=UP")
    p = c.run(["timeout", "-s", "INT", "4", "salloc", "-p", n, "-H", "true"])
    lines = p.stderr.splitlines()
    assert lines[0] == "salloc: Job is in held state, pending scheduler release", \
        p.stderr
    assert re.fullmatch(r"salloc: Pending job allocation \d+", lines[1]), p.stderr
    # a plain wait for resources says nothing more
    running = submitted(c, "-p", n, "--exclusive", "--wrap", "sleep 300")
    c.wait_running(running)
    p = c.run(["timeout", "-s", "INT", "4", "srun", "-p", n, "true"])
    assert re.match(r"srun: job \d+ queued and waiting for resources\n", p.stderr), \
        p.stderr


def test_billing_weights_as_written(cluster, part):
    """TRESBillingWeights takes what Slurm takes, negative weights and units
    among them, and shows them as written (Slurm's test3.5)."""
    c, n = cluster, part("bill")
    scontrol(c, "create", f"partition={n}", "nodes=node03")
    weights = "cPu=1,mem=-0.5G,node=.3,energy=-10"
    scontrol(c, "update", f"partitionname={n}", f"TRESBillingWeights={weights}")
    assert show(c, n)["TRESBillingWeights"] == weights


def test_alloc_nodes_limits_where_jobs_come_from(cluster, part):
    """AllocNodes: only jobs submitted from those hosts get in (Slurm's
    words); ALL lets every host in again."""
    c, n = cluster, part("alloc")
    scontrol(c, "create", f"partition={n}", "nodes=node03", "AllocNodes=elsewhere")
    assert show(c, n)["AllocNodes"] == "elsewhere"
    p = sbatch(c, "-p", n, "--wrap", "true")
    assert p.returncode == 1
    assert p.stderr == SUBMIT_ERR + "Access/permission denied\n"
    p = c.run(["srun", "-p", n, "true"])
    assert p.returncode == 1
    assert "Unable to allocate resources: Access/permission denied" in p.stderr
    scontrol(c, "update", f"partitionname={n}",
             f"AllocNodes=elsewhere,{socket.gethostname().split('.')[0]}")
    assert submitted(c, "-p", n, "--wrap", "true")
    scontrol(c, "update", f"partitionname={n}", "AllocNodes=ALL")
    assert submitted(c, "-p", n, "--wrap", "true")
