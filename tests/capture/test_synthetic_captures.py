"""Captures written by hand (codec/capture/pcapwriter.py): reordering, retransmission, loss, garbage,
truncation, link types and file formats. Expected frames are the ones written."""

from __future__ import annotations

import gzip
import io
import random
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codec.capture import BadFile, CaptureStats, Gap, KafkaFrame, Unframed, kafka_frames, tcp_streams
from codec.capture.pcapfile import read_packets
from codec.errors import DecodeError

from codec.capture.pcapwriter import ACK, PSH, Seg, conversation, pcap, pcapng


def request(key: int, version: int, cid: int, body: bytes, client: bytes = b"cli") -> bytes:
    payload = struct.pack(">hhih", key, version, cid, len(client)) + client + body
    return struct.pack(">i", len(payload)) + payload


def response(cid: int, body: bytes) -> bytes:
    return struct.pack(">ii", len(body) + 4, cid) + body


def exchange(n: int, rng: random.Random) -> list[tuple[str, bytes]]:
    """n request/response pairs with bodies of varied sizes (some span several segments)."""
    out = []
    for cid in range(n):
        key = rng.choice([10, 11, 12, 13, 14, 18, 3, 8])
        out.append(("c", request(key, rng.randrange(6), cid, rng.randbytes(rng.choice([0, 7, 300, 5000])))))
        out.append(("s", response(cid, rng.randbytes(rng.choice([2, 40, 3000])))))
    return out


def frames_of(data: bytes, **kw) -> tuple[list, CaptureStats]:
    stats = CaptureStats()
    return list(kafka_frames(io.BytesIO(data), stats=stats, **kw)), stats


