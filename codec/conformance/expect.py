"""Expectations files, test262-style: the vectors an implementation is known to fail, each with its reason.

    # kafka-python 3.0.12: known differences from Kafka
    kj-joingrouprequest-error-groupinstanceid-v4   # writes v4 without the groupInstanceId it was given

One vector id a line; ``#`` starts a comment (after an id: the reason); blank lines are ignored. Applied to a
run (:func:`apply`):

* a listed vector that fails is an expected failure (``xfail``): reported, and the run stays green;
* a listed vector that passes is fixed (``xpass``): "fixed: remove <id> from FILE", and the run fails, so the
  list stays true;
* a listed vector that is skipped stays skipped;
* a listed id that is not a vector of the suite at all is stale: reported, and the run fails; a listed id the
  run's selection (``--message``, ``--version``, ``--op``, ``--flags``, files) leaves out is not mentioned —
  a list is written for the whole run and holds for any part of it;
* a failure the file does not list fails the run as before.

Generated cases (``conformance --generate``) have no stable ids (a new seed, new cases): a line
``generated MESSAGE VERSIONS OP WHERE  # reason`` lists a known difference by what it is about instead, each of
the four a value or ``*`` (any): the message, its versions (``3``, ``3-5``, ``5-``), the op (``decode``,
``encode``) and the failure's class, ``WHERE``: the JSON path of the first field that differs with every index
written ``[]`` (``$.members[].groupInstanceId``; ``*`` matches any run of characters, so
``*._unknownTaggedFields`` is every level), or ``error`` (valid input refused), ``bytes`` (bytes the reference
cannot read back), ``failure`` (no answer the protocol defines). A generated failure a line matches is an
expected failure; a line that matches none of a run's failures is reported (``NOT SEEN``: fixed, or this seed
did not reach it; not when the run drew no case of its message and versions) and does not fail the run; a line
naming a message the suite does not have is stale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import text as _text
from ..errors import InputError, read_whole
from .messages import DATA_MAPS, MESSAGES
from .runner import GeneratedRun, VectorResult, parse_versions

__all__ = [
    "Expectations",
    "Pattern",
    "apply",
    "apply_generated",
    "expectations_text",
    "generated_lines",
    "read_expectations",
]

_ID = re.compile(r"\S+\Z")
GENERATED = "generated"


@dataclass(frozen=True)
class Pattern:
    """A ``generated`` line: which generated failures it lists (None: any)."""

    line: int
    text: str
    message: str | None
    versions: tuple[int, int | None] | None
    op: str | None
    where: re.Pattern
    reason: str

    def covers(self, message: str, version: int | None) -> bool:
        """Whether the line is about ``message`` at ``version``."""
        if self.message is not None and message != self.message:
            return False
        if self.versions is not None:
            lo, hi = self.versions
            return version is not None and lo <= version and (hi is None or version <= hi)
        return True

    def matches(self, op: str, message: str, version: int | None, where: str) -> bool:
        return self.covers(message, version) and self.op in (None, op) and self.where.fullmatch(where) is not None


@dataclass(frozen=True)
class Expectations:
    path: str
    reasons: dict[str, str]  # id -> the reason (the comment after it; may be empty)
    lines: dict[str, int]  # id -> its line number
    patterns: list[Pattern] = field(default_factory=list)  # the generated lines


def _pattern(path, n: int, entry: str, reason: str) -> Pattern:
    parts = entry.split()
    if len(parts) != 5:
        raise InputError(
            f"{path}:{n}: a generated line is 'generated MESSAGE VERSIONS OP WHERE' (each may be *): "
            f"{_text.printable(entry[:120])}"
        )
    _, message, versions, op, where = parts
    if op not in ("decode", "encode", "assign", "*"):
        raise InputError(
            f"{path}:{n}: the op of a generated line is decode, encode, assign or *, not {_text.printable(op[:40])}"
        )
    try:
        span = None if versions == "*" else parse_versions(versions)
    except ValueError as e:
        raise InputError(f"{path}:{n}: {_text.printable(str(e))}") from None
    if not where.strip("*$.[]"):
        raise InputError(
            f"{path}:{n}: a generated line names what differs — a JSON path with a field in it, error, bytes or "
            f"failure —, not {_text.printable(where[:40])}, which would expect every failure of the messages it names"
        )
    glob = re.compile(".*".join(re.escape(p) for p in where.split("*")))
    return Pattern(n, entry, None if message == "*" else message, span, None if op == "*" else op, glob, reason)


def read_expectations(path: str | Path) -> Expectations:
    """Read an expectations file; a missing or unreadable file, a line with two ids, or an id listed twice is
    one :class:`InputError` line naming the file and line."""
    try:
        # (a BOM, which Windows editors write, is not part of an id)
        text = read_whole(path, f"expectations file {path}").decode("utf-8-sig")
    except OSError as e:
        raise InputError(f"expectations file {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"expectations file {path}: not UTF-8 at byte {e.start}") from None
    reasons: dict[str, str] = {}
    lines: dict[str, int] = {}
    patterns: list[Pattern] = []
    for n, line in enumerate(text.split("\n"), 1):
        entry, _, comment = line.partition("#")
        entry = entry.strip()
        if not entry:
            continue
        if entry.split(None, 1)[0] == GENERATED and entry != GENERATED:
            patterns.append(_pattern(path, n, entry, comment.strip()))
            continue
        if not _ID.match(entry):
            raise InputError(
                f"{path}:{n}: one vector id a line (a reason goes after #): {_text.printable(entry[:120])}"
            )
        if entry in lines:
            raise InputError(f"{path}:{n}: {_text.printable(entry)} is listed twice (first on line {lines[entry]})")
        reasons[entry], lines[entry] = comment.strip(), n
    return Expectations(str(path), reasons, lines, patterns)


def apply(results: list[VectorResult], exp: Expectations, known_ids: set[str]) -> tuple[list[VectorResult], list[str]]:
    """The results with the listed ones turned into ``xfail``/``xpass``, and the stale entries (ids that are
    not in ``known_ids``, the suite's vectors and rounds), each as ``FILE:LINE: id``."""
    out = []
    for r in results:
        if r.id not in exp.reasons:
            out.append(r)
        elif r.status == "fail":
            out.append(replace(r, status="xfail", reason=exp.reasons[r.id]))
        elif r.status == "pass":
            out.append(
                replace(
                    r,
                    status="xpass",
                    reason=exp.reasons[r.id],
                    detail=f"fixed: remove {r.id} from {exp.path} (line {exp.lines[r.id]})",
                )
            )
        else:
            out.append(r)
    stale = [f"{exp.path}:{exp.lines[i]}: {i}" for i in exp.reasons if i not in known_ids]
    stale += [
        f"{exp.path}:{p.line}: {p.text}" for p in exp.patterns if p.message is not None and p.message not in MESSAGES
    ]
    return out, stale


def apply_generated(gen: GeneratedRun, exp: Expectations) -> list[str]:
    """Mark the generated failure groups a ``generated`` line lists as expected (with its reason); returns the
    lines that matched none of them, each as ``FILE:LINE: line``. Each line that matched is counted aloud
    (``gen.coverage``): the cases it made expected, of the cases of the ops, messages and versions it names."""
    used: dict[int, int] = {}
    for group, (count, *_) in gen.failed.items():
        for p in exp.patterns:
            if p.matches(*group):
                gen.expected[group] = p.reason
                used[p.line] = used.get(p.line, 0) + count
                break
    totals: dict[tuple, int] = dict(gen.passed)
    for (op, m, v, _), (count, *_) in gen.failed.items():
        totals[(op, m, v)] = totals.get((op, m, v), 0) + count
    for p in exp.patterns:
        if p.line in used:
            of = sum(n for (op, m, v), n in totals.items() if p.op in (None, op) and p.covers(m, v))
            gen.coverage.append((f"{exp.path}:{p.line}: {p.text}", used[p.line], of))
    return [
        f"{exp.path}:{p.line}: {p.text}"
        for p in exp.patterns
        if p.line not in used
        and (p.message is None or p.message in MESSAGES)
        and any(p.covers(m, v) for m, v in gen.cells)
    ]


def expectations_text(results: list[VectorResult], implementation: str, gen: GeneratedRun | None = None) -> str:
    """Today's failures (unexpected and expected) as a starting expectations file: each id with its one-line
    diff as the comment, to be replaced by the reason once investigated; the generated failures as ``generated``
    lines by what differs (:func:`generated_lines`), each with its count and first case."""
    head = [
        f"# Known failures of {implementation}, written by rebalance-codec conformance --write-expect.",
        "# One vector id a line; the comment is the reason. Replace each diff below by what was found.",
        "# The generated lines name what differs, not the versions this run's seed drew: they hold for other seeds.",
        "",
    ]
    body = []
    for r in results:
        if r.status in ("fail", "xfail"):
            why = r.reason if r.status == "xfail" and r.reason else r.detail
            why = _text.printable(why).replace("\n", " ")
            body.append(f"{r.id}  # {why[:300]}" if why else r.id)
    if gen is not None:
        body += generated_lines(gen)
    return "\n".join(head + body) + "\n"


_CLASSES = ("error", "bytes", "failure", "members")  # failure classes that are no JSON path


def _seen_again(where: str) -> str:
    """A failure class as another seed's cases show it again: a map whose keys are data (unknown tagged fields,
    client tags) at any level of any struct, ``*._unknownTaggedFields`` (the seed decides which structs carry one)."""
    for name in DATA_MAPS:
        if where == f"$.{name}" or where.endswith(f".{name}"):
            return f"*.{name}"
    return where


def generated_lines(gen: GeneratedRun) -> list[str]:
    """The ``generated`` lines of a run's failures, written to hold under other seeds: every version (``*``: a seed
    draws versions at random), each failure class as :func:`_seen_again` writes it, and a JSON-path class seen in
    several messages as one line for every message (the same field read or written the same wrong way); the
    classes that are no path (error, bytes, failure) stay by message."""
    groups: dict[tuple[str, str], dict] = {}
    for (op, message, version, where), (count, first, detail) in gen.failed.items():
        g = groups.setdefault((op, _seen_again(where)), {"messages": [], "count": 0, "first": (first, detail)})
        if message not in g["messages"]:
            g["messages"].append(message)
        g["count"] += count
        g.setdefault("reason", gen.expected.get((op, message, version, where)))
    lines = []
    for (op, where), g in groups.items():
        messages = [None] if len(g["messages"]) > 1 and where not in _CLASSES else g["messages"]
        for message in messages:
            count, (first, detail) = g["count"], g["first"]
            scope = "" if message is not None else f" of {len(g['messages'])} messages"
            why = g["reason"] or (
                f"{count} generated case{'' if count == 1 else 's'}{scope} (seed {gen.seed}), e.g. {first}: {detail}"
            )
            line = f"generated {message or '*'} * {op} {where}  # {why}"
            lines.append(_text.printable(line.replace("\n", " "))[:400])
    return lines
