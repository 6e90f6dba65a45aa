"""What a capture reader holds stays bounded when segments are lost (issue #8: a 1 GB capture in bounded
memory; bench/bench_capture_story.py measures the whole command)."""

from __future__ import annotations

import struct

from codec.capture.kafka import KafkaTraffic
from codec.capture.tcp import Chunk, Flow

CLIENT, BROKER = ("10.0.0.1", 40000), ("10.0.0.2", 9092)
REQ = Flow(0, *CLIENT, *BROKER, from_client=True)
RESP = Flow(0, *BROKER, *CLIENT, from_client=False)


def _traffic(**kw) -> KafkaTraffic:
    t = KafkaTraffic(ports={9092}, api_keys={11, 12, 13, 14}, **kw)
    # a JoinGroup request makes the connection Kafka and tells the reader which side is the client
    req = struct.pack(">hhih", 11, 5, 1, 1) + b"c" + bytes(20)
    t.feed(Chunk(REQ, 0, struct.pack(">i", len(req)) + req, 0.0))
    return t


def test_a_response_of_unknown_request_claiming_a_huge_size_is_not_buffered():
    t = _traffic(max_unknown_response=1 << 20)
    conn = next(iter(t._conns.values()))
    header = struct.pack(">ii", 50_000_000, 999)  # after a gap: a "frame" of 50 MB for no known request
    assert t._keep_response(conn, header) is False
    assert t._keep_response(conn, struct.pack(">ii", 1000, 999)) is True  # small ones may still pair later


def test_waiting_responses_are_bounded_in_bytes():
    t = _traffic(max_orphan_bytes=10_000)
    out = []
    offset = 0
    for cid in range(100, 120):  # responses whose requests were lost: 2 KB each
        body = struct.pack(">i", cid) + bytes(2000)
        frame = struct.pack(">i", len(body)) + body
        out += t.feed(Chunk(RESP, offset, frame, 1.0))
        offset += len(frame)
    conn = next(iter(t._conns.values()))
    assert conn.orphan_bytes <= 10_000
    given_up = [f for f in out if getattr(f, "direction", None) == "response" and f.api_key is None]
    assert len(given_up) + len(conn.orphans) == 20  # every response accounted for: given up or still waiting


def test_holes_given_up_are_remembered_boundedly():
    """Every hole given up at a limit is remembered (to recognise its late bytes), the last MAX_GIVEN_UP of a
    direction only; the splitter reads frame sizes through the late bytes of the last MAX_WALKS only."""
    from codec.capture.framing import MAX_WALKS, FrameSplitter
    from codec.capture.packet import TcpSegment
    from codec.capture.tcp import MAX_GIVEN_UP, Gap, HalfStream

    half = HalfStream(RESP, max_buffer=100, max_wait=1e9)
    half.segment(TcpSegment(*BROKER, *CLIENT, 0, 0x12, b"", 0, 0.0))  # SYN+ACK: the stream starts at 1
    events = []
    seq = 1
    for i in range(200):  # 10 bytes lost, then a 101-byte response frame behind them: each hole is given up
        seq += 10
        frame = struct.pack(">ii", 97, i) + bytes(93)
        events += half.segment(TcpSegment(*BROKER, *CLIENT, seq, 0x18, frame, len(frame), float(i)))
        seq += len(frame)
    gaps = [e for e in events if isinstance(e, Gap)]
    assert len(gaps) == 200 and all(g.given_up for g in gaps)
    assert len(half._given_up) == MAX_GIVEN_UP
    sp = FrameSplitter(RESP, "response", max_frame_size=1 << 20)
    framed = []
    for e in events:
        framed += sp.gap(e.offset, e.length, given_up=True) if isinstance(e, Gap) else sp.chunk(e.offset, e.data, e.ts)
    assert len(sp._walks) == MAX_WALKS
    framed += sp.close()  # the last frame, found by resynchronising, is confirmed by the end of the stream
    assert len([f for f in framed if type(f).__name__ == "RawFrame"]) == 200  # every frame behind a hole
    assert sp.loss.frames == 200  # one frame cut by each hole
