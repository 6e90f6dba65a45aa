"""The classic group's ``__consumer_offsets`` records written by Kafka's own generated classes:
``vectors/kafka-java-offsets.jsonl`` (GroupMetadataKey v2, OffsetCommitKey v0-1, GroupMetadataValue and
OffsetCommitValue v0-4, v4 with and without the tagged topicId that Kafka 4.1+ writes).

The values below are chosen by hand for what each version adds (``rebalanceTimeout`` v1+, ``currentStateTimestamp``
v2+, ``groupInstanceId`` v3+, OffsetCommitValue's ``expireTimestamp`` in v1 only and ``leaderEpoch`` v3+, the
compact lengths and tagged fields of v4, OffsetCommitValue v4's tagged ``topicId``), with null ``protocol``/``leader``
where they are nullable, empty and large assignment bytes, and real ConsumerProtocol bytes as a member's subscription
and assignment. Kafka's classes (``org.apache.kafka.coordinator.group.generated.*``, generated at the commit
``schemas/`` follows for these tables, the 4.3.1 release) write each value and read the bytes back, through
``vectors/tools/KafkaRules.java`` ("write"); a vector's bytes are the int16 the coordinator writes first (the key's
version, which is its record type; the value's version) and Kafka's bytes, its value the one Kafka read back. Kafka 4
writes every key's body at version 0 behind its record type, and names the record type 0's key
``LegacyOffsetCommitKey`` (:func:`java_class`). Nothing here imports this project's codec. From the repository root:

    python vectors/tools/kafka_offsets.py cases > /tmp/offsets.cases.jsonl
    java -cp <Kafka's classes>:<jackson> KafkaRules 26b251a451ce941d3d7a55e6487bcb7f16b5ad48 \\
        < /tmp/offsets.cases.jsonl > vectors/tools/kafka-offsets.answers.jsonl
    python vectors/tools/kafka_offsets.py vectors > vectors/kafka-java-offsets.jsonl

``vectors`` refuses an answer that is missing, failed, or read back another value than the one written.
"""

from __future__ import annotations

import base64
import json
import struct
import sys
from pathlib import Path

ANSWERS = Path(__file__).parent / "kafka-offsets.answers.jsonl"
PACKAGE = "org.apache.kafka.coordinator.group.generated."


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _str16(s: str) -> bytes:
    raw = s.encode()
    return struct.pack(">h", len(raw)) + raw


# ConsumerProtocolSubscription v0 (topics orders, payments; null userData) and ConsumerProtocolAssignment v0
# (orders 0 and 2; null userData), assembled field by field (kafka-wire-facts.md)
SUBSCRIPTION = struct.pack(">hi", 0, 2) + _str16("orders") + _str16("payments") + struct.pack(">i", -1)
ASSIGNMENT = struct.pack(">hi", 0, 1) + _str16("orders") + struct.pack(">iiii", 2, 0, 2, -1)
LARGE = bytes(i * 7 % 251 for i in range(16_500))  # a uvarint length of three bytes at v4, an int32 below


def _member(
    n: int,
    version: int,
    *,
    instance: str | None = None,
    subscription: bytes = SUBSCRIPTION,
    assignment: bytes = ASSIGNMENT,
) -> dict:
    m: dict = {"memberId": f"consumer-{n}-5b7c0e3a-5f1d-4c1e-9a0b-{n:012d}"}
    if version >= 3:
        m["groupInstanceId"] = instance
    m.update({"clientId": f"consumer-{n}", "clientHost": f"/10.0.0.{n}"})
    if version >= 1:
        m["rebalanceTimeout"] = 300_000 + n
    m.update({"sessionTimeout": 45_000, "subscription": _b64(subscription), "assignment": _b64(assignment)})
    return m


def _group(
    version: int,
    generation: int,
    protocol: str | None,
    leader: str | None,
    members: list[dict],
    protocol_type: str = "consumer",
    state_ts: int = 1_700_000_000_123,
) -> dict:
    v: dict = {"protocolType": protocol_type, "generation": generation, "protocol": protocol, "leader": leader}
    if version >= 2:
        v["currentStateTimestamp"] = state_ts
    v["members"] = members
    return v


# a topic id as Kafka's JSON writes a Uuid (URL-safe base64, no padding): 7b1c9e2a-4d3f-4e8a-9c51-2f6d0a83b4e7
TOPIC_ID = "exyeKk0_ToqcUS9tCoO05w"


def _offset(
    version: int,
    offset: int,
    metadata: str,
    epoch: int = 7,
    expire: int = 1_700_086_400_000,
    topic_id: str | None = None,
) -> dict:
    v: dict = {"offset": offset}
    if version >= 3:
        v["leaderEpoch"] = epoch
    v.update({"metadata": metadata, "commitTimestamp": 1_700_000_000_000})
    if version == 1:
        v["expireTimestamp"] = expire
    if topic_id is not None:
        v["topicId"] = topic_id
    return v


