"""sbcast: a file copied to every node of a running job (Slurm 22.05's
command, its options, environment and messages).

The blocks go through the controller to each node's rotad, which writes them
as the job's user.  The virtual nodes of the test cluster share this host's
file system, so a file every node writes is one file here: the multi-node
cases use --force (each node replaces it with the same bytes) and check what
the controller fanned out to (-v's node_list).
"""

import os
import pathlib
import re
import stat
import subprocess

import pytest

from conftest import IS_ROOT


def _hold(cluster, *args):
    """A running job that sleeps: its id."""
    jobid = cluster.sbatch(*args, "--wrap", "sleep 300")
    cluster.wait_running(jobid)
    return jobid


def _data(path, size):
    path.write_bytes(os.urandom(size))
    return path


def _sbcast(cluster, jobid, *args, env=None):
    full = {"SLURM_JOB_ID": str(jobid), **(env or {})}
    return cluster.run(["sbcast", *args], env=full, timeout=120)


def test_copy_blocks_mode_and_refusal(cluster, tmp_path):
    """The file arrives whole, in blocks (-s), with the source's mode; a
    second copy without --force is refused per node in Slurm's words, with
    --force (or SBCAST_FORCE) it replaces the file; -p keeps the times."""
    jobid = _hold(cluster, "-N1")
    src = _data(cluster.work / "data.bin", 300_000)
    src.chmod(0o751)
    os.utime(src, (1_600_000_000, 1_600_000_100))
    dest = tmp_path / "copy.bin"
    p = _sbcast(cluster, jobid, "-s", "64k", str(src), str(dest))
    assert p.returncode == 0, p.stderr
    assert dest.read_bytes() == src.read_bytes()
    assert stat.S_IMODE(dest.stat().st_mode) == 0o751
    assert int(dest.stat().st_mtime) != 1_600_000_100
    node = cluster.job_field(jobid, "NodeList")
    p = _sbcast(cluster, jobid, str(src), str(dest))
    assert p.returncode == 1
    assert p.stderr == f"sbcast: error: REQUEST_FILE_BCAST({node}): File exists\n"
    src.write_bytes(b"second\n")
    p = _sbcast(cluster, jobid, "-p", str(src), str(dest), env={"SBCAST_FORCE": "1"})
    assert p.returncode == 0, p.stderr
    assert dest.read_bytes() == b"second\n"
    assert int(dest.stat().st_mtime) == int(src.stat().st_mtime)


def test_every_node_of_the_job(cluster, tmp_path):
    """-v names the job and its nodes; each node then sees the file."""
    jobid = _hold(cluster, "-N3")
    src = _data(cluster.work / "prog", 5000)
    dest = tmp_path / "prog"
    p = _sbcast(cluster, jobid, "-v", "-f", "--jobid", str(jobid), str(src), str(dest))
    assert p.returncode == 0, p.stderr
    nodes = cluster.job_field(jobid, "NodeList")
    assert f"sbcast: jobid      = {jobid}\n" in p.stderr
    assert f"sbcast: node_list  = {nodes}\n" in p.stderr
    assert "sbcast: size     = 5000\n" in p.stderr
    p = cluster.run(["srun", f"--jobid={jobid}", "--overlap", "--ntasks-per-node=1",
                     "cmp", str(src), str(dest)], timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr


def test_relative_destination_and_libraries(cluster, tmp_path):
    """A relative DEST is in sbcast's directory; --send-libs (BcastExclude
    overridden with --exclude=NONE) puts the program's libraries in
    DEST_libs/."""
    jobid = _hold(cluster, "-N1")
    work = tmp_path / "w"
    work.mkdir()
    p = cluster.run(["sbcast", "--send-libs", "--exclude=NONE", "/bin/true", "mytrue"],
                    env={"SLURM_JOB_ID": str(jobid)}, cwd=work, timeout=120)
    assert p.returncode == 0, p.stderr
    assert (work / "mytrue").read_bytes() == pathlib.Path("/bin/true").read_bytes()
    libs = subprocess.run(["ldd", "/bin/true"], capture_output=True, text=True).stdout
    want = {os.path.basename(m) for m in re.findall(r"=> (/\S+)", libs)}
    assert want and {f.name for f in (work / "mytrue_libs").iterdir()} == want


def test_errors(cluster, tmp_path):
    """Slurm's messages: no job, an unknown or pending job, a missing source,
    a directory as DEST, the wrong number of names."""
    env = dict(cluster.env)
    env.pop("SLURM_JOB_ID", None)
    p = subprocess.run(["sbcast", "a", "/tmp/b"], capture_output=True, text=True,
                       env=env)
    assert p.returncode == 1
    assert p.stderr == ("sbcast: error: Need a job id to run this command.  Run from "
                        "within a Slurm job or use the --jobid option.\n")
    src = _data(cluster.work / "f", 10)
    p = _sbcast(cluster, 999999, str(src), str(tmp_path / "x"))
    assert p.returncode == 1
    assert p.stderr == "sbcast: error: Slurm job 999999 lookup error: Invalid job id " \
                       "specified\n"
    held = cluster.sbatch("-H", "--wrap", "true")
    p = _sbcast(cluster, held, str(src), str(tmp_path / "x"))
    assert p.returncode == 1
    assert f"Slurm job {held} lookup error: Job is pending execution" in p.stderr
    jobid = _hold(cluster, "-N1")
    p = _sbcast(cluster, jobid, "nosuchfile", str(tmp_path / "x"))
    assert p.returncode == 1
    assert p.stderr == "sbcast: error: Can't open `nosuchfile`: No such file or " \
                       "directory\n"
    p = _sbcast(cluster, jobid, str(src), str(tmp_path) + "/")
    assert p.returncode == 1
    assert p.stderr == "sbcast: error: Target filename cannot be a directory.\n"
    p = _sbcast(cluster, jobid, str(src))
    assert p.returncode == 1
    assert p.stderr.startswith("Need two file names, have 1 names\n")
    assert not (tmp_path / "x").exists()


@pytest.mark.skipif(not IS_ROOT, reason="needs root to create test users")
def test_written_as_the_jobs_user(ucluster, users):
    """The copy belongs to the job's user, who cannot write where they may not;
    another user cannot sbcast to the job."""
    from unixusers import as_user

    a, b = users["a"], users["b"]
    work = pathlib.Path(ucluster.work)
    p = as_user(ucluster, a, "sbatch --parsable -N1 --wrap 'sleep 300'", cwd=work)
    jobid = int(p.stdout.strip())
    ucluster.wait_running(jobid)
    src = work / "mine"
    src.write_bytes(b"x" * 100)
    src.chmod(0o644)
    p = as_user(ucluster, a, f"sbcast -j {jobid} mine copy", cwd=work)
    assert p.returncode == 0, p.stderr
    assert (work / "copy").stat().st_uid == a.uid
    p = as_user(ucluster, a, f"sbcast -j {jobid} mine /root/copy", cwd=work)
    assert p.returncode == 1
    assert re.fullmatch(r"sbcast: error: REQUEST_FILE_BCAST\(\S+\): Permission denied\n",
                        p.stderr), p.stderr
    p = as_user(ucluster, b, f"sbcast -j {jobid} mine copy2", cwd=work)
    assert p.returncode == 1
    assert p.stderr == f"sbcast: error: Slurm job {jobid} lookup error: Invalid user id\n"
    assert not (work / "copy2").exists()
