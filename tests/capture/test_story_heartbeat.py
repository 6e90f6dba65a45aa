"""``capture`` over heartbeat-based groups (issue #21): the scripted KIP-848 consumer group and KIP-1071 streams
group of :mod:`codec.capture.scripted`, and a mixed group (a classic member joining a consumer group).

Every expected value is written by hand from the scripts' steps (their docstrings): who joins when, the epochs
and assignments the coordinator answers, what each member reports owning. Times are seconds after the
script's T0; a response is written 2 ms after its request (``ScriptedCapture.latency``), and the story dates
what a response says by the response.
"""

from __future__ import annotations

import base64
import struct

import pytest

from codec.capture.scripted import (
    ScriptedCapture,
    consumer_request,
    consumer_response,
    kip848_script,
    kip1071_script,
)
from tests.capture.groupcapture import (
    consumer_assignment_v0,
    join_request,
    join_response,
    sync_request,
    sync_response,
)

from .storyfixtures import json_lines, run_capture

T0 = 1_700_000_000.0
RTT = 0.002
ORDERS = base64.urlsafe_b64encode(b"orders-topic-id\0").decode().rstrip("=")


def _at(seconds: float) -> float:
    return pytest.approx(T0 + seconds, abs=1e-6)


def _parts(*ps: int) -> dict[str, list[int]]:
    """Partitions of topic ORDERS as the story's JSON writes them: the topic once, its partitions sorted."""
    return {ORDERS: sorted(ps)} if ps else {}


@pytest.fixture(scope="module")
def consumer_lines(tmp_path_factory):
    path = tmp_path_factory.mktemp("kip848") / "kip848.pcap"
    path.write_bytes(kip848_script().pcap())
    return json_lines(path)


@pytest.fixture(scope="module")
def streams_lines(tmp_path_factory):
    path = tmp_path_factory.mktemp("kip1071") / "kip1071.pcap"
    path.write_bytes(kip1071_script().pcap())
    return json_lines(path)


def _group(lines: list[dict], name: str) -> dict:
    (g,) = [x for x in lines if x["type"] == "heartbeat-group" and x["group"] == name]
    return g


def _member(g: dict, member_id: str) -> dict:
    (m,) = [m for m in g["members"] if m["member_id"] == member_id]
    return m


def _steps(m: dict) -> list[tuple]:
    return [
        (
            s["epoch"],
            s["cause"],
            s["assignment"].get("partitions"),
            s["added"].get("partitions", {}),
            s["revoked"].get("partitions", {}),
        )
        for s in m["steps"]
    ]


# -- KIP-848 -------------------------------------------------------------------------------------------------


def test_every_heartbeat_frame_is_decoded(consumer_lines):
    summary = consumer_lines[-1]
    # 29 exchanges in the script: a 9, b 6, c 5, d 6 (join, 2 beats, fenced beat, rejoin, and one more), e 1, f 1
    frames = [x for x in consumer_lines if x["type"] == "frame"]
    assert len(frames) == summary["group_frames"] == summary["kafka_frames"] == 2 * 29
    assert all(
        "error" not in f and f["frame"]["body"]["groupId"] == "orders-app"
        for f in frames
        if f["direction"] == "request"
    )
    assert summary["heartbeat_groups"] == 1 and summary["generations"] == 0 and not summary["problems"]
    assert summary["unanswered_requests"] == summary["unpaired_responses"] == 0


def test_the_group_and_its_epochs(consumer_lines):
    g = _group(consumer_lines, "orders-app")
    assert g["protocol"] == "consumer" and g["source"] == "capture"
    assert g["member_epochs"] == [1, 2, 3, 4, 5, 6]
    assert g["first_ts"] == _at(0.0) and g["last_ts"] == _at(9.0 + RTT)
    assert sorted(m["member_id"] for m in g["members"]) == [f"member-{x}" for x in "abcdef"]


