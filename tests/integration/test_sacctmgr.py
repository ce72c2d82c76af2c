"""sacctmgr: accounts, users, associations and QOS kept by the controller
(journaled: they survive restarts and compactions), changed by operators
only, listed as Slurm prints them; jobs get their user's DefaultAccount, and
AccountingStorageEnforce=associations refuses a job without an association."""
import os
import re
import signal
import time

import pytest

from unixusers import as_user, needs_root


def mgr(c, *args, check=True, input=None):
    p = c.run(["sacctmgr", *args], input=input)
    if check:
        assert p.returncode == 0, f"sacctmgr {args}: {p.stdout}{p.stderr}"
    return p


def rows(c, *args):
    out = mgr(c, "-n", "-P", *args).stdout
    return [line.split("|") for line in out.splitlines()]


@pytest.fixture
def clean(cluster):
    """The module cluster with only what every cluster has: accounts and QOS
    a test added are removed after it."""
    yield cluster
    for u, in rows(cluster, "list", "user", "format=user"):
        if u != "root":
            mgr(cluster, "-i", "delete", "user", u, check=False)
    accts = [a for a, in rows(cluster, "list", "account", "format=account") if a != "root"]
    for _ in range(len(accts)):  # children first, whatever the order
        for a in accts:
            mgr(cluster, "-i", "delete", "account", a, check=False)
    for q, in rows(cluster, "list", "qos", "format=name"):
        if q != "normal":
            mgr(cluster, "-i", "delete", "qos", q, check=False)
    for r, in rows(cluster, "list", "resource", "format=name"):
        mgr(cluster, "-i", "delete", "resource", r, check=False)


def test_every_cluster_has_root_and_normal(clean):
    c = clean
    out = mgr(c, "list", "account").stdout.splitlines()
    assert out[0] == "   Account                Descr                  Org "
    assert out[1] == "---------- -------------------- -------------------- "
    assert out[2] == "      root default root account                 root "
    assert rows(c, "list", "user") == [["root", "root", "Administrator"]]
    # 13 characters in a column of 9: cut with a '+', as Slurm does
    assert mgr(c, "list", "user").stdout.splitlines()[2].endswith(" Administ+ ")
    q = rows(c, "list", "qos", "format=name,priority,usagefactor,preemptmode")
    assert q == [["normal", "0", "1.000000", "cluster"]]


def test_account_tree_users_and_listing(clean):
    c = clean
    p = mgr(c, "-i", "add", "account", "physics", "Description=Physics dept",
            "Organization=science")
    # Slurm's layout: the accounts, their settings, their associations
    # (Slurm's tests look for "Associations")
    assert p.stdout == (" Adding Account(s)\n  physics\n Settings\n"
                        "  Description     = Physics dept\n"
                        "  Organization    = science\n"
                        " Associations\n  A = physics    C = rota      \n")
    mgr(c, "-i", "add", "account", "theory", "parent=physics")
    mgr(c, "-i", "add", "user", "alice", "account=theory,physics",
        "DefaultAccount=theory")
    assert rows(c, "list", "account", "format=account,descr,org") == [
        ["root", "default root account", "root"],
        ["physics", "Physics dept", "science"],
        ["theory", "theory", "physics"]]  # Org: the parent's, as Slurm
    assert rows(c, "list", "assoc", "format=account,user,parentname,share,qos",
                "where", "account=theory,physics") == [
        ["physics", "", "root", "1", "normal"],
        ["theory", "", "physics", "1", "normal"],
        ["theory", "alice", "", "1", "normal"],
        ["physics", "alice", "", "1", "normal"]]
    assert rows(c, "list", "user", "alice") == [["alice", "theory", "None"]]
    # snakemake's fallback: the user's accounts, padded to 256
    out = mgr(c, "-n", "-s", "list", "user", "alice", "format=account%256").stdout
    assert [line.strip() for line in out.splitlines()] == ["theory", "physics"]
    assert all(len(line) == 257 for line in out.splitlines())
    # -p keeps a trailing bar
    assert mgr(c, "-n", "-p", "list", "user", "alice").stdout == "alice|theory|None|\n"
    # adding what is there: nothing, and said so
    p = mgr(c, "-i", "add", "account", "physics", check=False)
    assert p.returncode == 1 and p.stdout == " Nothing new added.\n"
    # deleting or changing what is not there: as Slurm's, without a full stop
    p = mgr(c, "-i", "delete", "account", "nosuch", check=False)
    assert (p.returncode, p.stdout) == (1, " Nothing deleted\n")
    p = mgr(c, "-i", "modify", "account", "nosuch", "set", "fairshare=3", check=False)
    assert (p.returncode, p.stdout) == (1, " Nothing modified\n")


def test_add_takes_names_from_name_equals(clean):
    """add account name=A, add user name=U account=A (Slurm's tests' spelling):
    Name= names the records; the user's DefaultAccount is its first account
    (AllowNoDefAcct = No, as sacctmgr show config says)."""
    c = clean
    p = mgr(c, "-vi", "add", "account", "name=chem,bio")
    assert p.stdout.startswith(" Adding Account(s)\n  chem\n  bio\n Settings\n"
                               "  Description     = Account Name\n"), p.stdout
    mgr(c, "-vi", "add", "user", "name=carol", "account=bio,chem")
    assert rows(c, "list", "user", "carol") == [["carol", "bio", "None"]]
    mgr(c, "-vi", "delete", "user", "name=carol")
    assert rows(c, "list", "user", "carol") == []
    # User= names a user to add too (test24.7's spelling)
    mgr(c, "-i", "add", "user", "user=dora", "account=chem")
    assert rows(c, "list", "user", "dora") == [["dora", "chem", "None"]]
    mgr(c, "-i", "delete", "user", "dora")


