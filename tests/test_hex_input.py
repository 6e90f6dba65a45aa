"""``decode`` takes hex as people copy it (issue #46): plain, spaced, with colons, hex dumps (Wireshark's "Copy as
Hex Dump", ``tshark -x``, ``hexdump -C``, ``xxd``), a whole packet's dump cut to its TCP payload, a frame's 4-byte
size in front, and a file of hex text given as ``@path``.

The bytes expected are the shared captures' frames (``frames.jsonl``: each Kafka frame's bytes as the capture tool
extracted them, without the size); the dumps are written here by the layouts' own rules, or by tshark where it is
installed, never by the code under test.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys

import pytest

from codec.errors import DecodeError
from codec.hexinput import parse_hex, size_prefixed
from tests.conftest import ROOT, SHARED, load_jsonl

CAPTURES = SHARED / "captures"
FRAMES = [r for r in load_jsonl(CAPTURES / "frames.jsonl") if r["direction"] == "request"]
# a JoinGroup request: its client id and protocol names give an ASCII column with words in it
FRAME = bytes.fromhex(next(r["hex"] for r in FRAMES if r["api_key"] == 11))
SIZED = len(FRAME).to_bytes(4, "big") + FRAME


def run(*args: str, stdin: str = "", cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codec", *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120
    )


def _ascii(chunk: bytes) -> str:
    return "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)


def wireshark_dump(data: bytes) -> str:
    """Wireshark's "Copy as Hex Dump": a 4-digit offset, three spaces, 16 bytes (two spaces between the halves),
    three spaces, the ASCII; the last line padded so its ASCII column lines up."""
    lines = []
    for off in range(0, len(data), 16):
        chunk = data[off : off + 16]
        halves = [" ".join(f"{b:02x}" for b in chunk[:8]), " ".join(f"{b:02x}" for b in chunk[8:])]
        body = "  ".join(h for h in halves if h)
        lines.append(f"{off:04x}   {body:<48}   {_ascii(chunk)}")
    return "\n".join(lines) + "\n"


def hexdump_c(data: bytes) -> str:
    lines = []
    for off in range(0, len(data), 16):
        chunk = data[off : off + 16]
        left = " ".join(f"{b:02x}" for b in chunk[:8])
        right = " ".join(f"{b:02x}" for b in chunk[8:])
        lines.append(f"{off:08x}  {left:<23}  {right:<23}  |{_ascii(chunk)}|")
    lines.append(f"{len(data):08x}")  # hexdump -C ends with the length alone on a line
    return "\n".join(lines) + "\n"


def xxd(data: bytes) -> str:
    lines = []
    for off in range(0, len(data), 16):
        chunk = data[off : off + 16]
        quads = " ".join(chunk[i : i + 2].hex() for i in range(0, len(chunk), 2))
        lines.append(f"{off:08x}: {quads:<39}  {_ascii(chunk)}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "text",
    [
        FRAME.hex(),
        FRAME.hex().upper(),
        "0x" + FRAME.hex(),
        FRAME.hex(" "),
        FRAME.hex("\n", 8),
        FRAME.hex(":"),
        wireshark_dump(FRAME),
        xxd(FRAME),
    ],
    ids=["plain", "upper", "0x", "spaced", "lines", "colons", "wireshark", "xxd"],
)
def test_every_form_reads_the_same_bytes(text):
    assert parse_hex(text)[0] == FRAME


def test_the_ascii_column_is_never_read_as_bytes():
    # the last line's ASCII column holds hex-looking words ("cafe", "be") after its bytes
    for tail in (b"cafe be ef", b"cafe be ef 12 34"):  # a short last line, and a full one (no padding)
        data = FRAME[:16] + tail
        assert parse_hex(wireshark_dump(data))[0] == data
        assert parse_hex(xxd(data))[0] == data
        assert parse_hex(hexdump_c(data))[0] == data


def test_hexdump_c_with_its_length_line():
    # hexdump -C's last line is the length alone: it is the offset of no byte, so the bytes end there
    assert parse_hex(hexdump_c(FRAME))[0] == FRAME
    assert parse_hex(hexdump_c(FRAME).rsplit("\n", 2)[0] + "\n")[0] == FRAME


def test_a_dump_whose_offsets_skip_a_line_is_refused_with_the_reason():
    lines = wireshark_dump(FRAME).splitlines()
    with pytest.raises(DecodeError, match="offsets do not follow"):
        parse_hex("\n".join(lines[:2] + lines[3:]))


def test_the_size_prefix_is_found_only_where_it_counts_the_rest():
    assert size_prefixed(SIZED)
    assert not size_prefixed(FRAME)
    assert not size_prefixed(SIZED + b"\0")


def test_decode_reads_tcp_payload_hex_with_its_size_and_says_so():
    want = run("decode", "--kind", "request-frame", FRAME.hex(), "--compact")
    p = run("decode", "--kind", "auto", SIZED.hex(), "--compact")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["value"] == json.loads(want.stdout)
    assert f"are a frame's size, {len(FRAME)}" in p.stderr
    # the same, as colons and as a dump, from stdin
    for text in (SIZED.hex(":"), wireshark_dump(SIZED)):
        q = run("decode", "--kind", "auto", "-", "--compact", stdin=text)
        assert q.returncode == 0 and json.loads(q.stdout) == json.loads(p.stdout), q.stderr


def test_a_file_of_hex_text_given_as_a_path(tmp_path):
    f = tmp_path / "frame.txt"
    f.write_text(wireshark_dump(FRAME))
    p = run("decode", "--kind", "request-frame", f"@{f}", "--compact")
    assert p.returncode == 0, p.stderr
    assert "the file holds hex text" in p.stderr
    want = run("decode", "--kind", "request-frame", FRAME.hex(), "--compact")
    assert p.stdout == want.stdout


def test_lines_take_colon_hex():
    p = run("decode", "--kind", "request-frame", "--lines", stdin=FRAME.hex(":") + "\n" + FRAME.hex() + "\n")
    a, b = p.stdout.splitlines()
    assert p.returncode == 0 and a == b


def test_not_hex_is_one_line_naming_the_digit():
    p = run("decode", "--kind", "auto", "00 0e zz")
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.strip().splitlines() == [p.stderr.strip()]
    assert "'z' at digit 5" in p.stderr


def _tshark_packets(pcap) -> list[tuple[bytes, str]]:
    """Each packet with a TCP payload: the Kafka bytes tshark says it carries (the reassembled frame where tshark
    reassembled one, else the segment's payload) and its ``tshark -x`` block."""
    rows = subprocess.run(
        [
            "tshark",
            "-r",
            str(pcap),
            "-Y",
            "tcp.len > 0",
            "-T",
            "fields",
            "-e",
            "tcp.reassembled.data",
            "-e",
            "tcp.payload",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    blocks = (
        subprocess.run(
            ["tshark", "-r", str(pcap), "-Y", "tcp.len > 0", "-x"], capture_output=True, text=True, check=True
        )
        .stdout.strip("\n")
        .split("\n\n")
    )
    packets: list[str] = []
    for block in blocks:  # a "Reassembled TCP (N bytes):" block belongs to the "Frame (M bytes):" block before it
        if block.startswith("Reassembled TCP") and packets:
            packets[-1] += "\n\n" + block
        else:
            packets.append(block)
    assert len(rows) == len(packets)
    return [(bytes.fromhex((r.split("\t")[0] or r.split("\t")[1]).replace(":", "")), b) for r, b in zip(rows, packets)]


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_whole_packet_dumps_read_as_tshark_reads_them(tmp_path):
    requests = {r["hex"] for r in FRAMES}
    checked = decoded = 0
    for gz in sorted(CAPTURES.glob("pcaps/*/*.pcap.gz"))[:3]:
        pcap = tmp_path / gz.name.removesuffix(".gz")
        pcap.write_bytes(gzip.decompress(gz.read_bytes()))
        for want, dump in _tshark_packets(pcap):
            got, note = parse_hex(dump)
            assert got == want, dump
            assert "TCP payload" in note or "Reassembled TCP" in note
            checked += 1
            if decoded < 5 and size_prefixed(want) and want[4:].hex() in requests:
                p = run("decode", "--kind", "auto", "-", stdin=dump)
                assert p.returncode == 0, p.stderr
                decoded += 1
    assert checked > 20 and decoded > 0
