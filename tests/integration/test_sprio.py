"""sprio's options beyond the default report: -o/--format and SPRIO_FORMAT,
-S/--sort, -p/--partition, -v/--verbose, a bare -j, and the cluster options
(-M, --federation, --local, --sibling), byte for byte as Slurm 22.05 prints
them."""
import pwd

import pytest

from conftest import module_cluster_with
from test_priority import HEADER, MULTIFACTOR, blocker, prio

# Partition "high" weighs twice "debug": a debug job's partition factor is 0.5.
# No association has a Priority until test_assoc_and_tres_factors gives some.
EXTRA = """PriorityWeightPartition=500
PriorityWeightAssoc=1000
PartitionName=high Nodes=ALL PriorityJobFactor=2 MaxTime=01:00:00 State=UP
"""
BAR = "-----------------------------"


def _conf(path):
    with open(path, "a") as f:
        f.write(MULTIFACTOR.replace("PriorityWeightPartition=0\n", "") + EXTRA)


@pytest.fixture(scope="module")
def jobs():
    """A blocked cluster with two pending jobs: d in debug (job size 750 +
    partition 250 = 1000) and h in high (250 + 500 = 750)."""
    for c in module_cluster_with(_conf):
        blocker(c)
        d = c.sbatch("-n", "8", "-o", "/dev/null", "--wrap", "true")
        h = c.sbatch("-p", "high", "-n", "24", "-o", "/dev/null", "--wrap", "true")
        c.wait_for(lambda: prio(c, d) == 1000 and prio(c, h) == 750 or None,
                   what="priorities 1000 and 750")
        yield c, d, h


def sprio(c, *args, env=None):
    return c.run(["sprio", *args], env=env)


