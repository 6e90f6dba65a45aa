"""The command-line reference, generated from the argument parser (``codec.cli.build_parser``) each time the
docs are built: every command, subcommand, argument and option, with its help text, choices and default.
A page holds it with a fenced directive expanded before MyST reads the page::

    ```{cli-reference}
    ```

Help texts are plain text: they are escaped here, so nothing in them is read as markup (only backquoted
words show as code, as in the terminal they are meant to)."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

DIRECTIVE = re.compile(r"^```\{cli-reference\}[ \t]*\n```[ \t]*$", re.MULTILINE)
WIDTH = "88"  # usage lines are wrapped as in a terminal this wide, whatever the building machine's


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """(command words, parser, one-line help) of the parser and of every subcommand under it, depth first."""
    yield path, parser, ""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                for words, p, h in commands(sub, path + (name,)):
                    yield words, p, h or (helps.get(name, "") if words == path + (name,) else "")


def escape(text: str) -> str:
    """Plain text as Markdown that shows it as it is (backquoted words stay code)."""
    text = re.sub(r"([\\*_\[\]<>{}|$])", r"\\\1", text)
    return re.sub(r"^([#+\-=]|\d+[.)])", r"\\\1", text)


def _paragraphs(text: str) -> list[str]:
    """A help or description text as Markdown blocks: indented paragraphs (examples) as code."""
    out = []
    for block in re.split(r"\n\s*\n", text.strip("\n")):
        lines = block.splitlines()
        if not any(line.strip() for line in lines):
            continue
        if all(line.startswith((" ", "\t")) for line in lines if line.strip()):
            out.append("```text\n" + "\n".join(line.strip() for line in lines) + "\n```")
        else:
            out.append(escape(" ".join(line.strip() for line in lines)))
    return out


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        name = action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    elif action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        name = "{" + ",".join(map(str, action.choices)) + "}"
    else:
        name = action.dest if not action.option_strings else action.dest.upper()
    return {"?": f"[{name}]", "*": f"[{name} ...]", "+": f"{name} [{name} ...]"}.get(action.nargs, name)


def invocation(action: argparse.Action) -> str:
    """How the argument is written: ``--max-hole-bytes N``, ``-h, --help``, ``FILE``."""
    if not action.option_strings:
        return _metavar(action)
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    return ", ".join(action.option_strings) + " " + _metavar(action)


def _help(action: argparse.Action, prog: str) -> str:
    text = action.help or ""
    if "%" in text:
        params = {k: v for k, v in vars(action).items() if v is not argparse.SUPPRESS}
        params["prog"] = prog
        if params.get("choices") is not None:
            params["choices"] = ", ".join(map(str, params["choices"]))
        try:
            text = text % params
        except (KeyError, TypeError, ValueError):
            pass
    return text


def _details(action: argparse.Action) -> list[str]:
    notes = []
    if action.required and action.option_strings:
        notes.append("required")
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        notes.append("one of " + ", ".join(f"`{c}`" for c in action.choices))
    default = action.default
    if (
        default not in (None, False, argparse.SUPPRESS, [], ())
        and action.nargs != 0
        and "default" not in (action.help or "").lower()
    ):
        notes.append(f"default `{default}`")
    return notes


@contextmanager
def _columns():
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def anchor(words: tuple[str, ...]) -> str:
    """The heading anchor of a command's section (as MyST makes it from the heading)."""
    return "-".join(("rebalance-codec",) + words)


def render(parser: argparse.ArgumentParser) -> str:
    """The reference as Markdown: one section per command, its usage, then each argument."""
    out = []
    with _columns():
        for words, p, summary in commands(parser):
            level = "#" * min(6, 2 + len(words))
            out.append(f"{level} {' '.join(('rebalance-codec',) + words)}\n")
            if summary:
                out.append(f"*{escape(summary)}*\n")
            out.extend(f"{block}\n" for block in _paragraphs(p.description or ""))
            out.append("```text\n" + p.format_usage().strip() + "\n```\n")
            for action in p._actions:
                if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
                    continue
                if isinstance(action, argparse._SubParsersAction):
                    names = ", ".join(f"[{n}](#{anchor(words + (n,))})" for n in action.choices)
                    out.append(f"`{invocation(action)}`\n: {names}\n")
                    continue
                text = escape(" ".join(_help(action, p.prog).split()))
                extra = "; ".join(_details(action))
                text = f"{text} ({extra})" if text and extra else text or extra[:1].upper() + extra[1:] or "\\-"
                out.append(f"`{invocation(action)}`\n: {text}\n")
            out.extend(f"{block}\n" for block in _paragraphs(p.epilog or ""))
    return "\n".join(out)


def expand(text: str) -> str:
    """``text`` with the ``cli-reference`` directive replaced by the reference."""
    if not DIRECTIVE.search(text):
        return text
    from codec.cli import build_parser

    return DIRECTIVE.sub(lambda m: render(build_parser()), text)
