"""The sbatch/srun/salloc options of Slurm 22.05's pages that Rota took last:
salloc --no-shell, --uid/--gid (root's), sbatch --export-file, srun
--prolog/--epilog (and SrunProlog/SrunEpilog), --accel-bind, and the
options that need a plugin Rota has not (--bb, --bbf, --power, --x11, srun -Z)
refused by name; the others accepted (--mcs-label: test_mcs.py)."""

import os
import pwd
import re

from conftest import write_script
from unixusers import as_user, needs_root


def test_salloc_no_shell_leaves_the_allocation(cluster):
    c = cluster
    p = c.run(["salloc", "--no-shell", "-N1", "-t", "5"], check=True, timeout=60)
    m = re.search(r"salloc: Granted job allocation (\d+)", p.stderr)
    assert m, p.stderr
    jid = int(m.group(1))
    # salloc is gone, the job stays, steps run in it
    assert c.job_state(jid) == "RUNNING"
    p = c.run(["srun", f"--jobid={jid}", "hostname"], check=True)
    assert p.stdout.strip() == c.job_field(jid, "NodeList")
    assert c.job_state(jid) == "RUNNING"
    c.run(["scancel", str(jid)], check=True)
    assert c.wait_job(jid) == "CANCELLED"


@needs_root
def test_uid_and_gid_are_roots(cluster, users):
    c, a = cluster, users["a"]
    os.chmod(c.work, 0o777)
    jid = c.sbatch("--uid", a.name, "-o", "/dev/null", "--wrap", "id -un > /dev/null",
                   cwd=c.work)
    assert c.job_field(jid, "UserId").startswith(f"{a.name}(")
    assert c.job_field(jid, "GroupId").startswith(f"{a.name}(")
    c.wait_job(jid)
    jid = c.sbatch(f"--uid={pwd.getpwnam(a.name).pw_uid}", "--gid=0", "-H",
                   "--wrap", "true", cwd=c.work)
    assert c.job_field(jid, "UserId").startswith(f"{a.name}(")
    assert c.job_field(jid, "GroupId") == "root(0)"
    for opt in ("--uid", "--gid"):
        p = as_user(c, a, f"sbatch {opt}=root --wrap true")
        assert p.returncode == 1, p
        assert f"sbatch: error: {opt} only permitted by root user" in p.stderr
    p = c.run(["sbatch", "--uid=no_such_user_zz", "--wrap", "true"])
    assert p.returncode == 1 and "Invalid --uid specification" in p.stderr, p.stderr


def test_export_file(cluster):
    c = cluster
    env = c.work / "env0"
    env.write_bytes(b"ROTA_A=one\0ROTA_B=two words\nand a line\0ROTA_C=dropped")
    out = c.work / "o"
    jid = c.sbatch("--export-file", str(env), "-o", str(out), "--wrap",
                   "echo \"a=$ROTA_A b=$ROTA_B c=${ROTA_C-unset}\"", cwd=c.work)
    c.wait_job(jid)
    assert out.read_text() == "a=one b=two words\nand a line c=unset\n"
    p = c.run(["sbatch", "--export-file=/no/such/file", "--wrap", "true"])
    assert p.returncode == 1, p
    assert "Could not open user environment file /no/such/file" in p.stderr


def test_srun_prolog_and_epilog(cluster):
    c = cluster
    log = c.work / "log"
    pro = write_script(c.work / "pro.sh",
                       f"#!/bin/sh\necho \"pro $SLURM_SCRIPT_CONTEXT $*\" >> {log}\n")
    epi = write_script(c.work / "epi.sh",
                       f"#!/bin/sh\necho \"epi $SLURM_SCRIPT_CONTEXT $*\" >> {log}\n"
                       "exit 3\n")
    p = c.run(["srun", f"--prolog={pro}", f"--epilog={epi}", "echo", "hi", "there"],
              check=True)
    assert p.stdout == "hi there\n"
    assert "srun: error: srun epilog failed status=3" in p.stderr, p.stderr
    assert log.read_text() == ("pro prolog_srun echo hi there\n"
                               "epi epilog_srun echo hi there\n")
    bad = write_script(c.work / "bad.sh", "#!/bin/sh\nexit 2\n")
    p = c.run(["srun", f"--prolog={bad}", "echo", "never"])
    assert p.returncode != 0 and "never" not in p.stdout, p
    assert "srun: error: srun prolog failed rc = 2. Aborting step." in p.stderr
    p = c.run(["srun", "--prolog=none", "true"], check=True)


