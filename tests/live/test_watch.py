"""``rebalance-codec watch`` as a subprocess against librdkafka's mock cluster (from the confluent-kafka wheel), its
``__consumer_offsets`` (50 partitions) filled with records: example groups written with the codec
(``codec.live.examples``, whose own record of what it played is the expectation) and Kafka-written
GroupMetadataValue records (``vectors/kafka-java-offsets.jsonl``). Each test takes a few seconds."""

from __future__ import annotations

import json
import signal
import time

import pytest

pytest.importorskip("confluent_kafka")
pytest.importorskip("prometheus_client")

from prometheus_client.parser import text_string_to_metric_families

from codec.kafka4 import encode_record
from codec.live.examples import ClassicGroup, HeartbeatGroup, example_cluster
from codec.live.mock import MockCluster, partition_for
from tests.conftest import ROOT, load_jsonl

from .watchproc import WatchProcess


@pytest.fixture
def cluster():
    with MockCluster() as mc:
        yield mc


def _member_ids(labels: list[str]) -> list[str]:
    return sorted(label.split(" (")[0] for label in labels)


def _check_played(records: list[dict], played) -> None:
    """Each group's told generations or epochs are exactly what its builder played, once each, in order, with
    who joined and left."""
    for p in played:
        told = [r for r in records if r["group"] == p.group]
        numbers = [r["generation"] if p.kind == "generation" else r["epoch"] for r in told]
        assert numbers == [n for n, _, _ in p.steps], p.group
        for r, (n, joined, left) in zip(told, p.steps):
            if r["changes"] is None:  # the first one seen: no earlier one to compare with
                assert n == p.steps[0][0] and r["cause"]["kind"] == "first-seen"
                continue
            assert _member_ids(r["changes"]["joined"]) == sorted(joined), (p.group, n)
            assert _member_ids(r["changes"]["left"]) == sorted(left), (p.group, n)
            # the cause: the member the builder added or removed (records cannot tell a leave from a timeout)
            kind, members = ("member-joined", joined) if joined else ("member-left", left)
            assert (r["cause"]["kind"], sorted(r["cause"]["members"])) == (kind, sorted(members)), (p.group, n)
            assert r["cause"]["confidence"] == ("certain" if joined else "uncertain")


def _metrics(text: str) -> dict[str, list]:
    return {f.name: f.samples for f in text_string_to_metric_families(text)}


def test_replay_tells_every_generation_and_epoch_once_in_order_and_the_metrics_count_them(cluster):
    records, played = example_cluster(streams_members=20, consumer_groups=3, commits_per_generation=3)
    cluster.produce(records)
    expected = sum(len(p.steps) for p in played)
    with WatchProcess(
        "--bootstrap-server", cluster.bootstrap, "--from", "beginning", "--json", "--metrics-port", "0"
    ) as w:
        port = w.metrics_port()
        told = w.records(expected)
        time.sleep(0.5)
        assert not [line for line in w.out_lines if '"type": "generation"' in line or '"type": "epoch"' in line][
            expected:
        ]  # nothing told twice
        _check_played(told, played)
        m = _metrics(w.scrape(port))
        assert w.stop() == 0
    by_group, by_cause = {}, {}
    for s in m["rebalance_codec_rebalances"]:
        assert s.name == "rebalance_codec_rebalances_total"
        by_group[s.labels["group"]] = by_group.get(s.labels["group"], 0) + s.value
        by_cause[(s.labels["group"], s.labels["cause"])] = s.value
    assert by_group == {p.group: len(p.steps) for p in played}
    for p in played:
        joins = sum(1 for _, joined, _ in p.steps[1:] if joined)
        assert by_cause[(p.group, "first-seen")] == 1 and by_cause.get((p.group, "member-joined"), 0) == joins
        assert by_cause.get((p.group, "member-left"), 0) == len(p.steps) - 1 - joins
    kinds = {s.labels["group"]: s.labels["protocol_type"] for s in m["rebalance_codec_rebalances"]}
    assert kinds["kip-share-group"] == "share" and kinds["connect-cluster"] == "connect"
    assert kinds["streams-app"] == "consumer"  # (Kafka Streams' protocol type: its protocol is "stream")
    gens = {s.labels["group"]: s.value for s in m["rebalance_codec_group_generation"]}
    assert gens == {p.group: p.steps[-1][0] for p in played}
    read = sum(s.value for s in m["rebalance_codec_records_read"] if s.name.endswith("_total"))
    assert read == len(records)
    decoded = sum(s.value for s in m["rebalance_codec_records_decoded"] if s.name.endswith("_total"))
    assert decoded == len(records)
    assert m["rebalance_codec_decode_errors"][0].value == 0
    assert m["rebalance_codec_consumer_lag_records"][0].value in (0, -1)
    summary = json.loads(w.out_lines[-1])
    assert summary["type"] == "summary" and summary["told"] == expected
    assert sum(summary["records_read"].values()) == len(records)


