"""Each schema lowered once: for a (message, version), every field's wire operation.

A schema table says what a field is (``string``, ``[]TaskId``, nullable in ``1+``, flexible from ``4``, a field-level
``flexibleVersions`` override, tagged, a project encoding); the *lowering* says what that is on the wire at one
version: an int16, int32, uint16 or compact (uvarint) length, whether the value or the array may be null, which marker
a nullable struct carries, whether the struct ends with a tagged-field section. Every codec and every reader of the
layout is an emitter of this one lowering — the construct reference (:mod:`codec.wire.builder`), the generated Python
(:mod:`codec.wire.fastpath`), the C engine's programs (:mod:`codec.wire.native`), the rule vectors
(:mod:`codec.conformance.handcrafted_rules`), the coverage counter (:mod:`codec.conformance.coverage`) and the tests'
strategies — so no other module decides a field's layout.

The rules (Kafka's generator, ``schemas/README.md``):

* a field exists only inside its ``versions``; a tagged one only inside its ``taggedVersions``, in the tagged-field
  section of a flexible version's struct;
* a field is *compact* (uvarint lengths and counts, one more than the value; 0 for null) where its message is
  flexible, or where its own ``flexibleVersions`` says (``RequestHeader.ClientId``: never);
* otherwise a string's length is an int16, a bytes field's and an array's count an int32 (-1: null);
  ``javaUTF`` (``DataOutputStream.writeUTF``) has a uint16 byte length and ``javaChars`` an int32 char count;
* a string, bytes or struct value is nullable where its ``nullableVersions`` say (an array's elements never are); an
  array too, but not in a ``java-data-output`` message, which has no null;
* a nullable struct (not an array) is an int8 marker (-1 null, 1 present), a uvarint one inside a tagged field (0 null,
  1 present);
* a ``java-data-output`` message has no ``string`` (it writes ``javaUTF``).
"""

from __future__ import annotations

from functools import cache

from .schema import FieldSpec, MessageSpec, StructSpec, load_message, on_schema_change

__all__ = ["FIXED", "WIDTHS", "FieldOp", "StructOp", "field_op", "lower", "lower_struct", "regular_ops"]

#: fixed-width kinds -> their width in bytes
FIXED = {"int8": 1, "int16": 2, "int32": 4, "int64": 8, "uint16": 2, "bool": 1, "uuid": 16, "float64": 8}
_LENGTHS = {"string": "int16", "bytes": "int32", "javaUTF": "uint16", "javaChars": "int32"}
#: the width of each length or count encoding that has one (compact: a uvarint of 1 to 5 bytes)
WIDTHS = {"int16": 2, "int32": 4, "uint16": 2}


class FieldOp:
    """One field's wire operation at one version.

    * ``field`` — its :class:`~codec.wire.schema.FieldSpec`; ``name`` its snake_case name;
    * ``kind`` — the element's kind: a :data:`FIXED` one, ``string``, ``bytes``, ``javaUTF``, ``javaChars`` or
      ``struct``; ``array`` — whether the field is an array of them;
    * ``compact`` — lengths and counts are uvarints (flexible);
    * ``length`` — a string's or bytes' length encoding (``int16``, ``int32``, ``uint16``, ``compact``; None for a
      fixed-width kind or a struct); ``count`` — an array's (``int32`` or ``compact``; None for a non-array);
    * ``nullable`` — the value (a string, bytes or struct, not an array's element) may be null;
      ``array_nullable`` — the array may be null;
    * ``marker`` — a nullable struct's null marker: ``int8`` or ``uvarint`` (inside a tagged field); None otherwise;
    * ``tag`` — a tagged field's tag (None for one in the regular field list);
    * ``struct`` — the element struct's :class:`StructOp` at this version (None for other kinds).
    """

    __slots__ = (
        "field",
        "name",
        "kind",
        "array",
        "compact",
        "length",
        "count",
        "nullable",
        "array_nullable",
        "marker",
        "tag",
        "struct",
    )

    def __init__(self, **values) -> None:
        for name in self.__slots__:
            object.__setattr__(self, name, values[name])

    def __setattr__(self, name, value) -> None:
        raise AttributeError("FieldOp is read-only")

    field: FieldSpec
    name: str
    kind: str
    array: bool
    compact: bool
    length: str | None
    count: str | None
    nullable: bool
    array_nullable: bool
    marker: str | None
    tag: int | None
    struct: StructOp | None

    @property
    def width(self) -> int | None:
        """The width of a fixed-width element (the kind's), None for the others."""
        return FIXED.get(self.kind)

    @property
    def prefix(self) -> str | None:
        """What the field's bytes start with: its count (an array), its length (a string or bytes), None for a
        fixed-width value or a struct."""
        return self.count if self.array else self.length

    @property
    def prefix_nullable(self) -> bool:
        """Whether that prefix may say null (-1, or compact 0)."""
        return self.array_nullable if self.array else self.nullable

    def __repr__(self) -> str:
        shape = f"[]{self.kind}" if self.array else self.kind
        extra = [x for x in (self.prefix, "nullable" if self.prefix_nullable or self.nullable else "") if x]
        if self.tag is not None:
            extra.append(f"tag {self.tag}")
        return f"FieldOp({self.name}: {shape}{', ' + ', '.join(extra) if extra else ''})"


