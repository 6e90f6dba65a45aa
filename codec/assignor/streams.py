"""The Kafka Streams leader over real bytes: ConsumerProtocol subscriptions in, assignments out.

This is ``StreamsPartitionAssignor.assign`` around the pure pipeline of :mod:`codec.assignor.leader`
(wire-facts §9) and the version rules of §5, with the error cases of §4:

1. Decode every member's ConsumerProtocol subscription and its SubscriptionInfo (as a reader whose newest
   version is ``latest``). A member newer than that is a *future* member; all of them form one synthetic
   client (``FUTURE_ID``), known only by their owned partitions.
2. ``minReceived`` / ``minSupported`` over the group; a future member with ``minReceived < 3`` is an
   ASSIGNMENT_ERROR, any subscription carrying error code 4 a SHUTDOWN_REQUESTED: both go to every member
   as an error assignment at ``latest`` with empty tasks (E14).
3. Otherwise run the assignor, and give each member an AssignmentInfo at ``minReceived`` (common version
   ``minSupported``): its active tasks positionally for its partitions sorted by (topic, partition), its
   standbys with their source partitions, the host maps of every client with an endpoint (when the
   version has them), and ``nextScheduledRebalanceMs``: 0 for a member whose task was withheld for
   cooperative revocation, now + ``probing.rebalance.interval.ms`` on the member carrying the leader's
   probing deadline, otherwise none.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Mapping

from ..errors import DecodeError
from ..group import consumer_assignment, decode_consumer, encode_consumer
from ..streams import (
    EARLIEST_PROBEABLE_VERSION,
    LATEST_SUPPORTED_VERSION,
    NO_REBALANCE,
    AssignmentInfo,
    AssignorError,
    SubscriptionInfo,
    decode_subscription,
    encode_assignment,
)
from ..types import HostInfo, TaskId, TopicPartition
from ..wire.builder import wire_class
from .leader import GroupAssignment, Member, Topology, assign_group
from .model import AssignmentConfigs

__all__ = [
    "FUTURE_ID",
    "DecodedMember",
    "LeaderResult",
    "decode_member",
    "streams_leader_assign",
    "assignment_bytes",
    "parse_endpoint",
]

#: Kafka draws FUTURE_ID at random once per JVM; a fixed id keeps our runs reproducible.
FUTURE_ID = uuid.UUID("ffffffff-ffff-ffff-ffff-ffffffffffff")


@dataclass(frozen=True)
class DecodedMember:
    member_id: str
    subscription: SubscriptionInfo | None  # None when it could not be decoded
    owned_partitions: tuple[TopicPartition, ...]
    topics: tuple[str, ...]
    error: str | None = None


def parse_endpoint(endpoint: str | None) -> HostInfo | None:
    """The leader's parse of ``userEndPoint`` (``host:port``, IPv6 in brackets), §2."""
    if not endpoint:
        return None
    host, sep, port = endpoint.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return HostInfo(host.strip("[]"), int(port))


def decode_member(member_id: str, metadata: bytes, *, latest: int = LATEST_SUPPORTED_VERSION) -> DecodedMember:
    """One JoinGroup member: ConsumerProtocol subscription, then its SubscriptionInfo."""
    try:
        cps = decode_consumer("ConsumerProtocolSubscription", metadata)
    except DecodeError as e:
        return DecodedMember(member_id, None, (), (), f"ConsumerProtocol subscription: {e}")
    owned = tuple(TopicPartition(o.topic, p) for o in cps.data.owned_partitions for p in o.partitions)
    try:
        info = decode_subscription(cps.data.user_data or b"", latest=latest)
    except DecodeError as e:
        return DecodedMember(member_id, None, owned, tuple(cps.data.topics), f"SubscriptionInfo: {e}")
    return DecodedMember(member_id, info, owned, tuple(cps.data.topics))


@dataclass(frozen=True)
class LeaderResult:
    """The leader's answer: each member's ConsumerProtocol assignment bytes and what went into them."""

    assignments: Mapping[str, bytes]
    infos: Mapping[str, AssignmentInfo]
    version: int
    commonly_supported_version: int
    error_code: int
    future_members: tuple[str, ...]
    group: GroupAssignment | None = None
    notes: tuple[str, ...] = field(default=())


def assignment_bytes(partitions: list[TopicPartition], info: AssignmentInfo) -> bytes:
    """A ConsumerProtocol assignment (v3, as the Java consumer writes it): partitions grouped by topic in
    first-seen order, and the AssignmentInfo as user data."""
    TP = wire_class("ConsumerProtocolAssignment", "TopicPartition")
    by_topic: dict[str, list[int]] = {}
    for tp in partitions:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    assigned = tuple(TP(topic=t, partitions=tuple(ps)) for t, ps in by_topic.items())
    return encode_consumer(consumer_assignment(3, assigned_partitions=assigned, user_data=encode_assignment(info)))


