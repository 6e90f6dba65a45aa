"""Hand-written ``struct`` codecs of the benchmarked messages: the practical Python limit (issue #10).

Written the way a careful Python programmer writes one message by hand: ``unpack_from`` with
pre-compiled ``struct.Struct`` objects on one buffer and an offset, ``iter_unpack`` for runs of
fixed-width elements, one ``b"".join`` on the way out, no validation beyond what ``struct`` does, and
the same result objects as the codec (its frozen wire dataclasses and Streams models, built through
their constructors) so that results compare equal. One version per message (the classic versions;
SubscriptionInfo and AssignmentInfo v7).
"""

from __future__ import annotations

import struct
import uuid

from codec.streams import AssignmentInfo, SubscriptionInfo
from codec.types import HostInfo, TaskId, TopicPartition
from codec.wire.builder import wire_class
from codec.wire.primitives import mutf8_decode, mutf8_encode

I16 = struct.Struct(">h")
I32 = struct.Struct(">i")
II = struct.Struct(">ii")
IQ = struct.Struct(">iq")
IHI = struct.Struct(">ihi")

_unpack = struct.unpack_from
_iter = struct.iter_unpack


def _string(buf: bytes, pos: int) -> tuple[str | None, int]:
    (n,) = I16.unpack_from(buf, pos)
    pos += 2
    if n < 0:
        return None, pos
    return buf[pos:pos + n].decode("utf-8"), pos + n


def _bytes(buf: bytes, pos: int) -> tuple[bytes | None, int]:
    (n,) = I32.unpack_from(buf, pos)
    pos += 4
    if n < 0:
        return None, pos
    return buf[pos:pos + n], pos + n


def _s(s: str | None) -> bytes:
    if s is None:
        return b"\xff\xff"
    raw = s.encode("utf-8")
    return I16.pack(len(raw)) + raw


def _b(b: bytes | None) -> bytes:
    if b is None:
        return b"\xff\xff\xff\xff"
    return I32.pack(len(b)) + b


# --- JoinGroup v5 ---------------------------------------------------------------------------------------

JGReq = wire_class("JoinGroupRequest", "JoinGroupRequest")
JGReqProto = wire_class("JoinGroupRequest", "JoinGroupRequestProtocol")
JGResp = wire_class("JoinGroupResponse", "JoinGroupResponse")
JGRespMember = wire_class("JoinGroupResponse", "JoinGroupResponseMember")


def decode_join_group_request_v5(buf: bytes):
    group_id, pos = _string(buf, 0)
    session, rebalance = II.unpack_from(buf, pos)
    member_id, pos = _string(buf, pos + 8)
    instance, pos = _string(buf, pos)
    ptype, pos = _string(buf, pos)
    (n,) = I32.unpack_from(buf, pos)
    pos += 4
    protocols = []
    for _ in range(n):
        name, pos = _string(buf, pos)
        meta, pos = _bytes(buf, pos)
        protocols.append(JGReqProto(name=name, metadata=meta))
    return JGReq(group_id=group_id, session_timeout_ms=session, rebalance_timeout_ms=rebalance,
                 member_id=member_id, group_instance_id=instance, protocol_type=ptype, protocols=tuple(protocols))


def encode_join_group_request_v5(m) -> bytes:
    parts = [_s(m.group_id), II.pack(m.session_timeout_ms, m.rebalance_timeout_ms), _s(m.member_id),
             _s(m.group_instance_id), _s(m.protocol_type), I32.pack(len(m.protocols))]
    for p in m.protocols:
        parts.append(_s(p.name))
        parts.append(_b(p.metadata))
    return b"".join(parts)


