"""Kafka Connect worker groups in ``simulate`` (issue #18): eager vs incremental cooperative rebalancing.

Expected values are derived by hand from the scenario and the rules (README: Connect's assignors; seed 003's
Designs I and II; the simulator's model in ``codec/simulate/connect.py``: a round lasts one heartbeat interval,
3 s here; eager workers stop all they run when it starts), never from the simulator's output.

``connect-bounce``: workers W1, W2, W3; connectors c1, c2, c3 with 4 tasks each (3 connectors, 12 tasks);
``scheduled.rebalance.max.delay.ms`` 300 s; W3 stops at 60 s (LeaveGroup) and starts again at 80 s.

Eager, by hand. The EagerAssignor goes round the members sorted by id (W1 < W2 < W3: member ids start
``connect-W<n>-``): connectors c1 W1, c2 W2, c3 W3, then the tasks continue from W1: c1-0 W1, c1-1 W2, c1-2 W3,
c1-3 W1, c2-0 W2, c2-1 W3, c2-2 W1, c2-3 W2, c3-0 W3, c3-1 W1, c3-2 W2, c3-3 W3. At 60 W3 leaves: round
[60, 63], W1 and W2 give up all they run (2 connectors, 8 tasks revoked); circle W1, W2: c1 W1, c2 W2, c3 W1,
tasks from W2: c1-0 W2, c1-1 W1, c1-2 W2, c1-3 W1, c2-0 W2, c2-1 W1, c2-2 W2, c2-3 W1, c3-0 W2, c3-1 W1, c3-2 W2,
c3-3 W1 — moved: c3; c1-0, c1-1, c1-2, c2-1, c2-2, c2-3, c3-0, c3-3 (8 tasks). At 80 W3 joins: round [80, 83],
everything (3 connectors, 12 tasks) revoked; the 3-worker placement again, so the same 1 connector and 8 tasks
move back. Not running: all 15 items for 3 s twice: 12*3*2 = 72 task-s, 3*3*2 = 18 connector-s. Two rebalances,
20 task revocations, 5 connector revocations, 16 task moves, 2 connector moves; balanced at 83 s, 23 s after 60.

Incremental cooperative (sessioned), by hand. From nothing the assignor spreads 3 connectors and 12 tasks evenly:
1 connector and 4 tasks each. At 60 W3 leaves: round [60, 63]; its work is lost, held back for the delay:
assignments carry delay 300000 ms, nothing assigned, nothing revoked; the workers will rejoin at 63 + 300 = 363.
At 80 W3 joins empty: round [80, 83], delay 363 - 83 = 280 s, nothing assigned. At 363 the workers rejoin:
round [363, 366], the delay has run out and the lost work goes to the candidate W3. Three rebalances, no
revocation, no move; W1 and W2 never stop; W3's connector and 4 tasks are down from 60 to 366: 306 connector-s,
4*306 = 1224 task-s; balanced at 366 s, 306 s after 60.
"""

from __future__ import annotations

import argparse
import json

import pytest

from codec.capture import KafkaFrame, kafka_frames
from codec.connect import ConnectorTaskId, decode_connect_assignment
from codec.group import decode_request_frame, decode_response_frame
from codec.simulate.command import register
from codec.simulate.connect import (
    ConnectScenario,
    is_connect_scenario,
    load_connect_scenario,
    parse_connect_scenario,
    simulate_connect,
)
from codec.simulate.scenario import ScenarioError, bundled_examples, example_path


def T(c: str, n: int) -> ConnectorTaskId:
    return ConnectorTaskId(c, n)


def tasks_of(names: str) -> set[str]:
    return set(names.split())


@pytest.fixture(scope="module")
def bounce() -> ConnectScenario:
    return load_connect_scenario(example_path("connect-bounce"))


@pytest.fixture(scope="module")
def eager(bounce):
    return simulate_connect(bounce, "eager")


@pytest.fixture(scope="module")
def coop(bounce):
    return simulate_connect(bounce, "sessioned")


