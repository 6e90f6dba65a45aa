"""One input record -> its decoded *units*, through the codec's public API (no pyspark, no pyarrow).

A unit is what becomes rows of the output tables: a :class:`MemberUnit` (one decoded subscription:
a ``members`` row and its ``task_lags`` rows), an :class:`AssignmentUnit` (one decoded assignment:
its ``assignments`` rows) or a :class:`GroupUnit` (the group-level facts of a JoinGroup/SyncGroup
message or a ``__consumer_offsets`` record: generation, leader, protocol). A record decodes to all
its units or raises :class:`RecordError` -- never a part of them -- so that each record lands in the
decoded tables or in quarantine, exactly once.

Streams layers are decoded strictly when the protocol is known to be ``stream`` (a failure
quarantines the record). When the bytes do not say which assignor the group uses (SyncGroup below
v5, without a ``protocol`` column) the UserData is tried as Streams metadata and, if that fails,
kept opaque: the member is recorded without Streams fields rather than quarantined, since a plain
consumer's UserData is not Streams metadata.

A plain consumer's facts come from the ConsumerProtocol layer itself: a member unit carries the subscription's
topics, an assignment unit without Streams AssignmentInfo the assignment's partitions per topic (refused past
:data:`~codec.pipeline.units.ROW_BYTES`, since the tables make a row of each), and the member unit of a request
frame (the JoinGroup's sender, or a KIP-848 heartbeat's) the request header's client id.
"""

from __future__ import annotations

import struct
from typing import Any

from ..errors import DecodeError
from ..streams import decode_assignment, decode_subscription
from ..group.consumer import ASSIGNMENT as CONSUMER_ASSIGNMENT
from ..group.consumer import SUBSCRIPTION as CONSUMER_SUBSCRIPTION
from ..group.messages import layer_kind
from ..wire.registry import api_for, api_key, apis, kind_name, messages_of_type, records
from .admin import RESPONSES_ONLY as ADMIN_RESPONSES_ONLY
from .admin import (
    DESCRIBE_GROUPS,
    DESCRIBED_KIND,
    OFFSET_FETCH,
    SHARE_STATE_KIND,
    message_body,
    offset_fetch_units,
    share_state_units,
)
from .kafka4 import API_KEYS as KAFKA4_API_KEYS
from .kafka4 import RECORD_TYPES, HeartbeatMemberUnit, body_units, record_units
from .units import AssignmentUnit, ConnectUnit, GroupUnit, MemberUnit, RecordError, check_rows

__all__ = [
    "KINDS",
    "KAFKA4_KINDS",
    "canonical_kind",
    "MemberUnit",
    "AssignmentUnit",
    "GroupUnit",
    "ConnectUnit",
    "RecordError",
    "decode_record",
    "frame_selected",
    "JOIN_GROUP",
    "SYNC_GROUP",
    "LEAVE_GROUP",
    "REQUESTS_ONLY",
    "RESPONSES_ONLY",
]

JOIN_GROUP, SYNC_GROUP, LEAVE_GROUP = api_key("JoinGroup"), api_key("SyncGroup"), api_key("LeaveGroup")
METADATA = api_key("Metadata")
STREAMS = "stream"

#: Kafka 4's group RPC bodies (KIP-848, KIP-1071, KIP-932): kind -> Kafka's message name (:mod:`codec.pipeline.kafka4`)
KAFKA4_KINDS = {
    kind_name(m): m for k in KAFKA4_API_KEYS for m in (apis()[k].request, apis()[k].response) if m is not None
}

