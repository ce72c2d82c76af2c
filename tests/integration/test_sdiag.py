"""sdiag: the controller's statistics as Slurm 22.05 lays them out (header,
job counters, main and backfill scheduler cycles, RPCs by message type and by
user), Rota's journal figures after them, sorting, and `sdiag -r` (admins)."""
import re

from unixusers import as_user, needs_root


def sdiag(c, *args):
    p = c.run(["sdiag", *args])
    assert p.returncode == 0, p.stderr
    return p.stdout


def counter(out, label):
    m = re.search(r"^" + re.escape(label) + r":\s+(\d+)$", out, re.M)
    assert m, f"no {label!r} in:\n{out}"
    return int(m.group(1))


def rpc_rows(out, section):
    """{name: (id, count, ave, total)} of one RPC table."""
    body = out.split(section, 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in body.splitlines()[1:]:
        m = re.match(r"^\t(\S+)\s*\(\s*(\d+)\) count:(\d+)\s+ave_time:(\d+)\s+"
                     r"total_time:(\d+)$", line)
        assert m, f"bad row {line!r}"
        rows[m.group(1)] = tuple(int(g) for g in m.groups()[1:])
    return rows


def test_layout_and_counters(cluster):
    c = cluster
    before = sdiag(c)
    submitted = counter(before, "Jobs submitted")
    ids = [c.sbatch("-o", "/dev/null", "--wrap", "true") for _ in range(3)]
    for j in ids:
        c.wait_job(j)
    c.run(["squeue"])
    out = sdiag(c)
    lines = out.splitlines()
    assert lines[0] == "*" * 55
    assert re.match(r"^sdiag output at \w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4} \(\d+\)$",
                    lines[1])
    assert re.match(r"^Data since      \w{3} \w{3} .* \(\d+\)$", lines[2])
    assert lines[4].startswith("Server thread count:  ")
    assert counter(out, "Jobs submitted") == submitted + 3
    assert counter(out, "Jobs completed") >= 3
    assert "Main schedule statistics (microseconds):\n\tLast cycle:   " in out
    assert counter(out, "\tTotal cycles") >= 1
    assert "\nBackfilling stats\n\tTotal backfilled jobs (since last slurm start): " in out
    assert "Latency for 1000 calls to gettimeofday(): " in out
    types = rpc_rows(out, "Remote Procedure Call statistics by message type")
    assert types["REQUEST_SUBMIT_BATCH_JOB"][0] == 4003
    assert types["REQUEST_SUBMIT_BATCH_JOB"][1] >= 3
    assert types["REQUEST_COMPLETE_BATCH_SCRIPT"][0] == 5018
    assert types["REQUEST_COMPLETE_BATCH_SCRIPT"][1] >= 3
    assert types["REQUEST_JOB_INFO"][1] >= 1
    # the default order: most called first
    counts = [v[1] for v in types.values()]
    assert counts == sorted(counts, reverse=True)
    users = rpc_rows(out, "Remote Procedure Call statistics by user")
    assert users["root"][0] == 0 and users["root"][1] >= 5
    assert "Pending RPC statistics\n\tNo pending RPCs" in out
    # Rota's own: the journal every submission waited for
    assert counter(out, "\tSyncs") >= 3
    assert counter(out, "\tLast event") >= 3


def test_sort_by_id(cluster):
    out = sdiag(cluster, "-i")
    ids = [v[0] for v in
           rpc_rows(out, "Remote Procedure Call statistics by message type").values()]
    assert ids == sorted(ids)


@needs_root
def test_reset_is_for_admins(ucluster, users):
    c = ucluster
    c.sbatch("-o", "/dev/null", "--wrap", "true")
    p = as_user(c, users["a"], "sdiag -r")
    assert p.returncode == 1
    assert "slurm_reset_statistics: Access/permission denied" in p.stderr
    assert counter(sdiag(c), "Jobs submitted") >= 1
    # a user may read them
    assert as_user(c, users["a"], "sdiag").returncode == 0
    assert sdiag(c, "-r").strip() == "Reset scheduling statistics"
    out = sdiag(c)
    assert counter(out, "Jobs submitted") == 0
    types = rpc_rows(out, "Remote Procedure Call statistics by message type")
    assert "REQUEST_SUBMIT_BATCH_JOB" not in types
