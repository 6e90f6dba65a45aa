"""The type check's scope and wiring. ``.ci/run`` and the pre-commit hook run mypy itself (about 20 seconds, and
mypy is in the lint extra, not the test one), so a test running it again would only repeat them; what they cannot
see is a package that escapes the check: every package and top-level module of ``codec`` is in pyproject.toml's
``[tool.mypy] files`` (or waiting in PENDING, by name, for a rewrite that brings it in), and no module outside
the list is silenced (``follow_imports``)."""

from __future__ import annotations

import fnmatch
import re
import tomllib

from tests.conftest import ROOT

# packages or modules still on their way into [tool.mypy] files (none since issue #32: every one is checked)
PENDING: set[str] = set()
DATA_PACKAGES = {"codec.schemas", "codec.vectors"}  # schemas/ and vectors/, shipped as packages: no code


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _checked_or_pending(packages: list[str], files: list[str], pending: set[str] = PENDING) -> list[str]:
    """What is wrong with the scope: a package neither checked nor pending, or both."""
    problems = []
    for package in packages:
        if package in DATA_PACKAGES:
            continue
        wheres = _top_level_modules() if package == "codec" else [package.replace(".", "/")]
        for where in wheres:
            checked = "codec" in files or any(where == f or where.startswith(f + "/") for f in files)
            waiting = any(fnmatch.fnmatch(where, p) for p in pending)
            if checked == waiting:
                problems.append(f"{where}: {'both checked and pending' if checked else 'neither checked nor pending'}")
    return problems


def _top_level_modules() -> list[str]:
    return sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "codec").glob("*.py"))


def test_every_package_is_type_checked_or_named_as_pending():
    config = _pyproject()
    files = config["tool"]["mypy"]["files"]
    packages = config["tool"]["setuptools"]["packages"]
    assert _checked_or_pending(packages, files) == []
    assert all((ROOT / f).is_dir() or (ROOT / f).is_file() for f in files), files
    # a new package, or a pending one that joins without leaving PENDING, is caught
    assert _checked_or_pending([*packages, "codec.newpackage"], files) == [
        "codec/newpackage: neither checked nor pending"
    ]
    assert _checked_or_pending(packages, [f for f in files if f != "codec/cli.py"]) == [
        "codec/cli.py: neither checked nor pending"
    ]
    assert _checked_or_pending(packages, files, {"codec/pipeline"}) == ["codec/pipeline: both checked and pending"]


def test_ci_and_pre_commit_run_the_pinned_mypy_over_the_configured_files():
    config = _pyproject()
    mypy = config["tool"]["mypy"]
    # missing imports are forgiven by name only (third-party modules without types), never globally
    assert "ignore_missing_imports" not in mypy
    # errors in a module reached from the list are reported, not followed silently
    assert "follow_imports" not in mypy
    assert all(
        o.get("ignore_missing_imports") and all(not m.startswith("codec") for m in o["module"])
        for o in mypy["overrides"]
    )
    assert any(re.fullmatch(r"mypy==[\d.]+", r) for r in config["project"]["optional-dependencies"]["lint"])
    # no file arguments: the list is pyproject's
    assert re.search(r"^\.venv/bin/mypy$", (ROOT / ".ci" / "run").read_text(encoding="utf-8"), re.M)
    hooks = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    hook = hooks.split("- id: mypy\n", 1)[1].split("- id:")[0]
    assert "entry: python -m mypy\n" in hook and "pass_filenames: false" in hook
