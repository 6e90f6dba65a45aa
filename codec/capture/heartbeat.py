"""The story of groups that rebalance through heartbeats: KIP-848 consumer groups, KIP-1071 streams groups and
KIP-932 share groups.

A classic group rebalances in generations (JoinGroup, SyncGroup); a heartbeat-based group has none. Each
member sends ConsumerGroupHeartbeat (api key 68), StreamsGroupHeartbeat (88) or ShareGroupHeartbeat (76) with its
member epoch: 0 to join, -1 to leave, -2 for a static member that leaves to come back; the coordinator answers with the
member's epoch and, when it changed, the member's assignment (partitions by topic id; for streams, active,
standby and warm-up tasks by subtopology). A member's request reports what it owns (Kafka's
``topicPartitions``, ``activeTasks``…) when that changed. The story of a member is therefore a list of
:class:`Step`: each assignment it was given, at which member epoch, what it added and revoked against the
one before, and when the member reported owning exactly that (it *reached* it). A share group's members share
partitions (several may hold one) and never revoke: a share member reports nothing it owns, it simply holds what
its last response gave it; :meth:`HeartbeatGroup.shared` says which partitions members share and with whom.

:class:`HeartbeatStory` collects, per group, what the frames say (field names are Kafka's, from the
messages' JSON: ``memberId``, ``memberEpoch``, ``assignment.topicPartitions[topicId, partitions]``,
``activeTasks[subtopologyId, partitions]``, ``standbyTasks``, ``warmupTasks``, …) and settles it at the end:
frames do not come out in time order (see :mod:`codec.capture.story`), so each member's observations are
sorted by time before its steps are computed. Memory: only the observations that change something are
kept (requests that report owned partitions or tasks, responses with an assignment, a new epoch or an
error); plain heartbeats are counted.

:meth:`HeartbeatStory.record` tells the same from the ``__consumer_offsets`` records of those groups
(ConsumerGroup*/StreamsGroup*/ShareGroup*: group epoch, member metadata, target assignment, current member
assignment, tombstones; a share group's state partitions), in record order.

Topic ids: an assignment names topics by UUID. A name is shown when the input gives one (a
ConsumerGroupPartitionMetadata or share group partition or state record, a share group's Describe response, or a
Metadata response in the capture); otherwise the UUID in Kafka's
own short form (``Uuid.toString()``: 22 characters of URL-safe base64), never a made-up name.

What a member holds is items (:mod:`codec.capture.items`): (topic, partition) and (subtopology, partition)
pairs whose names are shared, so a long name over many partitions costs its length once, in memory and in
the output. Records repeat themselves: a group epoch equal to the one before is not listed again, and a
current-assignment record equal to the step before counts as a repeat of that step (``repeats``).

Anomalies are events of kind ``anomaly`` (and listed with the group's events): a member epoch that goes
backwards, an assignment given to a member after it left (without joining again), a client tag key given
twice (the map keeps the last value; the member's request had both), and a group's records after its
tombstone (the group re-created: an event ``recreated``, and the group is not ``deleted`` unless a later
tombstone says so).
"""

from __future__ import annotations

import base64
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, overload

from ..errors import DecodeError
from ..wire.registry import api_key, error_code
from .events import Event
from .items import Item, items_json, numbered

__all__ = [
    "CONSUMER",
    "DESCRIBE_APIS",
    "HEARTBEAT_APIS",
    "SHARE",
    "STREAMS",
    "TASK_KINDS",
    "HeartbeatGroup",
    "HeartbeatMember",
    "HeartbeatStory",
    "Step",
    "kafka_uuid",
    "shared_by_count",
    "task_items",
]

CONSUMER, STREAMS, SHARE = "consumer", "streams", "share"
_GROUPS = {"Consumer": CONSUMER, "Streams": STREAMS, "Share": SHARE}
#: the heartbeat and describe APIs of consumer, streams and share groups by key (the schemas': codec.wire.registry)
HEARTBEAT_APIS = {api_key(f"{g}GroupHeartbeat"): f"{g}GroupHeartbeat" for g in _GROUPS}
DESCRIBE_APIS = {api_key(f"{g}GroupDescribe"): f"{g}GroupDescribe" for g in _GROUPS}
#: each heartbeat or describe API's group protocol
PROTOCOLS = {api_key(f"{g}Group{what}"): p for g, p in _GROUPS.items() for what in ("Heartbeat", "Describe")}
PARTITIONS = "partitions"
TASK_KINDS = ("active tasks", "standby tasks", "warmup tasks")
_TASK_FIELDS = (("activeTasks", "active tasks"), ("standbyTasks", "standby tasks"), ("warmupTasks", "warmup tasks"))
FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID = error_code("FENCED_MEMBER_EPOCH"), error_code("UNKNOWN_MEMBER_ID")
LEAVE_EPOCHS = {-1: "leave", -2: "static leave"}
MAX_OBSERVATIONS = 1 << 16  # per member: the oldest are dropped beyond (and counted)

Holdings = dict[str, frozenset[Item]]


