"""The sans-IO frame reader and the request/response pairing, over whole captured connections:
the same frames come out whatever the chunking, a partial frame waits, bad sizes are errors."""

from __future__ import annotations

import collections
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codec.errors import DecodeError, LimitExceededError, TruncatedError
from codec.group import DEFAULT_MAX_FRAME_SIZE, Connection, FrameReader, size_prefix, strip_size_prefix
from tests.group.data import capture_records, is_reference


def _connections():
    """Per captured connection: the client->broker byte stream, the broker->client byte stream, and
    the frames of each (frames.jsonl holds them in capture order, without their int32 size)."""
    conns: dict[tuple, dict[str, list[bytes]]] = collections.defaultdict(lambda: {"request": [], "response": []})
    for r in capture_records():
        conns[(r["run"], r["scenario"], r["conn"])][r["direction"]].append(bytes.fromhex(r["hex"]))
    return list(conns.values())


CONNS = _connections()
BIGGEST = max(CONNS, key=lambda c: len(c["request"]) + len(c["response"]))
STREAM = b"".join(size_prefix(f) for f in BIGGEST["request"])


def _read(chunks) -> list[bytes]:
    reader, out = FrameReader(), []
    for chunk in chunks:
        reader.feed(chunk)
        out.extend(reader)
    reader.close()
    return out


def test_whole_stream():
    assert _read([STREAM]) == BIGGEST["request"]


def test_byte_by_byte():
    assert _read(STREAM[i : i + 1] for i in range(len(STREAM))) == BIGGEST["request"]


@given(st.lists(st.integers(0, len(STREAM)), max_size=40))
def test_random_chunking(cuts):
    edges = sorted({0, len(STREAM), *cuts})
    assert _read(STREAM[a:b] for a, b in zip(edges, edges[1:])) == BIGGEST["request"]


@given(st.integers(1, len(STREAM) - 1))
def test_trailing_partial_frame_waits_and_is_reported_at_close(cut):
    frames = BIGGEST["request"]
    reader = FrameReader()
    reader.feed(STREAM[:cut])
    got = list(reader)
    assert got == frames[: len(got)]
    assert reader.buffered == cut - sum(4 + len(f) for f in got)
    assert reader.next_frame() is None  # asking again neither blocks nor loses anything
    if reader.buffered:
        with pytest.raises(TruncatedError):
            reader.close()
    reader.feed(STREAM[cut:])
    assert got + list(reader) == frames
    reader.close()


@pytest.mark.parametrize("size", [-1, -(2**31), DEFAULT_MAX_FRAME_SIZE + 1])
def test_bad_sizes(size):
    reader = FrameReader()
    reader.feed(size_prefix(b"\0" * 8) + struct.pack(">i", size) + b"rest")
    assert reader.next_frame() == b"\0" * 8
    with pytest.raises(LimitExceededError) as e:
        reader.next_frame()
    assert (e.value.offset, e.value.path) == (12, "size")
    with pytest.raises(LimitExceededError):  # the stream cannot be framed any more
        list(reader)


def test_configurable_maximum():
    reader = FrameReader(max_frame_size=8)
    reader.feed(size_prefix(b"12345678") + size_prefix(b"123456789"))
    assert reader.next_frame() == b"12345678"
    with pytest.raises(LimitExceededError, match="above the maximum 8"):
        reader.next_frame()


def test_size_prefix_must_match():
    assert strip_size_prefix(size_prefix(b"abc")) == b"abc"
    with pytest.raises(DecodeError, match="size 4 does not match"):
        strip_size_prefix(struct.pack(">i", 4) + b"abc")


def test_pairing_over_every_connection():
    """Responses pair with their requests by correlation id, per connection, in whatever order."""
    paired = 0
    for c in CONNS:
        conn = Connection()
        for data in c["request"]:
            conn.request(data)
        # answer in reverse order: pairing is by correlation id, not by position
        for data in reversed(c["response"]):
            try:
                req, resp = conn.response(data)
            except DecodeError:
                continue  # the few mock replies the README marks as not a reference
            assert (req.correlation_id, req.api_key, req.api_version) == (
                resp.correlation_id,
                resp.api_key,
                resp.api_version,
            )
            paired += 1
    refs = sum(1 for r in capture_records() if r["direction"] == "response" and is_reference(r))
    assert paired == refs


def test_pairing_refuses_unknown_and_duplicate_ids():
    c = next(c for c in CONNS if c["request"] and c["response"])
    conn = Connection()
    with pytest.raises(DecodeError, match="no request with correlation id"):
        conn.response(c["response"][0])
    conn.request(c["request"][0])
    with pytest.raises(DecodeError, match="already waiting"):
        conn.request(c["request"][0])


def test_recovering_reader_resynchronises_after_garbage():
    """A corrupted size is reported (issue #11) and the next intact frames still come out."""
    import json

    from codec.group.stream import FrameReader
    from tests.conftest import SHARED

    frames = []
    for line in (SHARED / "captures" / "frames.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["direction"] == "request" and r["api_key"] in (11, 14):
            frames.append(bytes.fromhex(r["hex"]))
        if len(frames) == 6:
            break
    garbage = b"\xff\xff\xff\xff not a frame"  # (the heuristic cannot tell garbage that looks like a header)
    stream = (
        b"".join(len(f).to_bytes(4, "big") + f for f in frames[:3])
        + garbage
        + b"".join(len(f).to_bytes(4, "big") + f for f in frames[3:])
    )
    for chunk in (1, 5, 64, len(stream)):
        reader = FrameReader(role="request")
        out = []
        for i in range(0, len(stream), chunk):
            reader.feed(stream[i : i + chunk])
            out.extend(reader)
        reader.close()
        assert out == frames
        assert len(reader.skipped) == 1
        skipped = reader.skipped[0]
        assert skipped.offset == sum(4 + len(f) for f in frames[:3]) and skipped.length == len(garbage)
