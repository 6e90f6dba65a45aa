"""Pictures of a run: per-instance task timelines and unavailability over time (PNG, and an HTML page
with the same figures as inline SVG, no network resources). Needs matplotlib (the ``plots`` extra)."""

from __future__ import annotations

import html
import io
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Sequence

from .metrics import TABLE_COLUMNS

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["have_matplotlib", "plot_run", "plot_compare", "write_html", "MAX_INSTANCE_ROWS"]

MAX_INSTANCE_ROWS = 16
COLORS = {
    "active": "#2e7d32",
    "restoring": "#ef6c00",
    "standby": "#1565c0",
    "warmup": "#8e24aa",
    "unassigned": "#c62828",
}
PROTOCOL_COLORS = {"eager": "#c62828", "cooperative": "#ef6c00", "ha": "#2e7d32", "affinity": "#1565c0"}


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _steps(rows: list[dict], key, end: float) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for r in rows:
        xs.append(r["t"])
        ys.append(key(r))
    if xs and xs[-1] < end:
        xs.append(end)
        ys.append(ys[-1])
    return xs, ys


def _strip_scale(ax, top: float) -> None:
    """A strip's y scale: 0 and the strips' common top (every strip has the same), small, beside the strip's
    name."""
    ax.set_yticks([0, top])
    ax.set_yticklabels(["0", f"{top:g}"], fontsize=7)
    ax.tick_params(axis="y", length=3, pad=2)
    ax.yaxis.labelpad = 10


def _protocol_lines(ax, lines: Sequence[tuple[str, list[float], list[float], str | None]]) -> None:
    """One step line per protocol (name, xs, ys, colour); lines that would be drawn on top of each other are
    told apart: each drawn a little above the one before, dashed differently, and the legend says which it
    coincides with."""
    styles = ["-", "--", "-.", ":"]
    top = max((max(ys, default=0) for _, _, ys, _ in lines), default=0) or 1
    seen: dict[tuple, list[str]] = {}
    for i, (name, xs, ys, colour) in enumerate(lines):
        same = seen.setdefault((tuple(xs), tuple(ys)), [])
        lift = 0.015 * top * len(same)
        label = name + (f" (same as {' and '.join(same)}, drawn a little above)" if same else "")
        ax.step(
            xs,
            [y + lift for y in ys],
            where="post",
            linewidth=2.4 - 0.4 * (i % 4),
            linestyle=styles[i % 4],
            color=colour,
            label=label,
        )
        same.append(name)


def _instances_to_show(timeline: dict) -> tuple[list[str], int]:
    names = list(timeline["instances"])
    if len(names) <= MAX_INSTANCE_ROWS:
        return names, 0
    changed = sorted(names, key=lambda n: -len(timeline["instances"][n]))[:MAX_INSTANCE_ROWS]
    return [n for n in names if n in changed], len(names) - MAX_INSTANCE_ROWS


def run_figure(result: dict):
    """Top: one strip per instance (active processing / restoring / standby / warmup tasks, stacked);
    bottom: active tasks not processing, and warmups in flight, with the rebalances marked."""
    tl = result["timeline"]
    end = tl["end_s"]
    fig, gs, names, hidden = _run_frame(tl)
    n = len(names)
    top = (
        max(
            (
                r["active"] + r["restoring"] + r["standby"] + r["warmup"]
                for rows in tl["instances"].values()
                for r in rows
            ),
            default=1,
        )
        or 1
    )
    axes: list[Axes] = []
    for i, name in enumerate(names):
        ax = fig.add_subplot(gs[i, 0], sharex=axes[0] if axes else None)
        axes.append(ax)
        rows = tl["instances"][name]
        layers = [
            ("active", "active (processing)"),
            ("restoring", "active, restoring"),
            ("standby", "standby"),
            ("warmup", "warmup"),
        ]
        ys_prev = None
        for key, label in layers:
            xs, ys = _steps(rows, lambda r, k=key: r[k], end)
            base = ys_prev or [0] * len(ys)
            upper = [b + y for b, y in zip(base, ys)]
            ax.fill_between(
                xs,
                base,
                upper,
                step="post",
                color=COLORS[key],
                alpha=0.85,
                linewidth=0,
                label=label if i == 0 else None,
            )
            ys_prev = upper
        _strip_frame(ax, name, top, tl)
    ax = fig.add_subplot(gs[n, 0], sharex=axes[0] if axes else None)
    rows = tl["unavailable"]
    xs, unassigned = _steps(rows, lambda r: r["unassigned"], end)
    _, restoring = _steps(rows, lambda r: r["restoring"], end)
    _, warm = _steps(rows, lambda r: r["warmups"], end)
    ax.fill_between(
        xs,
        0,
        unassigned,
        step="post",
        color=COLORS["unassigned"],
        alpha=0.8,
        label="active tasks unassigned / revoked",
        linewidth=0,
    )
    ax.fill_between(
        xs,
        unassigned,
        [a + b for a, b in zip(unassigned, restoring)],
        step="post",
        color=COLORS["restoring"],
        alpha=0.8,
        label="active tasks restoring",
        linewidth=0,
    )
    ax.step(xs, warm, where="post", color=COLORS["warmup"], linewidth=1.5, label="warmup replicas in flight")
    _panel(ax, tl, "tasks")
    m = result["metrics"]
    said = f"{m['unavailable_task_s']:.0f} task-s unavailable ({m['restoring_task_s']:.0f} restoring)"
    return _finish(fig, axes, n, _run_title(result, said), hidden, "instances")


