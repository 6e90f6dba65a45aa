"""``rebalance-codec conformance --behaviour --client CMD``: the scenarios against a driver, and the reports.

The report forms are the codec gate's: a line per scenario and the summary line (``N passed, N failed, N
skipped``), ``--json`` (each scenario's verdict with its rule and the trace it was judged on), ``--junit`` (a
testcase per scenario) and ``--expect`` / ``--write-expect`` (scenario names, one a line, each with the reason it
is known to fail: an expected failure; a listed scenario that passes fails the run, fixed, unless its reason
begins with ``intermittent``: a race in the client that fails some runs only)."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

from ... import text as _text
from ...cliutil import int_range
from ..expect import apply as apply_expectations
from ..expect import expectations_text, read_expectations
from ..reports import summary_line, write_junit, write_report
from ..runner import VectorResult
from . import SCENARIOS, by_name
from .runner import CAPABILITIES, Outcome, run_scenarios
from .scenario import Config

__all__ = ["add_arguments", "cmd_behaviour", "results_of", "scenario_list"]

DEFAULT_JOBS = 8
INTERMITTENT = "intermittent"  # an expectations line whose reason begins so: the client fails it some runs only


def results_of(outcomes: list[Outcome]) -> list[VectorResult]:
    """The outcomes in the codec gate's result shape (message: ``behaviour.classic`` or ``behaviour.consumer``)."""
    return [
        VectorResult(
            o.scenario.name,
            f"behaviour.{o.scenario.protocol}",
            None,
            o.verdict.status,
            o.verdict.detail,
            reason=o.verdict.detail if o.verdict.status == "skip" else "",
        )
        for o in outcomes
    ]


def _report(outcomes: list[Outcome], results: list[VectorResult], command: str, supports, seconds: float) -> dict:
    by = {r.id: r for r in results}
    return {
        "implementation": command,
        "kind": "behaviour",
        "supports": sorted(supports) if supports is not None else None,
        "seconds": round(seconds, 1),
        "counts": {s: sum(r.status == s for r in results) for s in ("pass", "fail", "skip", "xfail", "xpass")},
        "results": [
            {
                "id": o.scenario.name,
                "title": o.scenario.title,
                "protocol": o.scenario.protocol,
                "needs": sorted(o.scenario.needs),
                "status": by[o.scenario.name].status,
                "detail": by[o.scenario.name].detail,
                "reason": by[o.scenario.name].reason,
                "seconds": o.seconds,
                "rule": o.scenario.rule,
                "java": list(o.scenario.java),
                "trace": o.trace.to_json() if o.trace is not None and o.verdict.status != "skip" else None,
            }
            for o in outcomes
        ],
    }


LABELS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP", "xfail": "XFAIL", "xpass": "FIXED"}


def render(results: list[VectorResult], outcomes: list[Outcome], *, expectations: bool) -> str:
    width = max(len(r.id) for r in results) if results else 0
    lines = []
    seconds = {o.scenario.name: o.seconds for o in outcomes}
    for r in results:
        why = r.detail if r.status != "xfail" else f"{r.reason}: {r.detail}" if r.reason else r.detail
        took = f"{seconds.get(r.id, 0):5.1f} s" if r.status != "skip" else "      "
        lines.append(_text.printable(f"{LABELS[r.status]:5} {r.id:{width}}  {took}  {why}"[:400]))
    lines.append("")
    lines.append(summary_line(results, expectations=expectations))
    return "\n".join(lines)


def scenario_list() -> str:
    """``--behaviour --list``: a line per scenario, its name, protocol, what a driver must declare for it, title."""
    width = max(len(s.name) for s in SCENARIOS)
    needs = max(len(",".join(s.needs)) for s in SCENARIOS)
    return "\n".join(
        _text.printable(f"{s.name:{width}}  {s.protocol:8}  {','.join(sorted(s.needs)):{needs}}  {s.title}")
        for s in SCENARIOS
    )


