"""The layout: each module of ``codec`` depends one way. The import graph is read from the source (every import
anywhere in a module, a lazy one inside a function too, relative ones resolved); a strongly connected part of it
is a cycle. A module importing a package it lives in (its ``__init__``) is not counted: Python runs that
``__init__`` first anyway."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from tests.conftest import ROOT


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package in folder ``root`` by dotted name (a package by its own name)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if not all(p.isidentifier() for p in parts):  # not importable (codec/examples/kip848-examples.py)
            continue
        name = ".".join((package, *parts))
        out[name.removesuffix(".__init__")] = path
    return out


def _targets(node: ast.Import | ast.ImportFrom, here: str, is_package: bool, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` an import statement in module ``here`` loads."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = here if is_package else here.rpartition(".")[0]
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            base = ".".join(p for p in (base, node.module) if p)
        else:
            base = node.module or ""
        # `from pkg import name`: the submodule pkg.name if there is one, else pkg itself
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
    out = set()
    for name in names:
        while name and name not in known:  # `import codec.wire.native` loads codec.wire.native
            name = name.rpartition(".")[0]
        if name:
            out.add(name)
    return out


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """{module: the modules of the package it imports}, from every import statement of its source."""
    known = modules(root, package)
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges |= _targets(node, name, path.name == "__init__.py", known)
        graph[name] = {t for t in edges if t != name and not name.startswith(t + ".")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = set()
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    part.add(m)
                    if m == node:
                        break
                if len(part) > 1:
                    found.append(frozenset(part))
    return found


@functools.cache
def _codec_graph() -> dict[str, set[str]]:
    return import_graph(ROOT / "codec", "codec")  # read once for the tests below


def test_codec_has_no_import_cycle():
    """Each module of codec depends one way (issue #32): no cycle, lazy imports inside functions included."""
    assert sorted(sorted(c) for c in cycles(_codec_graph())) == []


def test_the_graph_sees_the_imports_of_codec():
    """Edges the checks rely on, read from codec itself: a lazy import inside a function, a relative import of a
    sibling's name, a package importing its modules; a module importing its own package is left out."""
    graph = _codec_graph()
    assert "codec.conformance.rebalance" in graph["codec.conformance.impl"]  # a lazy import, inside a method
    assert "codec.conformance.messages" in graph["codec.conformance.runner"]
    assert "codec.fuzz.corpus" in graph["codec.fuzz"]
    assert "codec.streams" not in graph["codec.streams.assignment"]


def test_the_packages_of_codec_depend_one_way():
    """The floors (issue #42): codec's packages, each taken whole, form no cycle either -- no arrow runs back up.
    ``capture --follow`` made one: the capture package imported codec.live.follow, a floor above it that reads the
    capture package; the command line now runs capture through codec.live.capturecmd."""
    packages: dict[str, set[str]] = {}
    for module, targets in _codec_graph().items():
        top = ".".join(module.split(".")[:2])
        packages.setdefault(top, set()).update(t for t in (".".join(t.split(".")[:2]) for t in targets) if t != top)
    assert "codec.capture" in packages["codec.live"]  # the floor above reads the capture package
    assert sorted(sorted(c) for c in cycles(packages)) == []


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_the_checker_finds_a_cycle_in_a_small_package(tmp_path):
    """A sibling that can fail: a cycle through a lazy import, a sibling's name and an absolute import, and one
    through a subpackage's relative import two levels up, are found; a module importing its own package's
    ``__init__`` (which imports it back) is not a cycle."""
    root = _write(
        tmp_path,
        {
            "__init__.py": "from .a import run\n",
            "a.py": "from . import b\n\ndef run():\n    from .c import helper\n    return helper\n",
            "b.py": "from .d import nothing_here\nimport os\n",
            "c.py": "import pkg.a\nfrom pkg import run\n",  # pkg.a, and pkg's __init__ (its own package)
            "d.py": "X = 1\n",
            "sub/__init__.py": "",
            "sub/e.py": "from ..d import X\nfrom .f import Y\n",
            "sub/f.py": "Y = 2\n\ndef g():\n    from ..sub import e\n    return e\n",
        },
    )
    graph = import_graph(root, "pkg")
    assert graph["pkg.a"] == {"pkg.b", "pkg.c"}
    assert graph["pkg.b"] == {"pkg.d"}
    assert graph["pkg.c"] == {"pkg.a"}  # `from pkg import run`: its own package, not counted
    assert graph["pkg.sub.e"] == {"pkg.d", "pkg.sub.f"}
    assert sorted(sorted(c) for c in cycles(graph)) == [["pkg.a", "pkg.c"], ["pkg.sub.e", "pkg.sub.f"]]


def test_the_checker_passes_a_package_that_depends_one_way(tmp_path):
    root = _write(
        tmp_path,
        {
            "__init__.py": "from .top import main\n",
            "top.py": "from .low import f\n",
            "low.py": "from . import base\n",
            "base.py": "import json\n",
        },
    )
    graph = import_graph(root, "pkg")
    assert graph == {"pkg": {"pkg.top"}, "pkg.top": {"pkg.low"}, "pkg.low": {"pkg.base"}, "pkg.base": set()}
    assert cycles(graph) == []


# Modules past the bound that other work splits now (issue #42; each leaves this list when it is split):
# the pipeline's tables and Arrow output, the capture's heartbeat reader, the simulator's engine.
_OVER_FOR_NOW: set[str] = set()
MAX_LINES = 800


def test_no_module_is_over_800_lines():
    """The guide's bound: no Python module of ``codec`` over 800 lines (the list above aside, each of which is still
    over it: one that is split leaves the list)."""
    sizes = {
        p.relative_to(ROOT / "codec").as_posix(): len(p.read_text(encoding="utf-8").splitlines())
        for p in (ROOT / "codec").rglob("*.py")
    }
    over = {name for name, n in sizes.items() if n > MAX_LINES}
    assert over - _OVER_FOR_NOW == set(), {name: sizes[name] for name in over - _OVER_FOR_NOW}
    assert _OVER_FOR_NOW - over == set(), "split: remove them from _OVER_FOR_NOW"
