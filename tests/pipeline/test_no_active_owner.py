"""``no-active-owner`` on hand-made generations: a task nobody runs is an error, the state between a cooperative
revocation and its follow-up is not. The expected findings come from Kafka's leader (wire-facts §3 and §9 step 8:
a withheld active gives its consumer ``next_rebalance_ms`` 0, and a temporary standby when its client held the
task as one; a probing deadline withholds nothing), not from the pipeline's output. Each generation is the
leader's SyncGroup request (every member's assignment: the whole group); the same generation as bare assignment
records, which do not show the group's size, is one warning that says so."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pyspark", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from codec.pipeline.job import Options, run  # noqa: E402
from codec.streams import NO_REBALANCE, AssignmentInfo, encode_assignment  # noqa: E402
from codec.types import TaskId, TopicPartition  # noqa: E402

from .conftest import leader_sync, read_table  # noqa: E402

TS = 1730808000000
RUN, MOVING = TaskId(0, 0), TaskId(0, 1)
NOW = -1  # a probing deadline: TS + probing.rebalance.interval.ms


def _info(active=(), standby=(), next_ms=NO_REBALANCE) -> bytes:
    info = AssignmentInfo(
        version=11,
        active_tasks=tuple(active),
        standby_tasks={t: (TopicPartition("in", t.partition),) for t in standby},
        next_rebalance_ms=TS + 600_000 if next_ms == NOW else next_ms,
    )
    return encode_assignment(info)


# group -> generation -> member -> (active, standby, next_rebalance_ms); MOVING is the task under test
GROUPS = {
    # m-2 holds a standby of a task nobody runs, and nobody is told to rejoin at once: the real problem
    "lost": {1: {"m-1": ([RUN], [], NO_REBALANCE), "m-2": ([], [MOVING], NO_REBALANCE)}},
    # a probing deadline (KIP-441) adds warmups but withholds no active: still the real problem
    "probing": {1: {"m-1": ([RUN], [], NOW), "m-2": ([], [MOVING], NO_REBALANCE)}},
    # Kafka's temporary standby on m-2, withheld while m-1 still owns the partition; the follow-up hands it over
    "handover": {
        1: {"m-1": ([RUN], [], NO_REBALANCE), "m-2": ([], [MOVING], 0)},
        2: {"m-1": ([RUN], [], NO_REBALANCE), "m-2": ([MOVING], [], NO_REBALANCE)},
    },
    # withheld from m-3, whose client held no standby of it (so none there); m-2's standby is a plain one
    "elsewhere": {
        1: {"m-1": ([RUN], [], NO_REBALANCE), "m-2": ([], [MOVING], NO_REBALANCE), "m-3": ([], [], 0)},
        2: {"m-1": ([RUN], [], NO_REBALANCE), "m-2": ([], [MOVING], NO_REBALANCE), "m-3": ([MOVING], [], NO_REBALANCE)},
    },
    # withheld from m-2, and the follow-up's assignor, seeing the partition free, places it on m-3
    "moved": {
        1: {"m-1": ([RUN], [], NO_REBALANCE), "m-2": ([], [MOVING], 0), "m-3": ([], [], NO_REBALANCE)},
        2: {"m-1": ([RUN], [], NO_REBALANCE), "m-2": ([], [MOVING], NO_REBALANCE), "m-3": ([MOVING], [], NO_REBALANCE)},
    },
    # the revocation generation is the last one in the input: the follow-up was not seen
    "cut": {1: {"m-1": ([RUN], [], NO_REBALANCE), "m-2": ([], [MOVING], 0)}},
    # the follow-up does not hand the task over: a warning at the revocation, an error at the follow-up
    "stuck": {
        1: {"m-1": ([RUN], [], NO_REBALANCE), "m-2": ([], [MOVING], 0)},
        2: {"m-1": ([RUN], [], NO_REBALANCE), "m-2": ([], [MOVING], NO_REBALANCE)},
    },
}
#: the "lost" generation again, as each member's assignment alone: the input does not show the group's size
PARTIAL = {"partial": GROUPS["lost"]}
EXPECTED = {
    ("partial", 1, "warning"),
    ("lost", 1, "error"),
    ("probing", 1, "error"),
    ("cut", 1, "warning"),
    ("stuck", 1, "warning"),
    ("stuck", 2, "error"),
}


@pytest.fixture(scope="module")
def findings(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("no-active-owner")
    records = [
        leader_sync(g, gen, {m: _info(*spec) for m, spec in members.items()}, TS + gen)
        for g, gens in GROUPS.items()
        for gen, members in gens.items()
    ]
    records += [
        {
            "record_id": f"{g}/{gen}/{m}",
            "kind": "assignment-info",
            "hex": _info(*spec).hex(),
            "timestamp": TS + gen,
            "group": g,
            "generation": gen,
            "member": m,
        }
        for g, gens in PARTIAL.items()
        for gen, members in gens.items()
        for m, spec in members.items()
    ]
    src = base / "records.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records))
    run(Options(inputs=[str(src)], out=str(base / "out"), quiet=True), spark)
    return read_table(base / "out", "findings")


def test_no_active_owner_is_an_error_only_without_a_pending_revocation(findings):
    got = {(f["group"], f["generation"], f["severity"]) for f in findings if f["check"] == "no-active-owner"}
    assert got == EXPECTED
    assert all(f["task"] == str(MOVING) for f in findings if f["group"] != "partial")
    assert {f["check"] for f in findings} == {"no-active-owner"}


def test_the_finding_says_why(findings):
    by = {(f["group"], f["generation"]): f["detail"] for f in findings}
    assert (
        by[("lost", 1)]
        == "standby/warmup on m-2, active on no member, and no member got an immediate follow-up rebalance"
    )
    assert "m-2 got an immediate follow-up (next_rebalance_ms 0" in by[("cut", 1)]
    assert by[("partial", 1)] == (
        "1 task held as standby/warmup by m-2 is active on none of the 2 members whose assignments the input holds, "
        "and it cannot tell whether another member runs them: the input does not show the group's size (no leader's "
        "JoinGroup response or SyncGroup request, no __consumer_offsets record of the generation)"
    )
    assert by[("cut", 1)].endswith("the follow-up generation is not in the input")
    assert by[("stuck", 1)].endswith("generation 2, the next in the input, makes it active nowhere either")
