"""Job steps are visible: squeue -s and scontrol show step, with Slurm's ids
(N.batch for the script, N.0, N.1 for each srun)."""


def test_steps_listed_while_running(cluster):
    jobid = cluster.sbatch("-N", "2", "-o", "/dev/null", "--wrap",
                           "srun -N1 true; srun -N2 sleep 20")
    cluster.wait_running(jobid)

    def steps():
        p = cluster.run(["squeue", "-s", "-h", "-j", str(jobid), "-o", "%i %j %N %A"])
        lines = sorted(p.stdout.splitlines())
        # step 0 (true) may still be listed, slow to end, before step 1 starts
        return lines if len(lines) == 2 and lines[0].startswith(f"{jobid}.1 ") else None

    lines = cluster.wait_for(steps, timeout=20, what="step 1 and the batch step")
    assert lines == [f"{jobid}.1 sleep node[01-02] 2", f"{jobid}.batch batch node01 1"]
    p = cluster.run(["scontrol", "show", "step", f"{jobid}.1"])
    assert p.stdout.startswith(f"StepId={jobid}.1 ")
    assert "State=RUNNING" in p.stdout and "NodeList=node[01-02]" in p.stdout
    assert "Tasks=2" in p.stdout
    header = cluster.run(["squeue", "-s"]).stdout.splitlines()[0]
    assert header.split() == ["STEPID", "NAME", "PARTITION", "USER", "TIME", "NODELIST"]
    cluster.run(["scancel", str(jobid)])
    cluster.wait_job(jobid)
    p = cluster.run(["squeue", "-s", "-h", "-j", str(jobid)])
    assert p.stdout.strip() == ""


def test_show_step_tres_has_its_memory(cluster):
    """scontrol show step: TRES= holds the memory the step was given (Slurm's
    test1.12 reads mem=N there)."""
    # --overlap steps too: theirs, though they take it from no other
    jobid = cluster.sbatch("-N1", "-n1", "--mem=100", "-o", "/dev/null", "--wrap",
                           "srun --mem=100 sleep 30 & sleep 0.5; "
                           "srun --overlap --mem=50 sleep 30 & wait")
    for step, tres in ((0, "TRES=cpu=1,mem=100M,node=1"), (1, "TRES=cpu=1,mem=50M,node=1")):
        cluster.wait_for(lambda: "StepId=" in cluster.run(
            ["scontrol", "show", "step", f"{jobid}.{step}"]).stdout, what=f"step {step}")
        p = cluster.run(["scontrol", "show", "step", f"{jobid}.{step}"])
        assert tres in p.stdout, p.stdout
    cluster.run(["scancel", str(jobid)])


def test_show_step_unknown(cluster):
    # a job that exists but has no such step: "not found", exit 1
    jobid = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 30")
    cluster.wait_running(jobid)
    p = cluster.run(["scontrol", "show", "step", f"{jobid}.7"])
    assert p.stdout == f"Job step {jobid}.7 not found\n"
    assert p.returncode == 1
    # a job nobody knows: the controller refuses the job id, as Slurm's does
    p = cluster.run(["scontrol", "show", "step", f"{jobid + 10000}.0"])
    assert "StepId=" not in p.stdout
    assert p.stderr == "slurm_get_job_steps error: Invalid job id specified\n"
    assert p.returncode == 1
    # squeue -s filters a listing: an unknown job is only an empty one
    p = cluster.run(["squeue", "-s", "-h", "-j", str(jobid + 10000)])
    assert p.returncode == 0 and p.stdout == ""
    p = cluster.run(["scontrol", "show", "step", "abc"])
    assert p.returncode == 1
    cluster.run(["scancel", str(jobid)])


def test_derived_exit_code_is_the_worst_step(cluster):
    jobid = cluster.sbatch("-o", "/dev/null", "--wrap", "srun sh -c 'exit 3'; srun true; true")
    assert cluster.wait_job(jobid) == "COMPLETED"
    p = cluster.run(["scontrol", "show", "job", "-d", str(jobid)])
    assert " ExitCode=0:0" in p.stdout
    assert "DerivedExitCode=3:0" in p.stdout
