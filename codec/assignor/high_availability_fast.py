"""``high_availability_fast``: KIP-441's guarantees in fewer probing rounds (issue #19).

Kafka's ``HighAvailabilityTaskAssignor`` (:mod:`codec.assignor.high_availability`) decides a
*state-blind* desired placement every round (tasks dealt round-robin, then balanced) and moves
towards it with at most ``max.warmup.replicas`` warmups per round. After a scale event the
state-blind deal lands most tasks somewhere new, so most of them have to be warmed up, a few per
round. This assignor plans a *state-aware* target instead and walks towards it:

1. **Quotas.** Balanced counts per client (stateful actives first, then actives + standbys), as close
   to the caught-up copies each client holds as balance allows (:func:`balanced_counts`): missing
   units are water-filled (smallest ``count / capacity`` first, so every client gets a first unit
   before any gets a second, which leaves room for clients that join later), then units move from
   the client with the largest ``(count - 1) / capacity`` to the one with the smallest
   ``(count + 1) / capacity`` while Kafka's ``shouldMoveATask`` would hold between them. The result
   is balanced as Kafka's own ``balanceTasksOverThreads`` defines it.
2. **Target actives.** Each client keeps the stateful actives it is caught up on, up to its quota
   (the tasks with the fewest other caught-up clients first); the rest go to caught-up clients with
   room (a free swap), found with short augmenting paths, and only then to a client with room and
   the smallest lag (a restore).
3. **Target standbys.** ``num.standby.replicas`` copies per task on distinct clients: caught-up
   clients with room first (a maximum set of them, found with augmenting paths, so that copies
   warmed up in one round are kept in the next), then the least-loaded clients with room. Rack tags
   (``rack.aware.assignment.tags``) use Kafka's tag-aware standby assignor instead.
4. **This round.** An active goes to its target client when that client is caught up (or nobody
   is); otherwise it stays on a caught-up client. Standbys stay on caught-up clients until the
   target clients are caught up; target copies that are not yet caught up get the warmups, active
   targets first. Kafka's ``balanceTasksOverThreads`` runs over the target as a safety net (it moves
   nothing when the quotas were met).
5. **Stateless tasks** are placed last, as Kafka does (lowest ``activeTaskLoad``): moving them costs
   no restore.

``probingRebalanceNeeded`` is true exactly when this round's assignment differs from the target.
The target is recomputed from the reported state every round (the assignor keeps no memory); its
tie-breaks are chosen so that copies warmed up in one round are kept by the next round's target.
"""

from __future__ import annotations

import heapq
from collections import defaultdict, deque
from typing import ClassVar

from codec.types import TaskId

from .balance import balance_tasks_over_threads
from .high_availability import _assign_stateless
from .model import AssignmentConfigs
from .standby import standby_assignor_for
from .state import ClientState, LagIndex

__all__ = ["HighAvailabilityFastTaskAssignor", "balanced_counts", "water_fill"]

_MAX_AUGMENT_VISITS = 2000


def water_fill(capacities: list[int], start: list[int], units: int, limit: int | None = None,
               prefer: list[int] | None = None, keys: list | None = None) -> list[int]:
    """Counts after handing out ``units`` one at a time, each to the client with the smallest
    ``count / capacity`` (then ``(count + 1) / capacity``, then the one with ``count < prefer``, then
    ``keys``), never past ``limit`` per client.

    When a client got its last unit, ``(count - 1) / capacity`` was at most every other client's
    ``count / capacity`` then, so no pair passes ``shouldMoveATask`` afterwards (a client at ``limit``
    aside); of such counts these keep ``(count - 1) / capacity`` smallest, which leaves the most
    room for clients that join later: a first unit for every client before a second for any."""
    counts = list(start)
    prefer = prefer or [0] * len(counts)
    keys = keys if keys is not None else list(range(len(counts)))

    def entry(i: int) -> tuple:
        return (counts[i] / capacities[i], (counts[i] + 1) / capacities[i], 0 if counts[i] < prefer[i] else 1,
                keys[i], i)

    heap = [entry(i) for i in range(len(counts)) if limit is None or counts[i] < limit]
    heapq.heapify(heap)
    for _ in range(units):
        if not heap:
            break
        i = heapq.heappop(heap)[-1]
        counts[i] += 1
        if limit is None or counts[i] < limit:
            heapq.heappush(heap, entry(i))
    return counts


