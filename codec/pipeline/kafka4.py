"""Kafka 4's group protocols in the pipeline's units (issues #21, #30): KIP-848 consumer groups, KIP-1071 streams
groups and KIP-932 share groups, from their RPC bodies (ConsumerGroupHeartbeat 68, ConsumerGroupDescribe 69,
StreamsGroupHeartbeat 88, StreamsGroupDescribe 89, ShareGroupHeartbeat 76, ShareGroupDescribe 77) and their
``__consumer_offsets`` records, read as Kafka's JSON (camelCase field names,
:func:`codec.kafka4.decode` and :func:`codec.kafka4.decode_record`). No pyspark, no pyarrow.

What each becomes (``generation`` is the member epoch for a member's unit, the group epoch for a group's):

* a heartbeat **request** (epoch >= 0): a :class:`~codec.pipeline.units.GroupUnit` (protocol type
  ``consumer`` or ``streams``; a consumer's ``serverAssignor`` as the protocol) and, when it carries the
  member's data (a join, epoch 0, or any of those fields changed), a :class:`HeartbeatMemberUnit`: a streams
  member's process id, endpoint (``host:port``), client tags and task offsets (``taskOffsets``, with their
  ``taskEndOffsets``: the lag is on the wire), a consumer's rack and instance id and what it owns (its
  ``topicPartitions``, by topic id, at the request's member epoch; null in KIP-848 means unchanged, so a null
  field stays None, distinct from an empty list);
* a heartbeat **response**: a GroupUnit with its error code and, when it carries an assignment, a
  :class:`HeartbeatAssignmentUnit` (a streams member's active, standby and warm-up tasks). Each list is null
  when unchanged since the member's last heartbeat (Kafka's field descriptions): a null list gives no rows,
  so a response that names only some roles shows only those at that epoch;
* a **Describe** response: per group a GroupUnit (group epoch, member count, the consumer group's assignor,
  the error code) and per member its member unit and (streams) its current assignment;
* **records**: ``*GroupMetadata`` (the group epoch) and ``*TargetAssignmentMetadata`` (the assignment epoch) as
  GroupUnits, ``*MemberMetadata`` as member units, ``*CurrentMemberAssignment`` (at its member epoch) and
  ``*TargetAssignmentMember`` (no epoch of its own) as assignment units; the others as a GroupUnit. Every
  GroupUnit names its ``group_protocol`` (``consumer``, ``streams`` or ``share``).

A KIP-848 consumer member's assignment unit carries its partitions (``consumed``, as ``shared`` below) and, from a
``ConsumerGroupCurrentMemberAssignment`` record, those pending revocation (``revoking``); its group's
``ConsumerGroupPartitionMetadata`` record and Describe responses name its topics (``share_topics`` on the
GroupUnit, as a share group's records do).

A share group's member unit carries its subscribed topic names (a consumer's too), and its assignment unit the
partitions it holds (``shared``: ``(topic id, topic name or None, partition)``; heartbeats name topics by id, a
Describe response by id and name); the topics a share group's records describe ride on its GroupUnit
(``share_topics``: ``(topic id, name, partitions)``: all of them for Kafka 4.0's partition metadata (type 9),
the initialized ones for the state record (15; the initializing ones with partitions None), None for the topics
a Describe names): the tables name topic ids with them and know which partitions a member should hold.

Streams tasks are numbered as the tables number them: a KIP-1071 ``subtopologyId`` is a string, which Kafka
Streams fills with its subtopology number; one that is not a decimal int32 cannot be a task of the tables and
the record is refused (quarantined) with its field path.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..wire.registry import apis, record_types
from .units import GroupUnit as _GroupUnit
from .units import RecordError, check_rows

_READ = re.compile(r"(Consumer|Streams|Share)Group(Heartbeat|Describe)")

__all__ = [
    "API_KEYS",
    "RECORD_TYPES",
    "HeartbeatAssignmentUnit",
    "HeartbeatMemberUnit",
    "body_units",
    "record_units",
]

#: the Kafka 4 group APIs the job reads (frames of these keys are selected): the heartbeat and describe APIs of
#: consumer, streams and share groups, as the schemas number them (codec.wire.registry)
API_KEYS = {k: a.name for k, a in apis().items() if _READ.fullmatch(a.name) and a.request and a.response}
#: ``__consumer_offsets`` record types of consumer, share and streams groups the job reads: every coordinator record
#: the schemas define (no release knows type 18: no schema has it)
RECORD_TYPES = tuple(t for t, r in record_types().items() if not r.classic)
_INT32_MAX = (1 << 31) - 1


class HeartbeatMemberUnit(NamedTuple):
    """A member as a KIP-848/1071 message or record shows it. ``tasks``: ``(subtopology, partition, topology,
    offset, end offset)`` (topology is always None: KIP-1071 has no named topologies)."""

    member: str | None
    generation: int | None
    group: str | None
    streams: bool
    process_id: str | None = None
    endpoint: str | None = None
    client_tags: list | None = None
    tasks: list | None = None
    rack_id: str | None = None
    group_instance_id: str | None = None
    client_id: str | None = None
    client_host: str | None = None
    subscribed_topics: list | None = None  # a consumer or share member's topic names (None: unchanged/unknown)
    # a KIP-848 member's ConsumerGroupHeartbeat request's ``topicPartitions``: what it owns, ``(topic id,
    # [partitions])`` per topic (None: the field was null, unchanged since its last heartbeat; []: it owns none)
    owned: list | None = None
    owned_epoch: int | None = None  # the member epoch at which it owns them (the request's; None with owned None)


class HeartbeatAssignmentUnit(NamedTuple):
    """A member's assignment: ``active``, ``standby``, ``warmup`` as ``(subtopology, partition, topology,
    partitions)`` (partitions None: a KIP-1071 task has no positional partition list)."""

    member: str | None
    generation: int | None
    group: str | None
    streams: bool
    active: list | None = None
    standby: list | None = None
    warmup: list | None = None
    error_code: int | None = None
    shared: list | None = None  # a share member's partitions: (topic id, topic name or None, partition)
    consumed: list | None = None  # a KIP-848 consumer member's partitions, as ``shared``
    revoking: list | None = None  # its partitions pending revocation (a CurrentMemberAssignment record's)


def _group(
    member,
    generation,
    group,
    leader=None,
    protocol_type=None,
    protocol_name=None,
    member_count=None,
    error_code=None,
    share_topics=None,
) -> _GroupUnit:
    """A Kafka 4 group's unit: its protocol type is its group protocol (``consumer``, ``streams`` or ``share``)."""
    return _GroupUnit(
        member,
        generation,
        group,
        leader,
        protocol_type,
        protocol_name,
        member_count,
        error_code,
        protocol_type,
        share_topics,
    )