def kafka_uuid(value: Any) -> str:
    """A topic id in Kafka's short form (``Uuid.toString()``: URL-safe base64 of its 16 bytes, no padding),
    from the 22-character form itself, a 36-character UUID string, 16 bytes or a :class:`uuid.UUID`."""
    if isinstance(value, uuid.UUID):
        raw = value.bytes
    elif isinstance(value, (bytes, bytearray)) and len(value) == 16:
        raw = bytes(value)
    elif isinstance(value, str) and len(value) == 36:
        try:
            raw = uuid.UUID(value).bytes
        except ValueError:
            return value
    else:
        return str(value)
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _get(d: Any, *names: str, default: Any = None) -> Any:
    """A field of a decoded message in Kafka's JSON (camelCase); the first of ``names`` present."""
    if not isinstance(d, dict):
        return default
    for n in names:
        if n in d:
            return d[n]
    return default


def task_items(items: Any) -> frozenset[Item]:
    """(subtopology, partition) items of a list of ``{subtopologyId, partitions}``."""
    return frozenset(
        x for t in items or () for x in numbered(str(_get(t, "subtopologyId")), _get(t, "partitions") or ())
    )


def _partition_items(items: Any, names: dict[str, str]) -> frozenset[Item]:
    out: set[Item] = set()
    for t in items or ():
        tid = kafka_uuid(_get(t, "topicId"))
        out.update(numbered(names.get(tid, tid), _get(t, "partitions") or ()))
    return frozenset(out)


def _topic_partition_items(items: Any, topic: str = "topic") -> set[Item]:
    """(topic, partition) items of a list of ``{topic, partitions}`` (a streams endpoint's partitions; a share
    group's state record names its field ``topicName``)."""
    return {x for t in items or () for x in numbered(str(_get(t, topic)), _get(t, "partitions") or ())}


def shared_by_count(shared: list[tuple[tuple[str, ...], frozenset[Item]]]) -> list[tuple[int, frozenset[Item]]]:
    """:meth:`HeartbeatGroup.shared`'s partitions grouped by how many members hold them, fewest first."""
    by_count: dict[int, set[Item]] = {}
    for who, items in shared:
        by_count.setdefault(len(who), set()).update(items)
    return [(n, frozenset(by_count[n])) for n in sorted(by_count)]


def _topic_ids(items: Any) -> set[str]:
    return {kafka_uuid(_get(t, "topicId")) for t in items or ()}


# -- the story's records ------------------------------------------------------------------------------


@dataclass(slots=True)
class Step:
    """An assignment a member was given (``cause`` ``join`` in the answer to its join, else ``assigned``), or
    what it gave up when fenced (``fenced``):
    ``epoch`` the member epoch it came with, ``holdings`` what it holds by kind (``partitions``, or the
    streams kinds of :data:`TASK_KINDS`), ``added``/``revoked`` against the step before, ``reached`` when the
    member reported owning exactly that (None: not seen). From ``__consumer_offsets`` (``cause`` ``current``
    or ``target``): ``where`` the record, ``previous_epoch``, ``state``, ``pending`` (revocations pending) and
    ``repeats`` (records after it that said the same again)."""

    ts: float | None
    epoch: int | None
    holdings: Holdings
    added: dict[str, list[Item]]
    revoked: dict[str, list[Item]]
    cause: str = "assigned"
    reached: float | None = None
    where: str | None = None
    previous_epoch: int | None = None
    state: int | None = None
    pending: dict[str, list[Item]] = field(default_factory=dict)
    repeats: int = 0

    def json(self) -> dict:
        out = {
            "ts": self.ts,
            "epoch": self.epoch,
            "cause": self.cause,
            "assignment": {k: items_json(v) for k, v in self.holdings.items()},
            "added": {k: items_json(v) for k, v in self.added.items()},
            "revoked": {k: items_json(v) for k, v in self.revoked.items()},
            "reached_ts": self.reached,
        }
        if self.where is not None:
            out.update(
                {
                    "where": self.where,
                    "previous_epoch": self.previous_epoch,
                    "state": self.state,
                    "pending_revocation": {k: items_json(v) for k, v in self.pending.items()},
                    "repeats": self.repeats,
                }
            )
        return out


