"""The one harness behind every side-by-side figure: paired, interleaved in a shuffled order, ratios per repeat.

A :class:`Comparison` is one piece of work done by several *sides* (ours, a peer, the plain-value floor, the
pure-Python codec ...), each a function of no arguments that does the work once and returns its result. Before
anything is timed every side's result is checked against ours (:attr:`Comparison.check`). Then, ``repeats``
times, the sides run one after the other in a freshly shuffled order, each for a batch long enough to time
(calibrated once, the same batch size in every repeat); a repeat's ratios divide ours by each other side *in
that repeat*, so that a slow minute on the shared machine slows both sides of a ratio alike. The figures kept are
medians over the repeats with their min and max, of the times and of the ratios.

Whole commands (start-up, ``capture --json`` against tshark, the pipeline through Spark) are sides too: each
run is one sample (:func:`run_process`), paired and shuffled the same way.

:func:`save` writes ``bench/results/results.json``; ``bench/report.py`` turns it into the tables of
``bench/README.md`` and ``README.md``; ``bench/run.py`` does both in one command.
"""

from __future__ import annotations

import datetime
import gc
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "results.json"

__all__ = ["Comparison", "measure", "run_process", "save", "load", "machine", "stats"]


@dataclass
class Comparison:
    """One piece of work, several sides. ``targets``: side -> the largest acceptable ours/side ratio (the
    issue's bars); ``check``: side -> a function of (ours' result, that side's result) that raises when they
    differ (the default: equal results); ``meta``: whatever the tables show beside (bytes, records ...)."""

    section: str
    label: str
    op: str
    sides: dict[str, Callable[[], Any]]
    ours: str = "ours"
    targets: dict[str, float] = field(default_factory=dict)
    check: dict[str, Callable[[Any, Any], None]] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    unit: str = "s"  # what a sample is: seconds per call (micro) or per run (process)


def stats(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def _check(c: Comparison) -> dict[str, Any]:
    ours = c.sides[c.ours]()
    for name, fn in c.sides.items():
        if name == c.ours:
            continue
        got = fn()
        compare = c.check.get(name)
        if compare is not None:
            compare(ours, got)
        elif got != ours:
            raise AssertionError(f"{c.label} {c.op}: {name} gives a different result from {c.ours}")
    return {}


def _batch(fn: Callable[[], Any], min_seconds: float) -> int:
    """Calls per timed batch: enough for ``min_seconds``."""
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t
        if dt >= min_seconds or n >= 1 << 20:
            return n
        n = max(n * 2, int(n * min_seconds / max(dt, 1e-9) * 1.2))


def measure(
    c: Comparison, *, repeats: int = 7, min_batch: float = 0.02, rng: random.Random | None = None, process: bool = False
) -> dict:
    """Check the sides, then time them ``repeats`` times, interleaved in a shuffled order; returns the record
    :func:`save` keeps. ``process``: each call is one whole run (no batching); a side may return a dict with
    ``seconds`` (and more, e.g. ``max_rss_kb``), else the wall time of the call is the sample."""
    rng = rng or random.Random(0)
    if not process:
        _check(c)
    batches = {name: (1 if process else _batch(fn, min_batch)) for name, fn in c.sides.items()}
    samples: dict[str, list[float]] = {name: [] for name in c.sides}
    extra: dict[str, list[dict]] = {name: [] for name in c.sides}
    ratios: dict[str, list[float]] = {name: [] for name in c.sides if name != c.ours}
    for _ in range(repeats):
        order = list(c.sides)
        rng.shuffle(order)
        this: dict[str, float] = {}
        for name in order:
            fn, n = c.sides[name], batches[name]
            gc.collect()
            t = time.perf_counter()
            if process:
                got = fn()
                dt = time.perf_counter() - t
                if isinstance(got, dict):
                    extra[name].append(got)
                    dt = got.get("seconds", dt)
                this[name] = dt
            else:
                for _ in range(n):
                    fn()
                this[name] = (time.perf_counter() - t) / n
        for name, value in this.items():
            samples[name].append(value)
        for name in ratios:
            ratios[name].append(this[c.ours] / this[name])
    out = {
        "section": c.section,
        "label": c.label,
        "op": c.op,
        "ours": c.ours,
        "unit": c.unit,
        "meta": c.meta,
        "repeats": repeats,
        "batch": batches,
        "times": {n: stats(v) for n, v in samples.items()},
        "ratios": {n: stats(v) | {"per_repeat": v} for n, v in ratios.items()},
        "targets": c.targets,
    }
    if any(extra.values()):
        out["extra"] = {
            n: {k: stats([e[k] for e in v]) for k in v[0] if isinstance(v[0][k], (int, float))}
            for n, v in extra.items()
            if v
        }
    return out


_TIMED = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
dt = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": dt, "cpu_seconds": r.ru_utime + r.ru_stime, "max_rss_kb": r.ru_maxrss,
                  "returncode": p.returncode, "stderr": p.stderr.decode("utf-8", "replace")[-500:]}))
"""


def run_process(
    argv: list[str], *, cwd: str | Path | None = None, env: dict | None = None, python: str = "python3"
) -> dict:
    """One run of a command: wall seconds, CPU seconds and peak RSS of the command alone (measured by a
    small parent whose own children are only that command), output thrown away. A failing command raises."""
    done = subprocess.run([python, "-c", _TIMED, *argv], capture_output=True, text=True, cwd=cwd, env=env, check=True)
    out = json.loads(done.stdout)
    if out["returncode"] != 0:
        raise RuntimeError(f"{argv[:3]} failed ({out['returncode']}): {out['stderr']}")
    del out["stderr"], out["returncode"]
    return out


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {
        "cpu": _cpu(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
        "load_at_start": load,
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


def load(path: Path = RESULTS) -> dict:
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    return {"sections": {}}


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def save(section: str, records: list[dict], info: dict, path: Path = RESULTS, *, stamp: bool = True) -> dict:
    """Replace one section of the results file (the others stay as they were), stamped with when, where
    and with what it ran (``stamp=False``: ``info`` holds the stamp, the section's earlier run's, kept beside rows
    of a later partial run that carry their own)."""
    data = load(path)
    data.setdefault("sections", {})[section] = {
        **({"when": now(), "machine": machine()} if stamp else {}),
        **info,
        "comparisons": records,
    }
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return data
