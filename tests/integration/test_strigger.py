"""strigger: event triggers kept by the controller and run on its host
(Slurm 22.05's command, output and messages).

Each test's trigger program appends "<its arguments>" to a log in the test's
work directory; the controller looks for events every second, so a fired
trigger shows there within a few seconds.
"""

import os
import re
import time

import pytest

from conftest import IS_ROOT, write_script

HEADER = ("TRIG_ID RES_TYPE   RES_ID TYPE                                OFFSET USER     "
          "FLAGS PROGRAM\n")


def _program(cluster, name="trig.sh"):
    log = cluster.work / (name + ".log")
    prog = write_script(cluster.work / name,
                        f"#!/bin/sh\necho \"$(id -un) $*\" >> {log}\n")
    return prog, log


def _fired(cluster, log, lines, timeout=30):
    def enough():
        return log.exists() and len(log.read_text().splitlines()) >= lines or None
    cluster.wait_for(enough, timeout=timeout, what=f"{lines} trigger run(s) in {log}")
    return log.read_text().splitlines()


def _clear_all(cluster):
    cluster.run(["strigger", "--clear", "--user=0", "-Q"])


@pytest.fixture
def tcluster(cluster):
    _clear_all(cluster)
    yield cluster
    _clear_all(cluster)
    for n in ("node01", "node02", "node03", "node04"):
        cluster.run(["scontrol", "update", f"nodename={n}", "state=resume"])


def test_node_down_and_up(tcluster):
    """--down on every node fires once with the node that went down; --up
    on one node with PERM fires each time it comes back, and stays listed;
    --get shows both in Slurm's layout."""
    c = tcluster
    prog, log = _program(c)
    p = c.run(["strigger", "--set", "--node", "--down", f"--program={prog}"])
    assert p.returncode == 0, p.stderr
    p = c.run(["strigger", "--set", "-nnode03", "--up", "--flags=PERM",
               f"--program={prog} back"])
    assert p.returncode == 0, p.stderr
    p = c.run(["strigger", "--get"], check=True)
    rows = p.stdout.splitlines()
    assert p.stdout.startswith(HEADER)
    assert re.fullmatch(r" +(\d+) node +\* down +0 root +" + re.escape(str(prog)),
                        rows[1]), p.stdout
    assert re.fullmatch(r" +(\d+) node +node03 up +0 root +PERM +" +
                        re.escape(f"{prog} back"), rows[2]), p.stdout
    c.run(["scontrol", "update", "nodename=node03", "state=down", "reason=t"],
          check=True)
    assert _fired(c, log, 1) == ["root node03"]
    c.run(["scontrol", "update", "nodename=node03", "state=resume"], check=True)
    assert _fired(c, log, 2)[1] == "root back node03"
    # the down trigger went with its run; PERM stays, and fires again
    p = c.run(["strigger", "--get", "-N"], check=True)
    assert len(p.stdout.splitlines()) == 1 and " up " in p.stdout
    c.run(["scontrol", "update", "nodename=node03", "state=down", "reason=t"],
          check=True)
    time.sleep(2)
    c.run(["scontrol", "update", "nodename=node03", "state=resume"], check=True)
    assert _fired(c, log, 3)[2] == "root back node03"


def test_job_time_and_fini(tcluster):
    """--time with a negative offset fires before the limit, --fini when the
    job ends; each with the job id; both go away afterwards."""
    c = tcluster
    prog, log = _program(c)
    jobid = c.sbatch("-t", "2", "--wrap", "sleep 8")
    c.run(["strigger", "--set", f"--jobid={jobid}", "--time", "--offset=-115",
           f"--program={prog} time"], check=True)
    c.run(["strigger", "--set", f"--jobid={jobid}", "--fini",
           f"--program={prog} fini"], check=True)
    p = c.run(["strigger", "--get", f"--jobid={jobid}", "--fini", "-N"], check=True)
    assert len(p.stdout.splitlines()) == 1 and " fini " in p.stdout
    assert _fired(c, log, 2, timeout=60) == [f"root time {jobid}", f"root fini {jobid}"]
    c.wait_for(lambda: c.run(["strigger", "--get"]).stdout == "" or None,
               what="the job's triggers to go")


