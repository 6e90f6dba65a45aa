"""Kafka's client-side assignor tests' own helpers, restated in Python so that Kafka's test methods can run here as
they run there (Kafka's 4.4 branch, confluentinc/kafka 8d3916cf):

* ``clients/src/test/java/org/apache/kafka/clients/consumer/internals/AbstractPartitionAssignorTest.java``:
  ``RackConfig``, ``ALL_RACKS``, ``racks``, ``nullRacks``, ``partitionInfos`` (replicas on brokers dealt round the
  racks), ``verifyRackAssignment`` (the expected lists as ``toSortedString``, the count of partitions on another
  rack), ``preferRackAwareLogic``;
* ``.../internals/AbstractStickyAssignorTest.java``: ``subscription``, ``consumerRackId``, ``partitionInfos`` (each
  topic on the next brokers), ``initializeRacks``, ``isFullyBalanced``, ``verifyValidityAndBalance``,
  ``getTopicName``/``getConsumerName``, ``getRandomSublist``;
* ``.../consumer/StickyAssignorTest.java`` and ``CooperativeStickyAssignorTest.java``: each assignor's subscription
  builders (V0, V1, V2+: what goes into ``userData``, ``ownedPartitions`` and ``generationId``), and the cooperative
  test's own ``verifyValidityAndBalance`` (``verifyCooperativeValidity``: no partition revoked and assigned in one
  rebalance; follow-up rebalances until nothing is revoked, at most four).

:class:`Assignor` stands for the test's ``assignor`` field: ``assign_partitions`` turns the test's
``partitionsPerTopic`` and subscriptions into an ``assign --consumer`` JSON group and asks an *engine* (a function
from that JSON to an answer): :func:`ours` runs this project's assignors through the JSON reader the CLI uses; the
vectors (``vectors/consumer/kafka-client-tests.jsonl``) hold what Kafka's own Java classes answered the same calls.
Its ``partitions_transferring_ownership`` and ``is_sticky()`` are Kafka's ``partitionsTransferringOwnership`` and
``isSticky()`` after the last call.

Java's behaviour that the tests lean on is kept: ``Map<String, Subscription>`` is a ``HashMap`` (a Python dict
mirrors its puts and removes; the JSON lists members in that order, and the assignor hashes them as Kafka does);
``int % int`` keeps the sign (a negative rack index fails as Java's array index would).
"""

from __future__ import annotations

import enum
import random
import struct
from dataclasses import dataclass, field
from typing import Any, Callable

from codec.assignor.consumer import AssignmentError, assign_consumer, consumer_group_from_json
from codec.javaorder import hashmap_order

TP = tuple[str, int]
ALL_RACKS = ("a", "b", "c", "d", "e", "f")
DEFAULT_GENERATION = -1
KAFKA_COMMIT = "8d3916cfe15f13a2d878c79d302ba2d63172f0af"


class RackConfig(enum.Enum):
    NO_BROKER_RACK = 0
    NO_CONSUMER_RACK = 1
    BROKER_AND_CONSUMER_RACK = 2


class KafkaAssertionError(AssertionError):
    """A Kafka test's assertion failed (its message says which)."""


def check(condition: bool, message: str = "") -> None:
    if not condition:
        raise KafkaAssertionError(message)


def assert_equals(expected: Any, actual: Any, message: str = "") -> None:
    if expected != actual:
        raise KafkaAssertionError(f"{message} expected {expected!r}, got {actual!r}")


def java_mod(a: int, b: int) -> int:
    """Java's ``%``: the result takes the dividend's sign."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def java_index(seq, i: int):
    """``array[i]``: a negative index throws in Java."""
    if i < 0 or i >= len(seq):
        raise IndexError(f"Index {i} out of bounds for length {len(seq)}")
    return seq[i]


def tp(topic: str, partition: int) -> TP:
    return (topic, partition)


def racks(n: int) -> list[str | None]:
    return [ALL_RACKS[i % len(ALL_RACKS)] for i in range(n)]


def null_racks(n: int) -> list[str | None]:
    return [None] * n


# A topic's PartitionInfos: each partition's replicas' racks (None: a broker without a rack).
Infos = list[list[str | None]]


def partition_infos_on(n: int, replication_factor: int, broker_racks: list[str | None], next_node: int) -> Infos:
    """``AbstractPartitionAssignorTest.partitionInfos(topic, n, replicationFactor, brokerRacks, nextNodeIndex)``:
    partition i's replicas on brokers i + j + nextNodeIndex (mod the broker count)."""
    nodes = len(broker_racks)
    return [[broker_racks[(i + j + next_node) % nodes] for j in range(replication_factor)] for i in range(n)]


