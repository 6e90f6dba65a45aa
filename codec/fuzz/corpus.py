"""The fuzz seeds: inputs for every target of :func:`codec.fuzz.decoders.targets`.

They come from the golden vectors (``vectors/``), Kafka's own vectors, kio's and the real clients' captures from
the shared folder (:func:`shared_dir`), and, where no vector exists (Heartbeat and LeaveGroup bodies, headers,
most response frames, log segments), messages built with the project's encoders from values written out here.
Each :class:`Seed` says whether its target accepts it and whether re-encoding reproduces it byte for byte."""

from __future__ import annotations

import functools
import gzip
import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..kafka4.common import MESSAGES as KAFKA4_MESSAGES
from ..kafka4.common import RECORDS as KAFKA4_RECORDS
from ..shared import DEFAULT_SHARED, Shared, resolve_shared, shared_dir
from ..wire.registry import record_types, request_header_version, response_header_version
from .decoders import CONNECT_READERS

# the share coordinator's record parts (its own record types: __share_group_state), seeded as whole records
SHARE_COORDINATOR_RECORDS = frozenset(p for r in record_types("share").values() for p in (r.key, r.value))

__all__ = ["Seed", "shared_dir", "seed_corpus", "seeds"]


@dataclass(frozen=True)
class Seed:
    """One input for a target, and what is known about it.

    ``accepted``: True when the target decodes it (a valid vector, a real client's frame, a message built by
    the encoder), False when it must reject it with a DecodeError (an invalid vector), None when either is
    right (an ``acceptable`` vector, a frame its capture marks unusable, another protocol's bytes).
    ``canonical``: encoding the Kafka-style decode reproduces the bytes (the vector says ``canonical``, or the
    encoder wrote them)."""

    data: bytes
    origin: str
    accepted: bool | None = True
    canonical: bool = False


class _Corpus:
    def __init__(self) -> None:
        self.by_target: dict[str, list[Seed]] = {}
        self._seen: set[tuple[str, bytes]] = set()

    def add(self, target: str, data: bytes, origin: str, accepted: bool | None = True, canonical: bool = False) -> None:
        if (target, data) in self._seen:
            return
        self._seen.add((target, data))
        self.by_target.setdefault(target, []).append(Seed(bytes(data), origin, accepted, canonical))

    def data(self, target: str) -> list[bytes]:
        return [s.data for s in self.by_target.get(target, [])]


# Kafka's message JSON ("flexibleVersions"): JoinGroup 6+, Heartbeat, LeaveGroup and SyncGroup 4+; a
# flexible request has header v2, a flexible response header v1. Written out here, not taken from
# the registry (codec.wire.registry), so that a seed assembled with them checks the decoder rather than agreeing with it.
_FLEXIBLE_FROM = {11: 6, 12: 4, 13: 4, 14: 4}


@functools.cache
def _kind_targets() -> tuple[dict[str, str], dict[str, str], dict[int, str]]:
    """(message -> the target named as its kind, message -> the kind whose targets are one per Connect reader, API key
    -> name of the classic group APIs), from the kinds' registry and the fuzzer's targets."""
    from ..group.messages import MESSAGES as GROUP_MESSAGES
    from ..catalog import kinds
    from ..wire.registry import apis
    from .decoders import targets

    names = set(targets())
    by_kind = {k.message: k.name for k in kinds() if k.message is not None and k.name in names}
    by_reader = {k.message: k.name for k in kinds() if k.message is not None and f"{k.name}/r0" in names}
    group = {key: api.name for key, api in apis().items() if api.request in GROUP_MESSAGES}
    return by_kind, by_reader, group


def _rpc_bodies(by_kind: dict[str, str]) -> dict[str, tuple[int, str]]:
    """Message -> (API key, "request"/"response") of every RPC body without a target of its own (Kafka 4's group
    RPCs, the RPCs added at Kafka 4.4: their seeds go inside frames); the classic group's have theirs."""
    from ..group.messages import MESSAGES as GROUP_MESSAGES
    from ..wire.registry import apis

    out = {m: v for m, v in KAFKA4_MESSAGES.items() if m not in by_kind}
    for key, api in apis().items():
        for m, side in ((api.request, "request"), (api.response, "response")):
            if m is not None and m not in GROUP_MESSAGES and m not in by_kind:
                out.setdefault(m, (key, side))
    return out


