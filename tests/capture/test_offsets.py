"""__consumer_offsets keys, values and log segments, built by hand from the layouts in Kafka's
GroupMetadataKey/Value.json, OffsetCommitKey/Value.json and DefaultRecordBatch/DefaultRecord.java."""

from __future__ import annotations

import base64
import gzip
import io
import json
import struct

import cramjam
import crc32c
import pytest
from hypothesis import given
from hypothesis import strategies as st

from codec.capture.offsets import BadRecord, ControlMarker, OffsetsRecord, member_payloads, read_segment, read_text
from codec.capture.records import read_batches
from codec.errors import DecodeError


def s16(text: str | None) -> bytes:
    return struct.pack(">h", -1) if text is None else struct.pack(">h", len(text)) + text.encode()


def cstr(text: str | None) -> bytes:  # compact string: uvarint(N + 1)
    return b"\x00" if text is None else bytes([len(text) + 1]) + text.encode()


def commit_key(version: int, group="g1", topic="orders", partition=3) -> bytes:
    return struct.pack(">h", version) + s16(group) + s16(topic) + struct.pack(">i", partition)


def commit_value(version: int) -> bytes:
    out = struct.pack(">hq", version, 42)
    if version >= 3:
        out += struct.pack(">i", 7)  # leaderEpoch
    if version >= 4:
        return out + cstr("meta") + struct.pack(">q", 1000) + b"\x00"
    out += s16("meta") + struct.pack(">q", 1000)
    if version == 1:
        out += struct.pack(">q", 2000)  # expireTimestamp
    return out


# ConsumerProtocol subscription v0 (topics ["orders"], userData empty) and assignment v0
# (orders: [0, 1], userData empty), by the layouts of wire-facts §6.
SUBSCRIPTION = struct.pack(">hi", 0, 1) + s16("orders") + struct.pack(">i", 0)
ASSIGNMENT = struct.pack(">hi", 0, 1) + s16("orders") + struct.pack(">iii", 2, 0, 1) + struct.pack(">i", 0)


def group_value(version: int) -> bytes:
    if version >= 4:
        out = struct.pack(">h", version) + cstr("consumer") + struct.pack(">i", 5) + cstr("range") + cstr("m-1")
        out += struct.pack(">q", 123) + bytes([2])  # one member
        out += cstr("m-1") + cstr(None) + cstr("c-1") + cstr("/10.0.0.1") + struct.pack(">ii", 300000, 10000)
        out += bytes([len(SUBSCRIPTION) + 1]) + SUBSCRIPTION + bytes([len(ASSIGNMENT) + 1]) + ASSIGNMENT
        return out + b"\x00" + b"\x00"  # member's tagged fields, then the value's
    out = struct.pack(">h", version) + s16("consumer") + struct.pack(">i", 5) + s16("range") + s16("m-1")
    if version >= 2:
        out += struct.pack(">q", 123)
    out += struct.pack(">i", 1) + s16("m-1")
    if version >= 3:
        out += s16(None)
    out += s16("c-1") + s16("/10.0.0.1")
    if version >= 1:
        out += struct.pack(">i", 300000)
    out += struct.pack(">i", 10000)
    return out + struct.pack(">i", len(SUBSCRIPTION)) + SUBSCRIPTION + struct.pack(">i", len(ASSIGNMENT)) + ASSIGNMENT


GROUP_KEY = struct.pack(">h", 2) + s16("g1")


def one(lines):
    out = list(read_text(lines))
    assert len(out) == 1
    return out[0]


@pytest.mark.parametrize("kv", [0, 1])
@pytest.mark.parametrize("vv", [0, 1, 2, 3, 4])
def test_offset_commit_versions(kv, vv):
    r = one([f"{commit_key(kv).hex()}\t{commit_value(vv).hex()}"])
    assert isinstance(r, OffsetsRecord), r
    assert (r.key_schema, r.key.group, r.key.topic, r.key.partition) == ("OffsetCommitKey", "g1", "orders", 3)
    assert (r.value_version, r.value.offset, r.value.metadata, r.value.commit_timestamp) == (vv, 42, "meta", 1000)
    assert r.value.leader_epoch == (7 if vv >= 3 else -1)
    assert r.value.expire_timestamp == (2000 if vv == 1 else -1)
    assert not r.trailing


