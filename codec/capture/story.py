"""The rebalance story of captured bytes (issue #8): group frames and the generations they form.

:func:`capture_story` reads a pcap/pcapng file through :func:`~codec.capture.scan.kafka_frames` and
yields a :class:`GroupFrame` for every JoinGroup, Heartbeat, LeaveGroup and SyncGroup frame as it is
framed (decoded down to the ConsumerProtocol and Kafka Streams layers, or with the reason it could not
be), then, at the end, each group's :class:`Generation` records in order: who joined with what, the
protocol and leader, what each member was assigned, heartbeats and leaves, and what changed from the
previous generation. :func:`offsets_story` gives the generations of ``__consumer_offsets`` records (each
``GroupMetadataValue`` is a snapshot of one generation). Frames of other APIs are counted in the
:class:`CaptureSummary`, with the gaps, bad packets and undecodable frames and layers.

Groups that rebalance through heartbeats (ConsumerGroupHeartbeat, api key 68; StreamsGroupHeartbeat, 88;
ShareGroupHeartbeat, 76)
have no generations: their frames come out as :class:`GroupFrame` too (``message``: header and body in
Kafka's JSON, through :mod:`codec.kafka4`), and at the end each such group is one
:class:`~codec.capture.heartbeat.HeartbeatGroup` (member epochs, assignments, revocations; see
:mod:`codec.capture.heartbeat`), after the generations. Metadata responses (v10+) name the topic ids of
their assignments. :func:`offsets_story` does the same for the consumer and streams group records.

Frames do not come out in time order: reassembly holds a direction's bytes behind a hole until the
hole is given up (see :mod:`codec.capture.tcp`), so the story keys everything by group and generation
and settles it at the end, placing the events that name no generation (failed joins, leaves) by time.
Memory: frames are never kept (their bytes are dropped once decoded) and requests wait for their
responses in a bounded table; what is kept grows with the number of generations and members (each
member's subscription and assignment), not with the size of the capture.

SyncGroup before v5 and JoinGroup responses before v7 do not name the group's protocol: it is carried
over from the JoinGroup response of the same group and generation (and from the JoinGroup request's
ProtocolType), so that a ``stream`` member's UserData is decoded as Kafka Streams metadata.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..errors import DecodeError
from ..group.consumer import ConsumerMessage
from ..group.frames import RequestFrame, ResponseFrame, decode_request_frame, decode_response_frame
from ..group.jsonview import request_frame_json, response_frame_json
from ..group.consumer import ASSIGNMENT, SUBSCRIPTION
from ..group.nested import STREAMS_PROTOCOL, Nested, decode_layer, nest_body
from ..streams import AssignmentInfo, SubscriptionInfo
from ..connect.assignment import ConnectAssignment
from .bytestream import ByteStream
from .events import ERROR_NAMES, Event, error_name
from .framing import Unframed
from .metadata import METADATA, topic_names
from .heartbeat import DESCRIBE_APIS, HEARTBEAT_APIS, HeartbeatGroup, HeartbeatStory, PendingHeartbeat, decode_heartbeat
from .items import Item, items_json, numbered
from .judgement import reader_json
from .kafka import DEFAULT_PORTS, KafkaFrame
from .offsets import BadRecord, ControlMarker, OffsetsRecord, member_payloads
from .scan import BadFile, BadPacket, CaptureStats, kafka_frames
from .tcp import DEFAULT_MAX_BUFFER, DEFAULT_MAX_WAIT, GIVEN_UP_BYTES, SNAP_LENGTH, Gap
from ..wire.builder import decode_wire, encode_wire

__all__ = [
    "GROUP_APIS",
    "API_NAMES",
    "ERROR_NAMES",
    "error_name",
    "GroupFrame",
    "Member",
    "Event",
    "Generation",
    "Changes",
    "Problem",
    "CaptureSummary",
    "capture_story",
    "offsets_story",
    "holdings",
    "subscription_layers",
    "assignment_layers",
    "partition_items",
]

GROUP_APIS = {11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup"}
# Names of the APIs a capture commonly holds besides the group ones (Kafka's ApiKeys.java).
API_NAMES = {
    0: "Produce",
    1: "Fetch",
    2: "ListOffsets",
    3: "Metadata",
    8: "OffsetCommit",
    9: "OffsetFetch",
    10: "FindCoordinator",
    15: "DescribeGroups",
    16: "ListGroups",
    17: "SaslHandshake",
    18: "ApiVersions",
    19: "CreateTopics",
    22: "InitProducerId",
    36: "SaslAuthenticate",
    42: "DeleteGroups",
    47: "OffsetDelete",
    60: "DescribeCluster",
    68: "ConsumerGroupHeartbeat",
    69: "ConsumerGroupDescribe",
    76: "ShareGroupHeartbeat",
    77: "ShareGroupDescribe",
    78: "ShareFetch",
    79: "ShareAcknowledge",
    88: "StreamsGroupHeartbeat",
    89: "StreamsGroupDescribe",
    **GROUP_APIS,
}
MAX_PENDING = 65536  # requests waiting for their response, over all connections
#: What ``offsets_story`` tells for an input of N bytes: TOLD_FLOOR + N // BYTES_PER_TOLD members' worth of group
#: records (a heartbeat-based group's record is one, a GroupMetadataValue one and one per member), so that a
#: segment of tiny compressed records cannot ask for a story many times its size (codec.budget).
TOLD_FLOOR, BYTES_PER_TOLD = 1000, 16
MAX_PROBLEMS = 50  # problems of each kind kept for the summary (all are counted)


# -- records ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class GroupFrame:
    """One group frame of a capture: where and when, its API, the group, member and generation it
    concerns (from the frame itself or, for a response, its request), its error code (responses) and the
    decoded frame, or ``error`` when its header or body could not be decoded."""

    ts: float
    conn: int
    client: str
    broker: str
    direction: str
    api_key: int
    api_version: int
    correlation_id: int
    offset: int
    size: int
    group: str | None = None
    member: str | None = None
    generation: int | None = None
    error_code: int | None = None
    frame: RequestFrame | ResponseFrame | None = None
    error: DecodeError | None = None
    data: bytes | None = None  # the frame without its size, for tools that decode it themselves
    message: dict | None = None  # a heartbeat frame (api keys 68, 88, 76): header and body in Kafka's JSON

    def json(self) -> dict:
        """Run-agnostic fields and the body in Kafka's JSON style (nested layers decoded or their error)."""
        out: dict[str, Any] = {
            "type": "frame",
            "ts": self.ts,
            "connection": self.conn,
            "client": self.client,
            "broker": self.broker,
            "direction": self.direction,
            "api_key": self.api_key,
            "api_name": API_NAMES[self.api_key],
            "api_version": self.api_version,
            "correlation_id": self.correlation_id,
            "group": self.group,
            "member": self.member,
            "generation": self.generation,
            "error_code": self.error_code,
        }
        if self.data is not None:
            out["hex"] = self.data.hex()
            if self.frame is not None:
                header = "RequestHeader" if isinstance(self.frame, RequestFrame) else "ResponseHeader"
                out["body_offset"] = len(encode_wire(header, self.frame.header_version, self.frame.header))
            elif self.message is not None:
                out["body_offset"] = self.message["body_offset"]
        if self.error is not None:
            out["error"] = _error_json(self.error)
        elif self.message is not None:
            out["frame"] = {k: v for k, v in self.message.items() if k != "body_offset"}
        elif isinstance(self.frame, RequestFrame):
            out["frame"] = request_frame_json(self.frame)
        elif self.frame is not None:
            out["frame"] = response_frame_json(self.frame)
        return out