# The other part of a classic __consumer_offsets record whose key or value is a vector's, assembled here field by
# field (kafka-wire-facts.md): a GroupMetadataKey (type 2) of group "g" and a GroupMetadataValue v0 of an empty group
# ("" protocol type, generation 0, null protocol and leader, no members); an OffsetCommitKey (type 1) of g/t/0 and an
# OffsetCommitValue v0 (offset 0, "" metadata, commit timestamp 0).
_OTHER_PART = {
    "GroupMetadataKey": b"\x00\x00" + b"\x00\x00" + bytes(4) + b"\xff\xff\xff\xff" + bytes(4),
    "GroupMetadataValue": b"\x00\x02\x00\x01g",
    "OffsetCommitKey": b"\x00\x00" + bytes(8) + b"\x00\x00" + bytes(8),
    "OffsetCommitValue": b"\x00\x01\x00\x01g\x00\x01t" + bytes(4),
}


def _classic_record(message: str, wire: bytes) -> bytes:
    """The ``offsets-key-value`` input ([uint16 key length][key][value]) of a classic record part's bytes."""
    key, value = (wire, _OTHER_PART[message]) if message.endswith("Key") else (_OTHER_PART[message], wire)
    return len(key).to_bytes(2, "big") + key + value


def _connect_target(message: str, reader: int) -> str:
    """The target of a Connect message read at ``reader`` (a vector's ``version``: 0, 1 or 2)."""
    return f"{_kind_targets()[1][message]}/r{min(reader, 1)}"


def _request_header(key: int, version: int, correlation_id: int, client_id: str | None) -> bytes:
    """Request header v1 (v2 when the API version is flexible): int16 key, int16 version, int32 correlation
    id, int16-length client id (-1: null), and for v2 an empty tagged-field section."""
    cid = b"\xff\xff" if client_id is None else struct.pack(">h", len(client_id.encode())) + client_id.encode()
    head = struct.pack(">hhi", key, version, correlation_id) + cid
    return head + (b"\x00" if version >= _FLEXIBLE_FROM.get(key, 1 << 15) else b"")


def _response_header(key: int, version: int, correlation_id: int) -> bytes:
    """Response header v0 (int32 correlation id), v1 when flexible (plus an empty tagged-field section)."""
    return struct.pack(">i", correlation_id) + (b"\x00" if version >= _FLEXIBLE_FROM.get(key, 1 << 15) else b"")


def _request_header_length(wire: bytes, header_version: int) -> int:
    """Where the body of a request frame starts, read from the header's own layout (header v1/v2)."""
    n = struct.unpack_from(">h", wire, 8)[0]
    pos = 10 + max(n, 0)
    return _tagged_end(wire, pos) if header_version >= 2 else pos


def _response_header_length(wire: bytes, header_version: int) -> int:
    """Where the body of a response frame starts (header v0: the correlation id; v1: and its tagged fields)."""
    return _tagged_end(wire, 4) if header_version >= 1 else 4


