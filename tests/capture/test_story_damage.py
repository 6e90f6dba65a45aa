"""``capture`` over damaged captures: cut mid-packet, packets swapped, bytes flipped inside a frame,
garbage between frames. The damage shows up as gaps, unframed bytes and errors in the output; nothing
raises, and the frames the damage did not touch are all still there, decoded as before. A file that cannot
be read to its end (cut mid-packet, a cut gzip stream) is also a ``bad file`` problem and exit status 1.

Inputs: the synthetic Streams capture of storyfixtures (one TCP segment per frame, so which frames a
cut leaves whole is known from the file layout) and a corpus pcap."""

from __future__ import annotations

import gzip
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codec.capture.pcapfile import read_packets
from codec.capture.pcapwriter import TcpConnection, frame, pcap
from tests.conftest import SHARED

from .storyfixtures import BROKER, generation_frames, json_lines, streams_records, streams_segments

RECORDS = streams_records()
SEGS = streams_segments(RECORDS)
WHOLE = pcap(SEGS)
REAL = SHARED / "captures" / "pcaps" / "runA" / "mixed-range.pcap.gz"
REAL_PORT = "49975"  # runs/runA/run_meta.json bootstrap


def _story(tmp_path, data: bytes, *argv: str, status: int | None = 0) -> list[dict]:
    path = tmp_path / "damaged.pcap"
    path.write_bytes(data)
    lines = json_lines(path, *argv, status=status)
    assert lines[-1]["type"] == "summary"
    return lines


def _frames(lines) -> dict[tuple, dict]:
    """Frame lines by (client, direction, correlation id), each key once."""
    out = {}
    for f in lines:
        if f["type"] == "frame":
            k = (f["client"], f["direction"], f["correlation_id"])
            assert k not in out
            out[k] = f
    return out


@pytest.fixture(scope="module")
def intact(tmp_path_factory) -> dict[tuple, dict]:
    return _frames(_story(tmp_path_factory.mktemp("intact"), WHOLE))


def _seg_key(seg) -> tuple | None:
    """The frame a data segment carries: (client, direction, correlation id)."""
    if not seg.payload:
        return None
    if seg.dport == BROKER[1]:
        return f"{seg.src}:{seg.sport}", "request", struct.unpack_from(">i", seg.payload, 8)[0]
    return f"{seg.dst}:{seg.dport}", "response", struct.unpack_from(">i", seg.payload, 4)[0]


@pytest.mark.parametrize("fraction", [0.13, 0.5, 0.77, 0.999])
def test_cut_mid_packet(tmp_path, intact, fraction):
    ends, pos = [], 24
    for seg in SEGS:
        pos += 16 + len(frame(seg, 1))
        ends.append(pos)
    cut = int(len(WHOLE) * fraction)
    if cut in ends:
        cut -= 1
    lines = _story(tmp_path, WHOLE[:cut], status=1)
    assert lines[-1]["problems"]["bad file"]["count"] == 1
    got = _frames(lines)
    whole = {_seg_key(s) for s, end in zip(SEGS, ends) if end <= cut} - {None}
    # every frame whose packet is whole is there, decoded as in the intact capture (a response
    # whose request is there; a request whose response was cut is listed without its answer)
    assert whole <= set(got)
    for k in whole:
        assert got[k]["frame"] == intact[k]["frame"]
    assert set(got) <= set(intact)


def test_swapped_packets(tmp_path, intact):
    segs = list(SEGS)
    for i in range(3, len(segs) - 1, 7):
        segs[i], segs[i + 1] = segs[i + 1], segs[i]
    got = _frames(_story(tmp_path, pcap(segs)))
    assert {k: f["frame"] for k, f in got.items()} == {k: f["frame"] for k, f in intact.items()}


def test_flipped_streams_byte_is_a_layer_error(tmp_path, intact):
    r = RECORDS[6]  # Streams v7
    sub = bytes.fromhex(r["subscription"]["hex"])
    at = WHOLE.index(sub)  # first in time: inside the JoinGroup request of generation 7
    data = WHOLE[:at] + b"\x00\x00\x00\x00" + WHOLE[at + 4 :]  # SubscriptionInfo version 0: there is none
    lines = _story(tmp_path, data)
    got = _frames(lines)
    assert set(got) == set(intact)
    key = ("10.0.1.7:40006", "request", 1)
    layer = got[key]["frame"]["body"]["protocols"][0]["metadata"]["value"]["userData"]
    assert layer["layer"] == "SubscriptionInfo" and "error" in layer and "value" not in layer
    assert lines[-1]["problems"]["undecodable layers"]["count"] == 1
    assert all(got[k] == intact[k] for k in got if k != key)


