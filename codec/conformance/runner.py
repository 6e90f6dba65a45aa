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

**The order of a run** (:func:`run_all`): no answer may be copied from bytes the run showed earlier. Every
writing request comes first (the encode halves, the generated encode cases, the rebalance rounds), then the
adapter is restarted and every reading request follows (the decode halves, the generated decode cases) in a
process that never saw a value it is asked for. Each part is shuffled by the run's seed; within the writing
part a message's encode halves come before those of every message that carries it as bytes (SubscriptionInfo
before ConsumerProtocol before JoinGroup before frames), so no value shown holds the bytes of one still to be
asked.

**Evidence.** A rejection is only evidence from an adapter that reads (or writes) valid input of the same
message: a rejection passes an invalid vector only once the adapter has answered a valid request of the same
op and message (for a frame, of the same API) correctly, at any version: a valid half of the run that passed,
or one of up to three *witnesses* the runner then asks, declared or not (fresh generated values first, then
the suite's valid vectors). Where the adapter declines the witnesses, or there is none to ask, the rejection
is skipped ("no evidence"); where it answers them wrongly, the rejection fails ("decline with unsupported").
And any pass of a vector's half counts only where the adapter also passes a generated case of the same op and
message (and API), if the run drew any: values nobody wrote down are what an adapter that knows the suite by
heart cannot answer.
"""

from __future__ import annotations

import bisect
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..wire.builder import field_offsets
from ..wire.schema import schema_names
from .generate import Case, draw_case, generated_cells, plan, take_case
from .impl import BuiltinImplementation, Implementation, Outcome, clip, read_back
from .messages import first_difference, normalize, short_json
from .vectors import DECODE_ONLY, ENCODE_ONLY
from .vectors import suite as suite_vectors

__all__ = [
    "VectorResult",
    "GeneratedRun",
    "RunResults",
    "run_all",
    "run_vectors",
    "run_rebalance_rounds",
    "first_difference",
    "byte_difference",
    "summarize",
    "DECODE_ONLY",
    "ENCODE_ONLY",
    "OPS",
    "vector_ops",
    "Capabilities",
    "parse_versions",
    "ask_capabilities",
    "STATUSES",
    "write_rank",
    "preload",
]

OPS = ("decode", "encode", "assign")
# pass, fail, skip (declined or not declared), xfail (a failure an expectations file lists), xpass (a listed
# vector that passes: fixed, the list is stale)
STATUSES = ("pass", "fail", "skip", "xfail", "xpass")
DETAIL = 2 * 300  # characters of a result's detail or reason (adapter text inside is clipped to 300 already)


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


_RANGE = re.compile(r"([0-9]{1,10})(?:(-)([0-9]{0,10}))?\Z")


def parse_versions(text: Any) -> tuple[int, int | None]:
    """A version range: ``3`` (just 3), ``3-5`` (3 to 5), ``5-`` (5 and later); an integer is itself.
    Returns (lowest, highest or None); raises ValueError naming the text."""
    if isinstance(text, int) and not isinstance(text, bool) and text >= 0:
        return text, text
    m = _RANGE.match(text.strip()) if isinstance(text, str) and len(text) < 64 else None
    if not m:
        raise ValueError(f"{short_json(text)} is not a version range (3, 3-5 or 5-)")
    lo = int(m.group(1))
    if not m.group(2):
        return lo, lo
    hi = int(m.group(3)) if m.group(3) else None
    if hi is not None and hi < lo:
        raise ValueError(f"{short_json(text)} is an empty version range")
    return lo, hi


def in_ranges(version: int | None, ranges: list[tuple[int, int | None]] | None) -> bool:
    """Whether ``version`` is in one of ``ranges`` (None: every version, also none)."""
    if ranges is None:
        return True
    return version is not None and any(lo <= version and (hi is None or version <= hi) for lo, hi in ranges)


MAX_ENTRIES = 10_000  # entries of a capabilities declaration
MAX_NAMES = 200_000  # message names and version ranges over the whole declaration
MAX_CELLS = 1_000_000  # sum over the entries of (message names x version ranges)
_ALL = None  # every version (records have none)
_TOP = 1 << 62  # "and later"


class Capabilities:
    """What an adapter declared it does, from its answer to ``{"op": "capabilities"}``: a list of entries
    ``{"op": <op or list>, "message": <name or list, absent: every message>, "versions": <range or list,
    absent: every version>}``. A half is sent only when an entry covers its op, message and version.

    The entries are merged once into sorted, disjoint version intervals per (op, message), so asking costs a
    binary search whatever the declaration's size; a declaration past :data:`MAX_ENTRIES` entries,
    :data:`MAX_NAMES` names and ranges or :data:`MAX_CELLS` name x range pairs is refused as too large."""

    def __init__(self, entries: list[tuple[frozenset, frozenset | None, list | None]]) -> None:
        self.entries = entries
        table: dict[tuple[str, str | None], list | None] = {}
        for ops, msgs, vs in entries:
            for op in ops:
                for m in msgs if msgs is not None else (None,):
                    if vs is None:
                        table[(op, m)] = _ALL
                    else:
                        spans = table.setdefault((op, m), [])
                        if spans is not None:  # None: _ALL, every version already
                            spans.extend((lo, _TOP if hi is None else hi) for lo, hi in vs)
        self._table = {k: (_ALL if v is _ALL else _merge(v)) for k, v in table.items()}

    @classmethod
    def parse(cls, value: Any) -> Capabilities:
        """Raises ValueError with what is wrong with the declaration."""
        if not isinstance(value, list):
            raise ValueError("capabilities is not a list")  # noqa: TRY004
        if len(value) > MAX_ENTRIES:
            raise ValueError(f"capabilities has {len(value)} entries (at most {MAX_ENTRIES} are read)")
        entries = []
        names = cells = 0
        for i, e in enumerate(value):
            where = f"capabilities[{i}]"
            if not isinstance(e, dict):
                raise ValueError(f"{where} is not an object")  # noqa: TRY004
            unknown = set(e) - {"op", "message", "versions"}
            if unknown:
                raise ValueError(f"{where} has unknown keys {short_json(sorted(unknown))}")
            ops = e.get("op")
            ops = [ops] if isinstance(ops, str) else ops
            if not isinstance(ops, list) or not ops or len(ops) > len(OPS) * 4 or any(o not in OPS for o in ops):
                raise ValueError(f"{where}.op is not one of {', '.join(OPS)} (or a list of them)")
            messages = e.get("message")
            if messages is not None:
                messages = [messages] if isinstance(messages, str) else messages
                if not isinstance(messages, list) or not all(isinstance(m, str) for m in messages):
                    raise ValueError(f"{where}.message is not a message name or a list of them")
            versions = e.get("versions")
            if versions is not None:
                versions = versions if isinstance(versions, list) else [versions]
            names += len(messages or ()) + len(versions or ())
            cells += max(1, len(messages or ())) * max(1, len(versions or ()))
            if names > MAX_NAMES or cells > MAX_CELLS:
                raise ValueError(
                    f"capabilities is too large: more than {MAX_NAMES} message names and version "
                    f"ranges, or {MAX_CELLS} pairs of them, by {where}"
                )
            if versions is not None:
                versions = [parse_versions(x) for x in versions]
            entries.append((frozenset(ops), None if messages is None else frozenset(messages), versions))
        return cls(entries)

    def covers(self, op: str, message: str, version: int | None) -> bool:
        for key in ((op, message), (op, None)):
            if key not in self._table:
                continue
            spans = self._table[key]
            if spans is _ALL:
                return True
            if version is not None:
                i = bisect.bisect_right(spans, (version, _TOP)) - 1
                if i >= 0 and spans[i][0] <= version <= spans[i][1]:
                    return True
        return False

    def describe(self, limit: int = 12) -> str:
        def one(ops, msgs, vs):
            if ops == {"assign"}:
                return "assign"
            what = (
                "every message"
                if msgs is None
                else ", ".join(sorted(msgs))
                if len(msgs) <= 4
                else f"{len(msgs)} messages"
            )
            shown = vs if vs is None or len(vs) <= 8 else vs[:8]
            ver = (
                ""
                if shown is None
                else " v" + ",".join(f"{lo}" if lo == hi else f"{lo}-{'' if hi is None else hi}" for lo, hi in shown)
            )
            if vs is not None and len(vs) > 8:
                ver += f",... ({len(vs)} ranges)"
            return f"{'/'.join(o for o in OPS if o in ops)} {what}{ver}"

        parts = [one(*e) for e in self.entries[:limit]]
        if len(self.entries) > limit:
            parts.append(f"... and {len(self.entries) - limit} more entries")
        return "; ".join(parts) or "nothing"


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, disjoint intervals covering ``spans`` (touching ones joined)."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


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
            return None, f"capabilities: the answer is not a declaration ({clip(str(e))}); every vector is sent"
        from .messages import MESSAGES

        named = {m for _, msgs, _ in caps.entries for m in (msgs or ())}
        unknown = sorted(named - set(MESSAGES) - {"RebalanceRound"})
        note = ""
        if unknown:
            shown = ", ".join(unknown[:8]) + (f", ... ({len(unknown)} names)" if len(unknown) > 8 else "")
            note = f" (no such message in the suite: {clip(shown)})"
        return caps, f"capabilities: {clip(caps.describe(), 2000)}{note}"
    why = (
        f"the adapter declined ({out.declined})"
        if out.declined is not None
        else f"the adapter answered an error ({out.error.get('message')})"
        if out.error is not None
        else out.failure
    )
    return None, f"capabilities: none declared ({why}); every vector is sent"


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


def _why(out: Outcome) -> str:
    """Why an answer is not a value: the adapter's failure, or the rejection's message."""
    if out.failure:
        return f"adapter failure: {out.failure}"
    assert out.error is not None  # asked only of an answer neither a value nor declined: a failure or a rejection
    return str(out.error.get("message"))


def _class(out: Outcome) -> str:
    """The failure class of an answer that is no value: ``error`` (a rejection) or ``failure``."""
    return "failure" if out.failure else "error"


_REFERENCE = BuiltinImplementation()


@dataclass(frozen=True)
class _Half:
    """One half's outcome: its status and detail; ``key``, the (op, message, API) whose evidence a pass by
    rejection needs (None otherwise); ``where``, a failure's class: the JSON path where the value differs
    (indices as ``[]``), ``error`` (the valid input was rejected), ``failure`` or ``bytes`` (unreadable)."""

    status: str
    detail: str = ""
    key: tuple | None = None
    where: str = ""


def _declined(out: Outcome) -> _Half:
    return _Half("skip", f"unsupported: {out.declined}")


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
    return op, v["message"], _api(v)


_INDEX = re.compile(r"\[\d+\]")
_MAP_KEY = re.compile(r"\.(_unknownTaggedFields|clientTags)\..*")  # maps whose keys are data, not field names


def _where(diff: str) -> str:
    """The class of a first difference: its JSON path with every index written ``[]``, cut at a map whose keys
    are data (a tag number, a client tag)."""
    return _MAP_KEY.sub(r".\1", _INDEX.sub("[]", diff.split(": ", 1)[0]))


def _compare(v: dict, value: Any, what: str) -> _Half:
    d = first_difference(normalize(v["message"], v["expected"]), normalize(v["message"], value))
    return _Half("fail", f"{what} differs at {d}", where=_where(d)) if d else _Half("pass")


def _decode_valid(impl: Implementation, v: dict) -> _Half:
    msg, ver, key = v["message"], v.get("version"), v.get("apiKey")
    out = impl.decode(msg, ver, bytes.fromhex(v["wire"]), api_key=key)
    if out.declined is not None:
        return _declined(out)
    if not out.ok:
        return _Half("fail", f"decode failed: {_why(out)}", where=_class(out))
    return _compare(v, out.value, "decoded value")


def _encode_valid(impl: Implementation, v: dict) -> _Half:
    msg, ver, key = v["message"], v.get("version"), v.get("apiKey")
    enc = impl.encode(msg, ver, v["expected"], api_key=key)
    if enc.declined is not None:
        return _declined(enc)
    if not enc.ok:
        return _Half("fail", f"encode of expected failed: {_why(enc)}", where=_class(enc))
    if not isinstance(enc.value, bytes):
        return _Half("fail", "encode answered no wire", where="failure")
    wire = bytes.fromhex(v["wire"])
    if v.get("canonical") and enc.value == wire:
        return _Half("pass")
    back = read_back(msg, ver, enc.value, api_key=key)  # bytes after the message's end are an error here
    if v.get("canonical"):
        where = "bytes" if not back.ok else _compare(v, back.value, "").where or "bytes"
        return _Half("fail", byte_difference(msg, ver, wire, enc.value), where=where)
    if not back.ok:
        return _Half("fail", f"re-encoded bytes do not decode (reference decoder): {_why(back)}", where="bytes")
    return _compare(v, back.value, "re-encoded value")


def _decode_invalid(impl: Implementation, v: dict) -> _Half:
    out = impl.decode(v["message"], v.get("version"), bytes.fromhex(v["wire"]), api_key=v.get("apiKey"))
    if out.declined is not None:
        return _declined(out)
    if out.ok:
        return _Half(
            "fail", f"accepted invalid input (expected {v.get('error', 'an error')}); decoded {short_json(out.value)}"
        )
    return _Half("pass", key=_key("decode", v)) if out.rejected else _Half("fail", _why(out))


def _encode_invalid(impl: Implementation, v: dict) -> _Half:
    msg, ver, key = v["message"], v.get("version"), v.get("apiKey")
    enc = impl.encode(msg, ver, v["expected"], api_key=key)
    if enc.declined is not None:
        return _declined(enc)
    if enc.ok:
        return _Half("fail", _refusal_diff(v, enc.value))
    return _Half("pass", key=_key("encode", v)) if enc.rejected else _Half("fail", _why(enc))


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
    """Either outcome is Kafka's; a value must still be the one ``expected`` says (a vector without one is
    refused by the linter: every answer is checked)."""
    out = impl.decode(v["message"], v.get("version"), bytes.fromhex(v["wire"]), api_key=v.get("apiKey"))
    if out.declined is not None:
        return _declined(out)
    if out.failure:
        return _Half("fail", _why(out))
    if out.rejected:
        return _Half("pass", key=_key("decode", v))
    if "expected" not in v:
        return _Half("fail", f"decoded {short_json(out.value)}, but the vector has no expected value to compare with")
    return _compare(v, out.value, "decoded value")


_HALVES = {
    ("valid", "decode"): _decode_valid,
    ("valid", "encode"): _encode_valid,
    ("invalid", "decode"): _decode_invalid,
    ("invalid", "encode"): _encode_invalid,
    ("acceptable", "decode"): _decode_acceptable,
}


def _check(impl: Implementation, v: dict, op: str) -> _Half:
    try:
        return _HALVES[(v["result"], op)](impl, v)
    except Exception as e:  # noqa: BLE001 - an adapter that crashes the runner fails its vector
        return _Half("fail", clip(f"runner error: {type(e).__name__}: {e}"), where="failure")


def _case_vector(case: Case) -> dict:
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


def _combine(v: dict, halves: list[tuple[str, _Half]]) -> VectorResult:
    halves = sorted(halves, key=lambda h: OPS.index(h[0]))
    statuses = [h.status for _, h in halves]
    ops = tuple((op, h.status, clip(h.detail, DETAIL)) for op, h in halves)
    status = "fail" if "fail" in statuses else "pass" if "pass" in statuses else "skip"
    detail = next((h.detail for _, h in halves if h.status == status), "")
    if status == "skip":
        reason = detail.removeprefix("unsupported: ")
    else:  # a half skipped beside one checked: say which, and why
        reason = "; ".join(
            f"{op} skipped: {h.detail.removeprefix('unsupported: ')}" for op, h in halves if h.status == "skip"
        )
    return VectorResult(
        v["id"],
        v["message"],
        v.get("version"),
        status,
        clip(detail, DETAIL),
        tuple(v.get("flags", ())),
        clip(reason, DETAIL),
        ops,
    )


# --- generated cases -------------------------------------------------------------------------------------


@dataclass
class GeneratedRun:
    """What the generated cases of a run gave, per (op, message, version): passes counted; skips counted with
    the first reason; failures grouped by class (:class:`_Half`'s ``where``), each group with its count and
    its first case (id and detail). An expectations file marks groups expected (``expected``: group ->
    reason; the xfail status); a group no pattern lists is a failure."""

    seed: int
    requested: int
    cells: list[tuple[str, int | None]]
    cases: int = 0
    dropped: int = 0
    problems: list[str] = field(default_factory=list)
    passed: Counter = field(default_factory=Counter)
    skipped: dict = field(default_factory=dict)
    failed: dict = field(default_factory=dict)
    expected: dict = field(default_factory=dict)

    def record(self, case: Case, half: _Half) -> None:
        cell = (case.op, case.message, case.version)
        self.cases += 1
        if half.status == "pass":
            self.passed[cell] += 1
        elif half.status == "skip":
            entry = self.skipped.setdefault(cell, [0, clip(half.detail.removeprefix("unsupported: "), DETAIL)])
            entry[0] += 1
        else:
            entry = self.failed.setdefault((*cell, half.where or "failure"), [0, case.id, clip(half.detail, DETAIL)])
            entry[0] += 1

    def counts(self) -> dict[str, int]:
        """Cases by status (a failure an expectations pattern lists is ``xfail``)."""
        xfail = sum(n for g, (n, *_) in self.failed.items() if g in self.expected)
        return {
            "pass": sum(self.passed.values()),
            "fail": sum(n for n, *_ in self.failed.values()) - xfail,
            "skip": sum(n for n, _ in self.skipped.values()),
            "xfail": xfail,
        }

    def unexpected(self) -> list[tuple]:
        return [g for g in self.failed if g not in self.expected]


# --- the run ---------------------------------------------------------------------------------------------

# The order of the writing part: a message's encode halves before those of the messages that carry it as bytes
# (so no value shown earlier holds the bytes of one still to be asked); the rebalance rounds, whose members'
# metadata is such bytes, last.
_CARRIED_BY = {
    "SubscriptionInfo": 0,
    "AssignmentInfo": 0,
    "ConnectMetadata": 0,
    "ConnectAssignment": 0,
    "ConsumerProtocolSubscription": 1,
    "ConsumerProtocolAssignment": 1,
    "RequestFrame": 3,
    "ResponseFrame": 3,
    "RebalanceRound": 4,
}


def write_rank(message: str) -> int:
    """Where a message's encode requests go in the writing part of a run (lower first)."""
    return _CARRIED_BY.get(message, 2)


@dataclass
class RunResults:
    vectors: list[VectorResult]
    generated: GeneratedRun | None
    seed: int


class _Run:
    def __init__(
        self,
        impl: Implementation,
        vectors: list[dict],
        *,
        wanted: set[str],
        declared: Capabilities | None,
        witnesses: list[dict],
        seed: int,
        generated: GeneratedRun | None,
    ) -> None:
        self.impl, self.vectors, self.wanted, self.declared = impl, vectors, wanted, declared
        self.pool, self.seed, self.generated = witnesses, seed, generated
        self.halves: list[list[tuple[str, _Half]]] = [[] for _ in vectors]
        self.passed: set[tuple] = set()  # (op, message, API) of every valid request answered correctly
        self.verdicts: dict[tuple, _Half | None] = {}
        # (op, message, API) -> [generated cases passed, not passed]
        self.gen_answers: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])

    def items(self, op: str, gen_plan: list[tuple]) -> list[tuple]:
        """The requests of one part of the run, in the order the seed gives them."""
        rng = random.Random(f"rebalance-codec order {self.seed} {op}")
        items = []
        for i, v in enumerate(self.vectors):
            if op not in vector_ops(v) or op not in self.wanted:
                continue
            if self.declared is not None and not self.declared.covers(op, v["message"], v.get("version")):
                self.halves[i].append((op, _Half("skip", "not declared")))
                continue
            items.append((write_rank(v["message"]) if op == "encode" else 0, rng.random(), "half", (i, op)))
        for entry in gen_plan:
            if entry[0] == op:
                items.append((write_rank(entry[1]) if op == "encode" else 0, rng.random(), "gen", entry))
        items.sort(key=lambda x: (x[0], x[1]))
        return items

    def ask(self, items: list[tuple]) -> None:
        for _, _, kind, what in items:
            if kind == "gen":
                self.ask_generated(*what)
                continue
            i, op = what
            v = self.vectors[i]
            half = _check(self.impl, v, op)
            if half.status == "pass" and v["result"] == "valid":
                self.passed.add(_key(op, v))
            self.halves[i].append((op, half))

    def ask_generated(self, op: str, message: str, version: int | None, api: int | None, index: int) -> None:
        gen = self.generated
        assert gen is not None  # run_all plans generated cases only with a GeneratedRun
        case = take_case(gen.seed, index, op, message, version, api)
        if isinstance(case, str):
            gen.dropped += 1
            if len(gen.problems) < 5:
                gen.problems.append(case)
            return
        v = _case_vector(case)
        half = _check(self.impl, v, op)
        if half.status == "pass":
            self.passed.add(_key(op, v))
        self.gen_answers[(op, message, _api(v))][half.status != "pass"] += 1
        gen.record(case, half)

    def settle_generated(self) -> None:
        """A vector's pass counts only from an adapter that also passes a generated case of the same op and
        message (for a frame, API), where the run generated any: an adapter that knows the suite's answers by
        heart, or recorded them from the run, answers the values nobody wrote down wrongly or not at all."""
        for i, halves in enumerate(self.halves):
            v = self.vectors[i]
            for j, (op, half) in enumerate(halves):
                passed, other = self.gen_answers.get((op, v["message"], _api(v)), (0, 0))
                if half.status == "pass" and other and not passed:
                    api = (
                        ""
                        if _api(v) is None or v["message"] not in ("RequestFrame", "ResponseFrame")
                        else f" of API {_api(v)}"
                    )
                    halves[j] = (
                        op,
                        _Half(
                            "skip",
                            f"no evidence: the adapter passes none of the {other} generated "
                            f"{op} cases of {v['message']}{api}; a vector counts from an "
                            "adapter that also answers values nobody wrote down",
                        ),
                    )

    def settle(self, op: str) -> None:
        """Turn passes by rejection of ``op`` into failures or skips where the adapter answers no valid
        request of the same op and message correctly (a witness is asked when the run holds none)."""
        for i, halves in enumerate(self.halves):
            for j, (o, half) in enumerate(halves):
                if o != op or half.status != "pass" or half.key is None:
                    continue
                if half.key not in self.verdicts:
                    self.verdicts[half.key] = self.evidence(half.key, self.vectors[i].get("version"))
                verdict = self.verdicts[half.key]
                if verdict is not None:
                    halves[j] = (o, verdict)

    def witnesses(self, op: str, message: str, api: int | None, version: int | None) -> list[dict]:
        """Up to three valid requests of ``op`` x ``message`` (x API): a fresh generated value at the
        rejected vector's version (or another the generator has), the suite's valid vectors (that version
        first), another generated value."""

        def usable(w: dict) -> bool:
            return w["result"] == "valid" and w["message"] == message and op in vector_ops(w) and _api(w) == api

        suite = [w for w in self.pool if usable(w)] or [w for w in suite_vectors() if usable(w)]
        suite.sort(
            key=lambda w: (
                w.get("version") != version,
                self.declared is not None and not self.declared.covers(op, message, w.get("version")),
            )
        )
        versions = [v for _, v, a in generated_cells([message]) if a == api]
        versions.sort(
            key=lambda v: (v != version, self.declared is not None and not self.declared.covers(op, message, v))
        )
        gen = []
        rng = random.Random(f"rebalance-codec witness {self.seed} {op} {message} {api}")
        for v in versions[:2]:
            got = draw_case(rng, message, v, tame=True, api_key=api)
            if not isinstance(got, str):
                wire, value, canonical, key = got
                gen.append(
                    _case_vector(
                        Case(
                            f"generated {message}{'' if v is None else f' v{v}'}",
                            op,
                            message,
                            v,
                            key,
                            wire,
                            value,
                            canonical,
                        )
                    )
                )
        return (gen[:1] + suite[:1] + gen[1:2] + suite[1:2])[:3]

    def evidence(self, key: tuple, version: int | None) -> _Half | None:
        op, message, api = key
        if key in self.passed:
            return None
        out = None
        for w in self.witnesses(op, message, api, version):
            half = _check(self.impl, w, op)
            if half.status == "pass":
                self.passed.add(key)
                return None
            if half.status == "skip":
                return _Half(
                    "skip",
                    f"no evidence: the adapter declines valid {message} input "
                    f"({w['id']}: {half.detail.removeprefix('unsupported: ')})",
                )
            out = (w, half)
        if out is None:
            return _Half("skip", f"no evidence: no valid {message} input to ask the adapter")
        w, half = out
        return _Half(
            "fail",
            f"rejected, but the adapter also {op}s no valid {message} input correctly "
            f"(witness {w['id']}: {half.detail}); a rejection counts from an implementation of the "
            "message; decline with unsupported",
        )


