"""The cause engine over ``__consumer_offsets`` records: what the coordinator's records can tell.

Each test writes a group's history as the coordinator would record it -- real record bytes (GroupMetadataValue with
ConsumerProtocol and Streams layers inside; Kafka 4's group records through :func:`codec.kafka4.encode_record`),
read back by :func:`codec.capture.offsets.decode_record` -- and expects the causes of what the history did: the
expected kinds and members come from the history written here, not from the engine."""

from __future__ import annotations

import json

import pytest

from codec import kafka4
from codec.capture.offsets import decode_record
from codec.causes import KINDS, CauseEngine, RecordCauses
from codec.causes.vocabulary import CERTAIN, UNCERTAIN, Cause
from codec.group import consumer_assignment, consumer_subscription, encode_consumer
from codec.pipeline.offsets import GroupMetadata, MemberMetadata, encode_group_metadata, encode_group_metadata_key
from codec.streams import AssignmentInfo, SubscriptionInfo, encode_assignment, encode_subscription
from codec.types import TaskId
from codec.wire.builder import wire_class

_TP = wire_class("ConsumerProtocolAssignment", "TopicPartition")
T0 = 1_700_000_000_000  # ms


def _sub(topics, info: SubscriptionInfo | None = None) -> bytes:
    user = encode_subscription(info) if info is not None else b""
    return encode_consumer(consumer_subscription(1, topics=tuple(topics), user_data=user))


def _asg(parts: dict[str, list[int]], info: AssignmentInfo | None = None) -> bytes:
    user = encode_assignment(info) if info is not None else b""
    tps = tuple(_TP(topic=t, partitions=tuple(ps)) for t, ps in sorted(parts.items()))
    return encode_consumer(consumer_assignment(1, assigned_partitions=tps, user_data=user))


def _member(mid, topics=("orders",), parts=None, instance=None, sub=None, asg=None) -> MemberMetadata:
    return MemberMetadata(
        mid,
        instance,
        f"client-{mid}",
        "/10.0.0.1",
        300000,
        45000,
        sub if sub is not None else _sub(topics),
        asg if asg is not None else _asg(parts or {}),
    )


def _snapshot(gen: int, members, *, protocol="range", at_s: float | None = None):
    ts = T0 + int((at_s if at_s is not None else gen * 10) * 1000)
    value = encode_group_metadata(
        GroupMetadata(3, "consumer", gen, protocol, members[0].member_id if members else None, ts, tuple(members))
    )
    return decode_record(encode_group_metadata_key("g"), value, f"offset {gen}")


def _run(records) -> list:
    rc = RecordCauses()
    out = []
    for rec in records:
        assert not hasattr(rec, "error"), rec
        out += rc.record(rec)
    return out


def _kinds(r) -> list[tuple[str, tuple[str, ...]]]:
    return [(c.kind, c.members) for c in r.causes]


def test_a_classic_groups_snapshots_tell_joins_leaves_static_replacements_and_subscriptions():
    a, b = _member("a"), _member("b")
    c = _member("c", instance="i1")
    c2 = _member("c2", instance="i1")
    b_more = _member("b", topics=("orders", "payments"))
    history = [
        _snapshot(1, [a]),
        _snapshot(2, [a, b]),
        _snapshot(3, [b]),
        _snapshot(4, [b, c]),
        _snapshot(5, [b, c2]),
        _snapshot(6, [b_more, c2]),
    ]
    out = _run(history)
    assert [r.generation for r in out] == [1, 2, 3, 4, 5, 6]
    assert [_kinds(r) for r in out] == [
        [("first-seen", ())],
        [("member-joined", ("b",))],
        [("member-left", ("a",))],
        [("member-joined", ("c",))],
        [("static-member-replaced", ("c2", "c"))],
        [("subscription-changed", ("b",))],
    ]
    left = out[2].cause
    assert left.confidence == UNCERTAIN  # the records hold no LeaveGroup and no heartbeat
    assert "cannot tell a LeaveGroup from a session or rebalance timeout" in left.detail
    assert out[1].cause.confidence == CERTAIN
    assert "orders -> orders, payments" in out[5].cause.detail
    assert out[1].ts == (T0 + 20_000) / 1000  # the generation's currentStateTimestamp
    assert out[1].previous == 1 and out[0].previous is None
    assert out[1].members == ("a", "b")


def test_another_snapshot_of_the_same_generation_is_no_rebalance():
    a = _member("a")
    out = _run(
        [_snapshot(1, [a]), _snapshot(1, [_member("a", parts={"orders": [0]})]), _snapshot(2, [a, _member("b")])]
    )
    assert [r.generation for r in out] == [1, 2]


