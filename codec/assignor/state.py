"""Mutable working state of one assignment run: clients (Kafka's ``ClientState``) and lags.

Lags follow wire-facts §9.5 and the assignor README. They are stored sparsely: a client that
reported no offset sum for a task has lag == the task's end-offset sum, so only reported entries
are kept per client, and per-task orderings are produced lazily. That keeps a 500-client,
8,000-task group linear in the number of reported offset sums instead of clients × tasks.
"""

from __future__ import annotations

import heapq
import uuid
from typing import Iterable, Iterator, Mapping

from codec.types import TaskId, java_uuid_key

from .model import (
    LATEST_OFFSET,
    LONG_MAX,
    UNKNOWN_OFFSET_SUM,
    AssignmentError,
    ClientSpec,
    GroupDescription,
)

__all__ = ["ClientState", "LagIndex", "compute_lag", "build_states"]


def compute_lag(offset_sum: int | None, end_offset_sum: int) -> int:
    """Lag of one client on one stateful task (§9.5): no offset sum counts as 0; -2 and -3 pass
    through; an offset sum past the end (reset or corrupted changelog) gives the end sum."""
    o = 0 if offset_sum is None else offset_sum
    if o == LATEST_OFFSET:
        return LATEST_OFFSET
    if o == UNKNOWN_OFFSET_SUM:
        return UNKNOWN_OFFSET_SUM
    if end_offset_sum < o:
        return end_offset_sum
    return end_offset_sum - o


class ClientState:
    """One client during assignment: capacity, tags, previous and currently assigned tasks."""

    __slots__ = (
        "process_id",
        "key",
        "capacity",
        "tags",
        "active",
        "standby",
        "prev_active",
        "prev_standby",
        "lags",
        "warmup",
    )

    def __init__(self, spec: ClientSpec, lags: dict[TaskId, int]) -> None:
        self.process_id: uuid.UUID = spec.process_id
        self.key: tuple[int, int] = java_uuid_key(spec.process_id)
        self.capacity: int = spec.capacity
        self.tags: Mapping[str, str] = spec.client_tags
        self.active: set[TaskId] = set()
        self.standby: set[TaskId] = set()
        self.warmup: set[TaskId] = set()
        self.prev_active: frozenset[TaskId] = spec.prev_active
        self.prev_standby: frozenset[TaskId] = spec.prev_standby
        self.lags: dict[TaskId, int] = lags

    def __repr__(self) -> str:
        return f"ClientState({self.process_id}, active={sorted(self.active)}, standby={sorted(self.standby)})"

    @property
    def assigned_count(self) -> int:
        return len(self.active) + len(self.standby)

    def assigned_load(self) -> float:
        """``assignedTaskLoad`` (§10): (active + standby) / capacity, as a Java double."""
        return (len(self.active) + len(self.standby)) / self.capacity

    def active_load(self) -> float:
        """``activeTaskLoad`` (§10): active / capacity."""
        return len(self.active) / self.capacity

    def holds(self, task: TaskId) -> bool:
        return task in self.active or task in self.standby

    def assign_active(self, task: TaskId) -> None:
        self._check_free(task)
        self.active.add(task)

    def assign_standby(self, task: TaskId) -> None:
        self._check_free(task)
        self.standby.add(task)

    def unassign_active(self, task: TaskId) -> None:
        self.active.remove(task)

    def unassign_standby(self, task: TaskId) -> None:
        self.standby.remove(task)
        self.warmup.discard(task)

    def _check_free(self, task: TaskId) -> None:
        if task in self.active or task in self.standby:
            raise AssertionError(f"task {task} is already assigned to {self.process_id}")