def held(result, worker: str, t: float) -> dict:
    """The worker's running (connectors, tasks) counts just after ``t``."""
    rows = [r for r in result.timeline["instances"][worker] if r["t"] <= t + 1e-9]
    return {"connectors": rows[-1]["connectors"], "tasks": rows[-1]["tasks"]} if rows else {"connectors": 0, "tasks": 0}


def test_bundled_and_recognised(bounce):
    assert "connect-bounce" in bundled_examples()
    assert is_connect_scenario(json.loads(example_path("connect-bounce").read_text()))
    assert bounce.max_delay_ms == 300_000 and bounce.protocols == ("eager", "sessioned")
    assert [(e.at, e.kind, e.worker) for e in bounce.events] == [(60, "stop", "W3"), (80, "start", "W3")]


def test_eager_bounce_is_stop_the_world_twice(eager):
    m = eager.metrics
    assert m["rebalances"] == 2
    assert [(r["started_s"], r["completed_s"]) for r in eager.rebalances] == [(60, 63), (80, 83)]
    assert m["task_s_not_running"] == pytest.approx(72)
    assert m["connector_s_not_running"] == pytest.approx(18)
    assert (m["task_revocations"], m["connector_revocations"]) == (20, 5)
    assert [(r["task_revocations"], r["connector_revocations"]) for r in eager.rebalances] == [(8, 2), (12, 3)]
    assert (m["task_moves"], m["connector_moves"]) == (16, 2)
    assert m["time_to_balanced_s"] == pytest.approx(23)
    for w in ("W1", "W2", "W3"):  # nothing runs anywhere during either round
        assert held(eager, w, 61) == {"connectors": 0, "tasks": 0}
        assert held(eager, w, 81) == {"connectors": 0, "tasks": 0}
    two = eager.rebalances[0]["assignments"]
    assert set(two["W1"]["connectors"]) == {"c1", "c3"} and set(two["W2"]["connectors"]) == {"c2"}
    assert set(two["W1"]["tasks"]) == tasks_of("c1-1 c1-3 c2-1 c2-3 c3-1 c3-3")
    assert set(two["W2"]["tasks"]) == tasks_of("c1-0 c1-2 c2-0 c2-2 c3-0 c3-2")
    assert eager.final == {
        "W1": {"connectors": ["c1"], "tasks": sorted(tasks_of("c1-0 c1-3 c2-2 c3-1"))},
        "W2": {"connectors": ["c2"], "tasks": sorted(tasks_of("c1-1 c2-0 c2-3 c3-2"))},
        "W3": {"connectors": ["c3"], "tasks": sorted(tasks_of("c1-2 c2-1 c3-0 c3-3"))},
    }


def test_cooperative_bounce_moves_nothing(coop):
    m = coop.metrics
    assert (m["task_moves"], m["connector_moves"]) == (0, 0)
    assert (m["task_revocations"], m["connector_revocations"]) == (0, 0)
    assert m["rebalances"] == 3
    assert [(r["started_s"], r["completed_s"]) for r in coop.rebalances] == [(60, 63), (80, 83), (363, 366)]
    assert [r["delay_ms"] for r in coop.rebalances] == [300_000, 280_000, 0]
    assert m["task_s_not_running"] == pytest.approx(1224)
    assert m["connector_s_not_running"] == pytest.approx(306)
    assert m["time_to_balanced_s"] == pytest.approx(306)
    for w in ("W1", "W2"):  # they never stop, and are never handed anything
        assert all(r["connectors"] == 1 and r["tasks"] == 4 for r in coop.timeline["instances"][w])
        assert all(not r["assignments"][w]["tasks"] and not r["assignments"][w]["connectors"] for r in coop.rebalances)
    assert held(coop, "W3", 100) == {"connectors": 0, "tasks": 0}
    assert held(coop, "W3", 365) == {"connectors": 0, "tasks": 0}
    assert held(coop, "W3", 366) == {"connectors": 1, "tasks": 4}
    # W3 gets back exactly what it ran before the bounce
    initial = coop.timeline["instances"]["W3"][0]
    assert initial["connectors"] == 1 and initial["tasks"] == 4
    last = coop.rebalances[-1]["assignments"]["W3"]
    assert len(last["connectors"]) == 1 and len(last["tasks"]) == 4
    assert coop.final["W3"] == {"connectors": last["connectors"], "tasks": sorted(last["tasks"])}


