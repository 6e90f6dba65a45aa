"""Java's hash codes and the iteration order of Java's hash tables, where Kafka's bytes or choices depend on them.

Kafka iterates ``HashMap``s and ``HashSet``s in several places whose order reaches the wire or a decision: the
coordinator's protocol vote (:mod:`codec.negotiation.protocol`), Kafka Connect's assignment writer and its
assignors (:mod:`codec.connect`), the Streams assignor's client queue (:mod:`codec.assignor.javapq`) and the share
groups' assignor (:mod:`codec.assignor.share`). Java 17's tables iterate by bucket — the key's ``hashCode``
spread as ``h ^ (h >>> 16)`` and masked by the table's capacity, a power of two — and within a bucket in the order
the keys were put (a resize keeps it). The capacity depends on how the table was made: filled one by one from
empty (:func:`filled_capacity`) or copied from a collection (:func:`copy_capacity`). Buckets of 8 or more
colliding keys, which Java turns into trees, are not modelled.

This module imports nothing of the package: every layer that needs Java's order reaches it from below.
"""

from __future__ import annotations

import uuid
from typing import Callable, Iterable, Sequence, TypeVar

__all__ = [
    "int32",
    "string_hash",
    "uuid_hash",
    "spread",
    "filled_capacity",
    "copy_capacity",
    "hash_order",
    "hashmap_order",
]

T = TypeVar("T")


def int32(h: int) -> int:
    """``h`` wrapped to a signed 32-bit int, as Java's ``int`` arithmetic leaves it."""
    h &= 0xFFFFFFFF
    return h - (1 << 32) if h >= (1 << 31) else h


def string_hash(s: str) -> int:
    """``String.hashCode``: s[0]*31^(n-1) + ... over UTF-16 code units (lone surrogates included), a signed int32."""
    h = 0
    units = s.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(units), 2):
        h = (31 * h + ((units[i] << 8) | units[i + 1])) & 0xFFFFFFFF
    return int32(h)


def uuid_hash(u: uuid.UUID) -> int:
    """``java.util.UUID.hashCode`` and Kafka's ``Uuid.hashCode`` (the same): the two 64-bit halves XORed, the
    result's halves XORed again, a signed int32."""
    hilo = (u.int >> 64) ^ (u.int & (2**64 - 1))
    return int32((hilo >> 32) ^ hilo)


def spread(h: int) -> int:
    """``HashMap.hash``: the hash code's high half folded into its low half (unsigned 32-bit)."""
    h &= 0xFFFFFFFF
    return h ^ (h >> 16)


def filled_capacity(n: int) -> int:
    """The buckets of a ``HashMap``/``HashSet`` that ``n`` keys were put into one by one from empty: 16, doubled
    whenever the size passes three quarters of it."""
    cap = 16
    while n > cap * 3 // 4:
        cap <<= 1
    return cap


def copy_capacity(n: int) -> int:
    """The buckets of ``new HashSet<>(collection)`` of ``n`` elements on Java 17: the power of two at or above
    ``max((int) (n / .75f) + 1, 16)`` (Java 19 and later size it from ``ceil(n / .75)``, which differs for
    some n > 12)."""
    want, cap = max(int(n / 0.75) + 1, 16), 1
    while cap < want:
        cap <<= 1
    return min(cap, 1 << 30)


def hash_order(items: Iterable[T], hash_fn: Callable[[T], int], capacity: int) -> list[T]:
    """The iteration order of a Java hash table of ``capacity`` buckets into which ``items`` (distinct) were put
    in the given order: by bucket, then by insertion."""
    items = list(items)
    keys = sorted((spread(hash_fn(x)) & (capacity - 1), i) for i, x in enumerate(items))
    return [items[i] for _, i in keys]


def hashmap_order(keys: Sequence[str]) -> list[str]:
    """The iteration order of a ``HashMap<String, ?>`` filled with ``keys`` (distinct) in the given order."""
    return hash_order(keys, string_hash, filled_capacity(len(keys)))
