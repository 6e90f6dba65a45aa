"""Conformance reports: a table for people, JUnit XML for CI systems, JSON for tools."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

from .. import text as _text
from .runner import VectorResult, summarize

__all__ = ["render_table", "write_junit", "write_json"]


def render_table(results: list[VectorResult], *, show_failures: int = 20) -> str:
    rows = summarize(results)
    lines = []
    failures = [r for r in results if r.status == "fail"]
    for r in failures[:show_failures]:
        lines.append(f"FAIL {r.id} ({r.message} v{r.version}): {r.detail}")
    if len(failures) > show_failures:
        lines.append(f"... and {len(failures) - show_failures} more failures (see --json or --junit)")
    if failures:
        lines.append("")
    header = ("message", "version", "vectors", "passed", "failed")
    table = [header] + [(r["message"], "-" if r["version"] is None else str(r["version"]), str(r["vectors"]),
                         str(r["passed"]), str(r["failed"])) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        lines.append("  ".join(c.rjust(w) if j else c.ljust(w) for j, (c, w) in enumerate(zip(row, widths))))
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    total, passed = len(results), sum(r.status == "pass" for r in results)
    lines.append(f"\n{passed} passed, {total - passed} failed")
    return "\n".join(lines)


def write_junit(results: list[VectorResult], path: Path, implementation: str) -> None:
    suites = ET.Element("testsuites", name=f"rebalance-codec conformance: {implementation}",
                        tests=str(len(results)), failures=str(sum(r.status == "fail" for r in results)))
    by_message: dict[str, list[VectorResult]] = {}
    for r in results:
        by_message.setdefault(r.message, []).append(r)
    for message, rs in by_message.items():
        suite = ET.SubElement(suites, "testsuite", name=message, tests=str(len(rs)),
                              failures=str(sum(r.status == "fail" for r in rs)))
        for r in rs:
            case = ET.SubElement(suite, "testcase", classname=f"{message}.v{r.version}", name=r.id)
            if r.status == "fail":
                ET.SubElement(case, "failure", message=r.detail[:500]).text = r.detail
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def write_json(results: list[VectorResult], path: Path, implementation: str) -> None:
    path.write_text(_text.dumps({
        "implementation": implementation,
        "summary": summarize(results),
        "results": [{"id": r.id, "message": r.message, "version": r.version, "status": r.status,
                     "detail": r.detail, "flags": list(r.flags)} for r in results],
    }, indent=2), encoding="utf-8")
