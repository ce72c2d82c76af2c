"""srun --bcast, --send-libs, --bcast-exclude, --compress: the step's command
copied to the job's nodes first (sbcast's code), and the tasks run the copy.

Rota copies before it creates the step, so the default name is
slurm_bcast_<jobid>_<srun's pid> (Slurm's has the step id and the node name).
The virtual nodes share this host's file system: every node writes the same
file (srun copies with --force, as Slurm's srun does).
"""

import os
import pathlib
import re
import shutil

import pytest

from conftest import IS_ROOT

# A script that says which file runs it, and where.
PROG = "#!/bin/sh\necho \"$SLURMD_NODENAME $0\"\n"


def _prog(cluster, name="prog"):
    path = cluster.work / name
    path.write_text(PROG)
    path.chmod(0o755)
    return path


def _lines(out):
    return sorted(out.splitlines())


def test_copy_to_a_path_and_run_it(cluster, tmp_path):
    """--bcast=PATH: the copy is there, with the command's bytes and mode, and
    each node's task ran it."""
    prog = _prog(cluster)
    dest = tmp_path / "x"
    p = cluster.run(["srun", f"--bcast={dest}", "-N2", "--ntasks-per-node=1",
                     "./prog"], timeout=120)
    assert p.returncode == 0, p.stderr
    assert dest.read_bytes() == prog.read_bytes()
    assert os.stat(dest).st_mode & 0o777 == 0o755
    names = [line.split()[0] for line in _lines(p.stdout)]
    assert len(set(names)) == 2
    assert [line.split()[1] for line in _lines(p.stdout)] == [str(dest)] * 2
    assert p.stderr == ""


def test_default_name_and_directory(cluster, tmp_path):
    """No dest_path: the working directory (--chdir) and
    slurm_bcast_<jobid>_<pid>; one ending in '/' is a directory; a command
    without '/' is found through PATH."""
    prog = _prog(cluster)
    p = cluster.run(["srun", "--bcast", "-N1", "./prog"], timeout=120)
    assert p.returncode == 0, p.stderr
    path = p.stdout.split()[1]
    assert re.fullmatch(re.escape(str(cluster.work)) + r"/slurm_bcast_\d+_\d+", path)
    assert open(path).read() == PROG
    other = tmp_path / "d"
    other.mkdir()
    p = cluster.run(["srun", f"--chdir={other}", "--bcast", "-N1", str(prog)],
                    timeout=120)
    assert p.returncode == 0, p.stderr
    assert re.fullmatch(re.escape(str(other)) + r"/slurm_bcast_\d+_\d+",
                        p.stdout.split()[1])
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy(prog, bindir / "myprog")
    env = {"PATH": f"{cluster.env['PATH']}:{bindir}", "SLURM_BCAST": f"{tmp_path}/"}
    p = cluster.run(["srun", "-N1", "myprog"], env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert re.fullmatch(re.escape(str(tmp_path)) + r"/slurm_bcast_\d+_\d+",
                        p.stdout.split()[1])


def test_inside_an_allocation(cluster, tmp_path):
    """srun --jobid: the job's nodes get the copy; a relative dest_path is
    in the working directory."""
    _prog(cluster)
    jobid = cluster.sbatch("-N2", "--wrap", "sleep 300")
    cluster.wait_running(jobid)
    p = cluster.run(["srun", f"--jobid={jobid}", "--overlap", "-N2",
                     "--ntasks-per-node=1", "--bcast=copy", "./prog"], timeout=120)
    assert p.returncode == 0, p.stderr
    assert [line.split()[1] for line in _lines(p.stdout)] == [
        str(cluster.work / "copy")] * 2


def test_send_libs(cluster, tmp_path):
    """--send-libs (or SLURM_SEND_LIBS): the libraries in <dest>_libs/ and
    LD_LIBRARY_PATH starting there; --bcast-exclude keeps directories back
    (the default is BcastExclude)."""
    dest = tmp_path / "myenv"
    env = {"LD_LIBRARY_PATH": "/nowhere"}
    p = cluster.run(["srun", "-N1", f"--bcast={dest}", "--send-libs",
                     "--bcast-exclude=NONE", "env"], env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    libs = os.listdir(f"{dest}_libs")
    assert any(name.startswith("libc.so") for name in libs)
    assert f"LD_LIBRARY_PATH={dest}_libs:/nowhere\n" in p.stdout
    dest2 = tmp_path / "env2"
    libdir = os.path.dirname(os.path.realpath("/lib/x86_64-linux-gnu/libc.so.6"))
    p = cluster.run(["srun", "-N1", f"--bcast={dest2}", "env"],
                    env={"SLURM_SEND_LIBS": "yes",
                         "SLURM_BCAST_EXCLUDE": "/lib,/lib64,/usr/lib,/usr/lib64"
                         + f",{libdir}"}, timeout=120)
    assert p.returncode == 0, p.stderr
    assert not os.path.exists(f"{dest2}_libs")
    assert f"{dest2}_libs" not in p.stdout
    dest3 = tmp_path / "env3"
    p = cluster.run(["srun", "-N1", f"--bcast={dest3}", "--send-libs=no", "env"],
                    timeout=120)
    assert p.returncode == 0, p.stderr
    assert not os.path.exists(f"{dest3}_libs")


def test_compress_and_errors(cluster, tmp_path):
    """--compress sends uncompressed and says so (as sbcast); a command
    that cannot be found, a bad --send-libs or --compress: Slurm's words."""
    _prog(cluster)
    dest = tmp_path / "c"
    p = cluster.run(["srun", "-N1", f"--bcast={dest}", "--compress", "./prog"],
                    timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stderr == "srun: lz4 compression not supported, sending " \
        "uncompressed file.\n"
    assert p.stdout.split()[1] == str(dest)
    p = cluster.run(["srun", "-N1", "--bcast", "./nothing-here"], timeout=60)
    assert p.returncode == 1
    assert "srun: fatal: Can not execute ./nothing-here\n" in p.stderr
    p = cluster.run(["srun", "-N1", "--bcast", "--send-libs=maybe", "./prog"])
    assert p.returncode == 1
    assert p.stderr == "srun: error: Invalid --send-libs specification\n"
    p = cluster.run(["srun", "-N1", "--bcast", "--compress=zip", "./prog"])
    assert p.returncode == 1
    assert p.stderr == "srun: error: --compress=zip: supported values are lz4 " \
        "and none\n"
    p = cluster.run(["srun", "-N1", "--bcast=/proc/nope/x", "./prog"], timeout=120)
    assert p.returncode == 1
    assert "srun: fatal: Failed to broadcast" in p.stderr


@pytest.mark.skipif(not IS_ROOT, reason="needs root to create test users")
def test_copied_as_the_users(ucluster, users):
    """The copy belongs to the job's user, whose task runs it; a place the
    user may not write aborts the step."""
    from unixusers import as_user

    a = users["a"]
    work = pathlib.Path(ucluster.work)
    prog = work / "prog"
    prog.write_text(PROG)
    prog.chmod(0o755)
    p = as_user(ucluster, a, "srun -N1 --bcast=mycopy ./prog", cwd=work)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[1] == str(work / "mycopy")
    assert (work / "mycopy").stat().st_uid == a.uid
    p = as_user(ucluster, a, "srun -N1 --bcast=/root/copy ./prog", cwd=work)
    assert p.returncode == 1
    assert "Permission denied" in p.stderr
    assert "srun: fatal: Failed to broadcast" in p.stderr
    assert p.stdout == ""
