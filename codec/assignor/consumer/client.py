"""The classic client-side ``range`` (with KIP-881's rack-aware matching) and ``roundrobin`` assignors, as the Java
client's leader runs them (``RangeAssignor``, ``RoundRobinAssignor``, ``AbstractPartitionAssignor``).

What the leader hands every assignor (``ConsumerCoordinator.onLeaderElected``, ``AbstractPartitionAssignor``):

* the subscriptions in a ``HashMap<String, Subscription>`` filled in the JoinGroup response's member order, so
  iterated in Java's hash order of the member ids (:func:`subscription_order`);
* ``partitionsPerTopic``: a ``HashMap`` of the subscribed topics that the metadata has with at least one partition,
  filled from a ``HashSet`` of every member's topics (:func:`partitions_per_topic`), each topic's partitions in
  order. A topic the metadata lacks is skipped, never an error.

``range``, topic by topic in that map's order: the topic's subscribers sorted (static members first by
``group.instance.id``, then by member id, Java's ``String`` order), each taking the next ``n / members``
partitions, the first ``n % members`` one more; a member's list is its ranges in topic order. With racks
(KIP-881: some member has a non-empty rack and some partition's replica racks differ from the topic's), each
topic whose subscribers have racks first gives partitions to same-rack members within the same quotas — topics
with the same subscribers and partition count together, partition by partition (co-partitioning before racks) —
the rest by plain ranges, and every member's list is then sorted by topic and partition.

``roundrobin``: every partition of the subscribed topics, topics in ``String`` order, dealt in turn to the sorted
members, skipping a member that does not subscribe to the partition's topic.
"""

from __future__ import annotations

from itertools import islice

from ...javaorder import filled_capacity, hash_order, hashmap_order, string_hash
from .model import TP, ConsumerGroup, ConsumerMember, jstr, member_info_key

__all__ = ["subscription_order", "partitions_per_topic", "assign_range", "assign_roundrobin"]


def subscription_order(group: ConsumerGroup) -> list[ConsumerMember]:
    """The members as the leader's ``HashMap<String, Subscription>`` iterates them (a member id given twice: the
    last one stands, in the first one's place, as ``put`` does)."""
    by_id: dict[str, ConsumerMember] = {}
    for m in group.members:
        by_id[m.member_id] = m
    return [by_id[i] for i in hashmap_order(list(by_id))]


def partitions_per_topic(group: ConsumerGroup, members: list[ConsumerMember]) -> dict[str, int]:
    """``AbstractPartitionAssignor``'s map: the subscribed topics the metadata has with partitions, in the order of
    a ``HashMap`` filled from a ``HashSet`` filled from the members' topic lists (``members`` in hash order)."""
    seen = list(dict.fromkeys(t for m in members for t in m.topics))
    in_set = hash_order(seen, string_hash, filled_capacity(len(seen)))
    kept = [t for t in in_set if group.topics.get(t, 0) > 0]
    return {t: group.topics[t] for t in hash_order(kept, string_hash, filled_capacity(len(kept)))}


def _sorted_members(members: list[ConsumerMember]) -> list[ConsumerMember]:
    return sorted(members, key=lambda m: member_info_key(m.member_id, m.instance_id))