@dataclass(slots=True)
class Member:
    """A member in one generation: identity, what it offered and was given, heartbeats, whether it left.
    ``subscription``/``assignment`` are :class:`~codec.group.Nested` (or raw bytes when not decoded);
    ``assignment_source`` says where the assignment was read (its SyncGroup response, the leader's
    SyncGroup request, ``__consumer_offsets``)."""

    member_id: str
    client_id: str | None = None
    group_instance_id: str | None = None
    client_host: str | None = None
    protocols: tuple[str, ...] = ()
    subscription: Any = None
    assignment: Any = None
    assignment_source: str | None = None
    heartbeats: int = 0
    heartbeat_errors: Counter = field(default_factory=Counter)
    left: bool = False

    @property
    def label(self) -> str:
        return f"{self.member_id} ({self.client_id})" if self.client_id else self.member_id


@dataclass(slots=True)
class Changes:
    """What changed from the previous generation of the group: members that joined and left, and
    for each kind of holding (``partitions``, ``active tasks``, ``standby tasks``) the items whose owner
    changed, by move: (previous owner or None, new owner or None) -> the items (each owner named once, however
    many items moved between the two)."""

    previous: int | None
    joined: list[str]
    left: list[str]
    moved: dict[str, dict[tuple[str | None, str | None], list[Item]]]

    def json(self) -> dict:
        return {
            "previous_generation": self.previous,
            "joined": self.joined,
            "left": self.left,
            "moved": {
                k: [{"from": a, "to": b, "items": items_json(items)} for (a, b), items in v.items()]
                for k, v in self.moved.items()
            },
        }


@dataclass(slots=True)
class Generation:
    """One generation of one group (``generation`` None: events of a group outside any generation).
    ``source`` is ``capture`` or ``__consumer_offsets``; ``joined`` tells whether its JoinGroup was seen."""

    group: str
    generation: int | None
    source: str = "capture"
    protocol_type: str | None = None
    protocol: str | None = None
    leader: str | None = None
    joined: bool = False
    formed_ts: float | None = None
    members: dict[str, Member] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    first_ts: float | None = None
    last_ts: float | None = None
    state_timestamp: int | None = None
    changes: Changes | None = None

    def touch(self, ts: float | None) -> None:
        if ts is not None:
            self.first_ts = ts if self.first_ts is None else min(self.first_ts, ts)
            self.last_ts = ts if self.last_ts is None else max(self.last_ts, ts)

    def member(self, member_id: str) -> Member:
        m = self.members.get(member_id)
        if m is None:
            m = self.members[member_id] = Member(member_id)
        return m

    def json(self) -> dict:
        return {
            "type": "generation",
            "group": self.group,
            "generation": self.generation,
            "source": self.source,
            "protocol_type": self.protocol_type,
            "protocol": self.protocol,
            "leader": self.leader,
            "join_seen": self.joined,
            "first_ts": self.first_ts,
            "last_ts": self.last_ts,
            "state_timestamp": self.state_timestamp,
            "members": [_member_json(m) for m in self.members.values()],
            "events": [e.json() for e in self.events],
            "changes": None if self.changes is None else self.changes.json(),
        }


@dataclass(frozen=True, slots=True)
class Problem:
    """Something the summary reports: ``where`` (packet, frame, record), what and why."""

    where: str
    what: str
    reason: str


