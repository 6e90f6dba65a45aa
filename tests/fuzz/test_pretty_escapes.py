"""The pretty view (``decode --format pretty``) shows every wire string through ``codec.text.printable``:
lone surrogates, control characters, U+2028/U+2029 and backslashes as escapes, so the view is valid UTF-8
and no name can forge a line or drive the terminal. Expectations written out by hand."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

from codec.group.pretty import pretty_body
from codec.catalog import get_kind
from codec.streams.pretty import pretty_assignment, pretty_subscription
from codec.streams import AssignmentInfo, SubscriptionInfo
from codec.types import HostInfo, TaskId, TopicPartition
from tests.conftest import ROOT

# AssignmentInfo v7: host "h" U+D800 (writeUTF bytes 68 ed a0 80), port 1, partition 0 of topic "t" U+DFFF
SURROGATE = (
    "000000070000000b00000000000000000000000100000000000474edbfbf00000001000468eda080"
    "0000000100000001000000000000000000000000000000007fffffffffffffff"
)
# HeartbeatRequest v0: group id "", generation -1, member id "m-1" ESC "[2J" LF "FORGED LINE" U+2028 DEL "\x"
HOSTILE = "0000ffffffff00196d2d311b5b324a0a464f52474544204c494e45e280a87f5c78"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codec", *args],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def test_decode_pretty_of_the_surrogate_assignment_prints_the_escape():
    p = cli("decode", "--kind", "assignment-info", "--format", "pretty", SURROGATE)
    assert p.returncode == 0, p.stderr.decode("utf-8", "replace")
    text = p.stdout.decode("utf-8")  # strict: the output is valid UTF-8
    assert text.splitlines() == [
        "AssignmentInfo v7  (commonly supported v11)  72 bytes",
        "  error code      0 NONE",
        "  next rebalance  none (Long.MAX_VALUE)",
        "  active tasks (0, 0 partition slots):",
        "    (none)",
        "  standby tasks (0):",
        "  partitions by host (1):",
        "    h\\ud800:1  t\\udfff: 0",
        "  standby partitions by host (0):",
    ]


def test_a_member_id_cannot_forge_lines():
    d = get_kind("heartbeat-request").decode(bytes.fromhex(HOSTILE), version=0)
    assert d.value["memberId"] == "m-1\x1b[2J\nFORGED LINE\u2028\x7f\\x"  # the value keeps the characters
    assert d.pretty.split("\n") == [
        "HeartbeatRequest v0",
        '  group_id       ""',
        "  generation_id  -1",
        '  member_id      "m-1\\x1b[2J\\x0aFORGED LINE\\u2028\\x7f\\\\x"',
    ]
    p = cli("decode", "--kind", "heartbeat-request", "--version", "0", "--format", "pretty", HOSTILE)
    assert p.returncode == 0 and p.stdout.decode("utf-8").splitlines() == d.pretty.split("\n")


def test_quotes_in_a_string_are_escaped():
    from codec.wire.builder import wire_class

    body = wire_class("HeartbeatRequest", "HeartbeatRequest")(
        group_id='say "hi"', generation_id=1, member_id="\u2029\x85\ud800"
    )
    assert pretty_body("HeartbeatRequest", 0, body).split("\n")[1:] == [
        '  group_id       "say \\"hi\\""',
        "  generation_id  1",
        '  member_id      "\\u2029\\x85\\ud800"',
    ]


def test_request_frame_client_id_and_nested_layers():
    # a Heartbeat v0 request frame: key 12, version 0, correlation id 1, client id "c\n2" (header v1, 13 bytes),
    # then the 33-byte body
    frame = "000c0000000000010003630a32" + HOSTILE
    lines = get_kind("request-frame").decode(bytes.fromhex(frame)).pretty.split("\n")
    assert lines[:3] == [
        "Heartbeat request v0  (header v1, 46 bytes)",
        "  correlation id  1",
        '  client id       "c\\x0a2"',
    ]
    assert len(lines) == 6  # the head, correlation id, client id and the three body fields: nothing forged


def test_subscription_strings():
    info = SubscriptionInfo(
        version=11,
        process_id=uuid.UUID(int=1),
        user_endpoint="host\x1b]0;pwned\x07:8080",
        task_offset_sums={TaskId(0, 1, "topo\nlogy"): 5},
        client_tags={"az\u2028": "eu\\1", "rack": "r\x00"},
    )
    lines = pretty_subscription(info).split("\n")
    assert lines[2] == "  endpoint      host\\x1b]0;pwned\\x07:8080"
    assert lines[5] == "  client tags   az\\u2028=eu\\\\1, rack=r\\x00"
    assert lines[-1] == "    topo\\x0alogy__0_1  5  standby / restoring"
    assert len(lines) == 8


def test_assignment_strings_and_alignment():
    task = TaskId(1, 0, "\ud800")
    info = AssignmentInfo(
        version=10,
        active_tasks=(task,),
        standby_tasks={TaskId(2, 0): (TopicPartition("t\t1", 3),)},
        partitions_by_host={HostInfo("h\ud800", 1): (TopicPartition("x", 0),), HostInfo("long-host", 9): ()},
    )
    lines = pretty_assignment(info).split("\n")
    assert lines[4] == "    \\ud800__1_0"
    assert lines[6] == "    2_0  <- t\\x091: 3"
    # columns line up on the text as shown: h\ud800:1 is 9 characters wide, long-host:9 11
    assert lines[8:10] == ["    h\\ud800:1    x: 0", "    long-host:9  (no partitions)"]
