"""``balanceTasksOverThreads`` (wire-facts §10 step 2 and step 3).

Repeats passes over every ordered (source, destination) pair of clients in Java UUID order and
moves the source's tasks, in TaskId order, while ``should_move_a_task`` holds. Load is always
``assignedTaskLoad`` (actives + standbys), also when balancing actives.

The pass skips a source early when no destination at all could take a task from it
(``(src.count-1)/src.cap`` below the smallest ``(dst.count+1)/dst.cap``); this is only a shortcut
for the same predicate, so the moves and their order are Kafka's.
"""

from __future__ import annotations

from collections.abc import Callable

from codec.types import TaskId

from .state import ClientState

__all__ = ["balance_tasks_over_threads", "should_move_a_task"]

MovePredicate = Callable[[ClientState, ClientState], bool]


def should_move_a_task(src: ClientState, dst: ClientState) -> bool:
    """Kafka's ``shouldMoveATask``: positive skew, non-negative proposed skew, and an improvement."""
    skew = src.assigned_load() - dst.assigned_load()
    if skew <= 0:
        return False
    proposed = (src.assigned_count - 1.0) / src.capacity - (dst.assigned_count + 1.0) / dst.capacity
    return 0 <= proposed < skew


def _floor(clients: list[ClientState]) -> float:
    return min((c.assigned_count + 1.0) / c.capacity for c in clients)


def balance_tasks_over_threads(clients: list[ClientState], kind: str, allowed: MovePredicate) -> None:
    """Balance the ``kind`` (``"active"`` or ``"standby"``) tasks over ``clients`` (UUID order)."""
    keep_balancing = True
    while keep_balancing:
        keep_balancing = False
        floor = _floor(clients)
        for src in clients:
            if (src.assigned_count - 1.0) / src.capacity < floor:
                continue
            for dst in clients:
                if dst is src or not should_move_a_task(src, dst):
                    continue
                owned: set = getattr(src, kind)
                for task in sorted(owned, key=TaskId.sort_key):
                    if not should_move_a_task(src, dst):
                        break
                    if not dst.holds(task) and allowed(src, dst):
                        owned.remove(task)
                        getattr(dst, kind).add(task)
                        keep_balancing = True
                        floor = _floor(clients)