@pytest.mark.parametrize("vv", [0, 1, 2, 3, 4])
def test_group_metadata_versions_and_member_payloads(vv):
    r = one([f"{GROUP_KEY.hex()}:{group_value(vv).hex()}"])
    assert isinstance(r, OffsetsRecord), r
    v = r.value
    assert (r.key.group, v.protocol_type, v.generation, v.protocol, v.leader) == ("g1", "consumer", 5, "range", "m-1")
    assert v.current_state_timestamp == (123 if vv >= 2 else -1)
    (m,) = v.members
    assert (m.member_id, m.group_instance_id, m.client_id, m.client_host) == ("m-1", None, "c-1", "/10.0.0.1")
    assert (m.rebalance_timeout, m.session_timeout) == ((300000 if vv >= 1 else -1), 10000)
    assert (m.subscription, m.assignment) == (SUBSCRIPTION, ASSIGNMENT)
    (p,) = member_payloads(v)
    assert p.subscription.ok and p.subscription.value.data.topics == ("orders",)
    (tp,) = p.assignment.value.data.assigned_partitions
    assert (tp.topic, tp.partitions) == ("orders", (0, 1))


def test_line_formats_and_tombstones():
    key, value = commit_key(1), commit_value(3)
    b64k, b64v = base64.b64encode(key).decode(), base64.b64encode(value).decode()
    lines = [
        "# a comment",
        "",
        f"{key.hex()}\t{value.hex()}",
        f"0x{key.hex()},0x{value.hex()}",
        f"{b64k}:{b64v}",
        f"{key.hex()}   {value.hex()}",
        json.dumps({"key": key.hex(), "value": b64v}),
        json.dumps({"key": b64k, "value": None}),
        f"{GROUP_KEY.hex()}\tnull",
        f"{key.hex()}\t",
    ]
    out = list(read_text(lines))
    assert [o.where for o in out] == [f"line {n}" for n in range(3, 11)]
    assert all(isinstance(o, OffsetsRecord) for o in out)
    assert [o.tombstone for o in out] == [False] * 5 + [True] * 3
    assert {o.value.offset for o in out[:5]} == {42}


@pytest.mark.parametrize(
    "line, where",
    [
        ("zz!!\t00", "key"),  # neither hex nor base64
        ("0001\t", "group"),  # key cut after its version
        (f"{commit_key(1).hex()}\t0009", "version"),  # value version 9 does not exist
        (f"{commit_key(1).hex()}\t{commit_value(3)[:-3].hex()}", "commit_timestamp"),  # truncated value
        (f"{struct.pack('>h', 3).hex()}\t00", "group_id"),  # KIP-848 record type 3: key cut after its type
        (f"{struct.pack('>h', 9).hex()}\t00", "group_id"),  # share group record type 9: key cut after its type
        (f"{struct.pack('>h', 99).hex()}\t00", "version"),  # unknown record type
        ("{not json", ""),
        ("lonelykey", "value"),
    ],
)
def test_malformed_records_are_reported(line, where):
    r = one([line])
    assert isinstance(r, BadRecord) and isinstance(r.error, DecodeError)
    assert r.error.path.split(".")[-1] == where


def test_trailing_bytes_are_kept_not_fatal():
    r = one([f"{commit_key(1).hex()}\t{(commit_value(3) + b'xyz').hex()}"])
    assert isinstance(r, OffsetsRecord) and r.trailing == {"value": b"xyz"}


# -- record batches -------------------------------------------------------------------------------


def zigzag(n: int) -> bytes:
    v = (n << 1) ^ (n >> 63)
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def record(delta: int, key: bytes | None, value: bytes | None, headers=()) -> bytes:
    body = b"\x00" + zigzag(delta * 10) + zigzag(delta)
    for b in (key, value):
        body += zigzag(-1) if b is None else zigzag(len(b)) + b
    body += zigzag(len(headers))
    for hk, hv in headers:
        body += zigzag(len(hk)) + hk + (zigzag(-1) if hv is None else zigzag(len(hv)) + hv)
    return zigzag(len(body)) + body


def batch(
    records: list[bytes],
    *,
    base_offset=100,
    codec=0,
    attributes_extra=0,
    compressed: bytes | None = None,
    producer_id=-1,
) -> bytes:
    payload = b"".join(records) if compressed is None else compressed
    after_crc = (
        struct.pack(
            ">hiqqqhii", codec | attributes_extra, len(records) - 1, 5000, 5000, producer_id, -1, -1, len(records)
        )
        + payload
    )
    crc = crc32c.crc32c(after_crc)
    body = struct.pack(">ibI", 0, 2, crc) + after_crc
    return struct.pack(">qi", base_offset, len(body)) + body


RECORDS = [
    record(0, commit_key(1), commit_value(3), headers=[(b"h", b"v"), (b"n", None)]),
    record(1, GROUP_KEY, group_value(3)),
    record(2, commit_key(1, partition=4), None),
]


