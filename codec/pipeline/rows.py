"""The executors' fast path for the two commonest kinds: SubscriptionInfo and AssignmentInfo bytes
straight to the fields of their output rows, without the codec's models.

The model decode (:func:`codec.streams.decode_subscription` / :func:`~codec.streams.decode_assignment`)
builds a version-independent object -- ``TaskId`` and ``TopicPartition`` values, host maps of every
partition -- that the job would only take apart again: a row needs the tasks, the standby partition
*counts* and the number of distinct hosts. This module keeps exactly what the rows hold, applying the same
rules as the model conversion: v1-6 task lists become offset sums -2/-3, a duplicate task keeps its
first position and its last value (a dict, as in the models), an empty endpoint or topology name is null, client tags
are UTF-8 and unique, every v5+ host-map partition names a topic of the dictionary, hosts are counted
once per (host, port).

With the native codec the bytes are decoded by a shape of their own (:mod:`codec.wire.native`): the
member's fields, the task rows keyed for the dict semantics, the client tags, the distinct hosts, straight
from the bytes; otherwise it reads the rows of :func:`codec.wire.fastpath.row_decoder` (tuples in wire order,
no wire objects). It is a fast path in the codec's sense: it *returns None* on anything unusual (a version
probe, a version outside 1-11, a truncated or malformed buffer, invalid UTF-8, a duplicate tag key, an
unknown topic index, the fast path turned off ...) and the caller decodes the record through the models
(:func:`codec.pipeline.records.decode_record`), which decide -- and report the error with its offset and
field path. ``tests/pipeline/test_rows.py`` holds the rows of both paths equal on every Kafka vector,
every handcrafted vector and generated inputs.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable
from functools import cache

from ..streams.constants import (
    DEFAULT_MAX_METADATA_SIZE,
    LATEST_OFFSET,
    LATEST_SUPPORTED_VERSION,
    NO_REBALANCE,
    UNKNOWN,
    UNKNOWN_OFFSET_SUM,
)
from ..wire import fastpath, native
from ..wire.builder import wire_class
from ..wire.native import ACTIVE
from ..wire.shapes import Const, EmptyNone, Flat, Lookup, Pair, Parent, Shape, Tuple
from ..wire.schema import load_message

__all__ = ["subscription_fields", "assignment_fields", "subscription_rows", "assignment_rows"]


_I = struct.Struct(">i")
_II = struct.Struct(">ii")


@cache
def _layout(message: str, version: int) -> tuple[dict, dict]:
    """``({field: index in the row}, {field: default})`` of one version: a field the version lacks takes
    the wire model's default, as in the models."""
    root = load_message(message).root
    index = {f.py_name: i for i, f in enumerate(root.fields_at(version))}
    defaults = {
        f.name: f.default
        for f in dataclasses.fields(wire_class(message, root.name))
        if f.default is not dataclasses.MISSING
    }
    return index, defaults


_DECODERS: dict[tuple[str, int], Callable[[bytes, int], tuple]] = {}


def _decode_row(message: str, version: int, data: bytes) -> tuple | None:
    """``(row, layout)`` of ``data`` at ``version``, or None: no row decoder (the fast path is off, or
    turned on later: a missing decoder is not kept) or anything unusual in the bytes."""
    decode = _DECODERS.get((message, version))
    if decode is None:
        decode = fastpath.row_decoder(message, version)
        if decode is None:
            return None
        _DECODERS[(message, version)] = decode
    try:
        return decode(data, 0)[0], _layout(message, version)
    except Exception:  # noqa: BLE001 - anything at all: the model path decides and reports
        return None


def _get(row: tuple, layout: tuple, name: str):
    i = layout[0].get(name)
    return row[i] if i is not None else layout[1].get(name)


def _task_row(sub, part, topology, value) -> Pair:
    """A task keyed (subtopology, partition, topology), its value the whole row: the dict's values are the
    rows in first-seen order with the last value, as the models' dict keeps them."""
    return Pair(Tuple(sub, part, topology), Tuple(sub, part, topology, value, Const(None)))


