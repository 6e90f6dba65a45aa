"""The decode shapes run in Python: where the C engine is not (no C compiler, ``REBALANCE_CODEC_NATIVE=0``) and for the
errors the engine only misses on.

:func:`compiled` makes one Python function of a decode shape (:mod:`codec.wire.shapes`) for a (message, version),
once: one generated function per shaped struct (its fields into the slots, then the term's expression) and one
closure per array and conversion, so that a struct's decode is straight-line code. It runs over wire objects, or over
the generated fast path's row tuples (the pipeline's rows without the engine). A miss -- what the engine misses on:
invalid UTF-8 under a conversion, a repeated key of a ``dict-unique`` array, a lookup that finds nothing -- raises
:class:`Miss`, which says nothing more. :func:`interpret` runs the compiled form over the wire object the reference
decoded and, on a miss, walks the object (``_Run``) to raise the DecodeError with its path.
"""

from __future__ import annotations

from .shapes import (
    Attr,
    Const,
    EmptyNone,
    Extra,
    Flat,
    In,
    Item,
    Key,
    KeyAttr,
    Keys,
    Lookup,
    LookupAttr,
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

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["interpret", "compiled", "compiled_encode", "Miss"]


# --- the Python interpreter of the decode shapes -------------------------------------------------------------
# What the engine's programs build from the bytes, built here from the wire object the reference decoded: the one
# declaration of a model mapping serves the engine and the paths without it (no C compiler, REBALANCE_CODEC_NATIVE=0,
# a miss whose error the reference reports). Where the engine misses (invalid UTF-8 under a ``utf8`` conversion, a
# repeated key of a ``dict-unique`` array, a lookup that finds nothing), this raises the DecodeError, with the path.

_FLAT = object()  # what a Flat element gives: nothing to keep


def interpret(shape: Shape, message: str, version: int, obj):
    """The model ``shape`` makes of the wire object ``obj`` of ``message`` at ``version`` (a decode shape's)."""
    from .lowering import lower

    sop = lower(message, version)
    try:
        return compiled(shape, message, version)(obj)
    except Miss:  # the walk below finds it again, and reports it with its path
        pass
    return _Run(shape, message, version).struct(sop, obj, "", None, None)


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


def compiled(shape: Shape, message: str, version: int, *, rows: bool = False):
    """``shape`` (a decode shape) as one Python function of a wire object of ``message`` at ``version`` -- or, with
    ``rows``, of the row tuples :func:`codec.wire.fastpath.row_decoder` gives (every struct must then be shaped):
    what :func:`interpret` runs, without the paths of its errors: a miss raises :class:`Miss`
    (the caller either walks again with :func:`interpret` or takes the model path)."""
    from .lowering import lower

    sop = lower(message, version)
    key = (shape.name, message, version, rows)
    got = _COMPILED.get(key)
    if got is None or got[0] is not sop:
        run = _Compiler(shape, rows).struct(sop)
        got = _COMPILED[key] = (sop, lambda obj: run(obj, None, None, [None]))
    return got[1]


class Miss(Exception):
    """What the engine misses on, met by a compiled shape (no path: the walking interpreter reports it)."""


_COMPILED: dict = {}


class _Compiler:
    __slots__ = ("shape", "rows")

    def __init__(self, shape: Shape, rows: bool = False) -> None:
        self.shape, self.rows = shape, rows

    def struct(self, sop):
        import dataclasses

        if self.rows and sop.tagged:
            raise ValueError(f"{sop.name}: row tuples have no tagged fields")
        fields = [(op.name, self.field(sop.name, op)) for op in (*sop.fields, *sop.tagged)]
        term = self.shape.decode.get(sop.name)
        if term is not None:  # one generated function: the fields into the slots, then the term's expression
            if isinstance(term, Flat) and not term.checks and all(f is None for _, f in fields):
                return _nothing
            ns: dict = {"_FLAT": _FLAT, "_lookup": _lookup, "_keys": _keys, "_make": _make}
            lines = ["def run(obj, p, into, ctx):", "    s = {}", "    if ctx[0] is None:", "        ctx[0] = s"]
            for i, (name, f) in enumerate(fields):
                get = f"obj[{i}]" if self.rows else f"obj.{name}"
                if f is None:
                    lines.append(f"    s[{name!r}] = {get}")
                else:
                    ns[f"f{i}"] = f
                    lines += [f"    r = {get}", f"    s[{name!r}] = r if r is None else f{i}(r, s, into, ctx)"]
            lines.append(f"    return {self.expr(term, ns)}")
            exec("\n".join(lines), ns)  # noqa: S102 - our own code, from the schema's names and the shape
            return ns["run"]
        if self.rows:
            raise ValueError(f"{sop.name}: a row tuple's struct must be shaped")
        replace = dataclasses.replace

        def run(obj, parent, into, ctx):
            slots: dict = {}
            if ctx[0] is None:
                ctx[0] = slots
            changed = False
            for name, f in fields:
                raw = getattr(obj, name)
                if raw is None or f is None:
                    slots[name] = raw
                    continue
                value = f(raw, slots, into, ctx)
                changed = changed or value is not raw
                slots[name] = value
            return replace(obj, **slots) if changed else obj

        return run

    def field(self, struct_name: str, op):
        key = f"{struct_name}.{op.name}"
        if op.array:
            return self.array(key, op)
        if op.struct is not None:
            sub = self.struct(op.struct)
            return lambda raw, slots, into, ctx: sub(raw, slots, None, ctx)
        conv = self.conv(key)
        return None if conv is None else lambda raw, slots, into, ctx: conv(raw)

    def element(self, key: str, op):
        if op.struct is not None:
            return self.struct(op.struct)
        conv = self.conv(key)
        if conv is None:
            return lambda x, slots, into, ctx: x
        return lambda x, slots, into, ctx: conv(x)

    def array(self, key: str, op):
        mode, _, then_name = self.shape.arrays.get(key, "").partition(":")
        elem = self.element(key, op)
        then = _THEN.get(then_name, _same)
        if mode == "count":
            if elem is _nothing:  # elements with nothing to build or check: only their number
                return lambda raw, slots, into, ctx: len(raw)

            def count(raw, slots, into, ctx):
                for x in raw:
                    elem(x, slots, None, ctx)
                return len(raw)

            return count
        if mode == "counts":

            def counts(raw, slots, into, ctx):
                out: dict = {}
                for x in raw:
                    got = elem(x, slots, None, ctx)
                    out[got] = out.get(got, 0) + 1
                return then(out)

            return counts
        if mode == "into":

            def fill(raw, slots, into, ctx):
                for x in raw:
                    entry = elem(x, slots, into, ctx)
                    if entry is not _FLAT:
                        into[entry[0]] = entry[1]
                return raw

            return fill
        if mode in ("dict", "dict-unique"):
            unique = mode == "dict-unique"

            def to_dict(raw, slots, into, ctx):
                out: dict = {}
                for x in raw:
                    entry = elem(x, slots, out, ctx)
                    if entry is _FLAT:
                        continue
                    k, v = entry
                    if unique and k in out:
                        raise Miss
                    out[k] = v
                return then(out)

            return to_dict
        return lambda raw, slots, into, ctx: tuple([elem(x, slots, None, ctx) for x in raw])

    def conv(self, key: str):
        how = self.shape.conv.get(key)
        if how is None:
            return None
        if how == "uuid_text":
            return str

        def utf8(raw):
            if how == "utf8_or_none" and not raw:
                return None
            try:
                return bytes(raw).decode("utf-8")
            except UnicodeDecodeError:
                raise Miss from None

        return utf8

    def build(self, term):
        """One function of (slots, parent slots, context) for a decode term: its Python expression, compiled."""
        ns: dict = {"_FLAT": _FLAT, "_lookup": _lookup, "_keys": _keys, "_make": _make}
        return eval(f"lambda s, p, ctx: {self.expr(term, ns)}", ns)  # noqa: S307 - our own expression

    def expr(self, src, ns: dict) -> str:
        def const(value) -> str:
            name = f"c{len(ns)}"
            ns[name] = value
            return name

        if isinstance(src, (str, Slot)):
            return f"s[{(src if isinstance(src, str) else src.name)!r}]"
        if isinstance(src, EmptyNone):
            return f"(None if s[{src.name!r}] == '' else s[{src.name!r}])"
        if isinstance(src, Const):
            return const(src.value)
        if isinstance(src, NewDict):
            return "{}"
        if isinstance(src, Keys):
            return f"_keys(s, {const(src.arrays)})"
        if isinstance(src, Parent):
            return f"p[{src.name!r}]"
        if isinstance(src, Lookup):
            return f"_lookup(ctx, s, {src.table!r}, {src.name!r})"
        if isinstance(src, Flat):  # the checks evaluated, then nothing kept
            return f"({''.join(self.expr(c, ns) + ', ' for c in src.checks)}_FLAT)[-1]" if src.checks else "_FLAT"
        if isinstance(src, Pair):
            return f"({self.expr(src.key, ns)}, {self.expr(src.value, ns)})"
        if isinstance(src, Tuple):
            return f"({''.join(self.expr(x, ns) + ', ' for x in src.items)})"
        if isinstance(src, Obj):
            names = const(tuple(src.slots))
            values = "".join(self.expr(x, ns) + ", " for x in src.slots.values())
            return f"_make({const(src.cls)}, {names}, ({values}))"
        raise ValueError(f"not a decode shape or source: {src!r}")


def _nothing(obj, parent, into, ctx):
    return _FLAT


def _lookup(ctx: list, slots: dict, table_name: str, name: str):
    table, key = ctx[0][table_name], slots[name]
    if key not in table:
        raise Miss
    return table[key]


def _keys(slots: dict, arrays: tuple) -> dict:
    out: dict = {}
    for name, value in arrays:
        for key in slots[name] or ():
            out[key] = value
    return out


def _make(cls, names: tuple, values: tuple):
    made = object.__new__(cls)
    for name, value in zip(names, values):
        object.__setattr__(made, name, value)
    return made


def _same(d: dict) -> dict:
    return d


_THEN: dict[str, Callable[[dict], object]] = {
    "values": lambda d: list(d.values()),
    "items": lambda d: list(d.items()) or None,
    "rows": lambda d: [(*k, v) if isinstance(k, tuple) else (k, v) for k, v in d.items()],
    "len": len,
}


# --- encode shapes compiled to Python, to the fast path's row tuples ------------------------------------------


def compiled_encode(shape: Shape, message: str, version: int):
    """``shape`` (an encode shape) as one Python function ``(model, *extra) -> row tuples`` of ``message`` at
    ``version``: what :func:`codec.wire.fastpath.row_encoder` writes (fields in wire order, nested structs as tuples,
    arrays as lists). What the engine's program would refuse or miss on (a model of another class, a string that is
    not one, a key missing from an extra lookup) raises; the caller then takes the wire-object path, which decides
    and reports."""
    from .lowering import lower

    sop = lower(message, version)
    key = (shape.name, message, version, "encode")
    got = _COMPILED.get(key)
    if got is None or got[0] is not sop:
        run = _Encoder(shape).struct(sop)
        got = _COMPILED[key] = (sop, lambda model, *extra: run(model, None, extra))
    return got[1]


def _utf8(value) -> bytes:
    if type(value) is not str:
        raise TypeError(f"needs a string, got {type(value).__name__}")
    return value.encode("utf-8")  # (a lone surrogate raises: the wire-object path names it)


def _utf8_none_empty(value) -> bytes:
    return b"" if value is None else _utf8(value)


def _exactly(value, cls):
    if type(value) is not cls:
        raise TypeError(f"needs a {cls.__name__}, got {type(value).__name__}")
    return value


class _Encoder:
    __slots__ = ("shape",)

    def __init__(self, shape: Shape) -> None:
        self.shape = shape

    def passes(self, sop) -> bool:
        """Whether a Row struct's row is already the row tuple: every nested struct a Row that passes too."""
        return all(op.struct is None or self.passes(op.struct) for op in sop.fields) and isinstance(
            self.shape.encode.get(sop.name), Row
        )

    def struct(self, sop):
        """One generated function ``(obj, item, extra) -> row tuple`` of a shaped struct."""
        term = self.shape.encode.get(sop.name)
        if term is None:
            raise ValueError(f"{sop.name}: a struct with no encode shape has no row")
        if isinstance(term, Row) and self.passes(sop):
            return lambda obj, item, extra: obj
        ns: dict = {"_utf8": _utf8, "_utf8_none_empty": _utf8_none_empty, "_exactly": _exactly}
        lines = ["def enc(obj, item, X):"]
        if isinstance(term, In):
            ns["cls"] = term.cls
            lines.append("    _exactly(obj, cls)")
        elif isinstance(term, Item) and term.key_cls is not None:
            ns["key_cls"] = term.key_cls
            lines.append("    _exactly(item[0], key_cls)")
        names = []
        for i, op in enumerate(sop.fields):
            v = f"v{i}"
            names.append(v)
            expr = f"obj[{i}]" if isinstance(term, Row) else self.source(term.fields[op.name], ns)
            lines.append(f"    {v} = {expr}")
            if op.struct is not None:
                sub = self.struct(op.struct)
                ns[f"s{i}"] = sub
                as_item = isinstance(self.shape.encode.get(op.struct.name), Item)
                call = f"s{i}(None, x, X)" if as_item else f"s{i}(x, None, X)"
                if op.array:
                    lines.append(f"    if {v} is not None: {v} = [{call} for x in {v}]")
                else:
                    lines.append(f"    if {v} is not None: {v} = {call.replace('x', v, 1)}")
        lines.append(f"    return ({''.join(n + ', ' for n in names)})")
        exec("\n".join(lines), ns)  # noqa: S102 - our own code, from the schema's names and the shape
        return ns["enc"]

    def source(self, src, ns: dict) -> str:
        def conv(expr: str, how: str | None) -> str:
            if how is None:
                return expr
            return f"{'_utf8_none_empty' if how == 'utf8_none_empty' else '_utf8'}({expr})"

        if isinstance(src, Attr):
            expr = f"obj.{src.name}"
            return conv(f"list({expr}.items())" if src.items else expr, src.conv)
        if isinstance(src, Key):
            return conv("item[0]", src.conv)
        if isinstance(src, KeyAttr):
            return f"item[0].{src.name}"
        if isinstance(src, Value):
            return conv("list(item[1].items())" if src.items else "item[1]", src.conv)
        if isinstance(src, Const):
            name = f"c{len(ns)}"
            ns[name] = src.value
            return name
        if isinstance(src, Extra):
            return f"X[{src.index}]"
        if isinstance(src, LookupAttr):
            return f"X[{src.index}][obj.{src.name}]"
        raise ValueError(f"not an encoder source: {src!r}")
