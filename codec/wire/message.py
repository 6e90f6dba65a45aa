"""The one message layer: any message of ``schemas/`` decoded, encoded and turned into Kafka's JSON, at a version.

Every family reads and writes its messages through these (the group protocol's bodies and headers, Kafka 4's RPCs
and records, whatever schema is added next):

* :func:`decode` -> :class:`Decoded` (the message, its version, the wire model, where it ended and how many bytes
  followed: Kafka's readers stop after the last field and ignore the rest, so trailing bytes are counted, not
  refused); :func:`decode_value` -> the wire model alone; :func:`decode_json` -> Kafka's JSON straight from the bytes;
* :func:`encode` -> bytes, from a wire model (or a dict of its snake_case fields);
* :func:`to_json` / :func:`from_json` — Kafka's JSON view (``style="kafka"``: the generated converters' camelCase,
  base64 bytes, Kafka's ``Uuid`` strings; ``style="snake"``: snake_case, hex bytes, dashed UUIDs) and the way back,
  checked against the schema first (:func:`codec.wire.jsoncheck.check_json`).

A message is named by its schema name or its kind name (``heartbeat-request``). Each entry point is a *hot path*
(:class:`codec.wire.native.Hot`): once a call has checked a (message, version), the next ones go from the C front
straight to its compiled program, without a Python frame.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import DecodeError, EncodeError, UnsupportedVersionError
from . import native
from .builder import decode_wire, encode_wire
from .builder import from_json as _from_json
from .models import to_json as _to_json
from .registry import message_of_kind
from .schema import load_message

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from typing import Any, TypeAlias

    _ErrorClass: TypeAlias = "type[DecodeError] | type[EncodeError]"

__all__ = [
    "STYLES",
    "Decoded",
    "check_version",
    "decode",
    "decode_json",
    "decode_value",
    "encode",
    "from_json",
    "fronted",
    "message_name",
    "to_json",
]

#: The JSON styles: Kafka's (its generated converters') and snake_case (``native`` is its older name)
STYLES = ("kafka", "snake")


@dataclass(frozen=True, slots=True)
class Decoded:
    """One decode: ``message`` (schema name), ``version``, ``value`` (the wire model: a frozen dataclass with
    snake_case fields; a family's model where a family decodes further), ``consumed`` (where the message ended) and
    ``trailing`` (how many bytes followed, which Kafka ignores)."""

    message: str
    version: int
    value: Any
    consumed: int
    trailing: int


_decoded = native.maker(Decoded)


def message_name(kind: str, *, error: _ErrorClass = DecodeError) -> str:
    """The schema name of a message given by its name or its kind name; ``error`` for any other."""
    name = message_of_kind(kind)
    if name is None:
        raise error(f"no message named {str(kind)[:80]!r} (`rebalance-codec kinds` lists them)", message=str(kind)[:80])
    return name


def check_version(name: str, version, error: _ErrorClass = DecodeError) -> int:
    """``version`` if the message has it; else ``UnsupportedVersionError`` (decoding) or ``EncodeError``."""
    valid = load_message(name).valid
    if type(version) is not int or version not in valid:
        if error is EncodeError:
            raise EncodeError(f"no version {version!r} (valid {valid})", message=name, version=_int(version))
        raise UnsupportedVersionError(f"no version {version!r} (valid {valid})", message=name, version=_int(version))
    return version


def _int(version) -> int | None:
    return version if type(version) is int else None


def _as_bytes(data, name: str) -> bytes:
    if type(data) is bytes:
        return data
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise DecodeError(f"needs bytes, got {type(data).__name__}", message=name)


_DECODE = native.Hot()


def decode(name: str, version: int, data: bytes | bytearray | memoryview, *, strings: str = "strict") -> Decoded:
    """One message (body, header, record part) at ``version``; trailing bytes are counted, not refused.
    ``strings="java"`` reads a string's malformed UTF-8 as Kafka's Java reader does (U+FFFD in place of each
    malformed sequence, :func:`codec.wire.encodings.java_utf8_decode`) where the default input policy refuses it
    (``docs/explanations/input-policy.md``): for a caller that must see what Kafka saw, the sticky assignors."""
    message = message_name(name)
    check_version(message, version)
    data = _as_bytes(data, message)
    if strings != "strict":  # (a keyword: the hot path's front passes it here)
        value, end = decode_wire(message, version, data, strings=strings)
        return _decoded(message, version, value, end, len(data) - end)
    value, end = decode_wire(message, version, data)
    if native.ACTIVE[0]:
        _DECODE.learn((name, version), native.object_program(message, version), _decoded, prefix=(message, version))
    return _decoded(message, version, value, end, len(data) - end)


decode = _DECODE.front(decode, 2)

_VALUE = native.Hot()


def decode_value(name: str, version: int, data: bytes | bytearray | memoryview) -> Any:
    """The wire model of one message at ``version`` (:func:`decode`'s ``value``)."""
    got = decode(name, version, data)
    if native.ACTIVE[0]:
        _VALUE.learn((name, version), native.object_program(got.message, version))
    return got.value


decode_value = _VALUE.front(decode_value, 2)

_JSON = native.Hot()


def decode_json(name: str, version: int, data: bytes | bytearray | memoryview, style: str = "kafka") -> dict:
    """One message at ``version`` as JSON in ``style`` (see the module docstring); the native codec writes it
    straight from the bytes, without the wire model in between."""
    style = check_style(style)
    got = decode(name, version, data)
    if native.ACTIVE[0]:
        _JSON.learn((name, version, style), native.program(got.message, version, style))
    return _to_json(got.value, got.message, version, style=style)


decode_json = _JSON.front(decode_json, 2, ("kafka",))  # (a style given: the function)

_ENCODE = native.Hot()


def encode(name: str, version: int, value: Any) -> bytes:
    """The bytes of one message at ``version`` from its wire model (or a dict of its snake_case fields);
    ``EncodeError`` naming the field when it does not fit (a value out of range, a non-default value in a field the
    version lacks, ...)."""
    message = message_name(name, error=EncodeError)
    check_version(message, version, EncodeError)
    out = encode_wire(message, version, value)
    if native.ACTIVE[0]:
        _ENCODE.learn_encoder((name, version), native.object_program(message, version))
    return out


encode = _ENCODE.front(encode, 2)


def fronted(fallback, *, encoding: bool = False):
    """``fallback`` (a family's function of ``(name, version, data)`` or ``(name, version, value)``) behind the hot
    path of :func:`decode` (or :func:`encode`): a positional call of a (message, version) checked before is the
    compiled program's, without a frame; anything else (keyword arguments, a miss) calls ``fallback``."""
    return (_ENCODE if encoding else _DECODE).front(fallback, 2)


def check_style(style: str) -> str:
    """``kafka`` or ``snake`` (``native``, the older name of snake_case, is taken too)."""
    if style == "kafka" or style == "snake":
        return style
    if style == "native":
        return "snake"
    raise ValueError(f"no JSON style {style!r} (kafka or snake)")


def to_json(name: str, version: int, value: Any, style: str = "kafka") -> dict:
    """A wire model as JSON in ``style`` (only the fields of ``version``, as Kafka's converters write them)."""
    return _to_json(value, message_name(name), version, style=check_style(style))


def from_json(name: str, version: int | None, value: Any, style: str = "kafka", *, extra: tuple[str, ...] = ()):
    """The wire model of a message's JSON (either key spelling; missing fields take their defaults), checked against
    the schema at ``version`` first: a wrong JSON type, an integer out of range, a null where none is allowed or an
    unknown key is an ``EncodeError`` naming the field. ``extra``: top-level keys the caller handles itself."""
    from .jsoncheck import check_json

    message = message_name(name, error=EncodeError)
    style = check_style(style)
    if not isinstance(value, dict):
        raise EncodeError("needs a JSON object", message=message, version=version)
    check_json(value, message, version, style=style, extra=extra)
    if extra:
        value = {k: v for k, v in value.items() if k not in extra}
    return _from_json(value, message, version, style=style)
