"""Generated differential cases (``conformance --generate``, issue #27): what is drawn, the reference holding its
own values, a broken adapter caught by them alone and replayed by its seed, and expectations for them."""

from __future__ import annotations

import json
import math
import re
import sys
from collections import Counter

import pytest

from codec.conformance.expect import apply, apply_generated, read_expectations
from codec.conformance.generate import cell_ops, generated_cells, plan, take_case
from codec.conformance.impl import BuiltinImplementation, Outcome
from codec.conformance.messages import MESSAGES
from codec.conformance.runner import run_all, run_vectors
from codec.conformance.vectors import load_vectors
from codec.wire.schema import load_message
from tests.conformance.test_runner_protocol import cli
from tests.conftest import ROOT

BROKEN = ROOT / "tests" / "conformance" / "broken_adapter.py"
VECTORS = load_vectors()


def test_every_message_of_the_suite_has_cells():
    cells = generated_cells()
    messages = {m for m, _, _ in cells}
    assert messages == set(MESSAGES)
    for m, v, api in cells:
        if m in ("RequestFrame", "ResponseFrame"):
            assert api is not None and v is not None
        elif load_message(m).kind.startswith("coordinator"):
            assert (v, api) == (None, None)
        else:  # a version of the message, or a version probe: read only, at a version past the newest
            assert api is None and (v in load_message(m).valid or cell_ops(m, v) == ("decode",))
            assert (v in load_message(m).valid) == (cell_ops(m, v) == ("decode", "encode"))
    # a frame cell per API that has the version: JoinGroup v0-9, SyncGroup v0-5, ... of the vectors' APIs
    frames = {(v, api) for m, v, api in cells if m == "RequestFrame"}
    assert {(v, 11) for v in range(10)} <= frames and (6, 14) not in frames


def test_the_reference_gives_back_every_value_it_draws():
    """Several seeds over every cell: no draw is dropped (the built-in codec reads back what it wrote), and the
    built-in implementation passes every case."""
    for seed in (1, 2):
        run = run_all(BuiltinImplementation(), [], generate=800, seed=seed)
        gen = run.generated
        assert (
            gen.cases == 800
            and gen.dropped == 0
            and gen.counts() == {"pass": 800, "fail": 0, "skip": 0, "xfail": 0, "notrun": 0}
        ), gen.problems


def _walk(v, path=""):
    yield path, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _walk(x, f"{path}.{k}")
    elif isinstance(v, list):
        for x in v:
            yield from _walk(x, f"{path}[]")


def test_what_is_drawn():
    """Over 1,500 cases: nulls, empty and long arrays, the int extremes, unknown tagged fields in flexible
    versions, strings with 4-byte UTF-8, noncharacters and bidi controls, a string of thousands of characters,
    lone surrogates where the writer keeps them (AssignmentInfo's writeUTF and writeChars)."""
    cells = generated_cells()
    seen: Counter = Counter()
    for op, m, v, api, i in plan(11, 1500, cells):
        case = take_case(11, i, op, m, v, api)
        assert not isinstance(case, str), case
        for path, x in _walk(case.value):
            seen["null"] += x is None
            seen["empty array"] += x == []
            seen["long array"] += isinstance(x, list) and len(x) >= 5
            seen["int32 min"] += x == -(2**31)
            seen["int64 max"] += x == 2**63 - 1
            seen["unknown tags"] += path.endswith("._unknownTaggedFields")
            if isinstance(x, str):
                seen["4-byte UTF-8"] += any(ord(c) > 0xFFFF for c in x)
                seen["noncharacter"] += "\ufffe" in x or "\uffff" in x
                seen["bidi"] += "\u202e" in x or "\u2066" in x
                seen["thousands"] += len(x) >= 1000
                seen["lone surrogate"] += m == "AssignmentInfo" and any(0xD800 <= ord(c) <= 0xDFFF for c in x)
        seen["non-canonical"] += not case.canonical
    assert all(
        seen[k]
        for k in (
            "null",
            "empty array",
            "long array",
            "int32 min",
            "int64 max",
            "unknown tags",
            "4-byte UTF-8",
            "noncharacter",
            "bidi",
            "thousands",
            "lone surrogate",
            "non-canonical",
        )
    ), seen


