"""The docs' own Sphinx extension: transclusion of the repository's Markdown (:mod:`rcdocs.transclude`), the
CLI reference from the argument parser (:mod:`rcdocs.cliref`) and the Python API pages
(:mod:`rcdocs.apipages`). Each part is plain Python that the tests call too."""

from __future__ import annotations

from pathlib import Path

from . import apipages, cliref, transclude


def page_source(docs: Path, page: str, site: transclude.Site | None = None) -> tuple[str, list[Path]]:
    """The Markdown MyST reads for ``page`` (relative to docs/): its text with every generated and
    transcluded part in place, and the repository files it read."""
    site = site or transclude.Site.scan(docs)
    text = (docs / page).read_text(encoding="utf-8")
    text, read = site.expand(text, page)
    return cliref.expand(text), read


def _builder_inited(app) -> None:
    docs = Path(app.srcdir)
    apipages.write(docs)
    app.rcdocs_site = transclude.Site.scan(docs)


def _source_read(app, docname: str, source: list[str]) -> None:
    page = docname + ".md"
    site = app.rcdocs_site
    text, read = site.expand(source[0], page)
    for path in read:
        app.env.note_dependency(str(path))
    source[0] = cliref.expand(text)


def setup(app):
    from pygments.lexers import JsonLexer, TextLexer

    # the info strings of vectors/ADAPTERS.md's examples, which its test reads by them
    for name, lexer in (("protocol", TextLexer), ("expect", TextLexer), ("capabilities", JsonLexer)):
        app.add_lexer(name, lexer)
    app.connect("builder-inited", _builder_inited)
    app.connect("source-read", _source_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
