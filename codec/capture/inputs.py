"""What ``capture`` reads, told from the input's first bytes (decompressed when gzipped; a name is used only where
the bytes cannot say: a gzip stream that cannot even be started, an empty ``*.log`` segment):

* ``pcap`` — a pcap or pcapng capture (its magic);
* ``segment`` — a ``__consumer_offsets`` log segment (its first record batch header: magic 2 at byte 16);
* ``text`` — a text dump of its records: a line among the first whose key is a ``__consumer_offsets`` record key
  (:mod:`codec.capture.offsets`);
* ``hex`` — hex as people copy it, of packets or Kafka frames (:mod:`codec.capture.hexcapture`).

Anything else is one :class:`~codec.errors.InputError` naming what the input looks like instead (a README, an HTML
page, a JSON document, a Parquet file: :func:`codec.sniff.looks_like`), and which command reads it when one does.
"""

from __future__ import annotations

import json
import re
import struct

from ..errors import DecodeError, InputError
from ..sniff import is_text, looks_like
from ..source import Sniffed
from .offsets import _DECODED, RECORD_TYPES, decode_key, parse_line
from .pcapfile import CAPTURE_MAGICS

__all__ = ["input_kind", "READS", "segment_like", "what_it_is"]

#: What capture reads, as its refusals say it.
READS = (
    "capture reads pcap or pcapng, a __consumer_offsets log segment or a text dump of its records (KEY<TAB>VALUE, "
    "hex or base64), or hex of packets or Kafka frames, gzipped or not"
)
_LINES_LOOKED_AT = 200
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_HEXISH = re.compile(r"^[\s0-9a-fA-FxX:]*$")


def segment_like(head: bytes) -> bool:
    """The first bytes of a record batch: a positive batch length, magic 2."""
    return len(head) >= 17 and head[16] == 2 and struct.unpack_from(">i", head, 8)[0] > 0


def input_kind(sniffed: Sniffed, name: str) -> str:
    """``pcap``, ``segment``, ``text`` or ``hex`` (see the module docstring); :class:`InputError` for anything
    else. ``name``: the input's name as given (``-``/``stdin`` for standard input)."""
    base = name.removesuffix(".gz")
    head = sniffed.head
    if sniffed.gzip_error is not None:  # not even its start can be read: go by the name, and let the reader say
        return "pcap" if base.endswith((".pcap", ".pcapng", ".cap")) else "segment" if base.endswith(".log") else "text"
    if head[:4] in CAPTURE_MAGICS:
        return "pcap"
    if segment_like(head) or (not head and base.endswith(".log")):  # (Kafka's active segment starts empty)
        return "segment"
    what = looks_like(head, complete=sniffed.complete)
    if head and is_text(head):
        kind = _text_kind(head, sniffed.complete)
        if kind is not None:
            return kind
        if what.startswith(_MAYBE_A_DUMP):  # nothing else it could be: read, and judged by its records
            return "text"
    zipped = ", gzipped" if sniffed.gzipped else ""
    hint = _HINTS.get(what.split(" (")[0], "")
    if what.startswith(("text", "Markdown", "CSV")) and head:
        hint = ", none of whose first lines is a __consumer_offsets record or hex"
    raise InputError(f"{name}: not what capture reads: it looks like {what}{zipped}{hint}; {READS}")


#: What text whose first lines hold no record may still be: a dump whose first records are bad (long lines of
#: them, or JSON lines that do not parse). Such text is read; when none of its records is one, capture says so
#: and exits 1. Anything else (Markdown, HTML, XML, a JSON document, CSV, a script) is refused before reading.
_MAYBE_A_DUMP = ("text", "JSON lines", "JSON text")

_HINTS = {
    "a Parquet file": "; `rebalance-codec pipeline` reads Parquet",
    "JSON lines": "; `rebalance-codec pipeline` reads JSON lines of group records",
    "an empty file": "",
}


def _text_kind(head: bytes, complete: bool) -> str | None:
    text = head.decode("utf-8", "replace")
    lines = text.splitlines()
    if not complete and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut
    looked = 0
    for ln in lines:
        if not ln.strip() or ln.lstrip().startswith("#"):
            continue
        if _record_key(ln):
            return "text"
        looked += 1
        if looked >= _LINES_LOOKED_AT:
            break
    if _dump_like(lines):
        return "hex"
    # plain or colon hex: a line of it ends within the head (one line of hex larger than that, as a 300 MB line of
    # zeros, is no copied frame: read as a dump's bad line)
    if _HEXISH.match(text) and sum(c in _HEX_DIGITS for c in text) >= 8 and (complete or "\n" in text.strip()):
        return "hex"
    return None


def _record_key(line: str) -> bool:
    """Whether the line's key is a ``__consumer_offsets`` record key, decoded to its last byte (its value is not
    looked at: a bad value is a bad record of a dump)."""
    try:
        parsed = parse_line(line)
    except DecodeError:
        parsed = _key_only(line)
    if parsed is None:
        return False
    key = parsed[0]
    if len(key) < 2 or struct.unpack_from(">h", key)[0] not in RECORD_TYPES:
        return False
    try:
        if struct.unpack_from(">h", key)[0] in _DECODED:
            return not decode_key(key)[3]
        from ..wire.records import decode_record_key

        return "trailing" not in decode_record_key(key)
    except DecodeError:
        return False


def _key_only(line: str) -> tuple[bytes, None] | None:
    """The key of a line whose value does not parse (cut, or bad): the field before the first separator; a JSON
    line's ``"key"`` (its duplicate keys and bad value are the record's problems, said when it is read)."""
    stripped = line.strip()
    if stripped.startswith("{"):
        try:
            obj = json.loads(stripped)
        except (ValueError, RecursionError):
            return None
        if not isinstance(obj, dict) or not isinstance(obj.get("key"), str):
            return None
        stripped = obj["key"]
    for sep in ("\t", ":", ","):
        if sep in stripped:
            k = stripped.split(sep, 1)[0]
            break
    else:
        k = stripped.split(None, 1)[0]
    try:
        got = parse_line(f"{k}\tnull")
    except DecodeError:
        return None
    return (got[0], None) if got is not None else None


_DUMP = re.compile(r"^\s*[0-9a-fA-F]{4,8}:?\s+[0-9a-fA-F]{2}")
_TITLE = re.compile(r"^[A-Za-z][^:]*\(\d+ bytes\):$")


def _dump_like(lines: list[str]) -> bool:
    """Hex dump lines (an offset, then bytes; ``tshark -x``'s section titles)."""
    shown = [ln for ln in lines if ln.strip()]
    return bool(shown) and all(_DUMP.match(ln) or _TITLE.match(ln.strip()) for ln in shown)


def what_it_is(sniffed: Sniffed) -> str:
    """What the input looks like, for a line saying nothing in it was read."""
    return looks_like(sniffed.head, complete=sniffed.complete) + (", gzipped" if sniffed.gzipped else "")
