"""KIP-848's server-side assignors as gate rounds (``ServerAssignorRound``): a consumer group as Kafka's group
coordinator hands it to its assignor, and the target assignment the assignor gives, one
``ConsumerGroupTargetAssignmentMemberValue`` (the coordinator's record of a member's target assignment, v0) a member.

The round (JSON, no member bytes: the coordinator reads its own records, not a client's)::

    {"serverAssignor": "uniform",                           # or "range" (KIP-848's server-side RangeAssignor)
     "topics": {"orders": 6, "events": 3},                  # the metadata image: name -> partition count
     "topicIds": {"orders": "T1-A4s3VTwiI5CTbEp6POw", ...}, # every topic's id (Kafka's Uuid string)
     "members": [{"memberId": "A", "instanceId": null, "rackId": null,
                  "subscribedTopicNames": ["orders", "events"],
                  "assignedPartitions": [{"topicId": "T1-A4s3VTwiI5CTbEp6POw", "partitions": [0, 2]}]}]}

``members`` are in the coordinator's member-map order (Kafka's hash orders start from there);
``assignedPartitions`` is each member's current target assignment, topics in its record's order. Kafka 4.4's
server-side assignors read no replica racks, so a round carries none. The answer is compared member by member as sets
of (topic id, partition): the order an implementation writes them in is its own.
"""

from __future__ import annotations

import random
import uuid

from . import assign_consumer
from .json_io import kafka_uuid, parse_uuid
from .model import TP, ConsumerGroup, ConsumerMember
from .server import topic_id

__all__ = [
    "SERVER_ASSIGNORS",
    "draw_server_round",
    "assign_server_round",
    "check_server_round",
    "compare_server_round",
    "kafka_server_round",
    "target_bytes",
]

#: a round's ``serverAssignor`` -> this package's name of the assignor
SERVER_ASSIGNORS = {"uniform": "uniform", "range": "server-range"}
TARGET = "ConsumerGroupTargetAssignmentMemberValue"
_PROV = {
    "source": "generated",
    "note": "drawn from the run's seed; assignment by rebalance-codec's Kafka-exact server-side assignors "
    "(codec.assignor.consumer.server)",
}


def target_bytes(partitions: list[TP], ids: dict[str, str]) -> bytes:
    """A member's ``ConsumerGroupTargetAssignmentMemberValue`` v0: ``partitions`` grouped by topic id in first-seen
    order (``ids``: topic name -> Kafka's Uuid string)."""
    from ... import encode

    by: dict[str, list[int]] = {}
    for t, p in partitions:
        by.setdefault(ids[t], []).append(p)
    value = {"topicPartitions": [{"topicId": i, "partitions": ps} for i, ps in by.items()]}
    return encode(TARGET, value, version=0)


def _target(raw: bytes) -> set[tuple[uuid.UUID, int]]:
    from ... import decode

    d = decode(TARGET, raw, version=0)
    if d.trailing:
        raise ValueError(f"{d.trailing} bytes after the value")
    return {(tp.topic_id, p) for tp in d.value.topic_partitions for p in tp.partitions}


def _group(r: dict) -> ConsumerGroup:
    ids = {t: parse_uuid(i, f"topicIds.{t}") for t, i in r["topicIds"].items()}
    names = {i: t for t, i in ids.items()}
    members = []
    for m in r["members"]:
        owned = tuple(
            (names[parse_uuid(tp["topicId"], "topicId")], p)
            for tp in m.get("assignedPartitions", ())
            for p in tp["partitions"]
        )
        members.append(
            ConsumerMember(
                m["memberId"],
                tuple(m["subscribedTopicNames"]),
                owned,
                rack=m.get("rackId"),
                instance_id=m.get("instanceId"),
            )
        )
    return ConsumerGroup(dict(r["topics"]), tuple(members), topic_ids=ids)


def _round(assignor: str, group: ConsumerGroup) -> dict:
    """The round of ``group`` (its owned partitions the members' current target assignments)."""
    ids = {t: kafka_uuid(topic_id(group, t)) for t in group.topics}
    members = []
    for m in group.members:
        by: dict[str, list[int]] = {}
        for t, p in m.owned:
            by.setdefault(ids[t], []).append(p)
        members.append(
            {
                "memberId": m.member_id,
                "instanceId": m.instance_id,
                "rackId": m.rack,
                "subscribedTopicNames": list(m.topics),
                "assignedPartitions": [{"topicId": i, "partitions": ps} for i, ps in by.items()],
            }
        )
    return {"serverAssignor": assignor, "topics": dict(group.topics), "topicIds": ids, "members": members}


def assign_server_round(r: dict) -> dict[str, bytes]:
    """Member id -> the ``ConsumerGroupTargetAssignmentMemberValue`` bytes Kafka's server-side assignor gives."""
    out = assign_consumer(_group(r), SERVER_ASSIGNORS[r["serverAssignor"]])
    return {m: target_bytes(tps, r["topicIds"]) for m, tps in out.members.items()}