def test_idle_drained_and_reconfig(tcluster):
    """--idle fires for a node idle at least --offset seconds, --drained when
    a node drains, --reconfig after scontrol reconfigure."""
    c = tcluster
    prog, log = _program(c)
    c.run(["strigger", "--set", "-nnode04", "--idle", "--offset=2",
           f"--program={prog} idle"], check=True)
    assert _fired(c, log, 1) == ["root idle node04"]
    c.run(["strigger", "--set", "--drained", f"--program={prog} drained"], check=True)
    c.run(["scontrol", "update", "nodename=node02", "state=drain", "reason=t"],
          check=True)
    assert _fired(c, log, 2)[1] == "root drained node02"
    c.run(["strigger", "--set", "--reconfig", f"--program={prog} reconfig"], check=True)
    c.run(["scontrol", "reconfigure"], check=True)
    assert _fired(c, log, 3)[2].startswith("root reconfig")


def test_errors_in_slurms_words(tcluster):
    c = tcluster
    prog, _ = _program(c)
    cases = [
        (["--get", "--set"], "strigger: error: You must use exactly one of the "
                             "following options: --set, --get or --clear\n"),
        (["--clear"], "strigger: error: You must specify a --id, --jobid, or --user to "
                      "clear\n"),
        (["--set", "--down"], "strigger: error: You must specify a --program value\n"),
        (["--set", "--fini", f"--program={prog}"],
         "strigger: error: You must specify a --jobid value\n"),
        (["--set", "--down", "--program=trig.sh"],
         "strigger: error: The --program value must start with \"/\"\n"),
        (["--set", "--down", "--program=/no/such"],
         "strigger: error: Invalid --program value, file not found\n"),
        (["--set", "--down", "--offset=40000", f"--program={prog}"],
         "strigger: error: The --offset parameter must be between +/-32000\n"),
        (["--set", "--jobid=999999", "--fini", f"--program={prog}"],
         "slurm_set_trigger: Invalid job id specified\n"),
        (["--set", "-nnosuch", "--down", f"--program={prog}"],
         "slurm_set_trigger: Invalid node name specified\n"),
        (["--clear", "--id=99999"], "slurm_clear_trigger: No such process\n"),
        (["--set", "--primary_database_failure", f"--program={prog}"],
         "strigger: error: --primary_database_failure: Rota does not watch for this "
         "event\n"),
    ]
    for args, err in cases:
        p = c.run(["strigger", *args])
        assert (p.returncode, p.stderr) == (1, err), args
    assert c.run(["strigger", "--clear", "--id=99999", "-Q"]).returncode == 0
    c.run(["strigger", "--set", "--down", f"--program={prog}"], check=True)
    p = c.run(["strigger", "--set", "--down", f"--program={prog}"])
    assert (p.returncode, p.stderr) == (1, "slurm_set_trigger: Duplicate event trigger\n")
    os.chmod(prog, 0o644)
    p = c.run(["strigger", "--set", "--up", f"--program={prog}"])
    assert (p.returncode, p.stderr) == (1, "slurm_set_trigger: Access/permission denied\n")


def test_slurmdbd_and_controller_events(tcluster):
    """--primary_slurmdbd_failure fires when rotadbd stops following the
    controller, --primary_slurmdbd_resumed_operation when it follows again,
    --primary_slurmctld_resumed_operation when the primary starts serving."""
    c = tcluster
    prog, log = _program(c)
    for opt, word in (("--primary_slurmdbd_failure", "dbdfail"),
                      ("--primary_slurmdbd_resumed_operation", "dbdback"),
                      ("--primary_slurmctld_resumed_operation", "ctldback")):
        p = c.run(["strigger", "--set", opt, f"--program={prog} {word}"])
        assert p.returncode == 0, (opt, p.stderr)
    rows = c.run(["strigger", "--get"], check=True).stdout
    assert re.search(r"^\s*\d+ slurmdbd\s+\* +primary_slurmdbd_failure\s", rows, re.M), rows
    c.kill_daemon("rotadbd")
    assert _fired(c, log, 1) == ["root dbdfail"]
    c.up()
    assert _fired(c, log, 2)[1] == "root dbdback"
    c.kill_daemon("rotactld")
    c.up()
    assert _fired(c, log, 3)[2] == "root ctldback"
    # each fired once and is gone (none was PERM)
    assert "primary_" not in c.run(["strigger", "--get"], check=True).stdout


