"""The APIs whose frames this package reads (moved: :mod:`codec.wire.registry` derives them from ``schemas/``;
this module re-exports them while the callers move)."""

from __future__ import annotations

from ..wire.registry import Api, api_for, apis, request_header_version, response_header_version

__all__ = ["Api", "api_for", "apis", "request_header_version", "response_header_version"]
