"""End to end on real captures, in the default test run: ``rebalance-codec capture --json`` on every pcap of
the shared corpus (plain consumers of five client libraries: ConsumerProtocol, no Kafka Streams, see
``../shared/captures/README.md``), its output written as several ``.jsonl`` files into one folder -- with
a file without extension (JSON lines by content), an empty file, Spark's hidden ``_SUCCESS`` and a Parquet
file of hand-written AssignmentInfo records holding lone surrogates -- and the pipeline run once (local
Spark) on the folder.

Expected values come from the input files themselves (their lines counted by type and API), from the
corpus's ``frames.jsonl`` and ``runs/*/run_meta.json`` and from its README, never from the pipeline."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")
pa = pytest.importorskip("pyarrow")

from codec.pipeline.job import TABLES, Options, run  # noqa: E402
from codec.text import unescape_utf8_safe  # noqa: E402
from tests.conftest import ROOT, SHARED  # noqa: E402

from .conftest import read_table  # noqa: E402
from .test_surrogates import LITERAL, STANDBY, SURROGATE, V7_HOST  # noqa: E402

CORPUS = SHARED / "captures"
SURROGATE_GROUP = "surrogate-app"
PCAPS = sorted((CORPUS / "pcaps").glob("*/*.pcap.gz"))
SELECTED_APIS = (11, 14)  # JoinGroup, SyncGroup (and LeaveGroup requests: _selected): the pipeline's frames


def _selected(f: dict) -> bool:
    """A frame the pipeline reads: JoinGroup, SyncGroup, and LeaveGroup requests (who left, for the causes)."""
    return f["api_key"] in SELECTED_APIS or (f["api_key"] == 13 and f["direction"] == "request")


def _reason(f: dict) -> str:
    """Why the pipeline does not read a frame, as its summary says it."""
    return f"frame {f['api_name']}" + (" response" if f["api_key"] == 13 else "")


#: documented columns of the tables that are empty here (tables.py): they must be there without rows
COLUMNS = {
    "task_lags": {
        "group",
        "generation",
        "member",
        "process_id",
        "task",
        "subtopology",
        "partition",
        "topology",
        "offset_sum",
        "estimated_lag",
        "lag_class",
        "record_id",
        "escaped",
        "date",
    },
    "findings": {"group", "generation", "check", "severity", "task", "member", "detail", "escaped"},
    "quarantine": {
        "record_id",
        "kind",
        "error_type",
        "error_message",
        "error_offset",
        "error_path",
        "data",
        "hex",
        "escaped",
    },
}


def _capture_command() -> list[str]:
    script = Path(sys.executable).with_name("rebalance-codec")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "codec"]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def corpus_run(spark, tmp_path_factory):
    if not PCAPS:
        pytest.skip(f"no pcaps under {CORPUS / 'pcaps'}")
    base = tmp_path_factory.mktemp("e2e")
    folder = base / "captures"
    folder.mkdir()
    cmd = _capture_command()

    def capture(pcap: Path) -> tuple[Path, Path]:
        name = f"{pcap.parent.name}-{pcap.name[: -len('.pcap.gz')]}"
        target = folder / f"{name}.jsonl"
        with target.open("w") as out:
            r = subprocess.run(
                [*cmd, "capture", "--json", str(pcap)],
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
                cwd=ROOT,
                timeout=300,
            )
        assert r.returncode == 0, r.stderr
        return pcap, target

    t = time.monotonic()
    with ThreadPoolExecutor(max_workers=2) as pool:
        written = dict(pool.map(capture, PCAPS))
    capture_s = time.monotonic() - t
    # one capture's output under a name without extension, in a subfolder: told by its content
    first = written[PCAPS[0]]
    (folder / "more").mkdir()
    moved = folder / "more" / first.stem
    shutil.move(first, moved)
    written[PCAPS[0]] = moved
    (folder / "empty.jsonl").write_text("")
    (folder / "_SUCCESS").write_text("")
    # one group, generation 1: m-1 runs task 0_0 of the topology "x" + U+D800, m-2 task 0_0 of the topology
    # named with the 7 characters x\ud800 (not the same task), m-3 holds a standby of task 1_0 of the first
    # topology, which nobody runs; the v7 record alone
    surrogates = [
        {
            "record_id": f"surrogate/{n}",
            "kind": "assignment-info",
            "hex": h,
            "timestamp": 1730808000000,
            "group": SURROGATE_GROUP if m else None,
            "generation": 1 if m else None,
            "member": m,
        }
        for n, h, m in (
            ("named-x-d800", SURROGATE, "m-1"),
            ("named-literal", LITERAL, "m-2"),
            ("standby-x-d800", STANDBY, "m-3"),
            ("v7-host", V7_HOST, None),
        )
    ]
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(surrogates), folder / "surrogates.parquet")

    out = base / "out"
    t = time.monotonic()
    summary = run(Options(inputs=[str(folder)], out=str(out), quiet=True), spark)
    job_s = time.monotonic() - t
    print(f"\ncapture: {capture_s:.1f} s for {len(PCAPS)} pcaps; pipeline: {job_s:.1f} s")
    return {"written": written, "surrogates": surrogates, "out": out, "summary": summary}


def test_the_corpus_is_plain_consumers_only():
    """The premise (captures/README: 'nothing in reach produces SubscriptionInfo'): every group in these
    runs uses a ConsumerProtocol assignor, not Streams' ``stream``."""
    assert len(PCAPS) >= 12
    for meta in sorted(CORPUS.glob("runs/*/run_meta.json")):
        for scenario in json.loads(meta.read_text())["scenarios"].values():
            assert {m["strategy"] for m in scenario["members"]} <= {
                "default",
                "range",
                "roundrobin",
                "sticky",
                "cooperative-sticky",
            }


