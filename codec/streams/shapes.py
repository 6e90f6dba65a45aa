"""SubscriptionInfo and AssignmentInfo as shapes of the native codec: bytes straight to the Streams models
and back, without wire objects (:mod:`codec.wire.native`).

Each function declares, for one version, what each struct of the schema becomes: the same conversions
as :func:`~codec.streams.subscription.subscription_from_wire` and
:func:`~codec.streams.assignment.assignment_from_wire` (and their inverses), written as data. What a shape
cannot say stays with the Python conversions, which also take over on anything unusual: a program returns
None and the model path decides and reports (``tests/streams/test_native_shapes.py`` holds both equal).

* SubscriptionInfo v7-9: the groups of (partition, offset sum) pairs fill one ``{TaskId: offset sum}``
  dict; v10-11: one pair per task, an empty topology name as none; v11's client tags a dict of UTF-8
  strings, a repeated key a miss (Kafka's decoder throws); the endpoint UTF-8, empty as none. v1-6: the two
  task lists fill one dict, each list's tasks with its constant (:class:`~codec.wire.shapes.Keys`).
* AssignmentInfo v1-11: TaskId, TopicPartition and HostInfo models; standby tasks and host maps dicts; v5+
  partitions name their topic through the dictionary (a missing index: a miss).

Encoding: SubscriptionInfo v1-11 and AssignmentInfo v1-11 from the models (the caller checks first what the
model path would refuse and computes what Kafka arranges: SubscriptionInfo v1-9's tasks, split or grouped by
subtopology; AssignmentInfo v5+'s topic dictionary).
"""

from __future__ import annotations

from functools import cache

from ..types import HostInfo, TaskId, TopicPartition
from ..wire.shapes import (
    Attr,
    Const,
    EmptyNone,
    Extra,
    Flat,
    In,
    Item,
    Key,
    KeyAttr,
    Keys,
    Lookup,
    LookupAttr,
    NewDict,
    Obj,
    Pair,
    Parent,
    Row,
    Shape,
    Value,
)
from .constants import LATEST_OFFSET, NO_REBALANCE, UNKNOWN, UNKNOWN_OFFSET_SUM
from .models import AssignmentInfo, SubscriptionInfo

__all__ = ["subscription_decode", "subscription_encode", "assignment_decode", "assignment_encode"]


@cache
def subscription_decode(version: int) -> Shape | None:
    """bytes -> SubscriptionInfo (v1-11)."""
    if not 1 <= version <= 11:
        return None
    if version <= 6:
        return _subscription_decode_v1_6(version)
    decode: dict = {}
    arrays = {"SubscriptionInfo.task_offset_sums": "dict"}
    conv = {"SubscriptionInfo.user_end_point": "utf8_or_none"}
    if version <= 9:
        decode["TaskOffsetSum"] = Flat()
        arrays["TaskOffsetSum.partition_to_offset_sum"] = "into"
        decode["PartitionToOffsetSum"] = Pair(
            Obj(
                TaskId,
                {"subtopology": Parent("topic_group_id"), "partition": "partition", "topology_name": Const(None)},
            ),
            "offset_sum",
        )
    else:
        decode["TaskOffsetSum"] = Pair(
            Obj(
                TaskId,
                {
                    "subtopology": "topic_group_id",
                    "partition": "partition",
                    "topology_name": EmptyNone("named_topology"),
                },
            ),
            "offset_sum",
        )
    if version >= 11:
        arrays["SubscriptionInfo.client_tags"] = "dict-unique"
        decode["ClientTag"] = Pair("key", "value")
        conv["ClientTag.key"] = conv["ClientTag.value"] = "utf8"
    decode["SubscriptionInfo"] = Obj(
        SubscriptionInfo,
        {
            "version": "version",
            "latest_supported_version": "latest_supported_version",
            "process_id": "process_id",
            "user_endpoint": "user_end_point",
            "task_offset_sums": "task_offset_sums",
            "unique_field": "unique_field" if version >= 8 else Const(0),
            "error_code": "error_code" if version >= 9 else Const(0),
            "client_tags": "client_tags" if version >= 11 else NewDict(),
            "future": Const(False),
        },
    )
    return Shape(f"SubscriptionInfo-decode-v{version}", decode=decode, arrays=arrays, conv=conv)


