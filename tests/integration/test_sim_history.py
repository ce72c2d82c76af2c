"""`rota sim --from-journal`: replay this cluster's own history through
rotactld's scheduling pass under its configuration or another one.

A small workload runs on a real 3-node cluster (2 CPUs each, 6 in all)
with backfill every second (bf_interval=1, bf_resolution=1).  Replayed
under that same slurm.conf, the start order must be what happened, within
the controller's intervals: the replay starts a job at the instant of the
event that frees its CPUs, while the real controller's main pass runs on
that event but its backfill up to bf_interval later, and each start lags
by the launch; so two jobs whose real starts are within ORDER_SLACK seconds
of each other may come in either order.  Each backfill that lags shifts
what comes after it, so the workload backfills once, at the start, with
minutes of margin, and is in order of non-decreasing size after that (a
blocked job blocks every job behind it): only the main pass starts those.

Jobs, in submit order, all eligible at once (--begin; CPUs, time limit in
minutes, runtime in seconds):
  A 4 10 6   runs at once; 2 CPUs left
  B 3  5 3   waits for A (reserved at A's limit, 10 minutes on)
  C 2  1 3   backfills beside A (ends 9 minutes before B's reservation)
  D 3 3 4, E 3 3 2, F 4 2 2, G 4 2 3, H 4 1 2: in order after B
  then an array of ARRAY_TASKS tasks of 4 CPUs, 1 minute, 3 s: its tasks
  queue in task order (the last task keeps the array's job id)

The replay is then run under changed configurations (a node fewer, no
backfill, PriorityWeightJobSize) and the jobs must move as each change
implies; a second cluster, where one node of two has a feature, checks that
jobs asking for it are replayed on that node only (from the journal and
from accounting).
"""
import json
import re
import time

import pytest

from conftest import module_cluster_with

ORDER_SLACK = 2  # bf_interval + 1 s of launch and rounding
ARRAY_TASKS = 3

WORKLOAD = [  # name, CPUs, limit (min), sleep (s)
    ("A", 4, 10, 6), ("B", 3, 5, 3), ("C", 2, 1, 3), ("D", 3, 3, 4),
    ("E", 3, 3, 2), ("F", 4, 2, 2), ("G", 4, 2, 3), ("H", 4, 1, 2),
]
NJOBS = len(WORKLOAD) + ARRAY_TASKS


def _rewrite(path):
    with open(path, "a") as f:
        f.write("SchedulerParameters=bf_interval=1,bf_resolution=1\n")


@pytest.fixture(scope="module")
def hcluster():
    yield from module_cluster_with(_rewrite, ("--nodes", "3", "--cpus", "2",
                                              "--mem", "4096"))


@pytest.fixture(scope="module")
def history(hcluster, tmp_path_factory):
    """Run the workload once; {name: job id} ("K": the array's)."""
    c = hcluster
    c.work = tmp_path_factory.mktemp("work")
    # the whole workload eligible at one instant however slow the
    # submissions are: each begins at the same second T (the replay starts
    # a job at its begin time), T far enough ahead that every submission is
    # in before it, even under the sanitizers (a release per job, as
    # scontrol sends them, could straddle a second on a loaded machine)
    begin = int(time.time()) + 20
    at = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(begin))
    ids = {}
    for name, cpus, limit, sleep in WORKLOAD:
        ids[name] = c.sbatch("-b", at, "-n", str(cpus), "-t", str(limit), "-o",
                             "/dev/null", "-J", name, "--wrap", f"sleep {sleep}",
                             cwd=c.work)
    ids["K"] = c.sbatch("-b", at, "-a", f"0-{ARRAY_TASKS - 1}", "-n", "4", "-t", "1",
                        "-o", "/dev/null", "--wrap", "sleep 3", cwd=c.work)
    assert time.time() < begin - 0.5, "the submissions took longer than 20 s"
    for name, jid in ids.items():
        if name != "K":
            assert c.wait_job(jid, timeout=120) == "COMPLETED"
    c.wait_for(lambda: c.run(["squeue", "-h"]).stdout.strip() == "", timeout=60,
               what="the array done")
    return ids


