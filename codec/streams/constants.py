"""Kafka Streams assignment-protocol constants (wire-facts §1, §4)."""

from enum import IntEnum

__all__ = [
    "assignor_error_name",
    "UNKNOWN",
    "EARLIEST_PROBEABLE_VERSION",
    "MIN_NAMED_TOPOLOGY_VERSION",
    "MIN_VERSION_OFFSET_SUM_SUBSCRIPTION",
    "LATEST_SUPPORTED_VERSION",
    "LATEST_OFFSET",
    "UNKNOWN_OFFSET_SUM",
    "OFFSET_UNKNOWN",
    "NO_REBALANCE",
    "DEFAULT_MAX_METADATA_SIZE",
    "AssignorError",
]

UNKNOWN = -1
EARLIEST_PROBEABLE_VERSION = 3
MIN_NAMED_TOPOLOGY_VERSION = 10
MIN_VERSION_OFFSET_SUM_SUBSCRIPTION = 7
LATEST_SUPPORTED_VERSION = 11

LATEST_OFFSET = -2  # Task.LATEST_OFFSET: a running active task, caught up by definition
UNKNOWN_OFFSET_SUM = -3  # a v1-6 standby with unknown offset; also "end offsets could not be fetched"
OFFSET_UNKNOWN = -4  # OffsetCheckpoint.OFFSET_UNKNOWN: local checkpoint files only, never sent
NO_REBALANCE = 2**63 - 1  # Long.MAX_VALUE: no follow-up rebalance scheduled

#: The largest metadata blob (SubscriptionInfo, AssignmentInfo, ConsumerProtocol message) decoded by default:
#: Kafka's default ``message.max.bytes`` (1 MiB plus 12 bytes of record overhead). The group's metadata
#: record holds every member's subscription and assignment, so no single one can be larger in a group Kafka
#: can store. Pass ``max_size=`` to the decoders to accept more.
DEFAULT_MAX_METADATA_SIZE = 1024 * 1024 + 12


class AssignorError(IntEnum):
    """AssignmentInfo.errCode values and what members do with them (wire-facts §4)."""

    NONE = 0
    """Apply the assignment."""
    INCOMPLETE_SOURCE_TOPIC_METADATA = 1
    """Source topics are missing; the member throws MissingSourceTopicException."""
    VERSION_PROBING = 2
    """No longer sent by leaders (2.0-2.3 set it locally); the assignment is not applied."""
    ASSIGNMENT_ERROR = 3
    """The leader caught a TaskAssignmentException; the member throws it."""
    SHUTDOWN_REQUESTED = 4
    """A member asked for the application to shut down; the thread shuts down to error state."""


def assignor_error_name(code: int) -> str | None:
    """The name of an assignment error code (``INCOMPLETE_SOURCE_TOPIC_METADATA``), or None for a code the Streams
    assignor does not send."""
    try:
        return AssignorError(code).name
    except ValueError:
        return None
