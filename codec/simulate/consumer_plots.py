"""Pictures of a consumer group run (issue #44), as :mod:`codec.simulate.connect_plots` draws Connect runs: each
partition's availability over time (one row a partition, coloured by the member consuming it, red where nobody
does), the unavailable partitions below it with the rebalances and events, and the protocols compared (partitions
unavailable over time, and the main metrics as bars). PNG, and an HTML page with the same figures as inline SVG.
Needs matplotlib (the ``plots`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .consumer_ledger import CONSUMER_TABLE_COLUMNS
from .metrics import format_value
from .plots import _despine, _panel, _plt, _save, _steps, protocols_figure, write_html

__all__ = ["plot_consumer_compare", "plot_consumer_run", "write_consumer_html", "MAX_PARTITION_ROWS_DRAWN"]

PROTOCOL_COLORS = {"eager": "#c62828", "cooperative": "#ef6c00", "kip848": "#2e7d32"}
UNAVAILABLE = "#d32f2f"
MAX_PARTITION_ROWS_DRAWN = 200
_PALETTE = ["#1565c0", "#2e7d32", "#6a1b9a", "#00838f", "#9e9d24", "#4e342e", "#ad1457", "#283593", "#558b2f",
            "#00695c", "#5d4037", "#37474f"]  # fmt: skip


def run_figure(result: dict):
    plt = _plt()
    tl = result["timeline"]
    end = tl["end_s"]
    rows = tl.get("partitions") or {}
    names = list(rows)[:MAX_PARTITION_ROWS_DRAWN]
    members = list(tl["instances"])
    colours = {m: _PALETTE[i % len(_PALETTE)] for i, m in enumerate(members)}
    n = len(names)
    fig, (ax, bx) = plt.subplots(
        2, 1, figsize=(11, 2.5 + min(n, 60) * 0.12 + 3), dpi=110, sharex=True,
        gridspec_kw={"height_ratios": [max(2.0, min(n, 60) * 0.12), 3]},
    )  # fmt: skip
    for y, name in enumerate(names):
        spans = rows[name]
        for k, (t0, who) in enumerate(spans):
            t1 = spans[k + 1][0] if k + 1 < len(spans) else end
            if t1 <= t0:
                continue
            colour = UNAVAILABLE if who is None else colours.get(who, "#757575")
            ax.broken_barh([(t0, t1 - t0)], (y - 0.4, 0.8), facecolors=colour, linewidth=0)
    ax.set_yticks(range(n))
    ax.set_yticklabels(names, fontsize=6 if n > 20 else 8)
    ax.set_ylim(-0.6, n - 0.4)
    ax.invert_yaxis()
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[m]) for m in members]
    handles.append(plt.Rectangle((0, 0), 1, 1, color=UNAVAILABLE))
    ax.legend(handles, members + ["nobody consumes it"], loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7,
              frameon=False)  # fmt: skip
    if len(rows) > n:
        ax.set_title(f"the first {n} of {len(rows)} partitions", fontsize=8)
    xs, ys = _steps(tl["unavailable"], lambda r: r["unassigned"], end)
    bx.fill_between(xs, 0, ys, step="post", color=UNAVAILABLE, alpha=0.8, linewidth=0, label="partitions unavailable")
    _panel(bx, tl, "partitions unavailable")
    bx.set_ylim(0, max(1, tl.get("partitions_total", 1)) * 1.05)
    _despine(ax, bx)
    m = result["metrics"]
    fig.suptitle(
        f"{result['scenario']} — {result['protocol']} ({result.get('assignor', '')}): {m['rebalances']} rebalances, "
        f"{m['unavailable_partition_s']:.0f} partition-s unavailable, at most {m['max_unavailable']} at once, "
        f"{m['moves']} moves",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 0.9, 0.96))
    return fig


def compare_figure(results: Sequence[dict]):
    return protocols_figure(
        results,
        unavailable=lambda x: x["unassigned"],
        ylabel="partitions unavailable",
        title=f"{results[0]['scenario']}: a consumer group, by rebalance protocol",
        metrics=[
            ("unavailable_partition_s", "unavailable,\npartition-s"),
            ("max_unavailable", "max\nunavailable"),
            ("revocations", "revocations"),
            ("moves", "moves"),
            ("time_to_stable_s", "stable\nafter, s"),
            ("rebalances", "rebalances"),
        ],
        colours=PROTOCOL_COLORS,
        line_label=lambda r: f"{r['protocol']} ({r.get('assignor', '')})",
        bar_legend=True,
    )


def plot_consumer_run(result: dict, out: Path, stem: str) -> tuple[Path, str]:
    png = out / f"{stem}.png"
    return png, _save(run_figure(result), png)


def plot_consumer_compare(results: Sequence[dict], out: Path, stem: str = "compare") -> tuple[Path, str]:
    png = out / f"{stem}.png"
    return png, _save(compare_figure(results), png)


def write_consumer_html(path: Path, title: str, description: str, results: Sequence[dict], svgs: Sequence[str]) -> Path:
    return write_html(path, title, description, results, svgs, columns=CONSUMER_TABLE_COLUMNS, fmt=format_value)
