"""KIP-848's server-side assignors as Kafka's group coordinator runs them: ``UniformAssignor`` (homogeneous and
heterogeneous subscriptions) and ``RangeAssignor`` (named ``server-range`` here, beside the client's ``range``).

**What the coordinator hands over** (``TargetAssignmentBuilder``, ``GroupSpecImpl``): the members in a ``HashMap``
put in the group's member order (Java's hash order of the member ids); each member's subscribed topics as a
``TopicIds`` view of its ``HashSet`` of names (a name the metadata lacks is skipped silently); its current target
assignment as a ``HashMap`` of topic id -> ``HashSet`` of partitions, built from its record (topics in the order
given, each topic's partitions copied into a set); the subscription type: homogeneous when every subscribed name
is subscribed by every member.

**uniform, homogeneous** (``UniformHomogeneousAssignmentBuilder``): the topics are the first member's (in hash
order), copied into a ``HashSet`` of ids; the partitions no member holds, topic by topic in that set's order, are
unassigned. Quotas: ``P / M`` each, ``P % M`` members one more. Members in hash order keep their current
partitions of subscribed topics up to their quota (topics in map order, partitions in set order; the rest is
appended to the unassigned), a member giving up its extra slot unless it is among the last members that must take
one; then the unfilled members, in that order, take the unassigned partitions in order. The result depends on the
member order and on Java's hash orders: Kafka-exact here.

**uniform, heterogeneous** (``UniformHeterogeneousAssignmentBuilder``): members keep their current partitions of
topics they still subscribe to; topics sorted by partitions per subscriber (descending), then subscriber count
(ascending), then topic id (Kafka's ``Uuid`` order); each topic's unassigned partitions go to its least loaded
subscriber (count, then member index); then, at most 16 rounds over the topics that have two or more subscribers,
partitions move from the most to the least loaded subscriber of their topic until each topic's subscribers differ
by at most one.

**server-range** (``RangeAssignor``): members sorted (static members first by instance id, then by member id); each
topic's partitions split into contiguous ranges over its subscribers in that order, the first ``P % M`` one more.
Not sticky: the current assignment is not read.

Kafka's results are sets: each member's partitions are returned sorted by topic name, then partition.
"""

from __future__ import annotations

import uuid

from ...javaorder import copy_capacity, filled_capacity, hash_order, hashmap_order, string_hash, uuid_hash
from .model import TP, AssignmentError, ConsumerGroup, ConsumerMember, jstr, member_info_key, uuid_key

__all__ = ["assign_uniform", "assign_server_range", "subscription_type", "topic_id"]

HOMOGENEOUS, HETEROGENEOUS = "homogeneous", "heterogeneous"
MAX_ITERATION_COUNT = 16


def topic_id(group: ConsumerGroup, name: str) -> uuid.UUID:
    """A topic's id: the group's ``topicIds``, else one derived from its name (stable)."""
    return group.topic_ids.get(name) or uuid.uuid5(uuid.NAMESPACE_URL, "kafka-topic:" + name)


def subscription_type(members: list[ConsumerMember]) -> str:
    """``ModernGroup.subscriptionType``, counting subscribed names."""
    counts: dict[str, int] = {}
    for m in members:
        for t in set(m.topics):
            counts[t] = counts.get(t, 0) + 1
    return HOMOGENEOUS if all(c == len(members) for c in counts.values()) else HETEROGENEOUS