@dataclass(slots=True)
class HeartbeatMember:
    """A member of a heartbeat-based group: identity (the latest non-null value of each field its requests or
    records carried), its steps, heartbeats and errors, and how it ended (``left``: ``leave``, ``static
    leave``, ``fenced`` or ``removed``, None while a member)."""

    member_id: str
    client_id: str | None = None
    instance_id: str | None = None
    rack_id: str | None = None
    client_host: str | None = None
    subscribed_topics: tuple[str, ...] | None = None
    subscribed_regex: str | None = None
    server_assignor: str | None = None
    rebalance_timeout_ms: int | None = None
    process_id: str | None = None
    user_endpoint: str | None = None
    client_tags: dict[str, str] | None = None
    topology_epoch: int | None = None
    classic: bool = False  # its records say it joined with the classic protocol (online migration)
    joined: float | None = None
    join_epoch: int | None = None
    epoch: int | None = None
    heartbeats: int = 0
    errors: Counter = field(default_factory=Counter)
    left: str | None = None
    left_ts: float | None = None
    steps: list[Step] = field(default_factory=list)
    target: Step | None = None
    target_raw: Any = field(default=None, repr=False)
    target_source: str | None = None
    dropped: int = 0
    last_epoch: int | None = field(default=None, repr=False)  # from records, since it last joined
    _obs: list[tuple] = field(default_factory=list, repr=False)

    @property
    def label(self) -> str:
        return f"{self.member_id} ({self.client_id})" if self.client_id else self.member_id

    def holdings(self) -> Holdings | None:
        """What the member holds at the end of the story (its last step), None when no step was seen."""
        return self.steps[-1].holdings if self.steps else None

    def json(self) -> dict:
        from .events import ERROR_NAMES  # (Kafka's error names)

        return {
            "member_id": self.member_id,
            "client_id": self.client_id,
            "instance_id": self.instance_id,
            "rack_id": self.rack_id,
            "client_host": self.client_host,
            "subscribed_topic_names": None if self.subscribed_topics is None else list(self.subscribed_topics),
            "subscribed_topic_regex": self.subscribed_regex,
            "server_assignor": self.server_assignor,
            "rebalance_timeout_ms": self.rebalance_timeout_ms,
            "process_id": self.process_id,
            "user_endpoint": self.user_endpoint,
            "client_tags": self.client_tags,
            "topology_epoch": self.topology_epoch,
            "classic": self.classic,
            "joined_ts": self.joined,
            "join_epoch": self.join_epoch,
            "member_epoch": self.epoch,
            "heartbeats": self.heartbeats,
            "errors": {str(k): v for k, v in sorted(self.errors.items())},
            "error_names": {str(k): ERROR_NAMES.get(k) for k in sorted(self.errors)},
            "left": self.left,
            "left_ts": self.left_ts,
            "steps": [s.json() for s in self.steps],
            "target": None if self.target is None else self.target.json(),
            "target_source": self.target_source,
            "observations_dropped": self.dropped,
        }


@dataclass(slots=True)
class HeartbeatGroup:
    """A heartbeat-based group (``protocol`` ``consumer`` or ``streams``): its members, its events (joins,
    leaves, failed heartbeats, in time order), and, from ``__consumer_offsets``, its group epochs and
    target assignment epoch, and from the last group metadata record the hash of its topics' metadata (4.1+;
    0 when unknown) and, for a streams group, the topology epoch whose topics were validated (-1: none) and the
    assignment configuration last used (4.2+). ``classic_generations``: generations of the same group id formed by classic
    members (JoinGroup/SyncGroup), told as generations beside this story."""

    group: str
    protocol: str
    source: str = "capture"
    members: dict[str, HeartbeatMember] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    first_ts: float | None = None
    last_ts: float | None = None
    group_epochs: list[int] = field(default_factory=list)
    assignment_epoch: int | None = None
    metadata_hash: int | None = None
    validated_topology_epoch: int | None = None
    assignment_configs: dict[str, str] | None = None
    topology: Any = None
    status: dict[tuple[int, str], None] = field(default_factory=dict)  # distinct, in the order first seen
    classic_generations: list[int] = field(default_factory=list)
    deleted: bool = False
    endpoint_epoch: int | None = None
    endpoints: list[tuple[str, tuple[Item, ...], tuple[Item, ...]]] | None = None
    #: a share group's state: initializing and initialized partitions, deleting topics (items without number)
    state_partitions: dict[str, frozenset[Item]] | None = None

    def touch(self, ts: float | None) -> None:
        if ts is not None:
            self.first_ts = ts if self.first_ts is None else min(self.first_ts, ts)
            self.last_ts = ts if self.last_ts is None else max(self.last_ts, ts)

    def member(self, member_id: str) -> HeartbeatMember:
        m = self.members.get(member_id)
        if m is None:
            m = self.members[member_id] = HeartbeatMember(member_id)
        return m

    def epochs(self) -> list[int]:
        """The member epochs the group's members were given, in order."""
        return sorted({s.epoch for m in self.members.values() for s in m.steps if s.epoch is not None and s.epoch > 0})

    def group_epoch(self, epoch: int | None) -> None:
        """A group epoch a record or a Describe response gave: listed unless it equals the one before."""
        if epoch is not None and (not self.group_epochs or self.group_epochs[-1] != epoch):
            self.group_epochs.append(epoch)

    def anomaly(self, ts: float | None, member: str | None, detail: str) -> None:
        self.events.append(Event(ts, "anomaly", member, None, detail))

    def shared(self) -> list[tuple[tuple[str, ...], frozenset[Item]]]:
        """The partitions that two or more of the group's members hold at the end of the story (a share group's
        members share them; in another group it would be a fault), grouped by who holds them: (holders,
        partitions), so that a holder's name is written once per group of partitions, not once per partition."""
        holders: dict[Item, list[str]] = {}
        for m in self.members.values():
            if m.left is None:
                for item in (m.holdings() or {}).get(PARTITIONS, ()):
                    holders.setdefault(item, []).append(m.member_id)
        by_set: dict[tuple[str, ...], set[Item]] = {}
        for item, ms in holders.items():
            if len(ms) > 1:
                by_set.setdefault(tuple(sorted(ms)), set()).add(item)
        return sorted((ms, frozenset(items)) for ms, items in by_set.items())

    def json(self) -> dict:
        """The group in the story's JSON. Shared partitions are grouped by how many members hold them: who
        they are is each member's holdings (listing them per group could cost a name per shared partition)."""
        return {
            "type": "heartbeat-group",
            "group": self.group,
            "protocol": self.protocol,
            "source": self.source,
            "first_ts": self.first_ts,
            "last_ts": self.last_ts,
            "member_epochs": self.epochs(),
            "group_epochs": self.group_epochs,
            "assignment_epoch": self.assignment_epoch,
            "metadata_hash": self.metadata_hash,
            "validated_topology_epoch": self.validated_topology_epoch,
            "assignment_configs": self.assignment_configs,
            "status": [{"code": c, "detail": d} for c, d in self.status],
            "classic_generations": self.classic_generations,
            "deleted": self.deleted,
            "topology": self.topology,
            "endpoint_information_epoch": self.endpoint_epoch,
            "shared_partitions": [
                {"holders": n, "partitions": items_json(items)} for n, items in shared_by_count(self.shared())
            ],
            "state_partitions": None
            if self.state_partitions is None
            else {state: items_json(items) for state, items in self.state_partitions.items()},
            "partitions_by_endpoint": None
            if self.endpoints is None
            else [{"endpoint": e, "active": items_json(a), "standby": items_json(sb)} for e, a, sb in self.endpoints],
            "members": [m.json() for m in self.members.values()],
            "events": [e.json() for e in self.events],
        }


