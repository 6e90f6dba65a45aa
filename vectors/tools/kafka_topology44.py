"""Kafka 4.4's Streams topology description and the records it adds, written by Kafka's own generated classes at the
4.4 branch (8d3916cfe1): ``vectors/kafka-java-topology44.jsonl`` (StreamsGroupDescribe v0-1,
StreamsGroupTopologyDescriptionUpdate v0) and ``vectors/kafka-java-records44.jsonl`` (StreamsGroupMetadataValue with
tags 2-3, ShareGroupTargetAssignmentMetadataValue with tag 0, the share coordinator's ShareSnapshot and ShareUpdate
keys and values).

The cases are random values made from Kafka's message JSON by ``kafka_message_rand.py`` (seed 20261129, 12 a
version), and for each record value one with only its untagged fields (a value an older release wrote: its tags read
as their defaults). ``KafkaMessageGen.java`` hands each to the message's JsonConverter at the version, writes it
with the Data class (``org.apache.kafka.common.message``, ``org.apache.kafka.coordinator.group.generated``,
``org.apache.kafka.coordinator.share.generated``) and reads it back equal; its lines are the answers files
``kafka-topology44.answers.jsonl`` and ``kafka-records44.answers.jsonl``. A record's vector puts in front of Kafka's
bytes the int16 its coordinator writes first (the key's record type: 0 ShareSnapshot, 1 ShareUpdate, in the share
coordinator's own numbering; the value's version; the vector names no version, as no Kafka 4 record's does), its
expected value is Kafka's JSON (a value's with its ``valueVersion``, and the tagged fields Kafka's JsonConverter leaves
out at their defaults given those defaults). Nothing here imports this project's codec. From the repository root, with Kafka's message JSON at
the 4.4 commit in KAFKA (its clients/, group-coordinator/ and share-coordinator/ message folders):

    python vectors/tools/kafka_topology44.py cases KAFKA rpc > /tmp/rpc.in
    python vectors/tools/kafka_topology44.py cases KAFKA records > /tmp/records.in
    java -cp <Kafka's classes>:<jackson> KafkaMessageGen < /tmp/rpc.in > vectors/tools/kafka-topology44.answers.jsonl
    java -cp <Kafka's classes>:<jackson> KafkaMessageGen < /tmp/records.in > vectors/tools/kafka-records44.answers.jsonl
    python vectors/tools/kafka_topology44.py vectors rpc > vectors/kafka-java-topology44.jsonl
    python vectors/tools/kafka_topology44.py vectors records > vectors/kafka-java-records44.jsonl

``vectors`` refuses an answers file that lacks a case (KafkaMessageGen leaves out, with a line on stderr, a value
Kafka's class does not write or reads back otherwise).
"""

from __future__ import annotations

import io
import json
import re
import struct
import sys
from contextlib import redirect_stdout
from pathlib import Path

HERE = Path(__file__).parent
COMMIT = "8d3916cfe15f13a2d878c79d302ba2d63172f0af"
SEED, N = 20261129, 12
CLIENTS = "clients/src/main/resources/common/message"
GROUP = "group-coordinator/src/main/resources/common/message"
SHARE = "share-coordinator/src/main/resources/common/message"
GROUP_PKG = "org.apache.kafka.coordinator.group.generated"
SHARE_PKG = "org.apache.kafka.coordinator.share.generated"
RPCS = [
    (CLIENTS, name, None)
    for name in (
        "StreamsGroupDescribeRequest",
        "StreamsGroupDescribeResponse",
        "StreamsGroupTopologyDescriptionUpdateRequest",
        "StreamsGroupTopologyDescriptionUpdateResponse",
    )
]
# (folder, message, package, record type in its coordinator)
RECORDS = [
    (GROUP, "StreamsGroupMetadataValue", GROUP_PKG, 17),
    (GROUP, "ShareGroupTargetAssignmentMetadataValue", GROUP_PKG, 12),
    (SHARE, "ShareSnapshotKey", SHARE_PKG, 0),
    (SHARE, "ShareSnapshotValue", SHARE_PKG, 0),
    (SHARE, "ShareUpdateKey", SHARE_PKG, 1),
    (SHARE, "ShareUpdateValue", SHARE_PKG, 1),
]
# the top-level tagged fields of the record values at their defaults, as Kafka's message JSON gives them (a JSON null
# for an array, LastAssignmentConfigs', is Kafka's empty array): Kafka's JsonConverter leaves out a tagged field at its
# default, which the value its class read back holds; a vector shows the whole value
TAGGED_DEFAULTS = {
    "StreamsGroupMetadataValue": {
        "validatedTopologyEpoch": -1,
        "lastAssignmentConfigs": [],
        "storedDescriptionTopologyEpoch": -1,
        "failedDescriptionTopologyEpoch": -1,
    },
    "ShareGroupTargetAssignmentMetadataValue": {"assignmentTimestamp": 0},
    "ShareSnapshotValue": {"deliveryCompleteCount": -1},
    "ShareUpdateValue": {"deliveryCompleteCount": -1},
}
ANSWERS = {"rpc": HERE / "kafka-topology44.answers.jsonl", "records": HERE / "kafka-records44.answers.jsonl"}


