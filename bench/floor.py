"""The plain-value floor: hand-written ``struct`` codecs of the benchmarked messages that return (and take)
plain values -- tuples, dicts, str, bytes, ints, ``uuid.UUID`` -- instead of any library's objects.

Written the way a careful Python programmer writes one message by hand: pre-compiled ``struct.Struct``
objects, ``unpack_from`` on one buffer and an offset, ``iter_unpack`` for runs of fixed-width elements, the
hot loops inlined, one ``b"".join`` on the way out, no checks beyond what ``struct`` and slicing do. It is not
a library (it knows one version of each message and trusts its input); it is the floor a decoder that builds
documented objects is measured against.

Plain forms:

* group messages and ConsumerProtocol (the int16 version first): the tuple of the version's fields in wire
  order, structs as tuples, arrays as tuples (:func:`plain_wire` makes it from a wire object);
* SubscriptionInfo: ``(version, latest, process_id, endpoint, {(subtopology, partition, topology): offset
  sum})`` and at v11 ``unique_field, error_code, {tag: value}`` after it (:func:`plain_subscription`);
* AssignmentInfo: ``(version, commonly_supported, active ((s, p, topology), ...), standby {task: ((topic,
  p), ...)}, by_host {(host, port): ((topic, p), ...)}, standby_by_host {...}, error_code,
  next_rebalance_ms)`` (:func:`plain_assignment`).

Flexible versions: compact lengths, and the floor writes and expects empty tagged-field sections.
"""

from __future__ import annotations

import struct
import uuid

from codec.wire.primitives import mutf8_decode, mutf8_encode
from codec.wire.schema import load_message

__all__ = ["FLOOR", "plain_wire", "plain_subscription", "plain_assignment"]

H = struct.Struct(">h")
UH = struct.Struct(">H")
I = struct.Struct(">i")
II = struct.Struct(">ii")
III = struct.Struct(">iii")
IHI = struct.Struct(">ihi")
IQ = struct.Struct(">iq")
IIQ = struct.Struct(">iiq")
IIQH = struct.Struct(">iiqh")
B = struct.Struct(">b")


# --- the plain forms of our objects (for the equality check before timing) --------------------------------


def plain_wire(obj, message: str, version: int, struct_name: str | None = None) -> tuple:
    spec = load_message(message).structs[struct_name or message]
    out = []
    for f in spec.fields_at(version):
        v = getattr(obj, f.py_name)
        if f.struct is not None and v is not None:
            v = (
                tuple(plain_wire(x, message, version, f.struct.name) for x in v)
                if f.is_array
                else plain_wire(v, message, version, f.struct.name)
            )
        out.append(v)
    return tuple(out)


def _task(t) -> tuple:
    return (t.subtopology, t.partition, t.topology_name)


def plain_subscription(info) -> tuple:
    sums = {_task(t): s for t, s in info.task_offset_sums.items()}
    base = (info.version, info.latest_supported_version, info.process_id, info.user_endpoint, sums)
    return base + ((info.unique_field, info.error_code, dict(info.client_tags)) if info.version >= 11 else ())


def plain_assignment(info) -> tuple:
    def parts(ps):
        return tuple((p.topic, p.partition) for p in ps)

    def hosts(m):
        return {(h.host, h.port): parts(ps) for h, ps in m.items()}

    return (
        info.version,
        info.commonly_supported_version,
        tuple(_task(t) for t in info.active_tasks),
        {_task(t): parts(ps) for t, ps in info.standby_tasks.items()},
        hosts(info.partitions_by_host),
        hosts(info.standby_partitions_by_host),
        info.error_code,
        info.next_rebalance_ms,
    )


# --- primitives ---------------------------------------------------------------------------------------------


def _str(buf: bytes, pos: int):
    (n,) = H.unpack_from(buf, pos)
    pos += 2
    if n < 0:
        return None, pos
    return buf[pos : pos + n].decode("utf-8"), pos + n


