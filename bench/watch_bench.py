"""``rebalance-codec watch``'s records decoded per CPU-second, against a plain confluent-kafka consume loop reading
the same records (the floor: the client's own cost, nothing decoded); and ``watch``'s memory per tracked group.

The cluster is librdkafka's mock (``codec.live.mock``, from the confluent-kafka wheel), its ``__consumer_offsets``
(50 partitions) filled with realistic records written by the codec's encoders (``codec.live.examples``): a Kafka
Streams application of ``--streams-members`` members (each generation's record carries every member's
SubscriptionInfo and AssignmentInfo, with every host's partitions), consumer groups joining and leaving, a Kafka
Connect cluster, Kafka 4 consumer, streams and share groups, and the offset commits of them all (most of a real
topic's records). Both sides are whole processes that read every record from the beginning to the topic's end and
exit: ``watch --from beginning --exit-at-end --json`` (its output thrown away) and ``watch_floor.py`` (an assigned
consumer that touches each record's key and value). The mock keeps 5 MiB of a partition and drops the oldest records
past it (the Streams application's partition holds more): the figures count the records it still holds, which an
untimed run of each side first shows both read, whole. Each run's sample is its CPU seconds (the process and its
children, ``bench/harness.py``'s ``run_process``), start-up included on both sides; the two interleave in a
shuffled order.

Memory per tracked group: the tracker (``codec.live.state.Tracker``, with its cause engine) is fed the records of
``--memory-groups`` consumer groups (3 members, 12 partitions, 4 generations each) and, apart, of the Streams
application; what it holds afterwards (``tracemalloc``, after a collection), divided by the groups it tracks.
"""

from __future__ import annotations

import gc
import random
import sys
import tracemalloc
from pathlib import Path

import harness

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent


def _records(streams_members: int, consumer_groups: int, commits: int):
    from codec.live.examples import example_cluster

    return example_cluster(streams_members, consumer_groups, commits)


def _held(mc, produced) -> list:
    """The records the mock cluster still holds after ``produced``, in the order produced: past 5 MiB in a
    partition it drops the oldest (:meth:`codec.live.mock.MockCluster.low_watermarks`), so both readers read fewer
    records than were produced, and the figures count those read."""
    lows = mc.low_watermarks()
    seen: dict[int, int] = {}
    out = []
    for k, v in produced:
        p = mc.partition_of(k, v)
        offset = seen.get(p, 0)
        seen[p] = offset + 1
        if offset >= lows.get(p, 0):
            out.append((k, v))
    return out


def _read_whole(watch: list[str], floor: list[str], held: int) -> int:
    """One untimed run of each side: both read exactly the ``held`` records; the rebalances watch told."""
    import json
    import subprocess

    w = subprocess.run(watch, cwd=ROOT, capture_output=True, text=True, check=True)
    summary = json.loads(w.stdout.splitlines()[-1])
    f = subprocess.run(floor, cwd=ROOT, capture_output=True, text=True, check=True)
    read = {"watch": sum(summary["records_read"].values()), "consume loop": int(f.stderr.split()[0])}
    if set(read.values()) != {held}:
        raise RuntimeError(f"the readers did not read the {held:,} records the mock cluster holds: {read}")
    return int(summary["told"])


def _held_per_group(records) -> tuple[float, int]:
    """Bytes the tracker holds after ``records``, per group tracked; and how many groups."""
    from codec.live.state import Tracker

    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    t = Tracker()
    for i, (k, v) in enumerate(records):
        t.feed(k, v, f"offset {i}", 1_767_225_600.0 + i)
    t.flush()
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return held / max(len(t.groups), 1), len(t.groups)


def _breakdown(records) -> dict:
    """The tracker's CPU seconds in-process by kind of record (where ``watch``'s time goes, past the client):
    the Streams application's generation records, the other groups' generations, offset commits, Kafka 4's
    records; with how many of each."""
    import time

    from codec.live.state import Tracker

    t = Tracker()
    cpu: dict[str, float] = {}
    count: dict[str, int] = {}
    for i, (k, v) in enumerate(records):
        kind = int.from_bytes(k[:2], "big")
        name = (
            "offset commits"
            if kind in (0, 1)
            else ("Streams application generations" if b"streams-app" in k else "other generations")
            if kind == 2
            else "Kafka 4 records"
        )
        c = time.process_time()
        t.feed(k, v, f"offset {i}", 1_767_225_600.0 + i)
        cpu[name] = cpu.get(name, 0.0) + time.process_time() - c
        count[name] = count.get(name, 0) + 1
    return {name: {"cpu_seconds": cpu[name], "records": count[name]} for name in cpu}


