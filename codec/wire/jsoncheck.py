"""The group messages' JSON checked against their schema before it becomes a wire model.

:func:`codec.wire.builder.from_json` converts what it is given; this module first makes sure it is what
the message's schema (Kafka's message JSON, ``schemas/*.json``) says, so that nothing is coerced or
dropped on the way. Each of these is an :class:`~codec.errors.EncodeError` naming the message, the
version when known, and the field path (snake_case, as decode errors name it):

* a JSON type the field's type does not take: a string, list, object or float for an integer, ``true``
  or ``false`` for an integer (JSON booleans are not numbers), a number or list for a string or bytes
  (bytes are a base64 string in the ``kafka`` style, hex in the ``native`` one), a scalar for an array
  or a struct;
* an integer outside its field's type (int8, int16, int32, int64, uint16);
* ``null`` in a field that is not nullable (at the version being written, when it is known; at any
  version otherwise);
* a key the struct does not have (a typo would otherwise leave the field at its default), or one field
  under two spellings (``groupId`` and ``group_id``);
* a UUID that is not Kafka's form (22 characters of URL-safe base64, canonical) or 8-4-4-4-12 hexadecimal
  digits (:func:`codec.types.parse_uuid`);
* unknown tagged fields that are not ``{"<tag>": "<hex>"}``: a tag is written in canonical decimal (``"5"``,
  never ``"05"`` or ``"+5"``, so that two keys cannot name one tag), within the range a tag has on the wire
  (an unsigned varint of at most 32 bits: 0..2^32-1, the range the decoder keeps, so every decoded value
  encodes again), and is none of the tags the struct's schema defines (bytes under a known tag would be read
  as that field, or refused, by every reader).

Missing fields keep taking their defaults, and fields the version does not carry are left to the
encoder (Kafka's rule: refused unless at their default, or dropped when ``ignorable``).
"""

from __future__ import annotations

import base64
import binascii
import difflib
import re

from ..errors import EncodeError
from ..types import parse_uuid
from .schema import FieldSpec, StructSpec, load_message

__all__ = ["check_json", "describe", "INT_RANGES", "MAX_TAG"]

