"""Sans-IO Kafka framing of one reassembled TCP direction, with resynchronisation.

A :class:`FrameSplitter` takes a direction's :class:`~codec.capture.tcp.Chunk` and
:class:`~codec.capture.tcp.Gap` records in stream order and returns :class:`RawFrame` (an int32 size and
that many bytes; the frame is returned without the size, as ``frames.jsonl`` and :mod:`codec.group`
store it) and :class:`Unframed` (bytes that could not be framed, with the reason).

Unlike :class:`codec.group.stream.FrameReader`, which refuses to go on after a bad size, a splitter
recovers: after a gap (the frame it cut is reported, nothing else is lost) or at a header that cannot
be a frame, it scans for the next offset where a plausible frame header starts (:func:`plausible`) and
goes on from there. A header counts as plausible when its size is within bounds and, for requests, the
API key, API version and client-id length are sensible (for responses: a non-negative correlation id);
when the frame that would follow it is already buffered, its header must be plausible too. This is a
heuristic: bytes that merely look like a frame header can be taken for one.

Frames whose header ``keep(header_bytes)`` rejects are skipped without being buffered (``data`` None),
so a large Fetch response costs no memory.
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from dataclasses import dataclass
from typing import Callable

from ..group.stream import _REQ, _RESP, MAX_API_KEY, MAX_API_VERSION, REQUEST_PEEK, RESPONSE_PEEK, plausible
from .tcp import Flow

__all__ = ["RawFrame", "Unframed", "FrameSplitter", "plausible", "MAX_API_KEY", "MAX_API_VERSION",
           "REQUEST_PEEK", "RESPONSE_PEEK"]

@dataclass(frozen=True, slots=True)
class RawFrame:
    """One frame: ``offset`` of its size field in the stream, ``size``, ``header`` (its first bytes, size
    included: 14 for a request, 8 for a response), ``data`` (the frame after the size; None when
    skipped), capture times of its first and last byte."""

    flow: Flow
    offset: int
    size: int
    header: bytes
    data: bytes | None
    ts: float
    ts_end: float


@dataclass(frozen=True, slots=True)
class Unframed:
    """Stream bytes ``[offset, offset + length)`` that are in no frame: ``reason`` is ``cut by gap``
    (the start of a frame that a gap interrupted), ``garbage`` (skipped while resynchronising) or
    ``stream ended inside a frame``."""

    flow: Flow
    offset: int
    length: int
    reason: str


class FrameSplitter:
    """Split one direction (``role`` ``"request"`` or ``"response"``) into frames."""

    def __init__(self, flow: Flow, role: str, *, max_frame_size: int,
                 keep: Callable[[bytes], bool] | None = None) -> None:
        self.flow = flow
        self.role = role
        self.max_frame_size = max_frame_size
        self.keep = keep
        self._peek = REQUEST_PEEK if role == "request" else RESPONSE_PEEK
        self._buf = bytearray()
        self._off = 0  # stream offset of _buf[0]
        self._starts: list[int] = []  # stream offsets where chunks begin (for timestamps) ...
        self._times: list[float] = []  # ... and their capture times
        self._synced = True
        self._skip = 0  # bytes of a skipped frame still to pass
        self._skip_frame: tuple[int, int, bytes, float] | None = None

    def chunk(self, offset: int, data: bytes, ts: float) -> list[RawFrame | Unframed]:
        """Bytes at ``offset`` (the stream position right after what came before)."""
        out: list[RawFrame | Unframed] = []
        if self._skip:
            n = min(self._skip, len(data))
            self._skip -= n
            offset, data = offset + n, data[n:]
            if not self._skip:
                start, size, header, first_ts = self._skip_frame
                out.append(RawFrame(self.flow, start, size, header, None, first_ts, ts))
                self._skip_frame = None
            if not data:
                return out
        if not self._buf:
            self._off = offset
            self._starts, self._times = [], []
        self._starts.append(offset)
        self._times.append(ts)
        self._buf += data
        self._split(out, ts)
        return out

    def gap(self, offset: int, length: int) -> list[RawFrame | Unframed]:
        """Bytes ``[offset, offset + length)`` are missing: drop the frame they cut, then resynchronise."""
        out: list[RawFrame | Unframed] = []
        if self._skip:
            start = self._skip_frame[0]
            out.append(Unframed(self.flow, start, offset - start, "cut by gap"))
            self._skip, self._skip_frame = 0, None
        elif self._buf:
            out.append(Unframed(self.flow, self._off, len(self._buf), "cut by gap" if self._synced else "garbage"))
        self._buf.clear()
        self._synced = False
        return out

    def close(self) -> list[RawFrame | Unframed]:
        """The stream ended: whatever is left is an incomplete frame."""
        out: list[RawFrame | Unframed] = []
        if self._skip:
            start, size = self._skip_frame[:2]
            out.append(Unframed(self.flow, start, size + 4 - self._skip, "stream ended inside a frame"))
            self._skip, self._skip_frame = 0, None
        elif self._buf:
            out.append(Unframed(self.flow, self._off, len(self._buf),
                                "stream ended inside a frame" if self._synced else "garbage"))
        self._buf.clear()
        return out

    def _ts_at(self, offset: int) -> float:
        return self._times[max(bisect_right(self._starts, offset) - 1, 0)]

    def _consume(self, n: int) -> None:
        del self._buf[:n]
        self._off += n
        i = bisect_right(self._starts, self._off) - 1
        if i > 0:
            del self._starts[:i], self._times[:i]

    def _split(self, out: list, ts: float) -> None:
        buf, peek, limit = self._buf, self._peek, self.max_frame_size
        pos = 0
        while True:
            if not self._synced:
                found = self._resync(pos)
                if found is None:  # keep the last bytes: a header may start there
                    keep_from = max(pos, len(buf) - peek + 1)
                    if keep_from > pos:
                        out.append(Unframed(self.flow, self._off + pos, keep_from - pos, "garbage"))
                    pos = keep_from
                    break
                if found > pos:
                    out.append(Unframed(self.flow, self._off + pos, found - pos, "garbage"))
                pos = found
                self._synced = True
            ok = plausible(buf, pos, self.role, limit)
            if ok is None:
                break
            if not ok:
                self._synced = False
                continue
            size = _RESP.unpack_from(buf, pos)[0]
            start = self._off + pos
            header = bytes(buf[pos:pos + peek])
            if self.keep is not None and not self.keep(header):
                have = len(buf) - pos - 4
                if have >= size:
                    out.append(RawFrame(self.flow, start, size, header, None, self._ts_at(start),
                                        self._ts_at(start + 3 + size)))
                    pos += 4 + size
                    continue
                self._skip, self._skip_frame = size - have, (start, size, header, self._ts_at(start))
                pos = len(buf)
                break
            if len(buf) - pos - 4 < size:
                break
            out.append(RawFrame(self.flow, start, size, header, bytes(buf[pos + 4:pos + 4 + size]),
                                self._ts_at(start), self._ts_at(start + 3 + size)))
            pos += 4 + size
        self._consume(pos)

    def _resync(self, pos: int) -> int | None:
        """The first offset at or after ``pos`` where a plausible header starts (and the header of the
        frame after it, when buffered, is plausible too)."""
        buf, role, limit = self._buf, self.role, self.max_frame_size
        for p in range(pos, len(buf) - self._peek + 1):
            if plausible(buf, p, role, limit):
                after = p + 4 + _RESP.unpack_from(buf, p)[0]
                if plausible(buf, after, role, limit) is not False:
                    return p
        return None
