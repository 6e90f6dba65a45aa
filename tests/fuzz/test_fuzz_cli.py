"""The command-line fuzzer (codec.fuzz.cli, issue #17): the commands as child processes under hostile input.

The default run executes a bounded pass over ``decode``, ``encode`` and ``assign --lines`` and over
``conformance --impl`` with a mutating adapter, and replays the violations found so far
(``cli_regressions.jsonl``); ``pytest -m fuzz`` runs a million inputs. The checker itself is tested against
small programs that break the contract in each way it names (a checker that cannot fail proves nothing),
and the hostile adapter against the line protocol of vectors/README.md.
"""

from __future__ import annotations

import json
import random
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codec.fuzz.cli import (
    CROSS_VERSION_CELLS,
    CliViolation,
    Examiner,
    Job,
    adapter_reply,
    check,
    execute,
    jobs,
    replay,
    run,
    vector_counts,
    violation_from_json,
)

HERE = Path(__file__).resolve().parent
REGRESSIONS = HERE / "cli_regressions.jsonl"


def _failures(report) -> str:
    shown = "\n\n".join(str(v)[:3000] for v in report.violations[:6])
    return f"{report.summary()}\nproblems (runs): {report.problem_counts}\n\n{shown}"


# --- the bounded pass (default run) and the long one ------------------------------------------------------


def test_bounded_pass_over_decode_encode_and_assign():
    report = run(
        12_000,
        seed=20250117,
        commands=("decode", "encode", "assign"),
        batch={"decode": 1500, "encode": 1500, "assign": 1500},
    )
    assert set(report.per_command) == {"decode", "encode", "assign"}
    assert report.inputs >= 12_000 and report.runs >= 8
    assert not report.violations and not report.problem_counts, _failures(report)


def test_bounded_pass_over_conformance_with_a_mutating_adapter():
    report = run(600, seed=20250117, commands=("conformance",))
    assert report.runs >= 3, report.summary()  # each kind of run below
    assert not report.violations and not report.problem_counts, _failures(report)


def test_the_conformance_runs_take_turns():
    """A mostly honest adapter, then one that never answers right, then the cross-version matrix; vector runs
    select what the vector files hold for their filters."""
    runs = list(jobs(600, seed=20250117, commands=("conformance",)))[:3]
    assert [(j.all_fail, "--cross-version" in j.args) for j in runs] == [(False, False), (True, False), (False, True)]
    assert runs[2].vectors == 2 * 11 * 11  # SubscriptionInfo and AssignmentInfo v1-11 written x read
    counts, rounds = vector_counts()
    for j in runs[:2]:
        messages = {j.args[i + 1] for i, a in enumerate(j.args) if a == "--message"}
        version = int(j.args[j.args.index("--version") + 1]) if "--version" in j.args else None
        expected = sum(c for (m, v), c in counts.items() if m in messages and version in (None, v))
        assert j.vectors == expected + (rounds if "RebalanceRound" in messages else 0) > 0
    # each run names its seed, so a reported run replays as it ran (--cross-version's choices too)
    assert all(0 <= int(j.args[j.args.index("--seed") + 1]) < 2**63 for j in runs)
    assert len({j.args[j.args.index("--seed") + 1] for j in runs}) == 3


@pytest.mark.fuzz
def test_a_million_cli_inputs():
    t0 = time.monotonic()
    report = run(1_000_000, seed=17)
    print(
        f"\n{report.summary()}; process seconds per command: "
        f"{ {c: round(s) for c, s in report.seconds_per_command.items()} }; wall {time.monotonic() - t0:.0f} s"
    )
    assert report.inputs >= 1_000_000
    assert not report.violations and not report.problem_counts, _failures(report)


# --- regressions: what the fuzzer found, replayed ---------------------------------------------------------


def _regressions() -> list[dict]:
    return [json.loads(line) for line in REGRESSIONS.read_text(encoding="utf-8").split("\n") if line.strip()]


@pytest.mark.parametrize("row", _regressions(), ids=lambda r: r["id"])
def test_cli_regression(row):
    v = violation_from_json(row)
    assert v.command in ("decode", "encode", "assign") and v.lines
    problems = replay(v)
    assert problems == [], f"{v.reproducer()[:1000]}\n{problems}"


BIG_INT_ADAPTER = """
import sys
for line in sys.stdin:
    print('{"value": ' + "9" * 5000 + '}', flush=True)
"""


