"""The command line contract over Kafka Connect's vectors: ``decode``/``encode --kind connect-… --lines --style
kafka`` in one process per batch, every record of ``connect.jsonl`` compared with what Kafka decoded, wrote or
refused."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.connect.test_kafka_vectors import READ_AS, VIEWS, WRITTEN, is_metadata, reader_of, set_like, without_views

KINDS = {True: "connect-metadata", False: "connect-assignment"}


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codec", *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def lines(p: subprocess.CompletedProcess, n: int) -> list[dict]:
    out = [json.loads(line) for line in p.stdout.split("\n")[:-1]]
    assert len(out) == n and p.stdout.endswith("\n"), p.stderr[-2000:]
    return out


def is_error_line(v: dict) -> bool:
    """An error line is ``{"error": {...}}``; an assignment's own ``error`` is an integer."""
    return (
        set(v) == {"error"}
        and isinstance(v["error"], dict)
        and set(v["error"]) == {"type", "message", "offset", "path"}
    )


def strip(v: dict) -> dict:
    """What Kafka's records leave out: the header's version, and the report of bytes after the fields."""
    return {k: x for k, x in v.items() if k not in ("version", "trailing")}


# (metadata?, reader) -> the records and what Kafka returned for them (a value, or None for an exception)
def _batches() -> dict[tuple[bool, int | None], list[tuple[dict, dict | None]]]:
    out: dict[tuple[bool, int | None], list] = {}
    for r in WRITTEN:
        out.setdefault((is_metadata(r), None), []).append((r, without_views(r["decoded"])))
        for key, reader in VIEWS.items():
            if key in r["decoded"]:
                out.setdefault((is_metadata(r), reader), []).append((r, r["decoded"][key]))
    for r in READ_AS:
        out.setdefault((is_metadata(r), reader_of(r)), []).append((r, None if "error" in r else r["decoded"]))
    return out


BATCHES = _batches()


@pytest.mark.parametrize("key", sorted(BATCHES, key=str), ids=lambda k: f"{KINDS[k[0]]}-reader-{k[1]}")
def test_decode_lines_kafka_style(key):
    meta, reader = key
    batch = BATCHES[key]
    args = ["decode", "--kind", KINDS[meta], "--lines", "--style", "kafka"]
    if reader is not None:
        args += ["--version", str(reader)]
    p = run(*args, stdin="".join(r["hex"] + "\n" for r, _ in batch))
    got = lines(p, len(batch))
    assert p.returncode == (1 if any(want is None for _, want in batch) else 0)
    for (r, want), g in zip(batch, got):
        if want is None:
            assert is_error_line(g), (r["id"], g)
            assert g["error"]["type"] in ("TruncatedError", "UnsupportedVersionError", "LimitExceededError")
        else:
            assert not is_error_line(g) and strip(g) == want, r["id"]
            if reader is None:
                assert g["version"] == r["version"]


@pytest.mark.parametrize("meta", [True, False], ids=["connect-metadata", "connect-assignment"])
def test_encode_lines_kafka_style(meta):
    """Kafka's ``data`` with the version as a ``version`` key: Kafka's bytes, or, where Kafka grouped the
    connectors in HashSet order, bytes that decode (through the command line too) to Kafka's value with the
    connectors as a set."""
    records = [r for r in WRITTEN if is_metadata(r) == meta]
    p = run(
        "encode",
        "--kind",
        KINDS[meta],
        "--lines",
        "--style",
        "kafka",
        stdin="".join(json.dumps({**r["data"], "version": r["version"]}) + "\n" for r in records),
    )
    assert p.returncode == 0, p.stdout[-2000:]
    out = p.stdout.split("\n")[:-1]
    assert len(out) == len(records)
    hashed = 0
    for r, hexed in zip(records, out):
        if "java-hash-order" not in r.get("flags", ()):
            assert hexed == r["hex"], r["id"]
        elif hexed != r["hex"]:
            hashed += 1
    assert hashed > 10  # the order given is not Java's hash order
    back = lines(run("decode", "--kind", KINDS[meta], "--lines", "--style", "kafka", stdin=p.stdout), len(records))
    for r, b in zip(records, back):
        assert b["version"] == r["version"]
        assert set_like(strip(b)) == set_like(without_views(r["decoded"])), r["id"]


