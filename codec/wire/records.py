"""``__consumer_offsets`` records of every group type — the classic group, consumer groups (KIP-848), Streams groups
(KIP-1071) and share groups (KIP-932) — as the group coordinator writes them (``CoordinatorRecordSerde``/``GroupCoordinatorRecordSerde``;
schemas/README.md):

* key   = int16 record type, then the key message (non-flexible, version 0) of that type;
* value = int16 value version, then the value message (flexible) at that version; a null value is a
  tombstone (the member, assignment or group was deleted).

The record types are the schemas' (:func:`codec.wire.registry.record_types`): each ``coordinator-key`` file's
``apiKey``; the classic OffsetCommit (0, 1) and GroupMetadata (2), whose key version is their type, are read with
their own schemas at that version. The share coordinator writes its records (ShareSnapshot, ShareUpdate) the same way to
``__share_group_state``, with record types of its own (0 and 1, which are not OffsetCommit's): every function here takes
``coordinator="share"`` for them (``group``, the default, is ``__consumer_offsets``; :data:`codec.wire.registry.
COORDINATORS`).
"""

from __future__ import annotations

import struct

from ..errors import DecodeError, EncodeError, TruncatedError, UnsupportedVersionError
from . import registry
from .builder import decode_wire, encode_wire
from .message import from_json, to_json
from .schema import load_message

__all__ = [
    "decode_record",
    "decode_record_key",
    "decode_record_value",
    "encode_record",
    "encode_record_key",
    "encode_record_value",
    "record_schemas",
]


def _k(name: str, style: str) -> str:
    """A record's own key in ``style`` (``recordType`` / ``record_type``)."""
    if style == "kafka":
        return name
    return {"recordType": "record_type", "valueVersion": "value_version"}.get(name, name)


def record_schemas(record_type: int, *, error=DecodeError, coordinator: str = "group") -> tuple[str, str, int, str]:
    """(record name, key schema, key schema version, value schema) of a record type of ``coordinator``
    (:func:`codec.wire.registry.record_types`: ``group``, ``__consumer_offsets``, or ``share``,
    ``__share_group_state``)."""
    table = registry.record_types(coordinator)
    record = table.get(record_type) if type(record_type) is int else None
    if record is None:
        raise error(
            f"unknown {'' if coordinator == 'group' else coordinator + ' '}coordinator record type {record_type} "
            f"(known: {_ranges(table)})",
            message="record key",
            **({"offset": 0} if error is DecodeError else {}),
        )
    return record.name, record.key, record.key_version, record.value


def _ranges(table) -> str:
    """``0-17, 19-23`` of the record types known."""
    out: list[list[int]] = []
    for t in table:
        if out and out[-1][1] == t - 1:
            out[-1][1] = t
        else:
            out.append([t, t])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in out)


def _prefix(data: bytes, what: str) -> int:
    if len(data) < 2:
        raise TruncatedError(
            f"truncated (need 2, have {len(data)})",
            message=what,
            offset=0,
            path="record_type" if what == "record key" else "version",
        )
    return struct.unpack_from(">h", data)[0]


def _trailing(end: int, total: int) -> dict | None:
    return {"offset": end, "bytes": total - end} if end < total else None


def decode_record_key(key: bytes, *, style: str = "kafka", coordinator: str = "group") -> dict:
    """``{"recordType", "record", "key"}`` (and ``"trailing"`` when bytes follow the key) of a ``coordinator``'s
    record key."""
    key = bytes(key)
    rtype = _prefix(key, "record key")
    name, schema, kver, _ = record_schemas(rtype, coordinator=coordinator)
    model, end = decode_wire(schema, kver, key, start=2)
    out = {_k("recordType", style): rtype, "record": name, "key": to_json(schema, kver, model, style)}
    t = _trailing(end, len(key))
    if t:
        out["trailing"] = t
    return out


def decode_record_value(
    record_type: int, value: bytes | None, *, style: str = "kafka", coordinator: str = "group"
) -> dict:
    """``{"valueVersion", "value"}`` of a record of ``record_type`` (of ``coordinator``); a None value is a
    tombstone: ``{"valueVersion": None, "value": None}``."""
    _, _, _, schema = record_schemas(record_type, coordinator=coordinator)
    if value is None:
        return {_k("valueVersion", style): None, "value": None}
    value = bytes(value)
    version = _prefix(value, schema)
    valid = load_message(schema).valid
    if version not in valid:
        raise UnsupportedVersionError(f"no version {version} (valid {valid})", message=schema, offset=0, path="version")
    model, end = decode_wire(schema, version, value, start=2)
    out = {_k("valueVersion", style): version, "value": to_json(schema, version, model, style)}
    t = _trailing(end, len(value))
    if t:
        out["trailing"] = t
    return out


