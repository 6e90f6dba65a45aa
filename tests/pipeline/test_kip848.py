"""KIP-848 consumer groups and classic Streams groups in the pipeline as fully as classic consumer groups (#44):
a KIP-848 member's owned partitions and their epoch in ``members``, ``partition-unowned`` judged where the group is
settled, and ``member-never-rejoined`` for a classic Streams group.

Inputs: a real KIP-848 run (``kip848/frames.jsonl``: three confluent-kafka 2.16.1 consumers with
``group.protocol=consumer`` on librdkafka's mock cluster, ``kip848/make_capture.py`` its recipe) and the
simulator's ``leader-crash`` Streams scenario (its leader crashes without a LeaveGroup). Expected values come from
the frames' own bytes, read here by a small reader of ConsumerGroupHeartbeatRequest v1's layout
(ConsumerGroupHeartbeatRequest.json), from the topics the mock was given (orders/6, events/3: the recipe), from
the consumers' own log of what librdkafka handed them (``kip848/frames.assignments.json``), and from the
simulator's account; never from the pipeline."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from codec.pipeline.consumerchecks import generation_verdicts, kip848_verdicts
from codec.pipeline.kafka4 import body_units

HERE = Path(__file__).parent / "kip848"
FRAMES = HERE / "frames.jsonl"
TOPICS = {"orders": 6, "events": 3}  # the recipe's mock topics


def _frames() -> list[dict]:
    return [json.loads(x) for x in FRAMES.read_text().splitlines()]


class _Reader:
    """Just enough of Kafka's flexible encoding for a ConsumerGroupHeartbeatRequest v1 body."""

    def __init__(self, b: bytes) -> None:
        self.b, self.o = b, 0

    def uvarint(self) -> int:
        shift = val = 0
        while True:
            x = self.b[self.o]
            self.o += 1
            val |= (x & 0x7F) << shift
            if not x & 0x80:
                return val
            shift += 7

    def int32(self) -> int:
        (v,) = struct.unpack_from(">i", self.b, self.o)
        self.o += 4
        return v

    def string(self) -> str | None:
        n = self.uvarint() - 1
        if n < 0:
            return None
        s = self.b[self.o : self.o + n].decode()
        self.o += n
        return s

    def array(self, item) -> list | None:
        n = self.uvarint() - 1
        return None if n < 0 else [item() for _ in range(n)]

    def uuid(self) -> str:
        import base64

        raw = self.b[self.o : self.o + 16]
        self.o += 16
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def tags(self) -> None:
        for _ in range(self.uvarint()):
            self.uvarint()
            self.o += self.uvarint()


def _heartbeat_request_v1(body: bytes) -> dict:
    """groupId, memberId, memberEpoch, instanceId, rackId, rebalanceTimeoutMs, subscribedTopicNames,
    subscribedTopicRegex, serverAssignor, topicPartitions [{topicId, partitions}] (ConsumerGroupHeartbeatRequest.json
    v1, all flexible)."""
    r = _Reader(body)
    out: dict = {"group": r.string(), "member": r.string(), "epoch": r.int32()}
    r.string(), r.string()
    r.int32()
    out["topics"] = r.array(r.string)
    r.string(), r.string()

    def tp():
        tid, parts = r.uuid(), r.array(r.int32)
        r.tags()
        return tid, parts

    out["owned"] = r.array(tp)
    return out


def _requests() -> list[tuple[float, dict]]:
    out = []
    for f in _frames():
        if f["api_key"] == 68 and f["direction"] == "request":
            assert f["api_version"] == 1
            out.append((f["ts"], _heartbeat_request_v1(bytes.fromhex(f["hex"])[f["body_offset"] :])))
    return out


# --- no Spark: the units and the checks' functions ----------------------------------------------------------------


