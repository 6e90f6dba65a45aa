"""The command-line fuzzer's contract (:mod:`codec.fuzz.cli`): what each run's output, exit status, memory and time
must be (:func:`check`), and a failing run narrowed down to the input line behind it (:class:`Examiner`)."""

from __future__ import annotations

import base64
import json
import shlex
import threading
import zlib
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

from .cli_jobs import (
    _BREAKERS,
    _CONTROL,
    _HEX,
    _MATRIX,
    _SUMMARY,
    DEFAULT_MAX_RSS_MB,
    DEFAULT_PROGRAM,
    INPUT_FILE,
    Job,
    RunResult,
    _reads_file,
    execute,
)

__all__ = ["Problem", "check", "CliViolation", "violation_from_json", "Examiner", "replay"]

# --- the contract -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    # timeout, memory, exit-status, traceback, internal-error, stderr, line-count, bad-line, exit-mismatch,
    # summary, report, false-pass, output
    kind: str
    detail: str
    index: int | None = None  # the input line it belongs to, when known

    @property
    def whole_run(self) -> bool:
        return self.index is None


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _strict_json(text: str) -> Any:
    return json.loads(text, parse_constant=_no_constants)


def _error_line(value: Any) -> bool | None:
    """True for a well-formed error line (``{"error": {"type": str, "message": str, ...}}``), False for any
    other value (a decoded message may have a field named ``error`` beside its others: Connect's assignment
    does), None for an object holding ``error`` alone that is not of that shape."""
    if not (isinstance(value, dict) and "error" in value) or len(value) > 1:
        return False
    err = value["error"]
    if isinstance(err, dict) and isinstance(err.get("type"), str) and isinstance(err.get("message"), str):
        return True
    return None


def _clip(b: bytes | str, n: int = 300) -> str:
    s = b.decode("utf-8", "backslashreplace") if isinstance(b, bytes) else b
    s = s.encode("unicode_escape").decode("ascii")
    return s if len(s) <= n else s[:n] + "..."


def _common(job: Job, res: RunResult) -> list[Problem]:
    out = []
    if res.killed == "timeout":
        out.append(Problem("timeout", f"did not finish in {res.seconds:.1f} s"))
    elif res.killed == "memory":
        out.append(Problem("memory", f"grew past {res.max_rss_kb // 1024} MB"))
    elif res.killed == "output":
        out.append(
            Problem("output", f"wrote {len(res.stdout) + len(res.stderr)} bytes for {len(job.stdin())} bytes of input")
        )
    elif res.status not in (0, 1):
        out.append(Problem("exit-status", f"exit status {res.status}; stderr: {_clip(res.stderr[-600:])}"))
    if b"Traceback" in res.stderr:
        tail = res.stderr[res.stderr.rfind(b"Traceback") :]
        out.append(Problem("traceback", _clip(tail[-600:], 600)))
    try:
        err = res.stderr.decode("utf-8")
    except UnicodeDecodeError as e:
        out.append(Problem("stderr", f"stderr is not UTF-8 ({e.reason} at {e.start}): {_clip(res.stderr[-300:])}"))
    else:
        m = _CONTROL.search(err)
        if m and not res.killed:
            out.append(
                Problem(
                    "stderr",
                    f"stderr holds the control character {m.group()!r}: "
                    f"{_clip(err[max(0, m.start() - 80) : m.start() + 40])}",
                )
            )
    if b"a bug in rebalance-codec" in res.stderr:
        line = next(ln for ln in res.stderr.split(b"\n") if b"a bug in rebalance-codec" in ln)
        out.append(Problem("internal-error", _clip(line)))
    return out


