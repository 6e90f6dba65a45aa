"""Loading the declarative message tables in ``schemas/``.

The files follow Kafka's own message-spec format (``clients/src/main/resources/common/message``):
JSON with ``//`` comments, ``validVersions``, ``flexibleVersions``, and an ordered ``fields`` list whose
entries carry ``name``, ``type``, ``versions``, and where needed ``nullableVersions``, ``default``,
``ignorable``, ``flexibleVersions``, ``tag``/``taggedVersions`` and ``about``. Field order is wire order.
``schemas/README.md`` documents the format and the project's extensions (``encoding``, ``versionPrefix``,
``history`` and the irregular types ``javaUTF`` and ``javaChars``).
"""

from __future__ import annotations

import itertools
import json
import os
import re
from functools import cache

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from typing import Any

__all__ = [
    "Versions",
    "FieldSpec",
    "StructSpec",
    "MessageSpec",
    "load_message",
    "schema_names",
    "snake",
    "camel",
    "raw_message",
    "schema_overrides",
    "on_schema_change",
    "table_token",
]


class _Record:
    """A plain record with named slots, equal by value (the tables are made once per schema and never
    changed). Not a dataclass: these are built on every decode call's start-up, where the decorator's cost
    shows (tests/test_cli_startup.py)."""

    __slots__: tuple[str, ...] = ()

    def __init__(self, *args, **kwargs) -> None:
        names = self.__slots__
        values = dict(zip(names, args), **kwargs)
        for name in names:
            object.__setattr__(self, name, values[name] if name in values else self._defaults[name]())

    _defaults: dict = {}

    def __setattr__(self, name, value) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def _values(self) -> tuple:
        return tuple(getattr(self, n) for n in self.__slots__)

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._values() == self._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self.__slots__)})"


class Versions(_Record):
    """An inclusive version range, Kafka style: ``"3+"``, ``"1-6"``, ``"5"``, ``"none"``. ``low`` and
    ``high`` (inclusive; 32767 for an open range)."""

    __slots__ = ("low", "high")
    low: int
    high: int

    NONE_HIGH = -1

    @classmethod
    def parse(cls, text: str | None, default: "Versions | None" = None) -> "Versions":
        if text is None:
            if default is None:
                raise ValueError("missing version range")
            return default
        text = text.strip()
        if text == "none":
            return cls(0, cls.NONE_HIGH)
        if text.endswith("+"):
            return cls(int(text[:-1]), 32767)
        if "-" in text:
            lo, hi = text.split("-", 1)
            return cls(int(lo), int(hi))
        return cls(int(text), int(text))

    def __contains__(self, version: int) -> bool:
        return self.low <= version <= self.high

    @property
    def empty(self) -> bool:
        return self.high < self.low

    def __str__(self) -> str:
        if self.empty:
            return "none"
        if self.high == 32767:
            return f"{self.low}+"
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@cache  # called for every field of every value written or read (FieldSpec.py_name)
def snake(name: str) -> str:
    """``GroupInstanceId`` / ``latestSupportedVersion`` -> ``group_instance_id`` / ``latest_supported_version``."""
    return _CAMEL_BOUNDARY.sub("_", name).lower()


def camel(name: str) -> str:
    """Kafka's JSON converters' field names: the spec name with a lower-case first letter."""
    return name[:1].lower() + name[1:]


class FieldSpec(_Record):
    """One field: ``name`` as written in the spec (Kafka's spelling), ``type`` ("int32", "string",
    "[]TaskId", "TaskId", ...), ``versions``, ``nullable``, ``default``, ``ignorable``, ``flexible_override``
    (a field-level "flexibleVersions": RequestHeader.ClientId's none), ``tag``, ``tagged_versions``,
    ``about``, ``struct`` (for struct and struct-array types) and ``attrs`` (project extensions, e.g.
    "dictionary")."""

    __slots__ = (
        "name",
        "type",
        "versions",
        "nullable",
        "default",
        "ignorable",
        "flexible_override",
        "tag",
        "tagged_versions",
        "about",
        "struct",
        "attrs",
    )
    _defaults = {"attrs": dict}
    name: str
    type: str
    versions: Versions
    nullable: Versions
    default: Any
    ignorable: bool
    flexible_override: Versions | None
    tag: int | None
    tagged_versions: Versions | None
    about: str
    struct: StructSpec | None
    attrs: dict

    def __eq__(self, other) -> bool:  # the same field (a table's fields are made once): no deep compare
        return self is other

    __hash__ = object.__hash__

    @property
    def py_name(self) -> str:
        return snake(self.name)

    @property
    def json_name(self) -> str:
        return camel(self.name)

    @property
    def is_array(self) -> bool:
        return self.type.startswith("[]")

    @property
    def element_type(self) -> str:
        return self.type[2:] if self.is_array else self.type

    @property
    def is_struct(self) -> bool:
        return self.struct is not None

    @property
    def tag_number(self) -> int:
        """The tag of a tagged field (:meth:`StructSpec.tagged_at`'s fields); asking another field is a bug."""
        if self.tag is None:
            raise ValueError(f"{self.name} is not a tagged field")
        return self.tag


