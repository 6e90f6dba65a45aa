"""``capture`` over a ``__consumer_offsets`` segment holding the records of heartbeat-based groups (issue #21):
ConsumerGroup*/StreamsGroup* records as the group coordinator writes them (codec.kafka4's ``encode_record``),
in one record batch written with this directory's batch writer (test_offsets.py). The expected story is
written from the records scripted below, by hand."""

from __future__ import annotations

import base64

import pytest

from codec.kafka4 import encode_record

from .storyfixtures import json_lines, run_capture
from .test_offsets import batch, record

ORDERS = base64.urlsafe_b64encode(b"orders-topic-id\0").decode().rstrip("=")
G, S = "orders-app", "wordcount"


def _tp(*ps: int) -> list[dict]:
    return [{"topicId": ORDERS, "partitions": list(ps)}]


def _tasks(**by_subtopology: list[int]) -> list[dict]:
    return [{"subtopologyId": s.removeprefix("s"), "partitions": ps} for s, ps in by_subtopology.items()]


def _rec(name: str, key: dict, value: dict | None) -> tuple[bytes, bytes | None]:
    return encode_record({"record": name, "key": key, "value": value})


def _member(group: str, m: str) -> dict:
    return {"groupId": group, "memberId": m}


def _current(epoch: int, previous: int, state: int, assigned: list, pending: list) -> dict:
    return {
        "memberEpoch": epoch,
        "previousMemberEpoch": previous,
        "state": state,
        "assignedPartitions": assigned,
        "partitionsPendingRevocation": pending,
    }


