"""The message kinds the command line (and :func:`codec.decode`/:func:`codec.encode`) decode and encode: one registry
for every layer.

Every message of ``schemas/`` Kafka writes with its generated classes is a kind by itself, named by its kebab-case
name (``heartbeat-request``, ``consumer-group-metadata-value``): a request, response or header body (``--version``
required), a ``__consumer_offsets`` record's key or value (behind its int16 record type or value version), made here
from the one message layer (:mod:`codec.wire.message`, :mod:`codec.wire.records`, :mod:`codec.wire.pretty`). Adding
such a message is adding its schema file: its kind follows.

Families register what is theirs (as plugins, imported one at a time when a kind is looked for): kinds of their own
models (Kafka Streams' ``subscription-info``, the ConsumerProtocol's ``consumer-subscription``, Connect's
``connect-metadata``, whole frames, ``auto``) and *views* of a schema's message (:func:`register_view`: a readable
view of their own, the JSON of the layers a group message's bytes fields carry).

A :class:`Kind` turns bytes into a :class:`View` (JSON in either style and a readable view) and JSON into bytes (the
command line), and bytes into a :class:`codec.wire.message.Decoded` and a model back into bytes (``read``/``write``:
the library's facade).
"""

from __future__ import annotations

from .errors import CodecError, DecodeError, EncodeError

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = [
    "Decoded",
    "Kind",
    "View",
    "get_kind",
    "json_type",
    "kind_names",
    "kinds",
    "register",
    "register_view",
    "trailing_json",
    "trailing_note",
]


# Plain classes, not dataclasses: they are made on every decode call's start-up (tests/test_cli_startup.py).


class View:
    """A decode for the command line: the JSON ``value``, a pretty rendering (``view``: the text, or a function that
    makes it, called only when :attr:`pretty` is read), ``notes`` for stderr and ``trailing`` (``{"offset": where the
    message ended, "bytes": how many followed}`` or None)."""

    __slots__ = ("value", "view", "notes", "trailing")

    def __init__(
        self, value: dict, view: str | Callable[[], str], notes: tuple[str, ...] = (), trailing: dict | None = None
    ) -> None:
        self.value, self.view, self.notes, self.trailing = value, view, notes, trailing

    @property
    def pretty(self) -> str:
        return self.view() if callable(self.view) else self.view

    def __repr__(self) -> str:
        return f"View(value={self.value!r}, notes={self.notes!r}, trailing={self.trailing!r})"


#: (the name this class had before the library's :class:`codec.wire.message.Decoded`; kept while callers move)
Decoded = View


class Kind:
    """A message kind: ``name``, ``summary``, ``decode`` (``(data, *, style, version, **opts) -> View``), ``encode``
    (``(value, *, style, version, **opts) -> bytes``), ``self_describing`` (decodable without ``--version``, for
    ``--kind auto``), ``message`` (the schema it reads and writes, or what the conformance protocol calls it), and
    ``read`` (``(data, version, **opts) -> Decoded``) and ``write`` (``(model, version, **opts) -> bytes``), the
    library's model-level pair."""

    __slots__ = ("name", "summary", "decode", "encode", "self_describing", "message", "read", "write")

    def __init__(
        self,
        name: str,
        summary: str,
        decode: Callable[..., View],
        encode: Callable[..., bytes],
        self_describing: bool = True,
        message: str | None = None,
        read: Callable[..., Any] | None = None,
        write: Callable[..., bytes] | None = None,
    ) -> None:
        self.name, self.summary, self.decode, self.encode = name, summary, decode, encode
        self.self_describing, self.message, self.read, self.write = self_describing, message, read, write

    def __repr__(self) -> str:
        return f"Kind({self.name!r}, {self.summary!r})"


_REGISTRY: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    """Register a family's kind (under its name; the last registered wins)."""
    kind = _guard(kind)
    _REGISTRY[kind.name] = kind
    return kind


def _guard(kind: Kind) -> Kind:
    return Kind(
        kind.name,
        kind.summary,
        kind.decode,
        _guarded(kind.name, kind.encode),
        kind.self_describing,
        kind.message,
        kind.read,
        kind.write,
    )


