"""``AbstractStickyAssignor``'s two builders, line for line: the constrained one (every member subscribes to the
same topics) and the general one, with its record of partition movements (:class:`Movements`). The rules in words
are :mod:`codec.assignor.consumer.sticky`'s."""

from __future__ import annotations

import bisect
import math

from .model import TP, AssignmentError, ConsumerMember, JavaHashSet, jstr, tp_hash
from .sticky_data import DEFAULT_GENERATION, RackInfo, member_data, remove_first as _remove

__all__ = ["ConstrainedBuilder", "GeneralBuilder", "Movements"]


def _all_partitions(per_topic: dict[str, int], topics: list[str]) -> list[TP]:
    return [(t, p) for t in topics for p in range(per_topic[t])]


def _difference(all_sorted: list[TP], assigned_sorted: list[TP]) -> list[TP]:
    """``getUnassignedPartitions``' two pointers, as written (a repeated entry in ``assigned_sorted`` stops the
    matching, as it does in Kafka)."""
    if not assigned_sorted:
        return list(all_sorted)
    out, it, direct = [], iter(assigned_sorted), False
    nxt = next(it)
    for tp in all_sorted:
        if direct or tp != nxt:
            out.append(tp)
        else:
            try:
                nxt = next(it)
            except StopIteration:
                direct = True
    return out


class ConstrainedBuilder:
    """``ConstrainedAssignmentBuilder``: ``owned`` is each member's kept claims, members in hash order."""

    def __init__(self, per_topic: dict[str, int], rack: RackInfo, owned: dict[str, list[TP]], twice: set[TP]):
        self.per_topic, self.rack, self.current, self.twice = per_topic, rack, owned, twice
        total = sum(per_topic.values())
        n = len(owned)
        self.min_quota = total // n
        self.max_quota = math.ceil(total / n)
        self.expected_over = total % n
        self.current_over = 0
        self.assignment: dict[str, list[TP]] = {c: [] for c in owned}
        self.assigned: list[TP] = []
        self.under: list[str] = []
        self.exactly: list[str] = []
        self.maybe_revoked: dict[TP, str] = {}
        self.transferring: dict[TP, str] = {}

    def build(self) -> dict[str, list[TP]]:
        self._assign_owned()
        topics = sorted(self.per_topic, key=jstr)
        self.assigned.sort(key=lambda tp: (jstr(tp[0]), tp[1]))
        unassigned = _difference(_all_partitions(self.per_topic, topics), self.assigned)
        self.under.sort(key=jstr)
        self.exactly.sort(key=jstr)
        unassigned = self.rack.sort_by_rack_consumers(unassigned)
        self._rack_round_robin(unassigned)
        self._round_robin(unassigned)
        self._verify()
        return self.assignment

    def _assign_owned(self) -> None:
        lo, hi = self.min_quota, self.max_quota
        for consumer, claims in self.current.items():
            owned = []
            for tp in claims:
                if self.rack.mismatch(consumer, tp):
                    self.maybe_revoked[tp] = consumer
                else:
                    owned.append(tp)
            owned.sort(key=lambda tp: (tp[1], jstr(tp[0])))
            for tp in self.twice:
                if tp in owned:
                    owned.remove(tp)
            mine = self.assignment[consumer]
            if len(owned) < lo:
                mine += owned
                self.assigned += owned
                self.under.append(consumer)
            elif len(owned) >= hi and self.current_over < self.expected_over:
                self.current_over += 1
                if self.current_over == self.expected_over:
                    self.exactly.clear()
                mine += owned[:hi]
                self.assigned += owned[:hi]
                for tp in owned[hi:]:
                    self.maybe_revoked[tp] = consumer
            else:
                mine += owned[:lo]
                self.assigned += owned[:lo]
                for tp in owned[lo:]:
                    self.maybe_revoked[tp] = consumer
                if self.current_over < self.expected_over:
                    self.exactly.append(consumer)

    def _rack_round_robin(self, unassigned: list[TP]) -> None:
        if not self.rack.consumer_racks:
            return
        nxt, i = 0, 0
        while i < len(unassigned):
            tp = unassigned[i]
            consumer = None
            index = self.rack.next_rack_consumer(tp, self.under, nxt)
            if index >= 0:
                consumer = self.under[index]
                count = len(self.assignment[consumer]) + 1
                if count >= self.min_quota:
                    self.under.remove(consumer)
                    if count < self.max_quota and self.current_over < self.expected_over:
                        self.exactly.append(consumer)
                else:
                    index += 1
                nxt = 0 if not self.under else index % len(self.under)
            elif self.exactly:
                first = self.rack.next_rack_consumer(tp, self.exactly, 0)
                if first >= 0:
                    consumer = self.exactly[first]
                    if len(self.assignment[consumer]) + 1 == self.max_quota:
                        del self.exactly[first]
                        self.current_over += 1
                        if self.current_over == self.expected_over:
                            self.exactly.clear()
            if consumer is not None:
                self._assign_new(tp, consumer)
                del unassigned[i]
            else:
                i += 1

    def _round_robin(self, unassigned: list[TP]) -> None:
        it = 0  # an iterator over self.under: the index of its next element
        for tp in unassigned:
            if it < len(self.under):
                consumer = self.under[it]
                it += 1
            elif not self.under and not self.exactly:
                raise AssignmentError(
                    "Kafka's sticky assignor fails here: No more unfilled consumers to be assigned. "
                    "(IllegalStateException)"
                )
            elif not self.under:
                consumer = self.exactly.pop(0)
            else:
                it = 1
                consumer = self.under[0]
            count = self._assign_new(tp, consumer)
            if count == self.min_quota:
                if it == 0 or self.under[it - 1] != consumer:
                    raise AssignmentError("Kafka's sticky assignor fails here (IllegalStateException)")
                del self.under[it - 1]
                it -= 1
                self.exactly.append(consumer)
            elif count == self.max_quota:
                self.current_over += 1

    def _assign_new(self, tp: TP, consumer: str) -> int:
        mine = self.assignment[consumer]
        mine.append(tp)
        if (tp in self.maybe_revoked and self.maybe_revoked[tp] != consumer) or tp in self.twice:
            self.transferring[tp] = consumer
        return len(mine)

    def _verify(self) -> None:
        if not self.under:
            return
        if self.current_over != self.expected_over:
            raise AssignmentError(
                "Kafka's sticky assignor fails here: We haven't reached the expected number of members with more "
                "than the minQuota partitions, but no more partitions to be assigned (IllegalStateException)"
            )
        for consumer in self.under:
            if len(self.assignment[consumer]) != self.min_quota:
                raise AssignmentError(
                    f"Kafka's sticky assignor fails here: Consumer: [{consumer}] doesn't reach minQuota partitions, "
                    "and no more partitions to be assigned (IllegalStateException)"
                )


