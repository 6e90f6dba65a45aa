"""Who consumes which partition, instant by instant, in a simulated consumer group (``"kind": "consumer"``), and
what that costs: the bookkeeping the classic and the KIP-848 runs share (:mod:`codec.simulate.consumer`).

A partition is *available* while a live member consumes it: it has taken it (an assignment it applied) and not
given it up (revoked, stopped, crashed). The ledger integrates the unavailable partitions exactly between
events (``unavailable_partition_s``), keeps the most unavailable at once after the scenario's first event
(``max_unavailable``), counts ``revocations`` (partitions a rebalance took from a member still running) and
``moves`` (a partition taken by a member other than the last one that consumed it), and notes every instant a
member takes a partition that another live member still consumes (``double_owned``: a safety violation, which no
protocol here should ever show).
"""

from __future__ import annotations

from typing import Any

from ..assignor.consumer.model import TP

__all__ = ["Ledger", "CONSUMER_TABLE_COLUMNS", "MAX_PARTITION_ROWS"]

CONSUMER_TABLE_COLUMNS = [
    ("protocol", "protocol"),
    ("assignor", "assignor"),
    ("rebalances", "rebalances"),
    ("time_to_stable_s", "stable after (s)"),
    ("unavailable_partition_s", "unavailable (partition-s)"),
    ("max_unavailable", "max unavailable"),
    ("revocations", "revocations"),
    ("moves", "moves"),
    ("double_owned", "owned twice"),
    ("coordinator_bytes", "coordinator bytes"),
]
#: the timeline keeps each partition's owners over time (the availability picture) up to this many partitions
MAX_PARTITION_ROWS = 2000


class Ledger:
    def __init__(self, partitions: list[TP], first_event: float) -> None:
        self.partitions = partitions
        self.owner: dict[TP, str] = {}
        self.last: dict[TP, str] = {}
        self.t = 0.0
        self.first_event = first_event
        self.unavailable_s = 0.0
        self.max_unavailable = 0
        self.revocations = 0
        self.moves = 0
        self.last_change = 0.0
        self.double_owned: list[dict[str, Any]] = []
        self.keep_rows = len(partitions) <= MAX_PARTITION_ROWS
        self.rows: dict[TP, list[list[Any]]] = {tp: [[0.0, None]] for tp in partitions} if self.keep_rows else {}
        self.held: dict[str, set[TP]] = {}
        self.samples: dict[str, list[dict]] = {}
        self.series: list[dict] = []

    def advance(self, t: float) -> None:
        if t > self.t:
            self.unavailable_s += (t - self.t) * (len(self.partitions) - len(self.owner))
            self.t = t

    def _row(self, tp: TP, who: str | None, t: float) -> None:
        if self.keep_rows:
            rows = self.rows[tp]
            if rows[-1][0] == round(t, 6):
                rows[-1][1] = who
                if len(rows) > 1 and rows[-2][1] == who:
                    rows.pop()
            elif rows[-1][1] != who:
                rows.append([round(t, 6), who])

    def take(self, member: str, tps, t: float) -> None:
        held = self.held.setdefault(member, set())
        for tp in tps:
            other = self.owner.get(tp)
            if other == member:
                continue
            if other is not None:
                self.double_owned.append(
                    {"t": round(t, 6), "partition": f"{tp[0]}-{tp[1]}", "members": [other, member]}
                )
                continue  # the first keeps it in the ledger: the violation is on record
            self.owner[tp] = member
            held.add(tp)
            if self.last.get(tp, member) != member:
                self.moves += 1
            self.last[tp] = member
            self.last_change = t
            self._row(tp, member, t)

    def give_up(self, member: str, tps, t: float, *, revoked: bool) -> None:
        held = self.held.setdefault(member, set())
        for tp in tps:
            if self.owner.get(tp) != member:
                continue
            del self.owner[tp]
            held.discard(tp)
            self.revocations += revoked
            self.last_change = t
            self._row(tp, None, t)

    def sample(self, t: float, members: list[str]) -> None:
        for m in members:
            rows = self.samples.setdefault(m, [])
            row = {"t": round(t, 6), "active": len(self.held.get(m, ())), "restoring": 0, "standby": 0, "warmup": 0}
            if rows and rows[-1]["t"] == row["t"]:
                rows[-1] = row
            elif not rows or rows[-1]["active"] != row["active"]:
                rows.append(row)
        down = len(self.partitions) - len(self.owner)
        if t >= self.first_event and t > 0:
            self.max_unavailable = max(self.max_unavailable, down)
        row = {"t": round(t, 6), "unassigned": down, "restoring": 0, "warmups": 0}
        if self.series and self.series[-1]["t"] == row["t"]:
            self.series[-1] = row
        elif not self.series or self.series[-1]["unassigned"] != down:
            self.series.append(row)

    def metrics(self) -> dict[str, Any]:
        stable = len(self.owner) == len(self.partitions)
        return {
            "time_to_stable_s": round(max(0.0, self.last_change - self.first_event), 3) if stable else None,
            "unavailable_partition_s": round(self.unavailable_s, 3),
            "max_unavailable": self.max_unavailable,
            "revocations": self.revocations,
            "moves": self.moves,
            "double_owned": len(self.double_owned),
            "all_partitions_owned_at_end": stable,
            # the Streams pictures' names: a partition nobody consumes counts as an unavailable task
            "unavailable_task_s": round(self.unavailable_s, 3),
            "restoring_task_s": 0.0,
            "lagging_restore_task_s": 0.0,
        }

    def timeline(self, end: float, events: list[dict], rebalances_s: list[float]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "end_s": round(end, 6),
            "partitions_total": len(self.partitions),
            "events": events,
            "rebalances_completed_s": rebalances_s,
            "unavailable": self.series,
            "instances": self.samples,
            "double_owned": self.double_owned,
        }
        if self.keep_rows:
            out["partitions"] = {f"{t}-{p}": rows for (t, p), rows in self.rows.items()}
        return out
