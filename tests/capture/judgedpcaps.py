"""Captures the reader must judge (issue #39), built frame by frame, each with the frames it holds by construction.

Every builder returns a :class:`Built`: the pcap's bytes, the broker port (what tshark is told with
``-d tcp.port==PORT,kafka``) and ``frames``: one ``(connection, direction, api_key, correlation_id)`` per Kafka
frame whose header the capture holds, in the order written, ``api_key`` None for a response whose request was
not captured (as tshark's dissector, and the reader, can tell no more). Connections are numbered in order of
their first packet, as tshark's ``tcp.stream`` and the reader's ``Flow.conn`` number them.

The shapes:

* :func:`group_session` — one classic group member's traffic (JoinGroup, SyncGroup, Heartbeats, LeaveGroup),
  answered in order;
* :func:`response_first` — that traffic on a port other than 9092, captured from the middle of the
  connection: no handshake, a response to a request sent before the capture began first;
* :func:`with_zookeeper` — a Kafka connection on 9092 and a ZooKeeper session beside it (client port 2181),
  written from ZooKeeper's wire format (``zookeeper.jute``: ConnectRequest/Response, RequestHeader
  ``xid, type``, ReplyHeader ``xid, zxid, err``, pings with xid -2, closeSession);
* :func:`snap_cut` — a group session captured with a snap length (``tcpdump -s``);
* :func:`offloaded` — segmentation-offload packets: several frames in one packet of up to 64 KiB, the IPv4
  total length field 0;
* :func:`bogus_reset` — a RST whose sequence number is outside the receiver's window, in the middle of a
  connection that goes on;
* :func:`requests_only` — only one direction captured (``tcpdump 'dst port P'``): six JoinGroup v9 requests.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from codec.capture.pcapwriter import ACK, RST, Seg, TcpConnection, pcap
from codec.group import encode_request_frame, request_frame
from codec.wire.builder import wire_class
from tests.capture.groupcapture import (
    heartbeat_request,
    heartbeat_response,
    join_request,
    join_response,
    leave_request,
    leave_response,
    raw_response,
    sync_request,
    sync_response,
)

REQUEST_PEEK, RESPONSE_PEEK = 14, 8  # the bytes of a header: size, key, version, correlation id, client id length
LINK_HEADERS = 14 + 20 + 20  # Ethernet, IPv4, TCP without options: pcapwriter's packets
T0 = 1_700_000_000.0


@dataclass
class Built:
    """A capture and the frames it holds (see the module docstring)."""

    data: bytes
    port: int
    frames: list[tuple[int, str, int | None, int]] = field(default_factory=list)
    connections: int = 1


Write = tuple[str, bytes, tuple[str, int | None, int]]  # side ("c"/"s"), bytes, (direction, api key, cid)


def group_session(first_cid: int = 1, heartbeats: int = 4, group: str = "orders", member: str = "m-1") -> list[Write]:
    """One member's classic rebalance, request then response each time: join, sync, heartbeats, leave."""
    sub = b"\x00\x00\x00\x00\x00\x01\x00\x06orders\xff\xff\xff\xff"  # ConsumerProtocolSubscription v0
    asg = b"\x00\x00\x00\x00\x00\x01\x00\x06orders\x00\x00\x00\x01\x00\x00\x00\x00\xff\xff\xff\xff"
    cid = first_cid
    out: list[Write] = []

    def pair(key: int, request: bytes, response: bytes) -> None:
        nonlocal cid
        out.append(("c", request, ("request", key, cid)))
        out.append(("s", response, ("response", key, cid)))
        cid += 1

    pair(11, join_request(cid, "cli", group, member, [("range", sub)]), join_response(cid, 1, "range", member, sub))
    pair(14, sync_request(cid, "cli", group, 1, member, asg), sync_response(cid, asg))
    for _ in range(heartbeats):
        pair(12, heartbeat_request(cid, "cli", group, 1, member), heartbeat_response(cid))
    pair(13, leave_request(cid, "cli", group, member, None, "bye"), leave_response(cid, member, None))
    return out


