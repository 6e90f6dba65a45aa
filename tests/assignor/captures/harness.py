#!/usr/bin/env python3
"""Live captures of aiokafka and kafkajs consumer groups, for ``assign --consumer ... --check``.

The broker is librdkafka's mock cluster (the librdkafka inside the confluent-kafka wheel, driven through ctypes so
that topics get the partition counts we choose: ``orders`` 6, ``events`` 3); the members are real clients —
aiokafka (its ``range``, ``roundrobin`` and ``sticky`` assignors) and kafkajs (its ``RoundRobinAssigner``, run by
``kafkajs_member.js``); ``tcpdump`` records the loopback traffic. Four members join 6 s apart and leave in another
order, so each group goes through seven generations, every one after the first with members that owned partitions
before (``SCHEDULE``).

Two accommodations of the mock, neither of which changes a byte a client writes:

* librdkafka's mock coordinator answers the group's SyncGroup as soon as the leader's arrives and refuses a
  follower's that comes later (``INVALID_REQUEST``); so the leader's assignor waits ``LEADER_DELAY_S`` before it
  computes (a subclass of aiokafka's assignor that only sleeps; for kafkajs, the same in JavaScript);
* the mock's JoinGroup v6+, SyncGroup v4+ and LeaveGroup v3+ handlers misread flexible requests, so it advertises
  JoinGroup 0-5, SyncGroup 0-3 and LeaveGroup 0-2 (``MOCK_APIVERSIONS``), as the shared captures' harness does.

``python harness.py run --out DIR [--only SCENARIO,...]`` writes, per scenario, ``DIR/<scenario>.pcap.gz`` (only the
packets of the group APIs — FindCoordinator, JoinGroup, Heartbeat, LeaveGroup, SyncGroup, ApiVersions — and the
SYN/FIN ones, as tshark's Kafka dissector selects them) and ``DIR/run.json``: the run's own record (versions, the
mock's port, each member's client id, join and leave times, exit status and the assignments its client reported,
the packet counts before and after the selection). Needs root for tcpdump, tshark, node and npm's kafkajs
(``NODE_PATH``), and the test extra's aiokafka and confluent-kafka.
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
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOPICS = {"orders": 6, "events": 3}
SCENARIOS = {
    "aio-range": ("aio", "range"),
    "aio-roundrobin": ("aio", "roundrobin"),
    "aio-sticky": ("aio", "sticky"),
    "kafkajs-roundrobin": ("kafkajs", "roundrobin"),
}
# (join at, leave at) in seconds, member by member: joins at 0, 6, 12, 18; leaves at 32 (c4), 38 (c2), 50 (c1)
SCHEDULE = [(0.0, 50.0), (6.0, 38.0), (12.0, 58.0), (18.0, 32.0)]
LEADER_DELAY_S = 0.5
MOCK_APIVERSIONS = [(11, 0, 5), (14, 0, 3), (13, 0, 2)]
GROUP_API_KEYS = (10, 11, 12, 13, 14, 18)


# ------------------------------------------------------------------------------------------------- the mock
def _librdkafka() -> str:
    import confluent_kafka

    base = os.path.dirname(os.path.dirname(confluent_kafka.__file__))
    libs = glob.glob(os.path.join(base, "confluent_kafka.libs", "librdkafka*.so*"))
    if not libs:
        raise SystemExit("the confluent-kafka wheel's librdkafka was not found")
    return libs[0]


def cmd_mock(args) -> None:
    """A mock cluster with the topics; prints {"bootstrap", "librdkafka"} and lives until stdin closes."""
    lib = ctypes.CDLL(_librdkafka())
    vp, cp = ctypes.c_void_p, ctypes.c_char_p
    lib.rd_kafka_conf_new.restype = vp
    lib.rd_kafka_conf_set.argtypes = [vp, cp, cp, cp, ctypes.c_size_t]
    lib.rd_kafka_new.restype = vp
    lib.rd_kafka_new.argtypes = [ctypes.c_int, vp, cp, ctypes.c_size_t]
    lib.rd_kafka_mock_cluster_new.restype = vp
    lib.rd_kafka_mock_cluster_new.argtypes = [vp, ctypes.c_int]
    lib.rd_kafka_mock_cluster_bootstraps.restype = cp
    lib.rd_kafka_mock_cluster_bootstraps.argtypes = [vp]
    lib.rd_kafka_mock_topic_create.restype = ctypes.c_int
    lib.rd_kafka_mock_topic_create.argtypes = [vp, cp, ctypes.c_int, ctypes.c_int]
    lib.rd_kafka_mock_group_initial_rebalance_delay_ms.argtypes = [vp, ctypes.c_int32]
    lib.rd_kafka_mock_set_apiversion.restype = ctypes.c_int
    lib.rd_kafka_mock_set_apiversion.argtypes = [vp, ctypes.c_int16, ctypes.c_int16, ctypes.c_int16]
    lib.rd_kafka_version_str.restype = cp
    err = ctypes.create_string_buffer(512)
    conf = lib.rd_kafka_conf_new()
    lib.rd_kafka_conf_set(conf, b"client.id", b"mock-host", err, 512)
    rk = lib.rd_kafka_new(0, conf, err, 512)
    if not rk:
        raise SystemExit("rd_kafka_new: " + err.value.decode())
    mc = lib.rd_kafka_mock_cluster_new(rk, 1)
    lib.rd_kafka_mock_group_initial_rebalance_delay_ms(mc, 1000)
    for key, low, high in MOCK_APIVERSIONS:
        lib.rd_kafka_mock_set_apiversion(mc, key, low, high)
    for topic, n in TOPICS.items():
        if lib.rd_kafka_mock_topic_create(mc, topic.encode(), n, 1):
            raise SystemExit(f"creating {topic} failed")
    bootstrap = lib.rd_kafka_mock_cluster_bootstraps(mc).decode()
    print(json.dumps({"bootstrap": bootstrap, "librdkafka": lib.rd_kafka_version_str().decode()}), flush=True)
    sys.stdin.read()


# ------------------------------------------------------------------------------------------------- members
def _log(client_id: str, parts, **extra) -> None:
    rec = {"clientId": client_id, "t": round(time.time(), 3), "assignment": sorted(f"{t}-{p}" for t, p in parts)}
    rec.update(extra)
    print(json.dumps(rec), file=sys.stderr, flush=True)


def _delayed(base):
    """aiokafka's own assignor, its ``assign`` first sleeping ``LEADER_DELAY_S`` (the name, metadata and encoding
    are the library's)."""

    def assign(cls, *a, **kw):
        time.sleep(LEADER_DELAY_S)
        return super(sub, cls).assign(*a, **kw)

    sub = type("Delayed" + base.__name__, (base,), {"assign": classmethod(assign)})
    return sub


