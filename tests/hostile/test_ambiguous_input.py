"""Input that was silently reinterpreted (issue #31) is refused in one line, naming what is wrong, or told as an
anomaly: duplicate JSON keys in every JSON the CLI reads, tagged-field keys that name one tag twice or a tag the
schema defines, UUIDs in any form but Kafka's or the dashed one, integers in non-ASCII digits or thousands of
them, config values beyond Kafka's INT or LONG, and the capture story's records that contradict each other.
Expectations are the issue's rules; the bytes and the Kafka facts are written by hand here."""

from __future__ import annotations

import json

import pytest

from codec.cli import main
from codec.errors import EncodeError
from codec.kafka4 import decode, encode, encode_record
from tests.capture.storyfixtures import json_lines, run_capture

pytestmark = pytest.mark.wheel


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    """The command line in this process: (exit status, stdout, stderr)."""
    try:
        status = main(list(argv))
    except SystemExit as e:
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err


def _one_error_line(p, status: int = 1) -> str:
    assert "Traceback" not in p.stderr, p.stderr[-2000:]
    assert p.returncode == status, (p.returncode, p.stdout[-300:], p.stderr[-300:])
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    return lines[0]


# -- duplicate JSON keys ----------------------------------------------------------------------------------------


def test_encode_refuses_a_duplicate_key(installed_cli):
    p = installed_cli(
        "encode",
        "--kind",
        "consumer-group-heartbeat-request",
        "--version",
        "0",
        '{"groupId": "a", "memberId": "m", "groupId": "b"}',
    )
    assert "duplicate key 'groupId'" in _one_error_line(p)


def test_assign_connect_refuses_a_connector_given_twice(capsys, tmp_path):
    f = tmp_path / "g.json"
    f.write_text('{"connectors": {"c": 1, "c": 3}, "workers": [{"memberId": "w"}]}', encoding="utf-8")
    status, out, _ = _cli(capsys, "assign", "--connect", str(f))
    assert status == 1 and "duplicate key 'c'" in out


def test_negotiate_refuses_a_member_given_twice(capsys, tmp_path):
    f = tmp_path / "s.json"
    f.write_text('{"kind": "protocol-selection", "members": {"a": ["range"], "a": ["sticky"]}}', encoding="utf-8")
    status, _, err = _cli(capsys, "negotiate", "--scenario", str(f))
    assert status == 1 and "duplicate key 'a'" in err and len(err.strip().splitlines()) == 1


def test_simulate_refuses_a_duplicate_key(tmp_path):
    from codec.simulate.scenario import ScenarioError, load_scenario

    f = tmp_path / "s.json"
    f.write_text('{"instances": [{"name": "a"}], "instances": [], "topology": []}', encoding="utf-8")
    with pytest.raises(ScenarioError, match="duplicate key 'instances'"):
        load_scenario(f)


def test_a_text_dump_line_with_a_duplicate_key_is_a_bad_record(tmp_path):
    key, value = encode_record({"record": "ConsumerGroupMetadata", "key": {"groupId": "g"}, "value": {"epoch": 1}})
    f = tmp_path / "dump.txt"
    f.write_text(json.dumps({"key": key.hex(), "value": value.hex()})[:-1] + ', "value": null}\n', encoding="utf-8")
    summary = json_lines(f, status=1)[-1]  # (its only record is bad: nothing in it could be read, issue #46)
    (bad,) = summary["problems"]["bad records"]["first"]
    assert "duplicate key 'value'" in bad["reason"]


def test_a_vector_file_line_with_an_integer_past_pythons_digits_limit_is_a_problem_of_its_line(capsys, tmp_path):
    """Found by the amplification check: ``json.loads`` refuses an integer of more than 4,300 digits with a
    ValueError that is not a JSONDecodeError; the gate names the line, as it does for a line that is not JSON."""
    f = tmp_path / "v.jsonl"
    f.write_text('{"id": "a", "n": ' + "9" * 5000 + "}\n", encoding="utf-8")
    status, out, err = _cli(capsys, "conformance", str(f))
    assert status == 1 and "a bug in rebalance-codec" not in err
    assert err == "error: v.jsonl:1: an integer of more than 4,300 digits (no vector field holds one)\n"


def test_a_conformance_adapter_reply_with_a_duplicate_key_fails_the_vector(tmp_path):
    """An adapter whose reply holds "value" twice: which answer it gave cannot be told, so it gave none."""
    from .adapters import decode_once

    outcome, _ = decode_once(
        tmp_path, '    print(\'{"value": {"version": 1}, "value": {"version": 2}}\', flush=True)\n'
    )
    assert outcome.value is None and "duplicate key 'value'" in outcome.failure


# -- tagged fields, UUIDs -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tags,words",
    [
        ({"5": "00", "05": "01"}, "without leading zeros"),
        ({"+5": "00"}, "without leading zeros"),
        ({"4294967296": "00"}, "0..4294967295"),
    ],
)
def test_tagged_field_keys_are_canonical_decimal_in_the_wire_range(tags, words):
    with pytest.raises(EncodeError, match=words):
        encode("consumer-group-heartbeat-request", 0, {"groupId": "g", "_unknownTaggedFields": tags})


