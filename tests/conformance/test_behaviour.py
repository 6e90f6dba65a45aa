"""The behaviour gate (issue #45): the shipped drivers of real clients against every scenario, the seeded bugs
each caught, and a driver that never connects failed.

The real clients run as users run them (kafka-python, aiokafka and confluent-kafka from the test extra, kafkajs
from the npm registry through vectors/drivers/kafkajs/package-lock.json); each driver's known differences from
Kafka's rules are its expect.txt, each with its reason, and a listed scenario that passes fails the run. The
seeded bugs are kafka-python patched (vectors/drivers/seeded/kafka_python_bug.py): each must fail a scenario
written to catch it, which the unpatched driver passes. The whole kill matrix (every bug against every
scenario) is behind the ``mutation`` marker."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from codec.conformance.behaviour import SCENARIOS
from codec.conformance.expect import read_expectations
from tests.conftest import ROOT

DRIVERS = ROOT / "vectors" / "drivers"
BUGS = (
    "keep-member-id",
    "skip-revocation",
    "ignore-rebalance-in-progress",
    "reset-member-id",
    "stop-heartbeating",
    "drop-owned-partitions",
)


def _commands(kafkajs: Path) -> dict[str, list[str]]:
    py = sys.executable
    return {
        "kafka-python": [py, str(DRIVERS / "kafka-python" / "driver.py")],
        "aiokafka": [py, str(DRIVERS / "aiokafka" / "driver.py")],
        "confluent-kafka": [py, str(DRIVERS / "confluent-kafka" / "driver.py")],
        "kafkajs": ["env", f"NODE_PATH={kafkajs}", "node", str(DRIVERS / "kafkajs" / "driver.js")],
    }


def _gate(client: list[str], out: Path, *extra: str) -> subprocess.Popen:
    args = [sys.executable, "-m", "codec", "conformance", "--behaviour", "--client", shlex.join(client)]
    return subprocess.Popen(
        [*args, "--json", str(out), *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
    )


def _finish(procs: dict[str, tuple[subprocess.Popen, Path]], timeout: float = 400) -> dict[str, tuple[int, str, dict]]:
    got = {}
    for name, (p, out) in procs.items():
        text, _ = p.communicate(timeout=timeout)
        got[name] = (p.returncode, text, json.loads(out.read_text()) if out.is_file() else {})
    return got


@pytest.fixture(scope="module")
def shipped(tmp_path_factory, kafkajs_driver_modules) -> dict[str, tuple[int, str, dict]]:
    """Every shipped driver against every scenario, with its expectations file, all four at once."""
    base = tmp_path_factory.mktemp("behaviour")
    procs = {}
    for name, cmd in _commands(kafkajs_driver_modules).items():
        out = base / f"{name}.json"
        procs[name] = (_gate(cmd, out, "--expect", str(DRIVERS / name / "expect.txt"), "--jobs", "5"), out)
    return _finish(procs)


@pytest.mark.parametrize("name", ["kafka-python", "aiokafka", "confluent-kafka", "kafkajs"])
def test_a_shipped_driver_meets_its_expectations(shipped, name):
    code, text, report = shipped[name]
    results = report["results"]
    # (kafka-python's race that leaves it silent after a metadata-triggered rejoin: its trace only, see below)
    raced = {r["id"] for r in results if name == "kafka-python" and _kafka_python_went_silent(r)}
    unexpected = [(r["id"], r["status"], r["detail"]) for r in results if r["status"] in ("fail", "xpass")]
    assert code == 0 or {u[0] for u in unexpected} <= raced, unexpected or text

    assert [r["id"] for r in results] == [s.name for s in SCENARIOS] and len(results) >= 30
    for r in results:
        assert r["detail"], r  # every verdict says why: what the client sent and what the rule expected
        assert r["status"] in ("pass", "skip", "xfail") or r["id"] in raced, r
    ran = [r for r in results if r["status"] != "skip"]
    assert len(ran) >= 20, [r["id"] for r in results if r["status"] == "skip"]
    # what a skip means: the driver did not declare what the scenario needs, and nothing else
    declared = set(report["supports"])
    for r in results:
        if r["status"] == "skip" and not r["detail"].startswith(("LeaveGroup v", "the subscription is v")):
            assert not set(r["needs"]) <= declared, r


def test_every_scenario_is_run_by_some_driver(shipped):
    ran = {r["id"] for _, _, report in shipped.values() for r in report["results"] if r["status"] in ("pass", "xfail")}
    assert sorted({s.name for s in SCENARIOS} - ran) == []


def test_every_scenario_names_its_rule_and_kafkas_code():
    assert len(SCENARIOS) >= 30 and len({s.name for s in SCENARIOS}) == len(SCENARIOS)
    for s in SCENARIOS:
        assert s.title and len(s.rule) > 60, s.name
        assert s.java and all(".java" in where for where in s.java), s.name


@pytest.fixture(scope="module")
def seeded(tmp_path_factory, shipped) -> dict[str, tuple[int, str, dict]]:
    """Each seeded bug against the scenarios written to catch it; and a driver that never connects."""
    base = tmp_path_factory.mktemp("seeded")
    procs = {}
    for bug in BUGS:
        scenarios = [x for s in SCENARIOS if bug in s.seeded for x in ("--scenario", s.name)]
        out = base / f"{bug}.json"
        procs[bug] = (
            _gate([sys.executable, str(DRIVERS / "seeded" / "kafka_python_bug.py"), bug], out, *scenarios),
            out,
        )
    out = base / "never-connects.json"
    cmd = [sys.executable, str(DRIVERS / "seeded" / "kafka_python_bug.py"), "never-connects"]
    procs["never-connects"] = (_gate(cmd, out, "--scenario", "join", "--scenario", "heartbeat-cadence"), out)
    return _finish(procs)


@pytest.mark.parametrize("bug", BUGS)
def test_a_seeded_bug_is_caught(seeded, shipped, bug):
    code, text, report = seeded[bug]
    assert code == 1, text[-3000:]
    failed = [r["id"] for r in report["results"] if r["status"] == "fail"]
    assert failed, text[-3000:]
    # the same scenarios pass the unpatched client: the bug is what fails them. A scenario the client fails now
    # and then (its expect.txt says intermittent) may have failed the unpatched run too: it counts for no kill,
    # and the bug must still fail one scenario the unpatched client passed
    clean = {r["id"]: r["status"] for r in shipped["kafka-python"][2]["results"]}
    known = read_expectations(DRIVERS / "kafka-python" / "expect.txt").reasons
    races = {name for name, why in known.items() if why.startswith("intermittent")}
    assert all(clean[f] == "pass" or f in races for f in failed), (failed, clean)
    assert [f for f in failed if clean[f] == "pass"], (failed, clean)


def test_a_driver_that_never_connects_fails(seeded):
    code, text, report = seeded["never-connects"]
    assert code == 1
    assert [r["status"] for r in report["results"]] == ["fail", "fail"], text
    assert all("never connected" in r["detail"] for r in report["results"])


def test_every_seeded_bug_a_scenario_names_is_seeded_and_measured():
    """The bugs the scenarios say they catch (the docs list them with each scenario) are the seeded driver's, each
    one run here, and the docs' measure names them all: a bug named but never seeded is a kill nobody made."""
    import ast

    tree = ast.parse((DRIVERS / "seeded" / "kafka_python_bug.py").read_text(encoding="utf-8"))
    seeded = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["BUGS"]
    )
    assert set(seeded) - {"never-connects"} == set(BUGS)
    named = {bug for s in SCENARIOS for bug in s.seeded}
    assert named == set(BUGS), (sorted(named - set(BUGS)), sorted(set(BUGS) - named))
    page = (ROOT / "docs" / "guides" / "behaviour-gate.md").read_text(encoding="utf-8")
    measured = " ".join(page.split("## Measured: the seeded bugs", 1)[1].split())
    assert all(bug in measured for bug in BUGS) and f"{len(BUGS)} of {len(BUGS)}" in measured


