"""The ``pipeline`` subcommand: ``rebalance-codec pipeline INPUT... --out DIR``.

Importing this module does not import pyspark: the CLI keeps working without the ``spark`` extra,
and the subcommand says how to install it when it is missing.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register", "run", "INSTALL_HINT"]

INSTALL_HINT = ("the pipeline needs the 'spark' extra (PySpark 4.3, pyarrow, pandas<3; Java 17):\n"
                "    pip install 'rebalance-codec[spark]'        (from a checkout: pip install -e '.[spark]')")

_DESCRIPTION = """Decode captured rebalance records at scale on Apache Spark: JSONL/Parquet records
with hex or binary metadata and context (see `python -m pydoc codec.pipeline` for the format),
`rebalance-codec capture --json` output, and __consumer_offsets dumps. Writes the Parquet tables
members, task_lags, assignments, rebalances, findings and quarantine, plus report.json and
report.html, atomically under --out. Local Spark (local[*]) by default; --master URL for a cluster."""


def _add_arguments(p: argparse.ArgumentParser) -> None:
    # the same arguments as `spark-submit codec/pipeline/job.py`; defined here too so that --help works
    # without pyspark installed
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="JSONL or Parquet files/directories (any URI Spark reads: file:, hdfs:, s3a: ...)")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory (URI); written atomically")
    p.add_argument("--master", metavar="URL", help="Spark master (default local[*])")
    p.add_argument("--input-format", choices=("jsonl", "parquet"), help="default: by file extension")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    p.add_argument("--acceptable-recovery-lag", type=int, default=10000, metavar="N",
                   help="lag below which a task counts as caught up (Streams default 10000)")
    p.add_argument("--num-standby-replicas", type=int, metavar="N",
                   help="the apps' num.standby.replicas, to tell warmups from standbys (default: unknown)")
    p.add_argument("--max-warmup-replicas", type=int, metavar="N",
                   help="the apps' max.warmup.replicas, for the warmup check (default: unknown)")
    p.add_argument("--shuffle-partitions", type=int, metavar="N", help="spark.sql.shuffle.partitions")
    p.add_argument("--driver-memory", default="2g", help="local mode driver memory (default 2g)")
    p.add_argument("--ship-code", action="store_true",
                   help="send the codec's Python code to the executors (clusters without it installed)")
    p.add_argument("--ui", action="store_true", help="enable the Spark web UI")
    p.add_argument("--quiet", action="store_true", help="no progress messages")


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``pipeline`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser("pipeline", help="decode captures at scale on Apache Spark (needs the spark extra)",
                              description=_DESCRIPTION)
    _add_arguments(p)
    p.set_defaults(func=run)
    return p


def run(args) -> int:
    try:
        import pyspark  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as e:
        print(f"error: {e.name or 'pyspark'} is not installed; {INSTALL_HINT}", file=sys.stderr)
        return 2
    from .job import PipelineError, options_from_args
    from .job import run as run_job

    try:
        summary = run_job(options_from_args(args))
    except PipelineError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    c = summary["counts"]
    out = summary["output"]
    print(f"{c['records_in']} records in: {c['decoded']} decoded, {c['quarantined']} quarantined"
          + (f" ({c['not_selected']} more not selected)" if c["not_selected"] else ""))
    for name, n in summary["tables"].items():
        print(f"  {name:12} {n:8d} rows   {out}/{name}")
    print(f"  report                      {out}/report.html  (and report.json)")
    return 0