def config_pairs(text):
    """Key = value lines as Slurm's tests read them (get_config)."""
    return dict(re.findall(r"(?m)^(\S+) += (.*)$", text))


def test_show_config_has_slurm_conf_then_rotadbd(clean):
    """sacctmgr show config: slurm.conf's accounting settings, a blank line,
    then rotadbd's own, which it answers (never StoragePass)."""
    c = clean
    p = mgr(c, "show", "config")
    out = p.stdout
    assert re.match(r"Configuration data as of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n", out)
    client, sep, dbd = out.partition("\n\nSlurmDBD configuration:\n")
    assert sep, out
    mine = config_pairs(client)
    assert mine["AccountingStorageType"] == "accounting_storage/slurmdbd"
    assert mine["SLURM_CONF"] == c.conf_path
    assert mine["SLURM_VERSION"] == "22.05.8"
    assert mine["MessageTimeout"] == "10 sec"
    assert mine["TrackWCKey"] == "No"
    assert "AuthType               = " in client  # Slurm's column
    theirs = config_pairs(dbd)
    state = re.search(r"(?m)^StateSaveLocation=(.*)$", open(c.conf_path).read()).group(1)
    assert theirs["AllowNoDefAcct"] == "No"
    assert theirs["TrackWCKey"] == "No"
    assert theirs["StorageType"] == "accounting_storage/sqlite"
    assert theirs["StorageLoc"] == os.path.join(state, "rota_acct.db")
    assert theirs["SLURMDBD_VERSION"] == "22.05.8"
    assert theirs["DbdAddr"] == os.path.join(state, "rotadbd.sock")
    assert theirs["PurgeJobAfter"] == "NONE"
    assert "StoragePass" not in out
    assert list(theirs) == sorted(theirs, key=str.lower)  # slurmdbd's order
    # abbreviated, as Slurm's sacctmgr takes it
    assert config_pairs(mgr(c, "show", "conf").stdout)["StorageType"] == \
        "accounting_storage/sqlite"


def test_limits_are_set_shown_and_cleared(clean):
    c = clean
    mgr(c, "-i", "add", "account", "lim")
    mgr(c, "-i", "add", "user", "bob", "account=lim")
    mgr(c, "-i", "modify", "user", "bob", "set", "MaxJobs=5", "MaxWall=2:00:00",
        "GrpTRES=cpu=8,mem=10G", "Fairshare=10")
    fmt = "format=user,maxjobs,maxwall,grptres,share"
    assert rows(c, "list", "assoc", "user=bob", fmt) == [
        ["bob", "5", "02:00:00", "cpu=8,mem=10G", "10"]]
    mgr(c, "-i", "modify", "user", "where", "name=bob", "set", "MaxJobs=-1")
    assert rows(c, "list", "assoc", "user=bob", "format=maxjobs") == [[""]]
    mgr(c, "-i", "add", "qos", "high", "Priority=100", "MaxJobsPerUser=2",
        "MaxWall=1-00:00:00")
    assert rows(c, "list", "qos", "high", "format=name,priority,maxjobspu,maxwall") == [
        ["high", "100", "2", "1-00:00:00"]]
    mgr(c, "-i", "modify", "account", "lim", "set", "qos+=high")
    assert rows(c, "list", "assoc", "account=lim", "format=user,qos") == [
        ["", "normal,high"], ["bob", "normal,high"]]
    # bad values change nothing
    for bad in (["MaxJobs=many"], ["MaxWall=forever"], ["qos=nosuch"], ["Bogus=1"]):
        p = mgr(c, "-i", "modify", "user", "bob", "set", *bad, check=False)
        assert p.returncode == 1 and "error" in p.stderr, (bad, p.stderr)
    assert rows(c, "list", "assoc", "user=bob", "format=maxjobs,maxwall") == [
        ["", "02:00:00"]]


def test_priority_is_inherited_and_qos_deleted_in_slurms_words(clean):
    """A user association without a Priority of its own has its account's (as
    Slurm's slurmdbd gives it), in sacctmgr and scontrol show assoc, and
    follows the account's changes; one of its own stays.  Deleting a QOS
    says " Deleting QOS(s)..." (its test24.7 looks for it)."""
    c = clean
    mgr(c, "-i", "add", "account", "pa", "Priority=100")
    mgr(c, "-i", "add", "account", "pb", "parent=pa")
    mgr(c, "-i", "add", "user", "bob", "account=pa,pb")
    fmt = "format=account,user,priority"
    assert sorted(rows(c, "list", "assoc", "account=pa,pb", fmt)) == [
        ["pa", "", "100"], ["pa", "bob", "100"], ["pb", "", "100"], ["pb", "bob", "100"]]
    mgr(c, "-i", "modify", "account", "pa", "set", "Priority=50")
    mgr(c, "-i", "modify", "user", "bob", "where", "account=pb", "set", "Priority=7")
    assert sorted(rows(c, "list", "assoc", "account=pa,pb", fmt)) == [
        ["pa", "", "50"], ["pa", "bob", "50"], ["pb", "", "50"], ["pb", "bob", "7"]]
    out = c.run(["scontrol", "show", "assoc", "account=pa", "flags=assoc"],
                check=True).stdout
    assert re.findall(r"Account=pa UserName=(\w*)\S* Partition= Priority=(\d+)",
                      out) == [("", "50"), ("bob", "50")]
    mgr(c, "-i", "add", "qos", "gone")
    p = mgr(c, "-i", "delete", "qos", "gone")
    assert p.stdout == " Deleting QOS(s)...\n  gone\n"


