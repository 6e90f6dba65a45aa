"""The executor side of the job: Arrow batches of input records in, Arrow batches of decoded *units* out,
one flat row per unit (the function behind the job's ``mapInArrow``). Needs pyarrow, not pyspark.

What it costs per record matters (issue #9: the Spark path must keep >= 70% of the plain decode rate
per core; issue #29: the native codec's records per CPU-second through Spark), so the shape of the exchange
with the JVM is chosen for it:

* the job runs :func:`decode_batches` under ``mapInArrow`` over the :data:`INPUT_COLUMNS`; each batch comes
  back as one flat row per unit (:data:`FLAT`, the columns the tables are built from): a record can hold
  several units (a leader's JoinGroup response has one per member), and each carries its record's context
  (id, source, time, link ...), repeated with one C++ ``take`` when a record has more than one, and the
  unit's own group, member, generation, leader and protocol over the record's (``coalesce``), its canonical
  kind over the given one. The JVM only converts the batches: no generator, no nested structs to unpack, no
  projection. (Until issue #29 a scalar Arrow UDF returned an ``array<struct<unit>>`` per record that Spark
  exploded with ``inline`` and projected to these columns, its context kept in the JVM and joined back: the
  JVM's part of a record fell from ~9.4 to ~5-6 us with the flat exchange, bench/README.md);
* a unit's fields are those of its kind (member, assignment, group, quarantine, a Kafka Connect worker's
  metadata or assignment: :data:`MEMBER` ... :data:`CONNECT`), null on the units of other kinds (a plain
  consumer's partitions cross as on the wire, per topic, :data:`TOPIC_PARTITIONS`: the tables make a row of each
  partition, so a long topic name is not repeated here); each kind's
  rows are built densely (a tuple per row and a Python list per list field, converted by pyarrow in one
  call each) and scattered to the units with one C++ ``take``; the process id is formatted here (in the JVM
  it cost ~2.5 us per record); an all-null input column (``hex`` next to binary ``data`` ...) is not
  converted to Python values;
* SubscriptionInfo and AssignmentInfo records take :mod:`codec.pipeline.rows` (bytes to row fields
  through the generated row decoder, no models), in bulk: the batch's records of each kind are picked in
  Arrow and decoded in one call (:func:`_bulk`; with the native codec one call into the engine, which reads
  each record's version and runs its decoder), then placed among the other units (:func:`_place`);
  everything else, and every record that path declines, takes the models one by one
  (:func:`codec.pipeline.records.decode_record`), which also report the errors;
* the record's bytes cross once, into Python; only a quarantined record's come back (``raw``);
* Java strings may hold lone surrogates (AssignmentInfo's ``javaUTF`` and ``javaChars`` fields: a
  named topology reaches the tables), which Arrow and Parquet cannot store: a batch whose conversion
  fails is converted again with every such string written as :func:`codec.text.utf8_safe` gives it and
  its field named in the unit's ``escaped`` list (e.g. ``active[0].topology``); a record that still
  cannot be converted is quarantined alone (``ConversionError``), never the whole batch.

Memory: one batch of records (Spark's ``spark.sql.execution.arrow.maxRecordsPerBatch``, 10,000 by default)
and its units at a time, as before. :func:`decode_table` runs the same function without Spark, for tests.
"""

from __future__ import annotations

import gc
from itertools import accumulate, repeat
from typing import Iterable, Iterator

import pyarrow as pa
import pyarrow.compute as pc

from ..text import has_lone_surrogate, utf8_safe
from .arrowtypes import (  # (the types, kept apart from the code that fills them)
    _A_SCALARS,
    _BIN,
    _C_LISTS,
    _C_SCALARS,
    _COMMON,
    _CONTEXT_TYPES,
    _I32,
    _I64,
    _KINDS,
    _M_SCALARS,
    _N_SCALARS,
    _OWN,
    _STR,
    ASSIGNMENT,
    CONNECT,
    CONTEXT_COLUMNS,
    DECODE_COLUMNS,
    ESCAPED,
    FLAT,
    GROUP,
    INPUT_COLUMNS,
    MEMBER,
    OFFSETS,
    QUARANTINE,
    SHARE_STATE,
    UNIT_COLUMNS,
)
from .admin import DESCRIBE_GROUPS, DESCRIBED_KIND, OFFSET_FETCH, OFFSETS_KIND, OffsetsUnit, ShareStateUnit
from .kafka4 import HeartbeatAssignmentUnit, HeartbeatMemberUnit
from .records import AssignmentUnit, ConnectUnit, GroupUnit, MemberUnit, RecordError, canonical_kind, decode_record
from .rows import assignment_fields, assignment_rows, subscription_fields, subscription_rows

