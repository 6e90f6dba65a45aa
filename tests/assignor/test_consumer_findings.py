"""The consumer-group findings (codec/assignor/consumer/findings.py) on groups built from Kafka's rules, and on the
shared captures through ``assign --consumer --check``.

Expected values: Kafka's own outputs (the multi-round sequences of vectors/consumer/kafka-java-assignors.jsonl,
computed by Kafka's Java assignors, each round owning the previous round's output) replayed as a group's generations
the way Kafka's client writes them (an eager member revokes everything before it joins: no owned partitions in its
subscription; a cooperative member claims what it holds) have no findings; each finding is then made by one change
a broken leader or client makes, and named. The shared captures' counts were read from the check's own record."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from codec.assignor.consumer.findings import decoded, group_findings
from codec.assignor.consumer.gate_rounds import subscription_bytes
from codec.assignor.consumer.wire import (
    CapturedGeneration,
    partitions_of,
    assignment_bytes,
    check_capture,
    member_from_subscription,
)
from tests.conftest import ROOT, SHARED

VECTORS = ROOT / "vectors" / "consumer" / "kafka-java-assignors.jsonl"
PCAPS = SHARED / "captures" / "pcaps"
OWN = ROOT / "tests" / "assignor" / "captures"
META = {"topics": {"orders": 6, "events": 3}}


def _tps(raw) -> list[tuple[str, int]]:
    return [(tp["topic"], tp["partition"]) if isinstance(tp, dict) else (tp[0], tp[1]) for tp in raw]


def _sequences(assignor: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for line in VECTORS.read_text().splitlines():
        row = json.loads(line)
        if row.get("assignor") == assignor and "sequence" in row and "partitionRacks" not in row["group"]:
            out.setdefault(row["sequence"], []).append(row)
    return {k: sorted(v, key=lambda r: r["round"]) for k, v in out.items()}


def _generation(row: dict, *, eager: bool) -> CapturedGeneration:
    """A round of a Kafka sequence as its leader's JoinGroup response and SyncGroup request: an eager member's
    subscription owns nothing (revoked before joining; the sticky assignor's previous partitions travel in its user
    data), a cooperative one's claims what it holds; the assignment is Kafka's."""
    members = []
    for m in row["group"]["members"]:
        owned = _tps(m.get("ownedPartitions") or [])
        gen = m.get("generation")
        gen = -1 if gen is None else gen
        if eager:
            raw = subscription_bytes(m["topics"], [], gen)
            if row["assignor"] == "sticky" and owned:
                from codec.assignor.consumer.gate_rounds import _sticky_runs
                from codec.group import consumer_subscription, encode_consumer

                raw = encode_consumer(
                    consumer_subscription(3, topics=tuple(m["topics"]), user_data=_sticky_runs(owned, gen),
                                          owned_partitions=(), generation_id=gen, rack_id=None)
                )  # fmt: skip
        else:
            raw = subscription_bytes(m["topics"], owned, gen)
        members.append((m["memberId"], m.get("groupInstanceId"), raw))
    assignments = {mid: assignment_bytes(_tps(tps)) for mid, tps in row["expected"].items()}
    return CapturedGeneration(row["sequence"], row["round"], row["assignor"], members[0][0], None, members, assignments)


def _findings(gens, topics, verdicts=None):
    found = group_findings(
        [decoded(g, g.protocol, member_from_subscription, partitions_of) for g in gens], topics, verdicts
    )
    return [f for fs in found.values() for f in fs]


@pytest.mark.parametrize("assignor", ["range", "roundrobin", "sticky", "cooperative-sticky"])
def test_kafkas_own_sequences_have_no_findings(assignor):
    seqs = _sequences(assignor)
    assert len(seqs) >= 5
    for rows in seqs.values():
        gens = [_generation(r, eager=assignor != "cooperative-sticky") for r in rows]
        assert _findings(gens, rows[0]["group"]["topics"]) == [], rows[0]["sequence"]


def _coop_move():
    """A Kafka cooperative-sticky sequence's round that withholds a partition from its owner (to be given out once it
    is revoked), its generation, and the round before it."""
    for rows in _sequences("cooperative-sticky").values():
        for before, row in zip(rows, rows[1:]):
            owners = {tp: m["memberId"] for m in row["group"]["members"] for tp in _tps(m.get("ownedPartitions") or [])}
            given = {tp for tps in row["expected"].values() for tp in _tps(tps)}
            withheld = sorted(set(owners) - given)
            others = [
                m["memberId"] for m in row["group"]["members"] if withheld and m["memberId"] != owners[withheld[0]]
            ]
            if withheld and others:
                return before, row, withheld[0], owners[withheld[0]], others[0]
    raise AssertionError("no sequence withholds a partition")


def test_a_withheld_partition_is_no_finding_and_giving_it_at_once_is_a_one_step_move():
    before, row, tp, owner, other = _coop_move()
    gens = [_generation(before, eager=False), _generation(row, eager=False)]
    topics = row["group"]["topics"]
    assert _findings(gens, topics) == []  # Kafka withholds it: unowned for one generation, no finding
    moved = json.loads(json.dumps(row))
    moved["expected"][other] = [*_tps(moved["expected"].get(other, [])), tp]
    found = _findings([_generation(before, eager=False), _generation(moved, eager=False)], topics)
    assert [(f["check"], f["partition"], f["member"]) for f in found] == [
        ("cooperative-one-step-move", f"{tp[0]}-{tp[1]}", owner)
    ]
    # the owner's claim is what tells: without the generation before it, the JoinGroup alone shows the move
    alone = _findings([_generation(moved, eager=False)], topics)
    assert [f["check"] for f in alone] == ["cooperative-one-step-move"] and "JoinGroup" in alone[0]["detail"]
    # a client that drops its claim (owned partitions empty) still held it: the generation before says so
    dropped = _generation(moved, eager=False)
    dropped.members = [(m, i, subscription_bytes([*next(x["topics"] for x in row["group"]["members"] if x["memberId"] == m)], [], -1))
                       if m == owner else (m, i, raw) for m, i, raw in dropped.members]  # fmt: skip
    found = _findings([_generation(before, eager=False), dropped], topics)
    assert "cooperative-one-step-move" in {f["check"] for f in found}
    assert any(f"generation {before['round']}" in f["detail"] for f in found)
    # an owner whose subscription left the topic revoked its partitions before joining (onJoinPrepare): the
    # partition is free in this generation, and giving it at once is Kafka's cooperative protocol, no finding
    left = _generation(moved, eager=False)
    mine = next(x["topics"] for x in row["group"]["members"] if x["memberId"] == owner)
    rest = [t for t in mine if t != tp[0]] or ["elsewhere"]
    left.members = [(m, i, subscription_bytes(rest, [], -1)) if m == owner else (m, i, raw)
                    for m, i, raw in left.members]  # fmt: skip
    found = _findings([_generation(before, eager=False), left], topics)
    assert not [f for f in found if f["check"] == "cooperative-one-step-move" and f["partition"] == f"{tp[0]}-{tp[1]}"]


def test_an_eager_member_that_keeps_its_partitions_and_loses_one_is_a_move_without_revocation():
    def moves(r):
        given = {tp: m for m, tps in r["expected"].items() for tp in _tps(tps)}
        return {
            (m["memberId"], tp)
            for m in r["group"]["members"]
            for tp in _tps(m.get("ownedPartitions") or [])
            if given.get(tp) not in (None, m["memberId"])
        }

    row = next(r for rows in _sequences("range").values() for r in rows if moves(r))
    topics = row["group"]["topics"]
    g = _generation(row, eager=True)
    assert _findings([g], topics) == []  # revoked before joining, as the Java client does
    kept = _generation(row, eager=False)  # every member still lists what it held
    moved = moves(row)
    found = _findings([kept], topics)
    assert {(f["member"], tuple(f["partition"].rsplit("-", 1))) for f in found} == {
        (m, (t, str(p))) for m, (t, p) in moved
    }
    assert moved and {f["check"] for f in found} == {"eager-move-without-revocation"}


def test_a_partition_given_to_nobody_or_to_two_members():
    rows = next(iter(_sequences("roundrobin").values()))
    row = rows[-1]
    topics = row["group"]["topics"]
    a, b = [m for m, tps in row["expected"].items() if tps][:2]
    lost = json.loads(json.dumps(row))
    gone = _tps(lost["expected"][a])[0]
    lost["expected"][a] = lost["expected"][a][1:]
    found = _findings([_generation(lost, eager=True)], topics)
    assert [(f["check"], f["partition"]) for f in found] == [("partition-unowned", f"{gone[0]}-{gone[1]}")]
    # without metadata the universe is what the group is seen to hold: the same partition, from the other round
    found = _findings([_generation(rows[-2], eager=True), _generation(lost, eager=True)], None)
    assert [(f["check"], f["generation"]) for f in found] == [("partition-unowned", row["round"])]
    twice = json.loads(json.dumps(row))
    twice["expected"][b] = [*twice["expected"][b], twice["expected"][a][0]]
    found = _findings([_generation(twice, eager=True)], topics)
    assert [f["check"] for f in found] == ["partition-owned-twice"] and a in found[0]["detail"]

    # cooperative: a partition nobody claimed, withheld, is unowned (only an owner's partition waits for revocation)
    def unclaimed(r):
        claimed = {x for m in r["group"]["members"] for x in _tps(m.get("ownedPartitions") or [])}
        return [(m, tp) for m, tps in r["expected"].items() for tp in _tps(tps) if tp not in claimed]

    coop = next(r for rows in _sequences("cooperative-sticky").values() for r in rows[1:] if unclaimed(r))
    m0, tp0 = unclaimed(coop)[0]
    stray = json.loads(json.dumps(coop))
    stray["expected"][m0] = [x for x in stray["expected"][m0] if _tps([x])[0] != tp0]
    unclaimed_tp = tp0
    found = _findings([_generation(stray, eager=False)], coop["group"]["topics"])
    assert [(f["check"], f["partition"]) for f in found] == [
        ("partition-unowned", f"{unclaimed_tp[0]}-{unclaimed_tp[1]}")
    ]


def test_an_assignment_that_is_not_the_assignors_says_where():
    before, row, tp, owner, other = _coop_move()
    moved = json.loads(json.dumps(row))
    moved["expected"][other] = [*_tps(moved["expected"].get(other, [])), tp]
    gen = _generation(moved, eager=False)
    from codec.assignor.consumer.wire import check_generation

    verdict = check_generation(gen, {"topics": row["group"]["topics"]}, "cooperative-sticky")
    assert verdict["checked"] and not verdict["matches"]
    found = _findings([gen], row["group"]["topics"], {(gen.group, gen.generation): verdict})
    nota = [f for f in found if f["check"] == "not-the-assignors-assignment"]
    assert len(nota) == 1 and nota[0]["severity"] == "warning"
    assert f"{other}: extra {tp[0]}-{tp[1]}" in nota[0]["detail"]


# --- the shared captures -------------------------------------------------------------------------------------

CAPTURES = sorted(PCAPS.glob("*/*.pcap.gz")) if PCAPS.is_dir() else []


@pytest.mark.skipif(not CAPTURES, reason="shared/captures not present")
def test_the_shared_captures_findings():
    """Every generation of the shared captures (librdkafka, the Java client, kafka-python, mixed groups; runs A-C)
    and the aiokafka and kafkajs captures of tests/assignor/captures, checked with the protocol each group chose
    (kafkajs' RoundRobinAssigner named roundrobin): no partition owned twice or left unowned, no eager move
    without revocation, no cooperative move in one step; the generations whose leader's assignment is not Kafka's
    are the ones test_consumer_check.py and test_consumer_check_clients.py explain."""
    runs = [(p, "auto") for p in CAPTURES] + [
        (OWN / f"{n}.pcap.gz", "auto") for n in ("aio-range", "aio-roundrobin", "aio-sticky")
    ] + [(OWN / "kafkajs-roundrobin.pcap.gz", "roundrobin")]  # fmt: skip
    gens, checked, by = 0, 0, Counter()
    for path, assignor in runs:
        for v in check_capture(path, META, assignor):
            gens += 1
            checked += v["checked"]
            for f in v["findings"]:
                by[path.name.split(".")[0], f["check"]] += 1
    assert (gens, checked) == (109, 109)
    assert by == {
        ("ck-cooperative-sticky", "not-the-assignors-assignment"): 2,
        ("kp-cooperative-sticky", "not-the-assignors-assignment"): 1,
        ("kp-sticky", "not-the-assignors-assignment"): 3,
        ("aio-sticky", "not-the-assignors-assignment"): 3,
        ("kafkajs-roundrobin", "not-the-assignors-assignment"): 3,
    }
