"""Task movements towards caught-up clients (wire-facts §10 steps 4–6, Kafka's ``TaskMovement``).

Movements are polled from a queue ordered by (number of caught-up clients, TaskId) that breaks
ties like ``java.util.PriorityQueue`` (:mod:`codec.assignor.javapq`).

Candidates are "the least-loaded caught-up client" by (``assignedTaskLoad``, Java UUID). Kafka
keeps them in a ``ConstrainedPrioritySet``: a ``java.util.PriorityQueue`` whose comparator reads
loads that change while clients sit in the queue, polled by walking the queue past every client
that fails the constraint. Two implementations are offered:

- :class:`KeyedCandidates` (default) takes the true minimum over the task's caught-up clients:
  O(caught-up clients) per poll instead of a walk over the whole group. It agrees with Kafka
  whenever Java's heap is still ordered. It can differ after a move that changes the load of a
  client while it is queued (a move without a warmup left behind, or a move to the
  most-caught-up client): Java then sifts that client with a stale position, and its later
  polls depend on that heap layout.
- :class:`JavaConstrainedPrioritySet` replays Java's heap operation by operation (including the
  ``HashSet`` order in which skipped clients are re-offered), for bit-exact results at
  O(clients · log clients) per poll.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Protocol

from codec.types import TaskId

from .javapq import JavaPriorityQueue, java_hash_set_order
from .model import AssignmentError
from .state import ClientState, LagIndex

__all__ = [
    "CaughtUpCandidates",
    "JavaConstrainedPrioritySet",
    "KeyedCandidates",
    "WarmupBudget",
    "assign_active_task_movements",
    "assign_standby_task_movements",
]

Accept = Callable[[ClientState], bool]


class WarmupBudget:
    """``max.warmup.replicas`` shared by active and standby movements (§10 step 4)."""

    def __init__(self, max_warmups: int) -> None:
        self.remaining = max_warmups

    def take(self) -> bool:
        """Java's ``remaining.getAndDecrement() > 0``."""
        granted = self.remaining > 0
        self.remaining -= 1
        return granted


@dataclass(frozen=True)
class _Movement:
    task: TaskId
    destination: ClientState
    num_caught_up: int
    order: tuple = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "order", (self.num_caught_up, self.task.sort_key()))


def _least_loaded(candidates: Iterable[ClientState], accept: Accept) -> ClientState | None:
    best = None
    best_key = None
    for c in candidates:
        if accept(c):
            key = (c.assigned_load(), c.key)
            if best_key is None or key < best_key:
                best, best_key = c, key
    return best


def _most_caught_up(lags: LagIndex, task: TaskId, destination: ClientState, accept: Accept) -> ClientState | None:
    """First acceptable client in (lag, UUID) order that comes before the destination."""
    for c in lags.clients_by_lag(task):
        if c is destination:
            return None
        if accept(c):
            return c
    return None


def _most_caught_up_of(
    lags: LagIndex, task: TaskId, destination: ClientState, candidates: Iterable[ClientState]
) -> ClientState | None:
    """:func:`_most_caught_up` when the acceptable clients are known: the least (lag, UUID) of them below
    the destination's."""
    bar = (lags.lag(destination, task), destination.key)
    best = min(((lags.lag(c, task), c.key, c) for c in candidates), default=None, key=lambda e: e[:2])
    return best[2] if best is not None and best[:2] < bar else None


def _needs_movement(lags: LagIndex, client: ClientState, task: TaskId) -> bool:
    """Not caught up, and some client has a strictly smaller lag."""
    if lags.is_caught_up(client, task):
        return False
    return lags.min_lag(task) < lags.lag(client, task)


def _queue() -> JavaPriorityQueue[_Movement]:
    return JavaPriorityQueue(key=attrgetter("order"))


class CaughtUpCandidates(Protocol):
    """Kafka's ``ConstrainedPrioritySet`` constrained to clients caught up on the task."""

    polls_reorder: bool
    """Whether a poll that finds nobody still changes what later polls return (Java's heap layout)."""

    def poll(self, task: TaskId, accept: Accept) -> ClientState | None:
        """The least-loaded caught-up client passing ``accept``, taken out of the set."""

    def offer_all(self, clients: list[ClientState]) -> None:
        """(Re-)insert clients whose load may have changed."""


class KeyedCandidates:
    """True minimum by (assignedTaskLoad, UUID) over the task's caught-up clients."""

    polls_reorder = False

    def __init__(self, clients: list[ClientState], lags: LagIndex) -> None:
        self._lags = lags

    def poll(self, task: TaskId, accept: Accept) -> ClientState | None:
        return _least_loaded(self._lags.caught_up_clients(task), accept)

    def offer_all(self, clients: list[ClientState]) -> None:
        """Nothing to do: loads are read when polling."""


