"""Running group state from ``__consumer_offsets`` records, told as each generation or epoch completes.

:class:`Tracker` is fed the topic's records one at a time (key and value bytes, where they were read, their
timestamp), decodes each with the project's codec (:func:`codec.capture.offsets.decode_record`: classic
GroupMetadata with the ConsumerProtocol, Streams and Connect bytes inside, OffsetCommit, and Kafka 4's consumer,
streams and share group records), keeps each group's running state and returns what completed:

* a classic group's :class:`~codec.capture.story.Generation` (the same object, and the same
  ``{"type": "generation", ...}`` JSON, as ``capture`` tells for ``__consumer_offsets`` input), when the
  GroupMetadataValue record that stores it arrives. Kafka's coordinator writes that record once a generation is
  complete: at the leader's SyncGroup with the assignment, or when the group falls empty
  (``GroupMetadataManager.completeClassicGroupJoin`` and ``classicGroupSyncToLeader``). A record whose members all
  have empty assignments (an earlier writer's join snapshot) is held until its assignment arrives, the next
  generation starts, or ``settle`` seconds pass. A record of a generation already told (a static member rejoining
  with a new member id: Kafka stores the same generation again) is a :class:`Notice` ``rewritten``;
* a Kafka 4 group's :class:`Epoch` for each group epoch, when its target assignment is stored (the
  ``*TargetAssignmentMetadata`` record; Kafka writes the members' target records before it, in the same batch), or
  when a later epoch is, or ``settle`` seconds after the epoch record when no target follows (the last member
  left);
* :class:`Notice` s: a group deleted (its tombstone), dropped from tracking (idle past the horizon, or over the cap
  of tracked groups), a generation rewritten;
* :class:`Bad` for a record that cannot be decoded (counted by kind; ``first`` says whether its kind is new).

Memory: what is kept per group is its last told generation (or its members' identities and target assignment for a
Kafka 4 group) and what is held; groups are at most ``max_groups`` (the least recently active is dropped past it)
and a group with no record for ``idle_horizon`` seconds of record time is dropped. Groups that only commit offsets
(consumers that assign themselves partitions) are counted, never tracked.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

from ..capture.events import Event
from ..capture.heartbeat import kafka_uuid, task_items
from ..capture.items import Item, items_json, numbered
from ..capture.offsets import BadRecord, OffsetsRecord, decode_record, member_payloads
from ..capture.story import Changes, Generation, Member, holdings
from ..causes import Assigned, CauseEngine, Formed, Rebalance, RecordCauses
from ..causes.facts import assignment_facts, subscription_facts
from ..errors import DecodeError

__all__ = [
    "Bad",
    "LiveGeneration",
    "DEFAULT_IDLE_HORIZON",
    "DEFAULT_MAX_GROUPS",
    "DEFAULT_SETTLE",
    "Epoch",
    "EpochMember",
    "Notice",
    "Told",
    "Tracker",
    "record_type",
]

DEFAULT_MAX_GROUPS = 10_000  # groups whose rebalances are tracked at once (--max-groups)
DEFAULT_IDLE_HORIZON = 7 * 24 * 3600.0  # seconds of record time without a record before a group is dropped
DEFAULT_SETTLE = 3.0  # seconds a generation or epoch waits for the record that completes it
MAX_BAD_KINDS = 1000  # distinct kinds of undecodable record remembered (all are counted)

_TASKS = (("activeTasks", "active tasks"), ("standbyTasks", "standby tasks"), ("warmupTasks", "warmup tasks"))
_PROTOCOLS = (("ConsumerGroup", "consumer"), ("StreamsGroup", "streams"), ("ShareGroup", "share"))


def record_type(key: bytes | None) -> str:
    """The record type a key names (``OffsetCommit``, ``GroupMetadata``, ``ConsumerGroupMetadata`` ...), from its
    int16 version alone; ``unknown`` when it names none."""
    from ..capture.offsets import RECORD_TYPES

    if key is None or len(key) < 2:
        return "unknown"
    names = RECORD_TYPES.get(int.from_bytes(key[:2], "big", signed=True))
    return "unknown" if names is None else names[0].removesuffix("Key")


# -- what is told ------------------------------------------------------------------------------------


@dataclass(slots=True)
class LiveGeneration(Generation):
    """A classic group's generation as ``capture`` tells it (:class:`~codec.capture.story.Generation`), with the
    cause the cause engine (:mod:`codec.causes`) gave it: its JSON is the ``generation`` record of ``capture
    --json`` with ``cause`` (and ``causes`` when there is more than one)."""

    rebalance: Rebalance | None = None

    def json(self) -> dict:
        out = Generation.json(self)
        if self.rebalance is not None:
            out.update(self.rebalance.cause_json())
        return out


@dataclass(slots=True)
class EpochMember:
    """A member of a Kafka 4 group at an epoch: its identity (from its member metadata record) and its target
    assignment (``target``: kind -> items; ``partitions``, or the Streams task kinds)."""

    member_id: str
    client_id: str | None = None
    instance_id: str | None = None
    client_host: str | None = None
    rack_id: str | None = None
    subscribed_topics: tuple[str, ...] | None = None
    subscribed_regex: str | None = None
    process_id: str | None = None
    target: dict[str, frozenset[Item]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.member_id} ({self.client_id})" if self.client_id else self.member_id

    def json(self) -> dict:
        return {
            "member_id": self.member_id,
            "client_id": self.client_id,
            "instance_id": self.instance_id,
            "client_host": self.client_host,
            "rack_id": self.rack_id,
            "subscribed_topic_names": None if self.subscribed_topics is None else list(self.subscribed_topics),
            "subscribed_topic_regex": self.subscribed_regex,
            "process_id": self.process_id,
            "target": {k: items_json(v) for k, v in self.target.items()},
        }


@dataclass(slots=True)
class Epoch:
    """One group epoch of a Kafka 4 group (``protocol`` ``consumer``, ``streams`` or ``share``): its members and
    their target assignment (``assignment_epoch`` the epoch the target was computed at; None when no target was
    stored for it), the record that began it (``where``, ``ts``) and what changed from the epoch told before it
    (``changes``: members joined and left, items whose target owner changed)."""

    group: str
    protocol: str
    epoch: int
    assignment_epoch: int | None
    where: str
    ts: float | None
    members: dict[str, EpochMember]
    changes: Changes | None = None
    source: str = "__consumer_offsets"
    rebalance: Rebalance | None = None

    def json(self) -> dict:
        return {
            "type": "epoch",
            "group": self.group,
            "protocol": self.protocol,
            "epoch": self.epoch,
            "assignment_epoch": self.assignment_epoch,
            "source": self.source,
            "where": self.where,
            "ts": self.ts,
            "members": [m.json() for m in self.members.values()],
            "changes": None if self.changes is None else self.changes.json(),
            **(self.rebalance.cause_json() if self.rebalance is not None else {}),
        }


@dataclass(frozen=True, slots=True)
class Notice:
    """Something said about a group that is no rebalance: ``kind`` ``deleted`` (its tombstone), ``dropped`` (no
    longer tracked: ``detail`` says why), ``rewritten`` (a told generation stored again), ``anomaly``."""

    kind: str
    group: str
    detail: str
    where: str | None = None
    ts: float | None = None

    def json(self) -> dict:
        return {
            "type": "notice",
            "kind": self.kind,
            "group": self.group,
            "detail": self.detail,
            "where": self.where,
            "ts": self.ts,
        }


@dataclass(frozen=True, slots=True)
class Bad:
    """A record that could not be decoded: where, why, and whether it is the first of its kind."""

    where: str
    error: DecodeError
    kind: str
    first: bool

    def json(self) -> dict:
        return {
            "type": "bad-record",
            "where": self.where,
            "kind": self.kind,
            "error": str(self.error),
            "first_of_kind": self.first,
        }


Told = LiveGeneration | Epoch | Notice | Bad


# -- the changes between two told states --------------------------------------------------------------


@dataclass(slots=True)
class _Snap:
    """What the next generation's or epoch's changes are computed against: who was there, who held what."""

    number: int | None
    members: dict[str, str]  # member id -> label
    owners: dict[str, dict[Item, str]]  # kind -> item -> member label


def _owners(held: dict[str, dict[str, Any]]) -> dict[str, dict[Item, str]]:
    """kind -> item -> owner label, from label -> kind -> items."""
    owners: dict[str, dict[Item, str]] = {}
    for label, kinds in held.items():
        for kind, items in kinds.items():
            d = owners.setdefault(kind, {})
            for item in items:
                d[item] = label
    return owners


def _changes(prev: _Snap | None, now: _Snap) -> Changes | None:
    if prev is None:
        return None
    moved: dict[str, dict[tuple[str | None, str | None], list[Item]]] = {}
    for kind in sorted(set(prev.owners) | set(now.owners)):
        a, b = prev.owners.get(kind, {}), now.owners.get(kind, {})
        moves: dict[tuple[str | None, str | None], list[Item]] = {}
        for item in sorted(set(a) | set(b), key=lambda i: (i[0], -1 if i[1] is None else i[1])):
            if a.get(item) != b.get(item):
                moves.setdefault((a.get(item), b.get(item)), []).append(item)
        if moves:
            moved[kind] = dict(sorted(moves.items(), key=lambda kv: (kv[0][0] or "", kv[0][1] or "")))
    return Changes(
        prev.number,
        sorted(now.members[m] for m in now.members.keys() - prev.members.keys()),
        sorted(prev.members[m] for m in prev.members.keys() - now.members.keys()),
        moved,
    )


def _generation_snap(gen: Generation) -> _Snap:
    held = {m.label: holdings(m.assignment) or {} for m in gen.members.values()}
    return _Snap(gen.generation, {m.member_id: m.label for m in gen.members.values()}, _owners(held))


# -- per group ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Classic:
    """A classic group: its last told generation, and one held back for its assignment."""

    name: str
    last_seen: float | None = None
    told: int | None = None  # the last told generation: its number and its members' instance ids (no payloads)
    told_members: dict[str, str | None] = field(default_factory=dict)
    snap: _Snap | None = None
    held: LiveGeneration | None = None
    held_since: float = 0.0
    commits: int = 0


@dataclass(slots=True)
class _Pending:
    """A Kafka 4 group epoch waiting for its target assignment: who was a member when it began."""

    epoch: int
    where: str
    ts: float | None
    members: dict[str, EpochMember]  # member id -> its identity then (without target)
    since: float


@dataclass(slots=True)
class _Kafka4:
    """A Kafka 4 group: its members now (identity, target), the epochs not yet told, and the last told epoch."""

    name: str
    protocol: str
    last_seen: float | None = None
    members: dict[str, EpochMember] = field(default_factory=dict)
    pending: list[_Pending] = field(default_factory=list)
    epoch: int | None = None
    assignment_epoch: int | None = None
    snap: _Snap | None = None
    commits: int = 0


_Group = _Classic | _Kafka4


# -- the tracker --------------------------------------------------------------------------------------


class Tracker:
    """Feed it records (:meth:`feed`); call :meth:`tick` now and then (held generations and epochs settle, idle
    groups are dropped) and :meth:`flush` at the end (everything held is told). ``only``: a group id filter
    (``--group``); ``clock``: wall time for ``settle`` (record time is the records' own timestamps)."""

    def __init__(
        self,
        *,
        only: Callable[[str], bool] | None = None,
        max_groups: int = DEFAULT_MAX_GROUPS,
        idle_horizon: float = DEFAULT_IDLE_HORIZON,
        settle: float = DEFAULT_SETTLE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.only = only
        self.max_groups = max_groups
        self.idle_horizon = idle_horizon
        self.settle = settle
        self.clock = clock
        self.groups: OrderedDict[str, _Group] = OrderedDict()  # least recently active first
        self.topic_names: dict[str, str] = {}  # Kafka short uuid -> topic name, from partition metadata records
        self.read: Counter[str] = Counter()  # record type -> records read
        self.decoded: Counter[str] = Counter()  # record type -> records decoded
        self.bad = 0
        self.bad_kinds: set[str] = set()
        self.filtered = 0  # records of groups --group leaves out
        self.commits: Counter[str] = Counter()  # offset commits by group are counted in total only
        self.offset_commits = 0
        self.dropped: Counter[str] = Counter()  # reason -> groups dropped
        self.now: float | None = None  # record time: the latest record timestamp seen (seconds)
        # the cause engine, fed the same records; its rebalances wait here for the generation or epoch they explain
        self.causes = RecordCauses(CauseEngine(source="__consumer_offsets", max_groups=max_groups))
        self._rebalances: dict[tuple[str, str, int], Rebalance] = {}

    # -- feeding ----------------------------------------------------------------------------------------

    def feed(self, key: bytes | None, value: bytes | None, where: str, ts: float | None = None) -> list[Told]:
        """One record (``value`` None: a tombstone) read at ``where`` with timestamp ``ts`` (seconds)."""
        rtype = record_type(key)
        self.read[rtype] += 1
        if ts is not None and (self.now is None or ts > self.now):
            self.now = ts
        rec = decode_record(key, value, where)
        if isinstance(rec, BadRecord):
            return [self._bad(rec)]
        self.decoded[rtype] += 1
        return self._record(rec, ts)

    def _bad(self, rec: BadRecord) -> Bad:
        self.bad += 1
        e = rec.error
        kind = f"{e.message or 'record'} v{e.version}: {e.reason}" if e.version is not None else str(e)
        kind = kind.split(" at byte ")[0][:200]
        first = kind not in self.bad_kinds
        if first and len(self.bad_kinds) < MAX_BAD_KINDS:
            self.bad_kinds.add(kind)
        return Bad(rec.where, e, kind, first)

    def _record(self, rec: OffsetsRecord, ts: float | None) -> list[Told]:
        if isinstance(rec.key, dict):
            name = rec.key.get("groupId")
            if not isinstance(name, str):
                return []
        else:
            name = rec.key.group
        if self.only is not None and not self.only(name):
            self.filtered += 1
            return []
        if rec.key_schema == "OffsetCommitKey":
            self.offset_commits += 1
            g = self.groups.get(name)
            if g is not None:
                g.commits += 1
                self._touch(g, ts)
            return []
        if isinstance(rec.key, dict) or rec.tombstone:  # (a classic generation's: from its decoded members below)
            for r in self.causes.record(rec, ts=ts):
                self._keep(r)
        out: list[Told] = []
        if isinstance(rec.key, dict):
            self._kafka4(name, rec, ts, out)
        else:
            self._classic(name, rec, ts, out)
        return out

    def _keep(self, r: Rebalance) -> None:
        self._rebalances[(r.group, "classic" if r.generation is not None else "kafka4", r.number)] = r

    def _observe(self, gen: LiveGeneration, rec: OffsetsRecord, ts: float | None) -> None:
        """The cause engine told of a classic generation's record: what ``RecordCauses`` reads of it
        (:func:`codec.causes.records.group_metadata_observations`), from the members' payloads decoded once."""
        v = rec.value
        state = getattr(v, "current_state_timestamp", -1)
        at = state / 1000.0 if isinstance(state, int) and state > 0 else ts
        members, assigned = [], []
        for m in v.members:
            told = gen.members[m.member_id]
            timeout = getattr(m, "rebalance_timeout", -1)
            members.append(
                subscription_facts(
                    m.member_id,
                    told.subscription,
                    instance_id=told.group_instance_id,
                    client_id=m.client_id,
                    host=m.client_host,
                    session_timeout_ms=m.session_timeout,
                    rebalance_timeout_ms=timeout if timeout is not None and timeout >= 0 else None,
                )
            )
            facts = assignment_facts(told.assignment)
            if facts is not None:
                assigned.append(Assigned(at, gen.group, v.generation, m.member_id, facts, where=rec.where))
        engine = self.causes.engine
        formed = Formed(
            at, gen.group, v.generation, tuple(members), True, v.leader, v.protocol_type, v.protocol, rec.where
        )
        observations: list[Formed | Assigned] = [formed, *assigned]
        for obs in observations:
            r = engine.feed(obs)
            if r is not None:
                self._keep(r)

    def _rebalance(self, group: str, family: str, number: int | None) -> Rebalance | None:
        """The cause engine's rebalance for a generation or epoch being told (and those of earlier ones, gone)."""
        if number is None:
            return None
        for key in [k for k in self._rebalances if k[0] == group and k[1] == family and k[2] < number]:
            del self._rebalances[key]
        return self._rebalances.pop((group, family, number), None)

    def _forget(self, group: str) -> None:
        self.causes.engine.forget(group)
        for key in [k for k in self._rebalances if k[0] == group]:
            del self._rebalances[key]

    def _touch(self, g: _Group, ts: float | None) -> None:
        self.groups.move_to_end(g.name)
        if ts is not None:
            g.last_seen = ts

    def _new(self, g: _Group, out: list[Told]) -> None:
        """A group starts being tracked; the least recently active one goes past the cap."""
        self.groups[g.name] = g
        while len(self.groups) > self.max_groups:
            old = next(iter(self.groups.values()))
            out.extend(self._drop(old, "over-cap", f"more than {self.max_groups:,} groups tracked (--max-groups)"))

    def _drop(self, g: _Group, reason: str, detail: str) -> list[Told]:
        out = self._settle_group(g, force=True)
        del self.groups[g.name]
        self._forget(g.name)
        self.dropped[reason] += 1
        out.append(Notice("dropped", g.name, f"no longer tracked: {detail}"))
        return out

    # -- classic groups ---------------------------------------------------------------------------------

    def _classic(self, name: str, rec: OffsetsRecord, ts: float | None, out: list[Told]) -> None:
        g = self.groups.get(name)
        if rec.tombstone:
            if g is not None and isinstance(g, _Classic):
                out.extend(self._settle_group(g, force=True))
                del self.groups[name]
                self._forget(name)
                out.append(Notice("deleted", name, "the group's metadata was deleted (tombstone)", rec.where, ts))
            return
        if not isinstance(g, _Classic):
            if g is not None:  # a Kafka 4 group's id now used by a classic group (a downgrade or a migration)
                out.extend(self._settle_group(g, force=True))
                del self.groups[name]
            g = _Classic(name)
            self._new(g, out)
        self._touch(g, ts)
        gen = _generation(name, rec, ts)
        self._observe(gen, rec, ts)
        if g.held is not None and g.held.generation != gen.generation:
            out.append(self._tell(g, g.held))
            g.held = None
        if g.told is not None and gen.generation == g.told:
            out.append(self._rewritten(g, gen, rec.where, ts))
            return
        if gen.members and not any(_assigned(m) for m in gen.members.values()):
            g.held, g.held_since = gen, self.clock()
            return
        g.held = None
        out.append(self._tell(g, gen))

    def _tell(self, g: _Classic, gen: LiveGeneration) -> LiveGeneration:
        gen.rebalance = self._rebalance(g.name, "classic", gen.generation)
        snap = _generation_snap(gen)
        gen.changes = _changes(g.snap, snap)
        if g.told is not None and gen.generation is not None and gen.generation < g.told:
            gen.events.append(Event(gen.first_ts, "anomaly", None, None, f"generation went back from {g.told}"))
        g.told, g.snap = gen.generation, snap
        g.told_members = {mid: m.group_instance_id for mid, m in gen.members.items()}
        return gen

    def _rewritten(self, g: _Classic, gen: LiveGeneration, where: str, ts: float | None) -> Notice:
        """A told generation stored again: who was replaced (a static member's new member id) or what changed."""
        before, after = g.told_members, gen.members
        gone = [m for m in before if m not in after]
        new = [m for m in after if m not in before]
        by_instance = {iid: mid for mid, iid in before.items() if iid}
        parts = []
        for mid in new:
            instance = after[mid].group_instance_id
            old = by_instance.get(instance) if instance else None
            if old is not None and old in gone:
                parts.append(f"static member {instance} rejoined as {mid} (was {old})")
                gone.remove(old)
            else:
                parts.append(f"member {mid} added")
        parts += [f"member {mid} removed" for mid in gone]
        if not parts:
            parts = ["stored again"]
        self._rebalance(g.name, "classic", gen.generation)  # (the engine's word on a generation already told)
        if any(_assigned(m) for m in gen.members.values()):  # (a join snapshot: who holds what is as it was)
            g.snap = _generation_snap(gen)
        else:
            g.snap = _Snap(
                gen.generation, {m.member_id: m.label for m in gen.members.values()}, g.snap.owners if g.snap else {}
            )
        g.told_members = {mid: m.group_instance_id for mid, m in gen.members.items()}
        return Notice("rewritten", g.name, f"generation {gen.generation}: " + "; ".join(parts), where, ts)

    # -- Kafka 4 groups ---------------------------------------------------------------------------------

    def _kafka4(self, name: str, rec: OffsetsRecord, ts: float | None, out: list[Told]) -> None:
        record = rec.key_schema.removesuffix("Key")
        protocol, kind = "consumer", record
        for prefix, proto in _PROTOCOLS:
            if record.startswith(prefix):
                protocol, kind = proto, record.removeprefix(prefix)
                break
        v = rec.value
        if kind in ("PartitionMetadata", "StatePartitionMetadata"):  # topic names only
            for field_name in ("topics", "initializingTopics", "initializedTopics"):
                for t in (v or {}).get(field_name) or ():
                    tid, tname = t.get("topicId"), t.get("topicName")
                    if tid is not None and isinstance(tname, str):
                        self.topic_names[kafka_uuid(tid)] = tname
            return
        g = self.groups.get(name)
        if rec.tombstone and kind == "Metadata":
            if g is not None and isinstance(g, _Kafka4):
                out.extend(self._settle_group(g, force=True))
                del self.groups[name]
                self._forget(name)
                out.append(Notice("deleted", name, f"the {protocol} group was deleted (tombstone)", rec.where, ts))
            return
        if not isinstance(g, _Kafka4) or g.protocol != protocol:
            if rec.tombstone:
                return  # a tombstone of a member of a group not tracked (or already dropped)
            if g is not None:
                out.extend(self._settle_group(g, force=True))
                del self.groups[name]
            g = _Kafka4(name, protocol)
            self._new(g, out)
        self._touch(g, ts)
        member_id = (rec.key or {}).get("memberId")
        if kind == "Metadata":
            epoch = v.get("epoch")
            if isinstance(epoch, int) and epoch != g.epoch:
                g.epoch = epoch
                was = {mid: dataclasses.replace(m, target={}) for mid, m in g.members.items()}
                g.pending.append(_Pending(epoch, rec.where, ts, was, self.clock()))
                if not was:  # no member: no target assignment will follow
                    out.extend(self._settle_epochs(g, target=None, upto=None))
        elif kind == "MemberMetadata" and isinstance(member_id, str):
            if rec.tombstone:
                g.members.pop(member_id, None)
            else:
                m = g.members.get(member_id) or EpochMember(member_id)
                g.members[member_id] = m
                m.client_id, m.instance_id = v.get("clientId"), v.get("instanceId")
                m.client_host, m.rack_id = v.get("clientHost"), v.get("rackId")
                topics = v.get("subscribedTopicNames")
                m.subscribed_topics = tuple(topics) if topics is not None else None
                m.subscribed_regex, m.process_id = v.get("subscribedTopicRegex"), v.get("processId")
        elif kind == "TargetAssignmentMember" and isinstance(member_id, str):
            had = g.members.get(member_id)
            if had is not None:
                had.target = {} if rec.tombstone else self._holdings(protocol, v)
            elif not rec.tombstone:  # a target for a member whose metadata record is not (yet) seen
                g.members[member_id] = EpochMember(member_id, target=self._holdings(protocol, v))
        elif kind == "TargetAssignmentMetadata" and not rec.tombstone:
            epoch = v.get("assignmentEpoch")
            if isinstance(epoch, int):
                g.assignment_epoch = epoch
                out.extend(self._settle_epochs(g, target=epoch, upto=epoch))

    def _holdings(self, protocol: str, v: dict) -> dict[str, frozenset[Item]]:
        if protocol == "streams":
            return {kind: task_items(v.get(name)) for name, kind in _TASKS if v.get(name)}
        out: set[Item] = set()
        for t in v.get("topicPartitions") or ():
            tid = kafka_uuid(t.get("topicId"))
            out.update(numbered(self.topic_names.get(tid, tid), t.get("partitions") or ()))
        return {"partitions": frozenset(out)}

    def _settle_epochs(self, g: _Kafka4, *, target: int | None, upto: int | None) -> list[Told]:
        """Tell the pending epochs up to ``upto`` (every one when None); the one that is ``target`` (the epoch
        whose target assignment was just stored) with the members' targets, the others with their membership."""
        out: list[Told] = []
        while g.pending and (upto is None or g.pending[0].epoch <= upto):
            p = g.pending.pop(0)
            out.append(self._tell_epoch(g, p, p.epoch == target))
        return out

    def _tell_epoch(self, g: _Kafka4, p: _Pending, with_target: bool) -> Epoch:
        members = {}
        for mid, was in p.members.items():
            m = g.members.get(mid, was)  # (a member gone since the epoch began: as it was)
            members[mid] = dataclasses.replace(m, target=dict(m.target) if with_target else {})
        labels = {mid: m.label for mid, m in members.items()}
        if with_target:
            snap = _Snap(p.epoch, labels, _owners({m.label: m.target for m in members.values()}))
        else:  # no target for this epoch: items stay with their owners of the epoch told before
            snap = _Snap(p.epoch, labels, g.snap.owners if g.snap is not None else {})
        changes = _changes(g.snap, snap)
        g.snap = snap
        assignment = g.assignment_epoch if with_target else None
        rebalance = self._rebalance(g.name, "kafka4", p.epoch)
        return Epoch(g.name, g.protocol, p.epoch, assignment, p.where, p.ts, members, changes, rebalance=rebalance)

    # -- settling ---------------------------------------------------------------------------------------

    def _settle_group(self, g: _Group, *, force: bool) -> list[Told]:
        now = self.clock()
        if isinstance(g, _Classic):
            if g.held is not None and (force or now - g.held_since >= self.settle):
                gen, g.held = g.held, None
                return [self._tell(g, gen)]
            return []
        if g.pending and (force or now - g.pending[0].since >= self.settle):
            return self._settle_epochs(g, target=None, upto=None)
        return []

    def tick(self) -> list[Told]:
        """What settled since: held generations and pending epochs past ``settle``; groups idle past the horizon
        (of record time) dropped."""
        out: list[Told] = []
        for g in list(self.groups.values()):
            out.extend(self._settle_group(g, force=False))
        if self.now is not None:
            while self.groups:
                g = next(iter(self.groups.values()))
                if g.last_seen is None or self.now - g.last_seen <= self.idle_horizon:
                    break
                out.extend(
                    self._drop(g, "idle", f"no record for more than {self.idle_horizon:,.0f} s (--idle-horizon)")
                )
        return out

    def flush(self) -> list[Told]:
        """Everything held, told now (at the end of the input or on shutdown)."""
        out: list[Told] = []
        for g in list(self.groups.values()):
            out.extend(self._settle_group(g, force=True))
        return out


def _assigned(m: Member) -> bool:
    a = m.assignment
    return a is not None and len(getattr(a, "raw", a)) > 0


def _generation(name: str, rec: OffsetsRecord, ts: float | None) -> LiveGeneration:
    """The generation a GroupMetadataValue record stores, its members' bytes decoded (as ``capture`` does)."""
    v = rec.value
    gen = LiveGeneration(name, v.generation, "__consumer_offsets")
    gen.joined = True
    gen.protocol_type, gen.protocol, gen.leader = v.protocol_type, v.protocol, v.leader
    gen.state_timestamp = getattr(v, "current_state_timestamp", None)
    gen.touch(ts)
    payloads = {p.member_id: p for p in member_payloads(v)}
    for m in v.members:
        p = payloads[m.member_id]
        gen.members[m.member_id] = Member(
            m.member_id,
            m.client_id,
            getattr(m, "group_instance_id", None),
            m.client_host,
            (v.protocol,) if v.protocol else (),
            p.subscription,
            p.assignment,
            "__consumer_offsets",
        )
    gen.members = dict(sorted(gen.members.items(), key=lambda kv: (kv[1].label, kv[0])))
    return gen
