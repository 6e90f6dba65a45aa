"""``pipeline`` on hostile input (issue #17), through the console script.

Errors that can be told before Spark starts -- a missing path, a ``.parquet`` that is not Parquet, a
``.jsonl.gz`` that is not gzip, ``--master bogus://x``, ``--driver-memory xyz`` -- are one ``error:`` line,
exit 1 for bad input and 2 for bad usage, with no JVM started: through the installed wheel (which has no
pyspark: the checks need none) and through the checkout's own console script (which has, and must still
refuse before starting Spark: no log file appears). Two real runs, started together (one JVM each): a file
whose every line is malformed, quarantined whole, and a file mixing record types the pipeline decodes with
ones it does not, every record counted exactly once. The inputs are written here; the expected counts are
worked out by hand from the pipeline's documented rules (``python -m pydoc codec.pipeline``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.wheel

#: the console script of the venv running the tests (the checkout, editable, with the spark extra)
EDITABLE = Path(sys.executable).with_name("rebalance-codec")
EXAMPLES = ROOT / "codec" / "examples"


def _editable(*args, cwd: Path, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    if not EDITABLE.is_file():
        pytest.skip(f"no console script beside {sys.executable}")
    return subprocess.run(
        [str(EDITABLE), *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        cwd=cwd,
        timeout=timeout,
        env=env,
        check=False,
    )


def _one_error_line(p: subprocess.CompletedProcess, status: int) -> str:
    """Exit ``status``, nothing on stdout, and exactly one line on stderr: ``error: ...``, without a Python
    or Java stack trace."""
    assert p.returncode == status, (p.returncode, p.stdout[-500:], p.stderr[-2000:])
    assert p.stdout == "", p.stdout[-500:]
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr[-2000:]
    for trace in ("Traceback", "\tat ", "Exception in thread", "py4j", "JAVA_GATEWAY"):
        assert trace not in p.stderr, p.stderr
    return lines[0]


# --- refused before Spark starts -------------------------------------------------------------------------------

GOOD_LINE = json.dumps({"kind": "assignment-info", "hex": (EXAMPLES / "streams-v7-assignment.bin").read_bytes().hex()})


def _case(tmp_path: Path, case: str) -> tuple[list, int, str]:
    """(arguments after ``pipeline``, exit status, what the error line says)."""
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD_LINE + "\n", encoding="utf-8")
    if case == "missing path":
        return [tmp_path / "no-such-captures.jsonl"], 1, f"input not found: {tmp_path / 'no-such-captures.jsonl'}"
    if case == "non-Parquet .parquet":
        f = tmp_path / "records.parquet"
        f.write_text("kind,hex\nassignment-info,00\n", encoding="utf-8")  # a CSV file under a Parquet name
        return [good, f], 1, f"{f} is not a Parquet file"
    if case == "non-gzip .jsonl.gz":
        f = tmp_path / "records.jsonl.gz"
        f.write_text(GOOD_LINE + "\n", encoding="utf-8")  # plain JSON lines under a gzip name
        return [f], 1, f"{f} is not gzip data, but its name ends in .gz"
    if case == "a FIFO":  # a shell's <(zcat ...): Spark listed it as 0 bytes and read no record (exit 0)
        f = tmp_path / "piped.jsonl"
        os.mkfifo(f)
        return [good, f], 1, f"{f} is a FIFO, not a regular file: Spark would read no record from it"
    if case == "a FIFO in a directory":
        (tmp_path / "d").mkdir()
        (tmp_path / "d" / "a.jsonl").write_text(GOOD_LINE + "\n", encoding="utf-8")
        os.mkfifo(tmp_path / "d" / "b.jsonl")
        return [tmp_path / "d"], 1, f"{tmp_path / 'd' / 'b.jsonl'} is a FIFO, not a regular file"
    if case == "/dev/zero":
        return ["/dev/zero", "--input-format", "jsonl"], 1, "/dev/zero is a character device, not a regular file"
    if case == "--master bogus://x":
        return [good, "--master", "bogus://x"], 2, "--master bogus://x: not a Spark master URL"
    assert case == "--driver-memory xyz"
    return [good, "--driver-memory", "xyz"], 2, "--driver-memory xyz: not a JVM memory size"


CASES = [
    "missing path",
    "non-Parquet .parquet",
    "non-gzip .jsonl.gz",
    "a FIFO",
    "a FIFO in a directory",
    "/dev/zero",
    "--master bogus://x",
    "--driver-memory xyz",
]


@pytest.mark.parametrize("case", CASES)
def test_refused_by_the_installed_wheel_without_pyspark(installed_cli, tmp_path, case):
    """The wheel installed alone (no spark extra): the same line a user with Spark gets, not "install pyspark"."""
    args, status, says = _case(tmp_path, case)
    p = installed_cli("pipeline", *map(str, args), "--out", str(tmp_path / "out"), "--log", str(tmp_path / "spark.log"))
    line = _one_error_line(p, status)
    assert says in line and "not installed" not in line
    assert not (tmp_path / "out").exists() and not (tmp_path / "spark.log").exists()


@pytest.mark.parametrize("case", CASES)
def test_refused_before_spark_starts(tmp_path, case):
    """With pyspark at hand, still refused before Spark starts: no JVM, so no log file, and well under the
    ~10 s a JVM takes to start."""
    pytest.importorskip("pyspark")
    args, status, says = _case(tmp_path, case)
    t = time.monotonic()
    p = _editable("pipeline", *args, "--out", tmp_path / "out", "--log", tmp_path / "spark.log", cwd=tmp_path)
    took = time.monotonic() - t
    assert says in _one_error_line(p, status)
    assert not (tmp_path / "out").exists() and not (tmp_path / "spark.log").exists()
    assert took < 8, took


# --- two real runs, started together ---------------------------------------------------------------------------

#: every line malformed: none is a JSON object (the last one is not UTF-8 either)
MALFORMED = [b"not json", b"{", b"[1, 2]", b"42", b'"a string"', b"null", b'{"kind": ', b"}{", b"\xff\xfe garbage"]

ASSIGNMENT = (EXAMPLES / "streams-v7-assignment.bin").read_bytes().hex()  # Kafka-written, as the demo says
SUBSCRIPTION = (EXAMPLES / "streams-v7-subscription.bin").read_bytes().hex()

#: (record, what becomes of it by the documented rules): lines whose `type` is not "frame" are not selected
#: ("line type T"), frames other than JoinGroup/SyncGroup neither ("frame <api_name>", else "frame API key K");
#: every other record is decoded or quarantined (an unknown or missing kind is quarantined as UnknownKind)
MIXED = [
    ({"kind": "assignment-info", "hex": ASSIGNMENT}, "decoded"),  # no type: a record
    ({"type": "frame", "kind": "assignment-info", "hex": ASSIGNMENT}, "decoded"),
    ({"kind": "subscription-info", "hex": SUBSCRIPTION, "member": "m-1"}, "decoded"),
    ({"type": "generation", "group": "g", "generation": 3}, "line type generation"),
    ({"type": "generation", "group": "g", "generation": 4}, "line type generation"),
    ({"type": "summary", "frames": 10}, "line type summary"),
    ({"type": "heartbeat", "kind": "assignment-info", "hex": ASSIGNMENT}, "line type heartbeat"),
    ({"type": "FRAME", "kind": "assignment-info", "hex": ASSIGNMENT}, "line type FRAME"),
    ({"type": 7, "kind": "assignment-info", "hex": ASSIGNMENT}, "line type 7"),
    (
        {
            "type": "frame",
            "api_key": 12,
            "api_name": "Heartbeat",
            "direction": "request",
            "api_version": 4,
            "hex": "000c0004000000070001630000",
        },
        "frame Heartbeat",
    ),
    ({"type": "frame", "api_key": 99, "direction": "request", "api_version": 0, "hex": "00630000"}, "frame API key 99"),
    ({"kind": "no-such-kind", "hex": "00"}, "quarantined UnknownKind"),
    ({"kind": "heartbeat-request", "hex": "00"}, "quarantined UnknownKind"),  # a kind the pipeline does not decode
    ({"hex": "0000"}, "quarantined UnknownKind"),  # no kind at all
    (
        {"type": "frame", "api_key": 11, "direction": "request", "api_version": 5, "hex": "000b0005"},
        "quarantined DecodeError",
    ),  # a JoinGroup request cut inside its header
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Both pipeline runs, in parallel (each its own JVM, compiling with C1 only, as the other pipeline CLI
    tests do): {name: (completed process, its folder)}."""
    pytest.importorskip("pyspark")
    if not EDITABLE.is_file():
        pytest.skip(f"no console script beside {sys.executable}")
    base = tmp_path_factory.mktemp("pipeline-runs")
    inputs = {
        "malformed": b"\n".join(MALFORMED) + b"\n",
        "mixed": "".join(json.dumps(r) + "\n" for r, _ in MIXED).encode("utf-8"),
    }
    env = dict(os.environ, JAVA_TOOL_OPTIONS="-XX:TieredStopAtLevel=1")
    procs = {}
    for name, data in inputs.items():
        d = base / name
        d.mkdir()
        (d / f"{name}.jsonl").write_bytes(data)
        procs[name] = (
            subprocess.Popen(
                [
                    str(EDITABLE),
                    "pipeline",
                    f"{name}.jsonl",
                    "--out",
                    "out",
                    "--log",
                    "spark.log",
                    "--shuffle-partitions",
                    "2",
                ],
                cwd=d,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
            ),
            d,
        )
    done = {}
    try:
        for name, (proc, d) in procs.items():
            out, err = proc.communicate(timeout=400)
            done[name] = (subprocess.CompletedProcess(proc.args, proc.returncode, out, err), d)
    finally:
        for proc, _ in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return done


