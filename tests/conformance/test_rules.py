"""The rule vectors (issue #27): a vector for every rule Kafka's generated readers and writers enforce, made from
the schemas and judged by Kafka's own classes (vectors/kafka-java-rules-*.jsonl, vectors/tools/kafka-rules.answers.jsonl)."""

from __future__ import annotations

import json
import shutil

import pytest

from codec.conformance.coverage import ENFORCED, rule_gaps, rules_that_apply, supported
from codec.conformance.handcrafted_case import binding_or_none, is_rules_file, rules_files
from codec.conformance.handcrafted_rules import (
    ANSWERS,
    CLASSIC_COMMIT,
    KAFKA4_COMMIT,
    KAFKA44_COMMIT,
    SHARE_COMMIT,
    RuleError,
    binding,
    rule_vectors,
)
from codec.conformance.vectors import load_vectors, vectors_dir


@pytest.fixture(scope="module")
def rules() -> list[dict]:
    return load_vectors(rules_files(vectors_dir()))


@pytest.fixture(scope="module")
def answers() -> dict[str, dict]:
    lines = (vectors_dir() / ANSWERS).read_text(encoding="utf-8").split("\n")
    return {a["id"]: a for a in map(json.loads, filter(str.strip, lines))}


def test_every_rule_vector_is_a_kafka_answer(rules, answers):
    for v in rules:
        p = v["provenance"]
        a = answers[v["id"]]
        assert p["source"] == "kafka-java" and p["commit"] == a["commit"] in (
            CLASSIC_COMMIT,
            KAFKA4_COMMIT,
            SHARE_COMMIT,
            KAFKA44_COMMIT,
        ), v["id"]
        assert p["checkedBy"].startswith(a["class"]) and p["record"].endswith(":" + v["id"]), v["id"]
        # a refusal is an exception of Kafka's; an acceptance is bytes Kafka wrote or read
        assert (v["result"] == "invalid") == (not a["ok"]), v["id"]
        if v["result"] == "invalid":
            assert a["error"].split(":")[0].split(".")[-1] in p["note"], v["id"]


def test_every_message_and_version_has_a_vector_of_every_rule_that_applies():
    assert rule_gaps(load_vectors()) == []


def test_a_missing_rule_class_is_reported():
    vectors = [
        v
        for v in load_vectors()
        if not (v["message"] == "HeartbeatRequest" and v["version"] == 4 and "long-varint" in v["flags"])
    ]
    assert rule_gaps(vectors) == ["HeartbeatRequest v4: no vector of a varint over five bytes"]
    vectors = [v for v in vectors if not (v["message"] == "ConsumerProtocolAssignment" and (v["version"] or 0) < 0)]
    assert "ConsumerProtocolAssignment v0: no vector of a version prefix below the lowest" in rule_gaps(vectors)
    vectors = [v for v in vectors if not (v["message"] == "SyncGroupRequest" and "wrapped-length" in v["flags"])]
    assert "SyncGroupRequest v5: no vector of a compact length Java's int wraps" in rule_gaps(vectors)


def test_which_rules_apply_by_hand():
    # HeartbeatRequest v0: groupId, generationId, memberId (strings not nullable), no array, no ignorable field
    # absent (groupInstanceId v3+ is not ignorable), not flexible
    assert rules_that_apply("HeartbeatRequest", 0) == [
        "null in a non-nullable field, read",
        "null in a non-nullable field, written",
        "a length past the input",
        "every field set",
    ]
    # v4: flexible; groupInstanceId nullable
    assert set(rules_that_apply("HeartbeatRequest", 4)) == {
        "null in a non-nullable field, read",
        "null in a non-nullable field, written",
        "null in a nullable field",
        "a length past the input",
        "every field set",
        "unknown tagged fields",
        "a varint over five bytes",
        "a compact length Java's int wraps",
    }
    # HeartbeatResponse v4: throttleTimeMs and errorCode, no length; RequestHeader v2: clientId is an int16 string
    # in every version (its own flexibleVersions: none)
    for message, version in (("HeartbeatResponse", 4), ("RequestHeader", 2)):
        assert "a varint over five bytes" in rules_that_apply(message, version)
        assert "a compact length Java's int wraps" not in rules_that_apply(message, version)
    assert rules_that_apply("AssignmentInfo", 7) == [] and rules_that_apply("RequestFrame", 3) == []
    assert "a version prefix below the lowest" in rules_that_apply("ConnectMetadata", 0)
    assert "null in a non-nullable field, written" not in rules_that_apply("ConnectMetadata", 0)


