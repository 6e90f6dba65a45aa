"""The executor side of the job: Arrow record batches of input records in, Arrow batches of decoded
units out (the function handed to ``DataFrame.mapInArrow``). Needs pyarrow, not pyspark.

What it costs per record matters (issue #9: the Spark path must keep >= 70% of the plain decode rate
per core, and the codec's decode takes ~20 us), so the Python work per record is the decode and
little else:

* only the columns the decode needs become Python lists (``to_pylist``); the record's context
  (id, source, group, member, generation, time ...) never does: each output row keeps the index of
  its input row, and the context columns are gathered with ``pyarrow.compute.take`` (C++);
* one output row per *unit* (:mod:`codec.pipeline.records`); its fields are one tuple, stored in
  the struct column of its kind (``member``, ``assignment``, ``group``, ``quarantine``), all other
  kinds' structs null; pyarrow converts the columns of tuples in C++;
* the process id travels as its 16 bytes and the task's printed form is not made here: Spark
  formats both (see :func:`flat_columns`);
* the cyclic GC is off while a batch is built (nothing built here forms cycles; it would otherwise
  walk the batch's growing rows again and again).

The Arrow schema is built once per worker process. :func:`flat_columns` turns the output into the
flat columns the tables are made of (Spark expressions); :func:`decode_table` does the same without
Spark, for tests.
"""

from __future__ import annotations

import gc
import uuid
from typing import Iterable, Iterator

import pyarrow as pa
import pyarrow.compute as pc

from .records import AssignmentUnit, GroupUnit, MemberUnit, RecordError, canonical_kind, decode_record

__all__ = ["INPUT_COLUMNS", "CONTEXT_COLUMNS", "DECODE_COLUMNS", "OUTPUT_SCHEMA", "OUTPUT_DDL", "decode_batches",
           "decode_table", "Builder", "flat_columns"]

#: columns the job hands to :func:`decode_batches`, in this order (see job.normalize)
CONTEXT_COLUMNS = ("record_id", "source", "group", "member", "generation", "kind", "ts_ms", "link", "direction",
                   "leader", "protocol")
DECODE_COLUMNS = ("kind", "version", "hex", "data", "api_key", "direction", "body_offset", "key", "protocol")
INPUT_COLUMNS = CONTEXT_COLUMNS + tuple(c for c in DECODE_COLUMNS if c not in CONTEXT_COLUMNS)

_STR, _I32, _I64, _BOOL, _BIN = pa.string(), pa.int32(), pa.int64(), pa.bool_(), pa.binary()
_TASK = [("subtopology", _I32), ("partition", _I32), ("topology", _STR)]
TASK_SUM = pa.struct(_TASK + [("offset_sum", _I64)])
TASK_ASG = pa.struct(_TASK + [("partitions", _I32)])

MEMBER = pa.struct([
    ("process_id", _BIN), ("sub_version", _I32), ("latest_supported_version", _I32),
    ("user_endpoint", _STR), ("unique_field", _I32), ("sub_error_code", _I32), ("is_version_probe", _BOOL),
    ("streams", _BOOL), ("consumer_protocol_version", _I32), ("rack_id", _STR), ("group_instance_id", _STR),
    ("client_id", _STR), ("client_host", _STR), ("client_tags", pa.map_(_STR, _STR)),
    ("tasks", pa.list_(TASK_SUM))])
ASSIGNMENT = pa.struct([
    ("asg_version", _I32), ("commonly_supported_version", _I32), ("asg_error_code", _I32),
    ("next_rebalance_ms", _I64), ("endpoints", _I32), ("streams", _BOOL), ("consumer_protocol_version", _I32),
    ("active", pa.list_(TASK_ASG)), ("standby", pa.list_(TASK_ASG))])
GROUP = pa.struct([("protocol_type", _STR), ("member_count", _I32), ("group_error_code", _I32)])
QUARANTINE = pa.struct([("error_type", _STR), ("error_message", _STR), ("error_offset", _I64),
                        ("error_path", _STR), ("error_layer", _STR), ("raw", _BIN)])