def _succeeded(p: subprocess.CompletedProcess) -> list[str]:
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-3000:])
    for trace in ("Traceback", "\tat ", "Exception", "error:"):
        assert trace not in p.stderr, p.stderr
    return p.stdout.splitlines()


def _quarantine(out: Path) -> list[dict]:
    import pyarrow.dataset as ds

    return ds.dataset(str(out / "quarantine"), format="parquet", partitioning="hive").to_table().to_pylist()


def test_every_line_malformed_is_quarantined_whole(runs):
    p, d = runs["malformed"]
    lines = _succeeded(p)
    n = len(MALFORMED)
    assert lines[0] == f"{n} records read = 0 not selected + 0 decoded + {n} quarantined"
    report = json.loads((d / "out" / "report.json").read_text(encoding="utf-8"))
    assert report["counts"] == {"records_read": n, "not_selected": 0, "records_in": n, "decoded": 0, "quarantined": n}
    assert report["not_selected_by_reason"] == {}
    rows = _quarantine(d / "out")
    assert {(r["kind"], r["error_type"]) for r in rows} == {("not-json", "JSONDecodeError")} and len(rows) == n
    # each quarantined with its line's bytes as its file holds them (one that is not UTF-8 is never read with
    # replacement characters)
    want = sorted(MALFORMED)
    assert sorted(r["data"] for r in rows) == want
    assert report["tables"]["members"] == report["tables"]["assignments"] == 0


