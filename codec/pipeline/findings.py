"""The ``findings`` table's checks (see :mod:`codec.pipeline.tables` for the list): per task and generation (the
Streams checks), per share group, and the loop and storm detectors over the ``rebalances`` rows
(:mod:`codec.causes.detectors`)."""

from __future__ import annotations

from pyspark import StorageLevel
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from .causes import FINDINGS_SCHEMA, group_findings
from .config import Config
from .consumerchecks import FACTS_SCHEMA, VERDICT_SCHEMA, group_consumer_checks

__all__ = [
    "share_findings",
    "consumer_findings",
    "consumer_move_findings",
    "consumer_assignor_checks",
    "findings",
    "detector_findings",
    "finding",
]

#: the ``assignments`` roles of a consumer's partitions: a classic or KIP-848 member's, and a KIP-848 member's
#: partitions pending revocation (still its own until it acknowledges the revocation)
CONSUMER_ROLES = ("consumer", "pending-revocation")


def _te():
    return F.coalesce(F.array_contains(F.col("escaped"), "task"), F.lit(False))


def detector_findings(rebalances: DataFrame) -> DataFrame:
    """The loop and storm detectors' findings, one group at a time."""
    cols = ["group", "generation", "group_protocol", "first_seen", "cause", "causes", "moved"]
    return rebalances.select(*cols).groupBy("group").applyInPandas(group_findings, FINDINGS_SCHEMA)


def share_findings(assignments: DataFrame, members: DataFrame, topics: DataFrame) -> DataFrame:
    """A share group's two checks, per group and epoch (``generation``):

    * ``unheld-partition``: a partition its members should hold that none does. What each member holds at an
      epoch is its last assignment at or before it (a null assignment in a heartbeat response means unchanged);
      the partitions to hold are the ones the group's records list (Kafka 4.0's partition metadata, or the
      initialized share-group state of 4.1) of the topics those members subscribe to (each member's last
      subscription at or before the epoch) or hold. Kafka's assignor leaves such a partition when the only
      member that held it stopped subscribing to its topic and no member was hashed onto it.
    * ``unsubscribed-partition``: a member holds a partition of a topic its subscription (its last one at or
      before the epoch) does not name.
    """
    sh = assignments.filter(
        (F.col("role") == "share") & F.col("group").isNotNull() & F.col("generation").isNotNull()
    ).select("group", "generation", "member", "task", F.regexp_extract("task", r"^(.*)-(-?[0-9]+)$", 1).alias("topic"))
    gens = sh.select("group", "generation").distinct()
    seen = sh.select("group", "member", F.col("generation").alias("_g")).distinct()
    latest = (
        gens.join(seen, "group")
        .filter(F.col("_g") <= F.col("generation"))
        .groupBy("group", "generation", "member")
        .agg(F.max("_g").alias("_g"))
    )
    held = latest.join(sh.withColumnRenamed("generation", "_g"), ["group", "member", "_g"]).select(
        "group", "generation", "member", "task", "topic"
    )
    subs = members.filter(F.col("subscribed_topics").isNotNull()).select(
        "group", "member", F.coalesce("generation", F.lit(-1)).alias("_sg"), "timestamp", "subscribed_topics"
    )
    w = Window.partitionBy("group", "generation", "member").orderBy(
        F.col("_sg").desc(), F.col("timestamp").desc_nulls_last()
    )
    subs_at = (
        latest.select("group", "generation", "member")
        .join(subs, ["group", "member"])
        .filter(F.col("_sg") <= F.col("generation"))
        .withColumn("_rn", F.row_number().over(w))
        .filter("_rn = 1")
        .select("group", "generation", "member", "subscribed_topics")
    )

    wanted = (
        subs_at.select("group", "generation", F.explode("subscribed_topics").alias("topic"))
        .unionByName(held.select("group", "generation", "topic"))
        .distinct()
    )
    known = (
        topics.filter(F.col("partitions").isNotNull() & F.col("topic").isNotNull())
        .select("group", "topic", F.explode("partitions").alias("partition"))
        .distinct()
    )
    expected = wanted.join(known, ["group", "topic"]).withColumn(
        "task", F.concat(F.col("topic"), F.lit("-"), F.col("partition").cast("string"))
    )
    unheld = expected.join(
        held.select("group", "generation", "task").distinct(), ["group", "generation", "task"], "left_anti"
    ).withColumn("_task_escaped", F.lit(False))

    odd = (
        sh.join(subs_at, ["group", "generation", "member"])
        .filter(~F.array_contains("subscribed_topics", F.col("topic")))
        .withColumn("_task_escaped", F.lit(False))
    )
    return finding(
        unheld,
        "unheld-partition",
        "warning",
        F.concat(F.lit("no member of the share group holds "), F.col("task"), F.lit(" at this epoch")),
    ).unionByName(
        finding(
            odd,
            "unsubscribed-partition",
            "error",
            F.concat(
                F.lit("holds "),
                F.col("task"),
                F.lit(" but subscribes to "),
                F.array_join(F.array_sort("subscribed_topics"), ", "),
            ),
            member="member",
        )
    )


