"""From a schema table to construct structures and wire models, one per (message, struct, version).

The wire model of a struct is one frozen, slotted, keyword-only dataclass holding the union of its
fields over every version (as Kafka's generated ``*Data`` classes do); a field absent from a version holds
its default. ``struct_for(message, version)`` returns the cached construct ``Struct`` for one version.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import uuid
from functools import cache

from ..errors import DecodeError, EncodeError
from . import native
from .schema import FieldSpec, MessageSpec, StructSpec, load_message, on_schema_change, table_token

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "wire_class", "struct_for", "default_value", "decode_wire", "encode_wire", "field_offsets", "to_json", "from_json",
    "uuid_to_kafka", "uuid_from_kafka", "decode_wire_reference", "encode_wire_reference",
]

_INT_TYPES = {"int8", "int16", "int32", "int64", "uint16"}


_FASTPATH = []


def _fastpath():
    """:mod:`codec.wire.fastpath`, imported when the pure-Python codec first runs (the native one never needs
    it)."""
    if not _FASTPATH:
        from . import fastpath

        _FASTPATH.append(fastpath)
    return _FASTPATH[0]


def default_value(f: FieldSpec, message: MessageSpec) -> Any:
    """The value a reader gives a field its version lacks (wire-facts §0.3)."""
    d = f.default
    if f.is_array:
        return None if d == "null" else ()
    t = f.type
    if t in _INT_TYPES:
        return int(d, 0) if isinstance(d, str) else int(d or 0)
    if t == "bool":
        return d in (True, "true")
    if t in ("string", "javaUTF"):
        return None if d == "null" else (d or "")
    if t == "javaChars":
        return None
    if t == "bytes":
        return None if d == "null" else b""
    if t == "uuid":
        return uuid.UUID(int=0)
    if t == "float64":
        return float(d or 0)
    if f.struct is not None:
        return None if d == "null" else wire_class(message.name, f.struct.name)()
    raise ValueError(f"no default for type {t}")


# (message, struct, table token) -> class. The classes of schemas/' tables are made once and kept (token 0): an
# object decoded before a schema_overrides block compares equal to one decoded after it.
_CLASSES: dict[tuple[str, str, int], type] = {}


def wire_class(message_name: str, struct_name: str) -> type:
    """The frozen dataclass for one struct of a message (all fields of all versions)."""
    key = (message_name, struct_name, table_token(message_name))
    cls = _CLASSES.get(key)
    if cls is None:
        cls = _CLASSES[key] = _make_wire_class(message_name, struct_name)
    return cls


def _make_wire_class(message_name: str, struct_name: str) -> type:
    message = load_message(message_name)
    spec = message.structs[struct_name]
    fields = []
    for f in spec.fields:
        if f.struct is not None and not f.is_array and f.default != "null":
            fields.append((f.py_name, "typing.Any", dataclasses.field(
                default_factory=lambda m=message_name, s=f.struct.name: wire_class(m, s)())))
        else:
            fields.append((f.py_name, "typing.Any", dataclasses.field(default=default_value(f, message))))
    if not message.flexible.empty:
        fields.append(("unknown_tagged_fields", dict, dataclasses.field(default_factory=dict, compare=True)))
    cls_name = spec.name if struct_name != message.name else f"{message.name}Data"
    cls = dataclasses.make_dataclass(cls_name, fields, frozen=True, slots=True, kw_only=True)
    cls.__module__ = "codec.wire.models"
    cls.__qualname__ = cls_name if struct_name == message.name else f"{message.name}Data.{spec.name}"
    cls.__doc__ = f"Wire model of {message.name}{'' if struct_name == message.name else '.' + spec.name} " \
                  f"(schemas/{message.name}.json)."
    return cls


@cache
def _fixed() -> dict:
    from . import primitives as p

    return {"int8": p.INT8, "int16": p.INT16, "int32": p.INT32, "int64": p.INT64, "uint16": p.UINT16,
            "bool": p.BOOL, "uuid": p.UUID}


def _field_con(f: FieldSpec, message: MessageSpec, version: int):
    """The construct structure of one field (construct is imported here, on the reference path only: a
    decode that the native codec serves does not load it)."""
    from . import primitives as p

    _FIXED = _fixed()
    flexible = message.is_flexible(version)
    if f.flexible_override is not None:
        flexible = version in f.flexible_override
    nullable = version in f.nullable
    dataout = message.encoding == "java-data-output"
    prefix_len = "compact" if flexible else ("int32")
    elem = f.element_type
    if f.struct is not None:
        sub = _struct_con(message.name, f.struct.name, version)
    elif elem in _FIXED:
        sub = _FIXED[elem]
    elif elem == "string":
        if dataout:
            raise ValueError(f"{message.name}.{f.name}: java-data-output messages use javaUTF, not string")
        sub = p.String("compact" if flexible else "int16", nullable and not f.is_array)
    elif elem == "bytes":
        sub = p.Bytes(prefix_len, nullable and not f.is_array)
    elif elem == "javaUTF":
        sub = p.JavaUTF()
    elif elem == "javaChars":
        sub = p.JavaChars()
    else:
        raise ValueError(f"{message.name}.{f.name}: unsupported type {f.type}")
    if f.is_array:
        return p.Array(sub, prefix_len, nullable and not dataout)
    if f.struct is not None and nullable:
        return p.NullableStruct(sub, tagged=f.tag is not None)  # a marker (-1/0 null, 1 present), then the struct
    return sub


@cache
def _struct_con(message_name: str, struct_name: str, version: int):
    from . import primitives as p

    message = load_message(message_name)
    spec: StructSpec = message.structs[struct_name]
    present = spec.fields_at(version)
    fields = [(f.py_name, _field_con(f, message, version)) for f in present]
    absent = [(f.py_name, default_value(f, message), f.ignorable)
              for f in spec.fields if f not in present and not (f.tag is not None and f.tagged_versions
                                                                 and version in f.tagged_versions)]
    tagged = None
    tagged_names = None
    if message.is_flexible(version):
        tagged_specs = spec.tagged_at(version)
        tagged = p.TaggedFields({f.tag: (f.py_name, _field_con(f, message, version)) for f in tagged_specs})
        tagged_names = {f.py_name: (f.tag, default_value(f, message)) for f in tagged_specs}
    return p.Struct(spec.name, fields, wire_class(message_name, struct_name), absent, tagged, tagged_names)


@on_schema_change
def _forget_tables() -> None:
    for key in [k for k in _CLASSES if k[2]]:  # an override's classes; schemas/' ones stay
        del _CLASSES[key]
    _struct_con.cache_clear()


def struct_for(message_name: str, version: int):
    """The construct structure of a whole message body at one version."""
    message = load_message(message_name)
    if version not in message.valid:
        raise ValueError(f"{message_name} has no version {version} (valid {message.valid})")
    return _struct_con(message_name, message.name, version)


def decode_wire(message_name: str, version: int, data: bytes | memoryview, *, start: int = 0):
    """Decode one message body at ``version`` from ``data[start:]``.

    Returns ``(wire_object, end_offset)``. Raises ``DecodeError`` naming message, version, offset, path.
    The native codec (:mod:`codec.wire.native`) decodes first, or where it is not active the code
    generated from the schema table (:mod:`codec.wire.fastpath`); whenever either meets anything unusual
    the construct path below decodes instead and reports the error."""
    if native.ACTIVE[0]:
        prog = native.OBJECT_PROGRAMS.get((message_name, version)) or native.object_program(message_name, version)
        if prog is not None and start >= 0:
            got = prog.decode(data, start)
            if got is not None:
                return got
        return decode_wire_reference(message_name, version, data, start=start)
    fast = _fastpath().decoder(message_name, version)
    if fast is not None and start >= 0:
        try:
            return fast(data if type(data) is bytes else bytes(data), start)
        except Exception:  # noqa: BLE001 - anything at all: the reference path decides
            pass
    return decode_wire_reference(message_name, version, data, start=start)


def decode_wire_reference(message_name: str, version: int, data: bytes | memoryview, *, start: int = 0):
    """:func:`decode_wire` on the interpreted construct path only (the reference and diagnostic path)."""
    from construct import Container

    con = struct_for(message_name, version)
    stream = io.BytesIO(data)
    stream.seek(start)
    ctx = Container(_total=len(data))
    try:
        obj = con._parse(stream, ctx, "")
    except DecodeError as e:
        raise e.with_context(message=message_name, version=version)
    return obj, stream.tell()


def field_offsets(message_name: str, version: int, data: bytes) -> dict[str, int]:
    """The start offset of every field path in ``data`` (the diagnostic re-parse). Stops quietly at the
    first error, returning what was located up to there."""
    from construct import Container

    con = struct_for(message_name, version)
    offsets: dict[str, int] = {}
    ctx = Container(_total=len(data), _offsets=offsets)
    try:
        con._parse(io.BytesIO(data), ctx, "")
    except DecodeError:
        pass
    return offsets


def encode_wire(message_name: str, version: int, obj) -> bytes:
    """Encode a wire object (or a dict of its fields) at ``version``; ``EncodeError`` if it cannot be.
    The native codec (or, where it is not active, the generated code of :mod:`codec.wire.fastpath`)
    encodes first; anything unusual takes the reference path."""
    if native.ACTIVE[0]:
        prog = native.OBJECT_PROGRAMS.get((message_name, version)) or native.object_program(message_name, version)
        if prog is not None:
            got = prog.encode(obj)
            if got is not None:
                return got
        return encode_wire_reference(message_name, version, obj)
    fast = _fastpath().encoder(message_name, version)
    if fast is not None:
        try:
            return fast(obj)
        except Exception:  # noqa: BLE001 - the reference path decides, with its exact error
            pass
    return encode_wire_reference(message_name, version, obj)


def encode_wire_reference(message_name: str, version: int, obj) -> bytes:
    """:func:`encode_wire` on the interpreted construct path only."""
    con = struct_for(message_name, version)
    stream = io.BytesIO()
    try:
        con._build(obj, stream, None, "")
    except EncodeError as e:
        raise EncodeError(e.reason, message=message_name, version=version, path=e.path) from None
    return stream.getvalue()


# --- JSON views -----------------------------------------------------------------------------------------

def uuid_to_kafka(u: uuid.UUID) -> str:
    """Kafka's ``Uuid.toString()``: URL-safe base64 of the 16 bytes, no padding."""
    return base64.urlsafe_b64encode(u.bytes).rstrip(b"=").decode("ascii")


