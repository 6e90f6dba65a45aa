"""A Streams simulate scenario's numbers and switches are JSON's own types: a value of another type is one
ScenarioError naming the field, never converted (``int(1.5)`` ran 1 thread, ``bool("false")`` started the
instance, ``float(true)`` put an event at 1 s, ``int("4")`` took the string). The Connect scenario's readers did
so already; both now share them. Expectations are the scenario format's rules (codec/simulate/scenario.py)."""

from __future__ import annotations

import json

import pytest

from codec.simulate.scenario import ScenarioError, parse_scenario


def _scenario(**changes) -> dict:
    doc = {"instances": [{"name": "a"}], "topology": [{"source_topics": ["x"]}]}
    for key, value in changes.items():
        if key in ("threads", "running"):
            doc["instances"][0][key] = value
        elif key in ("partitions", "subtopology"):
            doc["topology"][0][key] = value
        elif key in ("at", "downtime_s", "every_s"):
            event = {"at": 10, "rolling": ["a"], key: value} if key == "every_s" else {"at": 10, "restart": "a"}
            event[key] = value
            doc["events"] = [event]
        else:
            doc[key] = value
    return doc


@pytest.mark.parametrize(
    "changes,words",
    [
        ({"threads": 1.5}, "instance a: threads: needs an integer in 1..256, got 1.5"),
        ({"threads": "2"}, "instance a: threads: needs an integer in 1..256, got '2'"),
        ({"threads": True}, "instance a: threads: needs an integer in 1..256, got True"),
        ({"running": "false"}, "instance a: running: needs true or false, got 'false'"),
        ({"running": 0}, "instance a: running: needs true or false, got 0"),
        ({"partitions": "4"}, "topology[0]: partitions: needs an integer in 1..10000, got '4'"),
        ({"subtopology": 1.0}, "topology[0]: subtopology: needs an integer in 0..2147483647, got 1.0"),
        ({"seed": 1e300}, "seed: needs an integer in -9223372036854775808..9223372036854775807, got 1e+300"),
        ({"seed": "7"}, "seed: needs an integer in"),
        ({"at": True}, "events[0].at: needs a number, got True"),
        ({"at": "5"}, "events[0].at: needs a number, got '5'"),
        ({"at": float("nan")}, "events[0].at: needs a number, got nan"),
        ({"at": 10**400}, "events[0].at: needs a number, got an integer of 1329 bits"),
        ({"downtime_s": "10"}, "events[0].downtime_s: needs a number, got '10'"),
        ({"every_s": 0}, "events[0].every_s: must be > 0"),
        ({"duration_s": float("inf")}, "duration_s: needs a number, got inf"),
        ({"duration_s": "60"}, "duration_s: needs a number, got '60'"),
    ],
)
def test_a_value_of_another_type_is_refused_naming_its_field(changes, words):
    doc = json.loads(json.dumps(_scenario(**changes)))  # as a file would give it (NaN and Infinity are JSON here)
    with pytest.raises(ScenarioError) as e:
        parse_scenario(doc)
    assert str(e.value).startswith(words), str(e.value)


def test_the_same_fields_of_the_right_types_are_taken():
    s = parse_scenario(_scenario(threads=2, running=False, partitions=4, subtopology=3, seed=7, duration_s=60, at=5.5))
    assert s.instances[0].threads == 2 and s.instances[0].running is False and s.seed == 7
    assert s.topology.subtopologies[0].partitions == 4 and s.duration_s == 60.0 and s.events[0].at == 5.5
