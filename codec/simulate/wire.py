"""The simulator's bytes: group frames built and read with the codec, and a recorder that keeps every frame.

Each member (one consumer of a Streams instance, one incarnation) has its own TCP connection to the
coordinator (``10.0.0.1:9092``); the recorder writes every request and response both as a
``frames.jsonl`` record (the capture corpus' format: the frame without its int32 size as ``hex``, with
``body_offset``, ``header_version``, ``error_code`` ...) and as TCP segments of a libpcap file that
:func:`codec.capture.kafka_frames` reads back.

API versions are those of a current Java client against a current broker: JoinGroup v9, SyncGroup v5,
Heartbeat v4, LeaveGroup v5 (all flexible: request header v2, response header v1).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..capture.pcapwriter import TcpConnection, pcap
from ..group import (
    decode_request_frame,
    decode_response_frame,
    encode_request_frame,
    encode_response_frame,
    request_frame,
    response_frame,
)
from ..wire.registry import api_for, api_key, apis, error_code, request_header_version, response_header_version
from ..wire.builder import wire_class

__all__ = [
    "JOIN_GROUP",
    "SYNC_GROUP",
    "HEARTBEAT",
    "LEAVE_GROUP",
    "API_VERSIONS",
    "Recorder",
    "STREAMS_CLIENT",
    "CONSUMER_CLIENT",
    "CONNECT_CLIENT",
    "Frames",
    "EPOCH",
    "MEMBER_ID_REQUIRED",
    "REBALANCE_IN_PROGRESS",
    "NONE",
    "UNKNOWN_MEMBER_ID",
]

JOIN_GROUP, HEARTBEAT, LEAVE_GROUP, SYNC_GROUP = (
    api_key(n) for n in ("JoinGroup", "Heartbeat", "LeaveGroup", "SyncGroup")
)
#: the version of each API the simulated members speak: its newest (the schemas')
API_VERSIONS = {k: apis()[k].valid.high for k in (JOIN_GROUP, SYNC_GROUP, HEARTBEAT, LEAVE_GROUP)}  # type: ignore[union-attr]
NONE, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS, MEMBER_ID_REQUIRED = (
    error_code(n) for n in ("NONE", "UNKNOWN_MEMBER_ID", "REBALANCE_IN_PROGRESS", "MEMBER_ID_REQUIRED")
)
#: Simulated time 0 is this wall-clock instant in the recorded timestamps (2023-11-14T22:13:20Z).
EPOCH = 1_700_000_000.0
COORDINATOR = ("10.0.0.1", 9092)
PROTOCOL_TYPE, PROTOCOL_NAME = "consumer", "stream"
#: the records' ``client`` of each kind of simulated member (``{release}``: the member's)
STREAMS_CLIENT = "simulated Kafka Streams {release}"
CONSUMER_CLIENT = "simulated Kafka consumer ({release})"
CONNECT_CLIENT = "simulated Kafka Connect worker ({release})"


def _cls(message: str, struct: str | None = None):
    return wire_class(message, struct or message)


class Frames:
    """Builders of the group messages' bodies (wire models for :func:`codec.group.request_frame`), as a Streams
    group's members (protocol type ``consumer``, protocol ``stream``) and its coordinator write them."""

    @staticmethod
    def join_request(
        group_id: str, member_id: str, metadata: bytes, session_ms: int, rebalance_ms: int, reason: str | None = None
    ):
        return join_request(
            PROTOCOL_TYPE,
            group_id,
            member_id,
            ((PROTOCOL_NAME, metadata),),
            session_ms=session_ms,
            rebalance_ms=rebalance_ms,
            reason=reason,
        )

    @staticmethod
    def join_response(
        error: int,
        generation: int,
        protocol: str | None,
        leader: str,
        member_id: str,
        members: dict[str, bytes] | None = None,
    ):
        return join_response(PROTOCOL_TYPE, generation, protocol, leader, member_id, members or {}, error=error)

    @staticmethod
    def sync_request(group_id: str, generation: int, member_id: str, assignments: dict[str, bytes]):
        return sync_request(PROTOCOL_TYPE, group_id, generation, member_id, PROTOCOL_NAME, assignments)

    @staticmethod
    def sync_response(error: int, assignment: bytes):
        return sync_response(PROTOCOL_TYPE, PROTOCOL_NAME, assignment, error=error)

    @staticmethod
    def heartbeat_request(group_id: str, generation: int, member_id: str):
        return _cls("HeartbeatRequest")(
            group_id=group_id, generation_id=generation, member_id=member_id, group_instance_id=None
        )

    @staticmethod
    def heartbeat_response(error: int):
        return _cls("HeartbeatResponse")(throttle_time_ms=0, error_code=error)

    @staticmethod
    def leave_request(group_id: str, member_id: str, reason: str):
        M = _cls("LeaveGroupRequest", "MemberIdentity")
        return _cls("LeaveGroupRequest")(
            group_id=group_id, member_id="", members=(M(member_id=member_id, group_instance_id=None, reason=reason),)
        )

    @staticmethod
    def leave_response(member_id: str):
        M = _cls("LeaveGroupResponse", "MemberResponse")
        return _cls("LeaveGroupResponse")(
            throttle_time_ms=0, error_code=0, members=(M(member_id=member_id, group_instance_id=None, error_code=0),)
        )


