"""``high_availability_fast`` always converges (issue #28): the scale-out that once probed forever, the
progress measure of its module documentation checked after every probing round, and the bound.

Expected values come from hand derivation (round counts, measures of small groups), from Kafka's
``shouldMoveATask`` (the balanced counts) and from the harness's own flow solver (the measure, computed from
the JSON group alone); the checks are shown to fire on assignors that do not make progress."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from test_assignor_fast_properties import groups

import codec.assignor.high_availability_fast as fast
from codec.assignor import convergence, group_from_json
from codec.assignor.convergence import (
    _bands,
    _should_move,
    check_round,
    issue_28_cluster,
    make_scenario,
    progress_made,
    progress_measure,
    round_bound,
    run_scenario,
)
from codec.assignor.high_availability_fast import balanced_bands, plan_target
from codec.assignor.state import build_states

FAST = "high_availability_fast"


def test_issue_28_scale_out_converges_in_the_fewest_rounds_possible():
    """Issue #28: 9 clients of capacity 1, 152 stateful tasks, 2 standbys, 1 warmup, converged by Kafka's
    assignor, then a tenth client joins. By hand: balanced totals give the joiner at
    least floor(152 × 3 / 10) = 45 copies; every task has caught-up clients elsewhere, so each of those
    copies is a warmup, one per round (maxWarmupReplicas 1), and a final round follows: at least 46 rounds.
    The fast assignor takes exactly that (Kafka's takes 316), every round valid and making progress."""
    cluster = issue_28_cluster()
    _, result, rounds = cluster.converge(1)
    assert rounds == 1
    cluster.assignor = FAST
    joiner = cluster.add_client()
    before = None
    for rounds in range(1, 317):
        group, result, _ = cluster.rebalance()
        assert check_round(group, result) == [], rounds
        measure = progress_measure(group)
        if before is not None:
            assert progress_made(before[0], before[1], measure) == "", rounds
        before = (group, measure)
        if not result["probingRebalanceNeeded"]:
            break
    assert not result["probingRebalanceNeeded"]
    assert rounds == 46 <= round_bound(group)
    mine = next(c for c in result["clients"] if c["processId"] == joiner)
    assert len(mine["active"]) + len(mine["standby"]) - sum(t in cluster.stateless for t in mine["active"]) == 45


def _withholding(every: int):
    """The fast assignor, but warmups are handed out only every ``every``-th round (0: never)."""
    calls = itertools.count(1)
    realize = fast._realize

    def patched(clients, stateful, target, lags, k, max_warmups):
        n = next(calls)
        return realize(clients, stateful, target, lags, k, max_warmups if every and n % every == 0 else 0)

    return patched


def test_progress_check_fires_on_an_assignor_that_never_warms_up(monkeypatch):
    """A round without warmups is still valid (no more than maxWarmupReplicas), so the round checks pass;
    only the progress check (and Kafka's iteration limit) catch that it never gets anywhere."""
    monkeypatch.setattr(fast, "_realize", _withholding(0))
    result = run_scenario(make_scenario(9, "scale_out"), FAST)
    assert any("not down by min(W=" in v for v in result.violations), result.violations[:3]
    assert any("no convergence within" in v for v in result.violations)
    assert not any("warmups" in v or "standbys" in v for v in result.violations)


def test_progress_check_fires_on_an_assignor_that_converges_slowly(monkeypatch):
    """Warmups every other round: the scenario still converges within Kafka's limit, yet half its probing
    rounds make no progress, and each of those is reported."""
    monkeypatch.setattr(fast, "_realize", _withholding(2))
    result = run_scenario(make_scenario(9, "scale_out"), FAST)
    assert result.violations and all("not down by min(W=" in v for v in result.violations), result.violations
    assert result.convergences == 1


def test_bound_check_fires(monkeypatch):
    monkeypatch.setattr(convergence, "round_bound", lambda group: 1)
    result = run_scenario(make_scenario(9, "scale_out"), FAST)
    assert any("more than the bound 1" in v for v in result.violations)


# --- the measure by hand -------------------------------------------------------------------------------

PID = "00000000-0000-0000-0000-{:012x}".format


def _group(caps: list[int], caught: list[list[str]], prev: list[list[str]], tasks: int, standby: int = 0) -> dict:
    ends = {f"0_{p}": 1000 for p in range(tasks)}
    return {
        "assignor": FAST,
        "configs": {"acceptableRecoveryLag": 100, "maxWarmupReplicas": 1, "numStandbyReplicas": standby},
        "tasks": [{"subtopology": 0, "partition": p, "stateful": True} for p in range(tasks)],
        "endOffsetSums": ends,
        "clients": [
            {"processId": PID(i + 1), "capacity": cap, "prevActive": p, "taskOffsetSums": {t: 1000 for t in c}}
            for i, (cap, c, p) in enumerate(zip(caps, caught, prev))
        ],
    }


ALL4 = ["0_0", "0_1", "0_2", "0_3"]


def test_measure_counts_the_actives_a_joiner_must_restore():
    """2 clients of capacity 1 must run 2 of 4 tasks each; only the first is caught up on any: Φ_A = 2.
    Ψ is left out while Φ_A > 0."""
    assert progress_measure(_group([1, 1], [ALL4, []], [ALL4, []], 4)) == (2, None)


def test_measure_promotes_caught_up_copies_first():
    """As above, but the second client is caught up on two tasks: 2/2 without a restore, Φ_A = 0; the
    previous actives (all on the first client) are not balanced, so Ψ = ∞ (None)."""
    assert progress_measure(_group([1, 1], [ALL4, ALL4[:2]], [ALL4, []], 4)) == (0, None)


def test_measure_follows_capacities():
    """Capacities 1 and 2 with 3 tasks balance only as 1/2 (shouldMoveATask moves a task off 0/3 or 2/1):
    a capacity-1 client caught up on everything still has to hand 2 tasks to the other, Φ_A = 2."""
    assert progress_measure(_group([1, 2], [ALL4[:3], []], [ALL4[:3], []], 3)) == (2, None)


def test_measure_counts_the_standbys_to_restore():
    """3 clients, 3 tasks, one active each (balanced), 1 standby each. Caught up only on their actives: every
    standby is a restore, Ψ = 3; caught up also on the next client's task: none is, Ψ = 0."""
    prev = [["0_0"], ["0_1"], ["0_2"]]
    assert progress_measure(_group([1, 1, 1], prev, prev, 3, standby=1)) == (0, 3)
    ring = [["0_0", "0_1"], ["0_1", "0_2"], ["0_2", "0_0"]]
    assert progress_measure(_group([1, 1, 1], ring, prev, 3, standby=1)) == (0, 0)


def test_progress_made_reads_the_measure_lexicographically():
    group = {"configs": {"maxWarmupReplicas": 2}}
    assert progress_made(group, (5, None), (3, None)) == ""
    assert "not down by min(W=2, 5)" in progress_made(group, (5, None), (4, None))
    assert progress_made(group, (1, None), (0, None)) == "" == progress_made(group, (0, None), (0, 7))
    assert "∞ -> ∞" in progress_made(group, (0, None), (0, None))
    assert progress_made(group, (0, 7), (0, 5)) == ""
    assert "not down" in progress_made(group, (0, 7), (0, 6))
    assert "rose" in progress_made(group, (0, 7), (1, None))


# --- balanced counts ------------------------------------------------------------------------------------


def _kafka_balanced(counts: tuple[int, ...], caps: list[int], limit: int) -> bool:
    """No pair passes Kafka's shouldMoveATask, a client holding every task (``limit``) taking nothing."""
    return not any(
        _should_move(counts[a], caps[a], counts[b], caps[b])
        for a in range(len(caps))
        for b in range(len(caps))
        if a != b and counts[b] < limit
    )


@pytest.mark.parametrize("caps", [[1], [1, 1, 1], [1, 2], [3, 1, 2], [5, 1, 1, 4], [2, 2, 3]])
def test_bands_are_exactly_the_balanced_counts(caps):
    """The bands of the assignor and of the harness (two enumerations) hold exactly the count vectors that
    Kafka's shouldMoveATask leaves alone, by brute force over every vector, with and without a limit."""
    for units, limit in [(u, lim) for u in range(13) for lim in (u, max(1, u // 2), 3)]:
        if units > limit * len(caps):
            continue
        want = {
            v
            for v in itertools.product(range(limit + 1), repeat=len(caps))
            if sum(v) == units and _kafka_balanced(v, caps, limit)
        }
        for bands in (
            [(b.lo, b.hi) for b in balanced_bands(caps, units, limit)],
            [(lo, hi) for lo, hi, _ in _bands(caps, units, limit)],
        ):
            got = {
                v
                for lo, hi in bands
                for v in itertools.product(*[range(a, b + 1) for a, b in zip(lo, hi)])
                if sum(v) == units
            }
            assert got == want, (caps, units, limit)


def test_bands_come_by_increasing_level():
    bands = balanced_bands([3, 5, 1, 1, 4], 72, 18)
    assert [b.level for b in bands] == sorted(b.level for b in bands) and bands[0].level >= Fraction(0)


# --- the target reaches the measure ---------------------------------------------------------------------


def _target_costs(group: dict) -> tuple[int, int | None, bool]:
    description = group_from_json(group)
    clients, lags = build_states(description)
    stateful = sorted(t.task_id for t in description.tasks if t.stateful)
    target = plan_target(clients, stateful, lags, description.configs)
    caught = [{clients.index(c) for c in lags.caught_up_clients(t)} for t in stateful]
    active_misses = sum(1 for j, i in enumerate(target.owner) if i not in caught[j])
    standby_misses = sum(1 for j, cs in enumerate(target.standbys) for i in cs if i not in caught[j])
    kept = all(t in clients[i].prev_active for t, i in zip(stateful, target.owner))
    return active_misses, standby_misses, kept


@settings(max_examples=80, deadline=None)
@given(groups())
def test_target_reaches_the_measure(group):
    """On arbitrary groups (lags, capacities, previous assignments): the target has exactly Φ_A actives off
    caught-up clients, and when Ψ is finite it keeps the previous actives and has exactly Ψ such standbys —
    the harness's flow solver and the assignor's agree on every optimum."""
    if group["configs"].get("rackAwareAssignmentTags"):
        return  # the tag-aware standby placement is Kafka's, not a minimum
    phi, psi = progress_measure(group)
    active_misses, standby_misses, kept = _target_costs(group)
    assert active_misses == phi
    if psi is not None:
        assert kept and standby_misses == psi


# --- scenarios of issue #28's shape ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_scale_out_by_one_with_two_or_three_standbys_and_one_warmup(seed):
    """The harness's scale_out_one shape (capacity 1, 2–3 standbys, a single warmup, one client joins a
    group Kafka's assignor converged), every round checked and the measure falling every probing round."""
    result = run_scenario(make_scenario(random.Random(seed).randrange(10**6), "scale_out_one"), FAST)
    assert result.violations == [] and result.convergences == 1