def _tagged_end(wire: bytes, pos: int) -> int:
    """The end of the tagged-field section at ``pos``: uvarint count, then (uvarint tag, uvarint size, bytes)*."""

    def uvarint() -> int:
        nonlocal pos
        shift = value = 0
        while True:
            b = wire[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            if b < 0x80:
                return value
            shift += 7

    for _ in range(uvarint()):
        uvarint()  # the tag
        size = uvarint()
        pos += size
    return pos


def _from_vectors(c: _Corpus) -> None:
    """Every vector with bytes; a request frame's header and body also seed the header and body targets."""
    from ..conformance.vectors import DECODE_ONLY
    from ..conformance.vectors import load_vectors

    records: dict[str, dict[str, list[tuple[bytes, str, bool | None]]]] = {}
    share: dict[str, list[tuple[bytes, str, bool | None]]] = {}
    by_kind, by_reader, group_api = _kind_targets()
    rpc_bodies = _rpc_bodies(by_kind)
    for v in load_vectors():
        if "wire" not in v:
            continue
        wire = bytes.fromhex(v["wire"])
        msg, version = v["message"], v.get("version")
        accepted = {"valid": True, "invalid": False}.get(v["result"])
        canonical = bool(v["result"] == "valid" and v.get("canonical") and not DECODE_ONLY & set(v.get("flags", ())))
        origin = f"vectors/{v['_file']} {v['id']}"
        if msg in by_kind:
            c.add(by_kind[msg], wire, origin, accepted, canonical)
        elif msg in by_reader:  # a Connect vector's version is the reader's (conformance/importer.py)
            c.add(_connect_target(msg, v["version"]), wire, origin, accepted, canonical)
        elif msg == "ResponseFrame":
            c.add(f"response-frame/{v['apiKey']}/v{version}", wire, origin, accepted, canonical)
        elif msg in rpc_bodies and version is not None:  # another RPC's body (Kafka 4's, 4.4's): inside its frame
            key, direction = rpc_bodies[msg]
            # the header its API version goes with (the registry's: v2/v1 where the version is flexible, else v1/v0)
            if direction == "request":
                tags = b"\x00" if request_header_version(key, version) >= 2 else b""
                c.add(
                    "request-frame",
                    struct.pack(">hhih", key, version, 7, 3) + b"k4v" + tags + wire,
                    f"{origin} in a request frame",
                    accepted,
                )
            else:
                tags = b"\x00" if response_header_version(key, version) >= 1 else b""
                c.add(
                    f"response-frame/{key}/v{version}",
                    struct.pack(">i", 7) + tags + wire,
                    f"{origin} in a response frame",
                    accepted,
                )
        elif msg in _OTHER_PART:  # a classic __consumer_offsets record part: a whole record, with the other part
            c.add("offsets-key-value", _classic_record(msg, wire), f"{origin} in a record", accepted)
        elif version is not None:
            c.add(f"{msg}/v{version}", wire, origin, accepted, canonical)
        elif msg in SHARE_COORDINATOR_RECORDS:  # a __share_group_state record part: with the other part's first
            share.setdefault(msg, []).append((wire, origin, accepted))
        elif msg.removesuffix("Key").removesuffix("Value") in KAFKA4_RECORDS:
            part = "Key" if msg.endswith("Key") else "Value"
            records.setdefault(msg.removesuffix(part), {}).setdefault(part, []).append((wire, origin, accepted))
        exp = v.get("expected")
        if not isinstance(exp, dict):
            exp = {}
        if v["result"] != "valid" or "headerVersion" not in exp:
            continue
        key, hv = exp["apiKey"], exp["headerVersion"]
        if msg == "RequestFrame":
            split = _request_header_length(wire, hv)
            c.add(f"RequestHeader/v{hv}", wire[:split], origin + " (header)")
            if key in group_api:
                c.add(f"{group_api[key]}Request/v{version}", wire[split:], origin + " (body)")
        elif msg == "ResponseFrame":
            split = _response_header_length(wire, hv)
            c.add(f"ResponseHeader/v{hv}", wire[:split], origin + " (header)")
            c.add(f"{group_api[key]}Response/v{version}", wire[split:], origin + " (body)")
    _kafka4_segments(c, records)
    _share_state_records(c, share)


def _share_state_records(c: _Corpus, share: dict[str, list[tuple[bytes, str, bool | None]]]) -> None:
    """The share coordinator's record parts (kafka-java-records44.jsonl and their cuts) as whole records of the
    ``share-state-record`` target: each value behind the first valid key of its record, each key before the first
    valid value."""
    for name in sorted({m.removesuffix("Key").removesuffix("Value") for m in share}):
        keys, values = share.get(name + "Key", []), share.get(name + "Value", [])
        key = next((w for w, _, ok in keys if ok), None)
        value = next((w for w, _, ok in values if ok), None)
        if key is not None:
            for w, origin, accepted in values:
                c.add("share-state-record", struct.pack(">H", len(key)) + key + w, f"{origin} behind its key", accepted)
        if value is not None:
            for w, origin, accepted in keys:
                c.add("share-state-record", struct.pack(">H", len(w)) + w + value, f"{origin} with a value", accepted)


def _kafka4_segments(c: _Corpus, records: dict[str, dict[str, list[tuple[bytes, str, bool | None]]]]) -> None:
    """Kafka 4's group records (the vectors of record keys and values: their tagged fields, nulls, cuts) reach the
    readers only inside a ``__consumer_offsets`` segment: every value vector of a record, valid or not, behind the
    record's first valid key, four records to a segment."""
    for name in sorted(records):
        key = next((w for w, _, ok in records[name].get("Key", ()) if ok), None)
        if key is None:
            continue
        values = records[name].get("Value", [])
        for i in range(0, len(values), 4):
            chunk = values[i : i + 4]
            c.add(
                "offsets-segment",
                _batch([(key, w) for w, _, _ in chunk], base_offset=i),
                f"{chunk[0][1]} (and {len(chunk) - 1} more {name} values) behind its key in a log segment",
            )


def _jsonl(path: Path) -> Iterator[dict]:
    if not path.is_file():
        return
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _from_kafka_java(c: _Corpus, shared: Path) -> None:
    """What the golden vectors do not import: the whole stacks of ``nested_streams.jsonl`` (Streams metadata
    inside ConsumerProtocol inside JoinGroup/SyncGroup) and Kafka Connect's worker metadata and assignments
    (another protocol's bytes in the same ConsumerProtocol slots: either outcome is right, never a crash; and
    every record's bytes for both Connect readers, where the golden vectors already hold most of them)."""
    src = shared / "vectors" / "kafka-java"
    for r in _jsonl(src / "nested_streams.jsonl"):
        origin = f"kafka-java/nested_streams.jsonl {r['id']}"
        for layer, target in (
            ("subscription", "subscription-info"),
            ("assignment", "assignment-info"),
            ("consumerProtocolSubscription", "consumer-subscription"),
            ("consumerProtocolAssignment", "consumer-assignment"),
            ("joinGroupRequest", None),
            ("syncGroupResponse", None),
        ):
            rec = r.get(layer)
            if not isinstance(rec, dict) or "error" in rec:
                continue
            wire = bytes.fromhex(rec.get("hexVersionPrefixed") or rec["hex"])
            target = target or f"{rec['kind']}/v{rec['version']}"
            c.add(target, wire, f"{origin} ({layer})")
        join, sync = r.get("joinGroupRequest"), r.get("syncGroupResponse")
        if isinstance(join, dict) and "hex" in join:
            v = join["version"]
            c.add(
                "request-frame",
                _request_header(11, v, 7, "streams-app") + bytes.fromhex(join["hex"]),
                f"{origin} (joinGroupRequest in a request frame)",
            )
        if isinstance(sync, dict) and "hex" in sync:
            v = sync["version"]
            c.add(
                f"response-frame/14/v{v}",
                _response_header(14, v, 8) + bytes.fromhex(sync["hex"]),
                f"{origin} (syncGroupResponse in a response frame)",
            )
    for r in _jsonl(src / "connect.jsonl"):
        if "hex" not in r or r.get("version", -1) < 0:
            continue
        target = "consumer-subscription" if r["kind"] == "ConnectMetadata" else "consumer-assignment"
        c.add(target, bytes.fromhex(r["hex"]), f"kafka-java/connect.jsonl {r['id']}", None)
    for r in _jsonl(src / "connect.jsonl"):
        message = "ConnectMetadata" if r["kind"].startswith("ConnectMetadata") else "ConnectAssignment"
        if "hex" not in r:
            continue
        for reader in CONNECT_READERS:  # either outcome is right: the golden vectors say which
            c.add(
                _connect_target(message, reader), bytes.fromhex(r["hex"]), f"kafka-java/connect.jsonl {r['id']}", None
            )


def _from_kio(c: _Corpus, shared: Path) -> list[bytes]:
    """kio's KIP-848/KIP-1071/KIP-932 bodies (API keys 68, 69, 88, 89, 76, 77: flexible versions, compact strings,
    tagged fields, UUIDs) in request frames (header v2) and response frames (header v1): codec.kafka4 reads every
    one of them (issues #21, #30; the StreamsGroupHeartbeat schemas follow the released v0 layout kio writes)."""
    frames = []
    for name, r in (
        (n, r) for n in ("group-kafka4.jsonl", "group-share.jsonl") for r in _jsonl(shared / "vectors" / "kio" / n)
    ):
        accepted = True
        origin = f"kio/{name} {r['id']}"
        if not r["kind"].endswith("Request"):
            c.add(
                f"response-frame/{r['apiKey']}/v{r['version']}",
                struct.pack(">i", r["index"]) + b"\x00" + bytes.fromhex(r["hex"]),
                f"{origin} in a response frame",
                accepted,
            )
            continue
        header = struct.pack(">hhih", r["apiKey"], r["version"], r["index"], 3) + b"kio\x00"
        frame = header + bytes.fromhex(r["hex"])
        c.add("request-frame", frame, f"{origin} in a request frame", accepted)
        frames.append(frame)
    return frames


def _from_frames_jsonl(c: _Corpus, shared: Path) -> dict[tuple, list[tuple[str, bytes]]]:
    """Every frame real clients (and librdkafka's mock broker) sent: the frame, its header and its body, at
    the offsets recorded with the capture. Returns each connection's frames in order, for streams and pcaps."""
    conns: dict[tuple, list[tuple[str, bytes]]] = {}
    for r in _jsonl(shared / "captures" / "frames.jsonl"):
        wire, at, key, v = bytes.fromhex(r["hex"]), r["body_offset"], r["api_key"], r["api_version"]
        origin = f"captures/frames.jsonl {r['run']}/{r['scenario']}/{r['conn']}/{r['direction']}/{r['correlation_id']}"
        usable = None if "NOT a reference" in r.get("produced_by", "") else True
        request = r["direction"] == "request"
        conns.setdefault((r["run"], r["scenario"], r["conn"]), []).append(("c" if request else "s", wire))
        if request:
            c.add("request-frame", wire, origin)
            c.add(f"RequestHeader/v{r['header_version']}", wire[:at], origin + " (header)")
            if key in _kind_targets()[2]:
                c.add(f"{_kind_targets()[2][key]}Request/v{v}", wire[at:], origin + " (body)")
        else:
            c.add(f"ResponseHeader/v{r['header_version']}", wire[:at], origin + " (header)", usable)
            if key in _kind_targets()[2]:
                c.add(f"response-frame/{key}/v{v}", wire, origin, usable)
                c.add(f"{_kind_targets()[2][key]}Response/v{v}", wire[at:], origin + " (body)", usable)
    return conns


def _sticky_user_data(c: _Corpus, shared: Path | None) -> None:
    """The layouts Kafka's sticky assignors write, built by the project's encoder; then the user data of every sticky
    and cooperative-sticky subscription real clients sent in a JoinGroup of the captures (each distinct one once;
    kafka-python's, which Kafka cannot read, included)."""
    from ..errors import DecodeError
    from ..group import decode_consumer
    from ..group.sticky import COOPERATIVE_STICKY, STICKY, StickyUserData, encode_sticky_user_data
    from ..wire.builder import decode_wire

    for u in (
        StickyUserData(STICKY, 1, (("orders", (0, 2, 4)), ("payments", ())), 7),
        StickyUserData(STICKY, 0, (("t" * 300, (2147483647,)),)),
        StickyUserData(STICKY, 1, (), -1),
        StickyUserData(COOPERATIVE_STICKY, 0, (), 3),
    ):
        c.add(
            f"{u.assignor}-assignor-user-data", encode_sticky_user_data(u), f"built: {u.layer} v{u.version}", True, True
        )
    if shared is None:
        return
    seen: set[tuple[str, bytes]] = set()
    for r in _jsonl(shared / "captures" / "frames.jsonl"):
        if r["api_key"] != 11 or r["direction"] != "request":
            continue
        origin = f"captures/frames.jsonl {r['run']}/{r['scenario']}/{r['conn']}/{r['correlation_id']}"
        try:
            join, _ = decode_wire("JoinGroupRequest", r["api_version"], bytes.fromhex(r["hex"])[r["body_offset"] :])
            for p in join.protocols:
                if p.name in (STICKY, COOPERATIVE_STICKY):
                    data = decode_consumer("ConsumerProtocolSubscription", p.metadata).data.user_data
                    if data and (p.name, bytes(data)) not in seen:
                        seen.add((p.name, bytes(data)))
                        c.add(f"{p.name}-assignor-user-data", bytes(data), f"{origin} ({p.name} user data)", None)
        except DecodeError:
            continue


def _cut_pcap(raw: bytes, start: int, count: int) -> bytes:
    """The global header of a classic pcap file and its records ``[start, start + count)`` (pcap-savefile(5):
    a 24-byte header, then per packet a 16-byte header whose third word is the captured length)."""
    endian = "<" if raw[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, pos, n = [raw[:24]], 24, 0
    while pos + 16 <= len(raw) and n < start + count:
        length = struct.unpack_from(endian + "I", raw, pos + 8)[0]
        if n >= start:
            out.append(raw[pos : pos + 16 + length])
        pos += 16 + length
        n += 1
    return b"".join(out)


def _from_pcaps(c: _Corpus, shared: Path) -> None:
    """The real captures, cut into windows of 40 packets (the whole files take tens of milliseconds each,
    too long for a mutation loop), and the smallest one whole and gzipped as it is stored."""
    files = sorted((shared / "captures" / "pcaps").glob("*/*.pcap.gz"))
    for path in files:
        raw = gzip.decompress(path.read_bytes())
        if raw[:4] not in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d"):
            continue
        for start in (0, 60, 150):
            cut = _cut_pcap(raw, start, 40)
            if len(cut) > 24:
                c.add("pcap", cut, f"captures/pcaps/{path.parent.name}/{path.name} packets {start}-{start + 39}")
    if files:
        smallest = min(files, key=lambda p: p.stat().st_size)
        c.add("pcap", smallest.read_bytes(), f"captures/pcaps/{smallest.parent.name}/{smallest.name} (gzipped)")


def _encode(kind: str, version: int | None, value: dict, **opts) -> bytes:
    from ..catalog import get_kind

    return get_kind(kind).encode(value, style="kafka", version=version, **opts)


# Strings a person's terminal must see escaped: an escape sequence, a newline, a line separator, a backslash.
_HOSTILE = "m-1\x1b[2J\nFORGED LINE\u2028\x7f\\x"


def _built_bodies() -> Iterator[tuple[str, int, dict]]:
    """Heartbeat and LeaveGroup bodies and the headers at every version, written out by hand (values only at
    the versions that carry them: Kafka's encoder refuses a non-default value a version cannot carry)."""
    for v in range(5):
        inst = {"groupInstanceId": "static-1"} if v >= 3 else {}
        yield "HeartbeatRequest", v, {"groupId": "g-1", "generationId": 7, "memberId": "consumer-1-5f0c", **inst}
        yield "HeartbeatRequest", v, {"groupId": "", "generationId": -1, "memberId": _HOSTILE}
        yield "HeartbeatResponse", v, {**({"throttleTimeMs": 100} if v >= 1 else {}), "errorCode": 27}
        yield "HeartbeatResponse", v, {"errorCode": 0}
    for v in range(6):
        if v <= 2:
            yield "LeaveGroupRequest", v, {"groupId": "g-1", "memberId": "consumer-1-5f0c"}
            yield "LeaveGroupRequest", v, {"groupId": "g\u00e9-\U0001f600", "memberId": _HOSTILE}
            yield "LeaveGroupResponse", v, {**({"throttleTimeMs": 5} if v >= 1 else {}), "errorCode": 25}
        else:
            reason = {"reason": "the consumer is being closed"} if v >= 5 else {}
            yield (
                "LeaveGroupRequest",
                v,
                {
                    "groupId": "g-1",
                    "members": [
                        {"memberId": "consumer-1-5f0c", "groupInstanceId": None, **reason},
                        {"memberId": _HOSTILE, "groupInstanceId": "static-2"},
                    ],
                },
            )
            yield "LeaveGroupRequest", v, {"groupId": "g-1", "members": []}
            yield (
                "LeaveGroupResponse",
                v,
                {
                    "throttleTimeMs": 0,
                    "errorCode": 0,
                    "members": [
                        {"memberId": "consumer-1-5f0c", "groupInstanceId": None, "errorCode": 0},
                        {"memberId": "", "groupInstanceId": "static-2", "errorCode": 25},
                    ],
                },
            )
    for v in range(3):
        yield (
            "RequestHeader",
            v,
            {
                "requestApiKey": 12,
                "requestApiVersion": 4,
                "correlationId": 9,
                **({"clientId": "consumer-g-1"} if v >= 1 else {}),
            },
        )
        if v >= 1:
            yield (
                "RequestHeader",
                v,
                {"requestApiKey": 11, "requestApiVersion": 0, "correlationId": 2**31 - 1, "clientId": None},
            )
    for v in range(2):
        yield "ResponseHeader", v, {"correlationId": 9}
        yield "ResponseHeader", v, {"correlationId": -1}


def _built(c: _Corpus) -> None:
    """Seeds written by the project's encoders from the values above, for what no vector covers; each also
    in a request or response frame (headers by hand) at its version. Canonical: the encoder wrote them."""
    from ..conformance.messages import kind_of
    from ..wire.schema import load_message

    bodies: dict[tuple[str, int], list[bytes]] = {}
    for name, v, value in _built_bodies():
        wire = _encode(kind_of(name), v, value)
        c.add(f"{name}/v{v}", wire, f"built: {name} v{v} {json.dumps(value)[:60]}", True, True)
        bodies.setdefault((name, v), []).append(wire)
    for key in (12, 13):
        for kind in ("Request", "Response"):
            for (name, v), wires in sorted(bodies.items()):
                if name != _kind_targets()[2][key] + kind:
                    continue
                for i, body in enumerate(wires):
                    if kind == "Request":
                        frame = _request_header(key, v, 100 + i, "consumer-g-1" if i == 0 else _HOSTILE) + body
                        c.add("request-frame", frame, f"built: {name} v{v} in a request frame", True, True)
                    else:
                        frame = _response_header(key, v, 100 + i) + body
                        c.add(
                            f"response-frame/{key}/v{v}", frame, f"built: {name} v{v} in a response frame", True, True
                        )
    # JoinGroup and SyncGroup responses at every version: Kafka's own bodies, a header by hand
    for key in (11, 14):
        name = _kind_targets()[2][key] + "Response"
        for v in load_message(name).versions:
            for i, seed in enumerate(s for s in c.by_target.get(f"{name}/v{v}", ()) if s.canonical):
                if i >= 6:
                    break
                c.add(
                    f"response-frame/{key}/v{v}",
                    _response_header(key, v, 40 + i) + seed.data,
                    f"{seed.origin} in a response frame",
                    True,
                    True,
                )


def _zigzag(n: int) -> bytes:
    v, out = (n << 1) ^ (n >> 63), bytearray()
    while v > 0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    return bytes(out + bytes([v]))


def _batch(
    records: list[tuple[bytes, bytes | None]], *, base_offset: int, codec: int = 0, control: bool = False
) -> bytes:
    """A record batch (magic 2) as Kafka's DefaultRecordBatch writes it: base offset, length, leader epoch,
    magic, CRC-32C of what follows it, attributes, last offset delta, timestamps, producer id/epoch, base
    sequence, record count, records (varint framed; gzip-compressed when ``codec`` is 1)."""
    import crc32c

    recs = b""
    for i, (k, v) in enumerate(records):
        body = b"\x00" + _zigzag(i) + _zigzag(i) + _zigzag(len(k)) + k
        body += (_zigzag(-1) if v is None else _zigzag(len(v)) + v) + _zigzag(0)
        recs += _zigzag(len(body)) + body
    payload = gzip.compress(recs, mtime=0) if codec == 1 else recs
    attributes = codec | (0x30 if control else 0)
    after_crc = (
        struct.pack(
            ">hiqqqhii",
            attributes,
            len(records) - 1,
            1_700_000_000_000,
            1_700_000_000_000,
            42 if control else -1,
            0 if control else -1,
            -1,
            len(records),
        )
        + payload
    )
    body = struct.pack(">ibI", 0, 2, crc32c.crc32c(after_crc)) + after_crc
    return struct.pack(">qi", base_offset, len(body)) + body


def _offsets(c: _Corpus) -> None:
    """``__consumer_offsets`` records: group metadata (key v2, value v0-v3) carrying real members'
    subscriptions and assignments, and offset commits; alone (``offsets-key-value``) and in log segments
    (plain and gzip batches, a control batch, a tombstone)."""
    from ..wire.builder import encode_wire, wire_class

    subs, asgs = c.data("consumer-subscription")[:40], c.data("consumer-assignment")[:40]
    key = (2).to_bytes(2, "big") + encode_wire(
        "GroupMetadataKey", 2, wire_class("GroupMetadataKey", "GroupMetadataKey")(group="g")
    )
    Value = wire_class("GroupMetadataValue", "GroupMetadataValue")
    Member = wire_class("GroupMetadataValue", "MemberMetadata")
    records: list[tuple[bytes, bytes | None]] = []
    for i, (sub, asg) in enumerate(zip(subs, asgs)):
        version = i % 4
        value = Value(
            protocol_type="consumer",
            generation=i,
            protocol="range",
            leader="m",
            members=(
                Member(
                    member_id="m",
                    client_id="c" if i % 5 else _HOSTILE,
                    client_host="/10.0.0.1",
                    session_timeout=10_000,
                    rebalance_timeout=30_000,
                    subscription=sub,
                    assignment=asg,
                ),
            ),
        )
        body = version.to_bytes(2, "big") + encode_wire("GroupMetadataValue", version, value)
        c.add("offsets-key-value", len(key).to_bytes(2, "big") + key + body, f"built: GroupMetadataValue v{version}")
        records.append((key, body))
    for v in (0, 1):
        ck = (v).to_bytes(2, "big") + encode_wire(
            "OffsetCommitKey",
            v,
            wire_class("OffsetCommitKey", "OffsetCommitKey")(group="g", topic="orders", partition=3),
        )
        for vv in range(4):
            cls = wire_class("OffsetCommitValue", "OffsetCommitValue")
            cv = vv.to_bytes(2, "big") + encode_wire("OffsetCommitValue", vv, cls(offset=1234, metadata="meta"))
            c.add(
                "offsets-key-value", len(ck).to_bytes(2, "big") + ck + cv, f"built: OffsetCommit key v{v} value v{vv}"
            )
            records.append((ck, cv))
    for i in range(0, len(records), 4):
        chunk = records[i : i + 4]
        seg = _batch(chunk, base_offset=100 + i)
        if i % 8 == 4:
            seg += _batch(chunk[:1] + [(chunk[0][0], None)], base_offset=1000 + i, codec=1)
        c.add("offsets-segment", seg, f"built: a log segment of records {i}-{i + len(chunk) - 1}")
    marker = (struct.pack(">hh", 0, 1), struct.pack(">hi", 0, 0))  # a COMMIT control record
    if records:
        c.add(
            "offsets-segment",
            _batch([marker], base_offset=0, control=True) + _batch(records[:2], base_offset=1),
            "built: a control batch, then group metadata",
        )


def _streams_and_pcaps(c: _Corpus, conns: dict[tuple, list[tuple[str, bytes]]], kio: list[bytes]) -> None:
    """Frame streams (size-prefixed frames back to back) and small captures made of them."""
    from ..capture.pcapwriter import conversation, pcap, pcapng

    def sized(frames: list[bytes]) -> bytes:
        return b"".join(len(f).to_bytes(4, "big") + f for f in frames)

    frames = c.data("request-frame")
    for i in range(0, min(len(frames), 300), 3):
        c.add("frame-stream", sized(frames[i : i + 3]), "request frames of the vectors, back to back")
    for i in range(0, len(kio), 25):
        c.add("frame-stream", sized(kio[i : i + 4]), "kio's request frames, back to back")
    for i in range(0, min(len(frames), 60), 4):
        segs = conversation([("c", len(f).to_bytes(4, "big") + f) for f in frames[i : i + 4]])
        c.add("pcap", pcap(segs) if i % 8 == 0 else pcapng(segs), "request frames of the vectors in a capture")
    # Whole conversations of real clients with the mock broker's responses: JoinGroup and SyncGroup pairs,
    # so that the capture story has generations to tell.
    group_conns = [
        (k, fs)
        for k, fs in sorted(conns.items())
        if any(d[:2] in (b"\x00\x0b", b"\x00\x0e") for side, d in fs if side == "c")
    ]
    for n, ((run, scenario, conn), fs) in enumerate(group_conns[::3][:16]):
        writes = [(side, len(d).to_bytes(4, "big") + d) for side, d in fs[:14]]
        c.add(
            "frame-stream",
            b"".join(d for side, d in writes if side == "c"),
            f"captures/frames.jsonl {run}/{scenario}/{conn}: the requests, back to back",
        )
        segs = conversation(writes, client=("127.0.0.1", 40000 + n))
        c.add("pcap", pcap(segs) if n % 2 else pcapng(segs), f"captures/frames.jsonl {run}/{scenario}/{conn}")


def _drawn(c: _Corpus) -> None:
    """Seeds drawn from the schemas (the gate's generator, :func:`codec.conformance.generate.draw_case`) for every
    response-frame target no other source seeds, and request frames of every API no request seeds: a message added
    by its schema file alone (the APIs around the group) is fuzzed from its first commit. Canonical where the
    reference writes the drawn value back byte for byte."""
    import random

    from ..conformance.generate import draw_case
    from .decoders import targets

    seeded_keys = {int.from_bytes(d[:2], "big") for d in c.data("request-frame") if len(d) >= 2}
    for name in targets():
        if not name.startswith("response-frame/") or c.by_target.get(name):
            continue
        _, key, v = name.split("/")
        api_key, version = int(key), int(v[1:])
        for i, tame in enumerate((True, False, True)):
            rng = random.Random(f"rebalance-codec seed {name} {i}")
            got = draw_case(rng, "ResponseFrame", version, tame=tame, api_key=api_key)
            if not isinstance(got, str):
                c.add(
                    name, got[0], f"drawn from the schema: {name} ({'tame' if tame else 'wide'} values)", True, got[2]
                )
            if api_key not in seeded_keys:
                req = draw_case(rng, "RequestFrame", version, tame=tame, api_key=api_key)
                if not isinstance(req, str):
                    c.add(
                        "request-frame",
                        req[0],
                        f"drawn from the schema: API {api_key} v{version} request",
                        True,
                        req[2],
                    )


@functools.lru_cache(maxsize=4)
def _corpus(shared: Path | None) -> dict[str, tuple[Seed, ...]]:
    c = _Corpus()
    _from_vectors(c)
    conns: dict[tuple, list[tuple[str, bytes]]] = {}
    kio: list[bytes] = []
    if shared is not None:
        _from_kafka_java(c, shared)
        kio = _from_kio(c, shared)
        conns = _from_frames_jsonl(c, shared)
        _from_pcaps(c, shared)
    _built(c)
    _sticky_user_data(c, shared)
    _offsets(c)
    _streams_and_pcaps(c, conns, kio)
    _drawn(c)
    _from_schemas(c)
    return {k: tuple(v) for k, v in c.by_target.items()}


def _from_schemas(c: _Corpus) -> None:
    """A seed for every body and response-frame target no source gave one: the message's default value (every field
    at its default) written by the encoder at the target's version, behind its response header for a frame (the
    registry's). The targets of a message a schema adds, before any vector of it exists."""
    from ..wire.builder import encode_wire, wire_class
    from ..wire.registry import apis, response_header_version
    from .decoders import targets

    for target in targets():
        if c.by_target.get(target):
            continue
        name, _, version = target.rpartition("/v")
        if not version.isdigit():
            continue
        v = int(version)
        if name.startswith("response-frame/"):
            key = int(name.split("/")[1])
            schema = apis()[key].response
            assert schema is not None  # (a response-frame target is made for an API with a response schema)
            header = struct.pack(">i", 1) + (b"\x00" if response_header_version(key, v) >= 1 else b"")
            body = encode_wire(schema, v, wire_class(schema, schema)())
            c.add(target, header + body, f"built: {schema} v{v} at its defaults in a response frame", True, True)
        else:
            body = encode_wire(name, v, wire_class(name, name)())
            c.add(target, body, f"built: {name} v{v} at its defaults", True, True)


def seed_corpus(shared: Shared = DEFAULT_SHARED) -> dict[str, tuple[Seed, ...]]:
    """Seeds per target (see :class:`Seed`), from ``vectors/``, the shared folder (default
    :func:`shared_dir`; None: without it) and the messages built here."""
    return _corpus(resolve_shared(shared))


def seeds(shared: Shared = DEFAULT_SHARED) -> dict[str, list[bytes]]:
    """The bytes of :func:`seed_corpus`, per target."""
    return {k: [s.data for s in v] for k, v in seed_corpus(shared).items()}
