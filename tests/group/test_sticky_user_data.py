"""The classic sticky assignors' user data (codec.group.sticky) against what Kafka's own classes wrote and read.

``kafka_sticky_user_data.jsonl`` was made by running Kafka's ``StickyAssignor`` and ``CooperativeStickyAssignor``
(the 4.4 branch, ``8d3916cf``) by hand outside this repository: ``write`` lines hold the user data
``subscriptionUserData`` returned and what the same assignor's ``memberData`` read back; ``read`` lines hold bytes
given by hand and what each assignor's ``memberData`` read from them. Real traffic comes from ``../shared/captures``:
Java 3.9's sticky member, librdkafka's cooperative-sticky member (which writes the sticky layout) and kafka-python's
sticky member (whose bytes Kafka's reader cannot read).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codec.catalog import get_kind
from codec.errors import DecodeError
from codec.group.nested import decode_layer, sticky_data
from codec.group.sticky import decode_sticky_user_data, encode_sticky_user_data, read_carried
from tests.conftest import ROOT

HERE = Path(__file__).parent
RECORDS = [json.loads(x) for x in (HERE / "kafka_sticky_user_data.jsonl").read_text().splitlines()]
WRITES = [r for r in RECORDS if r.get("case") == "write"]
READS = [r for r in RECORDS if r.get("case") == "read"]
KIND = {"sticky": "sticky-assignor-user-data", "cooperative-sticky": "cooperative-sticky-assignor-user-data"}
CAPTURES = ROOT.parent / "shared" / "captures"
# bytes Kafka read with a malformed UTF-8 topic (its Type.STRING substitutes U+FFFD): refused here, by the input policy
MALFORMED_UTF8 = {"000000010001ff0000000000000009"}


def _kafka_view(assignor: str, raw: bytes) -> dict:
    """What this codec reads, in the shape the Java driver printed memberData in."""
    u = decode_sticky_user_data(assignor, raw)
    if assignor == "sticky":
        return {"partitions": [list(tp) for tp in u.topic_partitions()], "generation": u.generation}
    return {"generation": u.generation}


def test_the_vectors_are_there():
    assert len(WRITES) == 80 and len(READS) == 14
    assert {r["assignor"] for r in WRITES} == {"sticky", "cooperative-sticky"}


@pytest.mark.parametrize("r", WRITES, ids=lambda r: f"{r['assignor']}-{r['hex'][:16]}")
def test_what_kafka_wrote_reads_as_kafka_read_it_and_writes_back(r):
    raw = bytes.fromhex(r["hex"])
    assert _kafka_view(r["assignor"], raw) == r["read"]
    kind = get_kind(KIND[r["assignor"]])
    view = kind.decode(raw, style="kafka")
    assert kind.encode(view.value, style="kafka") == raw  # Kafka's bytes from the JSON
    assert encode_sticky_user_data(decode_sticky_user_data(r["assignor"], raw)) == raw


@pytest.mark.parametrize("r", [r for r in READS if r["hex"]], ids=lambda r: r["hex"][:24])
@pytest.mark.parametrize("assignor", ["sticky", "cooperative-sticky"])
def test_bytes_given_by_hand_read_as_kafka_reads_them(r, assignor):
    """Where Kafka's reader falls back (no partitions, generation -1: the user data ignored), this codec refuses the
    bytes with the reason and says what Kafka reads instead; elsewhere it reads what Kafka read."""
    raw, kafka = bytes.fromhex(r["hex"]), r[assignor]
    fell_back = kafka == ({"partitions": [], "generation": -1} if assignor == "sticky" else {"generation": -1})
    written = assignor == "cooperative-sticky" and raw == b"\xff\xff\xff\xff"  # (-1 written, and read, as -1)
    if assignor == "sticky" and r["hex"] in MALFORMED_UTF8:
        # the one divergence (docs/explanations/input-policy.md): Kafka's Type.STRING reads the topic with U+FFFD
        # (here a topic of no partitions, then generation 9); the input policy refuses malformed UTF-8 at its byte
        with pytest.raises(DecodeError) as e:
            decode_sticky_user_data(assignor, raw)
        assert (e.value.offset, e.value.path) == (6, "previous_assignment[0].topic"), e.value
        assert e.value.reason.startswith("invalid UTF-8")
        with pytest.raises(DecodeError, match="StickyAssignor reads the topic with U\\+FFFD"):
            read_carried(assignor, raw, other_layout=False)
    elif fell_back and not written:
        with pytest.raises(DecodeError):
            decode_sticky_user_data(assignor, raw)
        with pytest.raises(DecodeError, match="Kafka's .*StickyAssignor reads"):
            read_carried(assignor, raw, other_layout=False)
    else:
        assert _kafka_view(assignor, raw) == kafka


def test_a_v0_read_keeps_no_generation_and_the_bytes_after():
    u = decode_sticky_user_data("sticky", bytes.fromhex("000000010001740000000100000000abcd"))
    assert (u.version, u.generation, u.trailing) == (0, None, b"\xab\xcd")
    assert encode_sticky_user_data(u).hex() == "000000010001740000000100000000abcd"


def _join_frames(scenario: str) -> list[dict]:
    path = CAPTURES / "frames.jsonl"
    if not path.exists():
        pytest.skip("../shared/captures is not beside the checkout")
    out = []
    for line in path.read_text().splitlines():
        r = json.loads(line)
        if r["scenario"] == scenario and r["api_key"] == 11 and r["direction"] == "request":
            out.append(r)
    return out


def _cli(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "codec", *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_java_sticky_members_user_data_in_a_join_frame():
    """Java 3.9's StickyAssignor writes its previous partitions and generation in the user data; the v3 subscription
    carries the same generation (generationId) but, eager, no owned partitions; the frame's JSON shows the layer."""
    seen = 0
    for r in _join_frames("java-sticky"):
        out = _cli("decode", "--kind", "request-frame", "--style", "snake", stdin=r["hex"])
        assert out.returncode == 0, out.stderr
        meta = json.loads(out.stdout)["body"]["protocols"][0]["metadata"]
        sub = meta["value"]
        user = sub["user_data"]
        if not isinstance(user, dict):
            assert user is None  # the first join: no previous assignment
            continue
        seen += 1
        assert user["layer"] == "StickyAssignorUserData" and "error" not in user
        assert user["value"]["version"] == 1 and user["value"]["generation"] == sub["generation_id"]
        assert sub["owned_partitions"] == []  # (eager: revoked before the join; the user data still says)
        previous = {(t["topic"], p) for t in user["value"]["previous_assignment"] for p in t["partitions"]}
        assert previous and {t for t, _ in previous} <= set(sub["topics"])
    assert seen >= 5


