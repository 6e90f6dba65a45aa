"""The names of Kafka 4's group RPCs and ``__consumer_offsets`` records, and the kind names of both.

The RPCs (KIP-848 consumer groups, KIP-1071 Streams groups, KIP-932 share groups) and the coordinator records
whose schemas are in ``schemas/`` (each file's Kafka commit: ``schemas/README.md``). A CLI kind name is the message
name in kebab case: ``ConsumerGroupHeartbeatRequest`` is ``consumer-group-heartbeat-request``; a record
part is ``<record>-key`` or ``<record>-value``, e.g. ``consumer-group-member-metadata-value``.
"""

from __future__ import annotations

from ..errors import DecodeError, EncodeError
from ..wire.schema import snake

__all__ = [
    "API_KEYS",
    "CLASSIC_KIND_NAMES",
    "CLASSIC_RECORDS",
    "CLASSIC_RECORD_TYPES",
    "KIND_NAMES",
    "MESSAGES",
    "RECORDS",
    "RECORD_TYPES",
    "SHARE_RECORD_TYPES",
    "kind_name",
    "message_for",
    "record_type_of",
]

#: The RPC bodies: message name -> (API key, "request"/"response").
MESSAGES: dict[str, tuple[int, str]] = {
    "ConsumerGroupHeartbeatRequest": (68, "request"),
    "ConsumerGroupHeartbeatResponse": (68, "response"),
    "ConsumerGroupDescribeRequest": (69, "request"),
    "ConsumerGroupDescribeResponse": (69, "response"),
    "StreamsGroupHeartbeatRequest": (88, "request"),
    "StreamsGroupHeartbeatResponse": (88, "response"),
    "StreamsGroupDescribeRequest": (89, "request"),
    "StreamsGroupDescribeResponse": (89, "response"),
    "ShareGroupHeartbeatRequest": (76, "request"),
    "ShareGroupHeartbeatResponse": (76, "response"),
    "ShareGroupDescribeRequest": (77, "request"),
    "ShareGroupDescribeResponse": (77, "response"),
}

#: API key -> API name.
API_KEYS: dict[int, str] = {
    68: "ConsumerGroupHeartbeat",
    69: "ConsumerGroupDescribe",
    88: "StreamsGroupHeartbeat",
    89: "StreamsGroupDescribe",
    76: "ShareGroupHeartbeat",
    77: "ShareGroupDescribe",
}

#: Share groups' records (KIP-932). Type 9 is Kafka 4.0's early-access partition metadata, which 4.1 no
#: longer writes (schemas/README.md); 15 records the share-group state of the group's partitions.
SHARE_RECORD_TYPES: dict[int, str] = {
    9: "ShareGroupPartitionMetadata",
    10: "ShareGroupMemberMetadata",
    11: "ShareGroupMetadata",
    12: "ShareGroupTargetAssignmentMetadata",
    13: "ShareGroupTargetAssignmentMember",
    14: "ShareGroupCurrentMemberAssignment",
    15: "ShareGroupStatePartitionMetadata",
}

#: Coordinator record types of consumer, Streams and share groups (the int16 before a record key; the key
#: schemas' ``apiKey``; GroupCoordinatorRecordSerde) -> record name (schemas ``<name>Key``/``<name>Value``).
#: Type 18 (StreamsGroupPartitionMetadata) is not here: only trunk builds before 4.1 wrote it, and released
#: Kafka, knowing no type 18, skips it as unknown (schemas/README.md).
RECORD_TYPES: dict[int, str] = {
    3: "ConsumerGroupMetadata",
    4: "ConsumerGroupPartitionMetadata",
    5: "ConsumerGroupMemberMetadata",
    6: "ConsumerGroupTargetAssignmentMetadata",
    7: "ConsumerGroupTargetAssignmentMember",
    8: "ConsumerGroupCurrentMemberAssignment",
    16: "ConsumerGroupRegularExpression",
    17: "StreamsGroupMetadata",
    19: "StreamsGroupMemberMetadata",
    20: "StreamsGroupTargetAssignmentMetadata",
    21: "StreamsGroupTargetAssignmentMember",
    22: "StreamsGroupCurrentMemberAssignment",
    23: "StreamsGroupTopology",
    **SHARE_RECORD_TYPES,
}

#: The classic group's records, read with the older schemas: the key version is the record type and the
#: key schema is read at that version.
CLASSIC_RECORD_TYPES: dict[int, str] = {0: "OffsetCommit", 1: "OffsetCommit", 2: "GroupMetadata"}

#: The classic records -> their record types, the one Kafka's coordinator writes first (it writes OffsetCommit
#: keys as type 1 and reads 0 too: ``GroupCoordinatorRecordHelpers``, ``GroupCoordinatorRecordSerde``).
CLASSIC_RECORDS: dict[str, tuple[int, ...]] = {"OffsetCommit": (1, 0), "GroupMetadata": (2,)}

#: Every record name read here -> its type.
RECORDS: dict[str, int] = {name: t for t, name in RECORD_TYPES.items()}


def kind_name(message: str) -> str:
    """``ConsumerGroupHeartbeatRequest`` -> ``consumer-group-heartbeat-request``."""
    return snake(message).replace("_", "-")


#: Every message (RPC body, record key or value) -> its CLI kind.
KIND_NAMES: dict[str, str] = {m: kind_name(m) for m in MESSAGES}
KIND_NAMES.update({r + part: kind_name(r + part) for r in RECORDS for part in ("Key", "Value")})
_BY_KIND: dict[str, str] = {k: m for m, k in KIND_NAMES.items()}
#: The classic records' parts -> their CLI kinds (``offset-commit-key``, ..., ``group-metadata-value``).
CLASSIC_KIND_NAMES: dict[str, str] = {
    r + part: kind_name(r + part) for r in CLASSIC_RECORDS for part in ("Key", "Value")
}


def message_for(kind: str, *, error=DecodeError) -> str:
    """The schema name for a kind given as a message name (``ConsumerGroupHeartbeatRequest``, also a record
    part such as ``ConsumerGroupMetadataValue``) or a CLI kind name (``consumer-group-heartbeat-request``)."""
    if kind in MESSAGES or (
        kind.endswith(("Key", "Value")) and kind.removesuffix("Key").removesuffix("Value") in RECORDS
    ):
        return kind
    try:
        return _BY_KIND[kind]
    except (KeyError, TypeError):
        known = ", ".join(kind_name(m) for m in MESSAGES)
        raise error(
            f"not a Kafka 4 group message: {str(kind)[:80]!r} (known: {known}, and the record "
            f"kinds <record>-key/-value)",
            message="kafka4",
        ) from None


def record_type_of(name: str, *, error=EncodeError) -> int:
    """The record type of a record name (``ConsumerGroupMetadata`` -> 3; ``Key``/``Value`` suffix allowed)."""
    base = name.removesuffix("Key").removesuffix("Value") if name not in RECORDS else name
    try:
        return RECORDS[base]
    except KeyError:
        raise error(f"not a consumer, Streams or share group record: {name[:80]!r}", message="record") from None
