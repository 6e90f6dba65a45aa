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
import struct

import pytest

from codec.capture.packet import decode_tcp
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
    run, scenario = path.parent.name, path.name[: -len(".pcap.gz")]
    last_ts = max(p.ts for p in read_packets(path))
    return run, scenario, last_ts


def _recorded(records, run, scenario, last_ts) -> list[dict]:
    return [
        r
        for r in records
        if r["run"] == run and r["scenario"] == scenario and r["api_key"] in GROUP_KEYS and r["ts"] <= last_ts + 1e-6
    ]


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
    found = collections.Counter(
        _key(f["client"].rsplit(":", 1)[1], f["direction"], f["api_key"], f["api_version"], f["correlation_id"])
        for f in frames
    )
    assert max(found.values()) == 1
    recorded = {
        _key(r["conn"].rsplit(":", 1)[1], r["direction"], r["api_key"], r["api_version"], r["correlation_id"])
        for r in _recorded(records, run, scenario, last_ts)
    }
    assert recorded and recorded <= set(found)
    # what frames.jsonl left out is what its thinning rules leave out
    flex = scenario.startswith("flex")
    client_of = {
        (f["client"], f["correlation_id"]): f["frame"]["header"]["clientId"]
        for f in frames
        if f["direction"] == "request"
    }
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
                assert expected.setdefault(body.generation_id, (body.leader, body.protocol_name)) == (
                    body.leader,
                    body.protocol_name,
                )
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


JAVA_DEFAULT = CAPTURES / "pcaps" / "runA" / "java-default.pcap.gz"


def _identity(port, direction: str, key: int, version: int, cid: int, hex_: str, body_offset: int) -> tuple:
    return int(port), direction, key, version, cid, hex_, body_offset


def _missing(lines: list[dict], recorded: list[dict]) -> list[tuple]:
    """The recorded frames the story's JSON frame lines do not give, each once, with the same connection,
    direction, API, version, correlation id, bytes and body offset (what frames.jsonl recorded)."""
    found = collections.Counter(
        _identity(
            f["client"].rsplit(":", 1)[1],
            f["direction"],
            f["api_key"],
            f["api_version"],
            f["correlation_id"],
            f.get("hex"),
            f.get("body_offset"),
        )
        for f in lines
        if f["type"] == "frame"
    )
    want = collections.Counter(
        _identity(
            r["conn"].rsplit(":", 1)[1],
            r["direction"],
            r["api_key"],
            r["api_version"],
            r["correlation_id"],
            r["hex"],
            r["body_offset"],
        )
        for r in recorded
    )
    return sorted((want - found).elements())


def _java_default(records) -> list[dict]:
    # runA/java-default's pcap holds the whole scenario (only the flex* pcaps stop early)
    return [r for r in records if r["run"] == "runA" and r["scenario"] == "java-default" and r["api_key"] in GROUP_KEYS]


def test_json_frame_lines_carry_the_bytes_and_body_offset(records):
    """The pipeline reads capture --json: each frame line holds the frame's bytes (without the size) and
    where its body begins. Every frame frames.jsonl recorded for the scenario (72: 9 JoinGroup, 9 SyncGroup,
    15 Heartbeat and 3 LeaveGroup pairs) is there, once, with the recorded bytes and body offset.
    ``test_json_frame_check_fails_with_frames_removed`` shows the check failing on the same capture with half
    of those frames' packets removed."""
    recorded = _java_default(records)
    assert len(recorded) == 72
    assert _missing(json_lines(JAVA_DEFAULT, "--port", _port("runA")), recorded) == []


def test_json_frame_check_fails_with_frames_removed(tmp_path, records):
    """The check above against a deliberately broken input: the capture without the packets that carry the
    recorded Heartbeat and LeaveGroup frames (36 of the 72). It names exactly those as missing, where the
    former check (half of the recorded bytes found anywhere) still passed."""
    recorded = _java_default(records)
    removed = [r for r in recorded if r["api_key"] in (12, 13)]
    assert len(removed) == len(recorded) // 2
    packets = list(read_packets(JAVA_DEFAULT))
    drop = set()
    for r in removed:  # the packet carrying the frame (size and bytes) on the frame's connection and direction
        wire = struct.pack(">i", len(r["hex"]) // 2) + bytes.fromhex(r["hex"])
        port = int(r["conn"].rsplit(":", 1)[1])
        (i,) = [
            p.index
            for p, seg in zip(packets, map(_segment, packets))
            if wire in seg.payload and (seg.sport if r["direction"] == "request" else seg.dport) == port
        ]
        drop.add(i)
    path = tmp_path / "without-heartbeats.pcap"
    path.write_bytes(_pcap([p for p in packets if p.index not in drop]))
    lines = json_lines(path, "--port", _port("runA"))
    missing = _missing(lines, recorded)
    assert missing == sorted(
        _identity(
            r["conn"].rsplit(":", 1)[1],
            r["direction"],
            r["api_key"],
            r["api_version"],
            r["correlation_id"],
            r["hex"],
            r["body_offset"],
        )
        for r in removed
    )
    # the former check: half of the recorded bytes among the frame lines (keyed by bytes alone)
    by_hex = {r["hex"]: r["body_offset"] for r in recorded}
    matched = [f for f in lines if f["type"] == "frame" and f.get("hex") in by_hex]
    assert len(matched) >= len(by_hex) // 2


def _segment(packet):
    return decode_tcp(packet.linktype, packet.data, packet.ts)


def _pcap(packets) -> bytes:
    """A libpcap file of captured packets as they were (pcap-savefile(5): microsecond timestamps)."""
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, packets[0].linktype)]
    for p in packets:
        sec = int(p.ts)
        out.append(struct.pack("<IIII", sec, round((p.ts - sec) * 1e6), len(p.data), p.orig_len) + p.data)
    return b"".join(out)
