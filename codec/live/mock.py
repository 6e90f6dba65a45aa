"""librdkafka's mock cluster, from the confluent-kafka wheel, as a broker for ``watch`` without a Kafka install.

The mock serves real Produce, Fetch, Metadata and ListOffsets over TCP on loopback (and the classic and KIP-848
group protocols), inside the process that starts it: :class:`MockCluster` loads the wheel's librdkafka through
ctypes (``rd_kafka_mock_cluster_new``), creates ``__consumer_offsets`` with Kafka's default 50 partitions, and
produces records into it at the partition Kafka's coordinator would write a group's records to
(:func:`partition_for`). :meth:`MockCluster.down` and :meth:`MockCluster.up` take the broker away and bring it back
on the same port (librdkafka closes its connections and listener; what it held stays).

Run as ``python -m codec.live.mock`` it starts a cluster, prints its bootstrap address, fills it with example
groups (``--example``) and lives until stdin closes or SIGINT/SIGTERM, to try ``watch`` on.
"""

from __future__ import annotations

import ctypes
import glob
import os
from typing import Iterable

__all__ = ["MockCluster", "partition_for", "java_hash", "OFFSETS_PARTITIONS"]

OFFSETS_PARTITIONS = 50  # offsets.topic.num.partitions' default


def java_hash(s: str) -> int:
    """Java's ``String.hashCode()``: over the UTF-16 code units, as a signed 32-bit int."""
    h = 0
    data = s.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def partition_for(group: str, partitions: int = OFFSETS_PARTITIONS) -> int:
    """The ``__consumer_offsets`` partition of a group: ``Utils.abs(groupId.hashCode()) % partitions``
    (``GroupCoordinatorService.partitionFor``; ``Utils.abs`` maps ``Integer.MIN_VALUE`` to 0)."""
    h = java_hash(group)
    return (0 if h == -(1 << 31) else abs(h)) % partitions


def _library() -> ctypes.CDLL:
    import confluent_kafka

    base = os.path.dirname(os.path.dirname(confluent_kafka.__file__))
    found = sorted(glob.glob(os.path.join(base, "confluent_kafka.libs", "librdkafka*.so*")))
    if not found:
        raise RuntimeError("the confluent-kafka wheel's librdkafka was not found (a wheel from PyPI carries it)")
    lib = ctypes.CDLL(found[0])
    vp, cp, i32 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32
    lib.rd_kafka_conf_new.restype = vp
    lib.rd_kafka_conf_set.argtypes = [vp, cp, cp, cp, ctypes.c_size_t]
    lib.rd_kafka_new.restype = vp
    lib.rd_kafka_new.argtypes = [ctypes.c_int, vp, cp, ctypes.c_size_t]
    lib.rd_kafka_destroy.argtypes = [vp]
    lib.rd_kafka_mock_cluster_new.restype = vp
    lib.rd_kafka_mock_cluster_new.argtypes = [vp, ctypes.c_int]
    lib.rd_kafka_mock_cluster_destroy.argtypes = [vp]
    lib.rd_kafka_mock_cluster_bootstraps.restype = cp
    lib.rd_kafka_mock_cluster_bootstraps.argtypes = [vp]
    lib.rd_kafka_mock_topic_create.restype = ctypes.c_int
    lib.rd_kafka_mock_topic_create.argtypes = [vp, cp, ctypes.c_int, ctypes.c_int]
    lib.rd_kafka_mock_broker_set_down.restype = ctypes.c_int
    lib.rd_kafka_mock_broker_set_down.argtypes = [vp, i32]
    lib.rd_kafka_mock_broker_set_up.restype = ctypes.c_int
    lib.rd_kafka_mock_broker_set_up.argtypes = [vp, i32]
    lib.rd_kafka_mock_group_initial_rebalance_delay_ms.argtypes = [vp, i32]
    lib.rd_kafka_mock_set_apiversion.restype = ctypes.c_int
    lib.rd_kafka_mock_set_apiversion.argtypes = [vp, ctypes.c_int16, ctypes.c_int16, ctypes.c_int16]
    lib.rd_kafka_mock_broker_set_host_port.restype = None
    lib.rd_kafka_mock_broker_set_host_port.argtypes = [vp, i32, cp, ctypes.c_int]
    return lib


