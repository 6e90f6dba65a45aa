"""Properties of single assignments on random groups (hypothesis), from §10 and §12:
validity, determinism, caught-up placement of actives, warmup bounds, and the no-op cases."""

from __future__ import annotations

import random
import uuid

from hypothesis import given, settings, strategies as st

from assignor_invariants import assert_balanced, assert_valid_assignment
from codec.assignor import assign, group_from_json, result_to_json

LONG_MAX = 2**63 - 1


@st.composite
def groups(draw, acceptable=None):
    n_clients = draw(st.integers(1, 7))
    pids = draw(st.lists(st.uuids(), min_size=n_clients, max_size=n_clients, unique=True))
    n_subs = draw(st.integers(1, 4))
    tasks = []
    for sub in range(n_subs):
        stateful = draw(st.booleans())
        for p in range(draw(st.integers(1, 5))):
            tasks.append({"subtopology": sub, "partition": p, "stateful": stateful})
    stateful_ids = [f"{t['subtopology']}_{t['partition']}" for t in tasks if t["stateful"]]
    end = {t: draw(st.integers(0, 1000)) for t in stateful_ids}
    offset = st.one_of(st.integers(0, 1200), st.sampled_from([-2, -3]))
    clients = []
    for pid in pids:
        held = draw(st.lists(st.sampled_from(stateful_ids), unique=True)) if stateful_ids else []
        split = draw(st.integers(0, len(held)))
        clients.append(
            {
                "processId": str(pid),
                "capacity": draw(st.integers(1, 3)),
                "prevActive": held[:split],
                "prevStandby": held[split:],
                "taskOffsetSums": {t: draw(offset) for t in held},
            }
        )
    if acceptable is None:
        acceptable = draw(st.sampled_from([0, 10, 100, LONG_MAX]))
    configs = {
        "acceptableRecoveryLag": acceptable,
        "maxWarmupReplicas": draw(st.integers(1, 4)),
        "numStandbyReplicas": draw(st.integers(0, 3)),
    }
    return {
        "assignor": "high_availability",
        "configs": configs,
        "tasks": tasks,
        "endOffsetSums": end,
        "clients": clients,
    }


def _run(group):
    return result_to_json(assign(group_from_json(group)))


def _lag(group, pid, task):
    """§9.5, written out again for the test."""
    client = next(c for c in group["clients"] if c["processId"] == pid)
    e = group["endOffsetSums"][task]
    o = client["taskOffsetSums"].get(task, 0)
    if o in (-2, -3):
        return o
    return e if e < o else e - o


def _caught_up(group, pid, task):
    lag = _lag(group, pid, task)
    acceptable = group["configs"]["acceptableRecoveryLag"]
    return lag == -2 or acceptable == LONG_MAX or 0 <= lag <= acceptable


@settings(max_examples=300, deadline=None, database=None)
@given(groups())
def test_valid_and_warmups_within_budget(group):
    assert_valid_assignment(group, _run(group), group["configs"]["maxWarmupReplicas"])


@settings(max_examples=150, deadline=None, database=None)
@given(groups(), st.randoms(use_true_random=False))
def test_deterministic_and_independent_of_input_order(group, rnd: random.Random):
    first = _run(group)
    shuffled = dict(group, clients=list(group["clients"]), tasks=list(group["tasks"]))
    rnd.shuffle(shuffled["clients"])
    rnd.shuffle(shuffled["tasks"])
    assert _run(shuffled) == first == _run(group)


@settings(max_examples=300, deadline=None, database=None)
@given(groups())
def test_active_on_caught_up_client_whenever_one_exists(group):
    """KIP-441: never an active on a client that is not caught up while a caught-up one exists.

    Not when some client reports an unknown offset (-3) for the task: see the next test."""
    result = _run(group)
    pids = [c["processId"] for c in group["clients"]]
    for c in result["clients"]:
        for task in c["active"]:
            if task not in group["endOffsetSums"] or any(_lag(group, p, task) == -3 for p in pids):
                continue
            if any(_caught_up(group, p, task) for p in pids):
                assert _caught_up(group, c["processId"], task)


def test_unknown_lag_sorts_first_and_blocks_the_movement():
    """§10: lag -3 is not caught up but sorts before every real lag, so a client with -3 that is
    the desired owner is "the most caught up" and its active is not moved to a caught-up client."""
    unknown, caught_up = "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002"
    group = {
        "configs": {"acceptableRecoveryLag": 0, "maxWarmupReplicas": 1},
        "tasks": [{"subtopology": 0, "partition": 0, "stateful": True}],
        "endOffsetSums": {"0_0": 0},
        "clients": [
            {"processId": unknown, "prevStandby": ["0_0"], "taskOffsetSums": {"0_0": -3}},
            {"processId": caught_up, "taskOffsetSums": {}},
        ],
    }
    result = _run(group)
    assert result["clients"][0]["active"] == ["0_0"] and result["clients"][1]["active"] == []
    assert result["probingRebalanceNeeded"] is False


@settings(max_examples=150, deadline=None, database=None)
@given(groups(acceptable=LONG_MAX))
def test_unbounded_acceptable_lag_needs_no_probing_and_no_warmups(group):
    result = _run(group)
    assert result["probingRebalanceNeeded"] is False
    assert not any(c["warmup"] for c in result["clients"])
    assert_valid_assignment(group, result, 0)


@settings(max_examples=150, deadline=None, database=None)
@given(groups())
def test_stateless_only_groups_are_balanced_and_stable(group):
    group = dict(group, tasks=[dict(t, stateful=False) for t in group["tasks"]], endOffsetSums={})
    for c in group["clients"]:
        c.update(prevActive=[], prevStandby=[], taskOffsetSums={}, capacity=1)
    result = _run(group)
    assert result["probingRebalanceNeeded"] is False
    assert_balanced(group, result)


def test_java_uuid_order_breaks_ties_signed():
    """A UUID with the top bit set is *smaller* in Java's signed order, so it gets the first task."""
    big, small = uuid.UUID(int=1 << 127), uuid.UUID(int=1)
    group = {
        "tasks": [{"subtopology": 0, "partition": 0, "stateful": False}],
        "clients": [{"processId": str(small)}, {"processId": str(big)}],
    }
    result = _run(group)
    assert [c["processId"] for c in result["clients"]] == [str(big), str(small)]
    assert result["clients"][0]["active"] == ["0_0"]
