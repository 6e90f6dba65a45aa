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
    texts: [...svg.querySelectorAll('text')].map(t => ({cls: t.getAttribute('class') || '',
      text: t.firstChild ? t.firstChild.textContent : '', box: box(t)})),
    shapes: [...svg.querySelectorAll('rect')].map(box)}));
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


def measure(page: str, tmp_path, name: str) -> list[dict]:
    """The charts of an HTML page as Chromium lays them out (and a screenshot of the page, ``name``.png)."""
    path = tmp_path / f"{name}.html"
    path.write_text(page.replace("</body>", MEASURE + "</body>"), encoding="utf-8")

    def chromium(*args: str) -> subprocess.CompletedProcess:
        """One headless Chromium with a fresh profile (a profile still held by another one would hand the
        page over to it and exit)."""
        profile = tempfile.mkdtemp(prefix="profile-", dir=tmp_path)
        return subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--window-size=1100,1400", *args, path.as_uri()],
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
    assert problems(charts) == []
    versions, errors = charts[0], charts[1]
    ticks = [t["text"] for t in versions["texts"] if "x-tick" in t["cls"]]
    if days == 1:  # the day and the members without a date, side by side
        assert ticks == ["2024-01-01", "unknown"]
    else:  # the first day, then as many as fit side by side, in order
        assert ticks[0] == "2024-01-01" and ticks == sorted(ticks) and 4 <= len(ticks) <= 16
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