def _memory(groups: int, streams_members: int) -> dict:
    from codec.live.examples import ClassicGroup

    recs = []
    for g in range(groups):
        cg = ClassicGroup(f"consumer-group-{g}", {"events": 12})
        mids = []
        for c in range(3):
            rec, mid = cg.join(f"consumer-{g}-{c}")
            mids.append(mid)
            recs.append(rec)
        recs.append(cg.leave(mids[1]))
    consumer, n = _held_per_group(recs)
    streams_recs, _ = _records(streams_members, 0, 0)
    streams, _ = _held_per_group([r for r in streams_recs if b"streams-app" in r[0]])
    return {"consumer_group_bytes": consumer, "consumer_groups": n, "streams_app_bytes": streams}


def run(args) -> None:
    from codec.live.mock import MockCluster

    produced, _ = _records(args.streams_members, args.consumer_groups, args.commits)
    with MockCluster() as mc:
        mc.produce(produced)
        records = _held(mc, produced)
        watch = [sys.executable, "-m", "codec", "watch", "--bootstrap-server", mc.bootstrap]
        watch += ["--from", "beginning", "--exit-at-end", "--json"]
        floor = [sys.executable, str(HERE / "watch_floor.py"), mc.bootstrap]
        rebalances = _read_whole(watch, floor, len(records))
        gone = len(produced) - len(records)

        def side(argv):
            def go() -> dict:
                r = harness.run_process(argv, cwd=ROOT)
                return {"seconds": r["cpu_seconds"], "wall_seconds": r["seconds"], "max_rss_kb": r["max_rss_kb"]}

            return go

        c = harness.Comparison(
            "watch",
            f"watch, {len(records):,} records",
            "read",
            {"ours": side(watch), "consume loop": side(floor)},
            unit="CPU s per run",
            meta={
                "records": len(records),
                "rebalances": rebalances,
                "streams_members": args.streams_members,
                "megabytes": sum(len(k) + len(v or b"") for k, v in records) / 1e6,
                "produced": len(produced),
                "what": f"{len(records):,} __consumer_offsets records ("
                f"{sum(len(k) + len(v or b'') for k, v in records) / 1e6:,.1f} MB: a Streams application of "
                f"{args.streams_members} members, {args.consumer_groups} consumer groups, a Connect cluster, Kafka 4 "
                f"consumer, streams and share groups, {rebalances:,} rebalances, the rest offset commits) on "
                "librdkafka's mock cluster, read from the beginning to the end"
                + (
                    f" ({len(produced):,} produced: the mock keeps 5 MiB of a partition, and the oldest {gone:,} "
                    "records of the Streams application's partition went, its first generations among them, as a "
                    "broker's retention would take them)"
                    if gone
                    else ""
                ),
            },
        )
        rec = harness.measure(c, repeats=args.repeats, rng=random.Random(args.seed), process=True)
    rec["memory"] = _memory(args.memory_groups, args.streams_members)
    rec["breakdown"] = _breakdown(records)
    harness.save("watch", [rec], {"repeats": args.repeats})
    t = rec["times"]
    n = rec["meta"]["records"]
    print(
        f"watch {n / t['ours']['median']:,.0f} records per CPU-second, the consume loop "
        f"{n / t['consume loop']['median']:,.0f}; memory {rec['memory']['consumer_group_bytes'] / 1024:,.1f} KiB "
        f"per consumer group, {rec['memory']['streams_app_bytes'] / 1024:,.0f} KiB for the Streams application",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--streams-members", type=int, default=100)
    p.add_argument("--consumer-groups", type=int, default=200)
    p.add_argument("--commits", type=int, default=50, help="offset commits after each generation")
    p.add_argument("--memory-groups", type=int, default=2000)
    run(p.parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
