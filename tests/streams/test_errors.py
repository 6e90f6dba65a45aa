"""Decoding rules and error reports: message, version, byte offset and field path."""

from __future__ import annotations

import tracemalloc
import uuid

import pytest

from codec.errors import DecodeError, EncodeError, LimitExceededError, TruncatedError, UnsupportedVersionError
from codec.streams import (
    AssignmentInfo,
    SubscriptionInfo,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
    peek_subscription_versions,
)
from codec.types import HostInfo, TaskId, TopicPartition
from tests.conftest import KAFKA_VECTORS, load_jsonl
from tests.facts import worked_examples

E = worked_examples()


def i32(n: int) -> bytes:
    return n.to_bytes(4, "big", signed=True)


def test_issue_example_message_format():
    # AssignmentInfo v6 by hand: version, csv, no active, no standby, dictionary {0: "t"},
    # partitionsByHost: none, standbyPartitionsByHost: 2 hosts, the second cut inside its host string.
    data = (
        i32(6)
        + i32(11)
        + i32(0)
        + i32(0)
        + i32(1)
        + i32(0)
        + b"\x00\x01t"
        + i32(0)
        + i32(2)
        + b"\x00\x01h"
        + i32(1)
        + i32(0)
        + b"\x00\x02h"
    )
    assert len(data) == 49
    with pytest.raises(TruncatedError) as ei:
        decode_assignment(data)
    e = ei.value
    assert (e.message, e.version, e.offset, e.path) == ("AssignmentInfo", 6, 48, "standby_partitions_by_host[1].host")
    assert str(e) == "AssignmentInfo v6: truncated at offset 48 in standby_partitions_by_host[1].host (need 2, have 1)"


def test_subscription_truncated_inside_grouped_offset_sums():
    data = E["E2"][:-3]  # cut inside the last offsetSum
    with pytest.raises(TruncatedError) as ei:
        decode_subscription(data)
    assert ei.value.path == "task_offset_sums[0].partition_to_offset_sum[0].offset_sum"
    assert ei.value.offset == 44 and "need 8, have 5" in str(ei.value)


def test_peek_versions_without_a_full_parse():
    assert peek_subscription_versions(E["E2"][:8]) == (7, 11)
    assert peek_subscription_versions(E["E7"][:4]) == (1, -1)
    with pytest.raises(TruncatedError):
        peek_subscription_versions(b"\x00\x00\x00\x07\x00")


def test_future_subscription_is_a_version_probe():
    info = decode_subscription(i32(12) + i32(13) + b"\xde\xad")
    assert info.is_version_probe and (info.version, info.latest_supported_version) == (12, 13)
    assert info.task_offset_sums == {} and info.process_id == uuid.UUID(int=0) and info.user_endpoint is None
    d = decode_subscription(i32(12) + i32(13) + b"\xde\xad", detail=True)
    assert d.trailing == 2 and d.wire is None


@pytest.mark.parametrize("version", [0, -1, -2147483648])
def test_subscription_version_below_one(version):
    with pytest.raises(UnsupportedVersionError) as ei:
        decode_subscription(i32(version) + bytes(40))
    assert ei.value.offset == 0 and ei.value.path == "version"


def test_latest_supported_version_rule():
    ok = bytearray(E["E6"])  # v3, lsv 11
    ok[4:8] = i32(2)  # lsv below version
    with pytest.raises(DecodeError, match="between 1 and 2"):
        decode_subscription(bytes(ok))
    ok[4:8] = i32(-1)  # -1 only for v1-2
    with pytest.raises(DecodeError):
        decode_subscription(bytes(ok))


@pytest.mark.parametrize("version", [0, 12, -1, 2**31 - 1])
def test_assignment_outside_1_to_11_is_an_error(version):
    with pytest.raises(UnsupportedVersionError, match="latest supported version 11"):
        decode_assignment(i32(version) + i32(11) + bytes(32))


def test_trailing_bytes_are_reported_not_fatal():
    d = decode_subscription(E["E2"] + b"xyz", detail=True)
    assert d.trailing == 3 and d.consumed == len(E["E2"])
    a = decode_assignment(E["E14"] + b"\x00", detail=True)
    assert a.trailing == 1 and a.info.error_code == 4


def test_empty_endpoint_is_null():
    info = SubscriptionInfo(version=7, process_id=uuid.UUID(int=1), user_endpoint="")
    assert decode_subscription(encode_subscription(info)).user_endpoint is None


def test_v1_to_v6_map_prev_and_standby_to_sentinels():
    info = decode_subscription(E["E6"])
    assert info.task_offset_sums == {TaskId(0, 0): -2}
    assert info.prev_tasks == {TaskId(0, 0)} and info.standby_tasks == frozenset()


def test_unknown_topic_index_names_its_field_and_offset():
    data = bytearray(E["E10"])
    # E10: ... dictionary {0: "t"}, one host with partition (topicIndex 0, partition 0): point it at 5.
    idx = data.index(bytes.fromhex("000168000000010000000100000000"))  # host "h", port 1, count 1, index 0
    data[idx + 11 : idx + 15] = i32(5)
    with pytest.raises(DecodeError) as ei:
        decode_assignment(bytes(data))
    assert ei.value.path == "partitions_by_host[0].indexed_partitions[0].topic_index"
    assert ei.value.offset == idx + 11 and ei.value.version == 5


