"""Shapes: what a message's structs become instead of wire dataclasses, declared once per model.

A *shape* makes a message decode straight to a model of a higher layer (the Streams models build their ``TaskId``
dicts this way) and encode from it: it names, struct by struct, what replaces the wire dataclass. Shapes are
declarations in the layer that owns the model (``codec/streams/shapes.py``); the C engine runs them as compiled
programs (:func:`codec.wire.native.program` with ``shape=``), so the engine stays generic, and
:func:`codec.wire.shapes_python.interpret` runs a decode shape in Python over the wire object the reference decoded
(and :func:`interpret_encode` an encode shape), so that the paths without the engine (and the diagnostic path, which
reports the errors the engine only misses on) read the same declaration. :func:`project` derives a shape from
another: the same bytes viewed otherwise (the pipeline's rows of the Streams models).
"""

from __future__ import annotations

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    import builtins  # (annotations name builtins.type: "type" alone is ambiguous to the docs)
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "project",
    "interpret_encode",
    "Shape",
    "Slot",
    "Const",
    "NewDict",
    "Keys",
    "Parent",
    "Lookup",
    "EmptyNone",
    "Obj",
    "Tuple",
    "Pair",
    "Flat",
    "In",
    "Item",
    "Row",
    "Attr",
    "Key",
    "KeyAttr",
    "Value",
    "Extra",
    "LookupAttr",
]


# Plain classes (not dataclasses: these are imported on the CLI's start-up path).


class _Term:
    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __init__(self, *args, **kwargs) -> None:
        values = dict(zip(self._fields, args), **kwargs)
        for name in self._fields:
            object.__setattr__(self, name, values.get(name, getattr(type(self), "_" + name, None)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(repr(getattr(self, n)) for n in self._fields)})"


# Each term names its fields in ``__slots__`` (the constructor's positional order) and annotates their types; a
# ``_<field>`` class attribute is the default of a field left out.
class Slot(_Term):
    """The value of a field of this struct (snake_case name; a bare string means the same)."""

    __slots__ = _fields = ("name",)
    name: str


class Const(_Term):
    """A constant (immutable) value."""

    __slots__ = _fields = ("value",)
    value: object


class NewDict(_Term):
    """A new empty dict."""

    __slots__ = _fields = ()


class Keys(_Term):
    """A new dict: every element of each named array of this struct (decoded before it) as a key, with the constant
    given for that array, array after array (a key met again takes the later value, as a dict's update does):
    ``Keys(("prev_tasks", -2), ("standby_tasks", -3))``."""

    __slots__ = _fields = ("arrays",)
    arrays: tuple[tuple[str, object], ...]

    def __init__(self, *arrays: tuple[str, object]) -> None:
        object.__setattr__(self, "arrays", arrays)


class Parent(_Term):
    """The value of a field of the enclosing struct (decoded before this one)."""

    __slots__ = _fields = ("name",)
    name: str


class Lookup(_Term):
    """``root[table][this struct's field]``: ``table`` a dict-shaped array field of the message's root struct,
    decoded before this one; a key it lacks is a miss (the model path reports it)."""

    __slots__ = _fields = ("table", "name")
    table: str
    name: str


class EmptyNone(_Term):
    """The field's value, an empty string as None."""

    __slots__ = _fields = ("name",)
    name: str


class Obj(_Term):
    """An instance of a slotted class whose every slot is given (slot -> source)."""

    __slots__ = _fields = ("cls", "slots")
    cls: builtins.type
    slots: dict[str, Source]


class Pair(_Term):
    """An element of a dict-shaped array: key -> value in the dict it becomes."""

    __slots__ = _fields = ("key", "value")
    key: Source
    value: Source


class Tuple(_Term):
    """A tuple of sources (``Tuple("a", Const(None), Parent("b"))``)."""

    __slots__ = _fields = ("items",)
    items: tuple[Source, ...]

    def __init__(self, *items: Source) -> None:
        object.__setattr__(self, "items", items)


class Flat(_Term):
    """An element not itself kept: its ``into`` arrays fill the dict of the enclosing array. With sources
    (``Flat(Lookup("topic_dictionary", "topic_index"))``), each must be found -- a lookup's absent key is a miss
    -- and nothing is built."""

    __slots__ = _fields = ("checks",)
    checks: tuple[Source, ...]

    def __init__(self, *checks: Source) -> None:
        object.__setattr__(self, "checks", checks)


class In(_Term):
    """Encoding from an instance of ``cls`` (exactly); fields: wire field -> source."""

    __slots__ = _fields = ("cls", "fields")
    cls: builtins.type
    fields: dict[str, EncodeSource]