@cache
def _subscription_shape(version: int) -> Shape:
    """SubscriptionInfo bytes -> (the member fields of :func:`subscription_fields`, tasks, client tags), the
    tasks and tags in their final form from v7 (the task rows in first-seen order with their last value; the
    tags' items, None when there are none); v1-6: the two task lists, made rows by :func:`_v6_rows`."""
    decode: dict = {}
    arrays: dict = {}
    conv = {"SubscriptionInfo.process_id": "uuid_text"}
    if version >= 2:
        conv["SubscriptionInfo.user_end_point"] = "utf8_or_none"
    if version <= 6:  # two task lists: their rows are made below
        decode["TaskId"] = Tuple("topic_group_id", "partition")
        tasks: Tuple | str = Tuple("prev_tasks", "standby_tasks")
    else:
        arrays["SubscriptionInfo.task_offset_sums"] = "dict:values"
        tasks = "task_offset_sums"
        if version <= 9:
            decode["TaskOffsetSum"] = Flat()
            arrays["TaskOffsetSum.partition_to_offset_sum"] = "into"
            decode["PartitionToOffsetSum"] = _task_row(Parent("topic_group_id"), "partition", Const(None), "offset_sum")
        else:
            decode["TaskOffsetSum"] = _task_row(
                "topic_group_id", "partition", EmptyNone("named_topology"), "offset_sum"
            )
    if version >= 11:
        arrays["SubscriptionInfo.client_tags"] = "dict-unique:items"
        decode["ClientTag"] = Pair("key", "value")
        conv["ClientTag.key"] = conv["ClientTag.value"] = "utf8"
    # the row's member fields as subscription_fields returns them (the client ones: a ConsumerProtocol's, none)
    fields = Tuple(
        "process_id",
        "version",
        "latest_supported_version" if version >= 3 else Const(UNKNOWN),
        "user_end_point" if version >= 2 else Const(None),
        "unique_field" if version >= 8 else Const(0),
        "error_code" if version >= 9 else Const(0),
        Const(False),
        Const(None),
        Const(None),
        Const(None),
        Const(None),
    )
    decode["SubscriptionInfo"] = Tuple(fields, tasks, "client_tags" if version >= 11 else Const(None))
    return Shape(f"pipeline-SubscriptionInfo-v{version}", decode=decode, arrays=arrays, conv=conv)


def _v6_rows(value: tuple, end: int = 0, trailing: int = 0) -> tuple:
    """A v1-6 shape's value with its two task lists made rows: previous tasks' offset sum -2, standby
    tasks' -3, a task in both keeping its first position and its standby value (a dict, as in the models)."""
    fields, (prev, standby), tags = value
    sums: dict = {}
    for sub, part in prev:
        sums[(sub, part, None)] = (sub, part, None, LATEST_OFFSET, None)
    for sub, part in standby:
        sums[(sub, part, None)] = (sub, part, None, UNKNOWN_OFFSET_SUM, None)
    return fields, list(sums.values()), tags


#: version -> the native decoder of that version's shape (the value alone), once a call has made it
_NATIVE_SUBSCRIPTION = native.fast_table()
_NATIVE_ASSIGNMENT = native.fast_table()


def _native_decoder(table: dict, message: str, version: int, shape: Shape, make=None):
    """``table[version]``: the bound program of ``shape`` (None where there is none)."""
    decode = table.get(version)
    if decode is None:
        prog = native.program(message, version, shape=shape)
        if prog is None:
            return None
        decode = table[version] = native.bound(prog, make)
    return decode


def _subscription_make(version: int):
    """What a version's shape value still needs made of it: v1-6's two task lists merged (:func:`_v6_rows`)."""
    return _v6_rows if version <= 6 else None


def _native_subscription(data: bytes, version: int) -> tuple | None:
    decode = _NATIVE_SUBSCRIPTION.get(version) or _native_decoder(
        _NATIVE_SUBSCRIPTION, "SubscriptionInfo", version, _subscription_shape(version), _subscription_make(version)
    )
    return decode(data) if decode is not None else None