class _Spec:
    """``GroupSpecImpl`` and ``SubscribedTopicDescriberImpl`` over a :class:`ConsumerGroup`."""

    def __init__(self, group: ConsumerGroup) -> None:
        by_id: dict[str, ConsumerMember] = {}
        for m in group.members:
            by_id[m.member_id] = m
        self.members = by_id
        self.order = hashmap_order(list(by_id))
        self.group = group
        self.counts = {topic_id(group, t): n for t, n in group.topics.items()}
        # a name resolves to an id when the metadata has it, or when topicIds gives one (then its partition count is
        # unknown: Kafka's "doesn't exist in the topic metadata")
        self.ids = {t: topic_id(group, t) for t in (*group.topics, *group.topic_ids)}
        self.names = {i: t for t, i in self.ids.items()}
        self.inverted: set[tuple[uuid.UUID, int]] = set()
        self.current: dict[str, dict[uuid.UUID, list[int]]] = {}
        for mid in self.order:
            grouped: dict[uuid.UUID, list[int]] = {}
            for t, p in by_id[mid].owned:
                grouped.setdefault(topic_id(group, t), []).append(p)
            topics = hash_order(list(grouped), uuid_hash, filled_capacity(len(grouped)))
            self.current[mid] = {
                t: hash_order(list(dict.fromkeys(grouped[t])), lambda x: x, copy_capacity(len(grouped[t])))
                for t in topics
            }
            self.inverted.update((t, p) for t, ps in grouped.items() for p in ps)

    def name_set(self, mid: str) -> list[str]:
        """The member's ``HashSet`` of subscribed names, in its order."""
        topics = self.members[mid].topics
        return hash_order(list(dict.fromkeys(topics)), string_hash, copy_capacity(len(topics)))

    def subscribed_ids(self, mid: str) -> list[uuid.UUID]:
        """The ``TopicIds`` view: the names in set order, resolved, unresolved ones skipped."""
        return [self.ids[t] for t in self.name_set(mid) if t in self.ids]

    def partitions(self, t: uuid.UUID) -> int:
        n = self.counts.get(t, -1)
        if n == -1:
            raise AssignmentError(
                f"Members are subscribed to topic {self.names.get(t, t)} which doesn't exist in the topic metadata. "
                "(Kafka's PartitionAssignorException)"
            )
        return n


def _homogeneous(spec: _Spec) -> dict[str, dict[uuid.UUID, set[int]]]:
    first = spec.order[0]
    names = spec.name_set(first)
    subscribed = hash_order(spec.subscribed_ids(first), uuid_hash, copy_capacity(len(names)))
    if not subscribed:
        return {}
    subscribed_set = set(subscribed)
    unassigned: list[tuple[uuid.UUID, int]] = []
    total = 0
    for t in subscribed:
        n = spec.partitions(t)
        unassigned += [(t, p) for p in range(n) if (t, p) not in spec.inverted]
        total += n
    members = len(spec.order)
    minimum, extra = total // members, total % members
    target: dict[str, dict[uuid.UUID, set[int]]] = {}
    unfilled: list[tuple[str, int]] = []
    for index, mid in enumerate(spec.order):
        mine: dict[uuid.UUID, set[int]] = {}
        quota, has_extra = minimum, False
        if extra > 0:
            quota, has_extra = quota + 1, True
        for t, ps in spec.current[mid].items():
            if t not in subscribed_set:
                continue
            kept = set()
            if len(ps) <= quota:
                quota -= len(ps)
                kept = set(ps)
            else:
                for p in ps:
                    if quota > 0:
                        quota -= 1
                        kept.add(p)
                    else:
                        unassigned.append((t, p))
            if kept:
                mine[t] = kept
        if quota > 0 and has_extra and members - index > extra:
            quota, has_extra = quota - 1, False
        if quota > 0:
            unfilled.append((mid, quota))
        if has_extra:
            extra -= 1
        target[mid] = mine
    i = 0
    for mid, quota in unfilled:
        for _ in range(quota):
            if i >= len(unassigned):
                break
            t, p = unassigned[i]
            i += 1
            target[mid].setdefault(t, set()).add(p)
    if i < len(unassigned):
        raise AssignmentError("Partitions were left unassigned (Kafka's PartitionAssignorException)")
    return target