def test_member_a_target_assignments_revocations_and_when_reached(consumer_lines):
    a = _member(_group(consumer_lines, "orders-app"), "member-a")
    assert (a["client_id"], a["subscribed_topic_names"], a["server_assignor"], a["rebalance_timeout_ms"]) == (
        "consumer-a",
        ["orders"],
        "uniform",
        300000,
    )
    assert (a["joined_ts"], a["join_epoch"], a["member_epoch"], a["left"]) == (_at(RTT), 1, 5, None)
    assert _steps(a) == [
        (1, "join", _parts(0, 1, 2, 3, 4, 5), _parts(0, 1, 2, 3, 4, 5), {}),
        (1, "assigned", _parts(0, 1, 2), {}, _parts(3, 4, 5)),  # 1.5: revoke 3-5 before epoch 2
        (2, "assigned", _parts(0, 1, 2), {}, {}),  # 1.6: acked, epoch 2
        (2, "assigned", _parts(0, 1), {}, _parts(2)),  # 3.5
        (3, "assigned", _parts(0, 1), {}, {}),  # 3.6
        (4, "assigned", _parts(0, 1, 3), _parts(3), {}),  # 5.5: b's partitions free after b left
        (4, "assigned", _parts(0, 1), {}, _parts(3)),  # 6.5: 3 goes to d
        (5, "assigned", _parts(0, 1), {}, {}),  # 6.6
    ]
    # reached: the first request reporting exactly that as owned (the request's time), or the step itself when
    # the member already reported owning it
    assert [s["reached_ts"] for s in a["steps"]] == [
        _at(0.5),
        _at(1.6),
        _at(1.6 + RTT),
        _at(3.6),
        _at(3.6 + RTT),
        _at(5.7),
        _at(6.6),
        _at(6.6 + RTT),
    ]
    # heartbeats: requests with epoch > 0 (0.5, 1.5, 1.6, 3.5, 3.6, 5.5, 5.7, 6.5, 6.6)
    assert a["heartbeats"] == 9 and a["errors"] == {}


def test_members_that_leave(consumer_lines):
    g = _group(consumer_lines, "orders-app")
    b, c = _member(g, "member-b"), _member(g, "member-c")
    assert (b["left"], b["left_ts"], b["join_epoch"]) == ("leave", _at(5.0 + RTT), 2)
    assert _steps(b) == [
        (2, "join", {}, {}, {}),
        (2, "assigned", _parts(3, 4, 5), _parts(3, 4, 5), {}),
        (2, "assigned", _parts(3, 4), {}, _parts(5)),
        (3, "assigned", _parts(3, 4), {}, {}),
    ]
    assert (c["left"], c["left_ts"], c["instance_id"]) == ("static leave", _at(9.0 + RTT), "c-static")
    assert _steps(c) == [
        (3, "join", {}, {}, {}),
        (3, "assigned", _parts(2, 5), _parts(2, 5), {}),
        (4, "assigned", _parts(2, 4, 5), _parts(4), {}),
    ]


def test_the_fenced_member_gives_up_its_partitions_and_rejoins(consumer_lines):
    d = _member(_group(consumer_lines, "orders-app"), "member-d")
    assert d["errors"] == {"110": 1} and d["left"] is None and d["member_epoch"] == 6
    assert _steps(d) == [
        (5, "join", {}, {}, {}),
        (5, "assigned", _parts(3), _parts(3), {}),
        (0, "fenced", {}, {}, _parts(3)),
        (6, "join", {}, {}, {}),
    ]
    assert d["steps"][2]["ts"] == _at(8.0 + RTT)


def test_refused_joins_and_the_events_in_order(consumer_lines):
    g = _group(consumer_lines, "orders-app")
    e, f = _member(g, "member-e"), _member(g, "member-f")
    assert (e["errors"], e["steps"], e["instance_id"]) == ({"111": 1}, [], "c-static")
    assert (f["errors"], f["steps"]) == ({"81": 1}, [])
    assert [(ev["kind"], ev["member"], ev["error_code"]) for ev in g["events"]] == [
        ("join", "member-a", 0),
        ("join", "member-b", 0),
        ("join", "member-c", 0),
        ("leave", "member-b", 0),
        ("join", "member-d", 0),
        ("heartbeat", "member-d", 110),
        ("fenced", "member-d", None),
        ("join", "member-d", 0),
        ("join", "member-e", 111),
        ("join", "member-f", 81),
        ("static leave", "member-c", 0),
    ]


