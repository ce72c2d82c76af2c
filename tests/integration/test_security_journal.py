"""Attacks on the controller's state (issue 8, points 4 and 5): a damaged
journal loses only the damaged record, and a full disk refuses work instead of
stopping the controller.

The journal is read here in both formats, today's ([magic][len][crc][body],
len and crc 7 bits a byte, body escaped) and the old one ([len][crc of
body][body]), so that these tests say what was lost, not only that the
controller failed to start.
"""

import glob
import os
import re
import signal
import struct
import subprocess
import time
import zlib

import pytest

from conftest import IS_ROOT

MAGIC = 0xD57A0EC1
N = 10
SUBMIT_ERR = ("sbatch: error: Batch job submission failed: "
              "I/O error writing script/environment to file")


# ---- the journal's records ----

def get35(b):
    v = 0
    for x in b:
        assert x < 0x80, "not a record header"
        v = v << 7 | x
    return v


def records(data):
    """[(offset, header bytes, body offset, body length)] of a clean journal
    (today's format: magic, then length and crc 7 bits a byte, escaped body; the
    old one: length, crc, body)."""
    out = []
    off = 0
    v0 = len(data) >= 4 and struct.unpack(">I", data[:4])[0] != MAGIC
    hdr = 8 if v0 else 14
    while off + hdr <= len(data):
        if v0:
            length, = struct.unpack(">I", data[off:off + 4])
        else:
            magic, = struct.unpack(">I", data[off:off + 4])
            assert magic == MAGIC, f"no record at {off}"
            length = get35(data[off + 4:off + 9])
        out.append((off, hdr, off + hdr, length))
        off += hdr + length
    assert off == len(data), "journal does not end on a record"
    return out


def submit_records(data):
    """Records that hold a job's submission (msgpack key 'desc' with a job
    name of ours), in file order, with the job name they carry."""
    out = []
    for off, hdr, body, length in records(data):
        m = re.search(rb"jrnl(\d+)", data[body:body + length])
        if m:
            out.append((off, body, length, int(m.group(1))))
    return out


def to_v0(data):
    """The same events in the old format."""
    out = b""
    for off, hdr, body, length in records(data):
        b = data[body:body + length]
        if hdr == 14:
            b = b.replace(b"\xd5\x00", b"\xd5")
        out += struct.pack(">II", len(b), zlib.crc32(b)) + b
    return out


# ---- the cluster ----

def state_dir(c):
    return c.conf_value("StateSaveLocation")


def journal_path(c):
    return os.path.join(state_dir(c), "journal")


def ctld_log(c):
    with open(os.path.join(c.dir, "log", "rotactld.log"), errors="replace") as f:
        return f.read()


def stop_ctld(c):
    c.kill_daemon("rotactld", signal.SIGTERM, timeout=30)


def start_ctld(c):
    c.up()
    c.wait_for(lambda: c.run("squeue -h").returncode == 0, 20, "controller up")


def queued(c):
    p = c.run("squeue -h -t all -o '%i %j'")
    assert p.returncode == 0, p.stderr
    return {int(line.split()[0]): line.split()[1] for line in p.stdout.splitlines()}


def submit_held(c, n=N):
    ids = [c.sbatch("--hold", "-J", f"jrnl{i}", "--wrap", "true") for i in range(n)]
    assert queued(c) == {j: f"jrnl{i}" for i, j in enumerate(ids)}
    return ids


def corrupt_and_restart(c, edit):
    """Stop the controller, let edit(bytes) -> bytes change the journal, start
    it again; returns (the bytes written, the log written by this start)."""
    stop_ctld(c)
    path = journal_path(c)
    with open(path, "rb") as f:
        data = f.read()
    bad = edit(data)
    with open(path, "wb") as f:
        f.write(bad)
    before = len(ctld_log(c))
    start_ctld(c)
    return bad, ctld_log(c)[before:]


def kept_aside(c):
    return sorted(glob.glob(os.path.join(state_dir(c), "journal.damaged.*")))


def assert_ids_above(c, ids):
    new = c.sbatch("--hold", "--wrap", "true")
    assert new > max(ids), f"job id {new} handed out again (acknowledged: {ids})"
    return new


# ---- point 4: a damaged journal loses only the damaged record ----

