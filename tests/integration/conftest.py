"""System-test harness: boot a real Rota cluster (rotactld + N rotad) in a temp
directory with `rota up`, drive the real CLIs, and `rota down` afterwards.

Fixtures
  cluster        module-scoped cluster (4 nodes, 8 CPUs, 64 GiB each), with a
                 fresh work directory per test; jobs left by a test are cancelled
                 before the next one starts.
  fresh_cluster  a cluster of its own for one test (restart tests).
  make_cluster   factory: make_cluster("--nodes", "2") -> a started cluster,
                 stopped at the end of the test.

The build directory is $ROTA_BUILD (default: <repo>/build).
"""

import contextlib
import os
import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ROTA_BUILD") or (REPO / "build")).resolve()
BIN = BUILD / "bin"
ROTA = BIN / "rota"

# Module cluster: the tutorial's CPU job asks for 8 CPUs and 16G on one node.
DEFAULT_UP_ARGS = ("--nodes", "4", "--cpus", "8", "--mem", "65536")

FINISHED_STATES = {
    "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
    "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY",
}
SUBMITTED_RE = re.compile(r"^Submitted batch job (\d+)$")
IS_ROOT = os.geteuid() == 0


def _clean_env():
    """The caller's environment without anything that would point the CLIs at
    another cluster or job."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_", "SBATCH_", "SRUN_", "SALLOC_",
                                "SQUEUE_", "SINFO_", "ROTA_"))}
    env.setdefault("USER", _user_name())
    env["LC_ALL"] = "C"
    return env


def _user_name():
    import pwd
    return pwd.getpwuid(os.geteuid()).pw_name


def _tail(path, lines=40):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 65536))
            data = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


def _proc_read(pid, name):
    try:
        with open(f"/proc/{pid}/{name}", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _proc_state(pid):
    stat = _proc_read(pid, "stat")
    if not stat:
        return ""
    state = stat[stat.rfind(b")") + 2:][:1].decode()
    if state == "Z":
        # a process's first thread is a zombie as soon as it exits; the
        # others (rotactld's journal writer) may still hold its files
        try:
            if len(os.listdir(f"/proc/{pid}/task")) > 1:
                return "z"
        except OSError:
            pass
    return state


def wait_until(predicate, timeout=15, what="condition", interval=0.1,
               detail=None):
    """predicate()'s first true result within timeout seconds, else an
    AssertionError naming what (and detail(), when given)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}" +
                         (f"\n{detail()}" if detail else ""))


def cluster_processes(cluster_dir):
    """Live (non-zombie) processes that belong to the cluster in cluster_dir:
    its daemons (argv holds DIR/slurm.conf), anything marked with
    ROTA_CLUSTER_DIR=DIR, and job processes (SLURM_CONF=DIR/slurm.conf)."""
    conf = os.path.join(cluster_dir, "slurm.conf").encode()
    marks = (b"ROTA_CLUSTER_DIR=" + cluster_dir.encode(), b"SLURM_CONF=" + conf)
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        pid = int(entry)
        if _proc_state(pid) in ("", "Z", "X"):
            continue
        argv = _proc_read(pid, "cmdline").split(b"\0")
        env = _proc_read(pid, "environ").split(b"\0")
        if conf in argv or any(m in env for m in marks):
            found.append((pid, b" ".join(argv).decode("utf-8", "replace")))
    return found


REQUIRED = ("rota", "rotactld", "rotad", "rotastepd", "rotadbd", "sbatch", "srun", "salloc", "sacct",
            "squeue", "sinfo", "scancel", "scontrol")


def pytest_sessionstart(session):
    missing = [name for name in REQUIRED if not os.access(BIN / name, os.X_OK)]
    if missing:
        pytest.exit(f"not built in {BIN}: {' '.join(missing)} (run make, or set "
                    f"ROTA_BUILD)", returncode=2)


