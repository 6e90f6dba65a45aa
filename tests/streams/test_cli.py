"""The command line contract, over Kafka's vectors: ``--lines --style kafka`` in one process per file."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import KAFKA_VECTORS, ROOT, load_jsonl
from tests.streams.test_kafka_vectors import byte_equality_holds, normalize_assignment, normalize_subscription


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codec", *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=300
    )


KINDS = {
    "subscription": ("subscription-info", normalize_subscription),
    "assignment": ("assignment-info", normalize_assignment),
}


@pytest.mark.parametrize(
    "files",
    [("subscription.jsonl", "subscription_edge.jsonl"), ("assignment.jsonl", "assignment_edge.jsonl")],
    ids=["subscription", "assignment"],
)
def test_decode_lines_kafka_style(files):
    records = [r for f in files for r in load_jsonl(KAFKA_VECTORS / f) if "hex" in r]
    kind, normalize = KINDS[records[0]["kind"]]
    p = run("decode", "--kind", kind, "--lines", "--style", "kafka", stdin="".join(r["hex"] + "\n" for r in records))
    out = p.stdout.splitlines()
    assert len(out) == len(records)
    assert p.returncode == 1  # the error vectors fail, so not every line succeeded
    for r, line in zip(records, out):
        got = json.loads(line)
        if "error" in r:
            assert set(got) == {"error"} and set(got["error"]) == {"type", "message", "offset", "path"}
        else:
            assert normalize(got) == normalize(r["decoded"]), r.get("id") or r.get("index")


@pytest.mark.parametrize(
    "files",
    [("subscription.jsonl", "subscription_edge.jsonl"), ("assignment.jsonl", "assignment_edge.jsonl")],
    ids=["subscription", "assignment"],
)
def test_encode_lines_kafka_style(files):
    records = [r for f in files for r in load_jsonl(KAFKA_VECTORS / f) if "data" in r]
    kind, normalize = KINDS[records[0]["kind"]]
    p = run(
        "encode",
        "--kind",
        kind,
        "--lines",
        "--style",
        "kafka",
        stdin="".join(json.dumps(r["data"]) + "\n" for r in records),
    )
    out = p.stdout.splitlines()
    assert len(out) == len(records)
    back = []
    for r, line in zip(records, out):
        if "error" in r and "hex" not in r:
            assert json.loads(line)["error"]["type"] == "EncodeError"
            continue
        if byte_equality_holds(r["kind"], r["data"]["version"], r["data"]):
            assert line == r["hex"]
        back.append((r, line))
    # Everything we wrote decodes (again through the CLI) to what Kafka decoded from its own bytes.
    p2 = run("decode", "--kind", kind, "--lines", stdin="".join(line + "\n" for _, line in back))
    assert p2.returncode == 0
    for (r, _), line in zip(back, p2.stdout.splitlines()):
        assert normalize(json.loads(line)) == normalize(r["decoded"])


def test_single_input_errors_go_to_stderr_with_exit_1():
    p = run("decode", "--kind", "assignment-info", "0000000c0000000c00000000")
    assert p.returncode == 1 and p.stdout == ""
    assert "AssignmentInfo" in p.stderr and "offset 0" in p.stderr


def test_pretty_v7_assignment_reads_at_a_glance():
    from tests.facts import worked_examples

    p = run("decode", "--kind", "assignment-info", "--format", "pretty", worked_examples()["E11"].hex())
    assert p.returncode == 0
    text = p.stdout
    assert text.splitlines()[0] == "AssignmentInfo v7  (commonly supported v11)  104 bytes"
    for expected in (
        "error code      0 NONE",
        "next rebalance  none (Long.MAX_VALUE)",
        "0_0",
        "1_0  <- c: 0",
        "h:1  t: 0",
        "h:1  (no partitions)",
    ):
        assert expected in text


def test_native_style_round_trip_and_file_input(tmp_path):
    from tests.facts import worked_examples

    raw = worked_examples()["E1"]
    (tmp_path / "sub.bin").write_bytes(raw)
    p = run("decode", "--kind", "subscription-info", "--style", "native", f"@{tmp_path / 'sub.bin'}")
    value = json.loads(p.stdout)
    assert value["task_offset_sums"] == {"0_0": -2} and value["user_endpoint"] == "localhost:8080"
    (tmp_path / "sub.json").write_text(p.stdout)
    p2 = run("encode", "--kind", "subscription-info", "--style", "native", f"@{tmp_path / 'sub.json'}")
    assert p2.returncode == 0 and p2.stdout.strip() == raw.hex()


def test_native_encode_refuses_unless_asked_to_drop():
    value = json.dumps(
        {
            "version": 1,
            "process_id": "00000000-0000-0000-0000-000000000001",
            "user_endpoint": "h:1",
            "task_offset_sums": {},
        }
    )
    p = run("encode", "--kind", "subscription-info", "--style", "native", value)
    assert p.returncode == 1 and "user_endpoint" in p.stderr
    p = run("encode", "--kind", "subscription-info", "--style", "native", "--drop-unrepresentable", value)
    assert p.returncode == 0 and p.stdout.strip() == "00000001" + "00" * 15 + "01" + "00000000" * 2


def test_demo_runs():
    p = run("demo")
    assert p.returncode == 0
    assert "SubscriptionInfo v7" in p.stdout and "AssignmentInfo v7" in p.stdout and "app-host:7070" in p.stdout