def _subtopology(sid, at: str, layer: str) -> int:
    if isinstance(sid, str) and sid.isascii() and sid.isdigit() and int(sid) <= _INT32_MAX:
        return int(sid)
    raise RecordError(
        "UnsupportedValue",
        f"subtopology id {sid!r} is not a Kafka Streams subtopology number (the tables number tasks)",
        path=at,
        layer=layer,
    )


def _tasks(entries, at: str, layer: str) -> list | None:
    """``[{subtopologyId, partitions}]`` -> one ``(subtopology, partition, None, None)`` per task (None: null)."""
    if entries is None:
        return None
    out: list[tuple] = []
    for i, t in enumerate(entries):
        sub = _subtopology(t["subtopologyId"], f"{at}[{i}].subtopology_id", layer)
        out.extend((sub, p, None, None) for p in t["partitions"])
    return out


def _offsets(offsets, ends, at: str, layer: str) -> list | None:
    """``taskOffsets`` with their ``taskEndOffsets`` -> ``(subtopology, partition, None, offset, end)``."""
    if offsets is None:
        return None
    end = {}
    for i, t in enumerate(ends or ()):
        end[(_subtopology(t["subtopologyId"], f"task_end_offsets[{i}].subtopology_id", layer), t["partition"])] = t[
            "offset"
        ]
    out = {}
    for i, t in enumerate(offsets):
        k = (_subtopology(t["subtopologyId"], f"{at}[{i}].subtopology_id", layer), t["partition"])
        out[k] = t["offset"]  # a repeated task keeps its last offset, as a map would
    return [(s, p, None, o, end.get((s, p))) for (s, p), o in out.items()]


