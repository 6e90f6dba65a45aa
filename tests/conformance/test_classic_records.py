"""The classic group's __consumer_offsets records in the gate (GroupMetadataKey/Value, OffsetCommitKey/Value).

Bytes and values come from vectors/kafka-java-offsets.jsonl, written and read back by Kafka's generated classes
at the 4.3.1 release (vectors/tools/kafka_offsets.py), never from this project's codec; the versions each table must
cover are Kafka's message JSON (GroupMetadataKey 2, OffsetCommitKey 0-1 as record types, both values 0-4).
"""

from __future__ import annotations

import base64
import importlib.util
import json

import pytest

from codec.capture.offsets import decode_record
from codec.cli import main
from codec.conformance.coverage import CLASSIC_RECORDS, ENFORCED, gaps, rule_gaps
from codec.conformance.vectors import load_vectors
from codec.pipeline.offsets import decode_group_metadata, encode_group_metadata, group_metadata_key
from tests.conftest import ROOT

KAFKA = [
    json.loads(line)
    for line in (ROOT / "vectors" / "kafka-java-offsets.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
]
BY_ID = {v["id"]: v for v in KAFKA}
# Kafka's message JSON at the commit the tables follow (26b251a451, 4.3.1): validVersions of each value, and of each
# key the record types (Kafka 4 writes every key body at version 0 behind its type; type 0 its LegacyOffsetCommitKey)
VERSIONS = {
    "GroupMetadataKey": {2},
    "OffsetCommitKey": {0, 1},
    "GroupMetadataValue": set(range(5)),
    "OffsetCommitValue": set(range(5)),
}


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_every_version_has_a_kafka_written_vector_and_the_suite_holds_them():
    assert set(CLASSIC_RECORDS) == set(VERSIONS) and set(CLASSIC_RECORDS) <= set(ENFORCED)
    have = {(v["message"], v["version"]) for v in KAFKA}
    assert have == {(m, n) for m, vs in VERSIONS.items() for n in vs}
    assert {v["provenance"]["commit"] for v in KAFKA} == {"26b251a451ce941d3d7a55e6487bcb7f16b5ad48"}
    vectors = load_vectors()
    assert gaps(vectors, CLASSIC_RECORDS) == [] and rule_gaps(vectors, CLASSIC_RECORDS) == []


def test_the_file_is_what_the_tool_makes_of_kafkas_answers():
    spec = importlib.util.spec_from_file_location("kafka_offsets", ROOT / "vectors" / "tools" / "kafka_offsets.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    answers = {a["id"]: a for a in map(json.loads, tool.ANSWERS.read_text(encoding="utf-8").splitlines())}
    assert tool.vectors(answers) == KAFKA
    # an answer that reads back another value than the one written stops the tool
    vid = KAFKA[-1]["id"]
    with pytest.raises(SystemExit, match="not the value written"):
        tool.vectors({**answers, vid: {**answers[vid], "value": {**answers[vid]["value"], "offset": 1}}})


def test_a_version_without_vectors_is_a_gap():
    vectors = [v for v in load_vectors() if (v["message"], v.get("version")) != ("GroupMetadataValue", 4)]
    assert gaps(vectors, CLASSIC_RECORDS) == [
        "GroupMetadataValue v4: no invalid vector to decode",
        "GroupMetadataValue v4: no valid vector to decode",
        "GroupMetadataValue v4: no valid vector to encode",
    ]


def test_the_vectors_hold_what_each_version_adds():
    # by hand from Kafka's message JSON: rebalanceTimeout from v1, currentStateTimestamp from v2, groupInstanceId
    # from v3, expireTimestamp in v1 only, leaderEpoch from v3
    for v in KAFKA:
        e, n = v["expected"], v["version"]
        if v["message"] == "GroupMetadataValue":
            assert ("currentStateTimestamp" in e) == (n >= 2)
            for m in e["members"]:
                assert ("rebalanceTimeout" in m) == (n >= 1) and ("groupInstanceId" in m) == (n >= 3)
        if v["message"] == "OffsetCommitValue":
            assert ("expireTimestamp" in e) == (n == 1) and ("leaderEpoch" in e) == (n >= 3)
            assert "topicId" not in e or n == 4
        assert int(v["wire"][:4], 16) == (e["valueVersion"] if "valueVersion" in e else n)
    empty = BY_ID["kj-groupmetadatavalue-v4-empty"]["expected"]
    assert empty["protocol"] is None and empty["leader"] is None and empty["members"] == []
    members = BY_ID["kj-groupmetadatavalue-v4-bytes"]["expected"]["members"]
    assert {len(base64.b64decode(m["assignment"])) for m in members} == {0, 16_500}
    # v4 is flexible: the 16,500 bytes' compact length is uvarint(16,501) = 0xf5 0x80 0x01
    assert "f58001" in BY_ID["kj-groupmetadatavalue-v4-bytes"]["wire"]


def test_the_capture_reader_reads_kafkas_records():
    key = bytes.fromhex(BY_ID["kj-groupmetadatakey-v2-0"]["wire"])
    for v in KAFKA:
        if v["message"] == "GroupMetadataValue":
            rec = decode_record(key, bytes.fromhex(v["wire"]), "line 1")
            assert rec.value_version == v["version"] and rec.value.generation == v["expected"]["generation"]
            assert [m.member_id for m in rec.value.members] == [m["memberId"] for m in v["expected"]["members"]]
    for kid in ("kj-offsetcommitkey-v0-0", "kj-offsetcommitkey-v1-0"):
        k = BY_ID[kid]
        rec = decode_record(bytes.fromhex(k["wire"]), bytes.fromhex(BY_ID["kj-offsetcommitvalue-v3-0"]["wire"]), "x")
        assert rec.key_version == k["version"] and rec.key.topic == k["expected"]["topic"]
        assert rec.value.leader_epoch == 7 and rec.value.offset == 42_137


@pytest.mark.parametrize("vid", [v["id"] for v in KAFKA if v["message"] == "GroupMetadataValue"])
def test_the_pipelines_own_reader_and_writer_agree_with_kafka(vid):
    # codec/pipeline/offsets.py is a hand-written reader of these records, apart from the schema tables
    v = BY_ID[vid]
    g = decode_group_metadata(bytes.fromhex(v["wire"]))
    e = v["expected"]
    assert (g.version, g.protocol_type, g.generation, g.protocol, g.leader) == (
        e["valueVersion"],
        e["protocolType"],
        e["generation"],
        e["protocol"],
        e["leader"],
    )
    assert g.current_state_timestamp == e.get("currentStateTimestamp", -1)
    assert [
        (m.member_id, m.group_instance_id, m.rebalance_timeout, base64.b64encode(m.assignment).decode())
        for m in g.members
    ] == [
        (m["memberId"], m.get("groupInstanceId"), m.get("rebalanceTimeout", -1), m["assignment"]) for m in e["members"]
    ]
    assert encode_group_metadata(g).hex() == v["wire"]
    assert group_metadata_key(bytes.fromhex(BY_ID["kj-groupmetadatakey-v2-0"]["wire"])) == (2, "payments-app")


def test_the_kinds_on_the_command_line(capsys):
    v = BY_ID["kj-groupmetadatavalue-v3-0"]
    status, out, _ = cli(capsys, "decode", "--kind", "group-metadata-value", v["wire"])
    assert status == 0 and json.loads(out) == v["expected"]
    status, out, _ = cli(capsys, "encode", "--kind", "group-metadata-value", json.dumps(v["expected"]))
    assert status == 0 and out.strip() == v["wire"]
    # the key's version is its record type: 0 and 1 both an OffsetCommitKey, written as 1 unless asked for 0
    k0, k1 = BY_ID["kj-offsetcommitkey-v0-0"], BY_ID["kj-offsetcommitkey-v1-0"]
    for k in (k0, k1):
        status, out, _ = cli(capsys, "decode", "--kind", "offset-commit-key", k["wire"])
        assert status == 0 and json.loads(out) == k["expected"]
    status, out, _ = cli(capsys, "encode", "--kind", "offset-commit-key", json.dumps(k1["expected"]))
    assert status == 0 and out.strip() == k1["wire"]
    status, out, _ = cli(capsys, "encode", "--kind", "offset-commit-key", "--version", "0", json.dumps(k0["expected"]))
    assert status == 0 and out.strip() == k0["wire"]
    status, _, err = cli(capsys, "encode", "--kind", "offset-commit-key", "--version", "2", json.dumps(k0["expected"]))
    assert status == 1 and "no version 2 (valid 0, 1)" in err
    status, _, err = cli(capsys, "decode", "--kind", "offset-commit-key", BY_ID["kj-groupmetadatakey-v2-0"]["wire"])
    assert status == 1 and "record type 2" in err and "at offset 0 in record_type" in err
    status, out, _ = cli(
        capsys,
        "decode",
        "--kind",
        "group-metadata-key",
        "--format",
        "pretty",
        BY_ID["kj-groupmetadatakey-v2-0"]["wire"],
    )
    assert status == 0 and "GroupMetadataKey v2" in out and '"payments-app"' in out


TOPIC_ID = "7b1c9e2a-4d3f-4e8a-9c51-2f6d0a83b4e7"  # the id kafka_offsets.py gave Kafka's class, in Kafka's JSON below


def test_a_kafka_4_offset_commit_carries_its_topic_id_in_tag_0():
    # by hand from OffsetCommitValue.json at 4.3.1: v4 ends with its tagged fields, here one (count 01): tag 0,
    # size 16, the uuid's bytes; Kafka's JSON writes the uuid in URL-safe base64 without padding
    with_id, without = BY_ID["kj-offsetcommitvalue-v4-topicid"], BY_ID["kj-offsetcommitvalue-v4-0"]
    assert with_id["wire"] == without["wire"][:-2] + "010010" + TOPIC_ID.replace("-", "")
    assert with_id["expected"]["topicId"] == base64.urlsafe_b64encode(
        bytes.fromhex(TOPIC_ID.replace("-", ""))
    ).decode().rstrip("=")
    key = bytes.fromhex(BY_ID["kj-offsetcommitkey-v1-0"]["wire"])
    rec = decode_record(key, bytes.fromhex(with_id["wire"]), "line 1")
    assert str(rec.value.topic_id) == TOPIC_ID and rec.value.unknown_tagged_fields == {}
    rec = decode_record(key, bytes.fromhex(without["wire"]), "line 2")
    assert rec.value.topic_id.int == 0 and rec.value.offset == 42_137


def test_the_topic_id_on_the_command_line(capsys):
    v = BY_ID["kj-offsetcommitvalue-v4-topicid"]
    status, out, _ = cli(capsys, "decode", "--kind", "offset-commit-value", v["wire"])
    assert status == 0 and json.loads(out) == v["expected"]
    status, out, _ = cli(capsys, "decode", "--kind", "offset-commit-value", "--format", "pretty", v["wire"])
    assert status == 0 and "topic_id (tag 0)" in out and v["expected"]["topicId"] in out
    status, out, _ = cli(capsys, "encode", "--kind", "offset-commit-value", json.dumps(v["expected"]))
    assert status == 0 and out.strip() == v["wire"]
    # a topic id is an ignorable v4 field: at v3 it is left out, as Kafka's class leaves it out (4.3.1's
    # OffsetCommitValue, asked by hand, wrote v3-0's bytes; the rule vectors hold it: ignorable-dropped-topicid)
    v3 = {**v["expected"], "valueVersion": 3}
    status, out, _ = cli(capsys, "encode", "--kind", "offset-commit-value", json.dumps(v3))
    assert status == 0 and out.strip() == BY_ID["kj-offsetcommitvalue-v3-0"]["wire"]
