"""Group message bodies at a given version: JoinGroup, SyncGroup, Heartbeat, LeaveGroup requests and
responses and the two headers (schemas in ``schemas/``, wire-facts §7).

Like Kafka's generated readers, decoding stops after the last field: trailing bytes are reported,
not refused (group_edge.jsonl ``decode-trailing-bytes``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import EncodeError, UnsupportedVersionError
from ..wire import native
from ..wire.builder import decode_wire, encode_wire
from ..wire.schema import load_message
from .nested import flatten_body, nest_body

__all__ = ["MESSAGES", "HEADERS", "DecodedMessage", "decode_message", "encode_message"]

MESSAGES = ("JoinGroupRequest", "JoinGroupResponse", "SyncGroupRequest", "SyncGroupResponse",
            "HeartbeatRequest", "HeartbeatResponse", "LeaveGroupRequest", "LeaveGroupResponse")
HEADERS = ("RequestHeader", "ResponseHeader")


@dataclass(frozen=True, slots=True)
class DecodedMessage:
    value: Any  # the wire model (nested layers decoded when asked)
    consumed: int
    trailing: int


_decoded = native.maker(DecodedMessage)
#: (name, version) -> the native program, once a call has checked both (the hot path skips the checks).
_NATIVE: dict[tuple[str, int], object] = {}


def _known(name: str) -> None:
    if name not in MESSAGES and name not in HEADERS:
        raise KeyError(f"not a group message: {name!r} (known: {', '.join(MESSAGES + HEADERS)})")


def decode_message(name: str, version: int, data: bytes | bytearray | memoryview, *, nested: bool = False,
                   protocol_type: str | None = None, protocol_name: str | None = None) -> DecodedMessage:
    """Decode one body (or header) at ``version``. ``nested=True`` also decodes the ConsumerProtocol
    and Streams layers in its bytes fields (see :func:`codec.group.nested.nest_body`)."""
    prog = _NATIVE.get((name, version)) if native.ACTIVE[0] and type(name) is str else None
    got = prog.decode(data, 0) if prog is not None else None  # a miss: the checks and the reference below
    if got is None:
        _known(name)
        valid = load_message(name).valid
        if version not in valid:
            raise UnsupportedVersionError(f"no version {version} (valid {valid})", message=name, version=version)
        data = bytes(data)
        got = decode_wire(name, version, data)
        if native.ACTIVE[0]:
            _NATIVE[(name, version)] = native.object_program(name, version)
    value, end = got
    if nested:
        value = nest_body(name, value, protocol_type=protocol_type, protocol_name=protocol_name)
    return _decoded(value, end, len(data) - end)


def encode_message(name: str, version: int, value) -> bytes:
    """Encode one body (or header); nested layers in its bytes fields are encoded first."""
    _known(name)
    valid = load_message(name).valid
    if version not in valid:
        raise EncodeError(f"no version {version} (valid {valid})", message=name, version=version)
    return encode_wire(name, version, flatten_body(name, value))
