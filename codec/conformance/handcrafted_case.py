"""A rule case of :mod:`codec.conformance.handcrafted_rules`: the commits whose Kafka classes judge it, its binding
to Kafka's class (:func:`binding`), the :class:`Case` itself, and the values and the codec's bytes the cases are built
from (the codec's bytes build cases only; Kafka's classes judge them)."""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import text as _text
from ..wire.schema import (
    FieldSpec,
    StructSpec,
    load_message,
    raw_message,
    schema_overrides,
)
from ..wire.registry import head
from .coverage import CLASSIC_RECORDS, FRAME_APIS
from .mutation import with_field

__all__ = [
    "ANSWERS",
    "CLASSIC_COMMIT",
    "KAFKA4_COMMIT",
    "KAFKA44_COMMIT",
    "RULES_FILE",
    "SHARE_COMMIT",
    "RuleError",
    "Binding",
    "binding",
    "binding_or_none",
    "Case",
]

RULES_FILE = "kafka-java-rules.jsonl"
ANSWERS = Path("tools") / "kafka-rules.answers.jsonl"  # inside vectors/
# Kafka's classes that judge the cases: the classic group messages, headers and ConsumerProtocol as generated at
# the commit of ../shared/vectors/kafka-java (the classes that wrote kafka-java-*.jsonl); Kafka 4's RPCs and every
# group's __consumer_offsets records, the classic group's included, at the commit schemas/README.md follows for them
CLASSIC_COMMIT = "1eb7644349cb07139d6a3c1ad1986979647cac99"
KAFKA4_COMMIT = "26b251a451ce941d3d7a55e6487bcb7f16b5ad48"
# the messages whose tables follow Kafka's 4.4 branch (8d3916cfe1, apache 87943b2ff8; schemas/README.md), judged by
# the classes generated there: every schema whose head says so ("follows": "4.4"; read when a case is bound, so a
# schema file added or overridden counts) -- Streams heartbeat's and describe's v1 (KIP-1331),
# StreamsGroupTopologyDescriptionUpdate (API 93), the RPCs around the group added at 4.4 (the admin RPCs, the share
# groups' data and state RPCs), the record values Kafka 4.4 wrote the vectors of, the share coordinator's records.
# The commit is the 4.4 row of vectors/releases/kafka-versions.json (a test holds them equal).
KAFKA44_COMMIT = "8d3916cfe15f13a2d878c79d302ba2d63172f0af"
_FOLLOWS_44 = "4.4"
# KIP-932's share groups at the release their tables follow (Kafka 4.1.0)
SHARE_COMMIT = "13f70256db3c994c590e5d262a7cc50b9e973204"
_CLASSIC = {
    "RequestHeader",
    "ResponseHeader",
    "ConsumerProtocolSubscription",
    "ConsumerProtocolAssignment",
    *(f"{api}{side}" for api in FRAME_APIS for side in ("Request", "Response")),
}
# messages whose classes were generated (by Kafka's generator at their commit) from this project's table, because
# the layout it follows is in no stored Kafka commit with the others (schemas/README.md): the share groups' type 9
# record of 4.0's early access
_FROM_OUR_TABLE = {"ShareGroupPartitionMetadataKey", "ShareGroupPartitionMetadataValue"}
# the valid vectors the cases start from: Kafka's, kio's and the hand-assembled ones of every vector file (not
# captures or regressions), so a message whose vectors are added gets its cases
_SOURCE_KINDS = {"kafka-java", "kio", "handcrafted"}
_UNUSABLE = {"trailing-bytes", "missing-fields", "version-probe", "capture-facts", "other-reader", "kio-differs"}
_ROOT_TAGS = {"1": "6162", "300": ""}  # unknown at a struct of the schemas unless it defines the tag
_NESTED_TAGS = {"2": "ab"}


class RuleError(ValueError):
    """Cases without Kafka's answer, or answers that contradict the rule the case was made for."""


@dataclass(frozen=True)
class Binding:
    """How Kafka's classes read and write a message: the class, the commit, and the framing around its body.
    A message whose vectors' values are not its table's (Streams' model, Connect's assignment view) gets the
    cases that need no value: bytes Kafka refuses (``values`` false), built from its table's view of a source."""

    java_class: str
    commit: str
    framing: str | None  # None | "version" (an int16 version first, ConsumerProtocol) | "record-key" | "record-value"
    values: bool = True
    method: str | None = None  # "call": the static method that reads the bytes


