"""Kafka Streams' ``HighAvailabilityTaskAssignor`` (KIP-441), wire-facts §10, without rack-aware
optimization (strategy ``none``)."""

from __future__ import annotations

import heapq

from codec.types import TaskId

from .balance import balance_tasks_over_threads
from .model import AssignmentConfigs
from .movement import (
    JavaConstrainedPrioritySet,
    KeyedCandidates,
    WarmupBudget,
    assign_active_task_movements,
    assign_standby_task_movements,
)
from .standby import standby_assignor_for
from .state import ClientState, LagIndex

__all__ = ["HighAvailabilityTaskAssignor"]


class HighAvailabilityTaskAssignor:
    """State-blind balanced placement, then movements towards caught-up clients with warmups.

    ``exact_java_queue`` replays Kafka's ``ConstrainedPrioritySet`` heap for bit-exact
    tie-breaking (slower on large groups); see :mod:`codec.assignor.movement`."""

    name = "high_availability"

    def __init__(self, exact_java_queue: bool = False) -> None:
        self._candidates = JavaConstrainedPrioritySet if exact_java_queue else KeyedCandidates

    def assign(
        self,
        clients: list[ClientState],
        all_tasks: list[TaskId],
        stateful: list[TaskId],
        lags: LagIndex,
        configs: AssignmentConfigs,
    ) -> bool:
        """Fill ``clients`` (in Java UUID order) and return ``probingRebalanceNeeded``."""
        stateful = sorted(stateful)
        _assign_active_stateful(clients, stateful)
        if configs.num_standby_replicas >= len(clients) - 1:
            _every_client_holds_every_task(clients, stateful)
        elif configs.num_standby_replicas > 0:
            standby = standby_assignor_for(configs.rack_aware_assignment_tags)
            standby.assign(clients, stateful, configs.num_standby_replicas)
            balance_tasks_over_threads(clients, "standby", standby.is_allowed_task_movement)
        budget = WarmupBudget(configs.max_warmup_replicas)
        active_moves = assign_active_task_movements(clients, lags, budget, self._candidates)
        standby_moves = assign_standby_task_movements(clients, lags, budget, self._candidates)
        stateful_set = set(stateful)
        _assign_stateless(clients, sorted(t for t in all_tasks if t not in stateful_set))
        return active_moves + standby_moves > 0


def _assign_active_stateful(clients: list[ClientState], stateful: list[TaskId]) -> None:
    """§10 steps 1–2: deal tasks round-robin over clients, then balance over threads."""
    n = len(clients)
    for i, task in enumerate(stateful):
        clients[i % n].assign_active(task)
    balance_tasks_over_threads(clients, "active", lambda src, dst: True)


def _every_client_holds_every_task(clients: list[ClientState], stateful: list[TaskId]) -> None:
    """§11 with ``numStandbyReplicas >= clients - 1``: both of Kafka's standby assignors poll, task after
    task, a least-loaded client without the task until they have placed ``numStandbyReplicas`` copies or
    no such client is left, so every client ends up holding every stateful task whatever the order (and
    the balance that follows finds no standby a client lacks). The same sets are made here in one pass
    instead of ``numStandbyReplicas`` polls per task (issue #31: 2^31 - 1 standbys on 800 clients)."""
    for c in clients:
        c.standby.update(t for t in stateful if t not in c.active)


def _assign_stateless(clients: list[ClientState], stateless: list[TaskId]) -> None:
    """§10 step 7: each stateless task to the lowest ``activeTaskLoad`` client (ties by UUID)."""
    heap = [(c.active_load(), c.key, c) for c in clients]
    heapq.heapify(heap)
    for task in stateless:
        _, _, client = heapq.heappop(heap)
        client.assign_active(task)
        heapq.heappush(heap, (client.active_load(), client.key, client))
