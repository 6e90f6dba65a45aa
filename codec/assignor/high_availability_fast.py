"""``high_availability_fast``: KIP-441's guarantees in fewer probing rounds (issues #19, #28).

Kafka's ``HighAvailabilityTaskAssignor`` (:mod:`codec.assignor.high_availability`) decides a
*state-blind* desired placement every round (tasks dealt round-robin, then balanced) and moves
towards it with at most ``max.warmup.replicas`` warmups per round. After a scale event the
state-blind deal lands most tasks somewhere new, so most of them have to be warmed up, a few per
round. This assignor plans a *state-aware* target instead, the balanced placement that needs the
fewest copies restored, and walks towards it.

**Balanced.** Kafka's ``shouldMoveATask`` moves a task from client *a* to *b* exactly when
``(n_a - 1) / c_a >= (n_b + 1) / c_b`` (counts *n*, capacities *c*), so counts are balanced exactly
when some level λ puts every client at ``floor(λ c)`` or ``floor(λ c) + 1`` (:func:`balanced_bands`
lists the distinct bands; a client that holds every task, ``n_c`` = tasks, is exempt from the lower
end, as nothing can move to it). The stateful actives must be balanced, and so must actives +
standbys.

**The target** (:func:`plan_target`), with n stateful tasks, k = min(``num.standby.replicas``,
clients − 1) and "caught up" as Kafka defines it (§10):

1. *Actives.* If every task's previous active is live and caught up and their counts are balanced,
   they stay. Otherwise, over every band of balanced active counts, a maximum flow keeps the most
   tasks on caught-up clients (previous actives first, then any caught-up copy: a standby promoted
   in place); the rest go to clients the band still needs to fill, the least lagging first.
2. *Standbys.* Over every band of balanced totals (given the actives), a minimum-cost flow places k
   standbys per task on distinct clients other than its active's, a copy on a caught-up client
   costing 0 and any other 1: a maximum flow over the caught-up copies, then successive shortest
   paths (a direct placement where a client has room, else a path found by Bellman-Ford through the
   copies already placed). With rack tags (``rack.aware.assignment.tags``) Kafka's tag-aware
   standby assignor places them instead; with k = clients − 1 every client holds every task.
3. *This round.* An active goes to its target client when that client is caught up (or nobody is);
   otherwise it stays on a caught-up client (its previous one first). Standbys stay on caught-up
   clients until the target clients are caught up; target copies that are not caught up get the
   warmups, active targets first. Every target copy on a caught-up client is held this round.
4. *Stateless tasks* are placed last, as Kafka does (lowest ``activeTaskLoad``).

``probingRebalanceNeeded`` is true exactly when this round's assignment differs from the target.

**Progress** (the model of Kafka's ``TaskAssignorConvergenceTest``: no membership or capacity change
between rounds; a copy held in one round is caught up in the next). Over a group state *G* let

- Φ_A(G) = the fewest actives on clients not caught up on them, over all balanced active placements;
- Ψ(G) = when the previous actives are complete (one live, caught-up previous active per task) and
  balanced: the fewest standbys on clients not caught up on them, over all placements of k standbys
  per task (distinct clients, none on the task's active client) whose totals with those actives are
  balanced; otherwise ∞.

The target achieves Φ_A(G) (a maximum flow), and when Ψ(G) < ∞ it keeps the previous actives and
achieves Ψ(G) (a minimum-cost flow). Every probing round strictly decreases (Φ_A, Ψ)
lexicographically, whatever target the next round picks, because each measure is a minimum over a
family of placements that does not depend on the state:

- Φ_A(G) > 0: the target's actives on caught-up clients are held and stay caught up; its other
  actives are placed directly (no caught-up client exists) or get the warmups first. So next round
  the same placement has at least min(W, Φ_A(G)) fewer actives off caught-up clients, W =
  ``max.warmup.replicas``, and Φ_A, a minimum over placements that include it, falls by as much.
- Φ_A(G) = 0 and Ψ(G) = ∞: the target's actives are all caught up and are this round's actives, so
  next round they are complete, caught up and balanced: Φ_A stays 0 and Ψ becomes finite.
- Φ_A(G) = 0 and Ψ(G) < ∞: the actives stay; a probing round leaves some target standby unheld, and
  by the same argument as for actives Ψ falls by at least min(W, Ψ(G)).

A round with (Φ_A, Ψ) = (0, 0) holds its target exactly and asks for no probing rebalance. With rack
tags the standby target is Kafka's tag-aware placement over the actives, a function of the actives and
the clients alone: once the actives stay, it stays too, and its standbys off caught-up clients fall by
at least min(W, ·) every probing round in the same way. (Should no band of totals be fillable beside the
actives, Kafka's own standby placement is used and the argument does not cover that round; it has not
happened in the harness's scenarios or the property tests.)

**Bound.** After an event, with T stateful tasks, C clients, S standbys and W warmups, the rounds
to convergence (the last, non-probing round included) are at most

    ceil(Φ_A / W) + 1 + ceil(Ψ₀ / W) + 1  <=  ceil(T / W) + ceil(T · min(S, C − 1) / W) + 2,

Φ_A taken after the event (<= T) and Ψ₀ when it first becomes finite (<= T · k): rounds with
Φ_A > 0, at most one round at (0, ∞), rounds with Ψ > 0, and the final round
(:func:`codec.assignor.convergence.round_bound`; the convergence harness checks both the per-round
decrease and this bound). Kafka's test allows its own assignor 2 (T + T · S).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter, deque
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

from codec.types import TaskId

from .balance import balance_tasks_over_threads
from .flow import MaxFlow
from .high_availability import _assign_stateless
from .model import AssignmentConfigs
from .standby import DefaultStandbyAssignor, standby_assignor_for
from .state import ClientState, LagIndex

__all__ = ["Band", "HighAvailabilityFastTaskAssignor", "Target", "balanced_bands", "counts_balanced", "plan_target"]


@dataclass(frozen=True)
class Band:
    """Balanced counts at one level λ: client i holds ``lo[i]`` or ``hi[i]`` (at most ``lo[i] + 1``),
    and exactly ``extra`` clients hold ``hi[i] > lo[i]``."""

    level: Fraction
    lo: tuple[int, ...]
    hi: tuple[int, ...]
    extra: int


def balanced_bands(capacities: list[int], units: int, limit: int) -> list[Band]:
    """Every distinct band of balanced counts summing to ``units`` (at most ``limit`` per client), by
    increasing level: at level λ client i holds ``min(floor(λ c_i), limit)`` or one more (capped at
    ``limit``). The bands change only where some ``λ c_i`` crosses an integer, so the walk goes from
    one such breakpoint to the next (clients of one capacity move together); at most clients + 1 bands
    sum around ``units``."""
    n = len(capacities)
    size = Counter(capacities)
    level = Fraction(max(0, units - 2 * n), sum(capacities))  # below every band: sum(hi) <= units - n
    floors = {c: min(math.floor(level * c), limit) for c in size}
    heap = [(Fraction(f + 1, c), c) for c, f in floors.items() if f < limit]
    heapq.heapify(heap)
    total = sum(floors[c] * k for c, k in size.items())
    bands: list[Band] = []
    while total <= units:
        if units <= sum(min(floors[c] + 1, limit) * k for c, k in size.items()):
            lo = tuple(floors[c] for c in capacities)
            bands.append(Band(level, lo, tuple(min(f + 1, limit) for f in lo), units - total))
        if not heap:
            break
        level = heap[0][0]
        while heap and heap[0][0] == level:
            _, c = heapq.heappop(heap)
            floors[c] += 1
            total += size[c]
            if floors[c] < limit:
                heapq.heappush(heap, (Fraction(floors[c] + 1, c), c))
    return bands


def counts_balanced(counts: list[int], capacities: list[int]) -> bool:
    """True when no pair passes Kafka's ``shouldMoveATask``: ``(n_a - 1) / c_a < (n_b + 1) / c_b`` for
    every a and b (a = b holds trivially)."""
    return not counts or max(Fraction(n - 1, c) for n, c in zip(counts, capacities)) < min(
        Fraction(n + 1, c) for n, c in zip(counts, capacities)
    )


@dataclass
class Target:
    """The planned placement: ``owner[j]`` is the client index of task j's active, ``standbys[j]``
    those of its standbys (tasks and clients in the order given to :func:`plan_target`)."""

    owner: list[int]
    standbys: list[list[int]]


@dataclass
class _Group:
    clients: list[ClientState]
    tasks: list[TaskId]
    caps: list[int]
    caught: list[list[int]]  # task j -> client indices caught up on it, UUID order
    cu: list[set[int]]
    lags: LagIndex

    @property
    def n(self) -> int:
        return len(self.tasks)


class HighAvailabilityFastTaskAssignor:
    """State-aware balanced target, reached with warmups; see the module documentation."""

    name = "high_availability_fast"

    def __init__(self, exact_java_queue: bool = False) -> None:
        del exact_java_queue  # no Java queue to replay: the target's tie-breaks are our own

    def assign(
        self,
        clients: list[ClientState],
        all_tasks: list[TaskId],
        stateful: list[TaskId],
        lags: LagIndex,
        configs: AssignmentConfigs,
    ) -> bool:
        """Fill ``clients`` (in Java UUID order) and return ``probingRebalanceNeeded``."""
        stateful = sorted(stateful)
        target = plan_target(clients, stateful, lags, configs)
        k = min(configs.num_standby_replicas, len(clients) - 1)
        probing = _realize(clients, stateful, target, lags, k, configs.max_warmup_replicas)
        stateful_set = set(stateful)
        _assign_stateless(clients, sorted(t for t in all_tasks if t not in stateful_set))
        return probing


def plan_target(
    clients: list[ClientState], stateful: list[TaskId], lags: LagIndex, configs: AssignmentConfigs
) -> Target:
    """The target of this round (module documentation, steps 1 and 2); leaves ``clients`` untouched."""
    index = {c: i for i, c in enumerate(clients)}
    caught = [[index[c] for c in lags.caught_up_clients(t)] for t in stateful]
    g = _Group(clients, stateful, [c.capacity for c in clients], caught, [set(cs) for cs in caught], lags)
    owner = _plan_actives(g)
    k = min(configs.num_standby_replicas, len(clients) - 1)
    if k == 0:
        standbys: list[list[int]] = [[] for _ in stateful]
    elif k == len(clients) - 1:
        standbys = [[i for i in range(len(clients)) if i != o] for o in owner]
    elif configs.rack_aware_assignment_tags:
        standbys = _kafka_standbys(g, owner, k, configs.rack_aware_assignment_tags)
    else:
        standbys = _plan_standbys(g, owner, k)
    return Target(owner, standbys)


# --- actives ---------------------------------------------------------------------------------------------


def _previous_actives(g: _Group) -> list[int | None]:
    """Task j's previous active if it is live, caught up and the only one; else None."""
    prev: list[int | None] = [None] * g.n
    seen = [0] * g.n
    position = {t: j for j, t in enumerate(g.tasks)}
    for i, c in enumerate(g.clients):
        for t in c.prev_active:
            j = position.get(t)
            if j is not None:
                seen[j] += 1
                if i in g.cu[j]:
                    prev[j] = i
    return [p if s == 1 else None for p, s in zip(prev, seen)]


