"""What the rebalance stories share: the error names of group flows and a member's events.

The error names are Kafka's (``org.apache.kafka.common.protocol.Errors``), from the project's one table of them
(:mod:`codec.wire.error_codes`, read through :mod:`codec.wire.registry`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..wire.registry import error_names

__all__ = ["ERROR_NAMES", "Event", "error_name"]

#: Kafka's error code -> name (the one table: :mod:`codec.wire.error_codes`, read through the registry)
ERROR_NAMES = error_names()


def error_name(code: int | None) -> str:
    """``27 REBALANCE_IN_PROGRESS``; ``no response`` for None."""
    if code is None:
        return "no response"
    return f"{code} {ERROR_NAMES.get(code, 'error')}"


@dataclass(slots=True)
class Event:
    """Something that happened to a member: ``kind`` ``join``, ``sync``, ``heartbeat`` (failed ones only),
    ``leave`` or, from ``__consumer_offsets``, ``deleted``; in a heartbeat-based group also ``static leave``
    (member epoch -2), ``fenced`` and ``removed`` (a member's records deleted); ``error_code`` None while
    unanswered (and for events that are no answer)."""

    ts: float | None
    kind: str
    member: str | None
    error_code: int | None
    detail: str = ""

    def json(self) -> dict:
        return {
            "ts": self.ts,
            "kind": self.kind,
            "member": self.member,
            "error_code": self.error_code,
            "detail": self.detail,
        }
