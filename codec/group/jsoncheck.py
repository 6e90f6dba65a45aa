"""Moved to :mod:`codec.wire.jsoncheck` (the one message layer's JSON checker); re-exported while callers move."""

from __future__ import annotations

from ..wire.jsoncheck import INT_RANGES, MAX_TAG, check_json, describe

__all__ = ["check_json", "describe", "INT_RANGES", "MAX_TAG"]
