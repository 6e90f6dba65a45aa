"""Connect's eager assignor (protocol ``default``, Kafka's ``EagerAssignor`` at 1eb7644), expected assignments
worked out by hand from its rules:

* the members, sorted by id (Java ``String.compareTo``: UTF-16 code units), form a circle;
* the connectors, sorted by name, go round the circle one each, starting at the first member;
* then the tasks, connector by connector (sorted) and by task number, go on round the *same* circle from where
  the connectors stopped;
* every member gets a v0 assignment with all it runs, error 0, the leader's id and URL (from the leader's
  metadata) and the highest config offset any member reported; a leader behind that offset that cannot catch
  up sends every member an empty assignment with error 1 (CONFIG_MISMATCH) and that offset.
"""

from __future__ import annotations

import pytest

from codec.connect import (
    ConnectAssignment,
    ConnectMetadata,
    ConnectorTaskId,
    decode_connect_assignment,
    encode_connect_assignment,
    encode_connect_metadata,
)
from codec.assignor.connect import ConnectWorker, assign_connect, assign_eager


def T(connector: str, task: int) -> ConnectorTaskId:
    return ConnectorTaskId(connector, task)


def test_round_robin_connectors_then_tasks_on_the_same_circle():
    """Members joined as w3, w1, w2 — sorted: w1, w2, w3. Connectors sorted: c1, c2, c3.
    Connectors: c1 -> w1, c2 -> w2, c3 -> w3 (the circle is back at w1).
    Tasks, c1's then c2's then c3's: c1-0 -> w1, c1-1 -> w2, c2-0 -> w3, c2-1 -> w1, c2-2 -> w2, c3-0 -> w3.
    Offset: max(4, 9, 7) = 9; the leader w2's URL is http://w2."""
    workers = [
        ConnectWorker("w3", "http://w3", 4),
        ConnectWorker("w1", "http://w1", 9),
        ConnectWorker("w2", "http://w2", 7),
    ]
    result = assign_eager("w2", workers, {"c2": 3, "c1": 2, "c3": 1})
    common = dict(version=0, error=0, leader="w2", leader_url="http://w2", config_offset=9)
    assert result.assignments == {
        "w3": ConnectAssignment(**common, connectors=("c3",), tasks=(T("c2", 0), T("c3", 0))),
        "w1": ConnectAssignment(**common, connectors=("c1",), tasks=(T("c1", 0), T("c2", 1))),
        "w2": ConnectAssignment(**common, connectors=("c2",), tasks=(T("c1", 1), T("c2", 2))),
    }
    assert result.state is None and result.protocol == "default" and result.config_offset == 9
    assert result.running["w1"] == (("c1",), (T("c1", 0), T("c2", 1)))


def test_previous_assignments_are_ignored_and_everything_is_handed_out_again():
    """Eager: a member's allocation plays no part. Two members a, b; one connector x with 3 tasks.
    x -> a; then x-0 -> b, x-1 -> a, x-2 -> b — although b ran everything before."""
    before = ConnectAssignment(
        version=1,
        leader="b",
        leader_url="u",
        config_offset=1,
        connectors=("x",),
        tasks=(T("x", 0), T("x", 1), T("x", 2)),
    )
    result = assign_eager("a", [ConnectWorker("b", "ub", 1, before), ConnectWorker("a", "ua", 1)], {"x": 3})
    assert result.assignments["a"].connectors == ("x",)
    assert result.assignments["a"].tasks == (T("x", 1),)
    assert result.assignments["b"].connectors == ()
    assert result.assignments["b"].tasks == (T("x", 0), T("x", 2))


def test_members_sort_by_utf16_code_units_like_java():
    """U+10000 is the surrogate pair D800 DC00 in UTF-16, which sorts before U+FFFF in Java (code points
    would put it after). So the circle is [\\U00010000, \\uffff]: the only connector goes to \\U00010000."""
    hi, bmp = "\U00010000", "\uffff"
    result = assign_eager(bmp, [ConnectWorker(bmp, "u1", 0), ConnectWorker(hi, "u2", 0)], {"only": 1})
    assert result.assignments[hi].connectors == ("only",)
    assert result.assignments[bmp].tasks == (T("only", 0),)