# The layers and bodies the pipeline makes units of, by the message each reads: which ones is the pipeline's choice
# (what it has rows for: decode_record), their kinds are the command line's names of the messages
# (codec.wire.registry.kind_name; the ConsumerProtocol layers' codec.group.messages.layer_kind), so no kind name is
# kept here by hand. The Streams layers (SubscriptionInfo, AssignmentInfo), the ConsumerProtocol layers (the group
# package's SUBSCRIPTION, ASSIGNMENT), the classic bodies of JoinGroup and SyncGroup (both ways) and LeaveGroup
# (requests only), DescribeGroups' response (codec.pipeline.admin) and Kafka 4's RPC bodies
_STREAMS_LAYERS = {kind_name(m): m for m in sorted(messages_of_type("streams"), key=lambda m: "Subscription" not in m)}
_CONSUMER_LAYERS = {layer_kind(m): m for m in (CONSUMER_SUBSCRIPTION, CONSUMER_ASSIGNMENT)}
_BODY_KINDS = {kind_name(m): m for k in (JOIN_GROUP, SYNC_GROUP) for m in (apis()[k].request, apis()[k].response) if m}
_BODY_KINDS.update({kind_name(m): m for m in (apis()[LEAVE_GROUP].request,) if m})  # (its requests only)
FRAME, GROUP_METADATA = "frame", "group-metadata"  # (whole frames; __consumer_offsets records, key and value)
KINDS = (
    *_STREAMS_LAYERS,
    *_CONSUMER_LAYERS,
    *_BODY_KINDS,
    FRAME,
    GROUP_METADATA,
    DESCRIBED_KIND,
    SHARE_STATE_KIND,
    *KAFKA4_KINDS,
)

# What else a record's kind may say: each kind without its hyphens and the name of the message it reads (Kafka's
# message names and the vectors' names, squashed: canonical_kind lowers them and drops "-" and "_"), and the short
# names users write (a judgement, not a schema's: the Streams layers without "-info"; __consumer_offsets' record
# names and topic; the share coordinator's records)
_MESSAGES = {**_STREAMS_LAYERS, **_CONSUMER_LAYERS, **_BODY_KINDS, **KAFKA4_KINDS}
_ALIASES = {
    **{k.replace("-", ""): k for k in KINDS},
    **{m.lower(): k for k, m in _MESSAGES.items()},
    (apis()[DESCRIBE_GROUPS].response or "").lower(): DESCRIBED_KIND,
    **{k.removesuffix("-info"): k for k in _STREAMS_LAYERS},
    **{r.lower(): GROUP_METADATA for r in ("GroupMetadata", "GroupMetadataValue", "ConsumerOffsets")},
    **{r.lower(): SHARE_STATE_KIND for r in ("ShareGroupState", "ShareGroupStateRecord")},
}


_CANONICAL: dict[str, str] = {k: k for k in KINDS}


def canonical_kind(kind: str | None) -> str | None:
    """The canonical kind name for ``kind`` (Kafka message names and the vectors' names accepted)."""
    if kind is None:
        return None
    known = _CANONICAL.get(kind)
    if known is not None:
        return known
    low = kind.strip().lower()
    out = low if low in KINDS else _ALIASES.get(low.replace("-", "").replace("_", ""), low)
    if len(_CANONICAL) < 1000:
        _CANONICAL[kind] = out
    return out


# --- the Streams and ConsumerProtocol layers -------------------------------------------------------------


def _group_api():
    try:
        from .. import group
    except ImportError as e:  # pragma: no cover - the group layer ships with the codec
        raise RecordError("UnsupportedKind", f"the group layer (codec.group) is not available: {e}") from None
    return group


def _nested_error(n, at: str) -> RecordError:
    err = n.error
    path = ".".join(p for p in (at or err.at, err.path) if p)
    return RecordError("DecodeError", err.message, offset=err.offset, path=path, layer=n.layer)


def _consumer_layer(value: Any, *, strict: bool, at: str):
    """``(ConsumerMessage or None, streams info or None)`` of a carried ConsumerProtocol field."""
    group = _group_api()
    if value is None or isinstance(value, (bytes, bytearray)):
        return None, None  # empty or null: an error response carries an empty assignment
    if not value.ok:
        raise _nested_error(value, at)
    msg = value.value
    if not hasattr(msg, "data"):  # another protocol's layer (Kafka Connect's): no ConsumerProtocol data
        return None, None
    user = msg.data.user_data
    if isinstance(user, group.Nested) and user.layer in ("SubscriptionInfo", "AssignmentInfo"):
        if not user.ok:
            if strict:
                raise _nested_error(user, f"{at}.user_data" if at else "user_data")
            return msg, None
        return msg, user.value.info
    return msg, None


