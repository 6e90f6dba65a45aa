"""The fast path: straight-line Python generated from the same schema tables as the construct path.

For every (message, version) this module writes the source of one decoder and one encoder from the
field table (``codec/wire/schema.py``), compiles it once and caches it:

* the decoder reads a ``bytes`` buffer with pre-compiled ``struct.Struct`` objects, one ``unpack_from``
  per run of fixed-width fields (a length or count prefix closes a run), reads arrays of fixed-width
  structs with one ``iter_unpack`` and arrays of ints with one ``unpack_from``, inlines nested structs
  and builds the wire dataclasses by setting their slots directly (no keyword ``__init__``);
* the encoder checks every value cheaply (exact types, string limits; ``struct`` checks the integer
  ranges), packs runs of fixed-width fields with one ``pack`` and joins the pieces once.

Neither reports errors. On anything unusual (truncated input, a count larger than the bytes that
remain, a null where none is allowed, invalid UTF-8, a value of an unexpected type, a known tagged
field, ...) the generated code raises, and :func:`codec.wire.builder.decode_wire` /
:func:`~codec.wire.builder.encode_wire` run the interpreted construct path instead, which stays the
reference: it returns the same result or raises the error with its exact offset and field path.
``tests/wire/`` holds the two equal on every vector and on generated objects.

``REBALANCE_CODEC_FASTPATH=0`` in the environment (or :func:`set_enabled`) turns the fast path off.
``source(message, version, "decode"|"encode")`` shows the generated code.
"""

from __future__ import annotations

import dataclasses
import os
import struct as _struct
import uuid
from functools import cache
from typing import Any, Callable

from .encodings import mutf8_decode, mutf8_encode, uvarint_bytes
from .models import field_default, wire_class
from .lowering import FieldOp, StructOp, lower
from .schema import FieldSpec, MessageSpec, StructSpec, load_message, on_schema_change

__all__ = [
    "decoder",
    "encoder",
    "row_encoder",
    "row_decoder",
    "maker",
    "source",
    "enabled",
    "set_enabled",
    "FastPathMiss",
]

_ENABLED = os.environ.get("REBALANCE_CODEC_FASTPATH", "1").strip().lower() not in ("0", "no", "off", "false")


def enabled() -> bool:
    return _ENABLED


def set_enabled(on: bool) -> bool:
    """Turn the fast path on or off (for measurements and tests); returns the previous setting."""
    global _ENABLED
    old, _ENABLED = _ENABLED, bool(on)
    return old


class FastPathMiss(Exception):
    """Raised by generated code when the input needs the reference path (never escapes ``codec``)."""


_INT_FMT = {"int8": "b", "int16": "h", "int32": "i", "int64": "q", "uint16": "H"}
_INT_SIZE = {"b": 1, "h": 2, "i": 4, "q": 8, "H": 2, "?": 1, "16s": 16}
_UVT = tuple(bytes((i,)) for i in range(128))


def _uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    """A multi-byte uvarint (the generated code inlines the one-byte case). At most 5 bytes, < 2**32."""
    value = shift = 0
    for i in range(5):
        byte = buf[pos + i]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            if value >= 1 << 32:
                raise FastPathMiss
            return value, pos + i + 1
        shift += 7
    raise FastPathMiss


def _uvb(n: int) -> bytes:
    return _UVT[n] if 0 <= n < 128 else uvarint_bytes(n)


def _tagged_decode(buf: bytes, pos: int, end: int, known: frozenset) -> tuple[dict, int]:
    """A tagged-field section with at least one field: unknown tags kept raw; a known tag -> miss."""
    n, pos = _uvarint(buf, pos)
    if 2 * n > end - pos:
        raise FastPathMiss
    out = {}
    last = -1
    for _ in range(n):
        tag, pos = _uvarint(buf, pos)
        if tag <= last or tag in known:
            raise FastPathMiss
        last = tag
        size, pos = _uvarint(buf, pos)
        if size > end - pos:
            raise FastPathMiss
        out[tag] = buf[pos : pos + size]
        pos += size
    return out, pos


