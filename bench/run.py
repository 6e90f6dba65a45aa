"""One command for every side-by-side figure: measure, write ``bench/results/results.json``, regenerate the tables
of ``bench/README.md`` and ``README.md`` from it.

    python bench/run.py                     # every section
    python bench/run.py codec kafka4        # some sections; the others keep their last results
    python bench/run.py --tables            # only regenerate the tables from the results file
    python bench/run.py codec --only SubscriptionInfo --repeats 11

Sections: ``codec`` (group messages, ConsumerProtocol, SubscriptionInfo/AssignmentInfo: ours, the
pure-Python codec, the plain-value floor, kio, kafka-python), ``kafka4`` (Kafka 4's RPCs against kio),
``startup`` (``rebalance-codec decode`` of one record against ``python -c pass``, in a venv with the wheel
installed), ``capture`` (``capture --json`` against tshark's Kafka dissector on the 200 MB capture) and
``pipeline`` (decoded records per CPU-second through Spark ``local[2]``, the native codec against the
pure-Python one and against the pipeline issue #29 was opened on), ``watch`` (``rebalance-codec watch``'s records per
CPU-second against a plain confluent-kafka consume loop on librdkafka's mock cluster, and its memory per tracked
group), ``alternatives`` (the engine against Cython over the generated Python: build time and
speed) and ``fastpath`` (the pure-Python codec with and without its generated fast path, beside the engine).
Every figure is paired and interleaved (``bench/harness.py``).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

SECTIONS = ("codec", "kafka4", "startup", "capture", "pipeline", "watch", "alternatives", "fastpath")


def _micro(section: str, comparisons, args) -> None:
    import harness
    from peers import peer_versions

    from codec.wire import native

    if not native.active():
        sys.exit(
            "the native codec is not active (REBALANCE_CODEC_NATIVE=0, or the extension is not built: pip install -e .)"
        )
    rng = random.Random(args.seed)
    records = []
    # a partial run's rows carry their own run (when, where, load at their start, repeats): the section's header
    # stays the run that measured the rest (report.py marks the later rows and says when they ran)
    stamp = {"when": harness.now(), "machine": harness.machine(), "repeats": args.repeats} if args.only else None
    for c in comparisons:
        if args.only and args.only not in c.label:
            continue
        t = time.perf_counter()
        r = harness.measure(c, repeats=args.repeats, rng=rng)
        if stamp is not None:
            r["run"] = stamp
        records.append(r)
        ratios = ", ".join(f"{k} {v['median']:.2f}" for k, v in r["ratios"].items())
        print(
            f"{c.label} {c.op}: ours {r['times']['ours']['median'] * 1e6:,.1f} µs; ours ÷ {ratios} "
            f"({time.perf_counter() - t:.0f} s)",
            flush=True,
        )
    prev = harness.load()["sections"].get(section, {})
    if args.only and prev.get("comparisons"):  # a partial run merges into the section's last results
        old = {(r["label"], r["op"]): r for r in prev["comparisons"]}
        old.update({(r["label"], r["op"]): r for r in records})
        if all(r.get("run") for r in old.values()):  # every row measured later: the rows' runs are the runs
            for r in old.values():
                r.pop("run")
            harness.save(section, list(old.values()), {"peers": peer_versions(), "repeats": args.repeats})
        else:
            header = {k: v for k, v in prev.items() if k != "comparisons"}
            harness.save(section, list(old.values()), header, stamp=False)
        return
    for r in records:
        r.pop("run", None)
    harness.save(section, records, {"peers": peer_versions(), "repeats": args.repeats})


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sections", nargs="*", metavar="SECTION", help=f"any of {', '.join(SECTIONS)} (default: all)")
    p.add_argument("--repeats", type=int, default=9, help="paired repeats per comparison (default 9)")
    p.add_argument("--only", help="only the comparisons whose label contains this")
    p.add_argument("--seed", type=int, default=1, help="of the shuffled orders")
    p.add_argument("--tables", action="store_true", help="only regenerate the tables from the results file")
    p.add_argument("--megabytes", type=int, default=200, help="capture: the size of the capture (default 200)")
    p.add_argument("--records", type=int, default=200_000, help="pipeline: records (default 200,000)")
    p.add_argument("--streams-members", type=int, default=100, help="watch: the Streams application's members")
    p.add_argument("--consumer-groups", type=int, default=200, help="watch: consumer groups")
    p.add_argument("--commits", type=int, default=50, help="watch: offset commits after each generation")
    p.add_argument("--memory-groups", type=int, default=2000, help="watch: consumer groups of the memory figure")
    args = p.parse_args(argv)
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        p.error(f"unknown section {sorted(unknown)[0]!r} (known: {', '.join(SECTIONS)})")
    if not args.tables:
        for section in args.sections or SECTIONS:
            print(f"== {section}", flush=True)
            if section == "codec":
                from codec_bench import codec_comparisons

                _micro(section, codec_comparisons(), args)
            elif section == "kafka4":
                from codec_bench import kafka4_comparisons

                _micro(section, kafka4_comparisons(), args)
            elif section == "startup":
                import startup_bench

                startup_bench.run(args)
            elif section == "capture":
                import capture_bench

                capture_bench.run(args)
            elif section == "pipeline":
                import pipeline_bench

                pipeline_bench.run(args)
            elif section == "watch":
                import watch_bench

                watch_bench.run(args)
            elif section == "alternatives":
                import alternatives_bench

                alternatives_bench.run(args)
            elif section == "fastpath":
                from fastpath_bench import fastpath_comparisons

                _micro(section, fastpath_comparisons(), args)
    import report

    report.write_tables()
    print(f"tables regenerated from {os.path.relpath(report.RESULTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
