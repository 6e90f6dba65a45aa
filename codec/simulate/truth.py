"""Why each simulated rebalance happened, as the simulator's coordinator knows it, in the words of
:mod:`codec.causes`: the simulator's rebalances carry their ``cause`` (the kind and the member ids), the ground
truth the cause engine's reading of the simulator's frames is held to."""

from __future__ import annotations

from ..causes.vocabulary import (
    FOLLOW_UP,
    MEMBER_JOINED,
    MEMBER_LEFT,
    SESSION_TIMEOUT,
    STREAMS_PROBING,
    STREAMS_VERSION_PROBING,
    UNKNOWN,
)

__all__ = ["join_cause", "rebalance_record", "JOIN_REASONS", "LEFT", "EXPIRED"]

#: the simulated members' JoinGroup reasons (KIP-800) that start a rebalance, and the cause each is
JOIN_REASONS = {
    "scheduled probing rebalance": STREAMS_PROBING,
    "nextRebalance 0": FOLLOW_UP,
    "partitions revoked": FOLLOW_UP,
    "metadata upgrade": STREAMS_VERSION_PROBING,
    "metadata downgrade": STREAMS_VERSION_PROBING,
}
LEFT, EXPIRED = MEMBER_LEFT, SESSION_TIMEOUT


def join_cause(new_member: bool, reason: str | None) -> str:
    """The cause of a rebalance a JoinGroup started: a member the coordinator did not know joined, or an existing
    member rejoined for ``reason``."""
    if new_member:
        return MEMBER_JOINED
    for prefix, kind in JOIN_REASONS.items():
        if reason and reason.startswith(prefix):
            return kind
    return UNKNOWN


def rebalance_record(
    generation: int, started: float, completed: float, reasons, cause: tuple[str, str], protocol: str, **rest
) -> dict:
    """A completed rebalance as the Connect and consumer group runs record it: its generation (or epoch), when it
    started and completed, what set it off (``reasons``, and ``cause``: the kind and the member it names), the
    protocol it ran, then ``rest`` in order."""
    return {
        "generation": generation,
        "started_s": round(started, 3),
        "completed_s": round(completed, 3),
        "reasons": list(reasons),
        "cause": cause[0],
        "cause_member": cause[1],
        "protocol": protocol,
        **rest,
    }
