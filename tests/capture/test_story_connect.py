"""A Kafka Connect group's rebalance in a capture: the story is told (no consumer layers are assumed), and
the frames carry Connect's metadata and assignment as Kafka wrote them (../shared connect.jsonl)."""

from __future__ import annotations

import json

from codec.capture.pcapwriter import conversation, pcap
from codec.group import encode_request_frame, encode_response_frame, request_frame, response_frame
from codec.wire.builder import wire_class
from tests.capture.groupcapture import run_console
from tests.capture.storyfixtures import moved_items
from tests.conftest import KAFKA_VECTORS, load_jsonl


def _kafka(kind: str, version: int) -> dict:
    return next(
        r
        for r in load_jsonl(KAFKA_VECTORS / "connect.jsonl")
        if r["kind"] == kind and r["version"] == version and "hex" in r and "ReadAs" not in r["id"]
    )


def _capture(tmp_path):
    meta, asg = _kafka("ConnectMetadata", 2), _kafka("ConnectAssignment", 2)
    proto = wire_class("JoinGroupRequest", "JoinGroupRequestProtocol")
    join = wire_class("JoinGroupRequest", "JoinGroupRequest")(
        group_id="connect-cluster",
        session_timeout_ms=10000,
        rebalance_timeout_ms=30000,
        member_id="w1",
        group_instance_id=None,
        protocol_type="connect",
        protocols=(proto(name="sessioned", metadata=bytes.fromhex(meta["hex"])),),
    )
    jm = wire_class("JoinGroupResponse", "JoinGroupResponseMember")
    join_resp = wire_class("JoinGroupResponse", "JoinGroupResponse")(
        error_code=0,
        generation_id=1,
        protocol_type="connect",
        protocol_name="sessioned",
        leader="w1",
        member_id="w1",
        members=(jm(member_id="w1", metadata=bytes.fromhex(meta["hex"])),),
    )
    sa = wire_class("SyncGroupRequest", "SyncGroupRequestAssignment")
    sync = wire_class("SyncGroupRequest", "SyncGroupRequest")(
        group_id="connect-cluster",
        generation_id=1,
        member_id="w1",
        protocol_type="connect",
        protocol_name="sessioned",
        assignments=(sa(member_id="w1", assignment=bytes.fromhex(asg["hex"])),),
    )
    sync_resp = wire_class("SyncGroupResponse", "SyncGroupResponse")(
        error_code=0, protocol_type="connect", protocol_name="sessioned", assignment=bytes.fromhex(asg["hex"])
    )
    frames = [
        ("c", encode_request_frame(request_frame(11, 7, 1, "worker", join), size_prefixed=True)),
        ("s", encode_response_frame(response_frame(11, 7, 1, join_resp), size_prefixed=True)),
        ("c", encode_request_frame(request_frame(14, 5, 2, "worker", sync), size_prefixed=True)),
        ("s", encode_response_frame(response_frame(14, 5, 2, sync_resp), size_prefixed=True)),
    ]
    path = tmp_path / "connect.pcap"
    path.write_bytes(pcap(conversation(frames)))
    return path


def test_a_connect_group_is_told(tmp_path):
    path = _capture(tmp_path)
    text = run_console(tmp_path, "capture", str(path))
    assert text.returncode == 0, text.stderr.decode(errors="replace")
    out = text.stdout.decode("utf-8")
    assert "connect-cluster" in out and "sessioned" in out
    done = run_console(tmp_path, "capture", "--json", str(path))
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    records = [json.loads(line) for line in done.stdout.decode("utf-8").split("\n") if line]
    frames = [r for r in records if r["type"] == "frame"]
    # the four frames written, in order: JoinGroup request/response, SyncGroup request/response
    assert [(f["api_name"], f["direction"]) for f in frames] == [
        ("JoinGroup", "request"),
        ("JoinGroup", "response"),
        ("SyncGroup", "request"),
        ("SyncGroup", "response"),
    ]
    assert all(f["group"] == "connect-cluster" for f in frames if f["direction"] == "request")


