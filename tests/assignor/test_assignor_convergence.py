"""Convergence under random membership changes, as in Kafka's TaskAssignorConvergenceTest (§12).

Expected values are Kafka's own iteration limits and invariants; nothing is taken from the code
under test. The default run covers 1,000 random scenarios (seeds 0..999); ``-m slow`` runs
20,000 more."""

from __future__ import annotations

import random

import pytest

from assignor_invariants import assert_balanced, assert_valid_assignment
from codec.assignor.convergence import Cluster


def run_scenario(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.randint(1, 10)
    num_stateless = rng.randint(1, 10)
    num_stateful = rng.randint(1, 10)
    max_warmups = rng.randint(1, num_stateful)
    num_standby = rng.randint(0, size)
    cluster = Cluster.random(rng, size, num_stateless, num_stateful, max_warmups, num_standby)
    group, result, _ = cluster.converge(1)
    assert_valid_assignment(group, result, 0)
    assert_balanced(group, result)
    for _ in range(rng.randint(1, 10)):
        if rng.randrange(2) == 0:
            cluster.drop_random(rng, rng.randrange(size))
        else:
            cluster.add_or_resurrect(rng, rng.randrange(size))
        if cluster.live:
            group, result, _ = cluster.converge(2 * (num_stateful + num_stateful * num_standby))
            assert_valid_assignment(group, result, 0)
            assert_balanced(group, result)


@pytest.mark.parametrize("block", range(20))
def test_random_cluster_perturbations_converge(block):
    for seed in range(block * 50, block * 50 + 50):
        try:
            run_scenario(seed)
        except AssertionError as e:
            raise AssertionError(f"scenario seed {seed}: {e}") from e


@pytest.mark.slow
@pytest.mark.parametrize("block", range(40))
def test_random_cluster_perturbations_converge_long(block):
    for seed in range(100_000 + block * 500, 100_000 + block * 500 + 500):
        try:
            run_scenario(seed)
        except AssertionError as e:
            raise AssertionError(f"scenario seed {seed}: {e}") from e


def _fixed_cluster(num_clients: int, num_stateless: int, num_stateful: int, max_warmups: int) -> Cluster:
    cluster = Cluster([], [], {})
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
        "numStandbyReplicas": 0,
        "probingRebalanceIntervalMs": 60000,
    }
    for _ in range(num_clients):
        cluster.add_client()
    return cluster


def test_single_task_single_client_converges_in_one_round():
    cluster = _fixed_cluster(1, 0, 1, 1)
    group, result, rounds = cluster.converge(1)
    assert rounds == 1
    assert_valid_assignment(group, result, 0)


def test_converges_after_adding_a_node():
    """Kafka: 7 stateless, 11 stateful, 1 client, add one: limit numStateful / maxWarmup + 1."""
    cluster = _fixed_cluster(1, 7, 11, 2)
    cluster.converge(1)
    cluster.add_client()
    group, result, _ = cluster.converge(11 // 2 + 1)
    assert_valid_assignment(group, result, 0)
    assert_balanced(group, result)


def test_converges_after_dropping_a_node():
    """Kafka: 11 stateless, 13 stateful, 7 clients, drop the first: limit numStateful / maxWarmup + 2."""
    cluster = _fixed_cluster(7, 11, 13, 2)
    cluster.converge(1)
    first = sorted(cluster.live)[0]
    cluster.dropped[first] = cluster.live.pop(first)
    group, result, _ = cluster.converge(13 // 2 + 2)
    assert_valid_assignment(group, result, 0)
    assert_balanced(group, result)
