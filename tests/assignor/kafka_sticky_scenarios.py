"""Kafka's ``AbstractStickyAssignorTest`` (clients/src/test/java/org/apache/kafka/clients/consumer/internals/, the
4.4 branch, confluentinc/kafka 8d3916cf), method by method, on :mod:`tests.assignor.kafka_client_harness`: the same
inputs, the same calls, the same assertions. Kafka runs each method for ``StickyAssignor`` and for
``CooperativeStickyAssignor`` (the two subclasses), the ``RackConfig`` ones once per configuration, the
``hasConsumerRack`` ones twice. The subclasses' own methods, ``testMemberData`` and the two
``testRackAwareAssignment...`` are in :mod:`tests.assignor.kafka_sticky_scenarios2`.

Where a Kafka method draws from an unseeded ``java.util.Random``, this one draws from the seeded generator of the
harness. ``testLarge...``'s sizes (a million partitions; 200,000 with racks) are Kafka's.
"""

from __future__ import annotations

from tests.assignor.kafka_client_harness import (
    DEFAULT_GENERATION,
    RackConfig,
    StickyTest,
    assert_equals,
    check,
    is_fully_balanced,
    tp,
)

RACK = "rack"  # parameterised by RackConfig
HAS_RACK = "hasConsumerRack"  # parameterised by a boolean
PLAIN = "plain"  # no parameter

SCENARIOS: dict = {}
"""Kafka's method name -> (the function, its parameter kind), in the order the class declares them."""


def kafka_test(kind: str):
    def register(fn):
        SCENARIOS[fn.__name__] = (fn, kind)
        return fn

    return register


def _rack_bool(t: StickyTest, has_consumer_rack: bool) -> None:
    t.initialize_racks(RackConfig.BROKER_AND_CONSUMER_RACK if has_consumer_rack else RackConfig.NO_CONSUMER_RACK)


