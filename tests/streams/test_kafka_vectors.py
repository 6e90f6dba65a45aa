"""Every Kafka-written SubscriptionInfo and AssignmentInfo vector, through the Python API.

Expected values are Kafka's own: ``decoded`` is what Kafka's decoder returned for ``hex``; ``hex`` is
what Kafka's encoder wrote for ``data``; ``error`` is where Kafka refused. Order is ignored only for the
collections the vectors' README names (Java HashMap/HashSet order)."""

from __future__ import annotations

import json

import pytest

from codec.errors import DecodeError, EncodeError
from codec.streams import (
    assignment_from_json,
    assignment_json,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
    subscription_from_json,
    subscription_json,
)
from tests.conftest import KAFKA_VECTORS, load_jsonl, record_id


def _sorted(items):
    return sorted(items, key=lambda x: json.dumps(x, sort_keys=True))


def normalize_subscription(d: dict) -> dict:
    """Sort what Kafka writes in HashMap/HashSet order: task collections and client tags (v1-9 on the
    wire, every version in the decoded view)."""
    d = dict(d)
    for k in ("prevTasks", "standbyTasks", "taskOffsetSums"):
        d[k] = _sorted(d[k])
    if "wire" in d:
        w = dict(d["wire"])
        for k in ("prevTasks", "standbyTasks", "clientTags"):
            if k in w:
                w[k] = _sorted(w[k])
        if "taskOffsetSums" in w:
            w["taskOffsetSums"] = _sorted(
                {**x, "partitionToOffsetSum": _sorted(x["partitionToOffsetSum"])} if "partitionToOffsetSum" in x else x
                for x in w["taskOffsetSums"]
            )
        d["wire"] = w
    return d


def normalize_assignment(d: dict) -> dict:
    """Sort the set- and map-valued collections; activeTasks stays positional."""
    d = dict(d)
    for k in ("standbyTasks", "partitionsByHost", "standbyPartitionsByHost"):
        d[k] = _sorted({**e, "partitions": _sorted(e["partitions"])} for e in d[k])
    return d


def byte_equality_holds(kind: str, version: int, data: dict) -> bool:
    """Where the vectors' README says Kafka's bytes are reproducible: SubscriptionInfo v10-11 apart from
    client-tag order, AssignmentInfo v1-4."""
    if kind == "subscription":
        return version >= 10 and len(data.get("clientTags") or {}) <= 1
    return version <= 4


SUB = [r for f in ("subscription.jsonl", "subscription_edge.jsonl") for r in load_jsonl(KAFKA_VECTORS / f)]
ASG = [r for f in ("assignment.jsonl", "assignment_edge.jsonl") for r in load_jsonl(KAFKA_VECTORS / f)]


def test_vector_counts():
    # 50 random cases per version 1-11 plus the edge files, as the vectors' README describes.
    assert len(SUB) == 550 + 76
    assert len(ASG) == 550 + 57


@pytest.mark.parametrize("r", [r for r in SUB if "hex" in r], ids=record_id)
def test_subscription_decodes_as_kafka(r):
    data = bytes.fromhex(r["hex"])
    if "error" in r:
        with pytest.raises(DecodeError):
            decode_subscription(data)
        return
    d = decode_subscription(data, detail=True)
    assert normalize_subscription(subscription_json(d.info, d.wire)) == normalize_subscription(r["decoded"])


@pytest.mark.parametrize("r", [r for r in SUB if "data" in r], ids=record_id)
def test_subscription_encodes_as_kafka(r):
    info = subscription_from_json(r["data"])
    if "error" in r:  # Kafka refused to encode this
        with pytest.raises(EncodeError):
            encode_subscription(info, drop_unrepresentable=True)
        return
    ours = encode_subscription(info, drop_unrepresentable=True)
    if byte_equality_holds("subscription", info.version, r["data"]):
        assert ours.hex() == r["hex"]
    # Everywhere: our bytes decode to what Kafka decoded from its bytes.
    d = decode_subscription(ours, detail=True)
    assert normalize_subscription(subscription_json(d.info, d.wire)) == normalize_subscription(r["decoded"])


@pytest.mark.parametrize("r", [r for r in ASG if "hex" in r], ids=record_id)
def test_assignment_decodes_as_kafka(r):
    data = bytes.fromhex(r["hex"])
    if "error" in r:
        with pytest.raises(DecodeError):
            decode_assignment(data)
        return
    assert normalize_assignment(assignment_json(decode_assignment(data))) == normalize_assignment(r["decoded"])


@pytest.mark.parametrize("r", [r for r in ASG if "data" in r], ids=record_id)
def test_assignment_encodes_as_kafka(r):
    info = assignment_from_json(r["data"])
    if "error" in r:
        with pytest.raises(EncodeError):
            encode_assignment(info, drop_unrepresentable=True)
        return
    ours = encode_assignment(info, drop_unrepresentable=True)
    if byte_equality_holds("assignment", info.version, r["data"]):
        assert ours.hex() == r["hex"]
    assert normalize_assignment(assignment_json(decode_assignment(ours))) == normalize_assignment(r["decoded"])


@pytest.mark.parametrize(
    "r",
    [r for r in SUB + ASG if "decoded" in r and "data" in r and not r["decoded"].get("futureVersion")],
    ids=record_id,
)
def test_encoding_the_decoded_shape_gives_the_same_value(r):
    """``encode --style kafka`` accepts the ``decoded`` shape too (taskOffsetSums wins over derived views)."""
    if r["kind"] == "subscription":
        from_decoded = encode_subscription(subscription_from_json(r["decoded"]), drop_unrepresentable=True)
        assert decode_subscription(from_decoded) == decode_subscription(bytes.fromhex(r["hex"]))
    else:
        from_decoded = encode_assignment(assignment_from_json(r["decoded"]), drop_unrepresentable=True)
        assert decode_assignment(from_decoded).canonical() == decode_assignment(bytes.fromhex(r["hex"])).canonical()
