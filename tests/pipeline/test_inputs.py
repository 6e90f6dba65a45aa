"""Which reader reads which input (codec.pipeline.inputs): by extension, by content, directories by their
files, mixed folders split by format; and bad inputs as one line naming what to do. The expectations
are the files each test writes itself."""

from __future__ import annotations

import gzip
import json

import pytest

from codec.pipeline.inputs import InputError, LocalFiles, plan_inputs, sniff

from .conftest import CAPTURES, OFFSETS

LINE = json.dumps({"kind": "assignment-info", "hex": "00"}) + "\n"


def _plan(*inputs, fmt=None):
    return plan_inputs([str(i) for i in inputs], fmt, lambda p: LocalFiles())


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def test_files_by_extension_then_by_content(tmp_path):
    parquet = OFFSETS.read_bytes()
    files = {
        "a.jsonl": LINE,
        "b.ndjson": LINE,
        "c.json": LINE,
        "d.jsonl.gz": gzip.compress(LINE.encode()),
        "e.parquet": parquet,
        "no-extension": "\n  " + LINE,  # JSON lines by content (after blank space)
        "part-00000": parquet,  # Parquet by its magic number
        "lines.gz": gzip.compress(LINE.encode() * 500),  # gzip named .gz: Spark decompresses it
        "bom.txt": b"\xef\xbb\xbf" + LINE.encode(),
    }
    for name, data in files.items():
        _write(tmp_path / name, data)
    lf = LocalFiles()
    got = {name: sniff(lf, str(tmp_path / name)) for name in files}
    assert got == {
        "a.jsonl": "jsonl",
        "b.ndjson": "jsonl",
        "c.json": "jsonl",
        "d.jsonl.gz": "jsonl",
        "e.parquet": "parquet",
        "no-extension": "jsonl",
        "part-00000": "parquet",
        "lines.gz": "jsonl",
        "bom.txt": "jsonl",
    }


def test_a_directory_of_jsonl_is_read_whole_by_the_json_reader(tmp_path):
    d = tmp_path / "caps"
    _write(d / "one.jsonl", LINE)
    _write(d / "two.jsonl", LINE)
    _write(d / "_SUCCESS", "")  # hidden, as Spark hides it
    _write(d / ".one.jsonl.crc", b"\x00\x01")
    _write(d / "_temporary" / "junk.bin", b"\x00")  # a hidden directory is not looked into
    plan = _plan(d)
    assert plan.paths == {"jsonl": [str(d)], "parquet": []}


def test_a_mixed_folder_is_split_file_by_file(tmp_path):
    d = tmp_path / "mixed"
    a = _write(d / "a.jsonl", LINE)
    b = _write(d / "sub" / "b", LINE)  # recursive, by content
    p = _write(d / "offsets.parquet", OFFSETS.read_bytes())
    e = _write(d / "empty.jsonl", "")  # no records: left out
    plan = _plan(d)
    assert sorted(plan.paths["jsonl"]) == sorted([str(a), str(b)])
    assert plan.paths["parquet"] == [str(p)]
    assert plan.empty == [str(e)]


def test_files_globs_and_input_format(tmp_path):
    a = _write(tmp_path / "x" / "a.jsonl", LINE)
    b = _write(tmp_path / "x" / "b.jsonl", LINE)
    weird = _write(tmp_path / "y" / "records.csv", "kind,hex\n")
    assert _plan(tmp_path / "x" / "*.jsonl").paths["jsonl"] == [str(a), str(b)]
    assert _plan(CAPTURES, OFFSETS).paths == {"jsonl": [str(CAPTURES)], "parquet": [str(OFFSETS)]}
    empty = _write(tmp_path / "z" / "nothing.parquet", b"")  # no records, not a broken Parquet file
    assert _plan(empty).empty == [str(empty)] and _plan(empty).nothing
    # --input-format: no sniffing at all, a directory goes to that reader whole (when Spark reads it all)
    assert _plan(weird, fmt="jsonl").paths["jsonl"] == [str(weird)]
    hidden_parquet = _write(tmp_path / "w" / "records.dat", OFFSETS.read_bytes())
    assert _plan(tmp_path / "w", fmt="parquet").paths["parquet"] == [str(tmp_path / "w")]
    assert _plan(hidden_parquet, fmt="parquet").paths["parquet"] == [str(hidden_parquet)]
    with pytest.raises(InputError, match="records.csv is not a Parquet file"):  # what Spark's reader would fail on
        _plan(tmp_path / "y", fmt="parquet")
    deep = _write(tmp_path / "y" / "sub" / "more.csv", "kind,hex\n")
    assert sorted(_plan(tmp_path / "y", fmt="jsonl").paths["jsonl"]) == sorted([str(weird), str(deep)])


