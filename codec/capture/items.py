"""What a member holds, as items: ``(name, number)`` pairs — a partition is (topic, partition), a task of a
KIP-1071 streams group (subtopology, partition), a Kafka Connect task (connector, task) — or ``(name, None)``
for what has no number (a Connect connector, a Kafka Streams TaskId as Streams prints it).

A name the wire writes once (a topic over its partitions, a subtopology over its tasks) stays one string
shared by its items, and is written once in the story's JSON and text: in JSON, numbered items are an object
of name -> sorted numbers (``{"orders": [0, 1, 2]}``) and the others a sorted list of names; in text, names
with their numbers as ranges (``orders: 0-2``), at most :data:`codec.pretty.MAX_SHOWN` names and ranges
each, with a count of the rest. So the story's output stays proportional to its input (:mod:`codec.budget`),
whatever the length of a name or the number of its items.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..pretty import MAX_SHOWN, bounded, grouped_ranges
from ..text import printable

__all__ = ["Item", "items_json", "items_text", "numbered"]

Item = tuple[str, "int | None"]


def numbered(name: str, numbers: Iterable[int]) -> list[Item]:
    """The items of one name (a topic's partitions, a subtopology's tasks)."""
    return [(name, n) for n in numbers]


def items_json(items: Iterable[Item]) -> dict[str, list[int]] | list[str]:
    """Items in the story's JSON: ``{name: [numbers]}`` (names and numbers sorted), or a sorted list of names
    when the items have no numbers."""
    by_name: dict[str, list[int]] = {}
    for name, n in items:
        by_name.setdefault(name, [])
        if n is not None:
            by_name[name].append(n)
    if by_name and not any(by_name.values()):
        return sorted(by_name)
    return {k: sorted(by_name[k]) for k in sorted(by_name)}


def items_text(items: Iterable[Item], limit: int | None = MAX_SHOWN) -> str:
    """Items for people: ``name: 0-3, 7; other: 1`` (names printable), or the names alone; at most ``limit``
    names and ranges of each, with a count of the rest; ``(none)`` for no item."""
    items = list(items)
    if not items:
        return "(none)"
    if all(n is None for _, n in items):
        return bounded(sorted(printable(str(name)) for name, _ in items), limit)
    return grouped_ranges(((name, n) for name, n in items if n is not None), limit)
