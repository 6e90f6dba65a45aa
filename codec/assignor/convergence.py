"""A convergence harness for the KIP-441 assignors, on the rules of Kafka's ``TaskAssignorConvergenceTest``
(wire-facts §12), the guarantees every round must keep (issue #19) and the progress ``high_availability_fast``
must make every round (issue #28).

Rules (§12): every stateful task has end-offset sum 150000 and acceptable recovery lag 100; after each
round every client reports, for every stateful task it now holds (active, standby or warmup), an offset
sum equal to the end sum (full catch-up), and nothing for the others; a convergence ends with the first
round that asks for no probing rebalance, and fails past Kafka's iteration limit (1 for a first
assignment, ``2 × (numStateful + numStateful × numStandby)`` after an event).

On top of Kafka's harness, clients have mixed capacities (1–5 threads), 0–3 standbys and 1–3 warmups, and
scenarios come in five kinds:

- ``fresh``: a first assignment of a new group;
- ``scale_out``: a converged group, then 1–n new clients join;
- ``scale_in``: a converged group, then 1–(n−1) clients leave;
- ``events``: a converged group, then 1–10 random events (clients leave; new or returning clients join,
  a returning client with the state it left with; a client's capacity changes);
- ``scale_out_one``: 2–9 clients of capacity 1 holding 1–40 stateful tasks with 2–3 standbys and a single
  warmup, converged by Kafka's assignor (``high_availability``) from a fresh start, then one client joins
  (the shape of issue #28, where the fast assignor once probed forever).

:func:`check_round` checks the guarantees of one round from the JSON group and result alone (never from
the assignor's internals); :func:`progress_measure` computes, from the JSON group alone and with a flow
solver of its own, the measure ``high_availability_fast`` promises to decrease (its module documentation);
:func:`run_scenario` runs one scenario on one assignor and counts rounds, restores started (a stateful copy
given to a client that was not caught up on it) and assign() time, and for ``high_availability_fast`` checks
the measure after every probing round and the rounds against :func:`round_bound`; :func:`compare` runs
scenarios on several assignors side by side, interleaved scenario by scenario.
"""

from __future__ import annotations

import heapq
import math
import random
import statistics
import time
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from random import Random  # inside `Cluster`, its classmethod `random` hides the module
from typing import Any

from .engine import assign
from .json_io import group_from_json, result_to_json

__all__ = [
    "DEFAULT_SCENARIOS",
    "END_SUM",
    "KINDS",
    "Cluster",
    "Scenario",
    "ScenarioResult",
    "check_round",
    "compare",
    "is_balanced",
    "issue_28_cluster",
    "make_scenario",
    "progress_made",
    "progress_measure",
    "restores_started",
    "round_bound",
    "run_scenario",
    "scenarios",
    "summarize",
]

END_SUM = 150000
ACCEPTABLE_LAG = 100
LONG_MAX = 2**63 - 1
KINDS = ("fresh", "scale_out", "scale_in", "events", "scale_out_one")
FAST = "high_availability_fast"
DEFAULT_SCENARIOS = 2000
"""The project's scenario set: seeds 0 .. DEFAULT_SCENARIOS − 1, the kinds in turn."""

Json = dict[str, Any]