def _plan_actives(g: _Group) -> list[int]:
    """Task j -> its target client: the previous actives when they are complete and balanced, else the
    band whose maximum flow keeps the most tasks on caught-up clients (then the most on their previous
    client; then the lowest level)."""
    if not g.n:
        return []
    prev = _previous_actives(g)
    complete = [p for p in prev if p is not None]
    if len(complete) == len(prev):
        counts = [0] * len(g.clients)
        for p in complete:
            counts[p] += 1
        if counts_balanced(counts, g.caps):
            return complete
    best: tuple[tuple[int, int], list[int]] | None = None
    upper = (sum(1 for cs in g.caught if cs), sum(1 for p in prev if p is not None))
    for band in balanced_bands(g.caps, g.n, g.n):
        owner = _actives_in_band(g, band, prev)
        score = (sum(1 for j, i in enumerate(owner) if i in g.cu[j]), sum(1 for i, p in zip(owner, prev) if i == p))
        if best is None or score > best[0]:
            best = (score, owner)
        if score == upper:
            break
    assert best is not None  # units <= clients x limit: some band exists
    return best[1]


class _Slots:
    """Room per client in a band: ``base[i]`` places for sure, plus one more where ``opt[i]`` for as many
    clients as ``pool`` (the places left among those extra ones) allows."""

    def __init__(self, base: list[int], opt: list[int], pool: int) -> None:
        self.base = base
        self.opt = opt
        self.pool = pool
        self.used = [0] * len(base)
        self.pooled = [False] * len(base)
        self.short = sum(base)  # base places still empty

    def room(self, i: int) -> bool:
        return self.used[i] < self.base[i] or (self.opt[i] > 0 and not self.pooled[i] and self.pool > 0)

    def take(self, i: int) -> None:
        if self.used[i] < self.base[i]:
            self.used[i] += 1
            self.short -= 1
        else:
            self.pooled[i] = True
            self.pool -= 1

    def count(self, i: int) -> int:
        return self.used[i] + self.pooled[i]