def test_a_case_replays_from_its_seed_and_is_never_a_vectors_bytes():
    wires = {v["wire"] for v in VECTORS if "wire" in v}
    for op, m, v, api, i in plan(5, 300, generated_cells()):
        a, b = take_case(5, i, op, m, v, api), take_case(5, i, op, m, v, api)
        assert a == b and a.wire.hex() not in wires


def test_a_swapped_int32_pair_is_caught_by_generated_cases_alone_and_replayed_by_its_seed():
    """JoinGroupRequest's sessionTimeoutMs and rebalanceTimeoutMs swapped (tests/conformance/broken_adapter.py):
    no vector runs, the generated cases fail it, naming the field, and the seed printed gives the same failures."""
    impl = f"{sys.executable} {BROKEN} swap-int32"
    # (1,000 cases: over the 228 message versions there are now, 400 could leave JoinGroupRequest v1-9 undrawn)
    p = cli("--impl", impl, "--generated-only", "--generate", "1000")
    assert p.returncode == 1
    seed = re.search(r"^seed: (\d+) \(--seed \1 replays this run", p.stdout, re.MULTILINE).group(1)
    fails = [ln for ln in p.stdout.splitlines() if ln.startswith("FAIL ")]
    assert fails and all(
        re.match(r"FAIL generated JoinGroupRequest v[1-9] (decode|encode) \$\.sessionTimeoutMs: ", ln) for ln in fails
    ), fails
    assert p.stdout.strip().splitlines()[-1].startswith(f"generated: seed {seed}, 1000 cases")
    again = cli("--impl", impl, "--generated-only", "--generate", "1000", "--seed", seed)
    assert [ln for ln in again.stdout.splitlines() if ln.startswith("FAIL ")] == fails
    honest = cli(
        "--impl",
        f"{sys.executable} -m codec.conformance.adapter",
        "--generated-only",
        "--generate",
        "400",
        "--seed",
        seed,
    )
    assert honest.returncode == 0 and re.search(r": 400 passed, 0 failed, 0 skipped$", honest.stdout)


def test_generated_expectations(tmp_path):
    """'generated MESSAGE VERSIONS OP WHERE' lines list generated failures; one matching nothing is NOT SEEN
    and does not fail the run; one naming no message of the suite is stale."""
    impl = f"{sys.executable} {BROKEN} swap-int32"
    args = ("--impl", impl, "--generated-only", "--generate", "300", "--seed", "9", "--message", "JoinGroupRequest")
    expect = tmp_path / "expect.txt"
    expect.write_text(
        "generated JoinGroupRequest 1- * $.sessionTimeoutMs  # the two timeouts swapped\n"
        "generated JoinGroupRequest 0 decode error  # never seen\n"
    )
    p = cli(*args, "--expect", str(expect))
    assert p.returncode == 0, p.stdout[-2000:]
    assert re.search(r"^generated: .*: \d+ passed, 0 failed, 0 skipped, \d+ expected failures$", p.stdout, re.MULTILINE)
    assert f"NOT SEEN {expect}:2: generated JoinGroupRequest 0 decode error: no generated failure" in p.stdout
    assert all(ln.endswith("  # the two timeouts swapped") for ln in p.stdout.splitlines() if ln.startswith("XFAIL"))
    expect.write_text("generated JoinGroupRequset * * error  # a typo\n")
    p = cli(*args, "--expect", str(expect))
    assert p.returncode == 1 and f"STALE {expect}:1: generated JoinGroupRequset * * error" in p.stdout
    written = tmp_path / "written.txt"
    assert cli(*args, "--write-expect", str(written)).returncode == 1
    lines = [ln for ln in written.read_text().splitlines() if ln.startswith("generated ")]
    assert lines and all(
        re.match(r"generated JoinGroupRequest \* (decode|encode) \$\.sessionTimeoutMs  # ", ln) for ln in lines
    )
    assert cli(*args, "--expect", str(written)).returncode == 0
    for bad, why in (
        ("generated X 1 decode\n", "is 'generated MESSAGE VERSIONS OP WHERE'"),
        ("generated X 1 read $\n", "decode, encode, assign or *"),
        ("generated X 5-3 decode $\n", "empty"),
    ):
        expect.write_text(bad)
        with pytest.raises(Exception, match=re.escape(why)):
            read_expectations(expect)


