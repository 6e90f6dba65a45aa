"""Kafka's Connect rules on bytes assembled by hand, field by field (ConnectProtocol.java,
IncrementalCooperativeConnectProtocol.java, ExtendedAssignment.java, protocol.types' Schema/ArrayOf/
NULLABLE_BYTES at 1eb7644): the two deserializers, the v1/v2 reader's tolerated missing fields, negative
lengths of nullable fields, the allocation's own bytes, the writer's grouping, and the errors' offsets and
paths. Every expected value and offset here is written out from those layouts, not produced by the codec."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codec.connect import (
    EMPTY_ASSIGNMENT,
    ConnectAssignment,
    ConnectMetadata,
    ConnectorTaskId,
    connect_assignment_from_json,
    connect_assignment_json,
    connect_metadata_from_json,
    connect_metadata_json,
    decode_connect_assignment,
    decode_connect_metadata,
    encode_connect_assignment,
    encode_connect_metadata,
    java_hash_set_order,
)
from codec.errors import DecodeError, EncodeError, LimitExceededError, TruncatedError, UnsupportedVersionError


# --- the layouts by hand -----------------------------------------------------------------------------------


def i16(n: int) -> bytes:
    return struct.pack(">h", n)


def i32(n: int) -> bytes:
    return struct.pack(">i", n)


def i64(n: int) -> bytes:
    return struct.pack(">q", n)


def string(s: str) -> bytes:
    raw = s.encode("utf-8")
    return i16(len(raw)) + raw


def group(connector: str, *tasks: int) -> bytes:
    """One CONNECTOR_ASSIGNMENT: connector, then its int32 task ids (-1: the connector itself)."""
    return string(connector) + i32(len(tasks)) + b"".join(i32(t) for t in tasks)


def T(connector: str, task: int) -> ConnectorTaskId:
    return ConnectorTaskId(connector, task)


# A v1 assignment: header 1 | error 0 | leader "L" | leader url "u" | config offset 7 |
# assignment [a: -1] | revoked [r: 5] | delay 300000
#   offsets: header 0, error 2, leader 4, leader_url 7, config_offset 10, assignment 18 (group a at 22,
#   its tasks count at 25, its task at 29), revoked 33 (group r at 37, tasks at 40, task 44), delay 48, end 52
V1 = (
    i16(1)
    + i16(0)
    + string("L")
    + string("u")
    + i64(7)
    + i32(1)
    + group("a", -1)
    + i32(1)
    + group("r", 5)
    + i32(300000)
)
assert len(V1) == 52


# --- the two deserializers ---------------------------------------------------------------------------------


def test_v0_assignment_by_hand():
    wire = i16(0) + i16(1) + string("L") + string("http://l/") + i64(42) + i32(2) + group("b", -1, 3) + group("c", 2)
    a = decode_connect_assignment(wire)
    assert a == ConnectAssignment(
        version=0,
        error=1,
        leader="L",
        leader_url="http://l/",
        config_offset=42,
        connectors=("b",),
        tasks=(T("b", 3), T("c", 2)),
    )
    assert connect_assignment_json(a) == {
        "version": 0,
        "error": 1,
        "leader": "L",
        "leaderUrl": "http://l/",
        "configOffset": 42,
        "connectorIds": ["b"],
        "taskIds": [{"connector": "b", "task": 3}, {"connector": "c", "task": 2}],
    }
    assert encode_connect_assignment(a) == wire
    # the v1/v2 deserializer reads the same bytes with the revocations and the delay at their defaults
    d = decode_connect_assignment(wire, reader_version=1, detail=True)
    assert d.info == a and d.reader_version == 1 and d.trailing == 0
    assert connect_assignment_json(d.info, reader_version=1)["revokedTaskIds"] == []


def test_v1_assignment_by_hand_and_the_eager_reader():
    a = decode_connect_assignment(V1)
    assert a == ConnectAssignment(
        version=1,
        leader="L",
        leader_url="u",
        config_offset=7,
        connectors=("a",),
        revoked_tasks=(T("r", 5),),
        delay=300000,
    )
    assert encode_connect_assignment(a) == V1
    d = decode_connect_assignment(V1, reader_version=0, detail=True)  # a worker before Kafka 2.3
    assert d.info == ConnectAssignment(version=1, leader="L", leader_url="u", config_offset=7, connectors=("a",))
    assert (d.consumed, d.trailing) == (33, 19)
    assert "delay" not in connect_assignment_json(d.info, reader_version=0)


@pytest.mark.parametrize(
    "cut,expected",
    [
        (18, ConnectAssignment(version=1, leader="L", leader_url="u", config_offset=7)),
        (33, ConnectAssignment(version=1, leader="L", leader_url="u", config_offset=7, connectors=("a",))),
        (
            48,
            ConnectAssignment(
                version=1, leader="L", leader_url="u", config_offset=7, connectors=("a",), revoked_tasks=(T("r", 5),)
            ),
        ),
    ],
)
def test_the_v1_reader_fills_fields_missing_at_the_end(cut, expected):
    assert decode_connect_assignment(V1[:cut]) == expected


@pytest.mark.parametrize(
    "cut,offset,path,need,have",
    [
        (2, 2, "error", 2, 0),  # Kafka: Missing value for field 'error' which has no default
        (3, 2, "error", 2, 1),
        (17, 10, "config_offset", 8, 7),
        (20, 18, "assignment", 4, 2),  # bytes remain: the count is read, and is cut
        (30, 29, "assignment[0].tasks[0]", 4, 1),
        (35, 33, "revoked", 4, 2),
        (50, 48, "delay", 4, 2),
    ],
)
def test_the_v1_reader_fails_inside_a_field(cut, offset, path, need, have):
    with pytest.raises(TruncatedError) as e:
        decode_connect_assignment(V1[:cut])
    assert (e.value.message, e.value.version, e.value.offset, e.value.path) == ("ConnectAssignment", 1, offset, path)
    assert str(e.value) == f"ConnectAssignment v1: truncated at offset {offset} in {path} (need {need}, have {have})"


def test_the_v0_reader_tolerates_nothing_missing():
    with pytest.raises(TruncatedError) as e:
        decode_connect_assignment(V1[:18], reader_version=0)
    assert (e.value.offset, e.value.path) == (18, "assignment")


def test_negative_lengths():
    # the v1 reader: a nullable array reads any negative count as null (ArrayOf.nullable), null as nothing
    wire = i16(1) + i16(0) + string("L") + string("u") + i64(7) + i32(-2) + i32(-1) + i32(9)
    assert decode_connect_assignment(wire) == ConnectAssignment(
        version=1, leader="L", leader_url="u", config_offset=7, delay=9
    )
    # the v0 reader: the array is not nullable ("Array size -2 cannot be negative")
    with pytest.raises(DecodeError) as e:
        decode_connect_assignment(wire, reader_version=0)
    assert (e.value.offset, e.value.path) == (18, "assignment")
    # a task list and a connector name are never nullable
    bad_tasks = i16(1) + i16(0) + string("L") + string("u") + i64(7) + i32(1) + string("a") + i32(-1)
    with pytest.raises(DecodeError) as e:
        decode_connect_assignment(bad_tasks)
    assert (e.value.offset, e.value.path) == (25, "assignment[0].tasks")
    bad_name = i16(1) + i16(0) + string("L") + string("u") + i64(7) + i32(1) + i16(-1) + i32(0)
    with pytest.raises(DecodeError) as e:
        decode_connect_assignment(bad_name)
    assert (e.value.offset, e.value.path) == (22, "assignment[0].connector")


def test_headers():
    with pytest.raises(UnsupportedVersionError) as e:
        decode_connect_assignment(i16(-1) + V1[2:])
    assert (e.value.offset, e.value.path, e.value.version) == (0, "version", -1)
    with pytest.raises(TruncatedError) as e:
        decode_connect_metadata(b"\x00")
    assert (e.value.offset, e.value.path) == (0, "version")
    # a header no release writes is read with the v1/v2 layout by the v1/v2 reader, and written back so
    future = i16(7) + V1[2:]
    a = decode_connect_assignment(future)
    assert a.version == 7 and a.delay == 300000 and encode_connect_assignment(a) == future
    with pytest.raises(UnsupportedVersionError):
        decode_connect_assignment(V1, reader_version=-1)


def test_huge_counts_are_refused_before_reading():
    wire = i16(1) + i16(0) + string("L") + string("u") + i64(7) + i32(2_000_000_000)
    with pytest.raises(LimitExceededError) as e:
        decode_connect_assignment(wire)
    assert (e.value.offset, e.value.path) == (18, "assignment")
    with pytest.raises(TruncatedError) as e:  # a byte length is checked against what remains
        decode_connect_metadata(i16(1) + string("w") + i64(3) + i32(2_000_000_000) + b"xy")
    assert (e.value.offset, e.value.path) == (17, "allocation") and "(need 2000000000, have 2)" in str(e.value)
    with pytest.raises(LimitExceededError):
        decode_connect_assignment(V1, max_size=51)


# --- the worker metadata and its allocation ------------------------------------------------------------------

# header 1 | url "w" | config offset 3 | allocation: offsets 0, 2, 5, 13 (length), 17 (the allocation's bytes)
META_HEAD = i16(1) + string("w") + i64(3)


def test_metadata_by_hand():
    assert decode_connect_metadata(i16(0) + string("w") + i64(3)) == ConnectMetadata(
        version=0, url="w", config_offset=3
    )
    nested = V1
    wire = META_HEAD + i32(len(nested)) + nested
    m = decode_connect_metadata(wire)
    assert m == ConnectMetadata(version=1, url="w", config_offset=3, allocation=decode_connect_assignment(V1))
    assert encode_connect_metadata(m) == wire
    # a worker before 2.3 reads the URL and the offset only
    d = decode_connect_metadata(wire, reader_version=0, detail=True)
    assert d.info == ConnectMetadata(version=1, url="w", config_offset=3) and (d.consumed, d.trailing) == (13, 56)
    assert connect_metadata_json(d.info, reader_version=0) == {"version": 1, "url": "w", "configOffset": 3}


@pytest.mark.parametrize("tail", [b"", i32(-1), i32(-5)], ids=["missing", "null", "negative"])
def test_a_null_or_missing_allocation_reads_as_kafkas_empty_assignment(tail):
    m = decode_connect_metadata(META_HEAD + tail)
    assert m.allocation is None and m.assignment == EMPTY_ASSIGNMENT
    assert connect_metadata_json(m)["allocation"] == {
        "error": 0,
        "leader": None,
        "leaderUrl": None,
        "configOffset": -1,
        "connectorIds": [],
        "taskIds": [],
        "revokedConnectorIds": [],
        "revokedTaskIds": [],
        "delay": 0,
    }
    assert connect_metadata_json(m, style="native")["allocation"] is None
    assert encode_connect_metadata(m) == META_HEAD + i32(-1)


def test_the_allocation_is_read_from_its_own_bytes():
    # bytes after the nested assignment, inside the allocation, are ignored
    d = decode_connect_metadata(META_HEAD + i32(54) + V1 + b"\xaa\xbb" + b"\xcc", detail=True)
    assert d.info.allocation == decode_connect_assignment(V1) and (d.consumed, d.trailing) == (71, 1)
    assert d.allocation.trailing == 2
    # its missing fields take their defaults where its own bytes end, whatever follows the allocation
    m = decode_connect_metadata(META_HEAD + i32(18) + V1[:18] + b"\xaa\xbb")
    assert m.allocation == ConnectAssignment(version=1, leader="L", leader_url="u", config_offset=7)
    # ... but bytes that remain are read: two bytes where the assignment count goes are a cut field
    with pytest.raises(TruncatedError) as e:
        decode_connect_metadata(META_HEAD + i32(20) + V1[:18] + b"\xaa\xbb")
    assert (e.value.offset, e.value.path) == (35, "allocation.assignment")
    # an allocation of zero bytes has no header: Kafka fails reading its version
    with pytest.raises(TruncatedError) as e:
        decode_connect_metadata(META_HEAD + i32(0))
    assert (e.value.message, e.value.version, e.value.offset, e.value.path) == (
        "ConnectMetadata",
        1,
        17,
        "allocation.version",
    )
    # a nested assignment cut inside its leader: the offset is the outer message's
    with pytest.raises(TruncatedError) as e:
        decode_connect_metadata(META_HEAD + i32(5) + V1[:5])
    assert (e.value.offset, e.value.path) == (21, "allocation.leader")
    assert str(e.value) == "ConnectMetadata v1: truncated at offset 21 in allocation.leader (need 2, have 1)"
    # the allocation's length is larger than what remains ("Error reading bytes of size 60, only 52 ...")
    with pytest.raises(TruncatedError) as e:
        decode_connect_metadata(META_HEAD + i32(60) + V1)
    assert (e.value.offset, e.value.path) == (17, "allocation") and "(need 60, have 52)" in str(e.value)


def test_an_allocation_of_another_version():
    nested = i16(0) + i16(0) + string("L") + string("u") + i64(1) + i32(1) + group("x", -1)
    m = decode_connect_metadata(META_HEAD + i32(len(nested)) + nested)
    assert m.allocation == ConnectAssignment(version=0, leader="L", leader_url="u", config_offset=1, connectors=("x",))
    view = connect_metadata_json(m)["allocation"]
    assert view["version"] == 0 and view["revokedConnectorIds"] == []  # read by the v1/v2 reader
    assert (
        encode_connect_metadata(connect_metadata_from_json(connect_metadata_json(m)))
        == META_HEAD + i32(len(nested)) + nested
    )


# --- the writer ------------------------------------------------------------------------------------------


def test_grouping_by_hand():
    a = ConnectAssignment(
        version=1,
        leader="L",
        leader_url="u",
        config_offset=7,
        connectors=("b", "a", "b"),
        tasks=(T("a", 1), T("c", 2), T("b", 3)),
        revoked_connectors=("r", "q", "r"),
        revoked_tasks=(T("q", 4),),
        delay=5,
    )
    head = i16(1) + i16(0) + string("L") + string("u") + i64(7)
    revoked = i32(2) + group("r", -1) + group("q", -1, 4) + i32(5)
    assert (
        encode_connect_assignment(a) == head + i32(3) + group("b", -1, 3) + group("a", -1, 1) + group("c", 2) + revoked
    )
    # Java's HashSet order: "a" (hashCode 97, bucket 1) before "b" (98, bucket 2); the revoked keep theirs
    assert (
        encode_connect_assignment(a, java_order=True)
        == head + i32(3) + group("a", -1, 1) + group("b", -1, 3) + group("c", 2) + revoked
    )


def test_java_hash_set_order_by_hand():
    # "Aa" and "BB" share String.hashCode 2112 (65*31+97 = 66*31+66), bucket 0 of 16; "a" is 97, bucket 1
    assert java_hash_set_order(["a", "BB", "Aa"]) == ["BB", "Aa", "a"]
    assert java_hash_set_order(["Aa", "BB", "Aa"]) == ["Aa", "BB"]
    # "q" is 113: bucket 1 of 16 (with "a"), bucket 17 of 32. HashSet(Collection) on Java 17 sizes the table
    # from (int) (n / .75f) + 1: 11 names -> 15 -> 16 buckets, 12 names -> 17 -> 32 buckets
    eleven = ["q", "a"] + list("bcdefghij")
    assert java_hash_set_order(eleven) == ["q", "a"] + list("bcdefghij")
    twelve = ["q", "a"] + list("bcdefghijk")
    assert java_hash_set_order(twelve) == ["a"] + list("bcdefghijk") + ["q"]


def test_version_0_cannot_carry_what_v1_added():
    a = ConnectAssignment(leader="L", leader_url="u", config_offset=7, revoked_connectors=("r",))
    with pytest.raises(EncodeError) as e:
        encode_connect_assignment(a, 0)
    assert e.value.path == "revoked_connectors"
    with pytest.raises(EncodeError) as e:
        encode_connect_assignment(ConnectAssignment(leader="L", leader_url="u", delay=1), 0)
    assert e.value.path == "delay"
    assert encode_connect_assignment(a, 0, drop_unrepresentable=True) == i16(0) + i16(0) + string("L") + string(
        "u"
    ) + i64(7) + i32(0)
    m = ConnectMetadata(url="w", config_offset=3, allocation=ConnectAssignment(leader="L", leader_url="u"))
    with pytest.raises(EncodeError) as e:
        encode_connect_metadata(m, 0)
    assert e.value.path == "allocation"
    assert encode_connect_metadata(m, 0, drop_unrepresentable=True) == i16(0) + string("w") + i64(3)


def test_what_no_writer_can_write():
    with pytest.raises(EncodeError) as e:
        encode_connect_assignment(ConnectAssignment(leader=None, leader_url="u"))
    assert e.value.path == "leader"
    with pytest.raises(EncodeError) as e:  # -1 would read back as the connector itself
        encode_connect_assignment(ConnectAssignment(leader="L", leader_url="u", tasks=(T("c", -1),)))
    assert e.value.path == "tasks[0]"
    with pytest.raises(EncodeError) as e:  # UTF-8 cannot carry a lone surrogate (Java would write '?')
        encode_connect_assignment(ConnectAssignment(leader="L", leader_url="u", connectors=("c\ud800",)))
    assert e.value.path == "assignment[0].connector"
    for v in (-1, 1 << 15, True):
        with pytest.raises(EncodeError):
            encode_connect_assignment(ConnectAssignment(leader="L", leader_url="u"), v)
    with pytest.raises(EncodeError) as e:
        encode_connect_metadata(
            ConnectMetadata(
                url="w", config_offset=3, allocation=ConnectAssignment(leader=None, leader_url="u", error=1)
            )
        )
    assert e.value.path == "allocation.leader"


def test_the_allocation_is_written_at_the_metadatas_version_unless_it_names_its_own():
    a = ConnectAssignment(leader="L", leader_url="u", config_offset=1)
    nested = i16(2) + i16(0) + string("L") + string("u") + i64(1) + i32(0) + i32(0) + i32(0)
    head = i16(2) + string("w") + i64(3)
    assert (
        encode_connect_metadata(ConnectMetadata(version=2, url="w", config_offset=3, allocation=a))
        == head + i32(len(nested)) + nested
    )
    own = i16(1) + nested[2:]
    assert (
        encode_connect_metadata(ConnectMetadata(url="w", config_offset=3, allocation=a), 2)
        == head + i32(len(nested)) + nested
    )
    from dataclasses import replace

    assert (
        encode_connect_metadata(ConnectMetadata(version=2, url="w", config_offset=3, allocation=replace(a, version=1)))
        == head + i32(len(own)) + own
    )
    # Kafka's empty assignment is written as a null allocation
    assert encode_connect_metadata(
        ConnectMetadata(version=2, url="w", config_offset=3, allocation=EMPTY_ASSIGNMENT)
    ) == head + i32(-1)


# --- JSON ------------------------------------------------------------------------------------------------


def test_json_refuses_what_it_cannot_mean():
    good = {"leader": "L", "leaderUrl": "u", "configOffset": 1}
    for bad, path in (
        (dict(good, connectorsIds=[]), "connectorsIds"),
        (dict(good, leader_url="v"), "leader_url"),
        (dict(good, error=True), "error"),
        (dict(good, delay=1 << 31), "delay"),
        (dict(good, taskIds=["c-1"]), "tasks[0]"),
        (dict(good, taskIds=[{"connector": "c", "task": 1, "x": 2}]), "tasks[0]"),
        (dict(good, connectorIds="c"), "connectors"),
        (dict(good, version=-1), "version"),
    ):
        with pytest.raises(EncodeError) as e:
            connect_assignment_from_json(bad)
        assert e.value.path == path, bad
    with pytest.raises(EncodeError) as e:
        connect_metadata_from_json({"url": "w"})
    assert e.value.path == "config_offset"
    with pytest.raises(EncodeError) as e:
        connect_metadata_from_json({"url": "w", "configOffset": 1, "allocation": {"leader": 5}})
    assert e.value.path == "allocation.leader"


def test_json_reads_kafkas_shapes():
    # the vectors' data: "EMPTY" is ExtendedAssignment.empty(); decoded: the other reader's view is ignored
    m = connect_metadata_from_json(
        {"url": "w", "configOffset": 3, "allocation": "EMPTY", "readByEagerDecoder": {"url": "w", "configOffset": 3}}
    )
    assert m == ConnectMetadata(url="w", config_offset=3)
    empty_view = connect_metadata_json(ConnectMetadata(version=1, url="w", config_offset=3))["allocation"]
    again = connect_metadata_from_json({"version": 1, "url": "w", "configOffset": 3, "allocation": empty_view})
    assert encode_connect_metadata(again) == META_HEAD + i32(-1)
    native = connect_assignment_json(decode_connect_assignment(V1), style="native")
    assert native == {
        "version": 1,
        "error": 0,
        "leader": "L",
        "leader_url": "u",
        "config_offset": 7,
        "connectors": ["a"],
        "tasks": [],
        "revoked_connectors": [],
        "revoked_tasks": [{"connector": "r", "task": 5}],
        "delay": 300000,
    }
    assert encode_connect_assignment(connect_assignment_from_json(native)) == V1


# --- any model, written and read back ----------------------------------------------------------------------

_names = st.text(st.characters(blacklist_categories=("Cs",)), max_size=6)
_tasks = st.lists(st.integers(0, 2**31 - 1), max_size=3)


@st.composite
def _grouped(draw):
    """(connectors, tasks) in the order a reader returns them: the connectors' groups first, then groups of
    tasks of other connectors, each connector once."""
    names = draw(st.lists(_names, max_size=5, unique=True))
    with_self = draw(st.lists(st.booleans(), min_size=len(names), max_size=len(names)))
    groups = [(n, s, draw(_tasks)) for n, s in zip(names, with_self)]
    groups = [g for g in groups if g[1]] + [g for g in groups if not g[1]]
    connectors = tuple(n for n, s, _ in groups if s)
    tasks = tuple(T(n, t) for n, _, ts in groups for t in ts)
    return connectors, tasks


@st.composite
def assignments(draw, version=None):
    v = draw(st.sampled_from((0, 1, 2))) if version is None else version
    c, t = draw(_grouped())
    rc, rt = draw(_grouped()) if v else ((), ())
    return ConnectAssignment(
        version=v,
        error=draw(st.integers(-(1 << 15), (1 << 15) - 1)),
        leader=draw(_names),
        leader_url=draw(_names),
        config_offset=draw(st.integers(-(1 << 63), (1 << 63) - 1)),
        connectors=c,
        tasks=t,
        revoked_connectors=rc,
        revoked_tasks=rt,
        delay=draw(st.integers(-(1 << 31), (1 << 31) - 1)) if v else 0,
    )


@given(assignments())
def test_any_assignment_round_trips(a):
    raw = encode_connect_assignment(a)
    assert decode_connect_assignment(raw) == a
    assert connect_assignment_from_json(connect_assignment_json(a)) == a
    if a.version:  # cuts: a value or a DecodeError, nothing else
        for k in range(0, len(raw), max(1, len(raw) // 24)):
            try:
                decode_connect_assignment(raw[:k])
            except DecodeError:
                pass


@given(
    st.sampled_from((0, 1, 2)),
    _names,
    st.integers(-(1 << 63), (1 << 63) - 1),
    st.one_of(st.none(), assignments(1), assignments(2)),
)
def test_any_metadata_round_trips(version, url, offset, allocation):
    m = ConnectMetadata(version=version, url=url, config_offset=offset, allocation=allocation if version else None)
    raw = encode_connect_metadata(m)
    assert decode_connect_metadata(raw) == m
    assert connect_metadata_from_json(connect_metadata_json(m)) == m
    for k in range(0, len(raw), max(1, len(raw) // 24)):
        try:
            decode_connect_metadata(raw[:k])
        except DecodeError:
            pass
