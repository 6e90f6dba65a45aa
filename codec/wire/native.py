"""The native codec: the schema tables compiled into programs for the C engine (``codec/wire/_native.c``).

The engine knows no message. For every (message, version) this module walks the same field table as the
construct path (:mod:`codec.wire.builder`) and the Python fast path (:mod:`codec.wire.fastpath`) and hands
the engine a tree of struct programs: each field in wire order with its kind, its length and count
encoding (int16/int32 or compact), nullability, the tagged-field section of flexible versions, what the
decoded values become and where the encoder finds them. Programs are compiled on first use from whatever
``schemas/`` holds, so a schema added after the extension was built is covered without rebuilding it.

What a struct decodes to is the program's *mode*:

* ``object``: the frozen wire dataclasses of :func:`codec.wire.builder.wire_class` (slots filled directly),
  the default, behind :func:`codec.wire.builder.decode_wire`/:func:`~codec.wire.builder.encode_wire`;
* ``rows``: tuples of the fields present at that version, in wire order (classic versions; the rows of
  :func:`codec.wire.fastpath.row_decoder`/:func:`~codec.wire.fastpath.row_encoder`);
* ``kafka`` / ``snake``: the dicts of :func:`codec.wire.builder.to_json` in that style, straight from the
  bytes (Kafka's JSON: camelCase, bytes base64, UUIDs as Kafka's ``Uuid`` strings).

A *shape* (:class:`Shape`) makes a message decode straight to a model of a higher layer (the Streams models
build their ``TaskId`` dicts this way) and encode from it; it names, struct by struct, what replaces the
wire dataclass. Shapes are declarations in the layer that owns the model; the engine stays generic.

Neither direction reports errors: on anything unusual a program returns None and the caller takes the
pure-Python path, whose construct reference decides and reports (same value, same error, offset and path;
``tests/wire/test_native.py`` holds them equal). ``REBALANCE_CODEC_NATIVE=0`` in the environment turns
the native codec off (the pure-Python codec then runs: the fast path, then the reference);
:func:`codec_name` says which is active.
"""

from __future__ import annotations

import dataclasses
import os
import uuid
from functools import cache, update_wrapper

from .models import default_value, field_default, value_json, wire_class
from .lowering import FieldOp, StructOp, lower_struct
from .shapes import (
    Attr,
    Const,
    EmptyNone,
    Extra,
    Flat,
    In,
    Key,
    KeyAttr,
    Lookup,
    LookupAttr,
    Keys,
    NewDict,
    Obj,
    Pair,
    Parent,
    Row,
    Shape,
    Slot,
    Tuple,
    Value,
)
from .schema import FieldSpec, MessageSpec, StructSpec, load_message, on_schema_change

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    import builtins  # (annotations name builtins.type: "type" alone is ambiguous to the docs)
    from collections.abc import Callable
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "available",
    "active",
    "set_active",
    "codec_name",
    "unavailable_reason",
    "program",
    "object_program",
    "maker",
    "fast_table",
    "bound",
    "each",
    "front",
    "Hot",
    "ACTIVE",
    "OFF",
]

try:
    from . import _native as _engine

    _WHY_NOT = ""
except ImportError as e:  # no compiler at install time: the pure-Python codec serves
    _WHY_NOT = f"the extension is not built ({e})"
#: True when the extension is installed. ``_engine`` is bound only then, and read only then (behind this, ACTIVE
#: or a program, which exists only while ACTIVE).
_AVAILABLE = not _WHY_NOT

#: ``[True]`` while the native codec runs: a one-element list that callers on hot paths read without a call.
ACTIVE = [
    _AVAILABLE and os.environ.get("REBALANCE_CODEC_NATIVE", "1").strip().lower() not in ("0", "no", "off", "false")
]


def available() -> bool:
    """True when the extension is installed (whether or not it is turned off)."""
    return _AVAILABLE


def unavailable_reason() -> str:
    return _WHY_NOT