def test_read_equals_not_selected_plus_decoded_plus_quarantined(corpus_run):
    lines = [r for path in corpus_run["written"].values() for r in _lines(path)]
    frames = [r for r in lines if r.get("type") == "frame"]
    selected = [f for f in frames if _selected(f)]
    n_parquet = len(corpus_run["surrogates"])
    # Every JoinGroup/SyncGroup frame of this corpus was written by a real client or by librdkafka's mock
    # and read back by real clients (captures/README), and the three AssignmentInfo records are Kafka's
    # layouts by hand (test_surrogates): none is quarantined.
    want = {
        "records_read": len(lines) + n_parquet,
        "not_selected": len(lines) - len(selected),
        "records_in": len(selected) + n_parquet,
        "decoded": len(selected) + n_parquet,
        "quarantined": 0,
    }
    summary = corpus_run["summary"]
    assert summary["counts"] == want
    assert want["records_read"] == want["not_selected"] + want["decoded"] + want["quarantined"]
    reasons = Counter(f"line type {r['type']}" for r in lines if r.get("type") != "frame")
    reasons.update(_reason(f) for f in frames if not _selected(f))
    assert summary["not_selected_by_reason"] == dict(reasons)
    assert set(reasons) >= {"line type generation", "line type summary", "frame Heartbeat", "frame LeaveGroup response"}
    report = json.loads((corpus_run["out"] / "report.json").read_text())
    assert report["counts"] == want and report["not_selected_by_reason"] == dict(reasons)
    # the folder was read by its files: every capture as JSON lines (one by content), the Parquet file, and
    # the empty file left out
    assert summary["input_paths"] == {"jsonl": len(PCAPS), "parquet": 1, "empty": 1}