class _Balancer:
    """``UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer``."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes

    def initialize(self, members: list[int]) -> int:
        s = self.sizes
        self.sorted = sorted(members, key=lambda i: (s[i], i))
        self.least_end, self.least_count, self.next_least = 0, s[self.sorted[0]] - 1, 0
        n = len(self.sorted)
        self.most_start, self.most_end, self.most_count, self.next_most = n, n, s[self.sorted[-1]] + 1, n - 1
        return s[self.sorted[-1]] - s[self.sorted[0]]

    def next_least_loaded(self) -> int:
        s, order = self.sizes, self.sorted
        if self.next_least >= self.least_end:
            self.least_count += 1
            while self.least_end < len(order) and s[order[self.least_end]] == self.least_count:
                self.least_end += 1
            self.next_least = 0
        member = order[self.next_least]
        self.next_least += 1
        return member

    def next_most_loaded(self) -> int:
        s, order = self.sizes, self.sorted
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                self.most_count = s[order[self.most_start - 1]]
            else:
                self.most_count -= 1
            while self.most_start > 0 and s[order[self.most_start - 1]] == self.most_count:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        member = order[self.next_most]
        self.next_most -= 1
        return member

    def exclude_most_loaded(self) -> None:
        order = self.sorted
        member = order[self.next_most + 1]
        order[self.next_most + 1] = order[self.most_end - 1]
        order[self.most_end - 1] = member
        self.most_end -= 1

    def balanced(self) -> bool:
        return self.most_count - self.least_count <= 1


def _heterogeneous(spec: _Spec) -> dict[str, dict[uuid.UUID, set[int]]]:
    ids = spec.order
    subscribers: dict[uuid.UUID, list[int]] = {}
    subs_of: list[set[uuid.UUID]] = []
    for index, mid in enumerate(ids):
        mine = spec.subscribed_ids(mid)
        subs_of.append(set(mine))
        for t in mine:
            spec.partitions(t)
            subscribers.setdefault(t, []).append(index)
    if not subscribers:
        return {}
    counts = {t: spec.partitions(t) for t in subscribers}
    sizes = [0] * len(ids)
    owners = {t: [-1] * n for t, n in counts.items()}
    target: list[dict[uuid.UUID, set[int]]] = []
    for index, mid in enumerate(ids):
        kept: dict[uuid.UUID, set[int]] = {}
        for t, ps in spec.current[mid].items():
            if t in subs_of[index]:
                sizes[index] += len(ps)
                for p in ps:
                    if not 0 <= p < counts[t]:
                        raise AssignmentError(
                            f"Kafka's coordinator fails here (ArrayIndexOutOfBoundsException): member {mid!r} holds "
                            f"partition {p} of {spec.names.get(t, t)}, which has {counts[t]}"
                        )
                    owners[t][p] = index
                kept[t] = set(ps)
        target.append(kept)

    def order(topics) -> list[uuid.UUID]:
        return sorted(topics, key=lambda t: (-counts[t] / len(subscribers[t]), len(subscribers[t]), uuid_key(t)))

    def assign(t: uuid.UUID, p: int, index: int) -> None:
        old = owners[t][p]
        if old != -1:
            ps = target[old].get(t)
            if ps is not None:
                ps.discard(p)
                if not ps:
                    del target[old][t]
            sizes[old] -= 1
        target[index].setdefault(t, set()).add(p)
        owners[t][p] = index
        sizes[index] += 1

    balancer = _Balancer(sizes)
    unassigned = {t: [p for p in range(counts[t]) if owners[t][p] == -1] for t in counts}
    for t in order(t for t, ps in unassigned.items() if ps):
        balancer.initialize(subscribers[t])
        for p in unassigned[t]:
            assign(t, p, balancer.next_least_loaded())
    movable = order(t for t in subscribers if len(subscribers[t]) >= 2)
    last = -1
    for _ in range(MAX_ITERATION_COUNT):
        for k, t in enumerate(movable):
            if k == last:
                return {mid: target[i] for i, mid in enumerate(ids)}
            moved = _balance_topic(t, balancer, subscribers[t], counts[t], owners[t], assign)
            if moved > 0 or last == -1:
                last = k
    return {mid: target[i] for i, mid in enumerate(ids)}


def _balance_topic(t, balancer: _Balancer, members: list[int], n: int, owners: list[int], assign) -> int:
    moved = 0
    if balancer.initialize(members) <= 1:
        return moved
    partitions = sorted(range(n), key=lambda p: (owners[p], p))
    start: dict[int, int] = {}
    end: dict[int, int] = {}
    for i, p in enumerate(partitions):
        start.setdefault(owners[p], i)
        end[owners[p]] = i + 1
    while not balancer.balanced():
        while True:
            most = balancer.next_most_loaded()
            if most == -1:
                break
            if most not in end or end[most] - start[most] <= 0:
                balancer.exclude_most_loaded()
                continue
            break
        if most == -1:
            break
        p = partitions[end[most] - 1]
        end[most] -= 1
        least = balancer.next_least_loaded()
        if balancer.balanced():
            break
        assign(t, p, least)
        moved += 1
    return moved


def _to_lists(spec: _Spec, target: dict[str, dict[uuid.UUID, set[int]]]) -> dict[str, list[TP]]:
    out = {}
    for m in spec.group.members:
        tps = [(spec.names.get(t) or str(t), p) for t, ps in target.get(m.member_id, {}).items() for p in ps]
        out[m.member_id] = sorted(tps, key=lambda tp: (jstr(tp[0]), tp[1]))
    return out


def assign_uniform(group: ConsumerGroup) -> tuple[dict[str, list[TP]], str]:
    """``UniformAssignor.assign``: each member's partitions (sorted) and the path taken."""
    spec = _Spec(group)
    if not spec.order:
        return {}, HOMOGENEOUS
    kind = group.subscription_type or subscription_type(list(spec.members.values()))
    target = _homogeneous(spec) if kind == HOMOGENEOUS else _heterogeneous(spec)
    return _to_lists(spec, target), kind


