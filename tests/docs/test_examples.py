"""Every command and code example of the docs runs as written, and shows what it prints (docs/about.md, "How
the examples are checked"). Each page's examples run in order in a fresh folder, as a reader would type them;
the Spark pipeline's run (about 45 s) is in the slow run, and its summary is checked in the default run by
tests/pipeline/test_job.py against the same job run in-process."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from codec.cli import build_parser
from tests.conftest import ROOT

from .examples import (
    JAVASCRIPT,
    PYTHON,
    SHELL,
    Block,
    blocks,
    check_session,
    cli_words,
    command_lines,
    environment,
    is_session,
    matches,
    pages,
    workdir,
)

PAGES = [p for p in pages() if blocks(p)]


def _run_block(block: Block, cwd, slow: bool, doctests: list[str] | None = None) -> None:
    if block.file:
        (cwd / block.file).write_text(block.text, encoding="utf-8")
        return
    if block.not_run:
        _parses(block)
        return
    if block.slow and not slow:
        return
    if is_session(block):
        check_session(block, cwd)
    elif block.info in SHELL:
        raise AssertionError(
            f"{block.where}: commands without `$ ` prompts: show them as a session, or say why "
            "they do not run (<!-- docs-test: not run: REASON -->)"
        )
    elif block.info in PYTHON:
        _python(block, cwd, [] if doctests is None else doctests)
    elif block.info in JAVASCRIPT:
        if shutil.which("node") is None:
            return
        path = cwd / f"example-{block.line}.js"
        path.write_text(block.text, encoding="utf-8")
        p = subprocess.run(
            ["node", str(path)],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert p.returncode == 0, f"{block.where}: {p.stderr[-2000:]}"


def _python(block: Block, cwd, doctests: list[str]) -> None:
    """A doctest (``>>>``) or a script, run in its own interpreter in the page's folder (stdin empty). A page's
    doctests are one session, as in one interpreter: each runs after the page's doctests before it."""
    doctest = ">>>" in block.text
    path = cwd / f"example-{block.line}.{'txt' if doctest else 'py'}"
    if doctest:
        doctests.append(block.text)
    path.write_text("\n".join(doctests) if doctest else block.text, encoding="utf-8")
    args = ["-m", "doctest", "-o", "ELLIPSIS", str(path)] if path.suffix == ".txt" else [str(path)]
    p = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=environment(),
        timeout=120,
        check=False,
    )
    assert p.returncode == 0, f"{block.where}:\n{p.stdout[-3000:]}{p.stderr[-3000:]}"


def _parses(block: Block) -> None:
    """A block that does not run: each rebalance-codec command in it is one the command line takes."""
    parser = build_parser()
    for line in command_lines(block):
        words = cli_words(line)
        if words is None:
            continue
        try:
            parser.parse_args(words)
        except SystemExit as e:
            raise AssertionError(f"{block.where}: the command line does not take `{line}`") from e


@pytest.mark.parametrize("page", PAGES)
def test_the_page_examples_run_as_shown(page, tmp_path):
    cwd, doctests = workdir(tmp_path), []
    for block in blocks(page):
        _run_block(block, cwd, slow=False, doctests=doctests)


def test_the_readme_examples_run_as_shown(tmp_path):
    """README.md is the first page anyone reads: its examples run as the site's do, from a fresh folder."""
    readme = blocks("../README.md", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert readme, "README.md holds no example"
    cwd, doctests = workdir(tmp_path), []
    for block in readme:
        _run_block(block, cwd, slow=False, doctests=doctests)
    assert doctests, "README.md's Python example is a doctest"


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if any(b.slow for b in blocks(p))])
def test_the_slow_examples_run_as_shown(page, tmp_path):
    pytest.importorskip("pyspark")
    cwd, doctests = workdir(tmp_path), []
    for block in blocks(page):
        _run_block(block, cwd, slow=True, doctests=doctests)


def test_every_shell_and_python_block_is_checked():
    """No example escapes: every shell block is a session or says why it does not run, and nothing is marked
    slow that the slow run would not reach."""
    for page in PAGES:
        for block in blocks(page):
            if block.info in SHELL and not (is_session(block) or block.not_run or block.file):
                raise AssertionError(f"{block.where}: neither a session nor marked as not run")
            assert not (block.slow and not is_session(block)), f"{block.where}: only sessions run in the slow run"


def test_the_runner_can_fail(tmp_path):
    """The checks are no tautology: a wrong output line, a failing command, a command the parser refuses."""
    cwd = workdir(tmp_path)
    page = "x.md"
    text = (
        "```console\n$ rebalance-codec kinds | head -1\nsubscription-info        a wrong summary\n```\n"
        "```console\n$ rebalance-codec decode --kind nope 00\n```\n"
        "<!-- docs-test: not run: a test -->\n```sh\nrebalance-codec decode --no-such-option\n```\n"
    )
    wrong, failing, refused = blocks(page, text)
    for block in (wrong, failing, refused):
        with pytest.raises(AssertionError):
            _run_block(block, cwd, slow=False)
    assert matches(["a", "...", "z"], ["a", "b", "c", "z"]) and not matches(["a", "...", "z"], ["a", "b"])