@pytest.mark.mutation
def test_the_kill_matrix(tmp_path):
    """Every seeded bug against every scenario (``-m mutation``): each is killed; the kills by scenario."""
    procs = {}
    for bug in BUGS:
        out = tmp_path / f"{bug}.json"
        procs[bug] = (
            _gate([sys.executable, str(DRIVERS / "seeded" / "kafka_python_bug.py"), bug], out, "--jobs", "4"),
            out,
        )
    got = _finish(procs, timeout=900)
    killed = {bug: [r["id"] for r in report["results"] if r["status"] == "fail"] for bug, (_, _, report) in got.items()}
    assert all(killed.values()), killed


@pytest.fixture(scope="module")
def minimal(tmp_path_factory, kafkajs_driver_modules) -> dict[str, tuple[int, str, dict]]:
    """The guide's minimal drivers, as the page shows them, against a few scenarios each: they work as written."""
    from tests.docs.examples import blocks

    base = tmp_path_factory.mktemp("minimal")
    files = {b.file: b.text for b in blocks("guides/behaviour-gate.md") if b.file}
    assert sorted(files) == ["minimal-driver.js", "minimal_driver.py"], sorted(files)
    for name, text in files.items():
        (base / name).write_text(text, encoding="utf-8")
    commands = {
        "python": [sys.executable, str(base / "minimal_driver.py")],
        "javascript": ["env", f"NODE_PATH={kafkajs_driver_modules}", "node", str(base / "minimal-driver.js")],
    }
    scenarios = [x for s in ("join", "eager-revoke-before-rejoin", "leave-group-on-close") for x in ("--scenario", s)]
    procs = {}
    for lang, cmd in commands.items():
        out = base / f"{lang}.json"
        procs[lang] = (_gate(cmd, out, *scenarios), out)
    return _finish(procs, timeout=200)


