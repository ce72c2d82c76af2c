"""scontrol show assoc_mgr: the users, associations and QOS the controller
holds, each limit with what jobs use of it, as Slurm 22.05 prints them
(blocks, or one line each with -o); the users=, accounts=, qos= and flags=
filters; PrivateData=usage,users hiding others' records from users who are
not operators; and Slurm's testsuite/expect/test2.25 run as it is written
(sacctmgr modify account A where user=U set GrpCpus=3 MaxJobs=2 MaxCPUs=6
Priority=9)."""
import re

import pytest

from unixusers import as_user, needs_root, user_work

TRES0 = "mem=N(0),energy=N(0),node=N(0),billing=N(0),fs/disk=N(0),vmem=N(0),pages=N(0)"


def enforce(path):
    with open(path, "a") as f:
        f.write("AccountingStorageEnforce=associations,limits,qos\n")


@pytest.fixture(scope="module")
def acluster():
    from conftest import module_cluster_with
    yield from module_cluster_with(enforce)


def mgr(c, *args, check=True):
    p = c.run(["sacctmgr", *args])
    if check:
        assert p.returncode == 0, f"sacctmgr {args}: {p.stdout}{p.stderr}"
    return p


def show(c, *args, check=True):
    p = c.run(["scontrol", *args])
    if check:
        assert p.returncode == 0, p.stderr
    return p


def blocks(out):
    """Association or QOS records of a block listing: {first line: lines}."""
    recs, cur = {}, None
    for line in out.splitlines():
        if line.startswith(("ClusterName=", "QOS=")):
            cur = recs.setdefault(line, [])
        elif line.startswith("    ") and cur is not None:
            cur.append(line)
        else:
            cur = None
    return recs


def record(out, start):
    """The one record whose first line starts with start."""
    found = [(k, v) for k, v in blocks(out).items() if k.startswith(start)]
    assert len(found) == 1, f"{start!r} in:\n{out}"
    return [found[0][0]] + found[0][1]


@pytest.fixture
def lab(acluster, users):
    """Accounts amlab (users a and b; GrpJobs=5) and amother (b), QOS amq,
    a's association limited; everything removed after."""
    c = acluster
    c.work = user_work()
    a, b = users["a"], users["b"]
    mgr(c, "-i", "add", "qos", "amq", "GrpJobs=4", "MaxJobsPerUser=3", "Priority=7")
    mgr(c, "-i", "add", "account", "amlab", "GrpJobs=5")
    mgr(c, "-i", "add", "account", "amother")
    mgr(c, "-i", "add", "user", f"{a.name},{b.name}", "account=amlab")
    mgr(c, "-i", "add", "user", b.name, "account=amother")
    mgr(c, "-i", "modify", "user", a.name, "where", "account=amlab", "set", "MaxJobs=2",
        "GrpTRES=cpu=3,mem=2G", "MaxTRES=cpu=2", "MaxWall=10", "qos=normal,amq")
    yield c, a, b
    c.cancel_all()
    mgr(c, "-i", "delete", "user", f"{a.name},{b.name}", check=False)
    for acct in ("amlab", "amother", "test2.25_acct"):
        mgr(c, "-i", "delete", "account", acct, check=False)
    mgr(c, "-i", "delete", "qos", "amq", check=False)


def submit(c, user, args):
    p = as_user(c, user, f"sbatch --parsable {args} --wrap 'sleep 120'")
    assert p.returncode == 0, p.stderr
    return int(p.stdout.strip().split(";")[0])


def reason(c, j):
    return c.run(["squeue", "-h", "-j", str(j), "-o", "%T %r"], check=True).stdout.split()


def jobs_of_a(c, a):
    """a runs one job (1 CPU, 100 MB) and has two pending: one held, one
    that asks past MaxTRES=cpu=2 (it waits on the limit, accruing age)."""
    j1 = submit(c, a, "-A amlab -n1 --mem=100 -t 5")
    c.wait_running(j1)
    submit(c, a, "-A amlab -n1 --mem=100 -t 5 --hold")
    j3 = submit(c, a, "-A amlab -n3 --mem=100 -t 5")
    c.wait_for(lambda: reason(c, j3) == ["PENDING", "AssocMaxCpuPerJobLimit"],
               what="AssocMaxCpuPerJobLimit")


