"""Rolling-upgrade scenarios: a group, a sequence of events, and every rebalance round they cause.

A scenario file (JSON)::

    {"name": "2.1 -> 2.6, leader last",
     "members": [{"name": "A", "release": "2.1"}, {"name": "B", "release": "2.1"}],
     "leader": "A",
     "events": [{"restart": "B", "release": "2.6"},
                {"restart": "A", "release": "2.6", "upgradeFrom": "2.1"}]}

Members may give ``"version": N`` instead of a release. Each event restarts one member (its rejoin
triggers a rebalance, and the rounds run until nobody asks to rejoin). The result lists, per round, the
versions on the wire, the leader's decision and each member's reaction, then the steady state.

A group-protocol scenario (``"kind": "protocol-selection"``, seed 004's rolling upgrade) lists phases,
each the members' protocols in preference order; the coordinator's choice is printed per phase::

    {"kind": "protocol-selection", "phases": [{"A": ["range-1", "range-0"], "B": ["range-0"]}, ...]}

A Kafka Connect scenario (``"kind": "connect-protocol"``: a rolling upgrade or downgrade of
``connect.protocol``) lists phases, each the workers' ``connect.protocol`` (``eager``, ``compatible`` or
``sessioned``); each phase shows the protocols every worker sends (Kafka's order of preference) and the
protocol the coordinator selects for the group, i.e. how the group rebalances::

    {"kind": "connect-protocol", "phases": [{"A": "eager", "B": "eager"}, {"A": "sessioned", "B": "eager"}, ...]}

All three shapes are checked before anything runs, and a file that does not fit is one :class:`ScenarioError`
naming the place (``phases[0].A: needs a list of protocol names, got a string ('range')``): a string where
a list of names goes is refused, not read as its letters; member versions are JSON integers (``"7"``,
``7.9`` and ``true`` are refused); member names are unique; the leader and every restarted member exist;
a member gives a release or a version, not both, and ``upgradeFrom`` only with a release; a Connect worker's
mode is one of the three names (any case, as Kafka's config reads it), not a list of protocols; unknown keys
and an unknown ``kind`` are refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from .probing import FUTURE_VERSION, RELEASES, RoundResult, StreamsInstance, initial_used_version, run_rounds
from .protocol import GroupMember, select_protocol

__all__ = [
    "ScenarioError",
    "ScenarioResult",
    "run_scenario",
    "compat_matrix",
    "render_rounds",
    "run_protocol_phases",
    "render_protocol_phases",
    "check_scenario",
    "check_protocol_phases",
    "check_connect_phases",
    "run_connect_phases",
    "render_connect_phases",
]

PROTOCOL_SELECTION = "protocol-selection"
CONNECT_PROTOCOL = "connect-protocol"
_MAX_VERSION = (1 << 31) - 1  # the SubscriptionInfo version word is an int32


class ScenarioError(ValueError):
    """A negotiation scenario file that does not fit its shape (see the module docstring)."""


def _show(v) -> str:
    """A JSON value's type and a short rendering of it, for messages."""
    if isinstance(v, bool):
        return "true" if v else "false"
    kind = {
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }.get(type(v), type(v).__name__)
    if isinstance(v, (list, dict)) or v is None:
        return kind
    text = repr(v) if not isinstance(v, int) or v.bit_length() <= 128 else f"{v.bit_length()} bits"
    return f"{kind} ({text[:40]}{'...' if len(text) > 40 else ''})"


def _quote(v) -> str:
    """A string as itself (quoted, shortened), anything else described."""
    return repr(v[:60]) if isinstance(v, str) else _show(v)


def _object(v, where: str, keys: set[str]) -> dict:
    if not isinstance(v, dict):
        raise ScenarioError(f"{where}: needs a JSON object, got {_show(v)}")
    unknown = sorted(k for k in v if k not in keys)
    if unknown:
        raise ScenarioError(f"{where}: unknown key {unknown[0][:60]!r} (known: {', '.join(sorted(keys))})")
    return v


def _list(v, where: str) -> list:
    if not isinstance(v, list):
        raise ScenarioError(f"{where}: needs a list, got {_show(v)}")
    return v


