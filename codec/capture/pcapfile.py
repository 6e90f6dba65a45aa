"""Streaming readers for libpcap and pcapng capture files (optionally gzipped).

:func:`read_packets` yields one :class:`Packet` per captured packet, reading the file block by block
in bounded memory: a block or record is read only after its length has been checked against
``max_packet`` and then in chunks, so a corrupt length never allocates more than the bytes the file
really holds. Anything malformed raises :class:`~codec.errors.DecodeError` with the file offset of the
record (``message`` ``"pcap"``/``"pcapng"``); packets before it have already been yielded.

Formats (libpcap: the tcpdump ``pcap-savefile(5)`` layout; pcapng: IETF draft-ietf-opsawg-pcapng):

* libpcap, either byte order, microsecond (``a1b2c3d4``) or nanosecond (``a1b23c4d``) timestamps;
* pcapng, any number of sections (each with its own byte order) and interfaces (each with its own link
  type, ``if_tsresol`` and ``if_tsoffset``); Enhanced, Simple and obsolete Packet blocks carry packets,
  every other block type is skipped;
* either of the above inside gzip (detected by its magic, whatever the file is called).
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..errors import DecodeError, LimitExceededError, TruncatedError
from ..wire.native import maker
from .bytestream import ByteStream

__all__ = ["Packet", "read_packets", "DEFAULT_MAX_PACKET", "CAPTURE_MAGICS"]

# tcpdump's MAXIMUM_SNAPLEN is 262144; pcapng blocks also carry options, so leave room.
DEFAULT_MAX_PACKET = 1 << 20
_CHUNK = 1 << 16

_PCAP_MAGIC = {
    b"\xd4\xc3\xb2\xa1": ("<", 1e-6),
    b"\xa1\xb2\xc3\xd4": (">", 1e-6),
    b"\x4d\x3c\xb2\xa1": ("<", 1e-9),
    b"\xa1\xb2\x3c\x4d": (">", 1e-9),
}
_PCAPNG_SHB = 0x0A0D0D0A
#: the first four bytes of a packet capture file: libpcap's magics, and pcapng's Section Header Block type
CAPTURE_MAGICS = frozenset(_PCAP_MAGIC) | {_PCAPNG_SHB.to_bytes(4, "big")}
_BOM = 0x1A2B3C4D
_IDB, _PB, _SPB, _EPB = 1, 2, 3, 6


@dataclass(frozen=True, slots=True)
class Packet:
    """One captured packet: ``index`` (0-based, in file order), ``ts`` (seconds since the epoch),
    ``linktype`` (a LINKTYPE_* value), ``data`` (the captured bytes), ``orig_len`` (length on the wire;
    larger than ``len(data)`` when the capture's snap length cut it)."""

    index: int
    ts: float
    linktype: int
    data: bytes
    orig_len: int


_packet = maker(Packet)  # Packet(index, ts, linktype, data, orig_len), slots filled directly


class _Prefixed(io.RawIOBase):
    """``head`` (bytes already read from ``rest``) followed by the rest of the stream."""

    def __init__(self, head: bytes, rest: ByteStream) -> None:
        self._head, self._rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        if self._head:
            n = min(len(buf), len(self._head))
            buf[:n], self._head = self._head[:n], self._head[n:]
            return n
        data = self._rest.read(len(buf))
        buf[: len(data)] = data
        return len(data)


class _Source:
    """A binary stream with exact, bounded reads and a running offset (for error messages)."""

    def __init__(self, f: ByteStream, fmt: str) -> None:
        self.f = f
        self.fmt = fmt
        self.pos = 0

    def read(self, n: int, what: str, *, at: int | None = None) -> bytes:
        """Exactly ``n`` bytes, read in chunks; a short read is a TruncatedError."""
        parts, have = [], 0
        try:
            while have < n:
                b = self.f.read(min(_CHUNK, n - have))
                if not b:
                    break
                parts.append(b)
                have += len(b)
        except (OSError, EOFError, zlib.error) as e:  # a corrupt or cut gzip stream
            raise DecodeError(
                f"cannot read the file: {e}", message=self.fmt, offset=self.pos + have, path=what
            ) from None
        data = b"".join(parts)
        self.pos += len(data)
        if have < n:
            raise TruncatedError(
                f"file ends inside a record (need {n}, have {have})",
                message=self.fmt,
                offset=self.pos - have if at is None else at,
                path=what,
            )
        return data

    def at_eof(self) -> bool:
        try:
            b = self.f.peek(1) if hasattr(self.f, "peek") else None
        except (OSError, EOFError, zlib.error):
            return False  # let the next read report it
        if b is not None:
            return not b
        here = self.f.tell()
        end = not self.f.read(1)
        self.f.seek(here)
        return end


def read_packets(source: str | Path | ByteStream, *, max_packet: int = DEFAULT_MAX_PACKET) -> Iterator[Packet]:
    """Yield every packet of a pcap or pcapng file (gzipped or not), in file order."""
    if isinstance(source, (str, Path)):
        with open(source, "rb") as f:
            yield from read_packets(f, max_packet=max_packet)
        return
    try:
        head = source.read(4)
    except (OSError, EOFError, zlib.error) as e:  # a corrupt or cut gzip stream
        raise DecodeError(f"cannot read the file: {e}", message="pcap", offset=0, path="magic") from None
    if head[:2] == b"\x1f\x8b":
        with gzip.GzipFile(fileobj=_Prefixed(head, source), mode="rb") as unzipped:
            yield from read_packets(unzipped, max_packet=max_packet)
        return
    if len(head) < 4:
        raise TruncatedError(f"not a capture file (need 4, have {len(head)})", message="pcap", offset=0, path="magic")
    if head in _PCAP_MAGIC:
        src = _Source(source, "pcap")
        src.pos = 4
        yield from _read_pcap(src, head, max_packet)
    elif struct.unpack("<I", head)[0] == _PCAPNG_SHB:
        src = _Source(source, "pcapng")
        src.pos = 4
        yield from _read_pcapng(src, max_packet)
    else:
        raise DecodeError(f"unknown capture format (magic {head.hex()})", message="pcap", offset=0, path="magic")


def _read_pcap(src: _Source, magic: bytes, max_packet: int) -> Iterator[Packet]:
    endian, unit = _PCAP_MAGIC[magic]
    header = src.read(20, "header")
    _major, _minor, _zone, _sigfigs, _snaplen, linktype = struct.unpack(endian + "HHiIII", header)
    linktype &= 0x0FFFFFFF  # the top bits may carry an FCS length (pcap-savefile(5))
    if isinstance(src.f, gzip.GzipFile):  # exact reads: a corrupt stream fails where the records say
        yield from _pcap_records(src, endian, unit, linktype, max_packet)
    else:
        yield from _pcap_records_buffered(src, endian, unit, linktype, max_packet)


def _pcap_records(src: _Source, endian: str, unit: float, linktype: int, max_packet: int) -> Iterator[Packet]:
    rec = struct.Struct(endian + "IIII")
    index = 0
    while not src.at_eof():
        start = src.pos
        sec, frac, incl, orig = rec.unpack(src.read(16, f"packet[{index}].header"))
        if incl > max_packet:
            raise LimitExceededError(
                f"packet length {incl} exceeds the maximum {max_packet}",
                message="pcap",
                offset=start + 8,
                path=f"packet[{index}].incl_len",
            )
        data = src.read(incl, f"packet[{index}].data", at=start)
        yield _packet(index, sec + frac * unit, linktype, data, orig)
        index += 1


def _pcap_records_buffered(src: _Source, endian: str, unit: float, linktype: int, max_packet: int) -> Iterator[Packet]:
    """The records of a plain (not gzipped) file, parsed from blocks of ``_BLOCK`` bytes read ahead: the same
    packets and the same errors, at the same offsets, as :func:`_pcap_records`, without two reads a packet.
    At most a block and one packet (``max_packet``) are held."""
    unpack = struct.Struct(endian + "IIII").unpack_from
    buf, off, pos, index = b"", 0, src.pos, 0  # pos: the file offset of buf[off]
    while True:
        if len(buf) - off < 16:
            more = _read_ahead(src, pos + len(buf) - off, f"packet[{index}].header")
            if not more:
                if len(buf) == off:
                    return
                raise TruncatedError(
                    f"file ends inside a record (need 16, have {len(buf) - off})",
                    message="pcap",
                    offset=pos,
                    path=f"packet[{index}].header",
                )
            buf, off = buf[off:] + more, 0
            continue
        sec, frac, incl, orig = unpack(buf, off)
        if incl > max_packet:
            raise LimitExceededError(
                f"packet length {incl} exceeds the maximum {max_packet}",
                message="pcap",
                offset=pos + 8,
                path=f"packet[{index}].incl_len",
            )
        end = off + 16 + incl
        while end > len(buf):
            more = _read_ahead(src, pos + len(buf) - off, f"packet[{index}].data")
            if not more:
                raise TruncatedError(
                    f"file ends inside a record (need {incl}, have {len(buf) - off - 16})",
                    message="pcap",
                    offset=pos,
                    path=f"packet[{index}].data",
                )
            buf, end, off = buf[off:] + more, end - off, 0
        yield _packet(index, sec + frac * unit, linktype, buf[off + 16 : end], orig)
        pos += end - off
        off = end
        index += 1


_BLOCK = 1 << 18


def _read_ahead(src: _Source, at: int, what: str) -> bytes:
    try:
        data = src.f.read(_BLOCK)
    except (OSError, EOFError, zlib.error) as e:
        raise DecodeError(f"cannot read the file: {e}", message=src.fmt, offset=at, path=what) from None
    src.pos += len(data)
    return data


class _Interface:
    __slots__ = ("linktype", "unit", "offset")

    def __init__(self, linktype: int, unit: float, offset: int) -> None:
        self.linktype, self.unit, self.offset = linktype, unit, offset


def _read_pcapng(src: _Source, max_packet: int) -> Iterator[Packet]:
    endian = "<"
    interfaces: list[_Interface] = []
    index = 0
    first = True
    while first or not src.at_eof():
        start = src.pos
        if first:
            btype_raw = struct.pack("<I", _PCAPNG_SHB)
            first = False
        else:
            btype_raw = src.read(4, "block.type")
        if btype_raw == b"\x0a\x0d\x0d\x0a":  # a Section Header Block: learn the byte order first
            raw_len = src.read(4, "shb.length", at=start)
            bom = src.read(4, "shb.byte_order", at=start)
            if bom == b"\x4d\x3c\x2b\x1a":
                endian = "<"
            elif bom == b"\x1a\x2b\x3c\x4d":
                endian = ">"
            else:
                raise DecodeError(
                    f"bad byte-order magic {bom.hex()}", message="pcapng", offset=start + 8, path="shb.byte_order"
                )
            blen = _block_length(struct.unpack(endian + "I", raw_len)[0], start, max_packet, 28)
            src.read(blen - 12, "shb.body", at=start)  # version, section length, options: not needed
            interfaces = []
            continue
        btype = struct.unpack(endian + "I", btype_raw)[0]
        blen = _block_length(
            struct.unpack(endian + "I", src.read(4, "block.length", at=start))[0], start, max_packet, 12
        )
        body = src.read(blen - 8, f"block@{start}", at=start)
        if struct.unpack_from(endian + "I", body, len(body) - 4)[0] != blen:
            raise DecodeError(
                "trailing block length differs from the leading one",
                message="pcapng",
                offset=start + blen - 4,
                path="block.length",
            )
        body = body[:-4]
        if btype == _IDB:
            interfaces.append(_parse_idb(body, endian, start))
        elif btype in (_EPB, _PB):
            yield _parse_epb(body, endian, btype, start, interfaces, index)
            index += 1
        elif btype == _SPB:
            if not interfaces:
                raise DecodeError(
                    "simple packet block before any interface", message="pcapng", offset=start, path="spb"
                )
            if len(body) < 4:
                raise TruncatedError("simple packet block too short", message="pcapng", offset=start, path="spb")
            orig = struct.unpack_from(endian + "I", body)[0]
            data = body[4 : 4 + min(orig, len(body) - 4)]
            yield _packet(index, 0.0, interfaces[0].linktype, data, orig)
            index += 1


def _block_length(blen: int, start: int, max_packet: int, minimum: int) -> int:
    if blen < minimum or blen % 4:
        raise DecodeError(f"bad block length {blen}", message="pcapng", offset=start + 4, path="block.length")
    if blen > max_packet + 64 * 1024:
        raise LimitExceededError(
            f"block length {blen} exceeds the maximum", message="pcapng", offset=start + 4, path="block.length"
        )
    return blen


def _parse_idb(body: bytes, endian: str, start: int) -> _Interface:
    if len(body) < 8:
        raise TruncatedError("interface block too short", message="pcapng", offset=start, path="idb")
    linktype = struct.unpack_from(endian + "H", body)[0]
    unit, offset = 1e-6, 0
    for code, value in _options(body, 8, endian):
        if code == 9 and value:  # if_tsresol: MSB clear = 10^-n, set = 2^-n
            r = value[0]
            unit = 2.0 ** -(r & 0x7F) if r & 0x80 else 10.0**-r
        elif code == 14 and len(value) == 8:  # if_tsoffset, seconds
            offset = struct.unpack(endian + "q", value)[0]
    return _Interface(linktype, unit, offset)


def _options(body: bytes, pos: int, endian: str) -> Iterator[tuple[int, bytes]]:
    while pos + 4 <= len(body):
        code, length = struct.unpack_from(endian + "HH", body, pos)
        if code == 0:
            return
        yield code, body[pos + 4 : pos + 4 + length]
        pos += 4 + length + (-length % 4)


def _parse_epb(body: bytes, endian: str, btype: int, start: int, interfaces: list[_Interface], index: int) -> Packet:
    if len(body) < 20:
        raise TruncatedError("packet block too short", message="pcapng", offset=start, path=f"packet[{index}]")
    if btype == _EPB:
        iface_id, hi, lo, caplen, orig = struct.unpack_from(endian + "IIIII", body)
    else:  # obsolete Packet Block: uint16 interface id, uint16 drops count
        iface_id, _drops, hi, lo, caplen, orig = struct.unpack_from(endian + "HHIIII", body)
    if iface_id >= len(interfaces):
        raise DecodeError(
            f"packet names interface {iface_id}, only {len(interfaces)} described",
            message="pcapng",
            offset=start + 8,
            path=f"packet[{index}].interface_id",
        )
    if caplen > len(body) - 20:
        raise TruncatedError(
            f"captured length {caplen} exceeds the block ({len(body) - 20})",
            message="pcapng",
            offset=start + 20,
            path=f"packet[{index}].captured_len",
        )
    iface = interfaces[iface_id]
    ts = ((hi << 32) | lo) * iface.unit + iface.offset
    return _packet(index, ts, iface.linktype, body[20 : 20 + caplen], orig)