class StructSpec(_Record):
    """A struct: ``name``, ``versions``, ``fields`` (in wire order)."""

    __slots__ = ("name", "versions", "fields")
    name: str
    versions: Versions
    fields: tuple[FieldSpec, ...]

    def __eq__(self, other) -> bool:
        return self is other

    __hash__ = object.__hash__

    def fields_at(self, version: int) -> tuple[FieldSpec, ...]:
        return tuple(f for f in self.fields if version in f.versions and f.tag is None)

    def tagged_at(self, version: int) -> tuple[FieldSpec, ...]:
        return tuple(f for f in self.fields if f.tag is not None and f.tagged_versions and version in f.tagged_versions)


class MessageSpec(_Record):
    """A message: ``name``, ``kind``, ``api_key``, ``valid``, ``flexible``, ``encoding``, ``version_prefix``,
    ``history``, ``root``, ``structs`` and ``path`` (see the module docstring)."""

    __slots__ = (
        "name",
        "kind",
        "api_key",
        "valid",
        "flexible",
        "encoding",
        "version_prefix",
        "history",
        "root",
        "structs",
        "path",
    )
    name: str
    kind: str  # "streams" | "request" | "response" | "header" | "data"
    api_key: int | None
    valid: Versions
    flexible: Versions
    encoding: str  # "kafka" (generated-message encoding) | "java-data-output"
    version_prefix: str | None  # "int16" for the ConsumerProtocol messages
    history: tuple[str, ...]
    root: StructSpec
    structs: dict[str, StructSpec]
    path: str

    def __eq__(self, other) -> bool:
        return self is other

    __hash__ = object.__hash__

    def is_flexible(self, version: int) -> bool:
        return version in self.flexible

    @property
    def versions(self) -> range:
        return range(self.valid.low, self.valid.high + 1)


_PRIMITIVES = {
    "int8",
    "int16",
    "int32",
    "int64",
    "uint16",
    "bool",
    "uuid",
    "string",
    "bytes",
    "javaUTF",
    "javaChars",
    "float64",
}


_STRING_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*', re.S)


def strip_comments(text: str) -> str:
    """Remove ``//`` line comments outside JSON strings (Kafka's specs allow them)."""
    return _STRING_OR_COMMENT.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else "", text)


@cache
def _schema_path() -> str:
    """``schemas/`` of a source checkout, else the copy shipped in the wheel (``codec/schemas/``). Both are
    plain directories: ``importlib.resources`` would hand back a ``MultiplexedPath`` for a data folder
    without ``__init__.py``. (``os.path``, not ``pathlib``: this is on a decode call's start-up path.)"""
    codec_root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    for candidate in (os.path.join(codec_root, "schemas"), os.path.join(os.path.dirname(codec_root), "schemas")):
        if os.path.isfile(os.path.join(candidate, "SubscriptionInfo.json")):
            return candidate
    raise FileNotFoundError(
        "no message schemas found (neither schemas/ of a checkout nor codec/schemas in the install)"
    )


def _schema_dir() -> Path:
    from pathlib import Path

    return Path(_schema_path())


def schema_names() -> list[str]:
    return sorted(name[:-5] for name in os.listdir(_schema_path()) if name.endswith(".json"))


def _parse_field(raw: dict, structs: dict[str, dict], parent_versions: Versions, resolved: dict) -> FieldSpec:
    name = raw["name"]
    ftype = raw["type"]
    versions = Versions.parse(raw.get("versions"), parent_versions)
    nullable = Versions.parse(raw.get("nullableVersions", "none"))
    elem = ftype[2:] if ftype.startswith("[]") else ftype
    struct = None
    if elem not in _PRIMITIVES:
        if "fields" in raw:  # inline struct, Kafka style
            struct = _parse_struct(elem, raw["fields"], versions, structs, resolved)
        elif elem in structs:
            struct = resolved.get(elem) or _parse_struct(
                elem,
                structs[elem]["fields"],
                Versions.parse(structs[elem].get("versions"), versions),
                structs,
                resolved,
            )
        else:
            raise ValueError(f"field {name}: unknown type {ftype!r}")
    known = {
        "name",
        "type",
        "versions",
        "nullableVersions",
        "default",
        "ignorable",
        "flexibleVersions",
        "tag",
        "taggedVersions",
        "about",
        "fields",
        "mapKey",
        "entityType",
        "zeroCopy",
    }
    attrs = {k: v for k, v in raw.items() if k not in known}
    return FieldSpec(
        name=name,
        type=ftype,
        versions=versions,
        nullable=nullable,
        default=raw.get("default"),
        ignorable=bool(raw.get("ignorable", False)),
        flexible_override=Versions.parse(raw["flexibleVersions"]) if "flexibleVersions" in raw else None,
        tag=raw.get("tag"),
        tagged_versions=Versions.parse(raw["taggedVersions"]) if "taggedVersions" in raw else None,
        about=raw.get("about", ""),
        struct=struct,
        attrs=attrs,
    )


