"""The refusals and truncations of the RPCs around the group at Kafka 4.4 (coverage.KAFKA44_RPCS, issue #43): each
refusal is Kafka's verdict (its class at the 4.4 commit refused that very value), a refused field inside a struct is
set on one element holding it, and a field-less version has no cut."""

from __future__ import annotations

import json
import shutil

import pytest

from codec.conformance.coverage import KAFKA44_RPCS, refusal_fields, required, supported
from codec.conformance.handcrafted_case import ANSWERS, KAFKA44_COMMIT, RuleError
from codec.conformance.handcrafted_group import _cut_points, group_vectors, refusal_cases
from codec.conformance.vectors import load_vectors, vectors_dir


@pytest.fixture(scope="module")
def vectors():
    return load_vectors()


@pytest.fixture(scope="module")
def answers() -> dict[str, dict]:
    lines = (vectors_dir() / ANSWERS).read_text(encoding="utf-8").split("\n")
    return {a["id"]: a for a in (json.loads(line) for line in lines if line.strip())}


def _refusals(vectors):
    return [
        v
        for v in vectors
        if v["message"] in KAFKA44_RPCS and "wire" not in v and "encode-refused" in v["flags"] and "-refuse-" in v["id"]
    ]


def test_every_refusal_of_the_kafka44_rpcs_is_kafkas_answer_to_its_value(vectors, answers):
    refusals = _refusals(vectors)
    # every refused field of every message x version has one (34, nine of them null-default strings: set twice)
    fields = {(m, v, p) for m in KAFKA44_RPCS for v in supported()[m] for p in refusal_fields(m, v)}
    assert len(fields) == 34 and len(refusals) == 43
    for v in refusals:
        a = answers[v["id"]]
        assert v["provenance"]["record"] == f"vectors/{ANSWERS.as_posix()}:{v['id']}"
        assert a["commit"] == v["provenance"]["commit"] == KAFKA44_COMMIT
        assert a["ok"] is False and "UnsupportedVersionException: Attempted to write a non-default" in a["error"]
        assert a["error"].endswith(f"at version {v['version']}")
        # the answer is to this very value: the digest of the question made from the vector
        (case,) = [c for c in refusal_cases(vectors_dir()) if c.id == v["id"]]
        assert case.payload["value"] == v["expected"] and a["digest"] == case.question()["digest"]


def test_a_nested_refusal_keeps_one_element_holding_the_field(vectors):
    (v,) = [x for x in vectors if x["id"] == "hc-sharefetchrequest-v1-refuse-topics.partitions.partitionmaxbytes"]
    (topic,) = v["expected"]["topics"]
    (partition,) = topic["partitions"]
    assert partition["partitionMaxBytes"] == 1048576
    (v,) = [x for x in vectors if x["id"] == "hc-describegroupsresponse-v5-refuse-groups.errormessage-empty"]
    assert [g.get("errorMessage") for g in v["expected"]["groups"]] == [""]


def test_a_refusal_without_kafkas_answer_stops_the_build(tmp_path, answers):
    src = vectors_dir()
    for f in src.glob("*.jsonl"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "tools").mkdir()
    gone = "hc-listgroupsrequest-v4-refuse-typesfilter"
    kept = [json.dumps(a) for i, a in answers.items() if i != gone]
    (tmp_path / ANSWERS).write_text("\n".join(kept) + "\n", encoding="utf-8")
    with pytest.raises(RuleError, match=f"{gone}: no answer from Kafka's classes"):
        group_vectors(tmp_path)
    # an answer that Kafka wrote the value stops it too
    wrote = {**answers[gone], "ok": True, "hex": "00", "error": None}
    (tmp_path / ANSWERS).write_text("\n".join([*kept, json.dumps(wrote)]) + "\n", encoding="utf-8")
    with pytest.raises(RuleError, match=f"{gone}: Kafka's .*ListGroupsRequestData wrote it"):
        group_vectors(tmp_path)


def test_a_field_less_version_reads_no_byte_so_it_has_no_cut_and_no_invalid_bytes(vectors):
    # Kafka's ListGroupsRequestData at 8d3916cfe1 reads "" and "ffff" at v0 and v2 as {} (consuming nothing)
    assert _cut_points(0) == [] and _cut_points(1) == [0] and _cut_points(5) == [2, 4]
    for version in (0, 1, 2):
        assert ("decode", "invalid") not in required("ListGroupsRequest", version)
        assert not [v for v in vectors if v["id"].startswith(f"hc-listgroupsrequest-v{version}-cut")]
    assert ("decode", "invalid") in required("ListGroupsRequest", 3)
    assert [v["id"] for v in vectors if v["id"].startswith("hc-listgroupsrequest-v3-cut")]
