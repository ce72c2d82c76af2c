"""Accounting: rotadbd follows the controller's journal into its store and
sacct reads it, byte for byte as Slurm 22.05 prints it (COMPAT.md).

Every test that uses a cluster runs on both back ends (test_x[sqlite],
test_x[pgsql]): the pgsql variants share one throwaway PostgreSQL per module
(pgserver.py), each cluster a database of its own that rotadbd creates."""
import datetime
import glob
import os
import re
import signal
import socket
import subprocess
import time

import pytest

from conftest import BIN, module_cluster_with, write_script
from pgserver import PgServer


@pytest.fixture(scope="module")
def pg_server():
    pg = PgServer()
    try:
        pg.start()
        yield pg
    finally:
        pg.stop()


def use_pgsql(c, pg, db=None):
    """Restart c's rotadbd on PostgreSQL database db (None: a fresh one,
    which rotadbd creates); the database's name."""
    db = db or pg.new_database()
    if os.path.exists(os.path.join(c.dir, "run", "rotadbd.pid")):
        c.kill_daemon("rotadbd", signal.SIGTERM)
    with open(os.path.join(os.path.dirname(c.conf_path), "slurmdbd.conf"), "w") as f:
        f.write(pg.slurmdbd_conf(db))
    c.up()
    # not silently SQLite: the log says which store, the tables are there
    c.wait_for(lambda: f"accounting_storage/pgsql {db}" in open(
        os.path.join(c.dir, "log", "rotadbd.log")).read(), what="rotadbd on pgsql")
    assert pg.psql(db, "SELECT count(*) FROM meta") is not None
    return db


class Backend:
    def __init__(self, name, pg=None):
        self.name, self.pg = name, pg

    def apply(self, c):
        if self.pg:
            use_pgsql(c, self.pg)


@pytest.fixture(scope="module", params=["sqlite", "pgsql"])
def backend(request):
    if request.param == "sqlite":
        return Backend("sqlite")
    return Backend("pgsql", request.getfixturevalue("pg_server"))


@pytest.fixture(scope="module")
def module_cluster(backend):
    """conftest's module cluster, its rotadbd on the back end of the run."""
    gen = module_cluster_with()
    c = next(gen)
    try:
        backend.apply(c)
        yield c
    finally:
        gen.close()


@pytest.fixture
def fresh_cluster(make_cluster, backend):
    c = make_cluster()
    backend.apply(c)
    return c


def sacct(c, *args, check=True):
    p = c.run(["sacct", *args])
    if check:
        assert p.returncode == 0, f"sacct {args}: {p.stderr}"
    return p


def rows(c, *args):
    """sacct -n -P ARGS, as lists of fields."""
    out = sacct(c, "-n", "-P", *args).stdout
    return [line.split("|") for line in out.splitlines()]


def wait_rows(c, pred, *args, timeout=30):
    """Poll sacct until pred(rows) holds; return the rows."""
    deadline = time.monotonic() + timeout
    while True:
        r = rows(c, *args)
        if pred(r):
            return r
        assert time.monotonic() < deadline, f"sacct {args} never matched: {r}"
        time.sleep(0.2)


FINAL = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL")


def final(state):
    return state.split()[0] in FINAL


def test_finished_job_with_batch_and_extern(cluster):
    j = cluster.sbatch("-J", "acct1", "--wrap", "exit 3")
    cluster.wait_job(j)
    r = wait_rows(cluster, lambda r: r and final(r[0][2]), "-j", str(j),
                  "-o", "JobID,JobName,State,ExitCode")
    assert r == [[str(j), "acct1", "FAILED", "3:0"],
                 [f"{j}.batch", "batch", "FAILED", "3:0"],
                 [f"{j}.extern", "extern", "COMPLETED", "0:0"]]


def test_default_format_is_slurms(cluster):
    j = cluster.sbatch("-J", "fmt", "--wrap", "true")
    cluster.wait_job(j)
    wait_rows(cluster, lambda r: r and r[0][1] == "COMPLETED", "-X", "-j", str(j),
              "-o", "JobID,State")
    out = sacct(cluster, "-j", str(j)).stdout.splitlines()
    assert out[0] == ("JobID           JobName  Partition    Account  AllocCPUS"
                      "      State ExitCode ")
    assert out[1] == "------------ ---------- ---------- ---------- ---------- " \
                     "---------- -------- "
    part = cluster.conf_value("PartitionName").split()[0]
    # root's job: root's DefaultAccount, as in Slurm
    assert out[2] == f"{j:<12} {'fmt':>10} {part:>10} {'root':>10} {'1':>10} " \
                     f"{'COMPLETED':>10} {'0:0':>8} "
    assert out[3].startswith(f"{j}.batch ")
    assert len(out) == 5
    # -p keeps a trailing bar, -P does not; the header has the names
    p = sacct(cluster, "-p", "-X", "-j", str(j), "-o", "jobid,state").stdout
    assert p.splitlines() == ["JobID|State|", f"{j}|COMPLETED|"]


