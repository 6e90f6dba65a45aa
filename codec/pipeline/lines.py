"""JSON lines files read whole by the executors, one line at a time, each line numbered where it is read (no
pyspark here: the executors run it).

The job hands every JSON lines file that Spark would read in one piece (one no larger than
``spark.sql.files.maxPartitionBytes``) to :func:`read_files` as one row of Spark's ``binaryFile`` source: the
file's path and bytes, and its partition values (a ``name=value`` folder above it). :func:`read_files`
decompresses the bytes by the file's name, as Spark's text reader would (``.gz``, ``.bz2``, ``.deflate``:
:data:`CODECS`), splits them at each ``\\n`` (a ``\\r`` before it is part of the line, and JSON reads it as
blank space) and parses each line on its own (:func:`codec.pipeline.jsonlines.parse_raw`). Provenance is exact
by construction: a line's file is the row it came from and its number is counted here, from 1, blank lines
included (they are lines, though not records), whatever else the task reads -- no file name or row id is asked
of Spark afterwards.

Memory is bounded per line, not per file's contents: compressed bytes are inflated a slice at a time
(:data:`CHUNK`), and a line longer than ``max_line`` bytes is never held -- its bytes are counted and dropped as
they come, and it becomes one record quarantined as ``line-too-long`` with its size (``LineLength: ...``), the
lines around it read as usual. Compressed data that is corrupt or cut short gives the lines before the fault,
then one record quarantined as ``unreadable`` (``CorruptInput: ...``, naming where): nothing after it can be
read, and nothing before it is lost.

Each output row is one line of :func:`schema`: the file (``__source``, as Hadoop names it: ``file:/tmp/a b.jsonl``),
the line's number (``__pos``), the columns of :data:`codec.pipeline.jsonlines.ROW`, the line's bytes when it
is quarantined whole (``__line``: not JSON, a key twice) and the file's partition values (``__part_<name>``).
"""

from __future__ import annotations

import bz2
import zlib
from typing import Callable, Iterable, Iterator

import pyarrow as pa

from .jsonlines import COLUMNS, INPUT_ERROR, parse_raw, too_long

__all__ = [
    "CODECS",
    "CHUNK",
    "SOURCE",
    "POS",
    "LINE",
    "PART",
    "schema",
    "split_lines",
    "read_files",
    "codec_of",
]

SOURCE, POS, LINE, PART = "__source", "__pos", "__line", "__part_"
#: bytes inflated (or sliced, uncompressed) at a time
CHUNK = 1 << 20
_ROWS, _BYTES = 4096, 32 << 20  # an output batch: at most this many rows, or about this many bytes of lines


def _inflate(wbits: int) -> Callable[[bytes], Iterator[bytes]]:
    """A zlib or gzip stream's data, a slice at a time; concatenated gzip members (``cat a.gz b.gz``) are read
    on, as Hadoop's codec reads them."""

    def run(data: bytes) -> Iterator[bytes]:
        rest: bytes | memoryview = memoryview(data)
        while True:
            d = zlib.decompressobj(wbits)
            tail = rest
            while not d.eof:
                out = d.decompress(tail, CHUNK)
                tail = d.unconsumed_tail
                if out:
                    yield out
                elif not tail:  # every byte given, no more data, and the stream has not ended
                    raise zlib.error("the compressed data is cut short")
            rest = d.unused_data
            if not bytes(rest).strip(b"\x00"):  # (zero padding after the last member, which gzip allows)
                return

    return run


def _bunzip(data: bytes) -> Iterator[bytes]:
    rest = data
    while rest:
        d = bz2.BZ2Decompressor()
        out = d.decompress(rest, CHUNK)
        while True:
            if out:
                yield out
            if d.eof:
                break
            if d.needs_input:
                raise OSError("the compressed data is cut short")
            out = d.decompress(b"", CHUNK)
        rest = d.unused_data


def _plain(data: bytes) -> Iterator[bytes]:
    view = memoryview(data)
    for i in range(0, len(view), CHUNK):
        yield view[i : i + CHUNK].tobytes()


#: file name ending -> how its bytes are read (Hadoop's codecs of the same names: GzipCodec, BZip2Codec,
#: DefaultCodec). Other codecs Hadoop knows by name (``.lz4``, ``.snappy``, ``.zst``) are left to Spark's text
#: reader (:data:`HADOOP_ONLY`).
CODECS: dict[str, Callable[[bytes], Iterator[bytes]]] = {
    ".gz": _inflate(16 + zlib.MAX_WBITS),
    ".bz2": _bunzip,
    ".deflate": _inflate(zlib.MAX_WBITS),
}
HADOOP_ONLY = (".lz4", ".snappy", ".zst")


