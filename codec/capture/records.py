"""Kafka log segments: record batches (magic 2), their compression and their records.

Layout (Kafka's ``DefaultRecordBatch.java`` and ``DefaultRecord.java``)::

    baseOffset int64 | batchLength int32 (bytes after this field) | partitionLeaderEpoch int32 | magic int8
    | crc uint32 (CRC-32C of everything after it) | attributes int16 | lastOffsetDelta int32
    | baseTimestamp int64 | maxTimestamp int64 | producerId int64 | producerEpoch int16 | baseSequence int32
    | recordCount int32 | records (compressed as one block when attributes & 7 is not 0)

    record: length varint | attributes int8 | timestampDelta varlong | offsetDelta varint
            | keyLength varint, key | valueLength varint, value | headerCount varint,
              headers (keyLength varint, key, valueLength varint, value)

Varints are zigzag-encoded; -1 is null. Attributes: bits 0-2 compression (1 gzip, 2 snappy, 3 lz4, 4 zstd),
bit 3 timestamp type, bit 4 transactional, bit 5 control, bit 6 delete horizon. Snappy is xerial's
framed stream (``SnappyOutputStream``) or, as some clients write it, one raw block; LZ4 is the LZ4 frame
format. Decompression stops at ``max_decompressed`` bytes.

:func:`read_batches` reads a segment batch by batch (bounded memory) and yields :class:`RecordBatch` or,
for a batch it cannot read, :class:`BadBatch`; when a batch's length cannot be trusted, or the source cannot
be read further (a truncated or corrupt gzip stream, a read error), reading stops with a :class:`BadBatch`
that skipped nothing.

A batch is checked whole before any of its records is given (every record's framing, the bytes after the
last), but its records are not held: :attr:`RecordBatch.records` reads them one at a time from the batch's
bytes, so a batch of millions of tiny records costs the memory of its bytes, not of its records.

A compressed batch is read when it is one a broker writes; work then stays in proportion to the segment
(``codec.budget``) by what Kafka's writers are:

* its records carry strictly increasing offset deltas, none past the batch's ``lastOffsetDelta``, so it holds
  at most ``lastOffsetDelta + 1`` of them: Kafka's ``MemoryRecordsBuilder`` refuses an offset not above the
  one before ("Illegal offset ... following previous offset"), the group coordinator's batches number their
  records from 0, and the log cleaner keeps the survivors' offsets and the batch's last offset
  (``MemoryRecords.buildRetainedRecordsInto``). A batch of copies of one record — what packs the most records
  into the fewest compressed bytes — is no batch a broker writes; one that does number its records costs the
  compressor at least a byte or so a record (measured: at most 2.1 records per compressed byte, zstd at its
  highest level over a million commits of one partition);
* its records decompress to at most :data:`DECOMPRESSION_FLOOR` bytes — Kafka's default ``max.message.bytes``
  (``ServerLogConfigs.MAX_MESSAGE_BYTES_DEFAULT``, 1 MiB and 12 bytes): the group coordinator fills a batch
  with writes while their uncompressed size fits the topic's ``max.message.bytes``
  (``CoordinatorRuntime``: the batch's write limit, ``MemoryRecordsBuilder.hasRoomFor`` estimating compression
  at a ratio of 1) — or, beyond it, to at most :data:`DECOMPRESSION_RATIO` times its compressed bytes: one
  write larger than that alone in its batch, an offset commit of that many partitions (measured: at most 93
  times, zstd at its highest level). Past both, the batch is a :class:`BadBatch` saying so, its records not
  read; so is one whose records break the numbering above.

Kafka itself bounds no decompressed size (``DefaultRecordBatch`` streams a compressed batch's records, each
bounded by its own length varint): these rules refuse only batches no broker writes, or, past the floor and
the ratio, ones whose records would cost far more than their bytes (an offset commit whose metadata strings
are kilobytes of one character; ``offset.metadata.max.bytes`` allows 4,096).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import cramjam
import crc32c

from ..errors import DecodeError, LimitExceededError, TruncatedError
from .bytestream import ByteStream

__all__ = [
    "Record",
    "RecordBatch",
    "BatchRecords",
    "BadBatch",
    "read_batches",
    "decode_batch",
    "decompress",
    "COMPRESSION",
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_DECOMPRESSED",
    "DECOMPRESSION_RATIO",
    "DECOMPRESSION_FLOOR",
]

COMPRESSION = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
DEFAULT_MAX_BATCH = 64 * 1024 * 1024
DEFAULT_MAX_DECOMPRESSED = 256 * 1024 * 1024
#: How many times its compressed size a batch's records may decompress to, beyond the floor (Kafka's default
#: max.message.bytes, 1 MiB + 12: the module docstring).
DECOMPRESSION_RATIO, DECOMPRESSION_FLOOR = 128, 1024 * 1024 + 12
_LOG_OVERHEAD = 12
_HEADER = struct.Struct(">qiibIhiqqqhii")  # through recordCount: 61 bytes
_XERIAL = b"\x82SNAPPY\x00"
_MSG = "RecordBatch"


@dataclass(frozen=True, slots=True)
class Record:
    """One record: its absolute ``offset`` and ``timestamp``; key and value (None = null); headers."""

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]


@dataclass(frozen=True, slots=True)
class RecordBatch:
    """A magic-2 batch: its header fields, whether its CRC matched, and its records."""

    position: int  # byte position of the batch in the segment
    base_offset: int
    partition_leader_epoch: int
    magic: int
    crc: int
    crc_ok: bool
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records: BatchRecords

    @property
    def compression(self) -> str:
        return COMPRESSION.get(self.attributes & 7, f"unknown({self.attributes & 7})")

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & 0x20)

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & 0x10)


@dataclass(frozen=True, slots=True)
class BadBatch:
    """A batch at ``position`` that could not be read; ``skipped`` bytes were passed over (0 when
    reading had to stop)."""

    position: int
    error: DecodeError
    skipped: int


def _fail(reason: str, offset: int | None, path: str, cls: type[DecodeError] = DecodeError) -> DecodeError:
    return cls(reason, message=_MSG, offset=offset, path=path)


def _read(f: ByteStream, n: int) -> bytes:
    parts, have = [], 0
    while have < n:
        b = f.read(min(1 << 20, n - have))
        if not b:
            break
        parts.append(b)
        have += len(b)
    return b"".join(parts)


def read_batches(
    source: str | Path | ByteStream,
    *,
    max_batch: int = DEFAULT_MAX_BATCH,
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
) -> Iterator[RecordBatch | BadBatch]:
    """Every batch of a log segment, in file order."""
    if isinstance(source, (str, Path)):
        with open(source, "rb") as f:
            yield from read_batches(f, max_batch=max_batch, max_decompressed=max_decompressed)
        return
    pos = 0
    while True:
        try:
            head = _read(source, _LOG_OVERHEAD)
        except _READ_ERRORS as e:
            yield _unreadable(pos, e)
            return
        if not head:
            return
        if len(head) < _LOG_OVERHEAD:
            yield BadBatch(
                pos,
                _fail(
                    f"segment ends inside a batch header (need 12, have {len(head)})",
                    pos,
                    "batch_length",
                    TruncatedError,
                ),
                0,
            )
            return
        length = struct.unpack_from(">i", head, 8)[0]
        if length == 0 and head == bytes(12):  # a preallocated segment's zero tail
            return
        if length < 5 or length > max_batch:
            yield BadBatch(
                pos,
                _fail(
                    f"batch length {length} is out of bounds [5, {max_batch}]",
                    pos + 8,
                    "batch_length",
                    LimitExceededError,
                ),
                0,
            )
            return
        try:
            body = _read(source, length)
        except _READ_ERRORS as e:
            yield _unreadable(pos, e)
            return
        if len(body) < length:
            yield BadBatch(
                pos,
                _fail(
                    f"segment ends inside a batch (need {length}, have {len(body)})",
                    pos + _LOG_OVERHEAD + len(body),
                    "records",
                    TruncatedError,
                ),
                0,
            )
            return
        try:
            batch = decode_batch(head + body, position=pos, max_decompressed=max_decompressed)
        except DecodeError as e:
            yield BadBatch(pos, e, _LOG_OVERHEAD + length)
        else:
            yield batch
        pos += _LOG_OVERHEAD + length


_READ_ERRORS = (OSError, EOFError, zlib.error)  # a cut gzip stream (EOFError), a corrupt one, a failing disk


def _unreadable(pos: int, e: BaseException) -> BadBatch:
    if isinstance(e, EOFError):
        why = "the compressed stream is cut short (truncated gzip)"
    elif isinstance(e, zlib.error):
        why = f"the compressed stream is corrupt ({e})"
    else:
        why = str(e) or type(e).__name__
    return BadBatch(pos, _fail(f"cannot be read {f'past byte {pos}' if pos else 'at all'}: {why}", None, ""), 0)


def decode_batch(data: bytes, *, position: int = 0, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED) -> RecordBatch:
    """Decode one whole batch (``data`` is exactly the batch). Offsets in errors count from
    ``position``; a CRC mismatch does not raise (see ``crc_ok``). A compressed batch is read only when it is
    one a broker writes (see the module docstring)."""
    if len(data) < _HEADER.size:
        magic = data[16] if len(data) > 16 else None
        if magic is not None and magic != 2:
            raise _fail(f"message format v{magic} (magic {magic}) is not supported, only v2", position + 16, "magic")
        raise _fail(
            f"truncated (need {_HEADER.size}, have {len(data)})", position + len(data), "header", TruncatedError
        )
    (base_offset, _length, epoch, magic, crc, attributes, last_delta, base_ts, max_ts, pid, pepoch, base_seq, count) = (
        _HEADER.unpack_from(data)
    )
    if magic != 2:
        raise _fail(f"message format v{magic} (magic {magic}) is not supported, only v2", position + 16, "magic")
    crc_ok = crc32c.crc32c(memoryview(data)[21:]) == crc
    codec = attributes & 7
    payload = data[_HEADER.size :]
    base: int | None = position + _HEADER.size  # where the records start in the file
    numbered: int | None = None  # the last offset delta a record may carry (compressed batches)
    if codec:
        if codec not in COMPRESSION:
            raise _fail(f"unknown compression codec {codec}", position + 21, "attributes")
        if count > last_delta + 1:
            raise _fail(
                f"{count:,} records in a batch whose last offset delta is {last_delta:,}: a broker numbers a "
                "batch's records with increasing offsets up to its last (MemoryRecordsBuilder); its records are "
                "not read",
                position + 57,
                "record_count",
                LimitExceededError,
            )
        numbered = last_delta
        ratio_limit = max(DECOMPRESSION_FLOOR, DECOMPRESSION_RATIO * len(payload))
        payload = decompress(
            codec,
            payload,
            min(max_decompressed, ratio_limit),
            offset=base,
            why=""
            if max_decompressed <= ratio_limit
            else f" (the most a broker's batch holds, Kafka's default max.message.bytes {DECOMPRESSION_FLOOR:,}, "
            f"or {DECOMPRESSION_RATIO} times its {len(payload):,} bytes: codec.budget; its records are not read)",
        )
        base = None  # offsets inside decompressed bytes are not file offsets
    if count < 0 or count > len(payload) // 7 + 1:  # a record takes at least 7 bytes
        raise _fail(
            f"record count {count} exceeds what {len(payload)} bytes can hold",
            position + 57,
            "record_count",
            LimitExceededError,
        )
    records = BatchRecords(payload, count, base_offset, base_ts, base, numbered)
    _walk(records)  # every record's framing, before any is given
    return RecordBatch(
        position,
        base_offset,
        epoch,
        magic,
        crc,
        crc_ok,
        attributes,
        last_delta,
        base_ts,
        max_ts,
        pid,
        pepoch,
        base_seq,
        records,
    )


class _Reader:
    __slots__ = ("data", "pos", "base")

    def __init__(self, data: bytes, base: int | None) -> None:
        self.data, self.pos, self.base = data, 0, base

    def where(self, pos: int | None = None) -> int | None:
        p = self.pos if pos is None else pos
        return None if self.base is None else self.base + p

    def varint(self, path: str, max_bytes: int = 5) -> int:
        start, value, shift = self.pos, 0, 0
        for _ in range(max_bytes):
            if self.pos >= len(self.data):
                raise DecodeError("truncated (need 1, have 0)", message=_MSG, offset=self.where(), path=path)
            b = self.data[self.pos]
            self.pos += 1
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return (value >> 1) ^ -(value & 1)
            shift += 7
        raise DecodeError(f"varint longer than {max_bytes} bytes", message=_MSG, offset=self.where(start), path=path)

    def take(self, n: int, path: str) -> bytes:
        if n > len(self.data) - self.pos:
            raise TruncatedError(
                f"truncated (need {n}, have {len(self.data) - self.pos})", message=_MSG, offset=self.where(), path=path
            )
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def nullable(self, path: str) -> bytes | None:
        n = self.varint(path)
        if n < -1:
            raise DecodeError(f"negative length {n}", message=_MSG, offset=self.where(), path=path)
        return None if n == -1 else self.take(n, path)


@dataclass(frozen=True, slots=True)
class BatchRecords:
    """The records of a batch, read one at a time from its (decompressed) bytes each time they are iterated."""

    payload: bytes
    count: int
    base_offset: int
    base_timestamp: int
    base: int | None  # the file offset of the payload (None when it was decompressed)
    #: the last offset delta a record may carry, each above the one before (checked for compressed batches)
    last_delta: int | None = None

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[Record]:
        return _records(self, True)


def _walk(records: BatchRecords) -> None:
    """Check the framing of every record (raises DecodeError), making none."""
    for _ in _records(records, False):
        pass


def _records(batch: BatchRecords, make: bool) -> Iterator[Record]:
    payload, count, base_offset, base_ts = batch.payload, batch.count, batch.base_offset, batch.base_timestamp
    r = _Reader(payload, batch.base)
    last, previous = batch.last_delta, -1
    for i in range(count):
        p = f"records[{i}]"
        length = r.varint(p + ".length")
        start = r.pos
        if length < 0 or length > len(payload) - start:
            raise TruncatedError(
                f"record length {length} exceeds the {len(payload) - start} bytes left",
                message=_MSG,
                offset=r.where(),
                path=p + ".length",
            )
        r.take(1, p + ".attributes")
        ts_delta = r.varint(p + ".timestamp_delta", 10)
        offset_delta = r.varint(p + ".offset_delta")
        if last is not None:
            if not previous < offset_delta <= last:
                raise DecodeError(
                    f"offset delta {offset_delta} after {previous} (the batch's last is {last}): a broker numbers a "
                    "batch's records with increasing offsets up to its last (MemoryRecordsBuilder); its records are "
                    "not read",
                    message=_MSG,
                    offset=r.where(),
                    path=p + ".offset_delta",
                )
            previous = offset_delta
        key = r.nullable(p + ".key")
        value = r.nullable(p + ".value")
        n_headers = r.varint(p + ".header_count")
        if n_headers < 0 or n_headers > (start + length - r.pos) // 2:
            raise LimitExceededError(
                f"header count {n_headers} exceeds what the record can hold",
                message=_MSG,
                offset=r.where(),
                path=p + ".header_count",
            )
        headers = []
        for j in range(n_headers):
            hk = r.nullable(f"{p}.headers[{j}].key")
            if hk is None:
                raise DecodeError("null header key", message=_MSG, offset=r.where(), path=f"{p}.headers[{j}].key")
            try:
                name = hk.decode("utf-8")
            except UnicodeDecodeError:
                raise DecodeError(
                    "header key is not UTF-8", message=_MSG, offset=r.where(), path=f"{p}.headers[{j}].key"
                ) from None
            headers.append((name, r.nullable(f"{p}.headers[{j}].value")))
        if r.pos != start + length:
            raise DecodeError(
                f"record length {length} does not match its fields ({r.pos - start})",
                message=_MSG,
                offset=r.where(start),
                path=p + ".length",
            )
        if make:
            yield Record(base_offset + offset_delta, base_ts + ts_delta, key, value, tuple(headers))
    if r.pos != len(payload):
        raise DecodeError(
            f"{len(payload) - r.pos} bytes after the last of {count} records",
            message=_MSG,
            offset=r.where(),
            path="records",
        )


def decompress(
    codec: int, data: bytes, limit: int = DEFAULT_MAX_DECOMPRESSED, *, offset: int | None = None, why: str = ""
) -> bytes:
    """Decompress a batch's records with Kafka's codec number, refusing output beyond ``limit`` bytes (``why``:
    what that limit is, for the error)."""
    name = COMPRESSION.get(codec, str(codec))
    try:
        if codec == 1:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out = d.decompress(data, limit + 1)
            if len(out) > limit:
                raise _too_big(name, limit, offset, why)
            if not d.eof:
                raise _fail("gzip stream is truncated", offset, "records", TruncatedError)
            return out
        if codec == 2:
            return _snappy(data, limit, offset, why)
        if codec in (3, 4):
            return _bounded(cramjam.lz4 if codec == 3 else cramjam.zstd, data, limit, name, offset, why)
    except (zlib.error, cramjam.DecompressionError) as e:
        raise _fail(f"{name} data is corrupt: {e}", offset, "records") from None
    raise _fail(f"unknown compression codec {codec}", offset, "attributes")


def _too_big(name: str, limit: int, offset: int | None, why: str = "") -> DecodeError:
    return _fail(f"{name} data decompresses to more than {limit} bytes{why}", offset, "records", LimitExceededError)


def _bounded(module, data: bytes, limit: int, name: str, offset: int | None, why: str) -> bytes:
    """cramjam's ``decompress_into`` fails on a full buffer: grow it geometrically up to ``limit``."""
    size = min(limit, max(1 << 16, 4 * len(data)))
    while True:
        buf = bytearray(size)
        try:
            n = module.decompress_into(data, buf)
            return bytes(buf[:n])
        except cramjam.DecompressionError as e:
            if "buffer" not in str(e):
                raise
            if size >= limit:
                raise _too_big(name, limit, offset, why) from None
            del buf
            size = min(limit, size * 4)


