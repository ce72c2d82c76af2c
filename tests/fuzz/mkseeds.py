#!/usr/bin/python3
"""mkseeds.py - (re)make the generated part of the fuzz seed corpora.

Run from the repository root: python3 tests/fuzz/mkseeds.py [JOURNAL...]
  corpus/frame/    one whole frame per message type with every field set, and
                   the same body in the "type-selector" form (see fuzz_frame.c);
  corpus/journal/  each JOURNAL file given (a rotactld state/journal copied from
                   a cluster), its first records, and its records' msgpack
                   bodies back to back (the records form of fuzz_journal.c).
Field lists are read from src/proto/messages.h and src/ctld/job_event.h, so new
fields and messages get seeds on the next run.  Stdlib only (a small msgpack
writer below): the hand-made seeds next to the generated ones stay as they are.
"""
import hashlib
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def pack(v):
    if v is None:
        return b"\xc0"
    if isinstance(v, bool):
        return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        if 0 <= v < 128:
            return bytes([v])
        if -32 <= v < 0:
            return struct.pack("b", v)
        if v >= 0:
            return b"\xcf" + struct.pack(">Q", v) if v >= 1 << 32 else b"\xce" + struct.pack(">I", v)
        return b"\xd3" + struct.pack(">q", v)
    if isinstance(v, bytes):
        return b"\xc6" + struct.pack(">I", len(v)) + v
    if isinstance(v, str):
        b = v.encode()
        return (bytes([0xA0 | len(b)]) if len(b) < 32 else b"\xdb" + struct.pack(">I", len(b))) + b
    if isinstance(v, list):
        return b"\xdd" + struct.pack(">I", len(v)) + b"".join(pack(x) for x in v)
    if isinstance(v, dict):
        return b"\xdf" + struct.pack(">I", len(v)) + b"".join(pack(k) + pack(x) for k, x in v.items())
    raise TypeError(v)


def field_lists(text):
    """{struct name: [(kind, field, sub)]} from ROTA_DECLARE(name, X_FIELDS)."""
    lists = {}
    for m in re.finditer(r"#define (\w+_FIELDS)\(F, S\)(.*?)\n(?=\S)", text, re.S):
        lists[m.group(1)] = re.findall(r"F\(S, (\w+), (\w+), (\w+)\)", m.group(2))
    return {s: lists[f] for s, f in re.findall(r"ROTA_DECLARE\((\w+), (\w+)\)", text)}


SAMPLE = {"u32": 2, "i32": -1, "u64": 4096, "i64": 1764590400, "str": "node[01-02]",
          "bin": b"\x00\x01\xff", "strv": ["PATH=/bin", "HOME=/root"], "u32v": [1, 2]}


def sample(structs, name, depth=0):
    obj = {}
    for kind, field, sub in structs[name]:
        if kind == "list":
            obj[field] = [sample(structs, sub, depth + 1)] if depth < 2 else []
        else:
            obj[field] = SAMPLE[kind]
    return obj


def put(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    text = open(os.path.join(ROOT, "src/proto/messages.h")).read()
    structs = field_lists(text)
    structs.update(field_lists(open(os.path.join(ROOT, "src/ctld/job_event.h")).read()))
    msgs = re.findall(r"M\((MSG_\w+), (\d+), (\w+)\)", text)
    frames = os.path.join(HERE, "corpus/frame")
    for i, (enum, num, body) in enumerate(msgs):
        b = pack(sample(structs, body))
        hdr = struct.pack(">IHHI", 0x524F5441, 1, int(num), len(b))
        put(frames, "gen-" + enum.lower(), b"\x00" + hdr + b)
        put(frames, "gen-sel-" + enum.lower(), b"\x01" + struct.pack(">H", i) + b)
    jdir = os.path.join(HERE, "corpus/journal")
    ev = pack(sample(structs, "job_event"))
    put(jdir, "gen-records-event", b"\x01" + ev)
    for path in sys.argv[1:]:
        data = open(path, "rb").read()
        tag = hashlib.sha1(data).hexdigest()[:8]
        put(jdir, "gen-file-" + tag, b"\x00" + data)
        off, bodies, n = 0, [], 0
        while off + 8 <= len(data):
            length, = struct.unpack(">I", data[off:off + 4])
            bodies.append(data[off + 8:off + 8 + length])
            off += 8 + length
            n += 1
            if n == 4:
                put(jdir, "gen-file-head-" + tag, b"\x00" + data[:off])
        put(jdir, "gen-records-" + tag, b"\x01" + b"".join(bodies))


if __name__ == "__main__":
    main()
