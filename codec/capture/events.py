"""What the rebalance stories share: the error names of group flows and a member's events.

The error table holds the codes group flows meet: classic groups (wire-facts §7, "Error codes seen in group
flows") and the heartbeat-based groups of Kafka 4 (KIP-848, KIP-1071), with the names and numbers of Kafka's
``org.apache.kafka.common.protocol.Errors`` (the codes ConsumerGroupHeartbeatResponse.json and
StreamsGroupHeartbeatResponse.json list as supported errors).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ERROR_NAMES", "Event", "error_name"]

ERROR_NAMES = {
    0: "NONE",
    -1: "UNKNOWN_SERVER_ERROR",
    14: "COORDINATOR_LOAD_IN_PROGRESS",
    15: "COORDINATOR_NOT_AVAILABLE",
    16: "NOT_COORDINATOR",
    22: "ILLEGAL_GENERATION",
    23: "INCONSISTENT_GROUP_PROTOCOL",
    24: "INVALID_GROUP_ID",
    25: "UNKNOWN_MEMBER_ID",
    26: "INVALID_SESSION_TIMEOUT",
    27: "REBALANCE_IN_PROGRESS",
    29: "TOPIC_AUTHORIZATION_FAILED",
    30: "GROUP_AUTHORIZATION_FAILED",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    35: "UNSUPPORTED_VERSION",
    42: "INVALID_REQUEST",
    69: "GROUP_ID_NOT_FOUND",
    79: "MEMBER_ID_REQUIRED",
    81: "GROUP_MAX_SIZE_REACHED",
    82: "FENCED_INSTANCE_ID",
    100: "UNKNOWN_TOPIC_ID",
    110: "FENCED_MEMBER_EPOCH",
    111: "UNRELEASED_INSTANCE_ID",
    112: "UNSUPPORTED_ASSIGNOR",
    113: "STALE_MEMBER_EPOCH",
    128: "INVALID_REGULAR_EXPRESSION",
    130: "STREAMS_INVALID_TOPOLOGY",
    131: "STREAMS_INVALID_TOPOLOGY_EPOCH",
    132: "STREAMS_TOPOLOGY_FENCED",
}


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
