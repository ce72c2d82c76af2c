"""The state image (ctld/image.h): written at a clean stop, loaded at the next
start instead of replaying the journal, and the same state either way; the
journal's records after it replayed; an image that no longer stands for the
journal, or is damaged, is not used."""

import os
import re
import signal

FMT = "%i %j %T %r %P %u %g %l %Q %S %N %C %D %E %V %k %a"  # not %M: time used moves


def state_of(c):
    """squeue's view of every job, and scontrol's of each (times that move
    left out)."""
    q = c.run(["squeue", "-a", "-t", "all", "-o", FMT])
    assert q.returncode == 0, q.stderr
    rows = sorted(q.stdout.splitlines())
    p = c.run(["scontrol", "show", "job"])
    assert p.returncode == 0, p.stderr
    shown = sorted(re.sub(r"(RunTime|LastSchedEval)=\S+", "", p.stdout).split("\n\n"))
    return rows, shown


def request_len():
    """Bytes of a job's request in the image: its fields in job_desc's order
    (messages.h), u32 and text numbers 4 bytes, u64 8."""
    src = open(os.path.join(os.path.dirname(__file__), "..", "..", "src",
                            "proto", "messages.h")).read()
    size = {"u32": 4, "i32": 4, "str": 4, "strv": 4, "u64": 8, "i64": 8}

    def fields(name):
        """The field kinds of a FIELDS macro, lists it includes expanded
        (an out-of-line field, kind K_x or K##x, is in the image as K)."""
        start = re.search(r"#define %s\(F, S(, x)?\)" % name, src).start()
        end = src.index("\n", start)
        while src[end - 1] == "\\":
            end = src.index("\n", end + 1)
        kinds = []
        for line in src[start:end].splitlines()[1:]:
            m = re.search(r"F\(S, ([a-z0-9]+)(?:_x|##x)?, \w+, \w+\)", line)
            inc = re.search(r"(\w+_FIELDS(?:_K)?)\(F, S(?:, \w*)?\)", line)
            if m:
                kinds.append(m.group(1))
            elif inc:
                kinds += fields(inc.group(1))
        return kinds

    kinds = fields("JOB_DESC_FIELDS")
    assert kinds and all(k in size for k in kinds)
    return sum(size[k] for k in kinds)


def image_path(c):
    return os.path.join(c.dir, "state", "state.image")


def ctld_log(c):
    with open(os.path.join(c.dir, "log", "rotactld.log")) as f:
        return f.read()


def stop_ctld(c):
    c.kill_daemon("rotactld", signal.SIGTERM)


def held(c, *args, env=None):
    return c.sbatch("--hold", *args, env=env)


def test_clean_restart_loads_the_image_and_matches_a_replay(fresh_cluster, tmp_path):
    c = fresh_cluster
    os.chmod(tmp_path, 0o777)
    out = tmp_path / "held.out"
    first = held(c, "-J", "keep me", "-o", str(out), "--comment", "a comment",
                 "--wrap", "echo $IMG_ENV from the script",
                 env={"IMG_ENV": "the environment"})
    c.run(["scontrol", "update", f"jobid={first}", "priority=4242"])
    held(c, "--array=0-9%2", "-t", "7", "--wrap", "true")
    held(c, "--begin=now+1hour", "-N2", "-c2", "--mem=10", "--wrap", "true")
    admin = held(c, "--wrap", "true")
    c.run(["scontrol", "hold", str(admin)])
    done = c.sbatch("--wrap", "true")
    assert c.wait_job(done) == "COMPLETED"
    running = c.sbatch("-N1", "--wrap", "srun sleep 300")
    c.wait_for(lambda: f"{running}.0" in c.run(
        ["squeue", "-h", "-s", "-j", str(running), "-o", "%i"]).stdout.split(),
        timeout=30, what="the step running")
    before = state_of(c)

    stop_ctld(c)
    assert os.path.getsize(image_path(c)) > 0
    c.up()
    assert re.search(r"state image: 6 jobs", ctld_log(c)), ctld_log(c)[-2000:]
    assert state_of(c) == before

    # the same state from the journal alone
    stop_ctld(c)
    os.unlink(image_path(c))
    c.up()
    assert state_of(c) == before
    assert ctld_log(c).count("state image: 6 jobs") == 1

    # and the jobs run as they were asked to: their texts were kept
    c.run(["scontrol", "release", str(first)])
    assert c.wait_job(first) == "COMPLETED"
    assert out.read_text() == "the environment from the script\n"
    c.run(["scancel", str(running)])