def decode_record(key: bytes, value: bytes | None, *, style: str = "kafka", coordinator: str = "group") -> dict:
    """One ``__consumer_offsets`` record (see :func:`codec.kafka4.decode_record`), or with ``coordinator="share"``
    one ``__share_group_state`` record."""
    k = decode_record_key(key, style=style, coordinator=coordinator)
    try:
        v = decode_record_value(k[_k("recordType", style)], value, style=style, coordinator=coordinator)
    except DecodeError as e:
        raise e.with_context(path_prefix="value") if not e.path.startswith("value") else e
    out = {
        _k("recordType", style): k[_k("recordType", style)],
        "record": k["record"],
        "key": k["key"],
        _k("valueVersion", style): v[_k("valueVersion", style)],
        "value": v["value"],
    }
    trailing = {}
    if "trailing" in k:
        trailing["key"] = k["trailing"]
    if "trailing" in v:
        trailing["value"] = v["trailing"]
    if trailing:
        out["trailing"] = trailing
    return out


def _get(d: dict, *names):
    for n in names:
        if n in d:
            return d[n]
    return None


def _record_type(record: dict, coordinator: str = "group") -> int:
    rtype = _get(record, "recordType", "record_type")
    name = record.get("record")
    if rtype is None and name is None:
        raise EncodeError("a record needs recordType or record (its name)", message="record")
    if rtype is not None and (type(rtype) is not int or not -(1 << 15) <= rtype < (1 << 15)):
        raise EncodeError(f"recordType must be an int16, got {rtype!r}"[:120], message="record", path="record_type")
    if name is not None:
        types = registry.records(coordinator).get(name) if isinstance(name, str) else None
        if types is None:
            raise EncodeError(
                f"unknown record {str(name)[:60]!r} (known: {', '.join(registry.records(coordinator))})",
                message="record",
                path="record",
            )
        if rtype is None:
            if len(types) > 1:
                raise EncodeError(
                    f"an {name} record needs its recordType ({' or '.join(map(str, sorted(types)))})",
                    message="record",
                    path="record_type",
                )
            rtype = types[0]
        elif record_schemas(rtype, error=EncodeError, coordinator=coordinator)[0] != name:
            raise EncodeError(f"record {name} is not record type {rtype}", message="record", path="record")
    return rtype


def encode_record_key(record_type: int, key: dict, *, style: str = "kafka", coordinator: str = "group") -> bytes:
    _, schema, kver, _ = record_schemas(record_type, error=EncodeError, coordinator=coordinator)
    model = from_json(schema, kver, key if key is not None else {}, style)
    return struct.pack(">h", record_type) + encode_wire(schema, kver, model)


def encode_record_value(
    record_type: int, version: int | None, value: dict | None, *, style: str = "kafka", coordinator: str = "group"
) -> bytes | None:
    if value is None:
        return None
    _, _, _, schema = record_schemas(record_type, error=EncodeError, coordinator=coordinator)
    valid = load_message(schema).valid
    if version is None:
        if valid.low != valid.high:
            raise EncodeError(f"{schema} needs its valueVersion (valid {valid})", message=schema, path="value_version")
        version = valid.low
    if type(version) is not int or version not in valid:
        raise EncodeError(f"no version {version!r} (valid {valid})"[:120], message=schema, path="value_version")
    model = from_json(schema, version, value, style)
    return struct.pack(">h", version) + encode_wire(schema, version, model)


_RECORD_KEYS = {"recordType", "record_type", "record", "key", "valueVersion", "value_version", "value", "trailing"}


def encode_record(record: dict, *, style: str = "kafka", coordinator: str = "group") -> tuple[bytes, bytes | None]:
    """The (key, value) bytes of a record's JSON (a ``coordinator``'s record); ``value`` None (a tombstone) gives a
    None value."""
    if not isinstance(record, dict):
        raise EncodeError("a record needs a JSON object", message="record")
    unknown = sorted(k for k in record if k not in _RECORD_KEYS)
    if unknown:
        raise EncodeError(
            f"a record has no key {unknown[0][:60]!r} (its keys: recordType, record, key, valueVersion, value)",
            message="record",
            path=unknown[0][:60],
        )
    rtype = _record_type(record, coordinator)
    key = encode_record_key(rtype, record.get("key") or {}, style=style, coordinator=coordinator)
    try:
        value = encode_record_value(
            rtype,
            _get(record, "valueVersion", "value_version"),
            record.get("value"),
            style=style,
            coordinator=coordinator,
        )
    except EncodeError as e:
        raise EncodeError(
            e.reason, message=e.message, version=e.version, path="value" + ("." + e.path if e.path else "")
        ) from None
    return key, value
