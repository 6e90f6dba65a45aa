"""One truth for Streams version compatibility (issue #39): Kafka's own readers at each release, the reader model
(``codec.streams.readers``), the codec's readers, ``compat`` and ``conformance --cross-version`` agree cell for cell.

``vectors/releases/streams-readers.jsonl`` holds what each release's ``SubscriptionInfo.decode`` and
``AssignmentInfo.decode`` (compiled from its apache/kafka tag, run by ``vectors/tools/StreamsReaders.java``) did
with bytes written at versions 1 to 12. The expected outcome of every check here is read off those answers: an
exception is an error; an object decoded from bytes newer than the release's newest version (the release's own
constant), holding that version and no process id, is a version probe; anything else is a full decode. (A 0.10.1
AssignmentInfo object says version 2 whatever it read: its constructor sets ``CURRENT_VERSION``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codec.conformance.crossversion import VERSIONS, cross_version_matrix
from codec.conformance.impl import BuiltinImplementation
from codec.errors import DecodeError
from codec.negotiation.scenario import compat_matrix
from codec.streams import decode_assignment, decode_subscription
from codec.streams.readers import reads

FILE = Path(__file__).resolve().parents[2] / "vectors" / "releases" / "streams-readers.jsonl"
RECORDS = [json.loads(line) for line in FILE.read_text().splitlines()]


def kafka_outcome(r: dict) -> str:
    k = r["kafka"]
    if k["outcome"] == "error":
        return "error"
    assert k["outcome"] == "decoded", k
    if r["written"] <= r["readerVersion"]:
        return "ok"
    # decoded although newer than the reader: a probe holds the written version and nothing else
    fields = k["fields"]
    assert int(fields.get("usedVersion", fields.get("version"))) == r["written"], (r["kafkaTag"], fields)
    assert fields["processId"] == "null", (r["kafkaTag"], fields)
    return "probe"


def _tasks(ids) -> str:
    return "[" + ", ".join(f"{t.subtopology}_{t.partition}" for t in ids) + "]"


def test_the_releases_cover_every_pre_generated_reader():
    # the readers run: SubscriptionInfo 1-5 (0.10.0 to 2.4), AssignmentInfo 1-6 (0.10.0 to 2.5), versions 1-12 each
    got = {(r["message"], r["readerVersion"]) for r in RECORDS}
    assert got >= {("SubscriptionInfo", v) for v in range(1, 6)} | {("AssignmentInfo", v) for v in range(1, 7)}
    for message, reader in got:
        written = sorted(r["written"] for r in RECORDS if r["message"] == message and r["readerVersion"] == reader)
        assert set(written) == set(range(1, 13))
    # what the runs show, whatever the model says: readers before 2.0 refuse a newer subscription, 2.0 on probe it
    assert {kafka_outcome(r) for r in RECORDS if r["message"] == "SubscriptionInfo" and r["written"] > r["readerVersion"]
            and r["readerVersion"] < 3} == {"error"}  # fmt: skip
    assert {kafka_outcome(r) for r in RECORDS if r["message"] == "SubscriptionInfo" and r["written"] > r["readerVersion"]
            and r["readerVersion"] >= 3} == {"probe"}  # fmt: skip


@pytest.mark.parametrize("r", RECORDS, ids=lambda r: f"{r['kafkaTag']}-{r['message']}-v{r['written']}")
def test_the_model_and_the_codec_read_as_the_release_did(r):
    want = kafka_outcome(r)
    assert reads(r["message"], r["written"], r["readerVersion"]) == want
    wire = bytes.fromhex(r["wire"])
    decode = decode_subscription if r["message"] == "SubscriptionInfo" else decode_assignment
    try:
        info = decode(wire, latest=r["readerVersion"])
    except DecodeError:
        assert want == "error"
        return
    fields = r["kafka"]["fields"]
    if want == "probe":
        assert info.future and info.version == r["written"]
        assert info.latest_supported_version == int(fields["latestSupportedVersion"])
        return
    assert want == "ok" and not getattr(info, "future", False)
    if r["message"] == "SubscriptionInfo":
        assert str(info.process_id) == fields["processId"]
    else:
        assert _tasks(info.active_tasks) == fields["activeTasks"]


def test_the_cross_version_matrix_agrees_with_the_releases_cell_for_cell():
    by_cell = {(r["message"], r["written"], r["readerVersion"]): kafka_outcome(r) for r in RECORDS}
    cells = cross_version_matrix(BuiltinImplementation(), seed=0)  # seed 0: the bytes the releases read
    checked = 0
    for c in cells:
        want = by_cell.get((c["message"], c["writer"], c["reader"]))
        if want is not None:
            assert (c["got"], c["kafka"]) == (want, want), c
            checked += 1
    assert checked == 5 * 11 + 6 * 11


def test_compat_and_the_cross_version_matrix_agree_cell_for_cell():
    matrix = {
        (c["message"], c["writer"], c["reader"]): c["kafka"] for c in cross_version_matrix(BuiltinImplementation())
    }
    for cell in compat_matrix(range(1, 12)):
        member, leader = cell["member"], cell["leader"]
        leader_reads = matrix[("SubscriptionInfo", member, leader)]
        if leader_reads == "error":  # the leader's own read fails, not a later rule
            assert cell["outcome"] == "error" and "cannot read the subscription" in cell["error"], cell
        elif leader_reads == "probe":
            assert cell["outcome"] == "probing", cell
        else:  # the leader reads the member; the member reads what it is sent, at the group's lowest version
            assert cell["outcome"] == "ok", cell
            assert matrix[("AssignmentInfo", cell["version"], member)] == "ok", cell
    assert set(VERSIONS) == set(range(1, 12))
