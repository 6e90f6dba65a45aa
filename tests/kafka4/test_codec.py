"""codec.kafka4: errors in one line with offset and path, __consumer_offsets records both ways, tombstones,
whole frames of API keys 68/69/88/89 and --kind auto, the pretty view of a Streams heartbeat.

Bytes here come from the hand-made vectors (vectors/handcrafted-kafka4.jsonl, assembled with struct in
vectors/tools/handcraft_kafka4.py) and from headers assembled below from kafka-wire-facts.md §7.
"""

from __future__ import annotations

import json
import struct

import pytest

from codec import kafka4
from codec.cli import main
from codec.errors import DecodeError, EncodeError
from tests.conftest import ROOT

VECTORS = {
    v["id"]: v
    for v in map(json.loads, (ROOT / "vectors" / "handcrafted-kafka4.jsonl").read_text(encoding="utf-8").splitlines())
}


def vec(name: str) -> dict:
    return VECTORS[f"hc-k4-{name}"]


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- errors ---------------------------------------------------------------------------------------------


def test_a_truncated_body_is_one_line_with_offset_and_path(capsys):
    wire = vec("cghb-response-v1-assignment")["wire"]
    status, out, err = cli(
        capsys, "decode", "--kind", "consumer-group-heartbeat-response", "--version", "1", wire[:60]
    )  # 30 bytes: inside the first topic id, which starts at byte 19
    assert status == 1 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(
        "error: ConsumerGroupHeartbeatResponse v1: truncated at offset 19 in assignment.topic_partitions[0].topic_id"
    )


def test_lines_mode_gives_one_error_line_per_bad_line(capsys, tmp_path):
    good = vec("cghb-request-v0-leave")["wire"]
    f = tmp_path / "in.txt"
    f.write_text(f"{good}\n{good[:10]}\nzz\n", encoding="utf-8")
    status, out, _ = cli(
        capsys, "decode", "--kind", "consumer-group-heartbeat-request", "--version", "0", "--lines", f"@{f}"
    )
    lines = [json.loads(x) for x in out.splitlines()]
    assert status == 1 and len(lines) == 3
    assert lines[0] == vec("cghb-request-v0-leave")["expected"]
    assert lines[1]["error"]["offset"] == 4 and lines[1]["error"]["path"] == "member_epoch"
    assert "not hex" in lines[2]["error"]["message"]


def test_unknown_versions_and_kinds_are_errors_not_tracebacks(capsys):
    status, _, err = cli(capsys, "decode", "--kind", "streams-group-heartbeat-request", "--version", "2", "00")
    assert status == 1 and "no version 2 (valid 0-1)" in err and err.count("\n") == 1
    with pytest.raises(DecodeError, match="no message named 'no-such-request'"):
        kafka4.decode("no-such-request", 0, b"")
    with pytest.raises(EncodeError, match="subscribed_topic_regex"):
        kafka4.encode("ConsumerGroupHeartbeatRequest", 0, vec("cghb-request-v0-refuse-regex")["expected"])
    with pytest.raises(EncodeError, match="member_epoch"):
        kafka4.encode("ConsumerGroupHeartbeatRequest", 0, {"memberEpoch": "1"})


def test_a_record_value_error_counts_its_version_prefix():
    v = bytes.fromhex(vec("record-streams-group-current-member-assignment-value")["wire"])
    key = struct.pack(">h", 22) + struct.pack(">h", 1) + b"g" + struct.pack(">h", 1) + b"m"
    with pytest.raises(DecodeError) as e:
        kafka4.decode_record(key, v[:11])
    assert e.value.offset == 11 and e.value.path.startswith("value.")
    with pytest.raises(DecodeError, match="unknown coordinator record type 24"):
        kafka4.decode_record(struct.pack(">h", 24) + struct.pack(">h", 1) + b"g", None)


def test_records_no_release_knows_are_refused_as_kafka_refuses_them():
    """Type 18 (StreamsGroupPartitionMetadata) was written only by trunk builds before 4.1 and a StreamsGroupMetadata
    value of that trunk has no MetadataHash: released Kafka knows neither (schemas/README.md)."""
    key18 = struct.pack(">h", 18) + struct.pack(">h", 3) + b"app"
    with pytest.raises(DecodeError, match="unknown coordinator record type 18") as e:
        kafka4.decode_record(key18, None)
    assert e.value.offset == 0
    key17 = struct.pack(">h", 17) + struct.pack(">h", 3) + b"app"
    epoch_only = struct.pack(">hi", 0, 9) + b"\x00"  # version 0, group epoch 9, no tagged fields
    with pytest.raises(DecodeError) as e:
        kafka4.decode_record(key17, epoch_only)
    assert e.value.offset == 6 and e.value.path == "value.metadata_hash"


