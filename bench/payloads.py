"""Benchmark payloads: realistic groups generated here, and the largest vector of each message.

The generated group is a Kafka Streams application of 100 members: 4 source topics of 50 partitions,
10 subtopologies, every member reporting 200 task offset sums (SubscriptionInfo v7/v11 in its
ConsumerProtocol subscription) and receiving an AssignmentInfo v7 whose host maps name 100 hosts.
Everything is deterministic (fixed seed).
"""

from __future__ import annotations

import json
import random
import uuid
from functools import cache
from pathlib import Path

from codec.group.consumer import ASSIGNMENT, SUBSCRIPTION, ConsumerMessage, encode_consumer
from codec.streams import AssignmentInfo, SubscriptionInfo, encode_assignment, encode_subscription
from codec.types import HostInfo, TaskId, TopicPartition
from codec.wire.builder import encode_wire, wire_class

ROOT = Path(__file__).resolve().parents[1]
MEMBERS = 100
TOPICS = ("orders", "payments", "shipments", "customers-changelog")
PARTITIONS = 50


def _member_id(i: int) -> str:
    return f"wordcount-{uuid.UUID(int=i * 7919)}-StreamThread-1-consumer-{uuid.UUID(int=i * 104729)}"


@cache
def subscription_info(version: int = 7, tasks: int = 200, seed: int = 1) -> SubscriptionInfo:
    """A SubscriptionInfo with ``tasks`` task offset sums over 10 subtopologies."""
    rng = random.Random(seed)
    sums = {}
    for k in range(tasks):
        sums[TaskId(k % 10, k // 10)] = -2 if rng.random() < 0.3 else rng.randrange(0, 2**40)
    return SubscriptionInfo(version=version, latest_supported_version=11, process_id=uuid.UUID(int=seed * 31337),
                            user_endpoint=f"streams-{seed}.example.internal:8080", task_offset_sums=sums,
                            unique_field=(seed % 100) if version >= 8 else 0,
                            client_tags={"az": f"eu-west-1{'abc'[seed % 3]}"} if version >= 11 else {})


@cache
def assignment_info(version: int = 7, hosts: int = 100, seed: int = 1) -> AssignmentInfo:
    """An AssignmentInfo with ``hosts`` entries in each host map (every member of a 100-member app)."""
    tps = [TopicPartition(t, p) for t in TOPICS for p in range(PARTITIONS)]
    by_host, standby_by_host = {}, {}
    for h in range(hosts):
        host = HostInfo(f"streams-{h}.example.internal", 8080)
        by_host[host] = tuple(tps[(h * 2 + j) % len(tps)] for j in range(2))
        standby_by_host[host] = tuple(tps[(h * 2 + 100 + j) % len(tps)] for j in range(2))
    me = seed % hosts
    active = tuple(TaskId(k % 10, me * 2 + k // 10) for k in range(4))
    standby = {TaskId(k % 10, (me * 2 + 50) % 200 + k // 10): (TopicPartition(TOPICS[k % 4], me),) for k in range(2)}
    return AssignmentInfo(version=version, commonly_supported_version=11, active_tasks=active, standby_tasks=standby,
                          partitions_by_host=by_host, standby_partitions_by_host=standby_by_host, error_code=0,
                          next_rebalance_ms=2**63 - 1)


def consumer_subscription(i: int, tasks: int = 200):
    """ConsumerProtocolSubscription v3 of member i, its user data a SubscriptionInfo v11."""
    W = wire_class(SUBSCRIPTION, SUBSCRIPTION)
    T = wire_class(SUBSCRIPTION, "TopicPartition")
    owned = tuple(T(topic=t, partitions=tuple(range(i % 5, PARTITIONS, 25))) for t in TOPICS)
    body = W(topics=TOPICS, user_data=encode_subscription(subscription_info(11, tasks, seed=i + 1)),
             owned_partitions=owned, generation_id=41, rack_id=f"eu-west-1{'abc'[i % 3]}")
    return ConsumerMessage(name=SUBSCRIPTION, version=3, data=body)


def consumer_assignment(i: int):
    """ConsumerProtocolAssignment v3 of member i, its user data an AssignmentInfo v7 with 100 hosts."""
    W = wire_class(ASSIGNMENT, ASSIGNMENT)
    T = wire_class(ASSIGNMENT, "TopicPartition")
    parts = tuple(T(topic=t, partitions=(i % PARTITIONS, (i + 50) % PARTITIONS)) for t in TOPICS)
    return ConsumerMessage(name=ASSIGNMENT, version=3,
                           data=W(assigned_partitions=parts, user_data=encode_assignment(assignment_info(7, seed=i + 1))))


@cache
def group_messages(version: int):
    """The four group messages of one 100-member Streams rebalance at ``version`` (JoinGroup) and the
    matching SyncGroup version, as wire objects: {name: (version, object)}."""
    sync_version = {5: 3, 9: 5}[version]
    metadata = [encode_consumer(consumer_subscription(i, tasks=20)) for i in range(MEMBERS)]
    assignments = [encode_consumer(consumer_assignment(i)) for i in range(MEMBERS)]
    JReq, JProto = wire_class("JoinGroupRequest", "JoinGroupRequest"), wire_class("JoinGroupRequest", "JoinGroupRequestProtocol")
    JResp, JMember = wire_class("JoinGroupResponse", "JoinGroupResponse"), wire_class("JoinGroupResponse", "JoinGroupResponseMember")
    SReq, SAssign = wire_class("SyncGroupRequest", "SyncGroupRequest"), wire_class("SyncGroupRequest", "SyncGroupRequestAssignment")
    SResp = wire_class("SyncGroupResponse", "SyncGroupResponse")
    flexible = version >= 6
    join_req = JReq(group_id="wordcount", session_timeout_ms=45000, rebalance_timeout_ms=300000,
                    member_id=_member_id(0), group_instance_id=None, protocol_type="consumer",
                    protocols=(JProto(name="stream", metadata=metadata[0]),),
                    reason="rebalance requested" if version >= 8 else None)
    join_resp = JResp(throttle_time_ms=0, error_code=0, generation_id=42, protocol_name="stream",
                      protocol_type="consumer" if version >= 7 else None, leader=_member_id(0),
                      skip_assignment=False, member_id=_member_id(0),
                      members=tuple(JMember(member_id=_member_id(i), group_instance_id=None, metadata=metadata[i])
                                    for i in range(MEMBERS)))
    sync_req = SReq(group_id="wordcount", generation_id=42, member_id=_member_id(0), group_instance_id=None,
                    protocol_type="consumer" if sync_version >= 5 else None,
                    protocol_name="stream" if sync_version >= 5 else None,
                    assignments=tuple(SAssign(member_id=_member_id(i), assignment=assignments[i]) for i in range(MEMBERS)))
    sync_resp = SResp(throttle_time_ms=0, error_code=0, protocol_type="consumer" if sync_version >= 5 else None,
                      protocol_name="stream" if sync_version >= 5 else None, assignment=assignments[0])
    del flexible
    return {
        "JoinGroupRequest": (version, join_req),
        "JoinGroupResponse": (version, join_resp),
        "SyncGroupRequest": (sync_version, sync_req),
        "SyncGroupResponse": (sync_version, sync_resp),
    }


def wire_bytes(name: str, version: int, obj) -> bytes:
    return encode_wire(name, version, obj)


@cache
def largest_vector(message: str) -> tuple[int, bytes]:
    """(version, body bytes) of the largest valid vector of ``message`` in vectors/*.jsonl."""
    best = None
    for path in sorted((ROOT / "vectors").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            if r.get("message") != message or r.get("result") != "valid":
                continue
            data = bytes.fromhex(r["wire"])
            if best is None or len(data) > len(best[1]):
                best = (r["version"], data)
    if best is None:
        raise LookupError(f"no valid vector of {message}")
    return best