_CONTEXT_TYPES = {"generation": _I32, "ts_ms": _I64}
_OWN = [("unit", _I32), ("unit_kind", _STR), ("canonical_kind", _STR),
        # what the bytes themselves say, over the record's context (a JoinGroup body names its group ...)
        ("u_member", _STR), ("u_group", _STR), ("u_generation", _I32), ("u_leader", _STR), ("u_protocol", _STR),
        ("m", MEMBER), ("a", ASSIGNMENT), ("g", GROUP), ("q", QUARANTINE)]
OUTPUT_SCHEMA = pa.schema([pa.field(c, _CONTEXT_TYPES.get(c, _STR)) for c in CONTEXT_COLUMNS]
                          + [pa.field(n, t) for n, t in _OWN])


def _ddl(t: pa.DataType) -> str:
    if pa.types.is_string(t):
        return "string"
    if pa.types.is_int32(t):
        return "int"
    if pa.types.is_int64(t):
        return "bigint"
    if pa.types.is_boolean(t):
        return "boolean"
    if pa.types.is_binary(t) or pa.types.is_fixed_size_binary(t):
        return "binary"
    if pa.types.is_map(t):
        return f"map<{_ddl(t.key_type)},{_ddl(t.item_type)}>"
    if pa.types.is_list(t):
        return f"array<{_ddl(t.value_type)}>"
    if pa.types.is_struct(t):
        return "struct<" + ",".join(f"`{f.name}`:{_ddl(f.type)}" for f in t) + ">"
    raise TypeError(t)  # pragma: no cover


#: the output schema as a Spark DDL string (backticks: ``group`` is an SQL keyword)
OUTPUT_DDL = ", ".join(f"`{f.name}` {_ddl(f.type)}" for f in OUTPUT_SCHEMA)


def _hex(text: str) -> bytes:
    cleaned = "".join(text.split())
    if cleaned[:2] in ("0x", "0X"):
        cleaned = cleaned[2:]
    return bytes.fromhex(cleaned)


