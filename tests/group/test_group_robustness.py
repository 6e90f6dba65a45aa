"""Damaged frames: every truncation and every single-byte corruption of a sample of captured frames
either decodes (and then renders as JSON and as a tree) or raises DecodeError naming message, offset
and path; nothing else escapes. Nested layers that break stay bytes with the reason."""

from __future__ import annotations

import json

import pytest

from codec.errors import DecodeError
from codec.group import Connection, decode_request_frame, decode_response_frame, request_frame_json, response_frame_json
from codec.group.pretty import pretty_request_frame, pretty_response_frame
from tests.group.data import GROUP_API_KEYS, capture_records, is_reference


def _sample():
    """One request and one response per (API, version, client), paired through Connection."""
    seen, out, conns = set(), [], {}
    for r in capture_records():
        conn = conns.setdefault((r["run"], r["scenario"], r["conn"]), Connection())
        data = bytes.fromhex(r["hex"])
        if r["direction"] == "request":
            conn.request(data)
        elif is_reference(r):
            conn.response(data)
        key = (r["api_key"], r["api_version"], r["direction"], r["client"])
        if r["api_key"] in GROUP_API_KEYS and is_reference(r) and key not in seen:
            seen.add(key)
            out.append(r)
    return out


SAMPLE = _sample()
# Exhaustive (all 256 values at every offset) for the smallest frame of each API; the rest get
# boundary values and bit flips, which hit every length, count, varint and flag byte.
EXHAUSTIVE = {min((r for r in SAMPLE if r["api_key"] == k), key=lambda r: len(r["hex"]))["hex"] for k in GROUP_API_KEYS}


def _decode(r, data: bytes):
    if r["direction"] == "request":
        frame = decode_request_frame(data)
        json.dumps(request_frame_json(frame))
        pretty_request_frame(frame)
    else:
        frame = decode_response_frame(data, r["api_key"], r["api_version"])
        json.dumps(response_frame_json(frame))
        pretty_response_frame(frame)


def _check(r, data: bytes) -> None:
    try:
        _decode(r, data)
    except DecodeError as e:
        assert e.message and e.offset is not None and 0 <= e.offset <= len(data), str(e)


def _id(r):
    return f"{r['api_name']}v{r['api_version']}-{r['direction']}-{r['client'].split(' ')[0]}"


def test_sample_covers_every_group_api():
    assert {(r["api_key"], r["direction"]) for r in SAMPLE} == {
        (k, d) for k in GROUP_API_KEYS for d in ("request", "response")
    }


@pytest.mark.parametrize("r", SAMPLE, ids=_id)
def test_truncations(r):
    data = bytes.fromhex(r["hex"])
    for n in range(len(data)):
        try:
            _decode(r, data[:n])
        except DecodeError as e:
            assert e.offset is not None and e.offset <= n, str(e)


@pytest.mark.parametrize("r", SAMPLE, ids=_id)
def test_single_byte_corruptions(r):
    data = bytes.fromhex(r["hex"])
    for i, b in enumerate(data):
        values = range(256) if r["hex"] in EXHAUSTIVE else {0x00, 0x01, 0x7F, 0x80, 0xFF, b ^ 0x01, b ^ 0x80, b ^ 0xFF}
        for v in values:
            if v != b:
                _check(r, data[:i] + bytes([v]) + data[i + 1 :])


def test_a_broken_subscription_stays_bytes_with_its_reason():
    r = next(r for r in SAMPLE if r["api_key"] == 11 and r["direction"] == "request")
    frame = decode_request_frame(bytes.fromhex(r["hex"]))
    # cut the first protocol's metadata short by rewriting its int32 length inside the frame
    data = bytearray.fromhex(r["hex"])
    meta = frame.body.protocols[0].metadata.raw
    at = bytes(data).index(len(meta).to_bytes(4, "big") + meta)
    data[at : at + 4 + len(meta)] = (3).to_bytes(4, "big") + meta[:3]
    broken = decode_request_frame(bytes(data))
    n = broken.body.protocols[0].metadata
    assert not n.ok and n.raw == meta[:3]
    assert n.error.at == "protocols[0].metadata" and n.error.path == "topics" and n.error.offset == 2
    assert "ConsumerProtocolSubscription v" in n.error.message
    assert broken.body.protocols[1].metadata.ok
