"""Kafka's own test cases for the consumer assignors (4.4 branch, confluentinc/kafka 8d3916cf), transcribed to
``assign --consumer`` JSON in vectors/consumer/kafka-tests.jsonl with each test's method and its expectation:
the client's RangeAssignorTest (its rack-aware cases through verifyRackAssignment: replicas placed as the test
places them, the test's count of partitions on another rack) and RoundRobinAssignorTest, the coordinator's
UniformHomogeneous/UniformHeterogeneousAssignmentBuilderTest and RangeAssignorTest. Kafka's tests compare sets
(``assertAssignment``, ``toSortedString``), so these do too. Two of the homogeneous tests feed the assignor
LinkedHashMaps the coordinator never builds; their vectors keep the test's answer as ``kafkaTestExpected`` and
expect what Kafka's classes give with the coordinator's HashMaps (``note``)."""

from __future__ import annotations

import json

import pytest

from tests.assignor.test_consumer_kafka_vectors import assign_lines
from tests.conftest import ROOT

CASES = [
    json.loads(line)
    for line in (ROOT / "vectors" / "consumer" / "kafka-tests.jsonl").read_text(encoding="utf-8").splitlines()
]


def test_provenance():
    assert {c["kafkaCommit"] for c in CASES} == {"8d3916cfe15f13a2d878c79d302ba2d63172f0af"}
    classes = {c["kafkaTest"].split("#")[0].rsplit(".", 1)[1] for c in CASES}
    assert classes == {
        "RangeAssignorTest",
        "RoundRobinAssignorTest",
        "UniformHomogeneousAssignmentBuilderTest",
        "UniformHeterogeneousAssignmentBuilderTest",
    }
    assert len(CASES) == 88 and len({c["id"] for c in CASES}) == 88
    assert sum("rackMismatches" in c for c in CASES) >= 25


@pytest.mark.parametrize("assignor", ["range", "roundrobin", "uniform", "server-range"])
def test_kafkas_test_cases(assignor):
    cases = [c for c in CASES if c["assignor"] == assignor]
    assert cases
    out = assign_lines(assignor, [c["group"] for c in cases])
    for c, got in zip(cases, out, strict=True):
        got_sets = {m: sorted([tp["topic"], tp["partition"]] for tp in tps) for m, tps in got["assignment"].items()}
        want = {m: sorted(tps) for m, tps in c["expected"].items()}
        assert got_sets == want, c["id"]
        if "rackMismatches" in c:
            racks = {m["memberId"]: m.get("rackId") for m in c["group"]["members"]}
            replicas = c["group"]["partitionRacks"]
            off = sum(
                1
                for m, tps in got["assignment"].items()
                if racks[m]
                for tp in tps
                if racks[m] not in replicas[tp["topic"]][tp["partition"]]
            )
            assert off == c["rackMismatches"], c["id"]
