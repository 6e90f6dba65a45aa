"""Loading the declarative message tables in ``schemas/``.

The files follow Kafka's own message-spec format (``clients/src/main/resources/common/message``):
JSON with ``//`` comments, ``validVersions``, ``flexibleVersions``, and an ordered ``fields`` list whose
entries carry ``name``, ``type``, ``versions``, and where needed ``nullableVersions``, ``default``,
``ignorable``, ``flexibleVersions``, ``tag``/``taggedVersions`` and ``about``. Field order is wire order.
``schemas/README.md`` documents the format and the project's extensions (``encoding``, ``versionPrefix``,
``history`` and the irregular types ``javaUTF`` and ``javaChars``).
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["Versions", "FieldSpec", "StructSpec", "MessageSpec", "load_message", "schema_names", "snake", "camel",
           "raw_message", "schema_overrides", "on_schema_change", "table_token"]


@dataclass(frozen=True, slots=True)
class Versions:
    """An inclusive version range, Kafka style: ``"3+"``, ``"1-6"``, ``"5"``, ``"none"``."""

    low: int
    high: int  # inclusive; 32767 for an open range

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


@dataclass(frozen=True, slots=True)
class FieldSpec:
    name: str  # as written in the spec (Kafka's spelling)
    type: str  # "int32", "string", "[]TaskId", "TaskId", ...
    versions: Versions
    nullable: Versions
    default: Any
    ignorable: bool
    flexible_override: Versions | None  # a field-level "flexibleVersions" (RequestHeader.ClientId: none)
    tag: int | None
    tagged_versions: Versions | None
    about: str
    struct: "StructSpec | None"  # for struct and struct-array types
    attrs: dict = field(default_factory=dict)  # project extensions (e.g. "dictionary")

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


@dataclass(frozen=True, slots=True)
class StructSpec:
    name: str
    versions: Versions
    fields: tuple[FieldSpec, ...]

    def fields_at(self, version: int) -> tuple[FieldSpec, ...]:
        return tuple(f for f in self.fields if version in f.versions and f.tag is None)

    def tagged_at(self, version: int) -> tuple[FieldSpec, ...]:
        return tuple(f for f in self.fields if f.tag is not None and f.tagged_versions and version in f.tagged_versions)


@dataclass(frozen=True, slots=True)
class MessageSpec:
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

    def is_flexible(self, version: int) -> bool:
        return version in self.flexible

    @property
    def versions(self) -> range:
        return range(self.valid.low, self.valid.high + 1)


_PRIMITIVES = {"int8", "int16", "int32", "int64", "uint16", "bool", "uuid", "string", "bytes",
               "javaUTF", "javaChars", "float64"}


def strip_comments(text: str) -> str:
    """Remove ``//`` line comments outside JSON strings (Kafka's specs allow them)."""
    out = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _schema_dir() -> Path:
    """``schemas/`` of a source checkout, else the copy shipped in the wheel (``codec/schemas/``). Both are
    plain directories: ``importlib.resources`` would hand back a ``MultiplexedPath`` for a data folder
    without ``__init__.py``."""
    codec_root = Path(__file__).resolve().parents[1]
    for candidate in (codec_root / "schemas", codec_root.parent / "schemas"):
        if (candidate / "SubscriptionInfo.json").is_file():
            return candidate
    raise FileNotFoundError("no message schemas found (neither schemas/ of a checkout nor codec/schemas in the install)")


def schema_names() -> list[str]:
    return sorted(p.name[:-5] for p in _schema_dir().iterdir() if p.name.endswith(".json"))


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
            struct = resolved.get(elem) or _parse_struct(elem, structs[elem]["fields"],
                                                         Versions.parse(structs[elem].get("versions"), versions),
                                                         structs, resolved)
        else:
            raise ValueError(f"field {name}: unknown type {ftype!r}")
    known = {"name", "type", "versions", "nullableVersions", "default", "ignorable", "flexibleVersions",
             "tag", "taggedVersions", "about", "fields", "mapKey", "entityType", "zeroCopy"}
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
    node = _schema_dir().joinpath(f"{name}.json")
    try:
        text = node.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KeyError(f"no schema named {name!r}; known: {', '.join(schema_names())}") from None
    return json.loads(strip_comments(text))


@cache
def load_message(name: str) -> MessageSpec:
    """Load ``schemas/<name>.json`` (cached), or the table :func:`schema_overrides` put in its place."""
    if name in _OVERRIDES:
        return parse_message(copy.deepcopy(_OVERRIDES[name]), f"<override of {name}>")
    return parse_message(raw_message(name), str(_schema_dir().joinpath(f"{name}.json")))


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


@contextmanager
def schema_overrides(tables: Mapping[str, dict]) -> Iterator[None]:
    """Inside the block, :func:`load_message` reads ``tables[name]`` (raw message JSON, as
    :func:`raw_message` returns it) instead of ``schemas/<name>.json``; every cache built from the tables is
    dropped on the way in and on the way out. For the mutation command, which runs the codec built from a
    mistaken table (one process, one mutant at a time); not thread-safe."""
    saved, saved_tokens = dict(_OVERRIDES), dict(_TOKENS)
    _OVERRIDES.clear()
    _OVERRIDES.update({name: copy.deepcopy(raw) for name, raw in tables.items()})
    _TOKENS.clear()
    _TOKENS.update({name: next(_NEXT_TOKEN) for name in tables})
    _tables_changed()
    try:
        yield
    finally:
        _OVERRIDES.clear()
        _OVERRIDES.update(saved)
        _TOKENS.clear()
        _TOKENS.update(saved_tokens)
        _tables_changed()
