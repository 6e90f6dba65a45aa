"""Helpers for captures written frame by frame: group frames encoded with codec.group (headers and bodies),
other frames by hand, and the installed ``rebalance-codec`` console script run in a subprocess.

Frames are returned size-prefixed, as they go on the wire; ``payload_offsets`` gives where each data
segment of a :class:`~codec.capture.pcapwriter.TcpConnection` side starts in its stream (from its
sequence number and the connection's ISN), so that tests can state byte counts by construction.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

from codec.capture.pcapwriter import Seg
from codec.group import encode_request_frame, encode_response_frame, request_frame, response_frame
from codec.wire.builder import wire_class

CONSOLE_SCRIPT = Path(sys.executable).with_name("rebalance-codec")


def join_request(
    cid: int, client: str, group: str, member: str, protocols: list[tuple[str, bytes]], instance: str | None = None
) -> bytes:
    proto = wire_class("JoinGroupRequest", "JoinGroupRequestProtocol")
    body = wire_class("JoinGroupRequest", "JoinGroupRequest")(
        group_id=group,
        session_timeout_ms=10000,
        rebalance_timeout_ms=30000,
        member_id=member,
        group_instance_id=instance,
        protocol_type="consumer",
        protocols=tuple(proto(name=n, metadata=m) for n, m in protocols),
    )
    return encode_request_frame(request_frame(11, 5, cid, client, body), size_prefixed=True)


def join_response(cid: int, generation: int, protocol: str, member: str, metadata: bytes) -> bytes:
    """The JoinGroup v5 response of a group whose only member (``member``) is its leader."""
    jm = wire_class("JoinGroupResponse", "JoinGroupResponseMember")
    body = wire_class("JoinGroupResponse", "JoinGroupResponse")(
        error_code=0,
        generation_id=generation,
        protocol_name=protocol,
        leader=member,
        member_id=member,
        members=(jm(member_id=member, metadata=metadata),),
    )
    return encode_response_frame(response_frame(11, 5, cid, body), size_prefixed=True)


def sync_request(cid: int, client: str, group: str, generation: int, member: str, assignment: bytes) -> bytes:
    sa = wire_class("SyncGroupRequest", "SyncGroupRequestAssignment")
    body = wire_class("SyncGroupRequest", "SyncGroupRequest")(
        group_id=group,
        generation_id=generation,
        member_id=member,
        assignments=(sa(member_id=member, assignment=assignment),),
    )
    return encode_request_frame(request_frame(14, 3, cid, client, body), size_prefixed=True)


def sync_response(cid: int, assignment: bytes) -> bytes:
    body = wire_class("SyncGroupResponse", "SyncGroupResponse")(error_code=0, assignment=assignment)
    return encode_response_frame(response_frame(14, 3, cid, body), size_prefixed=True)


def heartbeat_request(cid: int, client: str, group: str, generation: int, member: str) -> bytes:
    body = wire_class("HeartbeatRequest", "HeartbeatRequest")(
        group_id=group, generation_id=generation, member_id=member
    )
    return encode_request_frame(request_frame(12, 3, cid, client, body), size_prefixed=True)


def heartbeat_response(cid: int, error_code: int = 0) -> bytes:
    """14 bytes: size, correlation id, throttle time, error code (HeartbeatResponse v3)."""
    body = wire_class("HeartbeatResponse", "HeartbeatResponse")(error_code=error_code)
    return encode_response_frame(response_frame(12, 3, cid, body), size_prefixed=True)


def leave_request(cid: int, client: str, group: str, member: str, instance: str | None, reason: str | None) -> bytes:
    """LeaveGroup v5 (flexible, one member with its reason)."""
    mi = wire_class("LeaveGroupRequest", "MemberIdentity")
    body = wire_class("LeaveGroupRequest", "LeaveGroupRequest")(
        group_id=group, members=(mi(member_id=member, group_instance_id=instance, reason=reason),)
    )
    return encode_request_frame(request_frame(13, 5, cid, client, body), size_prefixed=True)


def leave_response(cid: int, member: str, instance: str | None) -> bytes:
    mr = wire_class("LeaveGroupResponse", "MemberResponse")
    body = wire_class("LeaveGroupResponse", "LeaveGroupResponse")(
        error_code=0, members=(mr(member_id=member, group_instance_id=instance, error_code=0),)
    )
    return encode_response_frame(response_frame(13, 5, cid, body), size_prefixed=True)


def raw_request(key: int, version: int, cid: int, body: bytes, client: bytes = b"cli") -> bytes:
    """A request frame of any API, by hand: size, key, version, correlation id, client id, body."""
    payload = struct.pack(">hhih", key, version, cid, len(client)) + client + body
    return struct.pack(">i", len(payload)) + payload


def raw_response(cid: int, body: bytes) -> bytes:
    return struct.pack(">ii", len(body) + 4, cid) + body


def consumer_assignment_v0(partitions: dict[str, list[int]], user_data: bytes | None) -> bytes:
    """ConsumerProtocolAssignment v0 by hand: int16 version, int32 topic count, (int16 string, int32 count,
    int32 partitions) per topic, then user data as int32-length bytes (-1: null)."""
    out = struct.pack(">hi", 0, len(partitions))
    for topic, ps in partitions.items():
        t = topic.encode()
        out += struct.pack(">h", len(t)) + t + struct.pack(f">i{len(ps)}i", len(ps), *ps)
    return out + (struct.pack(">i", -1) if user_data is None else struct.pack(">i", len(user_data)) + user_data)


def stream_offset(seg: Seg, isn: int) -> int:
    """Where a data segment starts in its direction's stream (the SYN takes sequence number ``isn``)."""
    return seg.seq - isn - 1


def run_console(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    """The installed console script, run from ``tmp_path`` (not the checkout); stdout as bytes."""
    assert CONSOLE_SCRIPT.exists(), f"console script not installed next to {sys.executable}"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(CONSOLE_SCRIPT), *argv], cwd=tmp_path, capture_output=True, env=env, timeout=300)


def console_json(tmp_path: Path, *argv: str) -> list[dict]:
    done = run_console(tmp_path, "capture", *argv, "--json")
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return [json.loads(line) for line in done.stdout.decode("utf-8").split("\n") if line]


__all__ = [
    "CONSOLE_SCRIPT",
    "join_request",
    "join_response",
    "sync_request",
    "sync_response",
    "heartbeat_request",
    "heartbeat_response",
    "leave_request",
    "leave_response",
    "raw_request",
    "raw_response",
    "consumer_assignment_v0",
    "stream_offset",
    "run_console",
    "console_json",
]
