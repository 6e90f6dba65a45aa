"""The consumer assignors' family of generated gate rounds (``ConsumerRound``, codec/assignor/consumer/gate_rounds.py,
registered in codec/conformance/rounds.py): random groups as a leader sees them, Kafka's assignment computed by the
Kafka-exact assignors, and a client's own assignor (kafka-python's, through vectors/adapters/kafka-python-assignors)
held to it.

The expected assignments are the reference's; what is held here is that the rounds are what a leader sees (the
subscription bytes read back to the drawn group), that every reference assignment is sound by properties checked
independently (each subscribed partition given once, to a subscriber; cooperative-sticky only withholds what changes
owner), that a wrong answer fails with its difference named, and that nothing a lookup table can know passes."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from codec.assignor.consumer.gate_rounds import (
    _group,
    _partitions,
    assign_consumer_round,
    check_consumer_round,
    compare_consumer_round,
)
from codec.conformance.impl import Outcome
from codec.conformance.rounds import FAMILIES, take_round
from codec.conformance.runner import run_all

ADAPTER = Path(__file__).parents[2] / "vectors" / "adapters" / "kafka-python-assignors" / "adapter.py"


def _cases(seed: int, n: int):
    out = [take_round(seed, i, "ConsumerRound") for i in range(n)]
    assert all(not isinstance(c, str) for c in out), [c for c in out if isinstance(c, str)][:3]
    return out


def _expected(case) -> dict[str, bytes]:
    return {a["memberId"]: bytes.fromhex(a["assignment"]) for a in case.expected["assignments"]}


def test_the_family_is_registered_and_its_rounds_vary_and_replay():
    assert "ConsumerRound" in FAMILIES
    cases = _cases(1, 80)
    assert [json.dumps(c.expected, sort_keys=True) for c in cases] == [
        json.dumps(c.expected, sort_keys=True) for c in _cases(1, 80)
    ]
    assignors = Counter(c.round["consumerAssignor"] for c in cases)
    assert set(assignors) == {"range", "roundrobin", "sticky", "cooperative-sticky"}
    groups = [_group(c.round) for c in cases]
    assert sum(any(m.owned for m in g.members) for g in groups) > 30  # previous generations' partitions are claimed
    assert any(len({m.generation for m in g.members if m.generation is not None}) > 1 for g in groups)
    assert any(len({m.topics for m in g.members}) > 1 for g in groups)  # heterogeneous subscriptions
    assert len({len(g.members) for g in groups}) >= 5


def test_every_reference_assignment_is_sound_by_independent_properties():
    for case in _cases(2, 80):
        got = _expected(case)
        assert got == assign_consumer_round(case.round)
        group = _group(case.round)
        subs = {m.member_id: set(m.topics) for m in group.members}
        given = [(tp, m) for m, raw in got.items() for tp in _partitions(raw)]
        owners = Counter(tp for tp, _ in given)
        assert max(owners.values(), default=1) == 1, case.id
        assert all(tp[0] in subs[m] and 0 <= tp[1] < group.topics[tp[0]] for tp, m in given), case.id
        wanted = {(t, p) for s in subs.values() for t in s for p in range(group.topics[t])}
        unowned = wanted - set(owners)
        if case.round["consumerAssignor"] != "cooperative-sticky":
            assert not unowned, case.id
        else:  # withheld only where a member owned it before: the partition is being revoked
            owned = {tp for m in group.members for tp in m.owned}
            assert unowned <= owned, case.id
        if (
            case.round["consumerAssignor"] in ("roundrobin", "sticky")
            and len({frozenset(s) for s in subs.values()}) == 1
        ):
            sizes = [len(_partitions(raw)) for raw in got.values()]
            assert max(sizes) - min(sizes) <= 1, case.id  # homogeneous groups are balanced


def test_a_moved_partition_and_unreadable_bytes_fail_with_their_difference():
    case = next(c for c in _cases(3, 40) if sum(bool(_partitions(b)) for b in _expected(c).values()) >= 2)
    want = _expected(case)
    assert compare_consumer_round(case.expected, want) is None
    a, b = [m for m, raw in sorted(want.items()) if _partitions(raw)][:2]
    swapped = {**want, a: want[b], b: want[a]}
    found = compare_consumer_round(case.expected, swapped)
    assert found is not None and found[1] == "$[].assignedPartitions" and "missing" in found[0]
    assert compare_consumer_round(case.expected, {**want, a: b"\x00"})[1] == "bytes"
    assert compare_consumer_round(case.expected, {a: want[a]})[1] == "members"
    assert check_consumer_round(case.round, {**want, b: want[a]})  # a partition given twice is unsound


class Impl:
    """An in-process implementation answering ``assign`` with ``fn`` (and declining the rest)."""

    name = "in-process"

    def __init__(self, fn) -> None:
        self.fn = fn

    def assign(self, round_):
        out = self.fn(round_)
        return Outcome(declined=out) if isinstance(out, str) else Outcome(value=out)

    def decode(self, *a, **k):
        return Outcome(declined="no")

    def encode(self, *a, **k):
        return Outcome(declined="no")


def _run(fn, n=40):
    run = run_all(Impl(fn), [], ops=["assign"], generate=n, cells=[], round_families=["ConsumerRound"], seed=7)
    return run.generated


def test_kafkas_assignment_passes_and_a_lookup_table_of_the_files_passes_nothing():
    assert _run(assign_consumer_round).counts() == {"pass": 40, "fail": 0, "skip": 0, "xfail": 0, "notrun": 0}
    # everything the project ships about consumer assignors, by heart: the Kafka test cases' groups and answers
    table = {}
    for path in (Path(__file__).parents[2] / "vectors" / "consumer").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            table[json.dumps(row.get("group") or row.get("input"), sort_keys=True)] = row
    assert table

    def lookup(r):
        return "not a vector" if json.dumps(r, sort_keys=True) not in table else {}

    assert _run(lookup).counts()["pass"] == 0
    # and an answer that ignores the subscriptions (everything to the first member) passes nothing either
    first = _run(lambda r: {m["memberId"]: assign_consumer_round(r)[r["members"][0]["memberId"]] for m in r["members"]})
    assert first.counts()["pass"] <= 4  # a single-member round is all it can get right


def _kafka_python():
    pytest.importorskip("kafka.coordinator.assignors.cooperative_sticky")
    spec = importlib.util.spec_from_file_location("kafka_python_assignors", ADAPTER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kafka_pythons_assignors_are_held_to_kafkas():
    adapter = _kafka_python()

    def ask(r):
        try:
            out = adapter.answer({"op": "assign", "round": r})
        except Exception as e:  # noqa: BLE001 - the adapter's main loop answers an error the same way
            raise RuntimeError(f"{type(e).__name__}: {e}") from None
        return {m: bytes.fromhex(h) for m, h in out["assignments"].items()}

    by: Counter = Counter()
    for case in _cases(11, 120):
        name = case.round["consumerAssignor"]
        try:
            found = compare_consumer_round(case.expected, ask(case.round))
        except RuntimeError:
            by[name, "error"] += 1
            continue
        by[name, "pass" if found is None else "fail"] += 1
    # kafka-python 3.0.12's range is Kafka's; its round-robin throws on heterogeneous subscriptions (the inner loop
    # takes next(member_iter), a (group.instance.id, member id) pair, as a member id: KeyError); its sticky
    # assignors port Kafka's older general algorithm and differ from today's where Kafka takes another path
    assert by["range", "fail"] == by["range", "error"] == 0 and by["range", "pass"] > 10
    assert by["roundrobin", "error"] > 0 and by["roundrobin", "fail"] == 0
    assert by["sticky", "fail"] > 0 and by["cooperative-sticky", "fail"] > 0


def test_the_built_in_leader_answers_both_families():
    from codec.conformance.impl import handle_request

    def builtin(r):
        out = handle_request({"op": "assign", "round": r})
        return {m: bytes.fromhex(h) for m, h in out["assignments"].items()}

    assert _run(builtin, 30).counts() == {"pass": 30, "fail": 0, "skip": 0, "xfail": 0, "notrun": 0}
    streams = take_round(7, 0, "RebalanceRound")
    assert FAMILIES["RebalanceRound"].compare(streams.expected, builtin(streams.round)) is None


def test_kafkas_own_cases_run_through_the_gate_as_consumer_rounds_under_the_evidence_rule():
    from codec.assignor.consumer.gate_rounds import round_message
    from codec.assignor.consumer.gate_server import assign_server_round
    from codec.conformance.vectors import load_consumer_rounds
    from tests.conftest import consumer_round_counts

    rounds = load_consumer_rounds()
    # every case of the two Kafka-computed files by the documented rule, counted from the files by hand
    counted = consumer_round_counts()
    assert counted == {"ConsumerRound": 253, "ConsumerRackRound": 131, "ServerAssignorRound": 180}
    assert Counter(round_message(r) for r in rounds) == counted
    plain = [r for r in rounds if round_message(r) == "ConsumerRound"]
    by = Counter(r["consumerAssignor"] for r in plain)
    assert by == {"range": 78, "roundrobin": 74, "sticky": 52, "cooperative-sticky": 49}
    assert sum("kafkaTest" in r["provenance"] for r in plain) == 20  # from Kafka's own test methods
    # multi-round sequences computed by Kafka's Java assignors, each round's owned partitions the previous output
    assert sum("sequence" in r["provenance"] for r in plain) == 42 + 48 + 30 + 30
    families = ["ConsumerRound", "ConsumerRackRound", "ServerAssignorRound"]

    def run(fn):
        return run_all(
            Impl(fn), [], ops=["assign"], rounds=rounds, generate=30, cells=[], round_families=families, seed=7
        )

    def builtin(r):
        return assign_server_round(r) if "serverAssignor" in r else assign_consumer_round(r)

    kafka = run(builtin)
    assert Counter(v.message for v in kafka.vectors) == counted
    assert Counter(v.status for v in kafka.vectors) == {"pass": len(rounds)} and not kafka.unproven

    # an adapter answering from the installed files (Kafka's answers, by heart) passes no file round: its passes
    # count only beside passes on rounds drawn from the run's seed, which it cannot answer
    def key(r):
        return json.dumps({k: v for k, v in r.items() if k not in ("id", "provenance", "assignments")}, sort_keys=True)

    table = {key(r): {a["memberId"]: bytes.fromhex(a["assignment"]) for a in r["assignments"]} for r in rounds}
    cheat = run(lambda r: table.get(key(r), "not in the files"))
    assert Counter(v.status for v in cheat.vectors) == {"skip": len(rounds)}
    assert all(v.detail.startswith("no evidence") for v in cheat.vectors)
