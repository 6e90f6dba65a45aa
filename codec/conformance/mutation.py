"""The suite's own mutation score (``rebalance-codec vectors mutate``).

The classic schema mistakes — a field one version late or early, the flexible boundary moved, nullability flipped
(both ways), a missing field made ignorable, an int widened, two adjacent fields swapped, a field dropped, a tagged
field's tag changed — are applied to the project's own tables in ``schemas/``, one at a time. Each mutant is loaded
in place of the real table (:func:`codec.wire.schema.schema_overrides`, which drops every cache built from the
tables: the builder's constructs and the mistaken table's classes, the fast path's compiled code), and
the built-in codec so mutated runs the vectors whose processing reads that table, once with the fast path and once
on the construct path alone. A mutant is **killed** when a vector fails on both paths; one that passes on either is
a survivor, and every survivor must be listed as equivalent with its reason (``vectors/mutation/equivalent.txt``,
one ``id  # reason`` a line) — a listed mutant that is killed, or that no longer exists, is stale and fails the run.

An operator applies where the format gives the attribute a meaning: nullability to strings, bytes, arrays and
structs of messages with Kafka's encoding (``java-data-output`` has no null), a version boundary where the field
starts after (or ends before) the versions its struct is present in, ``ignorable`` where a version of the struct
lacks the field, swaps where the two fields share a version.
"""

from __future__ import annotations

import copy
import json
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..cliutil import int_range
from ..wire import fastpath, native
from ..wire.schema import Versions, raw_message, schema_names, schema_overrides

__all__ = [
    "MARKERS",
    "OPERATORS",
    "Mutant",
    "Result",
    "Suite",
    "mutants",
    "read_equivalent",
    "render_results",
    "run_mutant",
    "run_mutants",
    "table_mutants",
    "with_field",
]

OPERATORS = (
    "field-late",
    "field-early",
    "flexible-late",
    "flexible-early",
    "nullable-added",
    "nullable-removed",
    "ignorable-added",
    "int-widened",
    "fields-swapped",
    "field-dropped",
    "tag-changed",
)
_WIDER = {"int8": "int16", "int16": "int32", "int32": "int64"}
_NULLABLE_TYPES = ("string", "bytes")  # and arrays and structs
MARKERS = ("<!-- mutation:start -->", "<!-- mutation:end -->")


@dataclass(frozen=True)
class Mutant:
    id: str  # operator:Message:Struct.Field[:detail]
    operator: str
    message: str
    description: str
    table: dict  # the mutated raw table of ``message``


def _versions(text: str | None, within: set[int], default: set[int]) -> set[int]:
    if text is None:
        return set(default)
    v = Versions.parse(text)
    return {x for x in within if x in v}


def _range_text(lo: int, hi: int | None) -> str:
    return f"{lo}+" if hi is None else (str(lo) if lo == hi else f"{lo}-{hi}")


def _walk(raw: dict) -> Iterator[tuple[str, list, int, set[int]]]:
    """Every field of a raw table: (its struct's name, the list holding it, its index there, the versions in which
    its struct is present). A common struct's fields come once, present in the union of its users' versions."""
    valid = Versions.parse(raw["validVersions"])
    all_versions = set(range(valid.low, valid.high + 1))
    common = {s["name"]: s for s in raw.get("commonStructs", [])}
    order: list[tuple[str, list]] = [(raw["name"], raw["fields"])]
    presence: dict[str, set[int]] = {raw["name"]: all_versions}

    def visit(struct: str, fields: list, present: set[int]) -> None:
        for f in fields:
            here = _versions(f.get("versions"), present, present)
            elem = f["type"].removeprefix("[]")
            if "fields" in f:
                presence[elem] = presence.get(elem, set()) | here
                if elem not in {s for s, _ in order}:
                    order.append((elem, f["fields"]))
                visit(elem, f["fields"], here)
            elif elem in common:
                before = presence.get(elem, set())
                presence[elem] = before | here
                if elem not in {s for s, _ in order}:
                    order.append((elem, common[elem]["fields"]))
                if not here <= before:
                    visit(elem, common[elem]["fields"], presence[elem])

    visit(raw["name"], raw["fields"], all_versions)
    for struct, fields in order:
        for i in range(len(fields)):
            yield struct, fields, i, presence[struct]


