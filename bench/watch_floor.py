"""The floor of ``bench/watch_bench.py``: a plain confluent-kafka consume loop over ``__consumer_offsets`` -- every
partition assigned from the beginning, each record's key and value touched, until each partition's end as it was at
the start -- what reading the records costs the client itself, nothing decoded.

    python bench/watch_floor.py HOST:PORT
"""

from __future__ import annotations

import sys

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

TOPIC = "__consumer_offsets"


def main(bootstrap: str) -> int:
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "watch-floor",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "log_level": 0,
        }
    )
    parts = sorted(c.list_topics(TOPIC, timeout=10).topics[TOPIC].partitions)
    pending = set()
    for p in parts:
        lo, hi = c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=10)
        if hi > lo:
            pending.add(p)
    c.assign([TopicPartition(TOPIC, p, OFFSET_BEGINNING) for p in parts])
    n = size = 0
    while pending:
        for m in c.consume(1000, 0.25):
            if m.error() is not None:
                if m.error().code() == KafkaError._PARTITION_EOF:
                    pending.discard(m.partition())
                continue
            key, value = m.key(), m.value()
            size += len(key or b"") + len(value or b"")
            n += 1
    c.close()
    print(n, size, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
