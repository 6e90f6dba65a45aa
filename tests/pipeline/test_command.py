"""The ``pipeline`` subcommand: wiring, and working (with a clear message) without the spark extra."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys

import pytest

from codec.pipeline.command import register
from tests.conftest import ROOT

from .conftest import CAPTURES, FRAMES, OFFSETS, read_table


def _py(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_import_does_not_import_pyspark():
    r = _py(
        "import sys, codec.pipeline, codec.pipeline.command, codec.pipeline.records;"
        "print('pyspark' in sys.modules, 'pyarrow' in sys.modules)"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]


def test_register_adds_the_subcommand():
    p = argparse.ArgumentParser()
    register(p.add_subparsers(dest="command"))
    args = p.parse_args(
        [
            "pipeline",
            "a.jsonl",
            "b.parquet",
            "--out",
            "o",
            "--master",
            "spark://h:7077",
            "--num-standby-replicas",
            "1",
            "--max-warmup-replicas",
            "2",
        ]
    )
    assert (args.inputs, args.out, args.master) == (["a.jsonl", "b.parquet"], "o", "spark://h:7077")
    assert (args.num_standby_replicas, args.max_warmup_replicas, args.acceptable_recovery_lag) == (1, 2, 10000)


def test_without_pyspark_says_how_to_install(tmp_path):
    r = _py(
        "import sys, argparse; sys.modules['pyspark'] = None\n"
        "from codec.pipeline.command import register\n"
        "p = argparse.ArgumentParser(); register(p.add_subparsers())\n"
        f"a = p.parse_args(['pipeline', {str(CAPTURES)!r}, '--out', {str(tmp_path / 'o')!r}])\n"
        "sys.exit(a.func(a))"
    )
    assert r.returncode == 2
    assert "spark' extra" in r.stderr and "pip install 'rebalance-codec[spark]'" in r.stderr


def test_without_pandas_says_how_to_install_before_spark_starts(tmp_path):
    """Spark's ``mapInArrow`` (the job's decode) asks for pandas only once the job runs, after Spark's start:
    the command says it first, with the install line."""
    pytest.importorskip("pyspark")
    r = _py(
        "import sys, argparse; sys.modules['pandas'] = None\n"
        "from codec.pipeline.command import register\n"
        "p = argparse.ArgumentParser(); register(p.add_subparsers())\n"
        f"a = p.parse_args(['pipeline', {str(CAPTURES)!r}, '--out', {str(tmp_path / 'o')!r}, "
        f"'--log', {str(tmp_path / 'spark.log')!r}])\n"
        "sys.exit(a.func(a))"
    )
    assert r.returncode == 2
    assert r.stderr.startswith("error: pandas is not installed;") and "pip install 'rebalance-codec[spark]'" in r.stderr
    assert not (tmp_path / "spark.log").exists()  # Spark never started


@pytest.mark.slow
def test_end_to_end_through_spark_submit(tmp_path):
    """The bundled samples through a fresh local Spark, started as spark-submit starts the job
    (``codec.pipeline.submit``): every table written, the samples' ten records that cannot be decoded in
    quarantine. (No time asserted: speed is measured in ``bench/``, the job's decode stage by
    ``bench/pipeline_bench.py``.)"""
    pytest.importorskip("pyspark")
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(
        [sys.executable, "-m", "codec.pipeline.submit", str(CAPTURES), str(OFFSETS), str(FRAMES), "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert len(read_table(out, "quarantine")) == 10


def _pipeline(*args, timeout=300) -> subprocess.CompletedProcess:
    """``rebalance-codec pipeline ...`` as a user runs it (its own process, and its own Spark when it gets
    that far). Its JVM compiles with C1 only, as the test session's does (a short run; about half the
    time); the JVM announces that on its stderr ("Picked up JAVA_TOOL_OPTIONS"), which must reach the log
    file, not the terminal."""
    env = dict(os.environ, JAVA_TOOL_OPTIONS="-XX:TieredStopAtLevel=1")
    return subprocess.run(
        [sys.executable, "-m", "codec", "pipeline", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
        env=env,
    )


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
    r = _pipeline(target, "--out", tmp_path / "out", "--log", tmp_path / "spark.log")
    assert r.returncode == 1 and r.stdout == ""
    assert want in _one_error_line(r)
    assert not (tmp_path / "out").exists() and not (tmp_path / "spark.log").exists()  # Spark never started


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
    print_summary(
        {
            "counts": {"records_read": 10, "not_selected": 4, "records_in": 6, "decoded": 5, "quarantined": 1},
            "not_selected_by_reason": {"frame Heartbeat": 3, "line type summary": 1},
            "tables": {"members": 2},
            "output": "o",
        },
        file=buf,
    )
    lines = buf.getvalue().splitlines()
    assert lines[0] == "10 records read = 4 not selected + 5 decoded + 1 quarantined"
    assert lines[1] == "  not selected: 3 frame Heartbeat, 1 line type summary"


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    register(p.add_subparsers(dest="command"))
    return p.parse_args(["pipeline", *argv])


@pytest.mark.parametrize(
    "argv,says",
    [
        (["--master", "bogus://x"], "--master bogus://x: not a Spark master URL"),
        (["--master", "local[0]"], "--master local[0]: not a Spark master URL"),  # Spark: "0 threads"
        (["--master", "localhost"], "not a Spark master URL"),
        (["--master", "spark://head"], "not a Spark master URL"),  # no port
        (["--master", "yarn-cluster"], "not a Spark master URL"),
        (["--driver-memory", "xyz"], "--driver-memory xyz: not a JVM memory size"),
        (["--driver-memory", "2gb"], "not a JVM memory size"),  # Spark would take it, the JVM's -Xmx would not
        (["--driver-memory", "2048"], "not a JVM memory size"),  # bytes to the JVM, MiB to Spark: ambiguous
        (["--driver-memory", "0g"], "not a JVM memory size"),
        (["--shuffle-partitions", "0"], "--shuffle-partitions 0: must be at least 1"),
        (["--acceptable-recovery-lag", "-1"], "--acceptable-recovery-lag -1: must be at least 0"),
        (["--num-standby-replicas", "-1"], "--num-standby-replicas -1: must be at least 0"),
        (["--max-warmup-replicas", "0"], "--max-warmup-replicas 0: must be at least 1"),
    ],
)
def test_option_values_that_cannot_work_are_usage_errors(argv, says):
    from codec.pipeline.command import usage_error

    line = usage_error(_args("a.jsonl", "--out", "o", *argv))
    assert line is not None and line.startswith(f"{argv[0]} {argv[1]}: ") and says in line


@pytest.mark.parametrize(
    "master",
    [
        "local",
        "local[1]",
        "local[*]",
        "local[4,2]",
        "local[*, 3]",
        "local-cluster[2,1,1024]",
        "spark://head:7077",
        "spark://h1:7077,h2:7077",
        "yarn",
        "k8s://https://api.example:6443",
    ],
)
def test_master_urls_spark_accepts_pass(master):
    from codec.pipeline.command import usage_error

    for memory in ("512m", "2g", "2G", "1t", "4096k"):
        assert usage_error(_args("a.jsonl", "--out", "o", "--master", master, "--driver-memory", memory)) is None


@pytest.mark.parametrize("case", ["usage", "input", "output"])
def test_checked_before_pyspark_is_imported(tmp_path, monkeypatch, capsys, case):
    """The checks need neither Spark nor pyspark: with pyspark unimportable, each is still its own line (and
    the install hint only comes when everything else is right)."""
    from codec.pipeline.command import run

    monkeypatch.setitem(sys.modules, "pyspark", None)
    good = tmp_path / "a.jsonl"
    good.write_text('{"kind": "assignment-info", "hex": "00"}\n')
    out = tmp_path / "out"
    full = tmp_path / "full"  # an earlier output
    full.mkdir()
    (full / "report.json").write_text("{}")
    argv, status, says = {
        "usage": ([str(good), "--out", str(out), "--master", "bogus://x"], 2, "not a Spark master URL"),
        "input": ([str(tmp_path / "nope"), "--out", str(out)], 1, "input not found"),
        "output": ([str(good), "--out", str(full)], 1, f"{full} exists; pass --overwrite to replace it"),
    }[case]
    assert run(_args(*argv)) == status
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and says in err[0]
    # and with every check passed, the hint
    assert run(_args(str(good), "--out", str(out))) == 2
    assert "spark' extra" in capsys.readouterr().err
    out.mkdir()  # an empty output folder is fine, as the job says
    assert run(_args(str(good), "--out", str(out))) == 2
    assert run(_args(str(good), "--out", str(full), "--overwrite")) == 2


def test_jvm_start_errors_read_from_the_log(tmp_path):
    """The three ways a session's JVM was seen to die before PySpark could talk to it, as their log shows them."""
    from codec.pipeline.job import jvm_start_error

    log = tmp_path / "spark.log"
    log.write_text(
        "old run's text\n"
        "WARNING: Using incubator modules: jdk.incubator.vector\n"
        "2026-11-24 04:40:02 WARN Utils: Your hostname, vm, resolves to a loopback address\n"
        'Exception in thread "main" org.apache.spark.SparkException: Master must either be yarn or '
        "start with spark, k8s, or local\n"
        "\tat org.apache.spark.deploy.SparkSubmit.error(SparkSubmit.scala:1068)\n"
    )
    start = len("old run's text\n")
    assert jvm_start_error(str(log), start) == (
        "SparkException: Master must either be yarn or start with spark, k8s, or local"
    )
    log.write_text(
        "Invalid maximum heap size: -Xmxxyz\nError: Could not create the Java Virtual Machine.\n"
        "Error: A fatal exception has occurred. Program will exit.\n"
    )
    assert jvm_start_error(str(log)) == (
        "Invalid maximum heap size: -Xmxxyz; Error: Could not create the Java Virtual Machine."
    )
    log.write_text(".../pyspark/bin/spark-class: line 71: /nonexistent/bin/java: No such file or directory\n")
    assert (
        jvm_start_error(str(log))
        == ".../pyspark/bin/spark-class: line 71: /nonexistent/bin/java: No such file or directory"
    )
    log.write_text("2026-11-24 04:40:02 WARN Utils: nothing else\n")
    assert jvm_start_error(str(log)) is None and jvm_start_error(str(tmp_path / "none.log")) is None


