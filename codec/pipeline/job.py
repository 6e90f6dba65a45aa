"""The Spark job: read captured records, decode them on the executors, write the tables and the report.

Run it through the CLI (``rebalance-codec pipeline INPUT... --out DIR``), or under ``spark-submit``
with :mod:`codec.pipeline.submit` as the application (``spark-submit .../codec/pipeline/submit.py INPUT...
--out DIR``), or call :func:`run` with a SparkSession of your own.

Plan: inputs (JSONL/Parquet, any URI Spark reads) -> :func:`normalize` to the canonical input columns
(:data:`codec.pipeline.arrow.INPUT_COLUMNS`) -> ``mapInArrow`` (:func:`codec.pipeline.arrow.decode_batches`)
-> decoded units, persisted once -> the tables (:mod:`codec.pipeline.tables`) -> Parquet under a
staging directory next to ``--out`` -> the counts check -> report -> one rename into place. A run that
fails at any point deletes its staging directory, so ``--out`` is either absent (or the previous
run's output, with ``--overwrite``) or complete.

Which reader reads which input is decided first (:mod:`codec.pipeline.inputs`: by extension, by content,
directories by their files). Every record read is accounted for: the job checks ``records read = not
selected + decoded + quarantined`` (the not-selected ones counted by reason) and refuses to commit
otherwise. Bad input -- a missing path, a format that cannot be told, a file its reader cannot read --
is a :class:`PipelineError` with one line for the user. A session the job starts itself writes Spark's
and the JVM's log (and their stdout and stderr) to a file (``--log``), not to the terminal.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.pandas.types import from_arrow_schema, from_arrow_type

from .arrow import FLAT, INPUT_COLUMNS, decode_batches
from .inputs import HadoopFiles, InputError, InputPlan, LocalFiles, is_uri, local_only, plan_inputs
from .jsonlines import INPUT_ERROR
from .jsonlines import ROW as JSON_ROW
from .jsonlines import parse_lines
from .report import render_html, render_json
from .reportcauses import cause_charts
from .records import REQUESTS_ONLY, SELECTED_API_KEYS, SELECTED_RECORD_TYPES
from .tables import PARTITIONED, Config, derive_tables

__all__ = [
    "Options",
    "PipelineError",
    "SparkStartError",
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

TABLES = ("members", "task_lags", "assignments", "rebalances", "connect", "findings", "quarantine")


class PipelineError(RuntimeError):
    """The job refused to run or to commit its output: bad input (a missing path, a format that cannot be
    told, a file its reader cannot read), an existing output, a failed counts check. One line."""


class SparkStartError(RuntimeError):
    """The session's JVM did not start (no Java, a heap size the JVM refuses, a master spark-submit refuses
    ...): one line, the JVM's own reason, read from the log it wrote to."""


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


_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d\S* +(TRACE|DEBUG|INFO|WARN)\b")
_MAIN_EXCEPTION = re.compile(r'^Exception in thread "[^"]*" (?:[\w$]+\.)*([\w$]+(?:Exception|Error)): ?(.*)$')


def jvm_start_error(log: str, start: int = 0) -> str | None:
    """Why a session's JVM exited before PySpark could talk to it, from what it wrote to ``log`` after
    byte ``start``: the message of ``Exception in thread "main" ...`` (spark-submit refusing a master ...),
    else its first two lines of output that are neither log lines below ERROR, notices nor stack frames
    (``Invalid maximum heap size: -Xmxxyz``, ``.../bin/java: No such file or directory``). None if it
    wrote nothing of the kind."""
    try:
        with open(log, "rb") as f:
            f.seek(start)
            text = f.read(256 * 1024).decode("utf-8", "replace")
    except OSError:
        return None
    lines: list[str] = []
    for ln in text.splitlines():
        ln = ln.strip()
        m = _MAIN_EXCEPTION.match(ln)
        if m:
            return f"{m.group(1)}: {m.group(2)}" if m.group(2) else m.group(1)
        if (
            ln
            and not _LOG_LINE.match(ln)
            and not ln.startswith(("at ", "... ", "WARNING:", "Picked up ", "Using Spark's default log4j"))
            and len(lines) < 2
        ):
            lines.append(ln)
    line = "; ".join(lines)
    return (line if len(line) <= 400 else line[:397] + "...") or None


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


# --- input ---------------------------------------------------------------------------------------------------