def test_deletes_keep_the_tree_whole(clean):
    c = clean
    mgr(c, "-i", "add", "account", "top")
    mgr(c, "-i", "add", "account", "sub", "parent=top")
    mgr(c, "-i", "add", "user", "carol", "account=sub")
    p = mgr(c, "-i", "delete", "account", "top", check=False)
    assert p.returncode == 1 and "child account sub" in p.stderr
    p = mgr(c, "-i", "delete", "account", "sub", check=False)
    assert p.returncode == 1 and "default account of user carol" in p.stderr
    mgr(c, "-i", "delete", "user", "carol")
    mgr(c, "-i", "delete", "account", "sub")
    mgr(c, "-i", "delete", "account", "top")
    assert rows(c, "list", "account", "format=account") == [["root"]]
    p = mgr(c, "-i", "delete", "account", "root", check=False)
    assert p.returncode == 1


def test_without_immediate_it_asks(clean):
    c = clean
    p = mgr(c, "add", "account", "maybe", input="n\n")
    assert "Would you like to commit changes? (You have 30 seconds to decide)" in p.stdout
    assert p.stdout.endswith(" Changes Discarded\n")
    assert rows(c, "list", "account", "maybe") == []
    mgr(c, "add", "account", "maybe", input="y\n")
    assert rows(c, "list", "account", "maybe", "format=account") == [["maybe"]]


def test_jobs_get_the_default_account(clean):
    c = clean
    mgr(c, "-i", "add", "account", "dflt")
    mgr(c, "-i", "modify", "user", "root", "set", "DefaultAccount=dflt", check=False)
    # root has no association with dflt yet: refused, nothing changed
    assert rows(c, "list", "user", "root", "format=defaultaccount") == [["root"]]
    mgr(c, "-i", "add", "user", "root", "account=dflt")
    mgr(c, "-i", "modify", "user", "root", "set", "DefaultAccount=dflt")
    try:
        j = c.sbatch("--hold", "--wrap", "true")
        assert c.job_field(j, "Account") == "dflt"
        j2 = c.sbatch("--hold", "-A", "root", "--wrap", "true")
        assert c.job_field(j2, "Account") == "root"
    finally:
        mgr(c, "-i", "modify", "user", "root", "set", "DefaultAccount=root")
        mgr(c, "-i", "delete", "user", "root", "where", "account=dflt")


@needs_root
def test_only_operators_change_things(clean, users):
    c = clean
    a = users["a"]
    p = as_user(c, a, "sacctmgr -i add account mine")
    assert p.returncode == 1
    assert "Your user doesn't have privilege to perform this action" in p.stderr
    assert rows(c, "list", "account", "mine") == []
    # anyone may look
    assert as_user(c, a, "sacctmgr -n -P list account root format=account").stdout == \
        "root\n"
    # an Operator may
    mgr(c, "-i", "add", "user", a.name, "account=root", "AdminLevel=Operator")
    p = as_user(c, a, "sacctmgr -i add account mine")
    assert p.returncode == 0, p.stderr
    # but not make an Administrator
    p = as_user(c, a, f"sacctmgr -i modify user {a.name} set AdminLevel=Admin")
    assert p.returncode == 1


STATS_ROW = re.compile(r"^\t(\S+) *\( *(\d+)\) count:(\d+) *ave_time:(\d+) *"
                       r"total_time:(\d+)$")


def stats(c, *args):
    """sacctmgr show stats ARGS: (Data since epoch, by type, by user); each
    section a list of (name, id, count, ave, total), as printed."""
    out = mgr(c, "show", "stats", *args).stdout.splitlines()
    assert out[0] == out[4] == "*" * 67, out
    assert re.fullmatch(r"sacctmgr show stats output at \w{3} \w{3} \d\d "
                        r"\d\d:\d\d:\d\d \d{4} \(\d+\)", out[1]), out
    m = re.fullmatch(r"Data since {20}\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4} "
                     r"\((\d+)\)", out[2])
    assert m, out
    assert out[3] == "All statistics are in microseconds"
    i = out.index("Remote Procedure Call statistics by message type")
    j = out.index("Remote Procedure Call statistics by user")
    assert out[i - 1] == out[j - 1] == "", out

    def section(lines):
        rows = []
        for line in lines:
            r = STATS_ROW.match(line)
            assert r, line
            rows.append((r[1], int(r[2]), int(r[3]), int(r[4]), int(r[5])))
        return rows
    return int(m[1]), section(out[i + 1:j - 1]), section(out[j + 1:])


def test_show_and_clear_stats_of_rotadbd(clean):
    c = clean
    mgr(c, "show", "config")
    mgr(c, "show", "config")
    since, types, users = stats(c)
    names = [t[0] for t in types]
    assert "DBD_GET_CONFIG" in names and "DBD_FINI" in names, types
    # most asked first; a client's connection closing is slurmdbd's DBD_FINI
    assert [t[2] for t in types] == sorted((t[2] for t in types), reverse=True)
    cfg = types[names.index("DBD_GET_CONFIG")]
    assert cfg[2] >= 2 and cfg[3] == cfg[4] // cfg[2]
    # each request counted under its type and under its user
    assert ("root", 0) in [(u[0], u[1]) for u in users]
    assert sum(u[2] for u in users) == sum(t[2] for t in types)
    # by total time
    _, by_total, _ = stats(c, "total_time")
    assert [t[4] for t in by_total] == sorted((t[4] for t in by_total), reverse=True)
    before = int(time.time())
    p = mgr(c, "clear", "stats")
    assert p.stdout == p.stderr == ""
    since2, types, users = stats(c)
    assert since2 >= before >= since
    # counted from the clear on: itself and its connection's end
    assert sorted((t[0], t[2]) for t in types) == [("DBD_CLEAR_STATS", 1), ("DBD_FINI", 1)]
    assert [(u[0], u[2]) for u in users] == [("root", 2)]
    p = mgr(c, "clear", check=False)
    assert p.returncode == 1 and '"Stats"' in p.stderr


