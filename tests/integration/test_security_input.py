"""Hostile input is refused or made harmless, quietly (issue 8, point 8).

- Log lines cannot be forged: every control character a user puts into a string
  that reaches a daemon's log (a dependency, a job name) is written escaped
  ("\\n", "\\x1b"), so every line of every log starts with a timestamp.
- Job names, comments and the other short strings of a request with control
  characters are refused at the controller ("Invalid job name: control
  character at position N"), at submit and at scontrol update.  Slurm takes any
  byte there; Rota does not, as a newline breaks every line-oriented consumer.
- -w/-x host lists are checked at submit, by the CLI (syntax, HOSTLIST_MAX
  names) and by the controller (every name a node), at once and with nothing
  created; a list naming a node twice is kept with each name once.
- --gres for a GRES no node of the partition has is refused with Slurm's
  "Invalid generic resource (gres) specification"; a configured one places the
  job on a node that has it.
- A state directory made under umask 077 still lets other users reach the
  controller, and a client that cannot reach the socket says so.
"""

import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import Cluster, _mkdtemp, _stop
from unixusers import as_user, needs_root

FORGED = "[2026-01-01T00:00:00.000] rotactld: error: FORGED"
LINE_START = re.compile(r"^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\] \w+: \w+: ")


def log_lines(cluster):
    logdir = os.path.join(cluster.dir, "log")
    lines = []
    for name in sorted(os.listdir(logdir)):
        with open(os.path.join(logdir, name), errors="replace") as f:
            lines += [(name, line.rstrip("\n")) for line in f]
    return lines


def queued(cluster):
    p = cluster.run(["squeue", "-h", "-t", "all", "-o", "%i"])
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def test_log_lines_cannot_be_forged(cluster):
    # scontrol update checks a new dependency (and logs why it is bad) before
    # the control characters; whatever else reaches a log is escaped the same
    j = cluster.sbatch("-H", "--wrap", "true")
    for spec in (f"x\n{FORGED}:1", f"afterok:1\n{FORGED}", "singleton,\x1b[2J"):
        p = cluster.run(["scontrol", "update", f"JobId={j}", f"Dependency={spec}"])
        assert (p.returncode, p.stderr) == (
            1, "slurm_update error: Job dependency problem\n"), spec
    assert cluster.job_field(j, "Dependency") == "(null)"
    lines = log_lines(cluster)
    bad = [(n, line) for n, line in lines if not LINE_START.match(line)]
    assert not bad, bad
    text = "\n".join(line for _, line in lines)
    assert "\x1b" not in text
    assert "update refused: unknown dependency type \"x\\n[2026-01-01T00\"" in text
    assert "\\x1b[2J" in text


def test_control_characters_refused(cluster):
    before = queued(cluster)
    cases = [
        (["sbatch", "-J", "a\nb", "--wrap", "true"],
         "sbatch: error: Batch job submission failed: Invalid job name: control "
         "character at position 2\n"),
        (["sbatch", "--comment", "ok\x1b[31mred", "--wrap", "true"],
         "sbatch: error: Batch job submission failed: Invalid comment: control "
         "character at position 3\n"),
        (["srun", "-J", "a\tb", "true"],
         "srun: error: Unable to allocate resources: Invalid job name: control "
         "character at position 2\n"),
        (["sbatch", f"--dependency=afterok:1\n{FORGED}", "--wrap", "true"],
         "sbatch: error: Batch job submission failed: Invalid dependency: "
         "control character at position 10\n"),
        (["salloc", "-J", "\x7f", "true"],
         "salloc: error: Job submit/allocate failed: Invalid job name: control "
         "character at position 1\n"),
    ]
    for argv, err in cases:
        p = cluster.run(argv, timeout=30)
        assert (p.returncode, p.stderr) == (1, err), argv
    p = cluster.run(["sbatch", "-o", "out\r.txt", "--wrap", "true"])
    assert p.returncode == 1
    assert re.fullmatch(r"sbatch: error: Batch job submission failed: Invalid stdout "
                        r"path: control character at position \d+\n", p.stderr)
    assert queued(cluster) == before

    # printable UTF-8 is a name like any other
    j = cluster.sbatch("-H", "-J", "naïve name", "--comment", "fine, thanks",
                       "--wrap", "true")
    for kv in ("Name=x\ny", "Comment=a\x1bb", "JobName=\x01"):
        p = cluster.run(["scontrol", "update", f"JobId={j}", kv])
        assert (p.returncode, p.stderr) == (
            1, "slurm_update error: Invalid argument\n"), kv
    p = cluster.run(["squeue", "-h", "-j", str(j), "-o", "%j|%k"])
    assert p.stdout == "naïve name|fine, thanks\n"