def test_malformed_modified_utf8():
    data = bytearray(E["E9"])
    i = data.index(b"\x00\x01c")
    data[i + 2] = 0xF0  # 4-byte UTF-8 lead bytes are not modified UTF-8
    with pytest.raises(DecodeError, match="malformed modified UTF-8") as ei:
        decode_assignment(bytes(data))
    assert ei.value.offset == i + 2 and ei.value.path == "standby_tasks[0].partitions[0].topic"


def test_modified_utf8_nul_and_supplementary_characters():
    info = AssignmentInfo(version=4, standby_tasks={TaskId(0, 0): (TopicPartition("a\x00\U0001f600", 1),)})
    raw = encode_assignment(info)
    assert bytes.fromhex("61c080eda0bdedb880") in raw  # NUL as C0 80, U+1F600 as two 3-byte surrogates
    assert decode_assignment(raw) == info


def test_named_topology_chars():
    raw = E["E13"]
    assert bytes.fromhex("0000000200610062") in raw
    assert decode_assignment(raw).active_tasks == (TaskId(0, 0, "ab"),)


@pytest.mark.parametrize("msg,count_offset", [("SubscriptionInfo", 28), ("AssignmentInfo", 8)])
def test_huge_count_is_rejected_without_allocating(msg, count_offset):
    if msg == "SubscriptionInfo":
        data = i32(7) + i32(11) + bytes(16) + i32(0) + i32(2_000_000_000)
        decode = decode_subscription
    else:
        data = i32(7) + i32(11) + i32(2_000_000_000)
        decode = decode_assignment
    with pytest.raises(LimitExceededError):  # warm the caches (compiled structures) outside the measurement
        decode(data)
    tracemalloc.start()
    try:
        with pytest.raises(LimitExceededError) as ei:
            decode(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert ei.value.offset == count_offset
    assert peak < 200_000  # bytes: nothing in proportion to the claimed count


def test_strict_encoding_refuses_what_a_version_cannot_carry():
    base = dict(process_id=uuid.UUID(int=1), latest_supported_version=11)
    with pytest.raises(EncodeError, match="user_endpoint"):
        encode_subscription(SubscriptionInfo(version=1, user_endpoint="h:1", **base))
    with pytest.raises(EncodeError, match="unique_field"):
        encode_subscription(SubscriptionInfo(version=7, unique_field=3, **base))
    with pytest.raises(EncodeError, match="error_code"):
        encode_subscription(SubscriptionInfo(version=8, error_code=4, **base))
    with pytest.raises(EncodeError, match="client_tags"):
        encode_subscription(SubscriptionInfo(version=10, client_tags={"a": "b"}, **base))
    with pytest.raises(EncodeError, match="named topologies"):
        encode_subscription(
            SubscriptionInfo(version=9, task_offset_sums={TaskId(0, 0, "x"): 1}, **base), drop_unrepresentable=True
        )
    with pytest.raises(EncodeError, match="next_rebalance_ms"):
        encode_assignment(AssignmentInfo(version=6, next_rebalance_ms=0))
    with pytest.raises(EncodeError, match="standby_partitions_by_host"):
        encode_assignment(AssignmentInfo(version=5, standby_partitions_by_host={HostInfo("h", 1): ()}))
    with pytest.raises(EncodeError, match="error_code"):
        encode_assignment(AssignmentInfo(version=3, error_code=1))
    with pytest.raises(EncodeError, match="named topologies"):
        encode_assignment(AssignmentInfo(version=9, active_tasks=(TaskId(0, 0, "x"),)), drop_unrepresentable=True)


def test_encode_range_errors_name_the_field():
    with pytest.raises(EncodeError) as ei:
        encode_assignment(AssignmentInfo(version=4, active_tasks=(TaskId(2**31, 0),)))
    assert "active_tasks[0].subtopology" in str(ei.value)


EDGE = [
    r
    for f in ("subscription_edge.jsonl", "assignment_edge.jsonl")
    for r in load_jsonl(KAFKA_VECTORS / f)
    if "hex" in r and "error" not in r and not r.get("decoded", {}).get("futureVersion")
]


@pytest.mark.parametrize("r", EDGE, ids=lambda r: r["id"])
def test_every_truncation_of_kafka_edge_vectors(r):
    data = bytes.fromhex(r["hex"])
    decode = decode_subscription if r["kind"] == "subscription" else decode_assignment
    for cut in range(len(data)):
        with pytest.raises(DecodeError):
            decode(data[:cut])


def test_metadata_above_the_maximum_is_refused_clearly():
    from codec.group import decode_consumer
    from codec.streams.constants import DEFAULT_MAX_METADATA_SIZE

    assert DEFAULT_MAX_METADATA_SIZE == 1_048_588  # Kafka's default message.max.bytes
    big = E["E2"] + bytes(DEFAULT_MAX_METADATA_SIZE)  # valid message, then trailing bytes past the limit
    for decode in (decode_subscription, lambda b, **kw: decode_consumer("ConsumerProtocolSubscription", b, **kw)):
        with pytest.raises(LimitExceededError, match="exceed the maximum of 1048588"):
            decode(big)
    d = decode_subscription(big, max_size=len(big), detail=True)  # configurable
    assert d.trailing == DEFAULT_MAX_METADATA_SIZE
    with pytest.raises(LimitExceededError):
        decode_assignment(E["E11"] + bytes(DEFAULT_MAX_METADATA_SIZE))
