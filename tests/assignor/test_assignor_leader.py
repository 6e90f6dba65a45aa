"""Leader-side pure logic (§9 steps 1, 4, 7, 8): clients from members, thread distribution and
cooperative revocation (seed 003: a member releases a resource before another one gets it)."""

from __future__ import annotations

import uuid

from codec.assignor import (
    AssignmentConfigs,
    Member,
    Subtopology,
    Topology,
    assign_group,
    assign_tasks_to_threads,
)
from codec.types import TaskId, TopicPartition

A, B = uuid.UUID(int=1), uuid.UUID(int=2)


def t(s: str) -> TaskId:
    return TaskId.parse(s)


def no_prev(_consumer: str) -> list[TaskId]:
    return []


def test_threads_interleave_new_tasks_in_task_order():
    """No previous owners: consumers below the minimum take turns, in TaskId order."""
    load: dict[str, int] = {}
    got = assign_tasks_to_threads([t("0_3"), t("0_1"), t("0_0"), t("0_2")], True, ["c1", "c2"], no_prev, load)
    assert got == {"c1": [t("0_0"), t("0_2")], "c2": [t("0_1"), t("0_3")]}
    assert load == {"c1": 2, "c2": 2}


def test_threads_prefer_previous_owner_then_fill():
    prev = {"c2": [t("0_0"), t("0_1")]}
    got = assign_tasks_to_threads(
        [t("0_0"), t("0_1"), t("0_2"), t("0_3")], True, ["c1", "c2"], lambda c: prev.get(c, []), {}
    )
    assert got["c2"] == [t("0_0"), t("0_1")]
    assert got["c1"] == [t("0_2"), t("0_3")]


def test_threads_count_earlier_calls_and_give_remainder_to_previous_owner():
    """Minimum = floor(total / threads) over everything handed out so far; an extra task goes to a
    consumer at the minimum, its previous owner first."""
    load = {"c1": 1, "c2": 0}
    got = assign_tasks_to_threads(
        [t("1_0"), t("1_1")], True, ["c1", "c2"], lambda c: [t("1_1")] if c == "c1" else [], load
    )
    # total 3, minimum 1: c1 is at its minimum already, c2 takes 1_0; 1_1 is left and goes to
    # its previous owner c1.
    assert got == {"c1": [t("1_1")], "c2": [t("1_0")]}
    assert load == {"c1": 2, "c2": 1}


def test_stateless_ignore_previous_owner():
    got = assign_tasks_to_threads(
        [t("0_0"), t("0_1")], False, ["c1", "c2"], lambda c: [t("0_1")] if c == "c1" else [], {}
    )
    assert got == {"c1": [t("0_0")], "c2": [t("0_1")]}


STATELESS = Topology((Subtopology(0, ("in",), (), 2),))
STATEFUL = Topology((Subtopology(0, ("in",), ("store-changelog",), 2),))


def _tp(p: int) -> TopicPartition:
    return TopicPartition("in", p)


def test_members_of_one_process_form_one_client_with_their_capacity():
    members = [Member("a-1", A), Member("a-2", A), Member("b-1", B)]
    result = assign_group(members, Topology((Subtopology(0, ("in",), (), 3),)))
    caps = {c.process_id: len(c.active) for c in result.clients.clients}
    assert caps == {A: 2, B: 1}  # stateless tasks by active load: capacity 2 vs 1
    assert {m: len(a.active_tasks) for m, a in result.members.items()} == {"a-1": 1, "a-2": 1, "b-1": 1}


def test_partition_still_owned_elsewhere_is_withheld_and_forces_a_rebalance():
    """Round 1: A owns both partitions, B joins; B's task is withheld (A still owns it) and B is
    told to rebalance immediately. Round 2, after A released it: B gets it, no follow-up."""
    first = assign_group([Member("a", A, frozenset({_tp(0), _tp(1)})), Member("b", B)], STATELESS)
    a, b = first.members["a"], first.members["b"]
    assert a.active_tasks == (t("0_0"),) and a.active_partitions == (_tp(0),)
    assert b.active_tasks == () and b.withheld_tasks == (t("0_1"),)
    assert b.rebalance_immediately and not a.rebalance_immediately
    assert b.standby_tasks == ()  # stateless: moves without a warmup
    second = assign_group([Member("a", A, frozenset({_tp(0)})), Member("b", B)], STATELESS)
    assert second.members["b"].active_tasks == (t("0_1"),)
    assert second.members["b"].active_partitions == (_tp(1),)
    assert not any(m.rebalance_immediately for m in second.members.values())


def test_withheld_task_previously_standby_stays_a_standby_meanwhile():
    """§9 step 8: if the receiving client held the task as a standby, it keeps it as a standby
    while the active is being revoked elsewhere."""
    ends = {t("0_0"): 1000, t("0_1"): 1000}
    members = [
        Member("a", A, frozenset({_tp(0), _tp(1)}), {t("0_0"): -2, t("0_1"): -2}),
        Member("b", B, frozenset(), {t("0_1"): 1000}),
    ]
    result = assign_group(members, STATEFUL, AssignmentConfigs(num_standby_replicas=1), ends)
    b = result.members["b"]
    assert t("0_1") in b.withheld_tasks and t("0_1") in b.standby_tasks
    assert b.rebalance_immediately


def test_prev_active_from_owned_partitions_and_running_offsets():
    """§9 step 4: owned partitions and offset sum -2 make prevActive; other sums prevStandby.
    With everything caught up on A and nothing known on B, A keeps its running actives."""
    ends = {t("0_0"): 100_000, t("0_1"): 100_000}
    members = [Member("a", A, frozenset({_tp(0)}), {t("0_0"): 100_000, t("0_1"): -2}), Member("b", B)]
    result = assign_group(members, STATEFUL, AssignmentConfigs(), ends, leader_member_id="a")
    a = result.members["a"]
    assert set(a.active_tasks) | set(a.withheld_tasks) >= {t("0_0")}
    assert result.probing_rebalance_needed  # 0_1 is desired on B, which must warm up first
    assert a.probing_rebalance  # the leader's client carries the probing deadline
    assert result.members["b"].standby_tasks == (t("0_1"),)  # the warmup


def test_failed_end_offset_fetch_uses_fallback_prior_and_probes():
    members = [Member("a", A, frozenset({_tp(0), _tp(1)}), {t("0_0"): -2, t("0_1"): -2}), Member("b", B)]
    result = assign_group(members, STATEFUL, AssignmentConfigs(), end_offsets_fetched=False)
    assert result.probing_rebalance_needed
    assert set(result.members["a"].active_tasks) == {t("0_0"), t("0_1")}