class _TopicState:
    """``RangeAssignor.TopicAssignmentState``."""

    def __init__(self, topic: str, n: int, subscribers: list[ConsumerMember], racks: dict[str, str], group) -> None:
        self.topic = topic
        ordered = _sorted_members(subscribers)
        self.consumers: dict[str, str | None] = {}
        for m in ordered:
            self.consumers.setdefault(m.member_id, racks.get(m.member_id))
        self.unassigned: dict[int, None] = dict.fromkeys(range(n))
        self.assigned = dict.fromkeys(self.consumers, 0)
        k = len(self.consumers)
        self.per_consumer = n // k if k else 0
        self.extra = n % k if k else 0
        consumer_racks = {racks[m.member_id] for m in ordered if m.member_id in racks}
        self.partition_racks: dict[int, frozenset[str]] = {}
        all_partition_racks: set[str] = set()
        if consumer_racks:
            replica = group.partition_racks.get(topic, ())
            for p in range(n):
                rs = replica[p] if p < len(replica) else frozenset()
                self.partition_racks[p] = rs
                all_partition_racks |= rs
        self.needs_racks = bool(consumer_racks) and not consumer_racks.isdisjoint(all_partition_racks)
        self.needs_racks = self.needs_racks and (
            group.prefer_rack_aware or not all(rs == all_partition_racks for rs in self.partition_racks.values())
        )

    def racks_match(self, consumer: str, p: int) -> bool:
        rack = self.consumers[consumer]
        return rack is None or (p in self.partition_racks and rack in self.partition_racks[p])

    def max_assignable(self, consumer: str) -> int:
        return max(0, self.per_consumer + (1 if self.extra > 0 else 0) - self.assigned[consumer])

    def on_assigned(self, consumer: str, parts: list[int], out: dict[str, list[TP]]) -> None:
        out[consumer].extend((self.topic, p) for p in parts)
        self.assigned[consumer] += len(parts)
        if self.assigned[consumer] > self.per_consumer:
            self.extra -= 1
        for p in parts:
            self.unassigned.pop(p, None)


def _assign_ranges(state: _TopicState, may, out: dict[str, list[TP]]) -> None:
    for consumer in state.consumers:
        if not state.unassigned:
            break
        limit = state.max_assignable(consumer)
        parts = list(islice((p for p in state.unassigned if may(consumer, p)), limit))
        if parts:
            state.on_assigned(consumer, parts, out)


def _co_partitioned(consumers: dict[str, str | None], n: int, states: list[_TopicState], out) -> None:
    remaining = list(consumers)
    for p in range(n):
        match = next(
            (c for c in remaining if all(t.racks_match(c, p) and t.max_assignable(c) > 0 for t in states)),
            None,
        )
        if match is not None:
            for t in states:
                t.on_assigned(match, [p], out)
            if not any(t.max_assignable(match) > 0 for t in states):
                remaining.remove(match)
                if not remaining:
                    break


def assign_range(group: ConsumerGroup) -> dict[str, list[TP]]:
    """``RangeAssignor.assignPartitions``: each member's partitions, in Kafka's list order."""
    members = subscription_order(group)
    per_topic = partitions_per_topic(group, members)
    subscribers: dict[str, list[ConsumerMember]] = {}
    for m in members:
        for t in m.topics:
            subscribers.setdefault(t, []).append(m)
    racks = {m.member_id: m.rack for m in members if m.rack}
    states = [_TopicState(t, n, subscribers.get(t, []), racks, group) for t, n in per_topic.items()]
    out: dict[str, list[TP]] = {m.member_id: [] for m in members}
    rack_aware = any(s.needs_racks for s in states)
    if rack_aware:
        groups: dict[tuple, dict[int, list[_TopicState]]] = {}
        for s in states:
            key = tuple(sorted(s.consumers.items(), key=lambda kv: (kv[0], kv[1] or "")))
            groups.setdefault(key, {}).setdefault(len(s.partition_racks), []).append(s)
        for by_count in groups.values():
            for n, same in by_count.items():
                if len(same) > 1:
                    _co_partitioned(same[0].consumers, n, same, out)
                elif same[0].needs_racks:
                    _assign_ranges(same[0], same[0].racks_match, out)
    for s in states:
        _assign_ranges(s, lambda c, p: True, out)
    if rack_aware:
        for lst in out.values():
            lst.sort(key=lambda tp: (jstr(tp[0]), tp[1]))
    return out


def assign_roundrobin(group: ConsumerGroup) -> dict[str, list[TP]]:
    """``RoundRobinAssignor.assign``: each member's partitions, in Kafka's list order."""
    members = subscription_order(group)
    per_topic = partitions_per_topic(group, members)
    out: dict[str, list[TP]] = {m.member_id: [] for m in members}
    ring = _sorted_members(members)
    subscribed = [set(m.topics) for m in ring]
    topics = sorted({t for m in members for t in m.topics}, key=jstr)
    i = 0
    for t in topics:
        for p in range(per_topic.get(t, 0)):
            while t not in subscribed[i]:
                i = (i + 1) % len(ring)
            out[ring[i].member_id].append((t, p))
            i = (i + 1) % len(ring)
    return out
