"""Fairshare: usage charged when jobs end (CPUs, or TRESBillingWeights'
billing, times run time), kept across restarts; the Fair Tree factor that
sshare shows and the multifactor priority uses (sprio)."""
import re

import pytest


def conf(path):
    with open(path) as f:
        text = f.read()
    # billing: 2 per CPU in the partition
    text = re.sub(r"^(PartitionName=\S+ .*)$", r"\1 TRESBillingWeights=CPU=2.0", text,
                  count=1, flags=re.M)
    text += ("PriorityType=priority/multifactor\nPriorityWeightFairshare=10000\n"
             "PriorityDecayHalfLife=0\n")
    with open(path, "w") as f:
        f.write(text)


@pytest.fixture(scope="module")
def fs_cluster():
    from conftest import module_cluster_with
    yield from module_cluster_with(conf)


def mgr(c, *args):
    p = c.run(["sacctmgr", "-i", *args])
    assert p.returncode == 0, p.stdout + p.stderr


def shares(c):
    out = c.run(["sshare", "-a", "-P", "-n", "-o",
                 "Account,User,RawShares,NormShares,RawUsage,EffectvUsage,FairShare,"
                 "LevelFS"], check=True).stdout
    return {(r[0], r[1]): r[2:] for r in (line.split("|") for line in out.splitlines())}


def elapsed(c, j):
    out = c.run(["sacct", "-n", "-X", "-P", "-j", str(j), "-o", "ElapsedRaw,State"],
                check=True).stdout.split("|")
    assert out[1].strip() == "COMPLETED", out
    return int(out[0])


def test_usage_fair_tree_and_priority(fs_cluster, tmp_path):
    c = fs_cluster
    c.work = tmp_path
    mgr(c, "add", "account", "acct1,acct2")
    mgr(c, "add", "user", "root", "account=acct1,acct2")
    # nothing used yet: every user ties at the top
    s = shares(c)
    assert s[("root", "root")][-2:] == ["1.000000", "inf"]
    assert s[("acct1", "root")][-2] == s[("acct2", "root")][-2] == "1.000000"
    j = c.sbatch("-A", "acct1", "-n", "4", "--wrap", "sleep 2")
    c.wait_for(lambda: c.run(["sacct", "-n", "-X", "-P", "-j", str(j), "-o", "State"])
               .stdout.strip() == "COMPLETED", timeout=30, what="the job to end")
    used = 2 * 4 * elapsed(c, j)  # CPU=2.0: billing 8 a second
    c.wait_for(lambda: shares(c)[("acct1", "root")][2] == str(used),
               what=f"RawUsage {used}")
    s = shares(c)
    # NormShares: 1 of root's 3 children; EffectvUsage: all of acct1's
    assert s[("acct1", "")][:4] == ["1", "0.333333", str(used), "1.000000"]
    assert s[("root", "")][2] == str(used)
    # Fair Tree: root's user and acct2 (no usage, LevelFS inf, tied: the
    # same rank, 3 of 3) before acct1 (rank 1 of 3)
    assert s[("root", "root")][-2] == "1.000000"
    assert s[("acct2", "root")][-2] == "1.000000"
    assert s[("acct1", "root")][-2] == "0.333333"
    assert s[("acct1", "")][-1] == "0.333333"  # 0.333333 of shares / all the usage
    # the multifactor priority uses it: 10000 x the factor
    j1 = c.sbatch("-A", "acct1", "--begin=now+3600", "--wrap", "true")
    j2 = c.sbatch("-A", "acct2", "--begin=now+3600", "--wrap", "true")
    out = c.run(["sprio", "-h", "-j", f"{j1},{j2}", "-l"], check=True).stdout.split("\n")
    fair = {int(line.split()[0]): int(line.split()[6]) for line in out if line.strip()}
    assert fair == {j1: 3333, j2: 10000}, out
    # kept across a restart (replayed from the journal, not charged twice)
    c.down()
    c.up()
    assert shares(c)[("acct1", "root")][2] == str(used)
    c.cancel_all()


def test_sshare_columns_and_filters(fs_cluster, tmp_path):
    c = fs_cluster
    c.work = tmp_path
    out = c.run(["sshare"], check=True).stdout.splitlines()
    assert out[0] == ("Account                    User  RawShares  NormShares    "
                      "RawUsage  EffectvUsage  FairShare ")
    assert out[1] == ("-------------------- ---------- ---------- ----------- "
                      "----------- ------------- ---------- ")
    assert out[2].startswith("root                 ")
    # users are indented under their account, one more than it
    assert re.match(r"^ root {22}root ", out[3]), out[3]
    long = c.run(["sshare", "-l"], check=True).stdout.splitlines()[0]
    assert long.split() == ["Account", "User", "RawShares", "NormShares", "RawUsage",
                            "NormUsage", "EffectvUsage", "FairShare", "LevelFS",
                            "GrpTRESMins", "TRESRunMins"]
    # snakemake asks for the caller's accounts this way
    mgr(c, "add", "account", "snk")
    mgr(c, "add", "user", "root", "account=snk")
    out = c.run(["sshare", "-U", "--format", "Account%256", "--noheader"],
                check=True).stdout.splitlines()
    assert "snk" in [line.strip() for line in out]
    assert all(len(line) == 257 for line in out)
    # -A: that account's rows only
    rows = c.run(["sshare", "-A", "snk", "-P", "-n"], check=True).stdout.splitlines()
    assert [r.split("|")[:2] for r in rows] == [["snk", ""], ["snk", "root"]]
    p = c.run(["sshare", "-o", "nosuch"])
    assert p.returncode == 1 and "Invalid field requested" in p.stderr
    # -v names what was asked for on stderr, as Slurm's (its test24.2)
    p = c.run(["sshare", "-v", "-n"], check=True)
    assert p.stderr == "Users requested:\n\t: root\nAccounts requested:\n\t: all\n"
    p = c.run(["sshare", "--verbose", "-a", "-A", "snk", "-n"], check=True)
    assert p.stderr == "Users requested:\n\t: all\nAccounts requested:\n\t: snk\n"


def test_billing_shown_where_slurm_shows_it(fs_cluster, tmp_path):
    c = fs_cluster
    c.work = tmp_path
    j = c.sbatch("-n", "3", "--hold", "--wrap", "true")
    # CPU=2.0: a job of 3 CPUs is billed 6
    assert "billing=6" in c.job_field(j, "TRES")
    out = c.run(["scontrol", "show", "partition"], check=True).stdout
    assert "\n   TRESBillingWeights=CPU=2.0" in out
    c.run(["scancel", str(j)], check=True)
    c.wait_for(lambda: "billing=6,cpu=3" in c.run(
        ["sacct", "-n", "-X", "-P", "-j", str(j), "-o", "ReqTRES"]).stdout,
        what="sacct's ReqTRES with billing=6")
