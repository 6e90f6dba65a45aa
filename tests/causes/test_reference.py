"""The causes reference page (docs/reference/causes.md) lists every cause kind, every confidence and every
detector check with the rule the code states for it (codec.causes.vocabulary's KINDS and CONFIDENCES,
codec.causes.detectors' CHECKS and thresholds), in the code's order: the page is what the code says, kept in step.
Regenerate the tables with ``python -m tests.causes.test_reference > /dev/null`` (it rewrites the page's tables)."""

from __future__ import annotations

import inspect
import re
import sys

from codec.causes import CONFIDENCES, KINDS
from codec.causes.detectors import CHECKS, Detectors
from tests.conftest import ROOT

PAGE = ROOT / "docs" / "reference" / "causes.md"
START, END = "<!-- tables: generated from codec.causes -->", "<!-- end of the generated tables -->"


def tables() -> str:
    thresholds = {
        p.name: p.default for p in inspect.signature(Detectors.__init__).parameters.values() if p.kind == p.KEYWORD_ONLY
    }
    out = [START, "", "## Cause kinds", "", "| kind | evidence rule |", "| --- | --- |"]
    out += [f"| `{k}` | {v} |" for k, v in KINDS.items()]
    out += ["", "## Confidences", "", "| confidence | meaning |", "| --- | --- |"]
    out += [f"| `{k}` | {v} |" for k, v in CONFIDENCES.items()]
    out += ["", "## Detector checks", "", "| check | what it finds |", "| --- | --- |"]
    out += [f"| `{k}` | {v} |" for k, v in CHECKS.items()]
    out += ["", "Default thresholds (`codec.causes.detectors.Detectors`):", ""]
    out += [f"- `{k}` = {v:g}" for k, v in thresholds.items()]
    return "\n".join(out + ["", END])


def test_the_reference_page_is_what_the_code_says():
    text = PAGE.read_text(encoding="utf-8")
    got = text[text.index(START) : text.index(END) + len(END)]
    assert got == tables()
    assert re.findall(r"^\| `([a-z-]+)` \|", got, re.M) == [*KINDS, *CONFIDENCES, *CHECKS]


if __name__ == "__main__":
    text = PAGE.read_text(encoding="utf-8")
    PAGE.write_text(text[: text.index(START)] + tables() + text[text.index(END) + len(END) :], encoding="utf-8")
    sys.stdout.write(tables())
