"""What the executors make of a record: the units the tables are derived from, and the error that quarantines
a record. Below :mod:`codec.pipeline.records` (the classic layers) and :mod:`codec.pipeline.kafka4` (Kafka 4's
groups), which both make them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import DecodeError

if TYPE_CHECKING:
    from ..streams import AssignmentInfo, SubscriptionInfo

__all__ = ["MemberUnit", "AssignmentUnit", "GroupUnit", "ConnectUnit", "RecordError"]


class MemberUnit(NamedTuple):
    member: str | None
    generation: int | None
    group: str | None
    info: SubscriptionInfo | None  # None: the member's UserData is not Streams metadata
    consumer_protocol_version: int | None = None
    rack_id: str | None = None
    group_instance_id: str | None = None
    client_id: str | None = None
    client_host: str | None = None


class AssignmentUnit(NamedTuple):
    member: str | None
    generation: int | None
    group: str | None
    info: AssignmentInfo | None
    consumer_protocol_version: int | None = None


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
