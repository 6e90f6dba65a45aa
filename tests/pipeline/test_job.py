"""The whole job on a real local SparkSession over the bundled samples: exact tables and counts.

Expected values come from the inputs: Kafka's decoded values in the vectors the samples were made
from, counts of the input files, and checks re-derived here by hand from those decoded values."""

from __future__ import annotations

import gc
import json
import re
from collections import Counter, defaultdict

import pytest

pytest.importorskip("pyspark", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from codec.pipeline.job import Options, run
from codec.pipeline.tables import Config
from tests.conftest import KAFKA_VECTORS

from .conftest import CAPTURES, FRAMES, OFFSETS, bundled_run, jsonl, leader_sync, read_table
from .test_consumers import consumer_partitions
from .test_kafka4 import CHECKOUT_ASSIGNMENTS, KAFKA4_FINDINGS

NO_REBALANCE = 2**63 - 1
#: ``__consumer_offsets`` record types the job reads (the int16 at the start of a key): classic group metadata
#: (2), Kafka 4's consumer group records (3-8, 16) and streams group records (17, 19-23: no release knows 18);
#: offset commits (0, 1) and share groups' records (9-15) are not input
SELECTED_RECORD_TYPES = {2, *range(3, 9), 16, 17, *range(19, 24)}


def _task(t: dict) -> str:
    base = f"{t['subtopology']}_{t['partition']}"
    return f"{t['topologyName']}__{base}" if t.get("topologyName") else base


@pytest.fixture(scope="module")
def sample_run(spark, tmp_path_factory):
    return bundled_run(spark, tmp_path_factory)


@pytest.fixture(scope="module")
def vectors():
    by = {}
    for name in ("subscription", "assignment"):
        for r in jsonl(KAFKA_VECTORS / f"{name}.jsonl"):
            by[(name, r["version"], r["index"])] = r["decoded"]
    return by


def _input_counts():
    import pyarrow.parquet as pq

    caps = jsonl(CAPTURES)
    frames = jsonl(FRAMES)
    offsets = pq.read_table(OFFSETS).to_pylist()
    sel_frames = [f for f in frames if f["api_key"] in (11, 14) or (f["api_key"] == 13 and f["direction"] == "request")]
    sel_offsets = [
        o for o in offsets if int.from_bytes(o["key"][:2], "big") in SELECTED_RECORD_TYPES and o["value"] is not None
    ]
    bad = [r for r in caps if "__not_json__" in r or str(r.get("record_id", "")).startswith("bad/")]
    broken_offsets = 1  # the value made by cutting 20 bytes off (make_samples.py)
    return {
        "records_read": len(caps) + len(frames) + len(offsets),
        "not_selected": len(frames) - len(sel_frames) + len(offsets) - len(sel_offsets),
        "records_in": len(caps) + len(sel_frames) + len(sel_offsets),
        "quarantined": len(bad) + broken_offsets,
    }


def _not_selected_by_reason() -> dict:
    """Why the inputs' records are not decoded, counted from the files: frames of other APIs than
    JoinGroup/SyncGroup (named by their ``api_name``), ``__consumer_offsets`` records of other key
    versions than the group records, and tombstones."""
    import pyarrow.parquet as pq

    reasons = defaultdict(int)
    for f in jsonl(FRAMES):
        if f["api_key"] == 13 and f["direction"] == "response":  # (a LeaveGroup request is read: who left)
            reasons["frame LeaveGroup response"] += 1
        elif f["api_key"] not in (11, 13, 14):
            reasons[f"frame {f['api_name']}"] += 1
    for o in pq.read_table(OFFSETS).to_pylist():
        version = int.from_bytes(o["key"][:2], "big")
        if version not in SELECTED_RECORD_TYPES:
            reasons[f"__consumer_offsets key version {version}"] += 1
        elif o["value"] is None:
            reasons["__consumer_offsets tombstone"] += 1
    return dict(reasons)


def test_counts_are_exact(sample_run):
    """read = not selected + decoded + quarantined, each counted from the input files."""
    out, summary = sample_run
    want = _input_counts()
    want["decoded"] = want["records_in"] - want["quarantined"]
    assert summary["counts"] == want
    assert want["records_read"] == want["not_selected"] + want["decoded"] + want["quarantined"]
    report = json.loads((out / "report.json").read_text())
    assert report["counts"] == want
    assert report["not_selected_by_reason"] == summary["not_selected_by_reason"] == _not_selected_by_reason()
    assert sum(report["not_selected_by_reason"].values()) == want["not_selected"]
    assert report["counts_check"] == "records_read == not_selected + decoded + quarantined"
    for name, rows in summary["tables"].items():
        assert len(read_table(out, name)) == rows


def test_quarantine_holds_exactly_the_bad_records_with_their_bytes(sample_run):
    out, _ = sample_run
    q = read_table(out, "quarantine")
    caps = jsonl(CAPTURES)
    bad = {r["record_id"]: r for r in caps if str(r.get("record_id", "")).startswith("bad/")}
    named = {r["record_id"]: r for r in q if r["record_id"].startswith("bad/")}
    assert set(named) == set(bad)
    for rid, r in named.items():
        if rid != "bad/not-hex":
            assert r["data"] == bytes.fromhex(bad[rid]["hex"]) and r["hex"] == bad[rid]["hex"].upper()
    others = [r for r in q if not r["record_id"].startswith("bad/")]
    assert sorted(r["error_type"] for r in others) == ["JSONDecodeError", "TruncatedError"]
    not_json = next(r for r in others if r["error_type"] == "JSONDecodeError")
    assert not_json["data"].decode() == next(r["__not_json__"] for r in caps if "__not_json__" in r)
    gm = next(r for r in others if r["error_type"] == "TruncatedError")
    assert gm["error_path"] == "members[0].assignment" and gm["kind"] == "group-metadata"


def test_members_and_task_lags_match_kafka(sample_run, nested):
    out, _ = sample_run
    members = {(r["generation"]): r for r in read_table(out, "members") if r["group"] == "streams-app"}
    assert sorted(members) == list(range(1, 12))
    lags = defaultdict(dict)
    for r in read_table(out, "task_lags"):
        if r["group"] == "streams-app":
            lags[r["generation"]][r["task"]] = r
    for v in range(1, 12):
        want = nested[v]["subscription"]["decoded"]
        m = members[v]
        assert (m["member"], m["process_id"], m["metadata_version"]) == ("streams-app-c1", want["processId"], v)
        assert m["latest_supported_version"] == want["latestSupportedVersion"]
        assert m["endpoint"] == want["userEndPoint"] and dict(m["client_tags"] or []) == want["clientTags"]
        assert (
            m["release"] == ("0.10.0", "0.10.1", "2.0", "2.1", "2.4", "2.5", "2.6", "2.7", "2.8", "3.0", "3.2")[v - 1]
        )
        assert str(m["date"]) == f"2024-{10 if v <= 7 else 11}-{(24 + v) if v <= 7 else (v - 7):02d}"
        sums = {_task(t["taskId"]): t["offsetSum"] for t in want["taskOffsetSums"]}
        assert {t: r["offset_sum"] for t, r in lags[v].items()} == sums
        # one member reports the task: the estimate of its end sum is its own sum, so lag 0
        cls = {-2: "running", -3: "unknown"}
        assert {t: r["lag_class"] for t, r in lags[v].items()} == {t: cls.get(s, "caught-up") for t, s in sums.items()}


def test_assignments_match_kafka(sample_run, nested, vectors):
    out, _ = sample_run
    rows = read_table(out, "assignments")
    got = defaultdict(set)
    consumers = defaultdict(set)
    for r in rows:
        if r["role"] == "consumer":  # a plain consumer's partition (g-java-default's, from the frames; payments')
            assert r["task"] == f"{r['topic']}-{r['partition']}"
            consumers[(r["group"], r["generation"], r["member"])].add((r["topic"], r["partition"]))
            continue
        got[(r["group"], r["generation"], r["member"])].add((r["task"], r["role"], r["partitions"]))
    # the KIP-848 group payments (make_kafka4_sample.py): c1 holds partitions 0-2 of topic payments at epoch 5
    assert consumers.pop(("payments", 5, "c1")) == {("payments", p) for p in (0, 1, 2)}
    assert dict(consumers) == consumer_partitions(jsonl(FRAMES))
    want = defaultdict(set)
    for v in range(1, 12):
        d = nested[v]["assignment"]["decoded"]
        for t in d["activeTasks"]:
            want[("streams-app", v, "streams-app-c1")].add((_task(t), "active", d["activeTasks"].count(t)))
        for s in d["standbyTasks"]:
            want[("streams-app", v, "streams-app-c1")].add((_task(s["taskId"]), "standby", len(s["partitions"])))
    for r in jsonl(CAPTURES):
        if str(r.get("record_id", "")).startswith("orders-app/") and "/asg/" in r["record_id"]:
            _, v, idx = r["vector"].split()
            d = vectors[("assignment", int(v[1:]), int(idx[1:]))]
            key = ("orders-app", r["generation"], r["member"])
            for t in d["activeTasks"]:
                want[key].add((_task(t), "active", sum(1 for x in d["activeTasks"] if _task(x) == _task(t))))
            for s in d["standbyTasks"]:
                want[key].add((_task(s["taskId"]), "standby", len(s["partitions"])))
    for v, m in ((10, "ledger-1"), (11, "ledger-2")):
        d = nested[v]["assignment"]["decoded"]
        want[("ledger-app", 7, m)] = {(_task(t), "active", 1) for t in d["activeTasks"]} | {
            (_task(s["taskId"]), "standby", len(s["partitions"])) for s in d["standbyTasks"]
        }
    # the streams group names tasks, not partition slots; the consumer group (payments) has no tasks
    for (member, epoch), tasks in CHECKOUT_ASSIGNMENTS.items():
        want[("checkout-app", epoch, member)] = {(task, role, None) for task, role in tasks}
    assert dict(got) == dict(want)


def test_rebalances_count_a_consumer_groups_partitions(sample_run):
    """``assigned_partitions``: what ``active_tasks`` is to a Streams group, a plain or KIP-848 consumer group's
    partitions held in the generation (the frames' SyncGroup assignments, decoded by hand; payments' c1 holds 0-2 at
    epoch 5, make_kafka4_sample.py); a Streams group holds none as partitions."""
    out, _ = sample_run
    reb = {(r["group"], r["generation"]): r for r in read_table(out, "rebalances")}
    held: dict = defaultdict(set)
    for (group, generation, _), tps in consumer_partitions(jsonl(FRAMES)).items():
        held[(group, generation)] |= tps
    held[("payments", 5)] = {("payments", p) for p in (0, 1, 2)}
    assert held and {k: reb[k]["assigned_partitions"] for k in held} == {k: len(v) for k, v in held.items()}
    assert {r["assigned_partitions"] for k, r in reb.items() if k not in held} == {0}
    assert reb[("streams-app", 11)]["active_tasks"] > 0
    # the report says which consumer generations the assignor checks ran on; payments (KIP-848) settles at epoch 5
    # (c1 alone holds its partitions: its heartbeat response, the Describe response; c2's join was refused), which
    # is not judged for partition-unowned: no input gives the topic's partition count; not-the-assignors-assignment
    # judges no KIP-848 group (the broker's assignor)
    checks = json.loads((out / "report.json").read_text())["consumer_assignor_checks"]
    assert checks["kip848_not_judged"]["groups"] == ["payments"]
    assert checks["kip848_not_judged"]["check"] == "not-the-assignors-assignment"
    classic = len([k for k in held if k[0] != "payments"])
    assert checks["generations_checked"] == 0 and checks["not_checked"] == classic + 1
    why = {(r["group"], r["generation"]): r["why"] for r in checks["not_checked_sample"]}
    assert why[("payments", 5)].startswith("the partition count of payments is not known"), why


def test_rebalances_one_row_per_group_generation(sample_run, nested):
    out, _ = sample_run
    reb = {(r["group"], r["generation"]): r for r in read_table(out, "rebalances")}
    frames = [f for f in jsonl(FRAMES) if f["api_key"] == 11 and f["direction"] == "response"]
    from codec.group import decode_message

    frame_gens = {
        decode_message(
            "JoinGroupResponse", f["api_version"], bytes.fromhex(f["hex"])[f["body_offset"] :]
        ).value.generation_id
        for f in frames
    }
    frame_gens = {g for g in frame_gens if g >= 0}
    streams = {("streams-app", v) for v in range(1, 12)}
    # Kafka 4 (make_kafka4_sample.py): checkout-app's joins at epoch 0, responses and records at 1 and 2; payments'
    # joins at 0, its response, Describe and records at 5. connect-cluster: the generation its record holds (4)
    kafka4 = {("checkout-app", e) for e in (0, 1, 2)} | {("payments", 0), ("payments", 5)}
    assert set(reb) == streams | {("orders-app", 4), ("orders-app", 5), ("ledger-app", 7)} | {
        ("g-java-default", g) for g in frame_gens
    } | kafka4 | {("connect-cluster", 4)}
    connect = reb[("connect-cluster", 4)]
    assert (connect["protocol_type"], connect["protocol"], connect["leader"]) == ("connect", "sessioned", "worker-1")
    assert connect["reported_member_count"] == 2
    for v in range(1, 12):
        r = reb[("streams-app", v)]
        a = nested[v]["assignment"]["decoded"]
        assert (r["subscription_versions"], r["assignment_versions"]) == ([v], [v])
        assert r["commonly_supported_versions"] == [a["commonlySupportedVersion"]]
        assert (r["member_count"], r["client_count"], r["protocol"]) == (1, 1, "stream")
    led = reb[("ledger-app", 7)]
    assert (led["leader"], led["protocol"], led["member_count"], led["client_count"]) == ("ledger-1", "stream", 2, 1)
    assert led["subscription_versions"] == [10, 11] and led["assignment_versions"] == [10, 11]


def _active_next(groups: dict, g: str, gen: int, task: str) -> set:
    """The members running ``task`` in the group's next generation after ``gen`` (none when there is none)."""
    later = [n for grp, n in groups if grp == g and n > gen]
    if not later:
        return set()
    mem = groups[(g, min(later))]
    return {m for m, (_, _, asg) in mem.items() if asg is not None and task in {_task(t) for t in asg["activeTasks"]}}


def _oracle(groups: dict, whole: set) -> set:
    """Checks re-derived from Kafka's decoded values: groups[(group, gen)][member] = (process, subscription
    decoded, assignment decoded); ``whole``: the generations the input holds every member of (a
    ``__consumer_offsets`` record): ``no-active-owner`` per task and ``unbalanced-active`` are decided there only,
    and elsewhere a task active on none of the members seen is one warning for the generation (another member,
    not in the input, may run it)."""
    found = set()
    latest = {}
    for g, gen in groups:
        latest[g] = max(latest.get(g, gen), gen)
    for (g, gen), mem in groups.items():
        active, others, proc = defaultdict(set), defaultdict(set), {}
        for m, (p, sub, asg) in mem.items():
            proc[m] = p
            if asg is None:
                continue
            acts = {_task(t) for t in asg["activeTasks"]}
            stbs = {_task(s["taskId"]) for s in asg["standbyTasks"]}
            for t in acts:
                active[t].add(m)
            for t in stbs:
                others[t].add(m)
            for t in acts & stbs:
                found.add((g, gen, "active-and-standby", t, m))
            if asg["errCode"]:
                found.add((g, gen, "assignment-error", None, m))
        # members told to rejoin at once: Kafka's leader withheld an active from them (cooperative revocation)
        withheld = {m for m, x in mem.items() if x[2] is not None and x[2]["nextRebalanceMs"] == 0}
        for t in set(active) | set(others):
            if len(active[t]) > 1:
                found.add((g, gen, "multiple-active-owners", t, None))
            if not active[t] and (g, gen) not in whole:
                found.add((g, gen, "no-active-owner", None, None))
            elif not active[t] and not (withheld and _active_next(groups, g, gen, t)):
                found.add((g, gen, "no-active-owner", t, None))
            for s in others[t]:
                for a in active[t]:
                    if s != a and proc[s] == proc[a]:
                        found.add((g, gen, "standby-on-active-client", t, s))
        asgs = [x[2] for x in mem.values() if x[2] is not None]
        if (g, gen) in whole and asgs and all(a["errCode"] == 0 and a["nextRebalanceMs"] == NO_REBALANCE for a in asgs):
            load = defaultdict(lambda: [set(), set()])
            for m, (p, sub, asg) in mem.items():
                if asg is not None:
                    load[p][0] |= {_task(t) for t in asg["activeTasks"]}
                    load[p][1].add(m)
            loads = [len(a) / len(c) for a, c in load.values()]
            if max(loads) - min(loads) > 1:
                found.add((g, gen, "unbalanced-active", None, None))
        if len({a["version"] for a in asgs}) > 1:
            found.add((g, gen, "mixed-assignment-versions", None, None))
        if gen == latest[g]:
            subs = {x[1]["version"] for x in mem.values() if x[1] is not None}
            csv = [a["commonlySupportedVersion"] for a in asgs if a["commonlySupportedVersion"] > 0]
            below = bool(asgs and csv and min(a["version"] for a in asgs) < max(csv))
            if len(subs) > 1 or below:
                found.add((g, gen, "unresolved-version-mix", None, None))
    return found


def _expected_findings(nested, vectors, captures: list[dict] | None = None) -> set:
    """The findings re-derived by hand (:func:`_oracle`) from Kafka's decoded values of the records the
    samples were made from: ``captures`` (default: the rows of captures.jsonl) names the orders-app ones. The
    Kafka 4 groups' findings are derived in ``test_kafka4.py`` from the same records."""
    groups = defaultdict(dict)
    for v in range(1, 12):
        groups[("streams-app", v)]["streams-app-c1"] = (
            nested[v]["subscription"]["decoded"]["processId"],
            nested[v]["subscription"]["decoded"],
            nested[v]["assignment"]["decoded"],
        )
    orders = defaultdict(dict)
    for r in jsonl(CAPTURES) if captures is None else captures:
        if str(r.get("record_id", "")).startswith("orders-app/"):
            kind, v, idx = r["vector"].split()
            orders[(r["generation"], r["member"])][kind.split(".")[0]] = vectors[
                (kind.split(".")[0], int(v[1:]), int(idx[1:]))
            ]
    for (gen, m), d in orders.items():
        groups[("orders-app", gen)][m] = (d["subscription"]["processId"], d["subscription"], d.get("assignment"))
    for v, m in ((10, "ledger-1"), (11, "ledger-2")):
        s = nested[v]["subscription"]["decoded"]
        groups[("ledger-app", 7)][m] = (s["processId"], s, nested[v]["assignment"]["decoded"])
    # the ledger-app generation is a __consumer_offsets record: the whole group; streams-app's and orders-app's
    # generations hold the members the records name, of a group whose size no record gives
    return _oracle(groups, {("ledger-app", 7)}) | KAFKA4_FINDINGS  # (the Connect group's records hold no tasks)


def test_findings_match_hand_derived_checks(sample_run, nested, vectors):
    out, _ = sample_run
    want = _expected_findings(nested, vectors)
    got = {(r["group"], r["generation"], r["check"], r["task"], r["member"]) for r in read_table(out, "findings")}
    assert got == want
    assert want  # the samples do exercise the checks


def check_findings_by_check(report: dict, expected: set) -> None:
    """report.json's findings per check against the hand-derived findings: one finding per (group,
    generation, check, task, member), counted by check."""
    want = defaultdict(int)
    for _, _, check, _, _ in expected:
        want[check] += 1
    assert report["findings_by_check"] == dict(want)


def test_report_is_self_contained(sample_run, nested, vectors):
    out, summary = sample_run
    html = (out / "report.html").read_text()
    assert "<svg" in html and "<script" not in html and "http://" not in html.replace("http://www.w3", "")
    for title in ("versions over time", "Decode error rate", "Rebalances", "Findings by check", "Not selected"):
        assert title in html
    assert "read = not selected + decoded + quarantined:\nholds" in html
    for reason, n in _not_selected_by_reason().items():
        assert f"<td>{reason}</td><td>{n}</td>" in html
    rep = json.loads((out / "report.json").read_text())
    check_findings_by_check(rep, _expected_findings(nested, vectors))
    assert sum(rep["findings_by_check"].values()) == summary["tables"]["findings"]
    assert (out / "members").is_dir() and any(p.name.startswith("date=") for p in (out / "members").iterdir())


def test_the_findings_count_check_can_fail(sample_run, nested, vectors):
    """check_findings_by_check is no tautology: its expectation comes from the input files, so it fails on
    the report of these inputs when the inputs are deliberately broken -- captures.jsonl without orders-1's
    generation-5 assignment, which carries an error code (so, by the oracle, assignment-error 3 -> 2; generation 5
    keeps its no-active-owner warning: orders-2 and orders-3 still hold standbys of tasks active on none of the
    members in the input, and the input still does not show the group's size, so balance is not checked) -- and
    when the report's count of one check is off by one."""
    out, _ = sample_run
    rep = json.loads((out / "report.json").read_text())
    broken = [r for r in jsonl(CAPTURES) if r.get("record_id") != "orders-app/g5/asg/1"]
    assert len(broken) == len(jsonl(CAPTURES)) - 1
    count = defaultdict(int)
    for f in _expected_findings(nested, vectors, broken):
        count[f[2]] += 1
    assert (count["no-active-owner"], count["assignment-error"], count["unbalanced-active"]) == (14, 2, 0)
    with pytest.raises(AssertionError):
        check_findings_by_check(rep, _expected_findings(nested, vectors, broken))
    check, n = next(iter(rep["findings_by_check"].items()))
    with pytest.raises(AssertionError):
        check_findings_by_check(
            dict(rep, findings_by_check={**rep["findings_by_check"], check: n + 1}), _expected_findings(nested, vectors)
        )


@pytest.fixture(scope="module")
def warm_run(spark, tmp_path_factory):
    """The run of :func:`test_balance_warmups_and_config`'s input; with what of it the Python side still holds
    after it (:func:`_plan_objects`)."""
    tmp_path = tmp_path_factory.mktemp("warm")
    subs = [r for r in jsonl(KAFKA_VECTORS / "subscription.jsonl") if r["version"] == 11]
    asgs = {r["index"]: r for r in jsonl(KAFKA_VECTORS / "assignment.jsonl") if r["version"] == 11}
    recs = []
    for group, picks in (("bal-app", (1, 2, 11)), ("warm-app", (0, 14))):
        for i, idx in enumerate(picks):
            common = {"group": group, "generation": 1, "member": f"{group}-{i}"}
            recs.append(
                {"kind": "subscription-info", **common, "hex": subs[i + (3 if group == "warm-app" else 0)]["hex"]}
            )
            recs.append({"kind": "assignment-info", **common, "hex": asgs[idx]["hex"]})
    # the leader's SyncGroup request: bal-app's whole group (balance is decided on the whole group only)
    recs.append(
        leader_sync("bal-app", 1, {f"bal-app-{i}": bytes.fromhex(asgs[idx]["hex"]) for i, idx in enumerate((1, 2, 11))})
    )
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in recs))
    out = tmp_path / "out"
    gc.collect()
    before = _plan_objects()
    run(
        Options(
            inputs=[str(src)], out=str(out), quiet=True, config=Config(num_standby_replicas=0, max_warmup_replicas=0)
        ),
        spark,
    )
    return out, asgs, _plan_objects() - before


