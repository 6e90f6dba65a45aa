"""The run summary as JSON and as one self-contained HTML page (inline SVG charts, no scripts, no
network): version distribution over time, decode error rate, rebalances per group and by cause, rebalances per
minute (the storm chart), findings by kind.
Pure Python: the job collects the small aggregates on the driver and hands them here."""

from __future__ import annotations

import datetime
import html
import json
import math
import unicodedata
from collections.abc import Mapping, Sequence

__all__ = ["render_json", "render_html"]

_PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#1f77b4",
    "#2ca02c",
)


def render_json(summary: dict) -> str:
    return json.dumps(summary, indent=2, sort_keys=False, default=str) + "\n"


def _esc(x) -> str:
    return html.escape(str(x))


#: Rows of a table shown before the rest is folded away (a <details> element the reader opens).
TABLE_ROWS_SHOWN = 10


def _cell(v) -> str:
    """A table cell: an empty value (null in the job's summary) is an empty cell, never the word ``None``."""
    return "" if v is None else _esc(v)


#: Layout of the charts' labels: tick, value and legend labels are drawn at _FONT px, and no character of the
#: page's sans-serif font is wider than _CHAR_W px at that size (East Asian wide characters count twice); the
#: report's screenshot test measures the drawn labels (tests/pipeline/test_report_charts.py).
_FONT = 11
_CHAR_W = 7.0


def _char_width(ch: str) -> float:
    return _CHAR_W * (2 if unicodedata.east_asian_width(ch) in "WF" else 1)


def _text_width(text: str) -> float:
    return sum(map(_char_width, text))


def _clip(text: str, width: float) -> str:
    """``text`` cut (with an ellipsis) to what fits in ``width`` px, in one pass (a group id may be 32,767
    characters long)."""
    if _text_width(text) <= width:
        return text
    room, used = width - _char_width("…"), 0.0
    for i, ch in enumerate(text):
        used += _char_width(ch)
        if used > room:
            return text[:i] + "…"
    return text


def _fmt(v: float) -> str:
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.4g}"


def _ticks(top: float, *, integer: bool = False) -> list[float]:
    """Axis ticks from 0 to at least ``top``: up to five steps of 1, 2 or 5 times a power of ten (whole steps
    for counts)."""
    top = top if top > 0 else 1
    raw = top / 4
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    step = max(step, 1) if integer else step
    return [i * step for i in range(math.ceil(top / step - 1e-9) + 1)]


def _bars(items: list[tuple[str, float]], *, category: str, value: str, width: int = 720, unit: str = "") -> str:
    """Horizontal bars, one per item: the category axis (its title above the labels) and the value axis (its
    title under the bars); labels too long for their column are cut, whole in the bar's tooltip."""
    if not items:
        return "<p class=empty>none</p>"
    bar_h, label_w, top_pad = 18, 220, 18
    top = max(v for _, v in items) or 1
    h = top_pad + bar_h * len(items) + 30
    parts = [
        f'<svg width="{width}" height="{h}" role="img">',
        f'<text class="axis-title" x="{label_w - 6}" y="12" text-anchor="end">{_esc(category)}</text>',
    ]
    for i, (label, v) in enumerate(items):
        y = top_pad + i * bar_h
        w = (width - label_w - 80) * (v / top)
        parts.append(
            f'<text class="category" x="{label_w - 6}" y="{y + 13}" text-anchor="end">'
            f"{_esc(_clip(str(label), label_w - 12))}<title>{_esc(label)}</title></text>"
            f'<rect x="{label_w}" y="{y + 2}" width="{w:.1f}" height="{bar_h - 4}" fill="{_PALETTE[0]}">'
            f"<title>{_esc(label)}: {_fmt(v)}{unit}</title></rect>"
            f'<text class="value" x="{label_w + w + 4:.1f}" y="{y + 13}">{_fmt(v)}{unit}</text>'
        )
    parts.append(f'<text class="axis-title" x="{label_w}" y="{h - 8}">{_esc(value)}</text></svg>')
    return "".join(parts)


