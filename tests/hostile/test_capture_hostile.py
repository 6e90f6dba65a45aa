"""``rebalance-codec capture`` under hostile input (issue #17), through the installed console script: no
traceback, no hang, bounded memory, honest output.

The input policy (README): readers of whole streams report bad input instead of raising, and every input
record is accounted for. So a file that cannot be read to its end (a cut or corrupt gzip stream, a lone gzip
magic) gets the story of what was read, a ``bad file`` problem in its summary, one ``error:`` line on stderr
and exit status 1; a bad line in a readable text dump is a bad record (exit 0); odd but readable input (pcapng
timestamps of 2^63 units) is told as it is (exit 0).

Every input is built here, from the formats' definitions: text dumps of ``__consumer_offsets`` records
(OffsetCommitKey v1 by hand: int16 version 1, int16-length group and topic, int32 partition; null values),
log segments of such records (Kafka's record batch layout, tests.capture.test_offsets' writer), pcap and
pcapng files (codec.capture.pcapwriter, pcapng blocks by hand), group frames (tests.capture.groupcapture).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import struct
import subprocess
import time

import pytest

from codec.capture.pcapwriter import TcpConnection, frame, pcap
from tests.capture.groupcapture import (
    consumer_assignment_v0,
    heartbeat_request,
    heartbeat_response,
    join_request,
    join_response,
    sync_request,
    sync_response,
)
from tests.capture.test_offsets import batch, commit_key, record
from tests.capture.test_resync import BOGUS, JOIN, _merged_stream

pytestmark = pytest.mark.wheel

LIMIT = 60  # seconds: every run here takes a few at most


def _run(installed_cli, *args: str) -> subprocess.CompletedProcess:
    start = time.monotonic()
    p = installed_cli("capture", *args, timeout=LIMIT)
    assert time.monotonic() - start < LIMIT
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout, p.stderr[-3000:]
    assert "unexpected" not in p.stderr, p.stderr  # the last line of defence (a bug) was not needed
    return p


def _one_error_line(p: subprocess.CompletedProcess, *words: str) -> str:
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    assert all(w in lines[0] for w in words), (lines[0], words)
    return lines[0]


def _summary(p: subprocess.CompletedProcess) -> dict:
    return json.loads(p.stdout.split("\n")[-2])


# -- files that cannot be read to their end -----------------------------------------------------------


def _key(i: int) -> bytes:
    g, t = b"g", b"orders"
    return struct.pack(">hh", 1, len(g)) + g + struct.pack(">h", len(t)) + t + struct.pack(">i", i)


DUMP = "".join(f"{_key(i).hex()}\tnull\n" for i in range(3000)).encode()  # 3,000 offset commits of group g
SEGMENT = b"".join(batch([record(0, commit_key(1, partition=i), None)], base_offset=i) for i in range(400))
BATCH = len(SEGMENT) // 400  # each batch: one record of the same size


def _cut(data: bytes) -> bytes:
    whole = gzip.compress(data)
    return whole[: len(whole) // 2]


def test_a_cut_gzip_text_dump(installed_cli, tmp_path):
    f = tmp_path / "offsets.txt.gz"
    f.write_bytes(_cut(DUMP))
    p = _run(installed_cli, str(f), "--json")
    assert p.returncode == 1
    _one_error_line(p, str(f), "cannot be read to its end", "truncated gzip")
    s = _summary(p)
    (bad,) = s["problems"]["bad file"]["first"]
    read = int(bad["where"].removeprefix("line ")) - 1  # the lines read before the cut
    assert 0 < read < 3000 and s["offset_commits"] == {"g": read} and s["records"] == read + 1
    text = _run(installed_cli, str(f))
    assert text.returncode == 1 and f"offset commits g: {read:,}" in text.stdout and "bad file: 1" in text.stdout
    _one_error_line(text, "truncated gzip")


def test_a_cut_gzip_log_segment(installed_cli, tmp_path):
    f = tmp_path / "00000000000000000000.log.gz"
    f.write_bytes(_cut(SEGMENT))
    p = _run(installed_cli, str(f), "--json")
    assert p.returncode == 1
    _one_error_line(p, "cannot be read to its end", "truncated gzip")
    s = _summary(p)
    (bad,) = s["problems"]["bad file"]["first"]
    read = s["offset_commits"]["g1"]  # commit_key's group
    assert 0 < read < 400 and bad["where"] == f"batch at byte {read * BATCH}"


def test_a_corrupt_gzip_text_dump(installed_cli, tmp_path):
    whole = bytearray(gzip.compress(DUMP))
    mid = len(whole) // 2
    whole[mid : mid + 64] = bytes(b ^ 0x5A for b in whole[mid : mid + 64])
    f = tmp_path / "offsets.txt.gz"
    f.write_bytes(bytes(whole))
    p = _run(installed_cli, str(f), "--json")
    assert p.returncode == 1
    _one_error_line(p, "cannot be read to its end")
    assert _summary(p)["offset_commits"]["g"] >= 3000 // 4  # the lines well before the middle were read


@pytest.mark.parametrize(
    "name,data",
    [
        ("only-magic", b"\x1f\x8b"),
        ("only-magic.log.gz", b"\x1f\x8b"),
        ("only-magic.pcap.gz", b"\x1f\x8b"),
        ("bad-method.pcap.gz", b"\x1f\x8b\x63" + bytes(20)),
    ],
)
def test_a_gzip_that_cannot_even_start(installed_cli, tmp_path, name, data):
    f = tmp_path / name
    f.write_bytes(data)
    p = _run(installed_cli, str(f))
    assert p.returncode == 1
    _one_error_line(p, "cannot be read to its end")
    assert "no consumer group traffic found" in p.stdout and "bad file: 1" in p.stdout


# -- bounded work on hostile text dumps -----------------------------------------------------------------


def test_fifty_thousand_nested_brackets(installed_cli, tmp_path):
    f = tmp_path / "offsets.txt"
    f.write_text(
        '{"key": '
        + "[" * 50_000
        + "\n"
        + '{"key": "00", "value": '
        + '{"a": ' * 50_000
        + "\n"
        + "[" * 50_000
        + "\n"
        + f"{_key(7).hex()}\tnull\n"
    )
    p = _run(installed_cli, str(f), "--json")
    assert p.returncode == 0 and p.stderr == ""
    s = _summary(p)
    assert s["records"] == 4 and s["offset_commits"] == {"g": 1} and s["problems"]["bad records"]["count"] == 3
    reasons = [x["reason"] for x in s["problems"]["bad records"]["first"]]
    assert "nests too deeply" in reasons[0] and "nests too deeply" in reasons[1]


def test_a_gzip_bomb_of_one_line_stays_in_bounded_memory(installed, tmp_path):
    """300 MB of one line, gzipped to about 1 MB: read past in pieces under a 512 MiB address-space limit (the
    reader before issue #17 needed several times the line's size and died of MemoryError there)."""
    import resource

    f = tmp_path / "bomb.txt.gz"
    f.write_bytes(gzip.compress(b"0" * 300_000_000 + b"\n" + f"{_key(1).hex()}\tnull\n".encode(), 1))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "REBALANCE_CODEC_SHARED")}

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))

    p = subprocess.run(
        [str(installed), "capture", str(f), "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=LIMIT,
        preexec_fn=limit,
    )
    assert p.returncode == 0, p.stderr
    s = _summary(p)
    assert s["offset_commits"] == {"g": 1} and s["problems"]["bad records"]["count"] == 1
    assert "a line of 300,000,001 characters exceeds the maximum" in s["problems"]["bad records"]["first"][0]["reason"]


# -- pcapng timestamps beyond the calendar ----------------------------------------------------------------


def _block(btype: int, body: bytes) -> bytes:
    body += b"\x00" * (-len(body) % 4)
    return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)