def _bytes(buf: bytes, pos: int):
    (n,) = I.unpack_from(buf, pos)
    pos += 4
    if n < 0:
        return None, pos
    return buf[pos : pos + n], pos + n


def _uv(buf: bytes, pos: int):
    b = buf[pos]
    if b < 128:
        return b, pos + 1
    value, shift = b & 127, 7
    while True:
        pos += 1
        b = buf[pos]
        value |= (b & 127) << shift
        if b < 128:
            return value, pos + 1
        shift += 7


def _cstr(buf: bytes, pos: int):
    n, pos = _uv(buf, pos)
    if n == 0:
        return None, pos
    return buf[pos : pos + n - 1].decode("utf-8"), pos + n - 1


def _cbytes(buf: bytes, pos: int):
    n, pos = _uv(buf, pos)
    if n == 0:
        return None, pos
    return buf[pos : pos + n - 1], pos + n - 1


def _w_str(s) -> bytes:
    if s is None:
        return b"\xff\xff"
    raw = s.encode("utf-8")
    return H.pack(len(raw)) + raw


def _w_bytes(b) -> bytes:
    if b is None:
        return b"\xff\xff\xff\xff"
    return I.pack(len(b)) + b


def _w_bytes_into(parts: list, b) -> None:
    """A bytes field appended as two pieces (no copy of a large value before the final join)."""
    if b is None:
        parts.append(b"\xff\xff\xff\xff")
    else:
        parts.append(I.pack(len(b)))
        parts.append(b)


def _w_uv(n: int) -> bytes:
    if n < 128:
        return bytes((n,))
    out = bytearray()
    while n >= 128:
        out.append(n & 127 | 128)
        n >>= 7
    out.append(n)
    return bytes(out)


def _w_cstr(s) -> bytes:
    if s is None:
        return b"\x00"
    raw = s.encode("utf-8")
    return _w_uv(len(raw) + 1) + raw


def _w_cbytes_into(parts: list, b) -> None:
    if b is None:
        parts.append(b"\x00")
    else:
        parts.append(_w_uv(len(b) + 1))
        parts.append(b)


def _utf(buf: bytes, pos: int):
    (n,) = UH.unpack_from(buf, pos)
    pos += 2
    raw = buf[pos : pos + n]
    return (raw.decode("ascii") if raw.isascii() else mutf8_decode(raw)), pos + n


def _w_utf(s: str) -> bytes:
    raw = s.encode("ascii") if s.isascii() and "\x00" not in s else mutf8_encode(s)
    return UH.pack(len(raw)) + raw


# --- JoinGroup -----------------------------------------------------------------------------------------------


def decode_join_group_request_v5(buf: bytes) -> tuple:
    group_id, pos = _str(buf, 0)
    session, rebalance = II.unpack_from(buf, pos)
    member_id, pos = _str(buf, pos + 8)
    instance, pos = _str(buf, pos)
    ptype, pos = _str(buf, pos)
    (n,) = I.unpack_from(buf, pos)
    pos += 4
    protocols = []
    for _ in range(n):
        name, pos = _str(buf, pos)
        meta, pos = _bytes(buf, pos)
        protocols.append((name, meta))
    return (group_id, session, rebalance, member_id, instance, ptype, tuple(protocols))


def encode_join_group_request_v5(m: tuple) -> bytes:
    group_id, session, rebalance, member_id, instance, ptype, protocols = m
    parts = [
        _w_str(group_id),
        II.pack(session, rebalance),
        _w_str(member_id),
        _w_str(instance),
        _w_str(ptype),
        I.pack(len(protocols)),
    ]
    for name, meta in protocols:
        parts.append(_w_str(name))
        _w_bytes_into(parts, meta)
    return b"".join(parts)