def _endpoint(e) -> str | None:
    return None if e is None else f"{e['host']}:{e['port']}"


def _tags(tags) -> list | None:
    if not tags:
        return None
    return list({t["key"]: t["value"] for t in tags}.items())


def _streams_member(v: dict, *, member, generation, group, layer: str) -> HeartbeatMemberUnit:
    return HeartbeatMemberUnit(
        member,
        generation,
        group,
        True,
        v.get("processId"),
        _endpoint(v.get("userEndpoint")),
        _tags(v.get("clientTags")),
        _offsets(v.get("taskOffsets"), v.get("taskEndOffsets"), "task_offsets", layer),
        v.get("rackId") or None,
        v.get("instanceId"),
        v.get("clientId"),
        v.get("clientHost"),
    )


def _consumer_member(v: dict, *, member, generation, group, owned=None) -> HeartbeatMemberUnit:
    """A consumer or share member (a share member has no instance id); ``owned``: a KIP-848 heartbeat request's
    ``topicPartitions`` (None: null)."""
    topics = v.get("subscribedTopicNames")
    return HeartbeatMemberUnit(
        member,
        generation,
        group,
        False,
        rack_id=v.get("rackId") or None,
        group_instance_id=v.get("instanceId"),
        client_id=v.get("clientId"),
        client_host=v.get("clientHost"),
        subscribed_topics=None if topics is None else list(topics),
        owned=None if owned is None else [(t["topicId"], list(t["partitions"])) for t in owned],
        owned_epoch=None if owned is None else generation,
    )


def _shared(items, named: bool = False) -> list:
    """``[{topicId[, topicName], partitions}]`` -> ``(topic id, name or None, partition)`` per partition."""
    return [(t["topicId"], t["topicName"] if named else None, p) for t in items or () for p in t["partitions"]]


#: the partitions a share group's partition metadata record (Kafka 4.0) may count for one topic: the group row
#: lists them, so a count is bounded as ``assign --share`` bounds its targets
MAX_SHARE_PARTITIONS = 100_000


def _rows_checked(groups, *, member, group, layer: str, at: str, what: str, named: bool) -> None:
    """:class:`RecordError` when the rows of these ``[{topicId[, topicName], partitions}]`` lists would repeat
    names past :data:`~codec.pipeline.units.ROW_BYTES`."""
    fixed = len(member or "") + len(group or "")
    wire = rows = 0
    for items in groups:
        for t in items or ():
            n, name = len(t["partitions"]), len(t["topicName"]) if named else 0
            wire += 16 + name + 4 * n  # a topic id, its name, an int32 a partition
            rows += n * (22 + name + fixed)
    wire += fixed
    check_rows(rows, wire, what=what, path=at, layer=layer)


def _share_assignment(
    items, *, member, generation, group, layer: str, at: str, error_code=None, named=False
) -> HeartbeatAssignmentUnit:
    """A share member's partitions; :class:`RecordError` when its rows would repeat names past
    :data:`~codec.pipeline.units.ROW_BYTES`."""
    _rows_checked((items,), member=member, group=group, layer=layer, at=at, what="a share assignment", named=named)
    return HeartbeatAssignmentUnit(
        member, generation, group, False, error_code=error_code, shared=_shared(items, named)
    )


