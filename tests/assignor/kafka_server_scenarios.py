"""The coordinator's assignor tests not in vectors/consumer/kafka-tests.jsonl (group-coordinator/src/test/java/org/
apache/kafka/coordinator/group/assignor/, the 4.4 branch, confluentinc/kafka 8d3916cf), method by method:
``CommonAssignorTests`` (``testAssignmentReuse``, ``testReassignmentStickiness``) as ``RangeAssignorTest`` and the
two ``Uniform*AssignmentBuilderTest`` classes call it, and those classes' methods that assert a failure, an empty
result, a property (``checkValidityAndBalance``) or a ``GroupSpec`` whose subscription type the subscriptions do not
have (``subscriptionType`` in the JSON).

The ``GroupSpec``'s members go to ``assign --consumer`` in the order the test's map iterates them (``TreeMap``:
sorted; ``HashMap``: as put); ``Uuid.randomUuid()`` becomes ids drawn from a seeded generator. Three of Kafka's
expectations read differently here, each for a reason that changes nothing the coordinator does:

* Kafka's ``assertSame`` (the assignor hands back the very map object it was given when nothing changes) has no
  meaning over JSON; the assignment is compared for equality instead.
* Where Kafka's uniform assignor returns no entry for a member (``GroupAssignment.members()`` is ``Map.of()``), the
  CLI lists the member with no partitions: ``TargetAssignmentBuilder.newMemberAssignment`` reads a missing member
  as ``Assignment.EMPTY``, so the target assignment is the same.
* A subscription to a topic id the metadata lacks: Kafka's tests put the id straight into the ``GroupSpec``; here
  the JSON names the topic with an id in ``topicIds`` and no partition count in ``topics`` (the coordinator resolves
  names through its metadata image, :mod:`codec.assignor.consumer.server`), which reaches the same
  ``PartitionAssignorException``.
"""

from __future__ import annotations

import random
import uuid
from typing import Any

from codec.assignor.consumer.json_io import kafka_uuid
from tests.assignor.kafka_client_harness import Engine, KafkaAssertionError, assert_equals, check

HOMOGENEOUS, HETEROGENEOUS = "homogeneous", "heterogeneous"


class ServerTest:
    """The coordinator's ``GroupSpecImpl`` + ``SubscribedTopicDescriberImpl`` as the tests build them."""

    def __init__(self, assignor: str, engine: Engine, rng: random.Random | None = None) -> None:
        self.assignor, self.engine = assignor, engine
        self.random = rng or random.Random(0)
        self.names: dict[str, str] = {}  # topic id -> name, every id the test knows
        self.counts: dict[str, int] = {}  # topic id -> partitions, the metadata image's topics

    def random_uuid(self) -> str:
        return kafka_uuid(uuid.UUID(int=self.random.getrandbits(128)))

    def add_topic(self, topic_id: str, name: str, partitions: int) -> None:
        self.names[topic_id] = name
        self.counts[topic_id] = partitions

    def know(self, topic_id: str, name: str) -> None:
        """An id the test uses that the metadata image lacks."""
        self.names.setdefault(topic_id, name)

    def assign(self, members: dict[str, dict], subscription_type: str) -> dict[str, dict[str, set[int]]]:
        """``assignor.assign(new GroupSpecImpl(members, type, ...), describer)``: each member's {topic id: partitions}
        (``members``: member id -> {"rack", "instance", "topics": set of ids, "assignment": {id: set}}, in the test
        map's iteration order)."""
        doc: dict[str, Any] = {
            "assignor": self.assignor,
            "topics": {self.names[t]: n for t, n in self.counts.items()},
            "topicIds": {name: t for t, name in self.names.items()},
            "subscriptionType": subscription_type,
            "members": [
                {
                    "memberId": mid,
                    "topics": sorted(self.names[t] for t in m["topics"]),
                    "ownedPartitions": [
                        {"topic": self.names[t], "partition": p}
                        for t, ps in m.get("assignment", {}).items()
                        for p in sorted(ps)
                    ],
                    "rackId": m.get("rack"),
                    "groupInstanceId": m.get("instance"),
                }
                for mid, m in members.items()
            ],
        }
        answer = self.engine(doc)
        if "error" in answer:
            raise PartitionAssignorException(answer["error"])
        ids = {name: t for t, name in self.names.items()}
        out: dict[str, dict[str, set[int]]] = {}
        for mid, tps in answer["assignment"].items():
            mine: dict[str, set[int]] = {}
            for topic, p in tps or []:
                mine.setdefault(ids[topic], set()).add(p)
            out[mid] = mine
        return out


class PartitionAssignorException(Exception):
    """The assignor failed (Kafka's ``PartitionAssignorException``)."""


def member(topics, assignment=None, rack=None, instance=None) -> dict:
    return {"topics": set(topics), "assignment": assignment or {}, "rack": rack, "instance": instance}


