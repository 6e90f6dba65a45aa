"""Sans-IO framing: split a byte stream into frames, and pair responses with their requests.

:class:`FrameReader` works like h11's receive buffer: ``feed()`` bytes in any chunking, then iterate
(or call :meth:`~FrameReader.next_frame`) to take the complete frames; nothing blocks, nothing is lost,
a partial frame waits for more bytes. A size below 0 or above ``max_frame_size`` is a
:class:`LimitExceededError` (Kafka's ``InvalidReceiveException``), after which the reader refuses to go
on, since the stream can no longer be framed.

:class:`Connection` is one TCP connection's bookkeeping (wire-facts §7: "a response takes its API key
and version from the request with the same correlation id on the same connection").
"""

from __future__ import annotations

import struct
from typing import Iterator

from ..errors import DecodeError, LimitExceededError, TruncatedError
from .frames import RequestFrame, ResponseFrame, decode_request_frame, decode_response_frame

__all__ = ["DEFAULT_MAX_FRAME_SIZE", "FrameReader", "Connection"]

# Kafka brokers refuse request frames above socket.request.max.bytes, default 104857600 (100 MiB)
# (SocketServerConfigs.SOCKET_REQUEST_MAX_BYTES_DEFAULT). Group messages are far smaller, but a leader's
# SyncGroup carries every member's assignment, so the limit is the broker's own rather than a guess.
DEFAULT_MAX_FRAME_SIZE = 100 * 1024 * 1024

_SIZE = struct.Struct(">i")


class FrameReader:
    """Split a byte stream into frames (each returned without its int32 size)."""

    def __init__(self, *, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> None:
        if max_frame_size < 0:
            raise ValueError("max_frame_size must be >= 0")
        self.max_frame_size = max_frame_size
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
            self._error = LimitExceededError(f"frame size {size} is {why}", message="frame",
                                             offset=self._start, path="size")
            raise self._error
        if len(self._buf) < 4 + size:
            return None
        frame = bytes(self._buf[4:4 + size])
        del self._buf[:4 + size]
        self._start += 4 + size
        return frame

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