def _tagged_encode(unknown) -> bytes:
    if type(unknown) is not dict:
        raise FastPathMiss
    parts = [_uvb(len(unknown))]
    for tag in sorted(unknown):
        raw = unknown[tag]
        if type(tag) is not int or tag < 0 or type(raw) is not bytes:
            raise FastPathMiss
        parts.append(_uvb(tag))
        parts.append(_uvb(len(raw)))
        parts.append(raw)
    return b"".join(parts)


def _javautf_decode(raw: bytes) -> str:
    return raw.decode("ascii") if raw.isascii() else mutf8_decode(raw)


_INTS = frozenset((int,))


@cache
def _twin(cls: type) -> type | None:
    """A plain mutable class with the same slots as the frozen dataclass ``cls``: generated code fills an
    instance with ordinary attribute stores and then sets its ``__class__`` to ``cls`` (the layouts are
    identical, so CPython allows it). Half the cost of calling each slot's ``__set__``, a third of the
    keyword ``__init__``. None when the layouts do not allow it (the setters are used then)."""
    slots = getattr(cls, "__slots__", None)
    if not isinstance(slots, tuple) or "__dict__" in slots or "__weakref__" in slots:
        return None
    twin = type(f"{cls.__name__}Builder", (), {"__slots__": slots, "__module__": __name__})
    try:
        probe = twin()
        for f in dataclasses.fields(cls):
            setattr(probe, f.name, None)
        probe.__class__ = cls
    except TypeError:
        return None
    return twin


class _Gen:
    """Source writer with unique local names and a table of globals for the compiled function."""

    def __init__(self, message: MessageSpec, version: int) -> None:
        self.message = message
        self.version = version
        self.lines: list[str] = []
        self.globs: dict[str, Any] = {
            "Miss": FastPathMiss,
            "_new": object.__new__,
            "_uvarint": _uvarint,
            "_uvb": _uvb,
            "_UVT": _UVT,
            "_UUID": uuid.UUID,
            "_tagged_decode": _tagged_decode,
            "_tagged_encode": _tagged_encode,
            "_jutf": _javautf_decode,
            "_mutf8_encode": mutf8_encode,
            "_unpack_from": _struct.unpack_from,
            "_pack": _struct.pack,
            "_iter_unpack": _struct.iter_unpack,
            "_INTS": _INTS,
        }
        self.n = 0
        self.rows = False

    def var(self, prefix: str = "v") -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def glob(self, value: Any, prefix: str = "g") -> str:
        for k, v in self.globs.items():
            if v is value and k.startswith(prefix):
                return k
        name = self.var("_" + prefix)
        self.globs[name] = value
        return name

    def struct_obj(self, fmt: str) -> str:
        key = "_S_" + "".join(c if c.isalnum() else "_" for c in fmt)
        if key not in self.globs:
            self.globs[key] = _struct.Struct(">" + fmt)
        return key

    def emit(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)

    def wire_class(self, spec: StructSpec) -> type:
        return wire_class(self.message.name, spec.name)

    def new_object(self, ind: int, spec: StructSpec, target: str, values: list[tuple[str, str]]) -> None:
        """Emit the construction of the wire object of ``spec`` into ``target`` from (field, expression)
        pairs; every other field takes its default."""
        if self.rows:  # row mode: the tuple of the values present at this version, in wire order
            self.emit(ind, f"{target} = ({''.join(expr + ', ' for _, expr in values)})")
            return
        cls = self.wire_class(spec)
        cname = self.glob(cls, "C")
        defaults = self.defaults(spec, {name for name, _ in values})
        twin = _twin(cls)
        if twin is not None:
            self.emit(ind, f"{target} = {self.glob(twin, 'B')}()")
            for name, expr in values + defaults:
                self.emit(ind, f"{target}.{name} = {expr}")
            self.emit(ind, f"{target}.__class__ = {cname}")
            return
        self.emit(ind, f"{target} = _new({cname})")
        for name, expr in values + defaults:
            self.emit(ind, f"{self.glob(getattr(cls, name).__set__, 'set')}({target}, {expr})")

    def defaults(self, spec: StructSpec, present: set[str]) -> list[tuple[str, str]]:
        """(field, default expression) for every field of the class not in ``present``."""
        cls = self.wire_class(spec)
        out = []
        for fld in dataclasses.fields(cls):
            if fld.name in present:
                continue
            if fld.default is not dataclasses.MISSING:
                d = fld.default
                expr = (
                    repr(d)
                    if d is None or type(d) in (int, bool, str, bytes) or (d == () and type(d) is tuple)
                    else self.glob(d, "d")
                )
            elif fld.name == "unknown_tagged_fields":
                expr = "{}"
            else:
                expr = self.glob(fld.default_factory, "f") + "()"
            out.append((fld.name, expr))
        return out


