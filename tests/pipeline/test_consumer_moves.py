"""The pipeline's consumer move findings (codec/pipeline/findings.py ``consumer_move_findings``) on hand-built
``assignments``, ``members`` and ``rebalances`` rows of classic consumer groups, the rows' form of what
codec/assignor/consumer/findings.py checks on bytes (tests/assignor/test_consumer_findings.py).

Expected values are Kafka's rules: an eager member revokes everything before it joins (its subscription owns
nothing), a cooperative one keeps what it holds and a partition changes owner over two rebalances (KIP-429)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from pyspark.sql import types as T  # noqa: E402

from codec.pipeline.findings import consumer_move_findings  # noqa: E402

ASG = T.StructType(
    [T.StructField(n, t) for n, t in [("group", T.StringType()), ("generation", T.IntegerType()),
     ("member", T.StringType()), ("role", T.StringType()), ("task", T.StringType()), ("topic", T.StringType()),
     ("partition", T.IntegerType()), ("escaped", T.ArrayType(T.StringType()))]]
)  # fmt: skip
TP = T.StructType([T.StructField("topic", T.StringType()), T.StructField("partitions", T.ArrayType(T.IntegerType()))])
MEM = T.StructType(
    [T.StructField(n, t) for n, t in [("group", T.StringType()), ("generation", T.IntegerType()),
     ("member", T.StringType()), ("owned_partitions", T.ArrayType(TP)), ("subscription_generation", T.IntegerType()),
     ("subscribed_topics", T.ArrayType(T.StringType()))]]
)  # fmt: skip
REB = T.StructType(
    [T.StructField(n, t) for n, t in [("group", T.StringType()), ("generation", T.IntegerType()),
     ("group_protocol", T.StringType()), ("protocol", T.StringType())]]
)  # fmt: skip


def _run(spark, given: dict[int, dict[str, list[int]]], owned: dict[int, dict[str, tuple[list[int], int]]], protocol,
         topics: dict[tuple[int, str], list[str]] | None = None):  # fmt: skip
    """One group ``g`` of topic ``t``: ``given[gen][member]`` its SyncGroup partitions, ``owned[gen][member]`` its
    subscription's owned partitions and generation; ``topics[(gen, member)]`` its subscription's topics (``["t"]``)."""
    asg = [
        ("g", gen, m, "consumer", f"t-{p}", "t", p, None)
        for gen, ms in given.items()
        for m, ps in ms.items()
        for p in ps
    ]
    mem = [("g", gen, m, [("t", ps)] if ps else [], sg, (topics or {}).get((gen, m), ["t"]))
           for gen, ms in owned.items() for m, (ps, sg) in ms.items()]  # fmt: skip
    reb = [("g", gen, "classic", protocol) for gen in sorted(set(given) | set(owned))]
    out = consumer_move_findings(
        spark.createDataFrame(asg, ASG), spark.createDataFrame(mem, MEM), spark.createDataFrame(reb, REB)
    )
    return sorted((r["generation"], r["check"], r["task"], r["member"]) for r in out.collect())


def test_cooperative_two_steps_are_no_finding_and_one_step_is(spark):
    # Kafka's way: generation 2 withholds t-2 from a (a revokes it), generation 3 gives it to b
    given = {1: {"a": [0, 1, 2]}, 2: {"a": [0, 1], "b": []}, 3: {"a": [0, 1], "b": [2]}}
    owned = {2: {"a": ([0, 1, 2], 1), "b": ([], -1)}, 3: {"a": ([0, 1], 2), "b": ([], -1)}}
    assert _run(spark, given, owned, "cooperative-sticky") == []
    # the leader gives it to b at once while a still claims it: a one-step move
    at_once = {1: {"a": [0, 1, 2]}, 2: {"a": [0, 1], "b": [2]}}
    assert _run(spark, at_once, {2: owned[2]}, "cooperative-sticky") == [(2, "cooperative-one-step-move", "t-2", "a")]
    # a member that dropped its claim still held the partition: the generation before says so
    dropped = {2: {"a": ([0, 1], 1), "b": ([], -1)}}
    assert _run(spark, at_once, dropped, "cooperative-sticky") == [(2, "cooperative-one-step-move", "t-2", "a")]
    # but a member whose subscription left the topic revoked its partitions before joining (onJoinPrepare): the
    # partition is free, and giving it at once is no move
    left = {2: {"a": ([], 1), "b": ([], -1)}}
    assert _run(spark, at_once, left, "cooperative-sticky", {(2, "a"): ["u"]}) == []
    # a stale claim (an older generation's) loses to the newer one: b keeping t-2 is no move from a
    stale = {2: {"a": ([2], 1), "b": ([2], 2)}}
    assert _run(spark, {2: {"a": [], "b": [2]}}, stale, "cooperative-sticky") == []
    # under an eager protocol the same rows are no cooperative finding
    assert [c for _, c, _, _ in _run(spark, at_once, {2: owned[2]}, "range")] == ["eager-move-without-revocation"]


def test_an_eager_member_that_did_not_revoke(spark):
    given = {1: {"a": [0, 1, 2]}, 2: {"a": [0, 1], "b": [2]}}
    revoked = {2: {"a": ([], 1), "b": ([], -1)}}  # Kafka's client: everything revoked before JoinGroup
    assert _run(spark, given, revoked, "sticky") == []
    kept = {2: {"a": ([0, 1, 2], 1), "b": ([], -1)}}
    assert _run(spark, given, kept, "roundrobin") == [(2, "eager-move-without-revocation", "t-2", "a")]
    assert _run(spark, given, kept, "my-own-assignor") == []  # a protocol of no known kind is not judged