def subscription_fields(data: bytes) -> tuple | None:
    """``(member fields, tasks, client tags)`` of SubscriptionInfo bytes, or None (use the models).

    member fields: process id (UUID text), version, latest supported version, endpoint, unique field,
    error code, is-version-probe (always False here: probes take the model path), then rack, group
    instance id, client id and client host (None: a bare SubscriptionInfo has none); tasks: a list of
    ``(subtopology, partition, topology, offset sum, None)`` (the end offset sum: not in SubscriptionInfo); client tags: a list of ``(key, value)`` or None."""
    n = len(data)
    if n < 8 or n > DEFAULT_MAX_METADATA_SIZE or not (ACTIVE[0] or fastpath.enabled()):
        return None
    version, lsv = _II.unpack_from(data)
    if not 1 <= version <= LATEST_SUPPORTED_VERSION:
        return None
    if version <= 2:
        lsv = UNKNOWN
    elif not version <= lsv:
        return None
    if ACTIVE[0]:
        return _native_subscription(data, version)
    got = _decode_row("SubscriptionInfo", version, data)
    if got is None:
        return None
    w, layout = got
    index = layout[0]
    try:
        sums: dict = {}
        if version <= 6:
            for sub, part in w[index["prev_tasks"]]:
                sums[(sub, part, None)] = LATEST_OFFSET
            for sub, part in w[index["standby_tasks"]]:
                sums[(sub, part, None)] = UNKNOWN_OFFSET_SUM
        elif version <= 9:
            for sub, pairs in w[index["task_offset_sums"]]:
                for part, offset_sum in pairs:
                    sums[(sub, part, None)] = offset_sum
        else:
            for sub, part, offset_sum, named in w[index["task_offset_sums"]]:
                sums[(sub, part, named or None)] = offset_sum  # an empty name is none (Kafka's TaskId)
        tags = None
        if version >= 11 and w[index["client_tags"]]:
            seen: dict = {}
            for key, value in w[index["client_tags"]]:
                key = key.decode("utf-8")
                if key in seen:
                    return None
                seen[key] = value.decode("utf-8")
            tags = list(seen.items())
        raw_endpoint = _get(w, layout, "user_end_point")
        endpoint = raw_endpoint.decode("utf-8") if raw_endpoint else None
    except Exception:  # noqa: BLE001 - anything at all: the model path decides and reports
        return None
    # (the row's client fields -- rack, instance id, client id and host -- are a ConsumerProtocol's: none)
    fields = (
        str(w[index["process_id"]]),
        version,
        lsv,
        endpoint,
        _get(w, layout, "unique_field"),
        _get(w, layout, "error_code"),
        False,
        None,
        None,
        None,
        None,
    )
    return fields, [(*k, v, None) for k, v in sums.items()], tags  # (no end offset sum in SubscriptionInfo)


@cache
def _assignment_shape(version: int) -> Shape:
    """AssignmentInfo bytes -> :func:`assignment_fields`'s value: (version, commonly supported version, error
    code, next rebalance, distinct hosts), the active task rows with their partition slots counted, the standby
    task rows with their partitions' number; v5+ partitions checked against the topic dictionary."""
    decode: dict = {
        "TaskId": Tuple("subtopology", "partition", EmptyNone("named_topology") if version >= 10 else Const(None)),
        "StandbyTask": Pair("task_id", "partitions"),
    }
    # partitions are only counted (standby) or not kept (host maps): read and checked, no objects built
    decode["TopicPartition"] = Flat()
    arrays = {
        "AssignmentInfo.standby_tasks": "dict:rows",
        "StandbyTask.partitions": "count",
        "AssignmentInfo.active_tasks": "counts:rows",
    }
    if version >= 2:
        arrays["AssignmentInfo.partitions_by_host"] = "dict:len"
        arrays["HostPartitions.partitions" if version <= 4 else "HostPartitions.indexed_partitions"] = "count"
        decode["HostPartitions"] = Pair(Tuple("host", "port"), Const(None))
    if version >= 5:
        arrays["AssignmentInfo.topic_dictionary"] = "dict"
        decode["TopicIndex"] = Pair("index", Const(None))
        decode["IndexedPartition"] = Flat(Lookup("topic_dictionary", "topic_index"))  # an unknown index: a miss
    if version >= 6:
        arrays["AssignmentInfo.standby_partitions_by_host"] = "dict"
    fields = Tuple(
        "version",
        "commonly_supported_version" if version >= 3 else Const(UNKNOWN),
        "err_code" if version >= 4 else Const(0),
        "next_scheduled_rebalance_ms" if version >= 7 else Const(NO_REBALANCE),
        "partitions_by_host" if version >= 2 else Const(0),
    )
    decode["AssignmentInfo"] = Tuple(fields, "active_tasks", "standby_tasks")
    return Shape(f"pipeline-AssignmentInfo-v{version}", decode=decode, arrays=arrays)