def _plan_objects() -> Counter:
    """The py4j objects of query plans this process holds (live or uncollected garbage), by Java class."""
    from py4j.java_gateway import JavaObject
    from py4j.protocol import Py4JError

    def name(o: JavaObject) -> str | None:
        try:
            return o.getClass().getSimpleName()
        except Py4JError:  # (one the gateway already let go of: it holds nothing)
            return None

    objs = [o for o in gc.get_objects() if isinstance(o, JavaObject)]
    return Counter(n for n in map(name, objs) if n in ("Dataset", "Column", "RelationalGroupedDataset"))


def test_balance_warmups_and_config(warm_run):
    """KIP-441 balance and warmups on Kafka-written bytes. bal-app: three clients holding 3, 6 and 0
    active tasks (assignment.jsonl v11 #1, #2, #11: no error, no follow-up rebalance) are unbalanced.
    warm-app: v11 #0 runs task 4_43 that #14 holds as a standby; with num.standby.replicas = 0 each
    standby of a task active in the generation is a warmup, and max.warmup.replicas = 0 flags them."""
    out, asgs, _ = warm_run
    f = {(r["group"], r["generation"], r["check"]) for r in read_table(out, "findings")}
    assert ("bal-app", 1, "unbalanced-active") in f
    assert ("warm-app", 1, "too-many-warmups") in f
    dec = {i: asgs[idx]["decoded"] for i, idx in enumerate((0, 14))}
    active = {_task(t) for d in dec.values() for t in d["activeTasks"]}
    want = set()
    for i, d in dec.items():
        want |= {(f"warm-app-{i}", _task(t), "active") for t in d["activeTasks"]}
        want |= {
            (f"warm-app-{i}", _task(s["taskId"]), "warmup" if _task(s["taskId"]) in active else "standby")
            for s in d["standbyTasks"]
        }
    got = {(r["member"], r["task"], r["role"]) for r in read_table(out, "assignments") if r["group"] == "warm-app"}
    assert got == want and ("warm-app-1", "4_43", "warmup") in got
    reb = {r["group"]: r for r in read_table(out, "rebalances")}
    assert reb["warm-app"]["warmup_replicas"] == sum(1 for w in want if w[2] == "warmup")


