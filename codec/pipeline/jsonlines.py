"""JSON lines read one line at a time, with the documented columns (no pyspark here: the executors run it).

Spark's JSON reader infers one schema for all the lines it reads, and a single line can make that fail for
every other (a key twice, ``"hex"`` and ``"HEX"`` in one object: Spark's column names ignore case). So the
job reads a JSON lines input as text and hands each line to :func:`parse_lines`, which parses it on its own,
strictly, into the documented columns (:data:`COLUMNS`, the package docstring's table):

* a blank line is not a record;
* a line that is not a JSON object is kind ``not-json`` (quarantined with its text, as before);
* an object holding one key twice, or two keys that differ only in case (at any depth), is kind
  ``duplicate-key``: one quarantine row naming the key, its text kept (which value was meant cannot be told);
* a documented column's value becomes its text: a string as it is, a number or ``true``/``false`` as JSON
  writes it, an object or a list as compact JSON (so ``"generation": 5`` and ``"generation": "5"`` read
  alike, and casting it is the job's, which quarantines a value that does not fit: :data:`INPUT_ERROR`);
  bytes (``hex``, ``data``, ``key``, ``value``) must be a string or null, else the record is quarantined
  naming the field and what it holds; other keys are ignored.

Each line's result is one row of :data:`ROW` (a struct of strings): the columns, then ``input_error``
(``"<type>: <message>"`` or null), which :func:`codec.pipeline.arrow.decode_rows` turns into the record's
quarantine row.
"""

from __future__ import annotations

import json

import pyarrow as pa

__all__ = ["COLUMNS", "BYTES_COLUMNS", "INPUT_ERROR", "ROW", "parse_line", "parse_raw", "parse_lines", "too_long"]

#: The columns of the package docstring, as a JSON line may spell them (synonyms included).
COLUMNS = (
    "record_id",
    "id",
    "group",
    "group_id",
    "member",
    "member_id",
    "generation",
    "generation_id",
    "kind",
    "version",
    "api_version",
    "timestamp",
    "ts_ms",
    "ts",
    "hex",
    "data",
    "key",
    "value",
    "api_key",
    "direction",
    "body_offset",
    "protocol",
    "leader",
    "conn",
    "connection",
    "correlation_id",
    "run",
    "scenario",
    "type",
    "api_name",
)
#: Columns holding bytes: in JSON, a hex string (or null).
BYTES_COLUMNS = frozenset(("hex", "data", "key", "value"))
#: The column that says why a record is quarantined before any decoding.
INPUT_ERROR = "input_error"
ROW = pa.struct([(c, pa.string()) for c in COLUMNS] + [(INPUT_ERROR, pa.string())])
_INDEX = {c: i for i, c in enumerate(COLUMNS)}


class _Collision(ValueError):
    """Two keys of one object a case-blind reader cannot tell apart (the same key twice, or two spellings)."""

    def __init__(self, first: str, second: str) -> None:
        super().__init__(first, second)
        self.first, self.second = first, second


def _unique(pairs: list[tuple[str, object]]) -> dict:
    """An object's keys, refused when one is given twice or two differ only in case."""
    out = dict(pairs)
    if len(out) != len(pairs) or len({k.lower() for k in out}) != len(out):
        seen: dict[str, str] = {}
        for k, _ in pairs:
            if k.lower() in seen:
                raise _Collision(seen[k.lower()], k)
            seen[k.lower()] = k
    return out


def _describe(v) -> str:
    return {dict: "a JSON object", list: "a JSON list", bool: "a boolean", int: "a number", float: "a number"}.get(
        type(v), type(v).__name__
    )


def _text(v) -> str | None:
    if v is None or isinstance(v, str):
        return v
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def parse_line(line: str) -> list[str | None] | None:
    """One line's row (:data:`ROW`'s fields in order), or None for a blank line."""
    text = line.lstrip("\ufeff")
    if not text.strip():
        return None
    row: list[str | None] = [None] * (len(COLUMNS) + 1)
    try:
        obj = json.loads(text, object_pairs_hook=_unique)
    except _Collision as e:
        row[_INDEX["kind"]] = "duplicate-key"
        row[-1] = f"DuplicateKey: the line holds {_keys(e)}, so which value was meant cannot be told"
        return row
    except (ValueError, RecursionError):
        obj = None
    if not isinstance(obj, dict):
        row[_INDEX["kind"]] = "not-json"
        return row
    for name in COLUMNS:
        if name in obj:
            v = obj[name]
            if name in BYTES_COLUMNS and v is not None and not isinstance(v, str):
                row[-1] = row[-1] or f"FieldType: '{name}' is {_describe(v)}, not the bytes as a hex string"
            row[_INDEX[name]] = _text(v)
    return row


def _keys(e: _Collision) -> str:
    first, second = e.first[:60], e.second[:60]
    if first == second:
        return f"the key {first!r} twice"
    return f"the keys {first!r} and {second!r} (they differ only in case, and column names do not)"


def parse_raw(raw: bytes) -> list[str | None] | None:
    """A line's row from its bytes, whatever they are (as read from its file): one that is not UTF-8 is not
    JSON (kind ``not-json``), never decoded with replacement characters."""
    try:
        return parse_line(raw.decode("utf-8"))
    except UnicodeDecodeError:
        row: list[str | None] = [None] * (len(COLUMNS) + 1)
        row[_INDEX["kind"]] = "not-json"
        return row


def _row(raw: bytes | None, max_line: int | None) -> list[str | None] | None:
    if raw is None:
        return None
    if max_line is not None and len(raw) > max_line:
        row: list[str | None] = [None] * (len(COLUMNS) + 1)
        row[_INDEX["kind"]] = "line-too-long"
        row[-1] = too_long(len(raw), max_line)
        return row
    return parse_raw(raw)


def too_long(size: int, max_line: int) -> str:
    """The ``input_error`` of a line over the maximum line length (kind ``line-too-long``)."""
    return (
        f"LineLength: the line is {size:,} bytes, over the maximum line length ({max_line:,} bytes: --max-line-length)"
    )


def parse_lines(lines: pa.Array, max_line: int | None = None) -> pa.Array:
    """The rows (:data:`ROW`) of a batch of lines; a blank line's row is null (the job drops it). The lines are
    read as bytes: Spark's strings keep a file's bytes as they are, UTF-8 or not. A line over ``max_line`` bytes
    is kind ``line-too-long``, with its size."""
    names = (*COLUMNS, INPUT_ERROR)
    rows = (_row(raw, max_line) for raw in lines.cast(pa.binary()).to_pylist())
    return pa.array([None if r is None else dict(zip(names, r)) for r in rows], ROW)
