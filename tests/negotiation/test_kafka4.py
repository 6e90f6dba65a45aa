"""Kafka 4's migration paths between the classic, consumer (KIP-848) and streams (KIP-1071) protocols
(issue #21). Every expectation is Kafka's group coordinator's rule, cited where it is written; line numbers
are those of group-coordinator/.../GroupMetadataManager.java at Kafka 1eb7644 (the 4.0 development line)
unless another file is named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codec.negotiation.kafka4 import run_kafka4_scenario
from codec.negotiation.scenario import ScenarioError

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "codec" / "examples" / "negotiation"


def _run(events, **broker):
    return run_kafka4_scenario({"kind": "kafka4-migration", "broker": broker, "events": events})


def _bundled(name):
    return run_kafka4_scenario(json.loads((BUNDLED / f"{name}.json").read_text()))


def _join(name, protocol, client="4.0", **kw):
    return {"join": name, "groupProtocol": protocol, "client": client, **kw}


def _restart(name, protocol, client="4.0", **kw):
    return {"restart": name, "groupProtocol": protocol, "client": client, **kw}


def _last_join(phase):
    return [s for s in phase["steps"] if s["action"] == "join"][-1]


def test_online_upgrade_when_the_first_heartbeat_joins():
    # getOrMaybeCreateConsumerGroup (line 793): a non-empty classic group with protocol type "consumer" is
    # converted (convertToConsumerGroup) and its classic members carried over
    phases = _bundled("kip848-classic-to-consumer")
    assert [p["group"] for p in phases] == ["classic"] * 3 + ["consumer"] * 3
    assert phases[3]["members"] == {"B": "classic", "C": "classic", "A": "consumer"}
    assert _last_join(phases[3])["error"] is None and "online upgrade" in _last_join(phases[3])["what"]
    # ConsumerGroupHeartbeat v1 (SubscribedTopicRegex) is the 4.0 client's; a 3.8 client speaks v0
    assert _last_join(phases[3])["rpc"] == "ConsumerGroupHeartbeat v1"
    assert _last_join(phases[4])["rpc"] == "ConsumerGroupHeartbeat v0"
    assert phases[-1]["members"] == {"A": "consumer", "B": "consumer", "C": "consumer"}


def test_online_downgrade_when_the_last_consumer_member_leaves():
    # classicGroupJoin (line 3998): a JoinGroup to a non-empty consumer group joins it as a classic member;
    # consumerGroupFenceMember (line 2786): the last consumer-protocol member leaving converts the group back
    phases = _bundled("kip848-consumer-to-classic")
    assert [p["group"] for p in phases] == ["consumer"] * 5 + ["classic"]
    assert phases[4]["members"] == {"C": "consumer", "A": "classic", "B": "classic"}
    assert "online downgrade" in phases[5]["steps"][0]["what"]
    assert phases[5]["members"] == {"A": "classic", "B": "classic", "C": "classic"}


@pytest.mark.parametrize(
    "policy,upgrades,downgrades",
    [
        # ConsumerGroupMigrationPolicy: isUpgradeEnabled / isDowngradeEnabled
        ("bidirectional", True, True),
        ("upgrade", True, False),
        ("downgrade", False, True),
        ("disabled", False, False),
        ("DISABLED", False, False),  # CaseInsensitiveValidString (GroupCoordinatorConfig line 241)
    ],
)
def test_the_migration_policy(policy, upgrades, downgrades):
    up = _run([_join("A", "classic"), _join("B", "consumer")], migrationPolicy=policy)
    assert (up[1]["group"], _last_join(up[1])["error"]) == (
        ("consumer", None) if upgrades else ("classic", "GROUP_ID_NOT_FOUND")
    )
    down = _run([_join("A", "consumer"), _join("B", "classic"), {"leave": "A"}], migrationPolicy=policy)
    # a classic member joins a non-empty consumer group whatever the policy (classicGroupJoin, line 3998)
    assert down[1]["members"] == {"A": "consumer", "B": "classic"}
    assert down[2]["group"] == ("classic" if downgrades else "consumer")
    assert down[2]["members"] == {"B": "classic"}


def test_disabled_migration_still_allows_the_offline_path():
    # maybeDeleteEmptyClassicGroup: an empty classic group is replaced whatever the policy
    phases = _bundled("kip848-migration-disabled")
    assert [p["group"] for p in phases] == ["classic"] * 4 + ["consumer"] * 3
    assert _last_join(phases[2])["error"] == "GROUP_ID_NOT_FOUND"
    assert phases[2]["members"] == {"B": "classic"}  # the restarted member is out of the group
    assert phases[3]["members"] == {} and phases[3]["canJoin"]["consumer"] == "yes"
    assert phases[6]["members"] == {"B": "classic"}


def test_a_classic_group_of_another_protocol_type_is_not_upgraded():
    # validateOnlineUpgrade (line 1158): usesConsumerGroupProtocol() is false for a Connect group
    phases = _run([_join("W", "classic", app="connect"), _join("C", "consumer")])
    assert (_last_join(phases[1])["error"], phases[1]["group"]) == ("GROUP_ID_NOT_FOUND", "classic")
    assert "consumer embedded protocol" in _last_join(phases[1])["what"]


def test_group_size_limits():
    # validateOnlineUpgrade: numMembers() > consumerGroupMaxSize refuses the upgrade (line 1162)
    phases = _run([_join("A", "classic"), _join("B", "classic"), _join("C", "consumer")], consumerMaxSize=1)
    assert phases[2]["group"] == "classic" and _last_join(phases[2])["error"] == "GROUP_ID_NOT_FOUND"
    # ... and a converted group that is already full refuses the joining member (throwIfConsumerGroupIsFull,
    # line 1741: numMembers() >= max), so nothing is written and the group stays classic
    phases = _run([_join("A", "classic"), _join("B", "classic"), _join("C", "consumer")], consumerMaxSize=2)
    assert phases[2]["group"] == "classic" and _last_join(phases[2])["error"] == "GROUP_MAX_SIZE_REACHED"
    phases = _run([_join("A", "consumer"), _join("B", "consumer"), _join("C", "classic")], consumerMaxSize=2)
    assert _last_join(phases[2])["error"] == "GROUP_MAX_SIZE_REACHED"  # line 1919, before the protocol check
    # validateOnlineDowngradeWithFencedMember: numMembers() - 1 > classicGroupMaxSize keeps a consumer group
    phases = _run(
        [_join("A", "consumer"), _join("B", "classic"), _join("C", "classic"), {"leave": "A"}], classicMaxSize=1
    )
    assert phases[3]["group"] == "consumer" and phases[3]["members"] == {"B": "classic", "C": "classic"}


def test_a_classic_member_needs_a_protocol_all_classic_members_offer():
    # ConsumerGroup.supportsClassicProtocols: some protocol name supported by every classic member
    phases = _run(
        [
            _join("A", "consumer"),
            _join("B", "classic", assignors=["range"]),
            _join("C", "classic", assignors=["roundrobin"]),
            _join("D", "classic", assignors=["roundrobin", "range"]),
        ]
    )
    assert _last_join(phases[2])["error"] == "INCONSISTENT_GROUP_PROTOCOL"
    assert _last_join(phases[3])["error"] is None
    # ... and with no classic member yet, any name will do (getOrDefault(name, 0) == 0)
    phases = _run([_join("A", "consumer"), _join("B", "classic", assignors=["anything"])])
    assert _last_join(phases[1])["error"] is None


def test_an_empty_consumer_group_becomes_classic():
    # classicGroupJoinToClassicGroup -> maybeDeleteEmptyConsumerGroup (line 4040)
    phases = _run([_join("A", "consumer"), {"leave": "A"}, _join("B", "classic")])
    assert [p["group"] for p in phases] == ["consumer", "consumer", "classic"]


@pytest.mark.parametrize(
    "broker",
    [
        {"groupVersion": 0},  # GroupVersion.isConsumerRebalanceProtocolSupported: level >= 1
        {"rebalanceProtocols": ["classic"]},  # KafkaApis.isConsumerGroupProtocolEnabled (line 3787)
    ],
)
def test_the_consumer_protocol_gates(broker):
    phases = _run([_join("A", "consumer"), _join("B", "classic")], **broker)
    assert _last_join(phases[0])["error"] == "UNSUPPORTED_VERSION" and phases[0]["group"] is None
    assert phases[1]["group"] == "classic"


def test_streams_groups_have_no_online_migration():
    phases = _bundled("kip1071-streams-offline-migration")
    assert [p["group"] for p in phases] == ["classic"] * 4 + ["streams"] * 3
    assert _last_join(phases[2])["error"] == "GROUP_ID_NOT_FOUND"  # castToStreamsGroup
    assert _last_join(phases[4])["error"] is None  # getOrCreateStreamsGroup: empty classic group replaced
    assert _last_join(phases[5])["error"] == "INCONSISTENT_GROUP_PROTOCOL"  # classicGroupJoin: not consumer/classic
    assert phases[6]["members"] == {"S1": "streams", "S2": "streams"}
    assert _last_join(phases[6])["rpc"] == "StreamsGroupHeartbeat v0"


def test_streams_and_consumer_groups_refuse_each_other():
    both = {"release": "4.1", "streamsVersion": 1, "rebalanceProtocols": ["classic", "consumer", "streams"]}
    phases = _run([_join("S", "streams", "4.1"), _join("C", "consumer")], **both)
    assert _last_join(phases[1])["error"] == "GROUP_ID_NOT_FOUND"  # "Group ... is not a consumer group"
    phases = _run([_join("C", "consumer"), _join("S", "streams", "4.1")], **both)
    assert _last_join(phases[1])["error"] == "GROUP_ID_NOT_FOUND"  # "Group ... is not a streams group."


@pytest.mark.parametrize(
    "broker",
    [
        {"release": "4.0", "streamsVersion": 1, "rebalanceProtocols": ["classic", "consumer", "streams"]},
        {"release": "4.1"},  # StreamsVersion.LATEST_PRODUCTION is SV_0 in 4.1: early access only
        {"release": "4.1", "streamsVersion": 1},  # streams not among the rebalance protocols
    ],
)
def test_the_streams_protocol_gates(broker):
    phases = _run([_join("S", "streams", "4.1")], **broker)
    assert _last_join(phases[0])["error"] == "UNSUPPORTED_VERSION"


@pytest.mark.parametrize(
    "events,where",
    [
        (
            [_join("A", "consumer", "3.6")],
            "events[0].client: a 3.6 client has no group.protocol=consumer (first in 3.7)",
        ),
        ([_join("A", "streams", "4.0")], "events[0].client: a 4.0 client has no group.protocol=streams (first in 4.1)"),
        ([_join("A", "consumer", app="streams")], "events[0].app: group.protocol=consumer is not for a streams"),
        ([_join("A", "kip848")], "events[0].groupProtocol: unknown group.protocol 'kip848'"),
        ([{"leave": "A"}], "events[0].leave: 'A' has not joined before"),
        ([_join("A", "classic"), _join("A", "classic")], "events[1].join: 'A' is already in the group"),
        ([{"join": "A", "leave": "A"}], "events[0]: needs exactly one of"),
        ([_join("A", "classic", assignors="range")], "events[0].assignors: needs a list"),
        ([], "events: needs a non-empty list"),
    ],
)
def test_refusals(events, where):
    with pytest.raises(ScenarioError) as e:
        _run(events)
    assert str(e.value).startswith(where), str(e.value)


def test_broker_refusals():
    with pytest.raises(ScenarioError, match=r"^broker.migrationPolicy: unknown"):
        _run([_join("A", "classic")], migrationPolicy="sideways")
    with pytest.raises(ScenarioError, match=r"^broker.release: unknown broker release '3.9'"):
        _run([_join("A", "classic")], release="3.9")
    with pytest.raises(ScenarioError, match=r"^broker.groupVersion: needs an integer in 0..1, got a string"):
        _run([_join("A", "classic")], groupVersion="1")


def test_through_the_cli():
    p = subprocess.run(
        [sys.executable, "-m", "codec", "negotiate", "--scenario", "kip848-classic-to-consumer"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    assert (
        "A (ConsumerGroupHeartbeat v1): converts the classic group to a consumer group (online upgrade) and joins it"
    ) in p.stdout
    assert "-> group: consumer (was classic); members: B classic, C classic, A consumer" in p.stdout
    assert p.stdout.rstrip().endswith(
        "the group runs: phase 1 classic, phase 2 classic, phase 3 classic, "
        "phase 4 consumer, phase 5 consumer, phase 6 consumer"
    )


def test_names_java_can_write_are_shown_safely(tmp_path):
    # a member named with a lone surrogate, a newline and an escape sequence: one line each, valid UTF-8
    path = tmp_path / "hostile.json"
    path.write_text(
        '{"kind": "kafka4-migration", "name": "x\\u001b[2J", "events": '
        '[{"join": "A\\ud800\\n", "groupProtocol": "classic"}]}'
    )
    for fmt in ("text", "json"):
        p = subprocess.run(
            [sys.executable, "-m", "codec", "negotiate", "--scenario", str(path), "--format", fmt],
            capture_output=True,
            cwd=ROOT,
            check=False,
        )
        assert p.returncode == 0, p.stderr
        out = p.stdout.decode("utf-8")  # strict: valid UTF-8
        assert "\x1b" not in out
        if fmt == "text":
            assert "phase 1: A\\ud800\\x0a joins with group.protocol=classic (client 4.0)" in out
        else:
            assert json.loads(out)[0]["steps"][0]["member"] == "A\ud800\n"
