"""SubscriptionInfo v1-6's two task lists and v7-9's grouped tasks, now declared by the shapes alone
(codec/streams/shapes.py: :class:`~codec.wire.shapes.Keys` for v1-6, the encode shapes' extra arguments for v1-9).

The bytes are assembled here with :mod:`struct` from the layout in ``../shared/spec/kafka-wire-facts.md`` and the
expected models follow Kafka's ``SubscriptionInfo`` (streams/.../assignment/SubscriptionInfo.java): below v7 the
running tasks (prevTasks) read as offset sum -2 (``Task.LATEST_OFFSET``) and the other stateful ones (standbyTasks)
as -3 (``UNKNOWN_OFFSET_SUM``), the standby list put second, so that a task in both lists ends as -3; from v7 the
tasks of one subtopology share one group, the groups first seen first. Each runs on the engine and on the shapes'
Python interpreter (no engine)."""

from __future__ import annotations

import struct
import uuid

import pytest

from codec.streams import SubscriptionInfo, decode_subscription, encode_subscription
from codec.types import TaskId
from tests.wire.test_native import codec

PID = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")


def _tasks(tasks: list[tuple[int, int]]) -> bytes:
    return struct.pack(">i", len(tasks)) + b"".join(struct.pack(">ii", g, p) for g, p in tasks)


def _v1_6(version: int, prev: list[tuple[int, int]], standby: list[tuple[int, int]], endpoint: bytes = b"") -> bytes:
    out = struct.pack(">i", version)
    if version >= 3:
        out += struct.pack(">i", 11)  # latestSupportedVersion
    out += PID.bytes + _tasks(prev) + _tasks(standby)
    if version >= 2:
        out += struct.pack(">i", len(endpoint)) + endpoint
    return out


def _v7(tasks: list[tuple[int, list[tuple[int, int]]]]) -> bytes:
    out = struct.pack(">ii", 7, 11) + PID.bytes + struct.pack(">i", 0)  # an empty userEndPoint, then the tasks
    out += struct.pack(">i", len(tasks))
    for g, ps in tasks:
        out += struct.pack(">ii", g, len(ps)) + b"".join(struct.pack(">iq", p, s) for p, s in ps)
    return out


@pytest.mark.parametrize("engine", ["native", "reference"])
@pytest.mark.parametrize("version", [1, 2, 3, 6])
def test_the_two_lists_are_one_dict_and_a_task_in_both_is_a_standby(engine, version):
    data = _v1_6(version, [(0, 1), (1, 0), (0, 0)], [(2, 2), (1, 0)], b"h:1" if version >= 2 else b"")
    with codec(engine):
        info = decode_subscription(data)
    assert list(info.task_offset_sums.items()) == [
        (TaskId(0, 1), -2),
        (TaskId(1, 0), -3),  # in both lists: the standby list is read second
        (TaskId(0, 0), -2),
        (TaskId(2, 2), -3),
    ]
    assert info.latest_supported_version == (11 if version >= 3 else -1)
    assert info.user_endpoint == ("h:1" if version >= 2 else None)
    assert (info.unique_field, info.error_code, info.client_tags) == (0, 0, {})


@pytest.mark.parametrize("engine", ["native", "python", "reference"])
@pytest.mark.parametrize("version", [1, 2, 3, 6])
def test_the_running_tasks_are_written_first_and_the_others_second(engine, version):
    sums = {TaskId(0, 1): -2, TaskId(1, 0): -3, TaskId(0, 0): -2, TaskId(2, 2): -3}
    info = SubscriptionInfo(version=version, latest_supported_version=11, process_id=PID, task_offset_sums=sums)
    with codec(engine):
        assert encode_subscription(info) == _v1_6(version, [(0, 1), (0, 0)], [(1, 0), (2, 2)])


@pytest.mark.parametrize("engine", ["native", "python", "reference"])
def test_v7_groups_the_tasks_by_subtopology_first_seen_first(engine):
    sums = {TaskId(3, 0): 10, TaskId(1, 2): -2, TaskId(3, 4): 7, TaskId(1, 0): 0}
    info = SubscriptionInfo(version=7, latest_supported_version=11, process_id=PID, task_offset_sums=sums)
    with codec(engine):
        data = encode_subscription(info)
        assert data == _v7([(3, [(0, 10), (4, 7)]), (1, [(2, -2), (0, 0)])])
        assert decode_subscription(data).task_offset_sums == sums


@pytest.mark.parametrize("engine", ["native", "python", "reference"])
@pytest.mark.parametrize("version", [6, 7, 9])
def test_a_named_topology_below_v10_is_refused_with_the_tasks_path(engine, version):
    info = SubscriptionInfo(version=version, latest_supported_version=11, task_offset_sums={TaskId(0, 0, "t"): -2})
    with codec(engine), pytest.raises(Exception) as e:
        encode_subscription(info)
    assert "named topologies" in str(e.value) and "task_offset_sums[t__0_0]" in str(e.value)


@pytest.mark.parametrize("engine", ["native", "reference"])
def test_an_offset_sum_v1_6_cannot_carry_is_refused_unless_dropped(engine):
    info = SubscriptionInfo(version=5, latest_supported_version=11, process_id=PID, task_offset_sums={TaskId(0, 0): 5})
    with codec(engine):
        with pytest.raises(Exception, match=r"offset sum 5 of task 0_0"):
            encode_subscription(info)
        # Kafka's constructor: any sum but -2 is "not running", a standby
        assert encode_subscription(info, drop_unrepresentable=True) == _v1_6(5, [], [(0, 0)])
