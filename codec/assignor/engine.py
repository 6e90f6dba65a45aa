"""Runs one of the task assignors on a :class:`GroupDescription` (wire-facts §9 step 6)."""

from __future__ import annotations

from codec.types import TaskId

from .high_availability import HighAvailabilityTaskAssignor
from .high_availability_fast import HighAvailabilityFastTaskAssignor
from .model import AssignmentResult, ClientAssignment, GroupDescription
from .state import ClientState, build_states
from .sticky import FallbackPriorTaskAssignor, LegacyStickyTaskAssignor

__all__ = ["ASSIGNORS", "assign"]

ASSIGNORS = {
    "high_availability": HighAvailabilityTaskAssignor,
    "high_availability_fast": HighAvailabilityFastTaskAssignor,
    "sticky": LegacyStickyTaskAssignor,
    "fallback_prior": FallbackPriorTaskAssignor,
}


def assign(group: GroupDescription, exact_java_queue: bool = False) -> AssignmentResult:
    """Assign every task of ``group``; deterministic (same input, same output).

    ``exact_java_queue`` (high_availability only) replays Kafka's priority-queue layout for
    bit-exact tie-breaking instead of taking true minima (see :mod:`codec.assignor.movement`)."""
    clients, lags = build_states(group)
    all_tasks = [t.task_id for t in group.tasks]
    stateful = [t.task_id for t in group.tasks if t.stateful]
    assignor = (
        HighAvailabilityTaskAssignor(exact_java_queue)
        if group.assignor == "high_availability"
        else ASSIGNORS[group.assignor]()
    )
    probing = assignor.assign(clients, all_tasks, stateful, lags, group.configs)
    return AssignmentResult(bool(probing), tuple(_result(c) for c in clients))


def _result(c: ClientState) -> ClientAssignment:
    warmup = c.warmup & c.standby
    return ClientAssignment(
        process_id=c.process_id,
        active=tuple(sorted(c.active, key=TaskId.sort_key)),
        standby=tuple(sorted(c.standby - warmup, key=TaskId.sort_key)),
        warmup=tuple(sorted(warmup, key=TaskId.sort_key)),
    )
