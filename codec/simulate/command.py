"""``rebalance-codec simulate``: run a scenario under one protocol or compare them.

    rebalance-codec simulate SCENARIO.json [--protocol eager|cooperative|ha|affinity] [--out DIR]
    rebalance-codec simulate --example scale-out --compare [--out DIR]
    rebalance-codec simulate --list-examples
    rebalance-codec simulate --example connect-bounce --compare   (a Kafka Connect scenario, "kind": "connect")
    rebalance-codec simulate --example consumer-scale-out --compare   (a consumer group, "kind": "consumer")

Writes to ``--out`` (default ``simulate-out/<scenario>``), per protocol P: ``P.timeline.json`` (metrics,
rebalances, timeline), ``P.frames.jsonl`` and ``P.frames.pcap.gz`` (every recorded frame, readable by
the capture decoder), ``P.png`` and ``P.html`` (per-instance timeline and unavailability); with
``--compare`` also ``compare.png``, ``compare.html`` and ``compare.json``, and a metrics table on stdout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import text as _text
from ..cliutil import int_range, loads
from ..errors import read_whole
from .metrics import TABLE_COLUMNS, format_metrics_table

__all__ = ["register", "run", "TABLE_COLUMNS", "format_table"]

DEFAULT_COMPARE = ("eager", "cooperative", "ha", "affinity")


DESCRIPTION = """\
Run a scenario under one protocol or compare them.

  rebalance-codec simulate SCENARIO.json [--protocol eager|cooperative|ha|affinity] [--out DIR]
  rebalance-codec simulate --example scale-out --compare [--out DIR]
  rebalance-codec simulate --list-examples
  rebalance-codec simulate --example connect-bounce --compare   (a Kafka Connect scenario, "kind": "connect")
  rebalance-codec simulate --example consumer-scale-out --compare   (a consumer group, "kind": "consumer")

Writes to --out (default simulate-out/<scenario>), per protocol P: P.timeline.json (metrics, rebalances,
timeline), P.frames.jsonl and P.frames.pcap.gz (every recorded frame, readable by the capture decoder), P.png
and P.html (per-instance timeline and unavailability); with --compare also compare.png, compare.html and
compare.json, and a metrics table on stdout.

