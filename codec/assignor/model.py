"""Inputs and outputs of the task assignors (wire-facts §8, §10).

Everything here is immutable. The assignors copy what they need into their own mutable working
state (:mod:`codec.assignor.state`), so one :class:`GroupDescription` can be assigned many times.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from codec.types import TaskId

__all__ = [
    "LONG_MAX",
    "LATEST_OFFSET",
    "UNKNOWN_OFFSET_SUM",
    "ASSIGNOR_NAMES",
    "AssignmentConfigs",
    "TaskSpec",
    "ClientSpec",
    "GroupDescription",
    "ClientAssignment",
    "AssignmentResult",
    "AssignmentError",
]

LONG_MAX = 2**63 - 1
LATEST_OFFSET = -2
"""Offset-sum sentinel of a running active task; its lag is always -2 (caught up), §9.5."""
UNKNOWN_OFFSET_SUM = -3
"""Offset-sum sentinel of an unknown position; lag -3, never caught up, sorts first by lag, §10."""

ASSIGNOR_NAMES = ("high_availability", "high_availability_fast", "sticky", "fallback_prior")


class AssignmentError(ValueError):
    """A group description that cannot be assigned (bad input, or an impossible movement)."""


def _frozen_map(m: Mapping | None) -> Mapping:
    return MappingProxyType(dict(m or {}))


@dataclass(frozen=True)
class AssignmentConfigs:
    """The assignment configs with ``StreamsConfig`` defaults (§8).

    Rack-aware *optimization* (``rack.aware.assignment.strategy`` other than ``none``) is not
    implemented; only the client-tag-aware standby placement (§11) is."""

    acceptable_recovery_lag: int = 10000
    num_standby_replicas: int = 0
    max_warmup_replicas: int = 2
    probing_rebalance_interval_ms: int = 600000
    rack_aware_assignment_tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "rack_aware_assignment_tags", tuple(self.rack_aware_assignment_tags))
        if not 0 <= self.acceptable_recovery_lag <= LONG_MAX:
            raise AssignmentError("acceptableRecoveryLag must be a long >= 0")
        if self.num_standby_replicas < 0:
            raise AssignmentError("numStandbyReplicas must be >= 0")
        if self.max_warmup_replicas < 1:
            raise AssignmentError("maxWarmupReplicas must be >= 1")
        if self.probing_rebalance_interval_ms < 60000:
            raise AssignmentError("probingRebalanceIntervalMs must be >= 60000")
        if len(self.rack_aware_assignment_tags) > 5:
            raise AssignmentError("rackAwareAssignmentTags holds at most 5 tags")


@dataclass(frozen=True)
class TaskSpec:
    """One task of the topology; ``stateful`` when its subtopology has changelogs (§9 step 2)."""

    task_id: TaskId
    stateful: bool


@dataclass(frozen=True)
class ClientSpec:
    """One Streams client (process) as the assignor sees it (§9 steps 1, 4, 5).

    Give either ``task_offset_sums`` (lags are then computed from the group's end-offset sums,
    §9.5) or ``task_lags`` (precomputed, one per stateful task), not both."""

    process_id: uuid.UUID
    capacity: int = 1
    client_tags: Mapping[str, str] = field(default_factory=dict)
    prev_active: frozenset[TaskId] = frozenset()
    prev_standby: frozenset[TaskId] = frozenset()
    task_offset_sums: Mapping[TaskId, int] | None = None
    task_lags: Mapping[TaskId, int] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "client_tags", _frozen_map(self.client_tags))
        object.__setattr__(self, "prev_active", frozenset(self.prev_active))
        object.__setattr__(self, "prev_standby", frozenset(self.prev_standby))
        if self.task_offset_sums is not None and self.task_lags is not None:
            raise AssignmentError(f"client {self.process_id}: give taskOffsetSums or taskLags, not both")
        if self.task_offset_sums is not None:
            object.__setattr__(self, "task_offset_sums", _frozen_map(self.task_offset_sums))
        if self.task_lags is not None:
            object.__setattr__(self, "task_lags", _frozen_map(self.task_lags))
        if self.capacity < 1:
            raise AssignmentError(f"client {self.process_id}: capacity must be >= 1")
        if self.prev_active & self.prev_standby:
            raise AssignmentError(f"client {self.process_id}: a task is both previous active and standby")


@dataclass(frozen=True)
class GroupDescription:
    """A whole assignment problem: which assignor, configs, tasks, end-offset sums and clients."""

    tasks: tuple[TaskSpec, ...]
    clients: tuple[ClientSpec, ...]
    configs: AssignmentConfigs = AssignmentConfigs()
    end_offset_sums: Mapping[TaskId, int] = field(default_factory=dict)
    assignor: str = "high_availability"

    def __post_init__(self) -> None:
        object.__setattr__(self, "tasks", tuple(self.tasks))
        object.__setattr__(self, "clients", tuple(self.clients))
        object.__setattr__(self, "end_offset_sums", _frozen_map(self.end_offset_sums))
        if self.assignor not in ASSIGNOR_NAMES:
            raise AssignmentError(f"unknown assignor {self.assignor!r}; expected one of {', '.join(ASSIGNOR_NAMES)}")
        if not self.clients:
            raise AssignmentError("a group needs at least one client")
        ids = [t.task_id for t in self.tasks]
        if len(set(ids)) != len(ids):
            raise AssignmentError("duplicate task id in tasks")
        pids = [c.process_id for c in self.clients]
        if len(set(pids)) != len(pids):
            raise AssignmentError("duplicate processId in clients")


@dataclass(frozen=True)
class ClientAssignment:
    """What one client got. ``standby`` excludes the ``warmup`` copies; Kafka itself hands both
    out as standbys (assignor README)."""

    process_id: uuid.UUID
    active: tuple[TaskId, ...]
    standby: tuple[TaskId, ...]
    warmup: tuple[TaskId, ...]


@dataclass(frozen=True)
class AssignmentResult:
    """The assignor's answer: per-client tasks in Java ``UUID`` order, and whether a follow-up
    probing rebalance is needed (§10 step 8)."""

    probing_rebalance_needed: bool
    clients: tuple[ClientAssignment, ...]

    def by_process_id(self) -> dict[uuid.UUID, ClientAssignment]:
        return {c.process_id: c for c in self.clients}