class LagIndex:
    """Per-task lag queries over all clients (§10 definitions).

    ``lag(client, task)`` is the client's reported lag or the task's default (its end-offset sum
    for clients that reported nothing)."""

    def __init__(
        self,
        clients: list[ClientState],
        stateful: Iterable[TaskId],
        default_lag: Mapping[TaskId, int],
        acceptable_recovery_lag: int,
    ) -> None:
        self._clients = clients  # in Java UUID order
        self._default = default_lag
        self._acceptable = acceptable_recovery_lag
        self._explicit: dict[TaskId, dict[ClientState, int]] = {t: {} for t in stateful}
        for c in clients:
            for task, lag in c.lags.items():
                self._explicit[task][c] = lag
        self._caught_up: dict[TaskId, list[ClientState]] = {}

    def lag(self, client: ClientState, task: TaskId) -> int:
        lag = client.lags.get(task)
        return self.default_lag(task) if lag is None else lag

    def default_lag(self, task: TaskId) -> int:
        """The lag of ``task`` on a client that reported none for it."""
        return self._default[task]

    def is_caught_up_lag(self, lag: int) -> bool:
        """Caught up (§10): running active (-2), unbounded acceptable lag, or 0 <= lag <= acceptable."""
        return lag == LATEST_OFFSET or self._acceptable == LONG_MAX or 0 <= lag <= self._acceptable

    def is_caught_up(self, client: ClientState, task: TaskId) -> bool:
        return self.is_caught_up_lag(self.lag(client, task))

    def caught_up_clients(self, task: TaskId) -> list[ClientState]:
        """``tasksToCaughtUpClients[task]``, in Java UUID order (cached)."""
        found = self._caught_up.get(task)
        if found is None:
            explicit = self._explicit[task]
            if len(explicit) < len(self._clients) and self.is_caught_up_lag(self._default[task]):
                found = [c for c in self._clients if self.is_caught_up(c, task)]
            else:
                found = sorted((c for c, lag in explicit.items() if self.is_caught_up_lag(lag)), key=lambda c: c.key)
            self._caught_up[task] = found
        return found

    def min_lag(self, task: TaskId) -> int:
        """Lag of the first client in ``tasksToClientByLag[task]``."""
        explicit = self._explicit[task]
        lags = list(explicit.values())
        if len(explicit) < len(self._clients):
            lags.append(self._default[task])
        return min(lags)

    def clients_by_lag(self, task: TaskId) -> Iterator[ClientState]:
        """``tasksToClientByLag[task]``: all clients by (lag, Java UUID), produced lazily."""
        explicit = self._explicit[task]
        default = self._default.get(task)
        reported = sorted(((lag, c.key, c) for c, lag in explicit.items()), key=lambda e: e[:2])
        silent = ((default, c.key, c) for c in self._clients if c not in explicit)
        for _, _, client in heapq.merge(reported, silent, key=lambda e: e[:2]):
            yield client


def build_states(group: GroupDescription) -> tuple[list[ClientState], LagIndex]:
    """Clients in Java ``UUID`` order with their lags, and the lag index (§9 steps 1, 3, 5)."""
    stateful = [t.task_id for t in group.tasks if t.stateful]
    stateful_set = set(stateful)
    default: dict[TaskId, int] = {}
    for task in stateful:
        end = group.end_offset_sums.get(task, 0)
        default[task] = compute_lag(None, end)
    clients = []
    for spec in sorted(group.clients, key=lambda c: java_uuid_key(c.process_id)):
        if spec.task_lags is not None:
            missing = [t for t in stateful if t not in spec.task_lags]
            if missing:
                raise AssignmentError(f"client {spec.process_id}: taskLags has no lag for stateful task {min(missing)}")
            lags = {t: lag for t, lag in spec.task_lags.items() if t in stateful_set}
        else:
            sums = spec.task_offset_sums or {}
            lags = {t: compute_lag(o, group.end_offset_sums.get(t, 0)) for t, o in sums.items() if t in stateful_set}
        clients.append(ClientState(spec, lags))
    return clients, LagIndex(clients, stateful, default, group.configs.acceptable_recovery_lag)
