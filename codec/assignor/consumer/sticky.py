"""The client-side ``sticky`` and ``cooperative-sticky`` assignors, Kafka-exact (``AbstractStickyAssignor``,
``StickyAssignor``, ``CooperativeStickyAssignor``).

**What a member claims** (:func:`member_data`). ``sticky`` reads the partitions a member owned and its generation
from its ``userData`` alone (``StickyAssignorUserData``: V1 = the partitions by topic + the generation, else V0
without it; bytes neither can read claim nothing, at generation -1; empty or null user data claims nothing, at no
generation). ``cooperative-sticky`` reads the subscription's own ``ownedPartitions`` with its ``generationId``
(ConsumerProtocol v2+), or, where that is absent, a generation from a 4-byte ``userData`` (unreadable: -1; null:
none). A member given without ``userData`` claims what its ``ownedPartitions`` and ``generation`` say.

**Conflicting claims** (``allSubscriptionsEqual``), members in the leader's hash order: a partition of a topic the
metadata has goes to the first member claiming it, unless a later claimant's generation is higher (it takes it)
or the same (the partition is taken from both and marked as claimed twice: nobody keeps it, and whoever gets it is
told it moves). The *other* claimant's generation is read from its subscription's ``generationId``, not from its
user data: for ``sticky`` the two can differ, and Kafka compares them as they are. Generations missing count as -1.

**Constrained path** (every member subscribes to the same topics: same size and same elements): quotas
``floor(P/M)`` and ``ceil(P/M)``, ``P % M`` members at the larger. Members in hash order keep their claims sorted by
(partition, topic): fewer than the minimum all, then the maximum while members may still have it, else the
minimum; the rest is revoked. Unassigned partitions, topic by topic in ``String`` order, go round robin to the
members below the minimum (sorted by id), then one each to those at it. With racks, claims on another rack are
dropped first and a rack-matched round robin runs before the plain one. **General path** (any other
subscriptions): claims on topics a member still subscribes to are kept; the rest goes one by one to the least
loaded subscriber (sorted by count, then id); then partitions move from a member holding two or more than another
subscriber of their topic, first back to a previous owner of an older generation (below), keeping a record of
moves so that a partition does not travel back and forth; the result is kept only if it is better balanced.

**Quirks reproduced.** On the general path, a partition claimed by a member of an older generation (Kafka's
``prevAssignment``, kept from every member whose generation is below the highest) is handed back to that member
whenever the current holder has two more than it, *whether or not it still subscribes to the partition's topic*;
when that member's assignment is fixed (it can take part in no move), Kafka's leader throws a
``NullPointerException`` — reported here as an error naming it. Kafka keeps the highest generation it has seen in
the assignor object across rebalances; each call here starts afresh, as a new leader's does. When any member has a
rack, the constrained path orders the partitions to hand out by how many members share their replicas' racks even
where rack-aware assignment is off.

``cooperative-sticky`` then withholds every partition that changes owner (``partitionsTransferringOwnership``; on
the general path: assigned to one member while another claimed it): the owner revokes it this round, and the next
round assigns it.
"""

from __future__ import annotations

from .client import partitions_per_topic, subscription_order
from .model import TP, AssignmentError, ConsumerGroup, ConsumerMember
from .sticky_builders import ConstrainedBuilder, GeneralBuilder
from .sticky_data import DEFAULT_GENERATION, RackInfo, member_data, remove_first, subscription_generation

__all__ = ["assign_sticky"]


def _claims(assignor: str, members: list[ConsumerMember], per_topic: dict[str, int]):
    """``allSubscriptionsEqual``: whether every subscription is the same, each member's kept claims, the partitions
    claimed twice in one generation, and the highest generation."""
    equal, subscribed = True, None
    owner: dict[TP, str] = {}
    owned: dict[str, list[TP]] = {}
    twice: set[TP] = set()
    max_generation = DEFAULT_GENERATION
    sub_generation = {m.member_id: subscription_generation(m) for m in members}
    for m in members:
        if not subscribed:
            subscribed = set(m.topics)
        elif equal and not (len(m.topics) == len(subscribed) and subscribed.issuperset(m.topics)):
            equal = False
        parts, gen = member_data(assignor, m)
        generation = DEFAULT_GENERATION if gen is None else gen
        max_generation = max(max_generation, generation)
        mine: list[TP] = []
        owned[m.member_id] = mine
        for tp in parts:
            if tp[0] not in per_topic:
                continue
            other = owner.get(tp)
            if other is None:
                mine.append(tp)
                owner[tp] = m.member_id
                continue
            other_generation = sub_generation[other]
            if generation == other_generation:
                twice.add(tp)
                remove_first(owned[other], tp)
                owner[tp] = m.member_id
            elif generation > other_generation:
                mine.append(tp)
                remove_first(owned[other], tp)
                owner[tp] = m.member_id
    return equal, owned, twice, max_generation


def assign_sticky(group: ConsumerGroup, assignor: str = "sticky"):
    """The assignment ``sticky`` or ``cooperative-sticky`` gives: (each member's partitions in Kafka's list order,
    the partitions cooperative-sticky withholds by member, ``"constrained"`` or ``"general"``, Kafka's
    ``partitionsTransferringOwnership`` (None on the general path), the general path's moves)."""
    members = subscription_order(group)
    per_topic = partitions_per_topic(group, members)
    rack_info = RackInfo(group, per_topic, members)
    equal, owned, twice, max_generation = _claims(assignor, members, per_topic)
    transferring: dict[TP, str] | None
    moves: dict[TP, tuple[str, str]] | None = None
    if equal:
        builder = ConstrainedBuilder(per_topic, rack_info, owned, twice)
        result = builder.build()
        transferring, path = builder.transferring, "constrained"
    else:
        general = GeneralBuilder(per_topic, rack_info, owned, members, assignor, max_generation)
        result, transferring, path = general.build(), None, "general"
        moves = dict(general.movements.moves)
    kafkas = None if transferring is None else dict(transferring)
    by_id = {m.member_id: m for m in members}
    out = {m.member_id: result.get(m.member_id, []) for m in members}
    withheld: dict[str, list[TP]] = {}
    if assignor == "cooperative-sticky":
        if transferring is None:
            transferring = _transferring(by_id, out)
        for tp, consumer in transferring.items():
            if consumer not in out:
                raise AssignmentError(f"Kafka's assignor fails here (NullPointerException): no member {consumer!r}")
            before = len(out[consumer])
            remove_first(out[consumer], tp)
            if len(out[consumer]) < before:
                withheld.setdefault(consumer, []).append(tp)
    return out, withheld, path, kafkas, moves


def _transferring(by_id: dict[str, ConsumerMember], out: dict[str, list[TP]]) -> dict[TP, str]:
    """``computePartitionsTransferringOwnership``: partitions assigned to one member that another owned (its
    subscription's ``ownedPartitions``) and no longer gets."""
    added: dict[TP, str] = {}
    revoked: set[TP] = set()
    for consumer, assigned in out.items():
        owned = by_id[consumer].owned
        owned_set, assigned_set = set(owned), set(assigned)
        for tp in assigned:
            if tp not in owned_set:
                added[tp] = consumer
        revoked.update(tp for tp in owned if tp not in assigned_set)
    return {tp: c for tp, c in added.items() if tp in revoked}