def _subscription_decode_v1_6(version: int) -> Shape:
    """v1-6: the running (prevTasks) and the other stateful tasks (standbyTasks) of one ``{TaskId: offset sum}``
    dict, as Kafka's SubscriptionInfo reads them (-2, LATEST_OFFSET, and -3, UNKNOWN_OFFSET_SUM); a task in both
    lists takes the standby's."""
    conv = {"SubscriptionInfo.user_end_point": "utf8_or_none"} if version >= 2 else {}
    decode = {
        "TaskId": Obj(
            TaskId, {"subtopology": "topic_group_id", "partition": "partition", "topology_name": Const(None)}
        ),
        "SubscriptionInfo": Obj(
            SubscriptionInfo,
            {
                "version": "version",
                "latest_supported_version": "latest_supported_version" if version >= 3 else Const(UNKNOWN),
                "process_id": "process_id",
                "user_endpoint": "user_end_point" if version >= 2 else Const(None),
                "task_offset_sums": Keys(("prev_tasks", LATEST_OFFSET), ("standby_tasks", UNKNOWN_OFFSET_SUM)),
                "unique_field": Const(0),
                "error_code": Const(0),
                "client_tags": NewDict(),
                "future": Const(False),
            },
        ),
    }
    return Shape(f"SubscriptionInfo-decode-v{version}", decode=decode, conv=conv)


@cache
def subscription_encode(version: int) -> Shape | None:
    """SubscriptionInfo -> bytes (v1-11). v1-9 take the model's tasks as the caller arranges them
    (:func:`codec.streams.subscription.task_extras`, Kafka's grouping): v1-6 two extra arguments, the running
    tasks and the others; v7-9 one, the rows ``[(subtopology, [(partition, offset sum), ...]), ...]``."""
    if not 1 <= version <= 11:
        return None
    root = {"version": Const(version), "process_id": Attr("process_id")}
    if version >= 3:
        root["latest_supported_version"] = Attr("latest_supported_version")
    if version >= 2:
        root["user_end_point"] = Attr("user_endpoint", "utf8_none_empty")
    encode: dict[str, In | Item | Row] = {}
    if version <= 6:
        root["prev_tasks"], root["standby_tasks"] = Extra(0), Extra(1)
        encode["TaskId"] = In(TaskId, {"topic_group_id": Attr("subtopology"), "partition": Attr("partition")})
    elif version <= 9:
        root["task_offset_sums"] = Extra(0)
        encode["TaskOffsetSum"] = encode["PartitionToOffsetSum"] = Row()
    else:
        root["task_offset_sums"] = Attr("task_offset_sums", items=True)
        encode["TaskOffsetSum"] = Item(
            TaskId,
            {
                "topic_group_id": KeyAttr("subtopology"),
                "partition": KeyAttr("partition"),
                "offset_sum": Value(),
                "named_topology": KeyAttr("topology_name"),
            },
        )
    if version >= 8:
        root["unique_field"] = Attr("unique_field")
    if version >= 9:
        root["error_code"] = Attr("error_code")
    if version >= 11:
        root["client_tags"] = Attr("client_tags", items=True)
        encode["ClientTag"] = Item(None, {"key": Key("utf8"), "value": Value("utf8")})
    encode["SubscriptionInfo"] = In(SubscriptionInfo, root)
    return Shape(f"SubscriptionInfo-encode-v{version}", encode=encode)


