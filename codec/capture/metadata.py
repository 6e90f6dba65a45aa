"""Topic names from Metadata responses (api key 3), so that a capture's topic ids can be named.

KIP-848 and KIP-1071 assignments name topics by id. A client learns the names from Metadata responses,
which carry both from version 10 on (Kafka's MetadataResponse.json: flexible from v9, ``TopicId`` from v10,
``Name`` nullable from v12). :func:`topic_names` reads a response body only as far as its topics (the
brokers, cluster id and controller id before them are skipped; nothing after them is needed) and returns
``{topic id in Kafka's short form: name}``. It raises :class:`~codec.errors.DecodeError` on bytes that do not
fit; the story then simply names no topic from that frame.
"""

from __future__ import annotations

import base64
import struct

from ..errors import DecodeError, TruncatedError
from ..wire.primitives import uvarint_bytes

__all__ = ["METADATA", "metadata_response_v12", "topic_names"]

METADATA = 3
_I16, _I32 = struct.Struct(">h"), struct.Struct(">i")


class _Reader:
    def __init__(self, data: bytes, start: int) -> None:
        self.data, self.at = data, start

    def take(self, n: int, path: str) -> bytes:
        if n < 0 or self.at + n > len(self.data):
            raise TruncatedError(
                f"truncated (need {n}, have {len(self.data) - self.at})",
                message="MetadataResponse",
                offset=self.at,
                path=path,
            )
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def uvarint(self, path: str) -> int:
        value = shift = 0
        for _ in range(5):
            (b,) = self.take(1, path)
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
        raise DecodeError("varint longer than 5 bytes", message="MetadataResponse", offset=self.at, path=path)

    def i32(self, path: str) -> int:
        return _I32.unpack(self.take(4, path))[0]

    def string(self, path: str) -> str | None:
        n = self.uvarint(path)
        return None if n == 0 else self.take(n - 1, path).decode("utf-8", "replace")

    def count(self, path: str) -> int:
        n = self.uvarint(path) - 1
        if n > len(self.data) - self.at:
            raise DecodeError(
                f"array of {n} items in {len(self.data) - self.at} bytes",
                message="MetadataResponse",
                offset=self.at,
                path=path,
            )
        return max(n, 0)

    def tagged(self, path: str) -> None:
        for _ in range(self.uvarint(path)):
            self.uvarint(path)
            self.take(self.uvarint(path), path)


def topic_names(body: bytes, version: int) -> dict[str, str]:
    """``{topic id: name}`` of a MetadataResponse body at ``version`` (10 and up; an older one names no id)."""
    if version < 10:
        return {}
    r = _Reader(bytes(body), 0)
    r.take(4, "throttle_time_ms")
    for i in range(r.count("brokers")):
        p = f"brokers[{i}]"
        r.take(4, f"{p}.node_id")
        r.string(f"{p}.host")
        r.take(4, f"{p}.port")
        r.string(f"{p}.rack")
        r.tagged(f"{p}._tagged_fields")
    r.string("cluster_id")
    r.take(4, "controller_id")
    out = {}
    for i in range(r.count("topics")):
        p = f"topics[{i}]"
        r.take(2, f"{p}.error_code")
        name = r.string(f"{p}.name")
        topic_id = r.take(16, f"{p}.topic_id")
        r.take(1, f"{p}.is_internal")
        for j in range(r.count(f"{p}.partitions")):
            q = f"{p}.partitions[{j}]"
            r.take(14, f"{q}.error_code")  # error code, index, leader, leader epoch
            for arr in ("replica_nodes", "isr_nodes", "offline_replicas"):
                r.take(4 * r.count(f"{q}.{arr}"), f"{q}.{arr}")
            r.tagged(f"{q}._tagged_fields")
        r.take(4, f"{p}.topic_authorized_operations")
        r.tagged(f"{p}._tagged_fields")
        if name and topic_id != bytes(16):
            out[base64.urlsafe_b64encode(topic_id).decode("ascii").rstrip("=")] = name
    return out


def metadata_response_v12(
    topics: dict[str, tuple[bytes, int]], *, broker: tuple[str, int] = ("10.0.0.100", 9092)
) -> bytes:
    """A MetadataResponse v12 body naming ``topics`` (name -> (16-byte id, partition count)), one broker (id 1)
    leading every partition; for scripted captures."""

    def s(text: str | None) -> bytes:
        return b"\x00" if text is None else uvarint_bytes(len(text.encode()) + 1) + text.encode()

    out = _I32.pack(0) + uvarint_bytes(2) + _I32.pack(1) + s(broker[0]) + _I32.pack(broker[1]) + s(None) + b"\x00"
    out += s("cluster") + _I32.pack(1) + uvarint_bytes(len(topics) + 1)
    for name, (tid, n) in topics.items():
        out += _I16.pack(0) + s(name) + tid + b"\x00" + uvarint_bytes(n + 1)
        for p in range(n):
            out += _I16.pack(0) + _I32.pack(p) + _I32.pack(1) + _I32.pack(0)
            out += bytes([2]) + _I32.pack(1) + bytes([2]) + _I32.pack(1) + bytes([1]) + b"\x00"
        out += _I32.pack(-2147483648) + b"\x00"
    return out + b"\x00"
