"""The docs' own Sphinx extension: transclusion of the repository's Markdown (:mod:`rcdocs.transclude`), the
CLI reference from the argument parser (:mod:`rcdocs.cliref`) and the Python API pages
(:mod:`rcdocs.apipages`). Each part is plain Python that the tests call too."""

from __future__ import annotations

import importlib
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


def _name_as_python_reads_it(app, doctree) -> None:
    """A short name in an annotation (``Config``, ``Changes``) is resolved by Sphinx against every documented object
    whose name ends with it, and two modules may document one each (a class and its re-export, or two classes of one
    name): it is resolved here as Python resolves it, the object the module's own namespace binds to that name,
    named where it is defined."""
    from sphinx.addnodes import pending_xref

    for node in doctree.findall(pending_xref):
        target, modname = node.get("reftarget", ""), node.get("py:module")
        if node.get("refdomain") != "py" or not modname or not target.isidentifier():
            continue
        try:
            obj = getattr(importlib.import_module(modname), target)
        except (ImportError, AttributeError):
            continue
        home, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if isinstance(home, str) and isinstance(qualname, str) and home.startswith("codec.") and home != modname:
            node["reftarget"] = f"{home}.{qualname}"


def setup(app):
    from pygments.lexers import JsonLexer, TextLexer

    # the info strings of vectors/ADAPTERS.md's examples, which its test reads by them
    for name, lexer in (("protocol", TextLexer), ("expect", TextLexer), ("capabilities", JsonLexer)):
        app.add_lexer(name, lexer)
    app.connect("builder-inited", _builder_inited)
    app.connect("source-read", _source_read)
    app.connect("doctree-read", _name_as_python_reads_it)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