def cmd_aio(args) -> None:
    """One aiokafka group member until ``--hold`` seconds have passed; logs every assignment it reports."""
    import asyncio

    from aiokafka import AIOKafkaConsumer
    from aiokafka.coordinator.assignors.range import RangePartitionAssignor
    from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
    from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor

    assignors = {"range": RangePartitionAssignor, "roundrobin": RoundRobinPartitionAssignor,
                 "sticky": StickyPartitionAssignor}  # fmt: skip

    async def main() -> None:
        last = None
        deadline = time.time() + args.hold
        consumer = AIOKafkaConsumer(
            *TOPICS, bootstrap_servers=args.bootstrap, group_id=args.group, client_id=args.client_id,
            session_timeout_ms=4000, heartbeat_interval_ms=1000, max_poll_interval_ms=10000,
            auto_offset_reset="earliest", partition_assignment_strategy=(_delayed(assignors[args.strategy]),),
        )  # fmt: skip
        await consumer.start()
        try:
            while time.time() < deadline:
                await consumer.getmany(timeout_ms=200)
                now = {(tp.topic, tp.partition) for tp in consumer.assignment()}
                if now != last:
                    _log(args.client_id, now)
                    last = now
        finally:
            await consumer.stop()

    asyncio.run(main())


def _member_cmd(lib: str, strategy: str, bootstrap: str, group: str, client_id: str, hold: float) -> list[str]:
    if lib == "aio":
        return [sys.executable, os.path.abspath(__file__), "aio", "--strategy", strategy, "--bootstrap", bootstrap,
                "--group", group, "--client-id", client_id, "--hold", str(hold)]  # fmt: skip
    return ["node", os.path.join(HERE, "kafkajs_member.js"), bootstrap, group, client_id, str(hold), *TOPICS]


# ------------------------------------------------------------------------------------------------- a run
def _versions() -> dict:
    import aiokafka
    import confluent_kafka

    ck = confluent_kafka.version()
    out = {"aiokafka": aiokafka.__version__, "confluent-kafka": ck if isinstance(ck, str) else ck[0],
           "librdkafka": confluent_kafka.libversion()[0]}  # fmt: skip
    node = shutil.which("node")
    if node:
        out["node"] = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
        probe = "console.log(require('kafkajs/package.json').version)"
        got = subprocess.run([node, "-e", probe], capture_output=True, text=True)
        if got.returncode == 0:
            out["kafkajs"] = got.stdout.strip()
    return out


