"""Scenario files for the rebalance simulator: a topology, instances, an initial placement and events.

A scenario is a small JSON file (the bundled ones are in ``codec/examples/scenarios/``)::

    {"name": "scale-out",
     "seed": 1,
     "topology": [{"subtopology": 0, "source_topics": ["input"], "changelog_topics": ["store-changelog"],
                   "partitions": 3}],
     "configs": {"num_standby_replicas": 1, "acceptable_recovery_lag": 10000, "max_warmup_replicas": 2,
                 "probing_rebalance_interval_ms": 60000},
     "group": {"session_timeout_ms": 45000, "heartbeat_interval_ms": 3000, "rebalance_timeout_ms": 300000,
               "latency_ms": 1, "leave_group_on_close": false},
     "state": {"initial_offsets": 1000000, "write_rate": 100, "restore_rate": 10000},
     "instances": [{"name": "I1", "release": "3.9", "threads": 1, "host": "h1"},
                   {"name": "I3", "running": false}],
     "initial": {"I1": {"active": ["0_0", "0_2"], "standby": ["0_1"]}},
     "events": [{"at": 10, "start": "I3"}],
     "duration_s": 3600}

Instances: ``release`` (a Kafka Streams release, wire-facts §1; default ``3.9``) or ``version``, optional
``upgrade_from`` (§5), ``threads`` (consumers, each one group member), ``host`` (the locality, default the
name), ``state_dir`` (default the name: where the instance's local stores live; instances that name the same
directory share their stores, as Samza processors on one host do, seed 002), ``restore_rate`` (offsets per
second and task), ``running`` (default true).

``initial`` places tasks before the run starts (the group is then stable at generation 1); a standby may
lag by ``standby_lag`` offsets (per instance, default 0 = in sync). Without ``initial``, the placement is the steady state the KIP-441 assignor picks for the running
instances (no state anywhere yet: its state-blind desired placement, plus standbys), every store in sync;
the same for every compared protocol.

Events, each at ``at`` seconds: ``{"start": NAME}`` (optionally with ``release``/``upgrade_from``),
``{"stop": NAME}`` (a clean shutdown: LeaveGroup only with ``leave_group_on_close``, as Kafka Streams'
dynamic members do not send one), ``{"crash": NAME}`` (no LeaveGroup, found by session timeout),
``{"restart": NAME, "downtime_s": 10}`` (stop, then start again on the same host and state directory,
optionally at a new ``release``), and ``{"rolling": [NAMES], "every_s": 120, "downtime_s": 10}`` (a
restart of each in turn). ``NAME`` may be ``"@leader"``: the instance of the group leader at that time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..assignor.leader import Subtopology, Topology
from ..catalog import json_type
from ..cliutil import loads
from ..errors import os_error_text, read_whole
from ..sniff import json_hint
from ..assignor.model import AssignmentConfigs
from ..negotiation import initial_used_version, release_latest
from ..types import TaskId

__all__ = [
    "ScenarioError",
    "InstanceSpec",
    "GroupSettings",
    "StateSettings",
    "Event",
    "Scenario",
    "load_scenario",
    "parse_scenario",
    "bundled_examples",
    "example_path",
    "parse_task",
]

DEFAULT_RELEASE = "3.9"


class ScenarioError(ValueError):
    """A scenario file that cannot be run."""


def number_field(v, where: str, *, positive: bool = False) -> float:
    """A scenario's number: a finite JSON number (not a boolean, a string, NaN or an integer past a float's
    range), ``>= 0`` (``> 0`` if ``positive``)."""
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() <= 1023:
        v = float(v)
    if not isinstance(v, float) or not math.isfinite(v):
        shown = f"an integer of {v.bit_length()} bits" if isinstance(v, int) and not isinstance(v, bool) else repr(v)
        raise ScenarioError(f"{where}: needs a number, got {shown}"[:200])
    if v < 0 or (positive and v == 0):
        raise ScenarioError(f"{where}: must be {'> 0' if positive else '>= 0'}")
    return v


def int_field(v, where: str, lo: int, hi: int) -> int:
    """A scenario's integer: a JSON integer (not a boolean, a float or a string) in ``lo..hi``."""
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ScenarioError(f"{where}: needs an integer in {lo}..{hi}, got {v!r}"[:200])
    return v


