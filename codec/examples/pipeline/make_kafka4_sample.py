"""Regenerate ``kafka4-mixed.jsonl``: a fleet that is half classic, half Kafka 4 (issue #21).

    python codec/examples/pipeline/make_kafka4_sample.py

* classic: the first three generations of ``streams-app`` (JoinGroup request and SyncGroup response bodies
  written by Kafka's own classes), copied from ``captures.jsonl``;
* ``checkout-app``, a KIP-1071 streams group: StreamsGroupHeartbeat request and response frames (request
  header v2, response header v1, bodies written by :func:`codec.kafka4.encode`), a StreamsGroupDescribe
  response frame, and ``__consumer_offsets`` records (:func:`codec.kafka4.encode_record`);
* ``payments``, a KIP-848 consumer group: ConsumerGroupHeartbeat v0 and v1 frames, a ConsumerGroupDescribe
  response body and records;
* records that are not input (an offset commit, a tombstone), one that is refused (a streams task
  whose subtopology id is not a number) and one frame cut short (``bad/...``, their ``note`` says how).

Every value is written out below: the tests derive their expectations from these values, by hand.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from codec import kafka4

HERE = Path(__file__).resolve().parent
BASE_TS = 1_763_971_200_000  # 2025-11-24T08:00:00Z
TASKS = {"subtopologyId": "0", "partitions": [0, 1]}
PAYMENTS_ID = "AAAAAAAAAAAAAAAAAAAAAQ"  # the topic ``payments``: its id (the Describe response names it)


def _request(api_key: int, version: int, corr: int, client: str, body: bytes) -> bytes:
    c = client.encode()
    return struct.pack(">hhih", api_key, version, corr, len(c)) + c + b"\x00" + body  # header v2: no tags


def _response(corr: int, body: bytes) -> bytes:
    return struct.pack(">i", corr) + b"\x00" + body  # header v1: no tags


def _tasks(spec: dict) -> list:
    return [{"subtopologyId": s, "partitions": ps} for s, ps in spec.items()]


def _offsets(spec: dict) -> list:
    return [{"subtopologyId": s, "partition": p, "offset": o} for (s, p), o in spec.items()]


def sgh_request(member, epoch, **kw) -> dict:
    """A StreamsGroupHeartbeatRequest v0; ``endpointInformationEpoch`` -1: no endpoint information received yet."""
    v = {
        "groupId": "checkout-app",
        "memberId": member,
        "memberEpoch": epoch,
        "endpointInformationEpoch": -1,
        "rebalanceTimeoutMs": -1,
    }
    v.update(kw)
    return v


def sgh_response(member, epoch, error=0, active=None, standby=None, warmup=None, endpoints=None) -> dict:
    """A StreamsGroupHeartbeatResponse v0; ``endpoints``: (host, port) -> (active, standby) partitions by topic
    (Interactive Queries), given at endpoint information epoch 1."""
    v = {
        "memberId": member,
        "memberEpoch": epoch,
        "errorCode": error,
        "heartbeatIntervalMs": 5000,
        "acceptableRecoveryLagLegacy": 10000,
        "taskOffsetIntervalMs": 60000,
    }
    if active is not None:
        v.update(activeTasks=_tasks(active), standbyTasks=_tasks(standby or {}), warmupTasks=_tasks(warmup or {}))
    if endpoints is not None:
        v.update(
            endpointInformationEpoch=1,
            partitionsByUserEndpoint=[
                {
                    "userEndpoint": {"host": h, "port": port},
                    "activePartitions": [{"topic": t, "partitions": ps} for t, ps in a.items()],
                    "standbyPartitions": [{"topic": t, "partitions": ps} for t, ps in sb.items()],
                }
                for (h, port), (a, sb) in endpoints.items()
            ],
        )
    return v


def records() -> list[dict]:
    out: list[dict] = []
    ts = BASE_TS

    def add(rid: str, **fields):
        nonlocal ts
        ts += 1000
        out.append({"record_id": rid, "timestamp": ts, **fields})

    # --- classic: streams-app generations 1-3, as captured (Kafka-written bytes)
    for line in (HERE / "captures.jsonl").read_text().splitlines():
        if not line.startswith("{"):
            continue  # (the captures hold one line that is not JSON, on purpose)
        r = json.loads(line)
        if r["record_id"].split("/")[0] == "streams-app" and r["record_id"].split("/")[1] in ("g1", "g2", "g3"):
            add(
                r["record_id"],
                **{k: v for k, v in r.items() if k not in ("record_id", "timestamp")},
                **({} if "group" in r else {"group": "streams-app"}),
            )

    # --- checkout-app: a KIP-1071 streams group
    conn1, conn2 = "10.0.0.1:50001", "10.0.0.2:50002"

    def frame(rid, conn, corr, direction, api_key, version, body, group="checkout-app", client="checkout"):
        data = _request(api_key, version, corr, client, body) if direction == "request" else _response(corr, body)
        add(
            rid,
            api_key=api_key,
            api_version=version,
            direction=direction,
            conn=conn,
            correlation_id=corr,
            group=group,
            hex=data.hex(),
        )

    sgh = "streams-group-heartbeat"
    m1_join = sgh_request(
        "m1",
        0,
        rebalanceTimeoutMs=300000,
        processId="p1",
        userEndpoint={"host": "h1", "port": 8080},
        clientTags=[{"key": "az", "value": "a"}],
        taskOffsets=_offsets({("0", 0): 100, ("0", 1): 40}),
        taskEndOffsets=_offsets({("0", 0): 100, ("0", 1): 20040}),
    )
    frame("checkout/m1/join", conn1, 1, "request", 88, 0, kafka4.encode(f"{sgh}-request", 0, m1_join))
    frame(
        "checkout/m1/join-resp",
        conn1,
        1,
        "response",
        88,
        0,
        kafka4.encode(f"{sgh}-response", 0, sgh_response("m1", 1, active={"0": [0, 1], "1": [0, 1]})),
    )
    m2_join = sgh_request(
        "m2",
        0,
        rebalanceTimeoutMs=300000,
        processId="p2",
        userEndpoint={"host": "h2", "port": 8080},
        taskOffsets=_offsets({("1", 0): 5000}),
        taskEndOffsets=_offsets({("1", 0): 5000}),
    )
    frame("checkout/m2/join", conn2, 1, "request", 88, 0, kafka4.encode(f"{sgh}-request", 0, m2_join))
    frame(
        "checkout/m2/join-resp",
        conn2,
        1,
        "response",
        88,
        0,
        kafka4.encode(
            f"{sgh}-response", 0, sgh_response("m2", 2, active={"1": [0, 1]}, standby={"0": [0]}, warmup={"0": [1]})
        ),
    )
    frame("checkout/m1/hb2", conn1, 2, "request", 88, 0, kafka4.encode(f"{sgh}-request", 0, sgh_request("m1", 1)))
    frame(
        "checkout/m1/hb2-resp",
        conn1,
        2,
        "response",
        88,
        0,
        kafka4.encode(
            f"{sgh}-response",
            0,
            sgh_response(
                "m1",
                2,
                active={"0": [0, 1]},
                standby={"1": [0]},
                endpoints={
                    ("h1", 8080): ({"orders": [0, 1]}, {"checkout-repartition": [0]}),
                    ("h2", 8080): ({"checkout-repartition": [0, 1]}, {"orders": [0]}),
                },
            ),
        ),
    )
    frame("checkout/m2/fenced", conn2, 2, "request", 88, 0, kafka4.encode(f"{sgh}-request", 0, sgh_request("m2", 1)))
    frame(
        "checkout/m2/fenced-resp",
        conn2,
        2,
        "response",
        88,
        0,
        kafka4.encode(f"{sgh}-response", 0, sgh_response("m2", 1, error=110)),
    )  # FENCED_MEMBER_EPOCH
    # m3 says it was given task 0_0 as active at epoch 2, which m1 holds at epoch 2 too: a finding
    frame(
        "checkout/m3/odd-resp",
        "10.0.0.3:50003",
        1,
        "response",
        88,
        0,
        kafka4.encode(f"{sgh}-response", 0, sgh_response("m3", 2, active={"0": [0]})),
    )
    describe = {
        "groups": [
            {
                "errorCode": 0,
                "groupId": "checkout-app",
                "groupState": "Stable",
                "groupEpoch": 2,
                "assignmentEpoch": 2,
                "topology": None,
                "authorizedOperations": -2147483648,
                "members": [
                    {
                        "memberId": "m1",
                        "memberEpoch": 2,
                        "clientId": "checkout",
                        "clientHost": "/10.0.0.1",
                        "topologyEpoch": 0,
                        "processId": "p1",
                        "userEndpoint": {"host": "h1", "port": 8080},
                        "clientTags": [{"key": "az", "value": "a"}],
                        "taskOffsets": _offsets({("0", 0): 150}),
                        "taskEndOffsets": _offsets({("0", 0): 170}),
                        "assignment": {"activeTasks": [TASKS], "standbyTasks": _tasks({"1": [0]}), "warmupTasks": []},
                        "targetAssignment": {
                            "activeTasks": [TASKS],
                            "standbyTasks": _tasks({"1": [0]}),
                            "warmupTasks": [],
                        },
                        "isClassic": False,
                    }
                ],
            }
        ]
    }
    frame(
        "checkout/describe-resp",
        "10.0.0.9:50009",
        7,
        "response",
        89,
        0,
        kafka4.encode("streams-group-describe-response", 0, describe),
    )

    def record(rid, rec):
        key, value = kafka4.encode_record(rec)
        add(rid, key=key.hex(), value=value.hex() if value is not None else None)

    g = {"groupId": "checkout-app"}
    record(
        "checkout/rec/metadata",
        {
            "record": "StreamsGroupMetadata",
            "key": g,
            "value": {  # as 4.2+ writes it
                "epoch": 2,
                "metadataHash": 0x5EED5EED5EED5EED,
                "validatedTopologyEpoch": 0,
                "lastAssignmentConfigs": [{"key": "num.standby.replicas", "value": "1"}],
            },
        },
    )
    record(
        "checkout/rec/m1",
        {
            "record": "StreamsGroupMemberMetadata",
            "key": {**g, "memberId": "m1"},
            "value": {
                "instanceId": None,
                "rackId": None,
                "clientId": "checkout",
                "clientHost": "/10.0.0.1",
                "rebalanceTimeoutMs": 300000,
                "topologyEpoch": 0,
                "processId": "p1",
                "userEndpoint": {"host": "h1", "port": 8080},
                "clientTags": [{"key": "az", "value": "a"}],
            },
        },
    )
    record(
        "checkout/rec/m1-current",
        {
            "record": "StreamsGroupCurrentMemberAssignment",
            "key": {**g, "memberId": "m1"},
            "value": {
                "memberEpoch": 2,
                "previousMemberEpoch": 1,
                "state": 0,
                "activeTasks": [TASKS],
                "standbyTasks": _tasks({"1": [0]}),
                "warmupTasks": [],
                "activeTasksPendingRevocation": _tasks({"1": [0, 1]}),
                "standbyTasksPendingRevocation": [],
                "warmupTasksPendingRevocation": [],
            },
        },
    )
    record(
        "checkout/rec/m2-target",
        {
            "record": "StreamsGroupTargetAssignmentMember",
            "key": {**g, "memberId": "m2"},
            "value": {
                "activeTasks": _tasks({"1": [0, 1]}),
                "standbyTasks": _tasks({"0": [0]}),
                "warmupTasks": _tasks({"0": [1]}),
            },
        },
    )
    record(
        "checkout/rec/m3-gone", {"record": "StreamsGroupMemberMetadata", "key": {**g, "memberId": "m3"}, "value": None}
    )  # a tombstone: not selected
    record(
        "bad/checkout-named-subtopology",
        {
            "record": "StreamsGroupTargetAssignmentMember",
            "key": {**g, "memberId": "m9"},
            "value": {"activeTasks": _tasks({"sub-A": [0]}), "standbyTasks": [], "warmupTasks": []},
        },
    )
    out[-1]["note"] = "a subtopology id that is not a number: the tables cannot number its task"
    # an offset commit (key version 1: group, topic, partition): not selected, its value is not read
    add(
        "payments/rec/commit",
        key=(struct.pack(">h", 1) + b"\x00\x08payments\x00\x08payments" + struct.pack(">i", 0)).hex(),
        value="0000",
    )

    # --- payments: a KIP-848 consumer group
    cgh = "consumer-group-heartbeat"
    c1 = {
        "groupId": "payments",
        "memberId": "c1",
        "memberEpoch": 0,
        "instanceId": None,
        "rackId": "rack-1",
        "rebalanceTimeoutMs": 300000,
        "subscribedTopicNames": ["payments"],
        "subscribedTopicRegex": None,
        "serverAssignor": "uniform",
        "topicPartitions": [],
    }
    frame(
        "payments/c1/join",
        "10.0.1.1:40001",
        1,
        "request",
        68,
        1,
        kafka4.encode(f"{cgh}-request", 1, c1),
        group="payments",
        client="pay",
    )
    frame(
        "payments/c1/join-resp",
        "10.0.1.1:40001",
        1,
        "response",
        68,
        1,
        kafka4.encode(
            f"{cgh}-response",
            1,
            {
                "errorCode": 0,
                "memberId": "c1",
                "memberEpoch": 5,
                "heartbeatIntervalMs": 5000,
                "assignment": {"topicPartitions": [{"topicId": PAYMENTS_ID, "partitions": [0, 1, 2]}]},
            },
        ),
        group="payments",
        client="pay",
    )
    c2 = {
        "groupId": "payments",
        "memberId": "",
        "memberEpoch": 0,
        "instanceId": "pay-2",
        "rackId": None,
        "rebalanceTimeoutMs": 300000,
        "subscribedTopicNames": ["payments"],
        "serverAssignor": None,
        "topicPartitions": [],
    }
    frame(
        "payments/c2/join",
        "10.0.1.2:40002",
        1,
        "request",
        68,
        0,
        kafka4.encode(f"{cgh}-request", 0, c2),
        group="payments",
        client="pay",
    )
    frame(
        "payments/c2/join-resp",
        "10.0.1.2:40002",
        1,
        "response",
        68,
        0,
        kafka4.encode(
            f"{cgh}-response",
            0,
            {
                "errorCode": 111,
                "errorMessage": "unreleased",
                "memberId": None,
                "memberEpoch": 0,
                "heartbeatIntervalMs": 0,
                "assignment": None,
            },
        ),
        group="payments",
        client="pay",
    )  # UNRELEASED_INSTANCE_ID
    cut = _request(68, 1, 2, "pay", kafka4.encode(f"{cgh}-request", 1, {**c1, "memberEpoch": 5}))[:-7]
    add(
        "bad/payments-truncated-heartbeat",
        api_key=68,
        api_version=1,
        direction="request",
        conn="10.0.1.1:40001",
        correlation_id=2,
        group="payments",
        hex=cut.hex(),
        note="a ConsumerGroupHeartbeat request frame with its last 7 bytes cut off",
    )
    add(
        "payments/describe",
        kind="consumer-group-describe-response",
        version=0,
        hex=kafka4.encode(
            "consumer-group-describe-response",
            0,
            {
                "groups": [
                    {
                        "errorCode": 0,
                        "groupId": "payments",
                        "groupState": "Stable",
                        "groupEpoch": 5,
                        "assignmentEpoch": 5,
                        "assignorName": "uniform",
                        "authorizedOperations": -2147483648,
                        "members": [
                            {
                                "memberId": "c1",
                                "instanceId": None,
                                "rackId": "rack-1",
                                "memberEpoch": 5,
                                "clientId": "pay",
                                "clientHost": "/10.0.1.1",
                                "subscribedTopicNames": ["payments"],
                                "subscribedTopicRegex": None,
                                "assignment": {
                                    "topicPartitions": [
                                        {"topicId": PAYMENTS_ID, "topicName": "payments", "partitions": [0, 1, 2]}
                                    ]
                                },
                                "targetAssignment": {
                                    "topicPartitions": [
                                        {"topicId": PAYMENTS_ID, "topicName": "payments", "partitions": [0, 1, 2]}
                                    ]
                                },
                            }
                        ],
                    }
                ]
            },
        ).hex(),
    )
    p = {"groupId": "payments"}
    record("payments/rec/metadata", {"record": "ConsumerGroupMetadata", "key": p, "value": {"epoch": 5}})
    record(
        "payments/rec/c1",
        {
            "record": "ConsumerGroupMemberMetadata",
            "key": {**p, "memberId": "c1"},
            "value": {
                "instanceId": None,
                "rackId": "rack-1",
                "clientId": "pay",
                "clientHost": "/10.0.1.1",
                "subscribedTopicNames": ["payments"],
                "subscribedTopicRegex": None,
                "rebalanceTimeoutMs": 300000,
                "serverAssignor": "uniform",
                "classicMemberMetadata": None,
            },
        },
    )
    record(
        "payments/rec/c1-current",
        {
            "record": "ConsumerGroupCurrentMemberAssignment",
            "key": {**p, "memberId": "c1"},
            "value": {
                "memberEpoch": 5,
                "previousMemberEpoch": 4,
                "state": 0,
                "assignedPartitions": [{"topicId": PAYMENTS_ID, "partitions": [0, 1, 2]}],
                "partitionsPendingRevocation": [],
            },
        },
    )
    return out


def main() -> None:
    rows = records()
    (HERE / "kafka4-mixed.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"kafka4-mixed.jsonl: {len(rows)} records")


if __name__ == "__main__":
    main()
