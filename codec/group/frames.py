"""Request and response frames: int32 size, header, body (wire-facts §7).

A frame on the wire is an int32 size covering header and body. The functions here take and return
the frame *without* that size by default (as frames.jsonl stores them); ``size_prefixed=True`` reads
or writes it too. Offsets in errors count from the first byte after the size.

The request header is v2 when the request's API version is flexible, else v1; the response header v1
when flexible, else v0. A response does not say which API it answers: decoding one needs the API key
and version of its request (see :class:`codec.group.stream.Connection`).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from ..errors import DecodeError, EncodeError, TruncatedError
from ..wire.builder import decode_wire, encode_wire, wire_class
from ..wire.lowering import FIXED
from ..wire.registry import Api, api_for, request_header_version, response_header_version
from ..wire.schema import load_message
from .nested import flatten_body, nest_body

__all__ = [
    "RequestFrame",
    "ResponseFrame",
    "decode_request_frame",
    "decode_response_frame",
    "encode_request_frame",
    "encode_response_frame",
    "refused_error_code",
    "request_frame",
    "response_frame",
    "size_prefix",
    "strip_size_prefix",
]

_SIZE = struct.Struct(">i")
_API = struct.Struct(">hh")


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestFrame:
    """A request: its header (``RequestHeaderData``), its body (the request's wire model, with nested
    layers when decoded with ``nested=True``; bytes for an API this package only frames) and any bytes
    after the body (kept so that re-encoding reproduces the frame)."""

    header: Any
    body: Any
    trailing: bytes = b""

    @property
    def api_key(self) -> int:
        return self.header.request_api_key

    @property
    def api_version(self) -> int:
        return self.header.request_api_version

    @property
    def correlation_id(self) -> int:
        return self.header.correlation_id

    @property
    def client_id(self) -> str | None:
        return self.header.client_id

    @property
    def api(self) -> Api:
        return api_for(self.api_key)

    @property
    def header_version(self) -> int:
        return request_header_version(self.api_key, self.api_version)


@dataclass(frozen=True, slots=True, kw_only=True)
class ResponseFrame:
    """A response, with the API key and version of the request it answers."""

    api_key: int
    api_version: int
    header: Any
    body: Any
    trailing: bytes = b""

    @property
    def correlation_id(self) -> int:
        return self.header.correlation_id

    @property
    def api(self) -> Api:
        return api_for(self.api_key)

    @property
    def header_version(self) -> int:
        return response_header_version(self.api_key, self.api_version)


def size_prefix(frame: bytes) -> bytes:
    """``frame`` with its int32 size in front."""
    return _SIZE.pack(len(frame)) + frame


def strip_size_prefix(data: bytes, what: str = "frame") -> bytes:
    """The frame after its int32 size; the size must cover exactly the rest."""
    if len(data) < 4:
        raise TruncatedError(f"truncated (need 4, have {len(data)})", message=what, offset=0, path="size")
    (size,) = _SIZE.unpack_from(data)
    if size != len(data) - 4:
        raise DecodeError(
            f"size {size} does not match the {len(data) - 4} bytes that follow", message=what, offset=0, path="size"
        )
    return data[4:]


def _body(schema: str | None, version: int, data: bytes, start: int):
    if schema is None:
        return data[start:], b""
    body, end = decode_wire(schema, version, data, start=start)
    return body, data[end:]


def decode_request_frame(
    data: bytes | bytearray | memoryview,
    *,
    nested: bool = True,
    size_prefixed: bool = False,
    protocol_type: str | None = None,
    protocol_name: str | None = None,
) -> RequestFrame:
    """Decode a request frame; with ``nested`` also every ConsumerProtocol and Streams (or, in a Connect
    group, Connect) layer inside it.

    ``protocol_type``/``protocol_name`` help the nested decode where the request does not carry them
    (SyncGroup before v5: e.g. the JoinGroup request's ProtocolType, the JoinGroup response's ProtocolName).
    Raises DecodeError for the header and body; nested layers that fail stay bytes with the reason."""
    data = bytes(data)
    base = 0
    if size_prefixed:
        data, base = strip_size_prefix(data, "request frame"), 4
    try:
        if len(data) < 4:
            raise TruncatedError(
                f"truncated (need 4, have {len(data)})",
                message="RequestHeader",
                offset=0,
                path="request_api_key" if len(data) < 2 else "request_api_version",
            )
        api_key, api_version = _API.unpack_from(data)
        api = api_for(api_key)
        api.check_version(api_version)
        hv = request_header_version(api_key, api_version)
        header, hend = decode_wire("RequestHeader", hv, data)
        body, trailing = _body(api.request, api_version, data, hend)
    except DecodeError as e:
        raise e.with_context(offset_base=base)
    if nested and api.request is not None:
        body = nest_body(api.request, body, protocol_type=protocol_type, protocol_name=protocol_name)
    return RequestFrame(header=header, body=body, trailing=trailing)


def decode_response_frame(
    data: bytes | bytearray | memoryview,
    api_key: int,
    api_version: int,
    *,
    nested: bool = True,
    size_prefixed: bool = False,
    protocol_type: str | None = None,
    protocol_name: str | None = None,
) -> ResponseFrame:
    """Decode a response frame to a request of ``api_key`` at ``api_version``.

    ``protocol_type``/``protocol_name`` help the nested decode where the response does not carry them
    (JoinGroup before v7, SyncGroup before v5): e.g. the request's ProtocolType, the JoinGroup
    response's ProtocolName."""
    data = bytes(data)
    base = 0
    if size_prefixed:
        data, base = strip_size_prefix(data, "response frame"), 4
    api = api_for(api_key, message="ResponseHeader", offset=None)
    try:
        api.check_version(api_version, message=api.response, offset=None)
        hv = response_header_version(api_key, api_version)
        header, hend = decode_wire("ResponseHeader", hv, data)
        try:
            body, trailing = _body(api.response, api_version, data, hend)
        except DecodeError:
            if api_key != 18 or api_version == 0:
                raise
            # Kafka's ApiVersionsResponse.parse: a broker that does not serve the request's version answers
            # UNSUPPORTED_VERSION in v0's layout, and a reader that fails at the request's version reads v0
            body, trailing = _body(api.response, 0, data, hend)
    except DecodeError as e:
        raise e.with_context(offset_base=base)
    if nested and api.response is not None:
        body = nest_body(api.response, body, protocol_type=protocol_type, protocol_name=protocol_name)
    return ResponseFrame(api_key=api_key, api_version=api_version, header=header, body=body, trailing=trailing)