def test_a_subscription_with_assignor_and_back():
    """``decode --kind consumer-subscription --assignor sticky``: the user data as a layer object; encoding that
    JSON gives the bytes back (the layer's bytes, or its value when the bytes are left out)."""
    r = next(r for r in _join_frames("java-sticky") if r["correlation_id"] == 43)
    from codec.group.frames import decode_request_frame

    meta = decode_request_frame(bytes.fromhex(r["hex"]), nested=True).body.protocols[0].metadata.raw
    out = _cli("decode", "--kind", "consumer-subscription", "--assignor", "sticky", stdin=meta.hex())
    assert out.returncode == 0 and out.stderr == "", out.stderr
    value = json.loads(out.stdout)
    assert value["userData"]["layer"] == "StickyAssignorUserData"
    assert value["userData"]["value"]["generation"] == value["generationId"] == 2
    back = _cli("encode", "--kind", "consumer-subscription", stdin=json.dumps(value))
    assert back.returncode == 0 and bytes.fromhex(back.stdout.strip()) == meta, back.stderr
    del value["userData"]["bytes"]
    back = _cli("encode", "--kind", "consumer-subscription", stdin=json.dumps(value))
    assert back.returncode == 0 and bytes.fromhex(back.stdout.strip()) == meta, back.stderr
    plain = _cli("decode", "--kind", "consumer-subscription", stdin=meta.hex())
    assert isinstance(json.loads(plain.stdout)["userData"], str)  # without --assignor: bytes, as before


def test_kafka_python_sticky_user_data_stays_bytes_with_one_note():
    """kafka-python 3.0.12 writes two bytes (int16 1) before StickyAssignorUserData v1: Kafka's reader cannot read
    it (its first array count is 65536), so the bytes stay bytes, with one note that says so and what follows."""
    from codec.group.frames import decode_request_frame

    for r in _join_frames("kp-sticky"):
        meta = decode_request_frame(bytes.fromhex(r["hex"]), nested=True).body.protocols[0].metadata.raw
        out = _cli("decode", "--kind", "consumer-subscription", "--assignor", "sticky", stdin=meta.hex())
        assert out.returncode == 0, out.stderr
        user = json.loads(out.stdout)["userData"]
        if isinstance(user, str):
            continue  # empty user data (its first join): nothing to read
        assert user["layer"] == "StickyAssignorUserData" and "value" not in user
        notes = out.stderr.strip().splitlines()
        assert len(notes) == 1 and "Traceback" not in out.stderr
        assert "array count 65536" in notes[0] and "int16 1, the rest reads as StickyAssignorUserData v1" in notes[0]
        assert "Kafka's StickyAssignor reads no previous partitions, generation -1" in notes[0]
        return
    pytest.fail("no kafka-python sticky subscription with user data in the captures")


def test_librdkafka_cooperative_sticky_writes_the_sticky_layout():
    """librdkafka's cooperative-sticky member carries StickyAssignorUserData v1 (not the 4-byte generation Kafka's
    CooperativeStickyAssignor writes): shown as such, and the partitions are the subscription's owned ones."""
    seen = 0
    from codec.group.frames import decode_request_frame

    for r in _join_frames("ck-cooperative-sticky"):
        meta = decode_request_frame(bytes.fromhex(r["hex"]), nested=True).body.protocols[0].metadata
        data = meta.value.data
        u = sticky_data(data.user_data)
        if u is None:
            continue
        seen += 1
        assert (u.assignor, u.carried_by, u.version) == ("sticky", "cooperative-sticky", 1)
        assert set(u.topic_partitions()) == {(t.topic, p) for t in data.owned_partitions for p in t.partitions}
        assert u.generation == data.generation_id
    assert seen >= 5


@pytest.mark.parametrize("assignor", ["sticky", "cooperative-sticky"])
def test_garbage_never_raises_past_the_layer(assignor):
    import random

    rng = random.Random(43)
    for n in range(300):
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        layer = decode_layer(
            "StickyAssignorUserData" if assignor == "sticky" else "CooperativeStickyAssignorUserData",
            raw,
            protocol_name=None,
        )
        assert layer.ok or "Kafka's" in layer.error.message, n


def test_an_assignor_without_a_layout_keeps_the_bytes_with_a_note():
    raw = bytes.fromhex("00030000000100017400000002abcd00000000ffffffffffff")  # v3, topics [t], user data abcd
    view = get_kind("consumer-subscription").decode(raw, assignor="range")
    assert view.value["userData"] == "q80=" and len(view.notes) == 1 and "'range'" in view.notes[0]
    view = get_kind("consumer-subscription").decode(raw, assignor="cooperative-sticky")
    assert view.value["userData"]["error"]["path"] == "generation" and len(view.notes) == 1
    assert "Kafka's CooperativeStickyAssignor reads generation -1" in view.notes[0]