def _col(df: DataFrame, *names: str):
    """The first non-null of the columns ``names`` the input has (a name and its synonym, such as ``group`` and
    ``group_id``), or None when it has none of them."""
    cols = [F.col(f"`{n}`") for n in names if n in df.columns]
    return F.coalesce(*cols) if len(cols) > 1 else (cols[0] if cols else None)


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


#: Columns read as 32-bit integers: a value that is not one quarantines its record, naming it.
_INT_COLUMNS = ("version", "api_version", "generation", "generation_id", "api_key", "body_offset")


def _field_errors(df: DataFrame):
    """Why a record's context does not fit (a value of an integer column that is not a 32-bit integer), as the
    decoder's ``input_error`` (``FieldRange: ...``); null when it fits."""
    checks = [
        F.when(
            F.col(f"`{n}`").isNotNull() & F.col(f"`{n}`").try_cast("int").isNull(),
            F.concat(
                F.lit(f"FieldRange: '{n}' is "),
                F.substring(F.col(f"`{n}`").cast("string"), 1, 60),
                F.lit(", not a 32-bit integer"),
            ),
        )
        for n in _INT_COLUMNS
        if n in df.columns
    ]
    given = [F.col(INPUT_ERROR)] if INPUT_ERROR in df.columns else []
    return (
        F.coalesce(*given, *checks)
        if len(given) + len(checks) > 1
        else (given + checks)[0]
        if given or checks
        else F.lit(None).cast("string")
    )


def normalize(df: DataFrame, source: str | None = None) -> DataFrame:
    """Any supported input shape -> the canonical columns plus ``selected`` (see the package docstring)."""
    cols = set(df.columns)
    src = F.lit(source) if source else F.col(_SOURCE) if _SOURCE in cols else F.input_file_name()
    data, hex_ = _binary_or_hex(df, "data")
    if _LINE in cols:  # the bytes of a JSON line that is quarantined whole
        data = F.coalesce(F.col(_LINE), data) if data is not None else F.col(_LINE)
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
    if kv:  # a record with a key (a tombstone's value is null)
        kind.append(F.when(F.col("key").isNotNull(), F.lit("group-metadata")))
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
        if "ts" in cols:  # files read together: capture lines (ts, seconds) next to records with a timestamp
            ts = F.coalesce(ts, (F.col("ts").try_cast("double") * 1000).try_cast("bigint"))
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
    conn = _col(df, "conn", "connection")
    if conn is not None and "correlation_id" in cols:
        parts = [F.col(c).cast("string") for c in ("run", "scenario") if c in cols] + [
            conn.cast("string"),
            F.col("correlation_id").cast("string"),
        ]
        link = F.when(conn.isNotNull() & F.col("correlation_id").isNotNull(), F.concat_ws("|", src, *parts))
    rid = _col(df, "record_id", "id")
    # its own column first: inside coalesce() the id would be generated only for the rows that need it
    df = df.withColumn("__row", F.monotonically_increasing_id())
    out = df.select(
        (rid.cast("string") if rid is not None else F.lit(None).cast("string")).alias("record_id"),
        src.alias("source"),
        _str(df, "group", "group_id").alias("group"),
        _str(df, "member", "member_id").alias("member"),
        _int(df, "generation", "generation_id").alias("generation"),
        kind_col.alias("kind"),
        _int(df, "version", "api_version").alias("version"),
        ts.alias("ts_ms"),
        (hex_ if hex_ is not None else F.lit(None).cast("string")).alias("hex"),
        (data if data is not None else F.lit(None).cast("binary")).alias("data"),
        _int(df, "api_key").alias("api_key"),
        _str(df, "direction").alias("direction"),
        _int(df, "body_offset").alias("body_offset"),
        key.alias("key"),
        _str(df, "protocol").alias("protocol"),
        _str(df, "leader").alias("leader"),
        link.alias("link"),
        F.col("__row"),
        _str(df, "type").alias("__type"),
        _str(df, "api_name").alias("__api_name"),
        _field_errors(df).alias(INPUT_ERROR),
    )
    out = out.withColumn(
        "record_id",
        F.coalesce(F.col("record_id"), F.concat(F.col("source"), F.lit(":"), F.col("__row").cast("string"))),
    ).drop("__row")
    # why a record is not input to the decoder (null: it is): every record read is counted, by reason
    reasons = []
    if "type" in cols:  # `capture --json` also writes generation and summary lines: only frames are records
        reasons.append(F.when(F.col("__type") != "frame", F.concat(F.lit("line type "), F.col("__type"))))
    if "api_key" in cols:
        reasons.append(
            F.when(
                (F.col("kind") == "frame") & ~F.col("api_key").isin(*SELECTED_API_KEYS),
                F.concat(
                    F.lit("frame "),
                    F.coalesce(F.col("__api_name"), F.concat(F.lit("API key "), F.col("api_key").cast("string"))),
                ),
            )
        )
        if "direction" in cols:  # a LeaveGroup response says nothing the tables keep
            reasons.append(
                F.when(
                    (F.col("kind") == "frame")
                    & F.col("api_key").isin(*REQUESTS_ONLY)
                    & (F.col("direction") == "response"),
                    F.concat(F.lit("frame "), F.coalesce(F.col("__api_name"), F.lit("API")), F.lit(" response")),
                )
            )
    if kv:
        key_version = F.conv(F.hex(F.substring(F.col("key"), 1, 2)), 16, 10)
        reasons.append(
            F.when(
                (F.col("kind") == "group-metadata") & F.col("key").isNotNull(),
                F.when(
                    ~key_version.isin(*map(str, SELECTED_RECORD_TYPES)),
                    F.concat(F.lit("__consumer_offsets key version "), key_version),
                ).when(F.col("data").isNull() & F.col("hex").isNull(), F.lit("__consumer_offsets tombstone")),
            )
        )
    reason = F.coalesce(*reasons) if len(reasons) > 1 else (reasons[0] if reasons else F.lit(None))
    return (
        out.withColumn("skip_reason", reason.cast("string"))
        .withColumn("selected", F.col("skip_reason").isNull())
        .drop("__type", "__api_name")
    )