def test_the_text_story(tmp_path):
    path = tmp_path / "kip848.pcap"
    path.write_bytes(kip848_script().pcap())
    status, text = run_capture(path)
    assert status == 0
    assert text.startswith("group orders-app  (consumer group: 6 members, pcap input)\n")
    assert "consumer group (KIP-848 heartbeats)  2023-11-14 22:13:20.000Z .. 22:13:29.002 (9.0 s)" in text
    assert f"epoch 1  22:13:21.502  reached 22:13:21.600  {ORDERS}: 0-2 (3 partitions); revoked {ORDERS}: 3-5" in text
    assert f"fenced  22:13:28.002: gave up {ORDERS}: 1 (1 partition)" not in text  # partition 3, not 1
    assert f"fenced  22:13:28.002: gave up {ORDERS}: 3 (1 partition)" in text
    assert "member-e (consumer-e)  instance c-static" in text and "1 x 111 UNRELEASED_INSTANCE_ID" in text
    assert "heartbeat    member-d  110 FENCED_MEMBER_EPOCH" in text
    assert "static leave member-c  0 NONE  member epoch -2" in text
    assert "orders: 0" not in text and "orders-0" not in text  # no topic name is made up: the capture names none


# -- KIP-1071 ------------------------------------------------------------------------------------------------


def _tasks(step: dict) -> tuple:
    a = step["assignment"]
    return (step["epoch"], a.get("active tasks"), a.get("standby tasks"), a.get("warmup tasks"))


def test_streams_tasks_per_member(streams_lines):
    g = _group(streams_lines, "wordcount")
    assert g["protocol"] == "streams" and g["member_epochs"] == [1, 2]
    s1, s2 = _member(g, "stream-1"), _member(g, "stream-2")
    assert (s1["process_id"], s1["user_endpoint"], s1["client_tags"], s1["topology_epoch"]) == (
        "p-1",
        "host1:8080",
        {"zone": "z1"},
        1,
    )
    # tasks by subtopology, each subtopology once: {"0": [0, 1, 2]} is tasks 0_0, 0_1, 0_2
    every = {"0": [0, 1, 2], "1": [0, 1, 2]}
    assert [_tasks(s) for s in s1["steps"]] == [
        (1, every, {}, {}),
        (1, {"0": [0, 1, 2], "1": [0]}, {}, {}),
        (2, {"0": [0, 1, 2], "1": [0]}, {"1": [1, 2]}, {}),
    ]
    assert s1["steps"][1]["revoked"] == {"active tasks": {"1": [1, 2]}}
    assert [s["reached_ts"] for s in s1["steps"]] == [_at(0.5), _at(1.6), None]  # standbys never reported
    assert [_tasks(s) for s in s2["steps"]] == [(2, {}, {"1": [0]}, {"1": [1, 2]}), (2, {"1": [1, 2]}, {"1": [0]}, {})]
    assert (s2["steps"][1]["added"], s2["steps"][1]["revoked"]) == (
        {"active tasks": {"1": [1, 2]}},
        {"warmup tasks": {"1": [1, 2]}},
    )
    assert s2["steps"][1]["reached_ts"] == _at(2.1)
    assert (s2["left"], s2["left_ts"]) == ("leave", _at(4.0 + RTT))


def test_a_streams_group_heartbeat_v1_exchange_is_told(streams_lines, tmp_path):
    """Kafka 4.4's StreamsGroupHeartbeat v1 (the same script at v1: responses with the int64 acceptableRecoveryLag
    and topologyDescriptionRequired, one answer with status 6 MISSING_CLIENT_TAGS, kip1071_script's docstring): the
    story tells the same members, epochs, tasks and events as at v0, and the status v1 clients are sent."""
    path = tmp_path / "kip1071-v1.pcap"
    path.write_bytes(kip1071_script(version=1).pcap())
    v1 = _group(json_lines(path), "wordcount")
    v0 = _group(streams_lines, "wordcount")
    for key in ("members", "member_epochs", "events", "topology", "endpoint_information_epoch"):
        assert v1[key] == v0[key], key
    assert v0["status"] == [] and v1["status"] == [
        {"code": 6, "detail": "the group's assignor uses client tags (rack.aware.assignment.tags) the member lacks"}
    ]
    status, text = run_capture(path)
    assert status == 0
    assert "  status 6 MISSING_CLIENT_TAGS: the group's assignor uses client tags" in text
    assert "stream-3  131 STREAMS_INVALID_TOPOLOGY_EPOCH" in text


def test_streams_topology_error(streams_lines):
    g = _group(streams_lines, "wordcount")
    s3 = _member(g, "stream-3")
    assert (s3["errors"], s3["steps"], s3["topology_epoch"]) == ({"131": 1}, [], 2)
    assert g["topology"]["epoch"] == 1 and [t["subtopologyId"] for t in g["topology"]["subtopologies"]] == ["0", "1"]
    assert ("join", "stream-3", 131) in [(e["kind"], e["member"], e["error_code"]) for e in g["events"]]


