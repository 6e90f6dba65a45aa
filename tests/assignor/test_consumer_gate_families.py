"""The gate's rounds of KIP-881's rack-aware client assignors (``ConsumerRackRound``) and KIP-848's server-side
assignors (``ServerAssignorRound``; codec/assignor/consumer/gate_rounds.py, gate_server.py, registered in
codec/conformance/rounds.py), beside the plain ``ConsumerRound``.

Expected values: Kafka's answers for the files' rounds (vectors/consumer/, held in test_consumer_rounds.py); for the
drawn rounds, soundness by properties checked here independently of the assignors (each subscribed partition once, to
a subscriber), and a rule stated in vectors/ADAPTERS.md: a client that declares ConsumerRound only has the rack and
server rounds skipped as not declared, never failed."""

from __future__ import annotations

import json
from collections import Counter

from codec import decode
from codec.assignor.consumer.gate_rounds import _group, _partitions, assign_consumer_round, round_message
from codec.assignor.consumer.gate_server import assign_server_round, compare_server_round
from codec.assignor.consumer.gate_server import _group as server_group
from codec.conformance.rounds import FAMILIES, take_round
from codec.conformance.runner import Capabilities, run_all
from codec.conformance.vectors import load_consumer_rounds
from tests.assignor.test_consumer_rounds import Impl


def _cases(message: str, seed: int, n: int):
    out = [take_round(seed, i, message) for i in range(n)]
    assert all(not isinstance(c, str) for c in out), [c for c in out if isinstance(c, str)][:3]
    return out


def _given(raw_by_member: dict[str, bytes], server_round: dict | None = None) -> list[tuple[tuple[str, int], str]]:
    if server_round is None:
        return [(tp, m) for m, raw in raw_by_member.items() for tp in _partitions(raw)]
    names = {i: t for t, i in server_group(server_round).topic_ids.items()}
    out = []
    for m, raw in raw_by_member.items():
        d = decode("ConsumerGroupTargetAssignmentMemberValue", raw, version=0)
        assert d.trailing == 0
        out += [((names[tp.topic_id], p), m) for tp in d.value.topic_partitions for p in tp.partitions]
    return out


def _sound(group, given, *, complete: bool) -> None:
    subs = {m.member_id: set(m.topics) for m in group.members}
    owners = Counter(tp for tp, _ in given)
    assert max(owners.values(), default=1) == 1
    assert all(tp[0] in subs[m] and 0 <= tp[1] < group.topics[tp[0]] for tp, m in given)
    wanted = {(t, p) for s in subs.values() for t in s for p in range(group.topics.get(t, 0))}
    missing = wanted - set(owners)
    if complete:
        assert not missing
    else:  # cooperative-sticky withholds only what a member owned before (being revoked)
        assert missing <= {tp for m in group.members for tp in m.owned}


def test_the_families_are_registered_and_the_messages_follow_the_rule():
    assert {"ConsumerRound", "ConsumerRackRound", "ServerAssignorRound"} <= set(FAMILIES)
    assert round_message({"consumerAssignor": "range", "topics": {}}) == "ConsumerRound"
    assert round_message({"consumerAssignor": "range", "partitionRacks": {}}) == "ConsumerRackRound"
    assert round_message({"serverAssignor": "uniform"}) == "ServerAssignorRound"
    assert round_message({"topology": {}}) == "RebalanceRound"


def test_rack_rounds_carry_racks_that_change_kafkas_answer_and_are_sound():
    cases = _cases("ConsumerRackRound", 3, 80)
    assert Counter(c.round["consumerAssignor"] for c in cases).keys() == {
        "range",
        "roundrobin",
        "sticky",
        "cooperative-sticky",
    }
    changed = 0
    for case in cases:
        group = _group(case.round)
        assert (
            group.partition_racks and any(m.rack for m in group.members) or all(m.rack is None for m in group.members)
        )
        got = {a["memberId"]: bytes.fromhex(a["assignment"]) for a in case.expected["assignments"]}
        _sound(group, _given(got), complete=case.round["consumerAssignor"] != "cooperative-sticky")
        rackless = {k: v for k, v in case.round.items() if k != "partitionRacks"}
        changed += assign_consumer_round(rackless) != got
    # the racks matter: an assignor that ignores them gives another answer in many rounds
    assert changed >= 10, changed


