"""The ``rebalances`` table: one row per group and generation (a Kafka 4 group's epochs as its generations), with
why it formed -- its ``cause`` and ``causes`` (:mod:`codec.pipeline.causes`, through :mod:`codec.causes`) -- and what
it moved; see :mod:`codec.pipeline.tables` for its other columns."""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from .causes import CAUSE_SCHEMA, UNIT_COLUMNS, group_causes

__all__ = ["rebalances_table", "NO_REBALANCE"]

NO_REBALANCE = 2**63 - 1
#: the ``assignments`` roles of a partition a member holds (a plain or KIP-848 consumer's, pending revocation
#: included, and a share member's)
PARTITION_ROLES = ("consumer", "pending-revocation", "share")


def _te():
    """Whether the row's ``task`` is escaped (as :mod:`codec.pipeline.tables` tells it)."""
    return F.coalesce(F.array_contains(F.col("escaped"), "task"), F.lit(False))


def _client():
    """A unit's client for ``client_count`` where its group has no Streams process ids: its member's client id and
    host (``{client_id, client_host}``), each the first any unit of the same group and member id gives (a member
    id is the coordinator's, for one client instance: a heartbeat frame names the client id, a record or Describe
    response the host too); null when no unit names the client id, or the unit names no member (as
    ``member_count``, which counts the members by id)."""
    w = Window.partitionBy("group", "member")
    known = F.col("member").isNotNull() & (F.col("member") != "")

    def of(c: str):
        return F.coalesce(F.col(c), F.when(known, F.first(c, ignorenulls=True).over(w)))

    cid = of("client_id")
    return F.when(known & cid.isNotNull(), F.struct(cid.alias("client_id"), of("client_host").alias("client_host")))


def rebalances_table(ok: DataFrame, assignments: DataFrame) -> DataFrame:
    """The table from the decoded units (``ok``: not quarantined) and the ``assignments`` table."""
    is_mem = F.col("unit_kind").isin("member", "assignment")
    g = ok.withColumn("_client", F.when(is_mem, _client())).filter(  # (a member's client from any of its units)
        F.col("group").isNotNull() & F.col("generation").isNotNull() & (F.col("generation") >= 0)
    )
    deadline = F.when(
        F.col("next_rebalance_ms") != NO_REBALANCE,
        F.struct(F.col("next_rebalance_ms").alias("next_rebalance_ms"), F.col("member")),
    )
    reb = g.groupBy("group", "generation").agg(
        F.coalesce(F.first("group_protocol", ignorenulls=True), F.lit("classic")).alias("group_protocol"),
        F.first("leader", ignorenulls=True).alias("leader"),
        F.first("protocol_name", ignorenulls=True).alias("protocol"),
        F.first("protocol_type", ignorenulls=True).alias("protocol_type"),
        F.count_distinct(F.when(is_mem, F.col("member"))).alias("member_count"),
        F.max("member_count").alias("reported_member_count"),
        F.count_distinct("process_id").alias("_processes"),
        F.count_distinct("_client").alias("_clients"),
        F.array_sort(F.collect_set("sub_version")).alias("subscription_versions"),
        F.array_sort(F.collect_set("latest_supported_version")).alias("latest_supported_versions"),
        F.array_sort(F.collect_set("asg_version")).alias("assignment_versions"),
        F.array_sort(F.collect_set("commonly_supported_version")).alias("commonly_supported_versions"),
        F.coalesce(F.max("is_version_probe"), F.lit(False)).alias("version_probe"),
        F.array_sort(F.collect_set(deadline)).alias("probing_deadlines"),
        F.array_sort(F.collect_set(F.when(F.col("asg_error_code") != 0, F.col("asg_error_code")))).alias(
            "assignment_error_codes"
        ),
        F.count(F.when(F.col("unit") == 0, 1)).alias("records"),
        F.coalesce(F.max(F.col("kind") == "group-metadata"), F.lit(False)).alias("_whole"),
        F.timestamp_millis(F.min("ts_ms")).alias("first_seen"),
        F.timestamp_millis(F.max("ts_ms")).alias("last_seen"),
    )
    counts = (
        assignments.filter(F.col("group").isNotNull() & F.col("generation").isNotNull())
        .groupBy("group", "generation")
        .agg(
            F.count_distinct(F.when(F.col("role") == "active", F.struct("task", _te()))).alias("active_tasks"),
            F.count(F.when(F.col("role") == "standby", 1)).alias("standby_replicas"),
            F.count(F.when(F.col("role") == "warmup", 1)).alias("warmup_replicas"),
            # a consumer or share group's (classic or Kafka 4): the partitions its members hold, each once
            F.count_distinct(F.when(F.col("role").isin(*PARTITION_ROLES), F.struct("task", _te()))).alias(
                "assigned_partitions"
            ),
        )
    )
    rebalances = reb.join(counts, ["group", "generation"], "left").select(
        "group",
        "generation",
        "group_protocol",
        "leader",
        "protocol",
        "protocol_type",
        "member_count",
        "reported_member_count",
        (
            F.col("_whole")
            | (F.col("reported_member_count").isNotNull() & (F.col("member_count") >= F.col("reported_member_count")))
        ).alias("members_complete"),
        F.when(F.col("_processes") > 0, F.col("_processes")).otherwise(F.col("_clients")).alias("client_count"),
        "subscription_versions",
        "latest_supported_versions",
        "assignment_versions",
        "commonly_supported_versions",
        "version_probe",
        "probing_deadlines",
        (F.size("probing_deadlines") > 0).alias("followup_scheduled"),
        "assignment_error_codes",
        F.coalesce("active_tasks", F.lit(0)).alias("active_tasks"),
        F.coalesce("standby_replicas", F.lit(0)).alias("standby_replicas"),
        F.coalesce("warmup_replicas", F.lit(0)).alias("warmup_replicas"),
        F.coalesce("assigned_partitions", F.lit(0)).alias("assigned_partitions"),
        "records",
        "first_seen",
        "last_seen",
    )
    causes = (
        ok.filter(F.col("group").isNotNull())
        .select(*UNIT_COLUMNS)
        .groupBy("group")
        .applyInPandas(group_causes, CAUSE_SCHEMA)
    )
    return rebalances.join(causes, ["group", "generation"], "left")