def _native_assignment(data: bytes, version: int) -> tuple | None:
    decode = _NATIVE_ASSIGNMENT.get(version) or _native_decoder(
        _NATIVE_ASSIGNMENT, "AssignmentInfo", version, _assignment_shape(version)
    )
    return decode(data) if decode is not None else None


def assignment_fields(data: bytes) -> tuple | None:
    """``(assignment fields, active, standby)`` of AssignmentInfo bytes, or None (use the models).

    assignment fields: version, commonly supported version, error code, next rebalance time, number of
    distinct hosts in the active host map; active: ``(subtopology, partition, topology, partitions)``
    per task in first-seen order, ``partitions`` counting its entries in the positional list; standby:
    the same with the number of standby partitions."""
    n = len(data)
    if n < 4 or n > DEFAULT_MAX_METADATA_SIZE or not (ACTIVE[0] or fastpath.enabled()):
        return None
    (version,) = _I.unpack_from(data)
    if not 1 <= version <= LATEST_SUPPORTED_VERSION:
        return None
    if ACTIVE[0]:
        return _native_assignment(data, version)
    got = _decode_row("AssignmentInfo", version, data)
    if got is None:
        return None
    w, layout = got
    index = layout[0]
    try:
        hosts = _get(w, layout, "partitions_by_host") or ()
        if version >= 5:
            known = {i for i, _ in w[index["topic_dictionary"]]}
            used = [t for _, _, parts in hosts for t, _ in parts]
            used += [t for _, _, parts in _get(w, layout, "standby_partitions_by_host") or () for t, _ in parts]
            if not known.issuperset(used):
                return None
        active: dict = {}
        for t in w[index["active_tasks"]]:
            active[t] = active.get(t, 0) + 1
        standby = {t: len(parts) for t, parts in w[index["standby_tasks"]]}
        n_hosts = len({(h, p) for h, p, _ in hosts})
    except Exception:  # noqa: BLE001 - anything at all: the model path decides and reports
        return None
    fields = (
        version,
        w[index["commonly_supported_version"]] if version >= 3 else UNKNOWN,
        _get(w, layout, "err_code"),
        _get(w, layout, "next_scheduled_rebalance_ms"),
        n_hosts,
    )
    if version >= 10:  # task tuples carry their named topology
        return fields, [(*k, c) for k, c in active.items()], [(*k, c) for k, c in standby.items()]
    return fields, [(s, p, None, c) for (s, p), c in active.items()], [(s, p, None, c) for (s, p), c in standby.items()]


def _filled(table: dict, message: str, shape: Callable[[int], Shape], make: Callable[[int], Callable | None]) -> dict:
    """``table`` with the native decoder of every version 1 .. latest that has one (made once, the first call
    that finds one missing; none while the native codec is off)."""
    if len(table) < LATEST_SUPPORTED_VERSION and ACTIVE[0]:
        for version in range(1, LATEST_SUPPORTED_VERSION + 1):
            _native_decoder(table, message, version, shape(version), make(version))
    return table


def subscription_rows(datas: list) -> list:
    """:func:`subscription_fields` of each of ``datas`` (None: use the models; None too for what is not
    ``bytes``), in one call into the native codec: what a batch of records takes
    (:func:`codec.pipeline.arrow.decode_batch`)."""
    table = _filled(_NATIVE_SUBSCRIPTION, "SubscriptionInfo", _subscription_shape, _subscription_make)
    got = native.each(table, datas, 4, DEFAULT_MAX_METADATA_SIZE, subscription_fields)
    # a version probe (v3+: a version above the latest supported one) takes the models
    return [None if r is None or 3 <= r[0][1] > r[0][2] else r for r in got]


def assignment_rows(datas: list) -> list:
    """:func:`assignment_fields` of each of ``datas`` (None: use the models), in one call into the native codec."""
    table = _filled(_NATIVE_ASSIGNMENT, "AssignmentInfo", _assignment_shape, lambda v: None)
    return native.each(table, datas, 4, DEFAULT_MAX_METADATA_SIZE, assignment_fields)
