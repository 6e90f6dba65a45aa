"""Every table the schemas state, derived from ``schemas/``: nothing here is kept by hand that a schema file says.

* **messages** — every schema by name (:func:`message_names`), its header (:func:`head`: type, API key, valid and
  flexible versions, version prefix) and its command-line kind, the name in kebab case (:func:`kind_name`,
  :func:`message_of_kind`: ``HeartbeatRequest`` is ``heartbeat-request``);
* **APIs** — each API key with its request and response schemas and its first flexible version, from the
  ``request``/``response`` files' ``apiKey`` (:func:`apis`, :func:`api_for`), and the header version each API
  version uses (:func:`request_header_version`, :func:`response_header_version`);
* **records** — each coordinator's record types: a ``coordinator-key`` file's ``apiKey`` is its record type
  *within its coordinator* (its ``"coordinator"``: ``group``, the default, writes ``__consumer_offsets``; ``share``
  writes ``__share_group_state``, :data:`COORDINATORS`), so the share coordinator's types 0 and 1 shadow nothing of
  the group coordinator's; the classic keys, whose version is their record type, say so with
  ``"recordType": "version"`` (:func:`record_types`, :func:`records`, :func:`record_of`);
* **error names** — from the one table the schemas cannot hold, :mod:`codec.wire.error_codes` (:func:`error_name`,
  :func:`error_code`); the names of the APIs no schema describes yet from Kafka's table of APIs,
  :mod:`codec.wire.api_keys` (:func:`api_name`);
* **releases** — a schema's ``history`` names the Kafka release of each version (``"v7 (2.6): ..."``) and its
  ``releases`` the range of releases it follows (``"0.10.0-4.0"``): :func:`first_release`,
  :func:`latest_by_release`.

Adding a message is adding its schema file: its kind, its API (for a request or response), its record type (for a
coordinator key) follow from the file. Tables are built on first use and dropped when the schemas change
(:func:`codec.wire.schema.schema_overrides`). Only each file's head is read (what comes before ``"fields"``), so a
decode call's start-up pays for none of this unless it asks.
"""

from __future__ import annotations

import json
import os
import re

from .schema import Versions, _schema_path, load_message, on_schema_change, schema_names, snake, strip_comments

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "COORDINATORS",
    "Api",
    "Head",
    "KAFKA_RELEASES",
    "Record",
    "api_for",
    "api_key",
    "api_name",
    "api_names",
    "error_code",
    "apis",
    "error_name",
    "error_names",
    "first_release",
    "head",
    "kind_name",
    "kind_names",
    "latest_by_release",
    "message_names",
    "message_of_kind",
    "messages_of_type",
    "ordered",
    "record_for",
    "record_of",
    "record_types",
    "records",
    "request_header_version",
    "response_header_version",
]


class Head:
    """What a schema file says about its message as a whole: ``name``, ``type`` (``request``, ``response``,
    ``header``, ``data``, ``streams``, ``coordinator-key``, ``coordinator-value``), ``api_key`` (an API key, or a
    coordinator record's type; None), ``valid`` and ``flexible`` (:class:`~codec.wire.schema.Versions`),
    ``version_prefix`` (``int16`` or None), ``record_type`` (``version`` for a classic record key, else None),
    ``coordinator`` (the coordinator whose record a ``coordinator-key``/``-value`` is: ``group``, the default, or
    ``share``), ``releases`` (the ``"first-last"`` release range it follows, or None), ``follows`` (the Kafka
    release whose message JSON the table follows where the schema names one: ``"4.4"`` for the branch
    ``vectors/releases/kafka-versions.json`` names, ``"4.1"``, ``"1eb7644"`` for the classic group's commit,
    ``"4.0-early-access"``; None: the 4.3.1 release), ``group_protocol`` (``classic`` for the classic group
    membership protocol's requests and responses; None), ``vectors`` (``awaiting`` while no golden vector holds the
    message: the conformance suite does not hold itself to it yet; None), ``history``."""

    __slots__ = (
        "name",
        "type",
        "api_key",
        "valid",
        "flexible",
        "version_prefix",
        "record_type",
        "coordinator",
        "releases",
        "follows",
        "group_protocol",
        "vectors",
        "history",
    )

    def __init__(self, raw: dict) -> None:
        self.name: str = raw["name"]
        self.type: str = raw.get("type", "data")
        self.api_key: int | None = raw.get("apiKey")
        self.valid = Versions.parse(raw["validVersions"])
        self.flexible = Versions.parse(raw.get("flexibleVersions", "none"))
        self.version_prefix: str | None = raw.get("versionPrefix")
        self.record_type: str | None = raw.get("recordType")
        self.coordinator: str = raw.get("coordinator", "group")
        self.releases: str | None = raw.get("releases")
        self.follows: str | None = raw.get("follows")
        self.group_protocol: str | None = raw.get("groupProtocol")
        self.vectors: str | None = raw.get("vectors")
        self.history: tuple[str, ...] = tuple(raw.get("history", ()))

    def __repr__(self) -> str:
        return f"Head({self.name!r}, {self.type!r}, api_key={self.api_key}, valid={self.valid})"


