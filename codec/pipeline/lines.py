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
    "count_range",
    "range_lines",
    "count_ranges",
    "read_ranges",
]

SOURCE, POS, LINE, PART = "__source", "__pos", "__line", "__part_"
#: bytes inflated (or sliced, uncompressed) at a time
CHUNK = 1 << 20
_ROWS, _BYTES = 4096, 32 << 20  # an output batch: at most this many rows, or about this many bytes of lines


def _plain(data: bytes) -> Iterator[bytes]:
    view = memoryview(data)
    for i in range(0, len(view), CHUNK):
        yield view[i : i + CHUNK].tobytes()


#: file name ending -> how its bytes are read (Hadoop's codecs of the same names: GzipCodec, BZip2Codec,
#: DefaultCodec). Other codecs Hadoop knows by name (``.lz4``, ``.snappy``, ``.zst``) are left to Spark's text
#: reader (:data:`HADOOP_ONLY`).
CODECS: dict[str, Callable[[Iterable[bytes]], Iterator[bytes]]] = {
    ".gz": lambda chunks: _inflate_stream(chunks, 16 + zlib.MAX_WBITS),
    ".bz2": lambda chunks: _bunzip_stream(chunks),
    ".deflate": lambda chunks: _inflate_stream(chunks, zlib.MAX_WBITS),
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

    def put(self, source: str, rows, fixed: list) -> Iterator[pa.RecordBatch]:
        """Add ``rows`` (``(number, row, raw)``) of the file ``source``; a batch each time one is full."""
        for number, row, raw in rows:
            self.add([source, number, *row, raw, *fixed])
            self.bytes += len(raw) if raw is not None else sum(len(v) for v in row if v is not None)
            if self.full():
                yield self.batch()

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


def _records(
    lines: Iterable[tuple[bytes | None, int]], first: int, max_line: int, what: str | None
) -> Iterator[tuple[int, list[str | None], bytes | None]]:
    """``(line number, row, raw line or None)`` for each record among ``lines`` (numbered from ``first``; blank
    lines are not records). Compressed data (``what``: gzip ...) that cannot be read on ends them with one
    ``unreadable`` record."""
    number = first - 1
    try:
        for line, size in lines:
            number += 1
            if line is None:
                yield number, _quarantined("line-too-long", too_long(size, max_line)), None
                continue
            row = parse_raw(line)
            if row is not None:
                yield number, row, line if row[_KIND] in ("not-json", "duplicate-key") else None
    except (zlib.error, OSError, EOFError) as e:
        if what is None:
            raise
        number += 1
        yield (
            number,
            _quarantined(
                "unreadable",
                f"CorruptInput: the file's {what} data cannot be read from line {number} on ({e}); "
                f"{number - first} line(s) before it were read",
            ),
            None,
        )


_WHAT = {".gz": "gzip", ".bz2": "bzip2", ".deflate": "deflate"}


def _file_rows(source: str, data: bytes, max_line: int) -> Iterator[tuple[int, list[str | None], bytes | None]]:
    """The records of one file's bytes."""
    ext = codec_of(source) or ""
    chunks = _plain(data)
    return _records(
        split_lines(CODECS[ext](chunks) if ext in CODECS else chunks, max_line), 1, max_line, _WHAT.get(ext)
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
            yield from out.put(source, _file_rows(source, data if data is not None else b"", max_line), fixed)
    if out.n:
        yield out.batch()


# --- local files read in ranges --------------------------------------------------------------------------------
#
# A local file Spark would split (over spark.sql.files.maxPartitionBytes) is read by the executors themselves, a
# range of bytes each, still a line at a time and bounded (Spark's text reader would hold a line of any length, and
# Hadoop's maximum line length skips or cuts lines without a trace): a first pass counts the lines that begin in each
# range (the \n bytes, in C), a second reads each range's lines, numbered from the lines of the ranges before it. A
# line belongs to the range its first byte lies in. A compressed file is one range, read from its start.


def _chunks(f, first: bytes = b"") -> Iterator[bytes]:
    if first:
        yield first
    while True:
        chunk = f.read(CHUNK)
        if not chunk:
            return
        yield chunk


def count_range(path: str, start: int, end: int) -> int:
    """How many lines begin in bytes ``[start, end)`` of an uncompressed file (a line begins at 0 and after each
    ``\\n`` but the file's last byte)."""
    lo = max(start - 1, 0)
    n = 1 if start == 0 and end > 0 else 0
    with open(path, "rb") as f:
        f.seek(lo)
        left = end - 1 - lo
        while left > 0:
            chunk = f.read(min(CHUNK, left))
            if not chunk:
                break
            n += chunk.count(b"\n")
            left -= len(chunk)
    return n


def range_lines(path: str, start: int, end: int, max_line: int) -> Iterator[tuple[bytes | None, int]]:
    """:func:`split_lines` of the lines that begin in bytes ``[start, end)`` of an uncompressed file."""
    with open(path, "rb") as f:
        pos, rest = start, b""
        if start > 0:  # the first line that begins at or after start: after the first \n at or after start - 1
            f.seek(start - 1)
            pos = start - 1
            while True:
                chunk = f.read(CHUNK)
                if not chunk:
                    return
                i = chunk.find(b"\n")
                if i >= 0:
                    pos, rest = pos + i + 1, chunk[i + 1 :]
                    break
                pos += len(chunk)
        if pos >= end:
            return
        for line, size in split_lines(_chunks(f, rest), max_line):
            yield line, size
            pos += size + 1
            if pos >= end:
                return


def _compressed(path: str, ext: str) -> Iterator[bytes]:
    """A local compressed file's data, a slice at a time (its compressed bytes read a slice at a time too)."""
    with open(path, "rb") as f:
        yield from CODECS[ext](_chunks(f))


def _inflate_stream(chunks: Iterable[bytes], wbits: int) -> Iterator[bytes]:
    """A zlib or gzip stream's data, a slice at a time; concatenated gzip members (``cat a.gz b.gz``) are read on,
    as Hadoop's codec reads them, and zero bytes after the last one ignored, as gzip ignores them."""
    d = zlib.decompressobj(wbits)
    for chunk in chunks:
        data = chunk
        while data:
            if d.eof:
                if not data.strip(b"\x00"):
                    break
                d = zlib.decompressobj(wbits)
            out = d.decompress(data, CHUNK)
            data = d.unused_data if d.eof else d.unconsumed_tail
            if out:
                yield out
            while not data and not d.eof:  # what zlib holds back
                out = d.decompress(b"", CHUNK)
                if not out:
                    break
                yield out
    if not d.eof:
        raise zlib.error("the compressed data is cut short")


def _bunzip_stream(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """A bzip2 file's data, a slice at a time; concatenated streams read on."""
    d: bz2.BZ2Decompressor | None = None
    for chunk in chunks:
        data = chunk
        while data:
            if d is None or d.eof:
                d = bz2.BZ2Decompressor()
            out = d.decompress(data, CHUNK)
            data = b""
            while True:
                if out:
                    yield out
                if d.eof:
                    data = d.unused_data
                    break
                if d.needs_input:
                    break
                out = d.decompress(b"", CHUNK)
    if d is not None and not d.eof:
        raise OSError("the compressed data is cut short")


def count_ranges(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Under ``mapInArrow``: rows (``path``, ``start``, ``end``) in, the same with ``lines`` (:func:`count_range`) out."""
    for batch in batches:
        d = batch.to_pydict()
        lines = [count_range(p, a, b) for p, a, b in zip(d["path"], d["start"], d["end"])]
        yield pa.RecordBatch.from_arrays(
            [batch.column("path"), batch.column("start"), pa.array(lines, pa.int64())], names=["path", "start", "lines"]
        )


def read_ranges(batches: Iterable[pa.RecordBatch], max_line: int, parts: list[str]) -> Iterator[pa.RecordBatch]:
    """Under ``mapInArrow``: rows (``source``, ``path``, ``start``, ``end``, ``first`` -- the number of the range's
    first line -- and the partition columns ``parts``) in, one row per record of :func:`schema` out."""
    out = _Out(schema(parts))
    for batch in batches:
        d = batch.to_pydict()
        for i, (source, path, start, end, first) in enumerate(
            zip(d["source"], d["path"], d["start"], d["end"], d["first"])
        ):
            ext = codec_of(path) or ""
            if ext:
                lines = split_lines(_compressed(path, ext), max_line)
            else:
                lines = range_lines(path, start, end, max_line)
            rows = _records(lines, first, max_line, _WHAT.get(ext))
            yield from out.put(source, rows, [d[p][i] for p in parts])
    if out.n:
        yield out.batch()