def _name(v, where: str) -> str:
    if not isinstance(v, str) or not v:
        raise ScenarioError(f"{where}: needs a non-empty name, got {_show(v)}")
    return v


def _instance_keys(v: dict, where: str) -> None:
    """A member's (or a restart's) release or version, and upgradeFrom."""
    if ("release" in v) == ("version" in v):
        raise ScenarioError(f'{where}: needs either "release" or "version"' + (", not both" if "release" in v else ""))
    if "release" in v:
        if not isinstance(v["release"], str):
            raise ScenarioError(
                f'{where}.release: a Kafka Streams release is a string ("2.4"), got {_show(v["release"])}'
            )
        if v["release"] not in RELEASES:
            raise ScenarioError(
                f"{where}.release: unknown Kafka Streams release {_quote(v['release'])}; known: {', '.join(RELEASES)}"
            )
    else:
        ver = v["version"]
        if type(ver) is not int or not 1 <= ver <= _MAX_VERSION:
            raise ScenarioError(
                f"{where}.version: needs a metadata version, an integer in 1..{_MAX_VERSION}, got {_show(ver)}"
            )
    up = v.get("upgradeFrom")
    if up is not None:
        if "release" not in v:
            raise ScenarioError(f"{where}.upgradeFrom: only a member given by release has upgrade.from")
        if not isinstance(up, str):
            raise ScenarioError(f"{where}.upgradeFrom: needs a release string, got {_show(up)}")
        try:
            initial_used_version(RELEASES[v["release"]], up)
        except ValueError as e:
            raise ScenarioError(f"{where}.upgradeFrom: {e}") from None


_SCENARIO_KEYS = {"name", "description", "members", "leader", "events"}
_MEMBER_KEYS = {"name", "release", "version", "upgradeFrom"}
_EVENT_KEYS = {"restart", "release", "version", "upgradeFrom"}


def check_scenario(spec) -> None:
    """Raise :class:`ScenarioError` unless ``spec`` is a rolling-upgrade scenario (module docstring)."""
    if isinstance(spec, dict) and spec.get("kind") is not None:
        raise ScenarioError(
            f"kind: unknown scenario kind {_quote(spec['kind'])} (a rolling upgrade has no "
            f'"kind"; the others are {PROTOCOL_SELECTION!r} and {CONNECT_PROTOCOL!r})'
        )
    _object(spec, "scenario", _SCENARIO_KEYS | {"kind"})
    if "name" in spec and not isinstance(spec["name"], str):
        raise ScenarioError(f"name: needs a string, got {_show(spec['name'])}")
    if "members" not in spec:
        raise ScenarioError('members: missing (a list of {"name", "release" or "version"})')
    members = _list(spec["members"], "members")
    if not members:
        raise ScenarioError("members: a group needs at least one member")
    names: set[str] = set()
    for i, m in enumerate(members):
        where = f"members[{i}]"
        _object(m, where, _MEMBER_KEYS)
        name = _name(m.get("name"), f"{where}.name")
        if name in names:
            raise ScenarioError(f"{where}.name: {name!r} is already a member")
        names.add(name)
        _instance_keys(m, where)
    if spec.get("leader") is not None and spec["leader"] not in names:
        raise ScenarioError(f"leader: {_quote(spec['leader'])} is not a member ({', '.join(sorted(names))})")
    for i, ev in enumerate(_list(spec.get("events", []), "events")):
        where = f"events[{i}]"
        _object(ev, where, _EVENT_KEYS)
        if ev.get("restart") not in names:
            raise ScenarioError(
                f"{where}.restart: {_quote(ev.get('restart'))} is not a member ({', '.join(sorted(names))})"
            )
        _instance_keys(ev, where)