def test_server_rounds_vary_are_sound_and_a_wrong_answer_names_its_difference():
    cases = _cases("ServerAssignorRound", 4, 80)
    assert set(Counter(c.round["serverAssignor"] for c in cases)) == {"uniform", "range"}
    groups = [server_group(c.round) for c in cases]
    assert sum(any(m.owned for m in g.members) for g in groups) > 30  # current target assignments are held
    assert any(len({m.topics for m in g.members}) > 1 for g in groups)  # heterogeneous subscriptions
    for case, group in zip(cases, groups):
        got = {a["memberId"]: bytes.fromhex(a["assignment"]) for a in case.expected["assignments"]}
        assert got == assign_server_round(case.round)
        _sound(group, _given(got, case.round), complete=True)
    case = next(c for c in cases if sum(len(_given({m: bytes.fromhex(a["assignment"])}, c.round)) > 0
                                        for a in c.expected["assignments"] for m in [a["memberId"]]) >= 2)  # fmt: skip
    want = {a["memberId"]: bytes.fromhex(a["assignment"]) for a in case.expected["assignments"]}
    a, b = [m for m, raw in sorted(want.items()) if _given({m: raw}, case.round)][:2]
    found = compare_server_round(case.expected, {**want, a: want[b], b: want[a]})
    assert found is not None and found[1] == "$[].topicPartitions" and "missing" in found[0]
    assert compare_server_round(case.expected, {**want, a: b"\x00"})[1] == "bytes"
    assert compare_server_round(case.expected, {**want, a: want[a] + b"\x00"})[1] == "bytes"  # junk after the value
    assert compare_server_round(case.expected, {a: want[a]})[1] == "members"
    assert FAMILIES["ServerAssignorRound"].check(case.round, {**want, b: want[a]})  # given twice: unsound


def test_a_client_without_racks_declares_consumer_round_and_the_rest_is_skipped_not_failed():
    rounds = load_consumer_rounds()
    asked: Counter = Counter()

    def client(r):  # a client whose assignors know no racks and no coordinator: it must never be asked those
        asked[round_message(r)] += 1
        return assign_consumer_round(r)

    declared = Capabilities.parse([{"op": "assign", "message": "ConsumerRound"}])  # kafka-python-assignors' own
    run = run_all(Impl(client), [], ops=["assign"], declared=declared, rounds=rounds, generate=30, cells=[], seed=5)
    assert set(asked) == {"ConsumerRound"}
    status = Counter((v.message, v.status) for v in run.vectors)
    n = Counter(round_message(r) for r in rounds)
    assert status == {
        ("ConsumerRound", "pass"): n["ConsumerRound"],
        ("ConsumerRackRound", "skip"): n["ConsumerRackRound"],
        ("ServerAssignorRound", "skip"): n["ServerAssignorRound"],
    }
    assert {v.detail for v in run.vectors if v.status == "skip"} == {"not declared"}
    # and the generated rounds are drawn from the declared family only: all 30 are ConsumerRounds, all passed
    assert run.generated.counts() == {"pass": 30, "fail": 0, "skip": 0, "xfail": 0, "notrun": 0} and not run.unproven


def test_a_client_that_declares_racks_and_ignores_them_fails_rack_rounds():
    rounds = [r for r in load_consumer_rounds() if round_message(r) == "ConsumerRackRound"]

    def rackless(r):
        return assign_consumer_round({k: v for k, v in r.items() if k != "partitionRacks"})

    run = run_all(
        Impl(rackless), [], ops=["assign"], rounds=rounds, generate=30, cells=[], round_families=["ConsumerRackRound"]
    )
    fails = [v for v in run.vectors if v.status == "fail"]
    assert len(fails) >= 30, len(fails)
    assert all(json.dumps(v.detail) and "missing" in v.detail for v in fails)