@needs_root
def test_only_administrators_clear_stats(clean, users):
    c = clean
    a = users["a"]
    refused = "sacctmgr: error: Your user doesn't have privilege to perform this action\n"
    p = as_user(c, a, "sacctmgr clear stats")
    assert (p.returncode, p.stderr) == (1, refused)
    mgr(c, "-i", "add", "user", a.name, "account=root", "AdminLevel=Operator")
    p = as_user(c, a, "sacctmgr clear stats")
    assert (p.returncode, p.stderr) == (1, refused)
    mgr(c, "-i", "modify", "user", a.name, "set", "AdminLevel=Administrator")
    p = as_user(c, a, "sacctmgr clear stats")
    assert p.returncode == 0, p.stderr
    assert as_user(c, a, "sacctmgr show stats").returncode == 0


def test_records_survive_restart_and_compaction(fresh_cluster):
    c = fresh_cluster
    mgr(c, "-i", "add", "account", "kept", "Description=kept one")
    mgr(c, "-i", "add", "user", "dave", "account=kept", "MaxJobs=3")
    mgr(c, "-i", "add", "resource", "db", "type=license", "count=8", "cluster=rota",
        "percentallowed=50")
    want = rows(c, "list", "assoc", "format=account,user,maxjobs")
    res = [["db", "slurmdb", "License", "8", "50", "", "rota", "50"]]
    c.kill_daemon("rotactld")
    c.up()
    assert rows(c, "list", "assoc", "format=account,user,maxjobs") == want
    assert rows(c, "list", "resource", "withclusters") == res
    # a compaction writes them into the snapshot
    os.kill(c.pid("rotactld"), signal.SIGUSR1)
    c.wait_for(lambda: int(re.search(r"Compactions:\s+(\d+)", c.run(
        ["sdiag"], check=True).stdout).group(1)) > 0, what="a compaction")
    c.down()
    c.up()
    assert rows(c, "list", "assoc", "format=account,user,maxjobs") == want
    assert rows(c, "list", "account", "kept", "format=descr") == [["kept one"]]
    assert rows(c, "list", "resource", "withclusters") == res
    assert "LicenseName=db@slurmdb Total=4 " in c.run(
        ["scontrol", "-o", "show", "lic"], check=True).stdout


def enforce(path):
    with open(path, "a") as f:
        f.write("AccountingStorageEnforce=associations,limits,qos\n"
                "PriorityType=priority/multifactor\nPriorityWeightQOS=1000\n")


@pytest.fixture(scope="module")
def enforced_cluster():
    from conftest import module_cluster_with
    yield from module_cluster_with(enforce)


@needs_root
def test_enforced_associations(enforced_cluster, users, tmp_path):
    from unixusers import user_work
    c = enforced_cluster
    c.work = user_work()
    a = users["a"]
    err = "sbatch: error: Batch job submission failed: Invalid account or " \
          "account/partition combination specified\n"
    p = as_user(c, a, "sbatch --wrap true")
    assert p.returncode == 1 and p.stderr == err
    mgr(c, "-i", "add", "account", "proj")
    mgr(c, "-i", "add", "user", a.name, "account=proj")
    p = as_user(c, a, "sbatch --hold --parsable --wrap true")
    assert p.returncode == 0, p.stderr
    assert c.job_field(int(p.stdout), "Account") == "proj"
    p = as_user(c, a, "sbatch -A root --wrap true")
    assert p.returncode == 1 and p.stderr == err
    c.cancel_all()
    mgr(c, "-i", "delete", "user", a.name)
    mgr(c, "-i", "delete", "account", "proj")


def reason(c, j):
    return c.run(["squeue", "-h", "-j", str(j), "-o", "%T %r"], check=True).stdout.split()


