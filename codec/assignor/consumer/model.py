"""A plain consumer group as its assignor sees it, and the Java orders Kafka's consumer assignors depend on.

A :class:`ConsumerGroup` is what both kinds of assignor read: the topics' partition counts (the metadata; a topic
absent from it is skipped by the client-side assignors and by the coordinator's name resolution), the replicas'
racks of each partition (KIP-881; client side only), the topic ids (server side) and the members in the order the
leader's JoinGroup response (client side) or the coordinator's member map (server side) lists them. Each
:class:`ConsumerMember` carries its subscription as the assignor reads it: the subscribed topics (a list, in its
order: duplicates count where Kafka counts them), the owned partitions (ConsumerProtocol v1+ ``ownedPartitions``,
or, server side, the member's current target assignment), the subscription's generation (v2+ ``generationId``;
None when absent or negative), its rack and ``group.instance.id``, and its raw ``userData`` (None: the client's
assignor would have written what ``ownedPartitions`` and ``generation`` say, see
:func:`codec.assignor.consumer.sticky_data.member_data`).

Java's orders (:mod:`codec.javaorder` for the hashes): a ``String`` compares by UTF-16 code units
(:func:`jstr`), a ``TopicPartition`` hashes as ``31 * (31 + partition) + topic.hashCode()``, Kafka's ``Uuid``
compares its halves as signed longs. :class:`JavaHashSet` replays a ``java.util.HashSet`` that elements are
added to and removed from, for the one place its first element decides (the sticky assignor's partition
movements).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Generic, Hashable, TypeVar

from ...javaorder import int32, spread, string_hash
from ..model import AssignmentError

__all__ = [
    "CLIENT_ASSIGNORS",
    "SERVER_ASSIGNORS",
    "CONSUMER_ASSIGNORS",
    "TP",
    "ConsumerMember",
    "ConsumerGroup",
    "ConsumerAssignment",
    "AssignmentError",
    "JavaHashSet",
    "jstr",
    "tp_hash",
    "uuid_key",
    "member_info_key",
]

CLIENT_ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky")
SERVER_ASSIGNORS = ("uniform", "server-range")
CONSUMER_ASSIGNORS = CLIENT_ASSIGNORS + SERVER_ASSIGNORS

TP = tuple[str, int]
"""A topic partition: (topic name, partition)."""


@dataclass(frozen=True, slots=True)
class ConsumerMember:
    member_id: str
    topics: tuple[str, ...] = ()
    owned: tuple[TP, ...] = ()
    generation: int | None = None
    rack: str | None = None
    instance_id: str | None = None
    user_data: bytes | None = None


@dataclass(frozen=True, slots=True)
class ConsumerGroup:
    topics: dict[str, int]
    members: tuple[ConsumerMember, ...]
    partition_racks: dict[str, tuple[frozenset[str], ...]] = field(default_factory=dict)
    topic_ids: dict[str, uuid.UUID] = field(default_factory=dict)
    prefer_rack_aware: bool = False
    """Kafka's test-only switch ``AbstractPartitionAssignor.preferRackAwareLogic`` (package-private; no client sets
    it): the client-side assignors use racks whenever a member's rack holds a replica, even where every partition
    has replicas on every rack. Kafka's own assignor tests set it; :mod:`codec.assignor.consumer.json_io` reads it."""
    subscription_type: str | None = None
    """The server side's ``GroupSpec.subscriptionType`` as given (``"homogeneous"`` or ``"heterogeneous"``); None:
    as the coordinator computes it (every subscribed topic subscribed by every member: homogeneous). The assignor
    trusts it: Kafka's tests hand it a type the subscriptions do not have."""


@dataclass(frozen=True, slots=True)
class ConsumerAssignment:
    """Each member's partitions, every member in the group's order, in Kafka's list order (client side) or sorted
    (server side: Kafka's are sets). ``revoking``: cooperative-sticky's partitions that move and are withheld this
    round (their owner revokes them first); ``builder``: which path the assignor took (``constrained``/
    ``general`` for the sticky ones, ``homogeneous``/``heterogeneous`` server side), for explanations."""

    members: dict[str, list[TP]]
    revoking: dict[str, list[TP]] = field(default_factory=dict)
    builder: str | None = None
    transferring: dict[TP, str] | None = None
    """The sticky assignors' ``partitionsTransferringOwnership``: on the constrained path each partition that
    changes owner (or was claimed twice) and the member it goes to (cooperative-sticky withholds them: ``revoking``);
    None on the general path, as in Kafka (the cooperative one then derives its ``revoking`` from the owned
    partitions)."""
    movements: dict[TP, tuple[str, str]] | None = None
    """The general sticky path's record of moves while balancing (``PartitionMovements``): each moved partition's
    first and last owner; None elsewhere."""


def jstr(s: str) -> bytes:
    """A sort key that orders strings as Java's ``String.compareTo``: by UTF-16 code units."""
    return s.encode("utf-16-be", "surrogatepass")


def tp_hash(tp: TP) -> int:
    """``TopicPartition.hashCode``."""
    return int32(31 * (31 + tp[1]) + string_hash(tp[0]))


def uuid_key(u: uuid.UUID) -> tuple[int, int]:
    """A sort key that orders ids as Kafka's ``Uuid.compareTo``: the most significant long, then the least, signed."""

    def signed(x: int) -> int:
        return x - (1 << 64) if x >= 1 << 63 else x

    return signed(u.int >> 64), signed(u.int & ((1 << 64) - 1))


def member_info_key(member_id: str, instance_id: str | None) -> tuple:
    """``AbstractPartitionAssignor.MemberInfo.compareTo`` (and the server range assignor's member order): static
    members first by ``group.instance.id``, then the others by member id."""
    return (0, jstr(instance_id), b"") if instance_id is not None else (1, b"", jstr(member_id))


K = TypeVar("K", bound=Hashable)


class JavaHashSet(Generic[K]):
    """A ``new HashSet<>()`` that elements are added to and removed from: its capacity doubles past three quarters
    full and never shrinks; it iterates by bucket, within a bucket in the order the present elements were added
    (a resize keeps that order). Buckets of nine or more colliding elements (Java resizes or makes a tree) are not
    modelled."""

    __slots__ = ("_cap", "_seq", "_items", "_hash")

    def __init__(self, hash_fn) -> None:
        self._cap, self._seq, self._hash = 16, 0, hash_fn
        self._items: dict[K, int] = {}

    def add(self, x: K) -> None:
        if x not in self._items:
            self._items[x] = self._seq
            self._seq += 1
            if len(self._items) > self._cap * 3 // 4:
                self._cap *= 2

    def remove(self, x: K) -> None:
        self._items.pop(x, None)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def first(self) -> K:
        mask, h = self._cap - 1, self._hash
        return min(self._items, key=lambda x: (spread(h(x)) & mask, self._items[x]))


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssignmentError(message)
