"""From a capture file to TCP streams and Kafka frames, in one pass and bounded memory.

* :func:`tcp_streams` yields the reassembly events of every TCP connection (:class:`~codec.capture.tcp.Chunk`,
  :class:`~codec.capture.tcp.Gap`, :class:`~codec.capture.tcp.Closed`);
* :func:`kafka_frames` yields the Kafka records (:class:`~codec.capture.kafka.KafkaFrame`,
  :class:`~codec.capture.framing.Unframed`, :class:`~codec.capture.tcp.Gap`).

Both also yield the problems they met instead of raising: :class:`BadPacket` for a packet that could not
be read (the rest go on) and :class:`BadFile` when the file itself cannot be read further (truncated or
corrupt); in the second case every connection is still flushed, so no frame read so far is lost.
Counters are kept in a :class:`CaptureStats` passed in by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator

from ..errors import DecodeError
from .framing import Unframed
from .kafka import DEFAULT_MAX_FRAME_SIZE, DEFAULT_PORTS, KafkaFrame, KafkaTraffic
from .packet import decode_tcp
from .pcapfile import DEFAULT_MAX_PACKET, read_packets
from .tcp import DEFAULT_MAX_BUFFER, Chunk, Closed, Gap, Reassembler

__all__ = ["BadPacket", "BadFile", "CaptureStats", "tcp_streams", "kafka_frames"]


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
    connections seen, bytes delivered, bytes missing in gaps, and bytes of connections not taken for Kafka."""

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


def tcp_streams(source: str | Path | BinaryIO, *, max_buffer: int = DEFAULT_MAX_BUFFER,
                max_packet: int = DEFAULT_MAX_PACKET,
                stats: CaptureStats | None = None) -> Iterator[Chunk | Gap | Closed | BadPacket | BadFile]:
    """Reassemble every TCP connection of a pcap/pcapng file (see :mod:`codec.capture.tcp`)."""
    stats = stats if stats is not None else CaptureStats()
    reasm = Reassembler(max_buffer=max_buffer)
    packets = read_packets(source, max_packet=max_packet)
    while True:
        try:
            packet = next(packets)
        except StopIteration:
            break
        except DecodeError as e:
            yield BadFile(e)
            break
        stats.packets += 1
        try:
            seg = decode_tcp(packet.linktype, packet.data, packet.ts)
        except DecodeError as e:
            stats.bad_packets += 1
            yield BadPacket(packet.index, e)
            continue
        if seg is None:
            stats.non_tcp += 1
            continue
        stats.tcp_segments += 1
        for event in reasm.feed(seg):
            yield _count(event, stats)
    for event in reasm.finish():
        yield _count(event, stats)


def _count(event: Chunk | Gap | Closed, stats: CaptureStats) -> Chunk | Gap | Closed:
    if isinstance(event, Chunk):
        stats.stream_bytes += len(event.data)
    elif isinstance(event, Gap):
        stats.gap_bytes += event.length
    else:
        stats.connections += 1
        stats.stale_bytes += sum(event.stale_bytes.values())
        stats.close_reasons[event.reason] = stats.close_reasons.get(event.reason, 0) + 1
    return event


def kafka_frames(source: str | Path | BinaryIO, *, ports: frozenset[int] | set[int] = DEFAULT_PORTS,
                 api_keys: frozenset[int] | set[int] | None = None, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
                 max_buffer: int = DEFAULT_MAX_BUFFER, max_packet: int = DEFAULT_MAX_PACKET,
                 stats: CaptureStats | None = None
                 ) -> Iterator[KafkaFrame | Unframed | Gap | BadPacket | BadFile]:
    """The Kafka frames of a capture file (see :mod:`codec.capture.kafka`); ``api_keys`` limits which
    frames keep their bytes (the others come out with ``data`` None)."""
    stats = stats if stats is not None else CaptureStats()
    traffic = KafkaTraffic(ports=ports, max_frame_size=max_frame_size, api_keys=api_keys)
    for event in tcp_streams(source, max_buffer=max_buffer, max_packet=max_packet, stats=stats):
        if isinstance(event, (BadPacket, BadFile)):
            yield event
        else:
            yield from traffic.feed(event)
    stats.ignored_bytes = traffic.ignored_bytes