def test_a_static_member_replaced_within_a_generation_is_no_rebalance_and_not_a_member_after():
    """Kafka stores the same generation again when a static member rejoins with a new member id while the group is
    stable: no rebalance; the next generation is measured against the replaced membership."""
    c, c2 = _member("c", instance="i1"), _member("c2", instance="i1")
    out = _run([_snapshot(1, [_member("a"), c]), _snapshot(1, [_member("a"), c2]), _snapshot(2, [c2])])
    assert [r.generation for r in out] == [1, 2]
    assert _kinds(out[1]) == [("member-left", ("a",))]


def test_a_tombstone_starts_the_group_anew():
    rc = RecordCauses()
    out = rc.record(_snapshot(1, [_member("a")])) + rc.record(_snapshot(2, [_member("a"), _member("b")]))
    assert rc.record(decode_record(encode_group_metadata_key("g"), None, "offset 9")) == []
    out += rc.record(_snapshot(3, [_member("a")]))
    assert [r.cause.kind for r in out] == ["first-seen", "member-joined", "first-seen"]


def _streams_member(mid, *, next_ms=2**63 - 1, version=11, asg_version=11, common=11, error=0):
    info = SubscriptionInfo(version=version, latest_supported_version=11, process_id=__import__("uuid").UUID(int=1))
    sub = _sub(("in",), info)
    asg = _asg(
        {"in": [0]},
        AssignmentInfo(
            version=asg_version,
            commonly_supported_version=common,
            active_tasks=(TaskId(0, 0),),
            error_code=error,
            next_rebalance_ms=next_ms,
        ),
    )
    return _member(mid, sub=sub, asg=asg)


@pytest.mark.parametrize(
    "member, kind",
    [
        (_streams_member("s", next_ms=0), "follow-up"),
        (_streams_member("s", version=11, asg_version=10, common=10), "streams-version-probing"),
        (_streams_member("s", version=10, asg_version=10, common=11), "streams-version-probing"),
        (_streams_member("s", next_ms=T0 + 15_000), "streams-probing"),
        (_streams_member("s", error=1), "follow-up"),
    ],
)
def test_a_streams_assignment_that_asks_for_another_rebalance_is_the_next_ones_cause(member, kind):
    other = _member("t", topics=("in",))
    out = _run(
        [
            _snapshot(1, [member, other], protocol="stream", at_s=10),
            _snapshot(2, [member, other], protocol="stream", at_s=20),
        ]
    )
    assert out[1].cause.kind == kind and out[1].cause.members == ("s",)


def test_a_probing_deadline_not_yet_due_is_no_cause():
    early = _streams_member("s", next_ms=T0 + 60_000)  # due at 60 s; the next generation forms at 20 s
    out = _run(
        [
            _snapshot(1, [early], protocol="stream", at_s=10),
            _snapshot(2, [early, _member("n", topics=("in",))], protocol="stream", at_s=20),
        ]
    )
    assert [c.kind for c in out[1].causes] == ["member-joined"]


def test_a_cooperative_revocation_is_the_follow_ups_cause():
    """Generation 2 takes orders-1 from a and gives it to nobody (cooperative: a rejoins at once); generation 3
    gives it to b."""
    g1 = [_member("a", parts={"orders": [0, 1]})]
    g2 = [_member("a", parts={"orders": [0]}), _member("b", parts={})]
    g3 = [_member("a", parts={"orders": [0]}), _member("b", parts={"orders": [1]})]
    out = _run(
        [
            _snapshot(1, g1, protocol="cooperative-sticky"),
            _snapshot(2, g2, protocol="cooperative-sticky"),
            _snapshot(3, g3, protocol="cooperative-sticky"),
        ]
    )
    assert _kinds(out[1]) == [("member-joined", ("b",))]
    assert _kinds(out[2]) == [("follow-up", ("a",))]


def _k4(record: str, key: dict, value: dict | None, where: str):
    k, v = kafka4.encode_record({"record": record, "key": key, "value": value})
    rec = decode_record(k, v, where)
    assert not hasattr(rec, "error"), rec
    return rec


def _member_record(mid, topics=("orders",), instance=None):
    return _k4(
        "ConsumerGroupMemberMetadata",
        {"groupId": "k", "memberId": mid},
        {
            "instanceId": instance,
            "rackId": None,
            "clientId": f"client-{mid}",
            "clientHost": "/10.0.0.2",
            "subscribedTopicNames": list(topics),
            "subscribedTopicRegex": None,
            "rebalanceTimeoutMs": 300000,
            "serverAssignor": "uniform",
            "classicMemberMetadata": None,
        },
        f"member {mid}",
    )


def _epoch(e, hash_=0):
    return _k4("ConsumerGroupMetadata", {"groupId": "k"}, {"epoch": e, "metadataHash": hash_}, f"epoch {e}")


