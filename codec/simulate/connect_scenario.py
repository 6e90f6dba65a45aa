"""Kafka Connect scenario files for ``simulate`` (the format is :mod:`codec.simulate.connect`'s docstring): read and
checked, every field by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..assignor.connect import DEFAULT_MAX_DELAY_MS
from ..connect.constants import MAX_TASKS
from .scenario import (
    ScenarioError,
    bounces,
    duration_field,
    event_head,
    events_field,
    int_field,
    known_keys,
    protocols_field,
    scenario_header,
)

__all__ = [
    "CONNECT_PROTOCOLS",
    "CONNECT_COMPARE",
    "MODES",
    "MAX_WORKERS",
    "MAX_CONNECTORS",
    "MAX_EVENTS",
    "MAX_DURATION_S",
    "ConnectWorkerSpec",
    "ConnectEvent",
    "ConnectScenario",
    "is_connect_scenario",
    "parse_connect_scenario",
]

#: Runs of a Connect scenario: every worker's ``connect.protocol`` set to one mode, or each its own.
CONNECT_PROTOCOLS = {
    "eager": "eager (default, v0): stop-the-world, EagerAssignor",
    "compatible": "compatible (v1): incremental cooperative",
    "sessioned": "sessioned (v2): incremental cooperative, session-keyed",
    "as-configured": "each worker's own connect.protocol",
}
CONNECT_COMPARE = ("eager", "sessioned")
MODES = ("eager", "compatible", "sessioned")
MAX_WORKERS, MAX_CONNECTORS, MAX_EVENTS, MAX_DURATION_S = 100, 1000, 1000, 7 * 86400.0  # and MAX_TASKS, as assign


# --- scenarios ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConnectWorkerSpec:
    name: str
    protocol: str = "sessioned"
    running: bool = True


@dataclass(frozen=True)
class ConnectEvent:
    at: float
    kind: str  # start | stop | crash
    worker: str
    protocol: str | None = None

    def describe(self) -> str:
        return f"{self.kind} {self.worker}" + (f" ({self.protocol})" if self.protocol else "")


@dataclass(frozen=True)
class ConnectScenario:
    name: str
    description: str
    workers: tuple[ConnectWorkerSpec, ...]
    connectors: tuple[tuple[str, int], ...]
    events: tuple[ConnectEvent, ...]
    duration_s: float
    max_delay_ms: int = DEFAULT_MAX_DELAY_MS
    session_timeout_ms: int = 10_000
    heartbeat_interval_ms: int = 3_000
    protocols: tuple[str, ...] = CONNECT_COMPARE
    seed: int = 1
    kind: str = "connect"


def is_connect_scenario(data: Any) -> bool:
    return isinstance(data, dict) and data.get("kind") == "connect"


def _mode(v, where: str) -> str:
    if v not in MODES:
        raise ScenarioError(f"{where}: connect.protocol is one of {', '.join(MODES)}, got {v!r}"[:200])
    return v


def parse_connect_scenario(data: dict, *, source_name: str | None = None) -> ConnectScenario:
    """A :class:`ConnectScenario` from its JSON object; :class:`ScenarioError` for anything it cannot run."""
    known_keys(
        data,
        {
            "kind",
            "name",
            "description",
            "seed",
            "workers",
            "connectors",
            "configs",
            "protocols",
            "events",
            "duration_s",
        },
        "scenario",
    )
    name, description, seed = scenario_header(data, "connect", "a Connect scenario", source_name or "connect")
    raw_workers = data.get("workers")
    if not isinstance(raw_workers, list) or not raw_workers:
        raise ScenarioError("a Connect scenario needs workers (a non-empty list)")
    if len(raw_workers) > MAX_WORKERS:
        raise ScenarioError(f"at most {MAX_WORKERS} workers")
    workers = []
    for i, raw in enumerate(raw_workers):
        known_keys(raw, {"name", "protocol", "running"}, f"workers[{i}]")
        wname = raw.get("name")
        if not isinstance(wname, str) or not wname or not wname.isprintable() or len(wname) > 100:
            raise ScenarioError(f"workers[{i}]: name needs a printable string of 1..100 characters")
        running = raw.get("running", True)
        if not isinstance(running, bool):
            raise ScenarioError(f"workers[{i}]: running needs true or false")
        workers.append(ConnectWorkerSpec(wname, _mode(raw.get("protocol", "sessioned"), f"workers[{i}]"), running))
    names = {w.name for w in workers}
    if len(names) != len(workers):
        raise ScenarioError("duplicate worker name")
    conns = data.get("connectors")
    if not isinstance(conns, dict) or not conns:
        raise ScenarioError("connectors: needs a JSON object of connector name -> task count")
    if len(conns) > MAX_CONNECTORS:
        raise ScenarioError(f"at most {MAX_CONNECTORS} connectors")
    connectors = tuple((c, int_field(n, f"connectors[{c}]", 0, MAX_TASKS)) for c, n in conns.items())
    if sum(n for _, n in connectors) > MAX_TASKS:
        raise ScenarioError(f"at most {MAX_TASKS} tasks in all")
    for c, _ in connectors:
        if not c or not c.isprintable():
            raise ScenarioError("connector names need printable, non-empty strings")
    configs = data.get("configs", {})
    known_keys(configs, {"scheduled_rebalance_max_delay_ms", "session_timeout_ms", "heartbeat_interval_ms"}, "configs")
    max_delay = int_field(
        configs.get("scheduled_rebalance_max_delay_ms", DEFAULT_MAX_DELAY_MS),
        "configs.scheduled_rebalance_max_delay_ms",
        0,
        2**31 - 1,
    )
    session = int_field(configs.get("session_timeout_ms", 10_000), "configs.session_timeout_ms", 1, 2**31 - 1)
    hb = int_field(configs.get("heartbeat_interval_ms", 3_000), "configs.heartbeat_interval_ms", 1, 2**31 - 1)
    protocols = protocols_field(data, CONNECT_PROTOCOLS, CONNECT_COMPARE)
    events: list[ConnectEvent] = []
    for i, raw in enumerate(events_field(data)):
        events.extend(_events(raw, i, names))
    if len(events) > MAX_EVENTS:
        raise ScenarioError(f"at most {MAX_EVENTS} events")
    duration = duration_field(data, 600, MAX_DURATION_S)
    events.sort(key=lambda e: e.at)
    return ConnectScenario(
        name=name,
        description=description,
        workers=tuple(workers),
        connectors=connectors,
        events=tuple(events),
        duration_s=duration,
        max_delay_ms=max_delay,
        session_timeout_ms=session,
        heartbeat_interval_ms=hb,
        protocols=protocols,
        seed=seed,
    )


def _events(raw, i: int, names: set[str]) -> list[ConnectEvent]:
    keys = {"at", "start", "stop", "crash", "bounce", "rolling", "downtime_s", "every_s", "protocol"}
    known_keys(raw, keys, f"events[{i}]")
    where, at, kind, targets = event_head(raw, i, ("start", "stop", "crash", "bounce", "rolling"), names, "worker")
    protocol = _mode(raw["protocol"], where) if "protocol" in raw else None
    if protocol and kind in ("stop", "crash"):
        raise ScenarioError(f"{where}: protocol goes with start, bounce or rolling")
    if kind in ("start", "stop", "crash"):
        return [ConnectEvent(at, kind, targets[0], protocol)]
    return [e for stop, start, w in bounces(raw, where, at, kind, targets)
            for e in (ConnectEvent(stop, "stop", w), ConnectEvent(start, "start", w, protocol))]  # fmt: skip