def active() -> bool:
    """True when the native codec runs (installed and not turned off)."""
    return ACTIVE[0]


def set_active(on: bool) -> bool:
    """Turn the native codec on or off (for measurements and tests); returns the previous setting. Turning
    it on without the extension leaves it off."""
    old = ACTIVE[0]
    ACTIVE[0] = bool(on) and _AVAILABLE
    return old


#: What a hot path reads instead of its table while the native codec is off (``table if ACTIVE[0] else OFF``):
#: the tables keep their entries for when it is on again.
OFF: dict = {}


_FAST_TABLES: list[dict] = []


def fast_table() -> dict:
    """A hot path's native decoders or encoders by key, filled once a call has checked the key (after which a
    hit needs no other check): read it as ``table if ACTIVE[0] else OFF``. Emptied when the schema tables
    change (:func:`codec.wire.schema.schema_overrides`)."""
    table: dict = {}
    _FAST_TABLES.append(table)
    return table


def bound(
    prog, make: Callable[..., Any] | None = None, *, prefix: tuple = (), start: int = 0, trailing_bytes: bool = False
):
    """One call for a whole buffer: ``bound(prog, make)(buf)`` is ``make(value, end, len(buf) - end)`` of
    ``prog.decode(buf, start)`` (the value alone without ``make``), or None on anything unusual. ``prefix``:
    arguments before the value; ``trailing_bytes``: ``make(*prefix, value, buf[end:])`` instead (bytes only)."""
    return _engine.bound(prog, make, prefix, start, trailing_bytes)


def each(table: dict, buffers: list, width: int, max_size: int, fallback: Callable[[bytes], Any]) -> list:
    """``[table[version](b) for b in buffers]``, with None where that gives None, where the version is not in
    ``table`` or ``b`` is not ``bytes`` of ``width`` to ``max_size`` bytes; the version is ``b``'s first ``width``
    (2 or 4) bytes, big-endian (4: signed). One call for a batch, no Python frame per buffer. Without the native
    codec: ``fallback(b)`` of each ``bytes`` (the table is the native decoders'), None for anything else."""
    if not ACTIVE[0]:
        return [fallback(b) if type(b) is bytes else None for b in buffers]
    return _engine.each(table, buffers, width, max_size)


def front(fallback: F, table: dict, nkey: int, suffix: tuple = (), *, prefix_max: int = 0) -> F:
    """``fallback`` (a public function) with its hot path in the engine: a call with ``nkey + 1`` positional
    arguments, while the native codec is active, is ``table[(*args[:nkey], *suffix)](args[nkey])`` when the
    key is in ``table`` (a :func:`fast_table` the function fills; the key alone when it is one argument and
    there is no suffix) and that gives a value; with ``prefix_max`` the data must be ``bytes`` of 2 to
    ``prefix_max`` bytes and the key ends with its version prefix (``data[0] << 8 | data[1]``). Everything else
    (an absent or unhashable key, a None result, keyword arguments, the codec off) calls ``fallback`` itself,
    which checks the arguments, reports errors and fills the table. What the function's own first lines did (``(table if ACTIVE[0] else OFF)[key](data)``
    with ``except (KeyError, TypeError)``) without a Python frame: a small message's decode was mostly that
    frame. Carries the function's name, docstring and ``__wrapped__`` (signature); without the extension it
    is ``fallback``."""
    if not _AVAILABLE:
        return fallback
    hot = _engine.front(fallback, table, ACTIVE, nkey, suffix, prefix_max)
    update_wrapper(hot, fallback)  # (in place: the name, docstring and __wrapped__ of the function)
    return hot