@dataclass
class Cluster:
    """The state of a simulated group between rounds: live and departed clients with what they held."""

    stateless: list[str]
    stateful: list[str]
    configs: dict
    assignor: str = "high_availability"
    live: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)  # pid -> (active, standby+warmup)
    dropped: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    capacity: dict[str, int] = field(default_factory=dict)
    next_id: int = 1

    @classmethod
    def random(
        cls,
        rng: Random,
        num_clients: int,
        num_stateless: int,
        num_stateful: int,
        max_warmups: int,
        num_standby: int,
        assignor: str = "high_availability",
        capacities: tuple[int, int] = (1, 1),
    ) -> Cluster:
        """Kafka's randomized cluster: tasks over subtopologies of 1–10 partitions."""
        sub = 0
        stateless: list[str] = []
        stateful: list[str] = []
        for tasks, count in ((stateless, num_stateless), (stateful, num_stateful)):
            while count > 0:
                parts = min(count, rng.randint(1, 10))
                tasks.extend(f"{sub}_{p}" for p in range(parts))
                count -= parts
                sub += 1
        configs = {
            "acceptableRecoveryLag": ACCEPTABLE_LAG,
            "maxWarmupReplicas": max_warmups,
            "numStandbyReplicas": num_standby,
            "probingRebalanceIntervalMs": 60000,
        }
        cluster = cls(stateless, stateful, configs, assignor)
        for _ in range(num_clients):
            cluster.add_client(rng.randint(*capacities))
        return cluster

    def add_client(self, capacity: int = 1) -> str:
        pid = f"00000000-0000-0000-0000-{self.next_id:012x}"
        self.live[pid] = ([], [])
        self.capacity[pid] = capacity
        self.next_id += 1
        return pid

    def drop(self, pid: str) -> None:
        self.dropped[pid] = self.live.pop(pid)

    def drop_random(self, rng: Random, count: int) -> None:
        for _ in range(min(count, len(self.live))):
            self.drop(sorted(self.live)[rng.randrange(len(self.live))])

    def add_or_resurrect(self, rng: Random, count: int, capacities: tuple[int, int] = (1, 1)) -> None:
        for _ in range(count):
            if rng.random() < 0.5 or not self.dropped:
                self.add_client(rng.randint(*capacities))
            else:
                pid = sorted(self.dropped)[rng.randrange(len(self.dropped))]
                self.live[pid] = self.dropped.pop(pid)

    def group(self) -> Json:
        """The JSON group description of the next round (full catch-up on everything held)."""

        def task(t: str, stateful: bool) -> dict:
            s, p = t.split("_")
            return {"subtopology": int(s), "partition": int(p), "stateful": stateful}

        stateful = set(self.stateful)
        return {
            "assignor": self.assignor,
            "configs": self.configs,
            "tasks": [task(t, False) for t in self.stateless] + [task(t, True) for t in self.stateful],
            "endOffsetSums": {t: END_SUM for t in self.stateful},
            "clients": [
                {
                    "processId": pid,
                    "capacity": self.capacity.get(pid, 1),
                    "prevActive": active,
                    "prevStandby": [t for t in standby if t not in active],
                    "taskOffsetSums": {t: END_SUM for t in active + standby if t in stateful},
                }
                for pid, (active, standby) in sorted(self.live.items())
            ],
        }

    def rebalance(self) -> tuple[Json, Json, float]:
        """One round: assign, then fully catch every client up on what it now holds. Returns the group,
        the result and the seconds assign() took."""
        group = self.group()
        description = group_from_json(group)
        start = time.perf_counter()
        raw = assign(description)
        elapsed = time.perf_counter() - start
        result = result_to_json(raw)
        for c in result["clients"]:
            self.live[c["processId"]] = (c["active"], c["standby"] + c["warmup"])
        return group, result, elapsed

    def converge(self, limit: int) -> tuple[Json, Json, int]:
        """Rebalance until no probing rebalance is needed; AssertionError after ``limit`` rounds."""
        for rounds in range(1, limit + 1):
            group, result, _ = self.rebalance()
            if not result["probingRebalanceNeeded"]:
                return group, result, rounds
        raise AssertionError(f"no convergence within {limit} rounds")


# --- the guarantees of one round -------------------------------------------------------------------------


def _task_ids(group: Json) -> tuple[list[str], list[str]]:
    stateful = [f"{t['subtopology']}_{t['partition']}" for t in group["tasks"] if t["stateful"]]
    stateless = [f"{t['subtopology']}_{t['partition']}" for t in group["tasks"] if not t["stateful"]]
    return stateful, stateless


