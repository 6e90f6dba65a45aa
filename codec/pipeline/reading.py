"""The job's input side: each record read with the file that holds it and its place there, and brought to the
canonical columns (:func:`normalize`).

Provenance is exact by construction: no reader asks Spark which file or row it is on after the fact
(``input_file_name()`` is wrong once a Python UDF buffers rows from several files of one task, and
``monotonically_increasing_id()`` numbers a task's rows, not a file's: issue #39). Instead:

* a JSON lines file Spark reads in one piece (no larger than ``spark.sql.files.maxPartitionBytes``) is handed
  whole to the executors (``binaryFile``), which split and number its lines themselves
  (:mod:`codec.pipeline.lines`): ``__source`` is the file, ``__pos`` the line, from 1, blank lines counted;
* a larger local one is read by the executors too, in ranges of that size: one pass counts the lines that
  begin in each range, a second reads each range's lines, numbered from the lines of the ranges before it
  (a compressed file is one range). A line is held at most ``--max-line-length`` bytes either way: a longer
  one is counted and dropped as it is read, and quarantined with its size;
* a larger one on another filesystem (HDFS, S3 ...), or one compressed by a codec only Hadoop reads
  (``.lz4``, ``.snappy``, ``.zst``), is read by Spark's text reader in its splits, each line tagged with its
  split (``_metadata.file_path``, ``_metadata.file_block_start``) and its place among the split's rows; one
  pass counts each split's rows, and a line's number is the rows of the file's splits before it plus its place
  (:func:`_split_lines`). Hadoop's reader holds such a line whole before it can be measured (its own maximum
  line length drops or cuts lines without a trace, so it is not used): a line over the maximum is quarantined
  after it is read;
* a Parquet row is its file's (``_metadata.file_path``) row ``_metadata.row_index``, from 0.

``record_id`` is then the record's own id when the input gives one (``record_id`` or ``id``), else
``<source>:<line>`` (``<source>:<row index>`` for Parquet), where ``source`` is the file as Hadoop names it
(``file:/data/caps/app 1.jsonl``: its scheme, its path as it is, no percent escapes).

Parquet files are read together when their schemas merge; when they do not (one file's ``version`` an integer,
another's a string; two columns of one file whose names differ only in case, ``hex`` and ``HEX``), the files
are grouped by schema and each group is read on its own, so that no file decides how another is read. A
column that does not fit its documented shape (a ``version`` that is a struct, a ``hex`` that is binary and not
UTF-8 text, two spellings of one column) quarantines the records it holds, naming the column
(:func:`_fit`): the rest of the batch decodes.
"""

from __future__ import annotations

import os
from typing import Callable
from urllib.parse import unquote

import pyarrow as pa
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.pandas.types import from_arrow_schema, from_arrow_type

from .failure import PipelineError, spark_error_line
from .inputs import MAX_LINE, HadoopFiles, InputError, InputPlan, LocalFiles, is_uri, plan_inputs
from .jsonlines import COLUMNS, INPUT_ERROR
from .jsonlines import ROW as JSON_ROW
from .jsonlines import parse_lines
from .lines import HADOOP_ONLY, LINE, PART, POS, SOURCE, codec_of, count_ranges, read_files, read_ranges
from .lines import schema as lines_schema
from .output import local_path
from ..wire.registry import api_names
from .records import REQUESTS_ONLY, RESPONSES_ONLY, SELECTED_API_KEYS, SELECTED_RECORD_TYPES

__all__ = ["DEFAULT_MAX_LINE", "normalize", "plan", "read_inputs"]

DEFAULT_MAX_LINE = MAX_LINE
#: the input columns the job reads (the package docstring's, synonyms included); the others are ignored
_DOCUMENTED = frozenset(COLUMNS)


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


