"""Benchmarks: collected from ``bench_*.py`` (``pytest bench --benchmark-only``), kept out of the default
test run (``testpaths`` is ``tests``). At the end of a run the results go to ``bench/results/latest.json``
and the comparison table (``bench/report.py``) is printed."""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # bench helpers (payloads, handwritten, peers, report) import as modules


def pytest_collect_file(file_path, parent):
    # pytest's default python_files is test_*.py: collect bench_*.py too, unless named on the command line
    # (then pytest collects it itself).
    if file_path.suffix == ".py" and file_path.name.startswith("bench_") and not parent.session.isinitpath(file_path):
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def pytest_configure(config):
    # Many small benchmarks: half a second each is plenty for µs-scale calls and keeps the run short.
    if getattr(config.option, "benchmark_max_time", None) == 1.0:
        config.option.benchmark_max_time = 0.5


def _results(config) -> dict | None:
    bs = getattr(config, "_benchmarksession", None)
    if bs is None or not bs.benchmarks:
        return None
    import harness
    from peers import peer_versions

    benches = []
    for b in bs.benchmarks:
        if b.has_error or not b.stats:
            continue
        st = b.stats
        benches.append(
            {
                "name": b.name,
                "group": b.group,
                "min": st.min,
                "median": st.median,
                "mean": st.mean,
                "rounds": st.rounds,
                "extra": dict(b.extra_info),
            }
        )
    return {
        "when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {
            "cpu": harness._cpu(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "system": f"{platform.system()} {platform.release()}",
        },
        "peers": peer_versions(),
        "benchmarks": benches,
    }


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    results = _results(config)
    if results is None:
        return
    import report

    if not os.environ.get("BENCH_NO_SAVE"):
        out = HERE / "results" / "latest.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    terminalreporter.write_sep("=", "comparison (bench/report.py)")
    terminalreporter.write_line(report.render(results))