@dataclass
class _Conn:
    name: str  # "10.0.x.y:port"
    client_id: str
    release: str
    tcp: TcpConnection | None
    next_correlation: int = 1
    pending: dict[int, int] = field(default_factory=dict)  # correlation id -> api key
    last: float = float("-inf")  # the time of its last frame


class Recorder:
    """Encodes frames, keeps their bytes, and writes them out as ``frames.jsonl`` and a pcap.

    ``client``: each record's ``client``, with ``{release}`` the connection's release (Streams instances by
    default; :data:`CONSUMER_CLIENT`, :data:`CONNECT_CLIENT`). ``versions``: the version each API is spoken at
    (default :data:`API_VERSIONS`, the classic group APIs). ``keep=False`` still encodes and decodes every frame
    (the simulation's path is the same) but keeps only the byte counts, for long benchmark runs."""

    def __init__(
        self,
        *,
        scenario: str,
        protocol: str,
        run: str = "simulate",
        keep: bool = True,
        client: str = STREAMS_CLIENT,
        versions: Mapping[int, int] = API_VERSIONS,
    ) -> None:
        self.scenario, self.protocol, self.run, self.keep = scenario, protocol, run, keep
        self.client, self.versions = client, versions
        self.records: list[dict] = []
        self._conns: dict[str, _Conn] = {}
        self._hosts: dict[str, int] = {}
        self.coordinator_bytes = 0  # every response frame with its size prefix
        self.frames = 0

    def connect(self, key: str, instance: str, client_id: str, release: str, t: float) -> None:
        """Open the connection of one member incarnation (``key``), from its instance's address."""
        host = self._hosts.setdefault(instance, len(self._hosts) + 2)
        port = 40000 + sum(1 for c in self._conns.values() if c.name.startswith(f"{_ip(host)}:"))
        tcp = TcpConnection((_ip(host), port), COORDINATOR) if self.keep else None
        if tcp:
            tcp.open(EPOCH + t)
        self._conns[key] = _Conn(f"{_ip(host)}:{port}", client_id, release, tcp)

    def close(self, key: str, t: float) -> None:
        conn = self._conns.get(key)
        if conn and conn.tcp:
            conn.tcp.close(EPOCH + t)

    def request(self, key: str, api_key: int, body, t: float):
        """Encode a request on ``key``'s connection; returns (correlation id, the decoded frame as the
        coordinator reads it)."""
        conn = self._conns[key]
        cid = conn.next_correlation
        conn.next_correlation += 1
        version = self.versions[api_key]
        raw = encode_request_frame(request_frame(api_key, version, cid, conn.client_id, body))
        conn.pending[cid] = api_key
        self._record(conn, "request", api_key, version, cid, raw, t, None)
        return cid, decode_request_frame(raw, nested=False)

    def response(self, key: str, correlation_id: int, body, t: float):
        """Encode the coordinator's response; returns the frame as the member decodes it."""
        conn = self._conns[key]
        api_key = conn.pending.pop(correlation_id)
        version = self.versions[api_key]
        raw = encode_response_frame(response_frame(api_key, version, correlation_id, body))
        self.coordinator_bytes += len(raw) + 4
        self._record(conn, "response", api_key, version, correlation_id, raw, t, body.error_code)
        return decode_response_frame(raw, api_key, version, nested=False)

    def heartbeats(
        self, key: str, group_id: str, generation: int, member_id: str, times, latency: float, before: float
    ) -> None:
        """Accepted heartbeats of ``key``'s member at ``times`` (those after its connection's last frame, and
        answered before ``before``): a member's last ones before it stops without leaving, so that its silence is
        on the wire as in a real capture (steady heartbeats are not recorded)."""
        for at in times:
            if self.last_ts(key) <= at and at + latency <= before:
                cid, _ = self.request(key, HEARTBEAT, Frames.heartbeat_request(group_id, generation, member_id), at)
                self.response(key, cid, Frames.heartbeat_response(NONE), at + latency)

    def last_ts(self, key: str) -> float:
        """The time of the last frame on ``key``'s connection (-inf before any)."""
        return self._conns[key].last

    def _record(
        self, conn: _Conn, direction: str, api_key: int, version: int, cid: int, raw: bytes, t: float, error: int | None
    ) -> None:
        self.frames += 1
        conn.last = max(conn.last, t)
        if not self.keep or conn.tcp is None:  # the connection has no TCP stream exactly when frames are not kept
            return
        if direction == "request":
            hv = request_header_version(api_key, version)
            body_offset = 8 + 2 + len(conn.client_id.encode()) + (1 if hv >= 2 else 0)
        else:
            hv = response_header_version(api_key, version)
            body_offset = 4 + (1 if hv >= 1 else 0)
        conn.tcp.write("c" if direction == "request" else "s", len(raw).to_bytes(4, "big") + raw, EPOCH + t)
        rec = {
            "run": self.run,
            "scenario": self.scenario,
            "client": self.client.format(release=conn.release),
            "client_version": conn.release,
            "strategy": self.protocol,
            "client_id": conn.client_id,
            "conn": conn.name,
            "direction": direction,
            "ts": round(EPOCH + t, 6),
            "api_key": api_key,
            "api_name": api_for(api_key).name,
            "api_version": version,
            "correlation_id": cid,
            "flexible": hv >= (2 if direction == "request" else 1),
            "header_version": hv,
            "body_offset": body_offset,
            "produced_by": "rebalance-codec simulate " + ("member" if direction == "request" else "coordinator"),
        }
        if direction == "response":
            rec["error_code"] = error
        rec["hex"] = raw.hex()
        self.records.append(rec)

    def write(self, out: Path, stem: str = "frames") -> tuple[Path, Path]:
        """``<stem>.jsonl`` and ``<stem>.pcap.gz`` in ``out``."""
        out.mkdir(parents=True, exist_ok=True)
        jsonl = out / f"{stem}.jsonl"
        with jsonl.open("w") as f:
            for r in self.records:
                f.write(json.dumps(r) + "\n")
        segs = [s for c in self._conns.values() if c.tcp for s in c.tcp.segments]
        segs.sort(key=lambda s: s.ts)  # stable: each connection's own order is kept
        path = out / f"{stem}.pcap.gz"
        with gzip.open(path, "wb", compresslevel=6) as f:
            f.write(pcap(segs, linktype=1))
        return jsonl, path