@dataclass(slots=True)
class CaptureSummary:
    """Counts over the whole input, and the first :data:`MAX_PROBLEMS` problems of each kind."""

    stats: CaptureStats = field(default_factory=CaptureStats)
    kafka_frames: int = 0
    group_frames: int = 0
    other_apis: Counter = field(default_factory=Counter)  # (api key, version) -> frames
    gaps: int = 0
    unframed: Counter = field(default_factory=Counter)  # reason -> bytes
    unpaired_responses: int = 0
    unanswered_requests: int = 0
    generations: int = 0
    heartbeat_groups: int = 0
    records: int = 0
    offset_commits: Counter = field(default_factory=Counter)  # group -> records
    #: group -> the frames (or records) of it that ``--group`` left out
    other_groups: Counter = field(default_factory=Counter)
    counts: Counter = field(default_factory=Counter)  # problem kind -> how many
    problems: dict[str, list[Problem]] = field(default_factory=dict)

    def problem(self, kind: str, where: str, what: str, reason: str) -> None:
        self.counts[kind] += 1
        kept = self.problems.setdefault(kind, [])
        if len(kept) < MAX_PROBLEMS:
            kept.append(Problem(where, what, reason))

    def lost_frames_json(self) -> dict:
        """The frames given up with holes that the limits (``--max-hole-bytes``, ``--max-hole-seconds``)
        made the reader give up: ``count`` (cut by such a hole, or starting inside one whose bytes were
        captured late), ``holes`` and their ``hole_bytes``, ``skipped_bytes`` (the holes' bytes and the
        captured bytes dropped with those frames), ``late_bytes`` (bytes of those holes captured after
        all, too late), the limits used, and ``needed``: the limits that would have kept every hole open
        until its late bytes came (None when none came)."""
        s = self.stats
        needed = None
        if s.late_bytes:
            needed = {"max_hole_bytes": s.late_max_hole_bytes, "max_hole_seconds": s.late_max_hole_seconds}
        return {
            "count": s.lost_frames,
            "holes": s.given_up_holes,
            "hole_bytes": s.given_up_bytes,
            "skipped_bytes": s.given_up_bytes + s.lost_frame_bytes,
            "late_bytes": s.late_bytes,
            "max_hole_bytes": s.max_hole_bytes,
            "max_hole_seconds": s.max_hole_seconds,
            "needed": needed,
        }

    def json(self) -> dict:
        s = self.stats
        return {
            "type": "summary",
            "packets": s.packets,
            "tcp_segments": s.tcp_segments,
            "non_tcp": s.non_tcp,
            "bad_packets": s.bad_packets,
            "connections": s.connections,
            "stream_bytes": s.stream_bytes,
            "gap_bytes": s.gap_bytes,
            "gaps": self.gaps,
            "kafka_frames": self.kafka_frames,
            "group_frames": self.group_frames,
            "generations": self.generations,
            "heartbeat_groups": self.heartbeat_groups,
            "records": self.records,
            "other_apis": [
                {"api_key": k, "api_name": API_NAMES.get(k), "api_version": v, "frames": n}
                for (k, v), n in sorted(self.other_apis.items(), key=lambda kv: (kv[0][0] is None, kv[0]))
            ],
            "unframed_bytes": dict(self.unframed),
            "lost_frames": self.lost_frames_json(),
            "reader": reader_json(s),
            "unpaired_responses": self.unpaired_responses,
            "unanswered_requests": self.unanswered_requests,
            "offset_commits": dict(self.offset_commits),
            "other_groups": sum(self.other_groups.values()),
            "problems": {
                k: {"count": self.counts[k], "first": [dataclasses.asdict(p) for p in v]}
                for k, v in self.problems.items()
            },
        }


# -- the layers of a member's payloads ----------------------------------------------------------------


def _layers(value) -> tuple[ConsumerMessage | None, Any]:
    """(ConsumerProtocol message, Streams model or None) of a carried field, when decoded."""
    if not isinstance(value, Nested) or not value.ok:
        return None, None
    msg = value.value
    if not isinstance(msg, ConsumerMessage):  # another protocol's layer (Kafka Connect's): not consumer data
        return None, None
    user = msg.data.user_data
    if isinstance(user, Nested) and user.ok:
        return msg, user.value.info
    return msg, None


def subscription_layers(value) -> tuple[ConsumerMessage | None, SubscriptionInfo | None]:
    return _layers(value)


def assignment_layers(value) -> tuple[ConsumerMessage | None, AssignmentInfo | None]:
    return _layers(value)


def partition_items(items) -> set[Item]:
    """(topic, partition) items of ConsumerProtocol topic-partition lists (or of TopicPartitions)."""
    out: set[Item] = set()
    for tp in items or ():
        out.update(numbered(tp.topic, tp.partitions) if hasattr(tp, "partitions") else [(tp.topic, tp.partition)])
    return out


def holdings(assignment) -> dict[str, set[Item]] | None:
    """What an assignment gives its member, as items (:mod:`codec.capture.items`): ``partitions`` and, for
    Streams, ``active tasks`` and ``standby tasks``; for a Connect worker ``connectors`` and ``tasks``; None
    when it was not seen or not decoded."""
    if (
        isinstance(assignment, Nested)
        and assignment.ok
        and isinstance(getattr(assignment.value, "info", None), ConnectAssignment)
    ):
        a = assignment.value.info
        return {"connectors": {(c, None) for c in a.connectors}, "tasks": {(t.connector, t.task) for t in a.tasks}}
    msg, info = assignment_layers(assignment)
    if msg is None:
        return None
    out = {"partitions": partition_items(msg.data.assigned_partitions)}
    if info is not None:
        out["active tasks"] = {(str(t), None) for t in info.active_tasks}
        out["standby tasks"] = {(str(t), None) for t in info.standby_tasks}
    return out


def _nested_errors(value) -> Iterator[Nested]:
    """The layers of a carried field that failed to decode."""
    if isinstance(value, Nested):
        if not value.ok:
            yield value
        elif isinstance(value.value, ConsumerMessage):
            yield from _nested_errors(value.value.data.user_data)


def _carried(body) -> Iterator[Any]:
    """Every carried (possibly nested) field of a group body."""
    for name in ("assignment",):
        if isinstance(getattr(body, name, None), Nested):
            yield getattr(body, name)
    for array, f in (("protocols", "metadata"), ("members", "metadata"), ("assignments", "assignment")):
        for item in getattr(body, array, None) or ():
            v = getattr(item, f, None)
            if isinstance(v, Nested):
                yield v


# -- JSON ---------------------------------------------------------------------------------------------


def _error_json(e: DecodeError) -> dict:
    return {"message": str(e), "reason": e.reason, "offset": e.offset, "path": e.path}


