"""Group-message JSON of the wrong shape is an EncodeError naming the message and the field, never a silent
coercion (issue #17): wrong JSON types, booleans for integers, integers beyond their field's type, null where
Kafka's message JSON (schemas/*.json) allows none, unknown keys; and the ConsumerProtocol JSON carries its
version both ways. Every expected byte string below is derived by hand from the wire layouts in the schemas
(int16/int32 big-endian, int16-length strings before the flexible versions; in flexible versions uvarint
length+1 for compact strings and arrays, 0 for a null compact string, one 0 byte for no tagged fields)."""

from __future__ import annotations

import pytest

from codec.errors import EncodeError
from codec.group import body_from_json, consumer_from_json, consumer_json, decode_consumer, encode_consumer
from codec.wire.jsoncheck import check_json
from codec.group.messages import encode_message
from codec.catalog import get_kind


def _encode(name: str, version: int, value, style: str = "kafka") -> str:
    return encode_message(name, version, body_from_json(name, value, style, version)).hex()


# --- what is accepted, to the byte ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,hexed",
    [
        ({"errorCode": 32767}, "7fff"),
        ({"errorCode": -32768}, "8000"),
        ({"errorCode": 0}, "0000"),
    ],
)
def test_int16_at_its_bounds(value, hexed):
    assert _encode("HeartbeatResponse", 0, value) == hexed


@pytest.mark.parametrize("generation,hexed", [(2147483647, "7fffffff"), (-2147483648, "80000000")])
def test_int32_at_its_bounds(generation, hexed):
    value = {"groupId": "g", "generationId": generation, "memberId": "m"}
    # string "g" = 0001 67, then the int32, then string "m" = 0001 6d
    assert _encode("HeartbeatRequest", 0, value) == "000167" + hexed + "00016d"


def test_null_where_the_version_allows_it():
    # JoinGroupResponse v7 (flexible): throttle 0, error 0, generation 1, protocolType null (00),
    # protocolName null (00), leader "l" (02 6c), memberId "m" (02 6d), no members (01), no tagged fields (00)
    value = {
        "throttleTimeMs": 0,
        "errorCode": 0,
        "generationId": 1,
        "protocolType": None,
        "protocolName": None,
        "leader": "l",
        "memberId": "m",
        "members": [],
    }
    assert _encode("JoinGroupResponse", 7, value) == "000000000000000000010000026c026d0100"


# --- what is refused, by field ----------------------------------------------------------------------------

