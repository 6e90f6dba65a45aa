"""The layers inside the group messages' bytes fields, decoded and encoded in one step.

The stack (wire-facts §6, §7, §2, §3)::

    JoinGroupRequest.Protocols[i].Metadata   -> ConsumerProtocolSubscription -> UserData -> SubscriptionInfo
    JoinGroupResponse.Members[i].Metadata    -> ConsumerProtocolSubscription -> UserData -> SubscriptionInfo
    SyncGroupRequest.Assignments[i].Assignment -> ConsumerProtocolAssignment -> UserData -> AssignmentInfo
    SyncGroupResponse.Assignment             -> ConsumerProtocolAssignment   -> UserData -> AssignmentInfo

A bytes field is decoded one layer further when the group's protocol type is ``consumer`` (assumed
when the message does not say and the caller does not know); UserData is decoded as Kafka Streams
metadata when the protocol (assignor) name is ``stream``, and a subscription's UserData as the classic sticky
assignors' (``StickyAssignorUserData``, ``CooperativeStickyAssignorUserData``: :mod:`codec.group.sticky`) when it
is ``sticky`` or ``cooperative-sticky``.

A Kafka Connect group (protocol type ``connect``) carries Connect's own messages in the same fields::

    JoinGroupRequest.Protocols[i].Metadata     -> ConnectMetadata
    JoinGroupResponse.Members[i].Metadata      -> ConnectMetadata
    SyncGroupRequest.Assignments[i].Assignment -> ConnectAssignment
    SyncGroupResponse.Assignment               -> ConnectAssignment

read as every worker since Kafka 2.3 reads them, whatever the protocol (``default``, ``compatible`` or
``sessioned``): with ``IncrementalCooperativeConnectProtocol``'s deserializer (reader version 1; both of
Kafka's assignors read the members' metadata so, and ``WorkerCoordinator.onJoinComplete`` the assignment). Each decoded field becomes a :class:`Nested`
holding the bytes as carried and either the decoded value or the reason it could not be decoded: a
layer that fails never raises for the layers around it. Empty and null fields stay as they are (an
error response carries an empty assignment).

Encoding goes the other way: a bytes field may hold bytes, a :class:`Nested` (its bytes are written
as carried), a :class:`ConsumerMessage`, a Streams ``SubscriptionInfo`` or ``AssignmentInfo``, a Connect
``ConnectMetadata`` or ``ConnectAssignment``.
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass
from typing import Any

from ..connect.assignment import (
    ConnectAssignment,
    DecodedConnectAssignment,
    decode_connect_assignment,
    encode_connect_assignment,
)
from ..connect.constants import CONNECT_PROTOCOL_V1
from ..connect.metadata import ConnectMetadata, DecodedConnectMetadata, decode_connect_metadata, encode_connect_metadata
from ..errors import DecodeError, EncodeError
from ..streams import (
    AssignmentInfo,
    DecodedAssignment,
    DecodedSubscription,
    SubscriptionInfo,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)
from .consumer import ASSIGNMENT, SUBSCRIPTION, ConsumerMessage, decode_consumer, encode_consumer
from .sticky import (
    COOPERATIVE_STICKY_LAYER,
    STICKY_LAYER,
    StickyUserData,
    encode_sticky_user_data,
    layer_of,
    read_carried,
)

__all__ = [
    "CARRIERS",
    "LayerError",
    "Nested",
    "STREAMS_PROTOCOL",
    "CONSUMER_TYPE",
    "CONNECT_TYPE",
    "CONNECT_METADATA",
    "CONNECT_ASSIGNMENT",
    "CONNECT_READER_VERSION",
    "nest_body",
    "flatten_body",
    "unwrap_body",
    "nested_fields",
    "carried_layer",
    "decode_layer",
    "layer_bytes",
    "streams_info",
    "sticky_data",
]

STREAMS_PROTOCOL = "stream"
CONSUMER_TYPE = "consumer"
CONNECT_TYPE = "connect"
CONNECT_METADATA = "ConnectMetadata"
CONNECT_ASSIGNMENT = "ConnectAssignment"
#: The deserializer every current worker reads Connect's group messages with (IncrementalCooperativeConnectProtocol).
CONNECT_READER_VERSION = CONNECT_PROTOCOL_V1

# message -> (array field or None, bytes field, ConsumerProtocol layer)
_CARRIERS: dict[str, tuple[str | None, str, str]] = {
    "JoinGroupRequest": ("protocols", "metadata", SUBSCRIPTION),
    "JoinGroupResponse": ("members", "metadata", SUBSCRIPTION),
    "SyncGroupRequest": ("assignments", "assignment", ASSIGNMENT),
    "SyncGroupResponse": (None, "assignment", ASSIGNMENT),
}
#: The messages whose bytes fields carry other messages
CARRIERS = tuple(_CARRIERS)
_STREAMS_LAYER = {SUBSCRIPTION: "SubscriptionInfo", ASSIGNMENT: "AssignmentInfo"}
_STREAMS_LAYERS = frozenset(_STREAMS_LAYER.values())
# the sticky assignors' user data layers (codec.group.sticky) -> their protocol (assignor) names
_STICKY_ASSIGNOR = {STICKY_LAYER: "sticky", COOPERATIVE_STICKY_LAYER: "cooperative-sticky"}
# the ConsumerProtocol layer of a carrier -> the Connect message the same field carries in a Connect group
_CONNECT_LAYER = {SUBSCRIPTION: CONNECT_METADATA, ASSIGNMENT: CONNECT_ASSIGNMENT}


@dataclass(frozen=True, slots=True)
class LayerError:
    """Why a layer stayed bytes: the DecodeError's text, reason, offset (into the layer's own bytes)
    and field path, plus where the layer sits in the outer message (``at``)."""

    message: str
    reason: str
    offset: int | None
    path: str
    at: str

    @classmethod
    def of(cls, e: DecodeError, at: str) -> "LayerError":
        return cls(str(e), e.reason, e.offset, e.path, at)


@dataclass(frozen=True, slots=True)
class Nested:
    """A bytes field decoded one layer further.

    ``layer``: ``ConsumerProtocolSubscription``, ``ConsumerProtocolAssignment``, ``SubscriptionInfo``,
    ``AssignmentInfo``, ``ConnectMetadata``, ``ConnectAssignment``, ``StickyAssignorUserData`` or
    ``CooperativeStickyAssignorUserData``. ``raw``: the field's bytes exactly as
    carried. ``value``: a :class:`ConsumerMessage` (whose ``data.user_data`` may itself be a ``Nested``), a
    Streams ``DecodedSubscription``/``DecodedAssignment``, a Connect ``DecodedConnectMetadata``/
    ``DecodedConnectAssignment`` (read with reader version 1), a :class:`~codec.group.sticky.StickyUserData`, or None
    when ``error`` says why not."""

    layer: str
    raw: bytes
    value: Any = None
    error: LayerError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def decode_layer(layer: str, raw: bytes, *, protocol_name: str | None, at: str = "") -> Nested:
    """Decode ``raw`` as ``layer`` and, for protocol ``stream``, its UserData too; a Connect layer is read
    as current workers read it (reader version 1, whatever its header or the protocol name). Never raises
    DecodeError: a failure is kept in ``Nested.error``."""
    try:
        if layer in (SUBSCRIPTION, ASSIGNMENT):
            msg = decode_consumer(layer, raw)
            user = msg.data.user_data
            inner_layer = (
                _STREAMS_LAYER[layer]
                if protocol_name == STREAMS_PROTOCOL
                else layer_of(protocol_name)
                if layer == SUBSCRIPTION
                else None
            )
            if inner_layer is not None and user:
                inner = decode_layer(inner_layer, user, protocol_name=None, at=f"{at}.user_data" if at else "user_data")
                msg = dataclasses.replace(msg, data=dataclasses.replace(msg.data, user_data=inner))
            return Nested(layer, raw, msg)
        if layer in _STICKY_ASSIGNOR:
            data = read_carried(_STICKY_ASSIGNOR[layer], raw)
            return Nested(data.layer, raw, data)
        if layer == "SubscriptionInfo":
            return Nested(layer, raw, decode_subscription(raw, detail=True))
        if layer == "AssignmentInfo":
            return Nested(layer, raw, decode_assignment(raw, detail=True))
        if layer == CONNECT_METADATA:
            return Nested(layer, raw, decode_connect_metadata(raw, reader_version=CONNECT_READER_VERSION, detail=True))
        if layer == CONNECT_ASSIGNMENT:
            return Nested(
                layer, raw, decode_connect_assignment(raw, reader_version=CONNECT_READER_VERSION, detail=True)
            )
    except DecodeError as e:
        return Nested(layer, raw, None, LayerError.of(e, at))
    raise ValueError(f"unknown layer {layer!r}")


def streams_info(user: Any) -> Any:
    """The Streams SubscriptionInfo/AssignmentInfo a decoded UserData layer holds, else None (undecoded, or a sticky
    assignor's user data)."""
    if isinstance(user, Nested) and user.ok and user.layer in _STREAMS_LAYERS:
        return user.value.info
    return None


def sticky_data(user: Any) -> StickyUserData | None:
    """The sticky assignor's user data a decoded UserData layer holds, else None."""
    if isinstance(user, Nested) and user.ok and isinstance(user.value, StickyUserData):
        return user.value
    return None


def nested_fields(name: str) -> tuple[str | None, str, str] | None:
    """(array field, bytes field, layer) of a message that carries ConsumerProtocol bytes, else None."""
    return _CARRIERS.get(name)


def carried_layer(name: str, protocol_type: str | None) -> str | None:
    """The layer a message's bytes fields carry in a group of ``protocol_type`` (None: ``consumer``):
    ConsumerProtocol for ``consumer``, Connect's messages for ``connect``, None for any other type (or a
    message that carries none)."""
    carrier = _CARRIERS.get(name)
    if carrier is None:
        return None
    ptype = protocol_type or CONSUMER_TYPE
    if ptype == CONSUMER_TYPE:
        return carrier[2]
    if ptype == CONNECT_TYPE:
        return _CONNECT_LAYER[carrier[2]]
    return None


def nest_body(name: str, body, *, protocol_type: str | None = None, protocol_name: str | None = None):
    """The body with every carried ConsumerProtocol (or, in a Connect group, Connect) field decoded (see
    the module docstring).

    ``protocol_type``/``protocol_name``: what the caller knows from the exchange (a JoinGroup request's
    ProtocolType, a JoinGroup response's ProtocolName) for versions whose body does not say."""
    carrier = _CARRIERS.get(name)
    if carrier is None:
        return body
    ptype = getattr(body, "protocol_type", None) or protocol_type or CONSUMER_TYPE
    layer = carried_layer(name, ptype)
    if layer is None:
        return body
    array, field, _ = carrier
    pname = getattr(body, "protocol_name", None) or protocol_name
    if array is None:
        raw = getattr(body, field)
        if not raw:
            return body
        return dataclasses.replace(body, **{field: decode_layer(layer, raw, protocol_name=pname, at=field)})
    items = []
    for i, item in enumerate(getattr(body, array)):
        raw = getattr(item, field)
        if raw:
            own = getattr(item, "name", None) or pname  # JoinGroup request: each protocol names itself
            item = dataclasses.replace(
                item, **{field: decode_layer(layer, raw, protocol_name=own, at=f"{array}[{i}].{field}")}
            )
        items.append(item)
    return dataclasses.replace(body, **{array: tuple(items)})


def layer_bytes(value, *, path: str = "") -> bytes | None:
    """The bytes a (possibly nested) field value encodes to."""
    if value is None or isinstance(value, (bytes, bytearray, memoryview)):
        return None if value is None else bytes(value)
    if isinstance(value, Nested):
        return value.raw
    if isinstance(value, ConsumerMessage):
        user = value.data.user_data
        if user is not None and not isinstance(user, (bytes, bytearray)):
            data = dataclasses.replace(value.data, user_data=layer_bytes(user, path=f"{path}.user_data"))
            value = dataclasses.replace(value, data=data)
        return encode_consumer(value)
    if isinstance(value, StickyUserData):
        return encode_sticky_user_data(value)
    if isinstance(value, SubscriptionInfo):
        return encode_subscription(value)
    if isinstance(value, AssignmentInfo):
        return encode_assignment(value)
    if isinstance(value, (DecodedSubscription, DecodedAssignment, DecodedConnectMetadata, DecodedConnectAssignment)):
        return layer_bytes(value.info, path=path)
    if isinstance(value, ConnectMetadata):
        return encode_connect_metadata(value)
    if isinstance(value, ConnectAssignment):
        return encode_connect_assignment(value)
    raise EncodeError(f"cannot encode a {type(value).__name__} as bytes", path=path)


def _map_carried(name: str, body, fn):
    carrier = _CARRIERS.get(name)
    if carrier is None:
        return body
    array, field, _ = carrier
    if array is None:
        old = getattr(body, field)
        new = fn(old, field)
        return body if new is old else dataclasses.replace(body, **{field: new})
    items = getattr(body, array)
    if items is None:
        return body
    mapped, changed = [], False
    for i, item in enumerate(items):  # rebuild only what changed (most bodies already carry bytes)
        old = getattr(item, field)
        new = fn(old, f"{array}[{i}].{field}")
        if new is not old:
            item, changed = dataclasses.replace(item, **{field: new}), True
        mapped.append(item)
    return dataclasses.replace(body, **{array: tuple(mapped)}) if changed else body


_PLAIN = {bytes, type(None)}


def flatten_body(name: str, body):
    """The body with every nested layer encoded back to bytes (ready for ``encode_wire``); the body itself
    when its carried fields already are bytes (the common case, checked without a Python call per item)."""
    carrier = _CARRIERS.get(name)
    if carrier is None:
        return body
    array, field, _ = carrier
    try:
        if array is None:
            if type(getattr(body, field)) in _PLAIN:
                return body
        elif set(map(type, map(operator.attrgetter(field), getattr(body, array)))) <= _PLAIN:
            return body
    except (AttributeError, TypeError):
        pass  # not a wire object: the path below decides
    return _map_carried(name, body, lambda v, path: layer_bytes(v, path=path))


def _unwrap(value):
    if not isinstance(value, Nested) or not value.ok:
        return value
    v = value.value
    if isinstance(v, ConsumerMessage):
        return dataclasses.replace(v, data=dataclasses.replace(v.data, user_data=_unwrap(v.data.user_data)))
    if isinstance(v, StickyUserData):
        return v
    return v.info  # DecodedSubscription / DecodedAssignment / DecodedConnectMetadata / DecodedConnectAssignment


def unwrap_body(name: str, body):
    """The body with each decodable :class:`Nested` replaced by its model (ConsumerMessage,
    SubscriptionInfo, AssignmentInfo, ConnectMetadata, ConnectAssignment), dropping the carried bytes: encoding the result then
    re-encodes every layer from its model. Layers that failed stay ``Nested`` (written as carried)."""
    return _map_carried(name, body, lambda v, path: _unwrap(v))
