"""Kafka's own assignor tests run here: every method of the client's ``AbstractStickyAssignorTest``,
``StickyAssignorTest``, ``CooperativeStickyAssignorTest``, ``RangeAssignorTest`` and ``RoundRobinAssignorTest``, and
the coordinator's test methods vectors/consumer/kafka-tests.jsonl lacks, restated in
:mod:`tests.assignor.kafka_test_cases` (the 4.4 branch, confluentinc/kafka 8d3916cf), once per assignor and
parameter as JUnit runs them.

Each case runs on this project's assignors (through the JSON reader ``assign --consumer`` uses) and is held to
two things at every call:

* Kafka's test's own assertions — exact lists where Kafka compares lists, sets where it compares sets, and its
  property checks reimplemented from its helpers (``verifyValidityAndBalance`` and the cooperative test's
  follow-up rebalances, ``isFullyBalanced``, ``verifyRackAssignment``'s rack-mismatch counts,
  ``partitionsTransferringOwnership``, ``isSticky``, ``checkValidityAndBalance``);
* what Kafka's own Java classes answered the very same call when the same case ran on them (recorded in
  vectors/consumer/kafka-client-tests.jsonl: every call's group and Kafka's answer, or, for the six long random
  cases, their SHA-256 digests): the input must be the recorded one (so the case ran as it ran on Kafka's
  classes) and the answer Kafka's, list order included.

The recorded groups also go through the CLI, ``assign --consumer A --lines``. The three methods that run at
Kafka's own sizes (up to a million partitions) are behind the ``slow`` marker, held to Kafka's recorded answers
where those were recorded (vectors/consumer/kafka-client-tests-slow.jsonl); so are the random cases' later
rounds.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import defaultdict

import pytest

from tests.assignor.kafka_client_harness import KAFKA_COMMIT, KafkaAssertionError, ours
from tests.assignor.kafka_test_cases import cases
from tests.conftest import ROOT

VECTORS = ROOT / "vectors" / "consumer" / "kafka-client-tests.jsonl"
RECORDED = {row["id"]: row for row in map(json.loads, VECTORS.read_text(encoding="utf-8").splitlines())}
CASES = cases()
FAST = [c for c in CASES if not c.slow]
RANDOM_PREFIX_CALLS = 40  # the random cases' first calls run by default; all of them with -m slow


def canon(x) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


def digest(x) -> str:
    return hashlib.sha256(canon(x).encode()).hexdigest()


class _Enough(Exception):
    pass


class Replay:
    """The engine of a case: this project's answer to each call, after checking the call is the one Kafka's classes
    were asked and the answer is theirs."""

    def __init__(self, row: dict, limit: int | None = None) -> None:
        self.calls = row["calls"] if "calls" in row else row["callDigests"]
        self.full = "calls" in row
        self.limit, self.i = limit, 0

    def __call__(self, doc: dict) -> dict:
        if self.limit is not None and self.i >= self.limit:
            raise _Enough
        assert self.i < len(self.calls), f"call {self.i + 1}: Kafka's classes were asked {len(self.calls)} times"
        want = self.calls[self.i]
        got = ours(doc)
        where = f"call {self.i + 1}"
        if self.full:
            assert doc == want["group"], f"{where}: not the group Kafka's classes were given"
            if "error" in want["kafka"]:
                assert "error" in got, f"{where}: Kafka's assignor failed ({want['kafka']['error']}), ours gave {got}"
            else:
                assert got == want["kafka"], f"{where}: ours {got}\nKafka's {want['kafka']}"
        else:
            assert digest(doc) == want["group"], f"{where}: not the group Kafka's classes were given"
            assert digest(got) == want["kafka"], f"{where}: not Kafka's answer"
        self.i += 1
        return got

    def done(self) -> None:
        assert self.i == len(self.calls), f"{self.i} calls, Kafka's classes had {len(self.calls)}"


def test_the_vectors_are_every_case():
    assert {r["kafkaCommit"] for r in RECORDED.values()} == {KAFKA_COMMIT}
    assert [c.id for c in FAST] == list(RECORDED), "the vectors list every non-slow case, in order"
    assert len({c.id for c in CASES}) == len(CASES)
    by_class = defaultdict(int)
    for c in CASES:
        by_class[c.runs_as.rsplit(".", 1)[1]] += 1
    assert by_class["StickyAssignorTest"] >= 120 and by_class["CooperativeStickyAssignorTest"] >= 120
    assert by_class["RangeAssignorTest"] >= 40 and by_class["RoundRobinAssignorTest"] == 13
    assert sum(len(r["calls"] if "calls" in r else r["callDigests"]) for r in RECORDED.values()) > 2000


@pytest.mark.parametrize("case", FAST, ids=lambda c: c.id)
def test_kafkas_test_holds_and_gives_kafkas_answers(case):
    row = RECORDED[case.id]
    random_case = "testReassignmentWithRandomSubscriptionsAndChanges" in case.id
    engine = Replay(row, RANDOM_PREFIX_CALLS if random_case else None)
    try:
        case.run(engine)
    except _Enough:
        return
    except KafkaAssertionError as e:
        pytest.fail(f"Kafka's assertion fails: {e}")
    engine.done()


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in FAST if "Random" in c.id], ids=lambda c: c.id)
def test_the_random_cases_whole(case):
    engine = Replay(RECORDED[case.id])
    case.run(engine)
    engine.done()


SLOW_RECORDED = {
    row["id"]: row
    for row in map(json.loads, (VECTORS.parent / "kafka-client-tests-slow.jsonl").read_text("utf-8").splitlines())
}


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if c.slow], ids=lambda c: c.id)
def test_kafkas_sizes(case):
    """Kafka's sizes (up to a million partitions and 2,000 members): Kafka asserts only that both calls end; here
    they must, without a failure, and where Kafka's answers were recorded (vectors/consumer/
    kafka-client-tests-slow.jsonl: ``...NotTimeout``, 20,000 partitions and 500 members, as SHA-256 digests) give
    them."""
    if case.id in SLOW_RECORDED:
        engine = Replay(SLOW_RECORDED[case.id])
        case.run(engine)
        engine.done()
    else:
        case.run(ours)


def test_the_slow_vectors_are_the_recorded_slow_cases():
    slow = [c.id for c in CASES if c.slow and "NotTimeout" in c.id]
    assert list(SLOW_RECORDED) == slow and len(slow) == 4
    assert {r["kafkaCommit"] for r in SLOW_RECORDED.values()} == {KAFKA_COMMIT}


def test_the_recorded_groups_through_the_cli():
    groups: dict[str, list[tuple[dict, dict]]] = defaultdict(list)
    for row in RECORDED.values():
        for call in row.get("calls", ()):
            groups[call["group"]["assignor"]].append((call["group"], call["kafka"]))
    assert set(groups) == {"range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"}
    for assignor, pairs in groups.items():
        p = subprocess.run(
            [sys.executable, "-m", "codec", "assign", "--consumer", assignor, "--lines"],
            cwd=ROOT, input="".join(json.dumps(g) + "\n" for g, _ in pairs),
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert "Traceback" not in p.stderr
        out = [json.loads(line) for line in p.stdout.splitlines()]
        assert len(out) == len(pairs), assignor
        for (group, kafka), got in zip(pairs, out):
            if "error" in kafka:
                assert "error" in got
                continue
            want = {m: [{"topic": t, "partition": n} for t, n in tps] for m, tps in kafka["assignment"].items()}
            assert got["assignment"] == want, (assignor, group)
