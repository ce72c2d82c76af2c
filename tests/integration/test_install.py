"""Installed like a system service: `make install` lays out the daemons, the
CLI with its Slurm-named links and the systemd units under DESTDIR, and the
daemons tell systemd when they serve and when they stop (Type=notify, the
sd_notify datagrams on $NOTIFY_SOCKET)."""

import os
import pathlib
import re
import shutil
import signal
import socket
import struct
import subprocess
import time
import uuid

import pytest

from conftest import BUILD, REPO, Cluster, _clean_env, _mkdtemp, _stop

DAEMONS = ("rotactld", "rotad", "rotadbd", "rotarestd")
LINKS = ("sbatch", "srun", "salloc", "squeue", "sinfo", "scancel", "scontrol", "sprio",
         "sdiag", "sacct", "sacctmgr", "sshare", "sreport", "sstat", "sbcast",
         "strigger", "sattach", "scrontab")
UNITS = tuple(d + ".service" for d in DAEMONS)


def make(*args):
    """make in the source tree, on the build the suite tests."""
    p = subprocess.run(["make", "--no-print-directory", "-C", str(REPO),
                        f"BUILD={BUILD}", *args],
                       capture_output=True, text=True, timeout=300,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, f"make {' '.join(args)} failed:\n{p.stdout}\n{p.stderr}"
    return p


def unit_values(path):
    """key -> [values] of a unit file."""
    values = {}
    for line in pathlib.Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        k, _, v = line.partition("=")
        values.setdefault(k.strip(), []).append(v.strip())
    return values


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A make install into a scratch DESTDIR with PREFIX=/usr/local."""
    dest = tmp_path_factory.mktemp("destdir")
    make("install", f"DESTDIR={dest}", "PREFIX=/usr/local")
    return dest


def test_install_layout(installed):
    prefix = installed / "usr/local"
    for d in DAEMONS:
        f = prefix / "sbin" / d
        assert f.is_file() and not f.is_symlink(), f
        assert (f.stat().st_mode & 0o7777) == 0o755, f
    rota = prefix / "bin/rota"
    assert rota.is_file() and not rota.is_symlink()
    assert (rota.stat().st_mode & 0o7777) == 0o755
    for name in LINKS:
        link = prefix / "bin" / name
        assert link.is_symlink(), link
        # relative, so that the tree works wherever DESTDIR is copied to
        assert os.readlink(link) == "rota", link
        assert link.resolve() == rota.resolve()
    # the man pages `make man` wrote, one per command, daemon and file
    for page in ("man1/sbatch.1", "man1/rota.1", "man5/slurm.conf.5",
                 "man5/gres.conf.5", "man8/rotactld.8", "man8/rotad.8"):
        f = prefix / "share/man" / page
        assert f.is_file() and (f.stat().st_mode & 0o7777) == 0o644, f
        assert f.read_bytes() == (BUILD / "man" / page).read_bytes(), f
    for helper in ("rotastepd", "rotapmix"):
        f = prefix / "libexec/rota" / helper
        assert f.is_file() and (f.stat().st_mode & 0o7777) == 0o755, f
    # the installed programs are the built ones
    for name, built in (("sbin/rotactld", "rotactld"), ("bin/rota", "rota")):
        assert (prefix / name).read_bytes() == (BUILD / "bin" / built).read_bytes()
    # the CLI works through a link: a link's name picks the command
    p = subprocess.run([str(prefix / "bin/sinfo"), "--help"], capture_output=True,
                       text=True, timeout=30, env=_clean_env())
    assert "sinfo" in (p.stdout + p.stderr).lower()
    # nothing but what was asked for
    files = sorted(str(p.relative_to(installed)) for p in installed.rglob("*")
                   if not p.is_dir())
    want = sorted([f"usr/local/sbin/{d}" for d in DAEMONS] +
                  [f"usr/local/bin/{n}" for n in ("rota", "rota-sim") + LINKS] +
                  ["usr/local/libexec/rota/rotastepd",
                   "usr/local/libexec/rota/rotapmix"] +
                  [f"usr/local/lib/systemd/system/{u}" for u in UNITS] +
                  [f"usr/local/share/man/{p.relative_to(BUILD / 'man')}"
                   for p in (BUILD / "man").glob("man[158]/*")])
    assert files == want


def test_programs_started_per_call_load_libc_alone():
    """sbatch, squeue and the step daemons are started once per call or job:
    each shared library costs every start its mappings and relocations, so
    they load libc alone; libm is rota-sim's (rota sim's predictor), libisal
    the controller's."""
    def loaded(prog):
        out = subprocess.run(["ldd", str(BUILD / "bin" / prog)], capture_output=True,
                             text=True, check=True).stdout
        return {re.sub(r"\.so.*", "", os.path.basename(m))
                for m in re.findall(r"=> (/\S+)", out)}

    if "libasan" in loaded("rota"):
        pytest.skip("a sanitizer build loads its runtimes and what they need")
    assert loaded("rota") == {"libc"}
    assert loaded("rota-sim") == {"libc", "libm"}
    assert loaded("rotad") == {"libc"}
    assert loaded("rotastepd") == {"libc"}
    assert "libisal" in loaded("rotactld")


