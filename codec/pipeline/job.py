"""The Spark job: read captured records, decode them on the executors, write the tables and the report.

Run it through the CLI (``rebalance-codec pipeline INPUT... --out DIR``), or under ``spark-submit``
with :mod:`codec.pipeline.submit` as the application (``spark-submit .../codec/pipeline/submit.py INPUT...
--out DIR``), or call :func:`run` with a SparkSession of your own.

Plan: inputs (JSONL/Parquet, any URI Spark reads), each record with its file and line or row
(:mod:`codec.pipeline.reading`) -> :func:`normalize` to the canonical input columns
(:data:`codec.pipeline.arrow.INPUT_COLUMNS`) -> ``mapInArrow`` (:func:`codec.pipeline.arrow.decode_batches`)
-> decoded units, persisted once -> the tables (:mod:`codec.pipeline.tables`) -> Parquet under a
staging directory next to ``--out`` -> the counts check -> report -> one rename into place
(:mod:`codec.pipeline.output`: never over an input, through a link, locked, replacing nothing that appeared
meanwhile without ``--overwrite``). A run that fails at any point deletes its staging directory, so ``--out``
is either absent (or the previous run's output, with ``--overwrite``) or complete.

Which reader reads which input is decided first (:mod:`codec.pipeline.inputs`: by extension, by content,
directories by their files). Every record read is accounted for: the job checks ``records read = not
selected + decoded + quarantined`` (the not-selected ones counted by reason) and refuses to commit
otherwise. Bad input -- a missing path, a format that cannot be told, a file its reader cannot read --
is a :class:`PipelineError` with one line for the user; a JVM that dies while the job runs, a
:class:`JobFailed` with its first cause, read from the log (:mod:`codec.pipeline.failure`). A session the job
starts itself writes Spark's and the JVM's log (and their stdout and stderr, and Py4J's and PySpark's Python
logs) to a file (``--log``), not to the terminal.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import from_arrow_schema

from .arrow import FLAT, INPUT_COLUMNS, decode_batches
from .consumerchecks import KIP848_NOT_JUDGED
from .failure import (
    JobFailed,
    PipelineError,
    SparkStartError,
    gateway_gone,
    jvm_death,
    jvm_out_of_memory,
    jvm_start_error,
    spark_error_line,
)
from .inputs import InputPlan, is_uri, local_only
from .output import LocalTarget, clash, local_path, sibling
from .reading import DEFAULT_MAX_LINE, normalize, plan, read_inputs
from .report import render_html, render_json
from .reportcauses import cause_charts, member_versions
from .tables import PARTITIONED, Config, derive_tables

__all__ = [
    "Options",
    "PipelineError",
    "SparkStartError",
    "JobFailed",
    "build_session",
    "normalize",
    "plan",
    "read_inputs",
    "decode",
    "run",
    "options_from_args",
    "TABLES",
    "spark_error_line",
    "default_log_path",
]

#: Arrow Java's unchecked buffer access; for a cluster, pass them as spark.executor.extraJavaOptions
ARROW_JAVA_OPTS = "-Darrow.enable_unsafe_memory_access=true -Darrow.enable_null_check_for_get=false"

TABLES = (
    "members",
    "task_lags",
    "assignments",
    "rebalances",
    "connect",
    "offsets",
    "share_state",
    "findings",
    "quarantine",
)


@dataclass
class Options:
    inputs: list[str]
    out: str
    master: str | None = None
    input_format: str | None = None  # jsonl | parquet | None (by extension)
    overwrite: bool = False
    config: Config = field(default_factory=Config)
    shuffle_partitions: int | None = None
    driver_memory: str = "2g"
    ui: bool = False
    progress: bool = True
    ship_code: bool = False
    quiet: bool = False
    log: str | None = None  # the Spark/JVM log of a session the job starts (default: default_log_path())
    max_line: int = DEFAULT_MAX_LINE  # the longest JSON line read (bytes); a longer one is quarantined
    plan: InputPlan | None = None  # the inputs' plan, when made before Spark started (the CLI does for local ones)


def _say(opts: Options, msg: str, t0: float) -> None:
    if not opts.quiet:
        print(f"[pipeline {time.monotonic() - t0:6.1f}s] {msg}", file=sys.stderr, flush=True)


# --- session -------------------------------------------------------------------------------------------------


def _under_spark_submit() -> bool:
    return "PYSPARK_GATEWAY_PORT" in os.environ


def _local_master(opts: Options) -> bool:
    return not _under_spark_submit() and (opts.master is None or opts.master.startswith("local"))


def default_log_path() -> str:
    """Where a session the job starts writes Spark's log and the JVM's output, unless ``--log`` says."""
    return os.path.join(
        tempfile.gettempdir(), f"rebalance-codec-pipeline-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    )


def build_session(opts: Options) -> SparkSession:
    """A session for the job: ``local[*]`` with laptop settings unless ``--master`` is given or the job
    runs under spark-submit (then the submitter's settings apply). Nothing is resolved at run time.

    A JVM started here logs to ``opts.log`` (set to :func:`default_log_path` when unset): Spark's log4j
    log (warnings and errors) and everything the JVM and the Python workers write to stdout and stderr.
    A JVM that exits before PySpark can talk to it is a :class:`SparkStartError` with its reason."""
    b = SparkSession.builder.appName("rebalance-codec pipeline")
    local = _local_master(opts)
    submitted = _under_spark_submit()
    log: str | None = None  # the log of a JVM started here (none under spark-submit)
    if not submitted:
        b = b.master(opts.master or "local[*]")
        log = opts.log = opts.log or default_log_path()
        log4j = Path(__file__).with_name("log4j2.properties")
        log_opts = f'-Dlog4j2.configurationFile={log4j.as_uri()} "-Drebalance_codec.log={log}"'
        # the serial collector (one process, a laptop's cores); the full JIT: C1 alone saved nothing on the
        # bundled samples (31-35 s either way) and cost ~2.5 us per record on 200,000 (bench_pipeline);
        # Arrow without per-access bounds checks (a tenth of the JVM's time reading the decoder's
        # batches, which pyarrow built and validated)
        b = b.config(
            "spark.driver.extraJavaOptions", f"-XX:+UseSerialGC {ARROW_JAVA_OPTS} {log_opts}" if local else log_opts
        )
    if local:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        b = b.config("spark.driver.memory", opts.driver_memory).config(
            "spark.sql.shuffle.partitions", str(opts.shuffle_partitions or max(2, os.cpu_count() or 2))
        )
    elif opts.shuffle_partitions:
        b = b.config("spark.sql.shuffle.partitions", str(opts.shuffle_partitions))
    b = (
        b.config("spark.ui.enabled", "true" if opts.ui else "false")
        .config(
            "spark.ui.showConsoleProgress", "true" if submitted and opts.progress and sys.stderr.isatty() else "false"
        )
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.adaptive.enabled", "true")
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    )
    if log is None:
        spark = b.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
    else:
        try:
            start = os.path.getsize(log)
        except OSError:
            start = 0
        _python_logs_to(log)
        try:
            spark = _with_output_to(log, b.getOrCreate)
        except Exception as e:
            reason = jvm_start_error(log, start) if "JAVA_GATEWAY_EXITED" in str(e) else None
            if reason is None:
                raise
            raise SparkStartError(f"Spark did not start: {reason} (Spark's log: {log})") from e
    if opts.ship_code:
        _ship_code(spark)
    return spark


def _python_logs_to(path: str) -> None:
    """Send what Py4J and PySpark log in this process to the job's log file, as the JVM's own goes: Py4J logs a
    lost gateway through the root logger (which, unconfigured, would print a traceback on the terminal), and
    PySpark its query errors through loggers of its own that write to stderr. A root logger the program has
    set up is left as it is."""
    import logging

    from pyspark.logger import PySparkLogger

    def to_file() -> logging.Handler:
        h = logging.FileHandler(path, encoding="utf-8", errors="backslashreplace", delay=True)
        h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        return h

    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(to_file())
    for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger"):
        logger = PySparkLogger.getLogger(name)
        for h in list(logger.handlers):
            logger.removeHandler(h)
        logger.addHandler(to_file())  # (PySpark's loggers write JSON)


def _with_output_to(path: str, start):
    """``start()`` with file descriptors 1 and 2 pointing at ``path``: the JVM it launches (and the Python
    workers the JVM forks) inherit them, so their output goes to the log file (the JVM writes some of its
    start-up errors to its stdout); this process's stdout and stderr are restored."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    saved = [os.dup(1), os.dup(2)]
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        return start()
    finally:
        for target, copy in zip((1, 2), saved):
            os.dup2(copy, target)
            os.close(copy)
        os.close(fd)


def _ship_code(spark: SparkSession) -> None:
    """Send the codec and construct (pure Python) to the executors, for clusters without them."""
    import tempfile
    import zipfile

    import construct

    import codec

    path = Path(tempfile.mkdtemp(prefix="rebalance-codec-")) / "rebalance_codec_code.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for pkg in (codec, construct):
            assert pkg.__file__ is not None  # both are regular packages, imported from their files
            root = Path(pkg.__file__).parent
            for f in root.rglob("*"):
                if f.is_file() and "__pycache__" not in f.parts:
                    z.write(f, Path(pkg.__name__) / f.relative_to(root))
        from codec.wire.schema import _schema_dir

        sdir = Path(str(_schema_dir()))
        for f in sdir.glob("*.json"):
            z.write(f, Path("codec/schemas") / f.name)
        z.writestr("codec/schemas/__init__.py", "")
    spark.sparkContext.addPyFile(str(path))


# --- decode --------------------------------------------------------------------------------------------------


def decode(records: DataFrame) -> DataFrame:
    """Decoded units, decoded by the executors (:func:`codec.pipeline.arrow.decode_batches` under
    ``mapInArrow``: the input columns in, one flat row per unit out, its record's context already over it),
    in the shape the tables are built from (:data:`codec.pipeline.arrow.FLAT`). An input column that is null
    on every row by construction stays in the JVM (writing it to Arrow cost ~0.7 us per record for the nine
    such columns of a bare Parquet input, bench_pipeline.py)."""
    absent = _null_columns(records.select(*INPUT_COLUMNS))
    return records.select(*(c for c in INPUT_COLUMNS if c not in absent)).mapInArrow(decode_batches, _FLAT)


def _null_columns(df: DataFrame) -> set[str]:
    """The columns of ``df`` that are null on every row by construction -- :func:`normalize`'s for a field no
    input has (``hex`` next to binary ``data``, ``link`` without connections ...) -- as Spark's optimized plan
    shows them (``null AS hex`` in its top projection): they need not cross into Python (the executors take a
    missing column as all null). Any other plan, or a plan that cannot be read: none."""
    try:
        plan = df._jdf.queryExecution().optimizedPlan()
        if plan.getClass().getSimpleName() != "Project":
            return set()
        out = set()
        exprs = plan.projectList().iterator()
        while exprs.hasNext():
            e = exprs.next()
            if e.getClass().getSimpleName() == "Alias":
                value = e.child()
                if value.getClass().getSimpleName() == "Literal" and value.value() is None:
                    out.add(str(e.name()))
        return out
    except Exception:  # noqa: BLE001 - a plan of another shape (Spark Connect has no _jdf): send every column
        return set()


#: the decoded units' Spark schema (converted once: no conversion, nor SQL parse, per query)
_FLAT = from_arrow_schema(FLAT)


def _fill_from_requests(units: DataFrame) -> DataFrame:
    """Responses do not name their group (or, SyncGroup, member and generation; JoinGroup below v7 and SyncGroup
    below v5, the protocol type): take them from the request with the same connection and correlation id."""
    req = (
        units.filter((F.col("direction") == "request") & (F.col("unit") == 0) & F.col("link").isNotNull())
        .groupBy("link")
        .agg(
            F.first("group", ignorenulls=True).alias("_g"),
            F.first("member", ignorenulls=True).alias("_m"),
            F.first("generation", ignorenulls=True).alias("_gen"),
            F.first("protocol_type", ignorenulls=True).alias("_pt"),
        )
    )
    u = units.join(req, "link", "left")
    is_resp = F.col("direction") == "response"
    # (the protocol type is a group unit's field: the others keep theirs, null)
    is_group = is_resp & (F.col("unit_kind") == "group")
    return (
        u.withColumn("group", F.coalesce("group", F.when(is_resp, F.col("_g"))))
        .withColumn("member", F.coalesce("member", F.when(is_resp, F.col("_m"))))
        .withColumn("generation", F.coalesce("generation", F.when(is_resp, F.col("_gen"))))
        .withColumn("protocol_type", F.coalesce("protocol_type", F.when(is_group, F.col("_pt"))))
        .drop("_g", "_m", "_gen", "_pt")
    )


# --- output --------------------------------------------------------------------------------------------------


class _FS:
    """The Hadoop FileSystem of the output URI (local, HDFS, S3A, ... whatever Spark is set up for)."""

    def __init__(self, spark: SparkSession, uri: str) -> None:
        self.spark = spark
        jvm = spark.sparkContext._jvm
        assert jvm is not None  # a session's context holds its JVM gateway while it runs
        self.Path = jvm.org.apache.hadoop.fs.Path
        self.fs = self.Path(uri).getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())

    def exists(self, p: str) -> bool:
        return self.fs.exists(self.Path(p))

    def delete(self, p: str) -> None:
        self.fs.delete(self.Path(p), True)

    def refuse_clash(self, out: str, inputs: list[str]) -> None:
        """A :class:`PipelineError` when ``out`` is, holds or lies inside one of ``inputs`` (qualified paths)."""
        mine = self.fs.makeQualified(self.Path(out)).toString().rstrip("/")
        for given in inputs:
            other = self.fs.makeQualified(self.Path(given)).toString().rstrip("/")
            if mine == other or mine.startswith(other + "/") or other.startswith(mine + "/"):
                raise PipelineError(
                    f"--out {out} is, holds or lies inside the input {given}; write the output elsewhere"
                )

    def commit(self, staging: str, out: str, overwrite: bool) -> None:
        """Move ``staging`` to ``out`` with Hadoop's ``FileContext.rename`` without ``OVERWRITE``, which refuses
        an existing destination (``FileSystem.rename`` would move it *into* one): an output that appeared
        meanwhile is an error, left as it is, unless ``overwrite``, which moves the old one aside first."""
        jvm, gateway = self.spark.sparkContext._jvm, self.spark.sparkContext._gateway
        assert jvm is not None and gateway is not None  # (a running session's)
        fc = jvm.org.apache.hadoop.fs.FileContext.getFileContext(
            self.Path(out).toUri(), self.spark.sparkContext._jsc.hadoopConfiguration()
        )
        none = gateway.new_array(jvm.org.apache.hadoop.fs.Options.Rename, 1)
        none[0] = jvm.org.apache.hadoop.fs.Options.Rename.NONE

        def rename(a: str, b: str) -> None:
            fc.rename(self.Path(a), self.Path(b), none)

        if self.exists(out) and self.is_empty_dir(out):
            self.fs.delete(self.Path(out), False)  # (an empty folder counts as absent; a full one is not deleted)
        try:
            rename(staging, out)
            return
        except Exception as e:  # noqa: BLE001 - FileAlreadyExistsException, through Py4J
            if not self.exists(out):
                raise PipelineError(f"cannot move the output into {out}: {spark_error_line(e)}") from None
            if not overwrite:
                raise PipelineError(
                    f"{out} appeared while the job ran and was left as it is; pass --overwrite to replace it"
                ) from None
        aside = sibling(out, "old")
        rename(out, aside)
        try:
            rename(staging, out)
        except Exception as e:  # noqa: BLE001 - the old output back where it was
            rename(aside, out)
            raise PipelineError(f"cannot move the output into {out}: {spark_error_line(e)}") from None
        self.delete(aside)

    def write_text(self, p: str, text: str) -> None:
        out = self.fs.create(self.Path(p), True)
        try:
            out.write(bytearray(text.encode("utf-8")))
        finally:
            out.close()

    def has_data_file(self, p: str) -> bool:
        """A Parquet part file directly in ``p`` (not hidden)."""
        return any(
            not s.getPath().getName().startswith(("_", ".")) and s.isFile() for s in self.fs.listStatus(self.Path(p))
        )

    def is_empty_dir(self, p: str) -> bool:
        return self.fs.getFileStatus(self.Path(p)).isDirectory() and len(self.fs.listStatus(self.Path(p))) == 0


