"""The capture reader's judgement (issue #39), against what each capture holds by construction and against tshark.

Each capture of :mod:`tests.capture.judgedpcaps` states the frames it holds (connection, direction, API key,
correlation id) from how it was written; the reader must find exactly those, with no ``--port`` where the issue's
reproducer gave none, and tshark's Kafka dissector (``-d tcp.port==PORT,kafka``: told the broker's port, which
the reader is not) must find the same, where tshark is installed (.ci/run installs it). A capture that begins
inside a frame whose last bytes read as a frame size is checked against its construction only: tshark takes a
packet's first byte for a frame's start and swallows the frames behind. With a RST past the window tshark is
asked with ``tcp.analyze_sequence_numbers`` off: its sequence analysis takes the RST's sequence number for the
stream's and calls every later segment a retransmission, which its dissector then skips.

The default run holds a few variants of each shape; ``-m slow`` runs the full grid.
"""

from __future__ import annotations

import itertools
import json
import struct

import pytest

from codec.capture import CaptureStats
from codec.capture.direction import unanswered_ok
from codec.capture.kafka import KafkaTraffic
from codec.capture.packet import TcpSegment, decode_tcp
from codec.capture.pcapwriter import ACK, FIN, RST, SYN, Seg, frame
from codec.capture.scan import tcp_streams
from codec.capture.tcp import Chunk, Closed, Gap, Late, Reassembler
from codec.cli import main
from tests.capture import judgedpcaps as J
from tests.capture.groupcapture import run_console
from tests.capture.tshark import TSHARK, our_frames, tshark_frames
from tests.conftest import SHARED

NO_SEQ_ANALYSIS = ("-o", "tcp.analyze_sequence_numbers:FALSE")


def _response_first(port, hb, cid, tail, low, ipv6=False, linktype=1):
    how = {"tshark": tail != "header-like"}
    name = f"response-first port {port} hb {hb} cid {cid} tail {tail or 'none'} broker-low {low}"
    name += (" ipv6" if ipv6 else "") + (f" linktype {linktype}" if linktype != 1 else "")
    built = J.response_first(port, hb, cid, J.TAILS.get(tail, b""), low, ipv6=ipv6, linktype=linktype)
    return name, built, how


def _zookeeper(ops, hs, first, hb):
    return f"zookeeper ops {ops} handshake {hs} first {first} hb {hb}", J.with_zookeeper(ops, hs, first, hb), {}


def _snap(snap, port, hs):
    # at most 10 bytes of payload: no request header whole, so nothing tells that a port other than 9092 is Kafka
    # (the reader says so and names --port: test_too_little_captured_to_judge...); given it, it agrees
    ports = {port} if snap - J.LINK_HEADERS < J.REQUEST_PEEK and port != 9092 else None
    return f"snap {snap} port {port} handshake {hs}", J.snap_cut(snap, 26, port, hs), {"ports": ports}


def _offload(hb, per):
    return f"offload hb {hb} per packet {per}", J.offloaded(hb, per), {}


def _reset(hb, server, off):
    how = {"tshark_args": NO_SEQ_ANALYSIS}
    return f"bogus RST hb {hb} from server {server} offset {off}", J.bogus_reset(hb, server, off), how


def _requests(port, n, hs):
    return f"requests only port {port} n {n} handshake {hs}", J.requests_only(port, n, hs), {}


def _cases(full: bool) -> list[tuple[str, J.Built, dict]]:
    """(name, capture, how to check it): ``ports`` the reader is given (None: none), ``tshark`` False where
    tshark misreads the shape (module docstring), ``tshark_args`` its options. The default run: a few variants
    of each shape; ``full``: the grid."""
    if not full:
        return [
            _response_first(19092, 4, 7, "", False),
            _response_first(2181, 1, 70000, "assignment", True),
            _response_first(443, 30, 2**31 - 100, "header-like", False),
            _response_first(19092, 4, 7, "", True, ipv6=True, linktype=113),
            _response_first(9093, 2, 9, "assignment", False, linktype=0),
            _zookeeper(24, True, True, 4),
            _zookeeper(3, False, False, 0),
            _snap(62, 19092, False),
            _snap(68, 9092, True),
            _snap(96, 9092, False),
            _snap(128, 19092, True),
            _offload(5, 3),
            _offload(20, 10),
            _reset(8, False, 1 << 30),
            _reset(8, True, -(1 << 20)),
            _reset(30, False, 70000),
            _requests(9092, 6, False),
            _requests(19092, 6, False),
            _requests(2181, 40, True),
        ]
    grid = itertools.product
    return (
        [
            _response_first(*a)
            for a in grid(
                [19092, 2181, 443, 9093],
                [0, 1, 4, 30],
                [1, 7, 70000, 2**31 - 100],
                ["", "assignment", "header-like"],
                [False, True],
            )
        ]
        + [_zookeeper(*a) for a in grid([1, 3, 24, 60], [True, False], [True, False], [0, 4])]
        + [_snap(*a) for a in grid([60, 62, 64, 68, 70, 80, 96, 128, 200], [9092, 19092], [True, False])]
        + [_offload(*a) for a in grid([0, 5, 20], [1, 2, 3, 10])]
        + [_reset(*a) for a in grid([2, 8, 30], [False, True], [1 << 30, 70000, -(1 << 20), 3_000_000_000])]
        + [_requests(*a) for a in grid([9092, 19092, 2181], [1, 6, 40], [True, False])]
    )


