"""The binary primitives of Kafka's protocols, as construct classes.

Each class implements construct's ``_parse``/``_build`` directly (construct's ``gallery/ut_index.py``
style) so that it can raise this package's errors with the byte offset and the field path, and so that
no reader allocates in proportion to a length the remaining bytes cannot back. Paths are passed down as
``a.b[3].c`` (snake_case field names, array indices), the form every ``DecodeError`` shows.

Classic and flexible encodings (wire-facts §0.1-§0.2), Java ``DataOutputStream`` encodings (§0.4):

=================  =========================================================
``Int``            int8/int16/int32/int64/uint16, big-endian two's complement
``Bool``           1 byte; any non-zero value reads as true
``Uuid``           16 bytes, MSB then LSB
``UVarint``        unsigned LEB128, at most 5 bytes for an int32
``String``         int16 or compact length + UTF-8; nullable per version
``Bytes``          int32 or compact length + bytes; nullable per version
``JavaUTF``        ``writeUTF``: uint16 length + modified UTF-8
``JavaChars``      int32 char count + UTF-16BE chars (``writeChars``); 0 = none
``Array``          int32 or compact count + elements; nullable per version
``Struct``         fields in order, then the tagged-field section in flexible versions
=================  =========================================================
"""

from __future__ import annotations

import struct as _struct
import uuid
from typing import Any, Callable, Sequence

import construct

from ..errors import DecodeError, EncodeError, LimitExceededError, TruncatedError
from .encodings import java_utf8_decode, mutf8_decode, mutf8_encode, utf8_or_refuse, uvarint_bytes

__all__ = [
    "KConstruct",
    "Int",
    "Bool",
    "Uuid",
    "UVarint",
    "String",
    "Bytes",
    "JavaUTF",
    "JavaChars",
    "Array",
    "Struct",
    "TaggedFields",
    "remaining",
    "mutf8_encode",
    "mutf8_decode",
    "INT8",
    "INT16",
    "INT32",
    "INT64",
    "UINT16",
    "BOOL",
    "UUID",
]


def _path(path: str) -> str:
    # construct's own entry points start the path with "(parsing)"/"(building)"; ours start with "".
    return "" if path.startswith("(") else path


def remaining(stream, context) -> int:
    """Bytes left in the stream. Our entry points record the total length in the context."""
    total = getattr(context, "_total", None) if context is not None else None
    pos = stream.tell()
    if total is None:
        end = stream.seek(0, 2)
        stream.seek(pos)
        return end - pos
    return total - pos


def _truncated(path: str, offset: int, need: int, have: int) -> TruncatedError:
    return TruncatedError(f"truncated (need {need}, have {have})", offset=offset, path=_path(path))


def read_exact(stream, n: int, path: str) -> bytes:
    pos = stream.tell()
    b = stream.read(n)
    if len(b) != n:
        raise _truncated(path, pos, n, len(b))
    return b


class KConstruct(construct.Construct):
    """Base class: ``min_size`` is the fewest bytes one value can take (used to bound counts)."""

    min_size = 0

    def _sizeof(self, context, path):
        raise construct.SizeofError("variable-size Kafka type", path=path)


class Int(KConstruct):
    def __init__(self, name: str, fmt: str, lo: int, hi: int) -> None:
        super().__init__()
        self.kname = name
        self._s = _struct.Struct(fmt)
        self.min_size = self._s.size
        self.lo, self.hi = lo, hi

    def _parse(self, stream, context, path):
        return self._s.unpack(read_exact(stream, self.min_size, path))[0]

    def _build(self, obj, stream, context, path):
        if not isinstance(obj, int) or isinstance(obj, bool) and self.kname != "int8":
            raise EncodeError(f"{self.kname} field needs an integer, got {type(obj).__name__}", path=_path(path))
        if not self.lo <= obj <= self.hi:
            raise EncodeError(f"{obj} is out of range for {self.kname} [{self.lo}, {self.hi}]", path=_path(path))
        stream.write(self._s.pack(obj))
        return obj

    def _sizeof(self, context, path):
        return self.min_size


