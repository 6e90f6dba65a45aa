"""Helpers of the story tests: running ``capture`` through its argparse registration, and a synthetic
Kafka Streams capture whose Streams bytes are Kafka's own (nested_streams.jsonl).

The capture: one group ``streams-app``; for each record of nested_streams.jsonl (Streams v1-11), one
generation, numbered by the record's Streams version, in which member ``m-<v>`` (client ``app-<v>``)
sends Kafka's JoinGroupRequest body, gets a JoinGroup response naming protocol ``stream`` and itself as
leader (its subscription echoed, as a broker does), sends a SyncGroup request carrying Kafka's
ConsumerProtocolAssignment bytes, gets Kafka's SyncGroupResponse body, then heartbeats once. The
headers and the bodies not written by Kafka are encoded with codec.group; each frame is one TCP segment.
"""

from __future__ import annotations

import argparse
import base64
import io
import json

from codec.capture.command import register
from codec.capture.pcapwriter import Seg, TcpConnection, pcap
from codec.group import (
    decode_message,
    encode_request_frame,
    encode_response_frame,
    request_frame,
    response_frame,
    size_prefix,
)
from codec.wire.builder import wire_class
from tests.conftest import KAFKA_VECTORS, load_jsonl

GROUP = "streams-app"
BROKER = ("10.0.0.9", 9092)


def run_capture(path, *argv: str) -> tuple[int, str]:
    """``capture PATH ARGV...`` through the subcommand's own registration: (exit status, stdout)."""
    p = argparse.ArgumentParser()
    register(p.add_subparsers(dest="command"))
    args = p.parse_args(["capture", str(path), *argv])
    out, err = io.StringIO(), io.StringIO()
    return args.func(args, out=out, err=err), out.getvalue()


def json_lines(path, *argv: str, status: int | None = 0) -> list[dict]:
    """The JSON lines of ``capture --json``; ``status``: the exit status expected (None: 1 exactly when the
    summary reports the file unreadable to its end, problem ``bad file``, else 0)."""
    got, text = run_capture(path, "--json", *argv)
    lines = [json.loads(line) for line in text.split("\n") if line]  # not splitlines: U+2028 may be in a string
    if status is None:
        status = 1 if "bad file" in lines[-1]["problems"] else 0
    assert got == status
    return lines


def streams_records() -> list[dict]:
    return load_jsonl(KAFKA_VECTORS / "nested_streams.jsonl")


def _request(key: int, version: int, cid: int, client: str, body_hex: str | None = None, body=None) -> bytes:
    """A size-prefixed request frame: header by codec.group, body Kafka's bytes (``body_hex``) or ``body``."""
    if body_hex is None:
        return encode_request_frame(request_frame(key, version, cid, client, body), size_prefixed=True)
    name = {11: "JoinGroupRequest"}[key]
    model = decode_message(name, version, bytes.fromhex(body_hex)).value
    frame = encode_request_frame(request_frame(key, version, cid, client, model))
    assert frame.endswith(bytes.fromhex(body_hex))  # the body is Kafka's, byte for byte
    return size_prefix(frame)


def _response(key: int, version: int, cid: int, body_hex: str | None = None, body=None) -> bytes:
    if body_hex is None:
        return encode_response_frame(response_frame(key, version, cid, body), size_prefixed=True)
    model = decode_message("SyncGroupResponse", version, bytes.fromhex(body_hex)).value
    frame = encode_response_frame(response_frame(key, version, cid, model))
    assert frame.endswith(bytes.fromhex(body_hex))
    return size_prefix(frame)


def generation_frames(r: dict) -> list[tuple[str, bytes]]:
    """The ("c"|"s", frame) writes of one record's generation (see the module docstring)."""
    v = r["streamsVersion"]
    member, client = f"m-{v}", f"app-{v}"
    join = r["joinGroupRequest"]
    jv = join["version"]
    metadata = base64.b64decode(join["data"]["protocols"][0]["metadata"])
    jr = wire_class("JoinGroupResponse", "JoinGroupResponse")
    jm = wire_class("JoinGroupResponse", "JoinGroupResponseMember")
    join_resp = jr(
        error_code=0,
        generation_id=v,
        protocol_type="consumer",
        protocol_name="stream",
        leader=member,
        member_id=member,
        members=(jm(member_id=member, metadata=metadata),),
    )
    sync = r["syncGroupResponse"]
    sv = sync["version"]
    sa = wire_class("SyncGroupRequest", "SyncGroupRequestAssignment")
    assignment = bytes.fromhex(r["consumerProtocolAssignment"]["hexVersionPrefixed"])
    sync_req = wire_class("SyncGroupRequest", "SyncGroupRequest")(
        group_id=GROUP,
        generation_id=v,
        member_id=member,
        protocol_type="consumer",
        protocol_name="stream",
        assignments=(sa(member_id=member, assignment=assignment),),
    )
    hb = wire_class("HeartbeatRequest", "HeartbeatRequest")(group_id=GROUP, generation_id=v, member_id=member)
    hb_resp = wire_class("HeartbeatResponse", "HeartbeatResponse")(error_code=0)
    return [
        ("c", _request(11, jv, 1, client, body_hex=join["hex"])),
        ("s", _response(11, jv, 1, body=join_resp)),
        ("c", _request(14, sv, 2, client, body=sync_req)),
        ("s", _response(14, sv, 2, body_hex=sync["hex"])),
        ("c", _request(12, 3, 3, client, body=hb)),
        ("s", _response(12, 3, 3, body=hb_resp)),
    ]


def streams_segments(records: list[dict]) -> list[Seg]:
    """One connection per generation, one segment per frame, 1 s between generations."""
    segs: list[Seg] = []
    for i, r in enumerate(records):
        conn = TcpConnection((f"10.0.1.{i + 1}", 40000 + i), BROKER, mss=1 << 16)
        t = 1_700_000_000.0 + i
        conn.open(t)
        for j, (side, data) in enumerate(generation_frames(r)):
            conn.write(side, data, t + 0.01 * (j + 1))
        conn.close(t + 0.5)
        segs += conn.segments
    return sorted(segs, key=lambda s: s.ts)


def streams_pcap(records: list[dict]) -> bytes:
    return pcap(streams_segments(records))


def task(t: dict) -> str:
    """Kafka's TaskId.toString: ``[topologyName__]subtopology_partition``."""
    base = f"{t['subtopology']}_{t['partition']}"
    return f"{t['topologyName']}__{base}" if t.get("topologyName") else base


def by_name(pairs) -> dict[str, list[int]]:
    """(name, number) pairs as the story's JSON writes items: each name once, ``{name: [numbers]}``, sorted."""
    out: dict[str, list[int]] = {}
    for name, n in pairs:
        out.setdefault(name, []).append(n)
    return {k: sorted(out[k]) for k in sorted(out)}


def moved_items(changes: dict, kind: str) -> set[tuple]:
    """Every (name, number) item of one kind the changes of a generation moved (or names, for kinds without
    numbers), whichever members it moved between."""
    out = set()
    for move in changes["moved"].get(kind, []):
        items = move["items"]
        out |= {(k, n) for k, ns in items.items() for n in ns} if isinstance(items, dict) else set(items)
    return out