def _check_lines(job: Job, res: RunResult) -> list[Problem]:
    problems = _common(job, res)
    if res.killed:
        return problems
    out = res.stdout
    lines = out.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    elif out:
        problems.append(Problem("line-count", "the output does not end with a newline"))
    if len(lines) != len(job.lines):
        problems.append(Problem("line-count", f"{len(job.lines)} input lines, {len(lines)} output lines"))
        return problems
    errors = 0
    first_error: int | None = None
    table = job.command == "assign" and "table" in job.args
    trailing = set(job.trailing)
    for i, raw in enumerate(lines):
        why = None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            problems.append(Problem("bad-line", f"output line is not UTF-8 ({e.reason} at {e.start}): {_clip(raw)}", i))
            continue
        m = _BREAKERS.search(text)
        if m:
            why = f"output line holds the line break {m.group()!r} at {m.start()}"
        elif job.command == "encode" and _HEX.match(text):
            continue
        elif table and not text.startswith("{"):
            m = _CONTROL.search(text)
            if m:
                why = f"table line holds the control character {m.group()!r} at {m.start()}"
        else:
            try:
                value = _strict_json(text)
            except (ValueError, RecursionError) as e:
                why = (
                    f"output line is not {'hex nor ' if job.command == 'encode' else ''}JSON ({type(e).__name__}: {e})"
                )
            else:
                kind = _error_line(value)
                if kind is None:
                    why = "malformed error line"
                elif kind:
                    errors += 1
                    first_error = i if first_error is None else first_error
                    if i in trailing:
                        problems.append(
                            Problem(
                                "trailing",
                                f"a whole message with bytes after it was refused "
                                f"(the input policy accepts trailing bytes): {_clip(raw)}",
                                i,
                            )
                        )
                elif not isinstance(value, dict):
                    why = "output line is JSON but not an object"
                elif i in trailing and "trailing" not in value:
                    problems.append(
                        Problem(
                            "trailing",
                            f"a whole message with bytes after it decoded without 'trailing' in its JSON: {_clip(raw)}",
                            i,
                        )
                    )
                elif job.command == "encode":
                    why = "encode printed JSON that is not an error line"
                elif table:
                    why = "a table line that is JSON but not an error line"
                elif (
                    job.command == "assign"
                    and "--emit-bytes" not in job.args
                    and not isinstance(value.get("clients"), list)
                ):
                    why = "assign result without a clients list"
        if why:
            problems.append(Problem("bad-line", f"{why}: {_clip(raw)}", i))
    if errors and res.status == 0:
        problems.append(Problem("exit-mismatch", f"exit status 0 with {errors} error lines", first_error))
    elif not errors and res.status == 1 and not any(p.kind == "bad-line" for p in problems):
        problems.append(Problem("exit-mismatch", "exit status 1 and no error line"))
    return problems


def _check_conformance(job: Job, res: RunResult) -> list[Problem]:
    problems = _common(job, res)
    if res.killed:
        return problems
    try:
        text = res.stdout.decode("utf-8")
    except UnicodeDecodeError as e:
        return problems + [Problem("output", f"stdout is not UTF-8 ({e.reason} at {e.start})")]
    m = _CONTROL.search(text)
    if m:
        problems.append(
            Problem(
                "output",
                f"stdout holds the control character {m.group()!r}: "
                f"{_clip(text[max(0, m.start() - 80) : m.start() + 40])}",
            )
        )
    last = text.rstrip("\n").split("\n")[-1] if text.strip() else ""
    if "--cross-version" in job.args:
        return problems + _check_matrix(job, res, last)
    summary = _SUMMARY.match(last)
    if not summary:
        problems.append(
            Problem(
                "summary",
                f"no 'N passed, M failed, K skipped' line at the end; stdout ends "
                f"{_clip(text[-300:])}; stderr: {_clip(res.stderr[-300:])}",
            )
        )
        return problems
    passed, failed, skipped = int(summary.group(1)), int(summary.group(2)), int(summary.group(3))
    not_run = int(summary.group(4) or 0)  # an adapter given up leaves the rest not run, counted
    if passed + failed + skipped + not_run != job.vectors:
        problems.append(
            Problem(
                "summary",
                f"{passed} passed + {failed} failed + {skipped} skipped + {not_run} not run, but the filters select "
                f"{job.vectors} vectors",
            )
        )
    if res.status != (0 if failed == 0 and passed > 0 else 1):
        problems.append(Problem("exit-mismatch", f"exit status {res.status} with {passed} passed, {failed} failed"))
    if job.all_fail and passed:
        problems.append(
            Problem(
                "false-pass", f"{passed} vectors passed, yet every reply of the adapter was a failure of the protocol"
            )
        )
    if job.reports:
        problems += _check_reports(job, res, passed, failed)
    return problems


def _check_matrix(job: Job, res: RunResult, last: str) -> list[Problem]:
    m = _MATRIX.match(last)
    if not m:
        return [
            Problem(
                "summary", f"no 'N of M cells agree' line at the end: {_clip(last)}; stderr: {_clip(res.stderr[-300:])}"
            )
        ]
    agree, cells = int(m.group(1)), int(m.group(2))
    out = []
    if cells != job.vectors:
        out.append(Problem("summary", f"{cells} cells, but the matrix has {job.vectors}"))
    if res.status != (0 if agree == cells else 1):
        out.append(Problem("exit-mismatch", f"exit status {res.status} with {agree} of {cells} cells agreeing"))
    if job.all_fail and agree:
        out.append(
            Problem("false-pass", f"{agree} cells agree, yet every reply of the adapter was a failure of the protocol")
        )
    return out