def assert_throws(fn) -> None:
    try:
        fn()
    except PartitionAssignorException:
        return
    raise KafkaAssertionError("expected PartitionAssignorException")


def check_validity_and_balance(members: dict[str, dict], computed: dict[str, dict[str, set[int]]]) -> None:
    """``UniformHomogeneousAssignmentBuilderTest.checkValidityAndBalance``: a member's partitions are of topics it
    subscribes to, no partition is given twice, and any two members' counts differ by at most one."""
    ids = list(computed)
    sizes = [sum(len(ps) for ps in computed[m].values()) for m in ids]
    for i, mid in enumerate(ids):
        for t in computed[mid]:
            check(t in members[mid]["topics"], f"partitions of {t} assigned to {mid}, not subscribed")
        for j in range(i + 1, len(ids)):
            other = computed[ids[j]]
            for t, ps in computed[mid].items():
                check(not (ps & other.get(t, set())), f"{mid} and {ids[j]} share partitions of {t}")
            check(abs(sizes[i] - sizes[j]) <= 1, f"sizes {sizes[i]} and {sizes[j]}")


def _common_metadata(t: ServerTest) -> tuple[str, str, str]:
    """``CommonAssignorTests``: topic1 (2), topic2 (5), topic3 (7) with random ids (``addRacks()``: no assignor of
    the 4.4 branch reads them)."""
    ids = (t.random_uuid(), t.random_uuid(), t.random_uuid())
    for tid, name, n in zip(ids, ("topic1", "topic2", "topic3"), (2, 5, 7)):
        t.add_topic(tid, name, n)
    return ids


def testAssignmentReuse(t: ServerTest, subscription_type: str, rack_aware: bool) -> None:
    """``CommonAssignorTests.testAssignmentReuse``: the assignment fed back comes back unchanged (Kafka: the same
    map objects)."""
    ids = _common_metadata(t)
    members = {
        m: member(ids, rack=(rack if rack_aware else None))
        for m, rack in (("A", "rack1"), ("B", "rack2"), ("C", "rack3"))
    }
    first = t.assign(members, subscription_type)
    with_assignment = {m: {**spec, "assignment": first[m]} for m, spec in members.items()}  # a LinkedHashMap
    second = t.assign(with_assignment, subscription_type)
    for m in members:
        assert_equals(with_assignment[m]["assignment"], second[m], f"member {m}")


def testReassignmentStickiness(t: ServerTest, subscription_type: str, rack_aware: bool) -> None:
    """``CommonAssignorTests.testReassignmentStickiness``: fed back in any member order, the assignment stays."""
    ids = _common_metadata(t)
    members = {"A": member(ids), "B": member(ids, rack="rack1" if rack_aware else None), "C": member(ids)}
    first = t.assign(members, subscription_type)
    orders = ["ABC", "ACB", "BAC", "BCA", "CAB", "CBA"]
    for order in orders:
        with_assignment = {m: {**members[m], "assignment": first[m]} for m in order}
        assert_equals(first, t.assign(with_assignment, subscription_type), f"members in order {order}")


T1, T2, T3 = "T1-A4s3VTwiI5CTbEp6POw", "T2-B4s3VTwiI5YHbPp6YUe", "T3-CU8fVTLCz5YMkLoDQsa"


def range_testOneMemberNoTopic(t: ServerTest) -> None:
    got = t.assign({"A": member([])}, HOMOGENEOUS)
    assert_equals({"A": {}}, got)


def range_testOneMemberSubscribedToNonExistentTopic(t: ServerTest) -> None:
    t.add_topic(T1, "topic1", 3)
    t.know(T2, "topic2")
    assert_throws(lambda: t.assign({"A": member([T2])}, HOMOGENEOUS))


def range_testStaticMembership(t: ServerTest) -> None:
    t.add_topic(T1, "topic1", 3)
    members = {"A": member([T1], instance="instanceA"), "B": member([T1], instance="instanceB")}  # a TreeMap
    initial = t.assign(members, HOMOGENEOUS)
    del members["A"]
    members["memberA1"] = member([T1], instance="instanceA")
    members = dict(sorted(members.items()))
    again = t.assign(members, HOMOGENEOUS)
    assert_equals(initial["A"], again["memberA1"])
    assert_equals(initial["B"], again["B"])


def range_testMixedStaticMembership(t: ServerTest) -> None:
    t.add_topic(T1, "topic1", 5)
    members = {"A": member([T1], instance="instanceA"), "C": member([T1], instance="instanceC"), "B": member([T1])}
    members = dict(sorted(members.items()))  # a TreeMap
    initial = t.assign(members, HOMOGENEOUS)
    del members["A"]
    members["memberA1"] = member([T1], instance="instanceA")
    members = dict(sorted(members.items()))
    again = t.assign(members, HOMOGENEOUS)
    assert_equals(initial["A"], again["memberA1"])
    assert_equals(initial["B"], again["B"])
    assert_equals(initial["C"], again["C"])


