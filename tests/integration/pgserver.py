"""A throwaway PostgreSQL for the accounting tests: initdb + pg_ctl in a temp
dir, its unix socket in that dir, no TCP listener, scram passwords (so
StoragePass is really checked).  initdb refuses root: as root the server runs
as Debian's `postgres` user, which owns the dir.

Not installed is a failure, not a skip: scripts/install-deps.sh installs
`postgresql`, and CI must run the pgsql variants."""
import glob
import os
import pwd
import shutil
import subprocess
import tempfile

import pytest

USER = "rota"
PASSWORD = "rota-test-pw"


def _bindir():
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                  key=lambda d: int(d.split("/")[-2].split(".")[0]))
    dirs = [d for d in dirs if os.access(os.path.join(d, "initdb"), os.X_OK)]
    if not dirs:
        pytest.fail("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): "
                    "run scripts/install-deps.sh (Debian package postgresql)")
    return dirs[-1]


class PgServer:
    def __init__(self):
        self.bin = _bindir()
        self.dir = tempfile.mkdtemp(prefix="rota-pg-",
                                    dir=os.environ.get("ROTA_TEST_TMP", "/tmp"))
        self.data = os.path.join(self.dir, "data")
        self.prefix = []
        if os.geteuid() == 0:
            try:
                pg = pwd.getpwnam("postgres")
            except KeyError:
                pytest.fail("running as root and no `postgres` user to run "
                            "PostgreSQL as (Debian's postgresql package makes it)")
            os.chown(self.dir, pg.pw_uid, pg.pw_gid)
            self.prefix = ["runuser", "-u", "postgres", "--"]
        os.chmod(self.dir, 0o700 if not self.prefix else 0o711)
        self.started = False
        self.databases = 0

    def _run(self, *cmd, input=None):
        p = subprocess.run([*self.prefix, *cmd], capture_output=True, text=True,
                           input=input, timeout=120, cwd=self.dir)
        assert p.returncode == 0, f"{cmd[0]} failed: {p.stdout}\n{p.stderr}"
        return p.stdout

    def start(self):
        pwfile = os.path.join(self.dir, "pw")
        with open(pwfile, "w") as f:
            f.write(PASSWORD + "\n")
        if self.prefix:
            shutil.chown(pwfile, "postgres")
        self._run(f"{self.bin}/initdb", "-D", self.data, "-U", USER,
                  f"--pwfile={pwfile}", "--auth-local=scram-sha-256",
                  "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8")
        os.unlink(pwfile)
        self._start()

    def _start(self):
        # fsync off: the tests kill rotadbd, and the server only with -m
        # immediate, the machine never
        self._run(f"{self.bin}/pg_ctl", "-D", self.data, "-l",
                  os.path.join(self.dir, "log"), "-w", "-o",
                  f"-k {self.dir} -c listen_addresses= -c fsync=off "
                  "-c max_connections=40", "start")
        self.started = True

    def crash(self):
        """Stop the server as a crash would (-m immediate)."""
        self._run(f"{self.bin}/pg_ctl", "-D", self.data, "-m", "immediate", "stop")
        self.started = False

    def restart(self):
        """A crash, and the server started again."""
        self.crash()
        self._start()

    def stop(self):
        try:
            if self.started:
                self.crash()
        finally:
            if not os.environ.get("ROTA_KEEP"):
                shutil.rmtree(self.dir, ignore_errors=True)

    def new_database(self):
        """A name no cluster used yet: rotadbd creates it."""
        self.databases += 1
        return f"acct{self.databases}"

    def slurmdbd_conf(self, database):
        return ("StorageType=accounting_storage/pgsql\n"
                f"StorageHost={self.dir}\n"
                "StoragePort=5432\n"
                f"StorageUser={USER}\n"
                f"StoragePass={PASSWORD}\n"
                f"StorageLoc={database}\n")

    def psql(self, database, sql):
        """One query's rows, as text lines (psql -At)."""
        env = dict(os.environ, PGPASSWORD=PASSWORD)
        p = subprocess.run([f"{self.bin}/psql", "-h", self.dir, "-U", USER, "-d",
                            database, "-At", "-c", sql], capture_output=True,
                           text=True, timeout=60, env=env)
        assert p.returncode == 0, p.stderr
        return p.stdout.splitlines()
