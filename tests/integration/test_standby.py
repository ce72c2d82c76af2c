"""A hot standby (rota up --standby): a backup controller on another loopback
address follows the primary's journal and takes over SlurmctldTimeout after
the primary stops answering.  Tested as it happens: a submission storm while
the primary is killed (-9), running jobs that keep running and complete,
ids that never repeat, `scontrol ping`, and a primary that comes back and
stands by instead of serving beside the backup."""
import os
import re
import signal
import subprocess
import threading
import time

from conftest import DEFAULT_UP_ARGS, SUBMITTED_RE, _proc_state

TIMEOUT = 3  # SlurmctldTimeout for these tests


def standby_cluster(make_cluster):
    c = make_cluster(*DEFAULT_UP_ARGS, "--standby")
    c.down()
    with open(c.conf_path) as f:
        text = f.read()
    text = re.sub(r"(?m)^SlurmctldTimeout=.*$", f"SlurmctldTimeout={TIMEOUT}", text)
    with open(c.conf_path, "w") as f:
        f.write(text)
    c.up()
    return c


def ping(c):
    return c.run(["scontrol", "ping"]).stdout.splitlines()


def backup_log(c):
    with open(os.path.join(c.dir, "log", "rotactld-backup1.log")) as f:
        return f.read()


def kill_primary(c):
    pid = c.pid("rotactld")
    os.kill(pid, signal.SIGKILL)
    while _proc_state(pid) not in ("", "Z", "X"):
        time.sleep(0.02)


def test_ping_shows_both(make_cluster):
    c = standby_cluster(make_cluster)
    lines = ping(c)
    assert len(lines) == 2
    assert re.match(r"^Slurmctld\(primary\) at \S+ is UP$", lines[0]), lines
    assert re.match(r"^Slurmctld\(backup\) at \S+-backup is UP$", lines[1]), lines
    # the backup answers nothing but pings while it stands by
    assert "standing by: following the controller at 127.0.0.1" in backup_log(c)


def storm(c, acked, stop, n):
    """n submitters, each in a loop until stop; acked: ids acknowledged."""
    def one():
        while not stop.is_set():
            p = subprocess.run(["sbatch", "-o", "/dev/null", "--wrap", "true"],
                               capture_output=True, text=True, env=c.env,
                               cwd=str(c.work), timeout=60)
            m = SUBMITTED_RE.match(p.stdout.strip())
            if m:
                acked.append(int(m.group(1)))
    ts = [threading.Thread(target=one) for _ in range(n)]
    for t in ts:
        t.start()
    return ts


def test_kill_primary_during_a_submission_storm(make_cluster):
    c = standby_cluster(make_cluster)
    long_job = c.sbatch("-o", "/dev/null", "--wrap", "sleep 8")
    c.wait_running(long_job)
    acked, stop = [], threading.Event()
    ts = storm(c, acked, stop, 8)
    time.sleep(1.5)
    kill_primary(c)
    killed_at = time.monotonic()
    before = list(acked)
    # the backup takes over after SlurmctldTimeout; the submitters go on
    c.wait_for(lambda: "taking over" in backup_log(c), timeout=TIMEOUT + 10,
               what="the backup to take over")
    time.sleep(2)
    stop.set()
    for t in ts:
        t.join()
    print(f"acknowledged: {len(before)} before the kill, {len(acked)} in all")
    assert len(before) >= 8, "too few acknowledged before the primary died"
    assert time.monotonic() - killed_at < TIMEOUT + 10
    lines = ping(c)
    assert lines[0].endswith("is DOWN") and lines[1].endswith("is UP"), lines
    # every acknowledged job is known to the backup, and no id was given twice
    out = c.run(["squeue", "-h", "-o", "%i", "-t", "all"]).stdout.split()
    known = {int(x) for x in out}
    for jid in acked:
        if jid not in known:  # ended and purged? MinJobAge is 300 s: no
            assert c.job_state(jid) is not None, f"job {jid} was lost"
    assert len(acked) == len(set(acked)), "an id was handed out twice"
    # the backup's ids start above every id the primary acknowledged (an
    # answer the primary sent just before it died may be appended after the
    # kill, so which ids are whose is read from the backup's first id)
    first = int(re.search(r"now the controller \(term \d+, next job id (\d+)\)",
                          backup_log(c)).group(1))
    assert first > max(before)
    # the running job kept running, and its end is recorded by the backup
    c.wait_job(long_job, timeout=30)
    assert c.job_state(long_job) == "COMPLETED"
    # the new controller runs new work
    jid = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_job(jid)
    assert c.job_state(jid) == "COMPLETED"


def assert_backup_serves(c, first, second):
    """Both controllers answer pings; new work runs (on the backup) with an id
    above the earlier ones; returns that id."""
    lines = ping(c)
    assert lines[0].endswith("is UP") and lines[1].endswith("is UP"), lines
    third = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_job(third)
    assert third > second > first
    assert c.job_state(first) == "COMPLETED"
    return third


