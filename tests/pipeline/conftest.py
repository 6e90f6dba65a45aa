"""A real local SparkSession for the pipeline tests (session-scoped: one JVM for the whole directory),
and Kafka-derived expectations for the bundled sample captures.

Test modules that need pyspark or pyarrow skip themselves when the ``spark`` extra is not installed.
Spark's Python workers import the codec from the installed package (``pip install -e '.[spark]'``),
not from pytest's path."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import KAFKA_VECTORS, ROOT, built_once

NEEDS_SPARK = "the pipeline tests need the spark extra (pip install -e '.[spark]')"

SAMPLES = ROOT / "codec" / "examples" / "pipeline"
CAPTURES = SAMPLES / "captures.jsonl"
OFFSETS = SAMPLES / "offsets.parquet"
FRAMES = SAMPLES / "frames.jsonl"


def jsonl(path: Path) -> list[dict]:
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            out.append({"__not_json__": line})
    return out


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark", reason=NEEDS_SPARK)
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    s = (
        SparkSession.builder.master("local[2]")
        .appName("rebalance-codec pipeline tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        # C1 only (a short suite compiles more than it runs), with room for the code of every query the
        # suite plans: C1 alone reserves 48 MB of code cache, and a full cache stops the JVM
        .config(
            "spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m -XX:+UseSerialGC"
        )
        .getOrCreate()
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


def bundled_run(spark, tmp_path_factory) -> tuple[Path, dict]:
    """The job on the bundled example (captures, offsets and frames), run once per test run and read by every
    module that checks it (:func:`tests.conftest.built_once`: the xdist workers share it): its output folder,
    which tests read and never change, and a fresh copy of its summary (a test may change its copy)."""
    import pickle

    from codec.pipeline.job import Options, run

    def build(folder: Path) -> None:
        inputs = [str(CAPTURES), str(OFFSETS), str(FRAMES)]
        summary = run(Options(inputs=inputs, out=str(folder / "out"), quiet=True), spark)
        (folder / "summary.pickle").write_bytes(pickle.dumps(summary))

    folder = built_once(tmp_path_factory, "pipeline-bundled", build)
    return folder / "out", pickle.loads((folder / "summary.pickle").read_bytes())


@pytest.fixture(scope="session")
def nested():
    """Kafka's nested_streams vectors by Streams version."""
    return {r["streamsVersion"]: r for r in jsonl(KAFKA_VECTORS / "nested_streams.jsonl")}


def read_table(out: Path, name: str) -> list[dict]:
    import pyarrow as pa
    import pyarrow.dataset as ds

    part = ds.partitioning(pa.schema([("date", pa.string())]), flavor="hive")
    return ds.dataset(str(out / name), format="parquet", partitioning=part).to_table().to_pylist()


def leader_sync(group: str, generation: int, assignments: dict[str, bytes], ts: int | None = None) -> dict:
    """A record of the leader's SyncGroup request (v3) for ``group`` at ``generation``: every member's Streams
    AssignmentInfo (``assignments``: member -> its bytes) in a ConsumerProtocol assignment. It names the whole
    group (the leader sends every member's assignment), so the checks that need the whole group are decided."""
    from codec.group import consumer_assignment, encode_consumer, encode_message
    from codec.streams import decode_assignment
    from codec.wire.builder import wire_class

    tp = wire_class("ConsumerProtocolAssignment", "TopicPartition")
    entry = wire_class("SyncGroupRequest", "SyncGroupRequestAssignment")
    items = []
    for member, info in assignments.items():
        parts: dict[str, set[int]] = {}
        for t in decode_assignment(info).active_tasks:
            parts.setdefault("in", set()).add(t.partition)
        cpa = consumer_assignment(
            1,
            assigned_partitions=tuple(tp(topic=t, partitions=tuple(sorted(p))) for t, p in parts.items()),
            user_data=info,
        )
        items.append(entry(member_id=member, assignment=encode_consumer(cpa)))
    body = wire_class("SyncGroupRequest", "SyncGroupRequest")(
        group_id=group,
        generation_id=generation,
        member_id=next(iter(assignments)),
        group_instance_id=None,
        assignments=tuple(items),
    )
    record = {
        "record_id": f"{group}/{generation}/leader-sync",
        "kind": "sync-group-request",
        "version": 3,
        "hex": encode_message("SyncGroupRequest", 3, body).hex(),
        "group": group,
        "generation": generation,
    }
    if ts is not None:
        record["timestamp"] = ts
    return record
