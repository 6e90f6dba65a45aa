"""Provenance exact by construction, on real Spark (issue #39): every record names its own file and line (or
Parquet row), whatever the input's shape -- hundreds of small files, nested folders, globs, gzip, partition
folders, Parquet, files Spark reads in splits -- and every record read is accounted for.

Each record written here carries, in its ``member`` field, the file it is written to and its line (or row)
there, so that the expected ``source`` and ``record_id`` come from the files themselves, never from the job.
Lines that are not records (blank), that are not selected, or that are quarantined (not JSON, a key twice, over
the maximum line length, a value that does not fit its column) are counted from the files as they are written.
Two runs in all: one with Spark's defaults (files read whole by the executors; one line of 80 MiB in a 90 KB
gzip file at the default maximum line length), one where every file over 2 KiB is read in ranges by the
executors, or in splits by Spark's text reader, and the maximum line length is 1000 bytes.
"""

from __future__ import annotations

import bz2
import gzip
import json
import os
import random
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")
import pyarrow as pa
import pyarrow.parquet as pq

from codec.pipeline import reading
from codec.pipeline.job import Options, run

from .conftest import CAPTURES, jsonl, read_table

#: a SubscriptionInfo (Kafka Streams) that decodes: one members row per record
SUB = next(
    r["hex"]
    for r in jsonl(CAPTURES)
    if r.get("kind") == "subscription-info" and not str(r.get("record_id", "")).startswith("bad/")
)


def _record(tag: str, **more) -> str:
    return json.dumps({"kind": "subscription-info", "group": "prov", "member": tag, "hex": SUB, **more})