def _written(
    writes: list[Write],
    *,
    client=("10.0.0.1", 50000),
    server=("10.0.0.2", 9092),
    handshake: bool = True,
    close: bool = True,
    mss: int = 1400,
    t0: float = T0,
    isn: tuple[int, int] = (1000, 5000),
) -> TcpConnection:
    conn = TcpConnection(client, server, isn=isn, mss=mss)
    t = t0
    if handshake:
        conn.open(t)
    for side, data, _ in writes:
        t += 0.001
        conn.write(side, data, t)
    if close:
        conn.close(t + 0.001)
    return conn


def _frames(conn_id: int, writes: list[Write]) -> list[tuple[int, str, int | None, int]]:
    return [(conn_id, *what) for _, _, what in writes]


def _build(conns: list[TcpConnection], port: int, frames, **pcap_args) -> Built:
    segs = sorted((s for c in conns for s in c.segments), key=lambda s: s.ts)
    return Built(pcap(segs, **pcap_args), port, frames, len(conns))


def response_first(
    port: int = 19092,
    heartbeats: int = 4,
    first_cid: int = 7,
    tail: bytes = b"",
    server_first_ip: bool = False,
    *,
    ipv6: bool = False,
    linktype: int = 1,
) -> Built:
    """The session on ``port``, no handshake captured, starting with the response to a heartbeat sent before the
    capture began; ``tail``: bytes of the broker's before it (the end of a frame the capture began inside of).
    ``server_first_ip``: the broker has the lower address (the reader must not go by it); ``ipv6``, ``linktype``
    (pcapwriter's: 1 Ethernet, 0 BSD loopback, 113 Linux cooked, 101 raw IP): other shapes of packet."""
    writes: list[Write] = [("s", tail, ("", None, -1))] if tail else []
    writes.append(("s", heartbeat_response(first_cid - 1), ("response", None, first_cid - 1)))
    writes += group_session(first_cid, heartbeats)
    if ipv6:
        client, server = ("fd00::9", 43210), ("fd00::1" if server_first_ip else "fd00::20", port)
    else:
        client, server = ("10.0.0.9", 43210), ("10.0.0.1" if server_first_ip else "10.0.0.20", port)
    conn = _written(writes, client=client, server=server, handshake=False)
    return _build([conn], port, [f for f in _frames(0, writes) if f[1]], linktype=linktype)


#: the last bytes of frames a capture may begin inside of: a SyncGroup response's assignment (its first four
#: bytes no frame size), and bytes whose first four read as a plausible frame size (a reader taking the first
#: byte for a frame's start swallows the frames behind them)
TAILS = {
    "assignment": b"\xff\xff\xff\xff\x00\x00\x00\x01\x00\x00",
    "header-like": b"\x00\x00\x01\x00\x00\x07gar",
}


# -- ZooKeeper, from its wire format (zookeeper.jute; ZooDefs.OpCode) ------------------------------------------

_ZK_CREATE, _ZK_EXISTS, _ZK_GETDATA, _ZK_SETDATA, _ZK_GETCHILDREN, _ZK_PING, _ZK_CLOSE = 1, 3, 4, 5, 8, 11, -11
_STAT = struct.pack(">qqqqiiiqiiq", 0x100, 0x100, T0_MS := 1_700_000_000_000, T0_MS, 0, 0, 0, 0, 12, 0, 0x100)


def _zk_str(text: str) -> bytes:
    return struct.pack(">i", len(text)) + text.encode()