def test_hostlists_checked_at_submit(cluster):
    before = queued(cluster)
    huge = "node[0-99999999]"
    too_many = (f"Invalid node name specified: host list '{huge}' expands to "
                f"more than 65536 names\n")
    for argv in (["sbatch", "-x", huge, "--wrap", "true"],
                 ["sbatch", f"--exclude={huge}", "--wrap", "true"],
                 ["sbatch", "-w", huge, "--wrap", "true"],
                 ["srun", f"--nodelist={huge}", "true"],
                 ["salloc", "-x", huge, "true"]):
        p = cluster.run(argv, timeout=30)
        assert (p.returncode, p.stderr) == (1, f"{argv[0]}: error: {too_many}"), argv

    # what parses but names nodes that do not exist is the controller's to
    # refuse, at once and whole (60,000 names against a 4-node table)
    for argv in (["sbatch", "-x", "node[05-60000]", "--wrap", "true"],
                 ["sbatch", "-x", "node01,nosuch", "--wrap", "true"],
                 ["sbatch", "-w", "node[01-60000]", "--wrap", "true"]):
        t0 = time.monotonic()
        p = cluster.run(argv, timeout=30)
        assert time.monotonic() - t0 < 10
        assert (p.returncode, p.stderr) == (
            1, "sbatch: error: Batch job submission failed: Invalid node name "
               "specified\n"), argv
    assert queued(cluster) == before

    # a node named twice is kept once; the exclusion holds
    j = cluster.sbatch("-x", "node01,node02,node01,node[01-02]", "-N", "2",
                       "--wrap", "true")
    assert cluster.job_field(j, "ExcNodeList") == "node[01-02]"
    assert cluster.wait_job(j) == "COMPLETED"
    assert cluster.job_field(j, "NodeList") == "node[03-04]"

    held = cluster.sbatch("-H", "--wrap", "true")
    for kv in (f"ExcNodeList={huge}", f"NodeList={huge}", "ExcNodeList=node[05-60000]"):
        p = cluster.run(["scontrol", "update", f"JobId={held}", kv])
        assert (p.returncode, p.stderr) == (
            1, "slurm_update error: Invalid node name specified\n"), kv
    assert cluster.job_field(held, "ExcNodeList") == "(null)"
    p = cluster.run(["scontrol", "update", f"JobId={held}",
                     "ExcNodeList=" + ",".join(["node02", "node01"] * 500)])
    assert (p.returncode, p.stderr) == (0, "")
    assert cluster.job_field(held, "ExcNodeList") == "node[02,01]"


def test_gres_not_configured_is_refused(cluster):
    before = queued(cluster)
    msg = "Invalid generic resource (gres) specification"
    for argv, err in (
            (["sbatch", "--gres=gpu:1", "--wrap", "true"],
             f"sbatch: error: Batch job submission failed: {msg}\n"),
            (["sbatch", "--gres=gpu", "--wrap", "true"],
             f"sbatch: error: Batch job submission failed: {msg}\n"),
            (["srun", "--gres=gpu:tesla:1", "true"],
             f"srun: error: Unable to allocate resources: {msg}\n"),
            (["salloc", "--gres=mps:100", "true"],
             f"salloc: error: Job submit/allocate failed: {msg}\n"),
            (["sbatch", "--gres=gpu:1:2:3", "--wrap", "true"],
             "sbatch: error: Invalid --gres specification\n")):
        p = cluster.run(argv, timeout=30)
        assert (p.returncode, p.stderr) == (1, err), argv
    assert queued(cluster) == before
    j = cluster.sbatch("--gres=none", "--wrap", "true")  # Slurm's "no GRES"
    assert cluster.wait_job(j) == "COMPLETED"


