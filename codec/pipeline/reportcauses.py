"""The report's rebalances by cause and its storm chart, aggregated from the ``rebalances`` table on Spark (the
report itself, :mod:`codec.pipeline.report`, is pure Python)."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

__all__ = ["cause_charts"]


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