def _check(tmp_path, name: str, built: J.Built, how: dict) -> None:
    path = tmp_path / "c.pcap"
    path.write_bytes(built.data)
    expected = sorted(built.frames, key=repr)
    assert our_frames(path, how.get("ports")) == expected, name
    if TSHARK is not None and how.get("tshark", True):
        assert tshark_frames(path, built.port, how.get("tshark_args", ())) == expected, f"tshark: {name}"


DEFAULT = _cases(full=False)


@pytest.mark.parametrize("case", DEFAULT, ids=[c[0] for c in DEFAULT])
def test_frames_agree_with_construction_and_tshark(tmp_path, case):
    _check(tmp_path, *case)


@pytest.mark.slow
def test_frames_agree_on_the_full_grid(tmp_path):
    for case in _cases(full=True):
        _check(tmp_path, *case)


# -- the reproducers, by what the reader says --------------------------------------------------------


def _summary(tmp_path, capsys, built: J.Built, *args: str) -> tuple[list[str], dict]:
    """The text output's lines and the JSON summary of ``capture`` over ``built``."""
    path = tmp_path / "c.pcap"
    path.write_bytes(built.data)
    assert main(["capture", str(path), *args]) == 0
    text = capsys.readouterr().out
    assert main(["capture", str(path), "--json", *args]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x]
    return text.splitlines(), lines[-1]


def test_response_first_on_another_port_is_read_the_right_way(tmp_path, capsys):
    built = J.response_first(port=19092, heartbeats=6)
    lines, summary = _summary(tmp_path, capsys, built)
    assert lines[0].startswith("group orders  (1 generations")
    assert summary["group_frames"] == 18 and summary["other_apis"] == [] and summary["unpaired_responses"] == 1
    assert summary["reader"]["guessed"]["count"] == 0 and summary["reader"]["not_kafka"]["count"] == 0
    done = run_console(tmp_path, "capture", str(tmp_path / "c.pcap"))  # the installed script, from elsewhere
    assert done.returncode == 0 and done.stdout.decode().splitlines() == lines


def test_zookeeper_is_not_read_as_kafka_and_its_port_not_promoted(tmp_path, capsys):
    built = J.with_zookeeper(ops=24, zk_handshake=True)
    path = tmp_path / "c.pcap"
    path.write_bytes(built.data)
    traffic = KafkaTraffic()
    for event in tcp_streams(path):
        if isinstance(event, (Chunk, Gap, Late, Closed)):
            traffic.feed(event)
    assert traffic.ports == {9092}  # 2181 never promoted
    assert traffic.not_kafka_count == 1 and traffic.not_kafka[0].server == ("10.0.0.6", 2181)
    lines, summary = _summary(tmp_path, capsys, built)
    assert summary["kafka_frames"] == 14 and summary["other_apis"] == []
    assert any(line.startswith("  not Kafka      1 connection") for line in lines)


def test_a_guess_promotes_no_port(tmp_path):
    """Requests alone on port 2181 are taken on a guess; the ZooKeeper session on 2181 after them is still judged
    by its own bytes (a port is promoted only when requests and responses agree)."""
    only = J._written(J.group_session(1, 2)[::2], server=("10.0.0.6", 2181))  # ends first
    zk = J.TcpConnection(("10.0.0.5", 40111), ("10.0.0.6", 2181), isn=(77, 99))
    t = J.T0 + 10
    zk.open(t)
    for side, data in J.zookeeper_session(12):
        t += 0.001
        zk.write(side, data, t)
    zk.close(t + 0.001)
    stats = CaptureStats()
    path = tmp_path / "g.pcap"
    path.write_bytes(J.pcap(sorted(only.segments + zk.segments, key=lambda s: s.ts)))
    got = our_frames(path, stats=stats)
    assert stats.guessed_count == 1 and stats.not_kafka_count == 1
    assert {c for c, *_ in got} == {0}  # the ZooKeeper session (#1) gave no frame


