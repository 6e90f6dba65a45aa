"""A job that fails is one line with its first cause (codec.pipeline.failure): the issue's JVM out of memory gave
three Python tracebacks and a last line blaming "SparkSession does not exist in the JVM"."""

from __future__ import annotations

import gzip
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from codec.pipeline.failure import gateway_gone, jvm_death, jvm_out_of_memory, spark_error_line
from codec.pipeline.job import _await_death
from tests.conftest import ROOT

#: the head of Spark's log when a task's line ran the JVM out of memory (local[*], --driver-memory 2g), as Spark
#: 4.3 wrote it for the issue's reproducer; then Py4J's lost gateway
OOM_LOG = """\
2026-11-28 12:57:01 WARN NativeCodeLoader: Unable to load native-hadoop library for your platform... using builtin-java classes where applicable
2026-11-28 12:57:37 ERROR Executor: Exception in task 0.0 in stage 0.0 (TID 0)
java.lang.OutOfMemoryError: Java heap space
\tat java.base/java.util.Arrays.copyOf(Arrays.java:3537)
\tat org.apache.hadoop.io.Text.setCapacity(Text.java:310)
2026-11-28 12:57:37 ERROR SparkUncaughtExceptionHandler: Uncaught exception in thread Thread[Executor task launch worker for task 0.0 in stage 0.0 (TID 0),5,main]
java.lang.OutOfMemoryError: Java heap space
2026-11-28 12:57:37 ERROR TaskSetManager: Task 0 in stage 0.0 failed 1 times; aborting job
"""


def test_the_first_cause_is_read_from_the_log(tmp_path):
    log = tmp_path / "spark.log"
    log.write_text("2026-11-28 12:00:00 ERROR Earlier: a run before this one\njava.io.IOException: old\n" + OOM_LOG)
    start = len(log.read_bytes()) - len(OOM_LOG.encode())
    assert jvm_death(str(log), start) == (
        "the JVM ran out of memory (java.lang.OutOfMemoryError: Java heap space); raise --driver-memory (a cluster: "
        "the executors' memory), or lower --max-line-length"
    )
    other = tmp_path / "other.log"
    other.write_text(
        "2026-11-28 12:00:00 INFO Something: fine\n"
        "2026-11-28 12:00:01 ERROR Executor: Exception in task 3.0 in stage 2.0 (TID 7)\n"
        "java.io.IOException: No space left on device\n\tat x.y(Z.java:1)\n"
    )
    assert jvm_death(str(other)) == "IOException: No space left on device"
    assert jvm_death(str(tmp_path / "missing.log")) is None
    # the out of memory decides the line whatever Py4J raised after it; a log with another error does not
    assert jvm_out_of_memory(str(log), start) and not jvm_out_of_memory(str(other))
    assert not jvm_out_of_memory(str(log), len(log.read_bytes())) and not jvm_out_of_memory(str(tmp_path / "x"))


def test_a_lost_gateway_is_told_by_what_py4j_raises():
    class Py4JNetworkError(Exception):
        pass

    try:
        try:
            raise Py4JNetworkError("Answer from Java side is empty")
        except Py4JNetworkError as e:
            raise RuntimeError("An error occurred while calling o12.count") from e
    except RuntimeError as e:
        assert gateway_gone(e)
    assert gateway_gone(RuntimeError("org.apache.spark.sql.classic.SparkSession does not exist in the JVM"))
    # a CI run's out of memory: the JVM's answer to the running call was cut off
    assert gateway_gone(RuntimeError("An error occurred while calling None.None"))
    assert not gateway_gone(ValueError("[COLUMN_ALREADY_EXISTS] The column `hex` already exists."))


def test_an_error_whose_text_is_in_a_dead_jvm_says_the_gateway_is_gone():
    """A Py4J error's text is the Java exception's, which it asks the JVM for: once the JVM has died, ``str`` of it
    raises. Seen in a loaded run of the out-of-memory test below: the PipelineError of the first pass had such an
    error as its context, and reading its text put "ConnectionRefusedError" on the user's line, not the cause."""

    class Py4JJavaError(Exception):
        def __str__(self) -> str:
            raise ConnectionRefusedError(111, "Connection refused")

    try:
        try:
            raise Py4JJavaError()
        except Py4JJavaError:
            raise RuntimeError("cannot read the input: NullPointerException") from None
    except RuntimeError as e:
        assert e.__context__ is not None and gateway_gone(e)
    assert spark_error_line(Py4JJavaError()) == "Py4JJavaError: (its text is in the JVM, which no longer answers)"


def test_the_cause_is_awaited_while_the_dying_jvm_still_writes_it(tmp_path):
    """A loaded machine: Python hears the JVM's cut-off answer before the JVM has written its OutOfMemoryError
    (a CI run printed Py4J's "None.None" for that reason). The wait ends when the log holds it, or when the
    process has exited; here a stand-in JVM writes the log's error a second late and then lives on."""
    log = tmp_path / "spark.log"
    log.write_text("2026-11-28 12:57:01 WARN NativeCodeLoader: ...\n")
    start = log.stat().st_size
    script = f"import time; time.sleep(1); open({str(log)!r}, 'a').write({OOM_LOG!r}); time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        spark = SimpleNamespace(sparkContext=SimpleNamespace(_gateway=SimpleNamespace(proc=proc)))
        assert jvm_death(str(log), start) is None
        t0 = time.monotonic()
        _await_death(spark, str(log), start)  # type: ignore[arg-type]
        assert time.monotonic() - t0 < 20
        assert (jvm_death(str(log), start) or "").startswith("the JVM ran out of memory")
    finally:
        proc.kill()
        proc.wait()
    # a process that has exited ends the wait at once, whatever the log says
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    t0 = time.monotonic()
    _await_death(
        SimpleNamespace(sparkContext=SimpleNamespace(_gateway=SimpleNamespace(proc=gone))), str(log), log.stat().st_size
    )  # type: ignore[arg-type]
    assert time.monotonic() - t0 < 1


def test_a_jvm_out_of_memory_is_one_line_with_its_cause(tmp_path):
    """The issue's reproducer's failure, for real: a 100 MB line (under --max-line-length 128m, so it is read)
    in a 100 KB gzip file, and a driver of 512 MiB. One line on stderr, exit status 2, nothing written."""
    pytest.importorskip("pyspark")
    d = tmp_path / "in"
    d.mkdir()
    with gzip.open(d / "huge.jsonl.gz", "wb", compresslevel=1) as f:
        f.write(b'{"kind": "subscription-info", "hex": "' + b"ab" * (50 << 20) + b'"}\n')
    assert (d / "huge.jsonl.gz").stat().st_size < 1 << 20
    log = tmp_path / "spark.log"
    r = subprocess.run(
        [sys.executable, "-m", "codec", "pipeline", str(d), "--out", str(tmp_path / "out"), "--quiet"]
        + ["--driver-memory", "512m", "--max-line-length", "128m", "--log", str(log)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    assert r.returncode == 2 and r.stdout == "", r
    assert r.stderr.splitlines() == [
        "error: the job failed: the JVM ran out of memory (java.lang.OutOfMemoryError: Java heap space); raise "
        f"--driver-memory (a cluster: the executors' memory), or lower --max-line-length (Spark's log: {log})"
    ], r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "spark.log"]