def test_a_run_leaves_no_dataframe_behind(warm_run):
    """A DataFrame's query plan lives in the JVM until Python frees the py4j object that stands for it, and py4j's
    objects sit in reference cycles that only Python's cycle collector frees. The job's outlived the run until the
    collector happened to run; in a session that runs the job again and again (a notebook, these tests) their plans
    filled the driver's heap and every later query crawled through full garbage collections. After a run, no
    Dataset, Column or grouping of it is left on the Python side, not even as uncollected garbage."""
    assert warm_run[2] == Counter()


def test_existing_output_is_refused(spark, tmp_path):
    from codec.pipeline.job import PipelineError

    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    with pytest.raises(PipelineError, match="--overwrite"):
        run(Options(inputs=[str(CAPTURES)], out=str(out), quiet=True), spark)
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_normalize_accepts_the_documented_shapes(spark):
    from pyspark.sql import Row

    from codec.pipeline.job import normalize

    iso = spark.createDataFrame(
        [
            Row(
                kind="assignment",
                hex="00",
                group_id="g",
                member_id="m",
                generation_id=3,
                timestamp="2024-10-25T12:00:00Z",
                id="a",
            )
        ]
    )
    r = normalize(iso, "s").collect()[0]
    assert (r.record_id, r.group, r.member, r.generation, r.ts_ms, r.selected) == (
        "a",
        "g",
        "m",
        3,
        1_729_857_600_000,
        True,
    )
    ms = normalize(spark.createDataFrame([Row(kind="x", hex="00", timestamp="1729857600123")]), "s").collect()[0]
    assert ms.ts_ms == 1_729_857_600_123
    frames = spark.createDataFrame(
        [
            Row(api_key=11, api_version=5, direction="request", ts=1729857600.5, hex="00", conn="c", correlation_id=7),
            Row(api_key=12, api_version=4, direction="request", ts=1729857601.0, hex="00", conn="c", correlation_id=8),
        ]
    )
    f = normalize(frames, "s").orderBy("ts_ms").collect()
    assert [(x.kind, x.version, x.ts_ms, x.selected, x.link) for x in f] == [
        ("frame", 5, 1_729_857_600_500, True, "s|c|7"),
        ("frame", 4, 1_729_857_601_000, False, "s|c|8"),
    ]
    kv = spark.createDataFrame(
        [Row(key="0002000161", value="0003"), Row(key="000100", value="00"), Row(key="0002000162", value=None)]
    )
    k = normalize(kv, "s").collect()
    assert [(x.kind, x.key, x.hex, x.selected) for x in k] == [
        ("group-metadata", bytes.fromhex("0002000161"), "0003", True),
        ("group-metadata", bytes.fromhex("000100"), "00", False),
        ("group-metadata", bytes.fromhex("0002000162"), None, False),
    ]

    cap = spark.createDataFrame(
        [
            Row(
                type="frame",
                api_key=14,
                api_version=5,
                direction="response",
                connection=3,
                correlation_id=9,
                hex="00",
                group="g",
                member="m",
                generation=2,
            ),
            Row(
                type="generation",
                api_key=None,
                api_version=None,
                direction=None,
                connection=None,
                correlation_id=None,
                hex=None,
                group="g",
                member=None,
                generation=2,
            ),
        ]
    )
    c = normalize(cap, "s").collect()
    assert [(x.kind, x.selected, x.link, x.group) for x in c] == [
        ("frame", True, "s|3|9", "g"),
        (None, False, None, "g"),
    ]
    # context that does not parse is left out (null), never a failed job (Spark's ANSI mode)
    odd = spark.createDataFrame(
        [
            Row(kind="assignment", hex="00", generation="seven", version="x", ts=1e300),
            Row(kind="assignment", hex="00", generation="1", version="2", ts=9.2e15),
        ]
    )
    o = normalize(odd, "s").collect()
    assert [(x.generation, x.version, x.ts_ms, x.selected) for x in o] == [(None, None, None, True), (1, 2, None, True)]