def run_all(
    impl: Implementation,
    vectors: Iterable[dict],
    *,
    ops: Iterable[str] | None = None,
    declared: Capabilities | None = None,
    witnesses: Iterable[dict] | None = None,
    rounds: Iterable[dict] = (),
    generate: int = 0,
    cells: list[tuple] | None = None,
    seed: int = 0,
) -> RunResults:
    """Every vector's halves (those of ``ops``; default all), ``generate`` generated cases over ``cells``
    (default: every message x version the generator draws) and the rebalance ``rounds``, against ``impl``,
    in the order the module docstring gives. Halves ``declared`` leaves out are skipped unsent; undeclared
    cells are not generated. ``witnesses``: where the suite's valid vectors for the evidence rule come from
    (default: ``vectors``). Vector results keep the order of ``vectors`` (a vector none of whose halves is
    selected has none), the rounds' follow."""
    vectors = list(vectors)
    wanted = set(ops or OPS)
    gen_ops = [op for op in ("decode", "encode") if op in wanted]
    generated, gen_plan = None, []
    if generate > 0:
        cells = generated_cells() if cells is None else cells
        gen_plan = plan(seed, generate, cells, gen_ops, wanted=None if declared is None else declared.covers)
        generated = GeneratedRun(
            seed,
            generate,
            sorted({(m, v) for _, m, v, _, _ in gen_plan}, key=lambda c: (c[0], -1 if c[1] is None else c[1])),
        )
    run = _Run(
        impl,
        vectors,
        wanted=wanted,
        declared=declared,
        witnesses=list(witnesses) if witnesses is not None else vectors,
        seed=seed,
        generated=generated,
    )
    round_results: list[VectorResult] = []
    # the writing part, then the reading part in a fresh process (started now: it loads meanwhile)
    prepare = getattr(impl, "prepare_restart", None)
    if prepare is not None and "decode" in wanted:
        prepare()
    run.ask(run.items("encode", gen_plan))
    rounds = list(rounds)
    if rounds and "assign" in wanted:
        round_results = run_rebalance_rounds(impl, rounds, declared=declared)
    run.settle("encode")
    if "decode" in wanted:
        restart = getattr(impl, "restart", None)
        if restart is not None:
            restart()
        run.ask(run.items("decode", gen_plan))
        run.settle("decode")
    run.settle_generated()
    results = [_combine(v, run.halves[i]) for i, v in enumerate(vectors) if run.halves[i]]
    return RunResults(results + round_results, generated, seed)


