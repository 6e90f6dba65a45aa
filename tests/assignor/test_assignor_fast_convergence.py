"""``high_availability_fast`` on the convergence harness (issues #19, #28), beside ``high_availability``.

Expected values are the issues' own bars (half the rounds, no worse maximum per kind, no more restores,
no guarantee broken in any round, the progress measure falling after every probing round and the rounds
within the bound), Kafka's iteration limits (§12) and hand-derived round counts; the guarantee checker
itself is shown to fail on hand-made bad rounds (the progress checks in ``test_assignor_fast_progress.py``).
The default run covers 250 scenarios; ``-m slow`` runs the project's scenario set (2,000) against the
bars, and 10,000 more scenarios on the fast assignor alone."""

from __future__ import annotations

import random

import pytest
from assignor_invariants import assert_valid_assignment

from codec.assignor.convergence import (
    DEFAULT_SCENARIOS,
    KINDS,
    Cluster,
    check_round,
    compare,
    is_balanced,
    run_scenario,
    scenarios,
    summarize,
)

FAST = "high_availability_fast"
BOTH = ("high_availability", FAST)


def _bars(n: int) -> tuple[dict, dict]:
    results = compare(scenarios(n), BOTH)
    for rs in results.values():
        violations = [v for r in rs for v in r.violations]
        assert not violations, violations[:5]
    return summarize(results["high_availability"]), summarize(results[FAST])


def test_small_scenario_set_meets_the_issue_bars():
    ref, fast = _bars(250)
    assert fast["rounds"] * 2 <= ref["rounds"], (fast["rounds"], ref["rounds"])
    assert fast["restores"] <= ref["restores"]
    for kind in KINDS:
        assert fast["kinds"][kind]["rounds_max"] <= ref["kinds"][kind]["rounds_max"], kind


@pytest.mark.slow
def test_default_scenario_set_meets_the_issue_bars():
    """The project's scenario set: half the rounds or fewer, also without issue #28's own kind (where the
    exact assignor is slowest)."""
    ref, fast = _bars(DEFAULT_SCENARIOS)
    assert fast["rounds"] * 2 <= ref["rounds"], (fast["rounds"], ref["rounds"])
    kinds = [k for k in KINDS if k != "scale_out_one"]
    assert sum(fast["kinds"][k]["rounds"] for k in kinds) * 2 <= sum(ref["kinds"][k]["rounds"] for k in kinds)
    assert fast["restores"] <= ref["restores"]
    for kind in KINDS:
        assert fast["kinds"][kind]["rounds_max"] <= ref["kinds"][kind]["rounds_max"], kind


@pytest.mark.slow
@pytest.mark.parametrize("block", range(20))
def test_ten_thousand_scenarios_converge_with_progress_every_round(block):
    """Issue #28's Done-when: 10,000 scenarios of every kind (seeds 10,000-19,999, apart from the project's
    set), none failing to converge, the measure falling after every probing round, the bound held."""
    items = scenarios(500, start=10_000 + 500 * block)
    results = [run_scenario(s, FAST) for s in items]
    violations = [v for r in results for v in r.violations]
    assert not violations, violations[:5]


def _fixed_cluster(
    num_clients: int, num_stateless: int, num_stateful: int, max_warmups: int, num_standby: int = 0
) -> Cluster:
    cluster = Cluster([], [], {}, FAST)
    sub = 0
    for tasks, count in ((cluster.stateless, num_stateless), (cluster.stateful, num_stateful)):
        while count > 0:  # Kafka's fixed tests use 5 partitions per subtopology
            parts = min(count, 5)
            tasks.extend(f"{sub}_{p}" for p in range(parts))
            count -= parts
            sub += 1
    cluster.configs = {
        "acceptableRecoveryLag": 100,
        "maxWarmupReplicas": max_warmups,
        "numStandbyReplicas": num_standby,
        "probingRebalanceIntervalMs": 60000,
    }
    for _ in range(num_clients):
        cluster.add_client()
    return cluster


def _converge_checked(cluster: Cluster, limit: int) -> int:
    for rounds in range(1, limit + 1):
        group, result, _ = cluster.rebalance()
        assert check_round(group, result) == []
        if not result["probingRebalanceNeeded"]:
            assert_valid_assignment(group, result, 0)
            return rounds
    raise AssertionError(f"no convergence within {limit} rounds")