def _actives_in_band(g: _Group, band: Band, prev: list[int | None]) -> list[int]:
    """Greedy (previous actives, then the least-loaded caught-up client), a maximum flow over the
    caught-up copies for the rest, then the tasks left to the clients the band still needs."""
    slots = _Slots(list(band.lo), [h - lo for h, lo in zip(band.hi, band.lo)], band.extra)
    owner = [-1] * g.n
    order = sorted(range(g.n), key=lambda j: (len(g.caught[j]), j))
    for j in order:
        p = prev[j]
        if p is not None and slots.room(p):
            slots.take(p)
            owner[j] = p
    for j in order:
        if owner[j] < 0 and g.caught[j]:
            best = min(
                (i for i in g.caught[j] if slots.room(i)), default=None, key=lambda i: (slots.count(i) / g.caps[i], i)
            )
            if best is not None:
                slots.take(best)
                owner[j] = best
    if sum(1 for i in owner if i >= 0) < sum(1 for cs in g.caught if cs):
        placed = _max_flow(g, [1] * g.n, g.caught, [[i] if i >= 0 else [] for i in owner], slots)
        owner = [p[0] if p else -1 for p in placed]
    _fill_actives(g, owner, slots)
    return owner


def _max_flow(
    g: _Group, demand: list[int], edges: list[list[int]], placed: list[list[int]], slots: _Slots
) -> list[list[int]]:
    """``placed`` (task j -> clients, within ``slots``) completed to a maximum flow in which task j takes
    up to ``demand[j]`` clients among ``edges[j]``; ``slots`` is updated to the places used."""
    n, m = g.n, len(g.clients)
    src, pool, snk = n + m, n + m + 1, n + m + 2
    net = MaxFlow(n + m + 3)
    src_arc = [net.add(src, j, demand[j]) for j in range(n)]
    arcs = [{i: net.add(j, n + i, 1) for i in edges[j]} for j in range(n)]
    base_arc = [net.add(n + i, snk, slots.base[i]) for i in range(m)]
    pool_arc = [net.add(n + i, pool, slots.opt[i]) for i in range(m)]
    pool_total = slots.pool + sum(slots.pooled)
    pool_snk = net.add(pool, snk, pool_total)
    for j in range(n):
        for i in placed[j]:
            net.push(src_arc[j])
            net.push(arcs[j][i])
    for i in range(m):
        net.push(base_arc[i], slots.used[i])
        if slots.pooled[i]:
            net.push(pool_arc[i])
            net.push(pool_snk)
    net.run(src, snk)
    slots.used = [net.flow(base_arc[i]) for i in range(m)]
    slots.short = sum(slots.base) - sum(slots.used)
    slots.pooled = [net.flow(pool_arc[i]) > 0 for i in range(m)]
    slots.pool = pool_total - sum(slots.pooled)
    return [[i for i, e in arcs[j].items() if net.flow(e)] for j in range(n)]


