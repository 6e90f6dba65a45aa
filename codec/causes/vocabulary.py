"""The closed vocabulary of rebalance causes, and the records the engine gives out.

Every generation of a classic group and every epoch of a Kafka 4 group (KIP-848 consumer, KIP-1071 streams and
KIP-932 share groups) gets one **main cause** and the list of **every cause found** (:class:`Rebalance`). A cause
(:class:`Cause`) is a ``kind`` from :data:`KINDS` -- a closed set: tools match on it, so a kind is never renamed and
new ones are only ever added -- the ``members`` it names (member ids), a one-line ``detail``, the ``evidence``
(what the input showed, with when) and a ``confidence`` from :data:`CONFIDENCES`, which says how much of the cause
the input itself shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "KINDS",
    "CONFIDENCES",
    "CERTAIN",
    "LIKELY",
    "UNCERTAIN",
    "FIRST_SEEN",
    "MEMBER_JOINED",
    "MEMBER_LEFT",
    "SESSION_TIMEOUT",
    "REBALANCE_TIMEOUT",
    "SUBSCRIPTION_CHANGED",
    "METADATA_CHANGED",
    "STATIC_MEMBER_REPLACED",
    "LEADER_REJOINED",
    "STREAMS_PROBING",
    "STREAMS_VERSION_PROBING",
    "FOLLOW_UP",
    "COORDINATOR_MOVED",
    "ASSIGNMENT_CHANGED",
    "UNKNOWN",
    "Evidence",
    "Cause",
    "Rebalance",
]

FIRST_SEEN = "first-seen"
MEMBER_JOINED = "member-joined"
MEMBER_LEFT = "member-left"
SESSION_TIMEOUT = "session-timeout"
REBALANCE_TIMEOUT = "rebalance-timeout"
SUBSCRIPTION_CHANGED = "subscription-changed"
METADATA_CHANGED = "metadata-changed"
STATIC_MEMBER_REPLACED = "static-member-replaced"
LEADER_REJOINED = "leader-rejoined"
STREAMS_PROBING = "streams-probing"
STREAMS_VERSION_PROBING = "streams-version-probing"
FOLLOW_UP = "follow-up"
COORDINATOR_MOVED = "coordinator-moved"
ASSIGNMENT_CHANGED = "assignment-changed"
UNKNOWN = "unknown"

#: Every cause kind, with what it means. The order is the tie-break between causes the input shows at the same
#: moment (or without times, as in ``__consumer_offsets`` records): the first one listed is the main cause.
KINDS: dict[str, str] = {
    STATIC_MEMBER_REPLACED: "a group.instance.id came back with a new member id (a static member restarted), or a "
    "member was fenced with FENCED_INSTANCE_ID",
    MEMBER_JOINED: "a new member joined the group (a JoinGroup without a known member id; a KIP-848 heartbeat at "
    "member epoch 0; a member first seen in the coordinator's records)",
    MEMBER_LEFT: "a member left: a LeaveGroup (with its KIP-800 reason when its version carries one), a heartbeat at "
    "member epoch -1 or -2, or a member gone between two of the coordinator's records (which cannot tell a "
    "LeaveGroup from a timeout: confidence uncertain)",
    SESSION_TIMEOUT: "a member vanished without leaving: its heartbeats stopped and the coordinator removed it "
    "after session.timeout.ms",
    REBALANCE_TIMEOUT: "a member that stopped polling: dropped for not rejoining within its rebalance timeout "
    "(max.poll.interval.ms) while it still heartbeated, or its client left saying its poll interval expired",
    SUBSCRIPTION_CHANGED: "a member rejoined with other topics (or another topic pattern, offered protocols, "
    "Streams topology epoch)",
    METADATA_CHANGED: "the topics' metadata changed (partitions added, a topic created or deleted): the leader "
    "rejoined saying so, or a Kafka 4 group's metadata hash or partition metadata changed",
    LEADER_REJOINED: "the previous generation's leader rejoined first, for no reason the input names",
    FOLLOW_UP: "the previous assignment asked for an immediate rejoin: a Streams AssignmentInfo with "
    "next_rebalance_ms 0 or an error code, a cooperative revocation (partitions taken from a member and given to "
    "nobody), a Kafka Connect assignment with revocations or a scheduled delay",
    STREAMS_VERSION_PROBING: "Kafka Streams version probing (KIP-268): a member got an assignment in an older "
    "metadata version than it sent, or a newer commonly supported version, and rejoined to downgrade or upgrade",
    STREAMS_PROBING: "a KIP-441 probing rebalance: the previous AssignmentInfo's next rebalance time elapsed",
    COORDINATOR_MOVED: "the group's coordinator moved: NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE answers, or the "
    "group's requests went to another broker",
    ASSIGNMENT_CHANGED: "Kafka 4: the target assignment moved without a membership, subscription or metadata "
    "change the input shows",
    FIRST_SEEN: "no earlier generation or epoch of the group is in the input, and nothing in it says why this "
    "one formed",
    UNKNOWN: "the input shows no reason; the detail says what was seen",
}

CERTAIN, LIKELY, UNCERTAIN = "certain", "likely", "uncertain"
#: How much of a cause the input shows: ``certain`` -- the act itself is in the input (a LeaveGroup, a new member's
#: JoinGroup, an assignment asking for a follow-up); ``likely`` -- inferred from what the input shows by Kafka's
#: rules (heartbeats that stopped more than session.timeout.ms before the member was dropped); ``uncertain`` -- the
#: input cannot tell (a member gone between two records, heartbeats not captured), and the detail says what is
#: missing.
CONFIDENCES: dict[str, str] = {
    CERTAIN: "the act itself is in the input",
    LIKELY: "inferred from what the input shows, by Kafka's rules",
    UNCERTAIN: "the input cannot tell; the detail says what is missing",
}

_RANK = {k: i for i, k in enumerate(KINDS)}


@dataclass(frozen=True, slots=True)
class Evidence:
    """One thing the input showed: when (seconds since the epoch; None for a record without a time) and what."""

    ts: float | None
    what: str

    def json(self) -> dict:
        return {"ts": self.ts, "what": self.what}


@dataclass(frozen=True, slots=True)
class Cause:
    """Why a generation or epoch formed: a ``kind`` of :data:`KINDS`, the member ids it names, a detail, the
    evidence and a confidence of :data:`CONFIDENCES`. ``at``: when it set the rebalance off (its first evidence,
    or a deadline that elapsed), which orders causes; not part of the JSON (the evidence carries the times)."""

    kind: str
    members: tuple[str, ...] = ()
    detail: str = ""
    evidence: tuple[Evidence, ...] = ()
    confidence: str = CERTAIN
    at: float | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"not a cause kind: {self.kind!r}")
        if self.confidence not in CONFIDENCES:
            raise ValueError(f"not a confidence: {self.confidence!r}")

    def json(self) -> dict:
        return {
            "kind": self.kind,
            "members": list(self.members),
            "detail": self.detail,
            "evidence": [e.json() for e in self.evidence],
            "confidence": self.confidence,
        }

    def sort_key(self) -> tuple:
        """Earliest first; without times (or at the same time) by the order of :data:`KINDS`."""
        return (self.at is None, self.at if self.at is not None else 0.0, _RANK[self.kind], self.members)


@dataclass(slots=True)
class Rebalance:
    """A generation (classic group, ``generation`` set) or an epoch (Kafka 4 group, ``epoch`` set) with its
    causes, main one first. ``protocol``: ``classic``, ``consumer``, ``streams`` or ``share``; ``ts`` when it
    formed (None from records without a time); ``members`` its member ids when the input shows them;
    ``previous`` the generation or epoch before it in the input (None for the first); ``moved``,
    ``missed_sync`` and ``instances`` are what the detectors (:mod:`codec.causes.detectors`) read."""

    group: str
    protocol: str
    generation: int | None
    epoch: int | None
    ts: float | None
    members: tuple[str, ...]
    causes: tuple[Cause, ...]
    previous: int | None = None
    source: str = "capture"
    #: what the input shows of what it did: the partitions or tasks it moved (None: not shown), the members that
    #: got no assignment from their SyncGroup, each static member's ``group.instance.id``
    moved: int | None = None
    missed_sync: tuple[str, ...] = ()
    instances: dict[str, str] = field(default_factory=dict)

    @property
    def cause(self) -> Cause:
        return self.causes[0]

    @property
    def number(self) -> int:
        """The generation or the epoch."""
        n = self.generation if self.generation is not None else self.epoch
        assert n is not None  # (one of the two is always set)
        return n

    def cause_json(self) -> dict[str, Any]:
        """``{"cause": ...}``, and ``"causes"`` (every cause, main first) when there is more than one: the keys a
        ``generation`` record of ``capture --json`` (or an epoch of a heartbeat group) carries."""
        out: dict[str, Any] = {"cause": self.cause.json()}
        if len(self.causes) > 1:
            out["causes"] = [c.json() for c in self.causes]
        return out

    def json(self) -> dict[str, Any]:
        """The rebalance on its own (``type`` ``generation`` or ``epoch``), as a live watcher writes it."""
        out: dict[str, Any] = {
            "type": "generation" if self.generation is not None else "epoch",
            "group": self.group,
            "protocol": self.protocol,
        }
        out["generation" if self.generation is not None else "epoch"] = self.number
        out.update(
            {
                "previous": self.previous,
                "ts": self.ts,
                "source": self.source,
                "members": list(self.members),
                "moved": self.moved,
                **self.cause_json(),
            }
        )
        return out
