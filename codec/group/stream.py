"""Sans-IO framing: split a byte stream into frames, and pair responses with their requests.

:class:`FrameReader` works like h11's receive buffer: ``feed()`` bytes in any chunking, then iterate
(or call :meth:`~FrameReader.next_frame`) to take the complete frames; nothing blocks, nothing is lost,
a partial frame waits for more bytes. A size below 0 or above ``max_frame_size`` is a
:class:`LimitExceededError` (Kafka's ``InvalidReceiveException``), after which a strict reader refuses to
go on; a reader told its direction resynchronises instead (:class:`Resynchroniser`, shared with the
capture reader's :class:`codec.capture.framing.FrameSplitter`).

:class:`Connection` is one TCP connection's bookkeeping (wire-facts §7: "a response takes its API key
and version from the request with the same correlation id on the same connection").
"""

from __future__ import annotations

import heapq
import re
import struct
from bisect import bisect_left
from dataclasses import dataclass
from typing import Callable, Iterator

from ..errors import DecodeError, LimitExceededError, TruncatedError
from .frames import RequestFrame, ResponseFrame, decode_request_frame, decode_response_frame

__all__ = [
    "DEFAULT_MAX_FRAME_SIZE",
    "FrameReader",
    "Skipped",
    "Connection",
    "Resynchroniser",
    "plausible",
    "MAX_API_KEY",
    "MAX_API_VERSION",
    "REQUEST_PEEK",
    "RESPONSE_PEEK",
    "RESYNC_WINDOW",
]

# Kafka brokers refuse request frames above socket.request.max.bytes, default 104857600 (100 MiB)
# (SocketServerConfigs.SOCKET_REQUEST_MAX_BYTES_DEFAULT). Group messages are far smaller, but a leader's
# SyncGroup carries every member's assignment, so the limit is the broker's own rather than a guess.
DEFAULT_MAX_FRAME_SIZE = 100 * 1024 * 1024

_SIZE = struct.Struct(">i")

# Kafka's API keys reach the 90s (KIP-848, KIP-932, KIP-1071) and versions the teens; leave headroom.
MAX_API_KEY = 127
MAX_API_VERSION = 31
REQUEST_PEEK = 14  # size, api key, api version, correlation id, client id length
RESPONSE_PEEK = 8  # size, correlation id
_REQ = struct.Struct(">ihhih")
_RESP = struct.Struct(">ii")
# Resynchronising: how far past a candidate header the reader looks for the header that confirms it.
RESYNC_WINDOW = 1 << 20
RESYNC_CHAIN = 3  # frames of a chain inside a candidate's frame that refute it
MAX_CANDIDATES = 1 << 16  # candidates kept at once (beyond, the resynchroniser decides at once)


def plausible(buf: bytes | bytearray, pos: int, role: str, max_frame_size: int) -> bool | None:
    """Whether a frame header starts at ``buf[pos]``: True, False, or None when too few bytes are
    there to tell."""
    if role == "request":
        if len(buf) - pos < REQUEST_PEEK:
            return None
        size, key, version, cid, client_len = _REQ.unpack_from(buf, pos)
        return (
            10 <= size <= max_frame_size
            and 0 <= key <= MAX_API_KEY
            and 0 <= version <= MAX_API_VERSION
            and cid >= 0
            and -1 <= client_len <= size - 10
        )
    if len(buf) - pos < RESPONSE_PEEK:
        return None
    size, cid = _RESP.unpack_from(buf, pos)
    return 4 <= size <= max_frame_size and cid >= 0


def _could_start(buf: bytes | bytearray, pos: int, role: str, max_frame_size: int) -> bool:
    """Whether the bytes from ``pos`` to the end of ``buf`` (fewer than a header) could start a frame header:
    every field they hold whole is in range (see :func:`plausible`)."""
    n = len(buf) - pos
    size = _SIZE.unpack_from(buf, pos)[0] if n >= 4 else None
    if role == "request":
        if size is not None and not 10 <= size <= max_frame_size:
            return False
        if n >= 6 and not 0 <= struct.unpack_from(">h", buf, pos + 4)[0] <= MAX_API_KEY:
            return False
        if n >= 8 and not 0 <= struct.unpack_from(">h", buf, pos + 6)[0] <= MAX_API_VERSION:
            return False
        return n < 12 or _SIZE.unpack_from(buf, pos + 8)[0] >= 0
    return size is None or 4 <= size <= max_frame_size


