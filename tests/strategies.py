"""Hypothesis strategies derived from the schema tables.

``wire_objects(message, version)`` walks the lowering the codec is built from (:mod:`codec.wire.lowering`) and
draws a valid wire object for that version: integers across their whole range, strings and bytes (including empty,
non-ASCII and, where nullable, null), arrays (small), nested structs and, in flexible versions, unknown
tagged fields. Model strategies for the Streams messages sit on top.
"""

from __future__ import annotations

import uuid

from hypothesis import strategies as st

from codec.types import HostInfo, TaskId, TopicPartition
from codec.wire.builder import wire_class
from codec.wire.lowering import FieldOp, lower_struct
from codec.wire.schema import StructSpec, load_message

_INT_RANGES = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
# Text a Kafka string can hold: any Unicode scalar (no lone surrogates, which UTF-8 cannot carry).
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
# writeUTF/writeChars strings may even carry lone surrogates, as Java strings can.
JAVA_TEXT = st.text(st.characters(), max_size=12)


def _int(bits: int):
    return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def _scalar(op: FieldOp, message, version: int, nullable: bool):
    t = op.kind
    if op.struct is not None:
        base = struct_objects(message, op.struct.spec, version)
    elif t in _INT_RANGES:
        base = _int(_INT_RANGES[t])
    elif t == "uint16":
        base = st.integers(0, 2**16 - 1)
    elif t == "bool":
        base = st.booleans()
    elif t == "uuid":
        base = st.uuids(version=None) | st.just(uuid.UUID(int=0))
    elif t == "string":
        base = TEXT.filter(lambda s: len(s.encode()) <= 0x7FFF)
    elif t == "javaUTF":
        base = JAVA_TEXT
    elif t == "javaChars":
        base = st.none() | JAVA_TEXT.filter(bool)
    elif t == "bytes":
        base = st.binary(max_size=24)
    else:
        raise NotImplementedError(t)
    return st.none() | base if nullable else base


def struct_objects(message, spec: StructSpec, version: int):
    """A wire object of ``spec`` at ``version``, field by field as the lowering lays the version out."""
    lowered = lower_struct(message.name, spec.name, version)
    kwargs = {}
    for op in lowered.fields:
        if op.array:
            elems = st.lists(_scalar(op, message, version, False), max_size=4).map(tuple)
            kwargs[op.name] = st.none() | elems if op.array_nullable else elems
        else:
            kwargs[op.name] = _scalar(op, message, version, op.nullable)
    if lowered.flexible:
        known = {f.tag for f in spec.fields if f.tag is not None}
        kwargs["unknown_tagged_fields"] = st.dictionaries(
            st.integers(0, 2**31 - 1).filter(lambda t: t not in known), st.binary(max_size=6), max_size=2
        )
    return st.builds(wire_class(message.name, spec.name), **kwargs)


def wire_objects(message_name: str, version: int):
    message = load_message(message_name)
    return struct_objects(message, message.root, version)


# --- Streams models --------------------------------------------------------------------------------------


def task_ids(named: bool):
    name = st.none() | (JAVA_TEXT.filter(bool) if named else st.nothing())
    return st.builds(TaskId, _int(32), _int(32), name)


topic_partitions = st.builds(TopicPartition, JAVA_TEXT, _int(32))
host_infos = st.builds(HostInfo, JAVA_TEXT, _int(32))


@st.composite
def subscription_infos(draw, version: int):
    """A SubscriptionInfo model that ``version`` can carry losslessly."""
    from codec.streams import SubscriptionInfo

    sums_values = _int(64) if version >= 7 else st.sampled_from([-2, -3])
    sums = draw(st.dictionaries(task_ids(named=version >= 10), sums_values, max_size=6))
    return SubscriptionInfo(
        version=version,
        latest_supported_version=-1 if version <= 2 else draw(st.integers(version, 2**31 - 1)),
        process_id=draw(st.uuids(version=None)),
        user_endpoint=draw(st.none() | TEXT.filter(bool)) if version >= 2 else None,
        task_offset_sums=sums,
        unique_field=draw(_int(8)) if version >= 8 else 0,
        error_code=draw(_int(32)) if version >= 9 else 0,
        client_tags=draw(st.dictionaries(TEXT, TEXT, max_size=3)) if version >= 11 else {},
    )


@st.composite
def assignment_infos(draw, version: int):
    """An AssignmentInfo model that ``version`` can carry losslessly."""
    from codec.streams import NO_REBALANCE, AssignmentInfo

    tasks = task_ids(named=version >= 10)
    parts = st.lists(topic_partitions, max_size=3).map(tuple)
    hosts = st.dictionaries(host_infos, parts, max_size=3)
    return AssignmentInfo(
        version=version,
        commonly_supported_version=draw(_int(32)) if version >= 3 else -1,
        active_tasks=tuple(draw(st.lists(tasks, max_size=5))),
        standby_tasks=draw(st.dictionaries(tasks, parts, max_size=3)),
        partitions_by_host=draw(hosts) if version >= 2 else {},
        standby_partitions_by_host=draw(hosts) if version >= 6 else {},
        error_code=draw(_int(32)) if version >= 4 else 0,
        next_rebalance_ms=draw(_int(64)) if version >= 7 else NO_REBALANCE,
    )