def _no_entries(got: dict) -> None:
    """Kafka: ``assertEquals(Map.of(), groupAssignment.members())`` (see the module docstring)."""
    check(all(not v for v in got.values()), f"expected no partitions, got {got}")


def homo_testOneMemberNoTopicSubscription(t: ServerTest) -> None:
    t.add_topic(T1, "topic1", 3)
    _no_entries(t.assign({"A": member([])}, HOMOGENEOUS))


def homo_testOneMemberSubscribedToNonexistentTopic(t: ServerTest) -> None:
    t.add_topic(T1, "topic1", 3)
    t.know(T2, "topic2")
    assert_throws(lambda: t.assign({"A": member([T2])}, HOMOGENEOUS))


def homo_testValidityAndBalanceForLargeSampleSet(t: ServerTest) -> None:
    ids = []
    for i in range(1, 101):
        tid = t.random_uuid()
        t.add_topic(tid, f"topic-{i}", 3)
        ids.append(tid)
    members = {f"member{i}": member(ids) for i in range(1, 50)}
    members = dict(sorted(members.items()))  # a TreeMap
    check_validity_and_balance(members, t.assign(members, HOMOGENEOUS))


def hetero_testTwoMembersNoTopicSubscription(t: ServerTest) -> None:
    t.add_topic(T1, "topic1", 3)
    _no_entries(t.assign({"A": member([]), "B": member([])}, HETEROGENEOUS))


def hetero_testTwoMembersSubscribedToNonexistentTopics(t: ServerTest) -> None:
    t.add_topic(T1, "topic1", 3)
    t.know(T2, "topic2")
    t.know(T3, "topic3")
    assert_throws(lambda: t.assign({"A": member([T3]), "B": member([T2])}, HETEROGENEOUS))


def hetero_testReassignmentWhenTopicPartitionsRunOutAndMembersHaveNoPartitions(t: ServerTest) -> None:
    for tid, name in ((T1, "topic1"), (T2, "topic2"), (T3, "topic3")):
        t.add_topic(tid, name, 2)
    every = [T1, T2, T3]
    members = {"A": member(every, {T1: {0, 1}, T2: {0, 1}, T3: {0, 1}}), "B": member(every)}
    got = t.assign(members, HETEROGENEOUS)
    assert_equals({"A": {T2: {0}, T3: {0, 1}}, "B": {T1: {0, 1}, T2: {1}}}, got)


R = "org.apache.kafka.coordinator.group.assignor.RangeAssignorTest"
HO = "org.apache.kafka.coordinator.group.assignor.UniformHomogeneousAssignmentBuilderTest"
HE = "org.apache.kafka.coordinator.group.assignor.UniformHeterogeneousAssignmentBuilderTest"


def _common(cls: str, assignor: str, fn, params) -> list:
    return [(cls, fn.__name__, assignor, fn, p) for p in params]


# (Kafka's test class, method, assignor, function, parameters)
SCENARIOS = [
    *_common(R, "server-range", testReassignmentStickiness,
             [(k, r) for k in (HOMOGENEOUS, HETEROGENEOUS) for r in (False, True)]),
    *_common(HO, "uniform", testAssignmentReuse, [(HOMOGENEOUS, r) for r in (False, True)]),
    *_common(HO, "uniform", testReassignmentStickiness, [(HOMOGENEOUS, r) for r in (False, True)]),
    *_common(HE, "uniform", testAssignmentReuse, [(HETEROGENEOUS, r) for r in (False, True)]),
    *_common(HE, "uniform", testReassignmentStickiness, [(HETEROGENEOUS, r) for r in (False, True)]),
    (R, "testOneMemberNoTopic", "server-range", range_testOneMemberNoTopic, ()),
    (R, "testOneMemberSubscribedToNonExistentTopic", "server-range", range_testOneMemberSubscribedToNonExistentTopic,
     ()),
    (R, "testStaticMembership", "server-range", range_testStaticMembership, ()),
    (R, "testMixedStaticMembership", "server-range", range_testMixedStaticMembership, ()),
    (HO, "testOneMemberNoTopicSubscription", "uniform", homo_testOneMemberNoTopicSubscription, ()),
    (HO, "testOneMemberSubscribedToNonexistentTopic", "uniform", homo_testOneMemberSubscribedToNonexistentTopic, ()),
    (HO, "testValidityAndBalanceForLargeSampleSet", "uniform", homo_testValidityAndBalanceForLargeSampleSet, ()),
    (HE, "testTwoMembersNoTopicSubscription", "uniform", hetero_testTwoMembersNoTopicSubscription, ()),
    (HE, "testTwoMembersSubscribedToNonexistentTopics", "uniform", hetero_testTwoMembersSubscribedToNonexistentTopics,
     ()),
    (HE, "testReassignmentWhenTopicPartitionsRunOutAndMembersHaveNoPartitions", "uniform",
     hetero_testReassignmentWhenTopicPartitionsRunOutAndMembersHaveNoPartitions, ()),
]  # fmt: skip
