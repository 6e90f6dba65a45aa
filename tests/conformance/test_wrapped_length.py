"""The gate against a reader that keeps a compact length in a signed 32-bit int (the rule vectors' ``wrapped-length``
cases, vectors/kafka-java-rules-*.jsonl).

The fake implementation here is the reference codec with one mistake, a classic one of Kafka clients: it reads a
compact length as Kafka's ``ByteUtils.readUnsignedVarint(...) - 1`` does, in a Java int (so the uvarint
ff ff ff ff 0f, 2**32 - 1, is the length -2), takes -1 for null as it should, and any other negative length for
none: an empty string, bytes or array (``max(n, 0)`` before an allocation). Before the rule one vector of the suite
caught it, in one message (``hc-share-sghb-response-negative-count``, by hand); the new ones fail it in every message
with a compact length, wherever the length is -2 to Kafka (null, or a non-nullable field's exception), and only
there."""

from __future__ import annotations

import pytest

from codec.conformance.impl import BuiltinImplementation
from codec.conformance.runner import run_vectors
from codec.conformance.vectors import load_vectors
from codec.errors import DecodeError
from codec.wire import fastpath, native, primitives

_INT = 1 << 32


def _java_int(n: int) -> int:
    """``n`` as a Java int holds it: its low 32 bits, signed."""
    n %= _INT
    return n - _INT if n >= _INT >> 1 else n


def _java_uvarint(stream, path) -> int:
    """``ByteUtils.readUnsignedVarint``: at most five bytes, the fifth shifted left by 28 into a Java int."""
    start, value = stream.tell(), 0
    for i in range(5):
        byte = primitives.read_exact(stream, 1, path)[0]
        value |= (byte & 0x7F) << (7 * i)
        if byte < 0x80:
            return _java_int(value)
    raise DecodeError("varint longer than five bytes", offset=start)


def _int32_length(original):
    def read_len(self, stream, context, path, what):
        if self.prefix != "compact":
            return original(self, stream, context, path, what)
        pos = stream.tell()
        n = _java_int(_java_uvarint(stream, path) - 1)
        if n == -1:
            if self.nullable:
                return None
            raise DecodeError(f"null {what} in a non-nullable field", offset=pos)
        return max(n, 0)  # the mistake: a negative length is no bytes

    return read_len


@pytest.fixture
def int32_reader(monkeypatch):
    """The built-in reference codec (pure Python, construct path) with a compact length read into a Java int."""
    monkeypatch.setattr(primitives._Length, "_read_len", _int32_length(primitives._Length._read_len))
    was_native, was_fast = native.set_active(False), fastpath.set_enabled(False)
    try:
        yield BuiltinImplementation()
    finally:
        fastpath.set_enabled(was_fast)
        native.set_active(was_native)


def test_a_reader_that_keeps_a_compact_length_in_an_int32_fails_only_the_wrapped_lengths(int32_reader):
    vectors = load_vectors()
    new = {v["id"] for v in vectors if "wrapped-length" in v["flags"]}
    results = run_vectors(int32_reader, vectors)
    failed = {r.id for r in results if r.status == "fail"}
    assert len(results) == len(vectors) > 7000 and new
    # before the rule: one vector caught it
    assert failed - new == {"hc-share-sghb-response-negative-count"}
    # where Kafka reads the length -2 it fails (2**31 is Integer.MAX_VALUE to it as to Kafka, refused; the high bits
    # fall out of its int as out of Kafka's, the length it had): a non-nullable field read as empty where Kafka throws,
    # a nullable one as empty where Kafka reads null
    # (which case a vector is, by what its description says it holds: a long field path shortens the id)
    kept = {
        v["id"]
        for v in vectors
        if v["id"] in new
        and ("Java's Integer.MIN_VALUE" in v["description"] or "in five bytes, bits" in v["description"])
    }
    assert failed & new == new - kept
    for vid in ("protocols", "protocols-0-name", "groupinstanceid"):
        assert f"kr-joingrouprequest-v6-wrapped-length-{vid}" in failed
    # every message with a compact length: each group RPC and record value of a flexible version
    caught = {r.message for r in results if r.status == "fail"}
    assert len(caught) == len({v["message"] for v in vectors if v["id"] in new}) > 30


def _refusals(active_native: bool, vectors: list[dict]) -> list:
    impl, old = BuiltinImplementation(), native.set_active(active_native)
    try:
        return [impl.decode(v["message"], v["version"], bytes.fromhex(v["wire"])).error for v in vectors]
    finally:
        native.set_active(old)


def test_both_codecs_refuse_every_wrapped_length_at_the_same_offset():
    # this project reads a compact length as the unsigned number it is: past 32767, the input, or 2**32
    if not native.available():
        pytest.skip(f"no native codec: {native.unavailable_reason()}")
    vectors = [v for v in load_vectors() if "wrapped-length" in v["flags"]]
    python, engine = _refusals(False, vectors), _refusals(True, vectors)
    assert len(vectors) > 150 and all(e is not None for e in python)
    assert engine == python  # the same message: the same offset and field