__all__ = [
    "INPUT_COLUMNS",
    "CONTEXT_COLUMNS",
    "DECODE_COLUMNS",
    "FLAT",
    "decode_batch",
    "decode_batches",
    "Units",
    "decode_table",
]


def _hex(text: str) -> bytes:
    cleaned = "".join(text.split())
    if cleaned[:2] in ("0x", "0X"):
        cleaned = cleaned[2:]
    return bytes.fromhex(cleaned)


def _lists(items: list, t: pa.DataType) -> pa.Array:
    """A list or map array of type ``t`` from per-row Python lists of tuples (None: a null entry), in one C++
    conversion."""
    if items.count(None) == len(items):  # (a list field no unit of the batch has: the fast path's warmup ...)
        return pa.nulls(len(items), t)
    return pa.array(items, t)


class _Kind:
    """The dense rows of one unit kind: the unit position of each, the scalar fields as tuples, and
    the list fields as per-row Python lists."""

    __slots__ = ("pos", "rows", "lists")

    def __init__(self, n_lists: int) -> None:
        self.pos: list[int] = []
        self.rows: list[tuple] = []
        self.lists: tuple[list, ...] = tuple([] for _ in range(n_lists))

    def columns(self, t: pa.StructType, n_scalars: int, units: pa.Array) -> list[pa.Array]:
        """The kind's fields as one column each over every unit (``units``: 0 .. n - 1), null where a
        unit is of another kind: the dense rows converted in one call per field, then scattered with one
        C++ ``take``."""
        n = len(units)
        if not self.pos:
            return [pa.nulls(n, f.type) for f in t]
        fields = list(t)
        arrays = pa.array(self.rows, pa.struct(fields[:n_scalars])).flatten()
        arrays += [_lists(items, f.type) for items, f in zip(self.lists, fields[n_scalars:])]
        if len(self.pos) == n:
            return arrays
        index = pc.index_in(units, value_set=pa.array(self.pos, _I32))
        return [a.take(index) for a in arrays]


#: the common fields of a fast-path unit (unit index, unit kind, canonical kind, streams, protocol version)
_FAST_MEMBER = (0, "member", "subscription-info", True, None)
#: the unit lists that hold no text a lone surrogate can be in (numbers, bytes, Kafka's base64 topic ids)
_NOT_TEXT = ("subscription_generation", "sticky_generation", "state_batches", "subscription_bytes", "owned_topic_ids")
_FAST_ASSIGNMENT = (0, "assignment", "assignment-info", True, None)


