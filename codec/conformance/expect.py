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
from .messages import MESSAGES
from .runner import GeneratedRun, VectorResult, parse_versions

__all__ = ["Expectations", "Pattern", "apply", "apply_generated", "expectations_text", "read_expectations"]

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
    if op not in ("decode", "encode", "*"):
        raise InputError(
            f"{path}:{n}: the op of a generated line is decode, encode or *, not {_text.printable(op[:40])}"
        )
    try:
        span = None if versions == "*" else parse_versions(versions)
    except ValueError as e:
        raise InputError(f"{path}:{n}: {_text.printable(str(e))}") from None
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
    lines that matched none of them, each as ``FILE:LINE: line``."""
    used = set()
    for group in gen.failed:
        for p in exp.patterns:
            if p.matches(*group):
                gen.expected[group] = p.reason
                used.add(p.line)
                break
    return [
        f"{exp.path}:{p.line}: {p.text}"
        for p in exp.patterns
        if p.line not in used
        and (p.message is None or p.message in MESSAGES)
        and any(p.covers(m, v) for m, v in gen.cells)
    ]


def expectations_text(results: list[VectorResult], implementation: str, gen: GeneratedRun | None = None) -> str:
    """Today's failures (unexpected and expected) as a starting expectations file: each id with its one-line
    diff as the comment, to be replaced by the reason once investigated; each generated failure group as a
    ``generated`` line with its count and first case."""
    head = [
        f"# Known failures of {implementation}, written by rebalance-codec conformance --write-expect.",
        "# One vector id a line; the comment is the reason. Replace each diff below by what was found.",
        "",
    ]
    body = []
    for r in results:
        if r.status in ("fail", "xfail"):
            why = r.reason if r.status == "xfail" and r.reason else r.detail
            why = _text.printable(why).replace("\n", " ")
            body.append(f"{r.id}  # {why[:300]}" if why else r.id)
    if gen is not None:
        for (op, message, version, where), (count, first, detail) in gen.failed.items():
            why = (
                gen.expected.get((op, message, version, where))
                or f"{count} generated case{'' if count == 1 else 's'} (seed {gen.seed}), e.g. {first}: {detail}"
            )
            ver = "*" if version is None else str(version)
            body.append(_text.printable(f"generated {message} {ver} {op} {where}  # {why}".replace("\n", " "))[:400])
    return "\n".join(head + body) + "\n"