def _consumer_summary(msg: ConsumerMessage) -> dict:
    d = msg.data
    if msg.name.endswith("Subscription"):
        out: dict[str, Any] = {"version": msg.version, "topics": list(d.topics)}
        owned = getattr(d, "owned_partitions", None)
        if owned:
            out["owned_partitions"] = items_json(partition_items(owned))
        for k in ("generation_id", "rack_id"):
            if getattr(d, k, None) not in (None, -1):
                out[k] = getattr(d, k)
    else:
        out = {"version": msg.version, "partitions": items_json(partition_items(d.assigned_partitions))}
    user = d.user_data
    out["user_data_bytes"] = None if user is None else len(user.raw if isinstance(user, Nested) else user)
    return out


def _subscription_info_json(i: SubscriptionInfo) -> dict:
    return {
        "version": i.version,
        "latest_supported_version": i.latest_supported_version,
        "process_id": str(i.process_id),
        "endpoint": i.user_endpoint,
        "task_offset_sums": {str(t): s for t, s in sorted(i.task_offset_sums.items())},
        "client_tags": dict(i.client_tags),
        "error_code": i.error_code,
        "unique_field": i.unique_field,
    }


def _hosts(m) -> dict[str, dict[str, list[int]] | list[str]]:
    """Partitions by host, each topic once: ``{"h:1": {"t": [0, 1]}}``."""
    return {str(h): items_json(partition_items(ps)) for h, ps in sorted(m.items(), key=lambda kv: str(kv[0]))}


def _assignment_info_json(i: AssignmentInfo) -> dict:
    return {
        "version": i.version,
        "commonly_supported_version": i.commonly_supported_version,
        "active_tasks": [str(t) for t in i.active_tasks],
        "standby_tasks": {str(t): items_json(partition_items(ps)) for t, ps in sorted(i.standby_tasks.items())},
        "partitions_by_host": _hosts(i.partitions_by_host),
        "standby_partitions_by_host": _hosts(i.standby_partitions_by_host),
        "error_code": i.error_code,
        "next_rebalance_ms": i.next_rebalance_ms,
    }


def _connect_json(decoded) -> dict:
    """Kafka Connect's layer in Kafka's JSON, read as it was read (``connect_metadata`` or
    ``connect_assignment``); another layer is named only."""
    from ..connect import (
        DecodedConnectAssignment,
        DecodedConnectMetadata,
        connect_assignment_json,
        connect_metadata_json,
    )

    if isinstance(decoded, DecodedConnectMetadata):
        return {"connect_metadata": connect_metadata_json(decoded.info, reader_version=decoded.reader_version)}
    if isinstance(decoded, DecodedConnectAssignment):
        return {"connect_assignment": connect_assignment_json(decoded.info, reader_version=decoded.reader_version)}
    return {"layer": type(decoded).__name__}


def _payload_json(value, streams_json) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, Nested):
        return {"bytes": len(value)}
    if value.error is not None:
        return {"bytes": len(value.raw), "error": dataclasses.asdict(value.error)}
    msg, info = _layers(value)
    if msg is None:  # another protocol's layer: Kafka Connect's worker metadata or assignment
        return {"bytes": len(value.raw), **_connect_json(value.value)}
    out = {"bytes": len(value.raw), "consumer": _consumer_summary(msg)}
    user = msg.data.user_data
    if info is not None:
        out["streams"] = streams_json(info)
    elif isinstance(user, Nested) and user.error is not None:  # (a Streams layer that decoded has its info)
        out["streams_error"] = dataclasses.asdict(user.error)
    return out


def _member_json(m: Member) -> dict:
    return {
        "member_id": m.member_id,
        "client_id": m.client_id,
        "group_instance_id": m.group_instance_id,
        "client_host": m.client_host,
        "protocols": list(m.protocols),
        "subscription": _payload_json(m.subscription, _subscription_info_json),
        "assignment": _payload_json(m.assignment, _assignment_info_json),
        "assignment_source": m.assignment_source,
        "heartbeats": m.heartbeats,
        "heartbeat_errors": {str(k): v for k, v in sorted(m.heartbeat_errors.items())},
        "left": m.left,
    }


# -- generations of a group ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Snapshot:
    """What the next generation's changes are computed against."""

    generation: int | None
    members: dict[str, str]  # member id -> label
    owners: dict[str, dict[Item, str]]  # kind -> item -> member label


def _snapshot(gen: Generation) -> _Snapshot:
    owners: dict[str, dict[Item, str]] = {}
    for m in gen.members.values():
        for kind, items in (holdings(m.assignment) or {}).items():
            for item in items:
                owners.setdefault(kind, {})[item] = m.label
    return _Snapshot(gen.generation, {m.member_id: m.label for m in gen.members.values()}, owners)


def _changes(prev: _Snapshot | None, gen: Generation) -> Changes | None:
    if prev is None:
        return None
    now = _snapshot(gen)
    moved: dict[str, dict[tuple[str | None, str | None], list[Item]]] = {}
    for kind in sorted(set(prev.owners) | set(now.owners)):
        a, b = prev.owners.get(kind, {}), now.owners.get(kind, {})
        moves: dict[tuple[str | None, str | None], list[Item]] = {}
        for item in sorted(set(a) | set(b)):
            if a.get(item) != b.get(item):
                moves.setdefault((a.get(item), b.get(item)), []).append(item)
        if moves:
            moved[kind] = dict(sorted(moves.items(), key=lambda kv: (kv[0][0] or "", kv[0][1] or "")))
    return Changes(
        prev.generation,
        sorted(now.members[m] for m in now.members.keys() - prev.members.keys()),
        sorted(prev.members[m] for m in prev.members.keys() - now.members.keys()),
        moved,
    )


