"""The methods of Kafka's ``StickyAssignorTest`` and ``CooperativeStickyAssignorTest`` (clients/src/test/java/org/
apache/kafka/clients/consumer/, the 4.4 branch, confluentinc/kafka 8d3916cf) beyond the ones they inherit
(:mod:`tests.assignor.kafka_sticky_scenarios`), and the inherited ones that take no parameter (``testMemberData``
and the two ``testRackAwareAssignment...``), on :mod:`tests.assignor.kafka_client_harness`.

The ``memberData`` methods ask the assignor what it reads from one subscription; here that is
:func:`codec.assignor.consumer.sticky_data.member_data` on the member the ``assign --consumer`` JSON reader makes of
it (:func:`member_data_of`).
"""

from __future__ import annotations

from codec.assignor.consumer import consumer_group_from_json
from codec.assignor.consumer.sticky_data import member_data
from tests.assignor.kafka_client_harness import (
    DEFAULT_GENERATION,
    RackConfig,
    StickyTest,
    Subscription,
    assert_equals,
    cooperative_user_data,
    check,
    group_doc,
    is_fully_balanced,
    sticky_user_data,
    sticky_user_data_v0,
    null_racks,
    racks,
    tp,
    verify_rack_assignment,
)
from tests.assignor.kafka_sticky_scenarios import PLAIN, RACK

BOTH_SUBSCRIPTIONS = "rackAndSubscriptionCombinations"


def member_data_of(t: StickyTest, s: Subscription) -> tuple[list, int | None]:
    """``assignor.memberData(subscription)``: (partitions, generation or None when absent)."""
    group, name = consumer_group_from_json(group_doc(t.name, {}, {"m": s}, False))
    parts, generation = member_data(name, group.members[0])
    return [tuple(x) for x in parts], generation


def testMemberData(t: StickyTest) -> None:
    topics = [t.topic]
    owned = [tp(t.topic1, 0), tp(t.topic2, 1)]
    subs = [
        t.build_v0(topics, owned, t.generation_id, 0),
        t.build_v1(topics, owned, t.generation_id, 1),
        t.build_v2(topics, owned, t.generation_id, 2),
    ]
    for s in subs:
        if s is not None:
            parts, generation = member_data_of(t, s)
            assert_equals(owned, parts, "owned partitions")
            assert_equals(t.generation_id, -1 if generation is None else generation, "generation")


def _claimed_twice(t: StickyTest, rc: RackConfig, partitions: int) -> dict:
    t.initialize_racks(rc)
    T, g = t.topic, t.generation_id
    ppt = {T: t.partition_infos(T, partitions)}
    t.subscriptions[t.consumer1] = t.build_v2([T], [tp(T, 0), tp(T, 1)], g, 0)
    t.subscriptions[t.consumer2] = t.build_v2([T], [tp(T, 0), tp(T, 2)], g, 1)
    t.subscriptions[t.consumer3] = t.build_v2([T], [], g, 2)
    return ppt


def testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer(
    t: StickyTest, rc: RackConfig
) -> None:
    ppt = _claimed_twice(t, rc, 3)
    T = t.topic
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(T, 1)], assignment[t.consumer1])
    assert_equals([tp(T, 2)], assignment[t.consumer2])
    if t.cooperative:  # "topic-0 has to be considered owned and so it can't be assigned until both have revoked it"
        check(not assignment[t.consumer3])
    else:
        assert_equals([tp(T, 0)], assignment[t.consumer3])
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


def testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer(
    t: StickyTest, rc: RackConfig
) -> None:
    ppt = _claimed_twice(t, rc, 4)
    T = t.topic
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(T, 1), tp(T, 3)], assignment[t.consumer1])
    assert_equals([tp(T, 2)], assignment[t.consumer2])
    if t.cooperative:
        check(not assignment[t.consumer3])
    else:
        assert_equals([tp(T, 0)], assignment[t.consumer3])
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