def test_pending_running_and_cancelled_by(cluster):
    held = cluster.sbatch("--hold", "--wrap", "true")
    run = cluster.sbatch("--wrap", "sleep 60")
    cluster.wait_running(run)
    r = wait_rows(cluster, lambda r: len(r) == 2 and r[1][1] == "RUNNING", "-X",
                  "-j", f"{held},{run}", "-o", "JobIDRaw,State,NodeList,Start,End")
    assert r[0][:3] == [str(held), "PENDING", "None assigned"]
    assert r[0][3] == "Unknown" and r[0][4] == "Unknown"
    assert r[1][2] != "None assigned" and r[1][4] == "Unknown"
    cluster.run(["scancel", str(run), str(held)], check=True)
    r = wait_rows(cluster, lambda r: len(r) == 2 and all(final(x[1]) for x in r),
                  "-X", "-j", f"{held},{run}", "-o", "JobIDRaw,State")
    assert r == [[str(held), f"CANCELLED by {os.getuid()}"],
                 [str(run), f"CANCELLED by {os.getuid()}"]]
    # cut to the column as Slurm does
    out = sacct(cluster, "-n", "-X", "-j", str(run), "-o", "State").stdout
    assert out == "CANCELLED+ \n"


def test_held_job_is_eligible_from_its_release(cluster):
    """A job submitted held waited on its hold, not on the scheduler: its
    Eligible (sacct, scontrol's EligibleTime) is its release, as in Slurm."""
    j = cluster.sbatch("-H", "--wrap", "true")
    time.sleep(2.2)
    cluster.run(["scontrol", "release", str(j)], check=True)
    assert cluster.wait_job(j) == "COMPLETED"
    r = wait_rows(cluster, lambda r: r and r[0][0] == "COMPLETED", "-X", "-j", str(j),
                  "-o", "State,Submit,Eligible,Start")
    submit, eligible, start = (datetime.datetime.fromisoformat(t) for t in r[0][1:])
    assert eligible >= submit + datetime.timedelta(seconds=2), r
    assert start >= eligible, r
    assert cluster.job_field(j, "EligibleTime") == r[0][2]


def test_steps_and_step_selection(cluster):
    script = write_script(cluster.work / "steps.sh",
                          "#!/bin/bash\nsrun -J first true\nsrun -J second false\n"
                          "exit 0\n")
    j = cluster.sbatch("-N1", "-n1", str(script))
    cluster.wait_job(j)
    r = wait_rows(cluster, lambda r: len(r) == 5 and final(r[0][2]), "-j", str(j),
                  "-o", "JobID,JobName,State,ExitCode")
    assert r[0] == [str(j), "steps.sh", "COMPLETED", "0:0"]
    assert [x[0] for x in r[1:]] == [f"{j}.batch", f"{j}.extern", f"{j}.0", f"{j}.1"]
    assert r[3][1:] == ["first", "COMPLETED", "0:0"]
    assert r[4][1:] == ["second", "FAILED", "1:0"]
    # the job's DerivedExitCode is its steps' highest, in the database too
    # (Slurm's test7.13); the steps have none
    r = rows(cluster, "-j", str(j), "-o", "JobID,ExitCode,DerivedExitCode")
    assert r[0] == [str(j), "0:0", "1:0"], r
    assert r[4] == [f"{j}.1", "1:0", ""], r
    # N.S: that step alone; -X: the job alone
    assert rows(cluster, "-j", f"{j}.1", "-o", "JobID,JobName") == [[f"{j}.1", "second"]]
    assert rows(cluster, "-X", "-j", str(j), "-o", "JobID") == [[str(j)]]


def cpu_ms(text):
    """sacct's CPU time ("MM:SS.mmm", "HH:MM:SS", "D-HH:MM:SS") in ms."""
    days, _, rest = text.rpartition("-")
    parts = rest.split(":")
    if "." in parts[-1]:
        sec, ms = parts[-1].split(".")
        parts[-1] = sec
    else:
        ms = "0"
    secs = 0
    for p in parts:
        secs = secs * 60 + int(p)
    return ((int(days or 0) * 86400 + secs) * 1000) + int(ms)


def kib(text):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)", text)
    assert m, text
    return float(m.group(1)) * {"": 1 / 1024, "K": 1, "M": 1024, "G": 1024 ** 2}[m.group(2)]