class _Group:
    """Every generation of one group, and the events that name no generation (placed at the end)."""

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source
        self.generations: dict[int, Generation] = {}
        self.loose: list[Event] = []
        self.clients: OrderedDict[str, str] = OrderedDict()  # member id -> client id, from request headers

    def generation(self, gen_id: int, ts: float | None) -> Generation:
        g = self.generations.get(gen_id)
        if g is None:
            g = self.generations[gen_id] = Generation(self.name, gen_id, self.source)
        g.touch(ts)
        return g

    def event(self, ev: Event, gen_id: int | None = None) -> None:
        g = self.generations.get(gen_id) if gen_id is not None else None
        if g is None:
            self.loose.append(ev)
        else:
            g.events.append(ev)
            g.touch(ev.ts)

    def finish(self) -> list[Generation]:
        """The generations in order, each with its events sorted and its changes from the one before;
        then, if some events fit no generation, a generation None holding them."""
        gens = [self.generations[k] for k in sorted(self.generations)]
        outside = []
        for ev in self.loose:
            g = _place(ev, gens)
            if g is None:
                outside.append(ev)
                continue
            g.events.append(ev)
            if ev.kind == "leave" and ev.member is not None:  # (a leave names its members)
                for mid in ev.member.split(", "):
                    if mid in g.members:
                        g.members[mid].left = True
        prev: _Snapshot | None = None
        for g in gens:
            for m in g.members.values():
                m.client_id = m.client_id or self.clients.get(m.member_id)
                m.subscription = _with_protocol(m.subscription, SUBSCRIPTION, g.protocol)
                m.assignment = _with_protocol(m.assignment, ASSIGNMENT, g.protocol)
            g.members = dict(sorted(g.members.items(), key=lambda kv: (kv[1].label, kv[0])))
            g.events.sort(key=lambda e: (e.ts is None, e.ts or 0.0))
            g.changes = _changes(prev, g)
            prev = _snapshot(g)
        if outside:
            g = Generation(self.name, None, self.source, events=outside)
            for ev in outside:
                g.touch(ev.ts)
            gens.append(g)
        return gens


def _place(ev: Event, gens: list[Generation]) -> Generation | None:
    """The generation an event without one belongs to: a failed join to the first generation formed
    after it (the rebalance it was part of), anything else to the last one formed before it; events
    without a time go to the last generation."""
    if not gens:
        return None
    if ev.ts is None:
        return gens[-1]
    start = [(g.formed_ts if g.formed_ts is not None else g.first_ts) for g in gens]
    if ev.kind == "join":
        return next((g for g, t in zip(gens, start) if t is not None and t >= ev.ts), gens[-1])
    before = [g for g, t in zip(gens, start) if t is not None and t <= ev.ts]
    return before[-1] if before else gens[0]


def _with_protocol(value, layer: str, protocol: str | None):
    """A carried field decoded again with the generation's protocol, when its UserData was left bytes
    for want of it (a frame decoded before the JoinGroup response that names the protocol)."""
    if protocol != STREAMS_PROTOCOL or not isinstance(value, Nested) or not value.ok:
        return value
    user = value.value.data.user_data
    return decode_layer(layer, value.raw, protocol_name=protocol) if user and not isinstance(user, Nested) else value


# -- from a capture -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Request:
    """What a response needs from its request."""

    frame: GroupFrame
    body: Any  # the request's body (None when it did not decode)
    client_id: str | None = None
    event: Event | None = None


