"""The records of the rebalance story (:mod:`codec.capture.story`): a group frame, a member in a generation, a
generation with its changes and cause, the summary of the input; and the layers of a member's payloads
(ConsumerProtocol, Kafka Streams, Kafka Connect) as the story reads and writes them in JSON."""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..causes import Rebalance
from ..causes.detectors import Finding
from ..errors import DecodeError
from ..group.consumer import ConsumerMessage
from ..group.frames import RequestFrame, ResponseFrame
from ..group.jsonview import request_frame_json, response_frame_json
from ..group.nested import Nested, sticky_data, streams_info
from ..streams.constants import assignor_error_name
from ..streams import AssignmentInfo, SubscriptionInfo
from ..connect.assignment import ConnectAssignment
from .events import Event, error_name_only
from .items import Item, items_json, numbered
from .judgement import reader_json
from .scan import CaptureStats
from ..wire.builder import encode_wire
from ..group.messages import MESSAGES as _GROUP_MESSAGES
from ..wire import registry as _registry

__all__ = [
    "GROUP_APIS",
    "API_NAMES",
    "MAX_PROBLEMS",
    "GroupFrame",
    "MetadataFrame",
    "Member",
    "Changes",
    "Generation",
    "Problem",
    "CaptureSummary",
    "holdings",
    "subscription_layers",
    "assignment_layers",
    "partition_items",
    "nested_errors",
    "carried",
    "error_json",
]

#: the classic group protocol's APIs (JoinGroup, SyncGroup, Heartbeat, LeaveGroup: codec.group.messages) by key
GROUP_APIS = {k: a.name for k, a in _registry.apis().items() if a.request in _GROUP_MESSAGES}
#: Kafka's names of its APIs (codec.wire.registry: the schemas', then Kafka's table of the others)
API_NAMES = _registry.api_names()
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
            "error_name": error_name_only(self.error_code),
        }
        if self.data is not None:
            out["hex"] = self.data.hex()
            if self.frame is not None:
                header = "RequestHeader" if isinstance(self.frame, RequestFrame) else "ResponseHeader"
                out["body_offset"] = len(encode_wire(header, self.frame.header_version, self.frame.header))
            elif self.message is not None:
                out["body_offset"] = self.message["body_offset"]
        if self.error is not None:
            out["error"] = error_json(self.error)
        elif self.message is not None:
            out["frame"] = {k: v for k, v in self.message.items() if k != "body_offset"}
        elif isinstance(self.frame, RequestFrame):
            out["frame"] = request_frame_json(self.frame)
        elif self.frame is not None:
            out["frame"] = response_frame_json(self.frame)
        return out


@dataclass(slots=True)
class MetadataFrame:
    """A Metadata response of the capture (``capture --json`` writes it as a ``"type": "metadata"`` line, so that
    the pipeline knows the topics' partition counts and ids): where and when, its bytes (without the size) and where
    its body begins."""

    ts: float
    conn: int
    client: str
    broker: str
    api_version: int
    correlation_id: int
    data: bytes
    body_offset: int

    def json(self) -> dict:
        return {
            "type": "metadata",
            "ts": self.ts,
            "connection": self.conn,
            "client": self.client,
            "broker": self.broker,
            "direction": "response",
            "api_key": 3,
            "api_name": API_NAMES[3],
            "api_version": self.api_version,
            "correlation_id": self.correlation_id,
            "hex": self.data.hex(),
            "body_offset": self.body_offset,
        }


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
    ``source`` is ``capture`` or ``__consumer_offsets``; ``joined`` tells whether its JoinGroup was seen;
    ``rebalance`` why it formed (:mod:`codec.causes`: its main cause and every cause found); ``findings`` what the
    loop and storm detectors (:mod:`codec.causes.detectors`) found when it formed."""

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
    rebalance: Rebalance | None = None
    findings: list[Finding] = field(default_factory=list)

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
        """The generation in the story's JSON; ``cause`` (and ``causes`` when more than one was found) as
        :meth:`codec.causes.Rebalance.cause_json` writes them."""
        out = {
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
        if self.rebalance is not None:
            out.update(self.rebalance.cause_json())
        if self.findings:
            out["findings"] = [f.json() for f in self.findings]
        return out


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
    return msg, streams_info(user)


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


def nested_errors(value) -> Iterator[Nested]:
    """The layers of a carried field that failed to decode."""
    if isinstance(value, Nested):
        if not value.ok:
            yield value
        elif isinstance(value.value, ConsumerMessage):
            yield from nested_errors(value.value.data.user_data)


def carried(body) -> Iterator[Any]:
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


def error_json(e: DecodeError) -> dict:
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
        "error_name": assignor_error_name(i.error_code),
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
        "error_name": assignor_error_name(i.error_code),
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
    sticky = sticky_data(user)
    if info is not None:
        out["streams"] = streams_json(info)
    elif sticky is not None:
        out["sticky"] = _sticky_json(sticky)
    elif isinstance(user, Nested) and user.error is not None:  # (a layer that decoded has its info)
        key = "streams_error" if user.layer in ("SubscriptionInfo", "AssignmentInfo") else "sticky_error"
        out[key] = {"layer": user.layer, **dataclasses.asdict(user.error)}
    return out


def _sticky_json(u) -> dict:
    """A sticky assignor's user data (:mod:`codec.group.sticky`): its layer and version, the generation (null when
    the layout has none), the previous partitions by topic (``sticky``), the protocol that carried another's layout."""
    out: dict = {"layer": u.layer, "version": u.version, "generation": u.generation}
    if u.assignor == "sticky":
        by: dict[str, list[int]] = {}
        for t, ps in u.partitions:
            by.setdefault(t, []).extend(ps)
        out["previous_assignment"] = by
    if u.trailing:
        out["trailing_bytes"] = len(u.trailing)
    if u.carried_by:
        out["carried_by"] = u.carried_by
    return out


def payload_json(value, what: str) -> dict | None:
    """A subscription's (``what`` = ``subscription``) or an assignment's JSON, as a generation's members give it."""
    return _payload_json(value, _subscription_info_json if what == "subscription" else _assignment_info_json)


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