@kafka_test(HAS_RACK)
def testOneConsumerNoTopic(t: StickyTest, has_consumer_rack: bool) -> None:
    _rack_bool(t, has_consumer_rack)
    ppt: dict = {}
    t.subscriptions = {t.consumer_id: t.subscription([], 0)}
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals({t.consumer_id}, set(assignment))
    check(not assignment[t.consumer_id])
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(HAS_RACK)
def testOneConsumerNonexistentTopic(t: StickyTest, has_consumer_rack: bool) -> None:
    _rack_bool(t, has_consumer_rack)
    ppt = {t.topic: []}
    t.subscriptions = {t.consumer_id: t.subscription([t.topic], 0)}
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals({t.consumer_id}, set(assignment))
    check(not assignment[t.consumer_id])
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testOneConsumerOneTopic(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic: t.partition_infos(t.topic, 3)}
    t.subscriptions = {t.consumer_id: t.subscription([t.topic], 0)}
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(t.topic, 0), tp(t.topic, 1), tp(t.topic, 2)], assignment[t.consumer_id])
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testOnlyAssignsPartitionsFromSubscribedTopics(t: StickyTest, rc: RackConfig) -> None:
    other = "other"
    t.initialize_racks(rc)
    ppt = {t.topic: t.partition_infos(t.topic, 2)}
    t.subscriptions = {}
    owned = [tp(t.topic, 0), tp(t.topic, 1), tp(other, 0), tp(other, 1)]
    t.subscriptions[t.consumer_id] = t.build_v2([t.topic], owned, t.generation_id, 0)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(t.topic, 0), tp(t.topic, 1)], assignment[t.consumer_id])
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testOneConsumerMultipleTopics(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(t.topic1, 1), t.topic2: t.partition_infos(t.topic2, 2)}
    t.subscriptions = {t.consumer_id: t.subscription([t.topic1, t.topic2], 0)}
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(t.topic1, 0), tp(t.topic2, 0), tp(t.topic2, 1)], assignment[t.consumer_id])
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testTwoConsumersOneTopicOnePartition(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic: t.partition_infos(t.topic, 1)}
    t.subscriptions[t.consumer1] = t.subscription([t.topic], 0)
    t.subscriptions[t.consumer2] = t.subscription([t.topic], 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testTwoConsumersOneTopicTwoPartitions(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic: t.partition_infos(t.topic, 2)}
    t.subscriptions[t.consumer1] = t.subscription([t.topic], 0)
    t.subscriptions[t.consumer2] = t.subscription([t.topic], 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(t.topic, 0)], assignment[t.consumer1])
    assert_equals([tp(t.topic, 1)], assignment[t.consumer2])
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testMultipleConsumersMixedTopicSubscriptions(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(t.topic1, 3), t.topic2: t.partition_infos(t.topic2, 2)}
    t.subscriptions[t.consumer1] = t.subscription([t.topic1], 0)
    t.subscriptions[t.consumer2] = t.subscription([t.topic1, t.topic2], 1)
    t.subscriptions[t.consumer3] = t.subscription([t.topic1], 2)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(t.topic1, 0), tp(t.topic1, 2)], assignment[t.consumer1])
    assert_equals([tp(t.topic2, 0), tp(t.topic2, 1)], assignment[t.consumer2])
    assert_equals([tp(t.topic1, 1)], assignment[t.consumer3])
    check(t.assignor.partitions_transferring_ownership is None)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testTwoConsumersTwoTopicsSixPartitions(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(t.topic1, 3), t.topic2: t.partition_infos(t.topic2, 3)}
    t.subscriptions[t.consumer1] = t.subscription([t.topic1, t.topic2], 0)
    t.subscriptions[t.consumer2] = t.subscription([t.topic1, t.topic2], 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(t.topic1, 0), tp(t.topic1, 2), tp(t.topic2, 1)], assignment[t.consumer1])
    assert_equals([tp(t.topic1, 1), tp(t.topic2, 0), tp(t.topic2, 2)], assignment[t.consumer2])
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testConsumerOwningMinQuotaExpectedMaxQuota(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(t.topic1, 2), t.topic2: t.partition_infos(t.topic2, 3)}
    topics = [t.topic1, t.topic2]
    t.subscriptions[t.consumer1] = t.build_v2(topics, [tp(t.topic1, 0), tp(t.topic2, 1)], t.generation_id, 0)
    t.subscriptions[t.consumer2] = t.build_v2(topics, [tp(t.topic1, 1), tp(t.topic2, 2)], t.generation_id, 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(t.topic1, 0), tp(t.topic2, 1), tp(t.topic2, 0)], assignment[t.consumer1])
    assert_equals([tp(t.topic1, 1), tp(t.topic2, 2)], assignment[t.consumer2])
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(t.topic1, 2), t.topic2: t.partition_infos(t.topic2, 2)}
    topics = [t.topic1, t.topic2]
    t.subscriptions[t.consumer1] = t.build_v2(topics, [tp(t.topic1, 0), tp(t.topic2, 0)], t.generation_id, 0)
    t.subscriptions[t.consumer2] = t.build_v2(topics, [tp(t.topic1, 1), tp(t.topic2, 1)], t.generation_id, 1)
    t.subscriptions[t.consumer3] = t.build_v2(topics, [], t.generation_id, 2)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals({tp(t.topic2, 0): t.consumer3}, t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    assert_equals([tp(t.topic1, 0)], assignment[t.consumer1])
    assert_equals([tp(t.topic1, 1), tp(t.topic2, 1)], assignment[t.consumer2])
    assert_equals([tp(t.topic2, 0)], assignment[t.consumer3])
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testAllConsumersAreUnderMinQuota(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(t.topic1, 2), t.topic2: t.partition_infos(t.topic2, 3)}
    topics = [t.topic1, t.topic2]
    t.subscriptions[t.consumer1] = t.build_v2(topics, [tp(t.topic1, 0)], t.generation_id, 0)
    t.subscriptions[t.consumer2] = t.build_v2(topics, [tp(t.topic1, 1)], t.generation_id, 1)
    t.subscriptions[t.consumer3] = t.build_v2(topics, [], t.generation_id, 2)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    assert_equals([tp(t.topic1, 0), tp(t.topic2, 1)], assignment[t.consumer1])
    assert_equals([tp(t.topic1, 1), tp(t.topic2, 2)], assignment[t.consumer2])
    assert_equals([tp(t.topic2, 0)], assignment[t.consumer3])
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testAddRemoveConsumerOneTopic(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic: t.partition_infos(t.topic, 3)}
    t.subscriptions[t.consumer1] = t.subscription([t.topic], 0)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(t.topic, 0), tp(t.topic, 1), tp(t.topic, 2)], assignment[t.consumer1])
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))

    t.subscriptions[t.consumer1] = t.build_v2([t.topic], assignment[t.consumer1], t.generation_id, 0)
    t.subscriptions[t.consumer2] = t.build_v2([t.topic], [], t.generation_id, 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals({tp(t.topic, 2): t.consumer2}, t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    assert_equals([tp(t.topic, 0), tp(t.topic, 1)], assignment[t.consumer1])
    assert_equals([tp(t.topic, 2)], assignment[t.consumer2])
    check(is_fully_balanced(assignment))

    del t.subscriptions[t.consumer1]
    t.subscriptions[t.consumer2] = t.build_v2([t.topic], assignment[t.consumer2], t.generation_id, 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals({tp(t.topic, 2), tp(t.topic, 1), tp(t.topic, 0)}, set(assignment[t.consumer2]))
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


def _count(tps, topic) -> int:
    return sum(1 for x in tps if x[0] == topic)


@kafka_test(RACK)
def testTopicBalanceAfterReassignment(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    all_topics = [t.topic1, t.topic2]
    ppt = {t.topic1: t.partition_infos(t.topic1, 12), t.topic2: t.partition_infos(t.topic2, 12)}
    t.subscriptions[t.consumer1] = t.subscription(all_topics, 0)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    for tps in assignment.values():
        assert_equals(12, _count(tps, t.topic1))
        assert_equals(12, _count(tps, t.topic2))
    check(not t.assignor.partitions_transferring_ownership)
    check(is_fully_balanced(assignment))

    t.subscriptions[t.consumer1] = t.build_v2(all_topics, assignment[t.consumer1], t.generation_id, 0)
    t.subscriptions[t.consumer2] = t.build_v2(all_topics, [], t.generation_id, 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    for tps in assignment.values():
        assert_equals(6, _count(tps, t.topic1))
        assert_equals(6, _count(tps, t.topic2))
    check(is_fully_balanced(assignment))

    t.subscriptions[t.consumer1] = t.build_v2(all_topics, assignment[t.consumer1], t.generation_id, 0)
    t.subscriptions[t.consumer2] = t.build_v2(all_topics, assignment[t.consumer2], t.generation_id, 1)
    t.subscriptions[t.consumer3] = t.build_v2(all_topics, [], t.generation_id, 2)
    t.subscriptions[t.consumer4] = t.build_v2(all_topics, [], t.generation_id, 3)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    for tps in assignment.values():
        assert_equals(3, _count(tps, t.topic1))
        assert_equals(3, _count(tps, t.topic2))
    check(is_fully_balanced(assignment))

    del t.subscriptions[t.consumer1]
    del t.subscriptions[t.consumer2]
    t.subscriptions[t.consumer3] = t.build_v2(all_topics, assignment[t.consumer3], t.generation_id, 2)
    t.subscriptions[t.consumer4] = t.build_v2(all_topics, assignment[t.consumer4], t.generation_id, 3)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    for tps in assignment.values():
        assert_equals(6, _count(tps, t.topic1))
        assert_equals(6, _count(tps, t.topic2))
    check(not t.assignor.partitions_transferring_ownership)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testAddRemoveTwoConsumersTwoTopics(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    all_topics = [t.topic1, t.topic2]
    ppt = {t.topic1: t.partition_infos(t.topic1, 3), t.topic2: t.partition_infos(t.topic2, 4)}
    t.subscriptions[t.consumer1] = t.subscription(all_topics, 0)
    t.subscriptions[t.consumer2] = t.subscription(all_topics, 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(t.topic1, 0), tp(t.topic1, 2), tp(t.topic2, 1), tp(t.topic2, 3)], assignment[t.consumer1])
    assert_equals([tp(t.topic1, 1), tp(t.topic2, 0), tp(t.topic2, 2)], assignment[t.consumer2])
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))

    t.subscriptions[t.consumer1] = t.build_v2(all_topics, assignment[t.consumer1], t.generation_id, 0)
    t.subscriptions[t.consumer2] = t.build_v2(all_topics, assignment[t.consumer2], t.generation_id, 1)
    t.subscriptions[t.consumer3] = t.build_v2(all_topics, [], t.generation_id, 2)
    t.subscriptions[t.consumer4] = t.build_v2(all_topics, [], t.generation_id, 3)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    expected = {tp(t.topic1, 2): t.consumer3, tp(t.topic2, 3): t.consumer3, tp(t.topic2, 2): t.consumer4}
    assert_equals(expected, t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    assert_equals([tp(t.topic1, 0), tp(t.topic2, 1)], assignment[t.consumer1])
    assert_equals([tp(t.topic2, 0), tp(t.topic1, 1)], assignment[t.consumer2])
    assert_equals([tp(t.topic1, 2), tp(t.topic2, 3)], assignment[t.consumer3])
    assert_equals([tp(t.topic2, 2)], assignment[t.consumer4])
    check(is_fully_balanced(assignment))

    del t.subscriptions[t.consumer1]
    del t.subscriptions[t.consumer2]
    t.subscriptions[t.consumer3] = t.build_v2(all_topics, assignment[t.consumer3], t.generation_id, 2)
    t.subscriptions[t.consumer4] = t.build_v2(all_topics, assignment[t.consumer4], t.generation_id, 3)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    want3 = [tp(t.topic1, 2), tp(t.topic2, 3), tp(t.topic1, 0), tp(t.topic2, 1)]
    assert_equals(want3, assignment[t.consumer3])
    assert_equals([tp(t.topic2, 2), tp(t.topic1, 1), tp(t.topic2, 0)], assignment[t.consumer4])
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testPoorRoundRobinAssignmentScenario(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {}
    for i in range(1, 6):
        name = f"topic{i}"
        ppt[name] = t.partition_infos(name, (i % 2) + 1)
    five = ["topic1", "topic2", "topic3", "topic4", "topic5"]
    three = ["topic1", "topic3", "topic5"]
    t.subscriptions["consumer1"] = t.subscription(five, 0)
    t.subscriptions["consumer2"] = t.subscription(three, 1)
    t.subscriptions["consumer3"] = t.subscription(three, 2)
    t.subscriptions["consumer4"] = t.subscription(five, 3)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)


@kafka_test(RACK)
def testAddRemoveTopicTwoConsumers(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic: t.partition_infos(t.topic, 3)}
    t.subscriptions[t.consumer1] = t.subscription([t.topic], 0)
    t.subscriptions[t.consumer2] = t.subscription([t.topic], 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    check(is_fully_balanced(assignment))
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    c1a1, c2a1 = assignment[t.consumer1], assignment[t.consumer2]
    check(sorted([len(c1a1), len(c2a1)]) == [1, 2])

    ppt[t.topic2] = t.partition_infos(t.topic2, 3)
    both = [t.topic, t.topic2]
    t.subscriptions[t.consumer1] = t.build_v2(both, assignment[t.consumer1], t.generation_id, 0)
    t.subscriptions[t.consumer2] = t.build_v2(both, assignment[t.consumer2], t.generation_id, 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))
    c1a, c2a = assignment[t.consumer1], assignment[t.consumer2]
    check(len(c1a) == 3 and len(c2a) == 3)
    check(set(c1a1) <= set(c1a) and set(c2a1) <= set(c2a))

    del ppt[t.topic]
    t.subscriptions[t.consumer1] = t.build_v2([t.topic2], assignment[t.consumer1], t.generation_id, 0)
    t.subscriptions[t.consumer2] = t.build_v2([t.topic2], assignment[t.consumer2], t.generation_id, 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))
    c1a3, c2a3 = assignment[t.consumer1], assignment[t.consumer2]
    check(sorted([len(c1a3), len(c2a3)]) == [1, 2])
    check(set(c1a3) <= set(c1a) and set(c2a3) <= set(c2a))


@kafka_test(RACK)
def testReassignmentAfterOneConsumerLeaves(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {}
    for i in range(1, 20):
        name = t.topic_name(i, 20)
        ppt[name] = t.partition_infos(name, i)
    for i in range(1, 20):
        topics = [t.topic_name(j, 20) for j in range(1, i + 1)]
        t.subscriptions[t.consumer_name(i, 20)] = t.subscription(topics, i)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    for i in range(1, 20):
        c = t.consumer_name(i, 20)
        t.subscriptions[c] = t.build_v2(t.subscriptions[c].topics, assignment[c], t.generation_id, i)
    del t.subscriptions["c10"]
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(t.assignor.is_sticky())


@kafka_test(RACK)
def testReassignmentAfterOneConsumerAdded(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {"topic": t.partition_infos("topic", 20)}
    for i in range(1, 10):
        t.subscriptions[t.consumer_name(i, 10)] = t.subscription(["topic"], i)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    t.subscriptions[t.consumer_name(10, 10)] = t.subscription(["topic"], 10)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)


@kafka_test(RACK)
def testSameSubscriptions(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {}
    for i in range(1, 15):
        name = t.topic_name(i, 15)
        ppt[name] = t.partition_infos(name, i)
    for i in range(1, 9):
        topics = [t.topic_name(j, 15) for j in range(1, len(ppt) + 1)]
        t.subscriptions[t.consumer_name(i, 9)] = t.subscription(topics, i)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    for i in range(1, 9):
        c = t.consumer_name(i, 9)
        t.subscriptions[c] = t.build_v2(t.subscriptions[c].topics, assignment[c], t.generation_id, i)
    del t.subscriptions[t.consumer_name(5, 9)]
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)


def _large(t: StickyTest, has_consumer_rack: bool, topic_count: int, partition_count: int, consumer_count: int,
           topics_of) -> None:  # fmt: skip
    """The shape of the three ``testLarge...``/``...NotTimeout`` methods: a first assignment, then every member but
    the first resubscribing with what it got; Kafka asserts only that both calls finish within the timeout."""
    _rack_bool(t, has_consumer_rack)
    topics = []
    ppt = {}
    for i in range(topic_count):
        name = t.topic_name(i, topic_count)
        topics.append(name)
        ppt[name] = t.partition_infos(name, partition_count)
    for i in range(consumer_count):
        t.subscriptions[t.consumer_name(i, consumer_count)] = t.subscription(topics_of(topics, i), i)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    for i in range(1, consumer_count):
        c = t.consumer_name(i, consumer_count)
        t.subscriptions[c] = t.build_v2(topics_of(topics, i), assignment[c], t.generation_id, i)
    t.assignor.assign_partitions(ppt, t.subscriptions)


@kafka_test(HAS_RACK)
def testLargeAssignmentAndGroupWithUniformSubscription(t: StickyTest, has_consumer_rack: bool) -> None:
    _large(t, has_consumer_rack, 50 if has_consumer_rack else 500, 2000, 2000, lambda topics, i: topics)


@kafka_test(HAS_RACK)
def testLargeAssignmentAndGroupWithNonEqualSubscription(t: StickyTest, has_consumer_rack: bool) -> None:
    _large(
        t, has_consumer_rack, 50 if has_consumer_rack else 500, 2000, 2000,
        lambda topics, i: topics[:1] if i == 1999 else topics,
    )  # fmt: skip


@kafka_test(HAS_RACK)
def testAssignmentAndGroupWithNonEqualSubscriptionNotTimeout(t: StickyTest, has_consumer_rack: bool) -> None:
    count = 50 if has_consumer_rack else 100
    _large(
        t, has_consumer_rack, count, 200, 500,
        lambda topics, i: topics[: count // 2] if i % 4 == 0 else topics[count // 2 :],
    )  # fmt: skip


@kafka_test(PLAIN)
def testSubscriptionNotEqualAndAssignSamePartitionWith3Generation(t: StickyTest) -> None:
    ppt = {t.topic: t.partition_infos(t.topic, 6), t.topic1: t.partition_infos(t.topic1, 1)}
    for gens in ((1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1)):
        T = t.topic
        t.subscriptions[t.consumer1] = t.build_v2([T], [tp(T, 0), tp(T, 2)], gens[0], 0)
        t.subscriptions[t.consumer2] = t.build_v2([T], [tp(T, 1), tp(T, 2), tp(T, 3)], gens[1], 1)
        t.subscriptions[t.consumer3] = t.build_v2([T], [tp(T, 2), tp(T, 4), tp(T, 5)], gens[2], 2)
        t.subscriptions[t.consumer4] = t.build_v2([t.topic1], [tp(t.topic1, 0)], 2, 3)
        assign = t.assignor.assign_partitions(ppt, t.subscriptions)
        every = [x for tps in assign.values() for x in tps]
        assert_equals(len(every), len(set(every)))
        for tps in assign.values():
            check(1 <= len(tps) <= 2, f"{len(tps)} partitions")


@kafka_test(HAS_RACK)
def testLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription(t: StickyTest, has_consumer_rack: bool):
    _rack_bool(t, has_consumer_rack)
    rand = t.random
    topic_count, consumer_count = 40, 200
    ppt = {}
    for i in range(topic_count):
        name = t.topic_name(i, topic_count)
        ppt[name] = t.partition_infos(name, rand.randrange(10) + 1)
    for i in range(consumer_count):
        topics = []
        j = 0
        while j < rand.randrange(20):  # Java re-draws the bound at every turn of the loop
            topics.append(t.topic_name(rand.randrange(topic_count), topic_count))
            j += 1
        t.subscriptions[t.consumer_name(i, consumer_count)] = t.subscription(topics, i)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    for i in range(1, consumer_count):
        c = t.consumer_name(i, consumer_count)
        t.subscriptions[c] = t.build_v2(t.subscriptions[c].topics, assignment[c], t.generation_id, i)
    for _ in range(50):
        t.subscriptions.pop(t.consumer_name(rand.randrange(consumer_count), consumer_count), None)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(t.assignor.is_sticky())


@kafka_test(RACK)
def testNewSubscription(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {}
    for i in range(1, 5):
        name = t.topic_name(i, 5)
        ppt[name] = t.partition_infos(name, 1)
    for i in range(3):
        topics = [t.topic_name(j, 5) for j in range(i, 3 * i - 2 + 1)]
        t.subscriptions[t.consumer_name(i, 3)] = t.subscription(topics, i)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    t.subscriptions[t.consumer_name(0, 3)].topics.append(t.topic_name(1, 5))
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(t.assignor.is_sticky())


@kafka_test(RACK)
def testMoveExistingAssignments(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {}
    for i in range(1, 7):
        ppt[f"topic{i}"] = t.partition_infos(f"topic{i}", 1)
    g = t.generation_id
    t.subscriptions[t.consumer1] = t.build_v2(["topic1", "topic2"], [tp("topic1", 0)], g, 0)
    t.subscriptions[t.consumer2] = t.build_v2(
        ["topic1", "topic2", "topic3", "topic4"], [tp("topic2", 0), tp("topic3", 0)], g, 1
    )
    t.subscriptions[t.consumer3] = t.build_v2(
        ["topic2", "topic3", "topic4", "topic5", "topic6"], [tp("topic4", 0), tp("topic5", 0), tp("topic6", 0)], g, 2
    )
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(t.assignor.partitions_transferring_ownership is None)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)


@kafka_test(RACK)
def testStickiness(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(t.topic1, 3)}
    for i, c in enumerate((t.consumer1, t.consumer2, t.consumer3, t.consumer4)):
        t.subscriptions[c] = t.subscription([t.topic1], i)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    assigned = {}
    for consumer, tps in assignment.items():
        check(len(tps) <= 1, f"Consumer {consumer} is assigned more topic partitions than expected.")
        if len(tps) == 1:
            assigned[consumer] = tps[0]
    del t.subscriptions[t.consumer1]
    for i, c in ((1, t.consumer2), (2, t.consumer3), (3, t.consumer4)):
        t.subscriptions[c] = t.build_v2([t.topic1], assignment[c], t.generation_id, i)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    for consumer, tps in assignment.items():
        assert_equals(1, len(tps), f"Consumer {consumer} is assigned more topic partitions than expected.")
        check(consumer not in assigned or assigned[consumer] in tps, f"Stickiness was not honored for {consumer}")


@kafka_test(RACK)
def testAssignmentUpdatedForDeletedTopic(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(t.topic1, 1), t.topic3: t.partition_infos(t.topic3, 100)}
    t.subscriptions = {t.consumer_id: t.subscription([t.topic1, t.topic2, t.topic3], 0)}
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    assert_equals(1 + 100, sum(len(v) for v in assignment.values()))
    assert_equals({t.consumer_id}, set(assignment))
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testNoExceptionThrownWhenOnlySubscribedTopicDeleted(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic: t.partition_infos(t.topic, 3)}
    t.subscriptions[t.consumer_id] = t.subscription([t.topic], 0)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    t.subscriptions[t.consumer_id] = t.build_v2([t.topic], assignment[t.consumer_id], t.generation_id, 0)
    assignment = t.assignor.assign({}, t.subscriptions)
    check(not t.assignor.partitions_transferring_ownership)
    assert_equals(1, len(assignment))
    check(not assignment[t.consumer_id])


@kafka_test(RACK)
def testReassignmentWithRandomSubscriptionsAndChanges(t: StickyTest, rc: RackConfig, rounds: int = 100) -> None:
    t.initialize_racks(rc)
    min_consumers, max_consumers, min_topics, max_topics = 20, 40, 10, 20
    for _ in range(rounds):
        num_topics = min_topics + t.random.randrange(max_topics - min_topics)
        topics = []
        ppt = {}
        for i in range(num_topics):
            name = t.topic_name(i, max_topics)
            topics.append(name)
            ppt[name] = t.partition_infos(name, i + 1)
        num_consumers = min_consumers + t.random.randrange(max_consumers - min_consumers)
        for i in range(num_consumers):
            sub = sorted(t.random_sublist(topics))
            t.subscriptions[t.consumer_name(i, max_consumers)] = t.subscription(sub, i)
        t.assignor = t.create_assignor()  # a new assignor: preferRackAwareLogic back to false
        assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
        t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
        t.subscriptions.clear()
        for i in range(num_consumers):
            sub = sorted(t.random_sublist(topics))
            c = t.consumer_name(i, max_consumers)
            t.subscriptions[c] = t.build_v2(sub, assignment[c], t.generation_id, i)
        assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
        t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
        check(t.assignor.is_sticky())


@kafka_test(RACK)
def testAllConsumersReachExpectedQuotaAndAreConsideredFilled(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic: t.partition_infos(t.topic, 4)}
    T, g = t.topic, t.generation_id
    t.subscriptions[t.consumer1] = t.build_v2([T], [tp(T, 0), tp(T, 1)], g, 0)
    t.subscriptions[t.consumer2] = t.build_v2([T], [tp(T, 2)], g, 1)
    t.subscriptions[t.consumer3] = t.build_v2([T], [], g, 2)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(T, 0), tp(T, 1)], assignment[t.consumer1])
    assert_equals([tp(T, 2)], assignment[t.consumer2])
    assert_equals([tp(T, 3)], assignment[t.consumer3])
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


def _invalidated(t: StickyTest, rc: RackConfig, second_generation: int) -> None:
    t.initialize_racks(rc)
    T, T2 = t.topic, t.topic2
    ppt = {T: t.partition_infos(T, 3), T2: t.partition_infos(T2, 3)}
    owned = [tp(T, 0), tp(T, 2), tp(T2, 1)]
    t.subscriptions[t.consumer1] = t.build_v2([T, T2], owned, 10, 0)
    t.subscriptions[t.consumer2] = t.build_v2([T, T2], owned, second_generation, 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals(set(owned), set(assignment[t.consumer1]))
    assert_equals({tp(T, 1), tp(T2, 0), tp(T2, 2)}, set(assignment[t.consumer2]))
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration(t: StickyTest, rc: RackConfig) -> None:
    _invalidated(t, rc, 10 - 1)


@kafka_test(RACK)
def testOwnedPartitionsAreInvalidatedForConsumerWithNoGeneration(t: StickyTest, rc: RackConfig) -> None:
    _invalidated(t, rc, DEFAULT_GENERATION)


@kafka_test(RACK)
def testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration(
    t: StickyTest, rc: RackConfig
) -> None:
    t.initialize_racks(rc)
    T, g = t.topic, t.generation_id
    ppt = {T: t.partition_infos(T, 3)}
    t.subscriptions[t.consumer1] = t.build_v2([T], [tp(T, 0), tp(T, 1)], g, 0)
    t.subscriptions[t.consumer2] = t.build_v2([T], [tp(T, 0), tp(T, 2)], g, 1)
    t.subscriptions[t.consumer3] = t.build_v2([T], [], g, 2)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals({tp(T, 0): t.consumer3}, t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    assert_equals([tp(T, 1)], assignment[t.consumer1])
    assert_equals([tp(T, 2)], assignment[t.consumer2])
    assert_equals([tp(T, 0)], assignment[t.consumer3])
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testEnsurePartitionsAssignedToHighestGeneration(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    T, T2, T3 = t.topic, t.topic2, t.topic3
    ppt = {T: t.partition_infos(T, 3), T2: t.partition_infos(T2, 3), T3: t.partition_infos(T3, 3)}
    three = [T, T2, T3]
    t.subscriptions[t.consumer1] = t.build_v2(three, [tp(T, 0), tp(T2, 0), tp(T3, 0)], 10, 0)
    t.subscriptions[t.consumer2] = t.build_v2(three, [tp(T, 1), tp(T2, 1), tp(T3, 1)], 10 - 1, 1)
    t.subscriptions[t.consumer3] = t.build_v2(three, [tp(T2, 1), tp(T3, 0), tp(T3, 2)], 10 - 2, 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals({tp(T, 0), tp(T2, 0), tp(T3, 0)}, set(assignment[t.consumer1]))
    assert_equals({tp(T, 1), tp(T2, 1), tp(T3, 1)}, set(assignment[t.consumer2]))
    assert_equals({tp(T, 2), tp(T2, 2), tp(T3, 2)}, set(assignment[t.consumer3]))
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testNoReassignmentOnCurrentMembers(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    T, T1, T2, T3 = t.topic, t.topic1, t.topic2, t.topic3
    ppt = {x: t.partition_infos(x, 3) for x in (T, T1, T2, T3)}
    four = [T, T2, T3, T1]
    t.subscriptions[t.consumer1] = t.build_v2(four, [], DEFAULT_GENERATION, 0)
    t.subscriptions[t.consumer2] = t.build_v2(four, [tp(T, 0), tp(T2, 0), tp(T1, 0)], 10 - 1, 1)
    t.subscriptions[t.consumer3] = t.build_v2(four, [tp(T3, 2), tp(T2, 2), tp(T1, 1)], 10 - 2, 2)
    t.subscriptions[t.consumer4] = t.build_v2(four, [tp(T3, 1), tp(T, 1), tp(T, 2)], 10 - 3, 3)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals({tp(T1, 2), tp(T2, 1), tp(T3, 0)}, set(assignment[t.consumer1]))
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


@kafka_test(RACK)
def testOwnedPartitionsAreInvalidatedForConsumerWithMultipleGeneration(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    T, T2 = t.topic, t.topic2
    ppt = {T: t.partition_infos(T, 3), T2: t.partition_infos(T2, 3)}
    t.subscriptions[t.consumer1] = t.build_v2([T, T2], [tp(T, 0), tp(T2, 1), tp(T, 1)], 10, 0)
    t.subscriptions[t.consumer2] = t.build_v2([T, T2], [tp(T, 0), tp(T2, 1), tp(T2, 2)], 10 - 2, 1)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals({tp(T, 0), tp(T2, 1), tp(T, 1)}, set(assignment[t.consumer1]))
    assert_equals({tp(T, 2), tp(T2, 2), tp(T2, 0)}, set(assignment[t.consumer2]))
    check(not t.assignor.partitions_transferring_ownership)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))
