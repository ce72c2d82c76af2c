"""scontrol listpids, pidinfo, write config, abort and show bbstat|dwstat, as
Slurm 22.05's (its test2.7, test2.11 and test2.24 check the same)."""

import os
import re

from conftest import wait_until
from unixusers import as_user, needs_root

HEADER = "PID      JOBID    STEPID   LOCALID GLOBALID\n"


def _row(line):
    f = line.split()
    return (int(f[0]), int(f[1]), f[2], f[3], f[4])


def test_listpids_inside_a_job(cluster):
    """Slurm's test2.11: a missing step, the step, the whole job."""
    c = cluster
    out = c.work / "lp.out"
    script = c.work / "lp.sh"
    script.write_text(
        "#!/bin/bash\n"
        "srun -n2 sleep 30 &\n"
        "for i in $(seq 50); do [ -e $SLURM_SUBMIT_DIR/never ] || "
        "  scontrol listpids $SLURM_JOB_ID.0 2>/dev/null | grep -q ' 0 *1 *1 *$' && break;"
        "  sleep 0.1; done\n"
        "echo '== 10'; scontrol listpids $SLURM_JOB_ID.10 $SLURMD_NODENAME; echo rc=$?\n"
        "echo '== 0'; scontrol listpids $SLURM_JOB_ID.0 $SLURMD_NODENAME; echo rc=$?\n"
        "echo '== job'; scontrol listpids $SLURM_JOB_ID $SLURMD_NODENAME; echo rc=$?\n"
        "echo '== bad'; scontrol listpids x.y; echo rc=$?\n"
        "kill %1; wait\n")
    jid = c.sbatch("-N1", "-n2", "-o", str(out), str(script), cwd=c.work)
    assert c.wait_job(jid) == "COMPLETED"
    text = out.read_text()
    parts = dict(re.findall(r"== (\S+)\n(.*?)(?=\n== |\Z)", text, re.S))
    assert parts["10"] == (HEADER + f"StepId={jid}.10 does not exist on node node01.\n"
                           "rc=1")
    step0 = parts["0"].splitlines()
    assert step0[0] + "\n" == HEADER and step0[-1] == "rc=0"
    rows = [_row(x) for x in step0[1:-1]]
    assert sorted((r[1], r[2], r[3], r[4]) for r in rows) == [
        (jid, "0", "0", "0"), (jid, "0", "1", "1")]
    # Slurm's check: "$job_id *$step_id *0 *0" twice (this step, the job)
    assert len(re.findall(rf"\b{jid} +0 +0 +0\b", text)) == 2
    whole = parts["job"].splitlines()
    assert whole[-1] == "rc=0"
    rows = [_row(x) for x in whole[1:-1]]
    steps = {r[2] for r in rows}
    assert steps == {"0", "batch"}
    # the batch step: its shell is task 0, the others (srun, scontrol) are "-"
    batch = [r for r in rows if r[2] == "batch"]
    assert [r[3:] for r in batch if r[3] != "-"] == [("0", "0")]
    assert any(r[3:] == ("-", "-") for r in batch)
    assert "\"x.y\" does not look like a jobid" in parts["bad"]
    # afterwards the node keeps no list
    spool = c.dir + "/spool/node01"
    wait_until(lambda: not [f for f in os.listdir(spool) if f.endswith(".pids")],
               what="the .pids files removed")
    p = c.run(["scontrol", "listpids"])
    assert p.returncode == 1
    assert p.stdout == HEADER and "No job steps exist on this node." in p.stderr


@needs_root
def test_listpids_shows_a_user_only_their_steps(cluster, users, ucluster):
    c, a, b = ucluster, users["a"], users["b"]
    jid = int(as_user(c, a, "sbatch --parsable -N1 -w node02 --wrap 'sleep 60'",
                      cwd=c.work).stdout.strip())
    c.wait_running(jid)
    spool = c.dir + "/spool/node02"
    wait_until(lambda: any(f.endswith(".pids") for f in os.listdir(spool)),
               what="the batch step's .pids")
    mine = as_user(c, a, f"scontrol listpids {jid}")
    assert mine.returncode == 0, mine.stderr
    assert re.search(rf"^\d+ +{jid} +batch +0 +0 *$", mine.stdout, re.M), mine.stdout
    other = as_user(c, b, f"scontrol listpids {jid}")
    assert other.returncode == 1
    assert other.stdout == HEADER
    assert f"There are no steps for job {jid} on node this node." in other.stderr
    root = c.run(["scontrol", "listpids", str(jid), "node02"])
    assert re.search(rf"^\d+ +{jid} +batch +0 +0 *$", root.stdout, re.M)
    # the file itself is the step's user's alone (root reads every one)
    pids = [f for f in os.listdir(spool) if f.endswith(".pids")]
    st = os.stat(os.path.join(spool, pids[0]))
    assert (st.st_mode & 0o777, st.st_uid) == (0o600, a.uid), st
    assert as_user(c, b, f"cat {spool}/{pids[0]}").returncode != 0
    c.run(["scancel", str(jid)], check=True)