def _consumer_assignment(
    items, *, member, generation, group, layer: str, at: str, pending=None, named=False
) -> HeartbeatAssignmentUnit:
    """A KIP-848 consumer member's partitions (``items``) and those pending revocation (``pending``: a
    CurrentMemberAssignment record's; None where the message has no such list), by topic id, with the name where
    the message gives it; :class:`RecordError` when its rows would repeat names past
    :data:`~codec.pipeline.units.ROW_BYTES`."""
    _rows_checked(
        (items, pending), member=member, group=group, layer=layer, at=at, what="a consumer assignment", named=named
    )
    return HeartbeatAssignmentUnit(
        member,
        generation,
        group,
        False,
        consumed=_shared(items, named),
        revoking=None if pending is None else _shared(pending, named),
    )


def _topics(items, layer: str) -> list:
    """A group's topics as a ``*PartitionMetadata`` record lists them: ``(topic id, name, partitions)``."""
    for i, t in enumerate(items):
        if t["numPartitions"] > MAX_SHARE_PARTITIONS:
            raise RecordError(
                "UnsupportedValue",
                f"a topic of {t['numPartitions']:,} partitions, more than "
                f"{MAX_SHARE_PARTITIONS:,} (the group's row lists them; codec.budget)",
                path=f"topics[{i}].num_partitions",
                layer=layer,
            )
    return [(t["topicId"], t["topicName"], list(range(max(t["numPartitions"], 0)))) for t in items]


def _share_body_units(name: str, v: dict) -> list:
    """ShareGroupHeartbeat and ShareGroupDescribe bodies (KIP-932)."""
    if name == "ShareGroupHeartbeatRequest":
        member, epoch, group = v["memberId"] or None, v["memberEpoch"], v["groupId"]
        units: list = [_group(member, epoch, group, None, "share")]
        if epoch >= 0 and (epoch == 0 or v.get("rackId") is not None or v.get("subscribedTopicNames") is not None):
            units.append(_consumer_member(v, member=member, generation=epoch, group=group))
        return units
    if name == "ShareGroupHeartbeatResponse":
        member, epoch = v.get("memberId") or None, v["memberEpoch"]
        units = [_group(member, epoch, None, None, "share", None, None, v["errorCode"])]
        if v["errorCode"] == 0 and v.get("assignment") is not None:
            units.append(
                _share_assignment(
                    v["assignment"]["topicPartitions"],
                    member=member,
                    generation=epoch,
                    group=None,
                    layer=name,
                    at="assignment.topic_partitions",
                )
            )
        return units
    if name == "ShareGroupDescribeResponse":
        units = []
        for i, g in enumerate(v["groups"]):
            gid, members = g["groupId"], g["members"]
            named = {(t["topicId"], t["topicName"]) for m in members for t in m["assignment"]["topicPartitions"]}
            units.append(
                _group(
                    None,
                    g["groupEpoch"],
                    gid,
                    None,
                    "share",
                    g["assignorName"] or None,
                    len(members),
                    g["errorCode"],
                    [(tid, tname, None) for tid, tname in sorted(named)],
                )
            )
            for j, m in enumerate(members):
                mid, epoch = m["memberId"] or None, m["memberEpoch"]
                units.append(_consumer_member(m, member=mid, generation=epoch, group=gid))
                units.append(
                    _share_assignment(
                        m["assignment"]["topicPartitions"],
                        member=mid,
                        generation=epoch,
                        group=gid,
                        named=True,
                        layer=name,
                        at=f"groups[{i}].members[{j}].assignment.topic_partitions",
                    )
                )
        return units
    return [_group(None, None, None, None, "share")]  # a ShareGroupDescribeRequest


def _streams_assignment(
    v: dict, *, member, generation, group, layer: str, at: str = "", error_code=None
) -> HeartbeatAssignmentUnit:
    p = f"{at}." if at else ""
    return HeartbeatAssignmentUnit(
        member,
        generation,
        group,
        True,
        _tasks(v.get("activeTasks"), p + "active_tasks", layer),
        _tasks(v.get("standbyTasks"), p + "standby_tasks", layer),
        _tasks(v.get("warmupTasks"), p + "warmup_tasks", layer),
        error_code,
    )