def test_frames_are_connect_bytes_and_capture_reads_them(coop, tmp_path):
    jsonl, pcap = coop.recorder.write(tmp_path)
    records = [json.loads(line) for line in jsonl.read_text().splitlines()]
    frames = [f for f in kafka_frames(pcap) if isinstance(f, KafkaFrame)]
    assert len(frames) == len(records) > 0
    delays = []
    for f in frames:
        assert f.api_key is not None
        if f.direction == "request":
            req = decode_request_frame(f.data)
            if f.api_key == 11:
                assert req.body.protocol_type == "connect"
                assert [p.name for p in req.body.protocols] == ["sessioned", "compatible", "default"]
        else:
            resp = decode_response_frame(f.data, f.api_key, f.api_version)
            if f.api_key == 14:
                raw = resp.body.assignment
                raw = raw.raw if hasattr(raw, "raw") else raw
                a = decode_connect_assignment(bytes(raw))
                assert a.version == 2
                delays.append(a.delay)
    # 4 rounds (the group forming at 0, then 3), one SyncGroup per member
    assert delays.count(300_000) == 2 and delays.count(280_000) == 3


def test_eager_frames_offer_only_default(eager):
    for r in eager.recorder.records:
        if r["api_key"] == 11 and r["direction"] == "request":
            req = decode_request_frame(bytes.fromhex(r["hex"]))
            assert [p.name for p in req.body.protocols] == ["default"]


def test_the_frames_name_the_simulated_worker(eager, coop):
    """Each record names a Connect worker and its connect.protocol (not the recorder's default, a Streams
    instance): the client a capture reader sees."""
    for run in (eager, coop):
        assert run.recorder.records
        for r in run.recorder.records:
            assert r["client_version"] in ("eager", "compatible", "sessioned"), r
            assert r["client"] == f"simulated Kafka Connect worker ({r['client_version']})", r


def _cli(argv):
    parser = argparse.ArgumentParser(prog="rebalance-codec")
    register(parser.add_subparsers())
    args = parser.parse_args(["simulate", *argv])
    return args.func(args)


def test_command_compare(tmp_path, capsys):
    assert _cli(["--example", "connect-bounce", "--compare", "--no-plots", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("eager ", "sessioned "))}
    assert set(rows) == {"eager", "sessioned"}
    assert rows["eager"][1] == "2" and rows["sessioned"][1] == "3"
    assert rows["eager"][-2] == "16" and rows["sessioned"][-2] == "0"  # task moves
    for name in ("compare.json", "eager.timeline.json", "sessioned.frames.jsonl", "sessioned.frames.pcap.gz"):
        assert (tmp_path / name).is_file()


def test_command_compare_pictures(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert _cli(["--example", "connect-bounce", "--compare", "--out", str(tmp_path)]) == 0
    for name in ("compare.png", "compare.html", "eager.png", "sessioned.png"):
        assert (tmp_path / name).stat().st_size > 0


def test_command_single_protocol_and_errors(tmp_path, capsys):
    assert _cli(["--example", "connect-bounce", "--protocol", "eager", "--no-plots", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "eager.timeline.json").is_file()
    assert _cli(["--example", "connect-bounce", "--protocol", "ha", "--no-plots", "--out", str(tmp_path)]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "kind": "connect",
                "workers": [{"name": "W1"}],
                "connectors": {"c": 1},
                "events": [{"at": 1, "stop": "W9"}],
            }
        )
    )
    assert _cli([str(bad), "--no-plots", "--out", str(tmp_path / "o")]) == 1
    assert "unknown worker" in capsys.readouterr().err


