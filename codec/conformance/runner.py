"""The conformance runner: every vector against an implementation, with diffs people can act on.

The algorithm (also in vectors/README.md):

* ``valid``: decode ``wire``; the answer must match ``expected`` (the fields ``expected`` names; unordered
  collections compared as sets). Then encode ``expected``: with ``canonical`` the bytes must equal
  ``wire``; without, they must decode back to ``expected``.
* ``invalid`` with ``wire``: decoding must fail. ``invalid`` without ``wire``: encoding ``expected`` (the
  input value) must fail.
* ``acceptable``: either outcome passes; a successful decode must still match ``expected``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from .. import text as _text
from ..wire.builder import field_offsets
from ..wire.schema import schema_names
from .impl import Implementation, Outcome
from .messages import normalize

__all__ = ["VectorResult", "run_vectors", "run_rebalance_rounds", "first_difference", "byte_difference", "summarize", "DECODE_ONLY"]

# Vectors with these flags are checked in the decode direction only: a version probe cannot be encoded (no
# such version exists), and a capture's expected value names only the facts recorded with it.
DECODE_ONLY = {"version-probe", "capture-facts"}


@dataclass(frozen=True)
class VectorResult:
    id: str
    message: str
    version: int | None
    status: str  # "pass" | "fail"
    detail: str = ""
    flags: tuple[str, ...] = field(default=())


def first_difference(expected: Any, actual: Any, path: str = "$") -> str | None:
    """The first place where ``actual`` does not match ``expected`` (fields ``expected`` does not name are
    not compared), as ``path: expected X, got Y``; None when they match."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {_short(actual)}"
        for k, v in expected.items():
            if k not in actual:
                return f"{path}.{k}: missing (expected {_short(v)})"
            d = first_difference(v, actual[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{path}: expected a list, got {_short(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            d = first_difference(e, a, f"{path}[{i}]")
            if d:
                return d
        if len(expected) != len(actual):
            return f"{path}: expected {len(expected)} elements, got {len(actual)}"
        return None
    if isinstance(expected, bool) or isinstance(actual, bool):  # JSON true is not 1
        same = type(expected) is type(actual) and expected == actual
    else:
        same = expected == actual
    return None if same else f"{path}: expected {_short(expected)}, got {_short(actual)}"


def _short(v: Any) -> str:
    s = _text.dumps(v)
    return s if len(s) <= 80 else s[:77] + "..."


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
    exp, got = expected[n:n + 8].hex(), actual[n:n + 8].hex()
    if len(expected) != len(actual) and n == min(len(expected), len(actual)):
        return f"encodings differ in length: expected {len(expected)} bytes, got {len(actual)}{where}"
    return f"encoding differs at byte {n}{where}: expected {exp}..., got {got}..."


_SCHEMAS = set(schema_names())


def _why(out: Outcome) -> str:
    """Why an answer is not a value: the adapter's failure, or the rejection's message."""
    if out.failure:
        return f"adapter failure: {out.failure}"
    return str(out.error.get("message"))


def _check_valid(impl: Implementation, v: dict) -> str | None:
    msg, ver, key = v["message"], v.get("version"), v.get("apiKey")
    wire = bytes.fromhex(v["wire"])
    expected = normalize(msg, v["expected"])
    out = impl.decode(msg, ver, wire, api_key=key)
    if not out.ok:
        return f"decode failed: {_why(out)}"
    d = first_difference(expected, normalize(msg, out.value))
    if d:
        return f"decoded value differs at {d}"
    if DECODE_ONLY & set(v.get("flags", ())):
        return None
    enc = impl.encode(msg, ver, v["expected"], api_key=key)
    if not enc.ok:
        return f"encode of expected failed: {_why(enc)}"
    if v.get("canonical"):
        if enc.value != wire:
            return byte_difference(msg, ver, wire, enc.value)
        return None
    back = impl.decode(msg, ver, enc.value, api_key=key)
    if not back.ok:
        return f"re-encoded bytes do not decode: {_why(back)}"
    d = first_difference(expected, normalize(msg, back.value))
    return f"re-encoded value differs at {d}" if d else None


def _check_invalid(impl: Implementation, v: dict) -> str | None:
    msg, ver, key = v["message"], v.get("version"), v.get("apiKey")
    if "wire" in v:
        out = impl.decode(msg, ver, bytes.fromhex(v["wire"]), api_key=key)
        if out.ok:
            return f"accepted invalid input (expected {v.get('error', 'an error')}); decoded {_short(out.value)}"
        return None if out.rejected else _why(out)
    enc = impl.encode(msg, ver, v["expected"], api_key=key)
    if enc.ok:
        return f"encoded a value that must be refused ({v.get('error', 'an error')}): {enc.value.hex()[:64]}"
    return None if enc.rejected else _why(enc)


def _check_acceptable(impl: Implementation, v: dict) -> str | None:
    out = impl.decode(v["message"], v.get("version"), bytes.fromhex(v["wire"]), api_key=v.get("apiKey"))
    if out.failure:
        return _why(out)
    if out.ok and "expected" in v:
        d = first_difference(normalize(v["message"], v["expected"]), normalize(v["message"], out.value))
        if d:
            return f"decoded value differs at {d}"
    return None


_CHECKS = {"valid": _check_valid, "invalid": _check_invalid, "acceptable": _check_acceptable}


def run_vectors(impl: Implementation, vectors: Iterable[dict]) -> list[VectorResult]:
    results = []
    for v in vectors:
        try:
            problem = _CHECKS[v["result"]](impl, v)
        except Exception as e:  # an adapter that crashes the runner is a failing vector, not a crash
            problem = f"runner error: {type(e).__name__}: {e}"
        results.append(VectorResult(v["id"], v["message"], v.get("version"), "fail" if problem else "pass",
                                    problem or "", tuple(v.get("flags", ()))))
    return results


def summarize(results: list[VectorResult]) -> list[dict]:
    """Per (message, version): counts of vectors, passes and failures."""
    table: dict[tuple[str, Any], dict] = {}
    for r in results:
        row = table.setdefault((r.message, r.version), {"message": r.message, "version": r.version,
                                                         "vectors": 0, "passed": 0, "failed": 0})
        row["vectors"] += 1
        row["passed" if r.status == "pass" else "failed"] += 1
    return [table[k] for k in sorted(table, key=lambda k: (k[0], -1 if k[1] is None else k[1]))]


def run_rebalance_rounds(impl: Implementation, rounds: Iterable[dict]) -> list[VectorResult]:
    """Every rebalance round: the implementation's leader must assign what the round expects."""
    from .rebalance import compare_round

    results = []
    for r in rounds:
        query = {k: v for k, v in r.items() if k not in ("assignments", "_file")}
        try:
            out = impl.assign(query)
            problem = f"assign failed: {_why(out)}" if not out.ok else compare_round(r, out.value)
        except Exception as e:  # an adapter that crashes the runner is a failing round, not a crash
            problem = f"runner error: {type(e).__name__}: {e}"
        results.append(VectorResult(r["id"], "RebalanceRound", None, "fail" if problem else "pass", problem or ""))
    return results