def testAssignmentWithMultipleGenerations1(t: StickyTest, rc: RackConfig, equal: bool) -> None:
    t.initialize_racks(rc)
    T, T2 = t.topic, t.topic2
    every = [T, T2]
    c2_topics = every if equal else [T]
    ppt = {T: t.partition_infos(T, 6), T2: t.partition_infos(T2, 6)}
    t.subscriptions[t.consumer1] = t.subscription(every, 0)
    t.subscriptions[t.consumer2] = t.subscription(c2_topics, 1)
    t.subscriptions[t.consumer3] = t.subscription(every, 2)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    r1p1, r1p2, r1p3 = assignment[t.consumer1], assignment[t.consumer2], assignment[t.consumer3]
    check(len(r1p1) == 4 and len(r1p2) == 4 and len(r1p3) == 4)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))

    t.subscriptions[t.consumer1] = t.build_v2(every, r1p1, t.generation_id, 0)
    t.subscriptions[t.consumer2] = t.build_v2(c2_topics, r1p2, t.generation_id, 1)
    del t.subscriptions[t.consumer3]
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    r2p1, r2p2 = assignment[t.consumer1], assignment[t.consumer2]
    check(len(r2p1) == 6 and len(r2p2) == 6)
    if equal:
        check(set(r1p1) <= set(r2p1))
    check(set(r1p2) <= set(r2p2))
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))
    check(bool(set(r2p2) & set(r1p3)))

    del t.subscriptions[t.consumer1]
    t.subscriptions[t.consumer2] = t.build_v2(c2_topics, r2p2, 2, 1)
    t.subscriptions[t.consumer3] = t.build_v2(every, r1p3, 1, 2)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    r3p2, r3p3 = assignment[t.consumer2], assignment[t.consumer3]
    check(len(r3p2) == 6 and len(r3p3) == 6)
    check(not set(r3p2) & set(r3p3))
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


def testAssignmentWithMultipleGenerations2(t: StickyTest, rc: RackConfig, equal: bool) -> None:
    t.initialize_racks(rc)
    T, T2, T3 = t.topic, t.topic2, t.topic3
    every = [T, T2, T3]
    c1_topics = every if equal else [T]
    c3_topics = every if equal else [T, T2]
    ppt = {T: t.partition_infos(T, 4), T2: t.partition_infos(T2, 4), T3: t.partition_infos(T3, 4)}
    t.subscriptions[t.consumer1] = t.subscription(c1_topics, 0)
    t.subscriptions[t.consumer2] = t.subscription(every, 1)
    t.subscriptions[t.consumer3] = t.subscription(c3_topics, 2)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    r1p1, r1p2, r1p3 = assignment[t.consumer1], assignment[t.consumer2], assignment[t.consumer3]
    check(len(r1p1) == 4 and len(r1p2) == 4 and len(r1p3) == 4)
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))

    del t.subscriptions[t.consumer1]
    t.subscriptions[t.consumer2] = t.build_v2(every, r1p2, 1, 1)
    del t.subscriptions[t.consumer3]
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    r2p2 = assignment[t.consumer2]
    assert_equals(12, len(r2p2))
    check(set(r1p2) <= set(r2p2))
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))

    t.subscriptions[t.consumer1] = t.build_v2(c1_topics, r1p1, 1, 0)
    t.subscriptions[t.consumer2] = t.build_v2(every, r2p2, 2, 1)
    t.subscriptions[t.consumer3] = t.build_v2(c3_topics, r1p3, 1, 2)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    sizes = [len(assignment[c]) for c in (t.consumer1, t.consumer2, t.consumer3)]
    check(sizes == [4, 4, 4], f"sizes {sizes}")
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


