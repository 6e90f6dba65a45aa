"""A fleet that is half classic, half Kafka 4 (issue #21): the bundled ``kafka4-mixed.jsonl`` through the job on a
real local SparkSession, and its Kafka 4 records through the executors' code path without Spark.

Expected values are derived by hand from the values ``make_kafka4_sample.py`` writes (each written out there),
from Kafka's field meanings (a member epoch is the member's generation; taskEndOffsets are the end offsets,
so the lag is their difference) and from counting the input file's lines; never from the pipeline."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest

pa = pytest.importorskip("pyarrow", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from codec.pipeline.arrow import decode_table

from .conftest import SAMPLES, jsonl, read_table

MIXED = SAMPLES / "kafka4-mixed.jsonl"
STREAMS_PCAP = SAMPLES.parent / "kip1071-streams.pcap"  # the capture story's scripted streams group (wordcount)


#: checkout-app's assignments by (member, epoch), as (task, role), from the script's values: m1 at epoch 1
#: (its join response: active 0_0, 0_1, 1_0, 1_1), m2 at epoch 2 (its join response's three lists), m1 at epoch 2
#: (its second heartbeat's response), m3's odd response at epoch 2, and m2's target assignment record (no epoch)
CHECKOUT_ASSIGNMENTS = {
    ("m1", 1): {("0_0", "active"), ("0_1", "active"), ("1_0", "active"), ("1_1", "active")},
    ("m2", 2): {("1_0", "active"), ("1_1", "active"), ("0_0", "standby"), ("0_1", "warmup")},
    ("m1", 2): {("0_0", "active"), ("0_1", "active"), ("1_0", "standby")},
    ("m3", 2): {("0_0", "active")},
    ("m2", None): {("1_0", "active"), ("1_1", "active"), ("0_0", "standby"), ("0_1", "warmup")},
}

#: The findings of the two Kafka 4 groups as (group, epoch, check, task, member): m3 claims 0_0 at epoch 2, which
#: m1 holds -- the only conflict in the sample; the two error responses (m2 fenced at epoch 1:
#: FENCED_MEMBER_EPOCH 110; c2 at epoch 0: UNRELEASED_INSTANCE_ID 111) are group errors
KAFKA4_FINDINGS = {
    ("checkout-app", 2, "multiple-active-owners", "0_0", None),
    ("checkout-app", 1, "group-error", None, "m2"),
    ("payments", 0, "group-error", None, None),
}


def _lines():
    return jsonl(MIXED)


def _row(d: dict) -> dict:
    """An input line as :func:`decode_table` takes it (what the job's normalize does for the three shapes)."""
    r = {
        k: d.get(k)
        for k in ("record_id", "group", "member", "generation", "kind", "version", "hex", "direction", "protocol")
    }
    if "api_key" in d:
        r.update(kind="frame", version=d["api_version"], api_key=d["api_key"])
    if "key" in d:
        r.update(kind="group-metadata", hex=d["value"], key=d["key"])
    return r


def test_the_kafka4_units_without_spark():
    lines = [
        d
        for d in _lines()
        if not d["record_id"].startswith(("bad/", "payments/rec/commit")) and d.get("value", "x") is not None
    ]
    units = decode_table(_row(d) for d in lines).to_pylist()
    by = defaultdict(list)
    for u in units:
        by[u["record_id"]].append(u)
    assert not [u for u in units if u["unit_kind"] == "quarantine"]
    # m1's join (epoch 0): process p1, endpoint h1:8080, tag az=a, task 0_0 at 100 of 100, 0_1 at 40 of 20040
    [g, m] = by["checkout/m1/join"]
    assert (g["unit_kind"], g["protocol_type"], g["generation"]) == ("group", "streams", 0)
    assert (m["member"], m["group"], m["process_id"], m["user_endpoint"], m["streams"]) == (
        "m1",
        "checkout-app",
        "p1",
        "h1:8080",
        True,
    )
    assert {k: v for k, v in m["client_tags"]} == {"az": "a"}
    assert [(t["subtopology"], t["partition"], t["offset_sum"], t["end_offset_sum"]) for t in m["tasks"]] == [
        (0, 0, 100, 100),
        (0, 1, 40, 20040),
    ]
    # a heartbeat that carries nothing but its epoch is the group's fact alone
    assert [u["unit_kind"] for u in by["checkout/m1/hb2"]] == ["group"]
    # m2's assignment at epoch 2: active 1_0, 1_1; standby 0_0; warm-up 0_1 (the response's three lists)
    [g, a] = by["checkout/m2/join-resp"]
    assert (a["member"], a["generation"], a["streams"]) == ("m2", 2, True)
    assert [(t["subtopology"], t["partition"]) for t in a["active"]] == [(1, 0), (1, 1)]
    assert [(t["subtopology"], t["partition"]) for t in a["standby"]] == [(0, 0)]
    assert [(t["subtopology"], t["partition"]) for t in a["warmup"]] == [(0, 1)]
    # FENCED_MEMBER_EPOCH (110) and UNRELEASED_INSTANCE_ID (111) are kept as the group's error code
    assert [u["group_error_code"] for u in by["checkout/m2/fenced-resp"]] == [110]
    assert [u["group_error_code"] for u in by["payments/c2/join-resp"]] == [111]
    # KIP-848: the server assignor names the protocol; the member's rack and instance id are kept
    [g, m] = by["payments/c1/join"]
    assert (g["protocol_type"], g["protocol_name"], m["rack_id"], m["streams"]) == (
        "consumer",
        "uniform",
        "rack-1",
        False,
    )
    assert by["payments/c2/join"][1]["group_instance_id"] == "pay-2"
    # records: the group epoch, a member's metadata (no epoch), its current assignment at its member epoch
    assert [(u["unit_kind"], u["generation"]) for u in by["checkout/rec/metadata"]] == [("group", 2)]
    [m] = by["checkout/rec/m1"]
    assert (m["member"], m["generation"], m["process_id"], m["client_id"], m["client_host"]) == (
        "m1",
        None,
        "p1",
        "checkout",
        "/10.0.0.1",
    )
    [g, a] = by["checkout/rec/m1-current"]  # the member's epoch is a generation of its group
    assert (g["unit_kind"], g["generation"], g["group_protocol"]) == ("group", 2, "streams")
    assert (a["generation"], [(t["subtopology"], t["partition"]) for t in a["active"]]) == (2, [(0, 0), (0, 1)])
    # Describe: one group unit (epoch 2, one member) and the member's unit and assignment
    kinds = [(u["unit_kind"], u["generation"], u["member_count"]) for u in by["checkout/describe-resp"]]
    assert kinds == [("group", 2, 1), ("member", 2, None), ("assignment", 2, None)]
    # KIP-848 partitions by topic id (PAYMENTS_ID): c1's heartbeat response and its current assignment record at
    # epoch 5 (0, 1, 2; nothing pending revocation), and the Describe response, which names the topic
    tid = "AAAAAAAAAAAAAAAAAAAAAQ"
    [_, a] = by["payments/c1/join-resp"]
    assert (a["member"], a["generation"], a["streams"], a["revoking"]) == ("c1", 5, False, None)
    assert [(s["topic_id"], s["topic"], s["partition"]) for s in a["consumed"]] == [(tid, None, p) for p in (0, 1, 2)]
    [_, a] = by["payments/rec/c1-current"]
    assert [(s["topic_id"], s["partition"]) for s in a["consumed"]] == [(tid, p) for p in (0, 1, 2)]
    assert (a["generation"], a["revoking"]) == (5, [])
    [g, m, a] = by["payments/describe"]
    assert [(t["topic_id"], t["topic"]) for t in g["share_topics"]] == [(tid, "payments")]
    assert [(s["topic"], s["partition"]) for s in a["consumed"]] == [("payments", p) for p in (0, 1, 2)]
    assert (m["client_id"], m["client_host"]) == ("pay", "/10.0.1.1")


def test_bad_kafka4_records_are_quarantined_with_their_place():
    lines = {d["record_id"]: d for d in _lines()}
    units = decode_table(
        [_row(lines["bad/checkout-named-subtopology"]), _row(lines["bad/payments-truncated-heartbeat"])]
    ).to_pylist()
    named, cut = units
    assert (named["error_type"], named["error_path"]) == ("UnsupportedValue", "active_tasks[0].subtopology_id")
    assert "'sub-A'" in named["error_message"]
    # 7 bytes cut from a frame whose body starts after a 4+2+2+4 + 2+3 ("pay") + 1 byte header (offset 18)
    assert cut["error_type"] == "TruncatedError" and cut["error_offset"] >= 18
    assert cut["error_message"].startswith("ConsumerGroupHeartbeatRequest v1: truncated")


@pytest.fixture(scope="module")
def capture_lines(tmp_path_factory):
    """``rebalance-codec capture --json`` of the bundled KIP-1071 pcap: frames as the capture writes them."""
    import subprocess
    import sys

    path = tmp_path_factory.mktemp("kafka4-capture") / "wordcount.jsonl"
    p = subprocess.run(
        [sys.executable, "-m", "codec", "capture", "--json", str(STREAMS_PCAP)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    path.write_text(p.stdout)
    return path, [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def mixed_run(spark, tmp_path_factory, capture_lines):
    from codec.pipeline.job import Options, run

    out = tmp_path_factory.mktemp("kafka4") / "out"
    summary = run(Options(inputs=[str(MIXED), str(capture_lines[0])], out=str(out), quiet=True), spark)
    return out, summary


def test_counts_hold_on_a_mixed_fleet(mixed_run, capture_lines):
    out, summary = mixed_run
    lines = _lines()
    tombstones = [d for d in lines if "key" in d and d["value"] is None]
    commits = [d for d in lines if "key" in d and int(d["key"][:4], 16) == 1]
    bad = [d for d in lines if d["record_id"].startswith("bad/")]
    captured = capture_lines[1]
    other = Counter(f"line type {d['type']}" for d in captured if d["type"] != "frame")
    frames = [d for d in captured if d["type"] == "frame"]
    assert {d["api_key"] for d in frames} == {88}  # the script's StreamsGroupHeartbeat exchanges only
    want = {
        "records_read": len(lines) + len(captured),
        "not_selected": len(tombstones) + len(commits) + other.total(),
        "records_in": len(lines) - len(tombstones) - len(commits) + len(frames),
        "quarantined": len(bad),
    }
    want["decoded"] = want["records_in"] - want["quarantined"]
    assert summary["counts"] == want
    assert want["records_read"] == want["not_selected"] + want["decoded"] + want["quarantined"]
    assert summary["not_selected_by_reason"] == {
        "__consumer_offsets tombstone": 1,
        "__consumer_offsets key version 1": 1,
        **other,
    }
    assert {r["record_id"] for r in read_table(out, "quarantine")} == {d["record_id"] for d in bad}


def test_one_set_of_tables_for_classic_and_kafka4_groups(mixed_run):
    out, _ = mixed_run
    reb = {(r["group"], r["generation"]): r for r in read_table(out, "rebalances") if r["group"] != "wordcount"}
    # (wordcount: the capture's group, below) classic streams-app generations 1-3 (JoinGroup/SyncGroup), checkout-app epochs 0-2 (heartbeats, Describe,
    # records), payments epochs 0 and 5 (heartbeats, Describe, records); negative epochs are no generation
    assert set(reb) == {("streams-app", g) for g in (1, 2, 3)} | {("checkout-app", e) for e in (0, 1, 2)} | {
        ("payments", 0),
        ("payments", 5),
    }
    assert reb[("streams-app", 1)]["protocol"] == "stream"
    assert {reb[("checkout-app", e)]["protocol_type"] for e in (0, 1, 2)} == {"streams"}
    assert (reb[("payments", 5)]["protocol_type"], reb[("payments", 5)]["protocol"]) == ("consumer", "uniform")
    # epoch 2 of checkout-app: m1 (heartbeat response, Describe, record: one row), m2 and m3 are members
    assert reb[("checkout-app", 2)]["member_count"] == 3
    assert reb[("checkout-app", 2)]["reported_member_count"] == 1  # the Describe response's count

    members = Counter((r["group"], r["kind"]) for r in read_table(out, "members"))
    assert members[("streams-app", "join-group-request")] == 3
    assert members[("checkout-app", "frame")] == 3  # m1 and m2 joining (epoch 0), m1 described (epoch 2)
    assert members[("checkout-app", "group-metadata")] == 1  # StreamsGroupMemberMetadata (no epoch)
    assert members[("payments", "frame")] == 2 and members[("payments", "consumer-group-describe-response")] == 1

    lags = {
        (r["member"], r["generation"], r["task"]): r
        for r in read_table(out, "task_lags")
        if r["group"] == "checkout-app"
    }
    # end offsets are on the wire: lag = end - offset (acceptable.recovery.lag 10000)
    assert {k: (r["estimated_end_offset_sum"], r["estimated_lag"], r["lag_class"]) for k, r in lags.items()} == {
        ("m1", 0, "0_0"): (100, 0, "caught-up"),
        ("m1", 0, "0_1"): (20040, 20000, "lagging"),
        ("m2", 0, "1_0"): (5000, 0, "caught-up"),
        ("m1", 2, "0_0"): (170, 20, "caught-up"),
    }

    asg = defaultdict(set)
    consumed = defaultdict(set)
    for r in read_table(out, "assignments"):
        if r["group"] == "checkout-app":
            asg[(r["member"], r["generation"])].add((r["task"], r["role"]))
        if r["group"] == "payments":
            consumed[(r["member"], r["generation"])].add((r["task"], r["topic"], r["partition"], r["role"]))
    assert dict(asg) == CHECKOUT_ASSIGNMENTS
    # payments: c1 holds payments 0-2 at epoch 5 (its heartbeat response, record and Describe agree), the topic
    # named by the Describe response where the heartbeat and the record give its id only
    assert dict(consumed) == {("c1", 5): {(f"payments-{p}", "payments", p, "consumer") for p in (0, 1, 2)}}
    # a client of a consumer group: its client id and host -- c1 ("pay", /10.0.1.1) at epochs 0 and 5 (c2's join,
    # refused, names no member)
    assert {e: reb[("payments", e)]["client_count"] for e in (0, 5)} == {0: 1, 5: 1}

    assert {g: reb[(g, e)]["group_protocol"] for g, e in reb} == {
        "streams-app": "classic",
        "checkout-app": "streams",
        "payments": "consumer",
    }

    findings = {
        (r["group"], r["generation"], r["check"], r["task"], r["member"], r["detail"])
        for r in read_table(out, "findings")
        if r["group"] in ("checkout-app", "payments")
    }
    assert {f[:5] for f in findings} == KAFKA4_FINDINGS
    details = {f[2:5]: f[5] for f in findings}
    assert details[("group-error", None, "m2")] == "FENCED_MEMBER_EPOCH (110) in a streams group's response"
    assert details[("group-error", None, None)] == "UNRELEASED_INSTANCE_ID (111) in a consumer group's response"


def test_a_captured_streams_group_gives_its_assignments(mixed_run, capture_lines):
    """The capture's frames (its own decode of each body, ``frame.body``) against the pipeline's tables: each
    member's first assignment at each epoch, the lists the responses name (a null list: unchanged, no rows)."""
    out, _ = mixed_run
    want: dict = {}
    for d in capture_lines[1]:
        body = d.get("frame", {}).get("body") or {}
        if d["type"] != "frame" or d["direction"] != "response" or body.get("errorCode") != 0:
            continue
        lists = {role: body.get(f"{role}Tasks") for role in ("active", "standby", "warmup")}
        if all(v is None for v in lists.values()):
            continue
        want.setdefault(
            (body["memberId"], body["memberEpoch"]),
            {
                (f"{t['subtopologyId']}_{p}", role)
                for role, ts in lists.items()
                for t in ts or ()
                for p in t["partitions"]
            },
        )
    assert want  # the script assigns tasks
    got = defaultdict(set)
    for r in read_table(out, "assignments"):
        if r["group"] == "wordcount":
            got[(r["member"], r["generation"])].add((r["task"], r["role"]))
    assert dict(got) == want
    reb = {r["generation"] for r in read_table(out, "rebalances") if r["group"] == "wordcount"}
    epochs = {d["frame"]["body"]["memberEpoch"] for d in capture_lines[1] if d["type"] == "frame"}
    assert reb == {e for e in epochs if e >= 0}


def test_the_sample_is_what_its_script_writes():
    """The bundled file is the script's output (regenerate with make_kafka4_sample.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_kafka4_sample", SAMPLES / "make_kafka4_sample.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert [json.loads(json.dumps(r)) for r in mod.records()] == _lines()
