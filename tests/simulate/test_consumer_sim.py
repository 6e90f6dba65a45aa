"""Plain consumer groups in ``simulate`` (issue #44): eager, cooperative (KIP-429) and KIP-848 runs.

Expected values come from the scenario and the rules worked out by hand (the model in
``codec/simulate/consumer.py``: a classic round lasts one heartbeat interval, 3 s; eager members revoke all they own
when it starts), from Kafka's own ``CurrentAssignmentBuilderTest`` (transcribed below), from the recorded frames
read back with the codec and the project's assignors and ``assign --consumer --check``, or from properties.

``consumer-scale-out`` by hand, eager (range): orders has 12 partitions; C4, C5 and C6 join at 30, 50 and 70 s
(three rounds); C1 stops at 150 s (a LeaveGroup: a round at once) and starts at 160 s (another). Each round all 12
partitions are down for its 3 s: 5 * 12 * 3 = 180 partition-s, 12 at most at once.

Cooperative (cooperative-sticky, quotas floor/ceil of 12 / members): C4 joins at 30, round [30, 33]: C1-C3 hold 4
each over a quota of 3, each revokes one at 33, the follow-up round [33, 36] gives the three to C4: 3 * 3 = 9. C5
at 50: quotas 2-3 with two members at 3: two partitions revoked at 53, given at 56: 2 * 3 = 6. C6 at 70: 2 each,
the two at 3 give one each: 6. C1 stops at 150: its 2 partitions are nobody's until the round [150, 153] gives them
out: 6. C1 starts at 160: two revoked at 163, given at 166: 6. In all 9 + 6 + 6 + 6 + 6 = 33, at most 3 at once.

KIP-848 (uniform; heartbeats every 5 s in step, the initial members' from 0 and the joiners' from 30, 50, 70; an
event happens before the heartbeats of the same instant): C4 joins at 30, the others revoke one each at their
heartbeat at 30, C4 takes the three at its heartbeat at 35: 3 * 5 = 15. C5 at 50 and C6 at 70: two each, 10 and 10.
C1 stops at 150: the others' heartbeats at 150 take its two at once: 0. C1 starts at 160: two revoked at 160, taken
at 165: 10. In all 15 + 10 + 10 + 0 + 10 = 45.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

import pytest

from codec.assignor.consumer import assign_consumer
from codec.assignor.consumer.wire import check_capture, group_from_join
from codec.group import decode_consumer, decode_request_frame, decode_response_frame, decode_sticky_user_data
from codec.simulate.command import register
from codec.simulate.consumer import load_consumer_scenario, parse_consumer_scenario, simulate_consumer
from codec.simulate.consumer_classic import ClassicRun
from codec.simulate.consumer_kip848 import STABLE, UNRELEASED, UNREVOKED, Kip848Run, _Held
from codec.simulate.scenario import ScenarioError, bundled_examples, example_path

EXAMPLES = ["consumer-scale-out", "consumer-crash-resubscribe"]
PROTOCOLS = ["eager", "cooperative", "kip848"]


@pytest.fixture(scope="module")
def runs():
    out = {}
    for name in EXAMPLES:
        sc = load_consumer_scenario(example_path(name))
        for p in PROTOCOLS:
            out[name, p] = simulate_consumer(sc, p)
    return out


def test_bundled():
    assert set(EXAMPLES) <= set(bundled_examples())


def test_eager_scale_out_by_hand(runs):
    m = runs["consumer-scale-out", "eager"].metrics
    assert m["unavailable_partition_s"] == 180.0
    assert m["max_unavailable"] == 12
    assert m["rebalances"] == 5
    assert m["assignor"] == "range"


def test_cooperative_scale_out_by_hand(runs):
    r = runs["consumer-scale-out", "cooperative"]
    assert r.metrics["unavailable_partition_s"] == 33.0
    assert r.metrics["max_unavailable"] == 3
    assert [rb["completed_s"] for rb in r.rebalances] == [33, 36, 53, 56, 73, 76, 153, 163, 166]
    assert r.metrics["revocations"] == 3 + 2 + 2 + 2  # (C1's stop is no revocation)


def test_kip848_scale_out_by_hand(runs):
    r = runs["consumer-scale-out", "kip848"]
    assert r.metrics["unavailable_partition_s"] == 45.0
    assert r.metrics["max_unavailable"] == 3
    assert [rb["completed_s"] for rb in r.rebalances] == [30, 50, 70, 150, 160]


@pytest.mark.parametrize("name", EXAMPLES)
@pytest.mark.parametrize("protocol", ["eager", "cooperative"])
def test_the_capture_story_tells_each_classic_rebalance_s_cause(runs, name, protocol, tmp_path):
    """The cause engine's oracle (as tests/causes/test_simulated.py for Streams and Connect): each generation's main
    cause read from the pcap is the simulator's, naming the member the simulator names."""
    from codec.capture.story import Generation, capture_story

    r = runs[name, protocol]
    _, pcap = r.recorder.write(tmp_path, "frames")
    gens = {g.generation: g for g in capture_story(pcap) if isinstance(g, Generation) and g.generation is not None}
    for rb in r.rebalances:
        told = gens[rb["generation"]].rebalance
        assert told is not None
        assert (told.cause.kind, rb["cause_member"] in told.cause.members) == (rb["cause"], True), rb["reasons"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_eager_costs_at_least_cooperative_and_kip848(runs, name):
    eager = runs[name, "eager"].metrics
    for p in ("cooperative", "kip848"):
        m = runs[name, p].metrics
        assert eager["unavailable_partition_s"] >= m["unavailable_partition_s"]
        assert eager["max_unavailable"] >= m["max_unavailable"]
    assert runs["consumer-scale-out", "cooperative"].metrics["max_unavailable"] < 12


@pytest.mark.parametrize("name", EXAMPLES)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_partition_owned_at_most_once_and_all_at_the_end(runs, name, protocol):
    r = runs[name, protocol]
    assert r.metrics["double_owned"] == 0 and r.timeline["double_owned"] == []
    assert r.metrics["all_partitions_owned_at_end"]
    owned = [p for held in r.final.values() for p in held]
    assert sorted(owned) == sorted(f"{t}-{p}" for t, n in load_consumer_scenario(example_path(name)).topics.items() for p in range(n))  # fmt: skip


def test_a_one_step_move_under_cooperative_is_caught():
    """The ledger's check can fail: the cooperative protocol run with an assignor that moves partitions in one step
    (sticky, not cooperative-sticky) owns partitions twice when a member joins."""
    sc = load_consumer_scenario(example_path("consumer-scale-out"))
    sim = ClassicRun(sc, "cooperative", keep_frames=False, run="t")
    sim.assignor = "sticky"
    sim.run()
    assert sim.ledger.double_owned


def _generated(seed: int) -> dict:
    rnd = random.Random(seed)
    topics = {f"t{i}": rnd.randint(1, 9) for i in range(rnd.randint(1, 3))}
    names = [f"C{i}" for i in range(rnd.randint(2, 6))]
    members = [
        {"name": n, "topics": rnd.sample(sorted(topics), rnd.randint(1, len(topics))), "running": rnd.random() < 0.7}
        for n in names
    ]
    members[0]["running"] = True
    events, t = [], 0.0
    for _ in range(rnd.randint(1, 6)):
        t += rnd.choice([1, 2, 4, 7, 20, 50])
        kind = rnd.choice(["start", "stop", "crash", "bounce", "subscribe"])
        e = {"at": t, kind: rnd.choice(names)}
        if kind == "subscribe":
            e["topics"] = rnd.sample(sorted(topics), rnd.randint(1, len(topics)))
        events.append(e)
    return {"kind": "consumer", "name": f"gen-{seed}", "topics": topics, "members": members, "events": events,
            "assignor": rnd.choice(["range", "roundrobin", "sticky", "cooperative-sticky"]),
            "server_assignor": rnd.choice(["uniform", "server-range"]), "duration_s": t + 120}  # fmt: skip


@pytest.mark.parametrize("seed", range(12))
def test_generated_groups_never_own_a_partition_twice(seed):
    sc = parse_consumer_scenario(_generated(seed))
    for p in PROTOCOLS:
        r = simulate_consumer(sc, p, keep_frames=False)
        assert r.metrics["double_owned"] == 0, (p, r.timeline["double_owned"][:3])
        assert not [n for n in r.notes if "holds it" in n], p
        held = [tp for ps in r.final.values() for tp in ps]
        assert len(held) == len(set(held))


def _frames(result) -> list[dict]:
    return list(result.recorder.records)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_frames_name_the_simulated_consumer(runs, protocol):
    """Each record names a plain consumer and its group protocol (not the recorder's default, a Streams instance):
    the client a capture reader sees."""
    for name in EXAMPLES:
        records = _frames(runs[name, protocol])
        assert records
        for r in records:
            assert r["client_version"] == ("consumer" if protocol == "kip848" else "classic"), r
            assert r["client"] == f"simulated Kafka consumer ({r['client_version']})", r


@pytest.mark.parametrize("name", EXAMPLES)
@pytest.mark.parametrize("protocol", ["eager", "cooperative"])
def test_classic_frames_decode_and_the_leader_gave_the_assignors_output(runs, name, protocol, tmp_path):
    r = runs[name, protocol]
    sc = load_consumer_scenario(example_path(name))
    pending: dict = {}
    given: dict = {}  # (client id, generation) -> the partitions its SyncGroup response gave
    generations: dict = {}
    sticky_seen = 0
    for rec in _frames(r):
        raw = bytes.fromhex(rec["hex"])
        if rec["direction"] == "request":
            f = decode_request_frame(raw, nested=False)
            pending[rec["conn"], rec["correlation_id"]] = rec["api_key"]
            if rec["api_key"] == 11:
                metadata = bytes(f.body.protocols[0].metadata)
                sub = decode_consumer("ConsumerProtocolSubscription", metadata)
                assert sub.version == 3 and tuple(sub.data.topics)
                if f.body.protocols[0].name == "sticky" and sub.data.user_data is not None:
                    u = decode_sticky_user_data("sticky", bytes(sub.data.user_data))
                    assert u.version == 1 and u.generation == sub.data.generation_id  # its last generation
                    # ... and the partitions that generation's SyncGroup gave it
                    assert sorted(u.topic_partitions()) == sorted(given[f.header.client_id, u.generation])
                    sticky_seen += 1
                if protocol == "eager":
                    assert not sub.data.owned_partitions  # onJoinPrepare revoked everything
        else:
            api = pending.pop((rec["conn"], rec["correlation_id"]))
            f = decode_response_frame(raw, api, rec["api_version"], nested=False)
            if api == 14:
                a = decode_consumer("ConsumerProtocolAssignment", bytes(f.body.assignment))
                generation = generations[rec["conn"]]
                given[rec["client_id"], generation] = [
                    (x.topic, p) for x in a.data.assigned_partitions for p in x.partitions
                ]
            if api == 11:
                generations[rec["conn"]] = f.body.generation_id
            if api == 11 and f.body.members:
                # the leader's JoinGroup response: the assignor run on it is what the leader's SyncGroup says
                group = group_from_join(
                    [(m.member_id, m.group_instance_id, bytes(m.metadata)) for m in f.body.members],
                    {"topics": sc.topics},
                )
                mine = next(a for a in r.assignments if a["generation"] == f.body.generation_id)
                assert assign_consumer(group, sc.protocol_assignor(protocol)).members == mine["members"]
    if sc.assignor == "sticky" and protocol == "eager":
        assert sticky_seen
    _, pcap = r.recorder.write(tmp_path, "frames")
    verdicts = list(check_capture(pcap, {"topics": sc.topics}, "auto"))
    assert verdicts and all(v["checked"] and v["matches"] for v in verdicts)
    assert len(verdicts) == r.metrics["rebalances"] + 1  # every round and the initial one


@pytest.mark.parametrize("name", EXAMPLES)
def test_kip848_frames_decode_and_say_what_the_members_own(runs, name):
    r = runs[name, "kip848"]
    pending: dict = {}
    reported: dict[str, set] = {}
    last_seen: dict[str, float] = {}
    last_assignment: dict[str, set] = {}
    interval = load_consumer_scenario(example_path(name)).consumer_heartbeat_interval_ms / 1000
    for rec in _frames(r):
        raw = bytes.fromhex(rec["hex"])
        assert rec["api_key"] == 68 and rec["api_version"] == 1
        if rec["direction"] == "request":
            f = decode_request_frame(raw, nested=False)
            pending[rec["conn"], rec["correlation_id"]] = f.body
            last_seen[f.body.member_id] = rec["ts"]
            for mid in [m for m, at in last_seen.items() if at < rec["ts"] - interval - 1e-6]:
                reported.pop(mid, None)  # a member silent for longer than its heartbeat interval has crashed
            if f.body.topic_partitions is not None:
                reported[f.body.member_id] = {(x.topic_id, p) for x in f.body.topic_partitions for p in x.partitions}
            if f.body.member_epoch == -1:
                reported.pop(f.body.member_id, None)
        else:
            req = pending.pop((rec["conn"], rec["correlation_id"]))
            f = decode_response_frame(raw, 68, 1, nested=False)
            assert f.body.error_code == 0
            if f.body.assignment is not None:
                last_assignment[req.member_id] = {
                    (x.topic_id, p) for x in f.body.assignment.topic_partitions for p in x.partitions
                }
        # what the members report owning never overlaps
        seen: set = set()
        for owned in reported.values():
            assert not owned & seen
            seen |= owned
    final = r.assignments[-1]
    assert assign_consumer(final["group"], r.assignor).members == final["members"]


# --- Kafka's CurrentAssignmentBuilderTest, transcribed (topic1/topic2 with 10 partitions each) -----------------


def _sim(owners: dict, target: list, epoch: int) -> Kip848Run:
    sc = parse_consumer_scenario(
        {"kind": "consumer", "topics": {"topic1": 10, "topic2": 10}, "members": [{"name": "m"}], "duration_s": 1}
    )
    sim = Kip848Run(sc, "kip848", keep_frames=False, run="t")
    sim.owners, sim.target, sim.assignment_epoch = dict(owners), {"member": target}, epoch
    return sim


def _tps(t1, t2) -> set:
    return {("topic1", p) for p in t1} | {("topic2", p) for p in t2}


def test_kafka_stable_to_unrevoked_partitions():
    sim = _sim({tp: "member" for tp in _tps([1, 2, 3], [4, 5, 6])}, sorted(_tps([2, 3, 4], [5, 6, 7])), 11)
    h = _Held("member", ("topic1", "topic2"), None, epoch=10, assigned=_tps([1, 2, 3], [4, 5, 6]))
    sim._reconcile(h, None, False)  # no owned partitions sent: the member still owns what it must revoke
    assert (h.state, h.epoch, h.assigned, h.pending) == (UNREVOKED, 10, _tps([2, 3], [5, 6]), _tps([1], [4]))


def test_kafka_stable_to_unreleased_partitions():
    own = _tps([1, 2, 3], [4, 5, 6])
    owners = {tp: ("member" if tp in own else "other") for tp in _tps(range(10), range(10))}
    sim = _sim(owners, sorted(_tps([1, 2, 3, 4], [4, 5, 6, 7])), 11)
    h = _Held("member", ("topic1", "topic2"), None, epoch=10, assigned=set(own))
    sim._reconcile(h, None, False)
    assert (h.state, h.epoch, h.assigned, h.pending) == (UNRELEASED, 11, own, set())


def test_kafka_unrevoked_partitions_to_stable():
    sim = _sim({}, sorted(_tps([2, 3], [5, 6])), 11)
    h = _Held("member", ("topic1", "topic2"), None, 10, UNREVOKED, _tps([2, 3], [5, 6]), _tps([1], [4]))
    sim._reconcile(h, _tps([2, 3], [5, 6]), False)
    assert (h.state, h.epoch, h.assigned, h.pending) == (STABLE, 11, _tps([2, 3], [5, 6]), set())


def test_kafka_remains_in_unrevoked_partitions():
    sim = _sim({}, sorted(_tps([3], [6])), 12)
    h = _Held("member", ("topic1", "topic2"), None, 10, UNREVOKED, _tps([2, 3], [5, 6]), _tps([1], [4]))
    sim._reconcile(h, _tps([1, 2, 3], [5, 6]), False)  # topic1-1 is still owned
    assert (h.state, h.epoch, h.assigned, h.pending) == (UNREVOKED, 10, _tps([2, 3], [5, 6]), _tps([1], [4]))


def test_kafka_unrevoked_to_stable_with_returned_partitions_pending_revocation():
    owners = {tp: "member" for tp in _tps([2, 3, 4], [5, 6])}
    sim = _sim(owners, sorted(_tps([2, 3, 4], [5, 6, 7])), 12)
    h = _Held("member", ("topic1", "topic2"), None, 10, UNREVOKED, _tps([2, 3], [5, 6]), _tps([4], []))
    sim._reconcile(h, _tps([2, 3], [5, 6]), False)
    assert (h.state, h.epoch, h.assigned, h.pending) == (STABLE, 12, _tps([2, 3, 4], [5, 6, 7]), set())


def test_kafka_stable_to_unrevoked_with_topics_no_longer_subscribed():
    sim = _sim({}, sorted(_tps([1, 2, 3], [4, 5, 6])), 10)
    h = _Held("member", ("topic1",), None, epoch=10, assigned=_tps([1, 2, 3], [4, 5, 6]))
    sim._reconcile(h, _tps([1, 2, 3], [4, 5, 6]), True)
    assert (h.state, h.epoch, h.assigned, h.pending) == (UNREVOKED, 10, _tps([1, 2, 3], []), _tps([], [4, 5, 6]))


# --- the command and the scenario files ----------------------------------------------------------------


def _args(argv: list[str]):
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    return parser.parse_args(["simulate", *argv])


def test_command_compare(tmp_path, capsys):
    args = _args(["--example", "consumer-scale-out", "--compare", "--out", str(tmp_path), "--no-plots"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[1].split()[:3] == ["protocol", "assignor", "rebalances"]
    assert [ln.split()[:2] for ln in lines[3:6]] == [["eager", "range"], ["cooperative", "cooperative-sticky"], ["kip848", "uniform"]]  # fmt: skip
    data = json.loads((tmp_path / "compare.json").read_text())
    assert data["kind"] == "consumer" and [m["protocol"] for m in data["metrics"]] == PROTOCOLS
    tl = json.loads((tmp_path / "kip848.timeline.json").read_text())
    assert tl["kind"] == "consumer" and len(tl["timeline"]["partitions"]) == 12
    assert (tmp_path / "eager.frames.pcap.gz").stat().st_size > 0


def test_command_pictures(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    args = _args(["--example", "consumer-crash-resubscribe", "--compare", "--protocols", "eager,kip848", "--out", str(tmp_path), "--no-frames"])  # fmt: skip
    assert args.func(args) == 0
    for name in ("eager.png", "kip848.png", "compare.png", "compare.html"):
        assert (tmp_path / name).stat().st_size > 1000
    assert "<svg" in (tmp_path / "kip848.html").read_text()


def test_command_errors(tmp_path, capsys):
    args = _args(["--example", "consumer-scale-out", "--protocol", "ha", "--out", str(tmp_path)])
    assert args.func(args) == 2
    assert "a consumer group's: eager, cooperative, kip848" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "consumer", "topics": {"a": 0}, "members": [{"name": "C1"}]}))
    args = _args([str(bad), "--out", str(tmp_path)])
    assert args.func(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "topics[a]" in err


@pytest.mark.parametrize(
    "patch, why",
    [
        ({"topics": {}}, "topics"),
        ({"members": []}, "members"),
        ({"assignor": "uniform"}, "assignor"),
        ({"server_assignor": "range"}, "server_assignor"),
        ({"protocols": ["ha"]}, "protocols"),
        ({"configs": {"heartbeat_interval_ms": 0}}, "configs.heartbeat_interval_ms: needs an integer in 1"),
        ({"events": [{"at": 1, "start": "nobody"}]}, "unknown member"),
        ({"events": [{"at": 1, "subscribe": "C1"}]}, "topics goes with subscribe"),
        ({"events": [{"at": 1, "stop": "C1", "topics": ["a"]}]}, "topics goes with subscribe"),
        ({"partition_racks": {"a": [["r"]]}}, "partition_racks[a]"),
        ({"nonsense": 1}, "unknown key"),
        ({"members": [{"name": "C1", "topics": ["b"]}]}, "members[0]: topic(s) b not in the scenario's topics"),
        ({"events": [{"at": 1, "subscribe": "C1", "topics": ["a", "b"]}]}, "events[0]: topic(s) b not in"),
    ],
)
def test_scenario_validation(patch, why):
    base = {"kind": "consumer", "topics": {"a": 2}, "members": [{"name": "C1"}]}
    with pytest.raises(ScenarioError, match=re.escape(why)):
        parse_consumer_scenario({**base, **patch})


def test_example_files_parse_from_disk():
    for name in EXAMPLES:
        assert load_consumer_scenario(Path(example_path(name))).kind == "consumer"


def test_a_member_restarted_before_its_session_ends_by_hand():
    """C2 of two members on ``a`` (4 partitions; range gives C1 a-0, a-1 and C2 a-2, a-3) crashes at 10 s and starts
    again at 20 s, as a new member, while the coordinator still counts its old incarnation (session 45 s).

    Eager: the join starts a round at 20 in which C1 revokes all; the round waits for the dead incarnation until its
    session ends at 55: 2 partitions down over [10, 20], 4 over [20, 55]: 20 + 140 = 160. Cooperative: C1 keeps its
    two; C2's two are down from 10 until the round completes at 55: 90. KIP-848 (heartbeats at 5, 10, ...; the crash
    at 10 comes before that heartbeat, so its last is at 5 and its session ends at 50): C2 rejoining at 20 makes
    the uniform target of three members move one of C1's to the new C2, which C1 revokes at its heartbeat at 20 and
    the new C2 takes at 25; the dead member's two are freed at 50 and taken at the heartbeats of 50:
    2 * 10 + 3 * 5 + 2 * 25 = 85."""
    sc = parse_consumer_scenario(
        {"kind": "consumer", "topics": {"a": 4}, "members": [{"name": "C1"}, {"name": "C2"}],
         "events": [{"at": 10, "crash": "C2"}, {"at": 20, "start": "C2"}], "duration_s": 120}
    )  # fmt: skip
    got = {p: simulate_consumer(sc, p) for p in PROTOCOLS}
    assert {p: r.metrics["unavailable_partition_s"] for p, r in got.items()} == {
        "eager": 160.0,
        "cooperative": 90.0,
        "kip848": 85.0,
    }
    assert [(rb["started_s"], rb["completed_s"]) for rb in got["eager"].rebalances] == [(20.0, 55.0)]
    assert all(r.metrics["all_partitions_owned_at_end"] and r.metrics["double_owned"] == 0 for r in got.values())


def test_an_assignor_failure_is_one_line(tmp_path, capsys, monkeypatch):
    """Where Kafka's assignor throws (the sticky assignor's NullPointerException quirk), the command says so in one
    line and writes no timeline."""
    from codec.assignor.consumer import AssignmentError
    from codec.simulate import consumer_classic

    def fails(group, assignor):
        raise AssignmentError("Kafka's assignor fails here (NullPointerException): no member 'x'")

    monkeypatch.setattr(consumer_classic, "assign_consumer", fails)
    args = _args(["--example", "consumer-scale-out", "--protocol", "eager", "--out", str(tmp_path), "--no-plots"])
    assert args.func(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "NullPointerException" in err
    assert not (tmp_path / "eager.timeline.json").exists()


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_capture_story_tells_each_kip848_epoch_s_cause_and_the_holdings(runs, name, tmp_path):
    """The story reads a KIP-848 run's pcap as a heartbeat group: each group epoch the simulator's coordinator
    bumped has the simulator's cause, naming its member, and what each live member holds at the end is what the run
    ends with."""
    from codec.capture.story import HeartbeatGroup, capture_story

    r = runs[name, "kip848"]
    _, pcap = r.recorder.write(tmp_path, "frames")
    (group,) = [g for g in capture_story(pcap) if isinstance(g, HeartbeatGroup)]
    assert group.findings == []
    told = {rb.epoch: rb for rb in group.epoch_causes}
    for rb in r.rebalances:
        cause = told[rb["generation"]].causes[0]
        assert (cause.kind, rb["cause_member"] in cause.members) == (rb["cause"], True), rb["reasons"]
    names = {t: n for n, t in ((n, str(u)) for n, u in Kip848Run(load_consumer_scenario(example_path(name)), "kip848", keep_frames=False, run="t").ids.items())}  # fmt: skip
    held = {}
    last = set(group.epoch_causes[-1].members)  # the members of the last epoch (a crashed one has expired)
    for mid, m in group.members.items():
        if mid in last and m.steps:
            client = m.client_id.rsplit("-", 1)[1]
            held[client] = sorted(f"{t}-{p}" for t, p in (_named(tid, names) for tid in m.steps[-1].holdings.get("partitions", ())))  # fmt: skip
    assert held == {c: r.final[c] for c in held}
    assert set(held) >= {c for c, ps in r.final.items() if ps}


def _named(tp, names: dict) -> tuple[str, int]:
    import base64
    import uuid

    tid, p = tp
    raw = base64.urlsafe_b64decode(tid + "==")
    return names[str(uuid.UUID(bytes=raw))], p


def test_kip848_assignment_interval_holds_the_target_back():
    """``assignment_interval_ms``: the coordinator computes the next target only once that long has passed since the
    last one (at time 0): C4's join at 30 s bumps the epoch, but the target that gives it partitions comes at the
    first heartbeat at or after 100 s, and C4 consumes nothing before."""
    data = json.loads(example_path("consumer-scale-out").read_text())
    data["configs"] = {"assignment_interval_ms": 100_000}
    r = simulate_consumer(parse_consumer_scenario(data), "kip848", keep_frames=False)
    assert r.rebalances[0]["started_s"] == 30 and r.rebalances[0]["completed_s"] == 100
    c4 = r.timeline["instances"]["C4"]
    assert [row["active"] for row in c4 if row["t"] < 100] in ([0], [])
    assert r.metrics["double_owned"] == 0 and r.metrics["all_partitions_owned_at_end"]
