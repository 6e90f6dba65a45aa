"""A failed run leaves nothing behind: no output directory, no staging directory, no half table."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")
from pyspark.sql import functions as F

import codec.pipeline.job as job
from codec.pipeline.job import Options, PipelineError, run

from .conftest import CAPTURES, jsonl, read_table


def _leftovers(parent):
    return sorted(p.name for p in parent.iterdir())


def test_failure_while_writing_leaves_nothing(spark, tmp_path, monkeypatch):
    written = []
    real = job._write_table

    def failing(name, df, path):
        if name == "assignments":
            raise RuntimeError("disk full (injected)")
        real(name, df, path)
        written.append(name)

    monkeypatch.setattr(job, "_write_table", failing)
    with pytest.raises(RuntimeError, match="injected"):
        run(Options(inputs=[str(CAPTURES)], out=str(tmp_path / "out"), quiet=True), spark)
    assert written == ["members", "task_lags"]  # two tables were complete in staging when it failed
    assert _leftovers(tmp_path) == []


def test_lost_record_fails_the_counts_check(spark, tmp_path, monkeypatch):
    """One decoded record dropped: the counts no longer add up. Counted from the file: every line of
    captures.jsonl is a rebalance record (none is "not selected"), the ``bad/`` ones and the line that is not
    JSON are quarantined, the others decode -- one of them lost here."""
    real = job.decode
    monkeypatch.setattr(
        job, "decode", lambda records: real(records).filter(F.col("record_id") != "orders-app/g4/sub/1")
    )
    lines = CAPTURES.read_text().splitlines()
    bad = sum(1 for line in lines if not line.startswith("{") or '"record_id": "bad/' in line)
    want = rf"records read \({len(lines)}\) != not selected \(0\) \+ decoded \({len(lines) - bad - 1}\) \+ quarantined \({bad}\)"
    assert (len(lines), bad) == (58, 9)
    with pytest.raises(PipelineError, match=want):
        run(Options(inputs=[str(CAPTURES)], out=str(tmp_path / "out"), quiet=True), spark)
    assert _leftovers(tmp_path) == []


def test_overwrite_replaces_the_previous_output_whole(spark, tmp_path):
    one = tmp_path / "one.jsonl"
    lines = [line for line in CAPTURES.read_text().splitlines() if '"orders-app/g5/' in line]
    one.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "stale.txt").write_text("from an older run")
    summary = run(Options(inputs=[str(one)], out=str(out), overwrite=True, quiet=True), spark)
    assert summary["counts"]["records_in"] == len(lines) == 6
    assert not (out / "stale.txt").exists() and (out / "report.html").is_file()
    assert _leftovers(tmp_path) == ["one.jsonl", "out"]
    assert {r["member"] for r in read_table(out, "members")} == {"orders-1", "orders-2", "orders-3"}
    assert len(jsonl(one)) == 6
