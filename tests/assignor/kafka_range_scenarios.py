"""Kafka's ``RangeAssignorTest`` and ``RoundRobinAssignorTest`` (clients/src/test/java/org/apache/kafka/clients/
consumer/, the 4.4 branch, confluentinc/kafka 8d3916cf), method by method, on
:mod:`tests.assignor.kafka_client_harness`: the same inputs, calls and assertions, every ``RackConfig`` and
``hasConsumerRack`` parameter (``initializeRacks`` turns on ``preferRackAwareLogic``, as in Kafka).
``assertAssignment`` compares as sets, ``assertEquals`` on lists in order, as Kafka's do.
"""

from __future__ import annotations

from tests.assignor.kafka_client_harness import (
    ALL_RACKS,
    Assignor,
    Engine,
    RackConfig,
    Subscription,
    assert_equals,
    check,
    java_mod,
    null_racks,
    partition_infos,
    racks,
    tp,
    verify_rack_assignment,
)
from tests.assignor.kafka_sticky_scenarios import HAS_RACK, PLAIN, RACK


class RangeTest:
    """``RangeAssignorTest``'s fields and helpers."""

    topic1, topic2 = "topic1", "topic2"
    consumer1, consumer2, consumer3 = "consumer1", "consumer2", "consumer3"
    instance1, instance2, instance3 = "instance1", "instance2", "instance3"

    def __init__(self, engine: Engine) -> None:
        self.assignor = Assignor("range", engine)
        self.num_broker_racks = 0
        self.has_consumer_rack = False
        self.replication_factor = 3
        self.static_members = [(self.consumer1, self.instance1), (self.consumer2, self.instance2),
                               (self.consumer3, self.instance3)]  # fmt: skip

    def initialize_racks(self, config: RackConfig, max_consumers: int = 3) -> None:
        self.replication_factor = max_consumers
        self.num_broker_racks = max_consumers if config != RackConfig.NO_BROKER_RACK else 0
        self.has_consumer_rack = config != RackConfig.NO_CONSUMER_RACK
        self.assignor.prefer_rack_aware = True

    def partition_infos(self, n: int):
        return partition_infos(n, self.replication_factor, self.num_broker_racks, 0)

    def two_topics(self, n1: int, n2: int) -> dict:
        return {self.topic1: self.partition_infos(n1), self.topic2: self.partition_infos(n2)}

    def subscription(self, topics: list[str], index: int) -> Subscription:
        num = self.num_broker_racks if self.num_broker_racks > 0 else len(ALL_RACKS)
        rack = ALL_RACKS[java_mod(index, num)] if self.has_consumer_rack else None
        return Subscription(list(topics), None, [], -1, rack)

    def static_assignment(self, ppt, consumers: dict[str, Subscription]) -> dict[str, list]:
        """``checkStaticAssignment``: the assignment by ``group.instance.id``."""
        by_member = self.assignor.assign_partitions(ppt, consumers)
        return {s.instance_id: by_member[m] for m, s in consumers.items() if s.instance_id is not None}


def _rack_bool(t: RangeTest, has_consumer_rack: bool) -> None:
    t.initialize_racks(RackConfig.BROKER_AND_CONSUMER_RACK if has_consumer_rack else RackConfig.NO_CONSUMER_RACK)


def range_testOneConsumerNoTopic(t: RangeTest, has_consumer_rack: bool) -> None:
    _rack_bool(t, has_consumer_rack)
    assignment = t.assignor.assign_partitions({}, {t.consumer1: t.subscription([], 0)})
    assert_equals({t.consumer1}, set(assignment))
    check(not assignment[t.consumer1])


def range_testOneConsumerNonexistentTopic(t: RangeTest, has_consumer_rack: bool) -> None:
    _rack_bool(t, has_consumer_rack)
    assignment = t.assignor.assign_partitions({}, {t.consumer1: t.subscription([t.topic1], 0)})
    assert_equals({t.consumer1}, set(assignment))
    check(not assignment[t.consumer1])


