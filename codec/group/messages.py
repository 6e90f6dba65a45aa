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
from ..wire.native import ACTIVE, OFF
from ..wire.builder import decode_wire, encode_wire
from ..wire.schema import load_message
from .nested import flatten_body, nest_body

__all__ = ["MESSAGES", "HEADERS", "DecodedMessage", "decode_message", "encode_message"]

MESSAGES = (
    "JoinGroupRequest",
    "JoinGroupResponse",
    "SyncGroupRequest",
    "SyncGroupResponse",
    "HeartbeatRequest",
    "HeartbeatResponse",
    "LeaveGroupRequest",
    "LeaveGroupResponse",
)
HEADERS = ("RequestHeader", "ResponseHeader")


@dataclass(frozen=True, slots=True)
class DecodedMessage:
    value: Any  # the wire model (nested layers decoded when asked)
    consumed: int
    trailing: int


_decoded = native.maker(DecodedMessage)
#: (name, version) -> the native decoder of the whole call, once a call has checked both (the hot path skips
#: the checks); empty while the native codec is off
_NATIVE = native.fast_table()


def _known(name: str) -> None:
    if name not in MESSAGES and name not in HEADERS:
        raise KeyError(f"not a group message: {name!r} (known: {', '.join(MESSAGES + HEADERS)})")


def decode_message(
    name: str,
    version: int,
    data: bytes | bytearray | memoryview,
    *,
    nested: bool = False,
    protocol_type: str | None = None,
    protocol_name: str | None = None,
) -> DecodedMessage:
    """Decode one body (or header) at ``version``. ``nested=True`` also decodes the ConsumerProtocol
    and Streams layers in its bytes fields (see :func:`codec.group.nested.nest_body`)."""
    try:
        got = (_NATIVE if ACTIVE[0] else OFF)[name, version](data)
    except (KeyError, TypeError):  # not checked yet (or unhashable): the checks below
        got = None
    if got is None:  # (a miss too: the reference path decides)
        _known(name)
        valid = load_message(name).valid
        if version not in valid:
            raise UnsupportedVersionError(f"no version {version} (valid {valid})", message=name, version=version)
        data = bytes(data)
        value, end = decode_wire(name, version, data)
        got = _decoded(value, end, len(data) - end)
        prog = native.object_program(name, version) if native.ACTIVE[0] else None
        if prog is not None:
            _NATIVE[(name, version)] = native.bound(prog, _decoded)
    if nested:
        value = nest_body(name, got.value, protocol_type=protocol_type, protocol_name=protocol_name)
        return _decoded(value, got.consumed, got.trailing)
    return got


# (a positional call on a checked (name, version) never reaches the function above)
decode_message = native.front(decode_message, _NATIVE, 2)


#: (name, version) -> the native encoder, once a call has checked both
_ENCODERS = native.fast_table()


def encode_message(name: str, version: int, value) -> bytes:
    """Encode one body (or header); nested layers in its bytes fields are encoded first."""
    try:
        encode = (_ENCODERS if ACTIVE[0] else OFF)[name, version]
    except (KeyError, TypeError):  # not checked yet: the checks below
        encode = None
    if encode is not None:
        # The engine takes a body only when every bytes field holds bytes (or None), which is when flatten_body
        # returns the body itself: nested layers (a miss here) are flattened first.
        out = encode(value)
        if out is None:
            out = encode(flatten_body(name, value))
        if out is not None:
            return out
    _known(name)
    valid = load_message(name).valid
    if version not in valid:
        raise EncodeError(f"no version {version} (valid {valid})", message=name, version=version)
    out = encode_wire(name, version, flatten_body(name, value))
    prog = native.object_program(name, version) if native.ACTIVE[0] else None
    if prog is not None:
        _ENCODERS[(name, version)] = prog.encode
    return out


# (a body with nested layers misses in the front, then the function flattens it)
encode_message = native.front(encode_message, _ENCODERS, 2)