def _fixed_fmt(op: FieldOp) -> str | None:
    """The struct format of a field that is entirely fixed-width (not arrays)."""
    if op.array:
        return None
    if op.kind in _INT_FMT:
        return _INT_FMT[op.kind]
    if op.kind == "bool":
        return "?"
    if op.kind == "uuid":
        return "16s"
    return None


def _all_fixed(sop: StructOp) -> list[tuple[FieldOp, str]] | None:
    """The fields of a struct whose every field (this version) is fixed-width and which has no tagged
    section; None otherwise."""
    if sop.flexible:
        return None
    out = []
    for op in sop.fields:
        fmt = _fixed_fmt(op)
        if fmt is None or fmt == "16s":
            return None
        out.append((op, fmt))
    return out or None


# --- decoding -------------------------------------------------------------------------------------------


class _DecRun:
    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []  # (fmt, var)
        self.post: list[str] = []

    def add(self, fmt: str, var: str) -> None:
        self.items.append((fmt, var))


def _flush_dec(g: _Gen, ind: int, run: _DecRun) -> None:
    if not run.items:
        return
    fmt = "".join(f for f, _ in run.items)
    size = sum(_INT_SIZE[f] for f, _ in run.items)
    names = ", ".join(v for _, v in run.items)
    g.emit(ind, f"{names}, = {g.struct_obj(fmt)}.unpack_from(buf, pos)")
    g.emit(ind, f"pos += {size}")
    for line in run.post:
        g.emit(ind, line)
    run.items.clear()
    run.post.clear()


def _dec_uvarint(g: _Gen, ind: int, var: str) -> None:
    # one and two bytes inline (lengths below 16 KiB), longer ones by the helper
    g.emit(ind, f"{var} = buf[pos]")
    g.emit(ind, f"if {var} < 128:")
    g.emit(ind + 1, "pos += 1")
    g.emit(ind, "elif buf[pos + 1] < 128:")
    g.emit(ind + 1, f"{var} = {var} & 127 | buf[pos + 1] << 7")
    g.emit(ind + 1, "pos += 2")
    g.emit(ind, "else:")
    g.emit(ind + 1, f"{var}, pos = _uvarint(buf, pos)")


def _dec_length(g: _Gen, ind: int, run: _DecRun, compact: bool, fmt: str) -> str:
    """Read a length/count prefix; returns its variable (compact: already minus one)."""
    n = g.var("n")
    if compact:
        _flush_dec(g, ind, run)
        _dec_uvarint(g, ind, n)
        g.emit(ind, f"{n} -= 1")
    else:
        run.add(fmt, n)
        _flush_dec(g, ind, run)
    return n


def _dec_null_check(g: _Gen, ind: int, n: str, nullable: bool, target: str) -> int:
    """Emit the null/negative check; returns the indent of the non-null branch."""
    if nullable:
        g.emit(ind, f"if {n} < 0:")
        g.emit(ind + 1, f"if {n} != -1: raise Miss")
        g.emit(ind + 1, f"{target} = None")
        g.emit(ind, "else:")
        return ind + 1
    g.emit(ind, f"if {n} < 0: raise Miss")
    return ind


