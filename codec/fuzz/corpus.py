"""Fuzzing every decoder: targets, seeds, mutations, the invariant, and the render pass.

The invariant (docs/explanations/input-policy.md): whatever bytes come in, every entry point returns a value or raises
:class:`~codec.errors.DecodeError` — nothing else — in bounded time and memory. The record-level readers
(the frame stream, captures, ``__consumer_offsets`` segments) report bad input as records instead of
raising, so there the invariant is simply "no exception".

* :func:`targets` — every decoding entry point, by name, as a function of one ``bytes``;
* :func:`seed_corpus` / :func:`seeds` — inputs for every target: the golden vectors (``vectors/``), Kafka's
  own vectors, kio's and the real clients' captures from the shared folder (:func:`shared_dir`), and, where
  no vector exists (Heartbeat and LeaveGroup bodies, headers, most response frames, log segments), messages
  built with the project's encoders from values written out here. Each :class:`Seed` says whether its
  target accepts it and whether re-encoding reproduces it byte for byte;
* :func:`mutate` — one random mutation: bit flips, truncation, splices with another seed, a length or count
  field rewritten to an extreme value, inserted or duplicated bytes;
* :func:`render` — every output a decoded value reaches: the JSON views (``--style kafka`` and ``native``,
  written by :func:`codec.text.dumps`, as UTF-8), the pretty view (valid UTF-8, no control characters but the
  newline), the Kafka-style round trip (decode, encode the JSON, decode again: the same value; the same bytes
  for canonical inputs), the capture story (JSON lines and text) for captures and ``__consumer_offsets``
  records, and the pipeline's Arrow rows;
* :func:`run` — a deterministic loop (seeded) over targets and mutations, counting inputs and collecting
  violations; with ``render`` every seed and every decoded input also goes through :func:`render`. Where the
  native codec is installed the loop is also a *differential oracle*: every input goes through its target
  with the native codec and again with the pure-Python one, and any difference -- another value, another
  error class, message, offset or path, or a crash on one side -- is a violation (``differential=False``
  turns it off).
  ``rebalance-codec fuzz`` runs it; the test suite runs a bounded pass, ``pytest -m fuzz`` a long one, and
  ``tests/fuzz/atheris_harness.py`` a coverage-guided one (the ``fuzz`` extra).

A violation found here becomes a ``regression`` vector (:func:`regression_vector`, collected in
``vectors/regression.jsonl``) so it stays fixed.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import os
import random
import re
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from ..errors import CodecError, DecodeError
from ..kafka4.common import MESSAGES as KAFKA4_MESSAGES
from ..kafka4.common import RECORDS as KAFKA4_RECORDS

__all__ = ["targets", "seeds", "seed_corpus", "Seed", "shared_dir", "mutate", "render", "run", "differential", "FuzzReport",
           "Violation", "regression_vector", "regression_vectors", "write_regression_vectors", "REGRESSIONS",
           "EXTREMES"]

Target = Callable[[bytes], object]

#: Values a rewritten length or count field takes: empty, null, negative, one past, and huge.
EXTREMES = (0, 1, -1, -2, 0x7F, 0x80, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, -0x80000000, 2_000_000_000)


def _group_targets() -> dict[str, Target]:
    from ..group import MESSAGES, decode_consumer, decode_message, decode_request_frame, decode_response_frame
    from ..group.apis import API_KEYS
    from ..group.stream import FrameReader
    from ..wire.schema import load_message

    out: dict[str, Target] = {
        "consumer-subscription": lambda b: decode_consumer("ConsumerProtocolSubscription", b),
        "consumer-assignment": lambda b: decode_consumer("ConsumerProtocolAssignment", b),
        "request-frame": lambda b: decode_request_frame(b, nested=True),
    }
    for name in MESSAGES:
        for v in load_message(name).versions:
            out[f"{name}/v{v}"] = (lambda n, ver: lambda b: decode_message(n, ver, b, nested=True))(name, v)
    for key, api in API_KEYS.items():
        if api.response is None:
            continue
        for v in load_message(api.response).versions:
            out[f"response-frame/{key}/v{v}"] = (lambda k, ver: lambda b: decode_response_frame(
                b, k, ver, nested=True))(key, v)
    for name in ("RequestHeader", "ResponseHeader"):
        for v in load_message(name).versions:
            out[f"{name}/v{v}"] = (lambda n, ver: lambda b: decode_message(n, ver, b))(name, v)

    def frame_stream(b: bytes) -> object:
        reader = FrameReader()
        frames = []
        for i in range(0, len(b), 7):  # an odd chunking, to cross every boundary
            reader.feed(b[i:i + 7])
            frames.extend(reader)
        reader.close()
        return frames

    out["frame-stream"] = frame_stream
    return out


def _record_targets() -> dict[str, Target]:
    """Readers that report bad input as records: any exception at all is a violation."""
    from ..capture import kafka_frames
    from ..capture.offsets import decode_key, decode_value, read_segment

    def pcap(b: bytes) -> object:
        return list(kafka_frames(io.BytesIO(b)))

    def segment(b: bytes) -> object:
        return list(read_segment(io.BytesIO(b)))

    def offsets_record(b: bytes) -> object:  # [uint16 key length][key][value]
        n = int.from_bytes(b[:2], "big")
        version, *_ = decode_key(b[2:2 + n])
        return decode_value(version, b[2 + n:])

    return {"pcap": pcap, "offsets-segment": segment, "offsets-key-value": offsets_record}


def _connect_targets() -> dict[str, Target]:
    """Kafka Connect's worker metadata and assignment, each as both of Kafka's deserializers read it: ``/r0``
    ConnectProtocol's (reader version 0), ``/r1`` IncrementalCooperativeConnectProtocol's (1; 2 reads alike)."""
    from ..connect import decode_connect_assignment, decode_connect_metadata

    out: dict[str, Target] = {}
    for kind, decode in (("connect-metadata", decode_connect_metadata),
                         ("connect-assignment", decode_connect_assignment)):
        for reader in _CONNECT_READERS:
            out[f"{kind}/r{reader}"] = (lambda d, r: lambda b: d(b, reader_version=r))(decode, reader)
    return out


@functools.cache
def _targets() -> dict[str, Target]:
    from ..streams import decode_assignment, decode_subscription

    out: dict[str, Target] = {"subscription-info": decode_subscription, "assignment-info": decode_assignment}
    out.update(_group_targets())
    out.update(_record_targets())
    out.update(_connect_targets())
    return out


def targets() -> dict[str, Target]:
    """Every decoding entry point by name (a new dict each call)."""
    return dict(_targets())


# --- seeds ------------------------------------------------------------------------------------------------

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


def shared_dir() -> Path | None:
    """The shared reference folder (Kafka's and kio's vectors, the captures): ``$REBALANCE_CODEC_SHARED``,
    else ``shared/`` beside the repository, as the tests find it; None when it is not there."""
    env = os.environ.get("REBALANCE_CODEC_SHARED")
    path = Path(env) if env else Path(__file__).resolve().parents[3] / "shared"
    return path if path.is_dir() else None


class _Corpus:
    def __init__(self) -> None:
        self.by_target: dict[str, list[Seed]] = {}
        self._seen: set[tuple[str, bytes]] = set()

    def add(self, target: str, data: bytes, origin: str, accepted: bool | None = True,
            canonical: bool = False) -> None:
        if (target, data) in self._seen:
            return
        self._seen.add((target, data))
        self.by_target.setdefault(target, []).append(Seed(bytes(data), origin, accepted, canonical))

    def data(self, target: str) -> list[bytes]:
        return [s.data for s in self.by_target.get(target, [])]


# Kafka's message JSON ("flexibleVersions"): JoinGroup 6+, Heartbeat, LeaveGroup and SyncGroup 4+; a
# flexible request has header v2, a flexible response header v1. Written out here, not taken from
# codec.group.apis, so that a seed assembled with them checks the decoder rather than agreeing with it.
_FLEXIBLE_FROM = {11: 6, 12: 4, 13: 4, 14: 4}
_GROUP_API = {11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup"}
_STREAMS_TARGETS = {"SubscriptionInfo": "subscription-info", "AssignmentInfo": "assignment-info",
                    "ConsumerProtocolSubscription": "consumer-subscription",
                    "ConsumerProtocolAssignment": "consumer-assignment", "RequestFrame": "request-frame"}
_CONNECT_TARGETS = {"ConnectMetadata": "connect-metadata", "ConnectAssignment": "connect-assignment"}
# Connect's readers: 0 is ConnectProtocol's, 1 IncrementalCooperativeConnectProtocol's (which reads version 2
# alike: codec/connect/common.py reader_layout)
_CONNECT_READERS = (0, 1)


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
    return f"{_CONNECT_TARGETS[message]}/r{min(reader, 1)}"


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
    from ..conformance.runner import DECODE_ONLY
    from ..conformance.vectors import load_vectors

    records: dict[str, dict[str, list[tuple[bytes, str, bool | None]]]] = {}
    for v in load_vectors():
        if "wire" not in v:
            continue
        wire = bytes.fromhex(v["wire"])
        msg, version = v["message"], v.get("version")
        accepted = {"valid": True, "invalid": False}.get(v["result"])
        canonical = bool(v["result"] == "valid" and v.get("canonical") and not DECODE_ONLY & set(v.get("flags", ())))
        origin = f"vectors/{v['_file']} {v['id']}"
        if msg in _STREAMS_TARGETS:
            c.add(_STREAMS_TARGETS[msg], wire, origin, accepted, canonical)
        elif msg in _CONNECT_TARGETS:  # a Connect vector's version is the reader's (conformance/importer.py)
            c.add(_connect_target(msg, version), wire, origin, accepted, canonical)
        elif msg == "ResponseFrame":
            c.add(f"response-frame/{v['apiKey']}/v{version}", wire, origin, accepted, canonical)
        elif msg in KAFKA4_MESSAGES:  # a Kafka 4 group RPC body (codec.kafka4): inside its frame
            key, direction = KAFKA4_MESSAGES[msg]
            if direction == "request":
                c.add("request-frame", struct.pack(">hhih", key, version, 7, 3) + b"k4v\x00" + wire,
                      f"{origin} in a request frame", accepted)
            else:
                c.add(f"response-frame/{key}/v{version}", struct.pack(">i", 7) + b"\x00" + wire,
                      f"{origin} in a response frame", accepted)
        elif msg in _OTHER_PART:  # a classic __consumer_offsets record part: a whole record, with the other part
            c.add("offsets-key-value", _classic_record(msg, wire), f"{origin} in a record", accepted)
        elif version is not None:
            c.add(f"{msg}/v{version}", wire, origin, accepted, canonical)
        elif msg.removesuffix("Key").removesuffix("Value") in KAFKA4_RECORDS:
            part = "Key" if msg.endswith("Key") else "Value"
            records.setdefault(msg.removesuffix(part), {}).setdefault(part, []).append((wire, origin, accepted))
        exp = v.get("expected") if isinstance(v.get("expected"), dict) else {}
        if v["result"] != "valid" or "headerVersion" not in exp:
            continue
        key, hv = exp["apiKey"], exp["headerVersion"]
        if msg == "RequestFrame":
            split = _request_header_length(wire, hv)
            c.add(f"RequestHeader/v{hv}", wire[:split], origin + " (header)")
            if key in _GROUP_API:
                c.add(f"{_GROUP_API[key]}Request/v{version}", wire[split:], origin + " (body)")
        elif msg == "ResponseFrame":
            split = _response_header_length(wire, hv)
            c.add(f"ResponseHeader/v{hv}", wire[:split], origin + " (header)")
            c.add(f"{_GROUP_API[key]}Response/v{version}", wire[split:], origin + " (body)")
    _kafka4_segments(c, records)


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
            chunk = values[i:i + 4]
            c.add("offsets-segment", _batch([(key, w) for w, _, _ in chunk], base_offset=i),
                  f"{chunk[0][1]} (and {len(chunk) - 1} more {name} values) behind its key in a log segment")


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
        for layer, target in (("subscription", "subscription-info"), ("assignment", "assignment-info"),
                              ("consumerProtocolSubscription", "consumer-subscription"),
                              ("consumerProtocolAssignment", "consumer-assignment"),
                              ("joinGroupRequest", None), ("syncGroupResponse", None)):
            rec = r.get(layer)
            if not isinstance(rec, dict) or "error" in rec:
                continue
            wire = bytes.fromhex(rec.get("hexVersionPrefixed") or rec["hex"])
            target = target or f"{rec['kind']}/v{rec['version']}"
            c.add(target, wire, f"{origin} ({layer})")
        join, sync = r.get("joinGroupRequest"), r.get("syncGroupResponse")
        if isinstance(join, dict) and "hex" in join:
            v = join["version"]
            c.add("request-frame", _request_header(11, v, 7, "streams-app") + bytes.fromhex(join["hex"]),
                  f"{origin} (joinGroupRequest in a request frame)")
        if isinstance(sync, dict) and "hex" in sync:
            v = sync["version"]
            c.add(f"response-frame/14/v{v}", _response_header(14, v, 8) + bytes.fromhex(sync["hex"]),
                  f"{origin} (syncGroupResponse in a response frame)")
    for r in _jsonl(src / "connect.jsonl"):
        if "hex" not in r or r.get("version", -1) < 0:
            continue
        target = "consumer-subscription" if r["kind"] == "ConnectMetadata" else "consumer-assignment"
        c.add(target, bytes.fromhex(r["hex"]), f"kafka-java/connect.jsonl {r['id']}", None)
    for r in _jsonl(src / "connect.jsonl"):
        message = "ConnectMetadata" if r["kind"].startswith("ConnectMetadata") else "ConnectAssignment"
        if "hex" not in r:
            continue
        for reader in _CONNECT_READERS:  # either outcome is right: the golden vectors say which
            c.add(_connect_target(message, reader), bytes.fromhex(r["hex"]), f"kafka-java/connect.jsonl {r['id']}",
                  None)


def _from_kio(c: _Corpus, shared: Path) -> list[bytes]:
    """kio's KIP-848/KIP-1071/KIP-932 bodies (API keys 68, 69, 88, 89, 76, 77: flexible versions, compact strings,
    tagged fields, UUIDs) in request frames (header v2) and response frames (header v1): codec.kafka4 reads every
    one of them (issues #21, #30; the StreamsGroupHeartbeat schemas follow the released v0 layout kio writes)."""
    frames = []
    for name, r in ((n, r) for n in ("group-kafka4.jsonl", "group-share.jsonl")
                    for r in _jsonl(shared / "vectors" / "kio" / n)):
        accepted = True
        origin = f"kio/{name} {r['id']}"
        if not r["kind"].endswith("Request"):
            c.add(f"response-frame/{r['apiKey']}/v{r['version']}",
                  struct.pack(">i", r["index"]) + b"\x00" + bytes.fromhex(r["hex"]), f"{origin} in a response frame",
                  accepted)
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
            if key in _GROUP_API:
                c.add(f"{_GROUP_API[key]}Request/v{v}", wire[at:], origin + " (body)")
        else:
            c.add(f"ResponseHeader/v{r['header_version']}", wire[:at], origin + " (header)", usable)
            if key in _GROUP_API:
                c.add(f"response-frame/{key}/v{v}", wire, origin, usable)
                c.add(f"{_GROUP_API[key]}Response/v{v}", wire[at:], origin + " (body)", usable)
    return conns


def _cut_pcap(raw: bytes, start: int, count: int) -> bytes:
    """The global header of a classic pcap file and its records ``[start, start + count)`` (pcap-savefile(5):
    a 24-byte header, then per packet a 16-byte header whose third word is the captured length)."""
    endian = "<" if raw[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, pos, n = [raw[:24]], 24, 0
    while pos + 16 <= len(raw) and n < start + count:
        length = struct.unpack_from(endian + "I", raw, pos + 8)[0]
        if n >= start:
            out.append(raw[pos:pos + 16 + length])
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
    from ..kinds import get_kind

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
            yield "LeaveGroupRequest", v, {"groupId": "g-1", "members": [
                {"memberId": "consumer-1-5f0c", "groupInstanceId": None, **reason},
                {"memberId": _HOSTILE, "groupInstanceId": "static-2"}]}
            yield "LeaveGroupRequest", v, {"groupId": "g-1", "members": []}
            yield "LeaveGroupResponse", v, {"throttleTimeMs": 0, "errorCode": 0, "members": [
                {"memberId": "consumer-1-5f0c", "groupInstanceId": None, "errorCode": 0},
                {"memberId": "", "groupInstanceId": "static-2", "errorCode": 25}]}
    for v in range(3):
        yield "RequestHeader", v, {"requestApiKey": 12, "requestApiVersion": 4, "correlationId": 9,
                                   **({"clientId": "consumer-g-1"} if v >= 1 else {})}
        if v >= 1:
            yield "RequestHeader", v, {"requestApiKey": 11, "requestApiVersion": 0, "correlationId": 2**31 - 1,
                                       "clientId": None}
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
                if name != _GROUP_API[key] + kind:
                    continue
                for i, body in enumerate(wires):
                    if kind == "Request":
                        frame = _request_header(key, v, 100 + i, "consumer-g-1" if i == 0 else _HOSTILE) + body
                        c.add("request-frame", frame, f"built: {name} v{v} in a request frame", True, True)
                    else:
                        frame = _response_header(key, v, 100 + i) + body
                        c.add(f"response-frame/{key}/v{v}", frame, f"built: {name} v{v} in a response frame",
                              True, True)
    # JoinGroup and SyncGroup responses at every version: Kafka's own bodies, a header by hand
    for key in (11, 14):
        name = _GROUP_API[key] + "Response"
        for v in load_message(name).versions:
            for i, seed in enumerate(s for s in c.by_target.get(f"{name}/v{v}", ()) if s.canonical):
                if i >= 6:
                    break
                c.add(f"response-frame/{key}/v{v}", _response_header(key, v, 40 + i) + seed.data,
                      f"{seed.origin} in a response frame", True, True)


def _zigzag(n: int) -> bytes:
    v, out = (n << 1) ^ (n >> 63), bytearray()
    while v > 0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    return bytes(out + bytes([v]))


def _batch(records: list[tuple[bytes, bytes | None]], *, base_offset: int, codec: int = 0,
           control: bool = False) -> bytes:
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
    after_crc = struct.pack(">hiqqqhii", attributes, len(records) - 1, 1_700_000_000_000, 1_700_000_000_000,
                            42 if control else -1, 0 if control else -1, -1, len(records)) + payload
    body = struct.pack(">ibI", 0, 2, crc32c.crc32c(after_crc)) + after_crc
    return struct.pack(">qi", base_offset, len(body)) + body


def _offsets(c: _Corpus) -> None:
    """``__consumer_offsets`` records: group metadata (key v2, value v0-v3) carrying real members'
    subscriptions and assignments, and offset commits; alone (``offsets-key-value``) and in log segments
    (plain and gzip batches, a control batch, a tombstone)."""
    from ..wire.builder import encode_wire, wire_class

    subs, asgs = c.data("consumer-subscription")[:40], c.data("consumer-assignment")[:40]
    key = (2).to_bytes(2, "big") + encode_wire("GroupMetadataKey", 2, wire_class("GroupMetadataKey",
                                                                                   "GroupMetadataKey")(group="g"))
    Value = wire_class("GroupMetadataValue", "GroupMetadataValue")
    Member = wire_class("GroupMetadataValue", "MemberMetadata")
    records: list[tuple[bytes, bytes | None]] = []
    for i, (sub, asg) in enumerate(zip(subs, asgs)):
        version = i % 4
        value = Value(protocol_type="consumer", generation=i, protocol="range", leader="m",
                      members=(Member(member_id="m", client_id="c" if i % 5 else _HOSTILE, client_host="/10.0.0.1",
                                      session_timeout=10_000, rebalance_timeout=30_000, subscription=sub,
                                      assignment=asg),))
        body = version.to_bytes(2, "big") + encode_wire("GroupMetadataValue", version, value)
        c.add("offsets-key-value", len(key).to_bytes(2, "big") + key + body, f"built: GroupMetadataValue v{version}")
        records.append((key, body))
    for v in (0, 1):
        ck = (v).to_bytes(2, "big") + encode_wire("OffsetCommitKey", v, wire_class("OffsetCommitKey", "OffsetCommitKey")(
            group="g", topic="orders", partition=3))
        for vv in range(4):
            cls = wire_class("OffsetCommitValue", "OffsetCommitValue")
            cv = vv.to_bytes(2, "big") + encode_wire("OffsetCommitValue", vv, cls(offset=1234, metadata="meta"))
            c.add("offsets-key-value", len(ck).to_bytes(2, "big") + ck + cv, f"built: OffsetCommit key v{v} value v{vv}")
            records.append((ck, cv))
    for i in range(0, len(records), 4):
        chunk = records[i:i + 4]
        seg = _batch(chunk, base_offset=100 + i)
        if i % 8 == 4:
            seg += _batch(chunk[:1] + [(chunk[0][0], None)], base_offset=1000 + i, codec=1)
        c.add("offsets-segment", seg, f"built: a log segment of records {i}-{i + len(chunk) - 1}")
    marker = (struct.pack(">hh", 0, 1), struct.pack(">hi", 0, 0))  # a COMMIT control record
    if records:
        c.add("offsets-segment", _batch([marker], base_offset=0, control=True) + _batch(records[:2], base_offset=1),
              "built: a control batch, then group metadata")


def _streams_and_pcaps(c: _Corpus, conns: dict[tuple, list[tuple[str, bytes]]], kio: list[bytes]) -> None:
    """Frame streams (size-prefixed frames back to back) and small captures made of them."""
    from ..capture.pcapwriter import conversation, pcap, pcapng

    def sized(frames: list[bytes]) -> bytes:
        return b"".join(len(f).to_bytes(4, "big") + f for f in frames)

    frames = c.data("request-frame")
    for i in range(0, min(len(frames), 300), 3):
        c.add("frame-stream", sized(frames[i:i + 3]), "request frames of the vectors, back to back")
    for i in range(0, len(kio), 25):
        c.add("frame-stream", sized(kio[i:i + 4]), "kio's request frames, back to back")
    for i in range(0, min(len(frames), 60), 4):
        segs = conversation([("c", len(f).to_bytes(4, "big") + f) for f in frames[i:i + 4]])
        c.add("pcap", pcap(segs) if i % 8 == 0 else pcapng(segs), "request frames of the vectors in a capture")
    # Whole conversations of real clients with the mock broker's responses: JoinGroup and SyncGroup pairs,
    # so that the capture story has generations to tell.
    group_conns = [(k, fs) for k, fs in sorted(conns.items())
                   if any(d[:2] in (b"\x00\x0b", b"\x00\x0e") for side, d in fs if side == "c")]
    for n, ((run, scenario, conn), fs) in enumerate(group_conns[::3][:16]):
        writes = [(side, len(d).to_bytes(4, "big") + d) for side, d in fs[:14]]
        c.add("frame-stream", b"".join(d for side, d in writes if side == "c"),
              f"captures/frames.jsonl {run}/{scenario}/{conn}: the requests, back to back")
        segs = conversation(writes, client=("127.0.0.1", 40000 + n))
        c.add("pcap", pcap(segs) if n % 2 else pcapng(segs), f"captures/frames.jsonl {run}/{scenario}/{conn}")


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
    _offsets(c)
    _streams_and_pcaps(c, conns, kio)
    return {k: tuple(v) for k, v in c.by_target.items()}


_DEFAULT = object()


def seed_corpus(shared: Path | None | object = _DEFAULT) -> dict[str, tuple[Seed, ...]]:
    """Seeds per target (see :class:`Seed`), from ``vectors/``, the shared folder (default
    :func:`shared_dir`; None: without it) and the messages built here."""
    return _corpus(shared_dir() if shared is _DEFAULT else shared)


def seeds(shared: Path | None | object = _DEFAULT) -> dict[str, list[bytes]]:
    """The bytes of :func:`seed_corpus`, per target."""
    return {k: [s.data for s in v] for k, v in seed_corpus(shared).items()}


# --- mutations --------------------------------------------------------------------------------------------

def mutate(data: bytes, rng: random.Random, pool: list[bytes]) -> bytes:
    """One random mutation of ``data`` (see the module docstring)."""
    b = bytearray(data)
    op = rng.randrange(7)
    if not b:
        op = 5
    if op == 0:  # flip 1-3 bits
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    elif op == 1:  # truncate
        del b[rng.randrange(len(b)):]
    elif op == 2:  # splice with another seed
        other = rng.choice(pool) if pool else bytes(b)
        b = b[:rng.randrange(len(b) + 1)] + other[rng.randrange(len(other) + 1):]
    elif op == 3:  # rewrite a 4-byte length/count field
        i = rng.randrange(len(b))
        b[i:i + 4] = (rng.choice(EXTREMES) & 0xFFFFFFFF).to_bytes(4, "big")
    elif op == 4:  # rewrite a 2-byte length field
        i = rng.randrange(len(b))
        b[i:i + 2] = (rng.choice(EXTREMES) & 0xFFFF).to_bytes(2, "big")
    elif op == 5:  # insert random bytes
        i = rng.randrange(len(b) + 1)
        b[i:i] = rng.randbytes(rng.randint(1, 8))
    else:  # duplicate a chunk
        i = rng.randrange(len(b))
        j = min(len(b), i + rng.randint(1, 16))
        b[i:i] = b[i:j]
    return bytes(b)


# --- the render pass --------------------------------------------------------------------------------------

# Text for people may hold a newline and nothing else below U+0020 (nor DEL, C1, U+2028/U+2029).
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")
# Kinds of the CLI for the targets that are not a message at a version
_KIND_OF_TARGET = {"subscription-info": "subscription-info", "assignment-info": "assignment-info",
                   "consumer-subscription": "consumer-subscription", "consumer-assignment": "consumer-assignment",
                   "request-frame": "request-frame"}
_MESSAGE_OF_KIND = {"subscription-info": "SubscriptionInfo", "assignment-info": "AssignmentInfo",
                    "connect-metadata": "ConnectMetadata", "connect-assignment": "ConnectAssignment"}
# pipeline kinds of the group bodies it reads
_PIPELINE_BODIES = {"JoinGroupRequest": "join-group-request", "JoinGroupResponse": "join-group-response",
                    "SyncGroupRequest": "sync-group-request", "SyncGroupResponse": "sync-group-response"}


def _kind_call(name: str) -> tuple[str, dict] | None:
    """(CLI kind, decode/encode options) of a target, or None for the record readers."""
    from ..conformance.messages import kind_of

    if name in _KIND_OF_TARGET:
        return _KIND_OF_TARGET[name], {}
    if name.startswith("connect-"):  # connect-metadata/r0: --version 0 picks the reader
        kind, _, reader = name.partition("/r")
        return kind, {"version": int(reader)}
    if name.startswith("response-frame/"):
        _, key, v = name.split("/")
        return "response-frame", {"api_key": int(key), "version": int(v[1:])}
    if "/v" in name:
        message, v = name.split("/v")
        return kind_of(message), {"version": int(v)}
    return None


def _text_problem(what: str, text: str) -> str | None:
    """Why ``text`` (for a terminal) is not fit to print: not UTF-8, or a control character in it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"{what} is not valid UTF-8: {e}"
    m = _CONTROL.search(text)
    if m:
        return f"{what} holds the control character {m.group()!r} at {m.start()}: {text[max(0, m.start() - 40):m.start() + 20]!r}"
    return None


def _json_problem(what: str, value) -> tuple[str | None, object]:
    """(why ``value`` written as the CLI writes JSON is not valid UTF-8 or does not read back the same, or
    None; the value read back from that JSON)."""
    from ..text import dumps

    try:
        out = dumps(value, indent=2)
        out.encode("utf-8")
    except (UnicodeEncodeError, TypeError, ValueError) as e:
        return f"{what}: {type(e).__name__}: {e}", None
    back = json.loads(out)
    return (f"{what} does not read back as the same value" if back != value else None), back


def _comparable(message: str | None, value):
    """A decoded Kafka-style value with Kafka's unordered collections sorted and the derived ``wire`` view
    of a SubscriptionInfo left out (it records the order on the wire, which the encoder chooses anew)."""
    from ..conformance.messages import normalize

    if isinstance(value, dict) and message == "SubscriptionInfo":
        value = {k: v for k, v in value.items() if k != "wire"}
    if isinstance(value, dict) and message in ("ConnectAssignment", "ConnectMetadata"):
        value = _connect_distinct(value)
    return normalize(message, value) if message else value


def _connect_distinct(value: dict) -> dict:
    """A Connect value with each connector named once in ``connectorIds`` and ``revokedConnectorIds`` (also in a
    metadata's ``allocation``): Kafka's writer groups the connectors in a map (``asMap``), so bytes naming one
    twice decode to a list no writer reproduces; the encoder, like Kafka's, writes it once. The revoked tasks
    sorted by connector, keeping their order inside one (Kafka groups them by connector, ``revokedAsMap``, as
    the assigned tasks, which :func:`codec.conformance.messages.normalize` sorts alike)."""
    value = dict(value)
    for k in ("connectorIds", "revokedConnectorIds"):
        if isinstance(value.get(k), list):
            value[k] = sorted(dict.fromkeys(json.dumps(c) for c in value[k]))
    if isinstance(value.get("revokedTaskIds"), list):
        value["revokedTaskIds"] = sorted(value["revokedTaskIds"], key=lambda t: json.dumps(
            t.get("connector") if isinstance(t, dict) else t))
    if isinstance(value.get("allocation"), dict):
        value["allocation"] = _connect_distinct(value["allocation"])
    return value


# What reader 1 reads beyond the v0 layout of an assignment (IncrementalCooperativeConnectProtocol)
_CONNECT_V1_ONLY = ("revokedConnectorIds", "revokedTaskIds", "delay")


def _connect_writable(value: dict, unversioned: bool) -> dict:
    """The part of a Connect value an encoding can reproduce. ``unversioned``: a v0 header read by reader 1,
    encoded at version 1 (Kafka's v0 writer has no room for what reader 1 read), so the versions differ, and
    with them the version of an allocation. An allocation with a v0 header read by reader 1 (Kafka writes the
    allocation at version 1 or 2) is written back at version 0, without reader 1's fields."""
    value = dict(value)
    if unversioned:
        value.pop("version", None)
    alloc = value.get("allocation")
    if isinstance(alloc, dict):
        alloc = dict(alloc)
        if alloc.get("version") == 0:
            for k in _CONNECT_V1_ONLY:
                alloc.pop(k, None)
        if unversioned:
            alloc.pop("version", None)
        value["allocation"] = alloc
    return value


def _order_free(message: str | None, value) -> bool:
    """Whether no unordered collection of the value (vectors/README.md: Kafka writes them in HashMap/HashSet
    order, and the decoded value keeps no order for them) holds two elements or more: only then can a
    re-encoding be asked to reproduce the input byte for byte."""
    if message == "SubscriptionInfo":
        return all(len(value.get(k) or ()) < 2 for k in ("taskOffsetSums", "prevTasks", "standbyTasks", "clientTags"))
    if message == "AssignmentInfo":
        for k in ("standbyTasks", "partitionsByHost", "standbyPartitionsByHost"):
            items = value.get(k) or ()
            if len(items) > 1 or any(len(e.get("partitions") or ()) > 1 for e in items):
                return False
    return True


def _render_kind(name: str, data: bytes, canonical: bool) -> list[str]:
    from ..conformance.runner import first_difference
    from ..kinds import get_kind

    kind_name, opts = _kind_call(name)
    kind = get_kind(kind_name)
    problems: list[str] = []
    read_back = {}
    for style in ("kafka", "native"):
        try:
            d = kind.decode(data, style=style, **opts)
        except DecodeError as e:
            return [f"decode --kind {kind_name} --style {style} rejects what the target accepted: {e}"]
        p, read_back[style] = _json_problem(f"decode --kind {kind_name} --style {style} JSON", d.value)
        if p:
            problems.append(p)
        if style == "kafka":
            value = d.value
            p = _text_problem(f"decode --kind {kind_name} --format pretty", d.pretty)
            if p:
                problems.append(p)
    if read_back["kafka"] is None:
        return problems
    if kind_name == "subscription-info" and value.get("version", 0) > 11:
        return problems  # a version probe: no such version to encode
    encode_opts, unversioned = opts, False
    if kind_name.startswith("consumer-"):  # Kafka's JSON of a ConsumerProtocol message does not carry its
        opts = encode_opts = {**opts, "version": struct.unpack_from(">h", data)[0]}  # version: encode --version N
    elif kind_name.startswith("connect-"):  # decode --version names the reader; encode --version the header,
        header = struct.unpack_from(">h", data)[0]  # but version 1 for a v0 header read by reader 1: Kafka's v0
        unversioned = header == 0 and opts["version"] >= 1  # writer has no room for the fields reader 1 read
        encode_opts = {**opts, "version": 1 if unversioned else header}  # (then the versions differ)
    message = _MESSAGE_OF_KIND.get(kind_name)
    where = f"encode --kind {kind_name} --style kafka"
    try:
        again = kind.encode(read_back["kafka"], style="kafka", **encode_opts)  # the JSON as the CLI wrote it
    except CodecError as e:
        return problems + [f"{where} refuses the decoded value: {e}"]
    if canonical and again != data and _order_free(message, value):
        problems.append(f"{where} of a canonical input gives other bytes: {again.hex()[:120]}")
    try:
        back = kind.decode(again, style="kafka", **opts).value
        third = kind.encode(back, style="kafka", **encode_opts)
    except CodecError as e:
        return problems + [f"{where}: the re-encoded bytes {again.hex()[:120]} do not decode and encode again: {e}"]
    want, got = _comparable(message, value), _comparable(message, back)
    if kind_name.startswith("connect-"):
        want, got = _connect_writable(want, unversioned), _connect_writable(got, unversioned)
    if got != want:
        diff = first_difference(want, got) or "a field more"
        problems.append(f"{where}: the re-encoded bytes {again.hex()[:120]} decode to another value ({diff})")
    if third != again:
        problems.append(f"{where} is not stable: {again.hex()[:80]} encodes again as {third.hex()[:80]}")
    return problems


def _story_problems(items, summary, kind: str) -> list[str]:
    """The capture story's outputs as ``rebalance-codec capture`` writes them: ``--json`` lines, and the text
    (each generation, the summary)."""
    from ..capture.story import Generation
    from ..capture.storytext import render_generation, render_summary
    from ..text import dumps

    problems = []
    for item in items:
        try:
            dumps(item.json(), default=str).encode("utf-8")
            if isinstance(item, Generation):
                p = _text_problem(f"capture story ({kind}) generation text", render_generation(item))
                if p:
                    problems.append(p)
        except Exception as e:  # noqa: BLE001 - any failure of an output is a finding
            problems.append(f"capture story ({kind}): {type(e).__name__}: {e}")
    try:
        dumps(summary.json()).encode("utf-8")
        p = _text_problem(f"capture story ({kind}) summary text", render_summary(summary, kind, "input"))
        if p:
            problems.append(p)
    except Exception as e:  # noqa: BLE001
        problems.append(f"capture story ({kind}) summary: {type(e).__name__}: {e}")
    return problems


def _render_story(name: str, data: bytes) -> list[str]:
    from ..capture.offsets import read_segment, read_text
    from ..capture.story import CaptureSummary, capture_story, offsets_story

    summary = CaptureSummary()
    try:
        if name == "pcap":
            items, kind = list(capture_story(io.BytesIO(data), ports={9092}, summary=summary)), "pcap"
        elif name == "offsets-segment":
            items, kind = list(offsets_story(read_segment(io.BytesIO(data)), summary=summary)), "segment"
        else:
            n = int.from_bytes(data[:2], "big")
            line = f"{data[2:2 + n].hex()}\t{data[2 + n:].hex()}"
            items, kind = list(offsets_story(read_text([line]), summary=summary)), "text"
    except Exception as e:  # noqa: BLE001 - the story reports bad input as records; anything raised is a finding
        return [f"capture story of {name}: {type(e).__name__}: {e}"]
    return _story_problems(items, summary, kind)


def _pipeline_row(name: str, data: bytes) -> dict | None:
    """The pipeline's input record for a target's bytes, or None when the pipeline does not read them."""
    if name in ("subscription-info", "assignment-info", "consumer-subscription", "consumer-assignment"):
        return {"kind": name, "data": data}
    if name == "request-frame" and len(data) >= 4:
        key, v = struct.unpack_from(">hh", data)
        return {"kind": "frame", "data": data, "api_key": key, "version": v, "direction": "request"}
    if name.startswith("response-frame/"):
        _, key, v = name.split("/")
        return {"kind": "frame", "data": data, "api_key": int(key), "version": int(v[1:]), "direction": "response"}
    if name == "offsets-key-value":
        n = int.from_bytes(data[:2], "big")
        return {"kind": "group-metadata", "key": data[2:2 + n], "data": data[2 + n:]}
    message, _, v = name.partition("/v")
    if message in _PIPELINE_BODIES:
        return {"kind": _PIPELINE_BODIES[message], "data": data, "version": int(v)}
    if name.startswith("connect-"):
        return _connect_carrier(name.split("/")[0], data)
    return None


#: the requests that carry a Connect target's bytes into the pipeline, at versions that name the protocol type
#: (SyncGroupRequest from v5), so that the stack goes down into Connect's layer
_CONNECT_CARRIERS = {"connect-metadata": ("JoinGroupRequest", 5), "connect-assignment": ("SyncGroupRequest", 5)}


def _connect_carrier(kind: str, data: bytes) -> dict:
    """A Connect target's bytes as the pipeline meets them: a worker's metadata in a JoinGroupRequest of a group
    of protocol type ``connect``, an assignment in the leader's SyncGroupRequest (the pipeline reads both with
    the v1/v2 deserializer, as every worker since Kafka 2.3 does)."""
    from ..group.messages import encode_message
    from ..wire.builder import wire_class

    message, version = _CONNECT_CARRIERS[kind]
    if message == "JoinGroupRequest":
        body = wire_class(message, message)(
            group_id="g", member_id="w", protocol_type="connect",
            protocols=(wire_class(message, "JoinGroupRequestProtocol")(name="sessioned", metadata=data),))
    else:
        body = wire_class(message, message)(
            group_id="g", generation_id=1, member_id="w", protocol_type="connect", protocol_name="sessioned",
            assignments=(wire_class(message, "SyncGroupRequestAssignment")(member_id="w", assignment=data),))
    return {"kind": _PIPELINE_BODIES[message], "data": encode_message(message, version, body), "version": version}


@functools.cache
def _pipeline():
    try:
        from ..pipeline.arrow import decode_table
    except ImportError:  # pyarrow is the spark extra's
        return None
    return decode_table


def _rows_problems(batch: list[tuple[str, bytes]]) -> list[tuple[int, str]]:
    """The pipeline's Arrow rows of many inputs at once (one table: a table per input costs a millisecond);
    (index in ``batch``, problem) for each input whose rows fail. A failing table is retried input by input
    to find the culprits."""
    decode_table = _pipeline()
    rows = [(i, r) for i, (name, data) in enumerate(batch) if (r := _pipeline_row(name, data)) is not None]
    if decode_table is None or not rows:
        return []
    try:
        table = decode_table([{**r, "record_id": str(i)} for i, r in rows]).to_pylist()
    except Exception as e:  # noqa: BLE001 - the pipeline quarantines bad records; anything raised is a finding
        if len(rows) == 1:
            return [(rows[0][0], f"pipeline rows: {type(e).__name__}: {e}")]
        return [(i, q) for i, _ in rows for _, q in _rows_problems([batch[i]])]
    problems = []
    strict = {i for i, (name, data) in enumerate(batch)
              if name in ("subscription-info", "assignment-info") or _connect_read_by_pipeline(name, data)}
    for r in table:
        i = int(r["record_id"])
        if i in strict and r.get("error_type"):
            problems.append((i, f"pipeline rows: quarantined what the codec decodes: {r['error_type']}: "
                                f"{r['error_message']}"))
    return problems


def _connect_read_by_pipeline(name: str, data: bytes) -> bool:
    """Whether a Connect target's bytes are read by the v1/v2 deserializer (the pipeline's): then the pipeline
    must not quarantine them."""
    if not name.startswith("connect-"):
        return False
    from ..connect import decode_connect_assignment, decode_connect_metadata
    from ..errors import CodecError

    decode = decode_connect_metadata if name.startswith("connect-metadata") else decode_connect_assignment
    try:
        decode(data, reader_version=1)
    except CodecError:
        return False
    return True


def _render_outputs(name: str, data: bytes, canonical: bool) -> list[str]:
    """Every output but the pipeline's rows (see :func:`render`)."""
    if name in ("pcap", "offsets-segment", "offsets-key-value"):
        return _render_story(name, data)
    if name == "frame-stream":
        from ..group import decode_request_frame

        problems = []
        for frame in _targets()[name](data):
            try:
                decode_request_frame(frame)
            except DecodeError:
                continue
            problems += _render_kind("request-frame", frame, False)
        return problems
    return _render_kind(name, data, canonical)


def render(name: str, data: bytes, *, canonical: bool = False) -> list[str]:
    """Every output of a value ``targets()[name]`` decoded from ``data`` (see the module docstring); the
    problems found, empty when every output is sound. ``canonical``: the input is canonical (its vector says
    so, or the encoder wrote it), so re-encoding must give ``data`` back wherever the value has no unordered
    collection of two elements or more."""
    return _render_outputs(name, data, canonical) + [p for _, p in _rows_problems([(name, data)])]


# --- the loop ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Violation:
    target: str
    data: bytes
    error: str


@dataclass
class FuzzReport:
    inputs: int = 0
    decoded: int = 0
    rejected: int = 0
    rendered: int = 0  # decoded values taken through every output (render pass)
    compared: int = 0  # inputs also decoded by the pure-Python codec and compared (differential oracle)
    per_target: dict[str, int] = field(default_factory=dict)
    rendered_per_target: dict[str, int] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    slowest: float = 0.0


class _Renderer:
    """The render pass inside :func:`run`: each input's outputs at once, the pipeline's rows in batches."""

    BATCH = 256

    def __init__(self, report: FuzzReport) -> None:
        self.report = report
        self.pending: list[tuple[str, bytes]] = []

    def __call__(self, name: str, data: bytes, canonical: bool) -> None:
        try:
            problems = _render_outputs(name, data, canonical)
        except Exception as e:  # noqa: BLE001 - a crash of an output is a finding too
            problems = [f"{type(e).__name__}: {e}"]
        self.report.rendered += 1
        self.report.rendered_per_target[name] = self.report.rendered_per_target.get(name, 0) + 1
        self.report.violations.extend(Violation(name, data, f"render: {p}") for p in problems)
        self.pending.append((name, data))
        if len(self.pending) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        batch, self.pending = self.pending, []
        for i, p in _rows_problems(batch):
            self.report.violations.append(Violation(batch[i][0], batch[i][1], f"render: {p}"))


def _outcome(fn: Target, data: bytes) -> tuple:
    """What a target makes of ``data``, comparable across the two codecs: its value, or its error's class,
    text (message, version, offset, path) and offset; anything but a DecodeError as a crash."""
    try:
        return ("value", fn(data))
    except DecodeError as e:
        return ("error", type(e).__name__, str(e), e.offset)
    except Exception as e:  # noqa: BLE001 - compared, and reported, like the rest
        return ("crash", type(e).__name__, str(e))


def differential(fn: Target, data: bytes, native_outcome: tuple | None = None) -> str | None:
    """The difference between the native and the pure-Python codec on one input, or None when they agree
    (or there is no native codec). ``native_outcome``: :func:`_outcome` with the native codec, if already
    known."""
    from ..wire import native

    if not native.available():
        return None
    if native_outcome is None:
        old = native.set_active(True)
        try:
            native_outcome = _outcome(fn, data)
        finally:
            native.set_active(old)
    old = native.set_active(False)
    try:
        python = _outcome(fn, data)
    finally:
        native.set_active(old)
    if python == native_outcome or repr(python) == repr(native_outcome):  # repr: values holding exceptions
        return None                                                           # (a capture's BadFile) compare so

    def said(o: tuple) -> str:
        return "a value" if o[0] == "value" else f"{o[1]}: {o[2]}"[:300]
    if python[0] == native_outcome[0] == "value":
        return "the native and the pure-Python codec decode to different values"
    return f"native {said(native_outcome)}; pure Python {said(python)}"


def run(n: int, *, seed: int = 0, only: list[str] | None = None, time_limit: float | None = None,
        max_seconds_per_input: float = 2.0, render: bool = False, render_seeds: int | None = None,
        shared: Path | None | object = _DEFAULT, differential_check: bool = True) -> FuzzReport:
    """``n`` mutated inputs spread over the targets (round robin), deterministic for ``seed``. Random
    bytes are mixed in for every target. With ``render``, the seeds its target decodes (all of them, or the
    first ``render_seeds`` of each target), then every decoded input, also go through :func:`render` (seeds
    first: a seed's canonical flag holds for its own bytes only). With ``differential_check`` (and the
    native codec installed), every input also goes through :func:`differential`."""
    from ..wire import native

    differential_check = differential_check and native.available()
    native_before = native.set_active(True) if differential_check else native.active()
    try:
        return _run(n, seed, only, time_limit, max_seconds_per_input, render, render_seeds, shared,
                    differential_check)
    finally:
        native.set_active(native_before)


def _run(n: int, seed: int, only, time_limit, max_seconds_per_input: float, render: bool, render_seeds,
         shared, differential_check: bool) -> FuzzReport:
    rng = random.Random(seed)
    all_targets = targets()
    names = [t for t in all_targets if not only or any(t.startswith(o) for o in only)]
    corpus = seed_corpus(shared)
    pool = {k: [s.data for s in v] for k, v in corpus.items()}
    flat = [s for ss in pool.values() for s in ss]
    report = FuzzReport()
    renderer = _Renderer(report) if render else None
    start = time.monotonic()
    if renderer is not None:
        for name in names:
            # the seeds that decode first: a rejected seed renders nothing
            for s in sorted(corpus.get(name, ()), key=lambda s: s.accepted is not True)[:render_seeds]:
                try:
                    all_targets[name](s.data)
                except DecodeError:
                    continue
                except Exception as e:  # noqa: BLE001 - a seed that crashes its target is a finding too
                    report.violations.append(Violation(name, s.data, f"{type(e).__name__}: {e}"))
                    continue
                renderer(name, s.data, s.canonical)
    for i in range(n):
        if time_limit is not None and time.monotonic() - start > time_limit:
            break
        name = names[i % len(names)]
        own = pool.get(name) or []
        if own and rng.random() < 0.9:
            data = rng.choice(own)
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                data = mutate(data, rng, own or flat)
        else:
            data = rng.randbytes(rng.randint(0, 64))
        t0 = time.perf_counter()
        got = _outcome(all_targets[name], data)
        took = time.perf_counter() - t0
        ok = got[0] == "value"
        if ok:
            report.decoded += 1
        elif got[0] == "error":
            report.rejected += 1
        else:  # this is what we are hunting for
            report.violations.append(Violation(name, data, f"{got[1]}: {got[2]}"))
        if differential_check:
            problem = differential(all_targets[name], data, got)
            report.compared += 1
            if problem is not None:
                report.violations.append(Violation(name, data, f"differential: {problem}"))
        report.slowest = max(report.slowest, took)
        if took > max_seconds_per_input:
            report.violations.append(Violation(name, data, f"took {took:.2f} s"))
        if ok and renderer is not None:
            renderer(name, data, False)
        report.inputs += 1
        report.per_target[name] = report.per_target.get(name, 0) + 1
    if renderer is not None:
        renderer.flush()
    return report


# --- regression vectors -----------------------------------------------------------------------------------

_KEY_ORDER = ("id", "message", "version", "apiKey", "description", "wire", "expected", "result", "error",
              "canonical", "flags", "provenance")


def regression_vector(message: str, version: int | None, data: bytes, reason: str, *, vid: str,
                      expected: dict | None = None, canonical: bool = False, flags: tuple[str, ...] = (),
                      api_key: int | None = None, error: str = "invalid-value",
                      description: str | None = None) -> dict:
    """A vector (``vectors/schema.json``) that keeps a finding fixed, with ``provenance.source``
    ``regression``. Without ``expected`` the input must be rejected cleanly (``invalid``, ``error``); with
    it, it must decode to ``expected`` (``valid``; ``canonical`` when encoding ``expected`` gives ``data``
    back). ``reason`` says what went wrong (``provenance.note``), ``description`` what the vector holds
    (default: the reason)."""
    v: dict = {"id": vid, "message": message, "version": version, "apiKey": api_key,
               "description": (description or f"Found by fuzzing: {reason}")[:300], "wire": data.hex()}
    if expected is None:
        v.update(result="invalid", error=error)
    else:
        v.update(expected=expected, result="valid")
    v.update(canonical=bool(canonical and expected is not None), flags=sorted(set(flags)),
             provenance={"source": "regression", "note": reason[:500]})
    return {k: v[k] for k in _KEY_ORDER if v.get(k) is not None or k == "version"}


#: Every finding that became a vector (``vectors/regression.jsonl``): the arguments of
#: :func:`regression_vector`. The bytes and the expected values are written out by hand from the messages'
#: layouts (kafka-wire-facts §2-§3, Kafka's message JSON), never taken from the decoder.
REGRESSIONS: tuple[dict, ...] = (
    dict(
        vid="regression-assignmentinfo-v7-lone-surrogates",
        message="AssignmentInfo", version=7,
        # version 7, commonly supported 11, no active or standby tasks, topic dictionary {0: "t" U+DFFF},
        # one host ("h" U+D800, port 1) holding partition 0 of topic 0, no standby hosts, error 0,
        # nextRebalanceMs Long.MAX_VALUE. writeUTF writes a lone surrogate as three bytes of modified
        # UTF-8: U+D800 = 1110_1101 10_100000 10_000000 = ed a0 80, U+DFFF = ed bf bf.
        data=bytes.fromhex("00000007" "0000000b" "00000000" "00000000" "00000001" "00000000" "0004" "74edbfbf"
                           "00000001" "0004" "68eda080" "00000001" "00000001" "00000000" "00000000" "00000000"
                           "00000000" "7fffffffffffffff"),
        expected={"version": 7, "commonlySupportedVersion": 11, "activeTasks": [], "standbyTasks": [],
                  "partitionsByHost": [{"host": "h\ud800", "port": 1,
                                        "partitions": [{"topic": "t\udfff", "partition": 0}]}],
                  "standbyPartitionsByHost": [], "errCode": 0, "nextRebalanceMs": 9223372036854775807},
        canonical=True, flags=("modified-utf8",),
        description="AssignmentInfo v7 whose host (writeUTF bytes 68 ed a0 80) is 'h' and the lone surrogate "
                    "U+D800 and whose topic (74 ed bf bf) is 't' and U+DFFF; Kafka's readUTF accepts both",
        reason="issue #16: a Java string with a lone surrogate, written by json.dumps(ensure_ascii=False), "
               "could not be encoded as UTF-8: decode --style kafka and --format pretty failed with "
               "UnicodeEncodeError"),
    dict(
        vid="regression-assignmentinfo-v10-lone-surrogate-topology",
        message="AssignmentInfo", version=10,
        # version 10, commonly supported 10, one active task: subtopology 0, partition 0, named topology of
        # one UTF-16 char d800 (int32 char count, then the chars, as writeChars); no standby tasks, an empty
        # topic dictionary, no hosts, no standby hosts, error 0, nextRebalanceMs Long.MAX_VALUE.
        data=bytes.fromhex("0000000a" "0000000a" "00000001" "00000000" "00000000" "00000001" "d800"
                           "00000000" "00000000" "00000000" "00000000" "00000000" "7fffffffffffffff"),
        expected={"version": 10, "commonlySupportedVersion": 10,
                  "activeTasks": [{"subtopology": 0, "partition": 0, "topologyName": "\ud800"}],
                  "standbyTasks": [], "partitionsByHost": [], "standbyPartitionsByHost": [], "errCode": 0,
                  "nextRebalanceMs": 9223372036854775807},
        canonical=True, flags=("named-topology",),
        description="AssignmentInfo v10 with one active task of the named topology whose single UTF-16 char "
                    "(d800) is the lone surrogate U+D800; Kafka's readChar loop accepts it",
        reason="render pass: the second Java-string field (javaChars) carries lone surrogates too; the "
               "pretty view (not UTF-8) and the pipeline's Arrow rows (UnicodeEncodeError in pyarrow) failed "
               "on it"),
    dict(
        vid="regression-heartbeatrequest-v0-control-characters",
        message="HeartbeatRequest", version=0,
        # group id "" (int16 length 0), generation -1, member id of 25 UTF-8 bytes: "m-1", ESC, "[2J", LF,
        # "FORGED LINE", U+2028 (e2 80 a8), DEL, backslash, "x"
        data=bytes.fromhex("0000" "ffffffff" "0019" "6d2d31" "1b" "5b324a" "0a" "464f52474544204c494e45" "e280a8"
                           "7f" "5c" "78"),
        expected={"groupId": "", "generationId": -1, "memberId": "m-1\x1b[2J\nFORGED LINE\u2028\x7f\\x"},
        canonical=True,
        description="HeartbeatRequest v0 whose member id holds ESC, a line feed, U+2028, DEL and a backslash; "
                    "the decoded string keeps every one of them",
        reason="render pass: the group pretty view wrote strings with json.dumps, which leaves DEL and U+2028 "
               "raw, so a member id could add a line to the view; escaping belongs to the view, the value "
               "keeps the bytes' characters"),
)


def regression_vectors() -> list[dict]:
    """The vectors of :data:`REGRESSIONS` (the content of ``vectors/regression.jsonl``)."""
    return [regression_vector(**r) for r in REGRESSIONS]


def write_regression_vectors(path: Path) -> int:
    """Write :func:`regression_vectors` to ``path``: JSON lines, every character outside ASCII as its escape
    (the strings hold lone surrogates and U+2028, which ``str.splitlines`` would take for a line break)."""
    vectors = regression_vectors()
    Path(path).write_text("".join(json.dumps(v, ensure_ascii=True) + "\n" for v in vectors), encoding="utf-8")
    return len(vectors)
