"""ConsumerProtocol subscription and assignment: an int16 version prefix, then the classic encoding.

Kafka's rules (wire-facts §6, ``ConsumerProtocol.java``): a version below 0 is an error; a version
above the newest (3) is read with the v3 layout, and whatever follows is ignored (new versions may only
append fields). The model keeps the version as written and those trailing bytes, so that a decoded
message re-encodes to the bytes it came from.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from ..errors import EncodeError, TruncatedError, UnsupportedVersionError
from ..streams.constants import DEFAULT_MAX_METADATA_SIZE
from ..streams.common import check_size
from ..wire import native
from ..wire.builder import decode_wire, encode_wire, from_json, to_json, wire_class
from ..wire.schema import load_message
from ..wire.jsoncheck import check_json, describe

__all__ = [
    "SUBSCRIPTION",
    "ASSIGNMENT",
    "ConsumerMessage",
    "decode_consumer",
    "encode_consumer",
    "consumer_subscription",
    "consumer_assignment",
    "consumer_json",
    "consumer_from_json",
]

SUBSCRIPTION = "ConsumerProtocolSubscription"
ASSIGNMENT = "ConsumerProtocolAssignment"
_PREFIX = struct.Struct(">h")


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerMessage:
    """One ConsumerProtocol message with its version prefix.

    ``name`` is ``ConsumerProtocolSubscription`` or ``ConsumerProtocolAssignment``; ``version`` the int16
    prefix as written (above 3 means: read as v3); ``data`` the wire model (its ``user_data`` may hold a
    nested Streams layer, see :mod:`codec.group.nested`); ``trailing`` the bytes after the last field
    (the appended fields of a newer version, or junk), which Kafka ignores and re-encoding writes back."""

    name: str
    version: int
    data: Any
    trailing: bytes = b""

    @property
    def layout_version(self) -> int:
        """The version whose field layout the body uses (a newer prefix reads as the newest layout)."""
        return min(self.version, load_message(self.name).valid.high)


_message = native.maker(ConsumerMessage)
#: (name, version prefix) -> the native decoder of the whole call, once a call has checked both
_DECODE = native.Hot()


def decode_consumer(
    name: str, data: bytes | bytearray | memoryview, *, max_size: int = DEFAULT_MAX_METADATA_SIZE
) -> ConsumerMessage:
    """Decode a version-prefixed ConsumerProtocol message (wire-facts §6); input above ``max_size``
    bytes is refused (:data:`codec.streams.constants.DEFAULT_MAX_METADATA_SIZE`)."""
    if type(data) is bytes and 2 <= len(data) <= max_size:
        fast = _DECODE.get((name, data[0] << 8 | data[1]))  # (a negative version is never in the table)
        got = fast(data) if fast is not None else None
        if got is not None:
            return got
    data = bytes(data)
    check_size(name, data, max_size)
    if len(data) < 2:
        raise TruncatedError(f"truncated (need 2, have {len(data)})", message=name, offset=0, path="version")
    (version,) = _PREFIX.unpack_from(data)
    spec = load_message(name)
    if version < spec.valid.low:
        raise UnsupportedVersionError(
            f"unsupported version {version} (lowest is {spec.valid.low})",
            message=name,
            version=version,
            offset=0,
            path="version",
        )
    layout = min(version, spec.valid.high)
    body, end = decode_wire(name, layout, data, start=2)
    if native.ACTIVE[0] and layout == version:
        prog = native.object_program(name, version)
        _DECODE.learn((name, version), prog, _message, prefix=(name, version), start=2, trailing_bytes=True)
    return _message(name, version, body, data[end:])


# (the key: the name and the bytes' version prefix, as above; a max_size given: the function)
decode_consumer = _DECODE.front(decode_consumer, 1, prefix_max=DEFAULT_MAX_METADATA_SIZE)


def encode_consumer(msg: ConsumerMessage) -> bytes:
    """The int16 version, the fields at that version (v3 layout above 3), then ``trailing``."""
    spec = load_message(msg.name)
    if not spec.valid.low <= msg.version <= 0x7FFF:
        raise EncodeError(
            f"version {msg.version} cannot be written (lowest is {spec.valid.low})",
            message=msg.name,
            version=msg.version,
            path="version",
        )
    return _PREFIX.pack(msg.version) + encode_wire(msg.name, msg.layout_version, msg.data) + msg.trailing


def consumer_subscription(version: int = 3, **fields) -> ConsumerMessage:
    """A subscription model from field values (snake_case), e.g. ``topics=("t",), user_data=b""``."""
    return ConsumerMessage(name=SUBSCRIPTION, version=version, data=wire_class(SUBSCRIPTION, SUBSCRIPTION)(**fields))


def consumer_assignment(version: int = 3, **fields) -> ConsumerMessage:
    """An assignment model from field values (snake_case), e.g. ``assigned_partitions=(...)``."""
    return ConsumerMessage(name=ASSIGNMENT, version=version, data=wire_class(ASSIGNMENT, ASSIGNMENT)(**fields))


def consumer_json(msg: ConsumerMessage, *, style: str = "kafka") -> dict:
    """The message as JSON: ``version`` (the int16 prefix as written), then the body as Kafka's JSON
    converter writes it (``kafka``: camelCase, bytes base64) or snake_case with bytes as hex
    (``native``), then, when present, ``trailing`` (hex). Kafka's converter output for the body alone has
    no version (the vectors keep it beside ``data``); the key is added so that the JSON says which
    layout it is and encodes back to the same prefix (:func:`consumer_from_json`)."""
    out = {"version": msg.version, **to_json(msg.data, msg.name, msg.layout_version, style=style)}
    if msg.trailing:
        out["trailing"] = msg.trailing.hex()
    return out


def consumer_from_json(name: str, value: dict, version: int | None = None, *, style: str = "kafka") -> ConsumerMessage:
    """Inverse of :func:`consumer_json`. The version: ``version`` if given (``encode --version``), else
    the value's ``version`` key, else 3 (what the Java consumer writes). The fields are checked against
    the schema first (:func:`codec.wire.jsoncheck.check_json`): a wrong JSON type, an integer out of
    range, a null where none is allowed or an unknown key is an :class:`EncodeError` naming the field."""
    if not isinstance(value, dict):
        raise EncodeError("expected a JSON object", message=name)
    spec = load_message(name)
    if version is None:
        version = value.get("version", spec.valid.high)
    if type(version) is not int:
        raise EncodeError(f"version must be an integer, got {describe(version)}", message=name, path="version")
    if not spec.valid.low <= version <= 0x7FFF:
        raise EncodeError(
            f"version {version} cannot be written (an int16 of at least {spec.valid.low})", message=name, path="version"
        )
    trailing = value.get("trailing")
    if trailing is None:
        trailing_bytes = b""
    else:
        try:
            trailing_bytes = bytes.fromhex(trailing)
        except (TypeError, ValueError):
            raise EncodeError(
                f"trailing must be hex, got {describe(trailing)}", message=name, version=version, path="trailing"
            ) from None
    check_json(value, name, min(version, spec.valid.high), style=style, extra=("version", "trailing"))
    fields = {k: v for k, v in value.items() if k not in ("version", "trailing")}
    data = from_json(fields, name, style=style)
    return ConsumerMessage(name=name, version=version, data=data, trailing=trailing_bytes)
