"""The findings kept as vectors (``vectors/regression.jsonl``, made by ``codec.fuzz.regression_vector``):
the committed file is what the code writes, each vector's bytes and value agree with a derivation by hand,
and the built-in codec passes them as the conformance runner checks them."""

from __future__ import annotations

import json

import jsonschema
import pytest

from codec.conformance.impl import BuiltinImplementation
from codec.conformance.runner import run_vectors
from codec.conformance.vectors import vectors_dir
from codec.fuzz import REGRESSIONS, regression_vector, regression_vectors
from codec.catalog import get_kind

FILE = vectors_dir() / "regression.jsonl"


def _committed() -> list[dict]:
    return [json.loads(line) for line in FILE.read_text(encoding="utf-8").split("\n") if line.strip()]


def test_the_file_is_up_to_date():
    assert _committed() == regression_vectors(), (
        "vectors/regression.jsonl is stale: run `rebalance-codec fuzz --write-regressions vectors/regression.jsonl`"
    )
    assert FILE.read_text(encoding="utf-8").isascii()  # lone surrogates and U+2028 as escapes


def _modified_utf8(b: bytes) -> str:
    """Java's modified UTF-8 (DataInput.readUTF's body) by hand: 1, 2 and 3-byte forms, each 3-byte form one
    UTF-16 unit, surrogates included."""
    out, i = [], 0
    while i < len(b):
        c = b[i]
        if c < 0x80:
            out.append(c)
            i += 1
        elif c >> 5 == 0b110:
            out.append((c & 0x1F) << 6 | b[i + 1] & 0x3F)
            i += 2
        else:
            assert c >> 4 == 0b1110
            out.append((c & 0x0F) << 12 | (b[i + 1] & 0x3F) << 6 | b[i + 2] & 0x3F)
            i += 3
    return "".join(map(chr, out))


def test_the_issue_16_assignment_by_hand():
    v = next(x for x in _committed() if x["id"] == "regression-assignmentinfo-v7-lone-surrogates")
    # the bytes of issue #16, as reported
    assert v["wire"] == (
        "000000070000000b00000000000000000000000100000000000474edbfbf00000001000468eda080"
        "0000000100000001000000000000000000000000000000007fffffffffffffff"
    )
    wire = bytes.fromhex(v["wire"])
    assert _modified_utf8(bytes.fromhex("68eda080")) == "h\ud800"
    assert _modified_utf8(bytes.fromhex("74edbfbf")) == "t\udfff"
    assert wire[34:40] == bytes.fromhex("000468eda080")  # the host: writeUTF's uint16 length, then 4 bytes
    assert v["expected"]["partitionsByHost"] == [
        {"host": "h\ud800", "port": 1, "partitions": [{"topic": "t\udfff", "partition": 0}]}
    ]
    assert v["result"] == "valid" and v["canonical"] is True
    assert get_kind("assignment-info").decode(wire).value == {
        "version": 7,
        "commonlySupportedVersion": 11,
        "activeTasks": [],
        "standbyTasks": [],
        "partitionsByHost": [{"host": "h\ud800", "port": 1, "partitions": [{"topic": "t\udfff", "partition": 0}]}],
        "standbyPartitionsByHost": [],
        "errCode": 0,
        "nextRebalanceMs": 2**63 - 1,
    }


def test_the_named_topology_and_the_member_id_by_hand():
    vs = {x["id"]: x for x in _committed()}
    topo = vs["regression-assignmentinfo-v10-lone-surrogate-topology"]
    wire = bytes.fromhex(topo["wire"])
    # the one active task: subtopology 0, partition 0, 1 UTF-16 char: d800
    assert wire[12:26] == bytes.fromhex("000000000000000000000001d800")
    assert chr(int.from_bytes(wire[24:26], "big")) == "\ud800" == topo["expected"]["activeTasks"][0]["topologyName"]
    hb = vs["regression-heartbeatrequest-v0-control-characters"]
    wire = bytes.fromhex(hb["wire"])
    member = "m-1\x1b[2J\nFORGED LINE\u2028\x7f\\x"
    assert wire == b"\x00\x00" + b"\xff" * 4 + len(member.encode()).to_bytes(2, "big") + member.encode()
    assert hb["expected"] == {"groupId": "", "generationId": -1, "memberId": member}


def test_the_builtin_codec_passes_them():
    results = run_vectors(BuiltinImplementation(), _committed())
    assert [r.status for r in results] == ["pass"] * len(REGRESSIONS)


def test_the_runner_would_catch_a_regression():
    """A codec that substituted U+FFFD for the lone surrogate (as Java's String(bytes, UTF_8) does on bad
    UTF-8) fails the vector: its value is compared exactly."""
    v = next(x for x in _committed() if x["id"] == "regression-assignmentinfo-v7-lone-surrogates")

    class Replacing(BuiltinImplementation):
        def decode(self, *args, **kwargs):
            out = super().decode(*args, **kwargs)
            text = json.dumps(out.value).replace("\\ud800", "\\ufffd")
            return type(out)(value=json.loads(text))

    (r,) = run_vectors(Replacing(), [v])
    assert r.status == "fail" and "host" in r.detail


@pytest.mark.parametrize(
    "kwargs",
    [
        {},  # invalid: the input must be rejected
        {"expected": {"version": 1, "activeTasks": []}, "canonical": True, "flags": ("extreme-ints",)},
        {"api_key": 12},
    ],
)
def test_regression_vector_makes_schema_valid_vectors(kwargs):
    schema = json.loads((vectors_dir() / "schema.json").read_text(encoding="utf-8"))
    message = "ResponseFrame" if "api_key" in kwargs else "AssignmentInfo"
    v = regression_vector(message, 1, b"\x00\x00\x00\x01", "a reason", vid="regression-x", **kwargs)
    jsonschema.validate(v, schema)
    assert v["provenance"] == {"source": "regression", "note": "a reason"}
    assert v["result"] == ("valid" if "expected" in kwargs else "invalid")
    assert v["canonical"] is ("expected" in kwargs)
    if "api_key" in kwargs:
        assert v["apiKey"] == 12
    else:
        assert "apiKey" not in v


def test_the_vectors_ship_in_the_wheel():
    """pyproject's package data for codec.vectors takes every *.jsonl of vectors/ (regression.jsonl too)."""
    import tomllib

    from tests.conftest import ROOT

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert data["package-dir"]["codec.vectors"] == "vectors"
    assert "*.jsonl" in data["package-data"]["codec.vectors"]
