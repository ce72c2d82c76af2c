"""Licenses (slurm.conf's Licenses=, -L/--licenses): counted cluster-wide, a
job that asks for more than is free waits with reason Licenses and starts
when a holder ends; what was never configured, or more than there is, is
refused at submission in Slurm's words; scontrol show licenses, squeue %W and
-L, scontrol show job and REST's licenses show the same counts."""

import pytest

from conftest import module_cluster_with
from test_rest import over_unix

LICENSES = "fluent:2,ansys"


def _add_licenses(path):
    with open(path, "a") as f:
        f.write(f"Licenses={LICENSES}\n")


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with(_add_licenses)


def show_lic(cluster, *args):
    """name -> {Total, Used, Free, ...} of scontrol -o show licenses."""
    out = cluster.run(["scontrol", "-o", "show", "licenses", *args], check=True).stdout
    lics = {}
    for line in out.splitlines():
        kv = dict(w.split("=", 1) for w in line.split())
        lics[kv.pop("LicenseName")] = kv
    return lics


def test_show_licenses_layout(cluster):
    out = cluster.run(["scontrol", "show", "licenses"], check=True).stdout
    assert out == ("LicenseName=ansys\n"
                   "    Total=1 Used=0 Free=1 Reserved=0 Remote=no\n"
                   "LicenseName=fluent\n"
                   "    Total=2 Used=0 Free=2 Reserved=0 Remote=no\n")
    assert list(show_lic(cluster, "fluent")) == ["fluent"]
    assert show_lic(cluster, "nosuch") == {}