#: Integer field types and their inclusive ranges.
INT_RANGES: dict[str, tuple[int, int]] = {
    "int8": (-(1 << 7), (1 << 7) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
    "uint16": (0, (1 << 16) - 1),
}
_STRINGS = ("string", "javaUTF", "javaChars")
_TAGGED_KEYS = ("_unknownTaggedFields", "unknown_tagged_fields")
_TAG = re.compile(r"0|[1-9][0-9]{0,9}")
#: The largest tag a tagged field can have: the wire's unsigned varint holds 32 bits (the decoder's bound too).
MAX_TAG = (1 << 32) - 1


def describe(v) -> str:
    """A JSON value's type and a short rendering of it, for messages (bounded, whatever the value)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int) and v.bit_length() > 128:
        return f"an integer of {v.bit_length()} bits"
    kind = {int: "an integer", float: "a number", str: "a string", list: "a list", dict: "an object"}.get(
        type(v), type(v).__name__
    )
    if isinstance(v, (list, dict)) or kind == type(v).__name__:
        return kind
    text = repr(v)
    return f"{kind} ({text[:40]}{'...' if len(text) > 40 else ''})"


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


class _Checker:
    def __init__(self, message: str, version: int | None, style: str) -> None:
        self.spec = load_message(message)
        self.message = message
        self.version = version
        self.style = style

    def fail(self, reason: str, path: str) -> EncodeError:
        return EncodeError(reason, message=self.message, version=self.version, path=path)

    def struct(self, value, spec: StructSpec, path: str, extra: tuple[str, ...] = ()) -> None:
        if not isinstance(value, dict):
            raise self.fail(f"needs an object ({spec.name}), got {describe(value)}", path)
        known: dict[str, FieldSpec] = {}
        for f in spec.fields:
            for key in (f.json_name, f.py_name, f.name):
                known.setdefault(key, f)
        seen: dict[str, str] = {}  # field name -> the key it was given under
        tagged_key = None
        for key in value:
            if not isinstance(key, str):
                raise self.fail(f"a key must be a string, got {describe(key)}", path)
            if key in extra:
                continue
            if key in _TAGGED_KEYS:
                if tagged_key is not None:
                    raise self.fail(
                        "unknown tagged fields given twice (as '_unknownTaggedFields' and 'unknown_tagged_fields')",
                        path,
                    )
                tagged_key = key
                continue
            found = known.get(key)
            if found is None:
                names = sorted({g.json_name if self.style == "kafka" else g.py_name for g in spec.fields})
                close = difflib.get_close_matches(key[:100], list(known), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; its fields: {', '.join(names) or 'none'}"
                raise self.fail(f"no field {key[:60]!r} in {spec.name}{hint}", _join(path, key[:60]))
            f = found
            if f.name in seen:
                raise self.fail(f"given twice (as {seen[f.name]!r} and {key!r})", _join(path, f.py_name))
            seen[f.name] = key
            self.field(value[key], f, _join(path, f.py_name))
        if tagged_key is not None:
            self.tagged(value[tagged_key], spec, _join(path, "unknown_tagged_fields"))

    def _in_version(self, f: FieldSpec, version: int) -> bool:
        if f.tag is not None:
            return bool(f.tagged_versions and version in f.tagged_versions)
        return version in f.versions

    def field(self, v, f: FieldSpec, path: str) -> None:
        if v is None:
            if f.nullable.empty:
                raise self.fail(f"null, but {f.name} is never nullable", path)
            if self.version is not None and self._in_version(f, self.version) and self.version not in f.nullable:
                raise self.fail(f"null, but {f.name} is nullable only at versions {f.nullable}", path)
            return
        if f.is_array:
            if not isinstance(v, list):
                raise self.fail(f"needs a list ({f.type}), got {describe(v)}", path)
            for i, x in enumerate(v):
                if x is None:  # Kafka's arrays hold no null elements
                    raise self.fail(f"null element in {f.type}", f"{path}[{i}]")
                self.scalar(x, f, f"{path}[{i}]")
            return
        self.scalar(v, f, path)

    def scalar(self, v, f: FieldSpec, path: str) -> None:
        if f.struct is not None:
            self.struct(v, f.struct, path)
            return
        t = f.element_type
        if t in INT_RANGES:
            if type(v) is not int:
                raise self.fail(f"needs an {t}, got {describe(v)}", path)
            lo, hi = INT_RANGES[t]
            if not lo <= v <= hi:
                shown = v if v.bit_length() <= 128 else describe(v)
                raise self.fail(f"{shown} is out of range for {t} [{lo}, {hi}]", path)
        elif t == "bool":
            if type(v) is not bool:
                raise self.fail(f"needs true or false, got {describe(v)}", path)
        elif t in _STRINGS:
            if not isinstance(v, str):
                raise self.fail(f"needs a string, got {describe(v)}", path)
        elif t == "bytes":
            self.bytes(v, path)
        elif t == "uuid":
            if not isinstance(v, str):
                raise self.fail(f"needs a UUID string, got {describe(v)}", path)
            try:
                parse_uuid(v)
            except ValueError as e:
                raise self.fail(str(e), path) from None
        elif t == "float64":
            if type(v) not in (int, float):
                raise self.fail(f"needs a number, got {describe(v)}", path)
        else:  # a type this checker does not know: say so rather than let it through unchecked
            raise self.fail(f"cannot check a {t} field", path)

    def bytes(self, v, path: str) -> None:
        form = "base64" if self.style == "kafka" else "hex"
        if not isinstance(v, str):
            raise self.fail(f"needs bytes as a {form} string, got {describe(v)}", path)
        try:
            if self.style == "kafka":
                base64.b64decode(v, validate=True)
            else:
                bytes.fromhex(v)
        except (ValueError, binascii.Error):
            raise self.fail(f"not {form}: {v[:40]!r}", path) from None

    def tagged(self, v, spec: StructSpec, path: str) -> None:
        if not isinstance(v, dict):
            raise self.fail(f"needs an object of tag -> hex bytes, got {describe(v)}", path)
        defined = {f.tag: f.name for f in spec.fields if f.tag is not None}
        for k, raw in v.items():
            if not (isinstance(k, str) and _TAG.fullmatch(k) and int(k) <= MAX_TAG):
                raise self.fail(
                    f"a tag is a decimal integer without leading zeros in 0..{MAX_TAG}, got {describe(k)}", path
                )
            if int(k) in defined:
                raise self.fail(
                    f"tag {k} is {spec.name}'s {defined[int(k)]} field, not an unknown tagged field", f"{path}[{k}]"
                )
            if not isinstance(raw, str):
                raise self.fail(f"needs hex bytes, got {describe(raw)}", f"{path}[{k}]")
            try:
                bytes.fromhex(raw)
            except ValueError:
                raise self.fail(f"not hex: {raw[:40]!r}", f"{path}[{k}]") from None


def check_json(
    value, message: str, version: int | None = None, *, style: str = "kafka", extra: tuple[str, ...] = ()
) -> None:
    """Raise :class:`EncodeError` unless ``value`` is JSON the schema of ``message`` takes (see the module
    docstring). ``version``: the version it will be written at, when known (for nullability);
    ``extra``: top-level keys the caller handles itself (``version``, ``trailing``)."""
    checker = _Checker(message, version, style)
    checker.struct(value, checker.spec.root, "", extra)