def _dec_string_bytes(g: _Gen, ind: int, run: _DecRun, op: FieldOp, target: str, nullable: bool) -> None:
    t, flexible = op.kind, op.compact
    n = _dec_length(g, ind, run, flexible, "h" if op.length == "int16" else "i")
    i2 = _dec_null_check(g, ind, n, nullable, target)
    if t == "string" and flexible:
        g.emit(i2, f"if {n} > 32767: raise Miss")
    e = g.var("e")
    g.emit(i2, f"{e} = pos + {n}")
    g.emit(i2, f"if {e} > end: raise Miss")
    g.emit(i2, f"{target} = " + (f"str(buf[pos:{e}], 'utf-8')" if t == "string" else f"buf[pos:{e}]"))
    g.emit(i2, f"pos = {e}")


def _dec_scalar(g: _Gen, ind: int, run: _DecRun, op: FieldOp, target: str, nullable: bool) -> None:
    """Decode one non-array value of field ``op`` into ``target`` (may leave fixed parts in ``run``)."""
    t = op.kind
    flexible = op.compact
    if op.struct is not None:
        _flush_dec(g, ind, run)
        if nullable:  # an int8 marker: negative for null, else the struct follows
            g.emit(ind, "if pos >= end: raise Miss")
            g.emit(ind, "pos += 1")
            g.emit(ind, "if buf[pos - 1] >= 128:")
            g.emit(ind + 1, f"{target} = None")
            g.emit(ind, "else:")
            _dec_struct(g, ind + 1, op.struct, target)
            return
        _dec_struct(g, ind, op.struct, target)
        return
    if t in _INT_FMT:
        run.add(_INT_FMT[t], target)
    elif t == "bool":
        run.add("?", target)
    elif t == "uuid":
        run.add("16s", target)
        run.post.append(f"{target} = _UUID(bytes={target})")
    elif t in ("string", "bytes") and flexible:
        # compact: a one-byte length (a value of 0-126 bytes, not null) takes the shortest path
        _flush_dec(g, ind, run)
        n, e = g.var("n"), g.var("e")
        g.emit(ind, f"{n} = buf[pos] - 1")
        g.emit(ind, f"if 0 <= {n} < 127:")
        g.emit(ind + 1, f"{e} = pos + 1 + {n}")
        g.emit(ind + 1, f"if {e} > end: raise Miss")
        value = f"buf[pos + 1:{e}]"
        g.emit(ind + 1, f"{target} = " + (f"str({value}, 'utf-8')" if t == "string" else value))
        g.emit(ind + 1, f"pos = {e}")
        g.emit(ind, "else:")
        _dec_string_bytes(g, ind + 1, _DecRun(), op, target, nullable)
    elif t in ("string", "bytes"):
        _dec_string_bytes(g, ind, run, op, target, nullable)
    elif t == "javaUTF":
        n = g.var("n")
        run.add("H", n)
        _flush_dec(g, ind, run)
        e = g.var("e")
        g.emit(ind, f"{e} = pos + {n}")
        g.emit(ind, f"if {e} > end: raise Miss")
        g.emit(ind, f"{target} = _jutf(buf[pos:{e}])")
        g.emit(ind, f"pos = {e}")
    elif t == "javaChars":
        n = g.var("n")
        run.add("i", n)
        _flush_dec(g, ind, run)
        g.emit(ind, f"if {n} <= 0:")
        g.emit(ind + 1, f"{target} = None")
        g.emit(ind, "else:")
        e = g.var("e")
        g.emit(ind + 1, f"{e} = pos + 2 * {n}")
        g.emit(ind + 1, f"if {e} > end: raise Miss")
        g.emit(ind + 1, f"{target} = buf[pos:{e}].decode('utf-16-be', 'surrogatepass')")
        g.emit(ind + 1, f"pos = {e}")
    else:
        raise NotImplementedError(t)