def _connect_unit(value: Any, *, member, generation=None, group=None, protocol=None) -> ConnectUnit | None:
    """The :class:`ConnectUnit` of a carried field holding a decoded Connect layer, else None (a failed layer
    has already been refused by :func:`_consumer_layer`)."""
    if value is None or isinstance(value, (bytes, bytearray)) or not value.ok:
        return None
    from ..connect.assignment import ConnectAssignment
    from ..connect.metadata import ConnectMetadata

    info = getattr(value.value, "info", None)
    if isinstance(info, ConnectMetadata):
        return ConnectUnit(member, generation, group, "metadata", info, protocol)
    if isinstance(info, ConnectAssignment):
        return ConnectUnit(member, generation, group, "assignment", info, protocol)
    return None


def _subscription_unit(msg, info, *, member, generation=None, group=None, **extra) -> MemberUnit:
    if msg is None:
        return MemberUnit(member, generation, group, info, **extra)
    data = msg.data
    rack = getattr(data, "rack_id", None) or None  # an empty RackId is absent (wire-facts §6)
    owned = None
    if msg.version >= 1:  # ownedPartitions from v1, generationId from v2 (ConsumerProtocolSubscription.json)
        owned = [(tp.topic, list(tp.partitions)) for tp in data.owned_partitions]
    sticky = _group_api().sticky_data(data.user_data)
    sticky_partitions = None
    if sticky is not None and sticky.assignor == "sticky":
        by: dict[str, list[int]] = {}
        for t, ps in sticky.partitions:
            by.setdefault(t, []).extend(ps)
        sticky_partitions = list(by.items())
    return MemberUnit(
        member,
        generation,
        group,
        info,
        msg.version,
        rack,
        subscribed_topics=list(data.topics),
        owned_partitions=owned,
        subscription_generation=data.generation_id if msg.version >= 2 else None,
        sticky_partitions=sticky_partitions,
        sticky_generation=None if sticky is None else sticky.generation,
        **extra,
    )


def _assignment_unit(msg, info, *, member, generation=None, group=None, at: str, layer: str | None) -> AssignmentUnit:
    """A member's assignment: its Streams AssignmentInfo (``info``) or, a plain consumer's, the ConsumerProtocol
    partitions (``topic_partitions``; :class:`RecordError` past :data:`~codec.pipeline.units.ROW_BYTES`)."""
    if msg is None:
        return AssignmentUnit(member, generation, group, info)
    if info is not None:
        return AssignmentUnit(member, generation, group, info, msg.version)
    fixed = len(member or "") + len(group or "")
    wire = rows = fixed
    topics = []
    for tp in msg.data.assigned_partitions:
        n = len(tp.partitions)
        wire += 6 + len(tp.topic) + 4 * n  # the topic's length, its name, the array's length, an int32 a partition
        rows += n * (22 + len(tp.topic) + fixed)
        topics.append((tp.topic, list(tp.partitions)))
    check_rows(rows, wire, what="a consumer assignment", path=at, layer=layer)
    return AssignmentUnit(member, generation, group, None, msg.version, topics)


# --- per kind ---------------------------------------------------------------------------------------------


def _sub_info(data: bytes) -> list:
    try:
        info = decode_subscription(data)
    except DecodeError as e:
        raise RecordError.of(e, "SubscriptionInfo") from None
    return [MemberUnit(None, None, None, info)]


def _asg_info(data: bytes) -> list:
    try:
        info = decode_assignment(data)
    except DecodeError as e:
        raise RecordError.of(e, "AssignmentInfo") from None
    return [AssignmentUnit(None, None, None, info)]


def _consumer(name: str, data: bytes, protocol: str | None) -> list:
    group = _group_api()
    layer = group.SUBSCRIPTION if name == "consumer-subscription" else group.ASSIGNMENT
    pname = protocol or STREAMS
    nested = group.nested.decode_layer(layer, data, protocol_name=pname)
    msg, info = _consumer_layer(nested, strict=pname == STREAMS, at="")
    if name == "consumer-subscription":
        return [_subscription_unit(msg, info, member=None)]
    return [_assignment_unit(msg, info, member=None, at="", layer=layer)]


