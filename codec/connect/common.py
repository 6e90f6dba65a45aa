"""What Connect's worker metadata and assignment share: the int16 header, the choice of deserializer, reading
a body by the rules of Kafka's ``protocol.types``, and Java's ``HashSet`` order of connector names.

Kafka has two deserializers for both messages, and the *reading worker* picks one, not the header:

* ``ConnectProtocol`` (workers before Kafka 2.3, whose newest protocol version is 0) reads the v0 fields of
  any header >= 0 and ignores what follows;
* ``IncrementalCooperativeConnectProtocol`` (every worker since 2.3, whatever ``connect.protocol`` says: the
  coordinator deserializes every assignment and the assignors every member's metadata with it) reads the v1
  fields of any header >= 0; where the bytes end just before a field the schema marks
  ``tolerateMissingVersions``, that field and the ones after it take their defaults (``Schema`` built with
  ``tolerateMissingFieldsWithDefaults``), and a nullable field reads any negative length as null.

A reader is named by its version (``reader_version``): 0 is ConnectProtocol's, 1 and 2 (and above)
IncrementalCooperativeConnectProtocol's. Without one, the header picks: 0 reads as ConnectProtocol (what a
v0 message's writer reads it with), anything newer as IncrementalCooperativeConnectProtocol.
"""

from __future__ import annotations

import io
import struct
from typing import Iterable

from construct import Container

from ..errors import DecodeError, EncodeError, TruncatedError, UnsupportedVersionError
from ..javaorder import copy_capacity, hash_order, string_hash
from ..wire.builder import decode_wire, default_value, struct_for
from ..wire.lowering import lower
from ..wire.schema import Versions, load_message
from .constants import CONNECT_PROTOCOL_V0, LATEST_VERSION

__all__ = ["read_header", "reader_layout", "read_body", "java_hash_set_order", "HEADER_SIZE"]

HEADER_SIZE = 2
_HEADER = struct.Struct(">h")
_INT32 = struct.Struct(">i")


HEADER_MAX = 0x7FFF  # the int16 header's largest value


def write_version(message: str, model_version: int | None, version: int | None) -> int:
    """The header to write: ``version`` if given, else the model's own, else the newest. Anything an int16
    header cannot hold is an ``EncodeError``; a header above the newest is written with the newest layout."""
    v = model_version if version is None else version
    v = LATEST_VERSION if v is None else v
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= HEADER_MAX:
        raise EncodeError(
            f"version {v!r} cannot be written (versions 0-{LATEST_VERSION} exist; an int16 header "
            f"above {LATEST_VERSION} is written with the v{LATEST_VERSION} layout)",
            message=message,
            version=v if isinstance(v, int) else None,
            path="version",
        )
    return v


def read_header(message: str, data: bytes) -> int:
    """The int16 version header; a negative one is Kafka's ``SchemaException("Unsupported subscription
    version")`` in both deserializers."""
    if len(data) < HEADER_SIZE:
        raise TruncatedError(
            f"truncated (need {HEADER_SIZE}, have {len(data)})", message=message, offset=0, path="version"
        )
    (version,) = _HEADER.unpack_from(data)
    if version < CONNECT_PROTOCOL_V0:
        raise UnsupportedVersionError(
            f"unsupported version {version} (Kafka: Unsupported subscription version)",
            message=message,
            version=version,
            offset=0,
            path="version",
        )
    return version


def reader_layout(message: str, header: int, reader_version: int | None) -> int:
    """The layout (schema version) the chosen deserializer reads: 0 for ConnectProtocol's; for
    IncrementalCooperativeConnectProtocol's the header's own version between 1 and 2 (the two layouts are the
    same; the header's version names the error messages' layout)."""
    if reader_version is None:
        reader_version = header
    if isinstance(reader_version, bool) or not isinstance(reader_version, int) or reader_version < 0:
        raise UnsupportedVersionError(
            f"no Connect reader of version {reader_version!r}: 0 is ConnectProtocol's, "
            "1 and above IncrementalCooperativeConnectProtocol's",
            message=message,
        )
    if reader_version == CONNECT_PROTOCOL_V0:
        return CONNECT_PROTOCOL_V0
    return min(max(header, 1), LATEST_VERSION)


def _tolerant(f, layout: int) -> bool:
    text = f.attrs.get("tolerateMissingVersions")
    return text is not None and layout in Versions.parse(text)


def read_body(message: str, layout: int, header: int, data: bytes, start: int = HEADER_SIZE):
    """Read the fields of ``layout`` from ``data[start:]`` as Kafka's deserializer does; returns
    ``(wire object, end offset)``. Errors name the message, the header's version, the offset and the field."""
    try:
        return decode_wire(message, layout, data, start=start)
    except DecodeError as e:
        if layout == CONNECT_PROTOCOL_V0:  # nothing is optional and nothing nullable in the v0 layout
            raise _at(e, message, header)
    return _read_tolerant(message, layout, header, data, start)


def _read_tolerant(message: str, layout: int, header: int, data: bytes, start: int):
    """Field by field, with the two rules the generated reader does not know: a tolerant field where the
    bytes end takes its default, and a nullable field reads any negative int32 length as null."""
    spec = load_message(message)
    con = struct_for(message, layout)
    ops = {op.name: op for op in lower(message, layout).fields}
    stream = io.BytesIO(data)
    stream.seek(start)
    ctx = Container(_total=len(data))
    values = {}
    for name, sub in con.fields:
        op = ops[name]
        f = op.field
        pos = stream.tell()
        if pos >= len(data) and _tolerant(f, layout):
            values[name] = default_value(f, spec)
            continue
        if (
            op.prefix_nullable
            and op.prefix == "int32"
            and len(data) - pos >= 4
            and _INT32.unpack_from(data, pos)[0] < 0
        ):
            values[name] = None
            stream.seek(pos + 4)
            continue
        try:
            values[name] = sub._parse(stream, ctx, name)
        except DecodeError as e:
            raise _at(e, message, header) from None
    return con.factory(**values), stream.tell()


def _at(e: DecodeError, message: str, header: int) -> DecodeError:
    """The error as this message reports it: the message's name and the version of its header."""
    e.message, e.version = message, header
    e.args = (e._format(),)
    return e


def java_hash_set_order(names: Iterable[str]) -> list[str]:
    """The iteration order of ``new HashSet<>(names)`` on Java 17, as Kafka's assignment writer
    (``Assignment.asMap``) groups the assigned connectors: distinct names by hash bucket, and in one bucket by
    first insertion, the table sized from all the names given (:mod:`codec.javaorder`)."""
    names = list(names)
    first: dict[str, int] = {}
    for i, n in enumerate(names):
        first.setdefault(n, i)
    return hash_order(first, string_hash, copy_capacity(len(names)))