class Units:
    """The units of one batch of records, in record order: :meth:`array` gives one list per record."""

    def __init__(self) -> None:
        self.counts: list[int] = []  # units per record
        self.common: list[tuple] = []  # per unit: unit index, unit kind, canonical kind, streams, protocol version
        self.own: dict[int, tuple] = {}  # unit -> (member, group, generation, leader, protocol), sparse
        self.escaped: dict[int, list[str]] = {}  # unit -> its escaped fields (escape_surrogates), sparse
        self.m, self.a, self.g, self.q, self.c = _Kind(9), _Kind(8), _Kind(2), _Kind(0), _Kind(len(_C_LISTS))
        self.o, self.s = _Kind(1), _Kind(1)  # an OffsetFetch group's committed offsets; a share-partition's state

    # --- the fast path's rows (one unit each, appended without a loop: they are most of a bulk input)
    def member_fields(self, fields: tuple, tasks: list, tags: list | None) -> None:
        """A bare SubscriptionInfo's unit (``fields``: :data:`MEMBER`'s scalars, the client ones None)."""
        m = self.m
        self.counts.append(1)
        m.pos.append(len(self.common))
        self.common.append(_FAST_MEMBER)
        m.rows.append(fields)
        tags_, tasks_, *rest = m.lists
        tags_.append(tags)
        tasks_.append(tasks)
        for items in rest:  # (topics, owned partitions and generation, sticky partitions and generation: none)
            items.append(None)

    def assignment_fields(self, fields: tuple, active: list, standby: list) -> None:
        """A bare AssignmentInfo's unit (``fields``: :data:`ASSIGNMENT`'s scalars)."""
        a = self.a
        self.counts.append(1)
        a.pos.append(len(self.common))
        self.common.append(_FAST_ASSIGNMENT)
        a.rows.append(fields)
        active_, standby_, *rest = a.lists
        active_.append(active)
        standby_.append(standby)
        for items in rest:  # warm-up, shared, topic partitions, consumed, revoking
            items.append(None)

    # --- the models' rows
    def units(self, ckind: str | None, units: list) -> None:
        if not units:  # every decoded record leaves at least one row, so that it can be counted
            units = [GroupUnit(None, None, None)]
        self.counts.append(len(units))
        for index, unit in enumerate(units):
            self._unit(ckind, unit, index)

    def _unit(self, ckind: str | None, unit, index: int) -> None:
        pos = len(self.common)
        cls = type(unit)
        info = getattr(unit, "info", None)
        if cls is MemberUnit:
            self.common.append((index, "member", ckind, info is not None, unit.consumer_protocol_version))
            m = self.m
            m.pos.append(pos)
            extra = (unit.rack_id, unit.group_instance_id, unit.client_id, unit.client_host)
            m.lists[2].append(unit.subscribed_topics)
            m.lists[3].append(unit.owned_partitions)
            m.lists[4].append(unit.subscription_generation)
            m.lists[5].append(unit.sticky_partitions)
            m.lists[6].append(unit.sticky_generation)
            m.lists[7].append(unit.subscription_bytes)
            m.lists[8].append(None)
            if info is None:
                m.rows.append((None,) * 7 + extra)
                m.lists[0].append(None)
                m.lists[1].append(None)
            else:
                m.rows.append(
                    (
                        str(info.process_id),
                        info.version,
                        info.latest_supported_version,
                        info.user_endpoint,
                        info.unique_field,
                        info.error_code,
                        info.is_version_probe,
                    )
                    + extra
                )
                m.lists[0].append(list(info.client_tags.items()) if info.client_tags else None)
                m.lists[1].append(
                    [(t.subtopology, t.partition, t.topology_name, v, None) for t, v in info.task_offset_sums.items()]
                )
        elif cls is AssignmentUnit:
            self.common.append((index, "assignment", ckind, info is not None, unit.consumer_protocol_version))
            a = self.a
            a.pos.append(pos)
            a.lists[2].append(None)
            a.lists[3].append(None)
            a.lists[4].append(unit.topic_partitions)
            a.lists[5].append(None)
            a.lists[6].append(None)
            a.lists[7].append(unit.assignment_bytes)
            if info is None:
                a.rows.append((None,) * 5)
                a.lists[0].append(None)
                a.lists[1].append(None)
            else:
                # positional: one entry per assigned partition, counted per task
                active: dict = {}
                for t in info.active_tasks:
                    k = (t.subtopology, t.partition, t.topology_name)
                    active[k] = active.get(k, 0) + 1
                a.rows.append(
                    (
                        info.version,
                        info.commonly_supported_version,
                        info.error_code,
                        info.next_rebalance_ms,
                        len(info.partitions_by_host),
                    )
                )
                a.lists[0].append([(*k, c) for k, c in active.items()])
                a.lists[1].append(
                    [(t.subtopology, t.partition, t.topology_name, len(ps)) for t, ps in info.standby_tasks.items()]
                )
        elif cls is HeartbeatMemberUnit:  # a KIP-848/1071 member: no SubscriptionInfo, its fields as they are
            self.common.append((index, "member", ckind, unit.streams, None))
            m = self.m
            m.pos.append(pos)
            m.rows.append(
                (
                    unit.process_id,
                    None,
                    None,
                    unit.endpoint,
                    None,
                    None,
                    False,
                    unit.rack_id,
                    unit.group_instance_id,
                    unit.client_id,
                    unit.client_host,
                )
            )
            m.lists[0].append(unit.client_tags)
            m.lists[1].append(unit.tasks)
            m.lists[2].append(unit.subscribed_topics)
            m.lists[3].append(None)  # (owned partitions by name, sticky user data, bytes: a classic member's)
            m.lists[4].append(getattr(unit, "owned_epoch", None))
            for items in m.lists[5:8]:
                items.append(None)
            m.lists[8].append(getattr(unit, "owned", None))  # (a KIP-848 member's, by topic id)
        elif cls is HeartbeatAssignmentUnit:
            self.common.append((index, "assignment", ckind, unit.streams, None))
            a = self.a
            a.pos.append(pos)
            a.rows.append((None, None, unit.error_code, None, None))
            a.lists[0].append(unit.active)
            a.lists[1].append(unit.standby)
            a.lists[2].append(unit.warmup)
            a.lists[3].append(unit.shared)
            a.lists[4].append(None)
            a.lists[5].append(unit.consumed)
            a.lists[6].append(unit.revoking)
            a.lists[7].append(None)
        elif cls is ConnectUnit:
            self.common.append((index, "connect", ckind, None, None))
            c = self.c
            c.pos.append(pos)
            worker = unit.info  # a ConnectUnit's model is always there: ConnectMetadata or ConnectAssignment
            if unit.layer == "metadata":  # the worker's url and config offset, and its previous assignment
                alloc = worker.allocation
                c.rows.append(("metadata", worker.version, worker.url, worker.config_offset, None, None, None, None))
                lists = (
                    (alloc.connectors, alloc.tasks, alloc.revoked_connectors, alloc.revoked_tasks)
                    if alloc is not None
                    else (None,) * 4
                )
            else:
                c.rows.append(
                    (
                        "assignment",
                        worker.version,
                        None,
                        worker.config_offset,
                        worker.error,
                        worker.leader,
                        worker.leader_url,
                        worker.delay,
                    )
                )
                lists = (worker.connectors, worker.tasks, worker.revoked_connectors, worker.revoked_tasks)
            for items, values, tasks in zip(c.lists, lists, (False, True, False, True)):
                if values is None:
                    items.append(None)
                elif tasks:
                    items.append([(t.connector, t.task) for t in values])
                else:
                    items.append(list(values))
        elif cls is OffsetsUnit:
            self.common.append((index, "offsets", ckind, None, None))
            self.o.pos.append(pos)
            self.o.rows.append((unit.error_code,))
            self.o.lists[0].append(unit.committed)
        elif cls is ShareStateUnit:
            self.common.append((index, "share-state", ckind, None, None))
            self.s.pos.append(pos)
            self.s.rows.append(unit[3:-1])
            self.s.lists[0].append(unit.batches)
        else:
            self.common.append((index, "group", ckind, None, None))
            self.g.pos.append(pos)
            g = unit  # (a group unit: a LeaveGroup request's carries its event and reason)
            self.g.rows.append((g.protocol_type, g.member_count, g.error_code, g.group_protocol, g.event, g.reason))
            self.g.lists[0].append(getattr(unit, "share_topics", None))
            self.g.lists[1].append(getattr(unit, "metadata_topics", None))
        if (
            unit.member is not None
            or unit.group is not None
            or unit.generation is not None
            or (cls is GroupUnit and unit.leader is not None)
            or getattr(unit, "protocol_name", None) is not None
        ):
            self.own[pos] = (
                unit.member,
                unit.group,
                unit.generation,
                getattr(unit, "leader", None),
                getattr(unit, "protocol_name", None),
            )

    def quarantine(self, ckind: str | None, err: RecordError, raw: bytes | None) -> None:
        self.counts.append(1)
        self.q.pos.append(len(self.common))
        self.common.append((0, "quarantine", ckind, None, None))
        self.q.rows.append((err.type, err.message, err.offset, err.path, err.layer, raw))

    def escape_surrogates(self) -> bool:
        """Write every string holding a lone surrogate as :func:`codec.text.utf8_safe` gives it, naming its
        field in the unit's ``escaped`` list; True if any was found. (Only after a failed conversion: the
        walk costs what the conversion does.)"""
        found = False

        def fix(pos: int, name: str, s):
            nonlocal found
            if isinstance(s, str) and has_lone_surrogate(s):
                found = True
                names = self.escaped.setdefault(pos, [])
                if name not in names:
                    names.append(name)
                return utf8_safe(s)
            return s

        def row(pos: int, values: tuple, names) -> tuple:
            return tuple(fix(pos, n, v) if n else v for v, n in zip(values, names))

        common_names = (None, None, "kind", None, None)
        self.common = [row(p, c, common_names) for p, c in enumerate(self.common)]
        own_names = ("member", "group", None, "leader", "protocol_name")
        self.own = {p: row(p, o, own_names) for p, o in self.own.items()}
        kinds = (
            (
                self.m,
                MEMBER,
                len(_M_SCALARS),
                (
                    "client_tags",
                    "tasks",
                    "subscribed_topics",
                    "owned_partitions",
                    "subscription_generation",
                    "sticky_partitions",
                    "sticky_generation",
                    "subscription_bytes",
                    "owned_topic_ids",
                ),
            ),
            (
                self.a,
                ASSIGNMENT,
                len(_A_SCALARS),
                ("active", "standby", "warmup", "shared", "topic_partitions", "consumed", "revoking"),
            ),
            (self.g, GROUP, 6, ("share_topics",)),
            (self.q, QUARANTINE, 6, ()),
            (self.c, CONNECT, len(_C_SCALARS), _C_LISTS),
            (self.o, OFFSETS, 1, ("committed",)),
            (self.s, SHARE_STATE, len(SHARE_STATE) - 1, ("state_batches",)),
        )
        for k, t, n_scalars, list_names in kinds:
            names = [f.name if pa.types.is_string(f.type) else None for f in list(t)[:n_scalars]]
            for j, pos in enumerate(k.pos):
                k.rows[j] = row(pos, k.rows[j], names)
                for items, list_name in zip(k.lists, list_names):
                    entries = items[j]
                    if not entries or list_name in _NOT_TEXT:
                        continue
                    if list_name == "client_tags":  # a map: its keys and values together
                        items[j] = [(fix(pos, list_name, key), fix(pos, list_name, v)) for key, v in entries]
                    elif list_name in ("shared", "share_topics", "consumed", "revoking"):  # (id, name, ...)
                        items[j] = [
                            (e[0], fix(pos, f"{list_name}[{i}].topic", e[1]), *e[2:]) for i, e in enumerate(entries)
                        ]
                    elif list_name in (
                        "topic_partitions",
                        "owned_partitions",
                        "sticky_partitions",
                    ):  # (topic, partitions)
                        items[j] = [(fix(pos, f"{list_name}[{i}].topic", e[0]), e[1]) for i, e in enumerate(entries)]
                    elif list_name in ("connectors", "revoked_connectors", "subscribed_topics"):  # names
                        items[j] = [fix(pos, f"{list_name}[{i}]", e) for i, e in enumerate(entries)]
                    elif list_name == "committed":  # (topic, topic id, partition, offset, epoch, metadata, error)
                        items[j] = [
                            (
                                fix(pos, f"committed[{i}].topic", e[0]),
                                e[1],
                                e[2],
                                e[3],
                                e[4],
                                fix(pos, f"committed[{i}].metadata", e[5]),
                                e[6],
                            )
                            for i, e in enumerate(entries)
                        ]
                    elif list_name in ("connect_tasks", "revoked_tasks"):  # (connector, task)
                        items[j] = [
                            (fix(pos, f"{list_name}[{i}].connector", e[0]), e[1]) for i, e in enumerate(entries)
                        ]
                    else:  # tasks: (subtopology, partition, topology, n)
                        items[j] = [
                            (e[0], e[1], fix(pos, f"{list_name}[{i}].topology", e[2]), *e[3:])
                            for i, e in enumerate(entries)
                        ]
        return found

    def table(self) -> pa.RecordBatch:
        """The units as :data:`UNIT_COLUMNS`, one row each, in record order. A string Arrow cannot hold (a lone
        surrogate) makes the batch convert again after :meth:`escape_surrogates`."""
        try:
            return self._table()
        except Exception:  # noqa: BLE001 - pyarrow's UnicodeEncodeError (or ArrowInvalid) on a lone surrogate
            if not self.escape_surrogates():
                raise
        return self._table()

    def _table(self) -> pa.RecordBatch:
        n = len(self.common)
        arrays = (
            [pa.array(c, t) for c, (_, t) in zip(zip(*self.common), _COMMON)]
            if n
            else [pa.array([], t) for _, t in _COMMON]
        )
        for i, (_, t) in enumerate(_OWN):
            if self.own:
                vals = [None] * n
                for pos, o in self.own.items():
                    vals[pos] = o[i]
                arrays.append(pa.array(vals, t))
            else:
                arrays.append(pa.nulls(n, t))
        if self.escaped:
            arrays.append(pa.array([self.escaped.get(p) for p in range(n)], ESCAPED))
        else:
            arrays.append(pa.nulls(n, ESCAPED))
        units = pa.array(range(n), _I32)
        for k, t, n_scalars in zip((self.m, self.a, self.g, self.q, self.c, self.o, self.s), _KINDS, _N_SCALARS):
            arrays += k.columns(t, n_scalars, units)
        return pa.RecordBatch.from_arrays(arrays, schema=UNIT_COLUMNS)


