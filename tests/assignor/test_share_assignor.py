"""The share groups' assignor (codec.assignor.share) against Kafka's: every case of Kafka's SimpleAssignorTest at
the 4.1.0 release (apache/kafka 13f70256db, org.apache.kafka.coordinator.group.assignor.SimpleAssignorTest), kept
as vectors in vectors/share/simple-assignor.jsonl with the test method and commit they come from, run through
``assign --share --lines`` in one process; the test's helper cases (memberHashAssignment, roundRobinAssignment,
roundRobinAssignmentWithCount) on the module's functions; and two cases where Java's HashMap orders decide,
derived by hand below.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

import pytest

from codec.assignor.model import AssignmentError
from codec.assignor.share import (
    ShareGroupSpec,
    ShareMember,
    _hash_members,
    _round_robin,
    _round_robin_with_count,
    assign_share,
    share_group_from_json,
    uuid_hash,
)
from tests.conftest import ROOT

CASES = [
    json.loads(line)
    for line in (ROOT / "vectors" / "share" / "simple-assignor.jsonl").read_text(encoding="utf-8").splitlines()
]
KAFKA_COMMIT = "13f70256db3c994c590e5d262a7cc50b9e973204"


def _assign_lines(groups: list[dict]) -> list[dict]:
    p = subprocess.run(
        [sys.executable, "-m", "codec", "assign", "--share", "--lines"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        input="".join(json.dumps(g) + "\n" for g in groups),
    )
    assert "Traceback" not in p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


def test_every_case_of_kafkas_simple_assignor_test_through_the_cli():
    assert len(CASES) == 15 and {c["kafkaCommit"] for c in CASES} == {KAFKA_COMMIT}
    assert {c["kafkaTest"].split("#")[0] for c in CASES} == {
        "org.apache.kafka.coordinator.group.assignor.SimpleAssignorTest"
    }
    out = _assign_lines([c["group"] for c in CASES])
    assert len(out) == len(CASES)
    for c, got in zip(CASES, out):
        if "error" in c:
            assert c["error"] in got["error"]["message"], c["id"]
            continue
        members = {m["memberId"]: m["assignment"] for m in got["members"]}
        # Kafka's map may leave out a member with nothing (the coordinator gives it an empty assignment)
        assert set(c["expected"]) <= set(members), c["id"]
        assert {m: a for m, a in members.items() if a or m in c["expected"]} == c["expected"], c["id"]


def test_every_kafka_test_method_is_a_vector():
    """Each @Test of SimpleAssignorTest at the commit that assigns a whole group (the helpers are below; testName
    checks the name, "simple")."""
    methods = {c["kafkaTest"].split("#")[1] for c in CASES}
    assert methods == {
        "testAssignWithEmptyMembers",
        "testAssignWithNoSubscribedTopic",
        "testAssignWithSubscribedToNonExistentTopic",
        "testAssignWithTwoMembersAndTwoTopicsHomogeneous",
        "testAssignWithTwoMembersAndTwoTopicsHomogeneousWithAllowedMap",
        "testAssignWithTwoMembersAndTwoTopicsHomogeneousWithNonAssignableTopic",
        "testAssignWithThreeMembersThreeTopicsHeterogeneous",
        "testAssignWithThreeMembersThreeTopicsHeterogeneousWithAllowedMap",
        "testAssignWithThreeMembersThreeTopicsHeterogeneousWithNonAssignableTopic",
        "testAssignWithOneMemberNoAssignedTopicHeterogeneous",
        "testAssignWithCurrentAssignmentHomogeneous",
        "testAssignWithCurrentAssignmentHeterogeneous",
    }
    assert _assign_lines([{"topics": {}, "members": []}])[0]["assignor"] == "simple"


T1, T2, T3, T4 = (uuid.UUID(int=i) for i in (101, 102, 103, 104))


def test_member_hash_assignment():
    # SimpleAssignorTest#testMemberHashAssignment: hash codes 948881623..948881626 and -540425984 ("AaAaAaAa")
    members = ["member1", "member2", "member3", "member4", "AaAaAaAa"]
    parts = [(T1, 0), (T2, 0), (T3, 0)]
    got: dict = {}
    _hash_members(members, parts, got)
    assert got == {(T1, 0): ["member3"], (T2, 0): ["member1", "member4"], (T3, 0): ["member2", "AaAaAaAa"]}


def test_round_robin_assignments():
    # SimpleAssignorTest#testRoundRobinAssignment, #testRoundRobinAssignmentWithCount and ...TooManyPartitions
    got = {(T1, 0): ["member1"]}
    _round_robin(["member1", "member2"], [(T2, 0), (T3, 0), (T4, 0)], got)
    assert got == {(T1, 0): ["member1"], (T2, 0): ["member1"], (T3, 0): ["member2"], (T4, 0): ["member1"]}
    final = {"member1": {(T1, 0)}, "member2": {(T1, 0)}}
    _round_robin_with_count(["member1", "member2"], [(T2, 0), (T3, 0), (T4, 0)], final, 2)
    assert final == {"member1": {(T1, 0), (T2, 0), (T4, 0)}, "member2": {(T1, 0), (T3, 0)}}
    final = {"member1": {(T1, 0)}, "member2": {(T1, 0)}}
    with pytest.raises(AssignmentError, match="Inconsistent number of member IDs"):
        _round_robin_with_count(["member1", "member2"], [(T2, 0), (T3, 0), (T4, 0), (T4, 1), (T4, 2)], final, 2)


def _spec(members, partitions, **kw):
    return ShareGroupSpec(tuple(members), partitions, **kw)


def test_members_go_round_robin_in_javas_hashmap_order():
    """By hand: "B" (hashCode 66) is put first, "A" (65) second; a 16-bucket HashMap iterates bucket 1 ("A") before
    bucket 2 ("B"). Four partitions of t: A hashes onto t-1 (65 % 4), B onto t-2 (66 % 4); t-0 and t-3 go round
    robin in the map's order: t-0 to A, t-3 to B. (Taken in the order put, t-0 would go to B.)"""
    t = uuid.UUID(int=7)
    r = assign_share(_spec([ShareMember("B", (t,)), ShareMember("A", (t,))], {t: 4}))
    assert r.subscription_type == "homogeneous"
    assert r.members == {"B": {t: frozenset({2, 3})}, "A": {t: frozenset({0, 1})}}


