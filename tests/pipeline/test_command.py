"""The ``pipeline`` subcommand: wiring, and working (with a clear message) without the spark extra."""

from __future__ import annotations

import argparse
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