def state_dir(c):
    return c.conf_value("StateSaveLocation")


def whatif(c, *args):
    p = c.run(["rota", "sim", "--from-journal", state_dir(c), *args], timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def whatif_json(c, *args):
    out = whatif(c, "--json", *args)
    lines = out.splitlines()
    assert len(lines) == 1, out
    return json.loads(lines[0])


def starts(report, ids):
    """{name: (real start, replayed start)}, and the array's tasks by id."""
    by_id = {j["job_id"]: (j["real_start"], j["sim_start"]) for j in report["replayed"]}
    named = {n: by_id.pop(i) for n, i in ids.items() if n != "K"}
    assert len(by_id) == ARRAY_TASKS, by_id
    return {**named, **by_id}


def test_replay_under_own_conf_keeps_the_real_start_order(hcluster, history):
    r = whatif_json(hcluster)
    assert r["jobs"] == NJOBS
    sch = r["scheduler"]  # what was modelled: the cluster's own settings
    assert sch["nodes"] == 3 and sch["priority"] == "basic" and sch["backfill"]
    assert sch["bf_interval"] == 1 and sch["bf_resolution"] == 1
    assert sch["bf_window"] == 1440 * 60 and sch["bf_max_job_test"] == 500
    assert r["unfinished"] == 0 and r["too_large"] == 0 and r["no_partition"] == 0
    s = starts(r, history)
    # the backfill happened for real and in the replay: C before B
    for early, late in (("C", "B"),):
        assert s[early][0] < s[late][0], (early, late, s)
        assert s[early][1] < s[late][1], (early, late, s)
    # the order: every two jobs whose real starts are more than ORDER_SLACK
    # apart start in that order in the replay
    pairs = 0
    for a in s:
        for b in s:
            if s[a][0] + ORDER_SLACK < s[b][0]:
                pairs += 1
                assert s[a][1] <= s[b][1], (a, b, s)
    assert pairs >= 30, s  # the workload does wait: the check is not empty
    # and each start is near what happened
    for n, (real, sim) in s.items():
        assert abs(sim - real) <= 3 * ORDER_SLACK, (n, s)
    part = {p["name"]: p for p in r["partitions"]}
    assert list(part) == ["debug"] and part["debug"]["jobs"] == NJOBS
    assert part["debug"]["cpus"] == 6
    assert [a["jobs"] for a in r["accounts"]] == [NJOBS]
    assert r["total"]["avg_wait_real"] > 5  # jobs waited
    assert abs(r["total"]["avg_wait"] - r["total"]["avg_wait_real"]) <= 2 * ORDER_SLACK


def test_replay_with_a_node_fewer_moves_jobs_later(hcluster, history, tmp_path):
    text = open(hcluster.conf_path).read()
    m = re.search(r"Port=\[(\d+)-(\d+)\]", text)
    assert m and "node[01-03]" in text, text
    text = text.replace("node[01-03]", "node[01-02]")
    text = text.replace(m.group(0), f"Port=[{m.group(1)}-{int(m.group(2)) - 1}]")
    conf = tmp_path / "slurm.conf"
    conf.write_text(text)

    same = whatif_json(hcluster)
    r = whatif_json(hcluster, "--conf", str(conf))
    assert r["jobs"] == NJOBS and r["too_large"] == 0
    assert r["partitions"][0]["cpus"] == 4
    assert r["moved"]["later"] >= 5, r["moved"]
    assert r["moved"]["later"] > same["moved"]["later"]
    assert r["partitions"][0]["later"] == r["moved"]["later"]
    assert r["accounts"][0]["later"] == r["moved"]["later"]
    assert r["total"]["avg_wait"] > same["total"]["avg_wait"] + 5
    assert r["total"]["avg_bsld"] > same["total"]["avg_bsld"]
    s = starts(r, history)
    # with 4 CPUs nothing fits beside A: C waits for A too
    assert s["C"][1] >= s["A"][1] + 6 and s["C"][0] < s["A"][0] + 6
    # the largest moves are listed first
    top = r["moved"]["top"]
    assert top and all(abs(t["delta"]) > 1 for t in top)
    assert max(t["delta"] for t in top) >= 5

    out = whatif(hcluster, "--conf", str(conf), "--top", "3")
    assert re.search(r"^moved: +\d+ earlier, [1-9]\d* later, \d+ unchanged", out, re.M), out
    assert len(re.findall(r"^  JobId=\d+ (later|earlier) by \d+ s", out, re.M)) == 3, out
    assert re.search(rf"^partition debug +{NJOBS} ", out, re.M), out


def test_export_swf_replays_to_the_same_figures(hcluster, history, tmp_path):
    swf = tmp_path / "history.swf"
    r = whatif_json(hcluster, "--export-swf", str(swf))
    lines = swf.read_text().splitlines()
    jobs = [line.split() for line in lines if not line.startswith(";")]
    assert len(jobs) == NJOBS
    assert "; MaxProcs: 6" in lines and "; Partition 1: debug" in lines
    assert any(line.startswith("; User 1: ") for line in lines)
    s = starts(r, history)
    t0 = min(real for real, _ in s.values())
    # jobs numbered in queue order, their Slurm ids in the JobIds lines: the
    # array's tasks in task order, so the array's own id (its last task) last
    ids = [int(x) for line in lines if line.startswith("; JobIds:")
           for x in line.split()[2:]]
    assert sorted(ids) == sorted(j["job_id"] for j in r["replayed"])
    assert [int(j[0]) for j in jobs] == list(range(1, NJOBS + 1))
    assert ids[:len(WORKLOAD)] == [history[w[0]] for w in WORKLOAD]
    assert ids[-1] == history["K"]
    by_id = {i: j for i, j in zip(ids, jobs)}
    for n, (cpus, limit) in {w[0]: (w[1], w[2]) for w in WORKLOAD}.items():
        f = by_id[history[n]]
        assert len(f) == 18
        assert int(f[4]) == cpus and int(f[7]) == cpus and int(f[8]) == limit * 60
        assert int(f[2]) == s[n][0] - t0 - int(f[1])  # the real wait
        assert f[15] == "1"
    # the same jobs replayed from the file by the controller policy: the same
    # schedule, so the same mean wait
    p = hcluster.run(["rota", "sim", str(swf), "--policy", "controller", "--json"])
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["avg_wait"] == pytest.approx(r["total"]["avg_wait"])


def test_from_accounting_replays_the_same_history(hcluster, history):
    """rotadbd's records of the same jobs (sacct's request, -S/-E) give the
    same history, so the same replay, as the journal."""
    journal = whatif_json(hcluster)

    def from_acct():
        p = hcluster.run(["rota", "sim", "--from-accounting", "-S", "now-3600",
                          "--json"], timeout=120)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)
    acct = hcluster.wait_for(lambda: (lambda r: r["jobs"] == NJOBS and r)(
        from_acct()), what="the jobs in accounting")
    assert acct["source"].startswith("accounting")
    key = ("job_id", "partition", "account", "submit", "real_start", "sim_start")
    assert [[j[k] for k in key] for j in acct["replayed"]] == \
        [[j[k] for k in key] for j in journal["replayed"]]
    assert acct["total"] == journal["total"]
    # a period that ended before the workload holds none of it
    p = hcluster.run(["rota", "sim", "--from-accounting", "-S", "now-7200", "-E",
                      "now-3600", "--json"], timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["jobs"] == 0


def _conf_with(hcluster, tmp_path, extra):
    """The cluster's slurm.conf with the lines extra appended (a key set
    twice: the last one wins)."""
    conf = tmp_path / "slurm.conf"
    conf.write_text(open(hcluster.conf_path).read() + extra)
    return str(conf)


def test_replay_without_backfill_delays_c(hcluster, history, tmp_path):
    """C only ever starts by backfill: under sched/builtin it waits for A's
    end, and the main pass starts it then.  (A longer bf_interval does not
    move it: the replay's first backfill run is at the first submission, as
    a controller's whose last run is long past; the unit tests check
    bf_interval.)"""
    same = whatif_json(hcluster)
    conf = _conf_with(hcluster, tmp_path, "SchedulerType=sched/builtin\n")
    r = whatif_json(hcluster, "--conf", conf)
    assert not r["scheduler"]["backfill"] and r["scheduler"]["bf_runs"] == 0
    assert same["scheduler"]["bf_runs"] >= 1
    assert r["jobs"] == NJOBS
    s, s0 = starts(r, history), starts(same, history)
    assert s0["C"][1] < s0["A"][1] + 6  # beside A, under the real bf_interval
    assert s["C"][1] >= s["A"][1] + 6, s  # after A, without backfill
    moved = {t["job_id"]: t["delta"] for t in r["moved"]["top"]}
    assert moved.get(history["C"], 0) >= 4, r["moved"]
    assert r["moved"]["later"] > same["moved"]["later"]


def test_replay_with_a_job_size_weight_puts_large_jobs_first(hcluster, history, tmp_path):
    """D and E (3 CPUs) queued before F, G, H (4 CPUs); PriorityWeightJobSize
    puts the larger ones first, so D and E start later, F earlier."""
    conf = _conf_with(hcluster, tmp_path, "PriorityType=priority/multifactor\n"
                      "PriorityWeightJobSize=1000\nPriorityWeightAge=0\n")
    r = whatif_json(hcluster, "--conf", conf)
    same = whatif_json(hcluster)
    s, s0 = starts(r, history), starts(same, history)
    assert s0["D"][1] < s0["F"][1] and s0["E"][1] < s0["F"][1], s0  # FIFO
    for big in ("F", "G", "H"):
        for small in ("D", "E"):
            assert s[big][1] < s[small][1], (big, small, s)
    assert s["F"][1] < s["F"][0] - ORDER_SLACK, s  # earlier than it was
    assert s["D"][1] > s["D"][0] + ORDER_SLACK, s  # later than it was
    assert r["moved"]["earlier"] >= 1 and r["moved"]["later"] >= 2, r["moved"]
    assert r["scheduler"]["priority"] == "multifactor"
    out = whatif(hcluster, "--conf", conf, "--top", "20")
    assert re.search(r"^priority: +multifactor", out, re.M), out
    assert re.search(rf"^  JobId={history['D']} later by \d+ s", out, re.M), out
    assert re.search(rf"^  JobId={history['F']} earlier by \d+ s", out, re.M), out


def test_replay_under_sched_order_saf_aged_puts_small_areas_first(hcluster, history,
                                                                  tmp_path):
    """sched_order=saf_aged (areas CPUs x limit: H and the array's tasks 4,
    F and G 8, D and E 9, B 15): H passes D and E, which start later than
    they did; bf_estimate=best is that order with the learned estimates and
    one reservation (what the report says it modelled)."""
    conf = _conf_with(hcluster, tmp_path, "SchedulerParameters=bf_interval=1,"
                      "bf_resolution=1,sched_order=saf_aged\n")
    r = whatif_json(hcluster, "--conf", conf)
    same = whatif_json(hcluster)
    s, s0 = starts(r, history), starts(same, history)
    assert r["scheduler"]["sched_order"] == "saf_aged"
    for small in ("H", "F", "G"):
        for big in ("D", "E"):
            assert s[small][1] < s[big][1], (small, big, s)
            assert s0[big][1] < s0[small][1], (small, big, s0)  # FIFO
    # against the replay in priority order (the same submissions)
    assert s["H"][1] < s0["H"][1] - ORDER_SLACK, (s, s0)
    assert s["D"][1] > s0["D"][1] + ORDER_SLACK, (s, s0)
    assert same["scheduler"]["sched_order"] == "priority"
    assert same["scheduler"]["bf_job_part_count_reserve"] == 0
    conf = _conf_with(hcluster, tmp_path, "SchedulerParameters=bf_interval=1,"
                      "bf_resolution=1,bf_estimate=best\n")
    b = whatif_json(hcluster, "--conf", conf)
    assert (b["scheduler"]["bf_estimate"], b["scheduler"]["sched_order"],
            b["scheduler"]["bf_job_part_count_reserve"]) == ("learned", "saf_aged", 1)
    assert b["jobs"] == NJOBS
    out = whatif(hcluster, "--conf", conf)
    assert "bf_estimate=learned, bf_job_part_count_reserve=1, sched_order=saf_aged" \
        in out, out


def _features(path):
    """node02 alone has the feature `fast`."""
    text = open(path).read()
    m = re.search(r"^NodeName=node\[01-02\] (.*)Port=\[(\d+)-(\d+)\](.*)$", text, re.M)
    assert m, text
    mid, p, rest = m.group(1), int(m.group(2)), m.group(4)
    text = text.replace(m.group(0), f"NodeName=node01 {mid}Port={p}{rest}\n"
                        f"NodeName=node02 {mid}Port={p + 1}{rest} Features=fast")
    text = text.replace("Nodes=node[01-02]", "Nodes=node01,node02")
    text += "SchedulerParameters=bf_interval=1,bf_resolution=1\n"
    with open(path, "w") as f:
        f.write(text)


@pytest.fixture(scope="module")
def fcluster():
    yield from module_cluster_with(_features, ("--nodes", "2", "--cpus", "2",
                                               "--mem", "4096"))


def test_replay_honours_features(fcluster, tmp_path):
    """X and Y ask for `fast` (node02 only): Y waits for X though node01 is
    idle, really and in the replay (a CPU pool would start it at once);
    with node01 `fast` too, the replay starts Y at once: earlier."""
    c = fcluster
    c.work = tmp_path
    ids = {}
    for name, args in (("X", ("-C", "fast", "-n", "2", "--wrap", "sleep 5")),
                       ("Y", ("-C", "fast", "-n", "1", "--wrap", "sleep 2")),
                       ("Z", ("-n", "1", "--wrap", "sleep 1"))):
        ids[name] = c.sbatch("-t", "2", "-o", "/dev/null", "-J", name, *args, cwd=tmp_path)
    for jid in ids.values():
        assert c.wait_job(jid, timeout=120) == "COMPLETED"
    r = whatif_json(c)
    by_id = {j["job_id"]: (j["real_start"], j["sim_start"]) for j in r["replayed"]}
    s = {n: by_id[i] for n, i in ids.items()}
    assert s["Y"][0] >= s["X"][0] + 4, s  # what happened
    assert s["Y"][1] >= s["X"][1] + 5, s  # the replay: after X's end
    assert s["Z"][1] <= s["X"][1] + 1, s  # node01 took Z at once
    assert abs(s["Y"][1] - s["Y"][0]) <= 3 * ORDER_SLACK, s
    conf = tmp_path / "slurm.conf"
    conf.write_text(re.sub(r"^(NodeName=node01 .*)$", r"\1 Features=fast",
                           open(c.conf_path).read(), flags=re.M))
    r = whatif_json(c, "--conf", str(conf))
    by_id = {j["job_id"]: j for j in r["replayed"]}
    y = by_id[ids["Y"]]
    assert y["sim_start"] <= s["X"][1] + 1, y
    assert r["moved"]["earlier"] >= 1
    assert any(t["job_id"] == ids["Y"] and t["delta"] <= -4 for t in r["moved"]["top"])
    # accounting keeps the constraint too: the same wait for Y
    def from_acct():
        p = c.run(["rota", "sim", "--from-accounting", "-S", "now-3600", "--json"],
                  timeout=120)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)
    acct = c.wait_for(lambda: (lambda a: a["jobs"] == 3 and a)(from_acct()),
                      what="the jobs in accounting")
    by_id = {j["job_id"]: j["sim_start"] for j in acct["replayed"]}
    assert by_id[ids["Y"]] >= by_id[ids["X"]] + 5, acct