@cache
def assignment_decode(version: int) -> Shape | None:
    """bytes -> AssignmentInfo (v1-11)."""
    if not 1 <= version <= 11:
        return None
    arrays = {"AssignmentInfo.standby_tasks": "dict"}
    decode: dict = {
        "TaskId": Obj(
            TaskId,
            {
                "subtopology": "subtopology",
                "partition": "partition",
                "topology_name": EmptyNone("named_topology") if version >= 10 else Const(None),
            },
        ),
        "StandbyTask": Pair("task_id", "partitions"),
        "TopicPartition": Obj(TopicPartition, {"topic": "topic", "partition": "partition"}),
    }
    if version >= 2:
        arrays["AssignmentInfo.partitions_by_host"] = "dict"
        decode["HostPartitions"] = Pair(
            Obj(HostInfo, {"host": "host", "port": "port"}), "partitions" if version <= 4 else "indexed_partitions"
        )
    if version >= 5:
        arrays["AssignmentInfo.topic_dictionary"] = "dict"
        decode["TopicIndex"] = Pair("index", "topic")
        decode["IndexedPartition"] = Obj(
            TopicPartition, {"topic": Lookup("topic_dictionary", "topic_index"), "partition": "partition"}
        )
    if version >= 6:
        arrays["AssignmentInfo.standby_partitions_by_host"] = "dict"
    decode["AssignmentInfo"] = Obj(
        AssignmentInfo,
        {
            "version": "version",
            "commonly_supported_version": "commonly_supported_version" if version >= 3 else Const(UNKNOWN),
            "active_tasks": "active_tasks",
            "standby_tasks": "standby_tasks",
            "partitions_by_host": "partitions_by_host" if version >= 2 else NewDict(),
            "standby_partitions_by_host": "standby_partitions_by_host" if version >= 6 else NewDict(),
            "error_code": "err_code" if version >= 4 else Const(0),
            "next_rebalance_ms": "next_scheduled_rebalance_ms" if version >= 7 else Const(NO_REBALANCE),
        },
    )
    return Shape(f"AssignmentInfo-decode-v{version}", decode=decode, arrays=arrays)


@cache
def assignment_encode(version: int) -> Shape | None:
    """AssignmentInfo -> bytes (v1-11). v5+ take two extra arguments: the topic dictionary's rows
    ``[(index, topic), ...]`` and ``{topic: index}``."""
    if not 1 <= version <= 11:
        return None
    task = {"subtopology": Attr("subtopology"), "partition": Attr("partition")}
    if version >= 10:
        task["named_topology"] = Attr("topology_name")
    encode: dict = {
        "TaskId": In(TaskId, task),
        "StandbyTask": Item(TaskId, {"task_id": Key(), "partitions": Value()}),
        "TopicPartition": In(TopicPartition, {"topic": Attr("topic"), "partition": Attr("partition")}),
    }
    root = {
        "version": Const(version),
        "active_tasks": Attr("active_tasks"),
        "standby_tasks": Attr("standby_tasks", items=True),
    }
    if version >= 2:
        root["partitions_by_host"] = Attr("partitions_by_host", items=True)
        encode["HostPartitions"] = Item(
            HostInfo,
            {
                "host": KeyAttr("host"),
                "port": KeyAttr("port"),
                "partitions" if version <= 4 else "indexed_partitions": Value(),
            },
        )
    if version >= 3:
        root["commonly_supported_version"] = Attr("commonly_supported_version")
    if version >= 4:
        root["err_code"] = Attr("error_code")
    if version >= 5:
        root["topic_dictionary"] = Extra(0)
        encode["TopicIndex"] = Row()
        encode["IndexedPartition"] = In(
            TopicPartition, {"topic_index": LookupAttr("topic", 1), "partition": Attr("partition")}
        )
    if version >= 6:
        root["standby_partitions_by_host"] = Attr("standby_partitions_by_host", items=True)
    if version >= 7:
        root["next_scheduled_rebalance_ms"] = Attr("next_rebalance_ms")
    encode["AssignmentInfo"] = In(AssignmentInfo, root)
    return Shape(f"AssignmentInfo-encode-v{version}", encode=encode)
