"""What the executors make of a record: the units the tables are derived from, and the error that quarantines
a record. Below :mod:`codec.pipeline.records` (the classic layers) and :mod:`codec.pipeline.kafka4` (Kafka 4's
groups), which both make them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import DecodeError

if TYPE_CHECKING:
    from ..streams import AssignmentInfo, SubscriptionInfo

__all__ = ["MemberUnit", "AssignmentUnit", "GroupUnit", "ConnectUnit", "RecordError", "ROW_BYTES", "check_rows"]

#: an assignment becomes one table row per partition, naming its topic, member and group: at most this many bytes
#: of such rows per byte of the assignment on the wire (and 1 MiB), else the record is quarantined (codec.budget:
#: the rows in proportion to the records; a long name over many partitions would cost its length per partition).
#: A topic name as Kafka allows it (249 characters at most) stays below it, unless member ids run to thousands.
ROW_BYTES = (256, 1 << 20)


class MemberUnit(NamedTuple):
    member: str | None
    generation: int | None
    group: str | None
    info: SubscriptionInfo | None  # None: the member's UserData is not Streams metadata
    consumer_protocol_version: int | None = None
    rack_id: str | None = None
    group_instance_id: str | None = None
    client_id: str | None = None  # a frame's: its request header's client id (the JoinGroup's sender)
    client_host: str | None = None
    subscribed_topics: list | None = None  # the ConsumerProtocol subscription's topic names
    # ConsumerProtocolSubscription v1+: the partitions the member owns, ``(topic, [partition ...])`` per topic
    owned_partitions: list | None = None
    subscription_generation: int | None = None  # v2+: the generation of those partitions (-1: none)
    # the sticky assignors' user data (codec.group.sticky), when the protocol is sticky or cooperative-sticky and
    # it reads: the previous partitions ``(topic, [partition ...])`` per topic (StickyAssignorUserData; None for
    # cooperative-sticky's, which holds a generation alone) and the generation it names (None: v0, none)
    sticky_partitions: list | None = None
    sticky_generation: int | None = None
    # a plain consumer's subscription bytes as a leader's JoinGroup response lists them (the consumer checks run
    # the named assignor on them: codec.pipeline.consumerchecks); None elsewhere
    subscription_bytes: bytes | None = None


class AssignmentUnit(NamedTuple):
    member: str | None
    generation: int | None
    group: str | None
    info: AssignmentInfo | None
    consumer_protocol_version: int | None = None
    # a plain consumer's (no Streams AssignmentInfo): the ConsumerProtocol assignment's partitions as on the wire,
    # ``(topic, [partition ...])`` per topic; None for a Streams member, whose tasks say it
    topic_partitions: list | None = None
    # a plain consumer's assignment bytes as a leader's SyncGroup request lists them (codec.pipeline.consumerchecks)
    assignment_bytes: bytes | None = None


class GroupUnit(NamedTuple):
    member: str | None
    generation: int | None
    group: str | None
    leader: str | None = None
    protocol_type: str | None = None
    protocol_name: str | None = None
    member_count: int | None = None
    error_code: int | None = None
    group_protocol: str | None = None  # Kafka 4's groups: "consumer" (KIP-848), "streams" (KIP-1071) or "share"
    # (KIP-932); None: classic
    share_topics: list | None = None  # a share group's topics: (topic id, name, partitions or None)
    event: str | None = None  # "leave": a LeaveGroup request's member leaving (the rebalances' causes read it)
    reason: str | None = None  # its KIP-800 reason (LeaveGroup v5+)
    # a Metadata response's topics: (topic id or None, name, partition count, each partition's replica racks)
    metadata_topics: list | None = None


class ConnectUnit(NamedTuple):
    """A Kafka Connect worker's layer (a group of protocol type ``connect``): ``layer`` is ``metadata`` (a
    JoinGroup's :class:`~codec.connect.metadata.ConnectMetadata`) or ``assignment`` (a SyncGroup's
    :class:`~codec.connect.assignment.ConnectAssignment`); ``info`` is the model; ``protocol_name`` the
    Connect protocol (``default``, ``compatible``, ``sessioned``) when the message names it."""

    member: str | None
    generation: int | None
    group: str | None
    layer: str
    info: Any
    protocol_name: str | None = None


class RecordError(Exception):
    """Why a record is quarantined: ``type`` (the exception class), ``message``, ``offset`` (into the
    layer's bytes), ``path`` (field path from the record's outermost layer) and ``layer``."""

    def __init__(
        self, type_: str, message: str, *, offset: int | None = None, path: str = "", layer: str | None = None
    ) -> None:
        super().__init__(message)
        self.type, self.message, self.offset, self.path, self.layer = type_, message, offset, path, layer

    @classmethod
    def of(cls, e: Exception, layer: str | None = None, at: str = "") -> "RecordError":
        if isinstance(e, DecodeError):
            path = ".".join(p for p in (at, e.path) if p)
            return cls(type(e).__name__, str(e), offset=e.offset, path=path, layer=layer or e.message)
        return cls(type(e).__name__, str(e), path=at, layer=layer)


def check_rows(rows: int, wire: int, *, what: str, path: str, layer: str | None) -> None:
    """:class:`RecordError` when ``rows`` bytes of table rows, made of ``wire`` bytes of an assignment, pass
    :data:`ROW_BYTES`."""
    if rows > ROW_BYTES[0] * wire + ROW_BYTES[1]:
        raise RecordError(
            "UnsupportedValue",
            f"{what} whose rows would repeat its topic, member and group names in {rows:,} bytes, past "
            f"{ROW_BYTES[0]} x its {wire:,} bytes (one row per partition; codec.budget)",
            path=path,
            layer=layer,
        )
