"""The cases of each rule of :mod:`codec.conformance.handcrafted_rules`, made from the schemas and from a valid vector
of each message and version (:func:`rule_cases`)."""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Iterable
from collections.abc import Set as AbstractSet  # frozenset() as a default
from pathlib import Path

from ..wire.lowering import WIDTHS, FieldOp, field_op, lower
from ..wire.primitives import uvarint_bytes
from ..wire.schema import (
    FieldSpec,
    StructSpec,
    load_message,
)
from .coverage import FRAME_APIS, supported
from .handcrafted_case import (
    _NESTED_TAGS,
    _ROOT_TAGS,
    _SOURCE_KINDS,
    _UNUSABLE,
    is_rules_file,
    Case,
    RuleError,
    _body_value,
    _bound,
    _encode,
    _encode_nullable,
    _first_diff,
    _get,
    _key,
    _kind,
    _non_default,
    _paths,
    _set,
    _split,
    _struct_of,
    _structs,
    _table_view,
    _writer,
    binding_or_none,
)

__all__ = ["rule_cases"]

# --- the cases ---------------------------------------------------------------------------------------------


def _load(directory: Path) -> list[dict]:
    out = []
    for path in sorted(directory.glob("*.jsonl")):
        if not is_rules_file(path.name):
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
