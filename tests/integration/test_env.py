"""The job environment of ../../shared/COMPAT.md, with Slurm 22.05's values:
batch shells and steps, --export, --get-user-env, umask propagation.

--export and --get-user-env follow sbatch(1) of 22.05:
  ALL (default)   the submission environment; with --get-user-env the user's
                  login environment on the node is loaded first and the
                  submission environment overrides it.
  NONE            only SLURM_* variables of the submission environment;
                  --get-user-env is ignored (22.05; earlier versions loaded the
                  login environment implicitly).
  VAR[=val],...   SLURM_* plus the listed variables.
The login environment is read on the node by the stepd, as root, with
`su - USER -c ...`, as slurmd does for SLURM_GET_USER_ENV=1."""

import os
import pathlib
import re
import shutil
import socket

import pytest

from conftest import write_script
from unixusers import as_user, make_users, needs_root, remove_users, sbatch_as


def read_env(path):
    env = {}
    for line in pathlib.Path(path).read_text().splitlines():
        k, sep, v = line.partition("=")
        if sep and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
            env[k] = v
    return env


def slurm_vars(env):
    return {k: v for k, v in env.items() if k.startswith(("SLURM", "SLURMD"))}


# ---- batch shells and steps ----

def test_batch_and_step_environment(cluster):
    """sbatch -N4 --ntasks-per-node=2: the batch shell, a 7-task step over the four
    nodes and a step on two of them."""
    sub = cluster.work / "sub"
    sub.mkdir()
    write_script(cluster.work / "env.sh", """#!/bin/bash
env > batch.env
srun -n7 -o step-%t.env env
srun -w node[03-04] -N2 -n2 -o sub-%t.env env
""")
    # as if submitted from inside a step: none of it may reach the batch shell
    outer = {"SLURM_STEP_ID": "9", "SLURM_STEPID": "9", "SLURM_STEP_NODELIST": "x",
             "SLURM_STEP_NUM_TASKS": "5", "FOO": "from-submit"}
    jobid = cluster.sbatch("-N4", "--ntasks-per-node=2", "-J", "envjob", "--mem=1000",
                           "-A", "acct1", "-D", str(sub),
                           "-o", "env.out", str(cluster.work / "env.sh"), env=outer)
    assert cluster.wait_job(jobid) == "COMPLETED", (sub / "env.out").read_text()
    env = read_env(sub / "batch.env")
    expect = {
        "SLURM_JOB_ID": str(jobid), "SLURM_JOBID": str(jobid),
        "SLURM_JOB_NAME": "envjob",
        "SLURM_JOB_NODELIST": "node[01-04]", "SLURM_NODELIST": "node[01-04]",
        "SLURM_JOB_NUM_NODES": "4", "SLURM_NNODES": "4",
        "SLURM_NTASKS": "8", "SLURM_NPROCS": "8", "SLURM_NTASKS_PER_NODE": "2",
        "SLURM_TASKS_PER_NODE": "2(x4)",
        "SLURM_JOB_CPUS_PER_NODE": "2(x4)",
        "SLURM_CPUS_ON_NODE": "2",
        "SLURM_NODEID": "0", "SLURM_PROCID": "0", "SLURM_LOCALID": "0",
        "SLURMD_NODENAME": "node01",
        "SLURM_SUBMIT_DIR": str(cluster.work),  # where sbatch ran, not -D
        "SLURM_SUBMIT_HOST": socket.gethostname(),
        "SLURM_JOB_PARTITION": "debug",
        "SLURM_CLUSTER_NAME": "rota",
        "SLURM_MEM_PER_NODE": "1000",
        "SLURM_JOB_ACCOUNT": "acct1",
        "SLURM_JOB_UID": str(os.geteuid()),
        "SLURM_UMASK": "%04o" % _umask(),
        "FOO": "from-submit",
    }
    assert {k: env.get(k) for k in expect} == expect
    assert not [k for k in env if k.startswith(("SLURM_STEP", "SLURM_STEPID"))], env
    for absent in ("SLURM_CPUS_PER_TASK", "SLURM_MEM_PER_CPU", "SLURM_SRUN_COMM_HOST",
                   "SLURM_LAUNCH_NODE_IPADDR"):
        assert absent not in env, absent

    # step 0: 7 tasks over the 4 nodes' 2 CPUs each, block layout
    nodes = ["node01", "node01", "node02", "node02", "node03", "node03", "node04"]
    nodeid = [0, 0, 1, 1, 2, 2, 3]
    localid = [0, 1, 0, 1, 0, 1, 0]
    gtids = ["0,1", "0,1", "2,3", "2,3", "4,5", "4,5", "6"]
    pids = set()
    for t in range(7):
        s = read_env(sub / f"step-{t}.env")
        want = {
            "SLURM_STEP_ID": "0", "SLURM_STEPID": "0",
            "SLURM_PROCID": str(t), "SLURM_LOCALID": str(localid[t]),
            "SLURM_NODEID": str(nodeid[t]), "SLURMD_NODENAME": nodes[t],
            "SLURM_GTIDS": gtids[t],
            "SLURM_STEP_NODELIST": "node[01-04]", "SLURM_STEP_NUM_NODES": "4",
            "SLURM_STEP_NUM_TASKS": "7", "SLURM_STEP_TASKS_PER_NODE": "2(x3),1",
            "SLURM_NODELIST": "node[01-04]", "SLURM_NNODES": "4",
            "SLURM_NTASKS": "7", "SLURM_NPROCS": "7",
            "SLURM_TASKS_PER_NODE": "2(x3),1",
            "SLURM_JOB_ID": str(jobid), "SLURM_JOB_NAME": "envjob",
            "SLURM_JOB_NODELIST": "node[01-04]", "SLURM_JOB_NUM_NODES": "4",
            "SLURM_CLUSTER_NAME": "rota", "SLURM_JOB_PARTITION": "debug",
            "SLURM_SUBMIT_DIR": str(cluster.work),
            "FOO": "from-submit",
        }
        assert {k: s.get(k) for k in want} == want, t
        assert re.fullmatch(r"\d+", s["SLURM_TASK_PID"])
        pids.add(s["SLURM_TASK_PID"])
        assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", s["SLURM_LAUNCH_NODE_IPADDR"]), s
        assert s["SLURM_SRUN_COMM_HOST"] == s["SLURM_LAUNCH_NODE_IPADDR"]
    assert len(pids) == 7

    # step 1 on node03 and node04 only: ids are relative to the step
    for t in range(2):
        s = read_env(sub / f"sub-{t}.env")
        want = {
            "SLURM_STEP_ID": "1", "SLURM_PROCID": str(t), "SLURM_LOCALID": "0",
            "SLURM_NODEID": str(t), "SLURMD_NODENAME": f"node0{t + 3}",
            "SLURM_GTIDS": str(t), "SLURM_STEP_NODELIST": "node[03-04]",
            "SLURM_STEP_NUM_NODES": "2", "SLURM_STEP_NUM_TASKS": "2",
            # the job's, as Slurm's srun passes it on (test1.85)
            "SLURM_STEP_TASKS_PER_NODE": "1(x2)", "SLURM_NODELIST": "node[01-04]",
            "SLURM_TASKS_PER_NODE": "1(x2)",
            "SLURM_JOB_NODELIST": "node[01-04]", "SLURM_NTASKS": "2",
        }
        assert {k: s.get(k) for k in want} == want, t


