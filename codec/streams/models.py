"""The version-independent models of Kafka Streams' rebalance metadata: :class:`SubscriptionInfo` (what a Streams
instance tells the leader) and :class:`AssignmentInfo` (what the leader tells it back).

They sit below the modules that convert them to and from every wire version
(:mod:`~codec.streams.subscription`, :mod:`~codec.streams.assignment`) and the native codec's shapes of them
(:mod:`~codec.streams.shapes`), which all build them; each of those modules names its model again."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace

from ..types import HostInfo, TaskId, TopicPartition
from .constants import LATEST_OFFSET, LATEST_SUPPORTED_VERSION, NO_REBALANCE

__all__ = ["SubscriptionInfo", "AssignmentInfo", "Partitions"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SubscriptionInfo:
    """What a Streams instance tells the leader, independent of the wire version.

    ``task_offset_sums`` maps each task with local state to the sum of its changelog offsets: -2 for a
    running active task, -3 for unknown (what v1-6 standbys decode to). Dicts compare without regard to
    order, as Kafka's HashMaps do; their insertion order is the wire order, so re-encoding is stable."""

    version: int
    latest_supported_version: int = LATEST_SUPPORTED_VERSION
    process_id: uuid.UUID = field(default_factory=lambda: uuid.UUID(int=0))
    user_endpoint: str | None = None
    task_offset_sums: dict[TaskId, int] = field(default_factory=dict)
    unique_field: int = 0
    error_code: int = 0
    client_tags: dict[str, str] = field(default_factory=dict)

    #: True when this came from a subscription newer than its reader: only the two version words were read.
    future: bool = False

    @property
    def is_version_probe(self) -> bool:
        """A subscription above its reader's newest version: only its two version words were read."""
        return self.future or self.version > LATEST_SUPPORTED_VERSION

    @property
    def prev_tasks(self) -> frozenset[TaskId]:
        """Tasks running as active on this instance (offset sum -2)."""
        return frozenset(t for t, s in self.task_offset_sums.items() if s == LATEST_OFFSET)

    @property
    def standby_tasks(self) -> frozenset[TaskId]:
        """Every other task with local state."""
        return frozenset(t for t, s in self.task_offset_sums.items() if s != LATEST_OFFSET)


Partitions = tuple[TopicPartition, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class AssignmentInfo:
    """What the leader tells one consumer, independent of the wire version.

    ``active_tasks`` is positional: entry i is the task of the consumer's i-th assigned partition in
    (topic, partition) order, so a task with k partitions appears k times. Maps keep the wire order;
    :meth:`canonical` sorts everything for comparisons that must not depend on Java's HashMap order."""

    version: int
    commonly_supported_version: int = LATEST_SUPPORTED_VERSION
    active_tasks: tuple[TaskId, ...] = ()
    standby_tasks: dict[TaskId, Partitions] = field(default_factory=dict)
    partitions_by_host: dict[HostInfo, Partitions] = field(default_factory=dict)
    standby_partitions_by_host: dict[HostInfo, Partitions] = field(default_factory=dict)
    error_code: int = 0
    next_rebalance_ms: int = NO_REBALANCE

    def canonical(self) -> "AssignmentInfo":
        """The same assignment with every set-like collection sorted (maps by key, partitions by
        topic and partition). ``active_tasks`` keeps its order: it is positional."""

        def parts(m):
            return {k: tuple(sorted(set(v))) for k, v in sorted(m.items(), key=lambda kv: kv[0].sort_key())}

        return replace(
            self,
            standby_tasks=parts(self.standby_tasks),
            partitions_by_host=parts(self.partitions_by_host),
            standby_partitions_by_host=parts(self.standby_partitions_by_host),
        )
