"""Kafka 4's command-line kinds (registered into :mod:`codec.kinds` as a plugin).

* the twelve RPC bodies, e.g. ``consumer-group-heartbeat-request`` (``--version`` required; bodies only:
  whole frames are ``request-frame``/``response-frame``, which know API keys 68, 69, 76, 77, 88 and 89);
* each ``__consumer_offsets`` record's two parts: ``<record>-key`` (the int16 record type, which must be the
  record's, then the key) and ``<record>-value`` (the int16 value version, then the value; JSON
  ``{"valueVersion": N, ...fields}``, as :func:`codec.kafka4.decode_record` names it, since a value may have a
  field named ``version``; ``--version`` overrides the JSON's), e.g.
  ``consumer-group-member-metadata-key`` / ``-value``;
* the classic group's records in the same shape: ``offset-commit-key``/``-value`` and
  ``group-metadata-key``/``-value``. Their key's version is its record type (0 or 1 an OffsetCommitKey, 2 a
  GroupMetadataKey), so ``--version`` of a key kind is the key's version: which of the record's types to write
  (default: the one Kafka's coordinator writes, 1 and 2), and decode notes a prefix that differs from it; a Kafka 4
  key has version 0. Their values have versions 0-4 (flexible from 4).
* ``group-record-key``: the key of any consumer, Streams, share or classic group record, whatever its type
  (``{"recordType", "record", "key"}``).

The classic records' kinds live here, not in :mod:`codec.group`, because a record's framing (int16 type or version,
then the part) is one for every group type and is :mod:`codec.kafka4.records`' (which reads types 0-23), and
:mod:`codec.group` sits below this package (this package imports it, never the reverse). None of the record kinds is
a ``--kind auto`` candidate: a record part is named by where it was read from, not guessed from its bytes.

``--style kafka`` is Kafka's JSON (camelCase); ``native`` is snake_case.
"""

from __future__ import annotations

import struct

from ..errors import DecodeError, EncodeError, TruncatedError, UnsupportedVersionError
from ..kinds import Decoded, Kind, register
from ..wire.builder import decode_wire
from ..wire.schema import load_message
from .body import body_from_json, body_json, decode_body, encode_model
from .common import CLASSIC_RECORDS, MESSAGES, RECORD_TYPES, kind_name
from .pretty import pretty_message, pretty_record
from .records import (
    decode_record_key,
    encode_record,
    encode_record_key,
    encode_record_value,
    record_schemas,
)

__all__: list[str] = []


def _trailing(name: str, version: int, consumed: int, trailing: int) -> tuple[str, ...]:
    if not trailing:
        return ()
    return (f"{name} v{version}: {trailing} trailing bytes after offset {consumed} ignored (Kafka ignores them too)",)


def _body_kind(name: str) -> Kind:
    def decode(data: bytes, *, style: str = "kafka", version: int | None = None, **_) -> Decoded:
        if version is None:
            raise DecodeError(f"{name} needs --version", message=name)
        d = decode_body(name, version, data)
        return Decoded(
            body_json(name, version, d.value, style),
            pretty_message(name, version, d.value, size=len(data), trailing=d.trailing),
            _trailing(name, version, d.consumed, d.trailing),
            {"offset": d.consumed, "bytes": d.trailing} if d.trailing else None,
        )

    def encode(value: dict, *, style: str = "kafka", version: int | None = None, **_) -> bytes:
        if version is None:
            raise EncodeError(f"{name} needs --version", message=name)
        if isinstance(value.get("trailing"), dict) and set(value["trailing"]) == {"offset", "bytes"}:
            value = {k: x for k, x in value.items() if k != "trailing"}  # decode's report, not a field
        return encode_model(name, version, body_from_json(name, version, value, style))

    api_key, _ = MESSAGES[name]
    valid = load_message(name).valid
    return Kind(
        kind_name(name),
        f"Kafka {name} body (API key {api_key}, v{valid}; --version required)",
        decode,
        encode,
        self_describing=False,
    )


def _prefix(data: bytes, what: str, path: str) -> int:
    if len(data) < 2:
        raise TruncatedError(f"truncated (need 2, have {len(data)})", message=what, offset=0, path=path)
    return struct.unpack_from(">h", data)[0]