def test_uneven_tasks_per_node(cluster):
    """-N4 -n7 on idle 8-CPU nodes: select/cons_tres keeps one CPU for each node
    still to be chosen and gives the first node the rest (4,1,1,1, not 2,2,2,1:
    --spread-job exists for the even spread); SLURM_TASKS_PER_NODE is the block
    layout of the tasks over those CPUs, and so is srun's step."""
    jobid = cluster.sbatch("-N4", "-n7", "-o", "u.out", "--wrap",
                           "env > batch.env; srun -o step-%t.env env")
    assert cluster.wait_job(jobid) == "COMPLETED", (cluster.work / "u.out").read_text()
    env = read_env(cluster.work / "batch.env")
    assert (env["SLURM_TASKS_PER_NODE"], env["SLURM_JOB_CPUS_PER_NODE"],
            env["SLURM_NTASKS"], env["SLURM_CPUS_ON_NODE"]) == \
        ("4,1(x3)", "4,1(x3)", "7", "4")
    nodeid = [0, 0, 0, 0, 1, 2, 3]
    for t in range(7):
        s = read_env(cluster.work / f"step-{t}.env")
        assert (s["SLURM_STEP_TASKS_PER_NODE"], s["SLURM_NODEID"],
                s["SLURM_LOCALID"], s["SLURM_PROCID"]) == \
            ("4,1(x3)", str(nodeid[t]), str(t if t < 4 else 0), str(t))


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_cpus_per_task_and_mem_per_cpu(cluster):
    jobid = cluster.sbatch("-N1", "-n3", "-c2", "--mem-per-cpu=100", "-o", "c.out",
                           "--wrap", "env > batch.env; srun -o step-%t.env env")
    assert cluster.wait_job(jobid) == "COMPLETED", (cluster.work / "c.out").read_text()
    env = read_env(cluster.work / "batch.env")
    expect = {"SLURM_CPUS_PER_TASK": "2", "SLURM_NTASKS": "3", "SLURM_NPROCS": "3",
              "SLURM_TASKS_PER_NODE": "3", "SLURM_JOB_CPUS_PER_NODE": "6",
              "SLURM_CPUS_ON_NODE": "6", "SLURM_MEM_PER_CPU": "100"}
    assert {k: env.get(k) for k in expect} == expect
    assert "SLURM_MEM_PER_NODE" not in env
    for t in range(3):
        s = read_env(cluster.work / f"step-{t}.env")
        assert (s["SLURM_CPUS_PER_TASK"], s["SLURM_PROCID"], s["SLURM_LOCALID"]) == \
            ("2", str(t), str(t))
        assert s["SLURM_STEP_TASKS_PER_NODE"] == "3"