def test_triggers_survive_a_restart(tcluster):
    c = tcluster
    prog, _ = _program(c)
    c.run(["strigger", "--set", "-nnode01", "--down", f"--program={prog}"], check=True)
    before = c.run(["strigger", "--get"], check=True).stdout
    c.down()
    c.up()
    assert c.run(["strigger", "--get"], check=True).stdout == before
    # and from a compacted journal (the snapshot writes them too)
    c.compact_journal()
    c.kill_daemon("rotactld")
    c.up()
    assert c.run(["strigger", "--get"], check=True).stdout == before


@pytest.mark.skipif(not IS_ROOT, reason="needs root to create test users")
def test_runs_as_the_user_who_set_it(ucluster, users):
    """A user's trigger runs as that user; another user cannot clear it."""
    from unixusers import as_user

    c = ucluster
    _clear_all(c)
    a, b = users["a"], users["b"]
    prog, log = _program(c, "user_trig.sh")
    os.chmod(c.work, 0o777)
    p = as_user(c, a, "sbatch --parsable --wrap 'sleep 1'", cwd=c.work)
    jobid = int(p.stdout.strip())
    p = as_user(c, a, f"strigger --set --jobid={jobid} --fini --program={prog}",
                cwd=c.work)
    assert p.returncode == 0, p.stderr
    p = as_user(c, b, f"strigger --clear --jobid={jobid}", cwd=c.work)
    assert (p.returncode, p.stderr) == (1, "slurm_clear_trigger: Access/permission "
                                           "denied\n")
    assert _fired(c, log, 1, timeout=60) == [f"{a.name} {jobid}"]


def test_node_fail(tcluster):
    """scontrol update State=FAIL (a reason needed): no new job there, the
    running one goes on, sinfo says failg/fail, strigger --fail fires with
    the node; RESUME ends it."""
    c = tcluster
    prog, log = _program(c)
    c.run(["strigger", "--set", "--fail", f"--program={prog}"], check=True)
    jid = c.sbatch("-w", "node03", "-o", "/dev/null", "--wrap", "sleep 300")
    c.wait_running(jid)
    p = c.run(["scontrol", "update", "nodename=node03", "state=fail"])
    assert p.returncode != 0 and "You must specify a reason" in p.stderr, p.stderr
    c.run(["scontrol", "update", "nodename=node03", "state=fail", "reason=disk"],
          check=True)
    assert _fired(c, log, 1) == ["root node03"]
    st = lambda: c.run(["sinfo", "-h", "-n", "node03", "-o", "%t"]).stdout.strip()
    assert st() in ("failg", "fail")
    assert c.job_state(jid) == "RUNNING"
    assert "State=MIXED+FAIL" in c.run(["scontrol", "show", "node", "node03"]).stdout or \
        "State=ALLOCATED+FAIL" in c.run(["scontrol", "show", "node", "node03"]).stdout
    assert c.run(["sinfo", "-h", "-t", "fail", "-o", "%N"]).stdout.strip() == "node03"
    other = c.sbatch("-w", "node03", "-o", "/dev/null", "--wrap", "true")
    time.sleep(2)
    assert c.job_state(other) == "PENDING"
    c.run(["scancel", str(jid)], check=True)
    c.wait_for(lambda: st() == "fail" or None, what="an idle failed node")
    assert c.job_state(other) == "PENDING"
    c.run(["scontrol", "update", "nodename=node03", "state=resume"], check=True)
    assert c.wait_job(other) == "COMPLETED"