@pytest.mark.parametrize(
    "data,why",
    [
        ({"kind": "connect", "connectors": {"c": 1}}, "needs workers"),
        ({"kind": "connect", "workers": [{"name": "W1"}]}, "connectors"),
        (
            {"kind": "connect", "workers": [{"name": "W1", "protocol": "range"}], "connectors": {"c": 1}},
            "connect.protocol",
        ),
        ({"kind": "connect", "workers": [{"name": "W1"}, {"name": "W1"}], "connectors": {"c": 1}}, "duplicate"),
        ({"kind": "connect", "workers": [{"name": "W1"}], "connectors": {"c": -1}}, "connectors[c]"),
        ({"kind": "connect", "workers": [{"name": "W1"}], "connectors": {"c": 1}, "topology": []}, "unknown key"),
        (
            {
                "kind": "connect",
                "workers": [{"name": "W1"}],
                "connectors": {"c": 1},
                "events": [{"at": 1, "stop": "W1", "start": "W1"}],
            },
            "exactly one",
        ),
    ],
)
def test_scenario_validation(data, why):
    with pytest.raises(ScenarioError, match=r".*" + why.replace("[", r"\[").replace("]", r"\]")):
        parse_connect_scenario(data)


def test_crash_longer_than_the_delay_spreads_the_lost_work():
    """Two workers, one connector with 4 tasks, delay 30 s, session timeout 10 s; W2 crashes at 10 s for good.
    By hand: from nothing, 1 connector and 4 tasks over 2 workers: the connector on one, 2 tasks each. W2's
    session times out at 20: round [20, 23], its work held back, delay 30 s; W1 rejoins at 53: round [53, 56],
    the delay has run out and nothing came back, so W2's work goes to W1. Under eager: round [20, 23] gives all
    to W1 at once."""
    sc = parse_connect_scenario(
        {
            "kind": "connect",
            "name": "lost",
            "workers": [{"name": "W1"}, {"name": "W2"}],
            "connectors": {"c": 4},
            "configs": {
                "scheduled_rebalance_max_delay_ms": 30000,
                "session_timeout_ms": 10000,
                "heartbeat_interval_ms": 3000,
            },
            "events": [{"at": 10, "crash": "W2"}],
            "duration_s": 100,
        }
    )
    coop = simulate_connect(sc, "sessioned")
    assert [(r["started_s"], r["completed_s"]) for r in coop.rebalances] == [(20, 23), (53, 56)]
    assert coop.final["W1"]["connectors"] == ["c"] and len(coop.final["W1"]["tasks"]) == 4
    assert coop.metrics["task_moves"] == 2
    eager = simulate_connect(sc, "eager")
    assert [(r["started_s"], r["completed_s"]) for r in eager.rebalances] == [(20, 23)]
    assert eager.final["W1"] == {"connectors": ["c"], "tasks": ["c-0", "c-1", "c-2", "c-3"]}


def test_scale_out():
    """``connect-scale-out``: W1-W3 run 4 connectors x 6 tasks (24 tasks: 8 each; connectors 2, 1, 1), W4 joins at 60.
    Eager, by hand: round [60, 63] stops all 4 connectors and 24 tasks: 12 connector-s, 72 task-s, 1 rebalance.
    Incremental, by hand: round [60, 63]: fair shares 24/4 = 6 tasks, 4/4 = 1 connector, so W1-W3 each give up
    2 tasks and the one with 2 connectors gives up 1 (6 + 1 revoked, and not running from 63); they rejoin at
    once: round [63, 66] hands the 6 tasks and the connector to W4: 18 task-s, 3 connector-s, 2 rebalances,
    7 moves."""
    sc = load_connect_scenario(example_path("connect-scale-out"))
    eager = simulate_connect(sc, "eager").metrics
    assert (eager["rebalances"], eager["task_s_not_running"], eager["connector_s_not_running"]) == (1, 72, 12)
    assert (eager["task_revocations"], eager["connector_revocations"]) == (24, 4)
    coop = simulate_connect(sc, "sessioned")
    m = coop.metrics
    assert (m["rebalances"], m["task_s_not_running"], m["connector_s_not_running"]) == (2, 18, 3)
    assert (m["task_revocations"], m["connector_revocations"], m["task_moves"], m["connector_moves"]) == (6, 1, 6, 1)
    assert [(r["started_s"], r["completed_s"]) for r in coop.rebalances] == [(60, 63), (63, 66)]
    assert {w: (len(v["connectors"]), len(v["tasks"])) for w, v in coop.final.items()} == {
        w: (1, 6) for w in ("W1", "W2", "W3", "W4")
    }


