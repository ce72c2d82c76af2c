"""sstat: what running steps use now, measured by their step daemons (cgroup
and /proc) when asked, aggregated as Slurm 22.05's sstat prints it; and
JobAcctGatherFrequency sampling, which keeps the high-water mark where the
kernel keeps none."""
import os
import re

import pytest

from conftest import write_script

IS_ROOT = os.geteuid() == 0

# Slurm 22.05.8's sstat header, as its own binary prints it (Debian's
# slurm-client, `sstat -j N` against any cluster).
HEADER = (
    'JobID         MaxVMSize  MaxVMSizeNode  MaxVMSizeTask  AveVMSize     M'
    'axRSS MaxRSSNode MaxRSSTask     AveRSS MaxPages MaxPagesNode   MaxPage'
    'sTask   AvePages     MinCPU MinCPUNode MinCPUTask     AveCPU   NTasks '
    'AveCPUFreq ReqCPUFreqMin ReqCPUFreqMax ReqCPUFreqGov ConsumedEnergy  M'
    'axDiskRead MaxDiskReadNode MaxDiskReadTask  AveDiskRead MaxDiskWrite M'
    'axDiskWriteNode MaxDiskWriteTask AveDiskWrite TRESUsageInAve TRESUsage'
    'InMax TRESUsageInMaxNode TRESUsageInMaxTask TRESUsageInMin TRESUsageIn'
    'MinNode TRESUsageInMinTask TRESUsageInTot TRESUsageOutAve TRESUsageOut'
    'Max TRESUsageOutMaxNode TRESUsageOutMaxTask TRESUsageOutMin TRESUsageO'
    'utMinNode TRESUsageOutMinTask TRESUsageOutTot '
)
DASHES = (
    '------------ ---------- -------------- -------------- ---------- -----'
    '----- ---------- ---------- ---------- -------- ------------ ---------'
    '----- ---------- ---------- ---------- ---------- ---------- -------- '
    '---------- ------------- ------------- ------------- -------------- --'
    '---------- --------------- --------------- ------------ ------------ -'
    '--------------- ---------------- ------------ -------------- ---------'
    '----- ------------------ ------------------ -------------- -----------'
    '------- ------------------ -------------- --------------- ------------'
    '--- ------------------- ------------------- --------------- ----------'
    '--------- ------------------- --------------- '
)

# Touches every page of mb MiB, burns CPU for busy seconds, then holds on.
HOG = """import sys, time
b = b"x" * ({mb} * 1024 * 1024)
end = time.time() + {busy}
n = 0
while time.time() < end:
    n += 1
open(sys.argv[1], "w").write("ready\\n")
time.sleep(300)
"""

UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def size_bytes(text):
    """"205080K", "200M", "1.50G", "0" -> bytes."""
    m = re.fullmatch(r"([0-9.]+)([KMGT]?)", text)
    assert m, f"not a size: {text!r}"
    return float(m.group(1)) * UNITS[m.group(2)]


def cpu_secs(text):
    """"00:00:05", "01:02:03", "1-00:00:00" -> seconds."""
    m = re.fullmatch(r"(?:(\d+)-)?(\d\d):(\d\d):(\d\d)", text)
    assert m, f"not a CPU time: {text!r}"
    d, h, mi, s = (int(x or 0) for x in m.groups())
    return ((d * 24 + h) * 60 + mi) * 60 + s


def sstat(c, *args):
    return c.run(["sstat", *args])


def rows(c, *args):
    """sstat -n -P ARGS as dicts of the -o fields (args must hold -o)."""
    fmt = args[args.index("-o") + 1].split(",")
    p = sstat(c, "-n", "-P", *args)
    assert p.returncode == 0, p.stderr
    return [dict(zip(fmt, line.split("|"))) for line in p.stdout.splitlines()], p


