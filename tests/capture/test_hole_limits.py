"""Retransmissions that come after the reassembly gave their hole up (``--max-hole-bytes``,
``--max-hole-seconds``), through the installed ``rebalance-codec capture`` run from a temporary folder.

The captures are built here frame by frame (groupcapture), so every count is known by construction: which
frames sit in or across each lost segment, how many bytes arrived behind each hole before its
retransmission, how many seconds the first of them waited. One member of group ``g`` joins, syncs and
heartbeats over one connection; its broker's responses carry the holes.
"""

from __future__ import annotations

import functools

from codec.capture.pcapwriter import Seg, TcpConnection, pcap
from codec.capture.tcp import DEFAULT_MAX_BUFFER, DEFAULT_MAX_WAIT

from .groupcapture import (
    console_json,
    consumer_assignment_v0,
    heartbeat_request,
    heartbeat_response,
    join_request,
    join_response,
    raw_request,
    raw_response,
    run_console,
    stream_offset,
    sync_request,
    sync_response,
)

T0 = 1_700_000_000.0
ISN = (1000, 5000)  # client, broker
GROUP, MEMBER, CLIENT = "g", "m-1", "c-1"
SUBSCRIPTION = b"\x00\x00\x00\x00\x00\x01\x00\x01t\xff\xff\xff\xff"  # ConsumerProtocol v0: topics ["t"], user data null
ASSIGNMENT = consumer_assignment_v0(
    {"t": list(range(1200))}, None
)  # 4,811 bytes: the SyncGroup response spans 4 segments
FETCH_BODY = bytes(1_500_000)  # behind the holes: more than the default 1 MiB


def _retransmit(conn: TcpConnection, seg: Seg, ts: float) -> None:
    conn.segments.remove(seg)
    conn.segments.append(Seg(seg.src, seg.sport, seg.dst, seg.dport, seg.seq, seg.flags, seg.payload, ts))


def _segments_of(conn: TcpConnection, start: int, side: str = "s") -> list[Seg]:
    """The data segments of one side written since ``conn.segments[start]``."""
    port = 9092 if side == "s" else 40000
    return [s for s in conn.segments[start:] if s.payload and s.sport == port]


@functools.cache
def _bytes_capture():
    """Two holes in the broker's direction, both retransmitted after 1,500,056 more bytes (all within 30 ms):

    * hole B: the second of the SyncGroup response's 4 segments: that frame is cut (1 frame lost);
    * hole A: the one segment holding the Heartbeat responses 3, 4 and 5 (3 frames, 42 bytes, lost whole);
    * behind them: the Fetch response (cid 6, 1,500,008 bytes) and Heartbeat responses 7 and 8.
    """
    c = TcpConnection(("10.0.0.1", 40000), ("10.0.0.2", 9092), isn=ISN, mss=1448)
    c.open(T0)
    c.write("c", join_request(1, CLIENT, GROUP, "", [("range", SUBSCRIPTION)]), T0 + 0.001)
    c.write("s", join_response(1, 1, "range", MEMBER, SUBSCRIPTION), T0 + 0.002)
    c.write("c", sync_request(2, CLIENT, GROUP, 1, MEMBER, ASSIGNMENT), T0 + 0.003)
    for cid in (3, 4, 5):
        c.write("c", heartbeat_request(cid, CLIENT, GROUP, 1, MEMBER), T0 + 0.004)
    c.write("c", raw_request(1, 12, 6, bytes(40)), T0 + 0.005)
    for cid in (7, 8):
        c.write("c", heartbeat_request(cid, CLIENT, GROUP, 1, MEMBER), T0 + 0.006)
    n = len(c.segments)
    sync = sync_response(2, ASSIGNMENT)
    c.write("s", sync, T0 + 0.010)
    sync_segs = _segments_of(c, n)
    assert len(sync_segs) == 4
    hole_b = sync_segs[1]
    n = len(c.segments)
    hbs = heartbeat_response(3) + heartbeat_response(4) + heartbeat_response(5)
    c.write("s", hbs, T0 + 0.011)
    (hole_a,) = _segments_of(c, n)
    c.write("s", raw_response(6, FETCH_BODY), T0 + 0.012)
    c.write("s", heartbeat_response(7) + heartbeat_response(8), T0 + 0.020)
    _retransmit(c, hole_b, T0 + 0.025)
    _retransmit(c, hole_a, T0 + 0.026)
    c.close(T0 + 0.030)
    total = stream_offset(c.segments[-1], ISN[1])  # the broker's FIN: its sequence number ends the stream
    facts = {
        "sync_len": len(sync),
        "hole_b": len(hole_b.payload),
        "hole_a": len(hbs),
        # bytes that had arrived behind hole B (the first one) when its retransmission came
        "behind_b": total - (stream_offset(hole_b, ISN[1]) + len(hole_b.payload)),
        "behind_a": total - (stream_offset(hole_a, ISN[1]) + len(hbs)),
    }
    assert len(hbs) == 42 and facts["behind_a"] == 8 + len(FETCH_BODY) + 28
    return pcap(sorted(c.segments, key=lambda s: s.ts)), facts