def body_units(name: str, v: dict) -> list:
    """The units of one Kafka 4 group RPC body (``name``: Kafka's message name; ``v``: its Kafka JSON)."""
    if name.startswith("ShareGroup"):
        return _share_body_units(name, v)
    if name == "StreamsGroupHeartbeatRequest":
        member, epoch, group = v["memberId"] or None, v["memberEpoch"], v["groupId"]
        units: list = [_group(member, epoch, group, None, "streams")]
        carries = any(
            v.get(f) is not None
            for f in (
                "processId",
                "userEndpoint",
                "clientTags",
                "taskOffsets",
                "taskEndOffsets",
                "rackId",
                "instanceId",
            )
        )
        if epoch >= 0 and (epoch == 0 or carries):
            units.append(_streams_member(v, member=member, generation=epoch, group=group, layer=name))
        return units
    if name == "StreamsGroupHeartbeatResponse":
        member, epoch = v["memberId"] or None, v["memberEpoch"]
        units = [_group(member, epoch, None, None, "streams", None, None, v["errorCode"])]
        if v["errorCode"] == 0 and any(v.get(f) is not None for f in ("activeTasks", "standbyTasks", "warmupTasks")):
            units.append(_streams_assignment(v, member=member, generation=epoch, group=None, layer=name))
        return units
    if name == "ConsumerGroupHeartbeatRequest":
        member, epoch, group = v["memberId"] or None, v["memberEpoch"], v["groupId"]
        units = [_group(member, epoch, group, None, "consumer", v.get("serverAssignor"))]
        carries = any(
            v.get(f) is not None
            for f in ("rackId", "instanceId", "subscribedTopicNames", "subscribedTopicRegex", "topicPartitions")
        )
        if epoch >= 0 and (epoch == 0 or carries):
            owned = v.get("topicPartitions")
            if owned is not None:
                _rows_checked(
                    (owned,), member=member, group=group, layer=name, at="topic_partitions", what="owned partitions",
                    named=False,
                )  # fmt: skip
            units.append(_consumer_member(v, member=member, generation=epoch, group=group, owned=owned))
        return units
    if name == "ConsumerGroupHeartbeatResponse":
        member, epoch = v.get("memberId") or None, v["memberEpoch"]
        units = [_group(member, epoch, None, None, "consumer", None, None, v["errorCode"])]
        if v["errorCode"] == 0 and v.get("assignment") is not None:
            units.append(
                _consumer_assignment(
                    v["assignment"]["topicPartitions"],
                    member=member,
                    generation=epoch,
                    group=None,
                    layer=name,
                    at="assignment.topic_partitions",
                )
            )
        return units
    if name in ("ConsumerGroupDescribeResponse", "StreamsGroupDescribeResponse"):
        streams = name.startswith("Streams")
        units = []
        for i, g in enumerate(v["groups"]):
            gid, members = g["groupId"], g.get("members") or ()
            named = None
            if not streams:  # the topics its members' assignments name (id and name)
                named = sorted(
                    {(t["topicId"], t["topicName"], None) for m in members for t in m["assignment"]["topicPartitions"]}
                )
            units.append(
                _group(
                    None,
                    g["groupEpoch"],
                    gid,
                    None,
                    "streams" if streams else "consumer",
                    g.get("assignorName") or None,
                    len(members),
                    g["errorCode"],
                    named,
                )
            )
            for j, m in enumerate(members):
                mid, epoch = m["memberId"] or None, m["memberEpoch"]
                if not streams:
                    units.append(_consumer_member(m, member=mid, generation=epoch, group=gid))
                    units.append(
                        _consumer_assignment(
                            m["assignment"]["topicPartitions"],
                            member=mid,
                            generation=epoch,
                            group=gid,
                            named=True,
                            layer=name,
                            at=f"groups[{i}].members[{j}].assignment.topic_partitions",
                        )
                    )
                    continue
                units.append(_streams_member(m, member=mid, generation=epoch, group=gid, layer=name))
                units.append(
                    _streams_assignment(
                        m["assignment"],
                        member=mid,
                        generation=epoch,
                        group=gid,
                        layer=name,
                        at=f"groups[{i}].members[{j}].assignment",
                    )
                )
        return units
    if name in ("ConsumerGroupDescribeRequest", "StreamsGroupDescribeRequest"):
        return [_group(None, None, None, None, "streams" if name.startswith("Streams") else "consumer")]
    raise RecordError("UnsupportedKind", f"no units for {name}", layer=name)  # pragma: no cover