def consumer_findings(assignments: DataFrame) -> DataFrame:
    """``partition-owned-twice``: a consumer group's partition that two members own in one generation (a classic
    group's generation, a KIP-848 group's member epoch), its own or pending revocation (KAFKA-12984: invalid owned
    partitions reaching the assignor). Two owners in the input are evidence whatever the input leaves out, as for
    ``multiple-active-owners``: an input holding only some members can miss a case, never invent one. A KIP-848
    member's rows at an epoch are its first assignment at it (the tables' deduplication), and Kafka gives a
    partition to a new member at an epoch only once its previous owner has revoked it."""
    c = assignments.filter(
        F.col("group").isNotNull() & F.col("generation").isNotNull() & F.col("role").isin(*CONSUMER_ROLES)
    ).withColumn("_task_escaped", _te())
    per = c.groupBy("group", "generation", "task", "_task_escaped").agg(
        F.array_sort(F.collect_set("member")).alias("owners"),
        F.array_sort(F.collect_set(F.when(F.col("role") != "consumer", F.col("member")))).alias("revoking"),
    )
    detail = F.concat(
        F.lit("owned by "),
        F.array_join("owners", ", "),
        F.when(
            F.size("revoking") > 0,
            F.concat(F.lit(" (pending revocation on "), F.array_join("revoking", ", "), F.lit(")")),
        ).otherwise(F.lit("")),
    )
    return finding(per.filter(F.size("owners") > 1), "partition-owned-twice", "error", detail)


#: Kafka's client-side assignors by rebalance protocol (codec.assignor.consumer.findings: the same checks on bytes)
EAGER_PROTOCOLS = ("range", "roundrobin", "sticky")
COOPERATIVE_PROTOCOLS = ("cooperative-sticky",)