def test_the_captures_hold_every_join_and_sync_group_frame_of_the_corpus(corpus_run):
    """An independent count of the pipeline's input: ``frames.jsonl`` keeps every JoinGroup and SyncGroup
    frame of the runA scenarios (its README; the flex* scenarios are thinned to the first two of each
    kind), so ``capture --json`` on the same pcaps must find as many."""
    corpus = Counter()
    for line in (CORPUS / "frames.jsonl").read_text().splitlines():
        f = json.loads(line)
        if f["run"] == "runA" and f["api_key"] in SELECTED_APIS:
            corpus[f["scenario"]] += 1
    got = Counter()
    for pcap, path in corpus_run["written"].items():
        if pcap.parent.name == "runA":
            got[pcap.name[: -len(".pcap.gz")]] = sum(
                1 for r in _lines(path) if r.get("type") == "frame" and r["api_key"] in SELECTED_APIS
            )
    assert got == corpus and sum(got.values()) > 400


def test_every_table_is_written_with_its_schema_also_when_empty(corpus_run, spark):
    out, summary = corpus_run["out"], corpus_run["summary"]
    assert sorted(summary["tables"]) == sorted(TABLES)
    # no Streams metadata in plain consumers' captures: no task offset sums; nothing broken (the two
    # findings are the surrogate group's: test_a_lone_surrogate_in_the_input_is_kept_losslessly)
    assert {n: summary["tables"][n] for n in COLUMNS} == {"task_lags": 0, "findings": 2, "quarantine": 0}
    for name in TABLES:
        assert (out / name).is_dir(), name
        rows = read_table(out, name)  # pyarrow: the schema is in the files
        assert len(rows) == summary["tables"][name], name
        import pyarrow.dataset as ds

        schema = ds.dataset(str(out / name), format="parquet", partitioning="hive").schema
        if name in COLUMNS:
            assert COLUMNS[name] <= set(schema.names), (name, schema.names)
        back = spark.read.parquet(str(out / name))  # Spark too, without being told the schema
        assert set(schema.names) <= set(back.columns) and back.count() == summary["tables"][name]


def test_the_members_and_the_groups_are_the_corpus(corpus_run):
    out = corpus_run["out"]
    members = read_table(out, "members")
    # captures/README: subscriptions v3 (librdkafka, Java), v0 (kafka-python, aiokafka, kafkajs) and v1
    # (kafka-python's cooperative-sticky); none carries Streams metadata
    assert {m["consumer_protocol_version"] for m in members} == {0, 1, 3}
    assert not any(m["streams"] for m in members)
    # a generation is known where the capture has a JoinGroup response or a SyncGroup (the request-only
    # flexjoin runs have neither: the mock closed the connection): their groups, from run_meta.json
    groups = {}
    for meta in CORPUS.glob("runs/*/run_meta.json"):
        for name, scenario in json.loads(meta.read_text())["scenarios"].items():
            groups[(meta.parent.name, name)] = scenario["group"]
    used = {(p.parent.name, p.name[: -len(".pcap.gz")]) for p in PCAPS}
    with_generation = set()
    for line in (CORPUS / "frames.jsonl").read_text().splitlines():
        f = json.loads(line)
        if (f["run"], f["scenario"]) in used and (
            f["api_key"] == 14 or (f["api_key"] == 11 and f["direction"] == "response")
        ):
            with_generation.add(groups[(f["run"], f["scenario"])])
    assert {r["group"] for r in read_table(out, "rebalances")} == with_generation | {SURROGATE_GROUP}
    assert {m["group"] for m in members if m["group"]} == {groups[u] for u in used}
    assert not [r for r in read_table(out, "findings") if r["group"] != SURROGATE_GROUP]