def bool_field(v, where: str) -> bool:
    """A scenario's switch: ``true`` or ``false`` (the string ``"false"`` is not false)."""
    if not isinstance(v, bool):
        raise ScenarioError(f"{where}: needs true or false, got {v!r}"[:200])
    return v


def known_keys(d, keys: set[str], where: str, *, cut: int | None = 300) -> None:
    """A JSON object at ``where`` whose keys are all of ``keys``; the message naming the unknown ones is cut at
    ``cut`` characters (``None``: never)."""
    if not isinstance(d, dict):
        raise ScenarioError(f"{where}: needs a JSON object, got {d!r}"[:200])
    unknown = set(d) - keys
    if unknown:
        raise ScenarioError(f"{where}: unknown key(s) {', '.join(sorted(map(str, unknown)))}"[:cut])


def scenario_header(data: dict, kind: str, what: str, default_name: str) -> tuple[str, str, int]:
    """A ``"kind"`` scenario's ``kind`` (``what`` names the kind in the message), ``name`` (default
    ``default_name``), ``description`` and ``seed``."""
    if data.get("kind") != kind:
        raise ScenarioError(f'{what} has "kind": "{kind}"')
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise ScenarioError("name: needs a non-empty string")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ScenarioError("description: needs a string")
    return name, description, int_field(data.get("seed", 1), "seed", -(2**63), 2**63 - 1)


def protocols_field(data: dict, allowed, default) -> tuple[str, ...]:
    """The ``protocols`` compared: a non-empty list of ``allowed``'s names (default ``default``)."""
    protocols = data.get("protocols", list(default))
    if not isinstance(protocols, list) or not protocols or any(p not in allowed for p in protocols):
        raise ScenarioError(f"protocols: a non-empty list of {', '.join(allowed)}")
    return tuple(protocols)


def events_field(data: dict) -> list:
    """The ``events`` list (default empty), each still to be read."""
    raw_events = data.get("events", [])
    if not isinstance(raw_events, list):
        raise ScenarioError("events: needs a list")
    return raw_events


def duration_field(data: dict, default: float, maximum: float) -> float:
    """``duration_s``: in (0, ``maximum``]."""
    duration = number_field(data.get("duration_s", default), "duration_s", positive=True)
    if duration > maximum:
        raise ScenarioError(f"duration_s must be in (0, {maximum:g}]")
    return duration


def event_head(raw: dict, i: int, kinds: tuple[str, ...], names: set[str], what: str) -> tuple[str, float, str, list]:
    """An event's place (``events[i]``), ``at``, its one kind of ``kinds`` and the ``what`` (members, workers) it
    names, each one of ``names`` (``rolling``: a non-empty list of them)."""
    where = f"events[{i}]"
    if "at" not in raw:
        raise ScenarioError(f"{where}: needs 'at' (seconds)")
    at = number_field(raw["at"], f"{where}.at")
    present = [k for k in kinds if k in raw]
    if len(present) != 1:
        raise ScenarioError(f"{where}: exactly one of {', '.join(kinds)}")
    kind = present[0]
    targets = raw[kind] if kind == "rolling" else [raw[kind]]
    if not isinstance(targets, list) or not targets:
        raise ScenarioError(f"{where}: rolling needs a non-empty list of {what}s")
    for m in targets:
        if not isinstance(m, str) or m not in names:
            raise ScenarioError(f"{where}: unknown {what} {m!r}"[:200])
    return where, at, kind, targets


def bounces(raw: dict, where: str, at: float, kind: str, targets: list) -> list[tuple[float, float, str]]:
    """A ``bounce`` (one) or ``rolling`` (each in turn, ``every_s`` apart) event's stops and starts: (stopped at,
    started again at, name), ``downtime_s`` apart."""
    downtime = number_field(raw.get("downtime_s", 10), f"{where}.downtime_s", positive=True)
    every = number_field(raw.get("every_s", 60), f"{where}.every_s", positive=True) if kind == "rolling" else 0.0
    return [(at + k * every, at + k * every + downtime, m) for k, m in enumerate(targets)]


