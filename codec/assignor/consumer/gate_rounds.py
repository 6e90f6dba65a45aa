"""Generated rounds of a consumer group's leader for the gate (``ConsumerRound``): a group drawn at random as the
leader sees it after JoinGroup — each member's ``ConsumerProtocolSubscription`` bytes (v3: topics, owned partitions,
the generation they were owned in; null user data but for ``sticky``, whose members carry the user data Kafka's
``StickyAssignor`` writes: the same partitions and generation) and the topics' partition counts, which no group message
carries — with the client-side assignor the group chose (``range``, ``roundrobin``, ``sticky``,
``cooperative-sticky``). The expected answer is what this package's Kafka-exact assignor gives, one
``ConsumerProtocolAssignment`` a member; an adapter answers with the bytes its own client's assignor writes.

A round is compared partition by partition: each member's set of assigned partitions must be Kafka's (the order a
client writes them in, its assignment's version and user data are its own). A round's owned partitions come from a
previous round of the same assignor on part of the group, so the sticky assignors' stickiness and, for
``cooperative-sticky``, the withholding of partitions that change owner are exercised; now and then one member
reports an older generation (its claims lose to the newer ones, as in Kafka).
"""

from __future__ import annotations

import random
import struct

from ...group import consumer_subscription, decode_consumer, encode_consumer
from ...wire.builder import wire_class
from . import assign_consumer
from .model import TP, ConsumerGroup, ConsumerMember
from .wire import assignment_bytes, member_from_subscription

__all__ = [
    "ROUND_ASSIGNORS",
    "draw_consumer_round",
    "draw_consumer_rack_round",
    "kafka_round",
    "round_message",
    "assign_consumer_round",
    "check_consumer_round",
    "compare_consumer_round",
]

ROUND_ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky")


def sticky_user_data(by: dict[str, list[int]], generation: int) -> bytes:
    """The user data Kafka's ``StickyAssignor`` writes (its V1 schema, ``schemas/StickyAssignorUserData.json``): the
    previous partitions by topic, the generation they were assigned in."""
    from ...group.sticky import STICKY, StickyUserData, encode_sticky_user_data

    return encode_sticky_user_data(StickyUserData(STICKY, 1, tuple((t, tuple(ps)) for t, ps in by.items()), generation))


def subscription_bytes(
    topics: list[str], owned: list[TP], generation: int, *, sticky: bool = False, rack: str | None = None
) -> bytes:
    """A v3 ``ConsumerProtocolSubscription``: ``topics``, ``owned`` grouped by topic, ``generation``, ``rack``; the
    user data null, or with ``sticky`` what Kafka's ``StickyAssignor`` writes there (:func:`sticky_user_data`)."""
    topic = wire_class("ConsumerProtocolSubscription", "TopicPartition")
    by: dict[str, list[int]] = {}
    for t, p in owned:
        by.setdefault(t, []).append(p)
    msg = consumer_subscription(
        3,
        topics=tuple(topics),
        user_data=sticky_user_data(by, generation) if sticky else None,
        owned_partitions=tuple(topic(topic=t, partitions=tuple(ps)) for t, ps in by.items()),
        generation_id=generation,
        rack_id=rack,
    )
    return encode_consumer(msg)


def _racks(raw: dict | None) -> dict[str, tuple[frozenset[str], ...]]:
    """A round's ``partitionRacks`` (topic -> each partition's replica racks) as the assignors read them."""
    return {t: tuple(frozenset(x for x in rs if x is not None) for rs in per) for t, per in (raw or {}).items()}


def _group(r: dict) -> ConsumerGroup:
    members = tuple(
        member_from_subscription(m["memberId"], m.get("groupInstanceId"), bytes.fromhex(m["metadata"]))
        for m in r["members"]
    )
    return ConsumerGroup(dict(r["topics"]), members, _racks(r.get("partitionRacks")))


RACKS = ("rack-a", "rack-b", "rack-c")


