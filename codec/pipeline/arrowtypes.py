"""The Arrow types of the pipeline's exchange with the JVM (:mod:`codec.pipeline.arrow`): the input columns, each
unit kind's struct, and the flat row the executors give back (:data:`FLAT`)."""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "CONTEXT_COLUMNS",
    "DECODE_COLUMNS",
    "INPUT_COLUMNS",
    "TASK_SUM",
    "TASK_ASG",
    "TAGS",
    "MEMBER",
    "SHARED",
    "TOPIC_PARTITIONS",
    "OWNED_BY_ID",
    "ASSIGNMENT",
    "SHARE_TOPIC",
    "GROUP",
    "CONNECT_TASK",
    "CONNECT",
    "QUARANTINE",
    "COMMITTED",
    "OFFSETS",
    "STATE_BATCH",
    "SHARE_STATE",
    "ESCAPED",
    "FLAT",
    "UNIT_COLUMNS",
]

#: the record's context (see job.normalize): it crosses into Python and comes back on each of the record's units
CONTEXT_COLUMNS = (
    "record_id",
    "source",
    "group",
    "member",
    "generation",
    "kind",
    "ts_ms",
    "link",
    "direction",
    "leader",
    "protocol",
)
#: the arguments of :func:`decode_arrays`, in this order
#: (``input_error``: why the record does not fit before any decoding, ``<type>: <message>``, see job.normalize)
DECODE_COLUMNS = (
    "kind",
    "version",
    "hex",
    "data",
    "api_key",
    "direction",
    "body_offset",
    "key",
    "protocol",
    "input_error",
)
INPUT_COLUMNS = CONTEXT_COLUMNS + tuple(c for c in DECODE_COLUMNS if c not in CONTEXT_COLUMNS)

_STR, _I32, _I64, _BOOL, _BIN = pa.string(), pa.int32(), pa.int64(), pa.bool_(), pa.binary()
_TASK = [("subtopology", _I32), ("partition", _I32), ("topology", _STR)]
#: a task's offset sum and, when the bytes carry it (a KIP-1071 member's taskEndOffsets), its end offset sum
TASK_SUM = pa.struct(_TASK + [("offset_sum", _I64), ("end_offset_sum", _I64)])
TASK_ASG = pa.struct(_TASK + [("partitions", _I32)])
TAGS = pa.map_(_STR, _STR)

