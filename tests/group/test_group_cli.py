"""The command line over Kafka's vectors and the captures: ``--lines`` batches, one process per
(kind, version) since a body's version is not in its bytes (ConsumerProtocol kinds read it from their
prefix: one process per file). The processes run in parallel."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import ROOT
from tests.group.data import CONSUMER_KINDS, GROUP_API_KEYS, capture_records, group_records, is_reference

KIND = {
    "JoinGroupRequest": "join-group-request",
    "JoinGroupResponse": "join-group-response",
    "SyncGroupRequest": "sync-group-request",
    "SyncGroupResponse": "sync-group-response",
    "ConsumerProtocolSubscription": "consumer-subscription",
    "ConsumerProtocolAssignment": "consumer-assignment",
}


def run(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codec", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _with_trailing(r: dict) -> dict:
    """Kafka's value, and for a record Kafka wrote with bytes after the message (``trailingBytes``) the CLI's
    report of them: where the message ended and how many bytes followed."""
    value = r.get("data", r.get("decoded"))
    n = r.get("trailingBytes")
    return {**value, "trailing": {"offset": len(r["hex"]) // 2 - n, "bytes": n}} if n else value


def _batches():
    """(args, input lines, expected output lines) per process."""
    groups: dict[tuple, list[dict]] = collections.defaultdict(list)
    for r in group_records():
        if "hex" in r:
            consumer = r["kind"] in CONSUMER_KINDS
            groups[(r["kind"], None if consumer else r["version"])].append(r)
    batches = []
    for (kind, version), recs in sorted(groups.items(), key=str):
        vargs = [] if version is None else ["--version", str(version)]
        consumer = kind in CONSUMER_KINDS
        raw = "hexVersionPrefixed" if consumer else "hex"
        # ConsumerProtocol: the JSON names the version (Kafka's data has none; the vector keeps it beside)
        want = [{"version": r["version"], **r["data"]} if consumer else _with_trailing(r) for r in recs]
        batches.append(
            (
                f"decode {kind} v{version}",
                ["decode", "--kind", KIND[kind], *vargs, "--lines", "--style", "kafka"],
                [r[raw] for r in recs],
                want,
            )
        )
        enc = [r for r in recs if "data" in r]
        # ConsumerProtocol: Kafka's data has no version: --version gives it (the JSON's own key is tested below)
        for v in sorted({r["version"] for r in enc}) if version is None else [version]:
            these = [r for r in enc if r["version"] == v]
            batches.append(
                (
                    f"encode {kind} v{v}",
                    ["encode", "--kind", KIND[kind], "--version", str(v), "--lines", "--style", "kafka"],
                    [json.dumps(r["data"], ensure_ascii=False) for r in these],
                    [r[raw] for r in these],
                )
            )
        if consumer:  # the version taken from the JSON's own key, as decode writes it (no --version)
            batches.append(
                (
                    f"encode {kind} version key",
                    ["encode", "--kind", KIND[kind], "--lines", "--style", "kafka"],
                    [json.dumps({"version": r["version"], **r["data"]}, ensure_ascii=False) for r in enc],
                    [r[raw] for r in enc],
                )
            )
    return batches


def _capture_batches():
    reqs = [r for r in capture_records() if r["api_key"] in GROUP_API_KEYS and is_reference(r)]
    batches = [
        (
            "request frames",
            ["decode", "--kind", "request-frame", "--lines", "--style", "kafka"],
            [r["hex"] for r in reqs if r["direction"] == "request"],
            [r for r in reqs if r["direction"] == "request"],
        )
    ]
    by_api = collections.defaultdict(list)
    for r in reqs:
        if r["direction"] == "response":
            by_api[(r["api_key"], r["api_version"])].append(r)
    for (key, version), recs in sorted(by_api.items()):
        batches.append(
            (
                f"response frames {key} v{version}",
                [
                    "decode",
                    "--kind",
                    "response-frame",
                    "--api-key",
                    str(key),
                    "--version",
                    str(version),
                    "--lines",
                    "--style",
                    "kafka",
                ],
                [r["hex"] for r in recs],
                recs,
            )
        )
    return batches


BATCHES = _batches()
CAPTURE_BATCHES = _capture_batches()


@pytest.fixture(scope="module")
def results():
    jobs = BATCHES + CAPTURE_BATCHES
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        procs = list(pool.map(lambda b: run(b[1], "".join(line + "\n" for line in b[2])), jobs))
    return {b[0]: p for b, p in zip(jobs, procs)}


@pytest.mark.parametrize("batch", BATCHES, ids=lambda b: b[0])
def test_vectors_through_the_cli(batch, results):
    name, _, lines, expected = batch
    p = results[name]
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    out = p.stdout.splitlines()
    assert len(out) == len(lines)
    for got, want in zip(out, expected):
        assert (json.loads(got) if name.startswith("decode") else got) == want


@pytest.mark.parametrize("batch", CAPTURE_BATCHES, ids=lambda b: b[0])
def test_capture_frames_through_the_cli(batch, results):
    name, _, lines, recs = batch
    p = results[name]
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    out = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(out) == len(recs)
    for got, r in zip(out, recs):
        assert (got["apiKey"], got["apiVersion"], got["headerVersion"], got["header"]["correlationId"]) == (
            r["api_key"],
            r["api_version"],
            r["header_version"],
            r["correlation_id"],
        )


def test_encode_frames_back(results):
    """The request frames' JSON (with every nested layer) encodes back to the captured bytes."""
    name, _, lines, _ = CAPTURE_BATCHES[0]
    p = run(["encode", "--kind", "request-frame", "--lines"], results[name].stdout)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == lines


def test_pretty_request_frame_shows_the_stack():
    r = next(
        r
        for r in capture_records()
        if r["api_key"] == 11 and r["direction"] == "request" and r["client"].startswith("Apache")
    )
    p = subprocess.run(
        [sys.executable, "-m", "codec", "decode", "--kind", "request-frame", "--format", "pretty", r["hex"]],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert p.returncode == 0, p.stderr
    text = p.stdout
    assert f"JoinGroup request v{r['api_version']}" in text and f'"{r["client_id"]}"' in text
    assert "group_id" in text and "member_id" in text and "protocols (2):" in text
    assert text.count("ConsumerProtocolSubscription v3") == 2