def plan(spark: SparkSession | None, inputs: list[str], fmt: str | None = None) -> InputPlan:
    """Which reader reads which input (:func:`codec.pipeline.inputs.plan_inputs`). Local paths are listed
    with the standard library, URIs (and plain paths when the session's default filesystem is not local)
    through the session's Hadoop FileSystem; ``spark`` may be None when every input is a local path."""
    local = LocalFiles()
    hadoop = HadoopFiles(spark) if spark is not None else None
    default_local = True
    if spark is not None:
        default_fs = spark.sparkContext._jsc.hadoopConfiguration().get("fs.defaultFS") or "file:///"
        default_local = default_fs.startswith("file:")

    def files_for(path: str):
        if is_uri(path) or not default_local:
            if hadoop is None:
                raise InputError(f"{path}: not a local path")  # (run() plans such inputs with a session)
            return hadoop
        return local

    try:
        return plan_inputs(inputs, fmt, files_for)
    except InputError as e:
        raise PipelineError(str(e)) from None
    except Exception as e:  # noqa: BLE001 - a filesystem Hadoop cannot reach, a path it refuses ...
        raise PipelineError(f"cannot list the inputs: {spark_error_line(e)}") from None


def read_inputs(spark: SparkSession, inputs: list[str] | InputPlan, fmt: str | None = None) -> tuple[DataFrame, bool]:
    """All inputs as one normalized DataFrame, and whether any input has request/response pairing.
    ``inputs``: paths (planned here, see :func:`plan`) or an :class:`~codec.pipeline.inputs.InputPlan`.
    The JSON inputs are read in one pass (one schema inference for all), the Parquet ones in another
    (schemas merged): the union of their columns is what :func:`normalize` sees; a directory with
    partition directories is read in a pass of its own. A reader that fails
    (a file that is not what its name or first bytes say ...) raises :class:`PipelineError`."""
    the_plan = inputs if isinstance(inputs, InputPlan) else plan(spark, list(inputs), fmt)
    frames, linked = [], False
    for name, paths in ((fmt_, group) for fmt_ in the_plan.paths for group in the_plan.reads(fmt_)):
        try:
            dfs = _json_lines(spark, paths) if name == "jsonl" else _parquet(spark, paths)
        except Exception as e:  # noqa: BLE001 - Spark's reader on bad input: one line for the user
            raise PipelineError(
                f"cannot read the {'JSON lines' if name == 'jsonl' else 'Parquet'} input "
                f"({_paths_brief(paths)}): {spark_error_line(e)}"
            ) from None
        for df in dfs:
            linked |= "correlation_id" in df.columns and bool({"conn", "connection"} & set(df.columns))
            frames.append(normalize(df))
    if not frames:  # only empty files: no records
        frames.append(normalize(spark.range(0).drop("id"), "(empty)"))
    out = frames[0]
    for df in frames[1:]:
        out = out.unionByName(df)
    return out, linked


