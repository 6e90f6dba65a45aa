"""Inputs that cannot be read to their end, and hostile text dumps (issue #17), at the readers and through
the ``capture`` subcommand: every record before the damage is read, the damage is the last record
(``stopped``), nothing raises; the command writes the story of what was read, reports a ``bad file``
problem, one ``error:`` line, and exits 1. A bad line in a readable dump is a bad record (exit 0).

Inputs are built here: text dumps of OffsetCommitKey v1 tombstones written by hand (int16 version 1, group,
topic, int32 partition; a null value), segments of such records (tests.capture.test_offsets' batch writer,
from Kafka's record batch layout), gzipped and cut.
"""

from __future__ import annotations

import gzip
import io
import json
import struct
import zlib

import pytest

from codec.capture.command import detect
from codec.capture.offsets import BadRecord, OffsetsRecord, read_segment, read_text

from .storyfixtures import json_lines, run_capture
from .test_offsets import batch, commit_key, record

N = 3000


def _key(i: int) -> bytes:
    g, t = b"g", b"orders"
    return struct.pack(">hh", 1, len(g)) + g + struct.pack(">h", len(t)) + t + struct.pack(">i", i)


DUMP = "".join(f"{_key(i).hex()}\tnull\n" for i in range(N)).encode()


def _cut_gzip(data: bytes, fraction: float) -> tuple[bytes, int]:
    """``data`` gzipped and cut at ``fraction`` of its length, and how many of its bytes the cut stream still
    yields (decompressed by hand with zlib, stopping where the stream ends)."""
    whole = gzip.compress(data)
    cut = whole[: int(len(whole) * fraction)]
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    return cut, len(d.decompress(cut))


def test_a_cut_gzip_text_dump_reads_every_whole_line_before_the_cut():
    cut, readable = _cut_gzip(DUMP, 0.5)
    assert 0 < readable < len(DUMP)
    lines = len(DUMP[:readable].split(b"\n")) - 1  # whole lines the cut stream holds
    out = list(read_text(io.TextIOWrapper(gzip.GzipFile(fileobj=io.BytesIO(cut)), encoding="utf-8")))
    good, last = out[:-1], out[-1]
    assert all(isinstance(r, OffsetsRecord) for r in good)
    assert [r.key.partition for r in good] == list(range(len(good)))
    assert 0 < len(good) <= lines  # the GzipFile hands over what it decompressed before the end, in blocks
    assert isinstance(last, BadRecord) and last.stopped
    assert last.where == f"line {len(good) + 1}"
    assert "truncated gzip" in str(last.error) and f"past line {len(good)}" in str(last.error)


