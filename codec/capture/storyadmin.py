"""What an admin's questions tell the story: DescribeGroups and OffsetFetch responses in a capture.

A DescribeGroups response (API 15, v0-6) describes classic groups as the coordinator holds them: the state, the
protocol type and the protocol (assignor) chosen, and each member with its client id and host, the metadata it
joined with and the assignment it was given -- the same bytes JoinGroup and SyncGroup carry. They are decoded as
the group's own frames are (:func:`codec.group.nested.decode_layer`): a ``consumer`` group's ConsumerProtocol
subscription and assignment, with Kafka Streams' SubscriptionInfo/AssignmentInfo inside when the protocol is
``stream`` and the sticky assignors' user data when it is ``sticky`` or ``cooperative-sticky``; a ``connect``
group's worker metadata and assignment. A layer that does not decode stays bytes with the reason.

An OffsetFetch response (API 9, v1-10) gives a group's committed offsets: per partition the offset (-1: none),
its leader epoch (v5+), metadata and error. Before v8 the response names no group: it is taken from the request
(:class:`AdminStory` pairs them by connection and correlation id). v10 names topics by id, shown by id or by the
name a Metadata response gave.

Each response gives one :class:`DescribedGroup` or :class:`CommittedOffsets` per group, told after the group's
generations (``type`` ``described-group`` and ``committed-offsets`` in ``--json``;
:func:`codec.capture.storytext.render_admin` the text). A frame that does not decode (a version the schemas do not
have, bytes cut short) is one ``unread admin frames`` problem in the summary, with the reason.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..errors import DecodeError
from ..group.frames import decode_request_frame, decode_response_frame
from ..group.nested import carried_layer, decode_layer
from .events import error_name_only
from .storymodel import payload_json

__all__ = [
    "DESCRIBE_GROUPS",
    "OFFSET_FETCH",
    "ADMIN_APIS",
    "DescribedMember",
    "DescribedGroup",
    "CommittedOffsets",
    "AdminStory",
]

DESCRIBE_GROUPS = 15
OFFSET_FETCH = 9
ADMIN_APIS = frozenset({DESCRIBE_GROUPS, OFFSET_FETCH})
#: OffsetFetch requests waiting for their responses (v0-7 responses name no group), oldest dropped past this
MAX_PENDING = 4096


@dataclass
class DescribedMember:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: Any  # Nested (decoded or with its error), or bytes when the protocol type carries none we read
    assignment: Any


@dataclass
class DescribedGroup:
    """One group of a DescribeGroups response, at ``ts`` on connection ``conn``."""

    ts: float
    conn: int
    version: int
    group: str
    error_code: int
    error_message: str | None
    state: str
    protocol_type: str
    protocol: str
    members: list[DescribedMember] = field(default_factory=list)

    def json(self) -> dict:
        return {
            "type": "described-group",
            "ts": self.ts,
            "connection": self.conn,
            "version": self.version,
            "group": self.group,
            "error_code": self.error_code,
            "error_name": error_name_only(self.error_code) if self.error_code else None,
            "error_message": self.error_message,
            "state": self.state,
            "protocol_type": self.protocol_type,
            "protocol": self.protocol,
            "members": [
                {
                    "member_id": m.member_id,
                    "group_instance_id": m.group_instance_id,
                    "client_id": m.client_id,
                    "client_host": m.client_host,
                    "metadata": payload_json(m.metadata, "subscription"),
                    "assignment": payload_json(m.assignment, "assignment"),
                }
                for m in self.members
            ],
        }


@dataclass
class CommittedOffsets:
    """One group's committed offsets in an OffsetFetch response: ``offsets`` (topic or topic id, partition, offset,
    leader epoch or None, metadata, error code) in the response's order."""

    ts: float
    conn: int
    version: int
    group: str | None
    error_code: int
    offsets: list[tuple[str, int, int, int | None, str | None, int]] = field(default_factory=list)

    def json(self) -> dict:
        return {
            "type": "committed-offsets",
            "ts": self.ts,
            "connection": self.conn,
            "version": self.version,
            "group": self.group,
            "error_code": self.error_code,
            "error_name": error_name_only(self.error_code) if self.error_code else None,
            "offsets": [
                {"topic": t, "partition": p, "offset": o, "leader_epoch": e, "metadata": md, "error_code": ec}
                for t, p, o, e, md, ec in self.offsets
            ],
        }


