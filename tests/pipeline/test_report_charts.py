"""The pipeline report's charts are readable at any number of days (1, 30 and 400 here): drawn by headless
Chromium (Debian's ``chromium``; .ci/run installs it), every label's box is measured in the page and no two
labels of a chart overlap, none leaves its chart, both axes have titles, the y axis has a scale and the date
axis shows labels. The reports are rendered from made-up summaries of the shape the job hands
:func:`codec.pipeline.report.render_html`; a screenshot of each is kept beside it in the test's folder."""

from __future__ import annotations

import datetime
import html
import json
import random
import re
import shutil
import subprocess
import tempfile
from itertools import combinations

import pytest

from codec.pipeline import report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs headless Chromium (apt-get install chromium)")

#: Put into a copy of the page (the report itself has no script): every chart's box, its labels' boxes and its
#: shapes' boxes, as the browser laid them out, written into the page for --dump-dom.
MEASURE = """<script>
(() => {
  const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const charts = [...document.querySelectorAll('svg')].map(svg => ({
    chart: (svg.previousElementSibling || {}).textContent || '', svg: box(svg),
    axis: svg.dataset.axis || '', unit: svg.dataset.unit || '', segments: JSON.parse(svg.dataset.segments || '[]'),
    texts: [...svg.querySelectorAll('text')].map(t => ({cls: t.getAttribute('class') || '',
      text: t.firstChild ? t.firstChild.textContent : '', box: box(t)})),
    shapes: [...svg.querySelectorAll('rect')].map(box),
    marks: [...svg.querySelectorAll('rect.mark')].map(r => ({box: box(r), first: r.dataset.first || '',
      last: r.dataset.last || '', title: r.textContent}))}));
  const out = document.createElement('pre');
  out.id = 'measured';
  out.style.display = 'none';
  out.textContent = JSON.stringify(charts);
  document.body.appendChild(out);
})();
</script>"""


def summary(days: int) -> dict:
    """A fleet of ``days`` days: five metadata versions coming and going, a daily error rate, thirty groups (long,
    wide-character and plain names), the checks' counts, one member without a date."""
    rnd = random.Random(days)
    first = datetime.date(2024, 1, 1)
    dates = [(first + datetime.timedelta(i)).isoformat() for i in range(days)]
    versions = {d: {str(v): rnd.randint(1, 40) for v in range(7, 12) if rnd.random() < 0.8} for d in dates}
    versions["unknown"] = {"11": 3}
    errors = [{"date": d, "records": rnd.randint(50, 500), "quarantined": rnd.randint(0, 20)} for d in dates]
    groups = [
        {"group": name, "generations": rnd.randint(1, 900)}
        for name in ["payments-" + "x" * 60, "日本語のグループ名前がとても長いストリームアプリケーション", "a"]
        + [f"streams-app-{i}" for i in range(27)]
    ]
    return {
        "counts": {"records_read": 10, "not_selected": 1, "decoded": 8, "quarantined": 1},
        "output": "out",
        "charts": {"versions_by_date": versions, "error_rate_by_date": errors, "rebalances_per_group": groups},
        "findings_by_check": {"no-active-owner": 23, "multiple-active-owners": 2, "group-error": 1},
        "tables": {},
    }


def measure(page: str, tmp_path, name: str, width: int = 1100) -> list[dict]:
    """The charts of an HTML page as Chromium lays them out (and a screenshot of the page, ``name``.png)."""
    path = tmp_path / f"{name}.html"
    path.write_text(page.replace("</body>", MEASURE + "</body>"), encoding="utf-8")

    def chromium(*args: str) -> subprocess.CompletedProcess:
        """One headless Chromium with a fresh profile (a profile still held by another one would hand the
        page over to it and exit)."""
        profile = tempfile.mkdtemp(prefix="profile-", dir=tmp_path)
        return subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},1400", *args, path.as_uri()],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )

    shot = chromium(f"--screenshot={tmp_path / name}.png")
    assert shot.returncode == 0 and (tmp_path / f"{name}.png").stat().st_size > 10_000, shot.stderr[-2000:]
    dom = chromium("--dump-dom")
    m = re.search(r'<pre id="measured"[^>]*>(.*?)</pre>', dom.stdout, re.DOTALL)
    assert m, dom.stderr[-2000:]
    return json.loads(html.unescape(m.group(1)))


