"""Kafka Connect workers in the pipeline (issue #18): the ``connect`` table. Records are Kafka's Connect
bytes (``connect.jsonl``, written by Kafka's own classes) inside hand-built JoinGroup and SyncGroup frames of
protocol type ``connect``; the expected rows are the vectors' ``decoded`` values, written out by hand."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pyarrow", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from codec.group import encode_request_frame, encode_response_frame, request_frame, response_frame  # noqa: E402
from codec.pipeline.arrow import decode_table  # noqa: E402
from codec.wire.builder import wire_class  # noqa: E402
from tests.conftest import KAFKA_VECTORS, load_jsonl  # noqa: E402

GROUP = "connect-cluster"


def _vectors(kind: str, version: int, n: int, pick=lambda d: True) -> list[dict]:
    """The first ``n`` plain records (no ReadAs, no java-hash-order) of a kind and version."""
    out = [
        r
        for r in load_jsonl(KAFKA_VECTORS / "connect.jsonl")
        if r["kind"] == kind and r["version"] == version and "hex" in r and not r.get("flags") and pick(r["decoded"])
    ]
    assert len(out) >= n
    return out[:n]


def _real_allocation(d: dict) -> bool:
    return d.get("allocation") is not None and d["allocation"]["leader"] is not None


METAS = (
    _vectors("ConnectMetadata", 0, 1)
    + _vectors("ConnectMetadata", 1, 1, _real_allocation)
    + _vectors("ConnectMetadata", 2, 1, _real_allocation)
)
ASGS = (
    _vectors("ConnectAssignment", 0, 1)
    + _vectors("ConnectAssignment", 1, 1, lambda d: d["revokedConnectorIds"] and d["delay"])
    + _vectors("ConnectAssignment", 2, 1, lambda d: d["revokedTaskIds"] and d["taskIds"])
)
WORKERS = ["w0", "w1", "w2"]


def _join_response(generation=7) -> bytes:
    jm = wire_class("JoinGroupResponse", "JoinGroupResponseMember")
    body = wire_class("JoinGroupResponse", "JoinGroupResponse")(
        error_code=0,
        generation_id=generation,
        protocol_type="connect",
        protocol_name="sessioned",
        leader="w0",
        member_id="w0",
        members=tuple(jm(member_id=w, metadata=bytes.fromhex(r["hex"])) for w, r in zip(WORKERS, METAS)),
    )
    return encode_response_frame(response_frame(11, 7, 1, body))


def _sync_request(assignments, generation=7) -> bytes:
    sa = wire_class("SyncGroupRequest", "SyncGroupRequestAssignment")
    body = wire_class("SyncGroupRequest", "SyncGroupRequest")(
        group_id=GROUP,
        generation_id=generation,
        member_id="w0",
        protocol_type="connect",
        protocol_name="sessioned",
        assignments=tuple(sa(member_id=w, assignment=a) for w, a in assignments),
    )
    return encode_request_frame(request_frame(14, 5, 2, "worker", body))


def _records() -> list[dict]:
    good = [
        ("w0", bytes.fromhex(ASGS[0]["hex"])),
        ("w1", bytes.fromhex(ASGS[1]["hex"])),
        ("w2", bytes.fromhex(ASGS[2]["hex"])),
    ]
    bad = [("w0", bytes.fromhex(ASGS[2]["hex"])[:9])]  # cut inside the leader's name
    return [
        dict(
            record_id="join",
            kind="frame",
            hex=_join_response().hex(),
            api_key=11,
            version=7,
            direction="response",
            group=GROUP,
            ts_ms=1_700_000_000_000,
        ),
        dict(
            record_id="sync",
            kind="frame",
            hex=_sync_request(good).hex(),
            api_key=14,
            version=5,
            direction="request",
            ts_ms=1_700_000_001_000,
        ),
        dict(
            record_id="bad",
            kind="frame",
            hex=_sync_request(bad).hex(),
            api_key=14,
            version=5,
            direction="request",
            ts_ms=1_700_000_002_000,
        ),
    ]


def _tasks(ts: list[dict]) -> list[tuple]:
    return [(t["connector"], t["task"]) for t in ts]


def _expected() -> list[dict]:
    """The connect rows, by hand from Kafka's ``decoded``: a metadata row has the worker's url and config
    offset and its previous assignment's (the allocation's) connectors and tasks; an assignment row has
    everything the leader sent, revocations and delay from v1."""
    rows = []
    for w, r in zip(WORKERS, METAS):
        d = r["decoded"]
        alloc = d.get("allocation")
        rows.append(
            dict(
                group=GROUP,
                generation=7,
                member=w,
                layer="metadata",
                version=r["version"],
                url=d["url"],
                config_offset=d["configOffset"],
                error=None,
                leader=None,
                leader_url=None,
                delay=None,
                connectors=alloc["connectorIds"] if alloc else None,
                tasks=_tasks(alloc["taskIds"]) if alloc else None,
                revoked_connectors=alloc["revokedConnectorIds"] if alloc else None,
                revoked_tasks=_tasks(alloc["revokedTaskIds"]) if alloc else None,
            )
        )
    for w, r in zip(WORKERS, ASGS):
        d = r["decoded"]
        v1 = r["version"] >= 1
        rows.append(
            dict(
                group=GROUP,
                generation=7,
                member=w,
                layer="assignment",
                version=r["version"],
                url=None,
                config_offset=d["configOffset"],
                error=d["error"],
                leader=d["leader"],
                leader_url=d["leaderUrl"],
                delay=d["delay"] if v1 else 0,
                connectors=d["connectorIds"],
                tasks=_tasks(d["taskIds"]),
                revoked_connectors=d["revokedConnectorIds"] if v1 else [],
                revoked_tasks=_tasks(d["revokedTaskIds"]) if v1 else [],
            )
        )
    return rows


def _key(r):
    return (r["layer"], r["member"])


def test_the_vectors_cover_the_interesting_fields():
    assert {r["version"] for r in METAS} == {r["version"] for r in ASGS} == {0, 1, 2}
    assert any(r["decoded"]["taskIds"] for r in ASGS)
    assert ASGS[1]["decoded"]["revokedConnectorIds"] and ASGS[2]["decoded"]["revokedTaskIds"]
    assert ASGS[1]["decoded"]["delay"] > 0


def test_connect_units_without_spark():
    """The executors' code path (decode_table): one ``connect`` unit per worker layer, next to the group
    facts; a Connect layer that does not decode quarantines its record whole."""
    table = decode_table(_records()).to_pylist()
    by_record: dict[str, list] = {}
    for u in table:
        by_record.setdefault(u["record_id"], []).append(u)
    assert [u["unit_kind"] for u in by_record["bad"]] == ["quarantine"]
    got = [u for u in table if u["unit_kind"] == "connect"]
    rows = [
        dict(
            group=u["group"],
            generation=u["generation"],
            member=u["member"],
            layer=u["connect_layer"],
            version=u["connect_version"],
            url=u["url"],
            config_offset=u["config_offset"],
            error=u["connect_error"],
            leader=u["connect_leader"],
            leader_url=u["leader_url"],
            delay=u["delay"],
            connectors=u["connectors"],
            tasks=None if u["connect_tasks"] is None else [(t["connector"], t["task"]) for t in u["connect_tasks"]],
            revoked_connectors=u["revoked_connectors"],
            revoked_tasks=None
            if u["revoked_tasks"] is None
            else [(t["connector"], t["task"]) for t in u["revoked_tasks"]],
        )
        for u in got
    ]
    assert sorted(rows, key=_key) == sorted(_expected(), key=_key)
    assert all(u["escaped"] is None for u in table)


def test_lone_surrogates_in_connect_names_are_escaped():
    """Connect's strings come from UTF-8 and cannot hold lone surrogates on the wire; a model that does (a
    hand-built unit) is written escaped and named in ``escaped``, like the Streams tables' strings."""
    from codec.connect.assignment import ConnectAssignment, ConnectorTaskId
    from codec.pipeline.arrow import Units
    from codec.pipeline.records import ConnectUnit

    info = ConnectAssignment(
        version=1,
        leader="l",
        leader_url="u\ud800",
        connectors=("ok", "c\udc00"),
        tasks=(ConnectorTaskId("t\ud83d", 1),),
    )
    units = Units()
    units.units("frame", [ConnectUnit("w", 1, "g", "assignment", info)])
    (u,) = units.table().to_pylist()
    assert sorted(u["escaped"]) == ["connect_tasks[0].connector", "connectors[1]", "leader_url"]
    assert u["connectors"] == ["ok", "c\\udc00"] and u["leader_url"] == "u\\ud800"