def test_install_units(installed):
    unitdir = installed / "usr/local/lib/systemd/system"
    for d in DAEMONS:
        path = unitdir / (d + ".service")
        text = path.read_text()
        assert (path.stat().st_mode & 0o7777) == 0o644
        assert not re.search(r"@[A-Za-z_]+@", text), f"unsubstituted in {path}"
        v = unit_values(path)
        argv = v["ExecStart"][0].split()
        # the installed path, in the foreground
        assert argv[0] == f"/usr/local/sbin/{d}"
        assert "-D" in argv
        assert v["Type"] == ["notify"]
        assert v["RuntimeDirectory"] == [d]
        assert "munge.service" in " ".join(v["After"])
        assert "network-online.target" in " ".join(v["After"])
        assert int(v["LimitNOFILE"][0]) >= 65536
    ctld = unit_values(unitdir / "rotactld.service")
    assert ctld["ExecReload"] == ["/bin/kill -HUP $MAINPID"]
    for d in ("rotactld", "rotadbd"):
        v = unit_values(unitdir / (d + ".service"))
        assert v["NoNewPrivileges"] == ["yes"]
        assert v["ProtectSystem"][0] in ("full", "strict")
    # rotad starts jobs as their users and builds their cgroups; its jobs
    # outlive a restart of it
    rotad = unit_values(unitdir / "rotad.service")
    assert "NoNewPrivileges" not in rotad and "ProtectSystem" not in rotad
    assert rotad["Delegate"] == ["yes"]
    assert rotad["KillMode"] == ["process"]


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="no systemd-analyze")
def test_units_verify(installed, tmp_path):
    """systemd reads the units without a complaint.  verify wants the programs
    to exist: a copy of the units points at the DESTDIR's."""
    unitdir = installed / "usr/local/lib/systemd/system"
    paths = []
    for u in UNITS:
        text = (unitdir / u).read_text().replace("/usr/local/sbin/",
                                                 f"{installed}/usr/local/sbin/")
        (tmp_path / u).write_text(text)
        paths.append(str(tmp_path / u))
    # the man pages come with their own target: not checked here
    p = subprocess.run(["systemd-analyze", "verify", "--man=no", *paths],
                       capture_output=True, text=True, timeout=60)
    ours = [line for line in (p.stdout + p.stderr).splitlines()
            if any(u in line for u in UNITS)]
    assert p.returncode == 0 and not ours, p.stdout + p.stderr


def test_install_writes_only_destdir(tmp_path):
    """A prefix nobody has: after an install and an uninstall into DESTDIR it
    still does not exist, and the uninstall leaves no file behind."""
    prefix = f"/opt/rota-install-test-{uuid.uuid4().hex[:12]}"
    dest = tmp_path / "root"
    make("install", f"DESTDIR={dest}", f"PREFIX={prefix}",
         f"SYSTEMDUNITDIR={prefix}/units")
    assert not os.path.exists(prefix)
    unit = dest / prefix.lstrip("/") / "units/rotad.service"
    assert f"ExecStart={prefix}/sbin/rotad -D" in unit.read_text()
    make("uninstall", f"DESTDIR={dest}", f"PREFIX={prefix}",
         f"SYSTEMDUNITDIR={prefix}/units")
    left = [str(p) for p in dest.rglob("*") if not p.is_dir()]
    assert left == []
    assert not os.path.exists(prefix)


# ---- readiness: the sd_notify protocol ----

