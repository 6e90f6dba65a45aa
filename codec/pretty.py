"""Human-readable views (``--format pretty``): what a person debugging a rebalance reads at a glance.

Every string that came off the wire (endpoints, client tags, topology names, topics, hosts) is shown through
:func:`codec.text.printable`: a lone surrogate (AssignmentInfo's ``writeUTF`` carries them), a control
character or a line separator is written as an escape, so the view is always valid UTF-8 and no name can
start a line of its own or drive the terminal.

Text for people stays proportional to its input (``codec.budget``): a name the wire writes once is shown once
— partitions grouped by topic and tasks by subtopology, their numbers as ranges (``t: 0-19999``,
:func:`grouped_ranges`) — long lists are cut with a count of what is not shown (:func:`bounded`), and columns
are padded to at most :data:`MAX_PAD` characters, so that one long name cannot widen every other row.
"""

from __future__ import annotations

from .text import printable
from .streams.assignment import AssignmentInfo
from .streams.constants import LATEST_OFFSET, NO_REBALANCE, OFFSET_UNKNOWN, UNKNOWN_OFFSET_SUM, AssignorError
from .streams.subscription import SubscriptionInfo

__all__ = [
    "pretty_subscription",
    "pretty_assignment",
    "describe_epoch_ms",
    "describe_error_code",
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


def describe_epoch_ms(ms: int) -> str:
    if ms == NO_REBALANCE:
        return "none (Long.MAX_VALUE)"
    if ms == 0:
        return "immediately (0)"
    try:
        import datetime as _dt  # here: a decode that is not shown pretty does not import it

        when = _dt.datetime.fromtimestamp(ms / 1000, tz=_dt.timezone.utc)
        return f"{when.isoformat(timespec='milliseconds').replace('+00:00', 'Z')} ({ms})"
    except (OverflowError, OSError, ValueError):
        return str(ms)


def describe_error_code(code: int) -> str:
    try:
        return f"{code} {AssignorError(code).name}"
    except ValueError:
        return f"{code} (unrecognized: members throw TaskAssignmentException)"


def _offset_state(s: int) -> str:
    if s == LATEST_OFFSET:
        return "running active (caught up)"
    if s == UNKNOWN_OFFSET_SUM:
        return "unknown offset (v1-6 standby)"
    if s == OFFSET_UNKNOWN:
        return "OFFSET_UNKNOWN (never sent by Kafka)"
    if s < 0:
        return "negative (invalid offset sum)"
    return "standby / restoring"


def _rows(rows: list[tuple[str, str]], indent: str = "  ") -> list[str]:
    width = pad(k for k, _ in rows)
    return [f"{indent}{k.ljust(width)}  {v}" for k, v in rows]


def pretty_subscription(info: SubscriptionInfo, *, size: int | None = None, trailing: int = 0) -> str:
    head = f"SubscriptionInfo v{info.version}"
    if info.is_version_probe:
        head += f"  VERSION PROBE (newer than v11; latest supported v{info.latest_supported_version})"
        return head + "\n  only the two version words are read, as Kafka does; the leader answers at an older version"
    lsv = info.latest_supported_version
    head += f"  (latest supported {'unknown' if lsv == -1 else 'v' + str(lsv)})"
    if size is not None:
        head += f"  {size} bytes"
    lines = [head]
    lines += _rows(
        [
            ("process id", printable(str(info.process_id))),
            ("endpoint", printable(info.user_endpoint) if info.user_endpoint else "(none: application.server unset)"),
            ("unique field", str(info.unique_field) if info.version >= 8 else "(not in this version)"),
            ("error code", describe_error_code(info.error_code) if info.version >= 9 else "(not in this version)"),
            (
                "client tags",
                ", ".join(f"{printable(k)}={printable(v)}" for k, v in sorted(info.client_tags.items())) or "(none)",
            ),
        ]
    )
    sums = [(_shown(t), s) for t, s in sorted(info.task_offset_sums.items())]
    lines.append(f"  tasks with local state ({len(sums)}):")
    if sums:
        w = pad(t for t, _ in sums)
        ow = max(len(str(s)) for _, s in sums)
        for t, s in sums:
            lines.append(f"    {t.ljust(w)}  {str(s).rjust(ow)}  {_offset_state(s)}")
    if trailing:
        lines.append(f"  note: {trailing} trailing bytes ignored (as Kafka ignores them)")
    return "\n".join(lines)


def _shown(x) -> str:
    """A task, partition or host as text: its wire strings (topology name, topic, host) made printable."""
    return printable(str(x))


def _parts(ps) -> str:
    """Partitions by topic, each topic once: ``t: 0-3, 7``."""
    return grouped_ranges((p.topic, p.partition) for p in ps) or "(no partitions)"


def pretty_assignment(info: AssignmentInfo, *, size: int | None = None, trailing: int = 0) -> str:
    c = info.canonical()
    csv = info.commonly_supported_version
    head = f"AssignmentInfo v{info.version}  (commonly supported {'unknown' if csv == -1 else 'v' + str(csv)})"
    if size is not None:
        head += f"  {size} bytes"
    lines = [head]
    lines += _rows(
        [
            ("error code", describe_error_code(info.error_code)),
            (
                "next rebalance",
                describe_epoch_ms(info.next_rebalance_ms) if info.version >= 7 else "(not in this version)",
            ),
        ]
    )
    distinct = list(dict.fromkeys(info.active_tasks))
    lines.append(f"  active tasks ({len(distinct)}, {len(info.active_tasks)} partition slots):")
    lines.append("    " + (", ".join(_shown(t) for t in distinct) or "(none)"))
    lines.append(f"  standby tasks ({len(c.standby_tasks)}):")
    w = pad(_shown(t) for t in c.standby_tasks)
    for t, ps in c.standby_tasks.items():
        lines.append(f"    {_shown(t).ljust(w)}  <- {_parts(ps)}")
    for title, m in (
        ("partitions by host", c.partitions_by_host),
        ("standby partitions by host", c.standby_partitions_by_host),
    ):
        if not m and info.version < (2 if "standby" not in title else 6):
            continue
        lines.append(f"  {title} ({len(m)}):")
        hw = pad(_shown(h) for h in m)
        for h, ps in m.items():
            lines.append(f"    {_shown(h).ljust(hw)}  {_parts(ps)}")
    if trailing:
        lines.append(f"  note: {trailing} trailing bytes ignored (as Kafka ignores them)")
    return "\n".join(lines)