def _columns(
    dates: list[str],
    layers: Sequence[tuple[str, Mapping[str, float]]],
    *,
    y_title: str,
    width: int = 720,
    height: int = 200,
    unit: str = "",
    legend: bool = True,
    integer: bool = False,
    x_title: str = "date (UTC",
    x_unit: str = "days",
) -> str:
    """Columns over time, one per date, stacked by layer: a y axis with ticks, gridlines and its title, date
    labels thinned to those that fit side by side, the x axis title, and the legend in rows. ``x_title`` and
    ``x_unit`` name the columns (days by default; minutes for the storm chart)."""
    if not dates:
        return "<p class=empty>no dates</p>"
    left, right, top_pad = 64, 44, 10
    plot_w, bottom = width - left - right, top_pad + height
    ticks = _ticks(max(sum(layer.get(d, 0) for _, layer in layers) for d in dates), integer=integer)
    y_max = ticks[-1]
    col_w = min(plot_w / len(dates), 80.0)
    gap = min(2.0, col_w * 0.2) if col_w > 3 else 0.0
    out = []
    for t in ticks:
        y = bottom - height * t / y_max
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e4e4e4"/>'
            f'<text class="y-tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{_fmt(t)}{unit}</text>'
        )
    for i, d in enumerate(dates):
        y, x = bottom, left + i * col_w + gap / 2
        for j, (name, layer) in enumerate(layers):
            n = layer.get(d, 0)
            if not n:
                continue
            h = height * n / y_max
            y -= h
            out.append(
                f'<rect x="{x:.2f}" y="{y:.2f}" width="{max(col_w - gap, 0.5):.2f}" height="{h:.2f}" '
                f'fill="{_PALETTE[j % len(_PALETTE)]}"><title>{_esc(d)} {_esc(name)}: {_fmt(n)}{unit}</title>'
                f"</rect>"
            )
    step = max(1, math.ceil((max(_text_width(d) for d in dates) + 8) / col_w))
    for i in range(0, len(dates), step):
        x = left + (i + 0.5) * col_w
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{bottom}" y2="{bottom + 4}" stroke="#999"/>'
            f'<text class="x-tick" x="{x:.1f}" y="{bottom + 19}" text-anchor="middle">{_esc(dates[i])}</text>'
        )
    out.append(
        f'<line x1="{left}" x2="{left + plot_w}" y1="{bottom}" y2="{bottom}" stroke="#999"/>'
        f'<text class="axis-title" x="{left + plot_w / 2:.1f}" y="{bottom + 38}" text-anchor="middle">'
        f"{_esc(x_title)}{', every ' + str(step) + ' ' + x_unit + ' labelled' if step > 1 else ''})</text>"
        f'<text class="axis-title" transform="rotate(-90)" x="{-(top_pad + height / 2):.1f}" y="14" '
        f'text-anchor="middle">{_esc(y_title)}</text>'
    )
    rows_y = bottom + 58
    if legend:
        x = left
        for j, (name, _) in enumerate(layers):
            w = 14 + _text_width(name) + 18
            if x + w > left + plot_w and x > left:
                x, rows_y = left, rows_y + 18
            out.append(
                f'<rect x="{x:.1f}" y="{rows_y - 9}" width="10" height="10" fill="{_PALETTE[j % len(_PALETTE)]}"/>'
                f'<text class="legend" x="{x + 14:.1f}" y="{rows_y}">{_esc(name)}</text>'
            )
            x += w
    total = (rows_y + 10) if legend else bottom + 46
    return f'<svg width="{width}" height="{total:.0f}" role="img">{"".join(out)}</svg>'


def _days(keys) -> list[str]:
    """The x axis of a chart by day: every day from the first to the last (a day without records is an empty
    column, not a missing one), then any key that is not a date (``unknown``)."""
    days, other = [], []
    for k in keys:
        try:
            days.append(datetime.date.fromisoformat(k))
        except (TypeError, ValueError):
            other.append(k)
    if days:
        first, last = min(days), max(days)
        days = [first + datetime.timedelta(i) for i in range((last - first).days + 1)]
    return [d.isoformat() for d in days] + sorted(other)


def _versions_chart(series: dict[str, dict[str, int]]) -> str:
    """Members (subscriptions decoded) per date, stacked by their metadata version."""
    dates = _days(series)
    keys = sorted({k for counts in series.values() for k in counts}, key=lambda k: (len(k), k))
    layers = [(f"v{k}", {d: counts.get(k, 0) for d, counts in series.items()}) for k in keys]
    return _columns(dates, layers, y_title="members (subscriptions)", integer=True)


