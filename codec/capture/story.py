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

The records it gives out (:class:`GroupFrame`, :class:`Generation`, :class:`CaptureSummary` ...) are in
:mod:`codec.capture.storymodel`, the settling of a group's generations in :mod:`codec.capture.storygroups`; this
module re-exports them.

SyncGroup before v5 and JoinGroup responses before v7 do not name the group's protocol: it is carried
over from the JoinGroup response of the same group and generation (and from the JoinGroup request's
ProtocolType), so that a ``stream`` member's UserData is decoded as Kafka Streams metadata.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ..errors import DecodeError
from ..group.frames import decode_request_frame, decode_response_frame, refused_error_code
from ..group.nested import nest_body
from ..group.sticky import COOPERATIVE_STICKY_LAYER, STICKY_LAYER
from .bytestream import ByteStream
from .events import ERROR_NAMES, Event, error_name
from .framing import Unframed
from .metadata import METADATA, topic_names
from .heartbeat import (
    DESCRIBE_APIS,
    HEARTBEAT_APIS,
    TOPOLOGY_UPDATE_APIS,
    HeartbeatGroup,
    HeartbeatStory,
    PendingHeartbeat,
    decode_heartbeat,
)
from .kafka import DEFAULT_PORTS, KafkaFrame
from .offsets import BadRecord, ControlMarker, OffsetsRecord, member_payloads
from .scan import BadFile, BadPacket, kafka_frames
from .tcp import DEFAULT_MAX_BUFFER, DEFAULT_MAX_WAIT, GIVEN_UP_BYTES, SNAP_LENGTH, Gap
from ..wire.builder import decode_wire
from ..causes import RecordCauses, Rebalance
from .storycauses import StoryCauses, detect
from .storyadmin import ADMIN_APIS, AdminStory, CommittedOffsets, DescribedGroup
from .storygroups import GroupGenerations
from .storymodel import (
    MetadataFrame,
    API_NAMES,
    GROUP_APIS,
    CaptureSummary,
    Changes,
    Generation,
    GroupFrame,
    Member,
    Problem,
    assignment_layers,
    carried,
    holdings,
    nested_errors,
    partition_items,
    subscription_layers,
)

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

