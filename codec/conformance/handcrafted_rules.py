"""Rule vectors: one for every rule Kafka's generated readers and writers enforce, at every message and version
where it applies (``vectors/kafka-java-rules.jsonl``), each verdict Kafka's own.

The cases are made from the schemas (so a message added to ``schemas/`` and given vectors gets them with no code
here) and from a valid vector of each message and version that Kafka, kio or a hand-assembler wrote (of any
vector file; the one reaching the most fields), and, for fields that vector does not reach, from a value made
from the table; Kafka's classes then judge each case — ``vectors/tools/KafkaRules.java`` calls them, and their
answers are kept in ``vectors/tools/kafka-rules.answers.jsonl`` (the Kafka commit, the class, the bytes written,
the value read or the exception thrown). A vector is made only from an answer to the very case (a digest of the
case is in the answer); a case without one stops ``vectors handcraft``. Kafka's classes of three commits answer,
each at the commit its tables follow (``CLASSIC_COMMIT``, ``KAFKA4_COMMIT``, ``SHARE_COMMIT``); when one moves,
the cases of that commit are asked again: ``Case.question()`` of each of ``rule_cases(vectors_dir())`` whose
``commit`` it is, one JSON line each, to KafkaRules.java run on that commit's classes (its header comment), and
its answers replace theirs in the answers file. The rules:

* ``null-read`` — -1 (compact: 0) as the length of each non-nullable string, bytes and array: the bytes a codec
  that took the field for nullable writes (this project's encoder with that one field made nullable, so the
  rest of the message reads on); Kafka's reader throws "non-nullable field … was serialized as null" (Connect's
  "… -1 cannot be negative");
* ``null-write`` — a null value in each non-nullable string, bytes, array and struct: Kafka's writer, handed
  the null by the field's setter, throws (an ``encode-refused`` vector without ``wire``);
* ``negative-count`` — -2 as the count of each array of a classic (non-flexible) version: refused where the
  array is not nullable; where it is, Kafka reads null (any negative count is null to its readers), which this
  project refuses: an ``acceptable`` vector whose decoded value, if any, is Kafka's;
* ``wrapped-length`` — a compact length that Java's int wraps: Kafka reads one as ``ByteUtils.readUnsignedVarint(...)
  - 1`` in an int, so the uvarint ff ff ff ff 0f (2**32 - 1) is the length -2: on the last compact string, bytes
  and array of each flexible version, nullable and not (those inside tagged fields aside), refused where not
  nullable, read as null where nullable (``acceptable``, as ``negative-count``); and once a message, at its newest
  flexible version, on the source's last compact length, 80 80 80 80 08 (2**31, Integer.MIN_VALUE: one less is
  Integer.MAX_VALUE, refused) and that length in five bytes with bits 4-6 of the last set (shifted out of the int:
  Kafka reads the length it had, ``acceptable``). This project refuses every one (a length past 32767 or the input,
  a varint past 2**32);
* ``past-input`` — the last string, the last bytes and the last array of each message and version with a length
  one more than the bytes that remain;
* ``ignorable-dropped`` — a non-default value for each ``ignorable`` field a version lacks, tagged or not: Kafka
  writes the version without it (a valid vector checked in the encode direction only: its bytes are another vector's);
* ``filled`` — every field of the version set, each to a value of its own that is not its default (arrays of
  one element, nullable structs present, known tagged fields set), made from the table: Kafka writes and reads it;
* ``nullable-null`` — every nullable field null (those inside a nullable field in a second vector): Kafka
  writes and reads them (Kafka Connect: reads a null array or allocation as empty, flag ``null-as-empty``);
* ``unknown-tagged`` — unknown tagged fields, with their sizes, on every struct of each flexible version (tag 1
  with two bytes and tag 300, a two-byte tag, with none on the top level; tag 2 with one byte below): Kafka reads
  and writes them back unchanged; headers included, and a frame of each API whose header carries them;
* ``long-varint`` — the top-level tagged-field count of each flexible version written in six bytes: Kafka's
  varint reader throws after five;
* ``version-prefix`` — the ConsumerProtocol and Connect messages behind version -1: Kafka's ``ConsumerProtocol``
  (``ConnectProtocol``) throws.

The group messages, headers, ConsumerProtocol, Kafka 4's RPCs and records and the classic group's records get every
rule that applies; Kafka Streams' SubscriptionInfo (which Kafka reads with its generated SubscriptionInfoData) and
Kafka Connect's messages (hand-written ``protocol.types`` schemas) the reading ones (null-read, negative-count,
past-input, version-prefix, Connect's nullable-null), their vectors' values being Kafka's views, not their tables';
AssignmentInfo (a hand-written ``DataOutputStream`` encoding) none here: handcrafted.py's vectors hold its rules.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from collections.abc import Iterable
from collections.abc import Set as AbstractSet  # frozenset() as a default
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import text as _text
from ..wire.lowering import WIDTHS, FieldOp, field_op, lower
from ..wire.primitives import uvarint_bytes
from ..wire.schema import (
    FieldSpec,
    StructSpec,
    load_message,
    raw_message,
    schema_overrides,
)
from .coverage import CLASSIC_RECORDS, FRAME_APIS, supported
from .mutation import with_field

__all__ = [
    "ANSWERS",
    "CLASSIC_COMMIT",
    "KAFKA4_COMMIT",
    "RULES_FILE",
    "SHARE_COMMIT",
    "RuleError",
    "SHARE_COMMIT",
    "binding",
    "rule_cases",
    "rule_vectors",
]

RULES_FILE = "kafka-java-rules.jsonl"
ANSWERS = Path("tools") / "kafka-rules.answers.jsonl"  # inside vectors/
# Kafka's classes that judge the cases: the classic group messages, headers and ConsumerProtocol as generated at
# the commit of ../shared/vectors/kafka-java (the classes that wrote kafka-java-*.jsonl); Kafka 4's RPCs and every
# group's __consumer_offsets records, the classic group's included, at the commit schemas/README.md follows for them
CLASSIC_COMMIT = "1eb7644349cb07139d6a3c1ad1986979647cac99"
KAFKA4_COMMIT = "26b251a451ce941d3d7a55e6487bcb7f16b5ad48"
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
    hand-written class; its rules are handcrafted.py's)."""
    spec = load_message(message)
    commit = CLASSIC_COMMIT if message in _CLASSIC else SHARE_COMMIT if message.startswith("Share") else KAFKA4_COMMIT
    if spec.kind in ("request", "response", "header"):
        return Binding(f"org.apache.kafka.common.message.{message}Data", commit, None)
    if spec.kind in ("coordinator-key", "coordinator-value") or message in CLASSIC_RECORDS:
        # Kafka 4 reads a classic key of record type 0 (our OffsetCommitKey v0) as its LegacyOffsetCommitKey
        java = "LegacyOffsetCommitKey" if (message, version) == ("OffsetCommitKey", 0) else message
        return Binding(
            f"org.apache.kafka.coordinator.group.generated.{java}",
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


# --- the cases ---------------------------------------------------------------------------------------------


def _load(directory: Path) -> list[dict]:
    out = []
    for path in sorted(directory.glob("*.jsonl")):
        if path.name != RULES_FILE:
            out += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return out


def _sources(directory: Path, messages: Iterable[str] | None = None) -> dict[tuple[str, int | None], dict]:
    """The valid vector each message × version's cases start from: the one reaching the most fields (first in
    file order on a tie) whose bytes this project's encoder writes back from its value (from the table's view of
    it, where the vectors show another)."""
    best: dict[tuple, tuple[int, dict]] = {}
    for v in _load(directory):
        if messages is not None and v["message"] not in messages:
            continue
        b = binding_or_none(v["message"], v.get("version"))
        if (
            v.get("result") != "valid"
            or _UNUSABLE & set(v.get("flags", ()))
            or v["provenance"]["source"] not in _SOURCE_KINDS
            or b is None
            or (b.values and not v.get("canonical"))
        ):
            continue
        version = v.get("version")
        spec = load_message(v["message"])
        at = version if version is not None else spec.valid.low
        wire = bytes.fromhex(v["wire"])
        try:
            value = v["expected"] if b.values else _table_view(v["message"], at, wire)
            reach = sum(1 for _ in _paths(spec.root, value, at))
            key = (v["message"], version)
            if key in best and reach <= best[key][0]:
                continue
            same = _writer(v["message"])(v["message"], version, value) == wire
        except Exception:  # noqa: BLE001, S112 - a vector the table does not reproduce is no source
            continue
        if same:
            best[key] = (reach, {**v, "tableValue": value})
    return {k: v for k, (_, v) in best.items()}


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


def rule_cases(directory: Path, messages: Iterable[str] | None = None) -> list[Case]:
    """Every case, for every message with a Kafka class (or those of ``messages``) and every version it has a
    source vector of."""
    sources = _sources(directory, messages)
    out: list[Case] = []
    for message, versions in supported().items():
        if binding_or_none(message) is None or (messages is not None and message not in messages):
            continue
        own = [v for v in ([None] if _versionless(message) else versions) if (message, v) in sources]
        flexible = [v for v in own if _flexible(message, v)]
        for version in own:
            newest = bool(flexible) and version == flexible[-1]
            out += _cases_of(message, version, sources[(message, version)], newest=newest)
    if messages is None:
        out += _frame_cases(sources)
    return out


def _flexible(message: str, version: int | None) -> bool:
    """Whether the message's structs end with a tagged-field section at ``version`` (a record's: its one version)."""
    spec = load_message(message)
    return lower(message, spec.valid.low if version is None else version).flexible


def _versionless(message: str) -> bool:
    """Whether a message's vectors name no version: Kafka 4's record parts (their bytes say it, and the release has
    one); the classic records' name theirs (a key's is its record type, a value's its version prefix)."""
    return load_message(message).kind.startswith("coordinator")


def _case_id(message: str, version, rule: str, what: str = "") -> str:
    """``kr-<message>-v<version>-<rule>-<field path>``; a path too long for an id (120 characters) goes without its
    array indexes, and then with its first and last two steps only."""
    v = "" if version is None else f"-v{version}"
    head = f"kr-{message.lower()}{v}-{rule}"
    for slug in (what, "-".join(p for p in what.split("-") if not p.isdigit())):
        if len(head) + 1 + len(slug) <= 120:
            break
    else:
        steps = slug.split("-")
        slug = "-".join([steps[0], "x", *steps[-2:]])
    return head + (f"-{slug}" if slug else "")


def _slug(path: tuple) -> str:
    return "-".join(str(p).lower() for p in path)


def _shape(path: tuple) -> tuple:
    return tuple(p for p in path if not isinstance(p, int))


def _cases_of(message: str, version: int | None, src: dict, newest: bool = False) -> list[Case]:
    """The cases of one message × version, from its source vector ``src`` (``newest``: the message's newest
    flexible version with one, which also gets the cases asked once a message)."""
    spec = load_message(message)
    b = _bound(message, version)
    at = version if version is not None else spec.valid.low
    value, wire = src["tableValue"], bytes.fromhex(src["wire"])
    flexible = lower(message, at).flexible  # (the structs end with a tagged-field section)
    out: list[Case] = []

    def read(rule, what, hexwire: bytes, expect, base=src["id"], **make):
        op = "call" if b.method else "read-prefixed" if b.framing == "version" else "read"
        out.append(
            Case(
                _case_id(message, version, rule, what),
                rule,
                message,
                version,
                op,
                expect,
                {"hex": _split(message, hexwire).hex()},
                {
                    "src": base,
                    "wire": wire.hex(),
                    "javaVersion": _java_version(message, at, hexwire),
                    "caseWire": hexwire.hex(),
                    **make,
                },
            )
        )

    def write(rule, what, op, val, expect, base=src["id"], **payload_and_make):
        payload = {"value": _body_value(message, val), **payload_and_make.pop("payload", {})}
        out.append(
            Case(
                _case_id(message, version, rule, what),
                rule,
                message,
                version,
                op,
                expect,
                payload,
                {
                    "src": base,
                    "wire": wire.hex(),
                    "javaVersion": _java_version(message, at),
                    "value": val,
                    **payload_and_make,
                },
            )
        )

    # the per-field rules, on the source and, for the fields it does not reach, on a value made from the table
    bases = [(value, wire, src["id"])]
    filled = None
    if b.values:
        filled = _filled(spec.root, at, [0])
        if b.framing == "record-value":
            filled = {"valueVersion": at, **filled}
        bases.append((filled, _encode(message, version, filled), f"{_case_id(message, version, 'filled')}'s value"))
    done: set[tuple] = set()
    wrapped: dict[tuple, tuple] = {}  # (kind, nullable) -> the last such compact length: base, its bytes, path, field
    for base_value, base_wire, base_id in bases:
        for path, f, x in _paths(spec.root, base_value, at):
            if x is None or f.tag is not None or _shape(path) in done:
                continue
            done.add(_shape(path))
            _field_cases(message, version, at, b, spec, base_value, base_wire, base_id, path, f, read, write)
            op = _op(message, at, f)
            if _kind(f) in ("string", "bytes", "array") and op.compact and not _in_tagged(spec, path):
                wrapped[(_kind(f), op.prefix_nullable)] = (base_value, base_wire, base_id, path, f)
    for (kind, nullable), (base_value, base_wire, base_id, path, f) in sorted(wrapped.items()):
        null_wire = _null_wire(message, version, at, spec, base_value, path, f)
        pos = _first_diff(base_wire, null_wire)  # the compact null, 00, where the length was
        read(
            "wrapped-length",
            _slug(path),
            null_wire[:pos] + _WRAPPED + null_wire[pos + 1 :],
            "accepted" if nullable else "refused",
            base=base_id,
            path=list(path),
            offset=pos,
            kind=kind,
            nullable=nullable,
        )
    lengths = [
        (path, f)
        for path, f, x in _paths(spec.root, value, at)
        if x is not None and f.tag is None and _kind(f) in ("string", "bytes", "array") and not _in_tagged(spec, path)
    ]
    last_of = {_kind(f): (path, f) for path, f in lengths}  # in wire order: the last of each kind
    for kind, (path, f) in sorted(last_of.items()):
        past = _past_input(message, version, at, spec, wire, value, path, f)
        if past is not None:
            read("past-input", kind, past[0], "refused", path=list(path), offset=past[1], kind=kind)
    compact = [(path, f) for path, f in lengths if _op(message, at, f).compact]
    if newest and compact:
        # the source's last compact length, once a message: 2**31 (Java's int: Integer.MIN_VALUE, one less is
        # Integer.MAX_VALUE), and the length it has in five bytes, with bits Java's int has no room for in the last
        path, f = compact[-1]
        pos, width = _length_at(message, version, at, spec, wire, value, path, f)
        for what, prefix, expect in (
            ("int-min", _INT_MIN, "refused"),
            ("high-bits", _high_bits(wire[pos : pos + width]), "accepted"),
        ):
            read(
                "wrapped-length",
                f"{what}-{_slug(path)}",
                wire[:pos] + prefix + wire[pos + width :],
                expect,
                path=list(path),
                offset=pos,
                kind=_kind(f),
                nullable=_op(message, at, f).prefix_nullable,
                variant=what,
            )
    if b.framing == "version" and at == spec.valid.low:
        read("version-prefix", "", b"\xff\xff" + wire[2:], "refused", offset=0)
    if not b.values:
        return out
    assert filled is not None  # made above for a message whose values are its table's
    for spath, struct in _structs(spec.root, value, at):
        container = _get(value, spath)
        for f in struct.fields:
            # a field the version lacks, tagged ones too (OffsetCommitValue's topicId before v4)
            if at in f.versions or not f.ignorable or _key(f) in container:
                continue
            new = _non_default(f)
            if new is None:
                continue
            changed = _set(value, (*spath, _key(f)), new)
            write(
                "ignorable-dropped",
                _slug((*spath, _key(f))),
                "write",
                changed,
                "accepted",
                path=[*spath, _key(f)],
                shown=new,
            )
    covered: set[tuple] = set()
    for base_value, what, base_id in ((value, "", src["id"]), (filled, "filled", "the table")):
        for n, nulls in enumerate(_null_sets(spec, base_value, at, covered)):
            changed = base_value
            for path in nulls:
                changed = _set(changed, path, None)
                covered.add(_shape(path))
            write(
                "nullable-null",
                "-".join(filter(None, (what, "inner" if n else ""))),
                "write",
                changed,
                "accepted",
                base=base_id,
                paths=[list(p) for p in nulls],
            )
    write("filled", "", "write", filled, "accepted", base="the table")
    if flexible:
        tagged = copy.deepcopy(value)
        for spath, struct in _structs(spec.root, value, at):
            # a tag the struct defines is its field, never an unknown one (4.3.1's StreamsGroupMetadataValue
            # defines tag 1): there the unknown tags are the others
            defined = {str(f.tag) for f in struct.tagged_at(at)}
            unknown = _ROOT_TAGS if not spath else _NESTED_TAGS
            _get(tagged, spath)["_unknownTaggedFields"] = {k: x for k, x in unknown.items() if k not in defined}
        read("unknown-tagged", "", _encode(message, version, tagged), "accepted", value=tagged)
        # the top-level tagged-field count is the last byte when no tagged field is set there
        known = {_key(f) for f in spec.root.tagged_at(at)}
        plain = {k: x for k, x in value.items() if k != "_unknownTaggedFields" and k not in known}
        bare = wire if plain == value else _encode(message, version, plain)
        if bare[-1:] == b"\x00":
            read(
                "long-varint",
                "",
                bare[:-1] + bytes.fromhex("808080808000"),
                "refused",
                offset=len(bare) - 1,
                bare=plain != value,
            )
    return out


def _field_cases(message, version, at, b, spec, value, wire, base_id, path, f, read, write) -> None:
    """null-write, null-read and negative-count for the field at ``path`` of ``value`` (whose bytes are ``wire``)."""
    op = _op(message, at, f)
    kind, nullable = _kind(f), op.prefix_nullable or op.nullable
    null_value = _set(value, path, None)
    if not nullable and kind in ("string", "bytes", "array", "struct") and b.values:
        write(
            "null-write",
            _slug(path),
            "write-null",
            value,
            "refused",
            base=base_id,
            payload={"path": list(path)},
            path=list(path),
            expectedValue=null_value,
        )
    if kind not in ("string", "bytes", "array") or (nullable and not b.values and not b.method):
        return  # (what Kafka reads as null there is a value in its terms, not the table's)
    null_wire = _null_wire(message, version, at, spec, value, path, f)
    if nullable and b.method:  # Kafka Connect: a null array or allocation reads as empty, its view says how
        read("nullable-null", _slug(path), null_wire, "accepted", base=base_id, path=list(path))
        return
    at_byte = _first_diff(wire, null_wire)
    if not nullable:
        read("null-read", _slug(path), null_wire, "refused", base=base_id, path=list(path), offset=at_byte)
    if op.count == "int32":  # a classic array: an int32 count, any negative one null to Kafka's readers
        neg = null_wire[:at_byte] + b"\xff\xff\xff\xfe" + null_wire[at_byte + 4 :]
        read(
            "negative-count",
            _slug(path),
            neg,
            "accepted" if nullable else "refused",
            base=base_id,
            path=list(path),
            offset=at_byte,
            nullable=nullable,
        )


def _in_tagged(spec, path: tuple) -> bool:
    """Whether ``path`` runs through a tagged field (whose contents Kafka reads from the whole buffer)."""
    struct = spec.root
    for step in path[:-1]:
        if isinstance(step, int):
            continue
        f = next(x for x in struct.fields if _key(x) == step)
        if f.tag is not None:
            return True
        struct = f.struct
    return False


def _java_version(message: str, at: int, wire: bytes | None = None) -> int:
    """The version Kafka's class reads (``wire``) or writes the message at: a record value's own version (its
    first two bytes), 0 for every record key (Kafka 4 reads a key's body at version 0, its record type in the int16
    before it; a classic key's version here is that type), ``at`` otherwise."""
    framing = _bound(message).framing
    if framing == "record-key":
        return 0
    return int.from_bytes(wire[:2], "big", signed=True) if framing == "record-value" and wire else at


def _filled(struct: StructSpec, version: int, counter: list[int]) -> dict:
    """A value of ``struct`` at ``version`` with every field set, each to a value of its own that is not its
    default: arrays of one element, structs (nullable ones too) filled the same way, known tagged fields set.
    Made from the table alone, so a field no other vector sets is set here."""
    out = {}
    for f in struct.fields:
        present = version in f.versions if f.tag is None else bool(f.tagged_versions and version in f.tagged_versions)
        if present:
            counter[0] += 1
            one = _filled(f.struct, version, counter) if f.struct is not None else _scalar(f, counter[0])
            out[_key(f)] = [one] if f.is_array else one
    return out


def _scalar(f: FieldSpec, n: int):
    t = f.element_type
    if t in ("int8", "int16", "int32", "int64", "uint16"):
        return n % 120 + 1
    if t == "bool":
        return bool(n % 2) != (f.default in (True, "true"))
    if t == "string":
        return f"{f.json_name}-{n}"
    if t == "bytes":
        return base64.b64encode(bytes([n % 256, 0xAB])).decode()
    if t == "uuid":
        return base64.urlsafe_b64encode(bytes(15) + bytes([n % 256])).decode().rstrip("=")
    if t == "float64":
        return n + 0.5
    raise RuleError(f"{f.name}: no filled value for type {t}")


def _null_sets(spec, value: dict, at: int, covered: AbstractSet[tuple] = frozenset()) -> list[list[tuple]]:
    """The nullable fields of ``value`` to set null (but those of a shape in ``covered``): those inside no other
    nullable one, then (a second set) those inside one; a set that changes nothing is left out."""
    outer: list[tuple] = []
    inner: list[tuple] = []
    for path, f, x in _paths(spec.root, value, at):
        op = _op(spec.name, at, f) if f.tag is None else None
        if op is None or not (op.prefix_nullable or op.nullable) or x is None or _shape(path) in covered:
            continue
        inside = any(path[: len(p)] == p for p in outer)
        (inner if inside else outer).append(path)
    return [s for s in (outer, inner) if s]


def _null_wire(message, version, at, spec, value, path, f) -> bytes:
    """``value`` with the field at ``path`` null, as written by this project's encoder (by one whose table makes
    the field nullable where it is not): the field's length (count) is -1, or compact 0, and the rest reads on."""
    null_value = _set(value, path, None)
    op = _op(message, at, f)
    if op.prefix_nullable or op.nullable:
        return _writer(message)(message, version, null_value)
    return _encode_nullable(message, version, null_value, _struct_of(spec, path), f)


def _op(message: str, at: int, f: FieldSpec) -> FieldOp:
    """The field's wire operation at version ``at``: the lowering's (:mod:`codec.wire.lowering`), which alone decides
    whether a length is compact, how wide it is and whether it may be null."""
    return field_op(load_message(message), f, at)


def _length_at(message, version, at, spec, wire, value, path, f) -> tuple[int, int]:
    """Where the length (count) of the field at ``path`` starts in ``wire`` (``value``'s bytes), and its width."""
    pos = _first_diff(wire, _null_wire(message, version, at, spec, value, path, f))
    op = _op(message, at, f)
    if op.compact:  # a uvarint: its bytes up to the first below 0x80
        return pos, next(i for i in range(5) if wire[pos + i] < 0x80) + 1
    return pos, WIDTHS[op.prefix or ""]


def _past_input(message, version, at, spec, wire, value, path, f) -> tuple[bytes, int] | None:
    """``wire`` with the length (count) of the field at ``path`` one more than the bytes that remain after it."""
    pos, width = _length_at(message, version, at, spec, wire, value, path, f)
    remaining = len(wire) - pos - width
    claim = remaining + 1
    if f.type == "string" and claim > 0x7FFF:
        return None
    if _op(message, at, f).compact:
        prefix = uvarint_bytes(claim + 1)
    else:
        prefix = claim.to_bytes(width, "big")
    return wire[:pos] + prefix + wire[pos + width :], pos


# Kafka reads a compact length as ByteUtils.readUnsignedVarint(...) - 1, in a Java int: the uvarint 2**32 - 1 is the
# int -1, so the length is -2 (null where nullable, refused where not); 2**31 is Integer.MIN_VALUE, one less
# Integer.MAX_VALUE; and the fifth byte is shifted left by 28, its bits 4-6 out of the int
_WRAPPED = uvarint_bytes(2**32 - 1)  # ff ff ff ff 0f
_INT_MIN = uvarint_bytes(2**31)  # 80 80 80 80 08


def _high_bits(length: bytes) -> bytes:
    """A uvarint written again in five bytes, the last with bits 4-6 set: the value Java's int reads is the same."""
    n = _uvarint_value(length)
    return bytes([*((n >> s) & 0x7F | 0x80 for s in (0, 7, 14, 21)), 0x70 | n >> 28])


def _uvarint_value(raw: bytes) -> int:
    return sum((b & 0x7F) << (7 * i) for i, b in enumerate(raw))


def _frame_cases(sources: dict) -> list[Case]:
    """A request and a response frame of each group API at its newest version, the header carrying unknown
    tagged fields (the header's bytes are judged by Kafka's header class; the body is a source vector's)."""
    out = []
    for api, key in FRAME_APIS.items():
        for side in ("Request", "Response"):
            message = f"{api}{side}"
            version = load_message(message).valid.high
            src = sources.get((message, version))
            if src is None or not _flexible(message, version):
                continue
            corr = 7000 + key
            if side == "Request":
                header = {
                    "requestApiKey": key,
                    "requestApiVersion": version,
                    "correlationId": corr,
                    "clientId": "rebalance-codec",
                    "_unknownTaggedFields": dict(_ROOT_TAGS),
                }
                hname, hv, frame = "RequestHeader", 2, "RequestFrame"
            else:
                header = {"correlationId": corr, "_unknownTaggedFields": dict(_ROOT_TAGS)}
                hname, hv, frame = "ResponseHeader", 1, "ResponseFrame"
            hwire = _encode(hname, hv, header)
            out.append(
                Case(
                    f"kr-{frame.lower()}-{api.lower()}-v{version}-unknown-tagged",
                    "unknown-tagged",
                    frame,
                    version,
                    "read",
                    "accepted",
                    {"hex": hwire.hex()},
                    {
                        "bodyMessage": hname,
                        "class": _bound(hname).java_class,
                        "commit": _bound(hname).commit,
                        "javaVersion": hv,
                        "src": src["id"],
                        "header": header,
                        "headerVersion": hv,
                        "apiKey": key,
                        "body": src,
                        "caseWire": (hwire + bytes.fromhex(src["wire"])).hex(),
                    },
                )
            )
    return out


# --- answers and vectors -----------------------------------------------------------------------------------


def _answers(directory: Path) -> dict[str, dict]:
    path = directory / ANSWERS
    if not path.is_file():
        return {}
    return {
        a["id"]: a for a in (json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip())
    }


def rule_vectors(directory: Path, messages: Iterable[str] | None = None) -> list[dict]:
    """The vectors of ``kafka-java-rules.jsonl`` (those of ``messages``): every case with Kafka's answer. RuleError
    lists the cases without an answer to them, and the answers that contradict the rule."""
    answers = _answers(directory)
    out, problems = [], []
    for case in rule_cases(directory, messages):
        q = case.question()
        a = answers.get(case.id)
        if a is None or a.get("digest") != q["digest"]:
            problems.append(
                f"{case.id}: no answer from Kafka's classes to this case (run vectors/tools/KafkaRules.java)"
            )
            continue
        got = "accepted" if a["ok"] else "refused"
        if got != case.expect:
            problems.append(
                f"{case.id}: Kafka {got} it ({a.get('error') or a.get('hex')}); the rule expects {case.expect}"
            )
            continue
        problem = _check(case, a)
        if problem:
            problems.append(f"{case.id}: {problem}")
            continue
        out.append(_vector(case, a))
    if problems:
        raise RuleError("; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
    return out


def _check(case: Case, a: dict) -> str | None:
    """What is wrong with an answer beyond its verdict: a refusal for another reason than the rule's, or bytes
    Kafka wrote that are not the ones the rule names."""
    m = case.make
    # generated readers: "non-nullable field x was serialized as null"; Connect's protocol.types: "String length -1
    # cannot be negative", "Array size -1 cannot be negative"
    if (
        case.rule == "null-read"
        and "was serialized as null" not in a["error"]
        and "-1 cannot be negative" not in a["error"]
    ):
        return f"refused for another reason: {a['error']}"
    if case.rule == "ignorable-dropped" and a["hex"] != _body(case.message, bytes.fromhex(m["wire"])).hex():
        return f"Kafka wrote {a['hex']}, not the source's bytes"
    if case.rule == "unknown-tagged":
        read = (
            case.payload["hex"]
            if case.message.endswith("Frame")
            else _body(case.message, bytes.fromhex(m["caseWire"])).hex()
        )
        if a["hex"] != read:
            return f"Kafka wrote back {a['hex']}, not the bytes it read"
    if case.rule == "negative-count" and m.get("nullable") and _get(a["value"], m["path"]) is not None:
        return "Kafka did not read null"
    if case.rule == "wrapped-length":
        return _check_wrapped(case, a)
    return None


def _check_wrapped(case: Case, a: dict) -> str | None:
    """A wrapped length read as -2 (null, or the non-nullable field's exception), 2**31 as Integer.MAX_VALUE, and
    the length with high bits as the length it was (Kafka writes back the source's bytes)."""
    m = case.make
    variant = m.get("variant")
    if variant == "int-min":
        return None if str(2**31 - 1) in a["error"] else f"refused for another reason: {a['error']}"
    if variant == "high-bits":
        source = _body(case.message, bytes.fromhex(m["wire"])).hex()
        return None if a["hex"] == source else f"Kafka wrote back {a['hex']}, not the source's bytes"
    if m["nullable"]:
        return None if _get(a["value"], m["path"]) is None else "Kafka did not read null"
    return None if "was serialized as null" in a["error"] else f"refused for another reason: {a['error']}"


def _prov(case: Case, a: dict, note: str) -> dict:
    cls = a["class"].rsplit(".", 1)[-1]
    p = {
        "source": "kafka-java",
        "commit": a["commit"],
        "record": f"vectors/{ANSWERS.as_posix()}:{case.id}",
        "checkedBy": f"{a['class']} ({case.op})",
        "note": note,
    }
    if case.message in _FROM_OUR_TABLE:
        p["note"] += (
            f"; {cls} generated by Kafka's message generator at {a['commit'][:7]} from "
            f"schemas/{case.message}.json (the layout schemas/README.md gives)"
        )
    return p


def _full_value(case: Case, kafka_value: dict) -> dict:
    """Kafka's value of the body, as the vector shows it (a record value starts with its version)."""
    if _bound(case.message).framing == "record-value":
        return {"valueVersion": case.make["javaVersion"], **kafka_value}
    return kafka_value


def _refused(case: Case, a: dict, description: str, error: str, flags: list[str], how: str, **extra) -> dict:
    """An invalid vector of bytes Kafka's reader refused (``how``: what was done to the source's bytes)."""
    m = case.make
    return {
        "id": case.id,
        "message": case.message,
        "version": case.version,
        **extra,
        "description": description,
        "wire": m["caseWire"],
        "result": "invalid",
        "error": error,
        "offset": m["offset"],
        "canonical": False,
        "flags": flags,
        "provenance": _prov(case, a, f"{m['src']} {how}; Kafka: {a['error'][:160]}"),
    }


def _vector(case: Case, a: dict) -> dict:
    m, msg, ver = case.make, case.message, case.version
    where = f"{msg} v{ver}" if ver is not None else msg
    base = {"id": case.id, "message": msg, "version": ver}
    if case.rule == "null-read":
        return _refused(
            case,
            a,
            f"{where} with -1 (null) as the length of non-nullable {_shown(tuple(m['path']))}: Kafka's reader throws",
            "invalid-value",
            ["null-non-nullable"],
            "written with null there by a table that makes the field nullable",
        )
    if case.rule == "null-write":
        return {
            **base,
            "description": f"{where} with null in non-nullable {_shown(tuple(m['path']))}: Kafka's writer throws",
            "expected": m["expectedValue"],
            "result": "invalid",
            "error": "invalid-value",
            "canonical": False,
            "flags": ["encode-refused", "null-non-nullable"],
            "provenance": _prov(
                case, a, f"{m['src']}'s value, the field set to null by its setter; Kafka: {a['error'][:160]}"
            ),
        }
    if case.rule == "negative-count":
        shown = _shown(tuple(m["path"]))
        if m["nullable"]:
            return {
                **base,
                "description": f"{where} with -2 as the count of nullable {shown}: Kafka's reader takes "
                f"any negative count for null; a decoder that reads it gives null",
                "wire": m["caseWire"],
                "expected": _full_value(case, a["value"]),
                "result": "acceptable",
                "error": "invalid-count",
                "offset": m["offset"],
                "canonical": False,
                "flags": ["bad-count"],
                "provenance": _prov(case, a, f"{m['src']} with -2 there; Kafka read null"),
            }
        return _refused(
            case,
            a,
            f"{where} with -2 as the count of non-nullable {shown}: Kafka's reader throws",
            "invalid-count",
            ["bad-count"],
            "with -2 there",
        )
    if case.rule == "wrapped-length":
        return _wrapped_vector(case, a, base, where)
    if case.rule == "past-input":
        return _refused(
            case,
            a,
            f"{where}: the length of its last {m['kind']}, {_shown(tuple(m['path']))}, one more than "
            "the bytes that remain",
            "truncated",
            ["length-past-input"] + (["bad-count"] if m["kind"] == "array" else []),
            "with that length",
        )
    if case.rule == "ignorable-dropped":
        return {
            **base,
            "description": f"{where} with {_shown(tuple(m['path']))} {json.dumps(m['shown'])}, a field the "
            f"version lacks that Kafka marks ignorable: written without it",
            "wire": m["wire"],
            "expected": m["value"],
            "result": "valid",
            "canonical": True,
            "flags": ["ignorable-dropped"],
            "provenance": _prov(case, a, f"{m['src']}'s value with the field set; Kafka wrote the source's bytes"),
        }
    if case.rule == "filled":
        return {
            **base,
            "description": f"{where} with every field set, each to a value of its own (arrays of one "
            f"element), written and read by Kafka",
            "wire": _reframe(case, bytes.fromhex(a["hex"])).hex(),
            "expected": _full_value(case, a["value"]),
            "result": "valid",
            "canonical": True,
            "flags": ["every-field"],
            "provenance": _prov(case, a, "a value made from the table, every field set; written and read by Kafka"),
        }
    if case.rule == "nullable-null" and "paths" not in m:  # Kafka Connect's: read, not written
        return {
            **base,
            "description": f"{where} with -1 (null) as the length of nullable {_shown(tuple(m['path']))}: "
            "Kafka's reader takes it for empty",
            "wire": m["caseWire"],
            "expected": a["value"],
            "result": "valid",
            "canonical": False,
            "flags": ["null-as-empty", "null-nullable"],
            "provenance": _prov(
                case,
                a,
                f"{m['src']} with null there; Kafka's reading of it, in the view of "
                "../shared/vectors/kafka-java/tools/ConnectGen.java",
            ),
        }
    if case.rule == "nullable-null":
        shown = ", ".join(_shown(tuple(p)) for p in m["paths"])
        return {
            **base,
            "description": f"{where} with null in nullable {shown}"[:300],
            "wire": _reframe(case, bytes.fromhex(a["hex"])).hex(),
            "expected": _full_value(case, a["value"]),
            "result": "valid",
            "canonical": True,
            "flags": ["null-nullable"],
            "provenance": _prov(case, a, f"{m['src']}'s value with those fields null, written and read by Kafka"),
        }
    if case.rule == "unknown-tagged" and msg.endswith("Frame"):
        body = m["body"]
        value = {
            "apiKey": m["apiKey"],
            "apiVersion": ver,
            "headerVersion": m["headerVersion"],
            "header": a["value"],
            "body": body["expected"],
        }
        return {
            **base,
            **({"apiKey": m["apiKey"]} if msg == "ResponseFrame" else {}),
            "description": f"A {msg[:-5].lower()} frame of API {m['apiKey']} v{ver} whose header carries unknown "
            f"tagged fields (tag 1: 2 bytes, tag 300: none), and the body of {body['id']}",
            "wire": m["caseWire"],
            "expected": value,
            "result": "valid",
            "canonical": True,
            "flags": ["unknown-tagged-fields"],
            "provenance": _prov(
                case,
                a,
                f"the header read and written back by Kafka; body {body['id']} ({body['provenance']['source']})",
            ),
        }
    if case.rule == "unknown-tagged":
        return {
            **base,
            "description": f"{where} with unknown tagged fields on every struct (tag 1: 2 bytes, tag 300: "
            f"none; below, tag 2: 1 byte), kept when written back",
            "wire": m["caseWire"],
            "expected": _full_value(case, a["value"]),
            "result": "valid",
            "canonical": True,
            "flags": ["unknown-tagged-fields"],
            "provenance": _prov(
                case, a, f"{m['src']}'s value with the fields added; Kafka read them and wrote the same bytes back"
            ),
        }
    if case.rule == "long-varint":
        return _refused(
            case,
            a,
            f"{where} whose tagged-field count is written in six bytes (80 80 80 80 80 00): "
            "Kafka's varint reader throws after five",
            "invalid-value",
            ["long-varint"],
            f"{'without its tagged fields, ' if m['bare'] else ''}with that count",
        )
    if case.rule == "version-prefix":
        # a ConsumerProtocol vector's version is the one its bytes claim; a Connect one's, its reader's (here v0's)
        connect = _bound(msg).method is not None
        reader = a["class"].rsplit(".", 1)[-1] if connect else "ConsumerProtocol"
        return _refused(
            case,
            a,
            f"{msg} behind version -1 (ffff), below its lowest: Kafka's {reader} throws",
            "unsupported-version",
            ["bad-version"],
            "behind -1 instead of its version",
            version=case.version if connect else -1,
        )
    raise ValueError(case.rule)


def _wrapped_vector(case: Case, a: dict, base: dict, where: str) -> dict:
    m = case.make
    variant, kind, shown = m.get("variant"), m["kind"], _shown(tuple(m["path"]))
    flags = ["wrapped-length"] + (["bad-count"] if kind == "array" else [])
    nullable = "nullable" if m["nullable"] else "non-nullable"
    if variant == "int-min":
        return _refused(
            case,
            a,
            f"{where} with 80 80 80 80 08 (2**31, Java's Integer.MIN_VALUE) as the compact length of {nullable} "
            f"{shown}: one less is Integer.MAX_VALUE, and Kafka's reader throws",
            {"string": "invalid-value", "bytes": "truncated", "array": "invalid-count"}[kind],
            flags,
            "with that length",
        )
    if variant is None and not m["nullable"]:
        return _refused(
            case,
            a,
            f"{where} with ff ff ff ff 0f (2**32 - 1, Java's int -1) as the compact length of non-nullable {shown}: "
            "Kafka's reader takes the length -2 for null and throws",
            "invalid-count" if kind == "array" else "invalid-value",
            flags,
            "with that length in place of its null",
        )
    if variant is None:
        description = (
            f"{where} with ff ff ff ff 0f (2**32 - 1, Java's int -1) as the compact length of nullable {shown}: "
            "Kafka's reader takes the length -2 for null; a decoder that reads it gives null"
        )
        note = f"{m['src']}, the field null, with that length in place of its null; Kafka read null"
    else:
        description = (
            f"{where} with the compact length of {nullable} {shown} in five bytes, bits 4-6 of the last set (70): "
            "Java's int has no room for them, and Kafka's reader takes the length it had"
        )
        note = f"{m['src']} with that length; Kafka read it and wrote the source's bytes back"
    return {
        **base,
        "description": description,
        "wire": m["caseWire"],
        "expected": _full_value(case, a["value"]),
        "result": "acceptable",
        "error": "invalid-count" if kind == "array" else "invalid-value",
        "offset": m["offset"],
        "canonical": False,
        "flags": flags,
        "provenance": _prov(case, a, note),
    }


def _reframe(case: Case, body: bytes) -> bytes:
    """Kafka's body bytes with the int16 the vector's bytes start with (record type, value version, version)."""
    if _bound(case.message).framing is None:
        return body
    return bytes.fromhex(case.make["wire"])[:2] + body
