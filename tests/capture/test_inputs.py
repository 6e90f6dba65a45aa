"""Inputs as people hand them to ``capture`` (issue #46): ``-`` and ``/dev/stdin``, pipes, gzip told from the bytes
(never the name), hex as tshark prints it; and an input that is nothing capture reads is one line saying what it
looks like instead, exit status 1.

Run as users run it: the console script of this environment, from a folder outside the checkout. What each run
must say comes from the input itself: the same bytes read from a file (the pcap path, held to tshark by
tests/capture/test_real_captures.py), tshark's own reading of the capture, and what the inputs were written as
here (a README, an HTML page, a Parquet file).
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codec.capture.storymodel import GROUP_APIS
from tests.conftest import ROOT, SHARED

from .tshark import tshark_frames

SCRIPT = Path(sys.executable).with_name("rebalance-codec")
PCAP_GZ = SHARED / "captures" / "pcaps" / "runA" / "ck-roundrobin.pcap.gz"
tshark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")


def cli(*args: str, cwd: Path, stdin: bytes | Path | None = None) -> subprocess.CompletedProcess:
    """The console script in ``cwd``; ``stdin``: bytes through a pipe, or a file redirected (``< file``)."""
    if isinstance(stdin, Path):
        with open(stdin, "rb") as f:
            return subprocess.run([str(SCRIPT), *args], stdin=f, capture_output=True, cwd=cwd, timeout=300)
    return subprocess.run([str(SCRIPT), *args], input=stdin or b"", capture_output=True, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def pcap(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("pcap") / "capture.pcap"
    path.write_bytes(gzip.decompress(PCAP_GZ.read_bytes()))
    return path


def _story(p: subprocess.CompletedProcess) -> list[dict]:
    assert p.returncode == 0, p.stderr.decode()
    return [json.loads(line) for line in p.stdout.decode().splitlines()]


def test_stdin_a_pipe_dev_stdin_and_gzip_read_as_the_file(pcap, tmp_path):
    """`capture - < x.pcap` said "-: No such file or directory"; `cat x.pcap | capture /dev/stdin` "not a capture file
    at offset 0"; a gzipped capture through a pipe "File or stream is not seekable"."""
    want = _story(cli("capture", "--json", str(pcap), cwd=tmp_path))
    assert sum(r["type"] == "generation" for r in want) == 5
    data = pcap.read_bytes()
    zipped = gzip.compress(data)
    (tmp_path / "capture.bin").write_bytes(zipped)  # gzipped, whatever the name says
    (tmp_path / "plain.pcap.gz").write_bytes(data)  # not gzipped, whatever the name says
    runs = {
        "- < file": cli("capture", "--json", "-", stdin=pcap, cwd=tmp_path),
        "- from a pipe": cli("capture", "--json", "-", stdin=data, cwd=tmp_path),
        "/dev/stdin from a pipe": cli("capture", "--json", "/dev/stdin", stdin=data, cwd=tmp_path),
        "gzip through a pipe": cli("capture", "--json", "-", stdin=zipped, cwd=tmp_path),
        "gzip named .bin": cli("capture", "--json", "capture.bin", cwd=tmp_path),
        "plain named .gz": cli("capture", "--json", "plain.pcap.gz", cwd=tmp_path),
    }
    for how, p in runs.items():
        assert _story(p) == want, how
    text = cli("capture", "-", stdin=zipped, cwd=tmp_path)
    assert text.returncode == 0 and b"summary of stdin (pcap)" in text.stdout


def test_a_gzipped_text_dump_through_a_pipe(tmp_path):
    """A text dump of __consumer_offsets records (an OffsetCommit key, written by hand from its layout: int16
    version 1, group, topic, int32 partition; a tombstone), gzipped, on stdin."""
    key = b"\x00\x01\x00\x01g\x00\x06orders\x00\x00\x00\x07"
    dump = gzip.compress(f"{key.hex()}\tnull\n".encode() * 3)
    p = cli("capture", "--json", "-", stdin=dump, cwd=tmp_path)
    summary = _story(p)[-1]
    assert summary["type"] == "summary" and summary["records"] == 3


def _parquet(path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({"a": [1, 2]}), path)


