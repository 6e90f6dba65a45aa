"""API version choice: which version of each group API a client and a broker speak, and the header
versions that follow (wire-facts §7: request header v2 when the API version is flexible, else v1;
response header v1 when flexible, else v0)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

__all__ = ["GROUP_APIS", "ApiChoice", "choose_api_versions", "header_versions"]

# API key -> (name, schema of the request, flexible from version)
GROUP_APIS: dict[int, tuple[str, int]] = {
    11: ("JoinGroup", 6),
    12: ("Heartbeat", 4),
    13: ("LeaveGroup", 4),
    14: ("SyncGroup", 4),
}


def header_versions(api_key: int, version: int) -> tuple[int, int]:
    """(request header version, response header version) for one API version."""
    flexible_from = GROUP_APIS[api_key][1] if api_key in GROUP_APIS else None
    flexible = flexible_from is not None and version >= flexible_from
    if api_key == 18:  # ApiVersionsResponse always uses header v0 so any client can read it
        return (2 if version >= 3 else 1), 0
    return (2, 1) if flexible else (1, 0)


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
