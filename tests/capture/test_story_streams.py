"""``capture`` over a synthetic Kafka Streams capture whose SubscriptionInfo/AssignmentInfo bytes Kafka
wrote (nested_streams.jsonl, Streams v1-11; see storyfixtures): the story states what Kafka's decoder
returned for those bytes (the records' ``decoded`` values)."""

from __future__ import annotations

import gzip

import pytest

from .storyfixtures import GROUP, by_name, json_lines, moved_items, run_capture, streams_pcap, streams_records, task

RECORDS = streams_records()


@pytest.fixture(scope="module")
def capture_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("streams") / "streams.pcap.gz"
    path.write_bytes(gzip.compress(streams_pcap(RECORDS)))
    return path


@pytest.fixture(scope="module")
def lines(capture_file):
    return json_lines(capture_file)


@pytest.fixture(scope="module")
def text(capture_file):
    status, out = run_capture(capture_file)
    assert status == 0
    return out


def _generation(lines, v: int) -> dict:
    (g,) = [x for x in lines if x["type"] == "generation" and x["generation"] == v]
    return g


def _hosts(entries: list[dict]) -> dict[str, dict[str, list[int]]]:
    return {f"{h['host']}:{h['port']}": by_name((p["topic"], p["partition"]) for p in h["partitions"]) for h in entries}


@pytest.mark.parametrize("r", RECORDS, ids=lambda r: r["id"])
def test_subscription_facts(lines, r):
    want = r["subscription"]["decoded"]
    g = _generation(lines, r["streamsVersion"])
    assert (g["group"], g["protocol"], g["leader"]) == (GROUP, "stream", f"m-{r['streamsVersion']}")
    (m,) = g["members"]
    assert m["client_id"] == f"app-{r['streamsVersion']}" and m["protocols"] == ["stream"]
    sub = m["subscription"]["streams"]
    assert sub["version"] == want["version"]
    assert sub["latest_supported_version"] == want["latestSupportedVersion"]
    assert sub["process_id"] == want["processId"]
    assert sub["endpoint"] == want["userEndPoint"]
    assert sub["task_offset_sums"] == {task(t["taskId"]): t["offsetSum"] for t in want["taskOffsetSums"]}
    assert sub["client_tags"] == want["clientTags"]
    assert sub["error_code"] == want["errorCode"]
    assert m["subscription"]["consumer"]["version"] == r["consumerProtocolVersion"]


@pytest.mark.parametrize("r", RECORDS, ids=lambda r: r["id"])
def test_assignment_facts(lines, r):
    want = r["assignment"]["decoded"]
    (m,) = _generation(lines, r["streamsVersion"])["members"]
    assert m["assignment_source"] == "SyncGroup response"
    asg = m["assignment"]["streams"]
    assert asg["version"] == want["version"]
    assert asg["commonly_supported_version"] == want["commonlySupportedVersion"]
    assert asg["active_tasks"] == [task(t) for t in want["activeTasks"]]
    assert asg["standby_tasks"] == {
        task(s["taskId"]): by_name((p["topic"], p["partition"]) for p in s["partitions"]) for s in want["standbyTasks"]
    }
    assert asg["partitions_by_host"] == _hosts(want.get("partitionsByHost") or [])
    assert asg["standby_partitions_by_host"] == _hosts(want.get("standbyPartitionsByHost") or [])
    assert asg["error_code"] == want["errCode"]
    if "nextRebalanceMs" in want:
        assert asg["next_rebalance_ms"] == want["nextRebalanceMs"]


@pytest.mark.parametrize("r", RECORDS, ids=lambda r: r["id"])
def test_text_states_the_facts(text, r):
    v = r["streamsVersion"]
    sub, asg = r["subscription"]["decoded"], r["assignment"]["decoded"]
    block = text.split(f"\ngeneration {v}  ", 1)[1].split("\ngeneration ", 1)[0]
    assert f"leader m-{v} (app-{v})" in block
    assert f"Streams SubscriptionInfo v{sub['version']} " in block
    assert f"process {sub['processId']}" in block
    assert f"endpoint {sub['userEndPoint'] or '(none)'}" in block
    for t in sub["taskOffsetSums"]:
        assert f"{task(t['taskId'])}={t['offsetSum']}" in block
    assert f"Streams AssignmentInfo v{asg['version']} " in block
    assert "active tasks      " + ", ".join(sorted(task(t) for t in asg["activeTasks"])) in block
    for s in asg["standbyTasks"]:
        assert f"{task(s['taskId'])} <- " in block
    assert "heartbeats    1" in block


def test_changes_between_generations(lines):
    gens = [x for x in lines if x["type"] == "generation"]
    assert [g["generation"] for g in gens] == [r["streamsVersion"] for r in RECORDS]
    assert gens[0]["changes"] is None
    for prev, g in zip(gens, gens[1:]):
        assert g["changes"]["previous_generation"] == prev["generation"]
        assert g["changes"]["joined"] == [f"m-{g['generation']} (app-{g['generation']})"]
        assert g["changes"]["left"] == [f"m-{prev['generation']} (app-{prev['generation']})"]
        moved = moved_items(g["changes"], "active tasks")
        assert moved == set(prev["members"][0]["assignment"]["streams"]["active_tasks"]) | set(
            g["members"][0]["assignment"]["streams"]["active_tasks"]
        )


def test_every_frame_once_with_its_layers(lines):
    frames = [x for x in lines if x["type"] == "frame"]
    assert len(frames) == 6 * len(RECORDS) == lines[-1]["group_frames"]
    assert len({(f["connection"], f["direction"], f["correlation_id"]) for f in frames}) == len(frames)
    for f in frames:
        assert "error" not in f and f["group"] == GROUP
        if f["api_key"] == 14 and f["direction"] == "response":  # v3 does not name the protocol: carried over
            layer = f["frame"]["body"]["assignment"]["value"]["userData"]
            assert layer["layer"] == "AssignmentInfo" and "value" in layer
    assert not lines[-1]["problems"]