class Fleet:
    """Files written with what each line is: ``expect[(path, line)] = "decoded" | "skipped" | error type``."""

    def __init__(self, root: Path, max_line: int = 64 << 20, noise: random.Random | None = None) -> None:
        self.root = root
        self.max_line = max_line
        self.noise = noise  # random hex in each record (so that compressed files are not tiny)
        self.expect: dict[tuple[str, int], str] = {}
        self.sizes: dict[tuple[str, int], int] = {}

    def lines(
        self, rel: str, kinds: list[str], *, eol: bytes = b"\n", last_eol: bool = True, pack=None, **fields
    ) -> Path:
        """A JSON lines file of the given line kinds: ``rec`` (a record naming itself, with ``fields``),
        ``blank``, ``skip`` (a ``capture --json`` summary line: not selected), ``notjson``, ``dupkey``,
        ``long:N`` (N bytes that are not JSON: over the maximum line length, or not JSON), ``exact:N`` (a record
        padded to exactly N bytes)."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        out = []
        for n, kind in enumerate(kinds, 1):
            tag = f"{path}#{n}"
            if self.noise is not None:
                fields["noise"] = "%0256x" % self.noise.getrandbits(1024)
            # a line's size: its bytes up to its \n, a \r before it included
            cr = len(eol) - 1 if n < len(kinds) or last_eol else 0
            if kind == "rec":
                line, want = _record(tag, **fields).encode(), "decoded"
            elif kind == "blank":
                line, want = b"", None
            elif kind == "skip":
                line, want = json.dumps({"type": "summary", "frames": n}).encode(), "skipped"
            elif kind == "notjson":
                line, want = b"{not json at line %d" % n, "JSONDecodeError"
            elif kind == "dupkey":
                line, want = b'{"kind": "subscription-info", "hex": "00", "HEX": "01"}', "DuplicateKey"
            elif kind.startswith("long:"):
                size = int(kind[5:])
                line = (b'{"kind": "subscription-info", "hex": "' + b"ab" * size)[:size]
                want = "LineLength" if size + cr > self.max_line else "JSONDecodeError"
            else:  # exact:N
                size = int(kind[6:]) - cr
                bare = _record(tag, pad="", **fields)
                line = _record(tag, pad="x" * (size - len(bare)), **fields).encode()
                assert len(line) == size
                want = "decoded"
            if want is not None:
                self.expect[(str(path), n)] = want
                self.sizes[(str(path), n)] = len(line) + cr
            out.append(line)
        data = eol.join(out) + (eol if last_eol else b"")
        path.write_bytes(pack(data) if pack else data)
        return path


def _source_line(record_id: str) -> tuple[str, int]:
    """``file:/abs/path:N`` -> (``/abs/path``, N)."""
    source, _, n = record_id.rpartition(":")
    assert source.startswith("file:/"), record_id
    return source[len("file:") :], int(n)


def _check_run(fleet: Fleet, out: Path, summary: dict, parquet_rows: dict[tuple[str, int], str] | None = None):
    """The tables against what the files hold: each decoded record's source and record_id are the file and line
    its ``member`` names; each quarantined one is where a bad line was written, for the reason it was; and
    records read = not selected + decoded + quarantined, each count as the files say."""
    expect = dict(fleet.expect)
    expect.update(parquet_rows or {})
    members = read_table(out, "members")
    got = {}
    for m in members:
        path, n = m["member"].rpartition("#")[0], int(m["member"].rpartition("#")[2])
        assert m["source"] == f"file:{path}", m
        assert m["record_id"] == f"file:{path}:{n}", m
        got[(path, n)] = "decoded"
    for q in read_table(out, "quarantine"):
        key = _source_line(q["record_id"])
        assert q["source"] == f"file:{key[0]}", q
        got[key] = q["error_type"]
        if q["error_type"] == "LineLength":
            assert f"the line is {fleet.sizes[key]:,} bytes" in q["error_message"], (q, fleet.sizes[key])
    want = {k: v for k, v in expect.items() if v != "skipped"}
    assert got == want
    c = summary["counts"]
    assert c["records_read"] == len(expect)
    assert c["not_selected"] == sum(1 for v in expect.values() if v == "skipped")
    assert c["decoded"] == sum(1 for v in expect.values() if v == "decoded")
    assert c["quarantined"] == len(want) - c["decoded"]
    assert c["records_read"] == c["not_selected"] + c["decoded"] + c["quarantined"]


# --- the default run: hundreds of small files, every shape ------------------------------------------------------


def _parquet(path: Path, table: pa.Table) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)


@pytest.fixture(scope="module")
def fleet_run(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("fleet")
    root = base / "fleet"
    fleet = Fleet(root)
    shapes = [["rec"], ["rec", "rec"], ["blank", "rec", "blank", "rec"], ["rec", "skip", "rec", ""]]
    for i in range(300):  # the issue: six one-line files already gave three records the wrong file
        kinds = [k for k in shapes[i % len(shapes)] if k]
        fleet.lines(f"many/{i // 100}/f{i:03d}.jsonl", kinds)
    fleet.lines(
        "deep/a/b/c/two-members.jsonl.gz", ["rec", "rec"], pack=lambda d: gzip.compress(d[:40]) + gzip.compress(d[40:])
    )
    fleet.lines("deep/a/crlf.ndjson", ["rec", "blank", "rec"], eol=b"\r\n")
    fleet.lines("deep/no-extension", ["rec", "rec"], last_eol=False)  # told by its content
    fleet.lines("deep/a/b/bad.jsonl", ["rec", "notjson", "dupkey", "blank", "rec"])
    fleet.lines("deep/a/b/bad.json.bz2", ["notjson", "rec"], pack=bz2.compress)
    # the reproducer at the default maximum line length: a line of 80 MiB in a small gzip file, between
    # two records; the job goes on and the records around it decode
    fleet.lines("long.jsonl.gz", ["rec", f"long:{80 << 20}", "rec"], pack=lambda d: gzip.compress(d, 1))
    # a partition folder read whole (its own input): the line's group comes from the folder when the line has none
    parts = Fleet(base / "parts")
    for g in ("g1", "g2"):
        for i in range(3):
            parts.lines(f"group={g}/p{i}.jsonl", ["rec", "blank", "rec"], group=None)
    # a glob
    globbed = Fleet(base / "globbed")
    for i in range(12):
        globbed.lines(f"x{i:02d}.jsonl", ["rec"] * (1 + i % 3))
    globbed.lines("other.jsonl", ["rec"])  # not matched
    del globbed.expect[(str(base / "globbed" / "other.jsonl"), 1)]
    # Parquet: good files, and the odd ones of the issue, each read on its own
    rows: dict[tuple[str, int], str] = {}
    for i in range(20):
        p = root / "pq" / f"p{i:02d}.parquet"
        tags = [f"{p}#{r}" for r in range(1 + i % 4)]
        _parquet(p, pa.table({"kind": ["subscription-info"] * len(tags), "member": tags, "hex": [SUB] * len(tags)}))
        rows.update({(str(p), r): "decoded" for r in range(len(tags))})
    odd = root / "pq" / "odd"
    _parquet(odd / "case.parquet", pa.table({"kind": ["subscription-info"] * 2, "hex": [SUB] * 2, "HEX": [SUB] * 2}))
    rows.update({(str(odd / "case.parquet"), r): "DuplicateKey" for r in range(2)})
    _parquet(odd / "struct.parquet", pa.table({"kind": ["subscription-info"], "hex": [SUB], "version": [{"a": 1}]}))
    rows[(str(odd / "struct.parquet"), 0)] = "FieldType"
    p = odd / "binary.parquet"
    _parquet(
        p,
        pa.table(
            {
                "kind": ["subscription-info"] * 3,
                "member": [f"{p}#0", None, f"{p}#2"],
                "hex": pa.array([SUB.encode(), b"\xff\xfe\x00", SUB.encode()], pa.binary()),
            }
        ),
    )
    rows.update({(str(p), 0): "decoded", (str(p), 1): "FieldType", (str(p), 2): "decoded"})
    p = odd / "text-version.parquet"  # a schema that does not merge with the struct's (nor an integer's)
    _parquet(p, pa.table({"kind": ["subscription-info"], "member": [f"{p}#0"], "hex": [SUB], "version": ["7"]}))
    rows[(str(p), 0)] = "decoded"

    out = base / "out"
    inputs = [str(root), str(base / "parts"), str(base / "globbed" / "x*.jsonl")]
    summary = run(Options(inputs=inputs, out=str(out), quiet=True), spark)
    merged = Fleet(root)
    for f in (fleet, parts, globbed):
        merged.expect.update(f.expect)
        merged.sizes.update(f.sizes)
    return merged, out, summary, rows


def test_every_record_names_its_own_file_and_line(fleet_run):
    """Over 300 small files, nested folders, gzip (two members), bzip2, CRLF, a file without extension, a
    partition folder, a glob and Parquet files, good and odd: exact provenance and exact accounting."""
    fleet, out, summary, rows = fleet_run
    assert len({k[0] for k in fleet.expect}) == 324
    _check_run(fleet, out, summary, rows)


def test_a_partition_folders_value_fills_the_group(fleet_run):
    """Records of a partition folder (``group=g1/...``) read whole without a group of their own: the folder's."""
    fleet, out, _, _ = fleet_run
    by = {m["member"]: m["group"] for m in read_table(out, "members")}
    parts = [(path, n) for (path, n), want in fleet.expect.items() if "/parts/" in path and want == "decoded"]
    assert len(parts) == 12
    for path, n in parts:
        assert by[f"{path}#{n}"] == path.split("/group=")[1].split("/")[0]
    assert {by[m] for m in by if "/parts/" not in m and ".parquet#" not in m} == {"prov"}


