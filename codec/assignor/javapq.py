"""Java collection behaviour that decides Kafka's tie-breaking (wire-facts §10 caution).

- :class:`JavaPriorityQueue` sifts exactly like ``java.util.PriorityQueue`` (``offer``, ``poll``,
  ``remove(Object)``), and compares through a key function evaluated *at comparison time*, so a
  key that changes while an element is queued has the same effect as in Java.
- :func:`java_hash_set_order` gives the iteration order of a ``java.util.HashSet`` of UUIDs.
"""

from __future__ import annotations

import uuid
from typing import Callable, Generic, Iterable, Protocol, Self, TypeVar

from ..javaorder import filled_capacity, hash_order, uuid_hash

__all__ = ["JavaPriorityQueue", "java_hash_set_order"]

T = TypeVar("T")


class _Ordered(Protocol):
    """A heap key: compared with keys of the same type (numbers, tuples of them), as Java's ``compareTo``."""

    def __le__(self, other: Self, /) -> bool: ...

    def __ge__(self, other: Self, /) -> bool: ...

    def __gt__(self, other: Self, /) -> bool: ...


class JavaPriorityQueue(Generic[T]):
    """Array binary heap with Java's ``siftUp``/``siftDown``/``removeAt`` rules, ordered by
    ``key(element)`` (read anew at every comparison)."""

    def __init__(self, key: Callable[[T], _Ordered]) -> None:
        self._key = key
        self._q: list[T] = []

    def __len__(self) -> int:
        return len(self._q)

    def offer(self, item: T) -> None:
        self._q.append(item)
        self._sift_up(len(self._q) - 1, item)

    def poll(self) -> T:
        q = self._q
        result = q[0]
        last = q.pop()
        if q:
            self._sift_down(0, last)
        return result

    def remove(self, item: T) -> bool:
        """``remove(Object)``: the first slot holding ``item``; the last element fills the hole."""
        q = self._q
        for i, x in enumerate(q):
            if x == item:
                break
        else:
            return False
        moved = q.pop()
        if i < len(q):
            self._sift_down(i, moved)
            if q[i] is moved:
                self._sift_up(i, moved)
        return True

    def _sift_up(self, k: int, item: T) -> None:
        q, key = self._q, self._key
        item_key = key(item)
        while k > 0:  # stop as soon as the parent is <= the element
            parent = (k - 1) >> 1
            if item_key >= key(q[parent]):
                break
            q[k] = q[parent]
            k = parent
        q[k] = item

    def _sift_down(self, k: int, item: T) -> None:
        q, key = self._q, self._key
        n = len(q)
        half = n >> 1
        item_key = key(item)
        while k < half:  # take the right child only when it is strictly smaller
            child = 2 * k + 1
            child_key = key(q[child])
            right = child + 1
            if right < n:
                right_key = key(q[right])
                if child_key > right_key:
                    child, child_key = right, right_key
            if item_key <= child_key:
                break
            q[k] = q[child]
            k = child
        q[k] = item


def java_hash_set_order(items: Iterable[T], pid: Callable[[T], uuid.UUID]) -> list[T]:
    """Iteration order of a ``new HashSet<UUID>()`` filled with ``items`` in the given order, keyed by
    ``pid`` (:mod:`codec.javaorder`)."""
    items = list(items)
    return hash_order(items, lambda x: uuid_hash(pid(x)), filled_capacity(len(items)))
