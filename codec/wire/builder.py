"""From a schema table to construct structures, one per (message, struct, version), and the codec's entry points.

``struct_for(message, version)`` returns the cached construct ``Struct`` for one version: the reference path, which
decides and reports whatever the native codec (:mod:`codec.wire.native`) or the generated Python
(:mod:`codec.wire.fastpath`) declines. :func:`decode_wire` and :func:`encode_wire` try those first. The wire models
they all build, and their JSON view, are :mod:`codec.wire.models`' (:func:`wire_class`, :func:`default_value`,
:func:`to_json`, :func:`uuid_to_kafka` are importable from here too).
"""

from __future__ import annotations

import io
import uuid
from functools import cache

from ..errors import DecodeError, EncodeError
from . import native
from .models import default_value, to_json, uuid_to_kafka, wire_class
from .lowering import FieldOp, lower_struct
from .schema import FieldSpec, MessageSpec, StructSpec, load_message, on_schema_change

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any

__all__ = [
    "wire_class",
    "struct_for",
    "default_value",
    "decode_wire",
    "encode_wire",
    "field_offsets",
    "to_json",
    "from_json",
    "uuid_to_kafka",
    "uuid_from_kafka",
    "decode_wire_reference",
    "encode_wire_reference",
]

_FASTPATH: list[ModuleType] = []


def _fastpath() -> ModuleType:
    """:mod:`codec.wire.fastpath`, imported when the pure-Python codec first runs (the native one never needs
    it)."""
    if not _FASTPATH:
        from . import fastpath

        _FASTPATH.append(fastpath)
    return _FASTPATH[0]


@cache
def _fixed() -> dict:
    from . import primitives as p

    return {
        "int8": p.INT8,
        "int16": p.INT16,
        "int32": p.INT32,
        "int64": p.INT64,
        "uint16": p.UINT16,
        "bool": p.BOOL,
        "uuid": p.UUID,
    }


def _field_con(op: FieldOp, message: MessageSpec, version: int):
    """The construct structure of one field, as the lowering (:mod:`codec.wire.lowering`) lays it out (construct is
    imported here, on the reference path only: a decode that the native codec serves does not load it)."""
    from . import primitives as p

    _FIXED = _fixed()
    kind = op.kind
    if kind == "struct":
        assert op.struct is not None
        sub = _struct_con(message.name, op.struct.name, version)
    elif kind in _FIXED:
        sub = _FIXED[kind]
    elif kind == "string":
        sub = p.String(op.length or "int16", op.nullable)
    elif kind == "bytes":
        sub = p.Bytes(op.length or "int32", op.nullable)
    elif kind == "javaUTF":
        sub = p.JavaUTF()
    elif kind == "javaChars":
        sub = p.JavaChars()
    else:
        raise ValueError(f"{message.name}.{op.field.name}: unsupported type {op.field.type}")
    if op.array:
        return p.Array(sub, op.count or "int32", op.array_nullable)
    if op.marker is not None:
        return p.NullableStruct(sub, tagged=op.marker == "uvarint")  # a marker (-1/0 null, 1 present), then the struct
    return sub


@cache
def _struct_con(message_name: str, struct_name: str, version: int):
    from . import primitives as p

    message = load_message(message_name)
    lowered = lower_struct(message_name, struct_name, version)
    fields = [(op.name, _field_con(op, message, version)) for op in lowered.fields]
    absent = [(f.py_name, default_value(f, message), f.ignorable) for f in lowered.absent]
    tagged = None
    tagged_names = None
    if lowered.flexible:
        tagged = p.TaggedFields(
            {op.field.tag_number: (op.name, _field_con(op, message, version)) for op in lowered.tagged}
        )
        tagged_names = {op.name: (op.field.tag_number, default_value(op.field, message)) for op in lowered.tagged}
    return p.Struct(lowered.spec.name, fields, wire_class(message_name, struct_name), absent, tagged, tagged_names)


@on_schema_change
def _forget_tables() -> None:
    _struct_con.cache_clear()


def struct_for(message_name: str, version: int):
    """The construct structure of a whole message body at one version."""
    message = load_message(message_name)
    if version not in message.valid:
        raise ValueError(f"{message_name} has no version {version} (valid {message.valid})")
    return _struct_con(message_name, message.name, version)