def _overlap(a, b, slack: float = 0.5) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


def _inside(a, outer, slack: float = 1.0) -> bool:
    return (
        a[0] >= outer[0] - slack and a[1] >= outer[1] - slack and a[2] <= outer[2] + slack and a[3] <= outer[3] + slack
    )


def problems(charts: list[dict]) -> list[str]:
    """What makes a chart hard to read: labels over each other or outside the chart, an axis without its title,
    a y axis with one number, a date axis without labels."""
    found = []
    for c in charts:
        texts = [t for t in c["texts"] if t["box"][2] > t["box"][0]]
        for a, b in combinations(texts, 2):
            if _overlap(a["box"], b["box"]):
                found.append(f"{c['chart']}: {a['text']!r} overlaps {b['text']!r}")
        found += [f"{c['chart']}: {t['text']!r} is outside the chart" for t in texts if not _inside(t["box"], c["svg"])]
        found += [
            f"{c['chart']}: a shape outside the chart"
            for s in c["shapes"][:1]
            if not all(_inside(s, c["svg"]) for s in c["shapes"])
        ]
        if sum("axis-title" in t["cls"] for t in texts) < 2:
            found.append(f"{c['chart']}: fewer than two axis titles")
        if any("x-tick" in t["cls"] for t in texts) or "over time" in c["chart"] or "by day" in c["chart"]:
            if len({t["text"] for t in texts if "y-tick" in t["cls"]}) < 2:
                found.append(f"{c['chart']}: the y axis has fewer than two tick labels")
            if not any("x-tick" in t["cls"] for t in texts):
                found.append(f"{c['chart']}: no date on the x axis")
    return found


#: A plotted mark (a column, a bar, a point) narrower than this is a hairline (the bundled example's error-rate
#: columns were 0.8 px wide)
MIN_MARK_PX = 4.0


def mark_problems(charts: list[dict]) -> list[str]:
    """What hides the data: a plotted mark narrower than MIN_MARK_PX, and a date axis that spans an empty year
    (a stretch of a year or more inside one run of its columns without a mark), or a run that starts or ends
    without data."""
    found = []
    for c in charts:
        found += [
            f"{c['chart']}: a mark {m['box'][2] - m['box'][0]:.2f} px wide ({m['title']})"
            for m in c["marks"]
            if m["box"][2] - m["box"][0] < MIN_MARK_PX
        ]
        if c["axis"] != "date":
            continue
        days = sorted(
            {
                (datetime.date.fromisoformat(m["first"]), datetime.date.fromisoformat(m["last"]))
                for m in c["marks"]
                if m["first"]
            }
        )
        for first, last in ((datetime.date.fromisoformat(a), datetime.date.fromisoformat(b)) for a, b in c["segments"]):
            inside = [d for d in days if first <= d[0] and d[1] <= last]
            if not inside or inside[0][0] != first or inside[-1][1] != last:
                found.append(f"{c['chart']}: the run {first} to {last} starts or ends without data")
            for (_, end), (start, _) in zip(inside, inside[1:]):
                if (start - end).days - 1 >= 365:
                    found.append(f"{c['chart']}: the axis spans an empty year ({end} to {start})")
    return found


@pytest.mark.parametrize("days", [1, 30, 400])
def test_the_charts_are_readable(days, tmp_path):
    charts = measure(report.render_html(summary(days)), tmp_path, f"report-{days}-days")
    titles = [c["chart"] for c in charts]
    assert titles == [
        "Subscription metadata versions over time",
        "Decode error rate (% of records quarantined, by day)",
        "Rebalances (generations observed) per group",
        "Findings by check",
    ]
    assert problems(charts) == [] and mark_problems(charts) == []
    versions, errors = charts[0], charts[1]
    ticks = [t["text"] for t in versions["texts"] if "x-tick" in t["cls"]]
    # the members without a date apart, labelled as such, not as a date
    assert [t["text"] for t in versions["texts"] if "x-other" in t["cls"]] == ["no date"]
    if days == 1:
        assert ticks == ["2024-01-01"]
    else:  # the first day (400 days: the first week's Monday), then as many as fit side by side, in order
        assert ticks[0] == "2024-01-01" and ticks == sorted(ticks) and 4 <= len(ticks) <= 16
    assert versions["unit"] == ("week" if days == 400 else "day")
    assert [t["text"] for t in errors["texts"] if "x-tick" in t["cls"]][0] == "2024-01-01"
    assert {t["text"] for t in versions["texts"] if "legend" in t["cls"]} == {"v7", "v8", "v9", "v10", "v11"}


