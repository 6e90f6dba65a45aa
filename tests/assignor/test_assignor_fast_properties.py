"""Property tests (hypothesis) of ``high_availability_fast``'s guarantees (issue #19) on arbitrary groups:
single rounds with arbitrary lags, capacities and previous assignments, and sequences of rounds in which
clients leave, come back with the state they left with, join new, and change capacity.

The checker (:func:`codec.assignor.convergence.check_round`) reads only the JSON group and result; it is
shown to fail on bad rounds in ``test_assignor_fast_convergence.py``."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codec.assignor import assign, group_from_json, result_to_json
from codec.assignor.convergence import Cluster, check_round

FAST = "high_availability_fast"
LONG_MAX = 2**63 - 1


@st.composite
def groups(draw):
    n_clients = draw(st.integers(1, 7))
    pids = draw(st.lists(st.uuids(), min_size=n_clients, max_size=n_clients, unique=True))
    tasks = []
    for sub in range(draw(st.integers(1, 4))):
        stateful = draw(st.booleans())
        tasks += [{"subtopology": sub, "partition": p, "stateful": stateful} for p in range(draw(st.integers(1, 5)))]
    stateful_ids = [f"{t['subtopology']}_{t['partition']}" for t in tasks if t["stateful"]]
    end = {t: draw(st.integers(0, 1000)) for t in stateful_ids}
    offset = st.one_of(st.integers(0, 1200), st.sampled_from([-2, -3]))
    tags = st.fixed_dictionaries({"zone": st.sampled_from(["a", "b", "c"])})
    use_tags = draw(st.booleans())
    clients = []
    for pid in pids:
        held = draw(st.lists(st.sampled_from(stateful_ids), unique=True)) if stateful_ids else []
        split = draw(st.integers(0, len(held)))
        extra = draw(st.lists(st.sampled_from(stateful_ids), unique=True)) if stateful_ids else []
        sums = {t: draw(offset) for t in dict.fromkeys(held + extra)}
        client = {
            "processId": str(pid),
            "capacity": draw(st.integers(1, 4)),
            "prevActive": held[:split],
            "prevStandby": held[split:],
            "taskOffsetSums": sums,
        }
        if use_tags:
            client["clientTags"] = draw(tags)
        clients.append(client)
    configs = {
        "acceptableRecoveryLag": draw(st.sampled_from([0, 10, 100, LONG_MAX])),
        "maxWarmupReplicas": draw(st.integers(1, 4)),
        "numStandbyReplicas": draw(st.integers(0, 3)),
    }
    if use_tags:
        configs["rackAwareAssignmentTags"] = ["zone"]
    return {"assignor": FAST, "configs": configs, "tasks": tasks, "endOffsetSums": end, "clients": clients}


def _run(group):
    return result_to_json(assign(group_from_json(group)))


def _single(group):
    result = _run(group)
    assert check_round(group, result) == []
    assert _run(group) == result  # deterministic


@settings(max_examples=60)
@given(groups())
def test_every_single_round_keeps_the_guarantees(group):
    _single(group)


@pytest.mark.slow
@settings(max_examples=3000)
@given(groups())
def test_every_single_round_keeps_the_guarantees_long(group):
    _single(group)


EVENTS = st.lists(
    st.tuples(st.sampled_from(["drop", "join", "return", "capacity"]), st.integers(0, 2**16)), min_size=1, max_size=6
)


def _sequence(seed: int, events: list) -> None:
    """Rounds with full catch-up in between (Kafka's harness, §12); every round checked; each
    convergence within Kafka's iteration limit."""
    rng = random.Random(seed)
    size = rng.randint(1, 6)
    num_stateful = rng.randint(1, 12)
    num_standby = rng.randint(0, 2)
    cluster = Cluster.random(rng, size, rng.randint(0, 6), num_stateful, rng.randint(1, 3), num_standby, FAST, (1, 4))
    limit = 2 * (num_stateful + num_stateful * num_standby)

    def converge(limit: int) -> None:
        for _ in range(limit):
            group, result, _ = cluster.rebalance()
            assert check_round(group, result) == []
            if not result["probingRebalanceNeeded"]:
                return
        raise AssertionError(f"no convergence within {limit} rounds")

    converge(1)
    for kind, n in events:
        if kind == "drop" and len(cluster.live) > 1:
            cluster.drop(sorted(cluster.live)[n % len(cluster.live)])
        elif kind == "join":
            cluster.add_client(1 + n % 4)
        elif kind == "return" and cluster.dropped:
            pid = sorted(cluster.dropped)[n % len(cluster.dropped)]
            cluster.live[pid] = cluster.dropped.pop(pid)
        elif kind == "capacity":
            cluster.capacity[sorted(cluster.live)[n % len(cluster.live)]] = 1 + (n >> 4) % 4
        converge(limit)


@settings(max_examples=30)
@given(st.integers(0, 2**32), EVENTS)
def test_membership_and_capacity_changes_keep_the_guarantees(seed, events):
    _sequence(seed, events)


@pytest.mark.slow
@settings(max_examples=1500)
@given(st.integers(0, 2**32), EVENTS)
def test_membership_and_capacity_changes_keep_the_guarantees_long(seed, events):
    _sequence(seed, events)