def start_hog(c, mb, busy, tmp_path, name="hog"):
    """A batch job whose step 0 holds mb MiB and has burnt busy CPU seconds
    once the ready file appears; returns (job id, ready file)."""
    hog = tmp_path / f"{name}.py"
    hog.write_text(HOG.format(mb=mb, busy=busy))
    ready = tmp_path / f"{name}.ready"
    script = write_script(tmp_path / f"{name}.sh",
                          f"#!/bin/bash\nsrun python3 {hog} {ready}\n")
    jobid = c.sbatch("-o", "/dev/null", str(script))
    c.wait_for(ready.exists, timeout=60, what=f"job {jobid}'s step to be ready")
    return jobid, ready


def wait_step0(c, jobid):
    c.wait_for(lambda: rows(c, "-j", f"{jobid}.0", "-o", "JobID")[0],
               timeout=20, what=f"sstat to see {jobid}.0")


def test_running_step_memory_and_cpu(cluster, tmp_path):
    jobid, _ = start_hog(cluster, 200, 3, tmp_path)
    wait_step0(cluster, jobid)
    fields = "JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MinCPU,MinCPUNode,MinCPUTask," \
             "AveCPU,NTasks,MaxVMSize,TRESUsageInMax"
    r, _ = rows(cluster, "-j", f"{jobid}.0", "-o", fields)
    assert len(r) == 1, r
    r = r[0]
    assert r["JobID"] == f"{jobid}.0"
    assert r["NTasks"] == "1"
    # the step holds 200 MiB (plus the interpreter): measured, not guessed
    assert 195 * 2**20 <= size_bytes(r["MaxRSS"]) < 400 * 2**20, r
    assert 195 * 2**20 <= size_bytes(r["AveRSS"]) < 400 * 2**20, r
    # the address space covers what the step holds (MaxRSS, from the cgroup,
    # also counts page cache the processes' mappings do not: not comparable)
    assert size_bytes(r["MaxVMSize"]) >= 195 * 2**20, r
    assert r["MaxRSSNode"] and r["MaxRSSNode"] == r["MinCPUNode"], r
    assert r["MaxRSSTask"] == "0" and r["MinCPUTask"] == "0", r
    # 3 s of a busy loop (a loaded host may give it less than all of them)
    assert cpu_secs(r["AveCPU"]) >= 1, r
    assert cpu_secs(r["MinCPU"]) == cpu_secs(r["AveCPU"]), r
    m = re.fullmatch(r"cpu=([0-9:-]+),energy=0,fs/disk=(\d+[KMGT]?),mem=(\S+),"
                     r"pages=0,vmem=(\S+)", r["TRESUsageInMax"])
    assert m, r["TRESUsageInMax"]
    assert m.group(3) == r["MaxRSS"] and m.group(4) == r["MaxVMSize"]
    # --noconvert: bytes
    raw, _ = rows(cluster, "--noconvert", "-j", f"{jobid}.0", "-o", "MaxRSS")
    assert re.fullmatch(r"\d+", raw[0]["MaxRSS"]), raw
    assert int(raw[0]["MaxRSS"]) >= 195 * 2**20


def test_steps_chosen_as_slurm_does(cluster, tmp_path):
    jobid, _ = start_hog(cluster, 20, 0, tmp_path)
    wait_step0(cluster, jobid)
    # no step named: the lowest-numbered ordinary step, not the batch step
    r, _ = rows(cluster, "-j", str(jobid), "-o", "JobID")
    assert [x["JobID"] for x in r] == [f"{jobid}.0"]
    # -a: every running step, the batch step first
    r, _ = rows(cluster, "-a", "-j", str(jobid), "-o", "JobID,NTasks")
    assert [x["JobID"] for x in r] == [f"{jobid}.batch", f"{jobid}.0"], r
    # the batch step is measured apart from its srun step (cgroup per step)
    r, _ = rows(cluster, "-j", f"{jobid}.batch", "-o", "JobID,MaxRSS,NTasks")
    assert r[0]["JobID"] == f"{jobid}.batch" and r[0]["NTasks"] == "1"
    assert size_bytes(r[0]["MaxRSS"]) < 150 * 2**20, r
    # named twice, shown once
    r, _ = rows(cluster, "-j", f"{jobid}.0,{jobid}.0", "-o", "JobID")
    assert len(r) == 1
    # a step that does not run
    p = sstat(cluster, "-n", "-j", f"{jobid}.7", "-o", "JobID")
    assert p.returncode == 0 and p.stdout == ""
    assert p.stderr == f"sstat: error: StepId={jobid}.7 not found running.\n"


