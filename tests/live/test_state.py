"""The watcher's running group state (``codec.live.state.Tracker``) fed records directly: when a generation or an
epoch is told, what is held, and the memory bounds (the cap of tracked groups, the idle horizon). Records are
written with the codec's encoders by the example builders, whose own record of what they played is the
expectation."""

from __future__ import annotations

from codec.capture.story import Generation
from codec.kafka4 import encode_record
from codec.live.examples import ClassicGroup, HeartbeatGroup
from codec.live.state import Bad, Epoch, Notice, Tracker


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def feed_all(tracker: Tracker, records, ts: float = 1000.0) -> list:
    out = []
    for i, (k, v) in enumerate(records):
        out += tracker.feed(k, v, f"offset {i}", ts + i)
    return out


def test_a_generation_is_told_when_its_record_arrives():
    g = ClassicGroup("g", {"orders": 4})
    t = Tracker()
    rec, m1 = g.join("c-1")
    (told,) = t.feed(*rec, "offset 0", 10.0)
    assert isinstance(told, Generation) and told.generation == 1 and told.changes is None
    assert told.first_ts == told.last_ts == 10.0 and told.source == "__consumer_offsets"
    rec, m2 = g.join("c-2")
    (told,) = t.feed(*rec, "offset 1", 11.0)
    assert told.generation == 2
    assert [x.split(" (")[0] for x in told.changes.joined] == [m2] and told.changes.left == []
    moved = told.changes.moved["partitions"]
    assert sum(len(v) for v in moved.values()) == 2  # range over 4 partitions: orders-2 and orders-3 move to c-2


def test_a_join_snapshot_without_assignments_is_held_until_its_assignment_or_the_settle_time():
    clock = Clock()
    t = Tracker(clock=clock, settle=3.0)
    g = ClassicGroup("g", {"orders": 2})
    rec, mid = g.join("c-1")
    t.feed(*rec, "offset 0", 1.0)
    empty = _snapshot("g", 2, mid)
    assert t.feed(*empty, "offset 1", 2.0) == []  # held: its members have no assignment yet
    clock.t = 2.9
    assert t.tick() == []
    g.generation = 1
    full = g.rebalance()  # generation 2, with the assignment
    (told,) = t.feed(*full, "offset 2", 3.0)
    assert told.generation == 2 and told.members[mid].assignment is not None
    assert t.feed(*_snapshot("g", 3, mid), "offset 3", 4.0) == []
    clock.t = 10.0
    (told,) = t.tick()  # the settle time passed
    assert told.generation == 3
    assert t.tick() == [] and t.flush() == []


def _snapshot(group: str, generation: int, mid: str):
    value = {
        "protocolType": "consumer",
        "generation": generation,
        "protocol": "range",
        "leader": mid,
        "currentStateTimestamp": 1,
        "members": [
            {
                "memberId": mid,
                "groupInstanceId": "static-1",
                "clientId": "c-1",
                "clientHost": "/h",
                "rebalanceTimeout": 1,
                "sessionTimeout": 1,
                "subscription": "",
                "assignment": "",
            }
        ],
    }
    return encode_record({"recordType": 2, "key": {"group": group}, "valueVersion": 3, "value": value})


def test_a_told_generation_stored_again_is_a_notice_not_a_second_generation():
    g = ClassicGroup("g", {"orders": 2})
    t = Tracker()
    rec, mid = g.join("c-1", instance="static-1")
    t.feed(*rec, "offset 0", 1.0)
    g.members = {"new-id": ("c-1", "static-1")}
    g.generation = 0  # the coordinator stores generation 1 again, the static member under its new member id
    again = g.rebalance()
    (n,) = t.feed(*again, "offset 1", 2.0)
    assert isinstance(n, Notice) and n.kind == "rewritten"
    assert "static member static-1 rejoined as new-id" in n.detail and mid in n.detail