class Cluster:
    """A Rota cluster under self.dir, driven through the real commands."""

    def __init__(self, directory, up_args=DEFAULT_UP_ARGS):
        self.dir = str(directory)
        self.up_args = list(up_args)
        self.conf_path = os.path.join(self.dir, "slurm.conf")
        self.work = pathlib.Path(self.dir)
        self.env = None
        self.user = _user_name()

    # ---- lifecycle ----
    def up(self, *extra, check=True, timeout=90, env=None):
        """rota up; env (a dict) is added to the daemons' environment."""
        if not ROTA.exists():
            pytest.fail(f"{ROTA} not built (run make first, or set ROTA_BUILD)")
        # size options only matter when slurm.conf is written (the first up)
        first = not os.path.exists(self.conf_path)
        cmd = [str(ROTA), "up", "--dir", self.dir, *(self.up_args if first else ()),
               *extra]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           env={**_clean_env(), **(env or {})}, stdin=subprocess.DEVNULL)
        if check and p.returncode != 0:
            raise AssertionError(
                f"rota up failed ({p.returncode}):\n{p.stderr}\n{self.logs()}")
        if p.returncode == 0:
            self._parse_exports(p.stdout)
        return p

    def _parse_exports(self, out):
        lines = out.splitlines()
        assert len(lines) == 3, f"rota up should print three export lines: {out!r}"
        m1 = re.fullmatch(r"export PATH=(\S+):\$PATH", lines[0])
        m2 = re.fullmatch(r"export SLURM_CONF=(\S+)", lines[1])
        m3 = re.fullmatch(r"export ROTA_REST_URL=(http://127\.0\.0\.1:\d+)", lines[2])
        assert m1 and m2 and m3, f"unexpected rota up output: {out!r}"
        assert m2.group(1) == self.conf_path
        env = _clean_env()
        env["PATH"] = m1.group(1) + ":" + env.get("PATH", "/usr/bin:/bin")
        env["SLURM_CONF"] = m2.group(1)
        self.env = env
        self.bin = m1.group(1)

    def down(self, timeout=60):
        return subprocess.run([str(ROTA), "down", "--dir", self.dir],
                              capture_output=True, text=True, timeout=timeout,
                              env=_clean_env(), stdin=subprocess.DEVNULL)

    def processes(self):
        return cluster_processes(self.dir)

    def pid(self, name):
        """Pid recorded in run/<name>.pid (rotactld, rotad-node01...)."""
        with open(os.path.join(self.dir, "run", name + ".pid")) as f:
            return int(f.read().strip())

    def kill_daemon(self, name, sig=signal.SIGKILL, timeout=10):
        pid = self.pid(name)
        os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        while _proc_state(pid) not in ("", "Z", "X"):
            assert time.monotonic() < deadline, f"{name} ({pid}) did not die"
            time.sleep(0.05)

    def restart_ctld(self):
        """Stop rotactld and start it again with its own command line and
        environment, as rota up does."""
        pid = self.pid("rotactld")
        argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[:-1]
        env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")[:-1]
        self.kill_daemon("rotactld", signal.SIGTERM)
        cmd = " ".join(shquote(a.decode()) for a in argv)
        subprocess.run(["setsid", "sh", "-c",
                        f"{cmd} </dev/null >>log/rotactld.out 2>&1 & "
                        "echo $! > run/rotactld.pid"],
                       cwd=self.dir, env=dict(e.decode().split("=", 1) for e in env),
                       check=True)
        self.wait_for(lambda: self.run(["scontrol", "ping"]).returncode == 0, 30,
                      "the controller back")

    def compact_journal(self, timeout=30):
        """Have the controller compact its journal now (SIGUSR1) and wait for
        it: the state is then in the snapshot a restart reads."""
        log = os.path.join(self.dir, "log", "rotactld.log")

        def done_count():
            with open(log) as f:
                return f.read().count("journal compacted")
        before = done_count()
        os.kill(self.pid("rotactld"), signal.SIGUSR1)
        self.wait_for(lambda: done_count() > before or None, timeout=timeout,
                      what="the journal's compaction")

    def conf_value(self, key):
        with open(self.conf_path) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                if k.lower() == key.lower():
                    return v
        return None

    # ---- running commands ----
    def run(self, cmd, *, check=False, timeout=60, input=None, cwd=None, env=None):
        """Run cmd (a shell string, or an argv list) with the cluster's PATH and
        SLURM_CONF, in the test's work directory."""
        full_env = dict(self.env)
        if env:
            full_env.update(env)
        shell = isinstance(cmd, str)
        p = subprocess.run(cmd if not shell else ["bash", "-c", cmd],
                           capture_output=True, text=True, timeout=timeout,
                           input=input, cwd=str(cwd or self.work), env=full_env,
                           stdin=None if input is not None else subprocess.DEVNULL)
        if check and p.returncode != 0:
            raise AssertionError(
                f"{cmd!r} failed ({p.returncode})\nstdout: {p.stdout}\n"
                f"stderr: {p.stderr}")
        return p

    def sbatch(self, *args, cwd=None, env=None, input=None):
        """sbatch ARGS; asserts success and returns the job id."""
        p = self.run(["sbatch", *args], cwd=cwd, env=env, input=input)
        assert p.returncode == 0, f"sbatch {args} failed: {p.stderr}"
        m = SUBMITTED_RE.match(p.stdout.strip())
        assert m, f"unexpected sbatch output: {p.stdout!r} {p.stderr!r}"
        return int(m.group(1))

    def job_field(self, jobid, field):
        """A Key=Value field of `scontrol show job`, or None."""
        p = self.run(["scontrol", "show", "job", str(jobid)])
        m = re.search(r"(?:^|\s)" + re.escape(field) + r"=(\S*)", p.stdout)
        return m.group(1) if m else None

    def job_state(self, jobid):
        p = self.run(["squeue", "-h", "-j", str(jobid), "-t", "all", "-o", "%i %T"])
        # a heterogeneous job's leader id lists every component: its own row
        rows = dict(line.split() for line in p.stdout.splitlines()
                    if p.returncode == 0 and len(line.split()) == 2)
        state = rows.get(f"{jobid}+0") or rows.get(str(jobid)) or (
            next(iter(rows.values())) if len(rows) == 1 else "")
        if not state:
            state = self.job_field(jobid, "JobState") or ""
        return state

    def wait_job(self, jobid, timeout=30, states=FINISHED_STATES):
        """Poll until the job reaches one of states; return that state."""
        deadline = time.monotonic() + timeout
        state = ""
        while time.monotonic() < deadline:
            state = self.job_state(jobid)
            if state in states:
                return state
            time.sleep(0.1)
        show = self.run(["scontrol", "show", "job", str(jobid)])
        raise AssertionError(
            f"job {jobid} still {state or '?'} after {timeout}s\n{show.stdout}"
            f"{show.stderr}\n{self.logs()}")

    def wait_running(self, jobid, timeout=30):
        return self.wait_job(jobid, timeout, states={"RUNNING"} | FINISHED_STATES)

    def wait_for(self, predicate, timeout=15, what="condition"):
        return wait_until(predicate, timeout, what)

    def cancel_all(self, timeout=30):
        """Cancel every unfinished job and wait until none is left."""
        p = self.run(["squeue", "-h", "-o", "%i"])
        ids = p.stdout.split() if p.returncode == 0 else []
        if ids:
            self.run(["scancel", *ids])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            p = self.run(["squeue", "-h", "-o", "%i %t"])
            if p.returncode != 0 or not p.stdout.strip():
                return
            time.sleep(0.1)
        raise AssertionError(f"jobs still queued after scancel:\n{p.stdout}")

    def wait_nodes_idle(self, timeout=30):
        def idle():
            p = self.run(["sinfo", "-h", "-N", "-o", "%N %t"])
            states = [line.split()[1] for line in p.stdout.splitlines() if line.strip()]
            return p.returncode == 0 and states and all(
                s.startswith(("idle", "drain")) for s in states)
        return self.wait_for(idle, timeout, "all nodes idle")

    def node_states(self, fmt="%t"):
        """Each node's state as sinfo -N prints it (fmt %T: the long names)."""
        p = self.run(["sinfo", "-h", "-N", "-o", "%N " + fmt], check=True)
        return dict(line.split() for line in p.stdout.splitlines() if line.strip())

    def wait_node_states(self, want, timeout=30):
        """Wait until each node of want (name: sinfo's %t) is in that state."""
        def ok():
            s = self.node_states()
            return all(s.get(n) == st for n, st in want.items())
        try:
            self.wait_for(ok, timeout, f"node states {want}")
        except AssertionError:
            raise AssertionError(f"nodes are {self.node_states()}, wanted {want}\n"
                                 f"{self.logs()}")

    def logs(self, lines=30):
        out = []
        logdir = os.path.join(self.dir, "log")
        if os.path.isdir(logdir):
            for name in sorted(os.listdir(logdir)):
                text = _tail(os.path.join(logdir, name), lines)
                if text.strip():
                    out.append(f"==> {name} <==\n{text}")
        return "\n".join(out)