def partition_infos(n: int, replication_factor: int, num_broker_racks: int, next_node: int) -> Infos:
    """``AbstractPartitionAssignorTest.partitionInfos(topic, n, replicationFactor, numBrokerRacks, nextNodeIndex)``."""
    brokers = replication_factor if num_broker_racks <= 0 else num_broker_racks * replication_factor
    broker_racks = [None if num_broker_racks <= 0 else ALL_RACKS[i % num_broker_racks] for i in range(brokers)]
    return partition_infos_on(n, replication_factor, broker_racks, next_node)


def without_racks(n: int) -> Infos:
    """``AbstractPartitionAssignor.partitionInfosWithoutRacks``: no replicas at all."""
    return [[] for _ in range(n)]


@dataclass
class Subscription:
    """``ConsumerPartitionAssignor.Subscription(topics, userData, ownedPartitions, generationId, rackId)`` with its
    ``groupInstanceId``; a generation below 0 is none."""

    topics: list[str]
    user_data: bytes | None = None
    owned: list[TP] = field(default_factory=list)
    generation: int = DEFAULT_GENERATION
    rack: str | None = None
    instance_id: str | None = None


def sticky_user_data(partitions: list[TP], generation: int | None) -> bytes:
    """``StickyAssignor.serializeTopicPartitionAssignment``: the partitions grouped by topic in a ``HashMap`` (so
    topics in its order), each topic's partitions in list order; V1 adds the generation."""
    by_topic: dict[str, list[int]] = {}
    for t, p in partitions:
        by_topic.setdefault(t, []).append(p)
    out = struct.pack(">i", len(by_topic))
    for t in hashmap_order(list(by_topic)):
        name = t.encode("utf-8")
        ps = by_topic[t]
        out += struct.pack(">h", len(name)) + name + struct.pack(f">i{len(ps)}i", len(ps), *ps)
    return out + (struct.pack(">i", generation) if generation is not None else b"")


def sticky_user_data_v0(partitions: list[TP]) -> bytes:
    """``StickyAssignorTest.buildSubscriptionWithOldSchema``: ``STICKY_ASSIGNOR_USER_DATA_V0`` (no generation)."""
    return sticky_user_data(partitions, None)


def cooperative_user_data(generation: int) -> bytes:
    """``CooperativeStickyAssignor.subscriptionUserData``: the generation as an int32."""
    return struct.pack(">i", generation)


Engine = Callable[[dict], dict]


def group_doc(assignor: str, partitions_per_topic: dict[str, Infos], subscriptions: dict[str, Subscription],
              prefer: bool) -> dict:  # fmt: skip
    """The ``assign --consumer`` JSON for one call of ``assignPartitions``: the topics and their replicas' racks,
    the members in the subscriptions map's order."""
    members = []
    for member_id, s in subscriptions.items():
        m: dict[str, Any] = {"memberId": member_id, "topics": list(s.topics)}
        if s.owned:
            m["ownedPartitions"] = [{"topic": t, "partition": p} for t, p in s.owned]
        m["generation"] = s.generation if s.generation >= 0 else None
        m["rackId"] = s.rack
        if s.instance_id is not None:
            m["groupInstanceId"] = s.instance_id
        # the sticky assignor reads userData only: null and empty read alike in Kafka ("nothing owned")
        if s.user_data is not None or assignor == "sticky":
            m["userData"] = (s.user_data or b"").hex()
        else:
            m["userData"] = None
        members.append(m)
    doc: dict[str, Any] = {
        "assignor": assignor,
        "topics": {t: len(infos) for t, infos in partitions_per_topic.items()},
        "partitionRacks": {t: infos for t, infos in partitions_per_topic.items()},
        "members": members,
    }
    if prefer:
        doc["preferRackAwareLogic"] = True
    return doc