def _body(name: str, version: int | None, data: bytes, protocol: str | None) -> list:
    group = _group_api()
    if version is None:
        raise RecordError("MissingVersion", f"{name} bytes need the API version (column 'version')", layer=name)
    try:
        value = group.decode_message(name, version, data, nested=True, protocol_name=protocol or STREAMS).value
    except DecodeError as e:
        raise RecordError.of(e, name) from None
    except KeyError as e:
        raise RecordError("UnsupportedKind", str(e), layer=name) from None
    if name == "JoinGroupRequest":
        protos = value.protocols or ()
        chosen = next((p for p in protos if p.name == STREAMS), protos[0] if protos else None)
        units: list = [
            GroupUnit(
                value.member_id or None,
                None,
                value.group_id,
                None,
                value.protocol_type,
                chosen.name if chosen else None,
            )
        ]
        if chosen is not None:
            msg, info = _consumer_layer(
                chosen.metadata, strict=chosen.name == STREAMS, at=f"protocols[{protos.index(chosen)}].metadata"
            )
            units.append(
                _subscription_unit(
                    msg,
                    info,
                    member=value.member_id or None,
                    group=value.group_id,
                    group_instance_id=value.group_instance_id,
                )
            )
            cu = _connect_unit(
                chosen.metadata, member=value.member_id or None, group=value.group_id, protocol=chosen.name
            )
            if cu is not None:
                units.append(cu)
        return units
    if name == "JoinGroupResponse":
        gen = value.generation_id
        members = value.members or ()
        units = [
            GroupUnit(
                value.member_id or None,
                gen,
                None,
                value.leader or None,
                value.protocol_type,
                value.protocol_name,
                len(members) or None,
                value.error_code,
            )
        ]
        strict = value.protocol_name == STREAMS
        for i, m in enumerate(members):
            msg, info = _consumer_layer(m.metadata, strict=strict, at=f"members[{i}].metadata")
            units.append(
                _subscription_unit(
                    msg,
                    info,
                    member=m.member_id,
                    generation=gen,
                    group_instance_id=getattr(m, "group_instance_id", None),
                    # a plain consumer's bytes, for the assignor the consumer checks run (consumerchecks)
                    subscription_bytes=bytes(m.metadata.raw) if msg is not None and info is None else None,
                )
            )
            cu = _connect_unit(m.metadata, member=m.member_id, generation=gen, protocol=value.protocol_name)
            if cu is not None:
                units.append(cu)
        return units
    if name == "SyncGroupRequest":
        known = getattr(value, "protocol_name", None) or protocol
        strict = known == STREAMS
        gen = value.generation_id
        assignments = value.assignments or ()
        units = [
            GroupUnit(
                value.member_id or None,
                gen,
                value.group_id,
                None,
                getattr(value, "protocol_type", None),
                known,
                len(assignments) or None,
            )
        ]
        for i, a in enumerate(assignments):
            at = f"assignments[{i}].assignment"
            msg, info = _consumer_layer(a.assignment, strict=strict, at=at)
            unit = _assignment_unit(
                msg, info, member=a.member_id, generation=gen, group=value.group_id, at=at, layer=name
            )
            if msg is not None and info is None:  # a plain consumer's bytes, for the consumer checks (consumerchecks)
                unit = unit._replace(assignment_bytes=bytes(a.assignment.raw))
            units.append(unit)
            cu = _connect_unit(a.assignment, member=a.member_id, generation=gen, group=value.group_id, protocol=known)
            if cu is not None:
                units.append(cu)
        return units
    if name == "SyncGroupResponse":
        known = getattr(value, "protocol_name", None) or protocol
        msg, info = _consumer_layer(value.assignment, strict=known == STREAMS, at="assignment")
        units = [
            GroupUnit(None, None, None, None, getattr(value, "protocol_type", None), known, None, value.error_code)
        ]
        if msg is not None:
            units.append(_assignment_unit(msg, info, member=None, at="assignment", layer=name))
        cu = _connect_unit(value.assignment, member=None, protocol=known)
        if cu is not None:
            units.append(cu)
        return units
    if name == "LeaveGroupRequest":  # each member leaving (v3+: several), with its KIP-800 reason (v5+)
        leaving = [(m.member_id, getattr(m, "reason", None)) for m in value.members or ()] or [(value.member_id, None)]
        return [GroupUnit(m or None, None, value.group_id, event="leave", reason=r) for m, r in leaving]
    raise RecordError("UnsupportedKind", f"no units for {name}", layer=name)  # pragma: no cover


