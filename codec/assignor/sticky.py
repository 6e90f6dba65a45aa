"""The legacy sticky assignor and the fallback prior assignor (wire-facts §9 step 3; seed 000:
"stickiness over balance").

``LegacyStickyTaskAssignor`` keeps tasks on their previous owners as long as the owner is within
its quota (tasks per thread × capacity), then places the rest on the least-loaded clients while
trying to avoid putting the same pairs of tasks together again. ``FallbackPriorTaskAssignor``
is the same with prior actives always kept, and it always asks for a probing rebalance; Kafka
uses it when end offsets could not be fetched.

Divergence: Kafka iterates several ``HashMap``/``HashSet`` collections here (previous owners,
unassigned tasks, candidate clients), so its tie-breaking follows Java hash codes. This
implementation iterates tasks in TaskId order and clients in Java UUID order instead.
"""

from __future__ import annotations

from codec.types import TaskId

from .model import AssignmentConfigs
from .state import ClientState, LagIndex

__all__ = ["LegacyStickyTaskAssignor", "FallbackPriorTaskAssignor"]


def _more_available_capacity(a: ClientState, b: ClientState) -> bool:
    """``hasMoreAvailableCapacityThan``: lower assigned load, or equal load and more capacity."""
    la, lb = a.assigned_load(), b.assigned_load()
    if la != lb:
        return la < lb
    return a.capacity > b.capacity


class _TaskPairs:
    def __init__(self, num_tasks: int) -> None:
        self._max = num_tasks * (num_tasks - 1) // 2
        self._pairs: set[tuple[TaskId, TaskId]] = set()

    @staticmethod
    def _pair(a: TaskId, b: TaskId) -> tuple[TaskId, TaskId]:
        return (a, b) if a < b else (b, a)

    def has_new_pair(self, task: TaskId, assigned: set[TaskId]) -> bool:
        if len(self._pairs) == self._max:
            return False
        return any(self._pair(task, t) not in self._pairs for t in assigned)

    def add_pairs(self, task: TaskId, assigned: set[TaskId]) -> None:
        self._pairs.update(self._pair(task, t) for t in assigned)


class LegacyStickyTaskAssignor:
    """Stickiness first, then balance; never requests a probing rebalance."""

    name = "sticky"
    must_preserve_active = False

    def assign(
        self,
        clients: list[ClientState],
        all_tasks: list[TaskId],
        stateful: list[TaskId],
        lags: LagIndex,
        configs: AssignmentConfigs,
    ) -> bool:
        run = _Run(clients, sorted(all_tasks), self.must_preserve_active)
        run.assign(sorted(stateful), configs.num_standby_replicas)
        return False


class FallbackPriorTaskAssignor(LegacyStickyTaskAssignor):
    """The sticky assignor with prior actives always kept; always returns true."""

    name = "fallback_prior"
    must_preserve_active = True

    def assign(
        self,
        clients: list[ClientState],
        all_tasks: list[TaskId],
        stateful: list[TaskId],
        lags: LagIndex,
        configs: AssignmentConfigs,
    ) -> bool:
        super().assign(clients, all_tasks, stateful, lags, configs)
        return True


class _Run:
    def __init__(self, clients: list[ClientState], all_tasks: list[TaskId], must_preserve: bool) -> None:
        self.clients = clients
        self.all_tasks = all_tasks
        self.must_preserve = must_preserve
        self.pairs = _TaskPairs(len(all_tasks))
        self.prev_active: dict[TaskId, ClientState] = {}
        self.prev_standby: dict[TaskId, list[ClientState]] = {}
        for c in clients:
            for t in c.prev_active:
                self.prev_active[t] = c
            for t in c.prev_standby:
                self.prev_standby.setdefault(t, []).append(c)

    def assign(self, stateful: list[TaskId], num_standby: int) -> None:
        self._assign_active()
        for task in stateful:
            for _ in range(num_standby):
                free = [c for c in self.clients if not c.holds(task)]
                if not free:
                    break
                self._allocate(task, free, active=False)

    def _assign_active(self) -> None:
        total_capacity = sum(c.capacity for c in self.clients)
        per_thread = len(self.all_tasks) // total_capacity
        known = set(self.all_tasks)
        assigned: set[TaskId] = set()
        for task in sorted(self.prev_active):
            client = self.prev_active[task]
            if task in known and (self.must_preserve or len(client.active) < client.capacity * per_thread):
                self._give(task, client, active=True)
                assigned.add(task)
        unassigned = [t for t in self.all_tasks if t not in assigned]
        remaining = []
        for task in unassigned:
            for client in self.prev_standby.get(task, ()):
                if len(client.active) < client.capacity * per_thread:
                    self._give(task, client, active=True)
                    break
            else:
                remaining.append(task)
        for task in remaining:
            self._allocate(task, self.clients, active=True)

    def _give(self, task: TaskId, client: ClientState, active: bool) -> None:
        self.pairs.add_pairs(task, client.active | client.standby)
        if active:
            client.assign_active(task)
        else:
            client.assign_standby(task)

    def _allocate(self, task: TaskId, within: list[ClientState], active: bool) -> None:
        self._give(task, self._find_client(task, within), active)

    def _find_client(self, task: TaskId, within: list[ClientState]) -> ClientState:
        if len(within) == 1:
            return within[0]
        previous = self.prev_active.get(task)
        if previous is None or previous not in within:
            previous = self._least_loaded_prev_standby(task, within)
        if previous is None:
            return self._least_loaded_of_all(task, within)
        if self._should_balance(previous):
            standby = self._least_loaded_prev_standby(task, within)
            if standby is None or self._should_balance(standby):
                return self._least_loaded_of_all(task, within)
            return standby
        return previous

    def _least_loaded_of_all(self, task: TaskId, within: list[ClientState]) -> ClientState:
        found = self._least_loaded(task, within)
        # the callers never pass an empty list, and a non-empty one always yields a client (the second pass of
        # _least_loaded skips the pair check)
        assert found is not None
        return found

    def _should_balance(self, client: ClientState) -> bool:
        return client.assigned_count >= client.capacity and any(
            _more_available_capacity(c, client) for c in self.clients
        )

    def _least_loaded_prev_standby(self, task: TaskId, within: list[ClientState]) -> ClientState | None:
        holders = self.prev_standby.get(task)
        if holders is None:
            return None
        return self._least_loaded(task, [c for c in within if c in holders])

    def _least_loaded(self, task: TaskId, candidates: list[ClientState]) -> ClientState | None:
        found = self._find_least_loaded(task, candidates, check_pairs=True)
        return found if found is not None else self._find_least_loaded(task, candidates, check_pairs=False)

    def _find_least_loaded(self, task: TaskId, candidates: list[ClientState], check_pairs: bool) -> ClientState | None:
        best = None
        for c in candidates:
            if c.assigned_count == 0:
                return c
            if best is None or _more_available_capacity(c, best):
                if not check_pairs or self.pairs.has_new_pair(task, c.active | c.standby):
                    best = c
        return best