def kafka_is_sticky(movements: dict[TP, tuple[str, str]]) -> bool:
    """``AbstractStickyAssignor.PartitionMovements.isSticky``: per topic, no two members between which partitions
    moved both ways (``hasCycles`` counts only cycles of length two)."""
    pairs: dict[str, set[tuple[str, str]]] = {}
    for (topic, _), pair in movements.items():
        pairs.setdefault(topic, set()).add(pair)
    return not any((b, a) in ps for ps in pairs.values() for a, b in ps)


def ours(doc: dict) -> dict:
    """The engine of this project: the JSON reader ``assign --consumer`` uses, then its assignor."""
    try:
        group, name = consumer_group_from_json(doc)
        r = assign_consumer(group, name)
    except AssignmentError as e:
        return {"error": str(e)}
    out: dict[str, Any] = {"assignment": {m: [list(x) for x in tps] for m, tps in r.members.items()}}
    if name in ("sticky", "cooperative-sticky"):
        if r.transferring is None:
            out["transferring"] = None
            out["isSticky"] = kafka_is_sticky(r.movements or {})
        else:
            out["transferring"] = sorted([t, p, c] for (t, p), c in r.transferring.items())
    return out


class Assignor:
    """The test's ``assignor`` field: which assignor, its ``preferRackAwareLogic``, the cooperative assignor's
    ``generation`` (set by ``onAssignment``, written by ``subscriptionUserData``) and what the last call left."""

    def __init__(self, name: str, engine: Engine) -> None:
        self.name, self.engine = name, engine
        self.prefer_rack_aware = False
        self.generation = DEFAULT_GENERATION
        self.partitions_transferring_ownership: dict[TP, str] | None = {}
        self._sticky: bool | None = None

    def assign_partitions(self, partitions_per_topic: dict[str, Infos], subscriptions: dict[str, Subscription]):
        answer = self.engine(group_doc(self.name, partitions_per_topic, subscriptions, self.prefer_rack_aware))
        if "error" in answer:
            raise KafkaAssertionError(f"the assignor failed: {answer['error']}")
        if "transferring" in answer:
            tr = answer["transferring"]
            self.partitions_transferring_ownership = None if tr is None else {(t, p): c for t, p, c in tr}
            self._sticky = answer.get("isSticky", self._sticky)
        return {m: [tuple(x) for x in tps] for m, tps in answer["assignment"].items()}

    def assign(self, partition_counts: dict[str, int], subscriptions: dict[str, Subscription]):
        """``assign(Map<String, Integer>, subscriptions)``: partitions without replicas."""
        return self.assign_partitions({t: without_racks(n) for t, n in partition_counts.items()}, subscriptions)

    def is_sticky(self) -> bool:
        if self._sticky is None:
            raise KafkaAssertionError("isSticky() before any general-path assignment (NullPointerException)")
        return self._sticky


def to_sorted_string(partitions: list[TP]) -> str:
    """``AbstractPartitionAssignorTest.toSortedString``: ``TopicPartition.toString`` (topic-partition) sorted as
    strings."""
    return ", ".join(sorted(f"{t}-{p}" for t, p in partitions))


def parse_partitions(text: str) -> list[TP]:
    """``AbstractPartitionAssignorTest.ownedPartitions``' parsing of "t1-0, t1-3"."""
    out = []
    for s in text.split(", "):
        topic, _, p = s.rpartition("-")
        out.append((topic, int(p)))
    return out