def _packets(path: str) -> int:
    got = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "frame.number"], capture_output=True, text=True)
    return len(got.stdout.split())


def run_scenario(name: str, out: str) -> dict:
    lib, strategy = SCENARIOS[name]
    host = subprocess.Popen([sys.executable, os.path.abspath(__file__), "mock"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    info = json.loads(host.stdout.readline())
    port = int(info["bootstrap"].rsplit(":", 1)[1])
    raw = os.path.join(out, f"{name}.raw.pcap")
    dump = subprocess.Popen(["tcpdump", "-i", "lo", "-U", "-s", "0", "-w", raw, f"tcp port {port}"],
                            stderr=subprocess.DEVNULL)  # fmt: skip
    time.sleep(1.5)
    group = f"g-{name}"
    t0 = time.time()
    members, procs = [], []
    for i, (join_at, leave_at) in sorted(enumerate(SCHEDULE), key=lambda x: x[1][0]):
        while time.time() - t0 < join_at:
            time.sleep(0.05)
        client_id = f"{name}-c{i + 1}"
        log = open(os.path.join(out, f"{client_id}.log"), "w")
        cmd = _member_cmd(lib, strategy, info["bootstrap"], group, client_id, leave_at - join_at)
        procs.append((client_id, subprocess.Popen(cmd, stdout=log, stderr=log, cwd=HERE), log))
        members.append({"clientId": client_id, "library": lib, "strategy": strategy, "joinAtS": join_at,
                        "leaveAtS": leave_at})  # fmt: skip
    codes = {}
    for client_id, proc, log in procs:
        codes[client_id] = proc.wait(timeout=max(e for _, e in SCHEDULE) + 90)
        log.close()
    time.sleep(1.5)
    dump.send_signal(signal.SIGTERM)
    dump.wait(timeout=10)
    host.stdin.close()
    host.wait(timeout=30)
    for m in members:
        m["exitCode"] = codes[m["clientId"]]
        path = os.path.join(out, f"{m['clientId']}.log")
        lines = open(path).read().splitlines()
        m["reported"] = [json.loads(x) for x in lines if x.startswith("{") and '"assignment"' in x]
        m["otherOutputLines"] = sum(1 for x in lines if not (x.startswith("{") and '"assignment"' in x))
        os.remove(path)
    kept = os.path.join(out, f"{name}.pcap")
    keys = ",".join(map(str, GROUP_API_KEYS))
    flt = f"kafka.api_key in {{{keys}}} or tcp.flags.syn==1 or tcp.flags.fin==1"
    subprocess.run(["tshark", "-r", raw, "-d", f"tcp.port=={port},kafka", "-Y", flt, "-w", kept, "-F", "pcap"],
                   check=True, stderr=subprocess.DEVNULL)  # fmt: skip
    counts = {"rawPackets": _packets(raw), "keptPackets": _packets(kept)}
    with open(kept, "rb") as fi, gzip.open(kept + ".gz", "wb", 9) as fo:
        shutil.copyfileobj(fi, fo)
    os.remove(kept)
    os.remove(raw)
    return {"group": group, "brokerPort": port, "librdkafkaMock": info["librdkafka"], "members": members, **counts}


def cmd_run(args) -> None:
    os.makedirs(args.out, exist_ok=True)
    record_path = os.path.join(args.out, "run.json")
    record = json.load(open(record_path)) if os.path.exists(record_path) else {}
    record.update({
        "harness": "tests/assignor/captures/harness.py",
        "topics": TOPICS,
        "schedule": SCHEDULE,
        "leaderDelayS": LEADER_DELAY_S,
        "mockApiVersions": MOCK_APIVERSIONS,
        "versions": _versions(),
    })  # fmt: skip
    record.setdefault("scenarios", {})
    wanted = args.only.split(",") if args.only else list(SCENARIOS)
    for name in wanted:
        print("capturing", name, flush=True)
        record["scenarios"][name] = {"recordedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                     **run_scenario(name, args.out)}  # fmt: skip
        with open(record_path, "w") as f:
            json.dump(record, f, indent=1)
            f.write("\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("mock")
    a = sub.add_parser("aio")
    for flag in ("--strategy", "--bootstrap", "--group", "--client-id"):
        a.add_argument(flag, required=True)
    a.add_argument("--hold", type=float, required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--only", help="comma-separated scenario names (default: all)")
    args = ap.parse_args()
    {"mock": cmd_mock, "aio": cmd_aio, "run": cmd_run}[args.cmd](args)


if __name__ == "__main__":
    main()