@pytest.mark.parametrize(
    "args,vectors",
    [
        (("--cross-version",), CROSS_VERSION_CELLS),  # found by the fuzzer: ValueError out of the matrix
        (("--message", "ConsumerProtocolSubscription"), None),
    ],
)
def test_conformance_regression_reply_with_a_5000_digit_integer(tmp_path, args, vectors):
    """A reply Python's JSON reader refuses with ValueError (an integer past 4,300 digits) is the adapter's
    failure, for every vector and every cell."""
    script = tmp_path / "adapter.py"
    script.write_text(BIG_INT_ADAPTER, encoding="utf-8")
    if vectors is None:
        vectors = sum(c for (m, _), c in vector_counts()[0].items() if m == "ConsumerProtocolSubscription")
    job = Job(
        "conformance",
        ("conformance", *args, "--impl", shlex.join([sys.executable, str(script)])),
        vectors=vectors,
        all_fail=True,
    )
    res = execute(job)
    assert check(job, res) == [], res.stderr[-2000:]


# --- the checker fails what breaks the contract -----------------------------------------------------------

FAKE_CLI = r"""
import sys, time
mode = sys.argv[1]
data = sys.stdin.buffer.read()
if mode == "conformance":
    what = sys.argv[2]
    if what == "control":
        print("FAIL v1 (X v1): adapter said \x1b[2J")
    print("implementation: fake")
    print({"good": "0 passed, 5 failed, 0 skipped", "short": "3 passed, 0 failed, 0 skipped",
           "false-pass": "1 passed, 4 failed, 0 skipped", "exit-lies": "0 passed, 5 failed, 0 skipped",
           "control": "0 passed, 5 failed, 0 skipped",
           "matrix-good": "0 of 242 cells agree with Kafka",
           "matrix-false-pass": "3 of 242 cells agree with Kafka"}[what])
    sys.exit(0 if what in ("short", "exit-lies") else 1)
if mode == "splitlines":  # what assign --lines did before issue #17
    lines = [l.encode() for l in data.decode("utf-8", "replace").splitlines() if l.strip()]
else:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
out = sys.stdout
status = 0
for line in lines:
    if mode == "stderr-esc" and b"esc" in line:
        sys.stderr.write("note: \x1b]0;title\x07\n")
    if mode == "traceback" and b"boom" in line:
        raise RuntimeError("boom")
    if mode == "hang" and b"sleep" in line:
        out.flush()
        time.sleep(600)
    if mode == "flood" and b"flood" in line:
        while True:
            out.write("x" * 1000000)
    if mode == "memory" and b"eat" in line:
        out.flush()
        hog = b"x" * (250 << 20)
        time.sleep(30)
    if b"bad" in line:
        status = 0 if mode == "exit0" else 1
        out.write('{"error": {"type": "X", "message": "bad line"}}\n')
        continue
    if mode == "trailing" and line.endswith(b"00"):
        out.write('{"v": 1, "trailing": "00"}\n')
        continue
    if mode == "u2028" and b"sep" in line:
        out.write('{"v": "a\u2028b"}\n')
        continue
    if mode == "nan" and b"nan" in line:
        out.write('{"v": NaN}\n')
        continue
    if mode == "hexjson" and b"enc" in line:
        out.write('{"v": 1}\n')
        continue
    out.write({"encode": "00ff\n", "assign": '{"clients": []}\n'}.get(sys.argv[2], '{"v": 1}\n'))
sys.exit(2 if mode == "exit2" else status)
"""


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    path = tmp_path_factory.mktemp("fake") / "fake_cli.py"
    path.write_text(FAKE_CLI, encoding="utf-8")
    return lambda mode, **kw: Examiner(program=(sys.executable, str(path), mode), **kw)


def _lines(n: int, at: int, special: bytes) -> tuple[bytes, ...]:
    return tuple(special if i == at else b'{"version": %d}' % i for i in range(n))


@pytest.mark.parametrize(
    "mode,command,special,kinds",
    [
        ("good", "decode", b"bad", set()),  # an error line and exit 1: the contract
        ("good", "encode", b"bad", set()),
        ("traceback", "decode", b"boom", {"traceback", "line-count"}),
        ("splitlines", "assign", b"", {"line-count"}),
        ("splitlines", "assign", "a\u2028b".encode(), {"line-count"}),
        ("exit0", "decode", b"bad", {"exit-mismatch"}),
        ("u2028", "decode", b"sep", {"bad-line"}),
        ("nan", "assign", b"nan", {"bad-line"}),
        ("hexjson", "encode", b"enc", {"bad-line"}),  # encode printed JSON that is not an error line
        ("exit2", "decode", b"x", {"exit-status"}),
        ("stderr-esc", "encode", b"esc", {"stderr"}),  # an OSC sequence to the terminal
    ],
)
def test_the_checker_finds_each_broken_promise(fake, mode, command, special, kinds):
    job = Job(command, (command, "--lines"), _lines(41, 23, special))
    res, problems, violations = fake(mode).examine(job)
    assert {p.kind for p in problems} == kinds, problems
    if not kinds:
        assert res.status == 1 and violations == []
        return
    if mode == "exit2":  # every line fails alike: narrowed to one line of them
        assert len(violations) == 1 and len(violations[0].lines) == 1 and violations[0].isolated
        return
    # narrowed down to the line that does it, which breaks the contract alone too
    assert [v.lines for v in violations] == [(special,)] * len(violations), [str(v) for v in violations]
    assert all(v.isolated for v in violations)