def test_a_full_member_keeps_its_partitions_in_javas_topicidpartition_order():
    """By hand: topic id 00..04 has Uuid.hashCode 4, so TopicIdPartition(t, p) hashes to 31 * 4 + p = 124 + p:
    partitions 1, 2, 3, 4 of A's current assignment fall in buckets 13, 14, 15, 0 of a 16-bucket map, which
    iterates 4, 1, 2, 3. Six partitions, two members: 3 each. A hashes onto t-5 (65 % 6), B onto t-0 (66 % 6);
    A keeps 4 then 1 (t-0 is B's by hash); t-2 and t-3 go round robin: t-2 to A (it may take one more than 3),
    t-3 to B."""
    t = uuid.UUID(int=4)
    assert uuid_hash(t) == 4
    r = assign_share(_spec([ShareMember("A", (t,), ((t, (0, 1, 2, 3, 4)),)), ShareMember("B", (t,))], {t: 6}))
    assert r.members == {"A": {t: frozenset({1, 2, 4, 5})}, "B": {t: frozenset({0, 3})}}
    assert r.unassigned == ()


def test_a_bucket_of_the_current_assignment_lists_its_newest_partition_first():
    """By hand: the topic id 00..05 00..05 has Uuid.hashCode 0, so TopicIdPartition(t, p) hashes to p. A holds 3
    and 19 (19 is stale: t has 4 partitions, but Kafka keeps what a member holds of a subscribed topic); both
    fall in bucket 3 of the 16-bucket map, and computeIfAbsent puts the newer key (19, after 3 in A's
    HashSet) at the head of the bucket: 19 comes first. Two members, four targets: 2 each. A hashes onto t-1
    (65 % 4), B onto t-2 (66 % 4); A keeps 19, which fills it; t-0 and t-3 go round robin: t-0 to A (it may take
    one more), t-3 to B. (Had 3 come first, A would keep 3 and B hold t-2 alone.)"""
    t = uuid.UUID(int=(5 << 64) | 5)
    assert uuid_hash(t) == 0
    r = assign_share(_spec([ShareMember("A", (t,), ((t, (3, 19)),)), ShareMember("B", (t,))], {t: 4}))
    assert r.members == {"A": {t: frozenset({0, 1, 19})}, "B": {t: frozenset({2, 3})}}


def test_heterogeneous_leaves_a_partition_held_by_a_member_that_unsubscribed_to_nobody():
    """By hand, Kafka's heterogeneous rule: A held t-0 and now subscribes to u only (it hashes onto u-0); C
    subscribes to t (two partitions) and hashes onto t-1 (67 % 2). t-0 is in the current assignment, so it is not
    handed out round robin, and A no longer subscribes to t, so it does not keep it: nobody holds t-0."""
    t, u = uuid.UUID(int=9), uuid.UUID(int=10)
    r = assign_share(_spec([ShareMember("A", (u,), ((t, (0,)),)), ShareMember("C", (t,))], {t: 2, u: 1}))
    assert r.subscription_type == "heterogeneous"
    assert r.members == {"A": {u: frozenset({0})}, "C": {t: frozenset({1})}}
    assert r.unassigned == ((t, 0),)


def test_bad_share_groups_are_one_error_each():
    bad = [
        {"members": 3},
        {"topics": {"t": -1}},
        {"topics": {"t": 1}, "members": [{"memberId": "a", "assignment": {"t": ["x"]}}]},
        {"topics": {"t": 1}, "bogus": 1},
        {"assignor": "range"},
        {"topics": [{"name": "t", "partitions": 1, "topicId": "not-a-uuid"}]},
    ]
    out = _assign_lines(bad)
    assert len(out) == len(bad) and all(o["error"]["type"] == "invalid_group" for o in out), out
    spec, _ = share_group_from_json({"topics": {"t": 1}, "members": [{"memberId": "a"}, {"memberId": "a"}]})
    with pytest.raises(AssignmentError, match="twice"):
        assign_share(spec)