@needs_root
def test_limits_hold_jobs_with_slurms_reasons(enforced_cluster, users):
    from unixusers import user_work
    c = enforced_cluster
    c.work = user_work()
    a, b = users["a"], users["b"]
    mgr(c, "-i", "add", "account", "grp", "GrpTRES=cpu=3")
    mgr(c, "-i", "add", "user", f"{a.name},{b.name}", "account=grp")
    mgr(c, "-i", "modify", "user", a.name, "where", "account=grp", "set", "MaxJobs=1",
        "MaxSubmitJobs=3", "MaxWall=10")
    try:
        def sub(u, args):
            p = as_user(c, u, f"sbatch --parsable -A grp -t 5 {args} --wrap 'sleep 60'")
            return p
        j1 = int(sub(a, "-n1").stdout)
        c.wait_running(j1)
        j2 = int(sub(a, "-n1").stdout)
        c.wait_for(lambda: reason(c, j2) == ["PENDING", "AssocMaxJobsLimit"],
                   what="AssocMaxJobsLimit")
        # the limit is a's: b's job starts past a's waiting one
        j3 = int(sub(b, "-n1").stdout)
        c.wait_running(j3)
        # a fourth of a's (3 pending or running) is refused at submission
        j4 = int(sub(a, "-t 20").stdout)
        c.wait_for(lambda: reason(c, j4) == ["PENDING",
                                             "AssocMaxWallDurationPerJobLimit"],
                   what="AssocMaxWallDurationPerJobLimit")
        p = sub(a, "-n1")
        assert p.returncode == 1
        assert p.stderr == "sbatch: error: Batch job submission failed: Job violates " \
                           "accounting/QOS policy (job submit limit, user's size " \
                           "and/or time limits)\n"
        # the account's CPUs: 2 of 3 run; b's 2-CPU job waits for the group
        j5 = int(sub(b, "-n2").stdout)
        c.wait_for(lambda: reason(c, j5) == ["PENDING", "AssocGrpCpuLimit"],
                   what="AssocGrpCpuLimit")
        # lifting a limit lets the job start
        mgr(c, "-i", "modify", "user", a.name, "where", "account=grp", "set", "MaxJobs=-1")
        c.wait_running(j2)
    finally:
        c.cancel_all()
        mgr(c, "-i", "delete", "user", f"{a.name},{b.name}", check=False)
        mgr(c, "-i", "delete", "account", "grp", check=False)


QOS_ERR = "sbatch: error: Batch job submission failed: Invalid qos specification\n"


def qos_of(c, j):
    return c.run(["squeue", "-h", "-j", str(j), "-o", "%q"], check=True).stdout.strip()


def test_qos_chosen_shown_and_filtered(clean):
    c = clean
    p = c.run(["sbatch", "--qos=nosuch", "--wrap", "true"])
    assert p.returncode == 1 and p.stderr == QOS_ERR
    assert c.run(["squeue", "-h"], check=True).stdout == ""
    mgr(c, "-i", "add", "qos", "high")
    try:
        out = c.work / "q.out"
        j1 = int(c.run(["sbatch", "--parsable", "--qos=high", "-o", str(out), "--wrap",
                        "echo QOS=$SLURM_JOB_QOS; sleep 60"], check=True).stdout)
        j2 = int(c.run(["sbatch", "--parsable", "--hold", "--wrap", "true"],
                       check=True).stdout)
        # names are lower case; no --qos: the association's default
        assert qos_of(c, j1) == "high" and qos_of(c, j2) == "normal"
        assert c.job_field(j1, "QOS") == "high"
        assert c.run(["squeue", "-h", "-q", "high", "-o", "%i"],
                     check=True).stdout.split() == [str(j1)]
        c.wait_for(lambda: out.exists() and out.read_text() == "QOS=high\n",
                   what="SLURM_JOB_QOS in the job")
        # SBATCH_QOS is read as --qos
        p = c.run(["sbatch", "--wrap", "true"], env={"SBATCH_QOS": "nosuch"})
        assert p.returncode == 1 and p.stderr == QOS_ERR
        assert c.run(["scancel", "--qos=high"]).returncode == 0
        c.wait_for(lambda: c.run(["squeue", "-h", "-o", "%i"],
                                 check=True).stdout.split() == [str(j2)],
                   what="scancel --qos=high to cancel only the high job")
        c.wait_for(lambda: c.run(["sacct", "-n", "-X", "-P", "-j", str(j1),
                                  "-o", "qos"]).stdout == "high\n",
                   what="sacct to show the QOS")
    finally:
        c.cancel_all()


@needs_root
def test_qos_enforced_default_and_limits(enforced_cluster, users):
    from unixusers import user_work
    c = enforced_cluster
    c.work = user_work()
    a = users["a"]
    mgr(c, "-i", "add", "qos", "small", "MaxJobsPerUser=1", "Priority=10")
    mgr(c, "-i", "add", "qos", "big", "Priority=100")
    mgr(c, "-i", "add", "account", "lab")
    mgr(c, "-i", "add", "user", a.name, "account=lab")
    try:
        # the association may use normal only (inherited from root)
        p = as_user(c, a, "sbatch --qos=small --wrap true")
        assert p.returncode == 1 and p.stderr == QOS_ERR
        mgr(c, "-i", "modify", "user", a.name, "set", "qos=small,big",
            "defaultqos=small")
        p = as_user(c, a, "sbatch --qos=normal --wrap true")
        assert p.returncode == 1 and p.stderr == QOS_ERR
        # no --qos: its DefaultQOS, whose MaxJobsPerUser holds the second
        j1 = int(as_user(c, a, "sbatch --parsable -t 5 --wrap 'sleep 60'").stdout)
        assert qos_of(c, j1) == "small"
        c.wait_running(j1)
        j2 = int(as_user(c, a, "sbatch --parsable -t 5 --wrap 'sleep 60'").stdout)
        c.wait_for(lambda: reason(c, j2) == ["PENDING", "QOSMaxJobsPerUserLimit"],
                   what="QOSMaxJobsPerUserLimit")
        # the limit is small's: a job in big starts past it
        j3 = int(as_user(c, a, "sbatch --parsable -t 5 --qos=big --wrap 'sleep 60'")
                 .stdout)
        c.wait_running(j3)
        # the multifactor QOS factor: Priority over the largest (100), x 1000
        out = c.run(["sprio", "-h", "-j", str(j2)], check=True).stdout.split()
        assert out[0] == str(j2) and out[-1] == "100", out
        # no DefaultQOS and two allowed: the default (normal) is not one of
        # them, and is refused like a --qos would be
        mgr(c, "-i", "modify", "user", a.name, "set", "defaultqos=-1")
        p = as_user(c, a, "sbatch --wrap true")
        assert p.returncode == 1 and p.stderr == QOS_ERR
    finally:
        c.cancel_all()
        mgr(c, "-i", "delete", "user", a.name, check=False)
        mgr(c, "-i", "delete", "account", "lab", check=False)
        mgr(c, "-i", "delete", "qos", "small,big", check=False)


