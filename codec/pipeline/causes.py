"""The causes of each ``rebalances`` row and the loop and storm detectors' findings, on the executors: one group at a
time, through :mod:`codec.causes` -- the engine that tells the capture story's causes.

:func:`group_causes` takes one group's decoded units (a pandas DataFrame of the columns in :data:`UNIT_COLUMNS`, in
any order) and returns one row per generation (classic) or epoch (Kafka 4) with its ``cause``, its ``causes`` (every
cause found, the main one first) and what it ``moved``; :func:`group_findings` takes one group's ``rebalances`` rows
(with those columns) and returns the detectors' findings in the ``findings`` table's columns. What the units tell:

* a classic generation's members: the members and assignments that name it (the leader's JoinGroup response and
  SyncGroup request list them all; a ``__consumer_offsets`` record is the whole group); it is whole when a record
  says so or when as many members as the leader listed are in it;
* joins: a JoinGroup request of a known member id (a rejoin), or a JoinGroup answer naming a member its request
  (linked by connection and correlation id) did not name (a new member); leaves: each LeaveGroup request's members,
  with their KIP-800 reasons;
* the previous generation's assignments: Streams' AssignmentInfo (follow-up, probing deadline, version), Kafka
  Connect's revocations and delay, the partitions each member holds (a cooperative revocation);
* a Kafka 4 group's epochs (its member epochs as its rows' generations), its members' joins (epoch 0), leaves (-1,
  -2), subscriptions and fences.

Memory: a group's units at once (Spark's ``applyInPandas``), as the ``rebalances`` aggregation reads them.
"""

from __future__ import annotations

import datetime
import math
from typing import Any

from ..causes import (
    CLASSIC,
    Assigned,
    AssignmentFacts,
    CauseEngine,
    EpochBumped,
    ErrorSeen,
    Formed,
    Joined,
    Left,
    MemberFacts,
    Subscribed,
)
from ..causes.detectors import Detectors
from ..causes.vocabulary import MEMBER_JOINED, Cause, Evidence, Rebalance

__all__ = ["UNIT_COLUMNS", "CAUSE_TYPE", "CAUSE_SCHEMA", "FINDINGS_SCHEMA", "group_causes", "group_findings"]

UNIT_COLUMNS = (
    "record_id",
    "link",
    "group",
    "generation",
    "member",
    "unit_kind",
    "kind",
    "direction",
    "ts_ms",
    "leader",
    "protocol_name",
    "protocol_type",
    "member_count",
    "group_protocol",
    "group_error_code",
    "group_event",
    "leave_reason",
    "sub_version",
    "latest_supported_version",
    "group_instance_id",
    "client_id",
    "client_host",
    "subscribed_topics",
    "asg_version",
    "commonly_supported_version",
    "asg_error_code",
    "next_rebalance_ms",
    "topic_partitions",
    "active",
    "connect_layer",
    "delay",
    "connect_error",
    "revoked_connectors",
    "revoked_tasks",
)
#: a cause as a Spark struct (the rebalances table's ``cause``; ``causes`` is an array of them)
CAUSE_TYPE = (
    "struct<kind:string,members:array<string>,detail:string,confidence:string,"
    "evidence:array<struct<ts:timestamp,what:string>>>"
)
CAUSE_SCHEMA = f"group string, generation int, cause {CAUSE_TYPE}, causes array<{CAUSE_TYPE}>, moved int"
FINDINGS_SCHEMA = (
    "group string, generation int, check string, severity string, task string, member string, process_id string, "
    "detail string, escaped array<string>"
)
FENCED = {110, 25, 82}


def _v(row: Any, name: str) -> Any:
    """A value of a pandas row, None for a missing one (NaN, NA, NaT)."""
    v = row.get(name) if hasattr(row, "get") else getattr(row, name, None)
    if v is None:
        return None
    try:
        if v != v:  # NaN
            return None
    except (TypeError, ValueError):  # (an array: never missing as a whole)
        return v
    return v


