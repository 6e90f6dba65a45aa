"""The reproducers of issue #31 through the installed console script: small inputs that bought work and output
far beyond their size now end within seconds, under 1 GiB and within their budget (``codec.budget``), or with
one clear error line. The inputs are written here with the project's encoders, at the issue's sizes; larger
variants run with ``-m slow``. Each run is timed and its peak memory read from /proc while it runs
(:func:`codec.fuzz.cli.execute`)."""

from __future__ import annotations

import json
import struct

import pytest

from codec.budget import BUDGETS
from codec.capture.scripted import ScriptedCapture, streams_request
from codec.fuzz.cli import Job, execute
from codec.kafka4 import encode, encode_record

pytestmark = pytest.mark.wheel

GIB_KB = 1024 * 1024


def _run(installed, *args: str, timeout: float = 60):
    """One run of the installed script: killed past ``timeout`` s or 1 GiB (then reported as such)."""
    res = execute(Job(args[0], tuple(args)), program=(str(installed),), timeout=timeout, max_rss_mb=1024)
    assert res.killed is None, (res.killed, res.seconds, res.max_rss_kb)
    assert b"Traceback" not in res.stderr and b"a bug in rebalance-codec" not in res.stderr, res.stderr[-500:]
    return res


def _within(res, command: str, size: int) -> None:
    out = len(res.stdout) + len(res.stderr)
    assert out <= BUDGETS[command].output(size), (out, BUDGETS[command].output(size))
    assert res.max_rss_kb < GIB_KB and res.seconds < 30, (res.max_rss_kb, res.seconds)


def _heartbeat_response(name_length: int, partitions: int) -> bytes:
    return encode(
        "streams-group-heartbeat-response",
        0,
        {"activeTasks": [{"subtopologyId": "x" * name_length, "partitions": list(range(partitions))}]},
    )


def _pcap(response: dict) -> bytes:
    cap = ScriptedCapture()
    cap.exchange(0.0, "c1", 88, 0, streams_request("g", "m", 0), response)
    return cap.pcap()


@pytest.mark.parametrize(
    "name_length,partitions", [(32_000, 20_000), pytest.param(30_000, 200_000, marks=pytest.mark.slow)]
)
def test_decode_pretty_shows_a_long_subtopology_once(installed, tmp_path, name_length, partitions):
    """112 KB of StreamsGroupHeartbeat response: the id was printed once per partition (640 MB, 1.9 GB RSS)."""
    body = _heartbeat_response(name_length, partitions)
    (tmp_path / "r.bin").write_bytes(body)
    res = _run(
        installed,
        "decode",
        "--kind",
        "streams-group-heartbeat-response",
        "--version",
        "0",
        "--format",
        "pretty",
        f"@{tmp_path / 'r.bin'}",
    )
    assert res.status == 0
    _within(res, "decode", len(body))
    text = res.stdout.decode("utf-8")
    assert f"active tasks ({partitions}):" in text and f"{'x' * name_length}: 0-{partitions - 1}" in text
    assert text.count("x" * name_length) == 1


def test_capture_json_names_a_long_subtopology_once(installed, tmp_path):
    """A 118 KB pcap holding that response: ``capture --json`` wrote 640 MB (task labels ``f"{sub}_{p}"``)."""
    pcap = _pcap(
        {
            "memberId": "m",
            "memberEpoch": 1,
            "activeTasks": [{"subtopologyId": "x" * 32_000, "partitions": list(range(20_000))}],
        }
    )
    (tmp_path / "r.pcap").write_bytes(pcap)
    res = _run(installed, "capture", "--json", str(tmp_path / "r.pcap"))
    assert res.status == 0
    _within(res, "capture", len(pcap))
    (group,) = [json.loads(line) for line in res.stdout.splitlines() if b'"heartbeat-group"' in line]
    (step,) = group["members"][0]["steps"]
    assert step["assignment"]["active tasks"] == {"x" * 32_000: list(range(20_000))}


@pytest.mark.parametrize("statuses", [80_000, pytest.param(400_000, marks=pytest.mark.slow)])
def test_capture_of_many_distinct_statuses_is_not_quadratic(installed, tmp_path, statuses):
    """80,000 distinct statuses in one response took 49 s (``if item not in list``)."""
    pcap = _pcap(
        {
            "memberId": "m",
            "memberEpoch": 1,
            "status": [{"statusCode": 1, "statusDetail": str(i)} for i in range(statuses)],
        }
    )
    (tmp_path / "r.pcap").write_bytes(pcap)
    res = _run(installed, "capture", str(tmp_path / "r.pcap"))
    assert res.status == 0
    _within(res, "capture", len(pcap))
    assert f"({statuses - 64:,} more statuses; --json lists them all)" in res.stdout.decode("utf-8")