DENIED = "sacctmgr: error: Your user doesn't have privilege to perform this action\n"


@needs_root
def test_coordinators_manage_their_accounts_only(clean, users):
    c = clean
    a, b = users["a"], users["b"]
    mgr(c, "-i", "add", "account", "lab,other")
    mgr(c, "-i", "add", "user", a.name, "account=lab")
    mgr(c, "-i", "add", "user", b.name, "account=other")
    p = mgr(c, "-i", "add", "coordinator", "account=lab", f"names={a.name}")
    assert p.stdout == (f" Adding Coordinator User(s)\n  {a.name}\n"
                        " To Account(s) and all sub-accounts\n  lab\n")
    assert rows(c, "list", "user", a.name, "withcoord") == [
        [a.name, "lab", "None", "lab"]]
    assert rows(c, "list", "account", "lab", "format=account,coordinators") == [
        ["lab", a.name]]

    def as_a(cmd):
        return as_user(c, a, "sacctmgr -i " + cmd)
    # inside lab: users, sub-accounts, their limits
    p = as_a(f"add user {b.name} account=lab")
    assert p.returncode == 0, p.stderr
    p = as_a("add account lab2 parent=lab")
    assert p.returncode == 0, p.stderr
    p = as_a(f"modify user {b.name} where account=lab2 set MaxJobs=2")
    assert p.returncode == 1  # b has no association in lab2 yet: nothing
    p = as_a(f"add user {b.name} account=lab2 MaxJobs=2")
    assert p.returncode == 0, p.stderr
    assert rows(c, "list", "assoc", f"user={b.name}", "format=account,maxjobs") == [
        ["other", ""], ["lab", ""], ["lab2", "2"]] or \
        sorted(rows(c, "list", "assoc", f"user={b.name}", "format=account,maxjobs")) \
        == [["lab", ""], ["lab2", "2"], ["other", ""]]
    # outside it, or an operator's: refused, nothing changed
    for cmd in (f"add user {a.name} account=other", "add account x parent=other",
                "modify account lab set parent=other", "add qos q2",
                f"modify user {b.name} where account=other set MaxJobs=1",
                f"modify user {a.name} set adminlevel=operator",
                f"delete user {b.name}"):
        p = as_a(cmd)
        assert p.returncode == 1, (cmd, p.stdout, p.stderr)
        assert p.stderr in (DENIED, "sacctmgr: error: Only an Administrator may set "
                                    "AdminLevel\n"), (cmd, p.stderr)
    assert rows(c, "list", "user", a.name, "format=admin") == [["None"]]
    # a QOS it does not have itself, another user's DefaultAccount: refused
    mgr(c, "-i", "add", "qos", "cq")
    try:
        for cmd in (f"modify user {b.name} where account=lab set qos+=cq",
                    "add account lab4 parent=lab qos=normal,cq",
                    f"modify user {b.name} set defaultaccount=lab"):
            p = as_a(cmd)
            assert p.returncode == 1 and p.stderr == DENIED, (cmd, p.stderr)
    finally:
        mgr(c, "-i", "delete", "qos", "cq")
    # an Operator does not make Administrators, not even by adding a user
    mgr(c, "-i", "modify", "user", b.name, "set", "adminlevel=operator")
    p = as_user(c, b, "sacctmgr -i add user zz account=other adminlevel=administrator")
    assert p.returncode == 1 and "Only an Administrator" in p.stderr
    mgr(c, "-i", "modify", "user", b.name, "set", "adminlevel=none")
    # quotes and control characters are kept out of records (dump files)
    p = mgr(c, "-i", "modify", "account", "lab", "set", "Description=it's", check=False)
    assert p.returncode == 1 and "Invalid value" in p.stderr
    # b coordinates nothing: refused everything
    p = as_user(c, b, "sacctmgr -i add account y parent=lab")
    assert p.returncode == 1 and p.stderr == DENIED
    p = mgr(c, "-i", "delete", "coordinator", "account=lab", f"names={a.name}")
    assert p.stdout.startswith(" Removing Coordinator User(s)\n")
    p = as_a("add account lab3 parent=lab")
    assert p.returncode == 1 and p.stderr == DENIED


def test_grp_cpu_minutes_used_up(enforced_cluster, tmp_path):
    c = enforced_cluster
    c.work = tmp_path
    mgr(c, "-i", "add", "account", "mins", "GrpTRESMins=cpu=1")
    mgr(c, "-i", "add", "user", "root", "account=mins")
    try:
        # 8 CPUs for 8 s: 64 CPU-seconds, past the account's one CPU-minute
        j1 = c.sbatch("-A", "mins", "-n", "8", "-t", "5", "--wrap", "sleep 8")
        c.wait_for(lambda: c.run(["sacct", "-n", "-X", "-P", "-j", str(j1), "-o",
                                  "State"]).stdout.strip() == "COMPLETED",
                   timeout=40, what="the first job to end")
        j2 = c.sbatch("-A", "mins", "-t", "5", "--wrap", "true")
        c.wait_for(lambda: reason(c, j2) == ["PENDING", "AssocGrpCPUMinutesLimit"],
                   what="AssocGrpCPUMinutesLimit")
        # another account is not held by it
        j3 = c.sbatch("-A", "root", "-t", "5", "--wrap", "sleep 30")
        c.wait_running(j3)
        # raising the limit lets it run
        mgr(c, "-i", "modify", "account", "mins", "set", "GrpTRESMins=cpu=100")
        c.wait_for(lambda: reason(c, j2)[0] in ("RUNNING", "COMPLETED", "COMPLETING")
                   or c.run(["squeue", "-h", "-j", str(j2)]).stdout == "",
                   what="the job to start")
    finally:
        c.cancel_all()
        mgr(c, "-i", "delete", "user", "root", "where", "account=mins")
        mgr(c, "-i", "delete", "account", "mins")