def test_odd_parquet_files_quarantine_what_does_not_fit_and_nothing_else(fleet_run):
    """The issue: one odd Parquet file (columns hex and HEX; version a struct; hex binary that is not UTF-8)
    refused the whole batch. Now each record that does not fit is quarantined, naming the column."""
    _, out, _, _ = fleet_run
    q = {r["record_id"]: r for r in read_table(out, "quarantine") if "/pq/odd/" in r["record_id"]}
    msgs = {r["record_id"].rpartition("/")[2]: r["error_message"] for r in q.values()}
    assert msgs == {
        "case.parquet:0": "the file has the columns 'hex' and 'HEX' (they differ only in case, and column names do "
        "not), so which one was meant cannot be told",
        "case.parquet:1": "the file has the columns 'hex' and 'HEX' (they differ only in case, and column names do "
        "not), so which one was meant cannot be told",
        "struct.parquet:0": "'version' is a struct, not a 32-bit integer",
        "binary.parquet:1": "'hex' is binary that is not UTF-8, not hex text",
    }


def test_a_line_of_80_mib_in_a_small_gzip_file_is_quarantined_with_its_size(fleet_run):
    fleet, out, _, _ = fleet_run
    path = str(fleet.root / "long.jsonl.gz")
    assert os.path.getsize(path) < 1 << 20
    (row,) = [r for r in read_table(out, "quarantine") if r["record_id"] == f"file:{path}:2"]
    assert row["error_type"] == "LineLength" and row["kind"] == "line-too-long" and row["data"] is None
    assert row["error_message"] == (
        f"the line is {80 << 20:,} bytes, over the maximum line length ({64 << 20:,} bytes: --max-line-length)"
    )
    members = {m["record_id"] for m in read_table(out, "members")}
    assert {f"file:{path}:1", f"file:{path}:3"} <= members