def test_all_steps_in_the_order_they_started(cluster, tmp_path):
    # Slurm's sstat -a: the batch step, then the others oldest first, each
    # asked for and printed in turn
    script = write_script(tmp_path / "three.sh", "#!/bin/bash\n" + "".join(
        f"srun --overlap -n1 sleep 300 &\nsleep 0.5\n" for _ in range(3)) + "wait\n")
    jobid = cluster.sbatch("-N1", "-o", "/dev/null", str(script))
    want = [f"{jobid}.batch"] + [f"{jobid}.{i}" for i in range(3)]
    cluster.wait_for(lambda: len(rows(cluster, "-a", "-j", str(jobid), "-o", "JobID")[0])
                     == 4, timeout=30, what=f"job {jobid}'s three steps")
    for opt in ("-a", "--allsteps"):
        r, p = rows(cluster, opt, "-j", str(jobid), "-o", "JobID,NTasks")
        assert [x["JobID"] for x in r] == want, r
        assert p.stderr == ""
    cluster.run(["scancel", str(jobid)])


def test_output_formats(cluster, tmp_path):
    jobid, _ = start_hog(cluster, 10, 0, tmp_path)
    wait_step0(cluster, jobid)
    p = sstat(cluster, "-j", f"{jobid}.0")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert lines[0] == HEADER and lines[1] == DASHES, p.stdout
    assert len(lines) == 4 and lines[3] == "", p.stdout
    assert lines[2].startswith(f"{jobid}.0".ljust(12) + " "), lines[2]
    assert len(lines[2]) == len(HEADER), (lines[2], HEADER)
    # -p: a bar after each field; -P: between them
    p = sstat(cluster, "-p", "-j", f"{jobid}.0", "-o", "jobid,ntasks,reqcpufreqmin")
    assert p.stdout == f"JobID|NTasks|ReqCPUFreqMin|\n{jobid}.0|1|Unknown|\n", p.stdout
    p = sstat(cluster, "-P", "-j", f"{jobid}.0", "-o", "JobID,NTasks")
    assert p.stdout == f"JobID|NTasks\n{jobid}.0|1\n"
    # names matched as Slurm does (case, prefixes), %N widths, -N left
    p = sstat(cluster, "-j", f"{jobid}.0", "-o", "ntasks%3,jobid%-15,ave")
    assert p.stdout.split("\n")[:2] == [
        "NTa JobID               AveCPU ", "--- --------------- ---------- "], p.stdout
    # -i: each node's processes
    p = sstat(cluster, "-P", "-n", "-i", "-j", f"{jobid}.0")
    jid, node, pids = p.stdout.strip().split("|")
    assert jid == f"{jobid}.0" and node and pids, p.stdout
    assert all(os.path.exists(f"/proc/{pid}") for pid in pids.split(","))


# Task 1 holds 120 MiB, task 0 20 MiB; both on one node, in one cgroup.
UNEVEN = """import os, sys, time
rank = int(os.environ["SLURM_PROCID"])
b = b"x" * ((120 if rank == 1 else 20) * 1024 * 1024)
open(sys.argv[1] + "." + str(rank), "w").write("ready\\n")
time.sleep(300)
"""


