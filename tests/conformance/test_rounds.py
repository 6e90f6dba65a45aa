"""Generated rebalance rounds (codec/conformance/rounds.py): random groups whose assignment a reference assignor of
the round's family computes, and the families a run draws from.

Kafka Streams' family is held to the invariants its leader's assignments must keep (rebalance.check_invariants,
from the wire facts), to its seed, and to variety; a family another part of the project adds (the consumer
assignors' ``assign`` rounds) plugs in through ``register`` and is drawn and judged by the same runner."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from codec.conformance import rounds
from codec.conformance.impl import Outcome
from codec.conformance.rebalance import check_invariants, run_round
from codec.conformance.rounds import FAMILIES, RoundFamily, register, take_round
from codec.conformance.runner import run_all
from codec.group import decode_consumer
from codec.streams import decode_subscription


def _draws(seed: int, n: int) -> list:
    out = [take_round(seed, i, "RebalanceRound") for i in range(n)]
    assert all(not isinstance(c, str) for c in out), [c for c in out if isinstance(c, str)][:3]
    return out


def test_a_streams_round_is_what_its_leader_sees_and_its_assignment_is_sound():
    for case in _draws(3, 30):
        assert "assignments" not in case.round and case.expected["assignments"]
        assignments = {a["memberId"]: bytes.fromhex(a["assignment"]) for a in case.expected["assignments"]}
        assert assignments == run_round(case.round)  # the reference's own answer, recomputed
        assert check_invariants(case.round, assignments) == []
        assert {m["memberId"] for m in case.round["members"]} == set(assignments)


def test_streams_rounds_vary_and_replay_from_their_seed():
    cases = _draws(5, 60)
    again = _draws(5, 60)
    assert [json.dumps(c.expected, sort_keys=True) for c in cases] == [
        json.dumps(c.expected, sort_keys=True) for c in again
    ]
    assert _draws(6, 1)[0].round != cases[0].round
    versions, assignors, sizes = Counter(), Counter(), Counter()
    for c in cases:
        assignors[c.round.get("assignor", "high_availability")] += 1
        sizes[len(c.round["members"])] += 1
        for m in c.round["members"]:
            cps = decode_consumer("ConsumerProtocolSubscription", bytes.fromhex(m["metadata"]))
            versions[decode_subscription(cps.data.user_data).version] += 1
    assert len(versions) >= 6 and 12 in versions  # group versions 3-11, and now and then a probing member
    assert set(assignors) == {"high_availability", "sticky", "fallback_prior"}
    assert len(sizes) >= 5


# A family of rounds of another kind of leader, as the consumer assignors will add theirs: a round is a number of
# members, the reference gives each member its index as one byte.
def _toy_draw(rng):
    return {"members": [f"m{i}" for i in range(rng.randint(1, 5))]}


def _toy_assign(r):
    return {m: bytes([i]) for i, m in enumerate(r["members"])}


def _toy_compare(r, got):
    want = {a["memberId"]: bytes.fromhex(a["assignment"]) for a in r["assignments"]}
    return None if got == want else (f"expected {want}, got {got}", "members" if set(got) != set(want) else "bytes")


class Leader:
    """An in-process implementation that answers a toy round with ``assign`` (and declines everything else)."""

    name = "toy leader"

    def __init__(self, assign) -> None:
        self.assign_one, self.asked = assign, []

    def assign(self, round_):
        self.asked.append(round_)
        return Outcome(value=self.assign_one(round_))

    def decode(self, *a, **k):
        return Outcome(declined="no")

    def encode(self, *a, **k):
        return Outcome(declined="no")


@pytest.fixture
def toy():
    register(RoundFamily("ToyRound", _toy_draw, _toy_assign, lambda r, a: [], _toy_compare))
    yield FAMILIES["ToyRound"]
    del FAMILIES["ToyRound"]


def test_a_family_plugs_in_and_its_rounds_are_drawn_and_judged(toy):
    assert rounds.round_cells() == [
        "RebalanceRound",
        "ConsumerRound",
        "ConsumerRackRound",
        "ServerAssignorRound",
        "ToyRound",
    ]
    right = Leader(_toy_assign)
    run = run_all(right, [], ops=["assign"], generate=20, cells=[], round_families=["ToyRound"], seed=1)
    assert run.generated.counts() == {"pass": 20, "fail": 0, "skip": 0, "xfail": 0, "notrun": 0}
    assert {tuple(sorted(r)) for r in right.asked} == {("id", "members")}  # the round, without its assignments
    wrong = Leader(lambda r: {m: b"\x09" for m in r["members"]})
    run = run_all(wrong, [], ops=["assign"], generate=20, cells=[], round_families=["ToyRound"], seed=1)
    assert run.generated.counts()["pass"] == 0
    assert {g[:2] + g[3:] for g in run.generated.failed} == {("assign", "ToyRound", "bytes")}
