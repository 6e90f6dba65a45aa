"""DescribeGroups and OffsetFetch responses told in the capture story (codec.capture.storyadmin), on frames Kafka's
own classes wrote (``kafka_admin_frames.jsonl``, its first line says how): a Streams member's SubscriptionInfo and
AssignmentInfo (Kafka-written, ``../shared/vectors/kafka-java/nested_streams.jsonl`` streams-v11), a sticky member's
user data, a group's error, committed offsets with and without a group named in the response. The shared captures
hold no DescribeGroups or OffsetFetch frame (their clients never ask), so these are the frames."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from codec.capture.pcapwriter import conversation, pcap
from tests.conftest import KAFKA_VECTORS, load_jsonl

from .storyfixtures import json_lines, run_capture

FRAMES = [json.loads(x) for x in (Path(__file__).parent / "kafka_admin_frames.jsonl").read_text().splitlines()][1:]


def _pcap(tmp_path, rows=FRAMES) -> Path:
    frames = [
        ("c" if r["direction"] == "request" else "s", struct.pack(">i", len(r["hex"]) // 2) + bytes.fromhex(r["hex"]))
        for r in rows
    ]
    path = tmp_path / "admin.pcap"
    path.write_bytes(pcap(conversation(frames)))
    return path


@pytest.fixture(scope="module")
def told(tmp_path_factory) -> list[dict]:
    lines = json_lines(_pcap(tmp_path_factory.mktemp("admin")))
    assert lines[-1]["type"] == "summary" and not lines[-1]["problems"]
    return lines


def _streams_v11() -> dict:
    return next(r for r in load_jsonl(KAFKA_VECTORS / "nested_streams.jsonl") if r["id"] == "streams-v11")


def test_every_response_is_told(told):
    described = [x for x in told if x["type"] == "described-group"]
    committed = [x for x in told if x["type"] == "committed-offsets"]
    assert sorted((x["version"], x["group"]) for x in described) == [
        (v, g) for v in (0, 4, 5, 6) for g in ("gone", "sticky-group", "streams-app")
    ]
    assert sorted((x["version"], x["group"]) for x in committed) == [
        (1, "sticky-group"),
        (5, "sticky-group"),
        (7, "sticky-group"),  # v1-7 name no group: the request's
        (8, "sticky-group"),
        (8, "streams-app"),
    ]


def test_a_streams_member_is_told_with_kafkas_values(told):
    kafka = _streams_v11()
    sub, asg = kafka["subscription"]["decoded"], kafka["assignment"]["decoded"]
    cps = kafka["consumerProtocolSubscription"]["decoded"]
    for g in (x for x in told if x["type"] == "described-group" and x["group"] == "streams-app"):
        assert (g["state"], g["protocol_type"], g["protocol"]) == ("Stable", "consumer", "stream")
        (m,) = g["members"]
        assert m["group_instance_id"] == ("app-1" if g["version"] >= 4 else None)
        meta, given = m["metadata"], m["assignment"]
        assert meta["consumer"]["topics"] == cps["topics"]
        s = meta["streams"]
        assert (s["version"], s["latest_supported_version"]) == (sub["version"], sub["latestSupportedVersion"])
        assert (s["process_id"], s["endpoint"]) == (sub["processId"], sub["userEndPoint"])
        want_sums = {
            f"{t['taskId']['subtopology']}_{t['taskId']['partition']}": t["offsetSum"] for t in sub["taskOffsetSums"]
        }
        assert s["task_offset_sums"] == want_sums and s["client_tags"] == sub["clientTags"]
        a = given["streams"]
        assert a["active_tasks"] == [f"{t['subtopology']}_{t['partition']}" for t in asg["activeTasks"]]
        assert a["next_rebalance_ms"] == asg["nextRebalanceMs"]
        assert set(a["partitions_by_host"]) == {f"{h['host']}:{h['port']}" for h in asg["partitionsByHost"]}


def test_a_sticky_member_and_an_error(told):
    for g in (x for x in told if x["type"] == "described-group" and x["group"] == "sticky-group"):
        (m,) = g["members"]
        assert m["metadata"]["sticky"] == {
            "layer": "StickyAssignorUserData",
            "version": 1,
            "generation": 7,
            "previous_assignment": {"events": [0, 2], "orders": [1]},
        }
        assert m["assignment"]["consumer"]["partitions"] == {"events": [0, 2], "orders": [1]}
    for g in (x for x in told if x["type"] == "described-group" and x["group"] == "gone"):
        assert (g["error_code"], g["error_name"], g["members"]) == (69, "GROUP_ID_NOT_FOUND", [])
        assert g["error_message"] == ("Group gone not found." if g["version"] >= 6 else None)


def test_committed_offsets(told):
    for c in (x for x in told if x["type"] == "committed-offsets"):
        if c["group"] == "streams-app":
            assert (c["error_code"], c["offsets"]) == (30, [])
            continue
        first = c["offsets"][0]
        epoch = 3 if c["version"] >= 5 else None
        assert (first["topic"], first["partition"], first["offset"], first["leader_epoch"], first["metadata"]) == (
            "events",
            0,
            42,
            epoch,
            "m0",
        )
        if c["version"] < 8:
            assert c["offsets"][1]["offset"] == -1


def test_the_text_story(tmp_path):
    status, text = run_capture(_pcap(tmp_path))
    assert status == 0
    assert "group streams-app  (described 4 times, offsets fetched 1 time, pcap input)" in text
    assert "Streams SubscriptionInfo v11 (latest supported v11)  process 6f1c2f0e-8d2b-4c6a-9e4e-0123456789ab" in text
    assert "StickyAssignorUserData v1: generation 7; previous events: 0, 2; orders: 1 (3 partitions)" in text
    assert "DescribeGroups v6: state Dead, -/-, 0 members; error 69 GROUP_ID_NOT_FOUND (Group gone not found.)" in text
    assert "events-0  offset 42 (leader epoch 3)  metadata 'm0'" in text
    assert "16: 0 group frames decoded, 16 DescribeGroups/OffsetFetch read, 0 of other APIs skipped" in text
    status, text = run_capture(_pcap(tmp_path), "--group", "gone")
    assert "sticky-group" not in text and "GROUP_ID_NOT_FOUND" in text


def test_a_broken_response_is_one_problem(tmp_path):
    rows = [dict(r) for r in FRAMES[:2]]
    rows[1]["hex"] = rows[1]["hex"][:60]  # the DescribeGroups v0 response cut short
    lines = json_lines(_pcap(tmp_path, rows))
    problem = lines[-1]["problems"]["unread admin frames"]
    assert problem["count"] == 1
    (bad,) = problem["first"]
    assert "DescribeGroups response v0" in bad["what"] and "truncated" in bad["reason"]
    assert not [x for x in lines if x["type"] == "described-group"]