def draw_consumer_round(rng: random.Random, *, racks: bool = False) -> dict:
    """A consumer group as its leader sees it: 1-4 topics of 1-8 partitions, 1-6 members subscribing to all of them
    (most often) or to some, one of :data:`ROUND_ASSIGNORS`; the members' owned partitions are what the same
    assignor gave a previous generation of part of the group (a member may have left, joined, or report an older
    generation). With ``racks`` (a ``ConsumerRackRound``, KIP-881): each partition's replicas on 1-3 of
    :data:`RACKS` (now and then on all of them, where rack-aware assignment is off), most members in a rack."""
    topics = {f"t{i}": rng.randint(1, 8) for i in range(rng.randint(1, 4))}
    names = list(topics)
    assignor = rng.choice(ROUND_ASSIGNORS)
    homogeneous = rng.random() < 0.6
    ids = [f"consumer-{i}-{rng.randrange(16**4):04x}" for i in range(rng.randint(1, 6))]
    subs = {m: names if homogeneous else sorted(rng.sample(names, rng.randint(1, len(names)))) for m in ids}
    partition_racks: dict[str, list[list[str]]] = {}
    member_rack: dict[str, str | None] = {m: None for m in ids}
    if racks:
        everywhere = rng.random() < 0.15
        partition_racks = {
            t: [list(RACKS) if everywhere else sorted(rng.sample(RACKS, rng.randint(1, 3))) for _ in range(n)]
            for t, n in topics.items()
        }
        member_rack = {m: rng.choice(RACKS) if rng.random() < 0.85 else None for m in ids}
    generation = rng.randint(1, 40)
    previous = [m for m in ids if rng.random() < 0.75]
    owned: dict[str, list[TP]] = {m: [] for m in ids}
    if previous and assignor != "range" or previous and rng.random() < 0.5:
        before = ConsumerGroup(
            topics,
            tuple(ConsumerMember(m, tuple(subs[m]), rack=member_rack[m]) for m in previous),
            _racks(partition_racks),
        )
        for m, tps in assign_consumer(before, assignor).members.items():
            owned[m] = list(tps)
    old = rng.choice(ids) if rng.random() < 0.15 else None
    members = []
    for m in ids:
        gen = -1 if not owned[m] else generation - (rng.randint(1, 3) if m == old else 0)
        raw = subscription_bytes(subs[m], owned[m], gen, sticky=assignor == "sticky", rack=member_rack[m])
        members.append({"memberId": m, "metadata": raw.hex()})
    out = {
        "consumerAssignor": assignor,
        "topics": topics,
        **({"partitionRacks": partition_racks} if racks else {}),
        "leader": rng.choice(ids),
        "members": members,
        "provenance": {
            "source": "generated",
            "note": "drawn from the run's seed; assignment by rebalance-codec's "
            "Kafka-exact consumer assignors (codec.assignor.consumer)",
        },
    }
    return out


def draw_consumer_rack_round(rng: random.Random) -> dict:
    """A ``ConsumerRackRound``: :func:`draw_consumer_round` with partition and member racks."""
    return draw_consumer_round(rng, racks=True)


def assign_consumer_round(r: dict) -> dict[str, bytes]:
    """Member id -> the ``ConsumerProtocolAssignment`` bytes Kafka's assignor gives the round."""
    out = assign_consumer(_group(r), r["consumerAssignor"])
    return {m: assignment_bytes(tps) for m, tps in out.members.items()}


def _partitions(raw: bytes) -> list[TP]:
    d = decode_consumer("ConsumerProtocolAssignment", raw).data
    return [(tp.topic, p) for tp in d.assigned_partitions for p in tp.partitions]


def check_consumer_round(r: dict, assignments: dict[str, bytes]) -> list[str]:
    """What is unsound in an assignment of the round: a partition given twice, a partition given to a member that
    does not subscribe to its topic, one that does not exist, an assignment to no member of the round; and, but for
    ``cooperative-sticky`` (which withholds a partition whose owner changes for one round), a subscribed partition
    given to nobody."""
    group = _group(r)
    subs = {m.member_id: set(m.topics) for m in group.members}
    problems: list[str] = []
    seen: dict[TP, str] = {}
    for m, raw in sorted(assignments.items()):
        if m not in subs:
            problems.append(f"{m}: not a member of the round")
            continue
        for t, p in _partitions(raw):
            if t not in subs[m] or not 0 <= p < group.topics.get(t, 0):
                problems.append(f"{m}: {t}-{p} is not a partition it subscribes to")
            if (t, p) in seen:
                problems.append(f"{t}-{p}: given to {seen[t, p]} and {m}")
            seen[t, p] = m
    if r["consumerAssignor"] != "cooperative-sticky":
        wanted = {(t, p) for s in subs.values() for t in s for p in range(group.topics.get(t, 0))}
        problems.extend(f"{t}-{p}: subscribed but given to nobody" for t, p in sorted(wanted - set(seen)))
    return problems


def compare_consumer_round(r: dict, got: dict[str, bytes]) -> tuple[str, str] | None:
    """None when ``got`` gives every member Kafka's partitions; otherwise the first difference and its class:
    ``members`` (other members assigned), ``bytes`` (an assignment that is no ConsumerProtocolAssignment) or
    ``$[].assignedPartitions`` (a member given other partitions)."""
    want = {a["memberId"]: bytes.fromhex(a["assignment"]) for a in r["assignments"]}
    if set(got) != set(want):
        return f"members differ: expected {sorted(want)}, got {sorted(got)}", "members"
    for m in sorted(want):
        try:
            g = set(_partitions(got[m]))
        except Exception as e:  # noqa: BLE001 - any failure to read the answer is the answer's fault
            return (
                f"{m}: the assignment does not read as a ConsumerProtocolAssignment: {type(e).__name__}: {e}",
                "bytes",
            )
        w = set(_partitions(want[m]))
        if g != w:
            missing = ", ".join(f"{t}-{p}" for t, p in sorted(w - g)) or "none"
            extra = ", ".join(f"{t}-{p}" for t, p in sorted(g - w)) or "none"
            return f"{m} ({r['consumerAssignor']}): missing {missing}; extra {extra}", "$[].assignedPartitions"
    return None


#: The files of Kafka-computed consumer cases whose client-side groups the gate asks as ``ConsumerRound`` s.
KAFKA_ROUND_FILES = ("kafka-tests.jsonl", "kafka-java-assignors.jsonl")