def test_rolling_upgrade_runs_eager_until_the_last_eager_worker_leaves():
    """``connect-rolling-upgrade`` as configured: W1 at 60, W2 at 120, W3 at 180 restart (20 s down) with
    sessioned. The coordinator picks a protocol every member offers: while an eager worker is a member the
    group runs ``default``; when W3, the last, leaves at 180 the remaining two offer sessioned first. Rounds:
    60 (W1 leaves), 80 (joins), 120, 140 default; 180 (W3 leaves) and 200 (W3 joins) sessioned. The round at
    180 still stops the world: the workers rejoin under the last generation's protocol, eager."""
    sc = load_connect_scenario(example_path("connect-rolling-upgrade"))
    res = simulate_connect(sc, "as-configured")
    by_start = {r["started_s"]: r for r in res.rebalances}
    assert [by_start[t]["protocol"] for t in (60, 80, 120, 140)] == ["default"] * 4
    assert [by_start[t]["protocol"] for t in (180, 200)] == ["sessioned"] * 2
    assert by_start[180]["task_revocations"] == 8  # W1 and W2's 4 tasks each, stop-the-world
    for r in res.recorder.records:
        if r["api_key"] == 11 and r["direction"] == "request" and r["ts"] >= 1_700_000_200:
            names = [p.name for p in decode_request_frame(bytes.fromhex(r["hex"])).body.protocols]
            assert names == ["sessioned", "compatible", "default"]


def test_capture_tells_the_story_of_the_recorded_frames(coop, tmp_path):
    """``rebalance-codec capture`` on the recorded pcap: one Connect group, generations 1 (forming) to 4, W3's
    leave, its new member joining in generation 3, every frame paired, no problem."""
    import subprocess
    import sys

    _, pcap = coop.recorder.write(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "codec", "capture", "--json", str(pcap)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    gens = [x for x in lines if x.get("type") == "generation"]
    summary = next(x for x in lines if x.get("type") == "summary")
    assert [g["generation"] for g in gens] == [1, 2, 3, 4]
    assert {(g["protocol_type"], g["protocol"], g["group"]) for g in gens} == {
        ("connect", "sessioned", "connect-cluster")
    }
    assert [len(g["changes"]["left"]) for g in gens[1:]] == [1, 0, 0]
    assert [len(g["changes"]["joined"]) for g in gens[1:]] == [0, 1, 0]
    assert summary["group_frames"] == len(coop.recorder.records)
    assert summary["unpaired_responses"] == summary["unanswered_requests"] == 0 and not summary["problems"]


@pytest.mark.parametrize(
    "name", ["connect-bounce", "connect-lost", "connect-scale-out", "connect-scale-in", "connect-rolling-upgrade"]
)
def test_every_connect_example_ends_balanced(name):
    """Each bundled Connect example under each protocol it lists ends with every connector and task running once,
    spread within one over the running workers; and ``connect-lost``'s numbers by hand: W3 crashes at 60, found at
    70 (session timeout 10 s). Eager: round [70, 73]; W3's 1 connector and 4 tasks are down 60-73, the others'
    2 connectors and 8 tasks 70-73: 4*13 + 8*3 = 76 task-s, 13 + 2*3 = 19 connector-s. Incremental: W3's work is
    held back until 73 + 300 = 373, round [373, 376]: 4*316 = 1264 task-s, 316 connector-s, nothing revoked."""
    sc = load_connect_scenario(example_path(name))
    everything = {str(t) for c, n in sc.connectors for t in (f"{c}-{k}" for k in range(n))}
    for protocol in sc.protocols:
        res = simulate_connect(sc, protocol, keep_frames=False)
        running = [x for w in res.final.values() for x in w["tasks"]]
        assert sorted(running) == sorted(everything)
        assert sorted(c for w in res.final.values() for c in w["connectors"]) == sorted(c for c, _ in sc.connectors)
        assert res.metrics["balanced_at_end"]
        if name == "connect-lost":
            m = res.metrics
            expected = {"eager": (76, 19, 1), "sessioned": (1264, 316, 2)}[protocol]
            assert (m["task_s_not_running"], m["connector_s_not_running"], m["rebalances"]) == expected
