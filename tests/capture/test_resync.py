"""Resynchronising after damage (issue #17): a bogus header cannot swallow the real frames behind it.

Through :class:`codec.capture.framing.FrameSplitter` (the capture reader) and the recovering
:class:`codec.group.stream.FrameReader`, both on :class:`codec.group.stream.Resynchroniser`.

The bogus header: 14 bytes of a JoinGroup v5 request header (size 0x7fffffff, api key 11, version 5,
correlation id 1, client id length 3) with nothing behind it. Read by hand, the 14 bytes starting 4 bytes
into it also look like a request header: size ``000b0005`` = 720,901 (the api key and version), api key 0 and
version 1 (the correlation id's halves), correlation id ``0003`` followed by the next frame's first two size
bytes ``0000`` = 196,608, and a client id length equal to the next frame's size (its low half). That
"frame" ends 4 + 4 + 720,901 = 720,909 bytes into the stream. The resynchroniser of issue #17 took it and
swallowed the real JoinGroup behind the bogus header.
"""

from __future__ import annotations

import struct

import pytest

from codec.capture.framing import FrameSplitter, RawFrame, Unframed, plausible
from codec.capture.tcp import Flow
from codec.group.stream import FrameReader, Skipped

from .groupcapture import heartbeat_request, join_request, raw_request, raw_response

FLOW = Flow(0, "10.0.0.1", 40000, "10.0.0.2", 9092, from_client=True)
MAX = 100 * 1024 * 1024  # the broker's socket.request.max.bytes default
BOGUS = struct.pack(">ihhih", 0x7FFFFFFF, 11, 5, 1, 3)
BOGUS_END = 4 + 4 + 0x000B0005  # where the "frame" found 4 bytes into the bogus header ends: 720,909
JOIN = join_request(1, "cli", "grp", "", [("range", b"\x00\x01")])


def _split(stream: bytes, piece: int, **kw) -> tuple[list[tuple[int, int]], list[tuple[int, int, str]]]:
    """(offset, size) of each frame and (offset, length, reason) of each unframed run (contiguous pieces of
    one reason merged), feeding ``piece`` bytes at a time and closing."""
    sp = FrameSplitter(FLOW, "request", max_frame_size=MAX, **kw)
    out = []
    for i in range(0, len(stream), piece):
        out += sp.chunk(i, stream[i : i + piece], float(i))
    out += sp.close()
    runs: list[tuple[int, int, str]] = []  # contiguous unframed runs of one reason, merged
    for u in (u for u in out if isinstance(u, Unframed)):
        if runs and runs[-1][0] + runs[-1][1] == u.offset and runs[-1][2] == u.reason:
            runs[-1] = (runs[-1][0], runs[-1][1] + u.length, u.reason)
        else:
            runs.append((u.offset, u.length, u.reason))
    return [(f.offset, f.size) for f in out if isinstance(f, RawFrame)], runs


def test_the_bogus_header_holds_a_plausible_header_four_bytes_in():
    """The premise, checked: 4 bytes into the bogus header a header passes the plausibility check."""
    stream = BOGUS + JOIN
    assert struct.unpack_from(">ihhih", stream, 4) == (0x000B0005, 0, 1, 0x00030000, len(JOIN) - 4)
    assert plausible(stream, 4, "request", MAX) and not plausible(stream, 0, "request", MAX)


@pytest.mark.parametrize("piece", [1, 13, 1400, 1 << 20])
def test_a_bogus_header_then_a_join_group(piece):
    frames, unframed = _split(BOGUS + JOIN, piece)
    assert frames == [(14, len(JOIN) - 4)]
    assert unframed == [(0, 14, "garbage")]


def _merged_stream() -> tuple[bytes, list[int]]:
    """The bogus header, the JoinGroup, Heartbeat requests and one filler request sized so that a real frame
    starts exactly where the bogus "frame" ends (BOGUS_END), then more Heartbeats. Returns the stream and
    where each real frame starts."""
    parts, starts, pos, cid = [BOGUS, JOIN], [14], 14 + len(JOIN), 2
    hb = len(heartbeat_request(0, "cli", "grp", 1, "m-1"))
    while BOGUS_END - pos > hb + 100:
        parts.append(heartbeat_request(cid, "cli", "grp", 1, "m-1"))
        starts.append(pos)
        pos, cid = pos + hb, cid + 1
    filler = raw_request(3, 0, cid, bytes(BOGUS_END - pos - 17))  # Metadata v0, client "cli": 17 header bytes
    assert len(filler) == BOGUS_END - pos
    parts.append(filler)
    starts.append(pos)
    pos, cid = BOGUS_END, cid + 1
    for _ in range(5):
        parts.append(heartbeat_request(cid, "cli", "grp", 1, "m-1"))
        starts.append(pos)
        pos, cid = pos + hb, cid + 1
    return b"".join(parts), starts