def _list(v: Any) -> list:
    """A list column's value as a list (an absent one: empty)."""
    return [] if v is None else list(v)


def _int(v: Any) -> int | None:
    return None if v is None else int(v)


def _ts(row: Any) -> float | None:
    v = _v(row, "ts_ms")
    return None if v is None else float(v) / 1000.0


def _facts(row: Any) -> MemberFacts:
    topics = _v(row, "subscribed_topics")
    return MemberFacts(
        str(_v(row, "member")),
        instance_id=_v(row, "group_instance_id"),
        client_id=_v(row, "client_id"),
        host=_v(row, "client_host"),
        topics=frozenset(str(t) for t in topics) if topics is not None else None,
        streams_version=_int(_v(row, "sub_version")),
        streams_latest=_int(_v(row, "latest_supported_version")),
    )


def _assignment(row: Any) -> AssignmentFacts:
    if _v(row, "unit_kind") == "connect":
        revoked = len(_list(_v(row, "revoked_connectors"))) + len(_list(_v(row, "revoked_tasks")))
        return AssignmentFacts(
            None,
            connect_error=_int(_v(row, "connect_error")),
            connect_delay=_int(_v(row, "delay")),
            connect_revoked=revoked,
        )
    tps = _v(row, "topic_partitions")
    active = _v(row, "active")
    items: frozenset | None = None
    if tps is not None:
        items = frozenset((str(tp["topic"]), int(p)) for tp in tps for p in _list(tp["partitions"]))
    elif active is not None:
        items = frozenset((f"task {t['subtopology']}", int(t["partition"])) for t in active)
    return AssignmentFacts(
        items,
        streams_version=_int(_v(row, "asg_version")),
        streams_common=_int(_v(row, "commonly_supported_version")),
        error_code=_int(_v(row, "asg_error_code")),
        next_rebalance_ms=_int(_v(row, "next_rebalance_ms")),
    )


