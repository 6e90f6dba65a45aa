"""Standby assignors (wire-facts §11): the default one and the client-tag-aware one (KIP-708).

Both pick "the least-loaded client" by (``assignedTaskLoad``, Java UUID). Kafka keeps the
candidates in a ``ConstrainedPrioritySet``; in these two assignors a client's load only changes
while it is out of that queue, so a plain ``heapq`` keyed by (load, UUID) polls exactly the same
clients.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from codec.types import TaskId

from .state import ClientState

__all__ = ["ClientTagAwareStandbyAssignor", "DefaultStandbyAssignor", "StandbyAssignor", "standby_assignor_for"]


class _LeastLoaded:
    """Clients keyed by (assignedTaskLoad, UUID); ``poll`` skips (and keeps) clients failing a test."""

    def __init__(self, clients: list[ClientState]) -> None:
        self._heap = [(c.assigned_load(), c.key, c) for c in clients]
        heapq.heapify(self._heap)

    def poll(self, accept: Callable[[ClientState], bool]) -> ClientState | None:
        rejected = []
        found = None
        while self._heap:
            entry = heapq.heappop(self._heap)
            if accept(entry[2]):
                found = entry[2]
                break
            rejected.append(entry)
        for entry in rejected:
            heapq.heappush(self._heap, entry)
        return found

    def offer(self, client: ClientState) -> None:
        heapq.heappush(self._heap, (client.assigned_load(), client.key, client))

    def take(self, accept: Callable[[ClientState], bool], count: int) -> list[ClientState]:
        """What ``count`` polls in a row return when each polled client then fails ``accept``: the
        ``count`` least-loaded clients passing it, taken out. The clients passed over are put back once,
        not after every poll, so this costs O((count + passed over) · log clients)."""
        taken: list[ClientState] = []
        rejected = []
        while self._heap and len(taken) < count:
            entry = heapq.heappop(self._heap)
            if accept(entry[2]):
                taken.append(entry[2])
            else:
                rejected.append(entry)
        for entry in rejected:
            heapq.heappush(self._heap, entry)
        return taken


class StandbyAssignor:
    """Interface: place ``num_standby`` standbys for each stateful task; say which balancing moves
    between two clients are allowed."""

    def assign(self, clients: list[ClientState], stateful: list[TaskId], num_standby: int) -> None:
        raise NotImplementedError

    def is_allowed_task_movement(self, source: ClientState, destination: ClientState) -> bool:
        return True


def _fill_least_loaded(queue: _LeastLoaded, task: TaskId, count: int) -> int:
    """Give ``task`` to up to ``count`` least-loaded clients not holding it; return how many are missing.

    Kafka polls one client at a time and re-offers it at once, but a client that took the task fails
    every later poll for it, and no other client's load changes meanwhile: the clients it polls are the
    ``count`` least loaded without the task when the task comes up, taken here in one pass (issue #31:
    one poll per copy walked past every client already given the task)."""
    clients = queue.take(lambda c: not c.holds(task), count)
    for client in clients:
        client.assign_standby(task)
        queue.offer(client)
    return count - len(clients)


class DefaultStandbyAssignor(StandbyAssignor):
    """§11 DefaultStandbyTaskAssignor: each copy to the least-loaded client without the task."""

    def assign(self, clients: list[ClientState], stateful: list[TaskId], num_standby: int) -> None:
        queue = _LeastLoaded(clients)
        for task in stateful:
            _fill_least_loaded(queue, task, num_standby)


class ClientTagAwareStandbyAssignor(StandbyAssignor):
    """§11 ClientTagAwareStandbyTaskAssignor: spread a task's copies over distinct tag values.

    Divergence: Kafka places the standbys that could not be spread in ``HashMap`` order of their
    TaskIds; this implementation uses TaskId order."""

    def __init__(self, tag_keys: tuple[str, ...]) -> None:
        self._tag_keys = frozenset(tag_keys)

    def is_allowed_task_movement(self, source: ClientState, destination: ClientState) -> bool:
        return all(destination.tags.get(k) == v for k, v in source.tags.items())

    def assign(self, clients: list[ClientState], stateful: list[TaskId], num_standby: int) -> None:
        values_by_key: dict[str, set[str]] = {}
        clients_by_entry: dict[tuple[str, str], set[ClientState]] = {}
        for c in clients:
            for k, v in c.tags.items():
                values_by_key.setdefault(k, set()).add(v)
                clients_by_entry.setdefault((k, v), set()).add(c)
        owner = {t: c for c in clients for t in c.active}
        pending: dict[TaskId, int] = {}
        queue = _LeastLoaded(clients)
        for task in stateful:
            remaining = self._spread(queue, owner[task], task, num_standby, values_by_key, clients_by_entry)
            if remaining > 0:
                pending[task] = remaining
        if pending:
            queue = _LeastLoaded(clients)
            for task in sorted(pending):
                _fill_least_loaded(queue, task, pending[task])

    def _spread(
        self,
        queue: _LeastLoaded,
        active: ClientState,
        task: TaskId,
        num_standby: int,
        values_by_key: dict[str, set[str]],
        clients_by_entry: dict[tuple[str, str], set[ClientState]],
    ) -> int:
        """Place the copies of one task; the chosen clients go back into ``queue`` afterwards
        with their new loads (Kafka re-offers every client before the next task)."""
        chosen: list[ClientState] = []
        used_entries: dict[tuple[str, str], set[ClientState]] = {}
        used_count = 1
        remaining = num_standby
        last = active
        while True:
            for k, v in last.tags.items():
                if k not in self._tag_keys:
                    continue
                if len(values_by_key[k]) <= used_count:
                    for value in values_by_key[k]:
                        used_entries.pop((k, value), None)
                else:
                    used_entries[(k, v)] = clients_by_entry[(k, v)]
            candidate = queue.poll(
                lambda c: not c.holds(task) and not any(c in members for members in used_entries.values())
            )
            if candidate is None:
                break
            used_count += 1
            remaining -= 1
            candidate.assign_standby(task)
            chosen.append(candidate)
            last = candidate
            if remaining <= 0:
                break
        for client in chosen:
            queue.offer(client)
        return remaining


def standby_assignor_for(tag_keys: tuple[str, ...]) -> StandbyAssignor:
    """The factory of §10 step 3: tag-aware when ``rack.aware.assignment.tags`` is set."""
    return ClientTagAwareStandbyAssignor(tag_keys) if tag_keys else DefaultStandbyAssignor()