def load_kind_scenario(path: str | Path, parse):
    """A ``"kind"`` scenario file read whole and given to ``parse(data, source_name=...)``; a file that is not
    UTF-8 JSON (or has a duplicate key) is a :class:`ScenarioError`."""
    path = Path(path)
    try:
        data = loads(read_whole(path, "").decode("utf-8"))
    except (OSError, ValueError, RecursionError) as e:  # not UTF-8, not JSON, a duplicate key
        raise ScenarioError(f"{path}: {e}") from None
    return parse(data, source_name=path.stem)


@dataclass(frozen=True)
class InstanceSpec:
    name: str
    release: str | None = DEFAULT_RELEASE
    version: int | None = None
    upgrade_from: str | None = None
    threads: int = 1
    host: str = ""
    state_dir: str = ""
    restore_rate: float | None = None
    running: bool = True

    @property
    def latest(self) -> int:
        """The newest metadata version this instance speaks."""
        if self.version is not None:
            return self.version
        if self.release is None:
            raise ValueError("needs a release or a version")
        return release_latest(self.release)

    @property
    def initial_used(self) -> tuple[int, str]:
        """(first used metadata version, rebalance protocol EAGER/COOPERATIVE), wire-facts §5."""
        if self.version is not None:
            return self.version, "COOPERATIVE" if self.version >= 5 else "EAGER"
        return initial_used_version(self.latest, self.upgrade_from)


@dataclass(frozen=True)
class GroupSettings:
    """The consumer configs that time a rebalance (Kafka 3.x defaults) and a one-way network latency."""

    session_timeout_ms: int = 45000
    heartbeat_interval_ms: int = 3000
    rebalance_timeout_ms: int = 300000  # max.poll.interval.ms
    latency_ms: float = 1.0
    leave_group_on_close: bool = False
    group_id: str = "streams-app"


@dataclass(frozen=True)
class StateSettings:
    initial_offsets: int = 1_000_000  # changelog offsets of every stateful task when the run starts
    write_rate: float = 100.0  # changelog records per second and task while its active task processes
    restore_rate: float = 10_000.0  # offsets per second and task an instance restores or replicates


@dataclass(frozen=True)
class Event:
    at: float
    kind: str  # start | stop | crash | restart
    instance: str
    release: str | None = None
    version: int | None = None
    upgrade_from: str | None = None
    downtime_s: float = 10.0
    upgrade_from_set: bool = False

    def describe(self) -> str:
        extra = f" at release {self.release}" if self.release else (f" at v{self.version}" if self.version else "")
        if self.upgrade_from_set:
            extra += f" (upgrade.from={self.upgrade_from})"
        if self.kind == "restart":
            return f"restart {self.instance} ({self.downtime_s:g} s down){extra}"
        return f"{self.kind} {self.instance}{extra}"


@dataclass(frozen=True)
class Scenario:
    name: str
    topology: Topology
    configs: AssignmentConfigs
    instances: tuple[InstanceSpec, ...]
    events: tuple[Event, ...]
    group: GroupSettings = GroupSettings()
    state: StateSettings = StateSettings()
    initial: dict[str, dict[str, Any]] | None = None
    seed: int = 1
    duration_s: float = 3600.0
    description: str = ""
    source: dict = field(default_factory=dict, compare=False)

    def instance(self, name: str) -> InstanceSpec:
        for spec in self.instances:
            if spec.name == name:
                return spec
        raise ScenarioError(f"unknown instance {name!r}")

    def stateful_tasks(self) -> list[TaskId]:
        return [t for sub in self.topology.subtopologies if sub.stateful for t in sub.tasks()]

    def all_tasks(self) -> list[TaskId]:
        return [t for sub in self.topology.subtopologies for t in sub.tasks()]


def parse_task(text: str) -> TaskId:
    try:
        return TaskId.parse(text)
    except (ValueError, AttributeError):
        raise ScenarioError(f"bad task id {text!r} (expected SUBTOPOLOGY_PARTITION, e.g. 0_2)") from None