def _describe_groups(version: int | None, data: bytes) -> list:
    """The units of a DescribeGroupsResponse body (``data``, without the header), or :class:`RecordError`
    (:mod:`codec.pipeline.admin` says what they are)."""
    from ..group.nested import carried_layer, decode_layer

    name = "DescribeGroupsResponse"
    body = message_body(name, version, data)
    units: list = []
    for gi, g in enumerate(body.groups or ()):
        ptype, protocol = g.protocol_type, g.protocol_data or None
        members = g.members or ()
        units.append(GroupUnit(None, None, g.group_id, None, ptype or None, protocol, None, g.error_code))
        sub_layer = carried_layer("JoinGroupResponse", ptype)
        asg_layer = carried_layer("SyncGroupResponse", ptype)
        strict = protocol == STREAMS
        for mi, m in enumerate(members):
            at = f"groups[{gi}].members[{mi}]"
            member, gid = m.member_id, g.group_id
            sub = (
                decode_layer(sub_layer, m.member_metadata, protocol_name=protocol, at=at + ".member_metadata")
                if sub_layer is not None and m.member_metadata
                else None
            )
            msg, info = _consumer_layer(sub, strict=strict, at=at + ".member_metadata")
            extra = dict(
                group_instance_id=getattr(m, "group_instance_id", None),
                client_id=m.client_id,
                client_host=m.client_host,
            )
            units.append(_subscription_unit(msg, info, member=member, group=gid, **extra))
            cu = _connect_unit(sub, member=member, group=gid, protocol=protocol)
            if cu is not None:
                units.append(cu)
            if asg_layer is None or not m.member_assignment:
                continue
            asg = decode_layer(asg_layer, m.member_assignment, protocol_name=protocol, at=at + ".member_assignment")
            amsg, ainfo = _consumer_layer(asg, strict=strict, at=at + ".member_assignment")
            if amsg is not None:
                units.append(
                    _assignment_unit(amsg, ainfo, member=member, group=gid, at=at + ".member_assignment", layer=name)
                )
            cu = _connect_unit(asg, member=member, group=gid, protocol=protocol)
            if cu is not None:
                units.append(cu)
    return units


#: API keys of the frames that are input to the job: JoinGroup, SyncGroup, LeaveGroup (its requests: who left,
#: and why, for the rebalances' causes), DescribeGroups (its responses: the members, :mod:`codec.pipeline.admin`),
#: OffsetFetch (committed offsets), Metadata (its responses: the topics' partition counts) and Kafka 4's group APIs
SELECTED_API_KEYS = (JOIN_GROUP, SYNC_GROUP, LEAVE_GROUP, DESCRIBE_GROUPS, OFFSET_FETCH, METADATA, *KAFKA4_API_KEYS)
#: API keys whose responses are not input to the job (a LeaveGroup response says nothing the tables keep)
REQUESTS_ONLY = (LEAVE_GROUP,)
#: API keys whose requests are not input to the job (a Metadata response's topics and their partition counts are
#: what the consumer checks need: codec.pipeline.consumerchecks; a DescribeGroups response's members)
RESPONSES_ONLY = (METADATA, *ADMIN_RESPONSES_ONLY)
#: (API key, direction) -> the body's schema, for the APIs the job reads (codec.wire.registry)
_FRAME_NAMES = {
    (k, d): getattr(apis()[k], d)
    for k in SELECTED_API_KEYS
    for d in ("request", "response")
    if not (k in REQUESTS_ONLY and d == "response") and not (k in RESPONSES_ONLY and d == "request")
}
#: ``__consumer_offsets`` key types (record types) that are input to the job: classic group metadata (2) and
#: Kafka 4's consumer (3-8, 16), share (9-15) and streams (17, 19-23) group records (no release knows type 18)
SELECTED_RECORD_TYPES = (*records()["GroupMetadata"], *RECORD_TYPES)