def _huge_pcapng(first: int, tsresol: int | None) -> bytes:
    """One generation (JoinGroup, SyncGroup, a Heartbeat answered 27) on an interface whose timestamps start
    at ``first`` units (``tsresol``: if_tsresol, None for the default microseconds), one unit per packet."""
    c = TcpConnection(("10.0.0.1", 40000), ("10.0.0.2", 9092))
    c.open(0)
    sub = struct.pack(">hihi", 0, 0, -1, 0)[:10]  # ConsumerProtocolSubscription v0: no topics, null user data
    asg = consumer_assignment_v0({"t": [0]}, None)
    for i, (side, data) in enumerate(
        [
            ("c", join_request(1, "cli", "grp", "", [("range", sub)])),
            ("s", join_response(1, 5, "range", "m-1", sub)),
            ("c", sync_request(2, "cli", "grp", 5, "m-1", asg)),
            ("s", sync_response(2, asg)),
            ("c", heartbeat_request(3, "cli", "grp", 5, "m-1")),
            ("s", heartbeat_response(3, 27)),
        ]
    ):
        c.write(side, data, i)
    c.close(9)
    options = b"" if tsresol is None else struct.pack("<HHB3x", 9, 1, tsresol) + struct.pack("<HH", 0, 0)
    out = [
        _block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)),
        _block(1, struct.pack("<HHI", 1, 0, 0) + options),
    ]
    for i, s in enumerate(c.segments):
        data, t = frame(s, 1), first + i
        out.append(_block(6, struct.pack("<IIIII", 0, t >> 32, t & 0xFFFFFFFF, len(data), len(data)) + data))
    return b"".join(out)


