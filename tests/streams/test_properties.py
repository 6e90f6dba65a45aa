"""Property tests: every version round-trips, and no input makes a decoder raise anything but DecodeError."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codec.errors import DecodeError
from codec.streams import decode_assignment, decode_subscription, encode_assignment, encode_subscription
from codec.wire.builder import decode_wire, encode_wire
from tests.strategies import assignment_infos, subscription_infos, wire_objects

VERSIONS = range(1, 12)


@pytest.mark.parametrize("message", ["SubscriptionInfo", "AssignmentInfo"])
@pytest.mark.parametrize("version", VERSIONS)
def test_wire_round_trip(message, version):
    # The version word is a field like any other: pin it so the object is a valid message.
    @given(wire_objects(message, version))
    def pinned(obj):
        import dataclasses

        obj = dataclasses.replace(obj, version=version)
        data = encode_wire(message, version, obj)
        back, end = decode_wire(message, version, data)
        assert back == obj and end == len(data)

    pinned()


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=20)
@given(data=st.data())
def test_subscription_model_round_trip_and_truncation(version, data):
    info = data.draw(subscription_infos(version))
    raw = encode_subscription(info)
    assert decode_subscription(raw) == info
    # Every field is required, so every proper prefix is truncated input: a DecodeError, nothing else.
    for cut in range(len(raw)):
        with pytest.raises(DecodeError):
            decode_subscription(raw[:cut])


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=20)
@given(data=st.data())
def test_assignment_model_round_trip_and_truncation(version, data):
    info = data.draw(assignment_infos(version))
    raw = encode_assignment(info)
    back = decode_assignment(raw)
    assert back == info
    for cut in range(len(raw)):
        with pytest.raises(DecodeError):
            decode_assignment(raw[:cut])


@pytest.mark.parametrize("version", VERSIONS)
@given(data=st.data())
def test_single_byte_corruption_is_a_value_or_decode_error(version, data):
    raw = bytearray(encode_assignment(data.draw(assignment_infos(version))))
    sub = bytearray(encode_subscription(data.draw(subscription_infos(version))))
    for buf, decode in ((raw, decode_assignment), (sub, decode_subscription)):
        i = data.draw(st.integers(0, len(buf) - 1))
        buf[i] ^= data.draw(st.integers(1, 255))
        try:
            decode(bytes(buf))
        except DecodeError:
            pass


@given(st.binary(max_size=64))
def test_random_bytes_are_a_value_or_decode_error(raw):
    for decode in (decode_subscription, decode_assignment):
        try:
            decode(raw)
        except DecodeError:
            pass
