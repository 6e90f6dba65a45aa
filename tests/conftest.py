"""Shared test set-up: where Kafka's vectors live, and the hypothesis profiles.

Profiles: ``ci`` (the default: derandomized, bounded) and ``deep`` (long runs:
``HYPOTHESIS_PROFILE=deep pytest -m slow``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("REBALANCE_CODEC_SHARED", ROOT.parent / "shared"))
KAFKA_VECTORS = SHARED / "vectors" / "kafka-java"

settings.register_profile("ci", max_examples=60, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("deep", max_examples=20000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def load_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: the tests need ../shared beside the repository "
            "(or REBALANCE_CODEC_SHARED pointing at it)")
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def record_id(r: dict) -> str:
    return str(r.get("id") or f"{r.get('kind')}-v{r.get('version')}-{r.get('index')}")


@pytest.fixture(scope="session")
def kafka_vectors():
    return lambda name: load_jsonl(KAFKA_VECTORS / name)