def _observations(rows: list) -> list:
    """One group's units (pandas rows) as the engine's observations, unsorted."""
    protocols: dict[Any, str] = {}  # a record's Kafka 4 group protocol
    for r in rows:
        gp = _v(r, "group_protocol")
        if gp:
            protocols[_v(r, "record_id")] = gp
    gens: dict[tuple[str, int], dict] = {}
    obs: list = []
    requests = {  # a frame's request by its link (connection and correlation id): (time, the member it named)
        _v(r, "link"): (_ts(r), _v(r, "member"))
        for r in rows
        if _v(r, "direction") == "request" and _v(r, "unit_kind") == "group" and _v(r, "link") is not None
    }
    for r in rows:
        group, gen, member, ts = _v(r, "group"), _int(_v(r, "generation")), _v(r, "member"), _ts(r)
        uk = _v(r, "unit_kind")
        protocol = protocols.get(_v(r, "record_id"), CLASSIC)
        if protocol != CLASSIC:
            if uk == "group" and _v(r, "group_error_code") in FENCED and member:
                obs.append(ErrorSeen(ts, group, protocol, member, int(_v(r, "group_error_code")), "heartbeat"))
            if uk != "member" or not member or gen is None:
                if uk == "group" and gen is not None and gen > 0:
                    g = gens.setdefault((protocol, gen), {"ts": ts, "members": set()})
                    g["ts"] = ts if g["ts"] is None or (ts is not None and ts < g["ts"]) else g["ts"]
                continue
            if gen in (-1, -2):
                obs.append(Left(ts, group, protocol, member, "heartbeat" if gen == -1 else "static-leave"))
            elif gen == 0:
                obs.append(Joined(ts, group, protocol, member, True, None, _facts(r)))
            else:
                obs.append(Subscribed(ts, group, protocol, _facts(r)))
                g = gens.setdefault((protocol, gen), {"ts": ts, "members": set()})
                g["ts"] = ts if g["ts"] is None or (ts is not None and ts < g["ts"]) else g["ts"]
            continue
        if uk == "group" and _v(r, "group_event") == "leave" and member:
            obs.append(Left(ts, group, CLASSIC, member, "leave-group", _v(r, "leave_reason")))
            continue
        requested = _v(r, "kind") == "join-group-request" or (
            _v(r, "kind") == "frame" and _v(r, "direction") == "request" and uk == "member" and gen is None
        )
        if requested and uk == "member":
            if member:
                obs.append(Joined(ts, group, CLASSIC, member, False, None, _facts(r)))
            continue
        if gen is None or gen < 0:
            continue
        asked = requests.get(_v(r, "link")) if _v(r, "direction") == "response" else None
        if uk == "group" and member and _v(r, "leader") and asked is not None and not asked[1]:
            # a JoinGroup answer naming the member its request did not name: a new member
            obs.append(Joined(asked[0], group, CLASSIC, member, True, None, None, "", gen))
        g = gens.setdefault((CLASSIC, gen), {"ts": ts, "members": {}, "assigned": [], "complete": False})
        if ts is not None and (g["ts"] is None or ts < g["ts"]):
            g["ts"] = ts
        if uk == "group":
            g["leader"] = g.get("leader") or _v(r, "leader")
            g["type"] = g.get("type") or _v(r, "protocol_type")
            g["assignor"] = g.get("assignor") or _v(r, "protocol_name")
            count = _int(_v(r, "member_count"))
            if count is not None:
                g["count"] = max(g.get("count", 0), count)
            if _v(r, "kind") == "group-metadata":
                g["complete"] = True
        elif member and uk == "member":
            g["members"][member] = _facts(r)
        elif member and uk in ("assignment", "connect"):
            g["members"].setdefault(member, MemberFacts(str(member)))
            if uk == "assignment" or _v(r, "connect_layer") == "assignment":
                g["assigned"].append((ts, member, _assignment(r)))
    for (protocol, gen), g in gens.items():
        group = next(_v(r, "group") for r in rows)
        if protocol != CLASSIC:
            obs.append(EpochBumped(g["ts"], group, protocol, gen))
            continue
        complete = g["complete"] or (g.get("count") is not None and len(g["members"]) >= g["count"])
        members = tuple(g["members"].values())
        obs.append(Formed(g["ts"], group, gen, members, complete, g.get("leader"), g.get("type"), g.get("assignor")))
        obs += [Assigned(t if t is not None else g["ts"], group, gen, m, f) for t, m, f in g["assigned"]]
    return obs


def _cause_dict(c: Cause) -> dict:
    return {
        "kind": c.kind,
        "members": list(c.members),
        "detail": c.detail,
        "confidence": c.confidence,
        "evidence": [{"ts": _when(e.ts), "what": e.what} for e in c.evidence],
    }


def _when(ts: float | None) -> datetime.datetime | None:
    if ts is None or not math.isfinite(ts):
        return None
    try:
        return datetime.datetime.fromtimestamp(ts, tz=datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):  # (a capture's time outside the calendar)
        return None


def causes_of(rows: list) -> list[Rebalance]:
    """One group's units (pandas rows, or objects with the same attributes) as its rebalances with their causes."""
    order = {Formed: 1, EpochBumped: 1, Assigned: 2}
    obs = _observations(rows)
    obs.sort(key=lambda o: (o.ts is None, o.ts if o.ts is not None else 0.0, order.get(type(o), 0)))
    engine = CauseEngine(source="pipeline")
    out: list[Rebalance] = []
    for o in obs:
        if isinstance(o, Formed) and out and out[-1].protocol == CLASSIC:
            out[-1].moved = engine.moved(o.group)
        r = engine.feed(o)
        if r is not None:
            out.append(r)
    if out and out[-1].protocol == CLASSIC:
        out[-1].moved = engine.moved(out[-1].group)
    return out


