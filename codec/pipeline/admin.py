"""An admin's DescribeGroups responses (API 15, v0-6) -> the job's units (no pyspark, no pyarrow).

A DescribeGroups response describes classic groups as the coordinator holds them: per group its error, state,
protocol type and protocol (the assignor), and per member its id, instance id (v4+), client id and host, and the
metadata it joined with and the assignment it was given -- the bytes JoinGroup and SyncGroup carry. They are read
as the group's own frames are (:mod:`codec.pipeline.records`, the capture story's
:mod:`codec.capture.storyadmin`): a ``consumer`` group's ConsumerProtocol subscription and assignment, with Kafka
Streams' SubscriptionInfo/AssignmentInfo inside when the protocol is ``stream`` (strictly: a layer that does not
decode quarantines the record) and the sticky assignors' user data when it is ``sticky`` or ``cooperative-sticky``;
a ``connect`` group's worker metadata and assignment. Each described group gives a :class:`GroupUnit` (its
protocol type and protocol, its error code; no generation: the response names none), and each member a
:class:`MemberUnit` and, when it has an assignment, an :class:`AssignmentUnit` (or Connect units): rows of
``members``, ``assignments`` and ``connect`` whose ``kind`` is ``describe-groups-response`` and whose generation
is null (read by :mod:`codec.pipeline.records`, whose layer readers they share). A request says nothing the tables keep: it is counted as skipped (:data:`RESPONSES_ONLY`).

An OffsetFetch exchange (API 9, v1-10) gives a group's committed offsets: an :class:`OffsetsUnit` per group, whose
``committed`` partitions (topic, or a v10 response's topic id, partition, offset (-1: none), leader epoch (v5+,
else null), metadata, error code) are rows of ``offsets``, ``kind`` ``offset-fetch-response``. Before v8 the
response names no group: its request's unit (one per group asked, with no partitions) names it, and the job fills
the response's group from the request with the same connection and correlation id, as it fills a SyncGroup
response's.

A ``__share_group_state`` record (input kind ``share-state-record``: its ``key`` and ``data``, read with the share
coordinator's record registry, :func:`codec.wire.records.decode_record` with ``coordinator="share"``) is a
:class:`ShareStateUnit`: a ShareSnapshot (the whole state of a share-partition: snapshot epoch, state epoch, leader
epoch, start offset, delivery-complete count, the acquired or acknowledged offset batches with their delivery state
and count) or a ShareUpdate (what changed since the snapshot, no state epoch), a row of ``share_state``."""

from __future__ import annotations

from typing import NamedTuple

from ..errors import DecodeError
from ..wire.registry import api_key
from .units import RecordError, check_rows

__all__ = [
    "DESCRIBE_GROUPS",
    "DESCRIBED_KIND",
    "OFFSET_FETCH",
    "OFFSETS_KIND",
    "SHARE_STATE_KIND",
    "RESPONSES_ONLY",
    "OffsetsUnit",
    "ShareStateUnit",
    "offset_fetch_units",
    "share_state_units",
]

DESCRIBE_GROUPS = api_key("DescribeGroups")
OFFSET_FETCH = api_key("OffsetFetch")
OFFSETS_KIND = "offset-fetch-response"
SHARE_STATE_KIND = "share-state-record"
#: the ``kind`` of the rows a DescribeGroups response gives (its records' kind is ``frame``)
DESCRIBED_KIND = "describe-groups-response"
#: API keys whose requests are not input to the job (a DescribeGroups request names groups, nothing more)
RESPONSES_ONLY = (DESCRIBE_GROUPS,)


class OffsetsUnit(NamedTuple):
    """One group of an OffsetFetch request (no partitions: it names the group) or response: ``committed`` holds
    ``(topic, topic id, partition, offset, leader epoch, metadata, error code)`` per partition."""

    member: str | None
    generation: int | None
    group: str | None
    error_code: int | None
    committed: list | None