The scenario file's format: the simulator guide, "Scenario files" (docs/guides/simulator.md).
"""


def register(subparsers) -> argparse.ArgumentParser:
    from .leader import PROTOCOLS

    p = subparsers.add_parser(
        "simulate",
        help="simulate a Streams, Connect or consumer group through membership changes",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "scenario", nargs="?", help='a scenario JSON file (the simulator guide\'s "Scenario files" gives its format)'
    )
    p.add_argument("--example", help="a bundled scenario by name (see --list-examples)")
    p.add_argument("--list-examples", action="store_true", help="list the bundled scenarios and exit")
    from .connect import CONNECT_PROTOCOLS
    from .consumer_scenario import CONSUMER_PROTOCOLS

    p.add_argument(
        "--protocol",
        choices=sorted(set(PROTOCOLS) | set(CONNECT_PROTOCOLS) | set(CONSUMER_PROTOCOLS)),
        help="Streams: eager|cooperative|ha|ha_fast|affinity (default ha); a Connect scenario: "
        "eager|compatible|sessioned|as-configured (default sessioned); a consumer group: "
        "eager|cooperative|kip848 (default kip848)",
    )
    p.add_argument("--compare", action="store_true", help="run every protocol and print a metrics table")
    p.add_argument(
        "--protocols",
        help=f"comma-separated protocols for --compare (default {','.join(DEFAULT_COMPARE)}; "
        'a Connect scenario: its "protocols", e.g. eager,sessioned)',
    )
    p.add_argument("--out", help="output directory (default simulate-out/<scenario>)")
    p.add_argument("--seed", type=int_range(), help="override the scenario's seed")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG/HTML pictures")
    p.add_argument("--no-frames", action="store_true", help="do not keep or write the recorded frames")
    p.add_argument("--json", action="store_true", help="print the metrics as JSON instead of a table")
    p.set_defaults(func=run)
    return p


def format_table(metrics: list[dict]) -> str:
    return format_metrics_table(metrics, TABLE_COLUMNS)


def _is_connect(source, is_connect_scenario) -> bool:
    try:
        return is_connect_scenario(loads(read_whole(source, "").decode("utf-8")))
    except (OSError, ValueError, RecursionError):
        return False  # load_scenario reports it


def _kind(source) -> str | None:
    try:
        data = loads(read_whole(source, "").decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None  # load_scenario reports it
    return data.get("kind") if isinstance(data, dict) and isinstance(data.get("kind"), str) else None


def run(args) -> int:
    from dataclasses import replace

    from .protocol_runs import run_protocols

    from .engine import simulate
    from .leader import PROTOCOLS
    from .plots import plot_compare, plot_run, write_html
    from .scenario import ScenarioError, bundled_examples, example_path, load_scenario

    if args.list_examples:
        for name in bundled_examples():
            print(name)
        return 0
    try:
        if args.example and args.scenario:
            raise ScenarioError("give a scenario file or --example, not both")
        if not args.example and not args.scenario:
            raise ScenarioError("give a scenario file or --example NAME (see --list-examples)")
        source = example_path(args.example) if args.example else args.scenario
    except ScenarioError as e:
        print(f"rebalance-codec simulate: {e}", file=sys.stderr)
        return 2
    from .connect import is_connect_scenario

    if _kind(source) == "consumer":  # "kind": "consumer": a plain consumer group (issue #44)
        from .consumer_command import run_consumer

        return run_consumer(args, source)
    if _is_connect(source, is_connect_scenario):  # "kind": "connect": Kafka Connect workers (issue #18)
        return run_connect(args, source)
    try:
        scenario = load_scenario(source)
    except ScenarioError as e:  # the file's fault, not the command line's
        print(f"error: {_text.printable(str(e))}", file=sys.stderr)
        return 1
    if args.seed is not None:
        scenario = replace(scenario, seed=args.seed)
    if args.compare:
        names = [p.strip() for p in (args.protocols or ",".join(DEFAULT_COMPARE)).split(",") if p.strip()]
    else:
        names = [args.protocol or "ha"]
    unknown = [n for n in names if n not in PROTOCOLS]
    if unknown:
        print(f"rebalance-codec simulate: unknown protocol(s) {', '.join(unknown)}", file=sys.stderr)
        return 2
    return run_protocols(
        args,
        scenario,
        names,
        simulate=simulate,
        label=lambda n: PROTOCOLS[n].label,
        plot_run=plot_run,
        plot_compare=plot_compare,
        write_html=write_html,
        format_table=format_table,
    )


def run_connect(args, source: str | Path) -> int:
    """``rebalance-codec simulate`` on a Connect scenario (``"kind": "connect"``)."""
    from .connect import CONNECT_PROTOCOLS, format_connect_table, load_connect_scenario, simulate_connect
    from .connect_plots import plot_connect_compare, plot_connect_run, write_connect_html
    from .protocol_runs import kind_protocols, run_protocols

    picked = kind_protocols(
        args, source, load_connect_scenario, CONNECT_PROTOCOLS, lambda sc: sc.protocols[-1], "a Connect", "Connect's"
    )
    if isinstance(picked, int):
        return picked
    scenario, names = picked
    return run_protocols(
        args,
        scenario,
        names,
        simulate=simulate_connect,
        label=CONNECT_PROTOCOLS.__getitem__,
        plot_run=plot_connect_run,
        plot_compare=plot_connect_compare,
        write_html=write_connect_html,
        format_table=format_connect_table,
        compare_extra={"kind": "connect"},
    )
