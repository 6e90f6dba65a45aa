"""Fuzzing every decoder: targets, seeds, mutations, and the invariant.

The invariant (README "Input policy"): whatever bytes come in, every entry point returns a value or raises
:class:`~codec.errors.DecodeError` — nothing else — in bounded time and memory. The record-level readers
(the frame stream, captures, ``__consumer_offsets`` segments) report bad input as records instead of
raising, so there the invariant is simply "no exception".

* :func:`targets` — every decoding entry point, by name, as a function of one ``bytes``;
* :func:`seeds` — valid inputs for each target, from the golden vectors (``vectors/``);
* :func:`mutate` — one random mutation: bit flips, truncation, splices with another seed, a length or count
  field rewritten to an extreme value, inserted or duplicated bytes;
* :func:`run` — a deterministic loop (seeded) over targets and mutations, counting inputs and collecting
  violations. ``rebalance-codec fuzz`` runs it; the test suite runs a bounded pass, ``pytest -m fuzz`` a long
  one, and ``tests/fuzz/atheris_harness.py`` a coverage-guided one (the ``fuzz`` extra).

A violation found here becomes a ``regression`` vector (:func:`regression_vector`) so it stays fixed.
"""

from __future__ import annotations

import io
import random
import time
from dataclasses import dataclass, field
from typing import Callable

from .errors import DecodeError

__all__ = ["targets", "seeds", "mutate", "run", "FuzzReport", "Violation", "regression_vector", "EXTREMES"]

Target = Callable[[bytes], object]

#: Values a rewritten length or count field takes: empty, null, negative, one past, and huge.
EXTREMES = (0, 1, -1, -2, 0x7F, 0x80, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, -0x80000000, 2_000_000_000)


def _group_targets() -> dict[str, Target]:
    from .group import MESSAGES, decode_consumer, decode_message, decode_request_frame, decode_response_frame
    from .group.apis import API_KEYS
    from .group.stream import FrameReader
    from .wire.schema import load_message

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
    from .capture import kafka_frames
    from .capture.offsets import decode_key, decode_value, read_segment

    def pcap(b: bytes) -> object:
        return list(kafka_frames(io.BytesIO(b)))

    def segment(b: bytes) -> object:
        return list(read_segment(io.BytesIO(b)))

    def offsets_record(b: bytes) -> object:  # [uint16 key length][key][value]
        n = int.from_bytes(b[:2], "big")
        version, *_ = decode_key(b[2:2 + n])
        return decode_value(version, b[2 + n:])

    return {"pcap": pcap, "offsets-segment": segment, "offsets-key-value": offsets_record}


def targets() -> dict[str, Target]:
    from .streams import decode_assignment, decode_subscription

    out: dict[str, Target] = {"subscription-info": decode_subscription, "assignment-info": decode_assignment}
    out.update(_group_targets())
    out.update(_record_targets())
    return out


def seeds() -> dict[str, list[bytes]]:
    """Valid inputs per target, from the golden vectors and the handcrafted pcap/segment makers."""
    from .conformance.messages import MESSAGES as MESSAGE_KINDS
    from .conformance.vectors import load_vectors

    by_target: dict[str, list[bytes]] = {}
    kind_target = {"subscription-info": "subscription-info", "assignment-info": "assignment-info",
                   "consumer-subscription": "consumer-subscription", "consumer-assignment": "consumer-assignment",
                   "request-frame": "request-frame"}
    for v in load_vectors():
        if "wire" not in v or v.get("result") != "valid":
            continue
        wire = bytes.fromhex(v["wire"])
        kind = MESSAGE_KINDS.get(v["message"])
        if kind in kind_target:
            by_target.setdefault(kind_target[kind], []).append(wire)
        elif v["message"] == "ResponseFrame":
            by_target.setdefault(f"response-frame/{v['apiKey']}/v{v['version']}", []).append(wire)
        elif v.get("version") is not None:
            by_target.setdefault(f"{v['message']}/v{v['version']}", []).append(wire)
    frames = by_target.get("request-frame", [])
    by_target["frame-stream"] = [b"".join(len(f).to_bytes(4, "big") + f for f in frames[i:i + 3])
                                 for i in range(0, min(len(frames), 300), 3)]
    by_target["pcap"] = _pcap_seeds(frames)
    by_target["offsets-key-value"] = _offsets_seeds(by_target.get("consumer-subscription", []),
                                                    by_target.get("consumer-assignment", []))
    return by_target


