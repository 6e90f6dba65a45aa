"""``rebalance-codec fuzz``: the mutation fuzzer over every decoder (see :mod:`codec.fuzz`)."""

from __future__ import annotations

import sys


def cmd_fuzz(args) -> int:
    from .fuzz import run

    report = run(args.inputs, seed=args.seed, only=args.target or None, time_limit=args.seconds)
    print(f"{report.inputs} inputs over {len(report.per_target)} targets: {report.decoded} decoded, "
          f"{report.rejected} rejected with DecodeError, {len(report.violations)} violations; "
          f"slowest input {report.slowest * 1000:.1f} ms")
    for v in report.violations[:20]:
        print(f"VIOLATION {v.target}: {v.error}\n  input: {v.data.hex()}", file=sys.stderr)
    return 1 if report.violations else 0


def register(subparsers) -> None:
    p = subparsers.add_parser("fuzz", help="fuzz every decoder with mutated vectors and random bytes")
    p.add_argument("--inputs", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seconds", type=float, help="stop after this long")
    p.add_argument("--target", action="append", help="only targets starting with this (repeatable)")
    p.set_defaults(func=cmd_fuzz)
