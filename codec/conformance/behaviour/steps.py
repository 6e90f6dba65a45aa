"""What the scenarios' scripts and judges share: faults armed on the scripted coordinator, waits for a client's
states, and the requests a judge looks up.

A fault answers the next request of an API (that a condition picks) with an error, once; the group's own state
changes with it where Kafka's would (an UNKNOWN_MEMBER_ID forgets the member, an ILLEGAL_GENERATION means the group
went on to another generation), so that the client's next request meets a coordinator that agrees with what it
was told.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .broker import Reply
from .scenario import until
from .trace import Request, Trace

if TYPE_CHECKING:
    from .runner import Run

__all__ = ["Faults", "error_body", "first_after", "stable"]

ERRORS = {
    14: "COORDINATOR_LOAD_IN_PROGRESS",
    15: "COORDINATOR_NOT_AVAILABLE",
    16: "NOT_COORDINATOR",
    22: "ILLEGAL_GENERATION",
    25: "UNKNOWN_MEMBER_ID",
    27: "REBALANCE_IN_PROGRESS",
    79: "MEMBER_ID_REQUIRED",
    82: "FENCED_INSTANCE_ID",
    110: "FENCED_MEMBER_EPOCH",
    111: "UNRELEASED_INSTANCE_ID",
    113: "STALE_MEMBER_EPOCH",
}


GROUP_APIS = ("JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "ConsumerGroupHeartbeat")


def name(code: int) -> str:
    return ERRORS.get(code, str(code))


def error_body(api: str, error: int, req: dict) -> dict:
    """The answer of ``api`` carrying ``error`` (every version's fields; the broker keeps the version's)."""
    if api == "Heartbeat":
        return {"throttleTimeMs": 0, "errorCode": error}
    if api == "SyncGroup":
        return {"throttleTimeMs": 0, "errorCode": error, "protocolType": None, "protocolName": None, "assignment": ""}
    if api == "JoinGroup":
        return {
            "throttleTimeMs": 0,
            "errorCode": error,
            "generationId": -1,
            "protocolType": None,
            "protocolName": None,
            "leader": "",
            "skipAssignment": False,
            "memberId": req.get("memberId", ""),
            "members": [],
        }
    if api == "LeaveGroup":
        return {"throttleTimeMs": 0, "errorCode": error, "members": []}
    if api == "FindCoordinator":
        keys = req.get("coordinatorKeys") or [req.get("key", "")]
        node = {"nodeId": -1, "host": "", "port": -1}
        return {
            "throttleTimeMs": 0,
            "errorCode": error,
            "errorMessage": name(error),
            **node,
            "coordinators": [{"key": k, **node, "errorCode": error, "errorMessage": name(error)} for k in keys],
        }
    if api == "ConsumerGroupHeartbeat":
        return {
            "throttleTimeMs": 0,
            "errorCode": error,
            "errorMessage": name(error),
            "memberId": req.get("memberId"),
            "memberEpoch": -1,
            "heartbeatIntervalMs": 0,
            "assignment": None,
        }
    raise KeyError(f"no error answer for {api}")


class Faults:
    """Errors armed by a script, each answered once to the next request of its API that ``when`` accepts; the
    requests they answered are kept (``hits``)."""

    def __init__(self) -> None:
        self.armed: list[tuple[str, int, Callable[[dict], bool], Callable[[], None] | None, float, bool]] = []
        self.hits: list[tuple[int, Request]] = []
        # the coordinator moved: every group request is answered this error (NOT_COORDINATOR) until the client
        # asks FindCoordinator again, as a broker that no longer coordinates the group answers
        self.moved = 0
        self.refused: list[Request] = []  # the group requests answered so while it was moved

    def arm(
        self,
        api: str,
        error: int,
        *,
        when: Callable[[dict], bool] = lambda req: True,
        then: Callable[[], None] | None = None,
        delay: float = 0.0,
        drop: bool = False,
    ) -> None:
        self.armed.append((api, error, when, then, delay, drop))

    def __call__(self, api: str, version: int, req: dict, entry: Request) -> Reply | None:
        if self.moved and api == "FindCoordinator":
            self.moved = 0
        elif self.moved and api in GROUP_APIS:
            self.refused.append(entry)
            return Reply(error_body(api, self.moved, req), error=self.moved)
        for i, (a, error, when, then, delay, drop) in enumerate(self.armed):
            if a == api and when(req):
                del self.armed[i]
                self.hits.append((error, entry))
                if then is not None:
                    then()
                if drop:
                    return Reply(None, delay=delay, drop=True, error=-1)
                if not error:  # the group's own answer, ``delay`` seconds late
                    return Reply(None, delay=delay)
                return Reply(error_body(api, error, req), delay=delay, error=error)
        return None


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
