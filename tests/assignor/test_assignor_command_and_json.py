"""The ``assign`` subcommand through an argparse harness, and the JSON input rules."""

from __future__ import annotations

import argparse
import io
import json


import pytest

from codec.assignor import AssignmentError, assign, compute_lag, group_from_json, result_to_json
from codec.assignor.command import register
from tests.conftest import SHARED

VECTORS = SHARED / "vectors" / "kafka-java-assignor" / "ha_unit_tests.jsonl"
CASES = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]


def run(argv: list[str], stdin: str = "") -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="rebalance-codec")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    out = io.StringIO()
    code = args.func(args, stdout=out, stdin=io.StringIO(stdin))
    return code, out.getvalue()


def test_single_group_from_file(tmp_path):
    path = tmp_path / "group.json"
    path.write_text(json.dumps(CASES[0]["input"]))
    code, out = run(["assign", str(path)])
    doc = json.loads(out)
    assert code == 0 and doc["probingRebalanceNeeded"] is True
    assert set(doc["clients"][0]) == {"processId", "active", "standby", "warmup"}


def test_stdin_and_dash_are_the_same():
    text = json.dumps(CASES[3]["input"])
    assert run(["assign"], text) == run(["assign", "-"], text)


def test_lines_mode_reports_errors_per_line_and_exits_1():
    bad = dict(CASES[0]["input"], configs={"rackAwareAssignmentStrategy": "min_traffic"})
    text = "\n".join([json.dumps(CASES[0]["input"]), "{not json", json.dumps(bad), json.dumps(CASES[1]["input"])])
    code, out = run(["assign", "--lines"], text)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and len(lines) == 4
    assert lines[0]["probingRebalanceNeeded"] is True and lines[3]["probingRebalanceNeeded"] is False
    assert lines[1]["error"]["type"] == "invalid_json" and lines[1]["error"]["line"] == 2
    assert lines[2]["error"]["type"] == "invalid_group" and "min_traffic" in lines[2]["error"]["message"]


def test_lines_mode_all_good_exits_0():
    code, out = run(["assign", "--lines"], "\n".join(json.dumps(c["input"]) for c in CASES))
    assert code == 0 and len(out.splitlines()) == len(CASES)


def test_table_reads_like_the_kip_tables():
    code, out = run(["assign", "--format", "table"], json.dumps(CASES[0]["input"]))
    lines = out.splitlines()
    assert code == 0
    assert lines[0].split("|")[1].strip() == "...0001"  # the shortest unique suffix of the process id
    assert [line.split("|")[0].strip() for line in lines[2:5]] == ["active", "standby", "warmup"]
    assert lines[4].split("|")[3].strip() == "0_1, 0_2"  # client 3 only warms up
    assert lines[-1] == "probing rebalance needed: yes"


def test_missing_file_is_an_error():
    code, out = run(["assign", "/nonexistent/group.json"])
    assert code == 1 and json.loads(out)["error"]["type"] == "io"


@pytest.mark.parametrize(
    "offset, end, lag",
    [
        (None, 500, 500),  # no offset sum: lag = end sum
        (-2, 500, -2),  # running active
        (-3, 500, -3),  # unknown
        (600, 500, 500),  # end < offset (reset changelog): lag = end sum
        (100, 500, 400),
        (500, 500, 0),
    ],
)
def test_lag_rules_of_the_readme(offset, end, lag):
    assert compute_lag(offset, end) == lag


def test_offset_sums_and_lags_give_the_same_assignment():
    """The README's two client forms: taskOffsetSums with endOffsetSums, or taskLags. With end
    sum 1000, lag 0 is offset 1000 and lag 10 is offset 990; lag Long.MAX becomes "no offset sum"
    (lag 1000): both are far beyond the acceptable lag of 11 and the worst in lag order."""
    with_lags = CASES[0]["input"]
    with_sums = dict(
        with_lags,
        endOffsetSums={t: 1000 for t in with_lags["clients"][0]["taskLags"]},
        clients=[
            {
                **{k: v for k, v in c.items() if k != "taskLags"},
                "taskOffsetSums": {t: 1000 - lag for t, lag in c["taskLags"].items() if lag <= 1000},
            }
            for c in with_lags["clients"]
        ],
    )
    assert result_to_json(assign(group_from_json(with_sums))) == result_to_json(assign(group_from_json(with_lags)))


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda g: g.update(assignor="round_robin"), "unknown assignor"),
        (lambda g: g["configs"].update(rackAwareAssignmentStrategy="balance_subtopology"), "not supported"),
        (lambda g: g["configs"].update(maxWarmupReplicas=0), "maxWarmupReplicas"),
        (lambda g: g["configs"].update(probingRebalanceIntervalMs=1000), "probingRebalanceIntervalMs"),
        (lambda g: g.update(surprise=1), "unknown key"),
        (lambda g: g["clients"][0].update(processId="nope"), "UUID"),
        (lambda g: g["clients"][0].update(capacity=0), "capacity"),
        (lambda g: g["clients"][0]["taskLags"].pop("0_0"), "no lag"),
        (lambda g: g["clients"][1].update(processId=g["clients"][0]["processId"]), "duplicate processId"),
        (lambda g: g.update(clients=[]), "at least one client"),
    ],
)
def test_bad_groups_are_rejected_clearly(mutate, message):
    group = json.loads(json.dumps(CASES[0]["input"]))
    mutate(group)
    with pytest.raises(AssignmentError, match=message):
        assign(group_from_json(group))


def test_configs_default_to_kafka():
    group = group_from_json({"tasks": [], "clients": [{"processId": "00000000-0000-0000-0000-000000000001"}]})
    c = group.configs
    assert (
        c.acceptable_recovery_lag,
        c.num_standby_replicas,
        c.max_warmup_replicas,
        c.probing_rebalance_interval_ms,
        c.rack_aware_assignment_tags,
    ) == (10000, 0, 2, 600000, ())