def test_kafka4_epochs_are_told_at_their_target_assignment_and_an_empty_group_at_once():
    g = HeartbeatGroup("k", "consumer", {"clicks": 4})
    t = Tracker()
    recs, m1 = g.join("c-1")
    told = feed_all(t, recs)
    assert [type(x) for x in told] == [Epoch] and told[0].epoch == 1 and told[0].assignment_epoch == 1
    assert told[0].members[m1].target["partitions"] and told[0].changes is None
    recs, m2 = g.join("c-2")
    *before, last = recs  # the target assignment metadata comes last: nothing is told before it
    assert feed_all(t, before) == []
    (e,) = t.feed(*last, "offset 9", 9.0)
    assert e.epoch == 2 and [x.split(" (")[0] for x in e.changes.joined] == [m2]
    assert sum(len(v) for v in e.changes.moved["partitions"].values()) == 2
    told = feed_all(t, g.leave(m1) + g.leave(m2))
    assert [(x.epoch, x.assignment_epoch) for x in told] == [(3, 3), (4, None)]  # 4: no member, no target
    assert [x.split(" (")[0] for x in told[1].changes.left] == [m2] and told[1].members == {}


def test_a_kafka4_epoch_without_its_target_settles():
    clock = Clock()
    t = Tracker(clock=clock, settle=2.0)
    g = HeartbeatGroup("k", "streams", {"clicks": 2})
    recs, _ = g.join("c-1")
    feed_all(t, recs)
    meta = encode_record({"record": "StreamsGroupMetadata", "key": {"groupId": "k"}, "value": {"epoch": 7}})
    assert t.feed(*meta, "offset 20", 20.0) == []
    clock.t = 5.0
    (e,) = t.tick()
    assert e.epoch == 7 and e.assignment_epoch is None and e.protocol == "streams"
    assert e.changes is not None and e.changes.moved == {}  # what no target moved


def test_groups_past_the_cap_and_idle_past_the_horizon_are_dropped_and_said_so():
    t = Tracker(max_groups=3, idle_horizon=100.0)
    told = []
    for i in range(5):
        told += t.feed(*ClassicGroup(f"g{i}", {"t": 1}).join("c")[0], f"offset {i}", 1000.0 + i)
    dropped = [x for x in told if isinstance(x, Notice) and x.kind == "dropped"]
    assert [x.group for x in dropped] == ["g0", "g1"] and "--max-groups" in dropped[0].detail
    assert list(t.groups) == ["g2", "g3", "g4"] and t.dropped["over-cap"] == 2
    t.feed(*ClassicGroup("g3", {"t": 1}).rebalance(), "offset 9", 1050.0)  # g3 is active again
    t.feed(*ClassicGroup("g5", {"t": 1}).join("c")[0], "offset 10", 1104.5)  # record time moves on
    idle = [x.group for x in t.tick() if isinstance(x, Notice)]
    assert idle == ["g4"] and t.dropped["idle"] == 1  # g2 went over the cap, g4 idle 100+ s; g3 and g5 stay
    assert list(t.groups) == ["g3", "g5"]


def test_offset_commits_are_counted_and_never_make_a_group_tracked():
    from codec.live.examples import offset_commit

    t = Tracker()
    for p in range(10):
        assert t.feed(*offset_commit("assigner", "t", p, 5), f"offset {p}", 1.0) == []
    assert t.offset_commits == 10 and not t.groups and t.read["OffsetCommit"] == 10


def test_an_undecodable_record_is_one_bad_first_of_its_kind():
    t = Tracker()
    (a,) = t.feed(b"\x00\x02\x00\x01g", b"\x00\x09xx", "offset 0", None)
    (b,) = t.feed(b"\x00\x02\x00\x01h", b"\x00\x09yy", "offset 1", None)
    (c,) = t.feed(b"\x7f\x7f", b"", "offset 2", None)
    assert isinstance(a, Bad) and a.first and not b.first and c.first
    assert "GroupMetadataValue" in str(a.error) and t.bad == 3 and t.read["unknown"] == 1
    assert t.decoded.total() == 0
