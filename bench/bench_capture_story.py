"""Benchmark: ``rebalance-codec capture --json`` over a large synthetic capture; MB/s and peak memory.

The capture (libpcap, Ethernet, 1448-byte segments) is what a broker port carries: 64 client
connections doing Fetch (64 KiB responses) and Produce (16 KiB requests), and among them a consumer
group of 16 members, each on its own connection, that heartbeats every 200 Fetches and rebalances every
20 MB (JoinGroup and SyncGroup of every member, range-style assignments of 64 partitions, the leader's
SyncGroup carrying all of them); one segment in 2000 is lost (a gap). Group frames are encoded with
codec.group. The story runs in a subprocess, so its peak RSS (ru_maxrss) is its own.

Run: ``PYTHONPATH=. python bench/bench_capture_story.py [MB]`` (default 1000: writes the file into a
temporary directory, prints size, time, MB/s, peak RSS and output counts), or
``PYTHONPATH=. python -m pytest bench/bench_capture_story.py --benchmark-only`` (a 40 MB file).
"""

from __future__ import annotations

import json
import random
import resource
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codec.group import encode_request_frame, encode_response_frame, request_frame, response_frame
from codec.group.consumer import consumer_assignment, consumer_subscription, encode_consumer
from codec.wire.builder import wire_class

MSS = 1448
MEMBERS = 16
PARTITIONS = 64
_REC = struct.Struct("<IIII")
_BROKER = 0x0A000063
ROOT = Path(__file__).resolve().parents[1]


def _packet(src: int, dst: int, sport: int, dport: int, seq: int, flags: int, payload: bytes) -> bytes:
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, 0, 0x50, flags, 65535, 0, 0) + payload
    ip = struct.pack(">BBHHHBBHII", 0x45, 0, 20 + len(tcp), 0, 0x4000, 64, 6, 0, src, dst)
    return b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + tcp


class _Writer:
    """Connections and their segments, written straight to the pcap file."""

    def __init__(self, f, rng: random.Random) -> None:
        self.f, self.rng, self.size, self.t = f, rng, 24, 1_700_000_000.0
        self.seq: dict[tuple[int, int], int] = {}
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))

    def _emit(self, pkt: bytes) -> None:
        self.t += 0.00002
        self.f.write(_REC.pack(int(self.t), int((self.t % 1) * 1e6), len(pkt), len(pkt)) + pkt)
        self.size += 16 + len(pkt)

    def open(self, client: int) -> None:
        ip = 0x0A000100 + client
        for side in (0, 1):
            self.seq[(client, side)] = self.rng.randrange(2**32)
        self._emit(_packet(ip, _BROKER, 30000 + client, 9092, self.seq[(client, 0)], 0x02, b""))
        self._emit(_packet(_BROKER, ip, 9092, 30000 + client, self.seq[(client, 1)], 0x12, b""))
        self.seq[(client, 0)] += 1
        self.seq[(client, 1)] += 1

    def write(self, client: int, side: int, data: bytes) -> None:
        ip = 0x0A000100 + client
        ends = (ip, _BROKER, 30000 + client, 9092) if side == 0 else (_BROKER, ip, 9092, 30000 + client)
        for i in range(0, len(data), MSS):
            piece = data[i : i + MSS]
            if self.rng.random() >= 1 / 2000:
                self._emit(_packet(*ends, self.seq[(client, side)], 0x18, piece))
            self.seq[(client, side)] += len(piece)


def _req(key: int, version: int, cid: int, client: str, body) -> bytes:
    return encode_request_frame(request_frame(key, version, cid, client, body), size_prefixed=True)


def _resp(key: int, version: int, cid: int, body) -> bytes:
    return encode_response_frame(response_frame(key, version, cid, body), size_prefixed=True)


def _rebalance(gen: int, cid: int) -> list[tuple[int, int, bytes]]:
    """(member, side, frame) of one generation: JoinGroup v5 and SyncGroup v3 of every member."""
    w = wire_class
    sub = encode_consumer(consumer_subscription(3, topics=("orders",), user_data=b"", generation_id=gen - 1))
    ids = [f"member-{i}" for i in range(MEMBERS)]
    per = PARTITIONS // MEMBERS
    asg = {
        m: encode_consumer(
            consumer_assignment(
                3,
                assigned_partitions=(
                    w("ConsumerProtocolAssignment", "TopicPartition")(
                        topic="orders",
                        partitions=tuple(range((i + gen) % MEMBERS * per, (i + gen) % MEMBERS * per + per)),
                    ),
                ),
                user_data=None,
            )
        )
        for i, m in enumerate(ids)
    }
    jm = w("JoinGroupResponse", "JoinGroupResponseMember")
    out = []
    for i, m in enumerate(ids):
        proto = w("JoinGroupRequest", "JoinGroupRequestProtocol")(name="range", metadata=sub)
        out.append(
            (
                i,
                0,
                _req(
                    11,
                    5,
                    cid,
                    f"c-{i}",
                    w("JoinGroupRequest", "JoinGroupRequest")(
                        group_id="bench",
                        session_timeout_ms=10000,
                        rebalance_timeout_ms=30000,
                        member_id=m,
                        protocol_type="consumer",
                        protocols=(proto,),
                    ),
                ),
            )
        )
        members = tuple(jm(member_id=x, metadata=sub) for x in ids) if i == 0 else ()
        out.append(
            (
                i,
                1,
                _resp(
                    11,
                    5,
                    cid,
                    w("JoinGroupResponse", "JoinGroupResponse")(
                        generation_id=gen, protocol_name="range", leader=ids[0], member_id=m, members=members
                    ),
                ),
            )
        )
    sa = w("SyncGroupRequest", "SyncGroupRequestAssignment")
    for i, m in enumerate(ids):
        assignments = tuple(sa(member_id=x, assignment=asg[x]) for x in ids) if i == 0 else ()
        out.append(
            (
                i,
                0,
                _req(
                    14,
                    3,
                    cid + 1,
                    f"c-{i}",
                    w("SyncGroupRequest", "SyncGroupRequest")(
                        group_id="bench", generation_id=gen, member_id=m, assignments=assignments
                    ),
                ),
            )
        )
        out.append((i, 1, _resp(14, 3, cid + 1, w("SyncGroupResponse", "SyncGroupResponse")(assignment=asg[m]))))
    return out