def test_refused_options_name_what_they_need(cluster):
    c = cluster
    cases = [
        (["sbatch", "--bb=capacity=1G"], "--bb: burst buffers need"),
        (["salloc", "--bbf=f"], "--bbf: burst buffers need"),
        (["srun", "--power=level"], "--power: power options need"),
        (["srun", "--x11"], "--x11: X11 forwarding not available"),
        (["salloc", "--x11=first"], "--x11: X11 forwarding not available"),
        (["srun", "-Z", "-w", "node01"], "--no-allocate:"),
    ]
    for argv, want in cases:
        extra = ["--wrap", "true"] if argv[0] == "sbatch" else ["true"]
        p = c.run(argv + extra)
        assert p.returncode != 0 and want in p.stderr, (argv, p.stderr)
        assert p.stderr.startswith(f"{argv[0]}: error: "), p.stderr
    # nothing was submitted
    assert c.run(["squeue", "-h"]).stdout == ""


def test_accepted_options(cluster):
    c = cluster
    p = c.run(["srun", "--cluster-constraint=x", "--reboot", "--msg-timeout=30",
               "--resv-ports", "--slurmd-debug=2", "--gpu-freq=high",
               "--accel-bind=gv", "true"], check=True)
    assert p.returncode == 0
    p = c.run(["srun", "--accel-bind=q", "true"])
    assert p.returncode != 0 and "Invalid --accel-bind specification" in p.stderr


def test_task_prolog_and_epilog(cluster):
    c = cluster
    log = c.work / "tlog"
    pro = write_script(c.work / "tpro.sh",
                       "#!/bin/sh\necho export ROTA_TP=from_prolog\n"
                       "echo print hello from $SLURM_TASK_PID\n")
    epi = write_script(c.work / "tepi.sh",
                       f"#!/bin/sh\necho \"epi $SLURM_TASK_PID $SLURM_JOB_ID\" >> {log}\n")
    p = c.run(["srun", "-N2", "-n3", "-l", f"--task-prolog={pro}",
               f"--task-epilog={epi}", "sh", "-c", "echo $ROTA_TP $$"], check=True)
    lines = sorted(p.stdout.splitlines())
    assert len(lines) == 6, p.stdout
    pids = {}
    for line in lines:
        m = re.fullmatch(r"(\d): (?:hello from (\d+)|from_prolog (\d+))", line)
        assert m, line
        pids.setdefault(m.group(1), set()).add(m.group(2) or m.group(3))
    # the prolog ran in each task's process, before its program
    assert all(len(v) == 1 for v in pids.values()) and len(pids) == 3, pids
    c.wait_for(lambda: log.exists() and len(log.read_text().splitlines()) == 3 or None,
               what="an epilog for each task")
    done = {line.split()[1] for line in log.read_text().splitlines()}
    assert done == set().union(*pids.values()), (done, pids)
    # srun hears each task's end after its epilog, and of an epilog that
    # failed (or was killed for running too long) Slurm's error (test1.49)
    bad = write_script(c.work / "tepi_bad.sh", "#!/bin/sh\nexit 3\n")
    p = c.run(["srun", "-n2", f"--task-epilog={bad}", "true"])
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("slurmstepd: error: TaskEpilog failed status=768\n") == 2, \
        p.stderr
    slow = write_script(c.work / "tepi_slow.sh", "#!/bin/sh\nexec sleep 200\n")
    p = c.run(["srun", "-n1", f"--task-epilog={slow}", "true"], timeout=60)
    assert p.stderr == "slurmstepd: error: TaskEpilog failed status=9\n", p.stderr