REFUSED = [
    # (message, version, JSON, path, words the message must contain)
    ("HeartbeatResponse", 4, {"errorCode": False}, "error_code", "needs an int16, got false"),
    ("HeartbeatResponse", 4, {"errorCode": True}, "error_code", "got true"),
    ("HeartbeatResponse", 0, {"errorCode": 32768}, "error_code", "32768 is out of range for int16"),
    ("HeartbeatResponse", 0, {"errorCode": -32769}, "error_code", "out of range for int16"),
    ("HeartbeatResponse", 0, {"errorCode": "0"}, "error_code", "got a string"),
    ("HeartbeatResponse", 0, {"errorCode": 0.0}, "error_code", "got a number"),
    ("HeartbeatResponse", 0, {"errorCode": [0]}, "error_code", "got a list"),
    ("HeartbeatResponse", 0, {"errorCode": None}, "error_code", "never nullable"),
    ("HeartbeatRequest", 0, {"groupId": "g", "generationId": 2147483648}, "generation_id", "out of range for int32"),
    ("HeartbeatRequest", 0, {"groupId": "g", "generationId": -2147483649}, "generation_id", "out of range for int32"),
    ("HeartbeatRequest", 0, {"groupId": 5}, "group_id", "needs a string, got an integer"),
    ("HeartbeatRequest", 0, {"groupId": ["g"]}, "group_id", "needs a string, got a list"),
    ("HeartbeatRequest", 0, {"groupId": None}, "group_id", "never nullable"),
    ("HeartbeatRequest", 0, {"groupID": "g"}, "groupID", "did you mean 'groupId'"),
    ("HeartbeatRequest", 0, {"groupId": "g", "group_id": "h"}, "group_id", "given twice"),
    ("JoinGroupResponse", 6, {"protocolName": None}, "protocol_name", "nullable only at versions 7+"),
    ("JoinGroupResponse", 9, {"skipAssignment": 1}, "skip_assignment", "needs true or false"),
    ("JoinGroupResponse", 9, {"members": {}}, "members", "needs a list"),
    ("JoinGroupResponse", 9, {"members": ["m"]}, "members[0]", "needs an object"),
    (
        "JoinGroupResponse",
        9,
        {"members": [{"memberId": "m", "metadata": ["x"]}]},
        "members[0].metadata",
        "needs bytes as a base64 string, got a list",
    ),
    ("JoinGroupResponse", 9, {"members": [{"memberId": "m", "metadata": [1, 2]}]}, "members[0].metadata", "got a list"),
    ("JoinGroupResponse", 9, {"members": [{"memberId": "m", "metadata": "!!"}]}, "members[0].metadata", "not base64"),
    ("JoinGroupRequest", 5, {"groupId": "g", "protocols": "range"}, "protocols", "needs a list"),
    ("JoinGroupRequest", 5, {"groupId": "g", "protocols": [{"name": 1}]}, "protocols[0].name", "needs a string"),
    ("JoinGroupRequest", 5, {"groupId": "g", "sessionTimeoutMs": True}, "session_timeout_ms", "got true"),
    (
        "JoinGroupRequest",
        6,
        {"groupId": "g", "_unknownTaggedFields": {"x": "00"}},
        "unknown_tagged_fields",
        "a tag is a decimal integer",
    ),
    (
        "JoinGroupRequest",
        6,
        {"groupId": "g", "_unknownTaggedFields": {"1": "zz"}},
        "unknown_tagged_fields[1]",
        "not hex",
    ),
    (
        "SyncGroupRequest",
        3,
        {"groupId": "g", "assignments": [{"memberId": "m", "assignment": 5}]},
        "assignments[0].assignment",
        "needs bytes as a base64 string, got an integer",
    ),
    (
        "LeaveGroupRequest",
        3,
        {"groupId": "g", "members": [{"memberId": "m", "groupInstanceId": False}]},
        "members[0].group_instance_id",
        "needs a string, got false",
    ),
]


@pytest.mark.parametrize("name,version,value,path,words", REFUSED, ids=[f"{r[0]}-{r[3]}" for r in REFUSED])
def test_refused_with_the_field_named(name, version, value, path, words):
    with pytest.raises(EncodeError) as e:
        _encode(name, version, value)
    assert e.value.path == path and e.value.message == name, str(e.value)
    assert words in str(e.value)


def test_native_style_is_checked_the_same_way():
    with pytest.raises(EncodeError, match=r"needs an int16, got false \(error_code\)"):
        _encode("HeartbeatResponse", 4, {"error_code": False}, "native")
    with pytest.raises(EncodeError, match=r"needs bytes as a hex string, got a list \(members\[0\]\.metadata\)"):
        _encode("JoinGroupResponse", 9, {"members": [{"member_id": "m", "metadata": [1]}]}, "native")


def test_int64_range():
    # no group body has an int64; GroupMetadataValue (a __consumer_offsets record) does
    check_json({"currentStateTimestamp": 2**63 - 1}, "GroupMetadataValue", 3)
    with pytest.raises(EncodeError, match=r"out of range for int64 .*current_state_timestamp"):
        check_json({"currentStateTimestamp": 2**63}, "GroupMetadataValue", 3)


def test_a_huge_integer_is_described_not_printed():
    with pytest.raises(EncodeError, match="an integer of 3322 bits is out of range for int16"):
        _encode("HeartbeatResponse", 0, {"errorCode": 10**1000})


def test_nested_layer_errors_name_the_place_in_the_outer_message():
    value = {
        "groupId": "g",
        "protocols": [
            {"name": "range", "metadata": {"layer": "ConsumerProtocolSubscription", "value": {"topics": "input"}}}
        ],
    }
    with pytest.raises(EncodeError) as e:
        _encode("JoinGroupRequest", 5, value)
    assert e.value.message == "JoinGroupRequest" and e.value.path == "protocols[0].metadata.value.topics"
    assert "ConsumerProtocolSubscription v3: needs a list" in str(e.value)


