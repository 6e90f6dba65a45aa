"""``rebalance-codec assign --connect``: one round of Connect's incremental cooperative assignor from the
command line, with each worker's SyncGroup assignment bytes."""

from __future__ import annotations

import json
import subprocess
import sys

from codec.connect import decode_connect_assignment
from tests.conftest import ROOT

GROUP = {
    "protocol": "sessioned",
    "leader": "w1",
    "connectors": {"c1": 2, "c2": 1},
    "workers": [
        {"memberId": "w1", "url": "http://w1:8083/", "configOffset": 5},
        {"memberId": "w2", "url": "http://w2:8083/", "configOffset": 5},
    ],
    "now": 0,
    "scheduledRebalanceMaxDelayMs": 300000,
}


def _assign(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codec", "assign", "--connect", *args, "-"],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_a_new_group_by_hand():
    """A new group: nothing runs yet, so everything is new work. Connectors in name order go round the workers
    (c1 -> w1, c2 -> w2); then the tasks c1-0, c1-1, c2-0 each to the least loaded worker in turn, ties in
    member order: c1-0 -> w1, c1-1 -> w2, c2-0 -> w1. Nothing is revoked, no delay."""
    p = _assign("--emit-bytes", stdin=json.dumps(GROUP))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    w1, w2 = out["assignments"]["w1"], out["assignments"]["w2"]
    assert w1["connectorIds"] == ["c1"] and w2["connectorIds"] == ["c2"]
    assert sorted((t["connector"], t["task"]) for t in w1["taskIds"]) == [("c1", 0), ("c2", 0)]
    assert [(t["connector"], t["task"]) for t in w2["taskIds"]] == [("c1", 1)]
    for member in ("w1", "w2"):
        a = out["assignments"][member]
        assert a["leader"] == "w1" and a["leaderUrl"] == "http://w1:8083/" and a["configOffset"] == 5
        assert a["revokedConnectorIds"] == [] and a["revokedTaskIds"] == [] and a["delay"] == 0
        info = decode_connect_assignment(bytes.fromhex(out["bytes"][member]))
        assert info.version == 2 and list(info.connectors) == a["connectorIds"]
        assert sorted((t.connector, t.task) for t in info.tasks) == sorted(
            (t["connector"], t["task"]) for t in a["taskIds"]
        )


def test_bad_rounds_are_error_lines():
    bad = [dict(GROUP, connectors={"c": 10**9}), dict(GROUP, workers=[]), dict(GROUP, protocol="nope")]
    p = _assign("--lines", stdin="".join(json.dumps(b) + "\n" for b in bad) + json.dumps(GROUP) + "\n")
    lines = p.stdout.split("\n")
    assert len(lines) == 5 and lines[-1] == "" and p.returncode == 1
    assert [isinstance(json.loads(line).get("error"), dict) for line in lines[:-1]] == [True, True, True, False]


def test_a_round_from_the_leaders_join_group_response(tmp_path):
    """Two workers' v2 metadata (url and config offset 5, no previous assignment), carried in the leader's
    JoinGroup v7 response of protocol `sessioned`: the same new group as above, so the same hand-derived
    assignment — the workers, leader and protocol come from the bytes, the connectors and time from INPUT."""
    from codec.connect import ConnectMetadata, encode_connect_metadata
    from codec.group import encode_message
    from codec.wire.builder import wire_class

    jm = wire_class("JoinGroupResponse", "JoinGroupResponseMember")
    members = tuple(
        jm(member_id=w, metadata=encode_connect_metadata(ConnectMetadata(url=f"http://{w}:8083/", config_offset=5), 2))
        for w in ("w1", "w2")
    )
    body = encode_message(
        "JoinGroupResponse",
        7,
        wire_class("JoinGroupResponse", "JoinGroupResponse")(
            error_code=0,
            generation_id=3,
            protocol_type="connect",
            protocol_name="sessioned",
            leader="w1",
            member_id="w1",
            members=members,
        ),
    )
    round_ = {"connectors": {"c1": 2, "c2": 1}, "now": 0, "scheduledRebalanceMaxDelayMs": 300000}
    p = _assign("--from-join-group", body.hex(), "--join-version", "7", stdin=json.dumps(round_))
    assert p.returncode == 0, p.stdout + p.stderr
    out = json.loads(p.stdout)
    assert out["protocol"] == "sessioned" and out["leader"] == "w1"
    w1, w2 = out["assignments"]["w1"], out["assignments"]["w2"]
    assert w1["connectorIds"] == ["c1"] and w2["connectorIds"] == ["c2"]
    assert sorted((t["connector"], t["task"]) for t in w1["taskIds"]) == [("c1", 0), ("c2", 0)]
    assert [(t["connector"], t["task"]) for t in w2["taskIds"]] == [("c1", 1)]
    assert w1["leaderUrl"] == "http://w1:8083/" and w1["configOffset"] == 5
    bad = _assign("--from-join-group", body.hex(), "--join-version", "7", stdin=json.dumps({**round_, "workers": []}))
    assert bad.returncode == 1 and "without 'workers'" in json.loads(bad.stdout)["error"]["message"]