def testAssignmentWithConflictingPreviousGenerations(t: StickyTest, rc: RackConfig, equal: bool) -> None:
    t.initialize_racks(rc)
    T, T2, T3 = t.topic, t.topic2, t.topic3
    ppt = {T: t.partition_infos(T, 4), T2: t.partition_infos(T2, 4), T3: t.partition_infos(T3, 4)}
    every = [T, T2, T3]
    c1_topics = every if equal else [T]
    c2_topics = every if equal else [T, T2]
    t.subscriptions[t.consumer1] = t.subscription(c1_topics, 0)
    t.subscriptions[t.consumer2] = t.subscription(c2_topics, 1)
    t.subscriptions[t.consumer3] = t.subscription(every, 2)
    p = {(x, i): tp(x, i) for x in every for i in range(4)}
    c1p0 = [p[T, 0], p[T, 1], p[T, 2], p[T2, 2], p[T2, 3], p[T3, 0]] if equal else [p[T, 0], p[T, 1], p[T, 2], p[T, 3]]
    c2p0 = [p[T, 0], p[T, 1], p[T2, 0], p[T2, 1], p[T2, 2], p[T2, 3]]
    c3p0 = [p[T, 2], p[T, 3], p[T3, 0], p[T3, 1], p[T3, 2], p[T3, 3]]
    t.subscriptions[t.consumer1] = t.build_v2(c1_topics, c1p0, 1, 0)
    t.subscriptions[t.consumer2] = t.build_v2(c2_topics, c2p0, 2, 1)
    t.subscriptions[t.consumer3] = t.build_v2(every, c3p0, 2, 2)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    c1, c2, c3 = assignment[t.consumer1], assignment[t.consumer2], assignment[t.consumer3]
    check(len(c1) == 4 and len(c2) == 4 and len(c3) == 4)
    check(set(c2) <= set(c2p0))
    check(set(c3) <= set(c3p0))
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


def testSchemaBackwardCompatibility(t: StickyTest, rc: RackConfig) -> None:
    t.initialize_racks(rc)
    T = t.topic
    ppt = {T: t.partition_infos(T, 3)}
    t.subscriptions[t.consumer1] = t.subscription([T], 0)
    t.subscriptions[t.consumer2] = t.subscription([T], 1)
    t.subscriptions[t.consumer3] = t.subscription([T], 2)
    c1p0, c2p0 = [tp(T, 0), tp(T, 2)], [tp(T, 1)]
    t.subscriptions[t.consumer1] = t.build_v2([T], c1p0, 1, 0)
    # buildSubscriptionWithOldSchema: STICKY_ASSIGNOR_USER_DATA_V0 in userData, nothing else
    t.subscriptions[t.consumer2] = Subscription([T], sticky_user_data_v0(c2p0), [], DEFAULT_GENERATION,
                                                t.consumer_rack_id(1))  # fmt: skip
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    c1, c2, c3 = assignment[t.consumer1], assignment[t.consumer2], assignment[t.consumer3]
    check(len(c1) == 1 and len(c2) == 1 and len(c3) == 1)
    check(set(c1) <= set(c1p0))
    check(set(c2) <= set(c2p0))
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


def testMemberDataWithInconsistentData(t: StickyTest, rc: RackConfig | None = None) -> None:
    if rc is not None:
        t.initialize_racks(rc)
    in_user_data, in_subscription = [tp(t.topic, 1)], [tp(t.topic, 0)]
    # onAssignment(Assignment(in_user_data), generation 1), then subscriptionUserData
    if t.cooperative:
        t.assignor.generation = t.generation_id
        data = t.generate_user_data([t.topic], in_user_data, t.generation_id)
    else:
        data = sticky_user_data(in_user_data, t.generation_id)
    parts, generation = member_data_of(t, Subscription([t.topic], data, in_subscription))
    # sticky honours its userData; cooperative-sticky the subscription's partitions with userData's generation
    assert_equals(in_subscription if t.cooperative else in_user_data, parts)
    assert_equals(t.generation_id, -1 if generation is None else generation)


def testMemberDataWillHonorUserData(t: StickyTest) -> None:
    owned = [tp(t.topic1, 0), tp(t.topic2, 1)]
    data = t.generate_user_data([t.topic], owned, t.generation_id - 1)
    parts, generation = member_data_of(t, Subscription([t.topic], data, [], t.generation_id, None))
    assert_equals(owned, parts)
    assert_equals(t.generation_id - 1, -1 if generation is None else generation)