def test_trailing_bytes_must_be_reported(fake):
    """Lines known to be a whole message with bytes after it: decode must say so (``trailing``)."""
    lines = (b"0a0b", b"0a0b00", b"0a0bff", b"0a0b")
    job = Job("decode", ("decode", "--lines"), lines, trailing=(1, 2))
    res, problems, violations = fake("trailing").examine(job)
    assert [(p.kind, p.index) for p in problems] == [("trailing", 2)]
    assert [v.lines for v in violations] == [(b"0a0bff",)] and violations[0].trailing == (0,)
    assert violations[0].isolated


def test_a_hang_is_killed_and_narrowed_to_its_line(fake):
    job = Job("decode", ("decode", "--lines"), _lines(30, 17, b"sleep"))
    t0 = time.monotonic()
    res, problems, violations = fake("hang", timeout=1.0).examine(job)
    assert res.killed == "timeout" and res.status is None
    assert "timeout" in {p.kind for p in problems}
    assert [v.lines for v in violations] == [(b"sleep",)] and violations[0].kind == "timeout"
    assert time.monotonic() - t0 < 30


def test_endless_output_is_killed_and_narrowed_to_its_line(fake):
    job = Job("decode", ("decode", "--lines"), _lines(20, 5, b"flood"))
    res, problems, violations = fake("flood", timeout=60).examine(job)
    assert res.killed == "output" and len(res.stdout) > 64 << 20
    assert [v.lines for v in violations] == [(b"flood",)] and violations[0].kind == "output"


def test_memory_growth_is_killed_and_narrowed_to_its_line(fake):
    job = Job("encode", ("encode", "--lines"), _lines(30, 9, b"eat"))
    res, problems, violations = fake("memory", max_rss_mb=120, timeout=20).examine(job)
    assert res.killed == "memory" and res.max_rss_kb > 120 * 1024
    assert [v.lines for v in violations] == [(b"eat",)] and violations[0].kind == "memory"


@pytest.mark.parametrize(
    "what,job_kw,kinds",
    [
        ("good", {"vectors": 5, "all_fail": True}, set()),
        ("short", {"vectors": 5}, {"summary"}),  # a vector not counted
        ("false-pass", {"vectors": 5, "all_fail": True}, {"false-pass"}),
        ("exit-lies", {"vectors": 5}, {"exit-mismatch"}),  # 5 failed, exit 0
        ("control", {"vectors": 5}, {"output"}),  # an ESC sequence on the terminal
        ("matrix-good", {"vectors": CROSS_VERSION_CELLS, "all_fail": True}, set()),
        ("matrix-false-pass", {"vectors": CROSS_VERSION_CELLS, "all_fail": True}, {"false-pass"}),
    ],
)
def test_the_checker_holds_the_conformance_runner_to_its_count(fake, what, job_kw, kinds):
    args = ("conformance", "--cross-version") if what.startswith("matrix") else ("conformance",)
    job = Job("conformance", args, **job_kw)
    examiner = fake("conformance")
    examiner.program += (what,)
    res = execute(job, program=examiner.program)
    assert {p.kind for p in check(job, res)} == kinds


def test_reports_are_checked(fake, tmp_path):
    job = Job("conformance", ("conformance",), vectors=5, reports=True)
    res = execute(job, program=fake("conformance").program + ("good",))
    # the fake writes no --json/--junit file: that is a problem of its own
    assert {p.kind for p in check(job, res)} == {"report"}


# --- reproducers ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lines",
    [
        (b"a'b%s\\n\x00\xff", "x\u2028y\r".encode(), b""),
        (b'{"version":' + b"9" * 5000 + b"}", b"\xed\xa0\x80"),  # long: compressed into a python3 -c
    ],
)
def test_the_reproducer_writes_the_same_bytes(lines):
    v = CliViolation("decode", (), "bad-line: x", lines, True)
    shell = v.reproducer(program="cat")
    assert shell.startswith("printf " if len(lines[0]) < 100 else "python3 -c ")
    out = subprocess.run(["sh", "-c", shell], capture_output=True, timeout=30).stdout
    assert out == b"".join(line + b"\n" for line in lines)
    assert violation_from_json(json.loads(json.dumps(v.to_json()))) == v


