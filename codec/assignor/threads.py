"""Distribution of one client's tasks over its consumers (stream threads), wire-facts §9 step 7.

Called three times per client, sharing ``thread_load``: stateful actives, then standbys (warmups
included), then stateless actives. Each thread's target is floor(total / threads), counting what
earlier calls gave it. Stateful tasks first go back to the consumer that reported them (ordered by
that consumer's lag, then TaskId); the rest are dealt in TaskId order to the consumers still
below target, in member-id order, and any remainder goes one each to consumers at the target,
previous owners first.

Divergence: Kafka walks that remainder in the array order of a ``java.util.PriorityQueue``
(whose layout depends on ``HashSet`` order); here it is TaskId order, as §9 step 7 describes.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Iterable, Mapping

from codec.types import TaskId

__all__ = ["assign_tasks_to_threads", "prev_tasks_by_lag_for"]


def assign_tasks_to_threads(
    tasks: Iterable[TaskId],
    stateful: bool,
    consumers: list[str],
    prev_tasks_by_lag: Callable[[str], list[TaskId]],
    thread_load: dict[str, int],
) -> dict[str, list[TaskId]]:
    """Kafka's ``assignTasksToThreads``; ``consumers`` sorted, ``thread_load`` updated in place."""
    assignment: dict[str, list[TaskId]] = {c: [] for c in consumers}
    unassigned = sorted(tasks)
    total = len(unassigned) + sum(thread_load.values())
    minimum = total // len(consumers)
    remaining = set(unassigned)
    to_fill: deque[str] = deque()
    prev_owner: dict[TaskId, str] = {}
    if remaining:
        for consumer in consumers:
            mine = assignment[consumer]
            target = minimum - thread_load.get(consumer, 0)
            if stateful:
                for task in prev_tasks_by_lag(consumer):
                    if task in remaining:
                        if len(mine) < target:
                            mine.append(task)
                            remaining.discard(task)
                        else:
                            prev_owner[task] = consumer
            if len(mine) < target:
                to_fill.append(consumer)
        ordered = [t for t in unassigned if t in remaining]
        pos = 0
        while to_fill:
            if pos >= len(ordered):
                raise AssertionError("ran out of tasks while some threads are below their minimum")
            consumer = to_fill.popleft()
            assignment[consumer].append(ordered[pos])
            remaining.discard(ordered[pos])
            pos += 1
            if len(assignment[consumer]) + thread_load.get(consumer, 0) < minimum:
                to_fill.append(consumer)
        if remaining:
            at_min = [c for c in consumers if len(assignment[c]) + thread_load.get(c, 0) == minimum]
            fill = deque(at_min)
            for task in sorted(prev_owner):
                consumer = prev_owner[task]
                if consumer in fill and task in remaining:
                    assignment[consumer].append(task)
                    remaining.discard(task)
                    fill.remove(consumer)
            for task in sorted(remaining):
                assignment[fill.popleft()].append(task)
    for consumer, got in assignment.items():
        thread_load[consumer] = thread_load.get(consumer, 0) + len(got)
    return assignment


def prev_tasks_by_lag_for(
    owned: Mapping[str, Iterable[TaskId]], lag: Callable[[TaskId], int]
) -> Callable[[str], list[TaskId]]:
    """Kafka's ``prevTasksByLag(consumer)``: the stateful tasks the consumer reported, ordered
    by the client's lag, then TaskId."""

    def by_lag(consumer: str) -> list[TaskId]:
        return sorted(owned.get(consumer, ()), key=lambda t: (lag(t), t.sort_key()))

    return by_lag