def cmd_behaviour(args) -> int:
    if args.list:
        print(scenario_list())
        return 0
    if not args.client:
        print("error: --behaviour needs --client CMD, the driver of the client under test", file=sys.stderr)
        return 2
    try:
        argv = shlex.split(args.client)
    except ValueError as e:
        print(f"error: --client: {e}", file=sys.stderr)
        return 2
    if not argv:
        print("error: --client is empty", file=sys.stderr)
        return 2
    from ...cliutil import cannot_start

    if (why := cannot_start(argv)) is not None:
        print(f"error: cannot start --client {args.client!r}: {why}", file=sys.stderr)
        return 2
    scenarios = SCENARIOS
    if args.scenario:
        known = by_name()
        unknown = [s for s in args.scenario if s not in known]
        if unknown:
            print(
                f"error: no scenario {', '.join(unknown)} (rebalance-codec conformance --behaviour --list)",
                file=sys.stderr,
            )
            return 2
        scenarios = [known[s] for s in dict.fromkeys(args.scenario)]
    expectations = read_expectations(args.expect) if args.expect else None
    began = time.monotonic()
    outcomes, supports, why = run_scenarios(argv, scenarios, Config(), jobs=args.jobs)
    seconds = time.monotonic() - began
    results = results_of(outcomes)
    stale: list[str] = []
    if expectations is not None:
        before = {r.id: r for r in results}
        results, stale = apply_expectations(results, expectations, {s.name for s in SCENARIOS})
        stale = [s for s in stale if " generated " not in s]
        # a difference listed as intermittent (its reason begins so: a race in the client) fails or passes
        results = [
            before[r.id] if r.status == "xpass" and expectations.reasons[r.id].startswith(INTERMITTENT) else r
            for r in results
        ]
    print(f"implementation: {_text.printable(args.client)}")
    if supports is None:
        print(_text.printable(f"the driver declares nothing: {why}"))
    else:
        unknown = sorted(supports - set(CAPABILITIES))
        print(
            f"the driver declares: {', '.join(sorted(supports & set(CAPABILITIES))) or 'nothing this suite knows'}"
            + (f" (and {', '.join(unknown)}, unknown here)" if unknown else "")
        )
    for entry in stale:
        print(_text.printable(f"STALE {entry}: no such scenario; remove it"))
    print(render(results, outcomes, expectations=expectations is not None))
    print(f"{len(outcomes)} scenarios in {seconds:.1f} s")
    errors = []
    for what, path, write in (
        ("JUnit report", args.junit, lambda p: write_junit(results, p, f"behaviour: {args.client}")),
        (
            "JSON report",
            args.json,
            lambda p: write_report(
                p, _text.dumps(_report(outcomes, results, args.client, supports, seconds), indent=2).encode()
            ),
        ),
        ("expectations file", args.write_expect, lambda p: _write_expect(p, results, args.client)),
    ):
        if path:
            try:
                write(Path(path))
            except OSError as e:
                errors.append(f"error: cannot write the {what} {_text.printable(path)}: {e.strerror or e}")
    for line in errors:
        print(line, file=sys.stderr)
    bad = sum(r.status in ("fail", "xpass") for r in results) + len(stale) + len(errors)
    if not any(r.status == "pass" for r in results):
        print("error: nothing passed: a run passes only when the client passes at least one scenario", file=sys.stderr)
        return 1
    return 0 if not bad else 1


def _write_expect(path: Path, results: list[VectorResult], command: str) -> None:
    write_report(path, expectations_text(results, f"the driver {command}").encode("utf-8"))


def add_arguments(k) -> None:
    """The behaviour gate's options on ``rebalance-codec conformance``."""
    k.add_argument(
        "--behaviour",
        action="store_true",
        help="judge a client's group behaviour against a scripted coordinator (needs --client); the reports "
        "(--json, --junit, --expect, --write-expect) are the same",
    )
    k.add_argument(
        "--client",
        metavar="CMD",
        help="with --behaviour: the driver running the client under test as a group consumer (the driver "
        "contract: vectors/drivers/README.md)",
    )
    k.add_argument(
        "--scenario",
        action="append",
        metavar="NAME",
        help="with --behaviour: only this scenario (repeatable; the scenarios: docs' behaviour gate page)",
    )
    k.add_argument(
        "--list",
        action="store_true",
        help="with --behaviour: list the scenarios (name, protocol, what a driver must declare, title) and exit",
    )
    k.add_argument(
        "--jobs",
        type=int_range(1, 64),
        default=DEFAULT_JOBS,
        metavar="N",
        help=f"with --behaviour: scenarios run at once (default {DEFAULT_JOBS}; they wait on the network)",
    )