def balanced_counts(capacities: list[int], start: list[int], units: int, limit: int | None = None,
                    keys: list | None = None) -> list[int]:
    """Counts summing to ``units`` as close to ``start`` as Kafka's balance allows: the missing units
    are water-filled onto ``start``, surplus ones taken from the most loaded, then one unit at a time
    moves from the client with the largest ``(count - 1) / capacity`` to the one with the smallest
    ``(count + 1) / capacity`` while ``shouldMoveATask`` would hold between them (§10 step 2)."""
    n = len(capacities)
    keys = keys if keys is not None else list(range(n))
    counts = [min(s, limit) if limit is not None else s for s in start]
    surplus = sum(counts) - units
    while surplus > 0:
        i = max((i for i in range(n) if counts[i] > 0), key=lambda i: (counts[i] / capacities[i], keys[i]))
        counts[i] -= 1
        surplus -= 1
    if surplus < 0:
        counts = water_fill(capacities, counts, -surplus, limit, keys=keys)
    def src_key(i: int) -> tuple:
        return (-(counts[i] - 1.0) / capacities[i], keys[i], i)

    def dst_key(i: int) -> tuple:
        return ((counts[i] + 1.0) / capacities[i], keys[i], i)

    def can_give(i: int) -> bool:
        return counts[i] > 0

    def can_take(i: int) -> bool:
        return limit is None or counts[i] < limit

    src_heap = [src_key(i) for i in range(n) if can_give(i)]
    dst_heap = [dst_key(i) for i in range(n) if can_take(i)]
    heapq.heapify(src_heap)
    heapq.heapify(dst_heap)
    while n > 1:
        src = _top_two(src_heap, src_key, can_give)
        dst = _top_two(dst_heap, dst_key, can_take)
        pair = next(((a, b) for a in src for b in dst if a != b), None)
        if pair is None:
            break
        a, b = pair
        if (counts[a] - 1.0) / capacities[a] - (counts[b] + 1.0) / capacities[b] < 0:
            break
        counts[a] -= 1
        counts[b] += 1
        for i in (a, b):
            if can_give(i):
                heapq.heappush(src_heap, src_key(i))
            if can_take(i):
                heapq.heappush(dst_heap, dst_key(i))
    return counts


def _top_two(heap: list, key, valid) -> list[int]:
    """The (at most) two best distinct clients of a lazy heap whose entries are current."""
    out: list[tuple] = []
    while heap and len(out) < 2:
        e = heapq.heappop(heap)
        i = e[-1]
        if valid(i) and e == key(i) and all(x[-1] != i for x in out):
            out.append(e)
    for e in out:
        heapq.heappush(heap, e)
    return [e[-1] for e in out]


class _RoomHeap:
    """Clients with room left, least ``count / capacity`` first (lazy entries)."""

    def __init__(self, clients: list[ClientState], count: dict, room: dict) -> None:
        self._count = count
        self._room = room
        self._heap = [(count[c] / c.capacity, c.key, c) for c in clients if room[c] > 0]
        heapq.heapify(self._heap)

    def pop(self, accept) -> ClientState | None:
        skipped = []
        found = None
        while self._heap:
            load, key, c = heapq.heappop(self._heap)
            if self._room[c] <= 0:
                continue
            if load != self._count[c] / c.capacity:
                heapq.heappush(self._heap, (self._count[c] / c.capacity, key, c))
                continue
            if accept(c):
                found = c
                break
            skipped.append((load, key, c))
        for e in skipped:
            heapq.heappush(self._heap, e)
        return found

    def update(self, c: ClientState) -> None:
        if self._room[c] > 0:
            heapq.heappush(self._heap, (self._count[c] / c.capacity, c.key, c))


