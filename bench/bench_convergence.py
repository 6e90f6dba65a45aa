"""Benchmark: ``high_availability`` against ``high_availability_fast`` on the convergence harness (issues #19, #28).

One run measures both assignors side by side, interleaved scenario by scenario (the two in turn, their
order swapped every other scenario, so time on a busy machine falls on both alike), over the project's
scenario set (:mod:`codec.assignor.convergence`: fresh start, scale-out, scale-in, random events, and the
scale-out by one client of issue #28; capacities 1–5, 0–3 standbys, 1–3 warmups): rounds in total and per
kind (median, max), restores started, guarantee and progress violations and the time spent in assign().
Then issue #28's own scale-out (9 → 10 clients, 152 stateful tasks, 2 standbys, 1 warmup) on each, and
assign() on 500 clients × 10,000 tasks with one client joining (``bench_assignor.py``'s group), in pairs
(the two in turn, order swapped every pair). It writes ``bench/results/convergence.json``; ``--readme``
also rewrites the generated tables in ``bench/README.md`` (between ``convergence:start``/``end``) and
``docs/explanations/assignors.md`` (``fast-assignor:start``/``end``), rendered here from the results file alone
(``tests/test_bench_readme.py`` holds them to it).

Run: ``PYTHONPATH=. python bench/bench_convergence.py [--scenarios N] [--readme]`` (a few minutes;
``--render-only --readme`` re-renders the READMEs from the results file)
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from codec.assignor import assign
from codec.assignor.convergence import (
    DEFAULT_SCENARIOS,
    KINDS,
    compare,
    issue_28_cluster,
    scenarios,
    summarize,
)

RESULTS = HERE / "results" / "convergence.json"
README = HERE / "README.md"
ASSIGNORS_PAGE = HERE.parent / "docs" / "explanations" / "assignors.md"
CONV_START, CONV_END = "<!-- convergence:start -->", "<!-- convergence:end -->"
FAST_START, FAST_END = "<!-- fast-assignor:start -->", "<!-- fast-assignor:end -->"
ASSIGNORS = ("high_availability", "high_availability_fast")
KIND_NAMES = {
    "fresh": "fresh start",
    "scale_out": "scale-out",
    "scale_in": "scale-in",
    "events": "random events",
    "scale_out_one": "scale-out by one (#28)",
}


def scale_timing(pairs: int = 5) -> dict:
    """assign() on 500 clients × 10,000 tasks, one client joining: ``pairs`` runs of each assignor in turn
    (order swapped every pair); per assignor the minimum and median, and the median of the pairs' ratios."""
    from bench_assignor import scale_out_group

    group = scale_out_group()
    times: dict[str, list[float]] = {name: [] for name in ASSIGNORS}
    for i in range(pairs):
        for name in ASSIGNORS if i % 2 == 0 else ASSIGNORS[::-1]:
            g = replace(group, assignor=name)
            start = time.perf_counter()
            assign(g)
            times[name].append(time.perf_counter() - start)
    ref, fast = ASSIGNORS
    return {
        "pairs": pairs,
        **{name: {"min": min(ts), "median": statistics.median(ts)} for name, ts in times.items()},
        "ratio_median": statistics.median(f / r for f, r in zip(times[fast], times[ref])),
    }


def issue_28() -> dict[str, int]:
    """Rounds to converge after issue #28's scale-out: 9 clients of capacity 1 converged by Kafka's
    assignor (38 stateless and 152 stateful tasks, subtopologies of 5, 2 standbys, 1 warmup, acceptable
    lag 100), then a tenth joins; Kafka's test allows 2 × (152 + 152 × 2) = 912 rounds."""
    out = {}
    for name in ASSIGNORS:
        cluster = issue_28_cluster()
        cluster.converge(1)
        cluster.assignor = name
        cluster.add_client()
        out[name] = cluster.converge(912)[2]
    return out


def run(count: int = DEFAULT_SCENARIOS, pairs: int = 5) -> dict:
    start = time.perf_counter()
    results = compare(scenarios(count), ASSIGNORS)
    summary = {name: summarize(rs) for name, rs in results.items()}
    violations = {name: [v for r in rs for v in r.violations][:20] for name, rs in results.items()}
    harness_seconds = time.perf_counter() - start
    return {
        "when": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {"python": platform.python_version(), "system": platform.system(), "cores": os.cpu_count()},
        "scenarios": count,
        "kinds": list(KINDS),
        "harness_seconds": round(harness_seconds, 1),
        "assignors": summary,
        "violations": violations,
        "issue_28_rounds": issue_28(),
        "scale_500x10000": scale_timing(pairs),
    }


def _median(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) else "-"


