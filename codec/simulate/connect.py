"""Kafka Connect worker groups in ``simulate`` (issue #18): eager (``default``) vs incremental cooperative
(``compatible``/``sessioned``) rebalancing of connectors and tasks, over real bytes.

A Connect scenario is a JSON file with ``"kind": "connect"``::

    {"kind": "connect", "name": "connect-bounce", "description": "...",
     "workers": [{"name": "W1"}, {"name": "W2"}, {"name": "W3", "running": true}],
     "connectors": {"orders-sink": 4, "users-source": 4},
     "configs": {"scheduled_rebalance_max_delay_ms": 300000, "session_timeout_ms": 10000,
                 "heartbeat_interval_ms": 3000},
     "protocols": ["eager", "sessioned"],
     "events": [{"at": 60, "bounce": "W3", "downtime_s": 20}],
     "duration_s": 600}

Workers: ``name``, ``running`` (default true), ``protocol`` (their ``connect.protocol``: ``eager``,
``compatible`` or ``sessioned``; a run under a compared protocol sets every worker's to it, except with
``--protocol as-configured``, which keeps each worker's own). Events, each at ``at`` seconds: ``{"stop": W}``
(a clean shutdown: LeaveGroup, the rebalance starts at once), ``{"crash": W}`` (no LeaveGroup: found after
``session_timeout_ms``), ``{"start": W}`` (optionally with ``"protocol"``: the worker's new
``connect.protocol``), ``{"bounce": W, "downtime_s": N}`` (stop, then start N s later), ``{"rolling": [W...],
"every_s": N, "downtime_s": M}`` (a bounce of each in turn, optionally with ``"protocol"``).

The model. The group starts stable at generation 1 with the placement the group's assignor gives the running
workers from nothing. A rebalance round starts when a worker leaves (at once on a clean stop, after the session
timeout on a crash), joins, or rejoins on its own (after an assignment that revoked something: at once; after
one that carries a scheduled delay: when it runs out); the other workers learn of it at their next heartbeat,
so a round takes one ``heartbeat_interval_ms``: JoinGroup requests (each worker's metadata for the protocols of
its ``connect.protocol``, with its current allocation), the JoinGroup responses (the leader's with every
member's metadata of the selected protocol), the leader's assignor (:func:`codec.assignor.connect.assign_connect`,
with the leader's state kept between rounds while it stays leader), the SyncGroup requests and responses with
each worker's assignment bytes, which the worker decodes and applies. Every frame is encoded and decoded with
the codec and recorded (``frames.jsonl`` and a pcap, readable by ``capture``). Under eager rebalancing every
worker stops all its connectors and tasks when the round starts (stop-the-world) and starts what it receives at
the end; under incremental cooperative rebalancing workers keep running what they hold, stop only what is
revoked, and start what is assigned. A stopped worker's work stops with it.

Metrics: ``rebalances`` (completed rounds), ``connector_s_not_running`` and ``task_s_not_running`` (seconds each
configured connector / task was not running, summed), ``connector_revocations``/``task_revocations`` (a
running item stopped by a rebalance: eager rounds revoke everything a worker holds, incremental rounds what the
assignment revokes), ``connector_moves``/``task_moves`` (an item started on a worker other than the last one
that ran it), ``time_to_balanced_s`` (from the first event until the last change of what runs where, if at the
end every item runs and the running workers' counts of connectors and of tasks differ by at most one).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..connect.assignment import (
    ConnectAssignment,
    ConnectorTaskId,
    decode_connect_assignment,
)
from ..assignor.connect import (
    IncrementalAssignorState,
    apply_assignment,
    assign_connect,
    connector_tasks,
    workers_from_metadata,
)
from ..causes.vocabulary import FOLLOW_UP, MEMBER_JOINED
from ..negotiation.connect import (
    join_group_protocols,
    select_connect_protocol,
)
from .connect_scenario import (
    CONNECT_COMPARE,
    CONNECT_PROTOCOLS,
    ConnectEvent,
    ConnectScenario,
    ConnectWorkerSpec,
    is_connect_scenario,
    parse_connect_scenario,
)
from .metrics import CONNECT_TABLE_COLUMNS, format_metrics_table
from .runloop import QueueRun
from .scenario import ScenarioError, load_kind_scenario
from .truth import EXPIRED, LEFT, rebalance_record
from .wire import (
    CONNECT_CLIENT,
    JOIN_GROUP,
    LEAVE_GROUP,
    SYNC_GROUP,
    Frames,
    Recorder,
    join_request,
    join_response,
    sync_request,
    sync_response,
)

__all__ = [
    "CONNECT_COMPARE",
    "CONNECT_PROTOCOLS",
    "CONNECT_TABLE_COLUMNS",
    "ConnectEvent",
    "ConnectScenario",
    "ConnectSimulationResult",
    "ConnectWorkerSpec",
    "format_connect_table",
    "is_connect_scenario",
    "parse_connect_scenario",
    "simulate_connect",
]

COORDINATOR_GROUP = "connect-cluster"


# --- the simulation ----------------------------------------------------------------------------------------


@dataclass
class _Worker:
    spec: ConnectWorkerSpec
    mode: str
    running: bool = False
    member_id: str = ""
    key: str = ""
    incarnation: int = 0
    allocation: ConnectAssignment | None = None  # what it holds (the metadata's allocation)
    connectors: set[str] = field(default_factory=set)  # what it runs now
    tasks: set[ConnectorTaskId] = field(default_factory=set)
    rejoin_at: float | None = None
    joined_at: float = 0.0  # when this incarnation connected

    @property
    def url(self) -> str:
        return f"http://{self.spec.name.lower()}:8083/"


@dataclass
class ConnectSimulationResult:
    scenario: str
    protocol: str
    metrics: dict
    rebalances: list[dict]
    timeline: dict
    notes: list[str]
    recorder: Recorder
    final: dict[str, dict]  # worker -> {"connectors": [...], "tasks": [...]} at the end

    def to_json(self) -> dict:
        return {
            "scenario": self.scenario,
            "protocol": self.protocol,
            "kind": "connect",
            "metrics": self.metrics,
            "rebalances": self.rebalances,
            "timeline": self.timeline,
            "final": self.final,
            "notes": self.notes,
        }


class _Sim(QueueRun):
    def __init__(self, sc: ConnectScenario, protocol: str, *, keep_frames: bool, run: str) -> None:
        if protocol not in CONNECT_PROTOCOLS:
            raise ScenarioError(f"unknown Connect protocol {protocol!r}")
        super().__init__()
        self.sc, self.protocol = sc, protocol
        self.rec = Recorder(scenario=sc.name, protocol=protocol, run=run, keep=keep_frames, client=CONNECT_CLIENT)
        self.hb = sc.heartbeat_interval_ms / 1000.0
        self.configured = connector_tasks(dict(sc.connectors))
        self.all_connectors = [c for c, _ in sc.connectors]
        self.all_tasks = [t for c in self.all_connectors for t in self.configured[c]]
        self.workers = {w.name: _Worker(w, w.protocol if protocol == "as-configured" else protocol) for w in sc.workers}
        self.round_start: float | None = None
        self.round_end: float | None = None
        self.generation = 1
        self.leader: str | None = None
        self.join_order: list[str] = []
        self.state: IncrementalAssignorState | None = None
        self.rebalances: list[dict] = []
        self.notes: list[str] = []
        self.last_runner: dict[Any, str] = {}
        self.metrics = {"connector_revocations": 0, "task_revocations": 0, "connector_moves": 0, "task_moves": 0}
        self.samples: dict[str, list[dict]] = {w: [] for w in self.workers}
        self.unavailable: list[dict] = []
        self.not_running_c = 0.0
        self.not_running_t = 0.0
        self.last_t = 0.0
        self.last_change = 0.0
        self._pending_reasons: list[str] = []
        self._cause: tuple[str, str] = ("unknown", "")
        self.group_mode: str | None = None  # the connect.protocol mode of the last completed generation
        self._round_before: dict = dict(self.metrics)

    # time and bookkeeping
    def _account(self, t: float) -> None:
        dt = t - self.last_t
        if dt > 0:
            run_c = {c for w in self.workers.values() for c in w.connectors}
            run_t = {x for w in self.workers.values() for x in w.tasks}
            self.not_running_c += dt * (len(self.all_connectors) - len(run_c))
            self.not_running_t += dt * (len(self.all_tasks) - len(run_t))
        self.last_t = max(self.last_t, t)

    def _sample(self, t: float) -> None:
        run_t = {x for w in self.workers.values() for x in w.tasks}
        run_c = {c for w in self.workers.values() for c in w.connectors}
        for name, w in self.workers.items():
            row = {
                "t": round(t, 3),
                "active": len(w.tasks) + len(w.connectors),
                "restoring": 0,
                "standby": 0,
                "warmup": 0,
                "connectors": len(w.connectors),
                "tasks": len(w.tasks),
            }
            rows = self.samples[name]
            if rows and rows[-1]["t"] == row["t"]:
                rows[-1] = row
            elif not rows or any(rows[-1][k] != row[k] for k in ("connectors", "tasks")):
                rows.append(row)
        row = {
            "t": round(t, 3),
            "unassigned": len(self.all_tasks) - len(run_t) + len(self.all_connectors) - len(run_c),
            "restoring": 0,
            "warmups": 0,
            "tasks": len(self.all_tasks) - len(run_t),
            "connectors": len(self.all_connectors) - len(run_c),
        }
        if self.unavailable and self.unavailable[-1]["t"] == row["t"]:
            self.unavailable[-1] = row
        elif not self.unavailable or self.unavailable[-1]["unassigned"] != row["unassigned"]:
            self.unavailable.append(row)

    def _stop_items(self, w: _Worker, connectors, tasks, t: float, *, revoked: bool) -> None:
        connectors, tasks = set(connectors) & w.connectors, set(tasks) & w.tasks
        if not connectors and not tasks:
            return
        w.connectors -= connectors
        w.tasks -= tasks
        if revoked:
            self.metrics["connector_revocations"] += len(connectors)
            self.metrics["task_revocations"] += len(tasks)
        self.last_change = t

    def _start_items(self, w: _Worker, connectors, tasks, t: float) -> None:
        for item in list(connectors) + list(tasks):
            prev = self.last_runner.get(item)
            if prev is not None and prev != w.spec.name:
                self.metrics["task_moves" if isinstance(item, ConnectorTaskId) else "connector_moves"] += 1
            self.last_runner[item] = w.spec.name
        new_c, new_t = set(connectors) - w.connectors, set(tasks) - w.tasks
        if new_c or new_t:
            self.last_change = t
        w.connectors |= set(connectors)
        w.tasks |= set(tasks)

    def _new_member(self, w: _Worker, t: float) -> None:
        w.incarnation += 1
        w.running = True
        w.member_id = (
            f"connect-{w.spec.name}-{w.incarnation}-"
            + uuid.uuid5(uuid.NAMESPACE_URL, f"{self.sc.seed}/{self.sc.name}/{w.spec.name}/{w.incarnation}").hex[:12]
        )
        w.key = f"{w.spec.name}#{w.incarnation}"
        w.allocation = None
        w.connectors, w.tasks = set(), set()
        w.rejoin_at = None
        w.joined_at = t
        self.rec.connect(w.key, w.spec.name, f"connect-{w.spec.name}", w.mode, t)
        self._drop(w)
        self.join_order.append(w.spec.name)

    # the run
    def run(self) -> ConnectSimulationResult:
        for w in self.workers.values():
            if w.spec.running:
                self._new_member(w, 0.0)
        members = [w for w in self.workers.values() if w.running]
        if members:
            # the stable group at generation 1: its assignor's placement from nothing, not counted
            self._round(0.0, initial=True)
        return self._result(self._loop())

    def _advance(self, t: float) -> None:
        self._account(t)

    def _open_keys(self) -> list[str]:
        return [w.key for w in self.workers.values() if w.running]

    def _act(self, action: str, args: tuple, t: float) -> None:
        if action == "timeout":
            w = self.workers[args[0]]
            if w.member_id == args[1]:
                self._drop(w)
                self._trigger(t, f"{args[0]}'s session timed out", (EXPIRED, args[1]))
        elif action == "complete":
            self._round(t)
        elif action == "rejoin":
            w = self.workers[args[0]]
            if w.running and w.member_id == args[1] and w.rejoin_at == t:
                w.rejoin_at = None
                self._trigger(t, f"{w.spec.name} rejoins ({args[2]})", (FOLLOW_UP, w.member_id))

    def _event(self, e: ConnectEvent, t: float) -> None:
        w = self.workers[e.worker]
        if e.kind == "start":
            if w.running:
                self.notes.append(f"{t:g}s: start {e.worker}: already running")
                return
            if e.protocol and self.protocol == "as-configured":
                w.mode = e.protocol
            self._new_member(w, t)
            self._trigger(t, f"{e.worker} joins", (MEMBER_JOINED, w.member_id))
        else:
            if not w.running:
                self.notes.append(f"{t:g}s: {e.kind} {e.worker}: not running")
                return
            self._stop_items(w, w.connectors, w.tasks, t, revoked=False)
            w.running = False
            w.rejoin_at = None
            if e.kind == "stop":
                leave = Frames.leave_request(COORDINATOR_GROUP, w.member_id, "the consumer is being closed")
                cid, _ = self.rec.request(w.key, LEAVE_GROUP, leave, t)
                self.rec.response(w.key, cid, Frames.leave_response(w.member_id), t)
                self.rec.close(w.key, t)
                self._drop(w)
                self._trigger(t, f"{e.worker} leaves", (LEFT, w.member_id))
            else:
                self._last_heartbeats(w, t)
                self.rec.close(w.key, t)
                self._push(t + self.sc.session_timeout_ms / 1000.0, "timeout", e.worker, w.member_id)

    def _drop(self, w: _Worker) -> None:
        if w.spec.name in self.join_order:
            self.join_order.remove(w.spec.name)

    def _last_heartbeats(self, w: _Worker, t: float) -> None:
        """A crashing worker's last two heartbeats, an interval apart, the last an interval before the crash."""
        times = [at for at in (t - 2 * self.hb, t - self.hb) if at >= w.joined_at]
        self.rec.heartbeats(w.key, COORDINATOR_GROUP, self.generation, w.member_id, times, 0.0, t)

    def _trigger(self, t: float, reason: str, cause: tuple[str, str]) -> None:
        """``cause``: why, in :mod:`codec.causes`' words, and the member it names (:mod:`codec.simulate.truth`)."""
        if self.round_end is not None:  # a round is under way: this change joins it
            self._pending_reasons.append(reason)
            return
        self.round_start, self.round_end = t, t + self.hb
        self._pending_reasons = [reason]
        self._cause = cause
        self._round_before = dict(self.metrics)
        members = [w for w in self.workers.values() if w.running]
        if self.group_mode == "eager":
            # stop-the-world: under the protocol of the last generation (WorkerCoordinator.onJoinPrepare), every
            # worker gives up all it runs when it rejoins
            for w in members:
                self._stop_items(w, w.connectors, w.tasks, t, revoked=True)
                w.allocation = None
        self._push(self.round_end, "complete")

    def _round(self, t: float, *, initial: bool = False) -> None:
        if initial:
            start = 0.0
        else:
            assert self.round_start is not None  # a later round completes only after _trigger started it
            start = self.round_start
        self.round_start = self.round_end = None
        members = [self.workers[n] for n in self.join_order if self.workers[n].running]
        if not members:
            return
        if not initial:
            self.generation += 1
        gen = self.generation
        if self.leader not in [w.spec.name for w in members]:
            self.leader, self.state = members[0].spec.name, None
        leader = self.workers[self.leader]
        sel = select_connect_protocol({w.member_id: w.mode for w in members})
        self.group_mode = sel.mode
        # JoinGroup: every member's protocols and metadata, as the coordinator decodes them
        joins = {}
        for w in members:
            protos = join_group_protocols(w.mode, w.url, 0, w.allocation)
            cid, frame = self.rec.request(
                w.key,
                JOIN_GROUP,
                join_request(
                    "connect",
                    COORDINATOR_GROUP,
                    w.member_id,
                    protos,
                    session_ms=self.sc.session_timeout_ms,
                    rebalance_ms=60_000,
                ),
                max(start, w.joined_at),
            )
            joins[w.member_id] = (w, cid, {p.name: p.metadata for p in frame.body.protocols})
        metadata = {m: protos[sel.protocol] for m, (_, _, protos) in joins.items()}
        join_responses = {}
        for m, (w, cid, _) in joins.items():
            body = join_response("connect", gen, sel.protocol, leader.member_id, m, metadata if w is leader else {})
            join_responses[m] = self.rec.response(w.key, cid, body, t)
        # the leader's assignor, on the members' metadata from its JoinGroup response
        wk = workers_from_metadata([(x.member_id, x.metadata) for x in join_responses[leader.member_id].body.members])
        result = assign_connect(
            sel.protocol,
            leader.member_id,
            wk,
            dict(self.sc.connectors),
            now=round(t * 1000),
            state=self.state,
            max_delay=self.sc.max_delay_ms,
        )
        self.state = result.state
        encoded = result.encoded()
        sync_cids = {}
        for m, (w, _, _) in joins.items():
            cid, frame = self.rec.request(
                w.key,
                SYNC_GROUP,
                sync_request("connect", COORDINATOR_GROUP, gen, m, sel.protocol, encoded if w is leader else {}),
                t,
            )
            sync_cids[m] = cid
            if w is leader:  # what the coordinator reads from the leader's SyncGroup
                encoded = {a.member_id: a.assignment for a in frame.body.assignments}
        received: dict[str, ConnectAssignment] = {}
        for m, (w, _, _) in joins.items():
            frame = self.rec.response(w.key, sync_cids[m], sync_response("connect", sel.protocol, encoded[m]), t)
            # a worker reads its assignment with the deserializer of the group's protocol
            received[m] = decode_connect_assignment(
                frame.body.assignment, reader_version=0 if sel.version == 0 else None
            )
        before = self._round_before if not initial else dict(self.metrics)
        delay = 0
        for m, (w, _, _) in joins.items():
            a = received[m]
            if a.version == 0:
                self._stop_items(w, set(w.connectors) - set(a.connectors), set(w.tasks) - set(a.tasks), t, revoked=True)
                w.allocation = a
                self._start_items(w, a.connectors, a.tasks, t)
            else:
                self._stop_items(w, a.revoked_connectors, a.revoked_tasks, t, revoked=True)
                w.allocation = apply_assignment(w.allocation, a)
                self._start_items(w, a.connectors, a.tasks, t)
                if a.revoked_connectors or a.revoked_tasks:
                    w.rejoin_at = t  # rejoins at once after giving up what was revoked
                    self._push(t, "rejoin", w.spec.name, w.member_id, "after revoking")
                elif a.delay > 0:
                    w.rejoin_at = t + a.delay / 1000.0
                    delay = max(delay, a.delay)
                    self._push(w.rejoin_at, "rejoin", w.spec.name, w.member_id, "scheduled delay ran out")
        if initial:
            return
        self.rebalances.append(
            rebalance_record(
                gen,
                start,
                t,
                self._pending_reasons,
                self._cause,
                sel.protocol,
                leader=self.leader,
                members=[w.spec.name for w in members],
                connector_revocations=self.metrics["connector_revocations"] - before["connector_revocations"],
                task_revocations=self.metrics["task_revocations"] - before["task_revocations"],
                delay_ms=delay,
                assignments={w.spec.name: _assignment_json(received[m]) for m, (w, _, _) in joins.items()},
            )
        )

    def _result(self, end: float) -> ConnectSimulationResult:
        run_c = {c for w in self.workers.values() for c in w.connectors}
        run_t = {x for w in self.workers.values() for x in w.tasks}
        live = [w for w in self.workers.values() if w.running]
        balanced = (
            len(run_c) == len(self.all_connectors)
            and len(run_t) == len(self.all_tasks)
            and bool(live)
            and max(len(w.connectors) for w in live) - min(len(w.connectors) for w in live) <= 1
            and max(len(w.tasks) for w in live) - min(len(w.tasks) for w in live) <= 1
        )
        first = self.sc.events[0].at if self.sc.events else 0.0
        metrics = {
            "protocol": self.protocol,
            "rebalances": len(self.rebalances),
            "time_to_balanced_s": round(max(0.0, self.last_change - first), 3) if balanced else None,
            "connector_s_not_running": round(self.not_running_c, 3),
            "task_s_not_running": round(self.not_running_t, 3),
            **self.metrics,
            "coordinator_bytes": self.rec.coordinator_bytes,
            "frames": self.rec.frames,
            "balanced_at_end": balanced,
            # the Streams pictures' names: every connector and task not running counts as unavailable
            "unavailable_task_s": round(self.not_running_c + self.not_running_t, 3),
            "restoring_task_s": 0.0,
            "lagging_restore_task_s": 0.0,
        }
        timeline = {
            "end_s": end,
            "instances": self.samples,
            "unavailable": self.unavailable,
            "rebalances_completed_s": [r["completed_s"] for r in self.rebalances],
            "events": self.events_json,
        }
        final = {
            w.spec.name: {"connectors": sorted(w.connectors), "tasks": sorted(str(t) for t in w.tasks)}
            for w in self.workers.values()
        }
        return ConnectSimulationResult(
            self.sc.name, self.protocol, metrics, self.rebalances, timeline, self.notes, self.rec, final
        )


