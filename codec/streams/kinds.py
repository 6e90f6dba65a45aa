"""Kafka Streams' command-line kinds, ``subscription-info`` and ``assignment-info`` (registered into
:mod:`codec.catalog` as a plugin, the first one looked in: a decode of Streams metadata imports nothing else).

Decoding reads the bytes' own version (a SubscriptionInfo newer than ``--latest``, 11 by default, is a version probe:
only its two version words are read); ``--style kafka`` is the JSON of Kafka's own classes and, like Kafka's
constructors, leaves out what a version cannot carry when encoding; ``--style snake`` refuses that unless given
``--drop-unrepresentable``.
"""

from __future__ import annotations

from ..catalog import Kind, View, register, trailing_json, trailing_note
from ..wire.message import Decoded
from .constants import DEFAULT_MAX_METADATA_SIZE, LATEST_SUPPORTED_VERSION
from .jsonview import assignment_from_json, assignment_json, subscription_from_json, subscription_json
from .subscription import encode_subscription, subscription_view

__all__: list[str] = []


def _pretty():
    from . import pretty  # only for --format pretty

    return pretty


def _read_sub(
    data: bytes, version: int | None = None, *, latest: int | None = None, max_size=DEFAULT_MAX_METADATA_SIZE, **_
) -> Decoded:
    info, _wire, consumed, trailing = subscription_view(
        data, latest=latest or LATEST_SUPPORTED_VERSION, max_size=max_size
    )
    return Decoded("SubscriptionInfo", info.version, info, consumed, trailing)


def _decode_sub(
    data: bytes,
    *,
    style: str = "kafka",
    version: int | None = None,
    latest: int | None = None,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
    **_,
) -> View:
    info, wire, consumed, trailing = subscription_view(
        data, latest=latest or LATEST_SUPPORTED_VERSION, max_size=max_size
    )
    return View(
        subscription_json(info, style=style, wire_json=wire),
        lambda: _pretty().pretty_subscription(info, size=len(data), trailing=trailing),
        trailing_note("SubscriptionInfo", info.version, consumed, trailing),
        # a version probe's unread body is a newer version's fields, not bytes after the message
        None if info.is_version_probe else trailing_json(consumed, trailing),
    )


def _encode_sub(value: dict, *, style: str = "kafka", version: int | None = None, **opts) -> bytes:
    info = subscription_from_json(value)
    # Kafka's own constructor leaves out what a version cannot carry; the snake style refuses instead
    # unless asked (--drop-unrepresentable).
    drop = style == "kafka" or bool(opts.get("drop_unrepresentable"))
    return encode_subscription(info, version, drop_unrepresentable=drop)


def _write_sub(value, version: int | None = None, *, drop_unrepresentable: bool = True, **_) -> bytes:
    if isinstance(value, dict):
        value = subscription_from_json(value)
    return encode_subscription(value, version, drop_unrepresentable=drop_unrepresentable)


def _read_asg(
    data: bytes, version: int | None = None, *, latest: int | None = None, max_size=DEFAULT_MAX_METADATA_SIZE, **_
) -> Decoded:
    from .assignment import assignment_view  # (here: a subscription's decode does not load it)

    info, consumed, trailing = assignment_view(data, latest=latest or LATEST_SUPPORTED_VERSION, max_size=max_size)
    return Decoded("AssignmentInfo", info.version, info, consumed, trailing)


def _decode_asg(
    data: bytes,
    *,
    style: str = "kafka",
    version: int | None = None,
    latest: int | None = None,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
    **_,
) -> View:
    d = _read_asg(data, latest=latest, max_size=max_size)
    info = d.value
    return View(
        assignment_json(info, style=style),
        lambda: _pretty().pretty_assignment(info, size=len(data), trailing=d.trailing),
        trailing_note("AssignmentInfo", info.version, d.consumed, d.trailing),
        trailing_json(d.consumed, d.trailing),
    )


def _encode_asg(value: dict, *, style: str = "kafka", version: int | None = None, **opts) -> bytes:
    from .assignment import encode_assignment

    info = assignment_from_json(value)
    drop = style == "kafka" or bool(opts.get("drop_unrepresentable"))
    return encode_assignment(info, version, drop_unrepresentable=drop)


def _write_asg(value, version: int | None = None, *, drop_unrepresentable: bool = True, **_) -> bytes:
    from .assignment import encode_assignment

    if isinstance(value, dict):
        value = assignment_from_json(value)
    return encode_assignment(value, version, drop_unrepresentable=drop_unrepresentable)


register(
    Kind(
        "subscription-info",
        "Kafka Streams SubscriptionInfo (v1-11; newer decodes as a version probe)",
        _decode_sub,
        _encode_sub,
        message="SubscriptionInfo",
        read=_read_sub,
        write=_write_sub,
    )
)
register(
    Kind(
        "assignment-info",
        "Kafka Streams AssignmentInfo (v1-11)",
        _decode_asg,
        _encode_asg,
        message="AssignmentInfo",
        read=_read_asg,
        write=_write_asg,
    )
)