def _header_prefilter(role: str, max_frame_size: int) -> re.Pattern:
    """A bytes pattern matching (with a zero-width lookahead, so at every offset) where a header may start:
    the size's first byte at most ``max_frame_size``'s, the size not below the role's minimum, the
    correlation id's (responses) or the API key's, version's and correlation id's (requests) sign and high
    bytes in range. Every offset :func:`plausible` accepts matches; most others do not."""
    top = min(max_frame_size >> 24, 0x7F)
    low = 10 if role == "request" else 4
    first = rb"[\x01-%s]" % re.escape(bytes([top])) if top else None
    size = rb"(?:\x00[\x01-\xff]..|\x00\x00[\x01-\xff].|\x00\x00\x00[%s-\xff]" % re.escape(bytes([low]))
    size += (rb"|" + first + rb"...)") if first is not None else rb")"
    if role == "request":  # api key 0-127, version 0-31, correlation id not negative
        rest = rb"\x00[\x00-\x7f]\x00[\x00-\x1f][\x00-\x7f]"
    else:  # correlation id not negative
        rest = rb"[\x00-\x7f]"
    return re.compile(rb"(?s)(?=" + size + rest + rb")")


class Resynchroniser:
    """Where framing resumes after damage (a bad size, garbage, a gap) in one direction of a connection.

    A *candidate* is an offset where a plausible header starts (:func:`plausible`, and the caller's
    ``confirm(header)`` does not say False). A candidate is *confirmed* when a candidate starts right after
    its frame, or, at the end of the bytes (``final``: the stream ended, or a gap starts), when its frame ends
    there or is followed by fewer bytes than a header that could start one; it is *dead* when the header
    after its frame is not a candidate. At the end of the bytes, the earliest candidate whose frame the end
    cuts is taken (it is the frame a gap cuts) unless a later candidate is confirmed. Framing resumes at the
    earliest candidate that is confirmed and not *refuted*: a candidate is refuted when the frame it claims
    holds a chain of :data:`RESYNC_CHAIN` or more frames, each followed by the next one's header, that lands
    exactly on the claimed frame's end. So a bogus header claiming a large frame cannot swallow the real
    frames behind it: it dies at its claimed end, or, when that end happens to fall on a real frame's start,
    the real frames inside refute it; while a real frame whose bytes merely hold a few plausible headers is
    still taken.

    The earliest candidate is waited for until its frame is confirmed or dies, for at most ``window``
    bytes: then it is taken unless refuted by a chain alive at the end of the bytes (so a genuine frame
    larger than the window is still read). Memory: the bytes from the earliest living candidate on, about
    ``window`` at most, and at most :data:`MAX_CANDIDATES` candidates (beyond, the decision is taken at
    once). Work: each offset is examined once; a refutation looks at each candidate inside the frame once.

    Sans-IO over the caller's buffer: :meth:`find` is called with the buffer, the stream offset of its first
    byte and where to look from, as bytes arrive; :meth:`keep_from` says which bytes may still matter."""

    def __init__(
        self,
        role: str,
        max_frame_size: int,
        *,
        window: int = RESYNC_WINDOW,
        confirm: Callable[[bytes], bool] | None = None,
    ) -> None:
        if role not in ("request", "response"):
            raise ValueError("role must be 'request' or 'response'")
        self.role, self.max_frame_size, self.window, self.confirm = role, max_frame_size, window, confirm
        self.peek = REQUEST_PEEK if role == "request" else RESPONSE_PEEK
        self._maybe = _header_prefilter(role, max_frame_size)
        self.reset()

    def reset(self) -> None:
        """Forget every candidate (framing resumed, or the bytes were dropped)."""
        # stream offset -> [end of its frame, True confirmed / False dead / None not known yet]
        self._cands: dict[int, list] = {}
        self._order: list[int] = []  # the candidates' offsets, ascending
        self._first = 0  # index in _order of the earliest candidate not known dead
        self._pending: list[tuple[int, int]] = []  # heap of (end, offset) of candidates not decided yet
        self._scanned: int | None = None  # stream offset up to which starts were examined

    def _candidate(self, buf: bytes | bytearray, p: int) -> bool:
        return bool(plausible(buf, p, self.role, self.max_frame_size)) and (
            self.confirm is None or self.confirm(bytes(buf[p : p + self.peek])) is not False
        )

    def find(self, buf: bytes | bytearray, off: int, pos: int, *, final: bool = False) -> int | None:
        """The index in ``buf`` (whose first byte is at stream offset ``off``) where framing resumes, looking
        at starts from ``pos`` on; None when not decided yet (more bytes are needed) or, with ``final``
        (no byte follows ``buf``), when no candidate is left."""
        peek, cands = self.peek, self._cands
        start = pos if self._scanned is None else max(pos, self._scanned - off)
        last = len(buf) - peek
        for m in self._maybe.finditer(buf, start, len(buf)):  # a superset of the plausible starts, found in C
            p = m.start()
            if p > last:
                break
            if self._candidate(buf, p):
                end = off + p + 4 + _SIZE.unpack_from(buf, p)[0]
                cands[off + p] = [end, None]
                self._order.append(off + p)
                heapq.heappush(self._pending, (end, off + p))
        self._scanned = off + max(start, last + 1)
        pending = self._pending
        while pending and pending[0][0] - off + peek <= len(buf):  # the header after the frame is here
            end, at = heapq.heappop(pending)
            if at in cands:
                cands[at][1] = end in cands
        stop = off + len(buf)
        crowded = len(cands) > MAX_CANDIDATES
        while self._first < len(self._order):
            at = self._order[self._first]
            end, known = cands[at]
            if known is False:
                self._first += 1
                continue
            if known is None:
                if final and end > stop:  # cut by the end: the frame a gap cuts, unless a frame inside is whole
                    if self._whole_inside(buf, off, stop):
                        cands[at][1] = False
                        continue
                    self.reset()
                    return at - off
                if final and not self._ends_well(buf, off, end, stop):
                    cands[at][1] = False
                    continue
                if not final and not crowded and stop - at < self.window + peek:
                    return None  # wait: its frame is confirmed or dies within the window
                edge = min(end, stop)
            else:
                edge = end
            if self._refuted(at, edge, stop, final):
                cands[at][1] = False
                continue
            self.reset()
            return at - off
        if final:
            self.reset()
        return None

    def _ends_well(self, buf: bytes | bytearray, off: int, end: int, stop: int) -> bool:
        """At the end of the bytes: a frame ending at ``end`` is followed by nothing, or by fewer bytes than a
        header that could start one."""
        return end == stop or (
            stop - self.peek < end < stop and _could_start(buf, end - off, self.role, self.max_frame_size)
        )

    def _whole_inside(self, buf: bytes | bytearray, off: int, stop: int) -> bool:
        """At the end of the bytes: whether a candidate after the earliest one is confirmed or ends well."""
        order, cands = self._order, self._cands
        for k in range(self._first + 1, len(order)):
            end, known = cands[order[k]]
            if known or (known is None and end <= stop and self._ends_well(buf, off, end, stop)):
                return True
        return False

    def _refuted(self, at: int, edge: int, stop: int, final: bool) -> bool:
        """Whether a chain of at least RESYNC_CHAIN frames, each followed by the next one's header, starts
        inside the frame at ``at`` and lands exactly on ``edge`` (the end of that frame) or, when ``edge`` is
        the end of the bytes ``stop`` and more bytes may come, is still alive there."""
        order, cands = self._order, self._cands
        open_end = edge == stop and not final
        i, j = self._first + 1, bisect_left(order, edge, self._first + 1)
        frames: dict[int, int] = {}  # candidate -> frames of its chain up to ``edge`` (absent: it misses it)
        for k in range(j - 1, i - 1, -1):
            c = order[k]
            end, known = cands[c]
            if end == edge and (known or (final and end == stop)):
                n = 1
            elif known is None:
                if not open_end:
                    continue
                n = 0  # alive at the end of the bytes: frames before it count
            elif known and end < edge and end in frames:
                n = frames[end] + 1
            else:
                continue
            frames[c] = n
            if n >= RESYNC_CHAIN:
                return True
        return False

    def keep_from(self, off: int, pos: int) -> int:
        """The first index (at least ``pos``) of the buffer at stream offset ``off`` that may still start
        the frame framing resumes at; the bytes before it are garbage."""
        if self._first > 4096 and self._first * 2 > len(self._order):  # forget the dead ones before it
            for c in self._order[: self._first]:
                self._cands.pop(c, None)
            del self._order[: self._first]
            self._first = 0
        keep = pos if self._scanned is None else self._scanned - off
        if self._first < len(self._order):
            keep = min(keep, self._order[self._first] - off)
        return max(pos, keep)


