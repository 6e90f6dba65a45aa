"""What every readable view (``--format pretty``, the stories) is made with: text for people stays proportional to
its input (``codec.budget``). The views themselves are their families' (:mod:`codec.streams.pretty`,
:mod:`codec.group.pretty`, :mod:`codec.kafka4.pretty`, :mod:`codec.connect.pretty`) and the message layer's generic
tree (:mod:`codec.wire.pretty`).

A name the wire writes once is shown once
— partitions grouped by topic and tasks by subtopology, their numbers as ranges (``t: 0-19999``,
:func:`grouped_ranges`) — long lists are cut with a count of what is not shown (:func:`bounded`), and columns
are padded to at most :data:`MAX_PAD` characters, so that one long name cannot widen every other row.
"""

from __future__ import annotations

from .text import printable

__all__ = [
    "ranges",
    "bounded",
    "grouped_ranges",
    "pad",
    "MAX_PAD",
    "MAX_SHOWN",
]

#: The widest a column is padded to.
MAX_PAD = 40
#: The most items (names, ranges, rows) one list shows; the rest are counted.
MAX_SHOWN = 64


def bounded(items, limit: int | None = MAX_SHOWN, *, sep: str = ", ", what: str = "more") -> str:
    """``items`` (text) joined by ``sep``, at most ``limit`` of them (None: all), then how many were not shown."""
    shown: list[str] = []
    n = 0
    for n, item in enumerate(items, 1):
        if limit is None or n <= limit:
            shown.append(item)
    return sep.join(shown) + (f"{sep}... ({n - limit:,} {what})" if limit is not None and n > limit else "")


def ranges(numbers, limit: int | None = None) -> str:
    """Integers as sorted runs, ``0-3, 5, 7-9`` (a repeated number once), at most ``limit`` runs shown."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return bounded((str(a) if a == b else f"{a}-{b}" for a, b in runs), limit, what="more ranges") or "(none)"


def grouped_ranges(pairs, limit: int | None = None) -> str:
    """(name, number) pairs — topic and partition, subtopology and partition — as ``name: 0-3, 7; other: 1``,
    each name once (printable); with ``limit``, at most that many names and ranges of each shown."""
    by_name: dict[str, list[int]] = {}
    for name, n in pairs:
        by_name.setdefault(name, []).append(n)
    return bounded(
        (f"{printable(str(k))}: {ranges(v, limit)}" for k, v in sorted(by_name.items())),
        limit,
        sep="; ",
        what="more names",
    )


def pad(labels, cap: int = MAX_PAD) -> int:
    """The width to pad a column of ``labels`` to: the longest, at most ``cap``."""
    return min(cap, max((len(x) for x in labels), default=0))
