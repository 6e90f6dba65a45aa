"""Streams version probing and rolling upgrades (wire-facts §5), over real bytes."""

from __future__ import annotations

import json
import subprocess
import sys

from codec.negotiation import StreamsInstance, initial_used_version, leader_assign
from codec.negotiation.scenario import compat_matrix, run_scenario
from codec.streams import decode_assignment
from tests.conftest import ROOT


def test_upgrade_from_mapping():
    assert initial_used_version(7, "0.10.0") == (1, "EAGER")
    assert initial_used_version(7, "1.1") == (2, "EAGER")
    assert initial_used_version(11, "2.3") == (11, "EAGER")
    assert initial_used_version(11, "2.4") == (11, "COOPERATIVE")


def test_leader_sends_min_received_and_min_supported():
    members = [StreamsInstance.of_version("A", 7), StreamsInstance.of_version("B", 5)]
    decision, out = leader_assign(members[0], {m.name: m.subscription() for m in members})
    assert (decision.min_received, decision.min_supported, decision.probing) == (5, 5, False)
    info = decode_assignment(out["A"])
    assert (info.version, info.commonly_supported_version) == (5, 5)


def test_future_member_with_v3_plus_is_version_probing():
    leader, future = StreamsInstance.of_version("L", 11), StreamsInstance.of_version("F", 12)
    decision, out = leader_assign(leader, {"L": leader.subscription(), "F": future.subscription()})
    assert decision.probing and decision.future_members == ("F",) and decision.error is None
    assert decode_assignment(out["F"]).version == 11


def test_future_member_with_a_v2_member_is_assignment_error():
    leader = StreamsInstance.of_release("L", "3.8", upgrade_from="1.1")  # sends v2
    future = StreamsInstance.of_version("F", 12)
    decision, out = leader_assign(leader, {"L": leader.subscription(), "F": future.subscription()})
    assert decision.error and "ASSIGNMENT_ERROR" in decision.error
    info = decode_assignment(out["L"])
    assert (info.version, info.commonly_supported_version, info.error_code) == (11, 11, 3)  # E14's shape


def _rounds(scenario):
    return [(ev, r) for ev, rs in scenario.rounds for r in rs]


def test_rolling_upgrade_v4_to_v7_old_leader_last():
    """§5's typical upgrade L=4 -> N=7: new members downgrade under the old leader, then everyone moves to
    v7 once the leader is upgraded: one round per bounce, plus one extra round at each step that changes
    a member's version."""
    spec = {
        "members": [{"name": n, "release": "2.1"} for n in "ABC"],
        "leader": "A",
        "events": [
            {"restart": "B", "release": "2.6"},
            {"restart": "C", "release": "2.6"},
            {"restart": "A", "release": "2.6"},
        ],
    }
    res = run_scenario(spec)
    assert res.steady == {"A": 7, "B": 7, "C": 7} and not res.failed
    per_event = [len(rs) for _, rs in res.rounds]
    # start: 1; B joins at v7 and is downgraded to v4 (2); C likewise (2); A upgraded: everyone reports
    # latest 7, csv 7 > used 4 -> B and C upgrade, A (fresh at v7) receives v4 < 7 and moves to csv 7 (2).
    assert per_event == [1, 2, 2, 2]
    b_round = res.rounds[1][1][0]
    assert b_round.subscriptions["B"] == (7, 7) and b_round.decision.probing
    assert b_round.decision.assignment_version == 4 and b_round.decision.assignment_csv == 4
    last = res.rounds[3][1]
    assert last[0].decision.assignment_version == 4 and last[0].decision.assignment_csv == 7
    assert last[1].decision.assignment_version == 7 and not last[1].rejoin_requested


def test_old_leader_keeps_everyone_at_its_version():
    spec = {
        "members": [{"name": n, "release": "2.4"} for n in "LAB"],
        "leader": "L",
        "events": [{"restart": "A", "release": "3.8"}, {"restart": "B", "release": "3.8"}],
    }
    res = run_scenario(spec)
    assert res.steady == {"L": 5, "A": 5, "B": 5}
    for _, r in _rounds(res):
        assert r.decision.assignment_version == 5


