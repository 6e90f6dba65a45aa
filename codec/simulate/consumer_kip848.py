"""A plain consumer group under the consumer group protocol (KIP-848) for ``simulate`` on a ``"kind": "consumer"``
scenario: :mod:`codec.simulate.consumer` says the model.

The coordinator follows Kafka's group coordinator (``GroupMetadataManager.consumerGroupHeartbeat``,
``modern.consumer.CurrentAssignmentBuilder``): a heartbeat that changes the subscriptions (a member joining at
epoch 0, a new ``SubscribedTopicNames``) or a member leaving (epoch -1) or expiring bumps the group epoch; the
next heartbeat (once ``assignment_interval_ms`` has passed since the last one was computed) computes the target
assignment with the server-side assignor (:func:`codec.assignor.consumer.assign_consumer`, each member's current
target as its owned partitions); each member is then reconciled towards its target on its own heartbeats:

* STABLE at an older epoch, or UNRELEASED_PARTITIONS: the partitions it keeps (assigned ∩ target), those it must
  revoke (assigned - target) and those it may take (target - kept - partitions another member still holds);
  something to revoke that the member still reports owning: UNREVOKED_PARTITIONS at its old epoch, told only what
  it keeps; else the target epoch with the kept and takeable partitions, UNRELEASED_PARTITIONS while some are
  still held elsewhere, STABLE otherwise;
* UNREVOKED_PARTITIONS: waits until its heartbeat's ``TopicPartitions`` no longer hold the revoked partitions;
* a partition is held by the member it is assigned to or pending revocation from, until that member reports it
  gone, leaves or expires: it is never given to two members at once.

The response carries the member's assignment (``Assignment``) when it joins, when the request is full and when
what it is assigned changed. The member revokes what it owns and was not given, takes what it was given, and then
acknowledges at once with a heartbeat carrying its owned partitions; otherwise it heartbeats every
``consumer_heartbeat_interval_ms``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from ..assignor.consumer import ConsumerGroup, ConsumerMember, assign_consumer
from ..assignor.consumer.model import TP
from ..assignor.consumer.server import topic_id
from ..causes.vocabulary import MEMBER_JOINED, SUBSCRIPTION_CHANGED
from ..wire.builder import wire_class
from ..wire.registry import api_key
from .consumer_run import MemberRun
from .consumer_scenario import ConsumerScenario
from .truth import EXPIRED, LEFT, rebalance_record
from .wire import CONSUMER_CLIENT, Recorder

__all__ = ["Kip848Run", "CONSUMER_GROUP_HEARTBEAT", "HEARTBEAT_VERSION"]

GROUP = "consumer-app"
CONSUMER_GROUP_HEARTBEAT = api_key("ConsumerGroupHeartbeat")
HEARTBEAT_VERSION = 1
STABLE, UNREVOKED, UNRELEASED = "STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS"
REBALANCE_TIMEOUT_MS = 300_000


def _cls(message: str, struct: str | None = None):
    return wire_class(message, struct or message)


@dataclass
class _Held:
    """The coordinator's record of one member (``ConsumerGroupMember``)."""

    member_id: str
    topics: tuple[str, ...]
    rack: str | None
    epoch: int = 0
    state: str = STABLE
    assigned: set[TP] = field(default_factory=set)
    pending: set[TP] = field(default_factory=set)
    last_heartbeat: float = 0.0


@dataclass
class _Client:
    name: str
    topics: tuple[str, ...]
    rack: str | None
    running: bool = False
    member_id: str = ""
    key: str = ""
    incarnation: int = 0
    epoch: int = 0
    owned: set[TP] = field(default_factory=set)
    sent_owned: frozenset[TP] | None = None
    sent_topics: tuple[str, ...] | None = None
    token: int = 0
    joined_at: float = 0.0
    full: bool = False  # the next heartbeat is a full one (HeartbeatState.reset)