def test_a_lone_surrogate_in_the_input_is_kept_losslessly(corpus_run):
    """The named topology "x" + U+D800 (a lone high surrogate, writeChars) is decoded, not quarantined; its
    rows hold the utf8_safe text and name the escaped columns, so that the exact Java string comes back.
    The topology whose name is the 7 characters x\\ud800 is stored as it is and not flagged, and stays
    another task: no multiple-active-owners finding; the standby of x + U+D800's task 1_0, which none of the
    three members in the input runs, is a no-active-owner warning for the generation (the input does not show
    the group's size: another member may run it), which names no task (the other finding: v10 assignments where
    11 is commonly supported, an unresolved version mix). The issue's v7 example (surrogates in a host and a
    topic, which no table holds) is decoded as well."""
    out = corpus_run["out"]
    rows = {r["record_id"]: r for r in read_table(out, "assignments") if r["record_id"].startswith("surrogate/")}
    assert sorted(rows) == ["surrogate/named-literal", "surrogate/named-x-d800", "surrogate/standby-x-d800"]
    flagged, literal, standby = (rows[f"surrogate/{n}"] for n in ("named-x-d800", "named-literal", "standby-x-d800"))
    assert (flagged["topology"], flagged["task"], flagged["escaped"]) == (
        "x\\ud800",
        "x\\ud800__0_0",
        ["topology", "task"],
    )
    assert unescape_utf8_safe(flagged["topology"]) == "x\ud800"
    assert unescape_utf8_safe(flagged["task"]) == "x\ud800__0_0"
    assert (literal["topology"], literal["task"], literal["escaped"]) == ("x\\ud800", "x\\ud800__0_0", None)
    assert (flagged["role"], flagged["partitions"], flagged["metadata_version"]) == ("active", 1, 10)
    assert (standby["role"], standby["task"], standby["escaped"]) == ("standby", "x\\ud800__1_0", ["topology", "task"])
    findings = read_table(out, "findings")
    assert sorted((f["group"], f["check"], f["task"] or "", f["escaped"] or []) for f in findings) == [
        (SURROGATE_GROUP, "no-active-owner", "", []),
        (SURROGATE_GROUP, "unresolved-version-mix", "", []),
    ]
    (reb,) = [r for r in read_table(out, "rebalances") if r["group"] == SURROGATE_GROUP]
    assert (reb["active_tasks"], reb["standby_replicas"]) == (2, 1)  # two tasks, not one name
    assert not read_table(out, "quarantine")  # all four decoded, the v7 one included


def _frames_of(corpus_run, api_key: int, direction: str) -> list[dict]:
    """The capture's decoded frames (``capture --json``: codec.capture's own reading of each frame, its
    responses named by group, member and generation from their requests)."""
    return [
        r
        for path in corpus_run["written"].values()
        for r in _lines(path)
        if r.get("type") == "frame" and r["api_key"] == api_key and r["direction"] == direction
    ]


def test_a_plain_consumers_assigned_partitions_are_assignments_rows(corpus_run):
    """Each SyncGroup's ConsumerProtocol assignment, as the capture decoded it -- the leader's request for every
    member, the response for its member -- gives one ``consumer`` row per member x partition at its group and
    generation (``task`` ``topic-partition``), deduplicated when both name the same member and generation."""
    want: dict = {}
    for f in _frames_of(corpus_run, 14, "request"):
        for a in f["frame"]["body"]["assignments"]:
            value = a["assignment"]["value"]
            want.setdefault((f["group"], f["generation"], a["memberId"]), []).append(value["assignedPartitions"])
    for f in _frames_of(corpus_run, 14, "response"):
        asg = f["frame"]["body"]["assignment"]
        if asg and asg.get("value") is not None:  # (an error response carries no assignment)
            want.setdefault((f["group"], f["generation"], f["member"]), []).append(asg["value"]["assignedPartitions"])
    rows = {}
    for key, assignments in want.items():
        parts = [{(t["topic"], p) for t in tps for p in t["partitions"]} for tps in assignments]
        assert all(p == parts[0] for p in parts), key  # the leader's request and the response agree
        rows[key] = parts[0]
    got: dict = {}
    for r in read_table(corpus_run["out"], "assignments"):
        if r["role"] == "consumer":
            assert r["task"] == f"{r['topic']}-{r['partition']}" and r["subtopology"] is None, r
            got.setdefault((r["group"], r["generation"], r["member"]), set()).add((r["topic"], r["partition"]))
    assert got == {k: v for k, v in rows.items() if v}
    assert sum(map(len, got.values())) > 500
    # the Streams checks do not read partitions: the corpus's findings are the surrogate group's alone
    assert not [r for r in read_table(corpus_run["out"], "findings") if r["group"] != SURROGATE_GROUP]