@pytest.mark.parametrize(
    "case", ["unknown file", "unknown file in a folder", "missing", "glob", "empty dir", "gzip not named .gz"]
)
def test_bad_inputs_are_one_line_naming_what_to_do(tmp_path, case):
    d = tmp_path / "in"
    d.mkdir()
    if case == "unknown file":
        target, want = _write(d / "records.csv", "kind,hex\n"), "--input-format"
    elif case == "unknown file in a folder":
        _write(d / "ok.jsonl", LINE)
        _write(d / "notes.txt", "these are my notes\n")
        target, want = d, "--input-format"
    elif case == "missing":
        target, want = tmp_path / "nope", "input not found"
    elif case == "glob":
        target, want = d / "*.jsonl", "no input matches"
    elif case == "empty dir":
        target, want = d, "no input files in"
    else:
        target, want = _write(d / "records", gzip.compress(LINE.encode())), "--input-format"
    with pytest.raises(InputError) as e:
        _plan(target)
    msg = str(e.value)
    assert want in msg and "\n" not in msg
    if want == "--input-format":
        assert "cannot tell the format of" in msg


@pytest.mark.parametrize(
    "name, head",
    [
        ("traffic.pcap", bytes.fromhex("d4c3b2a1 0200 0400") + bytes(16)),  # libpcap, little-endian
        ("traffic.bin", bytes.fromhex("a1b23c4d 0002 0004") + bytes(16)),  # libpcap, nanoseconds
        ("traffic.pcapng", bytes.fromhex("0a0d0d0a 1c000000 4d3c2b1a") + bytes(16)),  # pcapng
        ("traffic.pcap.gz", gzip.compress(bytes.fromhex("a1b2c3d4 0002 0004") + bytes(16))),
    ],
    ids=["pcap", "pcap-nanoseconds", "pcapng", "pcap-gzip"],  # gzip's header holds the time: not in an id
)
def test_a_packet_capture_is_named_with_the_command_that_reads_it(tmp_path, name, head):
    # the pipeline reads what `capture --json` writes of a pcap, not the pcap: the error says so, not
    # "pass --input-format"
    path = _write(tmp_path / name, head)
    for target in (path, tmp_path):
        with pytest.raises(InputError) as e:
            _plan(target)
        assert str(e.value) == (
            f"{path} is a packet capture: the pipeline reads the JSON lines that "
            f"`rebalance-codec capture --json {path}` writes of it"
        )


def test_hadoop_listing_agrees_with_the_local_one(spark, tmp_path):
    """URIs are listed through Hadoop's FileSystem API (any scheme Spark is set up for); on file: URIs it
    must give the plan the standard library gives on the same folder."""
    from codec.pipeline.inputs import HadoopFiles

    d = tmp_path / "mixed"
    _write(d / "a.jsonl", LINE)
    _write(d / "sub" / "b", LINE)
    _write(d / "offsets.parquet", OFFSETS.read_bytes())
    _write(d / "empty", "")
    _write(d / "_SUCCESS", "")
    _write(d / ".hidden" / "c.jsonl", LINE)
    hadoop = HadoopFiles(spark)
    plan = plan_inputs([d.as_uri()], None, lambda p: hadoop)
    local = _plan(d)

    def rel(paths):
        return sorted(p.split(str(d), 1)[1] for p in paths)

    assert (
        {k: rel(v) for k, v in plan.paths.items()}
        == {k: rel(v) for k, v in local.paths.items()}
        == {"jsonl": ["/a.jsonl", "/sub/b"], "parquet": ["/offsets.parquet"]}
    )
    assert rel(plan.empty) == rel(local.empty) == ["/empty"]
    assert hadoop.head(d.as_uri() + "/offsets.parquet", 4) == b"PAR1"
    with pytest.raises(InputError, match="input not found"):
        plan_inputs([(d / "nope").as_uri()], None, lambda p: hadoop)
    # a whole folder of one format is read whole, also through Hadoop
    one = tmp_path / "one"
    _write(one / "a.jsonl", LINE)
    whole = plan_inputs([one.as_uri()], None, lambda p: hadoop).paths["jsonl"]
    assert [w.replace("file:///", "file:/") for w in whole] == [one.as_uri().replace("file:///", "file:/")]