_M_SCALARS = [
    ("process_id", _STR),
    ("sub_version", _I32),
    ("latest_supported_version", _I32),
    ("user_endpoint", _STR),
    ("unique_field", _I32),
    ("sub_error_code", _I32),
    ("is_version_probe", _BOOL),
    ("rack_id", _STR),
    ("group_instance_id", _STR),
    ("client_id", _STR),
    ("client_host", _STR),
]
#: ``subscribed_topics``: a consumer or share member's subscribed topic names (KIP-848, KIP-932)
_SUBSCRIBED = ("subscribed_topics", pa.list_(_STR))
#: a plain consumer's assigned partitions of one topic, as the ConsumerProtocol assignment lists them
TOPIC_PARTITIONS = pa.struct([("topic", _STR), ("partitions", pa.list_(_I32))])
#: a KIP-848 member's owned partitions of one topic, by topic id (its heartbeat request's ``topicPartitions``)
OWNED_BY_ID = pa.struct([("topic_id", _STR), ("partitions", pa.list_(_I32))])
#: ``owned_topic_ids``: those of a KIP-848 member (``subscription_generation`` then its request's member epoch);
#: ``owned_partitions``, ``subscription_generation``: a classic consumer's ConsumerProtocolSubscription v1+
#: owned partitions and v2+ generation (built like the lists: one Python value a row; the fast path has none);
#: ``sticky_partitions``, ``sticky_generation``: what its sticky assignor's user data says (codec.group.sticky)
MEMBER = pa.struct(
    _M_SCALARS
    + [
        ("client_tags", TAGS),
        ("tasks", pa.list_(TASK_SUM)),
        _SUBSCRIBED,
        ("owned_partitions", pa.list_(TOPIC_PARTITIONS)),
        ("subscription_generation", _I32),
        ("sticky_partitions", pa.list_(TOPIC_PARTITIONS)),
        ("sticky_generation", _I32),
        ("subscription_bytes", _BIN),
        ("owned_topic_ids", pa.list_(OWNED_BY_ID)),
    ]
)
_A_SCALARS = [
    ("asg_version", _I32),
    ("commonly_supported_version", _I32),
    ("asg_error_code", _I32),
    ("next_rebalance_ms", _I64),
    ("endpoints", _I32),
]
#: a share member's partition (KIP-932): its topic id (Kafka's Uuid string), the name when the bytes give it
SHARED = pa.struct([("topic_id", _STR), ("topic", _STR), ("partition", _I32)])
#: ``warmup``: the warm-up tasks a KIP-1071 assignment names (a classic one's travel as standbys); ``shared``: the
#: partitions a share member holds; ``topic_partitions``: a plain (classic, non-Streams) consumer's partitions, per
#: topic as on the wire (the tables make a row of each partition); ``consumed``: a KIP-848 consumer member's
#: partitions, ``revoking`` those pending revocation (by topic id, as ``shared``)
ASSIGNMENT = pa.struct(
    _A_SCALARS
    + [
        ("active", pa.list_(TASK_ASG)),
        ("standby", pa.list_(TASK_ASG)),
        ("warmup", pa.list_(TASK_ASG)),
        ("shared", pa.list_(SHARED)),
        ("topic_partitions", pa.list_(TOPIC_PARTITIONS)),
        ("consumed", pa.list_(SHARED)),
        ("revoking", pa.list_(SHARED)),
        ("assignment_bytes", _BIN),
    ]
)
#: a share group's topic (its records and Describe responses): id, name, the partitions to hold (null: unknown)
SHARE_TOPIC = pa.struct([("topic_id", _STR), ("topic", _STR), ("partitions", pa.list_(_I32))])
#: a Metadata response's topic: id (Kafka's short form; null below v10), name, partition count, and each
#: partition's replica racks (the brokers' racks; an empty list where none is known)
METADATA_TOPIC = pa.struct(
    [("topic_id", _STR), ("topic", _STR), ("partitions", _I32), ("racks", pa.list_(pa.list_(_STR)))]
)
#: ``group_protocol``: ``consumer`` (KIP-848), ``streams`` (KIP-1071) or ``share`` (KIP-932) for Kafka 4's
#: groups, null for classic ones
GROUP = pa.struct(
    [
        ("protocol_type", _STR),
        ("member_count", _I32),
        ("group_error_code", _I32),
        ("group_protocol", _STR),
        ("group_event", _STR),
        ("leave_reason", _STR),
        ("share_topics", pa.list_(SHARE_TOPIC)),
        ("metadata_topics", pa.list_(METADATA_TOPIC)),
    ]
)
CONNECT_TASK = pa.struct([("connector", _STR), ("task", _I32)])
_C_SCALARS = [
    ("connect_layer", _STR),
    ("connect_version", _I32),
    ("url", _STR),
    ("config_offset", _I64),
    ("connect_error", _I32),
    ("connect_leader", _STR),
    ("leader_url", _STR),
    ("delay", _I32),
]
_C_LISTS = ("connectors", "connect_tasks", "revoked_connectors", "revoked_tasks")
CONNECT = pa.struct(
    _C_SCALARS
    + [
        ("connectors", pa.list_(_STR)),
        ("connect_tasks", pa.list_(CONNECT_TASK)),
        ("revoked_connectors", pa.list_(_STR)),
        ("revoked_tasks", pa.list_(CONNECT_TASK)),
    ]
)
QUARANTINE = pa.struct(
    [
        ("error_type", _STR),
        ("error_message", _STR),
        ("error_offset", _I64),
        ("error_path", _STR),
        ("error_layer", _STR),
        ("raw", _BIN),
    ]
)
#: a committed offset an OffsetFetch response gives (codec.pipeline.admin): the topic (v10: null, its id in
#: ``topic_id``), the partition, the offset (-1: none), its leader epoch (v5+), metadata, error code
COMMITTED = pa.struct(
    [
        ("topic", _STR),
        ("topic_id", _STR),
        ("partition", _I32),
        ("offset", _I64),
        ("leader_epoch", _I32),
        ("metadata", _STR),
        ("error_code", _I32),
    ]
)
OFFSETS = pa.struct([("offsets_error_code", _I32), ("committed", pa.list_(COMMITTED))])
#: a share-partition's offset batch (ShareSnapshotValue / ShareUpdateValue's StateBatch)
STATE_BATCH = pa.struct(
    [("first_offset", _I64), ("last_offset", _I64), ("delivery_state", _I32), ("delivery_count", _I32)]
)
_S_SCALARS = [
    ("state_record", _STR),
    ("state_topic_id", _STR),
    ("state_partition", _I32),
    ("snapshot_epoch", _I32),
    ("state_epoch", _I32),
    ("state_leader_epoch", _I32),
    ("start_offset", _I64),
    ("delivery_complete_count", _I32),
    ("create_ms", _I64),
    ("write_ms", _I64),
]
SHARE_STATE = pa.struct(_S_SCALARS + [("state_batches", pa.list_(STATE_BATCH))])
_COMMON = [
    ("unit", _I32),
    ("unit_kind", _STR),
    ("canonical_kind", _STR),
    ("streams", _BOOL),
    ("consumer_protocol_version", _I32),
]
# what the bytes themselves say, over the record's context (a JoinGroup body names its group ...)
_OWN = [("u_member", _STR), ("u_group", _STR), ("u_generation", _I32), ("u_leader", _STR), ("u_protocol", _STR)]
#: the unit's fields whose strings held lone surrogates and are written escaped (codec.text.utf8_safe): flat
#: column names, ``tasks[i].topology`` / ``active[i].topology`` / ``standby[i].topology`` for a list's entry
#: (Connect's: ``connectors[i]``, ``revoked_connectors[i]``, ``connect_tasks[i].connector``,
#: ``revoked_tasks[i].connector``)
ESCAPED = pa.list_(_STR)
#: the per-kind structs, in the order of their fields among :data:`FLAT`'s columns
_KINDS = (MEMBER, ASSIGNMENT, GROUP, QUARANTINE, CONNECT, OFFSETS, SHARE_STATE)
_CONTEXT_TYPES = {"generation": _I32, "ts_ms": _I64}
#: what :func:`decode_batch` returns (the job's decoded units, one row per unit): the record's context (the
#: unit's own group, member, generation, leader and protocol over the record's; ``kind`` canonical), the
#: unit's common fields, then the fields of every kind's struct (null where the unit is of another kind)
FLAT = pa.schema(
    [
        pa.field(
            "protocol_name" if c == "protocol" else c, _CONTEXT_TYPES.get(c, _STR), c not in ("record_id", "source")
        )
        for c in CONTEXT_COLUMNS
    ]
    + [(name, t) for name, t in _COMMON if name != "canonical_kind"]
    + [("escaped", ESCAPED)]
    + [f for t in _KINDS for f in t]
)
#: the scalar fields of each kind's struct come first (its rows' tuples), then its lists
_N_SCALARS = (len(_M_SCALARS), len(_A_SCALARS), 6, 6, len(_C_SCALARS), 1, len(_S_SCALARS))
#: what :meth:`Units.table` builds: the units without their record's context
UNIT_COLUMNS = pa.schema(_COMMON + _OWN + [("escaped", ESCAPED)] + [f for t in _KINDS for f in t])
