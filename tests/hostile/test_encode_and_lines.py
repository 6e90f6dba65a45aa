"""Encoders never write bytes that cannot be read back, and ``--lines`` keeps one output line per input line
(issue #17), through the installed console script. Expectations are the rules written in the issue and the
README's input policy."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.wheel

PLAIN_ASSIGNMENT = (
    "000000070000000b000000010000000000000000000000010000000100000000000000010001630000000000000001000000000001"
    "740000000100016800000001000000010000000000000000000000010001680000000100000000000000007fffffffffffffff"
)


def _one_error_line(p) -> str:
    assert "Traceback" not in p.stderr, p.stderr[-3000:]
    assert p.returncode == 1, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    return lines[0]


@pytest.mark.parametrize(
    "kind,args,value,field",
    [
        ("join-group-request", ["--version", "5"], {"groupId": "\ud800"}, "group_id"),
        ("subscription-info", [], {"version": 7, "userEndPoint": "h\udfff"}, "user_endpoint"),
        ("subscription-info", [], {"version": 11, "clientTags": {"rack": "a\ud800"}}, "client_tags"),
    ],
)
def test_a_lone_surrogate_in_a_utf8_field_is_refused(installed_cli, kind, args, value, field):
    # json.dumps escapes the surrogate, as a user's JSON file would carry it
    line = _one_error_line(installed_cli("encode", "--kind", kind, *args, json.dumps(value)))
    assert "lone surrogate" in line and field in line


def test_invalid_utf8_on_stdin_is_refused(installed, tmp_path):
    import subprocess

    p = subprocess.run(
        [str(installed), "encode", "--kind", "subscription-info"],
        input=b'{"version":7,"userEndPoint":"h\xff"}',
        capture_output=True,
        cwd=tmp_path,
    )
    assert p.returncode == 1 and p.stdout == b""
    assert b"not UTF-8" in p.stderr and b"Traceback" not in p.stderr


def test_assignment_info_keeps_lone_surrogates_both_ways(installed_cli):
    """writeUTF fields (AssignmentInfo hosts and topics) carry lone surrogates in Kafka; they round-trip."""
    value = {
        "version": 7,
        "partitionsByHost": [{"host": "h\ud800", "port": 1, "partitions": [{"topic": "t", "partition": 0}]}],
    }
    e = installed_cli("encode", "--kind", "assignment-info", json.dumps(value))
    assert e.returncode == 0, e.stderr
    assert "000468eda080" in e.stdout  # writeUTF: length 4, "h", ED A0 80
    d = installed_cli("decode", "--kind", "assignment-info", e.stdout.strip())
    assert json.loads(d.stdout)["partitionsByHost"][0]["host"] == "h\ud800"


@pytest.mark.parametrize(
    "value",
    [
        {"version": 7, "userEndPoint": 123},
        {"version": 7, "taskOffsetSums": 5},
        [1, 2],
        "text",
    ],
)
def test_wrong_json_types_are_one_error_line(installed_cli, value):
    _one_error_line(installed_cli("encode", "--kind", "subscription-info", json.dumps(value)))


def test_deep_nesting_is_one_error_line(installed_cli, tmp_path):
    f = tmp_path / "deep.json"
    f.write_text("[" * 100000, encoding="utf-8")
    _one_error_line(installed_cli("encode", "--kind", "assignment-info", f"@{f}"))


def test_lines_of_a_file_with_invalid_utf8_cr_and_u2028(installed_cli, tmp_path):
    """Four input lines (one not UTF-8, one with a bare CR inside a JSON string, one with U+2028 inside a
    string, one plain): four output lines, in order."""
    f = tmp_path / "in.jsonl"
    f.write_bytes(
        b'{"version": 7}\n'
        b'{"version": 7, "userEndPoint": "h\xff"}\n'
        b'{"version": 7, "userEndPoint": "a\rb:1"}\n' + '{"version": 7, "userEndPoint": "a\u2028b:1"}\n'.encode("utf-8")
    )
    p = installed_cli("encode", "--kind", "subscription-info", "--lines", f"@{f}")
    assert "Traceback" not in p.stderr
    out = p.stdout.split("\n")
    assert out[-1] == "" and len(out) == 5, p.stdout
    assert p.returncode == 1
    assert out[0].startswith("00000007") and out[3].startswith("00000007")
    assert "input is not UTF-8 at offset 33" in json.loads(out[1])["error"]["message"]
    # a raw CR is a control character JSON strings cannot hold: that line's error, on that line
    assert "not JSON" in json.loads(out[2])["error"]["message"]


def test_decode_lines_with_bad_lines_between(installed_cli):
    p = installed_cli(
        "decode",
        "--kind",
        "assignment-info",
        "--lines",
        stdin=f"{PLAIN_ASSIGNMENT}\nzz\n\n{PLAIN_ASSIGNMENT[:20]}\n{PLAIN_ASSIGNMENT}\n",
    )
    assert "Traceback" not in p.stderr
    out = p.stdout.splitlines()
    assert len(out) == 5 and p.returncode == 1
    assert [("error" in json.loads(line)) for line in out] == [False, True, True, True, False]


def test_trailing_bytes_are_in_the_json_also_with_lines(installed_cli):
    """Two bytes after a 104-byte AssignmentInfo (README: trailing bytes are accepted and reported)."""
    one = installed_cli("decode", "--kind", "assignment-info", "--compact", PLAIN_ASSIGNMENT + "abcd")
    assert json.loads(one.stdout)["trailing"] == {"offset": 104, "bytes": 2}
    p = installed_cli(
        "decode", "--kind", "assignment-info", "--lines", stdin=f"{PLAIN_ASSIGNMENT}abcd\n{PLAIN_ASSIGNMENT}\n"
    )
    first, second = (json.loads(line) for line in p.stdout.splitlines())
    assert first["trailing"] == {"offset": 104, "bytes": 2} and "trailing" not in second


@pytest.mark.parametrize(
    "kind,value,why",
    [
        (
            "assignment-info",
            {
                "version": 7,
                "partitionsByHost": [
                    {"host": "a", "port": 1, "partitions": []},
                    {"host": "a", "port": 1, "partitions": []},
                ],
            },
            "appears twice",
        ),
        (
            "subscription-info",
            {"version": 7, "taskOffsetSums": [{"taskId": "0_1", "offsetSum": 5}, {"taskId": "0_1", "offsetSum": 7}]},
            "appears twice",
        ),
        ("assignment-info", {"version": 7, "errCode": False}, "needs an integer"),
        ("subscription-info", {"version": 9, "errorCode": True}, "needs an integer"),
    ],
)
def test_duplicates_and_booleans_are_refused_not_merged(installed_cli, kind, value, why):
    """Kafka's models are maps (one entry per host, one offset sum per task) and its JSON has no boolean
    integers: a duplicate or a boolean is an error naming the field, never silently the last or 0."""
    line = _one_error_line(installed_cli("encode", "--kind", kind, json.dumps(value)))
    assert why in line


def test_an_integer_of_5000_digits_is_one_error_line(installed_cli, tmp_path):
    f = tmp_path / "big.json"
    f.write_text('{"version": ' + "9" * 5000 + "}", encoding="utf-8")
    assert "4300 digits" in _one_error_line(installed_cli("encode", "--kind", "assignment-info", f"@{f}"))
    p = installed_cli("encode", "--kind", "assignment-info", "--lines", f"@{f}")
    assert p.returncode == 1 and len(p.stdout.splitlines()) == 1 and "error" in json.loads(p.stdout)


def test_pretty_views_cannot_forge_lines(installed_cli):
    """A HeartbeatRequest v0 whose member id holds ESC [2J, a newline, "FORGED LINE", U+2028 and DEL: the pretty
    view shows them escaped, on the member id's own line."""
    member = "m-1\x1b[2J\nFORGED LINE\u2028\x7f"
    raw = member.encode("utf-8")
    body = "00016700000001" + f"{len(raw):04x}" + raw.hex()  # group "g", generation 1, member id
    p = installed_cli("decode", "--kind", "heartbeat-request", "--version", "0", "--format", "pretty", body)
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "\u2028" not in p.stdout and "\x7f" not in p.stdout
    assert not any(line.startswith("FORGED") for line in p.stdout.splitlines())
    assert "\\x1b[2J\\x0aFORGED LINE\\u2028\\x7f" in p.stdout
