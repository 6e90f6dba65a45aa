"""Benchmark payloads: realistic groups generated here, and the largest vector of each message.

The generated group is a Kafka Streams application of 100 members: 4 source topics of 50 partitions,
10 subtopologies, every member reporting 200 task offset sums (SubscriptionInfo v7/v11 in its
ConsumerProtocol subscription) and receiving an AssignmentInfo v7 whose host maps name 100 hosts.
Everything is deterministic (fixed seed).
"""

from __future__ import annotations

import dataclasses
import json
import random
import uuid
from functools import cache
from pathlib import Path

from codec.group.consumer import (
    ASSIGNMENT,
    SUBSCRIPTION,
    ConsumerMessage,
    encode_consumer,
)
from codec.streams import (
    AssignmentInfo,
    SubscriptionInfo,
    encode_assignment,
    encode_subscription,
)
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
    return SubscriptionInfo(
        version=version,
        latest_supported_version=11,
        process_id=uuid.UUID(int=seed * 31337),
        user_endpoint=f"streams-{seed}.example.internal:8080",
        task_offset_sums=sums,
        unique_field=(seed % 100) if version >= 8 else 0,
        client_tags={"az": f"eu-west-1{'abc'[seed % 3]}"} if version >= 11 else {},
    )


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
    return AssignmentInfo(
        version=version,
        commonly_supported_version=11,
        active_tasks=active,
        standby_tasks=standby,
        partitions_by_host=by_host,
        standby_partitions_by_host=standby_by_host,
        error_code=0,
        next_rebalance_ms=2**63 - 1,
    )


def consumer_subscription(i: int, tasks: int = 200):
    """ConsumerProtocolSubscription v3 of member i, its user data a SubscriptionInfo v11."""
    W = wire_class(SUBSCRIPTION, SUBSCRIPTION)
    T = wire_class(SUBSCRIPTION, "TopicPartition")
    owned = tuple(T(topic=t, partitions=tuple(range(i % 5, PARTITIONS, 25))) for t in TOPICS)
    body = W(
        topics=TOPICS,
        user_data=encode_subscription(subscription_info(11, tasks, seed=i + 1)),
        owned_partitions=owned,
        generation_id=41,
        rack_id=f"eu-west-1{'abc'[i % 3]}",
    )
    return ConsumerMessage(name=SUBSCRIPTION, version=3, data=body)


def consumer_assignment(i: int):
    """ConsumerProtocolAssignment v3 of member i, its user data an AssignmentInfo v7 with 100 hosts."""
    W = wire_class(ASSIGNMENT, ASSIGNMENT)
    T = wire_class(ASSIGNMENT, "TopicPartition")
    parts = tuple(T(topic=t, partitions=(i % PARTITIONS, (i + 50) % PARTITIONS)) for t in TOPICS)
    return ConsumerMessage(
        name=ASSIGNMENT,
        version=3,
        data=W(assigned_partitions=parts, user_data=encode_assignment(assignment_info(7, seed=i + 1))),
    )