def _fill_actives(g: _Group, owner: list[int], slots: _Slots) -> None:
    """The tasks the flow left without a caught-up client go where the band still needs them: clients
    below their base count first (a band's extra place may be taken only while enough tasks are left for
    those), the least lagging (by reported lag) and then the least loaded first."""
    rest = [j for j in range(g.n) if owner[j] < 0]
    if not rest:
        return
    reported = _reported_lags(g, rest)
    heap = [(slots.count(i) / g.caps[i], i) for i in range(len(g.clients))]
    heapq.heapify(heap)
    for left, j in enumerate(rest):
        spare = len(rest) - left - 1 - slots.short  # tasks left over once the base places are full

        def fits(i: int, spare: int = spare) -> bool:
            return slots.used[i] < slots.base[i] or (spare >= 0 and slots.room(i))

        silent = g.lags.default_lag(g.tasks[j])
        best = min((e for e in reported[j] if e[0] < silent and fits(e[1])), default=None)
        i = best[1] if best is not None else _pop_least_loaded(heap, g, slots, fits)
        assert i >= 0  # the band holds exactly the tasks: some client always fits
        slots.take(i)
        owner[j] = i
        heapq.heappush(heap, (slots.count(i) / g.caps[i], i))


def _pop_least_loaded(heap: list, g: _Group, slots: _Slots, accept) -> int:
    """The least-loaded client passing ``accept`` (a lazy heap of (load, index) whose stale entries are
    dropped); -1 when there is none."""
    rejected = []
    found = -1
    while heap:
        load, i = heapq.heappop(heap)
        if load != slots.count(i) / g.caps[i]:
            continue
        if accept(i):
            found = i
            break
        rejected.append((load, i))
    for e in rejected:
        heapq.heappush(heap, e)
    return found