def _caught_up(group: Json) -> dict[str, set[str]]:
    """task -> process ids caught up on it (§10 definition, from the reported offset sums)."""
    configs = group.get("configs", {})
    acceptable = configs.get("acceptableRecoveryLag", 10000)
    ends = group.get("endOffsetSums", {})
    stateful, _ = _task_ids(group)
    out: dict[str, set[str]] = {t: set() for t in stateful}
    for c in group["clients"]:
        sums = c.get("taskOffsetSums", {})
        for t in stateful:
            o = sums.get(t, 0)
            end = ends.get(t, 0)
            lag = o if o in (-2, -3) else (end if end < o else end - o)
            if lag == -2 or acceptable == LONG_MAX or 0 <= lag <= acceptable:
                out[t].add(c["processId"])
    return out


def _should_move(src: int, src_cap: int, dst: int, dst_cap: int) -> bool:
    """Kafka's ``shouldMoveATask`` on counts (§10 step 2)."""
    skew = src / src_cap - dst / dst_cap
    if skew <= 0:
        return False
    proposed = (src - 1.0) / src_cap - (dst + 1.0) / dst_cap
    return 0 <= proposed < skew


def is_balanced(group: Json, result: Json) -> list[str]:
    """Why the assignment is not balanced as Kafka defines it; empty when it is.

    Kafka's assignor balances (§10): the stateful actives until no pair of clients passes
    ``shouldMoveATask`` (steps 1–2); then actives + standbys, moving standbys, until no pair passes it
    with a standby the destination does not hold (step 3); then each stateless task goes to the client
    with the lowest ``activeTaskLoad`` (step 7), so a client holding a stateless task had, one task
    earlier, no more active load than any other client has at the end. With rack tags
    (``rackAwareAssignmentTags``) a standby moves only between clients whose tags match (§11). With
    capacity 1 everywhere, Kafka's test assertions are added (§12): active loads, and without rack tags
    stateful task loads, differ by at most 1."""
    stateful, stateless = _task_ids(group)
    stateful_set, stateless_set = set(stateful), set(stateless)
    cap = {c["processId"]: c.get("capacity", 1) for c in group["clients"]}
    clients = result["clients"]
    why = []
    sa = {c["processId"]: sum(1 for t in c["active"] if t in stateful_set) for c in clients}
    tot = {c["processId"]: sa[c["processId"]] + len(c["standby"]) + len(c["warmup"]) for c in clients}
    held = {c["processId"]: set(c["active"]) | set(c["standby"]) | set(c["warmup"]) for c in clients}
    standby = {c["processId"]: set(c["standby"]) | set(c["warmup"]) for c in clients}
    act = {c["processId"]: len(c["active"]) for c in clients}
    tagged = bool(group.get("configs", {}).get("rackAwareAssignmentTags"))
    tags = {c["processId"]: c.get("clientTags", {}) for c in group["clients"]}

    def standby_move_allowed(s: str, d: str) -> bool:
        """The tag-aware standby assignor's movement rule (§11): every tag of the source, same on the destination."""
        return not tagged or all(tags[d].get(k) == v for k, v in tags[s].items())

    for s, s_cap in cap.items():
        for d, d_cap in cap.items():
            if s == d:
                continue
            if _should_move(sa[s], s_cap, sa[d], d_cap):
                why.append(f"stateful actives: {s} ({sa[s]}/{s_cap}) could give one to {d} ({sa[d]}/{d_cap})")
            if _should_move(tot[s], s_cap, tot[d], d_cap) and standby[s] - held[d] and standby_move_allowed(s, d):
                why.append(f"stateful tasks: {s} ({tot[s]}/{s_cap}) could give a standby to {d} ({tot[d]}/{d_cap})")
    for c in clients:
        s = c["processId"]
        if set(c["active"]) & stateless_set:
            for d, d_cap in cap.items():
                if d != s and (act[s] - 1) / cap[s] > act[d] / d_cap:
                    why.append(
                        f"stateless: {s} ({act[s]}/{cap[s]} active) holds one that {d} "
                        f"({act[d]}/{d_cap}) should have had"
                    )
    if all(v == 1 for v in cap.values()) and clients:
        if max(act.values()) - min(act.values()) > 1:
            why.append(f"active loads differ by more than 1: {sorted(act.values())}")
        if not tagged and max(tot.values()) - min(tot.values()) > 1:
            why.append(f"stateful loads differ by more than 1: {sorted(tot.values())}")
    return why


