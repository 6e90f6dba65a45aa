"""Judging an undecided TCP connection: is it Kafka, and which side sends the requests?

A connection whose broker side neither the handshake nor a known port names is read both ways at once, one
:class:`Reading` per way (for a connection whose handshake was captured, only the way it names): one side's
bytes framed as requests, the other's as responses. A way is *agreed* when its responses answer its requests:
Kafka answers the requests of a connection in the order they were sent ("the server guarantees that on a
single TCP connection, requests will be processed in the order they are sent and responses will return in
that order as well", Kafka's protocol guide), each response carrying its request's correlation id. So the
responses of a true reading echo the correlation ids of its requests, in order, the only requests left
unanswered being Produce requests with ``acks`` 0, which get no response; responses before the first one
that answers a captured request answer requests sent before the capture began. A false reading does not:
a response read as a request takes its API key, version and correlation id from the response's correlation
id and first body bytes, a request read as a response takes its "correlation id" from the request's API key
and version, and a ZooKeeper session read as Kafka pairs its requests' operation codes with its replies'
transaction ids.

A reading is refuted (:attr:`Reading.refuted`) by a response that cannot answer the next request still owed
one, or by bytes that do not frame where a frame should start (not after a gap). The caller
(:class:`~codec.capture.kafka.KafkaTraffic`) takes a way when it has :data:`AGREED_PAIRS` answered requests
and the other way has none (or is refuted); a connection both of whose ways are refuted is not Kafka. Until
then it holds the connection's bytes; when they end or pass its limit, a way with more answered requests
than the other is taken, and failing that, a connection of which only one side's bytes were captured, and
those frame cleanly as requests, is taken that way as a guess (:attr:`Reading.requests_only`), said so in
the summary.

Sans-IO, over :class:`~codec.capture.framing.FrameSplitter`: :meth:`Reading.feed` for each chunk and gap, in
stream order per direction; memory is the splitters' (requests other than Produce and every response are
skipped, not buffered).
"""

from __future__ import annotations

import struct
from collections import deque

from .framing import REQUEST_PEEK, FrameSplitter, RawFrame, Unframed, plausible
from .tcp import SNAP_LENGTH, Chunk, Gap

__all__ = ["Reading", "AGREED_PAIRS", "unanswered_ok"]

AGREED_PAIRS = 2  # answered requests that make a reading agreed while the connection goes on
HEAD_BYTES = 64 + REQUEST_PEEK  # the client side's first bytes looked at for a request header (Reading.headed)
_PRODUCE = 0
_PRODUCE_TXN_FROM, _PRODUCE_FLEXIBLE_FROM = 3, 9  # ProduceRequest.json: transactionalId 3+, flexible 9+
_HEAD = struct.Struct(">hhi")
_RESP_CID = struct.Struct(">i")
_I16 = struct.Struct(">h")


def _uvarint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7
        if shift > 28:
            raise IndexError("varint too long")


def unanswered_ok(frame: bytes) -> bool:
    """Whether a request (``frame``: without its size) gets no response: a Produce request with ``acks`` 0
    (ProduceRequest.json: header v1, v2 from version 9; ``transactionalId`` before ``acks`` from version 3)."""
    try:
        key, version = _HEAD.unpack_from(frame)[:2]
        if key != _PRODUCE:
            return False
        (n,) = _I16.unpack_from(frame, 8)  # client id (a nullable string in every header version)
        pos = 10 + max(n, 0)
        if version >= _PRODUCE_FLEXIBLE_FROM:
            tags, pos = _uvarint(frame, pos)
            for _ in range(tags):
                pos = _uvarint(frame, pos)[1]
                size, pos = _uvarint(frame, pos)
                pos += size
            size, pos = _uvarint(frame, pos)  # compact nullable transactional id: length + 1
            pos += max(size - 1, 0)
        elif version >= _PRODUCE_TXN_FROM:
            (n,) = _I16.unpack_from(frame, pos)
            pos += 2 + max(n, 0)
        return _I16.unpack_from(frame, pos)[0] == 0
    except (struct.error, IndexError):
        return False