def _reported_lags(g: _Group, tasks: list[int]) -> dict[int, list[tuple]]:
    """(lag, client index) of every client that reported a lag on one of ``tasks``."""
    position = {g.tasks[j]: j for j in tasks}
    out: dict[int, list[tuple]] = {j: [] for j in tasks}
    for i, c in enumerate(g.clients):
        for t, lag in c.lags.items():
            j = position.get(t)
            if j is not None:
                out[j].append((lag, i))
    return out


# --- standbys --------------------------------------------------------------------------------------------


def _plan_standbys(g: _Group, owner: list[int], k: int) -> list[list[int]]:
    """Task j -> its k target standbys: the band of balanced totals whose minimum-cost placement puts the
    fewest standbys on clients not caught up (then keeps the most previous standbys; then the lowest
    level)."""
    m = len(g.clients)
    actives = [0] * m
    for i in owner:
        actives[i] += 1
    others = [[i for i in g.caught[j] if i != owner[j]] for j in range(g.n)]
    floor = sum(max(0, k - len(cs)) for cs in others)  # standbys no placement can put on a caught-up client
    best: tuple[tuple[int, int], list[list[int]]] | None = None
    for band in balanced_bands(g.caps, g.n * (k + 1), g.n):
        slots = _standby_slots(band, actives)
        placed = None if slots is None else _standbys_in_band(g, owner, k, others, slots)
        if placed is None:
            continue
        cost = sum(1 for j, cs in enumerate(placed) for i in cs if i not in g.cu[j])
        kept = sum(1 for j, cs in enumerate(placed) for i in cs if g.tasks[j] in g.clients[i].prev_standby)
        if best is None or (cost, -kept) < best[0]:
            best = ((cost, -kept), placed)
        if cost == floor:
            break
    if best is None:  # no band can be filled (not seen in practice): Kafka's own placement
        return _kafka_standbys(g, owner, k, ())
    return best[1]


def _standby_slots(band: Band, actives: list[int]) -> _Slots | None:
    """The standby places a band of totals leaves beside the target actives; None if they do not fit."""
    base, opt, pool = [], [], band.extra
    for lo, hi, a in zip(band.lo, band.hi, actives):
        if a > hi:
            return None
        if a > lo:  # the actives alone take this client's extra place
            base.append(0)
            opt.append(0)
            pool -= 1
        else:
            base.append(lo - a)
            opt.append(hi - lo)
    return _Slots(base, opt, pool) if pool >= 0 else None


