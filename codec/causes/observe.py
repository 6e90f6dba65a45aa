"""What the cause engine is fed: observations of one group, in time order.

Every input the project reads (a capture's frames, ``__consumer_offsets`` records, the pipeline's decoded units, the
simulator's frames, a live watcher's records) is turned into these by an adapter, so that one engine decides every
cause. Each observation names its ``group`` and its ``protocol``: ``classic`` for the JoinGroup/SyncGroup protocol,
or ``consumer``, ``streams`` or ``share`` for Kafka 4's heartbeat-based groups (a group id may have both, during a
migration: they are told apart). ``ts`` is seconds since the epoch, None where the input has no time (a text dump
of records); ``where`` says where in the input it was seen (a frame, a record offset), for the evidence.

A classic generation is :class:`Formed` (its members, as complete as the input shows them); a Kafka 4 group's
epoch is :class:`EpochBumped`. What happened before (joins, leaves, heartbeats and their errors, the previous
generation's assignments, coordinator changes) is fed first, in the order it happened.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CLASSIC",
    "CONSUMER",
    "STREAMS",
    "SHARE",
    "PROTOCOLS",
    "MemberFacts",
    "AssignmentFacts",
    "Joined",
    "Left",
    "Heartbeat",
    "ErrorSeen",
    "CoordinatorSeen",
    "Assigned",
    "Formed",
    "Subscribed",
    "MetadataChanged",
    "EpochBumped",
    "Deleted",
    "Observation",
]

CLASSIC, CONSUMER, STREAMS, SHARE = "classic", "consumer", "streams", "share"
PROTOCOLS = (CLASSIC, CONSUMER, STREAMS, SHARE)


@dataclass(frozen=True, slots=True)
class MemberFacts:
    """A member of a generation as the input shows it. ``topics``: the topics it subscribes to (None: not seen);
    ``protocols``: the assignors it offered; ``streams_version``/``streams_latest``: its Streams SubscriptionInfo's
    used and latest supported versions; ``topology_epoch``: a KIP-1071 member's; ``owned``: the partitions its
    ConsumerProtocol subscription (v1+) says it owns, as ``(topic, partition)``."""

    member_id: str
    instance_id: str | None = None
    client_id: str | None = None
    host: str | None = None
    topics: frozenset[str] | None = None
    regex: str | None = None
    protocols: tuple[str, ...] | None = None
    session_timeout_ms: int | None = None
    rebalance_timeout_ms: int | None = None
    streams_version: int | None = None
    streams_latest: int | None = None
    topology_epoch: int | None = None
    owned: frozenset | None = None

    @property
    def label(self) -> str:
        """``member (client)``; the member id alone when it starts with the client id (as Java's do)."""
        if not self.client_id or self.member_id.startswith(self.client_id):
            return self.member_id
        return f"{self.member_id} ({self.client_id})"


@dataclass(frozen=True, slots=True)
class AssignmentFacts:
    """A member's assignment in a generation: ``items`` what it holds (partitions as ``(topic, partition)``, tasks,
    connectors; None when the input does not say); a Streams AssignmentInfo's ``streams_version``,
    ``streams_common`` (commonly supported version), ``error_code`` and ``next_rebalance_ms``; a Kafka Connect
    assignment's ``connect_error``, ``connect_delay`` (ms) and ``connect_revoked`` (connectors and tasks revoked)."""

    items: frozenset | None = None
    streams_version: int | None = None
    streams_common: int | None = None
    error_code: int | None = None
    next_rebalance_ms: int | None = None
    connect_error: int | None = None
    connect_delay: int | None = None
    connect_revoked: int = 0


@dataclass(frozen=True, slots=True)
class Joined:
    """A member asked to join: a JoinGroup request (``member`` empty or None for a new member, until the
    coordinator names it; ``new`` True when the coordinator's answer named a member id it did not send), a
    KIP-848/KIP-1071/KIP-932 heartbeat at member epoch 0, or a member first seen in the coordinator's records.
    ``reason``: the KIP-800 reason of a JoinGroup v8+. ``facts``: what it offered. ``generation``: the
    generation the coordinator's answer named (None: not known), so that a join is told with the generation it
    formed even when the input shows the generation before it late."""

    ts: float | None
    group: str
    protocol: str
    member: str | None
    new: bool = False
    reason: str | None = None
    facts: MemberFacts | None = None
    where: str = ""
    generation: int | None = None


@dataclass(frozen=True, slots=True)
class Left:
    """A member left: a LeaveGroup (``how`` ``leave-group``, with its KIP-800 ``reason`` from v5), a heartbeat at
    member epoch -1 (``heartbeat``) or -2 (``static-leave``), or a member's records deleted (``record``: the
    records cannot tell how). ``rejoined``: when the same client joined again without closing its connection,
    where the input shows it (an input read whole can tell; a client leaves so when its poll interval expires)."""

    ts: float | None
    group: str
    protocol: str
    member: str
    how: str = "leave-group"
    reason: str | None = None
    instance_id: str | None = None
    where: str = ""
    rejoined: float | None = None


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """A member's heartbeat and its answer (``error_code`` 0 when accepted; 27 REBALANCE_IN_PROGRESS while a
    rebalance waits for it). A live member's sign. An input may tell a run of accepted heartbeats as one: from
    ``ts`` ``until`` the last of them, ``interval`` seconds apart at most (a member that heartbeats for hours
    costs one observation per run, not one per heartbeat)."""

    ts: float
    group: str
    protocol: str
    member: str
    error_code: int = 0
    where: str = ""
    until: float | None = None
    interval: float | None = None


@dataclass(frozen=True, slots=True)
class ErrorSeen:
    """A group response with an error that says something about membership or the coordinator: NOT_COORDINATOR
    (16), COORDINATOR_NOT_AVAILABLE (15), COORDINATOR_LOAD_IN_PROGRESS (14), UNKNOWN_MEMBER_ID (25),
    ILLEGAL_GENERATION (22), FENCED_INSTANCE_ID (82), FENCED_MEMBER_EPOCH (110); and a SyncGroup answer the input
    holds but cannot read (the member got no assignment from it), with its error code where its bytes still say it
    (:func:`codec.group.frames.refused_error_code`), else None. ``api``: the response's API."""

    ts: float | None
    group: str
    protocol: str
    member: str | None
    error_code: int | None
    api: str = ""
    where: str = ""


@dataclass(frozen=True, slots=True)
class CoordinatorSeen:
    """The broker (``host:port``) that answered one of the group's requests as its coordinator."""

    ts: float
    group: str
    protocol: str
    coordinator: str
    where: str = ""


@dataclass(frozen=True, slots=True)
class Assigned:
    """A member's assignment in a classic generation (its SyncGroup response, the leader's SyncGroup request, a
    record), or in a Kafka 4 group at an epoch (``generation`` is then the epoch, ``protocol`` the group's).
    ``answered``: the member's own SyncGroup response carried it at ``ts`` (a sign the member was alive then)."""

    ts: float | None
    group: str
    generation: int
    member: str
    facts: AssignmentFacts
    protocol: str = CLASSIC
    where: str = ""
    answered: bool = False


@dataclass(frozen=True, slots=True)
class Formed:
    """A classic generation formed: its number, protocol type and selected protocol (``assignor``), leader and
    members.
    ``complete``: ``members`` is the whole group (the leader's JoinGroup response, a ``__consumer_offsets``
    record); else the members the input shows."""

    ts: float | None
    group: str
    generation: int
    members: tuple[MemberFacts, ...]
    complete: bool
    leader: str | None = None
    protocol_type: str | None = None
    assignor: str | None = None
    where: str = ""
    protocol: str = CLASSIC


@dataclass(frozen=True, slots=True)
class Subscribed:
    """A Kafka 4 member's subscription as a heartbeat request or a member metadata record carries it (changed or
    not: the engine compares), with its ``facts``."""

    ts: float | None
    group: str
    protocol: str
    facts: MemberFacts
    where: str = ""


@dataclass(frozen=True, slots=True)
class MetadataChanged:
    """A Kafka 4 group's topic metadata changed: its metadata hash (ConsumerGroupMetadataValue, 4.1+) or its
    partition metadata record; ``detail`` says what."""

    ts: float | None
    group: str
    protocol: str
    detail: str
    where: str = ""


@dataclass(frozen=True, slots=True)
class EpochBumped:
    """A Kafka 4 group's epoch: a group metadata record's epoch, or a member epoch the coordinator gave out for the
    first time. ``members``: the group's members at that epoch, when the input shows them (None: not shown);
    ``moved``: how many partitions or tasks the assignments given at this epoch moved, as far as the input shows
    (None: it does not)."""

    ts: float | None
    group: str
    protocol: str
    epoch: int
    members: tuple[str, ...] | None = None
    moved: int | None = None
    where: str = ""


@dataclass(frozen=True, slots=True)
class Deleted:
    """The group was deleted (a tombstone of its metadata record): what comes after starts anew."""

    ts: float | None
    group: str
    protocol: str
    where: str = ""


Observation = (
    Joined
    | Left
    | Heartbeat
    | ErrorSeen
    | CoordinatorSeen
    | Assigned
    | Formed
    | Subscribed
    | MetadataChanged
    | EpochBumped
    | Deleted
)