def test_input_environment(cluster):
    """Slurm's input variables of these options, and SLURM_EXIT_ERROR /
    SLURM_EXIT_IMMEDIATE as the exit status of an error."""
    c = cluster
    env = {"SBATCH_REQ_SWITCH": "2", "SBATCH_WAIT4SWITCH": "5",
           "SBATCH_WCKEY": "w", "SBATCH_NETWORK": "x"}
    jid = c.sbatch("-H", "--wrap", "true", env=env)
    assert "Switches=2@00:05:00" in c.run(["scontrol", "show", "job", str(jid)]).stdout
    p = c.run(["sbatch", "--wrap", "true"], env={"SBATCH_POWER": "level"})
    assert p.returncode == 1 and "--power: power options need" in p.stderr, p.stderr
    p = c.run(["sbatch", "--bogus-option", "--wrap", "true"],
              env={"SLURM_EXIT_ERROR": "42"})
    assert p.returncode == 42, p
    p = c.run(["srun", "-N99", "true"], env={"SLURM_EXIT_ERROR": "17"})
    assert p.returncode == 17, p
    # 0 would say success: Slurm's complaint, and 1
    p = c.run(["sbatch", "--bogus-option", "--wrap", "true"],
              env={"SLURM_EXIT_ERROR": "0"})
    assert p.returncode == 1 and "SLURM_EXIT_ERROR has zero value" in p.stderr, p
    log = c.work / "plog"
    pro = write_script(c.work / "p2.sh", f"#!/bin/sh\necho \"$*\" >> {log}\n")
    c.run(["srun", "echo", "x"], env={"SLURM_PROLOG": str(pro)}, check=True)
    assert log.read_text() == "echo x\n"
    # --immediate giving up: SLURM_EXIT_IMMEDIATE
    blocker = c.sbatch("-N4", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 60")
    c.wait_running(blocker)
    p = c.run(["srun", "-N1", "--exclusive", "true"],
              env={"SLURM_IMMEDIATE": "1", "SLURM_EXIT_IMMEDIATE": "9"}, timeout=30)
    assert p.returncode == 9, p


def test_slurm_time_format(cluster):
    """SLURM_TIME_FORMAT: standard, relative or a strftime format, in
    squeue (printed by the controller), scontrol and sacct-like output."""
    import time as _time
    c = cluster
    jid = c.sbatch("-H", "--wrap", "true")
    sub = c.run(["squeue", "-h", "-j", str(jid), "-o", "%V"], check=True).stdout.strip()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", sub), sub
    p = c.run(["squeue", "-h", "-j", str(jid), "-o", "%V"],
              env={"SLURM_TIME_FORMAT": "%s"}, check=True)
    epoch = int(p.stdout.strip())
    assert abs(epoch - _time.time()) < 120, p.stdout
    assert _time.strftime("%Y-%m-%dT%H:%M:%S", _time.localtime(epoch)) == sub
    p = c.run(["squeue", "-h", "-j", str(jid), "-o", "%V"],
              env={"SLURM_TIME_FORMAT": "relative"}, check=True)
    assert p.stdout.strip() == _time.strftime("%H:%M:%S", _time.localtime(epoch)), p
    p = c.run(["scontrol", "show", "job", str(jid)],
              env={"SLURM_TIME_FORMAT": "%s"}, check=True)
    assert f"SubmitTime={epoch} " in p.stdout, p.stdout
    p = c.run(["squeue", "-h", "-j", str(jid), "-o", "%V"],
              env={"SLURM_TIME_FORMAT": "no-percent"}, check=True)
    assert p.stdout.strip() == sub
    assert "invalid SLURM_TIME_FORMAT = 'no-percent'" in p.stderr or p.stderr == "", p


def test_command_environment_and_sorts(cluster):
    """sinfo -S / SINFO_SORT, squeue's SQUEUE_* variables (the command
    line's lists replace theirs), -R by reservation, scancel --reservation."""
    c = cluster
    nodes = lambda *a, env=None: c.run(["sinfo", "-N", "-h", "-o", "%N", *a],
                                       env=env, check=True).stdout.split()
    assert nodes() == ["node01", "node02", "node03", "node04"]
    assert nodes("-S", "-N") == ["node04", "node03", "node02", "node01"]
    assert nodes(env={"SINFO_SORT": "-N"}) == ["node04", "node03", "node02", "node01"]
    assert nodes("-S", "-N", env={"SINFO_SORT": "N"})[0] == "node04"
    a = c.sbatch("-H", "-J", "alpha", "--wrap", "true")
    b = c.sbatch("-H", "-J", "beta", "--wrap", "true")
    q = lambda *a, env=None: c.run(["squeue", "-h", "-o", "%i", *a], env=env,
                                   check=True).stdout.split()
    assert q(env={"SQUEUE_NAMES": "beta"}) == [str(b)]
    assert q("-n", "alpha", env={"SQUEUE_NAMES": "beta"}) == [str(a)]
    assert q(env={"SQUEUE_STATES": "R"}) == []
    assert sorted(q("-t", "PD", env={"SQUEUE_STATES": "R"})) == sorted([str(a), str(b)])
    assert q(env={"SQUEUE_USERS": "nobody"}) == []
    assert sorted(q(env={"SQUEUE_ARRAY": "0"})) == sorted([str(a), str(b)])
    assert sorted(q("-a")) == sorted([str(a), str(b)])  # -a: not -r
    c.run(["scontrol", "create", "reservation", "ReservationName=rr", "Nodes=node04",
           "StartTime=now", "Duration=10", "Users=root"], check=True)
    try:
        r = c.sbatch("-H", "--reservation=rr", "--wrap", "true")
        assert q("-R", "rr") == [str(r)]
        assert q("--reservation=none_such") == []
        c.run(["scancel", "--reservation=rr"], check=True)
        assert c.wait_job(r) == "CANCELLED"
        assert c.job_state(a) == "PENDING"
        c.run(["scancel", "--wckey=w"], check=True)
        assert c.job_state(a) == "PENDING"
    finally:
        c.run(["scontrol", "delete", "ReservationName=rr"])
