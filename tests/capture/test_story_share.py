"""The story of a KIP-932 share group (issue #30): from the bundled capture ``codec/examples/kip932-share.pcap``
(written by :func:`codec.capture.scripted.kip932_script`), and from ``__consumer_offsets`` share-group records
(types 9-15) in a segment and in a text dump. Every expected fact is written from the script's steps and the
records below, by hand."""

from __future__ import annotations

import base64

import pytest

from codec.kafka4 import encode_record
from tests.conftest import ROOT

from .storyfixtures import json_lines, run_capture
from .test_offsets import batch, record

PCAP = ROOT / "codec" / "examples" / "kip932-share.pcap"


@pytest.fixture(scope="module")
def share_group():
    lines = json_lines(PCAP)
    assert lines[-1]["heartbeat_groups"] == 1 and not lines[-1]["problems"]
    (g,) = [x for x in lines if x["type"] == "heartbeat-group"]
    return g


def _labels(by_topic: dict[str, list[int]]) -> list[str]:
    """The story's JSON items (topic -> partitions) as ``topic-partition`` labels, sorted."""
    return [f"{t}-{p}" for t in sorted(by_topic) for p in by_topic[t]]


def _partitions(step) -> list[str]:
    return _labels(step["assignment"]["partitions"])


def test_the_share_group_by_member_epoch(share_group):
    g = share_group
    assert (g["group"], g["protocol"], g["member_epochs"]) == ("queue-app", "share", [1, 2, 3, 4, 6])
    assert (g["group_epochs"], g["assignment_epoch"]) == ([6], 6)  # from the Describe response at 6.0
    members = {m["member_id"]: m for m in g["members"]}
    a, b, c, d = (members[f"share-{x}"] for x in "abcd")
    # topic ids named by the Describe response
    assert [(s["epoch"], _partitions(s)) for s in a["steps"]] == [
        (1, ["orders-0", "orders-1", "orders-2", "payments-0"]),
        (2, ["orders-1", "orders-2", "payments-0"]),
        (3, ["orders-1", "orders-2", "payments-0"]),
        (4, ["orders-0", "orders-1", "orders-2", "payments-0"]),
        (6, ["orders-0", "orders-1", "orders-2", "payments-0"]),
    ]
    assert a["steps"][1]["revoked"] == {"partitions": {"orders": [0]}}
    assert (a["rack_id"], a["subscribed_topic_names"], a["client_host"]) == ("r1", ["orders", "payments"], "/10.0.1.1")
    assert [(s["epoch"], _partitions(s)) for s in b["steps"]] == [(2, ["orders-0"]), (3, ["orders-0"])]
    assert b["left"] == "leave"
    assert [(s["cause"], s["epoch"], _partitions(s)) for s in c["steps"]] == [
        ("join", 3, ["payments-0"]),
        ("assigned", 4, ["payments-0"]),
        ("fenced", 0, []),
        ("join", 6, ["payments-0"]),
    ]
    assert c["errors"] == {"25": 1} and c["left"] is None
    assert d["errors"] == {"29": 1} and d["steps"] == [] and d["subscribed_topic_names"] == ["secret"]
    # grouped by how many members hold them; who they are is each member's holdings
    assert g["shared_partitions"] == [{"holders": 2, "partitions": {"payments": [0]}}]


def test_joins_leaves_and_errors_by_name(share_group):
    events = [(e["kind"], e["member"], e["error_code"]) for e in share_group["events"]]
    assert events == [
        ("join", "share-a", 0),
        ("join", "share-b", 0),
        ("join", "share-c", 0),
        ("join", "share-d", 29),
        ("leave", "share-b", 0),
        ("heartbeat", "share-c", 25),
        ("fenced", "share-c", None),
        ("join", "share-c", 0),
    ]


def test_the_text_tells_who_shares_what():
    status, out = run_capture(PCAP)
    assert status == 0
    for line in (
        "group queue-app  (share group: 4 members, pcap input)",
        "share group (KIP-932 heartbeats)",
        "shared partitions at the end: payments: 0 by 2 members",
        "epoch 2  22:13:21.502  orders: 1-2; payments: 0 (3 partitions); dropped orders: 0",
        "shares payments: 0 with share-c",
        "shares payments: 0 with share-a",
        "29 TOPIC_AUTHORIZATION_FAILED  Not authorized to access topics: [secret]",
        "25 UNKNOWN_MEMBER_ID",
    ):
        assert line in out, line


# -- __consumer_offsets -----------------------------------------------------------------------------------

ORDERS = base64.urlsafe_b64encode(b"orders-topic-id\0").decode().rstrip("=")
PAYMENTS = base64.urlsafe_b64encode(b"payments-topicid").decode().rstrip("=")
G = "queue-app"


def _rec(name: str, key: dict, value: dict | None) -> tuple[bytes, bytes | None]:
    return encode_record({"record": name, "key": key, "value": value})


def _m(member: str) -> dict:
    return {"groupId": G, "memberId": member}


def _tp(**parts: list[int]) -> list[dict]:
    return [{"topicId": {"orders": ORDERS, "payments": PAYMENTS}[t], "partitions": ps} for t, ps in parts.items()]