_HEADS: dict[str, Head] = {}
# the keys a file's head must hold, by type (a key after "fields" sends the reader to the whole file)
_NEEDS = ("name", "validVersions")


def head(name: str) -> Head:
    """The head of ``schemas/<name>.json`` (or of the table a :func:`~codec.wire.schema.schema_overrides` block put
    in its place); ``KeyError`` for a name with no schema."""
    got = _HEADS.get(name)
    if got is None:
        got = _HEADS[name] = Head(_raw_head(name))
    return got


def _raw_head(name: str) -> dict:
    from .schema import _OVERRIDES, raw_message

    if name in _OVERRIDES:
        return _OVERRIDES[name]
    path = os.path.join(_schema_path(), f"{name}.json")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise KeyError(f"no schema named {name!r}") from None
    cut = text.find('"fields"')
    if cut > 0:
        try:
            raw = json.loads(strip_comments(text[:cut]).rstrip().rstrip(",") + "}")
        except ValueError:
            raw = None
        if (
            isinstance(raw, dict)
            and all(k in raw for k in _NEEDS)
            and (
                raw.get("type") not in ("request", "response", "coordinator-key", "coordinator-value")
                or "apiKey" in raw
            )
        ):
            return raw
    return raw_message(name)  # the head's keys are not all before "fields": the whole file


def message_names() -> list[str]:
    """Every message with a schema, by name (sorted)."""
    return schema_names()


def ordered(names) -> list[str]:
    """``names`` in the order the tables show messages: Kafka Streams' metadata, the version-prefixed messages
    (ConsumerProtocol, Connect), the headers, each API's request and response by API key, each record's key and value
    by record type, then any other."""
    records = {}
    for c, coordinator in enumerate(COORDINATORS):  # the group coordinator's records, then the share coordinator's
        for t, r in sorted(record_types(coordinator).items(), reverse=True):  # (two types: the lowest)
            records[r.key], records[r.value] = (c, t, 0), (c, t, 1)

    def key(n: str) -> tuple:
        h = head(n)
        if h.type == "streams":
            return (0, 0, 0, 0, n)
        if h.version_prefix is not None:
            return (1, 0, 0, 0, n)
        if h.type == "header":
            return (2, 0, 0, 0, n)
        if h.type in ("request", "response") and h.api_key is not None:
            return (3, 0, h.api_key, h.type == "response", n)
        if n in records:
            return (4, *records[n], n)
        return (5, 0, 0, 0, n)

    return sorted(names, key=key)


def messages_of_type(*types: str) -> list[str]:
    """The messages whose schema ``type`` is one of ``types`` (sorted by name)."""
    return [n for n in message_names() if head(n).type in types]


# --- kind names -----------------------------------------------------------------------------------------------


def kind_name(message: str) -> str:
    """A message's command-line kind: its name in kebab case (``ConsumerGroupHeartbeatRequest`` ->
    ``consumer-group-heartbeat-request``)."""
    return snake(message).replace("_", "-")


def kind_names() -> dict[str, str]:
    """Every message's kind name -> the message."""
    return {kind_name(n): n for n in message_names()}


def message_of_kind(kind: str) -> str | None:
    """The message whose kind name (or name) is ``kind``, or None. Reads the schema folder's listing only: once
    per kind found (a decode call's path, where listing the folder each time cost ~60 µs), and again for every
    kind not found, so a schema file added meanwhile is seen."""
    if not isinstance(kind, str):
        return None
    found = _KINDS.get(kind)
    if found is not None:
        return found
    names = message_names()
    if kind in names:
        found = kind
    else:
        found = next((n for n in names if kind_name(n) == kind), None)
    if found is not None:
        _KINDS[kind] = found
    return found


_KINDS: dict[str, str] = {}  # kind or message name -> message, for the kinds found (at most two per schema)