def test_frame_fields_are_checked():
    kind = get_kind("request-frame")
    # JoinGroup v5 (key 11): header v1 = api key 000b, version 0005, correlation 00000003, client id "c"
    base = {
        "apiKey": 11,
        "apiVersion": 5,
        "header": {"correlationId": 3, "clientId": "c"},
        "body": {
            "groupId": "g",
            "sessionTimeoutMs": 1,
            "rebalanceTimeoutMs": 2,
            "memberId": "",
            "groupInstanceId": None,
            "protocolType": "consumer",
            "protocols": [],
        },
    }
    assert kind.encode(base).hex() == (
        "000b00050000000300016300016700000001000000020000ffff0008" + b"consumer".hex() + "00000000"
    )
    for change, path in [
        ({"apiKey": True}, "api_key"),
        ({"apiVersion": 1 << 15}, "api_version"),
        ({"apiKey": 99}, "api_key"),
        ({"headerVersion": 2}, "header_version"),
        ({"api": "SyncGroup"}, "api"),
        ({"apiKeys": 11}, "apiKeys"),
        ({"header": {"correlationId": "3"}}, "correlation_id"),
        ({"header": {"requestApiKey": 12}}, "request_api_key"),
        ({"trailing": 5}, "trailing"),
    ]:
        with pytest.raises(EncodeError) as e:
            kind.encode({**base, **change})
        assert e.value.path == path, (change, str(e.value))


# --- the ConsumerProtocol version, both ways --------------------------------------------------------------

# v0: topics [] (00000000), userData 2 bytes 7b da (00000002 7bda); base64 of 7b da is "e9o="
V0 = "000000000000000000027bda"


def test_consumer_json_carries_the_version_and_encodes_it_back():
    kind = get_kind("consumer-subscription")
    d = kind.decode(bytes.fromhex(V0))
    assert d.value == {"version": 0, "topics": [], "userData": "e9o="}
    assert kind.encode(d.value).hex() == V0
    # without a version key: v3, what the Java consumer writes (+ owned partitions 00000000, generation -1
    # ffffffff, rack null ffff)
    assert kind.encode({"topics": [], "userData": "e9o="}).hex() == "000300000000000000027bda00000000ffffffffffff"
    # --version decides when given
    assert kind.encode(d.value, version=1).hex() == "000100000000000000027bda00000000"


def test_a_newer_version_and_its_trailing_bytes_round_trip():
    # v7 read with the v3 layout: topics [], userData null, owned [], generation -1, rack "" (0000); then
    # 0001abcd that a v3 reader does not know
    raw = "000700000000ffffffff00000000ffffffff00000001abcd"
    msg = decode_consumer("ConsumerProtocolSubscription", bytes.fromhex(raw))
    value = consumer_json(msg)
    assert value["version"] == 7 and value["trailing"] == "0001abcd"
    assert encode_consumer(consumer_from_json("ConsumerProtocolSubscription", value)).hex() == raw


@pytest.mark.parametrize(
    "value,path,words",
    [
        ({"version": True}, "version", "must be an integer"),
        ({"version": 1.0}, "version", "must be an integer"),
        ({"version": -1}, "version", "cannot be written"),
        ({"version": 32768}, "version", "cannot be written"),
        ({"trailing": 5}, "trailing", "must be hex"),
        ({"trailing": "xyz"}, "trailing", "must be hex"),
        ({"topics": "input"}, "topics", "needs a list"),
        ({"topics": [["a"]]}, "topics[0]", "needs a string"),
        ({"topics": [None]}, "topics[0]", "null element"),
        ({"userData": ["x"]}, "user_data", "got a list"),
        ({"generationId": 2**31}, "generation_id", "out of range for int32"),
        ({"ownedPartitions": [{"topic": "t", "partitions": [True]}]}, "owned_partitions[0].partitions[0]", "got true"),
        ({"rackID": "r"}, "rackID", "did you mean 'rackId'"),
    ],
)
def test_consumer_json_refusals(value, path, words):
    with pytest.raises(EncodeError) as e:
        consumer_from_json("ConsumerProtocolSubscription", value)
    assert e.value.path == path and words in str(e.value), str(e.value)


def test_auto_keeps_the_version_and_refuses_unknown_keys():
    auto = get_kind("auto")
    d = auto.decode(bytes.fromhex(V0))
    assert d.value["kind"] == "consumer-subscription" and d.value["value"]["version"] == 0
    assert auto.encode(d.value).hex() == V0
    with pytest.raises(EncodeError) as e:
        auto.encode({**d.value, "values": {}})
    assert e.value.path == "values"
