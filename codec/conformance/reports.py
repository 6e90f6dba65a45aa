"""Conformance reports: a table for people, JUnit XML for CI systems, JSON for tools."""

from __future__ import annotations

import os
import re
import stat
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from xml.etree import ElementTree as ET

from .. import text as _text
from .runner import STATUSES, GeneratedRun, VectorResult, summarize

__all__ = [
    "render_gone",
    "render_generated",
    "render_table",
    "summary_line",
    "write_json",
    "write_junit",
    "write_report",
]


def _plural(n: int, word: str, words: str) -> str:
    return f"{n} {word if n == 1 else words}"


def summary_line(results: list[VectorResult], *, expectations: bool = False) -> str:
    """``N passed, N failed, N skipped``, then ``, N expected failures`` with an expectations file, ``, N fixed``
    when a listed vector passes. A vector counts once."""
    n = {s: sum(r.status == s for r in results) for s in STATUSES}
    line = f"{n['pass']} passed, {n['fail']} failed, {n['skip']} skipped"
    if expectations or n["xfail"]:
        line += ", " + _plural(n["xfail"], "expected failure", "expected failures")
    if n["xpass"]:
        line += f", {n['xpass']} fixed"
    if n["notrun"]:
        line += f", {n['notrun']} not run"
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
    if any(r["notrun"] for r in rows):
        cols.append(("notrun", "not run"))
    header = ("message", "version", "vectors", *(title for _, title in cols))
    table = [header] + [
        (
            _text.printable(r["message"]),
            "-" if r["version"] is None else str(r["version"]),
            str(r["vectors"]),
            *(str(r[key]) for key, _ in cols),
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        lines.append("  ".join(c.rjust(w) if j else c.ljust(w) for j, (c, w) in enumerate(zip(row, widths))))
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("\n" + summary_line(results, expectations=expectations))
    return "\n".join(lines)


# XML 1.0 has no way to write these characters, not even as references; DEL and the C1 controls it discourages;
# the noncharacters (U+FDD0-U+FDEF, the last two code points of every plane), which no reader expects.
_NOT_XML = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(chr(p * 0x10000 + 0xFFFE) + chr(p * 0x10000 + 0xFFFF) for p in range(17))
    + "]"
)


def _xml_text(s: str) -> str:
    """``s`` with every character XML 1.0 cannot carry (or discourages, or a noncharacter) written as a visible
    escape (``\\x1b``, ``\\ud800``, ``\\uffff``)."""
    return _NOT_XML.sub(lambda m: _text.printable(m.group()), s)


FIFO_WAIT = 10.0  # seconds a report waits for a reader of a FIFO


def write_report(path: str | Path, data: bytes) -> None:
    """Write a report (``--junit``, ``--json``, ``--write-expect``) to ``path``; raises OSError.

    A regular file or a new one gets the whole report or nothing: a temporary file beside it, then a rename;
    a new file has the mode the umask gives (0666 less the umask), a replaced one keeps its own. A path that
    is not a regular file (a symlink, a device such as ``/dev/null`` or ``/dev/stdout``, a FIFO) is written
    through in place and stays what it was: never replaced."""
    path = Path(path)
    try:
        st = os.stat(path)  # through symlinks
    except FileNotFoundError:
        st = None
    if path.is_symlink() or (st is not None and not stat.S_ISREG(st.st_mode)):
        _write_through(path, data, fifo=st is not None and stat.S_ISFIFO(st.st_mode))
        return
    if st is not None:
        mode = stat.S_IMODE(st.st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_through(path: Path, data: bytes, *, fifo: bool) -> None:
    """Open what ``path`` names for writing and write ``data`` into it. A FIFO is opened without blocking and
    waits at most :data:`FIFO_WAIT` seconds for a reader (ENXIO: none yet)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_NONBLOCK if fifo else os.O_TRUNC)
    deadline = time.monotonic() + FIFO_WAIT
    while True:
        try:
            fd = os.open(path, flags, 0o666)
            break
        except OSError as e:
            if not fifo or e.errno != 6 or time.monotonic() >= deadline:  # 6: ENXIO, no reader yet
                raise
            time.sleep(0.05)
    try:
        if fifo:
            os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _counts(rs: list[VectorResult]) -> dict[str, str]:
    """JUnit's counters: a fixed vector fails the run, an expected failure is reported as skipped."""
    return {
        "tests": str(len(rs)),
        "failures": str(sum(r.status in ("fail", "xpass") for r in rs)),
        "skipped": str(sum(r.status in ("skip", "xfail", "notrun") for r in rs)),
    }


def write_junit(
    results: list[VectorResult],
    path: Path,
    implementation: str,
    generated: GeneratedRun | None = None,
    gone: tuple[str, Sequence[str]] | None = None,
) -> None:
    """One testsuite per message, one testcase per vector: ``<failure>`` for a failure and for a listed vector
    that now passes, ``<skipped message="…">`` for a skipped vector and (type ``expected-failure``) for an
    expected one; the generated cases in a testsuite of their own, one testcase per message, version and
    op; an adapter given up (``gone``: why, its stderr's first lines) is one failure of a testsuite of its own, and
    what it left not run is skipped (``type="not-run"``)."""
    counts = _counts(results)
    if generated is not None:
        cells = _generated_cells(generated)
        counts = {k: str(int(counts[k]) + sum(c[k] for c in cells)) for k in counts}
    suites = ET.Element("testsuites", {"name": _xml_text(f"rebalance-codec conformance: {implementation}"), **counts})
    by_message: dict[str, list[VectorResult]] = {}
    for r in results:
        by_message.setdefault(r.message, []).append(r)
    for message, rs in by_message.items():
        suite = ET.SubElement(suites, "testsuite", {"name": _xml_text(message), **_counts(rs)})
        for r in rs:
            classname = message if r.version is None else f"{message}.v{r.version}"
            case = ET.SubElement(suite, "testcase", classname=_xml_text(classname), name=_xml_text(r.id))
            if r.status in ("fail", "xpass"):
                detail = _xml_text(r.detail)
                ET.SubElement(case, "failure", message=detail[:500]).text = detail
            elif r.status == "skip":
                ET.SubElement(case, "skipped", message=_xml_text(r.reason or r.detail)[:500])
            elif r.status == "notrun":  # the run fails (the testsuites' adapter failure says why, once)
                ET.SubElement(case, "skipped", type="not-run", message=_xml_text(r.detail)[:500])
            elif r.status == "xfail":
                text = _xml_text(f"expected failure: {r.reason + ': ' if r.reason else ''}{r.detail}")
                ET.SubElement(case, "skipped", type="expected-failure", message=text[:500]).text = text
    if generated is not None:
        _junit_generated(suites, generated)
    if gone is not None:
        suite = ET.SubElement(suites, "testsuite", name="adapter", tests="1", failures="1", skipped="0")
        case = ET.SubElement(suite, "testcase", classname="adapter", name="given up")
        text = _xml_text("\n".join([gone[0], *gone[1]]))
        ET.SubElement(case, "failure", message=_xml_text(gone[0])[:500]).text = text
        for k in ("tests", "failures"):
            suites.set(k, str(int(suites.get(k, "0")) + 1))
    write_report(path, ET.tostring(suites, encoding="utf-8", xml_declaration=True))


def write_json(
    results: list[VectorResult],
    path: Path,
    implementation: str,
    *,
    seed: int | None = None,
    generated: GeneratedRun | None = None,
    gone: tuple[str, Sequence[str]] | None = None,
) -> None:
    report: dict = {
        "implementation": implementation,
        "seed": seed,
        "counts": {status: sum(r.status == status for r in results) for status in STATUSES},
        "summary": summarize(results),
        "results": [
            {
                "id": r.id,
                "message": r.message,
                "version": r.version,
                "status": r.status,
                "detail": r.detail,
                "reason": r.reason,
                "flags": list(r.flags),
                "ops": {op: status for op, status, _ in r.ops},
            }
            for r in results
        ],
    }
    if generated is not None:
        report["generated"] = _generated_json(generated)
    if gone is not None:
        report["givenUp"] = {"reason": gone[0], "stderr": list(gone[1])}
    write_report(path, _text.dumps(report, indent=2).encode("utf-8"))


# --- generated cases -------------------------------------------------------------------------------------


def _cell_name(message: str, version: int | None) -> str:
    return message if version is None else f"{message} v{version}"


def _generated_json(gen: GeneratedRun) -> dict:
    return {
        "seed": gen.seed,
        "requested": gen.requested,
        "cases": gen.cases,
        "dropped": gen.dropped,
        "counts": gen.counts(),
        "failures": [
            {
                "op": op,
                "message": m,
                "version": v,
                "where": where,
                "cases": n,
                "example": first,
                "detail": detail,
                "status": "xfail" if g in gen.expected else "fail",
                "reason": gen.expected.get(g, ""),
            }
            for g, (n, first, detail) in gen.failed.items()
            for op, m, v, where in (g,)
        ],
        "passed": [{"op": op, "message": m, "version": v, "cases": n} for (op, m, v), n in gen.passed.items()],
        "skipped": [
            {"op": op, "message": m, "version": v, "cases": n, "reason": why}
            for (op, m, v), (n, why) in gen.skipped.items()
        ],
    }


def _generated_cells(gen: GeneratedRun) -> list[dict]:
    """One row per (message, version, op) the run generated: JUnit's counters and its failure groups (those
    no pattern lists, and the expected ones)."""
    cells: dict[tuple, dict] = {}
    for op, m, v in [*gen.passed, *gen.skipped, *(g[:3] for g in gen.failed)]:
        cells.setdefault((m, v, op), {"key": (m, v, op), "tests": 1, "groups": [], "expected": []})
    for g in gen.failed:
        cells[(g[1], g[2], g[0])]["expected" if g in gen.expected else "groups"].append(g)
    for (m, v, op), cell in cells.items():
        cell["failures"] = int(bool(cell["groups"]))
        cell["skipped"] = int(not cell["groups"] and (bool(cell["expected"]) or not gen.passed.get((op, m, v))))
    return [cells[k] for k in sorted(cells, key=lambda k: (k[0], -1 if k[1] is None else k[1], k[2]))]


def _junit_generated(suites: ET.Element, gen: GeneratedRun) -> None:
    cells = _generated_cells(gen)
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=f"generated (seed {gen.seed})",
        tests=str(len(cells)),
        failures=str(sum(c["failures"] for c in cells)),
        skipped=str(sum(c["skipped"] for c in cells)),
    )
    for cell in cells:
        m, v, op = cell["key"]
        case = ET.SubElement(
            suite, "testcase", classname=_xml_text(f"generated.{m}" + ("" if v is None else f".v{v}")), name=op
        )
        if cell["groups"]:
            lines = [_group_line(gen, g) for g in cell["groups"]]
            text = _xml_text("\n".join(lines) + f"\nreplay: --seed {gen.seed}")
            ET.SubElement(case, "failure", message=_xml_text(lines[0])[:500]).text = text
        elif cell["expected"]:
            text = _xml_text("; ".join(f"{g[3]}: {gen.expected[g]}" for g in cell["expected"]))
            ET.SubElement(case, "skipped", type="expected-failure", message=text[:500]).text = text
        elif not gen.passed.get((op, m, v)):
            why = gen.skipped.get((op, m, v), (0, ""))[1]
            ET.SubElement(case, "skipped", message=_xml_text(why)[:500])


def _group_line(gen: GeneratedRun, g: tuple) -> str:
    op, m, v, where = g
    n, first, detail = gen.failed[g]
    return f"{_cell_name(m, v)} {op} {where}: {n} case{'' if n == 1 else 's'} ({first}): {detail}"


def render_generated(gen: GeneratedRun, *, show_failures: int | None = 20, not_seen: Sequence[str] = ()) -> str:
    """The generated cases for people: the FAIL and XFAIL groups, the skips by reason, the patterns of the
    expectations file no failure matched, and one summary line with the seed."""
    lines = []
    for label, groups in (("FAIL", gen.unexpected()), ("XFAIL", [g for g in gen.failed if g in gen.expected])):
        for g in groups[:show_failures]:
            why = f"  # {gen.expected[g]}" if g in gen.expected else ""
            lines.append(_text.printable(f"{label} generated {_group_line(gen, g)}{why}"))
        if show_failures is not None and len(groups) > show_failures:
            lines.append(f"... and {len(groups) - show_failures} more generated {label} groups (see --json)")
    for entry, n, of in gen.coverage:  # every generated line of an expectations file, counted aloud
        most = " — most of them: a known difference is a part of a message, not all of it" if 2 * n > of else ""
        lines.append(_text.printable(f"EXPECTED {entry}: {n} of the {of} generated cases it covers{most}"))
    reasons: dict[str, int] = {}
    for n, why in gen.skipped.values():
        reasons[why] = reasons.get(why, 0) + n
    for why, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:5]:
        lines.append(_text.printable(f"SKIP generated {n}: {why[:200]}"))
    for entry in not_seen:
        lines.append(
            _text.printable(
                f"NOT SEEN {entry}: no generated failure of this run matched it (fixed, or this seed did not reach it)"
            )
        )
    if gen.dropped:
        lines.append(
            f"generated: {gen.dropped} draws the reference did not give back whole were left out"
            + (f" (first: {gen.problems[0]})" if gen.problems else "")
        )
    c = gen.counts()
    line = (
        f"generated: seed {gen.seed}, {gen.cases} cases over {len(gen.cells)} message versions: "
        f"{c['pass']} passed, {c['fail']} failed, {c['skip']} skipped"
    )
    if c["xfail"] or gen.expected:
        line += f", {c['xfail']} expected failure{'' if c['xfail'] == 1 else 's'}"
    if gen.not_run:
        line += f", {gen.not_run} not run"
    lines.append(_text.printable(line))
    return "\n".join(lines)


def render_gone(gone: str, stderr: Sequence[str], results: list[VectorResult], gen: GeneratedRun | None) -> str:
    """An adapter given up, once: why, the first lines of its stderr (each on a line of its own, indented), and what
    was left not run (counted, never listed: each would say the same)."""
    lines = [_text.printable(f"GIVEN UP: {gone}" + ("; its stderr:" if stderr else ""))]
    lines += [f"    {_text.printable(line)}" for line in stderr]
    vectors = sum(r.status == "notrun" for r in results)
    cases = gen.not_run if gen is not None else 0
    left = [_plural(vectors, "vector", "vectors")] + (
        [_plural(cases, "generated case", "generated cases")] if gen else []
    )
    lines.append(f"NOT RUN {' and '.join(left)}: nothing is asked of an adapter once it is given up")
    return "\n".join(lines)
