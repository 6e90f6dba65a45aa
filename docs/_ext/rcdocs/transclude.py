"""Transclusion: a docs page shows a file of the repository, or one section of it, as it is there.

The long Markdown files that tests hold (``vectors/README.md``, ``vectors/ADAPTERS.md``, ``bench/README.md``,
``schemas/README.md``) and the sections of ``README.md`` stay where they are, the one source of what they say; a
page names them with a fenced directive that is expanded before MyST reads the page::

    ```{transclude} vectors/README.md
    ```

    ```{transclude} README.md
    :section: Kafka Connect
    :level: 1
    :no-heading:
    ```

The path is relative to the repository's root. ``:section:`` takes the part of the file under the heading with
that text, down to the next heading of the same or a higher level; ``:level:`` is the level its heading gets
(the headings inside move with it), ``:no-heading:`` leaves the heading line out (the page has its own title),
``:until:`` ends the part before the heading with that text (a subsection shown elsewhere).

Links in the transcluded text are written for the file where it lives. Each relative link is resolved there and
pointed at the docs page that transcludes (or ``literalinclude``\\ s) its target whole; an image is pointed at the
file itself. A link whose target no page shows is left as it is, so that the build (warnings as errors) names it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

DIRECTIVE = re.compile(
    r"^```\{transclude\}[ \t]+(?P<path>\S+)[ \t]*\n(?P<options>(?::[^\n]*\n)*)```[ \t]*$", re.MULTILINE
)
LITERALINCLUDE = re.compile(r"^(?:```|:::)\{literalinclude\}[ \t]+(?P<path>\S+)", re.MULTILINE)
FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^()\s]+)\)")
IMAGE_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg", ".gif")


class TranscludeError(Exception):
    """A transclusion that cannot be made: its file or section is not there, or an option is not known."""


@dataclass
class Site:
    """The docs pages and which repository files each shows whole (a link to such a file goes to its page)."""

    docs: Path
    root: Path
    shown: dict[str, str] = field(default_factory=dict)  # repository path -> docs page (relative to docs/)

    @classmethod
    def scan(cls, docs: Path) -> "Site":
        site = cls(docs=docs, root=docs.parent)
        for page in sorted(docs.rglob("*.md")):
            if "_build" in page.parts:
                continue
            rel = page.relative_to(docs).as_posix()
            text = page.read_text(encoding="utf-8")
            for m in DIRECTIVE.finditer(text):
                if "section" not in _options(m.group("options")):
                    site.shown.setdefault(m.group("path"), rel)
            for m in LITERALINCLUDE.finditer(text):
                target = (page.parent / m.group("path")).resolve()
                if target.is_relative_to(site.root):
                    site.shown.setdefault(target.relative_to(site.root).as_posix(), rel)
        return site

    def page_for(self, repo_path: str) -> str | None:
        """The page showing ``repo_path`` whole, or, for a folder, the first page showing a file inside it."""
        repo_path = repo_path.rstrip("/")
        if repo_path in self.shown:
            return self.shown[repo_path]
        inside = sorted(p for p in self.shown if p.startswith(repo_path + "/"))
        return self.shown[inside[0]] if inside else None

    def expand(self, text: str, page: str) -> tuple[str, list[Path]]:
        """``text`` (the page ``page``, relative to docs/) with every transclusion replaced by what it shows,
        and the files it read."""
        read: list[Path] = []

        def one(m: re.Match) -> str:
            path = self.root / m.group("path")
            if not path.is_file():
                raise TranscludeError(f"{page}: transclude {m.group('path')}: no such file")
            read.append(path)
            body = take(path.read_text(encoding="utf-8"), _options(m.group("options")), f"{page}: {m.group('path')}")
            return self.relink(body, m.group("path"), page)

        return DIRECTIVE.sub(one, text), read

    def relink(self, text: str, source: str, page: str) -> str:
        """Links of ``text`` (from the repository file ``source``) made to work from the docs page ``page``."""
        page_dir = PurePosixPath(page).parent
        source_dir = PurePosixPath(source).parent

        def one(m: re.Match) -> str:
            bang, label, target = m.groups()
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
                return m.group(0)
            path, _, anchor = target.partition("#")
            repo_path = os.path.normpath(source_dir / path).replace(os.sep, "/")
            if bang or repo_path.endswith(IMAGE_SUFFIXES):
                new = os.path.relpath(self.root / repo_path, self.docs / page_dir)
            elif (self.root / repo_path).resolve().is_relative_to(self.docs.resolve()) and repo_path.endswith(".md"):
                # a docs page itself: the link goes to that page
                target_page = (self.root / repo_path).resolve().relative_to(self.docs.resolve()).as_posix()
                new = os.path.relpath(self.docs / target_page, self.docs / page_dir) if target_page != page else ""
            else:
                shown = self.page_for(repo_path)
                if shown is None:
                    return m.group(0)
                new = os.path.relpath(self.docs / shown, self.docs / page_dir) if shown != page else ""
            new = new.replace(os.sep, "/") + (f"#{anchor}" if anchor else "")
            return f"{bang}[{label}]({new or '#'})"

        return _outside_code(text, lambda chunk: LINK.sub(one, chunk))


def _options(block: str) -> dict[str, str]:
    options = {}
    for line in block.splitlines():
        name, _, value = line[1:].partition(":")
        options[name.strip()] = value.strip().strip('"')
    unknown = set(options) - {"section", "level", "no-heading", "until"}
    if unknown:
        raise TranscludeError(f"transclude: unknown option {sorted(unknown)}")
    return options


def _in_code(lines: list[str]) -> list[bool]:
    """For each Markdown line, whether it belongs to a fenced code block (its fences included)."""
    marks, fence = [], None
    for line in lines:
        m = FENCE.match(line)
        if fence is None:
            marks.append(bool(m))
            fence = m.group(1) if m else None
        else:
            marks.append(True)
            if (
                m
                and m.group(1)[0] == fence[0]
                and len(m.group(1)) >= len(fence)
                and not line.strip()[len(m.group(1)) :]
            ):
                fence = None
    return marks


def _outside_code(text: str, change) -> str:
    """``change`` applied to each run of Markdown ``text`` outside fenced code blocks."""
    lines = text.splitlines(keepends=True)
    out, chunk = [], []
    for line, code in zip(lines, _in_code(lines)):
        if code:
            out += [change("".join(chunk)), line]
            chunk = []
        else:
            chunk.append(line)
    return "".join(out) + change("".join(chunk))


def headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, text) of each Markdown heading outside fenced code blocks."""
    return [
        (i, len(h.group(1)), h.group(2))
        for i, (line, code) in enumerate(zip(lines, _in_code(lines)))
        if not code and (h := HEADING.match(line))
    ]