def _member(m, ptype: str, protocol: str) -> DescribedMember:
    """A described member with its metadata and assignment decoded as the group's frames are."""
    sub_layer = carried_layer("JoinGroupResponse", ptype)
    asg_layer = carried_layer("SyncGroupResponse", ptype)

    def layer(layer_name: str | None, raw: bytes | None, at: str) -> Any:
        if layer_name is None or not raw:
            return raw
        return decode_layer(layer_name, raw, protocol_name=protocol or None, at=at)

    return DescribedMember(
        m.member_id,
        getattr(m, "group_instance_id", None),
        m.client_id,
        m.client_host,
        layer(sub_layer, m.member_metadata, "member_metadata"),
        layer(asg_layer, m.member_assignment, "member_assignment"),
    )


class AdminStory:
    """DescribeGroups and OffsetFetch frames -> :class:`DescribedGroup` and :class:`CommittedOffsets` records, and
    the problems met (``problem(kind, where, what, why)``, the summary's)."""

    def __init__(self, problem, topic_names: dict | None = None) -> None:
        self.problem = problem
        self.topic_names = topic_names if topic_names is not None else {}
        self.pending: OrderedDict[tuple[int, int], list[str]] = OrderedDict()
        self.told: list[DescribedGroup | CommittedOffsets] = []

    def feed(self, e) -> None:
        """One DescribeGroups or OffsetFetch frame (a KafkaFrame with its data)."""
        where = f"connection #{e.flow.conn}"
        what = f"{'DescribeGroups' if e.api_key == DESCRIBE_GROUPS else 'OffsetFetch'} {e.direction} v{e.api_version}"
        try:
            if e.direction == "request":
                if e.api_key == OFFSET_FETCH:
                    body = decode_request_frame(e.data, nested=False).body
                    groups = [g.group_id for g in body.groups] if e.api_version >= 8 else [body.group_id]
                    self.pending[(e.flow.conn, e.correlation_id)] = groups
                    while len(self.pending) > MAX_PENDING:
                        self.pending.popitem(last=False)
                return
            body = decode_response_frame(e.data, e.api_key, e.api_version, nested=False).body
        except DecodeError as err:
            self.problem("unread admin frames", where, f"{what} correlation id {e.correlation_id}", str(err))
            return
        if e.api_key == DESCRIBE_GROUPS:
            for g in body.groups:
                self.told.append(
                    DescribedGroup(
                        e.ts,
                        e.flow.conn,
                        e.api_version,
                        g.group_id,
                        g.error_code,
                        getattr(g, "error_message", None),
                        g.group_state,
                        g.protocol_type,
                        g.protocol_data,
                        [_member(m, g.protocol_type, g.protocol_data) for m in g.members],
                    )
                )
            return
        asked = self.pending.pop((e.flow.conn, e.correlation_id), None)
        if e.api_version >= 8:
            for g in body.groups:
                self.told.append(self._offsets(e, g.group_id, g.error_code, g.topics))
        else:
            group = asked[0] if asked else None
            self.told.append(self._offsets(e, group, getattr(body, "error_code", 0), body.topics))

    def _offsets(self, e, group: str | None, error_code: int, topics) -> CommittedOffsets:
        out = CommittedOffsets(e.ts, e.flow.conn, e.api_version, group, error_code)
        for t in topics:
            name = getattr(t, "name", None)
            if name is None:  # v10: the topic's id
                tid = str(getattr(t, "topic_id", ""))
                name = self.topic_names.get(tid) or tid
            for p in t.partitions:
                epoch = getattr(p, "committed_leader_epoch", None) if e.api_version >= 5 else None
                out.offsets.append((name, p.partition_index, p.committed_offset, epoch, p.metadata, p.error_code))
        return out
