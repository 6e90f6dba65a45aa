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
import struct
import unicodedata

import pytest

from codec.capture.pcapwriter import TcpConnection, pcap

from .groupcapture import (
    consumer_assignment_v0,
    heartbeat_request,
    heartbeat_response,
    join_request,
    join_response,
    leave_request,
    leave_response,
    run_console,
    sync_request,
    sync_response,
)
from .storyfixtures import run_capture, streams_records

ASSIGNMENT_INFO = bytes.fromhex(
    "000000070000000b00000000000000000000000100000000000474edbfbf00000001000468eda0800000000100000001"
    "000000000000000000000000000000007fffffffffffffff"
)
# a ConsumerProtocol subscription Kafka wrote, its user data a Streams SubscriptionInfo v7
SUBSCRIPTION = base64.b64decode(
    next(r for r in streams_records() if r["streamsVersion"] == 7)["joinGroupRequest"]["data"]["protocols"][0][
        "metadata"
    ]
)

HOSTILE = {
    "group": "g\x1b]0;x\x07\nforged: group",
    "member": "m\x1b[2J-1",
    "client": "c\x1b[31m",
    "instance": "i\r\nx",
    "reason": "bye\x9b\u2028now",
}
# the same, as the text story must show them (escaped by hand: \xNN up to U+00FF, \uXXXX above)
SHOWN = {
    "group": r"g\x1b]0;x\x07\x0aforged: group",
    "member": r"m\x1b[2J-1",
    "client": r"c\x1b[31m",
    "instance": r"i\x0d\x0ax",
    "reason": r"bye\x9b\u2028now",
}
BENIGN = {
    "group": "g-plain-name",
    "member": "m-plain",
    "client": "c-plain",
    "instance": "i-plain",
    "reason": "bye-plain",
}


def _capture(names: dict[str, str]) -> bytes:
    group, member, client, instance = names["group"], names["member"], names["client"], names["instance"]
    assignment = consumer_assignment_v0({"t": [0]}, ASSIGNMENT_INFO)
    c = TcpConnection(("10.0.0.1", 40000), ("10.0.0.2", 9092))
    t = 1_700_000_000.0
    c.open(t)
    frames = [
        ("c", join_request(1, client, group, "", [("stream", SUBSCRIPTION)], instance=instance)),
        ("s", join_response(1, 5, "stream", member, SUBSCRIPTION)),
        ("c", sync_request(2, client, group, 5, member, assignment)),
        ("s", sync_response(2, assignment)),
        ("c", heartbeat_request(3, client, group, 5, member)),
        ("s", heartbeat_response(3, error_code=27)),
        ("c", leave_request(4, client, group, member, instance, names["reason"])),
        ("s", leave_response(4, member, instance)),
    ]
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
    assert " " * 10 + "hosts             h\\ud800:1: t\\udfff: 0" in lines  # from the AssignmentInfo
    assert any(
        line.lstrip().startswith(f"{SHOWN['member']} ({SHOWN['client']})  [leader, left]  instance {SHOWN['instance']}")
        for line in lines
    )
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
    assert (m["member_id"], m["client_id"], m["group_instance_id"]) == (
        HOSTILE["member"],
        HOSTILE["client"],
        HOSTILE["instance"],
    )
    streams = m["assignment"]["streams"]
    assert streams["version"] == 7 and streams["partitions_by_host"] == {"h\ud800:1": {"t\udfff": [0]}}
    assert m["assignment"]["consumer"]["partitions"] == {"t": [0]}
    assert m["subscription"]["streams"]["version"] == 7
    (leave,) = [e for e in gen["events"] if e["kind"] == "leave"]
    assert HOSTILE["reason"] in leave["detail"]
    frames = [x for x in lines if x["type"] == "frame"]
    assert len(frames) == 8 and {f["group"] for f in frames} == {HOSTILE["group"]}
    assert lines[-1]["type"] == "summary" and lines[-1]["problems"] == {}


# -- every other wire string the text story shows ---------------------------------------------------------


def _str16(s: str) -> bytes:
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def _subscription_v3(topics: list[str], owned: dict[str, list[int]], generation: int, rack: str) -> bytes:
    """ConsumerProtocolSubscription v3 by hand: version, topics, user data (null), owned partitions,
    generation id, rack id."""
    out = struct.pack(">hi", 3, len(topics)) + b"".join(_str16(t) for t in topics) + struct.pack(">i", -1)
    out += struct.pack(">i", len(owned))
    for t, ps in owned.items():
        out += _str16(t) + struct.pack(f">i{len(ps)}i", len(ps), *ps)
    return out + struct.pack(">i", generation) + _str16(rack)


