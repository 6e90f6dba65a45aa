"""codec.kafka4 for KIP-932 share groups (issue #30): the share groups' __consumer_offsets records (types 9-15) both
ways with tombstones, ``group-record-key`` and the record kinds, whole frames of API keys 76 and 77 and --kind auto,
v0 refused (Kafka 4.0's early access), the pretty view of a heartbeat and of a Describe response whose members share
a partition.

Bytes come from the hand-made vectors (vectors/handcrafted-share.jsonl, assembled with struct in
vectors/tools/handcraft_share.py); frame headers from kafka-wire-facts.md §7 (tests/kafka4/test_codec.py).
"""

from __future__ import annotations

import json
import struct

import pytest

from codec import kafka4
from codec.errors import DecodeError
from tests.conftest import ROOT
from tests.kafka4.test_codec import _request_header, cli

VECTORS = {
    v["id"]: v
    for v in map(json.loads, (ROOT / "vectors" / "handcrafted-share.jsonl").read_text(encoding="utf-8").splitlines())
}
TYPES = {
    9: "ShareGroupPartitionMetadata",
    10: "ShareGroupMemberMetadata",
    11: "ShareGroupMetadata",
    12: "ShareGroupTargetAssignmentMetadata",
    13: "ShareGroupTargetAssignmentMember",
    14: "ShareGroupCurrentMemberAssignment",
    15: "ShareGroupStatePartitionMetadata",
}


def vec(name: str) -> dict:
    return VECTORS[f"hc-share-{name}"]


@pytest.mark.parametrize("rtype, name", sorted(TYPES.items()))
def test_every_share_record_decodes_and_encodes_both_ways(rtype, name):
    k, v = vec(f"record-{name.lower()}-key"), vec(f"record-{name.lower()}-value")
    key, value = bytes.fromhex(k["wire"]), bytes.fromhex(v["wire"])
    assert struct.unpack(">h", key[:2]) == (rtype,)  # by hand: the int16 type before the key
    value_json = {x: y for x, y in v["expected"].items() if x != "valueVersion"}
    record = kafka4.decode_record(key, value)
    assert record == {"recordType": rtype, "record": name, "key": k["expected"], "valueVersion": 0, "value": value_json}
    assert kafka4.encode_record(record) == (key, value)
    assert kafka4.encode_record({"record": name, "key": k["expected"], "value": value_json}) == (key, value)
    tomb = kafka4.decode_record(key, None)
    assert tomb["value"] is None and kafka4.encode_record(tomb) == (key, None)


def test_share_record_kinds_and_any_key_on_the_command_line(capsys):
    k = vec("record-sharegroupmembermetadata-key")
    status, out, _ = cli(capsys, "decode", "--kind", "group-record-key", k["wire"])
    assert status == 0 and json.loads(out) == {
        "recordType": 10,
        "record": "ShareGroupMemberMetadata",
        "key": k["expected"],
    }
    v = vec("record-sharegroupstatepartitionmetadata-value")
    status, out, _ = cli(capsys, "decode", "--kind", "share-group-state-partition-metadata-value", v["wire"])
    assert status == 0 and json.loads(out) == v["expected"]
    status, out, _ = cli(
        capsys, "encode", "--kind", "share-group-state-partition-metadata-value", json.dumps(v["expected"])
    )
    assert status == 0 and out.strip() == v["wire"]
    status, _, err = cli(
        capsys,
        "decode",
        "--kind",
        "share-group-metadata-value",
        vec("record-sharegroupmetadata-value-4-0-layout")["wire"],
    )
    assert status == 1 and err.count("\n") == 1 and "at offset 6 in metadata_hash" in err


def test_v0_is_refused_as_early_access_and_errors_are_one_line(capsys):
    wire = vec("sghb-request-join")["wire"]
    status, _, err = cli(capsys, "decode", "--kind", "share-group-heartbeat-request", "--version", "0", wire)
    assert status == 1 and "no version 0 (valid 1)" in err and err.count("\n") == 1
    with pytest.raises(DecodeError) as e:
        kafka4.decode("share-group-heartbeat-response", 1, bytes.fromhex(vec("sghb-response-null-partitions")["wire"]))
    assert e.value.path == "assignment.topic_partitions[0].partitions" and e.value.offset == 35


FRAMES = [(76, "sghb-request-join", "sghb-response-assignment"), (77, "sgd-request-two-groups", "sgd-response-sharing")]


@pytest.mark.parametrize("api_key, request_id, response_id", FRAMES)
def test_frames_of_76_and_77_decode_whole_and_by_auto(capsys, api_key, request_id, response_id):
    req = vec(request_id)
    frame = _request_header(api_key, 1, 9, "share-client") + bytes.fromhex(req["wire"])
    status, out, _ = cli(capsys, "decode", "--kind", "auto", frame.hex())
    got = json.loads(out)
    assert status == 0 and got["kind"] == "request-frame" and got["value"]["apiKey"] == api_key
    assert got["value"]["headerVersion"] == 2 and got["value"]["body"] == req["expected"]
    status, out, _ = cli(capsys, "encode", "--kind", "request-frame", json.dumps(got["value"]))
    assert out.strip() == frame.hex()
    resp = vec(response_id)
    frame = struct.pack(">i", 9) + b"\x00" + bytes.fromhex(resp["wire"])
    status, out, _ = cli(
        capsys, "decode", "--kind", "response-frame", "--api-key", str(api_key), "--version", "1", frame.hex()
    )
    assert status == 0 and json.loads(out)["body"] == resp["expected"]


def test_pretty_views_of_a_share_heartbeat_and_of_members_sharing_a_partition(capsys):
    status, out, _ = cli(
        capsys,
        "decode",
        "--kind",
        "share-group-heartbeat-request",
        "--version",
        "1",
        "--format",
        "pretty",
        vec("sghb-request-heartbeat")["wire"],
    )
    assert status == 0 and "member epoch       5\n" in out
    assert "subscribed topics  (unchanged since the last heartbeat: null)" in out
    status, out, _ = cli(
        capsys,
        "decode",
        "--kind",
        "share-group-describe-response",
        "--version",
        "1",
        "--format",
        "pretty",
        vec("sgd-response-sharing")["wire"],
    )
    # hc-share-sgd-response-sharing: m1 holds orders 0, 1; m2 orders 1, 2 and payments 0
    assert status == 0
    for line in (
        "partitions orders: 0-1\n",
        "partitions orders: 1-2; payments: 0\n",
        "shared partitions orders: 1 by 2 members\n",
        'assignor          "simple"',
    ):
        assert line in out, line
