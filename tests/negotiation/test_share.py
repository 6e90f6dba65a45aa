"""Share groups (KIP-932) in ``negotiate`` (issue #30). Every expectation is Kafka's, cited where it is written,
at the 4.1.0 release (apache/kafka 13f70256): ``KafkaApis.handleShareGroupHeartbeat`` (the share.version gate),
``GroupMetadataManager.getOrMaybeCreateShareGroup`` ("Group %s is not a share group.", GroupIdNotFoundException),
``getOrMaybeCreateConsumerGroup`` and ``castToStreamsGroup`` (the other way round), ``classicGroupJoin``
(INCONSISTENT_GROUP_PROTOCOL for a group that is neither consumer nor classic), ``throwIfShareGroupIsFull``
(group.share.max.size, default 200) and ``ShareVersion`` (SV_1: "a preview in 4.1")."""

from __future__ import annotations

import subprocess
import sys

import pytest

from codec.negotiation.scenario import ScenarioError
from tests.negotiation.test_kafka4 import ROOT, _bundled, _join, _last_join, _run


def test_share_groups_need_share_version_1_on_a_4_1_broker():
    phases = _bundled("kip932-share-not-enabled")
    assert (_last_join(phases[0])["error"], phases[0]["group"]) == ("UNSUPPORTED_VERSION", None)
    assert "share.version=0" in _last_join(phases[0])["what"]
    assert _last_join(phases[0])["rpc"] == "ShareGroupHeartbeat v1"
    assert phases[1]["group"] == "consumer" and phases[1]["canJoin"]["share"] == "UNSUPPORTED_VERSION"
    # a 4.0 broker has only the early access's v0: a 4.1 share consumer is refused even with share.version 1
    (phase,) = _run([_join("S", "share", "4.1")], release="4.0", shareVersion=1)
    assert _last_join(phase)["error"] == "UNSUPPORTED_VERSION" and "share" not in phase["canJoin"]
    (phase,) = _run([_join("S", "share", "4.1")], release="4.1", shareVersion=1)
    assert (_last_join(phase)["error"], phase["group"], phase["members"]) == (None, "share", {"S": "share"})


def test_no_other_protocol_takes_a_share_groups_id():
    phases = _bundled("kip932-share-group-type-conflict")
    assert [p["group"] for p in phases] == ["share"] * 9
    errors = [(_last_join(p)["member"], _last_join(p)["error"]) for p in phases if p["steps"][-1]["action"] == "join"]
    assert errors == [
        ("S1", None),
        ("S2", None),
        ("C1", "GROUP_ID_NOT_FOUND"),
        ("K1", "INCONSISTENT_GROUP_PROTOCOL"),
        ("T1", "GROUP_ID_NOT_FOUND"),
        ("C2", "GROUP_ID_NOT_FOUND"),
        ("S3", None),
    ]
    assert phases[6]["members"] == {}  # empty, still a share group: C2 is refused all the same
    assert phases[6]["canJoin"] == {
        "classic": "INCONSISTENT_GROUP_PROTOCOL",
        "consumer": "GROUP_ID_NOT_FOUND",
        "streams": "GROUP_ID_NOT_FOUND",
        "share": "yes",
    }


def test_a_share_consumer_does_not_replace_an_empty_classic_group():
    phases = _bundled("kip932-share-id-taken")
    assert [p["group"] for p in phases] == ["classic"] * 4 + ["consumer"] * 2
    assert [_last_join(phases[i])["error"] for i in (1, 3, 5)] == ["GROUP_ID_NOT_FOUND"] * 3
    assert "an empty classic group" in _last_join(phases[3])["what"]
    # a ConsumerGroupHeartbeat does replace it (maybeDeleteEmptyClassicGroup)
    assert (
        _last_join(phases[4])["error"] is None and "replaces the empty classic group" in _last_join(phases[4])["what"]
    )


def test_the_share_group_size_limit():
    phases = _run(
        [_join("A", "share", "4.1"), _join("B", "share", "4.1")], release="4.1", shareVersion=1, shareMaxSize=1
    )
    assert (_last_join(phases[1])["error"], phases[1]["members"]) == ("GROUP_MAX_SIZE_REACHED", {"A": "share"})


@pytest.mark.parametrize(
    "event, broker, message",
    [
        ({"join": "S", "groupProtocol": "share", "client": "4.0"}, {}, "first in 4.1"),
        ({"join": "S", "groupProtocol": "classic", "app": "share", "client": "4.1"}, {}, "only the share protocol"),
        ({"join": "S", "groupProtocol": "share", "app": "consumer", "client": "4.1"}, {}, "not for a consumer"),
        ({"join": "S", "groupProtocol": "share", "client": "4.1"}, {"shareVersion": 2}, "broker.shareVersion"),
        (
            {"join": "S", "groupProtocol": "share", "client": "4.1"},
            {"rebalanceProtocols": ["share"]},
            "unknown protocol",
        ),
    ],
)
def test_bad_share_scenarios_are_one_error(event, broker, message):
    with pytest.raises(ScenarioError, match=message):
        _run([event], release="4.1", **broker)


def test_bundled_share_scenarios_run_from_the_command_line():
    for name in ("kip932-share-not-enabled", "kip932-share-group-type-conflict", "kip932-share-id-taken"):
        p = subprocess.run(
            [sys.executable, "-m", "codec", "negotiate", "--scenario", name],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert p.returncode == 0 and "ShareGroupHeartbeat v1" in p.stdout, (name, p.stderr)
