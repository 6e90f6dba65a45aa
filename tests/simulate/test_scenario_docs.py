"""The scenario format documented in the simulator guide (issue #46: ``simulate --help`` sent people to a source
file): its example runs through the parser, and its table names every top-level key the parser takes, no more."""

from __future__ import annotations

import json
import re

import pytest

from codec.simulate.consumer import parse_consumer_scenario, simulate_consumer
from codec.simulate.scenario import ScenarioError, parse_scenario
from tests.conftest import ROOT

PAGE = (ROOT / "docs" / "guides" / "simulator.md").read_text()
SECTION = PAGE[PAGE.index("### Scenario files") : PAGE.index("## Consumer groups")]
EXAMPLE = json.loads(re.search(r"```json\n(.*?)```", SECTION, re.S).group(1))
TABLE_KEYS = {k for row in re.findall(r"(?m)^\| (`[^|]+`) \|", SECTION) for k in re.findall(r"`(\w+)`", row)}
CONSUMER = PAGE[PAGE.index("### Consumer group scenario files") :]
CONSUMER = CONSUMER[: CONSUMER.index("\n## ")]
CONSUMER_EXAMPLE = json.loads(re.search(r"```json\n(.*?)```", CONSUMER, re.S).group(1))
CONSUMER_KEYS = {k for row in re.findall(r"(?m)^\| (`[^|]+`) \|", CONSUMER) for k in re.findall(r"`(\w+)`", row)}


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


def test_the_consumer_group_example_parses_and_runs():
    """The consumer group section (issue #44): its example runs under every protocol and its table names exactly the
    top-level keys the parser takes."""
    sc = parse_consumer_scenario(CONSUMER_EXAMPLE)
    assert sc.name == "consumer-scale-out" and [e.kind for e in sc.events] == ["start", "subscribe"]
    for p in sc.protocols:
        assert simulate_consumer(sc, p, keep_frames=False).metrics["all_partitions_owned_at_end"]
    accepted = set()
    for key in CONSUMER_KEYS | {"nonsense_key"}:
        try:
            parse_consumer_scenario({**CONSUMER_EXAMPLE, key: CONSUMER_EXAMPLE.get(key, PROBE.get(key))})
        except ScenarioError as e:
            if "unknown key" in str(e):
                continue
        accepted.add(key)
    assert accepted == CONSUMER_KEYS


PROBE = {"kind": "consumer", "partition_racks": {"orders": [["a"]] * 12}, "protocols": ["eager"], "configs": {}}


@pytest.mark.parametrize("key", ["configs", "group", "state"])
@pytest.mark.parametrize(("value", "named"), [(None, "null"), ([1], "a list"), ("x", "a string"), (3, "a number")])
def test_a_settings_block_that_is_not_an_object_is_one_line_naming_it(key, value, named):
    # a Streams scenario's settings blocks are objects; anything else is named, with what it was, not a Python call
    with pytest.raises(ScenarioError) as e:
        parse_scenario({"name": "x", key: value, "instances": [{"name": "a"}]})
    assert str(e.value) == f"{key} must be a JSON object, not {named}"