def test_connect_table_in_a_job(spark, tmp_path):
    """One Spark run: the ``connect`` table's rows, the exact counts, the report's table counts, and the
    table's ``escaped`` column."""
    from codec.pipeline.job import TABLES, Options, run

    from .conftest import read_table

    src = tmp_path / "connect.jsonl"
    heartbeat = dict(record_id="hb", kind="frame", hex="000c0004", api_key=12, version=4, direction="request")
    src.write_text("".join(json.dumps(r) + "\n" for r in _records() + [heartbeat]))
    out = tmp_path / "out"
    summary = run(Options(inputs=[str(src)], out=str(out), quiet=True), spark)
    c = summary["counts"]
    assert c == {"records_read": 4, "not_selected": 1, "records_in": 3, "decoded": 2, "quarantined": 1}
    assert sorted(summary["tables"]) == sorted(TABLES)
    assert summary["tables"]["connect"] == 6
    report = json.loads((out / "report.json").read_text())
    assert report["tables"]["connect"] == 6
    assert "connect" in (out / "report.html").read_text()
    rows = read_table(out, "connect")
    got = [
        dict(
            group=r["group"],
            generation=r["generation"],
            member=r["member"],
            layer=r["layer"],
            version=r["version"],
            url=r["url"],
            config_offset=r["config_offset"],
            error=r["error"],
            leader=r["leader"],
            leader_url=r["leader_url"],
            delay=r["delay"],
            connectors=r["connectors"],
            tasks=None if r["tasks"] is None else [(t["connector"], t["task"]) for t in r["tasks"]],
            revoked_connectors=r["revoked_connectors"],
            revoked_tasks=None
            if r["revoked_tasks"] is None
            else [(t["connector"], t["task"]) for t in r["revoked_tasks"]],
        )
        for r in rows
    ]
    assert sorted(got, key=_key) == sorted(_expected(), key=_key)
    assert all(r["protocol"] == "sessioned" and r["escaped"] is None for r in rows)
    assert all(r["task_count"] == (len(r["tasks"]) if r["tasks"] is not None else None) for r in rows)
    assert all(r["connector_count"] == (len(r["connectors"]) if r["connectors"] is not None else None) for r in rows)