def _dec_field(g: _Gen, ind: int, run: _DecRun, op: FieldOp, target: str) -> None:
    if not op.array:
        _dec_scalar(g, ind, run, op, target, op.nullable)
        return
    n = _dec_length(g, ind, run, op.count == "compact", "i")
    i2 = _dec_null_check(g, ind, n, op.array_nullable, target)
    g.emit(i2, f"if {n} > end - pos: raise Miss")
    t = op.kind
    if t in _INT_FMT:
        fmt = _INT_FMT[t]
        g.emit(i2, f"{target} = _unpack_from('>%d{fmt}' % {n}, buf, pos)")
        g.emit(i2, f"pos += {_INT_SIZE[fmt]} * {n}")
        return
    fixed = _all_fixed(op.struct) if op.struct is not None else None
    lst = g.var("l")
    if fixed is not None and op.struct is not None:  # (fixed is None for any other field)
        # An array of fixed-width structs: one iter_unpack over the whole array.
        fmt = "".join(x for _, x in fixed)
        size = sum(_INT_SIZE[x] for _, x in fixed)
        e = g.var("e")
        g.emit(i2, f"{e} = pos + {size} * {n}")
        g.emit(i2, f"if {e} > end: raise Miss")
        if g.rows:  # the rows are what iter_unpack yields
            g.emit(i2, f"{target} = tuple({g.struct_obj(fmt)}.iter_unpack(buf[pos:{e}]))")
            g.emit(i2, f"pos = {e}")
            return
        names = [g.var("x") for _ in fixed]
        o = g.var("o")
        g.emit(i2, f"{lst} = []")
        g.emit(i2, f"for {', '.join(names)}, in {g.struct_obj(fmt)}.iter_unpack(buf[pos:{e}]):")
        g.new_object(i2 + 1, op.struct.spec, o, [(fo.name, name) for (fo, _), name in zip(fixed, names)])
        g.emit(i2 + 1, f"{lst}.append({o})")
        g.emit(i2, f"pos = {e}")
        g.emit(i2, f"{target} = tuple({lst})")
        return
    g.emit(i2, f"{lst} = []")
    g.emit(i2, f"for _ in range({n}):")
    item = g.var("o")
    inner = _DecRun()
    _dec_scalar(g, i2 + 1, inner, op, item, False)
    _flush_dec(g, i2 + 1, inner)
    g.emit(i2 + 1, f"{lst}.append({item})")
    g.emit(i2, f"{target} = tuple({lst})")


def _dec_struct(g: _Gen, ind: int, sop: StructOp, target: str) -> None:
    run = _DecRun()
    values = []
    for op in sop.fields:
        var = g.var(op.name[:12] + "_")
        _dec_field(g, ind, run, op, var)
        values.append((op.name, var))
    _flush_dec(g, ind, run)
    tagged = None
    if sop.flexible:
        tagged = g.var("tf")
        known = frozenset(op.tag for op in sop.tagged)
        g.emit(ind, "if buf[pos] == 0:")
        g.emit(ind + 1, "pos += 1")
        g.emit(ind + 1, f"{tagged} = {{}}")
        g.emit(ind, "else:")
        g.emit(ind + 1, f"{tagged}, pos = _tagged_decode(buf, pos, end, {g.glob(known, 'k')})")
        values.append(("unknown_tagged_fields", tagged))
        # known tagged fields never decode here (a known tag is a miss): they keep their defaults
    g.new_object(ind, sop.spec, target, values)


# --- encoding -------------------------------------------------------------------------------------------


class _EncRun:
    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []  # (fmt, expression)


def _flush_enc(g: _Gen, ind: int, run: _EncRun) -> None:
    if not run.items:
        return
    fmt = "".join(f for f, _ in run.items)
    g.emit(ind, f"ap({g.struct_obj(fmt)}.pack({', '.join(e for _, e in run.items)}))")
    run.items.clear()


def _enc_int_check(g: _Gen, ind: int, var: str, t: str) -> None:
    # The reference refuses bools (but for int8) and non-ints; anything but an exact int takes that path.
    g.emit(ind, f"if type({var}) is not int: raise Miss")


def _enc_length(g: _Gen, ind: int, run: _EncRun, compact: bool, fmt: str, expr: str) -> None:
    if compact:
        _flush_enc(g, ind, run)
        g.emit(ind, f"ap(_uvb({expr} + 1))")
    else:
        run.items.append((fmt, expr))


