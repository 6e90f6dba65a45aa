"""Kafka Streams rebalance metadata: SubscriptionInfo and AssignmentInfo, every version 1-11."""

from .assignment import (AssignmentInfo, DecodedAssignment, assignment_from_wire, assignment_to_wire,
                         decode_assignment, encode_assignment, peek_assignment_version)
from .constants import (EARLIEST_PROBEABLE_VERSION, LATEST_OFFSET, LATEST_SUPPORTED_VERSION, NO_REBALANCE,
                        UNKNOWN, UNKNOWN_OFFSET_SUM, AssignorError)
from .jsonview import assignment_from_json, assignment_json, subscription_from_json, subscription_json
from .subscription import (DecodedSubscription, SubscriptionInfo, decode_subscription, encode_subscription,
                           peek_subscription_versions, subscription_from_wire, subscription_to_wire)

__all__ = [
    "AssignmentInfo", "DecodedAssignment", "decode_assignment", "encode_assignment", "assignment_to_wire",
    "assignment_from_wire", "peek_assignment_version", "SubscriptionInfo", "DecodedSubscription",
    "decode_subscription", "encode_subscription", "peek_subscription_versions", "subscription_to_wire",
    "subscription_from_wire", "subscription_json", "subscription_from_json", "assignment_json",
    "assignment_from_json", "AssignorError", "LATEST_SUPPORTED_VERSION", "EARLIEST_PROBEABLE_VERSION",
    "LATEST_OFFSET", "UNKNOWN", "UNKNOWN_OFFSET_SUM", "NO_REBALANCE",
]