def test_ntasks_per_node_layout(cluster):
    jobid = cluster.sbatch("-N2", "--ntasks-per-node=3", "-o", "n.out", "--wrap",
                           "env > batch.env")
    assert cluster.wait_job(jobid) == "COMPLETED"
    env = read_env(cluster.work / "batch.env")
    assert env["SLURM_TASKS_PER_NODE"] == "3(x2)"
    assert env["SLURM_NTASKS_PER_NODE"] == "3"
    assert env["SLURM_NTASKS"] == "6"


# ---- --export ----

SUBMIT_ENV = {"FOO": "foo", "BAR": "bar", "SLURM_MY_VAR": "mine"}
SHOW = 'echo "FOO=${FOO-unset} BAR=${BAR-unset} MY=${SLURM_MY_VAR-unset} JOB=$SLURM_JOB_ID"'


def _sbatch_show(cluster, *args):
    jobid = cluster.sbatch(*args, "-o", "x.%j", "--wrap", SHOW, env=SUBMIT_ENV)
    assert cluster.wait_job(jobid) == "COMPLETED"
    return jobid, (cluster.work / f"x.{jobid}").read_text()


def test_export_modes(cluster):
    jobid, out = _sbatch_show(cluster)
    assert out == f"FOO=foo BAR=bar MY=mine JOB={jobid}\n"
    jobid, out = _sbatch_show(cluster, "--export=ALL")
    assert out == f"FOO=foo BAR=bar MY=mine JOB={jobid}\n"
    # NONE: SLURM_* of the submission environment only
    jobid, out = _sbatch_show(cluster, "--export=NONE")
    assert out == f"FOO=unset BAR=unset MY=mine JOB={jobid}\n"
    # a list: SLURM_* plus the names (current value) and NAME=value items
    jobid, out = _sbatch_show(cluster, "--export=FOO,BAR=given")
    assert out == f"FOO=foo BAR=given MY=mine JOB={jobid}\n"
    jobid, out = _sbatch_show(cluster, "--export=BAR")
    assert out == f"FOO=unset BAR=bar MY=mine JOB={jobid}\n"
    jobid, out = _sbatch_show(cluster, "--export=ALL,BAR=given")
    assert out == f"FOO=foo BAR=given MY=mine JOB={jobid}\n"
    # SBATCH_EXPORT is the same option
    jobid = cluster.sbatch("-o", "y.out", "--wrap", SHOW,
                           env={**SUBMIT_ENV, "SBATCH_EXPORT": "NONE"})
    assert cluster.wait_job(jobid) == "COMPLETED"
    assert (cluster.work / "y.out").read_text() == \
        f"FOO=unset BAR=unset MY=mine JOB={jobid}\n"