def test_the_decoded_units_schema_is_what_the_executors_build(spark):
    """The job hands Spark the executors' Arrow schema converted in Python (no SQL parse per query): the schema
    of the units it plans is the one decode_batch builds, record id and source never null."""
    from pyspark.sql import Row
    from pyspark.sql.pandas.types import from_arrow_schema

    from codec.pipeline.arrow import FLAT, INPUT_COLUMNS, decode_batch
    from codec.pipeline.job import decode, normalize

    pa = pytest.importorskip("pyarrow")
    units = decode(normalize(spark.createDataFrame([Row(kind="assignment-info", hex="00")]), "s"))
    assert units.schema == from_arrow_schema(FLAT)
    assert [f.name for f in units.schema if not f.nullable] == ["record_id", "source"]
    empty = pa.RecordBatch.from_arrays([pa.nulls(0) for _ in INPUT_COLUMNS], names=list(INPUT_COLUMNS))
    assert decode_batch(empty).schema == FLAT


def test_columns_null_by_construction_stay_in_the_jvm(spark):
    """decode sends the executors only the input columns that can hold a value: a column normalize fills with
    null for a field no input has (here ``hex`` next to binary ``data``, no connection for ``link``) stays in the
    JVM, and comes back null; a column one of two unioned inputs has is sent."""
    from pyspark.sql import Row

    from codec.pipeline.arrow import INPUT_COLUMNS
    from codec.pipeline.job import _null_columns, decode, normalize

    sub = bytes.fromhex(jsonl(KAFKA_VECTORS / "subscription.jsonl")[0]["hex"])
    binary = normalize(spark.createDataFrame([Row(kind="subscription-info", data=sub, group="g")]), "s")
    absent = _null_columns(binary.select(*INPUT_COLUMNS))
    assert {"hex", "link", "key", "leader"} <= absent and not {"data", "kind", "group", "record_id", "source"} & absent
    (u,) = decode(binary).collect()
    assert (u.unit_kind, u.group, u.link, u.leader, u.source) == ("member", "g", None, None, "s")
    with_hex = normalize(spark.createDataFrame([Row(kind="subscription-info", hex=sub.hex())]), "t")
    assert "hex" not in _null_columns(binary.unionByName(with_hex).select(*INPUT_COLUMNS))


