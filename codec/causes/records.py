"""``__consumer_offsets`` records to causes: what the coordinator's records can tell.

:class:`RecordCauses` takes the records of ``__consumer_offsets`` in log order -- decoded as
:func:`codec.capture.offsets.decode_record` decodes them (a classic ``GroupMetadataValue``, Kafka 4's group records
as Kafka's JSON), or any object with ``key_schema``, ``key``, ``value`` (None: a tombstone) and ``where`` -- and
gives out each new generation or epoch with its causes as soon as the record that makes it arrives::

    causes = RecordCauses()
    for rec in records:                       # e.g. a live watcher's, as they arrive
        for rebalance in causes.record(rec, ts=rec_timestamp_seconds):
            ...

What records can tell: a classic group's record is a snapshot of a generation (members, their subscriptions and
assignments, the leader, when it formed: ``currentStateTimestamp``), so the causes are what two snapshots differ
by -- members that joined, members gone (confidence ``uncertain``: the records hold no LeaveGroup and no
heartbeat), subscriptions, a static member's new member id, what the previous assignments asked for (a Streams
follow-up, probing deadline or version probe; a Connect revocation or delay). A Kafka 4 group's records say which
member joined (its member metadata), changed its subscription, or was removed (the tombstone of its member
metadata), and when its topics' metadata changed (the metadata hash, 4.1+; the partition metadata record before),
each ahead of the epoch it bumps.
"""

from __future__ import annotations

from typing import Any

from ..group.consumer import ASSIGNMENT, SUBSCRIPTION
from ..group.nested import CONNECT_ASSIGNMENT, CONNECT_METADATA, decode_layer
from .engine import CauseEngine
from .facts import assignment_facts, subscription_facts
from .observe import (
    CLASSIC,
    CONSUMER,
    SHARE,
    STREAMS,
    Assigned,
    Deleted,
    EpochBumped,
    Formed,
    Left,
    MemberFacts,
    MetadataChanged,
    Subscribed,
)
from .vocabulary import Rebalance

__all__ = ["RecordCauses", "group_metadata_observations", "kafka4_observations"]

SOURCE = "__consumer_offsets"


def _get(d: Any, *names: str) -> Any:
    if not isinstance(d, dict):
        return None
    for n in names:
        if n in d:
            return d[n]
    return None


def group_metadata_observations(group: str, value: Any, *, where: str = "", ts: float | None = None) -> list:
    """The observations of one classic group's ``GroupMetadataValue`` (None: its tombstone): the generation it
    snapshots (:class:`Formed`, complete) and each member's assignment. Its time is its ``currentStateTimestamp``
    when it has one (when the group last changed state: the generation's forming), else ``ts``."""
    if value is None:
        return [Deleted(ts, group, CLASSIC, where)]
    state = getattr(value, "current_state_timestamp", -1)
    at = state / 1000.0 if isinstance(state, int) and state > 0 else ts
    connect = value.protocol_type == "connect"
    consumer = value.protocol_type == "consumer"
    members = []
    assigned = []
    for i, m in enumerate(value.members):
        sub = m.subscription
        asg = m.assignment
        if (connect or consumer) and sub:
            layer = CONNECT_METADATA if connect else SUBSCRIPTION
            sub = decode_layer(layer, sub, protocol_name=value.protocol, at=f"members[{i}].subscription")
        if (connect or consumer) and asg:
            layer = CONNECT_ASSIGNMENT if connect else ASSIGNMENT
            asg = decode_layer(layer, asg, protocol_name=value.protocol, at=f"members[{i}].assignment")
        timeout = getattr(m, "rebalance_timeout", -1)
        members.append(
            subscription_facts(
                m.member_id,
                sub,
                instance_id=getattr(m, "group_instance_id", None),
                client_id=m.client_id,
                host=m.client_host,
                session_timeout_ms=m.session_timeout,
                rebalance_timeout_ms=timeout if timeout is not None and timeout >= 0 else None,
            )
        )
        facts = assignment_facts(asg)
        if facts is not None:
            assigned.append(Assigned(at, group, value.generation, m.member_id, facts, where=where))
    formed = Formed(
        at,
        group,
        value.generation,
        tuple(members),
        True,
        value.leader,
        value.protocol_type,
        value.protocol,
        where,
    )
    return [formed, *assigned]


def _protocol(schema: str) -> str:
    return STREAMS if schema.startswith("Streams") else SHARE if schema.startswith("Share") else CONSUMER