# 2^63 microseconds = 9,223,372,036,854.775808 s (a float is within 0.002 s of it); 2^64 - 16 seconds is
# 18,446,744,073,709,551,600 s, whose nearest float is 2^64 = 18,446,744,073,709,551,616.
@pytest.mark.parametrize(
    "first,tsresol,shown,seconds",
    [
        (1 << 63, None, r"epoch\+9223372036854\.77\d s", 9223372036854.775808),
        ((1 << 64) - 16, 0, r"epoch\+18446744073709551616\.000 s", 2.0**64),
    ],
)
def test_pcapng_timestamps_beyond_the_calendar(installed_cli, tmp_path, first, tsresol, shown, seconds):
    f = tmp_path / "huge.pcapng"
    f.write_bytes(_huge_pcapng(first, tsresol))
    p = _run(installed_cli, str(f))
    assert p.returncode == 0 and p.stderr == ""
    head = next(line for line in p.stdout.splitlines() if line.startswith("generation 5"))
    assert re.fullmatch(rf"generation 5  consumer/range  leader m-1 \(cli\)  {shown} \.\. {shown} \(0\.0 s\)", head)
    assert re.search(rf"^    {shown}  heartbeat m-1  27 REBALANCE_IN_PROGRESS$", p.stdout, re.M)
    j = _run(installed_cli, str(f), "--json")
    (gen,) = [x for x in map(json.loads, j.stdout.split("\n")[:-1]) if x["type"] == "generation"]
    assert j.returncode == 0 and abs(gen["first_ts"] - seconds) <= seconds * 1e-15


# -- the capture splitter: a bogus header in front of a JoinGroup ---------------------------------------


def _pcap_of(requests: bytes) -> bytes:
    c = TcpConnection(("10.0.0.1", 40000), ("10.0.0.2", 9092))
    c.open(1_700_000_000.0)
    c.write("c", requests, 1_700_000_000.01)
    c.close(1_700_000_001.0)
    return pcap(c.segments)


