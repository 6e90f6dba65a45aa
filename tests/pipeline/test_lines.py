"""How the executors split JSON lines files (codec.pipeline.lines), without Spark: a whole file and the same file
read in ranges give the same lines, numbered alike; compressed files read a slice at a time; a line over the
maximum is never held; a compressed file cut short is its lines, then one record saying so. Expected values
come from Python's own ``bytes.split`` of the data written, never from the code under test."""

from __future__ import annotations

import bz2
import gzip
import random
import zlib

import pyarrow as pa
import pytest

from codec.pipeline import lines as L


def _expected(data: bytes, max_line: int) -> list[tuple[bytes | None, int]]:
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()  # (nothing after a last \n is a line)
    return [(p if len(p) <= max_line else None, len(p)) for p in parts]


@pytest.fixture
def tiny_chunks(monkeypatch):
    """Slices of 7 bytes: every boundary (a \\n, a member's end, a range's) falls inside one somewhere."""
    monkeypatch.setattr(L, "CHUNK", 7)


def _random_data(rng: random.Random) -> bytes:
    parts = [
        rng.choice([b"", b"a" * rng.randint(1, 40), b"\r", b"{x}", b"\xff\xfe"]) for _ in range(rng.randint(1, 30))
    ]
    data = b"\n".join(parts) + (b"\n" if rng.random() < 0.5 else b"")
    return data or b"x"


def test_a_file_read_in_ranges_gives_its_lines_once_each_in_order(tmp_path, tiny_chunks):
    rng = random.Random(39)
    for trial in range(200):
        data = _random_data(rng)
        path = tmp_path / f"f{trial}"
        path.write_bytes(data)
        want = _expected(data, 20)
        assert list(L.split_lines([data], 20)) == want
        step = rng.randint(1, 30)
        got, counts = [], []
        for a in range(0, len(data), step):
            b = min(a + step, len(data))
            got += list(L.range_lines(str(path), a, b, 20))
            counts.append(L.count_range(str(path), a, b))
        assert got == want, (data, step)
        assert sum(counts) == len(want)
        # a range's first line is line 1 + the lines the ranges before it hold
        for k, a in enumerate(range(0, len(data), step)):
            first = list(L.range_lines(str(path), a, min(a + step, len(data)), 20))[:1]
            if first:
                assert first[0] == want[sum(counts[:k])]


@pytest.mark.parametrize(
    "ext,pack",
    [
        (".gz", lambda d: gzip.compress(d[:5]) + gzip.compress(d[5:])),  # two members, as `cat a.gz b.gz` makes
        (".bz2", lambda d: bz2.compress(d[:3]) + bz2.compress(d[3:])),
        (".deflate", zlib.compress),
    ],
)
def test_compressed_files_read_a_slice_at_a_time(tmp_path, tiny_chunks, ext, pack):
    rng = random.Random(ext)
    for trial in range(50):
        data = _random_data(rng)
        path = tmp_path / f"f{trial}.jsonl{ext}"
        path.write_bytes(pack(data))
        assert list(L.split_lines(L._compressed(str(path), ext), 20)) == _expected(data, 20)
        assert list(L.split_lines(L.CODECS[ext](L._plain(pack(data))), 20)) == _expected(data, 20)


def test_a_long_line_is_counted_not_held():
    """A 256 MiB line, made 1 MiB at a time: what split_lines keeps never grows past the maximum (Python's peak
    allocation stays within a few slices)."""
    import tracemalloc

    def chunks():
        yield b"{"
        for _ in range(256):
            yield b"a" * (1 << 20)
        yield b"\n{}\n"

    tracemalloc.start()
    try:
        got = list(L.split_lines(chunks(), 1000))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == [(None, (256 << 20) + 1), (b"{}", 2)]
    assert peak < 4 << 20, peak


def test_records_and_what_the_batch_says(tmp_path):
    line = b'{"kind": "subscription-info", "hex": "00"}'
    good = gzip.compress(line + b"\n\n" + b"x" * 3000 + b"\n{bad\n" + line)
    cut = gzip.compress(line + b"\n" + line * 50)[:-30]
    batch = pa.record_batch(
        {
            "path": ["file:/a.jsonl.gz", "file:/b.jsonl.gz"],
            "content": pa.array([good, cut], pa.binary()),
            "group": ["g1", None],
        }
    )
    (out,) = list(L.read_files([batch], 100, ["group"]))
    t = out.to_pydict()
    rows = list(zip(t["__source"], t["__pos"], t["kind"], t["input_error"], t["__line"], t["__part_group"]))
    assert rows == [
        ("file:/a.jsonl.gz", 1, "subscription-info", None, None, "g1"),
        (
            "file:/a.jsonl.gz",
            3,
            "line-too-long",
            "LineLength: the line is 3,000 bytes, over the maximum line length (100 bytes: --max-line-length)",
            None,
            "g1",
        ),
        ("file:/a.jsonl.gz", 4, "not-json", None, b"{bad", "g1"),
        ("file:/a.jsonl.gz", 5, "subscription-info", None, None, "g1"),
        ("file:/b.jsonl.gz", 1, "subscription-info", None, None, None),
        (
            "file:/b.jsonl.gz",
            2,
            "unreadable",
            "CorruptInput: the file's gzip data cannot be read from line 2 on (the compressed data is cut short); "
            "1 line(s) before it were read",
            None,
            None,
        ),
    ]