def test_an_unknown_tagged_field_cannot_take_a_tag_the_schema_defines():
    """ConsumerGroupMemberMetadataValue's tag 0 is ClassicMemberMetadata: bytes under it would be read as that
    field (and refused by the decoder), not kept as unknown."""
    rec = {
        "record": "ConsumerGroupMemberMetadata",
        "key": {"groupId": "g", "memberId": "m"},
        "valueVersion": 0,
        "value": {"_unknownTaggedFields": {"0": "00"}},
    }
    with pytest.raises(EncodeError, match="tag 0 is ConsumerGroupMemberMetadataValue's ClassicMemberMetadata"):
        encode_record(rec)


def test_one_tag_range_for_decode_and_encode():
    """A tag of 2^32-1 (uvarint ff ff ff ff 0f) decodes, and what decode gives encodes to the same bytes."""
    body = bytes.fromhex("02670100000000ffffffffffff01000001ffffffff0f012a")
    body = encode("consumer-group-heartbeat-request", 0, {"groupId": "g", "_unknownTaggedFields": {"4294967295": "2a"}})
    value = decode("consumer-group-heartbeat-request", 0, body)
    assert value["_unknownTaggedFields"] == {"4294967295": "2a"}
    assert encode("consumer-group-heartbeat-request", 0, value) == body


def test_the_pretty_view_shows_unknown_tags(installed_cli):
    body = encode("streams-group-heartbeat-response", 0, {"_unknownTaggedFields": {"7": "0102"}})
    p = installed_cli(
        "decode", "--kind", "streams-group-heartbeat-response", "--version", "0", "--format", "pretty", body.hex()
    )
    assert p.returncode == 0 and "(body): unknown tagged field 7 (2 bytes) 0102" in p.stdout


@pytest.mark.parametrize(
    "uuid",
    [
        "!!!AAAAAAAAAAAAAAAAAAA",  # not base64: the characters were dropped (the zero UUID)
        "+/AAAAAAAAAAAAAAAAAAAA",  # the standard alphabet, not Kafka's URL-safe one
        "AAAAAAAAAAAAAAAAAAAAAB",  # a last character with bits the 16 bytes do not have
        "AAAAAAAAAAAAAAAAAAAAAA==",  # padding
        "urn:uuid:12345678-1234-1234-1234-123456789abc",
        "{12345678-1234-1234-1234-123456789abc}",
        "12345678123412341234123456789abc",
        "12345678-1234-1234-1234-١٢٣٤٥٦٧٨٩abc",  # Arabic-Indic digits
    ],
)
def test_a_uuid_in_any_other_form_is_refused(uuid):
    with pytest.raises(EncodeError, match="not a UUID"):
        encode(
            "consumer-group-heartbeat-response",
            0,
            {"assignment": {"topicPartitions": [{"topicId": uuid, "partitions": [0]}]}},
        )


def test_kafka_and_dashed_uuids_are_the_same_uuid():
    def topic(u: str) -> str:
        body = encode(
            "consumer-group-heartbeat-response",
            0,
            {"assignment": {"topicPartitions": [{"topicId": u, "partitions": [0]}]}},
        )
        return decode("consumer-group-heartbeat-response", 0, body)["assignment"]["topicPartitions"][0]["topicId"]

    # 00000000-0000-0000-0000-000000000001 is AAAAAAAAAAAAAAAAAAAAAQ in Kafka's Uuid.toString()
    assert topic("00000000-0000-0000-0000-000000000001") == topic("AAAAAAAAAAAAAAAAAAAAAQ") == "AAAAAAAAAAAAAAAAAAAAAQ"


# -- integers from the command line, config types -------------------------------------------------------------


def test_an_integer_option_takes_ascii_digits_only(installed_cli):
    """``--version ٣`` (an Arabic-Indic three) selected v3: a usage error now, naming the text."""
    p = installed_cli("decode", "--kind", "assignment-info", "--version", "\u0663", "00")
    assert p.returncode == 2 and "'\u0663' is not an integer (ASCII digits, at most 20)" in p.stderr


@pytest.mark.parametrize("value", ["9" * 5000, "1_0", "0x10", "\uff13", " 3\u00a0"])
def test_other_integers_that_are_not_ascii_digits(capsys, value):
    status, _, err = _cli(capsys, "decode", "--kind", "assignment-info", "--version", value, "00")
    assert status == 2 and "is not an integer (ASCII digits, at most 20)" in err and len(err) < 2000