class Hot:
    """One hot path: the table of native callables a function fills by key (a :func:`fast_table`) and the C front
    that calls them without a Python frame (:func:`front`). The glue of every hot entry point, written once::

        _DECODE = Hot()

        def decode(name, version, data):
            ...  # check, decode on the reference path, report errors
            _DECODE.learn((name, version), native.object_program(name, version), make)
            return ...

        decode = _DECODE.front(decode, 2)
    """

    __slots__ = ("table",)

    def __init__(self) -> None:
        self.table: dict = fast_table()

    def front(self, fallback: F, nkey: int, suffix: tuple = (), *, prefix_max: int = 0) -> F:
        """``fallback`` fronted by this table (:func:`front`)."""
        return front(fallback, self.table, nkey, suffix, prefix_max=prefix_max)

    def learn(self, key, prog, make: Callable[..., Any] | None = None, **how) -> None:
        """Keep ``bound(prog, make, **how)`` under ``key`` (nothing without a program: the codec off, or none)."""
        if prog is not None and ACTIVE[0]:
            self.table[key] = bound(prog, make, **how)

    def learn_encoder(self, key, prog) -> None:
        """Keep ``prog.encode`` under ``key`` (nothing without a program)."""
        if prog is not None and ACTIVE[0]:
            self.table[key] = prog.encode

    def get(self, key):
        """The callable under ``key`` while the native codec is active, else None (an unhashable key too)."""
        try:
            return self.table.get(key) if ACTIVE[0] else None
        except TypeError:
            return None


def codec_name() -> str:
    """``native`` or ``python``: which codec decodes and encodes in this process."""
    return "native" if ACTIVE[0] else "python"


# The engine's codes (codec/wire/_native.c).
K_INT8, K_INT16, K_INT32, K_INT64, K_UINT16, K_BOOL, K_UUID, K_STRING, K_BYTES, K_JAVAUTF, K_JAVACHARS, K_STRUCT = (
    range(1, 13)
)
F_ARRAY, F_COMPACT, F_NULLABLE, F_ARR_NULLABLE, F_MARKER_UV, F_UNIQUE = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
F_TO_VALUES, F_TO_ITEMS, F_TO_ROWS, F_TO_LEN, F_JAVA_UTF8 = 0x40, 0x80, 0x100, 0x200, 0x400
A_TUPLE, A_LIST, A_DICT, A_INTO, A_COUNT, A_COUNTS = range(6)
C_NONE, C_B64, C_HEX, C_KUUID, C_SUUID, C_UTF8, C_UTF8_OR_NONE = range(7)
B_OBJECT, B_TUPLE, B_DICT, B_PAIR, B_NONE, B_CHECK = range(1, 7)
S_SLOT, S_CONST, S_NEWDICT, S_CALL, S_BUILD, S_PARENT, S_LOOKUP, S_EMPTY_NONE, S_UNKNOWN_JSON, S_KEYS = range(1, 11)
E_OBJECT, E_TUPLE, E_ITEM = range(1, 4)
G_OFF, G_IDX, G_KEY, G_KEYOFF, G_VALUE, G_CONST, G_EXTRA, G_LOOKUP = range(1, 9)
EC_NONE, EC_UTF8, EC_UTF8_NONE_EMPTY = range(3)

_KINDS = {
    "int8": K_INT8,
    "int16": K_INT16,
    "int32": K_INT32,
    "int64": K_INT64,
    "uint16": K_UINT16,
    "bool": K_BOOL,
    "uuid": K_UUID,
    "string": K_STRING,
    "bytes": K_BYTES,
    "javaUTF": K_JAVAUTF,
    "javaChars": K_JAVACHARS,
}
_CONV = {"utf8": C_UTF8, "utf8_or_none": C_UTF8_OR_NONE, "uuid_text": C_SUUID}
_ECONV: dict[str | None, int] = {"utf8": EC_UTF8, "utf8_none_empty": EC_UTF8_NONE_EMPTY}
_IMMUTABLE = (type(None), int, bool, str, bytes, float, uuid.UUID)


def slot_offset(cls: builtins.type, name: str) -> int:
    """Where the slot ``name`` of instances of ``cls`` lives (the engine reads and writes it directly)."""
    for klass in cls.__mro__:
        d = klass.__dict__.get(name)
        if d is not None:
            return _engine.slot_offset(d)
    raise AttributeError(f"{cls.__name__} has no slot {name!r}")


