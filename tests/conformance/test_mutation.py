"""The suite's own mutation score (issue #27): mutants of schemas/, the codec built from each, the vectors
that must kill it, the equivalence list and vectors/README.md's figures."""

from __future__ import annotations

import argparse
import json

import pytest

from codec.conformance.coverage import embedded_block
from codec.conformance.mutation import (
    MARKERS,
    OPERATORS,
    Suite,
    cmd_vectors_mutate,
    equivalent_path,
    mutants,
    read_equivalent,
    render_summary,
    results_path,
    run_mutant,
    sample,
    summary,
)
from codec.conformance.vectors import load_rounds, load_vectors
from codec.group.messages import decode_message
from codec.wire import fastpath, native
from codec.wire.builder import encode_wire
from codec.wire.schema import load_message, schema_names, schema_overrides
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def suite() -> Suite:
    return Suite(load_vectors(), load_rounds())


def _mutant(mid: str):
    return next(m for m in mutants([mid.split(":")[1]]) if m.id == mid)


def test_the_mutants_of_heartbeat_request_by_hand():
    # HeartbeatRequest: GroupId string 0+, GenerationId int32 0+, MemberId string 0+, GroupInstanceId string 3+
    # nullable 3+ (default null, not ignorable); valid 0-4, flexible 4+
    ids = {m.id for m in mutants(["HeartbeatRequest"])}
    assert ids == {
        "flexible-late:HeartbeatRequest",
        "flexible-early:HeartbeatRequest",
        "nullable-added:HeartbeatRequest:GroupId",
        "nullable-added:HeartbeatRequest:MemberId",
        "nullable-removed:HeartbeatRequest:GroupInstanceId",
        "int-widened:HeartbeatRequest:GenerationId",
        "fields-swapped:HeartbeatRequest:GroupId+GenerationId",
        "fields-swapped:HeartbeatRequest:GenerationId+MemberId",
        "fields-swapped:HeartbeatRequest:MemberId+GroupInstanceId",
        "field-dropped:HeartbeatRequest:GroupId",
        "field-dropped:HeartbeatRequest:GenerationId",
        "field-dropped:HeartbeatRequest:MemberId",
        "field-dropped:HeartbeatRequest:GroupInstanceId",
        "field-late:HeartbeatRequest:GroupInstanceId:start",
        "field-early:HeartbeatRequest:GroupInstanceId:start",
        "ignorable-added:HeartbeatRequest:GroupInstanceId",
    }
    late = _mutant("field-late:HeartbeatRequest:GroupInstanceId:start")
    assert next(f for f in late.table["fields"] if f["name"] == "GroupInstanceId")["versions"] == "4+"
    assert _mutant("flexible-early:HeartbeatRequest").table["flexibleVersions"] == "3+"
    # a nested field of a common struct is named by its struct, and the table's copy is the one changed
    m = _mutant("nullable-added:ConsumerProtocolAssignment:TopicPartition.Topic")
    assert m.table != load_message("ConsumerProtocolAssignment") and "nullableVersions" in json.dumps(m.table)


def test_the_flexible_boundary_moves_from_the_first_valid_version():
    # ShareGroupHeartbeatRequest: validVersions "1", flexibleVersions "0+" (Kafka 4.1 removed v0, kept the "0+"):
    # the boundary a reader sees is v1, so the late mutant makes v1 inflexible (2+) and there is no early one (0+
    # and the flexible-from-v1 table read every valid version alike)
    flex = {
        m.id: m.table["flexibleVersions"]
        for m in mutants(["ShareGroupHeartbeatRequest"])
        if m.operator.startswith("flexible")
    }
    assert flex == {"flexible-late:ShareGroupHeartbeatRequest": "2+"}


