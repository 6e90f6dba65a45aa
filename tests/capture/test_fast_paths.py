"""The capture reader's shortcuts for the common case (issue #29: ``capture --json`` at twice tshark's speed)
against the general code they skip, on the shared captures and on damaged and reordered inputs:

* ``decode_tcp``'s one-unpack read of Ethernet/IPv4/TCP packets against the general header walk;
* pcap records parsed from blocks read ahead against the exact record-by-record reads (same packets, same
  error at the same offset);
* in-order segments delivered without the reassembly queue against pushing and draining every one.
"""

from __future__ import annotations

import io
import random
import struct

import pytest

from codec.capture import packet as P
from codec.capture import pcapfile
from codec.capture.pcapfile import read_packets
from codec.capture.tcp import Reassembler
from tests.conftest import SHARED

PCAPS = sorted((SHARED / "captures" / "pcaps").glob("*/*.pcap*"))


def _outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as e:
        return ("error", type(e).__name__, str(e))


def _ethernet_packets() -> list[bytes]:
    out = []
    for path in PCAPS[:6]:
        out += [p.data for p in read_packets(path) if p.linktype == 1][:400]
    return out


def test_there_are_ethernet_ipv4_packets_to_compare():
    assert len(PCAPS) >= 3 and len(_ethernet_packets()) > 500


def test_the_one_unpack_read_equals_the_header_walk():
    rng = random.Random(29)
    cases = _ethernet_packets()
    for data in list(cases):
        for _ in range(3):  # damage one header byte (lengths, flags, offsets, protocol) or cut the packet
            k = rng.randrange(12, min(len(data), 60))
            cases.append(data[:k] + bytes((rng.randrange(256),)) + data[k + 1 :])
        cases.append(data[: rng.randrange(len(data) + 1)])
    shortcut = 0
    for data in cases:
        assert _outcome(P.decode_tcp, 1, data, 1.5) == _outcome(P._decode, 1, data, 1.5), data[:60].hex()
        shortcut += len(data) >= 54 and data[12:15] == b"\x08\x00\x45" and data[23] == 6
    assert shortcut > 1000


def _records(data: bytes, buffered: bool):
    src = pcapfile._Source(io.BytesIO(data), "pcap")
    src.f.read(4)
    src.pos = 4
    magic = data[:4]
    reader = pcapfile._read_pcap if buffered else None
    out = []
    try:
        if buffered:
            for p in reader(src, magic, 1 << 20):
                out.append(p)
        else:
            endian, unit = pcapfile._PCAP_MAGIC[magic]
            header = src.read(20, "header")
            linktype = struct.unpack(endian + "HHiIII", header)[5] & 0x0FFFFFFF
            for p in pcapfile._pcap_records(src, endian, unit, linktype, 1 << 20):
                out.append(p)
    except Exception as e:
        out.append((type(e).__name__, str(e), getattr(e, "offset", None)))
    return out


@pytest.mark.parametrize("block", [1 << 18, 100, 17])
def test_the_read_ahead_records_equal_the_exact_reads(monkeypatch, block):
    """Whole, cut at many offsets, with a record's length damaged: the same packets, then the same error."""
    monkeypatch.setattr(pcapfile, "_BLOCK", block)
    raw = (
        next(p for p in PCAPS if p.suffix == ".pcap").read_bytes() if any(p.suffix == ".pcap" for p in PCAPS) else None
    )
    if raw is None:
        import gzip

        raw = gzip.decompress(next(p for p in PCAPS if p.name.endswith(".pcap.gz")).read_bytes())
    raw = raw[:200_000]
    assert raw[:4] in pcapfile._PCAP_MAGIC
    rng = random.Random(block)
    cases = [raw] + [raw[: rng.randrange(24, len(raw))] for _ in range(12)]
    cases += [raw[:40] + b"\xff\xff\xff\x7f" + raw[44:], raw[:40] + (2 << 20).to_bytes(4, "little") + raw[44:]]
    for data in cases:
        assert _records(data, True) == _records(data, False)


def test_in_order_delivery_equals_the_queue(monkeypatch):
    """Segments in order, reordered, retransmitted, lost, with SYN and FIN: the same events either way."""
    rng = random.Random(7)

    def segments(n: int) -> list:
        seq, out = 1000, []
        out.append(P.TcpSegment("10.0.0.1", 5000, "10.0.0.2", 9092, seq, P.SYN, b"", 0, 0.0))
        seq += 1
        for i in range(n):
            data = rng.randbytes(rng.choice((1, 10, 100)))
            out.append(P.TcpSegment("10.0.0.1", 5000, "10.0.0.2", 9092, seq, P.ACK, data, len(data), 0.01 * i))
            seq += len(data)
        out.append(P.TcpSegment("10.0.0.1", 5000, "10.0.0.2", 9092, seq, P.FIN | P.ACK, b"", 0, 9.0))
        for _ in range(n // 5):  # retransmit, swap, drop
            i = rng.randrange(1, len(out) - 1)
            op = rng.random()
            if op < 0.3:
                out.insert(i, out[i])
            elif op < 0.6:
                out[i], out[i + 1] = out[i + 1], out[i]
            else:
                del out[i]
        return out

    def events(segs, shortcut: bool):
        monkeypatch.setattr("codec.capture.tcp.HalfStream.shortcut", shortcut)
        r = Reassembler(max_buffer=300, max_wait=0.5)
        out = []
        for s in segs:
            out += r.feed(s)
        return out + r.finish()

    for n in (5, 50, 400):
        for _ in range(20):
            segs = segments(n)
            assert events(segs, True) == events(segs, False)