def _task_str(t: ConnectorTaskId) -> str:
    return f"{t.connector}-{t.task}"


def _assignment_json(a: ConnectAssignment) -> dict:
    out: dict[str, list[str] | int] = {"connectors": list(a.connectors), "tasks": [_task_str(t) for t in a.tasks]}
    assert a.version is not None  # a decoded assignment: the version of its header
    if a.version >= 1:
        out.update(
            revoked_connectors=list(a.revoked_connectors),
            revoked_tasks=[_task_str(t) for t in a.revoked_tasks],
            delay_ms=a.delay,
        )
    return out


def simulate_connect(
    scenario: ConnectScenario, protocol: str = "sessioned", *, keep_frames: bool = True, run: str = "simulate"
) -> ConnectSimulationResult:
    """Run a Connect scenario with every worker's ``connect.protocol`` set to ``protocol`` (or, with
    ``as-configured``, each its own)."""
    return _Sim(scenario, protocol, keep_frames=keep_frames, run=run).run()


# --- the command -------------------------------------------------------------------------------------------


def format_connect_table(metrics: list[dict]) -> str:
    return format_metrics_table(metrics, CONNECT_TABLE_COLUMNS)


def load_connect_scenario(path: str | Path) -> ConnectScenario:
    return load_kind_scenario(path, parse_connect_scenario)
