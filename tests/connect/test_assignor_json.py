"""The Connect group JSON of :mod:`codec.assignor.connect_json`: a round in, the result out, the state carried to
the next round, workers from their metadata bytes, the SyncGroup bytes, and refusals naming the key. Expected
values are worked out by hand from the assignors' rules (see test_assignor_incremental's docstring)."""

from __future__ import annotations

import json

import pytest

from codec.connect import (
    ConnectAssignment,
    ConnectMetadata,
    ConnectorTaskId,
    encode_connect_metadata,
)
from codec.assignor.connect_json import run_connect_group_json
from codec.errors import CodecError


def group(**kw):
    g = {
        "connectors": {"c": 2},
        "workers": [
            {"memberId": "w1", "url": "u1", "configOffset": 3},
            {"memberId": "w2", "url": "u2", "configOffset": 3},
        ],
        "now": 1000,
    }
    g.update(kw)
    return g


def test_first_round_and_bytes():
    """c -> w1 (both at 0 connectors, w1 first by id); tasks: c-0 -> w1, c-1 -> w2 (both at 0). v2 bytes for
    w2: header 0002, error 0000, leader "w1" (0002 7731), leader URL "u1" (0002 7531), offset 3 (int64), one
    group "c" (0001 63) with one task id, 1; no revoked groups; delay 0."""
    out = run_connect_group_json(group(), include_bytes=True)
    assert out["assignments"]["w1"]["connectorIds"] == ["c"]
    assert out["assignments"]["w1"]["taskIds"] == [{"connector": "c", "task": 0}]
    assert out["assignments"]["w2"]["taskIds"] == [{"connector": "c", "task": 1}]
    assert out["bytes"]["w2"] == (
        "00020000000277310002753100000000000000030000000100016300000001000000010000000000000000"
    )
    assert (out["protocol"], out["leader"], out["configOffset"], out["error"], out["delay"]) == (
        "sessioned",
        "w1",
        3,
        0,
        0,
    )
    json.dumps(out)


def test_rounds_chain_through_the_state():
    """Round 1 as above. Round 2 (t=1000): w2 left; its c-1 is lost: delay 300000, nothing moves. Round 3
    (t=301000): due, no candidate: c-1 handed out as new to w1."""
    r1 = run_connect_group_json(group())
    w1 = {"memberId": "w1", "url": "u1", "configOffset": 3, "allocation": r1["assignments"]["w1"]}
    r2 = run_connect_group_json(group(workers=[w1], state=r1["state"]))
    assert r2["delay"] == 300_000 and r2["assignments"]["w1"]["taskIds"] == []
    assert r2["assignments"]["w1"]["delay"] == 300_000
    r3 = run_connect_group_json(group(workers=[w1], state=json.loads(json.dumps(r2["state"])), now=301_000))
    assert r3["assignments"]["w1"]["taskIds"] == [{"connector": "c", "task": 1}]
    assert r3["running"]["w1"] == {
        "connectorIds": ["c"],
        "taskIds": [{"connector": "c", "task": 0}, {"connector": "c", "task": 1}],
    }


def test_eager_and_metadata_hex():
    """Protocol default: eager. w2 comes as its metadata bytes (url "u2", offset 9, an allocation the eager
    assignor ignores). Sorted circle w1, w2: c -> w1; c-0 -> w2, c-1 -> w1; offset max(3, 9) = 9."""
    alloc = ConnectAssignment(
        version=1, leader="w2", leader_url="u2", config_offset=9, connectors=("c",), tasks=(ConnectorTaskId("c", 0),)
    )
    raw = encode_connect_metadata(ConnectMetadata(version=1, url="u2", config_offset=9, allocation=alloc))
    out = run_connect_group_json(
        group(
            protocol="default",
            leaderFreshOffset=9,
            workers=[{"memberId": "w1", "url": "u1", "configOffset": 3}, {"memberId": "w2", "metadata": raw.hex()}],
        )
    )
    assert out["state"] is None and out["protocol"] == "default"
    assert out["assignments"]["w1"]["connectorIds"] == ["c"]
    assert out["assignments"]["w1"]["taskIds"] == [{"connector": "c", "task": 1}]
    assert out["assignments"]["w2"]["taskIds"] == [{"connector": "c", "task": 0}]
    assert {a["configOffset"] for a in out["assignments"].values()} == {9}


@pytest.mark.parametrize(
    "bad, word",
    [
        ({"nope": 1}, "nope"),
        ({"protocol": "eager"}, "protocol"),
        ({"connectors": {"c": -1}}, "connectors.c"),
        ({"connectors": [1]}, "connectors"),
        ({"workers": []}, "workers"),
        ({"workers": [{"memberId": "w1", "colour": 1}]}, "colour"),
        ({"workers": [{"memberId": "w1", "configOffset": "3"}]}, "configOffset"),
        ({"workers": [{"memberId": "w1", "metadata": "zz"}]}, "metadata"),
        ({"scheduledRebalanceMaxDelayMs": -1}, "scheduledRebalanceMaxDelayMs"),
        ({"state": {"delay": True}}, "delay"),
        ({"leader": "w9"}, "w9"),
    ],
)
def test_refusals_name_the_key(bad, word):
    with pytest.raises(ValueError, match=word):
        run_connect_group_json(group(**bad))


def test_bad_allocation_is_a_codec_error():
    with pytest.raises(CodecError):
        run_connect_group_json(group(workers=[{"memberId": "w1", "allocation": {"taskIds": "x"}}]))
