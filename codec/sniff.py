"""What a file looks like, from its first bytes: the words a command's error line uses when an input is nothing it
reads ("it looks like Markdown text", "an HTML page", "a Parquet file", "a directory").

:func:`looks_like` names the input from its head (the first bytes, decompressed when gzipped): the magic numbers of
the formats people have at hand (packet captures, Parquet, archives, images, executables, compressed streams,
Kafka log segments), and for text its kind (HTML, XML, JSON, JSON lines, Markdown, CSV, or plain text with its line
count). :func:`directory_text` names a directory and a few of the files in it. Nothing here reads a file: callers
hand over the bytes they already read.
"""

from __future__ import annotations

import json
import os
import re

__all__ = ["looks_like", "directory_text", "is_text", "json_hint", "SNIFF"]

#: How many bytes of an input the sniffing reads (at most).
SNIFF = 64 << 10

_MAGICS: tuple[tuple[bytes, str], ...] = (
    (b"\xd4\xc3\xb2\xa1", "a pcap capture"),
    (b"\xa1\xb2\xc3\xd4", "a pcap capture"),
    (b"\x4d\x3c\xb2\xa1", "a pcap capture"),
    (b"\xa1\xb2\x3c\x4d", "a pcap capture"),
    (b"\x0a\x0d\x0d\x0a", "a pcapng capture"),
    (b"PAR1", "a Parquet file"),
    (b"\x1f\x8b", "a gzip stream"),
    (b"\x28\xb5\x2f\xfd", "a zstd stream"),
    (b"\xfd7zXZ\x00", "an xz stream"),
    (b"BZh", "a bzip2 stream"),
    (b"\x04\x22\x4d\x18", "an LZ4 frame"),
    (b"PK\x03\x04", "a ZIP archive (or a jar)"),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x7fELF", "an ELF executable"),
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\xca\xfe\xba\xbe", "a Java class file"),
    (b"Obj\x01", "an Avro file"),
    (b"ORC", "an ORC file"),
)


def is_text(head: bytes) -> bool:
    """Whether ``head`` reads as text: UTF-8 (a character cut at its end allowed) with no NUL and few control
    characters."""
    if b"\x00" in head:
        return False
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 3:
            return False
        text = head[: e.start].decode("utf-8")
    controls = sum(1 for c in text if ord(c) < 32 and c not in "\t\n\r\f\v\x1b")
    return controls <= len(text) // 100


def looks_like(head: bytes, *, complete: bool = True) -> str:
    """What ``head`` looks like, as a noun phrase ("an HTML page", "Markdown text (251 lines)"). ``complete``:
    ``head`` is the whole input (line counts are then said)."""
    if not head:
        return "an empty input (0 bytes)"
    for magic, name in _MAGICS:
        if head.startswith(magic):
            return name
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "a tar archive"
    if len(head) >= 17 and int.from_bytes(head[8:12], "big", signed=True) > 0 and head[:2] == b"\0\0":
        if head[16] == 2:
            return "a Kafka log segment (record batches)"
        if head[16] in (0, 1):
            return f"a Kafka log segment in the old message format (magic {head[16]})"
    if not is_text(head):
        return "binary data"
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    lines = text.splitlines()
    n = f" ({len(lines):,} line{'s' if len(lines) != 1 else ''})" if complete else ""
    start = text.lstrip()[:200].lower()
    if start.startswith(("<!doctype html", "<html")) or re.search(r"<(head|body)[\s>]", text[:4096], re.I):
        return "an HTML page"
    if start.startswith("<?xml") or start.startswith("<"):
        return "an XML document" if start.startswith("<?xml") else "markup (XML or HTML)"
    if start.startswith(("{", "[")):
        if complete:
            try:
                value = json.loads(text)
            except (ValueError, RecursionError):
                pass
            else:
                return "a JSON document" + (f" (an object with keys {_keys(value)})" if isinstance(value, dict) else "")
        objects = [ln for ln in lines if ln.strip()]
        if len(objects) > 1 and all(ln.lstrip().startswith("{") for ln in objects[:20]):
            return "JSON lines" + n
        return "JSON text" if complete else "a JSON document"
    if start.startswith("#!"):
        return "a script" + n
    if re.search(r"^(#{1,6} \S|```|\s*[-*] \S.*\n\s*[-*] \S)", text, re.M) or re.search(r"^[=-]{3,}\s*$", text, re.M):
        return "Markdown text" + n
    if len(lines) > 1 and _csv(lines):
        return "CSV text" + n
    return "text" + n


def _keys(value: dict) -> str:
    names = [str(k) for k in list(value)[:4]]
    return ", ".join(repr(k) for k in names) + (", ..." if len(value) > 4 else "") if names else "(none)"


def _csv(lines: list[str]) -> bool:
    """The same number (at least one) of commas on each of the first lines."""
    counts = {ln.count(",") for ln in lines[:20] if ln.strip()}
    return len(counts) == 1 and counts.pop() > 0


def directory_text(path: str) -> str:
    """A directory, with how many files it holds and a few of their names."""
    try:
        names = sorted(e.name for e in os.scandir(path) if e.is_file())
    except OSError:
        return "a directory"
    if not names:
        return "a directory (no files in it)"
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return f"a directory ({len(names):,} file{'s' if len(names) != 1 else ''} in it: {shown})"


def json_hint(data: bytes | str) -> str:
    """For a JSON input that does not parse: ``""`` when it starts as JSON does (the parser's error says where it
    goes wrong), else ``"it looks like ..."`` (a README handed to a command that reads JSON), which the error line
    says instead."""
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    start = raw[:SNIFF].lstrip(b" \t\r\n").removeprefix(b"\xef\xbb\xbf")
    if start[:1] in (b"{", b"["):
        return ""
    return f"it looks like {looks_like(raw[:SNIFF], complete=len(raw) <= SNIFF)}"