def check_protocol_phases(spec) -> None:
    """Raise :class:`ScenarioError` unless ``spec`` is a protocol-selection scenario: ``phases``, a list
    of objects mapping each member to its list of protocol names (preference order)."""
    _object(spec, "scenario", {"kind", "name", "description", "phases"})
    if "name" in spec and not isinstance(spec["name"], str):
        raise ScenarioError(f"name: needs a string, got {_show(spec['name'])}")
    if "phases" not in spec:
        raise ScenarioError("phases: missing (a list of {member: [protocol names]})")
    for i, phase in enumerate(_list(spec["phases"], "phases")):
        if not isinstance(phase, dict):
            raise ScenarioError(f"phases[{i}]: needs an object of member -> protocol names, got {_show(phase)}")
        if not phase:
            raise ScenarioError(f"phases[{i}]: a group needs at least one member")
        for member, protocols in phase.items():
            where = f"phases[{i}].{member[:60]}"
            if not isinstance(protocols, list):
                raise ScenarioError(f"{where}: needs a list of protocol names, got {_show(protocols)}")
            for j, p in enumerate(protocols):
                if not isinstance(p, str):
                    raise ScenarioError(f"{where}[{j}]: needs a protocol name (a string), got {_show(p)}")


def _member(spec: dict) -> StreamsInstance:
    name = spec["name"]
    if "release" in spec:
        return StreamsInstance.of_release(name, spec["release"], spec.get("upgradeFrom"))
    return StreamsInstance.of_version(name, spec["version"])


@dataclass(frozen=True)
class ScenarioResult:
    name: str
    rounds: list[tuple[str, list[RoundResult]]]  # (event description, rounds it caused)
    steady: dict[str, int]  # member -> used version at the end
    failed: dict[str, str]

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "events": [{"event": ev, "rounds": [_round_json(r) for r in rs]} for ev, rs in self.rounds],
            "steady": self.steady,
            "failed": self.failed,
            "totalRounds": sum(len(rs) for _, rs in self.rounds),
        }


def _round_json(r: RoundResult) -> dict:
    d = r.decision
    return {
        "round": r.number,
        "leader": r.leader,
        "subscriptions": {m: {"version": v, "latestSupportedVersion": l} for m, (v, l) in r.subscriptions.items()},
        "assignment": {"version": d.assignment_version, "commonlySupportedVersion": d.assignment_csv},
        "probing": d.probing,
        "futureMembers": list(d.future_members),
        "error": d.error,
        "reactions": [
            {
                "member": x.member,
                "usedBefore": x.used_before,
                "usedAfter": x.used_after,
                "rejoin": x.rejoin,
                "failure": x.failure,
            }
            for x in r.reactions
        ],
    }


def run_scenario(spec: dict) -> ScenarioResult:
    check_scenario(spec)
    try:
        return _run_scenario(spec)
    except ValueError as e:  # what the model refuses (an upgrade.from the release's config validation rejects)
        raise ScenarioError(str(e)) from None


def _run_scenario(spec: dict) -> ScenarioResult:
    members = [_member(m) for m in spec["members"]]
    leader = spec.get("leader", members[0].name)
    # The members' rebalance protocols must have one in common (seed 004's selection); all run "stream".
    select_protocol([GroupMember(m.name, ("stream",)) for m in members])
    history: list[tuple[str, list[RoundResult]]] = [("start", run_rounds(members, leader))]
    n = len(history[0][1]) + 1
    for ev in spec.get("events", []):
        name = ev["restart"]
        idx = next(i for i, m in enumerate(members) if m.name == name)
        members[idx] = _member({"name": name, **{k: v for k, v in ev.items() if k != "restart"}})
        what = f"restart {name} at " + (f"release {ev['release']}" if "release" in ev else f"v{ev['version']}")
        if ev.get("upgradeFrom"):
            what += f" with upgrade.from={ev['upgradeFrom']}"
        rounds = run_rounds(members, leader, first_round=n)
        n += len(rounds)
        history.append((what, rounds))
    return ScenarioResult(
        spec.get("name", "scenario"),
        history,
        {m.name: m.used for m in members},
        {m.name: m.failed for m in members if m.failed},
    )


