"""Conformance reports: a table for people, JUnit XML for CI systems, JSON for tools."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from xml.etree import ElementTree as ET

from .. import text as _text
from .runner import STATUSES, VectorResult, summarize

__all__ = ["render_table", "summary_line", "write_junit", "write_json"]


def _plural(n: int, word: str, words: str) -> str:
    return f"{n} {word if n == 1 else words}"


def summary_line(results: list[VectorResult], *, expectations: bool = False) -> str:
    """``N passed, N failed, N skipped``, then ``, N expected failures`` with an expectations file, ``, N fixed``
    when a listed vector passes. A vector counts once."""
    n = {s: sum(r.status == s for r in results) for s in ("pass", "fail", "skip", "xfail", "xpass")}
    line = f"{n['pass']} passed, {n['fail']} failed, {n['skip']} skipped"
    if expectations or n["xfail"]:
        line += ", " + _plural(n["xfail"], "expected failure", "expected failures")
    if n["xpass"]:
        line += f", {n['xpass']} fixed"
    return line


def _version(r: VectorResult) -> str:
    return "" if r.version is None else f" v{r.version}"


def render_table(results: list[VectorResult], *, show_failures: int | None = 20, expectations: bool = False) -> str:
    """Failures (FIXED, FAIL, XFAIL: at most ``show_failures`` of each; None: all), the skips by reason, a row per
    message and version, and the summary line."""
    rows = summarize(results)
    lines = []
    for status, label in (("xpass", "FIXED"), ("fail", "FAIL"), ("xfail", "XFAIL")):
        listed = [r for r in results if r.status == status]
        for r in listed[:show_failures]:
            why = f"  # {r.reason}" if status == "xfail" and r.reason else ""
            lines.append(_text.printable(f"{label} {r.id} ({r.message}{_version(r)}): {r.detail}{why}"))
        if show_failures is not None and len(listed) > show_failures:
            lines.append(f"... and {len(listed) - show_failures} more {label} (see --json or --junit)")
    skipped: dict[str, int] = {}
    for r in results:
        if r.status == "skip":
            skipped[r.reason] = skipped.get(r.reason, 0) + 1
    for reason, count in sorted(skipped.items(), key=lambda kv: -kv[1])[:10]:
        lines.append(_text.printable(f"SKIP {count}: {reason[:200]}"))
    if len(skipped) > 10:
        lines.append(f"... and {len(skipped) - 10} more reasons to skip (see --json)")
    halves = sum(r.status != "skip" and any(s == "skip" for _, s, _ in r.ops) for r in results)
    if halves:
        lines.append(f"HALF {halves}: checked on one half only, the other skipped (each vector's reason in --json)")
    if lines:
        lines.append("")
    cols = [("passed", "passed"), ("failed", "failed")]
    if any(r["skipped"] for r in rows):
        cols.append(("skipped", "skipped"))
    if expectations or any(r["xfailed"] for r in rows):
        cols.append(("xfailed", "expected"))
    if any(r["fixed"] for r in rows):
        cols.append(("fixed", "fixed"))
    header = ("message", "version", "vectors", *(title for _, title in cols))
    table = [header] + [(_text.printable(r["message"]), "-" if r["version"] is None else str(r["version"]),
                         str(r["vectors"]), *(str(r[key]) for key, _ in cols)) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        lines.append("  ".join(c.rjust(w) if j else c.ljust(w) for j, (c, w) in enumerate(zip(row, widths))))
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("\n" + summary_line(results, expectations=expectations))
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


def _counts(rs: list[VectorResult]) -> dict[str, str]:
    """JUnit's counters: a fixed vector fails the run, an expected failure is reported as skipped."""
    return {"tests": str(len(rs)), "failures": str(sum(r.status in ("fail", "xpass") for r in rs)),
            "skipped": str(sum(r.status in ("skip", "xfail") for r in rs))}


def write_junit(results: list[VectorResult], path: Path, implementation: str) -> None:
    """One testsuite per message, one testcase per vector: ``<failure>`` for a failure and for a listed vector
    that now passes, ``<skipped message="…">`` for a skipped vector and (type ``expected-failure``) for an
    expected one."""
    suites = ET.Element("testsuites", name=_xml_text(f"rebalance-codec conformance: {implementation}"),
                        **_counts(results))
    by_message: dict[str, list[VectorResult]] = {}
    for r in results:
        by_message.setdefault(r.message, []).append(r)
    for message, rs in by_message.items():
        suite = ET.SubElement(suites, "testsuite", name=_xml_text(message), **_counts(rs))
        for r in rs:
            classname = message if r.version is None else f"{message}.v{r.version}"
            case = ET.SubElement(suite, "testcase", classname=_xml_text(classname), name=_xml_text(r.id))
            if r.status in ("fail", "xpass"):
                detail = _xml_text(r.detail)
                ET.SubElement(case, "failure", message=detail[:500]).text = detail
            elif r.status == "skip":
                ET.SubElement(case, "skipped", message=_xml_text(r.reason or r.detail)[:500])
            elif r.status == "xfail":
                text = _xml_text(f"expected failure: {r.reason + ': ' if r.reason else ''}{r.detail}")
                ET.SubElement(case, "skipped", type="expected-failure", message=text[:500]).text = text
    _write_atomically(path, ET.tostring(suites, encoding="utf-8", xml_declaration=True))


def write_json(results: list[VectorResult], path: Path, implementation: str) -> None:
    _write_atomically(path, _text.dumps({
        "implementation": implementation,
        "counts": {status: sum(r.status == status for r in results) for status in STATUSES},
        "summary": summarize(results),
        "results": [{"id": r.id, "message": r.message, "version": r.version, "status": r.status,
                     "detail": r.detail, "reason": r.reason, "flags": list(r.flags),
                     "ops": {op: status for op, status, _ in r.ops}} for r in results],
    }, indent=2).encode("utf-8"))
