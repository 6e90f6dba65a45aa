"""The pipeline's consumer checks that run Kafka's assignor on what a classic group's leader saw
(codec/pipeline/consumerchecks.py): ``not-the-assignors-assignment``, ``partition-unowned`` and
``member-never-rejoined``, with the partition counts from the Metadata responses of each group's input, on the shared
captures (real clients' JoinGroup and SyncGroup bytes, librdkafka's mock as the broker).

Expected values come from the frames' own bytes, decoded here by the codec's wire decoder, and Kafka's facts: the
topics are orders/6 and events/3 (the captures' README); the Apache Java client's leader runs Kafka's own assignors,
so its assignments are Kafka's; Kafka's RangeAssignor deals each topic's partitions to the sorted subscribers in
contiguous ranges, the first ``n % c`` one more (RangeAssignor.java); a partition nobody was given and a member that
left without a LeaveGroup are read off the SyncGroup requests and JoinGroup responses. kafka-python's sticky
generations are compared with ``assign --consumer auto --check`` on the same scenario's pcap (another path to the
same verdicts: the capture reader's, not the pipeline's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from codec.capture.metadata import metadata_response_v12  # noqa: E402
from codec.group import decode_consumer, decode_message  # noqa: E402
from codec.pipeline.command import topic_count  # noqa: E402
from codec.pipeline.config import Config  # noqa: E402
from codec.pipeline.job import Options, run  # noqa: E402
from tests.conftest import SHARED  # noqa: E402

from .conftest import jsonl, read_table  # noqa: E402

FRAMES = SHARED / "captures" / "frames.jsonl"
PCAPS = SHARED / "captures" / "pcaps" / "runA"
TOPICS = {"orders": 6, "events": 3}  # the captures' README
pytestmark = pytest.mark.skipif(not FRAMES.is_file(), reason="shared/captures not present")

#: input file -> (its scenarios of runA, the topics its Metadata responses give)
INPUTS = {
    "truth": (["java-sticky", "java-cooperative-sticky", "kp-sticky", "ck-default"], [TOPICS]),
    "seven": (["java-roundrobin"], [{"orders": 7, "events": 3}]),
    "none": (["java-default"], []),
    "disagree": (["kp-default"], [TOPICS, {"orders": 8, "events": 3}]),
}
#: ``--partitions``: a count for a topic "none" has no Metadata response of ("disagree"'s responses agree on it)
GIVEN = (("events", 3),)
#: the LeaveGroup request left out of the input (ck-default's first member: it leaves after generation 4)
DROPPED_LEAVE = ("ck-default", "ck-default-c1")


def _scenario(name: str) -> list[dict]:
    return [f for f in jsonl(FRAMES) if f["run"] == "runA" and f["scenario"] == name]


def _metadata_frame(topics: dict[str, int], n: int) -> dict:
    body = metadata_response_v12({t: (bytes([i + 1]) * 16, c) for i, (t, c) in enumerate(topics.items())})
    header = n.to_bytes(4, "big") + b"\x00"  # correlation id, no tagged fields (v12 is flexible)
    return {"kind": "frame", "api_key": 3, "api_version": 12, "direction": "response", "conn": "metadata",
            "correlation_id": n, "ts": 1.0, "hex": (header + body).hex()}  # fmt: skip


def _kept(f: dict) -> bool:
    return not (f["scenario"], f.get("client_id"), f["api_key"]) == (*DROPPED_LEAVE, 13)


@pytest.fixture(scope="module")
def result(spark, tmp_path_factory):
    folder = tmp_path_factory.mktemp("consumer-checks-in")
    for name, (scenarios, metadata) in INPUTS.items():
        lines = [f for s in scenarios for f in _scenario(s) if _kept(f)]
        lines += [_metadata_frame(t, i + 1) for i, t in enumerate(metadata)]
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path_factory.mktemp("consumer-checks") / "out"
    # --partitions events=3: a count for a topic no Metadata response names (orders stays unknown without them)
    summary = run(Options(inputs=[str(folder)], out=str(out), quiet=True, config=Config(partitions=GIVEN)), spark)
    return out, summary


def _body(f: dict) -> bytes:
    return bytes.fromhex(f["hex"])[f["body_offset"] :]


def leader_generations(scenario: str) -> dict[int, dict]:
    """generation -> {protocol, members [(id, instance, subscription)], assignments {id: [(topic, p)]} or None}, off
    the leader's JoinGroup response and SyncGroup request."""
    out: dict[int, dict] = {}
    for f in _scenario(scenario):
        if f["api_key"] == 11 and f["direction"] == "response" and f.get("error_code", 0) == 0:
            v = decode_message("JoinGroupResponse", f["api_version"], _body(f)).value
            if v.members:
                members = [(m.member_id, m.group_instance_id, _raw(m.metadata)) for m in v.members]
                out.setdefault(v.generation_id, {"assignments": None}).update(protocol=v.protocol_name, members=members)
        elif f["api_key"] == 14 and f["direction"] == "request":
            v = decode_message("SyncGroupRequest", f["api_version"], _body(f)).value
            if v.assignments:
                asg = {a.member_id: _partitions(_raw(a.assignment)) for a in v.assignments}
                out.setdefault(v.generation_id, {"members": None, "protocol": None})["assignments"] = asg
    return out


