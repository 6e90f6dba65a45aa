"""ConnectMetadata: a Kafka Connect worker's JoinGroup metadata, every version 0-2.

Kafka's rules (``ConnectProtocol``, ``IncrementalCooperativeConnectProtocol``, ``ExtendedWorkerState``): the
worker's REST URL and config offset, and from v1 its previous assignment (the allocation), a whole
ConnectAssignment with its own header, read from exactly the allocation's bytes by the v1/v2 assignment
reader. A null allocation (and a v0 message read by the v1/v2 reader, whose allocation is missing) reads as
Kafka's empty assignment; the model keeps it as None, so that it is written back as null.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import DecodeError, EncodeError
from ..streams.common import check_size
from ..streams.constants import DEFAULT_MAX_METADATA_SIZE
from ..wire.builder import encode_wire, wire_class
from .assignment import (
    EMPTY_ASSIGNMENT,
    ConnectAssignment,
    DecodedConnectAssignment,
    decode_connect_assignment,
    encode_connect_assignment,
)
from .common import HEADER_SIZE, write_version, read_body, read_header, reader_layout
from .constants import CONNECT_PROTOCOL_V0, CONNECT_PROTOCOL_V1, LATEST_VERSION

__all__ = ["ConnectMetadata", "DecodedConnectMetadata", "decode_connect_metadata", "encode_connect_metadata"]

MESSAGE = "ConnectMetadata"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectMetadata:
    """A worker's state as it joins (Kafka's ``ExtendedWorkerState``).

    ``version`` is the header (as read, or the version to write; None: the newest). ``allocation`` is the
    previous assignment the worker sent, or None for a null (or missing) one, which Kafka reads as its empty
    assignment (:attr:`assignment`)."""

    version: int | None = None
    url: str
    config_offset: int
    allocation: ConnectAssignment | None = None

    @property
    def assignment(self) -> ConnectAssignment:
        """What Kafka's ``ExtendedWorkerState.assignment()`` returns: the allocation, or the empty assignment."""
        return self.allocation if self.allocation is not None else EMPTY_ASSIGNMENT


@dataclass(frozen=True, slots=True)
class DecodedConnectMetadata:
    """A decode with its details: the model, the wire object, which reader read it (0: ConnectProtocol's, 1+:
    IncrementalCooperativeConnectProtocol's), where the fields ended, how many bytes followed (ignored, as by
    Kafka), and the allocation's own decode (None when null or not read)."""

    info: ConnectMetadata
    wire: object
    reader_version: int
    consumed: int
    trailing: int
    allocation: DecodedConnectAssignment | None = None


def decode_connect_metadata(
    data: bytes | bytearray | memoryview,
    *,
    reader_version: int | None = None,
    detail: bool = False,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
):
    """Decode a worker's metadata as Kafka's deserializer does.

    ``reader_version``: 0 reads as ``ConnectProtocol.deserializeMetadata`` (workers before 2.3: URL and config
    offset, nothing else), 1 or more as ``IncrementalCooperativeConnectProtocol.deserializeMetadata`` (every
    worker since, and both of Kafka's assignors); None lets the header choose (0: ConnectProtocol's). Returns a
    :class:`ConnectMetadata`, or a :class:`DecodedConnectMetadata` with ``detail=True``."""
    data = bytes(data)
    check_size(MESSAGE, data, max_size)
    header = read_header(MESSAGE, data)
    layout = reader_layout(MESSAGE, header, reader_version)
    wire, end = read_body(MESSAGE, layout, header, data, HEADER_SIZE)
    nested = None
    if layout >= CONNECT_PROTOCOL_V1 and wire.allocation is not None:
        start = end - len(wire.allocation)  # the allocation is the last field read
        try:
            nested = decode_connect_assignment(wire.allocation, reader_version=CONNECT_PROTOCOL_V1, detail=True)
        except DecodeError as e:
            e.message, e.version = MESSAGE, header
            if e.offset is not None:
                e.offset += start
            e.path = "allocation." + e.path if e.path else "allocation"
            e.args = (e._format(),)
            raise e from None
    info = ConnectMetadata(
        version=header, url=wire.url, config_offset=wire.config_offset, allocation=nested.info if nested else None
    )
    result = DecodedConnectMetadata(info, wire, layout, end, len(data) - end, nested)
    return result if detail else info


def _version(info: ConnectMetadata, version: int | None) -> int:
    return write_version(MESSAGE, info.version, version)


def encode_connect_metadata(
    info: ConnectMetadata, version: int | None = None, *, drop_unrepresentable: bool = False, java_order: bool = False
) -> bytes:
    """The int16 header, then the fields: URL and config offset at version 0 (``ConnectProtocol.serializeMetadata``),
    and the allocation from v1 (``IncrementalCooperativeConnectProtocol.serializeMetadata``): null for None or
    Kafka's empty assignment, else the assignment under its own version header, or the metadata's when it names
    none (Kafka's writer always uses the metadata's; a decoded allocation keeps the header it came with, so that
    bytes decode and encode back the same). The v1 reader reads every allocation, so one whose header says 0 is
    written in the v0 layout only while it carries no revocations and no delay, else in the v1 layout. At version 0 an allocation is an :class:`EncodeError` unless
    ``drop_unrepresentable`` (Kafka's v0 writer leaves it out). ``java_order``: see
    :func:`codec.connect.assignment.connect_assignment_to_wire`."""
    v = _version(info, version)
    alloc = info.allocation
    if alloc is not None and not isinstance(alloc, ConnectAssignment):
        raise EncodeError(
            f"allocation needs a ConnectAssignment, got {type(alloc).__name__}",
            message=MESSAGE,
            version=v,
            path="allocation",
        )
    fields: dict = {"url": info.url, "config_offset": info.config_offset}
    if v == CONNECT_PROTOCOL_V0:
        if alloc is not None and not alloc.is_empty and not drop_unrepresentable:
            raise EncodeError(
                "allocation cannot be carried by version 0 (ConnectProtocol)",
                message=MESSAGE,
                version=v,
                path="allocation",
            )
    else:
        if alloc is None or alloc.is_empty:
            fields["allocation"] = None
        else:
            try:
                # an allocation is read by the v1 reader whatever its header: one whose header says 0 keeps the
                # short v0 layout (the v1 reader gives the missing fields their defaults) unless it carries more
                carries_more = bool(alloc.revoked_connectors or alloc.revoked_tasks or alloc.delay)
                fields["allocation"] = encode_connect_assignment(
                    alloc,
                    v if alloc.version is None else alloc.version,
                    drop_unrepresentable=drop_unrepresentable,
                    java_order=java_order,
                    reader_version=CONNECT_PROTOCOL_V1 if carries_more else None,
                )
            except EncodeError as e:
                raise EncodeError(
                    e.reason, message=MESSAGE, version=v, path="allocation." + e.path if e.path else "allocation"
                ) from None
    layout = min(v, LATEST_VERSION)
    try:
        body = encode_wire(MESSAGE, layout, wire_class(MESSAGE, MESSAGE)(**fields))
    except EncodeError as e:
        raise EncodeError(e.reason, message=MESSAGE, version=v, path=e.path) from None
    return v.to_bytes(2, "big") + body
