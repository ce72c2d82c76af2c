"""The controller's state survives a crash (SIGKILL) and a full down/up."""

import os
import signal


def held_ids(c):
    p = c.run("squeue -h -o '%i %t %r'")
    assert p.returncode == 0, p.stderr
    return {int(line.split()[0]): line.split()[1:] for line in p.stdout.splitlines()}


def test_controller_crash_keeps_jobs(fresh_cluster):
    c = fresh_cluster
    ids = [c.sbatch("--hold", "-J", f"keep{i}", "--wrap", "true") for i in range(3)]
    before = held_ids(c)
    assert sorted(before) == ids
    old_pid = c.pid("rotactld")

    c.kill_daemon("rotactld", signal.SIGKILL)
    p = c.run("scontrol ping")
    assert p.returncode != 0 or "DOWN" in p.stdout

    p = c.up()  # starts only what is missing
    assert c.pid("rotactld") != old_pid
    assert "rotactld" in p.stderr
    after = held_ids(c)
    assert after == {i: ["PD", "JobHeldUser"] for i in ids}
    for i, jobid in enumerate(ids):
        assert c.job_field(jobid, "JobName") == f"keep{i}"
    new = c.sbatch("--hold", "--wrap", "true")
    assert new > max(ids)
    # nodes came back and jobs run again
    c.run(f"scontrol release {ids[0]}")
    assert c.wait_job(ids[0]) == "COMPLETED"


def test_full_restart_keeps_jobs_and_ids(fresh_cluster):
    c = fresh_cluster
    done = c.sbatch("--wrap", "true")
    assert c.wait_job(done) == "COMPLETED"
    held = c.sbatch("--hold", "-J", "survivor", "--wrap", "true")
    p = c.down()
    assert p.returncode == 0
    assert not c.processes()
    c.up()
    assert held_ids(c) == {held: ["PD", "JobHeldUser"]}
    # finished jobs stay visible for MinJobAge (300 s) across the restart too
    assert c.job_state(done) == "COMPLETED"
    new = c.sbatch("--wrap", "true")
    assert new > held
    assert c.wait_job(new) == "COMPLETED"


def test_node_daemon_restart(fresh_cluster):
    c = fresh_cluster
    c.kill_daemon("rotad-node03", signal.SIGKILL)

    def node03_not_responding():
        p = c.run("sinfo -h -N -o '%N %t'")
        state = dict(line.split() for line in p.stdout.splitlines()).get("node03", "")
        return state.endswith("*")
    c.wait_for(node03_not_responding, 20, "node03 to be marked not responding")
    c.up()
    p = c.run("sinfo -h -N -o '%N %t'")
    assert dict(line.split() for line in p.stdout.splitlines())["node03"] == "idle"
    jobid = c.sbatch("-w", "node03", "--wrap", "true")
    assert c.wait_job(jobid) == "COMPLETED"


def test_up_refuses_running_cluster(fresh_cluster):
    c = fresh_cluster
    p = c.up(check=False)
    assert p.returncode == 1
    assert p.stderr == f"rota: error: a cluster is already running in {c.dir}\n"
    assert p.stdout == ""


def test_down_stops_running_jobs(fresh_cluster):
    c = fresh_cluster
    jobid = c.sbatch("-N", "2", "--wrap", "srun sleep 300")
    c.wait_running(jobid)
    c.wait_for(lambda: any("sleep" in cmd for _, cmd in c.processes()), 15,
               "the job's sleep processes")
    p = c.down()
    assert p.returncode == 0
    assert not c.processes()
    for name in os.listdir(os.path.join(c.dir, "run")):
        assert not name.endswith(".pid")
    # and down again is fine
    assert c.down().returncode == 0
