"""One real group member for the ``capture --follow`` tests, in its own process: a consumer of ``--lib`` (``ck``:
confluent-kafka's classic protocol, ``ck848``: confluent-kafka with ``group.protocol=consumer``, ``kp``:
kafka-python, ``aio``: aiokafka) joins ``--group``, polls for ``--hold`` seconds, then closes (leaving the group).
Prints one JSON line when it starts and one when it has left, with the time.

kafka-python's and aiokafka's assignors sleep 0.5 s in ``assign`` (as ``../shared/captures/capture.py``'s do):
librdkafka's mock answers SyncGroup as soon as the leader's arrives and refuses a follower's that comes after it,
so the leader must be the last to sync. The name, metadata and bytes are the libraries' own."""

from __future__ import annotations

import argparse
import json
import time


def _say(what: str, args) -> None:
    print(json.dumps({"what": what, "client_id": args.client_id, "t": time.time()}), flush=True)


def delayed(base):
    def assign(self, *a, **kw):
        time.sleep(0.5)
        return super(sub, self).assign(*a, **kw)

    def assign_cls(cls, *a, **kw):
        time.sleep(0.5)
        return super(sub, cls).assign(*a, **kw)

    import inspect

    ns = {"assign": classmethod(assign_cls)} if inspect.ismethod(base.assign) else {"assign": assign}
    sub = type("Delayed" + base.__name__, (base,), ns)
    return sub


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--lib", required=True, choices=("ck", "ck848", "kp", "aio"))
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--group", required=True)
    p.add_argument("--client-id", required=True)
    p.add_argument("--hold", type=float, required=True)
    p.add_argument("--topic", default="orders")
    args = p.parse_args()
    deadline = time.time() + args.hold
    common = dict(session_timeout_ms=3000, heartbeat_interval_ms=500, max_poll_interval_ms=20000)
    if args.lib in ("ck", "ck848"):
        from confluent_kafka import Consumer

        conf = {"bootstrap.servers": args.bootstrap, "group.id": args.group, "client.id": args.client_id}
        conf["log_level"] = 0
        if args.lib == "ck848":
            conf["group.protocol"] = "consumer"
        else:
            conf.update({"session.timeout.ms": 3000, "heartbeat.interval.ms": 500})
        c = Consumer(conf)
        c.subscribe([args.topic])
        _say("started", args)
        while time.time() < deadline:
            c.poll(0.1)
        c.close()
    elif args.lib == "kp":
        from kafka import KafkaConsumer
        from kafka.coordinator.assignors.range import RangePartitionAssignor

        c = KafkaConsumer(
            args.topic,
            bootstrap_servers=args.bootstrap,
            group_id=args.group,
            client_id=args.client_id,
            partition_assignment_strategy=[delayed(RangePartitionAssignor)],
            **common,
        )
        _say("started", args)
        while time.time() < deadline:
            c.poll(timeout_ms=100)
        c.close()
    else:
        import asyncio

        from aiokafka import AIOKafkaConsumer
        from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

        async def run() -> None:
            c = AIOKafkaConsumer(
                args.topic,
                bootstrap_servers=args.bootstrap,
                group_id=args.group,
                client_id=args.client_id,
                partition_assignment_strategy=(delayed(RoundRobinPartitionAssignor),),
                **common,
            )
            await c.start()
            _say("started", args)
            try:
                while time.time() < deadline:
                    await c.getmany(timeout_ms=100)
            finally:
                await c.stop()

        asyncio.run(run())
    _say("left", args)


if __name__ == "__main__":
    main()
