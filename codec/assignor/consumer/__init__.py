"""The assignors most consumer groups run, Kafka-exact: the client side's ``range`` (with KIP-881's racks),
``roundrobin``, ``sticky`` and ``cooperative-sticky`` (:mod:`.client`, :mod:`.sticky`), and KIP-848's server side
``uniform`` and ``range`` (``server-range`` here; :mod:`.server`), each giving Kafka's output for the same input,
list order included where Kafka's is deterministic.

:func:`assign_consumer` runs one on a :class:`ConsumerGroup`; :func:`consumer_group_from_json` and
:func:`consumer_result_to_json` are ``rebalance-codec assign --consumer``'s JSON (:mod:`.json_io`);
:mod:`.wire` reads a group from the leader's JoinGroup response and checks a captured generation's assignment.
"""

from __future__ import annotations

from .json_io import consumer_group_from_json, consumer_result_to_json
from .model import (
    CLIENT_ASSIGNORS,
    CONSUMER_ASSIGNORS,
    SERVER_ASSIGNORS,
    AssignmentError,
    ConsumerAssignment,
    ConsumerGroup,
    ConsumerMember,
)

__all__ = [
    "CLIENT_ASSIGNORS",
    "CONSUMER_ASSIGNORS",
    "SERVER_ASSIGNORS",
    "AssignmentError",
    "ConsumerAssignment",
    "ConsumerGroup",
    "ConsumerMember",
    "assign_consumer",
    "consumer_group_from_json",
    "consumer_result_to_json",
]


def assign_consumer(group: ConsumerGroup, assignor: str) -> ConsumerAssignment:
    """What Kafka's ``assignor`` gives ``group`` (every member, in the group's order). Raises
    :class:`AssignmentError` where Kafka's assignor throws, with Kafka's message."""
    from .client import assign_range, assign_roundrobin
    from .server import assign_server_range, assign_uniform
    from .sticky import assign_sticky

    revoking: dict = {}
    builder: str | None = None
    transferring = moves = None
    if assignor == "range":
        out = assign_range(group)
    elif assignor == "roundrobin":
        out = assign_roundrobin(group)
    elif assignor in ("sticky", "cooperative-sticky"):
        out, revoking, builder, transferring, moves = assign_sticky(group, assignor)
    elif assignor == "uniform":
        out, builder = assign_uniform(group)
    elif assignor == "server-range":
        out, builder = assign_server_range(group)
    else:
        raise AssignmentError(f"assignor: one of {', '.join(CONSUMER_ASSIGNORS)}, not {assignor!r}"[:200])
    members = {m.member_id: out.get(m.member_id, []) for m in group.members}
    return ConsumerAssignment(members, revoking, builder, transferring, moves)