def check_round(group: Json, result: Json) -> list[str]:
    """The guarantees of one round (issue #19), from the JSON group and result; empty when all hold.

    - every task active on exactly one client; stateless tasks held once; no client holds a task twice;
      every stateful task has exactly ``min(numStandbyReplicas, clients − 1)`` standbys, none on its
      active's client (warmups are listed apart);
    - no stateful active on a client that is not caught up while a caught-up client exists;
    - at most ``maxWarmupReplicas`` warmups in all;
    - without a probing rebalance: no warmups, and balanced (:func:`is_balanced`)."""
    configs = group.get("configs", {})
    stateful, stateless = _task_ids(group)
    stateful_set = set(stateful)
    clients = result["clients"]
    why: list[str] = []
    actives = Counter(t for c in clients for t in c["active"])
    missing = (stateful_set | set(stateless)) - set(actives)
    if missing:
        why.append(f"tasks without an active: {sorted(missing)}")
    why += [f"task {t} active on {n} clients" for t, n in sorted(actives.items()) if n != 1]
    k = min(configs.get("numStandbyReplicas", 0), len(clients) - 1)
    standbys: Counter = Counter()
    warmups = 0
    for c in clients:
        held = c["active"] + c["standby"] + c["warmup"]
        if len(held) != len(set(held)):
            why.append(f"{c['processId']} holds a task twice")
        extra = (set(c["standby"]) | set(c["warmup"])) - stateful_set
        if extra:
            why.append(f"{c['processId']} holds stateless or unknown tasks as standby/warmup: {sorted(extra)}")
        standbys.update(c["standby"])
        warmups += len(c["warmup"])
    why += [f"task {t} has {standbys[t]} standbys, expected {k}" for t in stateful if standbys[t] != k]
    caught = _caught_up(group)
    for c in clients:
        for t in c["active"]:
            if t in stateful_set and caught[t] and c["processId"] not in caught[t]:
                why.append(f"task {t} active on {c['processId']}, not caught up, while {sorted(caught[t])} are")
    max_warmups = configs.get("maxWarmupReplicas", 2)
    if warmups > max_warmups:
        why.append(f"{warmups} warmups, more than maxWarmupReplicas {max_warmups}")
    if not result["probingRebalanceNeeded"]:
        if warmups:
            why.append(f"no probing rebalance asked for, yet {warmups} warmups")
        why += is_balanced(group, result)
    return why


def restores_started(group: Json, result: Json) -> int:
    """Stateful copies (active, standby or warmup) given to a client not caught up on them."""
    caught = _caught_up(group)
    return sum(
        1
        for c in result["clients"]
        for t in c["active"] + c["standby"] + c["warmup"]
        if t in caught and c["processId"] not in caught[t]
    )


# --- scenarios -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """One seeded scenario: its kind and seed determine everything else."""

    seed: int
    kind: str


def make_scenario(seed: int, kind: str | None = None) -> Scenario:
    return Scenario(seed, kind or KINDS[seed % len(KINDS)])


def scenarios(count: int = DEFAULT_SCENARIOS, start: int = 0) -> list[Scenario]:
    """Seeds ``start .. start + count − 1``, the four kinds in turn."""
    return [make_scenario(s) for s in range(start, start + count)]


@dataclass
class ScenarioResult:
    scenario: Scenario
    assignor: str
    rounds: int = 0
    convergences: int = 0
    restores: int = 0
    seconds: float = 0.0
    violations: list[str] = field(default_factory=list)


CAPACITIES = (1, 5)