def test_upgrade_from_before_2_0_needs_two_bounces():
    spec = {
        "members": [{"name": n, "release": "1.1"} for n in "AB"],
        "leader": "A",
        "events": [
            {"restart": "A", "release": "2.6", "upgradeFrom": "1.1"},
            {"restart": "B", "release": "2.6", "upgradeFrom": "1.1"},
        ],
    }
    res = run_scenario(spec)
    assert res.steady == {"A": 2, "B": 2} and not res.failed  # first bounce: still v2, probing cannot help
    spec["members"] = [{"name": n, "release": "2.6", "upgradeFrom": "1.1"} for n in "AB"]
    spec["events"] = [{"restart": "A", "release": "2.6"}, {"restart": "B", "release": "2.6"}]
    res2 = run_scenario(spec)
    assert res2.steady == {"A": 7, "B": 7} and not res2.failed  # second bounce, without upgrade.from
    # without upgrade.from, a 2.6 member meeting a 1.1 leader breaks the group instead
    res3 = run_scenario(
        {
            "members": [{"name": n, "release": "1.1"} for n in "AB"],
            "leader": "A",
            "events": [{"restart": "B", "release": "2.6"}],
        }
    )
    assert res3.failed


def test_compat_matrix_properties():
    cells = {(c["member"], c["leader"]): c for c in compat_matrix()}
    assert len(cells) == 12 * 12
    for (m, lv), c in cells.items():
        if m == lv:
            assert c["outcome"] == "ok" and c["version"] == m and c["rounds"] == 1
        elif m > lv >= 3:  # a newer member meets an older leader: version probing, settles at the leader's
            assert c["outcome"] == "probing" and c["version"] == lv
        elif lv > m:  # an older member: the leader's group settles at the member's version
            assert c["outcome"] == "ok" and c["version"] == m
        if m > lv and lv < 3:
            assert c["outcome"] == "error"


def test_cli_negotiate_and_compat(tmp_path):
    spec = {
        "name": "v4 to v7",
        "members": [{"name": n, "release": "2.1"} for n in "AB"],
        "events": [{"restart": "B", "release": "2.6"}, {"restart": "A", "release": "2.6"}],
    }
    path = tmp_path / "s.json"
    path.write_text(json.dumps(spec))
    p = subprocess.run(
        [sys.executable, "-m", "codec", "negotiate", "--scenario", str(path)], capture_output=True, text=True, cwd=ROOT
    )
    assert p.returncode == 0, p.stderr
    assert "B: downgrades v7 -> v4, rejoins" in p.stdout and "steady state: A v7, B v7" in p.stdout
    p = subprocess.run(
        [sys.executable, "-m", "codec", "compat", "--format", "markdown"], capture_output=True, text=True, cwd=ROOT
    )
    assert p.returncode == 0 and p.stdout.count("\n| ") >= 12


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "codec", *args], capture_output=True, text=True, cwd=ROOT)


def test_bundled_scenarios_through_the_cli():
    p = _cli("negotiate", "--scenario", "seed-004-phases", "--format", "json")
    assert p.returncode == 0, p.stderr
    assert [ph["protocol"] for ph in json.loads(p.stdout)] == ["round-robin-0"] * 3 + ["round-robin-1"]
    p = _cli("negotiate", "--scenario", "streams-v4-to-v7", "--format", "json")
    out = json.loads(p.stdout)
    assert out["steady"] == {"A": 7, "B": 7, "C": 7} and out["totalRounds"] == 7  # 1 + 2 + 2 + 2, as above
    p = _cli("negotiate", "--scenario", "streams-below-2.0", "--format", "json")
    out = json.loads(p.stdout)
    per_event = {e["event"]: e["rounds"] for e in out["events"]}
    # after the first bounce (both on 2.6 with upgrade.from=1.1) everything is still v2 ...
    assert per_event["restart B at release 2.6 with upgrade.from=1.1"][-1]["assignment"]["version"] == 2
    # ... the second bounce reaches v7
    assert out["steady"] == {"A": 7, "B": 7}
    p = _cli("negotiate", "--scenario", "streams-old-leader")
    assert "steady state: L v11, A v11, B v11" in p.stdout
    assert p.stdout.count("assignment v5") >= 2  # while the leader is old, everyone is at its version