def test_a_heartbeat_requests_owned_partitions_null_is_not_empty():
    """KIP-848: a null ``topicPartitions`` is "unchanged", an empty one "owns none" (ConsumerGroupHeartbeatRequest
    .json); the member unit keeps them apart, with the request's epoch as their generation."""
    base = {"groupId": "g", "memberId": "m", "memberEpoch": 3, "instanceId": None, "rackId": None,
            "rebalanceTimeoutMs": -1, "subscribedTopicNames": ["orders"], "subscribedTopicRegex": None,
            "serverAssignor": None}  # fmt: skip
    units = {
        repr(tp): [u for u in body_units("ConsumerGroupHeartbeatRequest", {**base, "topicPartitions": tp})
                   if type(u).__name__ == "HeartbeatMemberUnit"]
        for tp in (None, [], [{"topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "partitions": [2, 0]}])
    }  # fmt: skip
    assert [(u.owned, u.owned_epoch) for u in units["None"]] == [(None, None)]
    assert [(u.owned, u.owned_epoch) for u in units["[]"]] == [([], 3)]
    (u,) = units[repr([{"topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "partitions": [2, 0]}])]
    assert (u.owned, u.owned_epoch) == ([("AAAAAAAAAAAAAAAAAAAAAQ", [2, 0])], 3)
    # a heartbeat carrying only its owned partitions is a member row too (the others null: unchanged)
    only = {**base, "subscribedTopicNames": None, "topicPartitions": [{"topicId": "AAAAAAAAAAAAAAAAAAAAAQ",
                                                                         "partitions": [1]}]}  # fmt: skip
    assert [u.owned for u in body_units("ConsumerGroupHeartbeatRequest", only)[1:]] == [
        [("AAAAAAAAAAAAAAAAAAAAAQ", [1])]
    ]


def _k848_rows(frames: list[dict], drop: tuple[str, int] | None = None) -> list[dict]:
    """The facts the Spark side hands over for the capture's group, built here from the frames' bytes: each
    response's assignment (decoded by codec.kafka4, the codec's reader; the request side by hand above)."""
    from codec.capture.metadata import topic_partitions
    from codec.kafka4 import decode

    rows: list[dict] = []
    for n, f in enumerate(frames, 1):
        body = bytes.fromhex(f["hex"])[f["body_offset"] :]
        base = {"group": "kip848", "record_id": f"in:{n}", "unit": 0, "ts_ms": int(f["ts"] * 1000)}
        if f["api_key"] == 3:
            if f["direction"] == "response":
                for tid, t, c, _ in topic_partitions(body, f["api_version"]):
                    rows.append({**base, "what": "topic", "topic_id": tid, "topic": t, "partitions": c})
        elif f["direction"] == "request":
            r = _heartbeat_request_v1(body)
            if r["epoch"] < 0:
                rows.append({**base, "what": "k848-leave", "member": r["member"], "generation": r["epoch"]})
            if r["topics"] is not None:
                rows.append({**base, "what": "k848-sub", "member": r["member"], "generation": r["epoch"],
                             "topics": r["topics"]})  # fmt: skip
        else:
            v = decode("ConsumerGroupHeartbeatResponse", f["api_version"], body)
            if v["errorCode"] == 0:
                rows.append({**base, "what": "k848-beat", "member": v["memberId"], "generation": v["memberEpoch"]})
            if v["errorCode"] == 0 and v.get("assignment") is not None:
                parts = [{"topic_id": t["topicId"], "topic": None, "partition": p}
                         for t in v["assignment"]["topicPartitions"] for p in t["partitions"]]  # fmt: skip
                if drop is not None and (v["memberEpoch"] == drop[1]):
                    parts = [p for p in parts if not (p["topic_id"] == drop[0] and p["partition"] == 0)]
                rows.append({**base, "unit": 1, "what": "k848-assigned", "member": v["memberId"],
                             "generation": v["memberEpoch"], "parts": parts})  # fmt: skip
    return rows


def test_the_real_kip848_group_is_judged_where_it_settled():
    """The capture: c1 alone at epoch 2 holds all 9 partitions; c2 and c3 join (epochs 3, 4) while c1 still
    revokes, so the group is never settled at 3 or 4; c2 leaves, and at epoch 5 c1 and c3 hold all 9 between them
    (the consumers' own log). Every partition of orders/6 and events/3 is held once: no finding."""
    rows = _k848_rows(_frames())
    out = kip848_verdicts("kip848", rows, {})
    verdicts = {r["generation"]: (r["checked"], r["why"]) for r in out if r["check"] is None}
    assert {g: c for g, (c, _) in verdicts.items()} == {2: True, 3: False, 4: False, 5: True}
    assert "never settled at epoch 3" in verdicts[3][1]
    assert [r for r in out if r["check"] is not None] == []
    # the consumers' log (librdkafka's own assignment()): the last state before c3 left holds every partition once
    log = json.loads((HERE / "frames.assignments.json").read_text())["client_log"]
    last: dict[str, list[str]] = {}
    for e in log:
        if e["t"] < 15:  # (c3 leaves at 18 s, c2 at 12 s; c1 and c3 settle in between)
            last[e["client_id"]] = e["assignment"]
    held = sorted(p for c in ("c1", "c3") for p in last[c])
    assert held == sorted(f"{t}-{p}" for t, n in TOPICS.items() for p in range(n))


def test_a_partition_the_settled_group_holds_nowhere_is_found():
    """The same facts with orders-0 taken out of every epoch-5 response: the settled epoch 5 misses it."""
    frames = _frames()
    rows = _k848_rows(frames)
    orders = next(r["topic_id"] for r in rows if r["what"] == "topic" and r["topic"] == "orders")
    out = kip848_verdicts("kip848", _k848_rows(frames, drop=(orders, 5)), {})
    found = [(r["generation"], r["check"], r["task"]) for r in out if r["check"] is not None]
    assert found == [(5, "partition-unowned", "orders-0")]


def test_a_released_partition_waits_for_its_next_owners_heartbeat():
    """KIP-848's reconciliation (KIP-848, "Assignment Reconciliation"): B is given t-0 at epoch 2 only once A has
    revoked it, and learns so at its next heartbeat. The moment A reaches epoch 2 (releasing t-0), every member is
    at 2 but t-0 is unowned by design: not judged. B's next response settles the group: held by B, no finding; a
    response that leaves B without it (its assignment unchanged) is a partition the broker never handed over."""

    def ev(i, what, member, gen=None, parts=None):
        row = {"group": "g", "record_id": f"r:{i}", "unit": 0, "ts_ms": i, "what": what, "member": member,
               "generation": gen}  # fmt: skip
        if what == "k848-sub":
            row["topics"] = ["t"]
        if parts is not None:
            row["parts"] = [{"topic_id": "T", "topic": "t", "partition": p} for p in parts]
        return row

    start = [
        ev(1, "k848-sub", "A", 0), ev(2, "k848-sub", "B", 0),
        ev(3, "k848-assigned", "A", 1, [0, 1]), ev(4, "k848-assigned", "B", 1, []),
        ev(5, "k848-assigned", "B", 2, []), ev(6, "k848-assigned", "A", 2, [1]),
    ]  # fmt: skip

    def judged(rows):
        out = kip848_verdicts("g", rows, {"t": 2})
        return {r["generation"]: r["checked"] for r in out if r["check"] is None}, [
            (r["generation"], r["task"]) for r in out if r["check"] is not None
        ]

    assert judged(start) == ({1: True, 2: False}, [])
    assert judged(start + [ev(7, "k848-assigned", "B", 2, [0])]) == ({1: True, 2: True}, [])
    assert judged(start + [ev(7, "k848-beat", "B", 2)]) == ({1: True, 2: True}, [(2, "t-0")])


def test_a_kip848_epoch_without_partition_counts_says_why():
    rows = [r for r in _k848_rows(_frames()) if r["what"] != "topic"]
    out = kip848_verdicts("kip848", rows, {})
    assert {r["generation"] for r in out if r["checked"]} == set()
    assert {r["why"].split(":")[0] for r in out if r["generation"] in (2, 5)} == {
        "no input of the group names topic id "
        + ", ".join(
            sorted({p["topic_id"] for r in rows if r["what"] == "k848-assigned" for p in r["parts"]})
        )  # fmt: skip
        + " (a Metadata response, its records)"
    }


def test_a_classic_streams_member_that_never_rejoined():
    """Streams members come without bytes (their SubscriptionInfo is not a plain consumer's): no assignor verdict,
    but a member of generation 2 that generation 3's JoinGroup response leaves out, with no LeaveGroup, is found."""

    def join(g, m, rid):
        return {"group": "s", "generation": g, "what": "join", "record_id": rid, "unit": 1, "member": m,
                "data": None}  # fmt: skip

    rows = [
        {"group": "s", "generation": 2, "what": "joined", "record_id": "r2", "protocol": "stream", "leader": "a"},
        join(2, "a", "r2"), join(2, "b", "r2"),
        {"group": "s", "generation": 3, "what": "joined", "record_id": "r3", "protocol": "stream", "leader": "b"},
        join(3, "b", "r3"),
    ]  # fmt: skip
    out = generation_verdicts("s", rows)
    assert [(r["generation"], r["check"], r["member"]) for r in out] == [(3, "member-never-rejoined", "a")]
    out = generation_verdicts("s", rows + [{"group": "s", "what": "leave", "member": "a", "record_id": "l"}])
    assert out == []


def kip848_pcap() -> bytes:
    """The capture's frames as a pcap (each connection's frames in order, written with the codec's pcap writer)."""
    from codec.capture.pcapwriter import TcpConnection, pcap

    conns: dict[str, TcpConnection] = {}
    for f in _frames():
        host, port = f["conn"].rsplit(":", 1)
        c = conns.get(f["conn"])
        if c is None:
            c = conns[f["conn"]] = TcpConnection((host, int(port)), ("127.0.0.1", 9092))
            c.open(f["ts"] - 0.001)
        data = bytes.fromhex(f["hex"])
        c.write("c" if f["direction"] == "request" else "s", len(data).to_bytes(4, "big") + data, f["ts"])
    return pcap(sorted((s for c in conns.values() for s in c.segments), key=lambda s: s.ts))


def test_capture_json_carries_the_metadata_responses(tmp_path):
    """``capture --json`` writes each Metadata response, byte for byte, with its body offset: the topics' partition
    counts reach the pipeline (which needs no --partitions then)."""
    from tests.capture.storyfixtures import json_lines

    path = tmp_path / "kip848.pcap"
    path.write_bytes(kip848_pcap())
    lines = json_lines(path)
    got = [(x["hex"], x["body_offset"], x["api_version"]) for x in lines if x.get("api_key") == 3]
    want = [(f["hex"], f["body_offset"], f["api_version"]) for f in _frames()
            if f["api_key"] == 3 and f["direction"] == "response"]  # fmt: skip
    assert len(want) == 12 and got == want
    assert all(x["direction"] == "response" and x["type"] == "metadata" for x in lines if x.get("api_key") == 3)
    # (heartbeats as before: one frame line each)
    assert sum(x.get("api_key") == 68 for x in lines) == sum(f["api_key"] == 68 for f in _frames())


# --- Spark: the tables on the real capture and the simulator's Streams crash ----------------------------------------

spark_only = pytest.mark.skipif(
    __import__("importlib").util.find_spec("pyspark") is None, reason="the pipeline tests need the spark extra"
)


@pytest.fixture(scope="module")
def result(spark, tmp_path_factory):
    import codec.simulate as sim
    from codec.pipeline.job import Options, run

    from tests.capture.storyfixtures import run_capture

    folder = tmp_path_factory.mktemp("kip848-in")
    # the real run as `capture --json` writes it from a pcap of it: Metadata responses included (no --partitions)
    pcap = tmp_path_factory.mktemp("kip848-pcap") / "kip848.pcap"
    pcap.write_bytes(kip848_pcap())
    status, text = run_capture(pcap, "--json")
    assert status == 0
    (folder / "kip848.jsonl").write_text(text)
    crash = sim.simulate(sim.load_scenario(sim.example_path("leader-crash")), "ha")
    (folder / "crash.jsonl").write_text("".join(json.dumps(r) + "\n" for r in crash.recorder.records))
    out = tmp_path_factory.mktemp("kip848-out") / "out"
    summary = run(Options(inputs=[str(folder)], out=str(out), quiet=True), spark)
    return out, summary, crash


@spark_only
def test_members_carry_what_a_kip848_member_owns(result):
    from .conftest import read_table

    out, _, _ = result
    names = {}
    from codec.capture.metadata import topic_partitions

    for f in _frames():
        if f["api_key"] == 3 and f["direction"] == "response":
            body = bytes.fromhex(f["hex"])[f["body_offset"] :]
            names.update({tid: t for tid, t, _, _ in topic_partitions(body, f["api_version"])})
    assert set(names.values()) == set(TOPICS)
    want = {}
    for _, r in sorted(_requests(), key=lambda x: x[0]):  # the first request of each (member, epoch) that says
        if r["epoch"] >= 0 and (r["owned"] is not None or r["topics"] is not None):
            want.setdefault((r["member"], r["epoch"]), (r["owned"], r["epoch"]))
    got = {
        (m["member"], m["generation"]): (
            None if m["owned_partitions"] is None
            else [(o["topic_id"], o["partitions"]) for o in m["owned_partitions"]],
            m["subscription_generation"],
            None if m["owned_partitions"] is None else [(o["topic"], o["topic_id"]) for o in m["owned_partitions"]],
        )
        for m in read_table(out, "members") if m["group"] == "kip848"
    }  # fmt: skip
    assert {k: v[:2] for k, v in got.items()} == want
    assert all(t == names[tid] for _, _, pairs in got.values() for t, tid in pairs or ())
    assert sorted(k for k, v in got.items() if v[0] == []) == sorted(k for k, v in want.items() if v[0] == []) != []


@spark_only
def test_the_capture_has_no_finding_and_the_report_says_what_it_judged(result):
    from .conftest import read_table

    out, _, _ = result
    assert [f for f in read_table(out, "findings") if f["group"] == "kip848"] == []
    cc = json.loads((out / "report.json").read_text())["consumer_assignor_checks"]
    sample = {(r["group"], r["generation"]): r["why"] for r in cc["not_checked_sample"]}
    assert sorted(g for (grp, g) in sample if grp == "kip848") == [3, 4]
    assert cc["kip848_not_judged"]["groups"] == ["kip848"]
    assert cc["kip848_not_judged"]["check"] == "not-the-assignors-assignment"


@spark_only
def test_a_classic_streams_leader_that_crashed_never_rejoined(result):
    """leader-crash: generation 2's JoinGroup response lists a member that generation 3's does not, and no
    LeaveGroup was sent (the frames, decoded here); the finding names it."""
    from codec.group import decode_message

    from .conftest import read_table

    out, _, crash = result
    members: dict[int, set[str]] = {}
    leaves = set()
    group = None
    for f in crash.recorder.records:
        body = bytes.fromhex(f["hex"])[f["body_offset"] :]
        if f["api_key"] == 11 and f["direction"] == "response":
            v = decode_message("JoinGroupResponse", f["api_version"], body).value
            if v.members:
                members[v.generation_id] = {m.member_id for m in v.members}
        if f["api_key"] == 13 and f["direction"] == "request":
            leaves.add(decode_message("LeaveGroupRequest", f["api_version"], body).value.member_id)
        if f["api_key"] == 11 and f["direction"] == "request":
            group = decode_message("JoinGroupRequest", f["api_version"], body).value.group_id
    want = {(g + 1, m) for g in members if g + 1 in members for m in members[g] - members[g + 1] - leaves}
    assert want  # (the scenario's crash)
    got = {
        (f["generation"], f["member"])
        for f in read_table(out, "findings")
        if f["check"] == "member-never-rejoined" and f["group"] == group
    }
    assert got == want
