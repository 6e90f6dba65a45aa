"""codec.javaorder against values Java itself gives (hand-checked with the JDK's definitions): String.hashCode,
UUID.hashCode, the two ways a HashSet is sized, and a bucket order with a collision."""

from __future__ import annotations

import uuid

from codec.javaorder import copy_capacity, filled_capacity, hash_order, hashmap_order, string_hash, uuid_hash


def test_string_hash_is_javas():
    assert string_hash("") == 0
    assert string_hash("hello") == 99162322
    assert string_hash("Aa") == string_hash("BB") == 2112  # Java's textbook collision
    assert string_hash("polygenelubricants") == -2147483648  # wraps to Integer.MIN_VALUE
    assert string_hash("\U0001f600") == 0xD83D * 31 + 0xDE00  # UTF-16 code units, not code points


def test_uuid_hash_is_javas():
    assert uuid_hash(uuid.UUID(int=1)) == 1
    assert uuid_hash(uuid.UUID(int=(1 << 64) | 1)) == 0  # the halves cancel
    assert uuid_hash(uuid.UUID(int=(0xFFFFFFFF << 32) << 64)) == -1  # (int) (hilo >> 32) ^ (int) hilo


def test_capacities():
    assert [filled_capacity(n) for n in (0, 12, 13, 24, 25)] == [16, 16, 32, 32, 64]
    # new HashSet<>(c): tableSizeFor(max((int) (n / .75f) + 1, 16))
    assert [copy_capacity(n) for n in (0, 11, 12, 24, 25)] == [16, 16, 32, 64, 64]


def test_order_is_by_bucket_then_insertion():
    # "Aa" and "BB" share bucket 2112 & 15 = 0; "a" (97) is in bucket 1
    assert hashmap_order(["a", "BB", "Aa"]) == ["BB", "Aa", "a"]
    assert hashmap_order(["Aa", "a", "BB"]) == ["Aa", "BB", "a"]
    assert hash_order([3, 1, 2, 17], lambda x: x, 16) == [1, 17, 2, 3]  # 17 & 15 == 1, after 1