def _write_table(name: str, df: DataFrame, path: str) -> None:
    w = df.write.mode("errorifexists").option("compression", "snappy")
    if name in PARTITIONED:
        w = w.partitionBy("date")
    w.parquet(path)


def _write_schema_file(spark: SparkSession, df: DataFrame, path: str) -> None:
    """An empty partitioned table has no partition, so Spark writes no file (nor, in some versions, for an
    empty unpartitioned one): write its schema as one empty Parquet file at the table's top, ``date`` in
    it as text (what readers infer from ``date=...`` directories), so that Spark, pyarrow and pandas all
    read the table back with its columns."""
    if "date" in df.columns:
        df = df.withColumn("date", F.col("date").cast("string"))
    spark.createDataFrame([], df.schema).coalesce(1).write.mode("append").option("compression", "snappy").parquet(path)


def _collect_report(spark, units_ok_counts, tables: dict[str, DataFrame]) -> dict:
    members, findings, rebalances, quarantine = (tables[n] for n in ("members", "findings", "rebalances", "quarantine"))
    versions: dict[str, dict[str, int]] = {}
    for r in (
        members.filter(F.col("metadata_version").isNotNull())
        .groupBy(F.coalesce(F.col("date").cast("string"), F.lit("unknown")).alias("d"), "metadata_version")
        .count()
        .collect()
    ):
        versions.setdefault(r["d"], {})[str(r["metadata_version"])] = r["count"]
    per_group = [
        {"group": r["group"], "generations": r["n"]}
        for r in rebalances.groupBy("group")
        .agg(F.count("*").alias("n"))
        .orderBy(F.desc("n"), "group")
        .limit(30)
        .collect()
    ]
    by_cause, per_minute = cause_charts(rebalances, [g["group"] for g in per_group])
    by_check = {r["check"]: r["count"] for r in findings.groupBy("check").count().orderBy(F.desc("count")).collect()}
    sample = [
        {k: (v if v is None or isinstance(v, (int, str)) else str(v)) for k, v in r.asDict().items()}
        for r in findings.orderBy("group", "generation", "check", "task", "member").limit(50).collect()
    ]
    qtypes = [
        r.asDict()
        for r in quarantine.groupBy("error_type", "kind")
        .agg(F.count("*").alias("records"))
        .orderBy(F.desc("records"))
        .collect()
    ]
    consumer = {"generations_checked": 0, "not_checked": 0, "not_checked_sample": []}
    if "consumer_checks" in tables:  # (codec.pipeline.consumerchecks: which generations it could not check, why)
        v = tables["consumer_checks"].filter(F.col("check").isNull())  # (persisted: computed once, in the tables)
        consumer["generations_checked"] = v.filter(F.col("checked")).count()
        nc = v.filter(~F.col("checked"))
        consumer["not_checked"] = nc.count()
        consumer["not_checked_sample"] = [
            r.asDict()
            for r in nc.select("group", "generation", "why").orderBy("group", "generation").limit(50).collect()
        ]
    # a KIP-848 group's epochs are judged for partition-unowned where the input shows them settled (their verdicts
    # above; partition-owned-twice at every epoch); what no input can judge is whether the broker's assignor gave
    # its own answer: the broker computes it from state the wire does not carry whole
    k848 = rebalances.filter(F.col("group_protocol") == "consumer").select("group").distinct().orderBy("group")
    consumer["kip848_not_judged"] = {
        "check": "not-the-assignors-assignment",
        "why": KIP848_NOT_JUDGED,
        "groups": [r["group"] for r in k848.limit(50).collect()],
    }
    return {
        "consumer_assignor_checks": consumer,
        "charts": {
            "versions_by_date": versions,
            "error_rate_by_date": units_ok_counts,
            "rebalances_per_group": per_group,
            "rebalances_by_cause": by_cause,
            "rebalances_per_minute": per_minute,
            "member_versions_by_date": member_versions(members, rebalances),
        },
        "findings_by_check": by_check,
        "sample_findings": sample,
        "quarantine_by_type": qtypes,
    }


