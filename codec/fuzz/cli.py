"""The command-line fuzzer (issue #17): the commands themselves, as child processes, under hostile input.

:mod:`codec.fuzz` holds the decoders to their invariant in-process; this module holds the *commands* to their
contract, by running them as a user does (``python -m codec …``, or any program given) on thousands of
input lines per process:

* ``decode --lines`` — mutated hex of the fuzz seeds (:func:`codec.fuzz.seeds`, :func:`codec.fuzz.mutate`)
  for every kind and version, both styles, and lines that are not hex at all (odd nibbles, ``0x``, spaces,
  bytes that are not UTF-8, CR, U+2028, NUL, a BOM, blank lines, long lines);
* ``encode --lines`` — JSON made by decoding the seeds (``--style kafka`` and ``native``) and then mutated as
  values (wrong types, integers past every range and past 4,300 digits, NaN, floats, deep nesting, lone
  surrogates as JSON escapes and as raw CESU bytes, CR, U+2028 and control characters in strings, keys
  removed, added, renamed, values grafted from other messages) and as text (bytes that are not UTF-8, a bare
  CR or U+2028 anywhere, truncation, duplicate keys, blank lines);
* ``assign --lines`` (plain, ``--emit-bytes``, ``--format table``) — Kafka's assignor unit-test groups (the
  shared folder's ``vectors/kafka-java-assignor/ha_unit_tests.jsonl``) and random small groups, mutated the
  same way;
* ``conformance --impl`` (and ``--cross-version``) — the runner against an adapter (``python -m codec.fuzz.cli
  adapter``) that answers each request with a mutated reply: junk, bytes that are not UTF-8, JSON of the wrong
  shape, replies past ``--max-reply-bytes``, two lines for one request, no answer, an exit, deep nesting, huge
  integers, control characters and lone surrogates in error messages (through ``--json`` and ``--junit``),
  valid-but-wrong values.

A fifth of the ``--lines`` runs read their lines from a file (``@file``; assign's INPUT) instead of stdin.

The contract checked for each run (docs/guides/streams-metadata.md, "Decoding and encoding from the command
line"; the ``assign`` help; vectors/README.md):

* the run ends within its time limit and the peak memory of the process (VmHWM) stays under a bound; the
  exit status is 0 or 1; stderr holds no traceback and no "a bug in rebalance-codec" line, and is UTF-8
  with no control character but LF (it reaches a terminal);
* ``--lines``: stdout split at LF has exactly one line per input line (split at LF alone, as the CLI
  splits); every line is UTF-8 holding no other line break (CR, VT, FF, FS-RS, NEL, U+2028/9), and is strict
  JSON (no NaN) of an object — or, for ``encode``, lowercase hex; for ``assign --format table``, text with no
  control character — and an error line is
  ``{"error": {"type": str, "message": str, ...}}``; the exit status is 0 exactly when no line is an error;
  a whole message the kind accepts, with bytes after it, decodes with ``trailing`` in its JSON
  (docs/explanations/input-policy.md: trailing bytes are accepted and reported);
* ``conformance``: the last line is ``N passed, M failed, K skipped`` and ``N + M + K`` is the number of vectors the filters
  select (counted here from the vector files); the exit status is 0 exactly when nothing failed; an adapter
  whose every reply is a failure of the protocol passes nothing; ``--json`` and ``--junit`` reports are valid
  and hold every vector; stdout holds no control character. ``--cross-version``: the last line is ``N of 242
  cells agree with Kafka``, exit 0 exactly when all agree, none with an adapter that never answers right.

A failing run is narrowed down to the input line that causes it (the line behind the last output line of an
unbuffered re-run, else bisection), which is re-run alone; each :class:`CliViolation` names the command and
that line, with a shell reproducer. ``rebalance-codec fuzz --cli`` runs :func:`run`; the default test run a
bounded pass (tests/fuzz/test_fuzz_cli.py), ``pytest -m fuzz`` a million inputs.

This module generates the jobs and runs the pass; its parts: :mod:`~codec.fuzz.cli_jobs` (a run and its bounds),
:mod:`~codec.fuzz.cli_inputs` (the mutated inputs), :mod:`~codec.fuzz.cli_contract` (the contract and the
narrowing down) and :mod:`~codec.fuzz.cli_adapter` (the hostile adapter).
"""