@cache
def group_messages(version: int):
    """The four group messages of one 100-member Streams rebalance at ``version`` (JoinGroup) and the
    matching SyncGroup version, as wire objects: {name: (version, object)}."""
    sync_version = {5: 3, 9: 5}[version]
    metadata = [encode_consumer(consumer_subscription(i, tasks=20)) for i in range(MEMBERS)]
    assignments = [encode_consumer(consumer_assignment(i)) for i in range(MEMBERS)]
    JReq, JProto = (
        wire_class("JoinGroupRequest", "JoinGroupRequest"),
        wire_class("JoinGroupRequest", "JoinGroupRequestProtocol"),
    )
    JResp, JMember = (
        wire_class("JoinGroupResponse", "JoinGroupResponse"),
        wire_class("JoinGroupResponse", "JoinGroupResponseMember"),
    )
    SReq, SAssign = (
        wire_class("SyncGroupRequest", "SyncGroupRequest"),
        wire_class("SyncGroupRequest", "SyncGroupRequestAssignment"),
    )
    SResp = wire_class("SyncGroupResponse", "SyncGroupResponse")
    flexible = version >= 6
    join_req = JReq(
        group_id="wordcount",
        session_timeout_ms=45000,
        rebalance_timeout_ms=300000,
        member_id=_member_id(0),
        group_instance_id=None,
        protocol_type="consumer",
        protocols=(JProto(name="stream", metadata=metadata[0]),),
        reason="rebalance requested" if version >= 8 else None,
    )
    join_resp = JResp(
        throttle_time_ms=0,
        error_code=0,
        generation_id=42,
        protocol_name="stream",
        protocol_type="consumer" if version >= 7 else None,
        leader=_member_id(0),
        skip_assignment=False,
        member_id=_member_id(0),
        members=tuple(
            JMember(member_id=_member_id(i), group_instance_id=None, metadata=metadata[i]) for i in range(MEMBERS)
        ),
    )
    sync_req = SReq(
        group_id="wordcount",
        generation_id=42,
        member_id=_member_id(0),
        group_instance_id=None,
        protocol_type="consumer" if sync_version >= 5 else None,
        protocol_name="stream" if sync_version >= 5 else None,
        assignments=tuple(SAssign(member_id=_member_id(i), assignment=assignments[i]) for i in range(MEMBERS)),
    )
    sync_resp = SResp(
        throttle_time_ms=0,
        error_code=0,
        protocol_type="consumer" if sync_version >= 5 else None,
        protocol_name="stream" if sync_version >= 5 else None,
        assignment=assignments[0],
    )
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


# --- Kafka 4's group RPCs -------------------------------------------------------------------------------


def _fill(message: str, version: int, struct_name: str, sizes: dict, rng: random.Random, path: str = ""):
    """A wire object of one struct with every field of the version set: arrays of ``sizes[field]`` elements
    (0 when not named), strings short and distinct, numbers small, UUIDs random (fixed seed)."""
    from codec.wire.schema import load_message

    spec = load_message(message).structs[struct_name]
    values = {}
    for f in spec.fields:
        tagged = f.tag is not None and f.tagged_versions is not None and version in f.tagged_versions
        if not (tagged or (f.tag is None and version in f.versions)) or tagged:
            continue

        def one(i: int, f=f):
            t = f.element_type
            if f.struct is not None:
                return _fill(message, version, f.struct.name, sizes, rng, f"{path}.{f.py_name}[{i}]")
            if f.py_name.endswith("error_code"):
                return 0  # kio refuses codes outside its enum
            if t in ("int8", "int16", "int32", "int64", "uint16"):
                return rng.randrange(0, 100 if t == "int8" else 30000)
            if t == "bool":
                return rng.random() < 0.5
            if t == "uuid":
                return uuid.UUID(int=rng.getrandbits(128))
            if t == "string":
                return f"{f.py_name.replace('_', '-')}-{rng.randrange(10**6)}"
            if t == "bytes":
                return rng.randbytes(16)
            raise ValueError(t)

        if f.is_array:
            values[f.py_name] = tuple(one(i) for i in range(sizes.get(f.py_name, 0)))
        else:
            values[f.py_name] = one(0)
    return wire_class(message, struct_name)(**values)