def verify_rack_assignment(assignor: Assignor, num_partitions_per_topic: dict[str, int], replication_factor: int,
                           broker_racks: list[str | None], consumer_racks: list[str | None],
                           consumer_topics: list[list[str]], owned: list[str] | None, expected: list[str],
                           mismatches: int) -> None:  # fmt: skip
    """``AbstractPartitionAssignorTest.verifyRackAssignment`` (``owned`` None or shorter than the consumers: those
    own nothing)."""
    consumers = [f"consumer{i}" for i in range(len(consumer_racks))]
    subs = {}
    for i, c in enumerate(consumers):
        mine = parse_partitions(owned[i]) if owned is not None and i < len(owned) else []
        subs[c] = Subscription(list(consumer_topics[i]), None, mine, DEFAULT_GENERATION, consumer_racks[i])
    subscriptions = {c: subs[c] for c in consumers}  # a HashMap put in consumer order
    ppt: dict[str, Infos] = {}
    nxt = 0
    for topic in sorted(num_partitions_per_topic):  # a TreeMap: names in order, nextIndex accumulating
        n = num_partitions_per_topic[topic]
        ppt[topic] = partition_infos_on(n, replication_factor, broker_racks, nxt)
        nxt += n
    assignment = assignor.assign_partitions(ppt, subscriptions)
    assert_equals(dict(zip(consumers, expected)), {c: to_sorted_string(v) for c, v in assignment.items()})
    if mismatches >= 0:
        off = [
            x
            for i, c in enumerate(consumers)
            if consumer_racks[i] is not None
            for x in assignment[c]
            if consumer_racks[i] not in ppt[x[0]][x[1]]
        ]
        assert_equals(mismatches, len(off), f"Partitions with rack mismatch {off}")


def is_fully_balanced(assignment: dict[str, list[TP]]) -> bool:
    """``AbstractStickyAssignorTest.isFullyBalanced``."""
    sizes = [len(v) for v in assignment.values()]
    return max(sizes) - min(sizes) <= 1


def verify_validity_and_balance(subscriptions: dict[str, Subscription], assignments: dict[str, list[TP]]) -> None:
    """``AbstractStickyAssignorTest.verifyValidityAndBalance``: every partition of a consumer is of a topic it
    subscribes to; no two consumers share a partition; two consumers whose counts differ by two or more have no
    topic in common among their partitions (else one could have moved)."""
    check(len(subscriptions) == len(assignments), "assert size == assignments.size()")
    consumers = sorted(assignments)
    for i, consumer in enumerate(consumers):
        partitions = assignments[consumer]
        for x in partitions:
            check(x[0] in subscriptions[consumer].topics, f"Partition {x} is assigned to c{i}, not subscribed")
        for j in range(i + 1, len(consumers)):
            other = assignments[consumers[j]]
            common = set(partitions) & set(other)
            check(not common, f"Consumers c{i} and c{j} have common partitions assigned to them: {common}")
            if abs(len(partitions) - len(other)) <= 1:
                continue
            other_topics = {t for t, _ in other}
            for x in partitions:
                check(x[0] not in other_topics, f"Some partitions can be moved between c{i} and c{j}")


