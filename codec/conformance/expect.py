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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from .. import text as _text
from ..errors import InputError
from .runner import VectorResult

__all__ = ["Expectations", "apply", "expectations_text", "read_expectations"]

_ID = re.compile(r"\S+\Z")


@dataclass(frozen=True)
class Expectations:
    path: str
    reasons: dict[str, str]  # id -> the reason (the comment after it; may be empty)
    lines: dict[str, int]  # id -> its line number


def read_expectations(path: str | Path) -> Expectations:
    """Read an expectations file; a missing or unreadable file, a line with two ids, or an id listed twice is
    one :class:`InputError` line naming the file and line."""
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")  # a BOM (Windows editors) is not part of an id
    except OSError as e:
        raise InputError(f"expectations file {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"expectations file {path}: not UTF-8 at byte {e.start}") from None
    reasons: dict[str, str] = {}
    lines: dict[str, int] = {}
    for n, line in enumerate(text.split("\n"), 1):
        entry, _, comment = line.partition("#")
        entry = entry.strip()
        if not entry:
            continue
        if not _ID.match(entry):
            raise InputError(f"{path}:{n}: one vector id a line (a reason goes after #): "
                             f"{_text.printable(entry[:120])}")
        if entry in lines:
            raise InputError(f"{path}:{n}: {_text.printable(entry)} is listed twice (first on line {lines[entry]})")
        reasons[entry], lines[entry] = comment.strip(), n
    return Expectations(str(path), reasons, lines)


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
            out.append(replace(r, status="xpass", reason=exp.reasons[r.id],
                               detail=f"fixed: remove {r.id} from {exp.path} (line {exp.lines[r.id]})"))
        else:
            out.append(r)
    stale = [f"{exp.path}:{exp.lines[i]}: {i}" for i in exp.reasons if i not in known_ids]
    return out, stale


def expectations_text(results: list[VectorResult], implementation: str) -> str:
    """Today's failures (unexpected and expected) as a starting expectations file: each id with its one-line
    diff as the comment, to be replaced by the reason once investigated."""
    head = [f"# Known failures of {implementation}, written by rebalance-codec conformance --write-expect.",
            "# One vector id a line; the comment is the reason. Replace each diff below by what was found.", ""]
    body = []
    for r in results:
        if r.status in ("fail", "xfail"):
            why = r.reason if r.status == "xfail" and r.reason else r.detail
            why = _text.printable(why).replace("\n", " ")
            body.append(f"{r.id}  # {why[:300]}" if why else r.id)
    return "\n".join(head + body) + "\n"