if _AVAILABLE:
    _engine.configure(
        uuid.UUID, slot_offset(uuid.UUID, "int"), slot_offset(uuid.UUID, "is_safe"), uuid.SafeUUID.unknown
    )


def maker(cls: builtins.type) -> Callable[..., Any]:
    """A positional constructor of a slotted class (a frozen dataclass: its fields in order) that fills the
    slots directly, skipping ``__init__``: ``maker(DecodedMessage)(value, consumed, trailing)`` equals
    ``DecodedMessage(value, consumed, trailing)``. For the results the hot paths return. Native where the
    native codec is active when it is made, else the same in Python (a plain twin class with the same
    slots, then ``__class__`` set: what :func:`codec.wire.fastpath.maker` does for wire classes)."""
    names = _slot_names(cls)
    if ACTIVE[0]:
        return _engine.maker(cls, tuple(slot_offset(cls, n) for n in names))
    twin = type(f"{cls.__name__}Builder", (), {"__slots__": tuple(names)})
    lines = [f"def make({', '.join(names)}):", "    o = B()"]
    lines += [f"    o.{n} = {n}" for n in names]
    lines += ["    o.__class__ = C", "    return o"]
    globs = {"B": twin, "C": cls}
    exec("\n".join(lines) + "\n", globs)
    return globs["make"]


# --- the compiler ---------------------------------------------------------------------------------------


def _wire_class(message: MessageSpec, spec: StructSpec) -> type:
    return wire_class(message.name, spec.name)


