"""Transclusion (docs/_ext/rcdocs/transclude.py): a page shows a repository file, or a section of it, with its
links pointed at the pages that show their targets."""

from __future__ import annotations

import pytest

from .examples import DOCS, rcdocs, source

transclude = rcdocs.transclude


def test_links_between_transcluded_files_go_to_their_pages():
    guide = source("guides/gate-in-ci.md")  # vectors/ADAPTERS.md
    assert "](../reference/vectors.md#what-the-suite-holds)" in guide  # README.md#what-the-suite-holds
    assert "](../reference/adapters.md)" in guide  # adapters/kafka-python/ (a folder: the page showing its files)
    assert "](#declining-what-you-do-not-implement)" in guide  # an anchor of the file itself stays
    assert "](../guides/gate-in-ci.md#known-differences-expectations-files)" in source("reference/vectors.md")


def test_a_section_moves_to_the_level_asked_and_stops_where_told():
    text = "# T\n## A\nintro\n```sh\n# not a heading\n```\n### A.1\nx\n### A.2\ny\n## B\nz\n"
    got = transclude.take(text, {"section": "A", "level": "1", "no-heading": "", "until": "A.2"}, "t")
    assert got == "intro\n```sh\n# not a heading\n```\n## A.1\nx\n"
    assert transclude.take(text, {"section": "B", "level": "3"}, "t") == "### B\nz\n"
    with pytest.raises(transclude.TranscludeError, match="0 headings read 'C'"):
        transclude.take(text, {"section": "C"}, "t")


def test_a_link_no_page_shows_is_left_for_the_build_to_name():
    site = transclude.Site.scan(DOCS)
    text = "[x](nowhere.md) [y](ADAPTERS.md) ![p](plots/a.png) [w](https://example.org/)"
    assert site.relink(text, "vectors/README.md", "guides/page.md") == (
        "[x](nowhere.md) [y](gate-in-ci.md) ![p](../../vectors/plots/a.png) [w](https://example.org/)"
    )


def test_a_link_to_a_docs_page_goes_to_that_page():
    """A repository file that links a docs page (vectors/README.md -> ../docs/reference/kafka-releases.md) keeps
    the link working where a page shows the file: to that page, relative to the showing page."""
    site = transclude.Site.scan(DOCS)
    text = "[r](../docs/reference/kafka-releases.md) [s](../docs/reference/kafka-releases.md#anchor)"
    assert site.relink(text, "vectors/README.md", "reference/vectors.md") == (
        "[r](kafka-releases.md) [s](kafka-releases.md#anchor)"
    )
    assert site.relink(text, "vectors/README.md", "guides/page.md") == (
        "[r](../reference/kafka-releases.md) [s](../reference/kafka-releases.md#anchor)"
    )
    assert "](kafka-releases.md)" in source("reference/vectors.md")
