"""An admin's frames and the share coordinator's records in the pipeline (codec.pipeline.admin): DescribeGroups
responses -> ``members``/``assignments`` rows (kind ``describe-groups-response``), OffsetFetch exchanges ->
``offsets`` rows, ``__share_group_state`` records -> ``share_state`` rows. The frames are the ones Kafka's own 4.4
classes wrote (``tests/capture/kafka_admin_frames.jsonl``: its first line says what they hold; the Streams member's
layers are ``../shared/vectors/kafka-java/nested_streams.jsonl`` streams-v11), the records' keys and values
Kafka-written too (``vectors/kafka-java-records44.jsonl``); expected values are Kafka's."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest

pytest.importorskip("pyarrow", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from codec.pipeline.arrow import decode_table  # noqa: E402
from tests.conftest import KAFKA_VECTORS, ROOT, load_jsonl  # noqa: E402

from .conftest import read_table  # noqa: E402

FRAMES = [json.loads(x) for x in (ROOT / "tests" / "capture" / "kafka_admin_frames.jsonl").read_text().splitlines()][1:]
RECORDS44 = {r["id"]: r for r in load_jsonl(ROOT / "vectors" / "kafka-java-records44.jsonl")}
#: (key vector, value vector) of each __share_group_state record: six snapshots and six updates
SHARE = [(f"kj44-sharesnapshotkey-v0-{i}", f"kj44-sharesnapshotvalue-v0-{i}") for i in range(6)] + [
    (f"kj44-shareupdatekey-v0-{i}", f"kj44-shareupdatevalue-v0-{i}") for i in range(6)
]


def _frame_rows() -> list[dict]:
    return [
        {
            "record_id": f"f{i}",
            "kind": "frame",
            "hex": r["hex"],
            "api_key": r["apiKey"],
            "version": r["apiVersion"],
            "direction": r["direction"],
            "conn": 1,
            "correlation_id": r["correlationId"],
            "ts": 1_700_000_000 + i,
        }
        for i, r in enumerate(FRAMES)
    ]


def _share_rows() -> list[dict]:
    return [
        {"record_id": f"s{i}", "kind": "share-state-record", "key": RECORDS44[k]["wire"], "hex": RECORDS44[v]["wire"]}
        for i, (k, v) in enumerate(SHARE)
    ]


def _streams_v11() -> dict:
    return next(r for r in load_jsonl(KAFKA_VECTORS / "nested_streams.jsonl") if r["id"] == "streams-v11")


def test_describe_groups_units_without_spark():
    rows = [r for r in _frame_rows() if r["api_key"] == 15 and r["direction"] == "response"]
    units = decode_table(rows).to_pylist()
    assert not [u for u in units if u["unit_kind"] == "quarantine"]
    assert {u["kind"] for u in units} == {"describe-groups-response"}
    kafka = _streams_v11()
    sub, asg = kafka["subscription"]["decoded"], kafka["assignment"]["decoded"]
    by = defaultdict(list)
    for u in units:
        by[(u["record_id"], u["group"], u["unit_kind"])].append(u)
    for r in rows:
        (g,) = by[(r["record_id"], "gone", "group")]
        assert g["group_error_code"] == 69  # GROUP_ID_NOT_FOUND, as Kafka wrote it
        assert not by[(r["record_id"], "gone", "member")]
        (m,) = by[(r["record_id"], "streams-app", "member")]
        assert (m["process_id"], m["sub_version"], m["user_endpoint"]) == (
            sub["processId"],
            sub["version"],
            sub["userEndPoint"],
        )
        assert m["group_instance_id"] == ("app-1" if r["version"] >= 4 else None) and m["generation"] is None
        (a,) = by[(r["record_id"], "streams-app", "assignment")]
        assert [(t["subtopology"], t["partition"]) for t in a["active"]] == [
            (t["subtopology"], t["partition"]) for t in asg["activeTasks"]
        ]
        (m,) = by[(r["record_id"], "sticky-group", "member")]
        # the about line: StickyAssignor's user data after onAssignment([events-0, events-2, orders-1], generation 7)
        assert sorted((t["topic"], t["partitions"]) for t in m["sticky_partitions"]) == [
            ("events", [0, 2]),
            ("orders", [1]),
        ]
        assert (m["sticky_generation"], m["subscribed_topics"], m["client_id"]) == (7, ["events", "orders"], "c1")
        (a,) = by[(r["record_id"], "sticky-group", "assignment")]
        assert [(t["topic"], t["partitions"]) for t in a["topic_partitions"]] == [("events", [0, 2]), ("orders", [1])]


def test_share_state_units_without_spark():
    units = decode_table(_share_rows()).to_pylist()
    assert [u["unit_kind"] for u in units] == ["share-state"] * len(SHARE)
    for u, (k, v) in zip(units, SHARE):
        key, value = RECORDS44[k]["expected"], RECORDS44[v]["expected"]
        assert (u["group"], u["state_topic_id"], u["state_partition"]) == (
            key["groupId"],
            key["topicId"],
            key["partition"],
        )
        assert u["state_record"] == ("ShareSnapshot" if "snapshot" in k else "ShareUpdate")
        assert (u["snapshot_epoch"], u["state_leader_epoch"], u["start_offset"]) == (
            value["snapshotEpoch"],
            value["leaderEpoch"],
            value["startOffset"],
        )
        assert u["state_epoch"] == value.get("stateEpoch")
        dcc = value.get("deliveryCompleteCount", -1)
        assert u["delivery_complete_count"] == (None if dcc < 0 else dcc)
        assert [
            (b["first_offset"], b["last_offset"], b["delivery_state"], b["delivery_count"]) for b in u["state_batches"]
        ] == [
            (b["firstOffset"], b["lastOffset"], b["deliveryState"], b["deliveryCount"]) for b in value["stateBatches"]
        ]


def test_a_cut_share_state_record_is_quarantined_with_its_place():
    k, v = SHARE[0]
    row = {
        "record_id": "cut",
        "kind": "share-state-record",
        "key": RECORDS44[k]["wire"],
        "hex": RECORDS44[v]["wire"][:30],
    }
    (u,) = decode_table([row]).to_pylist()
    assert (u["unit_kind"], u["error_type"]) == ("quarantine", "TruncatedError") or u["unit_kind"] == "quarantine"
    assert "truncated" in u["error_message"] and u["error_offset"] is not None


@pytest.fixture(scope="module")
def admin_run(spark, tmp_path_factory):
    from codec.pipeline.job import Options, run

    tmp = tmp_path_factory.mktemp("admin-pipeline")
    tombstone = {"record_id": "t", "kind": "share-state-record", "key": RECORDS44[SHARE[0][0]]["wire"], "hex": None}
    rows = _frame_rows() + _share_rows() + [tombstone]
    (tmp / "admin.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp / "out"
    summary = run(Options(inputs=[str(tmp / "admin.jsonl")], out=str(out), quiet=True), spark)
    return out, summary


def test_every_record_is_accounted_for(admin_run):
    _, summary = admin_run
    requests = sum(r["apiKey"] == 15 and r["direction"] == "request" for r in FRAMES)
    n = len(FRAMES) + len(SHARE)
    assert summary["counts"] == {
        "records_read": n + 1,  # (and the tombstone)
        "not_selected": requests + 1,
        "records_in": n - requests,
        "decoded": n - requests,
        "quarantined": 0,
    }
    assert summary["not_selected_by_reason"] == {
        "frame DescribeGroups request": requests,
        "__share_group_state tombstone": 1,
    }


def test_the_offsets_table(admin_run):
    out, _ = admin_run
    rows = read_table(out, "offsets")
    got = Counter((r["group"], r["topic"], r["partition"], r["committed_offset"], r["leader_epoch"]) for r in rows)
    # the about line: v1-7 ask sticky-group for events 0-1 (events-0: 42, leader epoch 3 from v5; events-1: none),
    # v8 asks sticky-group (events-0 only) and streams-app (GROUP_AUTHORIZATION_FAILED: no partitions)
    want = Counter()
    for r in FRAMES:
        if r["apiKey"] == 9 and r["direction"] == "response":
            v = r["apiVersion"]
            want[("sticky-group", "events", 0, 42, 3 if v >= 5 else None)] += 1
            if v < 8:
                want[("sticky-group", "events", 1, -1, -1 if v >= 5 else None)] += 1
    assert got == want
    assert {r["kind"] for r in rows} == {"offset-fetch-response"}
    assert {r["metadata"] for r in rows if r["partition"] == 0} == {"m0"}


def test_the_described_members_and_the_share_state_tables(admin_run):
    out, _ = admin_run
    members = [r for r in read_table(out, "members") if r["kind"] == "describe-groups-response"]
    assert sorted({(r["group"], r["member"]) for r in members}) == [
        ("sticky-group", "c-1"),
        ("streams-app", "app-1-StreamThread-1-consumer-7f3a"),
    ]
    asg = [r for r in read_table(out, "assignments") if r["group"] == "sticky-group"]
    assert sorted({(r["topic"], r["partition"]) for r in asg}) == [("events", 0), ("events", 2), ("orders", 1)]
    state = read_table(out, "share_state")
    assert len(state) == len(SHARE)
    for r in state:
        i = int(r["record_id"][1:])
        k, v = SHARE[i]
        assert (r["group"], r["partition"], r["start_offset"], r["batch_count"]) == (
            RECORDS44[k]["expected"]["groupId"],
            RECORDS44[k]["expected"]["partition"],
            RECORDS44[v]["expected"]["startOffset"],
            len(RECORDS44[v]["expected"]["stateBatches"]),
        )