def check_server_round(r: dict, assignments: dict[str, bytes]) -> list[str]:
    """What is unsound in a target assignment of the round: an assignment to no member, a partition given twice, one
    given to a member that does not subscribe to its topic or that does not exist, a subscribed partition given to
    nobody (both server-side assignors give out every subscribed partition)."""
    group = _group(r)
    names = {i: t for t, i in group.topic_ids.items()}
    subs = {m.member_id: set(m.topics) for m in group.members}
    problems: list[str] = []
    seen: dict[TP, str] = {}
    for m, raw in sorted(assignments.items()):
        if m not in subs:
            problems.append(f"{m}: not a member of the round")
            continue
        for i, p in sorted(_target(raw)):
            t = names.get(i, str(i))
            if t not in subs[m] or not 0 <= p < group.topics.get(t, 0):
                problems.append(f"{m}: {t}-{p} is not a partition it subscribes to")
            if (t, p) in seen:
                problems.append(f"{t}-{p}: given to {seen[t, p]} and {m}")
            seen[t, p] = m
    wanted = {(t, p) for s in subs.values() for t in s for p in range(group.topics.get(t, 0))}
    problems.extend(f"{t}-{p}: subscribed but given to nobody" for t, p in sorted(wanted - set(seen)))
    return problems


def compare_server_round(r: dict, got: dict[str, bytes]) -> tuple[str, str] | None:
    """None when ``got`` gives every member Kafka's partitions; otherwise the first difference and its class
    (``members``, ``bytes``: no ``ConsumerGroupTargetAssignmentMemberValue`` v0, or ``$[].topicPartitions``)."""
    want = {a["memberId"]: bytes.fromhex(a["assignment"]) for a in r["assignments"]}
    if set(got) != set(want):
        return f"members differ: expected {sorted(want)}, got {sorted(got)}", "members"
    names = {parse_uuid(i, "topicId"): t for t, i in r["topicIds"].items()}
    for m in sorted(want):
        try:
            g = _target(got[m])
        except Exception as e:  # noqa: BLE001 - any failure to read the answer is the answer's fault
            return f"{m}: the assignment does not read as a {TARGET} v0: {type(e).__name__}: {e}", "bytes"
        w = _target(want[m])
        if g != w:

            def show(s: set[tuple[uuid.UUID, int]]) -> str:
                return ", ".join(f"{names.get(i, str(i))}-{p}" for i, p in sorted(s, key=lambda x: (str(x[0]), x[1])))

            return (
                f"{m} ({r['serverAssignor']}): missing {show(w - g) or 'none'}; extra {show(g - w) or 'none'}",
                "$[].topicPartitions",
            )
    return None


def draw_server_round(rng: random.Random) -> dict:
    """A KIP-848 consumer group as the coordinator hands it to its assignor: 1-4 topics of 1-8 partitions with random
    ids, 1-6 members subscribing to all of them (most often) or to some, ``uniform`` or ``range``; the members'
    current target assignments are what the same assignor gave part of the group before (a member may have left or
    joined, or changed its subscription since)."""
    topics = {f"t{i}": rng.randint(1, 8) for i in range(rng.randint(1, 4))}
    ids = {t: uuid.UUID(int=rng.getrandbits(128)) for t in topics}
    names = list(topics)
    assignor = rng.choice(sorted(SERVER_ASSIGNORS))
    homogeneous = rng.random() < 0.6
    mids = [f"{rng.randrange(16**8):08x}-member-{i}" for i in range(rng.randint(1, 6))]
    subs = {m: names if homogeneous else sorted(rng.sample(names, rng.randint(1, len(names)))) for m in mids}
    inst = {m: f"instance-{i}" if rng.random() < 0.2 else None for i, m in enumerate(mids)}
    owned: dict[str, tuple[TP, ...]] = {m: () for m in mids}
    previous = [m for m in mids if rng.random() < 0.75]
    if previous:
        before = ConsumerGroup(
            topics,
            tuple(ConsumerMember(m, tuple(sorted(rng.sample(names, rng.randint(1, len(names))))) if rng.random() < 0.2
                                 else tuple(subs[m]), instance_id=inst[m]) for m in previous),
            topic_ids=ids,
        )  # fmt: skip
        for m, tps in assign_consumer(before, SERVER_ASSIGNORS[assignor]).members.items():
            owned[m] = tuple(tps)
    group = ConsumerGroup(
        topics,
        tuple(ConsumerMember(m, tuple(subs[m]), owned[m], instance_id=inst[m]) for m in mids),
        topic_ids=ids,
    )
    return {**_round(assignor, group), "provenance": _PROV}


def kafka_server_round(row: dict) -> dict:
    """The ``ServerAssignorRound`` of a Kafka-computed server-side case of ``vectors/consumer/`` (``uniform`` or
    ``server-range``; its ``expected`` Kafka's answer). Its partition racks, if any, are left out: Kafka 4.4's
    server-side assignors do not read them."""
    from .json_io import consumer_group_from_json

    group, name = consumer_group_from_json(row["group"], row["assignor"])
    assignor = next(k for k, v in SERVER_ASSIGNORS.items() if v == name)
    r = _round(assignor, group)
    expected = row["expected"]

    def tps(raw: list) -> list[TP]:
        return [(tp["topic"], tp["partition"]) if isinstance(tp, dict) else (tp[0], tp[1]) for tp in raw]

    provenance = {"source": "kafka", "file": row.get("file", ""), "kafkaCommit": row.get("kafkaCommit", "")}
    for k in ("kafkaTest", "sequence", "round"):
        if k in row:
            provenance[k] = row[k]
    return {
        "id": f"consumer-{row['id']}",
        **r,
        "assignments": [
            {
                "memberId": m.member_id,
                "assignment": target_bytes(tps(expected.get(m.member_id, [])), r["topicIds"]).hex(),
            }
            for m in group.members
        ],
        "provenance": provenance,
    }
