"""Hex as people copy it: what ``decode`` (and its ``--lines``) reads as bytes.

Accepted, each detected from the text itself:

* plain hex, with any whitespace, an optional leading ``0x`` (``000e0005...``, ``00 0e 00 05``);
* hex with colons between the bytes (``00:0e:00:05``, as older tshark prints ``-e tcp.payload`` and Wireshark
  copies "...as Hex + ASCII" fields);
* a hex dump: offset column, up to 16 bytes a line, an ASCII column or none — Wireshark's "Copy as Hex Dump",
  ``tshark -x``, ``hexdump -C`` and ``xxd``. The offsets must follow from the bytes
  read (a line's offset is the previous line's plus its byte count), which is what tells a byte from the ASCII
  column that may look like one.

A dump of a whole packet (``tshark -x`` prints the frame from its link-layer header) is cut to its TCP payload when
it is an Ethernet (or bare IPv4/IPv6) frame carrying TCP, and the note says so; where ``tshark -x`` adds a
``Reassembled TCP (N bytes):`` section (a Kafka frame spread over several segments), that section is read. What is returned is the bytes and
a note naming the form read (None for plain hex), for the command to show on stderr.
"""

from __future__ import annotations

import re

from .errors import DecodeError

__all__ = ["parse_hex", "tcp_payload", "size_prefixed"]

_HEXDIGITS = frozenset("0123456789abcdefABCDEF")
_COLON_HEX = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2})+$")
# a dump line: an offset (4 to 8 hex digits, xxd's colon), then the bytes
_DUMP_LINE = re.compile(r"^\s*([0-9a-fA-F]{4,8}):?(?:\s+(.*))?$")
_PAIR = re.compile(r"[0-9a-fA-F]{2}")
_QUAD = re.compile(r"[0-9a-fA-F]{4}")


def parse_hex(text: str) -> tuple[bytes, str | None]:
    """``text`` as bytes, and a note naming the form it was in (None for plain hex); one :class:`DecodeError`
    saying what is wrong where it is none of the forms."""
    stripped = text.strip()
    plain = "".join(stripped.split())
    if plain.startswith(("0x", "0X")):
        plain = plain[2:]
    if set(plain) <= _HEXDIGITS and len(plain) % 2 == 0:  # (no digits at all: no bytes, which a decoder refuses)
        return bytes.fromhex(plain), None
    if _COLON_HEX.match(plain):
        return bytes.fromhex(plain.replace(":", "")), "read as colon-separated hex"
    sections = _sections(stripped)
    if len(sections) > 1:  # tshark -x of a packet with several data sources: "Frame (N bytes):", "Reassembled TCP ..."
        for title, section in reversed(sections):
            if title.startswith("Reassembled TCP"):
                got = _dump_of(section)
                if got is not None:
                    return got[
                        0
                    ], f"read as a hex dump ({got[1]}): its {title.rstrip(':')} section, {len(got[0]):,} bytes"
        stripped = "\n".join(sections[0][1])
    lines = [ln for ln in stripped.splitlines() if ln.strip()]
    dump = _dump_of(lines)
    if dump is not None:
        data, layout = dump
        payload = tcp_payload(data)
        if payload is not None:
            packet, what = payload
            if not packet:
                raise DecodeError(
                    f"input is a hex dump of a whole packet with no TCP payload ({what})", message="input"
                )
            return (
                packet,
                f"read as a hex dump ({layout}) of a whole packet: its TCP payload, {len(packet):,} bytes ({what})",
            )
        return data, f"read as a hex dump ({layout}, {len(lines)} line{'s' if len(lines) != 1 else ''})"
    raise DecodeError(f"input is not hex: {_problem(plain, lines)}", message="input")


_TITLE = re.compile(r"^[A-Za-z][^:]*\(\d+ bytes\):$")


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """The titled sections of ``tshark -x`` output (``Frame (224 bytes):``, ``Reassembled TCP (162 bytes):``), each
    with its lines; one untitled section when there is no title."""
    out: list[tuple[str, list[str]]] = [("", [])]
    for ln in text.splitlines():
        if _TITLE.match(ln.strip()):
            out.append((ln.strip(), []))
        else:
            out[-1][1].append(ln)
    return [sec for sec in out if sec[0] or any(ln.strip() for ln in sec[1])]