def xerial(raw: bytes) -> bytes:  # SnappyOutputStream: magic, version 1, compatible 1, [int32 len, block]*
    half = len(raw) // 2
    blocks = [bytes(cramjam.snappy.compress_raw(p)) for p in (raw[:half], raw[half:])]
    return b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1) + b"".join(struct.pack(">i", len(b)) + b for b in blocks)


COMPRESSORS = {
    "none": (0, lambda raw: None),
    "gzip": (1, gzip.compress),
    "snappy-xerial": (2, xerial),
    "snappy-raw": (2, lambda raw: bytes(cramjam.snappy.compress_raw(raw))),
    "lz4": (3, lambda raw: bytes(cramjam.lz4.compress(raw))),
    "zstd": (4, lambda raw: bytes(cramjam.zstd.compress(raw))),
}


def test_crc32c_is_castagnoli():
    assert crc32c.crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value (RFC 3720 B.4)


@pytest.mark.parametrize("name", list(COMPRESSORS))
def test_segment_with_each_codec(name):
    codec, compress = COMPRESSORS[name]
    raw = b"".join(RECORDS)
    seg = batch(RECORDS, codec=codec, compressed=compress(raw)) + batch([RECORDS[0]], base_offset=103)
    out = list(read_segment(io.BytesIO(seg)))
    assert [o.where for o in out] == ["offset 100", "offset 101", "offset 102", "offset 103"]
    assert all(isinstance(o, OffsetsRecord) and o.crc_ok for o in out)
    assert [o.key_schema for o in out] == ["OffsetCommitKey", "GroupMetadataKey", "OffsetCommitKey", "OffsetCommitKey"]
    assert out[2].tombstone and out[1].value.members[0].subscription == SUBSCRIPTION
    (b, _) = list(read_batches(io.BytesIO(seg)))
    assert b.compression == name.split("-")[0]
    assert next(iter(b.records)).headers == (("h", b"v"), ("n", None))
    assert [r.timestamp for r in b.records] == [5000, 5010, 5020]


def test_crc_mismatch_is_reported():
    seg = batch(RECORDS).replace(b"meta", b"mexa", 1)  # the first record's metadata string
    out = list(read_segment(io.BytesIO(seg)))
    assert isinstance(out[0], BadRecord) and out[0].error.path == "crc" and out[0].where == "batch at byte 0"
    assert len(out) == 4 and all(o.crc_ok is False for o in out[1:])
    assert out[1].value.metadata == "mexa"


def test_control_batch_and_bad_batches():
    marker = record(0, struct.pack(">hh", 0, 1), struct.pack(">hi", 0, 0))
    seg = batch([marker], attributes_extra=0x30, producer_id=77)  # transactional + control
    bad_magic = bytearray(batch(RECORDS, base_offset=200))
    bad_magic[16] = 1
    broken = bytearray(batch(RECORDS, base_offset=300))
    struct.pack_into(">i", broken, 57, 1000)  # record count beyond what the bytes hold (CRC now wrong too)
    seg += bytes(bad_magic) + bytes(broken) + batch([RECORDS[0]], base_offset=400) + b"\x00\x00\x00"
    out = list(read_segment(io.BytesIO(seg)))
    assert isinstance(out[0], ControlMarker) and (out[0].kind, out[0].producer_id) == ("commit", 77)
    assert isinstance(out[1], BadRecord) and out[1].error.path == "magic"
    assert isinstance(out[2], BadRecord) and out[2].error.path == "record_count"
    assert isinstance(out[3], OffsetsRecord) and out[3].where == "offset 400"
    assert isinstance(out[4], BadRecord) and out[4].error.path == "batch_length"  # 3 stray bytes at the end


def test_decompression_limit():
    raw = b"".join(RECORDS) * 1
    seg = batch(RECORDS, codec=4, compressed=bytes(cramjam.zstd.compress(raw)))
    (b,) = read_batches(io.BytesIO(seg), max_decompressed=len(raw) - 1)
    assert b.error.path == "records" and "more than" in b.error.reason


@given(st.binary(max_size=300), st.integers(0, 400))
def test_corrupted_segments_never_crash(noise, at):
    seg = bytearray(batch(RECORDS) + batch([RECORDS[1]], codec=1, compressed=gzip.compress(RECORDS[1])))
    seg[at : at + len(noise)] = noise
    for o in read_segment(io.BytesIO(bytes(seg))):
        assert isinstance(o, (OffsetsRecord, ControlMarker)) or isinstance(o.error, DecodeError)


@given(st.text(max_size=200))
def test_random_text_lines_never_crash(text):
    for o in read_text(text.splitlines()):
        assert isinstance(o, OffsetsRecord) or isinstance(o.error, DecodeError)
