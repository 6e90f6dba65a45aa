"""Every error code shown with its name (issue #46: ``decode --format pretty`` showed ``error_code -1`` bare while
``capture`` said ``UNKNOWN_SERVER_ERROR``). The names expected come from the facts file: §7's "Error codes seen in
group flows" (Kafka's ``Errors``) and §4's AssignorError table (Streams' assignment error codes)."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

from codec.conformance.messages import error_code_names, first_difference
from tests.conftest import SHARED

FACTS = (SHARED / "spec" / "kafka-wire-facts.md").read_text(encoding="utf-8")
SCRIPT = Path(sys.executable).with_name("rebalance-codec")
VECTORS = Path(__file__).resolve().parent.parent / "vectors" / "kafka-java-group.jsonl"


def _kafka_facts() -> dict[int, str]:
    line = next(ln for ln in FACTS.splitlines() if ln.startswith("**Error codes seen in group flows**"))
    return {int(c.replace("−", "-")): n for c, n in re.findall(r"([−-]?\d+) ([A-Z_]+)", line)}


def _assignor_facts() -> dict[int, str]:
    return {int(c): n for c, n in re.findall(r"^\| (\d) \| ([A-Z_]+) \|", FACTS, re.M)}


KAFKA = _kafka_facts()
ASSIGNOR = _assignor_facts()


def test_the_facts_were_read():
    assert len(KAFKA) == 17 and KAFKA[-1] == "UNKNOWN_SERVER_ERROR" and KAFKA[27] == "REBALANCE_IN_PROGRESS"
    assert ASSIGNOR == {0: "NONE", 1: "INCOMPLETE_SOURCE_TOPIC_METADATA", 2: "VERSION_PROBING", 3: "ASSIGNMENT_ERROR",
                        4: "SHUTDOWN_REQUESTED"}  # fmt: skip


def test_decode_pretty_names_the_error_code(tmp_path):
    """The issue's reproducer: a JoinGroup v7 response (Kafka's own bytes, its error code set to -1)."""
    body = next(
        json.loads(ln)["wire"]
        for ln in VECTORS.read_text(encoding="utf-8").splitlines()
        if '"JoinGroupResponse"' in ln and json.loads(ln)["version"] == 7
    )
    frame = bytearray.fromhex("00000007" + "00" + body)  # correlation id 7, header v1's empty tagged fields
    frame[9:11] = (-1).to_bytes(2, "big", signed=True)  # after throttleTimeMs: errorCode
    p = subprocess.run(
        [str(SCRIPT), "decode", "--kind", "response-frame", "--api-key", "11", "--version", "7", "--format", "pretty",
         frame.hex()],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert re.search(rf"^  error_code +-1 {KAFKA[-1]}$", p.stdout, re.M), p.stdout


def test_capture_json_names_every_error_code(tmp_path):
    pcap = tmp_path / "c.pcap"
    pcap.write_bytes(gzip.decompress((SHARED / "captures/pcaps/runA/ck-roundrobin.pcap.gz").read_bytes()))
    p = subprocess.run([str(SCRIPT), "capture", "--json", str(pcap)], capture_output=True, text=True, cwd=tmp_path)
    rows = [json.loads(ln) for ln in p.stdout.splitlines()]
    seen = set()
    for r in rows:
        items = [r] if r["type"] == "frame" else [e for m in [r] for e in m.get("events", [])]
        for item in items:
            if item.get("error_code") is not None:
                assert item["error_name"] == KAFKA[item["error_code"]], item
                seen.add(item["error_code"])
    assert {0, 27} <= seen


def test_a_conformance_difference_names_both_codes():
    d = first_difference({"errorCode": 27}, {"errorCode": 25}, names=error_code_names("HeartbeatResponse"))
    assert d == f"$.errorCode: expected 27 {KAFKA[27]}, got 25 {KAFKA[25]}"
    d = first_difference({"errCode": 4}, {"errCode": 1}, names=error_code_names("AssignmentInfo"))
    assert d == f"$.errCode: expected 4 {ASSIGNOR[4]}, got 1 {ASSIGNOR[1]}"
