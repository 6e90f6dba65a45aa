"""Kafka connections in reassembled TCP traffic: which side is the broker, frames, request/response pairs.

:class:`KafkaTraffic` consumes the events of :class:`~codec.capture.tcp.Reassembler` and returns
:class:`KafkaFrame`, :class:`~codec.capture.framing.Unframed` and :class:`~codec.capture.tcp.Gap` records
of the connections it takes for Kafka. Which connections, and which direction carries requests:

1. a connection one of whose ports (only one) is in ``ports`` (default 9092; the ``--port`` of the command)
   is Kafka, that port the broker's;
2. else, the handshake, when captured, names the client (the SYN sender), and the connection is Kafka when
   its requests and responses agree (below);
3. else the connection is read both ways, and it is Kafka, the way its requests and responses agree
   (:mod:`codec.capture.direction`: the responses echo the requests' correlation ids, in order).

A broker port found by rule 2 or 3 is added to ``ports`` (so later connections to it are taken at once);
only then. Until a connection is decided, up to ``detect_limit`` bytes of it are held (:data:`HOLD_FRAMING`
times as many while its client side starts with a request header: a large first request may come long before
its response). When its bytes end, or pass that limit, undecided: a way with more answered requests than the
other is taken; failing that, a connection of which only one side's bytes were captured, framing cleanly as
requests, is taken as a guess (:attr:`KafkaTraffic.guessed`: the summary says so, and that ``--port``
settles it); any other is not taken (its bytes counted in :attr:`KafkaTraffic.ignored_bytes`, the
connection in :attr:`KafkaTraffic.not_kafka`).

Pairing (wire-facts §7): a response takes its API key and version from the request with the same
correlation id on the same connection. Directions are reassembled independently, so a response may be
framed before its request: it is held until the request shows up or the connection closes (then it
goes out unpaired, ``api_key`` None). At most ``max_pending`` requests and held responses are kept per
connection, the oldest dropped first.

Resynchronising (after a gap or garbage, see :mod:`~codec.capture.framing`) takes a header only if its
correlation id fits the connection: a waiting request's (for a response), or within ``RESYNC_CID_WINDOW``
of the last request framed on the connection (clients number their requests from a counter: per
connection, or, in the Java client, shared by its connections, so that a connection's ids stay close but
need not ascend; a response's request may not be framed yet). Random bytes (a Fetch response's records)
pass the size check of a response header often; this check makes a false frame, which could swallow the
frames behind it, unlikely. Until a connection's first request is framed, any plausible header is taken.
"""

from __future__ import annotations

import struct
from collections import OrderedDict
from dataclasses import dataclass

from .direction import AGREED_PAIRS, Reading
from .framing import FrameLoss, FrameSplitter, RawFrame, Unframed
from .tcp import SNAP_LENGTH, Chunk, Closed, Flow, Gap, Late

__all__ = [
    "KafkaFrame",
    "KafkaTraffic",
    "Judged",
    "DEFAULT_PORTS",
    "DEFAULT_MAX_FRAME_SIZE",
    "RESYNC_CID_WINDOW",
    "MAX_JUDGED",
    "HOLD_FRAMING",
]

DEFAULT_PORTS = frozenset({9092})
# Kafka brokers refuse request frames above socket.request.max.bytes (100 MiB by default); the same
# number as codec.group.stream.DEFAULT_MAX_FRAME_SIZE.
DEFAULT_MAX_FRAME_SIZE = 100 * 1024 * 1024
RESYNC_CID_WINDOW = 1 << 16  # how far from the last request's correlation id a resynchronised header may be
MAX_JUDGED = 16  # guessed and refused connections remembered (beyond, only counted)
HOLD_FRAMING = 16  # an undecided connection whose bytes frame as requests is held this many times detect_limit
_HEAD = struct.Struct(">hhi")
_RESP_HEAD = struct.Struct(">ii")  # size, correlation id
_CID = struct.Struct(">i")


@dataclass(frozen=True, slots=True)
class KafkaFrame:
    """One request or response. ``data`` is the frame without its size (None when the ``keep`` filter
    skipped it); ``api_key``/``api_version`` are the request's own, or, for a response, its request's
    (None while unpaired); ``request_offset`` locates a response's request in the other direction."""

    flow: Flow
    direction: str  # "request" | "response"
    offset: int
    size: int
    data: bytes | None
    api_key: int | None
    api_version: int | None
    correlation_id: int
    ts: float
    ts_end: float
    request_offset: int | None = None
    cut: bool = False  # the capture's snap length cut the frame: only its header was captured (``data`` None)