class HighAvailabilityFastTaskAssignor:
    """State-aware balanced target, reached with warmups; see the module documentation."""

    name = "high_availability_fast"

    def __init__(self, exact_java_queue: bool = False) -> None:
        del exact_java_queue  # no Java queue to replay: the target's tie-breaks are our own

    def assign(self, clients: list[ClientState], all_tasks: list[TaskId], stateful: list[TaskId],
               lags: LagIndex, configs: AssignmentConfigs) -> bool:
        """Fill ``clients`` (in Java UUID order) and return ``probingRebalanceNeeded``."""
        stateful = sorted(stateful)
        stateful_set = set(stateful)
        caught = {t: lags.caught_up_clients(t) for t in stateful}
        caught_sets = {t: set(cs) for t, cs in caught.items()}
        owner = _plan_actives(clients, stateful, lags, caught, caught_sets)
        k = min(configs.num_standby_replicas, len(clients) - 1)
        standbys = _plan_standbys(clients, stateful, owner, caught, caught_sets, k, configs)
        probing = _realize(clients, stateful, owner, standbys, caught, caught_sets, k, configs.max_warmup_replicas)
        _assign_stateless(clients, sorted(t for t in all_tasks if t not in stateful_set))
        return probing


def _plan_actives(clients: list[ClientState], stateful: list[TaskId], lags: LagIndex,
                  caught: dict, caught_sets: dict) -> dict[TaskId, ClientState]:
    """The target owner of every stateful task (balanced counts, as sticky as the quotas allow)."""
    if not stateful:
        return {}
    sticky: dict[ClientState, list[TaskId]] = {c: [] for c in clients}
    for c in clients:
        for t in c.prev_active:
            if t in caught_sets and c in caught_sets[t]:
                sticky[c].append(t)
    quota_list = balanced_counts([c.capacity for c in clients], [len(sticky[c]) for c in clients], len(stateful),
                                 keys=[c.key for c in clients])
    quota = dict(zip(clients, quota_list))
    owner: dict[TaskId, ClientState] = {}
    count: dict[ClientState, int] = {c: 0 for c in clients}
    owned: dict[ClientState, set[TaskId]] = {c: set() for c in clients}

    def give(t: TaskId, c: ClientState) -> None:
        old = owner.get(t)
        if old is not None:
            count[old] -= 1
            owned[old].discard(t)
        owner[t] = c
        count[c] += 1
        owned[c].add(t)

    # 1. keep caught-up actives, those with the fewest other caught-up clients first
    for c in clients:
        for t in sorted(sticky[c], key=lambda t: (len(caught[t]), t.sort_key()))[:quota[c]]:
            give(t, c)
    # 2. the rest to a caught-up client with room, directly or along a short augmenting path
    room = {c: quota[c] - count[c] for c in clients}
    rest = sorted((t for t in stateful if t not in owner), key=lambda t: (len(caught[t]), t.sort_key()))
    unplaced = []
    for t in rest:
        if not caught[t] or not _augment(t, caught, owner, owned, count, room, give):
            unplaced.append(t)
    # 3. restores: a client with room, the smallest lag first, then the least loaded
    room = {c: quota[c] - count[c] for c in clients}
    heap = _RoomHeap(clients, count, room)
    reported = _reported_lags(clients, unplaced)
    for t in unplaced:
        best = _least_lagged_with_room(lags, t, reported[t], room)
        if best is None:
            best = heap.pop(lambda c: True)
        give(t, best)
        room[best] -= 1
        heap.update(best)
    return owner


def _reported_lags(clients: list[ClientState], tasks: list[TaskId]) -> dict[TaskId, list[tuple]]:
    """(lag, UUID key, client) of every client that reported a lag on one of ``tasks``."""
    wanted = set(tasks)
    out: dict[TaskId, list[tuple]] = {t: [] for t in tasks}
    if wanted:
        for c in clients:
            for t, lag in c.lags.items():
                if t in wanted:
                    out[t].append((lag, c.key, c))
    return out


