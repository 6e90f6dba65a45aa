"""The ``pipeline`` subcommand: wiring, and working (with a clear message) without the spark extra."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import time

import pytest

from codec.pipeline.command import register
from tests.conftest import ROOT

from .conftest import CAPTURES, FRAMES, OFFSETS, read_table


def _py(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_import_does_not_import_pyspark():
    r = _py("import sys, codec.pipeline, codec.pipeline.command, codec.pipeline.records;"
            "print('pyspark' in sys.modules, 'pyarrow' in sys.modules)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]


def test_register_adds_the_subcommand():
    p = argparse.ArgumentParser()
    register(p.add_subparsers(dest="command"))
    args = p.parse_args(["pipeline", "a.jsonl", "b.parquet", "--out", "o", "--master", "spark://h:7077",
                         "--num-standby-replicas", "1", "--max-warmup-replicas", "2"])
    assert (args.inputs, args.out, args.master) == (["a.jsonl", "b.parquet"], "o", "spark://h:7077")
    assert (args.num_standby_replicas, args.max_warmup_replicas, args.acceptable_recovery_lag) == (1, 2, 10000)


def test_without_pyspark_says_how_to_install():
    r = _py("import sys, argparse; sys.modules['pyspark'] = None\n"
            "from codec.pipeline.command import register\n"
            "p = argparse.ArgumentParser(); register(p.add_subparsers())\n"
            "a = p.parse_args(['pipeline', 'x.jsonl', '--out', 'o'])\n"
            "sys.exit(a.func(a))")
    assert r.returncode == 2
    assert "spark' extra" in r.stderr and "pip install 'rebalance-codec[spark]'" in r.stderr


@pytest.mark.slow
def test_end_to_end_under_a_minute(tmp_path):
    """The done-when criterion: the bundled samples through a fresh local Spark in under a minute."""
    pytest.importorskip("pyspark")
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "codec.pipeline.job", str(CAPTURES), str(OFFSETS), str(FRAMES),
                        "--out", str(out)], capture_output=True, text=True, env=env, timeout=300)
    took = time.monotonic() - t
    assert r.returncode == 0, r.stderr
    assert took < 60, took
    assert len(read_table(out, "quarantine")) == 10


def _pipeline(*args, timeout=300) -> subprocess.CompletedProcess:
    """``rebalance-codec pipeline ...`` as a user runs it (its own process, and its own Spark when it gets
    that far). Its JVM compiles with C1 only, as the test session's does (a short run; about half the
    time); the JVM announces that on its stderr ("Picked up JAVA_TOOL_OPTIONS"), which must reach the log
    file, not the terminal."""
    env = dict(os.environ, JAVA_TOOL_OPTIONS="-XX:TieredStopAtLevel=1")
    return subprocess.run([sys.executable, "-m", "codec", "pipeline", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, timeout=timeout, env=env)


def _one_error_line(r: subprocess.CompletedProcess) -> str:
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.stderr and "\tat " not in r.stderr
    return lines[0]


@pytest.mark.parametrize("case", ["missing", "unknown format"])
def test_bad_input_is_one_line_before_spark_starts(tmp_path, case):
    pytest.importorskip("pyspark")
    if case == "missing":
        target, want = tmp_path / "no-such-folder", "input not found"
    else:
        target = tmp_path / "in"
        target.mkdir()
        (target / "a.jsonl").write_text('{"kind": "assignment-info", "hex": "00"}\n')
        (target / "notes.txt").write_text("not records\n")
        want = "pass --input-format jsonl or --input-format parquet"
    t = time.monotonic()
    r = _pipeline(target, "--out", tmp_path / "out", "--log", tmp_path / "spark.log")
    assert r.returncode == 1 and r.stdout == ""
    assert want in _one_error_line(r)
    assert not (tmp_path / "out").exists() and not (tmp_path / "spark.log").exists()  # Spark never started
    assert time.monotonic() - t < 60


def test_a_file_spark_cannot_read_is_one_line_and_the_java_trace_goes_to_the_log(tmp_path):
    """A folder with good JSON lines and a Parquet file that is not one (right magic number, no footer):
    Spark fails reading it. The user gets one line naming the file; Spark's log -- with the Java stack
    trace -- is in the log file, and nothing of the JVM's reaches the terminal."""
    pytest.importorskip("pyspark")
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.jsonl").write_text('{"kind": "assignment-info", "hex": "00"}\n')
    (d / "broken.parquet").write_bytes(b"PAR1" + b"\x00" * 64 + b"PAR1")
    log = tmp_path / "spark.log"
    r = _pipeline(d, "--out", tmp_path / "out", "--log", log, "--quiet")
    assert r.returncode == 1 and r.stdout == ""
    line = _one_error_line(r)
    assert line.startswith("error: cannot read the Parquet input") and "broken.parquet" in line
    text = log.read_text()
    assert "broken.parquet" in text and "\tat org.apache" in text and "Picked up JAVA_TOOL_OPTIONS" in text
    assert not (tmp_path / "out").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["in", "spark.log"]


def test_the_summary_states_the_accounting():
    from codec.pipeline.command import print_summary

    buf = io.StringIO()
    print_summary({"counts": {"records_read": 10, "not_selected": 4, "records_in": 6, "decoded": 5, "quarantined": 1},
                   "not_selected_by_reason": {"frame Heartbeat": 3, "line type summary": 1},
                   "tables": {"members": 2}, "output": "o"}, file=buf)
    lines = buf.getvalue().splitlines()
    assert lines[0] == "10 records read = 4 not selected + 5 decoded + 1 quarantined"
    assert lines[1] == "  not selected: 3 frame Heartbeat, 1 line type summary"