def test_the_check_sees_overlapping_labels_and_a_bare_axis(tmp_path, monkeypatch):
    """The check can fail: with the label widths taken as 1 px, every one of 30 dates is labelled and they
    overlap; a chart drawn as before (one number on the y axis, no axis titles) fails too."""
    monkeypatch.setattr(report, "_text_width", lambda text: 1.0)
    found = problems(measure(report.render_html(summary(30)), tmp_path, "overlapping"))
    assert any("overlaps" in p and "2024-01-0" in p for p in found), found
    bare = (
        '<html><body><h2>Subscription metadata versions over time</h2><svg width="640" height="244">'
        '<rect x="40" y="20" width="20" height="160"/><text x="0" y="12" font-size="10">40</text>'
        '<text x="40" y="196" font-size="10">2024-01-01</text><text x="60" y="196" font-size="10">2024-01-02'
        "</text></svg></body></html>"
    )
    found = problems(measure(bare, tmp_path, "bare"))
    assert {p.split(": ", 1)[1] for p in found} >= {
        "fewer than two axis titles",
        "the y axis has fewer than two tick labels",
        "no date on the x axis",
    }


def apart(dates: list[str]) -> dict:
    """The bundled example's shape (issue #46): two runs of days two years apart, a day with 8 of 8 records
    quarantined, a record without a date, members on a few of the days."""
    errors = [
        {"date": d, "records": 8 if d == "2024-11-07" else 2, "quarantined": 8 if d == "2024-11-07" else 0}
        for d in dates
    ]
    s = summary(1)
    s["charts"]["error_rate_by_date"] = [*errors, {"date": "unknown", "records": 1, "quarantined": 1}]
    s["charts"]["versions_by_date"] = {d: {"11": 1} for d in dates[::3]}
    return s


TWO_YEARS = [f"2024-11-{d:02}" for d in range(1, 10)] + ["2026-11-22"]


def test_records_two_years_apart_are_two_runs_with_wide_marks(tmp_path):
    """The reproducer: the error-rate columns were 0.8 px wide over an axis of two years, the day with 8 of 8
    quarantined a hairline, ``unknown`` drawn as a date at the right edge."""
    charts = {c["chart"]: c for c in measure(report.render_html(apart(TWO_YEARS)), tmp_path, "two-years")}
    assert problems(list(charts.values())) == [] and mark_problems(list(charts.values())) == []
    errors = charts["Decode error rate (% of records quarantined, by day)"]
    assert errors["segments"] == [["2024-11-01", "2024-11-09"], ["2026-11-22", "2026-11-22"]]
    full = [m for m in errors["marks"] if m["first"] == "2024-11-07"]
    assert len(full) == 1 and "8 of 8" in full[0]["title"]
    assert full[0]["box"][2] - full[0]["box"][0] >= 20 and full[0]["box"][3] - full[0]["box"][1] >= 150
    assert [t["text"] for t in errors["texts"] if "x-other" in t["cls"]] == ["no date"]
    assert "unknown" not in [t["text"] for t in errors["texts"] if "x-tick" in t["cls"]]


def test_the_mark_check_sees_hairlines_and_an_empty_year(tmp_path, monkeypatch):
    """The checks can fail: with no axis cut (an empty stretch never too long) and a minimum column width of
    0, the two years are one run, its columns under a pixel wide."""
    monkeypatch.setattr(report, "_GAP", dict.fromkeys(report._GAP, 10**6))
    monkeypatch.setattr(report, "_MIN_COL", 0.0)
    found = mark_problems(measure(report.render_html(apart(TWO_YEARS)), tmp_path, "one-run"))
    assert any("empty year" in p for p in found) and any("px wide" in p for p in found), found