def test_gres_configured_on_a_node(make_cluster):
    c = make_cluster()
    c.down()
    with open(c.conf_path) as f:
        conf = f.read()
    conf = re.sub(r"^(NodeName=node\[01-04\].*)$",
                  lambda m: m.group(1).replace("NodeName=node[01-04]",
                                               "NodeName=node[01-03]"),
                  conf, flags=re.M)
    line = re.search(r"^NodeName=node\[01-03\].*$", conf, re.M).group(0)
    port = re.search(r"Port=\[(\d+)-(\d+)\]", line)
    node04 = (line.replace("NodeName=node[01-03]", "NodeName=node04")
              .replace(port.group(0), f"Port={port.group(2)}") + " Gres=gpu:tesla:2")
    line03 = line.replace(port.group(0), f"Port=[{port.group(1)}-{int(port.group(2)) - 1}]")
    conf = conf.replace(line, line03 + "\nGresTypes=gpu\n" + node04)
    with open(c.conf_path, "w") as f:
        f.write(conf)
    c.up()
    p = c.run(["scontrol", "show", "node", "node04"])
    assert "Gres=gpu:tesla:2" in p.stdout, p.stdout

    for spec in ("gpu:1", "gpu:tesla:2", "gres/gpu", "gpu:tesla"):
        j = c.sbatch(f"--gres={spec}", "--wrap", "true")
        assert c.wait_job(j) == "COMPLETED", spec
        assert c.job_field(j, "NodeList") == "node04", spec
    for spec, err in (("gpu:3", "Requested node configuration is not available"),
                      ("gpu:k80:1", "Requested node configuration is not available"),
                      ("mps:1", "Invalid generic resource (gres) specification")):
        p = c.run(["sbatch", f"--gres={spec}", "--wrap", "true"])
        assert (p.returncode, p.stderr) == (
            1, f"sbatch: error: Batch job submission failed: {err}\n"), spec


@needs_root
def test_state_dir_reachable_and_why_not(users):
    a = users["a"]
    d = _mkdtemp()
    os.chmod(d, 0o755)
    old = os.umask(0o077)
    try:
        c = Cluster(os.path.join(d, "cluster"))
        c.up()
    finally:
        os.umask(old)
    try:
        from unixusers import user_work
        c.work = user_work()
        state = os.path.join(c.dir, "state")
        assert os.stat(state).st_mode & 0o777 == 0o755
        assert os.stat(c.conf_path).st_mode & 0o777 == 0o644
        p = as_user(c, a, "squeue -h -o %i")
        assert (p.returncode, p.stderr) == (0, ""), p.stderr

        # out of reach: the reason, then Slurm's words
        os.chmod(state, 0o700)
        sock = os.path.join(state, "rotactld.sock")
        for cmd in ("squeue", "sbatch --wrap true", "scancel 1", "scontrol hold 1"):
            p = as_user(c, a, cmd)
            assert p.returncode == 1, cmd
            lines = p.stderr.splitlines()
            assert len(lines) == 2, (cmd, p.stderr)
            assert lines[0] == (f"{cmd.split()[0]}: error: connect {sock}: "
                                "Permission denied"), (cmd, p.stderr)
            assert ("Unable to contact slurm controller (connect failure)"
                    in lines[1]), (cmd, p.stderr)
        os.chmod(state, 0o755)
        p = as_user(c, a, "squeue -h -o %i")
        assert (p.returncode, p.stderr) == (0, ""), p.stderr

        # a StateSaveLocation rotactld makes itself, under umask 077 too
        c.down()
        state2 = os.path.join(c.dir, "state2")
        with open(c.conf_path) as f:
            conf = f.read()
        with open(c.conf_path, "w") as f:
            f.write(re.sub(r"^StateSaveLocation=.*$", f"StateSaveLocation={state2}",
                           conf, flags=re.M))
        ctld = subprocess.Popen(
            ["bash", "-c", f"umask 077; exec {c.bin}/rotactld -D -f {c.conf_path}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        try:
            c.wait_for(lambda: os.path.exists(os.path.join(state2, "rotactld.sock")),
                       what="rotactld's socket")
            assert os.stat(state2).st_mode & 0o777 == 0o755
            p = as_user(c, a, "squeue -h -o %i")
            assert (p.returncode, p.stderr) == (0, ""), p.stderr
        finally:
            ctld.terminate()
            ctld.wait(timeout=30)
    finally:
        try:
            _stop(c)
        finally:
            shutil.rmtree(c.work, ignore_errors=True)
            shutil.rmtree(d, ignore_errors=True)