# -- from a capture -----------------------------------------------------------------------------------

_KINDS = {
    (68, "request"): "consumer-group-heartbeat-request",
    (68, "response"): "consumer-group-heartbeat-response",
    (88, "request"): "streams-group-heartbeat-request",
    (88, "response"): "streams-group-heartbeat-response",
    (69, "request"): "consumer-group-describe-request",
    (69, "response"): "consumer-group-describe-response",
    (89, "request"): "streams-group-describe-request",
    (89, "response"): "streams-group-describe-response",
    (76, "request"): "share-group-heartbeat-request",
    (76, "response"): "share-group-heartbeat-response",
    (77, "request"): "share-group-describe-request",
    (77, "response"): "share-group-describe-response",
}


def decode_heartbeat(data: bytes, direction: str, api_key: int, api_version: int) -> dict:
    """A heartbeat or describe frame (api keys 68, 88, 76, 69, 89, 77; without its size) in Kafka's JSON: ``api``,
    ``apiKey``, ``apiVersion``, ``headerVersion``, ``header``, ``body`` (through :func:`codec.kafka4.decode`),
    ``body_offset``. The APIs are flexible from v0: request header v2, response header v1 (wire-facts §7). Raises
    DecodeError."""
    from ..group.jsonview import to_json
    from ..kafka4 import decode
    from ..wire.builder import decode_wire

    schema, hv = ("RequestHeader", 2) if direction == "request" else ("ResponseHeader", 1)
    header, end = decode_wire(schema, hv, data)
    try:
        body = decode(_KINDS[(api_key, direction)], api_version, bytes(data[end:]))
    except DecodeError as e:
        raise e.with_context(offset_base=end)
    return {
        "api": {**HEARTBEAT_APIS, **DESCRIBE_APIS}[api_key],
        "apiKey": api_key,
        "apiVersion": api_version,
        "headerVersion": hv,
        "header": to_json(header, schema, hv, style="kafka"),
        "body": body,
        "body_offset": end,
    }


@dataclass(slots=True)
class PendingHeartbeat:
    """What a heartbeat response needs from its request."""

    api_key: int
    group: str
    member_id: str
    epoch: int
    client_id: str | None
    join: dict | None = None  # a join's body when it named no member: its fields go to the member the response names
    topology: dict | None = None  # a streams join's topology: the group's once the join is accepted


def _assignment(protocol: str, body: dict, names: dict[str, str], *, request: bool) -> Holdings | None:
    """The holdings a heartbeat carries (owned ones in a request, the assignment in a response); None when
    the message says "unchanged" (a null field). A share member's request owns nothing it reports."""
    if protocol != STREAMS:
        if request:
            items = _get(body, "topicPartitions")
        else:
            a = _get(body, "assignment")
            items = None if a is None else _get(a, "topicPartitions", default=())
        return None if items is None else {PARTITIONS: _partition_items(items, names)}
    fields = [(kind, _get(body, name)) for name, kind in _TASK_FIELDS]
    if all(v is None for _, v in fields):
        return None
    return {kind: task_items(v) for kind, v in fields if v is not None}