def _count_inputs(records: DataFrame) -> tuple[int, dict[str, int]]:
    """(records read, {reason a record is not selected: count})."""
    read, reasons = 0, {}
    for r in records.groupBy("skip_reason").count().collect():
        read += r["count"]
        if r["skip_reason"] is not None:
            reasons[r["skip_reason"]] = r["count"]
    return read, dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))


def run(opts: Options, spark: SparkSession | None = None) -> dict:
    """Run the job; returns the summary (also written as report.json). Raises PipelineError, leaving
    nothing behind, on bad input or when the output cannot be committed."""
    try:
        return _run(opts, spark)
    finally:
        _release_plans()  # (the run's own frame gone: what it held in cycles is garbage now)


def _run(opts: Options, spark: SparkSession | None) -> dict:
    t0 = time.monotonic()
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    own = spark is None
    the_plan = opts.plan
    out = opts.out.rstrip("/") or opts.out
    target: LocalTarget | None = None  # a local output: its lock, its commit
    if the_plan is None and own and local_only(list(opts.inputs), opts.master):
        the_plan = plan(None, opts.inputs, opts.input_format)  # bad local input: said before Spark starts
    if the_plan is not None and own and local_only([out], opts.master):
        target = _claim(opts, out, the_plan)  # an output it may not write: said before Spark starts
    log_start = 0  # where this run's part of the log begins
    if spark is None:
        opts.log = opts.log or (None if _under_spark_submit() else default_log_path())
        try:
            log_start = os.path.getsize(opts.log) if opts.log else 0
        except OSError:
            pass
        _say(
            opts,
            "starting Spark"
            + (f" ({opts.master})" if opts.master else " (local[*])")
            + (f"; its log: {opts.log}" if opts.log else ""),
            t0,
        )
        try:
            spark = build_session(opts)
        except BaseException:
            if target is not None:
                target.unlock()
            raise
    staging = None
    units = records = None
    tables: dict[str, DataFrame] = {}
    try:
        if the_plan is None:
            the_plan = plan(spark, opts.inputs, opts.input_format)
        if target is None and _local_output(spark, out):
            target = _claim(opts, out, the_plan)
        fs = _FS(spark, "file:" + target.path if target is not None else out)
        if target is None:
            fs.refuse_clash(out, the_plan.roots)
            if fs.exists(out) and not opts.overwrite and not fs.is_empty_dir(out):
                raise PipelineError(f"{out} exists; pass --overwrite to replace it")
        staging = "file:" + sibling(target.path, "staging") if target is not None else sibling(out, "staging")
        _say(opts, f"reading {len(opts.inputs)} input(s)", t0)
        records, linked = read_inputs(spark, the_plan, max_line=opts.max_line)
        records = records.persist(StorageLevel.MEMORY_AND_DISK)
        try:
            records_read, not_selected_by = _count_inputs(records)
        except Exception as e:  # noqa: BLE001 - the first pass over the input: a file its reader cannot read
            raise PipelineError(f"cannot read the input: {spark_error_line(e)}") from None
        not_selected = sum(not_selected_by.values())
        records_in = records_read - not_selected
        _say(opts, f"{records_read} records read; decoding {records_in} ({not_selected} not selected)", t0)
        units = decode(records.filter(F.col("selected")))
        if linked:
            units = _fill_from_requests(units)
        units = units.persist(StorageLevel.MEMORY_AND_DISK)
        head = units.filter(F.col("unit") == 0).withColumn(
            "date", F.coalesce(F.to_date(F.timestamp_millis("ts_ms")).cast("string"), F.lit("unknown"))
        )
        per_day = (
            head.groupBy("date")
            .agg(
                F.count("*").alias("records"),
                F.count(F.when(F.col("unit_kind") == "quarantine", 1)).alias("quarantined"),
            )
            .orderBy("date")
            .collect()
        )
        decoded = sum(r["records"] - r["quarantined"] for r in per_day)
        quarantined = sum(r["quarantined"] for r in per_day)
        counts = {
            "records_read": records_read,
            "not_selected": not_selected,
            "records_in": records_in,
            "decoded": decoded,
            "quarantined": quarantined,
        }
        _say(opts, f"{decoded} decoded, {quarantined} quarantined", t0)
        if records_read != not_selected + decoded + quarantined:
            raise PipelineError(
                f"records read ({records_read}) != not selected ({not_selected}) + decoded "
                f"({decoded}) + quarantined ({quarantined})"
            )
        rows = {}

        def materialize(name: str, df: DataFrame) -> DataFrame:
            _say(opts, f"writing {name}", t0)
            _release_plans()
            path = f"{staging}/{name}"
            _write_table(name, df, path)
            # read back with the written schema: an empty partitioned table has no file yet
            back = spark.read.schema(df.schema).parquet(path)
            rows[name] = back.count()
            if rows[name] == 0:
                if not fs.has_data_file(path):  # (Spark writes an unpartitioned empty table's file itself)
                    _write_schema_file(spark, df, path)
                back = spark.createDataFrame([], df.schema)
            return back

        tables = derive_tables(units, opts.config, materialize)
        q_rows = rows["quarantine"]
        if q_rows != quarantined:
            raise PipelineError(f"quarantine holds {q_rows} rows, expected {quarantined}")
        summary: dict[str, Any] = {
            "started": started,
            "inputs": list(opts.inputs),
            "output": out,
            "spark": {
                "master": spark.sparkContext.master,
                "version": spark.version,
                "default_parallelism": spark.sparkContext.defaultParallelism,
            },
            "config": {
                "acceptable_recovery_lag": opts.config.acceptable_recovery_lag,
                "num_standby_replicas": opts.config.num_standby_replicas,
                "max_warmup_replicas": opts.config.max_warmup_replicas,
                "partitions": dict(opts.config.partitions),
            },
            "counts": counts,
            "counts_check": "records_read == not_selected + decoded + quarantined",
            "not_selected_by_reason": not_selected_by,
            # paths each reader read (a file, or a directory read whole), and empty files left out
            "input_paths": {
                "jsonl": len(the_plan.paths["jsonl"]),
                "parquet": len(the_plan.paths["parquet"]),
                "empty": len(the_plan.empty),
            },
            "tables": rows,
        }
        _say(opts, "report", t0)
        summary.update(_collect_report(spark, [r.asDict() for r in per_day], tables))
        summary["seconds"] = round(time.monotonic() - t0, 2)
        fs.write_text(f"{staging}/report.json", render_json(summary))
        fs.write_text(f"{staging}/report.html", render_html(summary))
        # commit: one rename (the previous output, with --overwrite, is moved aside first)
        if target is not None:
            target.commit(staging[len("file:") :], opts.overwrite)
        else:
            fs.commit(staging, out, opts.overwrite)
        staging = None
        _say(opts, f"done: tables and report in {out} (report.html)", t0)
        if opts.log:
            summary["log"] = opts.log
        return summary
    except BaseException as e:
        if staging is not None:
            try:
                fs.delete(staging)
            except Exception:  # pragma: no cover - best effort; the original error matters more
                pass
        if (
            own
            and opts.log
            and not isinstance(e, KeyboardInterrupt)
            and (gateway_gone(e) or jvm_out_of_memory(opts.log, log_start) or not _alive(spark))
        ):
            # the JVM died: whatever was raised after says only that; its first cause is in the log, which
            # the dying JVM may still be writing as Python hears the cut-off answer (a loaded CI machine)
            _await_death(spark, opts.log, log_start)
            raise JobFailed(jvm_death(opts.log, log_start) or f"the JVM exited ({spark_error_line(e)})") from None
        raise
    finally:
        if target is not None:
            target.unlock()
        for df in (units, records, tables.get("consumer_checks")):  # (the consumer checks' verdicts: persisted)
            if df is not None:
                try:
                    df.unpersist()
                except Exception:  # noqa: BLE001 - a gateway already gone
                    pass
        if own:
            try:
                spark.stop()
            except Exception:  # noqa: BLE001 - a JVM already gone: there is nothing to stop
                pass