_CONNECT = "org.apache.kafka.connect.runtime.distributed."


def binding(message: str, version: int | None = None) -> Binding | None:
    """The Kafka class that reads (and writes) a message: generated from its message JSON, or for Kafka
    Connect's messages the hand-written deserializer of the reading worker (ConnectProtocol's at v0,
    IncrementalCooperativeConnectProtocol's from v1; ``version``). None for AssignmentInfo (Kafka Streams'
    hand-written class; its rules are handcrafted.py's) and the sticky assignors' user data (read by the assignors'
    ``memberData``, whose own readings are its vectors: ``kafka-java-sticky-user-data.jsonl``)."""
    spec = load_message(message)
    commit = (
        CLASSIC_COMMIT
        if message in _CLASSIC
        else KAFKA44_COMMIT
        if head(message).follows == _FOLLOWS_44
        else SHARE_COMMIT
        if message.startswith("Share")
        else KAFKA4_COMMIT
    )
    if spec.kind in ("request", "response", "header"):
        return Binding(f"org.apache.kafka.common.message.{message}Data", commit, None)
    if spec.kind in ("coordinator-key", "coordinator-value") or message in CLASSIC_RECORDS:
        # Kafka 4 reads a classic key of record type 0 (our OffsetCommitKey v0) as its LegacyOffsetCommitKey
        java = "LegacyOffsetCommitKey" if (message, version) == ("OffsetCommitKey", 0) else message
        # the share coordinator's records are its own package's (ShareCoordinatorRecordSerde)
        package = "share" if head(message).coordinator == "share" else "group"
        return Binding(
            f"org.apache.kafka.coordinator.{package}.generated.{java}",
            commit,
            "record-key" if message.endswith("Key") else "record-value",
        )
    if spec.version_prefix == "int16" and spec.encoding == "kafka" and message.startswith("ConsumerProtocol"):
        return Binding(f"org.apache.kafka.common.message.{message}", commit, "version")
    if message == "SubscriptionInfo":  # Kafka Streams' SubscriptionInfo.decode reads it with SubscriptionInfoData
        return Binding(
            "org.apache.kafka.streams.internals.generated.SubscriptionInfoData", CLASSIC_COMMIT, None, values=False
        )
    if message in ("ConnectMetadata", "ConnectAssignment"):
        reader = "ConnectProtocol" if version == 0 else "IncrementalCooperativeConnectProtocol"
        return Binding(
            _CONNECT + reader,
            CLASSIC_COMMIT,
            "version",
            values=False,
            method="deserializeMetadata" if message == "ConnectMetadata" else "deserializeAssignment",
        )
    return None


@dataclass
class Case:
    """One question for Kafka's classes and how its answer becomes a vector."""

    id: str
    rule: str
    message: str
    version: int | None
    op: str  # read | write | write-null | read-prefixed
    expect: str  # "refused" | "accepted"
    payload: dict  # hex / value / path, as KafkaRules.java reads them
    make: dict = field(default_factory=dict)  # what the vector needs besides the answer

    def question(self) -> dict:
        b = _bound(self.message if not self.message.endswith("Frame") else self.make["bodyMessage"], self.version)
        q = {
            "id": self.id,
            "op": self.op,
            "class": self.make.get("class", b.java_class),
            "version": self.make.get("javaVersion", self.version),
            **self.payload,
        }
        if b.method:
            q["method"] = b.method
        q["digest"] = hashlib.sha256(_text.dumps(q, sort_keys=True).encode()).hexdigest()[:16]
        q["commit"] = self.make.get("commit", b.commit)
        return q


def _bound(message: str, version: int | None = None) -> Binding:
    """:func:`binding` of a message the rules are asked of, which has one (:func:`rule_cases` picks them)."""
    b = binding(message, version)
    if b is None:
        raise RuleError(f"no Kafka class reads {message}")
    return b


def binding_or_none(message: str, version: int | None = None) -> Binding | None:
    try:
        return binding(message, version)
    except KeyError:
        return None


# --- values ------------------------------------------------------------------------------------------------


def _key(f: FieldSpec) -> str:
    return f.json_name


def _paths(struct: StructSpec, value: dict, version: int, prefix: tuple = ()):
    """(path, field, value there) for every field of ``value`` at ``version``, in wire order (known tagged fields
    last); arrays of structs are entered at their first element, nullable structs where they are not null."""
    for f in (*struct.fields_at(version), *struct.tagged_at(version)):
        if _key(f) not in value:
            continue
        x = value[_key(f)]
        path = (*prefix, _key(f))
        yield path, f, x
        if f.struct is not None and x is not None:
            if f.is_array:
                if x:
                    yield from _paths(f.struct, x[0], version, (*path, 0))
            else:
                yield from _paths(f.struct, x, version, path)