def _guarded(name: str, encode: Callable[..., bytes]) -> Callable[..., bytes]:
    """JSON of the wrong shape (a number where a string goes, a string where a list goes, an integer beyond
    the field's range, nesting past the stack) is the caller's error: an ``EncodeError``, never a crash."""

    def encode_value(value, **kwargs) -> bytes:
        if not isinstance(value, dict):
            raise EncodeError(f"needs a JSON object, got {json_type(value)}", message=name)
        try:
            return encode(value, **kwargs)
        except CodecError:
            raise
        except RecursionError:
            raise EncodeError("the value nests too deeply", message=name) from None
        except (TypeError, AttributeError, KeyError, IndexError, ValueError, OverflowError) as e:
            raise EncodeError(f"the value does not fit the message ({type(e).__name__}: {e})", message=name) from None

    return encode_value


def json_type(v: object) -> str:
    """The JSON name of a parsed value's type, for a message: "an object", "a list", "a string", "null" ..."""
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
    """The kind called ``name``: one a family registered; else the kind of the schema message of that name (a
    request, response or header body, a record's key or value); else plugins are imported one at a time until one
    registers it (a decode call imports only what its kind needs)."""
    kind = _REGISTRY.get(name) if isinstance(name, str) else None
    if kind is not None:
        return kind
    generic = _generic(name)
    if generic is not None:
        return generic
    for mod in _PLUGINS:
        _load_plugin(mod)
        if name in _REGISTRY:
            return _REGISTRY[name]
    raise KeyError(f"unknown kind {name!r}; known: {', '.join(kind_names())}")


def kinds() -> list[Kind]:
    """Every kind: the families' first, then one for each schema message no family kind reads, in the registry's
    order (:func:`codec.wire.registry.ordered`)."""
    from .wire.registry import message_names, ordered

    _load_plugins()
    claimed = {k.message for k in _REGISTRY.values()}
    out = list(_REGISTRY.values())
    for message in ordered(message_names()):
        if message not in claimed:
            kind = _generic_of(message)
            if kind is not None:
                out.append(kind)
    if ANY_KEY not in _REGISTRY:
        out.append(_generic_any_key())
    return out


def kind_names() -> list[str]:
    return [k.name for k in kinds()]


_PLUGINS = ("codec.streams.kinds", "codec.group.kinds", "codec.connect.kinds", "codec.kafka4.kinds")


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


# --- families' views of schema messages -----------------------------------------------------------------------

# message -> (pretty, from_json): a family's readable view ((message, version, data, decoded) -> text) and its reading
# of the message's JSON ((message, version, value, style) -> wire model)
_VIEWS: dict[str, tuple[Callable[..., str] | None, Callable[..., Any] | None]] = {}


def register_view(
    message: str, *, pretty: Callable[..., str] | None = None, from_json: Callable[..., Any] | None = None
) -> None:
    """A family's view of a schema message: ``pretty(message, version, data, decoded) -> text`` replaces the
    generic tree (:func:`codec.wire.pretty.pretty_body`), ``from_json(message, version, value, style) -> model``
    the generic reading of its JSON (:func:`codec.wire.message.from_json`)."""
    _VIEWS[message] = (pretty, from_json)


def _view(message: str) -> tuple[Callable[..., str] | None, Callable[..., Any] | None]:
    _load_plugins()  # (only where a view may be needed: a pretty view, an encode)
    return _VIEWS.get(message, (None, None))


# --- the kinds of schema messages -----------------------------------------------------------------------------

_GENERIC: dict[str, Kind] = {}
_BODY_TYPES = ("request", "response", "header")
ANY_KEY = "group-record-key"


def _generic(name) -> Kind | None:
    """The kind of the schema message whose kind name (or name) is ``name``, when no family reads it."""
    if not isinstance(name, str):
        return None
    if name == ANY_KEY:
        return _generic_any_key()
    from .wire.registry import message_of_kind

    message = message_of_kind(name)
    return _generic_of(message) if message is not None else None


