"""Backfill in the controller (SchedulerType=sched/backfill): lower-priority
jobs start early only where they delay no planned higher-priority job; pending
jobs get an expected start (squeue --start, StartTime=, SchedNodeList=) and a
plain-words Why=; sched/builtin keeps strict priority order; bf_estimate=predict
plans with the users' recent runtimes, bf_estimate=learned with the learned
model."""
import datetime
import time

import pytest

from conftest import write_script

GATED = "#!/bin/bash\nwhile [ ! -e gate ]; do sleep 0.1; done\n"


def cluster_with(make_cluster, params, scheduler="sched/backfill"):
    c = make_cluster()
    c.down()
    text = open(c.conf_path).read()
    text = text.replace("SchedulerType=sched/backfill\n", f"SchedulerType={scheduler}\n")
    text += f"SchedulerParameters={params}\n"
    with open(c.conf_path, "w") as f:
        f.write(text)
    c.up()
    return c


def iso(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S").timestamp()


def blocker(c, nodes=3, limit="10"):
    """An exclusive job on the first `nodes` nodes until ./gate exists."""
    write_script(c.work / "g.sh", GATED)
    jid = c.sbatch(f"-N{nodes}", "--exclusive", "-t", limit, "-o", "/dev/null",
                   "g.sh", cwd=c.work)
    c.wait_running(jid)
    return jid


def submit(c, *args):
    return c.sbatch("--exclusive", "-o", "/dev/null", *args, cwd=c.work)


# bf_yield_interval=1: the pass yields after every job, its plan carried over
@pytest.mark.parametrize("params", ["bf_interval=1,bf_resolution=1",
                                    "bf_interval=1,bf_resolution=1,bf_yield_interval=1"])
def test_short_job_backfills_without_delaying_the_top_job(make_cluster, params):
    c = cluster_with(make_cluster, params)
    b = blocker(c)  # node[01-03] for up to 10 minutes
    t0 = time.time()
    # the top job runs long enough to be seen running with the long one
    # still waiting (a one-second job could end first on a loaded host)
    top = submit(c, "-N4", "-t", "10", "--wrap", "sleep 30")
    long = submit(c, "-N1", "-t", "20", "--wrap", "sleep 300")
    short = submit(c, "-N1", "-t", "5", "--wrap", "sleep 300")
    # the short job ends before the top job's planned start: it goes now
    c.wait_running(short, timeout=20)
    assert c.job_field(short, "NodeList") == "node04"
    # the long one would hold node04 past that start: it waits
    assert c.job_state(long) == "PENDING"
    assert c.job_state(top) == "PENDING"
    assert c.job_field(top, "Reason") == "Resources"
    assert c.job_field(long, "Reason") == "Priority"

    # the top job is planned for the blocker's limit, on all four nodes
    start = c.wait_for(lambda: c.job_field(top, "StartTime") not in (None, "Unknown")
                       and c.job_field(top, "StartTime"), what="a planned start")
    assert t0 + 8 * 60 <= iso(start) <= t0 + 11 * 60, start
    assert c.job_field(top, "SchedNodeList") == "node[01-04]"
    show = c.run(["scontrol", "show", "job", str(top)]).stdout
    assert "Why=" in show and f"expected to start at {start} on node[01-04]" in show
    # the long job is planned after the top job (10 minutes later)
    lstart = c.wait_for(lambda: c.job_field(long, "StartTime") not in (None, "Unknown")
                        and c.job_field(long, "StartTime"), what="long's start")
    assert iso(lstart) >= iso(start) + 10 * 60 - 1, (start, lstart)

    # squeue --start lists pending jobs with their expected start
    out = c.run(["squeue", "--start", "-h", "-o", "%i %S %Y"]).stdout.split("\n")
    assert f"{top} {start} node[01-04]" in out
    # running jobs are not in squeue --start
    assert not any(line.startswith(f"{short} ") for line in out)

    # when the blocker ends, the top job starts at once (ahead of the long one)
    c.run(["scancel", str(short)])
    (c.work / "gate").write_text("")
    c.wait_job(b)
    c.wait_running(top, timeout=20)
    assert c.job_state(long) == "PENDING"


def test_builtin_keeps_strict_priority_order(make_cluster):
    c = cluster_with(make_cluster, "bf_interval=1", scheduler="sched/builtin")
    blocker(c)
    top = submit(c, "-N4", "-t", "10", "--wrap", "sleep 1")
    short = submit(c, "-N1", "-t", "5", "--wrap", "sleep 300")
    time.sleep(3)  # several passes
    assert c.job_state(short) == "PENDING"
    assert c.job_field(short, "Reason") == "Priority"
    assert c.job_field(top, "StartTime") == "Unknown"


def test_backfill_never_delays_a_reservation_with_unlimited_jobs(make_cluster):
    """A job without a time limit can never end before a reservation."""
    c = cluster_with(make_cluster, "bf_interval=1")
    blocker(c)
    top = submit(c, "-N4", "-t", "10", "--wrap", "sleep 1")
    forever = submit(c, "-N1", "-t", "UNLIMITED", "--wrap", "sleep 300")
    later = submit(c, "-N1", "-t", "5", "--wrap", "sleep 300")
    c.wait_running(later, timeout=20)
    assert c.job_state(forever) == "PENDING"
    assert c.job_state(top) == "PENDING"


def test_heterogeneous_job_is_planned_with_all_its_components(make_cluster):
    """A heterogeneous job waits for room for all its components at once: it
    is planned where they all fit together (each component's StartTime and
    SchedNodeList), and a job that would still hold a node then waits
    instead of starving it; one that ends before may go."""
    c = cluster_with(make_cluster, "bf_interval=1,bf_resolution=1")
    b = blocker(c)  # node[01-03] for up to 10 minutes
    t0 = time.time()
    het = submit(c, "-N1", "-t", "10", ":", "-N3", "-t", "10", "--wrap", "sleep 30")
    long = submit(c, "-N1", "-t", "20", "--wrap", "sleep 300")
    short = submit(c, "-N1", "-t", "5", "--wrap", "sleep 300")
    c.wait_running(short, timeout=20)
    assert c.job_field(short, "NodeList") == "node04"
    starts = [c.wait_for(lambda j=j: c.job_field(j, "StartTime") not in (None, "Unknown")
                         and c.job_field(j, "StartTime"), what=f"{j}'s planned start")
              for j in (het, het + 1)]
    assert starts[0] == starts[1], starts
    assert t0 + 8 * 60 <= iso(starts[0]) <= t0 + 11 * 60, starts
    names = [c.run(["scontrol", "show", "hostnames", c.job_field(j, "SchedNodeList")],
                   check=True).stdout.split() for j in (het, het + 1)]
    assert [len(n) for n in names] == [1, 3], names
    assert sorted(names[0] + names[1]) == ["node01", "node02", "node03", "node04"]
    assert c.job_state(long) == "PENDING"
    out = c.run(["squeue", "--start", "-h", "-o", "%i %S"]).stdout.split("\n")
    assert f"{het}+0 {starts[0]}" in out and f"{het}+1 {starts[0]}" in out, out
    # the blocker gone, both components start together, ahead of the long job
    c.run(["scancel", str(short)])
    (c.work / "gate").write_text("")
    c.wait_job(b)
    c.wait_running(het, timeout=20)
    assert c.job_state(het + 1) == "RUNNING"
    assert c.job_state(long) == "PENDING"


# learned: the model (src/sched/predict.h) starts from the time limit and
# needs about five ~1 s jobs of 10 minutes to expect less than 5 minutes
@pytest.mark.parametrize("estimate,jobs", [("predict", 2), ("learned", 5)])
def test_predicted_runtimes_plan_earlier_starts(make_cluster, estimate, jobs):
    """bf_estimate=predict|learned: the blocker's user ran ~1 s jobs, so its
    10-minute job is expected to end soon, not in 10 minutes."""
    c = cluster_with(make_cluster,
                     f"bf_interval=1,bf_resolution=1,bf_estimate={estimate}")
    for _ in range(jobs):
        j = c.sbatch("-o", "/dev/null", "-t", "10", "--wrap", "sleep 1")
        c.wait_job(j)
    blocker(c)
    t0 = time.time()
    top = submit(c, "-N4", "-t", "10", "--wrap", "sleep 1")
    start = c.wait_for(lambda: c.job_field(top, "StartTime") not in (None, "Unknown")
                       and c.job_field(top, "StartTime"), what="a planned start")
    assert iso(start) < t0 + 5 * 60, start


@pytest.mark.parametrize("order", ["priority", "saf_aged"])
def test_sched_order_saf_aged_starts_the_smallest_area_first(make_cluster, order):
    """sched_order=saf_aged: when the nodes free up, the waiting job of the
    smallest estimated area (CPUs x time limit) starts first, whatever the
    priorities; squeue still lists the pending jobs by priority."""
    c = cluster_with(make_cluster,
                     f"bf_interval=1,bf_resolution=1,sched_order={order}")
    b = blocker(c, nodes=4)
    big = submit(c, "-N4", "-t", "10", "--wrap", "sleep 300")   # area 4 x 10
    small = submit(c, "-N1", "-t", "5", "--wrap", "sleep 300")  # area 1 x 5
    time.sleep(2)  # both seen by several passes
    pending = c.run(["squeue", "-h", "-t", "PD", "-o", "%i"]).stdout.split()
    assert pending == [str(big), str(small)]
    (c.work / "gate").write_text("")
    c.wait_job(b)
    first, second = (small, big) if order == "saf_aged" else (big, small)
    c.wait_running(first, timeout=20)
    time.sleep(2)
    assert c.job_state(second) == "PENDING"
    assert c.job_field(second, "Reason") in ("Resources", "Priority")


@pytest.mark.parametrize("reserve", [0, 1])
def test_bf_job_part_count_reserve(make_cluster, reserve):
    """bf_job_part_count_reserve=1: only the partition's first waiting job
    gets a planned start; a later one that would delay it waits without one,
    and one that delays it not still starts now."""
    c = cluster_with(
        make_cluster,
        f"bf_interval=1,bf_resolution=1,bf_job_part_count_reserve={reserve}")
    blocker(c)  # node[01-03] for up to 10 minutes
    top = submit(c, "-N4", "-t", "10", "--wrap", "sleep 1")
    long = submit(c, "-N1", "-t", "20", "--wrap", "sleep 300")
    short = submit(c, "-N1", "-t", "5", "--wrap", "sleep 300")
    c.wait_running(short, timeout=20)
    c.wait_for(lambda: c.job_field(top, "StartTime") not in (None, "Unknown"),
               what="the top job's planned start")
    if reserve:
        time.sleep(3)  # several backfill passes
        assert c.job_field(long, "StartTime") in (None, "Unknown")
    else:
        c.wait_for(lambda: c.job_field(long, "StartTime") not in (None, "Unknown"),
                   what="the long job's planned start")
    assert c.job_state(long) == "PENDING"
    assert c.job_state(top) == "PENDING"


def test_constraint_node_count_is_planned_on_its_nodes(make_cluster):
    """-N2 -C gpu*2 with a gpu node busy: planned on both gpu nodes, not on
    the free nodes without gpu; a one-node job without features backfills on
    those meanwhile."""
    c = cluster_with(make_cluster, "bf_interval=1,bf_resolution=1")
    for node in ("node01", "node03"):
        c.run(["scontrol", "update", f"nodename={node}", "AvailableFeatures=gpu",
               "ActiveFeatures=gpu"], check=True)
    b = blocker(c, nodes=1)  # node01
    top = submit(c, "-N2", "-C", "gpu*2", "-t", "10", "--wrap", "sleep 300")
    c.wait_for(lambda: c.job_field(top, "StartTime") not in (None, "Unknown"),
               what="a planned start")
    assert c.job_field(top, "SchedNodeList") == "node[01,03]"
    assert c.job_field(top, "Reason") == "Resources"
    short = submit(c, "-N1", "-t", "5", "--wrap", "sleep 300")
    c.wait_running(short, timeout=20)
    assert c.job_field(short, "NodeList") in ("node02", "node04")
    c.run(["scancel", str(b), str(top), str(short)], check=True)
