"""Kafka 4's views of its messages (registered into :mod:`codec.catalog` as a plugin).

Kafka 4's RPC bodies (``consumer-group-heartbeat-request``, ...) and ``__consumer_offsets`` records
(``consumer-group-member-metadata-key``/``-value``, ``group-record-key``) are the one message layer's kinds
(:mod:`codec.catalog`); this package gives its RPCs their readable view (:func:`codec.kafka4.pretty.pretty_message`:
a heartbeat's member, epoch, subscription and tasks, a share group's Describe response with the partitions its
members share).
"""

from __future__ import annotations

from ..catalog import register_view
from .common import MESSAGES
from .pretty import pretty_message

__all__: list[str] = []


def _pretty(message: str, version: int, data: bytes, decoded) -> str:
    return pretty_message(message, version, decoded.value, size=len(data), trailing=decoded.trailing)


for _message in MESSAGES:
    register_view(_message, pretty=_pretty)