def test_requests_only_first_line_is_true_and_a_guess_names_port(tmp_path, capsys):
    lines, summary = _summary(tmp_path, capsys, J.requests_only(port=9092))
    assert lines[0] == (
        "no generation told: 6 group frames decoded (JoinGroup v9 requests x6); none of the requests was answered "
        "(no response captured)"
    )
    assert summary["reader"]["guessed"]["count"] == 0  # port 9092: no guess
    lines, summary = _summary(tmp_path, capsys, J.requests_only(port=19092))
    assert lines[0].startswith("no generation told: 6 group frames decoded (JoinGroup v9 requests x6)")
    assert "taken for Kafka on a guess, from its requests alone (--port 19092 settles it)" in lines[0]
    assert summary["reader"]["guessed"]["first"][0]["server"] == "10.0.0.2:19092"
    lines, summary = _summary(tmp_path, capsys, J.requests_only(port=19092), "--port", "19092")
    assert "guessed" not in lines[0] and summary["reader"]["guessed"]["count"] == 0


def test_a_guess_is_said_first_when_a_story_is_told(tmp_path, capsys):
    """A group's story on 9092, and another connection of which only requests were captured, on 19092."""
    story = J._written(J.group_session(1, 2), client=("10.0.0.3", 41000), server=("10.0.0.4", 9092))
    only = J._written(J.group_session(100, 2)[::2], server=("10.0.0.2", 19092), handshake=False, close=False)
    segs = sorted(story.segments + only.segments, key=lambda s: s.ts)
    built = J.Built(J.pcap(segs), 9092)
    lines, summary = _summary(tmp_path, capsys, built)
    assert lines[0].startswith("note: connection #")
    assert lines[0].endswith("taken for Kafka on a guess, from its requests alone (--port 19092 settles it)")
    assert lines[2].startswith("group orders  (")
    assert summary["reader"]["guessed"]["count"] == 1


def test_snap_length_cut_is_said_with_the_headers_seen(tmp_path, capsys):
    built = J.snap_cut(snaplen=96, heartbeats=26)
    lines, summary = _summary(tmp_path, capsys, built)
    snap = summary["reader"]["snap_length"]
    assert snap["cut_frames"] == 4 and snap["kept_bytes"] == 96 and snap["cut_packets"] == 4
    assert summary["lost_frames"]["holes"] == 0  # nothing blamed on the hole timer
    assert summary["kafka_frames"] == len(built.frames) and summary["other_apis"] == []
    text = "\n".join(lines)
    assert "4 cut by the snap length" in text and "no hole given up" in text
    assert "JoinGroup v5 request x1, JoinGroup v5 response x1, SyncGroup v3 request x1" in text


def test_too_little_captured_to_judge_says_so_and_names_port(tmp_path, capsys):
    lines, summary = _summary(tmp_path, capsys, J.snap_cut(snaplen=64, port=19092))
    assert lines[0].startswith("no Kafka traffic found: 1 connection read and not taken for Kafka")
    assert "--port P" in lines[0] and "snap length cut 58 packets (at most 64 bytes kept of each)" in lines[0]
    assert summary["reader"]["not_kafka"]["count"] == 1


def test_a_bogus_reset_is_ignored_and_counted(tmp_path, capsys):
    built = J.bogus_reset(heartbeats=8)
    stats = CaptureStats()
    path = tmp_path / "c.pcap"
    path.write_bytes(built.data)
    assert our_frames(path, stats=stats) == sorted(built.frames, key=repr)
    assert stats.connections == 1 and stats.close_reasons == {"fin": 1} and stats.ignored_resets == 1
    lines, _ = _summary(tmp_path, capsys, built)
    assert any(line.startswith("  resets ignored 1 RST outside the receiver's window") for line in lines)


# -- the layers, unit by unit --------------------------------------------------------------------------------