def _error_rate_chart(errors: list[dict]) -> str:
    """The share of each day's records that were quarantined."""
    rate = {e["date"]: round(100.0 * e["quarantined"] / e["records"], 2) if e["records"] else 0.0 for e in errors}
    return _columns(_days(rate), [("quarantined", rate)], y_title="% of the day's records", unit="%", legend=False)


def _cause_bars(rows: list[dict], width: int = 720) -> str:
    """Each group's rebalances as one horizontal bar, split by cause (:mod:`codec.causes`' kinds), with a legend
    of the causes present; each part's tooltip says the group, the cause and how many."""
    groups: dict[str, dict[str, int]] = {}
    for r in rows:
        groups.setdefault(str(r["group"]), {})[str(r["cause"])] = int(r["rebalances"])
    if not groups:
        return "<p class=empty>none</p>"
    causes = sorted(
        {c for g in groups.values() for c in g}, key=lambda c: (-sum(g.get(c, 0) for g in groups.values()), c)
    )
    colour = {c: _PALETTE[i % len(_PALETTE)] for i, c in enumerate(causes)}
    order = sorted(groups, key=lambda g: (-sum(groups[g].values()), g))
    bar_h, label_w, top_pad = 18, 220, 18
    top = max(sum(g.values()) for g in groups.values()) or 1
    h = top_pad + bar_h * len(order) + 30
    parts = [f'<text class="axis-title" x="{label_w - 6}" y="12" text-anchor="end">group</text>']
    for i, name in enumerate(order):
        y, x = top_pad + i * bar_h, float(label_w)
        parts.append(
            f'<text class="category" x="{label_w - 6}" y="{y + 13}" text-anchor="end">'
            f"{_esc(_clip(name, label_w - 12))}<title>{_esc(name)}</title></text>"
        )
        for c in causes:
            n = groups[name].get(c, 0)
            if n:
                w = (width - label_w - 80) * n / top
                parts.append(
                    f'<rect x="{x:.1f}" y="{y + 2}" width="{w:.1f}" height="{bar_h - 4}" fill="{colour[c]}">'
                    f"<title>{_esc(name)}: {_fmt(n)} {_esc(c)}</title></rect>"
                )
                x += w
        parts.append(f'<text class="value" x="{x + 4:.1f}" y="{y + 13}">{_fmt(sum(groups[name].values()))}</text>')
    parts.append(f'<text class="axis-title" x="{label_w}" y="{h - 8}">rebalances, by cause</text>')
    legend_y, x = h + 8, float(label_w)
    for c in causes:
        w = 14 + _text_width(c) + 18
        if x + w > width and x > label_w:
            x, legend_y = float(label_w), legend_y + 18
        parts.append(
            f'<rect x="{x:.1f}" y="{legend_y - 9}" width="10" height="10" fill="{colour[c]}"/>'
            f'<text class="legend" x="{x + 14:.1f}" y="{legend_y}">{_esc(c)}</text>'
        )
        x += w
    return f'<svg width="{width}" height="{legend_y + 10}" role="img">{"".join(parts)}</svg>'