def _topology(spec) -> Topology:
    if not isinstance(spec, list) or not spec:
        raise ScenarioError("topology must be a non-empty list of subtopologies")
    subs = []
    for i, s in enumerate(spec):
        try:
            sub = Subtopology(
                int_field(s.get("subtopology", i), "subtopology", 0, 2**31 - 1),
                _names(s["source_topics"], f"topology[{i}].source_topics"),
                _names(s.get("changelog_topics", []), f"topology[{i}].changelog_topics"),
                int_field(s.get("partitions", 1), "partitions", 1, MAX_PARTITIONS),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ScenarioError(f"topology[{i}]: {e}") from None
        subs.append(sub)
    if len({s.subtopology for s in subs}) != len(subs):
        raise ScenarioError("duplicate subtopology id")
    return Topology(tuple(subs))


# Bounds that keep a simulation's work proportional to what a real group could be (docs/guides/simulator.md).
MAX_PARTITIONS = 10_000  # per subtopology
MAX_THREADS = 256  # per instance
MAX_INSTANCES = 1_000
MAX_EVENTS = 10_000
MAX_DURATION_S = 30 * 24 * 3600.0


def _names(v, where: str) -> tuple[str, ...]:
    """A list of topic names: a bare string is refused, not read as its letters."""
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        raise ScenarioError(f"{where}: needs a list of topic names, got {v!r}"[:200])
    return tuple(v)


def _known(d: dict, keys: set[str], where: str) -> None:
    known_keys(d, keys, where, cut=None)  # a Streams scenario's message names every unknown key


def parse_scenario(data: dict, *, source_name: str | None = None) -> Scenario:
    """Validate and build a :class:`Scenario` from its JSON object; anything malformed is a
    :class:`ScenarioError`."""
    try:
        return _parse_scenario(data, source_name=source_name)
    except ScenarioError:
        raise
    except KeyError as e:
        raise ScenarioError(f"missing {e.args[0]!r}") from None
    except (TypeError, ValueError, AttributeError, IndexError, OverflowError, StopIteration) as e:
        raise ScenarioError(f"{e} ({type(e).__name__})") from None


def _parse_scenario(data: dict, *, source_name: str | None = None) -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    _known(
        data,
        {
            "name",
            "description",
            "seed",
            "topology",
            "configs",
            "group",
            "state",
            "instances",
            "initial",
            "events",
            "duration_s",
        },
        "scenario",
    )
    for key in ("configs", "group", "state"):
        if not isinstance(data.get(key, {}), dict):
            raise ScenarioError(f"{key} must be a JSON object, not {json_type(data[key])}")
    try:
        configs = AssignmentConfigs(**data.get("configs", {}))
        group = GroupSettings(**data.get("group", {}))
        state = StateSettings(**data.get("state", {}))
    except (TypeError, ValueError) as e:
        raise ScenarioError(str(e)) from None
    instances = []
    for i, raw in enumerate(data.get("instances", [])):
        _known(
            raw,
            {"name", "release", "version", "upgrade_from", "threads", "host", "state_dir", "restore_rate", "running"},
            f"instances[{i}]",
        )
        name = raw["name"]
        spec = InstanceSpec(
            name=name,
            release=None if "version" in raw else raw.get("release", DEFAULT_RELEASE),
            version=raw.get("version"),
            upgrade_from=raw.get("upgrade_from"),
            threads=int_field(raw.get("threads", 1), f"instance {name}: threads", 1, MAX_THREADS),
            host=raw.get("host", name),
            state_dir=raw.get("state_dir", name),
            restore_rate=raw.get("restore_rate"),
            running=bool_field(raw.get("running", True), f"instance {name}: running"),
        )
        try:
            spec.initial_used  # noqa: B018 (validates release / upgrade_from)
        except ValueError as e:
            raise ScenarioError(f"instance {name}: {e}") from None
        instances.append(spec)
    if not instances:
        raise ScenarioError("a scenario needs instances")
    if len(instances) > MAX_INSTANCES:
        raise ScenarioError(f"at most {MAX_INSTANCES} instances")
    if len(data.get("events", [])) > MAX_EVENTS:
        raise ScenarioError(f"at most {MAX_EVENTS} events")
    names = [s.name for s in instances]
    if len(set(names)) != len(names):
        raise ScenarioError("duplicate instance name")
    events: list[Event] = []
    for i, raw in enumerate(data.get("events", [])):
        events.extend(_events(raw, i, set(names)))
    events.sort(key=lambda e: e.at)
    topology = _topology(data.get("topology"))
    initial = data.get("initial")
    if initial is not None:
        known = {str(t) for sub in topology.subtopologies for t in sub.tasks()}
        for name, place in initial.items():
            if name not in names:
                raise ScenarioError(f"initial: unknown instance {name!r}")
            _known(place, {"active", "standby", "standby_lag"}, f"initial[{name}]")
            for t in list(place.get("active", ())) + list(place.get("standby", ())):
                if t not in known:
                    raise ScenarioError(f"initial[{name}]: unknown task {t!r}")
    duration = number_field(data.get("duration_s", 3600), "duration_s", positive=True)
    if not duration <= MAX_DURATION_S:
        raise ScenarioError(f"duration_s must be in (0, {MAX_DURATION_S:g}]")
    return Scenario(
        name=data.get("name", source_name or "scenario"),
        topology=topology,
        configs=configs,
        instances=tuple(instances),
        events=tuple(events),
        group=group,
        state=state,
        initial=initial,
        seed=int_field(data.get("seed", 1), "seed", -(2**63), 2**63 - 1),
        duration_s=duration,
        description=data.get("description", ""),
        source=data,
    )


def _events(raw: dict, i: int, names: set[str]) -> list[Event]:
    where = f"events[{i}]"
    if "at" not in raw:
        raise ScenarioError(f"{where}: needs 'at' (seconds)")
    at = number_field(raw["at"], f"{where}.at")
    release, downtime_s = raw.get("release"), number_field(raw.get("downtime_s", 10.0), f"{where}.downtime_s")
    if release is not None:
        try:
            release_latest(release)
        except ValueError as e:
            raise ScenarioError(f"{where}: {e}") from None

    def event(at_s: float, kind: str, instance: str) -> Event:
        return Event(
            at_s,
            kind,
            instance,
            release=release,
            version=raw.get("version"),
            upgrade_from=raw.get("upgrade_from"),
            downtime_s=downtime_s,
            upgrade_from_set="upgrade_from" in raw,
        )

    kinds = [k for k in ("start", "stop", "crash", "restart", "rolling") if k in raw]
    if len(kinds) != 1:
        raise ScenarioError(f"{where}: exactly one of start, stop, crash, restart, rolling")
    kind = kinds[0]
    targets = raw[kind] if kind == "rolling" else [raw[kind]]
    for name in targets:
        if name != "@leader" and name not in names:
            raise ScenarioError(f"{where}: unknown instance {name!r}")
    if kind == "rolling":
        every = number_field(raw.get("every_s", 120), f"{where}.every_s", positive=True)
        return [event(at + j * every, "restart", name) for j, name in enumerate(targets)]
    return [event(at, kind, targets[0])]


def load_scenario(path: str | Path) -> Scenario:
    path = Path(path)
    raw = b""
    try:
        raw = read_whole(path, "")
        data = loads(raw.decode("utf-8"))
    except OSError as e:
        raise ScenarioError(os_error_text(e) if e.filename else f"{path}: {e}") from None
    except (ValueError, RecursionError) as e:  # too long, not UTF-8, not JSON, a duplicate key
        hint = json_hint(raw) if raw else ""
        raise ScenarioError(f"{path}: not JSON: {hint}" if hint else f"{path}: {e}") from None
    return parse_scenario(data, source_name=path.stem)


def _examples_dir():
    return resources.files("codec") / "examples" / "scenarios"


def bundled_examples() -> list[str]:
    """Names of the bundled scenarios (``--example NAME``)."""
    return sorted(p.name[:-5] for p in _examples_dir().iterdir() if p.name.endswith(".json"))


def example_path(name: str) -> Path:
    p = _examples_dir() / f"{name}.json"
    if not p.is_file():
        raise ScenarioError(f"no bundled scenario {name!r}; bundled: {', '.join(bundled_examples())}")
    return Path(str(p))