def test_kafka_written_group_metadata_is_told_with_its_generation_and_members(cluster):
    """Every GroupMetadataValue Kafka's own classes wrote (v0-v4: stable, empty and byte-edge groups), each under its
    own group's key: told once, with the generation, protocol and members Kafka's decoder read from it."""
    vectors = [
        v
        for v in load_jsonl(ROOT / "vectors" / "kafka-java-offsets.jsonl")
        if v["message"] == "GroupMetadataValue" and v["result"] == "valid"
    ]
    assert len(vectors) >= 5
    produced = []
    for v in vectors:
        key = encode_record({"recordType": 2, "key": {"group": v["id"]}, "value": None})[0]
        produced.append((key, bytes.fromhex(v["wire"])))
    cluster.produce(produced)
    with WatchProcess("--bootstrap-server", cluster.bootstrap, "--from", "beginning", "--json", "--exit-at-end") as w:
        assert w.wait() == 0
    told = {r["group"]: r for r in map(json.loads, w.out_lines) if r["type"] == "generation"}
    assert sorted(told) == sorted(v["id"] for v in vectors)
    for v in vectors:
        r, e = told[v["id"]], v["expected"]
        assert r["generation"] == e["generation"]
        assert r["protocol_type"] == e["protocolType"] and r["protocol"] == e["protocol"] and r["leader"] == e["leader"]
        assert [m["member_id"] for m in r["members"]] == sorted(m["memberId"] for m in e["members"])


def test_a_record_produced_while_watching_shows_within_5_s(cluster):
    g = ClassicGroup("live-app", {"orders": 6})
    first, m1 = g.join("c-1")
    cluster.produce([first])
    with WatchProcess("--bootstrap-server", cluster.bootstrap, "--json") as w:  # --from end: only what comes next
        w.wait_err("reading __consumer_offsets partitions 0-49 from the end")
        time.sleep(1.0)  # the client has its end offsets
        for i in range(3):
            rec, _ = g.join(f"c-{i + 2}")
            sent = time.monotonic()
            cluster.produce([rec])
            (told,) = w.records(1, timeout=5)
            assert told["generation"] == g.generation
            assert told["_seen"] - sent < 5.0
        assert w.stop() == 0
    assert not any(r.get("generation") == 1 for r in map(json.loads, w.out_lines))  # what came before start-up