def test_the_connect_table_holds_each_workers_metadata_and_assignment(sample_run):
    """connect-cluster (offsets.parquet, make_samples.py's ``connect_group``): generation 4 of a group of two
    workers on ``sessioned``, the second rebalance after ``worker-2`` joined a ``worker-1`` that ran all four
    connectors (ten tasks). Derived by hand from incremental cooperative rebalancing (KIP-415, seed 003): at
    generation 3 the leader revoked from ``worker-1`` the excess over an even share — two connectors of four,
    five tasks of ten: jdbc-orders-source and s3-events-sink, with jdbc-orders-source's two tasks and three of
    s3-events-sink's four — and handed nothing out; at generation 4 ``worker-1``'s metadata holds what it kept
    (and the revocations of its last assignment), ``worker-2``'s an empty assignment from the same leader, and
    the leader hands ``worker-2`` exactly what was revoked, ``worker-1`` nothing new. One row per worker and layer
    (connectors and tasks compare as sets: Kafka writes the connectors in Java HashSet order)."""
    import pyarrow.dataset as ds

    out, summary = sample_run
    rows = {(r["member"], r["layer"]): r for r in read_table(out, "connect")}
    assert summary["tables"]["connect"] == len(rows) == 4
    revoked_c = {"jdbc-orders-source", "s3-events-sink"}
    revoked_t = {
        ("jdbc-orders-source", 0),
        ("jdbc-orders-source", 1),
        ("s3-events-sink", 0),
        ("s3-events-sink", 1),
        ("s3-events-sink", 2),
    }
    kept_c = {"mirror-eu-west", "debezium-inventory"}
    kept_t = {
        ("s3-events-sink", 3),
        ("mirror-eu-west", 0),
        ("mirror-eu-west", 1),
        ("mirror-eu-west", 2),
        ("debezium-inventory", 0),
    }
    want = {  # (member, layer) -> url, connectors, tasks, revoked connectors, revoked tasks
        ("worker-1", "metadata"): ("http://10.0.2.1:8083/", kept_c, kept_t, revoked_c, revoked_t),
        ("worker-2", "metadata"): ("http://10.0.2.2:8083/", set(), set(), set(), set()),
        ("worker-1", "assignment"): (None, set(), set(), set(), set()),
        ("worker-2", "assignment"): (None, revoked_c, revoked_t, set(), set()),
    }
    assert set(rows) == set(want)
    for (member, layer), (url, conns, tasks, rev_c, rev_t) in want.items():
        r = rows[(member, layer)]
        assert (r["group"], r["generation"], r["protocol"], r["version"]) == ("connect-cluster", 4, "sessioned", 2)
        assert r["config_offset"] == 42
        if layer == "assignment":
            assert (r["leader"], r["leader_url"], r["error"], r["delay"]) == ("worker-1", "http://10.0.2.1:8083/", 0, 0)
        else:
            assert r["url"] == url
        assert set(r["connectors"] or ()) == conns
        assert {(t["connector"], t["task"]) for t in r["tasks"] or ()} == tasks
        assert set(r["revoked_connectors"] or ()) == rev_c
        assert {(t["connector"], t["task"]) for t in r["revoked_tasks"] or ()} == rev_t
    names = ds.dataset(str(out / "connect"), format="parquet").schema.names
    assert {
        "group",
        "generation",
        "member",
        "layer",
        "protocol",
        "version",
        "url",
        "config_offset",
        "connectors",
        "tasks",
        "revoked_connectors",
        "revoked_tasks",
        "delay",
        "error",
        "leader",
        "leader_url",
        "escaped",
    } <= set(names)