def test_pidinfo(cluster):
    """Slurm's test2.7: the batch script asks about its own shell."""
    c = cluster
    out = c.work / "pi.out"
    jid = c.sbatch("-t", "5", "-o", str(out), "--wrap",
                   "scontrol pidinfo $$; sleep 30 & scontrol pidinfo $!; kill $!; "
                   "srun -n1 bash -c 'scontrol pidinfo $$'", cwd=c.work)
    assert c.wait_job(jid) == "COMPLETED"
    text = out.read_text()
    ends = re.findall(r"^Slurm JobId=(\d+) ends at (\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4})$",
                      text, re.M)
    assert [int(j) for j, _ in ends] == [jid, jid, jid], text
    left = [int(s) for s in re.findall(r"^Job remaining time is (\d+) seconds$", text, re.M)]
    assert len(left) == 3 and all(240 < s <= 300 for s in left), text
    assert "error" not in text
    p = c.run(["scontrol", "pidinfo", str(os.getpid())])
    assert p.returncode == 1
    assert p.stderr == "Failed to locate job for requested pid\n"
    p = c.run(["scontrol", "pidinfo", "12x"])
    assert p.returncode == 1 and "invalid pid" in p.stderr


def test_write_config(cluster):
    """Slurm's test2.24: every key of show config is in the file, as
    Key=Value or #Key=; the file is one slurm.conf reads back."""
    c = cluster
    shown = {}
    for line in c.run(["scontrol", "show", "config"], check=True).stdout.splitlines():
        m = re.match(r"^(\w+) *= (\S+)", line)
        if m:
            shown[m.group(1)] = m.group(2)
    p = c.run(["scontrol", "write", "config", str(c.work / "out.conf")])
    assert p.returncode == 0, p.stderr
    m = re.fullmatch(r"Slurm config saved to (\S+)\n", p.stdout)
    assert m, p.stdout
    path = m.group(1)
    assert re.fullmatch(re.escape(str(c.work / "out.conf")) +
                        r"\.\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", path)
    text = open(path).read()
    for key, value in shown.items():
        assert (f"\n{key}={value}" in text or f"\n#{key}=" in text), (key, value)
    assert "\nKillWait=5\n" in text  # set in slurm.conf
    assert "\n#MinJobAge=300\n" in text  # the default
    assert "\n#SLURM_VERSION=" in text  # derived: not a key
    assert re.search(r"^NodeName=node\d\d .*CPUs=8 .*RealMemory=65536", text, re.M)
    assert re.search(r"^PartitionName=debug Nodes=node\[01-04\] Default=YES .*State=UP$",
                     text, re.M)
    # partitions as they are now, with who they let in
    c.run(["scontrol", "create", "partition=wc", "nodes=node04", "RootOnly=YES",
           "AllowAccounts=acc1,acc2", "MaxCPUsPerNode=4", "DefMemPerCPU=100"],
          check=True)
    try:
        p = c.run(["scontrol", "write", "config", str(c.work / "out2.conf")])
        assert p.returncode == 0, p.stderr
        path2 = p.stdout.split()[-1]
        text2 = open(path2).read()
        q = c.run(["sinfo", "-h", "-o", "%P"], env={"SLURM_CONF": path2})
        assert q.returncode == 0 and q.stderr == "", q.stderr
        assert "wc" in q.stdout.split()
    finally:
        c.run(["scontrol", "delete", "partition=wc"], check=True)
    line = [x for x in text2.splitlines() if x.startswith("PartitionName=wc ")]
    assert len(line) == 1, text2
    for kv in ("Nodes=node04", "AllowAccounts=acc1,acc2", "RootOnly=YES",
               "MaxCPUsPerNode=4", "DefMemPerCPU=100", "State=UP"):
        assert f" {kv}" in line[0], line[0]
    # slurm.conf's parser takes it back: the commands run with it
    q = c.run(["sinfo", "-h", "-o", "%P %D"], env={"SLURM_CONF": path})
    assert q.returncode == 0 and q.stderr == "", q.stderr
    assert q.stdout == "debug* 4\n"
    # without a file: beside slurm.conf; an unwritable place is an error
    p = c.run(["scontrol", "write", "config"])
    assert p.returncode == 0
    assert p.stdout.startswith("Slurm config saved to " + c.dir + "/slurm.conf.")
    os.unlink(p.stdout.split()[-1])
    p = c.run(["scontrol", "write", "config", "/no/such/dir/x"])
    assert p.returncode == 1 and "Could not create file /no/such/dir/x." in p.stderr
    p = c.run(["scontrol", "write", "config", "a", "b"])
    assert p.returncode == 1 and "too many arguments for keyword:write" in p.stderr


def test_bbstat_is_refused(cluster):
    for entity in ("bbstat", "dwstat"):
        p = cluster.run(["scontrol", "show", entity])
        assert p.returncode == 1
        assert "burst buffer plugin (BurstBufferType)" in p.stderr


@needs_root
def test_abort(cluster, users):
    c = cluster
    p = as_user(c, users["a"], "scontrol abort")
    assert p.returncode == 1
    assert p.stderr == "slurm_shutdown error: Access/permission denied\n"
    assert c.run(["scontrol", "ping"]).returncode == 0
    jid = c.sbatch("-H", "--wrap", "true")
    pid = c.pid("rotactld")
    p = c.run(["scontrol", "abort"])
    assert p.returncode == 0, p.stderr
    wait_until(lambda: not os.path.exists(f"/proc/{pid}") or
               open(f"/proc/{pid}/stat").read().split(") ")[1][0] in "ZX",
               what="the controller gone")
    with open(os.path.join(c.dir, "log", "rotactld.log")) as f:
        assert "abort requested by uid 0" in f.read()
    c.up()
    assert c.job_state(jid) == "PENDING"  # what it acknowledged is kept
    c.run(["scancel", str(jid)], check=True)