def _kafka_python_went_silent(result: dict) -> bool:
    """kafka-python 3.0.12's race, traced on 2026-11-29 (9 of 20 runs of these scenarios here, on main as on the
    commit before): its first JoinGroup goes out before the topics' metadata, it is assigned nothing, the metadata
    makes it rejoin (revoked []), the second SyncGroup is answered -- and then it sends nothing at all for 20 s (no
    heartbeat, no OffsetFetch, no callback). A capture of such a run shows every request answered by the gate's
    broker, the last one (Metadata) 0.1 s after that SyncGroup; faulthandler puts the client's main thread in
    ``ensure_coordinator_ready``. The client's fault, not the gate's: such a failure, and only such a one, is
    tolerated for kafka-python (the guide's driver and the shipped one; its expect.txt lists two scenarios as
    intermittent that this race probably is). Not listed there for every scenario: the seeded-bug test counts only
    scenarios that are not intermittent."""
    trace = result.get("trace") or {}
    events = [(d.get("event"), d.get("partitions")) for d in trace.get("driver", []) if "event" in d]
    times = [q["t"] for q in trace.get("requests", [])]
    silence = max((b - a for a, b in zip(times, times[1:])), default=0.0)
    return (
        result["status"] == "fail"
        and "waited 20 s for a stable membership" in result["detail"]
        and ("assigned", []) in events
        and ("revoked", []) in events
        and silence >= 15
    )


@pytest.mark.parametrize("lang", ["python", "javascript"])
def test_the_guides_minimal_drivers_run(minimal, lang):
    code, text, report = minimal[lang]
    tolerated = [r["id"] for r in report.get("results", []) if lang == "python" and _kafka_python_went_silent(r)]
    assert code == 0 or tolerated, text[-3000:]
    assert report["supports"] == ["classic", "eager"]
    assert [(r["id"], "pass" if r["id"] in tolerated else r["status"]) for r in report["results"]] == [
        ("join", "pass"),
        ("eager-revoke-before-rejoin", "pass"),
        ("leave-group-on-close", "pass"),
    ], text[-3000:]


def test_the_silent_kafka_python_signature_is_that_race_only():
    """The tolerance above takes the race's trace and nothing else: a failure without the 20 s of silence, or
    without the empty first assignment, is not tolerated."""
    race = {
        "status": "fail",
        "detail": "waited 20 s for a stable membership (SyncGroup answered, assigned, a heartbeat); last seen: ...",
        "trace": {
            "driver": [
                {"t": 0.2, "event": "assigned", "partitions": []},
                {"t": 0.34, "event": "revoked", "partitions": []},
            ],
            "requests": [{"t": 0.19}, {"t": 0.35}, {"t": 20.07}],
        },
    }
    assert _kafka_python_went_silent(race)
    busy = {**race, "trace": {**race["trace"], "requests": [{"t": x / 2} for x in range(42)]}}
    assigned = {
        **race,
        "trace": {**race["trace"], "driver": [{"t": 0.2, "event": "assigned", "partitions": [["a", 0]]}]},
    }
    other = {**race, "detail": "the JoinGroup declared no topics"}
    assert not any(map(_kafka_python_went_silent, (busy, assigned, other, {**race, "status": "pass"})))


def test_the_list_names_every_scenario_the_docs_list():
    """``--behaviour --list`` (which an unknown --scenario points to) gives the scenarios the docs page lists."""
    import re

    got = subprocess.run(
        [sys.executable, "-m", "codec", "conformance", "--behaviour", "--list"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert got.returncode == 0 and not got.stderr, got.stderr
    rows = [line.split(None, 3) for line in got.stdout.splitlines()]
    page = (ROOT / "docs" / "guides" / "behaviour-gate.md").read_text(encoding="utf-8")
    assert [r[0] for r in rows] == re.findall(r"(?m)^- \*\*`([a-z0-9-]+)`\*\*: ", page.split("scenarios:start")[1])
    assert {r[1] for r in rows} == {"classic", "consumer"}
    bad = subprocess.run(
        [sys.executable, "-m", "codec", "conformance", "--behaviour", "--client", "true", "--scenario", "nope"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert bad.returncode == 2 and "--behaviour --list" in bad.stderr, bad.stderr


def test_the_docs_list_every_scenario_as_the_code_has_it():
    from codec.conformance.behaviour import scenarios_markdown

    page = (ROOT / "docs" / "guides" / "behaviour-gate.md").read_text(encoding="utf-8")
    listed = page.split("<!-- scenarios:start -->\n", 1)[1].split("<!-- scenarios:end -->", 1)[0]
    assert listed == scenarios_markdown()
