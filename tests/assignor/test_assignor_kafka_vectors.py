"""Kafka's own assignor unit tests (shared/vectors/kafka-java-assignor), through the JSON path.

For each case: validity (§12), the same probing decision as Kafka, the properties the Kafka test
asserts (its ``assertions`` text, translated by hand below), and Kafka's exact assignment."""

from __future__ import annotations

import json


import pytest

from assignor_invariants import assert_valid_assignment
from codec.assignor import assign, group_from_json, result_to_json
from tests.conftest import SHARED

VECTORS = SHARED / "vectors" / "kafka-java-assignor" / "ha_unit_tests.jsonl"
CASES = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
P = [f"00000000-0000-0000-0000-00000000000{i}" for i in range(10)]


def _run(case):
    return result_to_json(assign(group_from_json(case["input"])))


def _client(result, i):
    return next(c for c in result["clients"] if c["processId"] == P[i])


def _assigned(c):
    return len(c["active"]) + len(c["standby"]) + len(c["warmup"])


def _standby(c):  # Kafka's standby set: standbys and warmups together
    return set(c["standby"]) | set(c["warmup"])


def _sticky_while_warming(r):
    assert _assigned(_client(r, 1)) == 9 and _assigned(_client(r, 2)) == 9
    assert _assigned(_client(r, 3)) == 2


def _skip_warmups_at_max_lag(r):
    assert [_assigned(_client(r, i)) for i in (1, 2, 3)] == [6, 6, 6]
    assert not any(c["warmup"] for c in r["clients"])


def _evenly_over_threads(r):
    assert len(_client(r, 1)["active"]) == 6 and len(_client(r, 2)["active"]) == 3


def _active_was_not_caught_up(r):
    assert set(_client(r, 1)["active"]) == {"0_1"} and set(_client(r, 2)["active"]) == {"0_0"}


def _most_caught_up(r):
    assert [set(_client(r, i)["active"]) for i in (1, 2, 3)] == [set(), set(), {"0_0"}]
    assert _client(r, 1)["warmup"] == ["0_0"] and _client(r, 1)["standby"] == []
    assert _client(r, 2)["standby"] == ["0_0"] and _client(r, 2)["warmup"] == []
    assert _standby(_client(r, 3)) == set()


def _max_warmups(r):
    c1, c2 = _client(r, 1), _client(r, 2)
    assert set(c1["active"]) == {"0_0", "0_1", "0_2", "0_3"} and _standby(c1) == set()
    assert len(_standby(c2)) == 1 and c2["active"] == []


def _fallback_keeps_prior(r):
    assert set(_client(r, 1)["active"]) == {"0_0", "0_1", "0_2"} and _client(r, 2)["active"] == []


def _sticky_by_capacity(r):
    assert len(_client(r, 1)["active"]) == 1 and len(_client(r, 2)["active"]) == 2


def _sticky_more_clients(r):
    assert [set(_client(r, i)["active"]) for i in (1, 2, 3)] == [{"0_0"}, {"0_2"}, {"0_1"}]


STATED = {
    "shouldBeStickyForActiveAndStandbyTasksWhileWarmingUp": _sticky_while_warming,
    "shouldSkipWarmupsWhenAcceptableLagIsMax": _skip_warmups_at_max_lag,
    "shouldAssignActiveStatefulTasksEvenlyOverStreamThreadsButBestEffortOverClients": _evenly_over_threads,
    "shouldComputeNewAssignmentIfActiveTasksWasNotOnCaughtUpClient": _active_was_not_caught_up,
    "shouldAssignToMostCaughtUpIfActiveTasksWasNotOnCaughtUpClient": _most_caught_up,
    "shouldNotAssignMoreThanMaxWarmupReplicas": _max_warmups,
    "FallbackPriorTaskAssignorTest.shouldViolateBalanceToPreserveActiveTaskStickiness": _fallback_keeps_prior,
    "LegacyStickyTaskAssignorTest.shouldAssignBasedOnCapacity": _sticky_by_capacity,
    "LegacyStickyTaskAssignorTest.shouldKeepActiveTaskStickinessWhenMoreClientThanActiveTasks(first half)": _sticky_more_clients,
}


def test_every_vector_has_a_translation():
    assert len(CASES) == 9
    assert {c["test"] for c in CASES} == set(STATED)


@pytest.mark.parametrize("case", CASES, ids=[c["test"] for c in CASES])
def test_valid_and_same_probing_decision(case):
    r = _run(case)
    assert_valid_assignment(case["input"], r, case["input"]["configs"]["maxWarmupReplicas"])
    assert r["probingRebalanceNeeded"] is case["output"]["probingRebalanceNeeded"]


@pytest.mark.parametrize("case", CASES, ids=[c["test"] for c in CASES])
def test_properties_the_kafka_test_asserts(case):
    STATED[case["test"]](_run(case))


@pytest.mark.parametrize("case", CASES, ids=[c["test"] for c in CASES])
def test_replica_counts_within_bounds(case):
    """'standby+warmup replica counts within [numStandby, numStandby+maxWarmups]' per stateful task."""
    cfg = case["input"]["configs"]
    r = _run(case)
    floor = min(cfg["numStandbyReplicas"], len(r["clients"]) - 1)
    for t in case["input"]["tasks"]:
        tid = f"{t['subtopology']}_{t['partition']}"
        copies = sum(tid in _standby(c) for c in r["clients"])
        if t["stateful"]:
            assert floor <= copies <= cfg["numStandbyReplicas"] + cfg["maxWarmupReplicas"]
        else:
            assert copies == 0


@pytest.mark.parametrize("case", CASES, ids=[c["test"] for c in CASES])
def test_identical_to_kafka(case):
    r = _run(case)
    want = {c["processId"]: (sorted(c["active"]), sorted(c["standby"])) for c in case["output"]["clients"]}
    got = {c["processId"]: (sorted(c["active"]), sorted(_standby(c))) for c in r["clients"]}
    assert got == want
