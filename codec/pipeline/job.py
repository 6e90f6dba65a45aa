"""The Spark job: read captured records, decode them on the executors, write the tables and the report.

Run it through the CLI (``rebalance-codec pipeline INPUT... --out DIR``), or under ``spark-submit``
with this file as the application (``spark-submit .../codec/pipeline/job.py INPUT... --out DIR``),
or call :func:`run` with a SparkSession of your own.

Plan: inputs (JSONL/Parquet, any URI Spark reads) -> :func:`normalize` to the canonical input columns
(:data:`codec.pipeline.arrow.INPUT_COLUMNS`) -> a scalar Arrow UDF (:func:`codec.pipeline.arrow.decode_arrays`)
-> decoded units, persisted once -> the tables (:mod:`codec.pipeline.tables`) -> Parquet under a
staging directory next to ``--out`` -> the counts check -> report -> one rename into place. A run that
fails at any point deletes its staging directory, so ``--out`` is either absent (or the previous
run's output, with ``--overwrite``) or complete.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.pandas.types import from_arrow_type

from .arrow import CONTEXT_COLUMNS, DECODE_COLUMNS, UNITS, decode_udf, flat_columns
from .command import _add_arguments as add_arguments
from .report import render_html, render_json
from .tables import PARTITIONED, Config, derive_tables

__all__ = ["Options", "PipelineError", "build_session", "normalize", "read_inputs", "decode", "run", "main",
           "TABLES"]

#: Arrow Java's unchecked buffer access; for a cluster, pass them as spark.executor.extraJavaOptions
ARROW_JAVA_OPTS = "-Darrow.enable_unsafe_memory_access=true -Darrow.enable_null_check_for_get=false"

TABLES = ("members", "task_lags", "assignments", "rebalances", "findings", "quarantine")
_JSON_EXT = (".jsonl", ".json", ".ndjson", ".jsonl.gz", ".json.gz", ".ndjson.gz")


class PipelineError(RuntimeError):
    """The job refused to commit its output (bad input, failed counts check)."""


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


def _say(opts: Options, msg: str, t0: float) -> None:
    if not opts.quiet:
        print(f"[pipeline {time.monotonic() - t0:6.1f}s] {msg}", file=sys.stderr, flush=True)


# --- session -------------------------------------------------------------------------------------------------


def _under_spark_submit() -> bool:
    return "PYSPARK_GATEWAY_PORT" in os.environ


def build_session(opts: Options) -> SparkSession:
    """A session for the job: ``local[*]`` with laptop settings unless ``--master`` is given or the job
    runs under spark-submit (then the submitter's settings apply). Nothing is resolved at run time."""
    b = SparkSession.builder.appName("rebalance-codec pipeline")
    local = not _under_spark_submit() and (opts.master is None or opts.master.startswith("local"))
    if not _under_spark_submit():
        b = b.master(opts.master or "local[*]")
    if local:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        log4j = Path(__file__).with_name("log4j2.properties")
        # the serial collector (one process, a laptop's cores); the full JIT: C1 alone saved nothing on the
        # bundled samples (31-35 s either way) and cost ~2.5 us per record on 200,000 (bench_pipeline);
        # Arrow without per-access bounds checks (a tenth of the JVM's time reading the decoder's
        # batches, which pyarrow built and validated)
        java_opts = (f"-XX:+UseSerialGC {ARROW_JAVA_OPTS} "
                     f"-Dlog4j2.configurationFile={log4j.as_uri()}")
        b = (b.config("spark.driver.memory", opts.driver_memory)
             .config("spark.driver.extraJavaOptions", java_opts)
             .config("spark.sql.shuffle.partitions", str(opts.shuffle_partitions or max(2, os.cpu_count() or 2))))
    elif opts.shuffle_partitions:
        b = b.config("spark.sql.shuffle.partitions", str(opts.shuffle_partitions))
    b = (b.config("spark.ui.enabled", "true" if opts.ui else "false")
         .config("spark.ui.showConsoleProgress", "true" if opts.progress and sys.stderr.isatty() else "false")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.adaptive.enabled", "true")
         .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false"))
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    if opts.ship_code:
        _ship_code(spark)
    return spark


def _ship_code(spark: SparkSession) -> None:
    """Send the codec and construct (pure Python) to the executors, for clusters without them."""
    import tempfile
    import zipfile

    import construct

    import codec

    path = Path(tempfile.mkdtemp(prefix="rebalance-codec-")) / "rebalance_codec_code.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for pkg in (codec, construct):
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


# --- input ---------------------------------------------------------------------------------------------------


def _is_json(path: str, fmt: str | None) -> bool:
    if fmt:
        return fmt in ("jsonl", "json")
    return path.lower().endswith(_JSON_EXT)


def _col(df: DataFrame, *names: str):
    for n in names:
        if n in df.columns:
            return F.col(f"`{n}`")
    return None


def _str(df, *names):
    c = _col(df, *names)
    return c.cast("string") if c is not None else F.lit(None).cast("string")


def _int(df, *names):
    cols = [_col(df, n) for n in names]
    cols = [c.try_cast("int") for c in cols if c is not None]  # ANSI mode: a bad value must not fail the job
    return F.coalesce(*cols) if len(cols) > 1 else (cols[0] if cols else F.lit(None).cast("int"))


def _binary_or_hex(df: DataFrame, name: str):
    """(binary column, hex column) for ``name``, whichever type it has."""
    if name not in df.columns:
        return None, None
    t = df.schema[name].dataType
    if isinstance(t, T.BinaryType):
        return F.col(f"`{name}`"), None
    return None, F.col(f"`{name}`").cast("string")


def normalize(df: DataFrame, source: str | None = None) -> DataFrame:
    """Any supported input shape -> the canonical columns plus ``selected`` (see the package docstring)."""
    cols = set(df.columns)
    src = F.lit(source) if source else F.input_file_name()
    data, hex_ = _binary_or_hex(df, "data")
    if "hex" in cols:
        hex_ = F.coalesce(*(c for c in (hex_, F.col("hex").cast("string")) if c is not None))
    kv = {"key", "value"} <= cols
    if kv:
        vdata, vhex = _binary_or_hex(df, "value")
        data = F.coalesce(*(c for c in (data, vdata) if c is not None)) if vdata is not None else data
        hex_ = F.coalesce(*(c for c in (hex_, vhex) if c is not None)) if vhex is not None else hex_
    kind = [F.col("kind").cast("string")] if "kind" in cols else []
    if "api_key" in cols:
        kind.append(F.when(F.col("api_key").isNotNull(), F.lit("frame")))
    if kv:
        kind.append(F.lit("group-metadata"))
    kind_col = F.coalesce(*kind) if len(kind) > 1 else (kind[0] if kind else F.lit(None).cast("string"))

    ts_name = "timestamp" if "timestamp" in cols else ("ts_ms" if "ts_ms" in cols else None)
    if ts_name is not None:
        ts_col, t = F.col(f"`{ts_name}`"), df.schema[ts_name].dataType
        if isinstance(t, (T.TimestampType, T.TimestampNTZType)):
            ts = F.unix_millis(ts_col.cast("timestamp"))
        elif isinstance(t, T.StringType):  # epoch milliseconds as text, or an ISO-8601 time
            ts = F.coalesce(F.expr(f"try_cast(`{ts_name}` AS BIGINT)"), F.unix_millis(F.try_to_timestamp(ts_col)))
        else:
            ts = ts_col.try_cast("bigint")
    elif "ts" in cols:
        ts = (F.col("ts").try_cast("double") * 1000).try_cast("bigint")
    else:
        ts = F.lit(None).cast("bigint")

    # years 1-9999 only: anything else is not a time, and would overflow timestamp_millis later
    ts = F.when(ts.between(-62_135_596_800_000, 253_402_300_799_999), ts)
    key = F.lit(None).cast("binary")
    if "key" in cols:
        kt = df.schema["key"].dataType
        key = F.col("key") if isinstance(kt, T.BinaryType) else F.unhex(F.col("key").cast("string"))
    link = F.lit(None).cast("string")
    conn = "conn" if "conn" in cols else ("connection" if "connection" in cols else None)
    if conn and "correlation_id" in cols:
        parts = [c for c in ("run", "scenario") if c in cols] + [conn, "correlation_id"]
        link = F.when(F.col(conn).isNotNull() & F.col("correlation_id").isNotNull(),
                      F.concat_ws("|", src, *[F.col(c).cast("string") for c in parts]))
    rid = _col(df, "record_id", "id")
    # its own column first: inside coalesce() the id would be generated only for the rows that need it
    df = df.withColumn("__row", F.monotonically_increasing_id())
    out = df.select(
        (rid.cast("string") if rid is not None else F.lit(None).cast("string")).alias("record_id"),
        src.alias("source"), _str(df, "group", "group_id").alias("group"),
        _str(df, "member", "member_id").alias("member"),
        _int(df, "generation", "generation_id").alias("generation"), kind_col.alias("kind"),
        _int(df, "version", "api_version").alias("version"), ts.alias("ts_ms"),
        (hex_ if hex_ is not None else F.lit(None).cast("string")).alias("hex"),
        (data if data is not None else F.lit(None).cast("binary")).alias("data"),
        _int(df, "api_key").alias("api_key"), _str(df, "direction").alias("direction"),
        _int(df, "body_offset").alias("body_offset"), key.alias("key"), _str(df, "protocol").alias("protocol"),
        _str(df, "leader").alias("leader"), link.alias("link"), F.col("__row"), _str(df, "type").alias("__type"))
    out = out.withColumn("record_id", F.coalesce(
        F.col("record_id"), F.concat(F.col("source"), F.lit(":"), F.col("__row").cast("string")))).drop("__row")
    selected = F.lit(True)
    if "type" in cols:  # `capture --json` also writes generation and summary lines: only frames are records
        selected = F.col("__type").isNull() | (F.col("__type") == "frame")
    if "api_key" in cols:
        selected = selected & ((F.col("kind") != "frame") | F.col("api_key").isin(11, 14))
    if kv:
        gm = F.substring(F.col("key"), 1, 2) == F.unhex(F.lit("0002"))
        selected = selected & ((F.col("kind") != "group-metadata")
                               | (gm & (F.col("data").isNotNull() | F.col("hex").isNotNull())))
    return out.withColumn("selected", F.coalesce(selected, F.lit(True))).drop("__type")


def read_inputs(spark: SparkSession, inputs: list[str], fmt: str | None = None) -> tuple[DataFrame, bool]:
    """All inputs as one normalized DataFrame, and whether any input has request/response pairing.
    The JSON inputs are read in one pass (one schema inference for all), the Parquet ones in another
    (schemas merged): the union of their columns is what :func:`normalize` sees."""
    frames, linked = [], False
    json_paths = [p for p in inputs if _is_json(p, fmt)]
    parquet_paths = [p for p in inputs if not _is_json(p, fmt)]
    for paths, reader in ((json_paths, lambda ps: spark.read.option("mode", "PERMISSIVE").json(ps)),
                          (parquet_paths, lambda ps: spark.read.option("mergeSchema", "true").parquet(*ps))):
        if not paths:
            continue
        df = reader(paths)
        if "_corrupt_record" in df.columns:  # a line that is not JSON: quarantined with its text
            bad = F.col("_corrupt_record").isNotNull()
            data = F.col("data") if "data" in df.columns and isinstance(df.schema["data"].dataType, T.BinaryType) \
                else F.lit(None).cast("binary")
            df = df.withColumn("kind", F.when(bad, F.lit("not-json"))
                               .otherwise(F.col("kind") if "kind" in df.columns else F.lit(None).cast("string")))
            df = df.withColumn("data", F.when(bad, F.encode(F.col("_corrupt_record"), "UTF-8")).otherwise(data))
        linked |= "correlation_id" in df.columns and bool({"conn", "connection"} & set(df.columns))
        frames.append(normalize(df))
    out = frames[0]
    for df in frames[1:]:
        out = out.unionByName(df)
    return out, linked


# --- decode --------------------------------------------------------------------------------------------------


def decode(records: DataFrame) -> DataFrame:
    """Decoded units, decoded by the executors (:func:`codec.pipeline.arrow.decode_arrays`, a scalar Arrow
    UDF over the bytes and what their decoding needs; the context stays in the JVM), one row per unit, in
    the flat shape the tables are built from (:func:`codec.pipeline.arrow.flat_columns`)."""
    units = F.arrow_udf(decode_udf, from_arrow_type(UNITS))  # (a type, not DDL: no SQL parse per query)
    return records.select(*CONTEXT_COLUMNS, F.inline(units(*DECODE_COLUMNS))).select(*flat_columns(F))


def _fill_from_requests(units: DataFrame) -> DataFrame:
    """Responses do not name their group (or, SyncGroup, member and generation): take them from the
    request with the same connection and correlation id."""
    req = units.filter((F.col("direction") == "request") & (F.col("unit") == 0) & F.col("link").isNotNull()) \
        .groupBy("link").agg(F.first("group", ignorenulls=True).alias("_g"),
                             F.first("member", ignorenulls=True).alias("_m"),
                             F.first("generation", ignorenulls=True).alias("_gen"))
    u = units.join(req, "link", "left")
    is_resp = F.col("direction") == "response"
    return u.withColumn("group", F.coalesce("group", F.when(is_resp, F.col("_g")))) \
        .withColumn("member", F.coalesce("member", F.when(is_resp, F.col("_m")))) \
        .withColumn("generation", F.coalesce("generation", F.when(is_resp, F.col("_gen")))) \
        .drop("_g", "_m", "_gen")


# --- output --------------------------------------------------------------------------------------------------


class _FS:
    """The Hadoop FileSystem of the output URI (local, HDFS, S3A, ... whatever Spark is set up for)."""

    def __init__(self, spark: SparkSession, uri: str) -> None:
        jvm = spark.sparkContext._jvm
        self.Path = jvm.org.apache.hadoop.fs.Path
        self.fs = self.Path(uri).getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())

    def exists(self, p: str) -> bool:
        return self.fs.exists(self.Path(p))

    def delete(self, p: str) -> None:
        self.fs.delete(self.Path(p), True)

    def rename(self, a: str, b: str) -> None:
        if not self.fs.rename(self.Path(a), self.Path(b)):
            raise PipelineError(f"could not rename {a} to {b}")

    def write_text(self, p: str, text: str) -> None:
        out = self.fs.create(self.Path(p), True)
        try:
            out.write(bytearray(text.encode("utf-8")))
        finally:
            out.close()

    def is_empty_dir(self, p: str) -> bool:
        return self.fs.getFileStatus(self.Path(p)).isDirectory() and len(self.fs.listStatus(self.Path(p))) == 0


def _sibling(out: str, tag: str) -> str:
    out = out.rstrip("/")
    head, _, name = out.rpartition("/")
    return f"{head}/.{name}.{tag}-{uuid.uuid4().hex[:12]}" if head else f".{name}.{tag}-{uuid.uuid4().hex[:12]}"


def _write_table(name: str, df: DataFrame, path: str) -> None:
    w = df.write.mode("errorifexists").option("compression", "snappy")
    if name in PARTITIONED:
        w = w.partitionBy("date")
    w.parquet(path)


def _collect_report(spark, units_ok_counts, tables: dict[str, DataFrame]) -> dict:
    members, findings, rebalances, quarantine = (tables[n] for n in ("members", "findings", "rebalances",
                                                                     "quarantine"))
    versions: dict[str, dict[str, int]] = {}
    for r in members.filter(F.col("metadata_version").isNotNull()).groupBy(
            F.coalesce(F.col("date").cast("string"), F.lit("unknown")).alias("d"), "metadata_version").count().collect():
        versions.setdefault(r["d"], {})[str(r["metadata_version"])] = r["count"]
    per_group = [{"group": r["group"], "generations": r["n"]} for r in
                 rebalances.groupBy("group").agg(F.count("*").alias("n")).orderBy(F.desc("n"), "group").limit(30).collect()]
    by_check = {r["check"]: r["count"] for r in findings.groupBy("check").count().orderBy(F.desc("count")).collect()}
    sample = [{k: (v if v is None or isinstance(v, (int, str)) else str(v)) for k, v in r.asDict().items()}
              for r in findings.orderBy("group", "generation", "check", "task", "member").limit(50).collect()]
    qtypes = [r.asDict() for r in quarantine.groupBy("error_type", "kind").agg(F.count("*").alias("records"))
              .orderBy(F.desc("records")).collect()]
    return {"charts": {"versions_by_date": versions, "error_rate_by_date": units_ok_counts,
                       "rebalances_per_group": per_group},
            "findings_by_check": by_check, "sample_findings": sample, "quarantine_by_type": qtypes}


def run(opts: Options, spark: SparkSession | None = None) -> dict:
    """Run the job; returns the summary (also written as report.json). Raises PipelineError, leaving
    nothing behind, when the output cannot be committed."""
    t0 = time.monotonic()
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    own = spark is None
    if own:
        _say(opts, "starting Spark" + (f" ({opts.master})" if opts.master else " (local[*])"), t0)
        spark = build_session(opts)
    fs = _FS(spark, opts.out)
    out = opts.out.rstrip("/")
    if fs.exists(out) and not opts.overwrite and not fs.is_empty_dir(out):
        raise PipelineError(f"{out} exists; pass --overwrite to replace it")
    staging = _sibling(out, "staging")
    units = None
    try:
        _say(opts, f"reading {len(opts.inputs)} input(s)", t0)
        records, linked = read_inputs(spark, opts.inputs, opts.input_format)
        records = records.persist(StorageLevel.MEMORY_AND_DISK)
        sel = {r["selected"]: r["count"] for r in records.groupBy("selected").count().collect()}
        records_in, not_selected = sel.get(True, 0), sel.get(False, 0)
        _say(opts, f"decoding {records_in} records ({not_selected} not selected)", t0)
        units = decode(records.filter(F.col("selected")))
        if linked:
            units = _fill_from_requests(units)
        units = units.persist(StorageLevel.MEMORY_AND_DISK)
        head = units.filter(F.col("unit") == 0).withColumn(
            "date", F.coalesce(F.to_date(F.timestamp_millis("ts_ms")).cast("string"), F.lit("unknown")))
        per_day = head.groupBy("date").agg(F.count("*").alias("records"),
                                           F.count(F.when(F.col("unit_kind") == "quarantine", 1)).alias("quarantined")) \
            .orderBy("date").collect()
        decoded = sum(r["records"] - r["quarantined"] for r in per_day)
        quarantined = sum(r["quarantined"] for r in per_day)
        counts = {"records_read": records_in + not_selected, "not_selected": not_selected, "records_in": records_in,
                  "decoded": decoded, "quarantined": quarantined}
        _say(opts, f"{decoded} decoded, {quarantined} quarantined", t0)
        if records_in != decoded + quarantined:
            raise PipelineError(f"records in ({records_in}) != decoded ({decoded}) + quarantined ({quarantined})")
        rows = {}

        def materialize(name: str, df: DataFrame) -> DataFrame:
            _say(opts, f"writing {name}", t0)
            _write_table(name, df, f"{staging}/{name}")
            back = spark.read.parquet(f"{staging}/{name}")
            rows[name] = back.count()
            return back

        tables = derive_tables(units, opts.config, materialize)
        q_rows = rows["quarantine"]
        if q_rows != quarantined:
            raise PipelineError(f"quarantine holds {q_rows} rows, expected {quarantined}")
        summary = {"started": started, "inputs": list(opts.inputs), "output": out,
                   "spark": {"master": spark.sparkContext.master, "version": spark.version,
                             "default_parallelism": spark.sparkContext.defaultParallelism},
                   "config": {"acceptable_recovery_lag": opts.config.acceptable_recovery_lag,
                              "num_standby_replicas": opts.config.num_standby_replicas,
                              "max_warmup_replicas": opts.config.max_warmup_replicas},
                   "counts": counts, "counts_check": "records_in == decoded + quarantined", "tables": rows}
        _say(opts, "report", t0)
        summary.update(_collect_report(spark, [r.asDict() for r in per_day], tables))
        summary["seconds"] = round(time.monotonic() - t0, 2)
        fs.write_text(f"{staging}/report.json", render_json(summary))
        fs.write_text(f"{staging}/report.html", render_html(summary))
        # commit: one rename (the previous output, with --overwrite, is moved aside first)
        old = None
        if fs.exists(out):
            old = _sibling(out, "old")
            fs.rename(out, old)
        fs.rename(staging, out)
        if old:
            fs.delete(old)
        _say(opts, f"done: tables and report in {out} (report.html)", t0)
        return summary
    except BaseException:
        try:
            fs.delete(staging)
        except Exception:  # pragma: no cover - best effort; the original error matters more
            pass
        raise
    finally:
        if units is not None:
            units.unpersist()
        if own:
            spark.stop()


# --- command line (shared by the CLI subcommand and spark-submit) ---------------------------------------------


def options_from_args(args) -> Options:
    return Options(inputs=args.inputs, out=args.out, master=args.master, input_format=args.input_format,
                   overwrite=args.overwrite,
                   config=Config(args.acceptable_recovery_lag, args.num_standby_replicas, args.max_warmup_replicas),
                   shuffle_partitions=args.shuffle_partitions, driver_memory=args.driver_memory, ui=args.ui,
                   ship_code=args.ship_code, quiet=args.quiet)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="rebalance-codec pipeline", description=__doc__.split("\n\n")[0])
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        summary = run(options_from_args(args))
    except PipelineError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    c = summary["counts"]
    print(f"{c['records_in']} records: {c['decoded']} decoded, {c['quarantined']} quarantined; "
          f"tables and report in {summary['output']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