def test_usage_is_measured(cluster):
    """MaxRSS and CPU times come from the steps' cgroups: a batch script that
    touches 120 MB and burns 0.6 s of CPU shows at least that, its step its
    own, and the job's line the steps' sum (with -X too)."""
    burn = ("python3 -c 'import time\nb = bytearray(120 << 20)\n"
            "for i in range(0, len(b), 4096): b[i] = 1\n"
            "t = time.process_time()\n"
            "while time.process_time() - t < 0.6: pass'")
    script = write_script(cluster.work / "use.sh",
                          f"#!/bin/bash\n{burn}\nsrun -n1 {burn}\n")
    j = cluster.sbatch("-N1", "-n1", "--mem=1G", str(script))
    cluster.wait_job(j)
    fields = "JobID,State,NodeList,MaxRSS,MaxRSSNode,TotalCPU,UserCPU,SystemCPU"
    r = wait_rows(cluster, lambda r: len(r) == 4 and final(r[0][1]), "-j", str(j),
                  "-o", fields)
    job, batch, _extern, step = r
    assert job[1] == "COMPLETED", r
    for line in (batch, step):
        assert 120 * 1024 <= kib(line[3]) < 1024 * 1024, line
        assert line[4] == job[2], line  # the node the peak was on
        assert cpu_ms(line[5]) >= 550, line
        assert abs(cpu_ms(line[6]) + cpu_ms(line[7]) - cpu_ms(line[5])) <= 2, line
    steps_total = sum(cpu_ms(x[5]) for x in r[1:])
    assert abs(cpu_ms(job[5]) - steps_total) <= 3, r
    assert job[3] == "" and job[4] == ""  # as Slurm: no MaxRSS on the job's line
    x = rows(cluster, "-X", "-j", str(j), "-o", "JobID,TotalCPU")
    assert x == [[str(j), job[5]]]
    # rota eff reads the same records: seff's figures
    p = cluster.run(["rota", "eff", str(j)])
    assert p.returncode == 0, p.stderr
    eff = dict(line.split(": ", 1) for line in p.stdout.splitlines())
    assert eff["Job ID"] == str(j) and eff["State"] == "COMPLETED (exit code 0)"
    assert eff["Nodes"] == "1"
    used = re.fullmatch(r"([\d.]+)% of 1\.00 GB", eff["Memory Efficiency"]).group(1)
    assert float(used) >= 100 * 120 / 1024, eff
    assert re.fullmatch(r"[\d.]+ MB", eff["Memory Utilized"]), eff
    assert float(eff["CPU Efficiency"].split("%")[0]) > 0, eff
    bad = cluster.run(["rota", "eff", "nope"])
    assert bad.returncode == 2 and "Invalid job id" in bad.stderr
    gone = cluster.run(["rota", "eff", "999999"])
    assert gone.returncode == 1 and "Job not found" in gone.stderr


def test_array_tasks(cluster):
    out = cluster.run(["sbatch", "--parsable", "--array=0-3", "--wrap", "true"],
                      check=True).stdout
    a = int(out.strip())
    r = wait_rows(cluster, lambda r: len(r) == 4 and all(final(x[1]) for x in r),
                  "-X", "-j", str(a), "-o", "JobID,State,JobIDRaw", timeout=60)
    assert [x[0] for x in r] == [f"{a}_{t}" for t in range(4)]
    assert all(x[1] == "COMPLETED" for x in r)
    assert len({x[2] for x in r}) == 4
    assert rows(cluster, "-X", "-j", f"{a}_2", "-o", "JobID") == [[f"{a}_2"]]


def test_pending_array_remainder(cluster):
    out = cluster.run(["sbatch", "--parsable", "--hold", "--array=5-9",
                       "--wrap", "true"], check=True).stdout
    a = int(out.strip())
    r = wait_rows(cluster, lambda r: len(r) == 1, "-X", "-j", str(a),
                  "-o", "JobID,State")
    assert r == [[f"{a}_[5-9]", "PENDING"]]


def test_requeue_keeps_each_run(cluster):
    j = cluster.sbatch("--requeue", "--wrap", "sleep 60")
    cluster.wait_running(j)
    cluster.run(["scontrol", "requeue", str(j)], check=True)
    cluster.wait_running(j, timeout=60)
    r = wait_rows(cluster, lambda r: len(r) == 2, "-D", "-X", "-j", str(j),
                  "-o", "JobID,State,Restarts")
    assert r[0] == [str(j), "REQUEUED", "0"]
    assert r[1][0] == str(j) and r[1][2] == "1"
    # without -D: the last run alone
    assert len(rows(cluster, "-X", "-j", str(j), "-o", "JobID")) == 1


def test_clients_command_lines(cluster):
    a = cluster.sbatch("--wrap", "true")
    b = cluster.sbatch("--wrap", "exit 1")
    cluster.wait_job(a)
    cluster.wait_job(b)
    wait_rows(cluster, lambda r: len(r) == 2 and all(final(x[1]) for x in r), "-X",
              "-j", f"{a},{b}", "-o", "JobIDRaw,State")
    # submitit
    p = sacct(cluster, "-o", "JobID,State,NodeList", "--parsable2", "-j", str(a),
              "-j", str(b)).stdout.splitlines()
    assert p[0] == "JobID|State|NodeList"
    assert [x.split("|")[:2] for x in p[1:] if "." not in x.split("|")[0]] == \
        [[str(a), "COMPLETED"], [str(b), "FAILED"]]
    # toil
    p = sacct(cluster, "-n", "-j", f"{a},{b}", "--format", "JobIDRaw,State,ExitCode",
              "-P", "-S", "1970-01-01").stdout.splitlines()
    assert f"{a}|COMPLETED|0:0" in p and f"{b}|FAILED|1:0" in p
    # snakemake 7
    p = sacct(cluster, "-P", "-n", "--format=JobIdRaw,State", "-j", str(b)).stdout
    assert p.splitlines()[0] == f"{b}|FAILED"
    # today's jobs of this user, by default
    assert str(a) in sacct(cluster, "-n", "-P", "-X", "-o", "JobID").stdout.split()


def test_bad_input_is_refused(cluster):
    p = sacct(cluster, "-o", "JobID,NoSuchField", check=False)
    assert p.returncode == 1
    assert p.stderr.strip() == 'sacct: error: Invalid field requested: "NoSuchField"'
    p = sacct(cluster, "-j", "abc", check=False)
    assert p.returncode == 1 and "Invalid job id" in p.stderr
    p = sacct(cluster, "-S", "yesterday-ish", check=False)
    assert p.returncode == 1 and "Invalid time specification" in p.stderr
    p = sacct(cluster, "-s", "sideways", check=False)
    assert p.returncode == 1 and "Invalid state" in p.stderr