class Reading:
    """One way of reading a connection: ``client`` (address, port) sends the requests."""

    def __init__(self, client: tuple[str, int], *, max_frame_size: int) -> None:
        self.client = client
        self.max_frame_size = max_frame_size
        self._splitters: dict[tuple[str, int], FrameSplitter] = {}
        self._requests: list[tuple[int, bool]] = []  # (correlation id, may go unanswered), in order
        self._next = 0  # index of the first request not answered (nor passed as unanswered) yet
        self._responses: deque[int] = deque()  # correlation ids of responses not placed yet
        self.answered = 0  # requests a response answered
        self.before = 0  # responses answering requests sent before the capture began
        self.refuted: str | None = None  # why this reading is false
        self.framed: dict[tuple[str, int], int] = {}  # frames per sending side
        self._after_gap: set[tuple[str, int]] = set()  # sides whose last event was a gap (garbage may follow)
        self._head = bytearray()  # the client side's first bytes (up to HEAD_BYTES)

    @property
    def headed(self) -> bool:
        """A request header starts within the client side's first bytes: a first request may be in progress."""
        head = self._head
        return any(
            plausible(head, p, "request", self.max_frame_size) for p in range(max(len(head) - REQUEST_PEEK + 1, 0))
        )

    @property
    def requests(self) -> int:
        return len(self._requests)

    @property
    def requests_only(self) -> bool:
        """Requests framed cleanly, and no byte from the other side."""
        return self.refuted is None and bool(self._requests) and set(self._splitters) == {self.client}

    def feed(self, event: Chunk | Gap) -> None:
        if self.refuted is not None:
            return
        flow = event.flow
        side = (flow.src, flow.sport)
        sp = self._splitters.get(side)
        if sp is None:
            request = side == self.client
            sp = self._splitters[side] = FrameSplitter(
                flow,
                "request" if request else "response",
                max_frame_size=self.max_frame_size,
                keep=(lambda h: _HEAD.unpack_from(h, 4)[0] == _PRODUCE) if request else (lambda h: False),
                synced=flow.from_client is not None,
            )
        if side == self.client and isinstance(event, Chunk) and len(self._head) < HEAD_BYTES:
            self._head += event.data[: HEAD_BYTES - len(self._head)]
        if isinstance(event, Gap):
            items = sp.gap(event.offset, event.length, snap=event.reason == SNAP_LENGTH)
            self._after_gap.add(side)
        else:
            items = sp.chunk(event.offset, event.data, event.ts)
        self._take(side, items)

    def close(self) -> None:
        """The bytes held end here (the connection ended, or the caller stops holding)."""
        for side, sp in self._splitters.items():
            self._take(side, sp.close())

    def _take(self, side: tuple[str, int], items: list[RawFrame | Unframed]) -> None:
        for item in items:
            if self.refuted is not None:
                return
            if isinstance(item, Unframed):
                if item.reason == "garbage" and self.framed.get(side) and side not in self._after_gap:
                    self.refuted = f"bytes {item.offset}-{item.offset + item.length} do not frame as {item.flow}'s"
                continue
            self.framed[side] = self.framed.get(side, 0) + 1
            self._after_gap.discard(side)
            if side == self.client:
                cid = _HEAD.unpack_from(item.header, 4)[2]
                self._requests.append((cid, item.data is not None and unanswered_ok(item.data)))
            else:
                self._responses.append(_RESP_CID.unpack_from(item.header, 4)[0])
            self._place()

    def _place(self) -> None:
        """Place the waiting responses against the requests (see the module docstring)."""
        reqs = self._requests
        while self._responses:
            cid = self._responses[0]
            j = self._next
            while j < len(reqs) and reqs[j][0] != cid and reqs[j][1]:
                j += 1  # a request that gets no response
            if j == len(reqs):
                return  # its request may not be framed yet (directions are reassembled independently)
            self._responses.popleft()
            if reqs[j][0] == cid:
                self.answered += 1
                self._next = j + 1
            elif not self.answered:
                self.before += 1  # the answer to a request sent before the capture began
            else:
                self.refuted = f"a response with correlation id {cid} where request {reqs[j][0]}'s is owed"
                return