class _Compiler:
    def __init__(self, message: MessageSpec, version: int, mode: str, shape: Shape | None) -> None:
        self.message = message
        self.version = version
        self.mode = mode
        self.shape = shape
        self.json = mode in ("kafka", "snake")
        # "object-java": the object mode, its strings read as Java reads them (:data:`JAVA_STRINGS`)
        self.java_strings = mode == JAVA_STRINGS
        self.used: set[str] = set()
        self.structs: dict[tuple, Any] = {}
        self.stack: list[dict] = []  # the slots of the structs being compiled, outermost first

    # what one field is on the wire
    def field_op(
        self,
        op: FieldOp,
        slot: int,
        spec: StructSpec,
        enc_src: tuple | None,
        econv: int = EC_NONE,
        ain: int = 0,
        tag: int = -1,
        ddefault=None,
        dcall: int = 0,
        tdefault=None,
    ) -> tuple:
        f = op.field
        if op.struct is not None:
            kind = K_STRUCT
            sub = self.struct(op.struct.spec)
        elif op.kind in _KINDS:
            kind, sub = _KINDS[op.kind], None
        else:
            raise ValueError(f"{self.message.name}.{f.name}: no native kind for {f.type}")
        flags = 0
        if op.compact:
            flags |= F_COMPACT
        if op.array:
            flags |= F_ARRAY
            if op.array_nullable:
                flags |= F_ARR_NULLABLE
        elif op.nullable:
            flags |= F_NULLABLE
            if op.marker == "uvarint":
                flags |= F_MARKER_UV
        if self.java_strings and kind == K_STRING:
            flags |= F_JAVA_UTF8
        amode = A_LIST if self.json else A_TUPLE
        key = f"{spec.name}.{f.py_name}"
        if self.shape is not None and key in self.shape.arrays:
            self.used.add(key)
            mode, _, then = self.shape.arrays[key].partition(":")
            amode = {"dict": A_DICT, "dict-unique": A_DICT, "into": A_INTO, "count": A_COUNT, "counts": A_COUNTS}[mode]
            if mode == "dict-unique":
                flags |= F_UNIQUE
            if then:
                if amode not in (A_DICT, A_COUNTS):
                    raise ValueError(f"{key}: ':{then}' follows a dict or counts array, not {mode}")
                flags |= {"values": F_TO_VALUES, "items": F_TO_ITEMS, "rows": F_TO_ROWS, "len": F_TO_LEN}[then]
        conv = C_NONE
        if self.mode == "kafka":
            conv = {K_BYTES: C_B64, K_UUID: C_KUUID}.get(kind, C_NONE)
        elif self.mode == "snake":
            conv = {K_BYTES: C_HEX, K_UUID: C_SUUID}.get(kind, C_NONE)
        if self.shape is not None and key in self.shape.conv:
            self.used.add(key)
            conv = _CONV[self.shape.conv[key]]
            if (kind == K_UUID) != (conv == C_SUUID) or kind not in (K_BYTES, K_UUID):
                raise ValueError(f"{key}: {self.shape.conv[key]} does not apply to a {f.type} field")
        gsrc, garg = enc_src if enc_src else (0, 0)
        return (kind, flags, amode, slot, conv, sub, gsrc, garg, econv, ain, tag, ddefault, dcall, tdefault)

    def struct(self, spec: StructSpec):
        # a shape's Parent sources depend on where the struct sits: the enclosing struct is in the key
        key = (spec.name, tuple(self.stack[-1].items()) if self.shape is not None and self.stack else ())
        if key not in self.structs:
            self.structs[key] = _engine.struct(self.struct_spec(spec))
        return self.structs[key]

    def struct_spec(self, spec: StructSpec) -> tuple:
        sop = lower_struct(self.message.name, spec.name, self.version)
        present = tuple(op.field for op in sop.fields)
        tagged = tuple(op.field for op in sop.tagged)
        flexible = sop.flexible
        if self.mode == "rows" and flexible:
            raise ValueError("rows are for classic versions")
        slots = {f.py_name: i for i, f in enumerate(present)}
        for j, f in enumerate(tagged):
            slots[f.py_name] = len(present) + j
        unknown_slot = len(slots) if flexible else -1
        nslots = len(slots) + (1 if flexible else 0)
        self.stack.append(slots)
        try:
            return self._struct_spec(sop, present, tagged, slots, unknown_slot, nslots)
        finally:
            self.stack.pop()

    def _struct_spec(self, sop: StructOp, present, tagged, slots, unknown_slot, nslots) -> tuple:
        m, spec, flexible = self.message, sop.spec, sop.flexible
        shaped = self.shape is not None and (spec.name in self.shape.decode or spec.name in self.shape.encode)
        cls = None if self.json or self.mode == "rows" or shaped else _wire_class(m, spec)
        enc_in = self.shape.encode.get(spec.name) if self.shape is not None else None
        if enc_in is not None:
            self.used.add(f"encode:{spec.name}")
            if not isinstance(enc_in, Row) and set(enc_in.fields) != {f.py_name for f in present}:
                raise ValueError(
                    f"{m.name} v{self.version} {spec.name}: the encoder shape names "
                    f"{sorted(enc_in.fields)}, the version has {[f.py_name for f in present]}"
                )
        fields = tuple(
            self.field_op(op, i, spec, *self.enc_source(op.field, i, cls, enc_in)) for i, op in enumerate(sop.fields)
        )
        tagged_ops = tuple(self.tagged_op(op, slots[op.name], spec, cls) for op in sop.tagged)
        out = self.builder(spec, present, tagged, slots, unknown_slot, cls)
        enc = self.encoder(sop, cls, enc_in)
        return (nslots, fields, int(flexible), unknown_slot, tagged_ops, out, enc)

    def enc_source(self, f: FieldSpec, i: int, cls: type | None, enc_in) -> tuple:
        """(source, conversion, items) of one field for the encoder."""
        if isinstance(enc_in, Row):
            return (G_IDX, i), EC_NONE, 0
        if enc_in is not None:
            src = enc_in.fields.get(f.py_name)
            if src is None:
                raise ValueError(f"{self.message.name}: the encoder shape gives no value for {f.py_name}")
            return self.shape_source(src, enc_in)
        if cls is not None:
            return (G_OFF, slot_offset(cls, f.py_name)), EC_NONE, 0
        if self.mode == "rows":
            return (G_IDX, i), EC_NONE, 0
        return None, EC_NONE, 0

    def shape_source(self, src, enc_in) -> tuple:
        if isinstance(src, Attr):
            off = slot_offset(enc_in.cls, src.name)
            return (G_OFF, off), _ECONV.get(src.conv, EC_NONE), int(src.items)
        if isinstance(src, Key):
            return (G_KEY, 0), _ECONV.get(src.conv, EC_NONE), 0
        if isinstance(src, KeyAttr):
            if enc_in.key_cls is None:
                raise ValueError("KeyAttr needs the item's key class")
            return (G_KEYOFF, slot_offset(enc_in.key_cls, src.name)), EC_NONE, 0
        if isinstance(src, Value):
            return (G_VALUE, 0), _ECONV.get(src.conv, EC_NONE), int(src.items)
        if isinstance(src, Const):
            return (G_CONST, src.value), EC_NONE, 0
        if isinstance(src, Extra):
            return (G_EXTRA, src.index), EC_NONE, 0
        if isinstance(src, LookupAttr):
            return (G_LOOKUP, (slot_offset(enc_in.cls, src.name), src.index)), EC_NONE, 0
        raise ValueError(f"not an encoder source: {src!r}")

    def tagged_op(self, op: FieldOp, slot: int, spec: StructSpec, cls: type | None) -> tuple:
        f = op.field
        d = default_value(f, self.message)
        if self.json:
            d = value_json(d, f, self.message, self.version, self.mode)
        dcall = 0
        if not isinstance(d, _IMMUTABLE) and d != ():
            d, dcall = _fresh(f, self.message, self.version, self.mode if self.json else None), 1
        enc_src, tdefault = None, None
        if cls is not None:
            enc_src = (G_OFF, slot_offset(cls, f.py_name))
            fld = next(x for x in dataclasses.fields(cls) if x.name == f.py_name)
            # (a struct's default is a factory's: the empty struct, compared by value as the reference does)
            tdefault = field_default(fld)
        return self.field_op(op, slot, spec, enc_src, tag=f.tag_number, ddefault=d, dcall=dcall, tdefault=tdefault)

    def builder(self, spec: StructSpec, present, tagged, slots: dict, unknown_slot: int, cls: type | None) -> tuple:
        if self.shape is not None and spec.name in self.shape.decode:
            self.used.add(spec.name)
            return self.shape_builder(self.shape.decode[spec.name], slots)
        if self.shape is not None and spec.name in self.shape.encode:
            return (B_NONE,)  # an encode-only shape
        if self.mode == "rows":
            return (B_TUPLE, tuple((S_SLOT, slots[f.py_name]) for f in present))
        if self.json:
            items: list[tuple[str, tuple[int, ...]]] = []
            for f in spec.fields:
                if f.py_name in slots:
                    key = f.json_name if self.mode == "kafka" else f.py_name
                    items.append((key, (S_SLOT, slots[f.py_name])))
            if unknown_slot >= 0:
                key = "_unknownTaggedFields" if self.mode == "kafka" else "unknown_tagged_fields"
                items.append((key, (S_UNKNOWN_JSON, unknown_slot, 0)))
            return (B_DICT, tuple(items))
        assert cls is not None  # the structs without a wire class (JSON, rows, shaped) are built above
        entries: list[tuple[int, tuple[object, ...]]] = []
        for fld in dataclasses.fields(cls):
            off = slot_offset(cls, fld.name)
            if fld.name in slots:
                entries.append((off, (S_SLOT, slots[fld.name])))
            elif fld.name == "unknown_tagged_fields":
                entries.append((off, (S_SLOT, unknown_slot) if unknown_slot >= 0 else (S_NEWDICT,)))
            elif fld.default is not dataclasses.MISSING:
                entries.append((off, (S_CONST, fld.default)))
            else:
                entries.append((off, (S_CALL, fld.default_factory)))
        return (B_OBJECT, cls, tuple(entries))

    def shape_builder(self, target, slots: dict) -> tuple:
        if isinstance(target, Flat):
            return (B_CHECK, tuple(self.shape_src(x, slots) for x in target.checks)) if target.checks else (B_NONE,)
        if isinstance(target, Pair):
            key, value = self.shape_src(target.key, slots), self.shape_src(target.value, slots)
            return (B_PAIR, key, value, _hash_offsets(target.key))
        if isinstance(target, Tuple):
            return (B_TUPLE, tuple(self.shape_src(x, slots) for x in target.items))
        if isinstance(target, Obj):
            names = _slot_names(target.cls)
            missing = set(names) ^ set(target.slots)
            if missing:
                raise ValueError(f"{target.cls.__name__}: the shape must give exactly its slots ({sorted(missing)})")
            return (
                B_OBJECT,
                target.cls,
                tuple((slot_offset(target.cls, n), self.shape_src(target.slots[n], slots)) for n in names),
            )
        raise ValueError(f"not a decode shape: {target!r}")

    def shape_src(self, src, slots: dict) -> tuple:
        if isinstance(src, str):
            src = Slot(src)
        if isinstance(src, Slot):
            return (S_SLOT, slots[src.name])
        if isinstance(src, EmptyNone):
            return (S_EMPTY_NONE, slots[src.name])
        if isinstance(src, Const):
            if not isinstance(src.value, _IMMUTABLE):
                raise ValueError("a constant must be immutable")
            return (S_CONST, src.value)
        if isinstance(src, NewDict):
            return (S_NEWDICT,)
        if isinstance(src, Keys):
            if not all(isinstance(value, _IMMUTABLE) for _, value in src.arrays):
                raise ValueError("a key's value must be immutable")
            return (S_KEYS, tuple((slots[name], value) for name, value in src.arrays))
        if isinstance(src, Parent):
            if len(self.stack) < 2:
                raise ValueError(f"Parent({src.name!r}) in the root struct")
            return (S_PARENT, self.stack[-2][src.name])
        if isinstance(src, Lookup):
            root = self.message.root
            rslots = {f.py_name: i for i, f in enumerate(root.fields_at(self.version))}
            return (S_LOOKUP, rslots[src.table], slots[src.name])
        if isinstance(src, (Obj, Tuple)):
            return (S_BUILD, self.shape_builder(src, slots))
        raise ValueError(f"not a source: {src!r}")

    def encoder(self, sop: StructOp, cls: type | None, enc_in) -> tuple | None:
        if enc_in is not None:
            if isinstance(enc_in, In):
                return (E_OBJECT, enc_in.cls, (), -1, 0)
            if isinstance(enc_in, Row):
                return (E_TUPLE, len(sop.fields))
            return (E_ITEM, enc_in.key_cls)
        if self.shape is not None and sop.spec.name in self.shape.decode:
            return None
        if self.mode == "rows":
            return (E_TUPLE, len(sop.fields))
        if cls is None:
            return None
        by_name = {fld.name: fld for fld in dataclasses.fields(cls)}
        absent = []
        for f in sop.absent:  # a value a version lacks must be at its default unless ignorable (§0.3)
            if not f.ignorable:
                absent.append((slot_offset(cls, f.py_name), field_default(by_name[f.py_name])))
        tagged = sop.tagged
        has_unknown = "unknown_tagged_fields" in by_name
        unknown_off = slot_offset(cls, "unknown_tagged_fields") if has_unknown else -1
        return (
            E_OBJECT,
            cls,
            tuple(absent),
            unknown_off,
            int(has_unknown and not tagged and not sop.flexible),
        )