def test_flipped_header_byte_is_a_frame_error(tmp_path, intact):
    client = b"\x00\x05app-4"
    at = WHOLE.index(client) - 6  # the JoinGroup request's api version (key, version, correlation id, client)
    data = WHOLE[:at] + struct.pack(">h", 20) + WHOLE[at + 2 :]  # JoinGroup has no version 20
    lines = _story(tmp_path, data)
    got = _frames(lines)
    assert set(got) == set(intact)
    bad = {k for k, f in got.items() if "error" in f}
    assert bad == {("10.0.1.4:40003", "request", 1), ("10.0.1.4:40003", "response", 1)}
    assert all("version 20" in got[k]["error"]["message"] for k in bad)
    assert lines[-1]["problems"]["undecodable frames"]["count"] == 2
    # the other connections are untouched; on this one, the SyncGroup v3 frames lost the protocol
    # name the JoinGroup would have given (their Streams UserData stays bytes), nothing more
    assert all(got[k] == intact[k] for k in got if k[0] != "10.0.1.4:40003")
    g4 = [g for g in lines if g["type"] == "generation" and g["generation"] == 4]
    assert g4 and not g4[0]["join_seen"]  # its JoinGroup could not be read: the SyncGroup still places it


def test_garbage_between_frames(tmp_path, intact):
    segs = []
    for i, r in enumerate(RECORDS):
        conn = TcpConnection((f"10.0.1.{i + 1}", 40000 + i), BROKER, mss=1 << 16)
        t = 1_700_000_000.0 + i
        conn.open(t)
        for j, (side, data) in enumerate(generation_frames(r)):
            if j == 2:
                conn.write("c", b"\xff" * 40 + b"\x00\x00\x00\x02zz", t + 0.005 * (2 * j + 1))
            conn.write(side, data, t + 0.01 * (j + 1))
        conn.close(t + 0.5)
        segs += conn.segments
    lines = _story(tmp_path, pcap(sorted(segs, key=lambda s: s.ts)))
    got = _frames(lines)
    assert {k: f["frame"] for k, f in got.items()} == {k: f["frame"] for k, f in intact.items()}
    assert lines[-1]["unframed_bytes"] == {"garbage": 46 * len(RECORDS)}


def _packets(path) -> list:
    return list(read_packets(path))


def _write(packets) -> bytes:
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, packets[0].linktype)]
    for p in packets:
        sec = int(p.ts)
        out.append(struct.pack("<IIII", sec, round((p.ts - sec) * 1e6), len(p.data), p.orig_len) + p.data)
    return b"".join(out)


@pytest.mark.skipif(not REAL.exists(), reason="shared/captures not present")
def test_real_capture_cut_and_swapped(tmp_path):
    packets = _packets(REAL)
    whole = _write(packets)
    full = _frames(_story(tmp_path, whole, "--port", REAL_PORT))
    # gzip cut mid-stream: the packets before the cut are read, the file is reported bad
    cut = gzip.compress(whole)
    lines = _story(tmp_path, cut[: len(cut) * 2 // 3], "--port", REAL_PORT, status=1)
    got = _frames(lines)
    assert "bad file" in lines[-1]["problems"] and got
    assert all(got[k]["frame"] == full[k]["frame"] for k in got)
    # swapped neighbours: the same frames
    for i in range(5, len(packets) - 1, 11):
        packets[i], packets[i + 1] = packets[i + 1], packets[i]
    swapped = _frames(_story(tmp_path, _write(packets), "--port", REAL_PORT))
    assert {k: f["frame"] for k, f in swapped.items()} == {k: f["frame"] for k, f in full.items()}


@settings(max_examples=40)
@given(
    st.lists(st.tuples(st.integers(24, len(WHOLE) - 1), st.integers(0, 255)), min_size=1, max_size=8),
    st.integers(100, len(WHOLE)),
)
def test_random_damage_never_raises(tmp_path_factory, flips, length):
    data = bytearray(WHOLE[:length])
    for at, value in flips:
        if at < len(data):
            data[at] = value
    lines = _story(tmp_path_factory.mktemp("fuzz"), bytes(data), status=None)  # 1 when cut mid-packet
    frames = [f for f in lines if f["type"] == "frame"]
    assert lines[-1]["group_frames"] == len(frames)
