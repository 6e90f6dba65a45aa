"""One line per rebalance: how ``watch`` (and ``capture --follow``) tell what completed, for people.

A generation of a classic group::

    2026-05-01 12:00:03.120Z  orders-app  generation 7  consumer/range  3 members  joined c-3  6 partitions moved

an epoch of a Kafka 4 group::

    2026-05-01 12:00:03.120Z  clicks  epoch 12 (consumer group)  4 members  left m-2 (c-2)  3 partitions moved

and a loop or storm detector's finding (:mod:`codec.causes.detectors`), on the line after the rebalance that
completed it::

    2026-05-01 12:00:09.120Z  orders-app  finding rebalance-storm (warning): 10 rebalances in 59.8 s ...

Names are written with :func:`codec.text.printable` (no name can start a line or send a terminal control
sequence); member lists are cut at :data:`SHOWN` names with a count of the rest.
"""

from __future__ import annotations

import datetime as _dt
import math
import re

from ..capture.story import Changes, Generation
from ..causes.detectors import Finding
from ..text import printable
from .state import Bad, Epoch, Notice, Told

__all__ = ["line", "when", "SHOWN"]

SHOWN = 3  # member names shown per list on a line


def when(ts: float | None) -> str:
    """A record or capture time as UTC with milliseconds; ``?`` when unknown."""
    if ts is None or not math.isfinite(ts):
        return "?"
    try:
        t = _dt.datetime.fromtimestamp(ts, tz=_dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return f"epoch{ts:+.3f}s"
    return t.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "Z"


_LABEL = re.compile(r"^(.+) \((.+)\)$")


def _short(label: str) -> str:
    """A member's client id when its label has one (``member-id (client-id)``), else its member id."""
    m = _LABEL.match(label)
    return m.group(2) if m else label


def _names(names: list[str]) -> str:
    shown = ", ".join(printable(_short(n)) for n in names[:SHOWN])
    return shown + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _changes(c: Changes | None, streams: bool = False) -> list[str]:
    if c is None:
        return []
    parts = []
    if c.joined:
        parts.append(f"joined {_names(c.joined)}")
    if c.left:
        parts.append(f"left {_names(c.left)}")
    for kind, moves in c.moved.items():
        if streams and kind == "partitions":  # (a Streams member's partitions are its active tasks')
            continue
        n = sum(len(items) for items in moves.values())
        parts.append(f"{n:,} {kind if n != 1 else kind.removesuffix('s')} moved")
    return parts or ["nothing moved"]


def _cause(item) -> list[str]:
    """The main cause the cause engine gave the item (``cause KIND (members)``, with its confidence when it is not
    certain), and how many other causes it found."""
    r = getattr(item, "rebalance", None)
    if r is None:
        return []
    c = r.cause
    text = f"cause {c.kind}"
    if c.members:
        known = {}  # member id -> its label, from the item's members and changes
        changes = getattr(item, "changes", None)
        for label in (changes.joined + changes.left) if changes is not None else []:
            known[label.split(" (")[0]] = label
        for m in getattr(item, "members", {}).values():
            known[m.member_id] = m.label
        text += f" ({_names([known.get(m, m) for m in c.members])})"
    if c.confidence != "certain":
        text += f" [{c.confidence}]"
    if len(r.causes) > 1:
        text += f" +{len(r.causes) - 1} more"
    return [text]


def line(item: Told | Finding) -> str:
    """The line that tells ``item``."""
    if isinstance(item, Generation):
        what = f"{item.protocol_type or '?'}/{item.protocol or '?'}"
        parts = [
            when(item.last_ts),
            printable(item.group),
            f"generation {item.generation}",
            printable(what),
            _plural(len(item.members), "member"),
            *_changes(item.changes, item.protocol == "stream"),
            *(_cause(item) or (["first seen"] if item.changes is None else [])),
        ]
        return "  ".join(parts)
    if isinstance(item, Epoch):
        target = "" if item.assignment_epoch is not None else ", no target assignment"
        parts = [
            when(item.ts),
            printable(item.group),
            f"epoch {item.epoch} ({item.protocol} group{target})",
            _plural(len(item.members), "member"),
            *_changes(item.changes),
            *(_cause(item) or (["first seen"] if item.changes is None else [])),
        ]
        return "  ".join(parts)
    if isinstance(item, Finding):
        ts = item.evidence[-1].ts if item.evidence else None
        return f"{when(ts)}  {printable(item.group)}  finding {item.check} ({item.severity}): {printable(item.detail)}"
    if isinstance(item, Notice):
        where = f" ({item.where})" if item.where else ""
        return f"{when(item.ts)}  {printable(item.group)}  {item.kind}: {printable(item.detail)}{where}"
    if isinstance(item, Bad):
        return f"cannot decode the record at {item.where}: {printable(str(item.error))}"
    raise TypeError(type(item).__name__)
