"""The library's facade (issue #42): ``codec.decode(kind, data, version=None)``, ``codec.encode(kind, value,
version=None)``, ``codec.kinds()`` and the errors, over every vector of ``vectors/``.

Expected values are the vectors' (Kafka's bytes, kio's, the hand-made ones): every valid vector with bytes decodes
to a model that encodes to those bytes again (its canonical ones byte for byte, up to the bytes after the message,
which Kafka ignores), and every invalid one is a :class:`codec.DecodeError`.
"""

from __future__ import annotations

import pytest

import codec
from codec.conformance.messages import MESSAGES
from codec.conformance.vectors import DECODE_ONLY, load_vectors

VECTORS = [v for v in load_vectors() if "wire" in v and v["result"] in ("valid", "invalid")]


def _options(v: dict) -> dict:
    out = {}
    if v.get("apiKey") is not None and v["message"] == "ResponseFrame":
        out["api_key"] = v["apiKey"]
    if v.get("readerVersion") is not None:
        out["latest"] = v["readerVersion"]
    return out


def test_the_facade_is_the_surface():
    assert set(codec.__all__) == {
        "CodecError",
        "DecodeError",
        "Decoded",
        "EncodeError",
        "LimitExceededError",
        "TruncatedError",
        "UnsupportedVersionError",
        "decode",
        "encode",
        "kinds",
    }
    names = codec.kinds()
    assert names[:2] == ["subscription-info", "assignment-info"] and "heartbeat-request" in names
    assert set(MESSAGES.values()) <= set(names)


@pytest.mark.parametrize("chunk", range(4))
def test_every_vector_round_trips_through_the_facade(chunk):
    checked = 0
    for v in VECTORS[chunk::4]:
        kind, version, wire = MESSAGES[v["message"]], v.get("version"), bytes.fromhex(v["wire"])
        if v["result"] == "invalid":
            with pytest.raises(codec.DecodeError):
                codec.decode(kind, wire, version, **_options(v))
            continue
        d = codec.decode(kind, wire, version, **_options(v))
        assert isinstance(d, codec.Decoded), v["id"]
        assert d.consumed + d.trailing == len(wire), v["id"]
        if DECODE_ONLY & set(v.get("flags", ())) or "version-probe" in v.get("flags", ()):
            continue
        again = codec.encode(kind, d.value, d.version if v["message"] != "ConnectMetadata" else None)
        if v.get("canonical", True) and not d.trailing and "trailing-bytes" not in v.get("flags", ()):
            assert again == wire[: d.consumed], v["id"]
        # whatever the bytes, the model they decode to is what the encoded model decodes to
        assert codec.decode(kind, again, version, **_options(v)).value == d.value, v["id"]
        checked += 1
    assert checked > 400


def test_json_encodes_too_in_either_key_style():
    data = bytes.fromhex("0001670000000100016d")  # HeartbeatRequest v0: "g", generation 1, "m"
    d = codec.decode("heartbeat-request", data, 0)
    assert (d.message, d.version, d.value.group_id, d.consumed, d.trailing) == ("HeartbeatRequest", 0, "g", 10, 0)
    assert codec.encode("heartbeat-request", {"groupId": "g", "generationId": 1, "memberId": "m"}, 0) == data
    assert codec.encode("heartbeat-request", {"group_id": "g", "generation_id": 1, "member_id": "m"}, 0) == data


def test_errors_name_the_message_the_offset_and_the_field():
    with pytest.raises(codec.DecodeError) as e:
        codec.decode("heartbeat-request", bytes.fromhex("00016700"), 0)
    assert (e.value.message, e.value.version, e.value.offset, e.value.path) == (
        "HeartbeatRequest",
        0,
        3,
        "generation_id",
    )
    with pytest.raises(codec.EncodeError) as e:
        codec.encode("heartbeat-request", {"groupId": "g", "generationId": "one"}, 0)
    assert e.value.path == "generation_id"
    with pytest.raises(codec.DecodeError, match="unknown kind 'no-such-kind'"):
        codec.decode("no-such-kind", b"")
    with pytest.raises(codec.EncodeError, match="needs --version"):
        codec.encode("heartbeat-request", {"groupId": "g"})