def consumer_move_findings(assignments: DataFrame, members: DataFrame, rebalances: DataFrame) -> DataFrame:
    """A classic consumer group's moves against its rebalance protocol (the rows' form of
    :mod:`codec.assignor.consumer.findings`, which ``assign --consumer --check`` runs on bytes):

    * ``eager-move-without-revocation``: the group's protocol is eager (``range``, ``roundrobin``, ``sticky``:
      Kafka's client revokes every partition before it joins, so its subscription owns nothing) and a member's
      subscription at the generation still lists a partition that another member is given in it;
    * ``cooperative-one-step-move``: the protocol is ``cooperative-sticky`` and a partition that a member of the
      generation still held -- its valid claim at the JoinGroup (the highest subscription generation's; a tie keeps
      none, as Kafka's assignor resolves claims), or given to it in the generation before (of a topic its subscription
      still names: a topic it left it revoked before joining) -- goes to another member in the same generation
      (KIP-429 takes two rebalances).

    Moves are evidence whatever the input leaves out: an input holding some members only can miss one, never
    invent one."""
    proto = rebalances.filter(F.col("group_protocol") == "classic").select("group", "generation", "protocol")
    c = (
        assignments.filter(F.col("group").isNotNull() & F.col("generation").isNotNull() & (F.col("role") == "consumer"))
        .withColumn("_task_escaped", _te())
        .select("group", "generation", "task", "_task_escaped", "topic", "partition", F.col("member").alias("to"))
        .distinct()
    )
    claims = (
        members.filter(F.col("group").isNotNull() & F.col("generation").isNotNull())
        .select(
            "group",
            "generation",
            "member",
            F.coalesce("subscription_generation", F.lit(-1)).alias("_sg"),
            F.explode("owned_partitions").alias("_tp"),
        )
        .select(
            "group",
            "generation",
            "member",
            "_sg",
            F.col("_tp.topic").alias("topic"),
            F.explode("_tp.partitions").alias("partition"),
        )  # fmt: skip
        .distinct()
    )
    eager = (
        claims.join(proto.filter(F.col("protocol").isin(*EAGER_PROTOCOLS)), ["group", "generation"])
        .join(c, ["group", "generation", "topic", "partition"])
        .filter(F.col("to") != F.col("member"))
        .groupBy("group", "generation", "task", "_task_escaped", "member", "protocol")
        .agg(F.array_sort(F.collect_set("to")).alias("to"))
    )
    out = finding(
        eager,
        "eager-move-without-revocation",
        "error",
        F.concat(
            F.col("member"),
            F.lit(" still owned it at the JoinGroup ("),
            F.col("protocol"),
            F.lit(" is eager: a member revokes everything before joining) and "),
            F.array_join("to", ", "),
            F.lit(" was given it"),
        ),
        member="member",
    )
    w = Window.partitionBy("group", "generation", "topic", "partition")
    valid = (
        claims.withColumn("_top", F.max("_sg").over(w))
        .filter(F.col("_sg") == F.col("_top"))
        .withColumn("_n", F.size(F.collect_set("member").over(w)))
        .filter(F.col("_n") == 1)
        .select("group", "generation", "topic", "partition", "member", F.lit("owned it at the JoinGroup").alias("how"))
    )
    present = (
        c.select("group", "generation", F.col("to").alias("member"))
        .unionByName(members.select("group", "generation", "member"))
        .distinct()
    )
    left = (  # (member, topic) where the member's subscription at the generation does not name the topic
        members.filter(F.col("group").isNotNull() & F.col("generation").isNotNull() & F.col("subscribed_topics").isNotNull())
        .select("group", "generation", "member", "subscribed_topics")
        .join(c.select("group", "generation", "topic").distinct(), ["group", "generation"])
        .groupBy("group", "generation", "member", "topic")
        .agg(F.max(F.array_contains("subscribed_topics", F.col("topic")).cast("int")).alias("_in"))
        .filter(F.col("_in") == 0)
        .select("group", "generation", "member", "topic")
    )  # fmt: skip
    held = (
        c.select(
            "group",
            (F.col("generation") + 1).alias("generation"),
            "topic",
            "partition",
            F.col("to").alias("member"),
            F.concat(F.lit("was given it in generation "), F.col("generation").cast("string")).alias("how"),
        )
        .join(present, ["group", "generation", "member"])
        .join(valid.select("group", "generation", "topic", "partition"), ["group", "generation", "topic", "partition"], "left_anti")
        # a topic its subscription left it revoked before joining (ConsumerCoordinator.onJoinPrepare): free at once
        .join(left, ["group", "generation", "member", "topic"], "left_anti")
    )  # fmt: skip
    coop = (
        valid.unionByName(held)
        .join(proto.filter(F.col("protocol").isin(*COOPERATIVE_PROTOCOLS)), ["group", "generation"])
        .join(c, ["group", "generation", "topic", "partition"])
        .filter(F.col("to") != F.col("member"))
        .groupBy("group", "generation", "task", "_task_escaped", "member", "how")
        .agg(F.array_sort(F.collect_set("to")).alias("to"))
    )
    return out.unionByName(
        finding(
            coop,
            "cooperative-one-step-move",
            "error",
            F.concat(
                F.col("member"),
                F.lit(" "),
                F.col("how"),
                F.lit(" and "),
                F.array_join("to", ", "),
                F.lit(" was given it in the same generation (cooperative: the owner revokes it first)"),
            ),
            member="member",
        )
    )