def decode_join_group_request_v9(buf: bytes) -> tuple:
    group_id, pos = _cstr(buf, 0)
    session, rebalance = II.unpack_from(buf, pos)
    member_id, pos = _cstr(buf, pos + 8)
    instance, pos = _cstr(buf, pos)
    ptype, pos = _cstr(buf, pos)
    n, pos = _uv(buf, pos)
    protocols = []
    for _ in range(n - 1):
        name, pos = _cstr(buf, pos)
        meta, pos = _cbytes(buf, pos)
        protocols.append((name, meta))
        pos += 1  # the element's empty tagged fields
    reason, pos = _cstr(buf, pos)
    return (group_id, session, rebalance, member_id, instance, ptype, tuple(protocols), reason)


def encode_join_group_request_v9(m: tuple) -> bytes:
    group_id, session, rebalance, member_id, instance, ptype, protocols, reason = m
    parts = [
        _w_cstr(group_id),
        II.pack(session, rebalance),
        _w_cstr(member_id),
        _w_cstr(instance),
        _w_cstr(ptype),
        _w_uv(len(protocols) + 1),
    ]
    for name, meta in protocols:
        parts.append(_w_cstr(name))
        _w_cbytes_into(parts, meta)
        parts.append(b"\x00")
    parts.append(_w_cstr(reason))
    parts.append(b"\x00")
    return b"".join(parts)


def decode_join_group_response_v5(buf: bytes) -> tuple:
    throttle, error, generation = IHI.unpack_from(buf, 0)
    protocol_name, pos = _str(buf, 10)
    leader, pos = _str(buf, pos)
    member_id, pos = _str(buf, pos)
    (n,) = I.unpack_from(buf, pos)
    pos += 4
    members = []
    h, i = H.unpack_from, I.unpack_from
    for _ in range(n):  # the hot loop, inlined
        (k,) = h(buf, pos)
        pos += 2
        mid = buf[pos : pos + k].decode("utf-8")
        pos += k
        (k,) = h(buf, pos)
        pos += 2
        if k < 0:
            instance = None
        else:
            instance = buf[pos : pos + k].decode("utf-8")
            pos += k
        (k,) = i(buf, pos)
        pos += 4
        members.append((mid, instance, buf[pos : pos + k]))
        pos += k
    return (throttle, error, generation, protocol_name, leader, member_id, tuple(members))


def encode_join_group_response_v5(m: tuple) -> bytes:
    throttle, error, generation, protocol_name, leader, member_id, members = m
    parts = [
        IHI.pack(throttle, error, generation),
        _w_str(protocol_name),
        _w_str(leader),
        _w_str(member_id),
        I.pack(len(members)),
    ]
    for mid, instance, meta in members:
        parts.append(_w_str(mid))
        parts.append(_w_str(instance))
        _w_bytes_into(parts, meta)
    return b"".join(parts)


def decode_join_group_response_v9(buf: bytes) -> tuple:
    throttle, error, generation = IHI.unpack_from(buf, 0)
    ptype, pos = _cstr(buf, 10)
    pname, pos = _cstr(buf, pos)
    leader, pos = _cstr(buf, pos)
    skip = buf[pos] != 0
    member_id, pos = _cstr(buf, pos + 1)
    n, pos = _uv(buf, pos)
    members = []
    for _ in range(n - 1):
        mid, pos = _cstr(buf, pos)
        instance, pos = _cstr(buf, pos)
        meta, pos = _cbytes(buf, pos)
        members.append((mid, instance, meta))
        pos += 1
    return (throttle, error, generation, ptype, pname, leader, skip, member_id, tuple(members))


def encode_join_group_response_v9(m: tuple) -> bytes:
    throttle, error, generation, ptype, pname, leader, skip, member_id, members = m
    parts = [
        IHI.pack(throttle, error, generation),
        _w_cstr(ptype),
        _w_cstr(pname),
        _w_cstr(leader),
        b"\x01" if skip else b"\x00",
        _w_cstr(member_id),
        _w_uv(len(members) + 1),
    ]
    for mid, instance, meta in members:
        parts.append(_w_cstr(mid))
        parts.append(_w_cstr(instance))
        _w_cbytes_into(parts, meta)
        parts.append(b"\x00")
    parts.append(b"\x00")
    return b"".join(parts)