def record_units(rec: dict) -> list:
    """The units of one decoded Kafka 4 ``__consumer_offsets`` record (:func:`codec.kafka4.decode_record`'s
    dict); a tombstone is its group's GroupUnit alone."""
    name, key, v = rec["record"], rec["key"], rec["value"]
    group = key.get("groupId")
    streams = name.startswith("Streams")
    ptype = "streams" if streams else "share" if name.startswith("Share") else "consumer"
    member = key.get("memberId") or None
    if v is None:
        return [_group(member, None, group, None, ptype)]
    if ptype == "share":
        units = _share_record_units(name, v, member=member, group=group)
        if units is not None:
            return units
    if name == "ConsumerGroupPartitionMetadata":  # the subscribed topics: id, name, partition count
        return [_group(None, None, group, None, ptype, share_topics=_topics(v["topics"], name))]
    if name.endswith("GroupMetadata"):
        return [_group(None, v["epoch"], group, None, ptype)]
    if name.endswith("TargetAssignmentMetadata"):
        return [_group(None, v["assignmentEpoch"], group, None, ptype)]
    if name.endswith("MemberMetadata"):
        if streams:
            return [_streams_member(v, member=member, generation=None, group=group, layer=name)]
        return [_consumer_member(v, member=member, generation=None, group=group)]
    if name.endswith("CurrentMemberAssignment"):  # the member's epoch is a generation of its group
        epoch = v["memberEpoch"]
        if streams:
            return [
                _group(member, epoch, group, None, ptype),
                _streams_assignment(v, member=member, generation=epoch, group=group, layer=name),
            ]
        return [
            _group(member, epoch, group, None, ptype),
            _consumer_assignment(
                v["assignedPartitions"],
                pending=v["partitionsPendingRevocation"],
                member=member,
                generation=epoch,
                group=group,
                layer=name,
                at="assigned_partitions",
            ),
        ]
    if name.endswith("TargetAssignmentMember"):
        if streams:
            return [_streams_assignment(v, member=member, generation=None, group=group, layer=name)]
        return [
            _consumer_assignment(
                v["topicPartitions"], member=member, generation=None, group=group, layer=name, at="topic_partitions"
            )
        ]
    return [_group(member, None, group, None, ptype)]


def _share_record_units(name: str, v: dict, *, member, group) -> list | None:
    """The units of a share group's record that differ from a consumer group's (None: the same as theirs)."""
    if name == "ShareGroupPartitionMetadata":  # Kafka 4.0's early access: every topic with its partition count
        return [_group(None, None, group, None, "share", share_topics=_topics(v["topics"], name))]
    if name == "ShareGroupStatePartitionMetadata":  # the initialized partitions are the assignable ones
        known = [(t["topicId"], t["topicName"], list(t["partitions"])) for t in v["initializedTopics"]]
        unsettled = [(t["topicId"], t["topicName"], None) for t in v["initializingTopics"] + v["deletingTopics"]]
        return [_group(None, None, group, None, "share", share_topics=known + unsettled)]
    if name == "ShareGroupCurrentMemberAssignment":
        epoch = v["memberEpoch"]
        return [
            _group(member, epoch, group, None, "share"),
            _share_assignment(
                v["assignedPartitions"],
                member=member,
                generation=epoch,
                group=group,
                layer=name,
                at="assigned_partitions",
            ),
        ]
    if name == "ShareGroupTargetAssignmentMember":
        return [
            _share_assignment(
                v["topicPartitions"], member=member, generation=None, group=group, layer=name, at="topic_partitions"
            )
        ]
    return None
