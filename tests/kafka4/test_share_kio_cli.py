"""Issue #30, "done when": every record of ../shared/vectors/kio/group-share.jsonl (160: ShareGroupHeartbeat and
ShareGroupDescribe v1, requests and responses) decodes through ``decode --style kafka --lines`` to kio's value and
encodes back to the same bytes, in one CLI process; and so do held-out records of the same four classes that kio
writes from other random instances (``vectors/tools/gen_kio_share.py``, seed 20261201, 25 per class), where kio is
installed (the ``test`` and ``bench`` extras); without kio that half is skipped.

The comparison is test_kio_cli's (against kio's raw values, never through codec.kafka4.kio).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT, SHARED
from tests.kafka4.test_kio_cli import _same, mismatches, through_cli

KIO = SHARED / "vectors" / "kio" / "group-share.jsonl"
KINDS = {
    "ShareGroupHeartbeatRequest": "share-group-heartbeat-request",
    "ShareGroupHeartbeatResponse": "share-group-heartbeat-response",
    "ShareGroupDescribeRequest": "share-group-describe-request",
    "ShareGroupDescribeResponse": "share-group-describe-response",
}
HELD_OUT_SEED, HELD_OUT_PER = 20261201, 25


def _held_out() -> list[dict]:
    if importlib.util.find_spec("kio") is None:
        return []
    p = subprocess.run(
        [
            sys.executable,
            str(ROOT / "vectors" / "tools" / "gen_kio_share.py"),
            str(HELD_OUT_SEED),
            "heldout",
            str(HELD_OUT_PER),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    return [json.loads(line) for line in p.stdout.splitlines()]


@pytest.fixture(scope="module")
def share_through_cli(tmp_path_factory):
    """The shared records and (where kio is installed) the held-out ones, through one CLI process."""
    shared = [json.loads(line) for line in KIO.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(shared) == 160
    held = _held_out()
    results = through_cli(shared + held, tmp_path_factory.mktemp("kio-share-cli"), KINDS)
    ids = {r["id"] for r in shared}
    return [x for x in results if x[0]["id"] in ids], [x for x in results if x[0]["id"] not in ids]


def test_every_shared_kio_record_decodes_to_kios_value_and_encodes_back(share_through_cli):
    shared, _ = share_through_cli
    assert len(shared) == 160 and {r["kind"] for r, _, _ in shared} == set(KINDS)
    failed = mismatches(shared)
    assert not failed, (len(failed), failed[:5])


def test_held_out_kio_records_decode_to_kios_value_and_encode_back(share_through_cli):
    _, held = share_through_cli
    if not held:
        pytest.skip("kio is not installed (pip install -e '.[test]'): no held-out records")
    assert len(held) == 4 * HELD_OUT_PER and {r["kind"] for r, _, _ in held} == set(KINDS)
    assert not any("kafkaJsonDiffers" in r for r, _, _ in held)  # kio's classes are the release's message JSON
    shared_hex = {json.loads(line)["hex"] for line in KIO.read_text(encoding="utf-8").splitlines() if line.strip()}
    assert sum(r["hex"] not in shared_hex for r, _, _ in held) >= 80  # mostly instances the shared file lacks
    failed = mismatches(held)
    assert not failed, (len(failed), failed[:5])


def test_the_vector_file_has_every_shared_record_valid_with_expected(share_through_cli):
    shared, _ = share_through_cli
    seen = {}
    for line in (ROOT / "vectors" / "kio-group-share.jsonl").read_text(encoding="utf-8").splitlines():
        v = json.loads(line)
        assert v["result"] == "valid" and v["flags"] == [] and v["canonical"], v["id"]
        seen[v["provenance"]["record"].rsplit(":", 1)[1]] = v
    assert set(seen) == {r["id"] for r, _, _ in shared}
    for r, value, _ in shared:  # the vectors' expected (translated from kio) is what the CLI decoded
        assert seen[r["id"]]["expected"] == value, r["id"]


def test_a_share_record_that_differs_is_caught():
    """The comparison sees a changed member epoch and a partition list of another length."""
    r = json.loads(KIO.read_text(encoding="utf-8").splitlines()[2])
    value = {
        "groupId": r["decoded"]["group_id"],
        "memberId": r["decoded"]["member_id"],
        "memberEpoch": r["decoded"]["member_epoch"],
        "rackId": None,
        "subscribedTopicNames": None,
    }
    assert _same(value, r["decoded"]) is None
    assert _same({**value, "memberEpoch": value["memberEpoch"] + 1}, r["decoded"])
    failed = mismatches([(r, {**value, "memberEpoch": value["memberEpoch"] + 1}, r["hex"]), (r, value, "00")])
    assert [why for _, why in failed][1] == "encodes to other bytes"
