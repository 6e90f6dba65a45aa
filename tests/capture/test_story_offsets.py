"""``capture`` over ``__consumer_offsets`` records built by hand from the layouts of Kafka's
GroupMetadataKey/Value.json (v3: non-flexible), OffsetCommitKey/Value.json and DefaultRecordBatch.java;
the members' subscription and assignment are ConsumerProtocol v0 written by hand and, for the Streams
group, Kafka's own bytes (nested_streams.jsonl v7)."""

from __future__ import annotations

import gzip
import struct

import crc32c
import pytest

from .storyfixtures import json_lines, run_capture, streams_records, task


def s16(text: str | None) -> bytes:
    return struct.pack(">h", -1) if text is None else struct.pack(">h", len(text)) + text.encode()


def b32(data: bytes) -> bytes:
    return struct.pack(">i", len(data)) + data


def group_key(group: str) -> bytes:
    return struct.pack(">h", 2) + s16(group)


def commit_key(group: str, topic: str, partition: int) -> bytes:
    return struct.pack(">h", 1) + s16(group) + s16(topic) + struct.pack(">i", partition)


COMMIT_VALUE = struct.pack(">hq", 1, 42) + s16("") + struct.pack(">qq", 1000, 2000)  # OffsetCommitValue v1


def subscription(topics: list[str]) -> bytes:  # ConsumerProtocolSubscription v0, userData empty
    return struct.pack(">hi", 0, len(topics)) + b"".join(s16(t) for t in topics) + struct.pack(">i", 0)


def assignment(parts: dict[str, list[int]]) -> bytes:  # ConsumerProtocolAssignment v0, userData empty
    out = struct.pack(">hi", 0, len(parts))
    for topic, ps in parts.items():
        out += s16(topic) + struct.pack(">i", len(ps)) + b"".join(struct.pack(">i", p) for p in ps)
    return out + struct.pack(">i", 0)


def group_value(generation: int, protocol: str, leader: str, members: list[tuple]) -> bytes:
    """GroupMetadataValue v3; members are (member id, instance id, client id, host, subscription, assignment)."""
    out = struct.pack(">h", 3) + s16("consumer") + struct.pack(">i", generation) + s16(protocol) + s16(leader)
    out += struct.pack(">qi", 1_700_000_000_000 + generation, len(members))
    for mid, iid, cid, host, sub, asg in members:
        out += s16(mid) + s16(iid) + s16(cid) + s16(host) + struct.pack(">ii", 300000, 10000) + b32(sub) + b32(asg)
    return out


TOPICS = ["orders"]
M1 = ("m-1", None, "c-1", "/10.0.0.1")
M2 = ("m-2", "static-2", "c-2", "/10.0.0.2")
STREAMS = streams_records()[6]  # v7


def dump_records() -> list[tuple[bytes, bytes | None]]:
    """Generation 1: m-1 alone with orders-0..3; generation 2: m-2 joins and takes orders-2, orders-3
    (written twice: at the join without assignments, then with them); commits; the group deleted; a
    Streams group with Kafka's subscription and assignment bytes."""
    sub = subscription(TOPICS)
    g2_empty = [(*M1, sub, b""), (*M2, sub, b"")]
    g2 = [(*M1, sub, assignment({"orders": [0, 1]})), (*M2, sub, assignment({"orders": [2, 3]}))]
    stream_sub = bytes.fromhex(STREAMS["consumerProtocolSubscription"]["hexVersionPrefixed"])
    stream_asg = bytes.fromhex(STREAMS["consumerProtocolAssignment"]["hexVersionPrefixed"])
    return [
        (group_key("g"), group_value(1, "range", "m-1", [(*M1, sub, assignment({"orders": [0, 1, 2, 3]}))])),
        (commit_key("g", "orders", 0), COMMIT_VALUE),
        (group_key("g"), group_value(2, "range", "m-1", g2_empty)),
        (group_key("g"), group_value(2, "range", "m-1", g2)),
        (commit_key("g", "orders", 2), COMMIT_VALUE),
        (group_key("g"), None),
        (
            group_key("app"),
            group_value(5, "stream", "s-1", [("s-1", None, "app-c", "/10.0.0.9", stream_sub, stream_asg)]),
        ),
    ]


def text_dump() -> str:
    return "# key<TAB>value\n" + "".join(f"{k.hex()}\t{'null' if v is None else v.hex()}\n" for k, v in dump_records())