def test_helpformat_lists_fields(cluster):
    out = sacct(cluster, "-e").stdout.split()
    for f in ("JobID", "JobIDRaw", "JobName", "State", "ExitCode", "NodeList",
              "Account", "Partition", "Elapsed", "Start", "End", "Submit",
              "AllocCPUS", "ReqMem", "MaxRSS"):
        assert f in out


def test_states_and_users_select(cluster):
    ok = cluster.sbatch("--wrap", "true")
    bad = cluster.sbatch("--wrap", "false")
    cluster.wait_job(ok)
    cluster.wait_job(bad)
    wait_rows(cluster, lambda r: len(r) == 2 and all(final(x[1]) for x in r), "-X",
              "-j", f"{ok},{bad}", "-o", "JobIDRaw,State")
    # with -s, Slurm's window is the instant -S (now): failed since midnight
    ids = [x[0] for x in rows(cluster, "-X", "-s", "F", "-S", "today", "-E", "now",
                              "-o", "JobIDRaw")]
    assert str(bad) in ids and str(ok) not in ids
    ids = [x[0] for x in rows(cluster, "-X", "-u", cluster.user, "-o", "JobIDRaw")]
    assert str(ok) in ids
    assert rows(cluster, "-X", "-u", "nobody", "-o", "JobIDRaw") == []


def test_state_window_is_slurms(cluster):
    """sacct -s lists a run that was in the state within [-S, -E): running
    from its start to its end, pending until it started, the others ended
    so in it; with -j the window starts at the epoch; a start after the end
    is refused; -v says the window."""
    j = cluster.sbatch("-J", "win", "--wrap", "sleep 5")
    cluster.wait_running(j)
    time.sleep(1.2)
    during = datetime.datetime.now().strftime("%Y-%m-%dT%H:%M:%S")
    cluster.wait_job(j)
    wait_rows(cluster, lambda r: r and r[0][1] == "COMPLETED", "-X", "-j", str(j),
              "-o", "JobIDRaw,State")
    time.sleep(1.2)

    def ids(*args):
        return [x[0] for x in rows(cluster, "-X", "-a", "-o", "JobIDRaw", *args)]

    assert str(j) in ids("-j", str(j), "-s", "R")  # from the epoch to now
    assert str(j) in ids("-s", "R", "-S", during)  # the instant -S
    assert str(j) not in ids("-s", "R")  # the instant now: it ended
    assert str(j) in ids("-s", "CD", "-S", during, "-E", "now")
    assert str(j) not in ids("-s", "CD", "-S", during, "-E", during)
    assert str(j) in ids("-j", str(j), "-s", "PD")  # it was pending once
    p = sacct(cluster, "-j", str(j), "-s", "R", "-S", "now", "-E", during, check=False)
    assert p.returncode == 1
    assert re.fullmatch(r"sacct: error: Start time \(\S+\) requested is after end "
                        r"time \(\S+\)\.\n", p.stderr), p.stderr
    p = sacct(cluster, "-v", "-X", "-j", str(j), "-s", "R")
    assert "sacct: accounting_storage/slurmdbd: init: Accounting storage SLURMDBD " \
        "plugin loaded" in p.stderr
    assert re.search(r"sacct: Jobs RUNNING in the time window from Epoch 0 to \w+ ",
                     p.stderr), p.stderr
    assert str(j) in p.stdout
    # a field by its first letters, as Slurm: "job" is JobID
    assert rows(cluster, "-X", "-j", str(j), "-o", "job,jobname") == [[str(j), "win"]]


def test_nodes_and_groups_select(cluster):
    """-N lists the runs that held one of the nodes, -g those of the groups
    (by name or number)."""
    nodes = cluster.run(["sinfo", "-h", "-N", "-o", "%N"], check=True).stdout.split()
    a = cluster.sbatch("-w", nodes[0], "--wrap", "true")
    b = cluster.sbatch("-w", nodes[1], "--wrap", "true")
    for j in (a, b):
        cluster.wait_job(j)
    wait_rows(cluster, lambda r: len(r) == 2 and all(final(x[1]) for x in r), "-X",
              "-j", f"{a},{b}", "-o", "JobIDRaw,State")

    def ids(*args):
        return [x[0] for x in rows(cluster, "-X", "-o", "JobIDRaw", *args)]

    on0 = ids("-N", nodes[0])
    assert str(a) in on0 and str(b) not in on0
    both = ids("--nodelist", f"{nodes[0]},{nodes[1]}")
    assert str(a) in both and str(b) in both
    gid = os.getgid()
    import grp
    for opt in ("-g", "--gid", "--group"):
        assert str(a) in ids(opt, str(gid), "-j", str(a))
    assert str(a) in ids("-g", grp.getgrgid(gid).gr_name, "-j", str(a))
    assert ids("-g", str(gid + 4242), "-j", str(a)) == []


