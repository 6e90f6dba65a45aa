"""The recipe of ``frames.jsonl`` beside it: a real KIP-848 consumer group on librdkafka's mock cluster.

Broker: librdkafka's built-in mock cluster (the librdkafka bundled in the confluent-kafka wheel, started through
ctypes as ``../shared/captures/capture.py`` starts it), with two topics: ``orders`` (6 partitions) and ``events``
(3). Clients: three confluent-kafka consumers with ``group.protocol=consumer`` (KIP-848: ConsumerGroupHeartbeat,
API 68) in the group ``kip848``, subscribed to both topics: ``c1`` joins at 0 s, ``c2`` at 3 s, ``c3`` at 6 s,
``c2`` closes at 12 s (a leave: member epoch -1), the run ends at 18 s. Frames: a recording TCP relay in front of
the mock (the mock advertises the relay's port, so every client connection goes through it) writes each Kafka
frame it forwards, unchanged, in ``../shared/captures/frames.jsonl``'s record format (``hex`` without the size
prefix; ``body_offset`` after the request or response header). Kept: Metadata (3) and ConsumerGroupHeartbeat (68)
frames of the consumers' connections. Run: ``python tests/pipeline/kip848/make_capture.py OUT.jsonl``.
"""

from __future__ import annotations

import asyncio
import ctypes
import glob
import json
import os
import socket
import struct
import sys
import threading
import time

TOPICS = {"orders": 6, "events": 3}
KEEP = {3: "Metadata", 68: "ConsumerGroupHeartbeat"}
FLEX_FROM = {3: 9, 68: 0, 18: 3, 10: 3}
SCHEDULE = (("c1", 0.0, 18.0), ("c2", 3.0, 12.0), ("c3", 6.0, 18.0))


def _lib():
    import confluent_kafka

    base = os.path.dirname(os.path.dirname(confluent_kafka.__file__))
    lib = ctypes.CDLL(glob.glob(os.path.join(base, "confluent_kafka.libs", "librdkafka*.so*"))[0])
    vp, cp = ctypes.c_void_p, ctypes.c_char_p
    lib.rd_kafka_conf_new.restype = vp
    lib.rd_kafka_conf_set.argtypes = [vp, cp, cp, cp, ctypes.c_size_t]
    lib.rd_kafka_new.restype = vp
    lib.rd_kafka_new.argtypes = [ctypes.c_int, vp, cp, ctypes.c_size_t]
    lib.rd_kafka_mock_cluster_new.restype = vp
    lib.rd_kafka_mock_cluster_new.argtypes = [vp, ctypes.c_int]
    lib.rd_kafka_mock_cluster_bootstraps.restype = cp
    lib.rd_kafka_mock_cluster_bootstraps.argtypes = [vp]
    lib.rd_kafka_mock_topic_create.argtypes = [vp, cp, ctypes.c_int, ctypes.c_int]
    lib.rd_kafka_mock_broker_set_host_port.argtypes = [vp, ctypes.c_int32, cp, ctypes.c_int]
    lib.rd_kafka_mock_set_group_consumer_heartbeat_interval_ms.argtypes = [vp, ctypes.c_int]
    lib.rd_kafka_version_str.restype = cp
    return lib


def _uvarint(b: bytes, off: int) -> tuple[int, int]:
    shift = val = 0
    while True:
        x = b[off]
        off += 1
        val |= (x & 0x7F) << shift
        if not x & 0x80:
            return val, off
        shift += 7


def _skip_tagged(b: bytes, off: int) -> int:
    n, off = _uvarint(b, off)
    for _ in range(n):
        _, off = _uvarint(b, off)
        size, off = _uvarint(b, off)
        off += size
    return off


