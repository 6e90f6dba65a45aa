"""confluent-kafka (librdkafka) as a group consumer, behind rebalance-codec's behaviour gate (the driver
contract: vectors/drivers/README.md). It runs the classic protocol or, with REBALANCE_PROTOCOL=consumer,
KIP-848's (group.protocol=consumer, where the coordinator assigns and sets the heartbeat interval).

    rebalance-codec conformance --behaviour --client 'python3 vectors/drivers/confluent-kafka/driver.py'
"""

import json
import os
import signal
import sys

from confluent_kafka import Consumer


def say(**line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def partitions(tps):
    return sorted([tp.topic, tp.partition] for tp in tps)


def main():
    say(supports=["classic", "consumer", "eager", "cooperative", "static"])
    env = os.environ
    protocol = env.get("REBALANCE_PROTOCOL", "classic")
    fatal = []

    def on_error(err):
        if err.fatal():
            fatal.append(err)

    conf = {
        "bootstrap.servers": env["REBALANCE_BOOTSTRAP"],
        "group.id": env["REBALANCE_GROUP"],
        "client.id": env["REBALANCE_CLIENT_ID"],
        "group.protocol": protocol,
        "max.poll.interval.ms": int(env["REBALANCE_REBALANCE_TIMEOUT_MS"]),
        "fetch.wait.max.ms": 100,
        "auto.offset.reset": "earliest",
        "error_cb": on_error,
    }
    if protocol == "classic":
        conf.update(
            {
                "partition.assignment.strategy": env.get("REBALANCE_ASSIGNOR") or "range",
                "session.timeout.ms": int(env["REBALANCE_SESSION_TIMEOUT_MS"]),
                "heartbeat.interval.ms": int(env["REBALANCE_HEARTBEAT_INTERVAL_MS"]),
            }
        )
    elif env.get("REBALANCE_ASSIGNOR"):
        conf["group.remote.assignor"] = env["REBALANCE_ASSIGNOR"]
    if env.get("REBALANCE_INSTANCE_ID"):
        conf["group.instance.id"] = env["REBALANCE_INSTANCE_ID"]
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    consumer = Consumer(conf)
    consumer.subscribe(
        env["REBALANCE_TOPICS"].split(","),
        on_assign=lambda c, tps: say(event="assigned", partitions=partitions(tps)),
        on_revoke=lambda c, tps: say(event="revoked", partitions=partitions(tps)),
        on_lost=lambda c, tps: say(event="lost", partitions=partitions(tps)),
    )
    while not stop and not fatal:
        msg = consumer.poll(0.1)
        if msg is not None and msg.error() is not None and msg.error().fatal():
            fatal.append(msg.error())
    if fatal:  # the client gave up: say so and end
        say(event="error", message=str(fatal[0]))
        consumer.close()
        return 1
    consumer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
