"""The behaviour gate's reference (issue #45): Kafka's own Java consumer must pass every scenario, or the scenario
is wrong. CI cannot fetch kafka-clients, so its runs are made by hand (vectors/drivers/java/README.md) and kept in
vectors/drivers/java/results.json; these tests hold the scenarios to that record (a scenario added or renamed
since the last run fails here until Kafka's consumer is run against it again) and the pages to the file."""

from __future__ import annotations

import json

from codec.conformance.behaviour import SCENARIOS
from codec.conformance.behaviour.reference import MARKERS, _command, record, render, results_path
from codec.conformance.coverage import embedded_block
from tests.conftest import ROOT

DRIVER = ROOT / "vectors" / "drivers" / "java"
CAPABILITIES = {"classic", "consumer", "eager", "cooperative", "static"}


def _results() -> dict:
    return json.loads(results_path().read_text(encoding="utf-8"))


def test_the_record_is_kafkas_consumer_at_the_4_4_branch():
    res = _results()
    assert res["client"]["name"] == "apache-kafka-java"  # what its own ApiVersions request said
    assert res["kafka"]["branch"] == "4.4" and res["kafka"]["commit"].startswith("8d3916cf")
    assert res["runs"] and all(run["command"]["main"] == "JavaDriver" for run in res["runs"])


def test_kafkas_consumer_passes_every_scenario():
    res = _results()
    names = [s.name for s in SCENARIOS]
    needs = {s.name: s.needs for s in SCENARIOS}
    for i, run in enumerate(res["runs"], 1):
        got = [r["id"] for r in run["results"]]
        assert got == names, (
            f"run {i} of vectors/drivers/java/results.json is not of today's scenarios: run Kafka's consumer against "
            f"them again (vectors/drivers/java/README.md); new {sorted(set(names) - set(got))}, "
            f"gone {sorted(set(got) - set(names))}"
        )
        declared = set(run["declares"])
        for r in run["results"]:
            assert r["detail"], r
            if needs[r["id"]] <= declared:
                assert r["status"] == "pass", (i, r["id"], r["detail"])
            else:
                assert r["status"] == "skip", (i, r["id"])


def test_the_runs_cover_both_protocols_and_both_kinds_of_assignor():
    res = _results()
    everything = [run for run in res["runs"] if set(run["declares"]) == CAPABILITIES]
    cooperative = [run for run in res["runs"] if set(run["declares"]) == CAPABILITIES - {"eager"}]
    assert everything and cooperative
    by = {s.name: s for s in SCENARIOS}
    for run in everything + cooperative:
        for r in run["results"]:
            s = by[r["id"]]
            if r["status"] == "skip":
                continue
            if s.protocol == "consumer":  # group.protocol=consumer: no JoinGroup at all
                assert r["assignor"] is None, r["id"]
                continue
            # the assignor the client offered in its JoinGroup, as its run recorded it
            if s.assignor == "cooperative" or run in cooperative:
                assert r["assignor"] == "cooperative-sticky", (r["id"], r["assignor"])
            else:
                assert r["assignor"] == "range", (r["id"], r["assignor"])


def test_the_pages_show_the_record():
    table = render(_results())
    readme = (DRIVER / "README.md").read_text(encoding="utf-8")
    assert embedded_block(readme, MARKERS) == table.strip(), (
        "vectors/drivers/java/README.md is stale: python -m codec.conformance.behaviour.reference --update "
        "vectors/drivers/java/README.md"
    )
    page = (ROOT / "docs" / "guides" / "behaviour-gate.md").read_text(encoding="utf-8")
    assert "```{transclude} vectors/drivers/java/README.md" in page


def test_a_record_keeps_no_path_of_the_machine_that_ran_it():
    cmd = _command(
        "java -XX:SharedArchiveFile=/tmp/k/jd.jsa -XX:+UseSerialGC -cp /tmp/k/javadriver.jar:/opt/kafka-clients.jar "
        "JavaDriver classic,cooperative"
    )
    assert cmd == {
        "jvmOptions": ["-XX:SharedArchiveFile=jd.jsa", "-XX:+UseSerialGC"],
        "classPath": ["javadriver.jar", "kafka-clients.jar"],
        "arguments": ["classic,cooperative"],
        "main": "JavaDriver",
    }
    report = {
        "kind": "behaviour",
        "implementation": "java -cp /tmp/k/a.jar JavaDriver",
        "supports": ["classic"],
        "seconds": 1.0,
        "counts": {"pass": 1, "fail": 0, "skip": 0, "xfail": 0, "xpass": 0},
        "results": [{"id": "join", "status": "pass", "seconds": 1.0, "detail": "joined", "trace": None}],
    }
    got = record([report], commit="c" * 40, java="17", repository="r", branch="4.4")
    assert "/tmp" not in json.dumps(got)
    assert got["runs"][0]["results"] == [
        {"id": "join", "status": "pass", "seconds": 1.0, "assignor": None, "detail": "joined"}
    ]
