"""scontrol: ping, show config/job/node/partition/hostnames, update, errors."""

import os
import re
import time
import socket


def test_ping(cluster):
    p = cluster.run("scontrol ping")
    assert p.returncode == 0, p.stderr
    assert re.fullmatch(r"Slurmctld\(primary\) at \S+ is UP\n", p.stdout), p.stdout
    assert socket.gethostname() in p.stdout


def test_show_config(cluster):
    p = cluster.run("scontrol show config")
    assert p.returncode == 0, p.stderr
    assert re.search(r"^SchedulerTimeSlice\s+= 30 sec$", p.stdout, re.M)
    assert re.search(r"^ClusterName\s+= rota$", p.stdout, re.M)
    assert re.search(r"^MinJobAge\s+= 300 sec$", p.stdout, re.M)
    # slurm.conf says CR_Core_Memory; Slurm prints its names in capitals,
    # which scripts match (CR_CORE*)
    assert re.search(r"^SelectTypeParameters\s+= CR_CORE_MEMORY$", p.stdout, re.M)
    assert re.search(r"^SlurmctldPort\s+= " + cluster.conf_value("SlurmctldPort") + "$",
                     p.stdout, re.M)
    # the daemons' users as Slurm prints them, name(uid): scripts (Slurm's
    # own tests) compare SlurmdUser with root(0)
    assert re.search(r"^SlurmUser\s+= root\(0\)$", p.stdout, re.M), p.stdout
    assert re.search(r"^SlurmdUser\s+= root\(0\)$", p.stdout, re.M), p.stdout
    # what Rota is where Slurm would name a plugin
    assert re.search(r"^ProctrackType\s+= proctrack/cgroup$", p.stdout, re.M)
    assert re.search(r"^SwitchType\s+= switch/none$", p.stdout, re.M)
    assert re.search(r"^NodeFeaturesPlugins\s+= \(null\)$", p.stdout, re.M)
    # several nodes on one host, as Slurm built for multiple slurmds says
    # (its tests adapt to it)
    same_host = len({line.split("NodeHostname=")[1].split()[0]
                     for line in open(cluster.conf_path)
                     if line.startswith("NodeName=") and "NodeHostname=" in line}) == 1
    assert same_host  # rota up's nodes
    assert re.search(r"^MULTIPLE_SLURMD\s+= Yes$", p.stdout, re.M), p.stdout


def test_show_node(cluster):
    p = cluster.run("scontrol show node node01")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("NodeName=node01 ")
    assert "CPUTot=8" in p.stdout
    assert "RealMemory=65536" in p.stdout
    assert "State=IDLE" in p.stdout
    assert "Partitions=debug" in p.stdout
    p = cluster.run("scontrol show nodes")
    assert len(re.findall(r"^NodeName=", p.stdout, re.M)) == 4


def test_update_node_features(cluster):
    """scontrol update NodeName= AvailableFeatures= (Features=) ActiveFeatures=:
    shown by scontrol show node and sinfo %f/%b, named by --constraint (the
    available ones at submission, the active ones to run), kept across a
    restart of the controller, slurm.conf's again after scontrol reconfigure
    (as Slurm)."""
    c = cluster

    def feats(node):
        out = c.run(["scontrol", "show", "node", node], check=True).stdout
        return (re.search(r"AvailableFeatures=(\S*)", out).group(1),
                re.search(r"ActiveFeatures=(\S*)", out).group(1))
    p = c.run(["scontrol", "update", "nodename=node01",
               "AvailableFeatures=fast,big", "ActiveFeatures=fast"])
    assert (p.returncode, p.stderr) == (0, ""), p.stderr
    assert feats("node01") == ("fast,big", "fast")
    p = c.run(["scontrol", "update", "nodename=node02", "Features=big"])
    assert (p.returncode, p.stderr) == (0, ""), p.stderr
    assert feats("node02") == ("big", "big")
    assert c.run(["sinfo", "-h", "-N", "-n", "node[01-03]", "-o", "%N %f %b"],
                 check=True).stdout == ("node01 fast,big fast\n"
                                        "node02 big big\n"
                                        "node03 (null) (null)\n")
    p = c.run(["scontrol", "update", "nodename=node02", "ActiveFeatures=fast"])
    assert p.returncode == 1
    assert p.stderr == ("slurm_update error: Active features not subset of "
                        "available features\n")
    assert feats("node02") == ("big", "big")
    # fast runs on node01; big on node02 alone (not active on node01)
    j = c.sbatch("-C", "fast", "-o", "/dev/null", "--wrap", "true")
    k = c.sbatch("-C", "big", "-o", "/dev/null", "--wrap", "true")
    assert c.wait_job(j) == "COMPLETED" and c.wait_job(k) == "COMPLETED"
    assert c.job_field(j, "NodeList") == "node01"
    assert c.job_field(k, "NodeList") == "node02"
    p = c.run(["sbatch", "-C", "nosuch", "--wrap", "true"])
    assert p.stderr == ("sbatch: error: Batch job submission failed: "
                        "Invalid feature specification\n")
    c.restart_ctld()
    assert feats("node01") == ("fast,big", "fast")
    assert feats("node02") == ("big", "big")
    assert c.run(["scontrol", "reconfigure"]).returncode == 0
    c.wait_for(lambda: feats("node01") == ("(null)", "(null)"), 10,
               "slurm.conf's features again")
    assert feats("node02") == ("(null)", "(null)")
    c.restart_ctld()
    assert feats("node01") == ("(null)", "(null)")