# --- files read in Spark's splits --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def split_run(spark, tmp_path_factory):
    """Spark reads a file in one piece up to 2 KiB here (``spark.sql.files.maxPartitionBytes``), so each file
    over that is read in ranges by the executors (an uncompressed one in several, a compressed one in one) --
    or, under ``via-hadoop/``, by Spark's text reader in its splits, as a file on HDFS would be -- with lines over
    1000 bytes among them; the smaller files are read whole."""
    base = tmp_path_factory.mktemp("split")
    rng = random.Random(39)
    fleet = Fleet(base / "in", max_line=1000, noise=rng)

    def mix(n: int, longs: dict[int, str]) -> list[str]:
        kinds = []
        for i in range(1, n + 1):
            kinds.append(longs.get(i) or rng.choice(["rec", "rec", "rec", "blank", "skip", "notjson"]))
        return kinds

    for where in ("", "via-hadoop/"):
        fleet.lines(
            f"{where}plain.jsonl",
            mix(60, {5: "long:1100", 17: "long:5000", 18: "long:1001", 30: "exact:1000", 44: "long:2100"}),
        )
        fleet.lines(f"{where}last-long.jsonl", mix(25, {25: "long:3000"}), last_eol=False)
        fleet.lines(f"{where}crlf.jsonl", mix(30, {9: "long:1000", 10: "long:999"}), eol=b"\r\n")
        fleet.lines(f"{where}long.jsonl.gz", mix(40, {3: "long:9000", 33: "long:1400"}), pack=gzip.compress)
        fleet.lines(f"{where}many.jsonl.bz2", mix(120, {50: "long:4000", 51: "long:1200"}), pack=bz2.compress)
    fleet.lines("no-long.jsonl", mix(50, {}), last_eol=False)
    fleet.lines(
        "two-members.jsonl.gz",
        mix(60, {7: "long:1500"}),
        pack=lambda d: gzip.compress(d[:999]) + gzip.compress(d[999:]),
    )
    fleet.lines("small/s.jsonl", ["long:1001", "blank", "rec"])  # read whole
    files = [p for p in (base / "in").rglob("*") if p.is_file()]
    assert all(p.stat().st_size > 3 * 2048 for p in files if p.name.endswith(".jsonl") and p.parent.name != "small")
    assert all(p.stat().st_size > 2048 for p in files if p.parent.name != "small")
    assert (base / "in" / "small" / "s.jsonl").stat().st_size <= 2048

    out = base / "out"
    keep = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "2048")
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(reading, "_python_reads", lambda path: "/via-hadoop/" not in path)
            summary = run(Options(inputs=[str(base / "in")], out=str(out), quiet=True, max_line=1000), spark)
    finally:
        spark.conf.set("spark.sql.files.maxPartitionBytes", keep)
    return fleet, out, summary


def test_lines_of_files_read_in_ranges_or_splits_are_numbered_exactly(split_run):
    """Records before and after lines over 1000 bytes, in ranges of plain files and in compressed files, and in
    Spark's splits of plain and bzip2 files, keep their own line numbers; the long lines are quarantined with
    their sizes (a line of exactly 1000 bytes is read; a \\r before a \\n counts)."""
    fleet, out, summary = split_run
    _check_run(fleet, out, summary)
    q = Counter(r["error_type"] for r in read_table(out, "quarantine"))
    assert q["LineLength"] == sum(1 for v in fleet.expect.values() if v == "LineLength") == 22