@cache
def kafka4_messages() -> list[tuple[str, str, int, object]]:
    """(label, message, version, wire object) of Kafka 4's heartbeats, steady and joining, and describes."""
    rng = random.Random(4)
    out = []
    CGReq = wire_class("ConsumerGroupHeartbeatRequest", "ConsumerGroupHeartbeatRequest")
    steady = CGReq(group_id="orders-app", member_id="mM3fQz8PRlOaG2b9xk1Q3A", member_epoch=42)
    out.append(("steady", "ConsumerGroupHeartbeatRequest", 1, steady))
    joining = _fill(
        "ConsumerGroupHeartbeatRequest", 1, "ConsumerGroupHeartbeatRequest", {"subscribed_topic_names": 4}, rng
    )
    out.append(
        (
            "joining, 4 topics",
            "ConsumerGroupHeartbeatRequest",
            1,
            dataclasses.replace(joining, member_epoch=0, subscribed_topic_regex=None, topic_partitions=()),
        )
    )
    CGResp = wire_class("ConsumerGroupHeartbeatResponse", "ConsumerGroupHeartbeatResponse")
    out.append(
        (
            "steady",
            "ConsumerGroupHeartbeatResponse",
            1,
            CGResp(member_id="mM3fQz8PRlOaG2b9xk1Q3A", member_epoch=42, heartbeat_interval_ms=5000),
        )
    )
    out.append(
        (
            "assignment, 4 topics × 50",
            "ConsumerGroupHeartbeatResponse",
            1,
            _fill(
                "ConsumerGroupHeartbeatResponse",
                1,
                "ConsumerGroupHeartbeatResponse",
                {"topic_partitions": 4, "partitions": 50},
                rng,
            ),
        )
    )
    out.append(
        (
            "100 members",
            "ConsumerGroupDescribeResponse",
            1,
            _fill(
                "ConsumerGroupDescribeResponse",
                1,
                "ConsumerGroupDescribeResponse",
                {"groups": 1, "members": 100, "subscribed_topic_names": 4, "topic_partitions": 4, "partitions": 2},
                rng,
            ),
        )
    )
    SGReq = wire_class("StreamsGroupHeartbeatRequest", "StreamsGroupHeartbeatRequest")
    out.append(
        (
            "steady",
            "StreamsGroupHeartbeatRequest",
            0,
            SGReq(
                group_id="wordcount", member_id="pQ8zk3bTQdOw1c7mXn2L4g", member_epoch=17, endpoint_information_epoch=3
            ),
        )
    )
    out.append(
        (
            "joining, 10 subtopologies",
            "StreamsGroupHeartbeatRequest",
            0,
            dataclasses.replace(
                _fill(
                    "StreamsGroupHeartbeatRequest",
                    0,
                    "StreamsGroupHeartbeatRequest",
                    {
                        "subtopologies": 10,
                        "source_topics": 2,
                        "state_changelog_topics": 2,
                        "repartition_sink_topics": 1,
                        "repartition_source_topics": 1,
                        "copartition_groups": 1,
                        "topic_configs": 2,
                        "client_tags": 2,
                        "source_topic_indices": 1,
                    },
                    rng,
                ),
                member_epoch=0,
            ),
        )
    )
    out.append(
        (
            "100 endpoints",
            "StreamsGroupHeartbeatResponse",
            0,
            _fill(
                "StreamsGroupHeartbeatResponse",
                0,
                "StreamsGroupHeartbeatResponse",
                {
                    "active_tasks": 10,
                    "standby_tasks": 5,
                    "warmup_tasks": 2,
                    "partitions": 4,
                    "partitions_by_user_endpoint": 100,
                    "active_partitions": 2,
                    "standby_partitions": 2,
                    "status": 1,
                },
                rng,
            ),
        )
    )
    out.append(
        (
            "100 members",
            "StreamsGroupDescribeResponse",
            0,
            _fill(
                "StreamsGroupDescribeResponse",
                0,
                "StreamsGroupDescribeResponse",
                {
                    "groups": 1,
                    "members": 100,
                    "subtopologies": 10,
                    "source_topics": 2,
                    "active_tasks": 3,
                    "standby_tasks": 2,
                    "partitions": 2,
                    "client_tags": 1,
                    "task_offsets": 0,
                    "task_end_offsets": 0,
                    "state_changelog_topics": 1,
                },
                rng,
            ),
        )
    )
    return out