RECORDS = [
    # offset 0-5: m-1 joins, group epoch 1, its target and current assignment: orders 0-2
    _rec(
        "ConsumerGroupPartitionMetadata",
        {"groupId": G},
        {"topics": [{"topicId": ORDERS, "topicName": "orders", "numPartitions": 3, "partitionMetadata": []}]},
    ),
    # a consumer-protocol member: ClassicMemberMetadata null, as Kafka writes it (left out, it would take its
    # default, the empty struct: a classic member)
    _rec(
        "ConsumerGroupMemberMetadata",
        _member(G, "m-1"),
        {
            "clientId": "c-1",
            "clientHost": "/10.0.0.1",
            "subscribedTopicNames": ["orders"],
            "rebalanceTimeoutMs": 300000,
            "serverAssignor": "uniform",
            "classicMemberMetadata": None,
        },
    ),
    _rec("ConsumerGroupMetadata", {"groupId": G}, {"epoch": 1}),
    _rec("ConsumerGroupTargetAssignmentMember", _member(G, "m-1"), {"topicPartitions": _tp(0, 1, 2)}),
    _rec("ConsumerGroupTargetAssignmentMetadata", {"groupId": G}, {"assignmentEpoch": 1}),
    _rec("ConsumerGroupCurrentMemberAssignment", _member(G, "m-1"), _current(1, 0, 0, _tp(0, 1, 2), [])),
    # offset 6-10: m-2, a classic member (online migration), joins; group epoch 2; targets m-1 0-1, m-2 2
    _rec(
        "ConsumerGroupMemberMetadata",
        _member(G, "m-2"),
        {
            "clientId": "c-2",
            "clientHost": "/10.0.0.2",
            "subscribedTopicNames": ["orders"],
            "rebalanceTimeoutMs": 60000,
            "classicMemberMetadata": {
                "sessionTimeoutMs": 45000,
                "supportedProtocols": [{"name": "range", "metadata": ""}],
            },
        },
    ),
    _rec("ConsumerGroupMetadata", {"groupId": G}, {"epoch": 2, "metadataHash": -2}),  # 4.1+: the topics' hash
    _rec("ConsumerGroupTargetAssignmentMember", _member(G, "m-1"), {"topicPartitions": _tp(0, 1)}),
    _rec("ConsumerGroupTargetAssignmentMember", _member(G, "m-2"), {"topicPartitions": _tp(2)}),
    _rec("ConsumerGroupTargetAssignmentMetadata", {"groupId": G}, {"assignmentEpoch": 2}),
    # offset 11-13: m-1 revokes 2 (pending), then reaches epoch 2; m-2 gets 2 at epoch 2
    _rec("ConsumerGroupCurrentMemberAssignment", _member(G, "m-1"), _current(1, 1, 1, _tp(0, 1), _tp(2))),
    _rec("ConsumerGroupCurrentMemberAssignment", _member(G, "m-1"), _current(2, 1, 0, _tp(0, 1), [])),
    _rec("ConsumerGroupCurrentMemberAssignment", _member(G, "m-2"), _current(2, 0, 0, _tp(2), [])),
    # offset 14-16: m-2 is removed (its records deleted)
    _rec("ConsumerGroupCurrentMemberAssignment", _member(G, "m-2"), None),
    _rec("ConsumerGroupTargetAssignmentMember", _member(G, "m-2"), None),
    _rec("ConsumerGroupMemberMetadata", _member(G, "m-2"), None),
    # offset 17-21: a streams group
    _rec(
        "StreamsGroupMemberMetadata",
        _member(S, "s-1"),
        {
            "clientId": "wc-1",
            "clientHost": "/10.0.0.3",
            "rebalanceTimeoutMs": 300000,
            "topologyEpoch": 1,
            "processId": "p-1",
            "userEndpoint": {"host": "host1", "port": 8080},
            "clientTags": [{"key": "zone", "value": "z1"}],
        },
    ),
    _rec(
        "StreamsGroupMetadata",
        {"groupId": S},
        {
            "epoch": 3,
            "metadataHash": 0x1234,
            "validatedTopologyEpoch": 1,  # 4.2+: the tagged fields
            "lastAssignmentConfigs": [
                {"key": "num.standby.replicas", "value": "1"},
                {"key": "acceptable.recovery.lag", "value": "10000"},
            ],
        },
    ),
    _rec(
        "StreamsGroupTargetAssignmentMember",
        _member(S, "s-1"),
        {"activeTasks": _tasks(s0=[0, 1]), "standbyTasks": _tasks(s1=[0]), "warmupTasks": []},
    ),
    _rec("StreamsGroupTargetAssignmentMetadata", {"groupId": S}, {"assignmentEpoch": 3}),
    _rec(
        "StreamsGroupCurrentMemberAssignment",
        _member(S, "s-1"),
        {
            "memberEpoch": 3,
            "previousMemberEpoch": 2,
            "state": 0,
            "activeTasks": _tasks(s0=[0, 1]),
            "standbyTasks": _tasks(s1=[0]),
            "warmupTasks": [],
            "activeTasksPendingRevocation": _tasks(s0=[2]),
            "standbyTasksPendingRevocation": [],
            "warmupTasksPendingRevocation": [],
        },
    ),
    # offset 22: another group deleted
    _rec("ConsumerGroupMetadata", {"groupId": "old-group"}, None),
]


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = tmp_path_factory.mktemp("kip848-offsets") / "00000000000000000000.log"
    p.write_bytes(batch([record(i, k, v) for i, (k, v) in enumerate(RECORDS)], base_offset=0))
    return p


@pytest.fixture(scope="module")
def groups(path):
    lines = json_lines(path)
    summary = lines[-1]
    assert summary["records"] == len(RECORDS) == 23 and not summary["problems"]
    assert summary["heartbeat_groups"] == 3 and summary["generations"] == 0
    return {g["group"]: g for g in lines if g["type"] == "heartbeat-group"}


def _steps(m: dict) -> list[tuple]:
    return [
        (
            s["where"],
            s["epoch"],
            s["previous_epoch"],
            s["state"],
            s["assignment"]["partitions"],
            s["revoked"].get("partitions", {}),
            s["pending_revocation"].get("partitions", {}),
        )
        for s in m["steps"]
    ]