def convergence_table(results: dict) -> str:
    """bench/README.md's table: per kind, the two assignors side by side."""
    ref_name, fast_name = ASSIGNORS
    ref, fast = results["assignors"][ref_name], results["assignors"][fast_name]
    lines = [
        (
            f"Run {results['when']} ({results['machine']['python']}, {results['machine']['cores']} cores): "
            f"{results['scenarios']:,} seeded scenarios of the convergence harness, the two assignors "
            f"interleaved scenario by scenario; *HA* is {ref_name}, *fast* {fast_name}."
        ),
        "",
        (
            "| scenarios | rounds HA | rounds fast | fast ÷ HA | median HA / fast | max HA / fast "
            "| restores HA | restores fast | violations HA / fast | assign() s HA | assign() s fast |"
        ),
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    kinds = [k for k in KIND_NAMES if k in ref["kinds"]] + sorted(set(ref["kinds"]) - set(KIND_NAMES))
    for kind in [None, *kinds]:
        a, b = (ref, fast) if kind is None else (ref["kinds"][kind], fast["kinds"][kind])
        label = "all" if kind is None else KIND_NAMES.get(kind, kind)
        ratio = f"{b['rounds'] / a['rounds']:.0%}" if a["rounds"] else "-"
        lines.append(
            f"| {label} ({a['scenarios']:,}) | {a['rounds']:,} | {b['rounds']:,} | {ratio} "
            f"| {_median(a['rounds_median'])} / {_median(b['rounds_median'])} "
            f"| {a['rounds_max']} / {b['rounds_max']} | {a['restores']:,} | {b['restores']:,} "
            f"| {a['violations']} / {b['violations']} | {a['seconds']:.2f} | {b['seconds']:.2f} |"
        )
    no_worse = all(fast["kinds"][k]["rounds_max"] <= ref["kinds"][k]["rounds_max"] for k in ref["kinds"])
    scale = results["scale_500x10000"]
    issue = results["issue_28_rounds"]
    verdict = (
        f"Rounds: {fast['rounds'] / ref['rounds']:.0%} of {ref_name}'s (target ≤ 50 %; "
        f"{rounds_ratio(results, exclude='scale_out_one'):.0%} without issue #28's kind); restores: "
        f"{fast['restores'] / ref['restores']:.0%}; no kind's maximum worse: {'yes' if no_worse else 'NO'}; "
        f"violations (guarantees, and for {fast_name} the progress measure and the round bound): "
        f"{ref['violations'] + fast['violations']}. Issue #28's scale-out (9 → 10 clients, 152 stateful "
        f"tasks, 2 standbys, 1 warmup): {ref_name} {issue[ref_name]} rounds, {fast_name} "
        f"{issue[fast_name]}. assign() on 500 clients × 10,000 tasks, one joining, {scale['pairs']} "
        f"interleaved pairs: {ref_name} {scale[ref_name]['median']:.2f} s (min {scale[ref_name]['min']:.2f}), "
        f"{fast_name} {scale[fast_name]['median']:.2f} s (min {scale[fast_name]['min']:.2f}); median "
        f"ratio fast ÷ HA {scale['ratio_median']:.2f} (target ≤ 2)."
    )
    return "\n".join([*lines, "", verdict])


def rounds_ratio(results: dict, exclude: str | None = None) -> float:
    """The fast assignor's rounds over the exact assignor's, every kind but ``exclude``."""
    ref, fast = (results["assignors"][name]["kinds"] for name in ASSIGNORS)
    kinds = [k for k in ref if k != exclude]
    return sum(fast[k]["rounds"] for k in kinds) / sum(ref[k]["rounds"] for k in kinds)


def fast_assignor_summary(results: dict) -> str:
    """The assignors page's short table of the same results (docs/explanations/assignors.md)."""
    scale = results["scale_500x10000"]
    issue = results["issue_28_rounds"]
    lines = [
        (
            f"| assignor | rounds, {results['scenarios']:,} scenarios | max (events) | restores started "
            "| violations | issue #28 scale-out | assign(), 500 × 10,000 (median) |"
        ),
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    for name in ASSIGNORS:
        b = results["assignors"][name]
        lines.append(
            f"| {name} | {b['rounds']:,} | {b['kinds']['events']['rounds_max']} | {b['restores']:,} "
            f"| {b['violations']} | {issue[name]} rounds | {scale[name]['median']:.2f} s |"
        )
    return "\n".join(lines)


def section(doc: str, start: str, end: str) -> str:
    """The generated text between two markers of ``doc``."""
    return doc[doc.index(start) + len(start) : doc.index(end)].strip("\n")


def rewrite_readmes(results: dict) -> None:
    for path, start, end, body in (
        (README, CONV_START, CONV_END, convergence_table(results)),
        (ASSIGNORS_PAGE, FAST_START, FAST_END, fast_assignor_summary(results)),
    ):
        doc = path.read_text(encoding="utf-8")
        a, b = doc.index(start) + len(start), doc.index(end)
        path.write_text(doc[:a] + "\n" + body + "\n" + doc[b:], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenarios", type=int, default=DEFAULT_SCENARIOS, help="how many seeded scenarios")
    ap.add_argument("--pairs", type=int, default=5, help="interleaved assign() pairs on the 500 × 10,000 group")
    ap.add_argument(
        "--readme",
        action="store_true",
        help="rewrite the generated tables in bench/README.md and the assignors page of the docs",
    )
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--render-only", action="store_true", help="run nothing: render the existing results file")
    args = ap.parse_args(argv)
    if args.render_only:
        results = json.loads(args.out.read_text(encoding="utf-8"))
    else:
        results = run(args.scenarios, args.pairs)
        args.out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(convergence_table(results))
    if args.readme:
        rewrite_readmes(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
