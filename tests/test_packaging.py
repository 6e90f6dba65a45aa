"""The wheel carries the schema tables and the built-in example (``pip install .`` must work)."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from tests.conftest import ROOT


@pytest.mark.wheel
def test_wheel_contains_schemas(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), str(ROOT)],
                   check=True, timeout=600, cwd=tmp_path)
    (wheel,) = tmp_path.glob("rebalance_codec-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    schema_files = {p.name for p in (ROOT / "schemas").glob("*.json")}
    assert schema_files and {f"codec/schemas/{n}" for n in schema_files} <= names
    assert "codec/examples/streams-v7-subscription.bin" in names
    vector_files = {p.name for p in (ROOT / "vectors").iterdir() if p.suffix in (".jsonl", ".json", ".md")}
    assert vector_files and {f"codec/vectors/{n}" for n in vector_files} <= names
    assert any(n.endswith("entry_points.txt") for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "rebalance-codec = codec.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()
    # Every module of the source tree is in the wheel (the package list in pyproject.toml is explicit).
    sources = {str(p.relative_to(ROOT)) for p in (ROOT / "codec").rglob("*.py") if "__pycache__" not in p.parts}
    assert sources <= names, sorted(sources - names)
    # PEP 561: type checkers read the package's annotations (its public packages list their names in __all__)
    assert "codec/py.typed" in names
