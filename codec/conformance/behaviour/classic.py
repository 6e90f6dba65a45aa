"""The classic group protocol's coordinator, as the scenarios script it (JoinGroup, SyncGroup, Heartbeat,
LeaveGroup, and OffsetCommit's generation check).

It answers as Kafka's coordinator does for one group (``GroupMetadataManager``'s classic paths, and
``ClassicGroup``): a dynamic member's first JoinGroup from v4 on gets MEMBER_ID_REQUIRED with the id it must use
(KIP-394), a static member gets its id at once (KIP-345); a JoinGroup completes a generation, whose leader is the
client (its assignment is taken from its SyncGroup) or, in a scenario that says so, a scripted member whose plan
gives the client its partitions; a Heartbeat, SyncGroup or OffsetCommit of another generation is
ILLEGAL_GENERATION, of an unknown member UNKNOWN_MEMBER_ID, and while a rebalance is under way REBALANCE_IN_PROGRESS;
a member silent for longer than its session timeout is removed. The other members of a group are scripted: they
are in the JoinGroup response a leader gets, with the subscription (and the partitions they own) a scenario gives
them, and they are never late.

A scenario changes the answers through ``fault`` (called first, with every group request: a :class:`Reply` there
is the answer) and drives the group with :meth:`ClassicGroup.begin_rebalance`.
"""

from __future__ import annotations

import base64
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable

from ...errors import DecodeError
from ...group.consumer import (
    ASSIGNMENT,
    SUBSCRIPTION,
    consumer_from_json,
    consumer_json,
    decode_consumer,
    encode_consumer,
)
from .broker import Broker, Reply
from .faults import Faults
from .trace import Request, Trace

__all__ = ["ClassicGroup", "Scripted", "TopicPartition", "decode_assignment", "encode_assignment"]

TopicPartition = tuple[str, int]

NONE = 0
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
ILLEGAL_GENERATION = 22
INCONSISTENT_GROUP_PROTOCOL = 23
UNKNOWN_MEMBER_ID = 25
REBALANCE_IN_PROGRESS = 27
MEMBER_ID_REQUIRED = 79
FENCED_INSTANCE_ID = 82


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _grouped(parts: list[TopicPartition]) -> list[dict]:
    by: dict[str, list[int]] = {}
    for t, p in sorted(parts):
        by.setdefault(t, []).append(p)
    return [{"topic": t, "partitions": ps} for t, ps in by.items()]


def encode_assignment(parts: list[TopicPartition], version: int) -> bytes:
    """A ConsumerProtocolAssignment of ``parts`` at ``version`` (0-3: the same fields)."""
    msg = consumer_from_json(ASSIGNMENT, {"assignedPartitions": _grouped(parts), "userData": None}, version)
    return encode_consumer(msg)


def decode_assignment(raw: bytes) -> list[TopicPartition]:
    """The partitions of a ConsumerProtocolAssignment (raises DecodeError)."""
    value = consumer_json(decode_consumer(ASSIGNMENT, raw))
    return sorted((a["topic"], p) for a in value.get("assignedPartitions", []) for p in a["partitions"])


def encode_subscription(topics: list[str], owned: list[TopicPartition], generation: int, version: int) -> bytes:
    value = {
        "topics": sorted(topics),
        "userData": None,
        "ownedPartitions": _grouped(owned),
        "generationId": generation,
        "rackId": None,
    }
    return encode_consumer(consumer_from_json(SUBSCRIPTION, value, version))


def subscription_of(req: dict) -> tuple[str | None, dict | None, str]:
    """(first protocol's name, its subscription as JSON, why it could not be read)."""
    protocols = req.get("protocols") or []
    if not protocols:
        return None, None, "the JoinGroup names no protocol"
    name, raw = protocols[0]["name"], base64.b64decode(protocols[0]["metadata"])
    try:
        return name, consumer_json(decode_consumer(SUBSCRIPTION, raw)), ""
    except DecodeError as e:
        return name, None, f"the subscription of protocol {name!r} cannot be read: {e}"


