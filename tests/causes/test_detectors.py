"""The loop and storm detectors over sequences of rebalances built here (the expected findings follow from the
sequences, and the thresholds the detectors document)."""

from __future__ import annotations

from codec.causes.detectors import CHECKS, Detectors
from codec.causes.vocabulary import Cause, Evidence, Rebalance


def _r(n, ts, kind="member-joined", members=("m",), *, moved=None, missed=(), instances=None, group="g", at=None):
    cause = Cause(kind, tuple(members), f"{kind} detail", (Evidence(ts, "seen"),), at=ts if at is None else at)
    return Rebalance(
        group,
        "classic",
        n,
        None,
        ts,
        tuple(members),
        (cause,),
        n - 1,
        moved=moved,
        missed_sync=tuple(missed),
        instances=instances or {},
    )


def _run(rebalances, **kw):
    d = Detectors(**kw)
    return [(f.check, f.number) for r in rebalances for f in d.feed(r)]


def test_a_storm_is_ten_rebalances_in_a_minute_once_until_it_calms():
    times = [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 200, 205, 210, 215, 220, 225, 230, 235, 240, 245]
    found = _run([_r(i + 1, 1000.0 + t) for i, t in enumerate(times)])
    # the tenth within 60 s (at 45) fires; the storm goes on (50, 55) without firing again; after a quiet spell
    # (200 is more than 60 s after 55) a new storm fires at its tenth (245, the 22nd rebalance)
    assert found == [("rebalance-storm", 10), ("rebalance-storm", 22)]
    assert _run([_r(i + 1, 1000.0 + t) for i, t in enumerate(times)], storm_count=5)[0] == ("rebalance-storm", 5)


def test_a_storm_needs_times():
    assert _run([_r(i + 1, None) for i in range(10)]) == []


def test_three_follow_ups_that_move_nothing_are_a_loop_and_a_move_breaks_it():
    seq = [_r(1, 0.0, "member-joined", moved=4)]  # (100 s apart: no storm)
    seq += [_r(n, n * 100.0, "follow-up", moved=0) for n in (2, 3)]
    seq += [_r(4, 400.0, "follow-up", moved=2)]  # moved something: the run starts again
    seq += [_r(n, n * 100.0, "follow-up", moved=0) for n in (5, 6, 7, 8)]
    assert _run(seq) == [("probing-loop", 7)]


def test_probing_that_moves_nothing_is_a_loop_only_after_ten():
    seq = [_r(n, n * 60.0, "streams-probing", moved=0) for n in range(1, 12)]
    assert _run(seq) == [("probing-loop", 10)]
    assert _run([_r(n, n * 60.0, "streams-probing", moved=None) for n in range(1, 12)]) == []  # moves not shown


def test_a_client_dropped_twice_for_its_poll_interval():
    labels = {"m-1": "app-1", "m-2": "app-1"}  # the same client, its member id changed when it rejoined
    d = Detectors()
    out = []
    for n, m in ((2, "m-1"), (5, "x"), (7, "m-2")):
        out += d.feed(_r(n, n * 10.0, "rebalance-timeout", (m,)), labels=labels)
    assert [(f.check, f.number, f.members) for f in out] == [("poll-interval-drops", 7, ("m-2",))]
    assert "app-1 was dropped 2 times" in out[0].detail and len(out[0].evidence) == 2


def test_a_static_member_replaced_twice_flaps():
    seq = [
        _r(2, 10.0, "static-member-replaced", ("a2", "a1"), instances={"a2": "inst-a"}),
        _r(3, 20.0, "static-member-replaced", ("b2", "b1"), instances={"b2": "inst-b"}),
        _r(4, 30.0, "static-member-replaced", ("a3", "a2"), instances={"a3": "inst-a"}),
    ]
    assert _run(seq) == [("static-member-flapping", 4)]


def test_a_follow_up_whose_members_missed_their_sync():
    assert _run([_r(3, 1.0, "follow-up", missed=("m2",)), _r(4, 2.0, "member-joined", missed=("m3",))]) == [
        ("missed-sync", 3)
    ]


def test_groups_are_apart_and_every_check_is_documented():
    seq = [_r(i + 1, float(i), group=f"g{i % 2}") for i in range(16)]  # eight each: no storm in either
    assert _run(seq) == []
    assert set(CHECKS) == {
        "rebalance-storm",
        "probing-loop",
        "poll-interval-drops",
        "missed-sync",
        "static-member-flapping",
    }