def test_tasks_on_one_node_told_apart(cluster, tmp_path):
    prog = tmp_path / "uneven.py"
    prog.write_text(UNEVEN)
    ready = tmp_path / "uneven.ready"
    jobid = cluster.sbatch("-N1", "-n2", "-o", "/dev/null", "--wrap",
                           f"srun -n2 python3 {prog} {ready}")
    cluster.wait_for(lambda: all(os.path.exists(f"{ready}.{r}") for r in (0, 1)),
                     timeout=60, what="both tasks")
    wait_step0(cluster, jobid)
    r, _ = rows(cluster, "-j", f"{jobid}.0",
                "-o", "NTasks,MaxRSS,MaxRSSTask,AveRSS,MinCPUTask")
    assert r[0]["NTasks"] == "2", r
    # the step's peak is not split evenly: task 1 holds the most
    assert r[0]["MaxRSSTask"] == "1", r
    assert 115 * 2**20 <= size_bytes(r[0]["MaxRSS"]) < 250 * 2**20, r
    assert size_bytes(r[0]["AveRSS"]) < size_bytes(r[0]["MaxRSS"]), r
    assert r[0]["MinCPUTask"] in ("0", "1"), r


def test_array_tasks(cluster, tmp_path):
    ready = tmp_path / "arr"
    arr = cluster.sbatch("--array=0-1", "-o", "/dev/null", "--wrap",
                         f"srun bash -c 'touch {ready}.$SLURM_ARRAY_TASK_ID; "
                         f"sleep 300'")
    cluster.wait_for(lambda: all(os.path.exists(f"{ready}.{t}") for t in (0, 1)),
                     timeout=60, what="both array tasks")
    ids = set()
    for t in (0, 1):
        r = cluster.wait_for(
            lambda: rows(cluster, "-j", f"{arr}_{t}.0", "-o", "JobID")[0],
            timeout=20, what=f"sstat of {arr}_{t}.0")
        assert len(r) == 1 and re.fullmatch(r"\d+\.0", r[0]["JobID"]), r
        ids.add(r[0]["JobID"])
    assert len(ids) == 2, ids  # each task is a job of its own
    p = sstat(cluster, "-n", "-j", f"{arr}_7", "-o", "JobID")
    assert p.stdout == ""
    assert p.stderr == f"sstat: error: couldn't get steps for job {arr}\n"


def test_errors_in_slurms_words(cluster, tmp_path):
    p = sstat(cluster)
    assert p.returncode == 1
    assert p.stderr == "sstat: error: You didn't give me any jobs to stat.\n"
    p = sstat(cluster, "-j", "abc")
    assert p.returncode == 1
    assert p.stderr == "sstat: fatal: Bad job/step specified: abc\n"
    p = sstat(cluster, "-j", "5", "-o", "JobID,bogus")
    assert p.returncode == 1
    assert p.stderr == 'sstat: error: Invalid field requested: "bogus"\n'
    # an unknown job: the header, then Slurm's error; exit 0 as Slurm's
    p = sstat(cluster, "-j", "999999", "-o", "JobID")
    assert p.returncode == 0
    assert p.stdout == "JobID        \n------------ \n"
    assert p.stderr == "sstat: error: couldn't get steps for job 999999\n"
    p = sstat(cluster, "-e")
    assert p.stdout.startswith(
        "AveCPU              AveCPUFreq          AveDiskRead         AveDiskWrite"
        "       \n")
    assert p.stdout.endswith("TRESUsageOutMinNode TRESUsageOutMinTask "
                             "TRESUsageOutTot    \n")


def test_finished_job(cluster, tmp_path):
    jobid = cluster.sbatch("-o", "/dev/null", "--wrap", "srun true")
    assert cluster.wait_job(jobid) == "COMPLETED"
    p = sstat(cluster, "-n", "-j", str(jobid), "-o", "JobID")
    assert p.returncode == 0 and p.stdout == ""
    assert p.stderr == f"sstat: error: No steps running for job {jobid}\n"
    p = sstat(cluster, "-n", "-j", f"{jobid}.0", "-o", "JobID")
    assert p.stderr == f"sstat: error: StepId={jobid}.0 not found running.\n"


