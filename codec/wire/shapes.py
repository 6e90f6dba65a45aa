"""Shapes: what a message's structs become instead of wire dataclasses, declared once per model.

A *shape* makes a message decode straight to a model of a higher layer (the Streams models build their ``TaskId``
dicts this way) and encode from it: it names, struct by struct, what replaces the wire dataclass. Shapes are
declarations in the layer that owns the model (``codec/streams/shapes.py``); the C engine runs them as compiled
programs (:func:`codec.wire.native.program` with ``shape=``), so the engine stays generic.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "Shape",
    "Slot",
    "Const",
    "NewDict",
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
    cls: type
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
    cls: type
    fields: dict[str, EncodeSource]


class Item(_Term):
    """Encoding from one (key, value) item of a dict (``key_cls``: the key's exact class, or None)."""

    __slots__ = _fields = ("key_cls", "fields")
    key_cls: type | None
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
    Source: TypeAlias = "str | Slot | Const | NewDict | Parent | Lookup | EmptyNone | Obj | Tuple"
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