class Item(_Term):
    """Encoding from one (key, value) item of a dict (``key_cls``: the key's exact class, or None)."""

    __slots__ = _fields = ("key_cls", "fields")
    key_cls: builtins.type | None
    fields: dict[str, EncodeSource]


class Row(_Term):
    """Encoding from a tuple of the fields at this version, in wire order."""

    __slots__ = _fields = ()


class Attr(_Term):
    """An attribute of the object being encoded (``conv``: ``utf8`` or ``utf8_none_empty`` for a bytes field
    written from a str; ``items``: an array written from a dict's items)."""

    __slots__ = _fields = ("name", "conv", "items")
    _items = False
    name: str
    conv: str | None
    items: bool


class Key(_Term):
    """The item's key."""

    __slots__ = _fields = ("conv",)
    conv: str | None


class KeyAttr(_Term):
    """An attribute of the item's key."""

    __slots__ = _fields = ("name",)
    name: str


class Value(_Term):
    """The item's value."""

    __slots__ = _fields = ("conv", "items")
    _items = False
    conv: str | None
    items: bool


class Extra(_Term):
    """The n-th extra argument of ``encode`` (computed by the caller)."""

    __slots__ = _fields = ("index",)
    index: int


class LookupAttr(_Term):
    """``extra[index][obj.name]``: a caller's table, by an attribute."""

    __slots__ = _fields = ("name", "index")
    name: str
    index: int


if TYPE_CHECKING:
    from typing import TypeAlias

    #: where a decoded value comes from (a bare string: a :class:`Slot`)
    Source: TypeAlias = "str | Slot | Const | NewDict | Keys | Parent | Lookup | EmptyNone | Obj | Tuple"
    #: what a decoded struct becomes
    DecodeTarget: TypeAlias = "Obj | Tuple | Pair | Flat"
    #: what a struct is encoded from
    EncodeTarget: TypeAlias = "In | Item | Row"
    #: where the encoder finds a field's value
    EncodeSource: TypeAlias = "Attr | Key | KeyAttr | Value | Const | Extra | LookupAttr"


class Shape:
    """What a message's structs become instead of wire dataclasses, struct by struct (by struct name):
    ``decode`` maps a struct to an :class:`Obj`, :class:`Tuple`, :class:`Pair` or :class:`Flat` (structs not
    named stay wire dataclasses); ``arrays`` maps an array field (``Struct.field``) to ``dict``, ``dict-unique``,
    ``into`` (filling the enclosing dict), ``count`` (its length, every element read) or ``counts`` (a dict of each
    distinct element's count); a dict or counts array may name what it gives instead of the dict after a colon:
    ``:values`` (the values' list, first seen first), ``:items`` (the items' list, None when empty), ``:rows``
    (each entry as its key tuple with the value appended) or ``:len`` (the number of keys); ``conv`` maps a bytes field (``Struct.field``) to ``utf8`` or
    ``utf8_or_none``, a uuid field to ``uuid_text`` (its dashed text). ``encode`` maps a struct to
    :class:`In`, :class:`Item` or :class:`Row`. Every name is checked against the schema when the program is
    compiled. Shapes compare (and cache) by ``name``."""

    __slots__ = ("name", "decode", "arrays", "conv", "encode")

    def __init__(
        self,
        name: str,
        decode: Mapping[str, DecodeTarget] | None = None,
        arrays: Mapping[str, str] | None = None,
        conv: Mapping[str, str] | None = None,
        encode: Mapping[str, EncodeTarget] | None = None,
    ) -> None:
        self.name = name
        self.decode = decode or {}
        self.arrays = arrays or {}
        self.conv = conv or {}
        self.encode = encode or {}

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other) -> bool:
        return isinstance(other, Shape) and other.name == self.name


# --- projections: a shape derived from another ---------------------------------------------------------------