def _raw(value) -> bytes:
    return bytes(getattr(value, "raw", value))


def _partitions(raw: bytes) -> list[tuple[str, int]]:
    msg = decode_consumer("ConsumerProtocolAssignment", raw)
    return [(tp.topic, p) for tp in msg.data.assigned_partitions for p in tp.partitions]


def _topics_of(raw: bytes) -> list[str]:
    return list(decode_consumer("ConsumerProtocolSubscription", raw).data.topics)


def kafka_range(members: list[tuple[str, str | None, bytes]], topics: dict[str, int]) -> dict[str, set]:
    """RangeAssignor.java without racks: per topic, its subscribers sorted by member id, contiguous ranges."""
    out: dict[str, set] = {m: set() for m, _, _ in members}
    for t, n in topics.items():
        subs = sorted(m for m, _, raw in members if t in _topics_of(raw))
        for i, m in enumerate(subs):
            per, extra = divmod(n, len(subs))
            start = i * per + min(i, extra)
            out[m] |= {(t, p) for p in range(start, start + per + (1 if i < extra else 0))}
    return out


def _findings(out: Path, check: str) -> list[dict]:
    return [r for r in read_table(out, "findings") if r["check"] == check]


def _groups(scenarios) -> set[str]:
    return {f"g-{s}" for s in scenarios}


def test_the_java_clients_leader_gives_kafkas_assignment_and_leaves_nothing_unowned(result):
    out, summary = result
    java = _groups(["java-sticky", "java-cooperative-sticky"])
    assert not [r for r in read_table(out, "findings") if r["group"] in java], "Java's leader runs Kafka's assignors"
    checked = sum(
        1 for s in ("java-sticky", "java-cooperative-sticky") for g in leader_generations(s).values()
        if g["members"] and g["assignments"] is not None
    )  # fmt: skip
    assert checked >= 10
    assert summary["consumer_assignor_checks"]["generations_checked"] >= checked


def test_range_generations_are_held_to_kafkas_range(result):
    out, _ = result
    gens = leader_generations("ck-default")
    assert {g["protocol"] for g in gens.values()} == {"range"}
    want = {
        n for n, g in gens.items()
        if g["members"] and g["assignments"] is not None
        and kafka_range(g["members"], TOPICS) != {m: set(ps) for m, ps in g["assignments"].items()}
    }  # fmt: skip
    got = {r["generation"] for r in _findings(out, "not-the-assignors-assignment") if r["group"] == "g-ck-default"}
    assert got == want == set()  # librdkafka's range is Kafka's on these generations


def test_kafka_pythons_sticky_differs_where_assign_check_says_it_does(result):
    from codec.assignor.consumer.wire import check_capture

    out, _ = result
    want = {
        v["generation"]: v for v in check_capture(PCAPS / "kp-sticky.pcap.gz", {"topics": TOPICS}, "auto")
        if v["checked"] and not v["matches"]
    }  # fmt: skip
    got = {r["generation"]: r for r in _findings(out, "not-the-assignors-assignment") if r["group"] == "g-kp-sticky"}
    assert set(got) == set(want) and 4 in got
    for g, r in got.items():
        assert r["severity"] == "warning" and r["detail"].startswith("not what Kafka's sticky gives: ")
        for d in want[g]["differences"]:
            assert d["memberId"] in r["detail"]
    assert "0x7f8d9400d2f0: missing events-1, orders-0; extra orders-1, orders-3, orders-5" in got[4]["detail"]


