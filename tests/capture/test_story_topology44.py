"""Kafka 4.4's StreamsGroupTopologyDescriptionUpdate (API 93, KIP-1331) and StreamsGroupDescribe v1's topology
description told in the capture story. The bodies are Kafka-written (``vectors/kafka-java-topology44.jsonl``: Kafka's
generated classes at the 4.4 commit wrote and read them); the headers around them are laid out here as the facts file
says (request header v2, response header v1: both APIs are flexible from v0). None of Kafka's API 93 responses
answers 0, so the accepted update's answer is the project's encoder's (errorCode 0, no message)."""

from __future__ import annotations

import json
import struct

import pytest

from codec.capture.scripted import ScriptedCapture
from codec.kafka4 import encode
from tests.conftest import ROOT

from .storyfixtures import json_lines, run_capture

VECTORS = {
    r["id"]: r
    for r in (json.loads(x) for x in (ROOT / "vectors" / "kafka-java-topology44.jsonl").read_text().splitlines())
}
UPDATE, DESCRIBE = 93, 89
REQ = "kj44-streamsgrouptopologydescriptionupdaterequest-v0-"
RESP = "kj44-streamsgrouptopologydescriptionupdateresponse-v0-"


def _request(key: int, version: int, cid: int, body: bytes) -> bytes:
    client = b"streams-1"  # request header v2: key, version, correlation id, client id (int16 length), no tags
    frame = struct.pack(">hhih", key, version, cid, len(client)) + client + b"\x00" + body
    return struct.pack(">i", len(frame)) + frame


def _response(cid: int, body: bytes) -> bytes:
    frame = struct.pack(">i", cid) + b"\x00" + body  # response header v1: correlation id, no tags
    return struct.pack(">i", len(frame)) + frame


def _wire(vid: str) -> bytes:
    return bytes.fromhex(VECTORS[vid]["wire"])


@pytest.fixture(scope="module")
def told(tmp_path_factory):
    cap = ScriptedCapture()
    # 1: case 1's request (3 subtopologies, 1 global store) refused by case 1's response (error 32767 and a message);
    # 2: case 8's request (same group as nothing else: its own) accepted; 3: case 6's request never answered
    cap.raw(0.0, "m", _request(UPDATE, 0, 1, _wire(REQ + "1")), _response(1, _wire(RESP + "1")))
    ok = encode("streams-group-topology-description-update-response", 0, {"errorCode": 0, "errorMessage": None})
    cap.raw(1.0, "m", _request(UPDATE, 0, 2, _wire(REQ + "8")), _response(2, ok))
    # StreamsGroupDescribe v1, case 8: its third group (error 0) carries a topology description and its status
    cap.raw(
        2.0,
        "m",
        _request(DESCRIBE, 1, 3, _wire("kj44-streamsgroupdescriberequest-v1-1")),
        _response(3, _wire("kj44-streamsgroupdescriberesponse-v1-8")),
    )
    data = cap.pcap()
    unanswered = _request(UPDATE, 0, 4, _wire(REQ + "6"))
    cap2 = ScriptedCapture()
    cap2.raw(3.0, "m", unanswered, b"")
    path = tmp_path_factory.mktemp("topology44") / "t.pcap"
    path.write_bytes(data)
    lone = path.with_name("lone.pcap")
    lone.write_bytes(cap2.pcap())
    return path, lone


def _groups(lines: list[dict]) -> dict[str, dict]:
    return {x["group"]: x for x in lines if x["type"] == "heartbeat-group"}


def test_a_topology_description_update_is_told_with_kafkas_values(told):
    path, _ = told
    lines = json_lines(path)
    assert lines[-1]["type"] == "summary" and not lines[-1]["problems"], lines[-1]["problems"]
    groups = _groups(lines)
    for case, resp in (("1", VECTORS[RESP + "1"]["expected"]), ("8", {"errorCode": 0, "errorMessage": None})):
        req = VECTORS[REQ + case]["expected"]
        g = groups[req["groupId"]]
        assert g["protocol"] == "streams"
        (e,) = [e for e in g["events"] if e["kind"] == "topology description"]
        td = req["topologyDescription"]
        assert e["member"] == req["memberId"] and e["error_code"] == (resp["errorCode"] or None)
        subs, stores = len(td["subtopologies"]), len(td["globalStores"])
        assert e["detail"].startswith(f"topology epoch {req['topologyEpoch']}: {subs} subtopolog")
        assert f"{stores} global store" in e["detail"]
        if resp["errorCode"]:  # refused: the group's description is not the refused one
            assert resp["errorMessage"] in e["detail"] and g["topology_description"] is None
        else:
            d = g["topology_description"]
            assert d["source"] == "StreamsGroupTopologyDescriptionUpdate"
            assert (d["topology_epoch"], d["description"]) == (req["topologyEpoch"], td)
    # the group frames carry the group and member the request named, the response its error code
    frames = [x for x in lines if x["type"] == "frame" and x["api_key"] == UPDATE]
    assert len(frames) == 4 and {x["group"] for x in frames} == {VECTORS[REQ + c]["expected"]["groupId"] for c in "18"}


def test_a_streams_group_describe_v1_tells_the_topology_description(told):
    path, _ = told
    groups = _groups(json_lines(path))
    kafka = VECTORS["kj44-streamsgroupdescriberesponse-v1-8"]["expected"]["groups"]
    described = [g for g in kafka if g["errorCode"] == 0]
    assert described  # (the case holds one)
    for gd in described:
        d = groups[gd["groupId"]]["topology_description"]
        assert d["source"] == "StreamsGroupDescribe"
        assert (d["status"], d["assignor"], d["description"]) == (
            gd["topologyDescriptionStatus"],
            gd["assignorName"],
            gd["topologyDescription"],
        )
        assert d["topology_epoch"] == (gd["topology"] or {}).get("epoch")


def test_the_text_tells_the_update_and_the_description(told):
    path, _ = told
    code, text = run_capture(path)
    assert code == 0
    req = VECTORS[REQ + "8"]["expected"]
    td = req["topologyDescription"]
    assert (
        f"topology description (StreamsGroupTopologyDescriptionUpdate, topology epoch {req['topologyEpoch']})" in text
    )
    for sub in td["subtopologies"]:
        assert f"{sub['subtopologyId']}: {len(sub['nodes'])} node" in text
    assert "topology description" in text and VECTORS[RESP + "1"]["expected"]["errorMessage"] in text


def test_an_unanswered_update_is_told_so(told):
    _, lone = told
    lines = json_lines(lone)
    req = VECTORS[REQ + "6"]["expected"]
    (e,) = [e for e in _groups(lines)[req["groupId"]]["events"] if e["kind"] == "topology description"]
    assert e["member"] == req["memberId"] and e["error_code"] is None and e["detail"].endswith("; unanswered")
    assert lines[-1]["unanswered_requests"] == 1