def test_a_kafka4_groups_records_tell_each_epochs_cause():
    history = [
        _member_record("m1"),
        _epoch(1, 11),
        _member_record("m2"),
        _epoch(2, 11),
        _member_record("m1", topics=("orders", "refunds")),
        _epoch(3, 11),
        _k4("ConsumerGroupMemberMetadata", {"groupId": "k", "memberId": "m2"}, None, "m2 tombstone"),
        _epoch(4, 11),
        _epoch(5, 12),
        _member_record("m3", instance="i1"),
        _epoch(6, 12),
        _k4("ConsumerGroupMemberMetadata", {"groupId": "k", "memberId": "m3"}, None, "m3 tombstone"),
        _member_record("m4", instance="i1"),
        _epoch(7, 12),
        _epoch(7, 12),  # the same epoch again: no rebalance
    ]
    out = _run(history)
    assert [(r.protocol, r.epoch) for r in out] == [("consumer", e) for e in range(1, 8)]
    assert [_kinds(r) for r in out] == [
        [("first-seen", ())],
        [("member-joined", ("m2",))],
        [("subscription-changed", ("m1",))],
        [("member-left", ("m2",))],
        [("metadata-changed", ())],
        [("member-joined", ("m3",))],
        [("static-member-replaced", ("m4", "m3"))],
    ]
    assert out[3].cause.confidence == UNCERTAIN
    assert out[6].members == ("m1", "m4")


def test_the_json_carries_cause_and_causes_only_when_several():
    out = _run(
        [
            _member_record("m1"),
            _epoch(1),
            _k4("ConsumerGroupMemberMetadata", {"groupId": "k", "memberId": "m1"}, None, "t"),
            _member_record("m2"),
            _epoch(2),
        ]
    )
    one, two = (json.loads(json.dumps(r.json())) for r in out)
    assert one["type"] == "epoch" and one["epoch"] == 1 and "causes" not in one
    assert set(one["cause"]) == {"kind", "members", "detail", "evidence", "confidence"}
    assert two["causes"][0] == two["cause"]  # the main cause first; without times, by the vocabulary's order
    assert [c["kind"] for c in two["causes"]] == ["member-joined", "member-left"]
    assert all(set(e) == {"ts", "what"} for c in two["causes"] for e in c["evidence"])


def test_the_vocabulary_is_closed():
    with pytest.raises(ValueError):
        Cause("rebalanced-for-fun")
    with pytest.raises(ValueError):
        Cause("unknown", confidence="probably")
    assert list(KINDS)[-2:] == ["first-seen", "unknown"]
    assert len(KINDS) == 15 and all(KINDS.values())


def test_the_engine_keeps_at_most_max_groups_and_forgets_idle_ones():
    engine = CauseEngine(max_groups=2)
    rc = RecordCauses(engine)
    for name in ("g1", "g2", "g3"):
        rec = _snapshot(1, [_member("a")])
        rc.feed(rec.key_schema, type(rec.key)(group=name), rec.value)
    assert len(engine) == 2 and engine.forgotten == 1
    assert engine.idle(before=(T0 + 60_000) / 1000) == [("g2", "classic"), ("g3", "classic")]
    assert len(engine) == 0 and engine.forgotten == 3


def test_a_leave_the_coordinator_had_not_acted_on_is_the_next_generations_cause():
    """A client may send its LeaveGroup while its JoinGroup waits (kafka-python's leader rejoins, then closes); a
    broker that answers a connection's requests in order forms that generation with the member, and the one after
    without it: the LeaveGroup is the later generation's cause, certain (kafka-python's captures under
    tests/causes/captures show it). A member that leaves and then joins again is back: its leave is no cause."""
    from codec.causes import Formed, Joined, Left, MemberFacts

    def formed(ts, n, *ids):
        return Formed(ts, "g", n, tuple(MemberFacts(i) for i in ids), True, ids[0])

    engine = CauseEngine()
    assert engine.feed(formed(10.0, 1, "a", "b")).cause.kind == "first-seen"
    engine.feed(Joined(20.0, "g", "classic", "b"))
    engine.feed(Left(21.0, "g", "classic", "b"))  # after its JoinGroup: not acted on before generation 2
    assert "member-left" not in {c.kind for c in engine.feed(formed(25.0, 2, "a", "b")).causes}
    three = engine.feed(formed(30.0, 3, "a"))
    assert (three.cause.kind, three.cause.members, three.cause.confidence) == ("member-left", ("b",), CERTAIN)
    assert [e.ts for e in three.cause.evidence] == [21.0]
    engine.feed(Left(31.0, "g", "classic", "a"))
    engine.feed(Joined(32.0, "g", "classic", "a"))  # back after its leave
    engine.feed(Joined(33.0, "g", "classic", "c", new=True))
    four = engine.feed(formed(35.0, 4, "a", "c"))
    assert [c.kind for c in four.causes] == ["member-joined"]
    five = engine.feed(formed(40.0, 5, "c"))  # a gone with no LeaveGroup since its rejoin: the input cannot tell
    assert (five.cause.kind, five.cause.members, five.cause.confidence) == ("member-left", ("a",), UNCERTAIN)