# --- the hostile adapter ----------------------------------------------------------------------------------


def _protocol_answer(line: bytes) -> bool:
    """Whether a reply line is one of the answers vectors/README.md defines: {"value": ...},
    {"wire": "<hex>"}, {"assignments": {"<member>": "<hex>"}} or {"error": {"message": "..."}}."""
    try:
        v = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    hexes = re.compile(r"([0-9a-fA-F]{2})*\Z")
    if not isinstance(v, dict):
        return False
    if "error" in v:
        return isinstance(v["error"], dict) and isinstance(v["error"].get("message"), str)
    if "wire" in v:
        return isinstance(v["wire"], str) and bool(hexes.match(v["wire"]))
    if "assignments" in v:
        return isinstance(v["assignments"], dict) and all(
            isinstance(h, str) and hexes.match(h) for h in v["assignments"].values()
        )
    return "value" in v


REQUESTS = [
    {
        "op": "decode",
        "message": "SubscriptionInfo",
        "version": 7,
        "wire": "00000007000000071111111122223333444455555555555500000006686f73743a31000000010000000100000002000000000000000064",
    },
    {"op": "decode", "message": "AssignmentInfo", "version": 2, "wire": "0000"},
    {"op": "encode", "message": "SubscriptionInfo", "version": 4, "value": {"version": 4}},
    {"op": "assign", "round": {}},
    {"op": "frobnicate"},
]


def test_the_failing_adapter_never_answers_right():
    actions = set()
    for i in range(600):
        req = json.dumps(REQUESTS[i % len(REQUESTS)]).encode()
        action, data = adapter_reply(req, random.Random(i), "fail", 0.0, 200_000)
        actions.add(action)
        if action == "reply":
            assert data.endswith(b"\n") and data.count(b"\n") == 1
            assert not _protocol_answer(data[:-1]), data[:200]
    assert actions == {"reply", "exit", "silent", "flood"}


def test_the_mixed_adapter_at_zero_is_the_reference_adapter():
    from codec.conformance.impl import handle_request
    from codec.text import dumps

    for i, req in enumerate(REQUESTS):
        action, data = adapter_reply(json.dumps(req).encode(), random.Random(i), "mixed", 0.0, 200_000)
        # (with the request's id, as every reply of the line protocol's version 2)
        assert action == "reply" and data == dumps({"id": req.get("id"), **handle_request(req)}).encode() + b"\n"


def test_the_mixed_adapter_mutates_its_share():
    req = json.dumps(REQUESTS[0]).encode()
    honest = adapter_reply(req, random.Random(0), "mixed", 0.0, 200_000)
    changed = sum(adapter_reply(req, random.Random(i), "mixed", 0.5, 200_000) != honest for i in range(400))
    assert 140 < changed < 260


def test_the_honest_adapter_passes_the_conformance_run():
    adapter = shlex.join([sys.executable, "-m", "codec.fuzz.cli", "adapter", "--p", "0"])
    p = subprocess.run(
        [sys.executable, "-m", "codec", "conformance", "--impl", adapter, "--message", "ConsumerProtocolAssignment"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert p.stdout.rstrip().endswith(" passed, 0 failed, 0 skipped")


# --- rebalance-codec fuzz --cli -----------------------------------------------------------------------------


def test_the_fuzz_cli_subcommand(fake, tmp_path):
    ok = subprocess.run(
        [sys.executable, "-m", "codec", "fuzz", "--cli", "--inputs", "300", "--command", "assign", "--seed", "3"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ok.returncode == 0 and "Traceback" not in ok.stderr, ok.stdout + ok.stderr
    assert re.match(r"300 inputs in 1 runs \(assign 300\) in [\d.]+ s: 0 violations", ok.stdout)
    # a program that exits 2 on every run: reported, written, exit 1
    out = tmp_path / "violations.jsonl"
    program = shlex.join(fake("exit2").program)
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "codec",
            "fuzz",
            "--cli",
            "--inputs",
            "40",
            "--command",
            "encode",
            "--program",
            program,
            "--write-violations",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 1 and "VIOLATION encode: exit-status" in bad.stderr, bad.stdout + bad.stderr
    # a line to copy: printf of the input, or (a long input) the input compressed in a python3 -c
    assert "\n  reproduce: printf '" in bad.stderr or "\n  reproduce: python3 -c 'import base64" in bad.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows and all(r["command"] == "encode" and r["problem"].startswith("exit-status") for r in rows)
    usage = subprocess.run(
        [sys.executable, "-m", "codec", "fuzz", "--cli", "--command", "capture"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert usage.returncode == 2 and "unknown --command capture" in usage.stderr