def test_primary_comes_back_and_stands_by(make_cluster):
    c = standby_cluster(make_cluster)
    first = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_job(first)
    kill_primary(c)
    c.wait_for(lambda: "taking over" in backup_log(c), timeout=TIMEOUT + 10,
               what="the backup to take over")
    second = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_job(second)
    c.up()  # starts the primary again
    log = os.path.join(c.dir, "log", "rotactld.log")
    c.wait_for(lambda: "standing by" in open(log).read(), timeout=10,
               what="the old primary to stand by")
    # the backup still serves: new work goes on there, ids above the others
    third = assert_backup_serves(c, first, second)
    # over TCP too (a login node has no socket of the controller's): the
    # primary answers that it stands by, and the commands ask the backup
    sock = os.path.join(c.dir, "state", "rotactld.sock")
    os.rename(sock, sock + ".away")
    try:
        fourth = c.sbatch("-o", "/dev/null", "--wrap", "true")
        c.wait_job(fourth)
        assert fourth > third
        assert c.job_state(fourth) == "COMPLETED"
        # and the commands that keep their connection (an allocation, a step)
        for cmd in (["srun", "-N1", "echo", "srun-ok"],
                    ["salloc", "-N1", "srun", "echo", "srun-ok"]):
            p = c.run(cmd, timeout=60)
            assert p.returncode == 0 and "srun-ok" in p.stdout, (cmd, p.stderr)
    finally:
        os.rename(sock + ".away", sock)


def test_takeover_and_back(make_cluster):
    c = standby_cluster(make_cluster)
    running = c.sbatch("-o", "/dev/null", "--wrap", "sleep 6")
    c.wait_running(running)
    before = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_job(before)
    primary = c.pid("rotactld")
    p = c.run(["scontrol", "takeover"])
    assert p.returncode == 0, p.stderr
    # the backup serves at once (no SlurmctldTimeout to wait), the primary
    # has stopped, and nothing was lost on the way
    assert "taking over, as asked" in backup_log(c)
    c.wait_for(lambda: _proc_state(primary) in ("", "Z", "X"), what="the primary to stop")
    lines = ping(c)
    assert lines[0].endswith("is DOWN") and lines[1].endswith("is UP"), lines
    assert c.job_state(before) == "COMPLETED"
    assert c.job_state(running) == "RUNNING"
    during = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_job(during)
    # and back: the primary starts again and stands by, then takes over
    c.up()
    log = os.path.join(c.dir, "log", "rotactld.log")
    c.wait_for(lambda: "following the primary from event" in open(log).read(),
               what="the old primary to follow the backup")
    p = c.run(["scontrol", "takeover", "0"])
    assert p.returncode == 0, p.stderr
    c.wait_for(lambda: ping(c)[0].endswith("is UP") and ping(c)[1].endswith("is DOWN"),
               what="the primary serving again")
    after = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_job(after)
    assert after > during > before
    for jid in (before, during):
        assert c.job_state(jid) == "COMPLETED"
    c.wait_job(running, timeout=30)
    assert c.job_state(running) == "COMPLETED"


def test_takeover_is_for_admins_and_needs_a_backup(make_cluster):
    c = make_cluster()
    p = c.run(["scontrol", "takeover"])
    assert p.returncode == 1
    assert "slurm_takeover error: No backup controller configured" in p.stderr


def primary_log(c):
    with open(os.path.join(c.dir, "log", "rotactld.log")) as f:
        return f.read()


def test_backup_restarts_and_catches_up(make_cluster):
    c = standby_cluster(make_cluster)
    first = [c.sbatch("-o", "/dev/null", "--wrap", "true") for _ in range(5)]
    c.wait_for(lambda: "follows from event" in primary_log(c), what="the backup")
    c.kill_daemon("rotactld-backup1")
    seen = primary_log(c).count("follows from event")
    # while it is down, the primary goes on
    second = [c.sbatch("-o", "/dev/null", "--wrap", "true") for _ in range(5)]
    for j in first + second:
        c.wait_job(j)
    c.up()  # the backup again: it asks for what it missed, not everything
    c.wait_for(lambda: primary_log(c).count("follows from event") > seen,
               what="the backup to follow again")
    m = re.findall(r"a backup controller follows from event (\d+) \((\d+) to send\)",
                   primary_log(c))
    assert int(m[-1][0]) > 0 and int(m[-1][1]) > 0, m
    third = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_job(third)
    time.sleep(0.5)
    kill_primary(c)
    c.wait_for(lambda: "taking over" in backup_log(c), timeout=TIMEOUT + 10,
               what="the backup to take over")
    for j in first + second + [third]:
        assert c.job_state(j) == "COMPLETED", j