class MockCluster:
    """A mock cluster of ``brokers`` brokers with ``__consumer_offsets`` (``partitions`` partitions)."""

    def __init__(self, brokers: int = 1, partitions: int = OFFSETS_PARTITIONS) -> None:
        self._lib = lib = _library()
        err = ctypes.create_string_buffer(512)
        conf = lib.rd_kafka_conf_new()
        lib.rd_kafka_conf_set(conf, b"client.id", b"rebalance-codec-mock", err, 512)
        lib.rd_kafka_conf_set(conf, b"log_level", b"0", err, 512)
        self._rk = lib.rd_kafka_new(0, conf, err, 512)  # a producer handle owns the cluster
        if not self._rk:
            raise RuntimeError(f"rd_kafka_new: {err.value.decode()}")
        self._mc = lib.rd_kafka_mock_cluster_new(self._rk, brokers)
        if not self._mc:
            raise RuntimeError("rd_kafka_mock_cluster_new failed")
        self.bootstrap: str = lib.rd_kafka_mock_cluster_bootstraps(self._mc).decode()
        self.partitions = partitions
        self.create_topic("__consumer_offsets", partitions)
        self._producer = None

    def create_topic(self, name: str, partitions: int) -> None:
        rc = self._lib.rd_kafka_mock_topic_create(self._mc, name.encode(), partitions, 1)
        if rc:
            raise RuntimeError(f"rd_kafka_mock_topic_create({name}): error {rc}")

    def initial_rebalance_delay(self, ms: int) -> None:
        self._lib.rd_kafka_mock_group_initial_rebalance_delay_ms(self._mc, ms)

    def api_versions(self, api_key: int, lowest: int, highest: int) -> None:
        """The versions of an API the mock advertises (its JoinGroup, SyncGroup and LeaveGroup handlers read only
        the non-flexible layouts up to v5, v3 and v2: clients that can send more must be told)."""
        self._lib.rd_kafka_mock_set_apiversion(self._mc, api_key, lowest, highest)

    def advertise(self, host: str, port: int, broker: int = 1) -> None:
        """Metadata and FindCoordinator answers name ``host:port`` for the broker (a relay in front of it)."""
        self._lib.rd_kafka_mock_broker_set_host_port(self._mc, broker, host.encode(), port)

    def down(self, broker: int = 1) -> None:
        """The broker goes away: its connections close and it accepts none (its port stays reserved)."""
        self._lib.rd_kafka_mock_broker_set_down(self._mc, broker)

    def up(self, broker: int = 1) -> None:
        """The broker comes back on the same port, with what it held."""
        self._lib.rd_kafka_mock_broker_set_up(self._mc, broker)

    def producer(self):
        if self._producer is None:
            from confluent_kafka import Producer

            self._producer = Producer(
                {
                    "bootstrap.servers": self.bootstrap,
                    "client.id": "rebalance-codec-mock-producer",
                    "linger.ms": 5,
                    "log_level": 0,
                }
            )
        return self._producer

    def produce(
        self,
        records: Iterable[tuple[bytes, bytes | None]],
        *,
        group: str | None = None,
        partition: int | None = None,
        topic: str = "__consumer_offsets",
    ) -> int:
        """Produce ``(key, value)`` records (a None value is a tombstone) to ``partition``, else the partition of
        ``group``, else each to its group's partition (read from its key); waits until they are written.
        Returns how many."""
        p = self.producer()
        n = 0
        for key, value in records:
            part = partition
            if part is None:
                part = partition_for(group, self.partitions) if group is not None else self.partition_of(key, value)
            p.produce(topic, key=key, value=value, partition=part)
            n += 1
            if n % 10_000 == 0:
                p.poll(0)
        left = p.flush(30)
        if left:
            raise RuntimeError(f"{left} records could not be produced to the mock cluster")
        return n

    def partition_of(self, key: bytes, value: bytes | None) -> int:
        """The partition :meth:`produce` writes a record to: its group's (read from its key)."""
        from ..capture.offsets import decode_record

        k = getattr(decode_record(key, value, "produce"), "key", None)
        name = k.get("groupId") if isinstance(k, dict) else getattr(k, "group", "")
        return partition_for(str(name), self.partitions)

    def low_watermarks(self, topic: str = "__consumer_offsets") -> dict[int, int]:
        """Each partition's log start offset. The mock keeps at most 5 MiB of a partition (``max_size`` in
        librdkafka's ``rdkafka_mock.c``, which no call changes) and drops its oldest batches past it, as a broker's
        retention would: a partition's first records produced may be gone."""
        from confluent_kafka import Consumer, TopicPartition

        c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "rebalance-codec-mock", "log_level": 0})
        try:
            return {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[0] for p in range(self.partitions)}
        finally:
            c.close()

    def close(self) -> None:
        if self._producer is not None:
            self._producer.flush(5)
            self._producer = None
        if self._mc:
            self._lib.rd_kafka_mock_cluster_destroy(self._mc)
            self._mc = None
        if self._rk:
            self._lib.rd_kafka_destroy(self._rk)
            self._rk = None

    def __enter__(self) -> MockCluster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def main(argv: list[str] | None = None) -> int:
    import argparse
    import signal
    import sys
    import threading

    p = argparse.ArgumentParser(prog="python -m codec.live.mock", description=__doc__.split("\n\n")[0])
    p.add_argument("--partitions", type=int, default=OFFSETS_PARTITIONS, help="__consumer_offsets partitions")
    p.add_argument("--example", action="store_true", help="fill it with example groups' records (codec.live.examples)")
    args = p.parse_args(argv)
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    with MockCluster(partitions=args.partitions) as mc:
        n = held = 0
        if args.example:
            from .examples import example_records

            n = mc.produce(example_records())
            held = n - sum(mc.low_watermarks().values())
        print(f"{mc.bootstrap}", flush=True)
        print(
            f"mock cluster on {mc.bootstrap}: __consumer_offsets ({args.partitions} partitions), {held:,} records"
            + (f" ({n:,} produced: the mock keeps 5 MiB of a partition, the oldest went)" if held < n else "")
            + "; stdin closed or SIGINT/SIGTERM stops it",
            file=sys.stderr,
            flush=True,
        )

        def until_eof() -> None:
            sys.stdin.read()
            done.set()

        threading.Thread(target=until_eof, daemon=True).start()
        done.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
