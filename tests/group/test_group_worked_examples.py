"""The worked examples E15-E27 of kafka-wire-facts.md §13, byte for byte, with the field values the
facts file annotates."""

from __future__ import annotations

import pytest

from codec.group import (
    consumer_assignment,
    consumer_subscription,
    decode_consumer,
    decode_message,
    encode_consumer,
    encode_message,
)
from codec.wire.builder import wire_class
from tests.facts import worked_examples

EX = worked_examples()


def W(message: str, struct: str | None = None, **fields):
    return wire_class(message, struct or message)(**fields)


def TP(message: str, topic: str, partitions: tuple[int, ...]):
    return W(message, "TopicPartition", topic=topic, partitions=partitions)


SUB = "ConsumerProtocolSubscription"
ASG = "ConsumerProtocolAssignment"
JGQ, JGR, SGQ, SGR = "JoinGroupRequest", "JoinGroupResponse", "SyncGroupRequest", "SyncGroupResponse"

CONSUMER = {
    "E15": consumer_subscription(
        3,
        topics=("t",),
        user_data=bytes.fromhex("aabb"),
        owned_partitions=(TP(SUB, "t", (0,)),),
        generation_id=5,
        rack_id="r1",
    ),
    "E16": consumer_subscription(3, topics=("t",), user_data=None, owned_partitions=(), generation_id=-1, rack_id=None),
    "E17": consumer_assignment(3, assigned_partitions=(TP(ASG, "t", (0, 1)),), user_data=b"\xcc"),
    "E18": consumer_assignment(3, assigned_partitions=(), user_data=None),
}

_protocol = W(JGQ, "JoinGroupRequestProtocol", name="stream", metadata=b"\x01\x02")
_join = dict(
    group_id="g",
    session_timeout_ms=45000,
    rebalance_timeout_ms=300000,
    member_id="",
    group_instance_id=None,
    protocol_type="consumer",
    protocols=(_protocol,),
)
MESSAGES = {
    "E19": (
        "RequestHeader",
        2,
        W("RequestHeader", request_api_key=11, request_api_version=9, correlation_id=7, client_id="c"),
    ),
    "E20": ("ResponseHeader", 1, W("ResponseHeader", correlation_id=7)),
    "E21": (JGQ, 9, W(JGQ, **_join, reason=None)),
    "E22": (JGQ, 5, W(JGQ, **_join)),
    "E23": (
        JGR,
        9,
        W(
            JGR,
            throttle_time_ms=0,
            error_code=0,
            generation_id=1,
            protocol_type="consumer",
            protocol_name="stream",
            leader="m",
            skip_assignment=False,
            member_id="m",
            members=(W(JGR, "JoinGroupResponseMember", member_id="m", group_instance_id=None, metadata=b"\x01\x02"),),
        ),
    ),
    "E24": (
        SGQ,
        5,
        W(
            SGQ,
            group_id="g",
            generation_id=1,
            member_id="m",
            group_instance_id=None,
            protocol_type="consumer",
            protocol_name="stream",
            assignments=(W(SGQ, "SyncGroupRequestAssignment", member_id="m", assignment=b"\x03"),),
        ),
    ),
    "E25": (
        SGR,
        5,
        W(SGR, throttle_time_ms=0, error_code=0, protocol_type="consumer", protocol_name="stream", assignment=b"\x03"),
    ),
    "E26": (
        "HeartbeatRequest",
        4,
        W("HeartbeatRequest", group_id="g", generation_id=1, member_id="m", group_instance_id=None),
    ),
    "E27": (
        "LeaveGroupRequest",
        5,
        W(
            "LeaveGroupRequest",
            group_id="g",
            members=(W("LeaveGroupRequest", "MemberIdentity", member_id="m", group_instance_id=None, reason="x"),),
        ),
    ),
}


def test_examples_present():
    assert set(CONSUMER) | set(MESSAGES) == {f"E{i}" for i in range(15, 28)}
    assert all(e in EX for e in CONSUMER | MESSAGES)


@pytest.mark.parametrize("ex", sorted(CONSUMER))
def test_consumer_protocol_example(ex):
    assert encode_consumer(CONSUMER[ex]) == EX[ex]
    assert decode_consumer(CONSUMER[ex].name, EX[ex]) == CONSUMER[ex]


@pytest.mark.parametrize("ex", sorted(MESSAGES))
def test_message_example(ex):
    name, version, model = MESSAGES[ex]
    assert encode_message(name, version, model) == EX[ex]
    d = decode_message(name, version, EX[ex])
    assert d.value == model and d.trailing == 0


def test_e20_v0_is_the_correlation_id_only():
    assert encode_message("ResponseHeader", 0, MESSAGES["E20"][2]) == EX["E20"][:4]