def _check_reports(job: Job, res: RunResult, passed: int, failed: int) -> list[Problem]:
    out = []
    if res.json_report is None or res.junit_report is None:
        return [Problem("report", "--json or --junit wrote no file")]
    try:
        doc = _strict_json(res.json_report.decode("utf-8"))
        statuses = [r["status"] for r in doc["results"]]
        if len(statuses) != job.vectors or statuses.count("pass") != passed:
            out.append(
                Problem(
                    "report",
                    f"--json holds {len(statuses)} results ({statuses.count('pass')} passed); "
                    f"the summary says {passed} passed, {failed} failed",
                )
            )
    except (ValueError, KeyError, TypeError, RecursionError) as e:
        out.append(Problem("report", f"--json is not a valid report ({type(e).__name__}: {e})"))
    try:  # an adapter given up is one more test case of JUnit's, its failure (suite "adapter")
        given_up = b'"givenUp"' in res.json_report
        root = ElementTree.fromstring(res.junit_report)
        if root.get("tests") != str(job.vectors + given_up) or root.get("failures") != str(failed + given_up):
            out.append(
                Problem(
                    "report",
                    f"--junit says tests={root.get('tests')} failures={root.get('failures')}; "
                    f"the summary says {passed} passed, {failed} failed",
                )
            )
    except ElementTree.ParseError as e:
        out.append(Problem("report", f"--junit is not XML ({e})"))
    return out


def check(job: Job, res: RunResult) -> list[Problem]:
    """Everything ``res`` does against the contract for ``job`` (see the module docstring)."""
    return _check_conformance(job, res) if job.command == "conformance" else _check_lines(job, res)


# --- violations, narrowed down ----------------------------------------------------------------------------


def _printf_arg(data: bytes) -> str:
    """``data`` as a printf(1) format in single quotes: printable ASCII as it is, everything else as a POSIX
    octal escape (``\\377``), which every shell's printf reads."""
    out = []
    for b in data:
        c = chr(b)
        if 0x20 <= b < 0x7F and c not in "\\%'":
            out.append(c)
        else:
            out.append(f"\\{b:03o}")
    return "'" + "".join(out) + "'"


@dataclass(frozen=True)
class CliViolation:
    """A run that broke the contract: the command, the problem, and the input lines that reproduce it (one
    line when ``isolated``: that line alone breaks it)."""

    command: str
    args: tuple[str, ...]
    problem: str
    lines: tuple[bytes, ...] = ()
    isolated: bool = False
    final_newline: bool = True
    trailing: tuple[int, ...] = ()

    @property
    def kind(self) -> str:
        return self.problem.split(":", 1)[0]

    def job(self) -> Job:
        return Job(self.command, self.args, self.lines, self.final_newline, trailing=self.trailing)

    def reproducer(self, program: str = "rebalance-codec") -> str:
        """A shell command that runs it again: ``printf '…' | rebalance-codec …`` (every byte that is not
        printable ASCII as an octal escape), or, for long input, the input compressed in a ``python3 -c``."""
        cmd = program + " " + shlex.join(self.args)
        if self.command == "conformance":
            return cmd
        stdin = self.job().stdin()
        fmt = "".join(_printf_arg(bytes([b]))[1:-1] if b != 0x0A else "\\n" for b in stdin)
        if len(fmt) <= 400:
            write = f"printf '{fmt}'"
        else:
            packed = base64.b64encode(zlib.compress(stdin, 9)).decode("ascii")
            write = (
                f"python3 -c 'import base64, sys, zlib; sys.stdout.buffer.write(zlib.decompress("
                f"base64.b64decode(sys.argv[1])))' {packed}"
            )
        return f"{write} > {INPUT_FILE} && {cmd}" if _reads_file(self.args) else f"{write} | {cmd}"

    def to_json(self) -> dict:
        return {
            "command": self.command,
            "args": list(self.args),
            "problem": self.problem,
            "lines_hex": [line.hex() for line in self.lines],
            "isolated": self.isolated,
            "final_newline": self.final_newline,
            "trailing": list(self.trailing),
        }

    def __str__(self) -> str:
        lines = "".join(
            f"\n  line (hex): {line.hex()[:400]}{'...' if len(line) > 200 else ''}" for line in self.lines[:3]
        )
        more = f"\n  ... {len(self.lines)} lines in all" if len(self.lines) > 3 else ""
        repro = self.reproducer()
        repro = repro if len(repro) <= 2000 else repro[:2000] + "..."
        return f"{self.command}: {self.problem}{lines}{more}\n  reproduce: {repro}"


