"""The report's tables (issue #46: "First findings" printed ``None`` in empty cells and listed all 32): an empty
value is an empty cell, and a long table shows its first rows with the rest folded into a ``<details>`` element,
every row still in the page. Rendered from a made-up summary of the shape the job hands
:func:`codec.pipeline.report.render_html`; the page is read back with Python's HTML parser."""

from __future__ import annotations

from html.parser import HTMLParser

from codec.pipeline import report


class Tables(HTMLParser):
    """Each table's rows of cells (header rows left out), and whether it sits inside a <details>."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[bool, list[list[str]]]] = []
        self.summaries: list[str] = []
        self._details = 0
        self._cell: list[str] | None = None
        self._in_summary = False

    def handle_starttag(self, tag, attrs):
        if tag == "details":
            self._details += 1
        elif tag == "summary":
            self._in_summary = True
            self.summaries.append("")
        elif tag == "table":
            self.tables.append((self._details > 0, []))
        elif tag == "tr":
            self.tables[-1][1].append([])
        elif tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "details":
            self._details -= 1
        elif tag == "summary":
            self._in_summary = False
        elif tag == "td" and self._cell is not None:
            self.tables[-1][1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._in_summary:
            self.summaries[-1] += data


def _summary(findings: list[dict]) -> dict:
    return {
        "counts": {"records_read": 1, "not_selected": 0, "decoded": 1, "quarantined": 0},
        "output": "out",
        "charts": {},
        "findings_by_check": {},
        "tables": {},
        "sample_findings": findings,
    }


def _findings(n: int) -> list[dict]:
    return [
        {"group": f"g{i}", "generation": i, "check": "no-active-owner", "severity": "error", "task": None,
         "member": None if i % 2 else f"m{i}", "detail": f"finding {i}"}
        for i in range(n)
    ]  # fmt: skip


def test_empty_values_are_empty_cells_and_a_long_table_folds_its_rest():
    page = Tables()
    page.feed(report.render_html(_summary(_findings(32))))
    rows = [(folded, [r for r in t if r]) for folded, t in page.tables if any(r and r[0].startswith("g") for r in t)]
    shown, rest = rows
    assert not shown[0] and rest[0]  # the first rows shown, the rest in <details>
    assert len(shown[1]) == report.TABLE_ROWS_SHOWN and len(rest[1]) == 32 - report.TABLE_ROWS_SHOWN
    every = shown[1] + rest[1]
    assert [r[0] for r in every] == [f"g{i}" for i in range(32)]  # every row, in order, once
    assert all("None" not in cell for r in every for cell in r)
    assert [r[4] for r in every] == [""] * 32 and [r[5] for r in every] == ["" if i % 2 else f"m{i}" for i in range(32)]
    assert "22 more rows (of 32)" in page.summaries


def test_a_short_table_is_not_folded():
    page = Tables()
    page.feed(report.render_html(_summary(_findings(3))))
    assert not any(folded for folded, _ in page.tables) and page.summaries == []