def test_task_fields_and_long_format(cluster):
    """A step's figures task by task, as its node reported them at its end:
    which task read and wrote the most bytes (read()/write(), page cache or
    not), its peak memory; -l prints Slurm's long format."""
    f = cluster.work / "taskio.read"
    f.write_bytes(b"x" * (4 << 20))
    script = write_script(cluster.work / "taskio.sh", f"""#!/bin/bash
case $SLURM_PROCID in
1) dd if=/dev/zero of={cluster.work}/taskio.$SLURM_JOB_ID bs=1M count=6 status=none ;;
2) cksum {f} {f} > /dev/null ;;
esac
sleep 2
""")
    j = cluster.sbatch("-N1", "-n3", "--wrap", f"srun bash {script}")
    cluster.wait_job(j, timeout=60)
    fields = ("JobID,NTasks,MaxDiskWrite,MaxDiskWriteTask,MaxDiskRead,"
              "MaxDiskReadTask,AveDiskWrite,MaxRSSTask,MinCPUTask,MaxVMSizeTask,"
              "MaxDiskWriteNode")
    [step] = wait_rows(cluster, lambda r: len(r) == 1, "-j", f"{j}.0", "--noconvert",
                       "-o", fields)
    assert step[0] == f"{j}.0"
    assert step[1] == "3"
    assert int(step[2]) >= 6 << 20 and step[3] == "1", step
    assert int(step[4]) >= 8 << 20 and step[5] == "2", step
    assert int(step[6]) >= 2 << 20, step  # a third of what was written
    assert all(x in ("0", "1", "2") for x in step[7:10]), step
    assert step[10] != "", step
    out = sacct(cluster, "-l", "-X", "-p", "-j", str(j)).stdout
    head = out.splitlines()[0]
    for part in ("JobID|JobIDRaw|JobName|Partition|MaxVMSize|MaxVMSizeNode|"
                 "MaxVMSizeTask|AveVMSize|MaxRSS|MaxRSSNode|MaxRSSTask|AveRSS|"
                 "MaxPages|MaxPagesNode|MaxPagesTask|AvePages|MinCPU|MinCPUNode|"
                 "MinCPUTask|AveCPU|NTasks|AllocCPUS|Elapsed|State|ExitCode|",
                 "|TRESUsageOutTot|"):
        assert part in head, head
    assert len(out.splitlines()) == 2 and out.splitlines()[1].startswith(f"{j}|")


def test_node_failure_requeue_reads_node_fail(cluster):
    """A requeued job whose node failed: its first run's record says
    NODE_FAIL (an scontrol requeue says REQUEUED)."""
    node = cluster.run(["sinfo", "-h", "-N", "-o", "%N"], check=True).stdout.split()[-1]
    j = cluster.sbatch("-w", node, "--requeue", "--wrap", "sleep 60")
    cluster.wait_running(j)
    try:
        cluster.run(["scontrol", "update", f"nodename={node}", "state=down",
                     "reason=acct"], check=True)
        r = wait_rows(cluster, lambda r: len(r) == 2, "-D", "-X", "-j", str(j),
                      "-o", "JobID,State,Restarts")
        assert r[0] == [str(j), "NODE_FAIL", "0"], r
        nf = rows(cluster, "-D", "-X", "-j", str(j), "-s", "NF", "-S", "now-1hour",
                  "-E", "now+1hour", "-o", "JobIDRaw")
        assert nf == [[str(j)]]
    finally:
        cluster.run(["scontrol", "update", f"nodename={node}", "state=resume"])
        cluster.run(["scancel", str(j)])


def submit_array(c, size):
    out = c.run(["sbatch", "--parsable", f"--array=0-{size - 1}", "-o", "/dev/null",
                 "--wrap", "true"], check=True).stdout
    return int(out.strip())


def assert_stored_once(c, arrays, size):
    """Once the arrays have run: each task stored once, COMPLETED (sacct may
    fail meanwhile, while rotadbd connects again)."""
    deadline = time.monotonic() + 600
    while c.run(["squeue", "-h", "-o", "%i"]).stdout.strip():
        assert time.monotonic() < deadline, "the arrays did not finish"
        time.sleep(1)
    want = {f"{a}_{t}" for a in arrays for t in range(size)}

    def stored():
        p = sacct(c, "-n", "-P", "-X", "-o", "JobID,State", check=False)
        r = [x.split("|") for x in p.stdout.splitlines()]
        if p.returncode == 0 and len(r) >= len(want) and all(
                x[1] == "COMPLETED" for x in r):
            return r
        return None

    got = [x[0] for x in c.wait_for(stored, timeout=120, what="every task stored")]
    assert len(got) == len(set(got)), "a job stored twice"
    assert set(got) == want


def test_rotadbd_killed_mid_run_loses_nothing(fresh_cluster):
    """Thousands of jobs; rotadbd killed (SIGKILL) twice while they run and
    started again: every job is stored once, in its final state."""
    c = fresh_cluster
    size = 500
    arrays = [submit_array(c, size) for _ in range(4)]
    for _ in range(2):
        time.sleep(1.5)
        c.kill_daemon("rotadbd")
        time.sleep(0.5)
        c.up()
    assert_stored_once(c, arrays, size)