def zigzag(n: int) -> bytes:
    v, out = (n << 1) ^ (n >> 63), bytearray()
    while v > 0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    return bytes(out + bytes([v]))


def segment() -> bytes:
    """One uncompressed record batch (magic 2, CRC-32C) holding every record."""
    recs = b""
    for i, (k, v) in enumerate(dump_records()):
        body = b"\x00" + zigzag(0) + zigzag(i) + zigzag(len(k)) + k
        body += (zigzag(-1) if v is None else zigzag(len(v)) + v) + zigzag(0)
        recs += zigzag(len(body)) + body
    n = len(dump_records())
    after_crc = struct.pack(">hiqqqhii", 0, n - 1, 0, 0, -1, -1, -1, n) + recs
    body = struct.pack(">ibI", 0, 2, crc32c.crc32c(after_crc)) + after_crc
    return struct.pack(">qi", 0, len(body)) + body


@pytest.fixture(scope="module", params=["dump.txt", "dump.txt.gz", "00000000000000000000.log", "segment.bin"])
def path(request, tmp_path_factory):
    p = tmp_path_factory.mktemp("offsets") / request.param
    data = text_dump().encode() if request.param.startswith("dump") else segment()
    p.write_bytes(gzip.compress(data) if request.param.endswith(".gz") else data)
    return p


def test_generations(path):
    lines = json_lines(path)
    gens = {(g["group"], g["generation"]): g for g in lines if g["type"] == "generation"}
    assert set(gens) == {("g", 1), ("g", 2), ("app", 5)}
    g1, g2 = gens[("g", 1)], gens[("g", 2)]
    assert (g1["protocol"], g1["leader"], g1["source"]) == ("range", "m-1", "__consumer_offsets")
    assert [(m["member_id"], m["client_id"], m["client_host"]) for m in g2["members"]] == [
        ("m-1", "c-1", "/10.0.0.1"),
        ("m-2", "c-2", "/10.0.0.2"),
    ]
    assert g2["members"][1]["group_instance_id"] == "static-2"
    # the later snapshot of generation 2 (with assignments) wins
    assert [m["assignment"]["consumer"]["partitions"] for m in g2["members"]] == [
        {"orders": [0, 1]},
        {"orders": [2, 3]},
    ]
    assert g2["members"][0]["subscription"]["consumer"]["topics"] == TOPICS
    assert g2["changes"]["joined"] == ["m-2 (c-2)"] and g2["changes"]["left"] == []
    assert g2["changes"]["moved"] == {
        "partitions": [{"from": "m-1 (c-1)", "to": "m-2 (c-2)", "items": {"orders": [2, 3]}}]
    }
    assert [e["kind"] for e in g2["events"]] == ["deleted"]
    summary = lines[-1]
    assert summary["records"] == len(dump_records()) and summary["offset_commits"] == {"g": 2}
    assert not summary["problems"]


def test_streams_member_through_the_stack(path):
    (g,) = [x for x in json_lines(path, "--group", "app") if x["type"] == "generation"]
    (m,) = g["members"]
    sub, asg = STREAMS["subscription"]["decoded"], STREAMS["assignment"]["decoded"]
    assert m["subscription"]["streams"]["version"] == sub["version"]
    assert m["subscription"]["streams"]["process_id"] == sub["processId"]
    assert m["subscription"]["streams"]["task_offset_sums"] == {
        task(t["taskId"]): t["offsetSum"] for t in sub["taskOffsetSums"]
    }
    assert m["assignment"]["streams"]["active_tasks"] == [task(t) for t in asg["activeTasks"]]


def test_text_story(path):
    status, text = run_capture(path)
    assert status == 0
    assert "group g  (2 generations" in text and "group app  (1 generations" in text
    assert "generation 2  consumer/range  leader m-1 (c-1)" in text
    assert "partitions orders: 2-3: m-1 (c-1) -> m-2 (c-2)" in text
    assert "instance static-2" in text
    assert "offset commits g: 2" in text


def test_bad_records_are_reported(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text(text_dump() + "zz-not-hex\tnull\n0002\t0003\n")
    lines = json_lines(p)
    assert lines[-1]["problems"]["bad records"]["count"] == 2
    assert {(g["group"], g["generation"]) for g in lines if g["type"] == "generation"} == {
        ("g", 1),
        ("g", 2),
        ("app", 5),
    }