def violation_from_json(d: dict) -> CliViolation:
    return CliViolation(
        d["command"],
        tuple(d["args"]),
        d["problem"],
        tuple(bytes.fromhex(h) for h in d["lines_hex"]),
        d.get("isolated", False),
        d.get("final_newline", True),
        tuple(d.get("trailing", ())),
    )


def _describe(p: Problem) -> str:
    return f"{p.kind}: {p.detail}"


class Examiner:
    """Runs jobs against the contract and narrows a failing one down to the input lines behind it.

    ``program``: the CLI under test; ``max_rss_mb``: the memory a run may reach; ``timeout``: seconds a run of
    n lines may take (default: a base plus a share per line, :func:`_timeout`); ``budget``: how many runs the
    bisections of all failures together may take."""

    def __init__(
        self,
        *,
        program: tuple[str, ...] = DEFAULT_PROGRAM,
        max_rss_mb: int = DEFAULT_MAX_RSS_MB,
        timeout: float | None = None,
        budget: int = 40,
    ) -> None:
        self.program, self.max_rss_mb, self.timeout = tuple(program), max_rss_mb, timeout
        self._budget = budget
        self._lock = threading.Lock()

    def run(self, job: Job, *, unbuffered: bool = False) -> tuple[RunResult, list[Problem]]:
        res = execute(
            job, program=self.program, max_rss_mb=self.max_rss_mb, timeout=self.timeout, unbuffered=unbuffered
        )
        return res, check(job, res)

    def examine(self, job: Job) -> tuple[RunResult, list[Problem], list[CliViolation]]:
        """Run ``job``: its result, its problems, and the violations they narrow down to."""
        res, problems = self.run(job)
        return res, problems, self.narrow(job, problems) if problems else []

    def _spend(self) -> bool:
        with self._lock:
            self._budget -= 1
            return self._budget >= 0

    def narrow(self, job: Job, problems: list[Problem]) -> list[CliViolation]:
        """The violations behind ``problems`` of a run of ``job``, each with the fewest input lines found to
        reproduce it: a problem of one output line is that input line; a problem of the whole run is narrowed
        by :meth:`narrow_whole`."""
        if job.command == "conformance":
            args = job.args + (("--json", "R.json", "--junit", "R.xml") if job.reports else ())
            return [CliViolation(job.command, args, _describe(p)) for p in problems]
        out: list[CliViolation] = []
        seen: set[tuple[str, str]] = set()
        for p in problems:
            if p.index is None:  # a problem of the whole run: narrowed below
                continue
            sig = (p.kind, p.detail.split(":")[0])
            if sig not in seen:  # one line for each different complaint
                seen.add(sig)
                small = job.part(p.index, p.index + 1)
                _, again = self.run(small)
                out.append(
                    CliViolation(
                        job.command,
                        job.args,
                        _describe(p),
                        small.lines,
                        bool(again),
                        small.final_newline,
                        small.trailing,
                    )
                )
        whole = [p for p in problems if p.whole_run]
        if whole:
            out.append(self.narrow_whole(job, whole))
        return out

    def narrow_whole(self, job: Job, whole: list[Problem]) -> CliViolation:
        """A problem of the whole run: the line the process was at when it failed (the one after the last
        output line of an unbuffered re-run), if it fails alone the same way; else bisection."""
        kinds = {p.kind for p in whole}
        first = whole[0]
        at = self.run(job, unbuffered=True)[0].stdout.count(b"\n")
        if at < len(job.lines):
            small = job.part(at, at + 1)
            hit = [q for q in self.run(small)[1] if q.kind in kinds]
            if hit:
                return CliViolation(
                    job.command, job.args, _describe(hit[0]), small.lines, True, small.final_newline, small.trailing
                )
        lo, hi = 0, len(job.lines)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            found = None
            for a, b in ((lo, mid), (mid, hi)):
                if not self._spend():
                    break
                hit = [q for q in self.run(job.part(a, b))[1] if q.kind in kinds]
                if hit:
                    found = (hit[0], a, b)
                    break
            if found is None:  # out of budget, or only the lines together fail
                break
            first, lo, hi = found
        small = job.part(lo, hi)
        return CliViolation(
            job.command, job.args, _describe(first), small.lines, hi - lo == 1, small.final_newline, small.trailing
        )


def replay(
    violation: CliViolation, *, program: tuple[str, ...] = DEFAULT_PROGRAM, max_rss_mb: int = DEFAULT_MAX_RSS_MB
) -> list[Problem]:
    """Run a recorded violation's input again: the problems it still has (none once fixed)."""
    return Examiner(program=program, max_rss_mb=max_rss_mb).run(violation.job())[1]
