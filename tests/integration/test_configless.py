"""Configless nodes: rotad --conf-server fetches slurm.conf (and gres.conf)
from a controller with SlurmctldParameters=enable_configless, caches them,
picks up scontrol reconfigure (rotad executes itself again to apply a
change, as slurmd does), and starts from its cache when the controller
is down."""

import os
import signal
import subprocess
import time

import pytest

from conftest import BIN, _clean_env, module_cluster_with


@pytest.fixture(scope="module")
def c():
    yield from module_cluster_with(up_args=("--nodes", "2", "--cpus", "2",
                                            "--mem", "2048"))


def _port(c):
    return c.conf_value("SlurmctldPort")


def _start_rotad(c, tmp, cache, *extra, via_env=False):
    """rotad for node02 with no slurm.conf of its own: another working
    directory, no SLURM_CONF; the servers in --conf-server, or in
    SLURM_CONF_SERVER (via_env).  The first server listed is not there."""
    env = _clean_env()
    env["ROTA_RUN_CONF"] = str(tmp / "run" / "conf")
    servers = f"127.0.0.1:1,127.0.0.1:{_port(c)}"
    if via_env:
        env["SLURM_CONF_SERVER"] = servers
    argv = [str(BIN / "rotad"), *(() if via_env else ("--conf-server", servers)),
            "--conf-cache", str(cache), "--authinfo",
            "key=" + os.path.join(c.dir, "slurm.key"), "-N", "node02", *extra]
    return subprocess.Popen(argv, cwd=str(tmp), env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _read(path):
    with open(path) as f:
        return f.read()


def _node_state(c, node):
    p = c.run(["sinfo", "-h", "-N", "-n", node, "-o", "%T"])
    return p.stdout.strip()


def test_refused_without_enable_configless(c, tmp_path):
    c.kill_daemon("rotad-node02")
    p = _start_rotad(c, tmp_path, tmp_path / "cache")
    try:
        out, err = p.communicate(timeout=30)
    finally:
        _stop(p)
    assert p.returncode != 0
    assert "ConfigLess mode is disabled in slurm configuration." in err, err
    assert not (tmp_path / "cache" / "slurm.conf").exists()


def test_configless_node(c, tmp_path):
    with open(c.conf_path, "a") as f:
        f.write("SlurmctldParameters=enable_configless\n")
    gres = os.path.join(c.dir, "gres.conf")
    with open(gres, "w") as f:
        f.write("# no GRES here; served all the same\n")
    c.run(["scontrol", "reconfigure"], check=True)
    cache = tmp_path / "cache"
    p = _start_rotad(c, tmp_path, cache, "-L", str(tmp_path / "rotad.log"))
    try:
        c.wait_for(lambda: _node_state(c, "node02") == "idle", timeout=30,
                   what="node02 idle")
        assert p.poll() is None
        # the cache holds the controller's files, byte for byte, 0644
        assert _read(cache / "slurm.conf") == _read(c.conf_path)
        assert _read(cache / "gres.conf") == _read(gres)
        assert (os.stat(cache / "slurm.conf").st_mode & 0o777) == 0o644
        assert os.path.realpath(tmp_path / "run" / "conf") == str(cache)
        # the first server of the list did not answer: the next one did
        log = _read(tmp_path / "rotad.log")
        assert "cannot fetch the configuration from 127.0.0.1:1:" in log
        assert f"configuration fetched from 127.0.0.1:{_port(c)}" in log
        # a job runs there
        jobid = c.sbatch("-w", "node02", "--wrap", "hostname")
        assert c.wait_job(jobid) == "COMPLETED"
        # a change reaches the cache with scontrol reconfigure, and rotad
        # applies it (here an Epilog, which rotad runs): it executes itself
        # again, the same process, while a job runs on
        running = c.sbatch("-w", "node02", "-o", "/dev/null", "--wrap", "sleep 3")
        c.wait_running(running)
        epilog = tmp_path / "epilog.sh"
        epilog.write_text(f"#!/bin/sh\necho $SLURM_JOB_ID >> {tmp_path}/epilog.out\n")
        epilog.chmod(0o755)
        with open(c.conf_path, "a") as f:
            f.write(f"MinJobAge=301\nEpilog={epilog}\n")
        c.run(["scontrol", "reconfigure"], check=True)
        c.wait_for(lambda: _read(cache / "slurm.conf") == _read(c.conf_path),
                   timeout=15, what="the cache to follow the reconfigure")
        c.wait_for(lambda: "rotad starts again to apply it" in
                   _read(tmp_path / "rotad.log"), timeout=5,
                   what="rotad to log the change")
        c.wait_for(lambda: _read(tmp_path / "rotad.log").count(
            "registered with the controller") == 2, timeout=15,
                   what="rotad registered again")
        assert p.poll() is None  # the same process
        assert c.wait_job(running) == "COMPLETED"
        after = c.sbatch("-w", "node02", "-o", "/dev/null", "--wrap", "true")
        assert c.wait_job(after) == "COMPLETED"
        c.wait_for(lambda: os.path.exists(tmp_path / "epilog.out") and
                   str(after) in _read(tmp_path / "epilog.out").split(),
                   timeout=15, what="the new Epilog run for the job after")
        # a reconfigure that changes nothing: nothing to apply
        c.run(["scontrol", "reconfigure"], check=True)
        c.wait_for(lambda: "configuration from the controller: unchanged" in
                   _read(tmp_path / "rotad.log"), timeout=15,
                   what="rotad to see no change")
        assert _read(tmp_path / "rotad.log").count("starts again") == 1
        # the commands on the node find slurm.conf through the link when
        # neither SLURM_CONF nor /etc/slurm/slurm.conf is there
        if not os.path.exists("/etc/slurm/slurm.conf"):
            env = {k: v for k, v in c.env.items() if k != "SLURM_CONF"}
            env["ROTA_RUN_CONF"] = str(tmp_path / "run" / "conf")
            q = subprocess.run(["sinfo", "-h", "-N", "-o", "%N"], env=env,
                               capture_output=True, text=True, timeout=30,
                               cwd=str(tmp_path))
            assert q.returncode == 0, q.stderr
            assert "node02" in q.stdout
    finally:
        _stop(p)


def test_starts_from_cache_when_controller_down(c, tmp_path):
    cache = tmp_path / "cache"
    p = _start_rotad(c, tmp_path, cache, via_env=True)
    try:
        c.wait_for(lambda: (cache / "slurm.conf").exists(), timeout=20,
                   what="the cache")
    finally:
        _stop(p)
    c.kill_daemon("rotactld")
    p = _start_rotad(c, tmp_path, cache)
    try:
        time.sleep(2)
        assert p.poll() is None, p.communicate()[1]
    finally:
        _stop(p)
    err = p.stderr.read()
    assert "starting from the cache" in err, err
    c.up()  # the controller again, and node02's own rotad