def written(conv: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    return [("request" if side == "c" else "response", data[4:]) for side, data in conv]


def got(events) -> list[tuple[str, bytes]]:
    return [(e.direction, e.data) for e in events if isinstance(e, KafkaFrame)]


@pytest.mark.parametrize("linktype", [1, 0, 113, 101])
@pytest.mark.parametrize("fmt", ["pcap", "pcap-ns-be", "pcapng", "pcap.gz"])
def test_formats_and_link_types(linktype, fmt):
    conv = exchange(6, random.Random(linktype))
    segs = conversation(conv)
    data = {
        "pcap": lambda: pcap(segs, linktype),
        "pcap-ns-be": lambda: pcap(segs, linktype, nanos=True, big_endian=True),
        "pcapng": lambda: pcapng(segs, linktype),
        "pcap.gz": lambda: gzip.compress(pcap(segs, linktype)),
    }[fmt]()
    events, stats = frames_of(data)
    assert stats.packets == len(segs) and stats.bad_packets == 0
    assert sorted(got(events)) == sorted(written(conv))
    assert not [e for e in events if isinstance(e, (Gap, Unframed, BadFile))]
    # responses take their request's API key and version
    reqs = {e.correlation_id: e for e in events if isinstance(e, KafkaFrame) and e.direction == "request"}
    for e in events:
        if isinstance(e, KafkaFrame) and e.direction == "response":
            assert (e.api_key, e.api_version) == (reqs[e.correlation_id].api_key, reqs[e.correlation_id].api_version)


def test_timestamps_survive_each_format():
    segs = conversation([("c", request(12, 4, 7, b"x"))], t0=1_795_340_063.820306)
    for data in (pcap(segs), pcap(segs, nanos=True), pcapng(segs)):
        assert [round(p.ts, 6) for p in read_packets(io.BytesIO(data))] == [round(s.ts, 6) for s in segs]


def test_ipv6():
    conv = exchange(3, random.Random(6))
    segs = conversation(conv, client=("fd00::1", 40000), server=("fd00::2", 9092))
    events, _ = frames_of(pcap(segs))
    assert got(events) and sorted(got(events)) == sorted(written(conv))


@given(seed=st.integers(0, 2**32 - 1), window=st.integers(1, 8), dup=st.floats(0, 0.5))
def test_reordered_and_duplicated_segments(seed, window, dup):
    rng = random.Random(seed)
    conv = exchange(8, rng)
    segs = conversation(conv, mss=rng.choice([100, 536, 1400]), isn=(rng.randrange(2**32), rng.randrange(2**32)))
    body, head, tail = segs[2:-2], segs[:2], segs[-2:]
    shuffled = []
    for i in range(0, len(body), window):  # shuffle within windows
        part = body[i : i + window]
        rng.shuffle(part)
        shuffled += part
    out = []
    for s in shuffled:
        out.append(s)
        if rng.random() < dup:  # a retransmission, possibly of an overlapping range
            cut = rng.randrange(len(s.payload) + 1)
            out.append(Seg(s.src, s.sport, s.dst, s.dport, s.seq + cut, s.flags, s.payload[cut:], s.ts + 0.5))
    events, stats = frames_of(pcap(head + out + tail))
    assert got(events) == written(conv) or sorted(got(events)) == sorted(written(conv))
    assert not [e for e in events if isinstance(e, (Gap, Unframed))]


def test_sequence_numbers_wrap():
    conv = exchange(5, random.Random(3))
    events, _ = frames_of(pcap(conversation(conv, isn=(2**32 - 700, 2**32 - 10), mss=300)))
    assert got(events) == written(conv)


def test_dropped_segment_is_a_gap_and_the_rest_survives():
    conv = [("c", request(12, 4, i, bytes(100))) for i in range(10)]  # 4 + 10 + 3 + 100 = 117-byte frames
    segs = conversation(conv, mss=1400)
    dropped = segs[2 + 4]  # the fifth request's segment (one frame per segment)
    events, _ = frames_of(pcap([s for s in segs if s is not dropped]))
    frames = [e for e in events if isinstance(e, KafkaFrame)]
    assert [f.correlation_id for f in frames] == [0, 1, 2, 3, 5, 6, 7, 8, 9]
    gaps = [e for e in events if isinstance(e, Gap)]
    assert [(g.offset, g.length) for g in gaps] == [(4 * 117, 117)]


def test_gap_inside_a_frame_goes_on_at_the_next_frame():
    conv = [("c", request(12, 4, i, bytes(300))) for i in range(6)]  # 317-byte frames
    segs = conversation(conv, mss=100)  # every frame is written as 100 + 100 + 100 + 17 bytes
    lost = segs[2 + 9]  # frame 2 (bytes 634-950): its second segment, bytes 734-833
    events, _ = frames_of(pcap([s for s in segs if s is not lost]))
    assert [e.correlation_id for e in events if isinstance(e, KafkaFrame)] == [0, 1, 3, 4, 5]
    assert [(g.offset, g.length) for g in events if isinstance(g, Gap)] == [(734, 100)]
    # frame 2's size was read before the gap: its rest (834-950) is dropped as such, and framing goes on at 951
    unframed = [(u.offset, u.length, u.reason) for u in events if isinstance(u, Unframed)]
    assert unframed == [(634, 100, "cut by gap"), (834, 951 - 834, "cut by gap")]


def test_gap_over_a_size_resynchronises_at_the_next_frame():
    conv = [("c", request(12, 4, i, bytes(300))) for i in range(6)]  # 317-byte frames
    segs = conversation(conv, mss=100)
    lost = segs[2 + 8]  # frame 2's first segment (bytes 634-733), its size with it
    events, _ = frames_of(pcap([s for s in segs if s is not lost]))
    assert [e.correlation_id for e in events if isinstance(e, KafkaFrame)] == [0, 1, 3, 4, 5]
    unframed = [(u.offset, u.length, u.reason) for u in events if isinstance(u, Unframed)]
    assert sum(u[1] for u in unframed) == 951 - 734 and {u[2] for u in unframed} == {"garbage"}


def test_stream_without_handshake():
    conv = exchange(4, random.Random(9))
    segs = conversation(conv, syn=False)
    events, _ = frames_of(pcap(segs))  # port 9092 names the broker
    assert sorted(got(events)) == sorted(written(conv))
    events, _ = frames_of(pcap(conversation(conv, syn=False, server=("10.0.0.2", 19092))), ports=set())
    assert sorted(got(events)) == sorted(written(conv))  # recognised by its request headers
    assert all(e.api_key is not None for e in events if isinstance(e, KafkaFrame))  # all paired


def test_capture_starting_mid_frame():
    conv = [("c", request(11, 5, i, bytes(250))) for i in range(4)]
    segs = conversation(conv, syn=False, mss=100)[1:]  # first segment of frame 0 not captured
    events, _ = frames_of(pcap(segs))
    assert [e.correlation_id for e in events if isinstance(e, KafkaFrame)] == [1, 2, 3]


def test_garbage_between_frames():
    junk = b"\xff" * 37
    conv = [
        ("c", request(12, 4, 0, b"a")),
        ("c", junk),
        ("c", request(12, 4, 1, b"b")),
        ("s", response(0, b"xx")),
        ("s", junk),
        ("s", response(1, b"yy")),
    ]
    events, _ = frames_of(pcap(conversation(conv)))
    assert sorted(got(events)) == sorted(written([c for c in conv if c[1] is not junk]))
    for direction in ("request", "response"):  # reported (possibly in pieces) with its exact range
        flow = next(e.flow for e in events if isinstance(e, KafkaFrame) and e.direction == direction)
        pieces = sorted((u.offset, u.length) for u in events if isinstance(u, Unframed) and u.flow == flow)
        frame0 = len(conv[0][1]) if direction == "request" else len(conv[3][1])
        assert pieces[0][0] == frame0 and sum(n for _, n in pieces) == 37
        assert {u.reason for u in events if isinstance(u, Unframed)} == {"garbage"}


def test_not_kafka_is_ignored():
    segs = conversation([("c", b"GET / HTTP/1.1\r\n\r\n"), ("s", b"HTTP/1.1 200 OK\r\n\r\n")], server=("10.0.0.2", 80))
    events, stats = frames_of(pcap(segs))
    assert events == [] and stats.ignored_bytes > 0


@pytest.mark.parametrize("cut", [1, 10, 30, 100])
def test_truncated_file_keeps_complete_packets(cut):
    conv = [("c", request(12, 4, i, bytes(20))) for i in range(5)]
    data = pcap(conversation(conv))
    fin_record = 16 + 60  # record header + a minimum Ethernet frame
    events, _ = frames_of(data[: -cut - 2 * fin_record])  # the FINs and part of the last request are gone
    bad = [e for e in events if isinstance(e, BadFile)]
    assert len(bad) == 1 and isinstance(bad[0].error, DecodeError)
    assert [e.correlation_id for e in events if isinstance(e, KafkaFrame)] == [0, 1, 2, 3]


def test_snaplen_cut_packet_becomes_a_gap_and_a_cut_frame():
    conv = [("c", request(12, 4, i, bytes(200))) for i in range(3)]
    segs = conversation(conv)
    data = bytearray(pcap(segs))
    # shorten the second request's captured length by 50 bytes (incl_len, then drop the bytes)
    pos, index = 24, 0
    while True:
        incl = struct.unpack_from("<I", data, pos + 8)[0]
        if index == 3:
            struct.pack_into("<I", data, pos + 8, incl - 50)
            del data[pos + 16 + incl - 50 : pos + 16 + incl]
            break
        pos += 16 + incl
        index += 1
    events, _ = frames_of(bytes(data))
    # the cut request's header was captured: it is a frame, said to be cut (tshark: "packet size limited")
    frames = [(e.correlation_id, e.cut, e.data is None) for e in events if isinstance(e, KafkaFrame)]
    assert frames == [(0, False, False), (1, True, True), (2, False, False)]
    assert [(g.length, g.reason) for g in events if isinstance(g, Gap)] == [(50, "snap-length")]


@given(st.binary(max_size=400))
def test_random_bytes_never_crash(blob):
    for data in (blob, pcap([]) + blob, pcapng([])[: -0 or None] + blob):
        for e in kafka_frames(io.BytesIO(data)):
            assert not isinstance(e, BadFile) or isinstance(e.error, DecodeError)


@given(st.binary(min_size=1, max_size=3000), st.integers(0, 2**32 - 1))
def test_random_payloads_on_a_kafka_port_never_crash(payload, seq):
    segs = [
        Seg("10.0.0.1", 5000, "10.0.0.2", 9092, seq, PSH | ACK, payload, 1.0),
        Seg("10.0.0.2", 9092, "10.0.0.1", 5000, seq ^ 0x5555, PSH | ACK, payload[::-1], 2.0),
    ]
    events = list(kafka_frames(io.BytesIO(pcap(segs))))
    covered = sum(e.size + 4 for e in events if isinstance(e, KafkaFrame)) + sum(
        e.length for e in events if isinstance(e, Unframed)
    )
    assert covered == 2 * len(payload)  # every byte is in a frame or reported


def test_tcp_streams_offsets_and_timestamps():
    conv = [("c", bytes(range(256)) * 4)]
    segs = conversation(conv, mss=100)
    chunks = [e for e in tcp_streams(io.BytesIO(pcap(segs))) if hasattr(e, "data")]
    assert b"".join(c.data for c in chunks) == conv[0][1]
    assert [c.offset for c in chunks] == list(range(0, 1024, 100))
    assert [round(c.ts, 6) for c in chunks] == [round(s.ts, 6) for s in segs if s.payload]


def test_resynchronising_takes_only_a_correlation_id_that_fits_the_connection():
    """After a gap that swallowed a response's header, its body (records: any bytes) is scanned for the next
    frame. A header there claiming 1 MiB with correlation id 0x12345678 looks like a response (size in
    bounds, id not negative) and, taken, would swallow the Heartbeat response behind it; its id is neither
    a waiting request's nor near the connection's last request's (6), so the reader goes on to the
    Heartbeat response."""
    fake = struct.pack(">ii", 1 << 20, 0x12345678)
    conv = [
        ("c", request(1, 12, 5, bytes(30))),
        ("c", request(12, 3, 6, bytes(30))),
        ("s", response(5, bytes(1000) + fake + bytes(1000))),
        ("s", response(6, bytes(6))),
    ]
    segs = conversation(conv, mss=500)
    lost = segs[2 + 2]  # the Fetch response's first segment: its header
    assert lost.payload[:8] == struct.pack(">ii", 2000 + len(fake) + 4, 5)
    events, _ = frames_of(pcap([s for s in segs if s is not lost]))
    responses = [
        (e.correlation_id, e.api_key) for e in events if isinstance(e, KafkaFrame) and e.direction == "response"
    ]
    assert responses == [(6, 12)]