@pytest.mark.parametrize(
    "name, looks",
    [
        ("README.md", "it looks like Markdown text ("),
        ("page.html", "it looks like an HTML page"),
        ("data.parquet", "it looks like a Parquet file; `rebalance-codec pipeline` reads Parquet"),
        ("doc.json", "it looks like a JSON document (an object with keys 'groups')"),
        ("empty.pcap", "it looks like an empty input (0 bytes)"),
        (
            "README.md.gz",
            "it looks like Markdown text (",
        ),
    ],
)
def test_an_input_that_is_nothing_capture_reads_is_one_line_saying_what_it_looks_like(tmp_path, name, looks):
    """A README was read as a text dump: "bad records: 251", exit 0."""
    f = tmp_path / name
    if name.startswith("README"):
        readme = (ROOT / "README.md").read_bytes()
        f.write_bytes(gzip.compress(readme) if name.endswith(".gz") else readme)
    elif name == "page.html":
        f.write_text("<!DOCTYPE html>\n<html><head><title>Kafka</title></head><body>hi</body></html>\n")
    elif name == "data.parquet":
        _parquet(f)
    elif name == "doc.json":
        f.write_text('{"groups": []}\n')
    else:
        f.write_bytes(b"")
    for p in (cli("capture", str(f), cwd=tmp_path), cli("capture", "-", stdin=f.read_bytes(), cwd=tmp_path)):
        assert p.returncode == 1
        assert p.stdout == b""
        err = p.stderr.decode()
        assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, err
        assert looks in err, err
        assert ("gzipped" in err.split("; capture reads")[0]) == name.endswith(".gz"), err


def test_a_text_dump_with_no_readable_record_exits_1_saying_so(tmp_path):
    """Lines that look like a dump's (KEY<TAB>VALUE) and none of them a record: the story of nothing, exit 1."""
    f = tmp_path / "dump.txt"
    key = b"\x00\x01\x00\x01g\x00\x06orders\x00\x00\x00\x07"
    f.write_text(f"{key.hex()}\tzz-not-hex\n" * 4)
    p = cli("capture", str(f), cwd=tmp_path)
    assert p.returncode == 1
    assert (
        p.stderr.decode()
        .splitlines()[-1]
        .startswith(f"error: {f}: none of its 4 lines is a __consumer_offsets record (the summary says why)")
    )
    assert b"bad records" in p.stdout


@tshark
def test_tshark_hex_dumps_of_every_packet_read_as_the_capture(pcap, tmp_path):
    """`tshark -x` prints each packet as a hex dump: read as those packets (their link layer, addresses, ports and
    sequence numbers), the story's frames are the capture's, connection by connection, in order."""
    dumps = subprocess.run(["tshark", "-r", str(pcap), "-x"], capture_output=True, check=True).stdout
    want = [r for r in _story(cli("capture", "--json", str(pcap), cwd=tmp_path)) if r["type"] == "frame"]
    p = cli("capture", "--json", "-", stdin=dumps, cwd=tmp_path)
    got = [r for r in _story(p) if r["type"] == "frame"]
    keys = ("connection", "client", "broker", "direction", "api_key", "correlation_id", "hex")
    assert sorted(tuple(r[k] for k in keys) for r in got) == sorted(tuple(r[k] for k in keys) for r in want)
    packets = int(
        subprocess.run(["capinfos", "-c", "-M", str(pcap)], capture_output=True, text=True).stdout.split()[-1]
    )
    assert f"note: read as {packets:,} packets (Ethernet) from {packets:,} hex dumps".encode() in p.stderr


