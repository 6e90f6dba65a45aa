"""The amplification check of the fuzzer (issue #31): every command, on generated inputs, within its budget.

:mod:`codec.budget` states what one input may cost each command: output bytes, peak memory and time, a floor
plus a small multiple of the input's size. This module generates inputs for every command of that table and
runs each through the command as a user runs it (``rebalance-codec COMMAND ...``), in process — the parsers
built once per worker, stdin, stdout and stderr in memory — and measures:

* output: the bytes written to stdout and stderr (and to ``--out`` for ``simulate``);
* memory: the growth of the process's peak resident memory during the run (Linux's ``VmHWM``, reset before
  each run through ``/proc/self/clear_refs``), which counts what C extensions allocate too;
* time: the CPU seconds the run took (so that other work on a shared machine does not count), against the budget
  times :data:`LOAD_FACTOR` (the collector, caches).

A run past any of the three, an exit status other than 0, 1 or 2, or a line of ``a bug in rebalance-codec`` is
a :class:`Violation`, with the input to reproduce it. The inputs are biased towards the shapes that amplify
(the generators of :data:`SHAPES`), not only mutated bytes:

* long repeated strings: a subtopology id, topic, connector, host or leader of up to 30,000 characters named
  once in the bytes but once per item in a view (tasks, partitions, workers);
* many partitions per task and many small records: TaskIds of 20,000 partitions, ``__consumer_offsets``
  batches of up to a million tiny records in a few kilobytes (zstd, gzip), decompression bombs;
* large counts of tiny elements: arrays of empty structs, thousands of statuses, unknown tagged fields, JSON
  arrays of ``{}`` that encoding fills with defaults;
* and the fuzz seeds mutated (:func:`codec.fuzz.mutate`, :func:`codec.fuzz.cli_inputs.mutate_value`).

:func:`run` is deterministic for its seed; ``rebalance-codec fuzz --amplification`` runs it, the default test
run a bounded pass and the worst inputs found (``tests/fuzz/amplification_worst.jsonl``, replayed by
``tests/fuzz/test_amplification.py``), ``pytest -m fuzz`` a million inputs. The cases and their generators are
:mod:`codec.fuzz.amplification_cases`; this module runs and measures them.
"""

from __future__ import annotations

import io
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field

from ..budget import BUDGETS, Budget
from .amplification_cases import _FILE, COMMANDS, SHAPES, Case, case_from_json, cases

__all__ = [
    "COMMANDS",
    "LOAD_FACTOR",
    "SHAPES",
    "Case",
    "Measure",
    "Violation",
    "AmplificationReport",
    "cases",
    "Runner",
    "run",
    "case_from_json",
]

#: Time is checked against the budget times this (Python's collector, caches shared with other work).
LOAD_FACTOR = 2.0


@dataclass(frozen=True)
class Measure:
    status: int | None
    output: int  # bytes
    memory: int  # bytes of peak resident growth
    seconds: float
    bug: str | None = None  # a last-resort error line, a traceback, an exit status outside 0-2

    def ratios(self, budget: Budget, size: int) -> dict[str, float]:
        """Each measure over its budget (1.0 is the budget)."""
        return {
            "output": self.output / budget.output(size),
            "memory": self.memory / budget.memory(size),
            "seconds": self.seconds / (LOAD_FACTOR * budget.seconds(size)),
        }


@dataclass(frozen=True)
class Violation:
    case: Case
    measure: Measure
    why: str

    def __str__(self) -> str:
        c = self.case
        return f"{c.command} ({c.shape}, {c.size:,} bytes in): {self.why}; argv {' '.join(c.argv)[:200]}"

    def to_json(self) -> dict:
        return {"why": self.why, "case": self.case.to_json()}


@dataclass
class AmplificationReport:
    inputs: int = 0
    per_command: dict[str, int] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    worst: dict[str, tuple[float, Case, Measure]] = field(default_factory=dict)  # command -> highest ratio
    seconds: float = 0.0

    def add(self, case: Case, m: Measure) -> None:
        """Count a measured case and keep it when it is past its budget or the worst of its command so far."""
        self.inputs += 1
        self.per_command[case.command] = self.per_command.get(case.command, 0) + 1
        self.keep(case, m)

    def keep(self, case: Case, m: Measure) -> None:
        budget = BUDGETS[case.command]
        ratios = m.ratios(budget, case.size)
        over = [f"{k} {v:.2f}x its budget" for k, v in ratios.items() if v > 1.0]
        if m.bug:
            over.append(m.bug)
        if over:
            self.violations.append(Violation(case, m, "; ".join(over)))
        top = max(ratios.values())
        if case.command not in self.worst or top > self.worst[case.command][0]:
            self.worst[case.command] = (top, case, m)

    def summary(self) -> str:
        worst = ", ".join(f"{c} {r:.2f}" for c, (r, _, _) in sorted(self.worst.items()))
        return (
            f"{self.inputs} inputs over {len(self.per_command)} commands, {len(self.violations)} past their "
            f"budget; highest share of a budget by command: {worst}; {self.seconds:.0f} s"
        )


# --- running one case --------------------------------------------------------------------------------------


def _proc(name: str, flags: int) -> int | None:
    try:
        return os.open(f"/proc/{os.getpid()}/{name}", flags)
    except OSError:
        return None


_PROC: dict[int, tuple[int | None, int | None]] = {}


def _proc_files() -> tuple[int | None, int | None]:
    """This process's clear_refs and status, kept open (opening them costs a millisecond each on a busy
    machine; status is re-read with pread): per process, as a forked worker's /proc is its own."""
    pid = os.getpid()
    if pid not in _PROC:
        _PROC[pid] = (_proc("clear_refs", os.O_WRONLY), _proc("status", os.O_RDONLY))
    return _PROC[pid]