def run_vectors(
    impl: Implementation,
    vectors: Iterable[dict],
    *,
    ops: Iterable[str] | None = None,
    declared: Capabilities | None = None,
    witnesses: Iterable[dict] | None = None,
    seed: int = 0,
) -> list[VectorResult]:
    """The vectors alone (no generated cases, no rounds): :func:`run_all`'s vector results."""
    return run_all(impl, vectors, ops=ops, declared=declared, witnesses=witnesses, seed=seed).vectors


def summarize(results: list[VectorResult]) -> list[dict]:
    """Per (message, version): counts of vectors and of each status."""
    table: dict[tuple[str, Any], dict] = {}
    names = {"pass": "passed", "fail": "failed", "skip": "skipped", "xfail": "xfailed", "xpass": "fixed"}
    for r in results:
        row = table.setdefault(
            (r.message, r.version),
            {"message": r.message, "version": r.version, "vectors": 0, **{n: 0 for n in names.values()}},
        )
        row["vectors"] += 1
        row[names[r.status]] += 1
    return [table[k] for k in sorted(table, key=lambda k: (k[0], -1 if k[1] is None else k[1]))]


# What a run through an adapter loads from the install, loaded before the adapter starts (:func:`preload`): the
# packages whose every module a run may import, and the modules of others it imports.
_PRELOAD_PACKAGES = ("codec.assignor", "codec.streams", "codec.connect", "codec.group", "codec.kafka4", "codec.wire")
_PRELOAD_MODULES = ("codec.kinds", "codec.pretty", "codec.types", "codec.javaorder", "codec.conformance.rebalance")