def frame_selected(api_key: int | None) -> bool:
    """Frames that are input to the job: JoinGroup, SyncGroup, LeaveGroup (requests: :data:`REQUESTS_ONLY`),
    DescribeGroups and Metadata (responses: :data:`RESPONSES_ONLY`), OffsetFetch, ConsumerGroupHeartbeat/Describe,
    StreamsGroupHeartbeat/Describe and ShareGroupHeartbeat/Describe."""
    return api_key in SELECTED_API_KEYS


def _skip_tagged(data: bytes, pos: int) -> int:
    def uvarint(p: int) -> tuple[int, int]:
        shift = value = 0
        while True:
            if p >= len(data):
                raise DecodeError(
                    "truncated in the header's tagged fields", message="RequestHeader", offset=p, path="_tagged_fields"
                )
            b = data[p]
            p += 1
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value, p
            shift += 7

    n, pos = uvarint(pos)
    for _ in range(n):
        _, pos = uvarint(pos)
        size, pos = uvarint(pos)
        pos += size
    return pos


def _client_id_length(data: bytes) -> int | None:
    """The length of a request header's ``client_id`` (v1 and v2: a nullable int16-length string at byte 8; -1:
    null), or None when the frame ends before it."""
    return struct.unpack_from(">h", data, 8)[0] if len(data) >= 10 else None


def _body_offset(data: bytes, api_key: int, version: int, direction: str) -> int:
    flexible = version >= api_for(api_key).flexible_from
    if direction == "request":
        n = _client_id_length(data)
        if n is None:
            raise DecodeError(
                f"truncated (need 10, have {len(data)})", message="RequestHeader", offset=0, path="client_id"
            )
        pos = 10 + max(n, 0)
        return _skip_tagged(data, pos) if flexible else pos
    return _skip_tagged(data, 4) if flexible else 4


def _frame(data: bytes, api_key, version, direction, body_offset, protocol) -> list:
    if direction not in ("request", "response"):
        raise RecordError(
            "MissingContext", f"a frame needs direction 'request' or 'response', got {direction!r}", layer="frame"
        )
    if version is None:
        raise RecordError("MissingVersion", "a frame needs its API version (column 'api_version')", layer="frame")
    name = _FRAME_NAMES.get((api_key, direction))
    if name is None:
        raise RecordError(
            "UnsupportedKind",
            f"API key {api_key} is not a group API the job reads ({', '.join(map(str, SELECTED_API_KEYS))})",
            layer="frame",
        )
    if direction == "request" and len(data) >= 4:
        k, v = struct.unpack_from(">hh", data)
        if (k, v) != (api_key, version):
            raise RecordError(
                "DecodeError",
                f"request header says API {k} v{v}, the record says {api_key} v{version}",
                offset=0,
                path="header",
                layer="RequestHeader",
            )
    try:
        start = body_offset if body_offset is not None else _body_offset(data, api_key, version, direction)
    except DecodeError as e:
        raise RecordError.of(e, "header") from None
    if not 0 <= start <= len(data):
        raise RecordError("DecodeError", f"body offset {start} outside the {len(data)}-byte frame", layer="frame")
    try:
        if api_key in (JOIN_GROUP, SYNC_GROUP, LEAVE_GROUP):
            units = _body(name, version, data[start:], protocol)
        elif api_key == METADATA:
            units = _metadata(name, version, data[start:])
        elif api_key == DESCRIBE_GROUPS:
            units = _describe_groups(version, data[start:])
        elif api_key == OFFSET_FETCH:
            units = offset_fetch_units(version, data[start:], direction)
        else:
            units = _kafka4_body(name, version, data[start:])
    except RecordError as e:
        if e.offset is not None and e.layer == name:
            e.offset += start  # offsets into the frame, like the capture's own
        raise
    return _with_client_id(units, data) if direction == "request" else units


def _metadata(name: str, version: int, body: bytes) -> list:
    """A Metadata response: one group unit (no group: the topics are the cluster's) with its topics, their partition
    counts and replica racks (:func:`codec.capture.metadata.topic_partitions`)."""
    from ..capture.metadata import topic_partitions

    try:
        topics = topic_partitions(body, version)
    except DecodeError as e:
        raise RecordError.of(e, name) from None
    return [GroupUnit(None, None, None, metadata_topics=topics)]


