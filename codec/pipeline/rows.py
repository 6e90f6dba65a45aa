"""The executors' fast path for the two commonest kinds: SubscriptionInfo and AssignmentInfo bytes
straight to the fields of their output rows, without the codec's models.

The model decode (:func:`codec.streams.decode_subscription` / :func:`~codec.streams.decode_assignment`)
builds a version-independent object -- ``TaskId`` and ``TopicPartition`` values, host maps of every
partition -- that the job would only take apart again: a row needs the tasks, the standby partition
*counts* and the number of distinct hosts. So the rows are a *projection* of the models' own decode shapes
(:mod:`codec.streams.shapes`, the one declaration of each mapping; :func:`codec.wire.shapes.project`): the same
arrays filling the same dicts (v1-6's two task lists one dict, -2 and -3; a duplicate task keeping its first
position and its last value), the same conversions (an empty endpoint or topology name null, client tags UTF-8 and
unique), the same lookups (every v5+ host-map partition names a topic of the dictionary) -- with tuples where the
models have objects, and counts where a row keeps only a number (hosts once per (host, port)).

With the native codec the engine runs the projected shape straight from the bytes (:mod:`codec.wire.native`);
otherwise the same shape compiled to Python runs over the row tuples of the generated fast path
(:func:`codec.wire.shapes.compiled`). It is a
fast path in the codec's sense: it *returns None* on anything unusual (a version probe, a version outside 1-11, a
truncated or malformed buffer, invalid UTF-8, a duplicate tag key, an unknown topic index, the fast path turned
off ...) and the caller decodes the record through the models (:func:`codec.pipeline.records.decode_record`), which
decide -- and report the error with its offset and field path. ``tests/pipeline/test_rows.py`` holds the rows of
both paths equal on every Kafka vector, every handcrafted vector and generated inputs.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from functools import cache

from ..streams.constants import (
    DEFAULT_MAX_METADATA_SIZE,
    LATEST_SUPPORTED_VERSION,
    UNKNOWN,
)
from ..streams.models import AssignmentInfo, SubscriptionInfo
from ..streams.shapes import assignment_decode, subscription_decode
from ..types import HostInfo, TaskId, TopicPartition
from ..wire import fastpath, native
from ..wire.native import ACTIVE
from ..wire.shapes import Const, Flat, Lookup, NewDict, Pair, Shape, Tuple, project
from ..wire.shapes_python import compiled

__all__ = ["subscription_fields", "assignment_fields", "subscription_rows", "assignment_rows"]


_I = struct.Struct(">i")
_II = struct.Struct(">ii")


def _interpreted(message: str, version: int, data: bytes, shape: Shape, make: Callable | None) -> tuple | None:
    """Without the native codec: ``shape`` compiled to Python (:func:`codec.wire.shapes.compiled`) over the row
    tuples of ``data`` (:func:`codec.wire.fastpath.row_decoder`), or None on anything unusual."""
    decode = fastpath.row_decoder(message, version)
    if decode is None:
        return None
    try:
        value = compiled(shape, message, version, rows=True)(decode(data, 0)[0])
    except Exception:  # noqa: BLE001 - anything at all: the model path decides and reports
        return None
    return make(value) if make is not None else value


def _task_row(task: dict, value) -> Pair:
    """A task keyed (subtopology, partition, topology), its value the whole row: the dict's values are the
    rows in first-seen order with the last value, as the models' dict keeps them."""
    key = (task["subtopology"], task["partition"], task["topology_name"])
    return Pair(Tuple(*key), Tuple(*key, value, Const(None)))


def _subscription_root(slots: dict) -> Tuple:
    """The row's (member fields of :func:`subscription_fields`, tasks, client tags); the client fields (rack,
    instance id, client id and host) are a ConsumerProtocol's: none."""
    fields = [slots[n] for n in ("process_id", "version", "latest_supported_version", "user_endpoint")]
    fields += [slots["unique_field"], slots["error_code"], Const(False)] + [Const(None)] * 4
    tags = slots["client_tags"]
    return Tuple(Tuple(*fields), slots["task_offset_sums"], Const(None) if isinstance(tags, NewDict) else tags)


@cache
def _subscription_shape(version: int) -> Shape:
    """SubscriptionInfo bytes -> (the member fields of :func:`subscription_fields`, tasks, client tags): the
    model's decode shape (:func:`codec.streams.shapes.subscription_decode`) projected onto the row -- a task a
    key tuple and its row (the rows in first-seen order with their last value), the tags' items (None when there
    are none), the process id as text. v1-6's task dict (of the two lists) is made rows by :func:`_v6_rows`."""
    model = subscription_decode(version)
    assert model is not None
    return project(
        model,
        f"pipeline-SubscriptionInfo-v{version}",
        objs={
            TaskId: lambda t: Tuple(t["subtopology"], t["partition"], t["topology_name"]),
            SubscriptionInfo: _subscription_root,
        },
        pairs={TaskId: _task_row},
        then={"SubscriptionInfo.task_offset_sums": "values", "SubscriptionInfo.client_tags": "items"},
        conv={"SubscriptionInfo.process_id": "uuid_text"},
    )


def _v6_rows(value: tuple, end: int = 0, trailing: int = 0) -> tuple:
    """A v1-6 shape's value with its task dict (the two lists' tasks, a task in both keeping its first position
    and its standby value) made rows."""
    fields, sums, tags = value
    return fields, [(*k, v, None) for k, v in sums.items()], tags


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
    return _interpreted("SubscriptionInfo", version, data, _subscription_shape(version), _subscription_make(version))


def _assignment_root(slots: dict) -> Tuple:
    """The row's (assignment fields, active task rows, standby task rows) of :func:`assignment_fields`."""
    hosts = slots["partitions_by_host"]
    fields = (slots["version"], slots["commonly_supported_version"], slots["error_code"], slots["next_rebalance_ms"])
    return Tuple(
        Tuple(*fields, Const(0) if isinstance(hosts, NewDict) else hosts), slots["active_tasks"], slots["standby_tasks"]
    )


@cache
def _assignment_shape(version: int) -> Shape:
    """AssignmentInfo bytes -> :func:`assignment_fields`'s value: the model's decode shape
    (:func:`codec.streams.shapes.assignment_decode`) projected onto the row -- the active task rows with their
    partition slots counted, the standby task rows with their partitions' number, the number of distinct hosts;
    partitions read and checked (v5+: against the topic dictionary), no objects built."""
    model = assignment_decode(version)
    assert model is not None
    counted = {"StandbyTask.partitions": "count", "AssignmentInfo.active_tasks": "counts:rows"}
    decode: dict = {}
    if version >= 2:
        counted["HostPartitions.partitions" if version <= 4 else "HostPartitions.indexed_partitions"] = "count"
    if version >= 5:  # the dictionary's topics are not kept: only its indexes are looked up
        decode["TopicIndex"] = Pair("index", Const(None))
    return project(
        model,
        f"pipeline-AssignmentInfo-v{version}",
        objs={
            TaskId: lambda t: Tuple(t["subtopology"], t["partition"], t["topology_name"]),
            TopicPartition: lambda p: Flat(*(x for x in p.values() if isinstance(x, Lookup))),
            AssignmentInfo: _assignment_root,
        },
        pairs={HostInfo: lambda host, _: Pair(Tuple(host["host"], host["port"]), Const(None))},
        then={"AssignmentInfo.standby_tasks": "rows", "AssignmentInfo.partitions_by_host": "len"},
        arrays=counted,
        decode=decode,
    )


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
    return _interpreted("AssignmentInfo", version, data, _assignment_shape(version), None)


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