def test_export_none_reaches_steps(cluster):
    """sbatch --export=NONE exports SLURM_EXPORT_ENV=NONE, which srun in the job
    reads as its own --export: steps get no more than the batch shell."""
    srun = shutil.which("srun", path=cluster.env["PATH"])
    jobid = cluster.sbatch("--export=NONE", "-o", "n.out", "--wrap",
                           f"echo $SLURM_EXPORT_ENV; {srun} /usr/bin/env > step.env",
                           env=SUBMIT_ENV)
    assert cluster.wait_job(jobid) == "COMPLETED", (cluster.work / "n.out").read_text()
    assert (cluster.work / "n.out").read_text() == "NONE\n"
    env = read_env(cluster.work / "step.env")
    assert "FOO" not in env and env["SLURM_MY_VAR"] == "mine"
    assert env["SLURM_JOB_ID"] == str(jobid) and env["SLURM_STEP_ID"] == "0"


def test_srun_export(cluster):
    p = cluster.run("srun --export=NONE /usr/bin/env", env=SUBMIT_ENV)
    assert p.returncode == 0, p.stderr
    env = read_env_text(p.stdout)
    assert "FOO" not in env and "BAR" not in env and env["SLURM_MY_VAR"] == "mine"
    assert env["SLURM_STEP_ID"] == "0" and "SLURM_JOB_ID" in env
    p = cluster.run("srun --export=BAR=x /usr/bin/env", env=SUBMIT_ENV)
    env = read_env_text(p.stdout)
    assert "FOO" not in env and env["BAR"] == "x" and env["SLURM_MY_VAR"] == "mine"
    p = cluster.run("srun env", env=SUBMIT_ENV)
    env = read_env_text(p.stdout)
    assert (env["FOO"], env["BAR"]) == ("foo", "bar")


def read_env_text(text):
    env = {}
    for line in text.splitlines():
        k, sep, v = line.partition("=")
        if sep:
            env[k] = v
    return env


# ---- umask ----

def test_umask_propagates(cluster):
    for mask, mode in (("077", 0o600), ("002", 0o664)):
        d = cluster.work / f"m{mask}"
        d.mkdir()
        p = cluster.run(f"umask {mask}; sbatch --parsable -o job.out --wrap "
                        "'touch by-job; umask; echo $SLURM_UMASK; srun touch by-step'",
                        cwd=d)
        assert p.returncode == 0, p.stderr
        jobid = int(p.stdout)
        assert cluster.wait_job(jobid) == "COMPLETED", (d / "job.out").read_text()
        assert (d / "job.out").read_text() == f"0{mask}\n0{mask}\n"
        for name in ("by-job", "by-step", "job.out"):
            assert os.stat(d / name).st_mode & 0o777 == mode, (mask, name)
        p = cluster.run(f"umask {mask}; srun -o step.out bash -c "
                        "'umask; touch by-srun'", cwd=d)
        assert p.returncode == 0, p.stderr
        assert (d / "step.out").read_text() == f"0{mask}\n"
        assert os.stat(d / "by-srun").st_mode & 0o777 == mode
        # srun in an allocation made under another umask: srun's own counts
        p = cluster.run(f"umask 022; salloc -N1 bash -c 'umask {mask}; "
                        "srun touch by-salloc-step'", cwd=d)
        assert p.returncode == 0, p.stderr
        assert os.stat(d / "by-salloc-step").st_mode & 0o777 == mode