@dataclass(frozen=True, slots=True)
class Judged:
    """A connection the reader could not settle from a port or agreeing requests and responses: ``conn``,
    ``client`` and ``server`` (address, port: the way it was taken, or the first side seen), and ``why``."""

    conn: int
    client: tuple[str, int]
    server: tuple[str, int]
    why: str


class _Conn:
    __slots__ = (
        "client",
        "splitters",
        "held",
        "held_bytes",
        "pending",
        "orphans",
        "orphan_bytes",
        "kafka",
        "last_cid",
        "readings",
        "ends",
        "id",
    )

    def __init__(self, conn_id: int) -> None:
        self.id = conn_id
        self.client: tuple[str, int] | None = None
        self.splitters: dict[tuple[str, int], FrameSplitter] = {}  # by the sending endpoint (a tuple hashes in C)
        self.held: list[Chunk | Gap] = []
        self.held_bytes = 0
        self.pending: OrderedDict[int, KafkaFrame] = OrderedDict()  # requests by correlation id
        self.orphans: OrderedDict[int, RawFrame] = OrderedDict()  # responses waiting for a request
        self.orphan_bytes = 0  # bytes those responses hold
        self.kafka: bool | None = None
        self.last_cid: int | None = None  # the correlation id of the last request framed
        self.readings: list[Reading] | None = None  # the ways it is being read while undecided
        self.ends: tuple[tuple[str, int], tuple[str, int]] | None = None  # (first sender seen, the other side)


Output = KafkaFrame | Unframed | Gap


def _fits(conn: _Conn, cid: int, pending: OrderedDict | None = None) -> bool:
    """Whether a resynchronised header's correlation id fits the connection (see the module docstring)."""
    last = conn.last_cid
    return last is None or abs(cid - last) <= RESYNC_CID_WINDOW or (pending is not None and cid in pending)


