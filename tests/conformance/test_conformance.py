"""The conformance suite gates implementations: the built-in codec passes, broken ones fail readably."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from codec.conformance.handcrafted import handcrafted_vectors
from codec.conformance.handcrafted_case import MAX_FILE_BYTES, is_rules_file, rules_files, rules_part
from codec.conformance.impl import BuiltinImplementation, CommandImplementation
from codec.conformance.messages import normalize
from codec.conformance.runner import byte_difference, first_difference, run_vectors
from codec.conformance.vectors import check_vectors, load_vectors, vectors_dir
from tests.conftest import ROOT


def cli(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codec", *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout
    )


def test_vectors_check_passes():
    problems, counts = check_vectors()
    assert problems == []
    # the design card's core versions each have handcrafted valid and invalid vectors
    vectors = load_vectors()
    for message in ("SubscriptionInfo", "AssignmentInfo"):
        for v in (4, 5, 6, 7):
            hc = [
                x
                for x in vectors
                if x["provenance"]["source"] == "handcrafted" and x["message"] == message and x["version"] == v
            ]
            assert {x["result"] for x in hc} >= {"valid", "invalid"}, (message, v)


def test_handcrafted_files_are_up_to_date():
    """Every generated file is what the generator gives; the rule vectors, one set, are kept a file a family
    (``handcrafted_case.rules_part``): the files on disk are exactly the generator's, each under the 5 MB bar of a
    tracked file, and together every rule vector it gives, each once, in its order."""
    files = handcrafted_vectors()
    for name, vectors in files.items():
        committed = [json.loads(line) for line in (vectors_dir() / name).read_text().splitlines()]
        assert committed == vectors, f"{name} is stale: run `rebalance-codec vectors handcraft`"
    parts = rules_files(vectors_dir())
    assert [p.name for p in parts] == sorted(n for n in files if is_rules_file(n)), "run `vectors handcraft`"
    assert len(parts) >= 2 and all(p.stat().st_size < MAX_FILE_BYTES for p in parts)
    union = [v for p in parts for v in files[p.name]]
    assert len(union) == len({v["id"] for v in union}) == sum(len(v) for n, v in files.items() if is_rules_file(n))
    assert all(rules_part(v) == p.name for p in parts for v in files[p.name])


def test_no_vector_file_passes_the_tracked_file_bar():
    """No vector file is 5 MB or more (the rule vectors were 6.4 MB in one file)."""
    big = [p.name for p in vectors_dir().rglob("*") if p.is_file() and p.stat().st_size >= MAX_FILE_BYTES]
    assert big == []


def test_vectors_check_catches_problems(tmp_path):
    import shutil

    for f in ("schema.json", "flags.json"):
        shutil.copy(vectors_dir() / f, tmp_path / f)
    good = next(v for v in load_vectors() if v["id"] == "hc-subscriptioninfo-v7")
    good.pop("_file")
    bad = [
        good,
        dict(good),  # duplicate id
        {**good, "id": "x-1", "description": "It should decode"},  # modal verb
        {**good, "id": "x-2", "flags": ["no-such-flag"]},
        {**good, "id": "x-3", "canonical": False, "flags": []},  # unexplained non-canonical
        {**good, "id": "x-4", "expected": {"version": 7, "latestSupportedVersion": 3}},  # does not re-validate
        {**good, "id": "x-5", "message": "NoSuchMessage"},  # (schema.json keeps no enum of them: the registry's)
    ]
    (tmp_path / "bad.jsonl").write_text("".join(json.dumps(v) + "\n" for v in bad) + "{not json\n")
    problems, _ = check_vectors(tmp_path)
    text = "\n".join(problems)
    for needle in (
        "duplicate id",
        "modal verb",
        "unknown flag",
        "no flag says why",
        "does not re-validate",
        "not JSON",
        "'NoSuchMessage' is no message a kind reads",
    ):
        assert needle in text


def test_the_vector_schema_keeps_no_list_of_messages():
    """The messages a vector may name are the kinds' (derived from schemas/, codec.conformance.messages), not a
    hand-kept enum in vectors/schema.json that a new schema file would leave stale: every schema is one of them."""
    from codec.conformance.messages import MESSAGES
    from codec.wire.schema import schema_names

    schema = json.loads((vectors_dir() / "schema.json").read_text(encoding="utf-8"))
    assert "enum" not in schema["properties"]["message"]
    assert set(schema_names()) <= set(MESSAGES)


def test_builtin_passes_every_vector():
    results = run_vectors(BuiltinImplementation(), load_vectors())
    failures = [r for r in results if r.status != "pass"]
    assert not failures, failures[:5]


def test_conformance_cli_reports_and_junit(tmp_path):
    junit, report = tmp_path / "j.xml", tmp_path / "r.json"
    p = cli(
        "conformance", "--junit", str(junit), "--json", str(report), "--message", "AssignmentInfo", "--version", "6"
    )
    assert p.returncode == 0, p.stdout[-2000:]
    assert "AssignmentInfo" in p.stdout and p.stdout.rstrip().endswith("passed, 0 failed, 0 skipped")
    root = ET.parse(junit).getroot()  # a standard XML parser reads it
    assert root.tag == "testsuites" and int(root.get("failures")) == 0
    cases = root.findall("testsuite[@name='AssignmentInfo']/testcase")
    assert cases and all(c.get("classname") == "AssignmentInfo.v6" for c in cases)
    generated = [(c.get("classname"), c.get("name")) for c in root.findall("testsuite[last()]/testcase")]
    assert generated == [("generated.AssignmentInfo.v6", "decode"), ("generated.AssignmentInfo.v6", "encode")]
    data = json.loads(report.read_text())
    assert data["summary"] == [
        {
            "message": "AssignmentInfo",
            "version": 6,
            "vectors": len(cases),
            "passed": len(cases),
            "failed": 0,
            "skipped": 0,
            "xfailed": 0,
            "fixed": 0,
            "notrun": 0,
        }
    ]


def test_reference_adapter_passes_through_the_line_protocol():
    impl = CommandImplementation(f"{sys.executable} -m codec.conformance.adapter")
    try:
        vectors = [v for v in load_vectors() if v["provenance"]["source"] == "handcrafted"]
        results = run_vectors(impl, vectors)
    finally:
        impl.close()
    assert all(r.status == "pass" for r in results), [r for r in results if r.status != "pass"][:3]


def test_broken_adapter_fails_with_a_readable_diff(tmp_path):
    adapter = f"{sys.executable} {ROOT / 'tests' / 'conformance' / 'broken_adapter.py'} le-counts"
    junit = tmp_path / "j.xml"
    p = cli(
        "conformance",
        "--impl",
        adapter,
        "--message",
        "SubscriptionInfo",
        "--version",
        "7",
        "--junit",
        str(junit),
        str(vectors_dir() / "handcrafted-subscription-info.jsonl"),
    )
    assert p.returncode == 1
    # The valid v7 vector: taskOffsetSums count 2 (00000002) at byte 39 comes out as 02000000.
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("FAIL hc-subscriptioninfo-v7 "))
    assert "re-encoded bytes do not decode" in line or "encoding differs at byte" in line
    root = ET.parse(junit).getroot()
    assert int(root.get("failures")) >= 1


def test_broken_adapter_diff_names_field_and_offset():
    adapter = CommandImplementation(
        f"{sys.executable} {ROOT / 'tests' / 'conformance' / 'broken_adapter.py'} le-counts"
    )
    try:
        v = next(x for x in load_vectors() if x["id"] == "hc-assignmentinfo-v4")
        (r,) = run_vectors(adapter, [v])
    finally:
        adapter.close()
    # v4 is canonical: version, csv, then the activeTasks count at byte 8 (00000001 written as 01000000)
    assert r.status == "fail"
    assert (
        r.detail
        == "encoding differs at byte 8 (field active_tasks): expected 0000000100000000..., got 0100000000000000..."
    )


def test_byte_difference_names_the_tagged_field_section():
    # HeartbeatResponse v4 (flexible): throttleTimeMs int32 at 0, errorCode int16 at 4, then the tagged-field
    # section at 6: count 1, tag 5, size 2, abcd. A writer that drops unknown tagged fields differs at byte 6,
    # which is the section, not errorCode (kafka-python's encoders do so).
    expected = bytes.fromhex("00000000 0000 01 05 02 abcd")
    dropped = bytes.fromhex("00000000 0000 00")
    assert byte_difference("HeartbeatResponse", 4, expected, dropped) == (
        "encoding differs at byte 6 (field _tagged_fields): expected 010502abcd..., got 00..."
    )
    wrong_error = bytes.fromhex("00000000 0010 01 05 02 abcd")
    assert byte_difference("HeartbeatResponse", 4, expected, wrong_error) == (
        "encoding differs at byte 5 (field error_code): expected 00010502abcd..., got 10010502abcd..."
    )


def test_decode_diff_names_the_json_path():
    adapter = CommandImplementation(
        f"{sys.executable} {ROOT / 'tests' / 'conformance' / 'broken_adapter.py'} drop-versions"
    )
    try:
        v = next(x for x in load_vectors() if x["id"] == "hc-assignmentinfo-v5")
        (r,) = run_vectors(adapter, [v])
    finally:
        adapter.close()
    assert r.detail == "decoded value differs at $.version: expected 5, got 0"


def test_first_difference():
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}], "extra": 1}) == "$.a[1].b: expected 2, got 3"
    assert first_difference({"a": 1}, {"a": 1, "b": 2}) is None
    assert first_difference([1, 2], [1]) == "$: expected 2 elements, got 1"
    assert first_difference({"x": True}, {"x": 1}) == "$.x: expected true, got 1"


def test_normalize_keeps_a_reply_of_the_wrong_shape_for_the_comparison():
    """An adapter's AssignmentInfo whose partitions are not a list (issue #32: a mutating adapter's reply made the
    cross-version matrix fail with a TypeError) is compared, and the difference reported, not raised."""
    want = {
        "standbyTasks": [
            {"taskId": "0_0", "partitions": [{"topic": "t", "partition": 1}, {"topic": "t", "partition": 0}]}
        ]
    }
    for wrong in (True, 7, 1.5, "p", None, {"topic": "t"}):
        got = normalize("AssignmentInfo", {"standbyTasks": [{"taskId": "0_0", "partitions": wrong}]})
        assert first_difference(normalize("AssignmentInfo", want), got).startswith("$.standbyTasks[0].partitions")
    assert (
        first_difference(normalize("AssignmentInfo", want), normalize("AssignmentInfo", {"standbyTasks": [3]}))
        == "$.standbyTasks[0]: expected an object, got 3"
    )
    # the right shape still compares without regard to order; a missing list counts as empty
    assert normalize("AssignmentInfo", want)["standbyTasks"][0]["partitions"][0] == {"topic": "t", "partition": 0}
    assert normalize("AssignmentInfo", {"standbyTasks": [{"taskId": "0_0"}]}) == {
        "standbyTasks": [{"taskId": "0_0", "partitions": []}]
    }


def test_cross_version_matrix_agrees_with_kafka():
    p = cli("conformance", "--cross-version")
    assert p.returncode == 0, p.stdout
    assert "242 of 242 cells agree with Kafka" in p.stdout
    # a v7 SubscriptionInfo read by a v3-v6 reader is a version probe, not garbage; the readers before 2.0 (v1, v2)
    # throw (vectors/releases/streams-readers.jsonl: what 0.10.0.0 and 0.10.1.0 to 1.1.1 did)
    rows = [ln for ln in p.stdout.splitlines() if ln.startswith("  v7")]
    assert rows[0].split()[1:] == ["--"] * 2 + ["pr"] * 4 + ["ok"] * 5  # SubscriptionInfo
    assert rows[1].split()[1:] == ["--"] * 6 + ["ok"] * 5  # AssignmentInfo


@pytest.mark.parametrize(
    "request_line,expected",
    [
        (
            {"id": 1, "op": "decode", "message": "AssignmentInfo", "version": 1, "wire": "000000010000000000000000"},
            {
                "id": 1,
                "value": {
                    "version": 1,
                    "commonlySupportedVersion": -1,
                    "activeTasks": [],
                    "standbyTasks": [],
                    "partitionsByHost": [],
                    "standbyPartitionsByHost": [],
                    "errCode": 0,
                    "nextRebalanceMs": 9223372036854775807,
                },
            },
        ),
        (
            {
                "id": 2,
                "op": "encode",
                "message": "AssignmentInfo",
                "version": 1,
                "value": {"version": 1, "activeTasks": []},
            },
            {"id": 2, "wire": "000000010000000000000000"},
        ),
    ],
)
def test_line_protocol_worked_example(request_line, expected):
    """The worked example of vectors/README.md, byte for byte."""
    p = subprocess.run(
        [sys.executable, "-m", "codec.conformance.adapter"],
        input=json.dumps(request_line) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert json.loads(p.stdout) == expected