@dataclass(frozen=True, slots=True)
class Skipped:
    """Stream bytes ``[offset, offset + length)`` a recovering reader dropped, and why."""

    offset: int
    length: int
    reason: str


class FrameReader:
    """Split a byte stream into frames (each returned without its int32 size).

    Strict by default: a bad size ends the stream. Given the direction (``role="request"`` or
    ``"response"``), the reader *recovers* instead: it records the bad bytes as :class:`Skipped` (in
    ``skipped``) and resumes at the next frame a :class:`Resynchroniser` confirms (a plausible header
    followed, right after its frame, by another plausible header or the end of the stream), so that one
    corrupted frame costs only its own bytes and a bogus header cannot swallow the frames behind it. A
    frame confirmed only by the end of the stream comes out of :meth:`close`."""

    def __init__(
        self,
        *,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
        role: str | None = None,
        resync_window: int = RESYNC_WINDOW,
    ) -> None:
        if max_frame_size < 0:
            raise ValueError("max_frame_size must be >= 0")
        if role not in (None, "request", "response"):
            raise ValueError("role must be None, 'request' or 'response'")
        self.max_frame_size = max_frame_size
        self.role = role
        self.skipped: list[Skipped] = []
        self._buf = bytearray()
        self._start = 0  # stream offset of _buf[0]
        self._error: DecodeError | None = None
        self._resync = None if role is None else Resynchroniser(role, max_frame_size, window=resync_window)
        self._lost: str | None = None  # why the reader is resynchronising (None: it is not)
        self._closed = False

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Append bytes received from the peer (any amount, including none)."""
        self._buf += data

    @property
    def buffered(self) -> int:
        """Bytes received but not yet returned as a frame."""
        return len(self._buf)

    @property
    def offset(self) -> int:
        """Stream offset of the next frame's size field."""
        return self._start

    def next_frame(self) -> bytes | None:
        """The next complete frame, or None when more bytes are needed."""
        if self._error is not None:
            raise self._error
        if self._lost is not None and not self._resynchronise():
            return None
        if len(self._buf) < 4:
            return None
        (size,) = _SIZE.unpack_from(self._buf)
        if size < 0 or size > self.max_frame_size:
            why = "negative" if size < 0 else f"above the maximum {self.max_frame_size}"
            if self.role is not None:
                self._lost = f"frame size {size} is {why}"
                self._skip(1)
                return self.next_frame()
            self._error = LimitExceededError(
                f"frame size {size} is {why}", message="frame", offset=self._start, path="size"
            )
            raise self._error
        if len(self._buf) < 4 + size:
            return None
        frame = bytes(self._buf[4 : 4 + size])
        del self._buf[: 4 + size]
        self._start += 4 + size
        return frame

    def _resynchronise(self) -> bool:
        """Drop the bytes that cannot start the frame to resume at; True once framing resumes."""
        resync = self._resync
        assert resync is not None  # framing is only lost (self._lost) in a stream given a role, which resyncs
        found = resync.find(self._buf, self._start, 0, final=self._closed)
        if found is None:
            self._skip(len(self._buf) if self._closed else resync.keep_from(self._start, 0))
            return False
        self._skip(found)
        self._lost = None
        return True

    def _skip(self, n: int) -> None:
        if not n:
            return
        reason = self._lost or "garbage"
        last = self.skipped[-1] if self.skipped else None
        if last is not None and last.offset + last.length == self._start and last.reason == reason:
            self.skipped[-1] = Skipped(last.offset, last.length + n, reason)  # one run of garbage, one record
        else:
            self.skipped.append(Skipped(self._start, n, reason))
        del self._buf[:n]
        self._start += n

    def __iter__(self) -> Iterator[bytes]:
        while (frame := self.next_frame()) is not None:
            yield frame

    def close(self) -> list[bytes]:
        """The peer closed the stream. Strict: a partial frame left over is a TruncatedError. Recovering:
        returns the frames not taken yet (those the end of the stream confirms among them); a partial frame
        left over is skipped (``stream ended inside a frame``)."""
        if self._error is not None:
            raise self._error
        if self.role is None:
            if self._buf:
                need = 4 + _SIZE.unpack_from(self._buf)[0] if len(self._buf) >= 4 else 4
                raise TruncatedError(
                    f"stream ended inside a frame (need {need}, have {len(self._buf)})",
                    message="frame",
                    offset=self._start,
                )
            return []
        self._closed = True
        frames = list(self)
        if self._buf:
            self._lost = "stream ended inside a frame"
            self._skip(len(self._buf))
            self._lost = None
        return frames


