"""Kafka's own assignor unit-test cases and the KIP-441 examples, through ``rebalance-codec assign``."""

from __future__ import annotations

import json
import subprocess
import sys

from assignor_invariants import assert_valid_assignment
from tests.conftest import ROOT, SHARED

CASES = [
    json.loads(line)
    for line in (SHARED / "vectors" / "kafka-java-assignor" / "ha_unit_tests.jsonl").read_text().splitlines()
    if line
]


def _cli(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codec", "assign", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def test_every_kafka_case_through_the_cli():
    p = _cli("--lines", stdin="".join(json.dumps(c["input"]) + "\n" for c in CASES))
    assert p.returncode == 0, p.stdout
    results = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(results) == len(CASES)
    for case, got in zip(CASES, results):
        want = case["output"]
        assert got["probingRebalanceNeeded"] == want["probingRebalanceNeeded"], case["test"]
        assert_valid_assignment(case["input"], got, case["input"]["configs"]["maxWarmupReplicas"])
        # Kafka hands warmups out as standbys: compare active sets and standby+warmup sets per client
        by_pid = {c["processId"]: c for c in got["clients"]}
        for c in want["clients"]:
            mine = by_pid[c["processId"]]
            assert sorted(mine["active"]) == sorted(c["active"]), case["test"]
            assert sorted(mine["standby"] + mine["warmup"]) == sorted(c["standby"]), case["test"]


def _kip_group(clients, lags, num_tasks=3):
    """KIP-441's notation: tasks T1..Tn are 0_1..0_n, instances I1.. are process ids ...0001.."""
    tasks = [{"subtopology": 0, "partition": i, "stateful": True} for i in range(1, num_tasks + 1)]
    return {
        "assignor": "high_availability",
        "configs": {"numStandbyReplicas": 1},
        "tasks": tasks,
        "endOffsetSums": {f"0_{i}": 10_000_000 for i in range(1, num_tasks + 1)},
        "clients": [
            {
                "processId": f"00000000-0000-0000-0000-00000000000{n}",
                "capacity": 1,
                "prevActive": [f"0_{t}" for t in a],
                "prevStandby": [f"0_{t}" for t in s],
                "taskOffsetSums": {f"0_{t}": (-2 if t in a else 10_000_000 - lags) for t in a + s},
            }
            for n, (a, s) in clients.items()
        ],
    }


def _rows(table: str) -> dict[str, list[str]]:
    lines = [ln for ln in table.splitlines() if "|" in ln and not set(ln) <= set("-|")]
    width = lines[0].count("|")
    out = {}
    for line in lines:
        cells = [c.strip() for c in line.split("|")]
        cells += [""] * (width + 1 - len(cells))
        out[cells[0]] = cells[1:]
    return out


def test_kip_scale_out_table():
    # KIP-441, "scaling out": I1 runs T1 and T3, I2 runs T2 (standbys T1, T3 on I2 / T2 on I1); I3 joins empty.
    group = _kip_group({1: ([1, 3], [2]), 2: ([2], [1, 3]), 3: ([], [])}, lags=0)
    p = _cli("--format", "table", stdin=json.dumps(group))
    rows = _rows(p.stdout)
    assert rows[""] == ["...0001", "...0002", "...0003"]
    assert rows["active"] == ["0_1, 0_3", "0_2", ""]  # "First Rebalance (catching-up)": actives stay put
    assert rows["warmup"][:2] == ["", ""] and "0_3" in rows["warmup"][2]  # I3 warms up the task it will own
    assert "probing rebalance needed: yes" in p.stdout


def test_kip_scale_in_synced_table():
    # KIP-441, "scaling in, standbys in sync": I3 leaves; its task moves to an in-sync standby at once.
    group = _kip_group({1: ([1], [2, 4]), 2: ([2], [1, 3])}, lags=0, num_tasks=4)
    group["clients"][0]["taskOffsetSums"]["0_3"] = 10_000_000  # I1 holds an in-sync copy of T3 and ...
    group["clients"][0]["prevStandby"].append("0_3")
    group["clients"][1]["taskOffsetSums"]["0_4"] = 10_000_000  # ... I2 of T4, as in the KIP's table
    group["clients"][1]["prevStandby"].append("0_4")
    p = _cli("--format", "table", stdin=json.dumps(group))
    rows = _rows(p.stdout)
    actives = [set(cell.split(", ")) for cell in rows["active"]]
    assert set().union(*actives) == {"0_1", "0_2", "0_3", "0_4"} and [len(a) for a in actives] == [2, 2]
    assert rows["warmup"] == ["", ""]  # nobody restores from scratch