def _syn_with_wscale(src, sport, dst, dport, seq, flags, shift, window=65535, ack=0) -> bytes:
    """An Ethernet/IPv4 SYN with the window scale option (RFC 7323: kind 3, length 3) and a NOP."""
    tcp = (
        struct.pack(">HHIIBBHHH", sport, dport, seq, ack, 6 << 4, flags, window, 0, 0)
        + b"\x01\x03\x03"
        + bytes([shift])
    )
    ip = struct.pack(
        ">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0x4000, 64, 6, 0, bytes([10, 0, 0, src]), bytes([10, 0, 0, dst])
    )
    return b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + tcp


def test_window_scale_is_read_from_a_syn():
    seg = decode_tcp(1, _syn_with_wscale(1, 5000, 2, 9092, 100, SYN, 7), 1.0)
    assert seg is not None and seg.wscale == 7 and seg.window == 65535
    seg = decode_tcp(1, _syn_with_wscale(1, 5000, 2, 9092, 100, SYN, 20), 1.0)
    assert seg is not None and seg.wscale == 14  # RFC 7323 2.3: a shift above 14 is taken as 14


def test_rst_acceptance_follows_the_window():
    """A RST at the next byte the receiver expects closes; within the window the receiver advertised (scaled
    as both SYNs asked) too (RFC 9293's acceptance test); one past it, or before the next byte expected, is
    ignored and counted."""
    c, s = ("10.0.0.1", 5000), ("10.0.0.2", 9092)

    def seg(src, dst, seq, flags, payload=b"", ack=0, window=1000, wscale=-1):
        return TcpSegment(*src, *dst, seq, flags, payload, len(payload), 0.0, ack, window, wscale)

    def run(rst_offset: int, shift: int) -> tuple[str | None, int]:
        r = Reassembler()
        out = r.feed(seg(c, s, 99, SYN, wscale=shift)) + r.feed(seg(s, c, 499, SYN | ACK, ack=100, wscale=shift))
        out += r.feed(seg(c, s, 100, ACK, b"x" * 10, ack=500))
        out += r.feed(seg(s, c, 500, ACK, ack=110))  # the server has the 10 bytes; window 1,000 (scaled)
        out += r.feed(seg(c, s, 110 + rst_offset, RST))
        closed = [e.reason for e in out if isinstance(e, Closed)]
        return (closed[0] if closed else None), r.ignored_resets

    assert run(0, 7) == ("rst", 0)
    assert run(1000 << 7, 7) == ("rst", 0)  # within the scaled window
    assert run((1000 << 7) + 1, 7) == (None, 1)
    assert run(1001, -1) == (None, 1)  # no window scale option: 1,000 bytes
    assert run(1000, -1) == ("rst", 0)
    assert run(-1, 7) == (None, 1)  # before the next byte expected

    r = Reassembler()  # after its FIN, a side's RST is one past it
    r.feed(seg(c, s, 99, SYN, wscale=0))
    r.feed(seg(s, c, 499, SYN | ACK, ack=100, wscale=0))
    r.feed(seg(c, s, 100, ACK | FIN, b"x" * 10, ack=500))
    r.feed(seg(s, c, 500, ACK, ack=111, window=0))  # all acknowledged, the FIN too; window 0
    out = r.feed(seg(c, s, 111, RST))
    assert [e.reason for e in out if isinstance(e, Closed)] == ["rst"] and r.ignored_resets == 0


def test_ipv4_total_length_zero_takes_the_length_on_the_wire():
    packet = bytearray(frame(Seg("10.0.0.1", 5000, "10.0.0.2", 9092, 7, ACK, b"y" * 3000, 0.0), 1))
    struct.pack_into(">H", packet, 16, 0)
    seg = decode_tcp(1, bytes(packet), 0.0)
    assert seg is not None and seg.payload == b"y" * 3000 and seg.length == 3000
    seg = decode_tcp(1, bytes(packet[:100]), 0.0, orig_len=len(packet))  # offloaded and cut by the snap length
    assert seg is not None and seg.length == 3000 and len(seg.payload) == 100 - 54


def _produce(version: int, acks: int, txn: str | None = None) -> bytes:
    """A Produce request frame (without its size) by ProduceRequest.json: header v1 (v2 from version 9), then
    transactionalId (from version 3), acks."""
    head = struct.pack(">hhih", 0, version, 5, 3) + b"cli"
    if version >= 9:
        head += b"\x00"  # no tagged fields
        body = (b"\x00" if txn is None else bytes([len(txn) + 1]) + txn.encode()) + struct.pack(">h", acks)
    elif version >= 3:
        body = (struct.pack(">h", -1) if txn is None else struct.pack(">h", len(txn)) + txn.encode()) + struct.pack(
            ">h", acks
        )
    else:
        body = struct.pack(">h", acks)
    return head + body + struct.pack(">i", 30000)