def _run_frame(tl: dict):
    """A run figure: a strip per member drawn (:func:`_instances_to_show`) above the unavailability panel; returns
    the figure, its grid, the members drawn and how many were left out."""
    names, hidden = _instances_to_show(tl)
    n = len(names)
    fig = _plt().figure(figsize=(11, 1.0 + 0.55 * n + 3.0), dpi=110)
    gs = fig.add_gridspec(n + 1, 1, height_ratios=[1] * n + [max(3, n * 0.35)], hspace=0.15)
    return fig, gs, names, hidden


def _panel(ax, tl: dict, ylabel: str) -> None:
    """A run figure's unavailability panel, once drawn: the marks, its axes' labels and range, its legend."""
    _marks(ax, tl)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel(ylabel)
    ax.set_xlim(0, tl["end_s"])
    ax.legend(loc="upper right", fontsize=8, frameon=False)


def _run_title(result: dict, said: str) -> str:
    """A Streams or Connect run figure's title: the scenario, the protocol, its rebalances, what ``said`` and when
    the group was balanced."""
    m = result["metrics"]
    return f"{result['scenario']} — {result['protocol']}: {m['rebalances']} rebalances, {said}, balanced after " + (
        f"{m['time_to_balanced_s']:.0f} s" if m["time_to_balanced_s"] is not None else "—"
    )


def _strip_frame(ax, name: str, top: float, tl: dict) -> None:
    """One member's strip of a run figure: its scale, its name, the rebalances dotted, no x labels."""
    ax.set_ylim(0, top * 1.1)
    _strip_scale(ax, top)
    ax.set_ylabel(name, rotation=0, ha="right", va="center", fontsize=9)
    for t in tl["rebalances_completed_s"]:
        ax.axvline(t, color="#9e9e9e", linewidth=0.5, linestyle=":")
    ax.tick_params(labelbottom=False)
    _despine(ax)


def _marks(ax, tl: dict) -> None:
    """A run figure's unavailability panel: the rebalances (dotted) and the scenario's events."""
    for k, t in enumerate(tl["rebalances_completed_s"]):
        ax.axvline(t, color="#616161", linewidth=0.6, linestyle=":", label="rebalance" if k == 0 else None)
    _events(ax, tl)


def _events(ax, tl: dict) -> None:
    """The scenario's events as labelled vertical lines."""
    for e in tl["events"]:
        ax.axvline(e["at"], color="black", linewidth=0.8)
        ax.annotate(
            e["event"], (e["at"], 1), xycoords=("data", "axes fraction"), fontsize=7, rotation=90, va="top", ha="right"
        )


def _finish(fig, axes, n: int, title: str, hidden: int, members: str):
    """A run figure's title (with how many ``members`` were left out), shared legend and margins."""
    if hidden:
        title += f"\n({hidden} {members} with the fewest changes not drawn)"
    fig.suptitle(title, fontsize=10)
    if axes:
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", ncol=4, fontsize=8, frameon=False, bbox_to_anchor=(0.5, 0.965))
    fig.subplots_adjust(left=0.1, right=0.98, top=0.9 if n else 0.85, bottom=0.08)
    return fig


