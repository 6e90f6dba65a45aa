"""``assign --consumer ... --check`` on captures of aiokafka and kafkajs groups (tests/assignor/captures/: made by
``harness.py`` there, librdkafka's mock as the broker, topics orders/6 and events/3; four members joining 6 s apart
and leaving in another order, so seven generations each; ``run.json`` is the run's own record).

What they show, generation by generation (the closing note of issue #44 and docs/explanations/assignors.md explain
each difference with Kafka's and the client's code):

* aiokafka's ``range`` and ``roundrobin`` leaders give Kafka's assignment in all seven generations;
* aiokafka's ``sticky`` leader gives another assignment in generations 3, 4 and 5 — as balanced, but other
  partitions move, and in generation 4 one more than Kafka's moves: aiokafka runs kafka-python's port of Kafka's
  older general algorithm, where Kafka 4.4 takes its constrained path (every member subscribes to the same topics,
  each keeps its claims lowest in (partition, topic) order up to its quota). Its members also claim generation -1
  in every subscription (aiokafka never calls ``on_generation_assignment``);
* kafkajs' ``RoundRobinAssigner`` differs whenever the group has two or four members (generations 3, 5 and 7):
  kafkajs deals the leader's own topics in its subscription order (orders, then events), Kafka's ``roundrobin``
  deals every subscribed topic in name order (events first). With three members the two deals coincide.

Each difference is reproduced byte for byte by the client's own assignor (aiokafka's ``StickyPartitionAssignor``,
kafkajs' ``RoundRobinAssigner`` under node) run on the captured JoinGroup members, and each client's own report of
its assignments (run.json) matches what the capture's SyncGroup responses gave it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import defaultdict

import pytest

from codec.assignor.consumer import assign_consumer
from codec.assignor.consumer.wire import captured_generations, check_capture, group_from_join
from codec.group import decode_consumer
from tests.conftest import ROOT, SHARED

HERE = ROOT / "tests" / "assignor" / "captures"
RUN = json.loads((HERE / "run.json").read_text(encoding="utf-8"))
METADATA = {"topics": RUN["topics"]}
SCENARIOS = ("aio-range", "aio-roundrobin", "aio-sticky", "kafkajs-roundrobin")
SHARED_PCAPS = SHARED / "captures" / "pcaps" / "runA"


def verdicts(name: str, assignor: str = "auto") -> dict[int, dict]:
    return {v["generation"]: v for v in check_capture(HERE / f"{name}.pcap.gz", METADATA, assignor)}


def partitions_of(raw: bytes) -> list[tuple[str, int]]:
    msg = decode_consumer("ConsumerProtocolAssignment", raw)
    return [(tp.topic, p) for tp in msg.data.assigned_partitions for p in tp.partitions]


def test_the_run_record():
    assert RUN["harness"] == "tests/assignor/captures/harness.py"
    assert RUN["versions"]["aiokafka"] == "0.14.0" and RUN["versions"]["kafkajs"] == "2.2.4"
    assert set(RUN["scenarios"]) == set(SCENARIOS)
    for name, s in RUN["scenarios"].items():
        assert [m["exitCode"] for m in s["members"]] == [0, 0, 0, 0], name
        assert 0 < s["keptPackets"] < s["rawPackets"]
        assert (HERE / f"{name}.pcap.gz").stat().st_size < 40_000


@pytest.mark.parametrize("name", ["aio-range", "aio-roundrobin"])
def test_aiokafkas_range_and_roundrobin_give_kafkas_assignment(name):
    got = verdicts(name)
    assert len(got) == 7
    assert all(v["checked"] and v["matches"] for v in got.values()), got
    assert {v["assignor"] for v in got.values()} == {name.split("-")[1]}


def test_aiokafkas_sticky_differs_in_three_generations():
    got = verdicts("aio-sticky")
    assert len(got) == 7 and all(v["checked"] for v in got.values())
    differing = sorted(g for g, v in got.items() if not v["matches"])
    assert differing == [3, 4, 5], differing
    for g in differing:  # as many partitions moved in as out: every partition is given once, by both
        v = got[g]
        missing = sum(len(ps) for d in v["differences"] for ps in d.get("missing", {}).values())
        extra = sum(len(ps) for d in v["differences"] for ps in d.get("extra", {}).values())
        assert missing == extra > 0, v["differences"]


def test_kafkajs_differs_with_two_or_four_members():
    got = verdicts("kafkajs-roundrobin", "roundrobin")
    assert {v["protocol"] for v in got.values()} == {"RoundRobinAssigner"}
    assert len(got) == 7 and all(v["checked"] for v in got.values())
    members = {g: len(v["expected"]) for g, v in got.items()}
    for g, v in got.items():
        assert v["matches"] == (members[g] in (1, 3)), (g, members[g], v["differences"])
    assert sorted(g for g, v in got.items() if not v["matches"]) == [3, 5, 7]


def test_kafkajs_needs_the_assignor_named():
    got = verdicts("kafkajs-roundrobin")
    assert all(not v["checked"] and "RoundRobinAssigner" in v["why"] for v in got.values())


def _kept_and_balance(group, assignment: dict[str, list]) -> tuple[int, int]:
    owned = {m.member_id: set(m.owned) for m in group.members}
    kept = sum(len(set(tps) & owned.get(m, set())) for m, tps in assignment.items())
    sizes = [len(assignment.get(m.member_id, ())) for m in group.members]
    return kept, max(sizes) - min(sizes)


def test_aiokafkas_sticky_is_as_balanced_and_kafkas_at_least_as_sticky():
    """In every generation aiokafka's sticky assignment and Kafka's are both fully balanced, and Kafka's keeps at
    least as many previously owned partitions (read from aiokafka's StickyAssignorUserData, as Kafka's
    StickyAssignor reads it); in generation 4 aiokafka's keeps 5 of the 9 its members own, Kafka's 6 (aiokafka
    moves orders-1 from the leader to the second member while the new one takes that member's events-0 and -1)."""
    from codec.assignor.consumer.sticky_data import member_data

    for gen in captured_generations(HERE / "aio-sticky.pcap.gz"):
        group = group_from_join(gen.members, METADATA)
        claims = {m.member_id: member_data("sticky", m) for m in group.members}
        assert {g for _, g in claims.values()} <= {-1, None}, "aiokafka's members claim generation -1 (or nothing)"
        group = type(group)(group.topics, tuple(
            type(m)(m.member_id, m.topics, tuple(claims[m.member_id][0]), None) for m in group.members
        ))  # fmt: skip
        kafka = assign_consumer(group, "sticky").members
        client = {m: partitions_of(b) for m, b in (gen.assignments or {}).items()}
        (client_kept, client_spread), (kafka_kept, kafka_spread) = (
            _kept_and_balance(group, client),
            _kept_and_balance(group, kafka),
        )
        assert client_spread <= 1 and kafka_spread <= 1, gen.generation
        assert kafka_kept >= client_kept, gen.generation
        owned = sum(len(m.owned) for m in group.members)
        if gen.generation == 4:
            assert (owned, client_kept, kafka_kept) == (9, 5, 6)


class _Cluster:
    """What aiokafka's assignors ask of its ClusterMetadata."""

    def topics(self):
        return set(METADATA["topics"])

    def partitions_for_topic(self, topic):
        n = METADATA["topics"].get(topic)
        return None if n is None else set(range(n))


@pytest.mark.parametrize("name", ["aio-range", "aio-roundrobin", "aio-sticky"])
def test_aiokafkas_own_assignor_gives_the_captured_bytes(name):
    """aiokafka's assignor (the test extra's aiokafka 0.14.0), run on each captured generation's JoinGroup
    members, writes exactly the SyncGroup assignments the capture holds: the differences are aiokafka's
    algorithm, not the capture."""
    from aiokafka.coordinator.assignors.range import RangePartitionAssignor
    from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
    from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
    from aiokafka.coordinator.protocol import ConsumerProtocol

    assignor = {"range": RangePartitionAssignor, "roundrobin": RoundRobinPartitionAssignor,
                "sticky": StickyPartitionAssignor}[name.split("-")[1]]  # fmt: skip
    n = 0
    for gen in captured_generations(HERE / f"{name}.pcap.gz"):
        members = {mid: ConsumerProtocol.METADATA.decode(raw) for mid, _, raw in gen.members}
        out = assignor.assign(_Cluster(), members)
        assert {m: a.encode() for m, a in out.items()} == gen.assignments, gen.generation
        n += 1
    assert n == 7


@pytest.mark.skipif(not SHARED_PCAPS.is_dir(), reason="shared/captures not present")
@pytest.mark.parametrize("name", ["kp-default", "kp-sticky", "kp-cooperative-sticky"])
def test_kafka_pythons_own_assignor_gives_the_shared_captures_bytes(name):
    """The same for the shared captures' kafka-python groups (kafka-python 3.0.12, the captures' own version and
    the test extra's): its sticky and cooperative-sticky leaders' differences from Kafka's (tests/assignor/
    test_consumer_check.py) are kafka-python's algorithm — the general path only, as aiokafka's."""
    import warnings
    from types import SimpleNamespace

    with warnings.catch_warnings():  # kafka-python 3.0.12 loads its schemas with importlib's deprecated read_text
        warnings.simplefilter("ignore", DeprecationWarning)
        from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor
        from kafka.coordinator.assignors.range import RangePartitionAssignor
        from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
        from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
        from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription

    assignors = {"range": RangePartitionAssignor, "roundrobin": RoundRobinPartitionAssignor,
                 "sticky": StickyPartitionAssignor, "cooperative-sticky": CooperativeStickyAssignor}  # fmt: skip
    n = 0
    for gen in captured_generations(SHARED_PCAPS / f"{name}.pcap.gz"):
        members = [SimpleNamespace(member_id=m, group_instance_id=i, metadata=ConsumerProtocolSubscription.decode(raw))
                   for m, i, raw in gen.members]  # fmt: skip
        out = assignors[gen.protocol]().assign(_Cluster(), members)
        assert {m: a.encode() for m, a in out.items()} == gen.assignments, gen.generation
        n += 1
    assert n >= 6


def test_kafkajs_own_assignor_gives_the_captured_bytes(kafkajs_driver_modules):
    """kafkajs' RoundRobinAssigner (kafkajs 2.2.4 under node), run on each captured generation's members with the
    leader's subscription, writes exactly the SyncGroup assignments the capture holds."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    n = 0
    for gen in captured_generations(HERE / "kafkajs-roundrobin.pcap.gz"):
        leader = next(raw for mid, _, raw in gen.members if mid == gen.leader)
        topics = list(decode_consumer("ConsumerProtocolSubscription", leader).data.topics)
        request = {"members": [{"memberId": mid, "metadata": raw.hex()} for mid, _, raw in gen.members],
                   "topics": topics, "partitions": METADATA["topics"]}  # fmt: skip
        p = subprocess.run(
            [node, str(HERE / "kafkajs_assign.js")], input=json.dumps(request), capture_output=True, text=True,
            timeout=60, check=True, env={"NODE_PATH": str(kafkajs_driver_modules), "PATH": "/usr/bin:/bin"},
        )  # fmt: skip
        assert {m: bytes.fromhex(h) for m, h in json.loads(p.stdout).items()} == gen.assignments, gen.generation
        n += 1
    assert n == 7


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_client_reported_what_the_capture_gave_it(name):
    """The run's own record: the assignments each client reported, in order, are the ones the SyncGroup responses
    on its connections carried (repeats and empty ones aside: clients report changes)."""
    from codec.capture.story import GroupFrame, capture_story

    client_of: dict[int, str] = {}
    received: dict[str, list[list[str]]] = defaultdict(list)
    for gf in capture_story(str(HERE / f"{name}.pcap.gz")):
        if not isinstance(gf, GroupFrame) or gf.frame is None:
            continue
        if gf.direction == "request" and getattr(gf.frame, "header", None) is not None:
            client_of[gf.conn] = gf.frame.header.client_id
        if gf.api_key == 14 and gf.direction == "response" and not gf.frame.body.error_code:
            raw = getattr(gf.frame.body.assignment, "raw", gf.frame.body.assignment)
            parts = sorted(f"{t}-{p}" for t, p in partitions_of(bytes(raw))) if raw else []
            received[client_of[gf.conn]].append(parts)

    def changes(seq: list[list[str]]) -> list[list[str]]:
        out: list[list[str]] = []
        for x in seq:
            if x and (not out or out[-1] != x):
                out.append(x)
        return out

    for m in RUN["scenarios"][name]["members"]:
        reported = changes([r["assignment"] for r in m["reported"]])
        assert reported == changes(received[m["clientId"]]), m["clientId"]


def test_the_cli_on_a_kafkajs_capture(tmp_path):
    meta = tmp_path / "meta.json"
    meta.write_text(json.dumps(METADATA))
    p = subprocess.run(
        [sys.executable, "-m", "codec", "assign", "--consumer", "roundrobin", "--check",
         str(HERE / "kafkajs-roundrobin.pcap.gz"), str(meta)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert p.returncode == 1 and "Traceback" not in p.stderr
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert [x["generation"] for x in lines] == [2, 3, 4, 5, 6, 7, 8]
    assert [x["matches"] for x in lines] == [True, False, True, False, True, False, True]
