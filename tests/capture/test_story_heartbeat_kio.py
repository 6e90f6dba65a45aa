"""The heartbeat story under arbitrary values: every ConsumerGroupHeartbeat and StreamsGroupHeartbeat body of
``../shared/vectors/kio/group-kafka4.jsonl`` and every ShareGroupHeartbeat body of ``group-share.jsonl`` (random
strings with lone surrogates and control characters,
negative epochs and partitions, nulls), the n-th request of a kind and version paired with its n-th response,
each pair on one connection, in a pcap. Whatever the values, ``capture`` tells them (text always valid UTF-8,
no control character; JSON lines that carry the strings exactly) or reports a body it cannot read as a problem;
it never fails."""

from __future__ import annotations

import json
import struct
from collections import defaultdict

import pytest

from codec.capture.scripted import ScriptedCapture
from codec.wire.builder import encode_wire, wire_class
from tests.conftest import SHARED

from .storyfixtures import json_lines, run_capture

KIO = [SHARED / "vectors" / "kio" / "group-kafka4.jsonl", SHARED / "vectors" / "kio" / "group-share.jsonl"]


def _pairs() -> list[tuple[int, int, bytes, bytes]]:
    by = defaultdict(list)
    for line in (x for f in KIO for x in f.read_text(encoding="utf-8").splitlines()):
        r = json.loads(line)
        if r["apiKey"] in (68, 88, 76):
            by[(r["apiKey"], r["version"], r["kind"].endswith("Request"))].append(bytes.fromhex(r["hex"]))
    return [
        (key, v, req, resp)
        for (key, v, is_req), reqs in sorted(by.items())
        if is_req
        for req, resp in zip(reqs, by[(key, v, False)])
    ]


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    cap = ScriptedCapture()
    pairs = _pairs()
    for i, (key, version, req, resp) in enumerate(pairs):
        header = wire_class("RequestHeader", "RequestHeader")(
            request_api_key=key, request_api_version=version, correlation_id=7, client_id=f"kio-{i}"
        )
        rq = encode_wire("RequestHeader", 2, header) + req
        rs = encode_wire("ResponseHeader", 1, wire_class("ResponseHeader", "ResponseHeader")(correlation_id=7)) + resp
        cap.raw(i * 0.01, f"client-{i}", struct.pack(">i", len(rq)) + rq, struct.pack(">i", len(rs)) + rs)
    p = tmp_path_factory.mktemp("kio") / "kio-heartbeats.pcap"
    p.write_bytes(cap.pcap())
    return p, len(pairs)


def test_every_frame_is_told_or_reported(path):
    p, pairs = path
    assert pairs == 3 * 25 + 40  # ConsumerGroupHeartbeat v0 and v1, StreamsGroupHeartbeat v0: 25 pairs each;
    # ShareGroupHeartbeat v1: 40
    lines = json_lines(p)
    summary = lines[-1]
    assert summary["group_frames"] == 2 * pairs and summary["unanswered_requests"] == 0
    assert set(summary["problems"]) <= {"undecodable frames"}
    undecodable = summary["problems"].get("undecodable frames", {"count": 0})["count"]
    told = [x for x in lines if x["type"] == "frame" and "frame" in x]
    assert len(told) + undecodable == 2 * pairs
    groups = {x["frame"]["body"]["groupId"] for x in told if x["direction"] == "request"}
    assert {g["group"] for g in lines if g["type"] == "heartbeat-group"} == groups


def test_the_text_is_safe(path):
    p, _ = path
    status, text = run_capture(p)
    assert status == 0
    text.encode("utf-8")  # no lone surrogate
    assert not any(ch in text for ch in "\x1b\r\x07\x9b\u2028\u2029")
