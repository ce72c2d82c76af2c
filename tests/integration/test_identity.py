"""Jobs run as the submitting user, with that user's groups and nothing more.

Real Unix users are created for the module (see unixusers.py) and submit through
runuser, so the controller learns who they are from the unix socket
(SO_PEERCRED).  Checked inside batch shells and srun steps: `id` equals
`id USER`; no capabilities; no descriptor but 0-2 survives into the job; files
are created by the user; the job cannot write, truncate or read what its user
cannot; another user cannot cancel, hold or update the job (root can)."""

import os
import pathlib
import shutil
import subprocess
import time

import pytest

from conftest import BUILD, write_script
from unixusers import as_user, needs_root, sbatch_as, user_work

pytestmark = needs_root

ZERO_CAPS = "0000000000000000"


def id_of(user):
    p = subprocess.run(["id", user.name], capture_output=True, text=True, check=True)
    return p.stdout.strip()


def read_lines(path):
    return pathlib.Path(path).read_text().splitlines()


# What a process can see of its own identity: `id`, its capability sets, the
# descriptors ls finds open in itself (3 is ls's own directory handle).
PROBE = ('id; grep -E "^Cap(Inh|Prm|Eff|Amb):" /proc/self/status | tr -s "\\t " " "; '
         'echo "fds $(ls /proc/self/fd | sort -n | tr "\\n" " ")"')


def check_probe(lines, user):
    assert lines[0] == id_of(user), lines
    caps = dict(line.split(": ", 1) for line in lines[1:5])
    assert caps == {"CapInh": ZERO_CAPS, "CapPrm": ZERO_CAPS, "CapEff": ZERO_CAPS,
                    "CapAmb": ZERO_CAPS}, lines
    assert lines[5] == "fds 0 1 2 3 ", lines


def test_batch_job_identity(ucluster, users):
    a = users["a"]
    write_script(ucluster.work / "probe.sh",
                 "#!/bin/bash\n" + PROBE + "\n"
                 # the batch shell itself: 0-2 and bash's handle on the script
                 # (into a file: a $(...) would hold a pipe in the shell)
                 'ls /proc/$$/fd > shellfds\n'
                 'echo "script $(readlink /proc/$$/fd/255)"\n'
                 'echo "user $SLURM_JOB_USER $SLURM_JOB_UID $SLURM_JOB_GID"\n')
    jobid = sbatch_as(ucluster, a, "-o id.out probe.sh")
    assert ucluster.wait_job(jobid) == "COMPLETED"
    lines = read_lines(ucluster.work / "id.out")
    check_probe(lines, a)
    assert lines[6].startswith("script /") and lines[6].endswith("/slurm_script")
    assert lines[7] == f"user {a.name} {a.uid} {a.gid}"
    shellfds = sorted(int(fd) for fd in read_lines(ucluster.work / "shellfds"))
    assert shellfds == [0, 1, 2, 255]
    st = os.stat(ucluster.work / "id.out")
    assert (st.st_uid, st.st_gid) == (a.uid, a.gid)
    assert ucluster.job_field(jobid, "UserId") == f"{a.name}({a.uid})"
    assert ucluster.job_field(jobid, "GroupId") == f"{a.name}({a.gid})"
    p = ucluster.run(["squeue", "-h", "-t", "all", "-j", str(jobid), "-o", "%u"])
    assert p.stdout.strip() == a.name


def test_groups_are_the_users(ucluster, users):
    """Primary and supplementary groups exactly; never root's."""
    a = users["a"]
    jobid = sbatch_as(ucluster, a, "-o groups.out --wrap 'id -u; id -g; id -G'")
    assert ucluster.wait_job(jobid) == "COMPLETED"
    uid, gid, groups = read_lines(ucluster.work / "groups.out")
    assert (int(uid), int(gid)) == (a.uid, a.gid)
    assert sorted(int(g) for g in groups.split()) == a.groups
    assert len(a.groups) == 2 and 0 not in a.groups


def test_groups_handed_on_are_each_users(ucluster, users):
    """After a user's first job on a node, rotad hands the groups its step
    daemon looked up to the next ones (noded/gidcache.h): each job still gets
    exactly its own user's groups, whoever ran there before."""
    order = ["a", "b", "a", "b", "a"]
    for i, tag in enumerate(order):
        u = users[tag]
        jobid = sbatch_as(ucluster, u, f"-w node01 -o g{i}.out --wrap 'id -g; id -G'")
        assert ucluster.wait_job(jobid) == "COMPLETED"
        gid, groups = read_lines(ucluster.work / f"g{i}.out")
        assert int(gid) == u.gid, (i, tag)
        assert sorted(int(g) for g in groups.split()) == u.groups, (i, tag)
    assert users["a"].groups != users["b"].groups