def decode_rows(rows: Iterable[tuple], out: Units) -> None:
    """Decode input rows (tuples in :data:`DECODE_COLUMNS` order) into ``out``, one entry per row."""
    member_fields, assignment_fields_, units, quarantine = (
        out.member_fields,
        out.assignment_fields,
        out.units,
        out.quarantine,
    )
    for kind, version, hex_, data, api_key, direction, body_offset, key, protocol, input_error in rows:
        ckind = canonical_kind(kind)
        if input_error is not None:  # the record as given does not fit: quarantined with what it holds
            type_, _, message = input_error.partition(": ")
            quarantine(
                ckind,
                RecordError(type_, message),
                data if data is not None else None if hex_ is None else hex_.encode("utf-8", "replace"),
            )
            continue
        raw = data
        if raw is None and hex_ is not None:
            try:
                raw = _hex(hex_)
            except ValueError as e:  # quarantine keeps what was there
                quarantine(ckind, RecordError("HexError", f"'hex' is not hex: {e}"), hex_.encode("utf-8", "replace"))
                continue
        if raw is not None and not isinstance(key, str):  # (a 'key' in hex is checked below)
            if ckind == "subscription-info":
                got = subscription_fields(raw)
                if got is not None:
                    member_fields(*got)
                    continue
            elif ckind == "assignment-info":
                got = assignment_fields(raw)
                if got is not None:
                    assignment_fields_(*got)
                    continue
        try:
            if raw is None:
                raise RecordError("MissingBytes", "the record has neither 'data' nor 'hex'")
            if isinstance(key, str):
                try:
                    key = _hex(key)
                except ValueError as e:
                    raise RecordError("HexError", f"'key' is not hex: {e}", path="key") from None
            decoded = decode_record(
                ckind,
                raw,
                version=version,
                api_key=api_key,
                direction=direction,
                body_offset=body_offset,
                key=key,
                protocol=protocol,
            )
        except RecordError as e:
            quarantine(ckind, e, raw)
            continue
        # a DescribeGroups or OffsetFetch response's rows say so in their kind (codec.pipeline.admin)
        units(_MARKED.get(api_key, ckind) if ckind == "frame" and direction == "response" else ckind, decoded)


