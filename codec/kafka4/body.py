"""Kafka 4 group RPC bodies and ``__consumer_offsets`` record parts: bytes <-> wire models <-> Kafka's JSON — the one
message layer's (:mod:`codec.wire.message`), under the names this package has always had."""

from __future__ import annotations

from ..wire.message import Decoded as DecodedBody
from ..wire.message import decode as decode_body
from ..wire.message import decode_value as decode_model
from ..wire.message import encode as encode_model
from ..wire.message import from_json, to_json

__all__ = ["DecodedBody", "body_from_json", "body_json", "decode_body", "decode_model", "encode_model"]


def body_json(name: str, version: int, model, style: str = "kafka") -> dict:
    return to_json(name, version, model, style)


def body_from_json(name: str, version: int, value, style: str = "kafka"):
    """The wire model of a body's JSON, checked against the schema at ``version``."""
    return from_json(name, version, value, style)
