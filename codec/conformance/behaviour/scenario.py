"""A scenario: a rule of group membership, the script that puts a client in front of it, and the judge.

Each scenario names its rule and where Kafka's Java client and coordinator show it (file and method, Kafka's
4.4 branch). Its script (``play``) waits on what the client does and drives the scripted coordinator (a fault
answered once, a rebalance begun, the driver stopped or restarted); its judge reads the trace alone and says
pass, or fail with what the client sent and what the rule expected. A script that waits in vain raises
:class:`Incomplete`, which fails the scenario with what it waited for and what it saw last.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable

from .trace import Request, Trace

Run = Any  # codec.conformance.behaviour.runner.Run (not imported: the runner imports this module)

__all__ = ["Config", "Incomplete", "Scenario", "Verdict", "fail", "ok", "parts", "skip"]


@dataclass(frozen=True)
class Config:
    """The timeouts a driver is given (through its environment) and the scripts count with, in milliseconds."""

    session_timeout_ms: int = 4000
    heartbeat_interval_ms: int = 300
    rebalance_timeout_ms: int = 5000
    consumer_interval_ms: int = 400  # the heartbeat interval the KIP-848 coordinator gives
    startup: float = 10.0  # seconds a driver has to connect


@dataclass(frozen=True)
class Verdict:
    status: str  # pass, fail, skip
    detail: str = ""


def ok(detail: str = "") -> Verdict:
    return Verdict("pass", detail)


def fail(detail: str) -> Verdict:
    return Verdict("fail", detail)


def skip(detail: str) -> Verdict:
    return Verdict("skip", detail)


class Incomplete(Exception):
    """A script's wait ran out: the client never did what the scenario waited for."""


def parts(value: Any) -> list[tuple[str, int]]:
    """A driver line's or a trace's partitions as sorted (topic, partition) pairs."""
    out = []
    for item in value or []:
        if isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str) and type(item[1]) is int:
            out.append((item[0], item[1]))
    return sorted(out)


@dataclass
class Scenario:
    """One named scenario. ``needs``: what the driver must declare (else skipped); ``protocol``: ``classic`` or
    ``consumer``; ``assignor``: ``eager``, ``cooperative`` or ``any`` (the REBALANCE_ASSIGNOR it is run with);
    ``static``: run with REBALANCE_INSTANCE_ID; ``bound``: the most seconds it may take, script and judge."""

    name: str
    title: str
    rule: str
    java: tuple[str, ...]
    play: Callable[[Run], Any]
    judge: Callable[[Run], Verdict]
    protocol: str = "classic"
    needs: frozenset[str] = frozenset({"classic"})
    assignor: str = "any"
    static: bool = False
    bound: float = 25.0
    group: Callable[[Run], Any] | None = None  # builds the scripted group (default: a plain one)
    topics: dict[str, int] = field(default_factory=lambda: {"behaviour-a": 4, "behaviour-b": 2})
    seeded: tuple[str, ...] = ()  # the seeded bugs this scenario is written to catch (for the docs)


# --- what scripts wait for -------------------------------------------------------------------------------------


async def until(trace: Trace, pred: Callable[[], Any], timeout: float, what: str) -> Any:
    got = await trace.wait_for(pred, timeout)
    if not got:
        raise Incomplete(f"waited {timeout:g} s for {what}; {last_seen(trace)}")
    return got


def last_seen(trace: Trace) -> str:
    """The last few requests and driver lines, for a failure's detail."""
    reqs = [r for r in trace.requests if r.api not in ("Fetch", "Metadata", "ListOffsets", "ApiVersions")][-3:]
    lines = trace.lines[-2:]
    said = "; ".join(r.short() + (f" answered {r.error}" if r.error else "") for r in reqs) or "no group request"
    drv = "; ".join(f"{e.event} at {e.t:.2f} s" for e in lines) or "no driver line"
    errs = [n.detail for n in trace.notes if n.kind in ("protocol-error", "broker-error")][-1:]
    return f"last seen: {said}; driver: {drv}" + (f"; broker: {errs[0]}" if errs else "")


def successful(trace: Trace, api: str, after: float = -1.0) -> list[Request]:
    return [r for r in trace.of(api, after=after) if not r.error and not r.dropped and r.answered is not None]


async def sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)