INT8 = Int("int8", ">b", -(2**7), 2**7 - 1)
INT16 = Int("int16", ">h", -(2**15), 2**15 - 1)
INT32 = Int("int32", ">i", -(2**31), 2**31 - 1)
INT64 = Int("int64", ">q", -(2**63), 2**63 - 1)
UINT16 = Int("uint16", ">H", 0, 2**16 - 1)


class Bool(KConstruct):
    min_size = 1

    def _parse(self, stream, context, path):
        return read_exact(stream, 1, path) != b"\x00"

    def _build(self, obj, stream, context, path):
        if not isinstance(obj, bool):
            raise EncodeError(f"bool field needs true/false, got {obj!r}", path=_path(path))
        stream.write(b"\x01" if obj else b"\x00")
        return obj


BOOL = Bool()


class Uuid(KConstruct):
    min_size = 16

    def _parse(self, stream, context, path):
        return uuid.UUID(bytes=read_exact(stream, 16, path))

    def _build(self, obj, stream, context, path):
        if not isinstance(obj, uuid.UUID):
            raise EncodeError(f"uuid field needs a UUID, got {type(obj).__name__}", path=_path(path))
        stream.write(obj.bytes)
        return obj


UUID = Uuid()


class UVarint(KConstruct):
    """Unsigned LEB128, bounded: at most ``max_bytes`` bytes and a value below ``2**bits``."""

    min_size = 1

    def __init__(self, max_bytes: int = 5, bits: int = 32) -> None:
        super().__init__()
        self.max_bytes = max_bytes
        self.limit = 1 << bits

    def _parse(self, stream, context, path):
        start = stream.tell()
        value = shift = 0
        for i in range(self.max_bytes):
            b = stream.read(1)
            if not b:
                raise _truncated(path, start + i, 1, 0)
            byte = b[0]
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                if value >= self.limit:
                    raise DecodeError(f"varint {value} exceeds {self.limit - 1}", offset=start, path=_path(path))
                return value
            shift += 7
        raise DecodeError(f"varint longer than {self.max_bytes} bytes", offset=start, path=_path(path))

    def _build(self, obj, stream, context, path):
        if not isinstance(obj, int) or not 0 <= obj < self.limit:
            raise EncodeError(f"varint value {obj!r} out of range", path=_path(path))
        stream.write(uvarint_bytes(obj))
        return obj


UVARINT = UVarint()


class _Length(KConstruct):
    """Shared length-prefix logic for strings, bytes and arrays.

    ``prefix``: ``"int16"``, ``"int32"`` or ``"compact"`` (uvarint N+1, 0 = null). Returns the length,
    or None for null."""

    def __init__(self, prefix: str, nullable: bool) -> None:
        super().__init__()
        self.prefix = prefix
        self.nullable = nullable
        self._len = {"int16": INT16, "int32": INT32, "compact": UVARINT, "uint16": UINT16}[prefix]
        self.min_size = self._len.min_size

    def _read_len(self, stream, context, path, what: str) -> int | None:
        pos = stream.tell()
        n = self._len._parse(stream, context, path)
        if self.prefix == "compact":
            n -= 1
        if n < 0:
            if n == -1 and self.nullable:
                return None
            if n == -1:
                raise DecodeError(f"null {what} in a non-nullable field", offset=pos, path=_path(path))
            raise DecodeError(f"negative {what} length {n}", offset=pos, path=_path(path))
        return n

    def _write_len(self, n: int | None, stream, context, path) -> None:
        if n is None:
            if not self.nullable:
                raise EncodeError("null in a non-nullable field", path=_path(path))
            n = -1
        if self.prefix == "compact":
            n += 1
        self._len._build(n, stream, context, path)


