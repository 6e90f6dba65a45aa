"""Compressed ``__consumer_offsets`` batches as brokers write them are read whole; only what no broker writes is not.

The batches are written in the shape Kafka's writers give them (``MemoryRecordsBuilder`` as the group coordinator
uses it): offset deltas 0, 1, 2, ... (after compaction, the survivors' with the batch's last offset delta kept),
timestamp deltas 0 (one append time), OffsetCommit keys and values encoded by this codec's schemas of Kafka's
record JSON. Issue #39's reproducer: 10,000 commits of one idle topic (the same partition and offset, committed
again and again, as an idle consumer's auto-commit does; the coordinator runtime batches writes while their
uncompressed size fits ``max.message.bytes``) under zstd — refused whole by the old rule (one record per 4 bytes
of the segment).
"""

from __future__ import annotations

import gzip
import io
import struct

import cramjam
import crc32c
import pytest

from codec.capture.offsets import OffsetsRecord, read_segment
from codec.capture.records import DECOMPRESSION_FLOOR, DECOMPRESSION_RATIO, BadBatch, RecordBatch, read_batches
from codec.kafka4 import encode_record

CODECS = {
    "gzip": (1, lambda b: gzip.compress(b, mtime=0)),
    "snappy": (2, lambda b: bytes(cramjam.snappy.compress_raw(b))),
    "lz4": (3, lambda b: bytes(cramjam.lz4.compress(b))),
    "zstd": (4, lambda b: bytes(cramjam.zstd.compress(b, level=3))),
}
T = 1_700_000_000_000


def _varint(n: int) -> bytes:
    v = (n << 1) ^ (n >> 63)
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _record(delta: int, key: bytes, value: bytes | None) -> bytes:
    body = b"\x00" + _varint(0) + _varint(delta) + _varint(len(key)) + key
    body += (_varint(-1) if value is None else _varint(len(value)) + value) + _varint(0)
    return _varint(len(body)) + body


def commit(group: str, topic: str, partition: int, offset: int, metadata: str = "") -> tuple[bytes, bytes]:
    key, value = encode_record(
        {
            "record": "OffsetCommit",
            "recordType": 1,
            "key": {"group": group, "topic": topic, "partition": partition},
            "valueVersion": 3,
            "value": {"offset": offset, "leaderEpoch": 5, "metadata": metadata, "commitTimestamp": T},
        }
    )
    assert value is not None
    return key, value


def batch(
    records: list[tuple[bytes, bytes | None]],
    codec: str,
    *,
    deltas: list[int] | None = None,
    last: int | None = None,
    base: int = 0,
) -> bytes:
    """One magic-2 batch as a broker writes it (``deltas``: the records' offset deltas, 0, 1, ... unless given;
    ``last``: its last offset delta, the last record's unless given)."""
    deltas = list(range(len(records))) if deltas is None else deltas
    last = deltas[-1] if last is None else last
    raw = b"".join(_record(d, k, v) for d, (k, v) in zip(deltas, records))
    number, compress = CODECS[codec]
    after = struct.pack(">hiqqqhii", number, last, T, T, -1, -1, -1, len(records)) + compress(raw)
    body = struct.pack(">ibI", 0, 2, crc32c.crc32c(after)) + after
    return struct.pack(">qi", base, len(body)) + body


def _read(seg: bytes) -> list:
    return list(read_segment(io.BytesIO(seg)))


@pytest.mark.parametrize("codec", list(CODECS))
@pytest.mark.parametrize("n", [1_000, 10_000])
def test_an_idle_topics_commits_are_read_whole(codec, n):
    seg = batch([commit("payments", "orders", 0, 4242)] * n, codec)
    out = _read(seg)
    assert len(out) == n and all(isinstance(r, OffsetsRecord) for r in out)
    assert {(r.key.topic, r.key.partition, r.value.offset) for r in out} == {("orders", 0, 4242)}
    assert [r.where for r in out[:2]] == ["offset 0", "offset 1"]


def test_many_partitions_and_a_compacted_batch():
    """An offset commit of 5,000 partitions; and the same batch after compaction kept every third record (the
    survivors' offsets and the batch's last offset delta kept)."""
    records = [commit("g", "clicks", p, 7) for p in range(5_000)]
    assert len(_read(batch(records, "zstd"))) == 5_000
    kept = list(range(0, 5_000, 3))
    out = _read(batch([records[i] for i in kept], "zstd", deltas=kept, last=4_999))
    assert [r.key.partition for r in out] == kept


def test_the_issues_reproducer_through_capture(tmp_path, capsys):
    from codec.cli import main

    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(batch([commit("payments", "orders", 0, 4242)] * 10_000, "zstd"))
    assert main(["capture", str(path)]) == 0
    text = capsys.readouterr().out
    assert "offset commits payments: 10,000" in text and "bad" not in text


def test_copies_of_one_record_are_no_batch_a_broker_writes():
    """What packs the most records into the fewest compressed bytes: one record again and again, offset delta 0."""
    n = 20_000  # (within the floor: the numbering refuses them, not the size)
    rec = commit("g", "t", 0, 1)
    (bad,) = list(read_batches(io.BytesIO(batch([rec] * n, "zstd", deltas=[0] * n, last=n - 1))))
    assert isinstance(bad, BadBatch) and bad.error.path == "records[1].offset_delta"
    assert "a broker numbers a batch's records with increasing offsets" in bad.error.reason
    (bad,) = list(read_batches(io.BytesIO(batch([rec] * 3, "gzip", deltas=[0, 2, 2], last=5))))
    assert isinstance(bad, BadBatch) and bad.error.path == "records[2].offset_delta"


def test_more_records_than_offsets_is_refused_before_decompressing():
    (bad,) = list(read_batches(io.BytesIO(batch([commit("g", "t", 0, 1)] * 10, "zstd", last=5))))
    assert (
        isinstance(bad, BadBatch) and bad.error.path == "record_count" and "last offset delta is 5" in bad.error.reason
    )


def test_the_decompression_bound_is_kafkas_batch_then_the_ratio():
    """Records decompressing to the floor (Kafka's default max.message.bytes) are read however compressible;
    past it, at most DECOMPRESSION_RATIO times the compressed bytes."""
    assert DECOMPRESSION_FLOOR == 1024 * 1024 + 12  # ServerLogConfigs.MAX_MESSAGE_BYTES_DEFAULT
    md = "x" * 4000  # offset.metadata.max.bytes allows 4,096
    fits = (DECOMPRESSION_FLOOR - 100) // len(_record(0, *commit("g", "t", 0, 1, md)))
    (ok,) = list(read_batches(io.BytesIO(batch([commit("g", "t", 0, 1, md)] * fits, "zstd"))))
    assert isinstance(ok, RecordBatch) and len(ok.records) == fits
    seg = batch([commit("g", "t", 0, 1, md)] * (fits * 3), "zstd")
    (bad,) = list(read_batches(io.BytesIO(seg)))
    assert isinstance(bad, BadBatch) and bad.error.path == "records"
    assert f"{DECOMPRESSION_RATIO} times its" in bad.error.reason and "max.message.bytes" in bad.error.reason
    one_bomb = batch([(b"\x00\x01" + b"\x00" * 10, b"\x00" * (8 << 20))], "zstd")  # one record of zeros
    (bad,) = list(read_batches(io.BytesIO(one_bomb)))
    assert isinstance(bad, BadBatch) and "decompresses to more than" in bad.error.reason
