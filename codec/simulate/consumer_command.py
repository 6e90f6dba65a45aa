"""``rebalance-codec simulate`` on a consumer group scenario (``"kind": "consumer"``, issue #44)."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import text as _text

__all__ = ["run_consumer"]


def run_consumer(args, source: str | Path, run_protocols) -> int:
    from dataclasses import replace

    from .consumer import CONSUMER_PROTOCOLS, format_consumer_table, load_consumer_scenario, simulate_consumer
    from .consumer_plots import plot_consumer_compare, plot_consumer_run, write_consumer_html
    from .scenario import ScenarioError

    try:
        scenario = load_consumer_scenario(source)
    except ScenarioError as e:
        print(f"error: {_text.printable(str(e))}", file=sys.stderr)
        return 1
    if args.seed is not None:
        scenario = replace(scenario, seed=args.seed)
    if args.compare:
        names = (
            [p.strip() for p in args.protocols.split(",") if p.strip()] if args.protocols else list(scenario.protocols)
        )
    else:
        names = [args.protocol or "kip848"]
    unknown = [n for n in names if n not in CONSUMER_PROTOCOLS]
    if unknown or not names:
        print(
            f"rebalance-codec simulate: unknown protocol(s) {', '.join(unknown)} for a consumer group scenario "
            f"(a consumer group's: {', '.join(CONSUMER_PROTOCOLS)})",
            file=sys.stderr,
        )
        return 2

    def label(name: str) -> str:
        return f"{name} ({scenario.protocol_assignor(name)})"

    from ..assignor.consumer import AssignmentError

    try:
        return run_protocols(
            args,
            scenario,
            names,
            simulate=simulate_consumer,
            label=label,
            plot_run=plot_consumer_run,
            plot_compare=plot_consumer_compare,
            write_html=write_consumer_html,
            format_table=format_consumer_table,
            compare_extra={"kind": "consumer"},
        )
    except AssignmentError as e:  # where Kafka's assignor throws (the sticky one's quirk), with Kafka's message
        print(f"error: the assignor failed: {_text.printable(str(e))}", file=sys.stderr)
        return 1