def _snappy(data: bytes, limit: int, offset: int | None, why: str) -> bytes:
    if not data.startswith(_XERIAL):
        return _snappy_block(data, limit, offset, why)
    pos, parts, total = 16, [], 0  # magic, int32 version, int32 compatible version
    if len(data) < pos:
        raise _fail("xerial snappy header is truncated", offset, "records", TruncatedError)
    while pos < len(data):
        if len(data) - pos < 4:
            raise _fail("xerial snappy block length is truncated", offset, "records", TruncatedError)
        n = struct.unpack_from(">i", data, pos)[0]
        if n < 0 or n > len(data) - pos - 4:
            raise _fail(f"xerial snappy block length {n} exceeds the data", offset, "records", TruncatedError)
        block = _snappy_block(data[pos + 4 : pos + 4 + n], limit - total, offset, why)
        parts.append(block)
        total += len(block)
        pos += 4 + n
    return b"".join(parts)


def _snappy_block(block: bytes, limit: int, offset: int | None, why: str) -> bytes:
    size = cramjam.snappy.decompress_raw_len(block)
    if size > limit:
        raise _too_big("snappy", limit, offset, why)
    buf = bytearray(size)
    n = cramjam.snappy.decompress_raw_into(block, buf)
    return bytes(buf[:n])