# ---- the login environment (needs real users) ----

@pytest.fixture(scope="module")
def login_user():
    if not (os.geteuid() == 0 and shutil.which("useradd") and shutil.which("runuser")):
        pytest.skip("needs root and useradd/runuser to create test users")
    made, group = make_users("env")
    u = made["env"]
    profile = pathlib.Path(u.home) / ".profile"
    with open(profile, "a") as f:
        f.write("\n# rota tests\nexport ROTA_LOGIN_MARK=from-login\n"
                "export ROTA_BOTH=login\n"
                'echo "profile noise on stdout"\n')
    os.chown(profile, u.uid, u.gid)
    yield u
    remove_users(made, group)


LOGIN_SHOW = ('echo "MARK=${ROTA_LOGIN_MARK-unset} BOTH=${ROTA_BOTH-unset} '
              'FOO=${FOO-unset} HOME=$HOME USER=$USER JOB=$SLURM_JOB_ID"')


@needs_root
def test_get_user_env(ucluster, login_user):
    u = login_user
    submit_env = {"ROTA_BOTH": "submit", "FOO": "foo"}

    def show(args):
        jobid = sbatch_as(ucluster, u, f"{args} -o out.%j --wrap '{LOGIN_SHOW}'",
                          env=submit_env)
        assert ucluster.wait_job(jobid) == "COMPLETED", args
        return jobid, (ucluster.work / f"out.{jobid}").read_text()

    # the login environment is loaded, the submission environment wins
    for opt in ("--get-user-env", "--get-user-env=20", "--get-user-env=20L"):
        jobid, out = show(opt)
        assert out == (f"MARK=from-login BOTH=submit FOO=foo HOME={u.home} "
                       f"USER={u.name} JOB={jobid}\n"), opt
    jobid, out = show("")
    assert out.startswith("MARK=unset BOTH=submit FOO=foo ")
    # 22.05: --export=NONE ignores --get-user-env
    jobid, out = show("--export=NONE --get-user-env")
    assert out.startswith("MARK=unset BOTH=unset FOO=unset ")
    # a list exports only what it names, over the login environment
    jobid, out = show("--export=FOO --get-user-env")
    assert out.startswith("MARK=from-login BOTH=login FOO=foo ")
    # the request travels as Slurm's SLURM_GET_USER_ENV=1
    jobid = sbatch_as(ucluster, u, "--get-user-env -o g.out --wrap 'echo $SLURM_GET_USER_ENV'")
    assert ucluster.wait_job(jobid) == "COMPLETED"
    assert (ucluster.work / "g.out").read_text() == "1\n"
    p = as_user(ucluster, u, "sbatch --get-user-env=x --wrap true")
    assert p.returncode == 1
    assert "Invalid --get-user-env specification" in p.stderr