def refused_error_code(data: bytes, api_key: int, api_version: int, error: DecodeError) -> int | None:
    """The ErrorCode of a response frame (without its size) that :func:`decode_response_frame` refused with
    ``error``, when the refusal lies past it and every body field before it has a fixed width (the schema says
    where it is): a SyncGroup answer whose assignment is null -- librdkafka's mock writes one with its error --
    still says its error. None when the frame cannot tell."""
    api = api_for(api_key)
    if api.response is None or error.offset is None:
        return None
    try:
        _, pos = decode_wire("ResponseHeader", response_header_version(api_key, api_version), data)
    except DecodeError:
        return None
    for f in load_message(api.response).root.fields_at(api_version):
        if f.name == "ErrorCode" and f.type == "int16":
            if error.offset < pos + 2 or len(data) < pos + 2:
                return None
            return int.from_bytes(data[pos : pos + 2], "big", signed=True)
        if f.type not in FIXED:
            return None
        pos += FIXED[f.type]
    return None


def _encode_body(schema: str | None, version: int, body) -> bytes:
    if schema is None:
        if not isinstance(body, (bytes, bytearray)):
            raise EncodeError("this API's body is written as bytes only")
        return bytes(body)
    return encode_wire(schema, version, flatten_body(schema, body))


def encode_request_frame(frame: RequestFrame, *, size_prefixed: bool = False) -> bytes:
    """Header (v1/v2 by flexibility), body (nested layers encoded first), trailing bytes."""
    api = api_for(frame.api_key)
    out = (
        encode_wire("RequestHeader", frame.header_version, frame.header)
        + _encode_body(api.request, frame.api_version, frame.body)
        + frame.trailing
    )
    return size_prefix(out) if size_prefixed else out


def encode_response_frame(frame: ResponseFrame, *, size_prefixed: bool = False) -> bytes:
    api = api_for(frame.api_key)
    out = (
        encode_wire("ResponseHeader", frame.header_version, frame.header)
        + _encode_body(api.response, frame.api_version, frame.body)
        + frame.trailing
    )
    return size_prefix(out) if size_prefixed else out


def request_frame(api_key: int, api_version: int, correlation_id: int, client_id: str | None, body) -> RequestFrame:
    """A request frame model from its parts (the header built for you)."""
    header = wire_class("RequestHeader", "RequestHeader")(
        request_api_key=api_key, request_api_version=api_version, correlation_id=correlation_id, client_id=client_id
    )
    return RequestFrame(header=header, body=body)


def response_frame(api_key: int, api_version: int, correlation_id: int, body) -> ResponseFrame:
    header = wire_class("ResponseHeader", "ResponseHeader")(correlation_id=correlation_id)
    return ResponseFrame(api_key=api_key, api_version=api_version, header=header, body=body)