def _empty_partitions(t: StickyTest, user_data_generation: int) -> None:
    owned = [tp(t.topic1, 0), tp(t.topic2, 1)]
    data = t.generate_user_data([t.topic], owned, user_data_generation)
    parts, generation = member_data_of(t, Subscription([t.topic], data, [], t.generation_id, None))
    assert_equals([], parts)
    assert_equals(t.generation_id, -1 if generation is None else generation)


def testMemberDataWithEmptyPartitionsAndEqualGeneration(t: StickyTest) -> None:
    _empty_partitions(t, t.generation_id)


def testMemberDataWithEmptyPartitionsAndHigherGeneration(t: StickyTest) -> None:
    _empty_partitions(t, t.generation_id - 1)


def testEncodeAndDecodeGeneration(t: StickyTest) -> None:
    _, generation = member_data_of(t, Subscription([t.topic], cooperative_user_data(t.assignor.generation)))
    check(generation is not None)
    assert_equals(DEFAULT_GENERATION, generation)
    t.assignor.generation = 10  # onAssignment(null, ConsumerGroupMetadata(..., 10, ...))
    _, generation = member_data_of(t, Subscription([t.topic], cooperative_user_data(t.assignor.generation)))
    check(generation is not None)
    assert_equals(10, generation)


def testDecodeGeneration(t: StickyTest) -> None:
    _, generation = member_data_of(t, Subscription([t.topic]))
    check(generation is None)


def testAssignorWithOldVersionSubscriptions(t: StickyTest) -> None:
    T1, g = t.topic1, t.generation_id
    ppt = {T1: t.partition_infos(T1, 3)}
    if t.cooperative:
        t.subscriptions[t.consumer1] = t.build_v1([T1], [tp(T1, 0)], g, 0)
    else:
        t.subscriptions[t.consumer1] = t.build_v0([T1], [tp(T1, 0)], g, 0)
    t.subscriptions[t.consumer2] = t.build_v1([T1], [tp(T1, 1)], g, 1)
    t.subscriptions[t.consumer3] = t.build_v2([T1], [], g, 2)
    assignment = t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals([tp(T1, 0)], assignment[t.consumer1])
    assert_equals([tp(T1, 1)], assignment[t.consumer2])
    assert_equals([tp(T1, 2)], assignment[t.consumer3])
    t.verify_validity_and_balance(t.subscriptions, assignment, ppt)
    check(is_fully_balanced(assignment))


def testUniformSubscriptionTransferOwnershipListIsRight(t: StickyTest) -> None:
    t.replication_factor, t.num_broker_racks, t.has_consumer_rack = 1, 2, True
    T1, g = t.topic1, t.generation_id
    ppt = {T1: t.partition_infos(T1, 4)}
    t.subscriptions["c0"] = t.build_v2([T1], [tp(T1, 0), tp(T1, 1)], g, 0)
    t.subscriptions["c1"] = t.build_v2([T1], [tp(T1, 2), tp(T1, 3)], g, 1)
    t.assignor.assign_partitions(ppt, t.subscriptions)
    assert_equals(2, len(t.assignor.partitions_transferring_ownership or {}))


def _verify_both(t: StickyTest, topics, rf, broker_racks, consumer_racks, consumer_topics, expected, mismatches):
    """``verifyUniformSubscription``/``verifyNonEqualSubscription``: once owning nothing, once owning the expected
    assignment."""
    verify_rack_assignment(t.assignor, topics, rf, broker_racks, consumer_racks, consumer_topics, None, expected,
                           mismatches)  # fmt: skip
    verify_rack_assignment(t.assignor, topics, rf, broker_racks, consumer_racks, consumer_topics, expected, expected,
                           mismatches)  # fmt: skip