def test_compaction_waits_for_rotadbd(fresh_cluster):
    """The journal is not compacted past what rotadbd has not stored: its
    finished steps reach sacct after it was down during a compaction."""
    c = fresh_cluster

    def compactions():
        m = re.search(r"Compactions:\s+(\d+)", c.run(["sdiag"], check=True).stdout)
        return int(m.group(1))

    c.kill_daemon("rotadbd")
    script = write_script(c.work / "s.sh", "#!/bin/bash\nsrun true\n")
    j = c.sbatch("-o", "/dev/null", str(script))
    c.wait_job(j)
    before = compactions()
    os.kill(c.pid("rotactld"), signal.SIGUSR1)
    c.wait_for(lambda: "compaction waits for rotadbd" in open(
        os.path.join(c.dir, "log", "rotactld.log")).read(), what="the log line")
    assert compactions() == before
    c.up()
    r = wait_rows(c, lambda r: len(r) == 4, "-j", str(j), "-o", "JobID,State")
    assert r[3] == [f"{j}.0", "COMPLETED"]
    # once it has them, the compaction held back happens
    c.wait_for(lambda: compactions() > before, what="the held-back compaction")


def test_accounting_disabled_says_so(make_cluster):
    c = make_cluster()
    c.down()
    text = open(c.conf_path).read().replace(
        "AccountingStorageType=accounting_storage/slurmdbd\n", "")
    open(c.conf_path, "w").write(text)
    c.up()
    p = sacct(c, "-j", "1", check=False)
    assert p.returncode == 1
    assert p.stderr.strip() == "sacct: error: Slurm accounting storage is disabled"
    assert not any("rotadbd" in cmd for _, cmd in c.processes())


def test_same_records_on_both_back_ends(make_cluster, pg_server):
    """One job history stored by SQLite, then by PostgreSQL (a rotadbd
    started on an empty database follows the journal from its start): every
    query prints the same lines."""
    c = make_cluster()
    part = c.conf_value("PartitionName").split()[0]
    failed = c.sbatch("-J", "same1", "--wrap", "exit 3")
    script = write_script(c.work / "steps.sh",
                          "#!/bin/bash\nsrun -J first true\nsrun -J second false\n")
    steps = c.sbatch("-N1", "-n1", str(script))
    arr = int(c.run(["sbatch", "--parsable", "--array=0-3", "--wrap", "true"],
                    check=True).stdout.strip())
    held = int(c.run(["sbatch", "--parsable", "--hold", "--array=5-9", "--wrap",
                      "true"], check=True).stdout.strip())
    requeued = c.sbatch("--requeue", "-J", "same2", "--wrap", "sleep 60")
    c.wait_running(requeued)
    c.run(["scontrol", "requeue", str(requeued)], check=True)
    c.wait_running(requeued, timeout=60)
    c.run(["scancel", str(requeued)], check=True)
    for j in (failed, steps, requeued):
        c.wait_job(j)
    fields = ("JobID,JobIDRaw,JobName,Partition,Account,AllocCPUS,State,ExitCode,"
              "Submit,Start,End,Elapsed,NodeList,NNodes,ReqMem,ReqCPUS,Restarts,"
              "MaxRSS,MaxRSSNode,AveRSS,TotalCPU")
    everything = ("-a", "-D", "-P", "-S", "1970-01-01", "-o", fields)
    queries = [
        everything,
        ("-P", "-o", fields, "-j", str(arr)),
        ("-P", "-o", fields, "-j", f"{arr}_2,{held},{steps}.1"),
        ("-P", "-X", "-D", "-o", fields, "-j", str(requeued)),
        ("-P", "-X", "-a", "-s", "F,CA", "-S", "1970-01-01", "-E", "now", "-o",
         fields),
        ("-P", "-X", "-u", c.user, "-S", "1970-01-01", "-o", fields),
        ("-P", "-X", "-a", "--name", "same1,same2", "-S", "1970-01-01", "-o", fields),
        ("-P", "-X", "-a", "-r", part, "-A", "root", "-o", fields),
        ("-P", "-X", "-a", "-S", "now-1hour", "-E", "now", "-o", fields),
    ]

    def outputs():
        return [sacct(c, *q).stdout for q in queries]

    def settled(r):  # 9 runs in their final state (the held array waits)
        return len(r) == 9 and all(final(x[1]) or x[1] in ("PENDING", "REQUEUED")
                                   for x in r)

    runs = ("-a", "-D", "-X", "-S", "1970-01-01", "-o", "JobID,State")
    wait_rows(c, settled, *runs)
    # "-E now" ends before its own second: a run that ended this second is
    # in the window only once the next one has begun
    time.sleep(1.1)
    before = outputs()
    assert before[0].count("\n") > 20, before[0]
    db = use_pgsql(c, pg_server)
    wait_rows(c, settled, *runs)
    after = outputs()
    assert after == before
    # and they are PostgreSQL's rows
    c.wait_for(lambda: pg_server.psql(db, "SELECT count(*) FROM job") == ["9"],
               what="the 9 runs in PostgreSQL")


def test_pgsql_restarted_under_rotadbd_loses_nothing(make_cluster, pg_server):
    """PostgreSQL crashes and comes back while jobs run: rotadbd connects
    again and stores every job once; sacct answers again."""
    c = make_cluster()
    use_pgsql(c, pg_server)
    a = submit_array(c, 300)
    time.sleep(1)
    pg_server.restart()
    assert_stored_once(c, [a], 300)
    assert "connected again to PostgreSQL" in open(
        os.path.join(c.dir, "log", "rotadbd.log")).read()