def test_replicate_sync_waits_for_the_backup(make_cluster):
    c = standby_cluster(make_cluster)
    c.down()
    with open(c.conf_path, "a") as f:
        f.write("SchedulerParameters=replicate_sync\n")
    c.up()
    c.wait_for(lambda: "follows from event" in primary_log(c), what="the backup")
    jid = c.sbatch("-o", "/dev/null", "--wrap", "true")  # answered: backup has it
    backup = c.pid("rotactld-backup1")
    os.kill(backup, signal.SIGSTOP)
    try:
        p = subprocess.Popen(["sbatch", "-o", "/dev/null", "--wrap", "true"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=c.env, cwd=str(c.work))
        time.sleep(2)
        # the backup cannot take it: no answer yet
        assert p.poll() is None, p.communicate()
    finally:
        os.kill(backup, signal.SIGCONT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    second = int(SUBMITTED_RE.match(out.strip()).group(1))
    assert second > jid
    # the primary's disk is lost with it: the backup still has every job
    kill_primary(c)
    import shutil
    shutil.rmtree(os.path.join(c.dir, "state"), ignore_errors=True)
    c.wait_for(lambda: "taking over" in backup_log(c), timeout=TIMEOUT + 10,
               what="the backup to take over")
    for j in (jid, second):
        assert c.job_state(j) is not None, f"job {j} lost"


def rotad_logs(c):
    text = ""
    for name in os.listdir(os.path.join(c.dir, "log")):
        if name.startswith("rotad"):
            with open(os.path.join(c.dir, "log", name)) as f:
                text += f.read()
    return text


def test_stopped_primary_is_left_and_steps_down(make_cluster):
    """A primary that stops answering without dying (SIGSTOP: a hung disk, a
    paused VM): the backup takes over, the node daemons leave the silent
    primary for it, and when the primary runs again it finds it was stopped
    longer than SlurmctldTimeout, sees the backup serve with a newer term, and
    stands by instead of serving beside it."""
    c = standby_cluster(make_cluster)
    first = c.sbatch("-o", "/dev/null", "--wrap", "true")
    c.wait_job(first)
    primary = c.pid("rotactld")
    os.kill(primary, signal.SIGSTOP)
    try:
        c.wait_for(lambda: "taking over" in backup_log(c), timeout=TIMEOUT + 10,
                   what="the backup to take over")
        c.wait_for(lambda: "has not answered for" in rotad_logs(c),
                   timeout=TIMEOUT + 10, what="the nodes to leave the silent primary")
        # the nodes register with the backup (term 1): new work runs there
        second = c.sbatch("-o", "/dev/null", "--wrap", "true")
        c.wait_job(second, timeout=60)
        assert c.job_state(second) == "COMPLETED"
        assert re.search(r"registered with the controller at \S+ as \S+ \(term 1\)",
                         rotad_logs(c)), rotad_logs(c)
    finally:
        os.kill(primary, signal.SIGCONT)
    c.wait_for(lambda: "stepping down to stand by" in primary_log(c), timeout=20,
               what="the old primary to step down")
    c.wait_for(lambda: "following the primary from event" in primary_log(c),
               timeout=20, what="the old primary to follow the backup")
    assert _proc_state(primary) not in ("", "Z", "X")  # the same process, again
    assert_backup_serves(c, first, second)


def test_backup_in_a_shared_state_save_location(make_cluster):
    """A backup started without a state directory of its own (-s), as on a
    StateSaveLocation shared with the primary, keeps its journal in
    StateSaveLocation/backup1: the primary's files are its own, and a
    takeover has every job."""
    from conftest import BIN, _clean_env
    c = standby_cluster(make_cluster)
    c.kill_daemon("rotactld-backup1")
    log = os.path.join(c.dir, "log", "rotactld-shared.log")
    backup = subprocess.Popen([str(BIN / "rotactld"), "-f", c.conf_path, "-i", "1",
                               "-L", log], env=_clean_env(),
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        c.wait_for(lambda: os.path.exists(log) and
                   "standing by: following" in open(log).read(),
                   what="the backup to stand by")
        jobs = [c.sbatch("-o", "/dev/null", "--wrap", "true") for _ in range(3)]
        for j in jobs:
            c.wait_job(j)
        state = os.path.join(c.dir, "state")
        c.wait_for(lambda: os.path.exists(os.path.join(state, "backup1", "journal"))
                   and os.path.getsize(os.path.join(state, "backup1", "journal")) > 0,
                   what="the backup's own journal")
        time.sleep(0.5)
        kill_primary(c)
        c.wait_for(lambda: "taking over" in open(log).read(), timeout=TIMEOUT + 10,
                   what="the backup to take over")
        for j in jobs:
            assert c.job_state(j) == "COMPLETED", j
    finally:
        backup.terminate()
        backup.wait(timeout=15)
