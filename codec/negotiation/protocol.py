"""Group protocol selection, as Kafka's group coordinator does it (seed 004; ``ClassicGroup.selectProtocol``).

* Every member lists its protocols in preference order.
* The candidates are the protocols *every* member supports.
* Each member votes for the first candidate in its own list.
* The protocol with the most votes wins.
* Tie-break: Kafka counts votes in a ``java.util.HashMap`` and takes ``stream().max(...)``, which keeps the
  *first* maximal entry in the map's iteration order. For the few protocol names of a group, that order
  is the order of their hash buckets (``String.hashCode`` spread as ``h ^ (h >>> 16)``, masked by the table
  size), and, inside one bucket, the order in which the names first received a vote. We reproduce it.
* No common protocol, or a member whose protocol type differs from the group's (or is empty):
  ``INCONSISTENT_GROUP_PROTOCOL`` (23).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..javaorder import hashmap_order, string_hash

__all__ = [
    "INCONSISTENT_GROUP_PROTOCOL",
    "GroupMember",
    "Selection",
    "ProtocolSelectionError",
    "select_protocol",
    "java_string_hash",
    "java_hashmap_order",
]

INCONSISTENT_GROUP_PROTOCOL = 23


# Java's String.hashCode and HashMap order, under the names this package has always exported
java_string_hash = string_hash
java_hashmap_order = hashmap_order


@dataclass(frozen=True)
class GroupMember:
    member_id: str
    protocols: tuple[str, ...]  # preference order, as in JoinGroupRequest.Protocols
    protocol_type: str = "consumer"


@dataclass(frozen=True)
class Selection:
    protocol: str
    votes: dict[str, int]
    candidates: tuple[str, ...]  # in the first member's preference order
    tie: tuple[str, ...] = field(default=())  # the protocols that tied for most votes, if any


class ProtocolSelectionError(Exception):
    """The coordinator answers INCONSISTENT_GROUP_PROTOCOL (23)."""

    error_code = INCONSISTENT_GROUP_PROTOCOL

    def __init__(self, reason: str) -> None:
        super().__init__(f"INCONSISTENT_GROUP_PROTOCOL (23): {reason}")
        self.reason = reason


def select_protocol(members: Sequence[GroupMember], group_protocol_type: str | None = None) -> Selection:
    if not members:
        raise ValueError("cannot select a protocol for an empty group")
    ptype = group_protocol_type if group_protocol_type is not None else members[0].protocol_type
    for m in members:
        if not m.protocol_type or not m.protocols:
            raise ProtocolSelectionError(f"member {m.member_id} sent an empty protocol type or protocol list")
        if m.protocol_type != ptype:
            raise ProtocolSelectionError(
                f"member {m.member_id} has protocol type {m.protocol_type!r}, the group has {ptype!r}"
            )
    supported = set(members[0].protocols)
    for m in members[1:]:
        supported &= set(m.protocols)
    if not supported:
        raise ProtocolSelectionError("no protocol is supported by every member")
    votes: dict[str, int] = {}
    for m in members:
        vote = next(p for p in m.protocols if p in supported)
        votes[vote] = votes.get(vote, 0) + 1
    best = max(votes.values())
    tied = [p for p in votes if votes[p] == best]
    winner = next(p for p in java_hashmap_order(list(votes)) if votes[p] == best)
    candidates = tuple(p for p in members[0].protocols if p in supported)
    return Selection(winner, votes, candidates, tuple(tied) if len(tied) > 1 else ())