def _offsets_seeds(subscriptions: list[bytes], assignments: list[bytes]) -> list[bytes]:
    """Group metadata records (key v2, value v0-v3) carrying real member subscriptions and assignments."""
    from .wire.builder import encode_wire, wire_class

    out = []
    key = (2).to_bytes(2, "big") + encode_wire("GroupMetadataKey", 2, wire_class("GroupMetadataKey",
                                                                                   "GroupMetadataKey")(group="g"))
    Value = wire_class("GroupMetadataValue", "GroupMetadataValue")
    Member = wire_class("GroupMetadataValue", "MemberMetadata")
    for i, (sub, asg) in enumerate(zip(subscriptions[:40], assignments[:40])):
        version = i % 4
        value = Value(protocol_type="consumer", generation=i, protocol="range", leader="m",
                      members=(Member(member_id="m", client_id="c", client_host="/10.0.0.1", session_timeout=10_000,
                                      rebalance_timeout=30_000, subscription=sub, assignment=asg),))
        body = (version).to_bytes(2, "big") + encode_wire("GroupMetadataValue", version, value)
        out.append(len(key).to_bytes(2, "big") + key + body)
    return out


def _pcap_seeds(frames: list[bytes]) -> list[bytes]:
    """Small captures of a few request frames each, as pcap and pcapng."""
    from .capture.pcapwriter import conversation, pcap, pcapng

    out = []
    for i in range(0, min(len(frames), 60), 4):
        segs = conversation([("c", len(f).to_bytes(4, "big") + f) for f in frames[i:i + 4]])
        out.append(pcap(segs) if i % 8 == 0 else pcapng(segs))
    return out


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
    per_target: dict[str, int] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    slowest: float = 0.0


def run(n: int, *, seed: int = 0, only: list[str] | None = None, time_limit: float | None = None,
        max_seconds_per_input: float = 2.0) -> FuzzReport:
    """``n`` mutated inputs spread over the targets (round robin), deterministic for ``seed``. Random
    bytes are mixed in for every target (also the ones without seeds)."""
    rng = random.Random(seed)
    all_targets = targets()
    names = [t for t in all_targets if not only or any(t.startswith(o) for o in only)]
    pool = seeds()
    flat = [s for ss in pool.values() for s in ss]
    report = FuzzReport()
    start = time.monotonic()
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
        try:
            all_targets[name](data)
            report.decoded += 1
        except DecodeError:
            report.rejected += 1
        except Exception as e:  # noqa: BLE001 - this is what we are hunting for
            report.violations.append(Violation(name, data, f"{type(e).__name__}: {e}"))
        took = time.perf_counter() - t0
        report.slowest = max(report.slowest, took)
        if took > max_seconds_per_input:
            report.violations.append(Violation(name, data, f"took {took:.2f} s"))
        report.inputs += 1
        report.per_target[name] = report.per_target.get(name, 0) + 1
    return report


def regression_vector(message: str, version: int | None, data: bytes, reason: str, *, vid: str) -> dict:
    """A vector that keeps a fuzzing find fixed: the input must be rejected cleanly (``invalid``)."""
    return {"id": vid, "message": message, "version": version,
            "description": f"Found by fuzzing: {reason[:200]}", "wire": data.hex(), "result": "invalid",
            "error": "invalid-value", "canonical": False, "flags": [],
            "provenance": {"source": "regression", "note": reason[:200]}}
