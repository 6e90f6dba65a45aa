"""What ``rebalance-codec simulate`` does alike for Streams, Connect and consumer groups: pick a ``"kind"``
scenario's protocols, run it under each, and write the timelines, frames and pictures and print the table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import text as _text

__all__ = ["kind_protocols", "run_protocols"]


def run_protocols(
    args,
    scenario,
    names: list[str],
    *,
    simulate,
    label,
    plot_run,
    plot_compare,
    write_html,
    format_table,
    compare_extra: dict | None = None,
) -> int:
    """Run ``scenario`` under each protocol of ``names``, write each timeline, the frames and the pictures, and
    print the metrics table (or JSON): the part of ``simulate`` that Streams and Connect groups share."""
    from .plots import have_matplotlib

    out = Path(args.out) if args.out else Path("simulate-out") / scenario.name
    out.mkdir(parents=True, exist_ok=True)
    plots = not args.no_plots
    if plots and not have_matplotlib():
        print(
            "rebalance-codec simulate: matplotlib is not installed (pip install 'rebalance-codec[plots]'); "
            "writing no pictures",
            file=sys.stderr,
        )
        plots = False
    results, svgs, written = [], [], []
    for name in names:
        res = simulate(scenario, name, keep_frames=not args.no_frames, run=f"simulate-{scenario.name}")
        data = res.to_json()
        results.append(data)
        path = out / f"{name}.timeline.json"
        path.write_text(json.dumps(data, indent=1))
        written.append(path)
        if not args.no_frames:
            written.extend(res.recorder.write(out, f"{name}.frames"))
        if plots:
            png, svg = plot_run(data, out, name)
            written.append(png)
            written.append(
                write_html(out / f"{name}.html", f"{scenario.name}: {label(name)}", scenario.description, [data], [svg])
            )
            svgs.append(svg)
        for note in res.notes:
            print(f"note ({name}): {_text.printable(note)}", file=sys.stderr)
    if args.compare:
        (out / "compare.json").write_text(
            json.dumps(
                {"scenario": scenario.name, **(compare_extra or {}), "metrics": [r["metrics"] for r in results]},
                indent=1,
            )
        )
        written.append(out / "compare.json")
        if plots:
            png, svg = plot_compare(results, out)
            written.append(png)
            written.append(
                write_html(
                    out / "compare.html",
                    f"{scenario.name}: protocols compared",
                    scenario.description,
                    results,
                    [svg] + svgs,
                )
            )
    if args.json:
        print(json.dumps([r["metrics"] for r in results], indent=1))
    else:
        print(f"{scenario.name}: {scenario.description}" if scenario.description else scenario.name)
        print(format_table([r["metrics"] for r in results]))
        print(f"\nwrote {len(written)} files to {out}/")
    return 0


def kind_protocols(args, source: str | Path, load, protocols, default, what: str, whose: str):
    """A ``"kind"`` scenario (Connect, consumer group) read with ``load``, and the protocols of ``protocols`` to run
    it under: ``--protocols`` or the scenario's own with ``--compare``, else ``--protocol`` or ``default(scenario)``.
    Or the exit status, after one line on stderr: 1 for the file's fault, 2 for the command line's (``what``
    names the kind of scenario and ``whose`` its protocols in that line)."""
    from dataclasses import replace

    from .scenario import ScenarioError

    try:
        scenario = load(source)
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
        names = [args.protocol or default(scenario)]
    unknown = [n for n in names if n not in protocols]
    if unknown or not names:
        print(
            f"rebalance-codec simulate: unknown protocol(s) {', '.join(unknown)} for {what} scenario "
            f"({whose}: {', '.join(protocols)})",
            file=sys.stderr,
        )
        return 2
    return scenario, names