def test_the_story_carries_kafkas_connect_values(tmp_path):
    """The generation's member carries Kafka's own decoded metadata and assignment (connect.jsonl's
    ``decoded``; connectors compare as a set: Kafka writes them in HashSet order)."""
    meta, asg = _kafka("ConnectMetadata", 2), _kafka("ConnectAssignment", 2)
    path = _capture(tmp_path)
    done = run_console(tmp_path, "capture", "--json", str(path))
    (gen,) = [
        json.loads(line)
        for line in done.stdout.decode("utf-8").split("\n")
        if line and json.loads(line)["type"] == "generation"
    ]
    assert gen["protocol_type"] == "connect" and gen["protocol"] == "sessioned"
    (member,) = gen["members"]
    got_meta = member["subscription"]["connect_metadata"]
    assert got_meta["url"] == meta["decoded"]["url"] and got_meta["configOffset"] == meta["decoded"]["configOffset"]
    got = member["assignment"]["connect_assignment"]
    want = asg["decoded"]
    for key in ("error", "leader", "leaderUrl", "configOffset", "delay"):
        assert got[key] == want[key], key
    assert set(got["connectorIds"]) == set(want["connectorIds"])
    assert sorted(map(json.dumps, got["revokedTaskIds"])) == sorted(map(json.dumps, want["revokedTaskIds"]))
    text = run_console(tmp_path, "capture", str(path)).stdout.decode("utf-8")
    assert "Connect assignment v2 error 0" in text and "Connect worker metadata v2" in text


def _offsets_dump(tmp_path):
    """Two snapshots of a Connect group in ``__consumer_offsets``: generation 4 with worker w1 holding Kafka's
    assignment, generation 5 with w2 holding the same one (w1 gone)."""
    from codec.pipeline.offsets import GroupMetadata, MemberMetadata, encode_group_metadata, encode_group_metadata_key

    meta, asg = _kafka("ConnectMetadata", 2), _kafka("ConnectAssignment", 2)
    key = encode_group_metadata_key("connect-cluster").hex()
    lines = []
    for gen, worker in ((4, "w1"), (5, "w2")):
        m = MemberMetadata(
            worker,
            None,
            f"{worker}-client",
            "/10.0.0.9",
            60000,
            10000,
            bytes.fromhex(meta["hex"]),
            bytes.fromhex(asg["hex"]),
        )
        value = encode_group_metadata(GroupMetadata(3, "connect", gen, "sessioned", worker, 1700000000000, (m,)))
        lines.append(f"{key} {value.hex()}")
    path = tmp_path / "connect-offsets.txt"
    path.write_text("\n".join(lines) + "\n")
    return path, asg["decoded"]


def test_a_connect_group_in_consumer_offsets_is_told_with_its_connectors_and_tasks(tmp_path):
    path, kafka = _offsets_dump(tmp_path)
    text = run_console(tmp_path, "capture", str(path))
    assert text.returncode == 0, text.stderr.decode(errors="replace")
    out = text.stdout.decode("utf-8")
    n_conn, n_tasks = len(set(kafka["connectorIds"])), len(kafka["taskIds"])
    assert out.count(f"members (1), {n_conn} connectors, {n_tasks} tasks assigned:") == 2, out
    assert f"url {_kafka('ConnectMetadata', 2)['decoded']['url']}" in out
    done = run_console(tmp_path, "capture", "--json", str(path))
    gens = [json.loads(line) for line in done.stdout.decode("utf-8").split("\n") if line]
    gens = [g for g in gens if g["type"] == "generation"]
    assert [g["generation"] for g in gens] == [4, 5]
    member = gens[0]["members"][0]
    assert member["assignment"]["connect_assignment"]["connectorIds"] == kafka["connectorIds"]
    assert member["subscription"]["connect_metadata"]["url"] == _kafka("ConnectMetadata", 2)["decoded"]["url"]
    moved = gens[1]["changes"]["moved"]
    # every connector and task moves from w1 to w2: one move of each kind, each connector named once
    assert [(m["from"], m["to"], m["items"]) for m in moved["connectors"]] == [
        ("w1 (w1-client)", "w2 (w2-client)", sorted(set(kafka["connectorIds"])))
    ]
    assert [(m["from"], m["to"]) for m in moved["tasks"]] == [("w1 (w1-client)", "w2 (w2-client)")]
    assert moved_items(gens[1]["changes"], "tasks") == {(t["connector"], t["task"]) for t in kafka["taskIds"]}