def project(
    shape: Shape,
    name: str,
    objs: Mapping[builtins.type, Any] | None = None,
    pairs: Mapping[builtins.type, Any] | None = None,
    then: Mapping[str, str] | None = None,
    arrays: Mapping[str, str] | None = None,
    conv: Mapping[str, str] | None = None,
    decode: Mapping[str, DecodeTarget] | None = None,
) -> Shape:
    """A decode shape made from ``shape`` (another view of the same bytes: the pipeline's rows of a model): each
    ``Obj(cls, slots)`` whose class ``objs`` names becomes ``objs[cls](slots)`` (its slots projected first), each
    ``Pair`` whose key is such an ``Obj`` of a class ``pairs`` names becomes ``pairs[cls](key slots, value)``;
    ``then`` gives a dict array of ``shape`` what it yields instead of the dict (``values``, ``items``, ``rows``,
    ``len``: an array ``shape`` lacks is left alone); ``arrays``, ``conv`` and ``decode`` add or replace entries
    of ``shape``'s (a struct the projection reads differently). Everything else -- which arrays fill dicts, the
    lookups, the conversions, which fields -- is ``shape``'s."""
    objs, pairs = objs or {}, pairs or {}

    def term(t):
        if isinstance(t, Pair):
            key = t.key
            if isinstance(key, Obj) and key.cls in pairs:
                return pairs[key.cls]({k: term(v) for k, v in key.slots.items()}, term(t.value))
            return Pair(term(key), term(t.value))
        if isinstance(t, Obj):
            slots = {k: term(v) for k, v in t.slots.items()}
            return objs[t.cls](slots) if t.cls in objs else Obj(t.cls, slots)
        if isinstance(t, Tuple):
            return Tuple(*(term(x) for x in t.items))
        if isinstance(t, Flat):
            return Flat(*(term(x) for x in t.checks))
        return t

    out_arrays = dict(shape.arrays)
    for key, what in (then or {}).items():
        if key in out_arrays:
            out_arrays[key] = f"{out_arrays[key].partition(':')[0]}:{what}"
    out_arrays.update(arrays or {})
    out_decode = {k: term(v) for k, v in shape.decode.items()}
    out_decode.update(decode or {})
    return Shape(name, decode=out_decode, arrays=out_arrays, conv={**shape.conv, **(conv or {})})


def interpret_encode(shape: Shape, message: str, version: int, model, *extra):
    """The wire object ``shape`` (an encode shape's) makes of ``model`` at ``version``: what the engine's program
    writes from the model, as a wire object the reference then encodes (and whose errors it reports). ``extra``: the
    program's extra arguments (:class:`Extra`, :class:`LookupAttr`). A value a ``utf8`` conversion cannot write is an
    EncodeError naming the model's attribute (``client_tags['k'].key``)."""
    from .lowering import lower

    return _Encode(shape, message, version, extra).struct(lower(message, version), model, None, "")


class _Encode:
    __slots__ = ("shape", "message", "version", "extra")

    def __init__(self, shape: Shape, message: str, version: int, extra: tuple) -> None:
        self.shape, self.message, self.version, self.extra = shape, message, version, extra

    def struct(self, sop, obj, item, path: str):
        from .models import wire_class

        term = self.shape.encode.get(sop.name)
        if term is None:
            return obj  # (a wire object already)
        row = isinstance(term, Row)
        values = {}
        for i, op in enumerate(sop.fields):
            if row:  # (a row's nested structs are rows or shaped too)
                value, where = obj[i], path
            else:
                assert not isinstance(term, Row)
                src = term.fields[op.name]
                where = src.name if isinstance(src, Attr) else path
                value = self.source(src, obj, item, path)
            if value is not None and op.struct is not None:
                if op.array:
                    value = tuple(self.element(op.struct, x, where) for x in value)
                else:
                    value = self.element(op.struct, value, where)
            elif value is not None and op.array:
                value = tuple(value)
            values[op.name] = value
        return wire_class(self.message, sop.name)(**values)

    def element(self, sop, x, where: str):
        term = self.shape.encode.get(sop.name)
        if isinstance(term, Item):
            return self.struct(sop, None, x, f"{where}[{x[0]!r}]")
        return self.struct(sop, x, None, where)

    def source(self, src, obj, item, path: str):
        if isinstance(src, Attr):
            value = getattr(obj, src.name)
            value = list(value.items()) if src.items else value
            return self.conv(value, src.conv, src.name)
        if isinstance(src, Key):
            return self.conv(item[0], src.conv, f"{path}.key")
        if isinstance(src, KeyAttr):
            return getattr(item[0], src.name)
        if isinstance(src, Value):
            value = list(item[1].items()) if src.items else item[1]
            return self.conv(value, src.conv, f"{path}.value")
        if isinstance(src, Const):
            return src.value
        if isinstance(src, Extra):
            return self.extra[src.index]
        if isinstance(src, LookupAttr):
            return self.extra[src.index][getattr(obj, src.name)]
        raise ValueError(f"not an encoder source: {src!r}")

    def conv(self, value, how: str | None, path: str):
        if how is None:
            return value
        from ..errors import EncodeError
        from .encodings import utf8_or_refuse

        if how == "utf8_none_empty" and value is None:
            return b""
        if not isinstance(value, str):
            raise EncodeError(
                f"needs a string, got {type(value).__name__}", message=self.message, version=self.version, path=path
            )
        try:
            return utf8_or_refuse(value, path)
        except EncodeError as e:
            raise EncodeError(e.reason, message=self.message, version=self.version, path=path) from None