def _standbys_in_band(
    g: _Group, owner: list[int], k: int, others: list[list[int]], slots: _Slots
) -> list[list[int]] | None:
    """A minimum-cost placement of k standbys per task within ``slots`` (None if there is none): caught-up
    copies greedily (previous standbys first) and completed to a maximum flow over caught-up copies, then
    successive shortest paths, each of the least cost left (module documentation, step 2)."""
    placed: list[list[int]] = [[] for _ in range(g.n)]
    order = sorted(range(g.n), key=lambda j: (len(g.caught[j]), j))
    for j in order:
        t = g.tasks[j]
        cands = sorted(others[j], key=lambda i: (t not in g.clients[i].prev_standby, slots.count(i) / g.caps[i], i))
        for i in cands:
            if len(placed[j]) == k:
                break
            if slots.room(i):
                slots.take(i)
                placed[j].append(i)
    if sum(map(len, placed)) < sum(min(k, len(cs)) for cs in others):
        placed = _max_flow(g, [k] * g.n, others, placed, slots)
    fill = _Fill(g, owner, k, placed, slots)
    fill.direct()
    while fill.missing:
        if not fill.repair():
            return None
        fill.direct()
    return placed


class _Fill:
    """Successive shortest paths over the standby placement (costs: a copy on a client caught up on it 0,
    any other 1; taking a copy back refunds its cost). After the maximum flow over caught-up copies no
    path costs 0, and path costs never fall, so a direct placement (cost 1) is always a shortest path."""

    def __init__(self, g: _Group, owner: list[int], k: int, placed: list[list[int]], slots: _Slots) -> None:
        self.g, self.owner, self.k, self.placed, self.slots = g, owner, k, placed, slots
        self.held: list[set[int]] = [set() for _ in g.clients]  # client -> tasks it holds as standby
        for j, cs in enumerate(placed):
            for i in cs:
                self.held[i].add(j)
        self.missing = {j: k - len(cs) for j, cs in enumerate(placed) if len(cs) < k}
        self._caught_on: list[list[int]] = [[] for _ in g.clients]  # client -> tasks it is caught up on
        for j, cs in enumerate(g.caught):
            for i in cs:
                self._caught_on[i].append(j)

    def _add(self, j: int, i: int) -> None:
        self.placed[j].append(i)
        self.held[i].add(j)

    def _remove(self, j: int, i: int) -> None:
        self.placed[j].remove(i)
        self.held[i].discard(j)

    def direct(self) -> None:
        """Each missing copy to the least-loaded client with room that may hold it (base places first)."""
        g, slots = self.g, self.slots
        heap = [
            (slots.used[i] >= slots.base[i], slots.count(i) / g.caps[i], i)
            for i in range(len(g.clients))
            if slots.room(i)
        ]
        heapq.heapify(heap)
        for j in sorted(self.missing):
            rejected = []
            while self.missing[j] and heap:
                entry = heapq.heappop(heap)
                i = entry[2]
                if not slots.room(i) or entry != (slots.used[i] >= slots.base[i], slots.count(i) / g.caps[i], i):
                    if slots.room(i):
                        heapq.heappush(heap, (slots.used[i] >= slots.base[i], slots.count(i) / g.caps[i], i))
                    continue
                if i == self.owner[j] or j in self.held[i]:
                    rejected.append(entry)
                    continue
                slots.take(i)
                self._add(j, i)
                self.missing[j] -= 1
                if slots.room(i):
                    heapq.heappush(heap, (slots.used[i] >= slots.base[i], slots.count(i) / g.caps[i], i))
            for e in rejected:
                heapq.heappush(heap, e)
        self.missing = {j: r for j, r in self.missing.items() if r}

    def repair(self) -> bool:
        """Apply one least-cost augmenting path; False when there is none (the band cannot be filled)."""
        path = self._one_new_copy_path() or self._bellman_ford_path()
        if path is None:
            return False
        self._apply(path)
        return True

    def _one_new_copy_path(self) -> list[int] | None:
        """A path of cost 1 that moves caught-up copies and makes one new copy (the usual shortest path once
        direct placements run out), found by two breadth-first searches over cost-0 arcs: forward from the
        tasks with missing copies, backward from the places left; None if there is none."""
        g, slots, n, m = self.g, self.slots, self.g.n, len(self.g.clients)
        pool_node = n + m
        before: dict[int, int] = {j: -1 for j in self.missing}
        queue = deque(self.missing)
        while queue:
            u = queue.popleft()
            if u < n:
                nxt = [n + i for i in g.caught[u] if i != self.owner[u] and u not in self.held[i]]
            elif u < pool_node:
                i = u - n
                nxt = [j for j in self.held[i] if i in g.cu[j]]
                if slots.opt[i] and not slots.pooled[i]:
                    nxt.append(pool_node)
            else:
                nxt = [n + i for i in range(m) if slots.pooled[i]]
            for v in nxt:
                if v not in before:
                    before[v] = u
                    queue.append(v)
        after: dict[int, int] = {n + i: -1 for i in range(m) if slots.used[i] < slots.base[i]}
        if slots.pool > 0:
            after[pool_node] = -1
        queue = deque(after)
        while queue:
            v = queue.popleft()
            if v < n:
                prev = [n + i for i in g.caught[v] if v in self.held[i]]
            elif v < pool_node:
                i = v - n
                prev = [j for j in self._caught_on[i] if j not in self.held[i] and self.owner[j] != i]
                if slots.pooled[i]:
                    prev.append(pool_node)
            else:
                prev = [n + i for i in range(m) if slots.opt[i] and not slots.pooled[i]]
            for u in prev:
                if u not in after:
                    after[u] = v
                    queue.append(u)
        targets = [i for i in range(m) if n + i in after]
        for t in (u for u in before if u < n):
            c = next((i for i in targets if i != self.owner[t] and t not in self.held[i]), None)
            if c is not None:
                head = [t]
                while before[head[-1]] >= 0:
                    head.append(before[head[-1]])
                tail = [n + c]
                while after[tail[-1]] >= 0:
                    tail.append(after[tail[-1]])
                return _without_cycles(head[::-1] + tail)
        return None

    def _bellman_ford_path(self) -> list[int] | None:
        """The least-cost augmenting path (Bellman-Ford, queue-based, through every arc); None if none."""
        g, slots, n, m = self.g, self.slots, self.g.n, len(self.g.clients)
        pool_node = n + m
        inf = float("inf")
        dist = [inf] * (n + m + 1)
        parent = [-1] * (n + m + 1)
        queue = deque(self.missing)
        queued = [False] * (n + m + 1)
        for j in queue:
            dist[j] = 0
            queued[j] = True

        def relax(v: int, d: float, u: int) -> None:
            if d < dist[v]:
                dist[v] = d
                parent[v] = u
                if not queued[v]:
                    queued[v] = True
                    queue.append(v)

        while queue:
            u = queue.popleft()
            queued[u] = False
            d = dist[u]
            if u < n:
                for i in range(m):
                    if i != self.owner[u] and u not in self.held[i]:
                        relax(n + i, d + (i not in g.cu[u]), u)
            elif u < pool_node:
                i = u - n
                if slots.opt[i] and not slots.pooled[i]:
                    relax(pool_node, d, u)
                for j in self.held[i]:
                    relax(j, d - (i not in g.cu[j]), u)
            else:
                for i in range(m):
                    if slots.pooled[i]:
                        relax(n + i, d, u)
        ends = [(dist[n + i], n + i) for i in range(m) if slots.used[i] < slots.base[i]]
        if slots.pool > 0:
            ends.append((dist[pool_node], pool_node))
        d, end = min(ends, default=(inf, -1))
        if d == inf:
            return None
        path = [end]
        while parent[path[-1]] >= 0:
            path.append(parent[path[-1]])
        return path[::-1]

    def _apply(self, path: list[int]) -> None:
        """Augment along ``path``: a task with a missing copy, then tasks, clients and the pool of extra
        places alternating as arcs allow, ending at a client with a base place left or at the pool."""
        slots, n, m = self.slots, self.g.n, len(self.g.clients)
        pool_node = n + m
        for u, v in pairwise(path):
            if u < n:  # task u -> client v: a new copy
                self._add(u, v - n)
            elif u < pool_node and v < n:  # client u gives task v back
                self._remove(v, u - n)
            elif u < pool_node:  # client u -> pool: it takes an extra place
                slots.pooled[u - n] = True
            else:  # pool -> client v: it gives its extra place back
                slots.pooled[v - n] = False
        end = path[-1]
        if end == pool_node:
            slots.pool -= 1
        else:
            slots.used[end - n] += 1
            slots.short -= 1
        self.missing[path[0]] -= 1
        self.missing = {j: r for j, r in self.missing.items() if r}


