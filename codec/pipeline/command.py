"""The ``pipeline`` subcommand: ``rebalance-codec pipeline INPUT... --out DIR``.

Importing this module does not import pyspark: the CLI keeps working without the ``spark`` extra,
and the subcommand says how to install it when it is missing.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from ..cliutil import INT, LONG, int_range
from .inputs import MAX_LINE

__all__ = ["register", "run", "main", "INSTALL_HINT", "usage_error", "MASTER_FORMS"]

INSTALL_HINT = (
    "the pipeline needs the 'spark' extra (PySpark 4.3, pyarrow, pandas<3; Java 17):\n"
    "    pip install 'rebalance-codec[spark]'        (from a checkout: pip install -e '.[spark]')"
)

_DESCRIPTION = """Decode captured rebalance records at scale on Apache Spark: JSONL/Parquet records
with hex or binary metadata and context (see `python -m pydoc codec.pipeline` for the format),
`rebalance-codec capture --json` output, __consumer_offsets and __share_group_state dumps. Writes the
Parquet tables members, task_lags, assignments, rebalances, connect, offsets, share_state, findings and
quarantine, plus report.json and
report.html, atomically under --out. Local Spark (local[*]) by default; --master URL for a cluster.
Directories are read by the files inside them (JSON lines or Parquet, told by extension or content;
mixed folders work). Spark's log goes to a file (--log), not the terminal. Exit status: 0 done, 1 bad
input or output refused (one line on stderr), 2 bad usage (an option's value), Spark did not start, or
the job failed (one line; details in the log). Options and local inputs are checked before Spark starts."""


def _add_arguments(p: argparse.ArgumentParser) -> None:
    # the same arguments for `rebalance-codec pipeline` and `spark-submit codec/pipeline/submit.py`, defined where
    # pyspark is not imported so that --help works without it
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="JSONL or Parquet files, directories or globs (any URI Spark reads: file:, hdfs:, s3a: ...)",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="output directory (URI); written atomically")
    p.add_argument("--master", metavar="URL", help="Spark master (default local[*])")
    p.add_argument(
        "--input-format",
        choices=("jsonl", "parquet"),
        help="read every input with this reader (default: by extension, else by content)",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing --out (never an input, nor a folder holding one or inside one)",
    )
    p.add_argument(
        "--max-line-length",
        type=byte_size,
        default=MAX_LINE,
        metavar="BYTES",
        help="the longest JSON line read (a longer one is quarantined with its size); 64m by default",
    )
    p.add_argument(
        "--acceptable-recovery-lag",
        type=int_range(*LONG),
        default=10000,
        metavar="N",
        help="lag below which a task counts as caught up (Streams default 10000)",
    )
    p.add_argument(
        "--num-standby-replicas",
        type=int_range(*INT),
        metavar="N",
        help="the apps' num.standby.replicas, to tell warmups from standbys (default: unknown)",
    )
    p.add_argument(
        "--max-warmup-replicas",
        type=int_range(*INT),
        metavar="N",
        help="the apps' max.warmup.replicas, for the warmup check (default: unknown)",
    )
    p.add_argument(
        "--partitions",
        type=topic_count,
        action="append",
        default=[],
        metavar="TOPIC=N",
        help="a topic's partition count, for the consumer groups' assignor checks where no Metadata response of "
        "the group's input names it (repeat for each topic)",
    )
    p.add_argument("--shuffle-partitions", type=int_range(*INT), metavar="N", help="spark.sql.shuffle.partitions")
    p.add_argument("--driver-memory", default="2g", help="local mode driver memory (default 2g)")
    p.add_argument(
        "--ship-code",
        action="store_true",
        help="send the codec's Python code to the executors (clusters without it installed)",
    )
    p.add_argument("--ui", action="store_true", help="enable the Spark web UI")
    p.add_argument("--quiet", action="store_true", help="no progress messages")
    p.add_argument(
        "--log",
        metavar="FILE",
        help="Spark's and the JVM's log (default: rebalance-codec-pipeline-<time>-<pid>.log in the "
        "temporary directory)",
    )


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``pipeline`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "pipeline", help="decode captures at scale on Apache Spark (needs the spark extra)", description=_DESCRIPTION
    )
    _add_arguments(p)
    p.set_defaults(func=run)
    return p


#: what ``--master`` accepts: the master URLs spark-submit and SparkContext accept
MASTER_FORMS = "local, local[N], local[*], local[N,F], local-cluster[N,C,M], spark://HOST:PORT, yarn, k8s://URL"
_MASTER = re.compile(
    r"local(\[([1-9][0-9]*|\*)(\s*,\s*[0-9]+)?\])?"
    r"|local-cluster\[\s*[1-9][0-9]*\s*,\s*[1-9][0-9]*\s*,\s*[1-9][0-9]*\s*\]"
    r"|spark://[^\s,/?#@]+:[0-9]+(,[^\s,/?#@]+:[0-9]+)*|yarn|k8s://\S+"
)
#: a JVM heap size as ``-Xmx`` takes it, with its unit (Spark reads a bare number as MiB, the JVM as bytes)
_MEMORY = re.compile(r"[1-9][0-9]*[kKmMgGtT]")


def usage_error(args) -> str | None:
    """The first option whose value cannot work, as one line (exit status 2), checked before Spark starts;
    None when all can."""
    if args.master is not None and not _MASTER.fullmatch(args.master):
        return f"--master {args.master}: not a Spark master URL (use {MASTER_FORMS})"
    if not _MEMORY.fullmatch(args.driver_memory or ""):
        return (
            f"--driver-memory {args.driver_memory}: not a JVM memory size (a whole number and a unit k, m, g "
            f"or t: 512m, 2g)"
        )
    ranges = (
        ("--shuffle-partitions", args.shuffle_partitions, 1),
        ("--acceptable-recovery-lag", args.acceptable_recovery_lag, 0),
        ("--num-standby-replicas", args.num_standby_replicas, 0),
        ("--max-warmup-replicas", args.max_warmup_replicas, 1),
    )
    for name, value, least in ranges:
        if value is not None and value < least:
            return f"{name} {value}: must be at least {least}"
    return None


def topic_count(text: str) -> tuple[str, int]:
    """``TOPIC=N`` (``--partitions``): a topic's name and its partition count (1 or more)."""
    name, sep, n = text.rpartition("=")
    if not sep or not name or not n.isdigit() or not 0 < int(n) <= 2**31 - 1:
        raise argparse.ArgumentTypeError(f"{text!r}: TOPIC=N, N a partition count from 1")
    return name, int(n)


_SIZE = re.compile(r"([1-9][0-9]{0,12})([kKmMgG]?)")
#: the most ``--max-line-length`` may be: Hadoop's line reader counts in a Java int, with the line's end
_MOST = (1 << 31) - 3


def byte_size(text: str) -> int:
    """An argparse type: a number of bytes, with an optional unit k, m or g (powers of 1024)."""
    m = _SIZE.fullmatch(text)
    if m is None:
        raise argparse.ArgumentTypeError(f"not a number of bytes (such as 1048576, 512k, 64m, 1g): {text[:40]!r}")
    n = int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2).lower()]
    if n > _MOST:
        raise argparse.ArgumentTypeError(f"{text[:40]}: at most {_MOST} bytes (2 GiB, less the line's end)")
    return n