def test_the_operator_page_shows_what_the_job_prints(sample_run):
    """docs/getting-started/fleet-in-spark.md shows the bundled example's summary (the docs' slow test runs its
    command as written): the same job on the same inputs, run here in-process, prints exactly that."""
    import io

    from codec.pipeline.command import print_summary
    from tests.docs.examples import blocks, matches, session

    out, summary = sample_run
    buf = io.StringIO()
    print_summary(summary, file=buf)
    printed = buf.getvalue().replace(summary["output"], "out/pipeline").splitlines()
    (block,) = [b for b in blocks("getting-started/fleet-in-spark.md") if "$ rebalance-codec pipeline" in b.text]
    (command,) = session(block)
    assert command.expected[0] == "..."  # Spark's progress lines, on stderr
    assert matches(command.expected, printed), "\n".join(printed)
    assert not matches(command.expected, [line.replace("97 decoded", "96 decoded") for line in printed])


#: The bundled example's findings, each explained by hand from how its records were made
#: (codec/examples/pipeline/make_samples.py and make_kafka4_sample.py); (group, generation, check, severity, task,
#: member) -> why.
EXPLAINED = {
    ("checkout-app", 1, "group-error", "warning", None, "m2"): "the KIP-1071 sample fences m2: its heartbeat response "
    "is FENCED_MEMBER_EPOCH (110) at epoch 1",
    ("checkout-app", 2, "multiple-active-owners", "error", "0_0", None): "the sample's records give task 0_0 as "
    "active to m1 and to m3 at epoch 2",
    ("ledger-app", 7, "mixed-assignment-versions", "error", None, None): "the GroupMetadataValue record wraps Kafka's "
    "v10 vector for ledger-1 and its v11 vector for ledger-2: one leader never sends two versions",
    ("ledger-app", 7, "multiple-active-owners", "error", "0_0", None): "both vectors (ledger-1, ledger-2) assign task "
    "0_0 as active",
    ("ledger-app", 7, "no-active-owner", "error", "1_3", None): "both vectors hold 1_3 as a standby and neither runs "
    "it; the record is the whole group (its two members), and no member was told to rejoin at once",
    ("ledger-app", 7, "unresolved-version-mix", "warning", None, None): "the group's latest generation still has "
    "subscriptions of versions 10 and 11",
    ("orders-app", 4, "assignment-error", "error", None, "orders-1"): "Kafka's random v10 assignment vector given to "
    "orders-1 carries error code 2121558363",
    ("orders-app", 4, "assignment-error", "error", None, "orders-2"): "the one given to orders-2 carries -1",
    ("orders-app", 5, "assignment-error", "error", None, "orders-1"): "the v11 one given to orders-1 carries "
    "-2147483648",
    ("orders-app", 4, "no-active-owner", "warning", None, None): "the random vectors hold standbys of tasks that none "
    "of the three members runs, and no record gives the group's size: another member may run them",
    ("orders-app", 5, "no-active-owner", "warning", None, None): "likewise at generation 5",
    ("payments", 0, "group-error", "warning", None, None): "the KIP-848 sample refuses a static member's join with "
    "UNRELEASED_INSTANCE_ID (111)",
    **{
        ("streams-app", g, "no-active-owner", "warning", None, None): f"Kafka's v{g} vector gives streams-app-c1 a "
        "standby of a task it does not run; the records show that one member only, of a group whose size they do not "
        "give: another member may run it"
        for g in range(1, 12)
    },
}


