"""Kafka Connect's assignors: what the leader of a Connect group computes from its members' JoinGroup metadata.

Two assignors, as Kafka's ``WorkerCoordinator`` picks them by the group's protocol (Kafka 1eb7644):

* :func:`assign_eager` (protocol ``default``, ``EagerAssignor``): every rebalance starts from nothing. The
  connectors, sorted, go round the members sorted by id; the tasks, connector by connector in order, go on
  round the same circle where the connectors stopped. Every member gets a v0 assignment of everything it runs.
* :func:`assign_incremental` (``compatible`` v1 and ``sessioned`` v2, ``IncrementalCooperativeAssignor``,
  KIP-415, seed 003's Designs I-III): members keep what they run (Design I: only what moves is revoked, and a
  revoked item is given out in a later round); work of a member that left stays unassigned while
  ``scheduled.rebalance.max.delay.ms`` runs and the assignments carry the remaining delay (Design II), given
  back to a worker that joins empty meanwhile or spread on expiry; connectors and tasks are balanced separately,
  revoking only what a worker holds above its fair share, and successive revoking rounds are spaced by an
  exponential backoff (Design III). Assignments are *incremental*: each names what to start and what to stop.

The incremental assignor keeps state between rounds on the leader (its view of the previous assignment, the
pending revocation, the scheduled rebalance and its candidate workers): :class:`IncrementalAssignorState`. A
caller passes the state of the previous round back in; ``None`` is a fresh leader (a new leader starts from a
clean slate, and the members' own previous assignments — their metadata's ``allocation`` — are all it knows).

Kafka's collections are Java hash maps and sets, and some choices follow their iteration order (which member
is asked to give up load first, the order of revoked items, the order of candidate workers): the members are
visited in Java ``HashMap`` order of their ids, as Kafka's leader does, and a worker's own connectors and
tasks in the order of its previous assignment (the order of its metadata's allocation). New work goes to the
least loaded workers first, ties by member id in ``String.compareTo`` order. (Java 17's hash tables; exact
while no bucket holds eight or more members.)

Kafka's quirks are kept: on expiry of the delay the candidate workers receive the lost work before the
balancing revocations are worked out, so a candidate can be asked, in one assignment, to start lost tasks and
to stop one it never ran (that task is handed out again the next round); and the leader's config snapshot is
taken to be at the offset of the leader's own metadata (``leader_fresh_offset`` is the offset of the fresh
snapshot it reads when a member is ahead; unset, it catches up).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from ..javaorder import copy_capacity, filled_capacity, hash_order, string_hash
from ..types import java_string_key
from ..connect.assignment import ConnectAssignment, ConnectorTaskId, encode_connect_assignment
from ..connect.constants import (
    CONNECT_PROTOCOL_V0,
    CONNECT_PROTOCOL_V1,
    CONNECT_PROTOCOL_V2,
    ConnectError,
    protocol_version,
)
from ..connect.metadata import ConnectMetadata, decode_connect_metadata

__all__ = [
    "DEFAULT_MAX_DELAY_MS",
    "ConnectAssignResult",
    "ConnectWorker",
    "IncrementalAssignorState",
    "apply_assignment",
    "assign_connect",
    "assign_eager",
    "assign_incremental",
    "connector_tasks",
    "workers_from_metadata",
]

#: ``scheduled.rebalance.max.delay.ms``'s default (``DistributedConfig``): five minutes.
DEFAULT_MAX_DELAY_MS = 300_000

# ExponentialBackoff of successive revoking rebalances: initial 1 ms (0 when the max delay is 0), multiplier 40,
# capped at the max delay, no jitter.
_BACKOFF_MULTIPLIER = 40


# --- inputs and outputs ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConnectWorker:
    """One member of the group as the leader sees it in the JoinGroup response: its member id, its REST URL, the
    config offset it has read to, and its previous assignment (the metadata's ``allocation``; None: Kafka's
    empty assignment, as from a new worker or an eager one). Only the allocation's ``connectors`` and ``tasks``
    count, in their order."""

    member_id: str
    url: str = ""
    config_offset: int = 0
    assignment: ConnectAssignment | None = None

    @classmethod
    def from_metadata(cls, member_id: str, metadata: ConnectMetadata | bytes | bytearray | memoryview) -> ConnectWorker:
        """A member from its JoinGroup metadata, a model or the bytes (read as Kafka's assignors read every
        member's metadata: with ``IncrementalCooperativeConnectProtocol.deserializeMetadata``)."""
        model = (
            metadata
            if isinstance(metadata, ConnectMetadata)
            else decode_connect_metadata(bytes(metadata), reader_version=CONNECT_PROTOCOL_V1)
        )
        return cls(member_id, model.url, model.config_offset, model.allocation)

    @property
    def connectors(self) -> tuple[str, ...]:
        return self.assignment.connectors if self.assignment is not None else ()

    @property
    def tasks(self) -> tuple[ConnectorTaskId, ...]:
        return self.assignment.tasks if self.assignment is not None else ()


def workers_from_metadata(members: Iterable[tuple[str, ConnectMetadata | bytes]]) -> list[ConnectWorker]:
    """The workers of a JoinGroup response's member list ``[(member_id, metadata), ...]``."""
    return [ConnectWorker.from_metadata(m, md) for m, md in members]


@dataclass(frozen=True, slots=True)
class IncrementalAssignorState:
    """What Kafka's ``IncrementalCooperativeAssignor`` remembers from one round to the next on the leader.

    ``previous_connectors``/``previous_tasks``: its view of the previous assignment (what it handed out, less
    what it revoked, plus what was lost and is still held back); ``revoked_connectors``/``revoked_tasks``: the
    previous round's revocations (a revocation that did not take effect resets the view); ``revoked_in_previous``
    and ``successive_revoking_rebalances``: the backoff of load-balancing revocations; ``scheduled_rebalance``
    (epoch ms, 0: none) and ``delay`` (ms): the scheduled rebalance (Design II); ``candidate_workers``: workers
    that joined empty while it ran, in the order they were first seen, who get the lost work on expiry;
    ``previous_generation_id`` and ``previous_members``: the generation and members of the round."""

    previous_connectors: frozenset[str] = frozenset()
    previous_tasks: frozenset[ConnectorTaskId] = frozenset()
    revoked_connectors: frozenset[str] = frozenset()
    revoked_tasks: frozenset[ConnectorTaskId] = frozenset()
    revoked_in_previous: bool = False
    successive_revoking_rebalances: int = 0
    scheduled_rebalance: int = 0
    delay: int = 0
    candidate_workers: tuple[str, ...] = ()
    previous_generation_id: int = -1
    previous_members: frozenset[str] = frozenset()

    def to_json(self) -> dict:
        """A JSON object of the state (sets sorted as Java sorts them), for :meth:`from_json`."""

        def tasks(ts):
            return [{"connector": t.connector, "task": t.task} for t in _java_sorted_tasks(ts)]

        return {
            "previousConnectors": _java_sorted_names(self.previous_connectors),
            "previousTasks": tasks(self.previous_tasks),
            "revokedConnectors": _java_sorted_names(self.revoked_connectors),
            "revokedTasks": tasks(self.revoked_tasks),
            "revokedInPrevious": self.revoked_in_previous,
            "successiveRevokingRebalances": self.successive_revoking_rebalances,
            "scheduledRebalance": self.scheduled_rebalance,
            "delay": self.delay,
            "candidateWorkers": list(self.candidate_workers),
            "previousGenerationId": self.previous_generation_id,
            "previousMembers": _java_sorted_names(self.previous_members),
        }

    @classmethod
    def from_json(cls, obj: Mapping) -> IncrementalAssignorState:
        """The state from :meth:`to_json`'s object; missing keys take a fresh leader's values; wrong types and
        unknown keys are a ValueError naming the key."""
        known = set(cls().to_json())
        if not isinstance(obj, Mapping):
            raise ValueError("assignor state must be a JSON object")
        for k in obj:
            if k not in known:
                raise ValueError(f"assignor state: unknown key {k!r}")

        def names(key):
            v = obj.get(key, [])
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise ValueError(f"assignor state: {key} must be a list of strings")
            return v

        def tasks(key):
            v = obj.get(key, [])
            out = []
            if not isinstance(v, list):
                raise ValueError(f"assignor state: {key} must be a list")
            for i, x in enumerate(v):
                if (
                    not isinstance(x, Mapping)
                    or set(x) != {"connector", "task"}
                    or not isinstance(x["connector"], str)
                    or isinstance(x["task"], bool)
                    or not isinstance(x["task"], int)
                ):
                    raise ValueError(f'assignor state: {key}[{i}] must be {{"connector": str, "task": int}}')
                out.append(ConnectorTaskId(x["connector"], x["task"]))
            return out

        def integer(key, default):
            v = obj.get(key, default)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"assignor state: {key} must be an integer")
            return v

        flag = obj.get("revokedInPrevious", False)
        if not isinstance(flag, bool):
            raise ValueError("assignor state: revokedInPrevious must be true or false")
        return cls(
            previous_connectors=frozenset(names("previousConnectors")),
            previous_tasks=frozenset(tasks("previousTasks")),
            revoked_connectors=frozenset(names("revokedConnectors")),
            revoked_tasks=frozenset(tasks("revokedTasks")),
            revoked_in_previous=flag,
            successive_revoking_rebalances=integer("successiveRevokingRebalances", 0),
            scheduled_rebalance=integer("scheduledRebalance", 0),
            delay=integer("delay", 0),
            candidate_workers=tuple(dict.fromkeys(names("candidateWorkers"))),
            previous_generation_id=integer("previousGenerationId", -1),
            previous_members=frozenset(names("previousMembers")),
        )