def _parse_struct(name: str, raw_fields: list, versions: Versions, structs: dict, resolved: dict) -> StructSpec:
    fields = tuple(_parse_field(f, structs, versions, resolved) for f in raw_fields)
    spec = StructSpec(name, versions, fields)
    resolved[name] = spec
    return spec


def parse_message(raw: dict, path: str = "<memory>") -> MessageSpec:
    valid = Versions.parse(raw["validVersions"])
    structs = {s["name"]: s for s in raw.get("commonStructs", [])}
    resolved: dict[str, StructSpec] = {}
    root = _parse_struct(raw["name"], raw["fields"], valid, structs, resolved)
    for sname, sraw in structs.items():  # common structs nobody referenced still load (and fail loudly)
        if sname not in resolved:
            _parse_struct(sname, sraw["fields"], Versions.parse(sraw.get("versions"), valid), structs, resolved)
    return MessageSpec(
        name=raw["name"],
        kind=raw.get("type", "data"),
        api_key=raw.get("apiKey"),
        valid=valid,
        flexible=Versions.parse(raw.get("flexibleVersions", "none")),
        encoding=raw.get("encoding", "kafka"),
        version_prefix=raw.get("versionPrefix"),
        history=tuple(raw.get("history", ())),
        root=root,
        structs=resolved,
        path=path,
    )


def raw_message(name: str) -> dict:
    """``schemas/<name>.json`` as parsed JSON (comments stripped): a fresh copy the caller may change."""
    node = os.path.join(_schema_path(), f"{name}.json")
    try:
        with open(node, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise KeyError(f"no schema named {name!r}; known: {', '.join(schema_names())}") from None
    return json.loads(strip_comments(text))


@cache
def load_message(name: str) -> MessageSpec:
    """Load ``schemas/<name>.json`` (cached), or the table :func:`schema_overrides` put in its place."""
    if name in _OVERRIDES:
        import copy

        return parse_message(copy.deepcopy(_OVERRIDES[name]), f"<override of {name}>")
    return parse_message(raw_message(name), os.path.join(_schema_path(), f"{name}.json"))


# Tables that replace schemas/<name>.json while a schema_overrides block runs (the mutation command's mutants),
# and the functions that drop what was built from the tables (the builder's classes and constructs, the fast
# path's compiled code): every cache derived from a schema registers one.
_OVERRIDES: dict[str, dict] = {}
_TOKENS: dict[str, int] = {}  # name -> which override is in place (none: 0)
_NEXT_TOKEN = itertools.count(1)
_ON_CHANGE: list[Callable[[], None]] = []


def table_token(name: str) -> int:
    """0 while ``schemas/<name>.json`` is in force, else a number of the table :func:`schema_overrides` put in its
    place: for caches whose objects must outlive an override (the wire classes: what was decoded before compares
    equal to what is decoded after)."""
    return _TOKENS.get(name, 0)


def on_schema_change(hook: Callable[[], None]) -> Callable[[], None]:
    """Register ``hook`` to run whenever the tables change (it clears a cache built from them)."""
    _ON_CHANGE.append(hook)
    return hook


def _tables_changed() -> None:
    load_message.cache_clear()
    for hook in _ON_CHANGE:
        hook()


class schema_overrides:  # noqa: N801 -- used as a function: ``with schema_overrides(tables):``
    """Inside the block, :func:`load_message` reads ``tables[name]`` (raw message JSON, as
    :func:`raw_message` returns it) instead of ``schemas/<name>.json``; every cache built from the tables is
    dropped on the way in and on the way out. For the mutation command, which runs the codec built from a
    mistaken table (one process, one mutant at a time); not thread-safe. (A class, not a contextlib generator:
    contextlib is not imported on a decode call's start-up.)"""

    def __init__(self, tables: Mapping[str, dict]) -> None:
        import copy

        self._tables = {name: copy.deepcopy(raw) for name, raw in tables.items()}

    def __enter__(self) -> None:
        self._saved, self._saved_tokens = dict(_OVERRIDES), dict(_TOKENS)
        _OVERRIDES.clear()
        _OVERRIDES.update(self._tables)
        _TOKENS.clear()
        _TOKENS.update({name: next(_NEXT_TOKEN) for name in self._tables})
        _tables_changed()

    def __exit__(self, *exc: object) -> None:
        _OVERRIDES.clear()
        _OVERRIDES.update(self._saved)
        _TOKENS.clear()
        _TOKENS.update(self._saved_tokens)
        _tables_changed()