def _sticky_runs(owned: list[TP], generation: int | None) -> bytes:
    """StickyAssignor user data with one (topic, partitions) entry per run of one topic in ``owned`` (so it reads
    back as ``owned`` in its order), and the generation (V1) when there is one."""
    runs: list[tuple[str, list[int]]] = []
    for t, p in owned:
        if not runs or runs[-1][0] != t:
            runs.append((t, []))
        runs[-1][1].append(p)
    out = [struct.pack(">i", len(runs))]
    for t, ps in runs:
        name = t.encode()
        out += [struct.pack(">h", len(name)), name, struct.pack(f">i{len(ps)}i", len(ps), *ps)]
    if generation is not None:
        out.append(struct.pack(">i", generation))
    return b"".join(out)


def _expected(tps: list) -> list[TP]:
    """A case's expected partitions, written ``[topic, partition]`` or ``{"topic", "partition"}``."""
    return [(tp["topic"], tp["partition"]) if isinstance(tp, dict) else (tp[0], tp[1]) for tp in tps]


def round_message(r: dict) -> str:
    """The message a round is run as, from its keys (the rule ``vectors/ADAPTERS.md`` states): ``serverAssignor`` —
    a ``ServerAssignorRound`` (KIP-848's coordinator); ``consumerAssignor`` with ``partitionRacks`` — a
    ``ConsumerRackRound`` (a client leader's round with KIP-881's racks); ``consumerAssignor`` — a
    ``ConsumerRound``; anything else a Kafka Streams ``RebalanceRound``."""
    if "serverAssignor" in r:
        return "ServerAssignorRound"
    if "consumerAssignor" in r:
        return "ConsumerRackRound" if "partitionRacks" in r else "ConsumerRound"
    return "RebalanceRound"


def kafka_round(row: dict) -> dict | None:
    """A round of the files from one Kafka-computed case of ``vectors/consumer/`` (its ``expected`` is what Kafka's
    Java assignor gave, or Kafka's own test asserts), or None when the case is none a round can carry: an expected
    error, or one of Kafka's test-only switches (``preferRackAwareLogic``, a forced ``subscriptionType``: no client
    or coordinator sets them). A client-side case is a ``ConsumerRound``, or with partition racks a
    ``ConsumerRackRound`` (the racks as the leader's metadata has them); a server-side one (``uniform``,
    ``server-range``) a ``ServerAssignorRound`` (:func:`codec.assignor.consumer.gate_server.kafka_server_round`).
    A ``sticky`` member's owned partitions and generation go in the user data as the Java driver that computed the
    cases wrote it (:func:`_sticky_runs`), unless the case gives the user data itself."""
    assignor, group = row.get("assignor"), row.get("group", {})
    if "expected" not in row or group.get("preferRackAwareLogic") or "subscriptionType" in group:
        return None
    if assignor in ("uniform", "server-range"):
        from .gate_server import kafka_server_round

        return kafka_server_round(row)
    if assignor not in ROUND_ASSIGNORS:
        return None
    members = group["members"]
    topic = wire_class("ConsumerProtocolSubscription", "TopicPartition")
    out = []
    for m in members:
        by: dict[str, list[int]] = {}
        for tp in m.get("ownedPartitions") or ():
            by.setdefault(tp["topic"], []).append(tp["partition"])
        gen = m.get("generation")
        owned = [(tp["topic"], tp["partition"]) for tp in m.get("ownedPartitions") or ()]
        user: bytes | None = None
        if m.get("userData") is not None:
            user = bytes.fromhex(m["userData"])
        elif assignor == "sticky" and (owned or gen is not None):
            user = _sticky_runs(owned, gen)
        msg = consumer_subscription(
            3,
            topics=tuple(m["topics"]),
            user_data=user,
            owned_partitions=tuple(topic(topic=t, partitions=tuple(ps)) for t, ps in by.items()),
            generation_id=-1 if gen is None else gen,
            rack_id=m.get("rackId"),
        )
        entry = {"memberId": m["memberId"], "metadata": encode_consumer(msg).hex()}
        if m.get("groupInstanceId") is not None:
            entry["groupInstanceId"] = m["groupInstanceId"]
        out.append(entry)
    expected = row["expected"]
    provenance = {"source": "kafka", "file": row.get("file", ""), "kafkaCommit": row.get("kafkaCommit", "")}
    for k in ("kafkaTest", "sequence", "round"):  # a multi-round sequence's rounds: owned = the previous output
        if k in row:
            provenance[k] = row[k]
    return {
        "id": f"consumer-{row['id']}",
        "consumerAssignor": assignor,
        "topics": dict(group["topics"]),
        **({"partitionRacks": group["partitionRacks"]} if "partitionRacks" in group else {}),
        "leader": members[0]["memberId"] if members else "",
        "members": out,
        "assignments": [
            {
                "memberId": m["memberId"],
                "assignment": assignment_bytes(_expected(expected.get(m["memberId"], []))).hex(),
            }
            for m in members
        ],
        "provenance": provenance,
    }
