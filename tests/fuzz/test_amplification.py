"""The amplification check (issue #31, :mod:`codec.fuzz.amplification`): every command within its budget
(:mod:`codec.budget`) on generated inputs, a bounded pass here and a million inputs with ``pytest -m fuzz``; the
worst inputs found so far (``amplification_worst.jsonl``, written by ``python -m tests.fuzz.test_amplification``)
replayed; and the checker shown failing on runs that break a budget."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from codec import budget
from codec.budget import BUDGETS, KIB, MIB, Budget
from codec.fuzz.amplification import COMMANDS, AmplificationReport, Case, Measure, Runner, case_from_json, cases, run

WORST = Path(__file__).with_name("amplification_worst.jsonl")


def _units(text: str) -> int:
    n, unit = text.split()
    return int(n) * {"KiB": KIB, "MiB": MIB, "GiB": 1024 * MIB}[unit]


def test_the_table_states_each_budget_as_BUDGETS_holds_it():
    """The docstring's table is the documentation: its row for each command says what BUDGETS holds."""
    rows = {}
    for line in budget.__doc__.splitlines():
        m = re.match(
            r"(\w[\w, ]*?)\s{2,}(\d+ [KMG]iB)(?: \+ (\d+) x in)?\s+(\d+ [KMG]iB)(?: \+ (\d+) x in)?\s+"
            r"(\d+) s(?: \+ (\d+) s/MiB)?",
            line,
        )
        if m:
            for name in m.group(1).replace(",", " ").split():
                rows[name] = Budget(
                    _units(m.group(2)),
                    int(m.group(3) or 0),
                    _units(m.group(4)),
                    int(m.group(5) or 0),
                    float(m.group(6)),
                    float(m.group(7) or 0),
                )
    for command, b in BUDGETS.items():
        assert rows.get(command) == b, command


def test_a_bounded_pass_holds_every_command_to_its_budget():
    report = run(400, seed=31, workers=0)
    assert report.inputs == 400 and not report.violations, [str(v) for v in report.violations[:5]]
    assert {"decode", "encode", "assign", "capture"} <= set(report.per_command)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_of_the_table_has_inputs(command):
    assert {c.command for c in cases(3, seed=7, commands=(command,))} == {command}


def _worst() -> list[dict]:
    return [json.loads(line) for line in WORST.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("entry", _worst(), ids=lambda e: f"{e['case']['command']}-{e['case']['shape']}")
def test_the_worst_inputs_found_stay_within_their_budget(entry):
    case = case_from_json(entry["case"])
    runner = Runner()
    try:
        m = runner.run(case)
    finally:
        runner.close()
    ratios = m.ratios(BUDGETS[case.command], case.size)
    assert m.bug is None and max(ratios.values()) <= 1.0, (ratios, m)


def test_the_checker_finds_a_run_past_its_budget():
    """Sibling: measures past each budget are violations, named by what was past."""
    case = Case("decode", ("--kind", "x"), 100, "hand-made")
    b = BUDGETS["decode"]
    report = AmplificationReport()
    report.add(case, Measure(0, b.output(100) + 1, 0, 0.0))
    report.add(case, Measure(0, 0, b.memory(100) + 1, 0.0))
    report.add(case, Measure(0, 0, 0, 4 * b.seconds(100)))
    report.add(case, Measure(3, 0, 0, 0.0, bug="exit status 3"))
    report.add(case, Measure(0, b.output(100), b.memory(100), b.seconds(100)))  # at the budget: fine
    assert [v.why.split(" ")[0] for v in report.violations] == ["output", "memory", "seconds", "exit"]
    assert report.inputs == 5


def test_a_run_that_floods_its_output_is_measured(tmp_path):
    """The runner counts what the command writes: a decode past its JSON budget is one error line, and the
    same bytes as pretty text stay small (both measured, not assumed)."""
    from codec.kafka4 import encode

    body = encode(
        "streams-group-heartbeat-response",
        0,
        {"activeTasks": [{"subtopologyId": "x" * 3000, "partitions": list(range(3000))}]},
    )
    runner = Runner()
    try:
        pretty = runner.run(
            Case(
                "decode",
                ("--kind", "streams-group-heartbeat-response", "--version", "0", "--format", "pretty", "@{file}"),
                len(body),
                "hand-made",
                file=body,
            )
        )
    finally:
        runner.close()
    assert pretty.status == 0 and 3000 < pretty.output < 8000


def write_worst(n: int = 200_000, seed: int = 0) -> None:
    """Run ``n`` inputs and keep the worst input of each command (by its highest share of a budget)."""
    report = run(n, seed=seed)
    with WORST.open("w", encoding="utf-8") as f:
        for command, (ratio, case, m) in sorted(report.worst.items()):
            f.write(
                json.dumps(
                    {
                        "ratio": round(ratio, 3),
                        "measure": {"output": m.output, "memory": m.memory, "seconds": round(m.seconds, 3)},
                        "case": case.to_json(),
                    }
                )
                + "\n"
            )
    print(report.summary())


@pytest.mark.fuzz
def test_a_million_inputs_within_their_budgets():
    def say(r: AmplificationReport) -> None:
        if r.inputs % 50_000 < 500:
            print(r.summary(), flush=True)

    report = run(1_000_000, seed=2024, progress=say)
    print(report.summary())
    assert not report.violations, [str(v) for v in report.violations[:20]]


if __name__ == "__main__":
    write_worst(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)
