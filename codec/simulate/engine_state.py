"""The state of a simulated Kafka Streams group's tasks (:mod:`codec.simulate.engine`): changelog ends, stores and
their positions, restoration and standby replication, and what the metrics count of them.

State model (per task): the changelog's end offset grows at ``write_rate`` while the active task
processes; every state directory holds a position per task. A restoring active task reads at the
instance's ``restore_rate`` until it reaches the (frozen) end, then processes; a standby or warmup
follows the changelog at ``restore_rate`` (position ``min(p0 + rate * dt, end)``, exact while
``restore_rate >= write_rate``); a store nobody holds keeps its position. Positions are piecewise linear,
so the simulation jumps from event to event and integrates its metrics exactly.
"""

from __future__ import annotations

from ..types import TaskId
from .metrics import Metrics
from .model import Instance, SimMember, SimTask, Store
from .scenario import Scenario

__all__ = ["StateModel"]

_EPS = 1e-6


class StateModel:
    """The tasks' and stores' state over time, kept by :class:`codec.simulate.engine.Simulation`: a task's
    changelog end, each store's position, an active task's restoration (ended by a ``restored`` event), a standby's
    replication."""

    sc: Scenario
    tasks: dict[TaskId, SimTask]
    stores: dict[TaskId, dict[str, Store]]
    dir_stores: dict[str, dict[TaskId, Store]]
    instances: dict[str, Instance]
    metrics: Metrics

    def _at(self, t: float, kind: str, *args) -> None:
        raise NotImplementedError

    def _end(self, task: SimTask, t: float) -> float:
        return task.end0 + (self.sc.state.write_rate * (t - task.t0) if task.processing else 0.0)

    def _pos(self, task: SimTask, st: Store, t: float) -> float:
        if st.active is not None and not st.restoring:
            return self._end(task, t)
        if st.active is not None or st.followers:
            return min(st.pos0 + st.rate * (t - st.t0), self._end(task, t))
        return st.pos0

    def _settle(self, task: SimTask, st: Store, t: float) -> None:
        pos = self._pos(task, st, t)
        if pos > st.pos0:
            if st.active is not None and st.restoring:
                self.metrics.offsets_restored += pos - st.pos0
            elif st.active is None and st.followers:
                self.metrics.offsets_replicated += pos - st.pos0
        st.pos0, st.t0 = pos, t

    def _set_processing(self, task: SimTask, on: bool, t: float) -> None:
        if task.processing == on:
            return
        for st in self.stores[task.task].values():
            if st.active is None and st.followers:
                self._settle(task, st, t)
        task.end0, task.t0, task.processing = self._end(task, t), t, on
        self.metrics.running += 1 if on else -1
        self.metrics.last_change = t

    def _store(self, inst: Instance, task: TaskId, t: float) -> Store:
        st = self.stores[task].get(inst.state_dir)
        if st is None:
            st = Store(0.0, t, inst.restore_rate)
            self.stores[task][inst.state_dir] = st
            self.dir_stores.setdefault(inst.state_dir, {})[task] = st
        st.rate = inst.restore_rate
        return st

    def _live_dirs(self) -> set[str]:
        return {i.state_dir for i in self.instances.values() if i.alive}

    def _start_active(self, m: SimMember, task_id: TaskId, t: float) -> None:
        task = self.tasks[task_id]
        if task.owner is not None:  # the coordinator thinks another member still has it: it is stopped first
            self._stop_active(task.owner, task_id, t)
        m.active.add(task_id)
        task.owner = m
        self.metrics.dirty.add(m.instance.name)
        if not task.stateful:
            self._set_processing(task, True, t)
            return
        st = self._store(m.instance, task_id, t)
        if st.followers and m.instance.name in st.followers:
            st.followers.discard(m.instance.name)
        self._settle(task, st, t)
        st.active = m.instance.name
        end = self._end(task, t)
        lag = end - st.pos0
        if lag <= _EPS:
            st.pos0 = end
            self._set_processing(task, True, t)
            return
        st.restoring = True
        st.token += 1
        self.metrics.restoring += 1
        acceptable = self.sc.configs.acceptable_recovery_lag
        live = self._live_dirs()
        task.lagging = lag > acceptable and any(
            d != m.instance.state_dir and d in live and self._pos(task, o, t) >= end - acceptable
            for d, o in self.stores[task_id].items()
        )
        if task.lagging:
            self.metrics.lagging += 1
        self._at(t + lag / st.rate, "restored", task_id, m.instance.state_dir, st.token)
        self.metrics.last_change = t

    def _stop_active(self, m: SimMember, task_id: TaskId, t: float) -> None:
        task = self.tasks[task_id]
        m.active.discard(task_id)
        self.metrics.dirty.add(m.instance.name)
        if task.owner is not m:
            return
        task.owner = None
        if task.processing:
            self._set_processing(task, False, t)
        if not task.stateful:
            return
        st = self.stores[task_id][m.instance.state_dir]
        self._settle(task, st, t)
        if st.restoring:
            st.restoring = False
            st.token += 1
            self.metrics.restoring -= 1
            if task.lagging:
                self.metrics.lagging -= 1
                task.lagging = False
        st.active = None

    def _on_restored(self, t: float, task_id: TaskId, state_dir: str, token: int) -> None:
        st = self.stores[task_id].get(state_dir)
        if st is None or st.token != token or not st.restoring:
            return
        task = self.tasks[task_id]
        self._settle(task, st, t)
        st.restoring = False
        self.metrics.restoring -= 1
        if task.lagging:
            self.metrics.lagging -= 1
            task.lagging = False
        self._set_processing(task, True, t)
        if task.owner:
            self.metrics.dirty.add(task.owner.instance.name)

    def _follow(self, m: SimMember, task_id: TaskId, t: float) -> None:
        m.standby.add(task_id)
        task = self.tasks[task_id]
        st = self._store(m.instance, task_id, t)
        self._settle(task, st, t)
        st.followers.add(m.instance.name)

    def _unfollow(self, m: SimMember, task_id: TaskId, t: float) -> None:
        m.standby.discard(task_id)
        st = self.stores[task_id].get(m.instance.state_dir)
        if st is not None:
            self._settle(self.tasks[task_id], st, t)
            st.followers.discard(m.instance.name)
