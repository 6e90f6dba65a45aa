"""Sans-IO TCP stream reassembly: segments in, per-direction byte chunks and gap records out.

Each direction of each connection is a :class:`HalfStream`. Its byte offsets count from the first
byte after the SYN, or, for a stream whose SYN was not captured, from the lowest sequence number seen
when the stream is first delivered. Segments are delivered in sequence order, whatever order they
arrive in; bytes already delivered (retransmissions, overlaps) are dropped and counted; a hole is held
open while fewer than ``max_buffer`` bytes wait behind it and for at most ``max_wait`` seconds of capture
time (a retransmission may still fill it: Linux retransmits after 200 ms to a few seconds), and is
reported as a :class:`Gap` with its exact byte range when either limit is reached (``reason``
``max-hole-bytes`` or ``max-hole-seconds``), when the connection closes or when the capture ends
(``closed``). Memory is bounded by ``max_buffer`` per direction of each open connection, and in practice
by what a connection carries in ``max_wait``; a connection is forgotten once both FINs have been
delivered or it was reset.

Bytes that a packet carried on the wire but the capture's snap length cut off (the segment's ``length`` is
more than its captured payload) are known to be missing as soon as the packet is read: they are reported at
once, when the stream reaches them, as a :class:`Gap` with ``reason`` ``snap-length``, never waited for.

A hole given up because of a limit may still be filled later (a retransmission that came too late): its
bytes then come out as :class:`Late` records, in order from the start of the hole (pieces that do not
continue what came before are not reported), with how many bytes and seconds the hole would have had to
be held for them. The last ``MAX_GIVEN_UP`` such holes of each direction are remembered.

:class:`Reassembler` keeps the connection table: ``feed(segment)`` and ``finish()`` return events
(:class:`Chunk`, :class:`Gap`, :class:`Late`, :class:`Closed`). A SYN (without ACK) whose sequence number differs
from the connection's starts a new connection on the same ports.

A RST ends its connection only when its sequence number is one the receiver would accept (RFC 9293 3.10.7.4:
within the receive window; RFC 5961 3.2 narrows that to exactly the next expected byte): from what its
sender is known to have sent (the end of its highest segment) and what the receiver acknowledged last, up
to the receiver's advertised window (scaled when both SYNs carried the option, else taken at the largest
scale, 14). Any other RST is ignored, as the receiving TCP ignores it (counted in
:attr:`Reassembler.ignored_resets`), and the connection goes on. A RST with nothing to compare against (no
byte or acknowledgement seen yet) is accepted.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from itertools import count

from ..wire.native import maker
from .packet import ACK, FIN, RST, SYN, TcpSegment

__all__ = [
    "Flow",
    "Chunk",
    "Gap",
    "Late",
    "Closed",
    "HalfStream",
    "Reassembler",
    "DEFAULT_MAX_BUFFER",
    "DEFAULT_MAX_WAIT",
    "GIVEN_UP_BYTES",
    "GIVEN_UP_SECONDS",
    "CLOSED",
    "SNAP_LENGTH",
    "MAX_GIVEN_UP",
]

DEFAULT_MAX_BUFFER = 1024 * 1024
DEFAULT_MAX_WAIT = 2.0  # seconds of capture time a hole is held open
GIVEN_UP_BYTES, GIVEN_UP_SECONDS, CLOSED = "max-hole-bytes", "max-hole-seconds", "closed"  # Gap.reason
SNAP_LENGTH = "snap-length"  # Gap.reason: the capture's snap length cut the packet that carried the bytes
_MAX_CUTS = 64  # cut-off byte ranges remembered per direction beyond the next byte to deliver
MAX_GIVEN_UP = 16  # holes given up because of a limit remembered per direction, to recognise late bytes
_MOD = 1 << 32
_HALF = 1 << 31


@dataclass(frozen=True, slots=True)
class Flow:
    """One direction of one connection. ``conn`` numbers connections in order of first packet;
    ``from_client`` is True for the SYN sender's direction, False for the other, None when the
    handshake was not captured."""

    conn: int
    src: str
    sport: int
    dst: str
    dport: int
    from_client: bool | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"#{self.conn} {self.src}:{self.sport}->{self.dst}:{self.dport}"


@dataclass(frozen=True, slots=True)
class Chunk:
    """Contiguous bytes at stream ``offset``, as carried by one packet captured at ``ts``."""

    flow: Flow
    offset: int
    data: bytes
    ts: float


@dataclass(frozen=True, slots=True)
class Gap:
    """Bytes ``[offset, offset + length)`` of the stream are missing: they had not been captured when the
    reader gave them up. ``reason``: ``max-hole-bytes`` (more than ``max_buffer`` bytes were waiting behind
    them), ``max-hole-seconds`` (the first segment behind them had waited more than ``max_wait`` seconds),
    ``closed`` (the connection or the capture ended) or ``snap-length`` (the capture's snap length cut them
    off the packet that carried them; ``ts`` is that packet's time). ``ts`` is the time of the first segment
    after them (or of the last packet, when the stream ends in the gap)."""

    flow: Flow
    offset: int
    length: int
    ts: float
    reason: str = CLOSED

    @property
    def given_up(self) -> bool:
        """Whether a limit, rather than the end of the stream or the snap length, made the reader give the bytes
        up."""
        return self.reason == GIVEN_UP_BYTES or self.reason == GIVEN_UP_SECONDS


@dataclass(frozen=True, slots=True)
class Late:
    """Bytes ``[offset, offset + len(data))`` of a hole given up because of a limit, captured at ``ts``
    after all (too late: the stream had moved on). ``behind`` bytes had arrived behind the hole and its
    first waiting segment had waited ``waited`` seconds by then: a ``max_buffer`` of at least ``behind``
    and a ``max_wait`` of at least ``waited`` would have kept the hole open for them."""

    flow: Flow
    offset: int
    data: bytes
    ts: float
    behind: int
    waited: float


@dataclass(frozen=True, slots=True)
class Closed:
    """A connection is finished: ``reason`` is ``fin``, ``rst``, ``reused`` (a new SYN on the same
    ports) or ``end`` (end of capture). ``stale_bytes`` counts, per flow, bytes dropped because they
    were already delivered (retransmissions and overlaps) or lay before the stream's start."""

    conn: int
    reason: str
    stale_bytes: dict[Flow, int]


Event = Chunk | Gap | Late | Closed
_chunk = maker(Chunk)  # Chunk(flow, offset, data, ts), slots filled directly


class _GivenUp:
    """A hole given up because of a limit: absolute sequence numbers ``[start, end)``, how far late bytes
    have filled it (``filled``, contiguous from ``start``) and the capture time of the first segment that
    waited behind it."""

    __slots__ = ("start", "end", "filled", "first_ts")

    def __init__(self, start: int, end: int, first_ts: float) -> None:
        self.start, self.end, self.filled, self.first_ts = start, end, start, first_ts


class HalfStream:
    """Reassembly of one direction (see the module docstring)."""

    shortcut = True  # in-order segments skip the queue (tests/capture/test_fast_paths.py turns it off to compare)

    def __init__(self, flow: Flow, *, max_buffer: int = DEFAULT_MAX_BUFFER, max_wait: float = DEFAULT_MAX_WAIT) -> None:
        self.flow = flow
        self.max_buffer = max_buffer
        self.max_wait = max_wait
        self.base = 0  # absolute sequence number of stream offset 0 (set with ``next``, and read only once it is)
        self.next: int | None = None  # absolute sequence number of the next byte to deliver
        self.isn: int | None = None
        self.fin: int | None = None
        self.stale_bytes = 0
        self._ref: int | None = None  # unwrapping reference (absolute)
        self._heap: list[tuple[int, int, bytes, float]] = []
        self._order = count()
        self._buffered = 0
        self._last_ts = 0.0
        self._high: int | None = None  # highest absolute sequence number seen (end of a segment)
        self._given_up: list[_GivenUp] = []
        self._cuts: dict[int, tuple[int, float]] = {}  # snap-length cuts: absolute start -> (end, packet time)
        self.ack: int | None = None  # the last acknowledgement number this direction sent (raw, 32 bits)
        self.window = 0  # the last window field it sent (unscaled)
        self.wscale = -1  # the window scale option of its SYN (-1: none seen)

    @property
    def finished(self) -> bool:
        """The FIN was seen and every byte before it delivered."""
        return self.fin is not None and self.next is not None and self.next >= self.fin and not self._heap

    def _unwrap(self, seq: int) -> int:
        if self._ref is None:
            self._ref = seq
            return seq
        diff = (seq - self._ref) % _MOD
        if diff >= _HALF:
            diff -= _MOD
        value = self._ref + diff
        if value > self._ref:
            self._ref = value
        return value

    def segment(self, seg: TcpSegment) -> list[Event]:
        """Take one segment of this direction; return what can be delivered now."""
        previous_ts = self._last_ts
        self._last_ts = seg.ts
        start = self._unwrap(seg.seq)
        if (
            self.shortcut
            and start == self.next
            and not self._heap
            and not seg.flags & (SYN | FIN)
            and seg.payload
            and seg.length == len(seg.payload)
        ):
            # In order, nothing waiting: what pushing and draining would deliver, without the queue. (A late
            # byte lies before ``next``, so none is here.)
            end = start + len(seg.payload)
            if self._high is None or end > self._high:
                self._high = end
            self.next = end
            return [_chunk(self.flow, start - self.base, seg.payload, seg.ts)]
        if seg.flags & SYN:
            start += 1
            if self.isn is None and self.next is None:
                self.isn = start - 1
                self.base = self.next = start
        if seg.flags & FIN:
            self.fin = start + seg.length
        if seg.length > len(seg.payload):  # the snap length cut the packet: its last bytes will never come
            cut = start + len(seg.payload)
            if self.next is None or cut >= self.next:
                self._cuts[cut] = (start + seg.length, seg.ts)
                if len(self._cuts) > _MAX_CUTS and self.next is not None:
                    self._cuts = {k: v for k, v in self._cuts.items() if k >= self.next}
        late: list[Event] = []
        if seg.payload:
            if self._given_up and self.next is not None and start < self.next:
                late = self._late(start, seg.payload, seg.ts, previous_ts)
            heapq.heappush(self._heap, (start, next(self._order), seg.payload, seg.ts))
            self._buffered += len(seg.payload)
            end = start + len(seg.payload)
            self._high = end if self._high is None else max(self._high, end)
        return late + self._drain(force=False)

    def _late(self, start: int, data: bytes, ts: float, previous_ts: float) -> list[Event]:
        """The bytes of ``data`` (at absolute ``start``) that continue filling a hole given up earlier."""
        out: list[Event] = []
        end = start + len(data)
        assert self._high is not None  # a hole is given up only behind a queued segment, which set it
        for hole in list(self._given_up):
            if start <= hole.filled < end:
                stop = min(end, hole.end)
                out.append(
                    Late(
                        self.flow,
                        hole.filled - self.base,
                        data[hole.filled - start : stop - start],
                        ts,
                        max(0, self._high - hole.end),
                        max(0.0, previous_ts - hole.first_ts),
                    )
                )
                hole.filled = stop
                if stop >= hole.end:
                    self._given_up.remove(hole)
        return out

    def flush(self) -> list[Event]:
        """Deliver everything held, reporting holes as gaps (the stream is over or must move on)."""
        events = self._drain(force=True)
        if self.fin is not None and self.next is not None and self.next < self.fin:
            events.append(Gap(self.flow, self.next - self.base, self.fin - self.next, self._last_ts))
            self.next = self.fin
        return events

    def _give_up(self) -> str | None:
        """Which limit, if any, the hole at the head of the queue has reached (bytes, then time)."""
        if self._buffered > self.max_buffer:
            return GIVEN_UP_BYTES
        if self._last_ts - self._heap[0][3] > self.max_wait:
            return GIVEN_UP_SECONDS
        return None

    def _drain(self, *, force: bool) -> list[Event]:
        heap = self._heap
        if self.next is None:
            if not heap or not (force or self._give_up()):
                return []
            self.base = self.next = heap[0][0]  # the stream starts mid-connection
        events: list[Event] = []
        while heap or self._cuts:
            if self._cuts and self.next in self._cuts and (not heap or heap[0][0] > self.next):
                end, ts = self._cuts.pop(self.next)  # bytes the snap length cut off: reported at once
                stop = min(end, heap[0][0]) if heap else end
                events.append(Gap(self.flow, self.next - self.base, stop - self.next, ts, SNAP_LENGTH))
                self.next = stop
                continue
            if not heap:
                break
            start, _, data, ts = heap[0]
            end = start + len(data)
            if end <= self.next:
                heapq.heappop(heap)
                self._buffered -= len(data)
                self.stale_bytes += len(data)
                continue
            if start > self.next:
                reason = CLOSED if force else self._give_up()
                if reason is None:
                    break
                events.append(Gap(self.flow, self.next - self.base, start - self.next, ts, reason))
                if reason != CLOSED:
                    self._given_up.append(_GivenUp(self.next, start, ts))
                    del self._given_up[:-MAX_GIVEN_UP]
                self.next = start
                continue
            heapq.heappop(heap)
            self._buffered -= len(data)
            cut = self.next - start
            self.stale_bytes += cut
            events.append(_chunk(self.flow, self.next - self.base, data[cut:] if cut else data, ts))
            self.next = end
        return events


class _Connection:
    __slots__ = ("id", "halves", "client_isn")

    def __init__(self, conn_id: int) -> None:
        self.id = conn_id
        self.halves: dict[tuple, HalfStream] = {}
        self.client_isn: int | None = None


class Reassembler:
    """The connection table: feed TCP segments, collect events."""

    def __init__(self, *, max_buffer: int = DEFAULT_MAX_BUFFER, max_wait: float = DEFAULT_MAX_WAIT) -> None:
        self.max_buffer = max_buffer
        self.max_wait = max_wait
        self._conns: dict[tuple, _Connection] = {}
        self._ids = count()
        #: RSTs ignored because their sequence number lay outside the receiver's window (see the module docstring)
        self.ignored_resets = 0
        #: the first few of them: (connection, sending flow, how far the sequence number lay from the window)
        self.ignored_reset_samples: list[tuple[int, Flow, int]] = []

    def feed(self, seg: TcpSegment) -> list[Event]:
        a, b = (seg.src, seg.sport), (seg.dst, seg.dport)
        key = (a, b) if a <= b else (b, a)  # the same for both directions
        conn = self._conns.get(key)
        events: list[Event] = []
        opening = seg.flags & SYN and not seg.flags & ACK
        if conn is not None and opening and conn.client_isn not in (None, seg.seq):
            events += self._close(key, "reused")
            conn = None
        if conn is None:
            conn = self._conns[key] = _Connection(next(self._ids))
        if opening and conn.client_isn is None:
            conn.client_isn = seg.seq
        half = conn.halves.get((a, b))
        if half is None:
            from_client = None
            if opening:
                from_client = True
            elif seg.flags & SYN:  # SYN+ACK comes from the server
                from_client = False
            elif conn.halves:
                other = next(iter(conn.halves.values()))
                from_client = None if other.flow.from_client is None else not other.flow.from_client
            half = conn.halves[(a, b)] = HalfStream(
                Flow(conn.id, *a, *b, from_client=from_client), max_buffer=self.max_buffer, max_wait=self.max_wait
            )
        if seg.flags & RST:
            off = self._outside_window(conn, half, seg.seq)
            if off is not None:  # ignored, as the receiver ignores it: not even its sequence number is taken
                self.ignored_resets += 1
                if len(self.ignored_reset_samples) < 16:
                    self.ignored_reset_samples.append((conn.id, half.flow, off))
                return events
        events += half.segment(seg)
        if seg.flags & ACK:
            half.ack, half.window = seg.ack, seg.window
        if seg.flags & SYN:
            half.wscale = seg.wscale
        if seg.flags & RST:
            events += self._close(key, "rst")
        elif len(conn.halves) == 2:
            h1, h2 = conn.halves.values()
            if h1.fin is not None and h2.fin is not None and h1.finished and h2.finished:  # (fin first: cheap)
                events += self._close(key, "fin")
        return events

    @staticmethod
    def _outside_window(conn: _Connection, half: HalfStream, seq: int) -> int | None:
        """None when a RST from ``half`` with sequence number ``seq`` is acceptable (see the module docstring);
        else how many bytes it lies before (negative) or beyond the window."""
        peer = next((h for h in conn.halves.values() if h is not half), None)
        known: list[int] = []  # where the receiver's next expected byte may be, relative to ``seq`` (signed)
        if half._high is not None:
            known.append(half._high)
        elif half.next is not None:
            known.append(half.next)
        if half.fin is not None:  # a FIN takes a sequence number too
            known.append(half.fin + 1)
        if peer is not None and peer.ack is not None:
            known.append(peer.ack)
        if not known:
            return None
        dist = [((seq - k) % _MOD + _HALF) % _MOD - _HALF for k in known]  # seq minus each, in [-2^31, 2^31)
        if max(dist) < 0:  # before every byte the receiver may expect next
            return max(dist)
        window = 0
        if peer is not None:
            if peer.isn is not None and half.isn is not None:  # both SYNs seen: scaled only if both asked
                shift = peer.wscale if peer.wscale >= 0 and half.wscale >= 0 else 0
            else:
                shift = 14
            window = peer.window << shift
        if min(dist) > window:  # beyond the window of the latest
            return min(dist) - window
        return None

    def expire(self, now: float) -> list[Event]:
        """Give up, as :meth:`feed` would, every hole whose first segment behind it has waited more than
        ``max_wait`` seconds by ``now`` on the capture's clock (the latest packet of any connection): a connection
        that falls quiet behind a lost segment (a member that sent LeaveGroup and closed) has no packet of its own to
        let it move on. A connection whose FINs are then all delivered closes. For a reader that follows a capture
        as it is written (``capture --follow``); reading a whole file, its end flushes what is held."""
        events: list[Event] = []
        for key, conn in list(self._conns.items()):
            for half in conn.halves.values():
                heap = half._heap
                if heap and now - heap[0][3] > half.max_wait and now > half._last_ts:
                    half._last_ts = now
                    events += half._drain(force=False)
            if len(conn.halves) == 2:
                h1, h2 = conn.halves.values()
                if h1.fin is not None and h2.fin is not None and h1.finished and h2.finished:
                    events += self._close(key, "fin")
        return events

    def finish(self) -> list[Event]:
        """End of capture: flush and close every open connection."""
        events: list[Event] = []
        for key in list(self._conns):
            events += self._close(key, "end")
        return events

    def _close(self, key: tuple, reason: str) -> list[Event]:
        conn = self._conns.pop(key)
        events: list[Event] = []
        for half in conn.halves.values():
            events += half.flush()
        events.append(Closed(conn.id, reason, {h.flow: h.stale_bytes for h in conn.halves.values()}))
        return events