def test_each_finding_of_the_bundled_example_is_explained_by_hand(sample_run):
    out, _ = sample_run
    got = {
        (r["group"], r["generation"], r["check"], r["severity"], r["task"], r["member"])
        for r in read_table(out, "findings")
    }
    assert got == set(EXPLAINED)
    # no error where the input cannot tell: every no-active-owner error is of a generation the input holds whole
    whole = {(r["group"], r["generation"]) for r in read_table(out, "rebalances") if r["members_complete"]}
    assert all((g, n) in whole for g, n, check, sev, _, _ in got if check == "no-active-owner" and sev == "error")


def test_every_rebalance_of_the_bundled_example_has_a_cause(sample_run):
    out, _ = sample_run
    rows = read_table(out, "rebalances")
    assert rows and all(r["cause"] is not None and r["causes"] and r["causes"][0] == r["cause"] for r in rows)
    # the frames are ../shared/captures' runA java-default: its run_meta.json says c1, c2 and c3 joined at 0, 9 and
    # 18 s and left at 32, 41 and 50 s (the last leaves an empty group: no generation follows)
    java = sorted((r["generation"], r["cause"]["kind"]) for r in rows if r["group"] == "g-java-default")
    assert [k for _, k in java] == ["member-joined"] * 3 + ["member-left"] * 2