def _start(directory, up_args=DEFAULT_UP_ARGS):
    c = Cluster(directory, up_args)
    c.up()
    return c


def _leftover_report(c, leftover):
    """What tells how processes outlived rota down: each one's parent and
    cgroup, and every log line about the jobs they ran for."""
    out, jobs = [], set()
    for pid, argv in leftover:
        status = _proc_read(pid, "status").decode("utf-8", "replace")
        ppid = re.search(r"^PPid:\s*(\d+)", status, re.M)
        cg = _proc_read(pid, "cgroup").decode("utf-8", "replace").strip().split("\n")[-1]
        out.append(f"{pid} ppid {ppid.group(1) if ppid else '?'} {cg}: {argv}")
        jobs.update(re.findall(r"/job0*(\d+)/", argv))
    logdir = os.path.join(c.dir, "log")
    pat = re.compile(r"JobId=(%s)\b" % "|".join(sorted(jobs))) if jobs else None
    for name in sorted(os.listdir(logdir)) if pat and os.path.isdir(logdir) else ():
        with open(os.path.join(logdir, name), errors="replace") as f:
            out += [f"{name}: {line.rstrip()}" for line in f if pat.search(line)]
    return "\n".join(out)


def _stop(c):
    p = c.down()
    leftover = cluster_processes(c.dir)
    assert p.returncode == 0, f"rota down failed: {p.stderr}"
    assert not leftover, (f"processes left after rota down: {leftover}\n"
                          f"{_leftover_report(c, leftover)}")


