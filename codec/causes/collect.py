"""Causes found while settling one generation or epoch, merged into the causes the engine gives out.

Each finding names a kind, the member it concerns (or none), its evidence and confidence, and when it set the
rebalance off. Findings of one kind merge into one :class:`~codec.causes.vocabulary.Cause` naming every member
(several members joining the same rebalance are one ``member-joined`` cause), at the earliest of their times and
with the least of their confidences; a cause keeps at most :data:`MAX_EVIDENCE` pieces of evidence (the first
ones, then a count of the rest), so that what is written stays bounded by the group, not by the input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .vocabulary import CERTAIN, CONFIDENCES, Cause, Evidence

__all__ = ["MAX_EVIDENCE", "MAX_DETAILS", "Found", "Findings", "when"]

MAX_EVIDENCE = 8
MAX_DETAILS = 4  # members' details joined into one cause's detail; the rest are counted
_ORDER = list(CONFIDENCES)


def when(ts: float | None) -> str:
    """A time for a detail or an evidence line: ``12:00:01.250`` (UTC), or ``?``."""
    if ts is None or not math.isfinite(ts):
        return "?"
    day = ts % 86400
    return f"{int(day // 3600):02d}:{int(day % 3600 // 60):02d}:{day % 60:06.3f}"


@dataclass(slots=True)
class Found:
    kind: str
    member: str | None
    detail: str
    evidence: list[Evidence]
    confidence: str = CERTAIN
    at: float | None = None


@dataclass(slots=True)
class Findings:
    """The findings of one rebalance, in the order found."""

    found: list[Found] = field(default_factory=list)

    def add(
        self,
        kind: str,
        member: str | None,
        detail: str,
        evidence: list[Evidence] | tuple[Evidence, ...] = (),
        *,
        confidence: str = CERTAIN,
        at: float | None = None,
    ) -> None:
        if at is None:
            at = next((e.ts for e in evidence if e.ts is not None), None)
        self.found.append(Found(kind, member, detail, list(evidence), confidence, at))

    def discard(self, kind: str, member: str) -> None:
        """Drop the findings of ``kind`` about ``member`` (told better by another finding)."""
        self.found = [f for f in self.found if not (f.kind == kind and f.member == member)]

    def kinds(self) -> set[str]:
        return {f.kind for f in self.found}

    def members(self, kind: str) -> set[str]:
        return {f.member for f in self.found if f.kind == kind and f.member is not None}

    def __bool__(self) -> bool:
        return bool(self.found)

    def causes(self) -> tuple[Cause, ...]:
        """One cause per kind, the main cause (the earliest; see :meth:`Cause.sort_key`) first."""
        by_kind: dict[str, list[Found]] = {}
        for f in self.found:
            by_kind.setdefault(f.kind, []).append(f)
        out = []
        for kind, fs in by_kind.items():
            fs.sort(key=lambda f: (f.at is None, f.at or 0.0))
            members: list[str] = []
            for f in fs:
                if f.member is not None and f.member not in members:
                    members.append(f.member)
            details = list(dict.fromkeys(f.detail for f in fs if f.detail))
            detail = "; ".join(details[:MAX_DETAILS])
            if len(details) > MAX_DETAILS:
                detail += f"; and {len(details) - MAX_DETAILS:,} more"
            evidence = [e for f in fs for e in f.evidence]
            evidence.sort(key=lambda e: (e.ts is None, e.ts or 0.0))
            if len(evidence) > MAX_EVIDENCE:
                rest = len(evidence) - (MAX_EVIDENCE - 1)
                evidence = evidence[: MAX_EVIDENCE - 1] + [Evidence(None, f"and {rest:,} more")]
            confidence = max((f.confidence for f in fs), key=_ORDER.index)
            ats = [f.at for f in fs if f.at is not None]
            out.append(Cause(kind, tuple(members), detail, tuple(evidence), confidence, at=min(ats) if ats else None))
        out.sort(key=Cause.sort_key)
        return tuple(out)
