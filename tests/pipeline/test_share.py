"""KIP-932 share groups through the pipeline (issue #30), on a real local SparkSession: ``capture --json`` of the
bundled ``kip932-share.pcap`` (the share group ``queue-app``, :func:`codec.capture.scripted.kip932_script`) and
``__consumer_offsets`` records of a second share group, ``broken-queue``, that gets two things wrong.

Expected values are written by hand from the script's steps (its docstring) and from the records below; the
record counts come from counting the inputs' lines; never from the pipeline."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections import Counter, defaultdict

import pytest

pa = pytest.importorskip("pyarrow", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from codec.kafka4 import encode_record
from codec.pipeline.arrow import decode_table

from .conftest import SAMPLES, read_table

PCAP = SAMPLES.parent / "kip932-share.pcap"
ORDERS = base64.urlsafe_b64encode(b"orders-topic-id\0").decode().rstrip("=")
PAYMENTS = base64.urlsafe_b64encode(b"payments-topicid").decode().rstrip("=")
B = "broken-queue"


def _rec(rid: str, name: str, key: dict, value: dict | None) -> dict:
    k, v = encode_record({"record": name, "key": key, "value": value})
    return {"record_id": rid, "key": k.hex(), "value": None if v is None else v.hex()}


def _current(epoch: int, orders: list[int]) -> dict:
    return {
        "memberEpoch": epoch,
        "previousMemberEpoch": epoch - 1,
        "state": 0,
        "assignedPartitions": [{"topicId": ORDERS, "partitions": orders}],
    }


# broken-queue: x subscribes to orders, y to payments; the share-group state of orders 0-2 is initialized.
# epoch 3: x holds orders 0 and 1, nobody orders-2 (unheld-partition orders-2);
# epoch 4: y holds orders-2, a topic it does not subscribe to (unsubscribed-partition); x still holds 0, 1
RECORDS = [
    _rec(
        "b/state",
        "ShareGroupStatePartitionMetadata",
        {"groupId": B},
        {
            "initializingTopics": [],
            "deletingTopics": [],
            "initializedTopics": [{"topicId": ORDERS, "topicName": "orders", "partitions": [0, 1, 2]}],
        },
    ),
    _rec(
        "b/x",
        "ShareGroupMemberMetadata",
        {"groupId": B, "memberId": "x"},
        {"rackId": None, "clientId": "cx", "clientHost": "/h", "subscribedTopicNames": ["orders"]},
    ),
    _rec(
        "b/y",
        "ShareGroupMemberMetadata",
        {"groupId": B, "memberId": "y"},
        {"rackId": None, "clientId": "cy", "clientHost": "/h", "subscribedTopicNames": ["payments"]},
    ),
    _rec("b/meta", "ShareGroupMetadata", {"groupId": B}, {"epoch": 4, "metadataHash": 7}),
    _rec("b/x-3", "ShareGroupCurrentMemberAssignment", {"groupId": B, "memberId": "x"}, _current(3, [0, 1])),
    _rec("b/y-4", "ShareGroupCurrentMemberAssignment", {"groupId": B, "memberId": "y"}, _current(4, [2])),
    _rec(
        "b/x-target",
        "ShareGroupTargetAssignmentMember",
        {"groupId": B, "memberId": "x"},
        {"topicPartitions": [{"topicId": ORDERS, "partitions": [0, 1]}]},
    ),
    _rec("b/y-gone", "ShareGroupCurrentMemberAssignment", {"groupId": B, "memberId": "z"}, None),  # a tombstone
]

# broken-consumers, a KIP-848 consumer group (its records beside the share groups': one module run): topic orders
# (3 partitions) named by the group's partition metadata record. Members x and y run in one client (client id cx on
# host /h1), z in another (cz on /h2). At member epoch 3 x owns orders-0 and is revoking orders-1, which y already
# owns: orders-1 is owned twice; z owns orders-2 (and its target assignment, no epoch, says so).
K = "broken-consumers"


def _member(client: str, host: str) -> dict:
    return {
        "instanceId": None,
        "rackId": None,
        "clientId": client,
        "clientHost": host,
        "subscribedTopicNames": ["orders"],
        "subscribedTopicRegex": None,
        "rebalanceTimeoutMs": 300000,
        "serverAssignor": "uniform",
        "classicMemberMetadata": None,
    }


def _owns(epoch: int, owned: list[int], revoking: list[int]) -> dict:
    return {
        "memberEpoch": epoch,
        "previousMemberEpoch": epoch - 1,
        "state": 0 if not revoking else 2,
        "assignedPartitions": [{"topicId": ORDERS, "partitions": owned}],
        "partitionsPendingRevocation": [{"topicId": ORDERS, "partitions": revoking}] if revoking else [],
    }


CONSUMER_RECORDS = [
    _rec(
        "k/topics",
        "ConsumerGroupPartitionMetadata",
        {"groupId": K},
        {"topics": [{"topicId": ORDERS, "topicName": "orders", "numPartitions": 3, "partitionMetadata": []}]},
    ),
    *(
        _rec(f"k/{m}", "ConsumerGroupMemberMetadata", {"groupId": K, "memberId": m}, _member(c, h))
        for m, c, h in (("x", "cx", "/h1"), ("y", "cx", "/h1"), ("z", "cz", "/h2"))
    ),
    _rec("k/x-3", "ConsumerGroupCurrentMemberAssignment", {"groupId": K, "memberId": "x"}, _owns(3, [0], [1])),
    _rec("k/y-3", "ConsumerGroupCurrentMemberAssignment", {"groupId": K, "memberId": "y"}, _owns(3, [1], [])),
    _rec("k/z-3", "ConsumerGroupCurrentMemberAssignment", {"groupId": K, "memberId": "z"}, _owns(3, [2], [])),
    _rec(
        "k/z-target",
        "ConsumerGroupTargetAssignmentMember",
        {"groupId": K, "memberId": "z"},
        {"topicPartitions": [{"topicId": ORDERS, "partitions": [2]}]},
    ),
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("share-pipeline")
    p = subprocess.run(
        [sys.executable, "-m", "codec", "capture", "--json", str(PCAP)], capture_output=True, text=True, check=False
    )
    assert p.returncode == 0, p.stderr
    (tmp / "queue-app.jsonl").write_text(p.stdout)
    (tmp / "broken-queue.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS + CONSUMER_RECORDS))
    captured = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    return tmp, captured


def test_share_units_without_spark(inputs):
    _, captured = inputs
    frames = [d for d in captured if d["type"] == "frame"]
    units = decode_table(
        {
            "record_id": f"f{i}",
            "kind": "frame",
            "hex": d["hex"],
            "version": d["api_version"],
            "api_key": d["api_key"],
            "direction": d["direction"],
            "group": d["group"],
            "member": d["member"],
        }
        for i, d in enumerate(frames)
    ).to_pylist()
    assert not [u for u in units if u["unit_kind"] == "quarantine"]
    by = defaultdict(list)
    for u in units:
        by[u["record_id"]].append(u)
    # frame 0: share-a's join (rack r1, orders and payments); frame 1: its answer at epoch 1, by topic id
    [g, m] = by["f0"]
    assert (g["group_protocol"], g["generation"], m["rack_id"], m["subscribed_topics"]) == (
        "share",
        0,
        "r1",
        ["orders", "payments"],
    )
    [g, a] = by["f1"]
    assert (a["generation"], a["streams"]) == (1, False)
    assert [(s["topic_id"], s["topic"], s["partition"]) for s in a["shared"]] == [
        (ORDERS, None, 0),
        (ORDERS, None, 1),
        (ORDERS, None, 2),
        (PAYMENTS, None, 0),
    ]
    # the Describe response (last frame): the group (epoch 6, 2 members, assignor simple) names both topics
    [g, *rest] = by[f"f{len(frames) - 1}"]
    assert (g["generation"], g["member_count"], g["protocol_name"]) == (6, 2, "simple")
    assert sorted((t["topic_id"], t["topic"]) for t in g["share_topics"]) == [
        (ORDERS, "orders"),
        (PAYMENTS, "payments"),
    ]
    assert [u["unit_kind"] for u in rest] == ["member", "assignment", "member", "assignment"]


@pytest.fixture(scope="module")
def share_run(spark, inputs):
    from codec.pipeline.job import Options, run

    tmp, _ = inputs
    out = tmp / "out"
    summary = run(
        Options(inputs=[str(tmp / "queue-app.jsonl"), str(tmp / "broken-queue.jsonl")], out=str(out), quiet=True), spark
    )
    return out, summary


def test_every_record_is_accounted_for(share_run, inputs):
    _, summary = share_run
    _, captured = inputs
    other = Counter(f"line type {d['type']}" for d in captured if d["type"] != "frame")
    frames = [d for d in captured if d["type"] == "frame"]
    assert len(frames) == 30 and {d["api_key"] for d in frames} == {76, 77}  # 14 heartbeats and a Describe
    want = {
        "records_read": len(captured) + len(RECORDS) + len(CONSUMER_RECORDS),
        "not_selected": other.total() + 1,  # + the tombstone
        "records_in": len(frames) + len(RECORDS) + len(CONSUMER_RECORDS) - 1,
        "quarantined": 0,
    }
    want["decoded"] = want["records_in"]
    assert summary["counts"] == want
    assert want["records_read"] == want["not_selected"] + want["decoded"] + want["quarantined"]
    assert summary["not_selected_by_reason"] == {"__consumer_offsets tombstone": 1, **other}


def test_members_assignments_and_rebalances_of_a_share_group(share_run):
    out, _ = share_run
    reb = {(r["group"], r["generation"]): r for r in read_table(out, "rebalances") if r["group"] == "queue-app"}
    # the epochs the requests and responses carry (0 joins, 1-4, 6) and the Describe's group epoch 6
    assert set(reb) == {("queue-app", e) for e in (0, 1, 2, 3, 4, 6)}
    assert {r["group_protocol"] for r in reb.values()} == {"share"}
    assert reb[("queue-app", 6)]["protocol"] == "simple" and reb[("queue-app", 6)]["reported_member_count"] == 2

    subs = {
        (r["member"], r["generation"]): r["subscribed_topics"]
        for r in read_table(out, "members")
        if r["group"] == "queue-app"
    }
    assert subs[("share-a", 0)] == ["orders", "payments"] and subs[("share-c", 0)] == ["payments"]
    assert subs[("share-d", 0)] == ["secret"] and subs[("share-c", 6)] == ["payments"]  # described at epoch 6

    asg = defaultdict(set)
    for r in read_table(out, "assignments"):
        if r["group"] == "queue-app":
            assert (r["role"], r["subtopology"]) == ("share", None)
            asg[(r["member"], r["generation"])].add(r["task"])
    everything = {"orders-0", "orders-1", "orders-2", "payments-0"}
    assert dict(asg) == {
        ("share-a", 1): everything,
        ("share-a", 2): {"orders-1", "orders-2", "payments-0"},
        ("share-b", 2): {"orders-0"},
        ("share-c", 3): {"payments-0"},
        ("share-a", 4): everything,
        ("share-c", 6): {"payments-0"},
        ("share-a", 6): everything,
    }


def test_share_findings(share_run):
    out, _ = share_run
    findings = {
        (r["group"], r["generation"], r["check"], r["task"], r["member"]): r["detail"]
        for r in read_table(out, "findings")
        if r["group"] in ("queue-app", B)
    }
    assert findings == {
        (B, 3, "unheld-partition", "orders-2", None): "no member of the share group holds orders-2 at this epoch",
        (B, 4, "unsubscribed-partition", "orders-2", "y"): "holds orders-2 but subscribes to payments",
        # the two refused heartbeats of the script: share-d (TOPIC_AUTHORIZATION_FAILED) and share-c (UNKNOWN_MEMBER_ID)
        ("queue-app", 0, "group-error", None, "share-d"): "TOPIC_AUTHORIZATION_FAILED (29) in a share group's response",
        ("queue-app", 0, "group-error", None, "share-c"): "UNKNOWN_MEMBER_ID (25) in a share group's response",
    }


def _describe(topic: str, member: str, partitions: int) -> str:
    from codec.kafka4 import encode

    return encode(
        "share-group-describe-response",
        1,
        {
            "groups": [
                {
                    "groupId": "g",
                    "groupState": "Stable",
                    "groupEpoch": 1,
                    "assignmentEpoch": 1,
                    "assignorName": "simple",
                    "members": [
                        {
                            "memberId": member,
                            "rackId": None,
                            "memberEpoch": 1,
                            "clientId": "c",
                            "clientHost": "h",
                            "subscribedTopicNames": [topic],
                            "assignment": {
                                "topicPartitions": [
                                    {"topicId": ORDERS, "topicName": topic, "partitions": list(range(partitions))}
                                ]
                            },
                        }
                    ],
                }
            ]
        },
    ).hex()


@pytest.mark.parametrize("topic,member", [("y" * 32_000, "m"), ("t", "m" * 32_000)])
def test_a_long_name_over_many_shared_partitions_is_one_quarantine_row(topic, member):
    """Issue #31's amplification, for share groups: one row per member x partition naming the topic and the
    member would turn a 112 KB Describe response (a 32,000-character name, 20,000 partitions) into 640 MB of
    rows (Spark ran out of heap). The record is quarantined, saying so; a like record of usual names is not."""
    rows = lambda hex_: decode_table(
        [
            {
                "record_id": "r",
                "kind": "share-group-describe-response",  # noqa: E731
                "version": 1,
                "hex": hex_,
            }
        ]
    ).to_pylist()
    [q] = [u for u in rows(_describe(topic, member, 20_000)) if u["unit_kind"] == "quarantine"]
    assert q["error_type"] == "UnsupportedValue" and "past 256 x its" in q["error_message"]
    assert q["error_path"] == "groups[0].members[0].assignment.topic_partitions"
    ok = rows(_describe("orders", "share-a", 20_000))
    assert not [u for u in ok if u["unit_kind"] == "quarantine"]
    assert len([u for u in ok if u["unit_kind"] == "assignment"][0]["shared"]) == 20_000


def test_a_partition_count_past_the_bound_is_one_quarantine_row():
    """A Kafka 4.0 share partition metadata record counts a topic's partitions; the group's row lists them, so
    2^31 - 1 of them (a record of a few bytes) is refused as assign --share refuses it."""

    def unit(n: int) -> dict:
        rec = _rec(
            "r",
            "ShareGroupPartitionMetadata",
            {"groupId": "g"},
            {"topics": [{"topicId": ORDERS, "topicName": "orders", "numPartitions": n}]},
        )
        # as the job hands a __consumer_offsets record over: the key's bytes, the value as hex
        [u] = decode_table(
            [{"record_id": "r", "kind": "group-metadata", "key": bytes.fromhex(rec["key"]), "hex": rec["value"]}]
        ).to_pylist()
        return u

    big = unit(2**31 - 1)
    assert (big["unit_kind"], big["error_type"], big["error_path"]) == (
        "quarantine",
        "UnsupportedValue",
        "topics[0].num_partitions",
    )
    assert "2,147,483,647 partitions, more than 100,000" in big["error_message"]
    small = unit(100_000)
    assert small["unit_kind"] == "group" and len(small["share_topics"][0]["partitions"]) == 100_000


def test_a_kip848_consumer_groups_partitions_owners_and_clients(share_run):
    """Issue #44: a KIP-848 group's partitions as ``assignments`` rows, named from its partition metadata record,
    those pending revocation with a role of their own; a partition owned twice in one epoch; its clients counted
    by client id and host."""
    out, _ = share_run
    asg = defaultdict(set)
    for r in read_table(out, "assignments"):
        if r["group"] == K:
            assert (r["topic"], r["task"], r["subtopology"]) == ("orders", f"orders-{r['partition']}", None)
            asg[(r["member"], r["generation"])].add((r["task"], r["role"]))
    assert dict(asg) == {
        ("x", 3): {("orders-0", "consumer"), ("orders-1", "pending-revocation")},
        ("y", 3): {("orders-1", "consumer")},
        ("z", 3): {("orders-2", "consumer")},
        ("z", None): {("orders-2", "consumer")},  # the target assignment: no epoch of its own
    }
    findings = {
        (r["generation"], r["check"], r["task"], r["severity"]): r["detail"]
        for r in read_table(out, "findings")
        if r["group"] == K
    }
    assert findings == {
        (3, "partition-owned-twice", "orders-1", "error"): "owned by x, y (pending revocation on x)",
    }
    [reb] = [r for r in read_table(out, "rebalances") if r["group"] == K]
    # three members, two clients: (cx, /h1) runs x and y, (cz, /h2) runs z
    assert (reb["generation"], reb["group_protocol"], reb["member_count"], reb["client_count"]) == (
        3,
        "consumer",
        3,
        2,
    )
    # a share group's clients likewise: broken-queue's x (cx on /h) at epoch 3, y (cy on /h) at 4
    clients = {r["generation"]: r["client_count"] for r in read_table(out, "rebalances") if r["group"] == B}
    assert clients == {3: 1, 4: 1}