def test_jobs_wait_for_licenses_and_start_when_freed(cluster):
    a = cluster.sbatch("-L", "fluent:2", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_running(a)
    b = cluster.sbatch("-L", "fluent", "-o", "/dev/null", "--wrap", "sleep 300")
    c = cluster.sbatch("--licenses=ansys:1", "-o", "/dev/null", "--wrap", "sleep 300")
    d = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300")
    # b waits for fluent; the jobs after it are not held back
    cluster.wait_running(c)
    cluster.wait_running(d)
    cluster.wait_for(lambda: cluster.job_field(b, "Reason") == "Licenses",
                     what="b waiting for licenses")
    assert cluster.job_state(b) == "PENDING"
    lic = show_lic(cluster)
    assert lic["fluent"] == {"Total": "2", "Used": "2", "Free": "0",
                             "Reserved": "0", "Remote": "no"}
    assert lic["ansys"]["Used"] == "1" and lic["ansys"]["Free"] == "0"
    rows = dict(ln.split(None, 1) for ln in cluster.run(
        ["squeue", "-h", "-o", "%i %W"], check=True).stdout.splitlines())
    assert rows == {str(a): "fluent:2", str(b): "fluent:1", str(c): "ansys:1",
                    str(d): "(null)"}
    out = cluster.run(["squeue", "-h", "-L", "ansys", "-o", "%i"], check=True).stdout
    assert out.split() == [str(c)]
    assert cluster.job_field(b, "Licenses") == "fluent:1"
    assert cluster.job_field(d, "Licenses") == "(null)"
    st, doc = over_unix(cluster, "GET", "/slurm/v0.0.44/licenses")
    assert st == 200 and doc["errors"] == []
    got = {x["LicenseName"]: (x["Total"], x["Used"], x["Free"]) for x in doc["licenses"]}
    assert got == {"fluent": (2, 2, 0), "ansys": (1, 1, 0)}
    st, doc = over_unix(cluster, "GET", f"/slurm/v0.0.44/job/{b}")
    assert doc["jobs"][0]["licenses"] == "fluent:1"
    # a's end frees two: b starts
    cluster.run(["scancel", str(a)], check=True)
    cluster.wait_running(b)
    assert show_lic(cluster)["fluent"]["Used"] == "1"


def test_bad_requests_are_refused(cluster):
    before = cluster.run(["squeue", "-h", "-o", "%i"], check=True).stdout
    for spec in ("matlab", "fluent:3", "fluent:x", "fluent:0", "fluent,fluent", ":2",
                 "a" * 80):
        p = cluster.run(["sbatch", "-L", spec, "--wrap", "true"])
        assert p.returncode == 1, spec
        assert p.stderr.strip() == ("sbatch: error: Batch job submission failed: "
                                    "Invalid license specification"), (spec, p.stderr)
    assert cluster.run(["squeue", "-h", "-o", "%i"], check=True).stdout == before
    p = cluster.run(["srun", "-L", "matlab", "true"])
    assert p.returncode == 1 and "Invalid license specification" in p.stderr


def test_licenses_survive_a_controller_restart(cluster):
    a = cluster.sbatch("-L", "fluent:2", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_running(a)
    b = cluster.sbatch("-L", "fluent:1", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(b, "Reason") == "Licenses",
                     what="b waiting")
    cluster.kill_daemon("rotactld")
    cluster.up()
    cluster.wait_for(lambda: cluster.run(["scontrol", "ping"]).returncode == 0,
                     what="controller back")
    assert cluster.job_field(b, "Licenses") == "fluent:1"
    assert show_lic(cluster)["fluent"]["Used"] == "2"
    cluster.wait_for(lambda: cluster.job_field(b, "Reason") == "Licenses",
                     what="b still waiting")
    assert cluster.job_state(b) == "PENDING"


def test_update_a_pending_jobs_licenses(cluster):
    a = cluster.sbatch("-L", "fluent:2", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_running(a)
    b = cluster.sbatch("-L", "fluent", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_for(lambda: cluster.job_field(b, "Reason") == "Licenses", what="b waits")
    p = cluster.run(["scontrol", "update", f"JobId={b}", "Licenses=matlab:1"])
    assert p.returncode == 1 and "Invalid license specification" in p.stderr, p.stderr
    assert cluster.job_field(b, "Licenses") == "fluent:1"
    cluster.run(["scontrol", "update", f"JobId={b}", "Licenses=ansys"], check=True)
    cluster.wait_running(b)
    assert cluster.job_field(b, "Licenses") == "ansys:1"
    assert show_lic(cluster)["ansys"]["Used"] == "1"
    p = cluster.run(["scontrol", "update", f"JobId={a}", "Licenses=ansys"])
    assert p.returncode == 1, "a running job's licenses stay"


def test_reserved_licenses_are_the_reservations_jobs_alone(cluster):
    p = cluster.run(["scontrol", "create", "reservation", "ReservationName=lic",
                     "StartTime=now", "Duration=30", "Licenses=fluent:1",
                     "Users=root"])
    assert p.returncode == 0 and p.stdout == "Reservation created: lic\n", p.stderr
    try:
        assert cluster.run(["scontrol", "show", "res", "lic"], check=True).stdout \
            .splitlines()[1].startswith("   Nodes=(null) NodeCnt=0 ")
        lic = show_lic(cluster)["fluent"]
        assert (lic["Reserved"], lic["Used"], lic["Free"]) == ("1", "0", "2")
        # one of the two is kept for the reservation's jobs
        out = cluster.sbatch("-L", "fluent:2", "-o", "/dev/null", "--wrap", "true")
        cluster.wait_for(lambda: cluster.job_field(out, "Reason") == "Licenses",
                         what="the outside job waiting for licenses")
        one = cluster.sbatch("-L", "fluent:1", "-o", "/dev/null", "--wrap", "sleep 300")
        cluster.wait_running(one)
        inside = cluster.sbatch("--reservation=lic", "-L", "fluent:1", "-o",
                                "/dev/null", "--wrap", "sleep 300")
        cluster.wait_running(inside)
        assert show_lic(cluster)["fluent"]["Used"] == "2"
        assert cluster.job_state(out) == "PENDING"
    finally:
        cluster.cancel_all()
        cluster.run(["scontrol", "delete", "ReservationName=lic"], check=True)


def test_license_only_reservation_has_no_nodes_and_shrinks(cluster):
    """test3.15: Flags=LICENSE_ONLY (ANY_NODES) reserves licenses alone,
    whatever NodeCnt= says; giving some back lets a waiting job run."""
    p = cluster.run(["scontrol", "create", "reservation", "ReservationName=lo",
                     "StartTime=now", "Duration=30", "NodeCnt=2",
                     "Flags=license_only", "Licenses=fluent:2", "Users=root"])
    assert p.returncode == 0 and p.stdout == "Reservation created: lo\n", p.stderr
    try:
        out = cluster.run(["scontrol", "-o", "show", "res", "lo"], check=True).stdout
        assert " Nodes=(null) NodeCnt=0 " in out and " Flags=ANY_NODES " in out, out
        j = cluster.sbatch("-L", "fluent:1", "-o", "/dev/null", "--wrap", "sleep 300")
        cluster.wait_for(lambda: cluster.job_field(j, "Reason") == "Licenses",
                         what="the job waiting for licenses")
        cluster.run(["scontrol", "update", "ReservationName=lo", "Licenses=fluent:1"],
                    check=True)
        cluster.wait_running(j)
        lic = show_lic(cluster)["fluent"]
        assert (lic["Total"], lic["Used"], lic["Free"], lic["Reserved"]) == \
            ("2", "1", "1", "1")
        p = cluster.run(["scontrol", "create", "reservation", "StartTime=now",
                         "Duration=30", "Flags=ANY_NODES", "NodeCnt=1", "Users=root"])
        assert p.returncode == 1
        assert p.stderr == "Error creating the reservation: Requested reservation " \
            "is invalid\n", p.stderr
    finally:
        cluster.cancel_all()
        cluster.run(["scontrol", "delete", "ReservationName=lo"], check=True)


def test_remote_licenses_of_resources(cluster):
    """test3.16: a resource given to the cluster (sacctmgr add resource ...
    Cluster= PercentAllowed=) is license name@server, its share of Count
    (rounded down), listed sorted among the local ones as Remote=yes; jobs
    take and wait for it as for the others, and a change counts at once."""
    def mgr(*args):
        return cluster.run(["sacctmgr", "-i", *args], check=True)

    mgr("add", "resource", "name=zeta", "server=lm", "cluster=rota", "count=25",
        "percentallowed=10", "type=license")
    try:
        out = cluster.run(["scontrol", "show", "licenses"], check=True).stdout
        assert out.splitlines()[::2] == ["LicenseName=ansys", "LicenseName=fluent",
                                         "LicenseName=zeta@lm"]
        assert show_lic(cluster)["zeta@lm"] == {"Total": "2", "Used": "0", "Free": "2",
                                                "Reserved": "0", "Remote": "yes"}
        p = cluster.run(["sbatch", "-L", "zeta@lm:3", "--wrap", "true"])
        assert p.returncode == 1 and "Invalid license specification" in p.stderr
        a = cluster.sbatch("-L", "zeta@lm:2", "-o", "/dev/null", "--wrap", "sleep 300")
        cluster.wait_running(a)
        b = cluster.sbatch("-L", "zeta@lm", "-o", "/dev/null", "--wrap", "sleep 300")
        cluster.wait_for(lambda: cluster.job_field(b, "Reason") == "Licenses",
                         what="b waiting for licenses")
        # a larger share: b starts
        mgr("modify", "resource", "where", "name=zeta", "cluster=rota", "set",
            "percentallowed=20")
        cluster.wait_running(b)
        assert show_lic(cluster)["zeta@lm"]["Used"] == "3"
        cluster.cancel_all()
        # the cluster's share taken back: no such license for new jobs
        mgr("delete", "resource", "where", "name=zeta", "cluster=rota")
        assert "zeta@lm" not in show_lic(cluster)
        p = cluster.run(["sbatch", "-L", "zeta@lm", "--wrap", "true"])
        assert p.returncode == 1 and "Invalid license specification" in p.stderr
    finally:
        cluster.cancel_all()
        cluster.run(["sacctmgr", "-i", "delete", "resource", "name=zeta"])