def _seconds_capture():
    """One hole (the segment of Heartbeat responses 3, 4, 5), then one Heartbeat response a second at
    T0+1 .. T0+4, then its retransmission at T0+4.5: the first segment behind the hole waited 3 s by the
    last one before the retransmission (so --max-hole-seconds 3 keeps it, anything less does not), with
    56 bytes behind it."""
    c = TcpConnection(("10.0.0.1", 40000), ("10.0.0.2", 9092), isn=ISN, mss=1448)
    c.open(T0)
    c.write("c", join_request(1, CLIENT, GROUP, "", [("range", SUBSCRIPTION)]), T0 + 0.001)
    c.write("s", join_response(1, 1, "range", MEMBER, SUBSCRIPTION), T0 + 0.002)
    for cid in range(3, 10):
        c.write("c", heartbeat_request(cid, CLIENT, GROUP, 1, MEMBER), T0 + 0.003)
    n = len(c.segments)
    c.write("s", heartbeat_response(3) + heartbeat_response(4) + heartbeat_response(5), T0 + 0.5)
    (hole,) = _segments_of(c, n)
    for i, cid in enumerate(range(6, 10)):
        c.write("s", heartbeat_response(cid), T0 + 1 + i)
    _retransmit(c, hole, T0 + 4.5)
    c.close(T0 + 5)
    return pcap(sorted(c.segments, key=lambda s: s.ts))


def _summary(lines: list[dict]) -> dict:
    assert lines[-1]["type"] == "summary"
    return lines[-1]


def _response_cids(lines: list[dict]) -> list[int]:
    return sorted(f["correlation_id"] for f in lines if f["type"] == "frame" and f["direction"] == "response")


def test_defaults_lose_the_frames_behind_the_holes_and_count_them(tmp_path):
    data, facts = _bytes_capture()
    (tmp_path / "late.pcap").write_bytes(data)
    lines = console_json(tmp_path, "late.pcap")
    s = _summary(lines)
    assert s["lost_frames"] == {
        "count": 1 + 3,  # the SyncGroup response cut by hole B; Heartbeat responses 3, 4, 5 inside hole A
        "holes": 2,
        "hole_bytes": facts["hole_b"] + facts["hole_a"],
        # the holes, and the rest of the SyncGroup response around hole B
        "skipped_bytes": facts["sync_len"] + facts["hole_a"],
        "late_bytes": facts["hole_b"] + facts["hole_a"],
        "max_hole_bytes": DEFAULT_MAX_BUFFER,
        "max_hole_seconds": DEFAULT_MAX_WAIT,
        # hole B: 1,500,056 bytes arrived behind it; hole A's first follower (T0+0.012) waited until hole B's
        # retransmission (T0+0.025): 0.013 s, more than hole B's (T0+0.010 until T0+0.020)
        "needed": {
            "max_hole_bytes": facts["behind_b"],
            "max_hole_seconds": s["lost_frames"]["needed"]["max_hole_seconds"],
        },
    }
    assert abs(s["lost_frames"]["needed"]["max_hole_seconds"] - 0.013) < 1e-6
    assert _response_cids(lines) == [1, 7, 8]  # the Fetch response (6) is framed, not a group frame
    assert s["group_frames"] == 7 + 3 and s["unanswered_requests"] == 4
    assert s["problems"]["holes given up"]["count"] == 2
    # the text story says the same
    done = run_console(tmp_path, "capture", "late.pcap")
    assert done.returncode == 0
    text = done.stdout.decode("utf-8")
    assert (
        f"lost frames    4 in 2 holes given up at --max-hole-bytes {DEFAULT_MAX_BUFFER:,}, --max-hole-seconds 2: "
        f"{facts['sync_len'] + facts['hole_a']:,} bytes skipped ({facts['hole_b'] + facts['hole_a']:,} in the holes)"
    ) in text
    assert f"--max-hole-bytes {facts['behind_b']:,} would have kept them" in text
    holes = facts["hole_b"] + facts["hole_a"]
    assert f"gaps           2 ({holes:,} bytes not captured in time, {holes:,} of them captured too late)" in text