def test_a_pattern_matches_by_message_versions_op_and_class(tmp_path):
    from codec.conformance.runner import GeneratedRun

    path = tmp_path / "e.txt"
    path.write_text(
        "generated * 3-4 encode *._unknownTaggedFields  # tags\ngenerated Heartbeat* * * error  # no glob\n"
        "generated HeartbeatRequest 4 decode error  # not this run\n"
        "generated SyncGroupRequest * * error  # no case of it drawn: not mentioned\n"
    )
    exp = read_expectations(path)
    gen = GeneratedRun(1, 4, [("JoinGroupRequest", 3), ("JoinGroupRequest", 5), ("HeartbeatRequest", 4)])
    groups = [
        ("encode", "JoinGroupRequest", 3, "$.protocols[]._unknownTaggedFields"),
        ("encode", "JoinGroupRequest", 5, "$._unknownTaggedFields"),
        ("decode", "JoinGroupRequest", 3, "$._unknownTaggedFields"),
        ("encode", "HeartbeatRequest", 4, "$.groupId"),
    ]
    for g in groups:
        gen.failed[g] = [1, "id", "detail"]
    not_seen = apply_generated(gen, exp)
    assert list(gen.expected) == [groups[0]] and not_seen == [f"{path}:3: generated HeartbeatRequest 4 decode error"]
    assert apply([], exp, set()) == ([], [f"{path}:2: generated Heartbeat* * * error"])  # a message is not a glob


# --- evidence and every answer checked ------------------------------------------------------------------


def test_a_rejection_without_evidence_is_skipped_never_passed():
    """An adapter that rejects every truncated HeartbeatRequest and declines every valid one: no evidence."""
    cut = [v for v in VECTORS if v["message"] == "HeartbeatRequest" and "truncated" in v.get("flags", ())]

    class DeclinesValid(BuiltinImplementation):
        def decode(self, message, version, wire, reader_version=None, api_key=None):
            out = super().decode(message, version, wire, reader_version, api_key)
            return Outcome(declined="not this one") if out.ok else out

    results = run_vectors(DeclinesValid(), cut)
    assert cut and {r.status for r in results} == {"skip"}
    assert results[0].reason.startswith("no evidence: the adapter declines valid HeartbeatRequest input (witness-")


@pytest.mark.parametrize("value", [math.nan, {}, None, "x"])
def test_the_acceptable_vector_checks_the_value_it_gets(value):
    (v,) = [x for x in VECTORS if x["result"] == "acceptable" and x["message"] == "AssignmentInfo"]

    class Answers(BuiltinImplementation):
        def decode(self, message, version, wire, reader_version=None, api_key=None):
            if wire.hex() == v["wire"]:
                return Outcome(value=value)
            return super().decode(message, version, wire, reader_version, api_key)

    (r,) = run_vectors(Answers(), [v])
    assert r.status == "fail" and "decoded value differs at $" in r.detail
    (r,) = run_vectors(BuiltinImplementation(), [v])
    assert r.status == "pass"  # the built-in codec rejects it, and reads valid AssignmentInfo: either is Kafka's


def test_the_json_report_holds_the_generated_cases(tmp_path):
    report = tmp_path / "r.json"
    p = cli(
        "--impl",
        f"{sys.executable} {BROKEN} swap-int32",
        "--message",
        "JoinGroupRequest",
        "--version",
        "3",
        "--generate",
        "40",
        "--seed",
        "2",
        "--json",
        str(report),
    )
    assert p.returncode == 1
    gen = json.loads(report.read_text())["generated"]
    # a case whose two timeouts are equal passes (the extremes are drawn often)
    assert gen["seed"] == 2 and gen["cases"] == 40 and gen["counts"]["fail"] + gen["counts"]["pass"] == 40
    assert gen["counts"]["fail"] >= 30
    assert {(f["op"], f["message"], f["version"], f["where"]) for f in gen["failures"]} == {
        ("decode", "JoinGroupRequest", 3, "$.sessionTimeoutMs"),
        ("encode", "JoinGroupRequest", 3, "$.sessionTimeoutMs"),
    }