@dataclass(frozen=True, slots=True)
class ConnectAssignResult:
    """One round: ``assignments`` maps every member id to the assignment its SyncGroup carries (v0 from the
    eager assignor, v1/v2 from the incremental one, whose connectors and tasks are only the newly assigned
    ones); ``running`` maps every member to the connectors and tasks the leader counts it running once the
    assignment is applied (Kafka's ``LeaderState``: all assigned, less the revoked); ``state`` is the
    incremental assignor's state for the next round (None from the eager assignor); ``error`` is
    ``ConnectError.CONFIG_MISMATCH`` when the leader's config was behind a member's (every assignment is empty
    and carries the error; the state is unchanged)."""

    protocol: str
    leader: str
    config_offset: int
    assignments: dict[str, ConnectAssignment]
    running: dict[str, tuple[tuple[str, ...], tuple[ConnectorTaskId, ...]]]
    state: IncrementalAssignorState | None = None
    error: int = 0

    @property
    def delay(self) -> int:
        return self.state.delay if self.state is not None else 0

    def encoded(self, *, java_order: bool = True) -> dict[str, bytes]:
        """Each member's SyncGroup assignment bytes, as the leader writes them (``ConnectProtocol`` v0 or
        ``IncrementalCooperativeConnectProtocol`` with the v1 or v2 header); by default with the connectors
        grouped in Java's HashSet order, Kafka's bytes exactly."""
        return {m: encode_connect_assignment(a, java_order=java_order) for m, a in self.assignments.items()}


