"""Line numbers for the JSON lines files Spark's text reader reads in splits, and the over-long lines its
Hadoop reader skips (no pyspark import here; the session is passed in).

The job tags each line the text reader returns with its split (the file and the split's start) and its place
among that split's rows, and counts each split's rows and bytes in one pass (:func:`codec.pipeline.reading`).
Every line belongs to exactly one split, and the splits of a file return their lines in order, so the ``g``-th
line returned from a file (counting the rows of its earlier splits) is line ``g + 1`` -- unless Hadoop's reader
skipped lines before it: ``mapreduce.input.linerecordreader.line.maxlength`` bounds what it holds, and a longer
line is read past and dropped, without a trace in the rows. :func:`number_split_files` therefore checks each
file's bytes: an uncompressed file's size against the bytes of the lines returned, a gzip file's stored length
(its last four bytes, modulo 2^32) likewise; a file that lost bytes, or whose length cannot be told (other
codecs), is read once more, on the driver, through the same Hadoop filesystem and codec, a slice at a time,
to find every line the reader skipped (:func:`_skipped`, Hadoop's rule: a line whose bytes with its ``\\n``
reach the maximum). Those lines are numbered, counted in the numbers of the lines after them, and quarantined
with their sizes.

The result is a table of ranges: for each split, rows ``from`` to ``to`` (their place in the split) are lines
``place + add``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from .lines import CHUNK, codec_of

__all__ = ["SplitFile", "number_split_files"]

_BOM = b"\xef\xbb\xbf"


@dataclass
class SplitFile:
    """One file read in splits: its URI (``_metadata.file_path``), its name as the job gives it (``source``),
    its size, and for each split start that returned rows ``(rows, id of the first, bytes)``, the bytes being
    each line's with one ``\\n``."""

    uri: str
    source: str
    size: int
    blocks: dict[int, tuple[int, int, int]] = field(default_factory=dict)


def _stream(spark, uri: str) -> Iterator[bytes]:
    """A file's bytes (decompressed by Hadoop's codec for its name), a slice at a time, through the session's
    Hadoop filesystem."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(jvm.java.net.URI(uri))
    raw = path.getFileSystem(conf).open(path)
    codec = jvm.org.apache.hadoop.io.compress.CompressionCodecFactory(conf).getCodec(path)
    stream = codec.createInputStream(raw) if codec is not None else raw
    try:
        while True:
            chunk = bytes(stream.readNBytes(CHUNK))
            if not chunk:
                return
            yield chunk
    finally:
        stream.close()


def _gzip_length(spark, uri: str, size: int) -> int | None:
    """A gzip file's stored length (ISIZE: its data's length modulo 2^32, of its last member), or None."""
    if size < 18:
        return None
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(jvm.java.net.URI(uri))
    stream = path.getFileSystem(conf).open(path)
    try:
        stream.seek(size - 4)
        tail = bytes(stream.readNBytes(4))
    finally:
        stream.close()
    return int.from_bytes(tail, "little") if len(tail) == 4 else None


def _complete(spark, f: SplitFile) -> bool:
    """Whether the reader returned every line of ``f``: the lines' bytes account for the file's. (A file with
    no ``\\n`` at its end counts one more; a byte order mark the reader drops, three less.)"""
    got = sum(b for _, _, b in f.blocks.values())
    ext = codec_of(f.uri)
    if ext is None:
        return f.size - got in (0, -1, 3, 2)
    if ext == ".gz":
        length = _gzip_length(spark, f.uri, f.size)
        return length is not None and (length - got) % (1 << 32) in (0, (1 << 32) - 1, 3, 2)
    return False  # (no length to check against: read it)


def _skipped(chunks: Iterator[bytes], max_line: int) -> list[tuple[int, int]]:
    """``(line number, size)`` of each line Hadoop's reader skips with ``maxlength = max_line + 2``: one whose
    bytes with its ``\\n`` reach that (a first line's byte order mark not counted); ``size`` without the
    ``\\n``."""
    limit = max_line + 2
    out = []
    number, length, first = 1, 0, b""
    for chunk in chunks:
        start = 0
        while True:
            i = chunk.find(b"\n", start)
            end = len(chunk) if i < 0 else i
            if number == 1 and len(first) < 3:
                first += chunk[start:end][: 3 - len(first)]
            length += end - start
            if i < 0:
                break
            consumed = length + 1 - (3 if number == 1 and first == _BOM else 0)
            if consumed >= limit:
                out.append((number, length))
            number, length, start = number + 1, 0, i + 1
    if length:
        consumed = length - (3 if number == 1 and first == _BOM else 0)
        if consumed >= limit:
            out.append((number, length))
    return out


def _ranges(f: SplitFile, skipped: list[int]) -> list[tuple]:
    """``(uri, split start, first id, from, to, add, source)`` for each split of ``f``: its rows ``from`` to
    ``to`` are lines ``place + add``. ``skipped``: the numbers of the lines the reader skipped, in order."""
    # the g-th line returned (from 0) is line g + 1 + (the skipped lines before it): thresholds k_j - j
    thresholds = [k - j for j, k in enumerate(skipped, 1)]
    out = []
    before = 0  # lines returned by the earlier splits
    for start in sorted(f.blocks):
        rows, first, _ = f.blocks[start]
        cuts = sorted({0, rows} | {t - before for t in thresholds if 0 < t - before < rows})
        for lo, hi in zip(cuts, cuts[1:]):
            passed = sum(1 for t in thresholds if t <= before + lo)
            out.append((f.uri, start, first, lo, hi, before + 1 + passed, f.source))
        before += rows
    return out


def number_split_files(spark, files: list[SplitFile], max_line: int) -> tuple[list[tuple], list[tuple[str, int, int]]]:
    """The ranges that number each file's lines (:func:`_ranges`), and ``(source, line number, size)`` of each
    line the reader skipped, for the files read in splits."""
    ranges: list[tuple] = []
    skipped: list[tuple[str, int, int]] = []
    for f in files:
        lost = [] if _complete(spark, f) else _skipped(_stream(spark, f.uri), max_line)
        ranges += _ranges(f, [n for n, _ in lost])
        skipped += [(f.source, n, size) for n, size in lost]
    return ranges, skipped