def test_the_report_shows_the_rebalances_by_cause_and_per_minute(sample_run):
    """The report's rebalances by cause, per group, and its storm chart's rebalances per minute are the
    ``rebalances`` table's rows counted again here (every group of the example: fewer than the 30 the report
    shows), each drawn as a part of its group's bar (its tooltip: group, count, cause); g-java-default's are those
    its run_meta.json implies (three joins, two leaves: see the test above)."""
    import html as html_lib
    from collections import Counter

    out, summary = sample_run
    rows = read_table(out, "rebalances")
    by_cause = Counter((r["group"], r["cause"]["kind"]) for r in rows)
    per_minute = Counter(
        (r["first_seen"].strftime("%Y-%m-%d %H:%M"), r["group"]) for r in rows if r["first_seen"] is not None
    )
    assert len({g for g, _ in by_cause}) < 30 and len({m for m, _ in per_minute}) < 60
    rep = json.loads((out / "report.json").read_text())
    for charts in (summary["charts"], rep["charts"]):
        assert {(c["group"], c["cause"]): c["rebalances"] for c in charts["rebalances_by_cause"]} == by_cause
        assert {(c["minute"], c["group"]): c["rebalances"] for c in charts["rebalances_per_minute"]} == per_minute
    assert by_cause[("g-java-default", "member-joined")] == 3 and by_cause[("g-java-default", "member-left")] == 2
    page = (out / "report.html").read_text()
    start = page.index("<h2>Rebalances by cause, per group</h2>")
    section = page[start : page.index("<h2>", start + 1)]
    drawn = Counter(
        (html_lib.unescape(g), html_lib.unescape(c))
        for g, n, c in re.findall(r"<title>([^<]*): (\d+) ([a-z-]+)</title></rect>", section)
        for _ in range(int(n))
    )
    assert drawn == by_cause
    legend = {html_lib.unescape(c) for c in re.findall(r'<text class="legend"[^>]*>([^<]*)</text>', section)}
    assert legend == {c for _, c in by_cause}
