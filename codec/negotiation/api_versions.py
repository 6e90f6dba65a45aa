"""API version choice: which version of each group API a client and a broker speak, and the header
versions that follow (wire-facts §7: request header v2 when the API version is flexible, else v1;
response header v1 when flexible, else v0)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..group.messages import MESSAGES as _GROUP_MESSAGES
from ..wire.registry import apis, request_header_version, response_header_version

__all__ = ["GROUP_APIS", "ApiChoice", "choose_api_versions", "header_versions"]

#: API key -> (name, its first flexible version) of the classic group protocol's APIs (the schemas': codec.wire.registry)
GROUP_APIS: dict[int, tuple[str, int]] = {
    k: (a.name, a.flexible_from) for k, a in apis().items() if a.request in _GROUP_MESSAGES
}


def header_versions(api_key: int, version: int) -> tuple[int, int]:
    """(request header version, response header version) for one API version: v2 and v1 at a flexible version, v1 and
    v0 before (ApiVersionsResponse always v0, so any client can read it: the registry's)."""
    if api_key not in apis():
        return 1, 0
    return request_header_version(api_key, version), response_header_version(api_key, version)


@dataclass(frozen=True)
class ApiChoice:
    api_key: int
    name: str
    version: int | None  # None: no common version
    request_header: int | None
    response_header: int | None
    explanation: str


def choose_api_versions(
    client: Mapping[int, tuple[int, int]], broker: Mapping[int, tuple[int, int]], apis=tuple(GROUP_APIS)
) -> list[ApiChoice]:
    """For each API: the highest version both sides support (what Kafka's clients pick from an
    ApiVersions response), with an explanation when there is none."""
    out = []
    for key in apis:
        name = GROUP_APIS.get(key, (f"api {key}",))[0]
        if key not in client or key not in broker:
            side = "client" if key not in client else "broker"
            out.append(ApiChoice(key, name, None, None, None, f"the {side} does not support {name} at all"))
            continue
        (cmin, cmax), (bmin, bmax) = client[key], broker[key]
        lo, hi = max(cmin, bmin), min(cmax, bmax)
        if lo > hi:
            out.append(
                ApiChoice(
                    key,
                    name,
                    None,
                    None,
                    None,
                    f"no common version: client {cmin}-{cmax}, broker {bmin}-{bmax} "
                    "(the client fails with UnsupportedVersionException)",
                )
            )
            continue
        req, resp = header_versions(key, hi)
        out.append(
            ApiChoice(
                key,
                name,
                hi,
                req,
                resp,
                f"v{hi} = min(client max {cmax}, broker max {bmax}); request header v{req}, response header v{resp}",
            )
        )
    return out
