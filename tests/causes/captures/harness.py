#!/usr/bin/env python3
"""Captures of real Kafka clients rebalancing at known times, each with its run's own record of what was done.

Not run in CI: it needs tcpdump on the loopback interface (root or CAP_NET_RAW) and the clients, installed beside
the project (``python3 -m venv /tmp/harness-venv && /tmp/harness-venv/bin/pip install confluent-kafka==2.16.1
kafka-python==3.0.12 aiokafka==0.14.0``; ``npm install kafkajs@2.2.4`` in a folder named by ``KAFKAJS_DIR``).
Run it with that venv's python::

    /tmp/harness-venv/bin/python tests/causes/captures/harness.py run --out tests/causes/captures [SCENARIO ...]

The broker is librdkafka's mock cluster, from the confluent-kafka wheel through ctypes (``mockhost``), in front of
which a byte-for-byte relay per broker rewrites one thing only -- the mock's home-made ApiVersions v3+ error answer,
which kafka-python cannot read, into the v0 layout a real broker sends (as ``../shared/captures/capture.py`` does).
The mock advertises JoinGroup up to v5, SyncGroup up to v3 and LeaveGroup up to v2 (the versions its handlers
decode). ``tcpdump -U`` records the relays' ports on ``lo``: what each client sent and got.

Each member is its own process (``member``: confluent-kafka, kafka-python or aiokafka; ``kafkajs_member.js``),
reading orders on its stdin (``stall S``: stop polling for S seconds; ``subscribe a,b``; ``stop``: close) and
writing what it sees on stdout (its member id, each assignment, when it stalls and resumes), as JSON lines. The
orchestrator (``run``) plays each scenario's plan and writes, beside ``SCENARIO.pcap.gz``, ``SCENARIO.run.json``:
the clients and their settings, every action it took with its wall-clock time (``start``, ``stop``, ``kill``
(SIGKILL: no LeaveGroup), ``stall``, ``subscribe``, ``restart-static`` (a member with the same
``group.instance.id`` started after one was killed), ``move-coordinator``), and each member's own lines. The
tests derive the causes they expect from these records alone.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import gzip
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOPICS = {"orders": 6, "events": 3, "refunds": 2}
SESSION_MS, HEARTBEAT_MS, MAX_POLL_MS = 6000, 1000, 8000
MOCK_APIVERSIONS = ("11:0:5", "14:0:3", "13:0:2")
KAFKAJS_DIR = os.environ.get("KAFKAJS_DIR", "/tmp/harness-node")


def now() -> float:
    return round(time.time(), 6)


# -- the mock cluster -----------------------------------------------------------------------------------------


def _librdkafka():
    import confluent_kafka

    base = os.path.dirname(os.path.dirname(confluent_kafka.__file__))
    (path,) = glob.glob(os.path.join(base, "confluent_kafka.libs", "librdkafka*.so*"))
    lib = ctypes.CDLL(path)
    vp, cp, i32 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32
    for name, res, args in (
        ("rd_kafka_conf_new", vp, []),
        ("rd_kafka_conf_set", ctypes.c_int, [vp, cp, cp, cp, ctypes.c_size_t]),
        ("rd_kafka_new", vp, [ctypes.c_int, vp, cp, ctypes.c_size_t]),
        ("rd_kafka_mock_cluster_new", vp, [vp, ctypes.c_int]),
        ("rd_kafka_mock_cluster_bootstraps", cp, [vp]),
        ("rd_kafka_mock_topic_create", ctypes.c_int, [vp, cp, ctypes.c_int, ctypes.c_int]),
        ("rd_kafka_mock_group_initial_rebalance_delay_ms", None, [vp, i32]),
        ("rd_kafka_mock_set_apiversion", ctypes.c_int, [vp, ctypes.c_int16, ctypes.c_int16, ctypes.c_int16]),
        ("rd_kafka_mock_broker_set_host_port", None, [vp, i32, cp, ctypes.c_int]),
        ("rd_kafka_mock_coordinator_set", ctypes.c_int, [vp, cp, cp, i32]),
        ("rd_kafka_mock_set_group_consumer_session_timeout_ms", None, [vp, ctypes.c_int]),
        ("rd_kafka_mock_set_group_consumer_heartbeat_interval_ms", None, [vp, ctypes.c_int]),
        ("rd_kafka_version_str", cp, []),
    ):
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


def _relay(host: str, port: int) -> int:
    """A relay in front of one mock broker (see the module docstring); its port."""
    import asyncio
    import socket

    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)

    async def up(r, w, inflight):
        while True:
            size = await r.readexactly(4)
            body = await r.readexactly(struct.unpack(">i", size)[0])
            key, version, corr = struct.unpack(">hhi", body[:8])
            inflight[corr] = (key, version)
            w.write(size + body)
            await w.drain()

    async def down(r, w, inflight):
        while True:
            size = await r.readexactly(4)
            body = await r.readexactly(struct.unpack(">i", size)[0])
            key, version = inflight.pop(struct.unpack(">i", body[:4])[0], (None, None))
            if key == 18 and version is not None and version >= 3 and body[4:6] == b"\x00\x23":
                count = body[6]
                body = body[:4] + struct.pack(">hi", 35, count) + body[7 : 7 + 6 * count]
                size = struct.pack(">i", len(body))
            w.write(size + body)
            await w.drain()

    async def handle(cr, cw):
        try:
            sr, sw = await asyncio.open_connection(host, port)
        except OSError:
            cw.close()
            return
        inflight: dict = {}
        tasks = [asyncio.ensure_future(up(cr, sw, inflight)), asyncio.ensure_future(down(sr, cw, inflight))]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for t in tasks:
            t.cancel()
        for w in (cw, sw):
            w.close()

    def serve():
        loop = asyncio.new_event_loop()
        loop.run_until_complete(asyncio.start_server(handle, sock=listener))
        loop.run_forever()

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1]


def cmd_mockhost(args) -> None:
    """A mock cluster of ``--brokers`` brokers behind relays; prints its bootstrap and ports as one JSON line, then
    takes orders on stdin (``coordinator GROUP BROKER_ID``) until stdin ends."""
    lib = _librdkafka()
    err = ctypes.create_string_buffer(512)
    conf = lib.rd_kafka_conf_new()
    lib.rd_kafka_conf_set(conf, b"client.id", b"mock-host", err, 512)
    rk = lib.rd_kafka_new(0, conf, err, 512)
    mc = lib.rd_kafka_mock_cluster_new(rk, args.brokers)
    lib.rd_kafka_mock_group_initial_rebalance_delay_ms(mc, 1000)
    lib.rd_kafka_mock_set_group_consumer_session_timeout_ms(mc, SESSION_MS)
    lib.rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(mc, HEARTBEAT_MS)
    for spec in MOCK_APIVERSIONS:
        lib.rd_kafka_mock_set_apiversion(mc, *(int(x) for x in spec.split(":")))
    for topic, n in TOPICS.items():
        assert lib.rd_kafka_mock_topic_create(mc, topic.encode(), n, 1) == 0, topic
    listeners = lib.rd_kafka_mock_cluster_bootstraps(mc).decode().split(",")
    ports = []
    for broker_id, listener in enumerate(listeners, start=1):
        host, port = listener.rsplit(":", 1)
        relay = _relay(host, int(port))
        lib.rd_kafka_mock_broker_set_host_port(mc, broker_id, b"127.0.0.1", relay)
        ports.append(relay)
    from confluent_kafka import Producer

    bootstrap = ",".join(f"127.0.0.1:{p}" for p in ports)
    p = Producer({"bootstrap.servers": bootstrap, "client.id": "mock-producer"})
    for topic, n in TOPICS.items():
        for i in range(3 * n):
            p.produce(topic, value=f"{topic}-{i}".encode(), partition=i % n)
    p.flush(15)
    print(json.dumps({"bootstrap": bootstrap, "ports": ports, "librdkafka": lib.rd_kafka_version_str().decode()}))
    sys.stdout.flush()
    for line in sys.stdin:
        parts = line.split()
        if parts[:1] == ["coordinator"]:
            rc = lib.rd_kafka_mock_coordinator_set(mc, b"group", parts[1].encode(), int(parts[2]))
            print(json.dumps({"coordinator": parts[1], "broker": int(parts[2]), "rc": rc}), flush=True)


# -- members ----------------------------------------------------------------------------------------------------


def _say(**fields) -> None:
    print(json.dumps({"t": now(), **fields}), flush=True)


def _orders(q) -> None:
    """Each line of stdin into the queue ``q``."""
    for line in sys.stdin:
        q.put(line.strip())
    q.put("stop")


def _delayed(base):
    """The library's own assignor, its ``assign`` 0.5 s late (timing only: name, metadata and bytes are the
    library's): librdkafka's mock answers a follower's SyncGroup that comes after the leader's with an error."""
    import inspect

    if inspect.ismethod(base.assign):

        def assign_cls(cls, *a, **kw):
            time.sleep(0.5)
            return super(sub, cls).assign(*a, **kw)

        ns = {"assign": classmethod(assign_cls)}
    else:

        def assign(self, *a, **kw):
            time.sleep(0.5)
            return super(sub, self).assign(*a, **kw)

        ns = {"assign": assign}
    sub = type("Delayed" + base.__name__, (base,), ns)
    return sub


def cmd_member(args) -> None:
    import queue

    q: queue.Queue = queue.Queue()
    threading.Thread(target=_orders, args=(q,), daemon=True).start()
    topics = args.topics.split(",")
    if args.lib == "aio":
        import asyncio

        asyncio.run(_aio_member(args, topics, q))
        return
    consumer = _ck_consumer(args, topics) if args.lib == "ck" else _kp_consumer(args, topics)
    last = None
    while True:
        try:
            order = q.get_nowait()
        except queue.Empty:
            order = ""
        if order == "stop":
            _say(event="closing", member_id=_member_id(args.lib, consumer))
            consumer.close()
            _say(event="closed")
            return
        if order.startswith("stall "):
            _say(event="stall", seconds=float(order.split()[1]), member_id=_member_id(args.lib, consumer))
            time.sleep(float(order.split()[1]))
            _say(event="resume")
        elif order.startswith("subscribe "):
            topics = order.split()[1].split(",")
            consumer.subscribe(topics)
            _say(event="subscribed", topics=topics, member_id=_member_id(args.lib, consumer))
        if args.lib == "ck":
            consumer.poll(0.2)
            held = {(tp.topic, tp.partition) for tp in consumer.assignment()}
        else:
            consumer.poll(timeout_ms=200)
            held = {(tp.topic, tp.partition) for tp in consumer.assignment()}
        mid = _member_id(args.lib, consumer)
        if (held, mid) != last:
            last = (held, mid)
            _say(event="assignment", member_id=mid, partitions=sorted(f"{t}-{p}" for t, p in held))


def _member_id(lib: str, consumer) -> str | None:
    try:
        if lib == "ck":
            return consumer.memberid() or None
        if lib == "kp":
            return consumer._coordinator._generation.member_id or None
        return consumer._coordinator.member_id or None
    except Exception:  # (a client not yet joined)
        return None


def _ck_consumer(args, topics):
    from confluent_kafka import Consumer

    conf = {
        "bootstrap.servers": args.bootstrap,
        "group.id": args.group,
        "client.id": args.client_id,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    }
    if args.protocol == "consumer":
        conf["group.protocol"] = "consumer"
    else:
        conf.update(
            {
                "session.timeout.ms": SESSION_MS,
                "heartbeat.interval.ms": HEARTBEAT_MS,
                "max.poll.interval.ms": MAX_POLL_MS,
            }
        )
        if args.strategy != "default":
            conf["partition.assignment.strategy"] = args.strategy
    if args.instance:
        conf["group.instance.id"] = args.instance
    if args.protocol == "consumer":
        conf["max.poll.interval.ms"] = MAX_POLL_MS
    c = Consumer(conf)
    c.subscribe(topics)
    return c


def _kp_consumer(args, topics):
    from kafka import KafkaConsumer
    from kafka.coordinator.assignors.range import RangePartitionAssignor
    from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

    kw = {}
    if args.instance:
        kw["group_instance_id"] = args.instance
    return KafkaConsumer(
        *topics,
        bootstrap_servers=args.bootstrap,
        group_id=args.group,
        client_id=args.client_id,
        session_timeout_ms=SESSION_MS,
        heartbeat_interval_ms=HEARTBEAT_MS,
        max_poll_interval_ms=MAX_POLL_MS,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        partition_assignment_strategy=[_delayed(RangePartitionAssignor), _delayed(RoundRobinPartitionAssignor)],
        **kw,
    )


async def _aio_member(args, topics, q) -> None:
    import asyncio
    import queue

    from aiokafka import AIOKafkaConsumer
    from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

    kw = {}
    if args.instance:
        kw["group_instance_id"] = args.instance
    c = AIOKafkaConsumer(
        *topics,
        bootstrap_servers=args.bootstrap,
        group_id=args.group,
        client_id=args.client_id,
        session_timeout_ms=SESSION_MS,
        heartbeat_interval_ms=HEARTBEAT_MS,
        max_poll_interval_ms=MAX_POLL_MS,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        partition_assignment_strategy=(_delayed(RoundRobinPartitionAssignor),),
        **kw,
    )
    await c.start()
    last = None
    while True:
        try:
            order = q.get_nowait()
        except queue.Empty:
            order = ""
        if order == "stop":
            _say(event="closing", member_id=_member_id("aio", c))
            await c.stop()
            _say(event="closed")
            return
        if order.startswith("stall "):
            _say(event="stall", seconds=float(order.split()[1]), member_id=_member_id("aio", c))
            await asyncio.sleep(float(order.split()[1]))  # (the heartbeat task runs on; nothing polls)
            _say(event="resume")
        elif order.startswith("subscribe "):
            topics = order.split()[1].split(",")
            c.subscribe(topics)
            _say(event="subscribed", topics=topics, member_id=_member_id("aio", c))
        await c.getmany(timeout_ms=200)
        held = {(tp.topic, tp.partition) for tp in c.assignment()}
        mid = _member_id("aio", c)
        if (held, mid) != last:
            last = (held, mid)
            _say(event="assignment", member_id=mid, partitions=sorted(f"{t}-{p}" for t, p in held))


# -- scenarios --------------------------------------------------------------------------------------------------

#: name -> (client library, group protocol, brokers, strategy, plan); a plan step is (seconds after the start,
#: action, member index, argument). Steps are far enough apart (more than the session timeout, 6 s, and the
#: mock's rebalance delays) for each to start its own generation.
SCENARIOS: dict[str, tuple[str, str, int, str, list[tuple]]] = {}


def _joins_leaves(lib: str, protocol: str = "classic") -> list[tuple]:
    return [
        (0, "start", 0, None),
        (10, "start", 1, None),
        (20, "start", 2, None),
        (32, "stop", 0, None),
        (44, "stop", 1, None),
        (56, "stop", 2, None),
    ]


def _kill(lib: str) -> list[tuple]:
    return [(0, "start", 0, None), (10, "start", 1, None), (22, "kill", 1, None), (44, "stop", 0, None)]


def _stall(lib: str) -> list[tuple]:
    return [
        (0, "start", 0, None),
        (10, "start", 1, None),
        (22, "stall", 1, 18),
        (56, "stop", 0, None),
        (62, "stop", 1, None),
    ]


def _static(lib: str) -> list[tuple]:
    return [
        (0, "start", 0, "static-0"),
        (10, "start", 1, "static-1"),
        (22, "kill", 1, None),
        (24, "restart-static", 1, "static-1"),
        (48, "stop", 0, None),
        (68, "stop", 1, None),
    ]


def _subscription(lib: str) -> list[tuple]:
    return [
        (0, "start", 0, None),
        (10, "start", 1, None),
        (22, "subscribe", 1, "orders,refunds"),
        (36, "stop", 0, None),
        (44, "stop", 1, None),
    ]


def _coordinator(lib: str) -> list[tuple]:
    return [
        (0, "start", 0, None),
        (10, "start", 1, None),
        (22, "move-coordinator", None, 2),
        (40, "stop", 0, None),
        (48, "stop", 1, None),
    ]


for _lib in ("ck", "kp", "aio", "kafkajs"):
    SCENARIOS[f"{_lib}-joins-leaves"] = (_lib, "classic", 1, "default", _joins_leaves(_lib))
    SCENARIOS[f"{_lib}-kill"] = (_lib, "classic", 1, "default", _kill(_lib))
for _lib in ("ck", "kp", "aio"):
    SCENARIOS[f"{_lib}-stall"] = (_lib, "classic", 1, "default", _stall(_lib))
    SCENARIOS[f"{_lib}-static"] = (_lib, "classic", 1, "default", _static(_lib))
    SCENARIOS[f"{_lib}-subscription"] = (_lib, "classic", 1, "default", _subscription(_lib))
SCENARIOS["ck-coordinator"] = ("ck", "classic", 2, "default", _coordinator("ck"))
SCENARIOS["ck848-joins-leaves"] = ("ck", "consumer", 1, "default", _joins_leaves("ck", "consumer"))
SCENARIOS["ck848-kill"] = ("ck", "consumer", 1, "default", _kill("ck"))
SCENARIOS["ck848-subscription"] = ("ck", "consumer", 1, "default", _subscription("ck"))


def _versions() -> dict[str, str]:
    out = {}
    try:
        import confluent_kafka

        out["ck"] = f"confluent-kafka {confluent_kafka.version()[0]} / librdkafka {confluent_kafka.libversion()[0]}"
    except ImportError:
        pass
    for lib, mod in (("kp", "kafka"), ("aio", "aiokafka")):
        try:
            out[lib] = f"{'kafka-python' if lib == 'kp' else 'aiokafka'} {__import__(mod).__version__}"
        except ImportError:
            pass
    pkg = os.path.join(KAFKAJS_DIR, "node_modules", "kafkajs", "package.json")
    if os.path.exists(pkg):
        node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
        out["kafkajs"] = f"kafkajs {json.load(open(pkg))['version']} (node {node})"
    return out


class _Member:
    """One member process and what it writes."""

    def __init__(self, cmd: list[str], env: dict | None = None) -> None:
        self.proc = subprocess.Popen(
            cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=HERE
        )
        self.lines: list[dict] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                self.lines.append(json.loads(line))
            except ValueError:
                pass

    def order(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def finish(self, timeout: float = 30.0) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None


def _member_cmd(
    lib: str, protocol: str, strategy: str, bootstrap: str, group: str, cid: str, instance: str | None
) -> list[str]:
    if lib == "kafkajs":
        return [
            "node",
            os.path.join(HERE, "kafkajs_member.js"),
            bootstrap,
            group,
            cid,
            str(SESSION_MS),
            str(HEARTBEAT_MS),
            "orders,events",
        ]
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "member",
        "--lib",
        lib,
        "--protocol",
        protocol,
        "--strategy",
        strategy,
    ]
    cmd += ["--bootstrap", bootstrap, "--group", group, "--client-id", cid, "--topics", "orders,events"]
    return cmd + (["--instance", instance] if instance else [])


def run_scenario(name: str, out: str) -> None:
    lib, protocol, brokers, strategy, plan = SCENARIOS[name]
    env = dict(os.environ, NODE_PATH=os.path.join(KAFKAJS_DIR, "node_modules"))
    host = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "mockhost", "--brokers", str(brokers)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert host.stdout is not None and host.stdin is not None
    info = json.loads(host.stdout.readline())
    pcap = os.path.join(out, f"{name}.pcap")
    flt = " or ".join(f"tcp port {p}" for p in info["ports"])
    dump = subprocess.Popen(["tcpdump", "-i", "lo", "-U", "-s", "0", "-w", pcap, flt], stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    group = f"g-{name}"
    record = {
        "scenario": name,
        "group": group,
        "client": _versions().get(lib),
        "group_protocol": protocol,
        "librdkafka_mock": info["librdkafka"],
        "bootstrap": info["bootstrap"],
        "ports": info["ports"],
        "session_timeout_ms": SESSION_MS,
        "heartbeat_interval_ms": HEARTBEAT_MS,
        "max_poll_interval_ms": MAX_POLL_MS,
        "mock_apiversions": list(MOCK_APIVERSIONS),
        "actions": [],
        "members": {},
    }
    members: dict[int, _Member] = {}
    everyone: list[tuple[str, _Member]] = []
    cids: dict[int, str] = {}
    incarnation: dict[int, int] = {}
    t0 = time.time()
    for at, action, who, arg in plan:
        while time.time() - t0 < at:
            time.sleep(0.05)
        act = {"t": now(), "action": action}
        if action in ("start", "restart-static"):
            incarnation[who] = incarnation.get(who, 0) + 1
            cids[who] = f"{name}-c{who + 1}" + (f"-{incarnation[who]}" if incarnation[who] > 1 else "")
            members[who] = _Member(_member_cmd(lib, protocol, strategy, info["bootstrap"], group, cids[who], arg), env)
            everyone.append((cids[who], members[who]))
            act.update({"client_id": cids[who], "instance_id": arg})
        elif action == "stop":
            members[who].order("stop")
            act["client_id"] = cids[who]
        elif action == "kill":
            members[who].proc.send_signal(signal.SIGKILL)
            act["client_id"] = cids[who]
        elif action == "stall":
            members[who].order(f"stall {arg}")
            act.update({"client_id": cids[who], "seconds": arg})
        elif action == "subscribe":
            members[who].order(f"subscribe {arg}")
            act.update({"client_id": cids[who], "topics": arg.split(",")})
        elif action == "move-coordinator":
            host.stdin.write(f"coordinator {group} {arg}\n")
            host.stdin.flush()
            act["broker_id"] = arg
        record["actions"].append(act)
    codes = {}
    for cid, m in everyone:
        codes[cid] = m.finish()
        record["members"][cid] = m.lines
    time.sleep(1.5)
    dump.send_signal(signal.SIGTERM)
    dump.wait(10)
    host.stdin.close()
    host.wait(30)
    record["exit_codes"] = codes
    with open(pcap, "rb") as f, gzip.open(pcap + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.unlink(pcap)
    with open(os.path.join(out, f"{name}.run.json"), "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print(name, "exit codes", codes, flush=True)


def cmd_run(args) -> None:
    os.makedirs(args.out, exist_ok=True)
    unknown = sorted(set(args.scenarios) - set(SCENARIOS))
    if unknown:
        raise SystemExit(f"unknown scenarios: {', '.join(unknown)}")
    for name in args.scenarios or sorted(SCENARIOS):
        run_scenario(name, args.out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", default=HERE)
    r.add_argument("scenarios", nargs="*", help=f"the scenarios to run (default: all of {', '.join(SCENARIOS)})")
    m = sub.add_parser("mockhost")
    m.add_argument("--brokers", type=int, default=1)
    mm = sub.add_parser("member")
    for opt in ("--lib", "--protocol", "--strategy", "--bootstrap", "--group", "--client-id", "--topics", "--instance"):
        mm.add_argument(opt)
    args = p.parse_args()
    {"run": cmd_run, "mockhost": cmd_mockhost, "member": cmd_member}[args.cmd](args)


if __name__ == "__main__":
    main()