def range_testOneConsumerOneTopic(t: RangeTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(3)}
    assignment = t.assignor.assign_partitions(ppt, {t.consumer1: t.subscription([t.topic1], 0)})
    assert_equals({t.consumer1}, set(assignment))
    assert_equals({tp(t.topic1, 0), tp(t.topic1, 1), tp(t.topic1, 2)}, set(assignment[t.consumer1]))


def range_testOnlyAssignsPartitionsFromSubscribedTopics(t: RangeTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(3), "other": t.partition_infos(3)}
    assignment = t.assignor.assign_partitions(ppt, {t.consumer1: t.subscription([t.topic1], 0)})
    assert_equals({t.consumer1}, set(assignment))
    assert_equals({tp(t.topic1, 0), tp(t.topic1, 1), tp(t.topic1, 2)}, set(assignment[t.consumer1]))


def range_testOneConsumerMultipleTopics(t: RangeTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = t.two_topics(1, 2)
    assignment = t.assignor.assign_partitions(ppt, {t.consumer1: t.subscription([t.topic1, t.topic2], 0)})
    assert_equals({t.consumer1}, set(assignment))
    assert_equals({tp(t.topic1, 0), tp(t.topic2, 0), tp(t.topic2, 1)}, set(assignment[t.consumer1]))


def range_testTwoConsumersOneTopicOnePartition(t: RangeTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(1)}
    consumers = {t.consumer1: t.subscription([t.topic1], 0), t.consumer2: t.subscription([t.topic1], 1)}
    assignment = t.assignor.assign_partitions(ppt, consumers)
    assert_equals({tp(t.topic1, 0)}, set(assignment[t.consumer1]))
    assert_equals(set(), set(assignment[t.consumer2]))


def range_testTwoConsumersOneTopicTwoPartitions(t: RangeTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = {t.topic1: t.partition_infos(2)}
    consumers = {t.consumer1: t.subscription([t.topic1], 0), t.consumer2: t.subscription([t.topic1], 1)}
    assignment = t.assignor.assign_partitions(ppt, consumers)
    assert_equals({tp(t.topic1, 0)}, set(assignment[t.consumer1]))
    assert_equals({tp(t.topic1, 1)}, set(assignment[t.consumer2]))


def range_testMultipleConsumersMixedTopics(t: RangeTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = t.two_topics(3, 2)
    consumers = {
        t.consumer1: t.subscription([t.topic1], 0),
        t.consumer2: t.subscription([t.topic1, t.topic2], 1),
        t.consumer3: t.subscription([t.topic1], 2),
    }
    assignment = t.assignor.assign_partitions(ppt, consumers)
    assert_equals({tp(t.topic1, 0)}, set(assignment[t.consumer1]))
    assert_equals({tp(t.topic1, 1), tp(t.topic2, 0), tp(t.topic2, 1)}, set(assignment[t.consumer2]))
    assert_equals({tp(t.topic1, 2)}, set(assignment[t.consumer3]))


def range_testTwoConsumersTwoTopicsSixPartitions(t: RangeTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = t.two_topics(3, 3)
    both = [t.topic1, t.topic2]
    consumers = {t.consumer1: t.subscription(both, 0), t.consumer2: t.subscription(both, 1)}
    assignment = t.assignor.assign_partitions(ppt, consumers)
    assert_equals({tp(t.topic1, 0), tp(t.topic1, 1), tp(t.topic2, 0), tp(t.topic2, 1)}, set(assignment[t.consumer1]))
    assert_equals({tp(t.topic1, 2), tp(t.topic2, 2)}, set(assignment[t.consumer2]))


def _two_static(t: RangeTest, rc: RackConfig, high_static: bool) -> None:
    t.initialize_racks(rc)
    low, high = "consumer-b", "consumer-a"
    ppt = t.two_topics(3, 3)
    both = [t.topic1, t.topic2]
    consumers = {}
    s = t.subscription(both, 0)
    s.instance_id = t.instance1
    consumers[low] = s
    s = t.subscription(both, 1)
    if high_static:
        s.instance_id = t.instance2
    consumers[high] = s
    assignment = t.assignor.assign_partitions(ppt, consumers)
    assert_equals({tp(t.topic1, 0), tp(t.topic1, 1), tp(t.topic2, 0), tp(t.topic2, 1)}, set(assignment[low]))
    assert_equals({tp(t.topic1, 2), tp(t.topic2, 2)}, set(assignment[high]))


def range_testTwoStaticConsumersTwoTopicsSixPartitions(t: RangeTest, rc: RackConfig) -> None:
    _two_static(t, rc, True)


def range_testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions(t: RangeTest, rc: RackConfig) -> None:
    _two_static(t, rc, False)


def range_testStaticMemberRangeAssignmentPersistent(t: RangeTest, rc: RackConfig) -> None:
    t.initialize_racks(rc, 5)
    ppt = t.two_topics(5, 4)
    both = [t.topic1, t.topic2]
    consumers = {}
    index = 0
    for member, instance in t.static_members:
        s = t.subscription(both, index)
        index += 1
        s.instance_id = instance
        consumers[member] = s
    consumers["consumer4"] = t.subscription(both, index)
    index += 1
    T1, T2 = t.topic1, t.topic2
    expected = {
        t.consumer1: [tp(T1, 0), tp(T1, 1), tp(T2, 0)],
        t.consumer2: [tp(T1, 2), tp(T2, 1)],
        t.consumer3: [tp(T1, 3), tp(T2, 2)],
        "consumer4": [tp(T1, 4), tp(T2, 3)],
    }
    assert_equals(expected, t.assignor.assign_partitions(ppt, consumers))
    del consumers["consumer4"]
    consumers["consumer5"] = t.subscription(both, index)
    del expected["consumer4"]
    expected["consumer5"] = [tp(T1, 4), tp(T2, 3)]
    assert_equals(expected, t.assignor.assign_partitions(ppt, consumers))


def _member_ids_change(t: RangeTest, ppt, consumers, expected) -> None:
    static = t.static_assignment(ppt, consumers)
    assert_equals(expected, static)
    consumers["consumer4"] = consumers[t.consumer3]
    del consumers[t.consumer3]
    consumers["consumer5"] = consumers[t.consumer2]
    del consumers[t.consumer2]
    assert_equals(static, t.static_assignment(ppt, consumers))


def range_testStaticMemberRangeAssignmentPersistentAfterMemberIdChanges(t: RangeTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    ppt = t.two_topics(5, 5)
    consumers = {}
    for index, (member, instance) in enumerate(t.static_members):
        s = t.subscription([t.topic1, t.topic2], index)
        s.instance_id = instance
        consumers[member] = s
    T1, T2 = t.topic1, t.topic2
    expected = {
        t.instance1: [tp(T1, 0), tp(T1, 1), tp(T2, 0), tp(T2, 1)],
        t.instance2: [tp(T1, 2), tp(T1, 3), tp(T2, 2), tp(T2, 3)],
        t.instance3: [tp(T1, 4), tp(T2, 4)],
    }
    _member_ids_change(t, ppt, consumers, expected)


def range_testRackAwareStaticMemberRangeAssignmentPersistentAfterMemberIdChanges(t: RangeTest) -> None:
    t.initialize_racks(RackConfig.BROKER_AND_CONSUMER_RACK)
    T1, T2 = t.topic1, t.topic2
    ppt = {T1: partition_infos(5, 2, 3, 0), T2: partition_infos(5, 2, 3, 0)}
    consumers = {}
    for index, (member, instance) in enumerate(t.static_members):
        s = t.subscription([T1, T2], index)
        s.instance_id = instance
        consumers[member] = s
    expected = {
        t.instance1: [tp(T1, 0), tp(T1, 2), tp(T2, 0), tp(T2, 2)],
        t.instance2: [tp(T1, 1), tp(T1, 3), tp(T2, 1), tp(T2, 3)],
        t.instance3: [tp(T1, 4), tp(T2, 4)],
    }
    _member_ids_change(t, ppt, consumers, expected)


def _non_rack_aware(t: RangeTest, topics, ct, plain) -> None:
    """``verifyNonRackAwareAssignment``."""
    a = t.assignor
    verify_rack_assignment(a, topics, 3, null_racks(3), racks(3), ct, [], plain, -1)
    verify_rack_assignment(a, topics, 3, racks(3), null_racks(3), ct, [], plain, -1)
    verify_rack_assignment(a, topics, 3, racks(3), racks(3), ct, [], plain, 0)
    verify_rack_assignment(a, topics, 4, racks(4), racks(3), ct, [], plain, 0)
    verify_rack_assignment(a, topics, 3, racks(3), ["d", "e", "f"], ct, [], plain, -1)
    verify_rack_assignment(a, topics, 3, racks(3), [None, "e", "f"], ct, [], plain, -1)
    a.prefer_rack_aware = True
    verify_rack_assignment(a, topics, 3, racks(3), racks(3), ct, [], plain, 0)
    a.prefer_rack_aware = False


def range_testRackAwareAssignmentWithUniformSubscription(t: RangeTest) -> None:
    topics = {"t1": 6, "t2": 7, "t3": 2}
    every = ["t1", "t2", "t3"]
    ct = [every, every, every]
    a = t.assignor
    _non_rack_aware(
        t, topics, ct, ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"]
    )
    verify_rack_assignment(
        a,
        topics,
        1,
        racks(3),
        racks(3),
        ct,
        [],
        ["t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"],
        0,
    )
    verify_rack_assignment(
        a,
        topics,
        2,
        racks(3),
        racks(3),
        ct,
        [],
        ["t1-0, t1-2, t2-0, t2-2, t2-3, t3-1", "t1-1, t1-3, t2-1, t2-4, t3-0", "t1-4, t1-5, t2-5, t2-6"],
        1,
    )
    verify_rack_assignment(a, topics, 3, racks(2), racks(3), ct, [],
                           ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"],
                           4)  # fmt: skip


def range_testRackAwareAssignmentWithNonEqualSubscription(t: RangeTest) -> None:
    topics = {"t1": 6, "t2": 7, "t3": 2}
    every = ["t1", "t2", "t3"]
    ct = [every, every, ["t1", "t3"]]
    a = t.assignor
    _non_rack_aware(
        t, topics, ct, ["t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"]
    )
    verify_rack_assignment(
        a,
        topics,
        1,
        racks(3),
        racks(3),
        ct,
        [],
        ["t1-0, t1-3, t2-0, t2-2, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t2-5, t3-0", "t1-2, t1-5, t3-1"],
        2,
    )
    verify_rack_assignment(
        a,
        topics,
        2,
        racks(3),
        racks(3),
        ct,
        [],
        ["t1-0, t1-2, t2-0, t2-2, t2-3, t2-5, t3-1", "t1-1, t1-3, t2-1, t2-4, t2-6, t3-0", "t1-4, t1-5"],
        0,
    )
    verify_rack_assignment(a, topics, 3, racks(2), racks(3), ct, [],
                           ["t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"],
                           2)  # fmt: skip


def range_testRackAwareAssignmentWithUniformPartitions(t: RangeTest) -> None:
    topics = {"t1": 5, "t2": 5, "t3": 5}
    every = ["t1", "t2", "t3"]
    ct = [every, every, every]
    plain = ["t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"]
    a = t.assignor
    _non_rack_aware(t, topics, ct, plain)
    verify_rack_assignment(a, topics, 1, racks(3), racks(3), ct, [], plain, 10)
    verify_rack_assignment(a, topics, 2, racks(3), racks(3), ct, [], plain, 5)
    verify_rack_assignment(a, topics, 3, racks(2), racks(3), ct, [], plain, 3)


def range_testRackAwareAssignmentWithUniformPartitionsNonEqualSubscription(t: RangeTest) -> None:
    topics = {"t1": 5, "t2": 5, "t3": 5}
    every = ["t1", "t2", "t3"]
    ct = [every, every, ["t1", "t3"]]
    a = t.assignor
    _non_rack_aware(
        t, topics, ct, ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"]
    )
    verify_rack_assignment(
        a,
        topics,
        1,
        racks(3),
        racks(3),
        ct,
        [],
        ["t1-0, t1-1, t2-0, t2-1, t2-4, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t3-4"],
        9,
    )
    verify_rack_assignment(
        a,
        topics,
        2,
        racks(3),
        racks(3),
        ct,
        [],
        ["t1-2, t2-0, t2-1, t2-3, t3-2", "t1-0, t1-3, t2-2, t2-4, t3-0, t3-3", "t1-1, t1-4, t3-1, t3-4"],
        0,
    )
    verify_rack_assignment(a, topics, 3, racks(2), racks(3), ct, [],
                           ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"],
                           2)  # fmt: skip


def range_testRackAwareAssignmentWithCoPartitioning(t: RangeTest) -> None:
    topics = {"t1": 6, "t2": 6, "t3": 2, "t4": 2}
    ct = [["t1", "t2"], ["t1", "t2"], ["t3", "t4"], ["t3", "t4"]]
    cr = [ALL_RACKS[0], ALL_RACKS[1], ALL_RACKS[1], ALL_RACKS[0]]
    plain = ["t1-0, t1-1, t1-2, t2-0, t2-1, t2-2", "t1-3, t1-4, t1-5, t2-3, t2-4, t2-5", "t3-0, t4-0", "t3-1, t4-1"]
    a = t.assignor
    verify_rack_assignment(a, topics, 3, racks(2), cr, ct, [], plain, -1)
    verify_rack_assignment(a, topics, 3, racks(2), cr, ct, [], plain, -1)
    verify_rack_assignment(a, topics, 2, racks(2), cr, ct, [], plain, 0)
    verify_rack_assignment(a, topics, 1, racks(2), cr, ct, [],
                           ["t1-0, t1-2, t1-4, t2-0, t2-2, t2-4", "t1-1, t1-3, t1-5, t2-1, t2-3, t2-5", "t3-1, t4-1",
                            "t3-0, t4-0"], 0)  # fmt: skip
    every = ["t1", "t2", "t3", "t4"]
    ct = [every, every, every, every]
    plain = ["t1-0, t1-1, t2-0, t2-1, t3-0, t4-0", "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1", "t1-4, t2-4", "t1-5, t2-5"]
    verify_rack_assignment(a, topics, 3, racks(2), cr, ct, [], plain, -1)
    verify_rack_assignment(a, topics, 3, racks(2), cr, ct, [], plain, -1)
    verify_rack_assignment(a, topics, 2, racks(2), cr, ct, [], plain, 0)
    verify_rack_assignment(
        a,
        topics,
        1,
        racks(2),
        cr,
        ct,
        [],
        ["t1-0, t1-2, t2-0, t2-2, t3-0, t4-0", "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1", "t1-5, t2-5", "t1-4, t2-4"],
        0,
    )
    verify_rack_assignment(a, topics, 1, racks(3), cr, ct, [],
                           ["t1-0, t1-3, t2-0, t2-3, t3-0, t4-0", "t1-1, t1-4, t2-1, t2-4, t3-1, t4-1", "t1-2, t2-2",
                            "t1-5, t2-5"], 6)  # fmt: skip


def range_testCoPartitionedAssignmentWithSameSubscription(t: RangeTest) -> None:
    topics = {"t1": 6, "t2": 6, "t3": 2, "t4": 2, "t5": 4, "t6": 4}
    every = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"]
    ct = [every, every, every]
    cr = [ALL_RACKS[0], ALL_RACKS[1], ALL_RACKS[2]]
    plain = ["t1-0, t1-1, t2-0, t2-1, t3-0, t4-0, t5-0, t5-1, t6-0, t6-1", "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1, t5-2, t6-2",
             "t1-4, t1-5, t2-4, t2-5, t5-3, t6-3"]  # fmt: skip
    a = t.assignor
    verify_rack_assignment(a, topics, 3, null_racks(3), cr, ct, [], plain, -1)
    a.prefer_rack_aware = True
    verify_rack_assignment(a, topics, 3, racks(3), cr, ct, [], plain, 0)
    aware = ["t1-0, t1-2, t2-0, t2-2, t3-0, t4-0, t5-1, t6-1", "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1, t5-2, t6-2",
             "t1-4, t1-5, t2-4, t2-5, t5-0, t5-3, t6-0, t6-3"]  # fmt: skip
    verify_rack_assignment(a, topics, 2, racks(3), cr, ct, [], aware, 0)


class RoundRobinTest:
    """``RoundRobinAssignorTest``: partitions without replicas (``assign(Map<String, Integer>, ...)``)."""

    topic, consumer_id, topic1, topic2 = "topic", "consumer", "topic1", "topic2"

    def __init__(self, engine: Engine) -> None:
        self.assignor = Assignor("roundrobin", engine)

    def two_topics(self, n1: int, n2: int) -> dict[str, int]:
        return {self.topic1: n1, self.topic2: n2}


def rr_testOneConsumerNoTopic(t: RoundRobinTest) -> None:
    assignment = t.assignor.assign({}, {t.consumer_id: Subscription([])})
    assert_equals({t.consumer_id}, set(assignment))
    check(not assignment[t.consumer_id])


def rr_testOneConsumerNonexistentTopic(t: RoundRobinTest) -> None:
    assignment = t.assignor.assign({}, {t.consumer_id: Subscription([t.topic])})
    assert_equals({t.consumer_id}, set(assignment))
    check(not assignment[t.consumer_id])


def rr_testOneConsumerOneTopic(t: RoundRobinTest) -> None:
    assignment = t.assignor.assign({t.topic: 3}, {t.consumer_id: Subscription([t.topic])})
    assert_equals([tp(t.topic, 0), tp(t.topic, 1), tp(t.topic, 2)], assignment[t.consumer_id])


def rr_testOnlyAssignsPartitionsFromSubscribedTopics(t: RoundRobinTest) -> None:
    assignment = t.assignor.assign({t.topic: 3, "other": 3}, {t.consumer_id: Subscription([t.topic])})
    assert_equals([tp(t.topic, 0), tp(t.topic, 1), tp(t.topic, 2)], assignment[t.consumer_id])


def rr_testOneConsumerMultipleTopics(t: RoundRobinTest) -> None:
    assignment = t.assignor.assign(t.two_topics(1, 2), {t.consumer_id: Subscription([t.topic1, t.topic2])})
    assert_equals([tp(t.topic1, 0), tp(t.topic2, 0), tp(t.topic2, 1)], assignment[t.consumer_id])


def rr_testTwoConsumersOneTopicOnePartition(t: RoundRobinTest) -> None:
    consumers = {"consumer1": Subscription([t.topic]), "consumer2": Subscription([t.topic])}
    assignment = t.assignor.assign({t.topic: 1}, consumers)
    assert_equals([tp(t.topic, 0)], assignment["consumer1"])
    assert_equals([], assignment["consumer2"])


def rr_testTwoConsumersOneTopicTwoPartitions(t: RoundRobinTest) -> None:
    consumers = {"consumer1": Subscription([t.topic]), "consumer2": Subscription([t.topic])}
    assignment = t.assignor.assign({t.topic: 2}, consumers)
    assert_equals([tp(t.topic, 0)], assignment["consumer1"])
    assert_equals([tp(t.topic, 1)], assignment["consumer2"])


def rr_testMultipleConsumersMixedTopics(t: RoundRobinTest) -> None:
    T1, T2 = t.topic1, t.topic2
    consumers = {"consumer1": Subscription([T1]), "consumer2": Subscription([T1, T2]), "consumer3": Subscription([T1])}
    assignment = t.assignor.assign(t.two_topics(3, 2), consumers)
    assert_equals([tp(T1, 0)], assignment["consumer1"])
    assert_equals([tp(T1, 1), tp(T2, 0), tp(T2, 1)], assignment["consumer2"])
    assert_equals([tp(T1, 2)], assignment["consumer3"])


def _rr_two(t: RoundRobinTest, first: str, second: str, instances: tuple) -> None:
    T1, T2 = t.topic1, t.topic2
    consumers = {first: Subscription([T1, T2], None, instance_id=instances[0]),
                 second: Subscription([T1, T2], None, instance_id=instances[1])}  # fmt: skip
    assignment = t.assignor.assign(t.two_topics(3, 3), consumers)
    assert_equals([tp(T1, 0), tp(T1, 2), tp(T2, 1)], assignment[first])
    assert_equals([tp(T1, 1), tp(T2, 0), tp(T2, 2)], assignment[second])


def rr_testTwoDynamicConsumersTwoTopicsSixPartitions(t: RoundRobinTest) -> None:
    _rr_two(t, "consumer1", "consumer2", (None, None))


def rr_testTwoStaticConsumersTwoTopicsSixPartitions(t: RoundRobinTest) -> None:
    _rr_two(t, "consumer-b", "consumer-a", ("instance1", "instance2"))


def rr_testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions(t: RoundRobinTest) -> None:
    _rr_two(t, "consumer-b", "consumer-a", ("instance1", None))


def rr_testStaticMemberRoundRobinAssignmentPersistent(t: RoundRobinTest) -> None:
    T1, T2 = t.topic1, t.topic2
    consumers = {}
    for member, instance in (("consumer1", "instance1"), ("consumer2", "instance2"), ("consumer3", "instance3")):
        consumers[member] = Subscription([T1, T2], None, instance_id=instance)
    consumers["consumer4"] = Subscription([T1, T2])
    expected = {
        "consumer1": [tp(T1, 0), tp(T2, 1)],
        "consumer2": [tp(T1, 1), tp(T2, 2)],
        "consumer3": [tp(T1, 2)],
        "consumer4": [tp(T2, 0)],
    }
    assert_equals(expected, t.assignor.assign(t.two_topics(3, 3), consumers))
    del consumers["consumer4"]
    consumers["consumer5"] = Subscription([T1, T2])
    del expected["consumer4"]
    expected["consumer5"] = [tp(T2, 0)]
    assert_equals(expected, t.assignor.assign(t.two_topics(3, 3), consumers))


def rr_testStaticMemberRoundRobinAssignmentPersistentAfterMemberIdChanges(t: RoundRobinTest) -> None:
    T1, T2 = t.topic1, t.topic2
    expected = {
        "instance1": [tp(T1, 0), tp(T1, 3), tp(T2, 1), tp(T2, 4)],
        "instance2": [tp(T1, 1), tp(T1, 4), tp(T2, 2)],
        "instance3": [tp(T1, 2), tp(T2, 0), tp(T2, 3)],
    }
    # the members as a HashMap of member id -> instance id iterates them (consumer1..3 in order)
    consumers = {m: Subscription([T1, T2], None, instance_id=i)
                 for m, i in (("consumer1", "instance1"), ("consumer2", "instance2"), ("consumer3", "instance3"))}  # fmt: skip

    def static() -> dict:
        by_member = t.assignor.assign(t.two_topics(5, 5), consumers)
        return {s.instance_id: by_member[m] for m, s in consumers.items() if s.instance_id is not None}

    first = static()
    assert_equals(expected, first)
    consumers["consumer4"] = consumers.pop("consumer3")
    consumers["consumer5"] = consumers.pop("consumer2")
    assert_equals(first, static())


R, RR = "RangeAssignorTest", "RoundRobinAssignorTest"
# (Kafka's test class, method, function, parameter kind)
SCENARIOS = [
    (R if name.startswith("range_") else RR, name.split("_", 1)[1], fn, kind)
    for name, fn, kind in [
        ("range_testOneConsumerNoTopic", range_testOneConsumerNoTopic, HAS_RACK),
        ("range_testOneConsumerNonexistentTopic", range_testOneConsumerNonexistentTopic, HAS_RACK),
        ("range_testOneConsumerOneTopic", range_testOneConsumerOneTopic, RACK),
        (
            "range_testOnlyAssignsPartitionsFromSubscribedTopics",
            range_testOnlyAssignsPartitionsFromSubscribedTopics,
            RACK,
        ),
        ("range_testOneConsumerMultipleTopics", range_testOneConsumerMultipleTopics, RACK),
        ("range_testTwoConsumersOneTopicOnePartition", range_testTwoConsumersOneTopicOnePartition, RACK),
        ("range_testTwoConsumersOneTopicTwoPartitions", range_testTwoConsumersOneTopicTwoPartitions, RACK),
        ("range_testMultipleConsumersMixedTopics", range_testMultipleConsumersMixedTopics, RACK),
        ("range_testTwoConsumersTwoTopicsSixPartitions", range_testTwoConsumersTwoTopicsSixPartitions, RACK),
        (
            "range_testTwoStaticConsumersTwoTopicsSixPartitions",
            range_testTwoStaticConsumersTwoTopicsSixPartitions,
            RACK,
        ),
        (
            "range_testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions",
            range_testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions,
            RACK,
        ),
        ("range_testStaticMemberRangeAssignmentPersistent", range_testStaticMemberRangeAssignmentPersistent, RACK),
        (
            "range_testStaticMemberRangeAssignmentPersistentAfterMemberIdChanges",
            range_testStaticMemberRangeAssignmentPersistentAfterMemberIdChanges,
            RACK,
        ),
        (
            "range_testRackAwareStaticMemberRangeAssignmentPersistentAfterMemberIdChanges",
            range_testRackAwareStaticMemberRangeAssignmentPersistentAfterMemberIdChanges,
            PLAIN,
        ),
        (
            "range_testRackAwareAssignmentWithUniformSubscription",
            range_testRackAwareAssignmentWithUniformSubscription,
            PLAIN,
        ),
        (
            "range_testRackAwareAssignmentWithNonEqualSubscription",
            range_testRackAwareAssignmentWithNonEqualSubscription,
            PLAIN,
        ),
        (
            "range_testRackAwareAssignmentWithUniformPartitions",
            range_testRackAwareAssignmentWithUniformPartitions,
            PLAIN,
        ),
        (
            "range_testRackAwareAssignmentWithUniformPartitionsNonEqualSubscription",
            range_testRackAwareAssignmentWithUniformPartitionsNonEqualSubscription,
            PLAIN,
        ),
        ("range_testRackAwareAssignmentWithCoPartitioning", range_testRackAwareAssignmentWithCoPartitioning, PLAIN),
        (
            "range_testCoPartitionedAssignmentWithSameSubscription",
            range_testCoPartitionedAssignmentWithSameSubscription,
            PLAIN,
        ),
        ("rr_testOneConsumerNoTopic", rr_testOneConsumerNoTopic, PLAIN),
        ("rr_testOneConsumerNonexistentTopic", rr_testOneConsumerNonexistentTopic, PLAIN),
        ("rr_testOneConsumerOneTopic", rr_testOneConsumerOneTopic, PLAIN),
        ("rr_testOnlyAssignsPartitionsFromSubscribedTopics", rr_testOnlyAssignsPartitionsFromSubscribedTopics, PLAIN),
        ("rr_testOneConsumerMultipleTopics", rr_testOneConsumerMultipleTopics, PLAIN),
        ("rr_testTwoConsumersOneTopicOnePartition", rr_testTwoConsumersOneTopicOnePartition, PLAIN),
        ("rr_testTwoConsumersOneTopicTwoPartitions", rr_testTwoConsumersOneTopicTwoPartitions, PLAIN),
        ("rr_testMultipleConsumersMixedTopics", rr_testMultipleConsumersMixedTopics, PLAIN),
        ("rr_testTwoDynamicConsumersTwoTopicsSixPartitions", rr_testTwoDynamicConsumersTwoTopicsSixPartitions, PLAIN),
        ("rr_testTwoStaticConsumersTwoTopicsSixPartitions", rr_testTwoStaticConsumersTwoTopicsSixPartitions, PLAIN),
        (
            "rr_testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions",
            rr_testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions,
            PLAIN,
        ),
        ("rr_testStaticMemberRoundRobinAssignmentPersistent", rr_testStaticMemberRoundRobinAssignmentPersistent, PLAIN),
        (
            "rr_testStaticMemberRoundRobinAssignmentPersistentAfterMemberIdChanges",
            rr_testStaticMemberRoundRobinAssignmentPersistentAfterMemberIdChanges,
            PLAIN,
        ),
    ]
]
