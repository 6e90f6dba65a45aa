"""kio's values in Kafka's JSON shape: Kafka 4's group RPCs (``../shared/vectors/kio/group-kafka4.jsonl``, and the
share groups' ``group-share.jsonl``) and the classic Heartbeat and LeaveGroup records this project has kio write
(:mod:`codec.conformance.kio_import`).

kio (an independent implementation generated from Kafka's message JSON) writes its values with snake_case
names, durations without their ``Ms`` (``rebalance_timeout`` is Kafka's ``rebalanceTimeoutMs``), UUIDs as
dashed strings and the zero UUID as null (kio's ``None`` for Kafka's ``Uuid.ZERO_UUID``), booleans as 0 and
1, bytes as hex.
:func:`kio_to_kafka` walks the message's schema table (``schemas/``, the release named there) field by field
and gives Kafka's JSON: camelCase names, UUIDs as Kafka's ``Uuid`` strings, bytes base64. It never calls this
project's decoder. What does not fit the release's JSON (a field only one side has, a null Kafka's field does
not allow, a value outside Kafka's type) is listed as a problem: the release wins, and the vector is flagged.
"""

from __future__ import annotations

import base64
import uuid

from ..wire.schema import FieldSpec, StructSpec, load_message, snake

__all__ = ["kio_name", "kio_to_kafka"]

_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint16": (0, 2**16 - 1),
}


def kio_name(f: FieldSpec, value: dict) -> str:
    """kio's key for ``f`` in ``value``: the snake-case name, else without ``_ms``, else without ``_legacy`` (Kafka
    4.4 renamed StreamsGroupHeartbeatResponse v0's int32 ``AcceptableRecoveryLag`` to
    ``AcceptableRecoveryLagLegacy`` when v1 gave the name to an int64; kio 0.6.5 is generated from the older JSON).
    """
    name = snake(f.name)
    if name in value:
        return name
    if name.endswith("_legacy") and name.removesuffix("_legacy") in value:
        return name.removesuffix("_legacy")
    return name.removesuffix("_ms")


def _kafka_uuid(u: uuid.UUID) -> str:
    return base64.urlsafe_b64encode(u.bytes).rstrip(b"=").decode("ascii")


def _scalar(v, f: FieldSpec, where: str, problems: list[str]):
    t = f.element_type
    if t in _RANGES:
        lo, hi = _RANGES[t]
        if not (isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi):
            problems.append(f"{where}: {v!r} is not a Kafka {t}"[:200])
        return v
    if t == "bool":  # kio's plain JSON writes booleans as 0 and 1
        if isinstance(v, bool):
            return v
        if type(v) is int and v in (0, 1):
            return v == 1
        problems.append(f"{where}: {v!r} is not a bool"[:200])
        return v
    if t == "uuid":
        if v is None:  # kio's None is the zero UUID's bytes
            return _kafka_uuid(uuid.UUID(int=0))
        try:
            return _kafka_uuid(uuid.UUID(v))
        except (TypeError, ValueError, AttributeError):
            problems.append(f"{where}: {v!r} is not a UUID"[:200])
            return v
    if t == "bytes":
        try:
            return base64.b64encode(bytes.fromhex(v)).decode("ascii")
        except (TypeError, ValueError):
            problems.append(f"{where}: {v!r} is not hex bytes"[:200])
            return v
    if t == "string" and not isinstance(v, str):
        problems.append(f"{where}: {v!r} is not a string"[:200])
    return v


def _struct(value, spec: StructSpec, version: int, path: str, problems: list[str]) -> dict:
    if not isinstance(value, dict):
        problems.append(f"{path or '(message)'}: {type(value).__name__}, not a struct")
        return {}
    out: dict = {}
    known = set()
    for f in spec.fields:
        tagged = f.tag is not None and f.tagged_versions is not None and version in f.tagged_versions
        if not (tagged or (f.tag is None and version in f.versions)):
            continue
        key = kio_name(f, value)
        where = f"{path}.{f.json_name}" if path else f.json_name
        if key not in value:
            problems.append(f"{where}: missing in kio's value")
            continue
        known.add(key)
        v = value[key]
        if v is None and f.element_type != "uuid":
            if version not in f.nullable:
                problems.append(f"{where}: null, but Kafka's field is not nullable at v{version}")
            out[f.json_name] = None
        elif f.is_array:
            if not isinstance(v, list):
                problems.append(f"{where}: not a list")
                out[f.json_name] = v
                continue
            out[f.json_name] = [
                _struct(x, f.struct, version, f"{where}[{i}]", problems)
                if f.struct is not None
                else _scalar(x, f, f"{where}[{i}]", problems)
                for i, x in enumerate(v)
            ]
        elif f.struct is not None:
            out[f.json_name] = _struct(v, f.struct, version, where, problems)
        else:
            out[f.json_name] = _scalar(v, f, where, problems)
    for extra in sorted(set(value) - known):
        problems.append(f"{path + '.' if path else ''}{extra}: kio has a field the release's JSON lacks at v{version}")
    return out


def kio_to_kafka(message: str, version: int, decoded: dict) -> tuple[dict, list[str]]:
    """(Kafka's JSON of kio's value, the problems found on the way: empty when kio and the release agree)."""
    problems: list[str] = []
    spec = load_message(message)
    return _struct(decoded, spec.root, version, "", problems), problems