class Connection:
    """One connection's requests and responses, paired by correlation id.

    ``request(frame)`` decodes a request frame and remembers its API key and version (and, for a
    JoinGroup, the protocol type; from the JoinGroup response, the selected protocol name), so that
    ``response(frame)`` can decode the answer, and a later SyncGroup request, including their nested
    layers."""

    def __init__(self, *, nested: bool = True) -> None:
        self.nested = nested
        self._pending: dict[int, RequestFrame] = {}
        self._protocol_type: str | None = None
        self._protocol_name: str | None = None

    @property
    def pending(self) -> dict[int, RequestFrame]:
        """Requests still waiting for their response, by correlation id."""
        return dict(self._pending)

    def request(self, data: bytes) -> RequestFrame:
        # a SyncGroup request before v5 does not say its protocol type: the JoinGroup's (a Connect group's
        # assignments are Connect's, not ConsumerProtocol)
        frame = decode_request_frame(
            data, nested=self.nested, protocol_type=self._protocol_type, protocol_name=self._protocol_name
        )
        if frame.correlation_id in self._pending:
            raise DecodeError(
                f"correlation id {frame.correlation_id} is already waiting for a response",
                message="RequestHeader",
                offset=4,
                path="correlation_id",
            )
        self._pending[frame.correlation_id] = frame
        if frame.api_key == 11:
            self._protocol_type = frame.body.protocol_type
        return frame

    def response(self, data: bytes) -> tuple[RequestFrame, ResponseFrame]:
        """Decode a response and return it with its request (which is no longer pending)."""
        if len(data) < 4:
            raise TruncatedError(
                f"truncated (need 4, have {len(data)})", message="ResponseHeader", offset=0, path="correlation_id"
            )
        (cid,) = _SIZE.unpack_from(data)
        req = self._pending.pop(cid, None)
        if req is None:
            raise DecodeError(
                f"no request with correlation id {cid} is waiting for a response",
                message="ResponseHeader",
                offset=0,
                path="correlation_id",
            )
        resp = decode_response_frame(
            data,
            req.api_key,
            req.api_version,
            nested=self.nested,
            protocol_type=self._protocol_type,
            protocol_name=self._protocol_name,
        )
        if req.api_key == 11:
            self._protocol_name = resp.body.protocol_name
        return req, resp
