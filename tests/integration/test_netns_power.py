"""Power saving on hosts (issue 14, point 7): a `rota up --netns` cluster
(control, node01, node02 as network namespaces on a bridge) whose
SuspendProgram stops a node host's rotad and whose ResumeProgram starts it
again in that host's namespace (`rota exec --host`), as a cloud site's
programs stop and start instances.  Idle, the cluster shrinks to the control
host alone (both nodes idle~, no rotad left in their namespaces); a job for
two nodes grows it again: it waits CONFIGURING on nodes alloc# while they
boot (mix#: it has one CPU of each node's two), then runs across both hosts; idle again, the nodes power down again.
"""

import os
import re
import shutil
import subprocess
import tempfile

import pytest

from conftest import BIN, ROTA, wait_until, write_script
from test_netns import IP, NetnsCluster, _skip_reason
from test_netns_failures import _rota, _set_conf
from test_power_save import SUSPEND  # stops the node's rotad by its pid file

pytestmark = pytest.mark.skipif(_skip_reason() is not None,
                                reason=_skip_reason() or "")

# the node's rotad started on its own host, as `rota up` starts it
RESUME = """#!/bin/sh
D={dir}
echo "$1" >> $D/resume.log
sleep 2  # an instance booting
for n in $({bin}/scontrol show hostnames "$1"); do
    setsid {rota} exec --dir $D --host $n -- {bin}/rotad -f $D/slurm.conf -N $n \\
        </dev/null >>$D/log/rotad-$n.out 2>&1 &
    echo $! > $D/run/rotad-$n.pid
done
"""


@pytest.fixture(scope="module")
def cloud():
    d = tempfile.mkdtemp(prefix="rota-netpower-")
    os.chmod(d, 0o755)
    try:
        p = _rota("up", "--netns", "--nodes", "2", "--cpus", "2", "--mem",
                  "2048", "--dir", d)
        assert p.returncode == 0, p.stdout + p.stderr
        p = _rota("down", "--dir", d)
        assert p.returncode == 0, p.stderr
        write_script(os.path.join(d, "suspend.sh"), SUSPEND.format(dir=d, bin=BIN))
        write_script(os.path.join(d, "resume.sh"),
                     RESUME.format(dir=d, bin=BIN, rota=ROTA))
        _set_conf(os.path.join(d, "slurm.conf"),
                  SuspendProgram=f"{d}/suspend.sh", ResumeProgram=f"{d}/resume.sh",
                  SuspendTime=3, SuspendTimeout=2, ResumeTimeout=60)
        p = _rota("up", "--dir", d)
        assert p.returncode == 0, p.stdout + p.stderr
        yield NetnsCluster(d)
    finally:
        _rota("down", "--dir", d)
        shutil.rmtree(d, ignore_errors=True)


def _ok(c, cmd, timeout=60):
    p = c.on("control", cmd, timeout=timeout)
    assert p.returncode == 0, f"{cmd}: {p.stdout}{p.stderr}\n{c.logs()}"
    return p.stdout


def _sinfo(c):
    return dict(l.split() for l in _ok(c, "sinfo -h -N -o '%N %t'").splitlines())


def _daemons_on(c, host):
    """The names of the processes in host's network namespace."""
    p = subprocess.run([IP, "netns", "pids", c.ns(host)], capture_output=True,
                       text=True)
    names = set()
    for pid in p.stdout.split():
        try:
            names.add(open(f"/proc/{pid}/comm").read().strip())
        except OSError:
            pass
    return names


def _logged(c, name):
    path = os.path.join(c.dir, name)
    if not os.path.exists(path):
        return []
    out = []
    for line in open(path).read().split():
        out += _ok(c, f"scontrol show hostnames '{line}'").split()
    return out


def _wait_shrunk(c, timeout=30):
    wait_until(lambda: _sinfo(c) == {"node01": "idle~", "node02": "idle~"},
               timeout, "both nodes powered down", interval=0.3,
               detail=lambda: f"{_sinfo(c)}\n{c.logs()}")
    wait_until(lambda: "rotad" not in _daemons_on(c, "node01") |
               _daemons_on(c, "node02"), 10, "no rotad left on the node hosts")


def test_idle_cluster_shrinks_to_the_control_host(cloud):
    c = cloud
    _wait_shrunk(c)
    assert sorted(_logged(c, "suspend.log")) == ["node01", "node02"]
    assert "munged" in _daemons_on(c, "node01")  # the host is there, its rotad not
    out = _ok(c, "scontrol show node node01")
    assert "State=IDLE+POWERED_DOWN" in out, out


def test_work_grows_the_cluster_and_idle_shrinks_it(cloud):
    c = cloud
    _wait_shrunk(c)
    work = os.path.join(c.dir, "work")
    os.makedirs(work, exist_ok=True)
    out = _ok(c, f"sbatch -N2 --ntasks-per-node=1 -o {work}/grow-%j.out "
                 "--wrap 'srun -l hostname'")
    job = re.match(r"Submitted batch job (\d+)", out).group(1)
    seen = set()

    def booting():
        st = _ok(c, f"squeue -h -j {job} -o %t").strip()
        seen.add((st, tuple(sorted(_sinfo(c).values()))))
        return ("CF", ("mix#", "mix#")) in seen  # one CPU of two on each
    wait_until(booting, 20, "the job CF on nodes mix#", interval=0.2,
               detail=lambda: f"{seen}\n{c.logs()}")
    wait_until(lambda: _ok(c, f"squeue -h -j {job} -o %t").strip() not in
               ("CF", "R", "CG"), 90, "the job done", interval=0.5, detail=c.logs)
    st = _ok(c, f"scontrol show job {job}")
    assert "JobState=COMPLETED" in st, st + c.logs()
    assert sorted(_logged(c, "resume.log")) == ["node01", "node02"]
    with open(f"{work}/grow-{job}.out") as f:
        assert sorted(f.read().splitlines()) == ["0: node01", "1: node02"]
    # idle again: both powered down again, their daemons stopped
    _wait_shrunk(c)
    assert sorted(_logged(c, "suspend.log")) == ["node01", "node01", "node02",
                                                 "node02"]