def _release_plans() -> None:
    """Let the JVM free the query plans of the DataFrames this process no longer holds. A DataFrame's plan lives in
    the JVM until Python frees the py4j object that stands for it, and every such object that Python called a
    method of is in a reference cycle (py4j keeps its bound methods in the object, each naming the object), freed
    only by Python's cycle collector, which may not run for a long time -- and the plans of a job's queries over
    the units' hundred-odd columns run to hundreds of MB: a session that runs the job again and again (a notebook,
    the tests) filled a 1 GB heap with dead plans, and every query after that crawled through full garbage
    collections (the split run of tests/pipeline/test_provenance.py, after the run before it: 695 s, and 153 s
    with them freed)."""
    gc.collect()


def _local_output(spark: SparkSession, out: str) -> bool:
    """Whether ``out`` is a local path: a ``file:`` URI, or a plain path where the default filesystem is local."""
    if is_uri(out):
        return local_path(out) is not None
    default_fs = spark.sparkContext._jsc.hadoopConfiguration().get("fs.defaultFS") or "file:///"
    return default_fs.startswith("file:")


def _claim(opts: Options, out: str, the_plan: InputPlan) -> LocalTarget:
    """The local output ``out``, checked against the inputs and an existing output, and locked for this run."""
    path = local_path(out) or out
    line = clash(path, [p for p in (local_path(r) for r in the_plan.roots) if p is not None])
    if line is not None:
        raise PipelineError(line)
    target = LocalTarget(path)
    target.lock()
    if target.exists() and not opts.overwrite:
        target.unlock()
        raise PipelineError(f"{out} exists; pass --overwrite to replace it")
    return target