def test_only_empty_files_are_no_records(spark, tmp_path):
    from codec.pipeline.job import read_inputs

    _write(tmp_path / "in" / "a.jsonl", "")
    _write(tmp_path / "in" / "b.parquet", "")
    records, linked = read_inputs(spark, [str(tmp_path / "in")])
    assert records.count() == 0 and not linked
    assert {"record_id", "kind", "hex", "data", "selected", "skip_reason"} <= set(records.columns)


def test_a_file_of_no_json_at_all_is_quarantined_not_a_crash(spark, tmp_path):
    """Spark refuses queries that read only the corrupt-record column of raw JSON: a file in which no line
    is JSON must still give one record per line, each quarantined as not JSON."""
    from codec.pipeline.arrow import DECODE_COLUMNS  # noqa: F401 - (the executors' module imports)
    from codec.pipeline.job import decode, read_inputs

    lines = ["this is not JSON", "neither is this"]
    _write(tmp_path / "notes.jsonl", "\n".join(lines) + "\n")
    records, _ = read_inputs(spark, [str(tmp_path / "notes.jsonl")])
    got = decode(records.filter("selected")).select("unit_kind", "error_type", "raw").collect()
    assert sorted((r.unit_kind, r.error_type, r.raw.decode()) for r in got) == sorted(
        ("quarantine", "JSONDecodeError", line) for line in lines
    )


def test_records_in_subdirectories_are_read(spark, tmp_path):
    """Spark, given a directory, reads the files directly in it and in partition directories (name=value)
    only: a folder with files in other subdirectories is read file by file, so that no record is left out."""
    from codec.pipeline.job import read_inputs

    flat = tmp_path / "flat"
    _write(flat / "group=g1" / "a.jsonl", LINE)
    _write(flat / "group=g2" / "b.jsonl", LINE)
    above = tmp_path / "above"  # a file above the partitions: Spark would drop it
    files = [_write(above / "a.jsonl", LINE), _write(above / "group=g3" / "b.jsonl", LINE)]
    assert sorted(_plan(above).paths["jsonl"]) == sorted(map(str, files))
    nested = tmp_path / "nested"
    files = [
        _write(nested / "a.jsonl", LINE),
        _write(nested / "day1" / "b.jsonl", LINE * 2),
        _write(nested / "day1" / "late" / "c.jsonl", LINE * 3),
    ]
    assert _plan(flat).paths["jsonl"] == [str(flat)]  # Spark's own directory reading, partitions and all
    assert sorted(_plan(nested).paths["jsonl"]) == sorted(map(str, files))
    records, _ = read_inputs(spark, [str(flat), str(nested), str(above)])
    assert records.count() == 2 + (1 + 2 + 3) + 2
    assert {r.group for r in records.select("group").collect()} == {None, "g1", "g2"}  # the partition column