# --- APIs -----------------------------------------------------------------------------------------------------


class Api:
    """One API: ``key``, ``name``, ``request`` and ``response`` (schema names; None for an API known only by its
    frame), its first flexible version (:attr:`flexible_from`) and ``response_header_fixed`` (ApiVersions: always
    response header v0)."""

    __slots__ = ("key", "name", "request", "response", "bodiless_flexible_from", "response_header_fixed")

    def __init__(
        self,
        key: int,
        name: str,
        request: str | None,
        response: str | None,
        bodiless_flexible_from: int | None = None,
        response_header_fixed: int | None = None,
    ) -> None:
        self.key, self.name, self.request, self.response = key, name, request, response
        self.bodiless_flexible_from = bodiless_flexible_from
        self.response_header_fixed = response_header_fixed

    def __repr__(self) -> str:
        return f"Api({self.key}, {self.name!r}, {self.request!r}, {self.response!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Api) and (self.key, self.name, self.request, self.response) == (
            other.key,
            other.name,
            other.request,
            other.response,
        )

    def __hash__(self) -> int:
        return hash((self.key, self.name))

    @property
    def flexible_from(self) -> int:
        """The first flexible API version (Kafka's ``"flexibleVersions": "N+"``): the request table's, read when
        asked (so a table loaded in place of the real one, as the mutation command does, decides)."""
        if self.request is None:
            if self.bodiless_flexible_from is None:
                raise ValueError(f"{self.name}: an API without a schema here names its first flexible version")
            return self.bodiless_flexible_from
        flexible = load_message(self.request).flexible
        # never flexible ("none": OffsetDelete): no version is; "none" parses as the empty range 0..-1
        return 32767 if flexible.empty else flexible.low

    @property
    def valid(self) -> Versions | None:
        """The API's versions (its request's), or None for an API known only by its frame."""
        return None if self.request is None else load_message(self.request).valid

    def check_version(self, version: int, *, message: str | None = None, offset: int | None = 2) -> None:
        """Refuse an API version the schema does not have (UnsupportedVersionError)."""
        from ..errors import UnsupportedVersionError

        if self.request is None:
            return
        valid = load_message(self.request).valid
        if version not in valid:
            raise UnsupportedVersionError(
                f"{self.name} has no version {version} (valid {valid})",
                message=message or self.request,
                offset=offset,
                path="request_api_version",
            )


# Kafka's generator writes every ApiVersionsResponse behind response header v0, whatever its version, so that a client
# can read it before it knows what the broker speaks (ApiMessageTypeGenerator: the one exception it makes).
_V0_RESPONSE_HEADER = "ApiVersions"

_APIS: dict[int, Api] = {}


def apis() -> dict[int, Api]:
    """Every API key -> its :class:`Api`, from the ``request`` and ``response`` schemas (sorted by key)."""
    if not _APIS:
        found: dict[int, dict[str, str]] = {}
        for n in message_names():
            if not n.endswith(("Request", "Response")):  # (Kafka names its RPC files so; the head says for sure)
                continue
            h = head(n)
            if h.type in ("request", "response") and h.api_key is not None:
                found.setdefault(h.api_key, {})[h.type] = n
        table: dict[int, Api] = {}
        for key, sides in found.items():
            request, response = sides.get("request"), sides.get("response")
            name = (request or response or "").removesuffix("Request").removesuffix("Response")
            table[key] = Api(key, name, request, response, None, 0 if name == _V0_RESPONSE_HEADER else None)
        _APIS.update(sorted(table.items()))
    return _APIS


def api_for(api_key: int, *, message: str = "RequestHeader", offset: int | None = 0) -> Api:
    """The API of ``api_key``; a ``DecodeError`` naming the known ones for any other key."""
    table = apis()
    try:
        return table[api_key]
    except (KeyError, TypeError):
        from ..errors import DecodeError

        known = ", ".join(f"{k} {a.name}" for k, a in table.items())
        raise DecodeError(
            f"unknown API key {api_key} (known: {known})", message=message, offset=offset, path="request_api_key"
        ) from None


def api_name(key: int) -> str | None:
    """Kafka's name of the API ``key``: its schema's, else Kafka's table of APIs (:mod:`codec.wire.api_keys`); None
    for a key Kafka has not used."""
    from .api_keys import KAFKA_APIS

    api = apis().get(key) if type(key) is int else None
    if api is not None:
        return api.name
    got = KAFKA_APIS.get(key) if type(key) is int else None
    return got[0] if got is not None else None


