"""aiokafka as a group consumer, behind rebalance-codec's behaviour gate (the driver contract:
vectors/drivers/README.md).

    rebalance-codec conformance --behaviour --client 'python3 vectors/drivers/aiokafka/driver.py'

aiokafka speaks the classic protocol with eager assignors (range, roundrobin) and static membership; it has no
cooperative rebalancing, so the driver does not declare it.
"""

import asyncio
import json
import os
import signal
import sys

from aiokafka import AIOKafkaConsumer
from aiokafka.abc import ConsumerRebalanceListener
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

ASSIGNORS = {"range": RangePartitionAssignor, "roundrobin": RoundRobinPartitionAssignor}


def say(**line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def partitions(tps):
    return sorted([tp.topic, tp.partition] for tp in tps)


class Listener(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        say(event="revoked", partitions=partitions(revoked))

    def on_partitions_assigned(self, assigned):
        say(event="assigned", partitions=partitions(assigned))


async def main():
    say(supports=["classic", "eager", "static"])
    env = os.environ
    if env.get("REBALANCE_PROTOCOL", "classic") != "classic":
        say(event="error", message="aiokafka speaks the classic group protocol only")
        return 1
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=env["REBALANCE_BOOTSTRAP"],
        group_id=env["REBALANCE_GROUP"],
        client_id=env["REBALANCE_CLIENT_ID"],
        group_instance_id=env.get("REBALANCE_INSTANCE_ID") or None,
        partition_assignment_strategy=(ASSIGNORS.get(env.get("REBALANCE_ASSIGNOR"), RangePartitionAssignor),),
        session_timeout_ms=int(env["REBALANCE_SESSION_TIMEOUT_MS"]),
        heartbeat_interval_ms=int(env["REBALANCE_HEARTBEAT_INTERVAL_MS"]),
        max_poll_interval_ms=int(env["REBALANCE_REBALANCE_TIMEOUT_MS"]),
        rebalance_timeout_ms=int(env["REBALANCE_REBALANCE_TIMEOUT_MS"]),
        fetch_max_wait_ms=100,
        auto_offset_reset="earliest",
    )
    consumer.subscribe(env["REBALANCE_TOPICS"].split(","), listener=Listener())
    code = 0
    try:
        await consumer.start()
        while not stop.is_set():
            await consumer.getmany(timeout_ms=100)
    except Exception as e:  # the client gave up: say so and end
        say(event="error", message=f"{type(e).__name__}: {e}")
        code = 1
    finally:
        await consumer.stop()
    return code


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