def test_a_broker_restart_is_one_line_and_the_watcher_reads_on(cluster):
    g = HeartbeatGroup("restart-app", "consumer", {"clicks": 4})
    with WatchProcess("--bootstrap-server", cluster.bootstrap, "--from", "beginning", "--json") as w:
        w.wait_err("reading __consumer_offsets")
        recs, _ = g.join("c-1")
        cluster.produce(recs)
        assert w.records(1)[0]["epoch"] == 1
        cluster.down()
        w.wait_err(r"the cluster does not answer .*retrying with backoff", timeout=15)
        time.sleep(1.0)
        cluster.up()
        recs, _ = g.join("c-2")
        cluster.produce(recs)
        (told,) = w.records(1, timeout=20)
        assert told["epoch"] == 2 and _member_ids(told["changes"]["joined"])
        w.wait_err("the cluster answers again", timeout=15)
        assert w.stop() == 0
    down = [line for line in w.err_lines if "does not answer" in line]
    assert len(down) == 1, w.err_lines


def test_a_cluster_down_at_start_up_is_waited_for(cluster):
    cluster.down()
    with WatchProcess("--bootstrap-server", cluster.bootstrap, "--from", "beginning", "--json") as w:
        w.wait_err(r"cannot read __consumer_offsets .*retrying with backoff", timeout=15)
        cluster.up()
        w.wait_err("reading __consumer_offsets partitions 0-49", timeout=20)
        g = ClassicGroup("late-app", {"orders": 2})
        cluster.produce([g.join("c-1")[0]])
        assert w.records(1)[0]["group"] == "late-app"
        assert w.stop(signal.SIGINT) == 0
    assert sum("retrying with backoff" in line for line in w.err_lines) == 1, w.err_lines
    assert "stopped by SIGINT" in w.err_lines[-1]


def test_sigterm_ends_it_cleanly_with_what_was_held_told(cluster):
    """A generation held for its assignment (a join snapshot with none) is told at SIGTERM, and the exit is 0."""
    g = ClassicGroup("held-app", {"orders": 2})
    rec, mid = g.join("c-1")
    held = encode_record(
        {
            "recordType": 2,
            "key": {"group": "held-app"},
            "valueVersion": 3,
            "value": {
                "protocolType": "consumer",
                "generation": 2,
                "protocol": "range",
                "leader": mid,
                "currentStateTimestamp": 1,
                "members": [
                    {
                        "memberId": mid,
                        "groupInstanceId": None,
                        "clientId": "c-1",
                        "clientHost": "/h",
                        "rebalanceTimeout": 1,
                        "sessionTimeout": 1,
                        "subscription": "",
                        "assignment": "",
                    }
                ],
            },
        }
    )
    cluster.produce([rec, held])
    with WatchProcess("--bootstrap-server", cluster.bootstrap, "--from", "beginning", "--json", "--settle", "600") as w:
        assert w.records(1)[0]["generation"] == 1
        time.sleep(1.0)
        assert w.stop(signal.SIGTERM) == 0
    told = [json.loads(x) for x in w.out_lines]
    assert [r["generation"] for r in told if r["type"] == "generation"] == [1, 2]
    assert told[-1]["type"] == "summary" and told[-1]["told"] == 2
    assert "stopped by SIGTERM" in w.err_lines[-1]


def test_an_undecodable_record_is_counted_and_shown_once_with_its_offset(cluster):
    p = partition_for("bad-app")
    bad = [(b"\x00\x02\x00\x07bad-app", b"\x00\x07garbage"), (b"\x00\x02\x00\x07bad-app", b"\x00\x07garbage!")]
    cluster.produce(bad, partition=p)
    g = ClassicGroup("bad-app", {"orders": 2})
    cluster.produce([g.join("c-1")[0]])
    with WatchProcess("--bootstrap-server", cluster.bootstrap, "--from", "beginning", "--metrics-port", "0") as w:
        port = w.metrics_port()
        w.wait_err(rf"cannot decode the record at partition {p} offset 0: .*GroupMetadataValue")
        time.sleep(1.5)
        m = _metrics(w.scrape(port))
        assert w.stop() == 0
    assert m["rebalance_codec_decode_errors"][0].value == 2
    assert sum("cannot decode" in line for line in w.err_lines) == 1  # the second, of the same kind: counted only
    assert any("bad-app  generation 1" in line for line in w.out_lines)


