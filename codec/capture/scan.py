"""From a capture file to TCP streams and Kafka frames, in one pass and bounded memory.

* :func:`tcp_streams` yields the reassembly events of every TCP connection (:class:`~codec.capture.tcp.Chunk`,
  :class:`~codec.capture.tcp.Gap`, :class:`~codec.capture.tcp.Late`, :class:`~codec.capture.tcp.Closed`);
* :func:`kafka_frames` yields the Kafka records (:class:`~codec.capture.kafka.KafkaFrame`,
  :class:`~codec.capture.framing.Unframed`, :class:`~codec.capture.tcp.Gap`).

Both also yield the problems they met instead of raising: :class:`BadPacket` for a packet that could not
be read (the rest go on) and :class:`BadFile` when the file itself cannot be read further (truncated or
corrupt); in the second case every connection is still flushed, so no frame read so far is lost.
Counters are kept in a :class:`CaptureStats` passed in by the caller.

``max_hole_bytes`` and ``max_hole_seconds`` are how long the reassembly holds a hole open (bytes waiting
behind it, seconds of capture time; see :mod:`codec.capture.tcp`): memory grows with the first, per
direction of each connection. A hole given up because of them costs the frames it cuts or holds; they
are counted (:attr:`CaptureStats.lost_frames`), and so are the bytes of such holes that were captured
too late (:attr:`CaptureStats.late_bytes`) with the limits that would have kept them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..errors import DecodeError
from .bytestream import ByteStream
from .framing import Unframed
from .kafka import DEFAULT_MAX_FRAME_SIZE, DEFAULT_PORTS, Judged, KafkaFrame, KafkaTraffic
from .packet import decode_tcp
from .pcapfile import DEFAULT_MAX_PACKET, read_packets
from .tcp import DEFAULT_MAX_BUFFER, DEFAULT_MAX_WAIT, SNAP_LENGTH, Chunk, Closed, Flow, Gap, Late, Reassembler

__all__ = ["BadPacket", "BadFile", "CaptureStats", "tcp_streams", "kafka_frames"]

EXPIRE_EVERY = 0.1  # seconds of capture time between looks at every connection's holes (tcp_streams' follow)


@dataclass(frozen=True, slots=True)
class BadPacket:
    """Packet ``index`` could not be read as TCP/IP (``error`` says where and why)."""

    index: int
    error: DecodeError


@dataclass(frozen=True, slots=True)
class BadFile:
    """The capture file could not be read past ``error.offset``."""

    error: DecodeError


@dataclass(slots=True)
class CaptureStats:
    """What a scan met: packets read, TCP segments among them, packets carrying no TCP, bad packets,
    connections seen, bytes delivered, bytes missing in gaps, and bytes of connections not taken for Kafka.

    Holes given up because of the limits (``max_hole_bytes``, ``max_hole_seconds``, as used): how many
    (``given_up_holes``) and their bytes (``given_up_bytes``); the Kafka frames lost with them
    (``lost_frames``: cut by such a hole, or starting inside one whose bytes arrived late) and the captured
    bytes dropped with those frames (``lost_frame_bytes``); bytes of such holes captured after all, too
    late (``late_bytes``), and the limits that would have kept every one of them open long enough
    (``late_max_hole_bytes``, ``late_max_hole_seconds``; 0 when none came).

    The capture's snap length: packets it cut (``cut_packets``), the most bytes it kept of one
    (``snap_length``: the largest cut packet's captured length), the bytes it cut off the streams
    (``snap_gap_bytes``, in ``snap_gaps`` gaps), and the Kafka frames cut with them whose headers were
    captured (``cut_frames``; by API key, version and direction in ``cut_apis``). RSTs ignored as outside their connection's window (``ignored_resets``, the
    first few in ``ignored_reset_samples``). The reader's judgement of connections no port settled
    (:class:`~codec.capture.kafka.Judged`): those taken for Kafka on a guess (``guessed``, ``guessed_count``)
    and those not taken (``not_kafka``, ``not_kafka_count``)."""

    packets: int = 0
    tcp_segments: int = 0
    non_tcp: int = 0
    bad_packets: int = 0
    connections: int = 0
    stream_bytes: int = 0
    gap_bytes: int = 0
    stale_bytes: int = 0
    ignored_bytes: int = 0
    close_reasons: dict[str, int] = field(default_factory=dict)
    max_hole_bytes: int = DEFAULT_MAX_BUFFER
    max_hole_seconds: float = DEFAULT_MAX_WAIT
    given_up_holes: int = 0
    given_up_bytes: int = 0
    lost_frames: int = 0
    lost_frame_bytes: int = 0
    late_bytes: int = 0
    late_max_hole_bytes: int = 0
    late_max_hole_seconds: float = 0.0
    cut_packets: int = 0
    snap_length: int = 0
    snap_gaps: int = 0
    snap_gap_bytes: int = 0
    cut_frames: int = 0
    cut_apis: Counter = field(default_factory=Counter)
    ignored_resets: int = 0
    ignored_reset_samples: list[tuple[int, Flow, int]] = field(default_factory=list)
    guessed: list[Judged] = field(default_factory=list)
    guessed_count: int = 0
    not_kafka: list[Judged] = field(default_factory=list)
    not_kafka_count: int = 0


def tcp_streams(
    source: str | Path | ByteStream,
    *,
    max_buffer: int = DEFAULT_MAX_BUFFER,
    max_wait: float = DEFAULT_MAX_WAIT,
    max_packet: int = DEFAULT_MAX_PACKET,
    stats: CaptureStats | None = None,
    follow: bool = False,
) -> Iterator[Chunk | Gap | Late | Closed | BadPacket | BadFile]:
    """Reassemble every TCP connection of a pcap/pcapng file (see :mod:`codec.capture.tcp`): a hole is held
    open while at most ``max_buffer`` bytes wait behind it, for at most ``max_wait`` seconds. ``follow`` (a capture
    read as it is written): the ``max_wait`` seconds are counted on the capture's clock too, so a connection gone
    quiet behind a hole is not held until the capture ends (:meth:`~codec.capture.tcp.Reassembler.expire`)."""
    stats = stats if stats is not None else CaptureStats()
    stats.max_hole_bytes, stats.max_hole_seconds = max_buffer, max_wait
    reasm = Reassembler(max_buffer=max_buffer, max_wait=max_wait)
    packets = read_packets(source, max_packet=max_packet)
    expired = float("-inf")  # the capture time holes were last looked at (follow)
    while True:
        try:
            packet = next(packets)
        except StopIteration:
            break
        except DecodeError as e:
            yield BadFile(e)
            break
        stats.packets += 1
        if packet.orig_len > len(packet.data):
            stats.cut_packets += 1
            stats.snap_length = max(stats.snap_length, len(packet.data))
        try:
            seg = decode_tcp(packet.linktype, packet.data, packet.ts, packet.orig_len)
        except DecodeError as e:
            stats.bad_packets += 1
            yield BadPacket(packet.index, e)
            continue
        if seg is None:
            stats.non_tcp += 1
            continue
        stats.tcp_segments += 1
        for event in reasm.feed(seg):
            if type(event) is Chunk:  # the common event, counted here
                stats.stream_bytes += len(event.data)
                yield event
            else:
                yield _count(event, stats)
        if follow and seg.ts - expired >= EXPIRE_EVERY:
            expired = seg.ts
            for event in reasm.expire(seg.ts):
                yield _count(event, stats)
    for event in reasm.finish():
        yield _count(event, stats)
    stats.ignored_resets, stats.ignored_reset_samples = reasm.ignored_resets, reasm.ignored_reset_samples


def _count(event: Chunk | Gap | Late | Closed, stats: CaptureStats) -> Chunk | Gap | Late | Closed:
    if isinstance(event, Chunk):
        stats.stream_bytes += len(event.data)
    elif isinstance(event, Gap):
        stats.gap_bytes += event.length
        if event.reason == SNAP_LENGTH:
            stats.snap_gaps += 1
            stats.snap_gap_bytes += event.length
        elif event.given_up:
            stats.given_up_holes += 1
            stats.given_up_bytes += event.length
    elif isinstance(event, Late):
        stats.late_bytes += len(event.data)
        stats.late_max_hole_bytes = max(stats.late_max_hole_bytes, event.behind)
        stats.late_max_hole_seconds = max(stats.late_max_hole_seconds, event.waited)
    else:
        stats.connections += 1
        stats.stale_bytes += sum(event.stale_bytes.values())
        stats.close_reasons[event.reason] = stats.close_reasons.get(event.reason, 0) + 1
    return event


def kafka_frames(
    source: str | Path | ByteStream,
    *,
    ports: frozenset[int] | set[int] = DEFAULT_PORTS,
    api_keys: frozenset[int] | set[int] | None = None,
    max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
    max_buffer: int = DEFAULT_MAX_BUFFER,
    max_wait: float = DEFAULT_MAX_WAIT,
    max_packet: int = DEFAULT_MAX_PACKET,
    stats: CaptureStats | None = None,
    follow: bool = False,
) -> Iterator[KafkaFrame | Unframed | Gap | BadPacket | BadFile]:
    """The Kafka frames of a capture file (see :mod:`codec.capture.kafka`); ``api_keys`` limits which
    frames keep their bytes (the others come out with ``data`` None). ``max_buffer``/``max_wait``: see
    :func:`tcp_streams`; the frames lost to holes given up because of them are counted in ``stats``
    once the capture has been read."""
    stats = stats if stats is not None else CaptureStats()
    traffic = KafkaTraffic(ports=ports, max_frame_size=max_frame_size, api_keys=api_keys)
    streams = tcp_streams(
        source, max_buffer=max_buffer, max_wait=max_wait, max_packet=max_packet, stats=stats, follow=follow
    )
    for event in streams:
        if isinstance(event, (BadPacket, BadFile)):
            yield event
        else:
            for item in traffic.feed(event):
                if type(item) is KafkaFrame and item.cut:
                    stats.cut_frames += 1
                    stats.cut_apis[(item.api_key, item.api_version, item.direction)] += 1
                yield item
    stats.ignored_bytes = traffic.ignored_bytes
    stats.guessed, stats.guessed_count = traffic.guessed, traffic.guessed_count
    stats.not_kafka, stats.not_kafka_count = traffic.not_kafka, traffic.not_kafka_count
    stats.lost_frames, stats.lost_frame_bytes = traffic.loss.frames, traffic.loss.skipped_bytes