def _error_result(members: Mapping[str, DecodedMember], code: int, latest: int, future, notes) -> LeaderResult:
    info = AssignmentInfo(version=latest, commonly_supported_version=latest, error_code=code)
    out = {m: assignment_bytes([], info) for m in members}
    return LeaderResult(out, {m: info for m in members}, latest, latest, code, tuple(future), None, tuple(notes))


def streams_leader_assign(
    metadata: Mapping[str, bytes],
    topology: Topology,
    *,
    configs: AssignmentConfigs = AssignmentConfigs(),
    end_offset_sums: Mapping[TaskId, int] | None = None,
    leader_member_id: str | None = None,
    now_ms: int = 0,
    latest: int = LATEST_SUPPORTED_VERSION,
    assignor: str = "high_availability",
) -> LeaderResult:
    """Run the Streams leader over the members' ConsumerProtocol subscription bytes (JoinGroup metadata)."""
    decoded = {m: decode_member(m, raw, latest=latest) for m, raw in metadata.items()}
    subscriptions = {m: d.subscription for m, d in decoded.items() if d.subscription is not None}
    notes = [f"{m}: {d.error}" for m, d in decoded.items() if m not in subscriptions]
    if notes:  # Kafka's leader fails on a subscription it cannot read: every member gets the error
        return _error_result(decoded, AssignorError.ASSIGNMENT_ERROR, latest, (), notes)
    min_received = min_supported = latest
    future: list[str] = []
    for m, info in subscriptions.items():
        if info.is_version_probe:
            future.append(m)
        else:
            min_received = min(min_received, info.version)
        min_supported = min(min_supported, info.latest_supported_version)
    if future and min_received < EARLIEST_PROBEABLE_VERSION:
        return _error_result(
            decoded,
            AssignorError.ASSIGNMENT_ERROR,
            latest,
            future,
            [f"future members {future} with a v{min_received} member: no version probing below v3"],
        )
    if any(info.error_code == AssignorError.SHUTDOWN_REQUESTED for info in subscriptions.values()):
        return _error_result(
            decoded,
            AssignorError.SHUTDOWN_REQUESTED,
            latest,
            future,
            ["a member asked for the application to shut down"],
        )
    members = [
        Member(
            m,
            FUTURE_ID if subscriptions[m].is_version_probe else subscriptions[m].process_id,
            frozenset(d.owned_partitions),
            subscriptions[m].task_offset_sums,
            subscriptions[m].client_tags,
        )
        for m, d in sorted(decoded.items())
    ]
    group = assign_group(members, topology, configs, end_offset_sums, leader_member_id, assignor)
    source = {t: sub.source_partitions(t) for sub in topology.subtopologies for t in sub.tasks()}
    endpoint_of: dict[uuid.UUID, HostInfo] = {}
    for member in members:  # a client's endpoint comes from the first of its consumers (§9 step 1)
        host = parse_endpoint(subscriptions[member.member_id].user_endpoint)
        if host and member.process_id not in endpoint_of:
            endpoint_of[member.process_id] = host
    active_by_host: dict[HostInfo, list[TopicPartition]] = {}
    standby_by_host: dict[HostInfo, list[TopicPartition]] = {}
    if min_received >= 2:
        for ma in group.members.values():
            host = endpoint_of.get(ma.process_id)
            if host is not None:
                active_by_host.setdefault(host, []).extend(ma.active_partitions)
                if min_received >= 6:
                    standby_by_host.setdefault(host, []).extend(tp for t in ma.standby_tasks for tp in source[t])
        for host in set(endpoint_of.values()):
            active_by_host.setdefault(host, [])
            if min_received >= 6:
                standby_by_host.setdefault(host, [])
    out: dict[str, bytes] = {}
    infos: dict[str, AssignmentInfo] = {}
    for m in sorted(group.members):
        ma = group.members[m]
        partitions = sorted(ma.active_partitions)
        task_of = {tp: t for t in ma.active_tasks for tp in source[t]}
        if min_received < 7:
            next_ms = NO_REBALANCE
        elif ma.rebalance_immediately:
            next_ms = 0
        elif ma.probing_rebalance:
            next_ms = now_ms + configs.probing_rebalance_interval_ms
        else:
            next_ms = NO_REBALANCE
        assignment = AssignmentInfo(
            version=min_received,
            commonly_supported_version=min_supported if min_received >= 3 else -1,
            active_tasks=tuple(task_of[tp] for tp in partitions),
            standby_tasks={t: tuple(source[t]) for t in ma.standby_tasks},
            partitions_by_host={h: tuple(sorted(ps)) for h, ps in sorted(active_by_host.items())},
            standby_partitions_by_host={h: tuple(sorted(ps)) for h, ps in sorted(standby_by_host.items())},
            error_code=0,
            next_rebalance_ms=next_ms,
        )
        infos[m] = assignment
        out[m] = assignment_bytes(partitions, assignment)
    return LeaderResult(out, infos, min_received, min_supported, 0, tuple(future), group, tuple(notes))
