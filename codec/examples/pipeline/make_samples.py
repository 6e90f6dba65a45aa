"""Regenerate the pipeline's bundled sample captures from Kafka-written bytes.

    python codec/examples/pipeline/make_samples.py [/work/shared]

Every classic consumer record's bytes were written by Apache Kafka's own classes (the reference vectors
``vectors/kafka-java/{nested_streams,subscription,assignment}.jsonl``) or captured off the wire
(``captures/frames.jsonl``). Only the context columns (group, member, generation, timestamp) are made
up here, and the ``__consumer_offsets`` group-metadata records wrap Kafka-written ConsumerProtocol bytes in a
GroupMetadataValue written by :mod:`codec.pipeline.offsets`. The Kafka Connect cluster is a coherent one with
real-looking names (:func:`connect_group`): its rounds run Connect's incremental cooperative assignor and its
bytes come from :mod:`codec.connect`'s writers, held byte for byte to Kafka's ``connect.jsonl``. The Kafka 4 groups (the
KIP-1071 streams group ``checkout-app`` and the KIP-848 consumer group ``payments``) are the valid records of
``make_kafka4_sample.py``, each value written out there. The malformed records are named ``bad/...`` and say
in ``note`` how they were broken.

Outputs, next to this script:

* ``captures.jsonl``: 58 records: 34 good classic ones, 15 Kafka 4 frames and bodies (StreamsGroupHeartbeat,
  StreamsGroupDescribe, ConsumerGroupHeartbeat, ConsumerGroupDescribe), 9 malformed incl. one line that is not
  JSON;
* ``offsets.parquet``: 12 ``__consumer_offsets`` records (key/value binary): two classic group-metadata
  values (``ledger-app``, a Streams group, and ``connect-cluster``, a Kafka Connect group of two workers), one
  malformed value, one offset commit and one tombstone (the last two are not selected), and 7 records of the
  Kafka 4 groups (their group epochs, member metadata, current and target assignments);
* ``frames.jsonl``: one capture scenario (runA/java-default) as ``frames.jsonl`` writes it.

So the job's bundled example holds every protocol family it reads: classic consumer groups with Kafka Streams
metadata, Kafka Connect, and Kafka 4's consumer and streams groups.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DAY = 86_400_000
BASE_TS = 1_729_857_600_000  # 2024-10-25T12:00:00Z


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def captures(shared: Path) -> list[dict]:
    vec = shared / "vectors" / "kafka-java"
    nested = {r["streamsVersion"]: r for r in _lines(vec / "nested_streams.jsonl")}
    out: list[dict] = []
    # streams-app: one member through a rolling history, one generation per Streams version
    for v in range(1, 12):
        r = nested[v]
        ts = BASE_TS + (v - 1) * DAY
        jg, sg = r["joinGroupRequest"], r["syncGroupResponse"]
        out.append(
            {
                "record_id": f"streams-app/g{v}/join",
                "kind": "join-group-request",
                "version": jg["version"],
                "member": "streams-app-c1",
                "generation": v,
                "timestamp": ts,
                "hex": jg["hex"],
            }
        )
        out.append(
            {
                "record_id": f"streams-app/g{v}/sync",
                "kind": "sync-group-response",
                "version": sg["version"],
                "group": "streams-app",
                "member": "streams-app-c1",
                "generation": v,
                "timestamp": ts + 1000,
                "hex": sg["hex"],
            }
        )
    # orders-app: three members, two generations, from the random vectors (v10 then v11)
    subs = [r for r in _lines(vec / "subscription.jsonl")]
    asgs = [r for r in _lines(vec / "assignment.jsonl")]
    for gen, v in ((4, 10), (5, 11)):
        s = [r for r in subs if r["version"] == v][:3]
        a = [r for r in asgs if r["version"] == v][:3]
        for i in range(3):
            ts = BASE_TS + (gen + 7) * DAY + i * 1000
            common = {"group": "orders-app", "member": f"orders-{i + 1}", "generation": gen}
            out.append(
                {
                    "record_id": f"orders-app/g{gen}/sub/{i + 1}",
                    "kind": "subscription-info",
                    **common,
                    "timestamp": ts,
                    "hex": s[i]["hex"],
                    "vector": f"subscription.jsonl v{v} #{s[i]['index']}",
                }
            )
            out.append(
                {
                    "record_id": f"orders-app/g{gen}/asg/{i + 1}",
                    "kind": "assignment",
                    **common,
                    "timestamp": ts + 500,
                    "hex": a[i]["hex"],
                    "vector": f"assignment.jsonl v{v} #{a[i]['index']}",
                }
            )
    # malformed records
    sedge = {r["id"]: r for r in _lines(vec / "subscription_edge.jsonl")}
    aedge = {r["id"]: r for r in _lines(vec / "assignment_edge.jsonl")}
    sync11 = nested[11]["syncGroupResponse"]["hex"]
    inner = nested[11]["assignment"]["hex"]
    at = sync11.index(inner)
    future = sync11[:at] + "0000000c" + sync11[at + 8 :]  # the nested AssignmentInfo's version word -> 12
    bad_ts = BASE_TS + 13 * DAY
    out += [
        {
            "record_id": "bad/truncated-subscription",
            "kind": "subscription-info",
            "group": "streams-app",
            "member": "streams-app-c1",
            "generation": 12,
            "timestamp": bad_ts,
            "hex": nested[7]["subscription"]["hex"][:60],
            "note": "a v7 SubscriptionInfo cut after 30 bytes",
        },
        {
            "record_id": "bad/edge-subscription-truncated",
            "kind": "subscription-info",
            "timestamp": bad_ts,
            "hex": sedge["error-truncated"]["hex"],
            "note": "subscription_edge error-truncated",
        },
        {
            "record_id": "bad/edge-assignment-future",
            "kind": "assignment-info",
            "timestamp": bad_ts,
            "hex": aedge["error-decode-future-version"]["hex"],
            "note": "assignment_edge error-decode-future-version",
        },
        {
            "record_id": "bad/edge-assignment-truncated",
            "kind": "assignment-info",
            "timestamp": bad_ts,
            "hex": aedge["error-truncated"]["hex"],
            "note": "assignment_edge error-truncated",
        },
        {
            "record_id": "bad/not-hex",
            "kind": "assignment-info",
            "timestamp": bad_ts,
            "hex": "00000007zz",
            "note": "not hex",
        },
        {
            "record_id": "bad/unknown-kind",
            "kind": "heartbeat-request",
            "version": 4,
            "timestamp": bad_ts,
            "hex": "00",
            "note": "a kind the pipeline does not take",
        },
        {
            "record_id": "bad/body-without-version",
            "kind": "join-group-request",
            "timestamp": bad_ts,
            "hex": nested[11]["joinGroupRequest"]["hex"],
            "note": "a JoinGroup body without its API version",
        },
        {
            "record_id": "bad/nested-assignment-v12",
            "kind": "sync-group-response",
            "version": 5,
            "group": "streams-app",
            "member": "streams-app-c1",
            "generation": 12,
            "timestamp": bad_ts,
            "hex": future,
            "note": "v11 SyncGroupResponse whose AssignmentInfo version word was set to 12",
        },
    ]
    return out + kafka4()[0]


KAFKA4_TS = BASE_TS + 15 * DAY


def kafka4() -> tuple[list[dict], list[dict]]:
    """The valid records of ``make_kafka4_sample.py``'s two Kafka 4 groups, retimed into these samples' days:
    (frames and bodies, for ``captures.jsonl``; ``__consumer_offsets`` key/value records, for the Parquet)."""
    sys.path.insert(0, str(HERE))
    import make_kafka4_sample

    lines, records = [], []
    for r in make_kafka4_sample.records():
        if not r["record_id"].startswith(("checkout/", "payments/")) or r["record_id"] == "payments/rec/commit":
            continue
        if "key" in r:
            if r["value"] is not None:
                records.append(r)
            continue
        lines.append(r)
    for i, r in enumerate(lines + records):
        r["timestamp"] = KAFKA4_TS + i * 1000
    return lines, records


#: The bundled Kafka Connect cluster: four connectors, ten tasks, two workers on ``sessioned``.
CONNECTORS = {"jdbc-orders-source": 2, "s3-events-sink": 4, "mirror-eu-west": 3, "debezium-inventory": 1}
CONNECT_OFFSET = 42  # the config topic's offset both workers have read to


def connect_group() -> bytes:
    """A Kafka Connect group as its coordinator stores it at generation 4, the second of the two rebalances a new
    worker causes under incremental cooperative rebalancing (KIP-415, seed 003). At generation 2 ``worker-1``
    ran every connector and task alone; ``worker-2`` joined, and at generation 3 the leader revoked from
    ``worker-1`` what the new worker should run; at generation 4 each worker's metadata carries the assignment it
    holds (as ``WorkerCoordinator.onJoinComplete`` keeps it: the last one received, what was kept added), and the
    leader hands ``worker-2`` the revoked connectors and tasks. Both rounds are
    :func:`codec.assignor.connect.assign_connect` (Kafka's ``IncrementalCooperativeAssignor``); the bytes are
    :mod:`codec.connect`'s writers in Kafka's Java order, which the tests hold byte for byte to the Kafka-written
    ``connect.jsonl``."""
    from dataclasses import replace

    from codec.connect import ConnectAssignment, ConnectMetadata, ConnectorTaskId, encode_connect_metadata
    from codec.assignor.connect import ConnectWorker, assign_connect
    from codec.pipeline.offsets import GroupMetadata, MemberMetadata, encode_group_metadata

    urls = {"worker-1": "http://10.0.2.1:8083/", "worker-2": "http://10.0.2.2:8083/"}
    held = {
        "worker-1": ConnectAssignment(
            version=2,
            leader="worker-1",
            leader_url=urls["worker-1"],
            config_offset=CONNECT_OFFSET,
            connectors=tuple(CONNECTORS),
            tasks=tuple(ConnectorTaskId(c, t) for c, n in CONNECTORS.items() for t in range(n)),
        )
    }
    rounds = []
    for generation in (3, 4):
        metadata = {
            m: ConnectMetadata(version=2, url=url, config_offset=CONNECT_OFFSET, allocation=held.get(m))
            for m, url in urls.items()
        }
        result = assign_connect(
            "sessioned",
            "worker-1",
            [ConnectWorker.from_metadata(m, metadata[m]) for m in urls],
            CONNECTORS,
            state=rounds[-1][1].state if rounds else None,
            generation_id=generation,
            last_completed_generation_id=generation - 1,
        )
        rounds.append((metadata, result))
        for m, got in result.assignments.items():  # onJoinComplete: the new assignment plus what was not revoked
            before = held.get(m)
            kept_c = () if before is None else tuple(c for c in before.connectors if c not in got.revoked_connectors)
            kept_t = () if before is None else tuple(t for t in before.tasks if t not in got.revoked_tasks)
            held[m] = replace(got, connectors=got.connectors + kept_c, tasks=got.tasks + kept_t)
    metadata, result = rounds[-1]
    assignments = result.encoded(java_order=True)
    workers = tuple(
        MemberMetadata(
            m,
            None,
            f"connect-{i + 1}",
            f"/10.0.2.{i + 1}",
            300000,
            10000,
            encode_connect_metadata(metadata[m], java_order=True),
            assignments[m],
        )
        for i, m in enumerate(urls)
    )
    return encode_group_metadata(GroupMetadata(3, "connect", 4, "sessioned", "worker-1", BASE_TS + 14 * DAY, workers))


def offsets(shared: Path):
    import pyarrow as pa

    from codec.pipeline.offsets import GroupMetadata, MemberMetadata, encode_group_metadata, encode_group_metadata_key

    vec = shared / "vectors" / "kafka-java"
    nested = {r["streamsVersion"]: r for r in _lines(vec / "nested_streams.jsonl")}

    def member(mid: str, v: int) -> MemberMetadata:
        r = nested[v]
        return MemberMetadata(
            mid,
            None,
            f"{mid}-client",
            "/10.0.0.7",
            300000,
            45000,
            bytes.fromhex(r["consumerProtocolSubscription"]["hexVersionPrefixed"]),
            bytes.fromhex(r["consumerProtocolAssignment"]["hexVersionPrefixed"]),
        )

    ts = BASE_TS + 14 * DAY
    value = encode_group_metadata(
        GroupMetadata(3, "consumer", 7, "stream", "ledger-1", ts, (member("ledger-1", 10), member("ledger-2", 11)))
    )
    broken = encode_group_metadata(GroupMetadata(3, "consumer", 2, "stream", "broken-1", ts, (member("broken-1", 9),)))
    commit_key = bytes.fromhex("0001") + b"\x00\x0aledger-app" + b"\x00\x03src" + (0).to_bytes(4, "big")
    rows = [
        (encode_group_metadata_key("ledger-app"), value, 0, ts),
        (encode_group_metadata_key("broken-app"), broken[:-20], 1, ts + 1),  # truncated inside the assignment
        (commit_key, bytes.fromhex("0003") + bytes(30), 2, ts + 2),  # an offset commit: not selected
        (encode_group_metadata_key("old-app"), None, 3, ts + 3),  # a tombstone: not selected
        (encode_group_metadata_key("connect-cluster"), connect_group(), 4, ts + 4),
    ]
    rows += [
        (bytes.fromhex(r["key"]), bytes.fromhex(r["value"]), 5 + i, r["timestamp"]) for i, r in enumerate(kafka4()[1])
    ]
    return pa.table(
        {
            "key": pa.array([r[0] for r in rows], pa.binary()),
            "value": pa.array([r[1] for r in rows], pa.binary()),
            "topic": ["__consumer_offsets"] * len(rows),
            "partition": pa.array([0] * len(rows), pa.int32()),
            "offset": pa.array([r[2] for r in rows], pa.int64()),
            "timestamp": pa.array([r[3] * 1000 for r in rows], pa.timestamp("us", tz="UTC")),
        }
    )


def frames(shared: Path) -> list[dict]:
    keep = (
        "run",
        "scenario",
        "client",
        "conn",
        "direction",
        "ts",
        "api_key",
        "api_name",
        "api_version",
        "correlation_id",
        "body_offset",
        "produced_by",
        "hex",
    )
    return [
        {k: r[k] for k in keep}
        for r in _lines(shared / "captures" / "frames.jsonl")
        if r["run"] == "runA" and r["scenario"] == "java-default"
    ]


def main(argv: list[str]) -> int:
    import pyarrow.parquet as pq

    shared = Path(argv[1]) if len(argv) > 1 else Path("/work/shared")
    with (HERE / "captures.jsonl").open("w") as f:
        for r in captures(shared):
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
        f.write("this line is not JSON (a malformed capture line)\n")
    pq.write_table(offsets(shared), HERE / "offsets.parquet")
    with (HERE / "frames.jsonl").open("w") as f:
        for r in frames(shared):
            f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
