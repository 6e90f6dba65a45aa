"""Link, IP and TCP headers: from a captured packet to a :class:`TcpSegment`.

Link types (tcpdump.org ``linktypes.html``): NULL (0) and LOOP (108), the BSD loopback with a 4-byte
address family in host or network order; ETHERNET (1), with any number of 802.1Q/802.1ad VLAN tags;
RAW (101, and the historic 12 and 14); LINUX_SLL (113) and LINUX_SLL2 (276); IPV4 (228), IPV6 (229).
Network: IPv4 (the total length trims Ethernet padding; a total length of 0, as segmentation-offload captures
write for packets larger than the link allows, means "as long as the packet": its length on the wire when
the capture records it; fragments are not reassembled and are reported) and IPv6 (hop-by-hop, routing,
destination-options extension headers skipped).

A packet the capture's snap length cut keeps the length it had on the wire (:attr:`TcpSegment.length`), so
that reassembly knows which bytes were never captured (:mod:`codec.capture.tcp`).

:func:`decode_tcp` returns None for a packet that is not TCP, and raises
:class:`~codec.errors.DecodeError` (message ``"packet"``) for a TCP/IP packet it cannot read.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass
from functools import lru_cache

from ..errors import DecodeError, TruncatedError
from ..wire.native import maker

__all__ = ["TcpSegment", "decode_tcp", "SYN", "FIN", "RST", "ACK"]

FIN, SYN, RST, ACK = 0x01, 0x02, 0x04, 0x10
_ETH_IPV4, _ETH_IPV6, _ETH_VLAN = 0x0800, 0x86DD, (0x8100, 0x88A8, 0x9100)
_AF_INET6 = (10, 24, 28, 30)  # Linux, NetBSD/OpenBSD, FreeBSD, Darwin
_IPV6_SKIPPABLE = (0, 43, 60)
_IPV6_FRAGMENT = 44
_TCP = 6


@dataclass(frozen=True, slots=True)
class TcpSegment:
    """One TCP segment: endpoints (address text, port), sequence number, flags, the payload captured,
    its length on the wire (``length``; more than ``len(payload)`` when a snap length cut the packet),
    the capture time, the acknowledgement number and the window field as sent (unscaled), and on a SYN
    the window scale option (``wscale``; -1 when absent or not a SYN)."""

    src: str
    sport: int
    dst: str
    dport: int
    seq: int
    flags: int
    payload: bytes
    length: int
    ts: float
    ack: int = 0
    window: int = 0
    wscale: int = -1


def _fail(reason: str, offset: int, path: str, truncated: bool = False) -> DecodeError:
    cls = TruncatedError if truncated else DecodeError
    return cls(reason, message="packet", offset=offset, path=path)


def _need(data: bytes, end: int, path: str) -> None:
    if len(data) < end:
        raise _fail(f"truncated (need {end}, have {len(data)})", len(data), path, truncated=True)


def _link(linktype: int, data: bytes) -> tuple[int | None, int]:
    """(IP version or None when not IP, offset of the IP header)."""
    if linktype in (0, 108):
        _need(data, 4, "loopback.family")
        family = struct.unpack_from("<I", data)[0]
        if family > 0xFFFF:
            family = struct.unpack_from(">I", data)[0]
        return (4 if family == 2 else 6 if family in _AF_INET6 else None), 4
    if linktype == 1:
        _need(data, 14, "ethernet")
        pos, ethertype = 12, struct.unpack_from(">H", data, 12)[0]
        while ethertype in _ETH_VLAN:
            pos += 4
            _need(data, pos + 2, "ethernet.vlan")
            ethertype = struct.unpack_from(">H", data, pos)[0]
        return _ethertype(ethertype), pos + 2
    if linktype == 113:
        _need(data, 16, "sll")
        return _ethertype(struct.unpack_from(">H", data, 14)[0]), 16
    if linktype == 276:
        _need(data, 20, "sll2")
        return _ethertype(struct.unpack_from(">H", data, 0)[0]), 20
    if linktype in (101, 12, 14):
        _need(data, 1, "ip.version")
        return data[0] >> 4, 0
    if linktype in (228, 229):
        return (4 if linktype == 228 else 6), 0
    return None, 0


def _ethertype(t: int) -> int | None:
    return 4 if t == _ETH_IPV4 else 6 if t == _ETH_IPV6 else None


_segment = maker(TcpSegment)  # TcpSegment(...) with its slots filled directly
# total length, fragment, ports, sequence, acknowledgement, offset and flags, window
_IPV4_TCP = struct.Struct(">H2xH12xHHIIHH")


def decode_tcp(linktype: int, data: bytes, ts: float, orig_len: int | None = None) -> TcpSegment | None:
    """The TCP segment a packet carries, None when it carries none. ``orig_len``: the packet's length on the
    wire, as the capture recorded it (more than ``len(data)`` when the snap length cut it)."""
    if (
        linktype == 1
        and len(data) >= 54
        and data[12] == 8
        and data[13] == 0
        and data[14] == 0x45
        and data[23] == _TCP
        and not data[47] & SYN
    ):
        # The common case, read at once: Ethernet without VLAN tags, IPv4 without options, TCP, not a SYN.
        # Anything this does not take (a fragment, a bad or 0 length, a SYN's options) goes the general
        # way below, which says why.
        total, frag, sport, dport, seq, ack, off_flags, window = _IPV4_TCP.unpack_from(data, 16)
        doff = (off_flags >> 12) * 4
        end = 14 + total
        if total >= 20 and not frag & 0x3FFF and doff >= 20 and 34 + doff <= end and 34 + doff <= len(data):
            return _segment(
                _addr(data[26:30]),
                sport,
                _addr(data[30:34]),
                dport,
                seq,
                off_flags & 0x3F,
                data[34 + doff : min(end, len(data))],
                end - 34 - doff,
                ts,
                ack,
                window,
                -1,
            )
    return _decode(linktype, data, ts, orig_len)


def _decode(linktype: int, data: bytes, ts: float, orig_len: int | None = None) -> TcpSegment | None:
    """:func:`decode_tcp` for every link type and header (tests hold the common case's shortcut to it)."""
    wire = len(data) if orig_len is None or orig_len < len(data) else orig_len  # the packet's length on the wire
    version, pos = _link(linktype, data)
    if version == 4:
        _need(data, pos + 20, "ipv4")
        vihl, total, frag, proto = data[pos], *struct.unpack_from(">H2xH", data, pos + 2), data[pos + 9]
        if vihl >> 4 != 4:
            raise _fail(f"IP version {vihl >> 4} in an IPv4 packet", pos, "ipv4.version")
        if proto != _TCP:
            return None
        ihl = (vihl & 0x0F) * 4
        if ihl < 20 or 0 < total < ihl:  # (total 0: segmentation offload, see the module docstring)
            raise _fail(f"bad IPv4 header length {ihl} / total {total}", pos, "ipv4.ihl")
        if frag & 0x3FFF:  # MF set or a fragment offset: TCP over IP fragments is not reassembled here
            raise _fail("IPv4 fragment (not reassembled)", pos + 6, "ipv4.fragment")
        src, dst = data[pos + 12 : pos + 16], data[pos + 16 : pos + 20]
        end = pos + total if total else wire  # total 0: TCP segmentation offload captures
        pos += ihl
    elif version == 6:
        _need(data, pos + 40, "ipv6")
        plen, nxt = struct.unpack_from(">HB", data, pos + 4)
        src, dst = data[pos + 8 : pos + 24], data[pos + 24 : pos + 40]
        end = pos + 40 + plen if plen else wire  # 0: jumbogram or offload
        pos += 40
        while nxt in _IPV6_SKIPPABLE:
            _need(data, pos + 2, "ipv6.extension")
            nxt, hlen = data[pos], (data[pos + 1] + 1) * 8
            pos += hlen
        if nxt == _IPV6_FRAGMENT:
            raise _fail("IPv6 fragment (not reassembled)", pos, "ipv6.fragment")
        if nxt != _TCP:
            return None
    else:
        return None
    _need(data, pos + 20, "tcp")
    sport, dport, seq, ack, off_flags, window = struct.unpack_from(">HHIIHH", data, pos)
    doff = (off_flags >> 12) * 4
    if doff < 20 or pos + doff > end:
        raise _fail(f"bad TCP data offset {doff}", pos + 12, "tcp.data_offset")
    _need(data, pos + doff, "tcp.options")
    # A snap length may have cut the packet: the payload is what is there, the length what was sent.
    return _segment(
        _addr(src),
        sport,
        _addr(dst),
        dport,
        seq,
        off_flags & 0x3F,
        data[pos + doff : min(end, len(data))],
        end - pos - doff,
        ts,
        ack,
        window,
        _wscale(data, pos + 20, pos + doff) if off_flags & SYN else -1,
    )


def _wscale(data: bytes, pos: int, end: int) -> int:
    """The window scale option (RFC 7323 kind 3) among a SYN's options at ``data[pos:end]``; -1 when absent."""
    while pos < end:
        kind = data[pos]
        if kind == 0:  # end of options
            break
        if kind == 1:  # no-operation
            pos += 1
            continue
        if pos + 1 >= end or data[pos + 1] < 2:
            break
        if kind == 3 and data[pos + 1] == 3 and pos + 2 < end:
            return min(data[pos + 2], 14)  # RFC 7323 2.3: a shift above 14 is taken as 14
        pos += data[pos + 1]
    return -1


@lru_cache(maxsize=4096)
def _addr(raw: bytes) -> str:
    return str(ipaddress.ip_address(raw))
