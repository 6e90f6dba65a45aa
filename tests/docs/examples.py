"""The examples of the docs pages, as the tests run them: each page's Markdown as the site shows it (transclusions
and generated parts in place, ``docs/_ext/rcdocs``), its fenced blocks, and what each block asks for
(docs/about.md, "How the examples are checked")."""

from __future__ import annotations

import difflib
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import ROOT

DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
import rcdocs  # noqa: E402

SHELL = {"console", "sh", "bash", "shell"}
PYTHON = {"python", "pycon", "py"}
JAVASCRIPT = {"javascript", "js"}
FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)$")
DIRECTIVE = re.compile(r"^<!-- docs-test: (?:file (?P<file>\S+)|slow: (?P<slow>.+?)|not run: (?P<not_run>.+?)) -->$")
#: what the page commands find in their folder: the repository's parts the examples read
LINKED = ("codec", "vectors", "schemas", "bench")


@dataclass
class Block:
    page: str
    line: int  # of the opening fence, in the page as shown (after transclusion)
    info: str
    text: str
    file: str | None = None
    slow: str | None = None
    not_run: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line} ({self.info or 'no language'} block)"


@dataclass
class Command:
    line: str
    expected: list[str] = field(default_factory=list)


def pages() -> list[str]:
    """Every Markdown page of the site (the generated API pages are reStructuredText and hold no examples)."""
    return sorted(
        p.relative_to(DOCS).as_posix()
        for p in DOCS.rglob("*.md")
        if "_build" not in p.parts and not p.relative_to(DOCS).as_posix().startswith("reference/api/")
    )


def source(page: str) -> str:
    return rcdocs.page_source(DOCS, page)[0]


def blocks(page: str, text: str | None = None) -> list[Block]:
    """The fenced blocks of a page, each with the ``docs-test`` comment on the line before it, if any."""
    lines = (source(page) if text is None else text).splitlines()
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].startswith("<!-- docs-test:") and not DIRECTIVE.match(lines[i]):
                raise AssertionError(f"{page}:{i + 1}: a docs-test comment this runner does not know: {lines[i]}")
            i += 1
            continue
        fence, info = m.group("fence"), m.group("info").strip()
        end = next(
            (
                j
                for j in range(i + 1, len(lines))
                if lines[j].startswith(fence[0] * len(fence)) and not lines[j].strip(fence[0]).strip()
            ),
            None,
        )
        if end is None:
            raise AssertionError(f"{page}:{i + 1}: a code block that is never closed")
        directive = DIRECTIVE.match(lines[i - 1]) if i else None
        found.append(
            Block(
                page,
                i + 1,
                info.split()[0] if info else "",
                "\n".join(lines[i + 1 : end]) + "\n",
                **({k: v for k, v in directive.groupdict().items() if v} if directive else {}),
            )
        )
        i = end + 1
    return found


def session(block: Block) -> list[Command]:
    """A shell block's ``$`` commands (a line ending in a backslash goes on) and the output shown after each."""
    commands: list[Command] = []
    lines = block.text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            cmd = line[2:]
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd + "\n" + lines[i]
            commands.append(Command(cmd))
        elif commands:
            commands[-1].expected.append(line)
        elif line.strip():
            raise AssertionError(f"{block.where}: output before any command: {line!r}")
        i += 1
    return commands


def is_session(block: Block) -> bool:
    return block.info in SHELL and any(line.startswith("$ ") for line in block.text.splitlines())


def command_lines(block: Block) -> list[str]:
    """The command lines of a block that does not run (continuations joined, comments and prompts dropped)."""
    out, current = [], ""
    for line in block.text.splitlines():
        line = line[2:] if line.startswith("$ ") else line
        current += line.rstrip("\\").strip() + " " if line.rstrip().endswith("\\") else line.strip()
        if not line.rstrip().endswith("\\"):
            if current and not current.startswith("#"):
                out.append(current)
            current = ""
    return out


def cli_words(line: str) -> list[str] | None:
    """The arguments of a ``rebalance-codec`` command on a line (also ``.venv/bin/rebalance-codec``), or None."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return None
    for i, word in enumerate(words):
        if os.path.basename(word) == "rebalance-codec":
            return words[i + 1 :]
    return None


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether the output matches what the page shows: line by line (trailing blanks and blank lines at the end
    ignored), a line ``...`` standing for any number of lines."""
    want = _trim([line.rstrip() for line in expected])
    got = _trim([line.rstrip() for line in actual])

    def go(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i].strip() == "...":
            return any(go(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and want[i] == got[j] and go(i + 1, j + 1)

    return go(0, 0)


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1]:
        lines.pop()
    return lines


def workdir(path: Path) -> Path:
    """A fresh folder holding the repository's parts the examples read (as a clone's root does)."""
    for name in LINKED:
        (path / name).symlink_to(ROOT / name, target_is_directory=True)
    return path


def environment() -> dict[str, str]:
    """The commands' environment: this interpreter's scripts first on PATH (``rebalance-codec``, ``python``),
    output unbuffered so that standard output and error interleave as in a terminal."""
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "PYTHONUNBUFFERED": "1",
        "COLUMNS": "120",
    }


def run(
    command: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=environment() if env is None else env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        check=False,
    )


def check_session(block: Block, cwd: Path, env: dict[str, str] | None = None) -> None:
    """Run a session block's commands in order in ``cwd`` (``env``: the commands' environment, default
    :func:`environment`), each to exit 0 and print what the page shows after it."""
    for cmd in session(block):
        p = run(cmd.line, cwd, env=env)
        got = p.stdout.splitlines()
        assert p.returncode == 0, f"{block.where}: `{cmd.line}` exited {p.returncode}:\n{p.stdout[-3000:]}"
        if cmd.expected:
            assert matches(cmd.expected, got), f"{block.where}: `{cmd.line}` printed\n" + "\n".join(
                difflib.unified_diff(cmd.expected, got, "shown", "printed", lineterm="")
            )
