"""Kafka Connect's command-line kinds (registered into :mod:`codec.catalog` as a plugin).

``connect-metadata`` (a worker's JoinGroup metadata) and ``connect-assignment`` (its SyncGroup assignment).
Decoding reads the bytes' own int16 header; ``--version N`` names the reading worker's deserializer instead
(0: ConnectProtocol's, as workers before Kafka 2.3 read; 1 or 2: IncrementalCooperativeConnectProtocol's, as
every worker since reads, whatever protocol the group runs), and so does a conformance request's
``readerVersion``. Encoding writes the version of ``--version``, else the value's ``version`` key, else the
newest (2). ``--style kafka`` is the JSON of Kafka's classes (the vectors' ``data`` and ``decoded``) and, like
Kafka's v0 writer, leaves out what version 0 cannot carry; ``--style snake`` refuses that unless given
``--drop-unrepresentable``.
"""

from __future__ import annotations

from ..catalog import Kind, View, register
from ..wire.message import Decoded
from ..streams.constants import DEFAULT_MAX_METADATA_SIZE
from .assignment import decode_connect_assignment, encode_connect_assignment, regrouped
from .constants import reader_name
from .jsonview import (
    connect_assignment_from_json,
    connect_assignment_json,
    connect_metadata_from_json,
    connect_metadata_json,
)
from .metadata import decode_connect_metadata, encode_connect_metadata
from .pretty import pretty_connect_assignment, pretty_connect_metadata

__all__: list[str] = []


def _notes(
    name: str, header: int, reader: int, asked: int | None, consumed: int, trailing: int, wire=None
) -> tuple[str, ...]:
    notes = []
    for where in regrouped(wire):
        notes.append(
            f"{name} v{header}: {where} is named in more than one group; Kafka's writer gives each "
            "connector one group, so encoding this value does not give these bytes back"
        )
    if asked is not None and (asked == 0) != (header == 0):
        notes.append(f"{name} v{header} read with {reader_name(reader)}'s deserializer (reader version {asked})")
    if trailing:
        notes.append(
            f"{name} v{header}: {trailing} trailing bytes after offset {consumed} ignored (Kafka ignores them too)"
        )
    return tuple(notes)


def _trailing(consumed: int, trailing: int) -> dict | None:
    return {"offset": consumed, "bytes": trailing} if trailing else None


def _decode_metadata(
    data: bytes,
    *,
    style: str = "kafka",
    version: int | None = None,
    latest: int | None = None,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
    **_,
) -> View:
    asked = latest if latest is not None else version
    d = decode_connect_metadata(data, reader_version=asked, detail=True, max_size=max_size)
    return View(
        connect_metadata_json(d.info, style=style, reader_version=d.reader_version),
        pretty_connect_metadata(d.info, reader_version=d.reader_version, size=len(data), trailing=d.trailing),
        _notes(
            "ConnectMetadata",
            d.info.version,
            d.reader_version,
            asked,
            d.consumed,
            d.trailing,
            d.allocation.wire if d.allocation else None,
        ),
        _trailing(d.consumed, d.trailing),
    )


def _encode_metadata(value: dict, *, style: str = "kafka", version: int | None = None, **opts) -> bytes:
    drop = style == "kafka" or bool(opts.get("drop_unrepresentable"))
    return encode_connect_metadata(connect_metadata_from_json(value), version, drop_unrepresentable=drop)


def _decode_assignment(
    data: bytes,
    *,
    style: str = "kafka",
    version: int | None = None,
    latest: int | None = None,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
    **_,
) -> View:
    asked = latest if latest is not None else version
    d = decode_connect_assignment(data, reader_version=asked, detail=True, max_size=max_size)
    return View(
        connect_assignment_json(d.info, style=style, reader_version=d.reader_version),
        pretty_connect_assignment(d.info, reader_version=d.reader_version, size=len(data), trailing=d.trailing),
        _notes("ConnectAssignment", d.info.version, d.reader_version, asked, d.consumed, d.trailing, d.wire),
        _trailing(d.consumed, d.trailing),
    )


def _encode_assignment(value: dict, *, style: str = "kafka", version: int | None = None, **opts) -> bytes:
    drop = style == "kafka" or bool(opts.get("drop_unrepresentable"))
    return encode_connect_assignment(connect_assignment_from_json(value), version, drop_unrepresentable=drop)


def _read_metadata(data: bytes, version: int | None = None, *, max_size: int = DEFAULT_MAX_METADATA_SIZE, **_):
    """The model of a worker's metadata (``version``: the reading worker's deserializer, as ``--version``)."""
    d = decode_connect_metadata(data, reader_version=version, detail=True, max_size=max_size)
    return Decoded("ConnectMetadata", d.info.version, d.info, d.consumed, d.trailing)


def _write_metadata(value, version: int | None = None, *, drop_unrepresentable: bool = True, **_) -> bytes:
    if isinstance(value, dict):
        value = connect_metadata_from_json(value)
    return encode_connect_metadata(value, version, drop_unrepresentable=drop_unrepresentable)


def _read_assignment(data: bytes, version: int | None = None, *, max_size: int = DEFAULT_MAX_METADATA_SIZE, **_):
    """The model of an assignment (``version``: the reading worker's deserializer, as ``--version``)."""
    d = decode_connect_assignment(data, reader_version=version, detail=True, max_size=max_size)
    return Decoded("ConnectAssignment", d.info.version, d.info, d.consumed, d.trailing)


def _write_assignment(value, version: int | None = None, *, drop_unrepresentable: bool = True, **_) -> bytes:
    if isinstance(value, dict):
        value = connect_assignment_from_json(value)
    return encode_connect_assignment(value, version, drop_unrepresentable=drop_unrepresentable)


register(
    Kind(
        "connect-metadata",
        "Kafka Connect worker metadata (JoinGroup, protocol type connect), int16 version "
        "header (v0-2; --version picks the reader)",
        _decode_metadata,
        _encode_metadata,
        message="ConnectMetadata",
        read=_read_metadata,
        write=_write_metadata,
    )
)
register(
    Kind(
        "connect-assignment",
        "Kafka Connect assignment (SyncGroup, protocol type connect), int16 version "
        "header (v0-2; --version picks the reader)",
        _decode_assignment,
        _encode_assignment,
        message="ConnectAssignment",
        read=_read_assignment,
        write=_write_assignment,
    )
)