def _fresh(f: FieldSpec, message: MessageSpec, version: int, style: str | None) -> Callable[[], Any]:
    """A factory of a tagged field's default (a fresh object each time, as the reference makes one)."""
    if style is None:
        return lambda: default_value(f, message)
    return lambda: value_json(default_value(f, message), f, message, version, style)


def _slot_names(cls: type) -> list[str]:
    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls)]
    return [n for k in reversed(cls.__mro__) for n in k.__dict__.get("__slots__", ()) if n != "__weakref__"]


@cache
def _tuple_hashed(cls: type) -> bool:
    """True when ``hash(obj) == hash((obj.a, obj.b, ...))`` for instances of ``cls`` (a frozen dataclass's
    own ``__hash__``) and the engine's tuple hash is CPython's: dict keys of this class are then inserted
    with the hash the engine computes, without a call into Python."""
    if not dataclasses.is_dataclass(cls) or cls.__hash__ is object.__hash__:
        return False
    names = [f.name for f in dataclasses.fields(cls) if (f.hash is None and f.compare) or f.hash]
    if names != _slot_names(cls):
        return False
    probe = object.__new__(cls)
    samples = (1, -7, "x", None, 2**40)
    for i, n in enumerate(names):
        object.__setattr__(probe, n, samples[i % len(samples)])
    values = tuple(getattr(probe, n) for n in names)
    return hash(probe) == hash(values) == _engine.tuple_hash(values)


