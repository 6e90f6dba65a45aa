"""Group message bodies at a given version: JoinGroup, SyncGroup, Heartbeat, LeaveGroup requests and
responses and the two headers (schemas in ``schemas/``, wire-facts §7), through the one message layer
(:mod:`codec.wire.message`), with the layers their bytes fields carry decoded when asked (:mod:`.nested`).

Like Kafka's generated readers, decoding stops after the last field: trailing bytes are reported,
not refused (group_edge.jsonl ``decode-trailing-bytes``).
"""

from __future__ import annotations

from ..wire import message as _message
from ..wire.message import Decoded
from ..wire.registry import apis, head, kind_name, message_names, messages_of_type
from .nested import flatten_body, nest_body

__all__ = ["APIS", "MESSAGES", "HEADERS", "DecodedMessage", "decode_message", "encode_message", "layer_kind"]

#: The classic group membership protocol's APIs, by key: what this package is about (JoinGroup, Heartbeat,
#: LeaveGroup, SyncGroup; the APIs whose request schema says ``"groupProtocol": "classic"``, with their keys and
#: versions, are the registry's: codec.wire.registry)
APIS = tuple(a.name for _, a in sorted(apis().items()) if a.request and head(a.request).group_protocol == "classic")
#: Their bodies: each API's request and response
MESSAGES = tuple(m for name in APIS for m in (f"{name}Request", f"{name}Response") if m in message_names())
#: The request and response headers
HEADERS = tuple(messages_of_type("header"))


def layer_kind(message: str) -> str:
    """The command-line kind of a layer the group messages carry: its kebab-case name without ``-protocol``
    (``ConsumerProtocolSubscription`` is ``consumer-subscription``)."""
    return kind_name(message).replace("-protocol", "")


#: One decode: the message, its version, the wire model, where it ended, the bytes after it
DecodedMessage = Decoded


def decode_message(
    name: str,
    version: int,
    data: bytes | bytearray | memoryview,
    *,
    nested: bool = False,
    protocol_type: str | None = None,
    protocol_name: str | None = None,
) -> Decoded:
    """Decode one body (or header) at ``version``. ``nested=True`` also decodes the ConsumerProtocol
    and Streams layers in its bytes fields (see :func:`codec.group.nested.nest_body`)."""
    got = _message.decode(name, version, data)
    if nested:
        value = nest_body(got.message, got.value, protocol_type=protocol_type, protocol_name=protocol_name)
        return Decoded(got.message, got.version, value, got.consumed, got.trailing)
    return got


# (a positional call on a checked (name, version) never reaches the function above)
decode_message = _message.fronted(decode_message)


def encode_message(name: str, version: int, value) -> bytes:
    """Encode one body (or header); nested layers in its bytes fields are encoded first."""
    return _message.encode(name, version, flatten_body(_message.message_name(name), value))


# (a body with nested layers misses in the front, then the function flattens it)
encode_message = _message.fronted(encode_message, encoding=True)