def _least_lagged_with_room(lags: LagIndex, t: TaskId, reported: list[tuple], room: dict) -> ClientState | None:
    """The client with room whose reported lag on ``t`` is the smallest and below the lag of a client
    that reported nothing (then UUID); None when there is none."""
    silent = lags.lag(_SILENT, t)
    best = min((e for e in reported if room[e[2]] > 0 and e[0] < silent), key=lambda e: e[:2], default=None)
    return None if best is None else best[2]


class _Silent:
    """A client that reported no lags (for :meth:`LagIndex.lag`)."""

    lags: ClassVar[dict] = {}


_SILENT = _Silent()


def _augment(t: TaskId, caught: dict, owner: dict, owned: dict, count: dict, room: dict, give) -> bool:
    """Breadth-first search for a chain task -> caught-up client -> one of its tasks -> ... ending at a
    caught-up client with room; apply it and return True if found."""
    start = t
    parent: dict = {}  # client -> (task it would take, client that task comes from or None)
    frontier = [(start, None)]
    seen_tasks = {start}
    visits = 0
    while frontier:
        nxt = []
        for task, came_from in frontier:
            for c in caught[task]:
                if c in parent or c is owner.get(task):
                    continue
                parent[c] = (task, came_from)
                visits += 1
                if room[c] > 0:
                    # apply the chain back to the start
                    node = c
                    while node is not None:
                        task_taken, prev_client = parent[node]
                        give(task_taken, node)
                        node = prev_client
                    room[c] -= 1
                    return True
                if visits > _MAX_AUGMENT_VISITS:
                    return False
                for t2 in sorted(owned[c], key=lambda x: x.sort_key()):
                    if t2 not in seen_tasks:
                        seen_tasks.add(t2)
                        nxt.append((t2, c))
        frontier = nxt
    return False


def _plan_standbys(clients: list[ClientState], stateful: list[TaskId], owner: dict, caught: dict,
                   caught_sets: dict, k: int, configs: AssignmentConfigs) -> dict[TaskId, list[ClientState]]:
    """The target standbys of every stateful task (``k`` per task, never on its target owner), with
    Kafka's balance check over the target actives and standbys as a safety net."""
    for c in clients:
        c.active.clear()
        c.standby.clear()
    for t, c in owner.items():
        c.active.add(t)
    balance_tasks_over_threads(clients, "active", lambda src, dst: True)
    if k > 0 and configs.rack_aware_assignment_tags:
        standby = standby_assignor_for(configs.rack_aware_assignment_tags)
        standby.assign(clients, stateful, configs.num_standby_replicas)
        balance_tasks_over_threads(clients, "standby", standby.is_allowed_task_movement)
    elif k > 0:
        _sticky_standbys(clients, stateful, caught, caught_sets, k)
        balance_tasks_over_threads(clients, "standby", lambda src, dst: True)
    for c in clients:
        for t in c.active:
            owner[t] = c
    standbys: dict[TaskId, list[ClientState]] = defaultdict(list)
    for c in clients:
        for t in sorted(c.standby):
            standbys[t].append(c)
        c.active.clear()
        c.standby.clear()
    return standbys