@pytest.mark.parametrize("version", [0, 2, 3, 8, 9, 11])
def test_produce_with_acks_zero_goes_unanswered(version):
    assert unanswered_ok(_produce(version, 0)) and unanswered_ok(_produce(version, 0, "tx-1"))
    assert not unanswered_ok(_produce(version, 1)) and not unanswered_ok(_produce(version, -1, "tx"))
    assert not unanswered_ok(struct.pack(">hhih", 12, 4, 5, 0))  # not Produce


def test_unanswered_produce_requests_do_not_refute_a_reading(tmp_path):
    """acks=0 Produce requests between a member's heartbeats, on an unknown port, no handshake: still agreed."""
    writes: list = []
    for cid in range(1, 9):
        if cid % 2:
            writes.append(
                ("c", struct.pack(">i", len(p := _produce(3, 0))) + p[:4] + struct.pack(">i", cid) + p[8:], None)
            )
        else:
            writes.append(("c", J.heartbeat_request(cid, "cli", "g", 1, "m"), None))
            writes.append(("s", J.heartbeat_response(cid), None))
    conn = J._written(writes, server=("10.0.0.2", 19092), handshake=False)
    path = tmp_path / "p.pcap"
    path.write_bytes(J.pcap(conn.segments))
    got = our_frames(path)
    assert [f for f in got if f[1] == "response"] == [(0, "response", 12, c) for c in (2, 4, 6, 8)]
    assert len([f for f in got if f[1] == "request"]) == 8


def test_a_large_first_request_is_waited_for(tmp_path):
    """A 300 KB Produce request first (more than the 64 KiB an undecided connection is held for), then its
    response and a member's heartbeats, on an unknown port without a handshake: held while its requests frame,
    then agreed."""
    produce = _produce(3, 1)
    big = produce + bytes(300_000)
    writes = [("c", struct.pack(">i", len(big)) + big, None), ("s", J.raw_response(5, b"\x00" * 12), None)]
    for cid in (6, 7, 8):
        writes += [("c", J.heartbeat_request(cid, "cli", "g", 1, "m"), None), ("s", J.heartbeat_response(cid), None)]
    conn = J._written(writes, server=("10.0.0.2", 19092), handshake=False)
    path = tmp_path / "big.pcap"
    path.write_bytes(J.pcap(conn.segments))
    assert [f for f in our_frames(path) if f[1] == "response"] == [
        (0, "response", k, c) for k, c in [(0, 5), (12, 6), (12, 7), (12, 8)]
    ]


# -- the shared captures still agree ---------------------------------------------------------------------------

SHARED_PCAPS = sorted((SHARED / "captures" / "pcaps").glob("*/*.pcap.gz"))
DEEPFLOW = sorted((SHARED / "captures" / "deepflow").glob("*.pcap"))


def _bootstrap(path) -> int:
    meta = json.loads((SHARED / "captures" / "runs" / path.parent.name / "run_meta.json").read_text())
    return int(meta["bootstrap"].rsplit(":", 1)[1])


#: the deepflow captures' broker ports (their requests go to them; the .result files name the requests)
DEEPFLOW_PORTS = {"11-join-group-v7": 36333, "13-leave-group-v4": 36333, "14-sync-group-v5": 36333}


def _port(path) -> int:
    if path.parent.name == "deepflow":
        return DEEPFLOW_PORTS.get(path.stem, 9092)
    return _bootstrap(path)


@pytest.mark.skipif(TSHARK is None or not SHARED_PCAPS, reason="tshark or shared/captures not present")
@pytest.mark.parametrize("path", SHARED_PCAPS + DEEPFLOW, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shared_captures_agree_with_tshark(path):
    """Without --port, as a user runs it: the reader finds the frames tshark finds when told the port. tshark
    4.0 does not decode some versions (Fetch v13) and then matches no request to their responses: such a
    response is compared on its correlation id (its API key is its request's, which tshark shows)."""
    port = _port(path)
    ours, theirs = our_frames(path), tshark_frames(path, port)
    unmatched = {(c, cid) for c, d, k, cid in theirs if d == "response" and k is None}
    ours = sorted(
        ((c, d, None if d == "response" and (c, cid) in unmatched else k, cid) for c, d, k, cid in ours), key=repr
    )
    assert ours == theirs
    assert our_frames(path, {port}) == our_frames(path)  # and --port changes nothing