def test_every_enforced_message_but_assignment_info_has_a_kafka_class():
    # AssignmentInfo and the sticky assignors' user data are read by hand-written Kafka code with no class to ask a
    # rule case of (Streams' AssignmentInfo.decode, the assignors' memberData): handcrafted.py's vectors hold the first,
    # the assignors' own readings (kafka-java-sticky-user-data.jsonl) the others
    unbound = ("AssignmentInfo", "StickyAssignorUserData", "CooperativeStickyAssignorUserData")
    for message in ENFORCED:
        if message in (*unbound, "RequestFrame", "ResponseFrame"):
            assert binding_or_none(message) is None, message
            continue
        assert binding(message, supported()[message][0]) is not None, message


def _vector(rules, vid):
    return next(v for v in rules if v["id"] == vid)


def test_rule_vectors_by_hand(rules):
    # ResponseHeader v1, correlation id 7 (hc-responseheader-v1-0), with tags 1 (two bytes "ab") and 300 (none):
    # count 2, tag 1, size 2, 61 62, tag 300 as the uvarint ac 02, size 0, as Kafka writes them (the sizes are what
    # aiokafka 0.14's writer leaves out)
    v = _vector(rules, "kr-responseheader-v1-unknown-tagged")
    assert v["wire"] == "00000007" + "02" + "01" + "02" + "6162" + "ac02" + "00"
    assert v["expected"] == {"correlationId": 7, "_unknownTaggedFields": {"1": "6162", "300": ""}}
    # HeartbeatRequest v0 of kio's case 0 with groupId null: int16 -1 in its place, the rest as it was
    v = _vector(rules, "kr-heartbeatrequest-v0-null-read-groupid")
    assert v["wire"].startswith("ffff") and v["result"] == "invalid" and v["offset"] == 0
    # ConsumerProtocolAssignment behind version -1: ffff, then the v0 body
    v = _vector(rules, "kr-consumerprotocolassignment-v0-version-prefix")
    assert v["wire"].startswith("ffff") and v["version"] == -1
    # a six-byte varint where the top-level tagged-field count was (00): 80 80 80 80 80 00
    v = _vector(rules, "kr-heartbeatrequest-v4-long-varint")
    assert v["wire"].endswith("808080808000")
    # HeartbeatRequest v4 of kio's case 96: groupId "" (01), generationId 0, memberId "" (01), groupInstanceId null
    # (00), no tagged fields (00). memberId's length as the uvarint 2**32 - 1: -2 to Kafka's int, refused; as 2**31
    # (Integer.MAX_VALUE once one less), refused; as its own 1 in five bytes with 70 in the last, read as 1
    v = _vector(rules, "kr-heartbeatrequest-v4-wrapped-length-memberid")
    assert (v["wire"], v["result"], v["offset"]) == ("01" + "00000000" + "ffffffff0f" + "00" + "00", "invalid", 5)
    v = _vector(rules, "kr-heartbeatrequest-v4-wrapped-length-int-min-memberid")
    assert (v["wire"], v["result"]) == ("01" + "00000000" + "8080808008" + "00" + "00", "invalid")
    v = _vector(rules, "kr-heartbeatrequest-v4-wrapped-length-high-bits-memberid")
    assert (v["wire"], v["result"]) == ("01" + "00000000" + "8180808070" + "00" + "00", "acceptable")
    assert v["expected"] == {"groupId": "", "generationId": 0, "memberId": "", "groupInstanceId": None}
    # the nullable groupInstanceId (set in the filled value, "groupInstanceId-4"): -2 is null to Kafka
    v = _vector(rules, "kr-heartbeatrequest-v4-wrapped-length-groupinstanceid")
    assert v["wire"].endswith("ffffffff0f00") and v["result"] == "acceptable"
    assert v["expected"]["groupInstanceId"] is None and v["expected"]["memberId"] == "memberId-3"