# --- SyncGroup -----------------------------------------------------------------------------------------------


def decode_sync_group_request_v3(buf: bytes) -> tuple:
    group_id, pos = _str(buf, 0)
    (generation,) = I.unpack_from(buf, pos)
    member_id, pos = _str(buf, pos + 4)
    instance, pos = _str(buf, pos)
    (n,) = I.unpack_from(buf, pos)
    pos += 4
    assignments = []
    h, i = H.unpack_from, I.unpack_from
    for _ in range(n):
        (k,) = h(buf, pos)
        pos += 2
        mid = buf[pos : pos + k].decode("utf-8")
        pos += k
        (k,) = i(buf, pos)
        pos += 4
        assignments.append((mid, buf[pos : pos + k]))
        pos += k
    return (group_id, generation, member_id, instance, tuple(assignments))


def encode_sync_group_request_v3(m: tuple) -> bytes:
    group_id, generation, member_id, instance, assignments = m
    parts = [_w_str(group_id), I.pack(generation), _w_str(member_id), _w_str(instance), I.pack(len(assignments))]
    for mid, data in assignments:
        parts.append(_w_str(mid))
        _w_bytes_into(parts, data)
    return b"".join(parts)


def decode_sync_group_request_v5(buf: bytes) -> tuple:
    group_id, pos = _cstr(buf, 0)
    (generation,) = I.unpack_from(buf, pos)
    member_id, pos = _cstr(buf, pos + 4)
    instance, pos = _cstr(buf, pos)
    ptype, pos = _cstr(buf, pos)
    pname, pos = _cstr(buf, pos)
    n, pos = _uv(buf, pos)
    assignments = []
    for _ in range(n - 1):
        mid, pos = _cstr(buf, pos)
        data, pos = _cbytes(buf, pos)
        assignments.append((mid, data))
        pos += 1
    return (group_id, generation, member_id, instance, ptype, pname, tuple(assignments))


def encode_sync_group_request_v5(m: tuple) -> bytes:
    group_id, generation, member_id, instance, ptype, pname, assignments = m
    parts = [
        _w_cstr(group_id),
        I.pack(generation),
        _w_cstr(member_id),
        _w_cstr(instance),
        _w_cstr(ptype),
        _w_cstr(pname),
        _w_uv(len(assignments) + 1),
    ]
    for mid, data in assignments:
        parts.append(_w_cstr(mid))
        _w_cbytes_into(parts, data)
        parts.append(b"\x00")
    parts.append(b"\x00")
    return b"".join(parts)


def decode_sync_group_response_v3(buf: bytes) -> tuple:
    throttle, error, n = IHI.unpack_from(buf, 0)
    return (throttle, error, buf[10 : 10 + n])


def encode_sync_group_response_v3(m: tuple) -> bytes:
    return b"".join((IHI.pack(m[0], m[1], len(m[2])), m[2]))


def decode_sync_group_response_v5(buf: bytes) -> tuple:
    throttle, error = struct.unpack_from(">ih", buf, 0)
    ptype, pos = _cstr(buf, 6)
    pname, pos = _cstr(buf, pos)
    data, pos = _cbytes(buf, pos)
    return (throttle, error, ptype, pname, data)


def encode_sync_group_response_v5(m: tuple) -> bytes:
    throttle, error, ptype, pname, data = m
    parts = [struct.pack(">ih", throttle, error), _w_cstr(ptype), _w_cstr(pname)]
    _w_cbytes_into(parts, data)
    parts.append(b"\x00")
    return b"".join(parts)


