"""A running job made smaller: scontrol update JobId= NumNodes=N, Slurm's
resize (its test2.14), with the slurm_job_<id>_resize.sh/.csh files."""

import re

from conftest import wait_until


def test_shrink_from_inside_the_job(cluster):
    c = cluster
    out = c.work / "resize.out"
    info = c.work / "resize.info"
    script = c.work / "resize.sh"
    script.write_text(
        "#!/bin/bash\n"
        "srun -l id -u\n"
        f"scontrol show job $SLURM_JOBID > {info}\n"
        "scontrol update JobId=$SLURM_JOBID NumNodes=1\n"
        ". slurm_job_${SLURM_JOBID}_resize.sh\n"
        f"scontrol show job $SLURM_JOBID >> {info}\n"
        "srun -l id -u\n"
        "echo SLURM_NNODES=$SLURM_NNODES NODELIST=$SLURM_JOB_NODELIST "
        "CPN=$SLURM_JOB_CPUS_PER_NODE TPN=${SLURM_TASKS_PER_NODE-unset}\n"
        "cat slurm_job_${SLURM_JOBID}_resize.csh\n"
        "scontrol update JobId=$SLURM_JOBID NumNodes=2; echo grow=$?\n"
        "scontrol update JobId=$SLURM_JOBID NumNodes=0; echo zero=$?\n"
        "rm -f slurm_job_${SLURM_JOBID}_resize.*\n")
    jid = c.sbatch("-N2", "--ntasks-per-node=1", "-t1", "-o", str(out), str(script),
                   cwd=c.work)
    assert c.wait_job(jid) == "COMPLETED"
    text = out.read_text()
    # two tasks before, one after (Slurm's check: node count + 1)
    assert len(re.findall(r"^\d+: *\d+$", text, re.M)) == 3, text
    assert "To reset Slurm environment variables, execute\n" \
           f"  For bash or sh shells:  . ./slurm_job_{jid}_resize.sh\n" \
           f"  For csh shells:         source ./slurm_job_{jid}_resize.csh\n" in text
    m = re.search(r"^SLURM_NNODES=(\d+) NODELIST=(\S+) CPN=(\S+) TPN=(\S+)$", text, re.M)
    assert m and m.group(1) == "1" and m.group(4) == "unset", text
    first = m.group(2)
    assert re.fullmatch(r"node\d\d", first) and m.group(3) == "1"
    assert f'setenv SLURM_JOB_NODELIST "{first}"' in text
    assert "unsetenv SLURM_TASKS_PER_NODE" in text
    assert "grow=1" in text and "zero=1" in text
    assert "Requested operation not supported on this system" in text
    counts = [int(n) for n in re.findall(r"NumNodes=(\d+)", info.read_text())]
    assert counts == [2, 1]  # Slurm's check: their sum is 3
    assert not list(c.work.glob(f"slurm_job_{jid}_resize.*"))

    # accounting keeps what the job held at the end
    def acct():
        p = c.run(["sacct", "-n", "-P", "-X", "-j", str(jid), "-o",
                   "NodeList,AllocNodes,AllocCPUS"])
        return p.stdout.strip()
    wait_until(lambda: acct() == f"{first}|1|1", what="the resized record")


def test_shrink_keeps_the_batch_node_and_frees_the_others(cluster):
    c = cluster
    jid = c.sbatch("-N3", "--ntasks-per-node=1", "-o", "/dev/null", "--wrap",
                   "sleep 300")
    c.wait_running(jid)
    nodes = c.job_field(jid, "NodeList")
    batch = c.job_field(jid, "BatchHost")
    p = c.run(["scontrol", "update", f"JobId={jid}", "NumNodes=2"])
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""  # no job environment here: no files
    assert c.job_field(jid, "NumNodes") == "2"
    assert c.job_field(jid, "NodeList") != nodes
    assert batch in c.run(["scontrol", "show", "hostnames",
                           c.job_field(jid, "NodeList")]).stdout.split()
    # a pending job's NumNodes is still a request; a running one cannot grow
    p = c.run(["scontrol", "update", f"JobId={jid}", "NumNodes=3"])
    assert p.returncode == 1
    assert "Requested operation not supported on this system" in p.stderr
    # the freed node takes another job
    other = c.sbatch("-N2", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_running(other)
    # the smaller allocation survives a restart of the controller
    c.kill_daemon("rotactld")
    c.up()
    assert c.job_field(jid, "NumNodes") == "2"
    c.run(["scancel", str(jid), str(other)], check=True)


def test_nodelist_keeps_a_subset_and_the_step_goes_on(cluster):
    """NodeList= of a running job (Slurm's test2.15): the nodes left out leave
    it, the tasks of a step there are killed, its tasks on kept nodes go on."""
    c = cluster
    out = c.work / "subset.out"
    started = c.work / "subset.t1"
    started.unlink(missing_ok=True)
    jid = c.sbatch(
        "-N2", "--ntasks-per-node=1", "-t2", "-o", str(out), "--wrap",
        "srun -l bash -c 'if [ $SLURM_PROCID = 0 ]; then sleep 6; echo done0; "
        f"else touch {started}; sleep 20; echo bad1; fi'; echo srun=$?")
    c.wait_running(jid)
    c.wait_for(started.exists, timeout=20, what="task 1 started")
    batch = c.job_field(jid, "BatchHost")
    nodes = c.run(["scontrol", "show", "hostnames", c.job_field(jid, "NodeList")]
                  ).stdout.split()
    other = [n for n in nodes if n != batch][0]
    # not the job's node, or without the batch host: refused
    p = c.run(["scontrol", "update", f"JobId={jid}", "NodeList=node09"])
    assert p.returncode == 1 and "Invalid node name specified" in p.stderr
    p = c.run(["scontrol", "update", f"JobId={jid}", f"NodeList={other}"])
    assert p.returncode == 1 and "Invalid node name specified" in p.stderr
    p = c.run(["scontrol", "update", f"JobId={jid}", f"NodeList={batch}"])
    assert p.returncode == 0, p.stderr
    assert c.job_field(jid, "NodeList") == batch
    assert c.job_field(jid, "NumNodes") == "1"
    assert c.wait_job(jid) == "COMPLETED"
    text = out.read_text()
    assert "0: done0" in text and "bad1" not in text, text
