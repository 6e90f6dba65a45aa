"""Benchmark: ``high_availability`` against ``high_availability_fast`` on the convergence harness (issue #19).

One run measures both assignors side by side on the harness's default scenario set
(:mod:`codec.assignor.convergence`: fresh start, scale-out, scale-in, random events; mixed capacities,
0–2 standbys): rounds in total and per kind (median, max), restores started, guarantee violations and
the time spent in assign(); then assign() on 500 clients × 10,000 tasks with one client joining
(``bench_assignor.py``'s group), the minimum of a few runs. It writes ``bench/results/convergence.json``;
``--readme`` also rewrites the generated tables in ``bench/README.md`` and ``README.md``
(``bench/report.py`` renders them, ``tests/test_bench_readme.py`` holds them to the file).

Run: ``PYTHONPATH=. python bench/bench_convergence.py [--scenarios N] [--readme]`` (a few minutes;
``--render-only --readme`` re-renders the READMEs from the results file)
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from codec.assignor import assign
from codec.assignor.convergence import DEFAULT_SCENARIOS, compare, scenarios, summarize

RESULTS = HERE / "results" / "convergence.json"
ASSIGNORS = ("high_availability", "high_availability_fast")


def scale_timing(repeat: int = 3) -> dict[str, float]:
    """Minimum seconds of one assign() on 500 clients × 10,000 tasks, one client joining."""
    from dataclasses import replace

    from bench_assignor import scale_out_group

    group = scale_out_group()
    out = {}
    for name in ASSIGNORS:
        g = replace(group, assignor=name)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            assign(g)
            times.append(time.perf_counter() - start)
        out[name] = min(times)
    return out


def run(count: int = DEFAULT_SCENARIOS, repeat: int = 3) -> dict:
    start = time.perf_counter()
    results = compare(scenarios(count), ASSIGNORS)
    summary = {name: summarize(rs) for name, rs in results.items()}
    violations = {name: [v for r in rs for v in r.violations][:20] for name, rs in results.items()}
    return {
        "when": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {"python": platform.python_version(), "system": platform.system(), "cores": os.cpu_count()},
        "scenarios": count,
        "harness_seconds": round(time.perf_counter() - start, 1),
        "assignors": summary,
        "violations": violations,
        "scale_500x10000_seconds": scale_timing(repeat),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenarios", type=int, default=DEFAULT_SCENARIOS, help="how many seeded scenarios")
    ap.add_argument("--repeat", type=int, default=3, help="assign() runs on the 500 × 10,000 group")
    ap.add_argument("--readme", action="store_true", help="rewrite the generated tables in the READMEs")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--render-only", action="store_true", help="run nothing: render the existing results file")
    args = ap.parse_args(argv)
    if args.render_only:
        results = json.loads(args.out.read_text(encoding="utf-8"))
    else:
        results = run(args.scenarios, args.repeat)
        args.out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    import report

    print(report.convergence_table(results))
    if args.readme:
        report.rewrite_convergence(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
