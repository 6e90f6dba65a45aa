"""Benchmark: the built-in codec's full gate run (``rebalance-codec conformance``) against the same run on another
commit (issue #27's bar: generated cases included by default, within 2x of main's time).

Three whole processes, run in turn A B C A B C ... after a warm-up of each: **A**, this tree's default run (every
vector, the rebalance rounds and ``DEFAULT_GENERATE`` generated cases); **B**, the baseline commit's default run
(by default where this branch left main, so both have the same vectors: its tree exported with ``git archive`` to
a temporary folder, run with the same interpreter); **C**, this tree
with ``--generate 0`` (the vectors alone). Each run's CPU seconds (user + system) and peak memory come from the
kernel (``wait4``), its wall seconds from the clock; the ratios A/B and C/B are taken pair by pair (one round's A
over the same round's B) and summarized by their median, so a machine that drifts does not bias them. CPU is
the figure to quote on a shared machine; wall only on a quiet one.

It writes ``bench/results/conformance.json``; ``--readme`` also rewrites the generated section of
``bench/README.md`` (``render``; ``tests/test_bench_readme.py`` holds the section to the file).

Run: ``PYTHONPATH=. python bench/bench_conformance.py [--rounds 7] [--baseline COMMIT] [--readme]``
(``--render-only --readme`` re-renders the README from the results file)
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "conformance.json"
README = HERE / "README.md"
START, END = "<!-- conformance-bench:start -->", "<!-- conformance-bench:end -->"


def _run(argv: list[str], cwd: Path) -> dict:
    """One whole process: its wall and CPU seconds, its peak RSS (MiB), its exit status and last line."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        p = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        last = out.read().decode("utf-8", "replace").strip().splitlines()[-1]
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mib": usage.ru_maxrss / 1024,
        "status": p.returncode,
        "last": last,
    }


def _median(xs: list[float]) -> float:
    return round(statistics.median(xs), 3)


def run(rounds: int, baseline: str) -> dict:
    from codec.conformance.command import DEFAULT_GENERATE

    with tempfile.TemporaryDirectory(prefix="conformance-baseline-") as tmp:
        archive = subprocess.run(["git", "archive", baseline], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        commit = subprocess.run(
            ["git", "rev-parse", "--short", baseline], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        gate = [sys.executable, "-m", "codec", "conformance"]
        commands = {
            "A": (gate + ["--seed", "1"], ROOT),
            "B": (gate, Path(tmp)),
            "C": (gate + ["--generate", "0", "--seed", "1"], ROOT),
        }
        runs: dict[str, list[dict]] = {k: [] for k in commands}
        for i in range(rounds + 1):  # the first round warms up
            for name, (argv, cwd) in commands.items():
                got = _run(argv, cwd)
                if got["status"] != 0:
                    raise SystemExit(f"{name} failed (exit {got['status']}): {got['last']}")
                if i:
                    runs[name].append(got)
    pairs = {
        f"{x}/B": {fig: _median([a[fig] / b[fig] for a, b in zip(runs[x], runs["B"])]) for fig in ("cpu", "wall")}
        for x in ("A", "C")
    }
    return {
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "baseline": f"{baseline} ({commit})",
        "rounds": rounds,
        "generate": DEFAULT_GENERATE,
        "runs": {
            k: {
                "cpu": _median([r["cpu"] for r in v]),
                "wall": _median([r["wall"] for r in v]),
                "rss_mib": round(max(r["rss_mib"] for r in v), 1),
                "last": v[-1]["last"],
            }
            for k, v in runs.items()
        },
        "ratios": pairs,
    }


def render(results: dict) -> str:
    """The README's section: the three runs and the two ratios, from the results file."""
    r, q = results["runs"], results["ratios"]
    head = (
        f"`rebalance-codec conformance` on {results['machine']}, {results['rounds']} interleaved rounds "
        f"against {results['baseline']} ({results['when'][:10]}); medians, ratios pair by pair:"
    )
    lines = [head, "", "| run | CPU s | wall s | peak MiB | last line |", "|---|---|---|---|---|"]
    names = {
        "A": f"this tree: vectors + {results['generate']} generated cases (the default)",
        "B": f"baseline {results['baseline']}: vectors",
        "C": "this tree: vectors, `--generate 0`",
    }
    for k in ("A", "B", "C"):
        lines.append(
            f"| {names[k]} | {r[k]['cpu']:.2f} | {r[k]['wall']:.2f} | {r[k]['rss_mib']:.0f} | `{r[k]['last']}` |"
        )
    verdict = (
        f"Default run over the baseline: **{q['A/B']['cpu']:.2f}x** CPU ({q['A/B']['wall']:.2f}x wall); "
        f"the vectors alone: {q['C/B']['cpu']:.2f}x CPU. Issue #27's bar: within 2x."
    )
    lines += ["", verdict]
    return "\n".join(lines)


def rewrite_readme(results: dict) -> None:
    doc = README.read_text(encoding="utf-8")
    head, rest = doc.split(START, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{START}\n{render(results)}\n{END}{tail}", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument(
        "--baseline",
        help="the commit to compare with (default: where this branch left main, so both runs have the same vectors)",
    )
    ap.add_argument("--readme", action="store_true", help="rewrite the section of bench/README.md")
    ap.add_argument("--render-only", action="store_true", help="use the results file as it is")
    args = ap.parse_args()
    if args.render_only:
        results = json.loads(RESULTS.read_text(encoding="utf-8"))
    else:
        baseline = (
            args.baseline
            or subprocess.run(
                ["git", "merge-base", "HEAD", "main"], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout.strip()[:12]
        )
        results = run(args.rounds, baseline)
        RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(render(results))
    if args.readme:
        rewrite_readme(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