def _structs(struct: StructSpec, value: dict, version: int, prefix: tuple = ()):
    """(path, struct spec) of the top level and every struct ``_paths`` enters."""
    yield prefix, struct
    for path, f, x in _paths(struct, value, version, prefix):
        if f.struct is not None and x is not None and (not f.is_array or x):
            yield (*path, 0) if f.is_array else path, f.struct


def _get(value, path):
    for step in path:
        value = value[step]
    return value


def _set(value: dict, path: tuple, new) -> dict:
    out = copy.deepcopy(value)
    _get(out, path[:-1])[path[-1]] = new
    return out


def _struct_of(spec, path: tuple) -> str:
    """The name of the struct whose field ``path`` ends at."""
    struct = spec.root
    for step in path[:-1]:
        if isinstance(step, int):
            continue
        struct = next(f for f in struct.fields if _key(f) == step).struct
    return struct.name


def _kind(f: FieldSpec) -> str:
    return "array" if f.is_array else "struct" if f.struct is not None else f.type


def _shown(path: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(path))


def _non_default(f: FieldSpec) -> Any:
    """A value other than the field's default (hand-picked per type), or None where none is picked: a struct, or an
    array of structs (Kafka's JSON converter cannot read an element at a version its struct lacks)."""
    if f.is_array:
        if f.default == "null":
            return []
        return None if f.struct is not None else ["x"] if f.element_type == "string" else [1]
    t = f.type
    if t in ("int8", "int16", "int32", "int64", "uint16"):
        d = int(f.default, 0) if isinstance(f.default, str) else int(f.default or 0)
        return d + 1
    if t == "bool":
        return f.default not in (True, "true")
    if t == "string":
        return "" if f.default == "null" else "x"
    if t == "bytes":
        return "" if f.default == "null" else "AQ=="
    if t == "uuid":
        return "AAAAAAAAAAAAAAAAAAAAAQ"
    return None


# --- the codec's bytes (for building cases only; Kafka's classes judge them) --------------------------------


def _encode(message: str, version: int | None, value: dict) -> bytes:
    from .impl import handle_request

    out = handle_request({"op": "encode", "message": message, "version": version, "value": value})
    if "wire" not in out:
        raise RuleError(f"{message} v{version}: cannot build a case: {out}")
    return bytes.fromhex(out["wire"])


def _encode_nullable(message: str, version, value: dict, struct: str, f: FieldSpec) -> bytes:
    """``value`` written by a codec whose table has field ``f`` nullable in all its versions."""
    table = with_field(raw_message(message), struct, f.name, nullableVersions=str(f.versions))
    with schema_overrides({message: table}):
        return _writer(message)(message, version, value)


def _table_view(message: str, version: int, wire: bytes) -> dict:
    """The table's view of a message (field by field, as schemas/ names them) whose vectors show another (Kafka
    Streams' model, Kafka Connect's assignment view): read with this project's table, to build cases from."""
    from ..wire.builder import decode_wire, to_json

    start = 2 if _bound(message, version).framing == "version" else 0
    obj, _ = decode_wire(message, version, wire, start=start)
    return to_json(obj, message, version)


def _encode_table(message: str, version: int, value: dict) -> bytes:
    from ..wire.builder import encode_wire, from_json

    body = encode_wire(message, version, from_json(value, message, version))
    return (version.to_bytes(2, "big") if _bound(message, version).framing == "version" else b"") + body


def _writer(message: str):
    return _encode if _bound(message).values else _encode_table


def _split(message: str, wire: bytes) -> bytes:
    """What Kafka's class reads: a record part without its record type or value version (ConsumerProtocol's
    version is read by Kafka's ConsumerProtocol, so its bytes go whole)."""
    return wire[2:] if _bound(message).framing in ("record-key", "record-value") else wire


def _body(message: str, wire: bytes) -> bytes:
    """The bytes Kafka's class writes: the message without the int16 before it."""
    return wire if _bound(message).framing is None else wire[2:]


def _body_value(message: str, value: dict) -> dict:
    return {k: x for k, x in value.items() if k != "valueVersion"}


def _first_diff(a: bytes, b: bytes) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