def test_records_after_the_image_are_replayed(fresh_cluster, tmp_path):
    """A controller started from the image appends to the journal; after its
    crash the image still stands for the head, and the rest is replayed."""
    c = fresh_cluster
    os.chmod(tmp_path, 0o777)
    a = held(c, "-J", "before", "--wrap", "true")
    stop_ctld(c)
    c.up()
    out = tmp_path / "after.out"
    b = held(c, "-J", "after", "-o", str(out), "--wrap", "echo $IMG_TAIL",
             env={"IMG_TAIL": "a text written after the image"})
    c.run(["scontrol", "update", f"jobid={a}", "name=renamed"])
    before = state_of(c)
    c.kill_daemon("rotactld", signal.SIGKILL)
    c.up()
    log = ctld_log(c)
    assert log.count("state image: 1 jobs") == 2, log[-2000:]
    assert state_of(c) == before
    assert c.job_field(a, "JobName") == "renamed"
    c.run(["scontrol", "release", str(b)])
    assert c.wait_job(b) == "COMPLETED"
    assert out.read_text() == "a text written after the image\n"


def test_image_of_a_compacted_journal_is_not_used(fresh_cluster):
    c = fresh_cluster
    a = held(c, "--wrap", "true")
    stop_ctld(c)
    with open(image_path(c), "rb") as f:
        old_image = f.read()
    c.up()
    b = held(c, "--wrap", "true")
    c.compact_journal()
    c.kill_daemon("rotactld", signal.SIGKILL)
    # the image of the file before the compaction
    with open(image_path(c), "wb") as f:
        f.write(old_image)
    c.up()
    log = ctld_log(c)
    assert "not used: of a journal since rewritten" in log, log[-2000:]
    assert not os.path.exists(image_path(c))
    assert sorted(int(i) for i in c.run(["squeue", "-h", "-o", "%i"]).stdout.split()) \
        == [a, b]


def test_image_of_another_journal_under_the_same_inode_is_not_used(fresh_cluster):
    """A journal copied over the file (same inode, other records before the
    image's mark) is read whole, not taken for the one the image stands for."""
    c = fresh_cluster
    jpath = os.path.join(c.dir, "state", "journal")
    held(c, "-J", "first", "--wrap", "true")
    stop_ctld(c)
    with open(jpath, "rb") as f:
        journal_of_one = f.read()
    c.up()
    ids = [held(c, "-J", f"j{i}", "--wrap", "true") for i in range(3)]
    stop_ctld(c)
    ino = os.stat(jpath).st_ino
    # another history, as long as the image's: the first job's, padded with
    # the records of a second copy of it cut where the image's mark is
    size = os.path.getsize(jpath)
    other = (journal_of_one * (size // len(journal_of_one) + 1))[:size]
    with open(jpath, "r+b") as f:
        f.write(other)
    assert os.stat(jpath).st_ino == ino
    c.up()
    log = ctld_log(c)
    assert "not used: of a journal since rewritten" in log, log[-2000:]
    assert "state image: 4 jobs" not in log
    listed = c.run(["squeue", "-h", "-o", "%i"]).stdout.split()
    assert not set(int(i) for i in listed) & set(ids)


def test_damaged_image_is_not_used(fresh_cluster):
    c = fresh_cluster
    ids = [held(c, "-J", f"j{i}", "--wrap", "true") for i in range(5)]
    before = state_of(c)
    stop_ctld(c)
    with open(image_path(c), "r+b") as f:
        f.seek(-20, os.SEEK_END)
        byte = f.read(1)
        f.seek(-20, os.SEEK_END)
        f.write(bytes([byte[0] ^ 0x40]))
    c.up()
    log = ctld_log(c)
    assert "not used: damaged" in log, log[-2000:]
    assert "state image: 5 jobs" not in log
    assert state_of(c) == before
    assert len(ids) == 5
    # the next clean stop writes a good one
    stop_ctld(c)
    c.up()
    assert "state image: 5 jobs" in ctld_log(c)
    assert state_of(c) == before


def test_image_bad_after_its_checks_is_dropped_whole(fresh_cluster):
    """An image whose CRCs check but whose last job names a text it does not
    have (a writer's bug): the jobs loaded before it are dropped too, and the
    journal gives the state."""
    import struct
    import zlib
    c = fresh_cluster
    ids = [held(c, "-J", f"j{i}", "--wrap", "true") for i in range(5)]
    before = state_of(c)
    stop_ctld(c)
    head_len = 8 + 4 + 4 + 8 * 8 + 8 + 4 + 4  # struct image_head
    with open(image_path(c), "rb") as f:
        data = bytearray(f.read())
    head, body = data[:head_len], data[head_len:]
    # the last record is the last job's (65 bytes, then its request):
    # the number of its name made one the image does not have
    req = request_len()
    assert body[-(65 + req)] == ord("J")
    assert 0 < struct.unpack("<I", body[-req:-req + 4])[0] < 100
    body[-req:-req + 4] = struct.pack("<I", 0xFFFFFFF0)
    struct.pack_into("<I", head, head_len - 8, zlib.crc32(body))
    struct.pack_into("<I", head, head_len - 4, zlib.crc32(bytes(head[:head_len - 4])))
    with open(image_path(c), "wb") as f:
        f.write(head + body)
    c.up()
    log = ctld_log(c)
    assert "is bad at byte" in log, log[-2000:]
    assert state_of(c) == before
    assert len(ids) == 5
