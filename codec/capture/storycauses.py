"""The cause of every generation and epoch of a capture's story: its frames told to the cause engine.

:class:`StoryCauses` is called by the story (:mod:`codec.capture.story`) as it reads each group frame -- a
JoinGroup and its answer (the member, whether it was new, its KIP-800 reason, what it offered), a LeaveGroup (each
member with its reason), a Heartbeat's answer, a SyncGroup's, the broker that answered; a KIP-848/KIP-1071/KIP-932
heartbeat and its answer (joins at member epoch 0, leaves at -1 and -2, fences, subscriptions, the member epochs
given out) -- and keeps them as :mod:`codec.causes` observations. Frames do not come out in time order (see
:mod:`codec.capture.story`), so at the end each group's observations and its settled generations (or its epochs)
are sorted by time and fed to a :class:`~codec.causes.CauseEngine`; each :class:`Generation` gets its
``rebalance`` (the causes), each :class:`HeartbeatGroup` its ``epochs``.

Memory: a member's accepted heartbeats are kept in runs (a run ends at a silence of more than three times its
usual interval and two seconds), each run as its first three times and its last, and told as one
:class:`~codec.causes.Heartbeat` (from, until, interval), so that a member heartbeating for hours costs a few
numbers; the other observations are what the story keeps anyway (joins, leaves, errors), at
most :data:`MAX_OBSERVATIONS` per group (the rest counted in :attr:`StoryCauses.dropped`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter, OrderedDict
from typing import Any

from ..causes import (
    CLASSIC,
    Assigned,
    CauseEngine,
    CoordinatorSeen,
    EpochBumped,
    ErrorSeen,
    Formed,
    Heartbeat,
    Joined,
    Left,
    MemberFacts,
    Rebalance,
    Subscribed,
)
from ..causes.detectors import Detectors, Finding
from ..causes.facts import assignment_facts, subscription_facts
from .heartbeatmodel import PROTOCOLS, STREAMS, HeartbeatGroup, field_of
from .storymodel import Generation, holdings

__all__ = ["StoryCauses", "MAX_OBSERVATIONS", "MAX_RUNS"]

MAX_OBSERVATIONS = 1 << 16  # per group
MAX_RUNS = 4096  # runs of heartbeats kept per member (the oldest are dropped beyond)
#: errors of group responses that tell the engine something (coordinator moves, fences, unknown members)
TOLD_ERRORS = {14, 15, 16, 22, 25, 82, 110}
LEAVES = {-1: "heartbeat", -2: "static-leave"}
MAX_PENDING_JOINS = 65536


class _Beats:
    """One member's accepted heartbeats, in runs: each run's first three times and its last."""

    __slots__ = ("runs", "dropped")

    def __init__(self) -> None:
        self.runs: list[list[float]] = []
        self.dropped = 0

    def add(self, ts: float) -> None:
        run = self.runs[-1] if self.runs else None
        if run is not None and ts >= run[-1]:
            gaps = [b - a for a, b in zip(run, run[1:3])]
            usual = max(gaps) if gaps else 0.0
            if ts - run[-1] <= max(3 * usual, 2.0):
                if len(run) < 4:
                    run.append(ts)
                else:
                    run[-1] = ts
                return
        self.runs.append([ts])
        if len(self.runs) > MAX_RUNS:
            del self.runs[0]
            self.dropped += 1

    def told(self, group: str, protocol: str, member: str) -> list[Heartbeat]:
        """Each run as one observation: from its first heartbeat until its last, at most its usual interval
        apart (the largest of its first gaps)."""
        out = []
        for run in self.runs:
            gaps = [b - a for a, b in zip(run, run[1:3])]
            out.append(Heartbeat(run[0], group, protocol, member, until=run[-1], interval=max(gaps) if gaps else None))
        return out


class StoryCauses:
    """See the module docstring."""

    def __init__(self) -> None:
        self.obs: dict[tuple[str, str], list[Any]] = {}  # (group, protocol family) -> observations
        self.beats: dict[tuple[str, str, str], _Beats] = {}  # (group, protocol, member) -> accepted heartbeats
        self.complete: set[tuple[str, int]] = set()  # generations whose leader's JoinGroup response was read
        self.sync_ts: dict[tuple[str, int, str], float] = {}
        self.coordinators: dict[tuple[str, str], str] = {}
        self.joins: OrderedDict[tuple[int, int], tuple[float, MemberFacts | None]] = OrderedDict()
        self.subscriptions: dict[tuple[str, str], MemberFacts] = {}  # the last subscription told per member
        self.epochs: dict[tuple[str, str], dict[int, float]] = {}  # (group, protocol) -> epoch -> first seen
        self.dropped: Counter = Counter()
        self.unread: dict[tuple[str, int], set[str]] = {}  # (group, generation) -> members whose sync was unreadable
        self.conns: dict[int, int] = {}  # id of a Left -> its connection
        self.join_conns: dict[tuple[str, int], list[float]] = {}  # (group, connection) -> its JoinGroups' times

    def _add(self, group: str, protocol: str, obs: Any) -> None:
        key = (group, CLASSIC if protocol == CLASSIC else "kafka4")
        kept = self.obs.setdefault(key, [])
        if len(kept) >= MAX_OBSERVATIONS:
            self.dropped[group] += 1
        else:
            kept.append(obs)

    def _beat(self, ts: float, group: str, protocol: str, member: str) -> None:
        b = self.beats.get((group, protocol, member))
        if b is None:
            b = self.beats[(group, protocol, member)] = _Beats()
        b.add(ts)

    # -- classic frames ---------------------------------------------------------------------------------

    def coordinator(self, ts: float, group: str, broker: str, protocol: str = CLASSIC) -> None:
        """A request of the group went to ``broker``: told when it is the first or another one."""
        if self.coordinators.get((group, protocol)) != broker:
            self.coordinators[(group, protocol)] = broker
            self._add(group, protocol, CoordinatorSeen(ts, group, protocol, broker))

    def left(self, ts: float, group: str, members: list[tuple[str, str | None, str | None]], conn: int = -1) -> None:
        for member, instance, reason in members:
            if member:
                lv = Left(ts, group, CLASSIC, member, "leave-group", reason, instance)
                self._add(group, CLASSIC, lv)
                self.conns[id(lv)] = conn

    def joined(
        self, ts: float, group: str, req: Any, resp: Any, client_id: str | None, where: str = "", conn: int = -1
    ) -> None:
        """A JoinGroup request (sent at ``ts``) and its answer, on connection ``conn``."""
        self.join_conns.setdefault((group, conn), []).append(ts)
        member = resp.member_id or req.member_id
        code = resp.error_code
        if code and code != 79:  # (79 MEMBER_ID_REQUIRED: the first step of a new member's join)
            if code in TOLD_ERRORS:
                self._add(group, CLASSIC, ErrorSeen(ts, group, CLASSIC, member or None, code, "JoinGroup", where))
            return
        if not member:
            return
        protocol = resp.protocol_name if not code else None
        metadata = next((p.metadata for p in req.protocols if p.name == protocol), None)
        if metadata is None and req.protocols:
            metadata = req.protocols[0].metadata
        timeout = getattr(req, "rebalance_timeout_ms", None)
        facts = subscription_facts(
            member,
            metadata,
            instance_id=req.group_instance_id,
            client_id=client_id,
            protocols=tuple(p.name for p in req.protocols) or None,
            session_timeout_ms=req.session_timeout_ms,
            rebalance_timeout_ms=timeout if timeout is not None and timeout >= 0 else None,
        )
        new = not req.member_id
        generation = resp.generation_id if not code and resp.generation_id >= 0 else None
        reason = getattr(req, "reason", None)
        self._add(group, CLASSIC, Joined(ts, group, CLASSIC, member, new, reason, facts, where, generation))
        if not code and resp.members:
            self.complete.add((group, resp.generation_id))

    def heartbeat(self, ts: float, group: str, member: str | None, error: int | None) -> None:
        if not member or error is None:
            return
        if error == 0:
            self._beat(ts, group, CLASSIC, member)
        elif error == 27:
            self._add(group, CLASSIC, Heartbeat(ts, group, CLASSIC, member, 27))
        elif error in TOLD_ERRORS:
            self._add(group, CLASSIC, ErrorSeen(ts, group, CLASSIC, member, error, "Heartbeat"))

    def sync_unread(
        self, ts: float, group: str, generation: int | None, member: str | None, error: int | None = None
    ) -> None:
        """A SyncGroup answer the story could not decode (``error``: its error code where the bytes still say it):
        the member got no assignment from it."""
        self._add(group, CLASSIC, ErrorSeen(ts, group, CLASSIC, member, error, "SyncGroup"))
        if generation is not None and member:
            self.unread.setdefault((group, generation), set()).add(member)

    def synced(self, ts: float, group: str, generation: int | None, member: str | None, error: int | None) -> None:
        if error:
            if error in TOLD_ERRORS:
                self._add(group, CLASSIC, ErrorSeen(ts, group, CLASSIC, member, error, "SyncGroup"))
        elif generation is not None and member:
            key = (group, generation, member)
            self.sync_ts[key] = min(self.sync_ts.get(key, ts), ts)

    def settle_classic(self, group: str, generations: list[Generation]) -> None:
        """Each of the group's settled generations gets its ``rebalance``."""
        obs = self._rejoins(group, _first_steps(list(self.obs.pop((group, CLASSIC), ()))))
        obs += [h for (g, p, m), b in self.beats.items() if g == group and p == CLASSIC for h in b.told(g, p, m)]
        for gen in generations:
            if gen.generation is None:
                continue
            at = gen.formed_ts if gen.formed_ts is not None else gen.first_ts
            members = tuple(
                subscription_facts(
                    m.member_id,
                    m.subscription,
                    instance_id=m.group_instance_id,
                    client_id=m.client_id,
                    host=m.client_host,
                    protocols=m.protocols or None,
                )
                for m in gen.members.values()
            )
            complete = (group, gen.generation) in self.complete
            obs.append(
                Formed(at, group, gen.generation, members, complete, gen.leader, gen.protocol_type, gen.protocol)
            )
            for m in gen.members.values():
                facts = assignment_facts(m.assignment)
                if facts is not None:
                    answered = self.sync_ts.get((group, gen.generation, m.member_id))
                    ts = answered if answered is not None else at
                    obs.append(Assigned(ts, group, gen.generation, m.member_id, facts, answered=answered is not None))
        by_generation = {r.generation: r for r in _run(obs)}
        detectors = Detectors()
        labels = {m.member_id: m.client_id for g in generations for m in g.members.values() if m.client_id}
        prev: Generation | None = None
        for gen in generations:
            if gen.generation is None:
                continue
            r = gen.rebalance = by_generation.get(gen.generation)
            if r is not None:
                r.moved = _moved(prev, gen)
                failed = {e.member for e in gen.events if e.kind == "sync" and e.error_code and e.member}
                r.missed_sync = tuple(sorted(failed | self.unread.get((group, gen.generation), set())))
                gen.findings = detectors.feed(r, labels=labels)
            prev = gen

    def _rejoins(self, group: str, obs: list) -> list:
        """Each LeaveGroup followed by a JoinGroup on the same connection says when (its ``rejoined``)."""
        out = []
        for o in obs:
            if isinstance(o, Left) and id(o) in self.conns and o.ts is not None:
                later = [t for t in self.join_conns.get((group, self.conns[id(o)]), ()) if t > o.ts]
                if later:
                    o = dataclasses.replace(o, rejoined=min(later))
            out.append(o)
        return out

    # -- heartbeat-based groups -------------------------------------------------------------------------

    def hb_request(
        self, ts: float, key: tuple[int, int], api_key: int, client_id: str | None, body: dict, broker: str
    ) -> None:
        protocol = PROTOCOLS[api_key]
        group = field_of(body, "groupId", default="")
        member = field_of(body, "memberId") or None
        epoch = field_of(body, "memberEpoch", default=0)
        self.coordinator(ts, group, broker, protocol)
        facts = _member_facts(protocol, member or "", body, client_id)
        if epoch == 0:
            self.joins[key] = (ts, facts)
            while len(self.joins) > MAX_PENDING_JOINS:
                self.joins.popitem(last=False)
        elif epoch in LEAVES and member:
            self._add(group, protocol, Left(ts, group, protocol, member, LEAVES[epoch]))
        elif member and facts is not None and epoch > 0:
            before = self.subscriptions.get((group, member))
            if before is None or _differs(before, facts):
                self.subscriptions[(group, member)] = facts
                self._add(group, protocol, Subscribed(ts, group, protocol, facts))

    def hb_response(
        self, ts: float, key: tuple[int, int], api_key: int, group: str, requested: str | None, body: dict
    ) -> None:
        protocol = PROTOCOLS[api_key]
        error = field_of(body, "errorCode", default=0)
        member = field_of(body, "memberId") or requested
        epoch = field_of(body, "memberEpoch")
        join = self.joins.pop(key, None)
        if error:
            if error in TOLD_ERRORS:
                self._add(group, protocol, ErrorSeen(ts, group, protocol, member, error, "heartbeat"))
            return
        if not member:
            return
        if join is not None:
            at, facts = join
            facts = (
                MemberFacts(
                    member, **{k: getattr(facts, k) for k in MemberFacts.__dataclass_fields__ if k != "member_id"}
                )
                if facts is not None
                else None
            )
            if facts is not None:
                self.subscriptions[(group, member)] = facts
            self._add(group, protocol, Joined(at, group, protocol, member, True, None, facts))
        self._beat(ts, group, protocol, member)
        if isinstance(epoch, int) and epoch > 0:
            seen = self.epochs.setdefault((group, protocol), {})
            seen[epoch] = min(seen.get(epoch, ts), ts)

    def settle_epochs(self, hg: HeartbeatGroup) -> None:
        """A heartbeat-based group gets its ``epochs``: each member epoch given out, with its causes."""
        group, protocol = hg.group, hg.protocol
        obs = list(self.obs.pop((group, "kafka4"), ()))
        obs += [h for (g, p, m), b in self.beats.items() if g == group and p == protocol for h in b.told(g, p, m)]
        moved: Counter = Counter()
        for m in hg.members.values():
            for step in m.steps:
                if step.epoch is not None and step.epoch > 0:
                    moved[step.epoch] += sum(len(v) for v in step.added.values())
        for epoch, ts in sorted(self.epochs.pop((group, protocol), {}).items()):
            obs.append(EpochBumped(ts, group, protocol, epoch, moved=moved.get(epoch)))
        hg.epoch_causes = _run(obs)
        hg.findings = detect(hg.epoch_causes, {m.member_id: m.client_id for m in hg.members.values() if m.client_id})