def _segment_of_copies(n: int, numbered: bool = False) -> bytes:
    """One zstd batch of ``n`` copies of a tiny ConsumerGroupMetadata record (epoch 5), as the issue built it
    (every offset delta 0); ``numbered``: offset deltas 0, 1, 2, ... as a broker writes them."""
    import crc32c
    import cramjam

    key, value = encode_record({"record": "ConsumerGroupMetadata", "key": {"groupId": "g"}, "value": {"epoch": 5}})

    def varint(i: int) -> bytes:
        v, out = i << 1, bytearray()
        while v >= 0x80:
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        return bytes(out + bytes([v]))

    def record(delta: int) -> bytes:
        body = b"\x00\x00" + varint(delta) + bytes([len(key) * 2]) + key + bytes([len(value) * 2]) + value + b"\x00"
        return varint(len(body)) + body

    records = b"".join(record(i) for i in range(n)) if numbered else record(0) * n
    payload = bytes(cramjam.zstd.compress(records, level=19))
    after = struct.pack(">hiqqqhii", 4, n - 1, 0, 0, -1, -1, -1, n) + payload
    batch = struct.pack(">ibI", 0, 2, crc32c.crc32c(after)) + after
    return struct.pack(">qi", 0, len(batch)) + batch


@pytest.mark.parametrize("records", [6_000_000, pytest.param(60_000_000, marks=pytest.mark.slow)])
def test_a_batch_of_millions_of_tiny_records_is_refused_in_one_line(installed, tmp_path, records):
    """A 9.7 KB segment of one zstd batch of 6,000,000 records took 100 s, 1.3 GB and printed 18 MB."""
    seg = _segment_of_copies(records)
    assert len(seg) < 200_000
    (tmp_path / "00000000000000000000.log").write_bytes(seg)
    res = _run(installed, "capture", str(tmp_path / "00000000000000000000.log"))
    assert res.status == 1  # the segment's one batch is refused: nothing in it is read (issue #46's truthful exit)
    _within(res, "capture", len(seg))
    text = res.stdout.decode("utf-8")
    assert "data decompresses to more than" in text and "its records are not read" in text


def test_copies_of_one_record_are_no_batch_a_broker_writes(installed, tmp_path):
    """Within the size bound, 1,000 copies of one record (every offset delta 0): refused whole, in one line."""
    (tmp_path / "00000000000000000000.log").write_bytes(_segment_of_copies(1_000))
    res = _run(installed, "capture", str(tmp_path / "00000000000000000000.log"))
    text = res.stdout.decode("utf-8")
    assert res.status == 1 and "offset delta 0 after 0" in text and "its records are not read" in text


def test_a_batch_within_the_bound_is_told_with_its_epochs_collapsed(installed, tmp_path):
    """The same shape, numbered as a broker numbers a batch's records, at a size the bound allows: every record
    read, the equal epochs listed once."""
    seg = _segment_of_copies(1_000, numbered=True)
    (tmp_path / "00000000000000000000.log").write_bytes(seg)
    res = _run(installed, "capture", str(tmp_path / "00000000000000000000.log"))
    text = res.stdout.decode("utf-8")
    assert res.status == 0 and "records        1,000" in text and "no member epoch seen; group epochs 5\n" in text


@pytest.mark.parametrize(
    "connectors,why",
    [
        ({f"c{i}": 100_000 for i in range(10)}, "must be a task count (an integer 0..10000)"),
        ({f"c{i}": 1_000 for i in range(11)}, "at most 10,000 tasks in all"),
        ({"x" * 3000: 10_000}, "the assignments would repeat 30,000,001 characters of names"),
    ],
)
def test_assign_connect_caps_tasks_as_simulate_does(installed, tmp_path, connectors, why):
    """167 bytes asked for 10 x 100,000 tasks (113 MB out, 939 MB); a 3,000-character name x 100,000 tasks 910 MB."""
    f = tmp_path / "g.json"
    f.write_text(json.dumps({"connectors": connectors, "workers": [{"memberId": "w"}]}), encoding="utf-8")
    res = _run(installed, "assign", "--connect", str(f))
    assert res.status == 1 and why in res.stdout.decode("utf-8")
    assert len(res.stdout) < 1000


def test_assign_connect_at_the_cap_stays_within_its_budget(installed, tmp_path):
    f = tmp_path / "g.json"
    f.write_text(
        json.dumps({"connectors": {f"c{i}": 1_000 for i in range(10)}, "workers": [{"memberId": "w"}]}),
        encoding="utf-8",
    )
    res = _run(installed, "assign", "--connect", "--emit-bytes", str(f))
    assert res.status == 0
    _within(res, "assign", f.stat().st_size)
    assert len(json.loads(res.stdout)["assignments"]["w"]["taskIds"]) == 10_000
