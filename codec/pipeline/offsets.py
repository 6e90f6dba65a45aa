"""``__consumer_offsets`` group-metadata records: the key and the GroupMetadataValue.

A small hand-written reader, apart from the schema tables (which the capture reader and the
``group-metadata-key``/``-value`` kinds use), of Kafka's ``GroupMetadataKey`` / ``GroupMetadataValue``
(``group-coordinator`` message specs), classic encoding for value versions 0-3 and flexible (compact strings,
tagged fields) for 4:

* key: int16 key version (0 and 1 are offset commits, 2 is group metadata), then ``group`` string;
* value: int16 version, ``protocolType`` string, ``generation`` int32, ``protocol`` nullable string,
  ``leader`` nullable string, ``currentStateTimestamp`` int64 (v2+), ``members`` array of
  {``memberId``, ``groupInstanceId`` (v3+, nullable), ``clientId``, ``clientHost``,
  ``rebalanceTimeout`` int32 (v1+), ``sessionTimeout`` int32, ``subscription`` bytes,
  ``assignment`` bytes}.

Checked against Kafka's bytes: ``tests/conformance/test_classic_records.py`` reads and writes back every
GroupMetadataValue (v0-4) of ``vectors/kafka-java-offsets.jsonl``, which Kafka's generated classes wrote. Errors
are :class:`~codec.errors.DecodeError` with offset and field path, like every other decoder.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Literal, overload

from ..errors import DecodeError, TruncatedError, UnsupportedVersionError

__all__ = [
    "GroupMetadata",
    "MemberMetadata",
    "group_metadata_key",
    "decode_group_metadata",
    "encode_group_metadata",
    "GROUP_METADATA_KEY_VERSION",
]

GROUP_METADATA_KEY_VERSION = 2
VALUE = "GroupMetadataValue"
KEY = "GroupMetadataKey"


@dataclass(frozen=True, slots=True)
class MemberMetadata:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout: int
    session_timeout: int
    subscription: bytes
    assignment: bytes


@dataclass(frozen=True, slots=True)
class GroupMetadata:
    version: int
    protocol_type: str
    generation: int
    protocol: str | None
    leader: str | None
    current_state_timestamp: int
    members: tuple[MemberMetadata, ...]


class _Reader:
    __slots__ = ("data", "pos", "message", "version", "flexible")

    def __init__(self, data: bytes, message: str, version: int | None = None) -> None:
        self.data, self.pos, self.message, self.version, self.flexible = data, 0, message, version, False

    def _need(self, n: int, path: str) -> None:
        have = len(self.data) - self.pos
        if have < n:
            raise TruncatedError(
                f"truncated (need {n}, have {have})",
                message=self.message,
                version=self.version,
                offset=self.pos,
                path=path,
            )

    def fixed(self, fmt: str, n: int, path: str) -> int:
        self._need(n, path)
        (v,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += n
        return v

    def uvarint(self, path: str) -> int:
        start, shift, value = self.pos, 0, 0
        while True:
            self._need(1, path)
            b = self.data[self.pos]
            self.pos += 1
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
            if shift > 28:
                raise DecodeError(
                    "varint longer than 5 bytes", message=self.message, version=self.version, offset=start, path=path
                )

    def _len(self, path: str, *, int32: bool = False) -> int:
        if self.flexible:
            return self.uvarint(path) - 1
        return self.fixed(">i", 4, path) if int32 else self.fixed(">h", 2, path)

    def raw(self, n: int, path: str) -> bytes:
        self._need(n, path)
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    @overload
    def string(self, path: str, *, nullable: Literal[False] = False) -> str: ...
    @overload
    def string(self, path: str, *, nullable: bool) -> str | None: ...

    def string(self, path: str, *, nullable: bool = False) -> str | None:
        start = self.pos
        n = self._len(path)
        if n < 0:
            if nullable:
                return None
            raise DecodeError(
                f"null string in a non-nullable field (length {n})",
                message=self.message,
                version=self.version,
                offset=start,
                path=path,
            )
        raw = self.raw(n, path)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise DecodeError(
                f"invalid UTF-8 ({e.reason})", message=self.message, version=self.version, offset=start, path=path
            ) from None

    def bytes_(self, path: str) -> bytes:
        start = self.pos
        n = self._len(path, int32=True)
        if n < 0:
            raise DecodeError(
                f"null bytes in a non-nullable field (length {n})",
                message=self.message,
                version=self.version,
                offset=start,
                path=path,
            )
        return self.raw(n, path)

    def count(self, path: str) -> int:
        start = self.pos
        n = self._len(path, int32=True)
        if n < 0 or n > len(self.data) - self.pos:
            raise DecodeError(
                f"array count {n} is negative or exceeds the {len(self.data) - self.pos} bytes left",
                message=self.message,
                version=self.version,
                offset=start,
                path=path,
            )
        return n

    def tagged(self, path: str) -> None:
        if not self.flexible:
            return
        for _ in range(self.uvarint(path + "._tagged_fields")):
            self.uvarint(path + "._tagged_fields.tag")
            self.raw(self.uvarint(path + "._tagged_fields.size"), path + "._tagged_fields.value")


def group_metadata_key(key: bytes) -> tuple[int, str | None]:
    """``(key version, group id)``: the group only for key version 2 (group metadata)."""
    r = _Reader(bytes(key), KEY)
    version = r.fixed(">h", 2, "version")
    if version != GROUP_METADATA_KEY_VERSION:
        return version, None
    r.version = version
    return version, r.string("group")


def decode_group_metadata(value: bytes) -> GroupMetadata:
    r = _Reader(bytes(value), VALUE)
    version = r.fixed(">h", 2, "version")
    if not 0 <= version <= 4:
        raise UnsupportedVersionError(
            f"unsupported version {version} (0-4 exist)", message=VALUE, offset=0, path="version"
        )
    r.version, r.flexible = version, version >= 4
    protocol_type = r.string("protocol_type")
    generation = r.fixed(">i", 4, "generation")
    protocol = r.string("protocol", nullable=True)
    leader = r.string("leader", nullable=True)
    ts = r.fixed(">q", 8, "current_state_timestamp") if version >= 2 else -1
    members = []
    for i in range(r.count("members")):
        p = f"members[{i}]"
        member_id = r.string(p + ".member_id")
        instance = r.string(p + ".group_instance_id", nullable=True) if version >= 3 else None
        client_id = r.string(p + ".client_id")
        client_host = r.string(p + ".client_host")
        rebalance_timeout = r.fixed(">i", 4, p + ".rebalance_timeout") if version >= 1 else -1
        session_timeout = r.fixed(">i", 4, p + ".session_timeout")
        subscription = r.bytes_(p + ".subscription")
        assignment = r.bytes_(p + ".assignment")
        r.tagged(p)
        members.append(
            MemberMetadata(
                member_id,
                instance,
                client_id,
                client_host,
                rebalance_timeout,
                session_timeout,
                subscription,
                assignment,
            )
        )
    r.tagged("")
    return GroupMetadata(version, protocol_type, generation, protocol, leader, ts, tuple(members))


def _w_str(s: str | None, flexible: bool) -> bytes:
    if s is None:
        return b"\x00" if flexible else struct.pack(">h", -1)
    raw = s.encode("utf-8")
    return (_uvarint(len(raw) + 1) if flexible else struct.pack(">h", len(raw))) + raw


def _w_bytes(b: bytes, flexible: bool) -> bytes:
    return (_uvarint(len(b) + 1) if flexible else struct.pack(">i", len(b))) + b


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        if n < 0x80:
            out.append(n)
            return bytes(out)
        out.append((n & 0x7F) | 0x80)
        n >>= 7


def encode_group_metadata(g: GroupMetadata) -> bytes:
    """Inverse of :func:`decode_group_metadata` (for samples and tests): the value bytes; the key is
    :func:`encode_group_metadata_key`."""
    v, fx = g.version, g.version >= 4
    out = [
        struct.pack(">h", v),
        _w_str(g.protocol_type, fx),
        struct.pack(">i", g.generation),
        _w_str(g.protocol, fx),
        _w_str(g.leader, fx),
    ]
    if v >= 2:
        out.append(struct.pack(">q", g.current_state_timestamp))
    out.append(_uvarint(len(g.members) + 1) if fx else struct.pack(">i", len(g.members)))
    for m in g.members:
        out.append(_w_str(m.member_id, fx))
        if v >= 3:
            out.append(_w_str(m.group_instance_id, fx))
        out += [_w_str(m.client_id, fx), _w_str(m.client_host, fx)]
        if v >= 1:
            out.append(struct.pack(">i", m.rebalance_timeout))
        out += [struct.pack(">i", m.session_timeout), _w_bytes(m.subscription, fx), _w_bytes(m.assignment, fx)]
        if fx:
            out.append(b"\x00")
    if fx:
        out.append(b"\x00")
    return b"".join(out)


def encode_group_metadata_key(group: str) -> bytes:
    return struct.pack(">h", GROUP_METADATA_KEY_VERSION) + _w_str(group, False)
