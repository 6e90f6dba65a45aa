"""The group leader's pure logic around the task assignor (wire-facts §9).

``assign_group`` takes the group's members (already decoded from their subscriptions), the
topology and the configs, and returns what each member gets: steps 1–8 of §9 without any bytes.
Encoding the result as ``AssignmentInfo`` is the codec's job.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Sequence

from codec.types import TaskId, TopicPartition

from .engine import assign
from .model import (
    LATEST_OFFSET,
    UNKNOWN_OFFSET_SUM,
    AssignmentConfigs,
    AssignmentError,
    AssignmentResult,
    ClientAssignment,
    ClientSpec,
    GroupDescription,
    TaskSpec,
)
from .state import compute_lag
from .threads import assign_tasks_to_threads, prev_tasks_by_lag_for

__all__ = ["Member", "Subtopology", "Topology", "MemberAssignment", "GroupAssignment", "assign_group"]


@dataclass(frozen=True)
class Member:
    """One consumer (stream thread) of the group, as decoded from its subscription."""

    member_id: str
    process_id: uuid.UUID
    owned_partitions: frozenset[TopicPartition] = frozenset()
    task_offset_sums: Mapping[TaskId, int] = field(default_factory=dict)
    client_tags: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "owned_partitions", frozenset(self.owned_partitions))
        object.__setattr__(self, "task_offset_sums", MappingProxyType(dict(self.task_offset_sums)))
        object.__setattr__(self, "client_tags", MappingProxyType(dict(self.client_tags)))


@dataclass(frozen=True)
class Subtopology:
    """A subtopology: its source topics, changelog topics and partition count (= task count)."""

    subtopology: int
    source_topics: tuple[str, ...]
    changelog_topics: tuple[str, ...] = ()
    partitions: int = 1
    topology_name: str | None = None

    @property
    def stateful(self) -> bool:
        """§9 step 2: stateful when the subtopology has changelog topics."""
        return bool(self.changelog_topics)

    def tasks(self) -> list[TaskId]:
        return [TaskId(self.subtopology, p, self.topology_name) for p in range(self.partitions)]

    def source_partitions(self, task: TaskId) -> list[TopicPartition]:
        return [TopicPartition(t, task.partition) for t in self.source_topics]


@dataclass(frozen=True)
class Topology:
    subtopologies: tuple[Subtopology, ...]


@dataclass(frozen=True)
class MemberAssignment:
    """What one member receives (``standby_tasks`` include warmups, as Kafka sends them).
    ``rebalance_immediately`` means ``nextRebalance = 0`` because a
    task was withheld until its partitions are revoked elsewhere; ``probing_rebalance`` means this
    member carries the leader client's probing deadline (§9 step 6)."""

    member_id: str
    process_id: uuid.UUID
    active_tasks: tuple[TaskId, ...]
    active_partitions: tuple[TopicPartition, ...]
    standby_tasks: tuple[TaskId, ...]
    withheld_tasks: tuple[TaskId, ...]
    rebalance_immediately: bool
    probing_rebalance: bool


@dataclass(frozen=True)
class GroupAssignment:
    probing_rebalance_needed: bool
    members: Mapping[str, MemberAssignment]
    clients: AssignmentResult


def assign_group(
    members: Sequence[Member],
    topology: Topology,
    configs: AssignmentConfigs = AssignmentConfigs(),
    end_offset_sums: Mapping[TaskId, int] | None = None,
    leader_member_id: str | None = None,
    assignor: str = "high_availability",
    end_offsets_fetched: bool = True,
) -> GroupAssignment:
    """Run the leader pipeline (§9) with ``end_offset_sums`` per stateful task (missing = 0).

    ``end_offsets_fetched=False`` models a failed end-offset fetch: every lag becomes unknown
    (-3) and the fallback prior assignor is used (§9 step 3)."""
    if not members:
        raise AssignmentError("a group needs at least one member")
    if len({m.member_id for m in members}) != len(members):
        raise AssignmentError("duplicate member id")
    task_specs, task_of_partition, subtopology_of = _topology_index(topology)
    stateful = {t.task_id for t in task_specs if t.stateful}
    if not end_offsets_fetched:
        end_offset_sums = {t: UNKNOWN_OFFSET_SUM for t in stateful}
        assignor = "fallback_prior"
    end_offset_sums = dict(end_offset_sums or {})
    by_client: dict[uuid.UUID, list[Member]] = {}
    for m in sorted(members, key=lambda m: m.member_id):
        by_client.setdefault(m.process_id, []).append(m)
    all_owned = {tp for m in members for tp in m.owned_partitions}
    specs = {pid: _client_spec(ms, task_of_partition) for pid, ms in by_client.items()}
    result = assign(GroupDescription(task_specs, tuple(specs.values()), configs, end_offset_sums, assignor))
    leader_pid = next((m.process_id for m in members if m.member_id == leader_member_id), None)
    out: dict[str, MemberAssignment] = {}
    for client in result.clients:
        ms = by_client[client.process_id]
        probing = result.probing_rebalance_needed and client.process_id == leader_pid
        out.update(
            _member_assignments(
                client,
                ms,
                specs[client.process_id].prev_standby,
                stateful,
                end_offset_sums,
                subtopology_of,
                all_owned,
                probing,
            )
        )
    return GroupAssignment(result.probing_rebalance_needed, MappingProxyType(out), result)