def test_step_identity(ucluster, users):
    a = users["a"]
    p = as_user(ucluster, a, f"srun -N2 -n2 -o step-%t.out bash -c '{PROBE}'")
    assert p.returncode == 0, p.stderr
    for t in range(2):
        path = ucluster.work / f"step-{t}.out"
        check_probe(read_lines(path), a)
        st = os.stat(path)
        assert (st.st_uid, st.st_gid) == (a.uid, a.gid)
    # and a step inside a batch job, through the job's own srun
    write_script(ucluster.work / "inner.sh",
                 "#!/bin/bash\nsrun -n1 -o inner-step.out bash -c '" + PROBE + "'\n")
    jobid = sbatch_as(ucluster, a, "-N2 -o inner.out inner.sh")
    assert ucluster.wait_job(jobid) == "COMPLETED", (ucluster.work / "inner.out").read_text()
    check_probe(read_lines(ucluster.work / "inner-step.out"), a)
    # srun's forwarded output carries the same identity
    p = as_user(ucluster, a, "srun -n1 id")
    assert p.returncode == 0 and p.stdout.strip() == id_of(a), p.stderr


PRELOAD = """
int getuid(void) { return 0; }
int geteuid(void) { return 0; }
int getgid(void) { return 0; }
int getegid(void) { return 0; }
"""


def _asan_build():
    """A sanitizer build's commands want their runtime first: an LD_PRELOAD
    of ours aborts them before they run."""
    try:
        return b"__asan_init" in (BUILD / "bin" / "srun").read_bytes()
    except OSError:
        return False


@pytest.mark.skipif(not shutil.which("cc"), reason="needs a C compiler")
@pytest.mark.skipif(_asan_build(), reason="LD_PRELOAD under ASan aborts the command")
def test_command_that_says_it_is_root_is_refused(ucluster, users):
    """A user's srun, sbatch or salloc made to believe it is root (getuid()
    faked by LD_PRELOAD) is refused with Slurm's "Invalid user id", and
    nothing is queued; the same commands, told the truth, run (Slurm's
    test7.10)."""
    a = users["a"]
    src = ucluster.work / "fake_root.c"
    src.write_text(PRELOAD)
    so = ucluster.work / "fake_root.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(so), str(src)], check=True)
    os.chmod(so, 0o755)
    env = {"LD_PRELOAD": str(so)}
    p = as_user(ucluster, a, "srun -N1 -t1 id", env=env)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "uid=" not in p.stdout
    assert p.stderr == "srun: error: Unable to allocate resources: Invalid user id\n"
    p = as_user(ucluster, a, "sbatch --wrap id", env=env)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "Invalid user id" in p.stderr
    p = as_user(ucluster, a, "salloc -N1 --no-shell", env=env)
    assert p.returncode == 1 and "Invalid user id" in p.stderr, p.stderr
    assert ucluster.run(["squeue", "-h", "-u", a.name]).stdout == ""
    p = as_user(ucluster, a, "srun -N1 -t1 id")
    assert p.returncode == 0 and p.stdout.strip() == id_of(a), p.stderr


def test_files_created_by_the_user(ucluster, users):
    a = users["a"]
    jobid = sbatch_as(ucluster, a, "-o o.%j -e e.%j --wrap 'echo x; echo y >&2; "
                                   "touch made-by-job; mkdir dir-by-job'")
    assert ucluster.wait_job(jobid) == "COMPLETED"
    for name in (f"o.{jobid}", f"e.{jobid}", "made-by-job", "dir-by-job"):
        st = os.stat(ucluster.work / name)
        assert (st.st_uid, st.st_gid) == (a.uid, a.gid), name


def _log_text(cluster):
    out = []
    logdir = os.path.join(cluster.dir, "log")
    for name in sorted(os.listdir(logdir)):
        with open(os.path.join(logdir, name), errors="replace") as f:
            out.append(f.read())
    return "\n".join(out)


