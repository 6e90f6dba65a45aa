"""Pictures of a Connect run (issue #18), as :mod:`codec.simulate.plots` draws Streams runs: per-worker
connector and task strips with the rebalances and events, and the protocols compared (connectors and tasks not
running over time, and the main metrics as bars). PNG, and an HTML page with the same figures as inline SVG.
Needs matplotlib (the ``plots`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .metrics import CONNECT_TABLE_COLUMNS, format_value
from .plots import _finish, _panel, _run_frame, _run_title, _save, _steps, _strip_frame, protocols_figure, write_html

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_connect_compare", "plot_connect_run", "write_connect_html"]

COLORS = {"connectors": "#1565c0", "tasks": "#2e7d32", "down_tasks": "#c62828", "down_connectors": "#ef6c00"}
PROTOCOL_COLORS = {"eager": "#c62828", "compatible": "#ef6c00", "sessioned": "#2e7d32", "as-configured": "#1565c0"}


def run_figure(result: dict):
    tl = result["timeline"]
    end = tl["end_s"]
    fig, gs, names, hidden = _run_frame(tl)
    n = len(names)
    top = max((r["connectors"] + r["tasks"] for rows in tl["instances"].values() for r in rows), default=1) or 1
    axes: list[Axes] = []
    for i, name in enumerate(names):
        ax = fig.add_subplot(gs[i, 0], sharex=axes[0] if axes else None)
        axes.append(ax)
        rows = tl["instances"][name]
        xs, cs = _steps(rows, lambda r: r["connectors"], end)
        _, ts = _steps(rows, lambda r: r["tasks"], end)
        ax.fill_between(
            xs,
            0,
            cs,
            step="post",
            color=COLORS["connectors"],
            alpha=0.85,
            linewidth=0,
            label="connectors running" if i == 0 else None,
        )
        ax.fill_between(
            xs,
            cs,
            [c + t for c, t in zip(cs, ts)],
            step="post",
            color=COLORS["tasks"],
            alpha=0.85,
            linewidth=0,
            label="tasks running" if i == 0 else None,
        )
        _strip_frame(ax, name, top, tl)
    ax = fig.add_subplot(gs[n, 0], sharex=axes[0] if axes else None)
    rows = tl["unavailable"]
    xs, dt = _steps(rows, lambda r: r["tasks"], end)
    _, dc = _steps(rows, lambda r: r["connectors"], end)
    ax.fill_between(
        xs, 0, dt, step="post", color=COLORS["down_tasks"], alpha=0.8, linewidth=0, label="tasks not running"
    )
    ax.fill_between(
        xs,
        dt,
        [a + b for a, b in zip(dt, dc)],
        step="post",
        color=COLORS["down_connectors"],
        alpha=0.8,
        linewidth=0,
        label="connectors not running",
    )
    _panel(ax, tl, "connectors + tasks")
    m = result["metrics"]
    said = (
        f"{m['task_s_not_running']:.0f} task-s and {m['connector_s_not_running']:.0f} connector-s not running, "
        f"{m['task_moves']} task moves"
    )
    return _finish(fig, axes, n, _run_title(result, said), hidden, "workers")


def compare_figure(results: Sequence[dict]):
    return protocols_figure(
        results,
        unavailable=lambda x: x["tasks"] + x["connectors"],
        ylabel="connectors + tasks not running",
        title=f"{results[0]['scenario']}: Kafka Connect, by rebalance protocol",
        metrics=[
            ("task_s_not_running", "tasks not\nrunning, task-s"),
            ("connector_s_not_running", "connectors not\nrunning, s"),
            ("task_revocations", "task\nrevocations"),
            ("task_moves", "task moves"),
            ("time_to_balanced_s", "time until\nbalanced, s"),
            ("rebalances", "rebalances"),
        ],
        colours=PROTOCOL_COLORS,
    )


def plot_connect_run(result: dict, out: Path, stem: str) -> tuple[Path, str]:
    png = out / f"{stem}.png"
    return png, _save(run_figure(result), png)


def plot_connect_compare(results: Sequence[dict], out: Path, stem: str = "compare") -> tuple[Path, str]:
    png = out / f"{stem}.png"
    return png, _save(compare_figure(results), png)


def write_connect_html(path: Path, title: str, description: str, results: Sequence[dict], svgs: Sequence[str]) -> Path:
    return write_html(path, title, description, results, svgs, columns=CONNECT_TABLE_COLUMNS, fmt=format_value)