def test_partitions_split_the_groups_between_watchers_and_group_narrows(cluster):
    records, played = example_cluster(streams_members=3, consumer_groups=4, commits_per_generation=1)
    cluster.produce(records)
    seen = []
    for parts in ("0-24", "25-49"):
        args = ("--from", "beginning", "--json", "--exit-at-end", "--partitions", parts)
        with WatchProcess("--bootstrap-server", cluster.bootstrap, *args) as w:
            assert w.wait() == 0
        seen.append({r["group"] for r in map(json.loads, w.out_lines) if r["type"] in ("generation", "epoch")})
        lo, hi = map(int, parts.split("-"))
        assert all(lo <= partition_for(group) <= hi for group in seen[-1])
    assert seen[0] | seen[1] == {p.group for p in played} and not seen[0] & seen[1]
    args = ("--from", "beginning", "--json", "--exit-at-end", "--group", "^consumer-group-[12]$")
    with WatchProcess("--bootstrap-server", cluster.bootstrap, *args) as w:
        assert w.wait() == 0
    lines = [json.loads(x) for x in w.out_lines]
    assert {r["group"] for r in lines if r["type"] == "generation"} == {"consumer-group-1", "consumer-group-2"}
    assert lines[-1]["left_out"] == len(records) - sum(
        1 for k, _ in records if b"consumer-group-1" in k or b"consumer-group-2" in k
    )


def test_the_lag_is_the_records_between_the_watchers_position_and_each_partitions_end(cluster):
    """rebalance_codec_consumer_lag_records from librdkafka's own statistics of a real consumer: each partition's end
    (its ls_offset) less the watcher's next offset to read, over the partitions it reads; the records produced say
    what the ends are."""
    import argparse
    import io

    import confluent_kafka as ck

    from codec.live.watch import TOPIC, Watcher, register

    groups = {"lag-app": 5, "lag-other": 3}
    assert partition_for("lag-app") != partition_for("lag-other")
    for name, n in groups.items():
        g = ClassicGroup(name, {"orders": 2})
        cluster.produce([g.join(f"c-{i}")[0] for i in range(n)])
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    w = Watcher(parser.parse_args(["watch", "--bootstrap-server", cluster.bootstrap]), io.StringIO(), io.StringIO(), ck)
    assert w.metrics.lag == -1  # not known yet
    read = {partition_for("lag-app"): 2, partition_for("lag-other"): 0}  # as if 2 records of lag-app were read
    w.position.update(read)
    stats: list[str] = []
    c = ck.Consumer(
        {"bootstrap.servers": cluster.bootstrap, "group.id": "lag-test", "statistics.interval.ms": 100,
         "stats_cb": stats.append, "log_level": 0, "enable.auto.commit": False}
    )  # fmt: skip
    try:
        c.assign([ck.TopicPartition(TOPIC, p, 0) for p in read])
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            c.poll(0.1)
            parts = [json.loads(s)["topics"].get(TOPIC, {}).get("partitions", {}) for s in stats[-1:]]
            if parts and all(parts[0].get(str(p), {}).get("ls_offset", -1) >= 0 for p in read):
                break
        for s in stats:
            w.on_stats(s)
    finally:
        c.close()
    assert w.ends == {partition_for("lag-app"): 5, partition_for("lag-other"): 3}
    assert w.metrics.lag == (5 - 2) + (3 - 0)
    m = _metrics(w.metrics.text())
    assert m["rebalance_codec_consumer_lag_records"][0].value == 6


def test_without_the_live_extra_watch_names_the_install(monkeypatch, capsys):
    import sys

    from codec.cli import main

    monkeypatch.setitem(sys.modules, "confluent_kafka", None)
    assert main(["watch", "--bootstrap-server", "127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: confluent_kafka is not installed") and "pip install 'rebalance-codec[live]'" in err