def consumer_assignor_checks(ok: DataFrame, partitions: dict[str, int] | None = None) -> DataFrame:
    """A classic consumer group's checks that run Kafka's assignor on what its leader saw
    (:mod:`codec.pipeline.consumerchecks`: ``not-the-assignors-assignment``, ``partition-unowned``,
    ``member-never-rejoined``), one group at a time, over the units (``ok``: not quarantined) that carry a plain
    consumer's subscription and assignment bytes, the leader's JoinGroup responses, the LeaveGroup requests and the
    Metadata responses' topics of the groups' inputs (``source``); ``partitions``: the counts given for topics no
    such response names (``--partitions``). Rows of :data:`~.consumerchecks.VERDICT_SCHEMA`:
    the findings (``check`` set) and one verdict per generation (``check`` null), computed once and persisted (the
    findings table and the report both read them: the caller unpersists them).

    The units are read once: every fact a unit can give is picked in one pass (``_facts``); which of them count
    (a Streams member's only in a leader's response, a response only of such a generation, a KIP-848 group's,
    the topics of the groups' inputs) is decided on those few rows."""
    cand = _facts(ok).persist(StorageLevel.MEMORY_AND_DISK)
    try:
        leaders = cand.filter((F.col("what") == "joined") & F.col("leader").isNotNull()).select("record_id")
        # a classic Streams group's members as its leader's JoinGroup response lists them (member-never-rejoined)
        streams = cand.filter(F.col("what") == "streams-join").join(leaders.distinct(), "record_id", "left_semi")
        joins = cand.filter(F.col("what") == "join").unionByName(streams.withColumn("what", F.lit("join")))
        responses = cand.filter(F.col("what") == "joined").join(
            joins.select("record_id").distinct(), "record_id", "left_semi"
        )
        k848 = cand.filter(F.col("_k848")).select("group").distinct()
        kg = cand.filter(F.col("what").startswith("k848-")).join(k848, "group", "left_semi")
        shared = kg.filter(F.col("what") == "k848-topics").select("group", F.explode("_topics").alias("_t"))
        k848_topics = shared.select(
            "group",
            F.lit("k848-topic").alias("what"),
            F.col("_t.topic").alias("topic"),
            F.col("_t.topic_id").alias("topic_id"),
            F.when(F.col("_t.partitions").isNotNull(), F.size(F.col("_t.partitions"))).alias("partitions"),
        )
        sources = (
            joins.select("group", "source")
            .unionByName(
                cand.filter(F.col("what") == "source").select("group", "source").join(k848, "group", "left_semi")
            )
            .distinct()
        )
        topics = (
            cand.filter(F.col("what") == "metadata")
            .select("source", "ts_ms", F.explode("_metadata").alias("_t"))
            .join(sources, "source")
            .select(
                "group",
                F.lit("topic").alias("what"),
                "ts_ms",
                F.col("_t.topic").alias("topic"),
                F.col("_t.partitions").alias("partitions"),
                F.col("_t.racks").alias("racks"),
                F.col("_t.topic_id").alias("topic_id"),
            )
        )
        rows = (
            _as_facts(joins)
            .unionByName(_as_facts(responses))
            .unionByName(_as_facts(cand.filter(F.col("what").isin("sync", "leave"))))
            .unionByName(_as_facts(kg.filter(F.col("what") != "k848-topics")))
            .unionByName(_as_facts(k848_topics))
            .unionByName(_as_facts(topics))
        )
        # (the groups a leader's plain consumer or Streams JoinGroup response shows, and the KIP-848 groups)
        keep = joins.select("group").unionByName(k848).distinct()
        given = dict(partitions or {})

        def checks(pdf):  # (applyInPandas reads its function's signature: a closure, not a partial)
            return group_consumer_checks(pdf, given)

        verdicts = (
            rows.join(keep, "group", "left_semi")
            .groupBy("group")
            .applyInPandas(checks, VERDICT_SCHEMA)
            .persist(StorageLevel.MEMORY_AND_DISK)
        )
        verdicts.count()  # (computed here, while the picked facts are still at hand)
        return verdicts
    finally:
        cand.unpersist()


_FACT_TYPES = dict(c.split() for c in FACTS_SCHEMA.split(", "))


def _as_facts(df: DataFrame) -> DataFrame:
    """``df``'s columns of :data:`~.consumerchecks.FACTS_SCHEMA`, in its order (null where ``df`` has none)."""
    have = set(df.columns)
    return df.select(*[(F.col(n) if n in have else F.lit(None)).cast(t).alias(n) for n, t in _FACT_TYPES.items()])