# --- records --------------------------------------------------------------------------------------------

RECORDS = [
    (
        "record-consumer-group-member-metadata-key",
        "record-consumer-group-member-metadata-value-classic",
        5,
        "ConsumerGroupMemberMetadata",
    ),
    ("record-consumer-group-metadata-key", "record-consumer-group-metadata-value", 3, "ConsumerGroupMetadata"),
    (
        "record-consumer-group-member-metadata-key",
        "record-consumer-group-member-metadata-value-consumer",
        5,
        "ConsumerGroupMemberMetadata",
    ),
    ("record-consumer-group-metadata-key", "record-consumer-group-metadata-value-hash", 3, "ConsumerGroupMetadata"),
    (
        "record-consumer-group-regular-expression-key",
        "record-consumer-group-regular-expression-value",
        16,
        "ConsumerGroupRegularExpression",
    ),
    ("record-streams-group-metadata-key", "record-streams-group-metadata-value-ga", 17, "StreamsGroupMetadata"),
]


@pytest.mark.parametrize("key_id, value_id, rtype, name", RECORDS)
def test_records_decode_and_encode_both_ways(key_id, value_id, rtype, name):
    k, v = vec(key_id), vec(value_id)
    key, value = bytes.fromhex(k["wire"]), bytes.fromhex(v["wire"])
    expected_value = {x: y for x, y in v["expected"].items() if x != "valueVersion"}
    record = kafka4.decode_record(key, value)
    assert record == {
        "recordType": rtype,
        "record": name,
        "key": k["expected"],
        "valueVersion": 0,
        "value": expected_value,
    }
    assert kafka4.encode_record(record) == (key, value)
    assert kafka4.encode_record({"record": name, "key": k["expected"], "value": expected_value}) == (key, value)
    tomb = kafka4.decode_record(key, None)
    assert tomb["value"] is None and tomb["valueVersion"] is None
    assert kafka4.encode_record(tomb) == (key, None)


def test_record_kinds_on_the_command_line(capsys):
    v = vec("record-consumer-group-regular-expression-value")
    status, out, _ = cli(capsys, "decode", "--kind", "consumer-group-regular-expression-value", v["wire"])
    assert status == 0 and json.loads(out) == v["expected"]
    status, out, _ = cli(
        capsys, "encode", "--kind", "consumer-group-regular-expression-value", json.dumps(v["expected"])
    )
    assert status == 0 and out.strip() == v["wire"]
    k = vec("record-consumer-group-member-metadata-key")
    status, out, _ = cli(capsys, "decode", "--kind", "group-record-key", k["wire"])
    assert json.loads(out) == {"recordType": 5, "record": "ConsumerGroupMemberMetadata", "key": k["expected"]}
    status, _, err = cli(capsys, "decode", "--kind", "consumer-group-metadata-key", k["wire"])
    assert status == 1 and "record type 5" in err and "at offset 0 in record_type" in err
    status, out, _ = cli(
        capsys,
        "decode",
        "--kind",
        "consumer-group-member-metadata-value",
        "--format",
        "pretty",
        vec("record-consumer-group-member-metadata-value-classic")["wire"],
    )
    assert status == 0 and 'classic_member_metadata (tag 0)  {"sessionTimeoutMs": 45000, ' in out


# --- frames and auto --------------------------------------------------------------------------------------


def _request_header(api_key: int, version: int, correlation: int, client: str) -> bytes:
    """Request header v2 (wire-facts §7): int16 key, int16 version, int32 correlation id, int16-length client
    id (never compact), an empty tagged-field section."""
    c = client.encode()
    return struct.pack(">hhih", api_key, version, correlation, len(c)) + c + b"\x00"


FRAMES = [
    (68, 1, "cghb-request-v1-join", "cghb-response-v1-assignment"),
    (69, 1, None, "cgd-response-v1-member-type"),
    (88, 0, "sghb-request-v0-join", "sghb-response-v0-assignment"),
    (89, 0, None, "sgd-response-v0-not-found"),
]


