"""srun --pty: task 0 runs on a pseudo-terminal that is its controlling
terminal, sized like srun's; srun puts its own terminal in raw mode, so an
interactive shell (srun --pty bash) works as with Slurm: a prompt, ^C
reaching the foreground command, window resizes, exit codes."""

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time


def test_pty_task_has_a_terminal(cluster):
    p = cluster.run(["srun", "--pty", "sh", "-c",
                     "tty; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all-tty"],
                    check=True)
    lines = p.stdout.splitlines()
    assert re.fullmatch(r"/dev/pts/\d+\r?", lines[0]), p.stdout
    assert lines[1].rstrip("\r") == "all-tty"
    p = cluster.run(["srun", "sh", "-c", "tty"])  # without --pty: pipes
    assert p.stdout == "not a tty\n"


def test_pty_stdin_reaches_the_task_and_ends(cluster):
    p = cluster.run(["srun", "--pty", "sh", "-c", "read x; echo got-$x"],
                    input="hello\n", timeout=30)
    assert p.returncode == 0, p.stderr
    assert "got-hello" in p.stdout, p.stdout
    # srun's EOF is the terminal's ^D: cat ends
    p = cluster.run(["srun", "--pty", "cat"], input="", timeout=30)
    assert p.returncode == 0, p.stderr


def _read_until(fd, text, timeout=30):
    buf = b""
    deadline = time.monotonic() + timeout
    while text.encode() not in buf:
        left = deadline - time.monotonic()
        assert left > 0, f"no {text!r} in {buf!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            chunk = b""
        assert chunk, f"EOF before {text!r}: {buf!r}"
        buf += chunk
    return buf.decode(errors="replace")


def test_pty_interactive_shell(cluster):
    pid, fd = pty.fork()
    if pid == 0:  # srun on a terminal of 30 rows, 100 columns
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
            os.chdir(cluster.work)
            os.execvpe("srun", ["srun", "--pty", "bash", "--norc", "--noprofile",
                                "-i"], cluster.env)
        finally:
            os._exit(127)
    try:
        os.write(fd, b"echo $((6*7))x\n")
        _read_until(fd, "42x")
        os.write(fd, b"stty size\n")
        _read_until(fd, "30 100")
        # a resize of srun's terminal follows to the task's
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        time.sleep(0.5)
        os.write(fd, b"stty size\n")
        _read_until(fd, "40 120")
        # ^C goes to the remote terminal: it interrupts sleep, not the shell
        os.write(fd, b"sleep 100\n")
        time.sleep(1)
        os.write(fd, b"\x03")
        os.write(fd, b"echo back$((1+1))\n")
        _read_until(fd, "back2")
        os.write(fd, b"exit 3\n")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            try:
                os.read(fd, 4096)
            except OSError:
                time.sleep(0.1)
        assert done, "srun did not end"
        assert os.waitstatus_to_exitcode(status) == 3
        pid = 0
    finally:
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)


def _salloc_on_a_terminal(cluster, *args):
    """salloc ARGS true with its stdout on a terminal; what it wrote there."""
    master, slave = pty.openpty()
    try:
        p = subprocess.run(["salloc", *args, "true"], stdin=subprocess.DEVNULL,
                           stdout=slave, stderr=subprocess.PIPE, env=dict(cluster.env),
                           cwd=str(cluster.work), timeout=60)
        assert p.returncode == 0, p.stderr
        os.close(slave)
        slave = -1
        out = b""
        while select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)


def test_salloc_bell(cluster):
    """--bell rings the terminal's bell when the allocation is granted;
    without it a quick grant rings nothing (Slurm rings after a 10 s wait),
    and --no-bell or a stdout that is no terminal never."""
    assert b"\a" in _salloc_on_a_terminal(cluster, "--bell")
    assert b"\a" not in _salloc_on_a_terminal(cluster)
    assert b"\a" not in _salloc_on_a_terminal(cluster, "--bell", "--no-bell")
    env = dict(cluster.env, SALLOC_BELL="1")
    p = subprocess.run(["salloc", "true"], capture_output=True, env=env,
                       cwd=str(cluster.work), timeout=60)
    assert p.returncode == 0 and b"\a" not in p.stdout, p.stderr