def _await_death(spark: SparkSession, log: str, start: int, limit: float = 20.0) -> None:
    """Wait, at most ``limit`` seconds, until the log after ``start`` holds the JVM's OutOfMemoryError or the
    JVM's process has exited (its last words are then in the log): a dying JVM cuts off its answer to Python
    before it has written why it dies."""
    proc = getattr(getattr(spark.sparkContext, "_gateway", None), "proc", None)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and not jvm_out_of_memory(log, start):
        if proc is None or proc.poll() is not None:
            break
        time.sleep(0.2)


def _alive(spark: SparkSession) -> bool:
    """Whether the session's JVM still answers and its SparkContext still runs (an executor's uncaught error, an
    OutOfMemoryError in local mode, stops the context while the JVM shuts down: what is raised after says only
    that the context is gone)."""
    try:
        jvm = spark.sparkContext._jvm
        return jvm is not None and not spark.sparkContext._jsc.sc().isStopped()
    except Exception:  # noqa: BLE001 - py4j's errors, whatever their kind
        return False


# --- command line (shared by the CLI subcommand and spark-submit) ---------------------------------------------


def options_from_args(args: argparse.Namespace) -> Options:
    return Options(
        inputs=args.inputs,
        out=args.out,
        master=args.master,
        input_format=args.input_format,
        overwrite=args.overwrite,
        config=Config(
            args.acceptable_recovery_lag,
            args.num_standby_replicas,
            args.max_warmup_replicas,
            tuple(getattr(args, "partitions", None) or ()),
        ),
        shuffle_partitions=args.shuffle_partitions,
        driver_memory=args.driver_memory,
        ui=args.ui,
        ship_code=args.ship_code,
        quiet=args.quiet,
        log=args.log,
        max_line=args.max_line_length,
    )