@pytest.mark.parametrize("api_key, version, request_id, response_id", FRAMES)
def test_frames_of_the_new_apis_decode_whole_and_by_auto(capsys, api_key, version, request_id, response_id):
    if request_id is not None:
        req = vec(request_id)
        frame = _request_header(api_key, version, 42, "client-1") + bytes.fromhex(req["wire"])
        status, out, _ = cli(capsys, "decode", "--kind", "auto", frame.hex())
        got = json.loads(out)
        assert status == 0 and got["kind"] == "request-frame"
        assert got["value"]["apiKey"] == api_key and got["value"]["headerVersion"] == 2
        assert got["value"]["body"] == req["expected"]
        status, out, _ = cli(capsys, "encode", "--kind", "request-frame", json.dumps(got["value"]))
        assert out.strip() == frame.hex()
    resp = vec(response_id)
    frame = struct.pack(">i", 42) + b"\x00" + bytes.fromhex(resp["wire"])  # response header v1
    status, out, _ = cli(
        capsys, "decode", "--kind", "response-frame", "--api-key", str(api_key), "--version", str(version), frame.hex()
    )
    got = json.loads(out)
    assert status == 0 and got["body"] == resp["expected"] and got["header"] == {"correlationId": 42}


def test_streams_heartbeat_pretty_shows_tasks_lags_endpoint_and_topology(capsys):
    status, out, _ = cli(
        capsys,
        "decode",
        "--kind",
        "streams-group-heartbeat-request",
        "--version",
        "0",
        "--format",
        "pretty",
        vec("sghb-request-v0-join")["wire"],
    )
    assert status == 0
    for line in (
        "member epoch          0 (join)",
        "endpoint              host-1:8080",
        "client tags           zone=eu-1a",
        "topology epoch 1, 1 subtopologies:",
        "changelogs         app-store-changelog (0 partitions, rf 3)",
        "active tasks (2):",
        "    0: 0-1",
        "warm-up tasks (1):",
        "    1: 2",
        "0_0  offset 90  end 100  lag 10",
    ):
        assert line in out, line
    assert "endpoint epoch        -1\n" in out  # hc-k4-sghb-request-v0-join: no endpoint information yet


def test_streams_heartbeat_response_pretty_shows_active_and_standby_partitions_by_endpoint(capsys):
    # hc-k4-sghb-response-v0-assignment: endpoint information epoch 4; host-1:65535 active words 0, standby words 1;
    # host-2:8080 with neither
    status, out, _ = cli(
        capsys,
        "decode",
        "--kind",
        "streams-group-heartbeat-response",
        "--version",
        "0",
        "--format",
        "pretty",
        vec("sghb-response-v0-assignment")["wire"],
    )
    assert status == 0
    assert "  endpoint epoch           4\n" in out
    assert out.endswith(
        "  partitions by endpoint (2):\n"
        "    host-1:65535  active words: 0  standby words: 1\n"
        "    host-2:8080  active (none)  standby (none)\n"
    )


def test_streams_status_5_is_named():
    """Status code 5, ASSIGNMENT_DELAYED (StreamsGroupHeartbeatResponse.json's table since 4.2): hc-k4-sghb-response-
    v0-assignment's status code is byte 27 (int32, int16, null string, "m1", four int32s, the array length)."""
    from codec.kafka4.pretty import pretty_message

    wire = bytearray.fromhex(vec("sghb-response-v0-assignment")["wire"])
    assert wire[26:28] == b"\x02\x01"  # one status, code 1 (MISSING_SOURCE_TOPICS)
    wire[27] = 5
    out = pretty_message(
        "StreamsGroupHeartbeatResponse", 0, kafka4.decode_model("StreamsGroupHeartbeatResponse", 0, bytes(wire))
    )
    assert 'ASSIGNMENT_DELAYED: "missing source topic words"' in out


def test_streams_status_codes_are_kafkas():
    """StreamsGroupHeartbeatResponse.Status codes as Kafka 4.4's message JSON lists them (8d3916cfe1; 6 is
    MISSING_CLIENT_TAGS, KAFKA-20744)."""
    from codec.kafka4.pretty import STREAMS_STATUS

    assert STREAMS_STATUS == {
        0: "STALE_TOPOLOGY",
        1: "MISSING_SOURCE_TOPICS",
        2: "INCORRECTLY_PARTITIONED_TOPICS",
        3: "MISSING_INTERNAL_TOPICS",
        4: "SHUTDOWN_APPLICATION",
        5: "ASSIGNMENT_DELAYED",
        6: "MISSING_CLIENT_TAGS",
    }
