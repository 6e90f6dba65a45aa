"""``rebalance-codec vectors …`` and ``rebalance-codec conformance``."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

from .. import text as _text
from ..errors import InputError
from ..cliutil import int_range, seconds
from .behaviour.command import add_arguments as add_behaviour_arguments
from .coverage import add_list_parser
from .crossversion import cross_version_matrix, render_matrix
from .expect import apply as apply_expectations
from .expect import apply_generated, expectations_text, read_expectations
from .generate import generated_cells
from .handcrafted import handcrafted_vectors
from .impl import (
    DEFAULT_MAX_REPLY,
    DEFAULT_TIME_LIMIT,
    DEFAULT_TIMEOUT,
    AdapterError,
    BuiltinImplementation,
    CommandImplementation,
)
from .importer import import_captures, import_kafka_java
from .kio_import import import_kio_group
from .mutation import add_mutate_parser
from .reports import render_generated, render_gone, render_table, write_json, write_junit, write_report
from .rounds import round_cells
from .runner import OPS, STATUSES, ask_capabilities, in_ranges, parse_versions, preload, round_message, run_all
from .vectors import VectorFileError, check_vectors, load_consumer_rounds, load_rounds, load_vectors, vectors_dir
from .vectors import suite as suite_vectors

__all__ = [
    "register",
    "dump_vectors",
    "cmd_vectors_check",
    "cmd_vectors_import",
    "cmd_vectors_handcraft",
    "cmd_vectors_rebalance",
    "cmd_conformance",
]

_KEY_ORDER = (
    "id",
    "message",
    "version",
    "apiKey",
    "description",
    "wire",
    "expected",
    "result",
    "error",
    "offset",
    "canonical",
    "flags",
    "provenance",
)


def dump_vectors(path: Path, vectors: list[dict]) -> None:
    def ordered(v):
        return {k: v[k] for k in _KEY_ORDER if k in v}

    path.write_text("".join(_text.dumps(ordered(v)) + "\n" for v in vectors), encoding="utf-8")


def cmd_vectors_check(args) -> int:
    problems, counts = check_vectors(Path(args.dir) if args.dir else None)
    for p in problems:
        print(p)
    total = sum(counts.values())
    print(f"{total} vectors in {len(counts)} message/version groups; {len(problems)} problems")
    return 1 if problems else 0


def _write_dir(args) -> Path:
    """Where ``vectors import`` / ``rebalance`` / ``handcraft`` write: ``--dir``, else ``vectors/`` of the
    checkout. An installed package has none (its copy of the vectors is the package's own, not to be rewritten):
    the command asks for ``--dir``."""
    if args.dir:
        return Path(args.dir)
    checkout = Path(__file__).resolve().parents[2] / "vectors"
    if not (checkout / "schema.json").is_file():
        raise InputError(
            f"vectors {args.vectors_command} rewrites the golden vectors of a source checkout, and this is an "
            "installed package: give --dir DIR (a copy of the vectors folder) to write there"
        )
    return checkout


def _shared(args) -> Path:
    """``--shared``, else the folder :func:`codec.shared.shared_dir` finds (``$REBALANCE_CODEC_SHARED``, or
    ``shared/`` beside the checkout); none there: the command says how to name it."""
    from ..shared import shared_dir

    found = Path(args.shared) if args.shared else shared_dir()
    if found is None or not found.is_dir():
        raise InputError(
            f"{found}: no such folder"
            if found is not None
            else "no shared reference folder: "
            "give --shared DIR (Kafka's and kio's vectors) or set REBALANCE_CODEC_SHARED"
        )
    return found


def cmd_vectors_import(args) -> int:
    out = _write_dir(args)
    shared = _shared(args)
    written = import_kafka_java(shared, out, include_group=not args.streams_only)
    if not args.streams_only:
        written.update(import_captures(shared, out))
        written.update(import_kio_group(vectors_dir(), out))
    for name in written:  # rewrite with the canonical key order
        dump_vectors(out / name, load_vectors([out / name]))
    for name, n in written.items():
        print(f"{name}: {n} vectors")
    return 0


def cmd_vectors_handcraft(args) -> int:
    from .handcrafted_case import rules_files
    from .handcrafted_rules import RuleError

    out = _write_dir(args)
    try:
        files = handcrafted_vectors()
    except RuleError as e:  # a case Kafka's classes have not answered, or an answer against its rule
        for problem in str(e).split("; "):
            print(f"error: {_text.printable(problem)}", file=sys.stderr)
        return 1
    for name, vectors in files.items():
        dump_vectors(out / name, vectors)
        print(f"{name}: {len(vectors)} vectors")
    for stale in rules_files(out):  # a family's file the rule vectors no longer have (or the one file of old)
        if stale.name not in files:
            stale.unlink()
            print(f"{stale.name}: removed (no rule vector is kept there now)")
    return 0


def cmd_vectors_upstream_diff(args) -> int:
    from .upstream import UpstreamError, known_differences, upstream_diff

    try:
        result = upstream_diff(Path(args.tree), ref=args.ref, names=args.message)
    except UpstreamError as e:
        print(f"error: {_text.printable(str(e))}", file=sys.stderr)
        return 1
    known = {} if args.all else known_differences()
    shown = [line for line in result.lines if line not in known]
    for line in shown:
        print(_text.printable(line))
    found = set(result.lines)
    stale = [k for k in known if k.split(":", 1)[0] in result.compared and k not in found]
    for line in stale:
        print(f"stale known difference (no longer found): {_text.printable(line)}")
    where = f"{args.tree}" + (f" at {args.ref}" if args.ref else "")
    print(
        f"upstream-diff: {len(result.compared)} schemas compared with {where}: {len(shown)} difference(s)"
        f"{f', {len(result.lines) - len(shown)} known' if not args.all else ''}; "
        f"{len(result.ours_only)} with no Kafka JSON of their name"
        f"{': ' + ', '.join(result.ours_only[:8]) if result.ours_only else ''}"
        f"{', ...' if len(result.ours_only) > 8 else ''}",
        file=sys.stderr,
    )
    if not result.compared:
        print(f"error: no message JSON of schemas/ found in {where}", file=sys.stderr)
        return 1
    return 1 if shown or stale else 0


def cmd_vectors_rebalance(args) -> int:
    from .rebalance import ROUNDS_FILE, generate_rounds

    out = _write_dir(args) / "rebalance"
    shared = _shared(args)
    out.mkdir(exist_ok=True)
    rounds = generate_rounds(shared)
    (out / ROUNDS_FILE).write_text("".join(_text.dumps(r) + "\n" for r in rounds), encoding="utf-8")
    print(f"rebalance/{ROUNDS_FILE}: {len(rounds)} rounds")
    return 0


def _version_ranges(texts: list[str] | None) -> list | None:
    if not texts:
        return None
    return [parse_versions(t) for t in texts]


DEFAULT_GENERATE = 2000  # generated cases of a run of the default suite (bench/bench_conformance.py: the cost)
GENERATE_MIN = 20  # generated cases of a run of a few messages and versions, at least


def _nothing_passed(results: list, gen) -> str | None:
    """Why a run that passed nothing fails (None when something passed)."""
    counts = {s: sum(r.status == s for r in results) for s in STATUSES}
    if gen is not None:
        for s, n in gen.counts().items():
            counts[s] += n
    if counts["pass"]:
        return None
    if not results and (gen is None or not gen.cases):
        return "nothing was checked: no vector is selected"
    if not counts["fail"] and not counts["xfail"] and not counts["xpass"]:
        return "nothing was checked: every selected vector was skipped"
    return (
        f"nothing passed ({counts['fail']} failed, {counts['xfail']} expected failures, {counts['skip']} "
        "skipped): a run passes only when the implementation passes at least one vector or case, whatever an "
        "expectations file lists"
    )


def _write_reports(args, results, impl_name: str, seed: int, gen, gone) -> list[str]:
    """Write the reports asked for; each one that cannot be written is one error line (returned)."""
    errors = []
    for what, path, write in (
        ("JUnit report", args.junit, lambda p: write_junit(results, p, impl_name, gen, gone)),
        ("JSON report", args.json, lambda p: write_json(results, p, impl_name, seed=seed, generated=gen, gone=gone)),
        (
            "expectations file",
            args.write_expect,
            lambda p: write_report(p, expectations_text(results, impl_name, gen).encode("utf-8")),
        ),
    ):
        if not path:
            continue
        try:
            write(Path(path))
        except OSError as e:
            errors.append(f"error: cannot write the {what} {_text.printable(path)}: {e.strerror or e}")
    return errors


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): the same path, after links, is the same file
        return os.path.realpath(a) == os.path.realpath(b)


def _overwritten_input(args) -> str | None:
    """A report that would be written over an input of the run (a vector file, the expectations file) or over
    another report: the error line, else None. ``--write-expect`` may refresh the ``--expect`` file it read."""
    inputs = [("vector file", p) for p in args.files] + ([("--expect file", args.expect)] if args.expect else [])
    named = (("--junit", args.junit), ("--json", args.json), ("--write-expect", args.write_expect))
    reports = [(what, path) for what, path in named if path]
    for i, (what, path) in enumerate(reports):
        for other, given in inputs + reports[:i]:
            if not (what == "--write-expect" and other == "--expect file") and _same_file(path, given):
                return f"error: {what} {_text.printable(path)} is also the {other} {_text.printable(given)}"
    return None


def _known_ids(args, vectors: list[dict], rounds: list[dict]) -> set[str]:
    """The ids an expectations file may name: the run's vectors and rounds, and with vector files given, those of
    the default suite too (not stale because other files were given)."""
    known = {v["id"] for v in vectors} | {r["id"] for r in rounds}
    if args.files:
        try:
            known |= {v["id"] for v in load_vectors()} | {r["id"] for r in load_rounds()}
        except (VectorFileError, FileNotFoundError):
            pass
    return known


def cmd_conformance(args) -> int:
    clash = _overwritten_input(args)
    if clash:
        print(clash, file=sys.stderr)
        return 2
    if args.behaviour or args.client is not None:  # the behaviour gate (codec.conformance.behaviour)
        from .behaviour.command import cmd_behaviour

        return cmd_behaviour(args)
    if args.timeout <= 0 or args.max_reply_bytes <= 0 or args.time_limit <= 0:
        print("error: --timeout, --time-limit and --max-reply-bytes take positive numbers", file=sys.stderr)
        return 2
    try:
        versions = _version_ranges(args.version)
    except ValueError as e:
        print(f"error: --version: {_text.printable(str(e))}", file=sys.stderr)
        return 2
    if args.kafka_release is not None:
        from ..negotiation.releases import check_release

        try:
            check_release(args.kafka_release)
        except ValueError as e:
            print(f"error: --kafka-release: {_text.printable(str(e))}", file=sys.stderr)
            return 2
    n_generate = args.generate if args.generate is not None else None if not args.files and not args.flags else 0
    if args.generated_only and n_generate == 0:
        print("error: --generated-only needs --generate N with N > 0", file=sys.stderr)
        return 2
    expectations = read_expectations(args.expect) if args.expect else None  # InputError: one line, exit 1
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    vectors: list[dict] = []
    if not args.cross_version:
        try:
            vectors = load_vectors([Path(p) for p in args.files] or None)
        except VectorFileError as e:
            for p in e.problems:
                print(f"error: {_text.printable(p)}", file=sys.stderr)
            return 1
    rounds = load_rounds() + load_consumer_rounds() if not args.files and not args.cross_version else []
    if vectors and not args.files:
        suite_vectors(vectors)  # the suite the witnesses and the generator read: these, not a second reading
    known = _known_ids(args, vectors, rounds) if expectations is not None else set()
    if args.impl is not None:
        preload()  # nothing of the install is read once the adapter runs
    try:
        impl = (
            CommandImplementation(
                args.impl, timeout=args.timeout, max_reply=args.max_reply_bytes, time_limit=args.time_limit
            )
            if args.impl is not None
            else BuiltinImplementation()
        )
    except AdapterError as e:
        print(f"error: {_text.printable(str(e))}", file=sys.stderr)
        return 2
    try:
        try:
            declared, said = ask_capabilities(impl)
        except AdapterError as e:  # an adapter of protocol 1
            print(f"error: {_text.printable(str(e))}", file=sys.stderr)
            return 2
        if args.cross_version:
            matrix = cross_version_matrix(impl, seed)
            print(f"seed: {seed} (--seed {seed} replays this run)")
            print(render_matrix(matrix))
            return 0 if all(c["agrees"] for c in matrix) else 1
        suite = vectors
        if args.message:
            vectors = [v for v in vectors if v["message"] in args.message]
        if versions is not None:
            vectors = [v for v in vectors if in_ranges(v.get("version"), versions)]
        if args.flags:
            vectors = [v for v in vectors if set(args.flags) & set(v.get("flags", ()))]
        cells = [c for c in generated_cells(args.message) if versions is None or in_ranges(c[1], versions)]
        if args.kafka_release is not None:  # only what Kafka release R speaks (codec.negotiation.releases)
            from ..negotiation.releases import selects, vector_api_key

            before = len(vectors)
            vectors = [
                v for v in vectors if selects(args.kafka_release, v["message"], v.get("version"), vector_api_key(v))
            ]
            cells = [c for c in cells if selects(args.kafka_release, c[0], c[1], c[2])]
            print(
                f"kafka release {args.kafka_release}: {len(vectors)} of {before} vectors selected "
                f"({before - len(vectors)} at versions Kafka {args.kafka_release} does not speak)",
                file=sys.stderr,
            )
        families = round_cells(args.message) if versions is None and not args.flags else []
        if n_generate is None:  # the default: DEFAULT_GENERATE over every cell, in proportion for a selection
            everything = len(generated_cells()) + len(round_cells())
            n_generate = (
                max(GENERATE_MIN, round(DEFAULT_GENERATE * (len(cells) + len(families)) / everything))
                if cells or families
                else 0
            )
        if args.message:  # a round of the files is a RebalanceRound (Streams) or a ConsumerRound: each by its name
            rounds = [r for r in rounds if round_message(r) in args.message]
        run_rounds = rounds and versions is None and not args.flags and not args.generated_only
        run = run_all(
            impl,
            [] if args.generated_only else vectors,
            ops=args.op,
            declared=declared,
            witnesses=suite,
            rounds=rounds if run_rounds else (),
            generate=n_generate,
            cells=cells,
            round_families=families,
            seed=seed,
        )
    finally:
        impl.close()
    results, gen = run.vectors, run.generated
    stale: list[str] = []
    not_seen: list[str] = []
    if expectations is not None:
        results, stale = apply_expectations(results, expectations, known)
        if gen is not None:
            not_seen = apply_generated(gen, expectations)
    gone = (run.gone, run.stderr) if run.gone else None
    report_errors = _write_reports(args, results, impl.name, seed, gen, gone)
    print(f"implementation: {_text.printable(impl.name)}")
    print(f"seed: {seed} (--seed {seed} replays this run: its order and its generated cases)")
    print(_text.printable(said))
    for entry in stale:
        print(_text.printable(f"STALE {entry}: no such vector in the suite; remove it"))
    show = args.show_failures or None
    if run.gone:  # once, before the failures: every one after it was not asked
        print(render_gone(run.gone, run.stderr, results, gen))
    if gen is not None:
        print(render_generated(gen, show_failures=show, not_seen=not_seen))
    for line in run.unproven:
        print(_text.printable(f"NO EVIDENCE {line}"))
    if not args.generated_only:  # the generated cases' line ends a run of them alone
        print(render_table(results, expectations=expectations is not None, show_failures=show))
    for line in report_errors:
        print(line, file=sys.stderr)
    bad = (
        sum(r.status in ("fail", "xpass") for r in results)
        + len(stale)
        + len(report_errors)
        + (len(gen.unexpected()) if gen is not None else 0)
    )
    if run.unproven:
        print(
            f"error: passes without evidence for {len(run.unproven)} op and message"
            f"{'' if len(run.unproven) == 1 else 's'} (NO EVIDENCE above): a pass counts from an adapter that also "
            "passes at least half of the values nobody wrote down, whatever an expectations file lists",
            file=sys.stderr,
        )
    why = _nothing_passed(results, gen) if not run.gone else f"the adapter was given up: {run.gone}"
    if why:
        print(_text.printable(f"error: {why}"), file=sys.stderr)
    return 0 if not why and not bad and not run.unproven else 1


_SHARED_HELP = (
    "the shared reference folder, Kafka's and kio's vectors (default: $REBALANCE_CODEC_SHARED, else shared/ beside "
    "the repository)"
)
_WRITE_DIR_HELP = "the vector directory to write (default: vectors/ of the checkout; required in an installed package)"


def register(subparsers) -> None:
    v = subparsers.add_parser("vectors", help="lint, import or regenerate the golden vectors")
    vsub = v.add_subparsers(dest="vectors_command", required=True, metavar="ACTION")
    c = vsub.add_parser("check", help="lint every vector file (schema, ids, descriptions, flags, expected values)")
    c.add_argument("--dir", help="vector directory (default: vectors/)")
    c.set_defaults(func=cmd_vectors_check)
    i = vsub.add_parser("import", help="import Kafka's reference vectors from ../shared")
    i.add_argument("--shared", help=_SHARED_HELP)
    i.add_argument("--dir", help=_WRITE_DIR_HELP)
    i.add_argument("--streams-only", action="store_true", help="only SubscriptionInfo and AssignmentInfo")
    i.set_defaults(func=cmd_vectors_import)
    r = vsub.add_parser("rebalance", help="regenerate the rebalance rounds (vectors/rebalance/rounds.jsonl)")
    r.add_argument("--shared", help=_SHARED_HELP)
    r.add_argument("--dir", help=_WRITE_DIR_HELP)
    r.set_defaults(func=cmd_vectors_rebalance)
    u = vsub.add_parser(
        "upstream-diff",
        help="compare schemas/ field by field with Kafka's message JSON: one line per difference",
        description="Compare every schema of schemas/ with Kafka's message JSON of the same name in a Kafka source "
        "tree (a checkout, an extracted git archive, a folder of message JSON), or in a git repository at --ref: "
        "versions, flexible versions, fields, types, tags, defaults, nullable and tagged versions, common structs. "
        "One line per difference; exit 1 when there is any. The differences vectors/releases/upstream-known.txt "
        "lists, with their reasons, are counted, not shown (--all shows them).",
    )
    u.add_argument("tree", metavar="KAFKA_SOURCE_TREE", help="Kafka's source tree, or a git repository with --ref")
    u.add_argument("--ref", help="read the git repository KAFKA_SOURCE_TREE at this ref (a tag, branch or commit)")
    u.add_argument("--message", action="append", help="only this schema (repeatable)")
    u.add_argument("--all", action="store_true", help="show the known differences too")
    u.set_defaults(func=cmd_vectors_upstream_diff)
    h = vsub.add_parser("handcraft", help="regenerate the handcrafted vectors")
    h.add_argument("--dir", help=_WRITE_DIR_HELP)
    h.set_defaults(func=cmd_vectors_handcraft)
    add_list_parser(vsub)
    add_mutate_parser(vsub)

    k = subparsers.add_parser("conformance", help="run the golden vectors against an implementation")
    k.add_argument(
        "--impl",
        help="command of an adapter speaking the line protocol (the guide: vectors/ADAPTERS.md); "
        "default: the built-in codec",
    )
    k.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"how long the adapter has for each request (default {DEFAULT_TIMEOUT:g})",
    )
    k.add_argument(
        "--max-reply-bytes",
        type=int_range(1),
        default=DEFAULT_MAX_REPLY,
        dest="max_reply_bytes",
        metavar="N",
        help=f"the longest reply line accepted (default {DEFAULT_MAX_REPLY})",
    )
    k.add_argument(
        "--time-limit",
        type=seconds,
        default=DEFAULT_TIME_LIMIT,
        dest="time_limit",
        metavar="SECONDS",
        help=f"the wall time a run through an adapter may take; what is left unasked then fails "
        f"(default {DEFAULT_TIME_LIMIT:g})",
    )
    k.add_argument(
        "--seed",
        type=int_range(0, 2**63 - 1),
        metavar="N",
        help="the run's seed: the order of its requests, its generated cases, the --cross-version "
        "samples (default: a fresh one, printed)",
    )
    k.add_argument(
        "--generate",
        type=int_range(0),
        metavar="N",
        help="random values drawn from the schemas for every declared message and version, written by "
        "the built-in codec, and rebalance rounds whose assignment its assignor computes (the evidence a "
        f"pass needs besides: vectors/ADAPTERS.md), N cases in all (default {DEFAULT_GENERATE} over every message and "
        f"version, in proportion for a --message or --version selection, at least {GENERATE_MIN}; "
        "0 with --flags or vector files)",
    )
    k.add_argument(
        "--generated-only",
        action="store_true",
        dest="generated_only",
        help="run the generated cases alone (no vectors, no rounds of the files)",
    )
    k.add_argument("--message", action="append", help="only this message (repeatable)")
    k.add_argument(
        "--version",
        action="append",
        metavar="RANGE",
        help="only these versions: 3, 3-5 or 5- (repeatable; leaves out the rebalance rounds)",
    )
    k.add_argument(
        "--op",
        action="append",
        choices=OPS,
        help="only this op (repeatable): decode (valid vectors' wire, invalid vectors with wire, "
        "acceptable ones), encode (valid vectors' expected, invalid vectors without wire), "
        "assign (rebalance rounds)",
    )
    k.add_argument("--flags", action="append", help="only vectors with this flag (repeatable)")
    k.add_argument(
        "--kafka-release",
        metavar="R",
        dest="kafka_release",
        help="only what Kafka release R (2.0 ... 4.4) speaks: an API message at a version R's brokers and clients "
        "do not use is left out, vectors and generated cases, records and ConsumerProtocol by the same table "
        "(vectors/releases/kafka-versions.json), Streams' and Connect's metadata by the releases their schema's "
        "history names; the rebalance rounds run whole",
    )
    k.add_argument(
        "--expect",
        metavar="FILE",
        help="known failures: vector ids, one a line, and 'generated MESSAGE VERSIONS OP WHERE' lines "
        "for generated cases; '#' comments (vectors/ADAPTERS.md)",
    )
    k.add_argument(
        "--write-expect",
        dest="write_expect",
        metavar="FILE",
        help="write today's failures here as a starting expectations file",
    )
    k.add_argument(
        "--show-failures",
        type=int_range(0),
        default=20,
        dest="show_failures",
        metavar="N",
        help="print at most N FAIL, FIXED and XFAIL lines each (default 20; 0: all)",
    )
    k.add_argument("--junit", help="write JUnit XML here")
    k.add_argument("--json", help="write a JSON report here")
    k.add_argument(
        "--cross-version", action="store_true", help="the writer x reader version matrix for the Streams messages"
    )
    k.add_argument("files", nargs="*", help="vector files (default: every vectors/*.jsonl)")
    add_behaviour_arguments(k)
    k.set_defaults(func=cmd_conformance)
