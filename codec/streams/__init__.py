"""Kafka Streams rebalance metadata: SubscriptionInfo and AssignmentInfo, every version 1-11.

The names below are loaded from their modules on first use (PEP 562), so that a command line decoding a
SubscriptionInfo does not import AssignmentInfo's module (tests/test_cli_startup.py)."""

from __future__ import annotations

import importlib

_EXPORTS = {
    ".assignment": (
        "AssignmentInfo",
        "DecodedAssignment",
        "decode_assignment",
        "encode_assignment",
        "assignment_to_wire",
        "assignment_from_wire",
        "peek_assignment_version",
    ),
    ".constants": (
        "AssignorError",
        "LATEST_SUPPORTED_VERSION",
        "EARLIEST_PROBEABLE_VERSION",
        "LATEST_OFFSET",
        "UNKNOWN",
        "UNKNOWN_OFFSET_SUM",
        "NO_REBALANCE",
    ),
    ".jsonview": ("subscription_json", "subscription_from_json", "assignment_json", "assignment_from_json"),
    ".subscription": (
        "SubscriptionInfo",
        "DecodedSubscription",
        "decode_subscription",
        "encode_subscription",
        "peek_subscription_versions",
        "subscription_to_wire",
        "subscription_from_wire",
    ),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
# __all__ and the TYPE_CHECKING imports below name the same (tests/streams/test_package.py holds the three equal)

__all__ = [
    "AssignmentInfo",
    "DecodedAssignment",
    "decode_assignment",
    "encode_assignment",
    "assignment_to_wire",
    "assignment_from_wire",
    "peek_assignment_version",
    "AssignorError",
    "LATEST_SUPPORTED_VERSION",
    "EARLIEST_PROBEABLE_VERSION",
    "LATEST_OFFSET",
    "UNKNOWN",
    "UNKNOWN_OFFSET_SUM",
    "NO_REBALANCE",
    "subscription_json",
    "subscription_from_json",
    "assignment_json",
    "assignment_from_json",
    "SubscriptionInfo",
    "DecodedSubscription",
    "decode_subscription",
    "encode_subscription",
    "peek_subscription_versions",
    "subscription_to_wire",
    "subscription_from_wire",
]

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:  # the same names for type checkers and the API pages (docs/_ext/rcdocs/apipages.py)
    from .assignment import (
        AssignmentInfo,
        DecodedAssignment,
        decode_assignment,
        encode_assignment,
        assignment_to_wire,
        assignment_from_wire,
        peek_assignment_version,
    )
    from .constants import (
        AssignorError,
        LATEST_SUPPORTED_VERSION,
        EARLIEST_PROBEABLE_VERSION,
        LATEST_OFFSET,
        UNKNOWN,
        UNKNOWN_OFFSET_SUM,
        NO_REBALANCE,
    )
    from .jsonview import assignment_from_json, assignment_json, subscription_from_json, subscription_json
    from .subscription import (
        SubscriptionInfo,
        DecodedSubscription,
        decode_subscription,
        encode_subscription,
        peek_subscription_versions,
        subscription_to_wire,
        subscription_from_wire,
    )


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