def test_show_partition(cluster):
    p = cluster.run("scontrol show partition debug")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("PartitionName=debug\n")
    assert "Nodes=node[01-04]" in p.stdout
    assert "Default=YES" in p.stdout
    assert "MaxTime=01:00:00" in p.stdout
    assert "TotalNodes=4" in p.stdout


def test_show_hostnames_and_hostlist(cluster):
    p = cluster.run("scontrol show hostnames 'node[01-03],other'")
    assert p.stdout == "node01\nnode02\nnode03\nother\n"
    p = cluster.run("scontrol show hostlist node01,node02,node03,node07")
    assert p.stdout == "node[01-03,07]\n"
    # three bracket groups: Slurm's order, the last group fastest, then the first
    p = cluster.run("scontrol show hostnames 'row[0,1]_rack[2-3]_blade[4,5]'")
    assert p.stdout.split() == [
        "row0_rack2_blade4", "row0_rack2_blade5", "row1_rack2_blade4",
        "row1_rack2_blade5", "row0_rack3_blade4", "row0_rack3_blade5",
        "row1_rack3_blade4", "row1_rack3_blade5"]


def test_show_job_fields(cluster):
    jobid = cluster.sbatch("--wrap", "exit 3", "-J", "three")
    assert cluster.wait_job(jobid) == "FAILED"
    p = cluster.run(["scontrol", "show", "job", str(jobid)])
    assert p.returncode == 0, p.stderr
    assert f"JobId={jobid} JobName=three" in p.stdout
    assert "JobState=FAILED" in p.stdout
    assert "ExitCode=3:0" in p.stdout
    assert "NodeList=node01" in p.stdout
    one = cluster.run(["scontrol", "show", "job", str(jobid), "-o"])
    assert len(one.stdout.strip().splitlines()) == 1


def test_show_unknown_job(cluster):
    p = cluster.run("scontrol show job 999999")
    assert p.returncode == 1
    assert p.stderr == "slurm_load_jobs error: Invalid job id specified\n"


def test_show_job_zero_is_every_job(cluster):
    """Job id 0 stands for all jobs, as Slurm's scontrol loads them all:
    "0_T" shows task T of every array (Slurm's test17.44)."""
    a = cluster.sbatch("-o", "/dev/null", "--array=1-2", "--wrap", "true")
    b = cluster.sbatch("-o", "/dev/null", "--array=2-3", "--wrap", "true")
    for j in (a, b):
        cluster.wait_job(j)
    p = cluster.run(["scontrol", "show", "job", "-o", "0_2"])
    assert p.returncode == 0, p.stderr
    ids = sorted(line.split()[1] for line in p.stdout.splitlines())
    assert ids == [f"ArrayJobId={a}", f"ArrayJobId={b}"], p.stdout
    assert all("ArrayTaskId=2 " in line for line in p.stdout.splitlines())
    p = cluster.run(["scontrol", "show", "job", "0_77"])
    assert p.returncode == 1 and p.stdout == "Job 0_77 not found\n"
    p = cluster.run(["scontrol", "show", "job", "0"])
    assert p.returncode == 0 and f"ArrayJobId={a} " in p.stdout


def test_hold_release(cluster):
    jobid = cluster.sbatch("--hold", "--wrap", "true")
    assert cluster.job_field(jobid, "Reason") == "JobHeldUser"
    assert cluster.job_field(jobid, "Priority") == "0"
    assert cluster.run(f"scontrol release {jobid}").returncode == 0
    assert cluster.wait_job(jobid) == "COMPLETED"


def test_update_job_time_limit(cluster):
    jobid = cluster.sbatch("--hold", "-t", "10", "--wrap", "true")
    assert cluster.job_field(jobid, "TimeLimit") == "00:10:00"
    p = cluster.run(f"scontrol update JobId={jobid} TimeLimit=5")
    assert p.returncode == 0, p.stderr
    assert cluster.job_field(jobid, "TimeLimit") == "00:05:00"


