"""The rebalance simulator (issue #7). Expected values come from the seeds' claims (seed 000's KIP-441
examples, seed 003's cooperative rebalancing), wire-facts §5/§9/§12 and hand derivation, never from the
simulator's own output."""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from dataclasses import replace

import pytest

from codec.capture import KafkaFrame, kafka_frames
from codec.group import ASSIGNMENT, SUBSCRIPTION, decode_consumer, decode_request_frame, decode_response_frame
from codec.simulate import bundled_examples, example_path, load_scenario, simulate
from codec.simulate.command import register
from codec.streams import decode_assignment, decode_subscription

EXAMPLES = {
    "scale-out",
    "scale-in-synced",
    "scale-in-lagging",
    "rolling-bounce",
    "rolling-upgrade",
    "leader-crash",
    "processor-death",
    "scale-out-100",
}


def example(name: str):
    return load_scenario(example_path(name))


@pytest.fixture(scope="module")
def runs():
    cache = {}

    def get(name: str, protocol: str):
        if (name, protocol) not in cache:
            cache[name, protocol] = simulate(example(name), protocol)
        return cache[name, protocol]

    return get


def counts_after(result, name: str, t: float) -> dict:
    """The instance's task counts in effect just after time ``t`` (the last sample at or before it)."""
    rows = [r for r in result.timeline["instances"][name] if r["t"] <= t + 1e-9]
    return rows[-1] if rows else {"active": 0, "restoring": 0, "standby": 0, "warmup": 0}


def final(result, name: str) -> dict:
    return result.timeline["instances"][name][-1]


def test_bundled_examples_are_listed():
    assert EXAMPLES <= set(bundled_examples())


# ---- seed 000, "Scaling Out": T1..T3, 1 standby, I3 joins ----------------------------------------------------


def test_scale_out_ha_warms_up_then_moves(runs):
    r = runs("scale-out", "ha")
    first = r.rebalances[0]["completed_s"]
    i3 = counts_after(r, "I3", first)
    # First rebalance (catching-up): I3 gets no active task, only replicas to warm up (seed: standby T1, T3).
    assert i3["active"] == 0 and i3["restoring"] == 0 and i3["warmup"] == 2
    # Second rebalance (stable state): every instance one active and one standby.
    for name in ("I1", "I2", "I3"):
        assert (final(r, name)["active"], final(r, name)["standby"], final(r, name)["warmup"]) == (1, 1, 0)
    # KIP-441: no active task ever restores on a lagging instance while a caught-up copy exists.
    assert r.metrics["lagging_restore_task_s"] == 0
    assert r.metrics["restoring_task_s"] == 0
    assert r.metrics["max_warmups"] <= 2  # max.warmup.replicas
    assert r.metrics["all_active_tasks_processing"]


def test_scale_out_eager_restores_from_scratch(runs):
    r = runs("scale-out", "eager")
    # I3 takes an active task at once and restores its whole changelog (1,000,000 offsets at 5,000/s = 200 s)
    # although I2 holds a caught-up standby of it.
    assert r.metrics["lagging_restore_task_s"] >= 200 - 1
    assert r.metrics["offsets_restored"] >= 1_000_000
    assert final(r, "I3")["active"] == 1


def test_cooperative_needs_a_second_round_but_eager_does_not(runs):
    # seed 003 / KIP-429: a moved task is revoked in one rebalance and assigned in a second one
    eager, coop = runs("scale-out", "eager"), runs("scale-out", "cooperative")
    assert len(eager.rebalances) == 1
    assert len(coop.rebalances) == 2
    assert coop.rebalances[1]["trigger"].endswith("(partitions revoked)")
    # eager stops every task while the group rebalances: more task-seconds unassigned than cooperative
    assert eager.metrics["unassigned_task_s"] > coop.metrics["unassigned_task_s"]


# ---- seed 000, "Scaling In" -----------------------------------------------------------------------------------


def test_scale_in_synced_standbys_take_over_without_restoring(runs):
    ha, eager = runs("scale-in-synced", "ha"), runs("scale-in-synced", "eager")
    # "Processing resumes immediately as the standby tasks are ready to take over as active tasks."
    assert ha.metrics["restoring_task_s"] == 0 and ha.metrics["lagging_restore_task_s"] == 0
    assert eager.metrics["lagging_restore_task_s"] > 0
    for name in ("I2", "I3"):
        assert final(ha, name)["active"] == 2
    # I1 left without LeaveGroup: its two tasks wait for its session to expire (45 s after its last
    # heartbeat, at most 3 s before the stop) and the rebalance (at most one heartbeat interval more).
    first = ha.rebalances[0]
    assert 10 + 42 - 1 <= first["started_s"] <= 10 + 45 + 0.1
    assert first["completed_s"] - first["started_s"] <= 3 + 0.1


