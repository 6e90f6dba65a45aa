"""Shapes: what a message's structs become instead of wire dataclasses, declared once per model.

A *shape* makes a message decode straight to a model of a higher layer (the Streams models build their ``TaskId``
dicts this way) and encode from it: it names, struct by struct, what replaces the wire dataclass. Shapes are
declarations in the layer that owns the model (``codec/streams/shapes.py``); the C engine runs them as compiled
programs (:func:`codec.wire.native.program` with ``shape=``), so the engine stays generic, and
:func:`interpret` runs a decode shape in Python over the wire object the reference decoded, so that the paths without
the engine (and the diagnostic path, which reports the errors the engine only misses on) read the same declaration.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    import builtins  # (annotations name builtins.type: "type" alone is ambiguous to the docs)
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "interpret",
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


# --- the Python interpreter of the decode shapes -------------------------------------------------------------
# What the engine's programs build from the bytes, built here from the wire object the reference decoded: the one
# declaration of a model mapping serves the engine and the paths without it (no C compiler, REBALANCE_CODEC_NATIVE=0,
# a miss whose error the reference reports). Where the engine misses (invalid UTF-8 under a ``utf8`` conversion, a
# repeated key of a ``dict-unique`` array, a lookup that finds nothing), this raises the DecodeError, with the path.

_FLAT = object()  # what a Flat element gives: nothing to keep


def interpret(shape: Shape, message: str, version: int, obj):
    """The model ``shape`` makes of the wire object ``obj`` of ``message`` at ``version`` (a decode shape's)."""
    from .lowering import lower

    run = _Run(shape, message, version)
    return run.struct(lower(message, version), obj, "", None, None)


class _Run:
    __slots__ = ("shape", "message", "version", "root")

    def __init__(self, shape: Shape, message: str, version: int) -> None:
        self.shape, self.message, self.version = shape, message, version
        self.root: dict | None = None

    def fail(self, reason: str, path: str):
        from ..errors import DecodeError

        return DecodeError(reason, message=self.message, version=self.version, path=path)

    def struct(self, sop, obj, path: str, parent: dict | None, into: dict | None):
        import dataclasses

        shape = self.shape
        slots: dict = {}
        if self.root is None:
            self.root = slots
        changed = False
        for op in (*sop.fields, *sop.tagged):
            raw = getattr(obj, op.name)
            key = f"{sop.name}.{op.name}"
            where = f"{path}.{op.name}" if path else op.name
            if raw is None:
                value = None
            elif op.array:
                value = self.array(op, raw, key, where, slots, into)
            elif op.struct is not None:
                value = self.struct(op.struct, raw, where, slots, None)
            else:
                value = self.conv(key, raw, where)
            changed = changed or value is not raw
            slots[op.name] = value
        term = shape.decode.get(sop.name)
        if term is not None:
            return self.build(term, slots, parent, path)
        if not changed:
            return obj
        return dataclasses.replace(obj, **slots)

    def array(self, op, raw, key: str, where: str, slots: dict, into: dict | None):
        mode, _, then = self.shape.arrays.get(key, "").partition(":")
        if mode in ("count", "counts"):
            items = [self.element(op, key, x, f"{where}[{i}]", slots, None) for i, x in enumerate(raw)]
            if mode == "count":
                return len(items)
            counts: dict = {}
            for x in items:
                counts[x] = counts.get(x, 0) + 1
            return self.then(counts, then)
        if mode == "into":
            assert into is not None, f"{key}: an 'into' array inside no dict"
            for i, x in enumerate(raw):
                self.put(into, self.element(op, key, x, f"{where}[{i}]", slots, into), False, f"{where}[{i}]")
            return raw
        if mode in ("dict", "dict-unique"):
            out: dict = {}
            for i, x in enumerate(raw):
                entry = self.element(op, key, x, f"{where}[{i}]", slots, out)
                self.put(out, entry, mode == "dict-unique", f"{where}[{i}]")
            return self.then(out, then)
        return tuple(self.element(op, key, x, f"{where}[{i}]", slots, None) for i, x in enumerate(raw))

    def element(self, op, key: str, x, where: str, slots: dict, into: dict | None):
        if op.struct is not None:
            return self.struct(op.struct, x, where, slots, into)
        return self.conv(key, x, where)

    def put(self, out: dict, entry, unique: bool, where: str) -> None:
        if entry is _FLAT:
            return
        k, v = entry
        if unique and k in out:
            raise self.fail(f"duplicate key {k!r}", f"{where}.key")
        out[k] = v

    def then(self, d: dict, then: str):
        if then == "values":
            return list(d.values())
        if then == "items":
            return list(d.items()) or None
        if then == "rows":
            return [(*k, v) if isinstance(k, tuple) else (k, v) for k, v in d.items()]
        if then == "len":
            return len(d)
        return d

    def conv(self, key: str, raw, where: str):
        how = self.shape.conv.get(key)
        if how is None:
            return raw
        if how == "uuid_text":
            return str(raw)
        if how == "utf8_or_none" and not raw:
            return None
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.fail(f"invalid UTF-8 ({e.reason})", where) from None

    def build(self, term, slots: dict, parent: dict | None, path: str):
        if isinstance(term, Flat):
            for check in term.checks:
                self.source(check, slots, parent, path)
            return _FLAT
        if isinstance(term, Pair):
            return self.source(term.key, slots, parent, path), self.source(term.value, slots, parent, path)
        if isinstance(term, Tuple):
            return tuple(self.source(x, slots, parent, path) for x in term.items)
        if isinstance(term, Obj):
            made: Any = object.__new__(term.cls)
            for name, src in term.slots.items():
                object.__setattr__(made, name, self.source(src, slots, parent, path))
            return made
        raise ValueError(f"not a decode shape: {term!r}")

    def source(self, src, slots: dict, parent: dict | None, path: str):
        if isinstance(src, str):
            return slots[src]
        if isinstance(src, Slot):
            return slots[src.name]
        if isinstance(src, EmptyNone):
            value = slots[src.name]
            return None if value == "" else value
        if isinstance(src, Const):
            return src.value
        if isinstance(src, NewDict):
            return {}
        if isinstance(src, Keys):
            out: dict = {}
            for name, value in src.arrays:
                for key in slots[name] or ():
                    out[key] = value
            return out
        if isinstance(src, Parent):
            assert parent is not None, f"Parent({src.name!r}) in the root struct"
            return parent[src.name]
        if isinstance(src, Lookup):
            assert self.root is not None
            table, key = self.root[src.table], slots[src.name]
            if key not in table:
                what = src.name.replace("_", " ")
                raise self.fail(f"{what} {key} is not in the {src.table.replace('_', ' ')}", f"{path}.{src.name}")
            return table[key]
        if isinstance(src, (Obj, Tuple)):
            return self.build(src, slots, parent, path)
        raise ValueError(f"not a source: {src!r}")


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