from __future__ import annotations

import random
import shlex
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from .cli_adapter import adapter_main, adapter_reply
from .cli_contract import CliViolation, Examiner, Problem, check, replay, violation_from_json
from .cli_inputs import (
    _assign_corpus,
    _capped,
    _kind_args,
    _message_kinds,
    _options,
    _random_group,
    _vector_wires,
    json_text,
    mutate_hex_line,
    mutate_text,
    mutate_value,
    vector_counts,
)
from .cli_jobs import (
    BATCH,
    COMMANDS,
    DEFAULT_MAX_RSS_MB,
    DEFAULT_PROGRAM,
    INPUT_FILE,
    WEIGHTS,
    Job,
    RunResult,
    execute,
)
from ..shared import DEFAULT_SHARED, Shared

__all__ = [
    "COMMANDS",
    "CROSS_VERSION_CELLS",
    "DEFAULT_PROGRAM",
    "Job",
    "RunResult",
    "Problem",
    "CliViolation",
    "CliFuzzReport",
    "Examiner",
    "run",
    "jobs",
    "execute",
    "check",
    "replay",
    "violation_from_json",
    "vector_counts",
    "mutate_value",
    "json_text",
    "mutate_text",
    "mutate_hex_line",
    "adapter_main",
    "adapter_reply",
]


# --- generating the jobs ----------------------------------------------------------------------------------


class _Inputs:
    """Seeds and base values, built once and shared by the job threads."""

    def __init__(self, shared: Shared) -> None:
        from ..shared import resolve_shared
        from .corpus import seed_corpus

        shared = resolve_shared(shared)
        corpus = seed_corpus(shared)
        self.seeds = {t: [s.data for s in ss] for t, ss in corpus.items()}
        # messages the target decodes whole: with bytes after them, the bytes are trailing. Not frames (the
        # body of another API is opaque bytes, which take them in) nor SubscriptionInfo version probes (only
        # the version and the latest supported version are read)
        self.whole = {
            t: [
                s.data
                for s in ss
                if s.accepted and not (t == "subscription-info" and int.from_bytes(s.data[:4], "big") > 11)
            ]
            for t, ss in corpus.items()
            if "frame" not in t
        }
        self.decode_specs = [(t, *ka) for t in sorted(self.seeds) if (ka := _kind_args(t)) is not None]
        # kinds the fuzz corpus has no target for yet (Connect's): the golden vectors' bytes are their seeds
        covered = {kind for _, kind, _ in self.decode_specs}
        for (message, version), wires in sorted(_vector_wires().items(), key=str):
            kind = _message_kinds().get(message)
            if kind is not None and kind not in covered:
                target = f"vectors:{message}/v{version}"
                self.seeds[target] = wires
                self.decode_specs.append((target, kind, () if version is None else ("--version", str(version))))
        self.flat = [d for t, *_ in self.decode_specs for d in self.seeds[t]]
        self._values: dict[tuple[str, str], list[Any]] = {}
        self._lock = threading.Lock()
        self.assign_docs = _assign_corpus(shared)
        self.vector_counts, self.rounds = vector_counts()

    def values(self, target: str, kind: str, args: tuple[str, ...], style: str) -> list[Any]:
        """JSON values of the target's seeds, decoded in ``style`` (the base of the encode inputs)."""
        key = (target, style)
        with self._lock:
            if key in self._values:
                return self._values[key]
        from ..errors import CodecError
        from ..catalog import get_kind

        k, opts, out = get_kind(kind), _options(args), []
        for data in self.seeds[target][:60]:
            try:
                out.append(k.decode(data, style=style, **opts).value)
            except CodecError:
                continue
        with self._lock:
            self._values[key] = out
        return out