def with_field(raw: dict, struct: str, name: str, **changes) -> dict:
    """A copy of a raw table with ``changes`` made to the field ``name`` of ``struct`` (the rule vectors' builder
    writes the bytes of a mistaken table this way: a non-nullable field made nullable writes -1 there)."""
    table = copy.deepcopy(raw)
    for s, fields, i, _ in _walk(table):
        if s == struct and fields[i]["name"] == name:
            fields[i].update(changes)
            return table
    raise KeyError(f"{raw['name']} has no field {struct}.{name}")


def _locate(table: dict, struct: str, index: int, name: str) -> tuple[list, dict]:
    """The (list, field) of the copy ``table`` that ``_walk`` reached as (struct, index) in the original."""
    for s, fields, i, _ in _walk(table):
        if s == struct and i == index and fields[i]["name"] == name:
            return fields, fields[i]
    raise KeyError(f"{struct}.{name}")


def _field_ops(message: str, struct: str, fields: list, i: int, present: set[int], dataout: bool):
    """(operator, field label with detail, description, edit) for every mutant of one field; ``edit`` changes
    the holding list and the field of a copy of the table in place."""
    f = fields[i]
    label = f["name"] if struct == message else f"{struct}.{f['name']}"
    tagged = "tag" in f
    mine = _versions(f.get("versions"), present, present)
    elem = f["type"].removeprefix("[]")
    lo_p, hi_p = min(present, default=0), max(present, default=0)
    vtext = f.get("versions")
    if vtext is not None and mine and not tagged:
        v = Versions.parse(vtext)
        lo, hi = v.low, None if v.high == 32767 else v.high
        if lo > lo_p:  # added after its struct: its first version off by one
            if lo + 1 <= (hi_p if hi is None else hi):
                yield (
                    "field-late",
                    f"{label}:start",
                    f"{label}: versions {vtext} -> {_range_text(lo + 1, hi)}",
                    _set("versions", _range_text(lo + 1, hi)),
                )
            yield (
                "field-early",
                f"{label}:start",
                f"{label}: versions {vtext} -> {_range_text(lo - 1, hi)}",
                _set("versions", _range_text(lo - 1, hi)),
            )
        if hi is not None and hi < hi_p:  # removed before its struct: its last version off by one
            yield (
                "field-late",
                f"{label}:end",
                f"{label}: versions {vtext} -> {_range_text(lo, hi + 1)}",
                _set("versions", _range_text(lo, hi + 1)),
            )
            if hi - 1 >= lo:
                yield (
                    "field-early",
                    f"{label}:end",
                    f"{label}: versions {vtext} -> {_range_text(lo, hi - 1)}",
                    _set("versions", _range_text(lo, hi - 1)),
                )
    nullable_kind = f["type"].startswith("[]") or elem in _NULLABLE_TYPES or elem[:1].isupper()
    if nullable_kind and not dataout and mine:
        ntext = f.get("nullableVersions")
        nullable = _versions(ntext, present, set()) if ntext else set()
        if nullable != mine:
            target = vtext or _range_text(lo_p, None)
            yield (
                "nullable-added",
                label,
                f"{label}: nullableVersions {ntext or 'none'} -> {target}",
                _set("nullableVersions", target),
            )
        if nullable:
            yield "nullable-removed", label, f"{label}: nullableVersions {ntext} -> none", _drop("nullableVersions")
    if not f.get("ignorable") and not tagged and mine and present - mine:
        yield (
            "ignorable-added",
            label,
            f"{label}: ignorable (absent from v{_ranges(present - mine)})",
            _set("ignorable", True),
        )
    if elem in _WIDER:
        wider = f["type"].replace(elem, _WIDER[elem])
        yield "int-widened", label, f"{label}: {f['type']} -> {wider}", _set("type", wider)
    if i + 1 < len(fields) and not tagged and "tag" not in fields[i + 1]:
        g = fields[i + 1]
        if mine & _versions(g.get("versions"), present, present):
            yield "fields-swapped", f"{label}+{g['name']}", f"{label} and {g['name']} swapped", _swap
    yield "field-dropped", label, f"{label}: dropped", _remove
    if tagged:
        used = {x.get("tag") for x in fields}
        new = next(t for t in range(f["tag"] + 1, f["tag"] + 100) if t not in used)
        yield "tag-changed", label, f"{label}: tag {f['tag']} -> {new}", _set("tag", new)


def _ranges(versions: set[int]) -> str:
    from .coverage import version_ranges

    return version_ranges(versions)