@needs_root
def test_layout_limits_and_what_jobs_use(lab):
    c, a, b = lab
    cluster = c.conf_value("ClusterName")
    jobs_of_a(c, a)
    out = show(c, "show", "assoc_mgr").stdout
    lines = out.splitlines()
    assert lines[:4] == ["Current Association Manager state", "", "User Records", ""]
    assert f"UserName={a.name}({a.uid}) DefAccount=amlab DefWckey=(null) " \
           "AdminLevel=None" in lines
    assert "UserName=root(0) DefAccount=root DefWckey=(null) " \
           "AdminLevel=Administrator" in lines
    assert "" in lines and "Association Records" in lines and "QOS Records" in lines
    # Slurm's order: root, its users, then each account with its users
    firsts = [x for x in lines if x.startswith("ClusterName=")]
    assert firsts[0] == f"ClusterName={cluster} Account=root UserName= Partition= " \
                        "Priority=0 ID=1"
    acct = [x.split()[1] + " " + x.split()[2].split("(")[0] for x in firsts]
    assert acct.index("Account=amlab UserName=") < \
        acct.index(f"Account=amlab UserName={a.name}") < \
        acct.index(f"Account=amlab UserName={b.name}") < \
        acct.index("Account=amother UserName=")

    r = record(out, f"ClusterName={cluster} Account=amlab UserName={a.name}({a.uid}) ")
    assert re.fullmatch(rf"ClusterName={cluster} Account=amlab UserName={a.name}"
                        rf"\({a.uid}\) Partition= Priority=0 ID=\d+", r[0])
    assert re.fullmatch(r"    SharesRaw/Norm/Level/Factor=1/0\.50/2/\d\.\d\d", r[1])
    assert re.fullmatch(r"    UsageRaw/Norm/Efctv=\d+\.\d\d/\d\.\d\d/\d\.\d\d", r[2])
    assert re.fullmatch(r"    ParentAccount= Lft=\d+ DefAssoc=Yes", r[3])
    # one running, two pending (one held: it accrues no age)
    assert r[4:7] == ["    GrpJobs=N(1) GrpJobsAccrue=N(1)",
                      "    GrpSubmitJobs=N(3) GrpWall=N(0.00)",
                      "    GrpTRES=cpu=3(1),mem=2048(100),energy=N(0),node=N(1),"
                      "billing=N(1),fs/disk=N(0),vmem=N(0),pages=N(0)"]
    assert r[7].startswith("    GrpTRESMins=cpu=N(")
    # the running job's 5 minutes, less what has passed
    m = re.fullmatch(r"    GrpTRESRunMins=cpu=N\((\d)\),mem=N\((\d+)\),energy=N\(0\),"
                     r"node=N\((\d)\),billing=N\((\d)\),fs/disk=N\(0\),vmem=N\(0\),"
                     r"pages=N\(0\)", r[8])
    assert m and 4 <= int(m.group(1)) <= 5 and 400 <= int(m.group(2)) <= 500, r[8]
    assert r[9:] == ["    MaxJobs=2(1) MaxJobsAccrue= MaxSubmitJobs= MaxWallPJ=10",
                     "    MaxTRESPJ=cpu=2", "    MaxTRESPN=", "    MaxTRESMinsPJ=",
                     "    MinPrioThresh="]
    # the account's: its limit, and every job below it
    r = record(out, f"ClusterName={cluster} Account=amlab UserName= ")
    assert re.fullmatch(r"    ParentAccount=root\(1\) Lft=\d+ DefAssoc=No", r[3])
    assert r[4:6] == ["    GrpJobs=5(1) GrpJobsAccrue=N(1)",
                      "    GrpSubmitJobs=N(3) GrpWall=N(0.00)"]
    assert r[9] == "    MaxJobs= MaxJobsAccrue= MaxSubmitJobs= MaxWallPJ="
    # b has nothing running
    r = record(out, f"ClusterName={cluster} Account=amlab UserName={b.name}({b.uid}) ")
    assert r[4:7] == ["    GrpJobs=N(0) GrpJobsAccrue=N(0)",
                      "    GrpSubmitJobs=N(0) GrpWall=N(0.00)",
                      "    GrpTRES=cpu=N(0)," + TRES0]