@pytest.mark.parametrize("meta", [True, False], ids=["connect-metadata", "connect-assignment"])
def test_decoded_json_encodes_back_to_the_same_bytes(meta):
    records = [r for r in WRITTEN if is_metadata(r) == meta]
    decoded = run("decode", "--kind", KINDS[meta], "--lines", stdin="".join(r["hex"] + "\n" for r in records))
    p = run("encode", "--kind", KINDS[meta], "--lines", stdin=decoded.stdout)
    assert p.stdout.split("\n")[:-1] == [r["hex"] for r in records]
    # --version on encode wins over the value's version key
    one = next(r for r in records if r["version"] == 2)
    value = json.loads(run("decode", "--kind", KINDS[meta], one["hex"]).stdout)
    p = run("encode", "--kind", KINDS[meta], "--version", "1", json.dumps(value))
    assert p.returncode == 0 and p.stdout.strip() == "0001" + one["hex"][4:]


def test_native_style_and_the_readable_view():
    r = next(x for x in WRITTEN if x["id"] == "ConnectMetadata-v2-pub-0005")
    native = run("decode", "--kind", "connect-metadata", "--style", "native", "--compact", r["hex"])
    v = json.loads(native.stdout)
    assert v["config_offset"] == 0 and v["allocation"]["leader_url"] == "https://10.0.0.204:8443/"
    back = run("encode", "--kind", "connect-metadata", "--style", "native", native.stdout)
    assert back.stdout.strip() == r["hex"]
    pretty = run("decode", "--kind", "connect-metadata", "--format", "pretty", r["hex"]).stdout
    assert pretty.startswith(
        "ConnectMetadata v2  (group protocol sessioned; read as IncrementalCooperativeConnectProtocol)"
    )
    assert '"mirror-58": 762753141' in pretty and '"\u00e4-connector"' in pretty
    kinds = run("kinds").stdout
    assert "connect-metadata" in kinds and "connect-assignment" in kinds


def test_version_0_in_each_style():
    value = {
        "version": 0,
        "url": "w",
        "configOffset": 3,
        "allocation": {"leader": "L", "leaderUrl": "u", "configOffset": 1},
    }
    kafka = run("encode", "--kind", "connect-metadata", json.dumps(value))  # Kafka's v0 writer leaves it out
    assert kafka.returncode == 0 and kafka.stdout.strip() == "00000001770000000000000003"
    native = run("encode", "--kind", "connect-metadata", "--style", "native", json.dumps(value))
    assert native.returncode == 1 and "allocation cannot be carried by version 0" in native.stderr
    dropped = run(
        "encode", "--kind", "connect-metadata", "--style", "native", "--drop-unrepresentable", json.dumps(value)
    )
    assert dropped.stdout == kafka.stdout


def test_error_lines_and_exit_status():
    p = run(
        "decode",
        "--kind",
        "connect-assignment",
        "--lines",
        stdin="0001000000014c000175000000000000000700000001\nzz\n\nffff00\n",
    )
    got = lines(p, 4)
    assert p.returncode == 1
    assert is_error_line(got[0]) and got[0]["error"]["path"] == "assignment" and got[0]["error"]["offset"] == 18
    assert is_error_line(got[1]) and is_error_line(got[2]) and is_error_line(got[3])
    assert got[3]["error"]["type"] == "UnsupportedVersionError"
    p = run(
        "encode",
        "--kind",
        "connect-assignment",
        "--lines",
        stdin='{"leader": "L", "leaderUrl": "u", "taskIds": [{"connector": "c", "task": -1}]}\n[]\n',
    )
    got = lines(p, 2)
    assert all(is_error_line(g) for g in got) and got[0]["error"]["path"] == "tasks[0]"
    one = run("decode", "--kind", "connect-metadata", "0001")
    assert one.returncode == 1 and one.stderr.startswith("error: ConnectMetadata v1: truncated at offset 2 in url")