def test_classic_members_have_their_subscribed_topics_and_client_id(corpus_run):
    """``subscribed_topics``: the ConsumerProtocol subscription's topics, as the capture decoded the JoinGroup
    requests (their first protocol's) and the leaders' responses; ``client_id``: the JoinGroup request header's,
    on that request's row and on the rows of the same group and member id (a leader's response lists members
    without one)."""
    topics: dict = {}
    client: dict = {}
    for f in _frames_of(corpus_run, 11, "request"):
        body = f["frame"]["body"]
        metadata = body["protocols"][0]["metadata"]["value"]
        topics.setdefault((f["group"], None, body["memberId"] or None), set()).add(tuple(metadata["topics"]))
        client.setdefault((f["group"], body["memberId"] or None), set()).add(f["frame"]["header"]["clientId"])
    for f in _frames_of(corpus_run, 11, "response"):
        for m in f["frame"]["body"]["members"]:
            topics.setdefault((f["group"], f["generation"], m["memberId"]), set()).add(
                tuple(m["metadata"]["value"]["topics"])
            )
    # a member id is one client's
    assert all(len(ids) == 1 for (_, member), ids in client.items() if member is not None)
    members = read_table(corpus_run["out"], "members")
    assert len(members) > 200
    for m in members:
        member = m["member"] or None  # (a first JoinGroup's is the capture's "": no member id yet)
        assert tuple(m["subscribed_topics"]) in topics[(m["group"], m["generation"], member)], m
        if member is None:  # its own header's client id
            assert m["client_id"] in client[(m["group"], None)], m
        else:
            assert {m["client_id"]} == client.get((m["group"], member), {None}), m
    # the members a leader's response lists whose own JoinGroup request the capture lacks have none
    assert sum(m["client_id"] is None for m in members) < len(members) // 10


def test_classic_members_have_their_owned_partitions_and_subscription_generation(corpus_run):
    """Issue #44: ``owned_partitions`` (ConsumerProtocolSubscription v1+) and ``subscription_generation`` (v2+) of
    each JoinGroup request's row, read off the line's bytes by hand (tests/pipeline/test_consumers.py's reader);
    null where the subscription's version lacks them."""
    from .test_consumers import join_request_any, subscription_owned

    rows = [m for m in read_table(corpus_run["out"], "members") if not m["source"].endswith(".parquet")]
    lines: dict[str, list] = {}
    checked: Counter = Counter()
    for m in rows:
        source, _, n = m["record_id"].rpartition(":")
        if source not in lines:
            lines[source] = [json.loads(line) for line in Path(source[len("file:") :]).read_text().splitlines()]
        f = lines[source][int(n) - 1]
        if (f["api_key"], f["direction"]) != (11, "request") or f["api_version"] >= 6:  # (flexible: not this reader's)
            continue
        frame = bytes.fromhex(f["hex"])
        j = join_request_any(frame, f["api_version"])
        owned, generation = subscription_owned(j["protocols"][0][1])
        got = m["owned_partitions"]
        assert (None if got is None else [(t["topic"], t["partitions"]) for t in got]) == owned, m["record_id"]
        assert m["subscription_generation"] == generation, m["record_id"]
        checked[(owned is None, bool(owned), generation is None)] += 1
    # v0 (neither), v1 (owned partitions only), v2+ (both), and rejoining members that own partitions (4 rows here:
    # a member's later JoinGroup requests, with no generation of their own, are deduplicated into its first one)
    assert {k[0] for k in checked} == {True, False} and {k[2] for k in checked} == {True, False}
    assert sum(v for k, v in checked.items() if k[1]) >= 1