def preload() -> None:
    """Load now every module and data file of the install a run reads: the modules of the codec, the leader and the
    gate, every schema, the vector files and the rebalance rounds. An adapter is a program the run starts; one that
    can write where rebalance-codec is installed could otherwise change what the run imports or reads after it has
    started (run untrusted adapters against a read-only install all the same: vectors/ADAPTERS.md). The rebalance
    rounds and the vector files a run names are read by its caller before it starts the adapter."""
    import importlib
    import pkgutil

    from ..kinds import kind_names
    from ..wire.schema import load_message
    from .generate import _suite_wires

    for package in _PRELOAD_PACKAGES:
        module = importlib.import_module(package)
        for info in pkgutil.iter_modules(module.__path__, package + "."):
            if not info.name.endswith(("command", "convergence")):  # CLI front ends, which a run never calls
                importlib.import_module(info.name)
    for name in _PRELOAD_MODULES:
        importlib.import_module(name)
    kind_names()  # every kind plugin
    for name in _SCHEMAS:
        load_message(name)
    _suite_wires()  # the suite's vectors, and the bytes no generated case may be


def run_rebalance_rounds(
    impl: Implementation, rounds: Iterable[dict], *, declared: Capabilities | None = None
) -> list[VectorResult]:
    """Every rebalance round: the implementation's leader must assign what the round expects."""
    from .rebalance import compare_round

    results = []
    for r in rounds:
        if declared is not None and not declared.covers("assign", "RebalanceRound", None):
            results.append(
                VectorResult(
                    r["id"],
                    "RebalanceRound",
                    None,
                    "skip",
                    "not declared",
                    (),
                    "not declared",
                    (("assign", "skip", "not declared"),),
                )
            )
            continue
        query = {k: v for k, v in r.items() if k not in ("assignments", "_file")}
        status = "fail"
        problem: str | None
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
        problem = clip(problem or "", DETAIL)
        reason = problem.removeprefix("unsupported: ") if status == "skip" else ""
        results.append(
            VectorResult(r["id"], "RebalanceRound", None, status, problem, (), reason, (("assign", status, problem),))
        )
    return results
