"""The scenario format documented in the simulator guide (issue #46: ``simulate --help`` sent people to a source
file): its example runs through the parser, and its table names every top-level key the parser takes, no more."""

from __future__ import annotations

import json
import re

import pytest

from codec.simulate.scenario import ScenarioError, parse_scenario
from tests.conftest import ROOT

PAGE = (ROOT / "docs" / "guides" / "simulator.md").read_text()
SECTION = PAGE[PAGE.index("### Scenario files") :]
EXAMPLE = json.loads(re.search(r"```json\n(.*?)```", SECTION, re.S).group(1))
TABLE_KEYS = {k for row in re.findall(r"(?m)^\| (`[^|]+`) \|", SECTION) for k in re.findall(r"`(\w+)`", row)}


def test_the_documented_example_parses():
    s = parse_scenario(EXAMPLE)
    assert s.name == "scale-out" and [e.kind for e in s.events] == ["start"]


def test_the_table_names_exactly_the_keys_the_parser_takes():
    accepted = set()
    for key in TABLE_KEYS | {"nonsense_key"}:
        try:
            parse_scenario({**EXAMPLE, key: EXAMPLE.get(key)})
        except ScenarioError as e:
            if "unknown key" in str(e):
                continue
        accepted.add(key)
    assert accepted == TABLE_KEYS
    with pytest.raises(ScenarioError, match="unknown key"):
        parse_scenario({**EXAMPLE, "nonsense_key": 1})