def decode_join_group_response_v5(buf: bytes):
    throttle, error, generation = IHI.unpack_from(buf, 0)
    protocol_name, pos = _string(buf, 10)
    leader, pos = _string(buf, pos)
    member_id, pos = _string(buf, pos)
    (n,) = I32.unpack_from(buf, pos)
    pos += 4
    members = []
    h, i = I16.unpack_from, I32.unpack_from
    for _ in range(n):  # the hot loop, inlined
        (k,) = h(buf, pos)
        pos += 2
        mid = buf[pos:pos + k].decode("utf-8")
        pos += k
        (k,) = h(buf, pos)
        pos += 2
        if k < 0:
            instance = None
        else:
            instance = buf[pos:pos + k].decode("utf-8")
            pos += k
        (k,) = i(buf, pos)
        pos += 4
        meta = buf[pos:pos + k]
        pos += k
        members.append(JGRespMember(member_id=mid, group_instance_id=instance, metadata=meta))
    return JGResp(throttle_time_ms=throttle, error_code=error, generation_id=generation, protocol_name=protocol_name,
                  leader=leader, member_id=member_id, members=tuple(members))


def encode_join_group_response_v5(m) -> bytes:
    parts = [IHI.pack(m.throttle_time_ms, m.error_code, m.generation_id), _s(m.protocol_name), _s(m.leader),
             _s(m.member_id), I32.pack(len(m.members))]
    for x in m.members:
        parts.append(_s(x.member_id))
        parts.append(_s(x.group_instance_id))
        parts.append(_b(x.metadata))
    return b"".join(parts)


# --- SyncGroup v3 ---------------------------------------------------------------------------------------

SGReq = wire_class("SyncGroupRequest", "SyncGroupRequest")
SGReqAssignment = wire_class("SyncGroupRequest", "SyncGroupRequestAssignment")
SGResp = wire_class("SyncGroupResponse", "SyncGroupResponse")


def decode_sync_group_request_v3(buf: bytes):
    group_id, pos = _string(buf, 0)
    (generation,) = I32.unpack_from(buf, pos)
    member_id, pos = _string(buf, pos + 4)
    instance, pos = _string(buf, pos)
    (n,) = I32.unpack_from(buf, pos)
    pos += 4
    assignments = []
    h, i = I16.unpack_from, I32.unpack_from
    for _ in range(n):  # the hot loop, inlined
        (k,) = h(buf, pos)
        pos += 2
        mid = buf[pos:pos + k].decode("utf-8")
        pos += k
        (k,) = i(buf, pos)
        pos += 4
        assignments.append(SGReqAssignment(member_id=mid, assignment=buf[pos:pos + k]))
        pos += k
    return SGReq(group_id=group_id, generation_id=generation, member_id=member_id, group_instance_id=instance,
                 assignments=tuple(assignments))


def encode_sync_group_request_v3(m) -> bytes:
    parts = [_s(m.group_id), I32.pack(m.generation_id), _s(m.member_id), _s(m.group_instance_id),
             I32.pack(len(m.assignments))]
    for a in m.assignments:
        parts.append(_s(a.member_id))
        parts.append(_b(a.assignment))
    return b"".join(parts)


def decode_sync_group_response_v3(buf: bytes):
    throttle, error, n = IHI.unpack_from(buf, 0)
    return SGResp(throttle_time_ms=throttle, error_code=error, assignment=buf[10:10 + n])


def encode_sync_group_response_v3(m) -> bytes:
    return IHI.pack(m.throttle_time_ms, m.error_code, len(m.assignment)) + m.assignment


# --- ConsumerProtocol v3 (with the int16 version prefix) ------------------------------------------------

CPS = wire_class("ConsumerProtocolSubscription", "ConsumerProtocolSubscription")
CPSTopic = wire_class("ConsumerProtocolSubscription", "TopicPartition")
CPA = wire_class("ConsumerProtocolAssignment", "ConsumerProtocolAssignment")
CPATopic = wire_class("ConsumerProtocolAssignment", "TopicPartition")


