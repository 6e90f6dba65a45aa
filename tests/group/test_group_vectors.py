"""Kafka's own vectors through the Python API: every group and ConsumerProtocol record decodes to
Kafka's ``data`` (Kafka's JSON converter shape) and re-encodes to Kafka's bytes exactly."""

from __future__ import annotations

import base64

import pytest

from codec.errors import EncodeError
from codec.group import (
    body_from_json,
    body_json,
    consumer_from_json,
    consumer_json,
    decode_consumer,
    decode_message,
    encode_consumer,
    encode_message,
)
from codec.streams import assignment_json, subscription_json
from tests.conftest import KAFKA_VECTORS, load_jsonl
from tests.group.data import CONSUMER_KINDS, group_records, record_id

RECORDS = group_records()
BODIES = [r for r in RECORDS if r["kind"] not in CONSUMER_KINDS and "hex" in r]
CONSUMER = [r for r in RECORDS if r["kind"] in CONSUMER_KINDS]


def test_every_file_is_covered():
    kinds = {(r["kind"], r["version"]) for r in RECORDS if "hex" in r}
    for name, versions in (
        ("JoinGroupRequest", 10),
        ("JoinGroupResponse", 10),
        ("SyncGroupRequest", 6),
        ("SyncGroupResponse", 6),
        ("ConsumerProtocolSubscription", 4),
        ("ConsumerProtocolAssignment", 4),
    ):
        assert {(name, v) for v in range(versions)} <= kinds


@pytest.mark.parametrize("r", BODIES, ids=record_id)
def test_body_decodes_to_kafka_data(r):
    data = bytes.fromhex(r["hex"])
    d = decode_message(r["kind"], r["version"], data)
    assert body_json(r["kind"], r["version"], d.value) == r.get("data", r.get("decoded"))
    assert d.trailing == r.get("trailingBytes", 0)


@pytest.mark.parametrize("r", [r for r in BODIES if "data" in r], ids=record_id)
def test_body_encodes_to_kafka_bytes(r):
    model = body_from_json(r["kind"], r["data"])
    assert encode_message(r["kind"], r["version"], model).hex() == r["hex"]


@pytest.mark.parametrize("r", CONSUMER, ids=record_id)
def test_consumer_protocol_both_ways(r):
    prefixed = bytes.fromhex(r["hexVersionPrefixed"])
    assert prefixed[2:].hex() == r["hex"]
    msg = decode_consumer(r["kind"], prefixed)
    assert msg.version == r["version"] and msg.trailing == b""
    assert consumer_json(msg) == {"version": r["version"], **r["data"]}
    assert encode_consumer(consumer_from_json(r["kind"], r["data"], r["version"])) == prefixed


def test_refused_encodings():
    errors = [r for r in load_jsonl(KAFKA_VECTORS / "group_edge.jsonl") if "error" in r]
    assert errors
    for r in errors:
        assert "UnsupportedVersionException" in r["error"]
        with pytest.raises(EncodeError, match="group_instance_id"):
            encode_message(r["kind"], r["version"], body_from_json(r["kind"], r["data"]))


@pytest.mark.parametrize("r", load_jsonl(KAFKA_VECTORS / "nested_streams.jsonl"), ids=lambda r: r["id"])
def test_nested_streams_whole_stack(r):
    """JoinGroupRequest -> ConsumerProtocolSubscription -> SubscriptionInfo, and SyncGroupResponse ->
    ConsumerProtocolAssignment -> AssignmentInfo, each equal to what Kafka's classes decoded."""
    j = r["joinGroupRequest"]
    body = decode_message("JoinGroupRequest", j["version"], bytes.fromhex(j["hex"]), nested=True).value
    (protocol,) = body.protocols
    assert protocol.name == "stream"
    sub = protocol.metadata.value
    assert sub.version == r["consumerProtocolSubscription"]["version"]
    assert sub.data.topics == tuple(r["consumerProtocolSubscription"]["data"]["topics"])
    info = sub.data.user_data.value
    assert subscription_json(info.info, info.wire) == r["subscription"]["decoded"]
    assert base64.b64encode(sub.data.user_data.raw).decode() == r["consumerProtocolSubscription"]["data"]["userData"]

    s = r["syncGroupResponse"]
    body = decode_message(
        "SyncGroupResponse", s["version"], bytes.fromhex(s["hex"]), nested=True, protocol_name="stream"
    ).value  # SyncGroup before v5 does not name its protocol
    asg = body.assignment.value
    assert asg.version == r["consumerProtocolAssignment"]["version"]
    assert assignment_json(asg.data.user_data.value.info) == r["assignment"]["decoded"]