def _first_steps(obs: list) -> list:
    """A new member's first JoinGroup (answered MEMBER_ID_REQUIRED, which names no generation) takes the
    generation its next JoinGroup formed."""
    joins = sorted((o for o in obs if isinstance(o, Joined)), key=lambda o: (o.ts is None, o.ts or 0.0))
    nxt: dict[str, int] = {}
    named: dict[int, int] = {}
    for j in reversed(joins):
        if j.generation is not None and j.member:
            nxt[j.member] = j.generation
        elif j.member and j.member in nxt:
            named[id(j)] = nxt[j.member]
    return [dataclasses.replace(o, generation=named[id(o)]) if id(o) in named else o for o in obs]


def detect(rebalances: list[Rebalance], labels: dict[str, str] | None = None) -> list[Finding]:
    """The loop and storm detectors' findings over one group's rebalances, in order."""
    d = Detectors()
    return [f for r in rebalances for f in d.feed(r, labels=labels)]


def _moved(prev: Generation | None, gen: Generation) -> int | None:
    """The partitions or tasks ``gen`` moved from ``prev``, when every member's assignment in both is known."""
    if prev is None or gen.changes is None:
        return None
    if any(holdings(m.assignment) is None for g in (prev, gen) for m in g.members.values()):
        return None
    return sum(len(items) for moves in gen.changes.moved.values() for items in moves.values())