def _with_client_id(units: list, frame: bytes) -> list:
    """A request's member units (its sender's subscription or heartbeat) with the request header's client id,
    where the body names none."""
    if not any(type(u) in (MemberUnit, HeartbeatMemberUnit) and u.client_id is None for u in units):
        return units
    client_id = _header_client_id(frame)
    if client_id is None:
        return units
    return [
        u._replace(client_id=client_id) if type(u) in (MemberUnit, HeartbeatMemberUnit) and u.client_id is None else u
        for u in units
    ]


def _header_client_id(frame: bytes) -> str | None:
    """The request header's ``client_id`` (:func:`_client_id_length`)."""
    n = _client_id_length(frame)
    if n is None:
        raise RecordError(
            "DecodeError", f"truncated (need 10, have {len(frame)})", offset=0, path="client_id", layer="RequestHeader"
        )
    if n < 0:
        return None
    if 10 + n > len(frame):
        raise RecordError(
            "DecodeError",
            f"truncated (need {n}, have {len(frame) - 10})",
            offset=10,
            path="client_id",
            layer="RequestHeader",
        )
    try:
        return frame[10 : 10 + n].decode("utf-8")
    except UnicodeDecodeError as e:
        raise RecordError(
            "DecodeError",
            f"client_id is not UTF-8: {e.reason}",
            offset=10 + e.start,
            path="client_id",
            layer="RequestHeader",
        ) from None


def _kafka4_body(name: str, version: int | None, data: bytes) -> list:
    """A Kafka 4 group RPC body (KIP-848, KIP-1071, KIP-932) -> its units (:mod:`codec.pipeline.kafka4`)."""
    if version is None:
        raise RecordError("MissingVersion", f"{name} bytes need the API version (column 'version')", layer=name)
    try:
        from .. import kafka4
    except ImportError as e:  # pragma: no cover - the Kafka 4 codec ships with the codec
        raise RecordError("UnsupportedKind", f"the Kafka 4 codec (codec.kafka4) is not available: {e}") from None
    try:
        value = kafka4.decode(name, version, data)
    except DecodeError as e:
        raise RecordError.of(e, name) from None
    return body_units(name, value)


def _kafka4_record(key: bytes, value: bytes | None) -> list:
    """A Kafka 4 group record of ``__consumer_offsets`` -> its units (:mod:`codec.pipeline.kafka4`)."""
    try:
        from .. import kafka4
    except ImportError as e:  # pragma: no cover - the Kafka 4 codec ships with the codec
        raise RecordError("UnsupportedKind", f"the Kafka 4 codec (codec.kafka4) is not available: {e}") from None
    try:
        rec = kafka4.decode_record(key, value)
    except DecodeError as e:
        raise RecordError.of(e, e.message or "record") from None
    return record_units(rec)


def _offsets_decoders():
    """``(key reader, value reader)``: the capture layer's schema-table decoders
    (:mod:`codec.capture.offsets`) when present, else this package's own (:mod:`codec.pipeline.offsets`)."""
    try:
        from ..capture import offsets as cap

        def key_of(key: bytes):
            if len(key) >= 2 and struct.unpack_from(">h", key)[0] != 2:
                return struct.unpack_from(">h", key)[0], None
            _, _, k, _ = cap.decode_key(key)
            return 2, k.group

        return key_of, lambda value: cap.decode_value(2, value)[1]
    except ImportError:
        from .offsets import decode_group_metadata, group_metadata_key

        return group_metadata_key, decode_group_metadata


