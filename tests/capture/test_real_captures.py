"""The corpus pcaps (shared/captures/pcaps) against frames.jsonl, the frames capture.py extracted.

Facts from shared/captures/README.md and capture.py's ``cmd_assemble``: each run's broker port is the
bootstrap port in runs/<run>/run_meta.json; the pcaps keep the packets carrying API keys 10-14 and 18
(plus SYN/FIN), and the flex* pcaps only the raw capture's first 150 packets; frames.jsonl leaves out the
harness's own clients (``mock-host``, ``mock-producer``) and thins the traffic with the README's rules.
So: every record up to the pcap's last packet is found byte for byte, and the README's thinning rules,
applied to what is found, give back exactly those records.
"""

from __future__ import annotations

import collections
import json
import struct

import pytest

from codec.capture import BadFile, BadPacket, CaptureStats, KafkaFrame, kafka_frames
from codec.capture.pcapfile import read_packets
from tests.conftest import SHARED

CAPTURES = SHARED / "captures"
PCAPS = sorted((CAPTURES / "pcaps").glob("*/*.pcap.gz"))
KEYS = {10, 11, 12, 13, 14, 18}
INFRA = {"mock-host", "mock-producer"}
HEARTBEAT_FLEXIBLE_FROM = 4  # Kafka's HeartbeatRequest/Response.json: "flexibleVersions": "4+"

pytestmark = pytest.mark.skipif(not PCAPS, reason="shared/captures not present")


def _records():
    return [json.loads(line) for line in (CAPTURES / "frames.jsonl").read_text().splitlines() if line.strip()]


def _port(run: str) -> int:
    meta = json.loads((CAPTURES / "runs" / run / "run_meta.json").read_text())
    return int(meta["bootstrap"].rsplit(":", 1)[1])


def _client_id(request: bytes) -> str | None:
    (n,) = struct.unpack_from(">h", request, 8)
    return None if n < 0 else request[10 : 10 + n].decode()


def _heartbeat_error(response: bytes, version: int) -> int | None:
    off = 4 + (1 if version >= HEARTBEAT_FLEXIBLE_FROM else 0) + (4 if version >= 1 else 0)
    return struct.unpack_from(">h", response, off)[0] if off + 2 <= len(response) else None


def _thin(frames: list[KafkaFrame], flex: bool) -> list[KafkaFrame]:
    """README: keep every JoinGroup/SyncGroup/LeaveGroup pair, the first 4 Heartbeat pairs of each member
    plus every Heartbeat answered with an error, the first 2 ApiVersions and FindCoordinator pairs of
    each member and version; in flex* scenarios the first 2 of each kind (per member and version)."""
    pairs: dict[tuple, list[KafkaFrame]] = collections.OrderedDict()
    for f in sorted(frames, key=lambda f: f.ts):
        pairs.setdefault((f.flow.conn, f.correlation_id, f.api_key), []).append(f)
    seen: collections.Counter = collections.Counter()
    keep = []
    for (_, _, key), fs in pairs.items():
        req = next(f for f in fs if f.direction == "request")
        member = _client_id(req.data)
        if member in INFRA:
            continue
        resp = next((f for f in fs if f.direction == "response"), None)
        if flex or key in (10, 18):
            k = (member, key, req.api_version)
            seen[k] += 1
            ok = seen[k] <= 2
        elif key == 12:
            seen[(member, key)] += 1
            err = _heartbeat_error(resp.data, resp.api_version) if resp else None
            ok = seen[(member, key)] <= 4 or err not in (None, 0)
        else:
            ok = True
        if ok:
            keep += fs
    return keep


def _key(f: KafkaFrame) -> tuple:
    client_port = f.flow.sport if f.direction == "request" else f.flow.dport
    return client_port, f.direction, f.api_key, f.api_version, f.correlation_id, f.data.hex()


@pytest.mark.parametrize("path", PCAPS, ids=lambda p: f"{p.parent.name}/{p.name[:-8]}")
def test_pcap_frames_match_frames_jsonl(path):
    run, scenario = path.parent.name, path.name[: -len(".pcap.gz")]
    stats = CaptureStats()
    events = list(kafka_frames(path, ports={_port(run)}, stats=stats))
    assert not [e for e in events if isinstance(e, (BadFile, BadPacket))]
    assert stats.packets == sum(1 for _ in read_packets(path)) and stats.bad_packets == stats.non_tcp == 0
    frames = [e for e in events if isinstance(e, KafkaFrame) and e.api_key in KEYS]
    last_ts = max(p.ts for p in read_packets(path))
    expected = {
        (
            int(r["conn"].rsplit(":", 1)[1]),
            r["direction"],
            r["api_key"],
            r["api_version"],
            r["correlation_id"],
            r["hex"],
        ): r["ts"]
        for r in _records()
        if r["run"] == run and r["scenario"] == scenario and r["ts"] <= last_ts + 1e-6
    }
    found = {_key(f): f.ts for f in frames}
    assert expected, "no records for this pcap"
    missing = set(expected) - set(found)
    assert not missing, sorted(missing)[:3]
    assert all(abs(found[k] - ts) < 1e-5 for k, ts in expected.items())
    thinned = {_key(f) for f in _thin(frames, scenario.startswith("flex"))}
    assert thinned == set(expected)