def testRackAwareAssignmentWithUniformSubscription(t: StickyTest) -> None:
    topics = {"t1": 6, "t2": 7, "t3": 2}
    every = ["t1", "t2", "t3"]
    ct = [every, every, every]
    plain = ["t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"]
    a = t.assignor
    _verify_both(t, topics, 3, null_racks(3), racks(3), ct, plain, -1)
    _verify_both(t, topics, 3, racks(3), null_racks(3), ct, plain, -1)
    a.prefer_rack_aware = True
    _verify_both(t, topics, 3, racks(3), racks(3), ct, plain, 0)
    a.prefer_rack_aware = True
    _verify_both(t, topics, 4, racks(4), racks(3), ct, plain, 0)
    a.prefer_rack_aware = False
    _verify_both(t, topics, 3, racks(3), racks(3), ct, plain, 0)
    _verify_both(t, topics, 3, racks(3), ["d", "e", "f"], ct, plain, -1)
    _verify_both(t, topics, 3, racks(3), [None, "e", "f"], ct, plain, -1)
    _verify_both(t, topics, 1, racks(3), racks(3), ct, plain, 0)
    _verify_both(t, topics, 2, racks(3), racks(3), ct, plain, 0)
    _verify_both(t, topics, 3, racks(2), racks(3), ct, plain, 5)
    owned = ["t1-0, t1-1, t1-2, t1-3, t1-4", "t1-5, t2-0, t2-1, t2-2, t2-3", "t2-4, t2-5, t2-6, t3-0, t3-1"]
    if t.cooperative:
        verify_rack_assignment(a, topics, 1, racks(3), racks(3), ct, owned, ["t1-0, t1-3", "t2-1", "t2-5, t3-1"], 0)
        a.prefer_rack_aware = True
        verify_rack_assignment(a, topics, 3, racks(3), racks(3), ct, plain, plain, 0)
    else:
        verify_rack_assignment(a, topics, 1, racks(3), racks(3), ct, owned, plain, 0)
        a.prefer_rack_aware = True
        verify_rack_assignment(a, topics, 3, racks(3), racks(3), ct, plain, plain, 0)


def testRackAwareAssignmentWithNonEqualSubscription(t: StickyTest) -> None:
    topics = {"t1": 6, "t2": 7, "t3": 2}
    every = ["t1", "t2", "t3"]
    ct = [every, every, ["t1", "t3"]]
    plain = ["t1-5, t2-0, t2-2, t2-4, t2-6", "t1-3, t2-1, t2-3, t2-5, t3-0", "t1-0, t1-1, t1-2, t1-4, t3-1"]
    a = t.assignor
    _verify_both(t, topics, 3, null_racks(3), racks(3), ct, plain, -1)
    _verify_both(t, topics, 3, racks(3), null_racks(3), ct, plain, -1)
    a.prefer_rack_aware = True
    _verify_both(t, topics, 3, racks(3), racks(3), ct, plain, 0)
    a.prefer_rack_aware = True
    _verify_both(t, topics, 4, racks(4), racks(3), ct, plain, 0)
    a.prefer_rack_aware = False
    _verify_both(t, topics, 3, racks(3), racks(3), ct, plain, 0)
    _verify_both(t, topics, 3, racks(3), ["d", "e", "f"], ct, plain, -1)
    _verify_both(t, topics, 3, racks(3), [None, "e", "f"], ct, plain, -1)
    rf1 = ["t1-3, t2-0, t2-2, t2-3, t2-6", "t1-4, t2-1, t2-4, t2-5, t3-0", "t1-0, t1-1, t1-2, t1-5, t3-1"]
    _verify_both(t, topics, 1, racks(3), racks(3), ct, rf1, 4)
    rf2 = ["t1-3, t2-0, t2-2, t2-5, t2-6", "t1-0, t2-1, t2-3, t2-4, t3-0", "t1-1, t1-2, t1-4, t1-5, t3-1"]
    _verify_both(t, topics, 2, racks(3), racks(3), ct, rf2, 0)
    _verify_both(t, topics, 3, racks(2), racks(3), ct, plain, 5)
    owned = ["t1-0, t1-1, t1-2, t1-3, t1-4", "t1-5, t2-0, t2-1, t2-2, t2-3", "t2-4, t2-5, t2-6, t3-0, t3-1"]
    if not t.cooperative:
        verify_rack_assignment(a, topics, 1, racks(3), racks(3), ct, owned, rf1, 4)
    else:
        mid = ["t1-3", "t2-1", "t3-1"]
        verify_rack_assignment(a, topics, 1, racks(3), racks(3), ct, owned, mid, 0)
        verify_rack_assignment(a, topics, 1, racks(3), racks(3), ct, mid, rf1, 4)
    if not t.cooperative:
        a.prefer_rack_aware = False
        verify_rack_assignment(a, topics, 3, racks(3), racks(3), ct, owned, plain, 0)
        a.prefer_rack_aware = True
        verify_rack_assignment(a, topics, 3, racks(3), racks(3), ct, owned, plain, 0)
    else:
        final = ["t1-2, t1-3, t1-4, t2-4, t2-5", "t2-0, t2-1, t2-2, t2-3, t2-6", "t1-0, t1-1, t1-5, t3-0, t3-1"]
        mid = ["t1-2, t1-3, t1-4", "t2-0, t2-1, t2-2, t2-3", "t3-0, t3-1"]
        for prefer in (False, True):
            a.prefer_rack_aware = prefer
            verify_rack_assignment(a, topics, 3, racks(3), racks(3), ct, owned, mid, 0)
            verify_rack_assignment(a, topics, 3, racks(3), racks(3), ct, mid, final, 0)