def uuid_from_kafka(s: str) -> uuid.UUID:
    """Kafka's ``Uuid`` string, or a dashed UUID (:func:`codec.types.parse_uuid`: nothing else)."""
    from ..types import parse_uuid

    return parse_uuid(s)


def to_json(obj, message_name: str, version: int, *, style: str = "kafka", struct_name: str | None = None) -> dict:
    """A wire object as JSON: ``kafka`` style mirrors Kafka's generated JSON converters (camelCase, only
    the fields of that version, bytes base64, uuid as Kafka's Uuid string); ``native`` uses snake_case,
    bytes as hex and UUIDs in their usual form."""
    message = load_message(message_name)
    spec = message.structs[struct_name or message.name]
    return _to_json(obj, spec, message, version, style)


def _value_json(v, f: FieldSpec, message, version, style):
    if v is None:
        return None
    if f.is_array:
        return [_scalar_json(x, f, message, version, style) for x in v]
    return _scalar_json(v, f, message, version, style)


def _scalar_json(v, f: FieldSpec, message, version, style):
    if f.struct is not None:
        return _to_json(v, f.struct, message, version, style)
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(v).decode("ascii") if style == "kafka" else bytes(v).hex()
    if isinstance(v, uuid.UUID):
        return uuid_to_kafka(v) if style == "kafka" else str(v)
    return v


