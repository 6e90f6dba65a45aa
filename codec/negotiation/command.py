"""``rebalance-codec negotiate`` and ``rebalance-codec compat``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .probing import FUTURE_VERSION
from .scenario import compat_matrix, render_rounds, run_scenario


def _label(v: int) -> str:
    return f"{v} (future)" if v == FUTURE_VERSION else str(v)


def _cell(c: dict) -> str:
    if c["outcome"] == "error":
        return "error"
    s = f"v{c['version']}"
    if c["outcome"] == "probing":
        s += " probe"
    return s + f" ({c['rounds']}r)"


def cmd_negotiate(args) -> int:
    spec = json.loads(Path(args.scenario).read_text(encoding="utf-8"))
    result = run_scenario(spec)
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(render_rounds(result))
    return 0


def cmd_compat(args) -> int:
    cells = compat_matrix()
    if args.format == "json":
        print(json.dumps(cells, indent=2))
        return 0
    versions = sorted({c["leader"] for c in cells})
    grid = {(c["member"], c["leader"]): c for c in cells}
    header = ["member \\ leader"] + [_label(v) for v in versions]
    rows = [[_label(m)] + [_cell(grid[(m, lv)]) for lv in versions] for m in versions]
    if args.format == "markdown":
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        print("\nEach cell: the version the pair settles at, `probe` when the first round was a version-probing "
              "rebalance, and the rounds to settle (a group of the leader and one member, run over real bytes).")
    else:
        widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
        for row in [header] + rows:
            print("  ".join(x.ljust(w) for x, w in zip(row, widths)))
    return 0


def register(subparsers) -> None:
    n = subparsers.add_parser("negotiate", help="run a rolling-upgrade scenario through Streams version probing")
    n.add_argument("--scenario", required=True, help="scenario JSON file")
    n.add_argument("--format", choices=("text", "json"), default="text")
    n.set_defaults(func=cmd_negotiate)
    c = subparsers.add_parser("compat", help="the compatibility matrix of member and leader metadata versions")
    c.add_argument("--format", choices=("table", "markdown", "json"), default="table")
    c.set_defaults(func=cmd_compat)