def test_scale_in_lagging_first_rebalance_is_imbalanced(runs):
    r = runs("scale-in-lagging", "ha")
    first = r.rebalances[0]["completed_s"]
    # "the first rebalance would produce an imbalanced assignment where I2 bears the major processing load
    # while I3 focuses on restoring the task it will eventually be assigned as active"
    i2, i3 = counts_after(r, "I2", first + 1), counts_after(r, "I3", first + 1)
    assert i2["active"] + i2["restoring"] == 3 and i3["active"] + i3["restoring"] == 1
    assert i3["standby"] + i3["warmup"] >= 2  # replicas it restores meanwhile (seed: standbys T1, T2, T4)
    assert (final(r, "I2")["active"], final(r, "I3")["active"]) == (2, 2)
    assert r.metrics["lagging_restore_task_s"] == 0


# ---- other scenarios -------------------------------------------------------------------------------------------


def test_rolling_upgrade_follows_version_probing(runs):
    r = runs("rolling-upgrade", "ha")
    triggers = [reason for rb in r.rebalances for reason in rb["join_reasons"]]
    # §5: the upgraded members are assigned at the old leader's v7 and downgrade, then everyone upgrades to v11
    assert any("metadata downgrade to v7" in t for t in triggers)
    assert any("metadata upgrade to v11" in t for t in triggers)
    assert r.rebalances[0]["assignment_version"] == 7
    assert r.rebalances[-1]["assignment_version"] == 11 and r.rebalances[-1]["commonly_supported_version"] == 11
    assert all(rb["error_code"] == 0 for rb in r.rebalances)
    assert r.metrics["all_active_tasks_processing"]


def test_leader_crash_moves_leadership(runs):
    r = runs("leader-crash", "ha")
    crash = next(e for e in r.timeline["events"] if e["event"].startswith("crash"))
    crashed = crash["event"].split()[1]
    assert crashed == "I1"  # the first member of the group is its leader
    after = [rb for rb in r.rebalances if rb["started_s"] > crash["at"]]
    assert after and all(rb["leader"] != crashed for rb in after)
    assert r.metrics["all_active_tasks_processing"]
    assert r.metrics["lagging_restore_task_s"] == 0


def test_rolling_bounce_keeps_local_state(runs):
    for protocol in ("eager", "cooperative"):
        r = runs("rolling-bounce", protocol)
        assert r.metrics["offsets_restored"] == 0  # every instance comes back to its own caught-up stores
        assert len(r.rebalances) >= 4


def test_host_affinity_prefers_the_same_host(runs):
    r = runs("processor-death", "affinity")
    # P1 dies; P2 shares its host and store directory: P2 ends up with more tasks than before
    assert final(r, "P2")["active"] > counts_after(r, "P2", 5)["active"]
    assert r.metrics["all_active_tasks_processing"]


# ---- determinism -----------------------------------------------------------------------------------------------


def test_deterministic_for_a_seed():
    sc = example("scale-out")
    a, b = simulate(sc, "ha"), simulate(sc, "ha")
    assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)
    assert [r["hex"] for r in a.recorder.records] == [r["hex"] for r in b.recorder.records]
    c = simulate(replace(sc, seed=2), "ha")
    assert [r["hex"] for r in a.recorder.records] != [r["hex"] for r in c.recorder.records]


# ---- the recorded frames ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,protocol",
    [("scale-out", "ha"), ("scale-in-lagging", "cooperative"), ("rolling-upgrade", "ha"), ("leader-crash", "eager")],
)
def test_frames_decode_and_assignments_satisfy_invariants(tmp_path, name, protocol):
    sc = example(name)
    res = simulate(sc, protocol)
    jsonl, pcap = res.recorder.write(tmp_path)
    records = [json.loads(line) for line in jsonl.read_text().splitlines()]
    frames = [f for f in kafka_frames(pcap) if isinstance(f, KafkaFrame)]
    assert len(frames) == len(records)
    by_conn = defaultdict(list)
    for r in records:
        by_conn[r["conn"]].append(r)
    for f in frames:
        assert f.api_key is not None  # every response paired with its request
        conn = f"{f.flow.src}:{f.flow.sport}" if f.direction == "request" else f"{f.flow.dst}:{f.flow.dport}"
        assert any(r["hex"] == f.data.hex() and r["direction"] == f.direction for r in by_conn[conn])
    standbys = sc.configs.num_standby_replicas
    stateful = {str(t) for t in sc.stateful_tasks()}
    everything = {str(t) for t in sc.all_tasks()}
    process_of: dict[str, str] = {}
    checked = 0
    for f in frames:
        if f.direction == "request":
            req = decode_request_frame(f.data)
            if f.api_key == 11:
                meta = req.body.protocols[0].metadata
                sub = decode_consumer(SUBSCRIPTION, meta.raw if hasattr(meta, "raw") else meta)
                info = decode_subscription(sub.data.user_data)
                process_of[req.body.member_id] = str(info.process_id)
            if f.api_key == 14 and req.body.assignments:
                infos = {}
                for a in req.body.assignments:
                    raw = a.assignment.raw if hasattr(a.assignment, "raw") else a.assignment
                    cpa = decode_consumer(ASSIGNMENT, raw)
                    infos[a.member_id] = decode_assignment(cpa.data.user_data)
                _check_generation(
                    infos, process_of, stateful, everything, standbys, sc.configs.max_warmup_replicas, protocol
                )
                checked += 1
        else:
            decode_response_frame(f.data, f.api_key, f.api_version)
    assert checked == len(res.rebalances)