class StickyTest:
    """``AbstractStickyAssignorTest``'s state and helpers, for one assignor (``sticky`` or ``cooperative-sticky``)."""

    consumer_id, consumer1, consumer2, consumer3, consumer4 = (
        "consumer",
        "consumer1",
        "consumer2",
        "consumer3",
        "consumer4",
    )
    topic, topic1, topic2, topic3 = "topic", "topic1", "topic2", "topic3"
    group_id = "group"
    generation_id = 1

    def __init__(self, name: str, engine: Engine, rng: random.Random | None = None) -> None:
        self.name = name
        self.engine = engine
        self.assignor = Assignor(name, engine)
        self.subscriptions: dict[str, Subscription] = {}
        self.num_broker_racks = 0
        self.has_consumer_rack = False
        self.replication_factor = 2
        self.next_partition_index = 0
        self.random = rng or random.Random(0)

    @property
    def cooperative(self) -> bool:
        return self.name == "cooperative-sticky"

    def create_assignor(self) -> Assignor:
        return Assignor(self.name, self.engine)

    # racks -----------------------------------------------------------------------------------------------------
    def initialize_racks(self, config: RackConfig) -> None:
        self.replication_factor = 3
        self.num_broker_racks = 3 if config != RackConfig.NO_BROKER_RACK else 0
        self.has_consumer_rack = config != RackConfig.NO_CONSUMER_RACK
        self.assignor.prefer_rack_aware = True

    def consumer_rack_id(self, index: int) -> str | None:
        num = self.num_broker_racks if self.num_broker_racks > 0 else len(ALL_RACKS)
        return java_index(ALL_RACKS, java_mod(index, num)) if self.has_consumer_rack else None

    def partition_infos(self, topic: str, n: int) -> Infos:
        nxt = self.next_partition_index
        self.next_partition_index += 1
        return partition_infos(n, self.replication_factor, self.num_broker_racks, nxt)

    # subscriptions ---------------------------------------------------------------------------------------------
    def subscription(self, topics: list[str], index: int) -> Subscription:
        return Subscription(list(topics), None, [], DEFAULT_GENERATION, self.consumer_rack_id(index))

    def build_v0(self, topics, partitions, generation, index) -> Subscription | None:
        if self.cooperative:
            return None  # "cooperative sticky assignor only supports ConsumerProtocolSubscription V1 or above"
        data = sticky_user_data(list(partitions), generation)
        return Subscription(list(topics), data, [], DEFAULT_GENERATION, self.consumer_rack_id(index))

    def build_v1(self, topics, partitions, generation, index) -> Subscription:
        if self.cooperative:
            self.assignor.generation = self.generation_id  # onAssignment(..., generationId of the test)
            data = cooperative_user_data(self.assignor.generation)
            return Subscription(list(topics), data, list(partitions), DEFAULT_GENERATION, None)
        data = sticky_user_data(list(partitions), generation)
        return Subscription(list(topics), data, list(partitions), DEFAULT_GENERATION, None)

    def build_v2(self, topics, partitions, generation, index) -> Subscription:
        if self.cooperative:
            data = cooperative_user_data(self.assignor.generation)
            return Subscription(list(topics), data, list(partitions), generation, self.consumer_rack_id(index))
        data = sticky_user_data(list(partitions), generation)
        return Subscription(list(topics), data, list(partitions), generation, None)

    def generate_user_data(self, topics, partitions, generation) -> bytes:
        if self.cooperative:
            self.assignor.generation = self.generation_id
            return cooperative_user_data(self.assignor.generation)
        return sticky_user_data(list(partitions), generation)

    # assertions ------------------------------------------------------------------------------------------------
    def verify_validity_and_balance(self, subscriptions: dict[str, Subscription], assignments: dict[str, list[TP]],
                                    partitions_per_topic: dict[str, Infos]) -> None:  # fmt: skip
        """The eager test's check, or the cooperative test's override (follow-up rebalances, each checked for
        partitions revoked and assigned at once; the caller's maps change as Kafka's do)."""
        if self.cooperative:
            rebalances = 0
            while self._verify_cooperative_validity(subscriptions, assignments):
                for consumer, parts in list(assignments.items()):
                    old = subscriptions[consumer]
                    rack_index = ALL_RACKS.index(old.rack) if old.rack is not None else -1
                    subscriptions[consumer] = self.build_v2(old.topics, parts, self.generation_id, rack_index)
                fresh = self.assignor.assign_partitions(partitions_per_topic, subscriptions)
                assignments.clear()
                assignments.update(fresh)
                rebalances += 1
                check(rebalances <= 4, "more than four follow-up rebalances")
        verify_validity_and_balance(subscriptions, assignments)

    @staticmethod
    def _verify_cooperative_validity(subscriptions, assignments) -> bool:
        added: set[TP] = set()
        revoked: set[TP] = set()
        for consumer, assigned in assignments.items():
            owned = subscriptions[consumer].owned
            revoked |= set(owned) - set(assigned)
            added |= set(assigned) - set(owned)
        check(not (added & revoked), f"partitions assigned while being revoked: {added & revoked}")
        return bool(revoked)

    # names -----------------------------------------------------------------------------------------------------
    @staticmethod
    def canonical(prefix: str, i: int, max_num: int) -> str:
        digits = len(str(max_num))
        return prefix + "0" * max(0, digits - len(str(i))) + str(i)

    def topic_name(self, i: int, max_num: int) -> str:
        return self.canonical("t", i, max_num)

    def consumer_name(self, i: int, max_num: int) -> str:
        return self.canonical("c", i, max_num)

    def random_sublist(self, items: list[str]) -> list[str]:
        """``getRandomSublist`` (Kafka's draws from an unseeded ``Random``; here a seeded one)."""
        selected = list(items)
        for _ in range(self.random.randrange(len(items))):
            del selected[self.random.randrange(len(selected))]
        return selected