def _facts(ok: DataFrame) -> DataFrame:
    """Every fact a unit of ``ok`` can give the consumer checks, in one pass: rows of the facts' columns plus
    ``source``, ``_k848`` (the unit shows a KIP-848 consumer group), ``_topics`` (a KIP-848 group's topics, for
    ``k848-topics``) and ``_metadata`` (a Metadata response's topics, for ``metadata``). ``what``: ``join`` (a
    plain consumer's subscription), ``streams-join`` (a Streams member of a JoinGroup response, kept where the
    response is a leader's), ``joined`` (a group response), ``sync``, ``leave``, ``k848-assigned``, ``k848-beat``,
    ``k848-leave``, ``k848-sub``, ``k848-topics`` (kept for KIP-848 groups), ``source`` (a KIP-848 group's input,
    one row per unit, deduplicated after) and ``metadata``."""
    c = F.col
    grouped = c("group").isNotNull()
    kind, direction = c("unit_kind"), c("direction")
    member = {"generation": c("generation"), "record_id": c("record_id"), "unit": c("unit"), "member": c("member"),
              "ts_ms": c("ts_ms")}  # fmt: skip
    # (the columns beyond the facts', each a null of its own type where a fact does not give it)
    extra = {"source": c("source"), "_k848": F.lit(False), "_topics": c("share_topics"),
             "_metadata": c("metadata_topics")}  # fmt: skip
    k848 = (kind == "group") & (c("group_protocol") == "consumer")

    def fact(what: str, cond, **cols):
        given = {"group": c("group"), "what": F.lit(what), **cols}
        fields = [given.get(n, F.lit(None)).cast(t).alias(n) for n, t in _FACT_TYPES.items()]
        fields += [(given[n] if n in given else F.when(F.lit(False), col)).alias(n) for n, col in extra.items()]
        return F.when(cond, F.struct(*fields))

    picked = [
        fact("join", grouped & c("subscription_bytes").isNotNull(), **member, instance=c("group_instance_id"),
             data=c("subscription_bytes"), source=c("source")),
        fact("streams-join", grouped & (kind == "member") & c("streams") & c("generation").isNotNull(), **member,
             instance=c("group_instance_id"), source=c("source")),
        fact("joined", grouped & (kind == "group"), generation=c("generation"), record_id=c("record_id"),
             protocol=c("protocol_name"), leader=c("leader"), _k848=F.coalesce(k848, F.lit(False))),
        fact("sync", grouped & c("assignment_bytes").isNotNull(), **member, data=c("assignment_bytes")),
        fact("leave", grouped & (c("group_event") == "leave"), member=c("member")),
        fact("k848-assigned", grouped & (kind == "assignment") & c("consumed").isNotNull() & (direction == "response")
             & c("member").isNotNull() & c("generation").isNotNull(), **member, parts=c("consumed")),
        fact("k848-beat", grouped & (kind == "group") & (direction == "response")
             & (F.coalesce(c("group_error_code"), F.lit(0)) == 0) & c("member").isNotNull()
             & c("generation").isNotNull(), **member),
        fact("k848-leave", grouped & (kind == "group") & (direction == "request") & (c("generation") < 0)
             & c("member").isNotNull(), **member),
        fact("k848-sub", grouped & (kind == "member") & (direction == "request") & c("subscribed_topics").isNotNull()
             & c("member").isNotNull(), **member, topics=c("subscribed_topics")),
        fact("k848-topics", grouped & c("share_topics").isNotNull(), _topics=c("share_topics")),
        fact("source", grouped, source=c("source")),
        fact("metadata", c("metadata_topics").isNotNull(), ts_ms=c("ts_ms"), source=c("source"),
             _metadata=c("metadata_topics")),
    ]  # fmt: skip
    return ok.select(F.explode(F.array(*picked)).alias("_f")).filter(F.col("_f").isNotNull()).select("_f.*")


def finding(df: DataFrame, check: str, severity: str, detail, task="task", member=None, process=None) -> DataFrame:
    def col(c):
        return F.col(c) if isinstance(c, str) else (c if c is not None else F.lit(None))

    # the task name is the only string of a finding that can hold a lone surrogate (written escaped)
    escaped = F.when(F.col("_task_escaped"), F.array(F.lit("task"))) if task == "task" else F.lit(None)
    return df.select(
        "group",
        "generation",
        F.lit(check).alias("check"),
        F.lit(severity).alias("severity"),
        col(task).cast("string").alias("task"),
        col(member).cast("string").alias("member"),
        col(process).cast("string").alias("process_id"),
        detail.alias("detail"),
        escaped.cast("array<string>").alias("escaped"),
    )