def test_streams_partitions_by_endpoint(streams_lines):
    """The script's responses give each endpoint's active and standby partitions at endpoint information
    epochs 1, 2 (at 1.0 and 1.5) and 3 (at 2.0): the group keeps those of epoch 3."""
    g = _group(streams_lines, "wordcount")
    rep = "wordcount-counts-repartition"
    assert g["endpoint_information_epoch"] == 3
    assert g["partitions_by_endpoint"] == [
        {"endpoint": "host1:8080", "active": {rep: [0], "words": [0, 1, 2]}, "standby": {rep: [1, 2]}},
        {"endpoint": "host2:8080", "active": {rep: [1, 2]}, "standby": {rep: [0]}},
    ]


def test_streams_endpoints_of_the_highest_epoch_win_whatever_the_order():
    """Frames come out of order: an endpoint epoch lower than the one kept changes nothing; an error
    response's endpoints are not taken."""
    from codec.capture.heartbeat import HeartbeatStory
    from codec.capture.scripted import streams_request, streams_response

    story = HeartbeatStory()
    newer = streams_response("m", 2, endpoint_epoch=5, endpoints={("h", 1): ({"t": [1]}, {"t": [0]})})
    older = streams_response("m", 1, endpoint_epoch=4, endpoints={("h", 1): ({"t": [0, 1]}, {})})
    failed = streams_response("m", 2, error=110, endpoint_epoch=9, endpoints={("x", 2): ({}, {})})
    for ts, resp in ((2.0, newer), (1.0, older), (3.0, failed)):
        req = story.request(ts, 88, "c", streams_request("g", "m", 1))
        story.response(ts + 0.1, req, resp)
    (g,) = story.finish()
    assert (g.endpoint_epoch, g.endpoints) == (5, [("h:1", (("t", 1),), (("t", 0),))])


def test_streams_text(tmp_path):
    path = tmp_path / "kip1071.pcap"
    path.write_bytes(kip1071_script().pcap())
    status, text = run_capture(path)
    assert status == 0
    assert "streams group (KIP-1071 heartbeats)" in text
    assert "active tasks   0: 0-2; 1: 0 (4 active tasks); revoked 1: 1-2" in text
    assert "warmup tasks   (none); revoked 1: 1-2" in text
    assert "join         stream-3  131 STREAMS_INVALID_TOPOLOGY_EPOCH" in text
    # the accepted joins' topology (epoch 1), not the refused one's (epoch 2)
    assert "  topology epoch 1: 0 reads words; 1 reads wordcount-counts-repartition\n" in text
    assert (
        "  partitions by endpoint (endpoint information epoch 3):\n"
        "    host1:8080  active: wordcount-counts-repartition: 0; words: 0-2  "
        "standby: wordcount-counts-repartition: 1-2\n"
        "    host2:8080  active: wordcount-counts-repartition: 1-2  standby: wordcount-counts-repartition: 0\n"
    ) in text


# -- a mixed group -------------------------------------------------------------------------------------------


def _subscription_v0(topics: list[str]) -> bytes:
    """ConsumerProtocolSubscription v0 by hand: int16 version, topics as int32 count + int16 strings, null
    user data."""
    out = struct.pack(">hi", 0, len(topics))
    for t in topics:
        out += struct.pack(">h", len(t)) + t.encode()
    return out + struct.pack(">i", -1)