def _input_arg(command: str, rng: random.Random) -> tuple[str, ...]:
    """A fifth of the runs read their lines from a file (``@file``, or assign's INPUT) instead of stdin."""
    if rng.random() >= 0.2:
        return ()
    return (INPUT_FILE,) if command == "assign" else ("@" + INPUT_FILE,)


def _decode_job(inp: _Inputs, rng: random.Random, n: int) -> Job:
    extra: tuple[str, ...]
    if rng.random() < 0.05:
        target, kind, extra = "auto", "auto", ()
        pool = inp.flat
    else:
        target, kind, extra = rng.choice(inp.decode_specs)
        pool = inp.seeds[target]
    from .mutations import mutate

    style = rng.choice(("kafka", "snake"))
    lines = []
    trailing = []
    whole = inp.whole.get(target)
    for i in range(n):
        r = rng.random()
        if whole and rng.random() < 0.02:  # a whole message, and bytes after it
            lines.append((rng.choice(whole) + rng.randbytes(rng.randint(1, 5))).hex().encode())
            trailing.append(i)
            continue
        if r < 0.86 and pool:
            data = rng.choice(pool)
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                data = mutate(data, rng, pool)
        elif r < 0.92 or not pool:
            data = rng.randbytes(rng.randint(0, 64))
        else:
            data = rng.choice(pool)
        line = data.hex().encode()
        if rng.random() < 0.1:
            line = mutate_hex_line(line, rng)
        lines.append(_capped(line))
    args = ("decode", "--kind", kind, *extra, "--style", style, "--lines", *_input_arg("decode", rng))
    return Job("decode", args, tuple(lines), final_newline=rng.random() < 0.9, trailing=tuple(trailing))


def _encode_job(inp: _Inputs, rng: random.Random, n: int) -> Job:
    target, kind, extra = rng.choice(inp.decode_specs)
    style = rng.choice(("kafka", "snake"))
    pool = inp.values(target, kind, extra, style)
    flags: tuple[str, ...] = ()
    if style == "snake" and rng.random() < 0.3:
        flags = ("--drop-unrepresentable",)
    if kind in ("subscription-info", "assignment-info") and rng.random() < 0.1:
        flags += ("--version", str(rng.choice((1, 4, 7, 11, 12, 0, -1))))
    lines = []
    for _ in range(n):
        r = rng.random()
        if pool and r < 0.9:
            value = rng.choice(pool)
            for _ in range(rng.choice((0, 1, 1, 1, 2, 3))):
                value = mutate_value(value, rng, pool)
        else:
            value = mutate_value({}, rng, pool)
        line = json_text(value, rng)
        if rng.random() < 0.12:
            line = mutate_text(line, rng)
        lines.append(_capped(line))
    args = ("encode", "--kind", kind, *extra, "--style", style, *flags, "--lines", *_input_arg("encode", rng))
    return Job("encode", args, tuple(lines), final_newline=rng.random() < 0.9)


def _assign_job(inp: _Inputs, rng: random.Random, n: int) -> Job:
    pool = inp.assign_docs
    lines = []
    for _ in range(n):
        doc = rng.choice(pool) if rng.random() < 0.5 else _random_group(rng)
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            doc = mutate_value(doc, rng, pool)
        line = json_text(doc, rng)
        if rng.random() < 0.1:
            line = mutate_text(line, rng)
        lines.append(_capped(line))
    r = rng.random()
    args = (
        "assign",
        "--lines",
        *(("--emit-bytes",) if r < 0.4 else ("--format", "table") if r < 0.5 else ()),
        *_input_arg("assign", rng),
    )
    return Job("assign", args, tuple(lines), final_newline=rng.random() < 0.9)


#: ``conformance --cross-version``: SubscriptionInfo and AssignmentInfo, every writer version (1-11) against every
#: reader's newest version (1-11).
CROSS_VERSION_CELLS = 2 * 11 * 11