def _joining(rows: list) -> list[Rebalance]:
    """A Kafka 4 group's rows at member epoch 0 (members asking to join: the ``rebalances`` row of generation 0),
    told as ``member-joined`` naming them."""
    out: dict[tuple[str, str], tuple[list, list]] = {}
    protocols = {_v(r, "record_id"): _v(r, "group_protocol") for r in rows if _v(r, "group_protocol")}
    for r in rows:
        protocol = protocols.get(_v(r, "record_id"))
        if protocol and _int(_v(r, "generation")) == 0:
            members, times = out.setdefault((_v(r, "group"), protocol), ([], []))
            m = _v(r, "member")
            if m and m not in members:
                members.append(str(m))
            if _ts(r) is not None:
                times.append(_ts(r))
    told = []
    for (group, protocol), (members, times) in out.items():
        ev = tuple(Evidence(t, "a heartbeat at member epoch 0 (a join)") for t in sorted(times)[:8])
        detail = "members asking to join (member epoch 0: the epochs they are given are the group's next)"
        cause = Cause(MEMBER_JOINED, tuple(members), detail, ev, at=min(times) if times else None)
        told.append(Rebalance(group, protocol, None, 0, min(times) if times else None, tuple(members), (cause,)))
    return told


def group_causes(pdf):
    """``applyInPandas``: one group's units -> its rows of :data:`CAUSE_SCHEMA` (a DataFrame of the input's
    class: pandas, which only Spark's side needs)."""
    rows = [r for _, r in pdf.iterrows()]
    out = [
        {
            "group": r.group,
            "generation": r.number,
            "cause": _cause_dict(r.cause),
            "causes": [_cause_dict(c) for c in r.causes],
            "moved": r.moved,
        }
        for r in causes_of(rows) + _joining(rows)
    ]
    return type(pdf)(out, columns=["group", "generation", "cause", "causes", "moved"])


def _rebalance(row: Any) -> Rebalance:
    def cause(d) -> Cause:
        ev = tuple(Evidence(_seconds(e["ts"]), e["what"]) for e in _list(d["evidence"]))
        return Cause(
            d["kind"], tuple(_list(d["members"])), d["detail"] or "", ev, d["confidence"], at=ev[0].ts if ev else None
        )

    protocol = _v(row, "group_protocol") or CLASSIC
    number = int(row["generation"])
    listed = _v(row, "causes")
    causes = tuple(cause(d) for d in (_list(listed) if listed is not None else [row["cause"]]))
    return Rebalance(
        row["group"],
        protocol,
        number if protocol == CLASSIC else None,
        None if protocol == CLASSIC else number,
        _seconds(_v(row, "first_seen")),
        (),
        causes,
        moved=_int(_v(row, "moved")),
    )


def _seconds(ts: Any) -> float | None:
    if ts is None:
        return None
    try:
        return float(ts.timestamp())
    except (AttributeError, ValueError, OverflowError):
        return None


def group_findings(pdf):
    """``applyInPandas``: one group's ``rebalances`` rows (sorted or not) -> the detectors' findings, in the
    ``findings`` table's columns (:data:`FINDINGS_SCHEMA`)."""
    rows = sorted((r for _, r in pdf.iterrows() if _v(r, "cause") is not None), key=lambda r: int(r["generation"]))
    d = Detectors()
    out = []
    for row in rows:
        for f in d.feed(_rebalance(row)):
            evidence = "; ".join(e.what for e in f.evidence[:10])
            out.append(
                {
                    "group": f.group,
                    "generation": f.number,
                    "check": f.check,
                    "severity": f.severity,
                    "task": None,
                    "member": ", ".join(f.members) or None,
                    "process_id": None,
                    "detail": f"{f.detail} ({evidence})",
                    "escaped": None,
                }
            )
    return type(pdf)(out, columns=[c.split()[0] for c in FINDINGS_SCHEMA.split(", ")])
