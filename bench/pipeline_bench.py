"""The pipeline's decoded records per CPU-second through Spark ``local[2]``: the native codec against the
pure-Python one (``REBALANCE_CODEC_NATIVE=0``, what the pipeline ran on before issue #29), on the same input.

The input and the measurement are ``bench_pipeline.py``'s: Kafka's 1,100 SubscriptionInfo and AssignmentInfo
vectors repeated to ``--records``, as Parquet; the job's own session; one warm-up; then the job's decode stage
into Spark's ``noop`` sink, the CPU seconds of the whole process tree (driver, JVM, Python workers) counted
from /proc. The executors' Python workers inherit the driver's environment, so each run is a child process
of its own with the codec chosen by the variable; the runs alternate in a shuffled order
(``bench/harness.py``), and each side's sample is its CPU seconds.
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


def _child(records: int, path: Path) -> None:
    import bench_pipeline as B

    spark = B.spark_session()
    try:
        B.spark_decode(spark, path / "warm", 2000)
        r = B.spark_decode(spark, path / "in", records)
    finally:
        spark.stop()
    from codec.wire import native

    print(json.dumps({"seconds": r["cpu_s"], "wall_s": r["wall_s"], "codec": native.codec_name(),
                      "us_per_record": r["us_per_record"]}))


def _run(codec: str, records: int, path: Path) -> dict:
    env = {**os.environ, "REBALANCE_CODEC_NATIVE": "1" if codec == "native" else "0",
           "PYTHONPATH": os.pathsep.join([str(HERE.parent), str(HERE)])}
    done = subprocess.run([sys.executable, str(HERE / "pipeline_bench.py"), "--child", str(records), str(path)],
                          capture_output=True, text=True, env=env, check=True, cwd=HERE.parent)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    if out["codec"] != codec:
        raise RuntimeError(f"the child ran the {out['codec']} codec, not {codec}")
    return out


def run(args) -> None:
    import bench_pipeline as B

    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        path = Path(tmp)
        recs = B.records(args.records)
        B.write_parquet(recs, path / "in")
        B.write_parquet(recs[:2000], path / "warm")
        c = harness.Comparison(
            "pipeline", f"Spark local[{B.CORES}], {args.records:,} records", "decode stage",
            {"native": lambda: _run("native", args.records, path), "python": lambda: _run("python", args.records, path)},
            ours="native", targets={"python": 0.5}, unit="CPU s per run",
            meta={"records": args.records,
                  "what": f"the job's decode stage over {args.records:,} SubscriptionInfo/AssignmentInfo records "
                          "(Kafka's vectors, repeated) into Spark's noop sink; CPU seconds of driver, JVM and "
                          "Python workers; each run a process of its own"})
        rec = harness.measure(c, repeats=max(3, min(args.repeats, 5)), process=True)
        r = rec["ratios"]["python"]
        print(f"pipeline: native {rec['times']['native']['median']:.2f} CPU s, python "
              f"{rec['times']['python']['median']:.2f}: {1 / r['median']:.2f}× the records per CPU-second")
        harness.save("pipeline", [rec], {"repeats": rec["repeats"]})


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(int(sys.argv[2]), Path(sys.argv[3]))