class String(_Length):
    """A Kafka string: UTF-8, at most 0x7FFF bytes (the reader rejects longer)."""

    def _parse(self, stream, context, path):
        pos = stream.tell()
        n = self._read_len(stream, context, path, "string")
        if n is None:
            return None
        if n > 0x7FFF:
            raise LimitExceededError(f"string length {n} exceeds 32767", offset=pos, path=_path(path))
        raw = read_exact(stream, n, path)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            if getattr(context, "_strings", None) == "java":  # the decode option: as Java reads it
                return java_utf8_decode(raw)
            raise DecodeError(
                f"invalid UTF-8 in string ({e.reason} at byte {e.start})",
                offset=pos + self.min_size + e.start,
                path=_path(path),
            ) from None

    def _build(self, obj, stream, context, path):
        if obj is None:
            self._write_len(None, stream, context, path)
            return obj
        if not isinstance(obj, str):
            raise EncodeError(f"string field needs str, got {type(obj).__name__}", path=_path(path))
        raw = utf8_or_refuse(obj, _path(path))
        if len(raw) > 0x7FFF:
            raise EncodeError(f"string of {len(raw)} bytes exceeds 32767", path=_path(path))
        self._write_len(len(raw), stream, context, path)
        stream.write(raw)
        return obj


class Bytes(_Length):
    def _parse(self, stream, context, path):
        n = self._read_len(stream, context, path, "bytes")
        if n is None:
            return None
        return read_exact(stream, n, path)

    def _build(self, obj, stream, context, path):
        if obj is None:
            self._write_len(None, stream, context, path)
            return obj
        if not isinstance(obj, (bytes, bytearray, memoryview)):
            raise EncodeError(f"bytes field needs bytes, got {type(obj).__name__}", path=_path(path))
        obj = bytes(obj)
        self._write_len(len(obj), stream, context, path)
        stream.write(obj)
        return obj


class JavaUTF(KConstruct):
    """``writeUTF``/``readUTF``: uint16 byte length, then modified UTF-8 (NUL as C0 80, supplementary
    characters as two 3-byte surrogates). Never null."""

    min_size = 2

    def _parse(self, stream, context, path):
        pos = stream.tell()
        n = UINT16._parse(stream, context, path)
        raw = read_exact(stream, n, path)
        try:
            return mutf8_decode(raw)
        except ValueError as e:
            raise DecodeError("malformed modified UTF-8", offset=pos + 2 + e.args[0], path=_path(path)) from None

    def _build(self, obj, stream, context, path):
        if not isinstance(obj, str):
            raise EncodeError(f"string field needs str, got {type(obj).__name__}", path=_path(path))
        raw = mutf8_encode(obj)
        if len(raw) > 0xFFFF:
            raise EncodeError(f"encoded string of {len(raw)} bytes exceeds writeUTF's 65535", path=_path(path))
        stream.write(len(raw).to_bytes(2, "big"))
        stream.write(raw)
        return obj