def test_kafka_adding_a_node_within_kafkas_limit():
    """Kafka: 7 stateless, 11 stateful, 1 client, add one: limit numStateful / maxWarmup + 1."""
    cluster = _fixed_cluster(1, 7, 11, 2)
    _converge_checked(cluster, 1)
    cluster.add_client()
    _converge_checked(cluster, 11 // 2 + 1)


def test_kafka_dropping_a_node_within_kafkas_limit():
    """Kafka: 11 stateless, 13 stateful, 7 clients, drop the first: limit numStateful / maxWarmup + 2."""
    cluster = _fixed_cluster(7, 11, 13, 2)
    _converge_checked(cluster, 1)
    cluster.drop(min(cluster.live))
    _converge_checked(cluster, 13 // 2 + 2)


def test_one_join_moves_only_the_joiners_share():
    """By hand: 2 clients (capacity 1) hold 4 stateful tasks, 2 each; a third joins. Balanced counts are
    2/1/1, so exactly one task moves: round 1 warms it up on the joiner (one warmup), round 2 hands it
    over and asks for nothing more. One restore in all."""
    cluster = _fixed_cluster(2, 0, 4, 1)
    _converge_checked(cluster, 1)
    before = {pid: set(active) for pid, (active, _) in cluster.live.items()}
    joiner = cluster.add_client()
    group, result, _ = cluster.rebalance()
    assert result["probingRebalanceNeeded"]
    warm = {c["processId"]: c["warmup"] for c in result["clients"]}
    assert len(warm[joiner]) == 1 and sum(map(len, warm.values())) == 1
    assert {c["processId"]: set(c["active"]) for c in result["clients"] if c["processId"] != joiner} == before
    group, result, _ = cluster.rebalance()
    assert not result["probingRebalanceNeeded"] and check_round(group, result) == []
    by_pid = {c["processId"]: c for c in result["clients"]}
    assert by_pid[joiner]["active"] == warm[joiner]
    assert sorted(len(c["active"]) for c in result["clients"]) == [1, 1, 2]


def test_scale_in_with_standbys_needs_no_warmup_round():
    """By hand: 3 clients, 3 stateful tasks, one standby each, converged; a client leaves. Each of its
    tasks had a caught-up standby elsewhere (a swap, no restore) and the 2 survivors can hold 3 tasks
    with one standby each (3 copies each): the first round already is the target, no probing."""
    cluster = _fixed_cluster(3, 0, 3, 1, num_standby=1)
    _converge_checked(cluster, 2)
    cluster.drop(min(cluster.live))
    group, result, _ = cluster.rebalance()
    assert check_round(group, result) == []
    lost_standbys = sum(len(c["standby"]) for c in result["clients"])
    assert lost_standbys == 3 and not result["probingRebalanceNeeded"]


@pytest.mark.parametrize("seed", range(60))
def test_kafka_randomized_rules_on_the_fast_assignor(seed):
    """Kafka's randomized convergence test (§12: sizes, limits) on the fast assignor, capacity 1."""
    rng = random.Random(seed)
    size = rng.randint(1, 10)
    num_stateful = rng.randint(1, 10)
    cluster = Cluster.random(
        rng, size, rng.randint(1, 10), num_stateful, rng.randint(1, num_stateful), rng.randint(0, size), FAST
    )
    _converge_checked(cluster, 1)
    num_standby = cluster.configs["numStandbyReplicas"]
    for _ in range(rng.randint(1, 10)):
        if rng.randrange(2) == 0:
            cluster.drop_random(rng, rng.randrange(size))
        else:
            cluster.add_or_resurrect(rng, rng.randrange(size))
        if cluster.live:
            _converge_checked(cluster, 2 * (num_stateful + num_stateful * num_standby))


# --- the checker can fail ---------------------------------------------------------------------------------


def _group(clients: list[dict], standby: int = 0, warmups: int = 1) -> dict:
    return {
        "configs": {"acceptableRecoveryLag": 100, "maxWarmupReplicas": warmups, "numStandbyReplicas": standby},
        "tasks": [{"subtopology": 0, "partition": p, "stateful": True} for p in range(2)],
        "endOffsetSums": {"0_0": 1000, "0_1": 1000},
        "clients": clients,
    }


def _client(n: int, sums: dict, capacity: int = 1) -> dict:
    return {"processId": f"00000000-0000-0000-0000-{n:012x}", "capacity": capacity, "taskOffsetSums": sums}


def _out(n: int, active=(), standby=(), warmup=()) -> dict:
    return {
        "processId": f"00000000-0000-0000-0000-{n:012x}",
        "active": list(active),
        "standby": list(standby),
        "warmup": list(warmup),
    }


def test_checker_flags_an_active_on_a_lagging_client():
    group = _group([_client(1, {"0_0": 1000, "0_1": 1000}), _client(2, {})])
    result = {"probingRebalanceNeeded": True, "clients": [_out(1, ["0_1"]), _out(2, ["0_0"])]}
    (why,) = check_round(group, result)
    assert "0_0 active on 00000000-0000-0000-0000-000000000002, not caught up" in why


def test_checker_flags_too_many_warmups_and_missing_standbys():
    group = _group([_client(1, {"0_0": 1000, "0_1": 1000}), _client(2, {}), _client(3, {})], standby=1)
    result = {
        "probingRebalanceNeeded": True,
        "clients": [_out(1, ["0_0", "0_1"]), _out(2, [], ["0_0"], ["0_1"]), _out(3, [], [], ["0_0"])],
    }
    why = check_round(group, result)
    assert any("0_1 has 0 standbys, expected 1" in w for w in why)
    assert any("2 warmups, more than maxWarmupReplicas 1" in w for w in why)


def test_checker_flags_an_unbalanced_final_round():
    """Capacity 1 and 2: 2 tasks on the capacity-1 client and none on the other is not balanced
    ((2 - 1)/1 >= (0 + 1)/2), 1 and 1 is; both unbalanced if probing were not asked for."""
    group = _group([_client(1, {"0_0": 1000, "0_1": 1000}), _client(2, {"0_0": 1000, "0_1": 1000}, 2)])
    bad = {"probingRebalanceNeeded": False, "clients": [_out(1, ["0_0", "0_1"]), _out(2)]}
    good = {"probingRebalanceNeeded": False, "clients": [_out(1, ["0_0"]), _out(2, ["0_1"])]}
    assert any("stateful actives" in w for w in is_balanced(group, bad))
    assert check_round(group, good) == []
    assert check_round(group, dict(bad, probingRebalanceNeeded=True)) == []
