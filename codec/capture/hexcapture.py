"""Hex as people copy it, read by ``capture``: packets, or Kafka frames, turned into a capture it reads.

The text is in any of :mod:`codec.hexinput`'s forms (plain, spaced, colons, hex dumps). What its bytes are is told
from them:

* a capture file (``xxd`` of a pcap or pcapng): read as that file;
* whole packets — ``tshark -x`` of several packets (one dump each), Wireshark's "Copy as Hex Dump" or "as a Hex
  Stream" of a packet, one hex stream a line: each dump or line is a packet, its link layer (Ethernet, Linux
  cooked v1/v2, BSD loopback, bare IP) told from the first one, with its addresses, ports and sequence numbers as
  captured, so TCP reassembly and the connection's judgement work as on the capture itself;
* Kafka frames — each with its int32 size (``tshark -T fields -e tcp.payload``, one packet's payload a line, or a
  TCP stream's bytes), or a single frame without it: requests are told from responses by their headers, and a
  response goes with the request whose correlation id it carries (the oldest such request not yet answered);
  requests are put on one connection per client id (as each client has its own), client ``127.0.0.1:50001`` and
  up to broker ``127.0.0.1:9092``.

Hex holds no times: packet (or frame) *n* is placed *n* milliseconds after the epoch. The note returned says what
was read and that, for the command to show it.
"""

from __future__ import annotations

import struct

from ..errors import DecodeError
from ..group.stream import plausible
from ..hexinput import dumps_of, parse_hex
from .kafka import DEFAULT_MAX_FRAME_SIZE
from .packet import decode_tcp
from .pcapfile import CAPTURE_MAGICS
from .pcapwriter import TcpConnection, pcap

__all__ = ["hex_capture", "LINK_NAMES"]

#: The link types a packet of hex is tried with, in order, and their names.
LINK_NAMES = {1: "Ethernet", 113: "Linux cooked", 276: "Linux cooked v2", 0: "BSD loopback", 101: "IP"}
_BROKER = ("127.0.0.1", 9092)
_MSS = 60_000  # bytes of a frame a synthetic segment carries (within an IPv4 packet's 65,535)
_STEP = 0.001  # seconds between packets (or frames): hex holds no times


def hex_capture(text: str) -> tuple[bytes, str]:
    """A pcap or pcapng file of what hex ``text`` holds, and a note on what it was read as; a
    :class:`DecodeError` saying why where it is not hex, or its bytes neither packets nor Kafka frames."""
    blocks, form = _blocks(text)
    if len(blocks) == 1 and blocks[0][:4] in CAPTURE_MAGICS:
        return blocks[0], f"read as a capture file in hex ({form})"
    link = _link_type(blocks[0])
    if link is not None:
        return _packets(blocks, link, form)
    data = b"".join(blocks)
    return _frames(data, form)


def _blocks(text: str) -> tuple[list[bytes], str]:
    """The byte strings of ``text``: one per hex dump, or per line of plain hex when each line is whole hex (a
    packet a line), else the whole text as one; and the form's name."""
    dumps = dumps_of(text)
    if dumps is not None:
        blocks, layout = dumps
        return blocks, f"{len(blocks):,} hex dump{'s' if len(blocks) != 1 else ''} ({layout})"
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:  # a packet (or a frame, or part of one) a line, as tshark -T fields prints them
        try:
            per_line = [parse_hex(ln, cut=False)[0] for ln in lines]
        except DecodeError:
            per_line = None
        if per_line is not None:
            if all(_link_type(b) is not None for b in per_line):
                return per_line, f"{len(lines):,} lines of hex"
            return [b"".join(per_line)], f"{len(lines):,} lines of hex"
    data, note = parse_hex(text, cut=False)
    return [data], (note or "plain hex").removeprefix("read as ")


def _link_type(data: bytes) -> int | None:
    """The link type under which ``data`` is a TCP packet, or None."""
    for link in LINK_NAMES:
        try:
            seg = decode_tcp(link, data, 0.0, len(data))
        except DecodeError:
            continue
        if seg is not None:
            return link
    return None


