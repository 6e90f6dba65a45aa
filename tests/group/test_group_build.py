"""Whole frames built from models (a Streams SubscriptionInfo inside a ConsumerProtocol subscription
inside a JoinGroup request frame, and so on) equal Kafka's bytes; ``--kind auto`` says what fitted."""

from __future__ import annotations

import pytest

from codec.group import (
    ConsumerMessage,
    Connection,
    body_from_json,
    consumer_from_json,
    decode_request_frame,
    encode_request_frame,
    encode_response_frame,
    request_frame,
    response_frame,
)
from codec.errors import DecodeError
from codec.catalog import get_kind
from codec.streams import assignment_from_json, subscription_from_json
from codec.wire.builder import encode_wire, wire_class
from tests.conftest import KAFKA_VECTORS, load_jsonl
from tests.facts import worked_examples

NESTED = load_jsonl(KAFKA_VECTORS / "nested_streams.jsonl")


def _header(api_key: int, version: int, correlation_id: int, client_id: str, header_version: int) -> bytes:
    h = wire_class("RequestHeader", "RequestHeader")(
        request_api_key=api_key, request_api_version=version, correlation_id=correlation_id, client_id=client_id
    )
    return encode_wire("RequestHeader", header_version, h)


@pytest.mark.parametrize("r", NESTED, ids=lambda r: r["id"])
def test_join_group_frame_from_models(r):
    j, cps = r["joinGroupRequest"], r["consumerProtocolSubscription"]
    info = subscription_from_json(r["subscription"]["decoded"])
    sub = consumer_from_json(cps["kind"], {**cps["data"], "userData": None}, cps["version"])
    sub = ConsumerMessage(
        name=sub.name,
        version=sub.version,
        data=wire_class(sub.name, sub.name)(**{**_fields(sub.data), "user_data": info}),
    )
    body = body_from_json("JoinGroupRequest", {**j["data"], "protocols": []})
    protocol = wire_class("JoinGroupRequest", "JoinGroupRequestProtocol")(name="stream", metadata=sub)
    body = wire_class("JoinGroupRequest", "JoinGroupRequest")(**{**_fields(body), "protocols": (protocol,)})
    frame = request_frame(11, j["version"], 9, "streams-client", body)
    hv = 2 if j["version"] >= 6 else 1
    expected = _header(11, j["version"], 9, "streams-client", hv) + bytes.fromhex(j["hex"])
    assert encode_request_frame(frame) == expected
    assert encode_request_frame(frame, size_prefixed=True) == len(expected).to_bytes(4, "big") + expected
    # and back down: the pairing helper carries ProtocolName "stream" from the JoinGroup response to SyncGroup
    assert decode_request_frame(expected).body.protocols[0].metadata.value.data.user_data.ok


@pytest.mark.parametrize("r", NESTED, ids=lambda r: r["id"])
def test_sync_group_response_frame_from_models(r):
    s, cpa = r["syncGroupResponse"], r["consumerProtocolAssignment"]
    info = assignment_from_json(r["assignment"]["decoded"])
    asg = consumer_from_json(cpa["kind"], {**cpa["data"], "userData": None}, cpa["version"])
    asg = ConsumerMessage(
        name=asg.name,
        version=asg.version,
        data=wire_class(asg.name, asg.name)(**{**_fields(asg.data), "user_data": info}),
    )
    body = body_from_json("SyncGroupResponse", {**s["data"], "assignment": ""})
    body = wire_class("SyncGroupResponse", "SyncGroupResponse")(**{**_fields(body), "assignment": asg})
    frame = response_frame(14, s["version"], 5, body)
    expected = (5).to_bytes(4, "big") + (b"\0" if s["version"] >= 4 else b"") + bytes.fromhex(s["hex"])
    assert encode_response_frame(frame) == expected

    # The pairing helper decodes it down to the AssignmentInfo once a JoinGroup response named "stream".
    conn = Connection()
    conn.request(_header(11, 5, 1, "c", 1) + bytes.fromhex(NESTED[0]["joinGroupRequest"]["hex"]))
    join_resp = wire_class("JoinGroupResponse", "JoinGroupResponse")(protocol_name="stream", leader="m", member_id="m")
    conn.response(encode_response_frame(response_frame(11, 5, 1, join_resp)))
    conn.request(
        encode_request_frame(
            request_frame(
                14,
                s["version"],
                5,
                "c",
                wire_class("SyncGroupRequest", "SyncGroupRequest")(group_id="g", member_id="m"),
            )
        )
    )
    _, resp = conn.response(expected)
    inner = resp.body.assignment.value.data.user_data
    assert inner.layer == "AssignmentInfo" and inner.ok
    assert inner.value.info == info


def _fields(obj) -> dict:
    return {k: getattr(obj, k) for k in obj.__dataclass_fields__}


def test_auto_names_what_fitted():
    auto = get_kind("auto")
    ex = worked_examples()
    d = auto.decode(ex["E15"], style="kafka", version=None)
    assert d.value["kind"] == "consumer-subscription" and d.value["value"]["rackId"] == "r1"
    assert "auto: decoded as consumer-subscription" in d.notes[0]
    frame = _header(11, 9, 7, "c", 2) + ex["E21"]
    d = auto.decode(frame, style="kafka", version=None)
    assert d.value["kind"] == "request-frame" and d.pretty.startswith("auto: request-frame")
    assert auto.encode(d.value, style="kafka", version=None) == frame


def test_auto_on_a_response_frame_says_which_kind_reads_it():
    # SyncGroup response v3 without its size: correlation id 5, throttle 0, error 0, an empty assignment. A
    # response does not name its API, so no self-describing kind reads it: the error says what does.
    frame = bytes.fromhex("00000005 00000000 0000 00000000")
    with pytest.raises(DecodeError) as e:
        get_kind("auto").decode(frame, style="kafka", version=None)
    assert "no self-describing kind decodes all 14 bytes" in str(e.value)
    assert "--kind response-frame --api-key K --version V of its request" in str(e.value)
    d = get_kind("response-frame").decode(frame, style="kafka", version=3, api_key=14)
    assert d.value["body"]["errorCode"] == 0