class StructOp:
    """A struct at one version: ``spec``, ``fields`` (the :class:`FieldOp` of each field present, in wire order),
    ``tagged`` (the known tagged fields, by tag order of the schema), ``flexible`` (a tagged-field section ends the
    struct) and ``absent`` (the fields of the struct this version lacks, tagged ones aside: a writer refuses a
    non-default value in one that is not ``ignorable``)."""

    __slots__ = ("spec", "fields", "tagged", "flexible", "absent")

    def __init__(
        self,
        spec: StructSpec,
        fields: tuple[FieldOp, ...],
        tagged: tuple[FieldOp, ...],
        flexible: bool,
        absent: tuple[FieldSpec, ...],
    ) -> None:
        self.spec, self.fields, self.tagged, self.flexible, self.absent = spec, fields, tagged, flexible, absent

    @property
    def name(self) -> str:
        return self.spec.name

    def __repr__(self) -> str:
        return f"StructOp({self.spec.name}, {list(self.fields)}{', flexible' if self.flexible else ''})"


def field_op(message: MessageSpec, f: FieldSpec, version: int, *, tagged: bool | None = None) -> FieldOp:
    """The wire operation of field ``f`` of ``message`` at ``version`` (``tagged``: inside the tagged-field
    section; by default, where the field is tagged at that version)."""
    if tagged is None:
        tagged = f.tag is not None and bool(f.tagged_versions and version in f.tagged_versions)
    flexible = message.is_flexible(version)
    if f.flexible_override is not None:  # a field-level "flexibleVersions" (RequestHeader.ClientId: none)
        flexible = version in f.flexible_override
    dataout = message.encoding == "java-data-output"
    elem = f.element_type
    struct = None
    if f.struct is not None:
        kind = "struct"
        struct = lower_struct(message.name, f.struct.name, version)
    elif elem in FIXED:
        kind = elem
    elif elem in _LENGTHS:
        kind = elem
        if elem == "string" and dataout:
            raise ValueError(f"{message.name}.{f.name}: java-data-output messages use javaUTF, not string")
    else:
        raise ValueError(f"{message.name}.{f.name}: unsupported type {f.type}")
    nullable_here = version in f.nullable
    length = None
    if kind in ("string", "bytes"):
        length = "compact" if flexible else _LENGTHS[kind]
    elif kind in ("javaUTF", "javaChars"):
        length = _LENGTHS[kind]
    value_nullable = nullable_here and not f.is_array and kind in ("string", "bytes", "struct")
    return FieldOp(
        field=f,
        name=f.py_name,
        kind=kind,
        array=f.is_array,
        compact=flexible,
        length=length,
        count=("compact" if flexible else "int32") if f.is_array else None,
        nullable=value_nullable,
        array_nullable=f.is_array and nullable_here and not dataout,
        marker=("uvarint" if tagged else "int8") if kind == "struct" and value_nullable else None,
        tag=f.tag if tagged else None,
        struct=struct,
    )


@cache
def lower_struct(message_name: str, struct_name: str, version: int) -> StructOp:
    """The lowering of one struct of a message at ``version`` (cached; dropped when the tables change)."""
    message = load_message(message_name)
    spec = message.structs[struct_name]
    present = spec.fields_at(version)
    flexible = message.is_flexible(version)
    tagged = spec.tagged_at(version) if flexible else ()
    absent = tuple(
        f
        for f in spec.fields
        if f not in present and not (f.tag is not None and f.tagged_versions and version in f.tagged_versions)
    )
    return StructOp(
        spec,
        tuple(field_op(message, f, version) for f in present),
        tuple(field_op(message, f, version, tagged=True) for f in tagged),
        flexible,
        absent,
    )


def lower(message_name: str, version: int) -> StructOp:
    """The lowering of a whole message body at ``version``: its root struct's :class:`StructOp`."""
    message = load_message(message_name)
    if version not in message.valid:
        raise ValueError(f"{message_name} has no version {version} (valid {message.valid})")
    return lower_struct(message_name, message.name, version)


def regular_ops(message_name: str, version: int):
    """Every field present at ``version`` outside the tagged-field sections, depth first in wire order (an array's
    element struct once)."""

    def walk(sop: StructOp):
        for op in sop.fields:
            yield op
            if op.struct is not None:
                yield from walk(op.struct)

    return walk(lower(message_name, version))


@on_schema_change
def _forget() -> None:
    lower_struct.cache_clear()