def connector_tasks(
    connectors: Mapping[str, int] | Iterable[tuple[str, int]],
) -> dict[str, tuple[ConnectorTaskId, ...]]:
    """The configured connectors (name -> task count) as their task ids 0..n-1."""
    items = connectors.items() if isinstance(connectors, Mapping) else connectors
    out: dict[str, tuple[ConnectorTaskId, ...]] = {}
    for name, count in items:
        if not isinstance(name, str):
            raise ValueError(f"connector name must be a string, not {name!r}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"connector {name!r}: task count must be an integer >= 0, not {count!r}")
        if name in out:
            raise ValueError(f"connector {name!r} configured twice")
        out[name] = tuple(ConnectorTaskId(name, i) for i in range(count))
    return out


def apply_assignment(previous: ConnectAssignment | None, received: ConnectAssignment) -> ConnectAssignment:
    """What a worker holds after a SyncGroup (``WorkerCoordinator.onJoinComplete``) — the allocation it sends in
    its next JoinGroup. Eager (v0): the received assignment itself. Incremental: the received one with the
    connectors and tasks it kept appended (its previous ones less the revoked), after the newly assigned."""
    if received.version == CONNECT_PROTOCOL_V0 or previous is None:
        return received
    revoked_c, revoked_t = set(received.revoked_connectors), set(received.revoked_tasks)
    kept_c = [c for c in previous.connectors if c not in revoked_c]
    kept_t = [t for t in previous.tasks if t not in revoked_t]
    return replace(received, connectors=received.connectors + tuple(kept_c), tasks=received.tasks + tuple(kept_t))


# --- Java collection order --------------------------------------------------------------------------------


def _task_hash(t: ConnectorTaskId) -> int:
    return (31 * string_hash(t.connector) + t.task) & 0xFFFFFFFF


def _member_order(members: Sequence[str]) -> list[str]:
    return hash_order(members, string_hash, filled_capacity(len(members)))


def _java_sorted_names(names: Iterable[str]) -> list[str]:
    return sorted(names, key=java_string_key)


def _java_sorted_tasks(tasks: Iterable[ConnectorTaskId]) -> list[ConnectorTaskId]:
    return sorted(tasks, key=ConnectorTaskId.sort_key)


# --- config offsets ----------------------------------------------------------------------------------------


def _check_workers(leader: str, workers: Sequence[ConnectWorker]) -> dict[str, ConnectWorker]:
    by_id: dict[str, ConnectWorker] = {}
    for w in workers:
        if w.member_id in by_id:
            raise ValueError(f"member {w.member_id!r} appears twice")
        by_id[w.member_id] = w
    if not by_id:
        raise ValueError("a group needs at least one worker")
    if leader not in by_id:
        raise ValueError(f"the leader {leader!r} is not a member of the group")
    return by_id


def _leader_offset(leader: ConnectWorker, max_offset: int, leader_fresh_offset: int | None) -> int | None:
    """``ensureLeaderConfig``: the offset to assign at, or None when the leader cannot catch up with the newest
    config a member has read. The leader's snapshot is at its own metadata's offset; behind ``max_offset`` it
    reads a fresh snapshot (``leader_fresh_offset``; None: caught up to ``max_offset``)."""
    if leader.config_offset >= max_offset:
        return max_offset
    fresh = max_offset if leader_fresh_offset is None else leader_fresh_offset
    return fresh if fresh >= max_offset else None


def _mismatch(
    protocol: str,
    version: int,
    leader: str,
    by_id: dict[str, ConnectWorker],
    max_offset: int,
    state: IncrementalAssignorState | None,
) -> ConnectAssignResult:
    url = by_id[leader].url
    assignments = {
        m: ConnectAssignment(
            version=version,
            error=int(ConnectError.CONFIG_MISMATCH),
            leader=leader,
            leader_url=url,
            config_offset=max_offset,
        )
        for m in by_id
    }
    return ConnectAssignResult(
        protocol,
        leader,
        max_offset,
        assignments,
        {m: ((), ()) for m in by_id},
        state,
        int(ConnectError.CONFIG_MISMATCH),
    )


# --- the eager assignor -----------------------------------------------------------------------------------


def assign_eager(
    leader: str,
    workers: Sequence[ConnectWorker],
    connectors: Mapping[str, int] | Iterable[tuple[str, int]],
    *,
    leader_fresh_offset: int | None = None,
) -> ConnectAssignResult:
    """``EagerAssignor``: round-robin over the members sorted by id, first every connector (sorted by name), then,
    continuing round the same circle, every task (connector by connector, by task number). Each member's v0
    assignment lists all it runs; leader, leader URL (the leader's metadata URL) and the config offset (the
    highest any member reported) are the same for all."""
    by_id = _check_workers(leader, workers)
    configured = connector_tasks(connectors)
    max_offset = max(w.config_offset for w in by_id.values())
    offset = _leader_offset(by_id[leader], max_offset, leader_fresh_offset)
    if offset is None:
        return _mismatch("default", CONNECT_PROTOCOL_V0, leader, by_id, max_offset, None)
    circle = _java_sorted_names(by_id)
    position = 0
    got_c: dict[str, list[str]] = {m: [] for m in by_id}
    got_t: dict[str, list[ConnectorTaskId]] = {m: [] for m in by_id}
    names = _java_sorted_names(configured)
    for name in names:
        got_c[circle[position % len(circle)]].append(name)
        position += 1
    for name in names:
        for task in _java_sorted_tasks(configured[name]):
            got_t[circle[position % len(circle)]].append(task)
            position += 1
    url = by_id[leader].url
    assignments = {
        m: ConnectAssignment(
            version=CONNECT_PROTOCOL_V0,
            error=int(ConnectError.NO_ERROR),
            leader=leader,
            leader_url=url,
            config_offset=offset,
            connectors=tuple(got_c[m]),
            tasks=tuple(got_t[m]),
        )
        for m in by_id
    }
    running = {m: (tuple(got_c[m]), tuple(got_t[m])) for m in by_id}
    return ConnectAssignResult("default", leader, offset, assignments, running, None)


# --- the incremental cooperative assignor ----------------------------------------------------------------


class _Load:
    """A worker's load during the computation: ordered sets (dict keys) of connectors and tasks."""

    __slots__ = ("connectors", "tasks", "worker")

    def __init__(self, worker: str, connectors: Iterable[str] = (), tasks: Iterable[ConnectorTaskId] = ()):
        self.worker = worker
        self.connectors: dict[str, None] = dict.fromkeys(connectors)
        self.tasks: dict[ConnectorTaskId, None] = dict.fromkeys(tasks)

    def is_empty(self) -> bool:
        return not self.connectors and not self.tasks


def _backoff(max_delay: int, attempts: int) -> int:
    """Kafka's ``ExponentialBackoff(maxDelay == 0 ? 0 : 1, 40, maxDelay, 0).backoff(attempts)``."""
    initial = min(max_delay, 0 if max_delay == 0 else 1)
    exp_max = math.log(max_delay / max(initial, 1)) / math.log(_BACKOFF_MULTIPLIER) if max_delay > initial else 0.0
    if exp_max == 0:
        return initial
    term = initial * math.pow(_BACKOFF_MULTIPLIER, min(attempts, exp_max))
    return min(int(term), max_delay)


class _Round:
    """One run of the incremental assignor; its fields are Kafka's assignor state, changed as Kafka changes it."""

    def __init__(self, state: IncrementalAssignorState, max_delay: int, now: int):
        self.max_delay = max_delay
        self.now = now
        self.previous_c = set(state.previous_connectors)
        self.previous_t = set(state.previous_tasks)
        self.revocation_c = set(state.revoked_connectors)
        self.revocation_t = set(state.revoked_tasks)
        self.revoked_in_previous = state.revoked_in_previous
        self.successive = state.successive_revoking_rebalances
        self.scheduled = state.scheduled_rebalance
        self.delay = state.delay
        self.candidates: dict[str, None] = dict.fromkeys(state.candidate_workers)
        self.previous_generation_id = state.previous_generation_id
        self.previous_members = set(state.previous_members)

    def state(self) -> IncrementalAssignorState:
        return IncrementalAssignorState(
            previous_connectors=frozenset(self.previous_c),
            previous_tasks=frozenset(self.previous_t),
            revoked_connectors=frozenset(self.revocation_c),
            revoked_tasks=frozenset(self.revocation_t),
            revoked_in_previous=self.revoked_in_previous,
            successive_revoking_rebalances=self.successive,
            scheduled_rebalance=self.scheduled,
            delay=self.delay,
            candidate_workers=tuple(self.candidates),
            previous_generation_id=self.previous_generation_id,
            previous_members=frozenset(self.previous_members),
        )

    def reset_delay(self) -> None:
        self.candidates.clear()
        self.scheduled = 0
        self.delay = 0

    def handle_lost(
        self,
        lost_c: list[str],
        lost_t: list[ConnectorTaskId],
        loads: list[_Load],
        reassign_c: list[str],
        reassign_t: list[ConnectorTaskId],
    ) -> None:
        """Design II: hold lost work back while the scheduled rebalance runs; on expiry give it to the workers
        that joined empty meanwhile (round-robin, connectors then tasks each from the first candidate), or treat
        it as new work when there are none."""
        if not lost_c and not lost_t and not self.revoked_in_previous:
            self.reset_delay()
            return
        active = {load.worker for load in loads}
        if self.scheduled <= 0 and active >= self.previous_members:
            # nobody left: the work went missing because an assignment did not arrive; hand it out again now
            reassign_c += lost_c
            reassign_t += lost_t
            return
        if self.max_delay == 0:
            reassign_c += lost_c
            reassign_t += lost_t
            return
        if self.scheduled > 0 and self.now >= self.scheduled:
            by_worker = {load.worker: load for load in loads}
            picked = [by_worker[w] for w in self.candidates if w in by_worker] if self.candidates else []
            if picked:
                for i, c in enumerate(lost_c):
                    picked[i % len(picked)].connectors[c] = None
                for i, t in enumerate(lost_t):
                    picked[i % len(picked)].tasks[t] = None
            else:
                reassign_c += lost_c
                reassign_t += lost_t
            self.reset_delay()
            self.revoked_in_previous = False
            return
        empty = [load.worker for load in loads if load.is_empty()]
        for w in hash_order(empty, string_hash, filled_capacity(len(empty))):
            self.candidates.setdefault(w, None)
        if self.now < self.scheduled:
            diff = self.scheduled - self.now
            self.delay = min(diff, self.max_delay) if diff > 0 else 0
        else:
            self.delay = self.max_delay
        self.scheduled = self.now + self.delay


def _balance_revocations(total: int, loads: list[_Load], kind: str) -> dict[str, list]:
    """Revoke from each worker what it holds above its fair share: ``total // workers``, and one more for the
    first ``total % workers`` workers above that share (members in the leader's order); nothing when the
    allocation, with the work still to be given out, already balances. Revoked first: a worker's earliest."""
    n = len(loads)
    least, extra = divmod(total, n)
    sizes = [len(getattr(load, kind)) for load in loads]
    at_least = sum(1 for s in sizes if s == least)
    at_extra = sum(1 for s in sizes if s == least + 1)
    if at_extra == extra and at_least + at_extra == n:
        return {}
    out: dict[str, list] = {}
    extras_given = 0
    for load, size in zip(loads, sizes):
        if size <= least:
            continue
        if extras_given < extra:
            extras_given += 1
            if size == least + 1:
                continue
            keep = least + 1
        else:
            keep = least
        out[load.worker] = list(getattr(load, kind))[: size - keep]
    return out


def _assign_new(loads: list[_Load], items: list, kind: str) -> None:
    """``assignConnectors``/``assignTasks``: the workers sorted by load then id; each item to the least loaded,
    filling up the least loaded ones a round at a time, in that order."""
    loads.sort(key=lambda load: (len(getattr(load, kind)), java_string_key(load.worker)))
    order = {load.worker: i for i, load in enumerate(loads)}
    for item in items:
        target = min(loads, key=lambda load: (len(getattr(load, kind)), order[load.worker]))
        getattr(target, kind)[item] = None


def assign_incremental(
    leader: str,
    workers: Sequence[ConnectWorker],
    connectors: Mapping[str, int] | Iterable[tuple[str, int]],
    *,
    now: int,
    state: IncrementalAssignorState | None = None,
    protocol: str | int = "sessioned",
    max_delay: int = DEFAULT_MAX_DELAY_MS,
    generation_id: int | None = None,
    last_completed_generation_id: int | None = None,
    leader_fresh_offset: int | None = None,
) -> ConnectAssignResult:
    """``IncrementalCooperativeAssignor.performAssignment`` for one round.

    ``workers`` in the JoinGroup response's order, each with its previous assignment; ``connectors``: name ->
    task count (the leader's config snapshot); ``now``: the leader's clock in ms; ``state``: the previous
    round's :attr:`ConnectAssignResult.state` (None: a leader with no memory, e.g. just elected);
    ``protocol``: ``compatible``/``sessioned`` or 1/2, the assignments' version; ``max_delay``:
    ``scheduled.rebalance.max.delay.ms``. ``generation_id`` is this round's generation and
    ``last_completed_generation_id`` the leader's last completed one: when it is not the generation of the
    state's round (an assignment that never arrived), the assignor forgets its view of the previous assignment.
    Unset, the round follows the state's (``previous + 1``; last completed = the state's)."""
    version = protocol_version(protocol) if isinstance(protocol, str) else protocol
    if isinstance(version, bool) or version not in (CONNECT_PROTOCOL_V1, CONNECT_PROTOCOL_V2):
        raise ValueError(
            f"the incremental cooperative assignor runs protocol compatible (1) or sessioned (2), not {protocol!r}"
        )
    if isinstance(max_delay, bool) or not isinstance(max_delay, int) or max_delay < 0:
        raise ValueError(f"max_delay must be an integer >= 0 (ms), not {max_delay!r}")
    name = "compatible" if version == CONNECT_PROTOCOL_V1 else "sessioned"
    by_id = _check_workers(leader, workers)
    configured = connector_tasks(connectors)
    state = state if state is not None else IncrementalAssignorState()
    max_offset = max(w.config_offset for w in by_id.values())
    offset = _leader_offset(by_id[leader], max_offset, leader_fresh_offset)
    if offset is None:
        return _mismatch(name, version, leader, by_id, max_offset, state)
    if generation_id is None:
        generation_id = state.previous_generation_id + 1
    if last_completed_generation_id is None:
        last_completed_generation_id = state.previous_generation_id

    r = _Round(state, max_delay, now)
    if r.previous_generation_id != last_completed_generation_id:
        r.previous_c, r.previous_t = set(), set()

    members = _member_order(list(by_id))
    held = {m: _Load(m, by_id[m].connectors, by_id[m].tasks) for m in members}

    configured_c = set(configured)
    configured_t = {t for ts in configured.values() for t in ts}
    active_c = {c for m in members for c in held[m].connectors}
    active_t = {t for m in members for t in held[m].tasks}

    # a revocation of the previous round that some worker still runs did not take effect: start from what runs
    if r.revocation_c or r.revocation_t:
        if r.revocation_c & active_c or r.revocation_t & active_t:
            r.previous_c, r.previous_t = set(active_c), set(active_t)
        r.revocation_c, r.revocation_t = set(), set()

    deleted_c, deleted_t = r.previous_c - configured_c, r.previous_t - configured_t
    count_c: dict[str, int] = {}
    count_t: dict[ConnectorTaskId, int] = {}
    for m in members:
        for c in held[m].connectors:
            count_c[c] = count_c.get(c, 0) + 1
        for t in held[m].tasks:
            count_t[t] = count_t.get(t, 0) + 1
    duplicated_c = {c for c, n in count_c.items() if n > 1}
    duplicated_t = {t for t, n in count_t.items() if n > 1}
    lost_c = _java_sorted_names(r.previous_c - active_c - deleted_c)
    lost_t = _java_sorted_tasks(r.previous_t - active_t - deleted_t)
    created_c = _java_sorted_names(configured_c - r.previous_c - active_c)
    created_t = _java_sorted_tasks(configured_t - r.previous_t - active_t)

    current = {
        m: _Load(
            m, [c for c in held[m].connectors if c not in deleted_c], [t for t in held[m].tasks if t not in deleted_t]
        )
        for m in members
    }

    # revoked: what was deleted, then what runs twice (from every worker running it), in HashSet order of the
    # worker's own assignment; then the load-balancing revocations
    revoke_c: dict[str, dict[str, None]] = {m: {} for m in members}
    revoke_t: dict[str, dict[ConnectorTaskId, None]] = {m: {} for m in members}
    for m in members:
        own_c = hash_order(list(held[m].connectors), string_hash, copy_capacity(len(held[m].connectors)))
        own_t = hash_order(list(held[m].tasks), _task_hash, copy_capacity(len(held[m].tasks)))
        for which_c, which_t in ((deleted_c, deleted_t), (duplicated_c, duplicated_t)):
            for c in own_c:
                if c in which_c:
                    revoke_c[m][c] = None
            for t in own_t:
                if t in which_t:
                    revoke_t[m][t] = None

    loads = [_Load(m, held[m].connectors, held[m].tasks) for m in members]
    for load in loads:
        for c in revoke_c[load.worker]:
            load.connectors.pop(c, None)
        for t in revoke_t[load.worker]:
            load.tasks.pop(t, None)

    reassign_c: list[str] = []
    reassign_t: list[ConnectorTaskId] = []
    r.handle_lost(lost_c, lost_t, loads, reassign_c, reassign_t)

    if r.delay == 0:
        balance_c: dict[str, list] = {}
        balance_t: dict[str, list] = {}
        if not all(load.is_empty() for load in loads) and configured_c | configured_t:
            balance_c = _balance_revocations(len(configured_c), loads, "connectors")
            balance_t = _balance_revocations(len(configured_t), loads, "tasks")
        balancing = bool(balance_c or balance_t)

        def revoke_now() -> None:
            for load in loads:
                for c in balance_c.get(load.worker, ()):
                    revoke_c[load.worker][c] = None
                    load.connectors.pop(c, None)
                for t in balance_t.get(load.worker, ()):
                    revoke_t[load.worker][t] = None
                    load.tasks.pop(t, None)

        if r.revoked_in_previous and balancing:
            # Design III: a second revoking round in a row waits (exponential backoff) unless delays are off
            r.successive += 1
            r.delay = _backoff(max_delay, r.successive)
            if r.delay != 0:
                r.scheduled = now + r.delay
            else:
                revoke_now()
        elif balancing:
            revoke_now()
            r.revoked_in_previous = True
        elif r.revoked_in_previous:
            r.revoked_in_previous = False
            r.successive = 0
    else:
        r.revoked_in_previous = False

    to_assign_c = list(dict.fromkeys(created_c + reassign_c))
    to_assign_t = list(dict.fromkeys(created_t + reassign_t))
    _assign_new(loads, to_assign_c, "connectors")
    _assign_new(loads, to_assign_t, "tasks")

    nxt = {load.worker: load for load in loads}
    new_c = {m: tuple(c for c in nxt[m].connectors if c not in current[m].connectors) for m in members}
    new_t = {m: tuple(t for t in nxt[m].tasks if t not in current[m].tasks) for m in members}

    # the view of this assignment for the next round
    all_revoked_c = {c for m in members for c in revoke_c[m]}
    all_revoked_t = {t for m in members for t in revoke_t[m]}
    r.previous_c = ({c for m in members for c in nxt[m].connectors} - all_revoked_c) | set(lost_c)
    r.previous_t = ({t for m in members for t in nxt[m].tasks} - all_revoked_t) | set(lost_t)
    r.revocation_c |= all_revoked_c
    r.revocation_t |= all_revoked_t
    r.previous_generation_id = generation_id
    r.previous_members = set(members)

    url = by_id[leader].url
    assignments = {}
    running = {}
    for m in by_id:  # the JoinGroup order
        assignments[m] = ConnectAssignment(
            version=version,
            error=int(ConnectError.NO_ERROR),
            leader=leader,
            leader_url=url,
            config_offset=offset,
            connectors=new_c[m],
            tasks=new_t[m],
            revoked_connectors=tuple(revoke_c[m]),
            revoked_tasks=tuple(revoke_t[m]),
            delay=r.delay,
        )
        running[m] = (
            tuple(c for c in nxt[m].connectors if c not in revoke_c[m]),
            tuple(t for t in nxt[m].tasks if t not in revoke_t[m]),
        )
    return ConnectAssignResult(name, leader, offset, assignments, running, r.state())


def assign_connect(
    protocol: str | int,
    leader: str,
    workers: Sequence[ConnectWorker],
    connectors: Mapping[str, int] | Iterable[tuple[str, int]],
    *,
    now: int = 0,
    state: IncrementalAssignorState | None = None,
    max_delay: int = DEFAULT_MAX_DELAY_MS,
    generation_id: int | None = None,
    last_completed_generation_id: int | None = None,
    leader_fresh_offset: int | None = None,
) -> ConnectAssignResult:
    """The assignor the group's protocol selects, as ``WorkerCoordinator.onLeaderElected`` does: ``default``
    (0) the eager one, ``compatible`` (1) and ``sessioned`` (2) the incremental cooperative one."""
    version = protocol_version(protocol) if isinstance(protocol, str) else protocol
    if version == CONNECT_PROTOCOL_V0:
        return assign_eager(leader, workers, connectors, leader_fresh_offset=leader_fresh_offset)
    return assign_incremental(
        leader,
        workers,
        connectors,
        now=now,
        state=state,
        protocol=version,
        max_delay=max_delay,
        generation_id=generation_id,
        last_completed_generation_id=last_completed_generation_id,
        leader_fresh_offset=leader_fresh_offset,
    )