def test_a_mutant_reaches_both_paths_and_goes_away(suite):
    m = _mutant("int-widened:HeartbeatRequest:GenerationId")
    value = {"group_id": "g", "generation_id": 1, "member_id": "m"}
    normal = encode_wire("HeartbeatRequest", 0, value)
    assert decode_message("HeartbeatRequest", 0, normal).value.generation_id == 1  # the native tables filled
    with schema_overrides({m.message: m.table}):
        for codec, fast in (("native", True), ("python", True), ("python", False)):  # the engine, fast path, construct
            old, old_native = fastpath.set_enabled(fast), native.set_active(codec == "native")
            try:
                assert encode_wire("HeartbeatRequest", 0, value) == bytes.fromhex("000167000000000000000100016d")
                assert (
                    decode_message(
                        "HeartbeatRequest", 0, bytes.fromhex("000167000000000000000100016d")
                    ).value.generation_id
                    == 1
                )  # the hot path's own table too
            finally:
                fastpath.set_enabled(old)
                native.set_active(old_native)
    assert encode_wire("HeartbeatRequest", 0, value) == normal == bytes.fromhex("0001670000000100016d")
    # killed on both paths, by a vector of HeartbeatRequest
    r = run_mutant(suite, m)
    assert r.killed and all(k.startswith(("kj-", "kio-", "hc-", "kr-", "cap-")) for k in r.killed_by)


def test_a_null_tagged_array_kills_the_mutant_that_makes_it_non_nullable():
    # StreamsGroupCurrentMemberAssignmentValue's TaskIds.AssignmentEpochs (Kafka 4.2+): tagged 0, nullable, default
    # the empty array, so Kafka writes a null one (tag 0, size 1, marker 00); only that vector tells a table with
    # the field non-nullable apart, and without it the mutant survives
    m = _mutant("nullable-removed:StreamsGroupCurrentMemberAssignmentValue:TaskIds.AssignmentEpochs")
    null = "hc-k4-record-streams-group-current-member-assignment-value-null-epochs"
    own = [v for v in load_vectors() if v["message"] == m.message]
    assert run_mutant(Suite(own, []), m).killed_by == (null, null)
    assert not run_mutant(Suite([v for v in own if v["id"] != null], []), m).killed


def test_a_null_client_tag_key_kills_the_mutant_that_makes_it_nullable():
    # SubscriptionInfo v11+'s ClientTag.key made nullable: the mutant's codec reads Kafka's rule vector (a -1 length
    # there) as a tag with a null key. The kafka-style view sorted the tags and crashed on it, and the reference
    # adapter answered the crash as a refusal ("bad request: '<' not supported ..."), so the vector passed and the
    # mutant survived; the view now shows the null key, and the rule vector kills the mutant on both paths
    m = _mutant("nullable-added:SubscriptionInfo:ClientTag.key")
    key = "kr-subscriptioninfo-v11-null-read-clienttags-0-key"
    own = [v for v in load_vectors() if v["message"] == m.message]
    assert run_mutant(Suite(own, []), m).killed_by == (key, key)


# The APIs a consumer speaks around its group, which only the behaviour gate's scripted broker reads and writes
# (codec.conformance.behaviour): real clients read its answers and write its requests in every run of
# tests/conformance/test_behaviour.py, but no golden vector reads them yet (their vectors: issue #43's).
AROUND_THE_GROUP = {
    f"{api}{side}"
    for api in ("ApiVersions", "FindCoordinator", "Metadata", "OffsetFetch", "OffsetCommit", "ListOffsets", "Fetch")
    for side in ("Request", "Response")
}


def test_every_table_the_vectors_read_is_mutated(suite):
    # every table, the classic __consumer_offsets records' too (kafka-java-offsets.jsonl)
    assert sorted(set(schema_names()) - set(suite.reads) - AROUND_THE_GROUP) == []
    assert {k for k in suite.reads["RequestHeader"]} >= {("RequestFrame", 11), ("RequestFrame", 14)}


