"""The Streams leader over real bytes (wire-facts §3-§5, §9) and the rebalance rounds in vectors/."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

import pytest

from codec.assignor.leader import Subtopology, Topology
from codec.assignor.model import AssignmentConfigs
from codec.assignor.streams import FUTURE_ID, streams_leader_assign
from codec.conformance.rebalance import check_invariants, compare_round, run_round
from codec.conformance.vectors import load_rounds
from codec.group import consumer_subscription, decode_consumer, encode_consumer, encode_message
from codec.streams import NO_REBALANCE, SubscriptionInfo, decode_assignment, encode_subscription
from codec.types import HostInfo, TaskId
from codec.wire.builder import wire_class
from tests.conftest import ROOT, SHARED

STATEFUL = Subtopology(0, ("input",), ("store-changelog",), 6)
TOPO = Topology((STATEFUL,))
ENDS = {TaskId(0, p): 1000 for p in range(6)}


def member(version, pid, sums=None, *, endpoint=None, owned=(), error=0, lsv=None):
    if version > 11:
        body = encode_subscription(SubscriptionInfo(version=11, process_id=uuid.UUID(int=pid)))
        raw = version.to_bytes(4, "big") + (lsv or version).to_bytes(4, "big") + body[8:]
    else:
        raw = encode_subscription(
            SubscriptionInfo(
                version=version,
                latest_supported_version=lsv or (version if version >= 3 else -1),
                process_id=uuid.UUID(int=pid),
                user_endpoint=endpoint,
                task_offset_sums=sums or {},
                error_code=error,
            )
        )
    Owned = wire_class("ConsumerProtocolSubscription", "TopicPartition")
    return encode_consumer(
        consumer_subscription(
            3,
            topics=("input",),
            user_data=raw,
            owned_partitions=tuple(Owned(topic="input", partitions=(p,)) for p in owned),
        )
    )


def infos(result):
    out = {}
    for m, raw in result.assignments.items():
        cpa = decode_consumer("ConsumerProtocolAssignment", raw)
        out[m] = (
            sorted(p for tp in cpa.data.assigned_partitions for p in tp.partitions),
            decode_assignment(cpa.data.user_data),
        )
    return out


def test_version_and_common_version_are_min_received_and_min_supported():
    res = streams_leader_assign({"a": member(7, 1, lsv=11), "b": member(5, 2, lsv=9)}, TOPO, end_offset_sums=ENDS)
    for parts, info in infos(res).values():
        assert (info.version, info.commonly_supported_version) == (5, 9)
        # activeTasks is positional: the i-th partition's task
        assert [t.partition for t in info.active_tasks] == parts


def test_future_member_makes_a_probing_rebalance_and_joins_as_future_id():
    res = streams_leader_assign({"a": member(7, 1), "b": member(7, 2), "f": member(12, 3)}, TOPO, end_offset_sums=ENDS)
    assert res.future_members == ("f",) and res.error_code == 0 and res.version == 7
    assert any(c.process_id == FUTURE_ID for c in res.group.clients.clients)


def test_future_member_with_v2_member_is_assignment_error_at_v11():
    res = streams_leader_assign({"a": member(2, 1), "f": member(12, 2)}, TOPO, end_offset_sums=ENDS)
    for parts, info in infos(res).values():
        assert (info.version, info.commonly_supported_version, info.error_code) == (11, 11, 3)
        assert parts == [] and info.active_tasks == ()


def test_shutdown_request_reaches_everyone():
    res = streams_leader_assign({"a": member(9, 1, error=4), "b": member(9, 2)}, TOPO, end_offset_sums=ENDS)
    assert {info.error_code for _, info in infos(res).values()} == {4}


def test_host_maps_and_probing_deadline():
    cfg = AssignmentConfigs(num_standby_replicas=1, acceptable_recovery_lag=10, probing_rebalance_interval_ms=60_000)
    members = {
        "a": member(7, 1, {TaskId(0, p): -2 for p in range(6)}, endpoint="ha:1", owned=range(6)),
        "b": member(7, 2, endpoint="hb:2"),
    }  # b is new: not caught up, warmups and a probing deadline
    res = streams_leader_assign(members, TOPO, configs=cfg, end_offset_sums=ENDS, leader_member_id="a", now_ms=5)
    got = infos(res)
    a, b = got["a"][1], got["b"][1]
    assert set(a.partitions_by_host) == {HostInfo("ha", 1), HostInfo("hb", 2)}
    assert a.partitions_by_host == b.partitions_by_host and a.standby_partitions_by_host == b.standby_partitions_by_host
    assert sorted(tp.partition for tp in a.partitions_by_host[HostInfo("ha", 1)]) == list(range(6))
    assert res.group.probing_rebalance_needed
    assert a.next_rebalance_ms == 5 + 60_000  # the leader's own client carries the deadline
    assert b.next_rebalance_ms == NO_REBALANCE
    assert set(b.standby_tasks) and not b.active_tasks  # warmups only


def test_cooperative_revocation_withholds_and_asks_for_an_immediate_rejoin():
    members = {
        "a": member(7, 1, {TaskId(0, p): -2 for p in range(6)}, owned=range(6)),
        "b": member(7, 2, {TaskId(0, p): 1000 for p in range(6)}),
    }  # b caught up on everything
    res = streams_leader_assign(members, TOPO, end_offset_sums=ENDS, leader_member_id="a")
    got = infos(res)
    a_parts, a = got["a"]
    b_parts, b = got["b"]
    assert b_parts == [] and b.active_tasks == ()  # every task b would take is still owned by a
    assert b.next_rebalance_ms == 0
    withheld = set(res.group.members["b"].withheld_tasks)
    assert withheld and withheld <= set(b.standby_tasks)  # b held them as standbys: kept as standbys meanwhile
    assert len(a_parts) + len(withheld) == 6


def test_round_trip_decode_assign_encode_decode():
    """decode subscriptions -> assign -> encode -> decode gives the assignment the core computed."""
    members = {f"m{i}": member(11, i + 1, {TaskId(0, i): -2}, owned=[i]) for i in range(3)}
    res = streams_leader_assign(members, TOPO, end_offset_sums=ENDS, leader_member_id="m0")
    for m, (parts, info) in infos(res).items():
        expected = res.group.members[m]
        assert tuple(dict.fromkeys(info.active_tasks)) == tuple(sorted(expected.active_tasks))
        assert set(info.standby_tasks) == set(expected.standby_tasks)
        assert parts == sorted(tp.partition for tp in expected.active_partitions)


ROUNDS = load_rounds()


def test_rounds_exist():
    assert len(ROUNDS) >= 10
    assert {r["id"] for r in ROUNDS} >= {
        "v7-scale-out-warmups",
        "v7-cooperative-revocation",
        "error-shutdown-requested",
    }


@pytest.mark.parametrize("r", ROUNDS, ids=lambda r: r["id"])
def test_rebalance_round(r):
    want = {a["memberId"]: bytes.fromhex(a["assignment"]) for a in r["assignments"]}
    assert check_invariants(r, want) == []
    assert compare_round(r, run_round(r)) is None


def test_cli_from_join_group_and_emit_bytes(tmp_path):
    JoinResp = wire_class("JoinGroupResponse", "JoinGroupResponse")
    JM = wire_class("JoinGroupResponse", "JoinGroupResponseMember")
    body = encode_message(
        "JoinGroupResponse",
        9,
        JoinResp(
            generation_id=1,
            protocol_type="consumer",
            protocol_name="stream",
            leader="m0",
            member_id="m0",
            members=tuple(JM(member_id=f"m{i}", metadata=member(7, i + 1)) for i in range(2)),
        ),
    )
    topo = tmp_path / "topology.json"
    topo.write_text(
        json.dumps(
            {
                "subtopologies": [
                    {
                        "subtopology": 0,
                        "sourceTopics": ["input"],
                        "changelogTopics": ["store-changelog"],
                        "partitions": 6,
                    }
                ]
            }
        )
    )
    p = subprocess.run(
        [sys.executable, "-m", "codec", "assign", "--from-join-group", body.hex(), "--emit-bytes", str(topo)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    out = json.loads(p.stdout)
    assert out["version"] == 7 and len(out["members"]) == 2
    actives = sorted(t for m in out["members"] for t in m["active"])
    assert actives == [f"0_{i}" for i in range(6)]
    for m in out["members"]:  # the emitted bytes are what the JSON says
        info = decode_assignment(
            decode_consumer("ConsumerProtocolAssignment", bytes.fromhex(m["assignment"])).data.user_data
        )
        assert [str(t) for t in dict.fromkeys(info.active_tasks)] == m["active"]


def _check_emit_bytes_against_kafka(case: dict, out: dict) -> None:
    """``assign --emit-bytes``'s output ``out`` against Kafka's recorded ``output`` of ``case``: the clients'
    tasks, the probing decision, and each member's bytes carrying exactly that member's tasks."""
    kafka = {c["processId"]: (sorted(c["active"]), sorted(c["standby"])) for c in case["output"]["clients"]}
    # Kafka's ClientState lists warmups among the standbys, as the AssignmentInfo does.
    assert {c["processId"]: (sorted(c["active"]), sorted(c["standby"] + c["warmup"])) for c in out["clients"]} == kafka
    assert out["probingRebalanceNeeded"] is case["output"]["probingRebalanceNeeded"]
    assert len(out["members"]) == len(kafka)
    for m in out["members"]:  # one member per process in this case: "<processId>-0"
        info = decode_assignment(
            decode_consumer("ConsumerProtocolAssignment", bytes.fromhex(m["assignment"])).data.user_data
        )
        pid = m["memberId"].rsplit("-", 1)[0]
        want_active, want_standby = kafka[pid]
        # Cooperative revocation (wire-facts §9 step 8): a task another member owned last generation is
        # withheld from its new owner, which is told to rejoin at once, and which holds it as a standby
        # meanwhile if its client had it as a standby before.
        owned_elsewhere = {t for c in case["input"]["clients"] if c["processId"] != pid for t in c["prevActive"]}
        (prev_standby,) = [c["prevStandby"] for c in case["input"]["clients"] if c["processId"] == pid]
        handed = [t for t in want_active if t not in owned_elsewhere]
        withheld_standby = [t for t in want_active if t in owned_elsewhere and t in prev_standby]
        assert sorted(str(t) for t in set(info.active_tasks)) == handed
        assert sorted(str(t) for t in info.standby_tasks) == sorted(want_standby + withheld_standby)
        if handed != want_active:
            assert info.next_rebalance_ms == 0


def _first_kafka_case_through_emit_bytes() -> tuple[dict, dict]:
    (case, *_) = [
        json.loads(line)
        for line in (SHARED / "vectors" / "kafka-java-assignor" / "ha_unit_tests.jsonl").read_text().splitlines()
    ]
    p = subprocess.run(
        [sys.executable, "-m", "codec", "assign", "--emit-bytes", "-"],
        input=json.dumps(case["input"]),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert p.returncode == 0, p.stderr
    return case, json.loads(p.stdout)


def test_cli_emit_bytes_agrees_with_kafka():
    """``assign --emit-bytes`` on Kafka's first HA unit-test case assigns what Kafka's own assignor did (the
    case's recorded ``output``), and each member's emitted bytes carry exactly that member's tasks."""
    _check_emit_bytes_against_kafka(*_first_kafka_case_through_emit_bytes())


def test_the_emit_bytes_check_fails_on_a_broken_output():
    """The check above can fail: with one member's bytes swapped for another's, or one task moved between
    clients in the JSON, it rejects the output."""
    case, out = _first_kafka_case_through_emit_bytes()
    swapped = json.loads(json.dumps(out))
    swapped["members"][0]["assignment"], swapped["members"][1]["assignment"] = (
        out["members"][1]["assignment"],
        out["members"][0]["assignment"],
    )
    with pytest.raises(AssertionError):
        _check_emit_bytes_against_kafka(case, swapped)
    moved = json.loads(json.dumps(out))
    task = moved["clients"][0]["active"].pop()
    moved["clients"][1]["active"].append(task)
    with pytest.raises(AssertionError):
        _check_emit_bytes_against_kafka(case, moved)
