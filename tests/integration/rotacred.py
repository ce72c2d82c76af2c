"""Sign a launch request as the controller does (src/proto/cred.h), for tests
that play rotad and hand rotastepd a launch of their own (test_stepd.py).

The signature is HMAC-SHA256 with Kc = HMAC-SHA256(slurm.key, CRED_LABEL) over
the canonical msgpack encoding of the launch_req (every declared field in
declaration order, but numbers that are 0 and absent strings, which the codec
leaves out; smallest forms, as msgpack-c writes them) with cred_sig empty,
node_flags zero and node_gres_devs empty.  The field list is read from
src/proto/messages.h, the one declaration."""

import hashlib
import hmac
import os
import pathlib
import re
import struct
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
CRED_LABEL = b"rota job credential v1\n"


def launch_fields():
    text = (REPO / "src" / "proto" / "messages.h").read_text()
    m = re.search(r"#define LAUNCH_REQ_FIELDS\(F, S\)(.*?)\nROTA_DECLARE", text, re.S)
    return re.findall(r"F\(S, (\w+), (\w+), \w+\)", m.group(1))


def _uint(v):
    if v < 0x80:
        return bytes([v])
    if v < 0x100:
        return b"\xcc" + bytes([v])
    if v < 0x10000:
        return b"\xcd" + struct.pack("!H", v)
    if v < 0x100000000:
        return b"\xce" + struct.pack("!I", v)
    return b"\xcf" + struct.pack("!Q", v)


def _int(v):
    if v >= 0:
        return _uint(v)
    if v >= -32:
        return struct.pack("!b", v)
    if v >= -128:
        return b"\xd0" + struct.pack("!b", v)
    if v >= -32768:
        return b"\xd1" + struct.pack("!h", v)
    if v >= -(1 << 31):
        return b"\xd2" + struct.pack("!i", v)
    return b"\xd3" + struct.pack("!q", v)


def _len(n, small, small_max, codes):
    if n < small_max and small is not None:
        return bytes([small | n])
    for code, fmt, limit in codes:
        if n < limit:
            return code + struct.pack(fmt, n)
    raise ValueError(n)


def _str(s):
    b = s.encode()
    return _len(len(b), 0xA0, 32, [(b"\xd9", "!B", 1 << 8), (b"\xda", "!H", 1 << 16),
                                   (b"\xdb", "!I", 1 << 32)]) + b


def _bin(b):
    return _len(len(b), None, 0, [(b"\xc4", "!B", 1 << 8), (b"\xc5", "!H", 1 << 16),
                                  (b"\xc6", "!I", 1 << 32)]) + b


def _array(items):
    return _len(len(items), 0x90, 16, [(b"\xdc", "!H", 1 << 16),
                                       (b"\xdd", "!I", 1 << 32)]) + b"".join(items)


def canonical(req):
    def left_out(kind, v):
        return (kind in ("u32", "u64", "i32", "i64") and not v) or \
            (kind == "str" and v is None)
    fields = [(k, n) for k, n in launch_fields() if not left_out(k, req.get(n))]
    out = [_len(len(fields), 0x80, 16, [(b"\xde", "!H", 1 << 16),
                                         (b"\xdf", "!I", 1 << 32)])]
    for kind, name in fields:
        v = req.get(name)
        out.append(_str(name))
        if kind in ("u32", "u64"):
            out.append(_uint(v or 0))
        elif kind in ("i32", "i64"):
            out.append(_int(v or 0))
        elif kind == "str":
            out.append(b"\xc0" if v is None else _str(v))
        elif kind == "bin":
            out.append(_bin(v or b""))
        elif kind == "strv":
            out.append(_array([_str(x) for x in v or []]))
        elif kind == "u32v":
            out.append(_array([_uint(x) for x in v or []]))
        elif kind == "list" and not v:
            out.append(_array([]))  # node_gres_devs: rotad's, signed empty
        else:
            raise ValueError(f"launch_req field {name}: kind {kind}")
    return b"".join(out)


def sign_launch(req, key, lifetime=120, now=None):
    """req (a dict of launch_req fields) with a fresh credential."""
    req = dict(req)
    req["cred_id"] = int.from_bytes(os.urandom(8), "little")
    req["cred_expire"] = int(now if now is not None else time.time()) + lifetime
    req["cred_sig"] = b""
    body = canonical(dict(req, node_flags=0, node_gres_devs=None))
    kc = hmac.new(key, CRED_LABEL, hashlib.sha256).digest()
    req["cred_sig"] = hmac.new(kc, body, hashlib.sha256).digest()
    return req