def test_a_sample_is_killed_or_listed_as_equivalent(suite):
    equivalent = read_equivalent(equivalent_path())
    names = [n for n in sorted(suite.reads)]
    ms = sample(mutants(names), 22)
    assert {m.operator for m in ms} == set(OPERATORS)
    survivors = [m.id for m in ms if not run_mutant(suite, m).killed]
    assert set(survivors) <= set(equivalent), [s for s in survivors if s not in equivalent]


def test_the_equivalence_list_names_mutants_with_reasons(tmp_path):
    equivalent = read_equivalent(equivalent_path())
    ids = {m.id for m in mutants()}
    assert equivalent and set(equivalent) <= ids
    bad = tmp_path / "equivalent.txt"
    bad.write_text("nullable-added:HeartbeatRequest:GroupId\n", encoding="utf-8")
    with pytest.raises(ValueError, match="has no reason"):
        read_equivalent(bad)


def _args(**kw) -> argparse.Namespace:
    return argparse.Namespace(
        **{
            "operator": None,
            "message": None,
            "sample": None,
            "equivalent": None,
            "write_results": None,
            "update": None,
            **kw,
        }
    )


def test_a_killed_mutant_listed_as_equivalent_is_stale(tmp_path, capsys, monkeypatch, suite):
    monkeypatch.setattr("codec.conformance.mutation.Suite", lambda *_: suite)  # built once for the module
    listed = tmp_path / "equivalent.txt"
    listed.write_text("int-widened:HeartbeatRequest:GenerationId  # a reason that is not true\n", encoding="utf-8")
    assert (
        cmd_vectors_mutate(_args(message=["HeartbeatRequest"], operator=["int-widened"], equivalent=str(listed))) == 1
    )
    out = capsys.readouterr().out
    assert "STALE int-widened:HeartbeatRequest:GenerationId: listed as equivalent, but" in out
    assert "| int-widened | 1 | 1 | 0 | 0 | 100.0 % |" in out


def test_an_unlisted_survivor_fails_the_run(tmp_path, capsys, monkeypatch, suite):
    monkeypatch.setattr("codec.conformance.mutation.Suite", lambda *_: suite)
    empty = tmp_path / "equivalent.txt"
    empty.write_text("", encoding="utf-8")
    assert (
        cmd_vectors_mutate(_args(message=["ConnectMetadata"], operator=["ignorable-added"], equivalent=str(empty))) == 1
    )
    out = capsys.readouterr().out
    assert "SURVIVED ignorable-added:ConnectMetadata:Allocation" in out
    assert "| ignorable-added | 1 | 0 | 0 | 1 | 0.0 % |" in out


def test_readme_figures_are_the_results_file():
    results = json.loads(results_path().read_text(encoding="utf-8"))
    readme = (ROOT / "vectors" / "README.md").read_text(encoding="utf-8")
    assert embedded_block(readme, MARKERS) == render_summary(results).strip(), (
        "vectors/README.md is stale: run `rebalance-codec vectors mutate --write-results vectors/mutation/results.json "
        "--update vectors/README.md`"
    )
    # the run recorded: nothing survived unlisted, the equivalent ones are the list, every mutant counted
    assert results["survived"] == []
    assert results["equivalent"] == sorted(read_equivalent(equivalent_path()))
    read = [n for n in schema_names() if n not in results["unread"]]
    assert results["mutants"] == len(mutants(read))
    assert results["mutants"] == sum(c.get("mutants", 0) for c in results["byOperator"].values())


@pytest.mark.mutation
def test_every_mutant_is_killed_or_equivalent(suite):
    equivalent = read_equivalent(equivalent_path())
    from codec.conformance.mutation import run_mutants

    ms = mutants(sorted(suite.reads))
    results = run_mutants(suite, ms)
    s = summary(results, equivalent, json.loads(results_path().read_text(encoding="utf-8"))["unread"])
    assert s["survived"] == []
    assert s == json.loads(results_path().read_text(encoding="utf-8"))