def test_bad_storage_settings_say_what_to_fix(pg_server, tmp_path):
    """rotadbd stops at start with the reason: a back end it does not have,
    a password the server refuses, a port that is not one."""
    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=t\nSlurmctldHost=localhost\n"
                    f"StateSaveLocation={tmp_path}/state\n"
                    "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n")
    dbd_conf = tmp_path / "slurmdbd.conf"

    def rotadbd(text):
        dbd_conf.write_text(text)
        return subprocess.run([str(BIN / "rotadbd"), "-f", str(conf), "-c", str(dbd_conf)],
                              capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)

    p = rotadbd("StorageType=accounting_storage/mysql\n")
    assert p.returncode == 1
    assert ("StorageType=accounting_storage/mysql: this rotadbd stores in "
            "accounting_storage/sqlite (the default) or accounting_storage/pgsql"
            in p.stderr), p.stderr
    good = pg_server.slurmdbd_conf(pg_server.new_database())
    p = rotadbd(good.replace("StoragePass=", "StoragePass=not-"))
    assert p.returncode == 1
    assert "password authentication failed" in p.stderr, p.stderr
    p = rotadbd(good.replace("StoragePort=5432", "StoragePort=54x"))
    assert p.returncode == 1 and "StoragePort=54x: not a port number" in p.stderr
    # without libpq (hidden in a mount namespace of its own, where we may)
    libs = glob.glob("/usr/lib/*/libpq.so.5")
    if os.geteuid() == 0 and libs and subprocess.run(
            ["unshare", "-m", "true"], capture_output=True).returncode == 0:
        dbd_conf.write_text(good)
        p = subprocess.run(["unshare", "-m", "sh", "-c",
                            'mount --bind /dev/null "$0" && exec "$@"',
                            os.path.realpath(libs[0]), str(BIN / "rotadbd"), "-f",
                            str(conf), "-c", str(dbd_conf)],
                           capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        assert p.returncode == 1
        assert ("accounting_storage/pgsql needs libpq.so.5 (Debian package libpq5)"
                in p.stderr), p.stderr


def test_rotadbd_stops_cleanly_with_clients_connected(tmp_path):
    """SIGTERM while sacct clients hold connections open: rotadbd closes them
    and exits 0 (the sanitizer build also finds nothing left allocated)."""
    state = tmp_path / "state"
    state.mkdir()
    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=t\nSlurmctldHost=localhost\n"
                    f"StateSaveLocation={state}\n"
                    "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n")
    dbd_conf = tmp_path / "slurmdbd.conf"
    dbd_conf.write_text(f"StorageType=accounting_storage/sqlite\n"
                        f"StorageLoc={tmp_path}/acct.db\n")
    p = subprocess.Popen([str(BIN / "rotadbd"), "-D", "-f", str(conf), "-c", str(dbd_conf)],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    clients = []
    try:
        sock = state / "rotadbd.sock"
        deadline = time.time() + 30
        while not sock.exists():
            assert p.poll() is None and time.time() < deadline, p.stderr.read()
            time.sleep(0.05)
        for _ in range(3):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(sock))
            clients.append(s)
        s.sendall(b"\0\0")  # half a frame: the connection has state to free
        time.sleep(0.3)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)
        assert p.returncode == 0, err
        assert not sock.exists()
    finally:
        for s in clients:
            s.close()
        if p.poll() is None:
            p.kill()
            p.wait()


def test_pgsql_utf8_database_takes_any_job_name(make_cluster, pg_server):
    """A database the admin made UTF8 (rotadbd's own is SQL_ASCII): a job name
    that is not UTF-8 is stored with '?' for its bad bytes, and does not
    stop the feed (the jobs after it are stored)."""
    c = make_cluster()
    db = pg_server.new_database()
    pg_server.psql("postgres", f"CREATE DATABASE {db} ENCODING 'UTF8' TEMPLATE template0")
    use_pgsql(c, pg_server, db)
    bad = c.sbatch("-J", os.fsdecode(b"bad\xff\xc3name"), "--wrap", "true")
    good = c.sbatch("-J", "g\u00e9", "--wrap", "true")
    c.wait_job(good)
    r = wait_rows(c, lambda r: len(r) == 2 and all(final(x[1]) for x in r), "-X",
                  "-j", f"{bad},{good}", "-o", "JobName,State")
    assert r == [["bad??name", "COMPLETED"], ["g\u00e9", "COMPLETED"]]
    assert "is UTF8: bytes of job names" in open(
        os.path.join(c.dir, "log", "rotadbd.log")).read()


def mgr_job(c, *words, input=None):
    return c.run(["sacctmgr", *words], input=input)


