"""The consumer assignors (codec.assignor.consumer) against Kafka's own: vectors/consumer/kafka-java-assignors.jsonl
holds groups this project generated (random groups, and multi-round sequences whose every round's owned partitions
are the previous round's output, members joining, leaving, resubscribing and topics growing) and what Kafka's Java
classes at the 4.4 branch (confluentinc/kafka 8d3916cf: RangeAssignor, RoundRobinAssignor, StickyAssignor,
CooperativeStickyAssignor; the coordinator's UniformAssignor and RangeAssignor) gave them, run by hand outside this
repository. Each runs through ``assign --consumer A --lines``; client-side lists must match in order, the
coordinator's sets as sets; where Kafka threw, the CLI answers an error line."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict

import pytest

from tests.conftest import ROOT

VECTORS = ROOT / "vectors" / "consumer" / "kafka-java-assignors.jsonl"
CASES = [json.loads(line) for line in VECTORS.read_text(encoding="utf-8").splitlines()]
KAFKA_COMMIT = "8d3916cfe15f13a2d878c79d302ba2d63172f0af"
ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range")


def assign_lines(assignor: str, groups: list[dict]) -> list[dict]:
    p = subprocess.run(
        [sys.executable, "-m", "codec", "assign", "--consumer", assignor, "--lines"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        input="".join(json.dumps(g) + "\n" for g in groups),
    )
    assert "Traceback" not in p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


def test_the_file_is_what_it_says():
    assert {c["kafkaCommit"] for c in CASES} == {KAFKA_COMMIT}
    assert {c["assignor"] for c in CASES} == set(ASSIGNORS)
    assert len({c["id"] for c in CASES}) == len(CASES)
    sequences = defaultdict(list)
    for c in CASES:
        if "sequence" in c:
            sequences[c["sequence"]].append(c)
    assert len(sequences) == 48 and sum(map(len, sequences.values())) >= 250
    for rounds in sequences.values():  # each round owns what Kafka gave the one before
        assert [c["round"] for c in rounds] == list(range(1, len(rounds) + 1))
        for before, after in zip(rounds, rounds[1:]):
            for m in after["group"]["members"]:
                if m["memberId"] in before["expected"]:
                    assert m["ownedPartitions"] == before["expected"][m["memberId"]]


def _norm(assignment: dict, ordered: bool) -> dict:
    if ordered:
        return assignment
    return {m: sorted((tp["topic"], tp["partition"]) for tp in tps) for m, tps in assignment.items()}


@pytest.mark.parametrize("assignor", ASSIGNORS)
def test_kafkas_own_assignor_gives_the_same(assignor):
    cases = [c for c in CASES if c["assignor"] == assignor]
    out = assign_lines(assignor, [c["group"] for c in cases])
    assert len(out) == len(cases)
    ordered = assignor not in ("uniform", "server-range")
    for c, got in zip(cases, out):
        if "error" in c:
            assert "error" in got, (c["id"], c["error"])
            continue
        assert "assignment" in got, (c["id"], got)
        assert _norm(got["assignment"], ordered) == _norm(c["expected"], ordered), c["id"]
