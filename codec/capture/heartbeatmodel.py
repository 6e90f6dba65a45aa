"""The records of a heartbeat-based group's story (:mod:`codec.capture.heartbeat`): a member's :class:`Step` (an
assignment it was given or reached), a :class:`HeartbeatMember`, a :class:`HeartbeatGroup` with its epochs and
their causes; the field helpers and the protocols' constants they share with the story."""

from __future__ import annotations

import base64
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..causes import Rebalance
from ..causes.detectors import Finding
from ..wire.registry import api_key, error_code
from .events import Event
from .items import Item, items_json, numbered

__all__ = [
    "CONSUMER",
    "DESCRIBE_APIS",
    "TOPOLOGY_UPDATE_APIS",
    "HEARTBEAT_APIS",
    "PROTOCOLS",
    "PARTITIONS",
    "SHARE",
    "STREAMS",
    "TASK_KINDS",
    "TASK_FIELDS",
    "FENCED_MEMBER_EPOCH",
    "UNKNOWN_MEMBER_ID",
    "LEAVE_EPOCHS",
    "MAX_OBSERVATIONS",
    "Holdings",
    "HeartbeatGroup",
    "HeartbeatMember",
    "Step",
    "field_of",
    "kafka_uuid",
    "partition_items_of",
    "shared_by_count",
    "task_items",
    "topic_partition_items",
]

CONSUMER, STREAMS, SHARE = "consumer", "streams", "share"
_GROUPS = {"Consumer": CONSUMER, "Streams": STREAMS, "Share": SHARE}
#: the heartbeat and describe APIs of consumer, streams and share groups by key (the schemas': codec.wire.registry)
HEARTBEAT_APIS = {api_key(f"{g}GroupHeartbeat"): f"{g}GroupHeartbeat" for g in _GROUPS}
DESCRIBE_APIS = {api_key(f"{g}GroupDescribe"): f"{g}GroupDescribe" for g in _GROUPS}
#: each heartbeat or describe API's group protocol
PROTOCOLS = {api_key(f"{g}Group{what}"): p for g, p in _GROUPS.items() for what in ("Heartbeat", "Describe")}
#: StreamsGroupTopologyDescriptionUpdate (API 93, Kafka 4.4, KIP-1331): the member a StreamsGroupHeartbeat v1
#: answer asked (``topologyDescriptionRequired``) pushes its topology's description to the group
TOPOLOGY_UPDATE_APIS = {api_key("StreamsGroupTopologyDescriptionUpdate"): "StreamsGroupTopologyDescriptionUpdate"}
PARTITIONS = "partitions"
TASK_KINDS = ("active tasks", "standby tasks", "warmup tasks")
TASK_FIELDS = (("activeTasks", "active tasks"), ("standbyTasks", "standby tasks"), ("warmupTasks", "warmup tasks"))
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


def field_of(d: Any, *names: str, default: Any = None) -> Any:
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
        x for t in items or () for x in numbered(str(field_of(t, "subtopologyId")), field_of(t, "partitions") or ())
    )


def partition_items_of(items: Any, names: dict[str, str]) -> frozenset[Item]:
    out: set[Item] = set()
    for t in items or ():
        tid = kafka_uuid(field_of(t, "topicId"))
        out.update(numbered(names.get(tid, tid), field_of(t, "partitions") or ()))
    return frozenset(out)


def topic_partition_items(items: Any, topic: str = "topic") -> set[Item]:
    """(topic, partition) items of a list of ``{topic, partitions}`` (a streams endpoint's partitions; a share
    group's state record names its field ``topicName``)."""
    return {x for t in items or () for x in numbered(str(field_of(t, topic)), field_of(t, "partitions") or ())}


def shared_by_count(shared: list[tuple[tuple[str, ...], frozenset[Item]]]) -> list[tuple[int, frozenset[Item]]]:
    """:meth:`HeartbeatGroup.shared`'s partitions grouped by how many members hold them, fewest first."""
    by_count: dict[int, set[Item]] = {}
    for who, items in shared:
        by_count.setdefault(len(who), set()).update(items)
    return [(n, frozenset(by_count[n])) for n in sorted(by_count)]


def topic_ids(items: Any) -> set[str]:
    return {kafka_uuid(field_of(t, "topicId")) for t in items or ()}


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
    members (JoinGroup/SyncGroup), told as generations beside this story. ``epoch_causes``: each epoch the input
    shows (a member epoch given out, a group epoch recorded), with why it came (:mod:`codec.causes`); ``findings``
    the loop and storm detectors' (:mod:`codec.causes.detectors`)."""

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
    #: a streams group's topology description (KIP-1331, Kafka 4.4): the last one a member pushed
    #: (StreamsGroupTopologyDescriptionUpdate, accepted) or a StreamsGroupDescribe v1 response gave: ``source``,
    #: ``topology_epoch``, ``status`` (the Describe's ``topologyDescriptionStatus``), ``description``
    topology_description: dict | None = None
    status: dict[tuple[int, str], None] = field(default_factory=dict)  # distinct, in the order first seen
    classic_generations: list[int] = field(default_factory=list)
    deleted: bool = False
    endpoint_epoch: int | None = None
    endpoints: list[tuple[str, tuple[Item, ...], tuple[Item, ...]]] | None = None
    #: a share group's state: initializing and initialized partitions, deleting topics (items without number)
    state_partitions: dict[str, frozenset[Item]] | None = None
    epoch_causes: list[Rebalance] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

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
            "topology_description": self.topology_description,
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
            "epochs": [
                {"epoch": r.epoch, "previous": r.previous, "ts": r.ts, **r.cause_json()} for r in self.epoch_causes
            ],
            "findings": [f.json() for f in self.findings],
        }