def _set(key: str, value):
    def edit(fields: list, f: dict) -> None:
        f[key] = value

    return edit


def _drop(key: str):
    def edit(fields: list, f: dict) -> None:
        f.pop(key, None)

    return edit


def _swap(fields: list, f: dict) -> None:
    i = fields.index(f)
    fields[i], fields[i + 1] = fields[i + 1], fields[i]


def _remove(fields: list, f: dict) -> None:
    fields.remove(f)


def table_mutants(message: str, raw: dict) -> Iterator[Mutant]:
    """Every mutant of one raw table in Kafka's message-spec format (the project's, or another codec's copy of Kafka's)."""
    valid = Versions.parse(raw["validVersions"])
    flex = raw.get("flexibleVersions", "none")
    if flex != "none":
        # the boundary as the valid versions see it: a table flexible from 0+ whose versions start at 1 (the share
        # groups' RPCs) is flexible from 1, and moving 0+ to 1+ would change no version a reader can be asked for
        n = max(Versions.parse(flex).low, valid.low)
        for op, new in (("flexible-late", n + 1), ("flexible-early", n - 1)):
            if valid.low <= new <= valid.high + 1:
                table = copy.deepcopy(raw)
                table["flexibleVersions"] = f"{new}+"
                yield Mutant(f"{op}:{message}", op, message, f"{message}: flexibleVersions {flex} -> {new}+", table)
    dataout = raw.get("encoding") == "java-data-output"
    for struct, fields, i, present in _walk(raw):
        name = fields[i]["name"]
        for op, label, desc, edit in _field_ops(message, struct, fields, i, present, dataout):
            table = copy.deepcopy(raw)
            edit(*_locate(table, struct, i, name))
            yield Mutant(f"{op}:{message}:{label}", op, message, f"{message}: {desc}", table)


def mutants(messages: Iterable[str] | None = None, operators: Iterable[str] | None = None) -> list[Mutant]:
    """Every mutant of the tables of ``messages`` (default: every schema) made by ``operators`` (default: all)."""
    ops = set(operators or OPERATORS)
    out = []
    for name in messages or schema_names():
        out += [m for m in table_mutants(name, raw_message(name)) if m.operator in ops]
    return out


# --- running them -----------------------------------------------------------------------------------------


def _group_key(v: dict) -> tuple:
    """Vectors are grouped by message (frames also by API): what a group's vectors read is found once."""
    from .checks import api_of

    return (v["message"], api_of(v) if v["message"].endswith("Frame") else None)


class Suite:
    """The vectors and rebalance rounds, grouped, with the schemas each group's processing reads."""

    def __init__(self, vectors: list[dict], rounds: list[dict]) -> None:
        self.groups: dict[tuple, list[dict]] = {}
        for v in vectors:
            self.groups.setdefault(_group_key(v), []).append(v)
        self.rounds = rounds
        self.reads: dict[str, set[tuple]] = {}  # schema -> the groups whose processing reads it
        with _reference_codec():  # the reference codec's reads, as run_mutant runs it
            for key, group in [*self.groups.items(), (("RebalanceRound", None), None)]:
                for name in _tables_read(lambda g=group: _first_failure(g, None if g is not None else rounds)):
                    self.reads.setdefault(name, set()).add(key)

    def run(self, message: str) -> str | None:
        """The first vector (or round) that fails with the codec as the tables now are, or None."""
        keys = self.reads.get(message, set())
        vectors = [v for k in sorted(keys, key=str) if k != ("RebalanceRound", None) for v in self.groups[k]]
        return _first_failure(vectors, self.rounds if ("RebalanceRound", None) in keys else None)


def _tables_read(run) -> set[str]:
    """The schemas ``run`` reads, from cold caches."""
    from ..wire import schema

    read: set[str] = set()
    real = schema.raw_message

    def recording(name: str) -> dict:
        read.add(name)
        return real(name)

    schema.raw_message = recording
    try:
        with schema_overrides({}):  # every cache dropped: each table is read again
            run()
    finally:
        schema.raw_message = real
    return read


def _first_failure(vectors: list[dict] | None, rounds: list[dict] | None, chunk: int = 64) -> str | None:
    from .impl import BuiltinImplementation
    from .runner import run_rebalance_rounds, run_vectors

    impl = BuiltinImplementation()
    listed = vectors or []
    for i in range(0, len(listed), chunk):
        for r in run_vectors(impl, listed[i : i + chunk], witnesses=()):
            if r.status == "fail":
                return r.id
    for r in run_rebalance_rounds(impl, rounds or ()):
        if r.status == "fail":
            return r.id
    return None


