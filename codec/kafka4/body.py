"""Kafka 4 group RPC bodies and ``__consumer_offsets`` records: bytes <-> wire models <-> Kafka's JSON.

Built on the schema-driven builder (:mod:`codec.wire.builder`): every body is flexible (compact lengths,
tagged fields; unknown tags are kept and written back), nullable structs carry Kafka's int8 marker.
JSON is Kafka's generated converters' shape (``style="kafka"``: camelCase, UUIDs as Kafka's base64
``Uuid`` strings, bytes base64, unknown tagged fields under ``_unknownTaggedFields`` as ``{tag: hex}``) or
snake_case with hex bytes and dashed UUIDs (``"native"``). JSON is checked against the schema before it
is encoded (:func:`codec.group.jsoncheck.check_json`): a wrong type, an out-of-range integer, a null
where none is allowed or an unknown key is one ``EncodeError`` with its field path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import DecodeError, EncodeError, UnsupportedVersionError
from ..group.jsoncheck import check_json
from ..wire import native
from ..wire.native import ACTIVE, OFF
from ..wire.builder import decode_wire, encode_wire, from_json, to_json
from ..wire.schema import load_message
from .common import message_for

__all__ = ["DecodedBody", "body_from_json", "body_json", "decode_body", "decode_model", "encode_model"]


@dataclass(frozen=True, slots=True)
class DecodedBody:
    message: str  # schema name, e.g. "ConsumerGroupHeartbeatRequest"
    version: int
    value: Any  # the wire model (snake_case attributes)
    consumed: int  # where the body ended
    trailing: int  # bytes after it (Kafka ignores them)


def _as_bytes(data, message: str) -> bytes:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise DecodeError(f"needs bytes, got {type(data).__name__}", message=message)


def _check_version(message: str, version, error) -> int:
    valid = load_message(message).valid
    if type(version) is not int or version not in valid:
        if error is DecodeError:
            raise UnsupportedVersionError(f"no version {version!r} (valid {valid})", message=message)
        raise EncodeError(f"no version {version!r} (valid {valid})", message=message)
    return version


def decode_body(kind: str, version: int, data: bytes) -> DecodedBody:
    """Decode one body at ``version`` to its wire model; trailing bytes are counted, not refused."""
    name = message_for(kind)
    _check_version(name, version, DecodeError)
    data = _as_bytes(data, name)
    value, end = decode_wire(name, version, data)
    return DecodedBody(name, version, value, end, len(data) - end)


#: (kind, version) -> the native decoder, once a call has checked both (the hot path skips the checks)
_NATIVE = native.fast_table()


def decode_model(kind: str, version: int, data: bytes):
    """The wire model (a frozen dataclass, snake_case fields) of one body."""
    try:
        got = (_NATIVE if ACTIVE[0] else OFF)[kind, version](data)
    except (KeyError, TypeError):
        got = None
    if got is not None:
        return got
    d = decode_body(kind, version, data)
    prog = native.object_program(d.message, version) if native.ACTIVE[0] else None
    if prog is not None:
        _NATIVE[(kind, version)] = native.bound(prog)
    return d.value


decode_model = native.front(decode_model, _NATIVE, 2)


def encode_model(kind: str, version: int, model) -> bytes:
    """Encode a wire model (or a dict of snake_case fields) at ``version``."""
    name = message_for(kind, error=EncodeError)
    _check_version(name, version, EncodeError)
    return encode_wire(name, version, model)


def body_json(name: str, version: int, model, style: str = "kafka") -> dict:
    return to_json(model, name, version, style=style)


def body_from_json(name: str, version: int, value, style: str = "kafka"):
    """The wire model of a body's JSON, checked against the schema at ``version``."""
    if not isinstance(value, dict):
        raise EncodeError("needs a JSON object", message=name, version=version)
    check_json(value, name, version, style=style)
    return from_json(value, name, version, style=style)
