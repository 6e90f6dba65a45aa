"""kafka-python as a group consumer, behind rebalance-codec's behaviour gate (the driver contract:
vectors/drivers/README.md).

    rebalance-codec conformance --behaviour --client 'python3 vectors/drivers/kafka-python/driver.py'

It subscribes, polls, prints one JSON line per rebalance callback, and closes the consumer (which leaves the
group) on SIGTERM. Any exception the client raises from poll is printed as an "error" line and ends the driver.
"""

import json
import os
import signal
import sys

from kafka import KafkaConsumer
from kafka.consumer.subscription_state import ConsumerRebalanceListener
from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

ASSIGNORS = {
    "range": RangePartitionAssignor,
    "roundrobin": RoundRobinPartitionAssignor,
    "cooperative-sticky": CooperativeStickyAssignor,
}


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

    def on_partitions_lost(self, lost):
        say(event="lost", partitions=partitions(lost))


def main():
    say(supports=["classic", "eager", "cooperative", "static"])
    env = os.environ
    if env.get("REBALANCE_PROTOCOL", "classic") != "classic":
        say(event="error", message="kafka-python speaks the classic group protocol only")
        return 1
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    consumer = KafkaConsumer(
        bootstrap_servers=env["REBALANCE_BOOTSTRAP"],
        group_id=env["REBALANCE_GROUP"],
        client_id=env["REBALANCE_CLIENT_ID"],
        group_instance_id=env.get("REBALANCE_INSTANCE_ID") or None,
        partition_assignment_strategy=[ASSIGNORS[env.get("REBALANCE_ASSIGNOR") or "range"]],
        session_timeout_ms=int(env["REBALANCE_SESSION_TIMEOUT_MS"]),
        heartbeat_interval_ms=int(env["REBALANCE_HEARTBEAT_INTERVAL_MS"]),
        max_poll_interval_ms=int(env["REBALANCE_REBALANCE_TIMEOUT_MS"]),
        fetch_max_wait_ms=100,
        auto_offset_reset="earliest",
    )
    consumer.subscribe(env["REBALANCE_TOPICS"].split(","), listener=Listener())
    try:
        while not stop:
            consumer.poll(timeout_ms=100)
    except Exception as e:  # the client gave up: say so and end
        say(event="error", message=f"{type(e).__name__}: {e}")
        consumer.close(autocommit=False)
        return 1
    consumer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