def _key_kind(record: str, types: tuple[int, ...]) -> Kind:
    """The key of a record whose record types are ``types`` (one, but the classic OffsetCommit's 1 and 0); the key
    version of each is :func:`record_schemas`' (0 from Kafka 4, the type itself for a classic record)."""
    schema = record + "Key"
    versions = {record_schemas(t)[2]: t for t in types}
    shown = " or ".join(map(str, types))

    def decode(data: bytes, *, style: str = "kafka", version: int | None = None, **_) -> Decoded:
        data = bytes(data)
        got = _prefix(data, schema, "record_type")
        if got not in types:
            other = RECORD_TYPES.get(got, "another record")
            raise DecodeError(
                f"record type {got} ({other}), not {shown} ({record})", message=schema, offset=0, path="record_type"
            )
        kver = record_schemas(got)[2]
        notes: tuple[str, ...] = ()
        if version is not None and version != kver:
            notes = (f"{schema}: the record type says v{kver} (not --version {version}); read as written",)
        model, end = decode_wire(schema, kver, data, start=2)
        return Decoded(
            body_json(schema, kver, model, style),
            pretty_record(record, got, schema, model, None, None, None, key_version=kver),
            notes + _trailing(schema, kver, end, len(data) - end),
            {"offset": end, "bytes": len(data) - end} if end < len(data) else None,
        )

    def encode(value: dict, *, style: str = "kafka", version: int | None = None, **_) -> bytes:
        if isinstance(value.get("trailing"), dict):
            value = {k: x for k, x in value.items() if k != "trailing"}
        if version is not None and version not in versions:
            raise EncodeError(
                f"no version {version} (valid {', '.join(map(str, sorted(versions)))})", message=schema, path="version"
            )
        return encode_record_key(types[0] if version is None else versions[version], value, style=style)

    return Kind(
        kind_name(schema),
        f"__consumer_offsets key of a {record} record (int16 type {shown}, then the key)",
        decode,
        encode,
    )


def _value_kind(rtype: int, record: str) -> Kind:
    schema = record + "Value"

    def decode(data: bytes, *, style: str = "kafka", version: int | None = None, **_) -> Decoded:
        data = bytes(data)
        v = _prefix(data, schema, "version")
        valid = load_message(schema).valid
        if v not in valid:
            raise UnsupportedVersionError(f"no version {v} (valid {valid})", message=schema, offset=0, path="version")
        notes: tuple[str, ...] = ()
        if version is not None and version != v:
            notes = (f"{schema}: the version prefix says v{v} (not --version {version}); read as written",)
        model, end = decode_wire(schema, v, data, start=2)
        return Decoded(
            {"valueVersion" if style == "kafka" else "value_version": v, **body_json(schema, v, model, style)},
            pretty_record(record, rtype, None, None, schema, v, model),
            notes + _trailing(schema, v, end, len(data) - end),
            {"offset": end, "bytes": len(data) - end} if end < len(data) else None,
        )

    def encode(value: dict, *, style: str = "kafka", version: int | None = None, **_) -> bytes:
        value = dict(value)
        given = value.pop("valueVersion", value.pop("value_version", None))
        if isinstance(value.get("trailing"), dict):
            value.pop("trailing")
        if version is None:
            if given is not None and type(given) is not int:
                raise EncodeError(
                    f"valueVersion must be an integer, got {given!r}"[:100], message=schema, path="value_version"
                )
            version = given
        out = encode_record_value(rtype, version, value, style=style)
        assert out is not None  # a value given (a JSON object) is never a tombstone
        return out

    return Kind(
        kind_name(schema),
        f"__consumer_offsets value of a {record} record (int16 version, then the value)",
        decode,
        encode,
    )


def _decode_any_key(data: bytes, *, style: str = "kafka", **_) -> Decoded:
    d = decode_record_key(data, style=style)
    rtype = d["recordType" if style == "kafka" else "record_type"]
    name, schema, kver, _value_schema = record_schemas(rtype)
    model, end = decode_wire(schema, kver, bytes(data), start=2)
    notes = _trailing(schema, kver, end, len(data) - end)
    trailing = d.pop("trailing", None)
    return Decoded(d, pretty_record(name, rtype, schema, model, None, None, None, key_version=kver), notes, trailing)


def _encode_any_key(value: dict, *, style: str = "kafka", **_) -> bytes:
    value = {k: x for k, x in value.items() if k not in ("trailing",)}
    if "value" in value or "valueVersion" in value or "value_version" in value:
        raise EncodeError("group-record-key encodes a key only (recordType or record, and key)", message="record key")
    key, _value = encode_record(value, style=style)
    return key


def _register_all() -> None:
    for name in MESSAGES:
        register(_body_kind(name))
    for rtype, record in RECORD_TYPES.items():
        register(_key_kind(record, (rtype,)))
        register(_value_kind(rtype, record))
    for record, types in CLASSIC_RECORDS.items():
        register(_key_kind(record, types))
        register(_value_kind(types[0], record))
    register(
        Kind(
            "group-record-key",
            "__consumer_offsets key of any group record (int16 record type, then the key; "
            "consumer groups 3-8, 16, share groups 9-15, Streams groups 17, 19-23, classic 0-2)",
            _decode_any_key,
            _encode_any_key,
        )
    )


_register_all()
