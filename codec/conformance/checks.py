"""One half of a vector (or one generated case, or one rebalance round) asked of an implementation and judged: the
checks of the runner's algorithm (:mod:`codec.conformance.runner`'s docstring, vectors/README.md "The runner").

Each check answers a :class:`Half`: its status (pass, fail, skip), a detail people can act on, and a failure's
*class* (:attr:`Half.where`: the JSON path where a value differs, indices as ``[]``, or ``error``, ``bytes``,
``failure``), by which generated failures are grouped and listed in expectations files. A pass by rejection
carries the (op, message, API) whose evidence it needs (:attr:`Half.key`; :mod:`codec.conformance.evidence`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..wire.builder import field_offsets
from ..wire.schema import schema_names
from .generate import Case
from .impl import BuiltinImplementation, Implementation, Outcome, clip, read_back
from .messages import first_difference, normalize, short_json

__all__ = [
    "Half",
    "api_of",
    "byte_difference",
    "case_vector",
    "check",
    "check_round",
    "declined",
    "key_of",
    "klass",
    "why",
]


def byte_difference(message: str, version: int | None, expected: bytes, actual: bytes) -> str:
    """Where two encodings part: the first differing byte offset and the field that starts there (read
    from the expected bytes with the reference decoder's field offsets)."""
    n = next((i for i, (a, b) in enumerate(zip(expected, actual)) if a != b), min(len(expected), len(actual)))
    where = ""
    if message in _SCHEMAS and version is not None:
        try:
            offsets = field_offsets(message, version, expected)
        except Exception:  # a diagnostic aid only; the byte offset stands on its own
            offsets = {}
        starts = [(off, path) for path, off in offsets.items() if off <= n]
        if starts:
            where = f" (field {max(starts)[1]})"
    exp, got = expected[n : n + 8].hex(), actual[n : n + 8].hex()
    if len(expected) != len(actual) and n == min(len(expected), len(actual)):
        return f"encodings differ in length: expected {len(expected)} bytes, got {len(actual)}{where}"
    return f"encoding differs at byte {n}{where}: expected {exp}..., got {got}..."


_SCHEMAS = set(schema_names())


def why(out: Outcome) -> str:
    """Why an answer is not a value: the adapter's failure, or the rejection's message."""
    if out.failure:
        return f"adapter failure: {out.failure}"
    assert out.error is not None  # asked only of an answer neither a value nor declined: a failure or a rejection
    return str(out.error.get("message"))


def klass(out: Outcome) -> str:
    """The failure class of an answer that is no value: ``error`` (a rejection) or ``failure``."""
    return "failure" if out.failure else "error"


_REFERENCE = BuiltinImplementation()


@dataclass(frozen=True)
class Half:
    """One half's outcome: its status and detail; ``key``, the (op, message, API) whose evidence a pass by
    rejection needs (None otherwise); ``where``, a failure's class: the JSON path where the value differs
    (indices as ``[]``), ``error`` (the valid input was rejected), ``failure`` or ``bytes`` (unreadable)."""

    status: str
    detail: str = ""
    key: tuple | None = None
    where: str = ""


def declined(out: Outcome) -> Half:
    return Half("skip", f"unsupported: {out.declined}")


def api_of(v: dict) -> int | None:
    """The API a vector's frame belongs to: its ``apiKey`` (a response frame), else the first int16 of a request
    frame (its header's requestApiKey); None for bodies."""
    if v.get("apiKey") is not None or v["message"] != "RequestFrame":
        return v.get("apiKey")
    if isinstance(v.get("expected"), dict) and isinstance(v["expected"].get("apiKey"), int):
        return v["expected"]["apiKey"]
    wire = bytes.fromhex(v.get("wire", ""))
    return int.from_bytes(wire[:2], "big", signed=True) if len(wire) >= 2 else None


def key_of(op: str, v: dict) -> tuple:
    return op, v["message"], api_of(v)


_INDEX = re.compile(r"\[\d+\]")
_MAP_KEY = re.compile(r"\.(_unknownTaggedFields|clientTags)\..*")  # maps whose keys are data, not field names


def _where(diff: str) -> str:
    """The class of a first difference: its JSON path with every index written ``[]``, cut at a map whose keys
    are data (a tag number, a client tag)."""
    return _MAP_KEY.sub(r".\1", _INDEX.sub("[]", diff.split(": ", 1)[0]))


def _compare(v: dict, value: Any, what: str) -> Half:
    d = first_difference(normalize(v["message"], v["expected"]), normalize(v["message"], value))
    return Half("fail", f"{what} differs at {d}", where=_where(d)) if d else Half("pass")


def _decode_valid(impl: Implementation, v: dict) -> Half:
    msg, ver, key = v["message"], v.get("version"), v.get("apiKey")
    out = impl.decode(msg, ver, bytes.fromhex(v["wire"]), api_key=key)
    if out.declined is not None:
        return declined(out)
    if not out.ok:
        return Half("fail", f"decode failed: {why(out)}", where=klass(out))
    return _compare(v, out.value, "decoded value")


def _encode_valid(impl: Implementation, v: dict) -> Half:
    msg, ver, key = v["message"], v.get("version"), v.get("apiKey")
    enc = impl.encode(msg, ver, v["expected"], api_key=key)
    if enc.declined is not None:
        return declined(enc)
    if not enc.ok:
        return Half("fail", f"encode of expected failed: {why(enc)}", where=klass(enc))
    if not isinstance(enc.value, bytes):
        return Half("fail", "encode answered no wire", where="failure")
    wire = bytes.fromhex(v["wire"])
    if v.get("canonical") and enc.value == wire:
        return Half("pass")
    back = read_back(msg, ver, enc.value, api_key=key)  # bytes after the message's end are an error here
    if v.get("canonical"):
        where = "bytes" if not back.ok else _compare(v, back.value, "").where or "bytes"
        return Half("fail", byte_difference(msg, ver, wire, enc.value), where=where)
    if not back.ok:
        return Half("fail", f"re-encoded bytes do not decode (reference decoder): {why(back)}", where="bytes")
    return _compare(v, back.value, "re-encoded value")


def _decode_invalid(impl: Implementation, v: dict) -> Half:
    out = impl.decode(v["message"], v.get("version"), bytes.fromhex(v["wire"]), api_key=v.get("apiKey"))
    if out.declined is not None:
        return declined(out)
    if out.ok:
        return Half(
            "fail", f"accepted invalid input (expected {v.get('error', 'an error')}); decoded {short_json(out.value)}"
        )
    return Half("pass", key=key_of("decode", v)) if out.rejected else Half("fail", why(out))


def _encode_invalid(impl: Implementation, v: dict) -> Half:
    msg, ver, key = v["message"], v.get("version"), v.get("apiKey")
    enc = impl.encode(msg, ver, v["expected"], api_key=key)
    if enc.declined is not None:
        return declined(enc)
    if enc.ok:
        return Half("fail", _refusal_diff(v, enc.value))
    return Half("pass", key=key_of("encode", v)) if enc.rejected else Half("fail", why(enc))


def _refusal_diff(v: dict, wire: Any) -> str:
    """An encoder wrote a value Kafka refuses: what it wrote, as the field that does not survive (read back
    with the reference decoder) or else as bytes."""
    head = f"encoded a value that must be refused ({v.get('error', 'an error')})"
    if not isinstance(wire, bytes):
        return f"{head}: answered no wire"
    back = _REFERENCE.decode(v["message"], v.get("version"), wire, api_key=v.get("apiKey"))
    if back.ok:
        d = first_difference(normalize(v["message"], v["expected"]), normalize(v["message"], back.value))
        if d:
            return f"{head}; its bytes read back as {d}"
    return f"{head}: {wire.hex()[:64]}"


def _decode_acceptable(impl: Implementation, v: dict) -> Half:
    """Either outcome is Kafka's; a value must still be the one ``expected`` says (a vector without one is
    refused by the linter: every answer is checked)."""
    out = impl.decode(v["message"], v.get("version"), bytes.fromhex(v["wire"]), api_key=v.get("apiKey"))
    if out.declined is not None:
        return declined(out)
    if out.failure:
        return Half("fail", why(out))
    if out.rejected:
        return Half("pass", key=key_of("decode", v))
    if "expected" not in v:
        return Half("fail", f"decoded {short_json(out.value)}, but the vector has no expected value to compare with")
    return _compare(v, out.value, "decoded value")


_HALVES = {
    ("valid", "decode"): _decode_valid,
    ("valid", "encode"): _encode_valid,
    ("invalid", "decode"): _decode_invalid,
    ("invalid", "encode"): _encode_invalid,
    ("acceptable", "decode"): _decode_acceptable,
}


def check(impl: Implementation, v: dict, op: str) -> Half:
    try:
        return _HALVES[(v["result"], op)](impl, v)
    except Exception as e:  # noqa: BLE001 - an adapter that crashes the runner fails its vector
        return Half("fail", clip(f"runner error: {type(e).__name__}: {e}"), where="failure")


def case_vector(case: Case) -> dict:
    """A generated case as a valid vector (the form the half checks take)."""
    return {
        "id": case.id,
        "message": case.message,
        "version": case.version,
        "apiKey": case.api_key,
        "wire": case.wire.hex(),
        "expected": case.value,
        "result": "valid",
        "canonical": case.canonical,
    }


def check_round(impl: Implementation, r: dict, compare) -> Half:
    """Ask ``impl`` to assign round ``r`` (its ``assignments`` left out) and compare its answer with them
    (``compare``: a :class:`codec.conformance.rounds.RoundFamily`'s, the difference and its class, or None)."""
    query = {k: v for k, v in r.items() if k not in ("assignments", "_file")}
    try:
        out = impl.assign(query)
        if out.declined is not None:
            return declined(out)
        if not out.ok:
            return Half("fail", f"assign failed: {why(out)}", where=klass(out))
        found = compare(r, out.value)
    except Exception as e:  # noqa: BLE001 - an adapter that crashes the runner fails its round
        return Half("fail", clip(f"runner error: {type(e).__name__}: {e}"), where="failure")
    return Half("pass") if found is None else Half("fail", found[0], where=found[1])
