"""The metadata size model: how many bytes a Streams group's rebalance puts on the wire.

Every member's subscription goes to the leader in its JoinGroup response, and with ``application.server``
set every member's assignment carries the host map of the whole group, so the leader's JoinGroup response
and SyncGroup request grow with the group, and the assignments with its square. Kafka caps a record at
about 1 MiB by default (``message.max.bytes``); the group's metadata record in ``__consumer_offsets``
holds every subscription and assignment. The numbers here are ``len()`` of real encoded messages built
with this project's codec, never a formula.

The model group: ``members`` consumers in ``ceil(members / threads)`` Streams instances; ``tasks`` stateful
tasks, task *t* reading partition *t* of one source topic, active on consumer ``t % members``, with
``standbys`` standby copies on the following instances. Each consumer's SubscriptionInfo reports its
instance's tasks (running actives at -2, standbys with an offset sum), as Kafka's client-level task
offset sums do (wire-facts §2).
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass

from ..group import consumer_assignment, consumer_subscription, encode_consumer, encode_message
from ..streams import AssignmentInfo, SubscriptionInfo, encode_assignment, encode_subscription
from ..types import HostInfo, TaskId, TopicPartition
from ..wire.builder import wire_class

__all__ = ["GroupShape", "SizeReport", "RebalanceMessages", "build", "measure", "members_to_cross"]

KAFKA_MESSAGE_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True)
class GroupShape:
    members: int
    threads: int = 1
    tasks: int = 1000
    standbys: int = 0
    version: int = 7
    endpoint_length: int = 0  # len("host:port") of application.server; 0 = unset
    member_id_length: int = 60  # the Java client's "<client.id>-<uuid>" ids are about this long
    topic: str = "input-topic"
    join_group_version: int = 9
    sync_group_version: int = 5

    @property
    def instances(self) -> int:
        return math.ceil(self.members / self.threads)


@dataclass(frozen=True)
class SizeReport:
    shape: GroupShape
    subscription_info: int  # largest SubscriptionInfo
    consumer_subscription: int  # largest ConsumerProtocol subscription (carries the SubscriptionInfo)
    join_group_response_leader: int  # body of the leader's JoinGroup response (every member's metadata)
    sync_group_request: int  # body of the leader's SyncGroup request (every member's assignment)
    assignment_info: int  # largest AssignmentInfo
    sync_group_response_total: int  # bodies of every member's SyncGroup response
    coordinator_bytes: int  # every JoinGroup and SyncGroup response frame the coordinator sends
    group_metadata_payload: int  # subscriptions + assignments the group metadata record must hold

    def largest(self) -> tuple[str, int]:
        items = {
            "JoinGroup response (leader)": self.join_group_response_leader,
            "SyncGroup request": self.sync_group_request,
            "group metadata (subscriptions + assignments)": self.group_metadata_payload,
        }
        name = max(items, key=items.__getitem__)
        return name, items[name]

    def to_json(self) -> dict:
        return {
            "shape": self.shape.__dict__,
            **{
                k: getattr(self, k)
                for k in (
                    "subscription_info",
                    "consumer_subscription",
                    "join_group_response_leader",
                    "sync_group_request",
                    "assignment_info",
                    "sync_group_response_total",
                    "coordinator_bytes",
                    "group_metadata_payload",
                )
            },
        }


def _endpoint(shape: GroupShape, instance: int) -> str | None:
    return _host_port(shape, instance) if shape.endpoint_length else None


def _host_port(shape: GroupShape, instance: int) -> str:
    suffix = f"-{instance}:9090"
    return ("h" * max(1, shape.endpoint_length - len(suffix)) + suffix)[-max(shape.endpoint_length, len(suffix)) :]


def _host(shape: GroupShape, instance: int) -> HostInfo:
    host, port = _host_port(shape, instance).rsplit(":", 1)
    return HostInfo(host, int(port))


def _member_id(shape: GroupShape, m: int) -> str:
    base = f"consumer-{m}-{uuid.UUID(int=m)}"
    return (base + "x" * shape.member_id_length)[: max(shape.member_id_length, len(f"consumer-{m}"))]


@dataclass(frozen=True)
class RebalanceMessages:
    """Every message body of one rebalance of a :class:`GroupShape`, as bytes."""

    subscription_infos: list[bytes]
    consumer_subscriptions: list[bytes]  # the JoinGroup metadata of each member
    join_group_response_leader: bytes
    join_group_responses_followers: list[bytes]
    assignment_infos: list[bytes]
    consumer_assignments: list[bytes]
    sync_group_request: bytes
    sync_group_responses: list[bytes]


def build(shape: GroupShape) -> RebalanceMessages:
    """Build every message of one rebalance of ``shape`` with the codec."""
    n, inst_of = shape.members, (lambda m: m // shape.threads)
    active_of = {t: t % n for t in range(shape.tasks)}
    standby_instances = {
        t: [(inst_of(active_of[t]) + j) % shape.instances for j in range(1, shape.standbys + 1) if shape.instances > j]
        for t in range(shape.tasks)
    }
    tp = lambda t: TopicPartition(shape.topic, t)  # noqa: E731
    # tasks with state per instance
    inst_tasks: dict[int, dict[TaskId, int]] = {i: {} for i in range(shape.instances)}
    for t, m in active_of.items():
        inst_tasks[inst_of(m)][TaskId(0, t)] = -2
        for i in standby_instances[t]:
            inst_tasks[i][TaskId(0, t)] = 1_000_000_000 + t
    # standbys handed to the first consumer of each instance
    standby_of_member: dict[int, list[int]] = {m: [] for m in range(n)}
    for t, insts in standby_instances.items():
        for i in insts:
            standby_of_member[i * shape.threads].append(t)
    actives_of_member: dict[int, list[int]] = {m: [] for m in range(n)}
    for t, m in active_of.items():
        actives_of_member[m].append(t)

    lsv = max(shape.version, 3) if shape.version >= 3 else -1
    JoinMember = wire_class("JoinGroupResponse", "JoinGroupResponseMember")
    SyncAssignment = wire_class("SyncGroupRequest", "SyncGroupRequestAssignment")
    Owned = wire_class("ConsumerProtocolSubscription", "TopicPartition")
    Assigned = wire_class("ConsumerProtocolAssignment", "TopicPartition")

    metadata, members, assignments, sub_infos, asg_infos = [], [], [], [], []
    host_map = standby_map = {}
    if shape.endpoint_length and shape.version >= 2:
        host_map = {
            _host(shape, i): tuple(
                tp(t) for m in range(i * shape.threads, min(n, (i + 1) * shape.threads)) for t in actives_of_member[m]
            )
            for i in range(shape.instances)
        }
        if shape.version >= 6:
            standby_map = {
                _host(shape, i): tuple(tp(t) for t in standby_of_member[i * shape.threads])
                for i in range(shape.instances)
            }
    for m in range(n):
        sub = encode_subscription(
            SubscriptionInfo(
                version=shape.version,
                latest_supported_version=lsv,
                process_id=uuid.UUID(int=inst_of(m) + 1),
                user_endpoint=_endpoint(shape, inst_of(m)) if shape.version >= 2 else None,
                task_offset_sums=inst_tasks[inst_of(m)]
                if shape.version >= 7
                else {t: (-2 if s == -2 else -3) for t, s in inst_tasks[inst_of(m)].items()},
            )
        )
        sub_infos.append(sub)
        owned = (Owned(topic=shape.topic, partitions=tuple(actives_of_member[m])),) if actives_of_member[m] else ()
        cps = encode_consumer(
            consumer_subscription(3, topics=(shape.topic,), user_data=sub, owned_partitions=owned, generation_id=1)
        )
        metadata.append(cps)
        members.append(JoinMember(member_id=_member_id(shape, m), metadata=cps))
        info = AssignmentInfo(
            version=shape.version,
            commonly_supported_version=lsv,
            active_tasks=tuple(TaskId(0, t) for t in actives_of_member[m]),
            standby_tasks={TaskId(0, t): (tp(t),) for t in standby_of_member[m]},
            partitions_by_host=host_map,
            standby_partitions_by_host=standby_map,
        )
        asg = encode_assignment(info)
        asg_infos.append(asg)
        assigned = (
            (Assigned(topic=shape.topic, partitions=tuple(actives_of_member[m])),) if actives_of_member[m] else ()
        )
        cpa = encode_consumer(consumer_assignment(3, assigned_partitions=assigned, user_data=asg))
        assignments.append(SyncAssignment(member_id=_member_id(shape, m), assignment=cpa))

    jv, sv = shape.join_group_version, shape.sync_group_version
    leader_id = _member_id(shape, 0)
    JoinResp = wire_class("JoinGroupResponse", "JoinGroupResponse")
    join_common = dict(
        generation_id=1, protocol_type="consumer" if jv >= 7 else None, protocol_name="stream", leader=leader_id
    )
    join_leader = encode_message(
        "JoinGroupResponse", jv, JoinResp(member_id=leader_id, members=tuple(members), **join_common)
    )
    join_followers = [
        encode_message("JoinGroupResponse", jv, JoinResp(member_id=_member_id(shape, m), **join_common))
        for m in range(1, n)
    ]
    SyncReq = wire_class("SyncGroupRequest", "SyncGroupRequest")
    sync_req = encode_message(
        "SyncGroupRequest",
        sv,
        SyncReq(
            group_id="streams-app",
            generation_id=1,
            member_id=leader_id,
            protocol_type="consumer" if sv >= 5 else None,
            protocol_name="stream" if sv >= 5 else None,
            assignments=tuple(assignments),
        ),
    )
    SyncResp = wire_class("SyncGroupResponse", "SyncGroupResponse")
    sync_resps = [
        encode_message(
            "SyncGroupResponse",
            sv,
            SyncResp(
                protocol_type="consumer" if sv >= 5 else None,
                protocol_name="stream" if sv >= 5 else None,
                assignment=a.assignment,
            ),
        )
        for a in assignments
    ]
    return RebalanceMessages(
        sub_infos,
        metadata,
        join_leader,
        join_followers,
        asg_infos,
        [a.assignment for a in assignments],
        sync_req,
        sync_resps,
    )


def measure(shape: GroupShape) -> SizeReport:
    """The sizes of one rebalance of ``shape``: ``len()`` of the messages :func:`build` makes."""
    msgs = build(shape)
    jv, sv, n = shape.join_group_version, shape.sync_group_version, shape.members
    # every response frame: int32 size, then a response header (v1 with its tagged-field byte when flexible)
    join_header = 4 + 4 + (1 if jv >= 6 else 0)
    sync_header = 4 + 4 + (1 if sv >= 4 else 0)
    sync_total = sum(len(x) for x in msgs.sync_group_responses)
    coordinator = (
        len(msgs.join_group_response_leader)
        + sum(len(x) for x in msgs.join_group_responses_followers)
        + join_header * n
        + sync_total
        + sync_header * n
    )
    payload = sum(len(x) for x in msgs.consumer_subscriptions) + sum(len(x) for x in msgs.consumer_assignments)
    return SizeReport(
        shape,
        max(map(len, msgs.subscription_infos)),
        max(map(len, msgs.consumer_subscriptions)),
        len(msgs.join_group_response_leader),
        len(msgs.sync_group_request),
        max(map(len, msgs.assignment_infos)),
        sync_total,
        coordinator,
        payload,
    )


def members_to_cross(limit: int, make_shape, *, high: int = 1 << 16) -> tuple[int, SizeReport] | None:
    """The smallest member count whose largest message exceeds ``limit`` (sizes grow with members),
    with its report; None if even ``high`` members stay below. Doubles, then bisects."""
    lo, n = 0, 1
    while True:
        report = measure(make_shape(n))
        if report.largest()[1] > limit:
            break
        if n >= high:
            return None
        lo, n = n, min(2 * n, high)
    hi, best = n, report
    while hi - lo > 1:
        mid = (lo + hi) // 2
        r = measure(make_shape(mid))
        if r.largest()[1] > limit:
            hi, best = mid, r
        else:
            lo = mid
    return hi, best
