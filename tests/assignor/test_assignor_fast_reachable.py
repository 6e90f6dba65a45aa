"""``high_availability_fast`` wherever an assignor is named (issue #19): the JSON group's ``"assignor"``,
``assign --assignor``, the Streams leader over bytes, the conformance rounds' runner and ``simulate``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from codec.assignor import (
    ASSIGNOR_NAMES,
    AssignmentError,
    assign,
    group_from_json,
    result_to_json,
)
from codec.conformance.rebalance import check_invariants, run_round
from codec.conformance.vectors import load_rounds
from codec.simulate import PROTOCOLS
from tests.conftest import ROOT

FAST = "high_availability_fast"
PID = "00000000-0000-0000-0000-00000000000{}".format
ALL = {"0_0": 1000, "0_1": 1000, "0_2": 1000}


def _group(assignor: str | None = None) -> dict:
    """Clients 1 and 2 caught up on all three tasks (1 runs 0_0 and 0_1, 2 runs 0_2, each the other's
    standby); client 3 is new and has nothing."""
    doc = {
        "configs": {"numStandbyReplicas": 1, "maxWarmupReplicas": 1, "acceptableRecoveryLag": 100},
        "tasks": [{"subtopology": 0, "partition": p, "stateful": True} for p in range(3)],
        "endOffsetSums": ALL,
        "clients": [
            {"processId": PID(1), "prevActive": ["0_0", "0_1"], "prevStandby": ["0_2"], "taskOffsetSums": ALL},
            {"processId": PID(2), "prevActive": ["0_2"], "prevStandby": ["0_0", "0_1"], "taskOffsetSums": ALL},
            {"processId": PID(3)},
        ],
    }
    if assignor:
        doc["assignor"] = assignor
    return doc


def _check_hand_derived(out: dict) -> None:
    """By hand: 3 tasks over 3 clients balance at one active each and two copies each. The new client is
    caught up on nothing, so no active moves yet (1 and 2 keep theirs) and it gets the one warmup, for a
    task client 1 gives up (client 1 is the one over its quota); a probing rebalance follows."""
    by_pid = {c["processId"]: c for c in out["clients"]}
    assert out["probingRebalanceNeeded"] is True
    assert by_pid[PID(1)]["active"] == ["0_0", "0_1"] and by_pid[PID(2)]["active"] == ["0_2"]
    assert by_pid[PID(3)]["active"] == [] and by_pid[PID(3)]["standby"] == []
    assert len(by_pid[PID(3)]["warmup"]) == 1 and by_pid[PID(3)]["warmup"][0] in ("0_0", "0_1")


def test_named_in_the_json_group():
    assert FAST in ASSIGNOR_NAMES
    _check_hand_derived(result_to_json(assign(group_from_json(_group(FAST)))))


def test_unknown_assignor_is_one_clear_error():
    with pytest.raises(AssignmentError, match="unknown assignor 'high_availability_faster'"):
        group_from_json(_group("high_availability_faster"))


def test_assign_cli_flag_overrides_the_json(tmp_path):
    path = tmp_path / "group.json"
    path.write_text(json.dumps(_group("high_availability")))
    out = subprocess.run(
        [sys.executable, "-m", "codec", "assign", "--assignor", FAST, str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    _check_hand_derived(json.loads(out.stdout))


def test_streams_leader_over_bytes_and_conformance_runner():
    """Every bundled rebalance round, run with the fast assignor instead, keeps the rounds' invariants
    (the bytes decode, one active per task, standbys off their active's client, warmups bounded)."""
    rounds = load_rounds()
    assert rounds
    for r in rounds:
        r = dict(r, assignor=FAST)
        assert check_invariants(r, run_round(r)) == [], r["id"]


def test_simulate_compares_it():
    from codec.simulate import simulate
    from codec.simulate.scenario import example_path, load_scenario

    assert PROTOCOLS["ha_fast"].assignor == FAST
    scenario = load_scenario(example_path("scale-out"))
    ha = simulate(scenario, "ha", keep_frames=False)
    fast = simulate(scenario, "ha_fast", keep_frames=False)
    assert ha.metrics["rebalances"] >= fast.metrics["rebalances"] > 0