def _generic_of(message: str) -> Kind | None:
    kind = _GENERIC.get(message)
    if kind is None:
        from .wire import registry

        if registry.record_for(message) is not None:
            kind = _record_kind(message)
        elif registry.head(message).type in _BODY_TYPES:
            kind = _body_kind(message)
        else:
            return None  # a family's (Streams', the ConsumerProtocol's, Connect's): its plugin registers it
        _GENERIC[message] = kind = _guard(kind)
    return kind


def trailing_json(consumed: int, trailing: int) -> dict | None:
    """``{"offset", "bytes"}`` of bytes after a message, or None."""
    return {"offset": consumed, "bytes": trailing} if trailing else None


def trailing_note(name: str, version: int, consumed: int, trailing: int) -> tuple[str, ...]:
    """The note a decode with bytes after the message makes (Kafka's readers ignore them)."""
    if not trailing:
        return ()
    return (f"{name} v{version}: {trailing} trailing bytes after offset {consumed} ignored (Kafka ignores them too)",)


def _need_version(name: str, version: int | None, error=DecodeError) -> int:
    if version is None:
        raise error(f"{name} needs --version", message=name)
    return version


def _without_report(value):
    """A value without decode's report of bytes after the message (``trailing``: not a field to write)."""
    if (
        isinstance(value, dict)
        and isinstance(value.get("trailing"), dict)
        and set(value["trailing"])
        == {
            "offset",
            "bytes",
        }
    ):
        return {k: x for k, x in value.items() if k != "trailing"}
    return value


def _body_kind(message: str) -> Kind:
    from .wire import message as m
    from .wire import registry

    def read(data: bytes, version: int | None = None, **_) -> Any:
        return m.decode(message, _need_version(message, version), data)

    def decode(data: bytes, *, style: str = "kafka", version: int | None = None, **_) -> View:
        d = read(data, version)

        def view() -> str:
            pretty, _ = _view(message)
            if pretty is not None:
                return pretty(message, d.version, data, d)
            from .wire.pretty import pretty_body

            return pretty_body(message, d.version, d.value)

        return View(
            m.to_json(message, d.version, d.value, style),
            view,
            trailing_note(message, d.version, d.consumed, d.trailing),
            trailing_json(d.consumed, d.trailing),
        )

    def model_of(value, version: int, style: str):
        _, from_json = _view(message)
        return (from_json or m.from_json)(message, version, _without_report(value), style)

    def encode(value: dict, *, style: str = "kafka", version: int | None = None, **_) -> bytes:
        v = _need_version(message, version, EncodeError)
        return m.encode(message, v, model_of(value, v, style))

    def write(value, version: int | None = None, **_) -> bytes:
        v = _need_version(message, version, EncodeError)
        return m.encode(message, v, model_of(value, v, "kafka") if isinstance(value, dict) else value)

    h = registry.head(message)
    api = f"API key {h.api_key}, " if h.api_key is not None else ""
    what = "" if h.type == "header" else " body"
    return Kind(
        registry.kind_name(message),
        f"Kafka {message}{what} ({api}v{h.valid}; --version required)",
        decode,
        encode,
        self_describing=False,
        message=message,
        read=read,
        write=write,
    )


def _record_kind(message: str) -> Kind:
    """A record part's kind: ``<record>-key`` (the int16 record type, which must be the record's, then the key) or
    ``<record>-value`` (the int16 value version, then the value; JSON ``{"valueVersion": N, ...fields}``, as
    :func:`codec.wire.records.decode_record` names it, since a value may have a field named ``version``)."""
    from .wire import registry

    r = registry.record_of(message)
    assert r is not None
    types = registry.records(r.coordinator)[r.name]
    if message.endswith("Key"):
        return _key_kind(r.name, types, r.coordinator)
    return _value_kind(r.name, types, r.coordinator)


def _prefix(data: bytes, what: str, path: str) -> int:
    from .errors import TruncatedError

    if len(data) < 2:
        raise TruncatedError(f"truncated (need 2, have {len(data)})", message=what, offset=0, path=path)
    return int.from_bytes(data[:2], "big", signed=True)


