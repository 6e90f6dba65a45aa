"""The Python API pages: one page per public module of ``codec`` (every module whose dotted name has no part
starting with ``_``), written as reStructuredText (autodoc's own syntax) into ``docs/reference/api/`` when the
build starts (not kept in git) and filled by autodoc from the docstrings. A package's page shows its docstring
and what it defines itself, the names of its ``__all__`` with where each is documented, and its modules; a
module's page documents its members (its ``__all__`` where it has one)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
from pathlib import Path

PACKAGE = "codec"
OUT = "reference/api"
SKIP = {"codec.__main__"}  # ``python -m codec``: the CLI, documented on the CLI reference page


def public_modules(root: Path) -> list[str]:
    """Every public module of the package under ``root``, found on disk (a folder with ``__init__.py`` is a
    package): sorted dotted names."""
    found = []
    base = root / PACKAGE

    def walk(folder: Path, prefix: str) -> None:
        found.append(prefix)
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith("_"):
                continue
            if entry.is_dir() and (entry / "__init__.py").is_file():
                walk(entry, f"{prefix}.{entry.name}")
            elif entry.suffix == ".py" and entry.stem.isidentifier():
                found.append(f"{prefix}.{entry.stem}")

    walk(base, PACKAGE)
    return sorted(m for m in found if m not in SKIP)


def is_package(root: Path, name: str) -> bool:
    return (root.joinpath(*name.split(".")) / "__init__.py").is_file()


def _sources(root: Path, name: str) -> dict[str, str]:
    """Where each name a package imports comes from, read from its ``__init__.py``: ``{name: module}``. Imports
    under ``if TYPE_CHECKING:`` count: a package that loads its names on first use (``codec.streams``) lists
    them there."""
    tree = ast.parse((root.joinpath(*name.split(".")) / "__init__.py").read_text(encoding="utf-8"))
    found = {}
    nodes = [
        n
        for node in tree.body
        for n in (node.body if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING" else [node])
    ]
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            base = (
                importlib.util.resolve_name("." * node.level + (node.module or ""), name)
                if node.level
                else node.module or ""
            )
            for alias in node.names:
                found[alias.asname or alias.name] = base
    return found


def _where(module, name: str, source: str | None) -> str:
    """The cross-reference to where a public name of a package is documented: its defining module's page."""
    obj = getattr(module, name, None)
    owner = getattr(obj, "__module__", None) if inspect.isclass(obj) or inspect.isfunction(obj) else None
    home = owner if owner and _public(owner) else source if source and _public(source) else None
    if home is None or home == module.__name__:
        return "this page"
    if owner == home:
        return f":py:obj:`{obj.__qualname__} <{home}.{obj.__qualname__}>` in :py:mod:`{home}`"
    return f":py:mod:`{home}`"


def _public(dotted: str) -> bool:
    return dotted.startswith(PACKAGE) and not any(part.startswith("_") for part in dotted.split("."))


def _title(text: str) -> list[str]:
    return [text, "=" * len(text), ""]


def package_page(root: Path, name: str, modules: list[str]) -> str:
    """A package: its docstring and what it defines itself, its public names with where each is documented, its
    modules."""
    module = importlib.import_module(name)
    children = [m for m in modules if m.rpartition(".")[0] == name]
    exported = list(getattr(module, "__all__", []))
    sources = _sources(root, name)
    own = [n for n in exported if n not in sources]
    lines = _title(name) + [f".. automodule:: {name}"]
    lines += [f"   :members: {', '.join(own)}", "   :undoc-members:", ""] if own else ["   :no-members:", ""]
    if exported:
        lines += [
            "Public names",
            "------------",
            "",
            f"``from {name} import ...`` (its ``__all__``):",
            "",
            ".. list-table::",
            "   :header-rows: 1",
            "",
            "   * - name",
            "     - documented at",
        ]
        for n in exported:
            lines += [f"   * - ``{n}``", f"     - {_where(module, n, sources.get(n))}"]
        lines.append("")
    if children:
        lines += ["Modules", "-------", "", ".. toctree::", "   :maxdepth: 1", ""]
        lines += [f"   {c}" for c in children]
        lines.append("")
    return "\n".join(lines)


def _has_all(path: Path) -> bool:
    """Whether a module assigns ``__all__`` (read from its source: importing it is autodoc's job)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, (ast.Assign, ast.AnnAssign))
        and any(
            isinstance(t, ast.Name) and t.id == "__all__"
            for t in getattr(node, "targets", [getattr(node, "target", None)])
        )
        for node in tree.body
    )


def module_page(root: Path, name: str) -> str:
    """A module: every member it lists in ``__all__`` (documented or not), else every documented member."""
    options = ["   :members:"] + (
        ["   :undoc-members:"] if _has_all(root.joinpath(*name.split(".")).with_suffix(".py")) else []
    )
    return "\n".join(_title(name) + [f".. automodule:: {name}"] + options + [""])


def write(docs: Path, root: Path | None = None) -> list[str]:
    """Write the pages into ``docs``'s API folder (only those whose text changed, so that an unchanged build stays
    incremental) and remove the pages of modules that are gone. ``root`` is the repository (default: the folder
    above ``docs``). Returns the modules."""
    root = root or docs.parent
    out = docs / OUT
    out.mkdir(parents=True, exist_ok=True)
    modules = public_modules(root)
    wanted = {}
    for name in modules:
        wanted[f"{name}.rst"] = package_page(root, name, modules) if is_package(root, name) else module_page(root, name)
    for old in out.glob("*.*"):
        if old.name not in wanted:
            old.unlink()
    for file, text in wanted.items():
        path = out / file
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    return modules
