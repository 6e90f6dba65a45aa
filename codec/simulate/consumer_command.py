"""``rebalance-codec simulate`` on a consumer group scenario (``"kind": "consumer"``, issue #44)."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import text as _text

__all__ = ["run_consumer"]


def run_consumer(args, source: str | Path) -> int:
    from .consumer import CONSUMER_PROTOCOLS, format_consumer_table, load_consumer_scenario, simulate_consumer
    from .consumer_plots import plot_consumer_compare, plot_consumer_run, write_consumer_html
    from .protocol_runs import kind_protocols, run_protocols

    picked = kind_protocols(
        args,
        source,
        load_consumer_scenario,
        CONSUMER_PROTOCOLS,
        lambda sc: "kip848",
        "a consumer group",
        "a consumer group's",
    )
    if isinstance(picked, int):
        return picked
    scenario, names = picked

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
