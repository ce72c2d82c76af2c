"""A user cannot touch another user's jobs (issue 8, point 10).

test_identity.py already has user b refused scancel (plain, --signal, -u),
scontrol hold/release, TimeLimit, requeue and srun --jobid on user a's jobs, and
test_job_update.py a's Nice and b's Dependency.  Here the rest of what a job
owner may do, tried by somebody else, with real Unix users: every other
scontrol update key, top, uhold, array tasks, steps, job filters of scancel,
an srun step in a pending allocation, its batch script in the spool; and that
what the job writes is the job user's, with the mode its umask gives (Slurm
creates output files with the job's umask and guarantees no more: a 077 umask
keeps them from others).
Each refusal is checked to have changed nothing.
"""

import glob
import os
import stat
import time

from unixusers import as_user, needs_root, sbatch_as

pytestmark = needs_root

DENIED = "Access/permission denied"

# what a refused request must leave as it was
FIELDS = ("JobName", "Priority", "Nice", "TimeLimit", "Partition", "NumNodes",
          "ExcNodeList", "ReqNodeList", "StartTime", "Dependency", "Reason",
          "JobState", "Comment")


def snapshot(c, jobid):
    return {f: c.job_field(jobid, f) for f in FIELDS}


def refused(p, cmd):
    assert p.returncode == 1, (cmd, p.stdout, p.stderr)
    assert DENIED in p.stderr, (cmd, p.stderr)


def test_update_keys_of_another_users_job(ucluster, users):
    c, a, b = ucluster, users["a"], users["b"]
    pending = sbatch_as(c, a, "-J mine --comment=a-says --begin=now+3600 "
                              "-o /dev/null --wrap true")
    before = snapshot(c, pending)
    for kv in ("Name=stolen", "JobName=stolen", "Comment=b-says", "Priority=1",
               "Nice=100", "Nice=-5", "TimeLimit=1", "Partition=debug",
               "NumNodes=2", "ExcNodeList=node01", "NodeList=node02",
               "StartTime=now", "BeginTime=now", "Features=x",
               "MinMemoryNode=1", f"Dependency=afterany:{pending}"):
        cmd = f"scontrol update JobId={pending} {kv}"
        p = as_user(c, b, cmd)
        refused(p, cmd)
    for cmd in (f"scontrol top {pending}", f"scontrol uhold {pending}",
                f"scontrol hold {pending}"):
        refused(as_user(c, b, cmd), cmd)
    time.sleep(0.3)
    assert snapshot(c, pending) == before
    # the owner may (and that is what the above would have done)
    p = as_user(c, a, f"scontrol update JobId={pending} Name=renamed")
    assert p.returncode == 0, p.stderr
    assert c.job_field(pending, "JobName") == "renamed"


def test_array_tasks_and_steps_of_another_user(ucluster, users):
    c, a, b = ucluster, users["a"], users["b"]
    arr = sbatch_as(c, a, "--array=0-3 --begin=now+3600 -o /dev/null --wrap true")
    running = sbatch_as(c, a, "-o /dev/null --wrap 'srun sleep 300'")
    assert c.wait_running(running) == "RUNNING"
    c.wait_for(lambda: f"{running}.0" in c.run(["squeue", "-h", "-s", "-o", "%i"]).stdout,
               what="step 0 running")
    for cmd in (f"scancel {arr}_2", f"scancel {arr}", f"scontrol hold {arr}_1",
                f"scontrol update JobId={arr}_3 TimeLimit=1",
                f"scontrol requeue {running}", f"scancel {running}.0",
                f"scancel --signal=USR1 {running}.0", f"scancel -b {running}"):
        refused(as_user(c, b, cmd), cmd)
    # filters without ids reach only b's own jobs: a's are left alone
    for cmd in ("scancel -t RUNNING", "scancel -t PENDING", "scancel -n wrap"):
        as_user(c, b, cmd)
    # an allocation of a's is not b's to run a step in, running or not
    for cmd in (f"srun --jobid={running} --overlap true",
                f"srun --jobid={arr} true"):
        p = as_user(c, b, cmd)
        assert p.returncode == 1, cmd
        assert "Unable to create step for job" in p.stderr and DENIED in p.stderr, \
            (cmd, p.stderr)
    # nor is its batch script, kept in the node's spool while it runs
    scripts = glob.glob(os.path.join(c.dir, "spool", "*", f"job{running:05d}",
                                     "slurm_script"))
    assert len(scripts) == 1, scripts
    p = as_user(c, b, f"cat {scripts[0]}")
    assert p.returncode == 1 and "Permission denied" in p.stderr, p.stderr
    time.sleep(0.3)
    assert c.job_state(running) == "RUNNING"
    p = c.run(["squeue", "-h", "-s", "-j", str(running), "-o", "%i"])
    assert f"{running}.0" in p.stdout.split(), p.stdout
    p = c.run(["squeue", "-h", "-r", "-j", str(arr), "-o", "%i %T %r"])
    assert p.stdout.split("\n")[:-1] == [f"{arr}_{t} PENDING BeginTime"
                                         for t in range(4)], p.stdout
    assert c.job_field(f"{arr}_3", "TimeLimit") != "00:01:00"


def test_output_is_the_job_users_with_its_umask(ucluster, users):
    c, a, b = ucluster, users["a"], users["b"]
    work = c.work
    # sbatch takes the submitter's umask into the job (SLURM_UMASK)
    p = as_user(c, a, "umask 077; sbatch --parsable -o private.%j "
                      "--wrap 'echo a-secret; touch made.private'")
    assert p.returncode == 0, p.stderr
    private = int(p.stdout)
    p = as_user(c, a, "umask 022; sbatch --parsable -o shared.%j "
                      "--wrap 'echo a-shared; touch made.shared'")
    assert p.returncode == 0, p.stderr
    shared = int(p.stdout)
    assert c.wait_job(private) == "COMPLETED"
    assert c.wait_job(shared) == "COMPLETED"
    for name, mode in ((f"private.{private}", 0o600), ("made.private", 0o600),
                       (f"shared.{shared}", 0o644), ("made.shared", 0o644)):
        st = os.stat(work / name)
        assert (st.st_uid, st.st_gid) == (a.uid, a.gid), name
        assert stat.S_IMODE(st.st_mode) == mode, (name, oct(st.st_mode))
    p = as_user(c, b, f"cat private.{private}")
    assert p.returncode == 1 and "Permission denied" in p.stderr
    assert "a-secret" not in p.stdout
    p = as_user(c, b, f"cat shared.{shared}")
    assert p.stdout == "a-shared\n"
    # an srun step's output the same way
    p = as_user(c, a, "umask 077; srun -o step.out echo a-step")
    assert p.returncode == 0, p.stderr
    st = os.stat(work / "step.out")
    assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (a.uid, 0o600)