def _scalar_arrow_udf(f: Callable, return_type: T.DataType) -> Callable[..., Column]:
    """A scalar Arrow UDF, its kind told by ``f``'s type hints (pyarrow arrays in and out), as pyspark prefers.
    pyspark 4.3's stubs type only the form that names ``functionType``, which the runtime deprecates with a
    UserWarning: hence the one ignore."""
    return F.arrow_udf(f, return_type)  # type: ignore[call-overload]


_SOURCE, _LINE = "__source", "__line"  # a JSON line's file, and the text of a line quarantined whole


def _json_lines(spark: SparkSession, paths: list[str]) -> list[DataFrame]:
    """JSON lines read as text and parsed one line at a time into the documented columns
    (:mod:`codec.pipeline.jsonlines`): no schema is inferred, so no line decides how another is read; a line
    that is not a JSON object is kind ``not-json`` with its text, one with a key twice (or in two cases)
    ``duplicate-key``; blank lines are not records."""
    parse = _scalar_arrow_udf(parse_lines, from_arrow_type(JSON_ROW))
    text = spark.read.text(paths)
    parts = [c for c in text.columns if c != "value"]  # partition columns (a directory's name=value folders)
    rows = text.select(F.input_file_name().alias(_SOURCE), "value", *parts, parse(F.col("value")).alias("r")).filter(
        F.col("r").isNotNull()
    )
    bad = F.col("r.kind").isin("not-json", "duplicate-key")
    fields = [
        F.coalesce(F.col(f"r.{f.name}"), F.col(f"`{f.name}`").cast("string")).alias(f.name)
        if f.name in parts
        else F.col(f"r.{f.name}")
        for f in JSON_ROW
    ]
    return [
        rows.select(
            _SOURCE,
            *fields,
            *(F.col(f"`{p}`") for p in parts if p not in JSON_ROW.names),
            F.when(bad, F.encode(F.col("value"), "UTF-8")).alias(_LINE),
        )
    ]


def _parquet(spark: SparkSession, paths: list[str]) -> list[DataFrame]:
    """Parquet files read together with their schemas merged; when their schemas cannot be merged (one file's
    ``version`` an integer, another's a string), each file on its own (a directory by its files), so that no
    file decides for another: a value that does not fit its column is quarantined with its record."""
    try:
        return [spark.read.option("mergeSchema", "true").parquet(*paths)]
    except Exception as e:  # noqa: BLE001 - Spark says "Failed to merge ..." in several exception types
        if "merge" not in str(e).lower() and "incompatible" not in str(e).lower():
            raise
    files = [f for p in paths for f in _files_of(spark, p)]
    return [spark.read.parquet(f) for f in files]


def _files_of(spark: SparkSession, path: str) -> list[str]:
    """A Parquet input's files: itself, or every non-hidden file below a directory."""
    files = LocalFiles() if not is_uri(path) and os.path.exists(path) else HadoopFiles(spark)
    if not (os.path.isdir(path) if isinstance(files, LocalFiles) else files.expand(path)[0][1]):
        return [path]
    return [p for p, size in files.walk(path) if size > 0]


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
        jvm = spark.sparkContext._jvm
        assert jvm is not None  # a session's context holds its JVM gateway while it runs
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

    def has_data_file(self, p: str) -> bool:
        """A Parquet part file directly in ``p`` (not hidden)."""
        return any(
            not s.getPath().getName().startswith(("_", ".")) and s.isFile() for s in self.fs.listStatus(self.Path(p))
        )

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
    return {
        "charts": {
            "versions_by_date": versions,
            "error_rate_by_date": units_ok_counts,
            "rebalances_per_group": per_group,
            "rebalances_by_cause": by_cause,
            "rebalances_per_minute": per_minute,
        },
        "findings_by_check": by_check,
        "sample_findings": sample,
        "quarantine_by_type": qtypes,
    }


def _paths_brief(paths: list[str]) -> str:
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def _error_chain(e: BaseException) -> list[tuple[str, str]]:
    """``[(class name, message)]`` from the outermost error to its root cause: a Java exception's causes
    (py4j's Py4JJavaError), a PySpark captured exception's, or Python's ``__cause__``."""
    chain: list[tuple[str, str]] = []
    java = getattr(e, "java_exception", None)
    if java is not None:
        try:
            seen = 0
            while java is not None and seen < 20:
                chain.append((str(java.getClass().getSimpleName()), str(java.getMessage() or "")))
                cause = java.getCause()
                java = None if cause is None or cause.equals(java) else cause
                seen += 1
        except Exception:  # noqa: BLE001 - the gateway may be gone; what was read so far will do
            pass
    cur: BaseException | None = e
    seen = 0
    while cur is not None and not chain and seen < 20:
        desc = getattr(cur, "_desc", None)  # pyspark's captured exceptions (AnalysisException ...)
        chain.append((type(cur).__name__, desc if isinstance(desc, str) and desc else str(cur)))
        nxt = getattr(cur, "_cause", None) or cur.__cause__
        cur = nxt if isinstance(nxt, BaseException) else None
        seen += 1
    return chain