class NotifySocket:
    """What systemd listens on: a datagram socket that learns each sender's pid."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        os.chmod(path, 0o777)
        self.got = []  # (pid, message)

    def close(self):
        self.sock.close()

    def poll(self, timeout):
        self.sock.settimeout(timeout)
        try:
            data, anc, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(12))
        except (socket.timeout, BlockingIOError):
            return False
        pid = None
        for level, kind, cdata in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = struct.unpack("iII", cdata[:12])[0]
        self.got.append((pid, data.decode()))
        return True

    def wait(self, pid, message, timeout=30):
        """Waits for a datagram from pid holding the line message."""
        deadline = time.monotonic() + timeout
        while True:
            if any(p == pid and message in m.split("\n") for p, m in self.got):
                return
            left = deadline - time.monotonic()
            assert left > 0, f"no {message} from pid {pid}; got {self.got}"
            self.poll(left)


@pytest.fixture
def notify_dir():
    d = _mkdtemp()
    os.chmod(d, 0o755)
    yield d
    if not os.environ.get("ROTA_KEEP"):
        shutil.rmtree(d, ignore_errors=True)


def test_daemons_notify_ready_and_stopping(notify_dir):
    """Under `rota up` with $NOTIFY_SOCKET set, as under systemd: rotactld,
    rotadbd, rotarestd and each rotad send READY=1 once they serve, rotactld brackets a
    SIGHUP reconfigure with RELOADING=1 and READY=1, and each sends STOPPING=1
    when stopped."""
    ns = NotifySocket(os.path.join(notify_dir, "notify"))
    c = Cluster(os.path.join(notify_dir, "cluster"), ("--nodes", "2"))
    try:
        c.up(env={"NOTIFY_SOCKET": ns.path})
        # rota up's cluster keeps accounting: rotadbd is one of them
        names = ["rotactld", "rotadbd", "rotad-node01", "rotad-node02", "rotarestd"]
        pids = {n: c.pid(n) for n in names}
        for n in names:
            ns.wait(pids[n], "READY=1")
        # the cluster answers: READY=1 meant serving
        p = c.run("sinfo -h -o %D", check=True)
        assert p.stdout.strip() == "2"

        before = len(ns.got)
        os.kill(pids["rotactld"], signal.SIGHUP)
        ns.wait(pids["rotactld"], "RELOADING=1")
        deadline = time.monotonic() + 30
        while not any(p == pids["rotactld"] and m == "READY=1"
                      for p, m in ns.got[before:]):
            assert time.monotonic() < deadline, ns.got
            ns.poll(1)
        reload_msg = [m for p, m in ns.got[before:] if "RELOADING=1" in m][0]
        assert re.search(r"^MONOTONIC_USEC=\d+$", reload_msg, re.M)
        # a job still runs after the reload
        p = c.run("srun -N1 true", check=True, timeout=60)
        assert p.returncode == 0
    finally:
        _stop(c)
    for n in names:
        ns.wait(pids[n], "STOPPING=1")
    # no datagram from any other process (jobs, step daemons): the daemons
    # take $NOTIFY_SOCKET out of the environment of what they start
    assert {p for p, _ in ns.got} <= set(pids.values()), ns.got
    ns.close()


def test_installed_rotactld_from_unit_command_line(installed, notify_dir):
    """The installed rotactld, run as its unit's ExecStart says (SLURM_CONF
    from the environment file), tells systemd it is ready, serves, and says
    STOPPING=1 on SIGTERM, then exits 0."""
    c = Cluster(os.path.join(notify_dir, "cluster"), ("--nodes", "1"))
    c.up()
    c.down()  # a slurm.conf and a state directory for the installed daemon
    unit = unit_values(installed / "usr/local/lib/systemd/system/rotactld.service")
    argv = unit["ExecStart"][0].replace("$ROTACTLD_OPTIONS", "").split()
    argv[0] = str(installed) + argv[0]
    ns = NotifySocket(os.path.join(notify_dir, "notify"))
    env = {**_clean_env(), "SLURM_CONF": c.conf_path, "NOTIFY_SOCKET": ns.path}
    log = open(os.path.join(notify_dir, "rotactld.out"), "w")
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT, cwd=notify_dir)
    try:
        ns.wait(proc.pid, "READY=1")
        cli = {**_clean_env(), "SLURM_CONF": c.conf_path}
        p = subprocess.run([str(installed / "usr/local/bin/squeue"), "-h"],
                           capture_output=True, text=True, timeout=30, env=cli)
        assert p.returncode == 0, p.stderr
        proc.send_signal(signal.SIGTERM)
        ns.wait(proc.pid, "STOPPING=1")
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
        ns.close()


def test_sigusr2_reopens_every_daemons_log(notify_dir):
    """logrotate's postrotate sends SIGUSR2 to each daemon: each writes on in a
    new file (rotactld's own test is in test_ctld_admin.py)."""
    c = Cluster(os.path.join(notify_dir, "cluster"), ("--nodes", "1"))
    c.up()
    try:
        logs = {name: os.path.join(c.dir, "log", name + ".log")
                for name in ("rotad-node01", "rotadbd")}
        for name, log in logs.items():
            os.rename(log, log + ".1")
            os.kill(c.pid(name), signal.SIGUSR2)
        for name, log in logs.items():
            c.wait_for(lambda log=log: os.path.exists(log), what=f"a new {log}")
        # rotad writes what it does next in the new file
        p = c.run("srun -N1 true", check=True, timeout=60)
        assert p.returncode == 0
        log = logs["rotad-node01"]
        c.wait_for(lambda: "rotastepd started" in open(log).read(),
                   what="a step logged in the new rotad log")
    finally:
        _stop(c)


# ---- the Debian package ----

@pytest.fixture(scope="module")
def deb(tmp_path_factory):
    if not shutil.which("dpkg-deb"):
        pytest.skip("no dpkg-deb")
    out = tmp_path_factory.mktemp("deb")
    p = subprocess.run([str(REPO / "scripts/build-deb.sh"), str(out)], capture_output=True,
                       text=True, timeout=300, env={**_clean_env(), "BUILD": str(BUILD)},
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    path = pathlib.Path(p.stdout.strip().splitlines()[-1])
    assert path.is_file() and path.suffix == ".deb"
    return path


def dpkg_root(root, *args):
    """dpkg on a scratch root (its own database; maintainer scripts run
    outside a chroot with DPKG_ROOT set, as in a bootstrap)."""
    return subprocess.run(["dpkg", f"--root={root}", "--log=/dev/null",
                           "--force-script-chrootless", *args],
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


@pytest.mark.skipif(os.geteuid() != 0, reason="dpkg --root needs root")
def test_debian_package_installs_and_daemons_start(deb, notify_dir, tmp_path):
    """scripts/build-deb.sh makes a package that dpkg installs into a fresh
    root with Debian's paths; its Depends name the packages of every library
    the programs load; the installed rotactld, run as its unit's ExecStart
    says, serves; and removing the package leaves nothing behind."""
    info = subprocess.run(["dpkg-deb", "-f", str(deb), "Package", "Depends"],
                          capture_output=True, text=True, check=True).stdout
    assert "Package: rota" in info
    depends = {d.split()[0] for d in info.split("Depends:", 1)[1].split(",")}
    root = tmp_path / "root"
    for d in ("info", "updates", "triggers"):
        (root / "var/lib/dpkg" / d).mkdir(parents=True)
    (root / "var/lib/dpkg/status").touch()
    (root / "var/lib/dpkg/available").touch()
    # the libraries are the host's (a scratch root has none): dependencies
    # are checked below against what the programs load
    p = dpkg_root(root, "--force-depends", "-i", str(deb))
    assert p.returncode == 0, p.stdout + p.stderr
    p = dpkg_root(root, "-s", "rota")
    assert "Status: install ok installed" in p.stdout
    for f in ("usr/sbin/rotactld", "usr/sbin/rotad", "usr/sbin/rotadbd", "usr/bin/rota",
              "lib/systemd/system/rotactld.service", "etc/default/rotad"):
        assert (root / f).exists(), f
    assert os.readlink(root / "usr/bin/sbatch") == "rota"
    # every shared library a program loads comes from a package in Depends
    for prog in ("usr/sbin/rotactld", "usr/sbin/rotad", "usr/sbin/rotadbd", "usr/bin/rota"):
        libs = re.findall(r"=> (/\S+)", subprocess.run(
            ["ldd", str(root / prog)], capture_output=True, text=True).stdout)
        for lib in libs:
            q = subprocess.run(["dpkg", "-S", os.path.realpath(lib)],
                               capture_output=True, text=True)
            if q.returncode != 0:  # merged /usr: the package names /lib
                q = subprocess.run(["dpkg", "-S", lib], capture_output=True, text=True)
            pkg = q.stdout.split(":")[0]
            assert pkg in depends, f"{prog} loads {lib} of {pkg}, not in Depends {depends}"

    # the daemon starts from the installed unit's command line
    c = Cluster(os.path.join(notify_dir, "cluster"), ("--nodes", "1"))
    c.up()
    c.down()
    unit = unit_values(root / "lib/systemd/system/rotactld.service")
    argv = unit["ExecStart"][0].replace("$ROTACTLD_OPTIONS", "").split()
    assert argv[0] == "/usr/sbin/rotactld"
    argv[0] = str(root) + argv[0]
    ns = NotifySocket(os.path.join(notify_dir, "notify"))
    env = {**_clean_env(), "SLURM_CONF": c.conf_path, "NOTIFY_SOCKET": ns.path}
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ns.wait(proc.pid, "READY=1")
        p = subprocess.run([str(root / "usr/bin/sinfo"), "-h", "-o", "%D"],
                           capture_output=True, text=True, timeout=30,
                           env={**_clean_env(), "SLURM_CONF": c.conf_path})
        assert p.returncode == 0 and p.stdout.strip() == "1", p.stderr
        proc.send_signal(signal.SIGTERM)
        ns.wait(proc.pid, "STOPPING=1")
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        ns.close()

    p = dpkg_root(root, "--purge", "rota")
    assert p.returncode == 0, p.stdout + p.stderr
    left = [str(f.relative_to(root)) for f in root.rglob("*")
            if not f.is_dir() and not str(f.relative_to(root)).startswith("var/")]
    assert left == []
