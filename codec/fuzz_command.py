"""``rebalance-codec fuzz``: the mutation fuzzer over every decoder (see :mod:`codec.fuzz`)."""

from __future__ import annotations

import sys
from pathlib import Path


def cmd_fuzz(args) -> int:
    from .fuzz import run, shared_dir, write_regression_vectors
    from .text import printable

    if args.write_regressions:
        n = write_regression_vectors(Path(args.write_regressions))
        print(f"{args.write_regressions}: {n} regression vectors")
        return 0
    shared = Path(args.shared) if args.shared else shared_dir()
    report = run(args.inputs, seed=args.seed, only=args.target or None, time_limit=args.seconds,
                 render=args.render, render_seeds=args.render_seeds, shared=shared)
    rendered = f", {report.rendered} rendered through every output" if args.render else ""
    print(f"{report.inputs} inputs over {len(report.per_target)} targets: {report.decoded} decoded, "
          f"{report.rejected} rejected with DecodeError{rendered}, {len(report.violations)} violations; "
          f"slowest input {report.slowest * 1000:.1f} ms")
    for v in report.violations[:20]:
        print(f"VIOLATION {v.target}: {printable(v.error)}\n  input: {v.data.hex()}", file=sys.stderr)
    return 1 if report.violations else 0


def register(subparsers) -> None:
    p = subparsers.add_parser("fuzz", help="fuzz every decoder with mutated vectors and random bytes")
    p.add_argument("--inputs", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seconds", type=float, help="stop after this long")
    p.add_argument("--target", action="append", help="only targets starting with this (repeatable)")
    p.add_argument("--render", action="store_true",
                   help="also take every seed and every decoded input through every output: JSON (both styles), "
                        "the pretty view, the Kafka-style round trip, the capture story, the pipeline's rows")
    p.add_argument("--render-seeds", type=int, metavar="N",
                   help="with --render, only the first N seeds of each target (default: all)")
    p.add_argument("--shared", metavar="DIR",
                   help="the shared reference folder for seeds (default: $REBALANCE_CODEC_SHARED or ../shared)")
    p.add_argument("--write-regressions", metavar="FILE",
                   help="write the regression vectors (codec.fuzz.REGRESSIONS) to FILE and exit")
    p.set_defaults(func=cmd_fuzz)
