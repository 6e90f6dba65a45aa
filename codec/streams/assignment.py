"""AssignmentInfo: the version-independent model and its conversion to and from every wire version.

Kafka's decoding rules (wire-facts §3): the version word must be 1-11 (no future-version leniency);
v1-2 have no commonlySupportedVersion (-1); absent fields take their defaults (empty maps, errCode 0,
nextRebalanceMs Long.MAX_VALUE); v5+ host maps name topics through the topic dictionary; trailing bytes
are accepted and reported.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ..errors import DecodeError, EncodeError, TruncatedError, UnsupportedVersionError
from ..wire.shapes import interpret_encode
from ..wire.shapes_python import compiled_encode, interpret
from ..wire.builder import decode_wire, encode_wire, field_offsets
from ..wire import native
from . import shapes
from .constants import DEFAULT_MAX_METADATA_SIZE, LATEST_SUPPORTED_VERSION, NO_REBALANCE
from .common import check_size, version_guard
from .models import AssignmentInfo

__all__ = [
    "DecodedAssignment",
    "decode_assignment",
    "encode_assignment",
    "assignment_to_wire",
    "assignment_from_wire",
    "peek_assignment_version",
]

MESSAGE = "AssignmentInfo"


@dataclass(frozen=True, slots=True)
class DecodedAssignment:
    """A decode with everything a debugger wants: the model, the raw wire view, the bytes consumed and the
    trailing bytes Kafka would ignore."""

    info: AssignmentInfo
    wire: object
    consumed: int
    trailing: int


def peek_assignment_version(data: bytes) -> int:
    if len(data) < 4:
        raise TruncatedError(f"truncated (need 4, have {len(data)})", message=MESSAGE, offset=0, path="version")
    return struct.unpack_from(">i", data)[0]


def decode_assignment(
    data: bytes | bytearray | memoryview,
    *,
    detail: bool = False,
    latest: int = LATEST_SUPPORTED_VERSION,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
):
    """Decode AssignmentInfo bytes as Kafka's ``AssignmentInfo.decode`` does.

    ``latest`` is the reader's newest version (11 for current Kafka; an older release's number models
    that release's reader). Returns an :class:`AssignmentInfo`, or a :class:`DecodedAssignment` with
    ``detail=True``. Input above ``max_size`` bytes is refused."""
    data = bytes(data)
    check_size(MESSAGE, data, max_size)
    version = peek_assignment_version(data)
    latest = min(latest, LATEST_SUPPORTED_VERSION)
    if not 1 <= version <= latest:
        raise UnsupportedVersionError(
            f"unable to decode assignment data: used version {version}; latest supported version {latest}",
            message=MESSAGE,
            offset=0,
            path="version",
        )
    shaped = _shaped(version)
    got = shaped.decode(data, 0) if shaped is not None else None  # the native codec: straight to the model
    if got is not None and not detail:
        return got[0]
    wire, end = decode_wire(MESSAGE, version, data)
    if got is not None:
        info = got[0]
    else:
        try:
            info = assignment_from_wire(wire)
        except DecodeError as e:  # locate the offending field in the bytes (the diagnostic path)
            e.offset = field_offsets(MESSAGE, version, data).get(e.path)
            raise e.with_context()
    result = DecodedAssignment(info, wire, end, len(data) - end)
    return result if detail else info


def assignment_view(
    data: bytes | bytearray | memoryview,
    *,
    latest: int = LATEST_SUPPORTED_VERSION,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
) -> tuple[AssignmentInfo, int, int]:
    """What the command line shows of AssignmentInfo bytes: ``(model, bytes consumed, trailing bytes)``,
    decoded and checked as :func:`decode_assignment` does; with the native codec without wire objects."""
    if native.active() and type(data) is bytes and 4 <= len(data) <= max_size:
        version = peek_assignment_version(data)
        shaped = _shaped(version) if 1 <= version <= min(latest, LATEST_SUPPORTED_VERSION) else None
        got = shaped.decode(data, 0) if shaped is not None else None
        if got is not None:
            return got[0], got[1], len(data) - got[1]
    d = decode_assignment(data, detail=True, latest=latest, max_size=max_size)
    return d.info, d.consumed, d.trailing


def _shaped(version: int):
    """The native program that decodes ``version`` straight to the model, or None (:mod:`codec.streams.shapes`)."""
    shape = shapes.assignment_decode(version)
    return native.program(MESSAGE, version, shape=shape) if shape is not None else None


def assignment_from_wire(w) -> AssignmentInfo:
    """The version-independent model of a decoded wire object: the decode shape of its version
    (:func:`codec.streams.shapes.assignment_decode`, the one declaration of the mapping) run by the shapes'
    Python interpreter, as the engine runs it from the bytes. A host map's partition naming a topic index the
    dictionary lacks is a DecodeError with its path."""
    shape = shapes.assignment_decode(w.version)
    assert shape is not None  # (every version 1-11 has one)
    return interpret(shape, MESSAGE, w.version, w)


def assignment_to_wire(info: AssignmentInfo, version: int | None = None, *, drop_unrepresentable: bool = False):
    """The wire object for ``info`` at ``version`` (default ``info.version``).

    A value the version cannot carry raises :class:`EncodeError`, unless ``drop_unrepresentable=True``,
    which leaves it out as Kafka's encoder does (host maps below v2, errCode below v4, standby host maps
    below v6, nextRebalanceMs below v7). Named topologies below v10 are refused either way. v1-2 carry
    no commonlySupportedVersion: whatever the model holds there is not written."""
    v = info.version if version is None else version
    _check(info, v, drop_unrepresentable)
    shape = shapes.assignment_encode(v)
    if shape is None:
        raise EncodeError(f"no version {v} (valid 1-{LATEST_SUPPORTED_VERSION})", message=MESSAGE, version=v)
    # the encode shape of the version (codec.streams.shapes: the one declaration of the mapping), run in Python
    return interpret_encode(shape, MESSAGE, v, info, *_dictionary(info, v))


def _dictionary(info: AssignmentInfo, v: int) -> tuple:
    """The encode shape's extra arguments from v5: the topic dictionary's rows ``[(index, topic), ...]`` and
    ``{topic: index}``, covering every topic the encoded host maps name, first seen first."""
    if v < 5:
        return ()
    index: dict[str, int] = {}
    for m in (info.partitions_by_host, info.standby_partitions_by_host) if v >= 6 else (info.partitions_by_host,):
        for parts in m.values():
            for p in parts:
                index.setdefault(p.topic, len(index))
    return [(i, t) for t, i in index.items()], index


def _check(info: AssignmentInfo, v: int, drop_unrepresentable: bool) -> None:
    """What :func:`assignment_to_wire` refuses before it converts anything."""
    refuse = version_guard(MESSAGE, v, drop_unrepresentable)
    if v < 10:
        named = [t for t in (*info.active_tasks, *info.standby_tasks) if t.topology_name is not None]
        if named:
            raise EncodeError(
                f"named topologies are not compatible with protocol version {v} (task {named[0]})",
                message=MESSAGE,
                version=v,
                path="active_tasks",
            )
    if v < 2 and info.partitions_by_host:
        refuse("partitions_by_host", "partitions_by_host")
    if v < 4 and info.error_code:
        refuse(f"error_code {info.error_code}", "error_code")
    if v < 6 and info.standby_partitions_by_host:
        refuse("standby_partitions_by_host", "standby_partitions_by_host")
    if v < 7 and info.next_rebalance_ms != NO_REBALANCE:
        refuse(f"next_rebalance_ms {info.next_rebalance_ms}", "next_rebalance_ms")


def encode_assignment(info: AssignmentInfo, version: int | None = None, *, drop_unrepresentable: bool = False) -> bytes:
    v = info.version if version is None else version
    shape = shapes.assignment_encode(v) if type(v) is int and not drop_unrepresentable else None
    if shape is not None and type(info) is AssignmentInfo:
        # straight from the model through the encode shape (the one declaration): the native codec's program, else
        # the shape compiled to the fast path's rows
        prog = native.program(MESSAGE, v, shape=shape)
        out = _encode_native(prog, info, v) if prog is not None else _encode_rows(shape, info, v)
        if out is not None:
            return out
    return encode_wire(MESSAGE, v, assignment_to_wire(info, v, drop_unrepresentable=drop_unrepresentable))


def _encode_rows(shape, info: AssignmentInfo, v: int) -> bytes | None:
    """Without the engine: the encode shape compiled to the fast path's row tuples (what the wire-object path would
    build and encode, without building it), or None for the wire-object path."""
    from ..wire.fastpath import row_encoder

    rows = row_encoder(MESSAGE, v)
    if rows is None:
        return None
    try:
        _check(info, v, False)
        return rows(compiled_encode(shape, MESSAGE, v)(info, *_dictionary(info, v)))
    except Exception:  # noqa: BLE001 - refused or unusual: the wire-object path decides and reports
        return None


def _encode_native(prog, info: AssignmentInfo, v: int) -> bytes | None:
    """The bytes from the model's shape program, or None for the wire-object path (which also raises what
    the model path refuses)."""
    try:
        _check(info, v, False)
        return prog.encode(info, *_dictionary(info, v))
    except Exception:  # noqa: BLE001 - refused or unusual: the wire-object path decides and reports
        return None
