"""The pipeline's causes, one group at a time, without Spark: :func:`codec.pipeline.causes.group_causes` on units as
the executors decode them (rows of the decoded-units table), for generations made here -- the expected causes
follow from what each generation's rows say was done."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from codec.pipeline.causes import UNIT_COLUMNS, group_causes, group_findings  # noqa: E402

T0 = 1_730_000_000_000


def _row(**kw) -> dict:
    return {**{c: None for c in UNIT_COLUMNS}, "group": "g", **kw}


def _gen(gen: int, members: list[str], at_s: float, *, link_new: dict[str, str] | None = None) -> list[dict]:
    """A classic generation as the leader's JoinGroup answer and SyncGroup request give it: a group unit naming the
    group's size, each member's subscription and assignment."""
    ts = T0 + int(at_s * 1000)
    rows = [
        _row(
            record_id=f"j{gen}",
            unit_kind="group",
            generation=gen,
            member=members[0],
            leader=members[0],
            member_count=len(members),
            ts_ms=ts,
            kind="frame",
            direction="response",
        )
    ]
    for m in members:
        rows.append(
            _row(record_id=f"j{gen}", unit_kind="member", generation=gen, member=m, ts_ms=ts, subscribed_topics=["t"])
        )
        rows.append(
            _row(
                record_id=f"s{gen}",
                unit_kind="assignment",
                generation=gen,
                member=m,
                ts_ms=ts + 100,
                topic_partitions=[{"topic": "t", "partitions": [members.index(m)]}],
            )
        )
    for m, link in (link_new or {}).items():  # a new member's JoinGroup request (no member id) and its answer
        rows.append(
            _row(record_id=f"r{link}", unit_kind="group", ts_ms=ts - 2000, kind="frame", direction="request", link=link)
        )
        rows.append(
            _row(
                record_id=f"a{link}",
                unit_kind="group",
                generation=gen,
                member=m,
                leader=members[0],
                ts_ms=ts,
                kind="frame",
                direction="response",
                link=link,
            )
        )
    return rows


def _causes(rows: list[dict]) -> dict[int, tuple[str, list[str], str]]:
    out = group_causes(pd.DataFrame(rows))
    return {
        int(r.generation): (r.cause["kind"], list(r.cause["members"]), r.cause["confidence"]) for r in out.itertuples()
    }


def test_a_groups_generations_get_their_causes_from_its_rows():
    rows = _gen(1, ["a"], 10, link_new={"a": "c1|1"})
    rows += _gen(2, ["a", "b"], 20, link_new={"b": "c2|1"})
    rows += [
        _row(
            record_id="leave", unit_kind="group", member="a", group_event="leave", leave_reason=None, ts_ms=T0 + 25_000
        )
    ]
    rows += _gen(3, ["b"], 30)
    got = _causes(rows)
    assert got == {
        1: ("member-joined", ["a"], "certain"),  # its JoinGroup request named no member: new
        2: ("member-joined", ["b"], "certain"),
        3: ("member-left", ["a"], "certain"),  # a LeaveGroup request
    }


def test_a_member_gone_without_a_leave_in_records_is_uncertain():
    rows = _gen(1, ["a", "b"], 10) + _gen(2, ["b"], 20)
    for r in rows:
        if r["unit_kind"] == "group":
            r["kind"] = "group-metadata"  # (a __consumer_offsets record: the whole group, no heartbeats)
    assert _causes(rows)[2] == ("member-left", ["a"], "uncertain")


def test_a_kafka4_groups_join_row_and_epochs():
    rows = [
        _row(record_id="h0", unit_kind="group", group_protocol="consumer", generation=0, ts_ms=T0),
        _row(record_id="h0", unit_kind="member", generation=0, member="m1", ts_ms=T0, subscribed_topics=["t"]),
        _row(record_id="h1", unit_kind="group", group_protocol="consumer", generation=1, ts_ms=T0 + 100),
        _row(record_id="h1", unit_kind="member", generation=1, member="m1", ts_ms=T0 + 100),
    ]
    got = _causes(rows)
    assert got[0] == ("member-joined", ["m1"], "certain")  # the row of member epoch 0: its joins
    assert got[1] == ("member-joined", ["m1"], "certain")


def test_the_detectors_read_the_rebalances_rows():
    causes = group_causes(pd.DataFrame([r for g in range(1, 12) for r in _gen(g, ["a"], g * 5.0)]))
    rows = causes.assign(
        group_protocol="classic", first_seen=pd.to_datetime(T0 + causes["generation"] * 5000, unit="ms")
    )
    found = group_findings(rows)
    assert list(found["check"]) == ["rebalance-storm"]  # eleven generations in 55 s: ten within a minute