def _key_kind(record: str, types: tuple[int, ...], coordinator: str = "group") -> Kind:
    """The key of a record whose record types are ``types`` (one, but the classic OffsetCommit's 1 and 0, the one
    Kafka writes first) within its ``coordinator``'s types; the key version of each is the registry's (0 from Kafka
    4, the type itself for a classic record)."""
    from .wire import registry
    from .wire.message import Decoded as Read
    from .wire.message import to_json
    from .wire.records import encode_record_key

    schema = record + "Key"
    table = registry.record_types(coordinator)
    versions = {table[t].key_version: t for t in types}
    shown = " or ".join(map(str, types))

    def read(data: bytes, version: int | None = None, **_) -> Any:
        from .wire.builder import decode_wire

        data = bytes(data)
        got = _prefix(data, schema, "record_type")
        if got not in types:
            other = table.get(got)
            raise DecodeError(
                f"record type {got} ({other.name if other else 'another record'}), not {shown} ({record})",
                message=schema,
                offset=0,
                path="record_type",
            )
        kver = table[got].key_version
        model, end = decode_wire(schema, kver, data, start=2)
        return Read(schema, kver, model, end, len(data) - end)

    def decode(data: bytes, *, style: str = "kafka", version: int | None = None, **_) -> View:
        from .wire.pretty import pretty_record

        d = read(data)
        rtype = _prefix(bytes(data), schema, "record_type")
        notes: tuple[str, ...] = ()
        if version is not None and version != d.version:
            notes = (f"{schema}: the record type says v{d.version} (not --version {version}); read as written",)
        return View(
            to_json(schema, d.version, d.value, style),
            lambda: pretty_record(record, rtype, schema, d.value, None, None, None, key_version=d.version),
            notes + trailing_note(schema, d.version, d.consumed, d.trailing),
            trailing_json(d.consumed, d.trailing),
        )

    def encode(value: dict, *, style: str = "kafka", version: int | None = None, **_) -> bytes:
        value = (
            {k: x for k, x in value.items() if k != "trailing"} if isinstance(value.get("trailing"), dict) else value
        )
        if version is not None and version not in versions:
            raise EncodeError(
                f"no version {version} (valid {', '.join(map(str, sorted(versions)))})", message=schema, path="version"
            )
        rtype = types[0] if version is None else versions[version]
        return encode_record_key(rtype, value, style=style, coordinator=coordinator)

    def write(value, version: int | None = None, **_) -> bytes:
        from .wire.message import encode as encode_body

        if isinstance(value, dict):
            return encode(value, version=version)
        rtype = types[0] if version is None else versions.get(version)
        if rtype is None:
            raise EncodeError(f"no version {version} (valid {sorted(versions)})", message=schema, path="version")
        kver = table[rtype].key_version
        return rtype.to_bytes(2, "big", signed=True) + encode_body(schema, kver, value)

    return Kind(
        registry.kind_name(schema),
        f"{registry.COORDINATORS[coordinator]} key of a {record} record (int16 type {shown}, then the key)",
        decode,
        encode,
        message=schema,
        read=read,
        write=write,
    )


