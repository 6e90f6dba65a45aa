"""Both codecs, the native one and the pure-Python one, through the whole vector suite (issue #29), and what
``rebalance-codec --version`` says about which is in use.

The conformance runner checks every vector in ``vectors/`` (Kafka's, kio's, the handcrafted and regression
ones: decode values, errors with their offsets and paths, encoded bytes) against the built-in codec; here it
runs once with each codec selected. The differential fuzzing of the two is in ``tests/fuzz/test_fuzz.py``,
the engine against the reference field by field in ``tests/wire/test_native.py``."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import pytest

from codec.conformance.impl import BuiltinImplementation
from codec.conformance.runner import run_vectors
from codec.conformance.vectors import load_vectors
from codec.wire import native
from tests.conftest import ROOT

VECTORS = load_vectors()


@pytest.mark.parametrize("codec", ["native", "python"])
def test_every_vector_passes_through_both_codecs(codec):
    if codec == "native" and not native.available():
        pytest.skip(f"no native codec: {native.unavailable_reason()}")
    old = native.set_active(codec == "native")
    try:
        assert native.codec_name() == codec
        results = run_vectors(BuiltinImplementation(), VECTORS)
    finally:
        native.set_active(old)
    failures = [r for r in results if r.status != "pass"]
    assert len(results) > 5000 and not failures, failures[:5]


def _version(env: dict) -> str:
    p = subprocess.run(
        [sys.executable, "-m", "codec", "--version"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=60
    )
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_version_names_the_codec_in_use_and_the_releases():
    env = {k: v for k, v in os.environ.items() if k != "REBALANCE_CODEC_NATIVE"}
    out = _version(env)
    import codec

    assert out.splitlines()[0] == f"rebalance-codec {codec.__version__}"
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"] == codec.__version__
    expected = "native" if native.available() else "python"
    assert out.splitlines()[1].startswith(f"codec: {expected} ")
    assert "JoinGroup v0-9" in out and "SubscriptionInfo v1-11" in out  # the ranges, from the schemas
    readme = (ROOT / "schemas" / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("<!-- releases:start -->") : readme.index("<!-- releases:end -->")]
    # the releases, from schemas/README.md: the commits whose classes judged the rule vectors, each named
    from codec.conformance.handcrafted_rules import CLASSIC_COMMIT, KAFKA4_COMMIT, SHARE_COMMIT

    for commit in (CLASSIC_COMMIT, KAFKA4_COMMIT, SHARE_COMMIT):
        assert commit[:7] in block and commit[:7] in out, commit
    assert "ShareGroupHeartbeat v1" in out and "GroupMetadataValue v0-4" in out
    forced = _version({**env, "REBALANCE_CODEC_NATIVE": "0"})
    assert forced.splitlines()[1].startswith("codec: python (pure Python, selected by REBALANCE_CODEC_NATIVE=0")


def test_the_environment_variable_selects_pure_python_in_a_new_process():
    code = "from codec.wire import native; print(native.codec_name())"
    env = {**os.environ, "REBALANCE_CODEC_NATIVE": "0"}
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert got.stdout.strip() == "python"