#: the kind of the rows of an admin API's frames (codec.pipeline.admin): their records' kind is ``frame``
_MARKED = {DESCRIBE_GROUPS: DESCRIBED_KIND, OFFSET_FETCH: OFFSETS_KIND}


def _values(column: pa.Array) -> Iterable:
    """A column's values as Python objects (an all-null column, e.g. ``hex`` next to binary ``data``, as
    ``None`` without converting it)."""
    return repeat(None, len(column)) if column.null_count == len(column) else column.to_pylist()


#: the kinds whose records a batch decodes in bulk (:func:`_bulk`): most of a bulk input, one unit each
_BULK = {"subscription-info": subscription_rows, "assignment-info": assignment_rows}


def _canonical_kinds(batch: pa.RecordBatch) -> pa.Array | None:
    """The canonical kind of each record (:func:`codec.pipeline.records.canonical_kind` of each distinct
    given kind, once), or None without a kind column."""
    if "kind" not in batch.schema.names:
        return None
    kinds = batch.column("kind").dictionary_encode()
    canonical = pa.array([canonical_kind(k) for k in kinds.dictionary.to_pylist()], _STR)
    return canonical.take(kinds.indices)


def _bulk(batch: pa.RecordBatch) -> dict[str, tuple[list[int], list]]:
    """The records each bulk kind's decoder (:data:`_BULK`) took, by kind: their positions in the batch and
    their rows (``None``: declined, the models decide). A record is taken when its canonical kind is one of
    them, it has binary ``data``, no input error and no ``key`` in hex -- what :func:`decode_rows` would give
    the same decoder."""
    kinds = _canonical_kinds(batch)
    names = batch.schema.names
    if kinds is None or "data" not in names or batch.column("data").null_count == len(batch):
        return {}
    data = batch.column("data")
    base = pc.is_valid(data)
    if "input_error" in names:
        base = pc.and_(base, pc.is_null(batch.column("input_error")))
    if "key" in names and pa.types.is_string(batch.column("key").type):
        base = pc.and_(base, pc.is_null(batch.column("key")))
    out = {}
    for kind, rows in _BULK.items():
        index = pc.indices_nonzero(pc.and_(base, pc.fill_null(pc.equal(kinds, kind), False)))
        if len(index):
            out[kind] = (index.to_pylist(), rows(data.take(index).to_pylist()))
    return out