def _paths_brief(paths: list[str]) -> str:
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def read_inputs(
    spark: SparkSession,
    inputs: list[str] | InputPlan,
    fmt: str | None = None,
    max_line: int = DEFAULT_MAX_LINE,
) -> tuple[DataFrame, bool]:
    """All inputs as one normalized DataFrame, and whether any input has request/response pairing.
    ``inputs``: paths (planned here, see :func:`plan`) or an :class:`~codec.pipeline.inputs.InputPlan`.
    A directory with partition directories is read in a pass of its own. A reader that fails (a Parquet file
    that is not what its name or first bytes say ...) raises :class:`PipelineError`."""
    the_plan = inputs if isinstance(inputs, InputPlan) else plan(spark, list(inputs), fmt)
    frames, linked = [], False
    for name, paths in ((fmt_, group) for fmt_ in the_plan.paths for group in the_plan.reads(fmt_)):
        try:
            dfs = _json_lines(spark, paths, the_plan, max_line) if name == "jsonl" else _parquet(spark, paths, the_plan)
        except PipelineError:
            raise
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


# --- the canonical columns ---------------------------------------------------------------------------------


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
            F.col(f"`{n}`").isNotNull()
            & (
                F.col(f"`{n}`").try_cast("int").isNull()
                | (F.col(f"`{n}`").try_cast("int") != F.col(f"`{n}`"))  # (5.5 is not 5)
                if isinstance(df.schema[n].dataType, T.FractionalType)
                else F.col(f"`{n}`").try_cast("int").isNull()
            ),
            F.concat(
                F.lit(f"FieldRange: '{n}' is "),
                F.substring(F.col(f"`{n}`").cast("string"), 1, 60),
                F.lit(", not a 32-bit integer"),
            ),
        )
        for n in _INT_COLUMNS
        if n in df.columns
    ]
    given = [F.col(c) for c in (INPUT_ERROR, _FIT_ERROR) if c in df.columns]
    return (
        F.coalesce(*given, *checks)
        if len(given) + len(checks) > 1
        else (given + checks)[0]
        if given or checks
        else F.lit(None).cast("string")
    )


#: what each documented column holds, as a quarantine message says it
_BYTES = ("data", "key", "value")
_TIMES = ("timestamp", "ts_ms", "ts")


def _wanted(name: str) -> str:
    if name in _INT_COLUMNS:
        return "a 32-bit integer"
    if name in _BYTES:
        return "bytes (binary, or hex text)"
    if name == "hex":
        return "hex text"
    return "a time" if name in _TIMES else "text"


def _described(t: T.DataType) -> str:
    for kind, what in ((T.StructType, "a struct"), (T.ArrayType, "a list"), (T.MapType, "a map")):
        if isinstance(t, kind):
            return what
    return f"of type {t.simpleString()[:40]}"


_FIT_ERROR = "__fit_error"


def _fit(df: DataFrame) -> DataFrame:
    """``df`` with each documented column in a shape the job reads, and ``__fit_error`` saying why a record's
    value did not fit (``FieldType: ...``, null when all fit): a struct, list or map where a value belongs, a
    boolean where an integer does, binary that is not UTF-8 text where text does (``hex`` too) -- each
    replaced by null, its record quarantined naming the column. (Parquet gives any type; JSON lines give text.)"""
    errors, fixed = [], {}
    for f in df.schema.fields:
        name, t = f.name, f.dataType
        if name not in _DOCUMENTED or name == INPUT_ERROR:
            continue
        c = F.col(f"`{name}`")
        if not isinstance(t, (T.AtomicType, T.NullType)) or (isinstance(t, T.BooleanType) and name in _INT_COLUMNS):
            what = "a boolean" if isinstance(t, T.BooleanType) else _described(t)
            errors.append(F.when(c.isNotNull(), F.lit(f"FieldType: '{name}' is {what}, not {_wanted(name)}")))
            fixed[name] = F.lit(None).cast("string")
        elif isinstance(t, T.BinaryType) and name not in _BYTES:
            ok = F.is_valid_utf8(c)
            errors.append(
                F.when(
                    c.isNotNull() & ~ok, F.lit(f"FieldType: '{name}' is binary that is not UTF-8, not {_wanted(name)}")
                )
            )
            fixed[name] = F.when(ok, c.cast("string"))
    if not errors:
        return df
    # (the error first: it reads the values the replacements drop)
    return df.withColumn(_FIT_ERROR, F.coalesce(*errors) if len(errors) > 1 else errors[0]).withColumns(fixed)


