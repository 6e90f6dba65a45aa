"""Kafka Connect scenario files for ``simulate`` (the format is :mod:`codec.simulate.connect`'s docstring): read and
checked, every field by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..assignor.connect import DEFAULT_MAX_DELAY_MS
from ..connect.constants import MAX_TASKS
from .scenario import ScenarioError, int_field, number_field

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


def _known(d, keys: set[str], where: str) -> None:
    if not isinstance(d, dict):
        raise ScenarioError(f"{where}: needs a JSON object, got {d!r}"[:200])
    unknown = set(d) - keys
    if unknown:
        raise ScenarioError(f"{where}: unknown key(s) {', '.join(sorted(map(str, unknown)))}"[:300])


def _mode(v, where: str) -> str:
    if v not in MODES:
        raise ScenarioError(f"{where}: connect.protocol is one of {', '.join(MODES)}, got {v!r}"[:200])
    return v


def parse_connect_scenario(data: dict, *, source_name: str | None = None) -> ConnectScenario:
    """A :class:`ConnectScenario` from its JSON object; :class:`ScenarioError` for anything it cannot run."""
    _known(
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
    if data.get("kind") != "connect":
        raise ScenarioError('a Connect scenario has "kind": "connect"')
    name = data.get("name", source_name or "connect")
    if not isinstance(name, str) or not name:
        raise ScenarioError("name: needs a non-empty string")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ScenarioError("description: needs a string")
    seed = int_field(data.get("seed", 1), "seed", -(2**63), 2**63 - 1)
    raw_workers = data.get("workers")
    if not isinstance(raw_workers, list) or not raw_workers:
        raise ScenarioError("a Connect scenario needs workers (a non-empty list)")
    if len(raw_workers) > MAX_WORKERS:
        raise ScenarioError(f"at most {MAX_WORKERS} workers")
    workers = []
    for i, raw in enumerate(raw_workers):
        _known(raw, {"name", "protocol", "running"}, f"workers[{i}]")
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
    _known(configs, {"scheduled_rebalance_max_delay_ms", "session_timeout_ms", "heartbeat_interval_ms"}, "configs")
    max_delay = int_field(
        configs.get("scheduled_rebalance_max_delay_ms", DEFAULT_MAX_DELAY_MS),
        "configs.scheduled_rebalance_max_delay_ms",
        0,
        2**31 - 1,
    )
    session = int_field(configs.get("session_timeout_ms", 10_000), "configs.session_timeout_ms", 1, 2**31 - 1)
    hb = int_field(configs.get("heartbeat_interval_ms", 3_000), "configs.heartbeat_interval_ms", 1, 2**31 - 1)
    protocols = data.get("protocols", list(CONNECT_COMPARE))
    if not isinstance(protocols, list) or not protocols or any(p not in CONNECT_PROTOCOLS for p in protocols):
        raise ScenarioError(f"protocols: a non-empty list of {', '.join(CONNECT_PROTOCOLS)}")
    raw_events = data.get("events", [])
    if not isinstance(raw_events, list):
        raise ScenarioError("events: needs a list")
    events: list[ConnectEvent] = []
    for i, raw in enumerate(raw_events):
        events.extend(_events(raw, i, names))
    if len(events) > MAX_EVENTS:
        raise ScenarioError(f"at most {MAX_EVENTS} events")
    duration = number_field(data.get("duration_s", 600), "duration_s", positive=True)
    if duration > MAX_DURATION_S:
        raise ScenarioError(f"duration_s must be in (0, {MAX_DURATION_S:g}]")
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
        protocols=tuple(protocols),
        seed=seed,
    )


def _events(raw, i: int, names: set[str]) -> list[ConnectEvent]:
    where = f"events[{i}]"
    _known(raw, {"at", "start", "stop", "crash", "bounce", "rolling", "downtime_s", "every_s", "protocol"}, where)
    if "at" not in raw:
        raise ScenarioError(f"{where}: needs 'at' (seconds)")
    at = number_field(raw["at"], f"{where}.at")
    kinds = [k for k in ("start", "stop", "crash", "bounce", "rolling") if k in raw]
    if len(kinds) != 1:
        raise ScenarioError(f"{where}: exactly one of start, stop, crash, bounce, rolling")
    kind = kinds[0]
    targets = raw[kind] if kind == "rolling" else [raw[kind]]
    if not isinstance(targets, list) or not targets:
        raise ScenarioError(f"{where}: rolling needs a non-empty list of workers")
    for w in targets:
        if not isinstance(w, str) or w not in names:
            raise ScenarioError(f"{where}: unknown worker {w!r}"[:200])
    protocol = _mode(raw["protocol"], where) if "protocol" in raw else None
    if protocol and kind in ("stop", "crash"):
        raise ScenarioError(f"{where}: protocol goes with start, bounce or rolling")
    if kind in ("start", "stop", "crash"):
        return [ConnectEvent(at, kind, targets[0], protocol)]
    downtime = number_field(raw.get("downtime_s", 10), f"{where}.downtime_s", positive=True)
    every = number_field(raw.get("every_s", 60), f"{where}.every_s", positive=True) if kind == "rolling" else 0.0
    out = []
    for k, w in enumerate(targets):
        t = at + k * every
        out += [ConnectEvent(t, "stop", w), ConnectEvent(t + downtime, "start", w, protocol)]
    return out
