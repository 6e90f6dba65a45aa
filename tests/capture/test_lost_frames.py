"""Counting the frames lost with gaps given up at a limit (FrameSplitter, sans-IO), against the frames the
stream was built from.

A stream of request frames is fed as chunks around random holes, each given up (``given_up=True``), and then each hole's bytes
arrive late (``late``), as a retransmission after the limit would. The frames lost are then exactly the
frames that overlap a hole, and the bytes dropped with them (``skipped_bytes``) plus the holes are exactly
those frames' bytes, computed here from the frame boundaries alone. Precondition (``assume``): the first
frame after each hole has its header (14 bytes) before the next hole, as resynchronising needs.
"""

from __future__ import annotations

import struct

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from codec.capture.framing import FrameSplitter, RawFrame
from codec.capture.tcp import Flow

FLOW = Flow(0, "10.0.0.1", 40000, "10.0.0.2", 9092, from_client=True)
PEEK = 14
MAX_FRAME = 4096


def _frame(size: int) -> bytes:
    """A request frame of ``size`` (10-600) bytes after its size field: Heartbeat v3, correlation id 0x7f7f7f7f,
    empty client id, zeros. No offset but a frame's start holds a plausible header (frame.plausible) with frames
    at most MAX_FRAME long: a size read at offset 1-3 or 8-11 of a frame, or in the correlation id, is above
    MAX_FRAME, at 4-7 the API key or version is out of range, in the zeros or across the next frame's size it
    is below 10."""
    return struct.pack(">ihhih", size, 12, 3, 0x7F7F7F7F, 0) + bytes(size - 10)


@st.composite
def streams(draw):
    sizes = draw(st.lists(st.integers(10, 600), min_size=1, max_size=40))
    frames = [_frame(s) for s in sizes]
    data = b"".join(frames)
    starts, pos = [], 0
    for f in frames:
        starts.append(pos)
        pos += len(f)
    cuts = sorted(set(draw(st.lists(st.integers(0, len(data)), min_size=2, max_size=12))))
    holes = [(a, b) for a, b in zip(cuts[::2], cuts[1::2]) if b > a]
    return data, starts, holes, draw(st.integers(1, 700))


def _feed(sp: FrameSplitter, data: bytes, holes, piece: int, late: bool) -> list:
    out, pos = [], 0
    for a, b in holes + [(len(data), len(data))]:
        for i in range(pos, a, piece):
            out += sp.chunk(i, data[i : min(a, i + piece)], float(i))
        if b > a:
            out += sp.gap(a, b - a, given_up=True)
        pos = b
    if late:
        for a, b in holes:  # the retransmissions, in pieces, each hole from its start
            for i in range(a, b, piece):
                sp.late(i, data[i : min(b, i + piece)])
    return out + sp.close()


@settings(max_examples=300, deadline=None)
@given(streams())
def test_lost_frames_are_the_frames_overlapping_the_holes(case):
    data, starts, holes, piece = case
    ends = starts[1:] + [len(data)]
    for (a, b), nxt in zip(holes, holes[1:] + [(len(data) + PEEK, None)]):
        following = [s for s in starts if s >= b]
        assume(not following or following[0] + PEEK <= nxt[0])
    lost = [(s, e) for s, e in zip(starts, ends) if any(s < b and a < e for a, b in holes)]
    sp = FrameSplitter(FLOW, "request", max_frame_size=MAX_FRAME)
    out = _feed(sp, data, holes, piece, late=True)
    assert sp.loss.frames == len(lost)
    assert sp.loss.skipped_bytes + sum(b - a for a, b in holes) == sum(e - s for s, e in lost)
    # and every other frame came out whole
    framed = [(f.offset, f.offset + 4 + f.size) for f in out if isinstance(f, RawFrame)]
    assert framed == [(s, e) for s, e in zip(starts, ends) if (s, e) not in lost]


@settings(max_examples=100, deadline=None)
@given(streams())
def test_without_late_bytes_each_hole_costs_at_least_its_first_frame(case):
    """When the holes' bytes never come, the frames that start inside a hole cannot be counted: the count is
    at least the frames in which a hole starts (but for a frame an earlier hole already cost), at most all
    the frames that overlap a hole."""
    data, starts, holes, piece = case
    ends = starts[1:] + [len(data)]
    for (a, b), nxt in zip(holes, holes[1:] + [(len(data) + PEEK, None)]):
        following = [s for s in starts if s >= b]
        assume(not following or following[0] + PEEK <= nxt[0])
    lost = [(s, e) for s, e in zip(starts, ends) if any(s < b and a < e for a, b in holes)]
    sp = FrameSplitter(FLOW, "request", max_frame_size=MAX_FRAME)
    _feed(sp, data, holes, piece, late=False)
    cut = set()
    for i, (a, b) in enumerate(holes):
        s, e = next((s, e) for s, e in zip(starts, ends) if s <= a < e)
        if not any(s < b0 and a0 < e for a0, b0 in holes[:i]):
            cut.add(s)
    assert len(cut) <= sp.loss.frames <= len(lost)
