"""Inputs no reader should decide for (issue #31): a folder of JSON lines and Parquet files where one line holds a
key twice, one holds two keys that differ only in case, and two Parquet files give ``version`` different types.
Every record is accounted for on real Spark — ``records read = not selected + decoded + quarantined`` — each bad
one quarantined alone with a reason that names what is wrong with it as given, the good ones decoded.

The expectations are written from the files the test writes: the good records are bytes of Kafka's own
vectors (a Streams v7 subscription and assignment, decoded by Kafka), counted by hand."""

from __future__ import annotations

import json

import pytest

from tests.conftest import KAFKA_VECTORS, load_jsonl

from .conftest import read_table

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _streams(kind: str, version: int) -> str:
    """The first of Kafka's vectors of ``kind`` (``subscription``, ``assignment``) at ``version``: its bytes."""
    return next(r["hex"] for r in load_jsonl(KAFKA_VECTORS / f"{kind}.jsonl") if r["version"] == version)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    sub, asg = _streams("subscription", 7), _streams("assignment", 7)
    root = tmp_path_factory.mktemp("ambiguous") / "in"
    root.mkdir()
    good = json.dumps({"kind": "subscription-info", "group": "g", "member": "m", "hex": sub})
    lines = [
        good,
        '{"kind": "assignment-info", "hex": "%s", "hex": "%s"}' % (asg, sub),  # one key twice
        '{"kind": "assignment-info", "hex": "%s", "HEX": "%s"}' % (asg, sub),  # two spellings of one key
        '{"key": {"a": 1}, "value": [1, 2]}',  # bytes that are not bytes
        '{"kind": "join-group-request", "version": %d, "hex": "00"}' % 2**40,  # a version no int32 holds
        "",  # not a record
        json.dumps({"kind": "assignment-info", "hex": asg}),
    ]
    (root / "lines.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # two Parquet files whose version columns differ in type: merged, they would refuse the whole batch
    pq.write_table(
        pa.table({"kind": ["assignment-info"], "hex": [asg], "version": pa.array([7], pa.int64())}), root / "a.parquet"
    )
    pq.write_table(
        pa.table(
            {
                "kind": ["subscription-info", "join-group-request"],
                "hex": [sub, "00"],
                "version": pa.array(["7", "not a number"], pa.string()),
            }
        ),
        root / "b.parquet",
    )
    return root


@pytest.fixture(scope="module")
def result(spark, folder, tmp_path_factory):
    from codec.pipeline.job import Options, run

    out = tmp_path_factory.mktemp("ambiguous-out") / "out"
    summary = run(Options(inputs=[str(folder)], out=str(out), quiet=True), spark)
    return summary, read_table(out, "quarantine")


def test_every_record_is_accounted_for(result):
    summary, quarantine = result
    counts = summary["counts"]
    # 6 records in the lines file (the blank line is none), 1 + 2 in the Parquet files
    assert counts["records_read"] == 9
    assert counts["records_read"] == counts["not_selected"] + counts["decoded"] + counts["quarantined"]
    # decoded: the good subscription and assignment lines, a.parquet's assignment, b.parquet's subscription
    assert (counts["not_selected"], counts["decoded"], counts["quarantined"]) == (0, 4, 5)
    assert len(quarantine) == 5


def test_each_bad_record_is_quarantined_alone_saying_why(result, folder):
    _, quarantine = result
    by_type = sorted((q["error_type"], q["error_message"]) for q in quarantine)
    types = [t for t, _ in by_type]
    assert types == ["DuplicateKey", "DuplicateKey", "FieldRange", "FieldRange", "FieldType"]
    messages = dict(zip(("dup", "case", "range1", "range2", "type"), (m for _, m in by_type)))
    assert "the key 'hex' twice" in messages["dup"]
    assert "'hex' and 'HEX'" in messages["case"] and "differ only in case" in messages["case"]
    ranges = sorted([messages["range1"], messages["range2"]])
    assert ranges == sorted(
        [f"'version' is {2**40}, not a 32-bit integer", "'version' is not a number, not a 32-bit integer"]
    )
    assert messages["type"] == "'key' is a JSON object, not the bytes as a hex string"
    # a whole line quarantined keeps its text, as given
    lines = (folder / "lines.jsonl").read_text(encoding="utf-8").splitlines()
    kept = {bytes(q["data"]).decode("utf-8") for q in quarantine if q["error_type"] == "DuplicateKey"}
    assert kept == {lines[1], lines[2]}


def test_a_line_that_is_not_utf8_is_not_json():
    """Spark's text reader hands a line's bytes over as they are: one that is not UTF-8 is a not-json record
    (quarantined with its text by the job), a blank one no record, never a failure of the whole input."""
    from codec.pipeline.jsonlines import parse_lines

    raw = pa.array([b"\xff\xfe garbage", b'{"kind": "x"}', b"", None], pa.binary())
    lines = pa.Array.from_buffers(pa.string(), len(raw), raw.buffers())  # a string array, its bytes unchecked
    assert [None if r is None else r["kind"] for r in parse_lines(lines).to_pylist()] == ["not-json", "x", None, None]
