"""A minimal capture writer: TCP/IP packets by hand, as libpcap or pcapng.

Written from the formats' definitions (pcap-savefile(5), the pcapng draft, RFC 791/8200/9293), not
from the reader in this package (the capture tests use it to write their inputs, the rebalance
simulator to record its frames). Checksums are left 0: the reader does not verify them.

* :func:`conversation` turns a list of writes into the segments of one connection, timestamps 1 ms apart;
* :class:`TcpConnection` builds one connection write by write, each at its own time, for writers that
  interleave many connections (sort the segments of all of them by ``ts`` before :func:`pcap`).

:func:`pcap` can cut each packet at a snap length, as ``tcpdump -s`` does.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass

__all__ = ["Seg", "tcp_ip", "frame", "pcap", "pcapng", "conversation", "TcpConnection"]

FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10


@dataclass(frozen=True)
class Seg:
    """One TCP segment to write."""

    src: str
    sport: int
    dst: str
    dport: int
    seq: int
    flags: int
    payload: bytes
    ts: float
    ack: int = 0  # the acknowledgement number (sent with the ACK flag)


def tcp_ip(seg: Seg) -> tuple[int, bytes]:
    """(IP version, the IP packet) for a segment."""
    tcp = struct.pack(
        ">HHIIBBHHH", seg.sport, seg.dport, seg.seq & 0xFFFFFFFF, seg.ack & 0xFFFFFFFF, 5 << 4, seg.flags, 65535, 0, 0
    )
    tcp += seg.payload
    src, dst = ipaddress.ip_address(seg.src), ipaddress.ip_address(seg.dst)
    if src.version == 4:
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0x4000, 64, 6, 0, src.packed, dst.packed)
        return 4, ip + tcp
    ip = struct.pack(">IHBB16s16s", 6 << 28, len(tcp), 6, 64, src.packed, dst.packed)
    return 6, ip + tcp


def frame(seg: Seg, linktype: int) -> bytes:
    """The link-layer frame: 1 Ethernet (padded to 60 bytes, as on the wire), 0 BSD loopback,
    113 Linux cooked (SLL), 101 raw IP."""
    version, ip = tcp_ip(seg)
    ethertype = 0x0800 if version == 4 else 0x86DD
    if linktype == 1:
        eth = b"\x02" * 6 + b"\x04" * 6 + struct.pack(">H", ethertype) + ip
        return eth + b"\x00" * max(0, 60 - len(eth))
    if linktype == 0:
        return struct.pack("<I", 2 if version == 4 else 30) + ip
    if linktype == 113:
        return struct.pack(">HHH8sH", 0, 772, 6, b"\x00" * 8, ethertype) + ip
    if linktype == 101:
        return ip
    raise ValueError(linktype)


def pcap(
    segs: list[Seg], linktype: int = 1, *, nanos: bool = False, big_endian: bool = False, snaplen: int = 262144
) -> bytes:
    """A libpcap file; each packet's captured bytes are cut at ``snaplen`` (its length on the wire is kept)."""
    e = ">" if big_endian else "<"
    magic = 0xA1B23C4D if nanos else 0xA1B2C3D4
    out = [struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)]
    for s in segs:
        data = frame(s, linktype)
        sec = int(s.ts)
        frac = round((s.ts - sec) * (1e9 if nanos else 1e6))
        out.append(struct.pack(e + "IIII", sec, frac, min(len(data), snaplen), len(data)) + data[:snaplen])
    return b"".join(out)


def _block(btype: int, body: bytes) -> bytes:
    body += b"\x00" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def pcapng(segs: list[Seg], linktype: int = 1) -> bytes:
    """Little-endian pcapng: a section header, two interfaces (the first unused, the second with
    nanosecond resolution), enhanced packet blocks on interface 1, plus an unknown block type."""
    shb = _block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    idb0 = _block(1, struct.pack("<HHI", 147, 0, 0))
    tsresol = struct.pack("<HHB3x", 9, 1, 9) + struct.pack("<HH", 0, 0)
    idb1 = _block(1, struct.pack("<HHI", linktype, 0, 0) + tsresol)
    out = [shb, idb0, idb1, _block(0x0BADCAFE, b"ignored")]
    for s in segs:
        data = frame(s, linktype)
        t = round(s.ts * 1e9)
        out.append(_block(6, struct.pack("<IIIII", 1, t >> 32, t & 0xFFFFFFFF, len(data), len(data)) + data))
    return b"".join(out)


def conversation(
    frames: list[tuple[str, bytes]],
    *,
    client: tuple[str, int] = ("10.0.0.1", 50000),
    server: tuple[str, int] = ("10.0.0.2", 9092),
    isn: tuple[int, int] = (1000, 5000),
    syn: bool = True,
    mss: int = 1400,
    t0: float = 1_700_000_000.0,
) -> list[Seg]:
    """Segments for a list of ("c"|"s", bytes) writes: an optional handshake, each write cut into
    ``mss``-sized segments, then FINs. Timestamps increase by 1 ms per segment."""
    segs: list[Seg] = []
    seq = {"c": isn[0], "s": isn[1]}
    ends = {"c": (*client, *server), "s": (*server, *client)}
    t = t0

    def add(side: str, flags: int, payload: bytes = b"") -> None:
        nonlocal t
        segs.append(Seg(*ends[side], seq[side], flags, payload, t))
        t += 0.001
        seq[side] += len(payload) + (1 if flags & (SYN | FIN) else 0)

    if syn:
        add("c", SYN)
        add("s", SYN | ACK)
    for side, data in frames:
        for i in range(0, len(data), mss):
            add(side, PSH | ACK, data[i : i + mss])
    add("c", FIN | ACK)
    add("s", FIN | ACK)
    return segs


class TcpConnection:
    """One TCP connection written incrementally: :meth:`open` (the handshake), :meth:`write` from either
    side at a given time, :meth:`close` (FINs). Segments accumulate in :attr:`segments`."""

    def __init__(
        self, client: tuple[str, int], server: tuple[str, int], *, isn: tuple[int, int] = (1000, 5000), mss: int = 1400
    ) -> None:
        self.ends = {"c": (*client, *server), "s": (*server, *client)}
        self.seq = {"c": isn[0], "s": isn[1]}
        self.mss = mss
        self.segments: list[Seg] = []
        self.closed = False

    def _add(self, side: str, flags: int, payload: bytes, ts: float) -> None:
        self.segments.append(Seg(*self.ends[side], self.seq[side], flags, payload, ts))
        self.seq[side] += len(payload) + (1 if flags & (SYN | FIN) else 0)

    def open(self, ts: float) -> None:
        self._add("c", SYN, b"", ts)
        self._add("s", SYN | ACK, b"", ts)

    def write(self, side: str, data: bytes, ts: float) -> None:
        """``side`` "c" (client) or "s" (server); ``data`` cut into ``mss``-sized segments, all at ``ts``."""
        for i in range(0, len(data), self.mss):
            self._add(side, PSH | ACK, data[i : i + self.mss], ts)

    def close(self, ts: float) -> None:
        if not self.closed:
            self._add("c", FIN | ACK, b"", ts)
            self._add("s", FIN | ACK, b"", ts)
            self.closed = True