def _peak_reset() -> None:
    """Give freed memory back (so that what was held for an earlier case does not hide this one's) and start
    the peak from the current resident size."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
    clear_refs, _ = _proc_files()
    if clear_refs is not None:
        try:
            os.write(clear_refs, b"5")
        except OSError:
            pass


def _libc():
    try:
        import ctypes

        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


_LIBC = _libc()


def _rss() -> tuple[int, int]:
    """(peak, current) resident bytes of this process (0, 0 where /proc is not there)."""
    hwm = rss = 0
    _, status = _proc_files()
    if status is None:
        return hwm, rss
    try:
        for line in os.pread(status, 1 << 14, 0).split(b"\n"):
            if line.startswith(b"VmHWM:"):
                hwm = int(line.split()[1]) * 1024
            elif line.startswith(b"VmRSS:"):
                rss = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return hwm, rss


class Runner:
    """Runs cases in this process: the parsers built once, stdio in memory, files in a scratch folder."""

    def __init__(self) -> None:
        from ..cli import build_parser

        self.parser = build_parser()
        self.tmp = tempfile.mkdtemp(prefix="fuzz-amp-")

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run(self, case: Case) -> Measure:
        from ..cli import run as run_args

        here = os.path.join(self.tmp, str(os.getpid()))  # (workers forked from one runner: a folder each)
        os.makedirs(here, exist_ok=True)
        path = os.path.join(here, "input")
        out_dir = os.path.join(here, "out")
        shutil.rmtree(out_dir, ignore_errors=True)
        if case.file is not None:
            with open(path, "wb") as f:
                f.write(case.file)
        argv = [case.command] + [a.replace(_FILE, path).replace("{out}", out_dir) for a in case.argv]
        out, err = io.BytesIO(), io.BytesIO()
        streams = (
            io.TextIOWrapper(out, encoding="utf-8", write_through=True),
            io.TextIOWrapper(err, encoding="utf-8", write_through=True),
            io.TextIOWrapper(io.BytesIO(case.stdin), encoding="utf-8"),
        )
        saved = sys.stdout, sys.stderr, sys.stdin
        _peak_reset()
        _, before = _rss()
        start = time.process_time()
        sys.stdout, sys.stderr, sys.stdin = streams
        bug = None
        try:
            try:
                status = run_args(self.parser.parse_args(argv))
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else 2
            except Exception as e:  # noqa: BLE001 - what the CLI's last resort would call a bug
                status, bug = 1, f"raised {type(e).__name__}: {e}"[:300]
            streams[0].flush()
            streams[1].flush()
        finally:
            sys.stdout, sys.stderr, sys.stdin = saved
            for s in streams:
                s.detach()
        seconds = time.process_time() - start
        peak, _ = _rss()
        written = out.tell() + err.tell() + _tree_size(out_dir)
        if b"a bug in rebalance-codec" in err.getvalue():
            bug = "a last-resort error line: " + err.getvalue().decode("utf-8", "replace")[-300:].strip()
        elif status not in (0, 1, 2):
            bug = f"exit status {status}"
        return Measure(status, written, max(0, peak - before), seconds, bug)


def _tree_size(path: str) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def _work(args: tuple[int, int, int, tuple[str, ...]]) -> tuple[list[tuple[Case, Measure]], dict[str, int]]:
    """A worker's slice: every case measured; what crosses back is the violations and the highest ratio of each
    command (with the counts), not every measure."""
    seed, start, n, commands = args
    runner = _worker_runner()
    report = AmplificationReport()
    for case in cases(n, seed=seed, commands=commands, start=start):
        report.add(case, runner.run(case))
    kept = [(v.case, v.measure) for v in report.violations] + [(c, m) for _, c, m in report.worst.values()]
    return kept, report.per_command


_RUNNER: Runner | None = None


def _worker_runner() -> Runner:
    global _RUNNER
    if _RUNNER is None:
        _RUNNER = Runner()
        for c in ("decode", "encode", "assign", "capture", "conformance"):  # imports and caches before measuring
            warm = next(cases(1, seed=-1, commands=(c,)), None)
            if warm is not None:
                _RUNNER.run(warm)
    return _RUNNER


def run(
    n: int,
    *,
    seed: int = 0,
    workers: int = 2,
    commands: tuple[str, ...] = COMMANDS,
    time_limit: float | None = None,
    chunk: int = 500,
    progress=None,
) -> AmplificationReport:
    """``n`` cases, measured in ``workers`` processes (0: in this one), each against its budget; ``progress``,
    when given, is called with the report after each chunk."""
    import multiprocessing

    t0 = time.monotonic()
    report = AmplificationReport()
    jobs = [(seed, s, min(chunk, n - s), tuple(commands)) for s in range(0, n, chunk)]

    def take(result: tuple[list[tuple[Case, Measure]], dict[str, int]]) -> None:
        kept, counts = result
        for case, m in kept:
            report.keep(case, m)
        for c, k in counts.items():
            report.per_command[c] = report.per_command.get(c, 0) + k
            report.inputs += k
        if progress is not None:
            report.seconds = time.monotonic() - t0
            progress(report)

    if workers <= 0:
        for job in jobs:
            take(_work(job))
            if time_limit is not None and time.monotonic() - t0 > time_limit:
                break
    else:
        _worker_runner()  # the seeds, caches and imports once, before the workers are forked
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(workers) as pool:
            for result in pool.imap_unordered(_work, jobs):
                take(result)
                if time_limit is not None and time.monotonic() - t0 > time_limit:
                    pool.terminate()
                    break
    report.seconds = time.monotonic() - t0
    return report
