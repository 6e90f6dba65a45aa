"""A plain consumer group's facts in the executors' units (no Spark): the ConsumerProtocol subscription's topics,
the assignment's partitions, the request header's client id.

Expected values are read off the frames' bytes here by hand (a small reader of Kafka's classic encodings: int16
and int32 big-endian, int16-length strings, int32-length arrays and bytes), never from the pipeline's output. The
frames are the bundled sample's (``codec/examples/pipeline/frames.jsonl``: the Apache Java client's requests and
librdkafka's mock broker's responses, from ``../shared/captures``)."""

from __future__ import annotations

import struct

import pytest

pa = pytest.importorskip("pyarrow", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from codec.pipeline.arrow import decode_table  # noqa: E402
from codec.pipeline.units import ROW_BYTES  # noqa: E402

from tests.conftest import SHARED  # noqa: E402

from .conftest import FRAMES, jsonl  # noqa: E402


class Reader:
    """Kafka's classic (non-flexible) encodings, by hand."""

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data, self.pos = data, pos

    def _take(self, fmt: str):
        (v,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v

    def i16(self) -> int:
        return self._take(">h")

    def i32(self) -> int:
        return self._take(">i")

    def string(self) -> str | None:
        n = self.i16()
        if n < 0:
            return None
        self.pos += n
        return self.data[self.pos - n : self.pos].decode()

    def raw(self) -> bytes | None:
        n = self.i32()
        if n < 0:
            return None
        self.pos += n
        return self.data[self.pos - n : self.pos]

    def array(self, item) -> list:
        return [item() for _ in range(max(self.i32(), 0))]


def header_client_id(frame: bytes) -> str | None:
    """A request header (v1): api key, version, correlation id, then the client id."""
    return Reader(frame, 8).string()


def assignment_partitions(raw: bytes) -> list[tuple[str, list[int]]]:
    """ConsumerProtocolAssignment (any version: the same layout): int16 version, then [topic, [partition]]."""
    r = Reader(raw, 2)
    return r.array(lambda: (r.string(), r.array(r.i32)))


def subscription_topics(raw: bytes) -> list[str]:
    """ConsumerProtocolSubscription: int16 version, then the topics first."""
    r = Reader(raw, 2)
    return r.array(r.string)


def join_request(frame: bytes) -> dict:
    """JoinGroup request v5 (the sample's): group, timeouts, member, instance id, protocol type, protocols."""
    r = Reader(frame, 10 + len(header_client_id(frame).encode()))
    group, _, _, member, _, ptype = r.string(), r.i32(), r.i32(), r.string(), r.string(), r.string()
    protocols = r.array(lambda: (r.string(), r.raw()))
    return {"group": group, "member": member or None, "protocol_type": ptype, "protocols": protocols}


def sync_request(frame: bytes) -> dict:
    """SyncGroup request v3 (the sample's): group, generation, member, instance id, the leader's assignments."""
    r = Reader(frame, 10 + len(header_client_id(frame).encode()))
    group, generation, member, _ = r.string(), r.i32(), r.string(), r.string()
    assignments = r.array(lambda: (r.string(), r.raw()))
    return {"group": group, "generation": generation, "member": member, "assignments": assignments}


def consumer_partitions(frames: list[dict]) -> dict[tuple, set[tuple[str, int]]]:
    """``(group, generation, member) -> {(topic, partition)}`` of the SyncGroup frames: a request's assignments
    for each member, a response's for the member of its request (same connection and correlation id); empty
    assignments left out (no rows)."""
    requests = {}
    out: dict = {}
    for f in frames:
        if f["api_key"] == 14 and f["direction"] == "request":
            s = sync_request(bytes.fromhex(f["hex"]))
            requests[(f["conn"], f["correlation_id"])] = s
            for member, raw in s["assignments"]:
                out.setdefault((s["group"], s["generation"], member), []).append(assignment_partitions(raw))
    for f in frames:
        if f["api_key"] == 14 and f["direction"] == "response":
            s = requests[(f["conn"], f["correlation_id"])]
            raw = sync_response_assignment(bytes.fromhex(f["hex"]))
            out.setdefault((s["group"], s["generation"], s["member"]), []).append(assignment_partitions(raw))
    want = {}
    for key, assignments in out.items():
        sets = [{(t, p) for t, ps in a for p in ps} for a in assignments]
        assert all(x == sets[0] for x in sets), key  # the leader's request and the response agree
        if sets[0]:
            want[key] = sets[0]
    return want


def sync_response_assignment(frame: bytes) -> bytes:
    """SyncGroup response v3: correlation id, throttle time, error code, assignment."""
    return Reader(frame, 10).raw()


def _frames(api_key: int, direction: str) -> list[dict]:
    return [f for f in jsonl(FRAMES) if f["api_key"] == api_key and f["direction"] == direction]


def _decode(frames: list[dict]):
    rows = [
        {
            "record_id": f"{f['conn']}/{f['correlation_id']}/{f['direction']}",
            "kind": "frame",
            "hex": f["hex"],
            "api_key": f["api_key"],
            "version": f["api_version"],
            "direction": f["direction"],
        }
        for f in frames
    ]
    return decode_table(rows).to_pylist()


def test_a_join_group_request_gives_its_senders_client_id_and_subscribed_topics():
    frames = _frames(11, "request")
    assert len(frames) >= 8
    got = [u for u in _decode(frames) if u["unit_kind"] == "member"]
    want = []
    for f in frames:
        frame = bytes.fromhex(f["hex"])
        j = join_request(frame)
        _, metadata = j["protocols"][0]  # the member unit is the first protocol's (no "stream" among them)
        want.append((j["group"], j["member"], header_client_id(frame), subscription_topics(metadata)))
    assert [(u["group"], u["member"], u["client_id"], u["subscribed_topics"]) for u in got] == want
    assert {w[2] for w in want} == {"java-default-c1", "java-default-c2", "java-default-c3"}
    assert {tuple(w[3]) for w in want} == {("events", "orders")}


def test_a_sync_group_response_gives_the_consumers_partitions_per_topic():
    frames = _frames(14, "response")
    units = _decode(frames)
    got = [u["topic_partitions"] for u in units if u["unit_kind"] == "assignment"]
    want = [assignment_partitions(sync_response_assignment(bytes.fromhex(f["hex"]))) for f in frames]
    assert got == [[{"topic": t, "partitions": ps} for t, ps in w] for w in want]
    assert ("orders", [0, 1, 2, 3, 4, 5]) in want[0]  # the first member alone: every partition
    # a plain consumer's assignment carries no Streams tasks
    assert all(u["active"] is None and not u["streams"] for u in units if u["unit_kind"] == "assignment")


def subscription_owned(raw: bytes) -> tuple[list | None, int | None]:
    """ConsumerProtocolSubscription's ownedPartitions (v1+, ``[(topic, [partition])]``) and generationId (v2+):
    int16 version, topics, user data, then those; None where the version lacks them."""
    r = Reader(raw)
    version = r.i16()
    r.array(r.string), r.raw()
    owned = r.array(lambda: (r.string(), r.array(r.i32))) if version >= 1 else None
    return owned, r.i32() if version >= 2 else None


def join_request_any(frame: bytes, version: int) -> dict:
    """JoinGroup request v0-v5 (non-flexible): group, session timeout, rebalance timeout (v1+), member, instance
    id (v5+), protocol type, protocols."""
    r = Reader(frame, 10 + len(header_client_id(frame).encode()))
    group, _ = r.string(), r.i32()
    if version >= 1:
        r.i32()
    member = r.string()
    if version >= 5:
        r.string()
    r.string()
    return {"group": group, "member": member or None, "protocols": r.array(lambda: (r.string(), r.raw()))}


def test_a_classic_members_owned_partitions_and_subscription_generation_on_the_shared_captures():
    """Issue #44: the ConsumerProtocol subscription's owned partitions (v1+) and generation (v2+) on the members'
    units, for every non-flexible JoinGroup request of the shared corpus (five client libraries), read off the
    bytes here by hand; null where the subscription's version lacks them."""
    frames = [
        f
        for f in jsonl(SHARED / "captures" / "frames.jsonl")
        if f["api_key"] == 11 and f["direction"] == "request" and not f["flexible"]
    ]
    got = [u for u in _decode(frames) if u["unit_kind"] == "member"]
    want = []
    for f in frames:
        j = join_request_any(bytes.fromhex(f["hex"]), f["api_version"])
        owned, generation = subscription_owned(j["protocols"][0][1])  # the member unit is the first protocol's
        want.append((j["member"], owned, generation))
    assert [
        (
            u["member"],
            None if u["owned_partitions"] is None else [(t["topic"], t["partitions"]) for t in u["owned_partitions"]],
            u["subscription_generation"],
        )
        for u in got
    ] == want
    # the corpus holds all three cases: v0 (neither), v1 (owned only: kafka-python's cooperative-sticky), v2+
    # with a generation, and members that own partitions when they rejoin
    assert {(w[1] is None, w[2] is None) for w in want} == {(True, True), (False, True), (False, False)}
    assert any(w[1] for w in want) and any(w[2] is not None and w[2] >= 1 for w in want)
    assert len(want) >= 100


def _sync_response(topic: str, partitions: int) -> str:
    """A SyncGroup v3 response whose assignment (v0) holds ``partitions`` partitions of one topic."""
    name = topic.encode()
    asg = struct.pack(">hih", 0, 1, len(name)) + name + struct.pack(">i", partitions)
    asg += b"".join(struct.pack(">i", p) for p in range(partitions)) + struct.pack(">i", -1)
    return (struct.pack(">iihi", 7, 0, 0, len(asg)) + asg).hex()


def _one(hex_: str) -> dict:
    (head,) = [
        u
        for u in decode_table(
            [{"record_id": "r", "kind": "frame", "hex": hex_, "api_key": 14, "version": 3, "direction": "response"}]
        ).to_pylist()
        if u["unit"] in (0, None) or u["unit_kind"] == "quarantine"
    ]
    return head


def test_an_assignment_whose_rows_would_repeat_a_long_topic_name_is_quarantined():
    """One row per partition repeats the topic's name: a name far beyond Kafka's 249 characters over many
    partitions passes ROW_BYTES and the record is quarantined, with its field path; the same partitions of a
    topic named as Kafka allows decode (the sibling shows the check is not refusing every large assignment)."""
    partitions = 20_000
    long_name = "t" * 30_000
    assert partitions * len(long_name) > ROW_BYTES[0] * (4 * partitions + len(long_name)) + ROW_BYTES[1]
    q = _one(_sync_response(long_name, partitions))
    assert (q["unit_kind"], q["error_type"], q["error_path"]) == ("quarantine", "UnsupportedValue", "assignment")
    assert "codec.budget" in q["error_message"]
    ok = _one(_sync_response("t" * 249, partitions))
    assert ok["unit_kind"] == "group" and ok["group_error_code"] == 0


def test_a_request_header_whose_client_id_runs_past_the_frame_is_quarantined():
    f = _frames(11, "request")[0]
    frame = bytearray.fromhex(f["hex"])
    frame[8:10] = struct.pack(">h", len(frame))  # a client id longer than the whole frame
    row = {
        "record_id": "r",
        "kind": "frame",
        "hex": frame.hex(),
        "api_key": 11,
        "version": 5,
        "direction": "request",
        "body_offset": f["body_offset"],  # the body is found; the header's client id is still read
    }
    (q,) = decode_table([row]).to_pylist()
    assert (q["unit_kind"], q["error_layer"], q["error_path"], q["error_offset"]) == (
        "quarantine",
        "RequestHeader",
        "client_id",
        10,
    )


def test_a_topic_arrow_cannot_hold_is_written_escaped_and_named():
    """Kafka's bytes are UTF-8, but a hand-built unit may hold a lone surrogate in a topic: the batch converts
    again with the topic written as utf8_safe gives it, the entry named in ``escaped``."""
    from codec.pipeline.arrow import Units
    from codec.pipeline.units import AssignmentUnit

    units = Units()
    units.units("sync-group-response", [AssignmentUnit("m", 1, "g", None, 0, [("ok", [0]), ("x\ud800", [1, 2])])])
    (row,) = units.table().to_pylist()
    assert row["topic_partitions"] == [
        {"topic": "ok", "partitions": [0]},
        {"topic": "x\\ud800", "partitions": [1, 2]},
    ]
    assert row["escaped"] == ["topic_partitions[1].topic"]
