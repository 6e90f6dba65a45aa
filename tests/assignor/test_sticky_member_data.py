"""What the sticky assignors read from a member's user data (codec.assignor.consumer.sticky_data.member_data), held
to what Kafka's own assignors read: the ``memberData`` readings of tests/group/kafka_sticky_user_data.jsonl (Kafka's
StickyAssignor and CooperativeStickyAssignor, 4.4 branch, run by hand), the 99 Kafka-written vectors of
vectors/kafka-java-sticky-user-data.jsonl, and a topic's malformed UTF-8 read as Java's ``new String(bytes, UTF_8)``
reads it (tests/wire/java_utf8_strings.jsonl): the assignor sees the partitions Kafka's assignor sees, through the
one message layer (no reader of its own)."""

from __future__ import annotations

import json
import struct

import pytest

from codec.assignor.consumer import sticky_data
from codec.assignor.consumer.model import ConsumerMember
from codec.wire import native
from tests.conftest import ROOT

_KAFKA = [json.loads(x) for x in (ROOT / "tests" / "group" / "kafka_sticky_user_data.jsonl").read_text().splitlines()]
READINGS = [r for r in _KAFKA if r.get("case") in ("write", "read")]
VECTORS = [json.loads(x) for x in (ROOT / "vectors" / "kafka-java-sticky-user-data.jsonl").read_text().splitlines()]
VECTORS = [v for v in VECTORS if "wire" in v]
_JAVA = [json.loads(x) for x in (ROOT / "tests" / "wire" / "java_utf8_strings.jsonl").read_text().splitlines()]
JAVA = [(bytes.fromhex(r["hex"]), bytes.fromhex(r["java"]).decode("utf-16-be", "surrogatepass")) for r in _JAVA[1:]]


def _read(assignor: str, raw: bytes) -> dict:
    """``memberData`` as the Java driver printed it: the sticky one's partitions and generation (None: none), the
    cooperative one's generation (the subscription carries none: v0-1)."""
    parts, gen = sticky_data.member_data(assignor, ConsumerMember("m", user_data=raw))
    return (
        {"partitions": [list(tp) for tp in parts], "generation": gen} if assignor == "sticky" else {"generation": gen}
    )


@pytest.fixture(params=["native", "python"])
def engine(request):
    if request.param == "native" and not native.available():
        pytest.skip("no native codec")
    old = native.set_active(request.param == "native")
    yield
    native.set_active(old)


def test_kafkas_readings(engine):
    assert len(READINGS) == 94
    got, want = [], []
    for r in READINGS:
        raw = bytes.fromhex(r["hex"])
        for assignor in ("sticky", "cooperative-sticky"):
            kafka = r["read"] if r["case"] == "write" and r["assignor"] == assignor else r.get(assignor)
            if kafka is None or not raw:
                continue
            got.append((r["hex"], assignor, _read(assignor, raw)))
            want.append((r["hex"], assignor, kafka))
    assert got == want
    # the one Kafka reading of a malformed topic: U+FFFD in its place, no partitions, generation 9
    assert _read("sticky", bytes.fromhex("000000010001ff0000000000000009")) == {"partitions": [], "generation": 9}


def test_the_kafka_written_vectors(engine):
    """Valid: the vector's partitions and generation (v0: none); invalid: what Kafka's assignors fall back to."""
    assert sum(v["provenance"]["source"] == "kafka-java" for v in VECTORS) == 99  # (and 2 hand-made: -1 counts)
    for v in VECTORS:
        raw, e = bytes.fromhex(v["wire"]), v.get("expected")
        if v["message"] == "StickyAssignorUserData":
            parts, gen = sticky_data.decode_sticky_user_data(raw)
            if v["result"] == "valid":
                want = [(t["topic"], p) for t in e["previousAssignment"] for p in t["partitions"]]
                assert (parts, gen) == (want, e.get("generation")), v["id"]
            else:
                assert (parts, gen) == ([], -1), v["id"]
        else:
            _, gen = sticky_data.member_data("cooperative-sticky", ConsumerMember("m", user_data=raw))
            assert gen == (e["generation"] if v["result"] == "valid" else -1), v["id"]


def test_a_malformed_topic_reads_as_java_reads_it(engine):
    """StickyAssignorUserData v1 assembled field by field with each of Java's cases as its topic: the partitions
    carry Java's string of it, where the codec's default input policy refuses the bytes."""
    got, want = [], []
    for raw, java in JAVA:
        data = struct.pack(">ih", 1, len(raw)) + raw + struct.pack(">iiii", 2, 4, 1, 12)
        got.append(sticky_data.decode_sticky_user_data(data))
        want.append(([(java, 4), (java, 1)], 12))
    assert got == want
