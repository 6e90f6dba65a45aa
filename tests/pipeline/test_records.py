"""The executor-side decode (records -> units -> Arrow batch) without Spark, against Kafka's vectors."""

from __future__ import annotations


import pytest

pa = pytest.importorskip("pyarrow", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from codec.pipeline.arrow import FLAT, INPUT_COLUMNS, decode_batch, decode_table  # noqa: E402
from codec.pipeline.offsets import (
    GroupMetadata,
    MemberMetadata,
    decode_group_metadata,
    encode_group_metadata,
    encode_group_metadata_key,
    group_metadata_key,
)
from codec.pipeline.records import RecordError, canonical_kind, decode_record
from tests.conftest import KAFKA_VECTORS

from .conftest import CAPTURES, FRAMES, jsonl

NO_REBALANCE = 2**63 - 1


def _tn(t: dict) -> str:
    """The printed task of an output struct (the pipeline derives it in Spark)."""
    base = f"{t['subtopology']}_{t['partition']}"
    return f"{t['topology']}__{base}" if t["topology"] is not None else base


def _task(t: dict) -> str:
    base = f"{t['subtopology']}_{t['partition']}"
    return f"{t['topologyName']}__{base}" if t.get("topologyName") else base


@pytest.mark.parametrize("version", range(1, 12))
def test_join_group_request_yields_kafkas_subscription(nested, version):
    r = nested[version]
    jg, want = r["joinGroupRequest"], r["subscription"]["decoded"]
    rows = decode_table(
        [
            {
                "record_id": "x",
                "kind": "join-group-request",
                "version": jg["version"],
                "hex": jg["hex"],
                "member": "m",
                "generation": 3,
            }
        ]
    ).to_pylist()
    assert [u["unit_kind"] for u in rows] == ["group", "member"]
    g, m = rows
    assert (g["group"], g["protocol_type"], g["protocol_name"]) == (jg["data"]["groupId"], "consumer", "stream")
    assert m["group"] == jg["data"]["groupId"] and (m["member"], m["generation"]) == ("m", 3)
    assert m["process_id"] == want["processId"]
    assert m["sub_version"] == want["version"] == version
    assert m["latest_supported_version"] == want["latestSupportedVersion"]
    assert m["user_endpoint"] == want["userEndPoint"]
    assert m["sub_error_code"] == want["errorCode"] and m["unique_field"] == want["uniqueField"]
    assert dict(m["client_tags"] or {}) == want["clientTags"]  # null: no tags (as in the members table)
    assert m["consumer_protocol_version"] == r["consumerProtocolVersion"]
    assert {_tn(t): t["offset_sum"] for t in m["tasks"]} == {
        _task(t["taskId"]): t["offsetSum"] for t in want["taskOffsetSums"]
    }


@pytest.mark.parametrize("version", range(1, 12))
def test_sync_group_response_yields_kafkas_assignment(nested, version):
    r = nested[version]
    sg, want = r["syncGroupResponse"], r["assignment"]["decoded"]
    rows = decode_table(
        [{"record_id": "x", "kind": "SyncGroupResponse", "version": sg["version"], "hex": sg["hex"]}]
    ).to_pylist()
    assert [u["unit_kind"] for u in rows] == ["group", "assignment"]
    a = rows[1]
    assert (a["asg_version"], a["commonly_supported_version"]) == (want["version"], want["commonlySupportedVersion"])
    assert a["asg_error_code"] == want["errCode"] and a["next_rebalance_ms"] == want["nextRebalanceMs"]
    active: dict = {}
    for t in want["activeTasks"]:
        active[_task(t)] = active.get(_task(t), 0) + 1
    assert {_tn(t): t["partitions"] for t in a["active"]} == active
    assert {_tn(t): t["partitions"] for t in a["standby"]} == {
        _task(s["taskId"]): len(s["partitions"]) for s in want["standbyTasks"]
    }
    assert a["endpoints"] == len(want["partitionsByHost"])


@pytest.mark.parametrize("name", ["subscription", "assignment"])
def test_random_vectors_decode_as_kafka_did(name):
    recs = jsonl(KAFKA_VECTORS / f"{name}.jsonl")[::25]
    kind = f"{name}-info"
    rows = decode_table([{"record_id": str(i), "kind": kind, "hex": r["hex"]} for i, r in enumerate(recs)]).to_pylist()
    assert len(rows) == len(recs) and all(u["unit_kind"] != "quarantine" for u in rows)
    for u, r in zip(rows, recs):
        d = r["decoded"]
        if name == "subscription":
            assert (u["sub_version"], u["process_id"]) == (d["version"], d["processId"])
            assert sorted(_tn(t) for t in u["tasks"]) == sorted(_task(t["taskId"]) for t in d["taskOffsetSums"])
        else:
            assert (u["asg_version"], u["asg_error_code"], u["next_rebalance_ms"]) == (
                d["version"],
                d["errCode"],
                d["nextRebalanceMs"],
            )
            assert sum(t["partitions"] for t in u["active"]) == len(d["activeTasks"])


def test_quarantined_samples_say_where_and_why():
    """Each malformed sample record, with its error derived by hand from the bytes."""
    bad = {r["record_id"]: r for r in jsonl(CAPTURES) if str(r.get("record_id", "")).startswith("bad/")}
    rows = {u["record_id"]: u for u in decode_table([{**r, "ts_ms": r["timestamp"]} for r in bad.values()]).to_pylist()}
    assert set(rows) == set(bad) and all(u["unit_kind"] == "quarantine" for u in rows.values())
    # v7: version(4) lsv(4) process id(16), endpoint length at 24 says 13, 2 bytes remain at 28
    t = rows["bad/truncated-subscription"]
    assert (t["error_type"], t["error_offset"], t["error_path"]) == ("TruncatedError", 28, "user_end_point")
    assert t["raw"] == bytes.fromhex(bad["bad/truncated-subscription"]["hex"])
    assert rows["bad/edge-assignment-future"]["error_type"] == "UnsupportedVersionError"
    assert rows["bad/not-hex"]["error_type"] == "HexError" and rows["bad/not-hex"]["raw"] == b"00000007zz"
    assert rows["bad/unknown-kind"]["error_type"] == "UnknownKind"
    assert rows["bad/body-without-version"]["error_type"] == "MissingVersion"
    n = rows["bad/nested-assignment-v12"]
    assert (n["error_path"], n["error_layer"], n["error_offset"]) == (
        "assignment.user_data.version",
        "AssignmentInfo",
        0,
    )


def test_a_record_is_never_half_decoded(nested):
    """A leader's JoinGroup response whose second member's metadata is broken quarantines the record."""
    from codec.group import decode_message, encode_message

    jr = [r for r in jsonl(KAFKA_VECTORS / "JoinGroupResponse.jsonl") if r["version"] == 7][0]
    body = decode_message("JoinGroupResponse", 7, bytes.fromhex(jr["hex"])).value
    cps = bytes.fromhex(nested[11]["consumerProtocolSubscription"]["hexVersionPrefixed"])
    import dataclasses

    from codec.wire.builder import wire_class

    M = wire_class("JoinGroupResponse", "JoinGroupResponseMember")

    good = dataclasses.replace(
        body,
        protocol_name="stream",
        protocol_type="consumer",
        error_code=0,
        members=(
            M(member_id="a", group_instance_id=None, metadata=cps),
            M(member_id="b", group_instance_id=None, metadata=cps[:40]),
        ),
    )
    data = encode_message("JoinGroupResponse", 7, good)
    units = decode_table(
        [
            {
                "record_id": "ok",
                "kind": "join-group-response",
                "version": 7,
                "data": encode_message("JoinGroupResponse", 7, dataclasses.replace(good, members=good.members[:1])),
            },
            {"record_id": "bad", "kind": "join-group-response", "version": 7, "data": data},
        ]
    ).to_pylist()
    assert [(u["record_id"], u["unit_kind"]) for u in units] == [
        ("ok", "group"),
        ("ok", "member"),
        ("bad", "quarantine"),
    ]
    assert units[2]["error_path"].startswith("members[1].metadata")


def test_frames_decode_with_and_without_body_offset():
    frames = [r for r in jsonl(FRAMES) if r["api_key"] in (11, 14)]
    with_off = decode_table([{**r, "kind": "frame", "version": r["api_version"]} for r in frames]).to_pylist()
    without = decode_table(
        [
            {**{k: v for k, v in r.items() if k != "body_offset"}, "kind": "frame", "version": r["api_version"]}
            for r in frames
        ]
    ).to_pylist()
    assert [u["unit_kind"] for u in with_off] == [u["unit_kind"] for u in without]
    assert not [u for u in with_off if u["unit_kind"] == "quarantine"]
    joins = [r for r in frames if r["api_key"] == 11 and r["direction"] == "request"]
    members = [u for u in with_off if u["unit_kind"] == "member" and u["kind"] == "frame"]
    assert len(members) >= len(joins)  # one per JoinGroup request + one per member in the leaders' responses
    assert all(u["streams"] is False for u in members)  # plain consumers: UserData is not Streams metadata


def test_group_metadata_round_trip_and_units(nested):
    cps = {v: bytes.fromhex(nested[v]["consumerProtocolSubscription"]["hexVersionPrefixed"]) for v in (10, 11)}
    cpa = {v: bytes.fromhex(nested[v]["consumerProtocolAssignment"]["hexVersionPrefixed"]) for v in (10, 11)}
    for version in range(5):
        g = GroupMetadata(
            version,
            "consumer",
            9,
            "stream",
            "a",
            123 if version >= 2 else -1,
            tuple(
                MemberMetadata(
                    m, "inst" if version >= 3 else None, "cid", "/h", 10 if version >= 1 else -1, 20, cps[v], cpa[v]
                )
                for m, v in (("a", 10), ("b", 11))
            ),
        )
        assert decode_group_metadata(encode_group_metadata(g)) == g
    key = encode_group_metadata_key("app")
    assert group_metadata_key(key) == (2, "app") and group_metadata_key(b"\x00\x01\x00\x01x") == (1, None)
    units = decode_record("group-metadata", encode_group_metadata(g), key=key)
    kinds = [type(u).__name__ for u in units]
    assert kinds == ["GroupUnit", "MemberUnit", "AssignmentUnit", "MemberUnit", "AssignmentUnit"]
    assert units[0].group == "app" and units[0].generation == 9 and units[0].leader == "a"
    assert units[1].info.version == 10 and units[3].info.version == 11
    with pytest.raises(RecordError) as e:
        decode_record("group-metadata", encode_group_metadata(g)[:-5], key=key)
    assert e.value.path.startswith("members[1].assignment")


def test_kind_aliases():
    assert canonical_kind("subscription") == "subscription-info"
    assert canonical_kind("ConsumerProtocolAssignment") == "consumer-assignment"
    assert canonical_kind("JoinGroupResponse") == "join-group-response"
    assert canonical_kind("consumer_offsets") == "group-metadata"
    assert canonical_kind("frame") == "frame"


def test_decode_batch_gives_the_units_of_each_record_in_order_and_a_stable_schema():
    recs = [r for r in jsonl(CAPTURES) if "__not_json__" not in r][:10]
    types = {
        "version": pa.int32(),
        "generation": pa.int32(),
        "ts_ms": pa.int64(),
        "api_key": pa.int32(),
        "body_offset": pa.int32(),
        "data": pa.binary(),
        "key": pa.binary(),
    }
    recs = [{**r, "record_id": f"r{i}", "source": "s", "ts_ms": r["timestamp"]} for i, r in enumerate(recs)]
    args = [pa.array([r.get(n) for r in recs], types.get(n, pa.string())) for n in INPUT_COLUMNS]
    batch = pa.RecordBatch.from_arrays(args, names=list(INPUT_COLUMNS))
    out = decode_batch(batch)
    assert out.schema == FLAT
    assert decode_batch(batch.slice(0, 0)).schema == FLAT and decode_batch(batch.slice(0, 0)).num_rows == 0
    assert decode_batch(batch).to_pylist() == out.to_pylist()
    units = out.to_pylist()
    # group+member or group+assignment each, in record order, the record's context on both
    assert [(u["record_id"], u["unit"]) for u in units] == [(f"r{i}", j) for i in range(10) for j in (0, 1)]
    assert all(
        {u["unit_kind"] for u in units[i : i + 2]} in ({"group", "member"}, {"group", "assignment"})
        for i in range(0, 20, 2)
    )
    assert all(
        u["source"] == "s" and u["ts_ms"] == r["ts_ms"] for u, r in zip(units, [r for r in recs for _ in (0, 1)])
    )


def test_own_group_metadata_codec_agrees_with_the_capture_layer(nested):
    """codec.pipeline.offsets (the fallback, and what wrote the samples) against codec.capture.offsets
    (decoded from the schema tables), every value version."""
    cap = pytest.importorskip("codec.capture.offsets", reason="the capture layer is not available")
    cps = bytes.fromhex(nested[11]["consumerProtocolSubscription"]["hexVersionPrefixed"])
    cpa = bytes.fromhex(nested[11]["consumerProtocolAssignment"]["hexVersionPrefixed"])
    for version in range(5):
        g = GroupMetadata(
            version,
            "consumer",
            9,
            "stream",
            None,
            123 if version >= 2 else -1,
            (
                MemberMetadata(
                    "a", "i" if version >= 3 else None, "cid", "/h", 10 if version >= 1 else -1, 20, cps, cpa
                ),
            ),
        )
        v, theirs, trailing = cap.decode_value(2, encode_group_metadata(g))
        assert (v, trailing) == (version, b"")
        assert (theirs.protocol_type, theirs.generation, theirs.protocol, theirs.leader) == (
            "consumer",
            9,
            "stream",
            None,
        )
        m = theirs.members[0]
        assert (
            m.member_id,
            m.group_instance_id,
            m.client_id,
            m.client_host,
            m.session_timeout,
            m.subscription,
            m.assignment,
        ) == ("a", g.members[0].group_instance_id, "cid", "/h", 20, cps, cpa)
        if version >= 1:
            assert m.rebalance_timeout == 10
    assert cap.decode_key(encode_group_metadata_key("app"))[2].group == "app"


def test_group_metadata_without_the_capture_layer(nested, monkeypatch):
    import sys

    import codec.capture

    monkeypatch.delattr(codec.capture, "offsets", raising=False)
    monkeypatch.setitem(sys.modules, "codec.capture.offsets", None)
    cps = bytes.fromhex(nested[10]["consumerProtocolSubscription"]["hexVersionPrefixed"])
    g = GroupMetadata(4, "consumer", 5, "stream", "a", 1, (MemberMetadata("a", None, "c", "/h", 1, 2, cps, b""),))
    units = decode_record("group-metadata", encode_group_metadata(g), key=encode_group_metadata_key("app"))
    assert [type(u).__name__ for u in units] == ["GroupUnit", "MemberUnit"]
    assert units[1].info.version == 10 and units[0].group == "app"