@needs_root
def test_get_user_env_failure_runs_with_submitted_env(ucluster, login_user):
    """A login that never prints its environment (here: it exits early) is
    logged on the node, and the job runs with the submitted environment only,
    as slurmd does unless SchedulerParameters=requeue_setup_env_fail."""
    u = login_user
    profile = pathlib.Path(u.home) / ".profile"
    saved = profile.read_text()
    profile.write_text(saved + "\nexit 3\n")
    try:
        jobid = sbatch_as(ucluster, u, f"--get-user-env -o f.out --wrap '{LOGIN_SHOW}'",
                          env={"FOO": "foo"})
        assert ucluster.wait_job(jobid) == "COMPLETED"
        assert (ucluster.work / "f.out").read_text().startswith(
            "MARK=unset BOTH=unset FOO=foo ")
        logs = ucluster.logs(lines=200)
        assert f"JobId={jobid} cannot read the login environment of {u.name}" in logs
    finally:
        profile.write_text(saved)


# ---- resource limits from the submitting shell (PropagateResourceLimits) ----

LIMITS = "ulimit -S -s; ulimit -S -n; env | grep -c '^SLURM_RLIMIT_' || true"


def test_limits_propagate_to_batch_and_steps(cluster):
    c = cluster
    c.run("ulimit -S -s 4321; ulimit -S -n 777; "
          f"sbatch -o lim.out --wrap \"{LIMITS}; srun bash -c '{LIMITS}'\"",
          check=True)
    c.wait_for(lambda: (c.work / "lim.out").exists() and
               len((c.work / "lim.out").read_text().split()) == 6,
               timeout=30, what="the job's output")
    # the batch shell, then its step (srun propagates the shell's own)
    assert (c.work / "lim.out").read_text().split() == ["4321", "777", "0"] * 2


def test_propagate_names_the_limits(cluster):
    c = cluster
    p = c.run("ulimit -S -s 4321; ulimit -S -n 777; "
              f"srun --propagate=STACK bash -c \"{LIMITS}\"; "
              f"srun --propagate=NONE bash -c \"{LIMITS}\"", check=True)
    out = p.stdout.split()
    assert out[0:3:2] == ["4321", "0"] and out[1] != "777", out
    assert out[3] != "4321" and out[4] != "777", out
    p = c.run(["sbatch", "--propagate=CORE,BOGUS", "--wrap", "true"])
    assert p.returncode == 1
    assert "Invalid --propagate specification" in p.stderr and "BOGUS" in p.stderr


def test_srun_preserve_env_keeps_the_allocations_counts(cluster):
    """srun -E: the tasks see srun's SLURM_JOB_NUM_NODES and SLURM_NTASKS
    (the allocation's), not the step's."""
    c = cluster
    out = c.work / "pe.out"
    jid = c.sbatch("-N2", "-n4", "-o", str(out), "--wrap",
                   "srun -N1 -n1 bash -c 'echo step $SLURM_JOB_NUM_NODES $SLURM_NTASKS'; "
                   "srun -E -N1 -n1 bash -c 'echo kept $SLURM_JOB_NUM_NODES "
                   "$SLURM_NTASKS $SLURM_STEP_NUM_TASKS'")
    assert c.wait_job(jid) == "COMPLETED", out.read_text()
    text = out.read_text()
    assert "step 2 1\n" in text, text
    assert "kept 2 4 1\n" in text, text


def test_cpu_freq_is_checked_and_passed(cluster):
    """--cpu-freq takes Slurm's forms and reaches the tasks as
    SLURM_CPU_FREQ_REQ; a bad one is refused in Slurm's words."""
    c = cluster
    for spec in ("high", "Performance", "1200000-2400000:OnDemand", "low-highm1",
                 "perf", "him1"):
        p = c.run(["srun", f"--cpu-freq={spec}", "printenv", "SLURM_CPU_FREQ_REQ"],
                  timeout=60)
        assert (p.returncode, p.stdout) == (0, spec + "\n"), (spec, p.stderr)
    for spec in ("fast", "12-", "high:turbo", "", "0", "2000000-1000000",
                 "high-low"):
        p = c.run(["srun", f"--cpu-freq={spec}", "true"])
        assert (p.returncode, p.stderr) == (1, "srun: error: Invalid --cpu-freq "
                                               "argument\n"), (spec, p.stderr)
