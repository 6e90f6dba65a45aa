"""Kafka 4.4's records (issue #43): StreamsGroupMetadataValue's tags 2-3 (StoredDescriptionTopologyEpoch,
FailedDescriptionTopologyEpoch), ShareGroupTargetAssignmentMetadataValue's tag 0 (AssignmentTimestamp, KIP-1263, since
4.3.0) and the share coordinator's own records (ShareSnapshot, ShareUpdate: ``__share_group_state``, record types 0
and 1 of that coordinator). Kafka's generated classes at the 4.4 branch (8d3916cfe1) wrote
``vectors/kafka-java-records44.jsonl`` (vectors/tools/kafka_topology44.py): through the command line each decodes to
Kafka's values and encodes to Kafka's bytes; the registry keeps each coordinator's record types apart."""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys

import pytest

from codec.errors import DecodeError
from codec.wire import registry
from codec.wire.records import decode_record, encode_record
from tests.conftest import ROOT

VECTORS = [
    json.loads(line)
    for line in (ROOT / "vectors" / "kafka-java-records44.jsonl").read_text(encoding="utf-8").splitlines()
]


def _groups() -> dict[str, list[dict]]:
    g: dict[str, list[dict]] = collections.defaultdict(list)
    for v in VECTORS:
        g[v["message"]].append(v)
    return dict(sorted(g.items()))


GROUPS = _groups()


def kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def run(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codec", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_every_record_part_has_kafka_written_vectors():
    want = {
        "StreamsGroupMetadataValue",
        "ShareGroupTargetAssignmentMetadataValue",
        "ShareSnapshotKey",
        "ShareSnapshotValue",
        "ShareUpdateKey",
        "ShareUpdateValue",
    }
    assert set(GROUPS) == want and all(v["version"] is None for v in VECTORS)
    assert all(v["provenance"]["commit"] == "8d3916cfe15f13a2d878c79d302ba2d63172f0af" for v in VECTORS)


@pytest.mark.parametrize("message", list(GROUPS))
def test_kafka_written_records_through_the_cli(message):
    # a record part's version is in its bytes (the value's int16 prefix; a key's record type gives it): --version 0,
    # the one version of each, as Kafka 4.4 writes them
    vecs = GROUPS[message]
    args = ["--kind", kebab(message), "--version", "0", "--lines", "--style", "kafka"]
    d = run(["decode", *args], "".join(v["wire"] + "\n" for v in vecs))
    assert d.returncode == 0, d.stderr
    assert [json.loads(line) for line in d.stdout.splitlines()] == [v["expected"] for v in vecs]
    e = run(["encode", *args], "".join(json.dumps(v["expected"], ensure_ascii=False) + "\n" for v in vecs))
    assert e.returncode == 0, e.stderr
    assert e.stdout.splitlines() == [v["wire"] for v in vecs]


def test_the_new_tags_read_as_their_defaults_when_absent():
    # a value with only its untagged fields (as an older release wrote it): Kafka's class read the tags' defaults
    absent = {v["message"]: v["expected"] for v in VECTORS if v["id"].endswith("-v0-12")}
    smv = absent["StreamsGroupMetadataValue"]
    assert (smv["storedDescriptionTopologyEpoch"], smv["failedDescriptionTopologyEpoch"]) == (-1, -1)
    assert absent["ShareGroupTargetAssignmentMetadataValue"]["assignmentTimestamp"] == 0
    filled = next(v for v in VECTORS if v["id"] == "kj44-streamsgroupmetadatavalue-v0-0")["expected"]
    assert filled["storedDescriptionTopologyEpoch"] != -1 and filled["failedDescriptionTopologyEpoch"] != -1


def test_each_coordinator_numbers_its_own_records():
    group, share = registry.record_types(), registry.record_types("share")
    assert {t: r.name for t, r in share.items()} == {0: "ShareSnapshot", 1: "ShareUpdate"}
    # the group coordinator's types 0 and 1 stay the classic OffsetCommit keys: nothing is shadowed
    assert (group[0].name, group[1].name) == ("OffsetCommit", "OffsetCommit")
    assert not {r.name for r in group.values()} & {r.name for r in share.values()}
    assert share[0].topic == "__share_group_state" and group[17].topic == "__consumer_offsets"
    assert (
        registry.record_for("ShareUpdateValue") == (1,) and registry.record_of("ShareUpdateKey").coordinator == "share"
    )
    assert registry.record_for("OffsetCommitKey") == (1, 0)
    with pytest.raises(ValueError, match="no coordinator"):
        registry.record_types("transaction")


def test_a_share_coordinator_record_whole():
    key = next(v for v in VECTORS if v["message"] == "ShareUpdateKey")
    value = next(v for v in VECTORS if v["message"] == "ShareUpdateValue")
    got = decode_record(bytes.fromhex(key["wire"]), bytes.fromhex(value["wire"]), coordinator="share")
    assert (got["recordType"], got["record"], got["key"]) == (1, "ShareUpdate", key["expected"])
    assert {"valueVersion": got["valueVersion"], **got["value"]} == value["expected"]
    assert encode_record(got, coordinator="share") == (bytes.fromhex(key["wire"]), bytes.fromhex(value["wire"]))
    # the same key bytes given to the group coordinator are read as its type 1, an OffsetCommit key (v1), which they
    # are not: never as a ShareUpdate
    with pytest.raises(DecodeError, match="OffsetCommitKey v1"):
        decode_record(bytes.fromhex(key["wire"]), None)


def test_a_share_coordinator_key_is_not_a_group_key():
    # a ShareSnapshot key given to the kind of the group coordinator's OffsetCommit key: told, not read as one
    key = next(v for v in VECTORS if v["message"] == "ShareSnapshotKey")
    d = run(["decode", "--kind", "share-update-key"], key["wire"] + "\n")
    assert d.returncode != 0 and "record type 0" in d.stderr and "Traceback" not in d.stderr


def test_the_pretty_view_shows_the_topology_description_as_a_tree():
    # a struct field (TopologyDescription, a global store's Source) is shown field by field under its name, as the
    # Kafka-written value has it, never as a Python object
    topo = [
        json.loads(line)
        for line in (ROOT / "vectors" / "kafka-java-topology44.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    v = next(
        v
        for v in topo
        if v["message"] == "StreamsGroupTopologyDescriptionUpdateRequest"
        and v["expected"]["topologyDescription"]["globalStores"]
    )
    args = [
        "decode",
        "--kind",
        "streams-group-topology-description-update-request",
        "--version",
        "0",
        "--format",
        "pretty",
    ]
    d = run(args, v["wire"])
    assert d.returncode == 0, d.stderr
    assert "Data." not in d.stdout and "unknown_tagged_fields" not in d.stdout
    store = v["expected"]["topologyDescription"]["globalStores"][0]
    assert "  topology_description:\n    subtopologies" in d.stdout
    source = d.stdout.split("source:")[1].splitlines()[1].split()
    assert source == ["name", '"' + store["source"]["name"] + '"']
    r = next(v for v in VECTORS if v["message"] == "ShareUpdateKey")
    d = run(["decode", "--kind", "share-update-key", "--format", "pretty"], r["wire"])
    assert d.returncode == 0 and d.stdout.startswith("ShareUpdate record (__share_group_state type 1)")


def test_streams_topology_rpcs_have_kafka_written_vectors_at_every_version():
    # tests/group/test_admin_rpcs.py runs every kafka-*.answers.jsonl through the CLI, these among them
    topo = [
        json.loads(line)
        for line in (ROOT / "vectors" / "tools" / "kafka-topology44.answers.jsonl").read_text("utf-8").splitlines()
    ]
    got = {(r["kind"], r["version"]) for r in topo}
    describe = {(f"StreamsGroupDescribe{side}", v) for side in ("Request", "Response") for v in (0, 1)}
    update = {(f"StreamsGroupTopologyDescriptionUpdate{side}", 0) for side in ("Request", "Response")}
    assert got == describe | update
    v1 = [r["data"] for r in topo if (r["kind"], r["version"]) == ("StreamsGroupDescribeResponse", 1)]
    groups = [g for d in v1 for g in d["groups"]]
    assert any(g["topologyDescription"] is not None for g in groups)
    assert any(g["topologyDescription"] is None for g in groups)