def _problem(plain: str, lines: list[str]) -> str:
    """What is wrong, in a user's terms."""
    if lines and _DUMP_LINE.match(lines[0]) and len(lines) > 1:
        return "it looks like a hex dump, but its offsets do not follow from its bytes (is a line missing?)"
    bad = next((i for i, c in enumerate(plain) if c not in _HEXDIGITS), None)
    if bad is None:
        return f"an odd number of hex digits ({len(plain)}; a byte is two)"
    return f"{plain[bad]!r} at digit {bad + 1} (whitespace and a leading 0x not counted)"


def _dump_of(lines: list[str]) -> tuple[bytes, str] | None:
    lines = [ln for ln in lines if ln.strip()]
    return _dump(lines) if lines and all(_DUMP_LINE.match(ln) for ln in lines) else None


def _dump(lines: list[str]) -> tuple[bytes, str] | None:
    """The bytes of a hex dump whose offsets agree with its bytes, and the layout's name; None otherwise."""
    rows = []
    for ln in lines:
        m = _DUMP_LINE.match(ln)
        assert m is not None
        rows.append((int(m.group(1), 16), m.group(2) or ""))
    if rows[0][0] != 0:
        return None  # dumps of what was copied start at offset 0
    out = bytearray()
    for i, (offset, rest) in enumerate(rows):
        if offset != len(out):
            return None
        if not rest.strip() and i == len(rows) - 1 and i > 0:
            break  # hexdump -C and od end with the length alone
        got = _line_bytes(rest, rows[i + 1][0] - offset if i + 1 < len(rows) else None)
        if not got:
            return None
        out += got
    first = lines[0].split()
    layout = "hexdump -C" if "|" in lines[0] else "xxd" if first[0].endswith(":") else "Wireshark/tshark"
    return bytes(out), layout


def _line_bytes(rest: str, want: int | None) -> bytes | None:
    """The bytes at the start of a dump line's text: exactly ``want`` of them when the next line's offset says
    how many (the ASCII column after them is never read); on the last line, every byte group up to the gap that
    starts the ASCII column (one space between groups; two between the halves of a 16-byte line, as Wireshark and
    ``hexdump -C`` print them; two or more before the ASCII column)."""
    tokens = re.split(r"( +)", rest.rstrip())
    got = bytearray()
    for j in range(0, len(tokens), 2):
        tok = tokens[j]
        if want is not None and len(got) >= want:
            break
        if not (_PAIR.fullmatch(tok) or _QUAD.fullmatch(tok)):
            break
        got += bytes.fromhex(tok)
        gap = len(tokens[j + 1]) if j + 1 < len(tokens) else 0
        if want is None and gap >= 2 and not (gap == 2 and len(got) == 8 and len(tok) == 2):
            break
    if want is not None and len(got) != want:
        return None
    return bytes(got)


def tcp_payload(data: bytes) -> tuple[bytes, str] | None:
    """The TCP payload of a whole captured packet (Ethernet II, or a bare IPv4/IPv6 packet), with a few words on
    what was cut; None when ``data`` is not such a packet."""
    for link, start in ((b"\x08\x00", 14), (b"\x86\xdd", 14)):
        if len(data) > start and data[12:14] == link:
            got = _ip_tcp(data[start:])
            if got is not None:
                return got[0], "Ethernet, " + got[1]
    return _ip_tcp(data)


def _ip_tcp(ip: bytes) -> tuple[bytes, str] | None:
    if len(ip) >= 20 and ip[0] >> 4 == 4:
        ihl = (ip[0] & 15) * 4
        total = int.from_bytes(ip[2:4], "big") or len(ip)  # 0: segmentation offload
        if ip[9] != 6 or ihl < 20 or total > len(ip) or total < ihl + 20:
            return None
        seg, family = ip[ihl:total], "IPv4"
    elif len(ip) >= 40 and ip[0] >> 4 == 6:
        if ip[6] != 6:
            return None
        seg, family = ip[40 : 40 + int.from_bytes(ip[4:6], "big")], "IPv6"
    else:
        return None
    if len(seg) < 20:
        return None
    off = (seg[12] >> 4) * 4
    if off < 20 or off > len(seg):
        return None
    src, dst = int.from_bytes(seg[0:2], "big"), int.from_bytes(seg[2:4], "big")
    return seg[off:], f"{family}, TCP port {src} -> {dst}"


def size_prefixed(data: bytes) -> bool:
    """Whether ``data`` starts with a Kafka frame's int32 size that counts exactly the bytes after it (what
    ``tshark -e tcp.payload`` and a TCP stream hold; ``decode``'s frame kinds start after it)."""
    return len(data) > 4 and int.from_bytes(data[:4], "big", signed=True) == len(data) - 4
