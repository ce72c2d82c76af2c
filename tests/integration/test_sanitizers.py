"""Under an ASan build (make SAN=1), the daemons free what they own at exit.

CI runs the suite with leak detection on for the daemons and fails on any report
in their sanitizer logs; this test makes the same check on its own cluster, with
what a shutdown finds open: node links, a waiting srun holding an allocation, a
running batch job and its stepd; and a stepd that ends with its step (--cpu-bind).  Skipped on a build without ASan.
"""

import os
import subprocess
import time

import pytest

from conftest import BUILD, cluster_processes


def _asan_build():
    try:
        return b"__asan_init" in (BUILD / "bin" / "rotactld").read_bytes()
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _asan_build(), reason="needs an ASan build (make SAN=1)")


def _reports(logs):
    out = []
    for f in sorted(logs.iterdir()):
        text = f.read_text(errors="replace")
        if "ERROR" in text or "runtime error" in text:
            out.append(f"{f.name}:\n" + "\n".join(text.splitlines()[:40]))
    return out


def test_daemons_exit_without_leaks(make_cluster, tmp_path, monkeypatch):
    logs = tmp_path / "san"
    logs.mkdir()
    # the daemons inherit this from `rota up`
    monkeypatch.setenv("ASAN_OPTIONS", "allocator_may_return_null=1:detect_leaks=1:"
                       f"log_path={logs}/asan:log_exe_name=1")
    monkeypatch.setenv("UBSAN_OPTIONS", f"print_stacktrace=1:log_path={logs}/ubsan")
    c = make_cluster()
    # a step that ends by itself: its stepd exits with what it parsed
    p = c.run("srun -n1 --cpu-bind=map_cpu:0 true")
    assert p.returncode == 0, p.stderr
    jobid = c.sbatch("--wrap", "sleep 60")
    c.wait_running(jobid)
    env = dict(c.env, ASAN_OPTIONS="detect_leaks=0")
    srun = subprocess.Popen(["srun", "-N1", "sleep", "60"], cwd=str(c.work), env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        c.wait_for(lambda: c.run("squeue -h -t R -o %i").stdout.split().__len__() >= 2,
                   timeout=30, what="the srun's job running")
        p = c.down()
        assert p.returncode == 0, p.stderr
        deadline = time.time() + 30
        while cluster_processes(c.dir) and time.time() < deadline:
            time.sleep(0.2)
    finally:
        srun.kill()
        srun.wait()
    # the daemons that exited wrote their reports by now
    assert not _reports(logs), "\n\n".join(_reports(logs))
    names = {f.name.split(".")[1] for f in logs.iterdir()}
    assert not names & {"rotactld", "rotad", "rotastepd"}, names
    c.up()  # make_cluster's teardown stops it again
