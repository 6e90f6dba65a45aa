"""Sans-IO Kafka framing of one reassembled TCP direction, with resynchronisation.

A :class:`FrameSplitter` takes a direction's :class:`~codec.capture.tcp.Chunk` and
:class:`~codec.capture.tcp.Gap` records in stream order and returns :class:`RawFrame` (an int32 size and
that many bytes; the frame is returned without the size, as ``frames.jsonl`` and :mod:`codec.group`
store it) and :class:`Unframed` (bytes that could not be framed, with the reason).

Unlike a strict :class:`codec.group.stream.FrameReader`, which refuses to go on after a bad size, a
splitter recovers. After a gap, the frame it cut is reported; when the size of that frame was read before
the gap and the frame ends after it, the rest of the frame is dropped (reported, ``cut by gap``) and
framing goes on exactly where the next frame starts. Otherwise (the gap swallowed the size), and at a
header that cannot be a frame, a :class:`~codec.group.stream.Resynchroniser` finds where framing resumes:
at the plausible header (:func:`plausible`, and the caller's ``confirm(header)`` does not say False: the
capture reader checks the correlation id against the connection's requests) whose frame is confirmed
first, by another such header right after it or by the end of the bytes (the stream's end, or a gap
starting exactly there). A bogus header claiming a large frame therefore cannot swallow the frames behind
it: they are confirmed long before its claimed end. The bytes passed over are reported (``garbage``).
A candidate frame is buffered until it is confirmed (a candidate longer than ``resync_window`` is taken
when nothing else is confirmed within that many bytes), so resynchronising holds up to about
``resync_window`` bytes per direction. This is a heuristic: bytes that merely look like a chain of frame
headers can be taken for frames.

Frames lost with a gap that a limit made the reassembler give up (:attr:`~codec.capture.tcp.Gap.given_up`)
are counted in a :class:`FrameLoss`: the frame the gap cut, each frame that starts inside the gap when
its bytes arrive late after all (:meth:`FrameSplitter.late`: their sizes are read from them, frame by
frame), and the bytes dropped with them.

Frames whose header ``keep(header_bytes)`` rejects are skipped without being buffered (``data`` None),
so a large Fetch response costs no memory.

A gap the capture's snap length made (:data:`~codec.capture.tcp.SNAP_LENGTH`: the packet's last bytes were
cut off) is reported like any other, except that the frame it cuts, when its whole header was captured, comes
out as a :class:`RawFrame` with ``cut`` set (its ``data`` None): its API key, version and correlation id are
known, as tshark's dissector shows them ("packet size limited during capture").
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from dataclasses import dataclass
from typing import Callable

from ..group.stream import (
    _RESP,
    MAX_API_KEY,
    MAX_API_VERSION,
    REQUEST_PEEK,
    RESPONSE_PEEK,
    RESYNC_WINDOW,
    Resynchroniser,
    plausible,
)
from .tcp import Flow

__all__ = [
    "RawFrame",
    "Unframed",
    "FrameLoss",
    "FrameSplitter",
    "plausible",
    "MAX_API_KEY",
    "MAX_API_VERSION",
    "REQUEST_PEEK",
    "RESPONSE_PEEK",
    "RESYNC_WINDOW",
]

MAX_WALKS = 16  # holes per direction whose late bytes are still being read for frame sizes
_SIZE = struct.Struct(">i")


@dataclass(frozen=True, slots=True)
class RawFrame:
    """One frame: ``offset`` of its size field in the stream, ``size``, ``header`` (its first bytes, size
    included: 14 for a request, 8 for a response), ``data`` (the frame after the size; None when
    skipped or cut), capture times of its first and last byte; ``cut``: the capture's snap length cut the
    frame (only its header was captured)."""

    flow: Flow
    offset: int
    size: int
    header: bytes
    data: bytes | None
    ts: float
    ts_end: float
    cut: bool = False


@dataclass(frozen=True, slots=True)
class Unframed:
    """Stream bytes ``[offset, offset + length)`` that are in no frame: ``reason`` is ``cut by gap``
    (the start of a frame that a gap interrupted), ``cut by snap length`` (the same, where the gap is the
    capture's snap length and too little of the frame was captured to read its header), ``garbage``
    (skipped while resynchronising) or ``stream ended inside a frame``."""

    flow: Flow
    offset: int
    length: int
    reason: str


@dataclass(slots=True)
class FrameLoss:
    """What gaps given up because of a limit cost (shared by the splitters of a capture): ``frames`` cut
    by them or starting inside them (those inside counted only when their bytes arrived late), and
    ``skipped_bytes``, captured bytes dropped with those frames (before and after each gap) and while
    looking for the next frame."""

    frames: int = 0
    skipped_bytes: int = 0


class _Walk:
    """Reading frame sizes through the late bytes of a given-up gap: the frame at ``pos`` is counted;
    ``have`` holds the first bytes of its size read so far; frames that start before ``end`` are lost."""

    __slots__ = ("pos", "have", "end")

    def __init__(self, pos: int, have: bytes, end: int) -> None:
        self.pos, self.have, self.end = pos, bytearray(have), end


class FrameSplitter:
    """Split one direction (``role`` ``"request"`` or ``"response"``) into frames. ``synced``: the stream starts
    at a frame (its handshake was captured); else its first frame is found as after damage, by
    resynchronising (the bytes before it are ``garbage``)."""

    def __init__(
        self,
        flow: Flow,
        role: str,
        *,
        max_frame_size: int,
        keep: Callable[[bytes], bool] | None = None,
        loss: FrameLoss | None = None,
        confirm: Callable[[bytes], bool] | None = None,
        resync_window: int = RESYNC_WINDOW,
        synced: bool = True,
    ) -> None:
        self.flow = flow
        self.role = role
        self.max_frame_size = max_frame_size
        self.keep = keep
        self.confirm = confirm
        self.loss = loss if loss is not None else FrameLoss()
        self._peek = REQUEST_PEEK if role == "request" else RESPONSE_PEEK
        self._buf = bytearray()
        self._off = 0  # stream offset of _buf[0]
        self._starts: list[int] = []  # stream offsets where chunks begin (for timestamps) ...
        self._times: list[float] = []  # ... and their capture times
        self._synced = synced  # False: the stream may start inside a frame (no handshake): resynchronise first
        self._skip = 0  # bytes of a skipped frame still to pass
        self._skip_frame: tuple[int, int, bytes, float] | None = None  # (start, size, header, ts) while _skip > 0
        self._tail: list[int] | None = None  # [from, at, end]: the rest of a frame a gap cut, being dropped
        self._losing = False  # bytes dropped now are lost with a given-up gap
        self._walks: list[_Walk] = []
        self._resyncer = Resynchroniser(role, max_frame_size, window=resync_window, confirm=confirm)

    def _unframed(self, offset: int, length: int, reason: str) -> Unframed:
        if self._losing:
            self.loss.skipped_bytes += length
        return Unframed(self.flow, offset, length, reason)

    def chunk(self, offset: int, data: bytes, ts: float) -> list[RawFrame | Unframed]:
        """Bytes at ``offset`` (the stream position right after what came before)."""
        out: list[RawFrame | Unframed] = []
        if self._tail is not None:
            start, _, end = self._tail
            n = min(end - offset, len(data))
            offset, data = offset + n, data[n:]
            self._tail[1] = offset
            if offset >= end:
                out.append(self._unframed(start, end - start, "cut by gap"))
                self._tail, self._synced, self._losing = None, True, False
            if not data:
                return out
        if self._skip_frame is not None:  # (set exactly while ``_skip`` bytes of it remain)
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
        self._split(out)
        return out

    def gap(self, offset: int, length: int, *, given_up: bool = False, snap: bool = False) -> list[RawFrame | Unframed]:
        """Bytes ``[offset, offset + length)`` are missing: drop the frame they cut, then go on where the
        next frame starts, or resynchronise. ``given_up``: a limit made the reassembler give the bytes up
        (the frames lost are counted in :attr:`loss`, and late bytes may still come, see :meth:`late`).
        ``snap``: the capture's snap length cut them off (the frame they cut comes out ``cut`` when its
        header was captured)."""
        out: list[RawFrame | Unframed] = []
        self._settle(out)
        end = offset + length
        self._losing = given_up or self._losing
        cut = False  # a frame is cut that was not counted yet
        start = boundary = None  # where that frame starts, and where the frame after it starts
        head = b""  # the first bytes of its size, when fewer than 4 were read
        if self._tail is not None:  # the rest of a frame an earlier gap cut: its end is known
            t0, _, boundary = self._tail
            if offset > t0:
                out.append(self._unframed(t0, offset - t0, "cut by gap"))
            self._tail = None
        elif self._skip_frame is not None:
            start, size, header, first_ts = self._skip_frame
            if snap:
                out.append(RawFrame(self.flow, start, size, header, None, first_ts, first_ts, True))
            else:
                out.append(self._unframed(start, offset - start, "cut by gap"))
            self._skip, self._skip_frame = 0, None
            cut, boundary = True, start + 4 + size
        elif self._synced:
            cut, start = True, self._off if self._buf else offset
            if snap and plausible(self._buf, 0, self.role, self.max_frame_size):
                first_ts = self._ts_at(self._off)
                size = _SIZE.unpack_from(self._buf)[0]
                header = bytes(self._buf[: self._peek])
                out.append(RawFrame(self.flow, self._off, size, header, None, first_ts, first_ts, True))
            elif self._buf:
                out.append(self._unframed(self._off, len(self._buf), "cut by snap length" if snap else "cut by gap"))
            if len(self._buf) >= 4:
                size = _SIZE.unpack_from(self._buf)[0]
                boundary = start + 4 + size if 0 <= size <= self.max_frame_size else None
            else:
                head = bytes(self._buf)
        elif self._buf:
            out.append(self._unframed(self._off, len(self._buf), "garbage"))
        self._buf.clear()
        self._synced = False
        self._resyncer.reset()
        if given_up and cut:
            self.loss.frames += 1
        if boundary is not None and boundary >= end:
            if boundary > end:
                self._tail = [end, end, boundary]
            else:
                self._synced, self._losing = True, False
        elif given_up and (boundary is not None or cut):
            if boundary is not None:  # the next frame starts inside the gap: lost too
                self.loss.frames += 1
                start, head = boundary, b""
            assert start is not None  # set with ``cut``, or to the boundary just above
            if offset <= start + len(head) < end and start + 4 < end:  # the late bytes will say what follows
                self._walks.append(_Walk(start, head, end))
                del self._walks[:-MAX_WALKS]
        return out

    def late(self, offset: int, data: bytes) -> None:
        """Bytes of a given-up gap that arrived after all: count the frames that start inside the gap."""
        for w in list(self._walks):
            while True:
                at = w.pos + len(w.have)
                if not offset <= at < offset + len(data):
                    break
                w.have += data[at - offset : at - offset + 4 - len(w.have)]
                if len(w.have) < 4:
                    break
                size = _SIZE.unpack_from(w.have)[0]
                following = w.pos + 4 + size
                if not 0 <= size <= self.max_frame_size or following >= w.end:
                    self._walks.remove(w)
                    break
                self.loss.frames += 1  # the frame at ``following`` starts inside the gap
                w.pos, w.have = following, bytearray()
                if w.pos + 4 >= w.end:  # no other frame can start inside the gap
                    self._walks.remove(w)
                    break

    def close(self) -> list[RawFrame | Unframed]:
        """The stream ended: frames an open resynchronisation can place, then whatever is left is an
        incomplete frame."""
        out: list[RawFrame | Unframed] = []
        self._settle(out)
        if self._skip_frame is not None:
            start, size = self._skip_frame[:2]
            out.append(Unframed(self.flow, start, size + 4 - self._skip, "stream ended inside a frame"))
            self._skip, self._skip_frame = 0, None
        elif self._tail is not None:
            t0, at, _ = self._tail
            if at > t0:
                out.append(self._unframed(t0, at - t0, "cut by gap"))
            self._tail = None
        elif self._buf:
            out.append(
                self._unframed(self._off, len(self._buf), "stream ended inside a frame" if self._synced else "garbage")
            )
        self._buf.clear()
        self._resyncer.reset()
        self._walks.clear()
        return out

    def _ts_at(self, offset: int) -> float:
        return self._times[max(bisect_right(self._starts, offset) - 1, 0)]

    def _consume(self, n: int) -> None:
        del self._buf[:n]
        self._off += n
        i = bisect_right(self._starts, self._off) - 1
        if i > 0:
            del self._starts[:i], self._times[:i]

    def _split(self, out: list, *, final: bool = False) -> None:
        """Take the frames of the buffer; ``final``: no byte follows it (the stream ended or a gap starts),
        so a resynchronisation still open is settled and the bytes it cannot place are garbage."""
        buf, peek, limit = self._buf, self._peek, self.max_frame_size
        pos = 0
        while True:
            if not self._synced:
                found = self._resyncer.find(buf, self._off, pos, final=final)
                if found is None:  # keep the bytes that may still start the frame to resume at
                    keep_from = len(buf) if final else self._resyncer.keep_from(self._off, pos)
                    if keep_from > pos:
                        out.append(self._unframed(self._off + pos, keep_from - pos, "garbage"))
                    pos = keep_from
                    break
                if found > pos:
                    out.append(self._unframed(self._off + pos, found - pos, "garbage"))
                pos = found
                self._synced, self._losing = True, False
            ok = plausible(buf, pos, self.role, limit)
            if ok is None:
                break
            if not ok:
                self._synced = False
                continue
            size = _RESP.unpack_from(buf, pos)[0]
            start = self._off + pos
            header = bytes(buf[pos : pos + peek])
            if self.keep is not None and not self.keep(header):
                have = len(buf) - pos - 4
                if have >= size:
                    out.append(
                        RawFrame(
                            self.flow, start, size, header, None, self._ts_at(start), self._ts_at(start + 3 + size)
                        )
                    )
                    pos += 4 + size
                    continue
                self._skip, self._skip_frame = size - have, (start, size, header, self._ts_at(start))
                pos = len(buf)
                break
            if len(buf) - pos - 4 < size:
                break
            out.append(
                RawFrame(
                    self.flow,
                    start,
                    size,
                    header,
                    bytes(buf[pos + 4 : pos + 4 + size]),
                    self._ts_at(start),
                    self._ts_at(start + 3 + size),
                )
            )
            pos += 4 + size
        self._consume(pos)

    def _settle(self, out: list) -> None:
        """Before a gap or the end: frames a resynchronisation still open can place (see :meth:`_split`)."""
        if not self._synced and self._buf and self._tail is None and not self._skip:
            self._split(out, final=True)
