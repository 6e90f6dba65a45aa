"""A plain consumer group under the classic protocol (JoinGroup/SyncGroup), eager or cooperative (KIP-429), for
``simulate`` on a ``"kind": "consumer"`` scenario: :mod:`codec.simulate.consumer` says the model.

What each member sends is what Kafka's Java consumer sends (``ConsumerCoordinator``): JoinGroup with one protocol,
the assignor's name, whose metadata is a ``ConsumerProtocolSubscription`` v3 (the subscribed topics; the
assignor's user data: ``sticky`` its ``StickyAssignorUserData`` v1 of the partitions it was last assigned and that
generation, from its second generation on; ``cooperative-sticky`` its generation as an int32; none for ``range``
and ``roundrobin``; the partitions it owns -- none under eager, which revoked them all in ``onJoinPrepare``; its
generation, -1 before its first; its rack). The leader reads the members' subscriptions from its JoinGroup
response and runs the assignor (:func:`codec.assignor.consumer.assign_consumer`) on them with the topics'
partition counts and racks; its SyncGroup request carries every member's ``ConsumerProtocolAssignment`` v3.
Each member decodes its own from the SyncGroup response and applies it: under cooperative it revokes what it owns
and was not given (and then rejoins at once, ``requestRejoin``), and takes what it did not own.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from ..assignor.consumer import ConsumerGroup, assign_consumer
from ..assignor.consumer.model import TP
from ..assignor.consumer.wire import assignment_bytes, member_from_subscription
from ..causes.vocabulary import FOLLOW_UP, MEMBER_JOINED, SUBSCRIPTION_CHANGED
from ..group import StickyUserData, consumer_subscription, decode_consumer, encode_consumer, encode_sticky_user_data
from ..javaorder import hashmap_order
from ..wire.builder import wire_class
from .consumer_run import MemberRun
from .consumer_scenario import ConsumerScenario
from .truth import EXPIRED, LEFT, rebalance_record
from .wire import (
    CONSUMER_CLIENT,
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

__all__ = ["ClassicRun", "subscription_bytes", "sticky_user_data"]

GROUP = "consumer-app"


def _cls(message: str, struct: str | None = None):
    return wire_class(message, struct or message)


def sticky_user_data(assignor: str, assigned: list[TP] | None, generation: int) -> bytes | None:
    """``subscriptionUserData`` of Kafka's assignors: ``StickyAssignor`` writes its last assignment (grouped by topic
    in a ``HashMap``'s order) and generation once it has one; ``CooperativeStickyAssignor`` its generation (-1 before
    the first); the others nothing."""
    if assignor == "cooperative-sticky":
        return encode_sticky_user_data(StickyUserData("cooperative-sticky", 0, (), generation))
    if assignor != "sticky" or assigned is None:
        return None
    by_topic: dict[str, list[int]] = {}
    for t, p in assigned:
        by_topic.setdefault(t, []).append(p)
    parts = tuple((t, tuple(by_topic[t])) for t in hashmap_order(list(by_topic)))
    return encode_sticky_user_data(StickyUserData("sticky", 1, parts, generation))


def subscription_bytes(topics, user_data: bytes | None, owned: list[TP], generation: int, rack: str | None) -> bytes:
    """A ``ConsumerProtocolSubscription`` v3 as the Java consumer writes it (owned partitions grouped by topic in
    the order the topics first appear; Kafka sorts them, ``assignedPartitionsList``)."""
    Topic = _cls("ConsumerProtocolSubscription", "TopicPartition")
    by_topic: dict[str, list[int]] = {}
    for t, p in sorted(owned):
        by_topic.setdefault(t, []).append(p)
    msg = consumer_subscription(
        3,
        topics=tuple(topics),
        user_data=user_data,
        owned_partitions=tuple(Topic(topic=t, partitions=tuple(ps)) for t, ps in by_topic.items()),
        generation_id=generation,
        rack_id=rack,
    )
    return encode_consumer(msg)


@dataclass
class _Member:
    name: str
    topics: tuple[str, ...]
    rack: str | None
    running: bool = False  # consuming, in the coordinator's group
    member_id: str = ""
    key: str = ""
    incarnation: int = 0
    generation: int = -1
    owned: list[TP] = field(default_factory=list)
    last_assigned: list[TP] | None = None  # StickyAssignor's memberAssignment
    joined_at: float = 0.0
    joined_topics: tuple[str, ...] = ()


class ClassicRun(MemberRun):
    """One run of a consumer scenario under ``eager`` or ``cooperative``."""

    def __init__(self, sc: ConsumerScenario, protocol: str, *, keep_frames: bool, run: str) -> None:
        rec = Recorder(scenario=sc.name, protocol=protocol, run=run, keep=keep_frames, client=CONSUMER_CLIENT)
        super().__init__(sc, protocol, sc.protocol_assignor(protocol), rec)
        self.hb = sc.heartbeat_interval_ms / 1000.0
        self.members = {m.name: _Member(m.name, m.topics, m.rack) for m in sc.members}
        self.generation = 0
        self.leader: str | None = None
        self.join_order: list[str] = []  # the running members, in the order they joined
        self.dead: dict[str, float] = {}  # crashed members the coordinator still counts: member id -> expiry
        self.round_start: float | None = None
        self.round_pending = False
        self.reasons: list[str] = []

    def _new_member(self, m: _Member, t: float) -> None:
        m.incarnation += 1
        m.running = True
        m.member_id = f"consumer-{GROUP}-{m.name}-" + str(
            uuid.uuid5(uuid.NAMESPACE_URL, f"{self.sc.seed}/{self.sc.name}/{m.name}/{m.incarnation}")
        )
        m.key = f"{m.name}#{m.incarnation}"
        m.generation, m.owned, m.last_assigned, m.joined_at = -1, [], None, t
        self.rec.connect(m.key, m.name, f"consumer-{GROUP}-{m.name}", "classic", t)
        self.join_order.append(m.name)

    def run(self) -> float:
        for m in self.members.values():
            if self.specs[m.name].running:
                self._new_member(m, 0.0)
        if self.join_order:
            self._complete(0.0, initial=True)
        return self._loop()

    def _act(self, action: str, args: tuple, t: float) -> None:
        if action == "expire":
            if self.dead.pop(args[1], None) is not None:
                self._trigger(t, f"{args[0]}'s session timed out", (EXPIRED, args[1]))
        elif action == "complete":
            self._complete(t)
        elif action == "rejoin":
            m = self.members[args[0]]
            if m.running and m.member_id == args[1]:
                self._trigger(t, f"{m.name} rejoins ({args[2]})", (FOLLOW_UP, m.member_id))

    def _start(self, m: _Member, t: float) -> None:
        self._new_member(m, t)
        self._trigger(t, f"{m.name} joins", (MEMBER_JOINED, m.member_id))

    def _resubscribe(self, m: _Member, t: float) -> None:
        # subscribe() with other topics: the consumer rejoins (requestRejoinIfNecessary)
        reason = f"{m.name} subscribes to {', '.join(m.topics) or 'nothing'}"
        self._trigger(t, reason, (SUBSCRIPTION_CHANGED, m.member_id))

    def _stop(self, m: _Member, t: float, *, crashed: bool) -> None:
        m.owned, m.running = [], False
        if not crashed:  # close(): onPartitionsRevoked, then LeaveGroup
            cid, _ = self.rec.request(m.key, LEAVE_GROUP, Frames.leave_request(GROUP, m.member_id, "the consumer is being closed"), t)  # fmt: skip
            self.rec.response(m.key, cid, Frames.leave_response(m.member_id), t)
            self.rec.close(m.key, t)
            self.join_order.remove(m.name)
            self._trigger(t, f"{m.name} leaves", (LEFT, m.member_id))
        else:
            times = [at for at in (t - 2 * self.hb, t - self.hb) if at >= m.joined_at]
            self.rec.heartbeats(m.key, GROUP, self.generation, m.member_id, times, 0.0, t)
            self.rec.close(m.key, t)
            self.join_order.remove(m.name)
            self.dead[m.member_id] = t + self.sc.session_timeout_ms / 1000.0
            self._push(self.dead[m.member_id], "expire", m.name, m.member_id)

    def _trigger(self, t: float, reason: str, cause: tuple[str, str]) -> None:
        if self.round_pending:
            self.reasons.append(reason)
            return
        self.round_pending, self.round_start, self.reasons, self.cause = True, t, [reason], cause
        for name in self.join_order:
            m = self.members[name]
            if not m.running:
                continue
            if self.protocol == "eager":  # onJoinPrepare: revoke everything
                self.ledger.give_up(m.name, m.owned, t, revoked=True)
                m.owned = []
            else:  # cooperative: only the partitions of topics no longer subscribed
                gone = [tp for tp in m.owned if tp[0] not in m.topics]
                self.ledger.give_up(m.name, gone, t, revoked=True)
                m.owned = [tp for tp in m.owned if tp[0] in m.topics]
        self._push(t + self.hb, "complete")

    def _complete(self, t: float, *, initial: bool = False) -> None:
        if self.dead:  # the coordinator waits for members it still counts (a crashed one: until its session ends)
            self._push(max(max(self.dead.values()), t), "complete")
            return
        self.round_pending = False
        members = [self.members[n] for n in self.join_order]
        if not members:
            return
        self.generation += 1
        gen = self.generation
        if self.leader not in self.join_order:
            self.leader = members[0].name
        leader = self.members[self.leader]
        start = t if initial or self.round_start is None else self.round_start
        joins = {}
        for m in members:
            metadata = subscription_bytes(
                m.topics, sticky_user_data(self.assignor, m.last_assigned, m.generation), m.owned, m.generation, m.rack
            )
            reason = None if initial else "rebalance: " + self.reasons[0]
            cid, frame = self.rec.request(
                m.key,
                JOIN_GROUP,
                join_request(
                    "consumer",
                    GROUP,
                    m.member_id,
                    ((self.assignor, metadata),),
                    session_ms=self.sc.session_timeout_ms,
                    rebalance_ms=300_000,
                    reason=reason,
                ),
                max(start, m.joined_at),
            )
            m.joined_topics = m.topics
            joins[m.member_id] = (m, cid, frame.body.protocols[0].metadata)
        order = hashmap_order(list(joins))  # the coordinator's HashMap of members
        metadata_of = {mid: joins[mid][2] for mid in order}
        responses = {}
        for mid, (m, cid, _) in joins.items():
            body = join_response(
                "consumer", gen, self.assignor, leader.member_id, mid, metadata_of if m is leader else {}
            )
            responses[mid] = self.rec.response(m.key, cid, body, t)
        # the leader: the subscriptions of its JoinGroup response, the assignor, the SyncGroup assignments
        read = [(x.member_id, x.group_instance_id, bytes(getattr(x.metadata, "raw", x.metadata))) for x in responses[leader.member_id].body.members]  # fmt: skip
        group = ConsumerGroup(
            dict(self.sc.topics),
            tuple(member_from_subscription(*r) for r in read),
            partition_racks=dict(self.sc.partition_racks or {}),
        )
        result = assign_consumer(group, self.assignor)
        encoded = {mid: assignment_bytes(result.members.get(mid, [])) for mid, _, _ in read}
        self.assignments.append({"generation": gen, "group": group, "members": dict(result.members)})
        sync = {}
        for mid, (m, _, _) in joins.items():
            cid, frame = self.rec.request(m.key, SYNC_GROUP, sync_request("consumer", GROUP, gen, mid, self.assignor, encoded if m is leader else {}), t)  # fmt: skip
            if m is leader:
                encoded = {
                    a.member_id: bytes(getattr(a.assignment, "raw", a.assignment)) for a in frame.body.assignments
                }
            sync[mid] = cid
        received: dict[str, list[TP]] = {}
        for mid, (m, _, _) in joins.items():
            frame = self.rec.response(m.key, sync[mid], sync_response("consumer", self.assignor, encoded[mid]), t)
            raw = bytes(getattr(frame.body.assignment, "raw", frame.body.assignment))
            msg = decode_consumer("ConsumerProtocolAssignment", raw)
            received[mid] = [(tp.topic, p) for tp in msg.data.assigned_partitions for p in tp.partitions]
        revoked_by: dict[str, list[TP]] = {}
        for mid, (m, _, _) in joins.items():  # every member takes what it was given ...
            self.ledger.take(m.name, [tp for tp in received[mid] if tp not in m.owned], t)
        for mid, (m, _, _) in joins.items():  # ... and gives up what it was not: a one-step move is owned twice
            given = set(received[mid])
            revoked = [tp for tp in m.owned if tp not in given]
            if revoked:
                self.ledger.give_up(m.name, revoked, t, revoked=True)
                revoked_by[m.name] = revoked
                self._push(t, "rejoin", m.name, m.member_id, "partitions revoked")
            m.owned = list(received[mid])
            m.last_assigned, m.generation = list(received[mid]), gen
            if m.topics != m.joined_topics:
                self._push(t, "rejoin", m.name, m.member_id, "subscription changed")
        if initial:
            return
        self.rebalances.append(
            rebalance_record(
                gen,
                start,
                t,
                self.reasons,
                self.cause,
                self.assignor,
                leader=self.leader,
                members=[m.name for m in members],
                assignments={m.name: [f"{tp[0]}-{tp[1]}" for tp in received[m.member_id]] for m in members},
                revoked={n: [f"{tp[0]}-{tp[1]}" for tp in tps] for n, tps in revoked_by.items()},
            )
        )