def test_a_classic_member_joining_a_consumer_group_shows_both(tmp_path):
    """Online migration: member-a heartbeats (epoch 1, orders 0-5, then 0-2); classic-1 joins with JoinGroup
    and is given generation 2 (the group epoch) and orders 3-5 in its SyncGroup."""
    cap = ScriptedCapture()
    g = "orders-app"
    cap.exchange(
        0.0,
        "member-a",
        68,
        0,
        consumer_request(g, "member-a", 0, owned={}, topics=["orders"]),
        consumer_response("member-a", 1, {ORDERS: [0, 1, 2, 3, 4, 5]}),
    )
    sub = _subscription_v0(["orders"])
    cap.raw(
        1.0,
        "classic",
        join_request(1, "classic-client", g, "classic-1", [("range", sub)]),
        join_response(1, 2, "range", "classic-1", sub),
    )
    cap.exchange(
        1.5,
        "member-a",
        68,
        0,
        consumer_request(g, "member-a", 1),
        consumer_response("member-a", 2, {ORDERS: [0, 1, 2]}),
    )
    asg = consumer_assignment_v0({"orders": [3, 4, 5]}, None)
    cap.raw(2.0, "classic", sync_request(2, "classic-client", g, 2, "classic-1", asg), sync_response(2, asg))
    path = tmp_path / "mixed.pcap"
    path.write_bytes(cap.pcap())
    lines = json_lines(path)
    (gen,) = [x for x in lines if x["type"] == "generation"]
    assert (gen["group"], gen["generation"], [m["member_id"] for m in gen["members"]]) == (g, 2, ["classic-1"])
    assert gen["members"][0]["assignment"]["consumer"]["partitions"] == {"orders": [3, 4, 5]}
    hb = _group(lines, g)
    assert hb["classic_generations"] == [2] and [m["member_id"] for m in hb["members"]] == ["member-a"]
    assert _steps(hb["members"][0])[-1] == (2, "assigned", _parts(0, 1, 2), {}, _parts(3, 4, 5))
    status, text = run_capture(path)
    assert status == 0
    assert text.startswith("group orders-app  (1 generations, consumer group: 1 members, pcap input)\n")
    assert text.index("generation 2  consumer/range") < text.index("consumer group (KIP-848 heartbeats)")
    assert "classic members formed generations 2 (told above)" in text


# -- topic names from Metadata ---------------------------------------------------------------------------

# A MetadataResponse v12 body laid out by hand from Kafka's MetadataResponse.json (flexible: compact lengths
# are N+1): throttle 0; brokers [1 "b":9092 rack null]; cluster "c"; controller 1; topics [error 0, name "t",
# id 00..01, internal false, partitions [error 0, index 0, leader 1, epoch 0, replicas [1], isr [1],
# offline []], authorized ops MIN]; no tagged fields anywhere.
METADATA_V12 = bytes.fromhex(
    "00000000"
    "02"
    "00000001"
    "0262"
    "00002384"
    "00"
    "00"
    "0263"
    "00000001"
    "02"
    "0000"
    "0274"
    "00000000000000000000000000000001"
    "00"
    "02"
    "0000"
    "00000000"
    "00000001"
    "00000000"
    "0200000001"
    "0200000001"
    "01"
    "00"
    "80000000"
    "00"
    "00"
)


def test_topic_names_of_a_metadata_response():
    from codec.capture.metadata import topic_names
    from codec.errors import DecodeError

    assert topic_names(METADATA_V12, 12) == {"AAAAAAAAAAAAAAAAAAAAAQ": "t"}
    assert topic_names(METADATA_V12, 9) == {}  # no topic ids before v10
    with pytest.raises(DecodeError) as e:
        topic_names(METADATA_V12[:40], 12)
    assert e.value.path.startswith("topics[0]")


def test_a_metadata_response_names_the_assignment_topics(tmp_path):
    path = tmp_path / "kip848-named.pcap"
    path.write_bytes(kip848_script(metadata=True).pcap())
    lines = json_lines(path)
    a = _member(_group(lines, "orders-app"), "member-a")
    assert a["steps"][0]["assignment"]["partitions"] == {"orders": list(range(6))}
    assert lines[-1]["other_apis"] == [{"api_key": 3, "api_name": "Metadata", "api_version": 12, "frames": 2}]
    status, text = run_capture(path)
    assert status == 0
    assert "epoch 1  22:13:21.502  reached 22:13:21.600  orders: 0-2 (3 partitions); revoked orders: 3-5" in text
    assert ORDERS not in text


def test_topic_ids():
    from codec.capture.heartbeat import kafka_uuid

    # Kafka's Uuid.toString(): URL-safe base64 without padding, from any spelling of the same 16 bytes
    one = "00000000-0000-0000-0000-000000000001"
    assert (
        kafka_uuid(one)
        == kafka_uuid(bytes(15) + b"\x01")
        == kafka_uuid("AAAAAAAAAAAAAAAAAAAAAQ")
        == "AAAAAAAAAAAAAAAAAAAAAQ"
    )
    assert kafka_uuid("ffffffff-ffff-ffff-ffff-ffffffffffff") == "_____________________w"