def _packets(blocks: list[bytes], link: int, form: str) -> tuple[bytes, str]:
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, link)]
    for i, data in enumerate(blocks):
        usec = (i + 1) * 1000
        out.append(struct.pack("<IIII", usec // 1_000_000, usec % 1_000_000, len(data), len(data)) + data)
    n = len(blocks)
    return b"".join(out), (
        f"read as {n:,} packet{'s' if n != 1 else ''} ({LINK_NAMES[link]}) from {form}; hex holds no times: "
        f"packet n is shown n ms after 1970-01-01"
    )


def _split(data: bytes) -> list[bytes]:
    """The frames of ``data`` (without their sizes): size-prefixed frames end to end, or else one frame without
    its size."""
    frames, pos = [], 0
    while pos < len(data):
        if len(data) - pos < 4:
            break
        (size,) = struct.unpack_from(">i", data, pos)
        if size < 4 or pos + 4 + size > len(data):
            break
        frames.append(data[pos + 4 : pos + 4 + size])
        pos += 4 + size
    else:
        if frames:
            return frames
    if pos == 0 and len(data) >= 8:  # one frame, given without its size (as `decode` takes it)
        return [data]
    (size,) = struct.unpack_from(">i", data, pos) if len(data) - pos >= 4 else (None,)
    left = len(data) - pos
    why = (
        f"only {left} byte{'s' if left != 1 else ''} left, fewer than a frame's size"
        if size is None
        else f"a frame's size there would be {size:,}, but {left - 4:,} bytes follow it"
    )
    raise DecodeError(
        f"hex text is not Kafka frames end to end: at byte {pos:,} ({len(frames):,} frames read before) {why}",
        message="input",
        offset=pos,
    )


def _frames(data: bytes, form: str) -> tuple[bytes, str]:
    frames = _split(data)
    pending: list[tuple[int, TcpConnection]] = []  # (correlation id, the connection of the request), oldest first
    conns: dict[str | None, TcpConnection] = {}
    orphans: TcpConnection | None = None
    requests = answered = 0
    t = 0.0
    for frame in frames:
        t += _STEP
        sized = struct.pack(">i", len(frame)) + frame
        cid = struct.unpack_from(">i", frame)[0] if len(frame) >= 4 else None
        match = next((i for i, (c, _) in enumerate(pending) if c == cid), None)
        if match is not None:  # (a response's correlation id first: it may look like a request's API key and version)
            conn = pending.pop(match)[1]
            conn.write("s", sized, t)
            answered += 1
        elif plausible(sized, 0, "request", DEFAULT_MAX_FRAME_SIZE) and _client_fits(frame):
            client = _client_id(frame)
            if client not in conns:
                conns[client] = TcpConnection(("127.0.0.1", 50001 + len(conns)), _BROKER, mss=_MSS)
                conns[client].open(t)
            conn = conns[client]
            conn.write("c", sized, t)
            pending.append((struct.unpack_from(">i", frame, 4)[0], conn))
            requests += 1
        else:  # a response to a request not in the hex
            if orphans is None:
                orphans = TcpConnection(("127.0.0.1", 50000), _BROKER, mss=_MSS)
                orphans.open(t)
            orphans.write("s", sized, t)
    every = [*conns.values(), *([orphans] if orphans is not None else [])]
    for conn in every:
        conn.close(t + _STEP)
    segments = sorted((s for c in every for s in c.segments), key=lambda s: s.ts)
    n, others = len(frames), len(frames) - requests - answered
    told = f"{requests:,} request{'s' if requests != 1 else ''}, {answered:,} response{'s' if answered != 1 else ''}"
    told += (
        f" to them, {others:,} response{'s' if others != 1 else ''} to requests not in the hex"
        if others
        else " to them"
    )
    return pcap(segments, linktype=101), (
        f"read as {n:,} Kafka frame{'s' if n != 1 else ''} from {form} ({told}), requests told from responses by "
        f"their headers, one connection per client id ({len(conns):,}); hex holds no times: frame n is shown n ms "
        "after 1970-01-01"
    )


def _client_fits(frame: bytes) -> bool:
    """A request header's client id (int16 length, then its bytes) fits in the frame."""
    if len(frame) < 10:
        return False
    (n,) = struct.unpack_from(">h", frame, 8)
    return n == -1 or 0 <= n <= len(frame) - 10


def _client_id(frame: bytes) -> str | None:
    (n,) = struct.unpack_from(">h", frame, 8)
    return None if n < 0 else frame[10 : 10 + n].decode("utf-8", "replace")