#: the heartbeat-based groups' APIs the story reads (codec.capture.heartbeat)
_HEARTBEAT_FAMILY = frozenset({*HEARTBEAT_APIS, *DESCRIBE_APIS, *TOPOLOGY_UPDATE_APIS})
MAX_PENDING = 65536  # requests waiting for their response, over all connections
#: What ``offsets_story`` tells for an input of N bytes: TOLD_FLOOR + N // BYTES_PER_TOLD members' worth of group
#: records (a heartbeat-based group's record is one, a GroupMetadataValue one and one per member), so that a
#: segment of tiny compressed records cannot ask for a story many times its size (codec.budget).
TOLD_FLOOR, BYTES_PER_TOLD = 1000, 16
#: a sticky assignor's user data Kafka's reader cannot read is a finding of its own (Kafka ignores it: the member's
#: previous partitions are lost to the leader), not a layer this codec failed on
STICKY_LAYERS = (STICKY_LAYER, COOPERATIVE_STICKY_LAYER)

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
        self.groups: dict[str, GroupGenerations] = {}
        self.requests: OrderedDict[tuple[int, int, int], _Request] = OrderedDict()
        # connection -> (protocol type, protocol names) of its last JoinGroup request
        self.offered: OrderedDict[int, tuple[str, tuple[str, ...]]] = OrderedDict()
        self.hb = HeartbeatStory()
        self.causes = StoryCauses()
        self.admin = AdminStory(summary.problem, self.hb.topic_names)

    def _group(self, name: str) -> GroupGenerations:
        g = self.groups.get(name)
        if g is None:
            g = self.groups[name] = GroupGenerations(name, "capture")
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
            if event.api_key in _HEARTBEAT_FAMILY and event.data is not None:
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
                elif event.api_key in ADMIN_APIS and event.data is not None:
                    self.admin.feed(event)  # (told at the end: DescribeGroups' members, OffsetFetch's offsets)
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

    def finish(self) -> Iterator[Generation | HeartbeatGroup | DescribedGroup | CommittedOffsets]:
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
            if f.api_key in TOPOLOGY_UPDATE_APIS and isinstance(req.body, dict):  # (its event says so)
                self.hb.topology_update(f.ts, req.body, None)
        self.requests.clear()
        for name in sorted(self.groups):
            if self.only is None or name == self.only:
                gens = self.groups[name].finish()
                self.causes.settle_classic(name, gens)
                for g in gens:
                    s.generations += g.generation is not None
                    yield g
        classic = {name: [k for k in g.generations] for name, g in self.groups.items()}
        for hg in self.hb.finish(classic):
            if self.only is None or hg.group == self.only:
                s.heartbeat_groups += 1
                self.causes.settle_epochs(hg)
                yield hg
        for told in self.admin.told:
            if self.only is None or told.group == self.only:
                yield told
        self.admin.told.clear()

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
        if e.api_key in TOPOLOGY_UPDATE_APIS:  # (Kafka 4.4) a streams member's topology description, and the answer
            if e.direction == "request":
                gf.group, gf.member = body.get("groupId"), body.get("memberId") or None
                self._remember(_Request(gf, body))
            else:
                gf.error_code = body.get("errorCode")
                if req is not None and isinstance(req.body, dict):
                    self.hb.topology_update(e.ts, req.body, body)
        elif e.api_key in DESCRIBE_APIS:
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
            client_id = gf.message["header"].get("clientId")
            pending = self.hb.request(e.ts, e.api_key, client_id, body)
            self.causes.hb_request(e.ts, (gf.conn, gf.correlation_id), e.api_key, client_id, body, gf.broker)
            self._remember(_Request(gf, pending))
        else:
            gf.error_code = body.get("errorCode")
            gf.member = body.get("memberId") or gf.member
            if req is not None and isinstance(req.body, PendingHeartbeat):
                self.hb.response(e.ts, req.body, body)
                key = (gf.conn, gf.correlation_id)
                self.causes.hb_response(e.ts, key, e.api_key, req.body.group, req.body.member_id or None, body)
        return gf

    def _frame(self, e: KafkaFrame) -> GroupFrame:
        assert e.data is not None and e.api_key is not None and e.api_version is not None  # (as feed() checked)
        gf = _group_frame(e)
        if e.direction == "request":
            self._request(gf, e.data)
        else:
            self._response(gf, e.data)
        if gf.frame is not None:
            for value in carried(gf.frame.body):
                for bad in nested_errors(value):
                    assert bad.error is not None  # (what nested_errors finds)
                    kind = "unreadable sticky user data" if bad.layer in STICKY_LAYERS else "undecodable layers"
                    self.summary.problem(kind, self._where(gf), f"{bad.layer} at {bad.error.at}", bad.error.message)
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
        self.causes.coordinator(gf.ts, body.group_id, gf.broker)
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
            self.causes.left(gf.ts, body.group_id, members, gf.conn)
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

    def _protocol(self, group: GroupGenerations, gen_id: int | None, conn: int) -> tuple[str | None, str | None]:
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

    def _leader_assignments(self, group: GroupGenerations, body, ts: float) -> None:
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
            if gf.api_key == 14 and group is not None:
                code = refused_error_code(data, gf.api_key, gf.api_version, e)
                self.causes.sync_unread(gf.ts, group.name, gf.generation, gf.member, code)
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
        elif gf.api_key == 12:
            self.causes.heartbeat(gf.ts, group.name, gf.member, gf.error_code)
        if gf.api_key == 12 and gf.error_code:
            gen = group.generations.get(gf.generation) if gf.generation is not None else None
            if gen is not None and gf.member is not None:  # (a HeartbeatRequest names its member)
                gen.member(gf.member).heartbeat_errors[gf.error_code] += 1
            group.event(Event(gf.ts, "heartbeat", gf.member, gf.error_code), gf.generation)
        elif gf.api_key == 13 and req.event is not None:
            req.event.error_code = gf.error_code
            bad = [f"{m.member_id}: {error_name(m.error_code)}" for m in frame.body.members or () if m.error_code]
            if bad:
                req.event.detail += f"; per member: {', '.join(bad)}"

    def _joined(self, group: GroupGenerations, gf: GroupFrame, request: _Request, resp) -> None:
        req = request.body
        gf.member = resp.member_id or gf.member
        self.causes.joined(request.frame.ts, group.name, req, resp, request.client_id, self._where(gf), gf.conn)
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

    def _synced(self, group: GroupGenerations, gf: GroupFrame, resp) -> None:
        self.causes.synced(gf.ts, group.name, gf.generation, gf.member, gf.error_code)
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
    metadata: bool = False,
) -> Iterator[GroupFrame | MetadataFrame | Generation | HeartbeatGroup | DescribedGroup | CommittedOffsets]:
    """The group frames and generations of a pcap/pcapng file (see the module docstring); counts and
    problems go to ``summary``. ``group`` keeps only that group's frames and generations; ``metadata`` yields
    each Metadata response that reads too (a :class:`MetadataFrame`: the topics' partition counts, which group
    messages do not carry).
    ``max_hole_bytes``/``max_hole_seconds``: how long TCP reassembly holds a hole open for a late
    segment (see :mod:`codec.capture.scan`); frames lost to holes given up are counted in the summary."""
    summary = summary if summary is not None else CaptureSummary()
    story = _Story(summary, group)
    for event in kafka_frames(
        source,
        ports=set(ports),
        api_keys={*GROUP_APIS, *_HEARTBEAT_FAMILY, METADATA, *ADMIN_APIS},
        stats=summary.stats,
        max_buffer=max_hole_bytes,
        max_wait=max_hole_seconds,
    ):
        gf = story.feed(event)
        if gf is not None:
            yield gf
        elif metadata and isinstance(event, KafkaFrame):
            mf = _metadata_frame(event)
            if mf is not None:
                yield mf
    yield from story.finish()