@dataclass(frozen=True)
class Result:
    mutant: Mutant
    killed_by: tuple[str | None, str | None]  # the first failing vector with the fast path, on the construct path

    @property
    def killed(self) -> bool:
        return all(self.killed_by)


@contextmanager
def _reference_codec() -> Iterator[None]:
    """The pure-Python codec for the duration (see :func:`run_mutant`), whichever was active."""
    was_native = native.set_active(False)
    try:
        yield
    finally:
        native.set_active(was_native)


def run_mutant(suite: Suite, m: Mutant) -> Result:
    """The suite against the reference codec built from the mutant, with the fast path and on the construct
    path alone. The reference is the pure-Python codec whichever is active: a mutant is a table no release has,
    and how a codec behaves on one (past the table, in the models that cannot hold what it lets through) is the
    reference's to define; the native engine is held to the reference on the real tables (every vector through
    both, the fuzzer's differential oracle), so the score does not depend on the machine."""
    killed: list[str | None] = []  # one entry with the fast path, one on the construct path
    try:
        with _reference_codec(), schema_overrides({m.message: m.table}):
            for fast in (True, False):
                old = fastpath.set_enabled(fast)
                try:
                    killed.append(suite.run(m.message))
                finally:
                    fastpath.set_enabled(old)
    except Exception as e:  # noqa: BLE001 - a table the loader refuses is a codec that reads nothing
        killed = [f"(the table does not load: {type(e).__name__})"] * 2
    return Result(m, (killed[0], killed[1]))


def run_mutants(suite: Suite, ms: Iterable[Mutant]) -> list[Result]:
    return [run_mutant(suite, m) for m in ms]


def read_equivalent(path: Path) -> dict[str, str]:
    """The equivalence list: mutant id -> why no vector can tell it from the real table. Raises ValueError on an
    entry without a reason."""
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        entry, _, reason = line.partition("#")
        if not entry.strip():
            continue
        if len(reason.strip()) < 10:
            raise ValueError(f"{path.name}:{n}: {entry.strip()} has no reason after '#'")
        out[entry.strip()] = reason.strip()
    return out


def equivalent_path() -> Path:
    from .vectors import vectors_dir

    return vectors_dir() / "mutation" / "equivalent.txt"


def tally(results: list[Result], equivalent: dict[str, str]) -> dict[str, Counter]:
    """operator -> counts of mutants, killed ones, equivalent ones, survivors."""
    out: dict[str, Counter] = {op: Counter() for op in OPERATORS}
    for r in results:
        c = out[r.mutant.operator]
        c["mutants"] += 1
        c["killed" if r.killed else "equivalent" if r.mutant.id in equivalent else "survived"] += 1
    return out


def render_results(counts: dict[str, Counter], unread: list[str]) -> str:
    """The Markdown table of ``vectors mutate`` (vectors/README.md embeds it)."""
    lines = [
        "| operator | mutants | killed | equivalent | survived | killed of non-equivalent |",
        "|---|---|---|---|---|---|",
    ]
    total: Counter = Counter()
    for op in OPERATORS:
        c = counts[op]
        total.update(c)
        lines.append(_row(op, c))
    lines.append(_row("**all**", total))
    if unread:
        lines.append("")
        lines.append(f"Tables no vector reads (not mutated): {', '.join(unread)}.")
    return "\n".join(lines)


def _row(name: str, c: Counter) -> str:
    live = c["mutants"] - c["equivalent"]
    share = f"{100 * c['killed'] / live:.1f} %" if live else "-"
    return f"| {name} | {c['mutants']} | {c['killed']} | {c['equivalent']} | {c['survived']} | {share} |"


