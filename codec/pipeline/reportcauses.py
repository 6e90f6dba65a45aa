"""The report's rebalances by cause, its storm chart (from the ``rebalances`` table) and its members by version
(``members``), aggregated on Spark (the report itself, :mod:`codec.pipeline.report`, is pure Python)."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

__all__ = ["cause_charts", "member_versions"]


def cause_charts(rebalances: DataFrame, groups: list[str], minutes: int = 60) -> tuple[list[dict], list[dict]]:
    """The report's rebalances by cause for ``groups`` (``{group, cause, rebalances}``), and its storm chart's
    data: rebalances per minute and group over the ``minutes`` busiest minutes (``{minute, group, rebalances}``)."""
    by_cause = [
        {"group": r["group"], "cause": r["kind"] or "(none)", "rebalances": r["count"]}
        for r in rebalances.filter(F.col("group").isin(*groups))
        .groupBy("group", F.col("cause.kind").alias("kind"))
        .count()
        .collect()
    ]
    counted = (
        rebalances.filter(F.col("first_seen").isNotNull())
        .groupBy("group", F.date_format(F.date_trunc("minute", "first_seen"), "yyyy-MM-dd HH:mm").alias("minute"))
        .count()
    )
    busiest = [
        r["minute"]
        for r in counted.groupBy("minute")
        .agg(F.sum("count").alias("n"))
        .orderBy(F.desc("n"), "minute")
        .limit(minutes)
        .collect()
    ]
    per_minute = [
        {"minute": r["minute"], "group": r["group"], "rebalances": r["count"]}
        for r in counted.filter(F.col("minute").isin(*busiest)).collect()
    ]
    return sorted(by_cause, key=lambda x: (x["group"], x["cause"])), sorted(
        per_minute, key=lambda x: (x["minute"], x["group"])
    )


#: A Kafka 4 group's members carry no metadata version: their group protocol (the ``rebalances`` table's) names them
_KAFKA4_MEMBERS = {
    "consumer": "consumer group (KIP-848)",
    "streams": "streams group (KIP-1071)",
    "share": "share group (KIP-932)",
}


def member_versions(members: DataFrame, rebalances: DataFrame) -> dict[str, dict[str, int]]:
    """The report's members over time for every group type: members per date (``unknown`` without one) by what
    their subscription is -- ``Streams vN`` (SubscriptionInfo's metadata version), ``ConsumerProtocol vN`` (a plain
    consumer's subscription), or a Kafka 4 group's members by its protocol (``consumer group (KIP-848)`` ...);
    ``other`` for a member none of these names. For the job's summary as ``charts.member_versions_by_date``."""
    protocols = rebalances.groupBy("group").agg(F.first("group_protocol", ignorenulls=True).alias("_gp"))
    kafka4 = F.lit("other")
    for protocol, name in reversed(_KAFKA4_MEMBERS.items()):
        kafka4 = F.when(F.col("_gp") == protocol, F.lit(name)).otherwise(kafka4)
    what = (
        F.when(
            F.col("metadata_version").isNotNull(),
            F.concat(F.lit("Streams v"), F.col("metadata_version").cast("string")),
        )
        .when(
            F.col("consumer_protocol_version").isNotNull(),
            F.concat(F.lit("ConsumerProtocol v"), F.col("consumer_protocol_version").cast("string")),
        )
        .otherwise(kafka4)
    )
    out: dict[str, dict[str, int]] = {}
    for r in (
        members.join(protocols, "group", "left")
        .groupBy(F.coalesce(F.col("date").cast("string"), F.lit("unknown")).alias("d"), what.alias("what"))
        .count()
        .collect()
    ):
        out.setdefault(r["d"], {})[r["what"]] = r["count"]
    return out