RECORDS = [
    # offset 0-2: share-a joins; group epoch 1; the share-group state of orders 0-2 is being initialized
    _rec(
        "ShareGroupMemberMetadata",
        _m("share-a"),
        {"rackId": "r1", "clientId": "c-a", "clientHost": "/10.0.1.1", "subscribedTopicNames": ["orders", "payments"]},
    ),
    _rec("ShareGroupMetadata", {"groupId": G}, {"epoch": 1, "metadataHash": 42}),
    _rec(
        "ShareGroupStatePartitionMetadata",
        {"groupId": G},
        {
            "initializingTopics": [{"topicId": ORDERS, "topicName": "orders", "partitions": [0, 1, 2]}],
            "initializedTopics": [],
            "deletingTopics": [],
        },
    ),
    # offset 3-5: its target and current assignment (all four partitions), assignment epoch 1
    _rec("ShareGroupTargetAssignmentMember", _m("share-a"), {"topicPartitions": _tp(orders=[0, 1, 2], payments=[0])}),
    _rec("ShareGroupTargetAssignmentMetadata", {"groupId": G}, {"assignmentEpoch": 1}),
    _rec(
        "ShareGroupCurrentMemberAssignment",
        _m("share-a"),
        {
            "memberEpoch": 1,
            "previousMemberEpoch": 0,
            "state": 0,
            "assignedPartitions": _tp(orders=[0, 1, 2], payments=[0]),
        },
    ),
    # offset 6-10: share-c joins on payments; group epoch 2; both hold payments-0
    _rec(
        "ShareGroupMemberMetadata",
        _m("share-c"),
        {"rackId": None, "clientId": "c-c", "clientHost": "/10.0.1.3", "subscribedTopicNames": ["payments"]},
    ),
    _rec("ShareGroupMetadata", {"groupId": G}, {"epoch": 2, "metadataHash": 42}),
    _rec("ShareGroupTargetAssignmentMember", _m("share-c"), {"topicPartitions": _tp(payments=[0])}),
    _rec("ShareGroupTargetAssignmentMetadata", {"groupId": G}, {"assignmentEpoch": 2}),
    _rec(
        "ShareGroupCurrentMemberAssignment",
        _m("share-c"),
        {"memberEpoch": 2, "previousMemberEpoch": 0, "state": 0, "assignedPartitions": _tp(payments=[0])},
    ),
    # offset 11: the state: orders initialized, payments initializing, an old topic being deleted
    _rec(
        "ShareGroupStatePartitionMetadata",
        {"groupId": G},
        {
            "initializingTopics": [{"topicId": PAYMENTS, "topicName": "payments", "partitions": [0]}],
            "initializedTopics": [{"topicId": ORDERS, "topicName": "orders", "partitions": [0, 1, 2]}],
            "deletingTopics": [{"topicId": "AAAAAAAAAAAAAAAAAAAAAA", "topicName": "old"}],
        },
    ),
    # offset 12: Kafka 4.0's early-access partition metadata record of another group
    _rec(
        "ShareGroupPartitionMetadata",
        {"groupId": "early"},
        {"topics": [{"topicId": ORDERS, "topicName": "orders", "numPartitions": 3, "partitionMetadata": []}]},
    ),
    # offset 13-15: share-c is removed
    _rec("ShareGroupCurrentMemberAssignment", _m("share-c"), None),
    _rec("ShareGroupTargetAssignmentMember", _m("share-c"), None),
    _rec("ShareGroupMemberMetadata", _m("share-c"), None),
]


@pytest.fixture(scope="module")
def segment(tmp_path_factory):
    p = tmp_path_factory.mktemp("share-offsets") / "00000000000000000000.log"
    p.write_bytes(batch([record(i, k, v) for i, (k, v) in enumerate(RECORDS)], base_offset=0))
    return p


@pytest.fixture(scope="module")
def dump(tmp_path_factory):
    p = tmp_path_factory.mktemp("share-dump") / "offsets.txt"
    p.write_text("".join(f"{k.hex()}\t{'null' if v is None else v.hex()}\n" for k, v in RECORDS), encoding="utf-8")
    return p


@pytest.mark.parametrize("which", ["segment", "dump"])
def test_share_records_tell_the_group(request, which):
    lines = json_lines(request.getfixturevalue(which))
    summary = lines[-1]
    assert summary["records"] == len(RECORDS) == 16 and not summary["problems"]
    groups = {g["group"]: g for g in lines if g["type"] == "heartbeat-group"}
    assert set(groups) == {G, "early"} and groups["early"]["protocol"] == "share"
    g = groups[G]
    assert (g["protocol"], g["source"], g["group_epochs"], g["assignment_epoch"]) == (
        "share",
        "__consumer_offsets",
        [1, 2],
        2,
    )
    assert g["state_partitions"] == {
        "initializing": {"payments": [0]},
        "initialized": {"orders": [0, 1, 2]},
        "deleting": ["old"],
    }
    a, c = g["members"]
    assert (a["member_id"], a["rack_id"], a["subscribed_topic_names"]) == ("share-a", "r1", ["orders", "payments"])
    assert [(s["where"], s["epoch"], _partitions(s)) for s in a["steps"]] == [
        ("offset 5" if which == "segment" else "line 6", 1, ["orders-0", "orders-1", "orders-2", "payments-0"])
    ]
    # the target record of offset 3 took the assignment epoch of offset 4; Kafka writes no new one for share-a at
    # epoch 2, its target being unchanged
    assert a["target"]["epoch"] == 1 and _partitions(a["target"]) == ["orders-0", "orders-1", "orders-2", "payments-0"]
    assert (c["member_id"], c["left"], c["target"]) == ("share-c", "removed", None)
    assert [(e["kind"], e["member"]) for e in g["events"]] == [
        ("join", "share-a"),
        ("join", "share-c"),
        ("removed", "share-c"),
    ]
    assert g["shared_partitions"] == []  # share-c was removed: nobody shares payments-0 at the end


def test_share_records_in_text(segment):
    status, out = run_capture(segment)
    assert status == 0
    assert "group queue-app  (share group: 2 members, segment input)" in out
    assert "share group (KIP-932 records of __consumer_offsets)" in out
    assert "share-group state: initializing payments: 0 | initialized orders: 0-2 | deleting old" in out
    assert "shared partitions at the end: (none)" in out
