"""The run summary as JSON and as one self-contained HTML page (inline SVG charts, no scripts, no
network): version distribution over time, decode error rate, rebalances per group, findings by kind.
Pure Python: the job collects the small aggregates on the driver and hands them here."""

from __future__ import annotations

import html
import json

__all__ = ["render_json", "render_html"]

_PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
            "#9c755f", "#bab0ac", "#1f77b4", "#2ca02c")


def render_json(summary: dict) -> str:
    return json.dumps(summary, indent=2, sort_keys=False, default=str) + "\n"


def _esc(x) -> str:
    return html.escape(str(x))


def _bars(items: list[tuple[str, float]], *, width: int = 640, unit: str = "") -> str:
    """Horizontal bar chart."""
    if not items:
        return "<p class=empty>none</p>"
    bar_h, label_w = 18, 220
    top = max(v for _, v in items) or 1
    h = bar_h * len(items) + 4
    parts = [f'<svg width="{width}" height="{h}" role="img">']
    for i, (label, v) in enumerate(items):
        y = i * bar_h + 2
        w = (width - label_w - 70) * (v / top)
        parts.append(f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end">{_esc(label)[:34]}</text>'
                     f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h - 4}" fill="{_PALETTE[0]}"/>'
                     f'<text x="{label_w + w + 4:.1f}" y="{y + 13}">{v:g}{unit}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _stacked(series: dict[str, dict[str, int]], *, width: int = 640, height: int = 220) -> str:
    """Stacked columns: x = date, stacks = version."""
    dates = sorted(series)
    if not dates:
        return "<p class=empty>no timestamped members</p>"
    keys = sorted({k for d in dates for k in series[d]}, key=lambda k: (len(k), k))
    top = max(sum(series[d].values()) for d in dates) or 1
    left, bottom = 40, 40
    col_w = max(4, (width - left - 10) / len(dates))
    out = [f'<svg width="{width}" height="{height + 24}" role="img">']
    for i, d in enumerate(dates):
        x, y = left + i * col_w, height - bottom
        for j, k in enumerate(keys):
            n = series[d].get(k, 0)
            if not n:
                continue
            h = (height - bottom - 10) * n / top
            y -= h
            out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{col_w * 0.8:.1f}" height="{h:.1f}" '
                       f'fill="{_PALETTE[j % len(_PALETTE)]}"><title>{_esc(d)} v{_esc(k)}: {n}</title></rect>')
        if len(dates) <= 16 or i % max(1, len(dates) // 8) == 0:
            out.append(f'<text x="{x:.1f}" y="{height - bottom + 14}" font-size="10">{_esc(d)}</text>')
    out.append(f'<text x="0" y="12" font-size="10">{top}</text>')
    for j, k in enumerate(keys):
        out.append(f'<rect x="{left + j * 56}" y="{height}" width="10" height="10" '
                   f'fill="{_PALETTE[j % len(_PALETTE)]}"/><text x="{left + j * 56 + 14}" y="{height + 9}" '
                   f'font-size="11">v{_esc(k)}</text>')
    out.append("</svg>")
    return "".join(out)


def _table(rows: list[dict], cols: list[str]) -> str:
    if not rows:
        return "<p class=empty>none</p>"
    head = "".join(f"<th>{_esc(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{_esc(r.get(c, ''))}</td>" for c in cols) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def render_html(summary: dict) -> str:
    c = summary["counts"]
    charts = summary.get("charts", {})
    versions = charts.get("versions_by_date", {})
    errors = charts.get("error_rate_by_date", [])
    err_items = [(e["date"], round(100.0 * e["quarantined"] / e["records"], 2) if e["records"] else 0.0)
                 for e in errors]
    reb = [(r["group"], r["generations"]) for r in charts.get("rebalances_per_group", [])]
    fnd = [(k, v) for k, v in summary.get("findings_by_check", {}).items()]
    ok = c["records_read"] == c["not_selected"] + c["decoded"] + c["quarantined"]
    reasons = [{"reason": k, "records": v} for k, v in (summary.get("not_selected_by_reason") or {}).items()]
    tables = "".join(f"<tr><td>{_esc(k)}</td><td>{v}</td><td><code>{_esc(summary['output'])}/{_esc(k)}</code></td></tr>"
                     for k, v in summary.get("tables", {}).items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rebalance-codec pipeline report</title>
<style>
body{{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:980px;color:#222}}
h1{{font-size:1.5em}} h2{{font-size:1.15em;margin-top:1.8em;border-bottom:1px solid #ddd}}
table{{border-collapse:collapse}} td,th{{border:1px solid #ddd;padding:3px 8px;text-align:left}}
svg text{{font-size:11px;fill:#333}} .ok{{color:#2a7a2a}} .bad{{color:#b00}} .empty{{color:#888}}
code{{font-size:12px}}
</style></head><body>
<h1>rebalance-codec pipeline report</h1>
<p>{_esc(summary.get('started', ''))} &middot; {summary.get('seconds', 0):.1f} s &middot; Spark
<code>{_esc(summary.get('spark', {}).get('master', ''))}</code> &middot; inputs:
{', '.join('<code>' + _esc(i) + '</code>' for i in summary.get('inputs', []))}</p>
<h2>Records</h2>
<table><tr><th>read</th><th>not selected</th><th>decoded</th><th>quarantined</th><th>check</th></tr>
<tr><td>{c['records_read']}</td><td>{c['not_selected']}</td><td>{c['decoded']}</td>
<td>{c['quarantined']}</td><td class="{'ok' if ok else 'bad'}">read = not selected + decoded + quarantined:
{'holds' if ok else 'FAILS'}</td></tr></table>
<p>Every record read is counted once. A decoded record's units feed the tables (a subscription gives a
<code>members</code> row and its <code>task_lags</code> rows, a Kafka Connect worker's metadata or assignment a
<code>connect</code> row); a quarantined one is one <code>quarantine</code> row.</p>
<h2>Not selected (read, not input to the decoder)</h2>{_table(reasons, ['reason', 'records'])}
<h2>Tables</h2><table><tr><th>table</th><th>rows</th><th>path</th></tr>{tables}</table>
<h2>Subscription metadata versions over time</h2>{_stacked(versions)}
<h2>Decode error rate (% of records quarantined, by day)</h2>{_bars(err_items, unit='%')}
<h2>Rebalances (generations observed) per group</h2>{_bars(reb)}
<h2>Findings by check</h2>{_bars(fnd)}
<h2>Quarantine by error type</h2>{_table(summary.get('quarantine_by_type', []), ['error_type', 'kind', 'records'])}
<h2>First findings</h2>{_table(summary.get('sample_findings', []),
                               ['group', 'generation', 'check', 'severity', 'task', 'member', 'detail'])}
</body></html>
"""