def _group_metadata(key: bytes | None, value: bytes) -> list:
    if key is None:
        raise RecordError("MissingContext", "a __consumer_offsets record needs its key", layer="GroupMetadataKey")
    if len(key) >= 2 and struct.unpack_from(">h", key)[0] in RECORD_TYPES:
        return _kafka4_record(key, value)
    key_of, value_of = _offsets_decoders()
    try:
        kv, group_id = key_of(key)
    except DecodeError as e:
        raise RecordError.of(e, "GroupMetadataKey", "key") from None
    if group_id is None:
        raise RecordError(
            "UnsupportedKind", f"key version {kv} is not group metadata (2)", path="key", layer="GroupMetadataKey"
        )
    try:
        g = value_of(value)
    except DecodeError as e:
        raise RecordError.of(e, "GroupMetadataValue") from None
    group = _group_api()
    strict = g.protocol == STREAMS and g.protocol_type == "consumer"
    units: list = [GroupUnit(None, g.generation, group_id, g.leader, g.protocol_type, g.protocol, len(g.members))]
    if g.protocol_type == group.nested.CONNECT_TYPE:
        return units + _connect_members(g, group_id)
    if g.protocol_type != "consumer":
        return units
    for i, m in enumerate(g.members):
        extra = dict(group_instance_id=m.group_instance_id, client_id=m.client_id, client_host=m.client_host)
        at = f"members[{i}]"
        sub = (
            group.nested.decode_layer(group.SUBSCRIPTION, m.subscription, protocol_name=g.protocol)
            if m.subscription
            else None
        )
        msg, info = _consumer_layer(sub, strict=strict, at=at + ".subscription")
        units.append(
            _subscription_unit(msg, info, member=m.member_id, generation=g.generation, group=group_id, **extra)
        )
        if m.assignment:
            asg = group.nested.decode_layer(group.ASSIGNMENT, m.assignment, protocol_name=g.protocol)
            amsg, ainfo = _consumer_layer(asg, strict=strict, at=at + ".assignment")
            units.append(
                _assignment_unit(
                    amsg,
                    ainfo,
                    member=m.member_id,
                    generation=g.generation,
                    group=group_id,
                    at=at + ".assignment",
                    layer="GroupMetadataValue",
                )
            )
    return units


def _connect_members(g, group_id: str) -> list:
    """A Connect group's members as the coordinator stored them: each worker's metadata (its JoinGroup
    protocol bytes) and the assignment the leader gave it, read as current workers read them."""
    group = _group_api()
    units: list = []
    for i, m in enumerate(g.members):
        for field, layer in (
            ("subscription", group.nested.CONNECT_METADATA),
            ("assignment", group.nested.CONNECT_ASSIGNMENT),
        ):
            raw = getattr(m, field)
            if not raw:
                continue
            nested = group.nested.decode_layer(layer, raw, protocol_name=g.protocol, at=f"members[{i}].{field}")
            if not nested.ok:
                raise _nested_error(nested, f"members[{i}].{field}")
            units.append(
                _connect_unit(nested, member=m.member_id, generation=g.generation, group=group_id, protocol=g.protocol)
            )
    return units


def decode_record(
    kind: str | None,
    data: bytes,
    *,
    version: int | None = None,
    api_key: int | None = None,
    direction: str | None = None,
    body_offset: int | None = None,
    key: bytes | None = None,
    protocol: str | None = None,
) -> list:
    """The units of one record, or :class:`RecordError`. ``kind`` must be canonical (see
    :func:`canonical_kind`)."""
    try:
        if kind == "subscription-info":
            return _sub_info(data)
        if kind == "assignment-info":
            return _asg_info(data)
        if kind in ("consumer-subscription", "consumer-assignment"):
            return _consumer(kind, data, protocol)
        if kind in _BODY_KINDS:
            return _body(_BODY_KINDS[kind], version, data, protocol)
        if kind in KAFKA4_KINDS:
            return _kafka4_body(KAFKA4_KINDS[kind], version, data)
        if kind == "frame":
            return _frame(data, api_key, version, direction, body_offset, protocol)
        if kind == "group-metadata":
            return _group_metadata(key, data)
        if kind == DESCRIBED_KIND:
            return _describe_groups(version, data)
        if kind == SHARE_STATE_KIND:
            return share_state_units(key, data)
    except RecordError:
        raise
    except DecodeError as e:
        raise RecordError.of(e) from None
    except Exception as e:  # the codec promises DecodeError only; one odd record must not fail a fleet's job
        raise RecordError(type(e).__name__, f"unexpected {type(e).__name__}: {e}") from None
    if kind == "not-json":
        raise RecordError("JSONDecodeError", "the input line is not a JSON object")
    raise RecordError("UnknownKind", f"unknown kind {kind!r}; accepted: {', '.join(KINDS)}")
