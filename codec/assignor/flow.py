"""Dinic's maximum flow on an explicit graph with integer capacities, for ``high_availability_fast``'s target
(issue #28): the most tasks kept on caught-up clients within balanced counts is a maximum flow.

The graph may be seeded with a flow found greedily (:meth:`MaxFlow.push`); :meth:`MaxFlow.run` then adds
the rest, so a graph that is nearly solved costs one or two breadth-first searches.
"""

from __future__ import annotations

from collections import deque

__all__ = ["MaxFlow"]


class MaxFlow:
    """A flow network: ``add`` arcs, ``push`` a known flow along arcs, ``run`` to a maximum flow."""

    def __init__(self, nodes: int) -> None:
        self._adj: list[list[int]] = [[] for _ in range(nodes)]
        self._to: list[int] = []
        self._cap: list[int] = []

    def add(self, u: int, v: int, cap: int) -> int:
        """A new arc u -> v of capacity ``cap``; returns its id (its reverse is ``id ^ 1``)."""
        e = len(self._to)
        self._to += (v, u)
        self._cap += (cap, 0)
        self._adj[u].append(e)
        self._adj[v].append(e + 1)
        return e

    def push(self, e: int, amount: int = 1) -> None:
        """Send ``amount`` more along arc ``e`` (the caller keeps flow conservation)."""
        self._cap[e] -= amount
        self._cap[e ^ 1] += amount

    def flow(self, e: int) -> int:
        """The flow on arc ``e`` (an arc made by :meth:`add`)."""
        return self._cap[e ^ 1]

    def run(self, s: int, t: int) -> int:
        """Augment to a maximum flow from ``s`` to ``t``; returns how much was added."""
        added = 0
        while True:
            level = self._levels(s, t)
            if level[t] < 0:
                return added
            it = [0] * len(self._adj)
            while True:
                amount = self._augment(s, t, level, it)
                if not amount:
                    break
                added += amount

    def _levels(self, s: int, t: int) -> list[int]:
        level = [-1] * len(self._adj)
        level[s] = 0
        queue = deque([s])
        to, cap = self._to, self._cap
        while queue:
            u = queue.popleft()
            for e in self._adj[u]:
                v = to[e]
                if cap[e] > 0 and level[v] < 0:
                    level[v] = level[u] + 1
                    if v == t:
                        return level
                    queue.append(v)
        return level

    def _augment(self, s: int, t: int, level: list[int], it: list[int]) -> int:
        """One augmenting path along increasing levels (iterative depth-first search); 0 when none is left."""
        to, cap, adj = self._to, self._cap, self._adj
        stack = [s]
        path: list[int] = []
        while stack:
            u = stack[-1]
            if u == t:
                amount = min(cap[e] for e in path)
                for e in path:
                    self.push(e, amount)
                return amount
            edges = adj[u]
            i = it[u]
            while i < len(edges) and not (cap[edges[i]] > 0 and level[to[edges[i]]] == level[u] + 1):
                i += 1
            it[u] = i
            if i == len(edges):
                stack.pop()
                level[u] = -1
                if path:
                    path.pop()
                    it[stack[-1]] += 1
                continue
            e = edges[i]
            stack.append(to[e])
            path.append(e)
        return 0
