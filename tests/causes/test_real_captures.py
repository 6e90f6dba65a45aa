"""Real clients' captures with known events: every generation (or KIP-848 epoch) has a cause, and every event the
run did is the cause of the rebalance it started, naming the right member.

Two corpora, each with its own record of what was done and when (:mod:`tests.causes.realruns` turns a record into
the causes expected; nothing is read from the tool's output but the rebalances it tells):

* ``tests/causes/captures`` and ``codec/examples/captures`` (those the captures guide tells): made by
  ``tests/causes/captures/harness.py`` -- confluent-kafka (classic and
  ``group.protocol=consumer``), kafka-python, aiokafka and kafkajs members joining, leaving, killed without
  leaving, stalled past ``max.poll.interval.ms``, restarted as static members, changing their subscription, and a
  coordinator moved; each ``*.run.json`` holds the harness's actions and each member's own lines (its member id,
  as the client reports it);
* ``../shared/captures``: its ``runs/*/run_meta.json`` says when each member joined and left (seconds after the
  scenario started); the start is anchored on the first member's LeaveGroup (it left at ``leave_at_s``), and the
  member ids come from the corpus's own ``frames.jsonl``, the JoinGroup answers decoded by kafka-python (another
  implementation than this project's).
"""

from __future__ import annotations

import json
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED

from .realruns import expected, in_window, load, started, told

CAPTURES = Path(__file__).parent / "captures"
EXAMPLES = ROOT / "codec" / "examples" / "captures"  # the ones the captures guide tells, shipped as examples
RUNS = sorted([*CAPTURES.glob("*.run.json"), *EXAMPLES.glob("*.run.json")], key=lambda p: p.name)
CORPUS = SHARED / "captures"


def _check(rec: dict, pcap: Path) -> None:
    rebalances = told(pcap, rec["ports"])
    assert rebalances, "the capture tells rebalances"
    assert all(r.causes for r in rebalances), "every generation or epoch has a cause"
    for e in expected(rec):
        if e.kind is None:
            continue
        r = started(rebalances, e)
        if r is None and e.optional:
            continue
        window = [(w.number, w.cause.kind, w.cause.confidence, w.cause.members) for w in in_window(rebalances, e)]
        assert r is not None, f"{e.action} of {e.client_id} ({e.member}) should start a {e.kind}: {window}"


@pytest.mark.parametrize("run", RUNS, ids=[r.name.removesuffix(".run.json") for r in RUNS])
def test_each_event_of_a_real_clients_run_is_the_cause_of_the_rebalance_it_started(run):
    rec = load(run)
    _check(rec, run.with_name(run.name.replace(".run.json", ".pcap.gz")))


def test_the_runs_cover_every_event_every_client_and_both_protocols():
    records = [load(r) for r in RUNS]
    kinds = {e.kind for rec in records for e in expected(rec)}
    assert kinds >= {
        "member-joined",
        "member-left",
        "session-timeout",
        "rebalance-timeout",
        "static-member-replaced",
        "subscription-changed",
    }
    clients = {rec["client"].split()[0] for rec in records}
    assert clients == {"confluent-kafka", "kafka-python", "aiokafka", "kafkajs"}
    assert {rec["group_protocol"] for rec in records} == {"classic", "consumer"}
    # every run's pcap is there, and small
    for run in RUNS:
        pcap = run.with_name(run.name.replace(".run.json", ".pcap.gz"))
        assert pcap.stat().st_size < 100_000, pcap.name


# -- ../shared/captures ------------------------------------------------------------------------------------------


def _member_ids(run: str, scenario: str) -> dict[str, list[tuple[float, str]]]:
    """Each client's member ids over time, from the corpus's JoinGroup answers (decoded by kafka-python)."""
    with warnings.catch_warnings():  # (kafka-python's import reads its resources the deprecated way)
        warnings.simplefilter("ignore", DeprecationWarning)
        from kafka.protocol.consumer import group

    out: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for line in (CORPUS / "frames.jsonl").read_text().splitlines():
        f = json.loads(line)
        if f["scenario"] != scenario or f["api_key"] != 11 or f["direction"] != "response" or f["run"] != run:
            continue
        answer = group.JoinGroupResponse.decode(bytes.fromhex(f["hex"]), version=f["api_version"], header=True)
        if answer.member_id:
            out[f["client_id"]].append((f["ts"], answer.member_id))
    return out


def _leave_time(scenario: str, client_id: str) -> float:
    for line in (CORPUS / "frames.jsonl").read_text().splitlines():
        f = json.loads(line)
        if f["scenario"] == scenario and f["client_id"] == client_id and f["api_key"] == 13:
            return f["ts"]
    raise AssertionError(f"no LeaveGroup of {client_id} in {scenario}")


def _shared_record(run: str, scenario: str, meta: dict, port: int) -> dict:
    """A shared run's scenario as a run record (see the module docstring)."""
    members = meta["members"]
    t0 = _leave_time(scenario, members[0]["client_id"]) - members[0]["leave_at_s"]
    ids = _member_ids(run, scenario)
    actions = sorted(
        [{"t": t0 + m["join_at_s"], "action": "start", "client_id": m["client_id"]} for m in members]
        + [{"t": t0 + m["leave_at_s"], "action": "stop", "client_id": m["client_id"]} for m in members],
        key=lambda a: a["t"],
    )
    lines = {cid: [{"t": t, "member_id": m} for t, m in seen] for cid, seen in ids.items()}
    return {"scenario": scenario, "ports": [port], "actions": actions, "members": lines, "session_timeout_ms": 4000}


def _shared_runs() -> list[tuple[str, str, Path]]:
    out = []
    for meta_path in sorted(CORPUS.glob("runs/*/run_meta.json")):
        run = meta_path.parent.name
        for scenario in json.loads(meta_path.read_text())["scenarios"]:
            pcap = CORPUS / "pcaps" / run / f"{scenario}.pcap.gz"
            if pcap.exists():
                out.append((run, scenario, pcap))
    return out


SHARED_RUNS = _shared_runs()


@pytest.mark.parametrize("run, scenario, pcap", SHARED_RUNS, ids=[f"{r}/{s}" for r, s, _ in SHARED_RUNS])
def test_each_join_and_leave_of_the_shared_captures_is_the_cause_of_its_rebalance(run, scenario, pcap):
    meta = json.loads((CORPUS / "runs" / run / "run_meta.json").read_text())
    port = int(meta["bootstrap"].rsplit(":", 1)[1])
    if run != "runA":  # request-only runs (the mock cannot answer these flexible versions: README)
        rebalances = told(pcap, [port])
        assert all(r.causes for r in rebalances)
        if not rebalances:  # runB: JoinGroup v7-v9, which the mock cannot answer -- no generation forms
            assert run == "runB"
            return
        # runC: the JoinGroups are answered (v5) but not the SyncGroups (v5): each join still starts its generation
        record = _shared_record(run, scenario, meta["scenarios"][scenario], port)
        joins = [e for e in expected(record) if e.action == "start"]
        assert len(joins) == 2 and all(e.member for e in joins)
        for e in joins:
            assert started(rebalances, e) is not None, f"{e.client_id} ({e.member}) should start a member-joined"
        return
    _check(_shared_record(run, scenario, meta["scenarios"][scenario], port), pcap)


def test_the_shared_corpus_is_read():
    assert len([r for r in SHARED_RUNS if r[0] == "runA"]) >= 12