@pytest.mark.parametrize("case", ["no java", "heap the JVM refuses"])
def test_a_jvm_that_does_not_start_is_one_line(tmp_path, case):
    """Past the option checks, the JVM itself refuses: one line with its reason (exit 2), what it wrote --
    to its stderr or, "Too small maximum heap", to its stdout -- in the log, nothing on the terminal."""
    pytest.importorskip("pyspark")
    good = tmp_path / "a.jsonl"
    good.write_text('{"kind": "assignment-info", "hex": "00"}\n')
    log = tmp_path / "spark.log"
    if case == "no java":
        env = dict(os.environ, JAVA_HOME=str(tmp_path / "no-jdk"))
        argv, says = [], f"{tmp_path / 'no-jdk'}/bin/java: No such file or directory"
    else:
        env = dict(os.environ)
        argv, says = ["--driver-memory", "1k"], "Error occurred during initialization of VM; Too small maximum heap"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "codec",
            "pipeline",
            str(good),
            "--out",
            str(tmp_path / "out"),
            "--log",
            str(log),
            "--quiet",
            *argv,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env=env,
        check=False,
    )
    assert r.returncode == 2 and r.stdout == ""
    line = _one_error_line(r)
    assert line.startswith("error: Spark did not start: ") and says in line and f"(Spark's log: {log})" in line
    assert says.split("; ")[-1] in log.read_text() and not (tmp_path / "out").exists()


def test_the_help_names_every_table_the_job_writes():
    # (it named six: connect, the Kafka Connect workers' table, was missing)
    from codec.pipeline.command import _DESCRIPTION
    from codec.pipeline.job import TABLES

    text = " ".join(_DESCRIPTION.split())
    assert f"Writes the Parquet tables {', '.join(TABLES[:-1])} and {TABLES[-1]}, plus report.json" in text


def test_max_line_length_takes_a_number_of_bytes_hadoop_can_count():
    """Hadoop's line reader counts a line and its end in a Java int: 2 GiB less three bytes at most."""
    from codec.pipeline.command import byte_size

    assert [byte_size(t) for t in ("1", "512k", "64m", "64M", "1g", "2147483645")] == [
        1,
        512 << 10,
        64 << 20,
        64 << 20,
        1 << 30,
        (1 << 31) - 3,
    ]
    for bad in ("0", "2g", "2147483646", "64mb", "-1", "1.5m", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            byte_size(bad)
    assert _args("a.jsonl", "--out", "o").max_line_length == 64 << 20