S, C = "StickyAssignorTest", "CooperativeStickyAssignorTest"
_EQ = "testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer"
_UNEQ = "testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer"

# (Kafka's test class, method, function, parameter kind): the methods each subclass declares itself
SCENARIOS = [
    ("AbstractStickyAssignorTest", "testMemberData", testMemberData, PLAIN),  # both subclasses run it
    (
        "AbstractStickyAssignorTest",
        "testRackAwareAssignmentWithUniformSubscription",
        testRackAwareAssignmentWithUniformSubscription,
        PLAIN,
    ),
    (
        "AbstractStickyAssignorTest",
        "testRackAwareAssignmentWithNonEqualSubscription",
        testRackAwareAssignmentWithNonEqualSubscription,
        PLAIN,
    ),
    (S, _EQ, globals()[_EQ], RACK),
    (C, _EQ, globals()[_EQ], RACK),
    (S, _UNEQ, globals()[_UNEQ], RACK),
    (C, _UNEQ, globals()[_UNEQ], RACK),
    (S, "testAssignmentWithMultipleGenerations1", testAssignmentWithMultipleGenerations1, BOTH_SUBSCRIPTIONS),
    (S, "testAssignmentWithMultipleGenerations2", testAssignmentWithMultipleGenerations2, BOTH_SUBSCRIPTIONS),
    (
        S,
        "testAssignmentWithConflictingPreviousGenerations",
        testAssignmentWithConflictingPreviousGenerations,
        BOTH_SUBSCRIPTIONS,
    ),
    (S, "testSchemaBackwardCompatibility", testSchemaBackwardCompatibility, RACK),
    (S, "testMemberDataWithInconsistentData", testMemberDataWithInconsistentData, RACK),
    (C, "testMemberDataWithInconsistentData", testMemberDataWithInconsistentData, PLAIN),
    (S, "testMemberDataWillHonorUserData", testMemberDataWillHonorUserData, PLAIN),
    (
        C,
        "testMemberDataWithEmptyPartitionsAndEqualGeneration",
        testMemberDataWithEmptyPartitionsAndEqualGeneration,
        PLAIN,
    ),
    (
        C,
        "testMemberDataWithEmptyPartitionsAndHigherGeneration",
        testMemberDataWithEmptyPartitionsAndHigherGeneration,
        PLAIN,
    ),
    (C, "testEncodeAndDecodeGeneration", testEncodeAndDecodeGeneration, PLAIN),
    (C, "testDecodeGeneration", testDecodeGeneration, PLAIN),
    (S, "testAssignorWithOldVersionSubscriptions", testAssignorWithOldVersionSubscriptions, PLAIN),
    (C, "testAssignorWithOldVersionSubscriptions", testAssignorWithOldVersionSubscriptions, PLAIN),
    (
        C,
        "testUniformSubscriptionTransferOwnershipListIsRight",
        testUniformSubscriptionTransferOwnershipListIsRight,
        PLAIN,
    ),
]
