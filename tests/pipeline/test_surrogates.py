"""Lone surrogates in the executors' output: Java strings may hold them (AssignmentInfo writes hosts and
topics with writeUTF, named topologies with writeChars), Arrow and Parquet cannot. Such a record is
decoded, the string written as codec.text.utf8_safe gives it and flagged in ``escaped``, so that the
exact value comes back; one record never fails its batch. The bytes below are written by hand from
Kafka's layouts (AssignmentInfo.encode), not by the codec's encoder."""

from __future__ import annotations

import pytest

pa = pytest.importorskip("pyarrow", reason="the pipeline's executor code needs pyarrow (spark extra)")

import codec.pipeline.arrow as arrow  # noqa: E402
from codec.pipeline.arrow import decode_table  # noqa: E402
from codec.text import unescape_utf8_safe  # noqa: E402

from .test_rows import check, reference, through_rows  # noqa: E402

MAX = "7fffffffffffffff"
#: the issue's example. v7: version 7, commonly supported 11, no active and no standby tasks; the topic
#: dictionary: 1 entry, index 0, writeUTF "t" + ED BF BF (U+DFFF, a lone low surrogate in modified UTF-8);
#: partitions by host: 1 host, writeUTF "h" + ED A0 80 (U+D800, a lone high surrogate), port 1, one
#: partition (topic index 0, partition 0); standby partitions by host: 0; error code 0; no next rebalance.
V7_HOST = (
    "00000007"
    "0000000b"
    "00000000"
    "00000000"
    "00000001"
    "00000000"
    "0004"
    "74edbfbf"
    "00000001"
    "0004"
    "68eda080"
    "00000001"
    "00000001"
    "00000000"
    "00000000"
    "00000000"
    "00000000" + MAX
)
assert V7_HOST == (
    "000000070000000b00000000000000000000000100000000000474edbfbf00000001000468eda08000000001"
    "00000001000000000000000000000000000000007fffffffffffffff"
)


def v10_named(chars: str) -> str:
    """v10, one active task 0_0 of a named topology given as UTF-16 code units (writeInt(length) then
    writeChars), nothing else: no standbys, an empty topic dictionary and host maps, error 0."""
    units = len(chars) // 4
    return (
        "0000000a"
        "0000000b"
        "00000001"
        "00000000"
        "00000000"
        f"{units:08x}" + chars + "00000000"
        "00000000"
        "00000000"
        "00000000"
        "00000000" + MAX
    )


SURROGATE = v10_named("0078d800")  # "x\ud800": x, then a lone high surrogate
LITERAL = v10_named("0078005c00750064003800300030")  # the 7 characters x\ud800, no surrogate
#: v10, no active task; one standby task 1_0 of the named topology "x" + U+D800, with one source partition:
#: writeUTF "t" + ED BF BF (U+DFFF), partition 0; then the empty dictionary and host maps, error 0
STANDBY = (
    "0000000a"
    "0000000b"
    "00000000"
    "00000001"
    "00000001"
    "00000000"
    "00000002"
    "0078d800"
    "00000001"
    "0004"
    "74edbfbf"
    "00000000"
    "00000000"
    "00000000"
    "00000000"
    "00000000" + MAX
)


def test_a_lone_surrogate_in_a_named_topology_is_escaped_and_flagged():
    row = decode_table([{"kind": "assignment-info", "hex": SURROGATE}]).to_pylist()
    assert [(r["unit_kind"], r["escaped"]) for r in row] == [("assignment", ["active[0].topology"])]
    (task,) = row[0]["active"]
    assert task["topology"] == "x\\ud800"  # valid UTF-8 for Parquet
    assert unescape_utf8_safe(task["topology"]) == "x\ud800"  # and the exact Java string back
    # a name that *is* the text x\ud800 is stored as it is, and not flagged: the flag tells them apart
    lit = decode_table([{"kind": "assignment-info", "hex": LITERAL}]).to_pylist()
    assert lit[0]["active"][0]["topology"] == "x\\ud800" and lit[0]["escaped"] is None


def test_the_fast_path_and_the_models_agree_on_surrogates():
    for hex_ in (SURROGATE, LITERAL, V7_HOST, STANDBY):
        assert check("assignment-info", bytes.fromhex(hex_))  # the fast path takes it, and agrees
    (unit,) = through_rows("assignment-info", bytes.fromhex(STANDBY))
    assert (unit["escaped"], unit["active"], unit["standby"]) == (
        ["standby[0].topology"],
        [],
        [{"subtopology": 1, "partition": 0, "topology": "x\\ud800", "partitions": 1}],
    )
    # the example: host and topic are not columns of any table (a row counts the hosts)
    (unit,) = through_rows("assignment-info", bytes.fromhex(V7_HOST))
    assert (unit["unit_kind"], unit["escaped"], unit["asg_version"], unit["endpoints"]) == (
        "assignment",
        None,
        7,
        1,
    )
    assert reference("assignment-info", bytes.fromhex(V7_HOST)) == [unit]


def test_one_surrogate_record_among_others_flags_only_its_unit():
    hexes = [LITERAL, SURROGATE, V7_HOST]
    out = decode_table([{"kind": "assignment-info", "hex": h} for h in hexes]).to_pylist()
    assert [u["escaped"] for u in out] == [None, ["active[0].topology"], None]
    assert [u["active"] for u in out][:2] == [
        [{"subtopology": 0, "partition": 0, "topology": "x\\ud800", "partitions": 1}]
    ] * 2


def test_a_record_arrow_cannot_hold_is_quarantined_alone(monkeypatch):
    """Whatever a record's units hold that the conversion refuses (here: a version beyond int32, forced),
    the batch is converted record by record and only that record is quarantined, with its bytes."""
    real = arrow.assignment_fields
    poison = bytes.fromhex(LITERAL)

    def fields(data):
        got = real(data)
        if data == poison:
            f, active, standby = got
            return (2**40,) + f[1:], active, standby
        return got

    monkeypatch.setattr(arrow, "assignment_fields", fields)
    hexes = [SURROGATE, LITERAL, V7_HOST]
    rows = [{"kind": "assignment-info", "hex": h} for h in hexes]
    t = decode_table(rows).to_pylist()
    assert [r["unit_kind"] for r in t] == ["assignment", "quarantine", "assignment"]
    assert t[1]["error_type"] == "ConversionError" and t[1]["raw"] == poison
    assert t[0]["escaped"] == ["active[0].topology"] and t[2]["asg_version"] == 7
