"""codec.streams loads its public names on first use (PEP 562, for the command line's start-up): the runtime table
of where each name lives, ``__all__`` and the ``TYPE_CHECKING`` imports that type checkers and the API pages read
name the same, and each name is what its module defines."""

from __future__ import annotations

import ast
import importlib

import codec.streams as streams
from tests.conftest import ROOT


def _type_checking_imports() -> dict[str, str]:
    tree = ast.parse((ROOT / "codec" / "streams" / "__init__.py").read_text(encoding="utf-8"))
    (block,) = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"]
    return {a.name: "." + node.module for node in block.body if isinstance(node, ast.ImportFrom) for a in node.names}


def test_the_three_listings_agree():
    table = {name: module for module, names in streams._EXPORTS.items() for name in names}
    assert table == _type_checking_imports()
    assert sorted(streams.__all__) == sorted(table) and len(streams.__all__) == len(set(streams.__all__))


def test_each_name_is_its_modules():
    for name, module in _type_checking_imports().items():
        assert getattr(streams, name) is getattr(importlib.import_module(module, "codec.streams"), name), name
