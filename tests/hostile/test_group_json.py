"""Group-message JSON through the installed console script (issue #17): a ConsumerProtocol message decoded
Kafka-style encodes back at its own version; wrong JSON types, booleans for integers, integers beyond their
field's type and nulls Kafka's message JSON does not allow are one EncodeError line naming the field, never
a silent coercion; a negotiate scenario's string where a list of protocol names goes is one error line.
Expected bytes are derived by hand from the layouts in schemas/ (ConsumerProtocol: int16 version, then
int32 array counts and int32-length bytes, int16-length strings)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.wheel


def _one_error_line(p) -> str:
    assert "Traceback" not in p.stderr, p.stderr[-3000:]
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    return lines[0]


# v0 subscription: topics [] (00000000), userData 7b da (00000002 7bda)
SUB_V0 = "000000000000000000027bda"
# v1 assignment: no partitions (00000000), userData null (ffffffff)
ASG_V1 = "000100000000ffffffff"
# v2 subscription: topics ["t"] (00000001 0001 74), userData null, owned [] (00000000), generation 5 (00000005)
SUB_V2 = "000200000001000174ffffffff0000000000000005"
# v7: the v3 layout (topics [], userData null, owned [], generation -1, rack "" = 0000) and 4 bytes a v3
# reader does not know
SUB_V7 = "000700000000ffffffff00000000ffffffff00000001abcd"


@pytest.mark.parametrize(
    "kind,hexed",
    [
        ("consumer-subscription", SUB_V0),
        ("consumer-assignment", ASG_V1),
        ("consumer-subscription", SUB_V2),
        ("consumer-subscription", SUB_V7),
    ],
)
def test_decode_then_encode_keeps_the_version(installed_cli, kind, hexed):
    d = installed_cli("decode", "--kind", kind, hexed)
    assert d.returncode == 0, d.stderr
    assert json.loads(d.stdout)["version"] == int(hexed[:4], 16)
    e = installed_cli("encode", "--kind", kind, stdin=d.stdout)
    assert e.returncode == 0, e.stderr
    assert e.stdout.strip() == hexed


def test_the_decoded_json_is_kafkas_plus_the_version(installed_cli):
    d = installed_cli("decode", "--kind", "consumer-subscription", SUB_V0)
    assert json.loads(d.stdout) == {"version": 0, "topics": [], "userData": "e9o="}  # base64 of 7b da


def test_lines_keep_each_version(installed_cli):
    d = installed_cli("decode", "--kind", "consumer-subscription", "--lines", stdin=f"{SUB_V0}\n{SUB_V2}\n")
    assert d.returncode == 0, d.stderr
    e = installed_cli("encode", "--kind", "consumer-subscription", "--lines", stdin=d.stdout)
    assert e.returncode == 0, e.stderr
    assert e.stdout.splitlines() == [SUB_V0, SUB_V2]


def test_without_a_version_key_it_is_v3_and_version_wins(installed_cli):
    value = json.dumps({"topics": [], "userData": "e9o="})
    # v3 adds owned partitions [] (00000000), generation -1 (ffffffff), rack null (ffff)
    e = installed_cli("encode", "--kind", "consumer-subscription", value)
    assert e.stdout.strip() == "000300000000000000027bda00000000ffffffffffff"
    e = installed_cli(
        "encode",
        "--kind",
        "consumer-subscription",
        "--version",
        "0",
        json.dumps({"version": 2, "topics": [], "userData": "e9o="}),
    )
    assert e.stdout.strip() == SUB_V0


REFUSED = [
    # (kind, extra args, JSON, field path the error names, words in it)
    ("heartbeat-response", ["--version", "4"], {"errorCode": False}, "error_code", "needs an int16, got false"),
    ("heartbeat-response", ["--version", "4", "--style", "native"], {"error_code": True}, "error_code", "got true"),
    ("heartbeat-response", ["--version", "0"], {"errorCode": 32768}, "error_code", "out of range for int16"),
    (
        "heartbeat-request",
        ["--version", "0"],
        {"groupId": "g", "generationId": 2147483648},
        "generation_id",
        "out of range for int32",
    ),
    (
        "heartbeat-request",
        ["--version", "0"],
        {"groupId": "g", "generationId": "1"},
        "generation_id",
        "needs an int32, got a string",
    ),
    ("heartbeat-request", ["--version", "0"], {"groupId": ["g"]}, "group_id", "needs a string, got a list"),
    ("heartbeat-request", ["--version", "0"], {"groupId": None}, "group_id", "never nullable"),
    ("heartbeat-request", ["--version", "0"], {"groupID": "g"}, "groupID", "did you mean 'groupId'"),
    (
        "join-group-request",
        ["--version", "5"],
        {"groupId": "g", "sessionTimeoutMs": True},
        "session_timeout_ms",
        "got true",
    ),
    ("join-group-request", ["--version", "5"], {"groupId": "g", "protocols": "range"}, "protocols", "needs a list"),
    (
        "join-group-request",
        ["--version", "5"],
        {"groupId": "g", "protocols": [{"name": "range", "metadata": ["x"]}]},
        "protocols[0].metadata",
        "got a list",
    ),
    (
        "join-group-request",
        ["--version", "5"],
        {"groupId": "g", "protocols": [{"name": "range", "metadata": {"value": {"topics": "input"}}}]},
        "protocols[0].metadata.value.topics",
        "needs a list",
    ),
    (
        "join-group-response",
        ["--version", "6"],
        {"protocolName": None},
        "protocol_name",
        "nullable only at versions 7+",
    ),
    ("join-group-response", ["--version", "9"], {"skipAssignment": 0}, "skip_assignment", "needs true or false"),
    ("sync-group-response", ["--version", "3"], {"assignment": 5}, "assignment", "got an integer"),
    ("consumer-subscription", [], {"version": True}, "version", "must be an integer"),
    ("consumer-subscription", [], {"topics": "input"}, "topics", "needs a list"),
    ("consumer-subscription", [], {"generationId": 2**31}, "generation_id", "out of range for int32"),
    (
        "consumer-assignment",
        [],
        {"assignedPartitions": [{"topic": "t", "partitions": [False]}]},
        "assigned_partitions[0].partitions[0]",
        "got false",
    ),
    ("request-frame", [], {"apiKey": True, "apiVersion": 5, "body": {}}, "api_key", "must be an integer"),
]


@pytest.mark.parametrize("kind,args,value,path,words", REFUSED, ids=[f"{r[0]}-{r[3]}" for r in REFUSED])
def test_wrong_json_is_one_error_line_naming_the_field(installed_cli, kind, args, value, path, words):
    line = _one_error_line(installed_cli("encode", "--kind", kind, *args, json.dumps(value)))
    assert f"({path})" in line and words in line, line


def test_wrong_json_in_lines_is_that_lines_error(installed_cli):
    lines = [json.dumps({"errorCode": 0}), json.dumps({"errorCode": False}), json.dumps({"errorCode": 7})]
    p = installed_cli(
        "encode", "--kind", "heartbeat-response", "--version", "0", "--lines", stdin="\n".join(lines) + "\n"
    )
    assert "Traceback" not in p.stderr and p.returncode == 1
    out = p.stdout.splitlines()
    assert out[0] == "0000" and out[2] == "0007"
    err = json.loads(out[1])["error"]
    assert err["type"] == "EncodeError" and err["path"] == "error_code"


def test_a_protocol_name_string_in_a_scenario_is_one_error_line(installed_cli, tmp_path):
    f = tmp_path / "phases.json"
    f.write_text(json.dumps({"kind": "protocol-selection", "phases": [{"A": "range", "B": ["range"]}]}))
    line = _one_error_line(installed_cli("negotiate", "--scenario", str(f)))
    assert "phases[0].A: needs a list of protocol names, got a string ('range')" in line
    assert "r, a, n" not in line


def test_a_string_version_in_a_scenario_is_one_error_line(installed_cli, tmp_path):
    f = tmp_path / "upgrade.json"
    f.write_text(json.dumps({"members": [{"name": "A", "version": "7"}]}))
    line = _one_error_line(installed_cli("negotiate", "--scenario", str(f)))
    assert "members[0].version" in line