def test_a_corrupt_gzip_text_dump_stops_at_the_corruption():
    """Deflate cannot always tell corrupt bytes at once: they may decode to garbled lines (bad records) before
    zlib or the gzip CRC notices. The lines before the corruption are read, then reading stops."""
    whole = bytearray(gzip.compress(DUMP))
    whole[len(whole) // 2 : len(whole) // 2 + 64] = bytes(64)  # 64 zero bytes in the middle of the deflate stream
    out = list(
        read_text(io.TextIOWrapper(gzip.GzipFile(fileobj=io.BytesIO(bytes(whole))), encoding="utf-8", errors="replace"))
    )
    assert isinstance(out[-1], BadRecord) and out[-1].stopped and "cannot be read past line" in str(out[-1].error)
    good = [r.key.partition for r in out if isinstance(r, OffsetsRecord)]
    assert good[: N // 4] == list(range(N // 4))  # the first quarter of the dump is well before the middle
    assert not any(getattr(r, "stopped", False) for r in out[:-1])


def test_only_the_gzip_magic():
    out = list(read_text(io.TextIOWrapper(gzip.GzipFile(fileobj=io.BytesIO(b"\x1f\x8b")), encoding="utf-8")))
    assert len(out) == 1 and out[0].stopped and out[0].where == "line 1"
    assert "cannot be read at all" in str(out[0].error)


def test_deep_json_nesting_and_huge_integers_are_bad_records():
    lines = [
        '{"key": ' + "[" * 50_000 + "\n",
        '{"key": "00", "value": ' + '{"a": ' * 50_000 + "\n",
        '{"key": ' + "7" * 5000 + "}\n",
        f"{_key(7).hex()}\tnull\n",
    ]
    out = list(read_text(lines))
    assert [type(r).__name__ for r in out] == ["BadRecord", "BadRecord", "BadRecord", "OffsetsRecord"]
    assert "nests too deeply" in str(out[0].error) and "nests too deeply" in str(out[1].error)
    assert "bad JSON" in str(out[2].error)
    assert out[3].key.partition == 7 and not any(r.stopped for r in out[:3])


def test_a_line_longer_than_the_limit_is_read_past():
    text = "a" * 1000 + "\n" + f"{_key(1).hex()}\tnull\n" + "b" * 250  # the last line has no newline
    out = list(read_text(io.StringIO(text), max_line=100))
    assert [(type(r).__name__, r.where) for r in out] == [
        ("BadRecord", "line 1"),
        ("OffsetsRecord", "line 2"),
        ("BadRecord", "line 3"),
    ]
    assert "a line of 1,001 characters exceeds the maximum 100" in str(out[0].error)
    assert "a line of 250 characters" in str(out[2].error)


def _segment(n: int) -> bytes:
    return b"".join(batch([record(0, commit_key(1, partition=i), None)], base_offset=i) for i in range(n))


def test_a_cut_gzip_segment_reads_every_whole_batch_before_the_cut():
    seg = _segment(400)
    size = len(seg) // 400  # every batch has the same size: one record, partition 0-399 as an int32
    cut, readable = _cut_gzip(seg, 0.6)
    out = list(read_segment(gzip.GzipFile(fileobj=io.BytesIO(cut))))
    good, last = out[:-1], out[-1]
    assert [r.key.partition for r in good] == list(range(len(good)))
    assert 0 < len(good) <= readable // size
    assert isinstance(last, BadRecord) and last.stopped and last.where == f"batch at byte {len(good) * size}"
    assert "truncated gzip" in str(last.error)


@pytest.mark.parametrize(
    "name,kind",
    [("x.pcap.gz", "pcap"), ("x.pcapng.gz", "pcap"), ("x.log.gz", "segment"), ("x.txt.gz", "text"), ("x", "text")],
)
def test_a_gzip_that_cannot_be_started_is_taken_for_what_its_name_says(tmp_path, name, kind):
    p = tmp_path / name
    p.write_bytes(b"\x1f\x8b")
    assert detect(p) == kind


@pytest.mark.parametrize("name", ["dump.txt.gz", "seg.log.gz", "cap.pcap.gz"])
def test_the_command_on_a_cut_gzip_exits_1_after_the_story(tmp_path, name):
    data = {"dump.txt.gz": DUMP, "seg.log.gz": _segment(400), "cap.pcap.gz": None}[name]
    if data is None:
        from codec.capture.pcapwriter import conversation, pcap

        from .groupcapture import heartbeat_request

        data = pcap(conversation([("c", heartbeat_request(i, "c", "g", 1, "m")) for i in range(300)]))
    cut, _ = _cut_gzip(data, 0.5)
    p = tmp_path / name
    p.write_bytes(cut)
    lines = json_lines(p, status=1)
    assert lines[-1]["problems"]["bad file"]["count"] == 1
    status, text = run_capture(p)
    assert status == 1 and "bad file: 1" in text


def test_the_command_reports_the_error_in_one_line(tmp_path):
    import argparse

    from codec.capture.command import register

    p = tmp_path / "dump.txt.gz"
    p.write_bytes(_cut_gzip(DUMP, 0.5)[0])
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    out, err = io.StringIO(), io.StringIO()
    assert (
        parser.parse_args(["capture", str(p), "--json"]).func(
            parser.parse_args(["capture", str(p), "--json"]), out=out, err=err
        )
        == 1
    )
    summary = json.loads(out.getvalue().splitlines()[-1])
    (where,) = [x["where"] for x in summary["problems"]["bad file"]["first"]]
    assert summary["offset_commits"] == {"g": int(where.split()[1]) - 1}  # every line before the cut
    assert err.getvalue().count("\n") == 1 and err.getvalue().startswith(f"error: {p}: cannot be read to its end: ")
    assert "truncated gzip" in err.getvalue()


def test_a_bad_line_in_a_readable_dump_is_a_bad_record_not_a_bad_file(tmp_path):
    p = tmp_path / "dump.txt"
    p.write_text('{"key": ' + "[" * 50_000 + "\n" + DUMP.decode()[:2000].rsplit("\n", 1)[0] + "\n")
    lines = json_lines(p)  # exit status 0
    assert lines[-1]["problems"]["bad records"]["count"] == 1 and "bad file" not in lines[-1]["problems"]


def test_a_parquet_file_is_one_error_line_naming_the_command_that_reads_it(capsys):
    # The pipeline's offsets.parquet holds __consumer_offsets records, but as Parquet, which capture does not
    # read: not 42 "text records" of its binary pages, but one line saying so (exit 1).
    from codec.cli import main

    from tests.conftest import ROOT

    parquet = ROOT / "codec" / "examples" / "pipeline" / "offsets.parquet"
    assert main(["capture", str(parquet)]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        f"error: {parquet}: not what capture reads: it looks like a Parquet file; `rebalance-codec pipeline` reads "
        "Parquet; capture reads pcap or pcapng, a __consumer_offsets log segment or a text dump of its records "
        "(KEY<TAB>VALUE, hex or base64), or hex of packets or Kafka frames, gzipped or not\n"
    )