def _ip(n: int) -> str:
    return f"10.0.{n // 250 + 1}.{n % 250 + 1}"


# --- the classic group protocol's bodies, as a coordinator and its members write them (every kind of group) ---


def join_request(
    protocol_type: str,
    group: str,
    member_id: str,
    protocols: tuple[tuple[str, bytes], ...],
    *,
    session_ms: int,
    rebalance_ms: int,
    reason: str | None = None,
):
    """A JoinGroupRequest body: ``protocols`` as (name, metadata) in the member's order of preference."""
    P = _cls("JoinGroupRequest", "JoinGroupRequestProtocol")
    return _cls("JoinGroupRequest")(
        group_id=group,
        session_timeout_ms=session_ms,
        rebalance_timeout_ms=rebalance_ms,
        member_id=member_id,
        group_instance_id=None,
        protocol_type=protocol_type,
        protocols=tuple(P(name=n, metadata=md) for n, md in protocols),
        reason=reason,
    )


def join_response(
    protocol_type: str,
    generation: int,
    protocol: str | None,
    leader: str,
    member_id: str,
    members: dict[str, bytes],
    *,
    error: int = 0,
):
    """A JoinGroupResponse body: ``members`` (member id -> metadata) for the leader, empty for the others; with an
    ``error``, no ``protocol`` (and so no protocol type)."""
    M = _cls("JoinGroupResponse", "JoinGroupResponseMember")
    return _cls("JoinGroupResponse")(
        throttle_time_ms=0,
        error_code=error,
        generation_id=generation,
        protocol_type=protocol_type if protocol else None,
        protocol_name=protocol,
        leader=leader,
        skip_assignment=False,
        member_id=member_id,
        members=tuple(M(member_id=m, group_instance_id=None, metadata=md) for m, md in members.items()),
    )


def sync_request(
    protocol_type: str, group: str, generation: int, member_id: str, protocol: str, assignments: dict[str, bytes]
):
    """A SyncGroupRequest body: ``assignments`` (member id -> assignment) from the leader, empty from the others."""
    A = _cls("SyncGroupRequest", "SyncGroupRequestAssignment")
    return _cls("SyncGroupRequest")(
        group_id=group,
        generation_id=generation,
        member_id=member_id,
        group_instance_id=None,
        protocol_type=protocol_type,
        protocol_name=protocol,
        assignments=tuple(A(member_id=m, assignment=a) for m, a in assignments.items()),
    )


def sync_response(protocol_type: str, protocol: str, assignment: bytes, *, error: int = 0):
    return _cls("SyncGroupResponse")(
        throttle_time_ms=0, error_code=error, protocol_type=protocol_type, protocol_name=protocol, assignment=assignment
    )