def _run(obs: list) -> list[Rebalance]:
    """Feed one group's observations in time order (at the same time: events, then a generation formed, then its
    assignments); the rebalances that come out."""
    order = {Formed: 1, EpochBumped: 1, Assigned: 2}
    obs.sort(key=lambda o: (o.ts is None, o.ts if o.ts is not None else 0.0, order.get(type(o), 0)))
    engine = CauseEngine()
    out = []
    for o in obs:
        r = engine.feed(o)
        if r is not None:
            out.append(r)
    return out


def _member_facts(protocol: str, member: str, body: dict, client_id: str | None) -> MemberFacts | None:
    """What a heartbeat request says of its member's subscription (KIP-848 sends a field only when it changed:
    None when it carries none of them)."""
    topics = field_of(body, "subscribedTopicNames")
    regex = field_of(body, "subscribedTopicRegex")
    assignor = field_of(body, "serverAssignor")
    topology = field_of(body, "topology")
    instance = field_of(body, "instanceId")
    timeout = field_of(body, "rebalanceTimeoutMs")
    topology_epoch = field_of(topology, "epoch") if protocol == STREAMS else None
    if (
        topics is None
        and regex is None
        and assignor is None
        and topology_epoch is None
        and field_of(body, "memberEpoch") != 0
    ):
        return None
    return MemberFacts(
        member,
        instance_id=instance or None,
        client_id=client_id,
        topics=frozenset(topics) if topics is not None else None,
        regex=regex or None,
        protocols=(assignor,) if assignor else None,
        rebalance_timeout_ms=timeout if isinstance(timeout, int) and timeout >= 0 else None,
        topology_epoch=topology_epoch,
    )


def _differs(before: MemberFacts, now: MemberFacts) -> bool:
    return any(
        getattr(now, f) is not None and getattr(now, f) != getattr(before, f)
        for f in ("topics", "regex", "protocols", "topology_epoch")
    )
