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
        w = max((width - label_w - 80) * (v / top), _MIN_BAR if v else 0.0)
        parts.append(
            f'<text class="category" x="{label_w - 6}" y="{y + 13}" text-anchor="end">'
            f"{_esc(_clip(str(label), label_w - 12))}<title>{_esc(label)}</title></text>"
            f'<rect class="mark" x="{label_w}" y="{y + 2}" width="{w:.1f}" height="{bar_h - 4}" fill="{_PALETTE[0]}">'
            f"<title>{_esc(label)}: {_fmt(v)}{unit}</title></rect>"
            f'<text class="value" x="{label_w + w + 4:.1f}" y="{y + 13}">{_fmt(v)}{unit}</text>'
        )
    parts.append(f'<text class="axis-title" x="{label_w}" y="{h - 8}">{_esc(value)}</text></svg>')
    return "".join(parts)


#: The date axis (:func:`_date_axis`): columns are days, or weeks, months, quarters or years when days would be
#: narrower than _MIN_COL px; a stretch of more than _GAP[unit] empty columns (always less than a year) is cut out
#: of the axis (a break, drawn as a dashed line with what it skips in its tooltip); dates that are not dates
#: (``unknown``: records without a timestamp) are one column set apart at the right, labelled as such.
_UNITS = ("day", "week", "month", "quarter", "year")
_GAP = {"day": 14, "week": 8, "month": 5, "quarter": 1, "year": 0}
_MIN_COL = 8.0
#: A bar's least length: a group with 1 rebalance beside one with 900 is still a bar (its number is beside it)
_MIN_BAR = 5.0
_MAX_COL = 60.0
_BREAK = 24.0
_APART = 28.0