def test_plain_consumers_are_said_not_no_dates():
    """A fleet of plain consumers (no Streams subscription): the versions chart says what the members table
    holds, not "no dates"."""
    s = summary(1)
    s["charts"]["versions_by_date"] = {}
    s["tables"] = {"members": 216}
    page = report.render_html(s)
    part = page.split("Subscription metadata versions over time</h2>")[1].split("<h2>")[0]
    assert "no dates" not in part and "216 rows" in part and "plain consumers" in part


def _real(spark, tmp_path_factory, inputs: list[str]):
    from codec.pipeline.job import Options, run

    out = tmp_path_factory.mktemp("report") / "out"
    summary = run(Options(inputs=inputs, out=str(out), quiet=True), spark)
    return out, summary


@pytest.fixture(scope="module")
def bundled(spark, tmp_path_factory):
    """The pipeline once on the bundled example (its records two years apart)."""
    from .conftest import bundled_run

    return bundled_run(spark, tmp_path_factory)


def test_the_bundled_example_report_is_readable(bundled):
    """The real report of the bundled example: every chart readable, every mark at least MIN_MARK_PX wide (the
    error-rate columns were 0.8 px), no date axis over an empty year, the record without a date apart; at a
    laptop's and a desktop's width."""
    out, _ = bundled
    for width in (1280, 1920):  # a laptop's and a desktop's
        charts = measure((out / "report.html").read_text(encoding="utf-8"), out.parent, f"report-{width}", width)
        assert problems(charts) == [] and mark_problems(charts) == [], width
    errors = next(c for c in charts if c["chart"].startswith("Decode error rate"))
    assert len(errors["segments"]) == 2 and [t["text"] for t in errors["texts"] if "x-other" in t["cls"]] == ["no date"]


def test_members_by_version_cover_every_group_type(bundled, spark):
    """:func:`codec.pipeline.reportcauses.member_versions` on the real tables: every ``members`` row counted once,
    under its Streams metadata version, its ConsumerProtocol version, or its Kafka 4 group's protocol (counted
    here from the Parquet files with pyarrow); the report draws them, readable."""
    from codec.pipeline.reportcauses import member_versions

    from .conftest import read_table

    out, summary = bundled
    got = member_versions(spark.read.parquet(str(out / "members")), spark.read.parquet(str(out / "rebalances")))
    protocol: dict[str, str] = {}
    for r in read_table(out, "rebalances"):
        if r["group_protocol"] is not None:
            protocol.setdefault(r["group"], r["group_protocol"])
    names = {
        "consumer": "consumer group (KIP-848)",
        "streams": "streams group (KIP-1071)",
        "share": "share group (KIP-932)",
    }
    want: dict[str, dict[str, int]] = {}
    for r in read_table(out, "members"):
        if r["metadata_version"] is not None:
            what = f"Streams v{r['metadata_version']}"
        elif r["consumer_protocol_version"] is not None:
            what = f"ConsumerProtocol v{r['consumer_protocol_version']}"
        else:
            what = names.get(protocol.get(r["group"], ""), "other")
        day = want.setdefault(r["date"] or "unknown", {})
        day[what] = day.get(what, 0) + 1
    assert got == want
    kinds = {k.rsplit(" v", 1)[0] for d in got.values() for k in d}
    assert {"Streams", "ConsumerProtocol", "consumer group (KIP-848)"} <= kinds  # the example has all three
    assert sum(n for d in got.values() for n in d.values()) == summary["tables"]["members"]
    summary["charts"]["member_versions_by_date"] = got
    charts = measure(report.render_html(summary), out.parent, "report-members")
    assert problems(charts) == [] and mark_problems(charts) == []
    legend = {t["text"] for t in charts[0]["texts"] if "legend" in t["cls"]}
    assert legend == {k for d in got.values() for k in d}


@pytest.mark.slow
def test_the_shared_captures_report_is_readable(spark, tmp_path_factory):
    """The real summary of the shared corpus' frames (plain consumers of five client libraries, one day)."""
    from tests.conftest import SHARED

    out, _ = _real(spark, tmp_path_factory, [str(SHARED / "captures" / "frames.jsonl")])
    charts = measure((out / "report.html").read_text(encoding="utf-8"), out.parent, "report")
    assert problems(charts) == [] and mark_problems(charts) == []