def test_classic_rebalances_count_clients_by_client_id(corpus_run):
    """Issue #44: ``client_count`` of a plain consumer group's generation: the distinct client ids (and hosts: a
    frame names none) of the members its leader's JoinGroup response lists, each member's client id its own
    JoinGroup request header's (the capture's reading)."""
    client: dict = {}
    for f in _frames_of(corpus_run, 11, "request"):
        if f["frame"]["body"]["memberId"]:
            client[(f["group"], f["frame"]["body"]["memberId"])] = f["frame"]["header"]["clientId"]
    listed: dict = {}
    for f in _frames_of(corpus_run, 11, "response"):
        if f["generation"] >= 0 and f["frame"]["body"]["members"]:
            listed[(f["group"], f["generation"])] = {m["memberId"] for m in f["frame"]["body"]["members"]}
    reb = {(r["group"], r["generation"]): r for r in read_table(corpus_run["out"], "rebalances")}
    exact = 0
    for key, members in listed.items():
        ids = {client[(key[0], m)] for m in members if (key[0], m) in client}
        if len(ids) == len(members) and reb[key]["member_count"] == len(members):
            assert reb[key]["client_count"] == len(ids), (key, reb[key]["client_count"], ids)
            exact += 1
        assert 1 <= reb[key]["client_count"] <= reb[key]["member_count"], key
    assert exact >= 20


def test_classic_rebalances_have_the_join_groups_protocol_type(corpus_run):
    """``protocol_type``: the JoinGroup request's (v5 responses and v3 SyncGroups carry none), on each
    generation a JoinGroup response of the capture names."""
    ptype: dict = {}
    for f in _frames_of(corpus_run, 11, "request"):
        ptype.setdefault(f["group"], set()).add(f["frame"]["body"]["protocolType"])
    joined = {(f["group"], f["generation"]) for f in _frames_of(corpus_run, 11, "response") if f["generation"] >= 0}
    reb = {(r["group"], r["generation"]): r["protocol_type"] for r in read_table(corpus_run["out"], "rebalances")}
    assert joined and joined <= set(reb)
    for key in joined:
        assert {reb[key]} == ptype[key[0]], key
    assert set().union(*ptype.values()) == {"consumer"}


def test_every_rebalance_of_the_shared_captures_has_a_cause(corpus_run):
    """Each generation the corpus's frames give the ``rebalances`` table says why it formed; the causes are the
    capture story's (tests/causes/test_real_captures.py holds those to the runs' records): a group's first
    generation is its first member's join, the others' joins and leaves follow."""
    rows = [r for r in read_table(corpus_run["out"], "rebalances") if r["group"] != SURROGATE_GROUP]
    assert rows and all(r["cause"] is not None and r["causes"][0] == r["cause"] for r in rows)
    kinds = Counter(r["cause"]["kind"] for r in rows)
    assert kinds["member-joined"] >= 36 and kinds["member-left"] >= 24  # 12 runA groups: 3 joins and 2 leaves each


def test_every_members_row_names_the_line_that_holds_it(corpus_run):
    """The issue: on these pcaps turned into JSON lines, 202 of 216 ``members`` rows named a file that does not
    hold their group (the files' lines were labelled by whichever file the task read when Spark asked). Each
    row's ``record_id`` is now its file and line: that line is a JoinGroup or SyncGroup frame, and the request
    on its connection with its correlation id -- in the same file -- names the row's group."""
    rows = [m for m in read_table(corpus_run["out"], "members") if not m["source"].endswith(".parquet")]
    assert len(rows) > 100
    files: dict[str, tuple[list[dict], dict]] = {}
    for m in rows:
        source, _, n = m["record_id"].rpartition(":")
        assert source == m["source"] and source.startswith("file:/"), m
        if source not in files:
            lines = [json.loads(line) for line in Path(source[len("file:") :]).read_text().splitlines()]
            asked = {
                (f["connection"], f["correlation_id"]): f.get("group") for f in lines if f.get("direction") == "request"
            }
            files[source] = (lines, asked)
        lines, asked = files[source]
        frame = lines[int(n) - 1]
        assert frame["type"] == "frame" and frame["api_key"] in SELECTED_APIS, (m["record_id"], frame)
        assert asked[(frame["connection"], frame["correlation_id"])] == m["group"], m["record_id"]
    assert len(files) >= len(PCAPS) - 1
