"""Worked examples E1-E14 of kafka-wire-facts.md §13 (bytes written by Kafka's own classes), with the
models built by hand from each example's description."""

from __future__ import annotations

import uuid

import pytest

from codec.errors import EncodeError
from codec.streams import (
    NO_REBALANCE,
    AssignmentInfo,
    SubscriptionInfo,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)
from codec.types import HostInfo, TaskId, TopicPartition
from tests.facts import worked_examples

E = worked_examples()
PID = uuid.UUID(int=1)
T = TaskId


def test_examples_read_from_facts_file():
    assert len(E["E1"]) == 73 and len(E["E2"]) == 52 and len(E["E14"]) == 40


SUBSCRIPTIONS = {
    "E1": SubscriptionInfo(
        version=11,
        latest_supported_version=11,
        process_id=PID,
        user_endpoint="localhost:8080",
        task_offset_sums={T(0, 0): -2},
        unique_field=1,
    ),
    "E2": SubscriptionInfo(version=7, latest_supported_version=11, process_id=PID, task_offset_sums={T(1, 2): 100}),
    "E3": SubscriptionInfo(
        version=10, latest_supported_version=11, process_id=PID, task_offset_sums={T(1, 2): 100}, unique_field=1
    ),
    "E4": SubscriptionInfo(
        version=10, latest_supported_version=11, process_id=PID, task_offset_sums={T(1, 2, "ab"): 100}, unique_field=1
    ),
    "E6": SubscriptionInfo(
        version=3,
        latest_supported_version=11,
        process_id=PID,
        user_endpoint="localhost:8080",
        task_offset_sums={T(0, 0): -2},
    ),
    "E7": SubscriptionInfo(version=1, latest_supported_version=-1, process_id=PID, task_offset_sums={T(0, 0): -2}),
    "E8": SubscriptionInfo(
        version=11, latest_supported_version=11, process_id=PID, error_code=4, unique_field=7, client_tags={"az": "a1"}
    ),
}


@pytest.mark.parametrize("name", sorted(SUBSCRIPTIONS))
def test_subscription_example(name):
    model = SUBSCRIPTIONS[name]
    assert encode_subscription(model) == E[name]
    assert decode_subscription(E[name]) == model


def test_e5_v6_cannot_carry_an_offset_sum():
    e2 = SUBSCRIPTIONS["E2"]
    with pytest.raises(EncodeError, match="offset sum 100"):
        encode_subscription(e2, 6)  # lossless by default: v6 only knows running / not running
    assert encode_subscription(e2, 6, drop_unrepresentable=True) == E["E5"]  # what Kafka writes
    assert decode_subscription(E["E5"]).task_offset_sums == {T(1, 2): -3}  # comes back as "unknown"


def test_e3_and_e2_differ_only_in_layout():
    assert encode_subscription(SUBSCRIPTIONS["E2"], 10, drop_unrepresentable=True) != E["E3"]  # uniqueField 0 vs 1


C0 = (TopicPartition("c", 0),)
H = HostInfo("h", 1)
ASSIGNMENTS = {
    "E9": AssignmentInfo(
        version=1, commonly_supported_version=-1, active_tasks=(T(0, 0),), standby_tasks={T(1, 0): C0}
    ),
    "E10": AssignmentInfo(
        version=5,
        commonly_supported_version=11,
        active_tasks=(T(0, 0),),
        standby_tasks={T(1, 0): C0},
        partitions_by_host={H: (TopicPartition("t", 0),)},
    ),
    "E11": AssignmentInfo(
        version=7,
        commonly_supported_version=11,
        active_tasks=(T(0, 0),),
        standby_tasks={T(1, 0): C0},
        partitions_by_host={H: (TopicPartition("t", 0),)},
        standby_partitions_by_host={H: ()},
    ),
    "E12": AssignmentInfo(
        version=11,
        commonly_supported_version=11,
        active_tasks=(T(0, 0),),
        standby_tasks={T(1, 0): C0},
        partitions_by_host={H: (TopicPartition("t", 0),)},
        standby_partitions_by_host={H: ()},
    ),
    "E13": AssignmentInfo(
        version=10, commonly_supported_version=11, active_tasks=(T(0, 0, "ab"),), next_rebalance_ms=0
    ),
    "E14": AssignmentInfo(version=11, commonly_supported_version=11, error_code=4, next_rebalance_ms=NO_REBALANCE),
}


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS, key=lambda n: int(n[1:])))
def test_assignment_example(name):
    model = ASSIGNMENTS[name]
    assert encode_assignment(model) == E[name]
    assert decode_assignment(E[name]) == model


def test_v8_v9_are_v7_but_for_the_version_word():
    for v in (8, 9):
        b = encode_assignment(ASSIGNMENTS["E11"], v)
        assert b[4:] == E["E11"][4:] and b[:4] == v.to_bytes(4, "big")
    assert encode_assignment(ASSIGNMENTS["E12"], 10)[4:] == E["E12"][4:]