MUNGED = shutil.which("munged") or "/usr/sbin/munged"


@contextlib.contextmanager
def munged_with_new_key(prefix, socket_name="munge.socket.2"):
    """A munged of its own (root) with a fresh random key, in a directory
    made for it: yields (directory, socket path); stopped and removed after."""
    d = tempfile.mkdtemp(prefix=prefix)
    os.chmod(d, 0o755)
    key = os.path.join(d, "munge.key")
    with open(key, "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(key, 0o400)
    sock = os.path.join(d, socket_name)
    pidfile = os.path.join(d, "munged.pid")
    try:
        subprocess.run([MUNGED, "--force", "--socket=" + sock, "--key-file=" + key,
                        "--log-file=" + os.path.join(d, "munged.log"),
                        "--pid-file=" + pidfile,
                        "--seed-file=" + os.path.join(d, "munged.seed")],
                       check=True, timeout=30)
        wait_until(lambda: os.path.exists(sock), 5, "munged's socket",
                   interval=0.05)
        yield d, sock
    finally:
        try:
            with open(pidfile) as f:
                os.kill(int(f.read().strip()), signal.SIGTERM)
        except (OSError, ValueError):
            pass
        shutil.rmtree(d, ignore_errors=True)


def _mkdtemp():
    # Short paths: the controller's unix socket lives under DIR/state.
    return tempfile.mkdtemp(prefix="rota-", dir=os.environ.get("ROTA_TEST_TMP", "/tmp"))


def module_cluster_with(rewrite_conf=None, up_args=DEFAULT_UP_ARGS):
    """A cluster for a module's fixture to yield from, started with up_args;
    rewrite_conf(path), when given, edits its slurm.conf before the daemons
    start for good."""
    d = _mkdtemp()
    os.chmod(d, 0o755)
    c = _start(os.path.join(d, "cluster"), up_args)
    try:
        if rewrite_conf:
            c.down()
            rewrite_conf(c.conf_path)
            c.up()
        yield c
    finally:
        try:
            _stop(c)
        finally:
            if not os.environ.get("ROTA_KEEP"):
                shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def module_cluster():
    yield from module_cluster_with()


@pytest.fixture
def cluster(module_cluster, tmp_path):
    """The module cluster, with a work directory of this test's own."""
    work = tmp_path / "work"
    work.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(work, 0o777)
    module_cluster.work = work
    yield module_cluster
    module_cluster.cancel_all()
    module_cluster.wait_nodes_idle()


@pytest.fixture(scope="module")
def users():
    """Two real Unix users, a and b, in a group of their own (needs root)."""
    from unixusers import make_users, remove_users
    made, group = make_users("a", "b")
    yield made
    remove_users(made, group)


@pytest.fixture
def ucluster(cluster):
    """The module cluster with a work directory the test users can reach."""
    from unixusers import user_work
    old = cluster.work
    d = user_work()
    cluster.work = pathlib.Path(d)
    yield cluster
    cluster.cancel_all()
    cluster.work = old
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def make_cluster(tmp_path):
    started = []
    d = _mkdtemp()
    os.chmod(d, 0o755)

    def make(*up_args, name="cluster"):
        c = _start(os.path.join(d, name), up_args or DEFAULT_UP_ARGS)
        work = tmp_path / ("work-" + name)
        work.mkdir(exist_ok=True)
        os.chmod(tmp_path, 0o755)
        os.chmod(work, 0o777)
        c.work = work
        started.append(c)
        return c

    yield make
    try:
        for c in started:
            _stop(c)
    finally:
        if not os.environ.get("ROTA_KEEP"):
            shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def fresh_cluster(make_cluster):
    return make_cluster()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed and call.when in ("call", "setup"):
        for name in ("cluster", "fresh_cluster", "module_cluster"):
            c = item.funcargs.get(name) if hasattr(item, "funcargs") else None
            if isinstance(c, Cluster):
                rep.sections.append((f"rota logs ({c.dir})", c.logs()))
                break


def write_script(path, text, mode=0o755):
    path = pathlib.Path(path)
    path.write_text(text)
    path.chmod(mode)
    return path


def file_lines(path):
    """How many lines the file has (0 while it does not exist)."""
    try:
        with open(path) as f:
            return len(f.read().splitlines())
    except FileNotFoundError:
        return 0


def shquote(s):
    return shlex.quote(s)
