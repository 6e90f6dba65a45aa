"""What the scenarios' scripts and judges share: waits for a client's states, and the requests a judge looks
up (the faults a script arms: :mod:`.faults`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .faults import Faults, error_body, name
from .scenario import until
from .trace import Request, Trace

if TYPE_CHECKING:
    from .runner import Run

__all__ = ["Faults", "error_body", "first_after", "name", "stable"]


def first_after(
    trace: Trace, apis: tuple[str, ...], t: float, *, pred: Callable[[Request], bool] = lambda r: True
) -> Request | None:
    for r in trace.requests:
        if r.api in apis and r.t > t and pred(r):
            return r
    return None


def _unchanged(trace: Trace, syncs: list[Request]) -> bool:
    """Whether the last SyncGroup gave the client what it was given before (and has reported)."""
    given = [r.extra.get("given") for r in trace.of("SyncGroup") if "given" in r.extra]
    return len(given) >= 2 and given[-1] == given[-2] and bool(trace.events("assigned"))


async def stable(run: Run, timeout: float = 15.0, *, after: float = -1.0) -> float:
    """Wait until the client is a stable member: an answered SyncGroup, its assigned line, then a heartbeat the
    coordinator accepted in that generation with no JoinGroup after the SyncGroup. Returns the time of that
    heartbeat."""
    trace, group = run.trace, run.group

    def ready() -> Any:
        syncs = [r for r in trace.of("SyncGroup", after=after) if not r.error and r.answered is not None]
        if not syncs:
            return None
        last = syncs[-1]
        if trace.of("JoinGroup", after=last.t):
            return None
        if not trace.events("assigned", after=last.t - 0.001) and not _unchanged(trace, syncs):
            return None  # (a cooperative member given what it had may say nothing)
        beats = [r for r in trace.of("Heartbeat", after=last.t) if not r.error and r.answered is not None]
        if beats and beats[-1].body.get("generationId") == group.generation:
            return beats[-1].t
        return None

    return await until(trace, ready, timeout, "a stable membership (SyncGroup answered, assigned, a heartbeat)")