@pytest.mark.skipif(not IS_ROOT, reason="needs root to make users")
def test_only_owner_and_root_see_usage(ucluster, users):
    from unixusers import as_user, sbatch_as
    a, b = users["a"], users["b"]
    jobid = sbatch_as(ucluster, a, "-o /dev/null --wrap 'sleep 120'")
    ucluster.wait_running(jobid)
    args = f"-n -P -j {jobid}.batch -o JobID,NTasks"
    ucluster.wait_for(
        lambda: as_user(ucluster, a, f"sstat {args}").stdout.strip(),
        timeout=20, what="sstat as the owner")
    p = as_user(ucluster, a, f"sstat {args}")
    assert p.stdout == f"{jobid}.batch|1\n" and p.stderr == "", p
    p = as_user(ucluster, b, f"sstat {args}")
    assert p.returncode == 0 and p.stdout == "", p
    assert p.stderr == (f"sstat: error: problem getting step_layout for "
                        f"StepId={jobid}.batch: Invalid user id\n"), p
    r, _ = rows(ucluster, "-j", f"{jobid}.batch", "-o", "JobID")
    assert r == [{"JobID": f"{jobid}.batch"}]


# Frees what it allocated, then waits: only samples saw the peak.
SPIKE = """import sys, time
b = b"x" * (120 * 1024 * 1024)
time.sleep(4)
del b
open(sys.argv[1], "w").write("ready\\n")
time.sleep(300)
"""


def test_sampling_keeps_the_high_water_mark(make_cluster, tmp_path):
    """jobacct_gather/linux reads /proc alone: the memory peak sstat shows
    after the step freed its memory comes from JobAcctGatherFrequency's
    samples (every second here), while AveRSS is what it holds now."""
    c = make_cluster()
    c.down()
    with open(c.conf_path, "a") as f:
        f.write("JobAcctGatherType=jobacct_gather/linux\n"
                "JobAcctGatherFrequency=task=1\n")
    c.up()
    prog = tmp_path / "spike.py"
    prog.write_text(SPIKE)
    ready = tmp_path / "spike.ready"
    jobid = c.sbatch("-o", "/dev/null", "--wrap", f"python3 {prog} {ready}")
    c.wait_for(ready.exists, timeout=60, what="the spike")
    r, _ = rows(c, "-j", f"{jobid}.batch", "-o", "JobID,MaxRSS,AveRSS")
    assert size_bytes(r[0]["MaxRSS"]) >= 115 * 2**20, r
    assert size_bytes(r[0]["AveRSS"]) < 60 * 2**20, r
    # sbatch --acctg-freq=0 (SLURM_ACCTG_FREQ for the step daemons): no
    # sampling, so nothing saw that peak: the test above can fail
    ready2 = tmp_path / "spike2.ready"
    jobid = c.sbatch("-o", "/dev/null", "--acctg-freq=0", "--wrap",
                     f"python3 {prog} {ready2}")
    c.wait_for(ready2.exists, timeout=60, what="the second spike")
    r, _ = rows(c, "-j", f"{jobid}.batch", "-o", "JobID,MaxRSS,AveRSS")
    assert size_bytes(r[0]["MaxRSS"]) < 60 * 2**20, r
    p = c.run(["sbatch", "--acctg-freq=task=x", "--wrap", "true"])
    assert p.returncode == 1
    assert p.stderr == "sbatch: error: Invalid --acctg-freq specification: task=x\n"
    # with a memory limit, sampling less often than JobAcctGatherFrequency
    # (task=1 here) would not watch the memory: refused (Slurm's test1.72)
    for cmd, prefix in (("sbatch", "Batch job submission failed"),
                        ("srun", "Unable to allocate resources")):
        argv = [cmd, "--mem=200", "--acctg-freq=40"]
        argv += ["--wrap", "true"] if cmd == "sbatch" else ["true"]
        p = c.run(argv)
        assert p.returncode == 1
        assert p.stderr == f"{cmd}: error: {prefix}: Invalid accounting frequency requested\n"
    assert c.run(["srun", "--mem=200", "--acctg-freq=1", "true"]).returncode == 0
    assert c.run(["srun", "--acctg-freq=40", "true"]).returncode == 0