def normalize(df: DataFrame, source: str | None = None) -> DataFrame:
    """Any supported input shape -> the canonical columns plus ``selected`` (see the package docstring). The
    readers give each record's file and place (``__source``, ``__pos``); a DataFrame of another origin is
    named ``source``, its rows numbered by Spark (``monotonically_increasing_id``: unique, not a row number)."""
    df = _fit(df)
    cols = set(df.columns)
    src = F.lit(source) if source else F.col(SOURCE)
    data, hex_ = _binary_or_hex(df, "data")
    if LINE in cols:  # the bytes of a JSON line that is quarantined whole
        data = F.coalesce(F.col(LINE), data) if data is not None else F.col(LINE)
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
    if POS not in cols:  # its own column first: inside coalesce() it would be generated only where needed
        df = df.withColumn(POS, F.monotonically_increasing_id())
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
        F.col(POS),
        _str(df, "type").alias("__type"),
        _str(df, "api_name").alias("__api_name"),
        _field_errors(df).alias(INPUT_ERROR),
    )
    out = out.withColumn(
        "record_id",
        F.coalesce(F.col("record_id"), F.concat(F.col("source"), F.lit(":"), F.col(POS).cast("string"))),
    ).drop(POS)
    # why a record is not input to the decoder (null: it is): every record read is counted, by reason
    reasons = []
    if "type" in cols:  # `capture --json` also writes generation and summary lines: only frames are records (its
        # Metadata responses, type "metadata", are frames too: the topics' partition counts)
        reasons.append(
            F.when(~F.col("__type").isin("frame", "metadata"), F.concat(F.lit("line type "), F.col("__type")))
        )
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
            reasons.append(  # a request whose response is read (Metadata: its topics; DescribeGroups: codec.pipeline.admin)
                F.when(
                    (F.col("kind") == "frame")
                    & F.col("api_key").isin(*RESPONSES_ONLY)
                    & (F.col("direction") == "request"),
                    F.concat(
                        F.lit("frame "),
                        F.coalesce(
                            F.col("__api_name"),
                            F.element_at(
                                F.create_map(*[F.lit(x) for k in RESPONSES_ONLY for x in (k, api_names()[k])]),
                                F.col("api_key"),
                            ),
                        ),
                        F.lit(" request"),
                    ),
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
    if "key" in cols and "kind" in cols:  # a deleted share-partition's state (codec.pipeline.admin)
        reasons.append(
            F.when(
                (F.col("kind") == "share-state-record")
                & F.col("key").isNotNull()
                & F.col("data").isNull()
                & F.col("hex").isNull(),
                F.lit("__share_group_state tombstone"),
            )
        )
    reason = F.coalesce(*reasons) if len(reasons) > 1 else (reasons[0] if reasons else F.lit(None))
    return (
        out.withColumn("skip_reason", reason.cast("string"))
        .withColumn("selected", F.col("skip_reason").isNull())
        .drop("__type", "__api_name")
    )


# --- JSON lines ----------------------------------------------------------------------------------------------


def _scalar_arrow_udf(f: Callable, return_type: T.DataType) -> Callable[..., Column]:
    """A scalar Arrow UDF, its kind told by ``f``'s type hints (pyarrow arrays in and out), as pyspark prefers.
    pyspark 4.3's stubs type only the form that names ``functionType``, which the runtime deprecates with a
    UserWarning: hence the one ignore."""
    return F.arrow_udf(f, return_type)  # type: ignore[call-overload]


def _whole_file_bytes(spark: SparkSession) -> int:
    """The size up to which Spark reads a file in one piece (``spark.sql.files.maxPartitionBytes``)."""
    try:
        return int(spark._jsparkSession.sessionState().conf().filesMaxPartitionBytes())
    except Exception:  # noqa: BLE001 - Spark Connect (no JVM session here): Spark's default
        return 128 << 20


def _python_reads(path: str) -> bool:
    """Whether the executors can open ``path`` themselves: a local file (a plain path where the default
    filesystem is local, which the plan has checked, or a ``file:`` URI)."""
    return local_path(path) is not None


def _json_lines(spark: SparkSession, paths: list[str], the_plan: InputPlan, max_line: int) -> list[DataFrame]:
    """JSON lines parsed one line at a time into the documented columns (:mod:`codec.pipeline.jsonlines`: no
    schema inferred, so no line decides how another is read), each with its file and line number: files Spark
    reads in one piece whole by the executors (:func:`_whole_files`); larger local ones by the executors in
    ranges (:func:`_local_ranges`); larger ones elsewhere by Spark's text reader in its splits
    (:func:`_split_lines`)."""
    whole = _whole_file_bytes(spark)
    small: list[str] = []
    ranged: list[str] = []
    split: list[str] = []
    for p in paths:
        names = the_plan.files.get(p, [p])
        hadoop_only = any(codec_of(f) in HADOOP_ONLY for f in names)
        if the_plan.largest.get(p, 0) <= whole and not hadoop_only:
            small.append(p)
        elif not hadoop_only and _python_reads(p):
            ranged.append(p)
        else:
            split.append(p)
    frames = [_whole_files(spark, small, max_line)] if small else []
    frames += [_local_ranges(spark, p, the_plan, whole, max_line) for p in ranged]
    return frames + ([_split_lines(spark, split, max_line)] if split else [])


def _shape(rows: DataFrame, parts: list[str]) -> DataFrame:
    """Lines (:func:`codec.pipeline.lines.schema`) as the columns :func:`normalize` reads: a partition value
    (``group=g1`` folders) fills a column of the same name that the line leaves null."""
    fields = [
        F.coalesce(F.col(f.name), F.col(f"`{PART}{f.name}`")).alias(f.name) if f.name in parts else F.col(f.name)
        for f in JSON_ROW
    ]
    extra = [F.col(f"`{PART}{p}`").alias(p) for p in parts if p not in JSON_ROW.names]
    return rows.select(SOURCE, POS, *fields, *extra, LINE)


def _whole_files(spark: SparkSession, paths: list[str], max_line: int) -> DataFrame:
    """Files read whole, split and numbered by the executors (:func:`codec.pipeline.lines.read_files`)."""
    files = spark.read.format("binaryFile").load(paths)
    parts = [c for c in files.columns if c not in ("path", "modificationTime", "length", "content")]
    out = from_arrow_schema(lines_schema(parts))

    def read(batches):
        return read_files(batches, max_line, parts)

    rows = files.select("path", "content", *(F.col(f"`{p}`").cast("string").alias(p) for p in parts)).mapInArrow(
        read, out
    )
    return _shape(rows, parts)


_PARTITION_DEFAULT = "__HIVE_DEFAULT_PARTITION__"  # (Spark's name for a null partition value)


def _partition_values(directory: str, path: str) -> dict[str, str | None]:
    """The ``name=value`` folders between a directory read whole and one of its files, as Spark reads them."""
    rel = path[len(directory.rstrip("/")) :].strip("/").split("/")[:-1]
    out: dict[str, str | None] = {}
    for d in rel:
        name, _, value = d.partition("=")
        out[unquote(name)] = None if value == _PARTITION_DEFAULT else unquote(value)
    return out


def _local_ranges(spark: SparkSession, given: str, the_plan: InputPlan, whole: int, max_line: int) -> DataFrame:
    """Local files larger than Spark reads in one piece, read by the executors in ranges of that size
    (:func:`codec.pipeline.lines.read_ranges`): each line held at most ``max_line`` bytes, whatever its length,
    numbered from the lines the ranges before it hold (:func:`codec.pipeline.lines.count_ranges`, a pass of its
    own); a compressed file as one range. ``given``: a file, or a directory read whole (its partition folders'
    values come with its files' lines)."""
    names = the_plan.files.get(given, [given])
    values = {f: _partition_values(given, f) if given in the_plan.partitioned else {} for f in names}
    parts = sorted({k for v in values.values() for k in v})
    tasks = []  # (source, path, start, end, partition values...)
    for f in names:
        path = os.path.abspath(local_path(f) or f)
        size = os.path.getsize(path)
        starts = [0] if codec_of(path) else list(range(0, size, whole))
        for a in starts:
            tasks.append((f"file:{path}", path, a, size if codec_of(path) else min(a + whole, size), values[f]))
    plain = [(path, a, b) for _, path, a, b, _ in tasks if not codec_of(path)]
    lines: dict[tuple[str, int], int] = {}
    if plain:
        counts = spark.sparkContext.parallelize(plain, len(plain)).toDF("path string, start long, end long")
        out = T.StructType(
            [
                T.StructField("path", T.StringType()),
                T.StructField("start", T.LongType()),
                T.StructField("lines", T.LongType()),
            ]
        )
        lines = {(r["path"], r["start"]): r["lines"] for r in counts.mapInArrow(count_ranges, out).collect()}
    rows, before = [], 0
    for source, path, a, b, vals in sorted(tasks, key=lambda t: (t[1], t[2])):
        before = 0 if a == 0 else before
        rows.append((source, path, a, b, before + 1, *(vals.get(p) for p in parts)))
        before += lines.get((path, a), 0)
    schema = T.StructType(
        [
            T.StructField("source", T.StringType()),
            T.StructField("path", T.StringType()),
            T.StructField("start", T.LongType()),
            T.StructField("end", T.LongType()),
            T.StructField("first", T.LongType()),
        ]
        + [T.StructField(p, T.StringType()) for p in parts]
    )

    def read(batches):
        return read_ranges(batches, max_line, parts)

    ranges = spark.createDataFrame(spark.sparkContext.parallelize(rows, len(rows)), schema)
    return _shape(ranges.mapInArrow(read, from_arrow_schema(lines_schema(parts))), parts)


def _split_lines(spark: SparkSession, paths: list[str], max_line: int) -> DataFrame:
    """Files elsewhere than here (HDFS, S3 ...) that Spark reads in splits, by its text reader: lines end at
    ``\n`` (as :mod:`codec.pipeline.lines` splits them), and a line's number is its place among its split's
    rows plus the rows of the file's splits before it (one pass over the splits counts them: every line belongs
    to exactly one split, which returns its lines in order). Hadoop's reader holds a line whole however long,
    so a line over ``max_line`` is quarantined after it is read (its maximum line length would drop it, or cut
    it, without a trace)."""
    text = spark.read.option("lineSep", "\n").text(paths)
    parts = [c for c in text.columns if c != "value"]
    meta = text.metadataColumn("_metadata")
    lines = text.select(
        meta.file_path.alias("__file"),
        meta.file_block_start.alias("__block"),
        F.monotonically_increasing_id().alias("__id"),  # (a split's rows are consecutive in its task)
        "value",
        *(F.col(f"`{p}`").cast("string").alias(f"{PART}{p}") for p in parts),
    )
    blocks = lines.groupBy("__file", "__block").agg(F.count("*").alias("rows"), F.min("__id").alias("first"))
    table, before, last = [], 0, None
    for b in sorted(blocks.collect(), key=lambda b: (b["__file"], b["__block"])):
        before = 0 if b["__file"] != last else before
        table.append((b["__file"], b["__block"], b["first"], before + 1, unquote(b["__file"])))
        before, last = before + b["rows"], b["__file"]
    numbers = spark.createDataFrame(table, "__file string, __block long, __first long, __add long, __src string")

    def parse(values: pa.Array) -> pa.Array:
        return parse_lines(values, max_line)

    parsed = (
        lines.join(F.broadcast(numbers), ["__file", "__block"])
        .select(
            F.col("__src").alias(SOURCE),
            (F.col("__id") - F.col("__first") + F.col("__add")).alias(POS),
            _scalar_arrow_udf(parse, from_arrow_type(JSON_ROW))(F.col("value")).alias("r"),
            "value",
            *(f"`{PART}{p}`" for p in parts),
        )
        .filter(F.col("r").isNotNull())
    )
    bad = F.col("r.kind").isin("not-json", "duplicate-key")
    rows = parsed.select(
        SOURCE,
        POS,
        *(F.col(f"r.{f.name}").alias(f.name) for f in JSON_ROW),
        F.when(bad, F.col("value").cast("binary")).alias(LINE),  # (its bytes as they are, UTF-8 or not)
        *(f"`{PART}{p}`" for p in parts),
    )
    return _shape(rows, parts)


# --- Parquet -------------------------------------------------------------------------------------------------


def _rows_of(df: DataFrame, error: str | None = None) -> DataFrame:
    """A Parquet read's documented columns, each row with its file and row index (and ``error`` as every row's
    ``input_error`` when given). Other columns are left out: an input's column never passes for one of the
    job's own (``input_error`` ...)."""
    meta = df.metadataColumn("_metadata")
    keep = [F.col(f"`{c}`") for c in df.columns if c in _DOCUMENTED]
    out = df.select(
        *keep,
        # Hadoop's path without its percent escapes ("+" is not a space in a path)
        F.url_decode(F.regexp_replace(meta.file_path, r"\+", "%2B")).alias(SOURCE),
        meta.row_index.alias(POS),
    )
    return out.withColumn(INPUT_ERROR, F.lit(error).cast("string")) if error else out


_SCHEMA_TROUBLE = ("merge", "incompatible", "column_already_exists", "duplicate", "ambiguous")


def _schema_trouble(e: Exception) -> bool:
    text = str(e).lower()
    return any(t in text for t in _SCHEMA_TROUBLE)


def _parquet(spark: SparkSession, paths: list[str], the_plan: InputPlan) -> list[DataFrame]:
    """Parquet files read together with their schemas merged; when their schemas cannot be merged, grouped by
    schema (and folder), each group read on its own, a file whose columns clash by case alone read with the
    clashing columns left out (:func:`_clashing`), so that no file decides for another."""
    try:
        return [_rows_of(spark.read.option("mergeSchema", "true").parquet(*paths))]
    except Exception as e:  # noqa: BLE001 - Spark says "Failed to merge ..." in several exception types
        if not _schema_trouble(e):
            raise
    groups: dict[tuple[str, str], list[str]] = {}
    frames = []
    for f in (f for p in paths for f in (the_plan.files.get(p) or [p])):
        try:
            schema = spark.read.parquet(f).schema.json()
        except Exception as e:  # noqa: BLE001 - two columns that differ only in case
            if not _schema_trouble(e):
                raise
            frames.append(_clashing(spark, f))
            continue
        groups.setdefault((schema, f.rpartition("/")[0]), []).append(f)
    return [_rows_of(spark.read.parquet(*files)) for files in groups.values()] + frames


def _clashing(spark: SparkSession, path: str) -> DataFrame:
    """A Parquet file with columns whose names differ only in case (``hex`` and ``HEX``), which Spark's
    case-blind names cannot tell apart: read without them; when one of them is a documented column, every
    record of the file is quarantined naming them (which one was meant cannot be told)."""
    conf = spark.conf.get("spark.sql.caseSensitive", "false")
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        fields = spark.read.parquet(path).schema.fields
    finally:
        spark.conf.set("spark.sql.caseSensitive", conf or "false")
    by_case: dict[str, list[str]] = {}
    for f in fields:
        by_case.setdefault(f.name.lower(), []).append(f.name)
    clash = [names for names in by_case.values() if len(names) > 1]
    keep = T.StructType([f for f in fields if len(by_case[f.name.lower()]) == 1])
    named = [names for names in clash if any(n.lower() in _DOCUMENTED for n in names)]
    error = None
    if named:
        pair = " and ".join(repr(n[:60]) for n in named[0][:2])
        error = (
            f"DuplicateKey: the file has the columns {pair} (they differ only in case, and column names do not), "
            f"so which one was meant cannot be told"
        )
    return _rows_of(spark.read.schema(keep).parquet(path), error)
