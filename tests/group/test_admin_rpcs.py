"""The group admin RPCs at Kafka 4.4's versions (issue #43 part B): DescribeGroups 0-6, ListGroups 0-5,
OffsetDelete 0, DeleteGroups 0-3 and TxnOffsetCommit 0-6, and the share-group data and state RPCs. Kafka's own
generated classes at the 4.4 branch (8d3916cfe1) wrote ``vectors/tools/kafka-*.answers.jsonl`` (random values read by
each message's JsonConverter at the version, written by its Data class and read back equal; ``data`` is Kafka's JSON
view of what it read back): through the command line, each decodes to Kafka's values and encodes to Kafka's bytes."""

from __future__ import annotations

import collections
import contextlib
import io
import json
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

ANSWERS = sorted((ROOT / "vectors" / "tools").glob("kafka-*.answers.jsonl"))
KAFKA44 = "8d3916cfe15f13a2d878c79d302ba2d63172f0af"


def _records() -> list[dict]:
    out = []
    for path in ANSWERS:
        for line in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if "hex" in r and "data" in r and "seed" in r and r.get("kind", "").endswith(("Request", "Response")):
                out.append(r)
    return out


def kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def _groups() -> dict[tuple[str, int], list[dict]]:
    g: dict[tuple[str, int], list[dict]] = collections.defaultdict(list)
    for r in _records():
        g[(r["kind"], r["version"])].append(r)
    return dict(sorted(g.items()))


GROUPS = _groups()


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


def test_every_version_of_the_admin_rpcs_has_kafka_written_vectors():
    want = {
        "DescribeGroups": range(0, 7),
        "ListGroups": range(0, 6),
        "OffsetDelete": range(0, 1),
        "DeleteGroups": range(0, 4),
        "TxnOffsetCommit": range(0, 7),
    }
    for api, versions in want.items():
        for side in ("Request", "Response"):
            for v in versions:
                assert GROUPS.get((api + side, v)), f"{api}{side} v{v}"


def in_process(tmp_path):
    """``rebalance-codec ARGS`` in this process, its lines read from a file (``@path``): what :func:`run` does
    without starting Python for each command."""
    from codec.cli import main

    def go(args: list[str], lines: str) -> subprocess.CompletedProcess:
        (tmp_path / "lines.txt").write_text(lines, encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main([*args, f"@{tmp_path / 'lines.txt'}"])
        return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())

    return go


def _through_the_cli(run, kind: str, version: int) -> None:
    recs = GROUPS[(kind, version)]
    args = ["--kind", kebab(kind), "--version", str(version), "--lines", "--style", "kafka"]
    d = run(["decode", *args], "".join(r["hex"] + "\n" for r in recs))
    assert d.returncode == 0, d.stderr
    assert [json.loads(line) for line in d.stdout.splitlines()] == [r["data"] for r in recs]
    e = run(["encode", *args], "".join(json.dumps(r["data"], ensure_ascii=False) + "\n" for r in recs))
    assert e.returncode == 0, e.stderr
    assert e.stdout.splitlines() == [r["hex"] for r in recs]


@pytest.mark.parametrize("kind,version", list(GROUPS), ids=[f"{k}-v{v}" for k, v in GROUPS])
def test_kafka_written_vectors_through_the_cli(kind, version, tmp_path):
    """Every version's vectors through the command (in this process; the newest version of each message through
    ``python -m codec`` and its stdin below)."""
    _through_the_cli(in_process(tmp_path), kind, version)


NEWEST = sorted({kind: (kind, version) for kind, version in GROUPS}.values())


@pytest.mark.parametrize("kind,version", NEWEST, ids=[f"{k}-v{v}" for k, v in NEWEST])
def test_kafka_written_vectors_through_a_started_command(kind, version):
    _through_the_cli(run, kind, version)


def test_delete_groups_v3_carries_a_per_group_error_message():
    # Kafka 4.4's DeleteGroups v3 (134 GROUP_DELETION_FAILED with its cause); v2 has no ErrorMessage field
    r = next(
        r for r in _records() if r["kind"] == "DeleteGroupsResponse" and r["version"] == 3 and r["data"]["results"]
    )
    assert "errorMessage" in r["data"]["results"][0]
    v2 = next(
        r for r in _records() if r["kind"] == "DeleteGroupsResponse" and r["version"] == 2 and r["data"]["results"]
    )
    assert "errorMessage" not in v2["data"]["results"][0]