class _Story:
    """Turns capture records into group frames, and at the end generations (see :func:`capture_story`)."""

    def __init__(self, summary: CaptureSummary, group: str | None) -> None:
        self.summary = summary
        self.only = group
        self.groups: dict[str, _Group] = {}
        self.requests: OrderedDict[tuple[int, int, int], _Request] = OrderedDict()
        # connection -> (protocol type, protocol names) of its last JoinGroup request
        self.offered: OrderedDict[int, tuple[str, tuple[str, ...]]] = OrderedDict()
        self.hb = HeartbeatStory()

    def _group(self, name: str) -> _Group:
        g = self.groups.get(name)
        if g is None:
            g = self.groups[name] = _Group(name, "capture")
        return g

    def _kept(self, gf: GroupFrame) -> GroupFrame | None:
        """``gf``, counted, when ``--group`` keeps it; else None, counted as another group's."""
        if self.only is None or gf.group == self.only:
            self.summary.group_frames += 1
            return gf
        self.summary.other_groups[gf.group] += 1
        return None

    def feed(self, event) -> GroupFrame | None:
        """Count one capture record; a group frame comes back decoded."""
        s = self.summary
        if isinstance(event, KafkaFrame):
            s.kafka_frames += 1
            if event.cut:  # only its header was captured (the reader counts it: stats.cut_frames)
                return None
            if (event.api_key in HEARTBEAT_APIS or event.api_key in DESCRIBE_APIS) and event.data is not None:
                return self._kept(self._heartbeat_frame(event))
            elif event.api_key in GROUP_APIS and event.data is not None:
                return self._kept(self._frame(event))
            elif event.api_key is None:
                s.unpaired_responses += 1
                s.problem(
                    "unpaired responses",
                    f"connection #{event.flow.conn}",
                    f"correlation id {event.correlation_id}",
                    "its request was not captured (or not framed): the API is unknown",
                )
            else:
                s.other_apis[(event.api_key, event.api_version)] += 1
                if event.api_key == METADATA and event.direction == "response" and event.data is not None:
                    self._metadata(event)
        elif isinstance(event, Gap):
            s.gaps += 1
            if event.given_up:
                limit = (
                    f"more than {s.stats.max_hole_bytes:,} bytes waited behind them"
                    if event.reason == GIVEN_UP_BYTES
                    else f"the bytes behind them waited more than {s.stats.max_hole_seconds:g} s"
                )
                s.problem(
                    "holes given up",
                    str(event.flow),
                    f"bytes {event.offset}-{event.offset + event.length}",
                    f"{event.length} bytes not captured in time: {limit} (--{event.reason})",
                )
            else:
                s.problem(
                    "gaps",
                    str(event.flow),
                    f"bytes {event.offset}-{event.offset + event.length}",
                    f"{event.length} bytes "
                    + ("cut off by the capture's snap length" if event.reason == SNAP_LENGTH else "never captured"),
                )
        elif isinstance(event, Unframed):
            s.unframed[event.reason] += event.length
            s.problem("unframed", str(event.flow), f"bytes {event.offset}-{event.offset + event.length}", event.reason)
        elif isinstance(event, BadPacket):
            s.problem("bad packets", f"packet {event.index}", "packet", str(event.error))
        elif isinstance(event, BadFile):
            s.problem("bad file", f"byte {event.error.offset}", "file", str(event.error))
        return None

    def finish(self) -> Iterator[Generation | HeartbeatGroup]:
        s = self.summary
        for req in self.requests.values():
            if self.only is not None and req.frame.group != self.only:
                continue  # another group's request, already counted as left out (--group)
            s.unanswered_requests += 1
            f = req.frame
            s.problem(
                "unanswered requests",
                f"connection #{f.conn}",
                f"{API_NAMES[f.api_key]} v{f.api_version} correlation id {f.correlation_id}",
                "no response captured",
            )
        self.requests.clear()
        for name in sorted(self.groups):
            if self.only is None or name == self.only:
                for g in self.groups[name].finish():
                    s.generations += g.generation is not None
                    yield g
        classic = {name: [k for k in g.generations] for name, g in self.groups.items()}
        for hg in self.hb.finish(classic):
            if self.only is None or hg.group == self.only:
                s.heartbeat_groups += 1
                yield hg

    # -- one frame --------------------------------------------------------------------------------------

    def _metadata(self, e: KafkaFrame) -> None:
        """The topic names of a Metadata response (v10+), for the topic ids of heartbeat assignments."""
        assert e.data is not None and e.api_version is not None  # feed() passes a kept response with its request
        try:
            _, end = decode_wire("ResponseHeader", 1 if e.api_version >= 9 else 0, e.data)
            self.hb.topic_names.update(topic_names(e.data[end:], e.api_version))
        except DecodeError as err:
            self.summary.problem(
                "unread metadata",
                f"connection #{e.flow.conn}",
                f"Metadata response v{e.api_version} correlation id {e.correlation_id}",
                f"{err} (its topic names are not used)",
            )

    def _heartbeat_frame(self, e: KafkaFrame) -> GroupFrame:
        """A ConsumerGroupHeartbeat or StreamsGroupHeartbeat frame, decoded in Kafka's JSON and fed to the
        heartbeat story."""
        assert e.data is not None and e.api_key is not None and e.api_version is not None  # (as feed() checked)
        gf = _group_frame(e)
        req = None
        if e.direction == "response":
            req = self.requests.pop((gf.conn, gf.correlation_id, gf.api_key), None)
            if req is not None:
                gf.group, gf.member = req.frame.group, req.frame.member
        try:
            gf.message = decode_heartbeat(e.data, e.direction, e.api_key, e.api_version)
        except DecodeError as err:
            self._failed(gf, err)
            if e.direction == "request":
                self._remember(_Request(gf, None))
            return gf
        body = gf.message["body"]
        if e.api_key in DESCRIBE_APIS:
            if e.direction == "request":
                ids = body.get("groupIds") or []
                gf.group = ids[0] if len(ids) == 1 else None
                self._remember(_Request(gf, None))
            else:
                groups = body.get("groups") or []
                gf.error_code = groups[0].get("errorCode") if len(groups) == 1 else None
                self.hb.describe(e.ts, e.api_key, body)
        elif e.direction == "request":
            gf.group, gf.member = body.get("groupId"), body.get("memberId") or None
            pending = self.hb.request(e.ts, e.api_key, gf.message["header"].get("clientId"), body)
            self._remember(_Request(gf, pending))
        else:
            gf.error_code = body.get("errorCode")
            gf.member = body.get("memberId") or gf.member
            if req is not None and isinstance(req.body, PendingHeartbeat):
                self.hb.response(e.ts, req.body, body)
        return gf

    def _frame(self, e: KafkaFrame) -> GroupFrame:
        assert e.data is not None and e.api_key is not None and e.api_version is not None  # (as feed() checked)
        gf = _group_frame(e)
        if e.direction == "request":
            self._request(gf, e.data)
        else:
            self._response(gf, e.data)
        if gf.frame is not None:
            for carried in _carried(gf.frame.body):
                for bad in _nested_errors(carried):
                    assert bad.error is not None  # (what _nested_errors finds)
                    self.summary.problem(
                        "undecodable layers", self._where(gf), f"{bad.layer} at {bad.error.at}", bad.error.message
                    )
        return gf

    @staticmethod
    def _where(gf: GroupFrame) -> str:
        return (
            f"connection #{gf.conn} {API_NAMES[gf.api_key]} {gf.direction} v{gf.api_version} "
            f"correlation id {gf.correlation_id}"
        )

    def _failed(self, gf: GroupFrame, e: DecodeError) -> None:
        gf.error = e
        self.summary.problem("undecodable frames", self._where(gf), "frame", str(e))

    def _request(self, gf: GroupFrame, data: bytes) -> None:
        try:
            frame = decode_request_frame(data, nested=gf.api_key != 14)
        except DecodeError as e:
            self._failed(gf, e)
            self._remember(_Request(gf, None))
            return
        body = frame.body
        gf.group, gf.generation = body.group_id, getattr(body, "generation_id", None)
        gf.member = getattr(body, "member_id", None)
        group = self._group(body.group_id)
        ev = None
        if gf.api_key == 14:
            ptype, pname = self._protocol(group, body.generation_id, gf.conn)
            body = nest_body(
                "SyncGroupRequest",
                body,
                protocol_type=getattr(body, "protocol_type", None) or ptype,
                protocol_name=getattr(body, "protocol_name", None) or pname,
            )
            frame = dataclasses.replace(frame, body=body)
            self._leader_assignments(group, body, gf.ts)
        elif gf.api_key == 13:
            members = [(m.member_id, m.group_instance_id, getattr(m, "reason", None)) for m in body.members or ()] or [
                (getattr(body, "member_id", ""), None, None)
            ]
            gf.member = members[0][0] if len(members) == 1 else None
            detail = "; ".join(
                mid + ":" + (f" instance {iid}" if iid else "") + (f" reason '{r}'" if r else "")
                for mid, iid, r in members
                if iid or r
            )
            ev = Event(gf.ts, "leave", ", ".join(m[0] for m in members), None, detail)
            group.event(ev)
        elif gf.api_key == 12 and body.generation_id >= 0:
            group.generation(body.generation_id, gf.ts).member(body.member_id).heartbeats += 1
        if gf.api_key == 11:
            self.offered[gf.conn] = (body.protocol_type, tuple(p.name for p in body.protocols))
            while len(self.offered) > MAX_PENDING:
                self.offered.popitem(last=False)
        gf.frame = frame
        if gf.member and frame.client_id is not None:
            group.clients[gf.member] = frame.client_id
            while len(group.clients) > MAX_PENDING:
                group.clients.popitem(last=False)
        self._remember(_Request(gf, body, frame.client_id, ev))

    def _protocol(self, group: _Group, gen_id: int | None, conn: int) -> tuple[str | None, str | None]:
        """(protocol type, protocol) of a SyncGroup frame: its generation's, from the JoinGroup response;
        when that was not seen (yet: the two directions of a connection come out independently), the
        one protocol the connection's JoinGroup request offered, if it offered only one."""
        gen = group.generations.get(gen_id) if gen_id is not None else None
        if gen is not None and gen.protocol is not None:
            return gen.protocol_type, gen.protocol
        ptype, names = self.offered.get(conn, (None, ()))
        return ptype, names[0] if len(names) == 1 else None

    def _remember(self, req: _Request) -> None:
        gf = req.frame
        self.requests[(gf.conn, gf.correlation_id, gf.api_key)] = req
        while len(self.requests) > MAX_PENDING:
            self.requests.popitem(last=False)

    def _leader_assignments(self, group: _Group, body, ts: float) -> None:
        if not body.assignments or body.generation_id < 0:
            return
        gen = group.generation(body.generation_id, ts)
        gen.leader = gen.leader or body.member_id
        for a in body.assignments:
            m = gen.member(a.member_id)
            if m.assignment is None:
                m.assignment, m.assignment_source = a.assignment, "leader's SyncGroup request"

    def _response(self, gf: GroupFrame, data: bytes) -> None:
        req = self.requests.pop((gf.conn, gf.correlation_id, gf.api_key), None)
        body = req.body if req is not None else None
        if req is not None and body is not None:
            gf.group, gf.member, gf.generation = req.frame.group, req.frame.member, req.frame.generation
        group = self._group(gf.group) if gf.group is not None else None
        ptype = getattr(body, "protocol_type", None) if gf.api_key == 11 else None
        pname = None
        if gf.api_key == 14 and group is not None:
            ptype, pname = self._protocol(group, gf.generation, gf.conn)
        try:
            frame = decode_response_frame(data, gf.api_key, gf.api_version, protocol_type=ptype, protocol_name=pname)
        except DecodeError as e:
            self._failed(gf, e)
            return
        gf.frame = frame
        gf.error_code = frame.body.error_code
        if group is None:
            return
        assert req is not None  # the group is known from the request's body only
        if gf.api_key == 11:
            self._joined(group, gf, req, frame.body)
        elif gf.api_key == 14:
            self._synced(group, gf, frame.body)
        elif gf.api_key == 12 and gf.error_code:
            gen = group.generations.get(gf.generation) if gf.generation is not None else None
            if gen is not None and gf.member is not None:  # (a HeartbeatRequest names its member)
                gen.member(gf.member).heartbeat_errors[gf.error_code] += 1
            group.event(Event(gf.ts, "heartbeat", gf.member, gf.error_code), gf.generation)
        elif gf.api_key == 13 and req.event is not None:
            req.event.error_code = gf.error_code
            bad = [f"{m.member_id}: {error_name(m.error_code)}" for m in frame.body.members or () if m.error_code]
            if bad:
                req.event.detail += f"; per member: {', '.join(bad)}"

    def _joined(self, group: _Group, gf: GroupFrame, request: _Request, resp) -> None:
        req = request.body
        gf.member = resp.member_id or gf.member
        if resp.error_code:
            detail = f"member id assigned {resp.member_id}" if resp.error_code == 79 and resp.member_id else ""
            group.event(Event(gf.ts, "join", gf.member or req.member_id or None, resp.error_code, detail))
            return
        gf.generation = resp.generation_id
        gen = group.generation(resp.generation_id, gf.ts)
        gen.joined = True
        gen.formed_ts = gf.ts if gen.formed_ts is None else min(gen.formed_ts, gf.ts)
        gen.protocol_type = getattr(resp, "protocol_type", None) or req.protocol_type
        gen.protocol = resp.protocol_name or gen.protocol
        gen.leader = resp.leader or gen.leader
        for m in resp.members or ():
            gm = gen.member(m.member_id)
            gm.group_instance_id = m.group_instance_id or gm.group_instance_id
            gm.subscription = m.metadata
        me = gen.member(resp.member_id)
        me.client_id = request.client_id
        me.group_instance_id = req.group_instance_id or me.group_instance_id
        me.protocols = tuple(p.name for p in req.protocols)
        if me.subscription is None:
            me.subscription = next((p.metadata for p in req.protocols if p.name == gen.protocol), None)
        gen.touch(gf.ts)

    def _synced(self, group: _Group, gf: GroupFrame, resp) -> None:
        if gf.error_code:
            group.event(Event(gf.ts, "sync", gf.member, gf.error_code), gf.generation)
            return
        if gf.generation is not None and gf.generation >= 0 and gf.member is not None:
            m = group.generation(gf.generation, gf.ts).member(gf.member)
            m.assignment, m.assignment_source = resp.assignment, "SyncGroup response"