def _build(scenario: Scenario, assignor: str) -> tuple[random.Random, Cluster, dict]:
    rng = random.Random(scenario.seed)
    if scenario.kind == "scale_out_one":
        size = rng.randint(2, 9)
        num_stateless = rng.randint(0, 10)
        num_stateful = rng.randint(1, 40)
        max_warmups = 1
        num_standby = rng.randint(2, 3)
        capacities = (1, 1)
    else:
        size = rng.randint(1, 10) if scenario.kind != "scale_in" else rng.randint(2, 10)
        num_stateless = rng.randint(0, 10)
        num_stateful = rng.randint(1, 20)
        max_warmups = rng.randint(1, 3)
        num_standby = rng.randint(0, 3)
        capacities = CAPACITIES
    cluster = Cluster.random(rng, size, num_stateless, num_stateful, max_warmups, num_standby, assignor, capacities)
    params = {"size": size, "stateful": num_stateful, "standby": num_standby, "capacities": capacities}
    return rng, cluster, params


def run_scenario(scenario: Scenario, assignor: str, check_progress: bool | None = None) -> ScenarioResult:
    """Run one scenario on ``assignor``: the rounds, restores and time counted are those after the
    scenario's event(s) (for ``fresh``, the first assignment itself); every round is checked, and with
    ``check_progress`` (the default for ``high_availability_fast``) so is the progress measure after every
    probing round and each convergence's rounds against :func:`round_bound`."""
    rng, cluster, params = _build(scenario, assignor)
    out = ScenarioResult(scenario, assignor)
    event_limit = 2 * (params["stateful"] + params["stateful"] * params["standby"])
    progress = assignor == FAST if check_progress is None else check_progress

    def note(message: str) -> None:
        out.violations.append(f"seed {scenario.seed} ({scenario.kind}, {assignor}): {message}")

    def converge(limit: int, counted: bool) -> bool:
        before: tuple[Json, tuple] | None = None
        for rounds in range(1, limit + 1):
            group, result, seconds = cluster.rebalance()
            for v in check_round(group, result):
                note(v)
            if progress:
                measure = progress_measure(group)
                if before is not None:
                    why = progress_made(before[0], before[1], measure)
                    if why:
                        note(f"round {rounds}: {why}")
                before = (group, measure)
            if counted:
                out.rounds += 1
                out.restores += restores_started(group, result)
                out.seconds += seconds
            if not result["probingRebalanceNeeded"]:
                if counted:
                    out.convergences += 1
                if progress and rounds > round_bound(group):
                    note(f"{rounds} rounds, more than the bound {round_bound(group)}")
                return True
        note(f"no convergence within {limit} rounds")
        return False

    if scenario.kind == "fresh":
        converge(1, True)
        return out
    if scenario.kind == "scale_out_one":
        cluster.assignor = "high_availability"
        ok = converge(1, False)
        cluster.assignor = assignor
        if ok:
            cluster.add_client()
            converge(event_limit, True)
        return out
    if not converge(1, False):
        return out
    size, capacities = params["size"], params["capacities"]
    if scenario.kind == "scale_out":
        for _ in range(rng.randint(1, size)):
            cluster.add_client(rng.randint(*capacities))
        converge(event_limit, True)
    elif scenario.kind == "scale_in":
        cluster.drop_random(rng, rng.randint(1, size - 1))
        converge(event_limit, True)
    else:
        for _ in range(rng.randint(1, 10)):
            roll = rng.randrange(3)
            if roll == 0:
                cluster.drop_random(rng, rng.randrange(size))
            elif roll == 1:
                cluster.add_or_resurrect(rng, rng.randrange(size), capacities)
            elif cluster.live:
                pid = sorted(cluster.live)[rng.randrange(len(cluster.live))]
                cluster.capacity[pid] = rng.randint(*capacities)
            if cluster.live and not converge(event_limit, True):
                break
    return out