def _metadata_frame(e: KafkaFrame) -> MetadataFrame | None:
    """A Metadata response's frame, when its header reads (the story counts and reports the others)."""
    if e.api_key != METADATA or e.direction != "response" or e.data is None or e.api_version is None:
        return None
    try:
        _, end = decode_wire("ResponseHeader", 1 if e.api_version >= 9 else 0, e.data)
    except DecodeError:
        return None
    gf = _group_frame(e)
    return MetadataFrame(gf.ts, gf.conn, gf.client, gf.broker, e.api_version, e.correlation_id, e.data, end)


# -- from __consumer_offsets --------------------------------------------------------------------------


def offsets_story(
    records: Iterable[OffsetsRecord | ControlMarker | BadRecord],
    *,
    group: str | None = None,
    summary: CaptureSummary | None = None,
    max_told: int | Callable[[], int] | None = None,
) -> Iterator[Generation | HeartbeatGroup]:
    """The generations that ``__consumer_offsets`` group metadata records describe, in record order.

    Each ``GroupMetadataValue`` is a snapshot of a group at a generation (Kafka writes one when a
    generation forms and again when its assignment is stored); snapshots of the same generation merge,
    the later one winning. A tombstone (the group deleted) is an event. Offset commits are counted. A bad
    record is a problem of kind ``bad records``, or ``bad file`` when the input could not be read past it.
    ``max_told``: the most members' worth of group records told (see :data:`TOLD_FLOOR`; a function of the bytes
    read so far, for a stream whose size is not known); the records past it
    are counted as the problem ``records not told`` (the output budget), never dropped without a word."""
    summary = summary if summary is not None else CaptureSummary()
    groups: dict[str, GroupGenerations] = {}
    hb = HeartbeatStory()
    causes = RecordCauses()
    rebalances: dict[tuple[str, str], list[Rebalance]] = {}  # (group, protocol) -> its rebalances, in order
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
                for r in causes.record(rec):
                    rebalances.setdefault((r.group, r.protocol), []).append(r)
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
            g = groups[name] = GroupGenerations(name, "__consumer_offsets")
        if rec.tombstone:
            g.event(Event(None, "deleted", None, None, f"tombstone at {rec.where}"))
        else:
            _snapshot_record(g, rec)
        for r in causes.record(rec):
            rebalances.setdefault((name, "classic"), []).append(r)
    for name in sorted(groups):
        group_rebalances = rebalances.get((name, "classic"), [])
        findings: dict[int, list] = {}
        for f in detect(group_rebalances):
            findings.setdefault(f.number, []).append(f)
        told_causes = {r.generation: r for r in group_rebalances}
        for gen in groups[name].finish():
            summary.generations += gen.generation is not None
            if gen.generation is not None:
                gen.rebalance = told_causes.get(gen.generation)
                gen.findings = findings.get(gen.generation, [])
            yield gen
    classic = {name: list(g.generations) for name, g in groups.items()}
    for hg in hb.finish(classic):
        summary.heartbeat_groups += 1
        hg.epoch_causes = rebalances.get((hg.group, hg.protocol), [])
        hg.findings = detect(hg.epoch_causes)
        yield hg


def _tell(
    summary: CaptureSummary, rec: OffsetsRecord, cost: int, told: int, max_told: int | Callable[[], int] | None
) -> bool:
    """Whether the story has room for a record (``cost`` members' worth); a problem when it has not. ``max_told``
    may be a function: the room of a stream, which grows with the bytes read so far."""
    if callable(max_told):
        max_told = max_told()
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


def _snapshot_record(g: GroupGenerations, rec: OffsetsRecord) -> None:
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