def _checks_before_spark(args) -> tuple[int, str | None, Any]:
    """(exit status, error line, the input plan) from what can be checked without Spark (nor pyspark): the
    options' values (2), and, when the job reads and writes local files only, the inputs -- missing, of a
    format that cannot be told, not what their reader reads (:mod:`codec.pipeline.inputs`) -- and an
    existing output (1)."""
    from .inputs import InputError, LocalFiles, local_only, plan_inputs

    line = usage_error(args)
    if line is not None:
        return 2, line, None
    plan = None
    if local_only(list(args.inputs), args.master):
        try:
            plan = plan_inputs(list(args.inputs), args.input_format, lambda p: LocalFiles())
        except InputError as e:
            return 1, str(e), None
    out = args.out.rstrip("/") or args.out
    # a file: URI names a local path whatever Hadoop's default filesystem: checked here too (on a local master)
    if local_only([out], args.master) or (local_only([], args.master) and out.lower().startswith("file:")):
        from .output import LocalTarget, clash, local_path

        path = local_path(out)
        if path is None:  # (a file: URI naming another host: Spark's to refuse)
            return 0, None, plan
        line = clash(path, plan.roots if plan is not None else _local_inputs(list(args.inputs), args.master))
        if line is not None:
            return 1, line, None
        if not args.overwrite and LocalTarget(path).exists():
            return 1, f"{out} exists; pass --overwrite to replace it", None
    return 0, None, plan