class KafkaTraffic:
    """Sans-IO: ``feed(event)`` for each reassembly event; returns the Kafka records it completes."""

    def __init__(
        self,
        *,
        ports: frozenset[int] | set[int] = DEFAULT_PORTS,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
        api_keys: frozenset[int] | set[int] | None = None,
        detect_limit: int = 64 * 1024,
        max_pending: int = 4096,
        max_orphan_bytes: int = 1024 * 1024,
        max_unknown_response: int = 4 * 1024 * 1024,
    ) -> None:
        self.ports = set(ports)
        self.max_frame_size = max_frame_size
        self.api_keys = None if api_keys is None else frozenset(api_keys)
        self.detect_limit = detect_limit
        self.max_pending = max_pending
        self.max_orphan_bytes = max_orphan_bytes
        self.max_unknown_response = max_unknown_response
        self.ignored_bytes = 0
        self.loss = FrameLoss()  # frames lost with gaps given up because of a limit (every connection)
        self._conns: dict[int, _Conn] = {}
        #: connections taken for Kafka on a guess (only requests captured), the first MAX_JUDGED, and how many
        self.guessed: list[Judged] = []
        self.guessed_count = 0
        #: connections not taken for Kafka after being read (their requests and responses disagree, or nothing
        #: in them frames), the first MAX_JUDGED, and how many
        self.not_kafka: list[Judged] = []
        self.not_kafka_count = 0

    def feed(self, event: Chunk | Gap | Late | Closed) -> list[Output]:
        if isinstance(event, Closed):
            return self._closed(event)
        if isinstance(event, Late):  # only counted: the splitter reads the sizes of the frames they held
            conn = self._conns.get(event.flow.conn)
            flow = event.flow
            sp = conn.splitters.get((flow.src, flow.sport)) if conn is not None and conn.kafka else None
            if sp is not None:
                sp.late(event.offset, event.data)
            return []
        conn = self._conns.get(event.flow.conn)
        if conn is None:
            conn = self._conns[event.flow.conn] = _Conn(event.flow.conn)
        if conn.kafka is False:
            self.ignored_bytes += len(event.data) if isinstance(event, Chunk) else 0
            return []
        if conn.kafka is None:
            conn.held.append(event)
            conn.held_bytes += len(event.data) if isinstance(event, Chunk) else 0
            self._decide(conn, event)
            return self._release(conn)
        return self._route(conn, event)

    def _release(self, conn: _Conn) -> list[Output]:
        """Once a connection is decided: its held events, framed (Kafka), or counted (not)."""
        if conn.kafka is None:
            return []
        events, conn.held = conn.held, []
        if conn.kafka is False:
            self.ignored_bytes += conn.held_bytes
            return []
        out: list[Output] = []
        for e in events:
            out += self._route(conn, e)
        return out

    # -- deciding -------------------------------------------------------------------------------------

    def _decide(self, conn: _Conn, event: Chunk | Gap) -> None:
        flow = event.flow
        if conn.ends is None:
            conn.ends = ((flow.src, flow.sport), (flow.dst, flow.dport))
        if flow.dport in self.ports and flow.sport not in self.ports:
            conn.client, conn.kafka, conn.readings = (flow.src, flow.sport), True, None
            return
        if flow.sport in self.ports and flow.dport not in self.ports:
            conn.client, conn.kafka, conn.readings = (flow.dst, flow.dport), True, None
            return
        if conn.readings is None:
            a, b = (flow.src, flow.sport), (flow.dst, flow.dport)
            if flow.from_client is not None:  # the handshake names the client: one way to read it
                ways = [a if flow.from_client else b]
            else:
                ways = [a, b]
            conn.readings = [Reading(w, max_frame_size=self.max_frame_size) for w in ways]
        for r in conn.readings:
            r.feed(event)
        agreed = [r for r in conn.readings if r.refuted is None and r.answered >= AGREED_PAIRS]
        if len(agreed) == 1 and all(r is agreed[0] or r.refuted or not r.answered for r in conn.readings):
            self._take(conn, agreed[0])
        elif all(r.refuted for r in conn.readings):
            self._refuse(conn, "; ".join(f"read from {r.client[0]}:{r.client[1]}: {r.refuted}" for r in conn.readings))
        elif conn.held_bytes > self.detect_limit:
            # a connection whose requests frame (its first response may just be late) is held longer
            framing = any(r.refuted is None and (r.requests or r.headed) for r in conn.readings)
            limit = self.detect_limit * HOLD_FRAMING if framing else self.detect_limit
            if conn.held_bytes > limit:
                self._settle(conn, f"more than {limit:,} bytes")

    def _take(self, conn: _Conn, reading: Reading) -> None:
        """The connection is Kafka, read ``reading``'s way; its broker port is one from now on."""
        conn.client, conn.kafka, conn.readings = reading.client, True, None
        assert conn.ends is not None
        server = conn.ends[1] if conn.ends[0] == reading.client else conn.ends[0]
        self.ports.add(server[1])

    def _settle(self, conn: _Conn, until: str) -> None:
        """The bytes held end undecided (``until`` says where): the way with more answered requests, or a
        guess from requests alone, or not Kafka."""
        assert conn.readings is not None and conn.ends is not None
        (a, b) = conn.ends
        if (a[1] in self.ports) != (b[1] in self.ports):  # a port found meanwhile on another connection
            conn.client, conn.kafka, conn.readings = (b if a[1] in self.ports else a), True, None
            return
        for r in conn.readings:
            r.close()
        live = sorted((r for r in conn.readings if r.refuted is None), key=lambda r: -r.answered)
        if live and live[0].answered and (len(live) == 1 or live[0].answered > live[1].answered):
            self._take(conn, live[0])
            return
        only = [r for r in live if r.requests_only]
        if len(only) == 1:
            r, both_ways = only[0], len(conn.readings) > 1
            conn.client, conn.kafka, conn.readings = r.client, True, None
            server = conn.ends[1] if conn.ends[0] == r.client else conn.ends[0]
            self.guessed_count += 1
            if len(self.guessed) < MAX_JUDGED:
                why = (
                    f"only its requests were captured ({r.requests:,} framed, no byte of the other side, "
                    f"until {until}): taken for Kafka from them alone"
                    + (", the side sending them for the client" if both_ways else "")
                )
                self.guessed.append(Judged(conn.id, r.client, server, why))
            return
        reasons = [f"read from {r.client[0]}:{r.client[1]}: {r.refuted}" for r in conn.readings if r.refuted]
        if not reasons:
            reasons = [f"no request answered in its first {conn.held_bytes:,} bytes (until {until})"]
        self._refuse(conn, "; ".join(reasons))

    def _refuse(self, conn: _Conn, why: str) -> None:
        assert conn.ends is not None
        conn.kafka, conn.readings = False, None
        self.not_kafka_count += 1
        if len(self.not_kafka) < MAX_JUDGED:
            self.not_kafka.append(Judged(conn.id, conn.ends[0], conn.ends[1], why))

    # -- framing and pairing --------------------------------------------------------------------------

    def _splitter(self, conn: _Conn, flow: Flow) -> FrameSplitter:
        sp = conn.splitters.get((flow.src, flow.sport))
        if sp is None:
            role = "request" if (flow.src, flow.sport) == conn.client else "response"
            request = role == "request"
            sp = conn.splitters[(flow.src, flow.sport)] = FrameSplitter(
                flow,
                role,
                max_frame_size=self.max_frame_size,
                loss=self.loss,
                keep=self._keep_request if request else (lambda h: self._keep_response(conn, h)),
                confirm=(lambda h: _fits(conn, _HEAD.unpack_from(h, 4)[2]))
                if request
                else (lambda h: _fits(conn, _CID.unpack_from(h, 4)[0], conn.pending)),
                synced=flow.from_client is not None,  # without a handshake, the stream may start inside a frame
            )
        return sp

    def _keep_request(self, header: bytes) -> bool:
        return self.api_keys is None or _HEAD.unpack_from(header, 4)[0] in self.api_keys

    def _keep_response(self, conn: _Conn, header: bytes) -> bool:
        """Skip the response to a skipped request; keep one whose request is not known yet, unless it is
        larger than any group response can be (``max_unknown_response``): after a gap, a header found by
        resynchronising may be bytes of the middle of another frame, and buffering the "frame" it claims
        (up to ``max_frame_size``) would cost memory for nothing."""
        if self.api_keys is None:
            return True
        size, cid = _RESP_HEAD.unpack_from(header)
        request = conn.pending.get(cid)
        if request is None:
            return size <= self.max_unknown_response
        return request.api_key in self.api_keys

    def _route(self, conn: _Conn, event: Chunk | Gap) -> list[Output]:
        flow = event.flow
        sp = conn.splitters.get((flow.src, flow.sport)) or self._splitter(conn, flow)
        if isinstance(event, Gap):
            items = sp.gap(event.offset, event.length, given_up=event.given_up, snap=event.reason == SNAP_LENGTH)
            return [event, *self._pair(conn, items)]
        items = sp.chunk(event.offset, event.data, event.ts)
        return self._pair(conn, items) if items else []

    def _pair(self, conn: _Conn, items: list[RawFrame | Unframed]) -> list[Output]:
        out: list[Output] = []
        for item in items:
            if isinstance(item, Unframed):
                out.append(item)
            elif (item.flow.src, item.flow.sport) == conn.client:
                out += self._request(conn, item)
            else:
                out += self._response(conn, item)
        return out

    def _request(self, conn: _Conn, raw: RawFrame) -> list[Output]:
        key, version, cid = _HEAD.unpack_from(raw.header, 4)
        conn.last_cid = cid
        frame = KafkaFrame(
            raw.flow, "request", raw.offset, raw.size, raw.data, key, version, cid, raw.ts, raw.ts_end, None, raw.cut
        )
        out: list[Output] = [frame]
        orphan = conn.orphans.pop(cid, None)
        if orphan is not None:
            conn.orphan_bytes -= len(orphan.data or b"")
            out.append(self._paired(orphan, frame))
        else:
            conn.pending[cid] = frame
            if len(conn.pending) > self.max_pending:
                conn.pending.popitem(last=False)
        return out

    def _response(self, conn: _Conn, raw: RawFrame) -> list[Output]:
        (cid,) = _CID.unpack_from(raw.header, 4)
        request = conn.pending.pop(cid, None)
        if request is not None:
            return [self._paired(raw, request)]
        # A response can arrive before its request (the request's direction may be held behind a hole);
        # it waits, but a request lost in a gap never comes: the oldest waiting responses are given up
        # (reported unpaired) once more than max_pending of them, or max_orphan_bytes, wait.
        conn.orphans[cid] = raw
        conn.orphan_bytes += len(raw.data or b"")
        out: list[Output] = []
        while conn.orphans and (len(conn.orphans) > self.max_pending or conn.orphan_bytes > self.max_orphan_bytes):
            old = conn.orphans.popitem(last=False)[1]
            conn.orphan_bytes -= len(old.data or b"")
            out.append(self._unpaired(old))
        return out

    def _paired(self, raw: RawFrame, request: KafkaFrame) -> KafkaFrame:
        return KafkaFrame(
            raw.flow,
            "response",
            raw.offset,
            raw.size,
            raw.data,
            request.api_key,
            request.api_version,
            request.correlation_id,
            raw.ts,
            raw.ts_end,
            request.offset,
            raw.cut,
        )

    @staticmethod
    def _unpaired(raw: RawFrame) -> KafkaFrame:
        (cid,) = _CID.unpack_from(raw.header, 4)
        return KafkaFrame(
            raw.flow, "response", raw.offset, raw.size, raw.data, None, None, cid, raw.ts, raw.ts_end, None, raw.cut
        )

    def _closed(self, event: Closed) -> list[Output]:
        conn = self._conns.pop(event.conn, None)
        if conn is None:
            return []
        out: list[Output] = []
        if conn.kafka is None:  # undecided when the connection ended
            if conn.readings is None:  # (nothing but Late events came)
                return []
            self._settle(conn, "the connection's end")
            out += self._release(conn)
            if not conn.kafka:
                return out
        for sp in conn.splitters.values():
            out += self._pair(conn, sp.close())
        out += [self._unpaired(raw) for raw in conn.orphans.values()]
        return out
