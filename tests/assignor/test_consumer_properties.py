"""Properties of the consumer assignors on generated groups, independent of Kafka's outputs: every subscribed
partition goes to exactly one subscriber (cooperative-sticky: or is withheld for revocation), never to a member
that does not subscribe to its topic; balance bounds where Kafka promises them (the constrained sticky path and
uniform homogeneous: counts differ by at most one; range: per topic, subscribers differ by at most one); stickiness
(sticky, cooperative-sticky and uniform keep every owned partition when the group does not change); cooperative
revocation (a partition owned by one member is never given to another in the same round)."""

from __future__ import annotations

import random

import pytest

from codec.assignor.consumer import ConsumerGroup, ConsumerMember, assign_consumer

ALL = ("range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range")


def _group(r: random.Random, homogeneous: bool) -> ConsumerGroup:
    topics = {f"t{i}": r.randint(1, 12) for i in range(r.randint(1, 4))}
    names = list(topics)
    members = []
    for i in range(r.randint(1, 8)):
        subs = tuple(names) if homogeneous else tuple(r.sample(names, r.randint(1, len(names))))
        members.append(ConsumerMember(f"member-{i}-{r.randint(0, 10**6)}", subs))
    return ConsumerGroup(topics, tuple(members))


def _with_owned(group: ConsumerGroup, assignment: dict, generation: int) -> ConsumerGroup:
    members = tuple(
        ConsumerMember(m.member_id, m.topics, tuple(assignment[m.member_id]), generation) for m in group.members
    )
    return ConsumerGroup(group.topics, members)


def _check_every_partition_once(group: ConsumerGroup, result) -> None:
    subscribed = {t for m in group.members for t in m.topics if t in group.topics}
    holders: dict = {}
    for m in group.members:
        for t, p in result.members[m.member_id]:
            assert t in m.topics, (m.member_id, t)
            holders.setdefault((t, p), []).append(m.member_id)
    withheld = {tp for tps in result.revoking.values() for tp in tps}
    every = {(t, p) for t in subscribed for p in range(group.topics[t])}
    assert all(len(h) == 1 for h in holders.values())
    assert set(holders) | withheld == every and not set(holders) & withheld


@pytest.mark.parametrize("assignor", ALL)
@pytest.mark.parametrize("homogeneous", [True, False])
def test_every_partition_once_to_a_subscriber(assignor, homogeneous):
    r = random.Random(f"{assignor}-{homogeneous}")
    for _ in range(60):
        group = _group(r, homogeneous)
        _check_every_partition_once(group, assign_consumer(group, assignor))


@pytest.mark.parametrize("assignor", ["sticky", "cooperative-sticky", "uniform", "roundrobin"])
def test_balance_with_one_subscription(assignor):
    r = random.Random(assignor)
    for _ in range(60):
        group = _group(r, True)
        sizes = [len(v) for v in assign_consumer(group, assignor).members.values()]
        assert max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("assignor", ["range", "server-range"])
def test_range_balances_each_topic(assignor):
    r = random.Random(assignor)
    for _ in range(60):
        group = _group(r, False)
        result = assign_consumer(group, assignor)
        for t in group.topics:
            counts = [sum(tp[0] == t for tp in result.members[m.member_id]) for m in group.members if t in m.topics]
            if counts:
                assert max(counts) - min(counts) <= 1


@pytest.mark.parametrize("assignor", ["sticky", "cooperative-sticky", "uniform"])
@pytest.mark.parametrize("homogeneous", [True, False])
def test_an_unchanged_group_keeps_what_it_owns(assignor, homogeneous):
    r = random.Random(f"sticky-{assignor}-{homogeneous}")
    for _ in range(40):
        group = _group(r, homogeneous)
        first = assign_consumer(group, assignor).members
        again = assign_consumer(_with_owned(group, first, 1), assignor).members
        assert {m: set(v) for m, v in again.items()} == {m: set(v) for m, v in first.items()}


def test_cooperative_never_moves_an_owned_partition_in_one_step():
    r = random.Random("cooperative")
    moved_somewhere = 0
    for _ in range(80):
        group = _group(r, r.random() < 0.5)
        owned = assign_consumer(group, "cooperative-sticky").members
        joined = ConsumerMember(f"new-{r.randint(0, 10**6)}", group.members[0].topics)
        grown = _with_owned(group, owned, 1)
        grown = ConsumerGroup(grown.topics, (*grown.members, joined))
        result = assign_consumer(grown, "cooperative-sticky")
        owner = {tp: m for m, tps in owned.items() for tp in tps}
        for m, tps in result.members.items():
            for tp in tps:
                assert owner.get(tp, m) == m, (tp, owner.get(tp), m)
        moved_somewhere += bool(result.revoking)
        # the next round, with the revoked partitions released, hands them over
        after = {m: [tp for tp in result.members[m]] for m in result.members}
        settled = assign_consumer(_with_owned(grown, after, 2), "cooperative-sticky")
        _check_every_partition_once(grown, settled)
    assert moved_somewhere > 10