def capture_story(
    source: str | Path | ByteStream,
    *,
    ports: Iterable[int] = DEFAULT_PORTS,
    group: str | None = None,
    summary: CaptureSummary | None = None,
    max_hole_bytes: int = DEFAULT_MAX_BUFFER,
    max_hole_seconds: float = DEFAULT_MAX_WAIT,
) -> Iterator[GroupFrame | Generation | HeartbeatGroup]:
    """The group frames and generations of a pcap/pcapng file (see the module docstring); counts and
    problems go to ``summary``. ``group`` keeps only that group's frames and generations.
    ``max_hole_bytes``/``max_hole_seconds``: how long TCP reassembly holds a hole open for a late
    segment (see :mod:`codec.capture.scan`); frames lost to holes given up are counted in the summary."""
    summary = summary if summary is not None else CaptureSummary()
    story = _Story(summary, group)
    for event in kafka_frames(
        source,
        ports=set(ports),
        api_keys={*GROUP_APIS, *HEARTBEAT_APIS, *DESCRIBE_APIS, METADATA},
        stats=summary.stats,
        max_buffer=max_hole_bytes,
        max_wait=max_hole_seconds,
    ):
        gf = story.feed(event)
        if gf is not None:
            yield gf
    yield from story.finish()


# -- from __consumer_offsets --------------------------------------------------------------------------