@needs_root
def test_qos_records_with_account_and_user_use(lab):
    c, a, b = lab
    j = submit(c, a, "-A amlab --qos=amq -n1 --mem=100 -t 5")
    c.wait_running(j)
    out = show(c, "show", "assoc_mgr", "flags=qos").stdout
    assert out.startswith("Current Association Manager state\n\nQOS Records\n\n")
    assert "Association Records" not in out and "User Records" not in out
    normal = record(out, "QOS=normal(1)")
    assert normal[1:3] == ["    UsageRaw=0.000000",
                           "    GrpJobs=N(0) GrpJobsAccrue=N(0) GrpSubmitJobs=N(0) "
                           "GrpWall=N(0.00)"]
    assert normal[-6:] == ["    PreemptMode=OFF", "    Priority=0", "    Account Limits",
                           "        No Accounts", "    User Limits", "        No Users"]
    q = record(out, "QOS=amq(")
    assert q[1:] == [
        "    UsageRaw=0.000000",
        "    GrpJobs=4(1) GrpJobsAccrue=N(0) GrpSubmitJobs=N(1) GrpWall=N(0.00)",
        "    GrpTRES=cpu=N(1),mem=N(100),energy=N(0),node=N(1),billing=N(1),"
        "fs/disk=N(0),vmem=N(0),pages=N(0)",
        "    GrpTRESMins=cpu=N(0)," + TRES0,
        q[5],  # GrpTRESRunMins: what is left of the 5 minutes
        "    MaxWallPJ=", "    MaxTRESPJ=", "    MaxTRESPN=", "    MaxTRESMinsPJ=",
        "    MinPrioThresh= ", "    MinTRESPJ=", "    PreemptMode=OFF", "    Priority=7",
        "    Account Limits", "      amlab",
        "        MaxJobsPA=N(1) MaxJobsAccruePA=N(0) MaxSubmitJobsPA=N(1)",
        "        MaxTRESPA=cpu=N(1),mem=N(100),energy=N(0),node=N(1),billing=N(1),"
        "fs/disk=N(0),vmem=N(0),pages=N(0)",
        "    User Limits", f"      {a.uid}",
        "        MaxJobsPU=3(1) MaxJobsAccruePU=N(0) MaxSubmitJobsPU=N(1)",
        "        MaxTRESPU=cpu=N(1),mem=N(100),energy=N(0),node=N(1),billing=N(1),"
        "fs/disk=N(0),vmem=N(0),pages=N(0)"]
    assert q[5].startswith("    GrpTRESRunMins=cpu=N(")
    # -o: the same record on one line, the limits in braces
    one = show(c, "-o", "show", "assoc_mgr", "qos=amq").stdout.splitlines()
    line = [x for x in one if x.startswith("QOS=amq(")]
    assert len(line) == 1
    assert " Priority=7 Account Limits= amlab={MaxJobsPA=N(1) MaxJobsAccruePA=N(0) " \
           "MaxSubmitJobsPA=N(1) MaxTRESPA=cpu=N(1)," in line[0]
    assert f" User Limits= {a.uid}={{MaxJobsPU=3(1) " in line[0]
    assert line[0].endswith(",pages=N(0)}")