def _subscription_v0(topics: list[str], user_data: bytes) -> bytes:
    return (
        struct.pack(">hi", 0, len(topics))
        + b"".join(_str16(t) for t in topics)
        + struct.pack(">i", len(user_data))
        + user_data
    )


FIELDS = {  # field: (hostile, as shown)
    "protocol": ("p\x1b[1m", r"p\x1b[1m"),
    "topic": ("t\x1b[5mx", r"t\x1b[5mx"),
    "owned": ("o\nq", r"o\x0aq"),
    "rack": ("r\x07k", r"r\x07k"),
    "assigned": ("a\x85b", r"a\x85b"),
    "endpoint": ("e\x1b]8;;x\x07:1", r"e\x1b]8;;x\x07:1"),
    "tag": ("k\n", r"k\x0a"),
    "value": ("v\x9b", r"v\x9b"),
    "topology": ("topo\x1b", r"topo\x1b"),
}


def _fields_capture(v: dict[str, str]) -> bytes:
    """Generation 1: protocol ``v["protocol"]``, a v3 subscription (topic, owned partition, rack) and a v0
    assignment; generation 2: protocol ``stream``, a SubscriptionInfo v11 (endpoint, client tag, a task of a
    named topology) and the AssignmentInfo above."""
    from codec.streams import SubscriptionInfo, encode_subscription
    from codec.types import TaskId

    info = SubscriptionInfo(
        version=11,
        user_endpoint=v["endpoint"],
        task_offset_sums={TaskId(0, 1, v["topology"]): 5},
        client_tags={v["tag"]: v["value"]},
    )
    gens = [
        (
            1,
            v["protocol"],
            _subscription_v3([v["topic"]], {v["owned"]: [1]}, 0, v["rack"]),
            consumer_assignment_v0({v["assigned"]: [2]}, None),
        ),
        (
            2,
            "stream",
            _subscription_v0(["s"], encode_subscription(info)),
            consumer_assignment_v0({"t": [0]}, ASSIGNMENT_INFO),
        ),
    ]
    c = TcpConnection(("10.0.0.1", 40000), ("10.0.0.2", 9092))
    t = 1_700_000_000.0
    c.open(t)
    for gen, protocol, sub, asg in gens:
        frames = [
            ("c", join_request(10 * gen, "c", "g", "m" if gen > 1 else "", [(protocol, sub)])),
            ("s", join_response(10 * gen, gen, protocol, "m", sub)),
            ("c", sync_request(10 * gen + 1, "c", "g", gen, "m", asg)),
            ("s", sync_response(10 * gen + 1, asg)),
        ]
        for i, (side, data) in enumerate(frames):
            c.write(side, data, t + gen + 0.01 * i)
    c.close(t + 5)
    return pcap(c.segments)


def test_every_other_wire_field_is_escaped(tmp_path):
    hostile, benign = tmp_path / "hostile.pcap", tmp_path / "benign.pcap"
    hostile.write_bytes(_fields_capture({k: h for k, (h, _) in FIELDS.items()}))
    benign.write_bytes(_fields_capture({k: f"{k}-plain" for k in FIELDS}))
    status, text = run_capture(hostile)
    assert status == 0 and _controls(text) == []
    lines = text.split("\n")
    shown = {k: s for k, (_, s) in FIELDS.items()}
    wanted = [
        f"generation 1  consumer/{shown['protocol']}  leader m",
        f"subscription  v3: topics {shown['topic']}; owned {shown['owned']}: 1; generation 0; rack '{shown['rack']}'",
        f"assignment    v0: {shown['assigned']}: 2 (1 partitions)",
        f"endpoint {shown['endpoint']}",
        f"task offset sums  {shown['topology']}__0_1=5",
        f"client tags       {shown['tag']}={shown['value']}",
        "hosts             h\\ud800:1: t\\udfff: 0",
        f"partitions {shown['assigned']}: 2: m (c) -> (unassigned)",
    ]  # a change between the generations
    for w in wanted:
        assert any(w in line for line in lines), w
    status, plain = run_capture(benign)
    assert status == 0 and len(plain.split("\n")) == len(lines)