def test_a_describe_response_gives_targets_epochs_and_names(tmp_path):
    """member-a joins (epoch 1, orders 0-5); then an admin client's ConsumerGroupDescribe says: group epoch 4,
    assignment epoch 4, member-a at epoch 3 holding orders 0, 1 with target orders 0 (topic name given)."""
    cap = ScriptedCapture()
    g = "orders-app"
    cap.exchange(
        0.0,
        "member-a",
        68,
        0,
        consumer_request(g, "member-a", 0, owned={}, topics=["orders"]),
        consumer_response("member-a", 1, {ORDERS: [0, 1, 2, 3, 4, 5]}),
    )

    def tps(*ps):
        return {"topicPartitions": [{"topicId": ORDERS, "topicName": "orders", "partitions": list(ps)}]}

    member = {
        "memberId": "member-a",
        "memberEpoch": 3,
        "clientId": "consumer-a",
        "clientHost": "/10.0.1.1",
        "subscribedTopicNames": ["orders"],
        "assignment": tps(0, 1),
        "targetAssignment": tps(0),
    }
    cap.exchange(
        5.0,
        "admin",
        69,
        0,
        {"groupIds": [g], "includeAuthorizedOperations": False},
        {
            "groups": [
                {
                    "errorCode": 0,
                    "groupId": g,
                    "groupState": "reconciling",
                    "groupEpoch": 4,
                    "assignmentEpoch": 4,
                    "assignorName": "uniform",
                    "members": [member],
                }
            ]
        },
    )
    path = tmp_path / "describe.pcap"
    path.write_bytes(cap.pcap())
    lines = json_lines(path)
    hb = _group(lines, g)
    assert (hb["group_epochs"], hb["assignment_epoch"]) == ([4], 4)
    (a,) = hb["members"]
    assert [
        (s["epoch"], s["cause"], s["assignment"]["partitions"], s["revoked"].get("partitions", {})) for s in a["steps"]
    ] == [
        (1, "join", {"orders": [0, 1, 2, 3, 4, 5]}, {}),
        (3, "described", {"orders": [0, 1]}, {"orders": [2, 3, 4, 5]}),
    ]
    assert (a["target"]["epoch"], a["target"]["assignment"], a["target_source"]) == (
        4,
        {"partitions": {"orders": [0]}},
        "ConsumerGroupDescribe",
    )
    frames = [x for x in lines if x["type"] == "frame" and x["api_key"] == 69]
    assert [f["frame"]["api"] for f in frames] == ["ConsumerGroupDescribe"] * 2 and frames[1]["error_code"] == 0
    status, text = run_capture(path)
    assert status == 0
    assert "epoch 3  22:13:25.002  (as described)  orders: 0-1 (2 partitions); revoked orders: 2-5" in text
    assert "target at assignment epoch 4  22:13:25.002  orders: 0 (1 partition)" in text


def test_group_filter(tmp_path):
    path = tmp_path / "kip848.pcap"
    path.write_bytes(kip848_script().pcap())
    other = json_lines(path, "--group", "another-group")
    assert [x["type"] for x in other] == ["summary"] and other[0]["heartbeat_groups"] == 0
    same = json_lines(path, "--group", "orders-app")
    assert sum(x["type"] == "heartbeat-group" for x in same) == 1 and same[-1]["group_frames"] == 58


def test_a_member_id_given_by_the_coordinator(tmp_path):
    """A 3.7-3.9 client joins with an empty member id and takes the one the response gives (KIP-848 v0)."""
    cap = ScriptedCapture()
    g = "orders-app"
    cap.exchange(
        0.0,
        "c",
        68,
        0,
        consumer_request(g, "", 0, owned={}, topics=["orders"]),
        consumer_response("given-1", 1, {ORDERS: [0, 1]}),
    )
    cap.exchange(
        1.0, "c", 68, 0, consumer_request(g, "given-1", 1, owned={ORDERS: [0, 1]}), consumer_response("given-1", 1)
    )
    path = tmp_path / "given.pcap"
    path.write_bytes(cap.pcap())
    lines = json_lines(path)
    (m,) = _group(lines, g)["members"]
    assert (m["member_id"], m["client_id"], m["join_epoch"], m["heartbeats"]) == ("given-1", "c", 1, 1)
    assert m["subscribed_topic_names"] == ["orders"]  # from the join, which named no member
    assert [(s["epoch"], s["assignment"]["partitions"], s["reached_ts"]) for s in m["steps"]] == [
        (1, _parts(0, 1), _at(1.0))
    ]
    frames = [x for x in lines if x["type"] == "frame"]
    assert [f["member"] for f in frames] == [None, "given-1", "given-1", "given-1"]