def _bin(d: datetime.date, unit: str) -> datetime.date:
    if unit == "day":
        return d
    if unit == "week":
        return d - datetime.timedelta(d.weekday())
    if unit == "month":
        return d.replace(day=1)
    if unit == "quarter":
        return d.replace(month=3 * ((d.month - 1) // 3) + 1, day=1)
    return d.replace(month=1, day=1)


def _next(b: datetime.date, unit: str) -> datetime.date:
    if unit in ("day", "week"):
        return b + datetime.timedelta(1 if unit == "day" else 7)
    months = {"month": 1, "quarter": 3, "year": 12}[unit]
    m = b.month - 1 + months
    return b.replace(year=b.year + m // 12, month=m % 12 + 1)


def _label(b: datetime.date, unit: str) -> str:
    if unit in ("day", "week"):
        return b.isoformat()
    if unit == "month":
        return b.isoformat()[:7]
    if unit == "quarter":
        return f"{b.year} Q{(b.month - 1) // 3 + 1}"
    return str(b.year)


class _Axis:
    """Columns of a date axis: ``segments`` (runs of consecutive bins, each bin's first day), the ``unit``, each
    input key's column (``column``), and the keys that are not dates (``apart``)."""

    def __init__(self, keys, plot_w: float) -> None:
        days, self.apart = set(), []
        for k in keys:
            try:
                days.add(datetime.date.fromisoformat(str(k)))
            except ValueError:
                self.apart.append(str(k))
        self.apart.sort()
        self.unit, self.segments = "day", []
        for unit in _UNITS:
            self.unit, self.segments = unit, self._segments(days, unit)
            if self.col_w(plot_w) >= _MIN_COL:
                break

    @staticmethod
    def _segments(days: set, unit: str) -> list[list[datetime.date]]:
        segments: list[list[datetime.date]] = []
        for b in sorted({_bin(d, unit) for d in days}):
            if segments:
                last = segments[-1][-1]
                fill: list[datetime.date] = []
                while (n := _next(last, unit)) < b and len(fill) <= _GAP[unit]:
                    fill.append(last := n)
                if len(fill) <= _GAP[unit]:
                    segments[-1] += [*fill, b]
                    continue
            segments.append([b])
        return segments

    def columns(self) -> int:
        return sum(map(len, self.segments)) + len(self.apart)

    def col_w(self, plot_w: float) -> float:
        segments = [[_label(b, self.unit) for b in seg] for seg in self.segments]
        return _col_width(segments, self.apart, plot_w)

    def column(self, key) -> str:
        try:
            return _label(_bin(datetime.date.fromisoformat(str(key)), self.unit), self.unit)
        except ValueError:
            return str(key)


def _reserve(seg: Sequence[str], other: bool = False) -> float:
    """The least width of a run of columns: room for its first label (``no date`` for the columns apart)."""
    return _text_width("no date" if other else seg[0]) + 10


def _col_width(segments: Sequence[Sequence[str]], apart: Sequence[str], plot_w: float) -> float:
    """One column's width: the room left by the breaks spread over the columns, each run (and the columns apart)
    at least as wide as its first label, no column wider than _MAX_COL."""
    runs = [(len(seg), _reserve(seg)) for seg in segments if seg] + (
        [(len(apart), _reserve(apart, True))] if apart else []
    )
    room = plot_w - _BREAK * max(len(segments) - 1, 0) - (_APART if apart and segments else 0)
    col_w = min(_MAX_COL, room / max(sum(n for n, _ in runs), 1))
    for _ in range(5):
        small = [(n, need) for n, need in runs if n * col_w < need]
        large = sum(n for n, need in runs if n * col_w >= need)
        if not large:
            break
        col_w = min(_MAX_COL, max(0.0, room - sum(need for _, need in small)) / large)
    return col_w


def _columns(
    segments: Sequence[Sequence[str]],
    layers: Sequence[tuple[str, Mapping[str, float]]],
    *,
    y_title: str,
    x_title: str,
    apart: Sequence[str] = (),
    width: int = 720,
    height: int = 200,
    unit: str = "",
    legend: bool = True,
    integer: bool = False,
    spans: Mapping[str, tuple[str, str]] | None = None,
    titles: Mapping[str, str] | None = None,
    floor: Mapping[str, str] | None = None,
) -> str:
    """Columns, stacked by layer, in ``segments`` (runs of consecutive columns; a break between two) and the
    ``apart`` columns set apart at the right (records without a date): a y axis with ticks, gridlines and its
    title, column labels placed where they fit (each segment's first one first), the x axis title and the
    legend in rows. Every column drawn is a mark (``class="mark"``) at least _MIN_COL px wide when the axis
    allows it; ``spans`` gives a date column's first and last day (``data-first``/``data-last``, for the
    screenshot test), ``titles`` a column's tooltip, ``floor`` a column with data but nothing to stack: a
    baseline mark with that tooltip (a day with records, none quarantined)."""
    spans, titles, floor = spans or {}, titles or {}, floor or {}
    cols = [c for seg in segments for c in seg] + list(apart)
    if not cols:
        return ""
    left, right, top_pad = 64, 44, 10
    plot_w, bottom = width - left - right, top_pad + height
    col_w = _col_width(segments, apart, plot_w)
    gap = min(2.0, col_w * 0.2) if col_w > 4 else 0.0
    ticks = _ticks(max(sum(layer.get(c, 0) for _, layer in layers) for c in cols), integer=integer)
    y_max = ticks[-1]
    out = []
    for t in ticks:
        y = bottom - height * t / y_max
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e4e4e4"/>'
            f'<text class="y-tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{_fmt(t)}{unit}</text>'
        )
    x_of: dict[str, float] = {}
    x = float(left)
    for k, seg in enumerate(segments):
        if k:
            mid = x + _BREAK / 2
            before, after = spans.get(segments[k - 1][-1], ("", ""))[1], spans.get(seg[0], ("", ""))[0]
            skipped = (
                f"no records from {before} to {after} (cut out of the axis)"
                if before and after
                else "columns without data cut out"
            )
            out.append(
                f'<g class="break"><title>{_esc(skipped)}</title>'
                f'<line x1="{mid:.1f}" x2="{mid:.1f}" y1="{top_pad}" y2="{bottom}" stroke="#bbb" '
                f'stroke-dasharray="3,3"/>'
                f'<path d="M{mid - 6:.1f},{bottom + 5} l4,-10 M{mid + 2:.1f},{bottom + 5} l4,-10" stroke="#777"/>'
                f"</g>"
            )
            x += _BREAK
        pad = max(0.0, _reserve(seg) - len(seg) * col_w) / 2
        x += pad
        for c in seg:
            x_of[c] = x
            x += col_w
        x += pad
    if apart:
        if segments:
            sep = x + _APART / 2
            out.append(f'<line x1="{sep:.1f}" x2="{sep:.1f}" y1="{top_pad}" y2="{bottom + 30}" stroke="#999"/>')
            x += _APART
        x += max(0.0, _reserve(apart, True) - len(apart) * col_w) / 2
        for c in apart:
            x_of[c] = x
            x += col_w
    for c in cols:
        y, cx = bottom, x_of[c] + gap / 2
        w = max(col_w - gap, 0.5)
        data = f' data-first="{spans[c][0]}" data-last="{spans[c][1]}"' if c in spans else ""
        drawn = False
        for j, (name, layer) in enumerate(layers):
            n = layer.get(c, 0)
            if not n:
                continue
            h = height * n / y_max
            y -= h
            tip = titles.get(c) or f"{c} {name}: {_fmt(n)}{unit}"
            out.append(
                f'<rect class="mark" x="{cx:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}"{data} '
                f'fill="{_PALETTE[j % len(_PALETTE)]}"><title>{_esc(tip)}</title></rect>'
            )
            drawn = True
        if not drawn and c in floor:
            out.append(
                f'<rect class="mark floor" x="{cx:.2f}" y="{bottom - 3}" width="{w:.2f}" height="3"{data} '
                f'fill="#9a9a9a"><title>{_esc(floor[c])}</title></rect>'
            )
    placed: list[tuple[float, float]] = []

    def label(c: str, cls: str) -> None:
        text = "no date" if cls == "x-other" else c
        mid = x_of[c] + col_w / 2
        w = _text_width(text)
        lo, hi = mid - w / 2, mid + w / 2
        if lo < 2 or hi > width - 2 or any(lo < b + 8 and hi > a - 8 for a, b in placed):
            return
        placed.append((lo, hi))
        out.append(
            f'<line x1="{mid:.1f}" x2="{mid:.1f}" y1="{bottom}" y2="{bottom + 4}" stroke="#999"/>'
            f'<text class="{cls}" x="{mid:.1f}" y="{bottom + 19}" text-anchor="middle">{_esc(text)}'
            f"<title>{_esc(c)}</title></text>"
        )

    for seg in segments:
        label(seg[0], "x-tick")
    for c in apart:
        label(c, "x-other")
    widest = max((_text_width(c) for c in cols), default=0.0)
    step = max(1, math.ceil((widest + 8) / col_w))
    for seg in segments:
        for c in seg[step::step]:
            label(c, "x-tick")
    out.append(
        f'<line x1="{left}" x2="{left + plot_w}" y1="{bottom}" y2="{bottom}" stroke="#999"/>'
        f'<text class="axis-title" x="{left + plot_w / 2:.1f}" y="{bottom + 38}" text-anchor="middle">'
        f"{_esc(x_title)}</text>"
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


_PLOT_W = 720 - 64 - 44
_UNIT_TITLE = {
    "day": "day (UTC)",
    "week": "week (UTC, from its Monday)",
    "month": "month (UTC)",
    "quarter": "quarter (UTC)",
    "year": "year (UTC)",
}


def _axis_note(axis: _Axis, what: str = "records", extra: str = "") -> str:
    """What the date axis does, said under the chart: its columns, the stretches cut out, the undated apart."""
    parts = [f"One column per {axis.unit} (UTC)"]
    if len(axis.segments) > 1:
        parts.append(
            f"{len(axis.segments) - 1} stretch{'es' if len(axis.segments) > 2 else ''} of more than "
            f"{_GAP[axis.unit]} {axis.unit}s without {what} cut out of the axis (dashed lines; the tooltip says "
            "from when to when)"
        )
    if axis.apart:
        parts.append(f"{what} without a date at the right, apart (<i>no date</i>)")
    if extra:
        parts.append(extra)
    return "<p class=note>" + "; ".join(parts) + ".</p>"


def _date_chart(axis: _Axis, layers, *note: str, **kw) -> str:
    """:func:`_columns` over a date axis: each column's days (``data-first``/``data-last``) from the axis."""
    segments = [[_label(b, axis.unit) for b in seg] for seg in axis.segments]
    spans = {}
    for seg in axis.segments:
        for b in seg:
            spans[_label(b, axis.unit)] = (b.isoformat(), (_next(b, axis.unit) - datetime.timedelta(1)).isoformat())
    svg = _columns(segments, layers, apart=axis.apart, spans=spans, **kw)
    first_last = json.dumps([[spans[s[0]][0], spans[s[-1]][1]] for s in segments])
    tagged = svg.replace("<svg ", f'<svg data-axis="date" data-unit="{axis.unit}" data-segments=\'{first_last}\' ', 1)
    return tagged + _axis_note(axis, *note)


def _version_order(k: str) -> tuple:
    """Streams versions first, then ConsumerProtocol's, each by number; then Kafka 4's groups, then the rest."""
    kind, _, number = k.rpartition(" v")
    if kind and number.isdigit():
        return (0 if kind == "Streams" else 1, kind, int(number), "")
    return (2, k, 0, k)


def _versions_chart(
    series: dict[str, dict[str, int]], tables: Mapping[str, int] | None = None, every: dict | None = None
) -> str:
    """Members per date, stacked by their subscription's version: ``every`` (the summary's
    ``member_versions_by_date``: Streams, ConsumerProtocol and Kafka 4 groups' members) where the job gives it,
    else the Streams metadata versions (``versions_by_date``); without any, what the members table holds."""
    if every:
        series, names = every, lambda k: k
    else:
        names = lambda k: f"v{k}"  # noqa: E731
    if not series:
        members = (tables or {}).get("members")
        if members:
            return (
                f"<p class=empty>None of the {members:,} rows of the <code>members</code> table carries a Kafka "
                "Streams subscription (SubscriptionInfo), the one with a metadata version: its members are plain "
                "consumers (ConsumerProtocol), Kafka 4 or Connect groups' members (their rebalances are charted "
                "below). Their ConsumerProtocol version and kind are the table's <code>consumer_protocol_version</code> "
                "and <code>kind</code> columns.</p>"
            )
        return (
            "<p class=empty>No member was decoded: the input holds no subscription (no JoinGroup, no SyncGroup, "
            "no <code>__consumer_offsets</code> group record).</p>"
        )
    axis = _Axis(series, _PLOT_W)
    keys = sorted(
        {k for counts in series.values() for k in counts}, key=_version_order if every else lambda k: (len(k), k)
    )
    layers = []
    for k in keys:
        col: dict[str, float] = {}
        for d, counts in series.items():
            if counts.get(k):
                c = axis.column(d)
                col[c] = col.get(c, 0) + counts[k]
        layers.append((names(k), col))
    y_title = "members" if every else "members (Streams subscriptions)"
    return _date_chart(axis, layers, "members", y_title=y_title, integer=True, x_title=_UNIT_TITLE[axis.unit])


def _error_rate_chart(errors: list[dict]) -> str:
    """The share of each day's (week's, ...) records that were quarantined; a day with records and none
    quarantined is a grey baseline, a day without records no column (or cut out of the axis)."""
    if not errors:
        return "<p class=empty>No record was input to the decoder, so none was quarantined.</p>"
    axis = _Axis([e["date"] for e in errors], _PLOT_W)
    sums: dict[str, list[int]] = {}
    for e in errors:
        s = sums.setdefault(axis.column(e["date"]), [0, 0])
        s[0] += int(e["quarantined"] or 0)
        s[1] += int(e["records"] or 0)
    rate = {c: round(100.0 * q / n, 2) for c, (q, n) in sums.items() if n and q}
    titles = {c: f"{c}: {q:,} of {n:,} records quarantined ({100.0 * q / n:.3g}%)" for c, (q, n) in sums.items() if n}
    floor = {c: f"{c}: none of {n:,} records quarantined" for c, (q, n) in sums.items() if n and not q}
    return _date_chart(
        axis,
        [("quarantined", rate)],
        "records",
        "a grey line at 0%: records, none quarantined; no column: no records",
        y_title="% of the records",
        unit="%",
        legend=False,
        titles=titles,
        floor=floor,
        x_title=_UNIT_TITLE[axis.unit],
    )


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
                w = max((width - label_w - 80) * n / top, _MIN_BAR)
                parts.append(
                    f'<rect class="mark" x="{x:.1f}" y="{y + 2}" width="{w:.1f}" height="{bar_h - 4}" fill="{colour[c]}">'
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
    storm detectors' ``rebalance-storm`` finding counts ten in a minute); minutes next to each other are one run,
    a break between runs."""
    if not rows:
        return "<p class=empty>No rebalance has a time (the input's records carry no timestamp).</p>"
    minutes = sorted({str(r["minute"]) for r in rows})
    segments: list[list[str]] = []
    prev = None
    for m in minutes:
        try:
            t = datetime.datetime.strptime(m, "%Y-%m-%d %H:%M")
        except ValueError:
            t = None
        if segments and prev is not None and t is not None and t - prev == datetime.timedelta(minutes=1):
            segments[-1].append(m)
        else:
            segments.append([m])
        prev = t
    if len(segments) > 12:  # too many runs to break between: the busiest minutes side by side
        segments = [minutes]
    layers: dict[str, dict[str, float]] = {}
    for r in rows:
        layers.setdefault(str(r["group"]), {})[str(r["minute"])] = r["rebalances"]
    ordered = sorted(layers.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
    title = "minute (UTC)" + ("; minutes apart separated (dashed)" if len(segments) > 1 else "")
    return _columns(segments, ordered, y_title="rebalances in the minute", integer=True, x_title=title)


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


def _consumer_checks(summary: dict) -> str:
    """The classic consumer generations the assignor checks ran on, and those they could not, with the reason
    (codec.pipeline.consumerchecks)."""
    cc = summary.get("consumer_assignor_checks") or {}
    return (
        f"<p>{cc.get('generations_checked', 0)} generations checked, {cc.get('not_checked', 0)} not checked "
        "(<code>not-the-assignors-assignment</code> and <code>partition-unowned</code> need the leader's JoinGroup "
        "response and SyncGroup request and the topics' partition counts: a Metadata response in the group's input, "
        "or <code>--partitions</code>; a KIP-848 group's epoch is judged for <code>partition-unowned</code> where "
        "the input shows the group settled at it).</p>"
        + _table(cc.get("not_checked_sample", []), ["group", "generation", "why"])
        + _kip848(cc.get("kip848_not_judged") or {})
    )


def _kip848(k: dict) -> str:
    if not k.get("groups"):
        return ""
    return (
        f"<p>Not judged for <code>{_esc(k['check'])}</code> (KIP-848 groups "
        f"{_esc(', '.join(k['groups']))}): {_esc(k['why'])}.</p>"
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
    }px;fill:#333}} svg .axis-title{{font-weight:600;fill:#555}} .ok{{color:#2a7a2a}} .bad{{color:#b00}} .empty{{color:#888}} .note{{color:#666;font-size:12px;margin:0 0 0 64px}}
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
<h2>Subscription metadata versions over time</h2>{
        _versions_chart(versions, summary.get("tables"), charts.get("member_versions_by_date"))
    }
<h2>Decode error rate (% of records quarantined, by day)</h2>{_error_rate_chart(errors)}
<h2>Rebalances (generations observed) per group</h2>{_bars(reb, category="group", value="generations observed")}
<h2>Rebalances by cause, per group</h2>{_cause_bars(charts.get("rebalances_by_cause", []))}
<p>Why each generation (or Kafka 4 epoch) formed: the <code>rebalances</code> table's <code>cause</code> (the main
one) and <code>causes</code>, in the vocabulary of the captures guide.</p>
<h2>Rebalances per minute (the busiest minutes)</h2>{_storm_chart(charts.get("rebalances_per_minute", []))}
<h2>Findings by check</h2>{_bars(fnd, category="check", value="findings")}
<h2>Consumer groups' assignments checked against Kafka's assignors</h2>{_consumer_checks(summary)}
<h2>Quarantine by error type</h2>{_table(summary.get("quarantine_by_type", []), ["error_type", "kind", "records"])}
<h2>First findings</h2>{
        _table(
            summary.get("sample_findings", []), ["group", "generation", "check", "severity", "task", "member", "detail"]
        )
    }
</body></html>
"""