def test_consumer_group_epochs_members_and_assignments(groups):
    g = groups[G]
    assert (g["protocol"], g["source"], g["group_epochs"], g["assignment_epoch"], g["metadata_hash"]) == (
        "consumer",
        "__consumer_offsets",
        [1, 2],
        2,
        -2,
    )
    assert (g["validated_topology_epoch"], g["assignment_configs"]) == (None, None)  # streams groups' fields
    m1, m2 = g["members"]
    assert (m1["member_id"], m1["client_id"], m1["client_host"], m1["server_assignor"], m1["classic"]) == (
        "m-1",
        "c-1",
        "/10.0.0.1",
        "uniform",
        False,
    )
    # topic ids named by the partition metadata record
    assert _steps(m1) == [
        ("offset 5", 1, 0, 0, {"orders": [0, 1, 2]}, {}, {}),
        ("offset 11", 1, 1, 1, {"orders": [0, 1]}, {"orders": [2]}, {"orders": [2]}),
        ("offset 12", 2, 1, 0, {"orders": [0, 1]}, {}, {}),
    ]
    assert (m1["target"]["where"], m1["target"]["epoch"], m1["target"]["assignment"]["partitions"]) == (
        "offset 8",
        2,
        {"orders": [0, 1]},
    )
    assert m1["member_epoch"] == 2 and m1["left"] is None
    assert (m2["member_id"], m2["classic"], m2["left"], m2["target"]) == ("m-2", True, "removed", None)
    assert _steps(m2) == [("offset 13", 2, 0, 0, {"orders": [2]}, {}, {})]
    assert [(e["kind"], e["member"]) for e in g["events"]] == [("join", "m-1"), ("join", "m-2"), ("removed", "m-2")]


def test_streams_group_tasks(groups):
    g = groups[S]
    assert (g["protocol"], g["group_epochs"], g["assignment_epoch"]) == ("streams", [3], 3)
    assert (g["metadata_hash"], g["validated_topology_epoch"], g["assignment_configs"]) == (
        0x1234,
        1,
        {"num.standby.replicas": "1", "acceptable.recovery.lag": "10000"},
    )
    (s1,) = g["members"]
    assert (s1["process_id"], s1["user_endpoint"], s1["client_tags"], s1["topology_epoch"]) == (
        "p-1",
        "host1:8080",
        {"zone": "z1"},
        1,
    )
    (step,) = s1["steps"]
    assert (step["epoch"], step["previous_epoch"], step["assignment"]) == (
        3,
        2,
        {"active tasks": {"0": [0, 1]}, "standby tasks": {"1": [0]}, "warmup tasks": {}},
    )
    assert step["pending_revocation"] == {"active tasks": {"0": [2]}}
    assert s1["target"]["epoch"] == 3 and s1["target"]["assignment"]["active tasks"] == {"0": [0, 1]}


def test_a_deleted_group(groups):
    g = groups["old-group"]
    assert g["deleted"] and g["members"] == [] and [e["kind"] for e in g["events"]] == ["deleted"]


def test_text(path):
    status, text = run_capture(path)
    assert status == 0
    assert "group orders-app  (consumer group: 2 members, segment input)" in text
    assert "group epochs 1, 2; target assignment epoch 2; topic metadata hash fffffffffffffffe" in text
    assert (
        "group epochs 3; target assignment epoch 3; topic metadata hash 0000000000001234; topics validated for "
        "topology epoch 1"
    ) in text
    assert "last assignment configs: acceptable.recovery.lag=10000, num.standby.replicas=1" in text
    assert "epoch 1  offset 11  (previous epoch 1, state 1)  orders: 0-1 (2 partitions); revoked orders: 2" in text
    assert "pending revocation of partitions: orders: 2" in text
    assert "m-2 (c-2)  [removed]" in text and "classic protocol member" in text
    assert "target at assignment epoch 2  offset 8  orders: 0-1 (2 partitions)" in text
    assert "heartbeat-based groups 3" in text