class HeartbeatStory:
    """Feeds of decoded heartbeat frames (and ``__consumer_offsets`` records) to :class:`HeartbeatGroup`\\ s."""

    def __init__(self) -> None:
        self.groups: dict[str, HeartbeatGroup] = {}
        self.topic_names: dict[str, str] = {}  # Kafka short uuid -> topic name
        self._raw_ids: set[str] = set()  # topic ids seen in assignments (labels are settled at the end)

    def group(self, name: str, protocol: str, source: str = "capture") -> HeartbeatGroup:
        g = self.groups.get(name)
        if g is None:
            g = self.groups[name] = HeartbeatGroup(name, protocol, source)
        return g

    def topic_name(self, topic_id: Any, name: str | None) -> None:
        """A topic's name, from a Metadata response or a partition metadata record."""
        if name:
            self.topic_names[kafka_uuid(topic_id)] = name

    # -- frames -----------------------------------------------------------------------------------------

    def request(self, ts: float, api_key: int, client_id: str | None, body: dict) -> PendingHeartbeat:
        protocol = PROTOCOLS[api_key]
        name = _get(body, "groupId", default="")
        member_id = _get(body, "memberId", default="")
        epoch = _get(body, "memberEpoch", default=0)
        g = self.group(name, protocol)
        g.touch(ts)
        if member_id:
            m = g.member(member_id)
            self._identity(g, m, body, client_id, ts)
            owned = _assignment(protocol, body, {}, request=True)
            if owned is not None:
                self._observe(m, (ts, "owned", epoch, owned, self._raw(protocol, body, request=True)))
            if epoch > 0:
                m.heartbeats += 1
        return PendingHeartbeat(
            api_key,
            name,
            member_id,
            epoch,
            client_id,
            body if not member_id and epoch == 0 else None,
            _get(body, "topology") if protocol == STREAMS else None,
        )

    def response(self, ts: float, req: PendingHeartbeat, body: dict) -> None:
        protocol = PROTOCOLS[req.api_key]
        g = self.group(req.group, protocol)
        g.touch(ts)
        error = _get(body, "errorCode", default=0)
        member_id = _get(body, "memberId") or req.member_id
        if protocol == STREAMS:
            for s in _get(body, "status") or ():
                g.status.setdefault((_get(s, "statusCode"), _get(s, "statusDetail", default="")), None)
            self._endpoints(g, body, error)
        if req.topology is not None and not error:
            g.topology = req.topology
        if not member_id:  # a join refused before the coordinator named the member
            g.events.append(Event(ts, "join", None, error, _get(body, "errorMessage") or ""))
            return
        m = g.member(member_id)
        if req.join is not None:
            self._identity(g, m, req.join, req.client_id, ts)
        if m.client_id is None and req.client_id is not None:
            m.client_id = req.client_id
        given = None if error else _assignment(protocol, body, {}, request=False)
        epoch = _get(body, "memberEpoch")
        if error or given is not None or req.epoch <= 0 or epoch != m.epoch:
            self._observe(
                m,
                (
                    ts,
                    "response",
                    req.epoch,
                    epoch,
                    error,
                    _get(body, "errorMessage"),
                    given,
                    self._raw(protocol, body, request=False),
                ),
            )
        if not error:
            m.epoch = epoch

    @staticmethod
    def _endpoints(g: HeartbeatGroup, body: dict, error: int) -> None:
        """The partitions of every member's endpoint (Interactive Queries) a streams response carries, with
        its endpoint information epoch: the group keeps those of the highest epoch (frames do not come out in
        time order). Null: unchanged for that member; each endpoint's partitions are active and standby."""
        items = _get(body, "partitionsByUserEndpoint")
        epoch = _get(body, "endpointInformationEpoch")
        if error or items is None or epoch is None or (g.endpoint_epoch is not None and epoch < g.endpoint_epoch):
            return
        g.endpoint_epoch = epoch
        g.endpoints = sorted(
            (
                f"{_get(_get(e, 'userEndpoint'), 'host')}:{_get(_get(e, 'userEndpoint'), 'port')}",
                tuple(sorted(_topic_partition_items(_get(e, "activePartitions")))),
                tuple(sorted(_topic_partition_items(_get(e, "standbyPartitions")))),
            )
            for e in items
        )

    def describe(self, ts: float, api_key: int, body: dict) -> None:
        """A ConsumerGroupDescribe, StreamsGroupDescribe or ShareGroupDescribe response: each described group's
        epochs, and each member's identity, current assignment (a ``described`` step when it is news) and target
        assignment (a share group's members have none: they hold their target); the topic names a consumer or
        share group's assignments carry."""
        protocol = PROTOCOLS[api_key]
        api = DESCRIBE_APIS[api_key]
        for gd in _get(body, "groups") or ():
            if _get(gd, "errorCode"):
                continue
            g = self.group(_get(gd, "groupId", default=""), protocol)
            g.touch(ts)
            g.group_epoch(_get(gd, "groupEpoch"))
            g.assignment_epoch = _get(gd, "assignmentEpoch", default=g.assignment_epoch)
            for md in _get(gd, "members") or ():
                m = g.member(_get(md, "memberId", default=""))
                self._identity(g, m, md, _get(md, "clientId"), ts)
                m.client_host = _get(md, "clientHost", default=m.client_host)
                m.topology_epoch = _get(md, "topologyEpoch", default=m.topology_epoch)
                current, target = _get(md, "assignment"), _get(md, "targetAssignment")
                if protocol != STREAMS:
                    for a in (current, target):
                        for t in _get(a, "topicPartitions") or ():
                            self.topic_name(_get(t, "topicId"), _get(t, "topicName"))
                self._observe(
                    m,
                    (
                        ts,
                        "described",
                        _get(md, "memberEpoch"),
                        self._described(protocol, current),
                        self._raw(protocol, current, request=True),
                    ),
                )
                if protocol == SHARE:
                    continue
                m.target = Step(ts, g.assignment_epoch, self._described(protocol, target), {}, {}, cause="target")
                m.target_raw = self._raw(protocol, target, request=True)
                m.target_source = api

    @staticmethod
    def _described(protocol: str, a: Any) -> Holdings:
        if protocol != STREAMS:
            return {PARTITIONS: _partition_items(_get(a, "topicPartitions"), {})}
        return {kind: task_items(_get(a, name)) for name, kind in _TASK_FIELDS}

    def _raw(self, protocol: str, body: dict, *, request: bool) -> Any:
        """Topic ids of a consumer or share heartbeat's partitions (labels wait for names seen later)."""
        if protocol == STREAMS:
            return None
        items = _get(body, "topicPartitions") if request else _get(_get(body, "assignment"), "topicPartitions")
        return (
            None
            if items is None
            else tuple((kafka_uuid(_get(t, "topicId")), tuple(_get(t, "partitions") or ())) for t in items)
        )

    @staticmethod
    def _observe(m: HeartbeatMember, obs: tuple) -> None:
        m._obs.append(obs)
        if len(m._obs) > MAX_OBSERVATIONS:
            del m._obs[0]
            m.dropped += 1

    @staticmethod
    def _identity(
        g: HeartbeatGroup,
        m: HeartbeatMember,
        body: dict,
        client_id: str | None,
        ts: float | None,
        where: str | None = None,
    ) -> None:
        if client_id is not None:
            m.client_id = client_id
        for attr, key in (
            ("instance_id", "instanceId"),
            ("rack_id", "rackId"),
            ("subscribed_regex", "subscribedTopicRegex"),
            ("server_assignor", "serverAssignor"),
            ("process_id", "processId"),
        ):
            v = _get(body, key)
            if v is not None:
                setattr(m, attr, v)
        topics = _get(body, "subscribedTopicNames")
        if topics is not None:
            m.subscribed_topics = tuple(topics)
        timeout = _get(body, "rebalanceTimeoutMs", default=-1)
        if timeout is not None and timeout != -1:
            m.rebalance_timeout_ms = timeout
        ep = _get(body, "userEndpoint")
        if ep is not None:
            m.user_endpoint = f"{_get(ep, 'host')}:{_get(ep, 'port')}"
        tags = _get(body, "clientTags")
        if tags is not None:
            given = {_get(t, "key"): _get(t, "value") for t in tags}
            repeated, m.client_tags = len(given) < len(tags) and given != m.client_tags, given
            if repeated:  # once for each time the tags change, not for each heartbeat that repeats them
                keys = Counter(_get(t, "key") for t in tags)
                twice = sorted({str(k) for k, n in keys.items() if n > 1})
                g.anomaly(
                    ts,
                    m.member_id,
                    f"client tag key {', '.join(map(repr, twice[:5]))} given twice"
                    f"{f' at {where}' if where else ''}; the last value is kept",
                )
        topo = _get(body, "topology")
        if topo is not None:
            m.topology_epoch = _get(topo, "epoch")

    # -- __consumer_offsets records ----------------------------------------------------------------------

    def record(self, where: str, name: str, key: dict, value: dict | None) -> None:
        """One consumer, streams or share group record (``name`` as :data:`codec.kafka4.RECORD_TYPES` names it,
        ``key``/``value`` in Kafka's JSON, ``value`` None for a tombstone), in record order."""
        protocol = STREAMS if name.startswith("Streams") else SHARE if name.startswith("Share") else CONSUMER
        kind = name.removeprefix("ConsumerGroup").removeprefix("StreamsGroup").removeprefix("ShareGroup")
        g = self.group(_get(key, "groupId", default=""), protocol, "__consumer_offsets")
        member_id = _get(key, "memberId")
        m = g.member(member_id) if member_id is not None else None
        if value is None:
            if kind == "Metadata":
                g.deleted = True
                g.events.append(Event(None, "deleted", None, None, f"group metadata tombstone at {where}"))
            elif kind == "MemberMetadata" and m is not None:
                m.left, m.left_ts, m.last_epoch = "removed", None, None
                g.events.append(Event(None, "removed", member_id, None, f"member metadata tombstone at {where}"))
            elif kind == "TargetAssignmentMember" and m is not None:
                m.target = None
            return
        if g.deleted:
            g.deleted = False
            g.events.append(
                Event(
                    None,
                    "recreated",
                    None,
                    None,
                    f"{name} record at {where}, after the group's tombstone: the group was created again",
                )
            )
        if kind == "Metadata":
            g.group_epoch(_get(value, "epoch"))
            g.metadata_hash = _get(value, "metadataHash")
            if protocol == STREAMS:
                g.validated_topology_epoch = _get(value, "validatedTopologyEpoch")
                configs = _get(value, "lastAssignmentConfigs")
                g.assignment_configs = {_get(c, "key"): _get(c, "value") for c in configs} if configs else None
        elif kind == "PartitionMetadata":
            for t in _get(value, "topics") or ():
                self.topic_name(_get(t, "topicId"), _get(t, "topicName"))
        elif kind == "StatePartitionMetadata":  # the share-group state of the group's partitions
            g.state_partitions = {}
            for state, field_name in (
                ("initializing", "initializingTopics"),
                ("initialized", "initializedTopics"),
                ("deleting", "deletingTopics"),
            ):
                items = _get(value, field_name) or ()
                for t in items:
                    self.topic_name(_get(t, "topicId"), _get(t, "topicName"))
                g.state_partitions[state] = frozenset(
                    _topic_partition_items(items, "topicName")
                    if state != "deleting"
                    else ((str(_get(t, "topicName")), None) for t in items)
                )
        elif kind == "TargetAssignmentMetadata":
            g.assignment_epoch = _get(value, "assignmentEpoch")
            for other in g.members.values():
                if other.target is not None and other.target.epoch is None:
                    other.target.epoch = g.assignment_epoch
        elif kind == "Topology":
            g.topology = value
        elif m is not None and kind == "MemberMetadata":
            if m.left is not None or (not m.steps and m.target is None and m.client_id is None):
                g.events.append(Event(None, "join", member_id, None, f"member metadata at {where}"))
            m.left = None
            self._identity(g, m, value, _get(value, "clientId"), None, where)
            m.client_host = _get(value, "clientHost", default=m.client_host)
            m.topology_epoch = _get(value, "topologyEpoch", default=m.topology_epoch)
            m.classic = _get(value, "classicMemberMetadata") is not None
        elif m is not None and kind == "TargetAssignmentMember":
            new = self._record_holdings(protocol, value, "")
            self._after_leave(g, m, new, f"target assignment record at {where}")
            before = m.target.holdings if m.target is not None else {}
            added, revoked = _diff(before, new)
            m.target = Step(None, None, new, added, revoked, cause="target", where=where)
            m.target_source, m.target_raw = "__consumer_offsets", None
        elif m is not None and kind == "CurrentMemberAssignment":
            self._current(g, m, protocol, where, value)

    def _current(self, g: HeartbeatGroup, m: HeartbeatMember, protocol: str, where: str, value: dict) -> None:
        """A current member assignment record: a step, or a repeat of the step before when it says the same."""
        new = self._record_holdings(protocol, value, "")
        pending = {k: sorted(v) for k, v in self._record_holdings(protocol, value, "PendingRevocation").items() if v}
        epoch, previous, state = _get(value, "memberEpoch"), _get(value, "previousMemberEpoch"), _get(value, "state")
        last = m.steps[-1] if m.steps else None
        if (
            last is not None
            and last.where is not None
            and (last.epoch, last.previous_epoch, last.state) == (epoch, previous, state)
            and _same(last.holdings, new)
            and last.pending == pending
        ):
            last.repeats += 1
            return
        self._after_leave(g, m, new, f"current assignment record at {where}")
        self._epoch_order(g, m, epoch, None, f"current assignment record at {where}")
        added, revoked = _diff(last.holdings if last is not None else {}, new)
        m.epoch = epoch
        m.steps.append(
            Step(
                None,
                epoch,
                new,
                added,
                revoked,
                cause="current",
                where=where,
                previous_epoch=previous,
                state=state,
                pending=pending,
            )
        )

    @staticmethod
    def _after_leave(
        g: HeartbeatGroup, m: HeartbeatMember, given: Holdings | None, what: str, ts: float | None = None
    ) -> None:
        """An anomaly when something is given to a member that left (and did not join again)."""
        if m.left is not None and given and any(given.values()):
            n = sum(len(v) for v in given.values())
            g.anomaly(ts, m.member_id, f"{what} gives {n:,} partitions or tasks to the member after it left ({m.left})")

    @staticmethod
    def _epoch_order(g: HeartbeatGroup, m: HeartbeatMember, epoch: int | None, ts: float | None, what: str) -> None:
        """An anomaly when a member's epoch goes backwards (member epochs only grow while it is a member)."""
        if epoch is not None and epoch > 0:
            if m.last_epoch is not None and epoch < m.last_epoch:
                g.anomaly(ts, m.member_id, f"member epoch went back from {m.last_epoch} to {epoch} ({what})")
            m.last_epoch = epoch

    def _record_holdings(self, protocol: str, value: dict, suffix: str) -> Holdings:
        """What a target or current assignment record holds (``suffix`` ``PendingRevocation``: what it is to
        give up). Partitions are labelled with topic ids here and named at the end (:meth:`finish`)."""
        if protocol != STREAMS:
            field_name = "partitionsPendingRevocation" if suffix else None
            items = _get(value, field_name) if field_name else _get(value, "assignedPartitions", "topicPartitions")
            return {PARTITIONS: _partition_items(items, {})}
        return {kind: task_items(_get(value, f"{name}{suffix}")) for name, kind in _TASK_FIELDS}

    # -- settling ---------------------------------------------------------------------------------------

    def finish(self, classic: dict[str, list[int]] | None = None) -> list[HeartbeatGroup]:
        """Every group, its members' steps computed from their observations in time order; ``classic``:
        group -> generations formed by classic members of the same group id."""
        out = []
        for name in sorted(self.groups):
            g = self.groups[name]
            for m in g.members.values():
                if m._obs:
                    self._replay(g, m)
                if m.target is not None and m.target_raw is not None:
                    m.target.holdings = self._items(m.target_raw, m.target.holdings)
                if self.topic_names:
                    for step in [*m.steps, *([m.target] if m.target is not None else [])]:
                        self._name_topics(step)
            g.members = dict(sorted(g.members.items(), key=lambda kv: (kv[1].label, kv[0])))
            g.events.sort(key=lambda e: (e.ts is None, e.ts or 0.0))
            g.classic_generations = sorted((classic or {}).get(name, ()))
            out.append(g)
        return out

    def _name(self, item: Item) -> Item:
        topic, p = item
        return self.topic_names.get(topic, topic), p

    def _name_topics(self, step: Step) -> None:
        """Partitions with topic ids replaced by the names the input gave (records seen after them)."""
        if PARTITIONS in step.holdings:
            step.holdings = {**step.holdings, PARTITIONS: frozenset(self._name(x) for x in step.holdings[PARTITIONS])}
        for d in (step.added, step.revoked, step.pending):
            if PARTITIONS in d:
                d[PARTITIONS] = sorted(self._name(x) for x in d[PARTITIONS])

    @overload
    def _items(self, raw: Any, holdings: Holdings) -> Holdings: ...

    @overload
    def _items(self, raw: Any, holdings: Holdings | None) -> Holdings | None: ...

    def _items(self, raw: Any, holdings: Holdings | None) -> Holdings | None:
        """Consumer partitions named with the topic names known at the end (else the short uuid)."""
        if raw is None:
            return holdings
        return {PARTITIONS: frozenset(x for t, ps in raw for x in numbered(self.topic_names.get(t, t), ps))}

    def _replay(self, g: HeartbeatGroup, m: HeartbeatMember) -> None:
        obs = sorted(m._obs, key=lambda o: o[0])
        m._obs = []
        current: Holdings | None = None
        owned: Holdings = {}
        epoch: int | None = None
        for o in obs:
            if o[1] == "described":  # what a Describe response says the member holds, when it is news
                ts, _, d_epoch, held, raw = o
                held = self._items(raw, held)
                added, revoked = _diff(current or {}, held)
                if not m.steps or added or revoked or d_epoch != epoch:
                    m.steps.append(Step(ts, d_epoch, held, added, revoked, cause="described"))
                current, epoch = held, d_epoch
                continue
            if o[1] == "owned":  # null fields are unchanged: what the member owns is the last value of each
                owned = {**owned, **self._items(o[4], o[3])}
                last = m.steps[-1] if m.steps else None
                if last is not None and last.reached is None and _same(owned, last.holdings):
                    last.reached = o[0]
                continue
            ts, _, req_epoch, resp_epoch, error, message, given, raw = o
            given = self._items(raw, given)
            if error:
                m.errors[error] += 1
                kind = "join" if req_epoch == 0 else LEAVE_EPOCHS.get(req_epoch, "heartbeat")
                g.events.append(Event(ts, kind, m.member_id, error, message or ""))
                if error in (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID) and req_epoch > 0:
                    g.events.append(
                        Event(
                            ts,
                            "fenced",
                            m.member_id,
                            None,
                            "the member must give up everything it holds and join again",
                        )
                    )
                    if current:
                        m.steps.append(
                            Step(
                                ts,
                                0,
                                {k: frozenset() for k in current},
                                {},
                                _diff(current, {k: frozenset() for k in current})[1],
                                cause="fenced",
                            )
                        )
                        current = {k: frozenset() for k in current}
                    m.left, m.left_ts, epoch = "fenced", ts, None
                continue
            if req_epoch in LEAVE_EPOCHS:
                m.left, m.left_ts = LEAVE_EPOCHS[req_epoch], ts
                g.events.append(Event(ts, LEAVE_EPOCHS[req_epoch], m.member_id, 0, f"member epoch {req_epoch}"))
                continue
            if req_epoch > 0:  # a heartbeat of a member that did not join (again) here
                self._after_leave(g, m, given, "a heartbeat response", ts)
                if epoch is not None and resp_epoch is not None and 0 < resp_epoch < epoch:
                    g.anomaly(ts, m.member_id, f"member epoch went back from {epoch} to {resp_epoch}")
            if req_epoch == 0:
                rejoin = m.joined is not None
                m.joined = m.joined if rejoin else ts
                m.join_epoch = m.join_epoch if rejoin else resp_epoch
                m.left = m.left_ts = None
                g.events.append(
                    Event(
                        ts, "join", m.member_id, 0, f"{'rejoined' if rejoin else 'joined'} at member epoch {resp_epoch}"
                    )
                )
            if given is None and resp_epoch == epoch:
                continue
            new = {**(current or {}), **(given or {})}  # null fields are unchanged
            added, revoked = _diff(current or {}, new)
            if added or revoked or resp_epoch != epoch or not m.steps:
                step = Step(ts, resp_epoch, new, added, revoked, cause="join" if req_epoch == 0 else "assigned")
                if owned and _same(owned, new):
                    step.reached = ts
                m.steps.append(step)
            current, epoch = new, resp_epoch
        m.epoch = epoch if m.left is None else m.epoch


def _same(a: Holdings, b: Holdings) -> bool:
    kinds = set(a) | set(b)
    return all(a.get(k, frozenset()) == b.get(k, frozenset()) for k in kinds)


def _diff(before: Holdings, after: Holdings) -> tuple[dict[str, list[Item]], dict[str, list[Item]]]:
    added: dict[str, list[Item]] = {}
    revoked: dict[str, list[Item]] = {}
    for k in sorted(set(before) | set(after)):
        a, b = before.get(k, frozenset()), after.get(k, frozenset())
        if b - a:
            added[k] = sorted(b - a)
        if a - b:
            revoked[k] = sorted(a - b)
    return added, revoked
