"""The discrete-event simulation of a Kafka Streams group through membership changes.

Actors:

* the **coordinator** (classic group protocol, wire-facts §7): generations, member ids with the two-step
  join (MEMBER_ID_REQUIRED), protocol selection by :func:`codec.negotiation.select_protocol`, session
  expiry (a crashed member is removed ``session.timeout.ms`` after its last heartbeat), the rebalance
  timeout, REBALANCE_IN_PROGRESS in heartbeat responses, LeaveGroup;
* **members**, one per stream thread of an instance: each sends JoinGroup with a ConsumerProtocol
  subscription carrying its SubscriptionInfo (its used metadata version, process id, task offset sums of
  every local store, owned partitions when cooperative), and applies the AssignmentInfo it decodes from
  its SyncGroup response as ``onAssignment`` does (§5 version upgrade/downgrade, cooperative revocation,
  ``nextRebalanceMs``: 0 = rejoin now, otherwise the probing deadline);
* the **leader** (the member the coordinator names) decodes its JoinGroup response and runs
  :mod:`codec.simulate.leader` over the members' subscription bytes.

Everything exchanged goes through :class:`codec.simulate.wire.Recorder` as encoded frames and is read
back from those bytes. What is not simulated as frames: steady heartbeats (a member learns of a
rebalance at its next heartbeat, whose request and REBALANCE_IN_PROGRESS response are recorded; a member that
stops without leaving has its last two heartbeats recorded, so that its silence is on the wire),
FindCoordinator/ApiVersions and offset commits.

The tasks' state (changelog ends, the stores' positions, restoration and standby replication) follows
:mod:`codec.simulate.engine_state`'s model.
"""

from __future__ import annotations

import heapq
import random
import uuid

from ..assignor import ClientSpec, GroupDescription, TaskSpec, assign
from ..assignor.leader import Subtopology
from ..group import ASSIGNMENT, consumer_subscription, decode_consumer, encode_consumer
from ..negotiation import GroupMember, select_protocol
from ..streams.pretty import describe_error_code
from ..streams.constants import assignor_error_name
from ..streams import (
    EARLIEST_PROBEABLE_VERSION,
    LATEST_SUPPORTED_VERSION,
    NO_REBALANCE,
    SubscriptionInfo,
    decode_assignment,
    encode_subscription,
)
from ..types import TaskId, TopicPartition
from ..wire.builder import wire_class
from .leader import LOCALITY_TAG, PROTOCOLS, Protocol, leader_assign
from .metrics import Metrics
from .truth import EXPIRED, LEFT, join_cause
from .engine_state import StateModel
from .model import CoordinatorMember, Instance, SimMember, SimTask, SimulationResult, Store, initial_used
from .scenario import Event, InstanceSpec, Scenario, ScenarioError, parse_task
from .wire import (
    EPOCH,
    HEARTBEAT,
    JOIN_GROUP,
    LEAVE_GROUP,
    MEMBER_ID_REQUIRED,
    NONE,
    REBALANCE_IN_PROGRESS,
    SYNC_GROUP,
    UNKNOWN_MEMBER_ID,
    Frames,
    Recorder,
)

__all__ = ["Simulation", "SimulationResult", "simulate"]

_OwnedTP = wire_class("ConsumerProtocolSubscription", "TopicPartition")