def test_types_it_does_not_decode_are_counted_never_dropped(runs):
    p, d = runs["mixed"]
    lines = _succeeded(p)
    # by hand, from the table above: 15 records; 3 decoded; 8 not selected; 4 quarantined
    assert len(MIXED) == 15
    assert lines[0] == "15 records read = 8 not selected + 3 decoded + 4 quarantined"
    report = json.loads((d / "out" / "report.json").read_text(encoding="utf-8"))
    assert report["counts"] == {"records_read": 15, "not_selected": 8, "records_in": 7, "decoded": 3, "quarantined": 4}
    reasons = {
        "line type generation": 2,
        "frame API key 99": 1,
        "frame Heartbeat": 1,
        "line type 7": 1,
        "line type FRAME": 1,
        "line type heartbeat": 1,
        "line type summary": 1,
    }
    outcomes = Counter(o for _, o in MIXED)  # (the table's notes agree with the numbers above)
    assert outcomes == {**reasons, "decoded": 3, "quarantined UnknownKind": 3, "quarantined DecodeError": 1}
    assert report["not_selected_by_reason"] == reasons
    assert lines[1] == (
        "  not selected: 2 line type generation, 1 frame API key 99, 1 frame Heartbeat, "
        "1 line type 7, 1 line type FRAME, 1 line type heartbeat, 1 other"
    )
    rows = _quarantine(d / "out")
    assert Counter(f"quarantined {r['error_type']}" for r in rows) == {
        o: n for o, n in outcomes.items() if o.startswith("quarantined")
    }
    assert sorted((r["kind"] or "", r["error_type"]) for r in rows) == [
        ("", "UnknownKind"),
        ("frame", "DecodeError"),
        ("heartbeat-request", "UnknownKind"),
        ("no-such-kind", "UnknownKind"),
    ]
    assert sorted(r["hex"] for r in rows) == ["00", "00", "0000", "000B0005"]
    # the decoded ones fed the tables: the subscription a members row, the two assignments theirs
    assert report["tables"]["members"] == 1 and report["tables"]["quarantine"] == 4