def test_a_partition_the_metadata_has_and_nobody_was_given_is_unowned(result):
    out, _ = result
    gens = leader_generations("java-roundrobin")
    want = set()
    for n, g in gens.items():
        if not g["members"] or g["assignments"] is None:
            continue
        given = {tp for ps in g["assignments"].values() for tp in ps}
        subscribed = {t for _, _, raw in g["members"] for t in _topics_of(raw)}
        want |= {(n, f"{t}-{p}") for t, c in {"orders": 7, "events": 3}.items() if t in subscribed for p in range(c)
                 if (t, p) not in given}  # fmt: skip
    got = {
        (r["generation"], r["task"]) for r in _findings(out, "partition-unowned") if r["group"] == "g-java-roundrobin"
    }
    assert got == want and {t for _, t in want} == {"orders-6"}
    assert all(r["severity"] == "error" for r in _findings(out, "partition-unowned"))
    # Kafka's roundrobin gives every partition out: each of those generations is not its assignment either
    wrong = {
        r["generation"] for r in _findings(out, "not-the-assignors-assignment") if r["group"] == "g-java-roundrobin"
    }
    assert wrong == {n for n, _ in want}
    # the other inputs' topics are the captures' own: nothing is unowned there
    assert {r["group"] for r in _findings(out, "partition-unowned")} == {"g-java-roundrobin"}


def test_a_member_that_did_not_rejoin_without_a_leavegroup(result):
    out, _ = result
    gens = leader_generations("ck-default")
    dropped = {f["hex"] for f in _scenario("ck-default") if not _kept(f)}
    assert len(dropped) == 2  # the LeaveGroup request and its response
    want = {}
    for n, g in gens.items():
        nxt = gens.get(n + 1)
        if g["members"] and nxt and nxt["members"]:
            for m, _, _ in g["members"]:
                if m not in {x for x, _, _ in nxt["members"]}:
                    want[(n + 1, m)] = sorted(g["assignments"][m])
    left_cleanly = {(n, m) for (n, m) in want if n != 5}  # c2 and c3 sent their LeaveGroup requests
    got = {(r["generation"], r["member"]): r for r in _findings(out, "member-never-rejoined")}
    assert set(got) == set(want) - left_cleanly and len(got) == 1
    ((key, r),) = got.items()
    assert r["group"] == "g-ck-default" and r["severity"] == "warning"
    assert ", ".join(f"{t}-{p}" for t, p in want[key]) in r["detail"]


def test_the_report_names_the_generations_it_could_not_check_and_why(result):
    out, summary = result
    report = json.loads((out / "report.json").read_text())["consumer_assignor_checks"]
    assert report == summary["consumer_assignor_checks"]
    why = {(r["group"], r["generation"]): r["why"] for r in report["not_checked_sample"]}
    none = {n for n, g in leader_generations("java-default").items() if g["members"] and g["assignments"] is not None}
    odd = {n for n, g in leader_generations("kp-default").items() if g["members"] and g["assignments"] is not None}
    assert none and odd
    for n in none:
        assert why[("g-java-default", n)] == (
            "the partition count of orders is not known: no Metadata response of the group's input names it (nor "
            "--partitions)"
        )
    for n in odd:
        assert "the Metadata responses of the group's input disagree on orders (6 and 8)" in why[("g-kp-default", n)]
    assert not [r for r in read_table(out, "findings") if r["group"] in ("g-java-default", "g-kp-default")
                and r["check"] in ("partition-unowned", "not-the-assignors-assignment")]  # fmt: skip
    assert report["not_checked"] >= len(none) + len(odd)
    html = (out / "report.html").read_text()
    assert f"{report['generations_checked']} generations checked, {report['not_checked']} not checked" in html
    assert "the partition count of orders is not known" in html


def test_metadata_requests_are_not_selected_and_responses_are_decoded(result):
    _, summary = result
    assert summary["counts"]["quarantined"] == 0
    # (these inputs hold Metadata responses only: each is decoded, none is left out)
    assert not any("Metadata" in k or "API key 3" in k for k in summary["not_selected_by_reason"])


def _join_requests(scenario: str) -> dict[str, str]:
    """member id -> client id, off the JoinGroup requests that name their member (and the responses to the others)."""
    out, pending = {}, {}
    for f in _scenario(scenario):
        if f["api_key"] != 11:
            continue
        if f["direction"] == "request":
            v = decode_message("JoinGroupRequest", f["api_version"], _body(f)).value
            if v.member_id:
                out[v.member_id] = f["client_id"]
            pending[(f["conn"], f["correlation_id"])] = f["client_id"]
        elif f.get("error_code", 0) == 0:
            v = decode_message("JoinGroupResponse", f["api_version"], _body(f)).value
            out.setdefault(v.member_id, pending[(f["conn"], f["correlation_id"])])
    return out


