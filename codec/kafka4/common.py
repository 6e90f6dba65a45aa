"""The names of Kafka 4's group RPCs and ``__consumer_offsets`` records, and the kind names of both, as
:mod:`codec.wire.registry` derives them from ``schemas/`` (nothing here is kept by hand).

The RPCs (KIP-848 consumer groups, KIP-1071 Streams groups, KIP-932 share groups) are the request and response
schemas whose every version is flexible; the records are the coordinator records (each ``coordinator-key`` file's
``apiKey`` is its record type) and the classic group's (whose key version is their type). A CLI kind name is the
message name in kebab case: ``ConsumerGroupHeartbeatRequest`` is ``consumer-group-heartbeat-request``; a record
part is ``<record>-key`` or ``<record>-value``, e.g. ``consumer-group-member-metadata-value``.
"""

from __future__ import annotations

from ..errors import DecodeError, EncodeError
from ..wire import registry
from ..wire.registry import kind_name

__all__ = [
    "API_KEYS",
    "CLASSIC_KIND_NAMES",
    "CLASSIC_RECORDS",
    "CLASSIC_RECORD_TYPES",
    "KIND_NAMES",
    "MESSAGES",
    "RECORDS",
    "RECORD_TYPES",
    "SHARE_RECORD_TYPES",
    "kind_name",
    "message_for",
    "record_type_of",
]


def _kafka4_apis() -> list[registry.Api]:
    """Kafka 4's group APIs: those whose request and response are flexible at every version."""
    out = []
    for api in registry.apis().values():
        if api.request is None or api.response is None:
            continue
        if all(
            not registry.head(m).flexible.empty and registry.head(m).valid.low >= registry.head(m).flexible.low
            for m in (api.request, api.response)
        ):  # (a never-flexible API, OffsetDelete's "none", is the empty range 0..-1: not flexible from 0)
            out.append(api)
    return out


#: The RPC bodies: message name -> (API key, "request"/"response").
MESSAGES: dict[str, tuple[int, str]] = {
    m: (api.key, side)
    for api in _kafka4_apis()
    for m, side in ((api.request, "request"), (api.response, "response"))
    if m is not None
}
#: API key -> API name.
API_KEYS: dict[int, str] = {api.key: api.name for api in _kafka4_apis()}
_RECORDS = registry.record_types()
#: Coordinator record types of consumer, Streams and share groups (the int16 before a record key; the key schemas'
#: ``apiKey``) -> record name (schemas ``<name>Key``/``<name>Value``). Type 18 (StreamsGroupPartitionMetadata) is not
#: here: only trunk builds before 4.1 wrote it, and released Kafka, knowing no type 18, skips it as unknown.
RECORD_TYPES: dict[int, str] = {t: r.name for t, r in _RECORDS.items() if not r.classic}
#: Share groups' records (KIP-932). Type 9 is Kafka 4.0's early-access partition metadata.
SHARE_RECORD_TYPES: dict[int, str] = {t: n for t, n in RECORD_TYPES.items() if n.startswith("ShareGroup")}
#: The classic group's records, read with the older schemas: the key version is the record type.
CLASSIC_RECORD_TYPES: dict[int, str] = {t: r.name for t, r in _RECORDS.items() if r.classic}
#: The classic records -> their record types, the one Kafka's coordinator writes first.
CLASSIC_RECORDS: dict[str, tuple[int, ...]] = {
    name: types for name, types in registry.records().items() if name in CLASSIC_RECORD_TYPES.values()
}
#: Every record name read here -> its type.
RECORDS: dict[str, int] = {name: t for t, name in RECORD_TYPES.items()}

#: Every message (RPC body, record key or value) -> its CLI kind.
KIND_NAMES: dict[str, str] = {m: kind_name(m) for m in MESSAGES}
KIND_NAMES.update({r + part: kind_name(r + part) for r in RECORDS for part in ("Key", "Value")})
_BY_KIND: dict[str, str] = {k: m for m, k in KIND_NAMES.items()}
#: The classic records' parts -> their CLI kinds (``offset-commit-key``, ..., ``group-metadata-value``).
CLASSIC_KIND_NAMES: dict[str, str] = {
    r + part: kind_name(r + part) for r in CLASSIC_RECORDS for part in ("Key", "Value")
}


def message_for(kind: str, *, error=DecodeError) -> str:
    """The schema name for a kind given as a message name (``ConsumerGroupHeartbeatRequest``, also a record
    part such as ``ConsumerGroupMetadataValue``) or a CLI kind name (``consumer-group-heartbeat-request``)."""
    if kind in MESSAGES or (
        isinstance(kind, str)
        and kind.endswith(("Key", "Value"))
        and kind.removesuffix("Key").removesuffix("Value") in RECORDS
    ):
        return kind
    try:
        return _BY_KIND[kind]
    except (KeyError, TypeError):
        known = ", ".join(kind_name(m) for m in MESSAGES)
        raise error(
            f"not a Kafka 4 group message: {str(kind)[:80]!r} (known: {known}, and the record "
            f"kinds <record>-key/-value)",
            message="kafka4",
        ) from None


def record_type_of(name: str, *, error=EncodeError) -> int:
    """The record type of a record name (``ConsumerGroupMetadata`` -> 3; ``Key``/``Value`` suffix allowed)."""
    base = name.removesuffix("Key").removesuffix("Value") if name not in RECORDS else name
    try:
        return RECORDS[base]
    except KeyError:
        raise error(f"not a consumer, Streams or share group record: {name[:80]!r}", message="record") from None
