"""What SubscriptionInfo and AssignmentInfo share: the size bound and the version guard of conversions."""

from __future__ import annotations

from ..errors import EncodeError, LimitExceededError
from .constants import LATEST_SUPPORTED_VERSION

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from typing import Callable

__all__ = ["check_size", "version_guard"]


def check_size(message: str, data: bytes, max_size: int) -> None:
    """Refuse metadata above ``max_size`` bytes with a clear error (the input policy's bound)."""
    if len(data) > max_size:
        raise LimitExceededError(
            f"{len(data)} bytes exceed the maximum of {max_size} (Kafka's default "
            "message.max.bytes; pass max_size= to accept more)",
            message=message,
            offset=0,
        )


def version_guard(message: str, version: int, drop_unrepresentable: bool) -> Callable[[str, str], None]:
    """Check that ``version`` exists, and return ``refuse(what, path)``: it raises :class:`EncodeError` for a
    value the version cannot carry, unless the caller asked to drop such values (Kafka's constructors do)."""
    if not 1 <= version <= LATEST_SUPPORTED_VERSION:
        raise EncodeError(
            f"cannot encode version {version}; versions 1-{LATEST_SUPPORTED_VERSION} exist",
            message=message,
            version=version,
        )

    def refuse(what: str, path: str) -> None:
        if not drop_unrepresentable:
            raise EncodeError(f"{what} cannot be carried by this version", message=message, version=version, path=path)

    return refuse
