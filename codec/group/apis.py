"""The APIs whose frames this package reads, and the header version each API version uses.

Wire-facts §7: a request uses header v2 when its API version is flexible and v1 otherwise; a response
uses header v1 when flexible and v0 otherwise, except ApiVersionsResponse, which is always v0 (a client
must read it before it knows what the broker speaks). The four classic group APIs, Kafka 4's six
(ConsumerGroupHeartbeat 68, ConsumerGroupDescribe 69, ShareGroupHeartbeat 76, ShareGroupDescribe 77,
StreamsGroupHeartbeat 88, StreamsGroupDescribe 89) and the seven a consumer speaks around them (ApiVersions 18,
FindCoordinator 10, Metadata 3, OffsetFetch 9, OffsetCommit 8, ListOffsets 2, Fetch 1) have schemas here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import DecodeError, UnsupportedVersionError
from ..wire.schema import load_message

__all__ = ["Api", "API_KEYS", "api_for", "request_header_version", "response_header_version"]


@dataclass(frozen=True, slots=True)
class Api:
    key: int
    name: str
    request: str | None  # schema name of the request body, None when the body stays bytes
    response: str | None
    bodiless_flexible_from: int | None = None  # the first flexible version of an API without a schema here
    response_header_fixed: int | None = None  # ApiVersions: always response header v0

    @property
    def flexible_from(self) -> int:
        """The first flexible API version (Kafka's ``"flexibleVersions": "N+"``): the request table's, read
        when asked (so a table loaded in place of the real one, as the mutation command does, decides)."""
        if self.request is None:
            if self.bodiless_flexible_from is None:
                raise ValueError(f"{self.name}: an API without a schema here names its first flexible version")
            return self.bodiless_flexible_from
        return load_message(self.request).flexible.low

    def check_version(self, version: int, *, message: str | None = None, offset: int | None = 2) -> None:
        """Refuse an API version the schema does not have (UnsupportedVersionError)."""
        if self.request is None:
            return
        valid = load_message(self.request).valid
        if version not in valid:
            raise UnsupportedVersionError(
                f"{self.name} has no version {version} (valid {valid})",
                message=message or self.request,
                offset=offset,
                path="request_api_version",
            )


def _group(key: int, name: str) -> Api:
    request = f"{name}Request"
    return Api(key, name, request, f"{name}Response")


# The APIs a consumer speaks around its group (Fetch, ListOffsets, Metadata, OffsetCommit, OffsetFetch,
# FindCoordinator, ApiVersions: the behaviour gate's scripted coordinator serves them, codec.conformance.behaviour),
# with their schemas; ApiVersions' response is always behind header v0.
API_KEYS: dict[int, Api] = {
    1: _group(1, "Fetch"),
    2: _group(2, "ListOffsets"),
    3: _group(3, "Metadata"),
    8: _group(8, "OffsetCommit"),
    9: _group(9, "OffsetFetch"),
    10: _group(10, "FindCoordinator"),
    11: _group(11, "JoinGroup"),
    12: _group(12, "Heartbeat"),
    13: _group(13, "LeaveGroup"),
    14: _group(14, "SyncGroup"),
    18: Api(18, "ApiVersions", "ApiVersionsRequest", "ApiVersionsResponse", response_header_fixed=0),
    # Kafka 4's group APIs (KIP-848 consumer groups, KIP-932 share groups, KIP-1071 Streams groups;
    # codec.kafka4), flexible from v0
    68: _group(68, "ConsumerGroupHeartbeat"),
    69: _group(69, "ConsumerGroupDescribe"),
    76: _group(76, "ShareGroupHeartbeat"),
    77: _group(77, "ShareGroupDescribe"),
    88: _group(88, "StreamsGroupHeartbeat"),
    89: _group(89, "StreamsGroupDescribe"),
}


def api_for(api_key: int, *, message: str = "RequestHeader", offset: int | None = 0) -> Api:
    try:
        return API_KEYS[api_key]
    except KeyError:
        known = ", ".join(f"{k} {a.name}" for k, a in sorted(API_KEYS.items()))
        raise DecodeError(
            f"unknown API key {api_key} (known: {known})", message=message, offset=offset, path="request_api_key"
        ) from None


def request_header_version(api_key: int, api_version: int) -> int:
    """2 for a flexible API version, else 1 (wire-facts §7)."""
    return 2 if api_version >= api_for(api_key).flexible_from else 1


def response_header_version(api_key: int, api_version: int) -> int:
    """1 for a flexible API version, else 0; ApiVersions always 0 (wire-facts §7)."""
    api = api_for(api_key)
    if api.response_header_fixed is not None:
        return api.response_header_fixed
    return 1 if api_version >= api.flexible_from else 0
