"""Moved to :mod:`codec.wire.records` (every group's ``__consumer_offsets`` records, one framing); re-exported while
callers move."""

from __future__ import annotations

from ..wire.records import (
    decode_record,
    decode_record_key,
    decode_record_value,
    encode_record,
    encode_record_key,
    encode_record_value,
    record_schemas,
)

__all__ = [
    "decode_record",
    "decode_record_key",
    "decode_record_value",
    "encode_record",
    "encode_record_key",
    "encode_record_value",
    "record_schemas",
]