def test_cannot_write_where_the_user_cannot(ucluster, users):
    a = users["a"]
    work = ucluster.work
    secret = work / "secret"
    secret.mkdir(mode=0o700)          # root's, 0700
    rootowned = work / "rootowned.out"
    rootowned.write_text("keep\n")    # root's, 0644, in a directory a may write
    rootdir = pathlib.Path(user_work("rota-rootdir-"))
    os.chmod(rootdir, 0o755)
    target = rootdir / "target"
    target.write_text("target\n")
    link = work / "link.out"
    as_user(ucluster, a, f"ln -s {target} {link}")
    assert link.is_symlink()
    try:
        cases = [("-o", secret / "out.txt"), ("-o", rootowned), ("-e", rootowned),
                 ("-o", link)]
        for i, (opt, path) in enumerate(cases):
            jobid = sbatch_as(ucluster, a,
                              f"{opt} {path} --wrap 'touch {work}/ran-{i}'")
            assert ucluster.wait_job(jobid) == "FAILED", (opt, path)
            assert not (work / f"ran-{i}").exists(), "the script ran anyway"
            stream = "stdout" if opt == "-o" else "stderr"
            expect = f"Could not open {stream} file {path}: Permission denied"
            assert expect in _log_text(ucluster), expect
        assert not (secret / "out.txt").exists()
        assert rootowned.read_text() == "keep\n"
        assert target.read_text() == "target\n"
        assert os.stat(target).st_uid == 0
        # a step the same way: srun reports it, nothing is created
        p = as_user(ucluster, a, f"srun -o {secret}/step.out true")
        assert p.returncode != 0
        assert f"Could not open stdout file {secret}/step.out: Permission denied" \
            in p.stderr, p.stderr
        assert not (secret / "step.out").exists()
    finally:
        shutil.rmtree(rootdir, ignore_errors=True)


def test_cannot_read_what_the_user_cannot(ucluster, users):
    a = users["a"]
    private = ucluster.work / "private"
    private.write_text("root only\n")
    os.chmod(private, 0o600)
    jobid = sbatch_as(ucluster, a, "-o read.out --wrap 'cat private'")
    assert ucluster.wait_job(jobid) == "FAILED"
    assert ucluster.job_field(jobid, "ExitCode") == "1:0"
    out = (ucluster.work / "read.out").read_text()
    assert "Permission denied" in out and "root only" not in out


def test_workdir_the_user_cannot_enter(ucluster, users):
    a = users["a"]
    secret = ucluster.work / "secret"
    secret.mkdir(mode=0o700)
    out = ucluster.work / "wd.out"
    jobid = sbatch_as(ucluster, a, f"-D {secret} -o {out} --wrap pwd")
    assert ucluster.wait_job(jobid) == "COMPLETED"
    assert read_lines(out) == [
        f"slurmstepd: error: couldn't chdir to `{secret}': Permission denied: "
        "going to /tmp instead", "/tmp"]


def test_other_users_cannot_touch_the_job(ucluster, users):
    a, b = users["a"], users["b"]
    running = sbatch_as(ucluster, a, "-J a-running --wrap 'sleep 300'")
    pending = sbatch_as(ucluster, a, "-J a-pending --begin=now+3600 --wrap true")
    assert ucluster.wait_running(running) == "RUNNING"
    assert ucluster.job_field(pending, "Reason") == "BeginTime"
    limit = ucluster.job_field(pending, "TimeLimit")

    p = as_user(ucluster, b, f"scancel {running}")
    assert (p.returncode, p.stderr) == (
        1, f"scancel: error: Kill job error on job id {running}: "
           "Access/permission denied\n")
    p = as_user(ucluster, b, f"scancel --signal=KILL {running}")
    assert p.returncode == 1 and "Access/permission denied" in p.stderr
    p = as_user(ucluster, b, f"scancel -u {a.name}")
    assert "Access/permission denied" in p.stderr and p.returncode == 1
    for cmd in (f"scontrol hold {pending}", f"scontrol release {pending}",
                f"scontrol update JobId={pending} TimeLimit=5",
                f"scontrol requeue {running}"):
        p = as_user(ucluster, b, cmd)
        assert p.returncode == 1, cmd
        assert "Access/permission denied" in p.stderr, (cmd, p.stderr)
    p = as_user(ucluster, b, f"srun --jobid={running} true")
    assert p.returncode == 1
    assert (f"srun: error: Unable to create step for job {running}: "
            "Access/permission denied") in p.stderr
    time.sleep(0.5)
    assert ucluster.job_state(running) == "RUNNING"
    assert ucluster.job_field(pending, "Reason") == "BeginTime"
    assert ucluster.job_field(pending, "TimeLimit") == limit
    assert ucluster.job_state(pending) == "PENDING"

    # the owner may; root may
    p = as_user(ucluster, a, f"scontrol hold {pending}")
    assert p.returncode == 0, p.stderr
    assert ucluster.job_field(pending, "Reason") == "JobHeldUser"
    p = ucluster.run(f"scontrol release {pending}")
    assert p.returncode == 0, p.stderr
    assert ucluster.job_field(pending, "Reason") == "BeginTime"
    p = ucluster.run(f"scancel {running}")
    assert p.returncode == 0, p.stderr
    assert ucluster.wait_job(running) == "CANCELLED"
    p = as_user(ucluster, a, f"scancel {pending}")
    assert p.returncode == 0, p.stderr
    assert ucluster.wait_job(pending) == "CANCELLED"