def codec_of(path: str) -> str | None:
    """The compression a file's name says (``.gz`` ...), or None."""
    low = path.lower()
    for ext in (*CODECS, *HADOOP_ONLY):
        if low.endswith(ext):
            return ext
    return None


def split_lines(chunks: Iterable[bytes], max_line: int) -> Iterator[tuple[bytes | None, int]]:
    """``(line, size)`` for each line of the bytes ``chunks`` hold, in order: the line's bytes without its
    ``\\n``, or None when ``size`` is over ``max_line`` (those bytes are not kept). A last line without a
    ``\\n`` is a line; nothing after a last ``\\n`` is."""
    buf = bytearray()
    size = 0
    for chunk in chunks:
        start = 0
        while True:
            i = chunk.find(b"\n", start)
            end = len(chunk) if i < 0 else i
            part = end - start
            if part:
                if size + part <= max_line:
                    buf += chunk[start:end]
                elif size <= max_line:
                    buf.clear()  # (over the maximum: count the rest, keep nothing)
                size += part
            if i < 0:
                break
            yield (bytes(buf) if size <= max_line else None), size
            buf.clear()
            size = 0
            start = i + 1
    if size:
        yield (bytes(buf) if size <= max_line else None), size


def schema(parts: Iterable[str] = ()) -> pa.Schema:
    """The rows :func:`read_files` yields, with the partition columns ``parts`` (as text)."""
    return pa.schema(
        [(SOURCE, pa.string()), (POS, pa.int64())]
        + [(c, pa.string()) for c in (*COLUMNS, INPUT_ERROR)]
        + [(LINE, pa.binary())]
        + [(PART + p, pa.string()) for p in parts]
    )


class _Out:
    """Output rows, as columns, emitted as batches of bounded size."""

    def __init__(self, out_schema: pa.Schema) -> None:
        self.schema = out_schema
        self.cols: list[list] = [[] for _ in out_schema]
        self.n = self.bytes = 0

    def add(self, values: list) -> None:
        for col, v in zip(self.cols, values):
            col.append(v)
        self.n += 1

    def full(self) -> bool:
        return self.n >= _ROWS or self.bytes >= _BYTES

    def batch(self) -> pa.RecordBatch:
        b = pa.RecordBatch.from_arrays(
            [pa.array(c, type=f.type) for c, f in zip(self.cols, self.schema)], schema=self.schema
        )
        self.cols = [[] for _ in self.schema]
        self.n = self.bytes = 0
        return b


_KIND = COLUMNS.index("kind")
_BLANK: list[str | None] = [None] * (len(COLUMNS) + 1)


def _quarantined(kind: str, error: str) -> list[str | None]:
    row = list(_BLANK)
    row[_KIND] = kind
    row[-1] = error
    return row


def _file_rows(source: str, data: bytes, max_line: int) -> Iterator[tuple[int, list[str | None], bytes | None]]:
    """``(line number, row, raw line or None)`` for each record of one file (blank lines are not records)."""
    ext = codec_of(source)
    chunks = CODECS.get(ext or "", _plain)(data)
    number = 0
    try:
        for line, size in split_lines(chunks, max_line):
            number += 1
            if line is None:
                yield number, _quarantined("line-too-long", too_long(size, max_line)), None
                continue
            row = parse_raw(line)
            if row is not None:
                yield number, row, line if row[_KIND] in ("not-json", "duplicate-key") else None
    except (zlib.error, OSError, EOFError) as e:
        number += 1
        what = {".gz": "gzip", ".bz2": "bzip2", ".deflate": "deflate"}.get(ext or "", "compressed")
        yield (
            number,
            _quarantined(
                "unreadable",
                f"CorruptInput: the file's {what} data cannot be read from line {number} on ({e}); "
                f"{number - 1} line(s) before it were read",
            ),
            None,
        )


def read_files(batches: Iterable[pa.RecordBatch], max_line: int, parts: list[str]) -> Iterator[pa.RecordBatch]:
    """The function under the job's ``mapInArrow``: rows of ``binaryFile`` (``path``, ``content`` and the
    partition columns ``parts``, as text) in, one row per record of :func:`schema` out."""
    out = _Out(schema(parts))
    for batch in batches:
        paths = batch.column("path").to_pylist()
        contents = batch.column("content")
        part_values = [batch.column(p).to_pylist() for p in parts]
        for i, source in enumerate(paths):
            data = contents[i].as_buffer()
            fixed = [v[i] for v in part_values]
            for number, row, raw in _file_rows(source, data if data is not None else b"", max_line):
                out.add([source, number, *row, raw, *fixed])
                out.bytes += len(raw) if raw is not None else sum(len(v) for v in row if v is not None)
                if out.full():
                    yield out.batch()
    if out.n:
        yield out.batch()