@tshark
def test_tshark_tcp_payload_fields_read_as_kafka_frames(pcap, tmp_path):
    """`tshark -T fields -e tcp.payload` prints each segment's payload, frames with their int32 sizes: read as Kafka
    frames, every group frame tshark's dissector finds is in the story."""
    fields = subprocess.run(
        ["tshark", "-r", str(pcap), "-Y", "tcp.len > 0", "-T", "fields", "-e", "tcp.payload"],
        capture_output=True,
        check=True,
    ).stdout
    p = cli("capture", "--json", "-", stdin=fields, cwd=tmp_path)
    story = _story(p)
    assert "Kafka frame" in p.stderr.decode() and "hex holds no times" in p.stderr.decode()
    broker = next(r for r in _story(cli("capture", "--json", str(pcap), cwd=tmp_path)) if r["type"] == "frame")[
        "broker"
    ]
    want = sorted(
        (k, c)
        for _, d, k, c in tshark_frames(pcap, int(broker.rsplit(":", 1)[1]))
        if d == "request" and k in GROUP_APIS
    )
    got = sorted(
        (r["api_key"], r["correlation_id"]) for r in story if r["type"] == "frame" and r["direction"] == "request"
    )
    assert len(want) > 50 and got == want
    generations = [(r["group"], r["generation"]) for r in story if r["type"] == "generation"]
    assert len(generations) == 5 and all(g == "g-ck-roundrobin" for g, _ in generations)


def test_follow_reads_a_gzipped_pipe_and_refuses_what_is_no_capture(pcap, tmp_path):
    """`capture --follow -` reads what `capture -` reads of a pcap stream, gzipped too; a README is one line."""
    want = [r for r in _story(cli("capture", "--json", str(pcap), cwd=tmp_path)) if r["type"] == "summary"]
    p = cli("capture", "--follow", "--json", "-", stdin=gzip.compress(pcap.read_bytes()), cwd=tmp_path)
    got = [r for r in _story(p) if r["type"] == "summary"]
    assert [s["kafka_frames"] for s in got] == [s["kafka_frames"] for s in want]
    p = cli("capture", "--follow", str(ROOT / "README.md"), cwd=tmp_path)
    assert p.returncode == 1 and p.stderr.decode() == (
        f"error: {ROOT / 'README.md'}: not a pcap or pcapng stream, which capture --follow reads: it looks like "
        "Markdown text\n"
    )


def test_the_kafka_frames_line_adds_up_on_every_shared_capture(tmp_path):
    """The summary said "Kafka frames 262: 206 group frames decoded, 54 of other APIs skipped" (2 unpaired responses
    not said): its parts add up to its total on each capture of ../shared."""

    for gz in sorted((SHARED / "captures" / "pcaps").glob("*/*.pcap.gz")):
        p = cli("capture", str(gz), cwd=tmp_path)
        line = next(ln for ln in p.stdout.decode().splitlines() if ln.startswith("  Kafka frames"))
        total, parts = line.split(":", 1)
        numbers = [int(part.split()[0].replace(",", "")) for part in parts.strip().split(", ")]
        assert sum(numbers) == int(total.split()[-1].replace(",", "")), (gz.name, line)


@pytest.mark.wheel
def test_the_reproducers_from_a_fresh_venv_outside_the_checkout(installed, pcap, tmp_path):
    """Issue #46's reproducers with the wheel installed in a fresh venv, run in an empty folder."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "REBALANCE_CODEC_SHARED")}

    def go(*args: str, stdin: bytes = b"", path: str | None = None) -> subprocess.CompletedProcess:
        e = env if path is None else {**env, "PATH": path}
        return subprocess.run(
            [str(installed), *args], input=stdin, capture_output=True, cwd=tmp_path, env=e, timeout=300
        )

    want = _story(cli("capture", "--json", str(pcap), cwd=tmp_path))
    assert _story(go("capture", "--json", "-", stdin=gzip.compress(pcap.read_bytes()))) == want
    assert _story(go("capture", "--json", "/dev/stdin", stdin=pcap.read_bytes())) == want
    (tmp_path / "README.md").write_bytes((ROOT / "README.md").read_bytes())
    p = go("capture", "README.md")
    assert p.returncode == 1 and b"it looks like Markdown text" in p.stderr and p.stderr.count(b"\n") == 1
    p = go("capture", ".")
    assert p.returncode == 1 and p.stderr.startswith(b"error: . is a directory (") and b"Errno" not in p.stderr
    empty = tmp_path / "bin"
    empty.mkdir()
    p = go("conformance", "--impl", "python-nowhere adapter.py", path=str(empty))
    assert p.stderr.decode().endswith("'python-nowhere' is not on PATH (1 folder searched)\n")
