"""``capture --follow`` on a capture with holes (segments the capture lost): a connection that falls quiet behind a
hole -- a member that sends LeaveGroup and closes -- is given up after ``--max-hole-seconds`` of the capture's clock,
not held until the capture ends, so its LeaveGroup is read before the next generation forms and that generation's
cause is the leave. The input is one nobody here wrote (``../shared/captures``: three clients of three libraries in
one group, 117 of its frames lost to holes); what the clients did is read from it by tshark's Kafka dissector."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHARED

SCRIPT = Path(sys.executable).with_name("rebalance-codec")
PCAP = SHARED / "captures" / "pcaps" / "runA" / "mixed-range.pcap.gz"
PORT = 49975  # the mock broker's port in that capture

pytestmark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")


def _tshark(data: bytes, where: str, fields: tuple[str, ...], tmp_path) -> list[list[str]]:
    path = tmp_path / "capture.pcap"
    path.write_bytes(data)
    args = ["tshark", "-r", str(path), "-d", f"tcp.port=={PORT},kafka", "-Y", where, "-T", "fields"]
    out = subprocess.run([*args, *(x for f in fields for x in ("-e", f))], capture_output=True, text=True, check=True)
    return [line.split("\t") for line in out.stdout.splitlines() if line]


def test_a_member_that_leaves_and_closes_behind_a_hole_is_told_as_left(tmp_path):
    data = gzip.decompress(PCAP.read_bytes())
    leaves = _tshark(
        data, f"kafka.api_key==13 && tcp.dstport=={PORT}", ("frame.time_epoch", "kafka.member_id"), tmp_path
    )
    formed: dict[int, float] = {}  # generation -> its first JoinGroup response
    for ts, gen in _tshark(
        data, f"kafka.api_key==11 && tcp.srcport=={PORT}", ("frame.time_epoch", "kafka.generation_id"), tmp_path
    ):
        formed.setdefault(int(gen), float(ts))
    # each leave the group answered with a new generation: the first one formed after it
    expected = {}
    for ts, member in leaves:
        after = [g for g, t in formed.items() if t > float(ts)]
        if after:
            expected[min(after)] = member
    assert len(expected) == 3  # (the last member's leave empties the group)
    p = subprocess.run(  # the console script, from another folder, the capture piped in
        [str(SCRIPT), "capture", "--follow", "-", "--json", "--port", str(PORT)],
        input=data,
        capture_output=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    told = {}
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    for r in lines:
        if r["type"] == "generation":
            told[r["generation"]] = (r["cause"]["kind"], r["cause"]["members"])
    assert lines[-1]["type"] == "summary" and lines[-1]["lost_frames"]["holes"] > 0  # (a capture with holes)
    assert sorted(told) == sorted(formed)
    for gen, member in expected.items():
        assert told[gen] == ("member-left", [member]), (gen, told)
