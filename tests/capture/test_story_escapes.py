"""Wire strings in the capture story, through the installed ``rebalance-codec capture`` (text and ``--json``).

Java strings may hold unpaired surrogates, and Kafka's AssignmentInfo (``writeUTF``) carries them: the
AssignmentInfo v7 below has host ``h\\ud800`` and topic ``t\\udfff`` (read by hand: version 7, commonly
supported 11, no active or standby tasks, a topic dictionary of one entry, index 0 = ``74 edbfbf`` = "t" +
U+DFFF in modified UTF-8; one host ``68 eda080`` = "h" + U+D800, port 1, with partition (topic 0, 0); no
standby hosts; error 0; next rebalance Long.MAX_VALUE). It reaches the story the way a Kafka Streams group
carries it: protocol type ``consumer``, protocol ``stream`` (named by the JoinGroup response), the SyncGroup
response's assignment a ConsumerProtocol assignment (written here by hand) whose user data is those bytes.

Group, member, client and instance ids and a leave reason hold terminal control sequences (ESC, BEL, CSI,
C1), newlines and U+2028: the text story must show them escaped (``\\xNN``/``\\uXXXX``, as codec.text
defines) on the line where they belong, and JSON must carry them exactly.
"""

from __future__ import annotations

import base64
import json
import unicodedata

import pytest

from codec.capture.pcapwriter import TcpConnection, pcap

from .groupcapture import (consumer_assignment_v0, heartbeat_request, heartbeat_response, join_request,
                           join_response, leave_request, leave_response, run_console, sync_request, sync_response)
from .storyfixtures import streams_records

ASSIGNMENT_INFO = bytes.fromhex(
    "000000070000000b00000000000000000000000100000000000474edbfbf00000001000468eda0800000000100000001"
    "000000000000000000000000000000007fffffffffffffff")
# a ConsumerProtocol subscription Kafka wrote, its user data a Streams SubscriptionInfo v7
SUBSCRIPTION = base64.b64decode(next(r for r in streams_records() if r["streamsVersion"] == 7)
                                ["joinGroupRequest"]["data"]["protocols"][0]["metadata"])

HOSTILE = {"group": "g\x1b]0;x\x07\nforged: group", "member": "m\x1b[2J-1", "client": "c\x1b[31m",
           "instance": "i\r\nx", "reason": "bye\x9b\u2028now"}
# the same, as the text story must show them (escaped by hand: \xNN up to U+00FF, \uXXXX above)
SHOWN = {"group": r"g\x1b]0;x\x07\x0aforged: group", "member": r"m\x1b[2J-1", "client": r"c\x1b[31m",
         "instance": r"i\x0d\x0ax", "reason": r"bye\x9b\u2028now"}
BENIGN = {"group": "g-plain-name", "member": "m-plain", "client": "c-plain", "instance": "i-plain",
          "reason": "bye-plain"}


def _capture(names: dict[str, str]) -> bytes:
    group, member, client, instance = names["group"], names["member"], names["client"], names["instance"]
    assignment = consumer_assignment_v0({"t": [0]}, ASSIGNMENT_INFO)
    c = TcpConnection(("10.0.0.1", 40000), ("10.0.0.2", 9092))
    t = 1_700_000_000.0
    c.open(t)
    frames = [("c", join_request(1, client, group, "", [("stream", SUBSCRIPTION)], instance=instance)),
              ("s", join_response(1, 5, "stream", member, SUBSCRIPTION)),
              ("c", sync_request(2, client, group, 5, member, assignment)),
              ("s", sync_response(2, assignment)),
              ("c", heartbeat_request(3, client, group, 5, member)),
              ("s", heartbeat_response(3, error_code=27)),
              ("c", leave_request(4, client, group, member, instance, names["reason"])),
              ("s", leave_response(4, member, instance))]
    for i, (side, data) in enumerate(frames):
        c.write(side, data, t + 0.01 * (i + 1))
    c.close(t + 1)
    return pcap(c.segments)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, dict[str, bytes]]:
    """stdout of ``capture`` in text and JSON mode, for the hostile and the benign names."""
    tmp = tmp_path_factory.mktemp("escapes")
    out = {}
    for label, names in (("hostile", HOSTILE), ("benign", BENIGN)):
        (tmp / f"{label}.pcap").write_bytes(_capture(names))
        out[label] = {}
        for mode, argv in (("text", ()), ("json", ("--json",))):
            done = run_console(tmp, "capture", f"{label}.pcap", *argv)
            assert done.returncode == 0, done.stderr.decode(errors="replace")
            out[label][mode] = done.stdout
    return out


def _controls(text: str) -> list[str]:
    """Characters a terminal may act on, other than the newline: C0, DEL, C1, U+2028/9, surrogates."""
    return [c for c in text if c != "\n" and (unicodedata.category(c) in ("Cc", "Cs") or c in "\u2028\u2029")]


def test_text_story_escapes_every_wire_string(outputs):
    text = outputs["hostile"]["text"].decode("utf-8")  # strict: any lone surrogate written raw would fail here
    assert _controls(text) == []
    lines = text.splitlines()
    assert f"group {SHOWN['group']}  (1 generations, pcap input)" in lines  # one line, escaped
    assert not [line for line in lines if line.startswith("forged")]
    assert " " * 10 + "hosts             h\\ud800:1: t\\udfff-0" in lines  # from the AssignmentInfo
    assert any(line.lstrip().startswith(f"{SHOWN['member']} ({SHOWN['client']})  [leader, left]  "
                                        f"instance {SHOWN['instance']}") for line in lines)
    assert any(f"reason '{SHOWN['reason']}'" in line for line in lines)
    assert any("Streams AssignmentInfo v7 (commonly supported v11)" in line for line in lines)
    # the same story with plain names has as many lines: no wire string started a line of its own
    assert len(lines) == len(outputs["benign"]["text"].decode("utf-8").splitlines())


def test_json_story_carries_the_strings_exactly(outputs):
    raw = outputs["hostile"]["json"]
    assert b"\x1b" not in raw and b"\x07" not in raw
    assert b'"h\\ud800:1"' in raw  # a lone surrogate as its JSON escape, not as (invalid) UTF-8
    # JSON lines end at "\n" only (str.splitlines would also break at U+2028 and C1 NEL inside strings)
    lines = [json.loads(line) for line in raw.decode("utf-8").split("\n") if line]
    (gen,) = [x for x in lines if x["type"] == "generation" and x["generation"] == 5]
    assert gen["group"] == HOSTILE["group"] and (gen["protocol_type"], gen["protocol"]) == ("consumer", "stream")
    (m,) = gen["members"]
    assert (m["member_id"], m["client_id"], m["group_instance_id"]) == (HOSTILE["member"], HOSTILE["client"],
                                                                       HOSTILE["instance"])
    streams = m["assignment"]["streams"]
    assert streams["version"] == 7 and streams["partitions_by_host"] == {"h\ud800:1": ["t\udfff-0"]}
    assert m["assignment"]["consumer"]["partitions"] == ["t-0"]
    assert m["subscription"]["streams"]["version"] == 7
    (leave,) = [e for e in gen["events"] if e["kind"] == "leave"]
    assert HOSTILE["reason"] in leave["detail"]
    frames = [x for x in lines if x["type"] == "frame"]
    assert len(frames) == 8 and {f["group"] for f in frames} == {HOSTILE["group"]}
    assert lines[-1]["type"] == "summary" and lines[-1]["problems"] == {}
