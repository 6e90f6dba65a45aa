"""Invariants from Kafka's AssignmentTestUtils (wire-facts §12), written against the JSON result
shape so they do not depend on the code under test."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

Json = dict[str, Any]


def _ids(group: Json) -> tuple[set[str], set[str]]:
    stateful = {f"{t['subtopology']}_{t['partition']}" for t in group["tasks"] if t["stateful"]}
    stateless = {f"{t['subtopology']}_{t['partition']}" for t in group["tasks"] if not t["stateful"]}
    return stateful, stateless


def assert_valid_assignment(group: Json, result: Json, max_warmups: int) -> None:
    """assertValidAssignment: every task active exactly once; no standby for stateless tasks; no
    client holds a task twice; every stateful task held by min(#clients, 1 + standbys) clients
    plus its warmups, at most ``max_warmups`` warmups in all. Warmups listed apart from standbys
    must be exactly those extra holders (assignor README definition).

    Kafka's helper allows "exactly one extra holder" per task; its algorithm can give one task
    two warmups in a round (one from the active movement, one from a standby movement), so only
    the total is bounded here. With ``max_warmups=0`` (converged) both readings coincide."""
    stateful, stateless = _ids(group)
    num_standby = group.get("configs", {}).get("numStandbyReplicas", 0)
    clients = result["clients"]
    assert sorted(c["processId"] for c in clients) == sorted(c["processId"] for c in group["clients"])
    actives = Counter(t for c in clients for t in c["active"])
    assert set(actives) == stateful | stateless, "some task unassigned or unknown task assigned"
    assert all(n == 1 for n in actives.values()), f"task active more than once: {actives}"
    holders: Counter = Counter()
    warmups: Counter = Counter()
    for c in clients:
        held = c["active"] + c["standby"] + c["warmup"]
        assert len(held) == len(set(held)), f"client {c['processId']} holds a task twice"
        assert not (set(c["standby"]) | set(c["warmup"])) & stateless, "standby of a stateless task"
        holders.update(held)
        warmups.update(c["warmup"])
    expected = min(len(clients), 1 + num_standby)
    extra = 0
    for task in stateful:
        assert holders[task] >= expected, f"{task} held by {holders[task]} clients"
        extra += holders[task] - expected
        assert warmups[task] == holders[task] - expected, f"{task}: warmups do not match extra copies"
    assert extra <= max_warmups


def assert_balanced(group: Json, result: Json, skew: int = 1) -> None:
    """assertBalancedActiveAssignment, assertBalancedStatefulAssignment and the per-subtopology
    skew of analyzeTaskAssignmentBalance."""
    stateful, _ = _ids(group)
    capacity = {c["processId"]: c.get("capacity", 1) for c in group["clients"]}
    clients = result["clients"]
    active_load = [len(c["active"]) / capacity[c["processId"]] for c in clients]
    assert max(active_load) - min(active_load) <= 1.0, f"active loads {active_load}"
    stateful_load = [
        len([t for t in c["active"] + c["standby"] + c["warmup"] if t in stateful]) / capacity[c["processId"]]
        for c in clients
    ]
    assert max(stateful_load) - min(stateful_load) <= 1.0, f"stateful loads {stateful_load}"
    per_sub: dict[str, list[int]] = defaultdict(lambda: [0] * len(clients))
    for i, c in enumerate(clients):
        for t in c["active"]:
            per_sub[t.split("_")[0]][i] += 1
    for sub, counts in per_sub.items():
        assert max(counts) - min(counts) <= skew, f"subtopology {sub} skewed: {counts}"