def _zk(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


def zookeeper_session(ops: int = 24) -> list[tuple[str, bytes]]:
    """A ZooKeeper client session as a broker of the ZooKeeper era talks it: connect, then ``ops`` operations on
    /brokers, /controller and /config (xids 1, 2, ...), a ping every sixth, then closeSession."""
    out = [
        ("c", _zk(struct.pack(">iqiq", 0, 0, 18000, 0) + _zk(bytes(16)) + b"\x00")),  # ConnectRequest
        ("s", _zk(struct.pack(">iiq", 0, 18000, 0x1000000ABCDEF) + _zk(bytes(range(16))) + b"\x00")),
    ]
    zxid = 0x200
    cycle = [
        (_ZK_GETCHILDREN, _zk_str("/brokers/ids") + b"\x01", struct.pack(">i", 1) + _zk_str("0")),
        (_ZK_GETDATA, _zk_str("/brokers/ids/0") + b"\x00", _zk(b'{"version":5}') + _STAT),
        (_ZK_EXISTS, _zk_str("/controller") + b"\x01", _STAT),
        (_ZK_SETDATA, _zk_str("/controller_epoch") + _zk(b"7") + struct.pack(">i", 3), _STAT),
        (
            _ZK_CREATE,
            _zk_str("/admin/reassign")
            + _zk(b"{}")
            + struct.pack(">i", 1)
            + struct.pack(">i", 31)
            + _zk_str("world")
            + _zk_str("anyone")
            + struct.pack(">i", 0),
            _zk_str("/admin/reassign"),
        ),
        (_ZK_GETDATA, _zk_str("/config/topics/orders") + b"\x01", _zk(b'{"config":{}}') + _STAT),
    ]
    for xid in range(1, ops + 1):
        op, req, reply = cycle[(xid - 1) % len(cycle)]
        zxid += 1
        out.append(("c", _zk(struct.pack(">ii", xid, op) + req)))
        out.append(("s", _zk(struct.pack(">iqi", xid, zxid, 0) + reply)))
        if xid % 6 == 0:
            out.append(("c", _zk(struct.pack(">ii", -2, _ZK_PING))))
            out.append(("s", _zk(struct.pack(">iqi", -2, zxid, 0))))
    out.append(("c", _zk(struct.pack(">ii", ops + 1, _ZK_CLOSE))))
    out.append(("s", _zk(struct.pack(">iqi", ops + 1, zxid + 1, 0))))
    return out


def with_zookeeper(ops: int = 24, zk_handshake: bool = True, zk_first: bool = True, heartbeats: int = 4) -> Built:
    """A Kafka connection on 9092 and a ZooKeeper session (server port 2181) in the same capture."""
    zk = TcpConnection(("10.0.0.5", 40111), ("10.0.0.6", 2181), isn=(77, 99))
    t = T0
    if zk_handshake:
        zk.open(t)
    for side, data in zookeeper_session(ops):
        t += 0.0007
        zk.write(side, data, t)
    zk.close(t + 0.001)
    writes = group_session(1, heartbeats)
    kafka = _written(
        writes, client=("10.0.0.5", 40222), server=("10.0.0.7", 9092), t0=T0 + (0.0002 if zk_first else -1)
    )
    conns = sorted([zk, kafka], key=lambda c: c.segments[0].ts)  # numbered in order of their first packet
    return _build(conns, 9092, _frames(conns.index(kafka), writes))


# -- a snap length ------------------------------------------------------------------------------------------


def snap_cut(snaplen: int = 96, heartbeats: int = 26, port: int = 9092, handshake: bool = True) -> Built:
    """The session captured with ``snaplen`` bytes of each packet: a frame's header is held when its first
    packet keeps at least a header's bytes of payload."""
    writes = group_session(1, heartbeats)
    conn = _written(writes, server=("10.0.0.2", port), handshake=handshake)
    keep = snaplen - LINK_HEADERS  # payload bytes kept of each packet (every frame starts a packet)
    frames = [(0, *what) for _, _, what in writes if keep >= (REQUEST_PEEK if what[0] == "request" else RESPONSE_PEEK)]
    seen = {cid for _, d, _, cid in frames if d == "request"}  # a response whose request was not seen: no API key
    frames = [(c, d, k if d == "request" or cid in seen else None, cid) for c, d, k, cid in frames]
    return _build([conn], port, frames, snaplen=snaplen)


# -- segmentation offload: IPv4 total length 0 ----------------------------------------------------------------


def offloaded(heartbeats: int = 20, per_packet: int = 3, port: int = 9092) -> Built:
    """Writes of ``per_packet`` frames at once, each one packet (up to 64 KiB: larger than the link's MTU, as a
    host capturing its own segmentation-offload traffic sees them), with the IPv4 total length 0."""
    writes = group_session(1, heartbeats)
    batched: list[tuple[str, bytes, int]] = []  # (side, bytes, frames in them)
    for side, data, _ in writes:  # a side's frames, up to per_packet of them, in one write
        if batched and batched[-1][0] == side and batched[-1][2] < per_packet:
            batched[-1] = (side, batched[-1][1] + data, batched[-1][2] + 1)
        else:
            batched.append((side, data, 1))
    conn = TcpConnection(("10.0.0.1", 50000), ("10.0.0.2", port), mss=65000)
    conn.open(T0)
    for i, (side, data, _) in enumerate(batched):
        conn.write(side, data, T0 + 0.001 * (i + 1))
    conn.close(T0 + 1)
    data = bytearray(pcap(conn.segments))
    pos = 24
    while pos < len(data):  # zero each packet's IPv4 total length (Ethernet header: 14 bytes)
        incl = struct.unpack_from("<I", data, pos + 8)[0]
        if incl > 60:  # (a packet with a payload; the handshake's and FINs' keep theirs)
            struct.pack_into(">H", data, pos + 16 + 16, 0)
        pos += 16 + incl
    return Built(bytes(data), port, _frames(0, writes))


# -- a bogus RST ---------------------------------------------------------------------------------------------


def bogus_reset(heartbeats: int = 8, from_server: bool = False, offset: int = 1 << 30, port: int = 9092) -> Built:
    """The session with, halfway, a RST whose sequence number lies ``offset`` bytes past what its sender has sent
    (outside any window the receiver advertised: 65,535 bytes, unscaled): the receiver ignores it, and the
    connection goes on to its FINs. Acknowledgements are real, so the window is known."""
    writes = group_session(1, heartbeats)
    conn = _written(writes, server=("10.0.0.2", port), close=False)
    segs = list(conn.segments)
    sent = {"c": 1001, "s": 5001}  # the sequence number after each side's SYN
    acked: list[Seg] = []
    for s in segs:  # acknowledge what the other side has sent so far
        side = "c" if s.sport != port else "s"
        other = "s" if side == "c" else "c"
        acked.append(
            Seg(s.src, s.sport, s.dst, s.dport, s.seq, s.flags, s.payload, s.ts, sent[other] if s.flags & ACK else 0)
        )
        sent[side] = s.seq + len(s.payload) + (1 if s.flags & 0x03 else 0)
    half = len(acked) // 2
    t = acked[half].ts + 0.0001
    src = acked[0] if not from_server else acked[1]
    side = "c" if not from_server else "s"
    before = [s for s in acked[: half + 1] if (s.sport != port) == (side == "c")]  # what its sender had sent
    last = max(before, key=lambda s: s.seq + len(s.payload))
    rst = Seg(src.src, src.sport, src.dst, src.dport, (last.seq + len(last.payload) + offset) & 0xFFFFFFFF, RST, b"", t)
    out = acked[: half + 1] + [rst] + acked[half + 1 :]
    end = out[-1].ts + 0.001
    for s, o in ((acked[0], "s"), (acked[1], "c")):  # the FINs
        side = "c" if s.sport != port else "s"
        out.append(Seg(s.src, s.sport, s.dst, s.dport, sent[side], 0x11, b"", end, sent[o]))
    return Built(pcap(out), port, _frames(0, writes))


# -- one direction only --------------------------------------------------------------------------------------


def join_v9(cid: int, group: str = "orders", member: str = "") -> bytes:
    proto = wire_class("JoinGroupRequest", "JoinGroupRequestProtocol")
    body = wire_class("JoinGroupRequest", "JoinGroupRequest")(
        group_id=group,
        session_timeout_ms=45000,
        rebalance_timeout_ms=300000,
        member_id=member,
        group_instance_id=None,
        protocol_type="consumer",
        protocols=(proto(name="range", metadata=b"\x00\x00\x00\x00\x00\x01\x00\x06orders\xff\xff\xff\xff"),),
        reason=None,
    )
    return encode_request_frame(request_frame(11, 9, cid, "consumer-orders-1", body), size_prefixed=True)


def requests_only(port: int = 9092, joins: int = 6, handshake: bool = False) -> Built:
    """Six JoinGroup v9 requests of one member (retrying), and nothing of the broker's side: a capture filtered on
    ``dst port``."""
    writes: list[Write] = [("c", join_v9(cid), ("request", 11, cid)) for cid in range(1, joins + 1)]
    conn = _written(writes, server=("10.0.0.2", port), handshake=handshake, close=False)
    segs = [s for s in conn.segments if s.dport == port]
    return Built(pcap(segs), port, _frames(0, writes))


__all__ = [
    "Built",
    "group_session",
    "response_first",
    "zookeeper_session",
    "with_zookeeper",
    "snap_cut",
    "offloaded",
    "bogus_reset",
    "requests_only",
    "join_v9",
    "raw_response",
    "heartbeat_request",
    "heartbeat_response",
]