def out(c, *args, env=None):
    p = sprio(c, *args, env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_format_letters(jobs):
    c, d, h = jobs
    y = f"{1000 / 4294967295:16.14f}"
    assert out(c, "-h", "-j", str(d), "-o", "%i|%r|%u|%Y|%S|%A|%F|%J|%P|%Q|%N|%B|%T") \
        == f"{d}|debug|{c.user}|1000|0|0|0|750|250|0|0|0|\n"
    assert out(c, "-h", "-j", str(d), "-o", "%y|%a|%f|%j|%p|%q|%b|%t") \
        == f"{y}|0.0000000|0.0000000|0.7500000|0.5000000|0.0000000|0.0000000|\n"
    # headers, a prefix, '.' right-justifies, a width cuts
    assert out(c, "-j", str(h), "-o", "x%.10i %8r %.6Y|%5u.") == (
        "x     JOBID PARTITIO PRIORI|USER .\n"
        f"x{h:>10} high        750|{c.user[:5]:<5}.\n")
    assert out(c, "-j", str(h), "-o", "%c %B %b %T %t %N") \
        == "CLUSTER ASSOC ASSOC TRES TRES NICE\nrota 0 0.0000000   0\n"


def test_format_weights_and_errors(jobs):
    c, d, h = jobs
    assert out(c, "-w", "-o", "%i|%r|%Y|%y|%S|%A|%a|%J|%P|%Q|%N|%u|%B|%T|%t") == (
        "JOBID|PARTITION|PRIORITY|PRIORITY|SITE|AGE|AGE|JOBSIZE|PARTITION|QOS"
        "|NICE|USER|ASSOC|TRES|TRES\n"
        "Weights||||1|0|0|1000|500|0|||1000|(null)|\n")
    p = sprio(c, "-h", "-j", str(d), "-o", "%i %z")
    assert p.returncode == 0 and p.stdout == f"{d} \n"
    assert p.stderr == "sprio: error: Invalid job format specification: z\n"
    p = sprio(c, "-l", "-o", "%i")
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr == ("sprio: fatal: Options -o(--format) and -l(--long) are "
                        "mutually exclusive. Please remove one and retry.\n")


def test_sprio_format_env(jobs):
    c, d, h = jobs
    env = {"SPRIO_FORMAT": "%i:%r"}
    assert out(c, "-h", env=env) == f"{d}:debug\n{h}:high\n"
    assert out(c, "-h", "-o", "%i", env=env) == f"{d}\n{h}\n"
    # -l is a format of its own: the variable yields to it
    assert out(c, "-l", env=env).splitlines()[0].split()[:3] == \
        ["JOBID", "PARTITION", "USER"]


def test_sort(jobs):
    c, d, h = jobs
    assert out(c, "-h", "-o", "%i") == f"{d}\n{h}\n"
    assert out(c, "-h", "-o", "%i", "-S", "Y") == f"{h}\n{d}\n"
    assert out(c, "-h", "-o", "%i", "--sort=-i") == f"{h}\n{d}\n"
    assert out(c, "-h", "-o", "%i", "-S", "-p") == f"{h}\n{d}\n"
    assert out(c, "-h", "-o", "%i", "-S", "u,+r") == f"{d}\n{h}\n"
    assert out(c, "-h", "-o", "%i", "-S", "-j,i") == f"{d}\n{h}\n"
    p = sprio(c, "-h", "-S", "x")
    assert p.returncode == 1 and p.stderr == "sprio: error: Invalid sort specification: x\n"


def test_partition(jobs):
    c, d, h = jobs
    assert out(c, "-h", "-o", "%i", "-p", "high") == f"{h}\n"
    assert out(c, "-h", "-o", "%i", "--partition=debug,high") == f"{d}\n{h}\n"
    assert out(c, "-o", "%i", "-p", "nosuch") == "JOBID\n"
    # with -j and nothing left, Slurm's sentence instead of the table
    assert out(c, "-j", str(d), "-p", "high") == \
        "Unable to find jobs matching user/id(s) specified\n"
    lines = out(c, "-p", "high").splitlines()
    assert lines[0] == HEADER and len(lines) == 2 and lines[1].split()[:2] == [str(h), "high"]


def test_bare_jobs_flag(jobs):
    c, d, h = jobs
    assert out(c, "-h", "-o", "%i", "-j", str(h)) == f"{h}\n"
    assert out(c, "-h", "-o", "%i", "--jobs", str(d)) == f"{d}\n"
    assert out(c, "-h", "-o", "%i", f"-j{d},{h}") == f"{d}\n{h}\n"
    p = sprio(c, "-h", str(d))
    assert p.returncode == 1 and f"Unrecognized option: {d}" in p.stderr


def test_verbose(jobs):
    c, d, h = jobs
    assert out(c, "-v", "-h", "-o", "%i", f"-j{d}", "-p", "debug") == (
        f"{BAR}\nformat     = %i\njob_flag   = 1\njobs       = {d}\n"
        "partition  = debug\nusers      = (null)\nverbose    = 1\n"
        f"{BAR}\n\n\n{d}\n")
    uid = pwd.getpwnam(c.user).pw_uid
    assert out(c, "-vv", "-h", "-o", "%i", "-u", c.user, "-j", str(d)) == (
        f"{BAR}\nformat     = %i\njob_flag   = 1\njobs       = {d}\n"
        f"partition  = (null)\nusers      = {c.user}\nverbose    = 2\n"
        f"job_list[0] = {d}\nuser_list[0] = {uid}\n{BAR}\n\n\n{d}\n")


def test_clusters(jobs):
    c, d, h = jobs
    plain = out(c)
    for args in (["-M", "rota"], ["--clusters=all"], ["--federation"], ["--local"],
                 ["--sibling", "--local"], ["-M", "rota", "--sibling"]):
        assert out(c, *args) == plain, args
    assert out(c, env={"SPRIO_FEDERATION": "1", "SLURM_CLUSTERS": "rota"}) == plain
    p = sprio(c, "-M", "other")
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr == ("sprio: error: 'other' can't be reached now, or it is an "
                        "invalid entry for --cluster.  Use 'sacctmgr list clusters' "
                        "to see available clusters.\n")
    p = sprio(c, "-M", "rota,rota")
    assert p.returncode == 1
    assert p.stderr == "sprio: fatal: Only one cluster can be used at a time with sprio\n"
    # --sibling adds the cluster column after the partition
    sib = out(c, "--sibling", "-j", str(d)).splitlines()
    assert sib[0] == HEADER[:25] + "  CLUSTER" + HEADER[25:]
    assert sib[1][25:34] == "     rota"


def test_a_row_per_partition(jobs):
    """A job of several partitions has a row in each, in its list's order,
    with its partition factor and priority there, as Slurm's sprio."""
    c = jobs[0]
    m = c.sbatch("-p", "high,debug", "-n", "8", "-o", "/dev/null", "--wrap", "true")
    try:
        want = f"{m} high 500 1250\n{m} debug 250 1000\n"
        c.wait_for(lambda: out(c, "-h", "-j", str(m), "-o", "%i %r %P %Y") == want
                   or None, what="a row per partition")
        # -p picks the rows of those partitions
        assert out(c, "-h", "-j", str(m), "-p", "debug", "-o", "%i %r") == \
            f"{m} debug\n"
    finally:
        c.run(["scancel", str(m)], check=True)


def test_site_factor(jobs):
    """scontrol update SiteFactor= (operators): added to the priority at once,
    shown in sprio's SITE, kept; out of +-2147483645 refused by scontrol in
    Slurm's words (its test24.5)."""
    c, d, h = jobs
    try:
        for v in ("100", "-100", "2147483645", "-2147483645"):
            p = c.run(["scontrol", "update", f"jobid={h}", f"SiteFactor={v}"])
            assert p.returncode == 0, p.stderr
            assert out(c, "-h", "-j", str(h), "-o", "%S") == f"{v}\n"
        c.run(["scontrol", "update", f"jobid={h}", "SiteFactor=100"], check=True)
        assert out(c, "-h", "-j", str(h), "-o", "%S %Y") == "100 850\n"
        assert prio(c, h) == 850
        for v in ("2147483646", "-2147483646"):
            p = c.run(["scontrol", "update", f"jobid={h}", f"SiteFactor={v}"])
            assert p.returncode == 1
            assert p.stderr == ("scontrol: error: SiteFactor value out of range "
                                "(+/- 2147483645). Value ignored\n")
        assert out(c, "-h", "-j", str(h), "-o", "%S") == "100\n"
    finally:
        c.run(["scontrol", "update", f"jobid={h}", "SiteFactor=0"], check=True)
        c.wait_for(lambda: prio(c, h) == 750 or None, what="priority 750 again")


def mgr(c, *args):
    p = c.run(["sacctmgr", "-i", *args])
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def test_assoc_and_tres_factors(jobs):
    """The association factor: the job's association's Priority (a user's
    inherits its account's) over the largest any association has; the TRES
    factors: what the job asks over what its partition has, weighed by
    PriorityWeightTRES; an admin-set priority shows every factor 0.  As Slurm
    22.05's priority/multifactor and sprio (its test24.7)."""
    c = jobs[0]
    conf = open(c.conf_path).read()
    ids = []
    try:
        mgr(c, "add", "account", "phi", "Priority=400")
        mgr(c, "add", "account", "plo", "Priority=100")
        mgr(c, "add", "user", c.user, "account=phi,plo")
        for a in ("phi", "plo"):
            ids.append(c.sbatch("-A", a, "-n", "8", "-o", "/dev/null", "--wrap", "true"))
        hi, lo = ids
        fmt = ["-h", "-o", "%i %B %b"]
        want = f"{hi} 1000 1.0000000\n{lo} 250 0.2500000\n"
        c.wait_for(lambda: out(c, "-j", f"{hi},{lo}", *fmt) == want or None,
                   what="association factors 1 and 0.25")
        # the largest Priority is now plo's: it weighs fully
        mgr(c, "modify", "account", "phi", "set", "Priority=50")
        assert out(c, "-j", f"{hi},{lo}", *fmt) == \
            f"{hi} 500 0.5000000\n{lo} 1000 1.0000000\n"
        # 8 of debug's 32 CPUs: a quarter of the cpu weight
        with open(c.conf_path, "a") as f:
            f.write("PriorityWeightTRES=CPU=3200\n")
        c.run(["scontrol", "reconfigure"], check=True)
        assert out(c, "-j", str(lo), "-o", "%.15i %12T %12t") == (
            "          JOBID TRES         TRES        \n"
            f"{lo:>15} cpu=800      cpu=0.25    \n")
        assert out(c, "-w", "-o", "%i|%T|%t") == "JOBID|TRES|TRES\nWeights|CPU=3200|\n"
        # the scheduler's next full pass brings the job's priority in line
        c.wait_for(lambda: prio(c, lo) == 750 + 250 + 1000 + 800 or None,
                   what="priority with the association and TRES factors")
        # a weight that is not a number: the reconfigure is refused (a TRES
        # Rota does not weigh, GRES/gpu=5, is left out)
        with open(c.conf_path, "a") as f:
            f.write("PriorityWeightTRES=cpu=x\n")
        p = c.run(["scontrol", "reconfigure"])
        assert p.returncode == 1 and '"cpu=x" is an invalid TRES weight' in p.stderr
        c.run(["scontrol", "update", f"jobid={lo}", "priority=999"], check=True)
        assert out(c, "-h", "-j", str(lo), "-o", "%Y|%S|%A|%B|%F|%J|%P|%Q|%N|%T|%y") == \
            "999|0|0|0|0|0|0|0|0||999.00000000000000\n"
    finally:
        for j in ids:
            c.run(["scancel", str(j)])
        with open(c.conf_path, "w") as f:
            f.write(conf)
        c.run(["scontrol", "reconfigure"], check=True)
        c.run(["sacctmgr", "-i", "delete", "user", c.user, "account=phi,plo"])
        c.run(["sacctmgr", "-i", "delete", "account", "phi,plo"])