@needs_root
def test_oneliner_and_test2_25(lab):
    """Slurm's test2.25, with its greps."""
    c, a, b = lab

    def grep(*opts):
        out = show(c, *opts, "show", "assoc_mgr").stdout
        return [x for x in out.splitlines()
                if "Account=test2.25_acct" in x and f"UserName={a.name}" in x]

    cluster = c.conf_value("ClusterName")
    p = mgr(c, "add", "-i", "account", "test2.25_acct", f"cluster={cluster}")
    assert "Adding Account" in p.stdout
    p = mgr(c, "add", "-i", "user", a.name, "account=test2.25_acct")
    assert "Associations" in p.stdout
    got = grep("-o")
    assert len(got) == 1
    for want in (" Account=test2.25_acct", f" UserName={a.name}", " GrpTRES=",
                 " MaxJobs=", " MaxTRESPJ="):
        assert want in got[0]
    # every field of the block, on one line
    assert " SharesRaw/Norm/Level/Factor=" in got[0] and " MinPrioThresh=" in got[0]
    assert got[0].count("=") > 40 and "\n" not in got[0]
    p = mgr(c, "mod", "-i", "account", "test2.25_acct", "where", f"user={a.name}", "set",
            "GrpCpus=3", "MaxJobs=2", "MaxCPUs=6", "Priority=9")
    assert p.stdout == " Modified account associations...\n" \
                       f"  C = {cluster:<10} A = test2.25_acct U = {a.name:<9}\n"
    got = grep("-o")
    assert len(got) == 1
    for want in (" Account=test2.25_acct", f" UserName={a.name}", " Priority=9",
                 " GrpTRES=cpu=3", " MaxJobs=2", " MaxTRESPJ=cpu=6"):
        assert want in got[0]
    # the account's own association is not changed
    acct = show(c, "-o", "show", "assoc_mgr", "accounts=test2.25_acct").stdout
    acct = [x for x in acct.splitlines() if "UserName= " in x]
    assert len(acct) == 1 and " GrpTRES=cpu=N(0)," in acct[0] and " MaxJobs= " in acct[0]
    mgr(c, "mod", "-i", "account", "test2.25_acct", "where", f"user={a.name}", "set",
        "GrpCpus=-1", "MaxJobs=-1", "MaxCPUs=-1", "Priority=-1")
    got = grep()
    assert len(got) == 1 and " Priority=0" in got[0]
    block = record(show(c, "show", "assoc_mgr", "accounts=test2.25_acct",
                        f"users={a.name}").stdout,
                   f"ClusterName={cluster} Account=test2.25_acct UserName={a.name}")
    assert "    GrpTRES=cpu=N(0)," + TRES0 in block
    assert "    MaxJobs= MaxJobsAccrue= MaxSubmitJobs= MaxWallPJ=" in block
    assert "    MaxTRESPJ=" in block
    p = mgr(c, "delete", "-i", "account", "test2.25_acct")
    assert "Deleting accounts..." in p.stdout


@needs_root
def test_filters(lab):
    c, a, b = lab
    cluster = c.conf_value("ClusterName")
    # users=: their associations, and the accounts' own (Slurm keeps those)
    out = show(c, "show", "assoc_mgr", f"users={b.name}", "flags=assoc,users").stdout
    firsts = [x for x in out.splitlines() if x.startswith("ClusterName=")]
    names = {x.split()[2] for x in firsts}
    assert f"UserName={b.name}({b.uid})" in names and "UserName=" in names
    assert not any(a.name in x for x in firsts) and "UserName=root(0)" not in names
    users = [x for x in out.splitlines() if x.startswith("UserName=")]
    assert users == [f"UserName={b.name}({b.uid}) DefAccount=amlab DefWckey=(null) "
                     "AdminLevel=None"]
    assert "QOS Records" not in out and "No QOS" not in out
    # accounts=: every association in them
    out = show(c, "show", "assoc_mgr", "accounts=amother", "flags=assoc").stdout
    firsts = [x for x in out.splitlines() if x.startswith("ClusterName=")]
    assert [x.split()[1:3] for x in firsts] == [
        ["Account=amother", "UserName="], ["Account=amother", f"UserName={b.name}({b.uid})"]]
    assert f"ClusterName={cluster} " in firsts[0]
    # qos=: in the order asked, unknown names left out; abbreviations
    out = show(c, "show", "assoc_mgr", "q=amq,nosuch,normal", "f=qos").stdout
    assert [x for x in out.splitlines() if x.startswith("QOS=")] == \
        [x for x in out.splitlines() if x.startswith("QOS=amq(")] + ["QOS=normal(1)"]
    # a kind asked for with nothing to show says so
    p = show(c, "show", "assoc_mgr", "users=nosuch", "accounts=nosuch",
             "flags=users,assoc")
    assert p.stdout == "Current Association Manager state\n\n" \
                       "No users currently cached in Slurm.\n\n\n" \
                       "No associations currently cached in Slurm.\n\n"
    p = show(c, "-o", "show", "assoc_mgr", "users=nosuch", "flags=users")
    assert p.stdout == "Current Association Manager state\n" \
                       "No users currently cached in Slurm.\n"
    # Slurm's words for mistakes (and its exit codes: 1 only for an entity)
    p = show(c, "show", "assoc_mgr", "bogus=1", check=False)
    assert p.returncode == 1
    assert p.stderr == "invalid entity: bogus=1 for keyword:show assoc_mgr\n"
    p = show(c, "show", "assoc_mgr", "flags=nothing", check=False)
    assert p.returncode == 0 and p.stdout == ""
    assert p.stderr == "invalid flag 'nothing', valid options are " \
                       "'Assoc, QOS, and/or Users'\n"
    p = show(c, "show", "assoc_mgr", "users", check=False)
    assert p.stderr == "No value given for option users\n" and p.stdout == ""
    # "cache" is another name for it
    assert show(c, "show", "cache", "flags=qos").stdout == \
        show(c, "show", "assoc_mgr", "flags=qos").stdout