def take(text: str, options: dict[str, str], where: str) -> str:
    """The part of ``text`` the options name, its headings moved to the level asked for."""
    lines = text.splitlines()
    marks = headings(lines)
    section = options.get("section")
    if section is None:
        start, end, level = 0, len(lines), None
    else:
        found = [(i, lvl) for i, lvl, t in marks if t == section]
        if len(found) != 1:
            raise TranscludeError(f"{where}: {len(found)} headings read {section!r} (one is needed)")
        start, level = found[0]
        end = next((i for i, lvl, _ in marks if i > start and lvl <= level), len(lines))
    if "until" in options:
        stop = [i for i, _, t in marks if t == options["until"] and start < i < end]
        if len(stop) != 1:
            raise TranscludeError(f"{where}: {len(stop)} headings read {options['until']!r} inside (one is needed)")
        end = stop[0]
    shift = int(options["level"]) - level if "level" in options and level is not None else 0
    if "no-heading" in options:
        if section is None:
            raise TranscludeError(f"{where}: :no-heading: needs :section:")
        start += 1
    inside = {i: lvl for i, lvl, _ in marks if start <= i < end}
    out = []
    for i in range(start, end):
        line = lines[i]
        if i in inside:
            new = inside[i] + shift
            if not 1 <= new <= 6:
                raise TranscludeError(f"{where}: a heading would move to level {new}")
            line = "#" * new + line[inside[i] :]
        out.append(line)
    return "\n".join(out).strip("\n") + "\n"
