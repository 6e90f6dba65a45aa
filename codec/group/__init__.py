"""The consumer-group membership protocol around Kafka Streams metadata (issue #3).

Layers, outermost first (wire-facts §7, §6, §2-§3):

* frames: int32 size, request header v1/v2 or response header v0/v1, body
  (:mod:`~codec.group.frames`, :mod:`~codec.group.stream` for byte streams and request/response pairing);
* bodies: JoinGroup, SyncGroup, Heartbeat, LeaveGroup at every version (:mod:`~codec.group.messages`);
* ConsumerProtocol subscription/assignment with their int16 version prefix (:mod:`~codec.group.consumer`);
* Kafka Streams SubscriptionInfo/AssignmentInfo in their UserData (:mod:`codec.streams`).

:mod:`~codec.group.nested` decodes and encodes the inner layers of a frame in one step.
"""

from ..wire.registry import Api, request_header_version, response_header_version
from .consumer import (
    ASSIGNMENT,
    SUBSCRIPTION,
    ConsumerMessage,
    consumer_assignment,
    consumer_from_json,
    consumer_json,
    consumer_subscription,
    decode_consumer,
    encode_consumer,
)
from .frames import (
    RequestFrame,
    ResponseFrame,
    decode_request_frame,
    decode_response_frame,
    encode_request_frame,
    encode_response_frame,
    request_frame,
    response_frame,
    size_prefix,
    strip_size_prefix,
)
from .jsonview import (
    body_from_json,
    body_json,
    request_frame_from_json,
    request_frame_json,
    response_frame_from_json,
    response_frame_json,
)
from .messages import HEADERS, MESSAGES, DecodedMessage, decode_message, encode_message
from .nested import LayerError, Nested, flatten_body, nest_body, sticky_data, unwrap_body
from .sticky import StickyUserData, decode_sticky_user_data, encode_sticky_user_data
from .stream import DEFAULT_MAX_FRAME_SIZE, Connection, FrameReader

__all__ = [
    "Api",
    "request_header_version",
    "response_header_version",
    "SUBSCRIPTION",
    "ASSIGNMENT",
    "ConsumerMessage",
    "decode_consumer",
    "encode_consumer",
    "consumer_subscription",
    "consumer_assignment",
    "consumer_json",
    "consumer_from_json",
    "MESSAGES",
    "HEADERS",
    "DecodedMessage",
    "decode_message",
    "encode_message",
    "RequestFrame",
    "ResponseFrame",
    "decode_request_frame",
    "decode_response_frame",
    "encode_request_frame",
    "encode_response_frame",
    "request_frame",
    "response_frame",
    "size_prefix",
    "strip_size_prefix",
    "Nested",
    "sticky_data",
    "StickyUserData",
    "decode_sticky_user_data",
    "encode_sticky_user_data",
    "LayerError",
    "nest_body",
    "flatten_body",
    "unwrap_body",
    "body_json",
    "body_from_json",
    "request_frame_json",
    "response_frame_json",
    "request_frame_from_json",
    "response_frame_from_json",
    "FrameReader",
    "Connection",
    "DEFAULT_MAX_FRAME_SIZE",
]