@pytest.mark.parametrize("scenario", ["java-sticky", "java-cooperative-sticky", "kp-sticky", "ck-default"])
def test_the_tables_carry_a_classic_consumer_group_whole(result, scenario):
    """What a Streams group's rows carry, a plain consumer group's carry too: every member with its client,
    subscription, owned partitions and generation; every partition it is given; the generation's size, clients and
    partitions."""
    from codec.assignor.consumer.wire import member_from_subscription

    out, _ = result
    group = f"g-{scenario}"
    gens = {n: g for n, g in leader_generations(scenario).items() if g["members"] and g["assignments"] is not None}
    clients = _join_requests(scenario)
    reb = {r["generation"]: r for r in read_table(out, "rebalances") if r["group"] == group}
    members = {}
    for r in read_table(out, "members"):
        if r["group"] == group and r["generation"] is not None and r["kind"] == "frame":
            members.setdefault((r["generation"], r["member"]), r)
    assignments: dict = {}
    for r in read_table(out, "assignments"):
        if r["group"] == group:
            assert r["role"] == "consumer" and r["task"] == f"{r['topic']}-{r['partition']}"
            assignments.setdefault(r["generation"], {}).setdefault(r["member"], set()).add((r["topic"], r["partition"]))
    assert len(gens) >= 5
    for n, g in gens.items():
        r = reb[n]
        ids = [m for m, _, _ in g["members"]]
        assert (r["group_protocol"], r["protocol"], r["protocol_type"]) == ("classic", g["protocol"], "consumer")
        assert (r["member_count"], r["reported_member_count"], r["members_complete"]) == (len(ids), len(ids), True)
        assert r["client_count"] == len({clients[m] for m in ids})
        given = {m: set(ps) for m, ps in g["assignments"].items()}
        assert r["assigned_partitions"] == len(set().union(*given.values()))
        assert assignments[n] == {m: ps for m, ps in given.items() if ps}
        for m, inst, raw in g["members"]:
            row, want = members[(n, m)], member_from_subscription(m, inst, raw)
            assert row["client_id"] == clients[m] and row["subscribed_topics"] == list(want.topics)
            owned = {(t["topic"], p) for t in row["owned_partitions"] or () for p in t["partitions"]}
            assert owned == set(want.owned)
            version = decode_consumer("ConsumerProtocolSubscription", raw).version
            assert row["consumer_protocol_version"] == version
            assert row["subscription_generation"] == (
                decode_consumer("ConsumerProtocolSubscription", raw).data.generation_id if version >= 2 else None
            )


def test_partitions_option_reads_topic_equals_count():
    import argparse

    assert topic_count("orders=6") == ("orders", 6) and topic_count("a=b=2") == ("a=b", 2)
    for bad in ("orders", "orders=0", "=3", "orders=-1", "orders=x"):
        with pytest.raises(argparse.ArgumentTypeError):
            topic_count(bad)


def test_a_static_member_back_under_a_new_member_id_rejoined():
    """A static member (``group.instance.id``) that comes back with a new member id rejoined (Kafka's coordinator
    replaces the old id, KIP-345); a dynamic one missing from the next JoinGroup without a LeaveGroup did not."""
    from codec.assignor.consumer.wire import assignment_bytes
    from codec.group import consumer_subscription, encode_consumer
    from codec.pipeline.consumerchecks import generation_verdicts

    sub = encode_consumer(consumer_subscription(0, topics=("t",), user_data=None))

    def join(gen, unit, member, instance):
        return {"what": "join", "generation": gen, "record_id": f"j{gen}", "unit": unit, "member": member,
                "instance": instance, "data": sub}  # fmt: skip

    rows = [
        {"what": "joined", "generation": 1, "record_id": "j1", "protocol": "range", "leader": "a"},
        join(1, 1, "a", "static-a"),
        join(1, 2, "b", None),
        {"what": "sync", "generation": 1, "record_id": "s1", "unit": 1, "member": "a", "data": assignment_bytes([])},
        {
            "what": "sync",
            "generation": 1,
            "record_id": "s1",
            "unit": 2,
            "member": "b",
            "data": assignment_bytes([("t", 0)]),
        },  # fmt: skip
        {"what": "joined", "generation": 2, "record_id": "j2", "protocol": "range", "leader": "a2"},
        join(2, 1, "a2", "static-a"),
        {"what": "topic", "topic": "t", "partitions": 1},
    ]
    out = generation_verdicts("g", rows)
    never = [r for r in out if r["check"] == "member-never-rejoined"]
    assert [(r["generation"], r["member"]) for r in never] == [(2, "b")]
    assert "it was given t-0" in never[0]["detail"]
    assert [r["why"] for r in out if r["check"] is None] == [None, "the leader's SyncGroup request is not in the input"]
    rows.append({"what": "leave", "member": "b"})
    assert not [r for r in generation_verdicts("g", rows) if r["check"] == "member-never-rejoined"]