def test_sacctmgr_modify_job_changes_the_record(cluster):
    """sacctmgr modify job: the job's record gets the DerivedExitCode and
    Comment set (Slurm lower-cases the comment), kept across restarts of
    rotadbd and the controller (test7.14)."""
    c = cluster
    j = c.sbatch("--wrap", "true")
    c.wait_job(j)
    wait_rows(c, lambda r: r and r[0][0] == "COMPLETED", "-X", "-j", str(j),
              "-o", "State")
    p = mgr_job(c, "-i", "modify", "job", f"job={j}", "set", "DerivedExitCode=22",
                "Comment=Hello")
    assert p.returncode == 0, p.stderr
    assert re.fullmatch(rf" Modified jobs...\n  {j} submitted at "
                        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n", p.stdout), p.stdout
    want = [["0:0", "0:22", "hello", "", ""]]
    fmt = ("-X", "-j", str(j), "-o",
           "ExitCode,DerivedExitCode,Comment,AdminComment,SystemComment")
    assert rows(c, *fmt) == want
    # admins (root here) set the admin and system comments too
    p = mgr_job(c, "-i", "modify", "job", "where", f"jobid={j}", "set",
                "AdminComment='Checked'", "SystemComment=sys")
    assert p.returncode == 0, p.stderr
    want = [["0:0", "0:22", "hello", "checked", "sys"]]
    assert rows(c, *fmt) == want
    c.kill_daemon("rotadbd", signal.SIGTERM)
    c.restart_ctld()
    c.up()
    wait_rows(c, lambda r: r == want, *fmt)


def test_sacctmgr_modify_job_asks_and_says_why_not(cluster):
    c = cluster
    j = c.sbatch("--wrap", "true")
    c.wait_job(j)
    wait_rows(c, lambda r: r and r[0][0] == "COMPLETED", "-X", "-j", str(j),
              "-o", "State")
    # without -i: shown, then made only on y
    p = mgr_job(c, "modify", "job", f"jobid={j}", "set", "comment=no", input="n\n")
    assert p.stdout.startswith(f" Modified jobs...\n  {j} submitted at ")
    assert "Would you like to commit changes? (You have 30 seconds to decide)" \
        in p.stdout and " Changes Discarded" in p.stdout
    assert rows(c, "-X", "-j", str(j), "-o", "Comment") == [[""]]
    p = mgr_job(c, "modify", "job", f"jobid={j}", "set", "comment=yes", input="y\n")
    assert p.returncode == 0, p.stderr
    assert rows(c, "-X", "-j", str(j), "-o", "Comment") == [["yes"]]
    # Slurm's words
    p = mgr_job(c, "-i", "modify", "job", "jobid=999999", "set", "comment=x")
    assert p.returncode == 1 and p.stdout == " Nothing modified\n"
    p = mgr_job(c, "-i", "modify", "job", f"jobid={j}")
    assert p.returncode == 1 and p.stderr == " You didn't give me anything to set\n"
    p = mgr_job(c, "-i", "modify", "job", "flavour=x", "set", "comment=x")
    assert p.returncode == 1
    assert p.stderr == (" Unknown condition: flavour=x\n"
                        " Use keyword 'set' to modify value\n")
    p = mgr_job(c, "-i", "modify", "job", f"jobid={j}", "cluster=elsewhere", "set",
                "comment=x")
    assert p.stdout == " Nothing modified\n"
    p = mgr_job(c, "-i", "modify", "job", "jobid=abc", "set", "comment=x")
    assert p.returncode == 1 and "Invalid job id(s) abc specified" in p.stderr
    assert rows(c, "-X", "-j", str(j), "-o", "Comment") == [["yes"]]


def test_sacctmgr_modify_job_permissions(ucluster, users):
    """A user changes their own jobs' records, not another's, nor the admin
    comment; an Operator (AdminLevel, from the controller's records) any."""
    from unixusers import as_user, sbatch_as
    c = ucluster
    a, b = users["a"], users["b"]
    ja = sbatch_as(c, a, "--wrap true")
    jb = sbatch_as(c, b, "--wrap true")
    for j in (ja, jb):
        c.wait_job(j)
        wait_rows(c, lambda r: r and r[0][0] == "COMPLETED", "-X", "-j", str(j),
                  "-o", "State")
    p = as_user(c, a, f"sacctmgr -i modify job jobid={ja} set comment=mine")
    assert p.returncode == 0, p.stderr
    assert rows(c, "-X", "-j", str(ja), "-o", "Comment") == [["mine"]]
    for cmd in (f"jobid={jb} set comment=theirs",
                f"jobid={ja},{jb} set comment=both",
                f"jobid={ja} set admincomment=x"):
        p = as_user(c, a, f"sacctmgr -i modify job {cmd}")
        assert p.returncode == 1, cmd
        assert p.stderr == ("sacctmgr: error: Your user doesn't have privilege to "
                            "perform this action\n"
                            " Error with request: Access/permission denied\n"), cmd
    assert rows(c, "-X", "-j", f"{ja},{jb}", "-o", "Comment") == [["mine"], [""]]
    p = c.run(["sacctmgr", "-i", "add", "user", a.name, "account=root",
               "AdminLevel=Operator"])
    assert p.returncode == 0, p.stderr
    try:
        def as_operator():
            p = as_user(c, a, f"sacctmgr -i modify job jobid={jb} set "
                        "comment=ops AdminComment=seen")
            return p.returncode == 0
        c.wait_for(as_operator, what="rotadbd knows a is an Operator")
        assert rows(c, "-X", "-j", str(jb), "-o", "Comment,AdminComment") == \
            [["ops", "seen"]]
    finally:
        c.run(["sacctmgr", "-i", "delete", "user", a.name])