def test_more_members_than_work_and_no_connectors():
    result = assign_eager("m1", [ConnectWorker(m, m, 0) for m in ("m1", "m2", "m3")], {"c": 1})
    # c -> m1, c-0 -> m2, m3 nothing
    assert [(a.connectors, a.tasks) for a in result.assignments.values()] == [
        (("c",), ()),
        ((), (T("c", 0),)),
        ((), ()),
    ]
    empty = assign_eager("m1", [ConnectWorker("m1", "m1", 3)], {})
    assert empty.assignments["m1"] == ConnectAssignment(version=0, leader="m1", leader_url="m1", config_offset=3)


def test_config_mismatch_when_the_leader_cannot_catch_up():
    """The leader read to 5, a member to 8. Caught up on a fresh read (default): assign at 8. A fresh read
    reaching only 6: every member gets error 1 at offset 8 and nothing. Reaching 10: assign at 10."""
    workers = [ConnectWorker("L", "uL", 5), ConnectWorker("F", "uF", 8)]
    ok = assign_eager("L", workers, {"c": 1})
    assert {a.config_offset for a in ok.assignments.values()} == {8}
    bad = assign_eager("L", workers, {"c": 1}, leader_fresh_offset=6)
    assert bad.error == 1
    assert bad.assignments == {
        m: ConnectAssignment(version=0, error=1, leader="L", leader_url="uL", config_offset=8) for m in ("L", "F")
    }
    ahead = assign_eager("L", workers, {"c": 1}, leader_fresh_offset=10)
    assert {a.config_offset for a in ahead.assignments.values()} == {10}


def test_protocol_default_selects_the_eager_assignor_and_bytes_round_trip():
    """``assign_connect('default', ...)`` is the eager assignor; members come from their metadata bytes; each
    v0 assignment encodes and decodes back to itself — tasks as a set, since the writer groups them under
    their connectors (w2's b-1 travels in b's group, ahead of a's group with a-1)."""
    metas = [
        ("w1", encode_connect_metadata(ConnectMetadata(version=0, url="http://w1", config_offset=3))),
        ("w2", encode_connect_metadata(ConnectMetadata(version=1, url="http://w2", config_offset=2))),
    ]
    workers = [ConnectWorker.from_metadata(m, raw) for m, raw in metas]
    result = assign_connect("default", "w1", workers, {"a": 2, "b": 2})
    # a -> w1, b -> w2; a-0 -> w1, a-1 -> w2, b-0 -> w1, b-1 -> w2
    assert result.assignments["w1"].tasks == (T("a", 0), T("b", 0))
    assert result.assignments["w2"].connectors == ("b",)
    assert result.assignments["w2"].tasks == (T("a", 1), T("b", 1))
    assert decode_connect_assignment(encode_connect_assignment(result.assignments["w2"])).tasks == (
        T("b", 1),
        T("a", 1),
    )
    for a in result.assignments.values():
        assert a.config_offset == 3 and a.leader_url == "http://w1"
        for java_order in (False, True):
            back = decode_connect_assignment(encode_connect_assignment(a, java_order=java_order))
            assert back.version == 0 and back.connectors == a.connectors
            assert set(back.tasks) == set(a.tasks) and len(back.tasks) == len(a.tasks)
            assert (back.error, back.leader, back.leader_url, back.config_offset) == (
                a.error,
                a.leader,
                a.leader_url,
                a.config_offset,
            )


def test_bad_input():
    with pytest.raises(ValueError):
        assign_eager("x", [ConnectWorker("a")], {"c": 1})
    with pytest.raises(ValueError):
        assign_eager("a", [ConnectWorker("a"), ConnectWorker("a")], {"c": 1})
    with pytest.raises(ValueError):
        assign_eager("a", [ConnectWorker("a")], {"c": -1})
