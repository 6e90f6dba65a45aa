"""The conformance runner: every vector against an implementation, with diffs people can act on.

The algorithm (also in vectors/README.md):

* ``valid``: decode ``wire``; the answer must match ``expected`` (the fields ``expected`` names; unordered
  collections compared as sets). Then encode ``expected``: with ``canonical`` the bytes must equal
  ``wire``; without, the reference decoder must read them back to ``expected``.
* ``invalid`` with ``wire``: decoding must fail. ``invalid`` without ``wire``: encoding ``expected`` (the
  input value) must fail.
* ``acceptable``: either outcome passes; a successful decode must still match ``expected``.

Each vector has one or two halves, one per op it uses (:func:`vector_ops`): the decode half and the encode
half of a valid vector are checked, selected, declared and declined separately. An answer
``{"unsupported": "<reason>"}`` skips its half, whatever the vector's result; a half the adapter's declared
capabilities leave out is skipped without being sent ("not declared"). A vector fails when a half fails,
passes when a half passes and none fails, and is skipped when every half is.

A rejection is only evidence from an adapter that reads (or writes) valid input of the same message and
version: a rejection of an invalid vector passes only once the adapter has answered a valid request of the
same op, message and version (of the message, when the suite has no valid vector at that version), in the
run or in one of up to three extra requests for valid vectors (witnesses). An adapter that rejects everything fails the
invalid vectors too; one that does not implement a message says so with ``unsupported``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from .. import text as _text
from ..wire.builder import field_offsets
from ..wire.schema import schema_names
from .impl import BuiltinImplementation, Implementation, Outcome
from .messages import normalize

__all__ = ["VectorResult", "run_vectors", "run_rebalance_rounds", "first_difference", "byte_difference", "summarize",
           "DECODE_ONLY", "ENCODE_ONLY", "OPS", "vector_ops", "Capabilities", "parse_versions", "ask_capabilities", "STATUSES"]

# Vectors with these flags are checked in the decode direction only: a version probe cannot be encoded (no
# such version exists), and a capture's expected value names only the facts recorded with it.
DECODE_ONLY = {"version-probe", "capture-facts"}
# and these in the encode direction only: expected sets an ignorable field the version lacks, which Kafka's writer
# leaves out, so decoding wire gives the value without it
ENCODE_ONLY = {"ignorable-dropped"}
OPS = ("decode", "encode", "assign")
# pass, fail, skip (declined or not declared), xfail (a failure an expectations file lists), xpass (a listed
# vector that passes: fixed, the list is stale)
STATUSES = ("pass", "fail", "skip", "xfail", "xpass")


@dataclass(frozen=True)
class VectorResult:
    id: str
    message: str
    version: int | None
    status: str  # one of STATUSES
    detail: str = ""  # the one-line diff of a failure, or why a vector was skipped
    flags: tuple[str, ...] = field(default=())
    reason: str = ""  # skip: the adapter's reason or "not declared"; xfail/xpass: the expectations file's comment
    ops: tuple[tuple[str, str, str], ...] = field(default=())  # (op, status, detail) of each half checked


def vector_ops(v: dict) -> tuple[str, ...]:
    """The ops a vector uses: a valid vector decodes ``wire`` and encodes ``expected`` (decode only when
    flagged ``version-probe`` or ``capture-facts``); an invalid vector with ``wire`` decodes, one without
    encodes; an acceptable vector decodes. Rebalance rounds use ``assign``."""
    if v["result"] == "valid":
        flags = set(v.get("flags", ()))
        return ("decode",) if DECODE_ONLY & flags else ("encode",) if ENCODE_ONLY & flags else ("decode", "encode")
    if v["result"] == "invalid" and "wire" not in v:
        return ("encode",)
    return ("decode",)


_RANGE = re.compile(r"(\d+)(?:(-)(\d*))?\Z")


def parse_versions(text: Any) -> tuple[int, int | None]:
    """A version range: ``3`` (just 3), ``3-5`` (3 to 5), ``5-`` (5 and later); an integer is itself.
    Returns (lowest, highest or None); raises ValueError naming the text."""
    if isinstance(text, int) and not isinstance(text, bool) and text >= 0:
        return text, text
    m = _RANGE.match(text.strip()) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"{_short(text)} is not a version range (3, 3-5 or 5-)")
    lo = int(m.group(1))
    if not m.group(2):
        return lo, lo
    hi = int(m.group(3)) if m.group(3) else None
    if hi is not None and hi < lo:
        raise ValueError(f"{_short(text)} is an empty version range")
    return lo, hi


def in_ranges(version: int | None, ranges: list[tuple[int, int | None]] | None) -> bool:
    """Whether ``version`` is in one of ``ranges`` (None: every version, also none)."""
    if ranges is None:
        return True
    return version is not None and any(lo <= version and (hi is None or version <= hi) for lo, hi in ranges)


class Capabilities:
    """What an adapter declared it does, from its answer to ``{"op": "capabilities"}``: a list of entries
    ``{"op": <op or list>, "message": <name or list, absent: every message>, "versions": <range or list,
    absent: every version>}``. A half is sent only when an entry covers its op, message and version."""

    def __init__(self, entries: list[tuple[frozenset, frozenset | None, list | None]]) -> None:
        self.entries = entries

    @classmethod
    def parse(cls, value: Any) -> Capabilities:
        """Raises ValueError with what is wrong with the declaration."""
        if not isinstance(value, list):
            raise ValueError("capabilities is not a list")  # noqa: TRY004
        entries = []
        for i, e in enumerate(value):
            where = f"capabilities[{i}]"
            if not isinstance(e, dict):
                raise ValueError(f"{where} is not an object")  # noqa: TRY004
            unknown = set(e) - {"op", "message", "versions"}
            if unknown:
                raise ValueError(f"{where} has unknown keys {sorted(unknown)}")
            ops = e.get("op")
            ops = [ops] if isinstance(ops, str) else ops
            if not isinstance(ops, list) or not ops or any(o not in OPS for o in ops):
                raise ValueError(f"{where}.op is not one of {', '.join(OPS)} (or a list of them)")
            messages = e.get("message")
            if messages is not None:
                messages = [messages] if isinstance(messages, str) else messages
                if not isinstance(messages, list) or not all(isinstance(m, str) for m in messages):
                    raise ValueError(f"{where}.message is not a message name or a list of them")
            versions = e.get("versions")
            if versions is not None:
                versions = [parse_versions(x) for x in (versions if isinstance(versions, list) else [versions])]
            entries.append((frozenset(ops), None if messages is None else frozenset(messages), versions))
        return cls(entries)

    def covers(self, op: str, message: str, version: int | None) -> bool:
        return any(op in ops and (msgs is None or message in msgs) and in_ranges(version, vs)
                   for ops, msgs, vs in self.entries)

    def describe(self) -> str:
        def one(ops, msgs, vs):
            if ops == {"assign"}:
                return "assign"
            what = ("every message" if msgs is None else ", ".join(sorted(msgs)) if len(msgs) <= 4
                    else f"{len(msgs)} messages")
            ver = "" if vs is None else " v" + ",".join(f"{lo}" if lo == hi else f"{lo}-{'' if hi is None else hi}"
                                                      for lo, hi in vs)
            return f"{'/'.join(o for o in OPS if o in ops)} {what}{ver}"
        return "; ".join(one(*e) for e in self.entries) or "nothing"


def ask_capabilities(impl: Implementation) -> tuple[Capabilities | None, str]:
    """Ask the optional first request. Returns (the declaration, or None: ask everything; a line saying
    what happened). An error, ``unsupported``, no answer, or an answer that is not a declaration: asked
    everything."""
    ask = getattr(impl, "capabilities", None)
    if ask is None:
        return None, "capabilities: not asked; every vector is sent"
    out = ask()
    if out.ok:
        try:
            caps = Capabilities.parse(out.value)
        except ValueError as e:
            return None, f"capabilities: the answer is not a declaration ({e}); every vector is sent"
        from .messages import MESSAGES

        named = {m for _, msgs, _ in caps.entries for m in (msgs or ())}
        unknown = sorted(named - set(MESSAGES) - {"RebalanceRound"})
        note = f" (no such message in the suite: {', '.join(unknown)})" if unknown else ""
        return caps, f"capabilities: {caps.describe()}{note}"
    why = (f"the adapter declined ({out.declined})" if out.declined is not None else
           f"the adapter answered an error ({out.error.get('message')})" if out.error is not None else out.failure)
    return None, f"capabilities: none declared ({why}); every vector is sent"


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


_REFERENCE = BuiltinImplementation()

# A half's outcome: (status, detail, key) where key names the (op, message, version, apiKey) whose evidence a
# pass by rejection needs (None otherwise).
_Half = tuple


def _declined(out: Outcome) -> _Half | None:
    return ("skip", f"unsupported: {out.declined}", None) if out.declined is not None else None


def _api(v: dict) -> int | None:
    """The API a vector's frame belongs to: its ``apiKey`` (a response frame), else the first int16 of a request
    frame (its header's requestApiKey); None for bodies."""
    if v.get("apiKey") is not None or v["message"] != "RequestFrame":
        return v.get("apiKey")
    if isinstance(v.get("expected"), dict) and isinstance(v["expected"].get("apiKey"), int):
        return v["expected"]["apiKey"]
    wire = bytes.fromhex(v.get("wire", ""))
    return int.from_bytes(wire[:2], "big", signed=True) if len(wire) >= 2 else None


def _key(op: str, v: dict) -> tuple:
    return op, v["message"], v.get("version"), _api(v)


def _decode_valid(impl: Implementation, v: dict) -> _Half:
    msg, ver, key = v["message"], v.get("version"), v.get("apiKey")
    out = impl.decode(msg, ver, bytes.fromhex(v["wire"]), api_key=key)
    if out.declined is not None:
        return _declined(out)
    if not out.ok:
        return "fail", f"decode failed: {_why(out)}", None
    d = first_difference(normalize(msg, v["expected"]), normalize(msg, out.value))
    return ("fail", f"decoded value differs at {d}", None) if d else ("pass", "", None)


def _encode_valid(impl: Implementation, v: dict) -> _Half:
    msg, ver, key = v["message"], v.get("version"), v.get("apiKey")
    enc = impl.encode(msg, ver, v["expected"], api_key=key)
    if enc.declined is not None:
        return _declined(enc)
    if not enc.ok:
        return "fail", f"encode of expected failed: {_why(enc)}", None
    if not isinstance(enc.value, bytes):
        return "fail", "encode answered no wire", None
    wire = bytes.fromhex(v["wire"])
    if v.get("canonical"):
        return ("fail", byte_difference(msg, ver, wire, enc.value), None) if enc.value != wire else ("pass", "", None)
    back = _REFERENCE.decode(msg, ver, enc.value, api_key=key)
    if not back.ok:
        return "fail", f"re-encoded bytes do not decode (reference decoder): {_why(back)}", None
    d = first_difference(normalize(msg, v["expected"]), normalize(msg, back.value))
    return ("fail", f"re-encoded value differs at {d}", None) if d else ("pass", "", None)


def _decode_invalid(impl: Implementation, v: dict) -> _Half:
    out = impl.decode(v["message"], v.get("version"), bytes.fromhex(v["wire"]), api_key=v.get("apiKey"))
    if out.declined is not None:
        return _declined(out)
    if out.ok:
        return "fail", f"accepted invalid input (expected {v.get('error', 'an error')}); decoded {_short(out.value)}", None
    return ("pass", "", _key("decode", v)) if out.rejected else ("fail", _why(out), None)


def _encode_invalid(impl: Implementation, v: dict) -> _Half:
    msg, ver, key = v["message"], v.get("version"), v.get("apiKey")
    enc = impl.encode(msg, ver, v["expected"], api_key=key)
    if enc.declined is not None:
        return _declined(enc)
    if enc.ok:
        return "fail", _refusal_diff(v, enc.value), None
    return ("pass", "", _key("encode", v)) if enc.rejected else ("fail", _why(enc), None)


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


def _decode_acceptable(impl: Implementation, v: dict) -> _Half:
    out = impl.decode(v["message"], v.get("version"), bytes.fromhex(v["wire"]), api_key=v.get("apiKey"))
    if out.declined is not None:
        return _declined(out)
    if out.failure:
        return "fail", _why(out), None
    if out.ok and "expected" in v:
        d = first_difference(normalize(v["message"], v["expected"]), normalize(v["message"], out.value))
        if d:
            return "fail", f"decoded value differs at {d}", None
    return ("pass", "", _key("decode", v) if out.rejected else None)


_HALVES = {("valid", "decode"): _decode_valid, ("valid", "encode"): _encode_valid,
           ("invalid", "decode"): _decode_invalid, ("invalid", "encode"): _encode_invalid,
           ("acceptable", "decode"): _decode_acceptable}


class _Recording:
    """The implementation, noting which (op, message, version, API) it answered with a value."""

    def __init__(self, impl: Implementation) -> None:
        self.impl, self.answered = impl, set()

    def decode(self, message, version, wire, reader_version=None, api_key=None) -> Outcome:
        out = self.impl.decode(message, version, wire, reader_version=reader_version, api_key=api_key)
        if out.ok:
            self.answered.add(_key("decode", {"message": message, "version": version, "apiKey": api_key,
                                              "wire": wire.hex()}))
        return out

    def encode(self, message, version, value, api_key=None) -> Outcome:
        out = self.impl.encode(message, version, value, api_key=api_key)
        if out.ok:
            self.answered.add(_key("encode", {"message": message, "version": version, "apiKey": api_key,
                                              "expected": value}))
        return out


def _combine(v: dict, halves: list[tuple[str, _Half]]) -> VectorResult:
    statuses = [h[0] for _, h in halves]
    ops = tuple((op, h[0], h[1]) for op, h in halves)
    status = "fail" if "fail" in statuses else "pass" if "pass" in statuses else "skip"
    detail = next((h[1] for _, h in halves if h[0] == status), "")
    if status == "skip":
        reason = detail.removeprefix("unsupported: ")
    else:  # a half skipped beside one checked: say which, and why
        reason = "; ".join(f"{op} skipped: {h[1].removeprefix('unsupported: ')}" for op, h in halves if h[0] == "skip")
    return VectorResult(v["id"], v["message"], v.get("version"), status, detail, tuple(v.get("flags", ())), reason, ops)


def run_vectors(impl: Implementation, vectors: Iterable[dict], *, ops: Iterable[str] | None = None,
                declared: Capabilities | None = None, witnesses: Iterable[dict] | None = None) -> list[VectorResult]:
    """Every vector's halves (those of ``ops``; default all) against ``impl``. Halves ``declared`` leaves out
    are skipped unsent. ``witnesses``: where valid vectors for the rejection-evidence rule come from (default:
    ``vectors``). A vector none of whose halves is selected has no result."""
    vectors = list(vectors)
    wanted = set(ops or OPS)
    rec = _Recording(impl)
    runs: list[tuple[dict, list[tuple[str, _Half]]]] = []
    for v in vectors:
        halves = []
        for op in vector_ops(v):
            if op not in wanted:
                continue
            if declared is not None and not declared.covers(op, v["message"], v.get("version")):
                halves.append((op, ("skip", "not declared", None)))
                continue
            try:
                halves.append((op, _HALVES[(v["result"], op)](rec, v)))
            except Exception as e:  # noqa: BLE001 - an adapter that crashes the runner fails its vector
                halves.append((op, ("fail", f"runner error: {type(e).__name__}: {e}", None)))
        if halves:
            runs.append((v, halves))
    _require_evidence(rec, runs, list(witnesses) if witnesses is not None else vectors, declared)
    return [_combine(v, halves) for v, halves in runs]


def _require_evidence(rec: _Recording, runs: list, pool: list[dict], declared: Capabilities | None) -> None:
    """Turn passes by rejection into failures (or skips) where the adapter answers no valid request of the
    same op, message and version (of the message, when no valid vector has that version)."""
    verdicts: dict[tuple, _Half | None] = {}
    for _v, halves in runs:
        for i, (op, half) in enumerate(halves):
            key = half[2]
            if half[0] != "pass" or key is None:
                continue
            if key not in verdicts:
                verdicts[key] = _evidence(rec, key, pool, declared)
            if verdicts[key] is not None:
                halves[i] = (op, verdicts[key])


_SUITE: list[dict] = []


def _suite() -> list[dict]:
    """The golden vectors, as witnesses when the vectors run hold none (loaded once; none if unreadable)."""
    if not _SUITE:
        from .vectors import VectorFileError, load_vectors

        try:
            _SUITE.extend(load_vectors())
        except (VectorFileError, OSError):
            pass
    return _SUITE


def _evidence(rec: _Recording, key: tuple, pool: list[dict], declared: Capabilities | None) -> _Half | None:
    op, message, version, api_key = key
    if key in rec.answered:
        return None

    def usable(w: dict) -> bool:
        return (w["result"] == "valid" and w["message"] == message and op in vector_ops(w)
                and (declared is None or declared.covers(op, message, w.get("version"))))

    def exact(w: dict) -> bool:
        return usable(w) and w.get("version") == version and _api(w) == api_key

    same = [w for w in pool if exact(w)] or [w for w in _suite() if exact(w)]
    if not same:  # no valid vector at this version (a version probe, a version that does not exist)
        if any(k[0] == op and k[1] == message and k[3] == api_key for k in rec.answered):
            return None
        same = [w for w in pool if usable(w) and _api(w) == api_key] or \
            [w for w in _suite() if usable(w) and _api(w) == api_key]
        if not same:
            return None  # nothing to ask: the rejection stands
    for w in same[:3]:  # a witness or two may hit a bug of their own: three chances
        try:
            if op == "decode":
                out = rec.decode(message, w.get("version"), bytes.fromhex(w["wire"]), api_key=w.get("apiKey"))
            else:
                out = rec.encode(message, w.get("version"), w["expected"], api_key=w.get("apiKey"))
        except Exception as e:  # noqa: BLE001 - as in run_vectors
            out = Outcome(failure=f"runner error: {type(e).__name__}: {e}")
        if out.ok:
            return None
        if out.declined is not None:
            break
    if out.declined is not None:
        return "skip", f"unsupported: the adapter declines valid input of the same message ({w['id']}: {out.declined})", None
    return "fail", (f"rejected, but the adapter also {op}s no valid {message} input (vector {w['id']}: {_why(out)}); "
                    "a rejection counts from an implementation of the message; decline with unsupported"), None


def summarize(results: list[VectorResult]) -> list[dict]:
    """Per (message, version): counts of vectors and of each status."""
    table: dict[tuple[str, Any], dict] = {}
    names = {"pass": "passed", "fail": "failed", "skip": "skipped", "xfail": "xfailed", "xpass": "fixed"}
    for r in results:
        row = table.setdefault((r.message, r.version), {"message": r.message, "version": r.version, "vectors": 0,
                                                         **{n: 0 for n in names.values()}})
        row["vectors"] += 1
        row[names[r.status]] += 1
    return [table[k] for k in sorted(table, key=lambda k: (k[0], -1 if k[1] is None else k[1]))]


def run_rebalance_rounds(impl: Implementation, rounds: Iterable[dict], *,
                         declared: Capabilities | None = None) -> list[VectorResult]:
    """Every rebalance round: the implementation's leader must assign what the round expects."""
    from .rebalance import compare_round

    results = []
    for r in rounds:
        if declared is not None and not declared.covers("assign", "RebalanceRound", None):
            results.append(VectorResult(r["id"], "RebalanceRound", None, "skip", "not declared", (), "not declared",
                                        (("assign", "skip", "not declared"),)))
            continue
        query = {k: v for k, v in r.items() if k not in ("assignments", "_file")}
        status = "fail"
        try:
            out = impl.assign(query)
            if out.declined is not None:
                status, problem = "skip", f"unsupported: {out.declined}"
            else:
                problem = f"assign failed: {_why(out)}" if not out.ok else compare_round(r, out.value)
        except Exception as e:  # an adapter that crashes the runner is a failing round, not a crash
            problem = f"runner error: {type(e).__name__}: {e}"
        if status != "skip":
            status = "fail" if problem else "pass"
        reason = problem.removeprefix("unsupported: ") if status == "skip" else ""
        results.append(VectorResult(r["id"], "RebalanceRound", None, status, problem or "", (), reason,
                                    (("assign", status, problem or ""),)))
    return results
