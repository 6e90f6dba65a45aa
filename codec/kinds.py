"""The message kinds the command line decodes and encodes, one registry for every layer.

A :class:`Kind` knows how to turn bytes into JSON (either style), JSON into bytes, and bytes into a
human-readable view. Other layers register their kinds here (``register``); the CLI only reads the
registry, so adding a message never touches the CLI.
"""

from __future__ import annotations

from .errors import CodecError, EncodeError
from .streams.constants import DEFAULT_MAX_METADATA_SIZE
from .streams.jsonview import assignment_from_json, assignment_json, subscription_from_json, subscription_json
from .streams.subscription import encode_subscription, subscription_view

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from typing import Callable

__all__ = ["Kind", "Decoded", "register", "get_kind", "kind_names"]


# Plain classes, not dataclasses: they are made on every decode call's start-up (tests/test_cli_startup.py).


class Decoded:
    """A decode for the CLI: the JSON ``value``, a pretty rendering (``view``: the text, or a function that
    makes it, called only when :attr:`pretty` is read), ``notes`` for stderr and ``trailing`` (``{"offset":
    where the message ended, "bytes": how many followed}`` or None)."""

    __slots__ = ("value", "view", "notes", "trailing")

    def __init__(
        self, value: dict, view: str | Callable[[], str], notes: tuple[str, ...] = (), trailing: dict | None = None
    ) -> None:
        self.value, self.view, self.notes, self.trailing = value, view, notes, trailing

    @property
    def pretty(self) -> str:
        return self.view() if callable(self.view) else self.view

    def __repr__(self) -> str:
        return f"Decoded(value={self.value!r}, notes={self.notes!r}, trailing={self.trailing!r})"


class Kind:
    """A message kind: ``name``, ``summary``, ``decode`` (``(data, *, style, version, **opts) -> Decoded``),
    ``encode`` (``(value, *, style, version, **opts) -> bytes``) and ``self_describing`` (decodable without
    ``--version``, for ``--kind auto``)."""

    __slots__ = ("name", "summary", "decode", "encode", "self_describing")

    def __init__(
        self,
        name: str,
        summary: str,
        decode: Callable[..., Decoded],
        encode: Callable[..., bytes],
        self_describing: bool = True,
    ) -> None:
        self.name, self.summary, self.decode, self.encode = name, summary, decode, encode
        self.self_describing = self_describing

    def __repr__(self) -> str:
        return f"Kind({self.name!r}, {self.summary!r})"


_REGISTRY: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    kind = Kind(kind.name, kind.summary, kind.decode, _guarded(kind.name, kind.encode), kind.self_describing)
    _REGISTRY[kind.name] = kind
    return kind


def _guarded(name: str, encode: Callable[..., bytes]) -> Callable[..., bytes]:
    """JSON of the wrong shape (a number where a string goes, a string where a list goes, an integer beyond
    the field's range, nesting past the stack) is the caller's error: an ``EncodeError``, never a crash."""

    def encode_value(value, **kwargs) -> bytes:
        if not isinstance(value, dict):
            raise EncodeError(f"needs a JSON object, got {_json_type(value)}", message=name)
        try:
            return encode(value, **kwargs)
        except CodecError:
            raise
        except RecursionError:
            raise EncodeError("the value nests too deeply", message=name) from None
        except (TypeError, AttributeError, KeyError, IndexError, ValueError, OverflowError) as e:
            raise EncodeError(f"the value does not fit the message ({type(e).__name__}: {e})", message=name) from None

    return encode_value


def _json_type(v) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(v), type(v).__name__)


def get_kind(name: str) -> Kind:
    """The kind called ``name``; plugins are imported one at a time until one registers it (a decode call
    imports only what its kind needs)."""
    if name not in _REGISTRY:
        for mod in _PLUGINS:
            _load_plugin(mod)
            if name in _REGISTRY:
                break
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown kind {name!r}; known: {', '.join(kind_names())}") from None


def kind_names() -> list[str]:
    _load_plugins()
    return list(_REGISTRY)


_PLUGINS = ("codec.group.kinds", "codec.connect.kinds", "codec.kafka4.kinds")


def _load_plugins() -> None:
    for mod in _PLUGINS:
        _load_plugin(mod)


def _load_plugin(mod: str) -> None:
    import importlib

    try:
        importlib.import_module(mod)
    except ModuleNotFoundError as e:
        if e.name != mod and not mod.startswith(e.name or "\0"):
            raise


def _pretty():
    from . import pretty  # only for --format pretty

    return pretty


def _trailing_json(consumed: int, trailing: int) -> dict | None:
    return {"offset": consumed, "bytes": trailing} if trailing else None


def _trailing_note(name: str, version: int, consumed: int, trailing: int) -> tuple[str, ...]:
    if not trailing:
        return ()
    return (f"{name} v{version}: {trailing} trailing bytes after offset {consumed} ignored (Kafka ignores them too)",)


def _decode_sub(
    data: bytes,
    *,
    style: str = "kafka",
    version: int | None = None,
    latest: int | None = None,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
    **_,
) -> Decoded:
    info, wire, consumed, trailing = subscription_view(data, latest=latest or 11, max_size=max_size)
    return Decoded(
        subscription_json(info, style=style, wire_json=wire),
        lambda: _pretty().pretty_subscription(info, size=len(data), trailing=trailing),
        _trailing_note("SubscriptionInfo", info.version, consumed, trailing),
        # a version probe's unread body is a newer version's fields, not bytes after the message
        None if info.is_version_probe else _trailing_json(consumed, trailing),
    )


def _encode_sub(value: dict, *, style: str = "kafka", version: int | None = None, **opts) -> bytes:
    info = subscription_from_json(value)
    # Kafka's own constructor leaves out what a version cannot carry; the native style refuses instead
    # unless asked (--drop-unrepresentable).
    drop = style == "kafka" or bool(opts.get("drop_unrepresentable"))
    return encode_subscription(info, version, drop_unrepresentable=drop)


def _decode_asg(
    data: bytes,
    *,
    style: str = "kafka",
    version: int | None = None,
    latest: int | None = None,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
    **_,
) -> Decoded:
    from .streams.assignment import assignment_view  # (here: a subscription's decode does not load it)

    info, consumed, trailing = assignment_view(data, latest=latest or 11, max_size=max_size)
    return Decoded(
        assignment_json(info, style=style),
        lambda: _pretty().pretty_assignment(info, size=len(data), trailing=trailing),
        _trailing_note("AssignmentInfo", info.version, consumed, trailing),
        _trailing_json(consumed, trailing),
    )


def _encode_asg(value: dict, *, style: str = "kafka", version: int | None = None, **opts) -> bytes:
    from .streams.assignment import encode_assignment

    info = assignment_from_json(value)
    drop = style == "kafka" or bool(opts.get("drop_unrepresentable"))
    return encode_assignment(info, version, drop_unrepresentable=drop)


register(
    Kind(
        "subscription-info",
        "Kafka Streams SubscriptionInfo (v1-11; newer decodes as a version probe)",
        _decode_sub,
        _encode_sub,
    )
)
register(Kind("assignment-info", "Kafka Streams AssignmentInfo (v1-11)", _decode_asg, _encode_asg))