@pytest.mark.parametrize("piece", [1400, 1 << 21])
def test_a_bogus_frame_whose_end_falls_on_a_real_frame_start(piece):
    """The bogus "frame" ends exactly where a real frame starts, so the header after it is plausible: the
    real frames inside it (a chain of thousands) still win."""
    stream, starts = _merged_stream()
    assert BOGUS_END in starts and plausible(stream, BOGUS_END, "request", MAX)
    frames, unframed = _split(stream, piece)
    assert [f[0] for f in frames] == starts
    assert unframed == [(0, 14, "garbage")]


def test_a_real_frame_holding_two_plausible_headers_is_still_taken():
    """A response frame whose bytes, read from 4 bytes in, hold a chain of two plausible response headers
    landing exactly on its end: (size 6, correlation id 0) from its correlation id and throttle time, then
    (size n, correlation id 0) from its length field and the first bytes after it. Two frames are not
    enough to refute it: after 4 bytes of garbage, the frame is read whole, then the next."""
    n = 20
    body = struct.pack(">iihi", 6, 0, 0, n) + bytes(4) + b"\xee" * (n - 4)  # cid 6, throttle 0, error 0, n bytes
    frame = struct.pack(">i", len(body)) + body
    assert struct.unpack_from(">ii", frame, 4) == (6, 0) and struct.unpack_from(">ii", frame, 14) == (n, 0)
    assert 4 + 4 + 6 == 14 and 14 + 4 + n == len(frame)  # the inner chain lands exactly on the frame's end
    after = raw_response(7, bytes(6))
    stream = b"\xff\xff\xff\xff" + frame + after
    for piece in (1, 5, len(stream)):
        reader, out = FrameReader(role="response"), []
        for i in range(0, len(stream), piece):
            reader.feed(stream[i : i + piece])
            out.extend(reader)
        out += reader.close()
        assert out == [frame[4:], after[4:]]
        assert reader.skipped == [Skipped(0, 4, "frame size -1 is negative")]


@pytest.mark.parametrize("piece", [1, 7, 1 << 20])
def test_the_recovering_frame_reader_too(piece):
    """The frame reader's recovering mode: the JoinGroup, confirmed only by the end of the stream, comes out
    of close()."""
    stream = BOGUS + JOIN
    reader, out = FrameReader(role="request"), []
    for i in range(0, len(stream), piece):
        reader.feed(stream[i : i + piece])
        out.extend(reader)
    out += reader.close()
    assert out == [JOIN[4:]]
    assert reader.skipped == [Skipped(0, 14, f"frame size {0x7FFFFFFF} is above the maximum {MAX}")]


def test_the_recovering_frame_reader_with_the_merged_stream():
    stream, starts = _merged_stream()
    reader = FrameReader(role="request")
    reader.feed(stream)
    out = list(reader) + reader.close()
    ends = starts[1:] + [len(stream)]
    assert out == [stream[s + 4 : e] for s, e in zip(starts, ends)]
    assert reader.skipped == [Skipped(0, 14, f"frame size {0x7FFFFFFF} is above the maximum {MAX}")]


def test_a_frame_larger_than_the_window_is_taken_in_bounded_memory():
    """Resynchronising holds at most about the window: after 6 bytes of garbage, a 5,000-byte frame (larger
    than a 256-byte window) is taken once 256 + 14 bytes wait behind its start, and skipped (``keep`` says
    no) without being buffered; the Heartbeat after it is framed."""
    big = raw_request(1, 12, 7, bytes(5000 - 14))
    hb = heartbeat_request(8, "cli", "grp", 1, "m-1")
    stream = b"\xff" * 6 + big + hb
    sp = FrameSplitter(FLOW, "request", max_frame_size=MAX, keep=lambda header: False, resync_window=256)
    out, most = [], 0
    for i in range(0, len(stream), 100):
        out += sp.chunk(i, stream[i : i + 100], float(i))
        most = max(most, len(sp._buf))
    out += sp.close()
    assert most <= 256 + 14 + 100
    assert [(f.offset, f.size, f.data) for f in out if isinstance(f, RawFrame)] == [
        (6, len(big) - 4, None),
        (6 + len(big), len(hb) - 4, None),
    ]
    assert [(u.offset, u.length) for u in out if isinstance(u, Unframed)] == [(0, 6)]