def _value_kind(record: str, types: tuple[int, ...], coordinator: str = "group") -> Kind:
    from .errors import UnsupportedVersionError
    from .wire import registry
    from .wire.message import Decoded as Read
    from .wire.message import to_json
    from .wire.records import encode_record_value
    from .wire.schema import load_message

    schema = record + "Value"

    def read(data: bytes, version: int | None = None, **_) -> Any:
        from .wire.builder import decode_wire

        data = bytes(data)
        v = _prefix(data, schema, "version")
        valid = load_message(schema).valid
        if v not in valid:
            raise UnsupportedVersionError(f"no version {v} (valid {valid})", message=schema, offset=0, path="version")
        model, end = decode_wire(schema, v, data, start=2)
        return Read(schema, v, model, end, len(data) - end)

    def decode(data: bytes, *, style: str = "kafka", version: int | None = None, **_) -> View:
        from .wire.pretty import pretty_record

        d = read(data)
        notes: tuple[str, ...] = ()
        if version is not None and version != d.version:
            notes = (f"{schema}: the version prefix says v{d.version} (not --version {version}); read as written",)
        return View(
            {
                "valueVersion" if style == "kafka" else "value_version": d.version,
                **to_json(schema, d.version, d.value, style),
            },
            lambda: pretty_record(record, types[0], None, None, schema, d.version, d.value),
            notes + trailing_note(schema, d.version, d.consumed, d.trailing),
            trailing_json(d.consumed, d.trailing),
        )

    def encode(value: dict, *, style: str = "kafka", version: int | None = None, **_) -> bytes:
        value = dict(value)
        given = value.pop("valueVersion", value.pop("value_version", None))
        if isinstance(value.get("trailing"), dict):
            value.pop("trailing")
        if version is None:
            if given is not None and type(given) is not int:
                raise EncodeError(
                    f"valueVersion must be an integer, got {given!r}"[:100], message=schema, path="value_version"
                )
            version = given
        out = encode_record_value(types[0], version, value, style=style, coordinator=coordinator)
        assert out is not None  # a value given (a JSON object) is never a tombstone
        return out

    def write(value, version: int | None = None, **_) -> bytes:
        from .wire.message import encode as encode_body

        if isinstance(value, dict):
            return encode(value, version=version)
        valid = load_message(schema).valid
        if version is None:
            if valid.low != valid.high:
                raise EncodeError(f"{schema} needs its version (valid {valid})", message=schema, path="value_version")
            version = valid.low
        return version.to_bytes(2, "big", signed=True) + encode_body(schema, version, value)

    return Kind(
        registry.kind_name(schema),
        f"{registry.COORDINATORS[coordinator]} value of a {record} record (int16 version, then the value)",
        decode,
        encode,
        message=schema,
        read=read,
        write=write,
    )


def _generic_any_key() -> Kind:
    kind = _GENERIC.get(ANY_KEY)
    if kind is not None:
        return kind
    from .wire import registry
    from .wire.records import decode_record_key, encode_record, record_schemas

    def read(data: bytes, version: int | None = None, **_) -> Any:
        from .wire.builder import decode_wire
        from .wire.message import Decoded as Read

        data = bytes(data)
        _name, schema, kver, _value = record_schemas(_prefix(data, "record key", "record_type"))
        model, end = decode_wire(schema, kver, data, start=2)
        return Read(schema, kver, model, end, len(data) - end)

    def decode(data: bytes, *, style: str = "kafka", **_) -> View:
        from .wire.pretty import pretty_record

        d = decode_record_key(data, style=style)
        rtype = d["recordType" if style == "kafka" else "record_type"]
        name = d["record"]
        r = read(data)
        trailing = d.pop("trailing", None)
        return View(
            d,
            lambda: pretty_record(name, rtype, r.message, r.value, None, None, None, key_version=r.version),
            trailing_note(r.message, r.version, r.consumed, r.trailing),
            trailing,
        )

    def encode(value: dict, *, style: str = "kafka", **_) -> bytes:
        value = {k: x for k, x in value.items() if k not in ("trailing",)}
        if "value" in value or "valueVersion" in value or "value_version" in value:
            raise EncodeError(f"{ANY_KEY} encodes a key only (recordType or record, and key)", message="record key")
        key, _value = encode_record(value, style=style)
        return key

    types = _ranges(list(registry.record_types()))
    _GENERIC[ANY_KEY] = kind = _guard(
        Kind(
            ANY_KEY,
            f"__consumer_offsets key of any group record (int16 record type {types}, then the key)",
            decode,
            encode,
            read=read,
        )
    )
    return kind


def _ranges(numbers: list[int]) -> str:
    out: list[list[int]] = []
    for t in sorted(numbers):
        if out and out[-1][1] == t - 1:
            out[-1][1] = t
        else:
            out.append([t, t])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in out)