def test_flip_in_middle_loses_one_record(fresh_cluster):
    c = fresh_cluster
    ids = submit_held(c)
    victim = {}

    def flip(data):
        recs = submit_records(data)
        assert [r[3] for r in recs] == list(range(N))
        off, body, length, name = recs[N // 2]
        victim.update(off=off, name=name)
        b = bytearray(data)
        b[body + length // 2] ^= 0xFF
        return bytes(b)

    bad, log = corrupt_and_restart(c, flip)
    lost = ids[victim["name"]]
    assert queued(c) == {j: f"jrnl{i}" for i, j in enumerate(ids) if j != lost}
    # one clear line naming the damaged region, and the damaged file kept
    assert re.search(rf"journal \S+: damaged region at offset {victim['off']} "
                     r"\(\d+ bytes, about 1 record\(s\)\) skipped; the damaged "
                     r"journal is kept as \S+journal\.damaged\.", log), log
    kept = kept_aside(c)
    assert len(kept) == 1
    with open(kept[0], "rb") as f:
        assert f.read() == bad
    # the live journal was rewritten whole: no damage is found twice
    assert_ids_above(c, ids)
    stop_ctld(c)
    start_ctld(c)
    assert len(kept_aside(c)) == 1
    assert not os.path.exists(journal_path(c) + ".new")


def test_flip_in_first_record_keeps_jobs_and_ids(fresh_cluster):
    c = fresh_cluster
    ids = submit_held(c)

    def flip(data):
        b = bytearray(data)
        b[2] ^= 0xFF  # the first record's header
        return bytes(b)

    _, log = corrupt_and_restart(c, flip)
    assert queued(c) == {j: f"jrnl{i}" for i, j in enumerate(ids)}
    assert "damaged region at offset 0 " in log, log
    assert len(kept_aside(c)) == 1
    assert_ids_above(c, ids)


def test_flip_in_last_record_never_reissues_its_id(fresh_cluster):
    """The last submission's record is lost: its id was acknowledged, so the
    next job must not get it again, although no surviving record names it."""
    c = fresh_cluster
    ids = submit_held(c)

    def flip(data):
        recs = submit_records(data)
        off, body, length, name = recs[-1]
        assert name == N - 1 and body + length == len(data)
        b = bytearray(data)
        b[body + 3] ^= 0x01
        return bytes(b)

    _, log = corrupt_and_restart(c, flip)
    assert queued(c) == {j: f"jrnl{i}" for i, j in enumerate(ids[:-1])}
    assert "damaged region" in log
    assert len(kept_aside(c)) == 1
    assert_ids_above(c, ids)


def test_flip_in_last_length_never_reissues_its_id(fresh_cluster):
    """A flipped bit in the length of the last record makes it look longer than
    the file: it reads as a torn tail, and is cut off like one, yet it was
    acknowledged: its id must not be handed out again."""
    c = fresh_cluster
    ids = submit_held(c)

    def flip(data):
        off, body, length, name = submit_records(data)[-1]
        assert name == N - 1 and body + length == len(data)
        b = bytearray(data)
        # a bit that is clear: the length grows (by 128 bytes or more)
        bit = next(m for m in (1, 2, 4, 8, 16, 32, 64) if not b[off + 7] & m)
        b[off + 7] |= bit
        return bytes(b)

    corrupt_and_restart(c, flip)
    assert queued(c) == {j: f"jrnl{i}" for i, j in enumerate(ids[:-1])}
    assert_ids_above(c, ids)


def test_many_flips_lose_only_their_records(fresh_cluster):
    c = fresh_cluster
    ids = submit_held(c)
    hit = [1, 4, 7]

    def flip(data):
        b = bytearray(data)
        for off, body, length, name in submit_records(data):
            if name in hit:
                b[body + 10] ^= 0x40
        return bytes(b)

    _, log = corrupt_and_restart(c, flip)
    assert queued(c) == {j: f"jrnl{i}" for i, j in enumerate(ids) if i not in hit}
    assert log.count("damaged region at offset") == 3, log
    assert_ids_above(c, ids)


def test_torn_tail_is_silent(fresh_cluster):
    """A crash in the middle of an append leaves half a record: cut off, no
    damage reported, nothing kept aside, every job there."""
    c = fresh_cluster
    ids = submit_held(c)

    def tear(data):
        off, body, length, name = submit_records(data)[-1]
        return data + data[off:body + length // 2]

    _, log = corrupt_and_restart(c, tear)
    assert queued(c) == {j: f"jrnl{i}" for i, j in enumerate(ids)}
    assert "damaged" not in log, log
    assert kept_aside(c) == []
    assert_ids_above(c, ids)
    with open(journal_path(c), "rb") as f:
        records(f.read())  # whole records only


def test_old_format_journal_is_read_and_migrated(fresh_cluster):
    """A site upgrading keeps its jobs: a journal in the format before
    resynchronisable records is read, then rewritten in the new one."""
    c = fresh_cluster
    ids = submit_held(c)
    _, log = corrupt_and_restart(c, to_v0)
    assert queued(c) == {j: f"jrnl{i}" for i, j in enumerate(ids)}
    assert "damaged" not in log, log
    with open(journal_path(c), "rb") as f:
        assert struct.unpack(">I", f.read(4))[0] == MAGIC
    assert_ids_above(c, ids)


# ---- point 5: a full disk refuses work instead of stopping the controller ----

@pytest.fixture
def tmpfs_cluster(make_cluster):
    """A cluster whose StateSaveLocation is a 4 MiB tmpfs of its own."""
    if not IS_ROOT:
        pytest.skip("mounting a tmpfs needs root")
    c = make_cluster("--nodes", "2", "--cpus", "4", "--mem", "4096")
    c.down()
    mnt = os.path.join(c.dir, "smallfs")
    os.mkdir(mnt)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755", "tmpfs",
                        mnt], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {p.stderr.strip()}")
    try:
        old = c.conf_value("StateSaveLocation")
        for name in os.listdir(old):
            src = os.path.join(old, name)
            if os.path.isfile(src) and not name.endswith(".sock") and \
                    not name.startswith("rota_acct.db"):
                with open(src, "rb") as f, open(os.path.join(mnt, name), "wb") as g:
                    g.write(f.read())
        with open(c.conf_path) as f:
            text = f.read()
        with open(c.conf_path, "w") as f:
            f.write(text.replace(f"StateSaveLocation={old}\n",
                                 f"StateSaveLocation={mnt}\n"))
        # rotadbd's store stays on the big disk: a second writer there could
        # free the room these tests fill (its WAL shrinking)
        with open(os.path.join(os.path.dirname(c.conf_path), "slurmdbd.conf"),
                  "w") as f:
            f.write(f"StorageType=accounting_storage/sqlite\n"
                    f"StorageLoc={old}/rota_acct.db\n")
        c.up()
        yield c
    finally:
        c.down()
        subprocess.run(["umount", "-l", mnt], capture_output=True)


def fill(c):
    """Fill the state file system; returns the filler's path."""
    path = os.path.join(state_dir(c), "filler")
    with open(path, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    # the last bytes the page cache took
    try:
        with open(path + "2", "wb") as f:
            while True:
                f.write(b"\0")
                f.flush()
    except OSError:
        pass
    return path


def unfill(c):
    for p in glob.glob(os.path.join(state_dir(c), "filler*")):
        os.unlink(p)


def sbatch_fails(c, *args):
    p = c.run(["sbatch", *args, "--wrap", "true"])
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stdout == ""
    assert p.stderr == SUBMIT_ERR + "\n"


def until_refused(c, limit=200):
    """Submit held jobs until the journal meets the full disk (the last
    block of the file may still have room for a few); returns those
    accepted, which must all be kept."""
    accepted = []
    for _ in range(limit):
        p = c.run(["sbatch", "--hold", "-J", "fits", "--wrap", "true"])
        if p.returncode != 0:
            assert p.stderr == SUBMIT_ERR + "\n", p.stderr
            return accepted
        accepted.append(int(p.stdout.split()[-1]))
    raise AssertionError("submissions still accepted on a full disk")


def wait_accepting(c, timeout=20):
    """sbatch works again (no restart): returns the new job id."""
    deadline = time.monotonic() + timeout
    while True:
        p = c.run(["sbatch", "--hold", "--wrap", "true"])
        if p.returncode == 0:
            return int(p.stdout.split()[-1])
        assert p.stderr == SUBMIT_ERR + "\n", p.stderr
        assert time.monotonic() < deadline, "submissions still refused"
        time.sleep(0.5)


def test_full_disk_refuses_submissions_and_recovers(tmpfs_cluster):
    c = tmpfs_cluster
    flag = c.work / "go"
    run = c.sbatch("-J", "survivor", "-o", str(c.work / "out"), "--wrap",
                   f"while [ ! -e {flag} ]; do sleep 0.1; done; echo done")
    assert c.wait_running(run) == "RUNNING"
    held = c.sbatch("--hold", "--wrap", "true")
    pid = c.pid("rotactld")

    fill(c)
    # the first submission that meets the full disk is refused, and so are
    # the later ones
    fits = until_refused(c)
    for _ in range(3):
        sbatch_fails(c)
    p = c.run(["salloc", "-N1", "true"])
    assert p.returncode != 0 and "error" in p.stderr, p.stderr
    assert c.pid("rotactld") == pid and c.run("scontrol ping").returncode == 0
    log = ctld_log(c)
    assert "No space left on device; submissions and updates are refused" in log
    # queries carry on; updates and cancels are refused, and change nothing
    assert queued(c) == {run: "survivor", held: "wrap", **{j: "fits" for j in fits}}
    p = c.run(f"scontrol update jobid={held} name=renamed")
    assert p.returncode != 0 and "Job can not be altered now" in p.stderr, p.stderr
    p = c.run(f"scancel {held}")
    assert "Job can not be altered now" in p.stderr, p.stderr
    assert c.job_field(held, "JobName") == "wrap"
    assert c.job_state(held) == "PENDING"
    # the running job finishes and its end is seen
    flag.touch()
    assert c.wait_job(run) == "COMPLETED"
    assert not os.path.exists(journal_path(c) + ".new")

    # space comes back: submissions accepted again without a restart
    unfill(c)
    new = wait_accepting(c)
    assert new > held
    assert not os.path.exists(journal_path(c) + ".new")
    # what happened while the disk was full was recorded: a restart shows it
    stop_ctld(c)
    start_ctld(c)
    assert c.job_state(run) == "COMPLETED"
    assert set(queued(c)) == {run, held, new, *fits}


def test_start_on_full_disk(tmpfs_cluster):
    c = tmpfs_cluster
    ids = [c.sbatch("--hold", "-J", f"jrnl{i}", "--wrap", "true") for i in range(3)]
    stop_ctld(c)
    fill(c)
    start_ctld(c)  # replayed: a start writes nothing before it serves
    assert set(queued(c)) == set(ids)
    assert not os.path.exists(journal_path(c) + ".new")
    fits = until_refused(c)
    sbatch_fails(c, "--hold")
    p = c.run(f"scontrol release {ids[0]}")
    assert p.returncode != 0, p.stdout
    unfill(c)
    new = wait_accepting(c)
    assert new > max(ids + fits)
    c.run(f"scontrol release {ids[0]}", check=True)
    assert c.wait_job(ids[0]) == "COMPLETED"
    assert not os.path.exists(journal_path(c) + ".new")
    stop_ctld(c)
    start_ctld(c)
    assert set(queued(c)) == {*ids, *fits, new}


def test_damaged_journal_on_full_disk(tmpfs_cluster):
    """Damage found when there is no room to rewrite the journal: the damaged
    file is still kept (a link needs no room for data), the controller starts
    and refuses submissions, and rewrites the journal once space returns."""
    c = tmpfs_cluster
    ids = [c.sbatch("--hold", "-J", f"jrnl{i}", "--wrap", "true") for i in range(5)]
    stop_ctld(c)
    path = journal_path(c)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    off, body, length, name = submit_records(bytes(data))[2]
    data[body + 5] ^= 0x10
    with open(path, "wb") as f:
        f.write(data)
    fill(c)
    before = len(ctld_log(c))
    start_ctld(c)
    log = ctld_log(c)[before:]
    assert f"damaged region at offset {off} " in log, log
    assert queued(c) == {j: f"jrnl{i}" for i, j in enumerate(ids) if i != name}
    assert len(kept_aside(c)) == 1
    # the journal's last page may still take a record or two
    accepted = until_refused(c)
    sbatch_fails(c, "--hold")
    assert not os.path.exists(path + ".new")
    unfill(c)
    new = wait_accepting(c)
    assert new > max(ids)
    stop_ctld(c)
    before = len(ctld_log(c))
    start_ctld(c)
    assert "damaged" not in ctld_log(c)[before:]
    assert len(kept_aside(c)) == 1
    assert set(queued(c)) == {*ids, *accepted, new} - {ids[name]}
