"""``assign --consumer A --check CAPTURE`` on the shared captures (real clients' JoinGroup and SyncGroup bytes,
librdkafka's mock as the broker; topics orders/6 and events/3, from the captures' README), and the bytes paths.

What the captures show (the closing note of issue #44 explains each): the Java client's leader (kafka-clients
3.9.2) gives Kafka's assignment in every generation, whichever assignor; librdkafka's and kafka-python's range and
roundrobin do too; kafka-python's sticky differs from the second rebalance with owned partitions on; its
cooperative-sticky and librdkafka's differ in some generations."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from codec.assignor.consumer.wire import assignment_bytes, check_capture
from codec.group import decode_consumer
from tests.conftest import ROOT, SHARED

PCAPS = SHARED / "captures" / "pcaps" / "runA"
METADATA = {"topics": {"orders": 6, "events": 3}}
needs_captures = pytest.mark.skipif(not PCAPS.is_dir(), reason="shared/captures not present")


def verdicts(name: str) -> list[dict]:
    return list(check_capture(PCAPS / f"{name}.pcap.gz", METADATA, "auto"))


@needs_captures
@pytest.mark.parametrize("scenario", ["java-default", "java-roundrobin", "java-sticky", "java-cooperative-sticky"])
def test_the_java_clients_leader_gives_kafkas_assignment(scenario):
    got = verdicts(scenario)
    assert len(got) >= 5 and all(v["checked"] and v["matches"] for v in got), got


@needs_captures
@pytest.mark.parametrize("scenario", ["ck-default", "ck-roundrobin", "kp-default", "mixed-range"])
def test_range_and_roundrobin_of_other_clients_match(scenario):
    assert all(v["checked"] and v["matches"] for v in verdicts(scenario))


@needs_captures
def test_kafka_pythons_sticky_differs_and_says_where():
    got = {v["generation"]: v for v in verdicts("kp-sticky")}
    assert got[2]["matches"] and got[3]["matches"] and got[7]["matches"]
    assert not got[4]["matches"]
    d = {x["memberId"]: x for x in got[4]["differences"]}
    assert d["0x7f8d9400d2f0"]["missing"] == {"events": [1], "orders": [0]}
    assert d["0x7f8d9400d2f0"]["extra"] == {"orders": [1, 3, 5]}


@needs_captures
def test_the_cli_exits_1_when_a_generation_differs(tmp_path):
    meta = tmp_path / "meta.json"
    meta.write_text(json.dumps(METADATA))

    def run(scenario: str):
        return subprocess.run(
            [sys.executable, "-m", "codec", "assign", "--consumer", "auto", "--check",
             str(PCAPS / f"{scenario}.pcap.gz"), str(meta)],
            cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip

    same, other = run("java-sticky"), run("kp-sticky")
    assert "Traceback" not in same.stderr + other.stderr
    assert same.returncode == 0 and other.returncode == 1
    assert len(same.stdout.splitlines()) == 5
    assert any(not json.loads(line)["matches"] for line in other.stdout.splitlines())


def test_the_metadata_must_name_the_subscribed_topics():
    from codec.assignor.consumer.wire import CapturedGeneration, check_generation
    from codec.group import consumer_subscription, encode_consumer

    sub = encode_consumer(consumer_subscription(0, topics=("orders",), user_data=None))
    gen = CapturedGeneration("g", 1, "range", "m", None, [("m", None, sub)], {"m": assignment_bytes([("orders", 0)])})
    v = check_generation(gen, {"topics": {}}, "auto")
    assert v["checked"] is False and "orders" in v["why"]
    assert check_generation(gen, {"topics": {"orders": 1}}, "auto")["matches"] is True


def test_assignment_bytes_group_by_topic():
    msg = decode_consumer("ConsumerProtocolAssignment", assignment_bytes([("b", 1), ("a", 0), ("b", 0)]))
    assert [(t.topic, list(t.partitions)) for t in msg.data.assigned_partitions] == [("b", [1, 0]), ("a", [0])]


def test_bad_input_is_one_line():
    def run(*args: str, stdin: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "codec", "assign", *args], cwd=ROOT, input=stdin,
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip

    for args, stdin in [
        (("--consumer", "range"), '{"topics": {"t": "six"}, "members": []}'),
        (("--consumer", "range"), '{"topics": {"t": 6}, "members": [{"memberId": 1}]}'),
        (("--consumer", "sticky"), '{"topics": {"t": 6}, "members": [{"memberId": "a", "userData": "zz"}]}'),
        (("--consumer", "auto"), '{"topics": {"t": 6}, "members": []}'),
        (("--consumer", "uniform"), '{"topics": {}, "topicIds": {"t": "x"}, "members": []}'),
        (("--consumer", "range"), '{"topics": {"t": 6}, "preferRackAwareLogic": "yes", "members": []}'),
        (("--consumer", "uniform"), '{"topics": {"t": 6}, "subscriptionType": "mixed", "members": []}'),
    ]:
        p = run(*args, stdin=stdin)
        assert p.returncode == 1 and "Traceback" not in p.stderr
        assert len(p.stdout.splitlines()) == 1 and "error" in json.loads(p.stdout), p.stdout
    p = run(
        "--consumer",
        "range",
        "--lines",
        stdin='{"topics": {"t": 2}, "members": [{"memberId": "a", "topics": ["t"]}]}\n[]\n',
    )
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert lines[0]["assignment"] == {"a": [{"topic": "t", "partition": 0}, {"topic": "t", "partition": 1}]}
    assert "error" in lines[1] and p.returncode == 1