def render_rounds(result: ScenarioResult) -> str:
    lines = [f"# {result.name}"]
    for event, rounds in result.rounds:
        lines.append(f"\n{event}:")
        for r in rounds:
            d = r.decision
            wire = ", ".join(f"{m} v{v}" + (f"/{l}" if l != -1 else "") for m, (v, l) in r.subscriptions.items())
            lines.append(f"  round {r.number}: subscriptions {wire}  (leader {r.leader})")
            if d.error:
                lines.append(f"    leader: ERROR {d.error}")
            else:
                tag = "  version probing: future " + ", ".join(d.future_members) if d.probing else ""
                csv = "unknown (a v1/v2 member is present)" if d.assignment_csv == -1 else f"v{d.assignment_csv}"
                lines.append(f"    leader: assignment v{d.assignment_version}, commonly supported {csv}{tag}")
            for x in r.reactions:
                if x.failure:
                    lines.append(f"    {x.member}: FAILED ({x.failure})")
                elif x.rejoin and x.used_after == x.used_before:
                    lines.append(f"    {x.member}: stays at v{x.used_after} (got an older assignment), rejoins")
                elif x.rejoin:
                    verb = "upgrades" if x.used_after > x.used_before else "downgrades"
                    lines.append(f"    {x.member}: {verb} v{x.used_before} -> v{x.used_after}, rejoins")
    steady = ", ".join(f"{m} v{v}" for m, v in result.steady.items())
    lines.append(f"\nsteady state: {steady}" + (f"; failed: {result.failed}" if result.failed else ""))
    return "\n".join(lines)


def compat_matrix(versions=range(1, FUTURE_VERSION + 1)) -> list[dict]:
    """Every (member version, leader version) pair, each cell a run of the model over real bytes: a group
    of the leader and one member, rebalanced until steady."""
    cells = []
    for lv in versions:
        for mv in versions:
            leader = StreamsInstance.of_version("leader", lv)
            member = StreamsInstance.of_version("member", mv)
            rounds = run_rounds([leader, member], "leader")
            last = rounds[-1]
            failure = next((x.failure for x in last.reactions if x.failure), None) or last.decision.error
            cells.append(
                {
                    "member": mv,
                    "leader": lv,
                    "outcome": "error" if failure else ("probing" if any(r.decision.probing for r in rounds) else "ok"),
                    "version": None if failure else last.decision.assignment_version,
                    "memberUses": member.used,
                    "leaderUses": leader.used,
                    "rounds": len(rounds),
                    "error": failure,
                }
            )
    return cells


def run_protocol_phases(spec: dict) -> list[dict]:
    """Each phase's members and the coordinator's selection (or INCONSISTENT_GROUP_PROTOCOL)."""
    from .protocol import ProtocolSelectionError

    check_protocol_phases(spec)
    out = []
    for i, phase in enumerate(spec["phases"], 1):
        members = [GroupMember(name, tuple(protocols)) for name, protocols in phase.items()]
        try:
            sel = select_protocol(members)
            out.append(
                {
                    "phase": i,
                    "members": phase,
                    "protocol": sel.protocol,
                    "votes": sel.votes,
                    "candidates": list(sel.candidates),
                    "tie": list(sel.tie),
                    "error": None,
                }
            )
        except ProtocolSelectionError as e:
            out.append(
                {
                    "phase": i,
                    "members": phase,
                    "protocol": None,
                    "votes": {},
                    "candidates": [],
                    "tie": [],
                    "error": str(e),
                }
            )
    return out


def render_protocol_phases(spec: dict, phases: list[dict]) -> str:
    lines = [f"# {spec.get('name', 'group protocol selection')}"]
    for p in phases:
        lines.append(f"\nphase {p['phase']}:")
        for member, protocols in p["members"].items():
            lines.append(f"  {member}: " + ", ".join(protocols))
        if p["error"]:
            lines.append(f"  -> {p['error']}")
        else:
            tie = f" (tie between {', '.join(p['tie'])}: Kafka's HashMap order decides)" if p["tie"] else ""
            lines.append(f"  -> group protocol: {p['protocol']}  (votes {p['votes']}){tie}")
    return "\n".join(lines)


# --- Kafka Connect: connect.protocol through a rolling upgrade or downgrade --------------------------------


