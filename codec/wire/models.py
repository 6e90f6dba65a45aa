"""The wire models and their JSON view: what every codec of :mod:`codec.wire` decodes to and encodes from.

The wire model of a struct is one frozen, slotted, keyword-only dataclass holding the union of its fields over
every version (as Kafka's generated ``*Data`` classes do); a field absent from a version holds its default. The
three codecs (the construct reference of :mod:`codec.wire.builder`, the generated Python of
:mod:`codec.wire.fastpath`, the native engine's programs of :mod:`codec.wire.native`) all build these classes and
read these defaults, so they live here, below all three: each codec depends on this module, none on another.
"""

from __future__ import annotations

import dataclasses
import uuid

from .schema import FieldSpec, MessageSpec, StructSpec, load_message, on_schema_change, table_token

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    import builtins  # (annotations name builtins.type: "type" alone is ambiguous to the docs)
    from collections.abc import Callable
    from typing import Any

__all__ = ["wire_class", "default_value", "field_default", "to_json", "value_json", "uuid_to_kafka"]

_INT_TYPES = {"int8", "int16", "int32", "int64", "uint16"}


def default_value(f: FieldSpec, message: MessageSpec) -> Any:
    """The value a reader gives a field its version lacks (wire-facts §0.3)."""
    d = f.default
    if f.is_array:
        return None if d == "null" else ()
    t = f.type
    if t in _INT_TYPES:
        return int(d, 0) if isinstance(d, str) else int(d or 0)
    if t == "bool":
        return d in (True, "true")
    if t in ("string", "javaUTF"):
        return None if d == "null" else (d or "")
    if t == "javaChars":
        return None
    if t == "bytes":
        return None if d == "null" else b""
    if t == "uuid":
        return uuid.UUID(int=0)
    if t == "float64":
        return float(d or 0)
    if f.struct is not None:
        return None if d == "null" else wire_class(message.name, f.struct.name)()
    raise ValueError(f"no default for type {t}")


def field_default(fld: dataclasses.Field[Any]) -> Any:
    """A wire class field's default value: its ``default``, or a fresh one from its ``default_factory`` (a
    struct's empty instance). Every field of a wire class has one or the other."""
    if fld.default is not dataclasses.MISSING:
        return fld.default
    if fld.default_factory is not dataclasses.MISSING:
        return fld.default_factory()
    raise TypeError(f"field {fld.name} has no default")


# (message, struct, table token) -> class. The classes of schemas/' tables are made once and kept (token 0): an
# object decoded before a schema_overrides block compares equal to one decoded after it.
_CLASSES: dict[tuple[str, str, int], type] = {}


def wire_class(message_name: str, struct_name: str) -> builtins.type:
    """The frozen dataclass for one struct of a message (all fields of all versions)."""
    key = (message_name, struct_name, table_token(message_name))
    cls = _CLASSES.get(key)
    if cls is None:
        cls = _CLASSES[key] = _make_wire_class(message_name, struct_name)
    return cls


def _make_wire_class(message_name: str, struct_name: str) -> type:
    message = load_message(message_name)
    spec = message.structs[struct_name]
    fields: list[tuple[str, object, object]] = []  # (name, type, dataclasses.field(...)), as make_dataclass takes them
    for f in spec.fields:
        if f.struct is not None and not f.is_array and f.default != "null":
            fields.append(
                (f.py_name, "typing.Any", dataclasses.field(default_factory=_empty(message_name, f.struct.name)))
            )
        else:
            fields.append((f.py_name, "typing.Any", dataclasses.field(default=default_value(f, message))))
    if not message.flexible.empty:
        fields.append(("unknown_tagged_fields", dict, dataclasses.field(default_factory=dict, compare=True)))
    cls_name = spec.name if struct_name != message.name else f"{message.name}Data"
    cls = dataclasses.make_dataclass(cls_name, fields, frozen=True, slots=True, kw_only=True)
    cls.__module__ = "codec.wire.models"
    cls.__qualname__ = cls_name if struct_name == message.name else f"{message.name}Data.{spec.name}"
    cls.__doc__ = (
        f"Wire model of {message.name}{'' if struct_name == message.name else '.' + spec.name} "
        f"(schemas/{message.name}.json)."
    )
    return cls


def _empty(message_name: str, struct_name: str) -> Callable[[], Any]:
    """The default factory of a non-null struct field: a fresh empty instance (its class made on first use)."""
    return lambda: wire_class(message_name, struct_name)()


@on_schema_change
def _forget_classes() -> None:
    for key in [k for k in _CLASSES if k[2]]:  # an override's classes; schemas/' ones stay
        del _CLASSES[key]


# --- the JSON view ----------------------------------------------------------------------------------------


def uuid_to_kafka(u: uuid.UUID) -> str:
    """Kafka's ``Uuid.toString()``: URL-safe base64 of the 16 bytes, no padding."""
    import base64  # (here, not at the top: a decode call's start-up does not need it)

    return base64.urlsafe_b64encode(u.bytes).rstrip(b"=").decode("ascii")


def to_json(
    obj: Any, message_name: str, version: int, *, style: str = "kafka", struct_name: str | None = None
) -> dict[str, Any]:
    """A wire object as JSON: ``kafka`` style mirrors Kafka's generated JSON converters (camelCase, only
    the fields of that version, bytes base64, uuid as Kafka's Uuid string); ``native`` uses snake_case,
    bytes as hex and UUIDs in their usual form."""
    message = load_message(message_name)
    spec = message.structs[struct_name or message.name]
    return _to_json(obj, spec, message, version, style)


def value_json(v: Any, f: FieldSpec, message: MessageSpec, version: int, style: str) -> Any:
    """One field's value as :func:`to_json` writes it."""
    if v is None:
        return None
    if f.is_array:
        return [_scalar_json(x, f, message, version, style) for x in v]
    return _scalar_json(v, f, message, version, style)


def _scalar_json(v: Any, f: FieldSpec, message: MessageSpec, version: int, style: str) -> Any:
    if f.struct is not None:
        return _to_json(v, f.struct, message, version, style)
    if isinstance(v, (bytes, bytearray)):
        import base64  # (here, not at the top: a decode call's start-up does not need it)

        return base64.b64encode(v).decode("ascii") if style == "kafka" else bytes(v).hex()
    if isinstance(v, uuid.UUID):
        return uuid_to_kafka(v) if style == "kafka" else str(v)
    return v


def _to_json(obj: Any, spec: StructSpec, message: MessageSpec, version: int, style: str) -> dict[str, Any]:
    out = {}
    for f in spec.fields:
        in_version = (
            version in f.versions if f.tag is None else bool(f.tagged_versions and version in f.tagged_versions)
        )
        if not in_version:
            continue
        key = f.json_name if style == "kafka" else f.py_name
        out[key] = value_json(getattr(obj, f.py_name), f, message, version, style)
    unknown = getattr(obj, "unknown_tagged_fields", None)
    if unknown:
        key = "_unknownTaggedFields" if style == "kafka" else "unknown_tagged_fields"
        out[key] = {str(t): bytes(b).hex() for t, b in unknown.items()}
    return out