def _place(n: int, bulk: dict, slow: list[int], out: Units) -> Units:
    """``out`` -- the units of the records at positions ``slow`` (in order) -- with the bulk-decoded units
    (one per record) added, every unit at its place in record order."""
    counts = [1] * n
    for i, c in zip(slow, out.counts):
        counts[i] = c
    start = list(accumulate(counts, initial=0))
    where = [p for i, c in zip(slow, out.counts) for p in range(start[i], start[i] + c)]
    common: list = [None] * start[-1]
    for p, entry in zip(where, out.common):
        common[p] = entry
    out.common = common
    out.own = {where[p]: o for p, o in out.own.items()}
    out.escaped = {where[p]: e for p, e in out.escaped.items()}
    for k in (out.m, out.a, out.g, out.q, out.c):
        k.pos = [where[p] for p in k.pos]
    out.counts = counts
    for kind, (index, got) in bulk.items():
        taken = [(start[i], r) for i, r in zip(index, got) if r is not None]
        if not taken:
            continue
        pos, rows = zip(*taken)
        fields, first, second = zip(*rows)
        none = [None] * len(pos)
        lists: list[Iterable]
        if kind == "subscription-info":  # (client tags, tasks, subscribed topics, owned ...) from (fields, tasks, tags)
            k, unit, lists = out.m, _FAST_MEMBER, [second, first]
        else:  # (active, standby, warm-up, shared, topic partitions, ...) from (fields, active, standby)
            k, unit, lists = out.a, _FAST_ASSIGNMENT, [first, second]
        lists += [none] * (len(k.lists) - 2)  # (every other list: none; each list one entry a unit)
        for p in pos:
            common[p] = unit
        k.pos += pos
        k.rows += fields
        for items, values in zip(k.lists, lists):
            items += values
    return out