class Builder:
    """The output rows of one batch: per row the input row it came from, its unit index and kind, the
    unit's own context (sparse) and one struct tuple in the column of its kind."""

    def __init__(self) -> None:
        self.src: list[int] = []  # input row of each output row
        self.unit: list[int] = []
        self.kind: list[str] = []
        self.ckind: list[str | None] = []
        self.own: dict[int, tuple] = {}  # output row -> (member, group, generation, leader, protocol)
        self.structs: dict[str, dict[int, tuple]] = {"m": {}, "a": {}, "g": {}, "q": {}}

    def _row(self, src: int, index: int, kind: str, ckind: str | None) -> int:
        pos = len(self.src)
        self.src.append(src)
        self.unit.append(index)
        self.kind.append(kind)
        self.ckind.append(ckind)
        return pos

    def add(self, src: int, ckind: str | None, unit, index: int) -> None:
        cls = type(unit)
        if cls is MemberUnit:
            pos = self._row(src, index, "member", ckind)
            info = unit.info
            if info is None:
                self.structs["m"][pos] = (None, None, None, None, None, None, None, False,
                                          unit.consumer_protocol_version, unit.rack_id, unit.group_instance_id,
                                          unit.client_id, unit.client_host, None, None)
            else:
                self.structs["m"][pos] = (
                    info.process_id.bytes, info.version, info.latest_supported_version, info.user_endpoint,
                    info.unique_field, info.error_code, info.is_version_probe, True, unit.consumer_protocol_version,
                    unit.rack_id, unit.group_instance_id, unit.client_id, unit.client_host,
                    list(info.client_tags.items()) if info.client_tags else None,
                    [(t.subtopology, t.partition, t.topology_name, v) for t, v in info.task_offset_sums.items()])
        elif cls is AssignmentUnit:
            pos = self._row(src, index, "assignment", ckind)
            info = unit.info
            if info is None:
                self.structs["a"][pos] = (None, None, None, None, None, False, unit.consumer_protocol_version,
                                          None, None)
            else:
                # positional: one entry per assigned partition, counted per task (keyed by a plain
                # tuple: hashing a TaskId dataclass runs Python code, hashing a tuple does not)
                active: dict = {}
                for t in info.active_tasks:
                    k = (t.subtopology, t.partition, t.topology_name)
                    active[k] = active.get(k, 0) + 1
                self.structs["a"][pos] = (
                    info.version, info.commonly_supported_version, info.error_code, info.next_rebalance_ms,
                    len(info.partitions_by_host), True, unit.consumer_protocol_version,
                    [(*k, c) for k, c in active.items()],
                    [(t.subtopology, t.partition, t.topology_name, len(ps)) for t, ps in info.standby_tasks.items()])
        else:
            pos = self._row(src, index, "group", ckind)
            self.structs["g"][pos] = (unit.protocol_type, unit.member_count, unit.error_code)
        if unit.member is not None or unit.group is not None or unit.generation is not None or (
                cls is GroupUnit and (unit.leader is not None or unit.protocol_name is not None)):
            self.own[pos] = (unit.member, unit.group, unit.generation, getattr(unit, "leader", None),
                             getattr(unit, "protocol_name", None))

    def quarantine(self, src: int, ckind: str | None, err: RecordError, raw: bytes | None) -> None:
        pos = self._row(src, 0, "quarantine", ckind)
        self.structs["q"][pos] = (err.type, err.message, err.offset, err.path, err.layer, raw)

    def batch(self, inp: pa.RecordBatch) -> pa.RecordBatch:
        n = len(self.src)
        take = pa.array(self.src, _I32)
        arrays = []
        for c in CONTEXT_COLUMNS:
            col = inp.column(c)
            want = _CONTEXT_TYPES.get(c, _STR)
            if col.type != want:
                col = col.cast(want)
            arrays.append(pc.take(col, take))
        arrays += [pa.array(self.unit, _I32), pa.array(self.kind, _STR), pa.array(self.ckind, _STR)]
        own = self.own
        for i, t in enumerate((_STR, _STR, _I32, _STR, _STR)):
            if own:
                vals = [None] * n
                for pos, o in own.items():
                    vals[pos] = o[i]
                arrays.append(pa.array(vals, t))
            else:
                arrays.append(pa.nulls(n, t))
        for key, t in (("m", MEMBER), ("a", ASSIGNMENT), ("g", GROUP), ("q", QUARANTINE)):
            part = self.structs[key]
            if not part:
                arrays.append(pa.nulls(n, t))
            elif len(part) == n:
                arrays.append(pa.array(list(part.values()), t))
            else:
                vals = [None] * n
                for pos, v in part.items():
                    vals[pos] = v
                arrays.append(pa.array(vals, t))
        return pa.RecordBatch.from_arrays(arrays, schema=OUTPUT_SCHEMA)


def decode_rows(rows: Iterable[tuple], builder: Builder) -> None:
    """Decode input rows (tuples in :data:`DECODE_COLUMNS` order, the i-th being input row i)."""
    add, quarantine = builder.add, builder.quarantine
    for src, (kind, version, hex_, data, api_key, direction, body_offset, key, protocol) in enumerate(rows):
        raw = data
        ckind = canonical_kind(kind)
        try:
            if raw is None:
                if hex_ is None:
                    raise RecordError("MissingBytes", "the record has neither 'data' nor 'hex'")
                try:
                    raw = _hex(hex_)
                except ValueError as e:
                    raw = hex_.encode("utf-8", "replace")  # quarantine keeps what was there
                    raise RecordError("HexError", f"'hex' is not hex: {e}") from None
            if isinstance(key, str):
                try:
                    key = _hex(key)
                except ValueError as e:
                    raise RecordError("HexError", f"'key' is not hex: {e}", path="key") from None
            units = decode_record(ckind, raw, version=version, api_key=api_key, direction=direction,
                                  body_offset=body_offset, key=key, protocol=protocol)
        except RecordError as e:
            quarantine(src, ckind, e, raw)
            continue
        if not units:  # every decoded record leaves at least one row, so that it can be counted
            units = [GroupUnit(None, None, None)]
        for i, u in enumerate(units):
            add(src, ckind, u, i)


def _decode_batch(b: pa.RecordBatch) -> pa.RecordBatch:
    builder = Builder()
    cols = [b.column(c).to_pylist() for c in DECODE_COLUMNS]
    decode_rows(zip(*cols), builder)
    return builder.batch(b)