def _enc_scalar(g: _Gen, ind: int, run: _EncRun, op: FieldOp, var: str, nullable: bool) -> None:
    """Write one non-array value held in ``var``."""
    t = op.kind
    flexible = op.compact
    if op.struct is not None:
        _flush_enc(g, ind, run)
        if nullable:  # an int8 marker: -1 for null, 1 before the struct
            g.emit(ind, f"if {var} is None:")
            g.emit(ind + 1, "ap(b'\\xff')")
            g.emit(ind, "else:")
            g.emit(ind + 1, "ap(b'\\x01')")
            _enc_struct(g, ind + 1, op.struct, var)
            return
        _enc_struct(g, ind, op.struct, var)
        return
    if t in _INT_FMT:
        _enc_int_check(g, ind, var, t)
        run.items.append((_INT_FMT[t], var))
    elif t == "bool":
        g.emit(ind, f"if type({var}) is not bool: raise Miss")
        run.items.append(("?", var))
    elif t == "uuid":
        g.emit(ind, f"if type({var}) is not _UUID: raise Miss")
        run.items.append(("16s", f"{var}.bytes"))
    elif t in ("string", "bytes"):
        raw = g.var("r")
        nvar = g.var("n")
        if nullable:
            g.emit(ind, f"if {var} is None:")
            g.emit(ind + 1, f"{raw} = b''")
            g.emit(ind + 1, f"{nvar} = -1")
            g.emit(ind, "else:")
            i2 = ind + 1
        else:
            i2 = ind
        if t == "string":
            g.emit(i2, f"if type({var}) is not str: raise Miss")
            g.emit(i2, "try:")
            g.emit(i2 + 1, f"{raw} = {var}.encode('utf-8')")
            g.emit(i2, "except UnicodeEncodeError: raise Miss")  # a lone surrogate: the reference path refuses it
            g.emit(i2, f"{nvar} = len({raw})")
            g.emit(i2, f"if {nvar} > 32767: raise Miss")
        else:
            g.emit(i2, f"if type({var}) is not bytes: raise Miss")
            g.emit(i2, f"{raw} = {var}")
            g.emit(i2, f"{nvar} = len({raw})")
        _enc_length(g, ind, run, flexible, "h" if op.length == "int16" else "i", nvar)
        _flush_enc(g, ind, run)
        g.emit(ind, f"ap({raw})")
    elif t == "javaUTF":
        raw = g.var("r")
        g.emit(ind, f"if type({var}) is not str: raise Miss")
        g.emit(
            ind, f"{raw} = {var}.encode('ascii') if {var}.isascii() and '\\x00' not in {var} else _mutf8_encode({var})"
        )
        g.emit(ind, f"if len({raw}) > 65535: raise Miss")
        run.items.append(("H", f"len({raw})"))
        _flush_enc(g, ind, run)
        g.emit(ind, f"ap({raw})")
    elif t == "javaChars":
        raw = g.var("r")
        g.emit(ind, f"if {var} is None or {var} == '':")
        g.emit(ind + 1, f"{raw} = b''")
        g.emit(ind, "else:")
        g.emit(ind + 1, f"if type({var}) is not str: raise Miss")
        g.emit(ind + 1, f"{raw} = {var}.encode('utf-16-be', 'surrogatepass')")
        run.items.append(("i", f"len({raw}) // 2"))
        _flush_enc(g, ind, run)
        g.emit(ind, f"ap({raw})")
    else:
        raise NotImplementedError(t)


def _enc_field(g: _Gen, ind: int, run: _EncRun, op: FieldOp, var: str) -> None:
    if not op.array:
        _enc_scalar(g, ind, run, op, var, op.nullable)
        return
    compact = op.count == "compact"
    nvar = g.var("n")
    t = op.kind
    if op.array_nullable:
        g.emit(ind, f"if {var} is None:")
        g.emit(ind + 1, f"{nvar} = -1")
        g.emit(ind, "else:")
        i2 = ind + 1
    else:
        i2 = ind
    g.emit(i2, f"if type({var}) is not tuple and type({var}) is not list: raise Miss")
    g.emit(i2, f"{nvar} = len({var})")
    _enc_length(g, ind, run, compact, "i", nvar)
    _flush_enc(g, ind, run)
    if op.array_nullable:
        g.emit(ind, f"if {nvar} > 0:")
        ind += 1
    if t in _INT_FMT:
        fmt = _INT_FMT[t]
        g.emit(ind, f"if {nvar} and {{*map(type, {var})}} != _INTS: raise Miss")
        g.emit(ind, f"ap(_pack('>%d{fmt}' % {nvar}, *{var}))")
        return
    item = g.var("it")
    g.emit(ind, f"for {item} in {var}:")
    inner = _EncRun()
    _enc_scalar(g, ind + 1, inner, op, item, False)
    _flush_enc(g, ind + 1, inner)