def assign_server_range(group: ConsumerGroup) -> tuple[dict[str, list[TP]], str]:
    """The coordinator's ``RangeAssignor.assign``: each member's partitions (sorted) and the path taken."""
    spec = _Spec(group)
    if not spec.order:
        return {}, HOMOGENEOUS
    kind = group.subscription_type or subscription_type(list(spec.members.values()))
    ordered = sorted(spec.order, key=lambda i: member_info_key(i, spec.members[i].instance_id))
    # (topic -> [partitions, subscribers, next range, extra]) built lazily as Kafka's computeIfAbsent
    topics: dict[uuid.UUID, list[int]] = {}
    subscribed = {mid: spec.subscribed_ids(mid) for mid in ordered}
    if kind == HOMOGENEOUS:
        subscribed = {mid: subscribed[ordered[0]] for mid in ordered}
    for mid in ordered:
        for t in subscribed[mid]:
            if t not in topics:
                n = spec.counts.get(t, -1)
                if n == -1:
                    raise AssignmentError(
                        "Member is subscribed to a non-existent topic (Kafka's PartitionAssignorException)"
                    )
                topics[t] = [n, 0, 0, -1]
            topics[t][1] += 1
    target: dict[str, dict[uuid.UUID, set[int]]] = {}
    for mid in ordered:
        mine = target.setdefault(mid, {})
        for t in subscribed[mid]:
            meta = topics[t]
            n, k = meta[0], meta[1]
            if meta[3] == -1:
                meta[3] = n % k
            quota = n // k
            if meta[3] > 0:
                quota += 1
                meta[3] -= 1
            start = meta[2]
            end = min(start + quota, n)
            meta[2] = end
            if start < end:
                mine[t] = set(range(start, end))
    return _to_lists(spec, target), kind