# --- ConsumerProtocol v3 (behind its int16 version) -----------------------------------------------------------


def _topic_partitions(buf: bytes, pos: int):
    (n,) = I.unpack_from(buf, pos)
    pos += 4
    out = []
    for _ in range(n):
        topic, pos = _str(buf, pos)
        (k,) = I.unpack_from(buf, pos)
        pos += 4
        out.append((topic, struct.unpack_from(f">{k}i", buf, pos)))
        pos += 4 * k
    return tuple(out), pos


def _w_topic_partitions(items) -> list[bytes]:
    parts = [I.pack(len(items))]
    for topic, partitions in items:
        parts.append(_w_str(topic))
        parts.append(struct.pack(f">i{len(partitions)}i", len(partitions), *partitions))
    return parts


def decode_consumer_subscription_v3(buf: bytes) -> tuple:
    (n,) = I.unpack_from(buf, 2)
    pos = 6
    topics = []
    for _ in range(n):
        t, pos = _str(buf, pos)
        topics.append(t)
    user_data, pos = _bytes(buf, pos)
    owned, pos = _topic_partitions(buf, pos)
    (generation,) = I.unpack_from(buf, pos)
    rack, pos = _str(buf, pos + 4)
    return (tuple(topics), user_data, owned, generation, rack)


def encode_consumer_subscription_v3(m: tuple) -> bytes:
    topics, user_data, owned, generation, rack = m
    parts = [b"\x00\x03", I.pack(len(topics)), *[_w_str(t) for t in topics]]
    _w_bytes_into(parts, user_data)
    parts += _w_topic_partitions(owned)
    parts.append(I.pack(generation))
    parts.append(_w_str(rack))
    return b"".join(parts)


def decode_consumer_assignment_v3(buf: bytes) -> tuple:
    assigned, pos = _topic_partitions(buf, 2)
    user_data, pos = _bytes(buf, pos)
    return (assigned, user_data)


def encode_consumer_assignment_v3(m: tuple) -> bytes:
    parts = [b"\x00\x03", *_w_topic_partitions(m[0])]
    _w_bytes_into(parts, m[1])
    return b"".join(parts)


# --- SubscriptionInfo ----------------------------------------------------------------------------------------


def decode_subscription_v7(buf: bytes) -> tuple:
    version, lsv = II.unpack_from(buf, 0)
    process_id = uuid.UUID(bytes=buf[8:24])
    (n,) = I.unpack_from(buf, 24)
    pos = 28 + n
    endpoint = buf[28:pos].decode("utf-8") if n else None
    (groups,) = I.unpack_from(buf, pos)
    pos += 4
    sums = {}
    for _ in range(groups):
        group, k = II.unpack_from(buf, pos)
        pos += 8
        end = pos + 12 * k
        for partition, offset_sum in IQ.iter_unpack(buf[pos:end]):
            sums[(group, partition, None)] = offset_sum
        pos = end
    return (version, lsv, process_id, endpoint, sums)