def _enc_struct(g: _Gen, ind: int, sop: StructOp, obj: str) -> None:
    if g.rows:
        _enc_row(g, ind, sop, obj)
        return
    cls = g.wire_class(sop.spec)
    cname = g.glob(cls, "C")
    g.emit(ind, f"if type({obj}) is not {cname}: raise Miss")
    by_name = {fld.name: fld for fld in dataclasses.fields(cls)}

    def default(f: FieldSpec) -> Any:
        return field_default(by_name[f.py_name])

    for f in sop.absent:  # a value a version lacks must be at its default unless ignorable (§0.3)
        if not f.ignorable:
            g.emit(ind, f"if {obj}.{f.py_name} != {g.glob(default(f), 'd')}: raise Miss")
    for op in sop.tagged:  # a known tagged field away from its default (an empty struct's too): the reference writes it
        g.emit(ind, f"if {obj}.{op.name} != {g.glob(default(op.field), 'd')}: raise Miss")
    run = _EncRun()
    for op in sop.fields:
        var = g.var(op.name[:12] + "_")
        g.emit(ind, f"{var} = {obj}.{op.name}")
        _enc_field(g, ind, run, op, var)
    _flush_enc(g, ind, run)
    if sop.flexible:
        u = g.var("u")
        g.emit(ind, f"{u} = {obj}.unknown_tagged_fields")
        g.emit(ind, f"ap(_tagged_encode({u}) if {u} else b'\\x00')")
    elif "unknown_tagged_fields" in by_name:
        g.emit(ind, f"if {obj}.unknown_tagged_fields: raise Miss")


def _enc_row(g: _Gen, ind: int, sop: StructOp, obj: str) -> None:
    """Row mode: a struct is a tuple of the values of its fields at this version, in wire order."""
    if sop.flexible:
        raise NotImplementedError("row encoders are for classic versions")
    names = [g.var(op.name[:12] + "_") for op in sop.fields]
    g.emit(ind, f"if type({obj}) is not tuple: raise Miss")
    # a version without fields (ListGroupsRequest v0-2) is the empty tuple
    g.emit(ind, f"{', '.join(names)}, = {obj}" if names else f"if {obj}: raise Miss")
    run = _EncRun()
    for op, var in zip(sop.fields, names):
        _enc_field(g, ind, run, op, var)
    _flush_enc(g, ind, run)


# --- compile and cache ----------------------------------------------------------------------------------


def _generate(message_name: str, version: int, kind: str) -> tuple[str, dict]:
    message = load_message(message_name)
    if version not in message.valid:
        raise ValueError(f"{message_name} has no version {version}")
    g = _Gen(message, version)
    if kind in ("decode", "rowdecode"):
        g.rows = kind == "rowdecode"
        if g.rows and lower(message_name, version).flexible:
            raise NotImplementedError("row decoders are for classic versions")
        g.emit(0, "def decode(buf, pos):")
        g.emit(1, "end = len(buf)")
        _dec_struct(g, 1, lower(message_name, version), "obj")
        g.emit(1, "return obj, pos")
    else:
        g.rows = kind == "rows"
        g.emit(0, "def encode(obj):")
        g.emit(1, "parts = []")
        g.emit(1, "ap = parts.append")
        _enc_struct(g, 1, lower(message_name, version), "obj")
        g.emit(1, "return b''.join(parts)")
    return "\n".join(g.lines) + "\n", g.globs