def _storm_chart(rows: list[dict]) -> str:
    """Rebalances per minute, stacked by group, over the busiest minutes (a storm is a tall column: the loop and
    storm detectors' ``rebalance-storm`` finding counts ten in a minute)."""
    minutes = sorted({str(r["minute"]) for r in rows})
    layers: dict[str, dict[str, float]] = {}
    for r in rows:
        layers.setdefault(str(r["group"]), {})[str(r["minute"])] = r["rebalances"]
    ordered = sorted(layers.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
    return _columns(
        minutes, ordered, y_title="rebalances in the minute", integer=True, x_title="minute (UTC", x_unit="minutes"
    )


def _table(rows: list[dict], cols: list[str]) -> str:
    if not rows:
        return "<p class=empty>none</p>"
    head = "<tr>" + "".join(f"<th>{_esc(c)}</th>" for c in cols) + "</tr>"

    def body(part: list[dict]) -> str:
        return "".join("<tr>" + "".join(f"<td>{_cell(r.get(c))}</td>" for c in cols) + "</tr>" for r in part)

    shown = f"<table>{head}{body(rows[:TABLE_ROWS_SHOWN])}</table>"
    rest = rows[TABLE_ROWS_SHOWN:]
    if not rest:
        return shown
    return (
        f"{shown}<details><summary>{len(rest):,} more row{'s' if len(rest) != 1 else ''} "
        f"(of {len(rows):,})</summary><table>{head}{body(rest)}</table></details>"
    )


def render_html(summary: dict) -> str:
    c = summary["counts"]
    charts = summary.get("charts", {})
    versions = charts.get("versions_by_date", {})
    errors = charts.get("error_rate_by_date", [])
    reb = [(r["group"], r["generations"]) for r in charts.get("rebalances_per_group", [])]
    fnd = [(k, v) for k, v in summary.get("findings_by_check", {}).items()]
    ok = c["records_read"] == c["not_selected"] + c["decoded"] + c["quarantined"]
    reasons = [{"reason": k, "records": v} for k, v in (summary.get("not_selected_by_reason") or {}).items()]
    tables = "".join(
        f"<tr><td>{_esc(k)}</td><td>{v}</td><td><code>{_esc(summary['output'])}/{_esc(k)}</code></td></tr>"
        for k, v in summary.get("tables", {}).items()
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rebalance-codec pipeline report</title>
<style>
body{{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:980px;color:#222}}
h1{{font-size:1.5em}} h2{{font-size:1.15em;margin-top:1.8em;border-bottom:1px solid #ddd}}
table{{border-collapse:collapse}} td,th{{border:1px solid #ddd;padding:3px 8px;text-align:left}}
svg text{{font-size:{
        _FONT
    }px;fill:#333}} svg .axis-title{{font-weight:600;fill:#555}} .ok{{color:#2a7a2a}} .bad{{color:#b00}} .empty{{color:#888}}
code{{font-size:12px}}
</style></head><body>
<h1>rebalance-codec pipeline report</h1>
<p>{_esc(summary.get("started", ""))} &middot; {summary.get("seconds", 0):.1f} s &middot; Spark
<code>{_esc(summary.get("spark", {}).get("master", ""))}</code> &middot; inputs:
{", ".join("<code>" + _esc(i) + "</code>" for i in summary.get("inputs", []))}</p>
<h2>Records</h2>
<table><tr><th>read</th><th>not selected</th><th>decoded</th><th>quarantined</th><th>check</th></tr>
<tr><td>{c["records_read"]}</td><td>{c["not_selected"]}</td><td>{c["decoded"]}</td>
<td>{c["quarantined"]}</td><td class="{"ok" if ok else "bad"}">read = not selected + decoded + quarantined:
{"holds" if ok else "FAILS"}</td></tr></table>
<p>Every record read is counted once. A decoded record's units feed the tables (a subscription gives a
<code>members</code> row and its <code>task_lags</code> rows, a Kafka Connect worker's metadata or assignment a
<code>connect</code> row); a quarantined one is one <code>quarantine</code> row.</p>
<h2>Not selected (read, not input to the decoder)</h2>{_table(reasons, ["reason", "records"])}
<h2>Tables</h2><table><tr><th>table</th><th>rows</th><th>path</th></tr>{tables}</table>
<h2>Subscription metadata versions over time</h2>{_versions_chart(versions)}
<h2>Decode error rate (% of records quarantined, by day)</h2>{_error_rate_chart(errors)}
<h2>Rebalances (generations observed) per group</h2>{_bars(reb, category="group", value="generations observed")}
<h2>Rebalances by cause, per group</h2>{_cause_bars(charts.get("rebalances_by_cause", []))}
<p>Why each generation (or Kafka 4 epoch) formed: the <code>rebalances</code> table's <code>cause</code> (the main
one) and <code>causes</code>, in the vocabulary of the captures guide.</p>
<h2>Rebalances per minute (the busiest minutes)</h2>{_storm_chart(charts.get("rebalances_per_minute", []))}
<h2>Findings by check</h2>{_bars(fnd, category="check", value="findings")}
<h2>Quarantine by error type</h2>{_table(summary.get("quarantine_by_type", []), ["error_type", "kind", "records"])}
<h2>First findings</h2>{
        _table(
            summary.get("sample_findings", []), ["group", "generation", "check", "severity", "task", "member", "detail"]
        )
    }
</body></html>
"""