def test_unknown_command(cluster):
    p = cluster.run("scontrol frobnicate")
    assert p.returncode != 0
    assert p.stderr.strip()


def test_version(cluster):
    p = cluster.run("scontrol --version")
    assert p.returncode == 0
    assert re.fullmatch(r"slurm \d+\.\d+\.\d+.*\n", p.stdout)


def test_write_batch_script(cluster, tmp_path):
    c = cluster
    script = "#!/bin/sh\n#SBATCH -J wbs\necho hi\n"
    jid = c.sbatch("-H", input=script)
    p = c.run(["scontrol", "write", "batch_script", str(jid)], cwd=tmp_path, check=True)
    assert p.stdout == f"batch script for job {jid} written to slurm-{jid}.sh\n"
    assert (tmp_path / f"slurm-{jid}.sh").read_text() == script
    p = c.run(["scontrol", "write", "batch_script", str(jid), "-"], check=True)
    assert p.stdout == script
    p = c.run(["scontrol", "write", "batch_script", str(jid), str(tmp_path / "x.sh")],
              check=True)
    assert (tmp_path / "x.sh").read_text() == script
    p = c.run(["scontrol", "write", "batch_script", "999999"], cwd=tmp_path)
    assert p.returncode == 1 and p.stderr.startswith("job script retrieval failed:"), p
    assert not (tmp_path / "slurm-999999.sh").exists()


def test_setdebug_and_friends(cluster):
    c = cluster
    assert c.run(["scontrol", "setdebug", "debug2"], check=True).stdout == ""
    assert c.run(["scontrol", "setdebug", "3"], check=True).stdout == ""
    p = c.run(["scontrol", "setdebug", "loud"])
    assert p.returncode == 1 and p.stderr == "invalid debug level: loud\n"
    p = c.run(["scontrol", "setdebug"])
    assert p.returncode == 1 and p.stderr == "too few arguments for keyword:setdebug\n"
    assert c.run(["scontrol", "setdebugflags", "+Backfill,-Gang"]).returncode == 0
    assert c.run(["scontrol", "setdebugflags", "+Nonsense"]).returncode == 1
    assert c.run(["scontrol", "schedloglevel", "enable"]).returncode == 0
    assert c.run(["scontrol", "setdebug", "info"]).returncode == 0
    log = open(os.path.join(c.dir, "log", "rotactld.log")).read()
    assert "Set debug level to 6" in log and "Set debug level to 3" in log


def test_completing_and_show_entities(cluster):
    c = cluster
    p = c.run(["scontrol", "completing"], check=True)
    assert p.stdout == ""
    p = c.run(["scontrol", "show", "daemons"], check=True)
    assert p.stdout in ("slurmctld slurmd\n", "slurmd\n", "slurmctld \n", "\n"), p.stdout
    for ent in ("federation", "frontend", "burstbuffer"):
        p = c.run(["scontrol", "show", ent], check=True)
        assert p.stdout == "", (ent, p.stdout)


def test_notify(cluster):
    """scontrol notify: to a batch job's error output, to salloc's terminal."""
    import subprocess
    c = cluster
    err = c.work / "err"
    jid = c.sbatch("-o", "/dev/null", "-e", str(err), "--wrap", "sleep 60")
    c.wait_running(jid)

    def told():
        # a job RUNNING may not have its batch step yet under load: ask again
        if err.exists() and "slurmstepd: error: hello there\n" in err.read_text():
            return True
        c.run(["scontrol", "notify", str(jid), "hello", "there"], check=True)
        time.sleep(0.5)
        return err.exists() and "slurmstepd: error: hello there\n" in err.read_text()
    c.wait_for(told, what="the message in the error file")
    p = c.run(["scontrol", "notify", str(jid)])
    assert p.returncode == 1 and p.stderr == "too few arguments for keyword:notify\n"
    p = c.run(["scontrol", "notify", "999999", "x"])
    assert p.returncode == 1 and p.stderr.startswith("job notify failure: "), p
    c.run(["scancel", str(jid)], check=True)
    proc = subprocess.Popen(["salloc", "-N1", "sleep", "30"], env=c.env,
                            stderr=subprocess.PIPE, text=True, cwd=str(c.work))
    try:
        aid = c.wait_for(lambda: c.run(["squeue", "-h", "-t", "R", "-o", "%i"]
                                       ).stdout.split() or None, what="salloc's job")[0]
        c.run(["scontrol", "notify", aid, "to", "salloc"], check=True)
        c.run(["scancel", aid], check=True)
        _, stderr = proc.communicate(timeout=30)
        assert "salloc: to salloc\n" in stderr, stderr
    finally:
        proc.kill()
