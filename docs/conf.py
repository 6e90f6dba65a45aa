"""Sphinx configuration of the rebalance-codec documentation (``docs/``).

Built with ``sphinx-build -W --keep-going -b html docs docs/_build/html`` (warnings are errors; `.ci/run` does
it). The pages are Markdown (MyST); the Python API pages are generated from the package's docstrings, which
are reStructuredText, by autodoc; the CLI reference is generated from the argument parser. Why Sphinx:
docs/about.md."""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

project = "rebalance-codec"
author = "the rebalance-codec authors"
copyright = "the rebalance-codec authors; Apache-2.0"

extensions = [
    "sphinx.ext.autodoc",
    "myst_parser",
    "rcdocs",  # docs/_ext/rcdocs: transclusion of the repository's Markdown, the CLI and API references
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]
templates_path: list[str] = []

myst_enable_extensions = ["deflist", "colon_fence"]
myst_heading_anchors = 4  # GitHub's anchors (#known-differences-expectations-files) work as they do there

# The API pages: autodoc imports the modules. The pipeline's Spark job needs pyspark only when it runs (its Arrow
# decoder builds its types from pyarrow when imported: pyarrow is in the docs extra), so the docs build from the
# docs extra alone, as .ci/run builds them.
autodoc_mock_imports = ["pyspark"]
autodoc_default_options = {"show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True

html_theme = "furo"
html_title = "rebalance-codec"
html_static_path: list[str] = []
html_show_sourcelink = False