class Recorder:
    """A TCP relay in front of the mock broker that records every frame it forwards, byte for byte."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.records: list[dict] = []
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]

    def _record(self, conn: str, direction: str, frame: bytes, inflight: dict, client: dict) -> None:
        if direction == "request":
            key, ver, corr, cl = struct.unpack("!hhih", frame[:10])
            off = 10
            if cl >= 0:
                client["id"] = frame[off : off + cl].decode()
                off += cl
            flex = ver >= FLEX_FROM.get(key, 99)
            if flex:
                off = _skip_tagged(frame, off)
            inflight[corr] = (key, ver)
        else:
            corr = struct.unpack("!i", frame[:4])[0]
            key, ver = inflight.pop(corr, (None, None))
            flex = key is not None and ver >= FLEX_FROM.get(key, 99)
            off = _skip_tagged(frame, 4) if flex and key != 18 else 4
        if key not in KEEP:
            return
        rec = {
            "run": "kip848",
            "scenario": "kip848-three-consumers",
            "client_id": client.get("id"),
            "conn": conn,
            "direction": direction,
            "ts": round(time.time(), 6),
            "api_key": key,
            "api_name": KEEP[key],
            "api_version": ver,
            "correlation_id": corr,
            "flexible": flex,
            "header_version": (2 if flex else 1) if direction == "request" else (1 if flex else 0),
            "body_offset": off,
            "hex": frame.hex(),
        }
        with self.lock:
            self.records.append(rec)

    def start(self) -> None:
        async def pump(reader, writer, conn, direction, inflight, client):
            while True:
                head = await reader.readexactly(4)
                frame = await reader.readexactly(struct.unpack("!i", head)[0])
                self._record(conn, direction, frame, inflight, client)
                writer.write(head + frame)
                await writer.drain()

        async def handle(cr, cw):
            sr, sw = await asyncio.open_connection(*self.target)
            peer = cw.get_extra_info("peername")
            conn, inflight, client = f"{peer[0]}:{peer[1]}", {}, {}
            tasks = [
                asyncio.ensure_future(pump(cr, sw, conn, "request", inflight, client)),
                asyncio.ensure_future(pump(sr, cw, conn, "response", inflight, client)),
            ]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for t in tasks:
                t.cancel()
            for w in (cw, sw):
                w.close()

        def run():
            loop = asyncio.new_event_loop()
            loop.run_until_complete(asyncio.start_server(handle, sock=self.sock))
            loop.run_forever()

        threading.Thread(target=run, daemon=True).start()


def _consumer(bootstrap: str, name: str, start: float, stop: float, t0: float, log: list) -> None:
    from confluent_kafka import Consumer

    time.sleep(max(0.0, t0 + start - time.time()))
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "kip848",
            "group.protocol": "consumer",
            "client.id": name,
            "auto.offset.reset": "earliest",
        }
    )
    c.subscribe(list(TOPICS))
    last = None
    while time.time() < t0 + stop:
        c.poll(0.2)
        now = sorted(f"{tp.topic}-{tp.partition}" for tp in c.assignment())
        if now != last:
            log.append({"client_id": name, "t": round(time.time() - t0, 3), "assignment": now})
            last = now
    c.close()


def main(out: str) -> None:
    import confluent_kafka

    lib = _lib()
    err = ctypes.create_string_buffer(512)
    conf = lib.rd_kafka_conf_new()
    lib.rd_kafka_conf_set(conf, b"client.id", b"mock-host", err, 512)
    rk = lib.rd_kafka_new(0, conf, err, 512)
    mc = lib.rd_kafka_mock_cluster_new(rk, 1)
    lib.rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(mc, 1000)
    for t, n in TOPICS.items():
        assert lib.rd_kafka_mock_topic_create(mc, t.encode(), n, 1) == 0
    host, port = lib.rd_kafka_mock_cluster_bootstraps(mc).decode().rsplit(":", 1)
    rec = Recorder(host, int(port))
    rec.start()
    lib.rd_kafka_mock_broker_set_host_port(mc, 1, b"127.0.0.1", rec.port)
    bootstrap = f"127.0.0.1:{rec.port}"
    t0, log = time.time() + 0.5, []
    threads = [threading.Thread(target=_consumer, args=(bootstrap, n, a, b, t0, log)) for n, a, b in SCHEDULE]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    time.sleep(0.5)
    producer = f"confluent-kafka {confluent_kafka.version()[0]} / librdkafka {confluent_kafka.libversion()[0]}"
    mock = f"librdkafka {lib.rd_kafka_version_str().decode()} mock cluster"
    with open(out, "w") as f:
        for r in sorted(rec.records, key=lambda r: r["ts"]):
            r["produced_by"] = producer if r["direction"] == "request" else mock
            f.write(json.dumps(r) + "\n")
    with open(os.path.splitext(out)[0] + ".assignments.json", "w") as f:
        json.dump({"schedule": SCHEDULE, "topics": TOPICS, "client_log": log}, f, indent=1)
    print(f"wrote {len(rec.records)} frames to {out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