class Simulation(StateModel):
    def __init__(
        self,
        scenario: Scenario,
        protocol: str | Protocol = "ha",
        *,
        keep_frames: bool = True,
        run: str = "simulate",
        reasons: bool = True,
    ) -> None:
        """``reasons``: the members write their KIP-800 reason in each JoinGroup (v8+), as Kafka's Java client
        does; False leaves it null, as older clients and librdkafka do (the rebalances' causes are the same)."""
        self.sc = scenario
        self.reasons = reasons
        self.protocol = PROTOCOLS[protocol] if isinstance(protocol, str) else protocol
        self.rng = random.Random(f"{scenario.seed}:{scenario.name}")
        self.rec = Recorder(scenario=scenario.name, protocol=self.protocol.name, run=run, keep=keep_frames)
        self.lat = scenario.group.latency_ms / 1000.0
        self.hb = scenario.group.heartbeat_interval_ms / 1000.0
        self.queue: list = []
        self.seq = 0
        self.now = 0.0
        self.notes: list[str] = []
        # topology
        self.sub_of: dict[TaskId, Subtopology] = {}
        self.tasks: dict[TaskId, SimTask] = {}
        for sub in scenario.topology.subtopologies:
            for t in sub.tasks():
                self.sub_of[t] = sub
                self.tasks[t] = SimTask(t, sub.stateful, end0=scenario.state.initial_offsets if sub.stateful else 0)
        self.task_of_tp = {tp: t for t, sub in self.sub_of.items() for tp in sub.source_partitions(t)}
        self.topics = tuple(sorted({tp.topic for tp in self.task_of_tp}))
        self.stores: dict[TaskId, dict[str, Store]] = {t: {} for t in self.tasks}
        self.dir_stores: dict[str, dict[TaskId, Store]] = {}
        # instances
        self.instances: dict[str, Instance] = {}
        for spec in scenario.instances:
            if spec.latest > LATEST_SUPPORTED_VERSION:
                raise ScenarioError(
                    f"instance {spec.name}: metadata versions above {LATEST_SUPPORTED_VERSION} are not simulated"
                )
            self.instances[spec.name] = Instance(
                spec,
                spec.name,
                spec.host or spec.name,
                spec.state_dir or spec.name,
                float(spec.restore_rate or scenario.state.restore_rate),
                uuid.UUID(int=self.rng.getrandbits(128)),
                spec.release or f"v{spec.version}",
                spec.latest,
                spec.upgrade_from,
            )
        # coordinator
        self.cmembers: dict[str, CoordinatorMember] = {}
        self.state = "Empty"
        self.generation = 0
        self.leader: str | None = None
        self.group_protocol: str | None = None
        self.rebalance: dict | None = None
        self.rebalance_id = 0
        self.rebalances: list[dict] = []
        self.bytes_mark = 0
        self.last_assignment: dict[TaskId, str] = {}
        self.metrics = Metrics(self)

    # ------------------------------------------------------------------ event loop

    def _at(self, t: float, kind: str, *args) -> None:
        self.seq += 1
        heapq.heappush(self.queue, (t, self.seq, kind, args))

    def run(self) -> SimulationResult:
        self._initial_state()
        for ev in self.sc.events:
            self._at(ev.at, "scenario", ev)
        self.metrics.first_event = min((e.at for e in self.sc.events), default=0.0)
        self.metrics.sample(0.0)
        while self.queue:
            t, _, kind, args = heapq.heappop(self.queue)
            if t > self.sc.duration_s:
                self.notes.append(f"stopped at the scenario's duration ({self.sc.duration_s:g} s) with events left")
                break
            self.metrics.advance(t)
            self.now = t
            getattr(self, "_on_" + kind)(t, *args)
            self.metrics.sample(t)
        end = max(self.now, self.metrics.last_change)
        self.metrics.advance(end)
        for inst in self.instances.values():
            for m in inst.members:
                self.rec.close(m.key, end)
        return SimulationResult(
            self.sc.name,
            self.protocol.name,
            self.metrics.summary(end),
            self.rebalances,
            self.metrics.timeline(end),
            self.notes,
            self.rec,
        )

    # ------------------------------------------------------------------ initial state

    def _new_member(self, inst: Instance, thread: int, t: float) -> SimMember:
        spec_used, rebalance = initial_used(inst)
        if self.protocol.rebalance == "EAGER":
            rebalance = "EAGER"
        client_id = f"{self.sc.group.group_id}-{inst.process_id}-StreamThread-{thread + 1}-consumer"
        m = SimMember(
            inst,
            thread,
            f"{inst.name}#{inst.incarnation}.{thread}",
            client_id,
            spec_used,
            rebalance,
            hb_phase=self.rng.random() * self.hb,
        )
        self.rec.connect(m.key, inst.name, client_id, inst.release, t)
        return m

    def _new_member_id(self, m: SimMember) -> str:
        return f"{m.client_id}-{uuid.UUID(int=self.rng.getrandbits(128))}"

    def _initial_state(self) -> None:
        running = [i for i in self.instances.values() if i.spec.running]
        for inst in running:
            inst.alive, inst.incarnation = True, 1
            inst.members = [self._new_member(inst, k, 0.0) for k in range(inst.spec.threads)]
        placement = self._initial_placement(running)
        if running:
            self.generation, self.state = 1, "Stable"
            self.group_protocol = "stream"
        for inst in running:
            for m in inst.members:
                m.member_id, m.generation = self._new_member_id(m), 1
                self.cmembers[m.member_id] = CoordinatorMember(m, joined=True)
            active, standby, lag = placement.get(inst.name, ([], [], 0))
            for k, task_id in enumerate(sorted(active)):
                m = inst.members[k % len(inst.members)]
                task = self.tasks[task_id]
                if task.stateful:
                    st = self._store(inst, task_id, 0.0)
                    st.pos0 = task.end0
                self._start_active(m, task_id, 0.0)
            for k, task_id in enumerate(sorted(standby)):
                m = inst.members[k % len(inst.members)]
                st = self._store(inst, task_id, 0.0)
                st.pos0 = max(0.0, self.tasks[task_id].end0 - lag)
                self._follow(m, task_id, 0.0)
            for m in inst.members:
                m.prev_active = frozenset(m.active)
                m.owned = self._partitions(m.active)
        if running:
            self.leader = next(iter(self.cmembers))
        self.last_assignment = {t: task.owner.instance.name for t, task in self.tasks.items() if task.owner}
        self.last_owner = dict(self.last_assignment)
        self.metrics.last_change = 0.0

    def _initial_placement(self, running: list[Instance]) -> dict[str, tuple[list, list, float]]:
        if self.sc.initial is not None:
            return {
                name: (
                    [parse_task(x) for x in p.get("active", ())],
                    [parse_task(x) for x in p.get("standby", ())],
                    float(p.get("standby_lag", 0)),
                )
                for name, p in self.sc.initial.items()
                if self.instances[name].spec.running
            }
        # the steady state the KIP-441 assignor itself picks for these instances (same for every protocol)
        out: dict[str, tuple[list, list, float]] = {i.name: ([], [], 0.0) for i in running}
        if not running:
            return out
        by_pid = {i.process_id: i for i in running}
        result = assign(
            GroupDescription(
                tuple(TaskSpec(t, task.stateful) for t, task in sorted(self.tasks.items())),
                tuple(ClientSpec(i.process_id, capacity=i.spec.threads) for i in running),
                self.sc.configs,
                {t: 0 for t, task in self.tasks.items() if task.stateful},
                "high_availability",
            )
        )
        for c in result.clients:
            out[by_pid[c.process_id].name] = (list(c.active), list(c.standby) + list(c.warmup), 0.0)
        return out

    def _partitions(self, tasks) -> tuple[TopicPartition, ...]:
        return tuple(sorted(tp for t in tasks for tp in self.sub_of[t].source_partitions(t)))

    # ------------------------------------------------------------------ scenario events

    def _resolve(self, name: str) -> Instance | None:
        if name == "@leader":
            cm = self.cmembers.get(self.leader) if self.leader else None
            return cm.member.instance if cm else None
        return self.instances[name]

    def _on_scenario(self, t: float, ev: Event) -> None:
        inst = self._resolve(ev.instance)
        if inst is None:
            self.notes.append(f"{t:g} s: {ev.describe()}: no such instance now")
            return
        self.metrics.events.append({"at": t, "event": ev.describe().replace("@leader", inst.name)})
        if ev.kind == "start":
            self._start_instance(inst, t, ev)
        elif ev.kind in ("stop", "crash"):
            self._stop_instance(inst, t, clean=ev.kind == "stop")
        elif ev.kind == "restart":
            self._stop_instance(inst, t, clean=True)
            self._at(t + ev.downtime_s, "restart_up", inst.name, ev)

    def _on_restart_up(self, t: float, name: str, ev: Event) -> None:
        self._start_instance(self.instances[name], t, ev)

    def _start_instance(self, inst: Instance, t: float, ev: Event | None) -> None:
        if inst.alive:
            self.notes.append(f"{t:g} s: {inst.name} is already running")
            return
        if ev is not None and (ev.release or ev.version):
            inst.release = ev.release or f"v{ev.version}"
            inst.latest = ev.version if ev.version else InstanceSpec(inst.name, release=ev.release).latest
        if ev is not None and ev.upgrade_from_set:
            inst.upgrade_from = ev.upgrade_from
        inst.alive, inst.failed = True, None
        inst.incarnation += 1
        inst.members = [self._new_member(inst, k, t) for k in range(inst.spec.threads)]
        for m in inst.members:
            self._send_join(m, t, "new member")

    def _stop_instance(self, inst: Instance, t: float, *, clean: bool, reason: str = "") -> None:
        if not inst.alive:
            return
        inst.alive = False
        inst.warmups = frozenset()
        for m in inst.members:
            for task_id in sorted(m.active):
                self._stop_active(m, task_id, t)
            for task_id in sorted(m.standby):
                self._unfollow(m, task_id, t)
            m.alive = False
            if clean and self.sc.group.leave_group_on_close and m.member_id in self.cmembers:
                cid, frame = self.rec.request(
                    m.key,
                    LEAVE_GROUP,
                    Frames.leave_request(self.sc.group.group_id, m.member_id, "the consumer is being closed"),
                    t,
                )
                self._at(t + self.lat, "leave", m, cid)
            else:  # found by the coordinator when its session expires
                last_hb = t - ((t - m.hb_phase) % self.hb)
                self._last_heartbeats(m, last_hb, t)
                self._at(max(t, last_hb + self.sc.group.session_timeout_ms / 1000.0), "expire", m)
                if clean:
                    self.rec.close(m.key, t)
        self.metrics.dirty.add(inst.name)
        if reason:
            self.notes.append(f"{t:g} s: {inst.name} stopped: {reason}")

    def _last_heartbeats(self, m: SimMember, last_hb: float, t: float) -> None:
        """The last two heartbeats of a member that stops without a LeaveGroup (a crash, or a Streams instance
        closed without leaving), on the wire (:meth:`codec.simulate.wire.Recorder.heartbeats`)."""
        if m.member_id in self.cmembers and not m.joining:
            g = self.sc.group.group_id
            self.rec.heartbeats(m.key, g, m.generation, m.member_id, (last_hb - self.hb, last_hb), self.lat, t)

    # ------------------------------------------------------------------ members

    def _offset_sums(self, inst: Instance, t: float) -> dict[TaskId, int]:
        sums: dict[TaskId, int] = {}
        prev = set().union(*(m.prev_active for m in inst.members)) if self.protocol.rebalance == "EAGER" else set()
        for task_id, st in sorted(self.dir_stores.get(inst.state_dir, {}).items()):
            if (st.active not in (None, inst.name)) or (st.followers - {inst.name}):
                continue  # locked by another instance sharing the directory
            task = self.tasks[task_id]
            running = st.active == inst.name and not st.restoring
            if running or (task_id in prev and task.owner is None):
                sums[task_id] = -2
            else:
                sums[task_id] = int(self._pos(task, st, t))
        return sums

    def _subscription(self, m: SimMember, t: float) -> bytes:
        inst = m.instance
        v = m.used
        sums = self._offset_sums(inst, t)
        if v <= 6:
            sums = {k: (-2 if s == -2 else -3) for k, s in sums.items()}
        info = SubscriptionInfo(
            version=v,
            latest_supported_version=inst.latest if v >= 3 else -1,
            process_id=inst.process_id,
            task_offset_sums=sums,
            client_tags={LOCALITY_TAG: inst.host} if v >= 11 else {},
            user_endpoint=f"{inst.host}:8080" if v < 11 and self.protocol.assignor == "host_affinity" else None,
        )
        user_data = encode_subscription(info, drop_unrepresentable=True)
        owned: tuple = ()
        if m.rebalance == "COOPERATIVE" and m.owned:
            by_topic: dict[str, list[int]] = {}
            for tp in m.owned:
                by_topic.setdefault(tp.topic, []).append(tp.partition)
            owned = tuple(_OwnedTP(topic=k, partitions=tuple(v)) for k, v in by_topic.items())
        return encode_consumer(
            consumer_subscription(
                3,
                topics=self.topics,
                user_data=user_data,
                owned_partitions=owned,
                generation_id=m.generation,
                rack_id=None,
            )
        )

    def _send_join(self, m: SimMember, t: float, reason: str) -> None:
        if not m.alive or m.joining:
            return
        m.joining = True
        m.join_reason = reason
        if m.rebalance == "EAGER":  # onJoinPrepare revokes everything
            for task_id in sorted(m.active):
                self._stop_active(m, task_id, t)
            m.owned = ()
        g = self.sc.group
        cid, frame = self.rec.request(
            m.key,
            JOIN_GROUP,
            Frames.join_request(
                g.group_id,
                m.member_id,
                self._subscription(m, t),
                g.session_timeout_ms,
                g.rebalance_timeout_ms,
                reason if self.reasons else None,
            ),
            t,
        )
        self._at(t + self.lat, "join", m, cid, frame)

    def _on_member_join(self, t: float, m: SimMember, reason: str) -> None:
        self._send_join(m, t, reason)

    def _on_probe(self, t: float, m: SimMember, token: int) -> None:
        if m.alive and m.probe_token == token:
            self._send_join(m, t, "scheduled probing rebalance")

    def _on_heartbeat(self, t: float, m: SimMember, rebalance_id: int) -> None:
        """A member's next heartbeat after a rebalance started: REBALANCE_IN_PROGRESS, so it rejoins."""
        if not m.alive or m.joining or self.state != "PreparingRebalance" or self.rebalance_id != rebalance_id:
            return
        if m.member_id not in self.cmembers:
            return
        cid, _ = self.rec.request(
            m.key, HEARTBEAT, Frames.heartbeat_request(self.sc.group.group_id, m.generation, m.member_id), t
        )
        resp = self.rec.response(m.key, cid, Frames.heartbeat_response(REBALANCE_IN_PROGRESS), t + self.lat)
        if resp.body.error_code == REBALANCE_IN_PROGRESS:
            self._at(t + 2 * self.lat, "member_join", m, "group is rebalancing")

    def _apply(self, m: SimMember, data: bytes, t: float) -> None:
        """``onAssignment``: the ConsumerProtocol assignment and its AssignmentInfo, from the bytes received."""
        inst = m.instance
        cpa = decode_consumer(ASSIGNMENT, data)
        info = decode_assignment(cpa.data.user_data or b"", latest=inst.latest)
        if info.error_code:
            self._stop_instance(
                inst, t, clean=False, reason=f"assignment error code {describe_error_code(info.error_code)}"
            )
            inst.failed = f"error code {describe_error_code(info.error_code)}"
            return
        received, csv = info.version, info.commonly_supported_version
        if received > m.used or csv > LATEST_SUPPORTED_VERSION:
            self._stop_instance(inst, t, clean=False, reason=f"assignment v{received}/{csv} with used v{m.used}")
            inst.failed = "version"
            return
        rejoin = None
        if received >= EARLIEST_PROBEABLE_VERSION:
            if csv > m.used:
                m.used, rejoin = csv, f"metadata upgrade to v{csv}"
            elif received < m.used:
                m.used, rejoin = csv, f"metadata downgrade to v{csv}"
        assigned = {
            tp for a in cpa.data.assigned_partitions for tp in (TopicPartition(a.topic, p) for p in a.partitions)
        }
        new_active = set(info.active_tasks)
        if {tp for t_ in new_active for tp in self.sub_of[t_].source_partitions(t_)} != assigned:
            self.notes.append(f"{t:g} s: {m.member_id}: assigned partitions do not match its active tasks")
        revoked = m.active - new_active
        for task_id in sorted(revoked):
            self._stop_active(m, task_id, t)
        if revoked and m.rebalance == "COOPERATIVE":
            rejoin = rejoin or "partitions revoked"
        for task_id in sorted(m.standby - set(info.standby_tasks)):
            self._unfollow(m, task_id, t)
        for task_id in sorted(new_active - m.active):
            self._start_active(m, task_id, t)
        for task_id in sorted(set(info.standby_tasks) - m.standby):
            self._follow(m, task_id, t)
        m.prev_active = frozenset(new_active)
        m.owned = self._partitions(new_active)
        m.probe_token += 1
        if info.next_rebalance_ms == 0:
            rejoin = rejoin or "nextRebalance 0"
        elif info.next_rebalance_ms != NO_REBALANCE and rejoin is None:
            self._at(max(t, info.next_rebalance_ms / 1000.0 - EPOCH), "probe", m, m.probe_token)
        if rejoin:
            self._at(t + self.lat, "member_join", m, rejoin)

    # ------------------------------------------------------------------ coordinator

    def _on_join(self, t: float, m: SimMember, cid: int, frame) -> None:
        body = frame.body
        if not m.alive:
            return
        if not body.member_id:  # two-step join (JoinGroup v4+)
            m.member_id = self._new_member_id(m)
            self.rec.response(m.key, cid, Frames.join_response(MEMBER_ID_REQUIRED, -1, None, "", m.member_id), t)
            m.joining = False
            self._at(t + self.lat, "member_join", m, "rejoin with the member id")
            return
        if body.member_id not in self.cmembers and self.state != "Empty" and m.generation >= 0:
            self.rec.response(m.key, cid, Frames.join_response(UNKNOWN_MEMBER_ID, -1, None, "", ""), t)
            m.member_id, m.generation, m.joining = "", -1, False
            for task_id in sorted(m.active):  # the member lost its partitions
                self._stop_active(m, task_id, t)
            m.owned = ()
            self._at(t + self.lat, "member_join", m, "unknown member id")
            return
        cm = self.cmembers.get(body.member_id)
        new = cm is None
        if cm is None:
            cm = self.cmembers[body.member_id] = CoordinatorMember(m)
        cm.metadata = body.protocols[0].metadata
        cm.correlation_id = cid
        if self.state in ("Stable", "Empty"):
            cause = (join_cause(new, m.join_reason), body.member_id)
            self._start_rebalance(t, f"JoinGroup from {m.instance.name} ({body.reason})", cause)
        cm.joined = True
        if self.rebalance is not None and body.reason:
            self.rebalance.setdefault("join_reasons", set()).add(f"{m.instance.name}: {body.reason}")
        self._maybe_complete(t)

    def _on_leave(self, t: float, m: SimMember, cid: int) -> None:
        self.rec.response(m.key, cid, Frames.leave_response(m.member_id), t)
        self.rec.close(m.key, t + self.lat)
        self._remove(t, m.member_id, f"LeaveGroup from {m.instance.name}", LEFT)

    def _on_expire(self, t: float, m: SimMember) -> None:
        if m.member_id in self.cmembers and not m.alive:
            self._remove(t, m.member_id, f"session of {m.instance.name} expired", EXPIRED)

    def _remove(self, t: float, member_id: str, why: str, cause: str) -> None:
        if member_id not in self.cmembers:
            return
        del self.cmembers[member_id]
        if self.leader == member_id:
            self.leader = None
        if not self.cmembers:
            self.state, self.rebalance = "Empty", None
            return
        if self.state == "Stable":
            self._start_rebalance(t, why, (cause, member_id))
        self._maybe_complete(t)

    def _start_rebalance(self, t: float, trigger: str, cause: tuple[str, str]) -> None:
        """``cause``: why, in :mod:`codec.causes`' words, and the member it names (:mod:`codec.simulate.truth`)."""
        self.state = "PreparingRebalance"
        self.rebalance_id += 1
        self.rebalance = {"trigger": trigger, "cause": cause[0], "cause_member": cause[1], "started_s": round(t, 6)}
        for cm in self.cmembers.values():
            cm.joined = False
            m = cm.member
            if m.alive and not m.joining:
                nxt = m.hb_phase + self.hb * (int((t - m.hb_phase) // self.hb) + 1)
                self._at(max(nxt, t), "heartbeat", m, self.rebalance_id)
        self._at(t + self.sc.group.rebalance_timeout_ms / 1000.0, "rebalance_timeout", self.rebalance_id)

    def _on_rebalance_timeout(self, t: float, rebalance_id: int) -> None:
        if self.state == "PreparingRebalance" and self.rebalance_id == rebalance_id:
            for mid in [mid for mid, cm in self.cmembers.items() if not cm.joined]:
                del self.cmembers[mid]
                if self.leader == mid:
                    self.leader = None
            if not self.cmembers:
                self.state = "Empty"
            self._maybe_complete(t)

    def _maybe_complete(self, t: float) -> None:
        if self.state != "PreparingRebalance" or not self.cmembers:
            return
        if all(cm.joined for cm in self.cmembers.values()):
            self._complete(t)

    def _complete(self, t: float) -> None:
        """Join phase done: JoinGroup responses, the leader's assignment, SyncGroup both ways."""
        g, lat = self.sc.group, self.lat
        self.generation += 1
        gen = self.generation
        selection = select_protocol([GroupMember(mid, ("stream",)) for mid in self.cmembers])
        self.group_protocol = selection.protocol
        if self.leader not in self.cmembers:
            self.leader = next(iter(self.cmembers))
        leader_cm = self.cmembers[self.leader]
        responses = {}
        for mid, cm in self.cmembers.items():
            members = {x: c.metadata for x, c in self.cmembers.items()} if mid == self.leader else None
            responses[mid] = self.rec.response(
                cm.member.key,
                cm.correlation_id,
                Frames.join_response(NONE, gen, self.group_protocol, self.leader, mid, members),
                t,
            )
            cm.member.joining = False
            cm.member.generation = gen
        # the leader decodes its JoinGroup response and assigns
        lm = leader_cm.member
        metadata = {x.member_id: x.metadata for x in responses[self.leader].body.members}
        end = {tid: int(self._end(task, t)) for tid, task in self.tasks.items() if task.stateful}
        result = leader_assign(
            self.protocol,
            metadata,
            self.sc.topology,
            configs=self.sc.configs,
            end_offset_sums=end,
            leader_member_id=self.leader,
            now_ms=int(round((EPOCH + t) * 1000)),  # Kafka's clock: the deadline it writes is wall-clock ms
            latest=lm.instance.latest,
        )
        for mid, cm in self.cmembers.items():
            assignments = dict(result.assignments) if mid == self.leader else {}
            cm.sync_correlation_id, frame = self.rec.request(
                cm.member.key, SYNC_GROUP, Frames.sync_request(g.group_id, gen, mid, assignments), t + lat
            )
            if mid == self.leader:
                received = {a.member_id: a.assignment for a in frame.body.assignments}
        warmups: dict[uuid.UUID, tuple] = {}
        if result.group is not None:
            warmups = {c.process_id: c.warmup for c in result.group.clients.clients}
        replies = {}
        for mid, cm in self.cmembers.items():
            resp = self.rec.response(
                cm.member.key, cm.sync_correlation_id, Frames.sync_response(NONE, received.get(mid, b"")), t + 2 * lat
            )
            replies[mid] = (cm.member, resp.body.assignment)
        self.state = "Stable"
        rb = self.rebalance or {"trigger": "?", "started_s": t}
        rb.update(
            {
                "generation": gen,
                "completed_s": round(t + 2 * lat, 6),
                "members": len(self.cmembers),
                "leader": lm.instance.name,
                "assignment_version": result.version,
                "commonly_supported_version": result.commonly_supported_version,
                "error_code": result.error_code,
                "error_name": assignor_error_name(result.error_code),
                "probing_rebalance_needed": bool(result.group and result.group.probing_rebalance_needed),
                "warmups": sum(len(w) for w in warmups.values()),
            }
        )
        rb["join_reasons"] = sorted(rb.get("join_reasons", ()))
        if result.notes:
            rb["notes"] = list(result.notes)
        self.rebalance = None
        self._at(t + 2 * lat, "sync", gen, replies, warmups, rb)

    def _on_sync(self, t: float, gen: int, replies: dict, warmups: dict, rb: dict) -> None:
        for inst in self.instances.values():
            if inst.alive:
                inst.warmups = frozenset(warmups.get(inst.process_id, ()))
                self.metrics.dirty.add(inst.name)
        for mid, (m, data) in replies.items():
            if m.alive:
                self._apply(m, data, t)
        now = {tid: task.owner.instance.name for tid, task in self.tasks.items() if task.owner}
        moved = sum(1 for tid, inst in now.items() if self.last_owner.get(tid) not in (None, inst))
        self.last_owner.update(now)
        standby_now = {
            (m.instance.name, s) for i in self.instances.values() for m in i.members if m.alive for s in m.standby
        }
        if now != self.last_assignment or standby_now != getattr(self, "_last_standby", None):
            self.metrics.last_change = t
        self.last_assignment, self._last_standby = now, standby_now
        rb["moved_actives"] = moved
        rb["coordinator_bytes"] = self.rec.coordinator_bytes - self.bytes_mark
        self.bytes_mark = self.rec.coordinator_bytes
        self.rebalances.append(rb)
        self.metrics.rebalance_marks.append(t)


def simulate(scenario: Scenario, protocol: str = "ha", **kw) -> SimulationResult:
    return Simulation(scenario, protocol, **kw).run()