def _without_cycles(walk: list[int]) -> list[int]:
    """The walk with every closed loop cut out (a node met again resumes from its first visit)."""
    out: list[int] = []
    at: dict[int, int] = {}
    for x in walk:
        if x in at:
            del out[at[x] + 1 :]
            at = {y: i for i, y in enumerate(out)}
        else:
            at[x] = len(out)
            out.append(x)
    return out


def _kafka_standbys(g: _Group, owner: list[int], count: int, tags: tuple[str, ...]) -> list[list[int]]:
    """Kafka's standby assignor (tag-aware when ``tags``) over the target actives, then its balance."""
    clients = g.clients
    saved = [(c.active, c.standby) for c in clients]
    for c in clients:
        c.active, c.standby = set(), set()
    for j, i in enumerate(owner):
        clients[i].active.add(g.tasks[j])
    assignor = standby_assignor_for(tags) if tags else DefaultStandbyAssignor()
    assignor.assign(clients, g.tasks, count)
    balance_tasks_over_threads(clients, "standby", assignor.is_allowed_task_movement)
    position = {t: j for j, t in enumerate(g.tasks)}
    standbys: list[list[int]] = [[] for _ in g.tasks]
    for i, c in enumerate(clients):
        for t in c.standby:
            standbys[position[t]].append(i)
    for c, (active, standby) in zip(clients, saved):
        c.active, c.standby = active, standby
    return [sorted(cs) for cs in standbys]


