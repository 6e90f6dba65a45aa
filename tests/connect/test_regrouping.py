"""Connect bytes that no writer gives back, and those that must come back the same.

Every byte string here is assembled by hand from Kafka's layouts (``ConnectProtocol``,
``IncrementalCooperativeConnectProtocol``): int16 header; error int16; leader, leader URL as int16-length
strings; config offset int64; the assigned groups (int32 count, then connector string + int32 count of int32
task ids, -1 for the connector itself); from v1 the revoked groups the same way and the int32 delay. A worker's
allocation (v1+ metadata) is int32-length bytes holding a whole assignment, which Kafka always reads with the
v1 reader, whatever the allocation's own header says.
"""

from __future__ import annotations

import struct

from codec.conformance.messages import normalize
from codec.connect import (
    decode_connect_assignment,
    decode_connect_metadata,
    encode_connect_assignment,
    encode_connect_metadata,
)
from codec.connect.assignment import ConnectorTaskId, regrouped
from tests.connect.test_cli import run


def s16(text: str) -> bytes:
    b = text.encode()
    return struct.pack(">h", len(b)) + b


def group(connector: str, *tasks: int) -> bytes:
    return s16(connector) + struct.pack(">i", len(tasks)) + b"".join(struct.pack(">i", t) for t in tasks)


def groups(*gs: bytes) -> bytes:
    return struct.pack(">i", len(gs)) + b"".join(gs)


def assignment(header: int, assigned: bytes, revoked: bytes | None = None, delay: int | None = None) -> bytes:
    out = struct.pack(">hh", header, 0) + s16("L") + s16("http://l") + struct.pack(">q", 5) + assigned
    if revoked is not None:
        out += revoked + struct.pack(">i", delay or 0)
    return out


# an allocation whose header says 0 but which, inside v1 metadata, the v1 reader reads with its revocations
ALLOCATION_V0_HEADER = assignment(0, groups(group("c", -1)), groups(group("r", -1, 3)), 7)
METADATA = (
    struct.pack(">h", 1)
    + s16("http://w")
    + struct.pack(">q", 5)
    + struct.pack(">i", len(ALLOCATION_V0_HEADER))
    + ALLOCATION_V0_HEADER
)


def test_an_allocation_with_a_v0_header_keeps_its_revocations():
    m = decode_connect_metadata(METADATA)
    a = m.allocation
    assert (a.version, a.connectors, a.revoked_connectors, a.revoked_tasks, a.delay) == (
        0,
        ("c",),
        ("r",),
        (ConnectorTaskId("r", 3),),
        7,
    )
    assert encode_connect_metadata(m) == METADATA


def test_an_allocation_with_a_v0_header_through_the_cli_both_styles():
    for style in ("kafka", "native"):
        d = run("decode", "--kind", "connect-metadata", "--style", style, "--compact", METADATA.hex())
        assert d.returncode == 0, d.stderr
        e = run("encode", "--kind", "connect-metadata", "--style", style, stdin=d.stdout)
        assert e.returncode == 0, e.stderr
        assert e.stdout.strip() == METADATA.hex(), style


def test_a_standalone_v0_assignment_still_cannot_carry_revocations():
    a = decode_connect_metadata(METADATA).allocation
    # at top level a v0 header means ConnectProtocol's layout: nothing after the assigned groups
    assert encode_connect_assignment(a, drop_unrepresentable=True) == assignment(0, groups(group("c", -1)))


TWICE = assignment(1, groups(group("c", -1), group("c", 0)), groups(), 0)
ONCE = assignment(1, groups(group("c", -1, 0)), groups(), 0)


def test_a_connector_in_two_groups_reads_as_kafka_reads_it_and_is_written_once():
    d = decode_connect_assignment(TWICE, detail=True)
    assert d.info.connectors == ("c",) and d.info.tasks == (ConnectorTaskId("c", 0),)
    assert regrouped(d.wire) == ("assignment: connector 'c'",)
    assert regrouped(decode_connect_assignment(ONCE, detail=True).wire) == ()
    assert encode_connect_assignment(d.info) == ONCE


def test_the_cli_says_when_bytes_will_not_come_back():
    p = run("decode", "--kind", "connect-assignment", "--compact", TWICE.hex())
    assert p.returncode == 0
    assert "connector 'c' is named in more than one group" in p.stderr
    assert p.stderr.count("\n") == 1
    p = run("decode", "--kind", "connect-assignment", "--compact", ONCE.hex())
    assert p.returncode == 0 and p.stderr == ""


def test_a_connector_named_twice_in_metadata_allocation_is_noted():
    alloc = assignment(1, groups(group("a", -1), group("b", -1)), groups(group("x", -1), group("x", 2)), 0)
    meta = struct.pack(">h", 1) + s16("u") + struct.pack(">q", 1) + struct.pack(">i", len(alloc)) + alloc
    p = run("decode", "--kind", "connect-metadata", "--compact", meta.hex())
    assert "revoked: connector 'x' is named in more than one group" in p.stderr


def test_normalize_compares_assigned_connectors_as_a_set_and_revocations_in_order():
    # Kafka's asMap groups the assigned connectors in HashSet order; revokedAsMap keeps the order given
    # (a LinkedHashMap over the distinct revoked connectors, then the revoked tasks as listed)
    a = {
        "connectorIds": ["b", "a"],
        "taskIds": [{"connector": "b", "task": 0}, {"connector": "a", "task": 0}],
        "revokedConnectorIds": ["y", "x"],
        "revokedTaskIds": [{"connector": "y", "task": 1}, {"connector": "x", "task": 0}],
    }
    b = {
        "connectorIds": ["a", "b"],
        "taskIds": [{"connector": "a", "task": 0}, {"connector": "b", "task": 0}],
        "revokedConnectorIds": ["y", "x"],
        "revokedTaskIds": [{"connector": "y", "task": 1}, {"connector": "x", "task": 0}],
    }
    assert normalize("ConnectAssignment", a) == normalize("ConnectAssignment", b)
    c = dict(b, revokedTaskIds=list(reversed(b["revokedTaskIds"])))
    assert normalize("ConnectAssignment", a) != normalize("ConnectAssignment", c)