def api_names() -> dict[int, str]:
    """Every API key Kafka has used -> its name (:func:`api_name` of each)."""
    from .api_keys import KAFKA_APIS

    return {key: name for key in sorted({*KAFKA_APIS, *apis()}) if (name := api_name(key)) is not None}


def api_key(name: str) -> int:
    """The API key of an API named ``name`` (``JoinGroup`` -> 11); ``KeyError`` for a name no schema has."""
    for key, api in apis().items():
        if api.name == name:
            return key
    raise KeyError(f"no API named {name!r}")


def request_header_version(api_key: int, api_version: int) -> int:
    """2 for a flexible API version, else 1 (wire-facts §7)."""
    return 2 if api_version >= api_for(api_key).flexible_from else 1


def response_header_version(api_key: int, api_version: int) -> int:
    """1 for a flexible API version, else 0; ApiVersions always 0 (wire-facts §7)."""
    api = api_for(api_key)
    if api.response_header_fixed is not None:
        return api.response_header_fixed
    return 1 if api_version >= api.flexible_from else 0


# --- coordinator records --------------------------------------------------------------------------------------

#: Each coordinator that writes records -> the topic it writes them to: the group coordinator's
#: ``__consumer_offsets`` (``GroupCoordinatorRecordSerde``) and the share coordinator's ``__share_group_state``
#: (``ShareCoordinatorRecordSerde``). A record type is a number within its coordinator: the share coordinator's
#: ShareSnapshot (0) and ShareUpdate (1) are not the classic OffsetCommit keys 0 and 1. A record schema names its
#: coordinator with ``"coordinator"`` (``group`` when it does not).
COORDINATORS = {"group": "__consumer_offsets", "share": "__share_group_state"}


class Record:
    """A coordinator record type: ``type`` (the int16 before its key), ``name`` (``<name>Key`` and ``<name>Value``
    are its schemas), ``key_version`` (the key schema's version: 0 for Kafka 4's records, the type itself for the
    classic ones, whose key version is their type) and ``coordinator`` (``group`` or ``share``, whose
    :data:`COORDINATORS` topic holds it: ``topic``)."""

    __slots__ = ("type", "name", "key_version", "coordinator")

    def __init__(self, type: int, name: str, key_version: int, coordinator: str = "group") -> None:
        self.type, self.name, self.key_version, self.coordinator = type, name, key_version, coordinator

    @property
    def key(self) -> str:
        return self.name + "Key"

    @property
    def value(self) -> str:
        return self.name + "Value"

    @property
    def topic(self) -> str:
        return COORDINATORS[self.coordinator]

    @property
    def classic(self) -> bool:
        return self.key_version == self.type and head(self.key).record_type == "version"

    def __repr__(self) -> str:
        extra = "" if self.coordinator == "group" else f", coordinator={self.coordinator!r}"
        return f"Record({self.type}, {self.name!r}, key_version={self.key_version}{extra})"


_RECORDS: dict[str, dict[int, Record]] = {}


def record_types(coordinator: str = "group") -> dict[int, Record]:
    """Every record type of a coordinator (:data:`COORDINATORS`; the group coordinator's ``__consumer_offsets`` by
    default) -> its :class:`Record` (sorted by type): each of its ``coordinator-key`` schemas' ``apiKey``, and each
    version of a key whose ``recordType`` is ``version`` (the classic OffsetCommit 0 and 1, GroupMetadata 2). Two
    records of one type in one coordinator are refused (``ValueError``): neither shadows the other."""
    if not _RECORDS:
        tables: dict[str, dict[int, Record]] = {c: {} for c in COORDINATORS}

        def put(r: Record) -> None:
            if r.coordinator not in tables:
                raise ValueError(f"{r.key}: no coordinator {r.coordinator!r} (known: {', '.join(COORDINATORS)})")
            other = tables[r.coordinator].get(r.type)
            if other is not None:
                raise ValueError(
                    f"{r.key} and {other.key} are both record type {r.type} of the {r.coordinator} coordinator"
                )
            tables[r.coordinator][r.type] = r

        for n in message_names():
            if not n.endswith("Key"):
                continue
            h = head(n)
            name = n.removesuffix("Key")
            if h.type == "coordinator-key" and h.api_key is not None:
                put(Record(h.api_key, name, h.valid.low, h.coordinator))
            elif h.record_type == "version":
                for v in range(h.valid.low, h.valid.high + 1):
                    put(Record(v, name, v, h.coordinator))
        _RECORDS.update({c: dict(sorted(table.items())) for c, table in tables.items()})
    try:
        return _RECORDS[coordinator]
    except KeyError:
        raise ValueError(f"no coordinator {coordinator!r} (known: {', '.join(COORDINATORS)})") from None


