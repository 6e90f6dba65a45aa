"""The metadata size model: its numbers are the lengths of real messages, and hand-derived layouts agree."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codec.group import decode_consumer, decode_message
from codec.negotiation.size import GroupShape, build, measure, members_to_cross
from codec.streams import decode_assignment, decode_subscription
from tests.conftest import ROOT


def uvarint_len(n: int) -> int:
    return max(1, (n.bit_length() + 6) // 7)


def subscription_info_size(version: int, held: int, actives: int, endpoint: int) -> int:
    """SubscriptionInfo of an instance holding ``held`` tasks of subtopology 0 (``actives`` of them active),
    by the layouts of wire-facts §2: v3-6 prevTasks/standbyTasks as TaskId arrays (8 bytes a TaskId), v7-9
    taskOffsetSums grouped by subtopology (topicGroupId, count, 12 bytes a partition), v10+ flat (18 bytes a
    task: subtopology, partition, offset sum, a null int16 named topology); v8 + uniqueField, v9 + errorCode,
    v11 + an empty clientTags array."""
    head = 4 + 4 + 16  # version, latestSupportedVersion, processId
    if version <= 6:
        return head + 4 + 8 * actives + 4 + 8 * (held - actives) + 4 + endpoint
    if version <= 9:
        sums = 4 + (4 + 4 + 12 * held if held else 0)
        return head + 4 + endpoint + sums + (1 if version >= 8 else 0) + (4 if version >= 9 else 0)
    return head + 4 + endpoint + 4 + 18 * held + 1 + 4 + (4 if version >= 11 else 0)


def member_id_length(shape: GroupShape, m: int) -> int:
    return max(shape.member_id_length, len(f"consumer-{m}"))


def compact_len(n: int) -> int:
    """A compact (flexible-version) string or bytes of n bytes: uvarint(n + 1), then the bytes."""
    return uvarint_len(n + 1) + n


@settings(max_examples=15)
@given(
    members=st.integers(1, 8),
    threads=st.integers(1, 3),
    tasks=st.integers(1, 40),
    standbys=st.integers(0, 2),
    version=st.sampled_from([3, 5, 6, 7, 9, 11]),
    endpoint=st.sampled_from([0, 12]),
)
def test_sizes_are_lengths_of_real_messages(members, threads, tasks, standbys, version, endpoint):
    """The reported sizes against layouts derived by hand: the SubscriptionInfo of every instance from the
    shape alone (task t active on member t mod members, instance = member // threads, standby j on the j-th
    next instance), the JoinGroup v9 and SyncGroup v5 bodies from their flexible layouts around the embedded
    metadata. A size model that miscounted any field would disagree."""
    shape = GroupShape(
        members=members, threads=threads, tasks=tasks, standbys=standbys, version=version, endpoint_length=endpoint
    )
    msgs, report = build(shape), measure(shape)
    instances = -(-members // threads)
    held, actives = [0] * instances, [0] * instances
    for t in range(tasks):
        home = (t % members) // threads
        held[home] += 1
        actives[home] += 1
        for j in range(1, standbys + 1):
            if instances > j:
                held[(home + j) % instances] += 1
    assert report.subscription_info == max(
        subscription_info_size(version, held[i], actives[i], endpoint) for i in range(instances)
    )
    assert report.subscription_info == max(len(x) for x in msgs.subscription_infos)
    ids = [member_id_length(shape, m) for m in range(members)]
    # JoinGroupResponse v9: throttle 4, error 2, generation 4, protocolType "consumer", protocolName "stream",
    # leader, skipAssignment 1, memberId, members (compact array; per member: id, null instance id, metadata,
    # tagged fields), tagged fields.
    join = (
        4
        + 2
        + 4
        + compact_len(8)
        + compact_len(6)
        + compact_len(ids[0])
        + 1
        + compact_len(ids[0])
        + uvarint_len(members + 1)
        + sum(compact_len(ids[m]) + 1 + compact_len(len(md)) + 1 for m, md in enumerate(msgs.consumer_subscriptions))
        + 1
    )
    assert report.join_group_response_leader == join
    # SyncGroupRequest v5: groupId "streams-app", generation 4, memberId, null instance id, protocolType,
    # protocolName, assignments (per member: id, assignment bytes, tagged fields), tagged fields.
    sync = (
        compact_len(11)
        + 4
        + compact_len(ids[0])
        + 1
        + compact_len(8)
        + compact_len(6)
        + uvarint_len(members + 1)
        + sum(compact_len(ids[m]) + compact_len(len(a)) + 1 for m, a in enumerate(msgs.consumer_assignments))
        + 1
    )
    assert report.sync_group_request == sync
    assert report.group_metadata_payload == (
        sum(map(len, msgs.consumer_subscriptions)) + sum(map(len, msgs.consumer_assignments))
    )
    # the messages are what they claim: the leader's JoinGroup response carries every member's metadata,
    # every assignment decodes, and every task is active exactly once
    join = decode_message("JoinGroupResponse", 9, msgs.join_group_response_leader).value
    assert [m.metadata for m in join.members] == msgs.consumer_subscriptions
    actives = []
    for raw in msgs.consumer_assignments:
        info = decode_assignment(decode_consumer("ConsumerProtocolAssignment", raw).data.user_data)
        assert info.version == version
        actives += info.active_tasks
        if endpoint and version >= 2:
            assert len(info.partitions_by_host) == shape.instances
    assert sorted(t.partition for t in actives) == list(range(tasks))
    for raw in msgs.subscription_infos:
        assert decode_subscription(raw).version == version


def test_hand_derived_sizes():
    # 2 members, 4 tasks, no standbys, v7, no endpoint: member 0 holds tasks 0 and 2, member 1 tasks 1 and 3.
    shape = GroupShape(members=2, tasks=4, version=7, member_id_length=60)
    msgs = build(shape)
    # SubscriptionInfo v7: version, lsv, process id, empty endpoint (4), one offset-sum group:
    # count (4) + topicGroupId (4) + count (4) + 2 x (partition 4 + offset sum 8)
    assert [len(x) for x in msgs.subscription_infos] == [4 + 4 + 16 + 4 + 4 + 4 + 4 + 2 * 12] * 2
    # JoinGroupResponse v9: throttle 4, error 2, generation 4, "consumer" 1+8, "stream" 1+6, leader 1+60,
    # skipAssignment 1, memberId 1+60, members count 1, per member: id 1+60, instance id 1, metadata
    # uvarint(len+1) + len, tagged 1; then the top-level tagged byte.
    per_member = sum(1 + 60 + 1 + uvarint_len(len(m) + 1) + len(m) + 1 for m in msgs.consumer_subscriptions)
    assert len(msgs.join_group_response_leader) == 4 + 2 + 4 + 9 + 7 + 61 + 1 + 61 + 1 + per_member + 1


@pytest.mark.parametrize("endpoint,expected_members", [(14, 54)])
def test_when_a_v7_group_with_1000_tasks_and_1_standby_crosses_1_mib(endpoint, expected_members):
    limit = 1 << 20

    def shape(n):
        return GroupShape(members=n, tasks=1000, standbys=1, version=7, endpoint_length=endpoint)

    n, report = members_to_cross(limit, shape)
    assert n == expected_members
    # checked against encoded bytes: one member fewer stays at or below the limit, and at n the largest
    # message (built for real) exceeds it
    below = build(shape(n - 1))
    at = build(shape(n))
    largest = lambda m: max(
        len(m.join_group_response_leader),
        len(m.sync_group_request),  # noqa: E731
        sum(map(len, m.consumer_subscriptions)) + sum(map(len, m.consumer_assignments)),
    )
    assert largest(below) <= limit < largest(at)
    assert report.largest()[1] == largest(at)


def test_size_cli():
    p = subprocess.run(
        [sys.executable, "-m", "codec", "size", "--members", "3", "--tasks", "10", "--limit", "100"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert p.returncode == 0
    assert "JoinGroup response to the leader" in p.stdout and "OVER LIMIT" in p.stdout and "warning:" in p.stdout


def test_the_hand_layout_sees_one_field_more():
    """The hand layout is not the code's: a v11 subscription with one client tag ("a" -> "bc") is 4 + 1 + 4 + 2
    bytes longer than the layout without tags, so a size model that left the tags out (or counted a field
    twice) would fail the property test above."""
    import uuid

    from codec.streams import SubscriptionInfo, encode_subscription
    from codec.types import TaskId

    info = SubscriptionInfo(
        version=11,
        latest_supported_version=11,
        process_id=uuid.UUID(int=1),
        task_offset_sums={TaskId(0, 0): -2},
        client_tags={"a": "bc"},
    )
    assert subscription_info_size(11, 1, 1, 0) == 59
    assert len(encode_subscription(info)) == 59 + 4 + 1 + 4 + 2