def _no_active_owner(per_task: DataFrame, rebalances: DataFrame) -> list[DataFrame]:
    """``no-active-owner``: a task held as standby/warmup and active on no member (``per_task``: one row per
    group, generation and task with its ``active_members`` and ``other_members``), told apart from the state
    between a cooperative revocation and its follow-up rebalance.

    Kafka's leader (``StreamsPartitionAssignor.populateActiveTaskAndPartitionsLists``) withholds an active
    task from its new consumer while another member still owns one of its partitions, gives that consumer
    ``next_rebalance_ms`` 0 (an immediate follow-up) and, when its client held the task as a standby before,
    the task as a temporary standby (``buildStandbyTaskMap``); the follow-up assigns it (wire-facts §3 and §9
    step 8; KIP-441's scale-out, whose second rebalance "is composed of two rebalances"). Nothing else leaves
    a task without an active owner: the task assignors give every task one, and a probing deadline only
    adds warmups (§10). So, per task and generation:

    * no member of the generation got an immediate follow-up: an error (a task nobody runs);
    * some did, and the group's next generation in the input makes the task active: no finding (the withheld
      task, handed over in the follow-up; not always to the consumer it was withheld from, since the
      follow-up's assignor sees the revoked partitions free and may place it anew);
    * some did, but the next generation is not in the input, or leaves the task active nowhere again: a
      warning that says which (that generation is checked on its own too).

    All of this is decided against the whole group: only where the input holds every member's assignment (a
    ``__consumer_offsets`` record of the generation, or as many members as the leader's JoinGroup response or
    SyncGroup request listed: ``members_complete``). Where it holds some members only, a task active on none of
    them may be active on a member the input does not show: one warning per generation says so, and what is
    missing (the group's size, or the members the leader listed but the input lacks), instead of an error per
    task.
    """
    w = Window.partitionBy("group").orderBy("generation")
    gens = rebalances.select(
        "group",
        "generation",
        F.coalesce(F.col("members_complete"), F.lit(False)).alias("_whole"),
        F.col("member_count").alias("_seen"),
        F.col("reported_member_count").alias("_listed"),
        F.exists("probing_deadlines", lambda d: d["next_rebalance_ms"] == 0).alias("_withheld"),
        F.transform(
            F.filter("probing_deadlines", lambda d: (d["next_rebalance_ms"] == 0) & d["member"].isNotNull()),
            lambda d: d["member"],
        ).alias("_immediate"),
        F.lead("generation").over(w).alias("_next"),
    )
    following = per_task.select(
        "group", F.col("generation").alias("_next"), "task", "_task_escaped", F.col("active_members").alias("_then")
    )
    all_o = (
        per_task.filter(F.size("active_members") == 0)
        .join(gens, ["group", "generation"], "left")
        .join(following, ["group", "_next", "task", "_task_escaped"], "left")
        .withColumn("_immediate", F.coalesce("_immediate", F.array().cast("array<string>")))
    )
    o = all_o.filter(F.coalesce("_whole", F.lit(False)))
    partial = (
        all_o.filter(~F.coalesce("_whole", F.lit(False)))
        .groupBy("group", "generation", "_seen", "_listed")
        .agg(
            F.count("*").alias("_tasks"),
            F.array_sort(F.array_distinct(F.flatten(F.collect_list("other_members")))).alias("_holders"),
        )
        .withColumn("_task_escaped", F.lit(False))
    )
    missing = F.when(
        F.col("_listed").isNull(),
        F.lit(
            "the input does not show the group's size (no leader's JoinGroup response or SyncGroup request, no "
            "__consumer_offsets record of the generation)"
        ),
    ).otherwise(
        F.format_string("the leader listed %d members, the input holds the assignments of %d", "_listed", "_seen")
    )
    withheld = F.coalesce("_withheld", F.lit(False))
    handed_over = F.coalesce(F.size("_then") > 0, F.lit(False))
    held = F.concat(F.lit("standby/warmup on "), F.array_join("other_members", ", "), F.lit(", active on no member"))
    pending = F.concat(
        held,
        F.lit(" while "),
        F.when(F.size("_immediate") > 0, F.array_join("_immediate", ", ")).otherwise(F.lit("a member not named")),
        F.lit(" got an immediate follow-up (next_rebalance_ms 0: an active withheld for cooperative revocation); "),
    )
    return [
        finding(
            partial,
            "no-active-owner",
            "warning",
            F.concat(
                F.when(F.col("_tasks") == 1, F.lit("1 task held as standby/warmup by ")).otherwise(
                    F.format_string("%d tasks held as standby/warmup by ", "_tasks")
                ),
                F.array_join("_holders", ", "),
                F.when(F.col("_tasks") == 1, F.lit(" is")).otherwise(F.lit(" are")),
                F.format_string(
                    " active on none of the %d members whose assignments the input holds, and it cannot tell "
                    "whether another member runs them: ",
                    "_seen",
                ),
                missing,
            ),
            task=None,
        ),
        finding(
            o.filter(~withheld),
            "no-active-owner",
            "error",
            F.concat(held, F.lit(", and no member got an immediate follow-up rebalance")),
        ),
        finding(
            o.filter(withheld & ~handed_over),
            "no-active-owner",
            "warning",
            F.concat(
                pending,
                F.when(F.col("_next").isNull(), F.lit("the follow-up generation is not in the input")).otherwise(
                    F.format_string("generation %d, the next in the input, makes it active nowhere either", "_next")
                ),
            ),
        ),
    ]