def records(coordinator: str = "group") -> dict[str, tuple[int, ...]]:
    """Every record name of a coordinator -> its record types, the one Kafka's coordinator writes first (the highest:
    it writes OffsetCommit keys as type 1 and reads 0 too)."""
    out: dict[str, list[int]] = {}
    for t, r in record_types(coordinator).items():
        out.setdefault(r.name, []).append(t)
    return {name: tuple(sorted(types, reverse=True)) for name, types in out.items()}


def record_of(name: str) -> Record | None:
    """The :class:`Record` of a record name (``ShareSnapshot``, also ``...Key``/``...Value``) in whichever
    coordinator writes it (the type Kafka writes first, for a record with two), or None. Record names are unique
    across coordinators (a name is a schema file)."""
    for coordinator in COORDINATORS:
        table = records(coordinator)
        for base in (name, name.removesuffix("Key"), name.removesuffix("Value")):
            if base in table and (base == name or name in (base + "Key", base + "Value")):
                return record_types(coordinator)[table[base][0]]
    return None


def record_for(name: str) -> tuple[int, ...] | None:
    """The record types of a record name (``ConsumerGroupMetadata``, also ``...Key``/``...Value``) within its
    coordinator (:func:`record_of`), or None."""
    r = record_of(name)
    return None if r is None else records(r.coordinator)[r.name]


# --- error names ----------------------------------------------------------------------------------------------


def error_names() -> dict[int, str]:
    """Kafka's error code -> name (:mod:`codec.wire.error_codes`)."""
    from .error_codes import ERROR_NAMES

    return ERROR_NAMES


def error_name(code: int | None) -> str | None:
    """Kafka's name of an error code (``27`` -> ``REBALANCE_IN_PROGRESS``), or None for a code Kafka has not named."""
    return error_names().get(code) if type(code) is int else None


def error_code(name: str) -> int:
    """The code of Kafka's error ``name`` (``UNKNOWN_MEMBER_ID`` -> 25); ``KeyError`` for a name Kafka has not."""
    for code, known in error_names().items():
        if known == name:
            return code
    raise KeyError(f"no Kafka error named {name!r}")


# --- releases -------------------------------------------------------------------------------------------------

#: Kafka's feature releases in order (``major.minor``; the name every release table here uses).
KAFKA_RELEASES = (
    "0.8.2",
    "0.9.0",
    "0.10.0",
    "0.10.1",
    "0.10.2",
    "0.11.0",
    "1.0",
    "1.1",
    *(f"2.{i}" for i in range(9)),
    *(f"3.{i}" for i in range(10)),
    *(f"4.{i}" for i in range(5)),
)
_HISTORY = re.compile(r"v(\d+) \((\d+\.\d+(?:\.\d+)?)")


def first_release(message: str) -> dict[int, str]:
    """Version -> the Kafka release that first wrote it, from the schema's ``history`` (``"v7 (2.6): ..."``);
    versions the history names no release for are left out."""
    out: dict[int, str] = {}
    for entry in head(message).history:
        m = _HISTORY.match(entry)
        if m:
            out[int(m.group(1))] = m.group(2)
    return out


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(int(x) for x in release.split("."))


def latest_by_release(message: str) -> dict[str, int]:
    """Each Kafka release the schema follows (its ``releases`` range, over :data:`KAFKA_RELEASES`) -> the newest
    version of the message that release writes (the highest version whose first release is not later)."""
    h = head(message)
    if not h.releases:
        raise ValueError(f"{message}: its schema names no range of releases")
    first, _, last = h.releases.partition("-")
    lo, hi = _release_key(first), _release_key(last or first)
    firsts = sorted((_release_key(r), v) for v, r in first_release(message).items())
    out: dict[str, int] = {}
    for release in KAFKA_RELEASES:
        key = _release_key(release)
        if lo <= key <= hi:
            known = [v for k, v in firsts if k <= key]
            if known:
                out[release] = max(known)
    return out


# --- caches ---------------------------------------------------------------------------------------------------


@on_schema_change
def _forget() -> None:
    _KINDS.clear()
    _HEADS.clear()
    _APIS.clear()
    _RECORDS.clear()


def _iter_heads() -> Iterator[Head]:  # (for tests and tools)
    return (head(n) for n in message_names())
