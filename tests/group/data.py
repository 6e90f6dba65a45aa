"""The reference material the group tests check against: Kafka's vectors and the real-client captures.

Expected values come only from these files (Kafka's ``data``/``hex``, the captures' recorded fields)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import KAFKA_VECTORS, SHARED, load_jsonl

CAPTURES = SHARED / "captures" / "frames.jsonl"
GROUP_FILES = (
    "JoinGroupRequest.jsonl",
    "JoinGroupResponse.jsonl",
    "SyncGroupRequest.jsonl",
    "SyncGroupResponse.jsonl",
    "ConsumerProtocolSubscription.jsonl",
    "ConsumerProtocolAssignment.jsonl",
    "group_edge.jsonl",
)
CONSUMER_KINDS = ("ConsumerProtocolSubscription", "ConsumerProtocolAssignment")
GROUP_API_KEYS = (11, 12, 13, 14)


def nested_records() -> list[dict]:
    """The group-level records inside nested_streams.jsonl (each a kind/version/data/hex record)."""
    out = []
    for r in load_jsonl(KAFKA_VECTORS / "nested_streams.jsonl"):
        for key in (
            "joinGroupRequest",
            "syncGroupResponse",
            "consumerProtocolSubscription",
            "consumerProtocolAssignment",
        ):
            out.append({**r[key], "id": f"{r['id']}/{key}"})
    return out


def group_records() -> list[dict]:
    """Every record of the group and ConsumerProtocol vector files, plus nested_streams' group layers."""
    return [r for f in GROUP_FILES for r in load_jsonl(KAFKA_VECTORS / f)] + nested_records()


def capture_records() -> list[dict]:
    return load_jsonl(Path(CAPTURES))


def is_reference(r: dict) -> bool:
    """The README marks some mock-broker replies as not a reference."""
    return "NOT a reference" not in r["produced_by"]


def record_id(r: dict) -> str:
    return str(r.get("id") or f"{r['kind']}-v{r['version']}-{r.get('index')}")