def _check_generation(infos, process_of, stateful, everything, standbys, max_warmups, protocol):
    """wire-facts §12 assertValidAssignment, adapted to one generation's AssignmentInfos: a task active
    on at most one member; a task active nowhere only while withheld for cooperative revocation (the
    receiver then rejoins at once, nextRebalance 0, §9 step 8); no process holds a task twice; stateless
    tasks have no standbys; a stateful task has at most 1 + standbys holders plus the warmups."""
    if any(i.error_code for i in infos.values()):
        return
    active_on: dict[str, list[str]] = defaultdict(list)
    holders: dict[str, set[str]] = defaultdict(set)
    for member, info in infos.items():
        pid = process_of[member]
        for t in set(info.active_tasks):
            active_on[str(t)].append(member)
            assert pid not in holders[str(t)], f"{t} twice on process {pid}"
            holders[str(t)].add(pid)
        for t in info.standby_tasks:
            assert str(t) in stateful, f"standby of stateless task {t}"
            assert pid not in holders[str(t)], f"{t} held twice on process {pid}"
            holders[str(t)].add(pid)
    assert all(len(ms) == 1 for ms in active_on.values()), "a task active on two members"
    unassigned = everything - set(active_on)
    if unassigned:
        assert protocol != "eager", f"eager left {sorted(unassigned)} unassigned"
        assert any(i.next_rebalance_ms == 0 for i in infos.values()), "withheld tasks without an immediate rejoin"
    extra = sum(max(0, len(holders[t]) - (1 + standbys)) for t in stateful)
    assert extra <= (max_warmups if protocol == "ha" else 0)


# ---- the command ----------------------------------------------------------------------------------------------


def test_the_generation_check_rejects_a_task_held_twice_on_one_process():
    """A broken generation, made by hand: task 0_0 is active on member a1 and a standby on member a2, both
    threads of process P. The check must reject it (the same generation with the standby on process Q passes)."""
    from codec.streams import AssignmentInfo
    from codec.types import TaskId

    t = TaskId(0, 0)
    infos = {"a1": AssignmentInfo(version=7, active_tasks=(t,)), "a2": AssignmentInfo(version=7, standby_tasks={t: ()})}
    args = ({"0_0"}, {"0_0"}, 1, 2, "ha")
    _check_generation(infos, {"a1": "P", "a2": "Q"}, *args)
    with pytest.raises(AssertionError, match="held twice"):
        _check_generation(infos, {"a1": "P", "a2": "P"}, *args)


def _cli(argv):
    parser = argparse.ArgumentParser(prog="rebalance-codec")
    register(parser.add_subparsers())
    args = parser.parse_args(["simulate", *argv])
    return args.func(args)


def test_command_compare_prints_table_and_writes_files(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert _cli(["--example", "scale-out", "--compare", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    for protocol in ("eager", "cooperative", "ha", "affinity"):
        assert any(line.startswith(protocol + " ") for line in lines)
    for name in (
        "compare.png",
        "compare.html",
        "compare.json",
        "ha.png",
        "ha.html",
        "ha.timeline.json",
        "ha.frames.jsonl",
        "ha.frames.pcap.gz",
        "eager.png",
    ):
        assert (tmp_path / name).is_file(), name
    assert (tmp_path / "compare.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (tmp_path / "compare.html").read_text()
    assert "<svg" in page and not re.search(r"(src|href)=\"https?:", page)  # nothing fetched from a network


def test_command_single_protocol_and_errors(tmp_path, capsys):
    scenario = tmp_path / "s.json"
    scenario.write_text(example_path("scale-out").read_text())
    assert _cli([str(scenario), "--protocol", "cooperative", "--out", str(tmp_path / "o"), "--no-plots"]) == 0
    data = json.loads((tmp_path / "o" / "cooperative.timeline.json").read_text())
    assert data["protocol"] == "cooperative" and data["metrics"]["rebalances"] == 2
    assert _cli(["--example", "nope"]) == 2
    assert "no bundled scenario" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"topology": [], "instances": [{"name": "a"}]}))
    assert _cli([str(bad)]) == 1  # the file's fault: bad input, not bad usage
    assert capsys.readouterr().err == "error: topology must be a non-empty list of subtopologies\n"


@pytest.mark.slow
def test_large_scale_out_converges():
    """The 100-instance scale-out example, run whole (its time is measured by ``bench/bench_simulate.py``, not
    asserted here)."""
    r = simulate(example("scale-out-100"), "ha", keep_frames=False)
    assert r.metrics["all_active_tasks_processing"] and r.metrics["lagging_restore_task_s"] == 0
