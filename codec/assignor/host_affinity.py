"""Host affinity for Samza standalone (seed 002): task → processor grouping that prefers the
processor a task ran on, then a processor on the same host (locality id), then any processor.

A locality id names a physical execution environment; processor ids are orthogonal to it, and
several processors can share one host. Keeping the *task → locality* association is what lets a
dead processor's tasks land on another processor of the same host, where their local stores are.

Balance: every processor gets at most ceil(tasks / processors) tasks. Within that bound,
placement is decided per task, in task-name order:

1. the previous processor, if it is alive;
2. else the least-loaded live processor with the task's last locality (ties by processor id);
3. else the least-loaded live processor (ties by processor id).

Tasks whose previous processor is alive are placed first, so a surviving processor keeps its
tasks before anyone else's tasks are redistributed.
"""

from __future__ import annotations

from typing import Mapping

__all__ = ["group_tasks_with_host_affinity"]


def group_tasks_with_host_affinity(
    tasks: list[str],
    processor_locality: Mapping[str, str],
    previous_processor: Mapping[str, str] | None = None,
    task_locality: Mapping[str, str] | None = None,
) -> dict[str, list[str]]:
    """Assign ``tasks`` to the live processors (``processor_locality``: processor id → locality id).

    ``previous_processor`` is the last generation's task → processor id; ``task_locality`` the
    last reported task → locality id (a task whose processor died keeps its locality here).
    Returns processor id → sorted task names for every live processor."""
    if not processor_locality:
        raise ValueError("no live processors")
    previous_processor = previous_processor or {}
    task_locality = task_locality or {}
    quota = -(-len(tasks) // len(processor_locality))
    assignment: dict[str, list[str]] = {p: [] for p in sorted(processor_locality)}

    def least_loaded(candidates: list[str]) -> str | None:
        open_ = [p for p in candidates if len(assignment[p]) < quota]
        return min(open_, key=lambda p: (len(assignment[p]), p)) if open_ else None

    later = []
    for task in sorted(set(tasks)):
        prev = previous_processor.get(task)
        if prev in assignment and len(assignment[prev]) < quota:
            assignment[prev].append(task)
        else:
            later.append(task)
    everyone = list(assignment)
    for task in later:
        locality = task_locality.get(task)
        same_host = [p for p in everyone if processor_locality[p] == locality] if locality is not None else []
        target = least_loaded(same_host) or least_loaded(everyone)
        assert target is not None  # quota * processors >= tasks
        assignment[target].append(task)
    return {p: sorted(ts) for p, ts in assignment.items()}