class Movements:
    """``PartitionMovements``: where each moved partition came from, and per topic which partitions moved between
    which two members (a ``HashSet`` per pair, whose first element Kafka takes)."""

    def __init__(self) -> None:
        self.by_topic: dict[str, dict[tuple[str, str], JavaHashSet[TP]]] = {}
        self.moves: dict[TP, tuple[str, str]] = {}

    def _remove(self, tp: TP) -> tuple[str, str]:
        pair = self.moves.pop(tp)
        pairs = self.by_topic[tp[0]]
        pairs[pair].remove(tp)
        if not pairs[pair]:
            del pairs[pair]
        if not pairs:
            del self.by_topic[tp[0]]
        return pair

    def _add(self, tp: TP, pair: tuple[str, str]) -> None:
        self.moves[tp] = pair
        self.by_topic.setdefault(tp[0], {}).setdefault(pair, JavaHashSet(tp_hash)).add(tp)

    def move(self, tp: TP, old: str, new: str) -> None:
        if tp in self.moves:
            src, _ = self._remove(tp)
            if src != new:
                self._add(tp, (src, new))
        else:
            self._add(tp, (old, new))

    def actual(self, tp: TP, old: str, new: str) -> TP:
        pairs = self.by_topic.get(tp[0])
        if pairs is None:
            return tp
        if tp in self.moves:
            old = self.moves[tp][0]
        back = pairs.get((new, old))
        return tp if back is None else back.first()


class _Sorted:
    """The ``TreeSet`` of members by (partition count, id): removed before a count changes, added back after."""

    def __init__(self, counts: dict[str, list[TP]]) -> None:
        self.counts = counts
        self.keys: list[tuple[int, bytes, str]] = []

    def key(self, c: str) -> tuple[int, bytes, str]:
        return len(self.counts[c]), jstr(c), c

    def add(self, c: str) -> None:
        k = self.key(c)
        i = bisect.bisect_left(self.keys, k)
        if i == len(self.keys) or self.keys[i] != k:
            self.keys.insert(i, k)

    def remove(self, c: str) -> None:
        k = self.key(c)
        i = bisect.bisect_left(self.keys, k)
        if i < len(self.keys) and self.keys[i] == k:
            del self.keys[i]

    def __iter__(self):
        return (k[2] for k in list(self.keys))

    def first(self) -> str:
        return self.keys[0][2]

    def last(self) -> str:
        return self.keys[-1][2]


