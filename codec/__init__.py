"""rebalance-codec: Kafka group rebalancing on the wire — the classic protocol with the ConsumerProtocol, Kafka Streams'
and Kafka Connect's metadata inside it, and Kafka 4's consumer, streams and share groups.

The library's surface is three functions over every message kind (``rebalance-codec kinds`` lists them)::

    import codec

    d = codec.decode("heartbeat-request", data, version=4)   # -> codec.Decoded
    d.value.group_id                                         # the model (a frozen dataclass, snake_case fields)
    codec.encode("heartbeat-request", d.value, version=4)    # -> bytes (a model, or its JSON: either key style)
    codec.kinds()                                            # every kind's name

and the errors they raise (:class:`DecodeError` with the message, version, byte offset and field path;
:class:`EncodeError` with the field path). A kind is a message's kebab-case name (``consumer-group-heartbeat-request``,
``streams-group-metadata-value``) or a family's own (``subscription-info``, ``consumer-subscription``,
``connect-metadata``, ``request-frame``, ``auto``). The families' packages (:mod:`codec.streams`, :mod:`codec.group`,
:mod:`codec.connect`, :mod:`codec.kafka4`) hold their domain models and views; :mod:`codec.wire` the message layer
every one is built on (``docs/explanations/architecture.md``).
"""

from __future__ import annotations

from .errors import (
    CodecError,
    DecodeError,
    EncodeError,
    LimitExceededError,
    TruncatedError,
    UnsupportedVersionError,
)

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from typing import Any

    from .wire.message import Decoded

__all__ = [
    "CodecError",
    "DecodeError",
    "Decoded",
    "EncodeError",
    "LimitExceededError",
    "TruncatedError",
    "UnsupportedVersionError",
    "decode",
    "encode",
    "kinds",
]
__version__ = "0.1.0"  # pyproject.toml's version (tests/test_codecs.py keeps them equal)


def decode(kind: str, data: bytes | bytearray | memoryview, version: int | None = None, **options: Any) -> Decoded:
    """Decode ``data`` as ``kind`` (at ``version``, for the kinds whose bytes do not say it: bodies, headers,
    response frames). Returns a :class:`Decoded`: ``message``, ``version``, ``value`` (the model), ``consumed`` and
    ``trailing`` (bytes after the message, which Kafka ignores). ``options``: a kind's own (``api_key`` of a response
    frame, ``latest`` of a Streams reader, ``max_size``). Bad bytes raise :class:`DecodeError`."""
    read = _kind(kind, DecodeError).read
    if read is None:
        raise DecodeError(f"kind {kind!r} has no model to decode to", message=kind)
    return read(data, version, **options)


def encode(kind: str, value: Any, version: int | None = None, **options: Any) -> bytes:
    """Encode ``value`` as ``kind`` (at ``version``, where the kind needs one): a model (what :func:`decode` returns
    as ``value``) or its JSON (a dict, in either key style: Kafka's camelCase or snake_case). A value that does not
    fit raises :class:`EncodeError` naming the field."""
    k = _kind(kind, EncodeError)
    if isinstance(value, dict):
        style = options.pop("style", "kafka")
        return k.encode(value, style=style, version=version, **options)
    if k.write is None:
        raise EncodeError(f"kind {kind!r} encodes from JSON only", message=kind)
    return k.write(value, version, **options)


def kinds() -> list[str]:
    """Every kind's name, as ``rebalance-codec kinds`` lists them."""
    from .catalog import kind_names

    return kind_names()


def _kind(kind: str, error: type[DecodeError] | type[EncodeError]):
    from .catalog import get_kind

    try:
        return get_kind(kind)
    except KeyError as e:
        raise error(str(e.args[0]) if e.args else f"unknown kind {kind!r}", message=str(kind)[:80]) from None


def __getattr__(name: str):
    if name == "Decoded":  # (the class, imported on first use: a decode's start-up does not need it)
        from .wire.message import Decoded

        return Decoded
    raise AttributeError(f"module 'codec' has no attribute {name!r}")