def test_dump_and_load_round_trip(clean, tmp_path):
    c = clean
    mgr(c, "-i", "add", "account", "phys", "Description=Physics dept", "GrpTRES=cpu=8")
    mgr(c, "-i", "add", "account", "theory", "parent=phys", "MaxJobs=3")
    mgr(c, "-i", "add", "qos", "high")
    mgr(c, "-i", "add", "user", "alice", "account=theory,phys",
        "DefaultAccount=theory", "MaxWall=2:00:00", "qos=normal,high")
    fmt = "format=account,user,parentname,maxjobs,maxwall,grptres,qos"
    want = sorted(rows(c, "list", "assoc", fmt))
    cluster = c.conf_value("ClusterName")
    path = tmp_path / "tree.cfg"
    mgr(c, "dump", cluster, f"file={path}")
    text = path.read_text()
    assert f"Cluster - '{cluster}'" in text
    assert "Account - 'theory':Description='theory'" in text
    mgr(c, "-i", "delete", "user", "alice")
    mgr(c, "-i", "delete", "account", "theory")
    mgr(c, "-i", "delete", "account", "phys")
    p = mgr(c, "-i", "load", f"file={path}")
    assert p.stdout == "sacctmgr: 4 records added\n"
    assert sorted(rows(c, "list", "assoc", fmt)) == want
    assert rows(c, "list", "account", "phys", "format=descr") == [["Physics dept"]]
    # a file of another cluster, or a broken line: an error, nothing added
    path.write_text("Cluster - 'elsewhere'\nParent - 'root'\nAccount - 'zz'\n")
    p = mgr(c, "-i", "load", f"file={path}", check=False)
    assert p.returncode == 1 and "elsewhere" in p.stderr
    path.write_text("Parent - 'root'\nAccount - 'zz\n")
    p = mgr(c, "-i", "load", f"file={path}", check=False)
    assert p.returncode == 1 and "Line 2" in p.stderr
    assert rows(c, "list", "account", "zz") == []


def test_qos_group_and_per_job_tres_and_account_submit_limit(enforced_cluster, tmp_path):
    c = enforced_cluster
    c.work = tmp_path
    mgr(c, "-i", "add", "qos", "grp", "GrpTRES=cpu=2", "MaxTRESPerJob=cpu=3")
    mgr(c, "-i", "add", "account", "gs", "GrpSubmitJobs=2")
    mgr(c, "-i", "add", "user", "root", "account=gs", "qos=normal,grp")
    try:
        big = c.sbatch("-A", "gs", "--qos=grp", "-n", "4", "-t", "5", "--wrap", "true")
        c.wait_for(lambda: reason(c, big) == ["PENDING", "QOSMaxCpuPerJobLimit"],
                   what="QOSMaxCpuPerJobLimit")
        j1 = c.sbatch("-A", "gs", "--qos=grp", "-n", "2", "-t", "5", "--wrap", "sleep 60")
        c.wait_running(j1)
        # the account's GrpSubmitJobs: 2 pending or running in it already
        p = c.run(["sbatch", "-A", "gs", "--wrap", "true"])
        assert p.returncode == 1 and "Job violates accounting/QOS policy" in p.stderr
        c.run(["scancel", str(big)], check=True)
        c.wait_for(lambda: c.run(["squeue", "-h", "-j", str(big), "-o", "%T"])
                   .stdout.strip() in ("", "CANCELLED"), what="the big job gone")
        j2 = c.sbatch("-A", "gs", "--qos=grp", "-n", "1", "-t", "5", "--wrap", "true")
        c.wait_for(lambda: reason(c, j2) == ["PENDING", "QOSGrpCpuLimit"],
                   what="QOSGrpCpuLimit")
    finally:
        c.cancel_all()
        mgr(c, "-i", "delete", "user", "root", "where", "account=gs")
        mgr(c, "-i", "delete", "account", "gs")
        mgr(c, "-i", "delete", "qos", "grp")


def test_add_cluster_of_this_name_is_a_no_op(clean):
    c = clean
    name = c.conf_value("ClusterName")
    p = mgr(c, "-i", "add", "cluster", name)
    assert p.stdout == f" This cluster {name} already exists.  Not adding.\n"
    p = mgr(c, "-i", "add", "cluster", "elsewhere", check=False)
    assert p.returncode == 1 and "ClusterName" in p.stderr
    p = mgr(c, "-i", "delete", "cluster", name, check=False)
    assert p.returncode == 1