@pytest.mark.parametrize("case", ["join", "merged"])
def test_a_bogus_header_does_not_swallow_the_join_group(installed_cli, tmp_path, case):
    """The bogus header claims 2^31-1 bytes; 4 bytes into it a plausible header claims 720,901 (see
    tests/capture/test_resync.py). ``merged``: real frames follow for that long, one of them starting exactly
    where the bogus frame would end, and they all come out."""
    stream, starts = (BOGUS + JOIN, [14]) if case == "join" else _merged_stream()
    f = tmp_path / "bogus.pcap"
    f.write_bytes(_pcap_of(stream))
    p = _run(installed_cli, str(f), "--json")
    assert p.returncode == 0 and p.stderr == ""
    lines = [json.loads(x) for x in p.stdout.split("\n") if x]
    frames = [x for x in lines if x["type"] == "frame"]
    join = frames[0]
    assert (join["api_name"], join["direction"], join["correlation_id"], join["group"]) == (
        "JoinGroup",
        "request",
        1,
        "grp",
    )
    assert "error" not in join and join["hex"] == JOIN[4:].hex()
    s = lines[-1]
    assert s["unframed_bytes"] == {"garbage": 14}
    heartbeats = len(starts) - 1 - (case == "merged")  # the merged stream also holds one Metadata request
    assert s["group_frames"] == 1 + heartbeats and len(frames) == 1 + heartbeats
    assert sum(a["frames"] for a in s["other_apis"]) == (case == "merged")


# -- terminal safety of the text story --------------------------------------------------------------------

HOSTILE = {
    "group": "g\x1b]0;pwned\x07\nforged: group",
    "client": "c\x1b]8;;http://x\x07link\x1b]8;;\x07",
    "topic": "t\x07\r\nx",
}
# as the text story must show them: \xNN for each control character (codec.text's escapes)
SHOWN = {
    "group": r"g\x1b]0;pwned\x07\x0aforged: group",
    "client": r"c\x1b]8;;http://x\x07link\x1b]8;;\x07",
    "topic": r"t\x07\x0d\x0ax",
}
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _named_capture(names: dict[str, str]) -> bytes:
    t = names["topic"].encode()
    sub = struct.pack(">hih", 0, 1, len(t)) + t + struct.pack(">i", -1)  # ConsumerProtocolSubscription v0
    asg = consumer_assignment_v0({names["topic"]: [0]}, None)
    c = TcpConnection(("10.0.0.1", 40000), ("10.0.0.2", 9092))
    c.open(1_700_000_000.0)
    for i, (side, data) in enumerate(
        [
            ("c", join_request(1, names["client"], names["group"], "", [("range", sub)])),
            ("s", join_response(1, 5, "range", "m-1", sub)),
            ("c", sync_request(2, names["client"], names["group"], 5, "m-1", asg)),
            ("s", sync_response(2, asg)),
        ]
    ):
        c.write(side, data, 1_700_000_000.1 + i / 10)
    c.close(1_700_000_001.0)
    return pcap(c.segments)


def test_names_cannot_forge_lines_or_drive_the_terminal(installed_cli, tmp_path):
    """Group, client id and topic carry OSC sequences (title, hyperlink), BEL, CR and LF. The text story shows
    them escaped where they belong and has exactly as many lines as with plain names; tests/capture/
    test_story_escapes.py covers the other wire strings and the JSON."""
    (tmp_path / "hostile.pcap").write_bytes(_named_capture(HOSTILE))
    (tmp_path / "plain.pcap").write_bytes(_named_capture({k: f"{k}-plain" for k in HOSTILE}))
    p = _run(installed_cli, str(tmp_path / "hostile.pcap"))
    plain = _run(installed_cli, str(tmp_path / "plain.pcap"))
    assert p.returncode == 0 == plain.returncode
    assert _CONTROL.findall(p.stdout) == [] and _CONTROL.findall(p.stderr) == []
    lines = p.stdout.split("\n")
    assert len(lines) == len(plain.stdout.split("\n"))
    for wanted in (
        f"group {SHOWN['group']}  (1 generations, pcap input)",
        f"generation 5  consumer/range  leader m-1 ({SHOWN['client']})",
        f"subscription  v0: topics {SHOWN['topic']}",
        f"assignment    v0: {SHOWN['topic']}: 0 (1 partitions)",
    ):
        assert any(wanted in line for line in lines), wanted
