"""Kafka 4's group protocols: KIP-848 consumer groups, KIP-1071 Streams groups and KIP-932 share groups,
their RPC bodies and their ``__consumer_offsets`` records, read and written byte for byte (issues #21, #30).

The public API (everything else in this package is detail)::

    decode(kind, version, body)            -> dict    # one RPC body, Kafka's JSON
    encode(kind, version, value)           -> bytes
    decode_record(key, value)              -> dict    # one __consumer_offsets record (value None: tombstone)
    encode_record(record)                  -> (key bytes, value bytes or None)
    decode_model(kind, version, body)      -> wire model (frozen dataclass, snake_case attributes)

``kind`` is the message name or its CLI kind name, for the twelve RPC bodies:

=================================  ======================================  =======  ========
message                            CLI kind                                API key  versions
=================================  ======================================  =======  ========
ConsumerGroupHeartbeatRequest      consumer-group-heartbeat-request        68       0-1
ConsumerGroupHeartbeatResponse     consumer-group-heartbeat-response       68       0-1
ConsumerGroupDescribeRequest       consumer-group-describe-request         69       0-1
ConsumerGroupDescribeResponse      consumer-group-describe-response        69       0-1
StreamsGroupHeartbeatRequest       streams-group-heartbeat-request         88       0
StreamsGroupHeartbeatResponse      streams-group-heartbeat-response        88       0
StreamsGroupDescribeRequest        streams-group-describe-request          89       0
StreamsGroupDescribeResponse       streams-group-describe-response         89       0
ShareGroupHeartbeatRequest         share-group-heartbeat-request           76       1
ShareGroupHeartbeatResponse        share-group-heartbeat-response          76       1
ShareGroupDescribeRequest          share-group-describe-request            77       1
ShareGroupDescribeResponse         share-group-describe-response           77       1
=================================  ======================================  =======  ========

(also ``<Record>Key``/``<Record>Value`` for one record part's body without its int16 prefix). ``body`` is
the message body alone: no size, no request/response header (``codec.group.frames`` reads whole frames of
these APIs too). The field lists are Kafka's message JSON, each file's commit named in ``schemas/README.md``.

**JSON** (``style="kafka"``, the default) is the shape of Kafka's generated JSON converters: Kafka's field
names in camelCase (``groupId``, ``memberEpoch``, ``rebalanceTimeoutMs``, ``topicPartitions``), every field
of that version and no other, ``null`` for null strings, arrays and structs, UUIDs as Kafka's ``Uuid``
strings (URL-safe base64 of the 16 bytes, no padding: ``AAAAAAAAAAAAAAAAAAAAAA`` is the zero UUID), bytes
as base64, and unknown tagged fields (kept, and written back) under ``"_unknownTaggedFields": {"<tag>":
"<hex>"}``. ``style="snake"`` (also spelled ``"native"``) gives snake_case names, dashed UUIDs and hex bytes. ``encode`` takes either
key spelling; missing fields take their defaults; the JSON is checked against the schema first.

Example: ``decode("consumer-group-heartbeat-request", 1, body)`` ->
``{"groupId": "g", "memberId": "m", "memberEpoch": 0, "instanceId": null, "rackId": null,
"rebalanceTimeoutMs": 300000, "subscribedTopicNames": ["t"], "subscribedTopicRegex": null,
"serverAssignor": null, "topicPartitions": []}``.

**Records**: ``decode_record(key, value)`` reads a ``__consumer_offsets`` record as the group coordinator
writes it (key = int16 record type + key body; value = int16 version + value body, or None for a
tombstone) and returns::

    {"recordType": 5, "record": "ConsumerGroupMemberMetadata",
     "key": {"groupId": "g", "memberId": "m"},
     "valueVersion": 0, "value": {"instanceId": null, ..., "classicMemberMetadata": null}}

``"value": null`` and ``"valueVersion": null`` for a tombstone, and ``"trailing": {"key"|"value":
{"offset", "bytes"}}`` when bytes follow a part (Kafka ignores them). Record types: consumer groups 3
ConsumerGroupMetadata, 4 ConsumerGroupPartitionMetadata, 5 ConsumerGroupMemberMetadata, 6
ConsumerGroupTargetAssignmentMetadata, 7 ConsumerGroupTargetAssignmentMember, 8
ConsumerGroupCurrentMemberAssignment, 16 ConsumerGroupRegularExpression; Streams groups 17
StreamsGroupMetadata, 19 StreamsGroupMemberMetadata, 20
StreamsGroupTargetAssignmentMetadata, 21 StreamsGroupTargetAssignmentMember, 22
StreamsGroupCurrentMemberAssignment, 23 StreamsGroupTopology; share groups 9 ShareGroupPartitionMetadata
(Kafka 4.0's early access), 10 ShareGroupMemberMetadata, 11 ShareGroupMetadata, 12
ShareGroupTargetAssignmentMetadata, 13 ShareGroupTargetAssignmentMember, 14 ShareGroupCurrentMemberAssignment,
15 ShareGroupStatePartitionMetadata (:data:`RECORD_TYPES`; type 18, StreamsGroupPartitionMetadata, no release
wrote, and it is an unknown type here as it is to Kafka); the classic 0/1
OffsetCommit and 2 GroupMetadata are read too. ``encode_record`` takes that same dict (``recordType`` or
``record``; ``valueVersion`` may be left out where the value has one version) and returns the two byte
strings.

**Errors**: bad bytes raise :class:`codec.errors.DecodeError` (``UnsupportedVersionError``,
``TruncatedError``, ``LimitExceededError`` are subclasses) with ``message`` (schema name), ``version``,
``offset`` (into the bytes given: a record value's offsets count its version prefix) and ``path``
(snake_case field path, e.g. ``assignment.topic_partitions[0].partitions``); ``str(e)`` is one line.
JSON that does not fit raises :class:`codec.errors.EncodeError` with the field path. An unknown kind is a
``DecodeError``/``EncodeError`` too. Bytes after a body are ignored, as Kafka ignores them (``decode_body``
counts them).
"""

from __future__ import annotations

from ..wire.message import decode_json as decode
from .body import (
    DecodedBody,
    body_from_json,
    decode_body,
    decode_model,
    encode_model,
)
from .common import (
    API_KEYS,
    CLASSIC_RECORD_TYPES,
    MESSAGES,
    RECORD_TYPES,
    RECORDS,
    SHARE_RECORD_TYPES,
    kind_name,
    message_for,
)
from ..wire.records import (
    decode_record,
    decode_record_key,
    decode_record_value,
    encode_record,
    encode_record_key,
    encode_record_value,
)

__all__ = [
    "API_KEYS",
    "CLASSIC_RECORD_TYPES",
    "MESSAGES",
    "RECORDS",
    "RECORD_TYPES",
    "SHARE_RECORD_TYPES",
    "DecodedBody",
    "decode",
    "decode_body",
    "decode_model",
    "decode_record",
    "decode_record_key",
    "decode_record_value",
    "encode",
    "encode_model",
    "encode_record",
    "encode_record_key",
    "encode_record_value",
    "kind_name",
    "message_for",
]


def encode(kind: str, version: int, value: dict, *, style: str = "kafka") -> bytes:
    """The bytes of one body from its JSON (either key spelling); ``EncodeError`` when it does not fit."""
    return encode_model(kind, version, body_from_json(kind, version, value, style))