def decode_wire(message_name: str, version: int, data: bytes | memoryview, *, start: int = 0, strings: str = "strict"):
    """Decode one message body at ``version`` from ``data[start:]``.

    Returns ``(wire_object, end_offset)``. Raises ``DecodeError`` naming message, version, offset, path.
    The native codec (:mod:`codec.wire.native`) decodes first, or where it is not active the code
    generated from the schema table (:mod:`codec.wire.fastpath`); whenever either meets anything unusual
    the construct path below decodes instead and reports the error. ``strings``: ``strict`` (the input policy:
    malformed UTF-8 in a string is refused) or ``java`` (read as Java's ``new String(bytes, UTF_8)`` reads it,
    U+FFFD in place of each malformed sequence: :func:`codec.wire.encodings.java_utf8_decode`)."""
    if strings != "strict":
        if strings != "java":
            raise ValueError(f"strings must be 'strict' or 'java', not {strings!r}")
        prog = native.program(message_name, version, native.JAVA_STRINGS) if start >= 0 else None
        got = prog.decode(data, start) if prog is not None else None
        return (
            got if got is not None else decode_wire_reference(message_name, version, data, start=start, strings=strings)
        )
    if native.ACTIVE[0]:
        prog = native.OBJECT_PROGRAMS.get((message_name, version)) or native.object_program(message_name, version)
        if prog is not None and start >= 0:
            got = prog.decode(data, start)
            if got is not None:
                return got
        return decode_wire_reference(message_name, version, data, start=start)
    fast: Callable[[bytes, int], tuple[Any, int]] | None = _fastpath().decoder(message_name, version)
    if fast is not None and start >= 0:
        try:
            return fast(data if type(data) is bytes else bytes(data), start)
        except Exception:  # noqa: BLE001 - anything at all: the reference path decides
            pass
    return decode_wire_reference(message_name, version, data, start=start)


def decode_wire_reference(
    message_name: str, version: int, data: bytes | memoryview, *, start: int = 0, strings: str = "strict"
):
    """:func:`decode_wire` on the interpreted construct path only (the reference and diagnostic path)."""
    from construct import Container

    con = struct_for(message_name, version)
    stream = io.BytesIO(data)
    stream.seek(start)
    ctx = Container(_total=len(data), _strings=strings)
    try:
        obj = con._parse(stream, ctx, "")
    except DecodeError as e:
        raise e.with_context(message=message_name, version=version)
    return obj, stream.tell()


def field_offsets(message_name: str, version: int, data: bytes) -> dict[str, int]:
    """The start offset of every field path in ``data`` (the diagnostic re-parse), and of each flexible
    struct's tagged-field section (``<struct path>._tagged_fields``, as its decode errors name it). Stops
    quietly at the first error, returning what was located up to there."""
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
    fast_encode: Callable[[Any], bytes] | None = _fastpath().encoder(message_name, version)
    if fast_encode is not None:
        try:
            return fast_encode(obj)
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


def uuid_from_kafka(s: str) -> uuid.UUID:
    """Kafka's ``Uuid`` string, or a dashed UUID (:func:`codec.types.parse_uuid`: nothing else)."""
    from ..types import parse_uuid

    return parse_uuid(s)


def from_json(
    data: dict, message_name: str, version: int | None = None, *, style: str = "kafka", struct_name: str | None = None
):
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
            import base64  # (here, not at the top: a decode call's start-up does not need it)

            try:
                return base64.b64decode(v, validate=True) if style == "kafka" else bytes.fromhex(v)
            except ValueError:
                raise EncodeError(
                    f"{f.name}: not {'base64' if style == 'kafka' else 'hex'}: {v[:40]!r}", path=path
                ) from None
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
    kwargs: dict[str, Any] = {}
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
                    kwargs[f.py_name] = tuple(
                        _scalar_from(x, f, message, style, f"{sub}[{i}]") for i, x in enumerate(v)
                    )
                else:
                    kwargs[f.py_name] = _scalar_from(v, f, message, style, sub)
                break
    unknown = data.get("_unknownTaggedFields") or data.get("unknown_tagged_fields")
    if unknown:
        kwargs["unknown_tagged_fields"] = {int(k): bytes.fromhex(v) for k, v in unknown.items()}
    return wire_class(message.name, spec.name)(**kwargs)