def _topic_partitions(buf: bytes, pos: int, cls) -> tuple[tuple, int]:
    (n,) = I32.unpack_from(buf, pos)
    pos += 4
    out = []
    for _ in range(n):
        topic, pos = _string(buf, pos)
        (k,) = I32.unpack_from(buf, pos)
        pos += 4
        parts = _unpack(f">{k}i", buf, pos)
        pos += 4 * k
        out.append(cls(topic=topic, partitions=parts))
    return tuple(out), pos


def _topic_partitions_bytes(items) -> list[bytes]:
    parts = [I32.pack(len(items))]
    for t in items:
        parts.append(_s(t.topic))
        parts.append(struct.pack(f">i{len(t.partitions)}i", len(t.partitions), *t.partitions))
    return parts


def decode_consumer_subscription_v3(buf: bytes):
    (n,) = I32.unpack_from(buf, 2)
    pos = 6
    topics = []
    for _ in range(n):
        t, pos = _string(buf, pos)
        topics.append(t)
    user_data, pos = _bytes(buf, pos)
    owned, pos = _topic_partitions(buf, pos, CPSTopic)
    (generation,) = I32.unpack_from(buf, pos)
    rack, pos = _string(buf, pos + 4)
    return CPS(topics=tuple(topics), user_data=user_data, owned_partitions=owned, generation_id=generation,
               rack_id=rack)


def encode_consumer_subscription_v3(m) -> bytes:
    parts = [b"\x00\x03", I32.pack(len(m.topics))]
    parts += [_s(t) for t in m.topics]
    parts.append(_b(m.user_data))
    parts += _topic_partitions_bytes(m.owned_partitions)
    parts.append(I32.pack(m.generation_id))
    parts.append(_s(m.rack_id))
    return b"".join(parts)


def decode_consumer_assignment_v3(buf: bytes):
    assigned, pos = _topic_partitions(buf, 2, CPATopic)
    user_data, pos = _bytes(buf, pos)
    return CPA(assigned_partitions=assigned, user_data=user_data)


def encode_consumer_assignment_v3(m) -> bytes:
    return b"".join([b"\x00\x03", *_topic_partitions_bytes(m.assigned_partitions), _b(m.user_data)])


# --- SubscriptionInfo v7 (to the Streams model) ---------------------------------------------------------

def decode_subscription_v7(buf: bytes) -> SubscriptionInfo:
    version, lsv = II.unpack_from(buf, 0)
    process_id = uuid.UUID(bytes=buf[8:24])
    (n,) = I32.unpack_from(buf, 24)
    pos = 28 + n
    endpoint = buf[28:pos].decode("utf-8") if n else None
    (groups,) = I32.unpack_from(buf, pos)
    pos += 4
    sums = {}
    for _ in range(groups):
        group, k = II.unpack_from(buf, pos)
        pos += 8
        end = pos + 12 * k
        for partition, offset_sum in IQ.iter_unpack(buf[pos:end]):
            sums[TaskId(group, partition)] = offset_sum
        pos = end
    return SubscriptionInfo(version=version, latest_supported_version=lsv, process_id=process_id,
                            user_endpoint=endpoint, task_offset_sums=sums)


def encode_subscription_v7(info: SubscriptionInfo) -> bytes:
    endpoint = (info.user_endpoint or "").encode("utf-8")
    groups: dict[int, list] = {}
    for t, s in info.task_offset_sums.items():
        groups.setdefault(t.subtopology, []).append((t.partition, s))
    parts = [II.pack(info.version, info.latest_supported_version), info.process_id.bytes,
             I32.pack(len(endpoint)), endpoint, I32.pack(len(groups))]
    for g, ps in groups.items():
        parts.append(II.pack(g, len(ps)))
        parts.append(struct.pack(">" + "iq" * len(ps), *[x for p in ps for x in p]))
    return b"".join(parts)


# --- AssignmentInfo v7 (to the Streams model) -----------------------------------------------------------

H = struct.Struct(">H")
IQ_END = struct.Struct(">iq")


