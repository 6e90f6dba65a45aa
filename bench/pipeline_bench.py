"""The pipeline's decoded records per CPU-second through Spark ``local[2]``: the native codec against the
pure-Python one (``REBALANCE_CODEC_NATIVE=0``, what the pipeline ran on before issue #29), on the same input.

The input and the measurement are ``bench_pipeline.py``'s: Kafka's 1,100 SubscriptionInfo and AssignmentInfo
vectors repeated to ``--records``, as Parquet; the job's own session; a first pass over the input as the warm-up
(the JVM's JIT compiles the stage then); then the job's decode stage over the same input again into Spark's
``noop`` sink, the CPU seconds of the whole process tree (driver, JVM, Python workers) counted from /proc. The executors' Python workers inherit the driver's environment, so each run is a child process
of its own with the codec chosen by the variable; the runs alternate in a shuffled order
(``bench/harness.py``), and each side's sample is its CPU seconds.

A third side is the pipeline as it was when issue #29 was opened (:data:`ISSUE_COMMIT`: the job of that commit,
its pure-Python codec; its ``codec/`` and ``schemas/`` taken from git into a temporary folder and put first on
the child's path): the issue's "today's", against which its target (≥ 2× the records per CPU-second) is
measured. The native ÷ pure-Python ratio on today's job is the codec's own share of the gain.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import harness

HERE = Path(__file__).resolve().parent
#: The commit issue #29 was opened on: its pipeline is the issue's "today's".
ISSUE_COMMIT = "6247c12"
ISSUE_SIDE = f"{ISSUE_COMMIT} (issue opened)"


def _child(records: int, path: Path) -> None:
    import bench_pipeline as B

    spark = B.spark_session()
    try:
        # The first pass over the input is the warm-up: the JVM's JIT compiles the stage's code paths while it
        # runs (after a 2,000-record warm-up the next 200,000 records cost ~8 µs more each in the JVM, with
        # either codec), a fixed cost like the JVM's start-up that no codec can remove. The second pass over the
        # same input is measured: the stage's steady cost per record.
        B.spark_decode(spark, path / "in", records)
        r = B.spark_decode(spark, path / "in", records)
    finally:
        spark.stop()
    try:
        from codec.wire import native
    except ImportError:  # the pipeline of ISSUE_COMMIT: no native codec yet
        codec = "python"
    else:
        codec = native.codec_name()
    split = r["us_per_record"]
    print(
        json.dumps(
            {
                "seconds": r["cpu_s"],
                "wall_s": r["wall_s"],
                "codec": codec,
                "jvm_us": split["jvm"],
                "workers_us": split["python_workers"],
                "driver_us": split["driver"],
            }
        )
    )


def _run(codec: str, records: int, path: Path, tree: Path | None = None) -> dict:
    """One child run: today's job with ``codec``, or (``tree``) the job of the source tree there."""
    env = {
        **os.environ,
        "REBALANCE_CODEC_NATIVE": "1" if codec == "native" else "0",
        "PYTHONPATH": os.pathsep.join([str(tree or HERE.parent), str(HERE)]),
    }
    done = subprocess.run(
        [sys.executable, str(HERE / "pipeline_bench.py"), "--child", str(records), str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tree or HERE.parent,
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    if out["codec"] != codec:
        raise RuntimeError(f"the child ran the {out['codec']} codec, not {codec}")
    return out


def issue_tree(base: Path) -> Path:
    """``codec/`` and ``schemas/`` of :data:`ISSUE_COMMIT`, from this checkout's git, under ``base``."""
    tree = base / ISSUE_COMMIT
    tree.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(HERE.parent), "archive", ISSUE_COMMIT, "codec", "schemas"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


def run(args) -> None:
    import bench_pipeline as B

    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        path = Path(tmp)
        recs = B.records(args.records)
        B.write_parquet(recs, path / "in")
        then = issue_tree(path)
        c = harness.Comparison(
            "pipeline",
            f"Spark local[{B.CORES}], {args.records:,} records",
            "decode stage",
            {
                "native": lambda: _run("native", args.records, path),
                "python": lambda: _run("python", args.records, path),
                ISSUE_SIDE: lambda: _run("python", args.records, path, then),
            },
            ours="native",
            targets={ISSUE_SIDE: 0.5},
            unit="CPU s per run",
            meta={
                "records": args.records,
                "what": f"the job's decode stage over {args.records:,} SubscriptionInfo/AssignmentInfo records "
                "(Kafka's vectors, repeated) into Spark's noop sink, the second pass over them (the first "
                "warms the JVM's JIT); CPU seconds of driver, JVM and Python workers; each run a process "
                f"of its own; today's job with either codec, and the job of {ISSUE_COMMIT}, the commit issue #29 was "
                "opened on (its pure-Python codec)",
                "issue_side": ISSUE_SIDE,
            },
        )
        rec = harness.measure(c, repeats=max(3, min(args.repeats, 5)), process=True)
        t = rec["times"]
        print(
            f"pipeline: native {t['native']['median']:.2f} CPU s, python {t['python']['median']:.2f}, "
            f"{ISSUE_SIDE} {t[ISSUE_SIDE]['median']:.2f}: the records per CPU-second "
            f"{1 / rec['ratios'][ISSUE_SIDE]['median']:.2f}× the issue's, {1 / rec['ratios']['python']['median']:.2f}× "
            "the pure-Python codec's on today's job"
        )
        harness.save("pipeline", [rec], {"repeats": rec["repeats"]})


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(int(sys.argv[2]), Path(sys.argv[3]))
