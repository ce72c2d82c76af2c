"""A step's own time limit: srun -t inside an allocation, scontrol update
StepId= TimeLimit= (Slurm's test2.13), enforced on the step alone."""

import re

from conftest import wait_until
from unixusers import as_user, needs_root


def _step_limit(c, step):
    p = c.run(["scontrol", "show", "step", step])
    m = re.search(r"TimeLimit=(\S+)", p.stdout)
    return m.group(1) if m else p.stderr


@needs_root
def test_step_time_limit(cluster, users):
    c = cluster
    out = c.work / "steplimit.out"
    script = c.work / "steplimit.sh"
    script.write_text("#!/bin/bash\n"
                      "echo JOB_BEGIN\n"
                      "srun -t5 bash -c 'echo STEP_BEGIN; sleep 150; echo STEP_FINISH'\n"
                      "echo JOB_FINISH $?\n")
    jid = c.sbatch("-t3", "-o", str(out), str(script), cwd=c.work)
    c.wait_running(jid)
    step = f"{jid}.0"
    wait_until(lambda: _step_limit(c, step) == "00:05:00", what="step 0 with its -t5")
    # the job's other steps keep the job's limit
    assert c.job_field(jid, "TimeLimit") == "00:03:00"

    def update(*args, user=None):
        cmd = ["scontrol", "update", *args]
        return as_user(c, user, " ".join(cmd)) if user else c.run(cmd)

    p = update(f"StepId={jid}", "TimeLimit=1")  # every step of the job
    assert p.returncode == 0, p.stderr
    assert _step_limit(c, step) == "00:01:00"
    p = update(f"StepId={step}", "TimeLimit=+2")
    assert p.returncode == 0 and _step_limit(c, step) == "00:03:00"
    p = update(f"StepId={step}", "TimeLimit=-10")
    assert p.returncode == 1
    assert ("TimeLimit decrement larger than current time limit (10 > 3)"
            in p.stderr)
    p = update(f"StepId={step}", "TimeLimit=-2")
    assert p.returncode == 0 and _step_limit(c, step) == "00:01:00"
    p = update(f"StepId={jid}.7", "TimeLimit=1")
    assert p.returncode == 1
    assert p.stderr == "slurm_update error: Invalid job id specified\n"
    p = update(f"StepId={step}", "Name=x")
    assert p.returncode == 1
    assert p.stderr == "Update of this parameter is not supported: Name=x\nRequest aborted\n"
    p = update(f"StepId={step}")
    assert p.returncode == 1 and p.stderr == "No changes specified\n"
    p = update("StepId=x.y", "TimeLimit=1")
    assert p.returncode == 1 and "Invalid StepID parameter: StepId=x.y" in p.stderr
    p = update(f"StepId={step}", "TimeLimit=5", user=users["a"])
    assert p.returncode == 1
    assert p.stderr == "slurm_update error: Invalid user id\n"
    # the new limit is journaled: a restarted controller keeps it
    c.kill_daemon("rotactld")
    c.up()
    assert _step_limit(c, step) == "00:01:00"
    # the step alone ends at its limit; the batch script goes on
    assert c.wait_job(jid, timeout=150) == "COMPLETED"
    text = out.read_text()
    assert re.search(rf"\*\*\* STEP {jid}\.0 ON node\d+ CANCELLED AT \S+ DUE TO TIME LIMIT "
                     r"\*\*\*", text), text
    assert "STEP_BEGIN" in text and "STEP_FINISH" not in text
    assert re.search(r"^JOB_FINISH \d+$", text, re.M), text

    def step_state():
        p = c.run(["sacct", "-n", "-P", "-j", step, "-o", "JobID,State"])
        return p.stdout.strip()
    wait_until(lambda: step_state() == f"{step}|TIMEOUT", what="sacct's TIMEOUT")
