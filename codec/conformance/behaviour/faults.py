"""Errors a scenario's script arms on the scripted coordinator, each answered once to the next request of its API
that a condition picks; and a coordinator that moved (every group request refused until the client asks
FindCoordinator again).

The group's own state changes with a fault where Kafka's would (an UNKNOWN_MEMBER_ID forgets the member, an
ILLEGAL_GENERATION means the group went on to another generation; the scripts say so), so that the client's next
request meets a coordinator that agrees with what it was told.
"""

from __future__ import annotations

from typing import Callable

from ...group.messages import APIS
from ...wire.registry import error_code
from .broker import Reply
from .trace import Request

__all__ = ["ERRORS", "Faults", "GROUP_APIS", "error_body", "name"]

#: the errors a script arms, by code -> Kafka's name (the one table of error names: codec.wire.registry)
ERRORS = {
    error_code(n): n
    for n in (
        "COORDINATOR_LOAD_IN_PROGRESS",
        "COORDINATOR_NOT_AVAILABLE",
        "NOT_COORDINATOR",
        "ILLEGAL_GENERATION",
        "UNKNOWN_MEMBER_ID",
        "REBALANCE_IN_PROGRESS",
        "MEMBER_ID_REQUIRED",
        "FENCED_INSTANCE_ID",
        "FENCED_MEMBER_EPOCH",
        "UNRELEASED_INSTANCE_ID",
        "STALE_MEMBER_EPOCH",
    )
}


# the membership RPCs a moved coordinator refuses (with the error it moved with): the classic group protocol's
# (codec.group.messages) and KIP-848's heartbeat
GROUP_APIS = (*APIS, "ConsumerGroupHeartbeat")


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