def private(c, value):
    lines = [x for x in open(c.conf_path).read().splitlines()
             if not x.startswith("PrivateData=")]
    if value:
        lines.append(f"PrivateData={value}")
    with open(c.conf_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    p = c.run(["scontrol", "reconfigure"])
    assert p.returncode == 0, p.stderr


def seen(c, user, *args):
    p = as_user(c, user, "scontrol -o show assoc_mgr " + " ".join(args))
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assocs = {tuple(x.split()[1:3]) for x in out if x.startswith("ClusterName=")}
    users = [x.split()[0] for x in out if x.startswith("UserName=")]
    qos = [x.split()[0] for x in out if x.startswith("QOS=")]
    return assocs, users, qos


@needs_root
def test_private_data_hides_others_records(lab):
    c, a, b = lab
    ua, ub = f"UserName={a.name}({a.uid})", f"UserName={b.name}({b.uid})"
    # by default users see everything, as in Slurm
    assocs, users, qos = seen(c, b)
    assert ("Account=amlab", ua) in assocs and ("Account=root", "UserName=root(0)") in assocs
    assert len(users) == 3 and "QOS=normal(1)" in qos
    mgr(c, "-i", "add", "coordinator", f"names={a.name}", "account=amlab")
    private(c, "usage,users")
    try:
        # b: its own associations, its own user record; every QOS
        assocs, users, qos = seen(c, b)
        assert assocs == {("Account=amlab", ub), ("Account=amother", ub)}
        assert users == [ub]
        assert "QOS=normal(1)" in qos and any(x.startswith("QOS=amq(") for x in qos)
        # a coordinates amlab: every association in it, not b's elsewhere
        assocs, users, qos = seen(c, a)
        assert assocs == {("Account=amlab", "UserName="), ("Account=amlab", ua),
                          ("Account=amlab", ub)}
        assert users == [ua]
        # an operator and root see everything
        assert len(seen(c, b, "flags=assoc")[0]) == 2
        mgr(c, "-i", "modify", "user", b.name, "set", "AdminLevel=Operator")
        assocs, users, qos = seen(c, b)
        assert ("Account=amlab", ua) in assocs and len(users) == 3
        p = show(c, "-o", "show", "assoc_mgr")
        assert ua in p.stdout and ub in p.stdout
        # a user accounting does not know sees nothing
        mgr(c, "-i", "delete", "user", b.name)
        p = as_user(c, b, "scontrol show assoc_mgr")
        assert p.returncode == 1 and p.stdout == ""
        assert p.stderr == "slurm_load_assoc_mgr_info error: Access/permission denied\n"
    finally:
        private(c, None)
    assert len(seen(c, a, "flags=users")[1]) == 2  # root and a