def _topology_index(
    topology: Topology,
) -> tuple[tuple[TaskSpec, ...], dict[TopicPartition, TaskId], dict[TaskId, Subtopology]]:
    specs: list[TaskSpec] = []
    task_of_partition: dict[TopicPartition, TaskId] = {}
    subtopology_of: dict[TaskId, Subtopology] = {}
    for sub in topology.subtopologies:
        for task in sub.tasks():
            specs.append(TaskSpec(task, sub.stateful))
            subtopology_of[task] = sub
            for tp in sub.source_partitions(task):
                task_of_partition[tp] = task
    return tuple(specs), task_of_partition, subtopology_of


def _client_spec(members: list[Member], task_of_partition: Mapping[TopicPartition, TaskId]) -> ClientSpec:
    """§9 steps 1 and 4: capacity = number of consumers; tags of the first consumer (by member
    id); previous actives from owned partitions and -2 offset sums, other known sums standbys."""
    known = set(task_of_partition.values())
    sums: dict[TaskId, int] = {}
    for m in members:
        sums.update(m.task_offset_sums)
    prev_active = {task_of_partition[tp] for m in members for tp in m.owned_partitions if tp in task_of_partition}
    prev_active |= {t for t, o in sums.items() if o == LATEST_OFFSET and t in known}
    prev_standby = {t for t in sums if t not in prev_active and t in known}
    return ClientSpec(
        members[0].process_id,
        len(members),
        members[0].client_tags,
        frozenset(prev_active),
        frozenset(prev_standby),
        task_offset_sums=sums,
    )


def _member_assignments(
    client: ClientAssignment,
    members: list[Member],
    prev_standby: frozenset[TaskId],
    stateful: set[TaskId],
    end_offset_sums: Mapping[TaskId, int],
    subtopology_of: Mapping[TaskId, Subtopology],
    all_owned: set[TopicPartition],
    probing: bool,
) -> dict[str, MemberAssignment]:
    """§9 steps 7 and 8 for one client."""
    consumers = [m.member_id for m in members]
    sums: dict[TaskId, int] = {}
    for m in members:
        sums.update(m.task_offset_sums)
    reported = {m.member_id: [t for t in m.task_offset_sums if t in stateful] for m in members}
    by_lag = prev_tasks_by_lag_for(reported, lambda t: compute_lag(sums.get(t), end_offset_sums.get(t, 0)))
    load: dict[str, int] = {}
    actives = assign_tasks_to_threads([t for t in client.active if t in stateful], True, consumers, by_lag, load)
    standbys = assign_tasks_to_threads(client.standby + client.warmup, True, consumers, by_lag, load)
    stateless = assign_tasks_to_threads([t for t in client.active if t not in stateful], False, consumers, by_lag, load)
    encode_probing = probing
    out = {}
    for m in members:
        granted, partitions, withheld = [], [], []
        for task in actives[m.member_id] + stateless[m.member_id]:
            tps = subtopology_of[task].source_partitions(task)
            if any(tp in all_owned and tp not in m.owned_partitions for tp in tps):
                withheld.append(task)
            else:
                granted.append(task)
                partitions.extend(tps)
        standby = set(standbys[m.member_id])
        standby |= {t for t in withheld if t in prev_standby and t in stateful}
        immediate = bool(withheld)
        carries_probing = encode_probing and not immediate
        encode_probing = False
        out[m.member_id] = MemberAssignment(
            member_id=m.member_id,
            process_id=m.process_id,
            active_tasks=tuple(sorted(granted)),
            active_partitions=tuple(sorted(partitions)),
            standby_tasks=tuple(sorted(standby)),
            withheld_tasks=tuple(sorted(withheld)),
            rebalance_immediately=immediate,
            probing_rebalance=carries_probing,
        )
    return out
