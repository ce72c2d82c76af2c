"""Real Unix users for identity and environment tests.

make_users() creates a supplementary group and users named rota_t<random>_<tag>
(useradd, with a home and /bin/bash, each in the group), and remove_users()
deletes them again (userdel -r, groupdel).  Only root can do this: the tests that
use them skip otherwise.

as_user() runs a shell command as one of them the way a person would: through
runuser, so the CLIs reach the controller's unix socket as that uid (rotactld
identifies callers by SO_PEERCRED), with the cluster's PATH and SLURM_CONF, in a
directory the user can reach (see user_work()).
"""

import grp
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile

import pytest

IS_ROOT = os.geteuid() == 0
HAVE_TOOLS = all(shutil.which(t) for t in ("useradd", "userdel", "groupadd",
                                           "groupdel", "runuser"))
needs_root = pytest.mark.skipif(not (IS_ROOT and HAVE_TOOLS),
                                reason="needs root and useradd/runuser to create "
                                       "and become test users")


class UnixUser:
    def __init__(self, name, group):
        pw = pwd.getpwnam(name)
        self.name = name
        self.uid = pw.pw_uid
        self.gid = pw.pw_gid
        self.home = pw.pw_dir
        self.group = group  # the supplementary group's name
        self.groups = sorted(os.getgrouplist(name, pw.pw_gid))

    def __repr__(self):
        return f"UnixUser({self.name}, uid={self.uid})"


def _run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    return p


def make_users(*tags):
    """Create one user per tag, all members of one new supplementary group.
    Returns (users by tag, group name)."""
    stem = "rota_t" + secrets.token_hex(3)
    group = stem + "_g"
    p = _run("groupadd", group)
    assert p.returncode == 0, f"groupadd {group}: {p.stderr}"
    users = {}
    try:
        for tag in tags:
            name = f"{stem}_{tag}"
            p = _run("useradd", "-m", "-s", "/bin/bash", "-U", "-G", group, name)
            assert p.returncode == 0, f"useradd {name}: {p.stderr}"
            users[tag] = UnixUser(name, group)
    except BaseException:
        remove_users(users, group)
        raise
    return users, group


def remove_users(users, group):
    for u in users.values():
        _run("userdel", "-r", "-f", u.name)
    try:
        grp.getgrnam(group)
    except KeyError:
        return
    _run("groupdel", group)


def user_work(prefix="rota-uwork-"):
    """A fresh world-writable directory every test user can reach (pytest's
    tmp_path lives under a 0700 directory of root's)."""
    d = tempfile.mkdtemp(prefix=prefix, dir=os.environ.get("ROTA_TEST_TMP", "/tmp"))
    os.chmod(d, 0o777)
    return d


def as_user(cluster, user, cmd, *, cwd=None, env=None, timeout=60, input=None):
    """Run the shell command cmd as user, with the cluster's PATH and SLURM_CONF,
    in cwd (default: cluster.work).  env adds variables."""
    full_env = dict(cluster.env)
    if env:
        full_env.update(env)
    argv = ["runuser", "-u", user.name, "--", "env",
            f"SLURM_CONF={cluster.env['SLURM_CONF']}", f"PATH={cluster.env['PATH']}",
            "bash", "-c", cmd]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          input=input, cwd=str(cwd or cluster.work), env=full_env,
                          stdin=None if input is not None else subprocess.DEVNULL)


def sbatch_as(cluster, user, args, *, cwd=None, env=None):
    """sbatch ARGS (a shell-quoted string) as user; asserts success, returns the
    job id."""
    p = as_user(cluster, user, f"sbatch --parsable {args}", cwd=cwd, env=env)
    assert p.returncode == 0, f"sbatch {args} as {user.name} failed: {p.stderr}"
    assert p.stderr == "", p.stderr
    return int(p.stdout.strip())
