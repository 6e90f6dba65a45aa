"""The generated references cover what they describe: every subcommand and option of the argument parser is in
the command-line reference under its command, and every public module of ``codec`` has an API page, reachable
from the package's page."""

from __future__ import annotations

import argparse
import ast
import pkgutil
import re
import subprocess
import sys

import pytest

import codec
from codec.cli import build_parser

from .examples import DOCS, rcdocs, source
from tests.conftest import ROOT


def _commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()):
    """(words, parser) of the parser and every subcommand under it, read from the parser itself."""
    yield words, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, words + (name,))


def _sections(page: str) -> dict[tuple[str, ...], str]:
    """The reference's text under each command heading."""
    parts = re.split(r"(?m)^#{2,6} rebalance-codec((?: [\w-]+)*)\n", page)
    return {tuple(parts[i].split()): parts[i + 1] for i in range(1, len(parts), 2)}


def missing(parser: argparse.ArgumentParser, page: str) -> list[str]:
    """What of the parser the reference page lacks: a command's section, or an option string or positional
    argument in it."""
    sections, lacks = _sections(page), []
    for words, p in _commands(parser):
        text = sections.get(words)
        if text is None:
            lacks.append(f"the section of `{' '.join(('rebalance-codec',) + words)}`")
            continue
        for action in p._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
                continue  # (-h/--help: argparse's own, on every command)
            names = action.option_strings or [action.metavar or action.dest]
            if isinstance(action, argparse._SubParsersAction):
                names = list(action.choices)
            for name in names:
                if not re.search(rf"(?<![\w-]){re.escape(str(name))}(?![\w-])", text):
                    lacks.append(f"{name} of `{' '.join(('rebalance-codec',) + words)}`")
    return lacks


def test_every_subcommand_and_option_is_in_the_cli_reference():
    page = source("reference/cli.md")
    parser = build_parser()
    assert len(list(_commands(parser))) > 15  # every command module registered (none left out by an import)
    assert missing(parser, page) == []


def test_every_option_says_in_help_what_it_does():
    # an option --help lists with no words (`--inputs INPUTS`, `--shared SHARED`) leaves the reader to the code
    bare = [
        f"{' '.join(('rebalance-codec',) + words)} {'/'.join(action.option_strings)}"
        for words, p in _commands(build_parser())
        for action in p._actions
        if action.option_strings and not action.help and not isinstance(action, argparse._HelpAction)
    ]
    assert bare == []


def rest_markup(parser: argparse.ArgumentParser) -> list[str]:
    """Every command whose --help shows reStructuredText markup (``x``, :mod:`y`) meant for the docs' renderer."""
    found = []
    for words, p in _commands(parser):
        text = p.format_help()
        if re.search(r"``|:(?:mod|func|class|meth|data|attr):`", text):
            found.append(" ".join(("rebalance-codec",) + words))
    return found


def test_help_texts_are_plain_text():
    # `simulate --help` printed its module docstring's ``--out`` and ``P.png`` (issue #46)
    assert rest_markup(build_parser()) == []
    assert rest_markup(argparse.ArgumentParser(description="writes ``out``")) == ["rebalance-codec"]


def test_the_cli_reference_check_can_fail():
    page = source("reference/cli.md")
    parser = build_parser()
    assert missing(parser, page.replace("--max-hole-bytes", "--max-gap-bytes")) == [
        "--max-hole-bytes of `rebalance-codec capture`"
    ]
    cut = re.sub(r"(?ms)^### rebalance-codec compat\n.*?(?=^### )", "", page)
    assert missing(parser, cut)[0] == "the section of `rebalance-codec compat`"


def _public_modules() -> set[str]:
    """Every public module of codec, found by Python's own package walk (a name part starting with ``_`` is
    private; ``codec.__main__`` is the CLI)."""
    found = {"codec"}
    for info in pkgutil.walk_packages(codec.__path__, "codec."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.add(info.name)
    return found


def test_every_public_module_has_an_api_page(tmp_path):
    docs = tmp_path / "docs"
    (docs / "reference").mkdir(parents=True)
    modules = rcdocs.apipages.write(docs, root=ROOT)
    pages = {p.stem: p.read_text(encoding="utf-8") for p in (docs / rcdocs.apipages.OUT).glob("*.rst")}
    assert set(modules) == set(pages) == _public_modules()
    for name, text in pages.items():
        assert f".. automodule:: {name}\n" in text, name
    # each module is in its package's table of contents, so the pages form one tree from codec's
    for name in pages:
        parent = name.rpartition(".")[0]
        if parent:
            assert f"\n   {name}\n" in pages[parent], f"{name} is not listed on {parent}'s page"
    assert "api/codec" in (DOCS / "reference" / "index.md").read_text(encoding="utf-8")


def test_a_packages_public_names_point_where_they_are_documented(tmp_path):
    """codec.streams' __all__, as its __init__ imports it: each class or function links to its defining module's
    page, each constant to its module."""
    page = rcdocs.apipages.package_page(ROOT, "codec.streams", sorted(_public_modules()))
    tree = ast.parse((ROOT / "codec" / "streams" / "__init__.py").read_text())
    exported = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "__all__"
    )
    for name in exported:
        assert f"* - ``{name}``" in page
    assert ":py:obj:`decode_subscription <codec.streams.subscription.decode_subscription>`" in page
    assert ":py:mod:`codec.streams.constants`" in page  # LATEST_SUPPORTED_VERSION and the other constants


@pytest.mark.slow
def test_the_site_builds_without_a_warning(tmp_path):
    """The whole site, as .ci/run builds it: warnings are errors (its own process, where the test run's own
    warnings filter does not apply to Sphinx's extensions)."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed")
    out = tmp_path / "html"
    p = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert p.returncode == 0, p.stderr[-5000:]
    assert (out / "reference" / "api" / "codec.streams.html").is_file()
