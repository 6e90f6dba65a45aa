"""Kafka Streams' readable views (``--format pretty``): a SubscriptionInfo and an AssignmentInfo as a person debugging a
rebalance reads them at a glance.

Every string that came off the wire (endpoints, client tags, topology names, topics, hosts) is shown through
:func:`codec.text.printable`: a lone surrogate (AssignmentInfo's ``writeUTF`` carries them), a control character or a
line separator is written as an escape, so the view is always valid UTF-8 and no name can start a line of its own or
drive the terminal; lists and columns are bounded as :mod:`codec.pretty` bounds them.
"""

from __future__ import annotations

from ..pretty import grouped_ranges, pad
from ..text import printable
from .assignment import AssignmentInfo
from .constants import LATEST_OFFSET, NO_REBALANCE, OFFSET_UNKNOWN, UNKNOWN_OFFSET_SUM, AssignorError
from .subscription import SubscriptionInfo

__all__ = ["pretty_subscription", "pretty_assignment", "describe_epoch_ms", "describe_error_code"]


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
