"""Every command on malformed input: one error line, exit 1 for bad input and 2 for bad usage, bounded work
(issue #17), through the installed console script. Inputs are written by the tests; expectations are the
issue's rules."""

from __future__ import annotations

import json
import time

import pytest

from tests.conftest import SHARED

pytestmark = pytest.mark.wheel


def _no_traceback(p) -> None:
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout, p.stderr[-3000:]


def _error_line(p, status: int = 1) -> str:
    _no_traceback(p)
    assert p.returncode == status, (p.returncode, p.stdout[-500:], p.stderr[-500:])
    lines = p.stderr.strip().splitlines()
    assert lines and "error: " in lines[-1], p.stderr
    return lines[-1]


def _group() -> dict:
    line = (SHARED / "vectors" / "kafka-java-assignor" / "ha_unit_tests.jsonl").read_text().splitlines()[0]
    return json.loads(line)["input"]


@pytest.mark.parametrize(
    "content", ["{}", "[1", "[]", '{"kind": "protocol-selection"}', '{"members": 5}', '{"members": [{}]}']
)
def test_negotiate_on_malformed_scenarios(installed_cli, tmp_path, content):
    f = tmp_path / "s.json"
    f.write_text(content, encoding="utf-8")
    line = _error_line(installed_cli("negotiate", "--scenario", str(f)))
    assert "unexpected" not in line  # a named input error, not the last-resort handler


@pytest.mark.parametrize(
    "scenario,why",
    [
        ({}, "needs instances"),
        ({"instances": [{"name": "a", "threads": 2000000000}], "topology": [{"source_topics": ["x"]}]}, "threads"),
        ({"instances": [{"name": "a", "threads": -1}], "topology": [{"source_topics": ["x"]}]}, "threads"),
        ({"instances": [{"name": "a"}], "topology": [{"source_topics": "input"}]}, "list of topic names"),
        ({"instances": [{"name": "a"}], "topology": [{"source_topics": ["x"], "partitions": 10**9}]}, "partitions"),
        ({"instances": [{}], "topology": []}, "missing 'name'"),
        ({"instances": [{"name": "a"}], "topology": [{"source_topics": ["x"]}], "duration_s": 1e300}, "duration_s"),
    ],
)
def test_simulate_on_malformed_scenarios(installed_cli, tmp_path, scenario, why):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(scenario), encoding="utf-8")
    start = time.monotonic()
    line = _error_line(installed_cli("simulate", str(f), "--no-plots", "--out", str(tmp_path / "o"), timeout=60))
    assert why in line and time.monotonic() - start < 30


@pytest.mark.parametrize(
    "argv", [["--members", "0"], ["--threads", "0"], ["--members", "-5"], ["--members", "1000000"], ["--tasks", "x"]]
)
def test_size_ranges_are_usage_errors(installed_cli, argv):
    _error_line(installed_cli("size", *argv), status=2)


def test_size_refuses_work_out_of_proportion(installed_cli):
    start = time.monotonic()
    line = _error_line(installed_cli("size", "--members", "65536", "--tasks", "1000", timeout=30))
    assert "too large" in line and time.monotonic() - start < 20


def test_assign_lines_keeps_one_line_per_input(installed_cli):
    good = json.dumps(_group())
    stdin = f'{good}\n\n{{"a": "x\u2028y"}}\nnot json\n{good}\n'
    p = installed_cli("assign", "--lines", stdin=stdin)
    _no_traceback(p)
    out = p.stdout.split("\n")
    assert out[-1] == "" and len(out) == 6, p.stdout
    parsed = [json.loads(line) for line in out[:-1]]
    assert ["error" in x for x in parsed] == [False, True, True, True, False]
    assert p.returncode == 1


@pytest.mark.parametrize("now", ['"abc"', "1e400", "-1", "[1]"])
def test_assign_emit_bytes_with_a_bad_now_keeps_the_rest(installed_cli, now):
    good = json.dumps(_group())
    bad = good[:-1] + f', "nowMs": {now}}}'
    p = installed_cli("assign", "--lines", "--emit-bytes", stdin=f"{bad}\n{good}\n")
    _no_traceback(p)
    out = p.stdout.strip().split("\n")
    assert len(out) == 2
    assert "error" in json.loads(out[0]) and "members" in json.loads(out[1])


def test_assign_emit_bytes_caps_capacity(installed_cli):
    doc = _group()
    doc["clients"][0]["capacity"] = 100000
    start = time.monotonic()
    p = installed_cli("assign", "--emit-bytes", stdin=json.dumps(doc), timeout=60)
    _no_traceback(p)
    assert p.returncode == 1 and "more than 10000" in p.stdout
    assert time.monotonic() - start < 20


def test_assign_emit_bytes_refuses_named_topologies(installed_cli):
    """``t__0_0`` must not come out as ``0_0``: the leader here has no named topologies, so it refuses."""
    doc = _group()
    for t in doc["tasks"]:
        t["topology"] = "t"
    doc["clients"] = [{k: v for k, v in c.items() if k in ("processId", "capacity")} for c in doc["clients"]]
    p = installed_cli("assign", "--emit-bytes", stdin=json.dumps(doc))
    _no_traceback(p)
    assert p.returncode == 1
    assert "cannot carry task t__0_0" in json.loads(p.stdout)["error"]["message"]


def test_assign_on_a_malformed_topology_file(installed_cli, tmp_path):
    f = tmp_path / "topo.json"
    f.write_text('{"subtopologies": [{"subtopology": "x"}]}', encoding="utf-8")
    p = installed_cli("assign", "--from-join-group", "00", str(f))
    _no_traceback(p)
    assert p.returncode == 1 and "error" in json.loads(p.stdout)


def test_assign_refuses_a_string_for_a_topic_list(installed_cli, tmp_path):
    """``"sourceTopics": "input"`` is not the five topics i, n, p, u, t."""
    f = tmp_path / "topo.json"
    f.write_text(
        json.dumps({"subtopologies": [{"subtopology": 0, "sourceTopics": "input", "partitions": 2}]}), encoding="utf-8"
    )
    p = installed_cli("assign", "--from-join-group", "00", str(f))
    _no_traceback(p)
    assert p.returncode == 1
    assert "sourceTopics: expected a list of topic names" in json.loads(p.stdout)["error"]["message"]