def _to_json(obj, spec: StructSpec, message, version, style) -> dict:
    out = {}
    for f in spec.fields:
        in_version = version in f.versions if f.tag is None else bool(f.tagged_versions and version in f.tagged_versions)
        if not in_version:
            continue
        key = f.json_name if style == "kafka" else f.py_name
        out[key] = _value_json(getattr(obj, f.py_name), f, message, version, style)
    unknown = getattr(obj, "unknown_tagged_fields", None)
    if unknown:
        key = "_unknownTaggedFields" if style == "kafka" else "unknown_tagged_fields"
        out[key] = {str(t): bytes(b).hex() for t, b in unknown.items()}
    return out


def from_json(data: dict, message_name: str, version: int | None = None, *, style: str = "kafka",
              struct_name: str | None = None):
    """Inverse of :func:`to_json`; missing fields take their defaults. Accepts either key style."""
    message = load_message(message_name)
    spec = message.structs[struct_name or message.name]
    return _from_json(data, spec, message, style, "")


def _scalar_from(v, f: FieldSpec, message, style, path):
    if f.struct is not None:
        if not isinstance(v, dict):
            raise EncodeError(f"expected an object for {f.name}", path=path)
        return _from_json(v, f.struct, message, style, path)
    t = f.element_type
    if t == "bytes":
        if isinstance(v, str):
            try:
                return base64.b64decode(v, validate=True) if style == "kafka" else bytes.fromhex(v)
            except ValueError:
                raise EncodeError(f"{f.name}: not {'base64' if style == 'kafka' else 'hex'}: {v[:40]!r}",
                                  path=path) from None
        if isinstance(v, list):
            return bytes(v)
        raise EncodeError(f"{f.name}: expected bytes as a string", path=path)
    if t == "uuid":
        try:
            return uuid_from_kafka(v) if isinstance(v, str) else uuid.UUID(int=0)
        except ValueError:
            raise EncodeError(f"{f.name}: not a UUID: {v!r}", path=path) from None
    return v


def _from_json(data: dict, spec: StructSpec, message, style, path) -> Any:
    kwargs = {}
    for f in spec.fields:
        for key in (f.json_name, f.py_name, f.name):
            if key in data:
                v = data[key]
                sub = f"{path}.{f.py_name}" if path else f.py_name
                if v is None:
                    kwargs[f.py_name] = None
                elif f.is_array:
                    if not isinstance(v, list):
                        raise EncodeError(f"expected a list for {f.name}", path=sub)
                    kwargs[f.py_name] = tuple(_scalar_from(x, f, message, style, f"{sub}[{i}]")
                                              for i, x in enumerate(v))
                else:
                    kwargs[f.py_name] = _scalar_from(v, f, message, style, sub)
                break
    unknown = data.get("_unknownTaggedFields") or data.get("unknown_tagged_fields")
    if unknown:
        kwargs["unknown_tagged_fields"] = {int(k): bytes.fromhex(v) for k, v in unknown.items()}
    return wire_class(message.name, spec.name)(**kwargs)