def _sticky_standbys(clients: list[ClientState], stateful: list[TaskId], caught: dict, caught_sets: dict,
                     k: int) -> None:
    """Fill ``k`` standbys per task into ``clients[*].standby`` at balanced totals as close to the
    caught-up copies as balance allows: caught-up clients first, then the least-loaded clients with room."""
    n_tasks = len(stateful)
    sticky = dict.fromkeys(clients, 0)
    for t in stateful:
        cands = sorted((c for c in caught_sets[t] if t not in c.active),
                       key=lambda c: (t not in c.prev_standby, c.key))
        for c in cands[:k]:
            sticky[c] += 1
    totals = balanced_counts([c.capacity for c in clients], [len(c.active) + sticky[c] for c in clients],
                             (k + 1) * n_tasks, limit=n_tasks, keys=[c.key for c in clients])
    room = {c: totals[i] - len(c.active) for i, c in enumerate(clients)}
    count = {c: len(c.active) for c in clients}
    need = {t: k for t in stateful}
    # 1. caught-up clients keep (or take) their copies while they have room
    for t in stateful:
        cands = sorted((c for c in caught_sets[t] if room[c] > 0 and t not in c.active),
                       key=lambda c: (t not in c.prev_standby, count[c] / c.capacity, c.key))
        for c in cands[:need[t]]:
            c.standby.add(t)
            room[c] -= 1
            count[c] += 1
            need[t] -= 1
    # ... and as many more as moving kept copies between caught-up clients makes room for
    for t in stateful:
        while need[t] > 0:
            c = _augment_standby(t, caught, room)
            if c is None:
                break
            count[c] += 1
            need[t] -= 1
    # 2. the rest to the least-loaded clients with room (tasks with the most copies missing first)
    heap = _RoomHeap(clients, count, room)
    for t in sorted((t for t in stateful if need[t] > 0), key=lambda t: (-need[t], t.sort_key())):
        while need[t] > 0:
            c = heap.pop(lambda c, t=t: not c.holds(t))
            if c is None:  # no client with room can take it: least loaded without room (balance repairs)
                free = [c for c in clients if not c.holds(t)]
                if not free:
                    break
                c = min(free, key=lambda c: (count[c] / c.capacity, c.key))
            else:
                room[c] -= 1
            c.standby.add(t)
            count[c] += 1
            need[t] -= 1
            heap.update(c)


def _augment_standby(t: TaskId, caught: dict, room: dict) -> ClientState | None:
    """Breadth-first search for caught-up clients c0, c1, ... such that c0 takes ``t``, c1 takes one of
    c0's kept standbys, ... and the last one has room; apply it and return the last client."""
    def eligible(c: ClientState, task: TaskId) -> bool:
        return task not in c.active and task not in c.standby

    parent: dict = {}
    queue = deque()
    for c in caught[t]:
        if eligible(c, t):
            parent[c] = (t, None)
            queue.append(c)
    visits = 0
    while queue:
        c = queue.popleft()
        if room[c] > 0:
            room[c] -= 1
            node = c
            while node is not None:
                task, giver = parent[node]
                node.standby.add(task)
                if giver is not None:
                    giver.standby.discard(task)
                node = giver
            return c
        visits += 1
        if visits > _MAX_AUGMENT_VISITS:
            return None
        for t2 in sorted(c.standby):
            for c2 in caught[t2]:
                if c2 not in parent and eligible(c2, t2):
                    parent[c2] = (t2, c)
                    queue.append(c2)
    return None


def _realize(clients: list[ClientState], stateful: list[TaskId], owner: dict, standbys: dict,
             caught: dict, caught_sets: dict, k: int, max_warmups: int) -> bool:
    """This round's stateful assignment on the way to the target; True while it differs from it."""
    pending_active: list[tuple[TaskId, ClientState]] = []
    pending_standby: list[tuple[TaskId, ClientState]] = []
    differs = False
    for t in stateful:
        target = owner[t]
        cu = caught_sets[t]
        members = [target] + standbys.get(t, [])
        if target in cu or not cu:
            active = target
        else:
            differs = True
            prev = [c for c in caught[t] if t in c.prev_active]
            in_target = [c for c in caught[t] if c in members]
            active = prev[0] if prev else in_target[0] if in_target else \
                min(caught[t], key=lambda c: (c.assigned_load(), c.key))
        active.active.add(t)
        others = [c for c in members if c is not active]
        chosen = [c for c in others if c in cu][:k]
        if len(chosen) < k:
            extra = [c for c in caught[t] if c is not active and c not in members]
            extra.sort(key=lambda c: (t not in c.prev_standby, c.assigned_load(), c.key))
            chosen += extra[:k - len(chosen)]
        if len(chosen) < k:
            chosen += [c for c in others if c not in chosen][:k - len(chosen)]
        for c in chosen:
            c.standby.add(t)
        for c in others:
            if c not in chosen:
                differs = True
                (pending_active if c is target else pending_standby).append((t, c))
    budget = max_warmups
    for t, c in pending_active + pending_standby:
        if budget <= 0:
            break
        c.standby.add(t)
        c.warmup.add(t)
        budget -= 1
    return differs
