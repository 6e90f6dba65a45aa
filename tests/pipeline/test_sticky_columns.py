"""The members table's ``sticky_partitions`` and ``sticky_generation`` (codec.group.sticky) on the shared captures'
JoinGroup requests, decoded by the executors' function: what each sticky member's user data says, read here off the
bytes by hand (Kafka's layout: StickyAssignor.java's STICKY_ASSIGNOR_USER_DATA_V1); null for other assignors and for
user data Kafka's reader cannot read (kafka-python's)."""

from __future__ import annotations

import struct

import pytest

pytest.importorskip("pyarrow", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")

from tests.conftest import SHARED  # noqa: E402

from .conftest import jsonl  # noqa: E402
from .test_consumers import _decode, join_request_any  # noqa: E402


def _by_hand(metadata: bytes, protocol: str):
    """(previous partitions by topic or None, generation or None) of a subscription's user data, read by hand."""
    (version,) = struct.unpack_from(">h", metadata)
    pos = 2
    n = struct.unpack_from(">i", metadata, pos)[0]
    pos += 4
    for _ in range(n):  # topics
        (k,) = struct.unpack_from(">h", metadata, pos)
        pos += 2 + k
    (n,) = struct.unpack_from(">i", metadata, pos)
    user = None if n < 0 else metadata[pos + 4 : pos + 4 + n]
    if not user or protocol not in ("sticky", "cooperative-sticky"):
        return None, None
    if protocol == "cooperative-sticky" and len(user) == 4:
        return None, struct.unpack(">i", user)[0]
    try:  # StickyAssignorUserData v1: [topic, [partition]] then the generation, and nothing after
        (topics,) = struct.unpack_from(">i", user)
        at, out = 4, []
        for _ in range(topics):
            (k,) = struct.unpack_from(">h", user, at)
            name = user[at + 2 : at + 2 + k].decode()
            (c,) = struct.unpack_from(">i", user, at + 2 + k)
            at += 6 + k
            out.append((name, list(struct.unpack_from(f">{c}i", user, at))))
            at += 4 * c
        (generation,) = struct.unpack_from(">i", user, at)
        if at + 4 != len(user):
            raise struct.error("bytes after the generation")
    except struct.error:
        return None, None
    return out, generation


def test_sticky_columns_on_the_shared_captures():
    frames = [
        f
        for f in jsonl(SHARED / "captures" / "frames.jsonl")
        if f["api_key"] == 11 and f["direction"] == "request" and not f["flexible"]
    ]
    got = [u for u in _decode(frames) if u["unit_kind"] == "member"]
    want = []
    for f in frames:
        j = join_request_any(bytes.fromhex(f["hex"]), f["api_version"])
        name, metadata = j["protocols"][0]
        want.append(_by_hand(metadata, name))
    assert [
        (
            None if u["sticky_partitions"] is None else [(t["topic"], t["partitions"]) for t in u["sticky_partitions"]],
            u["sticky_generation"],
        )
        for u in got
    ] == want
    assert sum(w[0] is not None for w in want) >= 10  # Java's sticky and librdkafka's cooperative-sticky members
    assert sum(w[0] is None and w[1] is not None for w in want) >= 3  # Java's cooperative-sticky generations
