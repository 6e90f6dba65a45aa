"""Negotiation scenario files that do not fit their shape are one ScenarioError naming the place (issue #17):
a string where a list of protocol names goes is refused, not read as its letters; versions are JSON
integers; names are unique and referenced members exist. Expectations follow the module docstring of
codec.negotiation.scenario and Kafka's selection rules (codec.negotiation.protocol)."""

from __future__ import annotations

import pytest

from codec.negotiation.scenario import ScenarioError, run_protocol_phases, run_scenario


def _phases(*phases) -> dict:
    return {"kind": "protocol-selection", "phases": list(phases)}


@pytest.mark.parametrize(
    "spec,where",
    [
        (
            _phases({"A": "range", "B": ["range"]}),
            "phases[0].A: needs a list of protocol names, got a string ('range')",
        ),
        (_phases({"A": ["range", 1]}), "phases[0].A[1]: needs a protocol name"),
        (_phases({"A": None}), "phases[0].A: needs a list"),
        (_phases(["A"]), "phases[0]: needs an object"),
        (_phases({}), "phases[0]: a group needs at least one member"),
        ({"kind": "protocol-selection", "phases": {"A": ["x"]}}, "phases: needs a list, got an object"),
        ({"kind": "protocol-selection"}, "phases: missing"),
        ({"kind": "protocol-selection", "phases": [], "phase": []}, "scenario: unknown key 'phase'"),
        ({"kind": "protocol-selection", "name": 5, "phases": []}, "name: needs a string"),
    ],
)
def test_protocol_selection_refusals(spec, where):
    with pytest.raises(ScenarioError) as e:
        run_protocol_phases(spec)
    assert str(e.value).startswith(where), str(e.value)


def test_a_list_of_one_name_still_selects():
    # both members support only "range": it is the only candidate and gets both votes
    [phase] = run_protocol_phases(_phases({"A": ["range"], "B": ["range"]}))
    assert phase["protocol"] == "range" and phase["votes"] == {"range": 2} and phase["error"] is None


def test_an_empty_protocol_list_is_kafkas_error_not_ours():
    # Kafka's coordinator answers INCONSISTENT_GROUP_PROTOCOL (23) to a member without protocols
    [phase] = run_protocol_phases(_phases({"A": []}))
    assert phase["protocol"] is None and phase["error"].startswith("INCONSISTENT_GROUP_PROTOCOL (23)")


def _group(*members, **rest) -> dict:
    return {"members": list(members), **rest}


A7 = {"name": "A", "version": 7}


@pytest.mark.parametrize(
    "spec,where",
    [
        (_group({"name": "A", "version": "7"}), "members[0].version: needs a metadata version"),
        (_group({"name": "A", "version": 7.9}), "members[0].version"),
        (_group({"name": "A", "version": True}), "members[0].version"),
        (_group({"name": "A", "version": 0}), "members[0].version"),
        (_group({"name": "A", "version": 2**31}), "members[0].version"),
        (_group({"name": "A"}), 'members[0]: needs either "release" or "version"'),
        (
            _group({"name": "A", "version": 7, "release": "2.6"}),
            'members[0]: needs either "release" or "version", not both',
        ),
        (
            _group({"name": "A", "release": 2.6}),
            'members[0].release: a Kafka Streams release is a string ("2.4"), got a number (2.6)',
        ),
        (_group({"name": "A", "release": "9.9"}), "members[0].release: unknown Kafka Streams release '9.9'"),
        (
            _group({"name": "A", "version": 7, "upgradeFrom": "2.0"}),
            "members[0].upgradeFrom: only a member given by release",
        ),
        (_group({"name": "A", "release": "2.6", "upgradeFrom": 2.0}), "members[0].upgradeFrom: needs a release string"),
        (_group({"name": "A", "release": "2.6", "upgradeFrom": "3.9"}), "members[0].upgradeFrom: upgrade.from '3.9'"),
        (_group({"name": "A", "release": "2.9"}), "members[0].release: unknown Kafka Streams release '2.9'; known: "),
        (_group({"name": "", "version": 7}), "members[0].name: needs a non-empty name"),
        (_group({"name": ["A"], "version": 7}), "members[0].name: needs a non-empty name"),
        (_group(A7, {"name": "A", "version": 4}), "members[1].name: 'A' is already a member"),
        (_group(A7, {"name": "B", "verison": 4}), "members[1]: unknown key 'verison'"),
        (_group(), "members: a group needs at least one member"),
        ({"members": "AB"}, "members: needs a list, got a string ('AB')"),
        ({}, "members: missing"),
        (_group(A7, leader="Z"), "leader: 'Z' is not a member (A)"),
        (_group(A7, events=[{"restart": "Z", "version": 7}]), "events[0].restart: 'Z' is not a member (A)"),
        (_group(A7, events=[{"restart": "A"}]), "events[0]: needs either"),
        (_group(A7, events={"restart": "A"}), "events: needs a list"),
        (_group(A7, events=["A"]), "events[0]: needs a JSON object"),
        (_group(A7, kind="protocol-select"), "kind: unknown scenario kind 'protocol-select'"),
        ([A7], "scenario: needs a JSON object"),
    ],
)
def test_rolling_upgrade_refusals(spec, where):
    with pytest.raises(ScenarioError) as e:
        run_scenario(spec)
    assert str(e.value).startswith(where), str(e.value)


def test_a_version_above_the_newest_is_a_future_member():
    # a lone v13 member leads itself: one round at v13, nothing to negotiate (versions are int32 words)
    res = run_scenario(_group({"name": "A", "version": 13}))
    assert res.steady == {"A": 13} and not res.failed


def test_the_command_says_a_scenario_error_in_its_own_words(tmp_path, capsys):
    # one line naming the file and the place, as the refusals above give it, and no Python class name after it
    # (the name is for plain Python errors a malformed file makes, where it says what kind of thing went wrong)
    from codec.cli import main

    path = tmp_path / "upgrade.json"
    path.write_text('{"members": [{"name": "A", "version": 7}], "events": [{"restart": "Z", "version": 7}]}')
    assert main(["negotiate", "--scenario", str(path)]) == 1
    assert capsys.readouterr().err == f"error: scenario {path}: events[0].restart: 'Z' is not a member (A)\n"