def owned_of(subscription: dict | None) -> list[TopicPartition]:
    if not subscription:
        return []
    return sorted((o["topic"], p) for o in subscription.get("ownedPartitions") or [] for p in o["partitions"])


@dataclass
class Scripted:
    """A member the scenario plays: its id, the topics it subscribes to and the partitions it owns."""

    member_id: str
    topics: list[str]
    owned: list[TopicPartition] = field(default_factory=list)
    instance_id: str | None = None


@dataclass
class Member:
    member_id: str
    instance_id: str | None
    session_timeout_ms: int
    last_seen: float
    protocols: list[str] = field(default_factory=list)
    subscription: dict | None = None
    metadata: str = ""  # base64 of the chosen protocol's metadata
    assignment: list[TopicPartition] = field(default_factory=list)
    joined_generation: int = -1


Plan = Callable[[int, list[TopicPartition]], list[TopicPartition]]


class ClassicGroup:
    """One classic consumer group whose one real member is the client under test."""

    def __init__(
        self,
        trace: Trace,
        group_id: str,
        topics: dict[str, int],
        *,
        scripted: list[Scripted] | None = None,
        scripted_leader: bool = False,
        plan: Plan | None = None,
    ) -> None:
        self.trace = trace
        self.group_id = group_id
        self.topics = topics
        self.scripted = scripted or []
        self.scripted_leader = scripted_leader
        self.plan = plan  # (generation, every partition) -> the client's partitions, when a scripted member leads
        self.faults = Faults()  # the errors a script arms (answered first)
        self.generation = 0
        self.protocol: str | None = None
        self.leader: str | None = None
        self.members: dict[str, Member] = {}
        self.pending: set[str] = set()  # ids given with MEMBER_ID_REQUIRED
        self.static: dict[str, str] = {}  # instance id -> member id
        self.rebalancing = False
        self.syncing = False
        self.assignments: dict[int, dict[str, list[TopicPartition]]] = {}  # generation -> member -> partitions
        self.kept: dict[str, list[TopicPartition]] = {}  # instance id -> its last assignment
        self._ids = itertools.count(1)
        self.shrunk = False  # a scenario's switch for its plan

    # --- what a scenario does --------------------------------------------------------------------------------

    def begin_rebalance(self) -> None:
        """A rebalance starts (a member joined or left): heartbeats are answered REBALANCE_IN_PROGRESS until the
        client rejoins."""
        self.rebalancing = True
        self.trace.note("script", detail="the coordinator begins a rebalance")

    def all_partitions(self) -> list[TopicPartition]:
        return [(t, p) for t, n in sorted(self.topics.items()) for p in range(n)]

    def member(self) -> Member | None:
        """The client's current membership (the last one to join)."""
        return next(iter(sorted(self.members.values(), key=lambda m: -m.joined_generation)), None)

    # --- the broker's entry point ----------------------------------------------------------------------------

    def handle(self, broker: Broker, api: str, version: int, req: dict, entry: Request) -> Any:
        if api == "JoinGroup":
            name, sub, why = subscription_of(req)
            entry.extra["protocols"] = [p["name"] for p in req.get("protocols") or []]
            if sub is not None:
                entry.extra["subscription"] = sub
            elif why:
                entry.extra["subscription_error"] = why
        if api in (
            "JoinGroup",
            "SyncGroup",
            "Heartbeat",
            "LeaveGroup",
            "OffsetCommit",
            "FindCoordinator",
            "OffsetFetch",
        ):
            got = self.faults(api, version, req, entry)
            if got is not None and (got.body is not None or got.drop):
                return got
            if got is not None:  # the group's own answer, held back
                normal = self._answer(broker, api, version, req, entry)
                if normal is not None:
                    normal.delay = got.delay
                return normal
        return self._answer(broker, api, version, req, entry)

    def _answer(self, broker: Broker, api: str, version: int, req: dict, entry: Request) -> Any:
        now = entry.t
        if api == "JoinGroup":
            return self._join(version, req, entry, now)
        if api == "SyncGroup":
            return self._sync(version, req, entry, now)
        if api == "Heartbeat":
            return self._heartbeat(req, now)
        if api == "LeaveGroup":
            return self._leave(version, req)
        if api == "OffsetCommit":
            error = self._check(req.get("memberId", ""), req.get("generationIdOrMemberEpoch", -1), now, commit=True)
            return Reply(broker._offset_commit(req, error), error=error)
        if api == "ConsumerGroupHeartbeat":
            return Reply({"errorCode": 35, "errorMessage": "a classic group", "memberEpoch": -1}, error=35)
        return None

    def _expire(self, now: float) -> None:
        for mid, m in list(self.members.items()):
            if now - m.last_seen > m.session_timeout_ms / 1000:
                del self.members[mid]
                self.trace.note("script", detail=f"member {mid} expired: silent for {now - m.last_seen:.2f} s")
                if m.instance_id is not None and self.static.get(m.instance_id) == mid:
                    del self.static[m.instance_id]

    def _check(self, member_id: str, generation: int, now: float, *, commit: bool = False) -> int:
        self._expire(now)
        m = self.members.get(member_id)
        if commit and generation < 0 and not member_id:
            return NONE  # a commit outside the group's generations (a simple consumer)
        if m is None:
            return UNKNOWN_MEMBER_ID
        m.last_seen = now
        if generation != self.generation:
            return ILLEGAL_GENERATION
        if commit:
            # ClassicGroup.validateOffsetCommit: a commit is refused in CompletingRebalance only (in
            # PreparingRebalance an eager member commits from its revocation callback)
            return REBALANCE_IN_PROGRESS if self.syncing else NONE
        # a heartbeat: REBALANCE_IN_PROGRESS in PreparingRebalance (in CompletingRebalance it is fine)
        return REBALANCE_IN_PROGRESS if self.rebalancing else NONE

    def _join(self, version: int, req: dict, entry: Request, now: float) -> Reply:
        self._expire(now)
        if req.get("protocolType") != "consumer":
            return self._join_error(INCONSISTENT_GROUP_PROTOCOL, req)
        member_id = req.get("memberId", "")
        instance = req.get("groupInstanceId")
        if instance is not None:
            old = self.static.get(instance)
            if not member_id or member_id != old:
                # KIP-345: a static member (re)joining with no id, or another, gets a new one; the old one is gone
                if old is not None and member_id and old != member_id:
                    return self._join_error(FENCED_INSTANCE_ID, req)
                if old is not None:
                    self.members.pop(old, None)
                member_id = f"{req.get('groupInstanceId')}-{next(self._ids)}"
                self.static[instance] = member_id
        elif not member_id:
            if version >= 4:
                new = f"{entry.client_id or 'client'}-{next(self._ids)}"
                self.pending.add(new)
                entry.extra["given_id"] = new
                return Reply({**self._join_body(MEMBER_ID_REQUIRED), "memberId": new}, error=MEMBER_ID_REQUIRED)
            member_id = f"{entry.client_id or 'client'}-{next(self._ids)}"
        elif member_id not in self.members and member_id not in self.pending:
            return self._join_error(UNKNOWN_MEMBER_ID, req)
        self.pending.discard(member_id)
        name, sub, _ = subscription_of(req)
        protocols = [p["name"] for p in req.get("protocols") or []]
        metadata = (req.get("protocols") or [{"metadata": ""}])[0]["metadata"]
        if self.protocol is None or self.protocol not in protocols:
            self.protocol = name
        for p in req.get("protocols") or []:
            if p["name"] == self.protocol:
                metadata = p["metadata"]
        m = self.members.get(member_id)
        if m is None:
            m = self.members[member_id] = Member(member_id, instance, req.get("sessionTimeoutMs", 10000), now)
        m.last_seen, m.protocols, m.subscription, m.metadata = now, protocols, sub, metadata
        m.session_timeout_ms = req.get("sessionTimeoutMs", m.session_timeout_ms)
        # a generation with the client alone (besides the scripted members): Kafka would wait for the others
        for other in [k for k in self.members if k != member_id]:
            del self.members[other]
        self.generation += 1
        m.joined_generation = self.generation
        self.rebalancing, self.syncing = False, True
        self.leader = "scripted-leader" if self.scripted_leader else member_id
        self.trace.note("script", detail=f"generation {self.generation}: {member_id} joined, leader {self.leader}")
        body = {
            **self._join_body(NONE),
            "generationId": self.generation,
            "protocolType": "consumer",
            "protocolName": self.protocol,
            "leader": self.leader,
            "skipAssignment": False,
            "memberId": member_id,
            "members": [],
        }
        if self.leader == member_id:
            entry.extra["owners"] = {member_id: [list(tp) for tp in owned_of(sub)]}
            entry.extra["owners"].update({s.member_id: [list(tp) for tp in s.owned] for s in self.scripted})
            version_of = (sub or {}).get("version", 0)
            body["members"] = [{"memberId": member_id, "groupInstanceId": instance, "metadata": metadata}] + [
                {
                    "memberId": s.member_id,
                    "groupInstanceId": s.instance_id,
                    "metadata": _b64(encode_subscription(s.topics, s.owned, self.generation - 1, version_of)),
                }
                for s in self.scripted
            ]
        return Reply(body)

    def _join_body(self, error: int) -> dict:
        return {
            "throttleTimeMs": 0,
            "errorCode": error,
            "generationId": -1,
            "protocolType": None,
            "protocolName": None,
            "leader": "",
            "skipAssignment": False,
            "memberId": "",
            "members": [],
        }

    def _join_error(self, error: int, req: dict) -> Reply:
        return Reply({**self._join_body(error), "memberId": req.get("memberId", "")}, error=error)

    def _sync(self, version: int, req: dict, entry: Request, now: float) -> Reply:
        member_id = req.get("memberId", "")
        error = self._check(member_id, req.get("generationId", -1), now)
        if error:
            return Reply(self._sync_body(error, b""), error=error)
        m = self.members[member_id]
        gen = self.generation
        if self.leader == member_id:
            given: dict[str, list[TopicPartition]] = {}
            for a in req.get("assignments") or []:
                try:
                    given[a["memberId"]] = decode_assignment(base64.b64decode(a["assignment"]))
                except DecodeError as e:
                    entry.extra["assignment_error"] = f"the assignment for {a['memberId']}: {e}"
                    given[a["memberId"]] = []
            entry.extra["assignments"] = {k: [list(tp) for tp in v] for k, v in given.items()}
            self.assignments[gen] = given
            mine = given.get(member_id, [])
            for s in self.scripted:
                s.owned = list(given.get(s.member_id, []))
        else:
            if m.instance_id is not None and m.instance_id in self.kept and self.plan is None:
                mine = self.kept[m.instance_id]
            else:
                mine = self.plan(gen, self.all_partitions()) if self.plan else self.all_partitions()
            self.assignments[gen] = {member_id: mine}
        m.assignment = list(mine)
        if m.instance_id is not None:
            self.kept[m.instance_id] = list(mine)
        self.syncing = False
        sub_version = (m.subscription or {}).get("version", 0)
        entry.extra["given"] = [list(tp) for tp in mine]
        return Reply(self._sync_body(NONE, encode_assignment(mine, min(sub_version, 3))))

    def _sync_body(self, error: int, assignment: bytes) -> dict:
        return {
            "throttleTimeMs": 0,
            "errorCode": error,
            "protocolType": "consumer" if not error else None,
            "protocolName": self.protocol if not error else None,
            "assignment": _b64(assignment),
        }

    def _heartbeat(self, req: dict, now: float) -> Reply:
        error = self._check(req.get("memberId", ""), req.get("generationId", -1), now)
        return Reply({"throttleTimeMs": 0, "errorCode": error}, error=error)

    def _leave(self, version: int, req: dict) -> Reply:
        ids = [m.get("memberId", "") for m in req.get("members") or []] or [req.get("memberId", "")]
        members = []
        for mid in ids:
            m = self.members.pop(mid, None)
            if m is not None:
                self.rebalancing = bool(self.scripted)
            members.append({"memberId": mid, "groupInstanceId": None, "errorCode": NONE if m else UNKNOWN_MEMBER_ID})
        return Reply({"throttleTimeMs": 0, "errorCode": NONE, "members": members})