def sample(ms: list[Mutant], n: int) -> list[Mutant]:
    """``n`` mutants spread over the list (every k-th of each operator, so each operator is in it)."""
    by_op: dict[str, list[Mutant]] = {}
    for m in ms:
        by_op.setdefault(m.operator, []).append(m)
    share = max(1, n // max(1, len(by_op)))
    out = []
    for group in by_op.values():
        step = max(1, len(group) // share)
        out += group[::step][:share]
    return out


def results_path() -> Path:
    return equivalent_path().with_name("results.json")


def summary(results: list[Result], equivalent: dict[str, str], unread: list[str]) -> dict:
    """What a whole run found, as ``vectors/mutation/results.json`` keeps it."""
    counts = tally(results, equivalent)
    return {
        "mutants": len(results),
        "byOperator": {op: dict(sorted(c.items())) for op, c in counts.items()},
        "equivalent": sorted(r.mutant.id for r in results if not r.killed and r.mutant.id in equivalent),
        "survived": sorted(r.mutant.id for r in results if not r.killed and r.mutant.id not in equivalent),
        "unread": unread,
    }


def render_summary(s: dict) -> str:
    return render_results({op: Counter(c) for op, c in s["byOperator"].items()}, s["unread"])


def cmd_vectors_mutate(args) -> int:
    """``rebalance-codec vectors mutate``: the mutation score of the suite, by operator."""
    import sys

    from .. import text as _text
    from .coverage import update_block
    from .vectors import load_rounds, load_vectors

    started = time.monotonic()
    suite = Suite(load_vectors(), load_rounds())
    unread = sorted(set(schema_names()) - set(suite.reads))
    names = [n for n in schema_names() if n in suite.reads and (not args.message or n in args.message)]
    ms = mutants(names, args.operator)
    whole = not (args.message or args.operator or args.sample)
    if args.sample:
        ms = sample(ms, args.sample)
    try:
        equivalent = read_equivalent(Path(args.equivalent) if args.equivalent else equivalent_path())
    except (OSError, ValueError) as e:
        print(f"error: {_text.printable(str(e))}", file=sys.stderr)
        return 2
    results = run_mutants(suite, ms)
    bad = 0
    for r in results:
        if not r.killed and r.mutant.id not in equivalent:
            bad += 1
            paths = " and ".join(
                p for p, k in zip(("with the fast path", "on the construct path"), r.killed_by) if k is None
            )
            print(_text.printable(f"SURVIVED {r.mutant.id}: {r.mutant.description} (every vector passes {paths})"))
        elif r.killed and r.mutant.id in equivalent:
            bad += 1
            print(
                _text.printable(f"STALE {r.mutant.id}: listed as equivalent, but {r.killed_by[0]} kills it; remove it")
            )
    if whole:
        for entry in sorted(set(equivalent) - {m.id for m in ms}):
            bad += 1
            print(_text.printable(f"STALE {entry}: no such mutant; remove it"))
    s = summary(results, equivalent, unread)
    print(render_summary(s))
    print(
        f"{len(results)} mutants in {time.monotonic() - started:.0f} s; "
        f"{sum(r.killed for r in results)} killed, {len(s['equivalent'])} equivalent, {len(s['survived'])} survived"
    )
    if args.write_results or args.update:
        if not whole:
            print(
                "error: --write-results and --update take a whole run (no --message, --operator or --sample)",
                file=sys.stderr,
            )
            return 2
        if args.write_results:
            Path(args.write_results).write_text(json.dumps(s, indent=1) + "\n", encoding="utf-8")
        if args.update:
            try:
                update_block(Path(args.update), render_summary(s), MARKERS)
            except (OSError, ValueError) as e:
                print(f"error: {args.update}: {_text.printable(str(e))}", file=sys.stderr)
                return 2
    return 1 if bad else 0


def add_mutate_parser(vsub) -> None:
    """``vectors mutate`` on the ``vectors`` subcommand's parsers."""
    p = vsub.add_parser("mutate", help="the suite's mutation score: schema mistakes the built-in codec is run with")
    p.add_argument("--operator", action="append", choices=OPERATORS, help="only this operator (repeatable)")
    p.add_argument("--message", action="append", metavar="NAME", help="only the mutants of this table (repeatable)")
    p.add_argument("--sample", type=int_range(1), metavar="N", help="about N mutants spread over the operators")
    p.add_argument(
        "--equivalent",
        metavar="FILE",
        help="the equivalent mutants, 'id  # reason' a line (default: vectors/mutation/equivalent.txt)",
    )
    p.add_argument(
        "--write-results",
        dest="write_results",
        metavar="FILE",
        help="write the run's figures here (vectors/mutation/results.json)",
    )
    p.add_argument(
        "--update", metavar="FILE", help="rewrite the table between the mutation markers of FILE (vectors/README.md)"
    )
    p.set_defaults(func=cmd_vectors_mutate)
