"""Plain consumer group scenario files for ``simulate`` (``"kind": "consumer"``, issue #44): read and checked, every
field by name. The format is the simulator guide's "Consumer groups" section; the model is
:mod:`codec.simulate.consumer`'s docstring. A scenario::

    {"kind": "consumer", "name": "consumer-scale-out", "description": "...", "seed": 1,
     "topics": {"orders": 12},
     "partition_racks": {"orders": [["a", "b"], ...]},
     "members": [{"name": "C1", "topics": ["orders"], "rack": "a"}, {"name": "C4", "running": false}],
     "assignor": "range", "server_assignor": "uniform",
     "protocols": ["eager", "cooperative", "kip848"],
     "configs": {"session_timeout_ms": 45000, "heartbeat_interval_ms": 3000,
                 "consumer_heartbeat_interval_ms": 5000, "consumer_session_timeout_ms": 45000,
                 "assignment_interval_ms": 0},
     "events": [{"at": 30, "start": "C4"}, {"at": 90, "subscribe": "C1", "topics": ["orders", "payments"]}],
     "duration_s": 300}
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..assignor.consumer import CLIENT_ASSIGNORS, SERVER_ASSIGNORS
from .scenario import (
    ScenarioError,
    bounces,
    duration_field,
    event_head,
    events_field,
    int_field,
    known_keys,
    load_kind_scenario,
    protocols_field,
    scenario_header,
)

__all__ = [
    "CONSUMER_PROTOCOLS",
    "ConsumerMemberSpec",
    "ConsumerEvent",
    "ConsumerScenario",
    "is_consumer_scenario",
    "parse_consumer_scenario",
    "load_consumer_scenario",
]

#: the compared protocols of a consumer group, and what each runs
CONSUMER_PROTOCOLS = {
    "eager": "classic eager: every member revokes all it owns before it rejoins",
    "cooperative": "classic cooperative (KIP-429): cooperative-sticky, only moving partitions are revoked",
    "kip848": "consumer group protocol (KIP-848): heartbeats, server-side assignor, per-member reconciliation",
}
MAX_MEMBERS, MAX_TOPICS, MAX_PARTITIONS, MAX_EVENTS, MAX_DURATION_S = 1000, 1000, 100_000, 10_000, 7 * 86400.0
_NAME_LIMIT = 249  # Kafka's longest topic name
_EVENT_KINDS = ("start", "stop", "crash", "bounce", "rolling", "subscribe")


@dataclass(frozen=True)
class ConsumerMemberSpec:
    name: str
    topics: tuple[str, ...]
    rack: str | None = None
    running: bool = True


@dataclass(frozen=True)
class ConsumerEvent:
    at: float
    kind: str  # start | stop | crash | subscribe
    member: str
    topics: tuple[str, ...] | None = None  # subscribe: the new subscription

    def describe(self) -> str:
        return f"{self.kind} {self.member}" + (f" ({', '.join(self.topics)})" if self.topics is not None else "")


@dataclass(frozen=True)
class ConsumerScenario:
    name: str
    description: str
    topics: dict[str, int]
    members: tuple[ConsumerMemberSpec, ...]
    events: tuple[ConsumerEvent, ...]
    duration_s: float
    assignor: str = "range"
    server_assignor: str = "uniform"
    partition_racks: dict[str, tuple[frozenset[str], ...]] | None = None
    session_timeout_ms: int = 45_000
    heartbeat_interval_ms: int = 3_000
    consumer_heartbeat_interval_ms: int = 5_000
    consumer_session_timeout_ms: int = 45_000
    assignment_interval_ms: int = 0
    protocols: tuple[str, ...] = tuple(CONSUMER_PROTOCOLS)
    seed: int = 1
    kind: str = "consumer"

    def protocol_assignor(self, protocol: str) -> str:
        """The assignor a run under ``protocol`` uses: the scenario's ``assignor`` under eager, cooperative-sticky
        (Kafka's cooperative assignor) under cooperative, the ``server_assignor`` under KIP-848."""
        return {"eager": self.assignor, "cooperative": "cooperative-sticky"}.get(protocol, self.server_assignor)


def is_consumer_scenario(data: Any) -> bool:
    return isinstance(data, dict) and data.get("kind") == "consumer"


def _name(v, where: str, what: str = "name") -> str:
    if not isinstance(v, str) or not v or not v.isprintable() or len(v) > _NAME_LIMIT:
        raise ScenarioError(f"{where}: {what} needs a printable string of 1..{_NAME_LIMIT} characters, got {v!r}"[:200])
    return v


def _topic_list(v, where: str) -> tuple[str, ...]:
    if not isinstance(v, list):
        raise ScenarioError(f"{where}: needs a list of topic names, got {v!r}"[:200])
    return tuple(_name(t, where, "a topic") for t in v)


def _known_topics(names: tuple[str, ...], topics: dict[str, int], where: str) -> tuple[str, ...]:
    """A subscription names topics of ``topics`` only: a misspelt name would subscribe to nothing, silently (Kafka's
    assignors skip a topic the metadata lacks)."""
    unknown = [t for t in names if t not in topics]
    if unknown:
        raise ScenarioError(f"{where}: topic(s) {', '.join(unknown)} not in the scenario's topics"[:200])
    return names


def _choice(v, allowed, where: str) -> str:
    if v not in allowed:
        raise ScenarioError(f"{where}: one of {', '.join(allowed)}, got {v!r}"[:200])
    return v


def parse_consumer_scenario(data: dict, *, source_name: str | None = None) -> ConsumerScenario:
    """A :class:`ConsumerScenario` from its JSON object; :class:`ScenarioError` for anything it cannot run."""
    known_keys(
        data,
        {"kind", "name", "description", "seed", "topics", "partition_racks", "members", "assignor",
         "server_assignor", "protocols", "configs", "events", "duration_s"},
        "scenario",
    )  # fmt: skip
    name, description, seed = scenario_header(data, "consumer", "a consumer group scenario", source_name or "consumer")
    raw_topics = data.get("topics")
    if not isinstance(raw_topics, dict) or not raw_topics:
        raise ScenarioError("topics: needs a JSON object of topic name -> partition count")
    if len(raw_topics) > MAX_TOPICS:
        raise ScenarioError(f"topics: at most {MAX_TOPICS}")
    topics = {
        _name(t, "topics", "a topic"): int_field(n, f"topics[{t}]", 1, MAX_PARTITIONS) for t, n in raw_topics.items()
    }
    if sum(topics.values()) > MAX_PARTITIONS:
        raise ScenarioError(f"topics: at most {MAX_PARTITIONS} partitions in all")
    racks = _partition_racks(data.get("partition_racks"), topics)
    raw_members = data.get("members")
    if not isinstance(raw_members, list) or not raw_members:
        raise ScenarioError("members: needs a non-empty list")
    if len(raw_members) > MAX_MEMBERS:
        raise ScenarioError(f"members: at most {MAX_MEMBERS}")
    members = []
    for i, raw in enumerate(raw_members):
        where = f"members[{i}]"
        known_keys(raw, {"name", "topics", "rack", "running"}, where)
        mname = _name(raw.get("name"), where)
        mtopics = _known_topics(_topic_list(raw.get("topics", list(topics)), f"{where}.topics"), topics, where)
        rack = raw.get("rack")
        if rack is not None:
            rack = _name(rack, where, "rack")
        running = raw.get("running", True)
        if not isinstance(running, bool):
            raise ScenarioError(f"{where}: running needs true or false, got {running!r}"[:200])
        members.append(ConsumerMemberSpec(mname, mtopics, rack, running))
    names = {m.name for m in members}
    if len(names) != len(members):
        raise ScenarioError("members: duplicate member name")
    assignor = _choice(data.get("assignor", "range"), CLIENT_ASSIGNORS, "assignor")
    server_assignor = _choice(data.get("server_assignor", "uniform"), SERVER_ASSIGNORS, "server_assignor")
    protocols = protocols_field(data, CONSUMER_PROTOCOLS, CONSUMER_PROTOCOLS)
    configs = data.get("configs", {})
    defaults = {
        "session_timeout_ms": 45_000,
        "heartbeat_interval_ms": 3_000,
        "consumer_heartbeat_interval_ms": 5_000,
        "consumer_session_timeout_ms": 45_000,
        "assignment_interval_ms": 0,
    }
    known_keys(configs, set(defaults), "configs")
    conf = {
        k: int_field(configs.get(k, d), f"configs.{k}", 0 if k == "assignment_interval_ms" else 1, 2**31 - 1)
        for k, d in defaults.items()
    }
    events: list[ConsumerEvent] = []
    for i, raw in enumerate(events_field(data)):
        events.extend(_events(raw, i, names))
        if events and events[-1].topics is not None:
            _known_topics(events[-1].topics, topics, f"events[{i}]")
    if len(events) > MAX_EVENTS:
        raise ScenarioError(f"events: at most {MAX_EVENTS}")
    duration = duration_field(data, 300, MAX_DURATION_S)
    events.sort(key=lambda e: e.at)
    return ConsumerScenario(
        name=name,
        description=description,
        topics=topics,
        members=tuple(members),
        events=tuple(events),
        duration_s=duration,
        assignor=assignor,
        server_assignor=server_assignor,
        partition_racks=racks,
        protocols=protocols,
        seed=seed,
        session_timeout_ms=conf["session_timeout_ms"],
        heartbeat_interval_ms=conf["heartbeat_interval_ms"],
        consumer_heartbeat_interval_ms=conf["consumer_heartbeat_interval_ms"],
        consumer_session_timeout_ms=conf["consumer_session_timeout_ms"],
        assignment_interval_ms=conf["assignment_interval_ms"],
    )


def _partition_racks(v, topics: dict[str, int]) -> dict[str, tuple[frozenset[str], ...]] | None:
    if v is None:
        return None
    known_keys(v, set(topics), "partition_racks")
    out = {}
    for t, rows in v.items():
        where = f"partition_racks[{t}]"
        if not isinstance(rows, list) or len(rows) != topics[t]:
            raise ScenarioError(f"{where}: a list of the replicas' racks of each of its {topics[t]} partitions")
        out[t] = tuple(frozenset(_topic_list(r, f"{where}[{p}]")) for p, r in enumerate(rows))
    return out


def _events(raw, i: int, names: set[str]) -> list[ConsumerEvent]:
    known_keys(raw, {"at", "start", "stop", "crash", "bounce", "rolling", "subscribe", "topics", "downtime_s", "every_s"},
               f"events[{i}]")  # fmt: skip
    where, at, kind, targets = event_head(raw, i, _EVENT_KINDS, names, "member")
    if ("topics" in raw) != (kind == "subscribe"):
        raise ScenarioError(f"{where}: topics goes with subscribe, and subscribe needs topics")
    if kind == "subscribe":
        return [ConsumerEvent(at, kind, targets[0], _topic_list(raw["topics"], f"{where}.topics"))]
    if kind in ("start", "stop", "crash"):
        return [ConsumerEvent(at, kind, targets[0])]
    return [e for stop, start, m in bounces(raw, where, at, kind, targets)
            for e in (ConsumerEvent(stop, "stop", m), ConsumerEvent(start, "start", m))]  # fmt: skip


def load_consumer_scenario(path: str | Path) -> ConsumerScenario:
    return load_kind_scenario(path, parse_consumer_scenario)