def _hash_offsets(key) -> tuple | None:
    if isinstance(key, Obj) and _tuple_hashed(key.cls):
        return tuple(slot_offset(key.cls, n) for n in _slot_names(key.cls))
    return None


@cache
def _compiled(message_name: str, version: int, mode: str, shape: Shape | None):
    if not _AVAILABLE:
        return None
    message = load_message(message_name)
    if version not in message.valid:
        raise ValueError(f"{message_name} has no version {version}")
    comp = _Compiler(message, version, mode, shape)
    prog = comp.struct(message.root)
    if shape is not None:
        named = {*shape.decode, *shape.arrays, *shape.conv, *(f"encode:{k}" for k in shape.encode)}
        if named - comp.used:  # a typo would leave part of the message as wire objects, silently
            raise ValueError(
                f"shape {shape.name} names what {message_name} v{version} lacks: {sorted(named - comp.used)}"
            )
    return prog


#: The mode of an object-mode program whose strings read malformed UTF-8 as Java's ``new String(bytes, UTF_8)``
#: does (U+FFFD in place: :func:`codec.wire.encodings.java_utf8_decode`): the decode option ``strings="java"``
JAVA_STRINGS = "object-java"

#: (message, version) -> the object-mode program (or None), for decode_wire/encode_wire.
OBJECT_PROGRAMS: dict[tuple[str, int], Any] = {}


@on_schema_change
def _forget_tables() -> None:
    """Drop every program compiled from the tables, and the hot paths' tables holding them."""
    _compiled.cache_clear()
    OBJECT_PROGRAMS.clear()
    for table in _FAST_TABLES:
        table.clear()


def object_program(message_name: str, version: int):
    """:func:`program` in object mode, kept in :data:`OBJECT_PROGRAMS` (a plain dict: the hot paths read it
    without a call). None where there is none (a version the message lacks: the reference path reports it)."""
    prog = program(message_name, version)
    if prog is not None:
        OBJECT_PROGRAMS[(message_name, version)] = prog
    return prog


def program(message_name: str, version: int, mode: str = "object", shape: Shape | None = None):
    """The compiled program of ``message_name`` at ``version`` (its methods: ``decode(buf, pos=0) -> (value,
    end)`` and ``encode(value, *extra) -> bytes``, each None on anything unusual), or None when the native
    codec is not active or the message has a type the engine lacks."""
    if not ACTIVE[0]:
        return None
    try:
        return _compiled(message_name, version, mode, shape)
    except (ValueError, KeyError, AttributeError, TypeError):
        return None