def test_no_option_of_any_command_reads_a_number_with_int_or_float():
    """``int`` takes ``٣`` and 5,000 digits, ``float`` takes ``nan``, ``inf`` and ``١``: every numeric option of
    every command goes through codec.cliutil (int_range, seconds) instead, read from the parser itself."""
    import argparse

    from codec.cli import build_parser

    def options(parser, words=()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from options(sub, words + (name,))
            elif action.type in (int, float):
                yield " ".join(words + (action.option_strings or [action.dest])[:1])

    assert list(options(build_parser())) == []


@pytest.mark.parametrize(
    "key,value,kind",
    [("scheduledRebalanceMaxDelayMs", 2**31, "INT"), ("now", 2**63, "LONG"), ("generationId", -(2**31) - 1, "INT")],
)
def test_connect_config_values_are_kafka_types(capsys, tmp_path, key, value, kind):
    f = tmp_path / "g.json"
    f.write_text(json.dumps({"connectors": {"c": 1}, "workers": [{"memberId": "w"}], key: value}), encoding="utf-8")
    status, out, _ = _cli(capsys, "assign", "--connect", "--emit-bytes", str(f))
    assert status == 1 and f"{key} must be an integer in" in out and f"(Kafka's {kind})" in out


@pytest.mark.parametrize(
    "key,value,kind",
    [
        ("numStandbyReplicas", 2**31, "INT"),
        ("maxWarmupReplicas", -(2**31) - 1, "INT"),
        ("acceptableRecoveryLag", 2**63, "LONG"),
    ],
)
def test_streams_config_values_are_kafka_types(key, value, kind):
    from codec.assignor.json_io import configs_from_json
    from codec.assignor.model import AssignmentError

    with pytest.raises(AssignmentError, match=rf"configs.{key} must be an integer in .* \(Kafka's {kind}\)"):
        configs_from_json({key: value})


# -- the capture story ---------------------------------------------------------------------------------------------


def _dump(tmp_path, records: list[dict], extra: str = "") -> object:
    lines = []
    for r in records:
        key, value = encode_record(r)
        lines.append(json.dumps({"key": key.hex(), "value": None if value is None else value.hex()}))
    f = tmp_path / "dump.txt"
    f.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return f


def _group(lines: list[dict]) -> dict:
    (g,) = [x for x in lines if x["type"] == "heartbeat-group"]
    return g


def test_a_group_recreated_after_its_tombstone_is_told_so(tmp_path):
    meta = {"record": "ConsumerGroupMetadata", "key": {"groupId": "g"}}
    g = _group(
        json_lines(
            _dump(tmp_path, [{**meta, "value": {"epoch": 3}}, {**meta, "value": None}, {**meta, "value": {"epoch": 1}}])
        )
    )
    assert not g["deleted"] and g["group_epochs"] == [3, 1]
    assert [e["kind"] for e in g["events"]] == ["deleted", "recreated"]


def test_a_text_dump_line_with_only_a_key_is_a_bad_record(tmp_path):
    key, _ = encode_record({"record": "ConsumerGroupMetadata", "key": {"groupId": "g"}, "value": None})
    f = tmp_path / "dump.txt"
    f.write_text(
        json.dumps({"key": key.hex()}) + "\n" + json.dumps({"key": key.hex(), "value": None}) + "\n", encoding="utf-8"
    )
    lines = json_lines(f)
    (bad,) = lines[-1]["problems"]["bad records"]["first"]
    assert 'a JSON line needs a "value", null for a tombstone' in bad["reason"]
    assert _group(lines)["deleted"]  # the second line, a tombstone that says so


def _member(member: str, epoch: int, **value) -> dict:
    return {
        "record": "ConsumerGroupCurrentMemberAssignment",
        "key": {"groupId": "g", "memberId": member},
        "value": {"memberEpoch": epoch, "previousMemberEpoch": epoch - 1, "state": 0, **value},
    }


def test_records_that_contradict_each_other_are_anomalies(tmp_path):
    tps = [{"topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "partitions": [0, 1]}]
    records = [
        {
            "record": "ConsumerGroupMemberMetadata",
            "key": {"groupId": "g", "memberId": "m"},
            "value": {"clientId": "c", "clientHost": "h"},
        },
        _member("m", 5),
        _member("m", 3),  # the epoch goes back
        {"record": "ConsumerGroupMemberMetadata", "key": {"groupId": "g", "memberId": "m"}, "value": None},
        _member("m", 6, assignedPartitions=tps),  # given partitions after its tombstone
        {
            "record": "StreamsGroupMemberMetadata",
            "key": {"groupId": "s", "memberId": "x"},
            "value": {"clientTags": [{"key": "zone", "value": "a"}, {"key": "zone", "value": "b"}]},
        },
    ]
    lines = json_lines(_dump(tmp_path, records))
    groups = {g["group"]: g for g in lines if g["type"] == "heartbeat-group"}
    details = [e["detail"] for e in groups["g"]["events"] if e["kind"] == "anomaly"]
    assert any("member epoch went back from 5 to 3" in d for d in details), details
    assert any("gives 2 partitions or tasks to the member after it left (removed)" in d for d in details), details
    (tags,) = [e["detail"] for e in groups["s"]["events"] if e["kind"] == "anomaly"]
    assert "client tag key 'zone' given twice" in tags
    assert groups["s"]["members"][0]["client_tags"] == {"zone": "b"}
    status, text = run_capture(tmp_path / "dump.txt")
    assert status == 0 and "anomaly" in text
