"""Kafka 4.4's Streams group heartbeat, written by Kafka's own generated classes: ``vectors/kafka-java-streams44.jsonl``
(StreamsGroupHeartbeatRequest and StreamsGroupHeartbeatResponse, v0 and v1).

4.4 (KIP-1331) bumped both to v1: the request's body is v0's; the response's int32 ``AcceptableRecoveryLag`` became
``AcceptableRecoveryLagLegacy`` (v0 only) beside a new int64 ``AcceptableRecoveryLag`` (v1+, default -1, ignorable)
and ``TopologyDescriptionRequired`` (v1+), and status 6 ``MISSING_CLIENT_TAGS`` is sent to v1 clients only. The
values below are chosen by hand for that: a joining member's whole topology, a steady heartbeat with every nullable
field null, a v1 response with a lag past 2^31 and the topology description asked for, status 6, and a v1 response
with the broker's lag unset (-1). Kafka's classes (``org.apache.kafka.common.message.*Data`` generated on Kafka's 4.4
branch, 8d3916cfe1) write each value and read the bytes back through ``vectors/tools/KafkaRules.java`` ("write"); a
vector's bytes are Kafka's, its value the one Kafka read back. Nothing here imports this project's codec. From the
repository root:

    python vectors/tools/kafka_streams44.py cases > /tmp/streams44.cases.jsonl
    java -cp <Kafka's classes>:<jackson> KafkaRules 8d3916cfe15f13a2d878c79d302ba2d63172f0af \\
        < /tmp/streams44.cases.jsonl > vectors/tools/kafka-streams44.answers.jsonl
    python vectors/tools/kafka_streams44.py vectors > vectors/kafka-java-streams44.jsonl

``vectors`` refuses an answer that is missing, failed, or read back another value than the one written.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ANSWERS = Path(__file__).parent / "kafka-streams44.answers.jsonl"
PACKAGE = "org.apache.kafka.common.message."

_JOIN = {
    "groupId": "orders-app",
    "memberId": "m-1",
    "memberEpoch": 0,
    "endpointInformationEpoch": -1,
    "instanceId": "instance-1",
    "rackId": "rack-a",
    "rebalanceTimeoutMs": 300000,
    "topology": {
        "epoch": 2,
        "subtopologies": [
            {
                "subtopologyId": "0",
                "sourceTopics": ["orders"],
                "sourceTopicRegex": ["payments-.*"],
                "stateChangelogTopics": [
                    {
                        "name": "orders-app-store-changelog",
                        "partitions": 6,
                        "replicationFactor": 3,
                        "topicConfigs": [{"key": "cleanup.policy", "value": "compact"}],
                    }
                ],
                "repartitionSinkTopics": ["orders-app-by-customer-repartition"],
                "repartitionSourceTopics": [
                    {
                        "name": "orders-app-by-customer-repartition",
                        "partitions": 4,
                        "replicationFactor": -1,
                        "topicConfigs": [],
                    }
                ],
                "copartitionGroups": [{"sourceTopics": [0], "sourceTopicRegex": [0], "repartitionSourceTopics": [0]}],
            }
        ],
    },
    "activeTasks": [{"subtopologyId": "0", "partitions": [0, 3]}],
    "standbyTasks": [{"subtopologyId": "0", "partitions": [1]}],
    "warmupTasks": [],
    "processId": "5b7c0e3a-5f1d-4c1e-9a0b-000000000001",
    "userEndpoint": {"host": "app-1.example", "port": 7070},
    "clientTags": [{"key": "zone", "value": "eu-west-1a"}],
    "taskOffsets": [{"subtopologyId": "0", "partition": 1, "offset": 4096}],
    "taskEndOffsets": [{"subtopologyId": "0", "partition": 1, "offset": 5000}],
    "shutdownApplication": False,
}
_STEADY = {
    "groupId": "orders-app",
    "memberId": "m-1",
    "memberEpoch": 12,
    "endpointInformationEpoch": 4,
    "instanceId": None,
    "rackId": None,
    "rebalanceTimeoutMs": -1,
    "topology": None,
    "activeTasks": None,
    "standbyTasks": None,
    "warmupTasks": None,
    "processId": None,
    "userEndpoint": None,
    "clientTags": None,
    "taskOffsets": None,
    "taskEndOffsets": None,
    "shutdownApplication": False,
}


def _response(version: int, *, lag: int, required: bool, status: list[dict]) -> dict:
    out: dict = {
        "throttleTimeMs": 0,
        "errorCode": 0,
        "errorMessage": None,
        "memberId": "m-1",
        "memberEpoch": 13,
        "heartbeatIntervalMs": 5000,
    }
    if version == 0:
        out["acceptableRecoveryLagLegacy"] = lag
    out["taskOffsetIntervalMs"] = 60000
    if version >= 1:
        out["acceptableRecoveryLag"] = lag
    out["status"] = status
    out["activeTasks"] = [{"subtopologyId": "0", "partitions": [0, 3]}]
    out["standbyTasks"] = [{"subtopologyId": "0", "partitions": [1]}]
    out["warmupTasks"] = []
    if version >= 1:
        out["topologyDescriptionRequired"] = required
    out["endpointInformationEpoch"] = 5
    out["partitionsByUserEndpoint"] = [
        {
            "userEndpoint": {"host": "app-1.example", "port": 7070},
            "activePartitions": [{"topic": "orders", "partitions": [0, 3]}],
            "standbyPartitions": [{"topic": "orders", "partitions": [1]}],
        }
    ]
    return out


def cases() -> list[tuple[str, str, int, dict, str]]:
    """(id, message, version, Kafka's JSON of the value, description)."""
    out = []
    for version in (0, 1):
        out.append(
            (
                f"kj44-sghb-request-v{version}-join",
                "StreamsGroupHeartbeatRequest",
                version,
                _JOIN,
                f"StreamsGroupHeartbeatRequest v{version}: a static member joining with its whole topology (a source "
                "regex, a changelog with a config, a repartition topic, a copartition group), tasks, endpoint, "
                "client tags and task offsets",
            )
        )
        out.append(
            (
                f"kj44-sghb-request-v{version}-steady",
                "StreamsGroupHeartbeatRequest",
                version,
                _STEADY,
                f"StreamsGroupHeartbeatRequest v{version}: a steady heartbeat, every nullable field null",
            )
        )
    out.append(
        (
            "kj44-sghb-response-v0-assignment",
            "StreamsGroupHeartbeatResponse",
            0,
            _response(0, lag=10000, required=False, status=[]),
            "StreamsGroupHeartbeatResponse v0: an assignment, the int32 AcceptableRecoveryLagLegacy",
        )
    )
    out.append(
        (
            "kj44-sghb-response-v1-lag-past-int32",
            "StreamsGroupHeartbeatResponse",
            1,
            _response(
                1,
                lag=5_000_000_000,
                required=True,
                status=[{"statusCode": 6, "statusDetail": "client tags missing for rack-aware assignment"}],
            ),
            "StreamsGroupHeartbeatResponse v1: an int64 AcceptableRecoveryLag past 2^31, the topology description "
            "asked for, status 6 MISSING_CLIENT_TAGS",
        )
    )
    out.append(
        (
            "kj44-sghb-response-v1-lag-unset",
            "StreamsGroupHeartbeatResponse",
            1,
            _response(1, lag=-1, required=False, status=[]),
            "StreamsGroupHeartbeatResponse v1: the broker's acceptable recovery lag unset (-1, the default)",
        )
    )
    return out


def _case_line(vid: str, message: str, version: int, value: dict) -> str:
    return json.dumps(
        {"id": vid, "op": "write", "class": f"{PACKAGE}{message}Data", "version": version, "value": value},
        ensure_ascii=True,
    )


def vectors(answers: dict[str, dict]) -> list[dict]:
    out = []
    for vid, message, version, value, description in cases():
        a = answers.get(vid)
        if a is None or not a.get("ok"):
            raise SystemExit(f"{vid}: no answer from Kafka's classes ({(a or {}).get('error', 'missing')})")
        if a["value"] != value:
            raise SystemExit(f"{vid}: Kafka read back {a['value']!r}, not the value written")
        out.append(
            {
                "id": vid,
                "message": message,
                "version": version,
                "description": description + "; written and read by Kafka",
                "wire": a["hex"],
                "expected": a["value"],
                "result": "valid",
                "canonical": True,
                "flags": [],
                "provenance": {
                    "source": "kafka-java",
                    "commit": a["commit"],
                    "record": f"vectors/tools/{ANSWERS.name}:{vid}",
                    "checkedBy": f"{a['class']} (write)",
                    "note": "written by Kafka's generated class on its 4.4 branch and read back by it",
                },
            }
        )
    return out


def main(argv: list[str]) -> int:
    if argv[1:] == ["cases"]:
        for vid, message, version, value, _ in cases():
            print(_case_line(vid, message, version, value))
        return 0
    if argv[1:] == ["vectors"]:
        lines = ANSWERS.read_text(encoding="utf-8").splitlines()
        answers = {a["id"]: a for a in map(json.loads, filter(str.strip, lines))}
        for v in vectors(answers):
            print(json.dumps(v, ensure_ascii=False))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
