"""``capture --follow`` keeps an admin's questions as ``capture`` does: each DescribeGroups and OffsetFetch response is
told the moment it is read (a ``described-group`` or ``committed-offsets`` line), the same as the batch story tells it
at the end. The frames are the ones Kafka's own 4.4 classes wrote (``tests/capture/kafka_admin_frames.jsonl``, its
first line says what they hold), piped in as a pcap stream to the console script, from another folder."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from codec.capture.pcapwriter import conversation, pcap
from tests.conftest import ROOT

SCRIPT = Path(sys.executable).with_name("rebalance-codec")
FRAMES = [json.loads(x) for x in (ROOT / "tests" / "capture" / "kafka_admin_frames.jsonl").read_text().splitlines()][1:]


@pytest.fixture(scope="module")
def stream() -> bytes:
    frames = [
        ("c" if r["direction"] == "request" else "s", struct.pack(">i", len(r["hex"]) // 2) + bytes.fromhex(r["hex"]))
        for r in FRAMES
    ]
    return pcap(conversation(frames))


def _run(data: bytes, cwd, *argv: str) -> str:
    p = subprocess.run(
        [str(SCRIPT), "capture", *argv], input=data, capture_output=True, cwd=cwd, timeout=300, check=False
    )
    assert p.returncode == 0, p.stderr
    return p.stdout.decode()


def _admin(lines: list[dict]) -> list[dict]:
    return [x for x in lines if x["type"] in ("described-group", "committed-offsets")]


def test_follow_tells_every_admin_response_as_capture_does(stream, tmp_path):
    followed = [json.loads(x) for x in _run(stream, tmp_path, "--follow", "-", "--json").splitlines()]
    told = _admin(followed)
    # one line per group of each response Kafka wrote: DescribeGroups v0, v4, v5, v6 of three groups; OffsetFetch
    # v1, v5, v7 (the request's group), v8 (two groups)
    responses = [r for r in FRAMES if r["direction"] == "response"]
    described = [r["apiVersion"] for r in responses if r["apiKey"] == 15]
    assert sorted((x["version"], x["group"]) for x in told if x["type"] == "described-group") == [
        (v, g) for v in sorted(described) for g in ("gone", "sticky-group", "streams-app")
    ]
    assert sorted((x["version"], x["group"]) for x in told if x["type"] == "committed-offsets") == [
        (1, "sticky-group"),
        (5, "sticky-group"),
        (7, "sticky-group"),
        (8, "sticky-group"),
        (8, "streams-app"),
    ]
    # in the order the responses came, each before the summary, as the batch story tells them
    assert [x["ts"] for x in told] == sorted(x["ts"] for x in told) and followed[-1]["type"] == "summary"
    path = tmp_path / "admin.pcap"
    path.write_bytes(stream)
    batch = [json.loads(x) for x in _run(b"", tmp_path, str(path), "--json").splitlines()]
    key = lambda x: (x["ts"], x["type"], x["group"] or "")  # noqa: E731
    assert sorted(told, key=key) == sorted(_admin(batch), key=key)
    assert not followed[-1]["problems"]


def test_follow_text_tells_the_members_and_offsets(stream, tmp_path):
    text = _run(stream, tmp_path, "--follow", "-")
    assert "streams-app  DescribeGroups v6: state Stable, consumer/stream, 1 member" in text
    assert "StickyAssignorUserData v1: generation 7; previous events: 0, 2; orders: 1" in text  # (the about line)
    assert "sticky-group  OffsetFetch v8: 1 partition" in text and "events-0  offset 42 (leader epoch 3)" in text
    assert "gone  DescribeGroups v6: state Dead" in text and "GROUP_ID_NOT_FOUND" in text


def test_follow_group_keeps_that_groups_answers_only(stream, tmp_path):
    lines = [json.loads(x) for x in _run(stream, tmp_path, "--follow", "-", "--json", "--group", "gone").splitlines()]
    assert {x["group"] for x in _admin(lines)} == {"gone"} and len(_admin(lines)) == 4
