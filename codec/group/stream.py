"""Sans-IO framing: split a byte stream into frames, and pair responses with their requests.

:class:`FrameReader` works like h11's receive buffer: ``feed()`` bytes in any chunking, then iterate
(or call :meth:`~FrameReader.next_frame`) to take the complete frames; nothing blocks, nothing is lost,
a partial frame waits for more bytes. A size below 0 or above ``max_frame_size`` is a
:class:`LimitExceededError` (Kafka's ``InvalidReceiveException``), after which a strict reader refuses to
go on; a reader told its direction resynchronises on the next plausible frame header instead.

:class:`Connection` is one TCP connection's bookkeeping (wire-facts §7: "a response takes its API key
and version from the request with the same correlation id on the same connection").
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Iterator

from ..errors import DecodeError, LimitExceededError, TruncatedError
from .frames import RequestFrame, ResponseFrame, decode_request_frame, decode_response_frame

__all__ = ["DEFAULT_MAX_FRAME_SIZE", "FrameReader", "Skipped", "Connection", "plausible", "MAX_API_KEY",
           "MAX_API_VERSION", "REQUEST_PEEK", "RESPONSE_PEEK"]

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



def plausible(buf: bytes | bytearray, pos: int, role: str, max_frame_size: int) -> bool | None:
    """Whether a frame header starts at ``buf[pos]``: True, False, or None when too few bytes are
    there to tell."""
    if role == "request":
        if len(buf) - pos < REQUEST_PEEK:
            return None
        size, key, version, cid, client_len = _REQ.unpack_from(buf, pos)
        return (10 <= size <= max_frame_size and 0 <= key <= MAX_API_KEY and 0 <= version <= MAX_API_VERSION
                and cid >= 0 and -1 <= client_len <= size - 10)
    if len(buf) - pos < RESPONSE_PEEK:
        return None
    size, cid = _RESP.unpack_from(buf, pos)
    return 4 <= size <= max_frame_size and cid >= 0


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
    ``skipped``), scans forward to the next offset where a plausible frame header starts
    (:func:`plausible`) and goes on from there, so one corrupted frame costs only its own bytes."""

    def __init__(self, *, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE, role: str | None = None) -> None:
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
        if len(self._buf) < 4:
            return None
        (size,) = _SIZE.unpack_from(self._buf)
        if size < 0 or size > self.max_frame_size:
            why = "negative" if size < 0 else f"above the maximum {self.max_frame_size}"
            if self.role is not None:
                return self._resynchronise(f"frame size {size} is {why}")
            self._error = LimitExceededError(f"frame size {size} is {why}", message="frame",
                                             offset=self._start, path="size")
            raise self._error
        if len(self._buf) < 4 + size:
            return None
        frame = bytes(self._buf[4:4 + size])
        del self._buf[:4 + size]
        self._start += 4 + size
        return frame

    def _resynchronise(self, reason: str) -> bytes | None:
        """Drop bytes up to the next plausible frame header (keeping what may still become one)."""
        pos = 1
        while pos < len(self._buf):
            ok = plausible(self._buf, pos, self.role, self.max_frame_size)
            if ok is None:  # too few bytes to tell: wait for more
                break
            if ok:
                after = pos + 4 + _SIZE.unpack_from(self._buf, pos)[0]
                if plausible(self._buf, after, self.role, self.max_frame_size) is not False:
                    break  # the frame that would follow is plausible too, or not here yet
            pos += 1
        last = self.skipped[-1] if self.skipped else None
        if last is not None and last.offset + last.length == self._start:  # one run of garbage, one record
            self.skipped[-1] = Skipped(last.offset, last.length + pos, last.reason)
        else:
            self.skipped.append(Skipped(self._start, pos, reason))
        del self._buf[:pos]
        self._start += pos
        return self.next_frame()

    def __iter__(self) -> Iterator[bytes]:
        while (frame := self.next_frame()) is not None:
            yield frame

    def close(self) -> None:
        """The peer closed the stream: a partial frame left over is a TruncatedError."""
        if self._error is not None:
            raise self._error
        if self._buf:
            need = 4 + _SIZE.unpack_from(self._buf)[0] if len(self._buf) >= 4 else 4
            raise TruncatedError(f"stream ended inside a frame (need {need}, have {len(self._buf)})",
                                 message="frame", offset=self._start)


class Connection:
    """One connection's requests and responses, paired by correlation id.

    ``request(frame)`` decodes a request frame and remembers its API key and version (and, for a
    JoinGroup, the protocol type; from the JoinGroup response, the selected protocol name), so that
    ``response(frame)`` can decode the answer, including its nested layers."""

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
        frame = decode_request_frame(data, nested=self.nested)
        if frame.correlation_id in self._pending:
            raise DecodeError(f"correlation id {frame.correlation_id} is already waiting for a response",
                              message="RequestHeader", offset=4, path="correlation_id")
        self._pending[frame.correlation_id] = frame
        if frame.api_key == 11:
            self._protocol_type = frame.body.protocol_type
        return frame

    def response(self, data: bytes) -> tuple[RequestFrame, ResponseFrame]:
        """Decode a response and return it with its request (which is no longer pending)."""
        if len(data) < 4:
            raise TruncatedError(f"truncated (need 4, have {len(data)})", message="ResponseHeader", offset=0,
                                 path="correlation_id")
        (cid,) = _SIZE.unpack_from(data)
        req = self._pending.pop(cid, None)
        if req is None:
            raise DecodeError(f"no request with correlation id {cid} is waiting for a response",
                              message="ResponseHeader", offset=0, path="correlation_id")
        resp = decode_response_frame(data, req.api_key, req.api_version, nested=self.nested,
                                     protocol_type=self._protocol_type, protocol_name=self._protocol_name)
        if req.api_key == 11:
            self._protocol_name = resp.body.protocol_name
        return req, resp