@cache
def _compiled(message_name: str, version: int, kind: str) -> Callable | None:
    try:
        src, globs = _generate(message_name, version, kind)
    except Exception:  # noqa: BLE001 - no fast path for this one (tests/wire asserts there is one for every
        return None  # schema): the reference path serves it
    code = compile(src, f"<fastpath {kind} {message_name} v{version}>", "exec")
    exec(code, globs)
    return globs["decode" if kind in ("decode", "rowdecode") else "encode"]


@on_schema_change
def _forget_tables() -> None:
    _compiled.cache_clear()
    _twin.cache_clear()
    maker.cache_clear()


def decoder(message_name: str, version: int) -> Callable[[bytes, int], tuple[Any, int]] | None:
    """The generated decoder ``(buf: bytes, pos) -> (wire object, end)``, or None when there is none
    or the fast path is off. It raises on anything unusual; the caller then takes the reference path."""
    return _compiled(message_name, version, "decode") if _ENABLED else None


def encoder(message_name: str, version: int) -> Callable[[Any], bytes] | None:
    """The generated encoder ``(wire object) -> bytes``, or None (see :func:`decoder`)."""
    return _compiled(message_name, version, "encode") if _ENABLED else None


def row_encoder(message_name: str, version: int) -> Callable[[tuple], bytes] | None:
    """An encoder of the same bytes from plain tuples instead of wire objects: every struct is the tuple
    of its field values at ``version`` in wire order, arrays are tuples or lists of such tuples. For
    conversions that would otherwise build thousands of wire objects only to encode them (the Streams
    models). Classic versions only; None when there is none or the fast path is off. It raises on
    anything unusual: the caller then takes the wire-object path."""
    return _compiled(message_name, version, "rows") if _ENABLED else None


def row_decoder(message_name: str, version: int) -> Callable[[bytes, int], tuple[tuple, int]] | None:
    """The decoder that :func:`row_encoder` inverts: ``(buf, pos) -> (row, end)``, every struct the tuple
    of its field values at ``version`` in wire order (uuid fields as ``uuid.UUID``), arrays tuples of
    such tuples. No wire objects: for readers that take a message apart at once (the pipeline's rows).
    Classic versions only; None when there is none or the fast path is off. It raises on anything
    unusual, like :func:`decoder`: the caller then takes the wire-object path, which reports errors."""
    return _compiled(message_name, version, "rowdecode") if _ENABLED else None


def source(message_name: str, version: int, kind: str = "decode") -> str:
    """The generated source, for reading."""
    return _generate(message_name, version, kind)[0]


@cache
def maker(message_name: str, struct_name: str, names: tuple[str, ...]) -> Callable[..., Any]:
    """A positional constructor of one wire dataclass: ``maker(m, s, ("a", "b"))(1, 2)`` equals
    ``wire_class(m, s)(a=1, b=2)`` (every other field at its default) but sets the slots directly,
    about 2.5x faster than the keyword ``__init__`` of a frozen dataclass. For the conversions between
    the Streams models and the wire models, which build thousands of small wire objects."""
    cls = wire_class(message_name, struct_name)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(names) - set(fields)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
    twin = _twin(cls)
    globs: dict[str, Any] = {"_new": object.__new__, "C": cls, "B": twin}
    lines = [f"def make({', '.join(names)}):", "    o = B()" if twin is not None else "    o = _new(C)"]
    for i, (name, f) in enumerate(fields.items()):
        if name in names:
            value = name
        elif f.default is not dataclasses.MISSING:
            globs[f"d{i}"] = f.default
            value = f"d{i}"
        else:
            globs[f"f{i}"] = f.default_factory
            value = f"f{i}()"
        if twin is not None:
            lines.append(f"    o.{name} = {value}")
        else:
            globs[f"s{i}"] = getattr(cls, name).__set__
            lines.append(f"    s{i}(o, {value})")
    if twin is not None:
        lines.append("    o.__class__ = C")
    lines.append("    return o")
    exec(compile("\n".join(lines) + "\n", f"<fastpath maker {cls.__qualname__}>", "exec"), globs)
    return globs["make"]