def test_submit_limits_count_array_tasks(enforced_cluster, tmp_path):
    c = enforced_cluster
    c.work = tmp_path
    mgr(c, "-i", "add", "account", "arr")
    mgr(c, "-i", "add", "user", "root", "account=arr", "MaxSubmitJobs=10")
    try:
        err = "Job violates accounting/QOS policy"
        p = c.run(["sbatch", "-A", "arr", "--array=0-10", "--hold", "--wrap", "true"])
        assert p.returncode == 1 and err in p.stderr  # 11 tasks
        c.sbatch("-A", "arr", "--array=0-7", "--hold", "--wrap", "true")  # 8
        c.sbatch("-A", "arr", "--hold", "--wrap", "true")  # 9
        p = c.run(["sbatch", "-A", "arr", "--array=1-2", "--hold", "--wrap", "true"])
        assert p.returncode == 1 and err in p.stderr  # 9 + 2
        c.sbatch("-A", "arr", "--hold", "--wrap", "true")  # 10
    finally:
        c.cancel_all()
        mgr(c, "-i", "delete", "user", "root", "where", "account=arr")
        mgr(c, "-i", "delete", "account", "arr")


def test_resources_add_modify_delete_show(clean):
    """Slurm's remote licenses (test3.16): sacctmgr add|modify|delete|show
    resource, in Slurm's words; the cluster's share is a license name@server."""
    c = clean
    p = mgr(c, "-i", "add", "resource", "name=fluent", "cluster=rota", "count=50",
            "percentallowed=10", "type=license")
    assert p.stdout == (" Adding Resource(s)\n  fluent@slurmdb\n   Cluster - rota\t10%\n"
                        " Settings\n  Name           = fluent\n"
                        "  Server         = slurmdb\n  Description    = fluent\n"
                        "  Count          = 50\n  Type           = License\n")
    mgr(c, "-i", "add", "resource", "Matlab", "server=flex", "servertype=flexlm",
        "count=7", "type=License", "description=Maths")
    p = mgr(c, "-i", "add", "resource", "matlab", "server=flex", check=False)
    assert (p.returncode, p.stdout) == (1, " Nothing new added.\n")
    out = mgr(c, "list", "resource").stdout.splitlines()
    assert out[0].split() == ["Name", "Server", "Type", "Count", "%", "Allocated",
                              "ServerType"]
    assert out[2] == "    fluent    slurmdb  License     50          10            "
    assert rows(c, "list", "resource", "withclusters") == [
        ["fluent", "slurmdb", "License", "50", "10", "", "rota", "10"],
        ["matlab", "flex", "License", "7", "0", "flexlm", "", "0"]]
    assert rows(c, "list", "resource", "server=flex", "format=name,descr,count") == \
        [["matlab", "maths", "7"]]
    # over 100% in all is refused
    p = mgr(c, "-i", "add", "resource", "matlab", "server=flex", "cluster=rota",
            "percentallowed=101", check=False)
    assert p.returncode == 1 and p.stderr == (
        " Adding this 1 clusters to resource matlab@flex at 101% each , with 0% "
        "already used,  would go over 100%.  Please redo your math and resubmit.\n")
    p = mgr(c, "-i", "modify", "resource", "where", "name=fluent", "cluster=rota",
            "set", "percentallowed=120", check=False)
    assert p.returncode == 1 and p.stderr == (
        " If change was accepted it would look like this...\n  fluent@slurmdb\n"
        "   Cluster - rota\t 120%\n   total\t\t120%\n")
    p = mgr(c, "-i", "modify", "resource", "where", "name=fluent", "set",
            "percentallowed=20", check=False)
    assert p.stderr == "Can't change \"percentallowed\" without specifying a cluster.\n"
    p = mgr(c, "-i", "modify", "resource", "where", "name=fluent", "cluster=rota",
            "set", "percentallowed=20")
    assert p.stdout == " Modified server resource ...\n  Cluster - rota\t- fluent@slurmdb\n"
    p = mgr(c, "-i", "modify", "resource", "where", "name=fluent", "set", "count=200")
    assert p.stdout == (" Modified server resource ...\n  fluent@slurmdb\n"
                        "  Cluster - rota\t- fluent@slurmdb\n")
    assert rows(c, "list", "resource", "fluent", "format=count,allocated") == \
        [["200", "20"]]
    for bad, err in [
            (["name=x", "count=1"], " Need to designate a resource type to initially "
             "add 'x'.\n"),
            (["name=x", "type=license"], " Need to designate a resource count to "
             "initially add 'x'.\n"),
            (["name=x", "type=gpu", "count=1"], " Unknown resource type: 'gpu'  "
             "Valid resources is License.\n"),
            (["name=x", "type=license", "count=1", "cluster=other"],
             " Need a valid cluster name to add a cluster resource.\n")]:
        p = mgr(c, "-i", "add", "resource", *bad, check=False)
        assert (p.returncode, p.stderr) == (1, err), bad
    # the cluster's share alone, then the whole resource
    p = mgr(c, "-i", "delete", "resource", "where", "name=fluent", "cluster=rota")
    assert p.stdout == " Deleting resource(s)...\n  Cluster - rota\t- fluent@slurmdb\n"
    assert rows(c, "list", "resource", "fluent", "withclusters",
                "format=name,allocated,cluster") == [["fluent", "0", ""]]
    p = mgr(c, "-i", "delete", "resource", "name=fluent")
    assert p.stdout == " Deleting resource(s)...\n  fluent@slurmdb\n"
    p = mgr(c, "-i", "delete", "resource", "name=fluent", check=False)
    assert (p.returncode, p.stdout) == (1, " Nothing deleted\n")
    # without -i the change is shown and made only when confirmed
    p = mgr(c, "delete", "resource", "name=matlab", input="n\n")
    assert "  matlab@flex\n" in p.stdout and " Changes Discarded\n" in p.stdout
    assert rows(c, "list", "resource", "format=name") == [["matlab"]]