def compare_figure(results: Sequence[dict]):
    """Unavailable active tasks over time, one line per protocol, and the main metrics as bars."""
    return protocols_figure(
        results,
        unavailable=lambda x: x["unassigned"] + x["restoring"],
        ylabel="active tasks not processing",
        title=f"{results[0]['scenario']}: unavailability by rebalance protocol",
        metrics=[
            ("unavailable_task_s", "unavailable\ntask-s"),
            ("restoring_task_s", "restoring\ntask-s"),
            ("lagging_restore_task_s", "restoring with a\ncaught-up replica\nelsewhere, task-s"),
            ("time_to_balanced_s", "time until\nbalanced, s"),
            ("rebalances", "rebalances"),
        ],
        colours=PROTOCOL_COLORS,
    )


def protocols_figure(
    results: Sequence[dict],
    *,
    unavailable: Callable[[dict], float],
    ylabel: str,
    title: str,
    metrics: Sequence[tuple[str, str]],
    colours: dict[str, str],
    line_label: Callable[[dict], str] = lambda r: r["protocol"],
    bar_legend: bool = False,
):
    """The protocols compared, for every kind of group: above, what is unavailable over time (``unavailable`` of a
    timeline's ``unavailable`` row), one line per run (``line_label``), with the scenario's events; below, the
    ``metrics`` (key, label) as bars, one per run, on a symlog scale."""
    plt = _plt()
    fig, (ax, bx) = plt.subplots(2, 1, figsize=(11, 7.5), dpi=110, gridspec_kw={"height_ratios": [3, 2]})
    end = max(r["timeline"]["end_s"] for r in results)
    lines = []
    for r in results:
        xs, ys = _steps(r["timeline"]["unavailable"], unavailable, end)
        lines.append((line_label(r), xs, ys, colours.get(r["protocol"])))
    _protocol_lines(ax, lines)
    _events(ax, results[0]["timeline"])
    ax.set_xlim(0, end)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=11)
    ax.legend(fontsize=9, frameon=False)
    width = 0.8 / len(results)
    for i, r in enumerate(results):
        vals = [float(r["metrics"][k] or 0) for k, _ in metrics]
        xs = [j + i * width for j in range(len(metrics))]
        bars = bx.bar(xs, vals, width, color=colours.get(r["protocol"]), label=r["protocol"])
        for b, v in zip(bars, vals):
            bx.annotate(f"{v:.0f}", (b.get_x() + b.get_width() / 2, v), ha="center", va="bottom", fontsize=7)
    bx.set_xticks([j + width * (len(results) - 1) / 2 for j in range(len(metrics))])
    bx.set_xticklabels([label for _, label in metrics], fontsize=8)
    bx.set_yscale("symlog", linthresh=10)
    bx.set_ylabel("value (symlog)")
    if bar_legend:
        bx.legend(fontsize=8, frameon=False)
    _despine(ax, bx)
    fig.tight_layout()
    return fig


def _despine(*axes) -> None:
    for a in axes:
        for s in ("top", "right"):
            a.spines[s].set_visible(False)


def _save(fig, png: Path) -> str:
    fig.savefig(png)
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    _plt().close(fig)
    svg = buf.getvalue()
    return svg[svg.index("<svg") :]


def plot_run(result: dict, out: Path, stem: str) -> tuple[Path, str]:
    png = out / f"{stem}.png"
    return png, _save(run_figure(result), png)


def plot_compare(results: Sequence[dict], out: Path, stem: str = "compare") -> tuple[Path, str]:
    png = out / f"{stem}.png"
    return png, _save(compare_figure(results), png)


def metrics_table_html(results: Sequence[dict], columns=None, fmt=None) -> str:
    """The metrics as an HTML table: ``columns`` (key, label) pairs, default the Streams table's; ``fmt`` formats
    a value (default: an em dash for none)."""
    if columns is None:
        columns = TABLE_COLUMNS
    fmt = fmt or _fmt
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in columns)
    rows = []
    for r in results:
        cells = "".join(f"<td>{html.escape(fmt(r['metrics'].get(k)))}</td>" for k, _ in columns)
        rows.append(f"<tr>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _fmt(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:,.1f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def write_html(
    path: Path, title: str, description: str, results: Sequence[dict], svgs: Sequence[str], *, columns=None, fmt=None
) -> Path:
    body = "\n".join(f"<figure>{svg}</figure>" for svg in svgs)
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1200px}} table{{border-collapse:collapse}}
td,th{{border:1px solid #bbb;padding:4px 8px;text-align:right}} th{{background:#eee}}
figure{{margin:1em 0}} svg{{max-width:100%;height:auto}}</style></head>
<body><h1>{html.escape(title)}</h1><p>{html.escape(description)}</p>
{metrics_table_html(results, columns, fmt)}
{body}
</body></html>
"""
    path.write_text(page)
    return path