def test_a_larger_max_hole_bytes_loses_nothing(tmp_path):
    data, facts = _bytes_capture()
    (tmp_path / "late.pcap").write_bytes(data)
    for limit in (str(facts["behind_b"]), "2M"):
        lines = console_json(tmp_path, "late.pcap", "--max-hole-bytes", limit)
        s = _summary(lines)
        assert s["lost_frames"]["count"] == 0 and s["lost_frames"]["holes"] == 0, limit
        assert s["gaps"] == 0 and s["unanswered_requests"] == 0 and s["group_frames"] == 14
        assert _response_cids(lines) == [1, 2, 3, 4, 5, 7, 8]
        assert "problems" not in s or "holes given up" not in s["problems"]


def test_the_byte_limit_is_exact(tmp_path):
    """Hole A is kept with --max-hole-bytes equal to the bytes that arrived behind it before its
    retransmission, and given up one byte below (hole B, with more behind it, is given up either way)."""
    data, facts = _bytes_capture()
    (tmp_path / "late.pcap").write_bytes(data)
    both = _summary(console_json(tmp_path, "late.pcap", "--max-hole-bytes", str(facts["behind_a"])))
    assert both["lost_frames"]["count"] == 1  # hole A is kept, hole B (more behind it) is not
    assert both["lost_frames"]["hole_bytes"] == facts["hole_b"]
    below = _summary(console_json(tmp_path, "late.pcap", "--max-hole-bytes", str(facts["behind_a"] - 1)))
    assert below["lost_frames"]["count"] == 4


def test_a_retransmission_after_max_hole_seconds(tmp_path):
    (tmp_path / "slow.pcap").write_bytes(_seconds_capture())
    s = _summary(console_json(tmp_path, "slow.pcap"))
    assert s["lost_frames"] == {
        "count": 3,
        "holes": 1,
        "hole_bytes": 42,
        "skipped_bytes": 42,
        "late_bytes": 42,
        "max_hole_bytes": DEFAULT_MAX_BUFFER,
        "max_hole_seconds": DEFAULT_MAX_WAIT,
        "needed": {"max_hole_bytes": 4 * 14, "max_hole_seconds": 3.0},
    }
    assert s["problems"]["holes given up"]["first"][0]["reason"].endswith("(--max-hole-seconds)")
    done = run_console(tmp_path, "capture", "slow.pcap")
    assert "--max-hole-seconds 3 would have kept them" in done.stdout.decode("utf-8")
    for limit, lost in (("3", 0), ("10", 0), ("2.999", 3)):
        s = _summary(console_json(tmp_path, "slow.pcap", "--max-hole-seconds", limit))
        assert s["lost_frames"]["count"] == lost, limit
        assert s["group_frames"] == 16 - lost, limit  # JoinGroup and Heartbeats 3-9, requests and responses


def test_bad_limits_are_refused(tmp_path):
    (tmp_path / "slow.pcap").write_bytes(_seconds_capture())
    for argv in (("--max-hole-bytes", "-1"), ("--max-hole-seconds", "nan")):
        done = run_console(tmp_path, "capture", "slow.pcap", *argv)
        assert done.returncode == 2 and argv[0].encode() in done.stderr, argv