def cases() -> list[tuple[str, str, int, dict, str]]:
    """(vector id, message, version, value, description) of every vector."""
    out = [
        (
            "kj-groupmetadatakey-v2-0",
            "GroupMetadataKey",
            2,
            {"group": "payments-app"},
            "The key of a classic group's metadata record: record type (key version) 2, then the group id",
        ),
        (
            "kj-offsetcommitkey-v1-0",
            "OffsetCommitKey",
            1,
            {"group": "payments-app", "topic": "orders", "partition": 2},
            "The key of a committed offset: record type (key version) 1, as Kafka's coordinator writes it",
        ),
        (
            "kj-offsetcommitkey-v0-0",
            "OffsetCommitKey",
            0,
            {"group": "legacy-app", "topic": "clicks.\u00e9v\u00e9nements", "partition": 2147483647},
            "The key of a committed offset at record type 0 (the same layout; Kafka reads both): a non-ASCII topic, "
            "partition 2^31-1",
        ),
    ]
    leader = _member(1, 0)["memberId"]
    for v in range(5):
        members = [_member(1, v, instance="checkout-1" if v >= 3 else None), _member(2, v, instance=None)]
        out.append(
            (
                f"kj-groupmetadatavalue-v{v}-0",
                "GroupMetadataValue",
                v,
                _group(v, 3 + v, "range", _member(1, v)["memberId"], members),
                f"A stable consumer group at v{v}: two members with ConsumerProtocol v0 subscription and "
                f"assignment bytes" + (", one static (groupInstanceId) and one not" if v >= 3 else ""),
            )
        )
        out.append(
            (
                f"kj-groupmetadatavalue-v{v}-empty",
                "GroupMetadataValue",
                v,
                _group(v, 0, None, None, [], protocol_type="", state_ts=-1),
                f"An empty group at v{v}: no protocol type, generation 0, null protocol and leader, no members",
            )
        )
        out.append(
            (
                f"kj-groupmetadatavalue-v{v}-bytes",
                "GroupMetadataValue",
                v,
                _group(
                    v,
                    12,
                    "cooperative-sticky",
                    leader,
                    [
                        _member(1, v, subscription=b"", assignment=b""),
                        _member(
                            3, v, instance="" if v >= 3 else None, assignment=LARGE if v in (0, 4) else ASSIGNMENT * 3
                        ),
                    ],
                ),
                f"A group at v{v} whose leader's subscription and assignment are empty bytes and whose other "
                f"member's assignment is {'16,500 bytes' if v in (0, 4) else 'three assignments long'}"
                + (" (an empty groupInstanceId, not null)" if v >= 3 else ""),
            )
        )
    for v in range(5):
        out.append(
            (
                f"kj-offsetcommitvalue-v{v}-0",
                "OffsetCommitValue",
                v,
                _offset(v, 42_137, "checkpoint-7"),
                f"A committed offset at v{v} with client metadata"
                + {
                    1: " and an expire timestamp (v1 only)",
                    3: " and the leader epoch",
                    4: " and the leader epoch, flexible",
                }.get(v, ""),
            )
        )
        out.append(
            (
                f"kj-offsetcommitvalue-v{v}-edge",
                "OffsetCommitValue",
                v,
                _offset(v, 9_223_372_036_854_775_807, "", epoch=-1, expire=-1),
                f"A committed offset at v{v}: offset 2^63-1, empty metadata"
                + {
                    1: ", no expire timestamp (-1)",
                    3: ", unknown leader epoch (-1)",
                    4: ", unknown leader epoch (-1)",
                }.get(v, ""),
            )
        )
    out.append(
        (
            "kj-offsetcommitvalue-v4-topicid",
            "OffsetCommitValue",
            4,
            _offset(4, 42_137, "checkpoint-7", topic_id=TOPIC_ID),
            "A committed offset at v4 as a Kafka 4.1+ coordinator writes it for a commit that named the topic's "
            "id: the topicId in tagged field 0 (16 bytes)",
        )
    )
    return out


def java_class(message: str, version: int) -> tuple[str, int]:
    """Kafka 4's class for a record part and the version it is written at: a key's body is version 0 (its version
    here is the record type), and record type 0's key is ``LegacyOffsetCommitKey``."""
    if not message.endswith("Key"):
        return message, version
    return ("LegacyOffsetCommitKey" if (message, version) == ("OffsetCommitKey", 0) else message), 0


def _case_line(vid: str, message: str, version: int, value: dict) -> str:
    java, at = java_class(message, version)
    return json.dumps(
        {"id": vid, "op": "write", "class": PACKAGE + java, "version": at, "value": value}, ensure_ascii=True
    )


def vectors(answers: dict[str, dict]) -> list[dict]:
    out = []
    for vid, message, version, value, description in cases():
        a = answers.get(vid)
        if a is None or not a.get("ok"):
            raise SystemExit(f"{vid}: no answer from Kafka's classes ({(a or {}).get('error', 'missing')})")
        if a["value"] != value:
            raise SystemExit(f"{vid}: Kafka read back {a['value']!r}, not the value written")
        expected = {"valueVersion": version, **a["value"]} if message.endswith("Value") else a["value"]
        out.append(
            {
                "id": vid,
                "message": message,
                "version": version,
                "description": description + "; written and read by Kafka",
                "wire": struct.pack(">h", version).hex() + a["hex"],
                "expected": expected,
                "result": "valid",
                "canonical": True,
                "flags": [],
                "provenance": {
                    "source": "kafka-java",
                    "commit": a["commit"],
                    "record": f"vectors/tools/{ANSWERS.name}:{vid}",
                    "checkedBy": f"{a['class']} (write)",
                    "note": "written by Kafka's generated class and read back by it; the int16 before "
                    "its bytes is the one the group coordinator writes",
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
