"""``rebalance-codec fuzz``: the mutation fuzzer over every decoder (see :mod:`codec.fuzz`)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..cliutil import int_range, seconds

__all__ = ["register", "cmd_fuzz", "cmd_fuzz_cli"]


def cmd_fuzz_cli(args) -> int:
    """``fuzz --cli``: the commands as child processes under hostile ``--lines`` input (:mod:`codec.fuzz.cli`)."""
    import json
    import shlex

    from ..text import printable
    from .cli import COMMANDS, DEFAULT_PROGRAM, run
    from ..shared import DEFAULT_SHARED

    commands = tuple(args.command or COMMANDS)
    unknown = sorted(set(commands) - set(COMMANDS))
    if unknown:
        print(f"error: unknown --command {', '.join(unknown)}; known: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    if args.workers < 1 or args.max_rss_mb < 1 or args.inputs < 0:
        print("error: --workers and --max-rss-mb take positive numbers, --inputs a count", file=sys.stderr)
        return 2
    program = tuple(shlex.split(args.program)) if args.program else DEFAULT_PROGRAM
    if not program:
        print("error: --program needs a command", file=sys.stderr)
        return 2
    from ..cliutil import cannot_start

    if args.program and (why := cannot_start(program)) is not None:
        print(f"error: cannot start --program {args.program!r}: {why}", file=sys.stderr)
        return 2
    report = run(
        args.inputs,
        seed=args.seed,
        commands=commands,
        workers=args.workers,
        time_limit=args.seconds,
        program=program,
        max_rss_mb=args.max_rss_mb,
        shared=Path(args.shared) if args.shared else DEFAULT_SHARED,
    )
    print(report.summary())
    for key, n in sorted(report.problem_counts.items()):
        print(f"  {key}: {n} runs", file=sys.stderr)
    for v in report.violations:  # the reproducer is printable ASCII: printed as it is, to be copied
        for i, line in enumerate(str(v).split("\n")):
            line = line if line.isascii() and line.isprintable() else printable(line)
            print(f"VIOLATION {line}" if i == 0 else line, file=sys.stderr)
    if args.write_violations:
        with open(args.write_violations, "w", encoding="utf-8") as f:
            for v in report.violations:
                f.write(json.dumps(v.to_json()) + "\n")
    return 1 if report.violations or report.problem_counts else 0


def cmd_fuzz_amplification(args) -> int:
    """``fuzz --amplification``: every command against its budget (:mod:`codec.fuzz.amplification`)."""
    import json

    from ..text import printable
    from .amplification import run

    report = run(args.inputs, seed=args.seed, workers=args.workers, time_limit=args.seconds)
    print(report.summary())
    for v in report.violations[:20]:
        print(f"VIOLATION {printable(str(v))}", file=sys.stderr)
    if args.write_violations:
        with open(args.write_violations, "w", encoding="utf-8") as f:
            for v in report.violations:
                f.write(json.dumps(v.to_json()) + "\n")
    return 1 if report.violations else 0


def cmd_fuzz(args) -> int:
    from ..text import printable
    from ..shared import shared_dir
    from .regressions import write_regression_vectors
    from .runner import run

    if args.cli:
        return cmd_fuzz_cli(args)
    if args.amplification:
        return cmd_fuzz_amplification(args)
    if args.write_regressions:
        n = write_regression_vectors(Path(args.write_regressions))
        print(f"{args.write_regressions}: {n} regression vectors")
        return 0
    shared = Path(args.shared) if args.shared else shared_dir()
    report = run(
        args.inputs,
        seed=args.seed,
        only=args.target or None,
        time_limit=args.seconds,
        render=args.render,
        render_seeds=args.render_seeds,
        shared=shared,
    )
    rendered = f", {report.rendered} rendered through every output" if args.render else ""
    if report.compared:
        rendered += f", {report.compared} compared with the pure-Python codec"
    print(
        f"{report.inputs} inputs over {len(report.per_target)} targets: {report.decoded} decoded, "
        f"{report.rejected} rejected with DecodeError{rendered}, {len(report.violations)} violations; "
        f"slowest input {report.slowest * 1000:.1f} ms"
    )
    for v in report.violations[:20]:
        print(f"VIOLATION {v.target}: {printable(v.error)}\n  input: {v.data.hex()}", file=sys.stderr)
    return 1 if report.violations else 0


def register(subparsers) -> None:
    p = subparsers.add_parser("fuzz", help="fuzz every decoder with mutated vectors and random bytes")
    p.add_argument(
        "--inputs",
        type=int_range(0),
        default=100_000,
        help="how many inputs: mutated seeds and random bytes over the targets (with --cli, hostile input "
        "lines; with --amplification, generated inputs); default 100,000",
    )
    p.add_argument(
        "--seed", type=int_range(), default=0, help="the random seed: the same seed, the same inputs (default 0)"
    )
    p.add_argument("--seconds", type=seconds, help="stop after this long")
    p.add_argument("--target", action="append", help="only targets starting with this (repeatable)")
    p.add_argument(
        "--render",
        action="store_true",
        help="also take every seed and every decoded input through every output: JSON (both styles), "
        "the pretty view, the Kafka-style round trip, the capture story, the pipeline's rows",
    )
    p.add_argument(
        "--render-seeds",
        type=int_range(0),
        metavar="N",
        help="with --render, only the first N seeds of each target (default: all)",
    )
    p.add_argument(
        "--shared",
        metavar="DIR",
        help="the shared reference folder for seeds (default: $REBALANCE_CODEC_SHARED or ../shared)",
    )
    p.add_argument(
        "--write-regressions",
        metavar="FILE",
        help="write the regression vectors (codec.fuzz.REGRESSIONS) to FILE and exit",
    )
    p.add_argument(
        "--amplification",
        action="store_true",
        help="run every command on generated inputs (long names over many items, many tiny records, "
        "counts of tiny elements, mutated seeds) and hold its output, memory and time to its budget "
        "(codec.budget); with --workers, --seconds, --write-violations",
    )
    c = p.add_argument_group("the command-line fuzzer (--cli)")
    c.add_argument(
        "--cli",
        action="store_true",
        help="fuzz the commands instead of the decoders: decode, encode, assign and conformance --impl as "
        "child processes on --inputs hostile --lines inputs (or vectors, for conformance), checking "
        "one valid line per input, no traceback, exit status 0 or 1, bounded time and memory",
    )
    c.add_argument(
        "--command",
        action="append",
        metavar="CMD",
        help="with --cli, only this command: decode, encode, assign or conformance (repeatable)",
    )
    c.add_argument("--workers", type=int_range(1, 64), default=2, help="with --cli, processes at a time (default 2)")
    c.add_argument(
        "--max-rss-mb",
        type=int_range(1),
        default=600,
        dest="max_rss_mb",
        help="with --cli, the memory a run may reach before it is killed and reported (default 600)",
    )
    c.add_argument(
        "--program", metavar="CMD", help="with --cli, the command line under test (default: this Python's `-m codec`)"
    )
    c.add_argument(
        "--write-violations",
        metavar="FILE",
        help="with --cli or --amplification, write each violation as a JSON line (its command and input) to FILE",
    )
    p.set_defaults(func=cmd_fuzz)
