"""The wheel carries the schema tables and the built-in example (``pip install .`` must work)."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from tests.conftest import ROOT


@pytest.mark.wheel
def test_wheel_contains_schemas(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), str(ROOT)],
        check=True,
        timeout=600,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("rebalance_codec-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    schema_files = {p.name for p in (ROOT / "schemas").glob("*.json")}
    assert schema_files and {f"codec/schemas/{n}" for n in schema_files} <= names
    assert "codec/examples/streams-v7-subscription.bin" in names
    vector_files = {p.name for p in (ROOT / "vectors").iterdir() if p.suffix in (".jsonl", ".json", ".md")}
    assert vector_files and {f"codec/vectors/{n}" for n in vector_files} <= names
    assert any(n.endswith("entry_points.txt") for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "rebalance-codec = codec.__main__:console" in zipfile.ZipFile(wheel).read(entry).decode()
    # Every module of the source tree is in the wheel (the package list in pyproject.toml is explicit).
    sources = {str(p.relative_to(ROOT)) for p in (ROOT / "codec").rglob("*.py") if "__pycache__" not in p.parts}
    assert sources <= names, sorted(sources - names)
    # PEP 561: type checkers read the package's annotations (its public packages list their names in __all__)
    assert "codec/py.typed" in names


def _defines_all(path) -> bool:
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(n, (ast.Assign, ast.AnnAssign))
        and any(getattr(t, "id", None) == "__all__" for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))
        for n in tree.body
    )


def test_every_public_package_lists_its_public_names():
    """Each public package and module says what it exports (``__all__``), and each name listed is there; a type
    checker reading py.typed takes a package's re-exports from it."""
    import importlib

    modules = [
        p
        for p in (ROOT / "codec").rglob("*.py")
        if "__pycache__" not in p.parts
        and p.name != "__main__.py"
        and not any(part.startswith("_") and part != "__init__.py" for part in p.relative_to(ROOT).parts)
        and "examples" not in p.relative_to(ROOT).parts
    ]
    assert [str(p.relative_to(ROOT)) for p in modules if not _defines_all(p)] == []
    for path in modules:
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if path.name == "__init__.py" else parts)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:  # the pipeline's Spark modules without the spark extra
            assert e.name.split(".")[0] in ("pyspark", "pyarrow"), e
            continue
        assert [n for n in module.__all__ if not hasattr(module, n)] == [], name


def test_the_package_description_names_every_family_and_tool():
    """`pip show` is a newcomer's first look (issue #32): the summary names each protocol family the codec reads
    and each thing it does, not the Streams metadata alone."""
    import tomllib

    description = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["description"]
    for word in (
        "ConsumerProtocol",
        "Kafka Streams",
        "Kafka Connect",
        "consumer",
        "streams",
        "share groups",
        "negotiation",
        "assignors",
        "simulator",
        "conformance gate",
        "pcap",
        "__consumer_offsets",
        "PySpark",
    ):
        assert word in description, word