def decode_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function: input batches (columns :data:`INPUT_COLUMNS`) to decoded units."""
    for b in batches:
        if b.num_rows == 0:
            continue
        gc_on = gc.isenabled()
        gc.disable()
        try:
            out = _decode_batch(b)
        finally:
            if gc_on:
                gc.enable()
        yield out


# --- the flat view ------------------------------------------------------------------------------------------

#: flat column -> (struct, field) for the fields of the per-kind structs
_FLAT_FIELDS = [(f.name, "m") for f in MEMBER] + [(f.name, "a") for f in ASSIGNMENT if f.name not in
                                                   ("streams", "consumer_protocol_version")] + \
    [(f.name, "g") for f in GROUP] + [(f.name, "q") for f in QUARANTINE]


def flat_columns(F) -> list:
    """Spark columns (``F`` is ``pyspark.sql.functions``) turning the decoder's output into the flat
    units the tables are built from: the unit's own context over the record's, the struct fields as
    columns, the process id as a UUID string."""
    def own(name, ctx):
        return F.coalesce(F.col(f"u_{name}"), F.col(ctx)).alias(name)

    cols = [F.col("record_id"), F.col("source"), own("group", "group"), own("member", "member"),
            own("generation", "generation"), F.coalesce(F.col("canonical_kind"), F.col("kind")).alias("kind"),
            F.col("ts_ms"), F.col("link"), F.col("direction"), own("leader", "leader"),
            own("protocol", "protocol").alias("protocol_name"), F.col("unit"), F.col("unit_kind")]
    for name, s in _FLAT_FIELDS:
        if name == "process_id":
            h = F.lower(F.hex(F.col("m.process_id")))
            uuid_text = F.concat_ws("-", F.substring(h, 1, 8), F.substring(h, 9, 4), F.substring(h, 13, 4),
                                    F.substring(h, 17, 4), F.substring(h, 21, 12))
            cols.append(F.when(F.col("m.process_id").isNotNull(), uuid_text).alias("process_id"))
        elif name in ("streams", "consumer_protocol_version"):
            cols.append(F.coalesce(F.col(f"m.{name}"), F.col(f"a.{name}")).alias(name))
        else:
            cols.append(F.col(f"{s}.{name}").alias(name))
    return cols


def decode_table(rows: Iterable[dict]) -> pa.Table:
    """Decode plain dicts (keys from :data:`INPUT_COLUMNS`, missing ones None) without Spark through the
    executors' code path, and flatten the result as :func:`flat_columns` does."""
    rows = list(rows)
    types = {"generation": _I32, "version": _I32, "ts_ms": _I64, "api_key": _I32, "body_offset": _I32,
             "data": _BIN}
    inp = pa.RecordBatch.from_pydict({c: pa.array([r.get(c) for r in rows], types.get(
        c, _BIN if c == "key" and any(isinstance(r.get(c), bytes) for r in rows) else _STR)) for c in INPUT_COLUMNS})
    out = _decode_batch(inp).to_pylist()
    flat = []
    for r in out:
        d = {c: r[c] for c in ("record_id", "source", "ts_ms", "link", "direction", "unit", "unit_kind")}
        for name in ("group", "member", "generation", "leader"):
            d[name] = r[f"u_{name}"] if r[f"u_{name}"] is not None else r[name]
        d["protocol_name"] = r["u_protocol"] if r["u_protocol"] is not None else r["protocol"]
        d["kind"] = r["canonical_kind"] if r["canonical_kind"] is not None else r["kind"]
        for name, s in _FLAT_FIELDS:
            d[name] = r[s][name] if r[s] is not None else None
        m, a = r["m"], r["a"]
        for name in ("streams", "consumer_protocol_version"):
            d[name] = m[name] if m is not None else (a[name] if a is not None else None)
        if d["process_id"] is not None:
            d["process_id"] = str(uuid.UUID(bytes=d["process_id"]))
        for name in ("client_tags", "tasks", "active", "standby"):
            d[name] = d[name] or []
        flat.append(d)
    return pa.Table.from_pylist(flat)