class ShareStateUnit(NamedTuple):
    """One ``__share_group_state`` record: ``record`` ``ShareSnapshot`` or ``ShareUpdate``; ``batches`` holds
    ``(first offset, last offset, delivery state, delivery count)`` per state batch."""

    member: str | None
    generation: int | None
    group: str | None
    record: str
    topic_id: str
    partition: int
    snapshot_epoch: int
    state_epoch: int | None
    leader_epoch: int
    start_offset: int
    delivery_complete_count: int | None
    create_ms: int | None
    write_ms: int | None
    batches: list


def message_body(name: str, version: int | None, data: bytes):
    """The decoded body of a ``name`` message at ``version`` (``data``: without its header, nested layers not
    decoded), or the :class:`RecordError` that says why not (no version, bytes that do not read, no schema)."""
    from ..group import decode_message

    if version is None:
        raise RecordError("MissingVersion", f"{name} bytes need the API version (column 'version')", layer=name)
    try:
        return decode_message(name, version, data, nested=False).value
    except DecodeError as e:
        raise RecordError.of(e, name) from None
    except KeyError as e:
        raise RecordError("UnsupportedKind", str(e), layer=name) from None


def offset_fetch_units(version: int | None, data: bytes, direction: str) -> list:
    """The units of an OffsetFetch request or response body (``data``, without the header)."""
    name = "OffsetFetchRequest" if direction == "request" else "OffsetFetchResponse"
    body = message_body(name, version, data)
    assert version is not None  # (message_body refuses bytes without one)
    if direction == "request":
        groups = [g.group_id for g in body.groups or ()] if version >= 8 else [body.group_id]
        return [OffsetsUnit(None, None, g, None, None) for g in groups] or [OffsetsUnit(None, None, None, None, None)]
    if version >= 8:
        return [_offsets(g.group_id, g.error_code, g.topics, version, i) for i, g in enumerate(body.groups or ())]
    return [_offsets(None, getattr(body, "error_code", 0), body.topics, version, None)]


def _offsets(group: str | None, error_code: int, topics, version: int, at: int | None) -> OffsetsUnit:
    committed = []
    wire = rows = len(group or "")
    for t in topics or ():
        name = getattr(t, "name", None)
        tid = None if name is not None else str(getattr(t, "topic_id", "")) or None
        for p in t.partitions:
            epoch = p.committed_leader_epoch if version >= 5 else None
            committed.append((name, tid, p.partition_index, p.committed_offset, epoch, p.metadata, p.error_code))
            wire += 18 + len(p.metadata or "")
            rows += 40 + len(name or tid or "") + len(p.metadata or "") + len(group or "")
    path = "topics" if at is None else f"groups[{at}].topics"
    check_rows(rows, wire, what="an OffsetFetch response's offsets", path=path, layer="OffsetFetchResponse")
    return OffsetsUnit(None, None, group, error_code, committed)


def share_state_units(key: bytes | None, value: bytes | None) -> list:
    """The unit of one ``__share_group_state`` record (its key and value), or :class:`RecordError`."""
    from ..wire.records import decode_record

    if key is None:
        raise RecordError("MissingContext", "a __share_group_state record needs its key", layer="ShareSnapshotKey")
    if value is None:
        raise RecordError("MissingBytes", "a __share_group_state record needs its value", layer="ShareSnapshotValue")
    try:
        rec = decode_record(key, value, style="kafka", coordinator="share")
    except DecodeError as e:
        raise RecordError.of(e, e.message or "ShareSnapshot") from None
    k, v = rec["key"], rec["value"]
    batches = [
        (b["firstOffset"], b["lastOffset"], b["deliveryState"], b["deliveryCount"]) for b in v.get("stateBatches") or ()
    ]
    check_rows(
        len(batches) * 32 + len(k["groupId"]),
        len(value),
        what="a share state's batches",
        path="value.stateBatches",
        layer=rec["record"] + "Value",
    )
    dcc = v.get("deliveryCompleteCount")
    return [
        ShareStateUnit(
            None,
            None,
            k["groupId"],
            rec["record"],
            str(k["topicId"]),
            k["partition"],
            v["snapshotEpoch"],
            v.get("stateEpoch"),
            v["leaderEpoch"],
            v["startOffset"],
            None if dcc is None or dcc < 0 else dcc,
            v.get("createTimestamp"),
            v.get("writeTimestamp"),
            batches,
        )
    ]