_ERROR_CLASS = re.compile(r"^\[[A-Z][A-Z0-9_.]*\]")
_SQLSTATE = re.compile(r"\s*SQLSTATE: \w+\s*$")


def spark_error_line(e: BaseException) -> str:
    """One line for the user from a Spark, Py4J or Python error, without stack traces: a Python worker's
    exception (the last line of its traceback); else Spark's first error-class message (``[CLASS] ...``,
    which names the file) with the root cause; else the root cause."""
    chain = _error_chain(e) or [(type(e).__name__, str(e))]

    def first_line(text: str) -> str:
        for ln in text.splitlines():
            ln = _SQLSTATE.sub("", ln).strip()
            if ln:
                return ln
        return ""

    line = ""
    for _, msg in chain:
        if "Traceback (most recent call last)" in msg:
            lines = [_SQLSTATE.sub("", ln).strip() for ln in msg.splitlines()]
            lines = [ln for ln in lines if ln and not ln.startswith(("File ", "^", "~", "at ", "Traceback"))]
            exc = [ln for ln in lines if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b", ln)]
            line = exc[-1] if exc else (lines[-1] if lines else "")
            break
    if not line:
        root_cls, root_msg = chain[-1]
        root = f"{root_cls}: {first_line(root_msg)}" if first_line(root_msg) else root_cls
        for _, msg in chain:
            head = first_line(msg)
            if _ERROR_CLASS.match(head):
                line = head if first_line(root_msg) in head or len(chain) == 1 else f"{head} ({root})"
                break
        line = line or root
    return line if len(line) <= 500 else line[:497] + "..."


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
    t0 = time.monotonic()
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    own = spark is None
    the_plan = opts.plan
    if the_plan is None and own and local_only(list(opts.inputs), opts.master):
        the_plan = plan(None, opts.inputs, opts.input_format)  # bad local input: said before Spark starts
    if spark is None:
        opts.log = opts.log or (None if _under_spark_submit() else default_log_path())
        _say(
            opts,
            "starting Spark"
            + (f" ({opts.master})" if opts.master else " (local[*])")
            + (f"; its log: {opts.log}" if opts.log else ""),
            t0,
        )
        spark = build_session(opts)
    staging = None
    units = records = None
    try:
        fs = _FS(spark, opts.out)
        out = opts.out.rstrip("/")
        if fs.exists(out) and not opts.overwrite and not fs.is_empty_dir(out):
            raise PipelineError(f"{out} exists; pass --overwrite to replace it")
        if the_plan is None:
            the_plan = plan(spark, opts.inputs, opts.input_format)
        staging = _sibling(out, "staging")
        _say(opts, f"reading {len(opts.inputs)} input(s)", t0)
        records, linked = read_inputs(spark, the_plan)
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
        old = None
        if fs.exists(out):
            old = _sibling(out, "old")
            fs.rename(out, old)
        fs.rename(staging, out)
        staging = None
        if old:
            fs.delete(old)
        _say(opts, f"done: tables and report in {out} (report.html)", t0)
        if opts.log:
            summary["log"] = opts.log
        return summary
    except BaseException:
        if staging is not None:
            try:
                fs.delete(staging)
            except Exception:  # pragma: no cover - best effort; the original error matters more
                pass
        raise
    finally:
        for df in (units, records):
            if df is not None:
                try:
                    df.unpersist()
                except Exception:  # pragma: no cover - a gateway already gone
                    pass
        if own:
            spark.stop()


# --- command line (shared by the CLI subcommand and spark-submit) ---------------------------------------------


def options_from_args(args: argparse.Namespace) -> Options:
    return Options(
        inputs=args.inputs,
        out=args.out,
        master=args.master,
        input_format=args.input_format,
        overwrite=args.overwrite,
        config=Config(args.acceptable_recovery_lag, args.num_standby_replicas, args.max_warmup_replicas),
        shuffle_partitions=args.shuffle_partitions,
        driver_memory=args.driver_memory,
        ui=args.ui,
        ship_code=args.ship_code,
        quiet=args.quiet,
        log=args.log,
    )