def write_capture(path: Path, megabytes: int, seed: int = 1) -> int:
    """Write the synthetic capture (see the module docstring); return its group frames."""
    rng = random.Random(seed)
    blob = rng.randbytes(70000)
    cids = [0] * (64 + MEMBERS)
    group_frames, gen, fetches, next_rebalance = 0, 0, 0, 0
    with open(path, "wb") as f:
        w = _Writer(f, rng)
        for c in range(64 + MEMBERS):
            w.open(c)
        while w.size < megabytes * 1_000_000:
            if w.size >= next_rebalance:
                gen += 1
                next_rebalance += 20_000_000
                for member, side, data in _rebalance(gen, 1000 * gen):
                    w.write(64 + member, side, data)
                    group_frames += 1
            c = rng.randrange(64)
            cids[c] += 1
            if rng.random() < 0.8:
                w.write(c, 0, struct.pack(">ihhih", 10 + 60, 1, 12, cids[c], 0) + blob[:60])
                w.write(c, 1, struct.pack(">ii", 4 + 65536, cids[c]) + blob[:65536])
                fetches += 1
            else:
                w.write(c, 0, struct.pack(">ihhih", 10 + 16384, 0, 9, cids[c], 0) + blob[:16384])
                w.write(c, 1, struct.pack(">ii", 4 + 40, cids[c]) + blob[:40])
            if fetches % 200 == 0:
                m = rng.randrange(MEMBERS)
                cids[64 + m] += 1
                hb = wire_class("HeartbeatRequest", "HeartbeatRequest")(
                    group_id="bench", generation_id=gen, member_id=f"member-{m}"
                )
                w.write(64 + m, 0, _req(12, 3, 10**6 + cids[64 + m], f"c-{m}", hb))
                w.write(
                    64 + m,
                    1,
                    _resp(
                        12, 3, 10**6 + cids[64 + m], wire_class("HeartbeatResponse", "HeartbeatResponse")(error_code=0)
                    ),
                )
                group_frames += 2
    return group_frames


_CHILD = """
import io, json, os, resource, sys, time
from argparse import Namespace
from codec.capture.command import run
t = time.perf_counter()
with open(os.devnull, "w") as out:
    run(Namespace(file=sys.argv[1], json=True, group=None, port=None), out=out, err=io.StringIO())
print(json.dumps({"seconds": time.perf_counter() - t,
                  "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

_COUNT = """
import io, sys
from argparse import Namespace
from codec.capture.command import run
buf = io.StringIO()
run(Namespace(file=sys.argv[1], json=True, group=None, port=None), out=buf, err=io.StringIO())
print(buf.getvalue().splitlines()[-1])
"""


def measure(path: Path) -> dict:
    """Time and peak RSS of ``capture --json`` over ``path`` in a fresh interpreter (output to /dev/null)."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
    )
    out = json.loads(done.stdout)
    out["megabytes"] = path.stat().st_size / 1e6
    out["mb_per_s"] = out["megabytes"] / out["seconds"]
    return out


def summary_line(path: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _COUNT, str(path)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
    )
    return json.loads(done.stdout)


def test_bench_capture_story(benchmark, tmp_path):
    path = tmp_path / "story.pcap"
    written = write_capture(path, 40)
    result = benchmark.pedantic(measure, args=(path,), rounds=1, iterations=1)
    benchmark.extra_info.update(result)
    summary = summary_line(path)
    assert summary["group_frames"] >= written * 0.9 and summary["gaps"] > 0


def main(megabytes: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "story.pcap"
        t = time.perf_counter()
        written = write_capture(path, megabytes)
        print(
            f"wrote {path.stat().st_size / 1e6:,.0f} MB ({written:,} group frames) in {time.perf_counter() - t:.0f} s"
        )
        r = measure(path)
        print(
            f"capture --json: {r['seconds']:.1f} s, {r['mb_per_s']:.1f} MB/s, peak RSS {r['max_rss_kb'] / 1024:.0f} MiB"
        )
        if megabytes <= 200:
            s = summary_line(path)
            print(
                f"group frames {s['group_frames']:,}, generations {s['generations']}, gaps {s['gaps']:,}, "
                f"other APIs {sum(a['frames'] for a in s['other_apis']):,}"
            )
    print(f"(this process, writing: peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
