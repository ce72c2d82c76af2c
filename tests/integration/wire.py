"""Just enough msgpack and framing to speak Rota's protocol from the tests
without a non-Debian package (python3-msgpack): a small encoder and decoder,
frames as src/proto/frame.c writes them (the 12-byte header: magic "ROTA",
u16 version, u16 type, u32 body length, all big-endian; then the body), and
reading them back off a socket."""

import os
import socket
import struct

MAGIC = b"ROTA"
HEADER_LEN = 12


# ---- msgpack ----

def mp(obj):
    """msgpack encoding of None, bool, int, str, bytes, list and dict."""
    if obj is None:
        return b"\xc0"
    if isinstance(obj, bool):
        return b"\xc3" if obj else b"\xc2"
    if isinstance(obj, int):
        if 0 <= obj < 0x80:
            return bytes([obj])
        if 0 <= obj <= 0xFFFFFFFF:
            return b"\xce" + struct.pack("!I", obj)
        if obj >= 0:
            return b"\xcf" + struct.pack("!Q", obj)
        return b"\xd3" + struct.pack("!q", obj)
    if isinstance(obj, str):
        b = obj.encode()
        return (bytes([0xA0 | len(b)]) if len(b) < 32 else
                b"\xda" + struct.pack("!H", len(b))) + b
    if isinstance(obj, bytes):
        return b"\xc5" + struct.pack("!H", len(obj)) + obj
    if isinstance(obj, list):
        return b"\xdc" + struct.pack("!H", len(obj)) + b"".join(mp(x) for x in obj)
    if isinstance(obj, dict):
        return (b"\xde" + struct.pack("!H", len(obj)) +
                b"".join(mp(k) + mp(v) for k, v in obj.items()))
    raise TypeError(obj)


def mp_str(s):
    """A short string (under 256 bytes) as fixstr or str8."""
    b = s.encode()
    assert len(b) < 256
    return (bytes([0xa0 | len(b)]) if len(b) < 32 else b"\xd9" + bytes([len(b)])) + b


def unpack(data):
    """A minimal msgpack decoder (maps, arrays, strings, bins, ints, nil, bools)."""
    def one(i):
        b = data[i]
        if b <= 0x7f:
            return b, i + 1
        if b >= 0xe0:
            return b - 0x100, i + 1
        if 0x80 <= b <= 0x8f or b in (0xde, 0xdf):
            n, i = ((b & 0x0f, i + 1) if b <= 0x8f else
                    (int.from_bytes(data[i + 1:i + (3 if b == 0xde else 5)], "big"),
                     i + (3 if b == 0xde else 5)))
            out = {}
            for _ in range(n):
                k, i = one(i)
                v, i = one(i)
                out[k] = v
            return out, i
        if 0x90 <= b <= 0x9f or b in (0xdc, 0xdd):
            n, i = ((b & 0x0f, i + 1) if b <= 0x9f else
                    (int.from_bytes(data[i + 1:i + (3 if b == 0xdc else 5)], "big"),
                     i + (3 if b == 0xdc else 5)))
            out = []
            for _ in range(n):
                v, i = one(i)
                out.append(v)
            return out, i
        if 0xa0 <= b <= 0xbf:
            n = b & 0x1f
            return data[i + 1:i + 1 + n].decode(), i + 1 + n
        sizes = {0xd9: 1, 0xda: 2, 0xdb: 4, 0xc4: 1, 0xc5: 2, 0xc6: 4}
        if b in sizes:
            w = sizes[b]
            n = int.from_bytes(data[i + 1:i + 1 + w], "big")
            raw = data[i + 1 + w:i + 1 + w + n]
            return (raw.decode() if b >= 0xd9 else raw), i + 1 + w + n
        ints = {0xcc: (1, False), 0xcd: (2, False), 0xce: (4, False), 0xcf: (8, False),
                0xd0: (1, True), 0xd1: (2, True), 0xd2: (4, True), 0xd3: (8, True)}
        if b in ints:
            w, signed = ints[b]
            return int.from_bytes(data[i + 1:i + 1 + w], "big", signed=signed), i + 1 + w
        if b == 0xc0:
            return None, i + 1
        if b in (0xc2, 0xc3):
            return b == 0xc3, i + 1
        raise ValueError(f"msgpack byte {b:#x} not handled")
    return one(0)[0]


# ---- frames ----

def header(msg_type, length, version=1):
    """A frame header that announces length body bytes."""
    return MAGIC + struct.pack("!HHI", version, msg_type, length)


def frame(msg_type, body=b"\x80", version=1, length=None):
    """A whole frame; body is already encoded (default: an empty map).  length
    overrides the announced body length (to lie about it)."""
    n = len(body) if length is None else length
    return header(msg_type, n, version) + body


def recv_exact(s, n):
    """n bytes from s, or None when the peer closes first."""
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def read_frame(s, timeout=5, raw=False, strict=False):
    """The next frame on s as (type, body bytes), or None at EOF.

    timeout: set on s first; None leaves s's own timeout.
    raw: return (type, the whole frame as it came, header included) and do not
    check the magic.
    strict: a frame cut short after its header raises EOFError instead of
    returning None."""
    if timeout is not None:
        s.settimeout(timeout)
    hdr = recv_exact(s, HEADER_LEN)
    if hdr is None:
        return None
    if not raw:
        assert hdr[:4] == MAGIC
    _, msg_type, n = struct.unpack("!HHI", hdr[4:])
    body = recv_exact(s, n)
    if body is None:
        if strict:
            raise EOFError(f"frame type {msg_type} cut short")
        return None
    return msg_type, (hdr + body if raw else body)


# ---- sockets ----

def closed_by_peer(s, timeout=10):
    """True if the peer closes (EOF or reset) within timeout."""
    s.settimeout(timeout)
    try:
        while True:
            if not s.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def unix_connect(cluster):
    """A connection to the cluster's rotactld on its unix socket."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.path.join(cluster.dir, "state", "rotactld.sock"))
    return s