def encode_subscription_v7(m: tuple) -> bytes:
    version, lsv, process_id, endpoint, sums = m
    raw = (endpoint or "").encode("utf-8")
    groups: dict[int, list] = {}
    for (g, p, _), s in sums.items():
        if g in groups:
            groups[g] += (p, s)
        else:
            groups[g] = [p, s]
    parts = [II.pack(version, lsv), process_id.bytes, I.pack(len(raw)), raw, I.pack(len(groups))]
    for g, ps in groups.items():
        parts.append(II.pack(g, len(ps) // 2))
        parts.append(struct.pack(">" + "iq" * (len(ps) // 2), *ps))
    return b"".join(parts)


def decode_subscription_v11(buf: bytes) -> tuple:
    version, lsv = II.unpack_from(buf, 0)
    process_id = uuid.UUID(bytes=buf[8:24])
    (n,) = I.unpack_from(buf, 24)
    pos = 28 + n
    endpoint = buf[28:pos].decode("utf-8") if n else None
    (n,) = I.unpack_from(buf, pos)
    pos += 4
    sums = {}
    unpack = IIQH.unpack_from
    for _ in range(n):  # the hot loop, inlined
        g, p, s, k = unpack(buf, pos)
        pos += 18
        if k < 0:
            sums[(g, p, None)] = s
        else:
            sums[(g, p, buf[pos : pos + k].decode("utf-8") or None)] = s
            pos += k
    (unique,) = B.unpack_from(buf, pos)
    (error, n) = II.unpack_from(buf, pos + 1)
    pos += 9
    tags = {}
    for _ in range(n):
        key, pos = _bytes(buf, pos)
        value, pos = _bytes(buf, pos)
        tags[key.decode("utf-8")] = value.decode("utf-8")
    return (version, lsv, process_id, endpoint, sums, unique, error, tags)


def encode_subscription_v11(m: tuple) -> bytes:
    version, lsv, process_id, endpoint, sums, unique, error, tags = m
    raw = (endpoint or "").encode("utf-8")
    parts = [II.pack(version, lsv), process_id.bytes, I.pack(len(raw)), raw, I.pack(len(sums))]
    pack = IIQH.pack
    for (g, p, name), s in sums.items():
        if name is None:
            parts.append(pack(g, p, s, -1))
        else:
            b = name.encode("utf-8")
            parts.append(pack(g, p, s, len(b)))
            parts.append(b)
    parts.append(B.pack(unique))
    parts.append(II.pack(error, len(tags)))
    for k, v in tags.items():
        parts.append(_w_bytes(k.encode("utf-8")))
        parts.append(_w_bytes(v.encode("utf-8")))
    return b"".join(parts)


# --- AssignmentInfo ----------------------------------------------------------------------------------------


def _chars(buf: bytes, pos: int):
    (n,) = I.unpack_from(buf, pos)
    pos += 4
    if n <= 0:
        return None, pos
    return buf[pos : pos + 2 * n].decode("utf-16-be", "surrogatepass"), pos + 2 * n


def _w_chars(s) -> bytes:
    if not s:
        return b"\x00\x00\x00\x00"
    raw = s.encode("utf-16-be", "surrogatepass")
    return I.pack(len(raw) // 2) + raw


def _decode_assignment(buf: bytes, named: bool) -> tuple:
    version, common, n = III.unpack_from(buf, 0)
    pos = 12
    if named:
        active = []
        for _ in range(n):
            s, p = II.unpack_from(buf, pos)
            name, pos = _chars(buf, pos + 8)
            active.append((s, p, name))
        active = tuple(active)
    else:
        active = tuple((s, p, None) for s, p in II.iter_unpack(buf[pos : pos + 8 * n]))
        pos += 8 * n
    (n,) = I.unpack_from(buf, pos)
    pos += 4
    standby = {}
    for _ in range(n):
        s, p = II.unpack_from(buf, pos)
        pos += 8
        name = None
        if named:
            name, pos = _chars(buf, pos)
        (k,) = I.unpack_from(buf, pos)
        pos += 4
        parts = []
        for _ in range(k):
            topic, pos = _utf(buf, pos)
            (partition,) = I.unpack_from(buf, pos)
            pos += 4
            parts.append((topic, partition))
        standby[(s, p, name)] = tuple(parts)
    (n,) = I.unpack_from(buf, pos)
    pos += 4
    dictionary = {}
    for _ in range(n):
        (index,) = I.unpack_from(buf, pos)
        dictionary[index], pos = _utf(buf, pos + 4)

    def host_map(pos):
        (n,) = I.unpack_from(buf, pos)
        pos += 4
        out = {}
        for _ in range(n):
            host, pos = _utf(buf, pos)
            port, k = II.unpack_from(buf, pos)
            pos += 8
            end = pos + 8 * k
            out[(host, port)] = tuple((dictionary[i], p) for i, p in II.iter_unpack(buf[pos:end]))
            pos = end
        return out, pos

    by_host, pos = host_map(pos)
    standby_by_host, pos = host_map(pos)
    error, next_ms = IQ.unpack_from(buf, pos)
    return (version, common, active, standby, by_host, standby_by_host, error, next_ms)


def decode_assignment_v7(buf: bytes) -> tuple:
    return _decode_assignment(buf, False)


def decode_assignment_v11(buf: bytes) -> tuple:
    return _decode_assignment(buf, True)


def _encode_assignment(m: tuple, named: bool) -> bytes:
    version, common, active, standby, by_host, standby_by_host, error, next_ms = m
    parts = [III.pack(version, common, len(active))]
    if named:
        for s, p, name in active:
            parts.append(II.pack(s, p))
            parts.append(_w_chars(name))
    else:
        parts.append(struct.pack(">" + "ii" * len(active), *[x for s, p, _ in active for x in (s, p)]))
    parts.append(I.pack(len(standby)))
    for (s, p, name), ps in standby.items():
        parts.append(II.pack(s, p))
        if named:
            parts.append(_w_chars(name))
        parts.append(I.pack(len(ps)))
        for topic, partition in ps:
            parts.append(_w_utf(topic))
            parts.append(I.pack(partition))
    index: dict[str, int] = {}
    for hosts in (by_host, standby_by_host):
        for ps in hosts.values():
            for topic, _ in ps:
                index.setdefault(topic, len(index))
    parts.append(I.pack(len(index)))
    for topic, i in index.items():
        parts.append(I.pack(i))
        parts.append(_w_utf(topic))
    for hosts in (by_host, standby_by_host):
        parts.append(I.pack(len(hosts)))
        for (host, port), ps in hosts.items():
            parts.append(_w_utf(host))
            parts.append(II.pack(port, len(ps)))
            parts.append(struct.pack(">" + "ii" * len(ps), *[x for t, p in ps for x in (index[t], p)]))
    parts.append(IQ.pack(error, next_ms))
    return b"".join(parts)


def encode_assignment_v7(m: tuple) -> bytes:
    return _encode_assignment(m, False)


def encode_assignment_v11(m: tuple) -> bytes:
    return _encode_assignment(m, True)


#: (message, version) -> (decode, encode)
FLOOR = {
    ("JoinGroupRequest", 5): (decode_join_group_request_v5, encode_join_group_request_v5),
    ("JoinGroupRequest", 9): (decode_join_group_request_v9, encode_join_group_request_v9),
    ("JoinGroupResponse", 5): (decode_join_group_response_v5, encode_join_group_response_v5),
    ("JoinGroupResponse", 9): (decode_join_group_response_v9, encode_join_group_response_v9),
    ("SyncGroupRequest", 3): (decode_sync_group_request_v3, encode_sync_group_request_v3),
    ("SyncGroupRequest", 5): (decode_sync_group_request_v5, encode_sync_group_request_v5),
    ("SyncGroupResponse", 3): (decode_sync_group_response_v3, encode_sync_group_response_v3),
    ("SyncGroupResponse", 5): (decode_sync_group_response_v5, encode_sync_group_response_v5),
    ("ConsumerProtocolSubscription", 3): (decode_consumer_subscription_v3, encode_consumer_subscription_v3),
    ("ConsumerProtocolAssignment", 3): (decode_consumer_assignment_v3, encode_consumer_assignment_v3),
    ("SubscriptionInfo", 7): (decode_subscription_v7, encode_subscription_v7),
    ("SubscriptionInfo", 11): (decode_subscription_v11, encode_subscription_v11),
    ("AssignmentInfo", 7): (decode_assignment_v7, encode_assignment_v7),
    ("AssignmentInfo", 11): (decode_assignment_v11, encode_assignment_v11),
}