def _local_inputs(inputs: list[str], master: str | None) -> list[str]:
    """The local paths among ``inputs`` when some are URIs (and the plan waits for Spark): each ``file:`` URI's,
    globs expanded, and each plain path's when plain paths are local -- so that an ``--out`` over one of them
    is refused before Spark starts."""
    import glob
    import os

    from .inputs import is_uri, local_only
    from .output import local_path

    found = []
    for given in inputs:
        path = local_path(given) if is_uri(given) and given.lower().startswith("file:") else None
        if path is None and not is_uri(given) and local_only([given], master):
            path = given
        if path is not None:
            found += sorted(glob.glob(path)) if glob.has_magic(path) and not os.path.exists(path) else [path]
    return found


def _one_line(text: str) -> str:
    from ..text import printable

    return printable(" ".join(text.split()))


def _missing(module: str) -> bool:
    """Whether ``module`` cannot be imported (found without importing it: pandas costs the driver a second)."""
    import importlib.util

    try:
        return importlib.util.find_spec(module) is None
    except (ImportError, ValueError):  # (a stand-in in sys.modules, e.g. None)
        return True


def run(args) -> int:
    status, line, plan = _checks_before_spark(args)
    if line is not None:
        print(f"error: {_one_line(line)}", file=sys.stderr)
        return status
    try:
        import pyspark  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as e:
        print(f"error: {e.name or 'pyspark'} is not installed; {INSTALL_HINT}", file=sys.stderr)
        return 2
    if _missing("pandas"):  # (Spark's mapInArrow asks for it once the job runs: say so before Spark starts)
        print(f"error: pandas is not installed; {INSTALL_HINT}", file=sys.stderr)
        return 2
    from .job import JobFailed, PipelineError, SparkStartError, options_from_args, spark_error_line
    from .job import run as run_job

    opts = options_from_args(args)
    opts.plan = plan
    try:
        summary = run_job(opts)
    except PipelineError as e:
        print(f"error: {_one_line(str(e))}", file=sys.stderr)
        return 1
    except SparkStartError as e:
        print(f"error: {_one_line(str(e))}", file=sys.stderr)
        return 2
    except JobFailed as e:
        where = f" (Spark's log: {opts.log})" if opts.log else ""
        print(f"error: the job failed: {_one_line(str(e))}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - no stack trace for the user: one line, the details in the log
        where = f" (Spark's log: {opts.log})" if opts.log else ""
        print(f"error: the job failed: {_one_line(spark_error_line(e))}{where}", file=sys.stderr)
        if opts.log:
            import traceback

            try:
                with open(opts.log, "a", encoding="utf-8", errors="backslashreplace") as f:
                    f.write("rebalance-codec pipeline: the job failed\n" + traceback.format_exc())
            except OSError:
                pass
        return 2
    print_summary(summary)
    return 0


def print_summary(summary: dict, file=None) -> None:
    """The run's accounting and tables, as the command prints them."""
    file = file or sys.stdout
    c = summary["counts"]
    out = summary["output"]
    holds = c["records_read"] == c["not_selected"] + c["decoded"] + c["quarantined"]
    print(
        f"{c['records_read']} records read = {c['not_selected']} not selected + {c['decoded']} decoded + "
        f"{c['quarantined']} quarantined" + ("" if holds else "  (DOES NOT ADD UP)"),
        file=file,
    )
    reasons = summary.get("not_selected_by_reason") or {}
    if reasons:
        shown = list(reasons.items())[:6]
        more = sum(n for _, n in list(reasons.items())[6:])
        print(
            "  not selected: "
            + ", ".join(f"{n} {_one_line(r)}" for r, n in shown)
            + (f", {more} other" if more else ""),
            file=file,
        )
    for name, n in summary["tables"].items():
        print(f"  {name:12} {n:8d} rows   {out}/{name}", file=file)
    print(f"  report                      {out}/report.html  (and report.json)", file=file)


def main(argv: list[str] | None = None) -> int:
    """``spark-submit .../codec/pipeline/submit.py`` and ``python -m codec.pipeline.submit``: the ``pipeline``
    subcommand."""
    p = argparse.ArgumentParser(prog="rebalance-codec pipeline", description=_DESCRIPTION)
    _add_arguments(p)
    return run(p.parse_args(argv))
