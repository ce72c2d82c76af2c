"""The step daemon is a fork of rotad, not an exec (noded/stepd_mgr.c): it must
hold nothing of rotad's (connections, pipes, signal handlers) and show itself
as the step daemon of its job."""

import os


def _links(pid):
    """The sockets and pipes a process holds ("socket:[123]", "pipe:[45]": the
    inode names each; anon_inode names are shared by every epoll or signalfd)."""
    out = set()
    d = f"/proc/{pid}/fd"
    for fd in os.listdir(d):
        try:
            target = os.readlink(os.path.join(d, fd))
        except OSError:
            continue
        if target.startswith(("socket:", "pipe:")):
            out.add(target)
    return out


def _status_mask(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1], 16)
    return None


def _stepd_of(jobid):
    want = f"rotastepd: [{jobid}.batch]".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if f.read().rstrip(b"\0") == want:
                    return int(entry)
        except OSError:
            pass
    return None


def test_step_daemon_holds_nothing_of_rotad(cluster):
    jobid = cluster.sbatch("-w", "node02", "-o", "/dev/null", "--wrap", "sleep 60")
    cluster.wait_running(jobid)
    found = []
    cluster.wait_for(lambda: found.append(_stepd_of(jobid)) or found[-1], 10,
                     "the job's step daemon")
    stepd = found[-1]
    with open(f"/proc/{stepd}/comm") as f:
        assert f.read().strip() == "rotastepd"
    rotad = cluster.pid("rotad-node02")
    # its parent was rotad, but it is a session of its own
    assert os.getsid(stepd) == stepd
    # no connection or pipe of rotad's is shared with it
    shared = _links(stepd) & _links(rotad)
    assert not shared, shared
    # rotad's libevent handlers are gone: the step daemon catches no signal
    # itself (it reads them from a signalfd)
    caught = _status_mask(stepd, "SigCgt")
    assert caught == 0, hex(caught)
