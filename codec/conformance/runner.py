"""The conformance runner: every vector against an implementation, with diffs people can act on.

The algorithm (also in vectors/README.md; each half's check in :mod:`codec.conformance.checks`):

* ``valid``: decode ``wire``; the answer must match ``expected`` (the fields ``expected`` names, numbers with their
  JSON type, the maps whose keys are data whole; unordered collections compared as sets). Then encode
  ``expected``: with ``canonical`` the bytes must equal ``wire``; without, the reference decoder must read them
  back to ``expected``, with no byte after the message's end.
* ``invalid`` with ``wire``: decoding must fail. ``invalid`` without ``wire``: encoding ``expected`` (the
  input value) must fail.
* ``acceptable``: either outcome passes; a successful decode must still match ``expected``.
* a rebalance round (``assign``): the leader's assignments must be the round's, read back whole.

Each vector has one or two halves, one per op it uses (:func:`vector_ops`): the decode half and the encode
half of a valid vector are checked, selected, declared and declined separately. An answer
``{"unsupported": "<reason>"}`` skips its half, whatever the vector's result; a half the adapter's declared
capabilities leave out is skipped without being sent ("not declared"). A vector fails when a half fails,
passes when a half passes and none fails, and is skipped when every half is.

**The order of a run** (:func:`run_all`): no answer may be copied from bytes the run showed earlier. Every
writing request comes first (the encode halves, the generated encode cases, the rebalance rounds and the
generated rounds), then the adapter is restarted and every reading request follows (the decode halves, the
generated decode cases) in a process that never saw a value it is asked for. Each part is shuffled by the run's
seed; within the writing part a message's encode halves come before those of every message that carries it as
bytes (SubscriptionInfo before ConsumerProtocol before JoinGroup before frames, rounds last), so no value shown
holds the bytes of one still to be asked.

**Evidence** (:mod:`codec.conformance.evidence`): every pass of an op and message — a half answered right, an
invalid input refused, a round assigned right — counts in proportion to the adapter's passes of values nobody
wrote down (the run's generated cases and rounds, and witnesses drawn the same way where those are short);
passes left uncounted are skipped and fail the run. The built-in codec, the reference itself, needs none.
"""

from __future__ import annotations

import bisect
import functools
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..wire.schema import schema_names
from .checks import Half, byte_difference, case_vector, check, check_round, key_of
from .evidence import Ledger
from .generate import generated_cells, plan, take_case
from .impl import Implementation, clip
from .messages import first_difference, short_json
from .rounds import FAMILIES, RoundCase, round_cells, take_round
from .vectors import DECODE_ONLY, ENCODE_ONLY

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
    "round_message",
]

OPS = ("decode", "encode", "assign")
# pass, fail, skip (declined or not declared), xfail (a failure an expectations file lists), xpass (a listed
# vector that passes: fixed, the list is stale), notrun (not asked: the adapter was given up before, RunResults.gone)
STATUSES = ("pass", "fail", "skip", "xfail", "xpass", "notrun")
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
    if v["result"] == "round":
        return ("assign",)
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
        unknown = sorted(named - set(MESSAGES) - set(FAMILIES))
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


