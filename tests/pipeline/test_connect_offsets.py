"""A Kafka Connect group as the coordinator stores it in ``__consumer_offsets``: each worker's metadata and the
assignment the leader gave it decode into the pipeline's Connect units, as they do from JoinGroup and SyncGroup
frames. The Connect bytes and the values they must give are Kafka's own (``connect.jsonl``)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pyarrow")

from codec.pipeline.arrow import decode_table  # noqa: E402
from codec.pipeline.offsets import (
    GroupMetadata,
    MemberMetadata,
    encode_group_metadata,  # noqa: E402
    encode_group_metadata_key,
)
from codec.pipeline.records import RecordError, decode_record  # noqa: E402
from tests.conftest import SHARED  # noqa: E402

RECORDS = [json.loads(line) for line in (SHARED / "vectors" / "kafka-java" / "connect.jsonl").read_text().splitlines()]
META = next(r for r in RECORDS if r["kind"] == "ConnectMetadata" and r["version"] == 2 and r["decoded"]["url"])
ASSIGN = next(
    r
    for r in RECORDS
    if r["kind"] == "ConnectAssignment"
    and r["version"] == 2
    and r["decoded"]["connectorIds"]
    and "java-hash-order" not in r.get("flags", ())
)
CUT = next(r for r in RECORDS if r["kind"] == "ConnectAssignmentReadAsIncremental" and "error" in r)


def group(assignment: bytes) -> bytes:
    m = MemberMetadata("worker-1", None, "connect-1", "/10.0.0.9", 60000, 10000, bytes.fromhex(META["hex"]), assignment)
    return encode_group_metadata(GroupMetadata(3, "connect", 4, "sessioned", "worker-1", 1700000000000, (m,)))


def test_a_connect_groups_members_decode_to_kafkas_values():
    units = decode_record("group-metadata", group(bytes.fromhex(ASSIGN["hex"])), key=encode_group_metadata_key("c"))
    assert [type(u).__name__ for u in units] == ["GroupUnit", "ConnectUnit", "ConnectUnit"]
    g, meta, asg = units
    assert (g.group, g.generation, g.leader) == ("c", 4, "worker-1")
    assert (meta.layer, meta.member, meta.generation, meta.group) == ("metadata", "worker-1", 4, "c")
    assert meta.info.url == META["decoded"]["url"] and meta.info.config_offset == META["decoded"]["configOffset"]
    assert asg.layer == "assignment"
    assert list(asg.info.connectors) == ASSIGN["decoded"]["connectorIds"]
    assert [{"connector": t.connector, "task": t.task} for t in asg.info.tasks] == ASSIGN["decoded"]["taskIds"]


def test_the_arrow_rows_carry_the_connect_units():
    key = encode_group_metadata_key("c")
    rows = decode_table(
        [{"kind": "group-metadata", "key": key, "data": group(bytes.fromhex(ASSIGN["hex"])), "record_id": "r"}]
    ).to_pylist()
    connect = [r for r in rows if r["unit_kind"] == "connect"]
    assert [(r["connect_layer"], r["member"], r["group"]) for r in connect] == [
        ("metadata", "worker-1", "c"),
        ("assignment", "worker-1", "c"),
    ]
    assert connect[0]["url"] == META["decoded"]["url"]
    assert not any(r["error_type"] for r in rows)


def test_bytes_kafkas_reader_refuses_are_quarantined_with_their_path():
    with pytest.raises(RecordError) as e:
        decode_record("group-metadata", group(bytes.fromhex(CUT["hex"])), key=encode_group_metadata_key("c"))
    assert e.value.path.startswith("members[0].assignment") and e.value.layer == "ConnectAssignment"