def decode_batch(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The executors' function: a batch of input records (the :data:`INPUT_COLUMNS`) -> their decoded units,
    one row per unit in record order (:data:`FLAT`). SubscriptionInfo and AssignmentInfo records are decoded
    in bulk (:func:`_bulk`, one call per kind); the rest, and any the bulk decoders decline, one by one
    (:func:`decode_rows`)."""
    gc_on = gc.isenabled()
    gc.disable()  # nothing built here forms cycles; the collector would walk the growing rows again and again
    try:
        n = batch.num_rows
        bulk = _bulk(batch)
        taken = {i for index, got in bulk.values() for i, r in zip(index, got) if r is not None}
        slow = [i for i in range(n) if i not in taken] if taken else list(range(n))
        out = Units()
        if slow:
            rest = batch if len(slow) == n else batch.take(pa.array(slow, _I32))
            decode_rows(_rows(rest), out)
        out = _place(n, bulk, slow, out) if taken else out
        try:
            units, counts = out.table(), out.counts
        except Exception:  # noqa: BLE001 - units Arrow cannot hold even escaped: see _convert_carefully
            units, counts = _convert_carefully(_rows(batch))
        return _with_context(batch, units, counts)
    finally:
        if gc_on:
            gc.enable()


def _rows(batch: pa.RecordBatch) -> list[tuple]:
    """The batch's records as :func:`decode_rows` takes them (tuples in :data:`DECODE_COLUMNS` order)."""
    n, given = batch.num_rows, set(batch.schema.names)
    return list(zip(*(_values(batch.column(c)) if c in given else repeat(None, n) for c in DECODE_COLUMNS)))


def decode_batches(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """:func:`decode_batch` over each batch (the function Spark's ``mapInArrow`` runs)."""
    for batch in batches:
        yield decode_batch(batch)


def _convert_carefully(rows: list[tuple]) -> tuple[pa.RecordBatch, list[int]]:
    """Record by record (slow; only for a batch that failed whole): lone surrogates escaped, and a record
    whose units still cannot be converted quarantined alone, with its bytes."""
    pieces, counts = [], []
    for row in rows:
        u = Units()
        decode_rows([row], u)
        try:
            pieces.append(u.table())
            counts += u.counts
            continue
        except Exception as e:  # noqa: BLE001 - this record only
            err = RecordError("ConversionError", f"the decoded record cannot be stored: {type(e).__name__}: {e}")
        kind, hex_, data = row[0], row[2], row[3]
        if data is None and hex_ is not None:
            try:
                data = _hex(hex_)
            except ValueError:
                data = hex_.encode("utf-8", "replace")
        q = Units()
        q.quarantine(canonical_kind(kind), err, data)
        pieces.append(q.table())
        counts += q.counts
    if not pieces:
        return Units().table(), counts
    return pa.Table.from_batches(pieces, UNIT_COLUMNS).combine_chunks().to_batches()[0], counts


def _with_context(batch: pa.RecordBatch, units: pa.RecordBatch, counts: list[int]) -> pa.RecordBatch:
    """The units with their record's context (:data:`FLAT`): each record's columns repeated for its units,
    the unit's own group, member, generation, leader and protocol over the record's, its canonical kind
    over the given one."""
    record = None if len(units) == len(batch) else pa.array([i for i, c in enumerate(counts) for _ in range(c)], _I32)

    def context(name: str) -> pa.Array:
        t = _CONTEXT_TYPES.get(name, _STR)
        if name not in batch.schema.names:  # (a column the job found null on every row: see job.decode)
            return pa.nulls(len(units), t)
        column = batch.column(name)
        if column.type != t:
            column = column.cast(t)
        return column if record is None else column.take(record)

    def over(own: pa.Array, given: pa.Array) -> pa.Array:
        return given if own.null_count == len(own) else pc.coalesce(own, given)

    own = {
        "protocol": "u_protocol",
        "kind": "canonical_kind",
        **{c: f"u_{c}" for c in ("group", "member", "generation", "leader")},
    }
    columns = [over(units.column(own[c]), context(c)) if c in own else context(c) for c in CONTEXT_COLUMNS]
    columns += [units.column(f.name) for f in list(FLAT)[len(CONTEXT_COLUMNS) :]]
    return pa.RecordBatch.from_arrays(columns, schema=FLAT)


def decode_table(rows: Iterable[dict]) -> pa.Table:
    """Decode plain dicts (keys from :data:`INPUT_COLUMNS`, missing ones None) without Spark through the
    executors' function (:func:`decode_batch`): one row per unit, the job's columns (:data:`FLAT`)."""
    rows = list(rows)
    types = {"generation": _I32, "version": _I32, "ts_ms": _I64, "api_key": _I32, "body_offset": _I32, "data": _BIN}

    def column(c):
        t = types.get(c, _BIN if c == "key" and any(isinstance(r.get(c), bytes) for r in rows) else _STR)
        return pa.array([r.get(c) for r in rows], t)

    batch = pa.RecordBatch.from_arrays([column(c) for c in INPUT_COLUMNS], names=list(INPUT_COLUMNS))
    return pa.Table.from_batches([decode_batch(batch)])