def _combine(v: dict, halves: list[tuple[str, Half]]) -> VectorResult:
    halves = sorted(halves, key=lambda h: OPS.index(h[0]))
    statuses = [h.status for _, h in halves]
    ops = tuple((op, h.status, clip(h.detail, DETAIL)) for op, h in halves)
    status = next((s for s in ("fail", "notrun", "pass") if s in statuses), "skip")
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
    the first reason; failures grouped by class (:class:`~codec.conformance.checks.Half`'s ``where``), each group with its count and
    its first case (id and detail). An expectations file marks groups expected (``expected``: group ->
    reason; the xfail status); a group no pattern lists is a failure."""

    seed: int
    requested: int
    cells: list[tuple[str, int | None]]
    cases: int = 0
    not_run: int = 0  # cases not drawn nor asked: the adapter was given up before (RunResults.gone)
    dropped: int = 0
    problems: list[str] = field(default_factory=list)
    passed: Counter = field(default_factory=Counter)
    skipped: dict = field(default_factory=dict)
    failed: dict = field(default_factory=dict)
    expected: dict = field(default_factory=dict)
    coverage: list = field(default_factory=list)  # (expectations line, cases it made expected, cases it covers)

    def record(self, op: str, message: str, version: int | None, case_id: str, half: Half) -> None:
        cell = (op, message, version)
        self.cases += 1
        if half.status == "pass":
            self.passed[cell] += 1
        elif half.status == "skip":
            entry = self.skipped.setdefault(cell, [0, clip(half.detail.removeprefix("unsupported: "), DETAIL)])
            entry[0] += 1
        else:
            entry = self.failed.setdefault((*cell, half.where or "failure"), [0, case_id, clip(half.detail, DETAIL)])
            entry[0] += 1

    def counts(self) -> dict[str, int]:
        """Cases by status (a failure an expectations pattern lists is ``xfail``)."""
        xfail = sum(n for g, (n, *_) in self.failed.items() if g in self.expected)
        return {
            "pass": sum(self.passed.values()),
            "fail": sum(n for n, *_ in self.failed.values()) - xfail,
            "skip": sum(n for n, _ in self.skipped.values()),
            "xfail": xfail,
            "notrun": self.not_run,
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
    unproven: list[str] = field(default_factory=list)  # the evidence that fell short: the run fails (evidence.py)
    gone: str | None = None  # why the adapter was given up, what was left not run; the run fails
    stderr: list[str] = field(default_factory=list)  # the first lines of its stderr then (shown once)


class _Run:
    def __init__(
        self,
        impl: Implementation,
        vectors: list[dict],
        *,
        wanted: set[str],
        declared: Capabilities | None,
        seed: int,
        generated: GeneratedRun | None,
    ) -> None:
        self.impl, self.vectors, self.wanted, self.declared = impl, vectors, wanted, declared
        self.seed, self.generated = seed, generated
        self.halves: list[list[tuple[str, Half]]] = [[] for _ in vectors]
        # a trusted implementation (the built-in codec, the reference itself) is not asked for evidence
        self.ledger = (
            None if getattr(impl, "trusted", False) else Ledger(seed, None if declared is None else declared.covers)
        )

    def items(self, op: str, gen_plan: list[tuple]) -> list[tuple]:
        """The requests of one op, each with where it goes in its part of the run (the seed's order)."""
        rng = random.Random(f"rebalance-codec order {self.seed} {op}")
        items = []
        for i, v in enumerate(self.vectors):
            if op not in vector_ops(v) or op not in self.wanted:
                continue
            if self.declared is not None and not self.declared.covers(op, v["message"], v.get("version")):
                self.halves[i].append((op, Half("skip", "not declared")))
                continue
            items.append((write_rank(v["message"]) if op != "decode" else 0, rng.random(), "half", (i, op)))
        for entry in gen_plan:
            if entry[0] == op:
                items.append((write_rank(entry[1]) if op != "decode" else 0, rng.random(), "gen", entry))
        return items

    def gone(self) -> str | None:
        """Why the implementation was given up (it would fail every further request unsent), else None."""
        return getattr(self.impl, "gone", None)

    def ask(self, items: list[tuple]) -> None:
        for _, _, kind, what in sorted(items, key=lambda x: (x[0], x[1])):
            gone = self.gone()
            if gone:  # nothing more is asked, nor drawn: a dead or hung adapter ends the run now
                if kind == "gen":
                    assert self.generated is not None
                    self.generated.not_run += 1
                else:
                    self.halves[what[0]].append((what[1], Half("notrun", f"not run: {gone}")))
                continue
            if kind == "gen":
                self.ask_generated(*what)
                continue
            i, op = what
            v = self.vectors[i]
            half = _ask_half(self.impl, v, op)
            if self.ledger is not None and half.status != "skip":
                self.ledger.answered[key_of(op, v)].add(v.get("version"))
            self.halves[i].append((op, half))

    def ask_generated(self, op: str, message: str, version: int | None, api: int | None, index: int) -> None:
        gen = self.generated
        assert gen is not None  # run_all plans generated cases only with a GeneratedRun
        case = (
            take_round(gen.seed, index, message)
            if op == "assign"
            else take_case(gen.seed, index, op, message, version, api)
        )
        if isinstance(case, str):
            gen.dropped += 1
            if len(gen.problems) < 5:
                gen.problems.append(case)
            return
        if isinstance(case, RoundCase):
            half, key = check_round(self.impl, case.expected, FAMILIES[message].compare), (op, message, None)
        else:
            v = case_vector(case)
            half, key = check(self.impl, v, op), key_of(op, v)
        if self.ledger is not None:
            self.ledger.record(key, version, half, case.id)
        gen.record(op, message, version, case.id, half)

    def settle(self, ops: tuple[str, ...]) -> None:
        """Credit the passes of ``ops`` by their evidence (:mod:`codec.conformance.evidence`), asking witnesses
        where the run's generated cases are too few."""
        if self.ledger is None:
            return
        passes: dict[tuple, list] = defaultdict(list)
        for i, halves in enumerate(self.halves):
            for j, (op, half) in enumerate(halves):
                if op in ops and half.status == "pass":
                    passes[key_of(op, self.vectors[i])].append((half, functools.partial(_replace, halves, j, op)))
        for key, found in passes.items():
            self.ledger.settle(self.impl, key, found)


def _replace(halves: list, j: int, op: str, half: Half) -> None:
    halves[j] = (op, half)


def _ask_half(impl: Implementation, v: dict, op: str) -> Half:
    """A vector's half, or a rebalance round (``result`` ``round``: :func:`_round_vector`)."""
    if v["result"] == "round":
        return check_round(impl, v["round"], FAMILIES[v["message"]].compare)
    return check(impl, v, op)


def round_message(r: dict) -> str:
    """The message a rebalance round of the files is run as: a ``ConsumerRound`` (or with partition racks a
    ``ConsumerRackRound``) when it names a consumer assignor, a ``ServerAssignorRound`` when it names a server-side
    one, else a Streams ``RebalanceRound`` (:func:`codec.assignor.consumer.gate_rounds.round_message`)."""
    from ..assignor.consumer.gate_rounds import round_message as rule

    return rule(r)


def _round_vector(r: dict, message: str | None = None) -> dict:
    """A rebalance round of the files as a vector of the run (one ``assign`` half), run as :func:`round_message`
    says."""
    message = message or round_message(r)
    return {"id": r["id"], "message": message, "version": None, "result": "round", "round": r}


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
    round_families: Iterable[str] | None = None,
    seed: int = 0,
) -> RunResults:
    """Every vector's halves (those of ``ops``; default all), ``generate`` generated cases over ``cells``
    (default: every message x version the generator draws) and the families of generated rounds (default: every
    one, :mod:`codec.conformance.rounds`), and the rebalance ``rounds``, against ``impl``, in the order the module
    docstring gives. Halves ``declared`` leaves out are skipped unsent; undeclared cells are not generated. Vector
    results keep the order of ``vectors`` (a vector none of whose halves is selected has none), the rounds'
    follow. ``witnesses`` is kept for callers of earlier versions: witnesses are drawn, never taken from files."""
    del witnesses
    vectors = list(vectors) + [_round_vector(r) for r in rounds]
    wanted = set(ops or OPS)
    gen_ops = [op for op in ("decode", "encode") if op in wanted]
    generated, gen_plan = None, []
    if generate > 0:
        cells = generated_cells() if cells is None else cells
        families = round_cells() if round_families is None else list(round_families)
        gen_plan = plan(
            seed,
            generate,
            cells,
            gen_ops,
            wanted=None if declared is None else declared.covers,
            rounds=families if "assign" in wanted else (),
        )
        generated = GeneratedRun(
            seed,
            generate,
            sorted({(m, v) for _, m, v, _, _ in gen_plan}, key=lambda c: (c[0], -1 if c[1] is None else c[1])),
        )
    run = _Run(impl, vectors, wanted=wanted, declared=declared, seed=seed, generated=generated)
    # the writing part, then the reading part in a fresh process (started now: it loads meanwhile)
    prepare = getattr(impl, "prepare_restart", None)
    if prepare is not None and "decode" in wanted:
        prepare()
    run.ask(run.items("encode", gen_plan) + run.items("assign", gen_plan))
    run.settle(("encode", "assign"))
    if "decode" in wanted:
        restart = getattr(impl, "restart", None)
        if restart is not None:
            restart()
        run.ask(run.items("decode", gen_plan))
        run.settle(("decode",))
    results = [_combine(v, run.halves[i]) for i, v in enumerate(vectors) if run.halves[i]]
    gone = run.gone()
    return RunResults(
        results,
        generated,
        seed,
        run.ledger.unproven if run.ledger is not None else [],
        gone,
        list(getattr(impl, "stderr_lines", ())) if gone else [],
    )


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
    names = {
        "pass": "passed",
        "fail": "failed",
        "skip": "skipped",
        "xfail": "xfailed",
        "xpass": "fixed",
        "notrun": "notrun",
    }
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
_PRELOAD_MODULES = ("codec.catalog", "codec.pretty", "codec.types", "codec.javaorder", "codec.conformance.rebalance")


def preload() -> None:
    """Load now every module and data file of the install a run reads: the modules of the codec, the leader and the
    gate, every schema, the vector files and the rebalance rounds. An adapter is a program the run starts; one that
    can write where rebalance-codec is installed could otherwise change what the run imports or reads after it has
    started (run untrusted adapters against a read-only install all the same: vectors/ADAPTERS.md). The rebalance
    rounds and the vector files a run names are read by its caller before it starts the adapter."""
    import importlib
    import pkgutil

    from ..catalog import kind_names
    from ..wire.schema import load_message
    from .generate import _suite_wires

    for package in _PRELOAD_PACKAGES:
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, package + "."):  # subpackages too
            if not info.name.endswith(("command", "convergence")):  # CLI front ends, which a run never calls
                importlib.import_module(info.name)
    for name in _PRELOAD_MODULES:
        importlib.import_module(name)
    kind_names()  # every kind plugin
    for name in schema_names():
        load_message(name)
    _suite_wires()  # the suite's vectors, and the bytes no generated case may be


def run_rebalance_rounds(
    impl: Implementation, rounds: Iterable[dict], *, declared: Capabilities | None = None
) -> list[VectorResult]:
    """Every rebalance round of the files: the implementation's leader must assign what the round expects (no
    generated rounds, no evidence: :func:`run_all` runs both)."""
    results = []
    for r in rounds:
        v = _round_vector(r)
        if declared is not None and not declared.covers("assign", v["message"], None):
            half = Half("skip", "not declared")
        else:
            half = _ask_half(impl, v, "assign")
        results.append(_combine(v, [("assign", half)]))
    return results