@pytest.mark.parametrize(
    "case",
    [
        "text named .parquet",
        "cut Parquet",
        "magic numbers only",
        "cut Parquet, no name",
        "plain named .jsonl.gz",
        "plain named .gz",
        "corrupt gzip",
        "in a folder",
        "in a folder, --input-format",
    ],
)
def test_local_files_not_what_their_reader_reads_are_refused_before_spark(tmp_path, case):
    """What Spark's readers would fail on (after a JVM start, with a Java error), said first in one line:
    Parquet begins and ends with PAR1; a .gz name makes Spark gunzip the file."""
    parquet = OFFSETS.read_bytes()
    fmt = None
    if case == "text named .parquet":
        bad = _write(tmp_path / "records.parquet", "kind,hex\nassignment-info,00\n")
    elif case == "cut Parquet":
        bad = _write(tmp_path / "records.parquet", parquet[: len(parquet) // 2])
    elif case == "magic numbers only":
        bad = _write(tmp_path / "records.parquet", b"PAR1PAR1")
    elif case == "cut Parquet, no name":
        bad = _write(tmp_path / "part-00000", parquet[:-1])  # Parquet by its first bytes, then cut
    elif case == "plain named .jsonl.gz":
        bad = _write(tmp_path / "records.jsonl.gz", LINE)
    elif case == "plain named .gz":
        bad = _write(tmp_path / "records.gz", LINE)  # JSON lines by content, but Spark would gunzip it
    elif case == "corrupt gzip":
        bad = _write(tmp_path / "records.jsonl.gz", b"\x1f\x8b" + b"\x00" * 30)
    else:
        _write(tmp_path / "in" / "a.jsonl", LINE)
        bad = _write(tmp_path / "in" / "sub" / "b.parquet", LINE)
        fmt = "parquet" if case.endswith("--input-format") else None
        if fmt:
            (tmp_path / "in" / "a.jsonl").write_bytes(parquet)  # (the one good Parquet file)
    with pytest.raises(InputError) as e:
        _plan(bad if "folder" not in case else tmp_path / "in", fmt=fmt)
    msg = str(e.value)
    assert msg.startswith(str(bad) + " is not ") and "\n" not in msg
    assert ("gzip" in msg) == ("gz" in case)


def test_what_passes_the_checks(tmp_path):
    """Good files pass, an empty file is no records under any reader, and a gzip file cut after its first
    bytes is left to Spark's reader (the check reads the start of a file only)."""
    good = _write(tmp_path / "a.jsonl.gz", gzip.compress(LINE.encode() * 2000))
    cut = _write(tmp_path / "b.jsonl.gz", good.read_bytes()[:200])
    plan = _plan(good, cut, OFFSETS)
    assert plan.paths == {"jsonl": [str(good), str(cut)], "parquet": [str(OFFSETS)]}
    empty = _write(tmp_path / "e.parquet", b"")
    assert _plan(empty, fmt="parquet").empty == [str(empty)]
    assert _plan(empty, fmt="jsonl").empty == [str(empty)]


def test_a_file_that_cannot_be_read_is_refused_not_skipped(tmp_path):
    d = tmp_path / "in"
    _write(d / "a.jsonl", LINE)
    (d / "b.jsonl").symlink_to(tmp_path / "gone.jsonl")  # a dangling link
    with pytest.raises(InputError, match=f"cannot read {d / 'b.jsonl'}: No such file"):
        _plan(d)


def test_local_only_decides_what_is_planned_before_spark(monkeypatch):
    from codec.pipeline.inputs import local_only

    for var in ("PYSPARK_GATEWAY_PORT", "HADOOP_CONF_DIR", "YARN_CONF_DIR"):
        monkeypatch.delenv(var, raising=False)
    assert local_only(["a.jsonl", "dir/"], None) and local_only(["a"], "local[2]")
    assert not local_only(["a.jsonl", "hdfs:///x"], None) and not local_only(["file:///a.jsonl"], None)
    assert not local_only(["a"], "spark://h:7077") and not local_only(["a"], "yarn")
    monkeypatch.setenv("HADOOP_CONF_DIR", "/etc/hadoop")  # the default filesystem may be HDFS
    assert not local_only(["a"], None)
    monkeypatch.delenv("HADOOP_CONF_DIR")
    monkeypatch.setenv("PYSPARK_GATEWAY_PORT", "1234")  # under spark-submit
    assert not local_only(["a"], None)