class Kip848Run(MemberRun):
    """One run of a consumer scenario under ``kip848``."""

    def __init__(self, sc: ConsumerScenario, protocol: str, *, keep_frames: bool, run: str) -> None:
        rec = Recorder(
            scenario=sc.name,
            protocol=protocol,
            run=run,
            keep=keep_frames,
            client=CONSUMER_CLIENT,
            versions={CONSUMER_GROUP_HEARTBEAT: HEARTBEAT_VERSION},  # a current Java consumer's
        )
        super().__init__(sc, protocol, sc.server_assignor, rec)
        self.hb = sc.consumer_heartbeat_interval_ms / 1000.0
        self.members = {m.name: _Client(m.name, m.topics, m.rack) for m in sc.members}
        self.ids = {t: topic_id(ConsumerGroup({}, ()), t) for t in sc.topics}
        self.names = {i: t for t, i in self.ids.items()}
        self.held: dict[str, _Held] = {}  # the coordinator's members, in the order they joined
        self.owners: dict[TP, str] = {}  # partition -> the member it is assigned to or pending revocation from
        self.target: dict[str, list[TP]] = {}
        self.group_epoch = self.assignment_epoch = 0
        self.assigned_at = float("-inf")
        self.pending_reasons: list[str] = []
        self.bumped_at: float | None = None
        self.violations: list[str] = []

    # -- the run ------------------------------------------------------------------------------------------

    def run(self) -> float:
        first = [c for c in self.members.values() if self.specs[c.name].running]
        for c in first:  # the stable group at epoch 1: the assignor's placement from nothing
            self._connect(c, 0.0)
            self.held[c.member_id] = _Held(c.member_id, c.topics, c.rack, last_heartbeat=0.0)
        if first:
            self.group_epoch = 1
            self._compute_target(0.0, initial=True)
            for c in first:
                h = self.held[c.member_id]
                h.epoch, h.assigned = 1, set(self.target.get(c.member_id, ()))
                for tp in h.assigned:
                    self.owners[tp] = c.member_id
                c.epoch, c.owned = 1, set(h.assigned)
                c.full = True  # the capture starts here: each member's first heartbeat says all it holds
                self.ledger.take(c.name, sorted(c.owned), 0.0)
                self._schedule(c, 0.0)
        return self._loop()

    def _act(self, action: str, args: tuple, t: float) -> None:
        if action == "heartbeat":
            c = self.members[args[0]]
            if c.running and c.member_id == args[1] and c.token == args[2]:
                self._heartbeat(c, t)
        elif action == "expire":
            gone = self.held.get(args[0])
            if gone is not None and gone.last_heartbeat == args[1]:
                self._remove(gone, t, f"{args[2]}'s session timed out", (EXPIRED, gone.member_id))

    def _connect(self, c: _Client, t: float) -> None:
        c.incarnation += 1
        c.running = True
        c.member_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.sc.seed}/{self.sc.name}/{c.name}/{c.incarnation}"))
        c.key = f"{c.name}#{c.incarnation}"
        c.epoch, c.owned, c.sent_owned, c.sent_topics, c.joined_at = 0, set(), None, None, t
        self.rec.connect(c.key, c.name, f"consumer-{GROUP}-{c.name}", "consumer", t)

    def _schedule(self, c: _Client, t: float) -> None:
        c.token += 1
        self._push(t + self.hb, "heartbeat", c.name, c.member_id, c.token)

    def _start(self, c: _Client, t: float) -> None:
        self._connect(c, t)
        self._heartbeat(c, t)

    def _resubscribe(self, c: _Client, t: float) -> None:
        self._heartbeat(c, t)

    def _stop(self, c: _Client, t: float, *, crashed: bool) -> None:
        c.owned = set()
        if not crashed:
            self._heartbeat(c, t, leaving=True)
        c.running = False
        c.token += 1
        self.rec.close(c.key, t)

    # -- the member's side ----------------------------------------------------------------------------------

    def _heartbeat(self, c: _Client, t: float, *, leaving: bool = False) -> None:
        T = _cls("ConsumerGroupHeartbeatRequest", "TopicPartitions")
        joining = (c.epoch == 0 or c.full) and not leaving
        c.full = False
        owned = frozenset(c.owned)
        send_owned = joining or owned != c.sent_owned
        send_topics = joining or c.topics != c.sent_topics
        by_topic: dict[str, list[int]] = {}
        for tp in sorted(owned):
            by_topic.setdefault(tp[0], []).append(tp[1])
        body = _cls("ConsumerGroupHeartbeatRequest")(
            group_id=GROUP,
            member_id=c.member_id,
            member_epoch=-1 if leaving else c.epoch,
            instance_id=None,
            rack_id=c.rack if joining else None,
            rebalance_timeout_ms=REBALANCE_TIMEOUT_MS if joining else -1,
            subscribed_topic_names=tuple(c.topics) if send_topics and not leaving else None,
            subscribed_topic_regex=None,
            server_assignor=self.assignor if joining else None,
            topic_partitions=tuple(T(topic_id=self.ids[tn], partitions=tuple(ps)) for tn, ps in by_topic.items())
            if send_owned and not leaving
            else None,
        )
        cid, frame = self.rec.request(c.key, CONSUMER_GROUP_HEARTBEAT, body, t)
        if not leaving:
            c.sent_owned = owned if send_owned else c.sent_owned
            c.sent_topics = c.topics if send_topics else c.sent_topics
        response = self._coordinator(frame.body, c.name, t)
        answer = self.rec.response(c.key, cid, response, t).body
        if leaving:
            return
        c.epoch = answer.member_epoch
        self._schedule(c, t)
        if answer.assignment is not None:
            given = {(self.names[x.topic_id], p) for x in answer.assignment.topic_partitions for p in x.partitions}
            revoked, added = c.owned - given, given - c.owned
            if revoked:  # onPartitionsRevoked first, then onPartitionsAssigned
                self.ledger.give_up(c.name, sorted(revoked), t, revoked=True)
            if added:
                self.ledger.take(c.name, sorted(added), t)
            c.owned = given
            if revoked or added:  # acknowledge at once
                self._heartbeat(c, t)

    # -- the coordinator's side -----------------------------------------------------------------------------

    def _coordinator(self, req, name: str, t: float):
        mid, epoch = req.member_id, req.member_epoch
        if epoch == -1:
            h = self.held.get(mid)
            if h is not None:
                self._remove(h, t, f"{name} leaves", (LEFT, mid))
            return self._response(mid, -1, None)
        changed = False
        if epoch == 0 and mid not in self.held:
            h = self.held[mid] = _Held(mid, tuple(req.subscribed_topic_names or ()), req.rack_id)
            changed = True
            self._bump(t, f"{name} joins", (MEMBER_JOINED, mid))
        else:
            h = self.held[mid]
            if req.subscribed_topic_names is not None and set(req.subscribed_topic_names) != set(h.topics):
                h.topics = tuple(req.subscribed_topic_names)
                changed = True
                self._bump(t, f"{name} subscribes to {', '.join(h.topics) or 'nothing'}", (SUBSCRIPTION_CHANGED, mid))
        h.last_heartbeat = t
        self._push(t + self.sc.consumer_session_timeout_ms / 1000.0, "expire", mid, t, name)
        if self.group_epoch > self.assignment_epoch and t >= self.assigned_at + self.sc.assignment_interval_ms / 1000:
            self._compute_target(t)
        owned = None
        if req.topic_partitions is not None:
            owned = {(self.names[x.topic_id], p) for x in req.topic_partitions for p in x.partitions}
        before = set(h.assigned)
        self._reconcile(h, owned, changed)
        full = req.rebalance_timeout_ms != -1 and req.subscribed_topic_names is not None and owned is not None
        send = epoch == 0 or full or h.assigned != before
        return self._response(mid, h.epoch, sorted(h.assigned) if send else None)

    def _response(self, mid: str, epoch: int, assignment: list[TP] | None):
        T = _cls("ConsumerGroupHeartbeatResponse", "TopicPartitions")
        A = _cls("ConsumerGroupHeartbeatResponse", "Assignment")
        value = None
        if assignment is not None:
            by_topic: dict[str, list[int]] = {}
            for tn, p in assignment:
                by_topic.setdefault(tn, []).append(p)
            value = A(
                topic_partitions=tuple(T(topic_id=self.ids[tn], partitions=tuple(ps)) for tn, ps in by_topic.items())
            )
        return _cls("ConsumerGroupHeartbeatResponse")(
            throttle_time_ms=0,
            error_code=0,
            error_message=None,
            member_id=mid,
            member_epoch=epoch,
            heartbeat_interval_ms=self.sc.consumer_heartbeat_interval_ms,
            assignment=value,
        )

    def _bump(self, t: float, reason: str, cause: tuple[str, str]) -> None:
        self.group_epoch += 1
        if self.bumped_at is None:
            self.bumped_at, self.pending_reasons, self.cause = t, [reason], cause
        else:
            self.pending_reasons.append(reason)

    def _remove(self, h: _Held, t: float, reason: str, cause: tuple[str, str]) -> None:
        del self.held[h.member_id]
        self.target.pop(h.member_id, None)
        self._set_holdings(h, set(), set())
        self._bump(t, reason, cause)

    def _set_holdings(self, h: _Held, assigned: set[TP], pending: set[TP]) -> None:
        """``ConsumerGroup.updateMember``'s partition epochs: the old holdings released, the new ones taken."""
        for tp in h.assigned | h.pending:
            if self.owners.get(tp) == h.member_id:
                del self.owners[tp]
        for tp in assigned | pending:
            other = self.owners.get(tp)
            if other is not None and other != h.member_id:  # Kafka throws IllegalStateException here
                self.violations.append(f"{tp[0]}-{tp[1]} given to {h.member_id} while {other} holds it")
            self.owners[tp] = h.member_id
        h.assigned, h.pending = assigned, pending

    def _compute_target(self, t: float, *, initial: bool = False) -> None:
        members = tuple(
            ConsumerMember(mid, topics=h.topics, owned=tuple(self.target.get(mid, ())), rack=h.rack)
            for mid, h in self.held.items()
        )
        group = ConsumerGroup(dict(self.sc.topics), members)
        result = assign_consumer(group, self.assignor)
        self.target = {mid: list(tps) for mid, tps in result.members.items()}
        self.assignment_epoch, self.assigned_at = self.group_epoch, t
        self.assignments.append({"epoch": self.group_epoch, "group": group, "members": dict(result.members)})
        if initial:
            return
        names = {c.member_id: c.name for c in self.members.values()}
        self.rebalances.append(
            rebalance_record(
                self.group_epoch,
                self.bumped_at if self.bumped_at is not None else t,
                t,
                self.pending_reasons,
                self.cause,
                self.assignor,
                members=[names.get(mid, mid) for mid in self.held],
                assignments={names.get(m, m): [f"{x[0]}-{x[1]}" for x in tps] for m, tps in self.target.items()},
            )
        )
        self.bumped_at, self.pending_reasons = None, []

    def _reconcile(self, h: _Held, owned: set[TP] | None, subscription_changed: bool) -> None:
        """``CurrentAssignmentBuilder.build``."""
        if h.state == STABLE:
            if h.epoch != self.assignment_epoch:
                self._next(h, owned)
            elif subscription_changed:
                self._update_current(h, owned)
        elif h.state == UNREVOKED:
            if self._owns(h.pending, owned):
                if subscription_changed:
                    self._update_current(h, owned)
            else:
                self._next(h, owned)
        else:
            self._next(h, owned)

    @staticmethod
    def _owns(pending: set[TP], owned: set[TP] | None) -> bool:
        return owned is None or not pending.isdisjoint(owned)

    def _subscribed(self, h: _Held) -> set[str]:
        return {t for t in h.topics if t in self.sc.topics}

    def _update_current(self, h: _Held, owned: set[TP] | None) -> None:
        subscribed = self._subscribed(h)
        keep = {tp for tp in h.assigned if tp[0] in subscribed}
        if keep == h.assigned:
            return
        pending = h.pending | (h.assigned - keep)
        if pending and self._owns(pending, owned):
            h.state = UNREVOKED
            self._set_holdings(h, keep, pending)
        else:
            self._set_holdings(h, keep, h.pending)

    def _next(self, h: _Held, owned: set[TP] | None) -> None:
        subscribed = self._subscribed(h)
        target = {tp for tp in self.target.get(h.member_id, ()) if tp[0] in subscribed}
        keep = h.assigned & target
        revoke = h.assigned - keep
        take = target - keep
        unreleased = {tp for tp in take if self.owners.get(tp) is not None and tp not in h.pending}
        take -= unreleased
        if revoke and self._owns(revoke, owned):
            h.state = UNREVOKED
            self._set_holdings(h, keep, revoke)
            return
        h.epoch = self.assignment_epoch
        h.state = UNRELEASED if unreleased else STABLE
        self._set_holdings(h, keep | take, set())
