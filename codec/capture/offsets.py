"""``__consumer_offsets`` records: committed offsets and classic group metadata.

A record's key is ``[int16 version][body]`` and the version says what the record is (Kafka's
``GroupCoordinatorRecordSerde``): 0 and 1 an :file:`OffsetCommitKey`, 2 a :file:`GroupMetadataKey`, 3 and
up the records of KIP-848 consumer groups, share groups and streams groups. The value is ``[int16
version][body]`` of the matching value schema (:file:`OffsetCommitValue`, :file:`GroupMetadataValue`); a
null value is a tombstone. An OffsetCommitValue v4 that a Kafka 4.1+ coordinator wrote for a commit naming
its topic's id carries it (``topic_id``, tagged field 0; the zero UUID when absent, as from older brokers).
Consumer, share and streams group records (types 3-8, 16, 9-15, 17 and 19-23) are decoded by
:func:`codec.kafka4.decode_record`: their ``key`` and ``value`` are dicts in Kafka's JSON (camelCase).

Inputs:

* :func:`read_text` — one record per line, as dump tools print them. Accepted lines:

  - ``KEY<TAB>VALUE``, ``KEY:VALUE``, ``KEY,VALUE`` or ``KEY VALUE`` (the first tab, else the first
    colon, else comma, else run of spaces separates the fields);
  - JSON objects ``{"key": KEY, "value": VALUE}``, both keys required (a JSON ``null`` value is a tombstone);
  - blank lines and lines starting with ``#`` are skipped.

  ``KEY`` and ``VALUE`` are hex (optionally ``0x``-prefixed; a field of an even number of hex digits is
  read as hex) or else base64 (standard or URL-safe, padding optional). A ``VALUE`` of ``null``,
  ``NULL``, ``None``, ``-`` or nothing is a tombstone. A line longer than ``max_line`` characters
  (default 64 Mi, far above any record a broker accepts) is a bad record, read past in bounded memory.
* :func:`read_segment` — a log segment of the ``__consumer_offsets`` partition (record batches,
  :mod:`codec.capture.records`), CRC-checked; control batches (transaction markers) come out as
  :class:`ControlMarker`.

Every input record comes out once: as an :class:`OffsetsRecord`, a :class:`ControlMarker`, or a
:class:`BadRecord` with the :class:`~codec.errors.DecodeError` that says why. A batch that fails as a
whole is one :class:`BadRecord` (its ``where`` names the batch). When the input cannot be read to its end
(a truncated or corrupt gzip stream, a segment cut inside a batch, a read error), reading stops with a
last :class:`BadRecord` whose ``stopped`` is True: what came before it has been read, what comes after
cannot be.

Each group member's ``subscription`` and ``assignment`` stay bytes in the decoded value;
:func:`member_payloads` decodes them through the ConsumerProtocol (and, for protocol ``stream``,
Kafka Streams) layers of :mod:`codec.group`.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Protocol, TextIO, runtime_checkable

from ..cliutil import loads
from ..errors import DecodeError, LimitExceededError, TruncatedError, UnsupportedVersionError
from ..kafka4.common import RECORD_TYPES as KAFKA4_RECORD_TYPES
from ..wire.builder import decode_wire
from ..wire.registry import record_types
from ..wire.schema import load_message
from .bytestream import ByteStream
from .records import DEFAULT_MAX_BATCH, DEFAULT_MAX_DECOMPRESSED, BadBatch, read_batches

__all__ = [
    "OffsetsRecord",
    "BadRecord",
    "ControlMarker",
    "MemberPayloads",
    "decode_record",
    "decode_key",
    "decode_value",
    "read_text",
    "read_segment",
    "parse_line",
    "member_payloads",
    "RECORD_TYPES",
    "DEFAULT_MAX_LINE",
    "READ_ERRORS",
]

# Record type -> (key schema, value schema) as Kafka's group coordinator writes them: the registry's, from the
# schemas (a classic key's version doubles as its record type; a Kafka 4 key's "apiKey" is its type)
RECORD_TYPES: dict[int, tuple[str, str]] = {t: (r.key, r.value) for t, r in record_types().items()}
_DECODED = {0, 1, 2}
_VERSION = struct.Struct(">h")
DEFAULT_MAX_LINE = 64 * 1024 * 1024  # characters of a text dump line
# What reading a damaged input raises: a cut gzip stream (EOFError), a corrupt one (zlib.error, or
# gzip.BadGzipFile, an OSError), a failing disk (OSError).
READ_ERRORS = (OSError, EOFError, zlib.error)


@dataclass(frozen=True, slots=True)
class OffsetsRecord:
    """A decoded record. ``where``: ``line N`` or ``offset N`` (the Kafka log offset);
    ``key_schema``/``value_schema`` name the schemas; ``value`` is None for a tombstone; ``trailing``
    holds bytes found after the last field of the key or value (Kafka ignores them), else it is empty."""

    where: str
    key_version: int
    key_schema: str
    key: Any
    value_version: int | None
    value_schema: str
    value: Any
    trailing: dict[str, bytes] = field(default_factory=dict)
    crc_ok: bool | None = None  # for records read from a segment: did their batch's CRC match

    @property
    def tombstone(self) -> bool:
        return self.value is None


@dataclass(frozen=True, slots=True)
class ControlMarker:
    """A transaction marker (control record): ``kind`` ``commit``, ``abort`` or ``type N``."""

    where: str
    kind: str
    producer_id: int


@dataclass(frozen=True, slots=True)
class BadRecord:
    """A record (or a whole batch) that could not be decoded, and why. ``stopped``: the input could not be
    read past it (nothing follows it)."""

    where: str
    error: DecodeError
    stopped: bool = False


# -- keys and values ---------------------------------------------------------------------------------


def _version(data: bytes, what: str) -> int:
    if len(data) < 2:
        raise TruncatedError(f"truncated (need 2, have {len(data)})", message=what, offset=0, path="version")
    return _VERSION.unpack_from(data)[0]


def _body(schema: str, version: int, data: bytes) -> tuple[Any, bytes]:
    """The body after the version, and the bytes after its last field (Kafka's readers ignore them,
    wire-facts §0.3; they are kept so that nothing is silently lost)."""
    spec = load_message(schema)
    if version not in spec.valid:
        raise UnsupportedVersionError(
            f"unsupported version {version} (valid {spec.valid})",
            message=schema,
            version=version,
            offset=0,
            path="version",
        )
    body, end = decode_wire(schema, version, data, start=2)
    return body, bytes(data[end:])


def decode_key(data: bytes) -> tuple[int, str, Any, bytes]:
    """(key version, key schema name, decoded key, trailing bytes)."""
    version = _version(data, "__consumer_offsets key")
    names = RECORD_TYPES.get(version)
    if names is None:
        raise UnsupportedVersionError(
            f"unknown record type {version}",
            message="__consumer_offsets key",
            version=version,
            offset=0,
            path="version",
        )
    if version not in _DECODED:
        raise UnsupportedVersionError(
            f"record type {version} ({names[0]}) is not decoded here",
            message=names[0],
            version=version,
            offset=0,
            path="version",
        )
    return (version, names[0], *_body(names[0], version, data))


def decode_value(key_version: int, data: bytes | None) -> tuple[int | None, Any, bytes]:
    """(value version, decoded value, trailing bytes); (None, None, b"") for a tombstone."""
    if data is None:
        return None, None, b""
    schema = RECORD_TYPES[key_version][1]
    version = _version(data, schema)
    return (version, *_body(schema, version, data))


def decode_record(
    key: bytes | None, value: bytes | None, where: str, *, crc_ok: bool | None = None
) -> OffsetsRecord | BadRecord:
    """Decode one key/value pair; never raises DecodeError (a failure is a BadRecord)."""
    try:
        if key is None:
            raise DecodeError("record has a null key", message="__consumer_offsets key", offset=0)
        if len(key) >= 2 and _VERSION.unpack_from(key)[0] in KAFKA4_RECORD_TYPES:
            return _kafka4_record(key, value, where, crc_ok)
        kv, kschema, k, ktrail = decode_key(key)
        vv, v, vtrail = decode_value(kv, value)
    except DecodeError as e:
        return BadRecord(where, e)
    trailing = {name: b for name, b in (("key", ktrail), ("value", vtrail)) if b}
    return OffsetsRecord(where, kv, kschema, k, vv, RECORD_TYPES[kv][1], v, trailing, crc_ok)


def _kafka4_record(key: bytes, value: bytes | None, where: str, crc_ok: bool | None) -> OffsetsRecord:
    """A consumer, share or streams group record through :func:`codec.kafka4.decode_record` (raises DecodeError)."""
    from ..kafka4 import decode_record as decode4

    rec = decode4(key, value)
    trailing = {}
    for part, data in (("key", key), ("value", value)):
        n = rec.get("trailing", {}).get(part, {}).get("bytes")
        if n and data is not None:
            trailing[part] = bytes(data[len(data) - n :])
    name = rec["record"]
    return OffsetsRecord(
        where,
        rec["recordType"],
        f"{name}Key",
        rec["key"],
        rec["valueVersion"],
        f"{name}Value",
        rec["value"],
        trailing,
        crc_ok,
    )


# -- text dumps --------------------------------------------------------------------------------------

_HEX = re.compile(r"(?:0[xX])?([0-9a-fA-F]*)")
_NULLS = {"", "null", "NULL", "None", "-"}
_SEPARATORS = ("\t", ":", ",")


def _field(text: str, what: str) -> bytes:
    text = text.strip()
    m = _HEX.fullmatch(text)
    if m and len(m.group(1)) % 2 == 0:
        return bytes.fromhex(m.group(1))
    try:
        padded = text + "=" * (-len(text) % 4)
        alt = "-_" if ("-" in text or "_" in text) else None
        return base64.b64decode(padded, altchars=alt, validate=True)
    except (binascii.Error, ValueError):
        raise DecodeError(
            f"{what} is neither hex nor base64: {text[:40]!r}", message="text record", offset=None, path=what
        ) from None


def parse_line(text: str) -> tuple[bytes, bytes | None] | None:
    """(key, value or None) of one line (see the module docstring); None for a line to skip."""
    if not text.strip() or text.lstrip().startswith("#"):
        return None
    stripped = text.rstrip("\r\n").strip(" ")  # a trailing tab separates an empty (null) value
    if stripped.startswith("{"):
        try:
            obj = loads(stripped)
        except json.JSONDecodeError as e:
            raise DecodeError(f"bad JSON: {e.msg}", message="text record", offset=e.pos, path="") from None
        except RecursionError:
            raise DecodeError("bad JSON: it nests too deeply", message="text record", offset=None, path="") from None
        except ValueError as e:  # a duplicate key, an integer of more digits than Python converts
            raise DecodeError(f"bad JSON: {e}", message="text record", offset=None, path="") from None
        if not isinstance(obj, dict) or "key" not in obj:
            raise DecodeError('a JSON line needs a "key"', message="text record", offset=0, path="key")
        if "value" not in obj:  # as a line without a key is refused: a tombstone says so ("value": null)
            raise DecodeError(
                'a JSON line needs a "value", null for a tombstone', message="text record", offset=0, path="value"
            )
        k, v = obj["key"], obj["value"]
        if not isinstance(k, str) or not (v is None or isinstance(v, str)):
            raise DecodeError(
                "key and value must be strings (value may be null)", message="text record", offset=0, path="key"
            )
        return _field(k, "key"), None if v is None or v.strip() in _NULLS else _field(v, "value")
    for sep in _SEPARATORS:
        if sep in stripped:
            k, v = stripped.split(sep, 1)
            break
    else:
        parts = stripped.split(None, 1)
        k, v = parts[0], parts[1] if len(parts) > 1 else None
        if v is None:
            raise DecodeError(
                "no value field (write null for a tombstone)", message="text record", offset=len(stripped), path="value"
            )
    return _field(k, "key"), None if v.strip() in _NULLS else _field(v, "value")


def read_text(
    lines: Iterable[str] | str | Path | TextIO, *, max_line: int = DEFAULT_MAX_LINE
) -> Iterator[OffsetsRecord | BadRecord]:
    """Decode a text dump of records (a path, a text stream, or an iterable of lines), one result per record
    line. A stream that cannot be read to its end ends with a ``stopped`` :class:`BadRecord`."""
    if isinstance(lines, (str, Path)):
        with open(lines, encoding="utf-8", errors="replace") as f:
            yield from read_text(f, max_line=max_line)
        return
    source = _bounded_lines(lines, max_line) if isinstance(lines, _LineReader) else iter(lines)
    n = 0
    while True:
        try:
            text = next(source)
        except StopIteration:
            return
        except READ_ERRORS as e:
            where = f"past line {n}" if n else "at all"
            yield BadRecord(
                f"line {n + 1}",
                DecodeError(f"cannot be read {where}: {_reason(e)}", message="text dump", offset=None, path=""),
                stopped=True,
            )
            return
        n += 1
        where = f"line {n}"
        if isinstance(text, _TooLong):
            yield BadRecord(
                where,
                LimitExceededError(
                    f"a line of {text.length:,} characters exceeds the maximum {max_line:,}",
                    message="text record",
                    offset=None,
                    path="",
                ),
            )
            continue
        try:
            kv = parse_line(text)
        except DecodeError as e:
            yield BadRecord(where, e)
            continue
        if kv is not None:
            yield decode_record(kv[0], kv[1], where)


@dataclass(frozen=True, slots=True)
class _TooLong:
    length: int


@runtime_checkable
class _LineReader(Protocol):
    """A text stream, as far as :func:`_bounded_lines` reads it."""

    def readline(self, size: int = -1, /) -> str: ...


def _bounded_lines(f: _LineReader, max_line: int) -> Iterator[str | _TooLong]:
    """The lines of ``f``, none read into memory beyond ``max_line`` characters (a longer one is passed over
    in pieces and stands as a :class:`_TooLong`)."""
    while True:
        line = f.readline(max_line + 1)
        if not line:
            return
        if len(line) <= max_line or line.endswith("\n"):
            yield line
            continue
        length = len(line)
        while not line.endswith("\n"):
            line = f.readline(1 << 20)
            if not line:
                break
            length += len(line)
        yield _TooLong(length)


def _reason(e: BaseException) -> str:
    if isinstance(e, EOFError):
        return "the compressed stream is cut short (truncated gzip)"
    if isinstance(e, zlib.error):
        return f"the compressed stream is corrupt ({e})"
    return str(e) or type(e).__name__


# -- log segments ------------------------------------------------------------------------------------


def read_segment(
    source: str | Path | ByteStream,
    *,
    max_batch: int = DEFAULT_MAX_BATCH,
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
) -> Iterator[OffsetsRecord | ControlMarker | BadRecord]:
    """Decode every record of a ``__consumer_offsets`` log segment."""
    for batch in read_batches(source, max_batch=max_batch, max_decompressed=max_decompressed):
        if isinstance(batch, BadBatch):
            yield BadRecord(f"batch at byte {batch.position}", batch.error, stopped=not batch.skipped)
            continue
        if not batch.crc_ok:
            computed = "CRC-32C mismatch: the batch's bytes are corrupt; its records are decoded anyway"
            yield BadRecord(
                f"batch at byte {batch.position}",
                DecodeError(computed, message="RecordBatch", offset=batch.position + 17, path="crc"),
            )
        for rec in batch.records:
            where = f"offset {rec.offset}"
            if batch.is_control:
                yield _control(rec, where, batch.producer_id)
            else:
                yield decode_record(rec.key, rec.value, where, crc_ok=batch.crc_ok)


def _control(rec, where: str, producer_id: int) -> ControlMarker | BadRecord:
    key = rec.key or b""
    if len(key) < 4:
        return BadRecord(
            where,
            TruncatedError(
                f"control record key truncated (need 4, have {len(key)})",
                message="ControlRecordKey",
                offset=0,
                path="type",
            ),
        )
    kind = struct.unpack_from(">h", key, 2)[0]
    return ControlMarker(where, {0: "abort", 1: "commit"}.get(kind, f"type {kind}"), producer_id)


# -- the members' payloads ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemberPayloads:
    """One member's subscription and assignment, each a ``codec.group.Nested`` (bytes as carried plus the
    decoded ConsumerProtocol message or the reason it failed), or the raw bytes with ``note`` saying why
    they were not decoded."""

    member_id: str
    subscription: Any
    assignment: Any
    note: str = ""


def member_payloads(value) -> list[MemberPayloads]:
    """Decode each member's bytes of a GroupMetadataValue through the layers its protocol type carries:
    ConsumerProtocol (and the Streams layers for protocol ``stream``) for ``consumer``, a worker's metadata and
    assignment for ``connect`` (read as current workers read them); other types stay raw."""
    if value.protocol_type not in ("consumer", "connect"):
        note = f"protocol type {value.protocol_type!r} carries no messages this project reads"
        return [MemberPayloads(m.member_id, m.subscription, m.assignment, note) for m in value.members]
    try:
        from ..group.consumer import ASSIGNMENT, SUBSCRIPTION
        from ..group.nested import CONNECT_ASSIGNMENT, CONNECT_METADATA, decode_layer
    except ImportError as e:  # codec.group is a separate layer; keep the bytes if it is absent
        note = f"group message decoder unavailable ({e})"
        return [MemberPayloads(m.member_id, m.subscription, m.assignment, note) for m in value.members]
    sub_layer, asg_layer = (
        (CONNECT_METADATA, CONNECT_ASSIGNMENT) if value.protocol_type == "connect" else (SUBSCRIPTION, ASSIGNMENT)
    )
    out = []
    for i, m in enumerate(value.members):
        sub = (
            decode_layer(sub_layer, m.subscription, protocol_name=value.protocol, at=f"members[{i}].subscription")
            if m.subscription
            else m.subscription
        )
        asg = (
            decode_layer(asg_layer, m.assignment, protocol_name=value.protocol, at=f"members[{i}].assignment")
            if m.assignment
            else m.assignment
        )
        out.append(MemberPayloads(m.member_id, sub, asg))
    return out