def _untagged(data: dict, path: Path) -> dict:
    """``data`` without the top level's tagged fields (Kafka's JSON names them in camel case)."""
    raw = json.loads(re.sub(r"(?m)^\s*//.*$", "", path.read_text(encoding="utf-8")))
    tagged = {f["name"][0].lower() + f["name"][1:] for f in raw["fields"] if "tag" in f}
    return {k: v for k, v in data.items() if k not in tagged}


def cases(kafka: Path, which: str) -> None:
    sys.path.insert(0, str(HERE))
    import kafka_message_rand  # noqa: PLC0415 (a sibling tool)

    for folder, name, pkg, *_ in RPCS if which == "rpc" else RECORDS:
        path = kafka / folder / f"{name}.json"
        buf = io.StringIO()
        with redirect_stdout(buf):
            kafka_message_rand.main(str(path), SEED, N, *([pkg] if pkg else []))
        lines = [json.loads(line) for line in buf.getvalue().splitlines()]
        if which == "records" and name.endswith("Value"):
            extra = dict(lines[0], index=N, data=_untagged(lines[0]["data"], path))
            lines.append(extra)
        for line in lines:
            print(json.dumps(line, ensure_ascii=False))


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def vectors(which: str) -> None:
    answers = [json.loads(line) for line in ANSWERS[which].read_text(encoding="utf-8").splitlines()]
    want = {
        name: N + (which == "records" and name.endswith("Value"))
        for _, name, *_ in (RPCS if which == "rpc" else RECORDS)
    }
    got: dict[str, int] = {}
    for a in answers:
        got[a["kind"]] = got.get(a["kind"], 0) + 1
    for name, n in want.items():
        versions = {a["version"] for a in answers if a["kind"] == name}
        if got.get(name, 0) != n * max(1, len(versions)):
            raise SystemExit(f"{name}: {got.get(name, 0)} answers, want {n} a version")
    rtypes = {name: t for _, name, _, t in RECORDS}
    for a in answers:
        kind, v, i = a["kind"], a["version"], a["index"]
        base = {"id": f"kj44-{kind.lower()}-v{v}-{i}", "message": kind, "version": v}
        prov = {
            "source": "kafka-java",
            "commit": COMMIT,
            "record": f"vectors/tools/{ANSWERS[which].name}:{kind}-v{v}-{i}",
        }
        if which == "rpc":
            cls = f"org.apache.kafka.common.message.{kind}Data"
            vec = {
                **base,
                "description": f"Kafka's generated {kind} class at v{v} (random case {i}), written and read by Kafka",
                "wire": a["hex"],
                "expected": a["data"],
            }
        else:
            pkg = SHARE_PKG if kind.startswith(("ShareSnapshot", "ShareUpdate")) else GROUP_PKG
            cls, t = f"{pkg}.{kind}", rtypes[kind]
            coordinator = "the share coordinator's" if pkg == SHARE_PKG else "the group coordinator's"
            if kind.endswith("Key"):
                prefix, what = t, f"record type {t} ({coordinator} numbering)"
                expected = a["data"]
            else:
                prefix, what = v, f"value version {v}"
                expected = {"valueVersion": v, **a["data"]}
                for k, default in TAGGED_DEFAULTS[kind].items():
                    expected.setdefault(k, default)
                expected = {
                    k: expected[k] for k in ("valueVersion", *a["data"], *TAGGED_DEFAULTS[kind]) if k in expected
                }
            case = "only its untagged fields set" if i == N else f"random case {i}"
            vec = {
                **base,
                "version": None,  # a record part's version is in its bytes (its vectors name none, as Kafka 4's)
                "description": f"{kind} ({case}): {what}, then Kafka's bytes; written and read by Kafka",
                "wire": struct.pack(">h", prefix).hex() + a["hex"],
                "expected": expected,
            }
            prov["note"] = f"the int16 before Kafka's bytes is the one {coordinator} record serde writes"
        vec |= {"result": "valid", "canonical": True, "flags": []}
        prov["checkedBy"] = f"{cls} (JsonConverter read, write, read back equal) at Kafka's 4.4 branch"
        vec["provenance"] = prov
        print(json.dumps(vec, ensure_ascii=False))


if __name__ == "__main__":
    if sys.argv[1] == "cases":
        cases(Path(sys.argv[2]), sys.argv[3])
    else:
        vectors(sys.argv[2])