class GeneralBuilder:
    """``GeneralAssignmentBuilder``: ``owned`` is each member's kept claims (every member, in hash order)."""

    def __init__(self, per_topic, rack: RackInfo, owned: dict[str, list[TP]], members: list[ConsumerMember],
                 assignor: str, max_generation: int) -> None:  # fmt: skip
        self.per_topic, self.rack, self.current = per_topic, rack, owned
        self.members, self.assignor, self.max_generation = members, assignor, max_generation
        self.total = sum(per_topic.values())
        self.potential: dict[str, list[str]] = {t: [] for t in per_topic}
        self.topics_of: dict[str, list[str]] = {}
        for m in members:
            mine = self.topics_of[m.member_id] = []
            for t in m.topics:
                if t in per_topic:
                    mine.append(t)
                    self.potential[t].append(m.member_id)
            self.current.setdefault(m.member_id, [])
        self.subscribed = {m.member_id: set(m.topics) for m in members}
        self.owner: dict[TP, str] = {tp: c for c, tps in self.current.items() for tp in tps}
        ordered = sorted(self.potential, key=lambda t: (len(self.potential[t]), jstr(t)))
        self.all_sorted = _all_partitions(per_topic, ordered)
        self.sorted = _Sorted(self.current)
        self.revocation_required = False
        self.movements = Movements()
        self._max_size: dict[str, int] = {}

    def build(self) -> dict[str, list[TP]]:
        prev = self._previous()
        assigned = self._assign_owned()
        unassigned = self._unassigned(assigned)
        for c in self.current:
            self.sorted.add(c)
        self._balance(prev, unassigned)
        return self.current

    def _previous(self) -> dict[TP, tuple[str, int]]:
        prev: dict[TP, tuple[str, int]] = {}
        for m in self.members:
            parts, gen = member_data(self.assignor, m)
            if gen is not None and gen < self.max_generation:
                generation = gen
            elif gen is None and self.max_generation > DEFAULT_GENERATION:
                generation = DEFAULT_GENERATION
            else:
                continue
            for tp in parts:
                if tp not in prev or generation > prev[tp][1]:
                    prev[tp] = (m.member_id, generation)
        return prev

    def _assign_owned(self) -> list[TP]:
        assigned = []
        for consumer, tps in self.current.items():
            keep = []
            for tp in tps:
                if tp[0] not in self.potential:
                    self.owner.pop(tp, None)
                elif tp[0] not in self.subscribed[consumer] or self.rack.mismatch(consumer, tp):
                    self.revocation_required = True
                else:
                    keep.append(tp)
                    assigned.append(tp)
            tps[:] = keep
        return assigned

    def _unassigned(self, assigned: list[TP]) -> list[TP]:
        if not assigned:
            return self.all_sorted  # the same list, as in Kafka
        pot = self.potential
        assigned.sort(key=lambda tp: (len(pot[tp[0]]), jstr(tp[0]), tp[1]))
        return _difference(self.all_sorted, assigned)

    def _max_assignment(self, consumer: str) -> int:
        size = self._max_size.get(consumer)
        if size is None:
            topics = self.topics_of[consumer]
            size = self.total if len(topics) == len(self.per_topic) else sum(self.per_topic[t] for t in topics)
            self._max_size[consumer] = size
        return size

    def _can_topic_move(self, topic: str) -> bool:
        return len(self.potential[topic]) >= 2

    def _can_consumer_move(self, consumer: str) -> bool:
        mine = self.current[consumer]
        if len(mine) < self._max_assignment(consumer):
            return True
        return any(self._can_topic_move(tp[0]) for tp in mine)

    def _maybe_assign(self, partitions: list[TP], rack: RackInfo | None, remove: bool) -> None:
        i = 0
        while i < len(partitions):
            tp = partitions[i]
            done = False
            if self.potential[tp[0]]:
                for c in self.sorted:
                    if tp[0] in self.topics_of[c] and (rack is None or not rack.mismatch(c, tp)):
                        self.sorted.remove(c)
                        self.current[c].append(tp)
                        self.owner[tp] = c
                        self.sorted.add(c)
                        done = True
                        break
            if done and remove:
                del partitions[i]
            else:
                i += 1

    def _balance(self, prev, unassigned: list[TP]) -> None:
        initializing = not self.current[self.sorted.last()]
        to_assign = unassigned
        if self.rack.consumer_racks:
            to_assign = list(unassigned)
            self._maybe_assign(to_assign, self.rack, True)
        self._maybe_assign(to_assign, None, False)
        fixed_topics = {t for t in self.potential if not self._can_topic_move(t)}
        self.all_sorted[:] = [tp for tp in self.all_sorted if tp[0] not in fixed_topics]
        if unassigned is not self.all_sorted:
            unassigned[:] = [tp for tp in unassigned if tp[0] not in fixed_topics]
        fixed: dict[str, list[TP]] = {}
        for c in self.topics_of:
            if not self._can_consumer_move(c):
                self.sorted.remove(c)
                fixed[c] = self.current.pop(c)
        before = {c: list(tps) for c, tps in self.current.items()}
        before_owner = dict(self.owner)
        if not self.revocation_required:
            self._reassign(unassigned, prev)
        performed = self._reassign(self.all_sorted, prev)
        if not initializing and performed and _score(self.current) >= _score(before):
            self.current.clear()
            self.current.update(before)
            self.owner = before_owner
        for c, tps in fixed.items():
            self.current[c] = tps
            self.sorted.add(c)

    def _is_balanced(self) -> bool:
        cur = self.current
        if len(cur[self.sorted.first()]) >= len(cur[self.sorted.last()]) - 1:
            return True
        holder = {tp: c for c, tps in cur.items() for tp in tps}
        for c in self.sorted:
            count = len(cur[c])
            if count == self._max_assignment(c):
                continue
            mine = set(cur[c])
            for t in self.topics_of[c]:
                for p in range(self.per_topic[t]):
                    if (t, p) not in mine:
                        other = holder.get((t, p))
                        if other is None:
                            raise AssignmentError(f"Kafka's sticky assignor fails here (NullPointerException): "
                                                  f"{t}-{p} has no owner while balancing")  # fmt: skip
                        if count + 1 < len(cur[other]):
                            return False
        return True

    def _size(self, consumer: str | None, tp: TP) -> int:
        mine = self.current.get(consumer) if consumer is not None else None
        if mine is None:
            raise AssignmentError(
                f"Kafka's sticky assignor fails here (NullPointerException): {tp[0]}-{tp[1]} would go back to "
                f"{consumer!r}, a previous owner whose assignment is fixed"
            )
        return len(mine)

    def _reassign(self, partitions: list[TP], prev) -> bool:
        performed = False
        modified = True
        while modified:
            modified = False
            i = 0
            while i < len(partitions) and not self._is_balanced():
                tp = partitions[i]
                i += 1
                consumer = self.owner.get(tp)
                if tp in prev and self._size(consumer, tp) > self._size(prev[tp][0], tp) + 1:
                    self._move(tp, prev[tp][0])
                    performed = modified = True
                    continue
                rack = self.rack.consumer_racks.get(consumer) if consumer is not None else None
                racks = self.rack.partition_racks.get(tp)
                found = False
                if rack is not None and racks and rack in racks:
                    for other in self.potential[tp[0]]:
                        other_rack = self.rack.consumer_racks.get(other)
                        if other_rack is None or other_rack not in racks:
                            continue
                        if self._size(consumer, tp) > self._size(other, tp) + 1:
                            self._move_to_least_loaded(tp)
                            performed = modified = found = True
                            break
                if not found:
                    for other in self.potential[tp[0]]:
                        if self._size(consumer, tp) > self._size(other, tp) + 1:
                            self._move_to_least_loaded(tp)
                            performed = modified = True
                            break
        return performed

    def _move_to_least_loaded(self, tp: TP) -> None:
        new = next((c for c in self.sorted if tp[0] in self.topics_of[c]), None)
        if new is None:
            raise AssignmentError(f"Kafka's sticky assignor fails here (AssertionError): no consumer for {tp}")
        self._move(tp, new)

    def _move(self, tp: TP, new: str) -> None:
        old = self.owner[tp]
        actual = self.movements.actual(tp, old, new)
        old = self.owner[actual]
        self._size(new, actual)
        self.sorted.remove(old)
        self.sorted.remove(new)
        self.movements.move(actual, old, new)
        _remove(self.current[old], actual)
        self.current[new].append(actual)
        self.owner[actual] = new
        self.sorted.add(new)
        self.sorted.add(old)


def _score(assignment: dict[str, list[TP]]) -> int:
    """``getBalanceScore``: the sum over pairs of members of the difference of their counts."""
    sizes = sorted(len(v) for v in assignment.values())
    total, running = 0, 0
    for i, s in enumerate(sizes):
        total += s * i - running
        running += s
    return total