class RecordCauses:
    """See the module docstring. ``engine``: the engine to feed (one of its own, sourced ``__consumer_offsets``,
    by default)."""

    def __init__(self, engine: CauseEngine | None = None) -> None:
        self.engine = engine if engine is not None else CauseEngine(source=SOURCE)
        self._hashes: dict[tuple[str, str], int] = {}  # the last metadata hash of each Kafka 4 group
        self._topics: dict[tuple[str, str], dict[str, int | None]] = {}  # its partition metadata: topic -> count

    def record(self, rec: Any, ts: float | None = None) -> list[Rebalance]:
        """One record (see the module docstring); the rebalances it completes."""
        return self.feed(rec.key_schema, rec.key, rec.value, where=getattr(rec, "where", ""), ts=ts)

    def feed(
        self, key_schema: str, key: Any, value: Any, *, where: str = "", ts: float | None = None
    ) -> list[Rebalance]:
        """One record by its parts: ``key_schema`` names it (``GroupMetadataKey``, ``ConsumerGroupMetadataKey``
        ...); offset commits and records this does not read give nothing."""
        if key_schema == "GroupMetadataKey":
            obs = group_metadata_observations(key.group, value, where=where, ts=ts)
            if value is None:
                self.engine.forget(key.group)
                return []
        elif key_schema.startswith(("ConsumerGroup", "StreamsGroup", "ShareGroup")):
            obs = self.kafka4(key_schema.removesuffix("Key"), key, value, where=where, ts=ts)
        else:
            return []
        out = []
        for o in obs:
            r = self.engine.feed(o)
            if r is not None:
                out.append(r)
        if key_schema == "GroupMetadataKey":  # (its assignments are in the same record)
            for r in out:
                r.moved = self.engine.moved(r.group)
        return out

    def kafka4(self, name: str, key: dict, value: dict | None, *, where: str = "", ts: float | None = None) -> list:
        """The observations of one Kafka 4 group record (``name`` without ``Key``: ``ConsumerGroupMetadata``,
        ``StreamsGroupMemberMetadata`` ...)."""
        return kafka4_observations(name, key, value, where=where, ts=ts, hashes=self._hashes, topics=self._topics)


def kafka4_observations(
    name: str,
    key: dict,
    value: dict | None,
    *,
    where: str = "",
    ts: float | None = None,
    hashes: dict | None = None,
    topics: dict | None = None,
) -> list:
    """See :meth:`RecordCauses.kafka4`; ``hashes`` and ``topics`` keep each group's last metadata hash and partition
    metadata between calls."""
    hashes = {} if hashes is None else hashes
    topics = {} if topics is None else topics
    protocol = _protocol(name)
    kind = name.removeprefix("ConsumerGroup").removeprefix("StreamsGroup").removeprefix("ShareGroup")
    group = _get(key, "groupId") or ""
    member = _get(key, "memberId")
    if kind == "Metadata":
        if value is None:
            hashes.pop((group, protocol), None)
            topics.pop((group, protocol), None)
            return [Deleted(ts, group, protocol, where)]
        out: list = []
        new_hash = _get(value, "metadataHash")
        old_hash = hashes.get((group, protocol))
        if new_hash:
            if old_hash and old_hash != new_hash:
                out.append(MetadataChanged(ts, group, protocol, "the hash of its topics' metadata changed", where))
            hashes[(group, protocol)] = new_hash
        epoch = _get(value, "epoch")
        if isinstance(epoch, int):
            out.append(EpochBumped(ts, group, protocol, epoch, where=where))
        return out
    if kind == "PartitionMetadata" and value is not None:
        now = {str(_get(t, "topicName")): _get(t, "numPartitions") for t in _get(value, "topics") or ()}
        before = topics.get((group, protocol))
        topics[(group, protocol)] = now
        if before is None or before == now:
            return []
        changes = [f"{t} created" for t in sorted(set(now) - set(before))]
        changes += [f"{t} deleted" for t in sorted(set(before) - set(now))]
        changes += [
            f"{t} partitions {before[t]} -> {now[t]}" for t in sorted(set(now) & set(before)) if before[t] != now[t]
        ]
        return [MetadataChanged(ts, group, protocol, "topics: " + ", ".join(changes), where)]
    if kind == "MemberMetadata" and member is not None:
        if value is None:
            return [Left(ts, group, protocol, member, "record", where=where)]
        topics_ = _get(value, "subscribedTopicNames")
        assignor = _get(value, "serverAssignor")
        timeout = _get(value, "rebalanceTimeoutMs")
        facts = MemberFacts(
            member,
            instance_id=_get(value, "instanceId") or None,
            client_id=_get(value, "clientId"),
            host=_get(value, "clientHost"),
            topics=frozenset(topics_) if topics_ is not None else None,
            regex=_get(value, "subscribedTopicRegex") or None,
            protocols=(assignor,) if assignor else None,
            rebalance_timeout_ms=timeout if isinstance(timeout, int) and timeout >= 0 else None,
            topology_epoch=_get(value, "topologyEpoch"),
        )
        return [Subscribed(ts, group, protocol, facts, where)]
    return []