def _copy(tmp_path):
    d = tmp_path / "vectors"
    (d / "tools").mkdir(parents=True)
    for path in vectors_dir().glob("*.jsonl"):
        if not is_rules_file(path.name):
            shutil.copy(path, d / path.name)
    return d


def test_a_case_without_kafkas_answer_stops_the_generator(tmp_path, answers):
    d = _copy(tmp_path)
    lines = [json.dumps(a) for i, a in answers.items() if i != "kr-heartbeatrequest-v0-null-read-groupid"]
    (d / ANSWERS).write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(RuleError, match="kr-heartbeatrequest-v0-null-read-groupid: no answer from Kafka"):
        rule_vectors(d, ["HeartbeatRequest"])


def test_an_answer_against_the_rule_stops_the_generator(tmp_path, answers):
    d = _copy(tmp_path)
    flipped = dict(answers)
    flipped["kr-heartbeatrequest-v0-null-read-groupid"] = {
        **answers["kr-heartbeatrequest-v0-null-read-groupid"],
        "ok": True,
        "hex": "00",
        "value": {},
    }
    (d / ANSWERS).write_text("\n".join(map(json.dumps, flipped.values())) + "\n", encoding="utf-8")
    with pytest.raises(RuleError, match="kr-heartbeatrequest-v0-null-read-groupid: Kafka accepted it"):
        rule_vectors(d, ["HeartbeatRequest"])


def test_the_tables_at_kafka_4_4_are_the_schemas_that_say_so():
    """Which Kafka classes judge a message's rule cases follows from its schema file (``"follows": "4.4"``), not a
    hand-kept list: the commit is the 4.4 row of the per-release table, and a schema dropped in that says so is bound
    to it, one that does not to the release its family follows."""
    from codec.wire.schema import raw_message, schema_overrides

    releases = json.loads((vectors_dir() / "releases" / "kafka-versions.json").read_text(encoding="utf-8"))
    assert KAFKA44_COMMIT == releases["releases"]["4.4"]["commit"]
    assert binding("StreamsGroupTopologyDescriptionUpdateRequest", 0).commit == KAFKA44_COMMIT
    assert binding("ConsumerGroupHeartbeatRequest", 0).commit == KAFKA4_COMMIT
    copy = {**raw_message("ConsumerGroupHeartbeatRequest"), "name": "ExampleGroupHeartbeatRequest", "apiKey": 1000}
    with schema_overrides({"ExampleGroupHeartbeatRequest": {**copy, "follows": "4.4"}}):
        assert binding("ExampleGroupHeartbeatRequest", 0).commit == KAFKA44_COMMIT
    with schema_overrides({"ExampleGroupHeartbeatRequest": copy}):
        assert binding("ExampleGroupHeartbeatRequest", 0).commit == KAFKA4_COMMIT
    # every table's judging commit is its head's (the classic group's, share groups' 4.1), none kept by name
    assert binding("JoinGroupRequest", 0).commit == binding("RequestHeader", 0).commit == CLASSIC_COMMIT
    assert binding("ShareGroupHeartbeatRequest", 0).commit == SHARE_COMMIT
    for follows, commit in (("1eb7644", CLASSIC_COMMIT), ("4.1", SHARE_COMMIT)):
        with schema_overrides({"ExampleGroupHeartbeatRequest": {**copy, "follows": follows}}):
            assert binding("ExampleGroupHeartbeatRequest", 0).commit == commit
    with schema_overrides({"ExampleGroupHeartbeatRequest": {**copy, "follows": "9.9"}}):
        with pytest.raises(RuleError, match="follows '9.9'"):
            binding("ExampleGroupHeartbeatRequest", 0)
        assert binding_or_none("ExampleGroupHeartbeatRequest", 0) is None