def check_connect_phases(spec) -> None:
    """Raise :class:`ScenarioError` unless ``spec`` is a Connect scenario: ``phases``, a non-empty list of
    objects mapping each worker to its ``connect.protocol`` (``eager``, ``compatible`` or ``sessioned``)."""
    from .connect import CONNECT_MODES, connect_mode

    _object(spec, "scenario", {"kind", "name", "description", "phases"})
    for key in ("name", "description"):
        if key in spec and not isinstance(spec[key], str):
            raise ScenarioError(f"{key}: needs a string, got {_show(spec[key])}")
    if "phases" not in spec:
        raise ScenarioError("phases: missing (a list of {worker: connect.protocol})")
    phases = _list(spec["phases"], "phases")
    if not phases:
        raise ScenarioError("phases: a scenario needs at least one phase")
    modes = ", ".join(CONNECT_MODES)
    for i, phase in enumerate(phases):
        if not isinstance(phase, dict):
            raise ScenarioError(f"phases[{i}]: needs an object of worker -> connect.protocol, got {_show(phase)}")
        if not phase:
            raise ScenarioError(f"phases[{i}]: a group needs at least one worker")
        for worker, mode in phase.items():
            where = f"phases[{i}].{worker[:60]}"
            if not worker:
                raise ScenarioError(f"phases[{i}]: a worker needs a non-empty name")
            if not isinstance(mode, str):
                hint = (
                    " (a worker is named with its connect.protocol; the protocols it sends follow from it)"
                    if isinstance(mode, list)
                    else ""
                )
                raise ScenarioError(f"{where}: needs a connect.protocol ({modes}), got {_show(mode)}{hint}")
            try:
                connect_mode(mode)
            except ValueError:
                raise ScenarioError(f"{where}: unknown connect.protocol {_quote(mode)} (known: {modes})") from None


def _changes(before: dict[str, str] | None, after: dict[str, str]) -> list[str]:
    """What happened between two phases: workers restarted with another mode, joined, left."""
    if before is None:
        return []
    out = []
    for w, mode in after.items():
        if w not in before:
            out.append(f"{w} joins with connect.protocol={mode}")
        elif before[w] != mode:
            out.append(f"{w} restarts with connect.protocol={mode} (was {before[w]})")
    out += [f"{w} leaves" for w in before if w not in after]
    return out


def run_connect_phases(spec: dict) -> list[dict]:
    """Each phase: the workers' modes and the protocols they send, and the coordinator's selection (the
    protocol, its version, the group's rebalancing and assignor, the votes), with what changed since the
    phase before."""
    from .connect import connect_mode, select_connect_protocol

    check_connect_phases(spec)
    out = []
    before: dict[str, str] | None = None
    for i, phase in enumerate(spec["phases"], 1):
        modes = {w: connect_mode(m) for w, m in phase.items()}
        sel = select_connect_protocol(modes)
        out.append(
            {
                "phase": i,
                "changes": _changes(before, modes),
                "workers": {
                    w: {"connectProtocol": mode, "protocols": list(protos)} for w, (mode, protos) in sel.workers.items()
                },
                **sel.to_json(),
            }
        )
        before = modes
    return out


def render_connect_phases(spec: dict, phases: list[dict]) -> str:
    lines = [f"# {spec.get('name', 'Kafka Connect protocol selection')}"]
    if spec.get("description"):
        lines.append(spec["description"])
    previous = None
    for p in phases:
        what = "; ".join(p["changes"]) if p["changes"] else ("the group" if p["phase"] == 1 else "no change")
        lines.append(f"\nphase {p['phase']}: {what}")
        width = max(len(w) for w in p["workers"])
        for w, x in p["workers"].items():
            lines.append(
                f"  {w.ljust(width)}  connect.protocol={x['connectProtocol']:<10}  sends " + ", ".join(x["protocols"])
            )
        changed = "" if previous is None or previous == p["protocol"] else f"  (was {previous})"
        lines.append(
            f"  -> group protocol: {p['protocol']} (v{p['version']}): {p['rebalancing']} rebalancing, "
            f"{p['assignor']}" + (", session-keyed requests" if p["sessioned"] else "") + changed
        )
        lines.append(f"     common to all: {', '.join(p['candidates'])}; votes {p['votes']}")
        previous = p["protocol"]
    lines.append("\nthe group runs: " + ", ".join(f"phase {p['phase']} {p['protocol']}" for p in phases))
    return "\n".join(lines)
