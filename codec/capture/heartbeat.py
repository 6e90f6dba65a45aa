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

The records it gives out (:class:`Step`, :class:`HeartbeatMember`, :class:`HeartbeatGroup`) and the helpers they
share are in :mod:`codec.capture.heartbeatmodel`; this module re-exports them.

Anomalies are events of kind ``anomaly`` (and listed with the group's events): a member epoch that goes
backwards, an assignment given to a member after it left (without joining again), a client tag key given
twice (the map keeps the last value; the member's request had both), and a group's records after its
tombstone (the group re-created: an event ``recreated``, and the group is not ``deleted`` unless a later
tombstone says so).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, overload

from ..errors import DecodeError
from .events import Event
from .items import Item, numbered
from .heartbeatmodel import (
    CONSUMER,
    DESCRIBE_APIS,
    FENCED_MEMBER_EPOCH,
    HEARTBEAT_APIS,
    LEAVE_EPOCHS,
    MAX_OBSERVATIONS,
    PARTITIONS,
    PROTOCOLS,
    SHARE,
    STREAMS,
    TASK_FIELDS,
    TASK_KINDS,
    TOPOLOGY_UPDATE_APIS,
    UNKNOWN_MEMBER_ID,
    HeartbeatGroup,
    HeartbeatMember,
    Holdings,
    Step,
    field_of,
    kafka_uuid,
    partition_items_of,
    shared_by_count,
    task_items,
    topic_partition_items,
)

__all__ = [
    "CONSUMER",
    "DESCRIBE_APIS",
    "HEARTBEAT_APIS",
    "SHARE",
    "STREAMS",
    "TASK_KINDS",
    "TOPOLOGY_UPDATE_APIS",
    "HeartbeatGroup",
    "HeartbeatMember",
    "HeartbeatStory",
    "Step",
    "kafka_uuid",
    "shared_by_count",
    "task_items",
]
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
    **{
        (k, d): f"streams-group-topology-description-update-{d}"
        for k in TOPOLOGY_UPDATE_APIS
        for d in ("request", "response")
    },
}


def decode_heartbeat(data: bytes, direction: str, api_key: int, api_version: int) -> dict:
    """A heartbeat or describe frame (api keys 68, 88, 76, 69, 89, 77), or a StreamsGroupTopologyDescriptionUpdate
    (93), without its size, in Kafka's JSON: ``api``,
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
        "api": {**HEARTBEAT_APIS, **DESCRIBE_APIS, **TOPOLOGY_UPDATE_APIS}[api_key],
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
            items = field_of(body, "topicPartitions")
        else:
            a = field_of(body, "assignment")
            items = None if a is None else field_of(a, "topicPartitions", default=())
        return None if items is None else {PARTITIONS: partition_items_of(items, names)}
    fields = [(kind, field_of(body, name)) for name, kind in TASK_FIELDS]
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
        name = field_of(body, "groupId", default="")
        member_id = field_of(body, "memberId", default="")
        epoch = field_of(body, "memberEpoch", default=0)
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
            field_of(body, "topology") if protocol == STREAMS else None,
        )

    def response(self, ts: float, req: PendingHeartbeat, body: dict) -> None:
        protocol = PROTOCOLS[req.api_key]
        g = self.group(req.group, protocol)
        g.touch(ts)
        error = field_of(body, "errorCode", default=0)
        member_id = field_of(body, "memberId") or req.member_id
        if protocol == STREAMS:
            for s in field_of(body, "status") or ():
                g.status.setdefault((field_of(s, "statusCode"), field_of(s, "statusDetail", default="")), None)
            self._endpoints(g, body, error)
        if req.topology is not None and not error:
            g.topology = req.topology
        if not member_id:  # a join refused before the coordinator named the member
            g.events.append(Event(ts, "join", None, error, field_of(body, "errorMessage") or ""))
            return
        m = g.member(member_id)
        if req.join is not None:
            self._identity(g, m, req.join, req.client_id, ts)
        if m.client_id is None and req.client_id is not None:
            m.client_id = req.client_id
        given = None if error else _assignment(protocol, body, {}, request=False)
        epoch = field_of(body, "memberEpoch")
        if error or given is not None or req.epoch <= 0 or epoch != m.epoch:
            self._observe(
                m,
                (
                    ts,
                    "response",
                    req.epoch,
                    epoch,
                    error,
                    field_of(body, "errorMessage"),
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
        items = field_of(body, "partitionsByUserEndpoint")
        epoch = field_of(body, "endpointInformationEpoch")
        if error or items is None or epoch is None or (g.endpoint_epoch is not None and epoch < g.endpoint_epoch):
            return
        g.endpoint_epoch = epoch
        g.endpoints = sorted(
            (
                f"{field_of(field_of(e, 'userEndpoint'), 'host')}:{field_of(field_of(e, 'userEndpoint'), 'port')}",
                tuple(sorted(topic_partition_items(field_of(e, "activePartitions")))),
                tuple(sorted(topic_partition_items(field_of(e, "standbyPartitions")))),
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
        for gd in field_of(body, "groups") or ():
            if field_of(gd, "errorCode"):
                continue
            g = self.group(field_of(gd, "groupId", default=""), protocol)
            g.touch(ts)
            g.group_epoch(field_of(gd, "groupEpoch"))
            g.assignment_epoch = field_of(gd, "assignmentEpoch", default=g.assignment_epoch)
            status = field_of(gd, "topologyDescriptionStatus") if protocol == STREAMS else None
            if status:  # StreamsGroupDescribe v1 (Kafka 4.4): 0 not requested, 1 not stored, 2 error, 3 available
                topology = field_of(gd, "topology")
                g.topology_description = {
                    "source": api,
                    "ts": ts,
                    "topology_epoch": field_of(topology, "epoch") if topology is not None else None,
                    "status": status,
                    "assignor": field_of(gd, "assignorName"),
                    "description": field_of(gd, "topologyDescription"),
                }
            for md in field_of(gd, "members") or ():
                m = g.member(field_of(md, "memberId", default=""))
                self._identity(g, m, md, field_of(md, "clientId"), ts)
                m.client_host = field_of(md, "clientHost", default=m.client_host)
                m.topology_epoch = field_of(md, "topologyEpoch", default=m.topology_epoch)
                current, target = field_of(md, "assignment"), field_of(md, "targetAssignment")
                if protocol != STREAMS:
                    for a in (current, target):
                        for t in field_of(a, "topicPartitions") or ():
                            self.topic_name(field_of(t, "topicId"), field_of(t, "topicName"))
                self._observe(
                    m,
                    (
                        ts,
                        "described",
                        field_of(md, "memberEpoch"),
                        self._described(protocol, current),
                        self._raw(protocol, current, request=True),
                    ),
                )
                if protocol == SHARE:
                    continue
                m.target = Step(ts, g.assignment_epoch, self._described(protocol, target), {}, {}, cause="target")
                m.target_raw = self._raw(protocol, target, request=True)
                m.target_source = api

    def topology_update(self, ts: float, request: dict, response: dict | None) -> None:
        """A StreamsGroupTopologyDescriptionUpdate exchange (API 93; ``response`` None while unanswered): a
        ``topology description`` event of the member that pushed it, with the subtopologies and global stores it
        described and the coordinator's answer; an accepted one is the group's topology description."""
        g = self.group(field_of(request, "groupId", default=""), STREAMS)
        g.touch(ts)
        member = field_of(request, "memberId") or None
        epoch = field_of(request, "topologyEpoch")
        td = field_of(request, "topologyDescription")
        subs, stores = len(field_of(td, "subtopologies") or ()), len(field_of(td, "globalStores") or ())
        detail = f"topology epoch {epoch}: {subs} subtopolog{'y' if subs == 1 else 'ies'}, {stores} global store" + (
            "" if stores == 1 else "s"
        )
        code = None if response is None else field_of(response, "errorCode", default=0)
        if response is None:
            detail += "; unanswered"
        elif field_of(response, "errorMessage"):
            detail += f"; {field_of(response, 'errorMessage')}"
        g.events.append(Event(ts, "topology description", member, code or None, detail))
        if code == 0:
            g.topology_description = {
                "source": TOPOLOGY_UPDATE_APIS[next(iter(TOPOLOGY_UPDATE_APIS))],
                "ts": ts,
                "topology_epoch": epoch,
                "status": None,
                "assignor": None,
                "description": td,
            }

    @staticmethod
    def _described(protocol: str, a: Any) -> Holdings:
        if protocol != STREAMS:
            return {PARTITIONS: partition_items_of(field_of(a, "topicPartitions"), {})}
        return {kind: task_items(field_of(a, name)) for name, kind in TASK_FIELDS}

    def _raw(self, protocol: str, body: dict, *, request: bool) -> Any:
        """Topic ids of a consumer or share heartbeat's partitions (labels wait for names seen later)."""
        if protocol == STREAMS:
            return None
        items = (
            field_of(body, "topicPartitions") if request else field_of(field_of(body, "assignment"), "topicPartitions")
        )
        return (
            None
            if items is None
            else tuple((kafka_uuid(field_of(t, "topicId")), tuple(field_of(t, "partitions") or ())) for t in items)
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
            v = field_of(body, key)
            if v is not None:
                setattr(m, attr, v)
        topics = field_of(body, "subscribedTopicNames")
        if topics is not None:
            m.subscribed_topics = tuple(topics)
        timeout = field_of(body, "rebalanceTimeoutMs", default=-1)
        if timeout is not None and timeout != -1:
            m.rebalance_timeout_ms = timeout
        ep = field_of(body, "userEndpoint")
        if ep is not None:
            m.user_endpoint = f"{field_of(ep, 'host')}:{field_of(ep, 'port')}"
        tags = field_of(body, "clientTags")
        if tags is not None:
            given = {field_of(t, "key"): field_of(t, "value") for t in tags}
            repeated, m.client_tags = len(given) < len(tags) and given != m.client_tags, given
            if repeated:  # once for each time the tags change, not for each heartbeat that repeats them
                keys = Counter(field_of(t, "key") for t in tags)
                twice = sorted({str(k) for k, n in keys.items() if n > 1})
                g.anomaly(
                    ts,
                    m.member_id,
                    f"client tag key {', '.join(map(repr, twice[:5]))} given twice"
                    f"{f' at {where}' if where else ''}; the last value is kept",
                )
        topo = field_of(body, "topology")
        if topo is not None:
            m.topology_epoch = field_of(topo, "epoch")

    # -- __consumer_offsets records ----------------------------------------------------------------------

    def record(self, where: str, name: str, key: dict, value: dict | None) -> None:
        """One consumer, streams or share group record (``name`` as :data:`codec.kafka4.RECORD_TYPES` names it,
        ``key``/``value`` in Kafka's JSON, ``value`` None for a tombstone), in record order."""
        protocol = STREAMS if name.startswith("Streams") else SHARE if name.startswith("Share") else CONSUMER
        kind = name.removeprefix("ConsumerGroup").removeprefix("StreamsGroup").removeprefix("ShareGroup")
        g = self.group(field_of(key, "groupId", default=""), protocol, "__consumer_offsets")
        member_id = field_of(key, "memberId")
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
            g.group_epoch(field_of(value, "epoch"))
            g.metadata_hash = field_of(value, "metadataHash")
            if protocol == STREAMS:
                g.validated_topology_epoch = field_of(value, "validatedTopologyEpoch")
                configs = field_of(value, "lastAssignmentConfigs")
                g.assignment_configs = {field_of(c, "key"): field_of(c, "value") for c in configs} if configs else None
        elif kind == "PartitionMetadata":
            for t in field_of(value, "topics") or ():
                self.topic_name(field_of(t, "topicId"), field_of(t, "topicName"))
        elif kind == "StatePartitionMetadata":  # the share-group state of the group's partitions
            g.state_partitions = {}
            for state, field_name in (
                ("initializing", "initializingTopics"),
                ("initialized", "initializedTopics"),
                ("deleting", "deletingTopics"),
            ):
                items = field_of(value, field_name) or ()
                for t in items:
                    self.topic_name(field_of(t, "topicId"), field_of(t, "topicName"))
                g.state_partitions[state] = frozenset(
                    topic_partition_items(items, "topicName")
                    if state != "deleting"
                    else ((str(field_of(t, "topicName")), None) for t in items)
                )
        elif kind == "TargetAssignmentMetadata":
            g.assignment_epoch = field_of(value, "assignmentEpoch")
            for other in g.members.values():
                if other.target is not None and other.target.epoch is None:
                    other.target.epoch = g.assignment_epoch
        elif kind == "Topology":
            g.topology = value
        elif m is not None and kind == "MemberMetadata":
            if m.left is not None or (not m.steps and m.target is None and m.client_id is None):
                g.events.append(Event(None, "join", member_id, None, f"member metadata at {where}"))
            m.left = None
            self._identity(g, m, value, field_of(value, "clientId"), None, where)
            m.client_host = field_of(value, "clientHost", default=m.client_host)
            m.topology_epoch = field_of(value, "topologyEpoch", default=m.topology_epoch)
            m.classic = field_of(value, "classicMemberMetadata") is not None
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
        epoch, previous, state = (
            field_of(value, "memberEpoch"),
            field_of(value, "previousMemberEpoch"),
            field_of(value, "state"),
        )
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
            items = (
                field_of(value, field_name) if field_name else field_of(value, "assignedPartitions", "topicPartitions")
            )
            return {PARTITIONS: partition_items_of(items, {})}
        return {kind: task_items(field_of(value, f"{name}{suffix}")) for name, kind in TASK_FIELDS}

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