def issue_28_cluster() -> Cluster:
    """Issue #28's group before its scale-out: 9 clients of capacity 1, 190 tasks (152 stateful) in
    subtopologies of 5 partitions as in Kafka's fixed tests, 2 standbys, 1 warmup, acceptable lag 100;
    to be converged by Kafka's assignor (the cluster's), then joined by a tenth client."""
    cluster = Cluster(
        [],
        [],
        {
            "acceptableRecoveryLag": ACCEPTABLE_LAG,
            "maxWarmupReplicas": 1,
            "numStandbyReplicas": 2,
            "probingRebalanceIntervalMs": 60000,
        },
    )
    sub = 0
    for tasks, count in ((cluster.stateless, 38), (cluster.stateful, 152)):
        while count > 0:
            tasks.extend(f"{sub}_{p}" for p in range(min(count, 5)))
            count -= 5
            sub += 1
    for _ in range(9):
        cluster.add_client()
    return cluster


def compare(
    items: Iterable[Scenario],
    assignors: tuple[str, ...] = ("high_availability", FAST),
    check_progress: bool | None = None,
) -> dict[str, list[ScenarioResult]]:
    """Every scenario on every assignor, interleaved: scenario by scenario, the assignors in turn (their
    order reversed every other scenario), so that time measured on a busy machine is paired."""
    out: dict[str, list[ScenarioResult]] = {a: [] for a in assignors}
    for i, scenario in enumerate(items):
        for a in assignors if i % 2 == 0 else assignors[::-1]:
            out[a].append(run_scenario(scenario, a, check_progress))
    return out


# --- the progress measure of high_availability_fast (issue #28) ------------------------------------------


