"""Round trips of every group message at every version, with objects drawn from the schema tables
(tests/strategies.py): encode/decode are inverse, the JSON views are lossless, and decoding never
needs more bytes than were written. ConsumerProtocol adds its prefix rules (wire-facts §6)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codec.errors import UnsupportedVersionError
from codec.group import (
    ASSIGNMENT,
    HEADERS,
    MESSAGES,
    SUBSCRIPTION,
    ConsumerMessage,
    body_from_json,
    body_json,
    consumer_from_json,
    consumer_json,
    decode_consumer,
    decode_message,
    encode_consumer,
    encode_message,
)
from codec.wire.schema import load_message
from tests.strategies import wire_objects

CASES = [(name, v) for name in MESSAGES + HEADERS + (SUBSCRIPTION, ASSIGNMENT) for v in load_message(name).versions]


@pytest.mark.parametrize("name,version", CASES, ids=[f"{n}-v{v}" for n, v in CASES])
def test_round_trip(name, version):
    @given(wire_objects(name, version))
    def check(obj):
        if name in (SUBSCRIPTION, ASSIGNMENT):
            msg = ConsumerMessage(name=name, version=version, data=obj)
            data = encode_consumer(msg)
            assert struct.unpack_from(">h", data) == (version,)
            assert decode_consumer(name, data) == msg
            for style in ("kafka", "native"):
                assert consumer_from_json(name, consumer_json(msg, style=style), version, style=style) == msg
            return
        data = encode_message(name, version, obj)
        d = decode_message(name, version, data)
        assert d.value == obj and d.trailing == 0
        assert encode_message(name, version, d.value) == data
        for style in ("kafka", "native"):
            assert body_from_json(name, body_json(name, version, obj, style), style) == obj

    check()


@given(st.sampled_from([SUBSCRIPTION, ASSIGNMENT]), st.integers(4, 0x7FFF), st.binary(max_size=16), st.data())
def test_newer_consumer_versions_read_as_v3(name, version, extra, data):
    """A version above 3 reads with the v3 layout; what follows is kept as ignored trailing bytes."""
    body = data.draw(wire_objects(name, 3))
    v3 = encode_consumer(ConsumerMessage(name=name, version=3, data=body))
    newer = struct.pack(">h", version) + v3[2:] + extra
    msg = decode_consumer(name, newer)
    assert (msg.version, msg.layout_version, msg.data, msg.trailing) == (version, 3, body, extra)
    assert encode_consumer(msg) == newer


@given(st.sampled_from([SUBSCRIPTION, ASSIGNMENT]), st.integers(-0x8000, -1), st.binary(max_size=16))
def test_negative_consumer_versions_are_errors(name, version, rest):
    with pytest.raises(UnsupportedVersionError) as e:
        decode_consumer(name, struct.pack(">h", version) + rest)
    assert (e.value.message, e.value.offset, e.value.path) == (name, 0, "version")
