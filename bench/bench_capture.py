"""Benchmark: read and reassemble a large synthetic capture (default ~200 MB), frame its Kafka traffic.

The capture is 64 connections' worth of traffic written round-robin: each carries Kafka requests and
responses of 100 B to 64 KiB in 1448-byte segments, with one segment in 500 dropped (gaps), one in 300
sent twice (retransmissions) and neighbours swapped now and then (reordering). The file is written
once into a temporary directory. Reported: MB/s of capture file and peak RSS.

Run: ``PYTHONPATH=. python bench/bench_capture.py [MB]`` (prints the figures). ``capture --json`` against
tshark is ``bench/capture_bench.py`` (``python bench/run.py capture``).
"""

from __future__ import annotations

import os
import random
import resource
import struct
import sys
import tempfile
import time
from pathlib import Path

from codec.capture import CaptureStats, KafkaFrame, kafka_frames

MSS = 1448
_REC = struct.Struct("<IIII")


def _segment(src: int, dst: int, sport: int, dport: int, seq: int, payload: bytes) -> bytes:
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, 0, 0x50, 0x18, 65535, 0, 0) + payload
    ip = struct.pack(">BBHHHBBHII", 0x45, 0, 20 + len(tcp), 0, 0x4000, 64, 6, 0, src, dst)
    return b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + tcp


def write_capture(path: Path, megabytes: int, seed: int = 1) -> int:
    """Write the synthetic capture; return the number of Kafka frames written."""
    rng = random.Random(seed)
    conns = [{"seq": [rng.randrange(2**32), rng.randrange(2**32)], "port": 40000 + i, "cid": 0} for i in range(64)]
    frames, size, t = 0, 24, 1_700_000_000.0
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        while size < megabytes * 1_000_000:
            c = rng.choice(conns)
            body = rng.randbytes(rng.choice([100, 1000, 8000, 65536]))
            key = rng.choice([0, 1, 3, 8, 11, 12, 14])
            req = struct.pack(">ihhih", 10 + len(body), key, 3, c["cid"], 0) + body
            resp = struct.pack(">ii", 4 + len(body) // 2, c["cid"]) + body[: len(body) // 2]
            c["cid"] += 1
            frames += 2
            for side, data in ((0, req), (1, resp)):
                ends = (
                    (0x7F000001, 0x7F000002, c["port"], 9092)
                    if side == 0
                    else (0x7F000002, 0x7F000001, 9092, c["port"])
                )
                pkts = []
                for i in range(0, len(data), MSS):
                    piece = data[i : i + MSS]
                    pkts.append(_segment(*ends, c["seq"][side], piece))
                    c["seq"][side] += len(piece)
                    if rng.random() < 1 / 300:
                        pkts.append(pkts[-1])
                    if rng.random() < 1 / 500:
                        pkts.pop()
                if len(pkts) > 2 and rng.random() < 0.05:
                    pkts[0], pkts[1] = pkts[1], pkts[0]
                for p in pkts:
                    t += 0.00001
                    f.write(_REC.pack(int(t), int((t % 1) * 1e6), len(p), len(p)) + p)
                    size += 16 + len(p)
    return frames


def scan(path: Path) -> tuple[int, CaptureStats]:
    stats = CaptureStats()
    n = sum(1 for e in kafka_frames(path, stats=stats, api_keys={11, 12, 14}) if isinstance(e, KafkaFrame))
    return n, stats


def main(megabytes: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "bench.pcap"
        written = write_capture(path, megabytes)
        mb = os.path.getsize(path) / 1e6
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        n, stats = scan(path)
        elapsed = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"{mb:.0f} MB, {stats.packets} packets, {written} frames written, {n} frames seen")
        print(
            f"{elapsed:.1f} s = {mb / elapsed:.1f} MB/s; peak RSS {peak / 1024:.0f} MiB "
            f"(before the scan {before / 1024:.0f} MiB); gaps {stats.gap_bytes} B, stale {stats.stale_bytes} B"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