def _conformance_job(inp: _Inputs, rng: random.Random, budget: int, seed: str, index: int) -> Job:
    """Run ``index`` of the conformance runs: the first with a mostly honest adapter, the second with one that
    never answers right (and every fourth after), the third the cross-version matrix (and every tenth after);
    the others pick one or two messages (a version of them when they have many vectors), now and then with
    the rebalance rounds."""
    all_fail = index % 4 == 1
    mode = "fail" if all_fail else "mixed"
    adapter = shlex.join(
        [
            sys.executable,
            "-m",
            "codec.fuzz.cli",
            "adapter",
            "--seed",
            seed,
            "--mode",
            mode,
            "--p",
            str(rng.choice((0.05, 0.3, 0.8))),
        ]
    )
    # the vectors alone (--generate 0): the counts checked are the vectors' (generated cases have their own tests);
    # the run's order (and --cross-version's seeded choices) from the fuzz seed, so the reproducer replays it
    common = (
        "--impl",
        adapter,
        "--timeout",
        "0.5",
        "--max-reply-bytes",
        "200000",
        "--generate",
        "0",
        "--seed",
        str(rng.randrange(2**63)),
    )
    if index % 10 == 2:
        return Job(
            "conformance", ("conformance", "--cross-version", *common), vectors=CROSS_VERSION_CELLS, all_fail=all_fail
        )
    cap = min(max(budget // 2, 80), 400)
    messages = sorted({m for m, _ in inp.vector_counts})
    chosen = {rng.choice(messages)}
    if rng.random() < 0.3:
        chosen.add(rng.choice(messages))
    version = None
    count = sum(c for (m, _), c in inp.vector_counts.items() if m in chosen)
    if rng.random() < 0.15:  # the rounds run only when no --version is given
        if count > cap:
            chosen, count = set(), 0
        chosen.add("RebalanceRound")
        count += inp.rounds
    elif count > cap:
        # (a version the command line can name: a rule vector's "version" -1 says what Kafka reads behind a
        # negative version prefix, and no --version range selects it)
        versions = sorted({v for (m, v), _ in inp.vector_counts.items() if m in chosen and v is not None and v >= 0})
        version = rng.choice(versions) if versions else None
        if version is not None:
            count = sum(c for (m, v), c in inp.vector_counts.items() if m in chosen and v == version)
    args: list[str] = ["conformance", *common]
    for m in sorted(chosen):
        args += ["--message", m]
    if version is not None:
        args += ["--version", str(version)]
    return Job("conformance", tuple(args), vectors=count, all_fail=all_fail, reports=rng.random() < 0.5)


def jobs(
    n: int,
    *,
    seed: int = 0,
    commands: tuple[str, ...] = COMMANDS,
    shared: Shared = DEFAULT_SHARED,
    batch: dict[str, int] | None = None,
) -> Iterator[Job]:
    """The runs of a fuzz pass of ``n`` inputs over ``commands``, deterministic for ``seed``: each command its
    share (:data:`WEIGHTS`) in batches (:data:`BATCH`), interleaved."""
    inp = _Inputs(shared)
    sizes = dict(BATCH, **(batch or {}))
    total_w = sum(WEIGHTS[c] for c in commands)
    left = {c: round(n * WEIGHTS[c] / total_w) for c in commands}
    left[commands[0]] += n - sum(left.values())
    i = 0
    while any(v > 0 for v in left.values()):
        for c in commands:
            if left[c] <= 0:
                continue
            rng = random.Random(f"{seed}:{c}:{i}")
            if c == "conformance":
                job = _conformance_job(inp, rng, left[c], f"{seed}.{i}", i)
            else:
                job = {"decode": _decode_job, "encode": _encode_job, "assign": _assign_job}[c](
                    inp, rng, min(sizes[c], left[c])
                )
            left[c] -= max(job.inputs, 1)
            yield job
        i += 1


# --- the pass ---------------------------------------------------------------------------------------------


@dataclass
class CliFuzzReport:
    inputs: int = 0
    runs: int = 0
    per_command: dict[str, int] = field(default_factory=dict)
    seconds_per_command: dict[str, float] = field(default_factory=dict)  # process time, summed over runs
    violations: list[CliViolation] = field(default_factory=list)
    problem_counts: dict[str, int] = field(default_factory=dict)  # "command kind" -> runs with that problem
    peak_rss_kb: int = 0
    slowest_run: float = 0.0
    seconds: float = 0.0

    def summary(self) -> str:
        per = ", ".join(f"{c} {n}" for c, n in self.per_command.items())
        return (
            f"{self.inputs} inputs in {self.runs} runs ({per}) in {self.seconds:.1f} s: "
            f"{len(self.violations)} violations; slowest run {self.slowest_run:.1f} s, "
            f"peak memory {self.peak_rss_kb // 1024} MB"
        )


def run(
    n: int,
    *,
    seed: int = 0,
    commands: tuple[str, ...] | list[str] = COMMANDS,
    workers: int = 2,
    time_limit: float | None = None,
    program: tuple[str, ...] = DEFAULT_PROGRAM,
    max_rss_mb: int = DEFAULT_MAX_RSS_MB,
    batch: dict[str, int] | None = None,
    shared: Shared = DEFAULT_SHARED,
    max_violations_per_kind: int = 3,
    narrow_budget: int = 40,
    progress: Callable[[CliFuzzReport], None] | None = None,
) -> CliFuzzReport:
    """``n`` inputs over ``commands`` (see :func:`jobs`), ``workers`` processes at a time; every run checked
    (:func:`check`) and each failure narrowed down (:class:`CliViolation`). A kind of problem already found
    ``max_violations_per_kind`` times for a command is counted but not narrowed down again."""
    commands = tuple(commands)
    unknown = set(commands) - set(COMMANDS)
    if unknown:
        raise ValueError(f"unknown command(s) {', '.join(sorted(unknown))}; known: {', '.join(COMMANDS)}")
    report = CliFuzzReport()
    start = time.monotonic()
    lock = threading.Lock()
    examiner = Examiner(program=program, max_rss_mb=max_rss_mb, budget=narrow_budget)
    stop = threading.Event()

    def one(job: Job) -> None:
        if stop.is_set():
            return
        res, problems = examiner.run(job)
        found: list[CliViolation] = []
        if problems:
            with lock:
                fresh = []
                for kind in dict.fromkeys(p.kind for p in problems):
                    key = f"{job.command} {kind}"
                    report.problem_counts[key] = report.problem_counts.get(key, 0) + 1
                    if report.problem_counts[key] <= max_violations_per_kind:
                        fresh += [p for p in problems if p.kind == kind][:3]
            if fresh:
                found = examiner.narrow(job, fresh)
        with lock:
            report.runs += 1
            report.inputs += job.inputs
            report.per_command[job.command] = report.per_command.get(job.command, 0) + job.inputs
            report.seconds_per_command[job.command] = report.seconds_per_command.get(job.command, 0.0) + res.seconds
            report.peak_rss_kb = max(report.peak_rss_kb, res.max_rss_kb)
            report.slowest_run = max(report.slowest_run, res.seconds)
            report.violations.extend(found)
            if time_limit is not None and time.monotonic() - start > time_limit:
                stop.set()
        if progress is not None:
            progress(report)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        pending = []
        for job in jobs(n, seed=seed, commands=commands, shared=shared, batch=batch):
            if stop.is_set():
                break
            pending.append(pool.submit(one, job))
            # keep a bounded queue: the jobs hold their input lines
            while sum(not f.done() for f in pending) > 2 * max(1, workers):
                time.sleep(0.01)
            for f in [f for f in pending if f.done()]:
                f.result()
                pending.remove(f)
        for f in pending:
            f.result()
    report.seconds = time.monotonic() - start
    return report


if __name__ == "__main__":
    if sys.argv[1:2] == ["adapter"]:
        sys.exit(adapter_main(sys.argv[2:]))
    print("usage: python -m codec.fuzz.cli adapter [--seed S] [--mode mixed|fail] [--p P]", file=sys.stderr)
    sys.exit(2)