def _utf(buf: bytes, pos: int) -> tuple[str, int]:
    (n,) = H.unpack_from(buf, pos)
    pos += 2
    raw = buf[pos:pos + n]
    return (raw.decode("ascii") if raw.isascii() else mutf8_decode(raw)), pos + n


def _w_utf(s: str) -> bytes:
    raw = s.encode("ascii") if s.isascii() and "\x00" not in s else mutf8_encode(s)
    return H.pack(len(raw)) + raw


def decode_assignment_v7(buf: bytes) -> AssignmentInfo:
    version, common, n = struct.unpack_from(">iii", buf, 0)
    pos = 12
    active = tuple(TaskId(s, p) for s, p in II.iter_unpack(buf[pos:pos + 8 * n]))
    pos += 8 * n
    (n,) = I32.unpack_from(buf, pos)
    pos += 4
    standby = {}
    for _ in range(n):
        s, p, k = struct.unpack_from(">iii", buf, pos)
        pos += 12
        parts = []
        for _ in range(k):
            topic, pos = _utf(buf, pos)
            (partition,) = I32.unpack_from(buf, pos)
            pos += 4
            parts.append(TopicPartition(topic, partition))
        standby[TaskId(s, p)] = tuple(parts)
    (n,) = I32.unpack_from(buf, pos)
    pos += 4
    dictionary = {}
    for _ in range(n):
        (index,) = I32.unpack_from(buf, pos)
        dictionary[index], pos = _utf(buf, pos + 4)

    def host_map(pos):
        (n,) = I32.unpack_from(buf, pos)
        pos += 4
        out = {}
        for _ in range(n):
            host, pos = _utf(buf, pos)
            port, k = II.unpack_from(buf, pos)
            pos += 8
            end = pos + 8 * k
            out[HostInfo(host, port)] = tuple(TopicPartition(dictionary[i], p) for i, p in II.iter_unpack(buf[pos:end]))
            pos = end
        return out, pos

    by_host, pos = host_map(pos)
    standby_by_host, pos = host_map(pos)
    error, next_ms = IQ_END.unpack_from(buf, pos)
    return AssignmentInfo(version=version, commonly_supported_version=common, active_tasks=active,
                          standby_tasks=standby, partitions_by_host=by_host, standby_partitions_by_host=standby_by_host,
                          error_code=error, next_rebalance_ms=next_ms)


def encode_assignment_v7(info: AssignmentInfo) -> bytes:
    parts = [struct.pack(">iii", info.version, info.commonly_supported_version, len(info.active_tasks))]
    parts.append(struct.pack(">" + "ii" * len(info.active_tasks),
                             *[x for t in info.active_tasks for x in (t.subtopology, t.partition)]))
    parts.append(I32.pack(len(info.standby_tasks)))
    for t, ps in info.standby_tasks.items():
        parts.append(struct.pack(">iii", t.subtopology, t.partition, len(ps)))
        for p in ps:
            parts.append(_w_utf(p.topic))
            parts.append(I32.pack(p.partition))
    index: dict[str, int] = {}
    for m in (info.partitions_by_host, info.standby_partitions_by_host):
        for ps in m.values():
            for p in ps:
                index.setdefault(p.topic, len(index))
    parts.append(I32.pack(len(index)))
    for topic, i in index.items():
        parts.append(I32.pack(i))
        parts.append(_w_utf(topic))
    for m in (info.partitions_by_host, info.standby_partitions_by_host):
        parts.append(I32.pack(len(m)))
        for h, ps in m.items():
            parts.append(_w_utf(h.host))
            parts.append(II.pack(h.port, len(ps)))
            parts.append(struct.pack(">" + "ii" * len(ps), *[x for p in ps for x in (index[p.topic], p.partition)]))
    parts.append(IQ_END.pack(info.error_code, info.next_rebalance_ms))
    return b"".join(parts)
