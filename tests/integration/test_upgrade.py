"""Upgrading keeps the controller's state: a journal written by an earlier
version of rotactld is read by this one (doc/admin.md, "Upgrading").

tests/data/journal-<commit>/ holds a journal an earlier build wrote, with
expected.json saying what it holds.  Each release adds its own (run this
module with ROTA_WRITE_JOURNAL=tests/data/journal-$(git rev-parse --short HEAD)
against that release's build; the test then writes the fixture instead of
checking one) and keeps the older ones: every later build must read them all.
"""

import json
import os
import pathlib
import shutil

import pytest

from conftest import REPO
from test_security_journal import start_ctld, state_dir, stop_ctld

DATA = REPO / "tests" / "data"
FIXTURES = sorted(DATA.glob("journal-*/journal"))
UP_ARGS = ("--nodes", "2", "--cpus", "2", "--mem", "1024")


def jobs(c):
    """{id: (name, state, time limit, partition)} of every job squeue shows."""
    p = c.run("squeue -h -t all -o '%i|%j|%T|%l|%P'")
    assert p.returncode == 0, p.stderr
    out = {}
    for line in p.stdout.splitlines():
        i, name, state, limit, part = line.split("|")
        out[i] = [name, state, limit, part]
    return out


def write_fixture(c, where):
    """What an earlier build leaves: held jobs of several shapes, an array,
    a cancelled and a finished job, a job updated after its submission."""
    common = ("--chdir=/tmp", "-o", "/dev/null")
    c.sbatch("--hold", "-J", "held1", "-t", "10", *common, "--wrap", "true")
    c.sbatch("--hold", "-J", "held2", "-N", "2", "-t", "1:00:00", "--comment=kept",
             *common, "--wrap", "sleep 1")
    c.sbatch("--hold", "-J", "arr", "-a", "0-3%2", *common, "--wrap", "true")
    upd = c.sbatch("--hold", "-J", "upd", *common, "--wrap", "true")
    assert c.run(f"scontrol update JobId={upd} TimeLimit=7").returncode == 0
    done = c.sbatch("-J", "done", *common, "--wrap", "true")
    c.wait_job(done)
    gone = c.sbatch("--hold", "-J", "gone", *common, "--wrap", "true")
    assert c.run(f"scancel {gone}").returncode == 0
    pending = {i: v for i, v in jobs(c).items() if v[1] == "PENDING"}
    stop_ctld(c)
    where.mkdir(parents=True, exist_ok=True)
    shutil.copy(os.path.join(state_dir(c), "journal"), where / "journal")
    (where / "expected.json").write_text(json.dumps(
        {"up_args": UP_ARGS, "pending": pending}, indent=1, sort_keys=True) + "\n")


@pytest.mark.skipif(not os.environ.get("ROTA_WRITE_JOURNAL"),
                    reason="writes a fixture only when ROTA_WRITE_JOURNAL is set")
def test_write_journal_fixture(make_cluster):
    write_fixture(make_cluster(*UP_ARGS), pathlib.Path(os.environ["ROTA_WRITE_JOURNAL"]))


@pytest.mark.parametrize("journal", FIXTURES, ids=[p.parent.name for p in FIXTURES])
def test_earlier_journal_is_read(make_cluster, journal):
    expected = json.loads((journal.parent / "expected.json").read_text())
    c = make_cluster(*expected["up_args"])
    c.down()
    # the earlier controller's state, and nothing of this cluster's (rotadbd's
    # store follows the journal's history: it starts afresh too)
    sd = state_dir(c)
    for name in os.listdir(sd):
        p = os.path.join(sd, name)
        if os.path.isdir(p):
            shutil.rmtree(p)
        else:
            os.unlink(p)
    shutil.copy(journal, os.path.join(sd, "journal"))
    start_ctld(c)

    now = jobs(c)
    pending = {i: v for i, v in now.items() if v[1] == "PENDING"}
    assert pending == expected["pending"]
    skipped = [line for line in c.logs(200).splitlines()
               if "does not decode" in line or "damaged" in line]
    assert not skipped, skipped

    # the jobs it holds still work: one released runs to the end, ids go on
    first = min(expected["pending"], key=lambda i: int(i.split("_")[0]))
    assert c.run(f"scontrol release {first}").returncode == 0
    assert c.wait_job(first) == "COMPLETED"
    new = c.sbatch("--hold", "--chdir=/tmp", "-o", "/dev/null", "--wrap", "true")
    highest = max(int(i.split("_")[0]) for i in expected["pending"])
    assert new > highest, f"job id {new} handed out again"