# --- this round ------------------------------------------------------------------------------------------


def _realize(
    clients: list[ClientState], stateful: list[TaskId], target: Target, lags: LagIndex, k: int, max_warmups: int
) -> bool:
    """This round's stateful assignment on the way to the target; True while it differs from it."""
    pending_active: list[tuple[TaskId, ClientState]] = []
    pending_standby: list[tuple[TaskId, ClientState]] = []
    differs = False
    for j, t in enumerate(stateful):
        caught = lags.caught_up_clients(t)
        cu = set(caught)
        owner = clients[target.owner[j]]
        members = [owner] + [clients[i] for i in target.standbys[j]]
        member_set = set(members)
        if owner in cu or not cu:
            active = owner
        else:
            differs = True
            prev = [c for c in caught if t in c.prev_active]
            in_target = [c for c in caught if c in member_set]
            active = (
                prev[0]
                if prev
                else in_target[0]
                if in_target
                else min(caught, key=lambda c: (c.assigned_load(), c.key))
            )
        active.active.add(t)
        others = [c for c in members if c is not active]
        chosen = [c for c in others if c in cu][:k]
        if len(chosen) < k:
            extra = [c for c in caught if c is not active and c not in member_set]
            extra.sort(key=lambda c: (t not in c.prev_standby, c.assigned_load(), c.key))
            chosen += extra[: k - len(chosen)]
        if len(chosen) < k:
            taken = set(chosen)
            chosen += [c for c in others if c not in taken][: k - len(chosen)]
        taken = set(chosen)
        for c in chosen:
            c.standby.add(t)
        for c in others:
            if c not in taken:
                differs = True
                (pending_active if c is owner else pending_standby).append((t, c))
    budget = max_warmups
    for t, c in pending_active + pending_standby:
        if budget <= 0:
            break
        c.standby.add(t)
        c.warmup.add(t)
        budget -= 1
    return differs