def offsets_story(
    records: Iterable[OffsetsRecord | ControlMarker | BadRecord],
    *,
    group: str | None = None,
    summary: CaptureSummary | None = None,
    max_told: int | None = None,
) -> Iterator[Generation | HeartbeatGroup]:
    """The generations that ``__consumer_offsets`` group metadata records describe, in record order.

    Each ``GroupMetadataValue`` is a snapshot of a group at a generation (Kafka writes one when a
    generation forms and again when its assignment is stored); snapshots of the same generation merge,
    the later one winning. A tombstone (the group deleted) is an event. Offset commits are counted. A bad
    record is a problem of kind ``bad records``, or ``bad file`` when the input could not be read past it.
    ``max_told``: the most members' worth of group records told (see :data:`TOLD_FLOOR`); the records past it
    are counted as the problem ``records not told`` (the output budget), never dropped without a word."""
    summary = summary if summary is not None else CaptureSummary()
    groups: dict[str, _Group] = {}
    hb = HeartbeatStory()
    told = 0
    for rec in records:
        summary.records += 1
        if isinstance(rec, BadRecord):
            summary.problem(
                "bad file" if rec.stopped else "bad records", rec.where, rec.error.message or "record", str(rec.error)
            )
            continue
        if isinstance(rec, ControlMarker):
            continue
        if isinstance(rec.key, dict):  # a consumer or streams group record (codec.kafka4)
            if group is not None and rec.key.get("groupId") != group:
                summary.other_groups[rec.key.get("groupId")] += 1
            elif _tell(summary, rec, 1, told, max_told):
                told += 1
                hb.record(rec.where, rec.key_schema.removesuffix("Key"), rec.key, rec.value)
            continue
        name = rec.key.group
        if group is not None and name != group:
            summary.other_groups[name] += 1
            continue
        if rec.key_schema == "OffsetCommitKey":
            summary.offset_commits[name] += 1
            continue
        cost = 1 + (0 if rec.tombstone else len(rec.value.members))
        if not _tell(summary, rec, cost, told, max_told):
            continue
        told += cost
        g = groups.get(name)
        if g is None:
            g = groups[name] = _Group(name, "__consumer_offsets")
        if rec.tombstone:
            g.event(Event(None, "deleted", None, None, f"tombstone at {rec.where}"))
        else:
            _snapshot_record(g, rec)
    for name in sorted(groups):
        for gen in groups[name].finish():
            summary.generations += gen.generation is not None
            yield gen
    classic = {name: list(g.generations) for name, g in groups.items()}
    for hg in hb.finish(classic):
        summary.heartbeat_groups += 1
        yield hg


def _tell(summary: CaptureSummary, rec: OffsetsRecord, cost: int, told: int, max_told: int | None) -> bool:
    """Whether the story has room for a record (``cost`` members' worth); a problem when it has not."""
    if max_told is None or told + cost <= max_told:
        return True
    summary.problem(
        "records not told",
        rec.where,
        rec.key_schema.removesuffix("Key"),
        f"past the {max_told:,} members' worth of group records the story tells for an input of this "
        "size (codec.budget)",
    )
    return False


def _snapshot_record(g: _Group, rec: OffsetsRecord) -> None:
    v = rec.value
    gen = g.generation(v.generation, None)
    gen.joined = True
    gen.protocol_type, gen.protocol, gen.leader = v.protocol_type, v.protocol, v.leader
    gen.state_timestamp = getattr(v, "current_state_timestamp", None)
    payloads = {p.member_id: p for p in member_payloads(v)}
    gen.members = {}
    for m in v.members:
        p = payloads[m.member_id]
        gen.members[m.member_id] = Member(
            m.member_id,
            m.client_id,
            getattr(m, "group_instance_id", None),
            m.client_host,
            (v.protocol,) if v.protocol else (),
            p.subscription,
            p.assignment,
            "__consumer_offsets",
        )


def _group_frame(e: KafkaFrame) -> GroupFrame:
    """The story's frame of a group API's Kafka frame: its client and broker ends told by its direction."""
    assert e.api_key is not None and e.api_version is not None  # (a frame feed() kept)
    fl = e.flow
    client, broker = (
        ((fl.src, fl.sport), (fl.dst, fl.dport))
        if e.direction == "request"
        else ((fl.dst, fl.dport), (fl.src, fl.sport))
    )
    return GroupFrame(
        e.ts,
        fl.conn,
        f"{client[0]}:{client[1]}",
        f"{broker[0]}:{broker[1]}",
        e.direction,
        e.api_key,
        e.api_version,
        e.correlation_id,
        e.offset,
        e.size,
        data=e.data,
    )
