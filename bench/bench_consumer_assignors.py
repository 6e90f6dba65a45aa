"""Benchmark: the consumer groups' assignors (codec.assignor.consumer) at 1,000 members x 10,000 partitions
(issue #44), beside Kafka's Java assignors on the same inputs, with the assignment's quality.

Two scenarios per assignor, every member subscribed to the same ten topics of 1,000 partitions:

* ``first``: nobody owns anything (the group's first rebalance);
* ``join``: the group as the assignor left it after ``first`` (each member owning its partitions at generation 1),
  plus one member joining.

Per case: the median and the minimum of five ``assign_consumer`` calls (one warm-up), the balance (the largest
minus the smallest member's count) and the movement (partitions whose owner changes from what was owned;
cooperative-sticky's withheld partitions count as moved). Kafka's Java timings are not measured here: they were
measured by hand with Kafka's own classes (see ``bench/README.md``) and are kept in the results file's ``java``
section, which this script carries over. ``--inputs DIR`` writes the inputs as ``assign --consumer`` JSON lines.

Run: ``PYTHONPATH=. python bench/bench_consumer_assignors.py [--inputs DIR]``; writes
``bench/results/consumer_assignors.json`` and the section of ``bench/README.md`` between the
``consumer-assignors`` markers, generated from it (:func:`render`; ``--render`` rewrites only the section).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

from codec.assignor.consumer import ConsumerGroup, ConsumerMember, assign_consumer
from codec.assignor.consumer.json_io import kafka_uuid
from codec.assignor.consumer.server import topic_id

MEMBERS, TOPICS, PER_TOPIC = 1000, 10, 1000
ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range")
RESULTS = Path(__file__).parent / "results" / "consumer_assignors.json"
README = Path(__file__).parent / "README.md"
START, END = "<!-- consumer-assignors:start -->", "<!-- consumer-assignors:end -->"


def render(results: dict) -> str:
    """The README's table: per assignor and scenario, this project's and Kafka's median seconds, their ratio, the
    balance and the movement."""
    java = (results.get("java") or {}).get("cases", {})
    rows = [
        f"Run {results['run']} (Python {results['python']}), {results['members']:,} members x "
        f"{results['partitions']:,} partitions; Kafka's Java: {(results.get('java') or {}).get('how', 'not measured')}",
        "",
        "| assignor | scenario | this project (median s) | Kafka's Java (median s) | ratio | balance | moved | withheld |",
        "|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    for c in results["cases"]:
        j = java.get(f"{c['assignor']}/{c['scenario']}", {}).get("medianSeconds")
        ratio = f"{c['medianSeconds'] / j:.2f}x" if j else "-"
        rows.append(
            f"| {c['assignor']} | {c['scenario']} | {c['medianSeconds']:.3f} | {'-' if j is None else f'{j:.3f}'} "
            f"| {ratio} | {c['balance']} | {c['moved']:,} | {c['withheld']:,} |"
        )
    return "\n".join(rows)


def write_readme(results: dict) -> None:
    doc = README.read_text(encoding="utf-8")
    head, _, rest = doc.partition(START)
    _, _, tail = rest.partition(END)
    README.write_text(f"{head}{START}\n{render(results)}\n{END}{tail}", encoding="utf-8")


def first_group() -> ConsumerGroup:
    topics = {f"topic-{i}": PER_TOPIC for i in range(TOPICS)}
    members = tuple(ConsumerMember(f"consumer-{i}-{i * 7919 % 100003:05d}", tuple(topics)) for i in range(MEMBERS))
    return ConsumerGroup(topics, members)


def join_group(first: ConsumerGroup, owned: dict) -> ConsumerGroup:
    members = [ConsumerMember(m.member_id, m.topics, tuple(owned[m.member_id]), 1) for m in first.members]
    members.append(ConsumerMember("consumer-joining", tuple(first.topics)))
    return ConsumerGroup(first.topics, tuple(members))


def to_json(group: ConsumerGroup, assignor: str) -> dict:
    doc: dict = {"assignor": assignor, "topics": group.topics, "members": []}
    if assignor in ("uniform", "server-range"):  # the ids the coordinator's assignors read (Kafka's needs them given)
        doc["topicIds"] = {t: kafka_uuid(topic_id(group, t)) for t in group.topics}
    for m in group.members:
        d: dict = {"memberId": m.member_id, "topics": list(m.topics)}
        if m.owned:
            d["ownedPartitions"] = [{"topic": t, "partition": p} for t, p in m.owned]
            d["generation"] = m.generation
        doc["members"].append(d)
    return doc


def timed(group: ConsumerGroup, assignor: str, runs: int = 5):
    assign_consumer(group, assignor)
    times, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = assign_consumer(group, assignor)
        times.append(time.perf_counter() - t0)
    return result, statistics.median(times), min(times)


def quality(group: ConsumerGroup, result) -> dict:
    counts = [len(v) for v in result.members.values()]
    owner = {tp: m.member_id for m in group.members for tp in m.owned}
    given = {tp: m for m, tps in result.members.items() for tp in tps}
    moved = sum(1 for tp, m in owner.items() if given.get(tp) != m)
    return {"balance": max(counts) - min(counts), "moved": moved, "withheld": sum(map(len, result.revoking.values()))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=Path, help="also write the inputs as assign --consumer JSON lines here")
    ap.add_argument("--render", action="store_true", help="only rewrite the README section from the results file")
    args = ap.parse_args(argv)
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if args.render:
        write_readme(old)
        return 0
    cases = []
    base = first_group()
    for assignor in ASSIGNORS:
        first, med, low = timed(base, assignor)
        cases.append({"assignor": assignor, "scenario": "first", "medianSeconds": round(med, 4),
                      "minSeconds": round(low, 4), **quality(base, first)})  # fmt: skip
        joined = join_group(base, first.members)
        result, med, low = timed(joined, assignor)
        cases.append({"assignor": assignor, "scenario": "join", "medianSeconds": round(med, 4),
                      "minSeconds": round(low, 4), **quality(joined, result)})  # fmt: skip
        print(json.dumps(cases[-2]), json.dumps(cases[-1]), sep="\n", file=sys.stderr)
        if args.inputs:
            args.inputs.mkdir(parents=True, exist_ok=True)
            with open(args.inputs / f"{assignor}.jsonl", "w", encoding="utf-8") as f:
                f.write(json.dumps(to_json(base, assignor)) + "\n" + json.dumps(to_json(joined, assignor)) + "\n")
    out = {
        "run": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": platform.python_version(),
        "members": MEMBERS,
        "partitions": TOPICS * PER_TOPIC,
        "cases": cases,
        "java": old.get("java"),
    }
    RESULTS.write_text(json.dumps(out, indent=1) + "\n")
    write_readme(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