def findings(
    assignments: DataFrame,
    members: DataFrame,
    rebalances: DataFrame,
    asg_errors: DataFrame,
    cfg: Config,
    group_errors: DataFrame | None = None,
) -> DataFrame:
    a = assignments.filter(
        F.col("group").isNotNull() & F.col("generation").isNotNull() & F.col("role").isin("active", "standby", "warmup")
    )
    client = F.coalesce(F.col("process_id"), F.concat(F.lit("member:"), F.col("member")))
    a = a.withColumn("client", client).withColumn("_task_escaped", _te())
    out = []

    per_task = a.groupBy("group", "generation", "task", "_task_escaped").agg(
        F.array_sort(F.collect_set(F.when(F.col("role") == "active", F.col("member")))).alias("active_members"),
        F.array_sort(F.collect_set(F.when(F.col("role") == "active", F.col("client")))).alias("active_clients"),
        F.array_sort(F.collect_set(F.when(F.col("role") != "active", F.col("member")))).alias("other_members"),
    )
    out.append(
        finding(
            per_task.filter(F.size("active_members") > 1),
            "multiple-active-owners",
            "error",
            F.concat(F.lit("active on "), F.array_join("active_members", ", ")),
        )
    )
    out.extend(_no_active_owner(per_task, rebalances))

    both = a.groupBy("group", "generation", "member", "task", "_task_escaped").agg(
        F.collect_set("role").alias("roles"), F.first("process_id").alias("process_id")
    )
    both = both.filter(F.array_contains("roles", "active") & (F.size("roles") > 1))
    out.append(
        finding(
            both,
            "active-and-standby",
            "error",
            F.concat(F.lit("roles "), F.array_join(F.array_sort("roles"), ", ")),
            member="member",
            process="process_id",
        )
    )

    act = a.filter(F.col("role") == "active").select(
        "group",
        "generation",
        "task",
        "_task_escaped",
        F.col("client").alias("a_client"),
        F.col("member").alias("a_member"),
    )
    stb = a.filter(F.col("role") != "active")
    same = stb.join(act, ["group", "generation", "task", "_task_escaped"]).filter(
        (F.col("client") == F.col("a_client")) & (F.col("member") != F.col("a_member"))
    )
    out.append(
        finding(
            same,
            "standby-on-active-client",
            "error",
            F.concat(
                F.col("role"),
                F.lit(" on "),
                F.col("member"),
                F.lit(", active on "),
                F.col("a_member"),
                F.lit(" of the same client"),
            ),
            member="member",
            process="process_id",
        )
    )

    if cfg.max_warmup_replicas is not None:
        wu = a.filter(F.col("role") == "warmup").groupBy("group", "generation").agg(F.count("*").alias("n"))
        out.append(
            finding(
                wu.filter(F.col("n") > cfg.max_warmup_replicas),
                "too-many-warmups",
                "error",
                F.format_string(f"%d warmups, max.warmup.replicas = {cfg.max_warmup_replicas}", F.col("n")),
                task=None,
            )
        )

    # KIP-441 balance: activeTaskLoad = active tasks / capacity (consumers of the client), max - min <= 1
    settled = rebalances.filter(
        ~F.col("followup_scheduled")
        & (F.size("assignment_error_codes") == 0)
        & F.coalesce(F.col("members_complete"), F.lit(False))
    ).select("group", "generation")
    per_client = a.groupBy("group", "generation", "client").agg(
        F.count_distinct(F.when(F.col("role") == "active", F.struct("task", "_task_escaped"))).alias("actives"),
        F.count_distinct("member").alias("capacity"),
    )
    per_client = per_client.join(settled, ["group", "generation"]).withColumn(
        "load", F.col("actives") / F.col("capacity")
    )
    skew = per_client.groupBy("group", "generation").agg(F.max("load").alias("hi"), F.min("load").alias("lo"))
    out.append(
        finding(
            skew.filter(F.col("hi") - F.col("lo") > 1.0),
            "unbalanced-active",
            "warning",
            F.format_string(
                "active tasks per client capacity range %.2f to %.2f (KIP-441 allows 1)", F.col("lo"), F.col("hi")
            ),
            task=None,
        )
    )

    mixed_asg = rebalances.filter(F.size("assignment_versions") > 1)
    out.append(
        finding(
            mixed_asg,
            "mixed-assignment-versions",
            "error",
            F.concat(
                F.lit("assignment versions "),
                F.array_join("assignment_versions", ", "),
                F.lit(" in one generation (the leader sends one version to all)"),
            ),
            task=None,
        )
    )

    latest = rebalances.withColumn("_last", F.max("generation").over(Window.partitionBy("group"))).filter(
        F.col("generation") == F.col("_last")
    )
    csv_max = F.array_max(F.filter("commonly_supported_versions", lambda x: x > 0))
    below = F.coalesce(F.array_min("assignment_versions") < csv_max, F.lit(False))
    unresolved = latest.filter((F.size("subscription_versions") > 1) | F.col("version_probe") | below)
    out.append(
        finding(
            unresolved,
            "unresolved-version-mix",
            "warning",
            F.concat(
                F.lit("latest generation: subscription versions "),
                F.array_join("subscription_versions", ", "),
                F.lit("; assignment versions "),
                F.array_join("assignment_versions", ", "),
                F.lit("; commonly supported "),
                F.array_join("commonly_supported_versions", ", "),
                F.when(F.col("version_probe"), F.lit("; a version probe")).otherwise(F.lit("")),
            ),
            task=None,
        )
    )

    out.append(
        finding(
            asg_errors,
            "assignment-error",
            "error",
            F.format_string(  # the code's AssignorError name beside it
                "assignment error code %d (%s)",
                F.col("error_code"),
                F.coalesce(F.element_at(_assignor_error_names(), F.col("error_code")), F.lit("not an AssignorError")),
            ),
            task=None,
            member="member",
        )
    )
    shut = members.filter((F.col("error_code") == 4) & F.col("group").isNotNull())
    out.append(
        finding(
            shut,
            "shutdown-requested",
            "warning",
            F.lit("subscription error code 4 (SHUTDOWN_REQUESTED)"),
            task=None,
            member="member",
            process="process_id",
        )
    )

    if group_errors is not None:  # a Kafka 4 group's heartbeat or Describe answered with an error
        from ..wire.registry import error_names

        names = F.create_map(*[F.lit(x) for kv in sorted(error_names().items()) for x in kv])
        out.append(
            finding(
                group_errors,
                "group-error",
                "warning",
                F.format_string(
                    "%s (%d) in a %s group's response",
                    F.coalesce(F.element_at(names, F.col("error_code")), F.lit("error")),
                    F.col("error_code"),
                    F.col("group_protocol"),
                ),
                task=None,
                member="member",
            )
        )

    result = out[0]
    for df in out[1:]:
        result = result.unionByName(df)
    return result


def _assignor_error_names():
    """A Spark map of Streams' AssignorError codes to their names."""
    from ..streams import AssignorError

    return F.create_map(*[F.lit(x) for e in sorted(AssignorError, key=int) for x in (int(e), e.name)])
