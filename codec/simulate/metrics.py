"""What a run costs, integrated exactly between events.

* ``rebalances``: generations completed during the run;
* ``time_to_balanced_s``: from the first scenario event to the last change of the assignment or of an
  active task's state (restored, stopped), if at the end every active task processes; else None;
* ``unavailable_task_s``: task-seconds during which an active task does not process, split into
  ``restoring_task_s`` (assigned, restoring its store) and ``unassigned_task_s`` (no member processes it:
  revoked, withheld, or on a member that died and has not been replaced yet);
* ``lagging_restore_task_s``: task-seconds of an active task restoring on an instance that was not caught
  up (lag above ``acceptable.recovery.lag``) when it got the task, while another live instance held a
  caught-up copy: what KIP-441 promises never to do;
* ``offsets_restored`` (by active tasks) and ``offsets_replicated`` (by standbys and warmups);
* ``max_warmups`` and ``warmup_task_s``: warmup replicas in flight (as the leader's assignor reports them);
* ``coordinator_bytes`` in all and per rebalance (every response frame with its size prefix).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Metrics", "format_value", "format_metrics_table", "TABLE_COLUMNS", "CONNECT_TABLE_COLUMNS"]

# the columns of the metrics table (key, label): a Streams group's, and a Kafka Connect group's
TABLE_COLUMNS = [
    ("protocol", "protocol"),
    ("rebalances", "rebalances"),
    ("time_to_balanced_s", "balanced after (s)"),
    ("unavailable_task_s", "unavailable (task-s)"),
    ("restoring_task_s", "restoring (task-s)"),
    ("unassigned_task_s", "unassigned (task-s)"),
    ("lagging_restore_task_s", "restore w/ caught-up replica elsewhere (task-s)"),
    ("offsets_restored", "offsets restored"),
    ("max_warmups", "max warmups"),
    ("coordinator_bytes", "coordinator bytes"),
]
CONNECT_TABLE_COLUMNS = [
    ("protocol", "protocol"),
    ("rebalances", "rebalances"),
    ("time_to_balanced_s", "balanced after (s)"),
    ("connector_s_not_running", "connectors not running (s)"),
    ("task_s_not_running", "tasks not running (task-s)"),
    ("connector_revocations", "connector revocations"),
    ("task_revocations", "task revocations"),
    ("connector_moves", "connector moves"),
    ("task_moves", "task moves"),
    ("coordinator_bytes", "coordinator bytes"),
]


class Metrics:
    def __init__(self, sim) -> None:
        self.sim = sim
        self.total = len(sim.tasks)
        self.running = 0
        self.restoring = 0
        self.lagging = 0
        self.warmups = 0
        self.offsets_restored = 0.0
        self.offsets_replicated = 0.0
        self.unavailable = self.restoring_s = self.unassigned_s = self.lagging_s = self.warmup_s = 0.0
        self.t = 0.0
        self.first_event = 0.0
        self.last_change = 0.0
        self.dirty: set[str] = set()
        self.events: list[dict] = []
        self.rebalance_marks: list[float] = []
        self.series: list[tuple] = []  # (t, unassigned, restoring, warmups)
        self.per_instance: dict[str, list[tuple]] = {}  # name -> [(t, running, restoring, standby, warmup)]
        self.max_warmups = 0

    def advance(self, t: float) -> None:
        dt = t - self.t
        if dt > 0:
            down = self.total - self.running
            self.unavailable += down * dt
            self.restoring_s += self.restoring * dt
            self.unassigned_s += (down - self.restoring) * dt
            self.lagging_s += self.lagging * dt
            self.warmup_s += self.warmups * dt
            self.t = t

    def sample(self, t: float) -> None:
        sim = self.sim
        if self.dirty:
            for name in sorted(self.dirty):
                inst = sim.instances[name]
                running = restoring = standby = warm = 0
                if inst.alive:
                    for m in inst.members:
                        for task_id in m.active:
                            if sim.tasks[task_id].processing:
                                running += 1
                            else:
                                restoring += 1
                        for task_id in m.standby:
                            if task_id in inst.warmups:
                                warm += 1
                            else:
                                standby += 1
                row = (running, restoring, standby, warm)
                series = self.per_instance.setdefault(name, [])
                if not series or series[-1][1:] != row:
                    if series and series[-1][0] == t:
                        series[-1] = (t, *row)
                    else:
                        series.append((t, *row))
            self.dirty.clear()
            self.warmups = sum(s[-1][4] for s in self.per_instance.values() if s)
            self.max_warmups = max(self.max_warmups, self.warmups)
        totals = (self.total - self.running - self.restoring, self.restoring, self.warmups)
        if not self.series or self.series[-1][1:] != totals:
            if self.series and self.series[-1][0] == t:
                self.series[-1] = (t, *totals)
            else:
                self.series.append((t, *totals))

    def summary(self, end: float) -> dict[str, Any]:
        sim = self.sim
        balanced = self.running == self.total
        per_rebalance = [r.get("coordinator_bytes", 0) for r in sim.rebalances]
        loads = []
        for inst in sim.instances.values():
            if inst.alive:
                loads.append(sum(len(m.active) for m in inst.members) / len(inst.members))
        return {
            "protocol": sim.protocol.name,
            "rebalances": len(sim.rebalances),
            "time_to_balanced_s": round(self.last_change - self.first_event, 3) if balanced else None,
            "unavailable_task_s": round(self.unavailable, 3),
            "restoring_task_s": round(self.restoring_s, 3),
            "unassigned_task_s": round(self.unassigned_s, 3),
            "lagging_restore_task_s": round(self.lagging_s, 3),
            "offsets_restored": int(round(self.offsets_restored)),
            "offsets_replicated": int(round(self.offsets_replicated)),
            "max_warmups": self.max_warmups,
            "warmup_task_s": round(self.warmup_s, 3),
            "coordinator_bytes": sum(per_rebalance),
            "coordinator_bytes_per_rebalance": per_rebalance,
            "frames": sim.rec.frames,
            "final_active_load_spread": round(max(loads) - min(loads), 3) if loads else None,
            "all_active_tasks_processing": balanced,
            "simulated_s": round(end, 3),
        }

    def timeline(self, end: float) -> dict[str, Any]:
        sim = self.sim
        return {
            "end_s": round(end, 6),
            "tasks": self.total,
            "events": self.events,
            "rebalances_completed_s": [round(t, 6) for t in self.rebalance_marks],
            "unavailable": [
                {"t": round(t, 6), "unassigned": u, "restoring": r, "warmups": w} for t, u, r, w in self.series
            ],
            "instances": {
                name: [
                    {"t": round(t, 6), "active": a, "restoring": r, "standby": s, "warmup": w} for t, a, r, s, w in rows
                ]
                for name, rows in sorted(self.per_instance.items(), key=lambda kv: list(sim.instances).index(kv[0]))
            },
        }


def format_value(v) -> str:
    """A metric as the text tables show it: ``-`` for none, thousands separators, one decimal for seconds."""
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.1f}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


def format_metrics_table(metrics: list[dict], columns) -> str:
    """One row per run's metrics, ``columns`` being (key, label) pairs: labels left-aligned in the first column,
    numbers right-aligned."""
    head = [label for _, label in columns]
    rows = [[format_value(m.get(k)) for k, _ in columns] for m in metrics]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]

    def line(cells):
        return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])
