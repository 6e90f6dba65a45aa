"""``capture`` over the corpus pcaps (shared/captures): the story's frames against frames.jsonl, its
generations against the JoinGroup responses recorded there (decoded here with codec.group), its members
against run_meta.json.

frames.jsonl thins the traffic (shared/captures/README.md): every JoinGroup/SyncGroup/LeaveGroup pair,
the first 4 Heartbeat pairs of each member plus every Heartbeat answered with an error, and in the
flex* scenarios the first 2 pairs of each kind (per member and version). So the story must list every
recorded group frame exactly once, and any other group frame it lists must be one the thinning left out.
"""

from __future__ import annotations

import collections
import json

import pytest

from codec.capture.pcapfile import read_packets
from codec.group import decode_response_frame
from tests.conftest import SHARED

from .storyfixtures import json_lines, run_capture

CAPTURES = SHARED / "captures"
PCAPS = sorted((CAPTURES / "pcaps").glob("*/*.pcap.gz"))
GROUP_KEYS = {11, 12, 13, 14}

pytestmark = pytest.mark.skipif(not PCAPS, reason="shared/captures not present")


@pytest.fixture(scope="module")
def records() -> list[dict]:
    with open(CAPTURES / "frames.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _meta(run: str) -> dict:
    return json.loads((CAPTURES / "runs" / run / "run_meta.json").read_text())


def _port(run: str) -> str:
    return _meta(run)["bootstrap"].rsplit(":", 1)[1]


def _scenario(path):
    run, scenario = path.parent.name, path.name[:-len(".pcap.gz")]
    last_ts = max(p.ts for p in read_packets(path))
    return run, scenario, last_ts


def _recorded(records, run, scenario, last_ts) -> list[dict]:
    return [r for r in records if r["run"] == run and r["scenario"] == scenario and r["api_key"] in GROUP_KEYS
            and r["ts"] <= last_ts + 1e-6]


def _key(port, direction, key, version, cid) -> tuple:
    return int(port), direction, key, version, cid


@pytest.fixture(scope="module", params=PCAPS, ids=lambda p: f"{p.parent.name}/{p.name[:-8]}")
def story(request):
    path = request.param
    run, _, _ = _scenario(path)
    return path, json_lines(path, "--port", _port(run))


def test_every_recorded_group_frame_once_and_no_errors(story, records):
    path, lines = story
    run, scenario, last_ts = _scenario(path)
    frames = [x for x in lines if x["type"] == "frame"]
    assert lines[-1]["type"] == "summary"
    assert not [f for f in frames if "error" in f]
    problems = lines[-1]["problems"]
    assert not {"undecodable frames", "undecodable layers", "bad packets", "bad file"} & set(problems)
    found = collections.Counter(_key(f["client"].rsplit(":", 1)[1], f["direction"], f["api_key"], f["api_version"],
                                     f["correlation_id"]) for f in frames)
    assert max(found.values()) == 1
    recorded = {_key(r["conn"].rsplit(":", 1)[1], r["direction"], r["api_key"], r["api_version"], r["correlation_id"])
                for r in _recorded(records, run, scenario, last_ts)}
    assert recorded and recorded <= set(found)
    # what frames.jsonl left out is what its thinning rules leave out
    flex = scenario.startswith("flex")
    client_of = {(f["client"], f["correlation_id"]): f["frame"]["header"]["clientId"]
                 for f in frames if f["direction"] == "request"}
    kept = collections.Counter()
    for r in _recorded(records, run, scenario, last_ts):
        if r["direction"] == "request":
            kept[(r["client_id"], r["api_key"], r["api_version"] if flex else None)] += 1
    for f in frames:
        k = _key(f["client"].rsplit(":", 1)[1], f["direction"], f["api_key"], f["api_version"], f["correlation_id"])
        if k in recorded:
            continue
        member = client_of.get((f["client"], f["correlation_id"]))
        if flex:
            assert kept[(member, f["api_key"], f["api_version"])] >= 2, f
        else:
            assert f["api_key"] == 12 and f["error_code"] in (0, None), f
            assert kept[(member, 12, None)] >= 4, f


def test_generations_leaders_protocols_match_join_responses(story, records):
    path, lines = story
    run, scenario, last_ts = _scenario(path)
    expected: dict[int, tuple[str, str]] = {}
    for r in _recorded(records, run, scenario, last_ts):
        if r["api_key"] == 11 and r["direction"] == "response":
            body = decode_response_frame(bytes.fromhex(r["hex"]), 11, r["api_version"]).body
            if body.error_code == 0:
                assert expected.setdefault(body.generation_id, (body.leader, body.protocol_name)) == \
                       (body.leader, body.protocol_name)
    gens = [x for x in lines if x["type"] == "generation"]
    joined = {g["generation"]: (g["leader"], g["protocol"]) for g in gens if g["join_seen"]}
    assert joined == expected
    assert all(g["group"] == _meta(run)["scenarios"][scenario]["group"] for g in gens)
    numbered = [g["generation"] for g in gens if g["generation"] is not None]
    assert numbered == sorted(numbered)


def test_members_are_the_scenarios_clients(story):
    path, lines = story
    run, scenario, _ = _scenario(path)
    clients = {m["client_id"] for m in _meta(run)["scenarios"][scenario]["members"]}
    seen = {m["client_id"] for g in lines if g["type"] == "generation" for m in g["members"]}
    assert seen <= clients
    if not scenario.startswith("flex"):  # the flex* pcaps hold only the first 150 packets
        assert seen == clients
    gens = [g for g in lines if g["type"] == "generation" and g["generation"] is not None]
    for prev, g in zip(gens, gens[1:]):
        was = {m["client_id"] for m in prev["members"]}
        now = {m["client_id"] for m in g["members"]}
        ids = {m["member_id"]: m["client_id"] for m in prev["members"] + g["members"]}
        joined = {ids[label.split(" ")[0]] for label in g["changes"]["joined"]}
        assert joined == now - was


def test_text_story(story):
    path, lines = story
    run, scenario, _ = _scenario(path)
    status, text = run_capture(path, "--port", _port(run))
    assert status == 0
    for g in lines:
        if g["type"] == "generation" and g["generation"] is not None:
            assert f"\ngeneration {g['generation']}  " in text
            for m in g["members"]:
                assert m["member_id"] in text
    assert f"summary of {path.name} (pcap)" in text
    assert f"{lines[-1]['group_frames']:,} group frames decoded" in text


def test_json_frame_lines_carry_the_bytes_and_body_offset():
    """The pipeline reads capture --json: each frame line holds the frame's bytes (without the size) and
    where its body begins, equal to what frames.jsonl recorded."""
    frames = [f for f in json_lines(CAPTURES / "pcaps" / "runA" / "java-default.pcap.gz") if f["type"] == "frame"]
    recorded = {}
    for line in (CAPTURES / "frames.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["run"] == "runA" and r["scenario"] == "java-default" and r["api_key"] in (11, 12, 13, 14):
            recorded[r["hex"]] = r["body_offset"]
    matched = [f for f in frames if f.get("hex") in recorded]
    assert len(matched) >= len(recorded) // 2
    assert all(f["body_offset"] == recorded[f["hex"]] for f in matched)