def round_bound(group: Json) -> int:
    """The most rounds ``high_availability_fast`` may take to converge after an event, the last
    (non-probing) round included, for the group as it stands: ``ceil(T / W) + ceil(T · k / W) + 2`` with T
    stateful tasks, W = maxWarmupReplicas and k = min(numStandbyReplicas, clients − 1) (derived in
    :mod:`codec.assignor.high_availability_fast`)."""
    configs = group.get("configs", {})
    stateful, _ = _task_ids(group)
    w = configs.get("maxWarmupReplicas", 2)
    k = min(configs.get("numStandbyReplicas", 0), len(group["clients"]) - 1)
    return -(-len(stateful) // w) + -(-len(stateful) * k // w) + 2


def progress_measure(group: Json) -> tuple[int, int | None]:
    """(Φ_A, Ψ) of the group state, as :mod:`codec.assignor.high_availability_fast` defines them (None for
    Ψ = ∞): the fewest actives off caught-up clients over all balanced active placements, then, when the
    previous actives are complete, caught up and balanced, the fewest standbys off caught-up clients over
    all balanced placements beside them. Computed from the JSON group alone by minimum-cost flows (this
    module's own, not the assignor's). Ψ is left out (None) while Φ_A > 0, where it decides nothing."""
    stateful, _ = _task_ids(group)
    caught = _caught_up(group)
    clients = group["clients"]
    pids = [c["processId"] for c in clients]
    caps = [c.get("capacity", 1) for c in clients]
    edges = [[i for i, pid in enumerate(pids) if pid in caught[t]] for t in stateful]
    phi = _fewest_active_misses(caps, edges)
    if phi:
        return phi, None
    return phi, _fewest_standby_misses(group, stateful, caught, pids, caps, edges)


def progress_made(group: Json, before: tuple, after: tuple) -> str:
    """Why the measure did not fall as promised from ``before`` (the state ``group`` a probing round left)
    to ``after``; empty when it did: Φ_A by at least min(W, Φ_A) while Φ_A > 0; else Ψ from ∞ to finite, or
    by at least min(W, Ψ)."""
    w = group.get("configs", {}).get("maxWarmupReplicas", 2)
    (phi, psi), (phi2, psi2) = before, after
    if phi > 0:
        return "" if phi2 <= phi - min(w, phi) else f"Φ_A {phi} -> {phi2}, not down by min(W={w}, {phi})"
    if phi2 > 0:
        return f"Φ_A rose from 0 to {phi2}"
    if psi2 is None:
        return f"Ψ {'∞' if psi is None else psi} -> ∞"
    if psi is None or psi2 <= psi - min(w, psi):
        return ""
    return f"Ψ {psi} -> {psi2}, not down by min(W={w}, {psi})"


def _bands(caps: list[int], units: int, limit: int) -> list[tuple[list[int], list[int], int]]:
    """Every band of balanced counts (lo, hi, how many at hi): counts ``min(floor(λ c), limit)`` or one more,
    over every level λ = j / c where a band can change, from one below every band (there the counts sum
    to at most ``units`` − clients) up to where they sum past ``units``."""
    low = Fraction(max(0, units - 2 * len(caps)), sum(caps))
    levels = sorted(
        {low} | {Fraction(j, c) for c in set(caps) for j in range(math.floor(low * c), (limit + 1) * c + 1)}
    )
    seen: dict[tuple[int, ...], list[int]] = {}
    for level in levels:
        lo = tuple(min(math.floor(level * c), limit) for c in caps)
        if sum(lo) > units:
            break
        hi = [min(x + 1, limit) for x in lo]
        if units <= sum(hi) and lo not in seen:
            seen[lo] = hi
    return [(list(lo), hi, units - sum(lo)) for lo, hi in seen.items()]


def _fewest_active_misses(caps: list[int], edges: list[list[int]]) -> int:
    n, m = len(edges), len(caps)
    reachable = sum(1 for e in edges if e)
    best = 0
    for lo, hi, extra in _bands(caps, n, n):
        net = _Network(n + m + 3)
        src, pool, snk = n + m, n + m + 1, n + m + 2
        for j, cs in enumerate(edges):
            net.arc(src, j, 1)
            for i in cs:
                net.arc(j, n + i, 1)
        for i in range(m):
            net.arc(n + i, snk, lo[i])
            net.arc(n + i, pool, hi[i] - lo[i])
        net.arc(pool, snk, extra)
        best = max(best, net.min_cost_flow(src, snk)[0])
        if best == reachable:
            break
    return n - best


def _fewest_standby_misses(
    group: Json, stateful: list[str], caught: dict, pids: list[str], caps: list[int], edges: list[list[int]]
) -> int | None:
    n, m = len(stateful), len(pids)
    owners: dict[str, list[int]] = {t: [] for t in stateful}
    for i, c in enumerate(group["clients"]):
        for t in c.get("prevActive", []):
            if t in owners:
                owners[t].append(i)
    if any(len(o) != 1 or o[0] not in edges[j] for j, o in enumerate(owners.values())):
        return None
    owner = [owners[t][0] for t in stateful]
    actives = [owner.count(i) for i in range(m)]
    if any(_should_move(actives[a], caps[a], actives[b], caps[b]) for a in range(m) for b in range(m) if a != b):
        return None
    k = min(group.get("configs", {}).get("numStandbyReplicas", 0), m - 1)
    if k == 0:
        return 0
    floor = sum(max(0, k - sum(1 for i in cs if i != owner[j])) for j, cs in enumerate(edges))
    best = None
    for lo, hi, extra in _bands(caps, n * (k + 1), n):
        if any(a > h for a, h in zip(actives, hi)):
            continue
        pool_places = extra - sum(1 for a, x in zip(actives, lo) if a > x)
        if pool_places < 0:
            continue
        net = _Network(n + m + 3)
        src, pool, snk = n + m, n + m + 1, n + m + 2
        for j in range(n):
            net.arc(src, j, k)
            for i in range(m):
                if i != owner[j]:
                    net.arc(j, n + i, 1, 0 if i in edges[j] else 1)
        for i in range(m):
            if actives[i] <= lo[i]:
                net.arc(n + i, snk, lo[i] - actives[i])
                net.arc(n + i, pool, hi[i] - lo[i])
        net.arc(pool, snk, pool_places)
        flow, cost = net.min_cost_flow(src, snk)
        if flow == n * k and (best is None or cost < best):
            best = cost
            if best == floor:
                break
    return best


class _Network:
    """A small flow network: minimum-cost maximum flow by the primal-dual method (Dijkstra on reduced
    costs, then a blocking flow over the arcs of reduced cost 0, phase after phase)."""

    def __init__(self, size: int) -> None:
        self.adj: list[list[int]] = [[] for _ in range(size)]
        self.to: list[int] = []
        self.cap: list[int] = []
        self.cost: list[int] = []

    def arc(self, u: int, v: int, cap: int, cost: int = 0) -> None:
        for a, b, c, w in ((u, v, cap, cost), (v, u, 0, -cost)):
            self.adj[a].append(len(self.to))
            self.to.append(b)
            self.cap.append(c)
            self.cost.append(w)

    def min_cost_flow(self, s: int, t: int) -> tuple[int, int]:
        size = len(self.adj)
        potential = [0] * size
        flow = cost = 0
        while True:
            dist = self._dijkstra(s, potential)
            if dist[t] == math.inf:
                return flow, cost
            # dist[t] is finite here, so each min is an int (dist holds ints and math.inf)
            potential = [p + int(min(d, dist[t])) for p, d in zip(potential, dist)]
            pushed = self._blocking_flows(s, t, potential)
            flow += pushed
            cost += pushed * (potential[t] - potential[s])

    def _dijkstra(self, s: int, potential: list[int]) -> list[float]:
        dist = [math.inf] * len(self.adj)
        dist[s] = 0
        heap = [(0, s)]
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist[u]:
                continue
            for e in self.adj[u]:
                if self.cap[e] > 0:
                    v = self.to[e]
                    nd = d + self.cost[e] + potential[u] - potential[v]
                    if nd < dist[v]:
                        dist[v] = nd
                        heapq.heappush(heap, (nd, v))
        return dist

    def _admissible(self, e: int, u: int, potential: list[int]) -> bool:
        return self.cap[e] > 0 and self.cost[e] + potential[u] - potential[self.to[e]] == 0

    def _blocking_flows(self, s: int, t: int, potential: list[int]) -> int:
        """Dinic's algorithm over the arcs of reduced cost 0 (every path of them is a shortest path)."""
        pushed = 0
        while True:
            level = {s: 0}
            queue = deque([s])
            while queue:
                u = queue.popleft()
                for e in self.adj[u]:
                    if self._admissible(e, u, potential) and self.to[e] not in level:
                        level[self.to[e]] = level[u] + 1
                        queue.append(self.to[e])
            if t not in level:
                return pushed
            nxt = dict.fromkeys(level, 0)
            while got := self._augment(s, t, math.inf, potential, level, nxt):
                pushed += got

    def _augment(self, u: int, t: int, limit: float, potential: list[int], level: dict, nxt: dict) -> int:
        if u == t:
            return int(limit)
        while nxt[u] < len(self.adj[u]):
            e = self.adj[u][nxt[u]]
            v = self.to[e]
            if self._admissible(e, u, potential) and level.get(v) == level[u] + 1:
                got = self._augment(v, t, min(limit, self.cap[e]), potential, level, nxt)
                if got:
                    self.cap[e] -= got
                    self.cap[e ^ 1] += got
                    return got
            nxt[u] += 1
        return 0


def summarize(results: list[ScenarioResult]) -> dict[str, Any]:
    """Totals and per-kind median/max rounds, restores and assign() time of one assignor's results."""

    def block(rs: list[ScenarioResult]) -> dict[str, Any]:
        rounds = [r.rounds for r in rs]
        return {
            "scenarios": len(rs),
            "rounds": sum(rounds),
            "rounds_median": statistics.median(rounds) if rounds else 0,
            "rounds_max": max(rounds, default=0),
            "restores": sum(r.restores for r in rs),
            "seconds": sum(r.seconds for r in rs),
            "violations": sum(len(r.violations) for r in rs),
        }

    out = block(results)
    out["kinds"] = {k: block([r for r in results if r.scenario.kind == k]) for k in KINDS}
    return out