class JavaConstrainedPrioritySet:
    """Operation-by-operation replay of Kafka's ``ConstrainedPrioritySet`` over all clients."""

    polls_reorder = True

    def __init__(self, clients: list[ClientState], lags: LagIndex) -> None:
        self._lags = lags
        self._queue: JavaPriorityQueue[ClientState] = JavaPriorityQueue(key=lambda c: (c.assigned_load(), c.key))
        self._queued: set[ClientState] = set()
        self.offer_all(clients)

    def poll(self, task: TaskId, accept: Accept) -> ClientState | None:
        skipped = []
        found = None
        while len(self._queue):
            candidate = self._queue.poll()
            self._queued.discard(candidate)
            if self._lags.is_caught_up(candidate, task) and accept(candidate):
                found = candidate
                break
            skipped.append(candidate)
        self.offer_all(java_hash_set_order(skipped, lambda c: c.process_id))
        return found

    def offer_all(self, clients: list[ClientState]) -> None:
        for c in clients:
            if c in self._queued:
                self._queue.remove(c)
            else:
                self._queued.add(c)
            self._queue.offer(c)


CandidatesFactory = Callable[[list[ClientState], LagIndex], CaughtUpCandidates]


def _swap(task: TaskId, source: ClientState, destination: ClientState) -> None:
    source.unassign_standby(task)
    source.assign_active(task)
    destination.unassign_active(task)
    destination.assign_standby(task)


def _move_active(budget: WarmupBudget, task: TaskId, source: ClientState, destination: ClientState) -> None:
    source.assign_active(task)
    destination.unassign_active(task)
    if budget.take():
        destination.assign_standby(task)
        destination.warmup.add(task)


def assign_active_task_movements(
    clients: list[ClientState],
    lags: LagIndex,
    budget: WarmupBudget,
    candidates_factory: CandidatesFactory = KeyedCandidates,
) -> int:
    """Move actives off clients that are not caught up (§10 step 5); return the scheduled count."""
    candidates = candidates_factory(clients, lags)
    queue = _queue()
    for client in clients:
        for task in sorted(client.active, key=TaskId.sort_key):
            if _needs_movement(lags, client, task):
                queue.offer(_Movement(task, client, len(lags.caught_up_clients(task))))
    scheduled = len(queue)
    while queue:
        m = queue.poll()
        task, dest = m.task, m.destination
        source = candidates.poll(task, lambda c: task in c.standby)  # called before `task` changes
        if source is not None:
            _swap(task, source, dest)
        else:
            source = candidates.poll(task, lambda c: True)
            if source is not None:
                _move_active(budget, task, source, dest)
            else:
                source = _most_caught_up(lags, task, dest, lambda c: True)
                if source is None:
                    raise AssignmentError(f"task {task}: scheduled a movement but no more caught-up client exists")
                if task in source.standby:
                    _swap(task, source, dest)
                else:
                    _move_active(budget, task, source, dest)
        candidates.offer_all([source, dest])
    return scheduled


def assign_standby_task_movements(
    clients: list[ClientState],
    lags: LagIndex,
    budget: WarmupBudget,
    candidates_factory: CandidatesFactory = KeyedCandidates,
) -> int:
    """Move standbys off clients that are not caught up (§10 step 6); return the performed count.

    Warmups created by active movements are not moved. When the budget allows, the destination
    keeps its copy as a warmup; otherwise the copy is dropped.

    A task every client holds has no client to move to: each of its movements polls nobody and is
    skipped, and none of them changes who holds it. Unless those empty polls reorder the candidates (the
    Java replay), they are not made; and when the other movements are at most one per task (distinct
    keys, so polled in key order whatever else is queued), those are all that is queued (issue #31:
    with as many standbys as clients, every task is held everywhere)."""
    movements = [
        _Movement(task, client, len(lags.caught_up_clients(task)))
        for client in clients
        for task in sorted(client.standby, key=TaskId.sort_key)
        if task not in client.warmup and _needs_movement(lags, client, task)
    ]
    candidates = candidates_factory(clients, lags)
    everywhere: set[TaskId] = set()
    if not candidates.polls_reorder:
        held = Counter(t for c in clients for t in c.active | c.standby)
        everywhere = {t for t, n in held.items() if n == len(clients)}
        rest = [m for m in movements if m.task not in everywhere]
        if len({m.task for m in rest}) == len(rest):
            movements = rest
    queue = _queue()
    for m in movements:
        queue.offer(m)
    free: dict[TaskId, set[ClientState]] = {}  # task -> clients without it, once a movement needed them
    performed = 0
    while queue:
        m = queue.poll()
        task, dest = m.task, m.destination
        if task in everywhere:
            continue

        def eligible(c: ClientState, task: TaskId = task) -> bool:
            return not c.holds(task)

        source = candidates.poll(task, eligible)
        if source is None:
            if task not in free:
                free[task] = {c for c in clients if eligible(c)}
            source = _most_caught_up_of(lags, task, dest, free[task])
        if source is None:
            continue
        source.assign_standby(task)
        if budget.take():
            dest.warmup.add(task)
        else:
            dest.unassign_standby(task)
            if task in free:
                free[task].add(dest)
        if task in free:
            free[task].discard(source)
        candidates.offer_all([source, dest])
        performed += 1
    return performed
