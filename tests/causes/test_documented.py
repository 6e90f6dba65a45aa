"""The captures guide documents the closed vocabulary and the detectors: each kind and each check once, in the
guide's tables, with a worked example for each kind (its name in bold, or in a command's output)."""

from __future__ import annotations

import re

from codec.causes import CONFIDENCES, KINDS
from codec.causes.detectors import CHECKS
from tests.conftest import ROOT

GUIDE = ROOT / "docs" / "guides" / "captures.md"


def _section(text: str, title: str) -> str:
    start = text.index(f"### {title}")
    end = text.find("\n### ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _table_keys(section: str) -> list[str]:
    return re.findall(r"^\| `([a-z-]+)` \|", section, re.M)


def test_the_guide_lists_every_kind_and_every_check_once():
    text = GUIDE.read_text(encoding="utf-8")
    assert _table_keys(_section(text, "The vocabulary")) == list(KINDS)
    assert _table_keys(_section(text, "Loops and storms")) == list(CHECKS)
    assert all(f"`{c}`" in _section(text, "The vocabulary") for c in CONFIDENCES)


def test_the_guide_works_an_example_of_each_kind():
    examples = _section(GUIDE.read_text(encoding="utf-8"), "One worked example per cause")
    missing = [k for k in KINDS if f"**{k}**" not in examples and not re.search(rf"\b{re.escape(k)}\b", examples)]
    assert missing == []