class JavaChars(KConstruct):
    """An int32 char count, then that many UTF-16BE code units (``writeInt(s.length()); writeChars(s)``).

    A count of 0 is no value (None). A negative count reads no chars, as Kafka's loop does."""

    min_size = 4

    def _parse(self, stream, context, path):
        pos = stream.tell()
        n = INT32._parse(stream, context, path)
        if n <= 0:
            return None
        if 2 * n > remaining(stream, context):
            raise _truncated(path, pos + 4, 2 * n, remaining(stream, context))
        return read_exact(stream, 2 * n, path).decode("utf-16-be", "surrogatepass")

    def _build(self, obj, stream, context, path):
        if obj is None or obj == "":
            stream.write(b"\x00\x00\x00\x00")
            return obj
        if not isinstance(obj, str):
            raise EncodeError(f"string field needs str, got {type(obj).__name__}", path=_path(path))
        raw = obj.encode("utf-16-be", "surrogatepass")
        stream.write((len(raw) // 2).to_bytes(4, "big"))
        stream.write(raw)
        return obj


class Array(_Length):
    """A count-prefixed array. Before any element is read, a count larger than the bytes that remain is
    rejected (Kafka's own check, franz-go's ``ArrayLen``), so a forged count cannot make the decoder
    allocate or loop beyond the size of its input; a count the bytes could back is read element by
    element, and a cut input is then reported at the exact field where it ends."""

    def __init__(self, sub: KConstruct, prefix: str, nullable: bool) -> None:
        super().__init__(prefix, nullable)
        self.sub = sub

    def _parse(self, stream, context, path):
        pos = stream.tell()
        n = self._read_len(stream, context, path, "array")
        if n is None:
            return None
        left = remaining(stream, context)
        if n > left:
            raise LimitExceededError(
                f"array count {n} exceeds the {left} bytes that remain", offset=pos, path=_path(path)
            )
        sub = self.sub._parse
        base = _path(path)
        return tuple(sub(stream, context, f"{base}[{i}]") for i in range(n))

    def _build(self, obj, stream, context, path):
        if obj is None:
            self._write_len(None, stream, context, path)
            return obj
        if isinstance(obj, (str, bytes)) or not hasattr(obj, "__len__"):
            raise EncodeError(f"array field needs a sequence, got {type(obj).__name__}", path=_path(path))
        self._write_len(len(obj), stream, context, path)
        base = _path(path)
        for i, item in enumerate(obj):
            self.sub._build(item, stream, context, f"{base}[{i}]")
        return obj


class TaggedFields(KConstruct):
    """The tagged-field section of a flexible struct: uvarint count, then (uvarint tag, uvarint size,
    bytes) in ascending tag order. Known tags decode to their field; unknown ones are kept raw and
    written back unchanged."""

    min_size = 1

    def __init__(self, known: dict[int, tuple[str, KConstruct]]) -> None:
        super().__init__()
        self.known = known

    def _parse(self, stream, context, path):
        base = _path(path)
        section = f"{base}._tagged_fields" if base else "_tagged_fields"
        pos = stream.tell()
        n = UVARINT._parse(stream, context, section)
        if 2 * n > remaining(stream, context):
            raise LimitExceededError(f"tagged field count {n} exceeds the bytes that remain", offset=pos, path=section)
        known, unknown = {}, {}
        last = -1
        for i in range(n):
            tpos = stream.tell()
            tag = UVARINT._parse(stream, context, f"{section}[{i}]")
            if tag <= last:
                raise DecodeError(
                    f"tagged field {tag} out of order (after {last})", offset=tpos, path=f"{section}[{i}]"
                )
            last = tag
            size = UVARINT._parse(stream, context, f"{section}[{tag}]")
            if size > remaining(stream, context):
                raise _truncated(f"{section}[{tag}]", stream.tell(), size, remaining(stream, context))
            raw = read_exact(stream, size, f"{section}[{tag}]")
            if tag in self.known:
                fname, con = self.known[tag]
                known[fname] = _parse_bytes(con, raw, f"{base}.{fname}" if base else fname, stream.tell() - size)
            else:
                unknown[tag] = raw
        return known, unknown

    def _build(self, obj, stream, context, path):
        known, unknown = obj  # known: {tag: (name, value)}; unknown: {tag: bytes}
        items = dict(unknown)
        for tag, (fname, value) in known.items():
            con = self.known[tag][1]
            items[tag] = _build_bytes(con, value, f"{_path(path)}.{fname}" if _path(path) else fname)
        stream.write(uvarint_bytes(len(items)))
        for tag in sorted(items):
            raw = items[tag]
            stream.write(uvarint_bytes(tag))
            stream.write(uvarint_bytes(len(raw)))
            stream.write(raw)
        return obj


def _parse_bytes(con: KConstruct, raw: bytes, path: str, base_offset: int):
    import io

    from construct import Container

    ctx = Container(_total=len(raw))
    try:
        return con._parse(io.BytesIO(raw), ctx, path)
    except DecodeError as e:
        if e.offset is not None:
            e.offset += base_offset
            e.args = (e._format(),)
        raise


def _build_bytes(con: KConstruct, value, path: str) -> bytes:
    import io

    s = io.BytesIO()
    con._build(value, s, None, path)
    return s.getvalue()


class NullableStruct(KConstruct):
    """A nullable struct field (not an array element), as Kafka's generated code writes it: an int8
    marker, -1 for null and 1 before the struct; a reader takes any negative marker as null and any other
    as a struct that follows (Kafka's ``readByte() < 0``). In a tagged field the marker is a uvarint: 0 for
    null, 1 before the struct (``readUnsignedVarint() <= 0`` is null). Whether a tagged field is written at
    all is its default's business: Kafka's ``"default": null`` (JSON null) makes the empty struct the
    default, so a null is written (``ConsumerGroupMemberMetadataValue.ClassicMemberMetadata``)."""

    min_size = 1

    def __init__(self, sub: "Struct", tagged: bool = False) -> None:
        super().__init__()
        self.sub = sub
        self.tagged = tagged  # inside a tagged field the marker is a uvarint: 0 null, 1 present

    def _parse(self, stream, context, path):
        if self.tagged:
            if UVARINT._parse(stream, context, path) == 0:
                return None
            return self.sub._parse(stream, context, path)
        marker = INT8._parse(stream, context, path)
        if marker < 0:
            return None
        return self.sub._parse(stream, context, path)

    def _build(self, obj, stream, context, path):
        if obj is None:
            stream.write(b"\x00" if self.tagged else b"\xff")
            return obj
        stream.write(b"\x01")
        return self.sub._build(obj, stream, context, path)


class Struct(KConstruct):
    """Fields in order, building a model object with ``factory(**fields)``.

    ``fields``: (python name, construct) pairs present at this version. ``absent``: (python name,
    default, ignorable) for the fields this version lacks; building refuses a non-default value there
    unless the field is ignorable (Kafka's rule, wire-facts §0.3). ``tagged``: the tagged-field section
    (flexible versions only); ``tagged_names`` maps each known tagged field to (tag, default)."""

    def __init__(
        self,
        name: str,
        fields: Sequence[tuple[str, KConstruct]],
        factory: Callable[..., Any],
        absent: Sequence[tuple[str, Any, bool]] = (),
        tagged: TaggedFields | None = None,
        tagged_names: dict[str, tuple[int, Any]] | None = None,
    ) -> None:
        super().__init__()
        self.sname = name
        self.fields = tuple(fields)
        self.factory = factory
        self.absent = tuple(absent)
        self.tagged = tagged
        self.tagged_names = tagged_names or {}
        self.min_size = sum(c.min_size for _, c in self.fields) + (1 if tagged else 0)

    def _parse(self, stream, context, path):
        base = _path(path)
        prefix = base + "." if base else ""
        offsets = getattr(context, "_offsets", None)
        if offsets is None:
            values = {name: con._parse(stream, context, prefix + name) for name, con in self.fields}
        else:  # the diagnostic path: remember where every field starts
            values = {}
            for name, con in self.fields:
                offsets[prefix + name] = stream.tell()
                values[name] = con._parse(stream, context, prefix + name)
        if self.tagged is not None:
            if offsets is not None:  # the section's own name, as its DecodeErrors give it
                offsets[prefix + "_tagged_fields"] = stream.tell()
            known, unknown = self.tagged._parse(stream, context, base)
            values.update(known)
            if unknown:
                values["unknown_tagged_fields"] = unknown
        return self.factory(**values)

    def _build(self, obj, stream, context, path):
        base = _path(path)
        prefix = base + "." if base else ""
        get = obj.get if isinstance(obj, dict) else (lambda k, d=None: getattr(obj, k, d))
        for name, default, ignorable in self.absent:
            value = get(name, default)
            if value != default and not ignorable:
                raise EncodeError(
                    f"field {name} is not in this version and {value!r} is not its default ({default!r})",
                    path=prefix + name,
                )
        for name, con in self.fields:
            con._build(get(name), stream, context, prefix + name)
        if self.tagged is None and get("unknown_tagged_fields"):
            # Kafka's generated writers refuse too (UnsupportedVersionException).
            raise EncodeError(
                "tagged fields are set but this version is not flexible", path=prefix + "unknown_tagged_fields"
            )
        if self.tagged is not None:
            known = {}
            for name, (tag, default) in self.tagged_names.items():
                value = get(name, default)
                if value != default:  # a tagged field at its default is not written
                    known[tag] = (name, value)
            self.tagged._build((known, get("unknown_tagged_fields") or {}), stream, context, base)
        return obj
