"""A member's facts from the layers a classic group carries: the ConsumerProtocol subscription and assignment, with
Kafka Streams' SubscriptionInfo/AssignmentInfo inside, or Kafka Connect's worker metadata and assignment.

Each function takes a carried field as :mod:`codec.group.nested` decodes it (a :class:`~codec.group.Nested`), raw
bytes or None, and returns what the cause engine compares (:class:`~codec.causes.observe.MemberFacts`,
:class:`~codec.causes.observe.AssignmentFacts`); a layer that did not decode gives no facts, never an error.
"""

from __future__ import annotations

from typing import Any

from ..group.consumer import ConsumerMessage
from ..group.nested import Nested, streams_info
from .observe import AssignmentFacts, MemberFacts

__all__ = ["subscription_facts", "assignment_facts", "consumer_layers"]


def consumer_layers(value: Any) -> tuple[Any, Any]:
    """(the ConsumerProtocol message's data, the Streams info inside or None) of a decoded carried field; (None,
    None) when it is not a ConsumerProtocol layer that decoded."""
    if not isinstance(value, Nested) or not value.ok or not isinstance(value.value, ConsumerMessage):
        return None, None
    data = value.value.data
    user = data.user_data
    info = streams_info(user)
    return data, info


def subscription_facts(member_id: str, value: Any, **known: Any) -> MemberFacts:
    """A member's facts: ``known`` (``instance_id``, ``client_id``, ``host``, ``protocols``, the timeouts), and
    from its subscription the topics it subscribes to and its Streams metadata versions."""
    data, info = consumer_layers(value)
    topics = frozenset(data.topics) if data is not None and data.topics is not None else None
    owned_tps = getattr(data, "owned_partitions", None) if data is not None else None
    owned = frozenset((tp.topic, p) for tp in owned_tps for p in tp.partitions) if owned_tps else None
    return MemberFacts(
        member_id,
        topics=topics,
        owned=owned,
        streams_version=getattr(info, "version", None),
        streams_latest=getattr(info, "latest_supported_version", None),
        **known,
    )


def assignment_facts(value: Any) -> AssignmentFacts | None:
    """What an assignment gives and asks (see :class:`~codec.causes.observe.AssignmentFacts`); None when it did
    not decode."""
    if isinstance(value, Nested) and value.ok:
        info = getattr(value.value, "info", None)
        if info is not None and hasattr(info, "revoked_connectors"):  # Kafka Connect's
            # (an incremental cooperative assignment names what it adds and what it revokes, not what the worker
            # holds: its items are left unknown, the revocations say it)
            return AssignmentFacts(
                items=None,
                connect_error=info.error,
                connect_delay=info.delay,
                connect_revoked=len(info.revoked_connectors) + len(info.revoked_tasks),
            )
    data, info = consumer_layers(value)
    if data is None:
        return None
    items = frozenset((tp.topic, p) for tp in data.assigned_partitions or () for p in tp.partitions)
    if info is None:
        return AssignmentFacts(items=items)
    return AssignmentFacts(
        items=items,
        streams_version=info.version,
        streams_common=info.commonly_supported_version,
        error_code=info.error_code,
        next_rebalance_ms=info.next_rebalance_ms if info.version >= 7 else None,
    )
