"""Conformance reports: a table for people, JUnit XML for CI systems, JSON for tools."""

from __future__ import annotations

import os
import re
import tempfile
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
        lines.append(_text.printable(f"FAIL {r.id} ({r.message} v{r.version}): {r.detail}"))
    if len(failures) > show_failures:
        lines.append(f"... and {len(failures) - show_failures} more failures (see --json or --junit)")
    if failures:
        lines.append("")
    header = ("message", "version", "vectors", "passed", "failed")
    table = [header] + [(_text.printable(r["message"]), "-" if r["version"] is None else str(r["version"]), str(r["vectors"]),
                         str(r["passed"]), str(r["failed"])) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        lines.append("  ".join(c.rjust(w) if j else c.ljust(w) for j, (c, w) in enumerate(zip(row, widths))))
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    total, passed = len(results), sum(r.status == "pass" for r in results)
    lines.append(f"\n{passed} passed, {total - passed} failed")
    return "\n".join(lines)


# XML 1.0 has no way to write these characters, not even as references.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(s: str) -> str:
    """``s`` with every character XML 1.0 cannot carry written as a visible escape (``\\x1b``, ``\\ud800``)."""
    return _NOT_XML.sub(lambda m: _text.printable(m.group()), s)


def _write_atomically(path: Path, data: bytes) -> None:
    """Write the whole report or nothing: a temporary file beside ``path``, then a rename."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_junit(results: list[VectorResult], path: Path, implementation: str) -> None:
    suites = ET.Element("testsuites", name=_xml_text(f"rebalance-codec conformance: {implementation}"),
                        tests=str(len(results)), failures=str(sum(r.status == "fail" for r in results)))
    by_message: dict[str, list[VectorResult]] = {}
    for r in results:
        by_message.setdefault(r.message, []).append(r)
    for message, rs in by_message.items():
        suite = ET.SubElement(suites, "testsuite", name=_xml_text(message), tests=str(len(rs)),
                              failures=str(sum(r.status == "fail" for r in rs)))
        for r in rs:
            case = ET.SubElement(suite, "testcase", classname=_xml_text(f"{message}.v{r.version}"), name=_xml_text(r.id))
            if r.status == "fail":
                detail = _xml_text(r.detail)
                ET.SubElement(case, "failure", message=detail[:500]).text = detail
    _write_atomically(path, ET.tostring(suites, encoding="utf-8", xml_declaration=True))


def write_json(results: list[VectorResult], path: Path, implementation: str) -> None:
    _write_atomically(path, _text.dumps({
        "implementation": implementation,
        "summary": summarize(results),
        "results": [{"id": r.id, "message": r.message, "version": r.version, "status": r.status,
                     "detail": r.detail, "flags": list(r.flags)} for r in results],
    }, indent=2).encode("utf-8"))
